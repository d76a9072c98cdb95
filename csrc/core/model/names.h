/*
** names.h: printed names: demangling as gprof does it (libiberty), cached
** per node, and the file suffixes gprof's line modes add.
*/
#ifndef names_h
#define names_h

#include <string.h>
#include "model/symtab.h"
#include "util/util.h"

/* Demangled names, computed once per node on first use. */
typedef struct lgp_names {
  struct lgp_name { const char *s; size_t len; } *disp; /* printed name and
                        its length, together (one cache line); s NULL: not yet */
  char **owned;      /* the demangled names allocated here, or NULL */
  size_t n, nowned;  /* nowned: how many of owned are set */
  int options;       /* libiberty DMGL_* flags including the style */
  int enabled;
} lgp_names;

int lgp_names_init(lgp_names *nm, size_t n, int enabled, const char *style);
/* An empty table of n names demangled as like's are. 0, or -1. */
int lgp_names_init_like(lgp_names *nm, size_t n, const lgp_names *like);
void lgp_names_free(lgp_names *nm);
/* The printed name of a node (demangled when enabled); cycles' nodes
** have no name here (""). */
const char *lgp_names_display(lgp_names *nm, const lgp_node *nodes, uint32_t node);
/* The same, and its length (cached: reports print each name many times). */
const char *lgp_names_display_len(lgp_names *nm, const lgp_node *nodes, uint32_t node,
                                  size_t *len);
/* gprof's file suffix after a printed name: " (FILE:LINE @ ADDR)" at line
** granularity (LGP_SUFFIX_LINE), " (FILE:LINE)" for --inline-file-names
** (LGP_SUFFIX_FILE); FILE is the basename unless print_path (-L). Symbols
** without a source file (or an image whose DWARF is not read) get none.
** Writes it to o; returns its length. */
enum { LGP_SUFFIX_NONE, LGP_SUFFIX_FILE, LGP_SUFFIX_LINE };
size_t lgp_names_suffix(lgp_out *o, const lgp_image *im, const lgp_node *nodes, uint32_t node,
                        int mode, int print_path);
/* A source path as gprof prints it: the basename unless print_path. */
const char *lgp_names_print_path(const char *path, int print_path);
/* gprof's print name, the parts around a printed name. Each writes into
** p and returns the end. lgp_names_put_cycle: a cycle's name, "<cycle N>"
** (at most 24 bytes). lgp_names_put_index: "[index]", or "(index)" for an
** entry the call graph does not print (at most 13 bytes).
** lgp_names_put_tail: what follows a name: " <cycle N>" for a member of
** cycle N, then " " and the index when gprof numbered the node: it read
** arcs (have_cg) and index != 0 (at most LGP_NAMES_TAIL_MAX bytes). */
#define LGP_NAMES_TAIL_MAX 48
/* (inline: the call graph writes them for every line) */
static inline char *lgp_names_put_cycle(char *p, int32_t cyc_num) {
  memcpy(p, "<cycle ", 7);
  p += 7;
  if (cyc_num < 0) {
    *p++ = '-';
    p += lgp_fmt_u64(p, (uint64_t)-(int64_t)cyc_num, 0, 0);
  } else {
    p += lgp_fmt_u64(p, (uint64_t)cyc_num, 0, 0);
  }
  *p++ = '>';
  return p;
}

static inline char *lgp_names_put_index(char *p, uint32_t index, int printed) {
  *p++ = printed ? '[' : '(';
  p += lgp_fmt_u64(p, index, 0, 0);
  *p++ = printed ? ']' : ')';
  return p;
}

static inline char *lgp_names_put_tail(char *p, int32_t cyc_num, uint32_t index, int print_flag,
                                       int have_cg) {
  if (cyc_num != 0) {
    *p++ = ' ';
    p = lgp_names_put_cycle(p, cyc_num);
  }
  if (have_cg && index != 0) {
    *p++ = ' ';
    p = lgp_names_put_index(p, index, print_flag);
  }
  return p;
}

/* Is style a demangling style libiberty knows? */
int lgp_names_demangle_style_ok(const char *style);
/* Demangles one name as gprof does (bfd_demangle); NULL if it is not mangled. */
char *lgp_names_demangle(const char *name, int options);

#endif
