/*
** cgraph.c: the call graph (gprof's cg_assemble, cg_dfn and propagation;
** reading arcs is arcs.c), in time linear in symbols + arcs:
**  - propagation reads dense copies of the node fields it needs;
**  - parents and children lists are built once, in gprof's list order
**    (newest arc first);
**  - the depth-first numbering is iterative (no recursion whose depth the
**    input controls) and reproduces gprof's cycle heads, member order and
**    topological numbers, using a stack of cycle roots and union-find in
**    place of gprof's stack scans and member-list walks.
** The orders the reports print in are cgorder.c's.
*/
#include <stdlib.h>
#include <string.h>

#include "model/cgorder.h"
#include "model/cgraph.h"

/* Adjacency lists in gprof's order: for each node, its arcs newest first,
** and the node at each arc's other end (read here in storage order, so
** the walks over lists need not fetch arcs from all over memory). */
static int build_lists(lgp_graph *g, uint32_t **off_out, uint32_t **list_out,
                       uint32_t **other_out, int by_child) {
  size_t n = g->nsyms, k;
  uint32_t *off = lgp_calloc_array(n + 1, sizeof *off);
  uint32_t *list = lgp_alloc_array(g->arcs.narcs, sizeof *list);
  uint32_t *other = lgp_alloc_array(g->arcs.narcs, sizeof *other);
  uint32_t *pos = lgp_alloc_array(n ? n : 1, sizeof *pos);
  if (off == NULL || list == NULL || other == NULL || pos == NULL) {
    free(off);
    free(list);
    free(other);
    free(pos);
    return -1;
  }
  for (k = 0; k < g->arcs.narcs; k++)
    off[(by_child ? g->arcs.arcs[k].child : g->arcs.arcs[k].parent) + 1]++;
  for (k = 0; k < n; k++)
    off[k + 1] += off[k];
  /* fill each node's slice from its end backwards: newest first */
  for (k = 0; k < n; k++)
    pos[k] = off[k + 1];
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    uint32_t at = by_child ? --pos[a->child] : --pos[a->parent];
    list[at] = (uint32_t)k;
    other[at] = by_child ? a->parent : a->child;
  }
  free(pos);
  *off_out = off;
  *list_out = list;
  *other_out = other;
  return 0;
}

/* }====================================================== */

/* {====================================================== numbering */

#define DFN_NAN 0
#define DFN_BUSY (-1)

typedef struct dfn_state {
  uint32_t *stack_node;  /* 1-based positions */
  uint32_t *stack_iter;  /* next arc offset to visit */
  uint32_t *pos;         /* node -> stack position, 0 when off the stack */
  uint32_t *roots;       /* positions of stack nodes that head their group */
  size_t nroots;
  uint32_t *uf;          /* union-find: a node's current cycle head */
  uint32_t *tail;        /* last member of a head's chain */
  int32_t *order;        /* top_order while numbering: 4 bytes a node, not
                            a node's cache line, for the random reads */
  const uint32_t *succ;  /* child node of each child_arcs entry */
  size_t depth;
  int32_t counter;
} dfn_state;

static uint32_t uf_find(uint32_t *uf, uint32_t x) {
  while (uf[x] != x) {
    uf[x] = uf[uf[x]];
    x = uf[x];
  }
  return x;
}

static void dfn_push(lgp_graph *g, dfn_state *d, uint32_t node) {
  d->depth++;
  d->stack_node[d->depth] = node;
  d->stack_iter[d->depth] = g->child_off[node];
  d->pos[node] = (uint32_t)d->depth;
  d->roots[d->nroots++] = (uint32_t)d->depth;
  d->order[node] = DFN_BUSY;
}

/* A busy node was reached again: everything above its group's place on
** the stack joins that group (gprof's find_cycle and its "glomming"). */
static void dfn_cycle(lgp_graph *g, dfn_state *d, uint32_t child) {
  uint32_t at = d->pos[child] ? d->pos[child] : d->pos[uf_find(d->uf, child)];
  uint32_t head, first;
  size_t r;
  if (at == d->depth)
    return; /* calls itself, or its group's head is on top */
  head = uf_find(d->uf, d->stack_node[at]);
  r = d->nroots;
  while (r > 0 && d->roots[r - 1] > at)
    r--;
  for (first = (uint32_t)r; r < d->nroots; r++) { /* bottom to top */
    uint32_t top = d->stack_node[d->roots[r]];
    g->chain[d->tail[head]] = top;
    d->uf[top] = head;
    d->tail[head] = d->tail[top];
  }
  d->nroots = first;
}

static void dfn_pop(lgp_graph *g, dfn_state *d) {
  uint32_t node = d->stack_node[d->depth];
  if (uf_find(d->uf, node) == node) {
    uint32_t m;
    d->counter++;
    for (m = node; m != LGP_NONE; m = g->chain[m])
      d->order[m] = d->counter;
    d->nroots--;
  }
  d->pos[node] = 0;
  d->depth--;
}

static void dfn_visit(lgp_graph *g, dfn_state *d, uint32_t start) {
  dfn_push(g, d, start);
  while (d->depth > 0) {
    uint32_t node = d->stack_node[d->depth];
    uint32_t j = d->stack_iter[d->depth], end = g->child_off[node + 1];
    /* the children in order, up to the first one not yet numbered; the
       states of the next few are fetched ahead (they are anywhere) */
    for (; j < end; j++) {
      uint32_t child = d->succ[j];
      int32_t t;
      if (j + 4 < end)
        PREFETCH(&d->order[d->succ[j + 4]]);
      if (j + 2 < end) /* the list the DFS reads next if that child is new */
        PREFETCH(&d->succ[g->child_off[d->succ[j + 2]]]);
      t = d->order[child];
      if (t == DFN_NAN)
        break;
      if (t == DFN_BUSY)
        dfn_cycle(g, d, child);
    }
    if (j < end) {
      d->stack_iter[d->depth] = j + 1;
      dfn_push(g, d, d->succ[j]);
    } else {
      d->stack_iter[d->depth] = j;
      dfn_pop(g, d);
    }
  }
}

static int number_nodes(lgp_graph *g, int32_t *order) {
  size_t n = g->nsyms, i;
  dfn_state d;
  int rc = -1;
  /* the six work arrays in one block: fresh memory is paid for in page
     faults, far fewer when one big block goes on 2 MB pages */
  uint32_t *block = lgp_alloc_array(n + 1, 6 * sizeof *block);
  memset(&d, 0, sizeof d);
  d.order = order;
  d.succ = g->child_succ;
  g->chain = lgp_alloc_array(n ? n : 1, sizeof *g->chain);
  g->cyc_of = lgp_alloc_array(n ? n : 1, sizeof *g->cyc_of);
  if (block == NULL || !g->chain || !g->cyc_of)
    goto out;
  d.stack_node = block;
  d.stack_iter = d.stack_node + (n + 1);
  d.pos = d.stack_iter + (n + 1);
  d.roots = d.pos + (n + 1);
  d.uf = d.roots + (n + 1);
  d.tail = d.uf + (n + 1);
  memset(d.pos, 0, (n + 1) * sizeof *d.pos);
  for (i = 0; i < n; i++)
    g->chain[i] = LGP_NONE;
  for (i = 0; i < n; i++)
    d.uf[i] = d.tail[i] = (uint32_t)i;
  for (i = 0; i < n; i++)
    if (d.order[i] == DFN_NAN)
      dfn_visit(g, &d, (uint32_t)i);
  for (i = 0; i < n; i++) {
    g->cyc_of[i] = g->nodes[i].cyc_head = uf_find(d.uf, (uint32_t)i);
    g->nodes[i].cyc_next = g->chain[i];
    g->nodes[i].top_order = d.order[i];
  }
  rc = 0;
out:
  free(block);
  return rc;
}

/* Cycles are numbered in address order of their heads; each gets a node.
** The calls into and within cycles are integer sums, taken in one pass
** over the arcs in storage order. */
static int link_cycles(lgp_graph *g) {
  size_t n = g->nsyms, i, k, c = 0;
  lgp_node *nodes;
  uint64_t *member;
  for (i = 0; i < n; i++)
    if (g->cyc_of[i] == i && g->chain[i] != LGP_NONE)
      c++;
  g->ncycles = c;
  if (c == 0)
    return 0;
  member = lgp_calloc_array(n, sizeof *member);
  nodes = member ? realloc(g->nodes, (n + c) * sizeof *nodes) : NULL;
  if (nodes == NULL) {
    free(member);
    return -1;
  }
  g->nodes = nodes;
  memset(nodes + n, 0, c * sizeof *nodes);
  c = 0;
  for (i = 0; i < n; i++) {
    uint32_t cyc, m;
    if (g->cyc_of[i] != i || g->chain[i] == LGP_NONE)
      continue;
    cyc = (uint32_t)(n + c++);
    nodes[cyc].is_cycle = 1;
    nodes[cyc].cyc_num = (int32_t)c;
    nodes[cyc].cyc_head = cyc;
    nodes[cyc].cyc_next = (uint32_t)i;
    nodes[cyc].print_flag = 1;
    for (m = (uint32_t)i; m != LGP_NONE; m = g->chain[m]) {
      nodes[m].cyc_num = (int32_t)c;
      nodes[m].cyc_head = g->cyc_of[m] = cyc;
    }
  }
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *arc = &g->arcs.arcs[k];
    uint32_t cyc = g->cyc_of[arc->child];
    if (cyc < n || arc->parent == arc->child)
      continue;
    if (g->cyc_of[arc->parent] == cyc) {
      nodes[cyc].self_calls += arc->count;
      member[arc->child] += arc->count;
    } else {
      nodes[cyc].ncalls += arc->count;
    }
  }
  for (i = 0; i < n; i++)
    if (g->cyc_of[i] >= n)
      nodes[i].member_calls = member[i];
  free(member);
  return 0;
}

/* Symbols by top_order, ties in address order (a stable counting sort). */
static int topo_sort(lgp_graph *g, const int32_t *order) {
  size_t n = g->nsyms, i;
  int32_t maxo = 0;
  uint32_t *count;
  for (i = 0; i < n; i++)
    if (order[i] > maxo)
      maxo = order[i];
  count = lgp_calloc_array((size_t)maxo + 2, sizeof *count);
  g->top_sorted = lgp_alloc_array(n ? n : 1, sizeof *g->top_sorted);
  if (count == NULL || g->top_sorted == NULL) {
    free(count);
    return -1;
  }
  for (i = 0; i < n; i++)
    count[order[i] + 1]++;
  for (i = 1; i < (size_t)maxo + 2; i++)
    count[i] += count[i - 1];
  for (i = 0; i < n; i++)
    g->top_sorted[count[order[i]]++] = (uint32_t)i;
  free(count);
  return 0;
}

/* }====================================================== */

/* {====================================================== propagation */

/* Dense copies of the node fields propagation reads in no useful order
** (symbols, then cycles), written back to the nodes in address order:
** a few bytes per random access instead of a 128-byte node. */
typedef struct dense {
  int32_t *topo;           /* symbols: top_order */
  uint64_t *calls, *selfc; /* ncalls; self_calls (symbols) */
  double *fract, *hist, *ctime, *pchild; /* prop_fract, hist_time, child_time, prop_child */
  uint16_t *spec;          /* symbols */
  uint8_t *flag;           /* print_flag */
  void *block;             /* fract .. flag, one allocation (fewer page faults) */
} dense;

static void dense_free(dense *d) {
  free(d->topo);
  free(d->calls);
  free(d->selfc);
  free(d->block);
}

/* After link_cycles: the rest of the copies, over symbols and cycles. */
static int dense_load(lgp_graph *g, dense *d) {
  size_t n = g->nsyms, total = n + g->ncycles, t = total ? total : 1, i;
  uint64_t *calls = realloc(d->calls, t * sizeof *calls);
  if (calls == NULL)
    return -1;
  d->calls = calls;
  d->block = lgp_alloc_array(t, 4 * sizeof(double) + sizeof(uint16_t) + sizeof(uint8_t));
  if (d->block == NULL)
    return -1;
  d->fract = d->block; /* the widest first: each array stays aligned */
  d->hist = d->fract + t;
  d->ctime = d->hist + t;
  d->pchild = d->ctime + t;
  d->spec = (uint16_t *)(d->pchild + t);
  d->flag = (uint8_t *)(d->spec + t);
  for (i = 0; i < total; i++) {
    const lgp_node *nd = &g->nodes[i];
    if (i >= n)
      d->calls[i] = nd->ncalls;
    else
      d->spec[i] = nd->spec;
    d->fract[i] = nd->prop_fract;
    d->hist[i] = nd->hist_time;
    d->ctime[i] = nd->child_time;
    d->pchild[i] = nd->prop_child;
    d->flag[i] = nd->print_flag;
  }
  return 0;
}

static void dense_store(lgp_graph *g, const dense *d) {
  size_t n = g->nsyms, total = n + g->ncycles, i;
  for (i = 0; i < total; i++) {
    lgp_node *nd = &g->nodes[i];
    nd->print_flag = d->flag[i];
    nd->prop_fract = d->fract[i];
    nd->hist_time = d->hist[i];
    nd->prop_self = d->hist[i] * d->fract[i];
    nd->child_time = d->ctime[i];
    nd->prop_child = d->pchild[i];
  }
}

/* gprof's inherit_flags: print flag and time fraction from the parents
** (for a cycle, from the parents outside it, copied to every member). */
static void inherit_flags(lgp_graph *g, dense *d, uint32_t s) {
  uint32_t head = g->cyc_of[s], m;
  uint32_t j, end;
  if (head == s) {
    d->flag[s] = 0;
    d->fract[s] = 0.0;
    for (j = g->parent_off[s], end = g->parent_off[s + 1]; j < end; j++) {
      uint32_t par = g->parent_pred[j];
      if (par == s)
        continue;
      d->flag[s] |= d->flag[par];
      if (d->calls[s] != 0)
        d->fract[s] += d->fract[par] *
                       ((double)g->arcs.arcs[g->parent_arcs[j]].count / (double)d->calls[s]);
    }
    return;
  }
  d->flag[head] = 0;
  d->fract[head] = 0.0;
  for (m = g->nodes[head].cyc_next; m != LGP_NONE; m = g->chain[m])
    for (j = g->parent_off[m], end = g->parent_off[m + 1]; j < end; j++) {
      uint32_t par = g->parent_pred[j];
      if (par == m || g->cyc_of[par] == head)
        continue;
      d->flag[head] |= d->flag[par];
      if (d->calls[head] != 0)
        d->fract[head] += d->fract[par] *
                          ((double)g->arcs.arcs[g->parent_arcs[j]].count / (double)d->calls[head]);
    }
  for (m = g->nodes[head].cyc_next; m != LGP_NONE; m = g->chain[m]) {
    d->flag[m] = d->flag[head];
    d->fract[m] = d->fract[head];
  }
}

static void propagate_flags(lgp_graph *g, dense *d, const lgp_specs *specs) {
  uint32_t old_head = LGP_NONE;
  size_t i = g->nsyms;
  g->print_time = 0;
  while (i-- > 0) {
    uint32_t s = g->top_sorted[i];
    uint16_t bits = d->spec[s];
    int in_incl_graph = (bits >> LGP_INCL_GRAPH) & 1, in_excl_graph = (bits >> LGP_EXCL_GRAPH) & 1;
    int in_incl_time = (bits >> LGP_INCL_TIME) & 1, in_excl_time = (bits >> LGP_EXCL_TIME) & 1;
    if (g->cyc_of[s] != old_head) {
      old_head = g->cyc_of[s];
      inherit_flags(g, d, s);
    }
    if (!d->flag[s]) {
      if (in_incl_graph || (!specs->table_used[LGP_INCL_GRAPH] && !in_excl_graph))
        d->flag[s] = 1;
    } else if (!in_incl_graph && in_excl_graph) {
      d->flag[s] = 0;
    }
    if (d->fract[s] == 0.0) {
      if (in_incl_time || (!specs->table_used[LGP_INCL_TIME] && !in_excl_time))
        d->fract[s] = 1.0;
    } else if (!in_incl_time && in_excl_time) {
      d->fract[s] = 0.0;
    }
    g->print_time += d->hist[s] * d->fract[s];
  }
}

static void cycle_time(lgp_graph *g, dense *d) {
  size_t c;
  for (c = g->nsyms; c < g->nsyms + g->ncycles; c++) {
    uint32_t m;
    for (m = g->nodes[c].cyc_next; m != LGP_NONE; m = g->chain[m])
      if (d->fract[m] != 0.0)
        d->hist[c] += d->hist[m];
  }
}

static void propagate_time(lgp_graph *g, dense *d) {
  size_t i;
  for (i = 0; i < g->nsyms; i++) {
    uint32_t s = g->top_sorted[i], hs = g->cyc_of[s], j, end;
    double pf = d->fract[s];
    if (pf == 0.0)
      continue;
    for (j = g->child_off[s], end = g->child_off[s + 1]; j < end; j++) {
      uint32_t c = g->child_succ[j], hc;
      lgp_arc *arc;
      double share;
      if (c == s || d->fract[c] == 0.0)
        continue;
      hc = g->cyc_of[c];
      if (hc != c) {
        if (hc == hs)
          continue; /* inside the cycle: no propagation */
        c = hc;
      } else if (d->topo[s] <= d->topo[c]) {
        continue;   /* gprof: "toporder botches" */
      }
      arc = &g->arcs.arcs[g->child_arcs[j]];
      if (arc->count == 0 || d->calls[c] == 0)
        continue;
      arc->time = d->hist[c] * ((double)arc->count / (double)d->calls[c]);
      arc->child_time = d->ctime[c] * ((double)arc->count / (double)d->calls[c]);
      share = arc->time + arc->child_time;
      d->ctime[s] += share;
      d->pchild[s] += pf * share;
      arc->time *= pf;
      arc->child_time *= pf;
      if (hs != s) {
        d->ctime[hs] += share;
        d->pchild[hs] += pf * share;
      }
    }
  }
}

/* }====================================================== */


/* Calls into each symbol, and self calls, summed over the arcs in
** storage order (integer sums: the order does not matter). */
static int count_calls(lgp_graph *g, dense *d) {
  size_t n = g->nsyms, k;
  d->calls = lgp_calloc_array(n ? n : 1, sizeof *d->calls);
  d->selfc = lgp_calloc_array(n ? n : 1, sizeof *d->selfc);
  if (d->calls == NULL || d->selfc == NULL)
    return -1;
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    if (a->parent == a->child) /* one self arc per node at most */
      d->selfc[a->child] = a->count;
    else
      d->calls[a->child] += a->count;
  }
  for (k = 0; k < n; k++) {
    g->nodes[k].ncalls = d->calls[k];
    g->nodes[k].self_calls = d->selfc[k];
  }
  return 0;
}

/* Calls into each symbol and self calls, straight into the nodes (the
** time stage counts them again into its dense copies); seals the arc
** table. */
static void calls_stage(lgp_graph *g) {
  size_t n = g->nsyms, k;
  lgp_arctab_seal(&g->arcs);
  for (k = 0; k < n; k++)
    g->nodes[k].ncalls = g->nodes[k].self_calls = 0;
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    if (a->parent == a->child) /* one self arc per node at most */
      g->nodes[a->child].self_calls = a->count;
    else
      g->nodes[a->child].ncalls += a->count;
  }
}

/* Adjacency lists, cycles, the time tables' flags and the propagation. */
static int time_stage(lgp_graph *g, const lgp_specs *specs) {
  size_t n = g->nsyms;
  dense d;
  memset(&d, 0, sizeof d);
  d.topo = lgp_calloc_array(n ? n : 1, sizeof *d.topo);
  if (d.topo == NULL || count_calls(g, &d) != 0 ||
      (g->name_rank == NULL && lgp_graph_rank_names(g) != 0) ||
      build_lists(g, &g->child_off, &g->child_arcs, &g->child_succ, 0) != 0 ||
      build_lists(g, &g->parent_off, &g->parent_arcs, &g->parent_pred, 1) != 0 ||
      number_nodes(g, d.topo) != 0 || link_cycles(g) != 0 || topo_sort(g, d.topo) != 0 ||
      dense_load(g, &d) != 0) {
    dense_free(&d);
    return -1;
  }
  propagate_flags(g, &d, specs);
  cycle_time(g, &d);
  propagate_time(g, &d);
  dense_store(g, &d);
  dense_free(&d);
  return 0;
}

void lgp_graph_init(lgp_graph *g, lgp_node *nodes, size_t n) {
  memset(g, 0, sizeof *g);
  g->nodes = nodes;
  g->nsyms = n;
  lgp_arctab_init(&g->arcs, n);
}

void lgp_graph_free(lgp_graph *g) {
  free(g->nodes);
  lgp_arctab_free(&g->arcs);
  free(g->child_off);
  free(g->child_arcs);
  free(g->child_succ);
  free(g->parent_off);
  free(g->parent_arcs);
  free(g->parent_pred);
  free(g->top_sorted);
  free(g->time_sorted);
  free(g->flat_sorted);
  free(g->name_rank);
  free(g->chain);
  free(g->cyc_of);
  memset(g, 0, sizeof *g);
}

int lgp_graph_analyse(lgp_graph *g, const lgp_specs *specs, unsigned need, lgp_err *err) {
  if (need & LGP_GRAPH_INDEX)
    need |= LGP_GRAPH_TIME;
  if (need & (LGP_GRAPH_TIME | LGP_GRAPH_FLAT))
    need |= LGP_GRAPH_CALLS;
  need &= ~g->analysed;
  if (need & LGP_GRAPH_CALLS)
    calls_stage(g);
  g->analysed |= need & LGP_GRAPH_CALLS;
  if ((need & LGP_GRAPH_TIME) && time_stage(g, specs) != 0)
    return lgp_fail(err, NULL, "out of memory");
  g->analysed |= need & LGP_GRAPH_TIME;
  if ((need & LGP_GRAPH_INDEX) && lgp_graph_index_order(g) != 0)
    return lgp_fail(err, NULL, "out of memory");
  g->analysed |= need & LGP_GRAPH_INDEX;
  if ((need & LGP_GRAPH_FLAT) && lgp_graph_flat_order(g) != 0)
    return lgp_fail(err, NULL, "out of memory");
  g->analysed |= need & LGP_GRAPH_FLAT;
  return 0;
}

/* A copy of n elements of src into *dst (NULL stays NULL); 0 or -1. */
static int dup_array(void *dst, const void *src, size_t n, size_t size) {
  void *d = NULL;
  if (src != NULL) {
    d = lgp_alloc_array(n ? n : 1, size);
    if (d == NULL)
      return -1;
    memcpy(d, src, n * size);
  }
  memcpy(dst, &d, sizeof d);
  return 0;
}

int lgp_graph_copy(lgp_graph *dst, const lgp_graph *src) {
  size_t n = src->nsyms, total = n + src->ncycles, na = src->arcs.narcs;
  int rc = 0;
  memset(dst, 0, sizeof *dst);
  dst->nsyms = n;
  dst->ncycles = src->ncycles;
  dst->total_time = src->total_time;
  dst->print_time = src->print_time;
  dst->analysed = src->analysed;
  lgp_arctab_init(&dst->arcs, n);
  dst->arcs.mode = LGP_ARCS_SEALED;
  dst->arcs.narcs = dst->arcs.cap = na;
  rc |= dup_array(&dst->nodes, src->nodes, total, sizeof *src->nodes);
  rc |= dup_array(&dst->arcs.arcs, src->arcs.arcs, na, sizeof *src->arcs.arcs);
  rc |= dup_array(&dst->child_off, src->child_off, n + 1, sizeof *src->child_off);
  rc |= dup_array(&dst->child_arcs, src->child_arcs, na, sizeof *src->child_arcs);
  rc |= dup_array(&dst->child_succ, src->child_succ, na, sizeof *src->child_succ);
  rc |= dup_array(&dst->parent_off, src->parent_off, n + 1, sizeof *src->parent_off);
  rc |= dup_array(&dst->parent_arcs, src->parent_arcs, na, sizeof *src->parent_arcs);
  rc |= dup_array(&dst->parent_pred, src->parent_pred, na, sizeof *src->parent_pred);
  rc |= dup_array(&dst->top_sorted, src->top_sorted, n, sizeof *src->top_sorted);
  rc |= dup_array(&dst->time_sorted, src->time_sorted, total, sizeof *src->time_sorted);
  rc |= dup_array(&dst->flat_sorted, src->flat_sorted, n, sizeof *src->flat_sorted);
  rc |= dup_array(&dst->name_rank, src->name_rank, n, sizeof *src->name_rank);
  rc |= dup_array(&dst->chain, src->chain, n, sizeof *src->chain);
  rc |= dup_array(&dst->cyc_of, src->cyc_of, n, sizeof *src->cyc_of);
  if (rc != 0) {
    lgp_graph_free(dst);
    return -1;
  }
  return 0;
}

size_t lgp_graph_bytes(const lgp_graph *g) {
  size_t n = g->nsyms, total = n + g->ncycles, na = g->arcs.narcs;
  return total * (sizeof *g->nodes + 2 * sizeof *g->time_sorted) +
         na * (sizeof *g->arcs.arcs + 6 * sizeof *g->child_arcs) +
         n * (6 * sizeof *g->child_off) + g->arcs.by_ends.nslots * sizeof *g->arcs.by_ends.slots;
}
