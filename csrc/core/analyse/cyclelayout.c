/*
** cyclelayout.c: laying out a strongly connected component in a line so
** that the arcs pointing backwards, the ones to cut, carry few calls.
** Four layouts are tried and the lightest kept (on a huge component the
** order by id alone when it is good enough: lgp_cclayout_order): the symbols'
** order and its reverse, a depth-first search following the heaviest arcs
** first, and the heuristic of Eades, Lin and Smyth (1993) weighted by call counts:
** sinks are peeled to the right end, sources to the left end, otherwise
** the node whose calls out outweigh its calls in the most goes left, so
** heavy arcs tend to point forward. O((V + E) log V) (a binary heap of the
** nodes); every walk is iterative.
*/
#include <stdlib.h>
#include <string.h>

#include "analyse/cyclelayout.h"

typedef lgp_cclayout work;
#define inside(w, k, c) lgp_ccgraph_inside((w)->g, k, c)
#define NONE UINT32_MAX

/* {====================================================== the ordering */

/* Is node a a better next pick than b: more calls out than in, then
** more arcs out than in, then the lower id (a stable, repeatable order)? */
static int better(const work *w, uint32_t a, uint32_t b) {
  double da = w->wout[a] - w->win[a], db = w->wout[b] - w->win[b];
  int64_t ia, ib;
  if (da != db)
    return da > db;
  ia = (int64_t)w->dout[a] - (int64_t)w->din[a];
  ib = (int64_t)w->dout[b] - (int64_t)w->din[b];
  if (ia != ib)
    return ia > ib;
  return a < b;
}

static void heap_set(work *w, size_t i, uint32_t v) {
  w->heap[i] = v;
  w->hpos[v] = (uint32_t)i;
}

static void sift_up(work *w, size_t i) {
  uint32_t v = w->heap[i];
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!better(w, v, w->heap[parent]))
      break;
    heap_set(w, i, w->heap[parent]);
    i = parent;
  }
  heap_set(w, i, v);
}

static void sift_down(work *w, size_t i) {
  uint32_t v = w->heap[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= w->hn)
      break;
    if (c + 1 < w->hn && better(w, w->heap[c + 1], w->heap[c]))
      c++;
    if (!better(w, w->heap[c], v))
      break;
    heap_set(w, i, w->heap[c]);
    i = c;
  }
  heap_set(w, i, v);
}

static void heap_remove(work *w, uint32_t v) {
  size_t i = w->hpos[v];
  uint32_t last;
  w->hpos[v] = NONE;
  last = w->heap[--w->hn];
  if (i == w->hn)
    return;
  heap_set(w, i, last);
  sift_up(w, i);
  sift_down(w, w->hpos[last]);
}

static void heap_update(work *w, uint32_t v) {
  if (w->hpos[v] == NONE)
    return;
  sift_up(w, w->hpos[v]);
  sift_down(w, w->hpos[v]);
}

/* Takes v out of what is left to lay out; its neighbours lose an arc. */
static void place(work *w, uint32_t c, uint32_t v, size_t *nsinks, size_t *nsources) {
  uint32_t e;
  w->placed[v] = 1;
  heap_remove(w, v);
  for (e = w->g->out_off[v]; e < w->g->out_off[v + 1]; e++) {
    uint32_t k = w->g->out_arc[e], u = w->g->arcs[k].to;
    if (!inside(w, k, c) || w->placed[u])
      continue;
    w->din[u]--;
    w->win[u] -= (double)w->g->arcs[k].count;
    heap_update(w, u);
    if (w->din[u] == 0)
      w->sources[(*nsources)++] = u;
  }
  for (e = w->g->in_off[v]; e < w->g->in_off[v + 1]; e++) {
    uint32_t k = w->g->in_arc[e], u = w->g->arcs[k].from;
    if (!inside(w, k, c) || w->placed[u])
      continue;
    w->dout[u]--;
    w->wout[u] -= (double)w->g->arcs[k].count;
    heap_update(w, u);
    if (w->dout[u] == 0)
      w->sinks[(*nsinks)++] = u;
  }
}

/* Eades-Lin-Smyth: lays out component c into pos[] of its members. */
static void order_els(work *w, uint32_t c, uint32_t *pos) {
  const uint32_t *mb = w->g->members + w->g->memb_off[c];
  size_t size = w->g->csize[c], i, left = 0, right = size, nsinks = 0, nsources = 0;
  size_t placed = 0;
  for (i = 0; i < size; i++) {
    uint32_t v = mb[i];
    w->dout[v] = w->din[v] = 0;
    w->wout[v] = w->win[v] = 0;
    w->placed[v] = 0;
  }
  for (i = 0; i < size; i++) {
    uint32_t v = mb[i], e;
    for (e = w->g->out_off[v]; e < w->g->out_off[v + 1]; e++) {
      uint32_t k = w->g->out_arc[e], u = w->g->arcs[k].to;
      if (!inside(w, k, c))
        continue;
      w->dout[v]++;
      w->wout[v] += (double)w->g->arcs[k].count;
      w->din[u]++;
      w->win[u] += (double)w->g->arcs[k].count;
    }
  }
  w->hn = 0;
  for (i = 0; i < size; i++) {
    uint32_t v = mb[i];
    heap_set(w, w->hn++, v);
    sift_up(w, w->hn - 1);
    if (w->dout[v] == 0)
      w->sinks[nsinks++] = v;
    else if (w->din[v] == 0)
      w->sources[nsources++] = v;
  }
  while (placed < size) {
    uint32_t v;
    if (nsinks > 0) {
      v = w->sinks[--nsinks];
      if (w->placed[v])
        continue;
      pos[v] = (uint32_t)--right;
    } else if (nsources > 0) {
      v = w->sources[--nsources];
      if (w->placed[v])
        continue;
      pos[v] = (uint32_t)left++;
    } else {
      v = w->heap[0];
      pos[v] = (uint32_t)left++;
    }
    place(w, c, v, &nsinks, &nsources);
    placed++;
  }
}

/* A depth-first search of component c, heaviest arcs first, from the
** member that calls from outside enter the most: its reverse postorder
** into pos[]. Its back arcs are the calls to a function already on the
** search's path, as a recursion returns to a caller. */
static void order_dfs(work *w, uint32_t c, uint32_t *pos) {
  const uint32_t *mb = w->g->members + w->g->memb_off[c];
  size_t size = w->g->csize[c], i, post = 0, r;
  uint32_t root = mb[0];
  double best = -1;
  for (i = 0; i < size; i++) {
    uint32_t v = mb[i], e;
    double in = 0;
    w->placed[v] = 0;
    for (e = w->g->in_off[v]; e < w->g->in_off[v + 1]; e++) {
      uint32_t k = w->g->in_arc[e];
      if (!w->g->dead[k] && w->g->comp[w->g->arcs[k].from] != c)
        in += (double)w->g->arcs[k].count;
    }
    if (in > best) {
      best = in;
      root = v;
    }
  }
  for (r = 0; r <= size; r++) {
    uint32_t start = r == 0 ? root : mb[r - 1];
    size_t top = 1;
    if (w->placed[start])
      continue;
    w->placed[start] = 1;
    w->call_node[0] = start;
    w->call_edge[0] = w->g->out_off[start];
    while (top > 0) {
      uint32_t v = w->call_node[top - 1], e = w->call_edge[top - 1];
      if (e < w->g->out_off[v + 1]) {
        uint32_t k = w->g->out_arc[e], u = w->g->arcs[k].to;
        w->call_edge[top - 1] = e + 1;
        if (!inside(w, k, c) || w->placed[u])
          continue;
        w->placed[u] = 1;
        w->call_node[top] = u;
        w->call_edge[top] = w->g->out_off[u];
        top++;
      } else {
        pos[v] = (uint32_t)(size - 1 - post++);
        top--;
      }
    }
  }
}

/* The calls on the back arcs of a layout of component c, and how many
** arcs the component has. */
static double back_weight(const work *w, uint32_t c, const uint32_t *pos, size_t *narcs) {
  const uint32_t *mb = w->g->members + w->g->memb_off[c];
  size_t size = w->g->csize[c], i;
  double sum = 0;
  *narcs = 0;
  for (i = 0; i < size; i++) {
    uint32_t v = mb[i], e;
    for (e = w->g->out_off[v]; e < w->g->out_off[v + 1]; e++) {
      uint32_t k = w->g->out_arc[e];
      if (!inside(w, k, c))
        continue;
      ++*narcs;
      if (pos[w->g->arcs[k].to] < pos[v])
        sum += (double)w->g->arcs[k].count + 1e-9 * (double)w->g->arcs[k].count + 1e-6;
    }
  }
  return sum;
}

/* The calls on the back arcs of component c laid out by node id (the
** order of the symbols' addresses: compilers emit a file's functions in
** source order, and C defines a callee before its callers more often than
** not), forwards (*fwd) and backwards (*bwd), and their counts of back
** arcs; one pass, the order being the ids themselves. Returns the
** component's arc count. */
static size_t id_weights(const work *w, uint32_t c, double *fwd, double *bwd, size_t *nfwd,
                         size_t *nbwd) {
  const uint32_t *mb = w->g->members + w->g->memb_off[c];
  size_t size = w->g->csize[c], i, narcs = 0;
  *fwd = *bwd = 0;
  *nfwd = *nbwd = 0;
  for (i = 0; i < size; i++) {
    uint32_t v = mb[i], e;
    for (e = w->g->out_off[v]; e < w->g->out_off[v + 1]; e++) {
      uint32_t k = w->g->out_arc[e], u = w->g->arcs[k].to;
      double cost;
      if (!inside(w, k, c))
        continue;
      narcs++;
      cost = (double)w->g->arcs[k].count + 1e-9 * (double)w->g->arcs[k].count + 1e-6;
      if (u < v) {
        *fwd += cost;
        ++*nfwd;
      } else {
        *bwd += cost;
        ++*nbwd;
      }
    }
  }
  return narcs;
}

static void order_ids(const work *w, uint32_t c, uint32_t *pos, int backwards) {
  const uint32_t *mb = w->g->members + w->g->memb_off[c];
  size_t size = w->g->csize[c], i;
  for (i = 0; i < size; i++)
    pos[mb[i]] = (uint32_t)(backwards ? size - 1 - i : i);
}

/* Keeps the layout in w->pos_alt if its back arcs weigh less than best. */
static void keep_lighter(work *w, uint32_t c, double *best, size_t *narcs) {
  double weight = back_weight(w, c, w->pos_alt, narcs);
  if (weight < *best) {
    const uint32_t *mb = w->g->members + w->g->memb_off[c];
    size_t i;
    *best = weight;
    for (i = 0; i < w->g->csize[c]; i++)
      w->pos[mb[i]] = w->pos_alt[mb[i]];
  }
}

/* The back arcs of component c laid out in w->pos. */
static size_t back_count(const work *w, uint32_t c) {
  const uint32_t *mb = w->g->members + w->g->memb_off[c];
  size_t i, nback = 0;
  for (i = 0; i < w->g->csize[c]; i++) {
    uint32_t v = mb[i], e;
    for (e = w->g->out_off[v]; e < w->g->out_off[v + 1]; e++)
      nback += inside(w, w->g->out_arc[e], c) && w->pos[w->g->arcs[w->g->out_arc[e]].to] < w->pos[v];
  }
  return nback;
}

/* Lays out component c into pos (w->pos): of the layouts tried (the symbols'
** order and its reverse, a depth-first search, Eades-Lin-Smyth), the one
** whose back arcs carry the fewest calls; returns the component's arc
** count. On a component of more than LGP_CCGRAPH_BIG_ARCS arcs that an order by id
** already cuts to at most a tenth of its arcs, the other two, which cost
** a walk of the component each (Eades-Lin-Smyth a heap update per arc
** too), are left out (on the 100,000-member component of a synthetic
** profile they took a third of the search and did not win); and
** Eades-Lin-Smyth when the depth-first search does as well. */
int lgp_cclayout_order(work *w, lgp_ccgraph *g, uint32_t c, uint32_t *pos, size_t *narcs) {
  size_t nfwd, nbwd;
  double fwd, bwd, best;
  int sorted = 0;
  w->g = g;
  w->pos = pos;
  *narcs = id_weights(w, c, &fwd, &bwd, &nfwd, &nbwd);
  if (*narcs <= LGP_CCGRAPH_BIG_ARCS) { /* (the sums in the same order as the layouts') */
    if (lgp_ccgraph_sort_lists(g, c) != 0)
      return -1;
    sorted = 1;
    id_weights(w, c, &fwd, &bwd, &nfwd, &nbwd);
  }
  order_ids(w, c, w->pos, bwd < fwd);
  best = bwd < fwd ? bwd : fwd;
  if (*narcs > LGP_CCGRAPH_BIG_ARCS && (bwd < fwd ? nbwd : nfwd) <= *narcs / 10)
    return 0;
  if (!sorted && lgp_ccgraph_sort_lists(g, c) != 0) /* the search follows the heaviest first */
    return -1;
  order_dfs(w, c, w->pos_alt);
  keep_lighter(w, c, &best, narcs);
  if (*narcs > LGP_CCGRAPH_BIG_ARCS && back_count(w, c) <= *narcs / 10)
    return 0;
  order_els(w, c, w->pos_alt);
  keep_lighter(w, c, &best, narcs);
  return 0;
}

/* }====================================================== */

int lgp_cclayout_init(lgp_cclayout *l, size_t nodes) {
  size_t n = nodes ? nodes : 1;
  memset(l, 0, sizeof *l);
#define A(field) ((l->field = lgp_calloc_array(n, sizeof *l->field)) == NULL)
  if (A(wout) || A(win) || A(dout) || A(din) || A(pos_alt) || A(heap) || A(hpos) || A(sinks) ||
      A(sources) || A(call_node) || A(call_edge) || A(placed)) {
    lgp_cclayout_free(l);
    return -1;
  }
#undef A
  return 0;
}

void lgp_cclayout_free(lgp_cclayout *l) {
  free(l->wout); free(l->win); free(l->dout); free(l->din); free(l->pos_alt);
  free(l->heap); free(l->hpos); free(l->sinks); free(l->sources);
  free(l->call_node); free(l->call_edge); free(l->placed);
  memset(l, 0, sizeof *l);
}
