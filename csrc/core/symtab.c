/*
** symtab.c: gprof's symbol table (symtab_finalize): stable sort by address,
** one survivor per address, each routine ending where the next begins;
** and the address index over it.
*/
#include <stdlib.h>
#include <string.h>

#include "symtab.h"

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

void lgp_node_init(lgp_node *n, uint32_t id, const lgp_rawsym *sym, lgp_addr end_addr) {
  memset(n, 0, sizeof *n);
  n->name = sym->name;
  n->addr = sym->addr;
  n->end_addr = end_addr;
  n->is_static = sym->is_static;
  n->is_func = sym->is_func;
  n->cyc_head = id;
  n->cyc_next = LGP_NONE;
}

int lgp_symtab_build(lgp_image *im, lgp_node **nodes_out, size_t *n_out, lgp_err *err) {
  size_t i, n = 0;
  lgp_rawsym *raw;
  lgp_node *nodes;
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
  im->nsyms = n; /* the survivors, in node order */
  nodes = lgp_calloc_array(n ? n : 1, sizeof *nodes);
  if (nodes == NULL)
    return lgp_fail(err, NULL, "out of memory");
  /* ELF st_size is never used: a routine runs to the next one */
  for (i = 0; i < n; i++)
    lgp_node_init(&nodes[i], (uint32_t)i, &raw[i],
                  i + 1 < n ? raw[i + 1].addr - 1 : im->text_vma + im->text_size - 1);
  *nodes_out = nodes;
  *n_out = n;
  return 0;
}

/* Buckets of 2^shift bytes, about two per symbol, so a lookup is a binary
** search over the few symbols of one bucket: O(1) expected. */
int lgp_symindex_build(lgp_symindex *ix, const lgp_node *nodes, size_t n) {
  size_t b, k;
  lgp_addr span;
  unsigned shift = 0;
  memset(ix, 0, sizeof *ix);
  ix->n = n;
  ix->addrs = lgp_alloc_array(n ? n : 1, sizeof *ix->addrs);
  ix->is_func = lgp_alloc_array(n ? n : 1, 1);
  if (ix->addrs == NULL || ix->is_func == NULL)
    goto oom;
  for (k = 0; k < n; k++) {
    ix->addrs[k] = nodes[k].addr;
    ix->is_func[k] = nodes[k].is_func;
  }
  ix->last_end = n ? nodes[n - 1].end_addr : 0;
  span = n ? ix->addrs[n - 1] - ix->addrs[0] : 0;
  while (shift < 63 && (span >> shift) > 2 * (lgp_addr)n)
    shift++;
  ix->shift = shift;
  ix->nbuckets = (size_t)(span >> shift) + 1;
  ix->buckets = lgp_alloc_array(ix->nbuckets + 1, sizeof *ix->buckets);
  if (ix->buckets == NULL)
    goto oom;
  for (b = 0, k = 0; b <= ix->nbuckets; b++) {
    lgp_addr start = b < ix->nbuckets ? ix->addrs[0] + ((lgp_addr)b << shift) : 0;
    while (k < n && (b == ix->nbuckets || ix->addrs[k] < start))
      k++;
    ix->buckets[b].first = (uint32_t)k;
    /* where the bucket's first symbol starts, if that fits: most buckets
       hold at most one start, and a lookup then needs only this entry */
    ix->buckets[b].off = k < n && b < ix->nbuckets && shift <= 32 &&
                         ix->addrs[k] - start <= UINT32_MAX
                       ? (uint32_t)(ix->addrs[k] - start) : UINT32_MAX;
  }
  return 0;
oom:
  lgp_symindex_free(ix);
  return -1;
}

void lgp_symindex_free(lgp_symindex *ix) {
  free(ix->addrs);
  free(ix->is_func);
  free(ix->buckets);
  memset(ix, 0, sizeof *ix);
}

uint32_t lgp_symindex_lookup(const lgp_symindex *ix, lgp_addr addr) {
  size_t lo, hi; /* the first symbol above addr is in [lo, hi] */
  lgp_addr b;
  if (ix->n == 0 || addr < ix->addrs[0])
    return LGP_NONE;
  b = (addr - ix->addrs[0]) >> ix->shift;
  if (b >= ix->nbuckets) {
    lo = ix->buckets[ix->nbuckets - 1].first;
    hi = ix->n;
  } else {
    const struct lgp_bucket *e = &ix->buckets[b];
    lo = e->first;
    hi = e[1].first;
    if (hi - lo == 1 && e->off != UINT32_MAX) { /* one start in the bucket */
      lgp_addr start = ix->addrs[0] + ((lgp_addr)b << ix->shift);
      lo = addr - start >= e->off ? hi : lo;
      hi = lo;
    }
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ix->addrs[mid] <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* a routine ends where the next begins: only the last one has an end of
     its own to check */
  if (lo == 0 || (lo == ix->n && addr > ix->last_end))
    return LGP_NONE;
  return (uint32_t)(lo - 1);
}
