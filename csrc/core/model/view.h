/*
** view.h: filtered views of an analysed profile (focus, ignore, hide,
** prune_from, and display thresholds), analysed again as gprof would.
*/
#ifndef view_h
#define view_h

#include "model/profile.h"

/* Match sets are one byte per symbol of the base (NULL: unused). */
typedef struct lgp_view_spec {
  const uint8_t *focus, *ignore, *hide, *prune_from;
  double node_fraction, edge_fraction; /* shares of the call graph's time */
  size_t top;                          /* keep the N heaviest functions */
  uint64_t min_calls;
} lgp_view_spec;

/* Builds view from base (which it borrows from: base's sources must
** outlive it). 0, or -1 with a message. */
int lgp_view_build(lgp_profile *view, const lgp_profile *base, const lgp_view_spec *spec,
                   lgp_err *err);

#endif
