/*
** stacks.c: the stacks of csrc/core/analyse/stacks.c as data: frames by
** node (a cycle is one node, its members leaves below it), weights in
** ticks and microseconds, the prefix each shares with the one before, and
** the depth limit and the weight cutoff.
*/
#include <stdlib.h>
#include <string.h>

#include "analyse/stacks.h"
#include "tinyprof.h"
#include "unit.h"

/* main calls m1 and B; m1 and m2 call each other (cycle 1, node 5); m1,
** B and m2 call X (1, 2 and 1 times). X has 100 ticks, m2 20. By gprof's
** definitions X's 100 ticks go to its callers by calls: 50 to the cycle
** (m1's and m2's calls: one edge), 50 to B; the cycle's total is its
** members' self (20) and X's 50; main's is 120, all of the call graph. */
enum { MAIN, M1, B, M2, X, CYC, NSYMS = 5 };

typedef struct want {
  size_t depth;
  uint32_t frames[3];
  size_t same;
  double ticks;
  uint64_t us;
} want;

static void check_stacks(const lgp_profile *p, int max_depth, double min_weight, const want *w,
                         size_t nw, const char *what) {
  lgp_stacks *it = lgp_stacks_new(p, max_depth, min_weight);
  lgp_stack s;
  size_t n = 0, k;
  CHECK(it != NULL, "%s: made", what);
  if (it == NULL)
    return;
  CHECK(lgp_stacks_max_depth(it) == (size_t)max_depth, "%s: max depth %zu", what,
        lgp_stacks_max_depth(it));
  while (lgp_stacks_next(it, &s)) {
    if (n < nw) {
      int same_frames = s.depth == w[n].depth;
      for (k = 0; same_frames && k < s.depth; k++)
        same_frames = s.frames[k] == w[n].frames[k];
      CHECK(same_frames, "%s: stack %zu: frames (depth %zu, leaf %u)", what, n, s.depth,
            (unsigned)s.frames[s.depth - 1]);
      CHECK(s.same == w[n].same, "%s: stack %zu: %zu frames shared, not %zu", what, n, s.same,
            w[n].same);
      CHECK(s.ticks == w[n].ticks, "%s: stack %zu: %g ticks, not %g", what, n, s.ticks,
            w[n].ticks);
      CHECK(s.us == w[n].us, "%s: stack %zu: %llu us, not %llu", what, n,
            (unsigned long long)s.us, (unsigned long long)w[n].us);
    }
    n++;
  }
  CHECK(n == nw, "%s: %zu stacks, not %zu", what, n, nw);
  CHECK(!lgp_stacks_next(it, &s), "%s: still none after the end", what);
  lgp_stacks_free(it);
}

int main(void) {
  static const char *const names[NSYMS] = {"main", "m1", "B", "m2", "X"};
  lgp_rawsym syms[NSYMS];
  tinyprof t;
  lgp_err err = {0, ""};
  int rc = 0;
  if (tinyprof_init(&t, syms, names, NSYMS) != 0)
    abort();
  t.g.hz = 100;
  t.p.graph.nodes[X].hist_time = 100;
  t.p.graph.nodes[M2].hist_time = 20;
  rc |= lgp_arctab_add(&t.p.graph.arcs, MAIN, M1, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, M1, M2, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, M2, M1, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, MAIN, B, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, M1, X, 1);
  rc |= lgp_arctab_add(&t.p.graph.arcs, B, X, 2);
  rc |= lgp_arctab_add(&t.p.graph.arcs, M2, X, 1);
  CHECK(rc == 0, "arcs added");
  rc = lgp_graph_analyse(&t.p.graph, &t.specs, LGP_GRAPH_ALL, &err);
  CHECK(rc == 0, "analysed: %s", err.msg);
  CHECK(t.p.graph.ncycles == 1 && t.p.graph.nodes[M1].cyc_head == CYC, "one cycle, node 5");
  {
    /* broken down completely: main's heavier call first (the cycle, 70
       ticks), X below it, then the cycle's own time as its member m2; then
       B's X. Nothing else has self time: no other stack */
    static const want w[] = {
      {3, {MAIN, CYC, X}, 0, 50, 500000},
      {3, {MAIN, CYC, M2}, 2, 20, 200000},
      {3, {MAIN, B, X}, 1, 50, 500000},
    };
    check_stacks(&t.p, 64, 0.0, w, 3, "full");
  }
  {
    /* two frames: X's time stays with the cycle and B, and so does m2's
       (a member is a frame too) */
    static const want w[] = {
      {2, {MAIN, CYC, 0}, 0, 70, 700000},
      {2, {MAIN, B, 0}, 1, 50, 500000},
    };
    check_stacks(&t.p, 2, 0.0, w, 2, "max_depth 2");
  }
  {
    /* a cutoff of half the total, 60 ticks: the cycle (70) is broken down
       from main, nothing below it is; B (50) stays with main */
    static const want w[] = {
      {2, {MAIN, CYC, 0}, 0, 70, 700000},
      {1, {MAIN, 0, 0}, 1, 50, 500000},
    };
    check_stacks(&t.p, 64, 0.5, w, 2, "min_weight 0.5");
  }
  {
    /* 3 ticks a second: the microseconds are rounded so that the running
       sums are the rounded exact ones, 50, 70 and 120 ticks being
       16666666.7, 23333333.3 and 40000000 us */
    static const want w[] = {
      {3, {MAIN, CYC, X}, 0, 50, 16666667},
      {3, {MAIN, CYC, M2}, 2, 20, 6666666},
      {3, {MAIN, B, X}, 1, 50, 16666667},
    };
    t.g.hz = 3;
    check_stacks(&t.p, 64, 0.0, w, 3, "3 Hz");
  }
  tinyprof_free(&t);
  return unit_done("stacks");
}
