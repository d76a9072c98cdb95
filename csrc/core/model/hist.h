/*
** hist.h: histogram samples credited to routines.
*/
#ifndef hist_h
#define hist_h

#include "read/gmon.h"
#include "model/symspec.h"

/* Adds each routine's samples to nodes[].hist_time and returns the
** flat profile's total (ticks): every sample, less what the flat-profile
** tables exclude. */
double lgp_hist_assign(const lgp_gmon *g, lgp_node *nodes, size_t n, const lgp_specs *specs);

#endif
