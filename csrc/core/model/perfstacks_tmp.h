/*
** perfstacks_tmp.h: TEMPORARY. The perf.data reader's entry point, being
** written in parallel as read/perf/perfstacks.h: until it is merged, this
** copy of its declarations and perfstacks_tmp.c's stub (which refuses every
** file) stand in for it. At the merge, delete both and include
** "read/perf/perfstacks.h" in csrc/lua/lstacks.c instead.
*/
#ifndef perfstacks_tmp_h
#define perfstacks_tmp_h

#include <stdint.h>
#include "read/stacktab.h"
#include "util/util.h"

typedef void (*lgp_perf_progress_fn)(void *ud, uint64_t bytes, uint64_t samples,
                                     uint64_t binaries);

typedef struct lgp_perf_opts {
  const char *event;       /* the event's name; NULL: the first one that has samples */
  const char *symfs;       /* a root put before every recorded path, or NULL */
  const char *buildid_dir; /* the build-id cache; NULL: $HOME/.debug */
  const char *kallsyms;    /* kernel symbols; NULL: /proc/kallsyms; "": none */
  const char *jit_dir;     /* where perf-PID.map files are; NULL: /tmp */
  int no_inline;           /* do not expand inlined frames */
  lgp_perf_progress_fn progress;
  void *progress_ud;
} lgp_perf_opts;

/* Reads the recording at path into *out (which the caller frees with
** lgp_stacktab_free, also after a failure). opts may be NULL (defaults).
** 0, or -1 with "PATH: what is wrong". */
int lgp_perf_stacks(lgp_stacktab *out, const char *path, const lgp_perf_opts *opts,
                    lgp_err *err);

#endif
