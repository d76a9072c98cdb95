/*
** ccgraph.c: the graph a cycle cut works on (ccgraph.h): its arc lists and
** its strongly connected components.
*/
#include <stdlib.h>
#include <string.h>

#include "analyse/ccgraph.h"

#define NONE UINT32_MAX

int lgp_ccgraph_heavier(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_cutarc *arcs = ctx;
  if (arcs[a].count != arcs[b].count)
    return arcs[a].count > arcs[b].count ? -1 : 1;
  return a < b ? -1 : a > b;
}

/* The arcs by caller and by callee (a counting sort by node: one pass to
** count, one to place; each node's arcs in arc order until
** lgp_ccgraph_sort_lists orders a component's heaviest first, which only its
** layouts need); recursive and skipped arcs are left out for good. */
static void build_adjacency(lgp_ccgraph *g, const uint8_t *skip) {
  size_t k, i;
  for (k = 0; k < g->m; k++) {
    const lgp_cutarc *a = &g->arcs[k];
    g->dead[k] = (skip != NULL && skip[k]) || a->from == a->to;
    if (!g->dead[k]) {
      g->out_off[a->from + 1]++;
      g->in_off[a->to + 1]++;
    }
  }
  for (i = 0; i < g->n; i++) {
    g->out_off[i + 1] += g->out_off[i];
    g->in_off[i + 1] += g->in_off[i];
  }
  /* idx and low serve as the fill cursors */
  memcpy(g->idx, g->out_off, g->n * sizeof *g->idx);
  memcpy(g->low, g->in_off, g->n * sizeof *g->low);
  for (k = 0; k < g->m; k++) {
    const lgp_cutarc *a = &g->arcs[k];
    if (g->dead[k])
      continue;
    g->out_arc[g->idx[a->from]++] = (uint32_t)k;
    g->in_arc[g->low[a->to]++] = (uint32_t)k;
  }
}

int lgp_ccgraph_sort_lists(lgp_ccgraph *g, uint32_t c) {
  const uint32_t *mb = g->members + g->memb_off[c];
  size_t i;
  for (i = 0; i < g->csize[c]; i++) {
    uint32_t v = mb[i];
    if (lgp_sort_indices(g->out_arc + g->out_off[v], g->out_off[v + 1] - g->out_off[v],
                         lgp_ccgraph_heavier, g->arcs) != 0 ||
        lgp_sort_indices(g->in_arc + g->in_off[v], g->in_off[v + 1] - g->in_off[v],
                         lgp_ccgraph_heavier, g->arcs) != 0)
      return -1;
  }
  return 0;
}

/* Tarjan's algorithm over the live arcs, with an explicit call stack. The
** callees are copied next to the lists first: one pass in list order lets
** the memory fetch the arcs ahead, where the search, reading them in its
** own order, waits for each (a third of its time on a million arcs). */
static void components(lgp_ccgraph *g) {
  uint32_t counter = 0, sp = 0, ncomp = 0, r;
  size_t i, j, nlisted = g->out_off[g->n];
  for (j = 0; j < nlisted; j++) {
    uint32_t k = g->out_arc[j];
    g->out_to[j] = g->dead[k] ? NONE : g->arcs[k].to;
  }
  for (i = 0; i < g->n; i++)
    g->idx[i] = NONE;
  for (r = 0; r < g->n; r++) {
    size_t top = 1;
    if (g->idx[r] != NONE)
      continue;
    g->call_node[0] = r;
    g->call_edge[0] = g->out_off[r];
    g->idx[r] = g->low[r] = counter++;
    g->stack[sp++] = r;
    g->onstack[r] = 1;
    while (top > 0) {
      uint32_t v = g->call_node[top - 1], e = g->call_edge[top - 1];
      if (e < g->out_off[v + 1]) {
        uint32_t u = g->out_to[e];
        g->call_edge[top - 1] = e + 1;
        if (u == NONE)
          continue;
        if (g->idx[u] == NONE) {
          g->idx[u] = g->low[u] = counter++;
          g->stack[sp++] = u;
          g->onstack[u] = 1;
          g->call_node[top] = u;
          g->call_edge[top] = g->out_off[u];
          top++;
        } else if (g->onstack[u] && g->idx[u] < g->low[v]) {
          g->low[v] = g->idx[u];
        }
      } else {
        top--;
        if (g->low[v] == g->idx[v]) {
          uint32_t x, size = 0;
          do {
            x = g->stack[--sp];
            g->onstack[x] = 0;
            g->comp[x] = ncomp;
            size++;
          } while (x != v);
          g->csize[ncomp++] = size;
        }
        if (top > 0) {
          uint32_t p = g->call_node[top - 1];
          if (g->low[v] < g->low[p])
            g->low[p] = g->low[v];
        }
      }
    }
  }
  g->ncomp = ncomp;
}

/* The members of each component, by node id (after components()). */
static void list_members(lgp_ccgraph *g) {
  size_t i;
  uint32_t c;
  memset(g->memb_off, 0, (g->ncomp + 1) * sizeof *g->memb_off);
  for (i = 0; i < g->n; i++)
    g->memb_off[g->comp[i] + 1]++;
  for (c = 0; c < g->ncomp; c++)
    g->memb_off[c + 1] += g->memb_off[c];
  /* stack serves as the fill cursor of each component */
  for (c = 0; c < g->ncomp; c++)
    g->stack[c] = g->memb_off[c];
  for (i = 0; i < g->n; i++)
    g->members[g->stack[g->comp[i]]++] = (uint32_t)i;
}

int lgp_ccgraph_init(lgp_ccgraph *g, size_t nnodes, const lgp_cutarc *arcs, size_t narcs,
                     const uint8_t *skip) {
  size_t n = nnodes ? nnodes : 1, m = narcs ? narcs : 1;
  memset(g, 0, sizeof *g);
  g->n = nnodes;
  g->m = narcs;
  g->arcs = arcs;
#define A(field, count) ((g->field = lgp_calloc_array((count), sizeof *g->field)) == NULL)
  if (A(dead, m) || A(out_off, n + 1) || A(out_arc, m) || A(out_to, m) || A(in_off, n + 1) ||
      A(in_arc, m) || A(comp, n) || A(csize, n) || A(idx, n) || A(low, n) || A(stack, n) ||
      A(call_node, n) || A(call_edge, n) || A(onstack, n) || A(memb_off, n + 1) ||
      A(members, n)) {
    lgp_ccgraph_free(g);
    return -1;
  }
#undef A
  build_adjacency(g, skip);
  return 0;
}

void lgp_ccgraph_free(lgp_ccgraph *g) {
  free(g->dead);
  free(g->out_off); free(g->out_arc); free(g->out_to); free(g->in_off); free(g->in_arc);
  free(g->comp); free(g->csize); free(g->idx); free(g->low); free(g->stack);
  free(g->call_node); free(g->call_edge); free(g->onstack);
  free(g->memb_off); free(g->members);
  memset(g, 0, sizeof *g);
}

void lgp_ccgraph_components(lgp_ccgraph *g) {
  components(g);
  list_members(g);
}
