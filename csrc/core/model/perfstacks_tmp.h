/*
** perfstacks_tmp.h: TEMPORARY. The perf.data reader's entry point
** (read/perf/), being written in parallel: until it is merged, this
** declaration and perfstacks_tmp.c's stub (which refuses every file) stand
** in for it. Delete both at the merge and include the reader's header.
*/
#ifndef perfstacks_tmp_h
#define perfstacks_tmp_h

#include "read/stacktab.h"
#include "util/util.h"

typedef struct lgp_perf_stack_opts {
  const char *exe;   /* the executable the samples' main binary is, or NULL */
} lgp_perf_stack_opts;

/* Reads path's samples into *t. 0, or -1 with "PATH: what is wrong". */
int lgp_perf_stacks(lgp_stacktab *t, const char *path, const lgp_perf_stack_opts *opts,
                    lgp_err *err);

#endif
