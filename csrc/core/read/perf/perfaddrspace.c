/*
** perfaddrspace.c: the address spaces of the recorded processes
** (perfaddrspace.h).
*/
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "read/perf/perfreader.h"

static int proc_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  return s->procs[v].pid == *(const uint32_t *)key;
}

proc *lgp_pr_proc_get(reader *s, uint32_t pid) {
  uint32_t h = lgp_hashtab_hash_u64(pid);
  uint32_t v = lgp_pr_lookup(&s->proc_ht, h, proc_eq, s, &pid);
  if (v != NONE)
    return &s->procs[v];
  if (GROW(s, s->procs, s->procs_cap, s->nprocs + 1) != 0)
    return NULL;
  v = (uint32_t)s->nprocs;
  memset(&s->procs[v], 0, sizeof s->procs[v]);
  s->procs[v].pid = pid;
  s->nprocs++;
  if (lgp_hashtab_add(&s->proc_ht, h, v) != 0) {
    lgp_pr_oom(s);
    return NULL;
  }
  return &s->procs[v];
}

/* The first mapping of p ending after addr. */
static size_t map_after(const proc *p, uint64_t addr) {
  return lgp_addr_count_le(p->maps, p->n, sizeof *p->maps, offsetof(pmap, end), addr);
}

const pmap *lgp_pr_map_find(const proc *p, uint64_t addr) {
  size_t i = map_after(p, addr);
  return i < p->n && p->maps[i].start <= addr ? &p->maps[i] : NULL;
}

/* Adds m to p; what it overlaps of older mappings is gone. */
int lgp_pr_map_add(reader *s, proc *p, const pmap *m) {
  size_t i = map_after(p, m->start), j = i, keep_left, keep_right, removed;
  pmap left, right;
  if (m->end <= m->start)
    return 0;
  while (j < p->n && p->maps[j].start < m->end)
    j++;
  /* maps[i .. j) overlap m; the first may stick out before it, the last after */
  keep_left = i < j && p->maps[i].start < m->start;
  keep_right = i < j && p->maps[j - 1].end > m->end;
  if (keep_left) {
    left = p->maps[i];
    left.end = m->start;
  }
  if (keep_right) {
    right = p->maps[j - 1];
    right.pgoff += m->end - right.start;
    right.start = m->end;
  }
  removed = j - i;
  if (GROW(s, p->maps, p->cap, p->n - removed + 1 + (size_t)keep_left + (size_t)keep_right) != 0)
    return -1;
  {
    size_t add = 1 + (size_t)keep_left + (size_t)keep_right;
    memmove(p->maps + i + add, p->maps + j, (p->n - j) * sizeof *p->maps);
    p->n = p->n - removed + add;
  }
  p->stale = 1;
  if (keep_left)
    p->maps[i++] = left;
  p->maps[i++] = *m;
  if (keep_right)
    p->maps[i] = right;
  return 0;
}

void lgp_pr_spaces_free(reader *s) {
  size_t i;
  for (i = 0; i < s->nprocs; i++) {
    free(s->procs[i].maps);
    if (s->procs[i].dwfl)
      dwfl_end(s->procs[i].dwfl);
    free(s->procs[i].unw);
  }
  free(s->procs);
  lgp_hashtab_free(&s->proc_ht);
}
