/*
** execcount.c: gprof's execution-count report (-C, and the default when a
** profile has neither histogram nor arcs).
*/
#include <stdlib.h>
#include <string.h>

#include "write/execcount.h"

int lgp_execcount_msort(uint32_t *v, size_t n, lgp_cmp_fn cmp, const void *ctx) {
  /* the recursion of a top-down merge sort as an explicit stack: each frame
     is a range and whether its halves are sorted yet; a level keeps at most two
     frames (a range waiting to merge, its right half waiting to sort) and halving bounds the
     depth by the bits of size_t */
  struct frame { size_t lo, n; int merged; } st[2 * 8 * sizeof(size_t) + 2];
  uint32_t *tmp;
  int top = 0;
  if (n < 2)
    return 0;
  tmp = lgp_alloc_array(n, sizeof *tmp);
  if (tmp == NULL)
    return -1;
  st[0].lo = 0;
  st[0].n = n;
  st[0].merged = 0;
  while (top >= 0) {
    struct frame *f = &st[top];
    size_t n1 = f->n / 2, lo = f->lo;
    if (f->n < 2) {
      top--;
    } else if (!f->merged) { /* sort the halves first: right pushed first */
      f->merged = 1;
      st[top + 1].lo = lo + n1;
      st[top + 1].n = f->n - n1;
      st[top + 1].merged = 0;
      st[top + 2].lo = lo;
      st[top + 2].n = n1;
      st[top + 2].merged = 0;
      top += 2;
    } else {
      size_t i = lo, j = lo + n1, end = lo + f->n, k = 0;
      while (i < lo + n1 && j < end)
        tmp[k++] = cmp(ctx, v[i], v[j]) <= 0 ? v[i++] : v[j++];
      while (i < lo + n1)
        tmp[k++] = v[i++];
      /* the rest of the right half is already in place */
      memcpy(v + lo, tmp, k * sizeof *tmp);
      top--;
    }
  }
  free(tmp);
  return 0;
}

/* gprof's order: file path, then line, when both symbols have a file;
** otherwise, or on a tie, the address. Not a total order. */
static int cmp_exec(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_profile *p = ctx;
  const char *fa = lgp_node_file(p, a), *fb = lgp_node_file(p, b);
  lgp_addr xa = p->graph.nodes[a].addr, xb = p->graph.nodes[b].addr;
  if (fa != NULL && fb != NULL) {
    int r = strcmp(fa, fb);
    int la = lgp_node_line(p, a), lb = lgp_node_line(p, b);
    if (r != 0)
      return r;
    if (la != lb)
      return la < lb ? -1 : 1;
  }
  return xa < xb ? -1 : xa > xb;
}

static void exec_row(lgp_out *o, const char *file, int line, const char *name, lgp_addr addr,
                     uint64_t count) {
  lgp_out_printf(o, "%s:%d: (%s:0x%llx) ", file != NULL ? file : "<unknown>",
                 file != NULL ? line : 0, name, (unsigned long long)addr);
  lgp_out_u64(o, count, 0, 0);
  lgp_out_str(o, " executions\n");
}

int lgp_report_exec_counts(lgp_out *o, const lgp_profile *p, const lgp_bbcounts *bb,
                           int zeros, int *first_output) {
  size_t nsyms = p->graph.nsyms, n = 0, i, k;
  uint32_t *order;
  if (*first_output)
    *first_output = 0;
  else
    lgp_out_str(o, "\f\n");
  order = lgp_alloc_array(nsyms ? nsyms : 1, sizeof *order);
  if (order == NULL)
    return -1;
  for (i = 0; i < nsyms; i++)
    if (lgp_specs_in_table(p->specs, &p->graph.nodes[i], LGP_INCL_EXEC, LGP_EXCL_EXEC))
      order[n++] = (uint32_t)i;
  if (lgp_execcount_msort(order, n, cmp_exec, p) != 0) {
    free(order);
    return -1;
  }
  for (i = 0; i < n; i++) {
    uint32_t s = order[i];
    const lgp_node *nd = &p->graph.nodes[s];
    const char *file = lgp_node_file(p, s);
    int line = lgp_node_line(p, s);
    size_t nb = lgp_bbcounts_nslots(bb, s);
    if (nd->ncalls > 0 || zeros)
      exec_row(o, file, line, nd->name, nd->addr, nd->ncalls);
    for (k = 0; k < nb; k++) {
      const lgp_bbcount *blk = &lgp_bbcounts_slots(bb, s)[k];
      if (blk->count > 0 || zeros)
        exec_row(o, file, line, nd->name, blk->addr, blk->count);
    }
  }
  free(order);
  return 0;
}
