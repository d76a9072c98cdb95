/*
** timerange.h: --time-range=FROM,TO: a part of a recording's time, given
** as seconds from its first sample, as percentages of its length (first to
** last sample), or as perf's own timestamps (seconds, as `perf script`
** prints them). FROM is included and TO is not, except that a range that
** reaches the recording's end includes its last sample; an empty FROM or
** TO is the recording's start or end.
**
** A number of seconds is taken from the first sample when that falls
** inside the recording, else as perf's timestamp: recordings start long
** after the machine did, so the two readings cannot both fit.
*/
#ifndef timerange_h
#define timerange_h

#include <stddef.h>
#include <stdint.h>
#include "util/util.h"

typedef struct lgp_time_spec {
  double from, to;        /* seconds, or percent */
  uint8_t from_pct, to_pct;
  uint8_t from_open, to_open;
  const char *text;       /* as given, for messages */
} lgp_time_spec;

/* A range resolved in the recording's clock (nanoseconds): [from, to). */
typedef struct lgp_time_range {
  uint64_t from, to;
} lgp_time_range;

/* Parses "FROM,TO". 0, or -1 when it is no range (the caller says so). */
int lgp_time_spec_parse(const char *text, lgp_time_spec *out);
/* Resolves n specs against a recording whose samples run from first to
** last (nanoseconds), into out (n entries). 0, or -1 with "NAME:
** --time-range=TEXT: ..." (a range outside the recording, which gives the
** recording's span). */
int lgp_time_resolve(const lgp_time_spec *specs, size_t n, uint64_t first, uint64_t last,
                     lgp_time_range *out, const char *name, lgp_err *err);
/* Does t fall in one of the n ranges? */
int lgp_time_in(const lgp_time_range *r, size_t n, uint64_t t);
/* The nanoseconds of [from, to) that fall in the n ranges (they may
** overlap: each nanosecond counted once). */
uint64_t lgp_time_overlap(const lgp_time_range *r, size_t n, uint64_t from, uint64_t to);

#endif
