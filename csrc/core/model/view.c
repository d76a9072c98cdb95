/*
** view.c: filtered views of an analysed profile. A view is a profile of its
** own (same symbols, borrowed image and files) whose samples and arcs were
** edited by the filters and then analysed again by the normal pipeline, so
** its cycles, propagated times and orderings are gprof's on the edited
** graph. Every pass is a linear walk with explicit queues.
**
** Structural filters, in this order, on the base's graph:
**   ignore      drop matches and whatever is reachable only through them
**   prune_from  drop the descendants reachable only through matches
**   focus       keep the call paths through matches: their ancestors and
**               descendants; only time spent in or under a match counts (a
**               descendant also called from elsewhere keeps the share of
**               its time that its calls from the kept paths carry)
**   hide        remove matches; their samples go to their callers (by call
**               count) and their callers call their callees directly
** Thresholds, on the result of those (analysed), applied together:
**   node_fraction, edge_fraction, top, min_calls: select.c's selection,
**   which only marks what is not shown (times and totals stay).
** Functions removed by a structural filter lose their samples (total_time
** says so), except hidden ones, whose time moves.
*/
#include <stdlib.h>
#include <string.h>

#include "model/select.h"
#include "model/view.h"

/* The editable graph: arcs in an arc table (for merging duplicates), an
** alive flag each, and per-node linked lists of in and out arcs. */
typedef struct wgraph {
  lgp_arctab arcs;
  uint8_t *alive;
  uint32_t *out_head, *out_next, *in_head, *in_next;
  size_t cap;             /* of alive/out_next/in_next */
  size_t n;               /* symbols */
  double *self;           /* samples per node (ticks) */
  uint8_t *gone;          /* removed nodes */
  uint32_t *queue;
  uint8_t *mark, *mark2;
} wgraph;

static void wg_free(wgraph *g) {
  lgp_arctab_free(&g->arcs);
  free(g->alive);
  free(g->out_head);
  free(g->out_next);
  free(g->in_head);
  free(g->in_next);
  free(g->self);
  free(g->gone);
  free(g->queue);
  free(g->mark);
  free(g->mark2);
}

/* Adds count to the arc parent -> child, creating it (alive) if needed. */
static int wg_add(wgraph *g, uint32_t parent, uint32_t child, uint64_t count) {
  uint32_t k = lgp_arctab_find(&g->arcs, parent, child);
  size_t cap;
  int rc;
  if (k != LGP_ARC_NONE) {
    if (g->alive[k]) {
      g->arcs.arcs[k].count += count;
      if (count != 0) /* calls made: no longer only found in the code */
        g->arcs.arcs[k].is_static = g->arcs.arcs[k].is_tail = 0;
      return 0;
    }
    /* a dead arc comes back with only the new calls */
    g->alive[k] = 1;
    g->arcs.arcs[k].count = count;
    return 0;
  }
  if ((rc = lgp_arctab_add(&g->arcs, parent, child, count)) != 0)
    return rc;
  k = (uint32_t)(g->arcs.narcs - 1);
  g->arcs.arcs[k].is_static = count == 0; /* (a base arc gets the base's flags) */
  cap = g->cap;
  if (lgp_grow((void **)&g->alive, &cap, k + 1, sizeof *g->alive) != 0)
    return -1;
  cap = g->cap;
  if (lgp_grow((void **)&g->out_next, &cap, k + 1, sizeof *g->out_next) != 0)
    return -1;
  cap = g->cap;
  if (lgp_grow((void **)&g->in_next, &cap, k + 1, sizeof *g->in_next) != 0)
    return -1;
  g->cap = cap;
  g->alive[k] = 1;
  g->out_next[k] = g->out_head[parent];
  g->out_head[parent] = k;
  g->in_next[k] = g->in_head[child];
  g->in_head[child] = k;
  return 0;
}

static int wg_init(wgraph *g, const lgp_profile *base) {
  size_t n = base->graph.nsyms, k;
  memset(g, 0, sizeof *g);
  g->n = n;
  lgp_arctab_init(&g->arcs, n);
  g->out_head = lgp_alloc_array(n + 1, sizeof *g->out_head);
  g->in_head = lgp_alloc_array(n + 1, sizeof *g->in_head);
  g->self = lgp_alloc_array(n + 1, sizeof *g->self);
  g->gone = lgp_calloc_array(n + 1, 1);
  g->queue = lgp_alloc_array(n + 1, sizeof *g->queue);
  g->mark = lgp_calloc_array(n + 1, 1);
  g->mark2 = lgp_calloc_array(n + 1, 1);
  if (!g->out_head || !g->in_head || !g->self || !g->gone || !g->queue || !g->mark || !g->mark2)
    return -1;
  for (k = 0; k < n; k++) {
    g->out_head[k] = g->in_head[k] = LGP_NONE;
    g->self[k] = base->graph.nodes[k].hist_time;
    g->gone[k] = lgp_removed(base, (uint32_t)k);
  }
  for (k = 0; k < base->graph.arcs.narcs; k++) {
    const lgp_arc *a = &base->graph.arcs.arcs[k];
    if (wg_add(g, a->parent, a->child, a->count) != 0)
      return -1;
    g->arcs.arcs[k].is_static = a->is_static; /* arcs are unique: arc k is a's */
    g->arcs.arcs[k].is_tail = a->is_tail;
  }
  return 0;
}

#define FOR_OUT(g, s, k) for (k = (g)->out_head[s]; k != LGP_NONE; k = (g)->out_next[k])
#define FOR_IN(g, s, k) for (k = (g)->in_head[s]; k != LGP_NONE; k = (g)->in_next[k])

static void drop_node(wgraph *g, uint32_t s) {
  uint32_t k;
  g->gone[s] = 1;
  g->self[s] = 0.0;
  FOR_OUT(g, s, k)
    g->alive[k] = 0;
  FOR_IN(g, s, k)
    g->alive[k] = 0;
}

/* Marks in `mark` every node reachable from the marked ones along live
** arcs (forward, or backward when up), not entering nodes in `stop`. */
static void reach(wgraph *g, uint8_t *mark, const uint8_t *stop, int up) {
  size_t head = 0, tail = 0, s;
  for (s = 0; s < g->n; s++)
    if (mark[s])
      g->queue[tail++] = (uint32_t)s;
  while (head < tail) {
    uint32_t v = g->queue[head++], k;
    for (k = up ? g->in_head[v] : g->out_head[v]; k != LGP_NONE;
         k = up ? g->in_next[k] : g->out_next[k]) {
      const lgp_arc *a = &g->arcs.arcs[k];
      uint32_t w = up ? a->parent : a->child;
      if (!g->alive[k] || mark[w] || g->gone[w] || (stop != NULL && stop[w]))
        continue;
      mark[w] = 1;
      g->queue[tail++] = w;
    }
  }
}

static int has_live_caller(wgraph *g, uint32_t s) {
  uint32_t k;
  FOR_IN(g, s, k)
    if (g->alive[k] && g->arcs.arcs[k].parent != s)
      return 1;
  return 0;
}

/* Drops what is reachable from `from` but not from the roots outside it;
** from nodes themselves are dropped when drop_from. */
static void drop_reachable_only_through(wgraph *g, const uint8_t *from, int drop_from) {
  size_t s;
  memset(g->mark, 0, g->n);
  memset(g->mark2, 0, g->n);
  for (s = 0; s < g->n; s++)
    if (!g->gone[s] && !from[s] && !has_live_caller(g, (uint32_t)s))
      g->mark[s] = 1;
  reach(g, g->mark, from, 0);   /* mark: reached from roots, not through from */
  for (s = 0; s < g->n; s++)
    g->mark2[s] = from[s] && !g->gone[s];
  reach(g, g->mark2, NULL, 0);                     /* mark2: under the matches */
  for (s = 0; s < g->n; s++)
    if (g->mark2[s] && !g->gone[s] && (from[s] ? drop_from : !g->mark[s]))
      drop_node(g, (uint32_t)s);
}

/* Descendants are judged on the graph as it was, then the matches lose
** their calls. */
static void apply_prune(wgraph *g, const uint8_t *prune) {
  size_t s;
  uint32_t k;
  drop_reachable_only_through(g, prune, 0);
  for (s = 0; s < g->n; s++)
    if (prune[s] && !g->gone[s])
      FOR_OUT(g, s, k)
        if (g->arcs.arcs[k].child != s)
          g->alive[k] = 0;
}

/* Keeps the call paths through the matches. A descendant keeps the share
** of its samples that its calls from the kept paths carry, by call counts
** as gprof apportions time (a match keeps all of its own): callers are
** visited before callees (the base's topological order, roots first), so
** shares compound down a chain. Inside a cycle the order is arbitrary and
** the shares are an estimate. */
static int apply_focus(wgraph *g, const uint8_t *focus, const lgp_graph *order) {
  uint8_t *down = g->mark, *up = g->mark2;
  double *calls_in = lgp_calloc_array(g->n ? g->n : 1, sizeof *calls_in);
  double *share = lgp_calloc_array(g->n ? g->n : 1, sizeof *share);
  size_t s, k, i;
  if (calls_in == NULL || share == NULL) {
    free(calls_in);
    free(share);
    return -1;
  }
  for (s = 0; s < g->n; s++)
    down[s] = up[s] = focus[s] && !g->gone[s];
  reach(g, down, NULL, 0);
  reach(g, up, NULL, 1);
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    if (g->alive[k] && a->parent != a->child)
      calls_in[a->child] += (double)a->count;
  }
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    if (!(up[a->child] || down[a->parent]))
      g->alive[k] = 0;
  }
  for (i = order->nsyms; i-- > 0;) {
    uint32_t v = order->top_sorted[i], kin;
    double f = 0.0;
    if (g->gone[v] || !down[v])
      continue;
    if (focus[v] || calls_in[v] == 0.0) {
      share[v] = 1.0; /* a match, or a root of the kept paths */
      continue;
    }
    FOR_IN(g, v, kin) {
      const lgp_arc *a = &g->arcs.arcs[kin];
      if (g->alive[kin] && a->parent != v && down[a->parent])
        f += share[a->parent] * ((double)a->count / calls_in[v]);
    }
    share[v] = f < 1.0 ? f : 1.0;
  }
  for (s = 0; s < g->n; s++) {
    if (g->gone[s])
      continue;
    if (!down[s] && !up[s])
      drop_node(g, (uint32_t)s);
    else if (!down[s])
      g->self[s] = 0.0; /* an ancestor only: its own time is not on a path */
    else
      g->self[s] *= share[s];
  }
  free(calls_in);
  free(share);
  return 0;
}

/* Calls through h become direct: caller c gets round(w_c * x_d / W) calls
** to callee d (at least one), and h's samples go to c in proportion w_c/W.
** A hidden root passes its samples to its callees instead. */
static int hide_one(wgraph *g, uint32_t h) {
  uint64_t win = 0, wout = 0;
  uint32_t kin, kout;
  int rc;
  FOR_IN(g, h, kin)
    if (g->alive[kin] && g->arcs.arcs[kin].parent != h)
      win += g->arcs.arcs[kin].count;
  FOR_OUT(g, h, kout)
    if (g->alive[kout] && g->arcs.arcs[kout].child != h)
      wout += g->arcs.arcs[kout].count;
  FOR_IN(g, h, kin) {
    lgp_arc ain = g->arcs.arcs[kin];
    if (!g->alive[kin] || ain.parent == h)
      continue;
    if (win != 0)
      g->self[ain.parent] += g->self[h] * ((double)ain.count / (double)win);
    FOR_OUT(g, h, kout) {
      lgp_arc aout = g->arcs.arcs[kout];
      double c;
      if (!g->alive[kout] || aout.child == h)
        continue;
      c = (double)ain.count * (double)aout.count / (double)win + 0.5;
      if ((rc = wg_add(g, ain.parent, aout.child, c >= 2.0 ? (uint64_t)c : 1)) != 0)
        return rc;
    }
  }
  if (win == 0 && wout != 0)
    FOR_OUT(g, h, kout)
      if (g->alive[kout] && g->arcs.arcs[kout].child != h)
        g->self[g->arcs.arcs[kout].child] +=
            g->self[h] * ((double)g->arcs.arcs[kout].count / (double)wout);
  /* isolated (no callers, no callees): its time has nowhere to go and
     leaves the view with it, as a removed function's does */
  drop_node(g, h);
  return 0;
}

static int apply_hide(wgraph *g, const uint8_t *hide) {
  size_t s;
  int rc;
  for (s = 0; s < g->n; s++)
    if (hide[s] && !g->gone[s] && (rc = hide_one(g, (uint32_t)s)) != 0)
      return rc;
  return 0;
}

static int has_thresholds(const lgp_view_spec *s) {
  return s->node_fraction > 0.0 || s->edge_fraction > 0.0 || s->top > 0 || s->min_calls > 0;
}

static int has_structure(const lgp_view_spec *s) {
  return s->focus || s->ignore || s->hide || s->prune_from;
}

/* The view profile from the edited graph, analysed. */
static int assemble_view(lgp_profile *v, const lgp_profile *base, wgraph *g, lgp_err *err) {
  size_t n = base->graph.nsyms, s, k;
  double dropped = 0.0;
  lgp_node *nodes;
  lgp_profile_borrow(v, base);
  nodes = lgp_calloc_array(n ? n : 1, sizeof *nodes);
  v->removed = v->removed_own = lgp_calloc_array(n ? n : 1, 1);
  lgp_graph_init(&v->graph, nodes, n);
  if (nodes == NULL || v->removed_own == NULL)
    goto oom;
  for (s = 0; s < n; s++) { /* node s is symbol s of the image */
    const lgp_node *b = &base->graph.nodes[s];
    lgp_node *d = &nodes[s];
    lgp_symtab_node_init(d, (uint32_t)s, &base->image->syms[s], b->end_addr);
    d->spec = b->spec;
    d->hist_time = g->gone[s] ? 0.0 : g->self[s];
    v->removed_own[s] = g->gone[s];
    dropped += b->hist_time - d->hist_time;
  }
  /* gprof's credits can add up to more than the samples (bins split over
     routines), so what remains is clamped at zero */
  v->graph.total_time = base->graph.total_time - dropped > 0.0
                      ? base->graph.total_time - dropped : 0.0;
  for (k = 0; k < g->arcs.narcs; k++) {
    const lgp_arc *a = &g->arcs.arcs[k];
    if (g->alive[k] && !g->gone[a->parent] && !g->gone[a->child]) {
      lgp_arc *na;
      if (lgp_arctab_add(&v->graph.arcs, a->parent, a->child, a->count) != 0)
        goto oom;
      na = &v->graph.arcs.arcs[v->graph.arcs.narcs - 1];
      na->is_static = a->is_static;
      na->is_tail = a->is_tail;
    }
  }
  if (lgp_graph_analyse(&v->graph, v->specs, LGP_GRAPH_ALL, err) != 0)
    goto fail;
  if (v->graph.ncycles > 0) { /* the removed set covers the cycles too */
    uint8_t *all = realloc(v->removed_own, n + v->graph.ncycles);
    if (all == NULL)
      goto oom;
    memset(all + n, 0, v->graph.ncycles);
    v->removed = v->removed_own = all;
  }
  return 0;
oom:
  lgp_fail(err, NULL, "out of memory");
fail:
  lgp_profile_free(v);
  return -1;
}

/* Thresholds only choose what is shown (select.c): the view is a copy of
** src's analysis with the rest marked removed, so what survives keeps its
** times and src's totals stay the denominators. */
static int threshold_view(lgp_profile *v, const lgp_profile *src, const lgp_view_spec *spec,
                          lgp_err *err) {
  const lgp_graph *g = &src->graph;
  size_t n = g->nsyms, k;
  lgp_select_spec ss;
  lgp_selection sel;
  lgp_profile_borrow(v, src);
  memset(&ss, 0, sizeof ss);
  ss.node_fraction = spec->node_fraction;
  ss.edge_fraction = spec->edge_fraction;
  ss.max_nodes = spec->top > 0 ? spec->top : SIZE_MAX;
  ss.min_calls = spec->min_calls;
  if (lgp_select(src, &ss, &sel) != 0)
    return lgp_fail(err, NULL, "out of memory");
  v->removed = v->removed_own = lgp_calloc_array(n + g->ncycles + 1, 1);
  v->arc_removed = v->arc_removed_own = lgp_calloc_array(g->arcs.narcs + 1, 1);
  if (v->removed_own == NULL || v->arc_removed_own == NULL ||
      lgp_graph_copy(&v->graph, g) != 0) {
    lgp_selection_free(&sel);
    lgp_profile_free(v);
    return lgp_fail(err, NULL, "out of memory");
  }
  for (k = 0; k < n; k++)
    v->removed_own[k] = !sel.kept[k];
  for (k = n; k < n + g->ncycles; k++) { /* a cycle goes with its last member */
    uint32_t m;
    v->removed_own[k] = 1;
    for (m = g->nodes[k].cyc_next; m != LGP_NONE; m = g->chain[m])
      if (sel.kept[m])
        v->removed_own[k] = 0;
  }
  for (k = 0; k < g->arcs.narcs; k++)
    v->arc_removed_own[k] = !sel.arc_kept[k];
  lgp_selection_free(&sel);
  return 0;
}

int lgp_view_build(lgp_profile *view, const lgp_profile *base, const lgp_view_spec *spec,
                   lgp_err *err) {
  wgraph g;
  int rc;
  if (has_thresholds(spec)) {
    /* thresholds judge the structurally filtered, re-analysed graph */
    lgp_view_spec first = *spec;
    lgp_profile mid;
    if (!has_structure(spec))
      return threshold_view(view, base, spec, err);
    first.node_fraction = first.edge_fraction = 0.0;
    first.top = 0;
    first.min_calls = 0;
    if (lgp_view_build(&mid, base, &first, err) != 0)
      return -1;
    rc = threshold_view(view, &mid, spec, err);
    lgp_profile_free(&mid);
    return rc;
  }
  if (wg_init(&g, base) != 0) {
    wg_free(&g);
    return lgp_fail(err, NULL, "out of memory");
  }
  rc = 0;
  if (spec->ignore)
    drop_reachable_only_through(&g, spec->ignore, 1);
  if (spec->prune_from)
    apply_prune(&g, spec->prune_from);
  if (spec->focus)
    rc = apply_focus(&g, spec->focus, &base->graph);
  if (spec->hide && rc == 0)
    rc = apply_hide(&g, spec->hide);
  if (rc != 0) {
    wg_free(&g);
    if (rc == LGP_ARCS_FULL) /* hiding links callers to callees: new arcs */
      return lgp_fail(err, NULL, LGP_ARCS_FULL_MSG, (unsigned long)LGP_ARCS_MAX);
    return lgp_fail(err, NULL, "out of memory");
  }
  rc = assemble_view(view, base, &g, err);
  wg_free(&g);
  return rc;
}
