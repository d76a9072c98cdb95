/*
** symtab.h: gprof's symbol table (one node per routine, in address order)
** and the address index that maps a pc to its routine.
*/
#ifndef symtab_h
#define symtab_h

#include "read/elfsym.h"

#define LGP_NONE UINT32_MAX

/* A routine (symbol) or, past the symbols, a cycle as a whole. The
** symbol table fills the first fields; symspec.c the table bits, hist.c
** the samples, cgraph.c the rest. Source file and line are the image's
** (syms[i] of the image is node i): read on demand, they live there. */
typedef struct lgp_node {
  const char *name;      /* raw (mangled) name; NULL for a cycle */
  lgp_addr addr, end_addr;
  uint8_t is_static, is_func, is_cycle;
  uint8_t is_line;       /* a line symbol (line granularity only) */
  uint8_t print_flag;
  uint16_t spec;         /* bit t set: the node is in symspec table t */
  double hist_time;      /* self time in ticks */
  uint64_t ncalls;       /* calls from others (cycles: from outside) */
  uint64_t self_calls;   /* recursive calls (cycles: between members) */
  uint64_t member_calls; /* cycle members: calls from other members */
  double child_time;     /* unscaled time of descendants */
  double prop_self, prop_child, prop_fract;
  int32_t top_order;
  int32_t cyc_num;       /* cycle number, 0 if none */
  uint32_t cyc_head;     /* members: their cycle node; others: themselves */
  uint32_t cyc_next;     /* member chain (from a cycle node: the first) */
  uint32_t index;        /* call-graph index, 1-based */
  uint32_t flat_rank;    /* position in flat-profile order */
} lgp_node;

/* Node id for symbol sym (ending at end_addr), before any analysis. */
void lgp_symtab_node_init(lgp_node *n, uint32_t id, const lgp_rawsym *sym, lgp_addr end_addr);

/* Sorts the image's symbols by address, keeps gprof's survivor at each
** address (they end up first in im->syms, in node order) and returns
** their nodes in *nodes (n of them). With lines, the image's line symbols
** (lgp_image_load_lines) join the table as gprof -l builds it: im->syms
** is then that table. 0, or -1 with a message. */
int lgp_symtab_build(lgp_image *im, int lines, lgp_node **nodes, size_t *n, lgp_err *err);
/* Line granularity's table (gprof -l): the finalised function symbols
** fn[0..nfn) (each ending where the next begins) and the image's line
** symbols, finalised a second time. Sets *out (*n symbols in address order)
** and *ends (each one's end address), both allocated. 0, or -1 (out of
** memory). lgp_symtab_build uses it; so does a function-granularity
** profile's line-level data, so both have the same lines. */
int lgp_symtab_lines(const lgp_image *im, const lgp_rawsym *fn, size_t nfn,
                     lgp_rawsym **out, lgp_addr **ends, size_t *n);

/* Address lookup: the symbol addresses packed, and a bucket index over
** them (bucket b covers [addrs[0] + b << shift, ...); buckets[b].first is
** the number of symbols below its start), so a lookup is O(1) expected. */
typedef struct lgp_symindex {
  size_t n;
  lgp_addr *addrs;
  uint8_t *is_func;
  lgp_addr last_end;   /* the last routine's end (the others end at the next) */
  lgp_addr *ends;      /* every end, when some symbol ends before the next
                          begins (line mode's dropped symbols); else NULL */
  struct lgp_bucket { uint32_t first, off; } *buckets;
  size_t nbuckets;
  unsigned shift;
} lgp_symindex;

int lgp_symindex_build(lgp_symindex *ix, const lgp_node *nodes, size_t n);
void lgp_symindex_free(lgp_symindex *ix);
/* The symbol whose range holds addr, or LGP_NONE. */
uint32_t lgp_symindex_lookup(const lgp_symindex *ix, lgp_addr addr);

#endif
