/*
** perfstacks_tmp.c: TEMPORARY stand-in for the perf.data reader (see
** perfstacks_tmp.h): every file is refused with one clear line.
*/
#include <string.h>

#include "model/perfstacks_tmp.h"

int lgp_perf_stacks(lgp_stacktab *t, const char *path, const lgp_perf_stack_opts *opts,
                    lgp_err *err) {
  (void)opts;
  memset(t, 0, sizeof *t);
  return lgp_fail(err, path, "perf.data files cannot be read by this build yet");
}
