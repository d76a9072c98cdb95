/*
** report.h: GNU gprof 2.40's text reports, byte for byte.
*/
#ifndef report_h
#define report_h

#include "profile.h"

extern const char lgp_flat_blurb[];
extern const char lgp_fsf_callg_blurb[];
extern const char lgp_bsd_callg_blurb[];

/* Demangled names, computed once per node on first use. */
typedef struct lgp_names {
  struct lgp_name { const char *s; size_t len; } *disp; /* printed name and
                        its length, together (one cache line); s NULL: not yet */
  unsigned char *owned; /* disp[i] was allocated (a demangled name) */
  size_t n;
  int options;       /* libiberty DMGL_* flags including the style */
  int enabled;
} lgp_names;

int lgp_names_init(lgp_names *nm, size_t n, int enabled, const char *style);
void lgp_names_free(lgp_names *nm);
/* The printed name of a node (demangled when enabled). */
const char *lgp_display_name(lgp_names *nm, const lgp_profile *p, uint32_t node);
/* The same, and its length (cached: reports print each name many times). */
const char *lgp_display_name_len(lgp_names *nm, const lgp_profile *p, uint32_t node,
                                 size_t *len);
/* Is style a demangling style libiberty knows? */
int lgp_demangle_style_ok(const char *style);
/* Demangles one name as gprof does (bfd_demangle); NULL if it is not mangled. */
char *lgp_demangle(const char *name, int options);

typedef struct lgp_report_opts {
  int bsd;          /* -T */
  int brief;        /* -b */
  int ignore_zeros; /* default; -z clears it */
  int width;        /* -w, default 80 */
  int flat, graph;  /* which parts; the index goes with the graph */
  int *first_output; /* shared "nothing printed yet" state, for form feeds */
  /* filtered views (Lua API) may hide nodes: NULL or a flag per node */
  const uint8_t *hidden;
} lgp_report_opts;

/* Writes the parts of the report in gprof's order; 0 or -1 (write error). */
int lgp_report_gprof(lgp_out *o, lgp_profile *p, lgp_names *nm,
                     const lgp_report_opts *ro);

void lgp_report_flat(lgp_out *o, lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro);
void lgp_report_graph(lgp_out *o, lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro);
void lgp_report_index(lgp_out *o, lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro);

#endif
