/*
** fuzz_perf.c: libFuzzer harness for perf.data files turned into stacks
** (lgp_perf_stacks_bytes): the container, the records' time order, the
** address spaces, the call chains and the merged stacks, in file and pipe
** mode, with and without inlined frames, and the off-CPU and wall time of
** its switches (the tracing data, sched_switch's RAW fields, the switch
** records) within a time range; each sample's time kept (cpu-clock's, and
** off-CPU's in the range) and then the profile of the stacks, and of half
** of them, written in JSON with those times. Recorded paths are looked for
** under a root that does not exist and no kernel symbols are read, so that
** each input costs the same whatever paths it names.
** Built by `make fuzz`; not part of the library.
*/
#include <stdlib.h>
#include <string.h>

#include "model/stackprofile.h"
#include "read/perf/perfstacks.h"
#include "read/perf/timerange.h"
#include "write/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The JSON, with the samples' times, of the profile built from *t (taken). */
static void json_times(lgp_stacktab *t) {
  lgp_profile p;
  lgp_options opts;
  lgp_names nm;
  lgp_err err = {0, ""};
  lgp_export_opts eo;
  lgp_out o;
  lgp_options_init(&opts);
  if (lgp_profile_from_stacks(&p, t, &opts, &err) != 0) {
    lgp_options_free(&opts);
    return;
  }
  if (lgp_names_init(&nm, p.graph.nsyms + p.graph.ncycles, 1, NULL) == 0) {
    lgp_export_opts_init(&eo);
    eo.format = LGP_EXPORT_JSON;
    eo.sample_times = 1;
    lgp_out_init(&o, NULL);
    lgp_export(&o, &p, &nm, &eo, &err);
    lgp_out_free(&o);
    lgp_names_free(&nm);
  }
  lgp_profile_free(&p);
  lgp_options_free(&opts);
}

/* That of a copy of t, and of every other stack of t (the selection of
** profile:filter). */
static void times_out(const lgp_stacktab *t) {
  lgp_stacktab whole, half;
  uint8_t *keep = calloc(t->nstacks ? t->nstacks : 1, 1);
  size_t i;
  if (keep == NULL)
    return;
  for (i = 0; i < t->nstacks; i++)
    keep[i] = i % 2 == 0;
  memset(&whole, 0, sizeof whole);
  memset(&half, 0, sizeof half);
  if (lgp_stacktab_subset(&half, t, keep) == 0)
    json_times(&half);
  for (i = 0; i < t->nstacks; i++)
    keep[i] = 1;
  if (lgp_stacktab_subset(&whole, t, keep) == 0)
    json_times(&whole);
  lgp_stacktab_free(&half);
  lgp_stacktab_free(&whole);
  free(keep);
}

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
    o.sample_times = k == 1 || k == 2;
    if (k == 2) {
      o.ranges = &range;
      o.nranges = 1;
    }
    if (lgp_perf_stacks_bytes(&t, "fuzz", data, size, &o, &err) == 0 && o.sample_times)
      times_out(&t);
    lgp_stacktab_free(&t);
  }
  return 0;
}
