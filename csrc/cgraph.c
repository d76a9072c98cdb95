/*
** cgraph.c: the call graph (gprof's cg_tally, cg_assemble, cg_dfn and
** propagation), in time linear in symbols + arcs:
**  - arcs live in a hash table keyed by (parent, child);
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

/* {====================================================== arcs */

/* A slot holds the arc index + 1 in its low half and the key's hash in
** its high half, so probing past other keys does not touch the arcs. */
static uint64_t arc_key_hash(uint32_t parent, uint32_t child) {
  uint64_t k = ((uint64_t)parent << 32 | child) * 0x9E3779B97F4A7C15u;
  return k ^ (k >> 29);
}

static uint32_t arc_find(const lgp_profile *p, uint32_t parent, uint32_t child) {
  uint64_t h = arc_key_hash(parent, child), tag = h >> 32 << 32;
  size_t mask, i;
  if (p->arc_nslots == 0)
    return LGP_NONE;
  mask = p->arc_nslots - 1;
  for (i = (size_t)h & mask; p->arc_slots[i] != 0; i = (i + 1) & mask) {
    uint64_t slot = p->arc_slots[i];
    if ((slot & ~(uint64_t)UINT32_MAX) == tag) {
      const lgp_arc *a = &p->arcs[(uint32_t)slot - 1];
      if (a->parent == parent && a->child == child)
        return (uint32_t)slot - 1;
    }
  }
  return LGP_NONE;
}

static void arc_slot_put(uint64_t *slots, size_t mask, uint64_t h, size_t k) {
  size_t i = (size_t)h & mask;
  while (slots[i] != 0)
    i = (i + 1) & mask;
  slots[i] = (h >> 32 << 32) | ((uint64_t)k + 1);
}

static int arc_rehash(lgp_profile *p) {
  size_t ns = p->arc_nslots ? p->arc_nslots * 2 : 1024, k;
  uint64_t *slots = lgp_calloc_array(ns, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (k = 0; k < p->narcs; k++)
    arc_slot_put(slots, ns - 1, arc_key_hash(p->arcs[k].parent, p->arcs[k].child), k);
  free(p->arc_slots);
  p->arc_slots = slots;
  p->arc_nslots = ns;
  return 0;
}

/* Find or insert in one probe sequence. */
static int arc_add(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  uint64_t h = arc_key_hash(parent, child), tag = h >> 32 << 32;
  size_t mask, i;
  lgp_arc *a;
  if ((p->narcs + 1) * 2 > p->arc_nslots && arc_rehash(p) != 0)
    return -1;
  mask = p->arc_nslots - 1;
  for (i = (size_t)h & mask; p->arc_slots[i] != 0; i = (i + 1) & mask) {
    uint64_t slot = p->arc_slots[i];
    if ((slot & ~(uint64_t)UINT32_MAX) == tag) {
      a = &p->arcs[(uint32_t)slot - 1];
      if (a->parent == parent && a->child == child) {
        a->count += count;
        return 0;
      }
    }
  }
  if (p->narcs >= UINT32_MAX - 1)
    return -1;
  if (lgp_grow((void **)&p->arcs, &p->arcs_cap, p->narcs + 1, sizeof *p->arcs) != 0)
    return -1;
  a = &p->arcs[p->narcs];
  memset(a, 0, sizeof *a);
  a->parent = parent;
  a->child = child;
  a->count = count;
  p->arc_slots[i] = tag | ((uint64_t)p->narcs + 1);
  p->narcs++;
  return 0;
}

uint32_t lgp_arc_lookup(const lgp_profile *p, uint32_t parent, uint32_t child) {
  return arc_find(p, parent, child);
}

int lgp_arc_insert(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  return arc_add(p, parent, child, count);
}

int lgp_cg_add_arc(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  p->nodes[child].ncalls += count;
  return arc_add(p, parent, child, count);
}

/* {====================================================== line arcs (-s) */

static size_t line_hash(lgp_addr from, uint32_t child, size_t mask) {
  uint64_t k = (from * 0x9E3779B97F4A7C15u) ^ ((uint64_t)child * 0xC2B2AE3D27D4EB4Fu);
  return (size_t)(k >> 17) & mask;
}

static int line_arc_rehash(lgp_profile *p) {
  size_t ns = p->line_arc_nslots ? p->line_arc_nslots * 2 : 1024, mask = ns - 1, k;
  uint32_t *slots = lgp_calloc_array(ns, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (k = 0; k < p->nline_arcs; k++) {
    size_t i = line_hash(p->line_arcs[k].from, p->line_arcs[k].child, mask);
    while (slots[i] != 0)
      i = (i + 1) & mask;
    slots[i] = (uint32_t)k + 1;
  }
  free(p->line_arc_slots);
  p->line_arc_slots = slots;
  p->line_arc_nslots = ns;
  return 0;
}

/* The parent gprof's line-mode table gives from_pc: the nearest line
** symbol or function start at or below it. */
static lgp_addr line_parent(const lgp_profile *p, uint32_t parent, lgp_addr from) {
  const lgp_image *im = &p->image;
  size_t lo = 0, hi = im->nline_starts;
  lgp_addr best = p->nodes[parent].addr;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (im->line_starts[mid] <= from)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && im->line_starts[lo - 1] > best)
    best = im->line_starts[lo - 1];
  return best;
}

static int line_arc_add(lgp_profile *p, uint32_t parent, lgp_addr from, uint32_t child,
                        uint64_t count) {
  lgp_addr at = line_parent(p, parent, from);
  size_t i, mask;
  if ((p->nline_arcs + 1) * 2 > p->line_arc_nslots && line_arc_rehash(p) != 0)
    return -1;
  mask = p->line_arc_nslots - 1;
  for (i = line_hash(at, child, mask); p->line_arc_slots[i] != 0; i = (i + 1) & mask) {
    struct lgp_linearc *a = &p->line_arcs[p->line_arc_slots[i] - 1];
    if (a->from == at && a->child == child) {
      a->count += count;
      return 0;
    }
  }
  if (p->nline_arcs >= UINT32_MAX - 1 ||
      lgp_grow((void **)&p->line_arcs, &p->line_arcs_cap, p->nline_arcs + 1,
               sizeof *p->line_arcs) != 0)
    return -1;
  p->line_arcs[p->nline_arcs].from = at;
  p->line_arcs[p->nline_arcs].child = child;
  p->line_arcs[p->nline_arcs].count = count;
  p->line_arc_slots[i] = (uint32_t)++p->nline_arcs;
  return 0;
}

static int cmp_line_arc(const void *ctx, uint32_t x, uint32_t y) {
  const lgp_profile *p = ctx;
  lgp_addr l = p->line_arcs[x].from, r = p->line_arcs[y].from;
  if (l != r)
    return l < r ? -1 : 1;
  return x > y ? -1 : x < y; /* newest first, as gprof's lists */
}

int lgp_sum_arcs(const lgp_profile *p, uint32_t **order, size_t *n) {
  size_t k;
  *n = p->nline_arcs;
  *order = lgp_alloc_array(*n, sizeof **order);
  if (*order == NULL)
    return -1;
  for (k = 0; k < *n; k++)
    (*order)[k] = (uint32_t)k;
  return lgp_sort_indices(*order, *n, cmp_line_arc, p);
}

/* }====================================================== */

/* One arc record as read: gprof's cg_tally. */
int lgp_cg_tally(void *profile, lgp_addr from, lgp_addr self, uint64_t count) {
  lgp_profile *p = profile;
  uint32_t parent = p->last_parent, child = lgp_sym_lookup(p, self);
  if (parent >= p->nsyms || from < p->sym_addrs[parent] ||
      (parent + 1 < p->nsyms ? from >= p->sym_addrs[parent + 1] : from > p->nodes[parent].end_addr))
    parent = p->last_parent = lgp_sym_lookup(p, from);
  if (parent == LGP_NONE || child == LGP_NONE)
    return 0;
  /* a callee that is not a function (a label) becomes the function before */
  while (!p->sym_is_func[child]) {
    if (child == 0)
      return 0;
    child--;
  }
  if (!lgp_arc_wanted(p, parent, child))
    return 0;
  if (p->keep_line_arcs && line_arc_add(p, parent, from, child, count) != 0)
    return -1;
  return lgp_cg_add_arc(p, parent, child, count);
}

/* Adjacency lists in gprof's order: for each node, its arcs newest first. */
static int build_lists(lgp_profile *p, uint32_t **off_out, uint32_t **list_out,
                       int by_child) {
  size_t n = p->nsyms, k;
  uint32_t *off = lgp_calloc_array(n + 1, sizeof *off);
  uint32_t *list = lgp_alloc_array(p->narcs, sizeof *list);
  if (off == NULL || list == NULL) {
    free(off);
    free(list);
    return -1;
  }
  for (k = 0; k < p->narcs; k++)
    off[(by_child ? p->arcs[k].child : p->arcs[k].parent) + 1]++;
  for (k = 0; k < n; k++)
    off[k + 1] += off[k];
  {
    /* fill each node's slice from its end backwards: newest first */
    uint32_t *pos = lgp_alloc_array(n, sizeof *pos);
    if (pos == NULL) {
      free(off);
      free(list);
      return -1;
    }
    for (k = 0; k < n; k++)
      pos[k] = off[k + 1];
    for (k = 0; k < p->narcs; k++) {
      uint32_t node = by_child ? p->arcs[k].child : p->arcs[k].parent;
      list[--pos[node]] = (uint32_t)k;
    }
    free(pos);
  }
  *off_out = off;
  *list_out = list;
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
  uint32_t *succ;        /* child node of each child_arcs entry */
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
    if (d->stack_iter[d->depth] < p->child_off[node + 1]) {
      uint32_t child = d->succ[d->stack_iter[d->depth]++];
      int32_t t = d->order[child];
      if (t == DFN_NAN)
        dfn_push(p, d, child);
      else if (t == DFN_BUSY)
        dfn_cycle(p, d, child);
    } else {
      dfn_pop(p, d);
    }
  }
}

static int number_nodes(lgp_profile *p) {
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
  d.order = lgp_calloc_array(n, sizeof *d.order);
  d.succ = lgp_alloc_array(p->narcs ? p->narcs : 1, sizeof *d.succ);
  p->chain = lgp_alloc_array(n ? n : 1, sizeof *p->chain);
  p->cyc_of = lgp_alloc_array(n ? n : 1, sizeof *p->cyc_of);
  if (!d.stack_node || !d.stack_iter || !d.pos || !d.roots || !d.uf || !d.tail || !d.order ||
      !d.succ || !p->chain || !p->cyc_of)
    goto out;
  for (i = 0; i < n; i++)
    p->chain[i] = LGP_NONE;
  for (i = 0; i < p->narcs; i++)
    d.succ[i] = p->arcs[p->child_arcs[i]].child;
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
  free(d.order);
  free(d.succ);
  return rc;
}

/* Cycles are numbered in address order of their heads; each gets a node. */
static int link_cycles(lgp_profile *p) {
  size_t n = p->nsyms, i, c = 0;
  lgp_node *nodes;
  for (i = 0; i < n; i++)
    if (p->nodes[i].cyc_head == i && p->nodes[i].cyc_next != LGP_NONE)
      c++;
  p->ncycles = c;
  if (c == 0)
    return 0;
  nodes = realloc(p->nodes, (n + c) * sizeof *nodes);
  if (nodes == NULL)
    return -1;
  p->nodes = nodes;
  memset(nodes + n, 0, c * sizeof *nodes);
  c = 0;
  for (i = 0; i < n; i++) {
    uint32_t cyc, m;
    const uint32_t *a, *end;
    if (nodes[i].cyc_head != i || nodes[i].cyc_next == LGP_NONE)
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
    for (m = (uint32_t)i; m != LGP_NONE; m = p->chain[m])
      for (a = lgp_parents_begin(p, m), end = lgp_parents_end(p, m); a < end; a++) {
        const lgp_arc *arc = &p->arcs[*a];
        if (arc->parent == m)
          continue;
        if (p->cyc_of[arc->parent] == cyc) {
          nodes[cyc].self_calls += arc->count;
          nodes[m].member_calls += arc->count;
        } else {
          nodes[cyc].ncalls += arc->count;
        }
      }
  }
  return 0;
}

/* Symbols by top_order, ties in address order (a stable counting sort). */
static int topo_sort(lgp_profile *p) {
  size_t n = p->nsyms, i;
  int32_t maxo = 0;
  uint32_t *count;
  for (i = 0; i < n; i++)
    if (p->nodes[i].top_order > maxo)
      maxo = p->nodes[i].top_order;
  count = lgp_calloc_array((size_t)maxo + 2, sizeof *count);
  p->top_sorted = lgp_alloc_array(n, sizeof *p->top_sorted);
  if (count == NULL || p->top_sorted == NULL) {
    free(count);
    return -1;
  }
  for (i = 0; i < n; i++)
    count[p->nodes[i].top_order + 1]++;
  for (i = 1; i < (size_t)maxo + 2; i++)
    count[i] += count[i - 1];
  for (i = 0; i < n; i++)
    p->top_sorted[count[p->nodes[i].top_order]++] = (uint32_t)i;
  free(count);
  return 0;
}

/* }====================================================== */

/* {====================================================== propagation */

/* gprof's inherit_flags: print flag and time fraction from the parents
** (for a cycle, from the parents outside it, copied to every member). */
static void inherit_flags(lgp_profile *p, uint32_t s) {
  lgp_node *nodes = p->nodes;
  uint32_t head = nodes[s].cyc_head, m;
  const uint32_t *a, *end;
  if (head == s) {
    nodes[s].print_flag = 0;
    nodes[s].prop_fract = 0.0;
    for (a = lgp_parents_begin(p, s), end = lgp_parents_end(p, s); a < end; a++) {
      const lgp_arc *arc = &p->arcs[*a];
      if (arc->parent == s)
        continue;
      nodes[s].print_flag |= nodes[arc->parent].print_flag;
      if (nodes[s].ncalls != 0)
        nodes[s].prop_fract += nodes[arc->parent].prop_fract *
                               ((double)arc->count / (double)nodes[s].ncalls);
    }
    return;
  }
  nodes[head].print_flag = 0;
  nodes[head].prop_fract = 0.0;
  for (m = nodes[head].cyc_next; m != LGP_NONE; m = p->chain[m])
    for (a = lgp_parents_begin(p, m), end = lgp_parents_end(p, m); a < end; a++) {
      const lgp_arc *arc = &p->arcs[*a];
      if (arc->parent == m || p->cyc_of[arc->parent] == head)
        continue;
      nodes[head].print_flag |= nodes[arc->parent].print_flag;
      if (nodes[head].ncalls != 0)
        nodes[head].prop_fract += nodes[arc->parent].prop_fract *
                                  ((double)arc->count / (double)nodes[head].ncalls);
    }
  for (m = nodes[head].cyc_next; m != LGP_NONE; m = p->chain[m]) {
    nodes[m].print_flag = nodes[head].print_flag;
    nodes[m].prop_fract = nodes[head].prop_fract;
  }
}

static void propagate_flags(lgp_profile *p) {
  lgp_node *nodes = p->nodes;
  uint32_t old_head = LGP_NONE;
  size_t i = p->nsyms;
  p->print_time = 0;
  while (i-- > 0) {
    uint32_t s = p->top_sorted[i];
    lgp_node *n = &nodes[s];
    uint16_t bits = n->spec;
    int in_incl_graph = (bits >> LGP_INCL_GRAPH) & 1, in_excl_graph = (bits >> LGP_EXCL_GRAPH) & 1;
    int in_incl_time = (bits >> LGP_INCL_TIME) & 1, in_excl_time = (bits >> LGP_EXCL_TIME) & 1;
    if (n->cyc_head != old_head) {
      old_head = n->cyc_head;
      inherit_flags(p, s);
    }
    if (!n->print_flag) {
      if (in_incl_graph || (!p->table_used[LGP_INCL_GRAPH] && !in_excl_graph))
        n->print_flag = 1;
    } else if (!in_incl_graph && in_excl_graph) {
      n->print_flag = 0;
    }
    if (n->prop_fract == 0.0) {
      if (in_incl_time || (!p->table_used[LGP_INCL_TIME] && !in_excl_time))
        n->prop_fract = 1.0;
    } else if (!in_incl_time && in_excl_time) {
      n->prop_fract = 0.0;
    }
    n->prop_self = n->hist_time * n->prop_fract;
    p->print_time += n->prop_self;
  }
}

static void cycle_time(lgp_profile *p) {
  size_t c;
  for (c = p->nsyms; c < p->nsyms + p->ncycles; c++) {
    lgp_node *cyc = &p->nodes[c];
    uint32_t m;
    for (m = cyc->cyc_next; m != LGP_NONE; m = p->nodes[m].cyc_next)
      if (p->nodes[m].prop_fract != 0.0)
        cyc->hist_time += p->nodes[m].hist_time;
    cyc->prop_self = cyc->prop_fract * cyc->hist_time;
  }
}

static void propagate_time(lgp_profile *p) {
  lgp_node *nodes = p->nodes;
  size_t i;
  for (i = 0; i < p->nsyms; i++) {
    uint32_t s = p->top_sorted[i];
    lgp_node *par = &nodes[s];
    const uint32_t *a, *end;
    if (par->prop_fract == 0.0)
      continue;
    for (a = lgp_children_begin(p, s), end = lgp_children_end(p, s); a < end; a++) {
      lgp_arc *arc = &p->arcs[*a];
      uint32_t c = arc->child;
      lgp_node *ch;
      double share;
      if (arc->count == 0 || c == s || nodes[c].prop_fract == 0.0)
        continue;
      if (nodes[c].cyc_head != c) {
        if (par->cyc_num == nodes[c].cyc_num)
          continue; /* inside the cycle: no propagation */
        c = nodes[c].cyc_head;
      } else if (par->top_order <= nodes[c].top_order) {
        continue;   /* gprof: "toporder botches" */
      }
      ch = &nodes[c];
      if (ch->ncalls == 0)
        continue;
      arc->time = ch->hist_time * ((double)arc->count / (double)ch->ncalls);
      arc->child_time = ch->child_time * ((double)arc->count / (double)ch->ncalls);
      share = arc->time + arc->child_time;
      par->child_time += share;
      par->prop_child += par->prop_fract * share;
      arc->time *= par->prop_fract;
      arc->child_time *= par->prop_fract;
      if (par->cyc_head != s) {
        lgp_node *h = &nodes[par->cyc_head];
        h->child_time += share;
        h->prop_child += par->prop_fract * share;
      }
    }
  }
}

/* }====================================================== */

/* {====================================================== orderings */

/* Sort keys gathered from the nodes first: the sorts then read 24 bytes
** per comparison instead of two nodes. */
typedef struct node_key {
  double time;
  uint64_t calls;
  uint32_t rank;   /* name order */
  uint32_t cls;    /* cmp_total: 0 cycle, 1 name without '_', 2 with */
} node_key;

/* gprof's cmp_total; ties stay in address order (stable sort). Two cycles
** compare "less" both ways in gprof, which a merge sort also leaves in
** their original order. */
static int cmp_total(const void *ctx, uint32_t li, uint32_t ri) {
  const node_key *l = (const node_key *)ctx + li, *r = (const node_key *)ctx + ri;
  if (l->time < r->time)
    return 1;
  if (l->time > r->time)
    return -1;
  if (l->cls == 0 || r->cls == 0)
    return l->cls == r->cls ? 0 : (l->cls == 0 ? -1 : 1);
  if (l->cls != r->cls)
    return l->cls < r->cls ? -1 : 1;
  if (l->calls != r->calls)
    return l->calls > r->calls ? -1 : 1;
  return l->rank < r->rank ? -1 : l->rank > r->rank;
}

/* gprof's cmp_time: the flat profile's order. */
static int cmp_time(const void *ctx, uint32_t li, uint32_t ri) {
  const node_key *l = (const node_key *)ctx + li, *r = (const node_key *)ctx + ri;
  if (l->time < r->time)
    return 1;
  if (l->time > r->time)
    return -1;
  if (l->calls != r->calls)
    return l->calls > r->calls ? -1 : 1;
  return l->rank < r->rank ? -1 : l->rank > r->rank;
}

/* Sorts nodes 0..n-1 by cmp with keys made by the caller. */
static uint32_t *sort_nodes(size_t n, const void *keys, lgp_cmp_fn cmp) {
  uint32_t *v = lgp_alloc_array(n ? n : 1, sizeof *v);
  size_t i;
  if (v == NULL)
    return NULL;
  for (i = 0; i < n; i++)
    v[i] = (uint32_t)i;
  if (lgp_sort_indices(v, n, cmp, keys) != 0) {
    free(v);
    return NULL;
  }
  return v;
}

/* Names by their first 8 bytes as one big-endian number (the order
** strcmp gives), the rest compared only on a tie. */
typedef struct name_key {
  uint64_t prefix;
  const char *name;
} name_key;

static int cmp_raw_name(const void *ctx, uint32_t x, uint32_t y) {
  const name_key *l = (const name_key *)ctx + x, *r = (const name_key *)ctx + y;
  if (l->prefix != r->prefix)
    return l->prefix < r->prefix ? -1 : 1;
  if ((l->prefix & 0xff) == 0)
    return 0; /* both end within the prefix */
  return strcmp(l->name + 8, r->name + 8);
}

/* Names are compared once here; the orderings then compare ranks. */
static int rank_names(lgp_profile *p) {
  size_t i, n = p->nsyms;
  name_key *keys = lgp_alloc_array(n ? n : 1, sizeof *keys);
  uint32_t *order;
  if (keys == NULL)
    return -1;
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
  }
  order = sort_nodes(n, keys, cmp_raw_name);
  free(keys);
  p->name_rank = lgp_alloc_array(n ? n : 1, sizeof *p->name_rank);
  if (order == NULL || p->name_rank == NULL) {
    free(order);
    return -1;
  }
  for (i = 0; i < n; i++)
    p->name_rank[order[i]] = (uint32_t)i;
  free(order);
  return 0;
}

/* }====================================================== */

int lgp_cg_assemble(lgp_profile *p, lgp_err *err) {
  size_t n = p->nsyms, i, total;
  for (i = 0; i < p->narcs; i++) { /* one self arc per node at most */
    const lgp_arc *a = &p->arcs[i];
    if (a->parent == a->child) {
      p->nodes[a->child].ncalls -= a->count;
      p->nodes[a->child].self_calls = a->count;
    }
  }
  if ((p->name_rank == NULL && rank_names(p) != 0) ||
      build_lists(p, &p->child_off, &p->child_arcs, 0) != 0 ||
      build_lists(p, &p->parent_off, &p->parent_arcs, 1) != 0 ||
      number_nodes(p) != 0 || link_cycles(p) != 0 || topo_sort(p) != 0)
    return lgp_fail(err, NULL, "out of memory");
  propagate_flags(p);
  cycle_time(p);
  propagate_time(p);
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
    }
    p->time_sorted = sort_nodes(total, keys, cmp_total);
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
  }
  p->flat_sorted = sort_nodes(p->nsyms, keys, cmp_time);
  free(keys);
  if (p->flat_sorted == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < p->nsyms; i++)
    p->nodes[p->flat_sorted[i]].flat_rank = (uint32_t)i;
  return 0;
}
