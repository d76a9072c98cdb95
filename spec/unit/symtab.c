/*
** symtab.c: lgp_symindex_lookup (csrc/core/model/symtab.c), the address ->
** routine lookup over the bucket index, against a plain search: a routine
** runs to the next one's start, the last one to its end_addr.
*/
#include <stdlib.h>
#include <string.h>

#include "model/symtab.h"
#include "unit.h"

/* the last routine starting at or below a, or LGP_NONE */
typedef struct table { lgp_node *nodes; size_t nsyms; lgp_symindex ix; } table;

static uint32_t reference(const table *p, lgp_addr a) {
  size_t k = p->nsyms;
  while (k > 0 && p->nodes[k - 1].addr > a)
    k--;
  if (k == 0 || (k == p->nsyms && a > p->nodes[k - 1].end_addr))
    return LGP_NONE;
  return (uint32_t)(k - 1);
}

static void check(const table *p, lgp_addr a, const char *layout) {
  uint32_t got = lgp_symindex_lookup(&p->ix, a), want = reference(p, a);
  CHECK(got == want, "%s: lookup of 0x%llx gave %ld, expected %ld", layout, (unsigned long long)a,
        got == LGP_NONE ? -1L : (long)got, want == LGP_NONE ? -1L : (long)want);
}

/* n routines from base, gaps drawn by gap(k); every start, end and
** neighbour looked up, and random addresses around the table */
static void layout(const char *name, size_t n, lgp_addr base, lgp_addr (*gap)(size_t)) {
  table p;
  size_t k;
  lgp_addr a = base;
  memset(&p, 0, sizeof p);
  p.nsyms = n;
  p.nodes = calloc(n ? n : 1, sizeof *p.nodes);
  if (p.nodes == NULL)
    abort();
  for (k = 0; k < n; k++) {
    p.nodes[k].addr = a;
    p.nodes[k].is_func = 1;
    if (k > 0)
      p.nodes[k - 1].end_addr = a - 1;
    a += gap(k);
  }
  if (n > 0)
    p.nodes[n - 1].end_addr = p.nodes[n - 1].addr + 0x40;
  CHECK(lgp_symindex_build(&p.ix, p.nodes, n) == 0, "%s: lgp_symindex_build failed", name);
  check(&p, 0, name);
  check(&p, UINT64_MAX, name);
  for (k = 0; k < n; k++) {
    lgp_addr s = p.nodes[k].addr, e = p.nodes[k].end_addr;
    check(&p, s, name);
    check(&p, s - 1, name);
    check(&p, s + 1, name);
    check(&p, e, name);
    check(&p, e + 1, name);
    check(&p, s + (e - s) / 2, name);
  }
  for (k = 0; k < 20000 && n > 0; k++) {
    lgp_addr lo = p.nodes[0].addr, hi = p.nodes[n - 1].end_addr;
    check(&p, lo - 0x1000 + unit_rand() % (hi - lo + 0x2001), name);
  }
  free(p.nodes);
  lgp_symindex_free(&p.ix);
}

static lgp_addr gap_one(size_t k) { (void)k; return 1; }
static lgp_addr gap_small(size_t k) { (void)k; return 1 + unit_rand() % 64; }
static lgp_addr gap_mixed(size_t k) { return k % 10 == 9 ? 0x100000 : 16 + unit_rand() % 4096; }
static lgp_addr gap_huge(size_t k) { return k % 3 == 2 ? (lgp_addr)1 << 40 : 0x10; }
static lgp_addr gap_wild(size_t k) { (void)k; return 1 + (unit_rand() >> (unit_rand() % 64)) % ((lgp_addr)1 << 44); }

int main(void) {
  layout("empty", 0, 0x401000, gap_one);
  layout("one routine", 1, 0x401000, gap_one);
  layout("two routines", 2, 0x401000, gap_small);
  layout("dense, a byte each", 1000, 0x1000, gap_one);
  layout("small gaps", 5000, 0x401000, gap_small);
  layout("clusters far apart", 3000, 0x400000, gap_mixed);
  layout("gaps over 2^32", 300, 0x1000, gap_huge);
  layout("gaps of any size", 200, 0x10, gap_wild);
  layout("at the top of the address space", 500, UINT64_MAX - 0x100000, gap_small);
  layout("from address 0", 100, 0, gap_small);
  return unit_done("symtab");
}
