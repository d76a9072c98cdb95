/*
** export.h: the analysed profile in other tools' formats (callgrind,
** JSON, CSV, folded stacks). Linear in functions and arcs (folded stacks:
** in the stacks written, which the depth limit and the weight cutoff
** bound). A view's removed functions are left out.
*/
#ifndef export_h
#define export_h

#include "model/lines.h"
#include "write/report.h"

enum lgp_export_format {
  LGP_EXPORT_CALLGRIND,
  LGP_EXPORT_JSON,
  LGP_EXPORT_CSV_FLAT,   /* the flat profile, one row per function */
  LGP_EXPORT_CSV_ARCS,   /* the arcs, one row per arc */
  LGP_EXPORT_FOLDED
};

typedef struct lgp_export_opts {
  int format;          /* enum lgp_export_format */
  int zeros;           /* also functions never sampled, never calling nor called */
  const char *creator; /* the writing tool and its version, or NULL */
  /* folded stacks */
  int max_depth;       /* frames per stack (at least 1) */
  double min_weight;   /* share of the total below which a subtree is not
                          broken down (its time stays with its top frame) */
  /* the owner of the profile's sources (a view's: its base's), to read
     source files and lines through on demand; NULL: only if read already */
  lgp_sources *sources;
  /* line granularity: the profile's line data (lines.h), or NULL. JSON
     gains "lines", CSV's flat table becomes one row per line, callgrind
     gives each function's cost line by line */
  const lgp_lines *lines;
  /* JSON of a profile of sampled stacks opened with its samples' times:
     "sample_times", every sample's time and stack, per thread */
  int sample_times;
} lgp_export_opts;

/* Defaults: zeros 0, max_depth 64, min_weight 1e-4. */
void lgp_export_opts_init(lgp_export_opts *eo);

/* Writes the profile (or view) p in eo->format. Reads DWARF file and line
** information through eo->sources (unknown when it cannot be read). 0, or -1 with a
** message in err (out of memory, a write error). */
int lgp_export(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_export_opts *eo,
               lgp_err *err);

/* The labels callgrind and folded stacks give functions: shared[s] (one
** byte per symbol of p) is set to 1 when another function these formats
** list prints the same name as s (they append its address, " [0x401136]"),
** else 0. 0, or -1 when out of memory. */
int lgp_export_shared_names(const lgp_profile *p, lgp_names *nm, uint8_t *shared);

#endif
