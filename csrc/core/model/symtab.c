/*
** symtab.c: gprof's symbol table (symtab_finalize): stable sort by address,
** one survivor per address, each routine ending where the next begins;
** at line granularity the line symbols merged in and finalised again; and
** the address index over it.
*/
#include <stdlib.h>
#include <string.h>

#include "model/symtab.h"

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

void lgp_symtab_node_init(lgp_node *n, uint32_t id, const lgp_rawsym *sym, lgp_addr end_addr) {
  memset(n, 0, sizeof *n);
  n->name = sym->name;
  n->addr = sym->addr;
  n->end_addr = end_addr;
  n->is_static = sym->is_static;
  n->is_func = sym->is_func;
  n->is_line = sym->is_line;
  n->cyc_head = id;
  n->cyc_next = LGP_NONE;
}

/* gprof's first finalise: one survivor per address, kept at the front of
** raw (the table's node order); their count. */
static size_t keep_survivors(lgp_rawsym *raw, size_t nraw) {
  size_t i, n = 0;
  for (i = 0; i < nraw; i++) {
    if (n > 0 && raw[n - 1].addr == raw[i].addr) {
      if (replaces(&raw[i], &raw[n - 1]))
        raw[n - 1] = raw[i];
    } else {
      raw[n++] = raw[i];
    }
  }
  return n;
}

/* The preset end of function symbol i: where the next one begins (the
** last one: the end of .text); none (0) for the symbols of an nm file,
** which gprof reads without ends, so the second finalise never drops them. */
static lgp_addr fn_end(const lgp_image *im, const lgp_rawsym *fn, size_t nfn, size_t i) {
  if (im->external_syms)
    return 0;
  return i + 1 < nfn ? fn[i + 1].addr - 1 : im->text_vma + im->text_size - 1;
}

/* Line granularity: the function symbols (finalised, each ending where the
** next begins) and the image's line symbols, merged in address order
** (functions first at one address) into out, with ends[] the preset end
** address of each (0: none, for line symbols). A line symbol takes the
** static flag of the line symbol before it when that one has its file and
** name, else that of the function whose range holds it. Returns the count. */
static size_t merge_lines(const lgp_image *im, const lgp_rawsym *fn, size_t nfn,
                          lgp_rawsym *out, lgp_addr *ends) {
  lgp_addr text_end = im->text_vma + im->text_size - 1;
  const lgp_rawsym *prev = NULL;
  size_t i = 0, j, n = 0;
  for (j = 0; j < im->nlines; j++) {
    const lgp_linesym *ls = &im->lines[j];
    const lgp_rawsym *f;
    lgp_rawsym *r;
    for (; i < nfn && fn[i].addr <= ls->addr; i++, n++) {
      out[n] = fn[i];
      ends[n] = fn_end(im, fn, nfn, i);
    }
    /* the function holding the address, as gprof's sym_lookup finds it */
    f = i > 0 && (i < nfn || ls->addr <= text_end) ? &fn[i - 1] : NULL;
    r = &out[n];
    memset(r, 0, sizeof *r);
    r->addr = ls->addr;
    r->name = ls->name != NULL ? ls->name : f != NULL ? f->name : NULL;
    if (r->name == NULL)
      continue; /* no function name there: gprof makes no symbol */
    r->symndx = UINT32_MAX;
    r->file = ls->file;
    r->line = ls->line;
    r->is_line = 1;
    if (prev != NULL && prev->file == r->file &&
        (prev->name == r->name || strcmp(prev->name, r->name) == 0))
      r->is_static = prev->is_static;
    else
      r->is_static = f != NULL && f->is_static;
    prev = r;
    ends[n++] = 0;
  }
  for (; i < nfn; i++, n++) {
    out[n] = fn[i];
    ends[n] = fn_end(im, fn, nfn, i);
  }
  return n;
}

/* gprof's second finalise over the merged table, in place: a symbol with
** no preset end ends where the next survivor begins (the last one at the
** end of .text); one whose preset end is below its start is dropped. */
static size_t finalise_lines(lgp_rawsym *raw, lgp_addr *ends, size_t nraw, lgp_addr text_end) {
  size_t i, n = 0;
  for (i = 0; i < nraw; i++) {
    if (n > 0 && raw[n - 1].addr == raw[i].addr) {
      if (replaces(&raw[i], &raw[n - 1])) {
        raw[n - 1] = raw[i];
        ends[n - 1] = ends[i];
      }
      continue;
    }
    if (n > 0 && ends[n - 1] == 0)
      ends[n - 1] = raw[i].addr - 1;
    if (ends[i] != 0 && ends[i] < raw[i].addr)
      continue;
    raw[n] = raw[i];
    ends[n++] = ends[i];
  }
  if (n > 0 && ends[n - 1] == 0)
    ends[n - 1] = text_end;
  return n;
}

int lgp_symtab_lines(const lgp_image *im, const lgp_rawsym *fn, size_t nfn,
                     lgp_rawsym **out, lgp_addr **ends, size_t *n) {
  size_t total = nfn + im->nlines;
  *out = lgp_alloc_array(total ? total : 1, sizeof **out);
  *ends = lgp_alloc_array(total ? total : 1, sizeof **ends);
  if (*out == NULL || *ends == NULL) {
    free(*out);
    free(*ends);
    *out = NULL;
    *ends = NULL;
    return -1;
  }
  *n = merge_lines(im, fn, nfn, *out, *ends);
  *n = finalise_lines(*out, *ends, *n, im->text_vma + im->text_size - 1);
  return 0;
}

int lgp_symtab_build(lgp_image *im, int lines, lgp_node **nodes_out, size_t *n_out,
                     lgp_err *err) {
  lgp_addr text_end = im->text_vma + im->text_size - 1;
  lgp_addr *ends = NULL;
  lgp_node *nodes;
  size_t i, n;
  if (sort_raw(im) != 0)
    return lgp_fail(err, NULL, "out of memory");
  n = im->nsyms = keep_survivors(im->syms, im->nsyms);
  if (lines) { /* even without line symbols: the second finalise drops data_start */
    lgp_rawsym *merged;
    if (lgp_symtab_lines(im, im->syms, im->nsyms, &merged, &ends, &n) != 0)
      return lgp_fail(err, NULL, "out of memory");
    free(im->syms);
    im->syms = merged;
    im->nsyms = n;
  }
  nodes = lgp_alloc_array(n ? n : 1, sizeof *nodes); /* lgp_symtab_node_init clears each */
  if (nodes == NULL) {
    free(ends);
    return lgp_fail(err, NULL, "out of memory");
  }
  /* ELF st_size is never used: a routine runs to the next one (in line
     mode, function symbols keep that end and overlap their lines) */
  for (i = 0; i < n; i++)
    lgp_symtab_node_init(&nodes[i], (uint32_t)i, &im->syms[i],
                         ends != NULL ? ends[i] : i + 1 < n ? im->syms[i + 1].addr - 1 : text_end);
  free(ends);
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
  for (k = 0; k + 1 < n && ix->ends == NULL; k++)
    if (nodes[k].end_addr < nodes[k + 1].addr - 1) { /* line mode can leave holes */
      ix->ends = lgp_alloc_array(n, sizeof *ix->ends);
      if (ix->ends == NULL)
        goto oom;
      for (b = 0; b < n; b++)
        ix->ends[b] = nodes[b].end_addr;
    }
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
  free(ix->ends);
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
  lo += lgp_addr_count_le(ix->addrs + lo, hi - lo, sizeof *ix->addrs, 0, addr);
  /* a routine ends where the next begins: only the last one has an end of
     its own to check */
  if (lo == 0 || (lo == ix->n && addr > ix->last_end) ||
      (ix->ends != NULL && addr > ix->ends[lo - 1]))
    return LGP_NONE;
  return (uint32_t)(lo - 1);
}
