/*
** fuzz_perf.c: libFuzzer harness for perf.data files turned into stacks
** (lgp_perf_stacks_bytes): the container, the records' time order, the
** address spaces, the call chains and the merged stacks, in file and pipe
** mode, with and without inlined frames. Recorded paths are looked for
** under a root that does not exist and no kernel symbols are read, so that
** each input costs the same whatever paths it names.
** Built by `make fuzz`; not part of the library.
*/
#include <string.h>

#include "read/perf/perfstacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int k;
  for (k = 0; k < 2; k++) {
    lgp_perf_opts o;
    lgp_stacktab t;
    lgp_err err = {0, ""};
    memset(&o, 0, sizeof o);
    o.symfs = "/nonexistent-lgprof-fuzz";
    o.buildid_dir = "/nonexistent-lgprof-fuzz";
    o.jit_dir = "/nonexistent-lgprof-fuzz";
    o.kallsyms = "";
    o.no_inline = k;
    o.event = k ? "cpu-clock" : NULL;
    lgp_perf_stacks_bytes(&t, "fuzz", data, size, &o, &err);
    lgp_stacktab_free(&t);
  }
  return 0;
}
