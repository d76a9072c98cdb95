/*
** execcount.h: gprof's execution-count report (-C): one row per called
** symbol and per basic block, ordered by source file and line.
*/
#ifndef execcount_h
#define execcount_h

#include "model/bbcount.h"
#include "model/profile.h"

/* Writes the report (a form feed first unless *first_output; clears it).
** bb: the profile's block counts, or NULL. Source files must be read
** (lgp_image_load_srcinfo). zeros (-z): rows for counts of 0 too. 0, or -1
** (out of memory). */
int lgp_report_exec_counts(lgp_out *o, const lgp_profile *p, const lgp_bbcounts *bb,
                           int zeros, int *first_output);

/* glibc's qsort (a top-down merge sort: the left half is the smaller,
** ties keep the left element) with cmp on n indices, without recursion:
** it orders the same even when cmp is not a total order. 0 or -1. */
int lgp_execcount_msort(uint32_t *v, size_t n, lgp_cmp_fn cmp, const void *ctx);

#endif
