/*
** bounds.h: what the data proves about each total time gprof prints.
**
** gprof charges a callee's time to its callers in proportion to their
** calls (as if every call cost the same). The call counts and the self
** times say more than that estimate and less: whatever the true cost of
** each call, F's total time (F and everything run under it) is at least
** F's self plus the self of every unit F dominates (reachable from the
** roots only through F: its time can flow up through F alone), and at
** most F's self plus the self of every unit reachable from F.
**
** The graph: units are the functions outside cycles and the cycles (the
** condensation: acyclic); its edges are the arcs that carry time in
** gprof's model (count > 0, between two units, into a function whose time
** propagates). A unit with no such callers hangs below a virtual root; so
** does the callee of an arc out of a function whose time tables (-E, -F)
** stop propagation (time entering it goes nowhere). Times are gprof's
** ticks scaled as gprof scales the unit's total (its propagation fraction,
** 1 without time tables), so total_min <= total <= total_max: a unit's
** bounds are its call-graph self plus what comes up from below, scaled by
** its fraction (a cycle: its members' fractions, which scale what each
** member passes on; gprof gives a cycle that nothing calls fraction 0, so
** its self is 0 while its members' children count).
**
** Costs: building (lower bounds for all, callers, spontaneity) is
** O((units + arcs) log units): a dominator tree of the DAG in topological
** order, each idom the nearest common ancestor of the unit's callers found
** with skew-binary jump pointers (O(log depth) per arc, no recursion). The
** upper bounds (all of them, on first use) are a traversal each of what a
** node reaches, leaves first, while the work stays within
** LGP_BOUNDS_PASSES passes over the graph: beyond that (very large acyclic
** graphs, where the exact sums for all cost up to units x arcs) a node gets
** a looser sound bound: its callees' bounds summed (what two callees share
** counts twice), at most everything's self. lgp_bounds_max says which.
*/
#ifndef bounds_h
#define bounds_h

#include "model/profile.h"

#define LGP_BOUNDS_PASSES 16

typedef struct lgp_bounds {
  const lgp_profile *p;
  size_t n;               /* nodes: symbols, then cycles */
  uint32_t *unit;         /* node -> its unit (a cycle member: its cycle) */
  uint32_t *off, *succ;   /* units' timed out-edges (CSR over nodes; duplicates kept) */
  double *h;              /* node's self ticks that propagate (unscaled) */
  double *min;            /* node's lower bound (ticks, scaled) */
  double *max;            /* node's upper bound (ticks, scaled), once have_max */
  uint8_t *exact;         /* is max[s] the exact reachability sum? */
  int have_max;
  uint32_t *topo;         /* units in topological order (callers first) */
  size_t ntopo;
  double hall;            /* every unit's self ticks that propagate */
  uint32_t *ncallers;     /* units: timed arcs coming in from other units */
  uint8_t *root;          /* units with no timed callers */
  double *scale;          /* units: how gprof scales what comes up from below
                             (a cycle: its least and greatest member's fraction) */
  double *scale_hi;
  uint32_t *stamp, gen;   /* traversal marks (a stamp per traversal) */
  uint32_t *stack;
} lgp_bounds;

/* Bounds for profile (or view) p, analysed (LGP_GRAPH_TIME); p must
** outlive b. 0, or -1 (out of memory). */
int lgp_bounds_build(lgp_bounds *b, const lgp_profile *p);
void lgp_bounds_free(lgp_bounds *b);
/* Node s's total_min, in ticks (seconds: lgp_seconds). */
double lgp_bounds_min(const lgp_bounds *b, uint32_t s);
/* Computes every node's upper bound (lgp_bounds_max does on its first
** call). 0, or -1 (out of memory). */
int lgp_bounds_upper(lgp_bounds *b);
/* Node s's total_max in *max (ticks) and whether it is exact (the sum over
** what s reaches) in *exact (may be NULL). The first call computes every
** node's. 0, or -1 (out of memory). */
int lgp_bounds_max(lgp_bounds *b, uint32_t s, double *max, int *exact);
/* Does arc k carry time that rests on gprof's equal-cost assumption (it
** carries time, into a unit with time and more than one timed caller)? */
int lgp_bounds_arc_estimated(const lgp_bounds *b, uint32_t k);
/* Is node s (a function, or a cycle) a root of the timed graph that ran
** (it has time or calls out) and is not the program's entry (main, or a
** cycle holding it): its callers were not profiled, and the lower bounds
** of what is below it assume nothing else calls in? */
int lgp_bounds_spontaneous(const lgp_bounds *b, uint32_t s);
/* The units whose time gprof splits between several callers by its
** assumption (time > 0, two or more timed callers), heaviest total first
** (ties: call-graph index): *out (allocated, *n of them; free it). 0, or
** -1 (out of memory). */
int lgp_bounds_ambiguous(const lgp_bounds *b, uint32_t **out, size_t *n);

#endif
