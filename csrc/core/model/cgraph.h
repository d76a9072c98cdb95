/*
** cgraph.h: the analysed call graph: nodes (symbols, then cycles), their
** arcs, adjacency in gprof's list order, cycles, propagated times and the
** orderings the reports print in.
*/
#ifndef cgraph_h
#define cgraph_h

#include "model/arcs.h"
#include "model/symspec.h"

typedef struct lgp_graph {
  lgp_node *nodes;        /* nsyms symbols in address order, then ncycles cycles */
  size_t nsyms, ncycles;
  lgp_arctab arcs;
  /* adjacency in gprof's list order (newest arc first): arc ids and the
     node at each entry's other end */
  uint32_t *child_off, *child_arcs, *child_succ;    /* nsyms + 1 offsets */
  uint32_t *parent_off, *parent_arcs, *parent_pred;
  /* orderings */
  uint32_t *top_sorted;   /* symbols by top_order (leaves first) */
  uint32_t *time_sorted;  /* symbols and cycles: call-graph index order */
  uint32_t *flat_sorted;  /* symbols: flat-profile order */
  uint32_t *name_rank;    /* symbols: position by raw name (ties by address) */
  /* dense copies of nodes[].cyc_next and cyc_head (symbols), for the walks
  ** over big cycles that would otherwise touch a node per arc */
  uint32_t *chain, *cyc_of;
  double total_time;      /* histogram ticks (flat profile denominator) */
  double print_time;      /* propagated self ticks (call-graph denominator) */
  unsigned analysed;      /* the LGP_GRAPH_* stages done */
} lgp_graph;

/* The stages of the analysis, each computed once, when first needed (a
** report of annotated source or execution counts needs only the calls). */
enum {
  LGP_GRAPH_CALLS = 1, /* ncalls and self_calls; the arc table sealed */
  LGP_GRAPH_TIME = 2,  /* adjacency, cycles, print flags, propagated times */
  LGP_GRAPH_INDEX = 4, /* time_sorted and index numbers (needs TIME) */
  LGP_GRAPH_FLAT = 8,  /* flat_sorted and flat_rank */
  LGP_GRAPH_ALL = 15
};

/* A graph of n nodes (owned from here) and no arcs yet. */
void lgp_graph_init(lgp_graph *g, lgp_node *nodes, size_t n);
void lgp_graph_free(lgp_graph *g);
/* gprof's analysis once every arc and sample is in, as far as the stages
** in need (and those they build on) and not done before: calls, cycles,
** propagation (the time tables of specs), the index and flat orders.
** Seals the arc table. 0, or -1 with a message. */
int lgp_graph_analyse(lgp_graph *g, const lgp_specs *specs, unsigned need, lgp_err *err);

/* Are both ends of arc a members of one cycle? */
static inline int lgp_arc_in_cycle(const lgp_graph *g, const lgp_arc *a) {
  int32_t c = g->nodes[a->parent].cyc_num;
  return c != 0 && c == g->nodes[a->child].cyc_num;
}
/* Does arc a carry no time in gprof's model (recursive, or in a cycle)? */
static inline int lgp_arc_untimed(const lgp_graph *g, const lgp_arc *a) {
  return a->parent == a->child || lgp_arc_in_cycle(g, a);
}

/* About how many bytes the graph holds (for a garbage collector's pacing). */
size_t lgp_graph_bytes(const lgp_graph *g);

/* dst: an analysed copy of src. 0, or -1 (out of memory). */
int lgp_graph_copy(lgp_graph *dst, const lgp_graph *src);

/* Children and parents of a symbol, in gprof's list order. */
#define lgp_children_begin(g, s) ((g)->child_arcs + (g)->child_off[s])
#define lgp_children_end(g, s) ((g)->child_arcs + (g)->child_off[(s) + 1])
#define lgp_parents_begin(g, s) ((g)->parent_arcs + (g)->parent_off[s])
#define lgp_parents_end(g, s) ((g)->parent_arcs + (g)->parent_off[(s) + 1])

#endif
