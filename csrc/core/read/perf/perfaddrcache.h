/*
** perfaddrcache.h: (binary, address) -> frames, each address resolved once
** (private to read/perf/): the frames of every address resolved are kept
** end to end in s->cframes, a cache entry says where.
*/
#ifndef perfaddrcache_h
#define perfaddrcache_h

#include <stddef.h>
#include <stdint.h>

typedef struct acache {      /* (binary, address) -> frames */
  uint32_t dso;
  uint64_t addr;
  uint32_t first, n;         /* in cframes */
} acache;

/* The frames of addr (an address of binary dso), resolved once: appends
** their ids to s->scratch at *n. 0, or -1 with s->err set. */
int lgp_pr_frames_of(reader *s, uint32_t dso, uint64_t addr, size_t *n);

#endif
