/*
** select.c: the selection behind lgprof.dot and profile:filter's
** thresholds (select.h): kept functions, drawn arcs, residual edges.
*/
#include <stdlib.h>
#include <string.h>

#include "model/select.h"

/* Shares are worked out in seconds, from the seconds the API shows (a
** function's total, an arc's self + children), so that a threshold judges
** exactly the numbers a script sees. */
static double total_of(const lgp_profile *p, const lgp_node *n) {
  return lgp_seconds(p, n->prop_self + n->prop_child);
}

static double arc_seconds(const lgp_profile *p, const lgp_arc *a) {
  return lgp_seconds(p, a->time) + lgp_seconds(p, a->child_time);
}

/* The call graph's time in seconds: the denominator of every share. */
static double graph_seconds(const lgp_profile *p) {
  return lgp_seconds(p, p->graph.print_time);
}

static int is_candidate(const lgp_profile *p, uint32_t s) {
  const lgp_node *n = &p->graph.nodes[s];
  return n->print_flag && !lgp_removed(p, s) &&
         (total_of(p, n) > 0.0 || n->ncalls + n->self_calls > 0);
}

/* Does s have a caller other than itself? */
static int has_caller(const lgp_profile *p, uint32_t s) {
  const lgp_graph *g = &p->graph;
  const uint32_t *a;
  for (a = lgp_parents_begin(g, s); a < lgp_parents_end(g, s); a++)
    if (g->arcs.arcs[*a].parent != s && !lgp_arc_hidden(p, *a))
      return 1;
  return 0;
}

static void keep_nodes(const lgp_profile *p, const lgp_select_spec *spec, lgp_selection *sel) {
  const lgp_graph *g = &p->graph;
  double t = graph_seconds(p);
  size_t k, kept = 0;
  /* the index order is by total, heaviest first (ties: the lower index),
     so the first max_nodes candidates that pass are the heaviest */
  for (k = 0; k < g->nsyms + g->ncycles; k++) {
    uint32_t s = g->time_sorted[k];
    const lgp_node *n;
    if (s >= g->nsyms || !is_candidate(p, s))
      continue;
    sel->ncandidates++;
    n = &g->nodes[s];
    if ((t > 0.0 ? total_of(p, n) / t : 0.0) < spec->node_fraction)
      continue;
    if (spec->min_calls > 0 && n->ncalls + n->self_calls < spec->min_calls && has_caller(p, s))
      continue;
    if (kept >= spec->max_nodes)
      continue;
    sel->kept[s] = 1;
    sel->nodes[kept++] = s;
  }
  sel->nnodes = kept;
}

/* Edges in the order they are drawn: by the caller's index, then the callee's. */
static int cmp_ends(const lgp_graph *g, uint32_t lcaller, uint32_t lcallee, uint32_t rcaller,
                    uint32_t rcallee) {
  uint32_t lc = g->nodes[lcaller].index, rc = g->nodes[rcaller].index;
  uint32_t le = g->nodes[lcallee].index, re = g->nodes[rcallee].index;
  if (lc != rc)
    return lc < rc ? -1 : 1;
  return le < re ? -1 : le > re;
}

static int arc_by_ends(const void *ctx, uint32_t x, uint32_t y) {
  const lgp_graph *g = ctx;
  const lgp_arc *l = &g->arcs.arcs[x], *r = &g->arcs.arcs[y];
  return cmp_ends(g, l->parent, l->child, r->parent, r->child);
}

static int keep_arcs(const lgp_profile *p, const lgp_select_spec *spec, lgp_selection *sel) {
  const lgp_graph *g = &p->graph;
  double t = graph_seconds(p);
  size_t k;
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    double share;
    if (!sel->kept[a->parent] || !sel->kept[a->child] || lgp_arc_hidden(p, (uint32_t)k))
      continue;
    share = t > 0.0 ? arc_seconds(p, a) / t : 0.0;
    /* static arcs (count 0, no time) are structure, like arcs in cycles */
    sel->arc_kept[k] = lgp_arc_untimed(g, a) || a->is_static || share >= spec->edge_fraction;
    if (sel->arc_kept[k])
      sel->arcs[sel->narcs++] = (uint32_t)k;
  }
  return lgp_sort_indices(sel->arcs, sel->narcs, arc_by_ends, g);
}

/* {====================================================== residual edges */

/* A dropped function's kept callers (or callees), each with the time on
** its arc, and their order: heavier first, then the lower index. */
typedef struct weighted { uint32_t node; double t; } weighted;
typedef struct wlist {
  const lgp_graph *g;
  weighted *v;
  uint32_t *order;
  size_t n, cap, order_cap;
} wlist;

static int cmp_heavier(const void *ctx, uint32_t x, uint32_t y) {
  const wlist *l = ctx;
  const weighted *a = &l->v[x], *b = &l->v[y];
  uint32_t ia = l->g->nodes[a->node].index, ib = l->g->nodes[b->node].index;
  if (a->t != b->t)
    return a->t > b->t ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

static int wlist_add(wlist *l, uint32_t node, double t) {
  if (lgp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0)
    return -1;
  l->v[l->n].node = node;
  l->v[l->n++].t = t;
  return 0;
}

static int wlist_sort(wlist *l) {
  size_t i;
  if (lgp_grow((void **)&l->order, &l->order_cap, l->n, sizeof *l->order) != 0)
    return -1;
  for (i = 0; i < l->n; i++)
    l->order[i] = (uint32_t)i;
  return lgp_sort_indices(l->order, l->n, cmp_heavier, l);
}

/* The i-th in order. */
static const weighted *wlist_at(const wlist *l, size_t i) { return &l->v[l->order[i]]; }

typedef struct rwork {
  const lgp_profile *p;
  lgp_selection *sel;
  double limit;
  /* (caller, callee) pairs: the drawn arcs, and the residual edges (a
     pair's index there is its edge's in sel->residual) */
  lgp_arctab drawn, pairs;
  uint32_t *via_edge;  /* the residual edge of each via entry, in order found */
  size_t via_cap, via_edge_cap, edge_cap;
} rwork;

/* Adds v along caller -> callee through x. */
static int add_path(rwork *w, uint32_t a, uint32_t y, uint32_t x, double v) {
  lgp_selection *sel = w->sel;
  uint32_t e = lgp_arctab_find(&w->pairs, a, y);
  if (e == LGP_ARC_NONE) {
    if (lgp_arctab_add(&w->pairs, a, y, 0) != 0 ||
        lgp_grow((void **)&sel->residual, &w->edge_cap, sel->nresidual + 1,
                 sizeof *sel->residual) != 0)
      return -1;
    e = (uint32_t)sel->nresidual++;
    memset(&sel->residual[e], 0, sizeof sel->residual[e]);
    sel->residual[e].caller = a;
    sel->residual[e].callee = y;
  }
  sel->residual[e].time += v;
  sel->residual[e].nvia++;
  /* via entries are kept in the order found, each with its edge; lay_out
     groups them by edge */
  if (lgp_grow((void **)&sel->via, &w->via_cap, sel->nvia + 1, sizeof *sel->via) != 0 ||
      lgp_grow((void **)&w->via_edge, &w->via_edge_cap, sel->nvia + 1, sizeof *w->via_edge) != 0)
    return -1;
  sel->via[sel->nvia] = x;
  w->via_edge[sel->nvia++] = e;
  return 0;
}

/* The dropped functions X called by kept ones with time, in index order,
** each with its kept callers and its kept callees. */
static int residual_edges(rwork *w) {
  const lgp_profile *p = w->p;
  const lgp_graph *g = &p->graph;
  lgp_selection *sel = w->sel;
  wlist ins, outs;
  size_t k;
  int rc = -1;
  memset(&ins, 0, sizeof ins);
  memset(&outs, 0, sizeof outs);
  ins.g = outs.g = g;
  for (k = 0; k < g->nsyms + g->ncycles; k++) {
    uint32_t x = g->time_sorted[k];
    const uint32_t *a;
    size_t i, j;
    double d;
    if (x >= g->nsyms || sel->kept[x] || lgp_removed(p, x))
      continue;
    d = total_of(p, &g->nodes[g->nodes[x].cyc_head]);
    if (!(d > 0.0))
      continue;
    ins.n = outs.n = 0;
    for (a = lgp_parents_begin(g, x); a < lgp_parents_end(g, x); a++) {
      const lgp_arc *arc = &g->arcs.arcs[*a];
      double t = arc_seconds(p, arc);
      if (sel->kept[arc->parent] && t > 0.0 && !lgp_arc_hidden(p, *a) &&
          wlist_add(&ins, arc->parent, t) != 0)
        goto out;
    }
    for (a = lgp_children_begin(g, x); ins.n > 0 && a < lgp_children_end(g, x); a++) {
      const lgp_arc *arc = &g->arcs.arcs[*a];
      double t = arc_seconds(p, arc);
      if (sel->kept[arc->child] && arc->child != x && t > 0.0 && !lgp_arc_hidden(p, *a) &&
          wlist_add(&outs, arc->child, t) != 0)
        goto out;
    }
    if (outs.n == 0)
      continue;
    if (wlist_sort(&ins) != 0 || wlist_sort(&outs) != 0)
      goto out;
    /* heaviest first on both sides: a path below the limit ends the row,
       and a row whose first path is below it ends the function */
    for (i = 0; i < ins.n; i++) {
      int first = 1;
      for (j = 0; j < outs.n; j++) {
        const weighted *from = wlist_at(&ins, i), *to = wlist_at(&outs, j);
        double v = from->t * to->t / d;
        if (!(v > 0.0 && v >= w->limit))
          break;
        first = 0;
        if (from->node == to->node ||
            lgp_arctab_find(&w->drawn, from->node, to->node) != LGP_ARC_NONE)
          continue;
        if (add_path(w, from->node, to->node, x, v) != 0)
          goto out;
      }
      if (first)
        break;
    }
  }
  rc = 0;
out:
  free(ins.v);
  free(ins.order);
  free(outs.v);
  free(outs.order);
  return rc;
}

static int by_ends(const void *ctx, uint32_t x, uint32_t y) {
  const lgp_profile *p = ((const rwork *)ctx)->p;
  const lgp_residual *l = &((const rwork *)ctx)->sel->residual[x];
  const lgp_residual *r = &((const rwork *)ctx)->sel->residual[y];
  return cmp_ends(&p->graph, l->caller, l->callee, r->caller, r->callee);
}

/* Sorts the residual edges by their ends' indices and lays each one's
** via entries out contiguously, in the order they were found. */
static int lay_out(rwork *w) {
  lgp_selection *sel = w->sel;
  size_t n = sel->nresidual, i, at = 0;
  uint32_t *order = lgp_alloc_array(n ? n : 1, sizeof *order);
  uint32_t *cursor = lgp_alloc_array(n ? n : 1, sizeof *cursor); /* by edge found */
  lgp_residual *edges = lgp_alloc_array(n ? n : 1, sizeof *edges);
  uint32_t *via = lgp_alloc_array(sel->nvia ? sel->nvia : 1, sizeof *via);
  int rc = -1;
  if (order == NULL || cursor == NULL || edges == NULL || via == NULL)
    goto out;
  for (i = 0; i < n; i++)
    order[i] = (uint32_t)i;
  if (lgp_sort_indices(order, n, by_ends, w) != 0)
    goto out;
  for (i = 0; i < n; i++) {
    edges[i] = sel->residual[order[i]];
    edges[i].via_first = cursor[order[i]] = (uint32_t)at;
    at += edges[i].nvia;
  }
  for (i = 0; i < sel->nvia; i++)
    via[cursor[w->via_edge[i]]++] = sel->via[i];
  free(sel->residual);
  free(sel->via);
  sel->residual = edges;
  sel->via = via;
  edges = NULL;
  via = NULL;
  rc = 0;
out:
  free(order);
  free(cursor);
  free(edges);
  free(via);
  return rc;
}

/* }====================================================== */

int lgp_select(const lgp_profile *p, const lgp_select_spec *spec, lgp_selection *sel) {
  const lgp_graph *g = &p->graph;
  size_t n = g->nsyms, k;
  rwork w;
  int rc = -1;
  memset(sel, 0, sizeof *sel);
  memset(&w, 0, sizeof w);
  sel->kept = lgp_calloc_array(n ? n : 1, 1);
  sel->arc_kept = lgp_calloc_array(g->arcs.narcs ? g->arcs.narcs : 1, 1);
  sel->nodes = lgp_alloc_array(n ? n : 1, sizeof *sel->nodes);
  sel->arcs = lgp_alloc_array(g->arcs.narcs ? g->arcs.narcs : 1, sizeof *sel->arcs);
  if (sel->kept == NULL || sel->arc_kept == NULL || sel->nodes == NULL || sel->arcs == NULL)
    goto out;
  keep_nodes(p, spec, sel);
  if (keep_arcs(p, spec, sel) != 0)
    goto out;
  if (!spec->residual || !(graph_seconds(p) > 0.0))
    return 0;
  w.p = p;
  w.sel = sel;
  w.limit = spec->edge_fraction * graph_seconds(p);
  lgp_arctab_init(&w.drawn, n);
  lgp_arctab_init(&w.pairs, n);
  for (k = 0; k < g->arcs.narcs; k++)
    if (sel->arc_kept[k] &&
        lgp_arctab_add(&w.drawn, g->arcs.arcs[k].parent, g->arcs.arcs[k].child, 0) != 0)
      goto out;
  if (residual_edges(&w) != 0 || lay_out(&w) != 0)
    goto out;
  rc = 0;
out:
  lgp_arctab_free(&w.drawn);
  lgp_arctab_free(&w.pairs);
  free(w.via_edge);
  if (rc != 0)
    lgp_selection_free(sel);
  return rc;
}

void lgp_selection_free(lgp_selection *sel) {
  free(sel->kept);
  free(sel->arc_kept);
  free(sel->nodes);
  free(sel->arcs);
  free(sel->residual);
  free(sel->via);
  memset(sel, 0, sizeof *sel);
}
