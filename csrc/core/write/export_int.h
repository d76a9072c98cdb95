/*
** export_int.h: what export.c and folded.c share (not a public header).
*/
#ifndef export_int_h
#define export_int_h

#include "analyse/bounds.h"
#include "util/json.h"
#include "write/export.h"

typedef struct ectx {
  lgp_out *o;
  const lgp_profile *p;
  lgp_names *nm;
  const lgp_export_opts *eo;
  uint8_t *listed; /* symbols written */
  uint8_t *dup;    /* symbols whose printed name another listed one shares */
  int have_src;    /* DWARF file and line were read */
  lgp_out scratch; /* labels are built here (in memory) */
  lgp_bounds *bounds; /* JSON and CSV: attribution bounds (NULL otherwise) */
} ectx;

/* The name s is written under, into b (folded: for a stack frame). */
void lgp_export_label(ectx *c, uint32_t s, lgp_out *b, int folded);
void lgp_export_out_u64(lgp_out *o, uint64_t v);
/* callgrind's integer cost of ticks, rounded: nanoseconds, or for a
** profile of an event that is not time, its count of events. */
unsigned long long lgp_export_cost_of(const lgp_profile *p, double ticks);
/* The event a profile of sampled stacks counts when it is not time (its
** "seconds" are then counts of it), else NULL. */
const char *lgp_export_count_event(const lgp_profile *p);
/* callgrind: "KEY(id) [name]" of a file index (-1: unknown), the name the
** first time; a symbol's file index (-1: unknown or not read). */
void lgp_export_cg_file_id(ectx *c, const char *key, int32_t file, uint8_t *file_seen);
int32_t lgp_export_node_file(const ectx *c, uint32_t s);
/* JSON: "key": ; "key":number, and so on (strings: util/json.h). */
void lgp_export_json_key(lgp_out *o, const char *k);
void lgp_export_json_num(lgp_out *o, const char *k, double v);
void lgp_export_json_u64(lgp_out *o, const char *k, uint64_t v);
void lgp_export_json_bool(lgp_out *o, const char *k, int v);
/* CSV: a field quoted as RFC 4180 needs; a number and its comma; an address. */
void lgp_export_csv_str(lgp_out *o, const char *s, size_t len);
void lgp_export_num_field(lgp_out *o, double v);
void lgp_export_num_field_last(lgp_out *o, double v); /* a number, no comma */
void lgp_export_csv_addr(lgp_out *o, lgp_addr a);
/* CSV of an event that is not time: a last column "unit", the event (its
** counts are what the *_seconds columns hold): the header's end ("\r\n"
** included), and a row's last field (nothing for time). */
void lgp_export_csv_unit_head(const ectx *c);
void lgp_export_csv_unit_field(const ectx *c);
/* exportlines.c (with eo->lines) */
void lgp_export_json_lines(ectx *c);
void lgp_export_csv_lines(ectx *c);
void lgp_export_cg_lines(ectx *c, uint32_t s, int fn_line, uint8_t *file_seen);
/* exporttimes.c (with eo->sample_times): JSON's "sample_times". 0, or -1
** when out of memory. */
int lgp_export_json_sample_times(ectx *c);
/* folded.c */
int lgp_export_write_folded(ectx *c);

#endif
