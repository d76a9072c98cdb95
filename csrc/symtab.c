/*
** symtab.c: gprof's symbol table (symtab_finalize): stable sort by address,
** one survivor per address, and each routine ends where the next begins.
*/
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static int cmp_addr(const void *a, const void *b) {
  const lgp_rawsym *l = a, *r = b;
  if (l->addr != r->addr)
    return l->addr < r->addr ? -1 : 1;
  if (l->is_func != r->is_func)
    return l->is_func ? -1 : 1;      /* functions first */
  if (l->is_static != r->is_static)
    return l->is_static ? 1 : -1;    /* then globals */
  return l->symndx < r->symndx ? -1 : l->symndx > r->symndx; /* stable */
}

/* Does s replace d, the survivor so far at the same address? */
static int replaces(const lgp_rawsym *s, const lgp_rawsym *d) {
  if (!s->is_static && d->is_static)
    return 1;
  if (s->is_static != d->is_static)
    return 0;
  if (s->is_func && !d->is_func)
    return 1;
  if (s->is_func != d->is_func)
    return 0;
  if (s->name[0] != '_' && d->name[0] == '_')
    return 1;
  return s->name[0] == '_' && d->name[0] == '_' && s->name[1] != '_' && d->name[1] == '_';
}

/* qsort with cmp_addr, faster: a radix sort by address keeps the table's
** order among equal addresses, and the few such runs are then put in
** cmp_addr's order. */
static int sort_raw(lgp_image *im) {
  size_t n = im->nsyms, i, j;
  uint64_t *keys = lgp_alloc_array(n ? n : 1, sizeof *keys);
  uint32_t *idx = lgp_alloc_array(n ? n : 1, sizeof *idx);
  lgp_rawsym *sorted = lgp_alloc_array(n ? n : 1, sizeof *sorted);
  lgp_addr lo = n ? im->syms[0].addr : 0;
  int rc = -1;
  if (keys == NULL || idx == NULL || sorted == NULL)
    goto out;
  for (i = 0; i < n; i++)
    if (im->syms[i].addr < lo)
      lo = im->syms[i].addr;
  for (i = 0; i < n; i++) {
    keys[i] = im->syms[i].addr - lo;
    idx[i] = (uint32_t)i;
  }
  if (lgp_radix_sort(idx, keys, n) != 0)
    goto out;
  for (i = 0; i < n; i++)
    sorted[i] = im->syms[idx[i]];
  for (i = 1; i < n; i++) /* insertion sort: only equal addresses move */
    for (j = i; j > 0 && sorted[j - 1].addr == sorted[j].addr &&
                cmp_addr(&sorted[j - 1], &sorted[j]) > 0; j--) {
      lgp_rawsym t = sorted[j];
      sorted[j] = sorted[j - 1];
      sorted[j - 1] = t;
    }
  memcpy(im->syms, sorted, n * sizeof *sorted);
  rc = 0;
out:
  free(keys);
  free(idx);
  free(sorted);
  return rc;
}

int lgp_symtab_build(lgp_profile *p, lgp_err *err) {
  lgp_image *im = &p->image;
  size_t i, n = 0;
  lgp_rawsym *raw;
  if (sort_raw(im) != 0)
    return lgp_fail(err, NULL, "out of memory");
  raw = im->syms;
  for (i = 0; i < im->nsyms; i++) {
    if (n > 0 && raw[n - 1].addr == raw[i].addr) {
      if (replaces(&raw[i], &raw[n - 1]))
        raw[n - 1] = raw[i];
    } else {
      raw[n++] = raw[i];
    }
  }
  p->nsyms = n;
  p->nodes = lgp_calloc_array(n, sizeof *p->nodes);
  if (p->nodes == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < n; i++) {
    lgp_node *s = &p->nodes[i];
    s->name = raw[i].name;
    s->addr = raw[i].addr;
    /* ELF st_size is never used: a routine runs to the next one */
    s->end_addr = i + 1 < n ? raw[i + 1].addr - 1 : im->text_vma + im->text_size - 1;
    s->file = raw[i].file;
    s->line = raw[i].line;
    s->is_static = raw[i].is_static;
    s->is_func = raw[i].is_func;
    s->cyc_head = (uint32_t)i;
    s->cyc_next = LGP_NONE;
  }
  if (lgp_symtab_index(p) != 0)
    return lgp_fail(err, NULL, "out of memory");
  return 0;
}

/* Buckets of 2^shift bytes, about two per symbol, so a lookup is a binary
** search over the few symbols of one bucket: O(1) expected. */
int lgp_symtab_index(lgp_profile *p) {
  size_t n = p->nsyms, b, k;
  lgp_addr span;
  unsigned shift = 0;
  p->sym_addrs = lgp_alloc_array(n ? n : 1, sizeof *p->sym_addrs);
  if (p->sym_addrs == NULL)
    return -1;
  p->sym_is_func = lgp_alloc_array(n ? n : 1, 1);
  if (p->sym_is_func == NULL)
    return -1;
  for (k = 0; k < n; k++) {
    p->sym_addrs[k] = p->nodes[k].addr;
    p->sym_is_func[k] = p->nodes[k].is_func;
  }
  span = n ? p->sym_addrs[n - 1] - p->sym_addrs[0] : 0;
  while (shift < 63 && (span >> shift) > 2 * (lgp_addr)n)
    shift++;
  p->bucket_shift = shift;
  p->nbuckets = (size_t)(span >> shift) + 1;
  p->bucket_first = lgp_alloc_array(p->nbuckets + 1, sizeof *p->bucket_first);
  if (p->bucket_first == NULL)
    return -1;
  for (b = 0, k = 0; b <= p->nbuckets; b++) {
    lgp_addr start = b < p->nbuckets ? p->sym_addrs[0] + ((lgp_addr)b << shift) : 0;
    while (k < n && (b == p->nbuckets || p->sym_addrs[k] < start))
      k++;
    p->bucket_first[b].first = (uint32_t)k;
    /* where the bucket's first symbol starts, if that fits: most buckets
       hold at most one start, and a lookup then needs only this entry */
    p->bucket_first[b].off = k < n && b < p->nbuckets && shift <= 32 &&
                             p->sym_addrs[k] - start <= UINT32_MAX
                           ? (uint32_t)(p->sym_addrs[k] - start) : UINT32_MAX;
  }
  return 0;
}

uint32_t lgp_sym_lookup(const lgp_profile *p, lgp_addr addr) {
  size_t lo, hi; /* the first symbol above addr is in [lo, hi] */
  lgp_addr b;
  if (p->nsyms == 0 || addr < p->sym_addrs[0])
    return LGP_NONE;
  b = (addr - p->sym_addrs[0]) >> p->bucket_shift;
  if (b >= p->nbuckets) {
    lo = p->bucket_first[p->nbuckets - 1].first;
    hi = p->nsyms;
  } else {
    const struct lgp_bucket *e = &p->bucket_first[b];
    lo = e->first;
    hi = e[1].first;
    if (hi - lo == 1 && e->off != UINT32_MAX) { /* one start in the bucket */
      lgp_addr start = p->sym_addrs[0] + ((lgp_addr)b << p->bucket_shift);
      lo = addr - start >= e->off ? hi : lo;
      hi = lo;
    }
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->sym_addrs[mid] <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* a routine ends where the next begins: only the last one has an end of
     its own to check (and reading a node here would cost a cache miss) */
  if (lo == 0 || (lo == p->nsyms && addr > p->nodes[lo - 1].end_addr))
    return LGP_NONE;
  return (uint32_t)(lo - 1);
}
