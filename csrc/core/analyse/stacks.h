/*
** stacks.h: a profile's call stacks as data, one at a time: each stack is
** its frames (nodes: symbols, or cycles standing for all their members),
** root first, and its weight. Writers (folded stacks) and the Lua binding
** (flame graphs, pprof, speedscope) read stacks through this contract only,
** never how they were made: gmon.out has arcs, not stacks, so today they
** are estimated from the call graph (below); a profile may provide real
** stacks (measured ones, as perf.data records), which would come through
** the same iterator.
**
** The estimate. A unit is a function outside any cycle or a whole cycle;
** the units and the arcs between them form a DAG. A unit's total time T
** (self + children, as the call graph shows) reaches it along its incoming
** arcs (each carrying gprof's propagated share) and, for what no arc brings
** (roots, callers excluded from propagation), from a stack of its own.
** Walking down from those starts, a stack of weight W at unit u keeps
** W * self/T for u and passes W * share/T down each outgoing arc. So every
** unit's self time is spread over the stacks leading to it in proportion
** to what each caller contributes, and the weights add up to the call
** graph's total time. A cycle is one frame whose self time is split over
** its members as leaf frames below it; stacks never descend inside a
** cycle. A stack deeper than max_depth, or a subtree (or a member's share)
** lighter than min_weight of the total, is not broken down: its time stays
** with its top frame. Stacks at one depth share the total, so at most
** 1/min_weight of them come per depth. Order: depth first from each root
** (roots by node), the heaviest call first (ties: lower node). The walk
** uses an explicit stack (no recursion the input controls); each stack
** costs O(1) amortised beyond its frames, which are not copied.
*/
#ifndef stacks_h
#define stacks_h

#include "model/profile.h"

/* One stack, valid until the next call of lgp_stacks_next. */
typedef struct lgp_stack {
  const uint32_t *frames; /* node ids, root first */
  size_t depth;           /* frames (at least 1) */
  size_t same;            /* leading frames equal to the previous stack's */
  double ticks;           /* weight, in the profile's ticks (> 0) */
  uint64_t us;            /* microseconds, rounded so that the running sum
                             is the rounded running sum of the exact
                             weights (so the stacks add up to the total
                             within a microsecond); may be 0 */
} lgp_stack;

typedef struct lgp_stacks lgp_stacks;

/* The stacks of an analysed profile (or view), which must outlive the
** iterator and not change meanwhile: max_depth >= 1 frames a stack,
** min_weight a share of the call graph's time (print_time). All memory is
** taken here: NULL when out of memory. */
lgp_stacks *lgp_stacks_new(const lgp_profile *p, int max_depth, double min_weight);
/* Fills *s with the next stack: 1, or 0 when there are no more. */
int lgp_stacks_next(lgp_stacks *it, lgp_stack *s);
/* The largest depth a stack can have (a writer's buffers for prefixes). */
size_t lgp_stacks_max_depth(const lgp_stacks *it);
void lgp_stacks_free(lgp_stacks *it);

#endif
