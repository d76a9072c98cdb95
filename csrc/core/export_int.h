/*
** export_int.h: what export.c and folded.c share (not a public header).
*/
#ifndef export_int_h
#define export_int_h

#include "export.h"

typedef struct ectx {
  lgp_out *o;
  const lgp_profile *p;
  lgp_names *nm;
  const lgp_export_opts *eo;
  uint8_t *listed; /* symbols written */
  uint8_t *dup;    /* symbols whose printed name another listed one shares */
  int have_src;    /* DWARF file and line were read */
  lgp_out scratch; /* labels are built here (in memory) */
} ectx;

/* The name s is written under, into b (folded: for a stack frame). */
void lgp_ex_label(ectx *c, uint32_t s, lgp_out *b, int folded);
void lgp_ex_out_u64(lgp_out *o, uint64_t v);
/* folded.c */
int lgp_ex_write_folded(ectx *c);

#endif
