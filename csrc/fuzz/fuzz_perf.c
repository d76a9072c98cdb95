/*
** fuzz_perf.c: libFuzzer harness for perf.data files turned into stacks
** (lgp_perf_stacks_bytes): the container, the records' time order, the
** address spaces, the call chains and the merged stacks, in file and pipe
** mode, with and without inlined frames, and the off-CPU and wall time of
** its switches (the tracing data, sched_switch's RAW fields, the switch
** records) within a time range, each sample's time kept. Recorded paths are looked for
** under a root that does not exist and no kernel symbols are read, so that
** each input costs the same whatever paths it names.
** Built by `make fuzz`; not part of the library.
*/
#include <string.h>

#include "read/perf/perfstacks.h"
#include "read/perf/timerange.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int k;
  lgp_time_spec range;
  if (lgp_time_spec_parse("10%,0.5", &range) != 0)
    __builtin_trap();
  for (k = 0; k < 4; k++) {
    lgp_perf_opts o;
    lgp_stacktab t;
    lgp_err err = {0, ""};
    memset(&o, 0, sizeof o);
    o.symfs = "/nonexistent-lgprof-fuzz";
    o.buildid_dir = "/nonexistent-lgprof-fuzz";
    o.jit_dir = "/nonexistent-lgprof-fuzz";
    o.kallsyms = "";
    o.no_inline = k == 1;
    o.event = k == 0 ? NULL : k == 1 ? "cpu-clock" : k == 2 ? "off-cpu" : "wall";
    if (k == 2) {
      o.ranges = &range;
      o.nranges = 1;
      o.sample_times = 1;
    }
    lgp_perf_stacks_bytes(&t, "fuzz", data, size, &o, &err);
    lgp_stacktab_free(&t);
  }
  return 0;
}
