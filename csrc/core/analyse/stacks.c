/*
** stacks.c: the stacks of a profile estimated from its call graph (see
** stacks.h), walked one stack per call: the walk's explicit stack is kept
** between calls, so a reader takes as many stacks as it wants and nothing
** is stored but the unit graph and one path.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/stacks.h"

/* An outgoing arc of a unit, or a member of a cycle, with its weight. */
typedef struct sedge {
  double w;
  uint32_t to;
} sedge;

/* A frame of the walk. */
typedef struct sframe {
  uint32_t unit;
  uint32_t pos, end;  /* outgoing unit arcs still to visit */
  double w;           /* weight of the stack, ticks */
  double extra;       /* time of subtrees not broken down, ticks */
} sframe;

struct lgp_stacks {
  const lgp_profile *p;
  size_t nu;          /* units: symbols, then cycles */
  size_t depth_cap;
  double cutoff;      /* ticks below which a subtree is not broken down */
  double scale;       /* microseconds per tick */
  double cum;         /* ticks of the stacks so far */
  uint64_t written;   /* microseconds of the stacks so far */
  /* the unit graph: unit u's edges out[off[u]..end[u]), heaviest first,
     rest[j] the weight of out[j..end[u]); a cycle's members with self
     time mem[moff[u]..moff[u + 1]), mrest likewise */
  uint32_t *off, *end, *moff;
  sedge *out, *mem;
  double *rest, *mrest;
  double *inflow;     /* what arcs bring each unit */
  sframe *st;
  uint32_t *path;     /* the frames' nodes, root first */
  size_t sp;          /* st[sp] is the frame at hand, when active */
  size_t root;        /* the next unit to consider as a root */
  int active;         /* walking down from a root */
  int members;        /* st[sp] is a cycle done with its arcs: its members next */
  uint32_t mj;        /* the member at hand */
  double mself, msum; /* the cycle frame's self time, its members' self time */
  size_t dirty;       /* first path entry written since the last stack */
  size_t prev;        /* the last stack's depth */
};

static int sedge_cmp(const void *a, const void *b) {
  const sedge *x = a, *y = b;
  if (x->w != y->w)
    return x->w > y->w ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

/* Sorts each unit's items e[off[u]..end[u]) heaviest first, and sets
** rest[j] to the weight of e[j..end[u]). */
static void sedge_finish(sedge *e, double *rest, const uint32_t *off, const uint32_t *end,
                         size_t nu) {
  size_t u;
  for (u = 0; u < nu; u++) {
    uint32_t b = off[u], j = end[u];
    double sum = 0.0;
    if (j - b > 1)
      qsort(e + b, j - b, sizeof *e, sedge_cmp);
    while (j > b) {
      j--;
      sum += e[j].w;
      rest[j] = sum;
    }
  }
}

void lgp_stacks_free(lgp_stacks *it) {
  if (it == NULL)
    return;
  free(it->off);
  free(it->end);
  free(it->moff);
  free(it->out);
  free(it->mem);
  free(it->rest);
  free(it->mrest);
  free(it->inflow);
  free(it->st);
  free(it->path);
  free(it);
}

/* The unit graph of it->p: arcs between units that carry time, by caller
** (arcs from one unit to another are one edge); the members of each cycle
** with self time. 0, or -1 when out of memory. */
static int build_units(lgp_stacks *it) {
  const lgp_profile *p = it->p;
  size_t nu = it->nu, k, u;
  uint32_t *slot_of = lgp_alloc_array(nu + 1, sizeof *slot_of);
  uint32_t *fill = lgp_alloc_array(nu + 1, sizeof *fill);
  int rc = -1;
  it->off = lgp_calloc_array(nu + 2, sizeof *it->off);
  it->moff = lgp_calloc_array(nu + 2, sizeof *it->moff);
  it->end = lgp_alloc_array(nu + 1, sizeof *it->end);
  it->inflow = lgp_calloc_array(nu + 1, sizeof *it->inflow);
  if (slot_of == NULL || fill == NULL || it->off == NULL || it->moff == NULL ||
      it->end == NULL || it->inflow == NULL)
    goto done;
  for (k = 0; k < p->graph.arcs.narcs; k++) {
    const lgp_arc *a = &p->graph.arcs.arcs[k];
    uint32_t pu = p->graph.nodes[a->parent].cyc_head, cu = p->graph.nodes[a->child].cyc_head;
    if (pu != cu && a->time + a->child_time > 0.0 && !lgp_arc_hidden(p, (uint32_t)k))
      it->off[pu + 1]++;
  }
  for (u = 0; u < p->graph.nsyms; u++)
    if (p->graph.nodes[u].cyc_head != u && p->graph.nodes[u].prop_self > 0.0)
      it->moff[p->graph.nodes[u].cyc_head + 1]++;
  for (u = 0; u < nu; u++) {
    it->off[u + 1] += it->off[u];
    it->moff[u + 1] += it->moff[u];
  }
  it->out = lgp_alloc_array(it->off[nu] + 1, sizeof *it->out);
  it->rest = lgp_alloc_array(it->off[nu] + 1, sizeof *it->rest);
  it->mem = lgp_alloc_array(it->moff[nu] + 1, sizeof *it->mem);
  it->mrest = lgp_alloc_array(it->moff[nu] + 1, sizeof *it->mrest);
  if (it->out == NULL || it->rest == NULL || it->mem == NULL || it->mrest == NULL)
    goto done;
  /* one edge per pair of units: a cycle's members calling one function, or
     a view's arcs, would otherwise give one stack twice (and each half
     judged against the weight cutoff alone). The arcs are taken unit by
     unit (a plain function's children, or every member's of a cycle), so
     that slot_of[callee] seen inside pu's range is pu's */
  memcpy(it->end, it->off, nu * sizeof *it->end);
  memset(slot_of, 0xff, nu * sizeof *slot_of);
  for (u = 0; u < nu; u++) {
    uint32_t pu = (uint32_t)u, m;
    if (u < p->graph.nsyms && p->graph.nodes[u].cyc_head != u)
      continue; /* a cycle member: its arcs are its cycle's */
    for (m = u < p->graph.nsyms ? pu : p->graph.nodes[u].cyc_next; m != LGP_NONE;
         m = u < p->graph.nsyms ? LGP_NONE : p->graph.nodes[m].cyc_next) {
      const uint32_t *a_it;
      for (a_it = lgp_children_begin(&p->graph, m); a_it != lgp_children_end(&p->graph, m);
           a_it++) {
        const lgp_arc *a = &p->graph.arcs.arcs[*a_it];
        uint32_t cu = p->graph.nodes[a->child].cyc_head, j;
        double w = a->time + a->child_time;
        if (cu == pu || !(w > 0.0) || lgp_arc_hidden(p, *a_it))
          continue;
        j = slot_of[cu];
        if (j == LGP_NONE || j < it->off[pu] || j >= it->end[pu]) { /* not yet an edge of pu */
          j = slot_of[cu] = it->end[pu]++;
          it->out[j].to = cu;
          it->out[j].w = 0.0;
        }
        it->out[j].w += w;
        it->inflow[cu] += w;
      }
    }
  }
  memcpy(fill, it->moff, nu * sizeof *fill);
  for (u = 0; u < p->graph.nsyms; u++) {
    uint32_t h = p->graph.nodes[u].cyc_head;
    if (h != u && p->graph.nodes[u].prop_self > 0.0) {
      it->mem[fill[h]].to = (uint32_t)u;
      it->mem[fill[h]++].w = p->graph.nodes[u].prop_self;
    }
  }
  sedge_finish(it->out, it->rest, it->off, it->end, nu);
  sedge_finish(it->mem, it->mrest, it->moff, it->moff + 1, nu);
  rc = 0;
done:
  free(slot_of);
  free(fill);
  return rc;
}

lgp_stacks *lgp_stacks_new(const lgp_profile *p, int max_depth, double min_weight) {
  lgp_stacks *it = lgp_calloc_array(1, sizeof *it);
  if (it == NULL)
    return NULL;
  it->p = p;
  it->nu = p->graph.nsyms + p->graph.ncycles;
  it->depth_cap = max_depth > 0 ? (size_t)max_depth : 1;
  it->cutoff = min_weight * p->graph.print_time;
  it->scale = p->gmon->hz ? 1e6 / (double)p->gmon->hz : 0.0;
  it->dirty = SIZE_MAX;
  it->st = lgp_alloc_array(it->depth_cap + 1, sizeof *it->st);
  it->path = lgp_alloc_array(it->depth_cap + 1, sizeof *it->path);
  if (it->st == NULL || it->path == NULL || build_units(it) != 0) {
    lgp_stacks_free(it);
    return NULL;
  }
  return it;
}

size_t lgp_stacks_max_depth(const lgp_stacks *it) {
  return it->depth_cap;
}

static void set_path(lgp_stacks *it, size_t k, uint32_t node) {
  it->path[k] = node;
  if (k < it->dirty)
    it->dirty = k;
}

/* Starts the walk from the next unit that receives time no arc brings:
** 1, or 0 when there is none left. */
static int start_root(lgp_stacks *it) {
  const lgp_profile *p = it->p;
  while (it->root < it->nu) {
    size_t u = it->root++;
    const lgp_node *n = &p->graph.nodes[u];
    double t = n->prop_self + n->prop_child, w = t - it->inflow[u];
    if ((u < p->graph.nsyms && (lgp_removed(p, (uint32_t)u) || n->cyc_head != u)) ||
        !(t > 0.0) || !(w > 1e-9 * t))
      continue;
    it->st[0].unit = (uint32_t)u;
    it->st[0].pos = it->off[u];
    it->st[0].end = it->end[u];
    it->st[0].w = w;
    it->st[0].extra = 0.0;
    set_path(it, 0, (uint32_t)u);
    it->sp = 0;
    it->active = 1;
    return 1;
  }
  return 0;
}

/* The stack of the path's first depth frames, of weight ticks, into *s:
** 1, or 0 (nothing) when it weighs nothing. */
static int emit(lgp_stacks *it, lgp_stack *s, size_t depth, double ticks) {
  double target;
  uint64_t v;
  if (!(ticks > 0.0))
    return 0;
  it->cum += ticks;
  target = floor(it->cum * it->scale + 0.5);
  v = target > (double)it->written ? (uint64_t)target - it->written : 0;
  it->written += v;
  s->frames = it->path;
  s->depth = depth;
  s->same = it->dirty < depth ? it->dirty : depth;
  if (s->same > it->prev)
    s->same = it->prev;
  s->ticks = ticks;
  s->us = v;
  it->prev = depth;
  it->dirty = SIZE_MAX;
  return 1;
}

/* Done with the frame at hand: up one (or the walk from this root is over). */
static void pop(lgp_stacks *it) {
  if (it->sp == 0)
    it->active = 0;
  else
    it->sp--;
}

int lgp_stacks_next(lgp_stacks *it, lgp_stack *s) {
  const lgp_profile *p = it->p;
  for (;;) {
    sframe *fr;
    const lgp_node *un;
    double ut;
    size_t depth;
    if (!it->active && !start_root(it))
      return 0;
    fr = &it->st[it->sp];
    un = &p->graph.nodes[fr->unit];
    ut = un->prop_self + un->prop_child;
    if (it->members) { /* a cycle's self time, member by member */
      uint32_t mend = it->moff[fr->unit + 1];
      if (it->mj < mend && it->msum > 0.0) {
        uint32_t j = it->mj;
        double mw = it->mself * it->mem[j].w / it->msum;
        if (mw < it->cutoff || it->sp + 1 >= it->depth_cap) { /* too light: the cycle keeps it */
          fr->extra += it->mself * it->mrest[j] / it->msum;
          it->mj = mend;
          continue;
        }
        it->mj++;
        set_path(it, it->sp + 1, it->mem[j].to);
        if (emit(it, s, it->sp + 2, mw))
          return 1;
        continue;
      }
      if (!(it->msum > 0.0))
        fr->extra += it->mself;
      it->members = 0;
      depth = it->sp + 1;
      pop(it);
      if (emit(it, s, depth, fr->extra))
        return 1;
      continue;
    }
    if (fr->pos < fr->end) {
      uint32_t j = fr->pos++, to = it->out[j].to;
      double cw = fr->w * it->out[j].w / ut;
      if (cw < it->cutoff || it->sp + 1 >= it->depth_cap) {
        /* heaviest first: the rest is lighter still */
        fr->extra += fr->w * it->rest[j] / ut;
        fr->pos = fr->end;
        continue;
      }
      it->sp++;
      it->st[it->sp].unit = to;
      it->st[it->sp].pos = it->off[to];
      it->st[it->sp].end = it->end[to];
      it->st[it->sp].w = cw;
      it->st[it->sp].extra = 0.0;
      set_path(it, it->sp, to);
      continue;
    }
    /* done with this frame's calls: its own time, then up */
    if (fr->unit >= p->graph.nsyms) {
      uint32_t b = it->moff[fr->unit];
      it->members = 1;
      it->mj = b;
      it->mself = fr->w * un->prop_self / ut;
      it->msum = b < it->moff[fr->unit + 1] ? it->mrest[b] : 0.0;
      continue;
    }
    depth = it->sp + 1;
    pop(it);
    if (emit(it, s, depth, fr->w * un->prop_self / ut + fr->extra))
      return 1;
  }
}
