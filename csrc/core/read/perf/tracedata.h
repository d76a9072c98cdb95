/*
** tracedata.h: the tracing data a perf.data carries when it recorded
** tracepoints (feature bit 1 in file mode, record 66 in pipe mode): the
** format of each recorded tracepoint (its id, system, name and fields with
** their offsets and sizes), as the kernel's tracefs described it on the
** recording machine. A tracepoint sample's RAW bytes are read through it
** rather than through offsets fixed at build time, which differ between
** kernels.
**
** Only the event formats are read; the kernel symbols, printk formats and
** saved command lines that follow them are not needed.
*/
#ifndef tracedata_h
#define tracedata_h

#include <stddef.h>
#include <stdint.h>
#include "util/util.h"

typedef struct lgp_trace_field {
  char *name;           /* "prev_state", "prev_comm" (an array's name without [N]) */
  uint32_t offset, size;
  uint8_t is_signed;
} lgp_trace_field;

typedef struct lgp_trace_event {
  uint64_t id;          /* the attr's config, and every RAW record's common_type */
  char *system, *name;  /* "sched", "sched_switch" */
  lgp_trace_field *fields;
  size_t nfields;
} lgp_trace_event;

typedef struct lgp_trace_data {
  int big_endian;       /* the byte order of the RAW bytes */
  uint32_t long_size;
  lgp_trace_event *events;
  size_t nevents;
} lgp_trace_data;

/* Parses the blob of len bytes (name: for messages). 0, or -1 with
** "NAME: tracing data: what is wrong"; *td is then empty. */
int lgp_trace_parse(lgp_trace_data *td, const uint8_t *blob, size_t len, const char *name,
                    lgp_err *err);
void lgp_trace_free(lgp_trace_data *td);
/* The event with this id, or NULL. */
const lgp_trace_event *lgp_trace_event_by_id(const lgp_trace_data *td, uint64_t id);
/* The field of this name, or NULL. */
const lgp_trace_field *lgp_trace_field_find(const lgp_trace_event *ev, const char *name);
/* The integer value of a field (size 1, 2, 4 or 8, sign-extended when
** signed) in raw bytes of raw_len; 0, or -1 when the field lies outside
** them or is no integer. */
int lgp_trace_field_int(const lgp_trace_data *td, const lgp_trace_field *f, const uint8_t *raw,
                        size_t raw_len, int64_t *out);

#endif
