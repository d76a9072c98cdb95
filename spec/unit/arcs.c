/*
** arcs.c: reaching the arc limit (csrc/arcs.c) is reported as such, by the
** gmon reader (tagged and BSD files, line arcs) and by a view that hides a
** function. Compiled with -DLGP_ARCS_MAX=2 (spec/unit_spec.lua): the real
** limit, 2^32 - 2 arcs, cannot be reached in a test.
*/
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "unit.h"

/* main, h, a, b at 0x1000, 0x1100, ...: 0x100 bytes each */
static const char *const names[] = {"main", "h", "a", "b"};
#define NSYMS 4
#define AT(k) (0x1000u + 0x100u * (k))

static void profile_init(lgp_profile *p) {
  size_t k;
  memset(p, 0, sizeof *p);
  p->nsyms = NSYMS;
  p->nodes = calloc(NSYMS, sizeof *p->nodes);
  if (p->nodes == NULL)
    abort();
  for (k = 0; k < NSYMS; k++) {
    lgp_node *n = &p->nodes[k];
    n->name = names[k];
    n->addr = AT(k);
    n->end_addr = AT(k) + 0xff;
    n->file = -1;
    n->is_func = 1;
    n->print_flag = 1;
    n->cyc_head = (uint32_t)k;
    n->cyc_next = LGP_NONE;
  }
  if (lgp_symtab_index(p) != 0)
    abort();
  lgp_gmon_init(&p->gmon, 8, 0);
  p->gmon.sink = lgp_cg_tally;
  p->gmon.sink_ctx = p;
}

static void put64(unsigned char *b, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
}

/* A tagged (GNU) file of arcs only, little-endian, 64-bit: (from, to) pairs
** of symbol numbers, one call each; returns its size. */
static size_t tagged(unsigned char *buf, const int (*arcs)[2], size_t n) {
  size_t k, len = 20;
  memset(buf, 0, 20);
  memcpy(buf, "gmon", 4);
  buf[4] = 1; /* version 1 */
  for (k = 0; k < n; k++, len += 21) {
    buf[len] = 1; /* GMON_TAG_CG_ARC */
    put64(buf + len + 1, AT(arcs[k][0]) + 0x10);
    put64(buf + len + 9, AT(arcs[k][1]));
    buf[len + 17] = 1, buf[len + 18] = buf[len + 19] = buf[len + 20] = 0;
  }
  return len;
}

/* An old BSD file: header (low, high, ncnt), two empty bins, raw arcs. */
static size_t bsd(unsigned char *buf, const int (*arcs)[2], size_t n) {
  size_t k, len = 24;
  memset(buf, 0, 24);
  put64(buf, AT(0));
  put64(buf + 8, AT(NSYMS));
  buf[16] = 24; /* ncnt: the header (20 bytes) and the bins */
  for (k = 0; k < n; k++, len += 24) {
    put64(buf + len, AT(arcs[k][0]) + 0x10);
    put64(buf + len + 8, AT(arcs[k][1]));
    put64(buf + len + 16, 1);
  }
  return len;
}

static const char *const FULL = "more than 2 distinct call-graph arcs";

/* Reads the file; returns the message, "" on success. */
static const char *read_arcs(int is_bsd, int line_arcs, const int (*arcs)[2], size_t n) {
  static lgp_err err;
  unsigned char buf[512];
  lgp_profile p;
  size_t len = is_bsd ? bsd(buf, arcs, n) : tagged(buf, arcs, n);
  memset(&err, 0, sizeof err);
  profile_init(&p);
  p.keep_line_arcs = line_arcs;
  lgp_gmon_read_mem(&p.gmon, buf, len, "mem", is_bsd ? LGP_FMT_BSD : LGP_FMT_AUTO, &err);
  lgp_profile_free(&p);
  return err.msg;
}

static void reader(void) {
  static const int three[][2] = {{0, 1}, {1, 2}, {1, 3}};
  static const int repeated[][2] = {{0, 1}, {1, 2}, {0, 1}, {1, 2}, {1, 2}};
  static const int lines[][2] = {{0, 1}, {0, 2}, {0, 3}};
  int is_bsd;
  for (is_bsd = 0; is_bsd <= 1; is_bsd++) {
    const char *msg = read_arcs(is_bsd, 0, three, 3);
    CHECK(strstr(msg, FULL) != NULL, "%s: a third arc: '%s'", is_bsd ? "BSD" : "tagged", msg);
    msg = read_arcs(is_bsd, 0, repeated, 5);
    CHECK(*msg == '\0', "%s: records of two arcs: '%s'", is_bsd ? "BSD" : "tagged", msg);
  }
  CHECK(strstr(read_arcs(0, 1, lines, 3), FULL) != NULL, "line arcs: a third one: '%s'",
        read_arcs(0, 1, lines, 3));
}

/* main -> h -> a, analysed; hiding h needs a third arc, main -> a. */
static void view(void) {
  static const int two[][2] = {{0, 1}, {1, 2}};
  static const uint8_t hide[NSYMS] = {0, 1, 0, 0};
  unsigned char buf[512];
  lgp_profile p, v;
  lgp_view_spec vs;
  lgp_err err = {0, ""};
  size_t len = tagged(buf, two, 2);
  profile_init(&p);
  memset(&vs, 0, sizeof vs);
  vs.hide = hide;
  if (lgp_gmon_read_mem(&p.gmon, buf, len, "mem", LGP_FMT_AUTO, &err) != 0 ||
      lgp_cg_assemble(&p, &err) != 0 || lgp_flat_order(&p, &err) != 0) {
    CHECK(0, "the base: %s", err.msg);
    lgp_profile_free(&p);
    return;
  }
  p.analysed = 1;
  if (lgp_view_build(&v, &p, &vs, &err) == 0) {
    CHECK(0, "hiding h needs a third arc, yet the view was built");
    lgp_profile_free(&v);
  } else {
    CHECK(strstr(err.msg, FULL) != NULL, "hiding h: '%s'", err.msg);
  }
  lgp_profile_free(&p);
}

int main(void) {
  reader();
  view();
  return unit_done("arcs");
}
