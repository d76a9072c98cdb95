/*
** gmonsum.h: the summed profile file gprof -s writes (gmon.sum) for an
** opened profile: header, summed histograms, arcs, basic-block counts.
*/
#ifndef gmonsum_h
#define gmonsum_h

#include "model/profile.h"

/* The arcs are p's: gprof -s forces line granularity, so p is opened at
** line granularity (options.line_granularity) to write what gprof does;
** a function-level p gives its function arcs. They are written in gprof's
** order (by caller address, each caller's newest
** first), or with canonical set, sorted by (from, to, count): gprof's
** order depends on how the inputs were grouped, the sorted one does not,
** so summing sums is then associative byte for byte. */

/* Replaces path with the file, atomically (see atomicfile.h); p analysed
** as far as LGP_GRAPH_TIME (the arcs in list order). 0, or -1
** with "PATH: what is wrong"; path is then as it was. */
int lgp_gmonsum_write(const lgp_profile *p, const char *path, int canonical,
                      lgp_err *err);

#endif
