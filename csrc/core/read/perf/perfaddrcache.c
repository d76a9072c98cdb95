/*
** perfaddrcache.c: (binary, address) -> frames, each resolved once
** (perfaddrcache.h), by the source of symbols of the binary's kind.
*/
#include "read/perf/perfreader.h"

static int cache_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const acache *k = key;
  return s->cache[v].dso == k->dso && s->cache[v].addr == k->addr;
}

/* The frames of addr (an address of binary dso), resolved once: appends
** their ids to the scratch chain at *n. */
int lgp_pr_frames_of(reader *s, uint32_t dso, uint64_t addr, size_t *n) {
  acache k, *c;
  uint32_t h;
  uint32_t v, i;
  int rc;
  k.dso = dso;
  k.addr = addr;
  h = lgp_hashtab_hash_u64(addr * 31 + dso);
  v = lgp_pr_lookup(&s->cache_ht, h, cache_eq, s, &k);
  if (v == NONE) {
    size_t first = s->ncframes;
    dsox *x = &s->dx[dso];
    if (x->kind == DK_ELF || x->kind == DK_VDSO) {
      if (lgp_pr_dso_open(s, dso) != 0)
        return -1;
      rc = x->mod ? lgp_pr_elf_frames(s, dso, addr) : lgp_pr_unknown_frame(s, dso, addr);
    } else if (x->kind == DK_JIT) {
      rc = lgp_pr_jit_load(s, dso) != 0 ? -1 : lgp_pr_jit_frames(s, dso, addr);
    } else if (x->kind == DK_KERNEL) {
      rc = lgp_pr_kernel_frames(s, addr);
    } else {
      rc = lgp_pr_unknown_frame(s, dso, addr);
    }
    if (rc != 0)
      return s->err->set ? -1 : lgp_pr_oom(s);
    if (GROW(s, s->cache, s->cache_cap, s->ncache + 1) != 0)
      return -1;
    v = (uint32_t)s->ncache;
    c = &s->cache[s->ncache++];
    c->dso = dso;
    c->addr = addr;
    c->first = (uint32_t)first;
    c->n = (uint32_t)(s->ncframes - first);
    if (lgp_hashtab_add(&s->cache_ht, h, v) != 0)
      return lgp_pr_oom(s);
  }
  c = &s->cache[v];
  if (GROW(s, s->scratch, s->scratch_cap, *n + c->n) != 0)
    return -1;
  for (i = 0; i < c->n; i++)
    s->scratch[(*n)++] = s->cframes[c->first + i];
  return 0;
}
