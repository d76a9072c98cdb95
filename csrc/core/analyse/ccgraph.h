/*
** ccgraph.h: the graph a cycle cut works on (cyclecut.c cuts it,
** cyclelayout.c lays its components out): the arcs by caller and by
** callee, which are live, and the strongly connected components of the
** live arcs with their members. Internal to the core.
*/
#ifndef ccgraph_h
#define ccgraph_h

#include "analyse/cyclecut.h"

/* A huge component: one of more arcs than this gets cheaper layouts
** (cyclelayout.c) and a smaller put-back budget (cyclecut.c). */
#define LGP_CCGRAPH_BIG_ARCS 262144

typedef struct lgp_ccgraph {
  size_t n, m;
  const lgp_cutarc *arcs;
  uint8_t *dead;      /* m: not in the graph now (skipped, recursive or cut) */
  uint32_t *out_off, *out_arc; /* arcs by caller (n + 1 offsets) */
  uint32_t *out_to;   /* m: the callee of out_arc[e], UINT32_MAX when dead
                         (the component search's copy, made as it starts) */
  uint32_t *in_off, *in_arc;   /* arcs by callee */
  /* Tarjan's strongly connected components */
  uint32_t *comp, *csize, ncomp;
  uint32_t *idx, *low, *stack, *call_node, *call_edge;
  uint8_t *onstack;
  uint32_t *memb_off, *members; /* the nodes of each component, by id */
} lgp_ccgraph;

/* The graph of the arcs (less the recursive ones and those skip[k] says);
** nnodes and narcs below UINT32_MAX, every arc's ends below nnodes. 0, or
** -1 (out of memory). */
int lgp_ccgraph_init(lgp_ccgraph *g, size_t nnodes, const lgp_cutarc *arcs, size_t narcs,
                     const uint8_t *skip);
void lgp_ccgraph_free(lgp_ccgraph *g);
/* The components of the live arcs and their members (comp, csize, ncomp,
** memb_off, members). */
void lgp_ccgraph_components(lgp_ccgraph *g);
/* Is arc k live and inside component c? */
static inline int lgp_ccgraph_inside(const lgp_ccgraph *g, uint32_t k, uint32_t c) {
  return !g->dead[k] && g->comp[g->arcs[k].from] == c && g->comp[g->arcs[k].to] == c;
}
/* The arc comparator (ctx: the arcs): more calls first, then the lower
** arc number. */
int lgp_ccgraph_heavier(const void *ctx, uint32_t a, uint32_t b);
/* Orders the arc lists of component c's members heaviest first (then by
** arc number). 0, or -1 (out of memory). */
int lgp_ccgraph_sort_lists(lgp_ccgraph *g, uint32_t c);

#endif
