/*
** stackprofile.h: a profile built from sampled stacks (read/stacktab.h,
** what perf.data's reader hands over) rather than from gmon.out. Its kinds
** are gmon's (functions, arcs, cycles), its times are measured:
**
** - A function is (binary, symbol). Its self is the weight of the samples
**   whose leaf frame is in it; its total the weight of the samples with it
**   anywhere on the stack, counted once per sample however often it
**   recurs; children = total - self. A cycle (a strongly connected
**   component of the arcs, found as for gmon) as a whole is the same with
**   the cycle as one node: self, the samples whose leaf is in a member;
**   total, those with a member anywhere on the stack.
** - An arc caller -> callee exists where a stack has callee's frame just
**   inside caller's. Each sample is attributed once to each node N (a
**   function, or a cycle as a whole) on its stack: on a stack the frames
**   of N (or of N's cycle) are contiguous (a frame between two of them is
**   on a path from the cycle back to it, so in the cycle), and the
**   outermost of them (nearest the root) is where the sample entered N.
**   Its caller there is the parent the sample is attributed to: the arc
**   from that caller to that frame carries the sample's weight, as "self"
**   when the leaf is in that run of N's frames, else as "children". So a
**   call-graph entry's parent lines add up to its total less the samples
**   where N is at the root, and its child lines (the runs just inside)
**   to its total less its self. Arcs inside a cycle and recursive arcs
**   carry no time, as in gprof.
** - Nothing is estimated: an arc's share is measured, so the attribution
**   bounds are the times themselves and no callee is ambiguous.
** - Calls are not recorded: every node's ncalls is 0 (the reports leave
**   the calls columns blank); an arc's count is the samples of the stacks
**   it is on, once per place on each (internal: it only marks the arc as
**   seen).
**
** Time: for time events (cpu-clock, task-clock: weights in nanoseconds)
** the profile's rate is 1e9 per second, so seconds = weight / 1e9; for
** other events the rate is 1 and "seconds" are the event's counts. The
** time tables (-E, -F) choose what the call graph prints, not the times.
*/
#ifndef stackprofile_h
#define stackprofile_h

#include "model/profile.h"
#include "read/stacktab.h"

typedef struct lgp_stackprof {
  lgp_stacktab tab;        /* owned */
  uint32_t *node_of;       /* tab function -> node */
  uint32_t *func_of;       /* node (symbol) -> tab function */
  uint64_t *self_samples;  /* per node (symbols and cycles): samples whose leaf is in it */
  uint64_t *total_samples; /* per node: samples with it on the stack */
  int is_time;             /* every event's weights are nanoseconds */
  uint64_t samples, weight;/* of every stack */
} lgp_stackprof;

/* Builds an analysed profile from *tab, whose contents it takes (tab is
** emptied, also on failure). opts: the symspecs (-p, -q, -e, ...) and
** nothing that reads files. 0, or -1 with a message. */
int lgp_profile_from_stacks(lgp_profile *p, lgp_stacktab *tab, const lgp_options *opts,
                            lgp_err *err);
/* A new table holding the stacks of src that keep[s] marks (and every
** other table of src: binaries, functions, threads ...). 0, or -1 (out of
** memory). */
int lgp_stacktab_subset(lgp_stacktab *dst, const lgp_stacktab *src, const uint8_t *keep);
void lgp_stackprof_free(lgp_stackprof *sp);

/* The recorded stacks cut and merged as the stack writers take them
** (lgprof.stacks): each stack's frames from the root, at most max_depth,
** cut below the first frame whose path from the root weighs less than
** least_share of the total (its weight charged to the frame above), equal
** stacks after the cuts one. The paths form a tree: entry e is profile
** node node[e] under entry parent[e] (LGP_MEASURED_ROOT: at the root);
** merged[] are the entries the merged stacks end at, in the order first
** met in the table, with their weights in seconds. Sums are taken in the
** table's order. */
#define LGP_MEASURED_ROOT UINT32_MAX
typedef struct lgp_measured {
  uint32_t *node, *parent;
  double *weight;          /* per entry: the weight of the stacks through it */
  size_t n;
  uint32_t *merged;
  double *seconds;
  size_t nmerged;
} lgp_measured;

/* 0, or -1 (out of memory; *m is then empty). */
int lgp_stacks_measured(lgp_measured *m, const lgp_profile *p, size_t max_depth,
                        double least_share);
void lgp_measured_free(lgp_measured *m);

/* The profile's stack model, or NULL for a gmon profile. */
static inline const lgp_stackprof *lgp_stacks_of(const lgp_profile *p) {
  return p->stacks;
}

#endif
