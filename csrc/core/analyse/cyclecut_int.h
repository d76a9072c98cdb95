/*
** cyclecut_int.h: what the two halves of the cycle cuts share (cyclecut.c:
** components, putting back, the entry points; cyclelayout.c: laying a
** component out in a line). Internal to the core.
*/
#ifndef cyclecut_int_h
#define cyclecut_int_h

#include "analyse/cyclecut.h"

#define NONE UINT32_MAX
/* A huge component: one of more arcs than this gets cheaper layouts
** (cyclelayout.c) and a smaller put-back budget (cyclecut.c). */
#define BIG_ARCS 262144

typedef struct lgp_ccwork {
  size_t n, m, min_members;
  const lgp_cutarc *arcs;
  uint8_t *dead;      /* m: not in the graph now (skipped, recursive or cut) */
  uint8_t *cut;       /* m: dropped and not put back */
  uint32_t *out_off, *out_arc; /* arcs by caller (n + 1 offsets) */
  uint32_t *out_to;   /* m: the callee of out_arc[e], NONE when dead (the
                         component search's copy, made as it starts) */
  uint32_t *in_off, *in_arc;   /* arcs by callee */
  /* Tarjan's strongly connected components */
  uint32_t *comp, *csize, ncomp;
  uint32_t *idx, *low, *stack, *call_node, *call_edge;
  uint8_t *onstack;
  uint32_t *memb_off, *members; /* the nodes of each component */
  /* the ordering */
  double *wout, *win;
  uint32_t *dout, *din, *pos, *pos_alt, *heap, *hpos, *sinks, *sources;
  uint8_t *placed;
  size_t hn;
  /* putting back */
  uint32_t *back, *dfs, *stamp, *stamp2, gen;
  uint32_t *back_f, *back_b, *places; /* the nodes a put-back search found */
  uint32_t *nfrom; /* cut arcs per caller */
  int one_per_caller;
  int minimal;
} lgp_ccwork;

/* Is arc k live and inside component c? */
static inline int lgp_cyclecut_inside(const lgp_ccwork *w, uint32_t k, uint32_t c) {
  return !w->dead[k] && w->comp[w->arcs[k].from] == c && w->comp[w->arcs[k].to] == c;
}

/* Lays out component c (of N or more members) into w->pos: the layout
** whose back arcs carry the fewest calls; *narcs gets the component's arc
** count. Uses the ordering's arrays and call_node/call_edge. 0, or -1 (out
** of memory). */
int lgp_cyclecut_order(lgp_ccwork *w, uint32_t c, size_t *narcs);
/* The arc comparator: more calls first, then the lower arc number. */
int lgp_cyclecut_heavier(const void *ctx, uint32_t a, uint32_t b);
/* Orders the arc lists of component c's members heaviest first (then by
** arc number). 0, or -1 (out of memory). */
int lgp_cyclecut_sort_lists(lgp_ccwork *w, uint32_t c);

#endif
