/*
** report_int.h: what report.c and report_index.c share (not a public header).
*/
#ifndef report_int_h
#define report_int_h

#include "write/report.h"

/* What printing a node's name and an arc line needs, packed (32 bytes) and
** built in address order before the call graph, whose lines visit nodes
** in no useful order: one cache line per visit instead of three. */
typedef struct rnode {
  const char *name;
  uint32_t len, index;
  int32_t cyc_num;
  uint32_t print_flag;
  uint64_t head_calls; /* calls into the node's cycle, or into the node */
} rnode;

typedef struct rctx {
  lgp_out *o;
  const lgp_profile *p;
  lgp_names *nm;
  const lgp_report_opts *ro;
  double hz;
  int have_cg; /* gprof numbers entries only when it read arcs */
  rnode *rn;   /* call graph only; NULL elsewhere */
  int suffix;  /* LGP_SUFFIX_*: what follows a name */
} rctx;

/* The report's context; reads the DWARF line tables if the names need them. */
rctx lgp_report_ctx(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro);
/* gprof's print_name_only: the name (demangled unless -T) and its file
** suffix in the line modes; their length. */
size_t lgp_report_name_only(rctx *r, uint32_t node);

#endif
