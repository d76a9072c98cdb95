/*
** ordering.h: gprof's suggested link orders: -r (functions, from the call
** counts) and -R (object files, from a map file). Each is a list of names,
** printed one a line after the other reports.
*/
#ifndef ordering_h
#define ordering_h

#include "mapfile.h"
#include "profile.h"

typedef struct lgp_namelist {
  const char **v;     /* names owned by the profile (or its map) */
  size_t n, cap;
} lgp_namelist;

void lgp_namelist_free(lgp_namelist *l);

/* gprof -r over a profile (not a view): 0, or -1 (out of memory). */
int lgp_function_ordering(const lgp_profile *p, lgp_namelist *out, lgp_err *err);
/* gprof -R: the profile must have been opened with the map m (its symbols
** renamed by it). 0, or -1 (out of memory). */
int lgp_file_ordering(const lgp_profile *p, const lgp_mapfile *m, lgp_namelist *out,
                      lgp_err *err);

#endif
