/*
** arcs.c: reaching the arc limit (csrc/core/model/arcs.c) is reported as such:
** by the arc table, by the gmon reader (tagged and BSD
** files) when its sink says so, and by a view that hides a function.
** Compiled with -DLGP_ARCS_MAX=2 (spec/unit_spec.lua): the real limit,
** 2^32 - 2 arcs, cannot be reached in a test.
*/
#include <stdlib.h>
#include <string.h>

#include "tinyprof.h"
#include "unit.h"
#include "model/view.h"

#define NSYMS 4
#define AT(k) TINY_AT(k)

static const char *const FULL = "more than 2 distinct call-graph arcs";

/* The table itself: grouping (callers in a row), then hashed. */
static void table(void) {
  lgp_arctab t;
  lgp_arctab_init(&t, NSYMS);
  CHECK(lgp_arctab_add(&t, 0, 1, 1) == 0, "first arc");
  CHECK(lgp_arctab_add(&t, 1, 2, 1) == 0, "second arc");
  CHECK(lgp_arctab_add(&t, 0, 1, 5) == 0, "an old arc again (a caller back: hashed)");
  CHECK(lgp_arctab_add(&t, 1, 3, 1) == LGP_ARCS_FULL, "a third arc is one too many");
  CHECK(t.narcs == 2 && t.arcs[0].count == 6, "two arcs, counts summed (%zu)", t.narcs);
  CHECK(lgp_arctab_find(&t, 1, 2) == 1, "find the second arc");
  lgp_arctab_free(&t);
}

/* The reader turns a sink's LGP_ARCS_FULL into the message. */
static int full_sink(void *ctx, lgp_addr from, lgp_addr self, uint64_t count) {
  int *n = ctx;
  (void)from, (void)self, (void)count;
  return ++*n > 2 ? LGP_ARCS_FULL : 0;
}

static void put64(unsigned char *b, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
}

/* three arcs (one call each) in a tagged file, or in an old BSD file */
static size_t file_of_arcs(unsigned char *buf, int is_bsd) {
  size_t k, len;
  memset(buf, 0, 24);
  if (is_bsd) {
    put64(buf, AT(0));
    put64(buf + 8, AT(NSYMS));
    buf[16] = 24; /* ncnt: the header (20 bytes) and two empty bins */
    len = 24;
  } else {
    memcpy(buf, "gmon", 4);
    buf[4] = 1;
    len = 20;
  }
  for (k = 0; k < 3; k++) {
    if (!is_bsd)
      buf[len++] = 1; /* GMON_TAG_CG_ARC */
    put64(buf + len, AT(k) + 0x10);
    put64(buf + len + 8, AT(k + 1));
    memset(buf + len + 16, 0, 8);
    buf[len + 16] = 1;
    len += is_bsd ? 24 : 20;
  }
  return len;
}

static void reader(void) {
  int is_bsd;
  for (is_bsd = 0; is_bsd <= 1; is_bsd++) {
    unsigned char buf[512];
    lgp_gmon g;
    lgp_err err = {0, ""};
    int n = 0;
    size_t len = file_of_arcs(buf, is_bsd);
    lgp_gmon_init(&g, 8, 0);
    g.sink = full_sink;
    g.sink_ctx = &n;
    CHECK(lgp_gmon_read_mem(&g, buf, len, "mem", is_bsd ? LGP_FMT_BSD : LGP_FMT_AUTO, &err) != 0,
          "%s: a third arc fails", is_bsd ? "BSD" : "tagged");
    CHECK(strstr(err.msg, FULL) != NULL, "%s: a third arc: '%s'", is_bsd ? "BSD" : "tagged",
          err.msg);
    lgp_gmon_free(&g);
  }
}

/* main -> h -> a, analysed; hiding h needs a third arc, main -> a. */
static void view(void) {
  static const uint8_t hide[NSYMS] = {0, 1, 0, 0};
  static const char *const names[NSYMS] = {"main", "h", "a", "b"};
  lgp_rawsym syms[NSYMS];
  tinyprof t;
  lgp_profile v;
  lgp_view_spec vs;
  lgp_err err = {0, ""};
  if (tinyprof_init(&t, syms, names, NSYMS) != 0)
    abort();
  memset(&vs, 0, sizeof vs);
  if (lgp_arctab_add(&t.p.graph.arcs, 0, 1, 1) != 0 ||
      lgp_arctab_add(&t.p.graph.arcs, 1, 2, 1) != 0 ||
      lgp_graph_analyse(&t.p.graph, &t.specs, LGP_GRAPH_ALL, &err) != 0) {
    CHECK(0, "the base: %s", err.msg);
    tinyprof_free(&t);
    return;
  }
  vs.hide = hide;
  if (lgp_view_build(&v, &t.p, &vs, &err) == 0) {
    CHECK(0, "hiding h needs a third arc, yet the view was built");
    lgp_profile_free(&v);
  } else {
    CHECK(strstr(err.msg, FULL) != NULL, "hiding h: '%s'", err.msg);
  }
  tinyprof_free(&t);
}

int main(void) {
  table();
  reader();
  view();
  return unit_done("arcs");
}
