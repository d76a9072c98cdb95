/*
** cyclelayout.h: laying a strongly connected component out in a line so
** that the arcs pointing backwards, the ones to cut, carry few calls.
** Internal to the core (cyclecut.c uses it).
*/
#ifndef cyclelayout_h
#define cyclelayout_h

#include "analyse/ccgraph.h"

/* The layouts' work space, for graphs of n nodes. */
typedef struct lgp_cclayout {
  const lgp_ccgraph *g; /* the graph laid out (set by lgp_cclayout_order) */
  uint32_t *pos;        /* the layout written (set by lgp_cclayout_order) */
  double *wout, *win;   /* calls out of and into each node, not placed yet */
  uint32_t *dout, *din, *pos_alt, *heap, *hpos, *sinks, *sources;
  uint32_t *call_node, *call_edge; /* the depth-first search's stack */
  uint8_t *placed;
  size_t hn;
} lgp_cclayout;

/* 0, or -1 (out of memory). */
int lgp_cclayout_init(lgp_cclayout *l, size_t n);
void lgp_cclayout_free(lgp_cclayout *l);
/* Lays out component c of g (of 2 or more members) into pos (pos[v] for
** its members v: their places, 0 to its size - 1): the layout whose back
** arcs carry the fewest calls; *narcs gets the component's arc count. May
** reorder the members' arc lists (lgp_ccgraph_sort_lists). 0, or -1 (out
** of memory). */
int lgp_cclayout_order(lgp_cclayout *l, lgp_ccgraph *g, uint32_t c, uint32_t *pos,
                       size_t *narcs);

#endif
