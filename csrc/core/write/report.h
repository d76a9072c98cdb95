/*
** report.h: GNU gprof 2.40's text reports, byte for byte.
*/
#ifndef report_h
#define report_h

#include "model/names.h"
#include "model/profile.h"

extern const char lgp_flat_blurb[];
extern const char lgp_fsf_callg_blurb[];
extern const char lgp_bsd_callg_blurb[];

/* The explanations after (-T: before) the flat profile and the call graph:
** gprof's for a gmon.out profile; for sampled stacks, texts that say what
** their columns measure. */
void lgp_report_flat_blurb(lgp_out *o, const lgp_profile *p);
void lgp_report_callg_blurb(lgp_out *o, const lgp_profile *p, int bsd);

typedef struct lgp_report_opts {
  int bsd;          /* -T */
  int brief;        /* -b */
  int ignore_zeros; /* default; -z clears it */
  int width;        /* -w, default 80 */
  int flat, graph;  /* which parts; the index goes with the graph */
  int *first_output; /* shared "nothing printed yet" state, for form feeds */
  int inline_file_names; /* --inline-file-names: " (FILE:LINE)" after names */
  int print_path;   /* -L: those suffixes (and the index's files) with full paths */
  /* the owner of the profile's sources (a view's: its base's), to read
     source files through when the index or the suffixes need them (statics
     are printed with their file); NULL: only if read already */
  lgp_sources *sources;
} lgp_report_opts;

/* Does gprof's flat profile print a row for symbol s? Not if a view
** removed it or the -p/-P specs leave it out, nor, with ignore_zeros (no
** -z), if it has neither samples nor calls. */
int lgp_report_flat_shows(const lgp_profile *p, uint32_t s, int ignore_zeros);

/* A view's removed symbols are left out. Writes the parts of the report in gprof's order; 0 or -1 (write error). */
int lgp_report_gprof(lgp_out *o, const lgp_profile *p, lgp_names *nm,
                     const lgp_report_opts *ro);

void lgp_report_flat(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro);
void lgp_report_graph(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro);
void lgp_report_index(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro);

#endif
