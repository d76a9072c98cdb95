/*
** cyclecut.c: arcs whose removal breaks the large cycles of a call graph.
**
** A minimum feedback arc set is NP-hard (BSD gprof's -C enumerates every
** elementary cycle, which is exponential), so this is a heuristic. In each
** strongly connected component of N or more members (Tarjan's search,
** iterative), the nodes are laid out in a line (cyclelayout.c: the lightest
** of up to four layouts) and the arcs pointing backwards dropped, which
** leaves no cycle. Then each dropped arc, heaviest first, is put back if it
** closes no cycle (Pearce and Kelly's dynamic topological order: a search
** of the stretch of the line the arc spans, forward and backward in turn),
** and with N above 2 if it closes only cycles below N; so the set is
** minimal, within a work budget linear in the component. gprof's -k
** deletes one callee's arcs per caller: a caller left with several cuts is
** made a source of its component instead where that is possible. With N
** above 2 a last search checks that no component of N or more members is
** left (with N = 2 every arc put back closed no cycle). Every walk is
** iterative.
*/
#include <stdlib.h>
#include <string.h>

#include "analyse/cyclelayout.h"

#define NONE UINT32_MAX

/* A cut in progress: the graph, the layouts' space, the layout of the
** component being broken and the put-back searches' state. */
typedef struct work {
  lgp_ccgraph g;
  lgp_cclayout lay;
  size_t min_members;
  uint32_t *pos;      /* n: the component's layout, kept a topological order
                         of its live arcs as arcs are put back */
  uint8_t *cut;       /* m: dropped and not put back */
  uint32_t *back, *dfs, *stamp, *stamp2, gen;
  uint32_t *back_f, *back_b, *places; /* the nodes a put-back search found */
  uint32_t *nfrom;    /* cut arcs per caller */
  int one_per_caller;
  int minimal;
} work;

#define inside(w, k, c) lgp_ccgraph_inside(&(w)->g, k, c)
/* The search for arcs to put back visits at most this many arcs per node
** and arc of a component (then the rest stay cut): a valid set in time
** linear in the graph, minimal whenever it suffices. On a component of
** more than LGP_CCGRAPH_BIG_ARCS arcs it never suffices (on the 100,000-member
** component of a synthetic profile it ran out after the heaviest sixth of
** the 30,000 dropped arcs, having put back 1,200 of them, for a fifth of
** the whole search's time), so it gets a sixteenth of that: the heaviest
** arcs, which the search puts back most often, are still offered (on that
** component 3.6% more cuts than with the whole budget, 0.3% fewer than
** with none). */
#define BUDGET 1
#define BIG_BUDGET_DIVISOR 16

/* {====================================================== components */

static lgp_cyclestats stats_of(const work *w) {
  lgp_cyclestats s = {0, 0, 0};
  uint32_t c;
  for (c = 0; c < w->g.ncomp; c++) {
    size_t k = w->g.csize[c];
    if (k < 2)
      continue;
    s.cycles++;
    s.large += k >= w->min_members;
    if (k > s.largest)
      s.largest = k;
  }
  return s;
}

/* }====================================================== */

/* {====================================================== putting back */

static int lighter(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_cutarc *arcs = ctx;
  if (arcs[a].count != arcs[b].count)
    return arcs[a].count < arcs[b].count ? -1 : 1;
  return a < b ? -1 : a > b;
}

/* One step of a search inside component c: node v's live arcs inside c,
** its callees (fwd) or its callers; each end not yet marked in mark (with
** gen), and marked in within unless that is NULL, is marked and pushed on
** stack. 1 when an end is marked in meet (not NULL) first, -1 when the
** budget runs out, else 0. */
static inline int step(work *w, uint32_t c, uint32_t v, int fwd, uint32_t gen, uint32_t *mark,
                       const uint32_t *meet, const uint32_t *within, uint32_t *stack,
                       size_t *sp, size_t *budget) {
  const uint32_t *off = fwd ? w->g.out_off : w->g.in_off, *list = fwd ? w->g.out_arc : w->g.in_arc;
  uint32_t e;
  for (e = off[v]; e < off[v + 1]; e++) {
    uint32_t a = list[e], u = fwd ? w->g.arcs[a].to : w->g.arcs[a].from;
    if (*budget == 0)
      return -1;
    (*budget)--;
    if (!inside(w, a, c) || mark[u] == gen || (within != NULL && within[u] != gen))
      continue;
    if (meet != NULL && meet[u] == gen)
      return 1;
    mark[u] = gen;
    stack[(*sp)++] = u;
  }
  return 0;
}

/* Would arc k, put back into component c, close a cycle? Does its callee
** reach its caller: a search forward from the one and backward from the
** other, a step of each in turn, until they meet (yes) or one ends (no).
** 1 yes, 0 no, -1 the budget ran out. places serves as the backward
** search's stack. */
static int closes_cycle(work *w, uint32_t c, uint32_t k, size_t *budget) {
  uint32_t from = w->g.arcs[k].from, to = w->g.arcs[k].to, gen = ++w->gen;
  size_t fsp = 0, bsp = 0;
  int rc;
  w->stamp[to] = gen;
  w->dfs[fsp++] = to;
  w->stamp2[from] = gen;
  w->places[bsp++] = from;
  while (fsp > 0 && bsp > 0) {
    if ((rc = step(w, c, w->dfs[--fsp], 1, gen, w->stamp, w->stamp2, NULL, w->dfs, &fsp,
                   budget)) != 0 ||
        (rc = step(w, c, w->places[--bsp], 0, gen, w->stamp2, w->stamp, NULL, w->places, &bsp,
                   budget)) != 0)
      return rc;
  }
  return 0;
}

/* Would arc k, put back into component c, close a cycle of min_members or
** more members? 1 yes, 0 no, -1 the budget ran out. The cycle it would
** close is the nodes its callee reaches that reach its caller. */
static int closes_large_cycle(work *w, uint32_t c, uint32_t k, size_t *budget) {
  uint32_t from = w->g.arcs[k].from, to = w->g.arcs[k].to, gen, found = 0;
  size_t sp = 0, count = 0;
  if (w->min_members <= 2)
    return closes_cycle(w, c, k, budget);
  gen = ++w->gen;
  w->stamp[to] = gen;
  w->dfs[sp++] = to;
  while (sp > 0) {
    uint32_t v = w->dfs[--sp];
    if (v == from)
      found = 1;
    if (step(w, c, v, 1, gen, w->stamp, NULL, NULL, w->dfs, &sp, budget) != 0)
      return -1;
  }
  if (!found)
    return 0;
  /* the callers' side, among the nodes reached: the cycle's members */
  w->stamp2[from] = gen;
  w->dfs[sp++] = from;
  while (sp > 0) {
    uint32_t v = w->dfs[--sp];
    if (++count >= w->min_members)
      return 1;
    if (step(w, c, v, 0, gen, w->stamp2, NULL, w->stamp, w->dfs, &sp, budget) != 0)
      return -1;
  }
  return 0;
}

static int by_pos(const void *ctx, uint32_t a, uint32_t b) {
  const uint32_t *pos = ctx;
  return pos[a] < pos[b] ? -1 : pos[a] > pos[b];
}

/* Puts arc k (x -> y, y laid out before x) back into component c if it
** closes no cycle, keeping pos a topological order of the live arcs
** (Pearce and Kelly's dynamic topological order, 2006): the nodes y reaches
** up to x's place and those reaching x down to y's place are searched,
** a step of each in turn (the two meeting: a cycle, found long before
** either search ends, which is most put-backs on a big component), then
** those reaching x take the first of their places. 1 put back, 0 not, -1
** the budget ran out, -2 out of memory. places serves as the backward
** search's stack. */
static int put_back_acyclic(work *w, uint32_t c, uint32_t k, size_t *budget) {
  uint32_t x = w->g.arcs[k].from, y = w->g.arcs[k].to, gen = ++w->gen;
  uint32_t lb = w->pos[y], ub = w->pos[x];
  size_t fsp = 0, bsp = 0, nf = 0, nb = 0, i, a = 0, b = 0, o = 0;
  w->stamp[y] = gen;
  w->back_f[nf++] = y;
  w->dfs[fsp++] = y;
  w->stamp2[x] = gen;
  w->back_b[nb++] = x;
  w->places[bsp++] = x;
  while (fsp > 0 || bsp > 0) {
    uint32_t v, e;
    if (fsp > 0) { /* forward from y, up to x's place */
      v = w->dfs[--fsp];
      for (e = w->g.out_off[v]; e < w->g.out_off[v + 1]; e++) {
        uint32_t arc = w->g.out_arc[e], u = w->g.arcs[arc].to;
        if (*budget == 0)
          return -1;
        (*budget)--;
        if (!inside(w, arc, c) || w->pos[u] > ub || w->stamp[u] == gen)
          continue;
        if (w->stamp2[u] == gen) /* u reaches x */
          return 0;
        w->stamp[u] = gen;
        w->back_f[nf++] = u;
        w->dfs[fsp++] = u;
      }
    }
    if (bsp > 0) { /* backward from x, down to y's place */
      v = w->places[--bsp];
      for (e = w->g.in_off[v]; e < w->g.in_off[v + 1]; e++) {
        uint32_t arc = w->g.in_arc[e], u = w->g.arcs[arc].from;
        if (*budget == 0)
          return -1;
        (*budget)--;
        if (!inside(w, arc, c) || w->pos[u] < lb || w->stamp2[u] == gen)
          continue;
        if (w->stamp[u] == gen) /* y reaches u */
          return 0;
        w->stamp2[u] = gen;
        w->back_b[nb++] = u;
        w->places[bsp++] = u;
      }
    }
  }
  /* the places they hold, in order: the first ones to those reaching x
     (in their order), the rest to those y reaches */
  if (lgp_sort_indices(w->back_f, nf, by_pos, w->pos) != 0 ||
      lgp_sort_indices(w->back_b, nb, by_pos, w->pos) != 0)
    return -2;
  while (a < nb || b < nf)
    w->places[o++] = b >= nf || (a < nb && w->pos[w->back_b[a]] < w->pos[w->back_f[b]])
                     ? w->pos[w->back_b[a++]] : w->pos[w->back_f[b++]];
  for (i = 0; i < nb; i++)
    w->pos[w->back_b[i]] = w->places[i];
  for (i = 0; i < nf; i++)
    w->pos[w->back_f[i]] = w->places[nb + i];
  w->g.dead[k] = w->cut[k] = 0;
  return 1;
}

/* Breaks component c: drops its back arcs, then puts back, heaviest first,
** those that close no cycle (keeping a topological order), and with
** min_members above 2 those that close only cycles below it. 0, or -1
** (out of memory). */
static int break_component(work *w, uint32_t c) {
  const uint32_t *mb = w->g.members + w->g.memb_off[c];
  size_t size = w->g.csize[c], narcs, nback = 0, i, budget;
  if (lgp_cclayout_order(&w->lay, &w->g, c, w->pos, &narcs) != 0)
    return -1;
  for (i = 0; i < size; i++) {
    uint32_t v = mb[i], e;
    for (e = w->g.out_off[v]; e < w->g.out_off[v + 1]; e++) {
      uint32_t k = w->g.out_arc[e];
      if (inside(w, k, c) && w->pos[w->g.arcs[k].to] < w->pos[v])
        w->back[nback++] = k;
    }
  }
  for (i = 0; i < nback; i++)
    w->g.dead[w->back[i]] = w->cut[w->back[i]] = 1;
  if (lgp_sort_indices(w->back, nback, lgp_ccgraph_heavier, w->g.arcs) != 0)
    return -1;
  budget = BUDGET * (size + narcs);
  if (narcs > LGP_CCGRAPH_BIG_ARCS)
    budget /= BIG_BUDGET_DIVISOR;
  budget += 4096;
  for (i = 0; i < nback; i++) {
    int r = put_back_acyclic(w, c, w->back[i], &budget);
    if (r == -2)
      return -1;
    if (r == -1) {
      w->minimal = 0;
      break;
    }
  }
  if (w->min_members <= 2 || !w->minimal)
    return 0;
  budget = BUDGET * (size + narcs) + 4096;
  for (i = 0; i < nback; i++) {
    uint32_t k = w->back[i];
    int r;
    if (!w->cut[k])
      continue;
    r = closes_large_cycle(w, c, k, &budget);
    if (r < 0) {
      w->minimal = 0;
      break;
    }
    if (r == 0)
      w->g.dead[k] = w->cut[k] = 0;
  }
  return 0;
}

/* }====================================================== */

/* {====================================================== one cut per caller */

/* gprof's -k keeps one FROM/TO spec per calling function (its table of
** FROM entries keeps one entry per address), so a caller with several
** arcs to cut cannot have them all deleted. Such a caller x is made a
** source of its component instead: its arcs in from the component are
** cut (when their callers have no cut yet) and its own cut arcs put back,
** which closes no cycle, since no cycle of the component goes through x
** any more. Then every cut arc is offered back again, heaviest first (not
** after a put-back search ran out of its budget).
** Returns the callers still left with several cuts; -1 out of memory. */
static long one_per_caller(work *w) {
  size_t k, ncut = 0, budget;
  uint32_t x;
  long crowded = 0;
  memset(w->nfrom, 0, w->g.n * sizeof *w->nfrom);
  for (k = 0; k < w->g.m; k++)
    if (w->cut[k])
      w->nfrom[w->g.arcs[k].from]++;
  for (x = 0; x < w->g.n; x++) {
    uint32_t c = w->g.comp[x], e;
    int ok = 1;
    if (w->nfrom[x] < 2)
      continue;
    for (e = w->g.in_off[x]; e < w->g.in_off[x + 1] && ok; e++) {
      uint32_t a = w->g.in_arc[e];
      ok = !inside(w, a, c) || w->nfrom[w->g.arcs[a].from] == 0;
    }
    if (!ok)
      continue;
    for (e = w->g.in_off[x]; e < w->g.in_off[x + 1]; e++) {
      uint32_t a = w->g.in_arc[e];
      if (!inside(w, a, c))
        continue;
      w->g.dead[a] = w->cut[a] = 1;
      w->nfrom[w->g.arcs[a].from]++;
    }
    for (e = w->g.out_off[x]; e < w->g.out_off[x + 1]; e++) {
      uint32_t a = w->g.out_arc[e];
      if (w->cut[a])
        w->g.dead[a] = w->cut[a] = 0;
    }
    w->nfrom[x] = 0;
  }
  /* offer every cut arc back (which never gives a caller a second cut);
     not when a put-back search already ran out of its budget: this one,
     over the whole graph, would run out too (on the 100,000-member
     component of a synthetic profile it put back none of 30,000 arcs) */
  if (!w->minimal)
    goto count;
  for (k = 0; k < w->g.m; k++)
    if (w->cut[k])
      w->back[ncut++] = (uint32_t)k;
  if (lgp_sort_indices(w->back, ncut, lgp_ccgraph_heavier, w->g.arcs) != 0)
    return -1;
  budget = BUDGET * (w->g.n + w->g.m) + 4096;
  for (k = 0; k < ncut; k++) {
    uint32_t a = w->back[k];
    int r = closes_large_cycle(w, w->g.comp[w->g.arcs[a].from], a, &budget);
    if (r < 0) {
      w->minimal = 0;
      break;
    }
    if (r == 0) {
      w->g.dead[a] = w->cut[a] = 0;
      w->nfrom[w->g.arcs[a].from]--;
    }
  }
count:
  for (x = 0; x < w->g.n; x++)
    crowded += w->nfrom[x] >= 2;
  return crowded;
}

/* }====================================================== */

static void free_work(work *w) {
  lgp_ccgraph_free(&w->g);
  lgp_cclayout_free(&w->lay);
  free(w->pos); free(w->cut);
  free(w->back); free(w->dfs); free(w->stamp); free(w->stamp2);
  free(w->back_f); free(w->back_b); free(w->places); free(w->nfrom);
}

static int alloc_work(work *w, size_t nnodes, const lgp_cutarc *arcs, size_t narcs,
                      const uint8_t *skip) {
  size_t n = nnodes ? nnodes : 1, m = narcs ? narcs : 1;
  if (lgp_ccgraph_init(&w->g, nnodes, arcs, narcs, skip) != 0 ||
      lgp_cclayout_init(&w->lay, nnodes) != 0)
    return -1;
#define A(field, count) ((w->field = lgp_calloc_array((count), sizeof *w->field)) == NULL)
  if (A(pos, n) || A(cut, m) || A(back, m) || A(dfs, n) || A(stamp, n) || A(stamp2, n) ||
      A(back_f, n) || A(back_b, n) || A(places, n) || A(nfrom, n))
    return -1;
#undef A
  return 0;
}

/* lgp_cyclecut_find, or with count_only the counts before only. */
static int cuts_upto(size_t nnodes, const lgp_cutarc *arcs, size_t narcs,
                               const uint8_t *skip, size_t min_members, int one_cut_per_caller,
                               int count_only, lgp_cyclecuts *out, lgp_err *err) {
  work w;
  size_t k, pass;
  int rc = -1;
  memset(out, 0, sizeof *out);
  memset(&w, 0, sizeof w);
  if (nnodes >= NONE || narcs >= NONE)
    return lgp_fail(err, NULL, "cycle cuts: the graph is too large");
  for (k = 0; k < narcs; k++)
    if (arcs[k].from >= nnodes || arcs[k].to >= nnodes)
      return lgp_fail(err, NULL, "cycle cuts: arc %zu names node %u of %zu", k,
                      (unsigned)(arcs[k].from >= nnodes ? arcs[k].from : arcs[k].to), nnodes);
  w.min_members = min_members < 2 ? 2 : min_members;
  w.minimal = 1;
  w.one_per_caller = one_cut_per_caller;
  if (alloc_work(&w, nnodes, arcs, narcs, skip) != 0)
    goto out;
  /* a pass breaks every large component (each put-back arc closes only
     cycles below the threshold), so the second pass finds none; the
     loop is a guard, not an iteration the method relies on. With N = 2
     no cycle is left at all (every arc put back closed none), and the
     second search, a tenth of the time on a 1M-arc graph, is skipped */
  for (pass = 0;; pass++) {
    uint32_t c;
    size_t large = 0;
    lgp_ccgraph_components(&w.g);
    if (pass == 0)
      out->before = stats_of(&w);
    if (count_only)
      break;
    for (c = 0; c < w.g.ncomp; c++) {
      if (w.g.csize[c] < w.min_members)
        continue;
      large++;
      if (break_component(&w, c) != 0)
        goto out;
    }
    if (large > 0 && w.one_per_caller) {
      long crowded = one_per_caller(&w);
      if (crowded < 0)
        goto out;
      out->crowded = (size_t)crowded;
    }
    if (large == 0) {
      out->after = stats_of(&w);
      break;
    }
    if (w.min_members <= 2) {
      memset(&out->after, 0, sizeof out->after);
      break;
    }
  }
  for (k = 0; k < narcs; k++)
    out->ncuts += w.cut[k];
  out->cuts = lgp_alloc_array(out->ncuts ? out->ncuts : 1, sizeof *out->cuts);
  if (out->cuts == NULL)
    goto out;
  out->ncuts = 0;
  for (k = 0; k < narcs; k++)
    if (w.cut[k])
      out->cuts[out->ncuts++] = (uint32_t)k;
  if (lgp_sort_indices(out->cuts, out->ncuts, lighter, arcs) != 0)
    goto out;
  out->minimal = w.minimal;
  rc = 0;
out:
  free_work(&w);
  if (rc != 0) {
    lgp_cyclecut_free(out);
    return lgp_fail(err, NULL, "out of memory");
  }
  return 0;
}

int lgp_cyclecut_stats(size_t nnodes, const lgp_cutarc *arcs, size_t narcs, const uint8_t *skip,
                       size_t min_members, lgp_cyclestats *out, lgp_err *err) {
  lgp_cyclecuts cc;
  int rc = cuts_upto(nnodes, arcs, narcs, skip, min_members, 0, 1, &cc, err);
  *out = cc.before;
  lgp_cyclecut_free(&cc);
  return rc;
}

int lgp_cyclecut_find(size_t nnodes, const lgp_cutarc *arcs, size_t narcs, const uint8_t *skip,
                      size_t min_members, int one_cut_per_caller, lgp_cyclecuts *out,
                      lgp_err *err) {
  return cuts_upto(nnodes, arcs, narcs, skip, min_members, one_cut_per_caller, 0, out,
                             err);
}

void lgp_cyclecut_free(lgp_cyclecuts *c) {
  free(c->cuts);
  c->cuts = NULL;
  c->ncuts = 0;
}
