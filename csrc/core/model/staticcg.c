/*
** staticcg.c: gprof -c's static call graph on x86 (the reference's
** account of it): no decoding, a scan of every byte for E8, so backward
** calls (their displacement taken as unsigned) and PLT calls are missed
** and any E8 byte followed by a suitable number makes an arc.
*/
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "model/staticcg.h"
#include "util/bytes.h"

int lgp_staticcg_arc(const lgp_scan_ctx *s, uint32_t parent, uint32_t child, int tail,
                     lgp_err *err) {
  size_t before = s->arcs->narcs;
  uint32_t k;
  int rc;
  if (s->arcs->mode != LGP_ARCS_SEALED &&
      (k = lgp_arctab_find(s->arcs, parent, child)) != LGP_ARC_NONE) {
    if (!tail)
      s->arcs->arcs[k].is_tail = 0;
    return 0;
  }
  rc = lgp_arctab_add(s->arcs, parent, child, 0);
  if (rc == LGP_ARCS_FULL)
    return lgp_fail(err, s->path, LGP_ARCS_FULL_MSG, (unsigned long)LGP_ARCS_MAX);
  if (rc != 0)
    return lgp_fail(err, NULL, "out of memory");
  if (s->arcs->narcs > before) {
    s->arcs->arcs[before].is_static = 1;
    s->arcs->arcs[before].is_tail = tail != 0;
  }
  return 0;
}

/* Histogram records by low address (they never overlap). */
typedef struct hist_ix {
  const lgp_hist *hist;
  uint32_t *by_low;
  size_t n;
} hist_ix;


static int cmp_low_ctx(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_hist *h = ctx;
  return h[a].low < h[b].low ? -1 : h[a].low > h[b].low;
}

/* The first record (in by_low order) whose high is above addr. */
static size_t first_above(const hist_ix *h, lgp_addr addr) {
  size_t lo = 0, hi = h->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (h->hist[h->by_low[mid]].high <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* gprof's test of a target: its low 32 bits inside a record. */
static int in_hist(const hist_ix *h, uint32_t addr) {
  size_t k = first_above(h, addr);
  return k < h->n && h->hist[h->by_low[k]].low <= addr;
}

/* Clips [*lo, *hi) to the record that comes first in the profile's order
** among those overlapping it (gprof narrows the range to each overlap in
** turn; records do not overlap, so the first one wins); empty if none. */
static void clip(const hist_ix *h, lgp_addr *lo, lgp_addr *hi) {
  size_t k = first_above(h, *lo);
  uint32_t best = UINT32_MAX;
  for (; k < h->n && h->hist[h->by_low[k]].low < *hi; k++)
    if (h->by_low[k] < best)
      best = h->by_low[k];
  if (best == UINT32_MAX) {
    *hi = *lo;
    return;
  }
  if (h->hist[best].low > *lo)
    *lo = h->hist[best].low;
  if (h->hist[best].high < *hi)
    *hi = h->hist[best].high;
}

static int scan_range(const lgp_scan_ctx *s, const lgp_codesec *text, const hist_ix *h,
                      uint32_t parent, lgp_addr lo, lgp_addr hi, lgp_err *err) {
  lgp_addr end = text->vma + text->size, pc;
  if (lo < text->vma)
    lo = text->vma;
  if (hi > end)
    hi = end;
  for (pc = lo; pc < hi; pc++) {
    const unsigned char *b = text->bytes + (pc - text->vma);
    lgp_addr target;
    uint32_t child;
    if (*b != 0xE8 || end - pc < 5)
      continue;
    target = lgp_bytes_u32(b + 1, 0) + pc + 5;
    if (!in_hist(h, (uint32_t)target))
      continue;
    child = lgp_symindex_lookup(s->ix, target);
    if (child == LGP_NONE || s->nodes[child].addr != target)
      continue;
    if (lgp_staticcg_arc(s, parent, child, 0, err) != 0)
      return -1;
  }
  return 0;
}

int lgp_staticcg_gprof_scan(const lgp_scan_ctx *s, const lgp_code *code,
                            const lgp_hist *hist, size_t nhist, lgp_err *err) {
  const lgp_codesec *text = NULL;
  hist_ix h;
  size_t i;
  int rc = 0;
  for (i = 0; i < code->nsecs && text == NULL; i++)
    if (code->secs[i].is_text)
      text = &code->secs[i];
  if (text == NULL || nhist == 0 || s->n < 2)
    return 0;
  h.hist = hist;
  h.n = nhist;
  h.by_low = lgp_alloc_array(nhist, sizeof *h.by_low);
  if (h.by_low == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < nhist; i++)
    h.by_low[i] = (uint32_t)i;
  if (lgp_sort_indices(h.by_low, nhist, cmp_low_ctx, hist) != 0) {
    free(h.by_low);
    return lgp_fail(err, NULL, "out of memory");
  }
  /* the last symbol's range would run to the next entry gprof reads past
     its table; no symbol starts above it, so it could add nothing */
  for (i = 0; i + 1 < s->n && rc == 0; i++) {
    lgp_addr lo = s->nodes[i].addr, hi = s->nodes[i + 1].addr;
    if (hi <= lo)
      continue;
    clip(&h, &lo, &hi);
    if (lo < hi)
      rc = scan_range(s, text, &h, (uint32_t)i, lo, hi, err);
  }
  free(h.by_low);
  return rc;
}

int lgp_staticcg_add(const lgp_scan_ctx *s, const lgp_image *im, const lgp_gmon *g,
                     const lgp_options *opts, lgp_err *err) {
  int gprof = opts->static_call_graph && g->have_cg &&
              (im->machine == EM_X86_64 || im->machine == EM_386);
  lgp_code code;
  int rc = 0;
  if (opts->static_arcs && im->machine != EM_X86_64)
    return lgp_fail(err, im->path, "--static-arcs supports x86-64 only");
  if (!gprof && !opts->static_arcs)
    return 0;
  if (lgp_code_load(&code, im, opts->static_arcs, err) != 0)
    return -1;
  if (gprof)
    rc = lgp_staticcg_gprof_scan(s, &code, g->hist, g->nhist, err);
  if (rc == 0 && opts->static_arcs)
    rc = lgp_staticcg_decode(s, &code, err);
  lgp_code_free(&code);
  return rc;
}
