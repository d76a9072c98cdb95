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
** - Combined with gmon.out (lgp_profile_from_stacks_calls): the calls are
**   gmon's. The executable's functions in the stacks are matched to gmon's
**   symbols by address (both are the ELF's symbol addresses); each arc
**   gets gmon's count (0 for an arc gmon has not), gmon's arcs no stack
**   shows are added with no time, and so are the functions only gmon
**   knows. ncalls and self_calls then follow from the counts as in gprof;
**   counted[] marks the nodes whose calls gmon counted (the others, in
**   other binaries or not compiled with -pg, keep blank calls columns).
**
** - Lines: the samples grouped by their leaf frame's (function, file,
**   line), an inlined leaf's by the inlined function's line; each group
**   is printed at the lowest leaf address sampled on it. Leaves without a
**   line stay their function's. At line granularity (-l) every group is
**   a node of its own (is_line, not is_func) placed after its function,
**   holding the group's samples as flat self; the function's flat self is
**   then what no line holds, while its call-graph entry (prop_self,
**   prop_child) stays the function's measured self and children: the
**   call graph is the functions' graph, the flat profile the lines'.
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

/* A source line samples ended on (see Lines above). */
typedef struct lgp_st_line {
  uint32_t func;           /* tab function */
  uint32_t node;           /* its node at line granularity, else LGP_NONE */
  uint32_t file, line;     /* tab file (files[]), line > 0 */
  uint64_t addr;           /* the lowest leaf address sampled on it */
  uint64_t samples, weight;
} lgp_st_line;

typedef struct lgp_stackprof {
  lgp_stacktab tab;        /* owned */
  uint32_t *node_of;       /* tab function -> node */
  uint32_t *func_of;       /* node (symbol) -> tab function */
  uint64_t *self_samples;  /* per node (symbols and cycles): samples whose leaf is in it */
  uint64_t *total_samples; /* per node: samples with it on the stack */
  lgp_st_line *lines;      /* by function node, then address */
  size_t nlines;
  int is_time;             /* every event's weights are nanoseconds */
  uint64_t samples, weight;/* of every stack */
  char *command;           /* the recorded command: the name of the process with the
                              most samples (owned), or NULL (the image's path is its
                              executable) */
  /* combined with gmon.out (NULL / 0 otherwise) */
  uint8_t *counted;        /* per node: its calls are gmon's */
  int has_calls;           /* the calls are gmon's */
  uint32_t exe_dso;        /* the binary matched to gmon's executable, or UINT32_MAX */
  int exe_added;           /* none matched: exe_dso is one added for gmon's functions */
  uint32_t exe_matched;    /* its functions at a gmon symbol's address */
  uint32_t exe_unmatched;  /* and those not: another build of the program? */
  uint64_t exe_unmatched_samples; /* the samples whose leaf is in those */
  uint32_t gmon_added;     /* functions only gmon knows (called, never sampled) */
  double gmon_ticks;       /* gmon's histogram: every tick of the executable */
  double gmon_unseen_ticks;/* those of functions no stack shows */
  uint32_t gmon_hz;        /* its rate (ticks per second) */
  char *gmon_unseen_name;  /* the one of those with most ticks (owned), or NULL */
  char *gmon_image;        /* the gmon profile's executable (owned) */
} lgp_stackprof;

/* Builds an analysed profile from *tab, whose contents it takes (tab is
** emptied, also on failure). opts: the symspecs (-p, -q, -e, ...) and
** nothing that reads files. 0, or -1 with a message. */
int lgp_profile_from_stacks(lgp_profile *p, lgp_stacktab *tab, const lgp_options *opts,
                            lgp_err *err);
/* The same, combined with calls (a gmon profile, not a view, of the
** executable the stacks ran, read from the same run): calls from calls,
** times from the stacks (above). 0, or -1 with a message. */
int lgp_profile_from_stacks_calls(lgp_profile *p, lgp_stacktab *tab, const lgp_profile *calls,
                                  const lgp_options *opts, lgp_err *err);
/* Are node s's calls known (gmon's, or any gmon profile's)? */
static inline int lgp_calls_known(const lgp_profile *p, uint32_t s) {
  return p->stacks == NULL || (p->stacks->counted != NULL && s < p->graph.nsyms + p->graph.ncycles &&
                               p->stacks->counted[s]);
}
/* A new table holding the stacks of src that keep[s] marks (and every
** other table of src: binaries, functions, threads ...), and the sample
** times of those stacks when src has them. 0, or -1 (out of memory). */
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
/* Seconds per sample: gmon's 1 / hz; a profile of stacks' mean period
** (each sample weighs its own period: perf's frequency mode varies it),
** its weight over its samples. 0 when unknown (no rate, no samples). */
static inline double lgp_sample_period(const lgp_profile *p) {
  const lgp_stackprof *sp = p->stacks;
  if (sp != NULL)
    return sp->samples > 0 ? lgp_seconds(p, (double)sp->weight / (double)sp->samples) : 0.0;
  return p->gmon->hz ? 1.0 / p->gmon->hz : 0.0;
}
/* Samples per second: gmon's hz; for stacks of a time event, the mean
** rate (1 / the mean period, rounded), else 0 (the weights are counts). */
static inline uint32_t lgp_sample_rate(const lgp_profile *p) {
  double period;
  if (p->stacks == NULL)
    return p->gmon->hz;
  period = lgp_sample_period(p);
  return p->stacks->is_time && period > 0 ? (uint32_t)floor(1.0 / period + 0.5) : 0;
}
/* The samples behind node s's self time (s a symbol or a cycle): gmon's
** histogram ticks (fractions where a bin spans two functions), or the
** samples of stacks whose leaf is in it. */
static inline double lgp_self_samples(const lgp_profile *p, uint32_t s) {
  return p->stacks != NULL ? (double)p->stacks->self_samples[s] : p->graph.nodes[s].hist_time;
}
/* The standard error of node s's self time, in seconds: sqrt(n) sample
** periods for its n samples (a Poisson count). For stacks, the period is
** that of its own samples, their weight over n: weight / sqrt(n). */
static inline double lgp_self_error(const lgp_profile *p, uint32_t s) {
  const lgp_node *nd = &p->graph.nodes[s];
  double n;
  if (p->stacks == NULL)
    return lgp_sampling_error(p, nd->hist_time);
  n = (double)p->stacks->self_samples[s];
  return n > 0 ? lgp_seconds(p, (s < p->graph.nsyms ? nd->hist_time : nd->prop_self) / sqrt(n))
               : 0.0;
}

#endif
