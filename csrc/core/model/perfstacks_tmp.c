/*
** perfstacks_tmp.c: TEMPORARY stand-in for the perf.data reader (see
** perfstacks_tmp.h): every file is refused with one clear line.
*/
#include <string.h>

#include "model/perfstacks_tmp.h"

int lgp_perf_stacks(lgp_stacktab *out, const char *path, const lgp_perf_opts *opts,
                    lgp_err *err) {
  (void)opts;
  memset(out, 0, sizeof *out);
  return lgp_fail(err, path, "perf.data files cannot be read by this build yet");
}
