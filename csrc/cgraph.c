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
*/
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* Adjacency lists in gprof's order: for each node, its arcs newest first,
** and the node at each arc's other end (read here in storage order, so
** the walks over lists need not fetch arcs from all over memory). */
static int build_lists(lgp_profile *p, uint32_t **off_out, uint32_t **list_out,
                       uint32_t **other_out, int by_child) {
  size_t n = p->nsyms, k;
  uint32_t *off = lgp_calloc_array(n + 1, sizeof *off);
  uint32_t *list = lgp_alloc_array(p->narcs, sizeof *list);
  uint32_t *other = lgp_alloc_array(p->narcs, sizeof *other);
  uint32_t *pos = lgp_alloc_array(n ? n : 1, sizeof *pos);
  if (off == NULL || list == NULL || other == NULL || pos == NULL) {
    free(off);
    free(list);
    free(other);
    free(pos);
    return -1;
  }
  for (k = 0; k < p->narcs; k++)
    off[(by_child ? p->arcs[k].child : p->arcs[k].parent) + 1]++;
  for (k = 0; k < n; k++)
    off[k + 1] += off[k];
  /* fill each node's slice from its end backwards: newest first */
  for (k = 0; k < n; k++)
    pos[k] = off[k + 1];
  for (k = 0; k < p->narcs; k++) {
    const lgp_arc *a = &p->arcs[k];
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

static void dfn_push(lgp_profile *p, dfn_state *d, uint32_t node) {
  d->depth++;
  d->stack_node[d->depth] = node;
  d->stack_iter[d->depth] = p->child_off[node];
  d->pos[node] = (uint32_t)d->depth;
  d->roots[d->nroots++] = (uint32_t)d->depth;
  d->order[node] = DFN_BUSY;
}

/* A busy node was reached again: everything above its group's place on
** the stack joins that group (gprof's find_cycle and its "glomming"). */
static void dfn_cycle(lgp_profile *p, dfn_state *d, uint32_t child) {
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
    uint32_t g = d->stack_node[d->roots[r]];
    p->chain[d->tail[head]] = g;
    d->uf[g] = head;
    d->tail[head] = d->tail[g];
  }
  d->nroots = first;
}

static void dfn_pop(lgp_profile *p, dfn_state *d) {
  uint32_t node = d->stack_node[d->depth];
  if (uf_find(d->uf, node) == node) {
    uint32_t m;
    d->counter++;
    for (m = node; m != LGP_NONE; m = p->chain[m])
      d->order[m] = d->counter;
    d->nroots--;
  }
  d->pos[node] = 0;
  d->depth--;
}

static void dfn_visit(lgp_profile *p, dfn_state *d, uint32_t start) {
  dfn_push(p, d, start);
  while (d->depth > 0) {
    uint32_t node = d->stack_node[d->depth];
    uint32_t j = d->stack_iter[d->depth], end = p->child_off[node + 1];
    /* the children in order, up to the first one not yet numbered; the
       states of the next few are fetched ahead (they are anywhere) */
    for (; j < end; j++) {
      uint32_t child = d->succ[j];
      int32_t t;
      if (j + 4 < end)
        PREFETCH(&d->order[d->succ[j + 4]]);
      if (j + 2 < end) /* the list the DFS reads next if that child is new */
        PREFETCH(&d->succ[p->child_off[d->succ[j + 2]]]);
      t = d->order[child];
      if (t == DFN_NAN)
        break;
      if (t == DFN_BUSY)
        dfn_cycle(p, d, child);
    }
    if (j < end) {
      d->stack_iter[d->depth] = j + 1;
      dfn_push(p, d, d->succ[j]);
    } else {
      d->stack_iter[d->depth] = j;
      dfn_pop(p, d);
    }
  }
}

static int number_nodes(lgp_profile *p, int32_t *order) {
  size_t n = p->nsyms, i;
  dfn_state d;
  int rc = -1;
  memset(&d, 0, sizeof d);
  d.stack_node = lgp_alloc_array(n + 1, sizeof *d.stack_node);
  d.stack_iter = lgp_alloc_array(n + 1, sizeof *d.stack_iter);
  d.pos = lgp_calloc_array(n, sizeof *d.pos);
  d.roots = lgp_alloc_array(n + 1, sizeof *d.roots);
  d.uf = lgp_alloc_array(n, sizeof *d.uf);
  d.tail = lgp_alloc_array(n, sizeof *d.tail);
  d.order = order;
  d.succ = p->child_succ;
  p->chain = lgp_alloc_array(n ? n : 1, sizeof *p->chain);
  p->cyc_of = lgp_alloc_array(n ? n : 1, sizeof *p->cyc_of);
  if (!d.stack_node || !d.stack_iter || !d.pos || !d.roots || !d.uf || !d.tail || !p->chain ||
      !p->cyc_of)
    goto out;
  for (i = 0; i < n; i++)
    p->chain[i] = LGP_NONE;
  for (i = 0; i < n; i++)
    d.uf[i] = d.tail[i] = (uint32_t)i;
  for (i = 0; i < n; i++)
    if (d.order[i] == DFN_NAN)
      dfn_visit(p, &d, (uint32_t)i);
  for (i = 0; i < n; i++) {
    p->cyc_of[i] = p->nodes[i].cyc_head = uf_find(d.uf, (uint32_t)i);
    p->nodes[i].cyc_next = p->chain[i];
    p->nodes[i].top_order = d.order[i];
  }
  rc = 0;
out:
  free(d.stack_node);
  free(d.stack_iter);
  free(d.pos);
  free(d.roots);
  free(d.uf);
  free(d.tail);
  return rc;
}

/* Cycles are numbered in address order of their heads; each gets a node.
** The calls into and within cycles are integer sums, taken in one pass
** over the arcs in storage order. */
static int link_cycles(lgp_profile *p) {
  size_t n = p->nsyms, i, k, c = 0;
  lgp_node *nodes;
  uint64_t *member;
  for (i = 0; i < n; i++)
    if (p->cyc_of[i] == i && p->chain[i] != LGP_NONE)
      c++;
  p->ncycles = c;
  if (c == 0)
    return 0;
  member = lgp_calloc_array(n, sizeof *member);
  nodes = member ? realloc(p->nodes, (n + c) * sizeof *nodes) : NULL;
  if (nodes == NULL) {
    free(member);
    return -1;
  }
  p->nodes = nodes;
  memset(nodes + n, 0, c * sizeof *nodes);
  c = 0;
  for (i = 0; i < n; i++) {
    uint32_t cyc, m;
    if (p->cyc_of[i] != i || p->chain[i] == LGP_NONE)
      continue;
    cyc = (uint32_t)(n + c++);
    nodes[cyc].is_cycle = 1;
    nodes[cyc].cyc_num = (int32_t)c;
    nodes[cyc].cyc_head = cyc;
    nodes[cyc].cyc_next = (uint32_t)i;
    nodes[cyc].print_flag = 1;
    nodes[cyc].file = -1;
    for (m = (uint32_t)i; m != LGP_NONE; m = p->chain[m]) {
      nodes[m].cyc_num = (int32_t)c;
      nodes[m].cyc_head = p->cyc_of[m] = cyc;
    }
  }
  for (k = 0; k < p->narcs; k++) {
    const lgp_arc *arc = &p->arcs[k];
    uint32_t cyc = p->cyc_of[arc->child];
    if (cyc < n || arc->parent == arc->child)
      continue;
    if (p->cyc_of[arc->parent] == cyc) {
      nodes[cyc].self_calls += arc->count;
      member[arc->child] += arc->count;
    } else {
      nodes[cyc].ncalls += arc->count;
    }
  }
  for (i = 0; i < n; i++)
    if (p->cyc_of[i] >= n)
      nodes[i].member_calls = member[i];
  free(member);
  return 0;
}

/* Symbols by top_order, ties in address order (a stable counting sort). */
static int topo_sort(lgp_profile *p, const int32_t *order) {
  size_t n = p->nsyms, i;
  int32_t maxo = 0;
  uint32_t *count;
  for (i = 0; i < n; i++)
    if (order[i] > maxo)
      maxo = order[i];
  count = lgp_calloc_array((size_t)maxo + 2, sizeof *count);
  p->top_sorted = lgp_alloc_array(n ? n : 1, sizeof *p->top_sorted);
  if (count == NULL || p->top_sorted == NULL) {
    free(count);
    return -1;
  }
  for (i = 0; i < n; i++)
    count[order[i] + 1]++;
  for (i = 1; i < (size_t)maxo + 2; i++)
    count[i] += count[i - 1];
  for (i = 0; i < n; i++)
    p->top_sorted[count[order[i]]++] = (uint32_t)i;
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
  uint8_t *flag;           /* print_flag */
  uint16_t *spec;          /* symbols */
} dense;

static void dense_free(dense *d) {
  free(d->topo);
  free(d->calls);
  free(d->selfc);
  free(d->fract);
  free(d->hist);
  free(d->ctime);
  free(d->pchild);
  free(d->flag);
  free(d->spec);
}

/* After link_cycles: the rest of the copies, over symbols and cycles. */
static int dense_load(lgp_profile *p, dense *d) {
  size_t n = p->nsyms, total = n + p->ncycles, i;
  uint64_t *calls = realloc(d->calls, (total ? total : 1) * sizeof *calls);
  if (calls == NULL)
    return -1;
  d->calls = calls;
  d->fract = lgp_alloc_array(total ? total : 1, sizeof *d->fract);
  d->hist = lgp_alloc_array(total ? total : 1, sizeof *d->hist);
  d->ctime = lgp_alloc_array(total ? total : 1, sizeof *d->ctime);
  d->pchild = lgp_alloc_array(total ? total : 1, sizeof *d->pchild);
  d->flag = lgp_alloc_array(total ? total : 1, sizeof *d->flag);
  d->spec = lgp_alloc_array(n ? n : 1, sizeof *d->spec);
  if (!d->fract || !d->hist || !d->ctime || !d->pchild || !d->flag || !d->spec)
    return -1;
  for (i = 0; i < total; i++) {
    const lgp_node *nd = &p->nodes[i];
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

static void dense_store(lgp_profile *p, const dense *d) {
  size_t n = p->nsyms, total = n + p->ncycles, i;
  for (i = 0; i < total; i++) {
    lgp_node *nd = &p->nodes[i];
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
static void inherit_flags(lgp_profile *p, dense *d, uint32_t s) {
  uint32_t head = p->cyc_of[s], m;
  uint32_t j, end;
  if (head == s) {
    d->flag[s] = 0;
    d->fract[s] = 0.0;
    for (j = p->parent_off[s], end = p->parent_off[s + 1]; j < end; j++) {
      uint32_t par = p->parent_pred[j];
      if (par == s)
        continue;
      d->flag[s] |= d->flag[par];
      if (d->calls[s] != 0)
        d->fract[s] += d->fract[par] *
                       ((double)p->arcs[p->parent_arcs[j]].count / (double)d->calls[s]);
    }
    return;
  }
  d->flag[head] = 0;
  d->fract[head] = 0.0;
  for (m = p->nodes[head].cyc_next; m != LGP_NONE; m = p->chain[m])
    for (j = p->parent_off[m], end = p->parent_off[m + 1]; j < end; j++) {
      uint32_t par = p->parent_pred[j];
      if (par == m || p->cyc_of[par] == head)
        continue;
      d->flag[head] |= d->flag[par];
      if (d->calls[head] != 0)
        d->fract[head] += d->fract[par] *
                          ((double)p->arcs[p->parent_arcs[j]].count / (double)d->calls[head]);
    }
  for (m = p->nodes[head].cyc_next; m != LGP_NONE; m = p->chain[m]) {
    d->flag[m] = d->flag[head];
    d->fract[m] = d->fract[head];
  }
}

static void propagate_flags(lgp_profile *p, dense *d) {
  uint32_t old_head = LGP_NONE;
  size_t i = p->nsyms;
  p->print_time = 0;
  while (i-- > 0) {
    uint32_t s = p->top_sorted[i];
    uint16_t bits = d->spec[s];
    int in_incl_graph = (bits >> LGP_INCL_GRAPH) & 1, in_excl_graph = (bits >> LGP_EXCL_GRAPH) & 1;
    int in_incl_time = (bits >> LGP_INCL_TIME) & 1, in_excl_time = (bits >> LGP_EXCL_TIME) & 1;
    if (p->cyc_of[s] != old_head) {
      old_head = p->cyc_of[s];
      inherit_flags(p, d, s);
    }
    if (!d->flag[s]) {
      if (in_incl_graph || (!p->table_used[LGP_INCL_GRAPH] && !in_excl_graph))
        d->flag[s] = 1;
    } else if (!in_incl_graph && in_excl_graph) {
      d->flag[s] = 0;
    }
    if (d->fract[s] == 0.0) {
      if (in_incl_time || (!p->table_used[LGP_INCL_TIME] && !in_excl_time))
        d->fract[s] = 1.0;
    } else if (!in_incl_time && in_excl_time) {
      d->fract[s] = 0.0;
    }
    p->print_time += d->hist[s] * d->fract[s];
  }
}

static void cycle_time(lgp_profile *p, dense *d) {
  size_t c;
  for (c = p->nsyms; c < p->nsyms + p->ncycles; c++) {
    uint32_t m;
    for (m = p->nodes[c].cyc_next; m != LGP_NONE; m = p->chain[m])
      if (d->fract[m] != 0.0)
        d->hist[c] += d->hist[m];
  }
}

static void propagate_time(lgp_profile *p, dense *d) {
  size_t i;
  for (i = 0; i < p->nsyms; i++) {
    uint32_t s = p->top_sorted[i], hs = p->cyc_of[s], j, end;
    double pf = d->fract[s];
    if (pf == 0.0)
      continue;
    for (j = p->child_off[s], end = p->child_off[s + 1]; j < end; j++) {
      uint32_t c = p->child_succ[j], hc;
      lgp_arc *arc;
      double share;
      if (c == s || d->fract[c] == 0.0)
        continue;
      hc = p->cyc_of[c];
      if (hc != c) {
        if (hc == hs)
          continue; /* inside the cycle: no propagation */
        c = hc;
      } else if (d->topo[s] <= d->topo[c]) {
        continue;   /* gprof: "toporder botches" */
      }
      arc = &p->arcs[p->child_arcs[j]];
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

/* {====================================================== orderings */

/* Sort keys gathered from the nodes first: the sorts then read 24 bytes
** per comparison instead of two nodes. */
/* The node sorts move 32-byte records instead of sorting indices that
** point at keys: at a hundred thousand nodes, the index sort's key reads
** are cache misses and these merges are sequential. */
typedef struct node_key {
  double time;
  uint64_t calls;
  uint32_t rank;   /* name order */
  uint32_t cls;    /* cmp_total: 0 cycle, 1 name without '_', 2 with */
  uint32_t node;
  uint32_t pad;
} node_key;

/* A stable bottom-up merge sort of an array of TYPE by BEFORE(a, b) ("a
** strictly first"), using tmp (as long as the array); the sorted records
** end up in the array. */
#define DEFINE_RECORD_SORT(NAME, TYPE, BEFORE)                                 \
  static void NAME(TYPE *v, TYPE *tmp, size_t n) {                             \
    TYPE *src = v, *dst = tmp, *t;                                             \
    size_t width, lo;                                                          \
    for (width = 1; width < n; width *= 2) {                                   \
      for (lo = 0; lo < n; lo += 2 * width) {                                  \
        size_t mid = lo + width < n ? lo + width : n;                          \
        size_t hi = lo + 2 * width < n ? lo + 2 * width : n;                   \
        size_t i = lo, j = mid, k = lo;                                        \
        while (i < mid && j < hi)                                              \
          dst[k++] = BEFORE(&src[j], &src[i]) ? src[j++] : src[i++];           \
        while (i < mid)                                                        \
          dst[k++] = src[i++];                                                 \
        while (j < hi)                                                         \
          dst[k++] = src[j++];                                                 \
      }                                                                        \
      t = src;                                                                 \
      src = dst;                                                               \
      dst = t;                                                                 \
    }                                                                          \
    if (src != v)                                                              \
      memcpy(v, src, n * sizeof *v);                                           \
  }

/* gprof's cmp_total; ties stay in address order (stable sort). Two cycles
** compare "less" both ways in gprof, which a merge sort also leaves in
** their original order. */
static inline int total_before(const node_key *l, const node_key *r) {
  if (l->time != r->time)
    return l->time > r->time;
  if (l->cls == 0 || r->cls == 0)
    return l->cls == 0 && r->cls != 0;
  if (l->cls != r->cls)
    return l->cls < r->cls;
  if (l->calls != r->calls)
    return l->calls > r->calls;
  return l->rank < r->rank;
}

/* gprof's cmp_time: the flat profile's order. */
static inline int time_before(const node_key *l, const node_key *r) {
  if (l->time != r->time)
    return l->time > r->time;
  if (l->calls != r->calls)
    return l->calls > r->calls;
  return l->rank < r->rank;
}

DEFINE_RECORD_SORT(sort_by_total, node_key, total_before)
DEFINE_RECORD_SORT(sort_by_time, node_key, time_before)

/* The node numbers of keys[0..n) after sorting them; NULL if out of memory. */
static uint32_t *sorted_nodes(node_key *keys, size_t n, int flat) {
  node_key *tmp = lgp_alloc_array(n ? n : 1, sizeof *tmp);
  uint32_t *v = lgp_alloc_array(n ? n : 1, sizeof *v);
  size_t i;
  if (tmp == NULL || v == NULL) {
    free(tmp);
    free(v);
    return NULL;
  }
  if (flat)
    sort_by_time(keys, tmp, n);
  else
    sort_by_total(keys, tmp, n);
  for (i = 0; i < n; i++)
    v[i] = keys[i].node;
  free(tmp);
  return v;
}

/* Names by their first 8 bytes as one big-endian number (the order
** strcmp gives), the rest compared only on a tie. */
typedef struct name_key {
  uint64_t prefix;
  const char *name;
  uint32_t node;
} name_key;

static inline int name_before(const name_key *l, const name_key *r) {
  if (l->prefix != r->prefix)
    return l->prefix < r->prefix;
  if ((l->prefix & 0xff) == 0)
    return 0; /* both end within the prefix: equal */
  return strcmp(l->name + 8, r->name + 8) < 0;
}

DEFINE_RECORD_SORT(sort_by_name, name_key, name_before)

/* Names are compared once here; the orderings then compare ranks. */
static int rank_names(lgp_profile *p) {
  size_t i, n = p->nsyms;
  name_key *keys = lgp_alloc_array(n ? n : 1, sizeof *keys);
  name_key *tmp = lgp_alloc_array(n ? n : 1, sizeof *tmp);
  p->name_rank = lgp_alloc_array(n ? n : 1, sizeof *p->name_rank);
  if (keys == NULL || tmp == NULL || p->name_rank == NULL) {
    free(keys);
    free(tmp);
    return -1;
  }
  for (i = 0; i < n; i++) {
    const unsigned char *s = (const unsigned char *)p->nodes[i].name;
    uint64_t k = 0;
    int j, end = 0;
    for (j = 0; j < 8; j++) {
      unsigned c = end ? 0 : s[j];
      end |= c == 0;
      k = k << 8 | c;
    }
    keys[i].prefix = k;
    keys[i].name = p->nodes[i].name;
    keys[i].node = (uint32_t)i;
  }
  sort_by_name(keys, tmp, n);
  for (i = 0; i < n; i++)
    p->name_rank[keys[i].node] = (uint32_t)i;
  free(keys);
  free(tmp);
  return 0;
}

/* }====================================================== */

/* Calls into each symbol, and self calls, summed over the arcs in
** storage order (integer sums: the order does not matter). */
static int count_calls(lgp_profile *p, dense *d) {
  size_t n = p->nsyms, k;
  d->calls = lgp_calloc_array(n ? n : 1, sizeof *d->calls);
  d->selfc = lgp_calloc_array(n ? n : 1, sizeof *d->selfc);
  if (d->calls == NULL || d->selfc == NULL)
    return -1;
  for (k = 0; k < p->narcs; k++) {
    const lgp_arc *a = &p->arcs[k];
    if (a->parent == a->child) /* one self arc per node at most */
      d->selfc[a->child] = a->count;
    else
      d->calls[a->child] += a->count;
  }
  for (k = 0; k < n; k++) {
    p->nodes[k].ncalls = d->calls[k];
    p->nodes[k].self_calls = d->selfc[k];
  }
  return 0;
}

int lgp_cg_assemble(lgp_profile *p, lgp_err *err) {
  size_t n = p->nsyms, i, total;
  dense d;
  memset(&d, 0, sizeof d);
  d.topo = lgp_calloc_array(n ? n : 1, sizeof *d.topo);
  if (p->arc_grouping == 1) { /* the arc table waits for a lookup */
    lgp_arc_free_groups(p);
    p->arc_grouping = 2;
  }
  if (d.topo == NULL || count_calls(p, &d) != 0 ||
      (p->name_rank == NULL && rank_names(p) != 0) ||
      build_lists(p, &p->child_off, &p->child_arcs, &p->child_succ, 0) != 0 ||
      build_lists(p, &p->parent_off, &p->parent_arcs, &p->parent_pred, 1) != 0 ||
      number_nodes(p, d.topo) != 0 || link_cycles(p) != 0 || topo_sort(p, d.topo) != 0 ||
      dense_load(p, &d) != 0) {
    dense_free(&d);
    return lgp_fail(err, NULL, "out of memory");
  }
  propagate_flags(p, &d);
  cycle_time(p, &d);
  propagate_time(p, &d);
  dense_store(p, &d);
  dense_free(&d);
  total = n + p->ncycles;
  {
    node_key *keys = lgp_alloc_array(total ? total : 1, sizeof *keys);
    if (keys == NULL)
      return lgp_fail(err, NULL, "out of memory");
    for (i = 0; i < total; i++) {
      const lgp_node *s = &p->nodes[i];
      keys[i].time = s->prop_self + s->prop_child;
      keys[i].calls = s->ncalls;
      keys[i].rank = s->is_cycle ? 0 : p->name_rank[i];
      keys[i].cls = s->is_cycle ? 0 : s->name[0] == '_' ? 2 : 1;
      keys[i].node = (uint32_t)i;
    }
    p->time_sorted = sorted_nodes(keys, total, 0);
    free(keys);
  }
  if (p->time_sorted == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < total; i++)
    p->nodes[p->time_sorted[i]].index = (uint32_t)i + 1;
  return 0;
}

int lgp_flat_order(lgp_profile *p, lgp_err *err) {
  size_t i;
  node_key *keys = lgp_alloc_array(p->nsyms ? p->nsyms : 1, sizeof *keys);
  if (keys == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < p->nsyms; i++) {
    keys[i].time = p->nodes[i].hist_time;
    keys[i].calls = p->nodes[i].ncalls;
    keys[i].rank = p->name_rank[i];
    keys[i].cls = 1;
    keys[i].node = (uint32_t)i;
  }
  p->flat_sorted = sorted_nodes(keys, p->nsyms, 1);
  free(keys);
  if (p->flat_sorted == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < p->nsyms; i++)
    p->nodes[p->flat_sorted[i]].flat_rank = (uint32_t)i;
  return 0;
}
