/*
** cgorder.h: the orders of an analysed graph, the stages of cgraph.c's
** analysis that sort (cgorder.c).
*/
#ifndef cgorder_h
#define cgorder_h

#include "model/cgraph.h"

/* g->name_rank: each symbol's place by raw name (ties by address). 0 or -1. */
int lgp_graph_rank_names(lgp_graph *g);
/* g->time_sorted and each node's index: the call graph's order, after the
** propagation (name ranks made). 0 or -1 (out of memory). */
int lgp_graph_index_order(lgp_graph *g);
/* g->flat_sorted and each symbol's flat_rank. 0 or -1. */
int lgp_graph_flat_order(lgp_graph *g);

#endif
