/*
** timerange.c: --time-range (timerange.h).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "read/perf/timerange.h"

/* One end: "" (open), "12.5", "40%". 0, or -1. */
static int end_parse(const char *s, size_t len, double *v, uint8_t *pct, uint8_t *open) {
  char buf[64], *e;
  *pct = *open = 0;
  *v = 0;
  while (len > 0 && (*s == ' ' || *s == '\t'))
    s++, len--;
  while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
    len--;
  if (len == 0) {
    *open = 1;
    return 0;
  }
  if (s[len - 1] == '%') {
    *pct = 1;
    len--;
  }
  if (len == 0 || len >= sizeof buf)
    return -1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '.'))
    return -1;
  *v = strtod(buf, &e);
  if (*e != '\0' || !isfinite(*v) || *v < 0 || (*pct && *v > 100))
    return -1;
  return 0;
}

int lgp_time_spec_parse(const char *text, lgp_time_spec *out) {
  const char *comma = strchr(text, ',');
  memset(out, 0, sizeof *out);
  out->text = text;
  if (!comma || strchr(comma + 1, ','))
    return -1;
  if (end_parse(text, (size_t)(comma - text), &out->from, &out->from_pct, &out->from_open) != 0
      || end_parse(comma + 1, strlen(comma + 1), &out->to, &out->to_pct, &out->to_open) != 0)
    return -1;
  if (out->from_open && out->to_open)
    return -1;
  return 0;
}

/* One end in the recording's clock; to_end: it is a TO (a TO at the end
** includes the last sample). */
static uint64_t end_resolve(double v, int pct, int open, int to_end, uint64_t first,
                            uint64_t last) {
  double span = (double)(last - first), ns;
  if (open)
    return to_end ? UINT64_MAX : first;
  if (pct) {
    if (to_end && v >= 100)
      return UINT64_MAX;
    return first + (uint64_t)llround(span * v / 100);
  }
  ns = v * 1e9;
  if (ns <= span || ns < (double)first)
    return ns >= 18e18 ? UINT64_MAX : first + (uint64_t)llround(ns);
  return ns >= 18e18 ? UINT64_MAX : (uint64_t)llround(ns);
}

int lgp_time_resolve(const lgp_time_spec *specs, size_t n, uint64_t first, uint64_t last,
                     lgp_time_range *out, const char *name, lgp_err *err) {
  size_t i;
  for (i = 0; i < n; i++) {
    const lgp_time_spec *sp = &specs[i];
    uint64_t from = end_resolve(sp->from, sp->from_pct, sp->from_open, 0, first, last);
    uint64_t to = end_resolve(sp->to, sp->to_pct, sp->to_open, 1, first, last);
    if (from >= to)
      return lgp_fail(err, name, "--time-range=%s: FROM is not before TO", sp->text);
    /* a TO past the last sample reaches the end: the last included */
    if (to > last)
      to = UINT64_MAX;
    if (from > last || to <= first)
      return lgp_fail(err, name,
                      "--time-range=%s: outside the recording, whose samples run from 0 to "
                      "%.6f s (perf's time %.6f to %.6f)",
                      sp->text, (double)(last - first) / 1e9, (double)first / 1e9,
                      (double)last / 1e9);
    out[i].from = from;
    out[i].to = to;
  }
  return 0;
}

int lgp_time_in(const lgp_time_range *r, size_t n, uint64_t t) {
  size_t i;
  for (i = 0; i < n; i++)
    if (t >= r[i].from && t < r[i].to)
      return 1;
  return 0;
}

uint64_t lgp_time_overlap(const lgp_time_range *r, size_t n, uint64_t from, uint64_t to) {
  uint64_t total = 0, at = from;
  /* walk [from, to) from the left, one range's reach at a time: the ranges
     are few (command-line options) */
  while (at < to) {
    uint64_t next_in = UINT64_MAX, reach = 0;
    size_t i;
    for (i = 0; i < n; i++) {
      if (at >= r[i].from && at < r[i].to && r[i].to > reach)
        reach = r[i].to;
      if (r[i].from > at && r[i].from < next_in)
        next_in = r[i].from;
    }
    if (reach > at) {
      uint64_t e = reach < to ? reach : to;
      total += e - at;
      at = e;
    } else {
      at = next_in;
    }
  }
  return total;
}
