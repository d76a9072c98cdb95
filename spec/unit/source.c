/*
** source.c: csrc/core/write/execcount.c's merge sort (glibc's qsort order, also
** for a comparator that is not a total order, checked against a recursive
** reference) and csrc/core/model/bbcount.c's ten slots per symbol.
*/
#include <stdlib.h>
#include <string.h>

#include "model/bbcount.h"
#include "write/execcount.h"
#include "unit.h"

/* {====================================================== merge sort */

/* Items with a key (file, line) or none: the exec-count comparator's shape.
** Compared by key when both have one, else (or on a tie) by position; pairs
** of positions tie, so that which of two equal items comes first shows. */
typedef struct item { int has_key, key, pos; } item;

static int cmp_item(const void *ctx, uint32_t a, uint32_t b) {
  const item *v = ctx;
  if (v[a].has_key && v[b].has_key && v[a].key != v[b].key)
    return v[a].key < v[b].key ? -1 : 1;
  return v[a].pos / 2 < v[b].pos / 2 ? -1 : v[a].pos / 2 > v[b].pos / 2;
}

/* The reference: glibc's msort as documented (halves n/2 and the rest,
** the left element on ties), written recursively. */
static void ref_sort(uint32_t *v, uint32_t *tmp, size_t n, const item *it) {
  size_t n1 = n / 2, i = 0, j = n1, k = 0;
  if (n < 2)
    return;
  ref_sort(v, tmp, n1, it);
  ref_sort(v + n1, tmp, n - n1, it);
  while (i < n1 && j < n)
    tmp[k++] = cmp_item(it, v[i], v[j]) <= 0 ? v[i++] : v[j++];
  while (i < n1)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

static void check_msort(size_t n, int keyed_percent) {
  item *it = calloc(n ? n : 1, sizeof *it);
  uint32_t *got = calloc(n ? n : 1, sizeof *got), *want = calloc(n ? n : 1, sizeof *want);
  uint32_t *tmp = calloc(n ? n : 1, sizeof *tmp);
  size_t i;
  int same = 1;
  for (i = 0; i < n; i++) {
    it[i].has_key = (int)(unit_rand() % 100) < keyed_percent;
    it[i].key = (int)(unit_rand() % 7);
    it[i].pos = (int)i;
    got[i] = want[i] = (uint32_t)i;
  }
  CHECK(lgp_execcount_msort(got, n, cmp_item, it) == 0, "n=%zu: out of memory", n);
  ref_sort(want, tmp, n, it);
  for (i = 0; i < n; i++)
    same &= got[i] == want[i];
  CHECK(same, "n=%zu, %d%% keyed: the order differs from glibc's merge sort", n, keyed_percent);
  free(it);
  free(got);
  free(want);
  free(tmp);
}

/* }====================================================== */

/* {====================================================== block slots */

/* Three symbols at 0x100, 0x200, 0x300 (the last ends at 0x3ff); blocks
** as (addr, count) pairs in reading order. */
static void check_slots(void) {
  lgp_node nodes[3];
  lgp_symindex ix;
  lgp_gmon g;
  lgp_bbcounts b;
  size_t k;
  static const lgp_bbcount in[] = {
    {0x50, 9},                                   /* below every symbol: dropped */
    {0x210, 1}, {0x100, 5}, {0x210, 2},          /* added up in its first slot */
    {0x300, 1}, {0x301, 1}, {0x302, 1}, {0x303, 1}, {0x304, 1}, {0x305, 1},
    {0x306, 1}, {0x307, 1}, {0x308, 1}, {0x309, 1},
    {0x30a, 7},                                  /* an 11th address: dropped */
    {0x300, 4},                                  /* a known one still adds */
  };
  memset(nodes, 0, sizeof nodes);
  for (k = 0; k < 3; k++) {
    nodes[k].addr = 0x100 * (k + 1);
    nodes[k].end_addr = nodes[k].addr + 0xff;
    nodes[k].is_func = 1;
  }
  CHECK(lgp_symindex_build(&ix, nodes, 3) == 0, "symindex: out of memory");
  memset(&g, 0, sizeof g);
  g.bb = (lgp_bbcount *)in;
  g.nbb = sizeof in / sizeof *in;
  CHECK(lgp_bbcounts_build(&b, &g, &ix) == 0, "bbcounts: out of memory");
  CHECK(lgp_bbcounts_nslots(&b, 0) == 1 && lgp_bbcounts_slots(&b, 0)[0].addr == 0x100 &&
        lgp_bbcounts_slots(&b, 0)[0].count == 5, "symbol 0: one slot (0x100, 5)");
  CHECK(lgp_bbcounts_nslots(&b, 1) == 1 && lgp_bbcounts_slots(&b, 1)[0].count == 3,
        "symbol 1: one slot holding 1 + 2");
  CHECK(lgp_bbcounts_nslots(&b, 2) == LGP_BB_SLOTS, "symbol 2: ten slots, not %zu", lgp_bbcounts_nslots(&b, 2));
  CHECK(lgp_bbcounts_slots(&b, 2)[0].addr == 0x300 && lgp_bbcounts_slots(&b, 2)[0].count == 5,
        "symbol 2: 0x300 counted 1 + 4");
  CHECK(lgp_bbcounts_slots(&b, 2)[9].addr == 0x309, "symbol 2: the tenth slot is 0x309");
  CHECK(b.nslots == 12, "12 slots in all, not %zu", b.nslots);
  lgp_bbcounts_free(&b);
  lgp_symindex_free(&ix);
}

/* }====================================================== */

int main(void) {
  static const size_t sizes[] = {0, 1, 2, 3, 5, 16, 17, 31, 100, 257, 1000, 4099};
  size_t s;
  int pct;
  for (s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (pct = 0; pct <= 100; pct += 25)
      check_msort(sizes[s], pct);
  check_slots();
  return unit_done("source");
}
