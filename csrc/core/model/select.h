/*
** select.h: which functions and arcs a picture or a thresholded view
** shows, and the dotted (residual) edges through what it leaves out. One
** selection for lgprof.dot and profile:filter's thresholds; it never
** changes a time.
*/
#ifndef select_h
#define select_h

#include "model/profile.h"

typedef struct lgp_select_spec {
  double node_fraction;  /* keep functions whose total is at least this share
                            of the call graph's time */
  double edge_fraction;  /* draw timed arcs carrying at least this share */
  size_t max_nodes;      /* at most this many (the heaviest); SIZE_MAX: all */
  uint64_t min_calls;    /* drop called functions with fewer calls */
  int residual;          /* compute the dotted edges */
} lgp_select_spec;

/* A residual edge: kept caller -> kept callee through dropped functions
** (one hop), with the time the proportional model sends along it. Like
** every share here, worked out in seconds as the API shows them. */
typedef struct lgp_residual {
  uint32_t caller, callee;
  double time;           /* seconds */
  uint32_t via_first;    /* its dropped functions: via[via_first ...] */
  uint32_t nvia;
} lgp_residual;

typedef struct lgp_selection {
  uint8_t *kept;         /* per symbol */
  uint8_t *arc_kept;     /* per arc: both ends kept, and drawn */
  uint32_t *nodes;       /* the kept symbols in index order */
  size_t nnodes;
  uint32_t *arcs;        /* the drawn arcs by (caller index, callee index) */
  size_t narcs;
  size_t ncandidates;    /* printed functions with some time or calls */
  lgp_residual *residual;/* by (caller index, callee index) */
  size_t nresidual;
  uint32_t *via;
  size_t nvia;
} lgp_selection;

/* Candidates: functions gprof prints (print flag), not removed, with some
** time or some calls. Kept: candidates whose share is at least
** node_fraction and that have min_calls calls (roots always do), the
** max_nodes with the largest totals (ties: the lower index). Arcs between
** kept functions are drawn when they carry at least edge_fraction, or
** carry no time in gprof's model (recursive, inside a cycle). A residual
** edge A -> B (no drawn arc A -> B) sums, over dropped X with arcs A -> X
** and X -> B, t(A,X) * t(X,B) / D(X), D(X) the total of X (of its cycle if
** it is in one); paths below edge_fraction are cut. Linear in arcs plus
** sorts of each dropped function's arcs. 0, or -1 (out of memory). */
int lgp_select(const lgp_profile *p, const lgp_select_spec *spec, lgp_selection *sel);
void lgp_selection_free(lgp_selection *sel);

#endif
