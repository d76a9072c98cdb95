/*
** perfstacks.h: a perf.data recording turned into a table of sampled
** stacks (read/stacktab.h): the records put in time order, the address
** spaces of the processes rebuilt from them, each sample's call chain
** (frame pointers, branch stack, or the user stack copy of
** --call-graph dwarf unwound) resolved to (binary, function, source line)
** frames, inlined frames included, and equal stacks merged.
*/
#ifndef perfstacks_h
#define perfstacks_h

#include <stdint.h>
#include "read/stacktab.h"
#include "read/perf/timerange.h"
#include "util/util.h"

/* Called now and then while reading: bytes of records read, samples of
** the chosen event so far, binaries opened so far. */
typedef void (*lgp_perf_progress_fn)(void *ud, uint64_t bytes, uint64_t samples,
                                     uint64_t binaries);

/* The synthesized events: time off the CPU, and a thread's whole life (its
** on-CPU samples and its off-CPU intervals), from the recording's switches. */
#define LGP_PERF_EVENT_OFFCPU "off-cpu"
#define LGP_PERF_EVENT_WALL "wall"

typedef struct lgp_perf_opts {
  const char *event;       /* the event's name; NULL: the first one that has samples;
                              LGP_PERF_EVENT_OFFCPU or _WALL: synthesized */
  unsigned off_kinds;      /* off-CPU kinds kept (1 << LGP_OFF_*, offcpu.h); 0: all */
  const lgp_time_spec *ranges; /* only these parts of the recording (--time-range) */
  int sample_times;        /* keep each sample's time (lgp_stacktab.times) */
  size_t nranges;
  const char *symfs;       /* a root put before every recorded path, or NULL */
  const char *buildid_dir; /* the build-id cache; NULL: $HOME/.debug */
  const char *kallsyms;    /* kernel symbols; NULL: /proc/kallsyms; "": none */
  const char *jit_dir;     /* where perf-PID.map files are; NULL: /tmp */
  /* the image given with the recording (lgprof IMAGE perf.data), or NULL:
     the file read for the recording's binary of the same build-id or,
     where the recording has none, of the same file name */
  const char *image;
  /* folders where binaries and their debug files are looked for by
     build-id (DIR/.build-id/xx/rest[.debug]) or by file name (DIR/NAME),
     after the recorded path */
  const char *const *search_dirs;
  size_t nsearch_dirs;
  int no_inline;           /* do not expand inlined frames */
  lgp_perf_progress_fn progress;
  void *progress_ud;
} lgp_perf_opts;

/* Reads the recording at path into *out (which the caller frees with
** lgp_stacktab_free, also after a failure). opts may be NULL (defaults).
** 0, or -1 with "PATH: what is wrong" (not a perf.data file, no such
** event, no samples, out of memory). */
int lgp_perf_stacks(lgp_stacktab *out, const char *path, const lgp_perf_opts *opts,
                    lgp_err *err);
/* The same over bytes in memory (name: for messages). */
int lgp_perf_stacks_bytes(lgp_stacktab *out, const char *name, const uint8_t *bytes, size_t n,
                          const lgp_perf_opts *opts, lgp_err *err);

#endif
