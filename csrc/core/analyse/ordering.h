/*
** ordering.h: gprof's suggested link orders: -r (functions, from the call
** counts) and -R (object files, from a map file). Each is a list of names,
** printed one a line after the other reports.
*/
#ifndef ordering_h
#define ordering_h

#include "read/mapfile.h"
#include "model/profile.h"

typedef struct lgp_namelist {
  const char **v;     /* names owned by the profile (or its map) */
  size_t n, cap;
} lgp_namelist;

void lgp_ordering_namelist_free(lgp_namelist *l);

/* What was printed before the order (gprof's call graph sorts the lists
** of the entries it prints, and -r reads them). */
typedef struct lgp_ordering_opts {
  int after_graph;   /* the call graph was printed */
  int ignore_zeros;  /* without -z */
} lgp_ordering_opts;

/* gprof -r over a profile (not a view); oo may be NULL (nothing printed
** before). 0, or -1 (out of memory, or a FROM/TO spec it cannot follow). */
int lgp_ordering_functions(const lgp_profile *p, const lgp_ordering_opts *oo, lgp_namelist *out,
                           lgp_err *err);
/* gprof -R: the profile must have been opened with the map m (its symbols
** renamed by it). 0, or -1 (out of memory). */
int lgp_ordering_files(const lgp_profile *p, const lgp_mapfile *m, lgp_namelist *out,
                       lgp_err *err);

#endif
