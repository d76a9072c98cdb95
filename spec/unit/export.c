/*
** export.c: lgp_export's failures say what they are (csrc/core/write/export.c),
** and the folded stacks do not depend on the order the arcs came in.
*/
#include <stdlib.h>
#include <string.h>

#include "write/export.h"
#include "model/names.h"
#include "tinyprof.h"
#include "unit.h"

/* main calls m1 and B; m1 and m2 call each other (cycle 1); m1, B and m2
** call X (1, 2 and 1 times), which has all 100 ticks. By the definitions,
** X's 100 ticks go to its callers by calls: 25 + 25 to the cycle, 50 to B,
** so with min_weight 0.4 (a cutoff of 40 ticks) the stacks are
** main;B;X and main;<cycle 1>;X, 0.5 s each: the cycle's two arcs to X are
** one 50-tick edge, whichever order the arcs were added in (B's arc
** between m1's and m2's once gave two 25-tick edges, both cut). */
#define NFOLD 5
static void check_folded_order(int interleave) {
  static const char *const names[NFOLD] = {"main", "m1", "B", "m2", "X"};
  lgp_rawsym syms[NFOLD];
  tinyprof t;
  lgp_names nm;
  lgp_export_opts eo;
  lgp_out o;
  lgp_err err = {0, ""};
  int rc = 0;
  if (tinyprof_init(&t, syms, names, NFOLD) != 0)
    abort();
  t.g.hz = 100;
  t.p.graph.nodes[4].hist_time = 100;
  rc |= lgp_arctab_add(&t.p.graph.arcs, 0, 1, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, 1, 3, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, 3, 1, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, 0, 2, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, 1, 4, 1);
  if (interleave) {
    rc |= lgp_arctab_add(&t.p.graph.arcs, 2, 4, 2);
    rc |= lgp_arctab_add(&t.p.graph.arcs, 3, 4, 1);
  } else {
    rc |= lgp_arctab_add(&t.p.graph.arcs, 3, 4, 1);
    rc |= lgp_arctab_add(&t.p.graph.arcs, 2, 4, 2);
  }
  CHECK(rc == 0, "arcs added");
  rc = lgp_graph_analyse(&t.p.graph, &t.specs, LGP_GRAPH_ALL, &err);
  CHECK(rc == 0, "analysed: %s", err.msg);
  lgp_names_init(&nm, NFOLD, 0, NULL);
  lgp_export_opts_init(&eo);
  eo.format = LGP_EXPORT_FOLDED;
  eo.min_weight = 0.4;
  lgp_out_init(&o, NULL);
  rc = lgp_export(&o, &t.p, &nm, &eo, &err);
  CHECK(rc == 0, "folded export (interleaved %d): %s", interleave, err.msg);
  CHECK(o.len == strlen("main;B;X 500000\nmain;<cycle 1>;X 500000\n") &&
        strstr(o.buf, "main;B;X 500000\n") != NULL &&
        strstr(o.buf, "main;<cycle 1>;X 500000\n") != NULL,
        "folded stacks (interleaved %d): '%.*s'", interleave, (int)o.len, o.buf);
  lgp_out_free(&o);
  lgp_names_free(&nm);
  tinyprof_free(&t);
}

int main(void) {
  lgp_profile p;
  lgp_names nm;
  lgp_export_opts eo;
  lgp_out o;
  lgp_err err = {0, ""};
  int rc;
  memset(&p, 0, sizeof p);
  memset(&nm, 0, sizeof nm);
  lgp_export_opts_init(&eo);
  eo.format = LGP_EXPORT_FOLDED + 1;
  lgp_out_init(&o, NULL);
  rc = lgp_export(&o, &p, &nm, &eo, &err);
  CHECK(rc == -1, "an unknown format fails (returned %d)", rc);
  CHECK(strcmp(err.msg, "unknown export format 5") == 0, "an unknown format says so: '%s'",
        err.msg);
  CHECK(o.len == 0, "nothing written for an unknown format (%zu bytes)", o.len);
  lgp_out_free(&o);
  check_folded_order(0);
  check_folded_order(1);
  return unit_done("export");
}
