/*
** bbcount.c: basic-block counts (gmon tag 2) filed into the symbols that
** hold them, ten slots per symbol.
*/
#include <stdlib.h>
#include <string.h>

#include "model/bbcount.h"

void lgp_bbcounts_free(lgp_bbcounts *b) {
  free(b->first);
  free(b->slots);
  memset(b, 0, sizeof *b);
}

/* The blocks of one symbol (ids, in reading order) into its ten slots; the
** used ones, up to the first empty slot, are appended to b->slots. */
static void fill_symbol(lgp_bbcounts *b, const lgp_gmon *g, const uint32_t *ids, size_t n) {
  lgp_bbcount slot[LGP_BB_SLOTS];
  size_t i, j;
  memset(slot, 0, sizeof slot);
  for (i = 0; i < n; i++) {
    const lgp_bbcount *blk = &g->bb[ids[i]];
    for (j = 0; j < LGP_BB_SLOTS; j++)
      if (slot[j].addr == 0 || slot[j].addr == blk->addr)
        break;
    if (j == LGP_BB_SLOTS)
      continue; /* an eleventh address: gprof drops it */
    slot[j].addr = blk->addr;
    slot[j].count += blk->count;
  }
  for (j = 0; j < LGP_BB_SLOTS && slot[j].addr != 0; j++)
    b->slots[b->nslots++] = slot[j];
}

int lgp_bbcounts_build(lgp_bbcounts *b, const lgp_gmon *g, const lgp_symindex *ix) {
  uint32_t *ids = NULL, *sym = NULL;
  uint64_t *keys = NULL;
  size_t n = 0, i, k, s;
  int rc = -1;
  memset(b, 0, sizeof *b);
  b->nsyms = ix->n;
  b->first = lgp_calloc_array(ix->n + 1, sizeof *b->first);
  if (b->first == NULL || g->nbb > UINT32_MAX)
    goto out;
  ids = lgp_alloc_array(g->nbb ? g->nbb : 1, sizeof *ids);
  sym = lgp_alloc_array(g->nbb ? g->nbb : 1, sizeof *sym);
  keys = lgp_alloc_array(g->nbb ? g->nbb : 1, sizeof *keys);
  b->slots = lgp_alloc_array(g->nbb ? g->nbb : 1, sizeof *b->slots);
  if (ids == NULL || sym == NULL || keys == NULL || b->slots == NULL)
    goto out;
  for (i = 0; i < g->nbb; i++) {
    uint32_t s32 = lgp_symindex_lookup(ix, g->bb[i].addr);
    sym[i] = s32;
    if (s32 == LGP_NONE)
      continue; /* outside every symbol: dropped */
    keys[i] = s32;
    ids[n++] = (uint32_t)i;
  }
  /* by symbol, reading order kept within one (a stable sort) */
  if (lgp_radix_sort(ids, keys, n) != 0)
    goto out;
  for (i = 0, s = 0; i < n; i = k) {
    uint32_t cur = sym[ids[i]];
    for (k = i; k < n && sym[ids[k]] == cur; k++)
      ;
    for (; s <= cur; s++)
      b->first[s] = (uint32_t)b->nslots;
    fill_symbol(b, g, ids + i, k - i);
  }
  for (; s <= ix->n; s++)
    b->first[s] = (uint32_t)b->nslots;
  rc = 0;
out:
  free(ids);
  free(sym);
  free(keys);
  if (rc != 0)
    lgp_bbcounts_free(b);
  return rc;
}
