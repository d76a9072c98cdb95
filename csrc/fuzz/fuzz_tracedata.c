/*
** fuzz_tracedata.c: libFuzzer harness for the tracing data of a perf.data
** (tracedata.h): the header, the sized texts, the systems and the event
** formats' field lines. Every field of every event parsed is then read
** from the input's own bytes as a RAW record would be.
** Built by `make fuzz`; not part of the library.
*/
#include <stdint.h>

#include "read/perf/tracedata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lgp_trace_data td;
  lgp_err err = {0, ""};
  size_t i, j;
  int64_t v;
  if (lgp_trace_parse(&td, data, size, "fuzz", &err) != 0)
    return 0;
  for (i = 0; i < td.nevents; i++) {
    const lgp_trace_event *ev = &td.events[i];
    if (lgp_trace_event_by_id(&td, ev->id) == NULL)
      __builtin_trap();
    for (j = 0; j < ev->nfields; j++) {
      if (lgp_trace_field_find(ev, ev->fields[j].name) == NULL)
        __builtin_trap();
      (void)lgp_trace_field_int(&td, &ev->fields[j], data, size, &v);
    }
  }
  lgp_trace_free(&td);
  return 0;
}
