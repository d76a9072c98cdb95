/*
** bounds.c: lower and upper bounds of each total time (see bounds.h), the
** arcs whose time is an estimate, the ambiguous callees and the
** spontaneous roots. Every pass is a loop with explicit queues and stacks.
*/
#include <stdlib.h>
#include <string.h>

#include "analyse/bounds.h"

/* Does arc a carry time in gprof's model, on the condensation: calls, two
** units, a callee whose time propagates? (Out of a function whose time
** does not propagate, the time leaves at the root.) */
static int timed_edge(const lgp_bounds *b, const lgp_arc *a) {
  const lgp_node *nodes = b->p->graph.nodes;
  return a->count > 0 && a->parent != a->child && b->unit[a->parent] != b->unit[a->child] &&
         nodes[a->child].prop_fract != 0.0;
}

static int is_unit(const lgp_bounds *b, uint32_t s) { return b->unit[s] == s; }

/* The unscaled self ticks of node s that gprof propagates. */
static double prop_hist(const lgp_node *n) {
  if (n->is_cycle) /* gprof's cycle time already leaves out members that do not propagate */
    return n->hist_time;
  return n->prop_fract != 0.0 ? n->hist_time : 0.0;
}

/* {====================================================== dominator tree */

/* A tree grown downwards (parents first) with skew-binary jump pointers:
** the depth of a node's jump depends only on its depth, so two nodes at
** one depth jump together, and an ancestor at any depth is O(log depth)
** steps away. */
typedef struct domtree {
  uint32_t *idom, *jump, *depth;
} domtree;

static void dt_attach(domtree *t, uint32_t v, uint32_t parent) {
  uint32_t j = t->jump[parent], jj = t->jump[j];
  t->idom[v] = parent;
  t->depth[v] = t->depth[parent] + 1;
  t->jump[v] = t->depth[parent] - t->depth[j] == t->depth[j] - t->depth[jj] ? jj : parent;
}

static uint32_t dt_lca(const domtree *t, uint32_t u, uint32_t v) {
  if (t->depth[u] < t->depth[v]) {
    uint32_t x = u;
    u = v;
    v = x;
  }
  while (t->depth[u] > t->depth[v])
    u = t->depth[t->jump[u]] >= t->depth[v] ? t->jump[u] : t->idom[u];
  while (u != v) {
    if (t->jump[u] != t->jump[v]) {
      u = t->jump[u];
      v = t->jump[v];
    } else {
      u = t->idom[u];
      v = t->idom[v];
    }
  }
  return u;
}

/* }====================================================== */

/* The units' out-edges (CSR), callers and the root flags. */
static int build_edges(lgp_bounds *b, uint32_t *indeg, uint8_t *from_root) {
  const lgp_graph *g = &b->p->graph;
  size_t k, u;
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    uint32_t pu = b->unit[a->parent], cu = b->unit[a->child];
    if (a->count == 0 || pu == cu)
      continue;
    b->root[cu] = 0; /* it has callers */
    if (!timed_edge(b, a))
      continue;
    b->ncallers[cu]++;
    if (g->nodes[a->parent].prop_fract == 0.0)
      from_root[cu] = 1;
    else {
      b->off[pu + 1]++;
      indeg[cu]++;
    }
  }
  for (u = 0; u < b->n; u++)
    b->off[u + 1] += b->off[u];
  b->succ = lgp_alloc_array(b->off[b->n] ? b->off[b->n] : 1, sizeof *b->succ);
  if (b->succ == NULL)
    return -1;
  memcpy(b->stack, b->off, b->n * sizeof *b->stack); /* fill positions */
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    if (timed_edge(b, a) && g->nodes[a->parent].prop_fract != 0.0)
      b->succ[b->stack[b->unit[a->parent]]++] = b->unit[a->child];
  }
  return 0;
}

/* Lower bounds: the dominator tree in topological order (Kahn), then the
** self ticks summed up the tree in the reverse order. */
static int lower_bounds(lgp_bounds *b, const uint32_t *indeg0, const uint8_t *from_root) {
  const lgp_node *nodes = b->p->graph.nodes;
  size_t n = b->n, head = 0, tail = 0, i;
  uint32_t root = (uint32_t)n, none = UINT32_MAX;
  int rc = 0;
  domtree t;
  uint32_t *indeg = lgp_alloc_array(n ? n : 1, sizeof *indeg);
  uint32_t *cand = lgp_alloc_array(n ? n : 1, sizeof *cand);
  uint32_t *order = b->stack; /* free until the first traversal */
  double *sub = lgp_calloc_array(n + 1, sizeof *sub);
  t.idom = lgp_alloc_array(n + 1, sizeof *t.idom);
  t.jump = lgp_alloc_array(n + 1, sizeof *t.jump);
  t.depth = lgp_alloc_array(n + 1, sizeof *t.depth);
  if (indeg == NULL || cand == NULL || sub == NULL || t.idom == NULL || t.jump == NULL ||
      t.depth == NULL) {
    rc = -1;
    goto done;
  }
  if (n > 0)
    memcpy(indeg, indeg0, n * sizeof *indeg);
  t.idom[root] = t.jump[root] = root;
  t.depth[root] = 0;
  for (i = 0; i < n; i++) {
    cand[i] = from_root[i] ? root : none;
    if (is_unit(b, (uint32_t)i) && indeg[i] == 0)
      order[tail++] = (uint32_t)i;
  }
  while (head < tail) {
    uint32_t u = order[head++], j;
    dt_attach(&t, u, cand[u] == none ? root : cand[u]);
    for (j = b->off[u]; j < b->off[u + 1]; j++) {
      uint32_t v = b->succ[j];
      cand[v] = cand[v] == none ? u : dt_lca(&t, cand[v], u);
      if (--indeg[v] == 0)
        order[tail++] = v;
    }
  }
  /* units left are on a cycle of the condensation, which gprof's cycles
     leave none of; if any, they prove nothing beyond their own self */
  for (i = 0; i < n; i++)
    if (is_unit(b, (uint32_t)i) && indeg[i] != 0) {
      dt_attach(&t, (uint32_t)i, root);
      order[tail++] = (uint32_t)i;
    }
  for (i = 0; i < n; i++)
    sub[i] = b->h[i];
  memcpy(b->topo, order, tail * sizeof *order);
  b->ntopo = tail;
  while (tail-- > 0) {
    uint32_t u = order[tail];
    if (t.idom[u] != root)
      sub[t.idom[u]] += sub[u];
  }
  for (i = 0; i < n; i++) /* a member: its own self only (always sound) */
    b->min[i] = nodes[i].prop_self +
                (is_unit(b, (uint32_t)i) ? b->scale[i] * (sub[i] - b->h[i]) : 0.0);
done:
  free(indeg);
  free(cand);
  free(sub);
  free(t.idom);
  free(t.jump);
  free(t.depth);
  return rc;
}

int lgp_bounds_build(lgp_bounds *b, const lgp_profile *p) {
  const lgp_graph *g = &p->graph;
  size_t n = g->nsyms + g->ncycles, s, t = n ? n : 1;
  uint32_t *indeg = NULL;
  uint8_t *from_root = NULL;
  int rc = -1;
  memset(b, 0, sizeof *b);
  b->p = p;
  b->n = n;
  b->unit = lgp_alloc_array(t, sizeof *b->unit);
  b->off = lgp_calloc_array(n + 1, sizeof *b->off);
  b->h = lgp_alloc_array(t, sizeof *b->h);
  b->min = lgp_alloc_array(t, sizeof *b->min);
  b->max = lgp_alloc_array(t, sizeof *b->max);
  b->ncallers = lgp_calloc_array(t, sizeof *b->ncallers);
  b->root = lgp_alloc_array(t, 1);
  b->stamp = lgp_calloc_array(t, sizeof *b->stamp);
  b->stack = lgp_alloc_array(t, sizeof *b->stack);
  b->scale = lgp_alloc_array(t, sizeof *b->scale);
  b->scale_hi = lgp_alloc_array(t, sizeof *b->scale_hi);
  b->exact = lgp_calloc_array(t, 1);
  b->topo = lgp_alloc_array(t, sizeof *b->topo);
  indeg = lgp_calloc_array(t, sizeof *indeg);
  from_root = lgp_calloc_array(t, 1);
  if (b->unit == NULL || b->off == NULL || b->h == NULL || b->min == NULL || b->max == NULL ||
      b->ncallers == NULL || b->root == NULL || b->stamp == NULL || b->stack == NULL ||
      b->scale == NULL || b->scale_hi == NULL || b->exact == NULL || b->topo == NULL ||
      indeg == NULL || from_root == NULL)
    goto done;
  for (s = 0; s < n; s++) {
    const lgp_node *nd = &g->nodes[s];
    b->unit[s] = s < g->nsyms && nd->cyc_num != 0 ? nd->cyc_head : (uint32_t)s;
    b->h[s] = prop_hist(nd);
    b->root[s] = 1;
    if (b->unit[s] == s)
      b->hall += b->h[s];
    b->scale[s] = b->scale_hi[s] = s < g->nsyms ? nd->prop_fract : -1.0;
  }
  for (s = 0; s < g->nsyms; s++) { /* a cycle: its members' least and greatest fraction */
    uint32_t u = b->unit[s];
    double f = g->nodes[s].prop_fract;
    if (u == s)
      continue;
    if (b->scale[u] < 0.0 || f < b->scale[u])
      b->scale[u] = f;
    if (f > b->scale_hi[u])
      b->scale_hi[u] = f;
  }
  for (s = g->nsyms; s < n; s++)
    if (b->scale[s] < 0.0) /* (a cycle has members) */
      b->scale[s] = b->scale_hi[s] = 0.0;
  if (build_edges(b, indeg, from_root) != 0 || lower_bounds(b, indeg, from_root) != 0)
    goto done;
  rc = 0;
done:
  free(indeg);
  free(from_root);
  if (rc != 0)
    lgp_bounds_free(b);
  return rc;
}

void lgp_bounds_free(lgp_bounds *b) {
  free(b->unit);
  free(b->off);
  free(b->succ);
  free(b->h);
  free(b->min);
  free(b->max);
  free(b->ncallers);
  free(b->root);
  free(b->stamp);
  free(b->stack);
  free(b->scale);
  free(b->scale_hi);
  free(b->exact);
  free(b->topo);
  memset(b, 0, sizeof *b);
}

double lgp_bounds_min(const lgp_bounds *b, uint32_t s) { return b->min[s]; }

/* {====================================================== upper bounds */

/* One traversal of what the unit graph reaches from the units stacked in
** b->stack[0..top) (marked), adding their self ticks to *sum; gives up
** (0) once it has looked at more than *budget units and edges, which it
** charges. */
static int traverse(lgp_bounds *b, size_t top, double *sum, size_t *budget) {
  size_t cost = 0;
  while (top > 0) {
    uint32_t u = b->stack[--top], j;
    cost += 1 + (b->off[u + 1] - b->off[u]);
    if (cost > *budget) {
      *budget = 0;
      return 0;
    }
    for (j = b->off[u]; j < b->off[u + 1]; j++) {
      uint32_t v = b->succ[j];
      if (b->stamp[v] != b->gen) {
        b->stamp[v] = b->gen;
        b->stack[top++] = v;
        *sum += b->h[v];
      }
    }
  }
  *budget -= cost;
  return 1;
}

static void next_gen(lgp_bounds *b) {
  if (++b->gen == 0) { /* the stamps wrapped: start them again */
    memset(b->stamp, 0, b->n * sizeof *b->stamp);
    b->gen = 1;
  }
}

/* Node s's unscaled sum of what comes up from below (what it reaches, not
** itself): by a traversal while the budget lasts, else (b->exact[s] = 0)
** bounded by the sum of its callees' sums and selves (what two callees
** share counts twice) and by the self of everything but its unit. Units in reverse
** topological order, so the callees' sums are known. */
static double below(lgp_bounds *b, uint32_t s, const double *up, size_t *budget) {
  const lgp_graph *g = &b->p->graph;
  double sum = 0.0, composed = 0.0, cap;
  size_t top = 0;
  uint32_t j;
  next_gen(b);
  b->stamp[b->unit[s]] = b->gen; /* (a cycle is not below its members) */
  if (b->unit[s] == s) {
    for (j = b->off[s]; j < b->off[s + 1]; j++) {
      uint32_t v = b->succ[j];
      composed += b->h[v] + up[v];
      if (b->stamp[v] != b->gen) {
        b->stamp[v] = b->gen;
        b->stack[top++] = v;
        sum += b->h[v];
      }
    }
  } else if (b->p->graph.nodes[s].prop_fract != 0.0) { /* a member: its own arcs out */
    for (j = g->child_off[s]; j < g->child_off[s + 1]; j++) {
      const lgp_arc *a = &g->arcs.arcs[g->child_arcs[j]];
      uint32_t v = b->unit[a->child];
      if (!timed_edge(b, a))
        continue;
      composed += b->h[v] + up[v];
      if (b->stamp[v] != b->gen) {
        b->stamp[v] = b->gen;
        b->stack[top++] = v;
        sum += b->h[v];
      }
    }
  }
  if (*budget > 0 && traverse(b, top, &sum, budget)) {
    b->exact[s] = 1;
    return sum;
  }
  b->exact[s] = 0;
  cap = b->hall - b->h[b->unit[s]]; /* what is not its unit */
  return composed < cap ? composed : cap;
}

/* Every node's upper bound, once: exact while the work stays within a few
** passes over the graph (leaves first: they are the cheap ones). */
int lgp_bounds_upper(lgp_bounds *b) {
  const lgp_node *nodes = b->p->graph.nodes;
  size_t budget = LGP_BOUNDS_PASSES * (b->n + b->off[b->n] + 1), i, s;
  double *up;
  if (b->have_max)
    return 0;
  up = lgp_calloc_array(b->n ? b->n : 1, sizeof *up);
  if (up == NULL)
    return -1;
  for (i = b->ntopo; i-- > 0;)
    up[b->topo[i]] = below(b, b->topo[i], up, &budget);
  for (s = 0; s < b->n; s++) {
    double scale = b->scale_hi[s];
    if (b->unit[s] != s) /* members, once their cycles' callees are known */
      up[s] = below(b, (uint32_t)s, up, &budget);
    b->max[s] = nodes[s].prop_self + (scale > 0.0 ? scale * up[s] : 0.0);
    if (b->max[s] < b->min[s]) /* (rounding only: what s dominates it reaches) */
      b->max[s] = b->min[s];
  }
  free(up);
  b->have_max = 1;
  return 0;
}

int lgp_bounds_max(lgp_bounds *b, uint32_t s, double *max, int *exact) {
  if (!b->have_max && lgp_bounds_upper(b) != 0)
    return -1;
  *max = b->max[s];
  if (exact != NULL)
    *exact = b->exact[s];
  return 0;
}

/* }====================================================== */

int lgp_bounds_arc_estimated(const lgp_bounds *b, uint32_t k) {
  const lgp_graph *g = &b->p->graph;
  const lgp_arc *a = &g->arcs.arcs[k];
  const lgp_node *cu;
  if (!timed_edge(b, a) || g->nodes[a->parent].prop_fract == 0.0)
    return 0;
  cu = &g->nodes[b->unit[a->child]];
  return b->ncallers[b->unit[a->child]] > 1 && cu->hist_time + cu->child_time > 0.0;
}

/* Is node u (a unit) or a member of it the program's entry? */
static int holds_main(const lgp_graph *g, uint32_t u) {
  uint32_t m;
  if (u < g->nsyms)
    return g->nodes[u].name != NULL && strcmp(g->nodes[u].name, "main") == 0;
  for (m = g->nodes[u].cyc_next; m != LGP_NONE; m = g->nodes[m].cyc_next)
    if (g->nodes[m].name != NULL && strcmp(g->nodes[m].name, "main") == 0)
      return 1;
  return 0;
}

int lgp_bounds_spontaneous(const lgp_bounds *b, uint32_t s) {
  const lgp_graph *g = &b->p->graph;
  uint32_t u = b->unit[s];
  const lgp_node *n = &g->nodes[u];
  if (!b->root[u] || holds_main(g, u))
    return 0;
  return n->hist_time + n->child_time > 0.0 || b->off[u + 1] > b->off[u];
}

typedef struct amb {
  double total;
  uint32_t index, id;
} amb;

static int amb_cmp(const void *x, const void *y) {
  const amb *a = x, *c = y;
  if (a->total != c->total)
    return a->total > c->total ? -1 : 1;
  if (a->index != c->index)
    return a->index < c->index ? -1 : 1;
  return a->id < c->id ? -1 : a->id > c->id;
}

int lgp_bounds_ambiguous(const lgp_bounds *b, uint32_t **out, size_t *n) {
  const lgp_graph *g = &b->p->graph;
  size_t s, k = 0;
  amb *list;
  *out = NULL;
  *n = 0;
  for (s = 0; s < b->n; s++)
    if (is_unit(b, (uint32_t)s) && b->ncallers[s] > 1 &&
        g->nodes[s].prop_self + g->nodes[s].prop_child > 0.0)
      k++;
  list = lgp_alloc_array(k ? k : 1, sizeof *list);
  *out = lgp_alloc_array(k ? k : 1, sizeof **out);
  if (list == NULL || *out == NULL) {
    free(list);
    free(*out);
    *out = NULL;
    return -1;
  }
  k = 0;
  for (s = 0; s < b->n; s++)
    if (is_unit(b, (uint32_t)s) && b->ncallers[s] > 1 &&
        g->nodes[s].prop_self + g->nodes[s].prop_child > 0.0) {
      list[k].total = g->nodes[s].prop_self + g->nodes[s].prop_child;
      list[k].index = g->nodes[s].index;
      list[k].id = (uint32_t)s;
      k++;
    }
  qsort(list, k, sizeof *list, amb_cmp);
  for (s = 0; s < k; s++)
    (*out)[s] = list[s].id;
  *n = k;
  free(list);
  return 0;
}
