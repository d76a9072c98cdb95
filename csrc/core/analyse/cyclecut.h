/*
** cyclecut.h: a small set of arcs whose removal breaks every cycle of a
** call graph with at least N members (gprof's cycles: strongly connected
** components; an arc from a node to itself is recursion, not a cycle),
** light arcs (fewest calls) first. Polynomial, iterative (no recursion):
** per component an Eades-Lin-Smyth ordering weighted by the call counts,
** its back arcs dropped, then every dropped arc put back that closes no
** cycle of N or more members. No Lua here.
*/
#ifndef cyclecut_h
#define cyclecut_h

#include "util/util.h"

/* One arc of the graph handed in: from -> to, called count times. */
typedef struct lgp_cutarc {
  uint32_t from, to;
  uint64_t count;
} lgp_cutarc;

/* The cycles of a graph: strongly connected components of 2 or more nodes. */
typedef struct lgp_cyclestats {
  size_t cycles;   /* every cycle */
  size_t large;    /* those with min_members or more members */
  size_t largest;  /* members of the largest one (0: no cycle) */
} lgp_cyclestats;

typedef struct lgp_cyclecuts {
  uint32_t *cuts;  /* the arcs to remove (ids into the arcs handed in),
                      by count, then id */
  size_t ncuts;
  lgp_cyclestats before, after;
  size_t crowded;  /* one_cut_per_caller: callers still left with several cuts */
  int minimal;     /* every dropped arc was checked for putting back (a
                      work budget of a few times the component's size
                      ran out otherwise: the set is then valid, not minimal) */
} lgp_cyclecuts;

/* Cuts for the graph of nnodes nodes and narcs arcs; arcs with skip[k]
** set (skip may be NULL) are not in the graph. min_members >= 2. With
** one_cut_per_caller, a caller gets at most one cut where the method can
** arrange it (gprof's -k deletes one callee's arcs per caller). 0, or -1
** with a message (out of memory). */
int lgp_cyclecut_find(size_t nnodes, const lgp_cutarc *arcs, size_t narcs, const uint8_t *skip,
                      size_t min_members, int one_cut_per_caller, lgp_cyclecuts *out,
                      lgp_err *err);
/* Only the cycles' counts (no cuts). 0, or -1 (out of memory). */
int lgp_cyclecut_stats(size_t nnodes, const lgp_cutarc *arcs, size_t narcs, const uint8_t *skip,
                       size_t min_members, lgp_cyclestats *out, lgp_err *err);
void lgp_cyclecut_free(lgp_cyclecuts *c);

#endif
