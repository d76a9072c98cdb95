/*
** folded.c: folded stacks ("main;a;b value", for flame graph tools)
** synthesised from the call graph; an estimate (see below). The walk uses
** an explicit stack: no recursion the input controls.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashtab.h"
#include "write/export_int.h"

/* {====================================================== folded stacks */

/*
** gmon.out has arcs, not stacks: the stacks are synthesised from gprof's
** own model. A unit is a function outside any cycle or a whole cycle; the
** units and the arcs between them form a DAG. A unit's total time T (self
** + children, as the call graph shows) reaches it along its incoming arcs
** (each carrying gprof's propagated share) and, for what no arc brings
** (roots, callers excluded from propagation), from a stack of its own.
** Walking down from those starts, a stack of weight W at unit u keeps
** W * self/T for u and passes W * share/T down each outgoing arc. So every
** unit's self time is spread over the stacks leading to it in proportion
** to what each caller contributes, and the values add up to the call
** graph's total time. A cycle is one frame, "<cycle N>", whose self time is
** split over its members as leaf frames. A stack deeper than max_depth, or
** a subtree (or a member's share) lighter than min_weight of the total, is
** not broken down: its time stays with its top frame. Stacks at one depth
** share the total, so at most 1/min_weight of them are written per depth.
*/

typedef struct fframe {
  uint32_t unit;
  uint32_t pos, end;  /* outgoing unit arcs still to visit */
  size_t pathlen;     /* length of the path up to and including this frame */
  double w;           /* weight of the stack, ticks */
  double extra;       /* time of subtrees not broken down, ticks */
} fframe;

/* The lines so far, one per distinct stack: consumers (flamegraph.pl,
** inferno, speedscope) expect each stack once, and two walks can reach one
** text (two functions whose names differ only by a ';' or a newline, which
** labels replace). Written at the end in the order first seen. */
typedef struct fline {
  size_t off, len;   /* the stack's text in flines.text */
  uint64_t v;        /* microseconds */
} fline;

typedef struct flines {
  lgp_out text;
  fline *l;
  size_t n, cap;
  lgp_hashtab by_text; /* the lines by their stack's text */
} flines;

typedef struct fstate {
  ectx *c;
  lgp_out path;
  flines lines;
  double scale;      /* output units per tick */
  double cum;        /* ticks emitted so far */
  uint64_t written;  /* output units written so far */
} fstate;

/* The text at off (no buffer yet while every stack written is empty). */
static const char *text_at(const flines *t, size_t off) {
  return t->text.buf != NULL ? t->text.buf + off : "";
}

/* Adds v to the line of the stack held in t->text from off on (len bytes
** long), which becomes a new line or is dropped from text if it is one
** already. */
static int lines_add(flines *t, size_t off, uint64_t v) {
  size_t len = t->text.len - off;
  const char *s;
  lgp_hashpos at;
  uint32_t k;
  if (t->text.failed)
    return -1;
  s = text_at(t, off);
  if (lgp_hashtab_reserve(&t->by_text, 1) != 0)
    return -1;
  for (at = lgp_hashtab_probe(&t->by_text, lgp_hashtab_hash_bytes(s, len));
       (k = lgp_hashtab_next(&t->by_text, &at)) != LGP_HASHTAB_END;) {
    fline *l = &t->l[k];
    if (l->len == len && memcmp(text_at(t, l->off), s, len) == 0) {
      l->v += v;
      t->text.len = off;
      return 0;
    }
  }
  if (t->n >= UINT32_MAX - 1 ||
      lgp_grow((void **)&t->l, &t->cap, t->n + 1, sizeof *t->l) != 0)
    return -1;
  t->l[t->n].off = off;
  t->l[t->n].len = len;
  t->l[t->n].v = v;
  lgp_hashtab_put(&t->by_text, &at, (uint32_t)t->n++);
  return 0;
}

static void lines_write(lgp_out *o, const flines *t) {
  size_t k;
  for (k = 0; k < t->n && !o->failed; k++) {
    lgp_out_mem(o, text_at(t, t->l[k].off), t->l[k].len);
    lgp_out_char(o, ' ');
    lgp_export_out_u64(o, t->l[k].v);
    lgp_out_char(o, '\n');
  }
}

static void lines_free(flines *t) {
  lgp_out_free(&t->text);
  free(t->l);
  lgp_hashtab_free(&t->by_text);
}

/* One stack's value in microseconds, rounded so that the running sum stays
** the rounded running sum of the exact values (values rounding to 0 are
** left out), added to its line. */
static int fold_emit(fstate *f, const char *tail, size_t tail_len, double ticks) {
  lgp_out *t = &f->lines.text;
  double target;
  uint64_t v;
  size_t off = t->len;
  if (!(ticks > 0.0))
    return 0;
  f->cum += ticks;
  target = floor(f->cum * f->scale + 0.5);
  v = target > (double)f->written ? (uint64_t)target - f->written : 0;
  if (v == 0)
    return 0;
  f->written += v;
  lgp_out_mem(t, f->path.buf, f->path.len);
  if (tail_len) {
    lgp_out_char(t, ';');
    lgp_out_mem(t, tail, tail_len);
  }
  return lines_add(&f->lines, off, v);
}

/* An outgoing arc of a unit, or a member of a cycle, with its weight. */
typedef struct fedge {
  double w;
  uint32_t to;
} fedge;

static int fedge_cmp(const void *a, const void *b) {
  const fedge *x = a, *y = b;
  if (x->w != y->w)
    return x->w > y->w ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

/* Sorts each unit's items e[off[u]..end[u]) heaviest first, and sets
** rest[j] to the weight of e[j..end[u]). */
static void fedge_finish(fedge *e, double *rest, const uint32_t *off, const uint32_t *end,
                         size_t nu) {
  size_t u;
  for (u = 0; u < nu; u++) {
    uint32_t b = off[u], j = end[u];
    double sum = 0.0;
    if (j - b > 1)
      qsort(e + b, j - b, sizeof *e, fedge_cmp);
    while (j > b) {
      j--;
      sum += e[j].w;
      rest[j] = sum;
    }
  }
}

int lgp_export_write_folded(ectx *c) {
  const lgp_profile *p = c->p;
  size_t nu = p->graph.nsyms + p->graph.ncycles, k, u, depth_cap;
  uint32_t *off = lgp_calloc_array(nu + 2, sizeof *off);
  uint32_t *moff = lgp_calloc_array(nu + 2, sizeof *moff);
  uint32_t *fill = lgp_alloc_array(nu + 1, sizeof *fill);
  uint32_t *end = lgp_alloc_array(nu + 1, sizeof *end);
  uint32_t *slot_of = lgp_alloc_array(nu + 1, sizeof *slot_of);
  fedge *out = NULL, *mem = NULL;
  double *rest = NULL, *mrest = NULL;
  double *inflow = lgp_calloc_array(nu + 1, sizeof *inflow);
  double cutoff;
  fframe *st = NULL;
  fstate f;
  lgp_out tail;
  int rc = -1;
  memset(&f, 0, sizeof f);
  memset(&tail, 0, sizeof tail);
  f.c = c;
  f.scale = p->gmon->hz ? 1e6 / (double)p->gmon->hz : 0.0;
  cutoff = c->eo->min_weight * p->graph.print_time;
  depth_cap = c->eo->max_depth > 0 ? (size_t)c->eo->max_depth : 1;
  st = lgp_alloc_array(depth_cap + 1, sizeof *st);
  if (off == NULL || moff == NULL || fill == NULL || end == NULL || slot_of == NULL ||
      inflow == NULL || st == NULL)
    goto done;
  /* the unit graph: arcs between units that carry time, by caller; and
     the members of each cycle with self time */
  for (k = 0; k < p->graph.arcs.narcs; k++) {
    const lgp_arc *a = &p->graph.arcs.arcs[k];
    uint32_t pu = p->graph.nodes[a->parent].cyc_head, cu = p->graph.nodes[a->child].cyc_head;
    if (pu != cu && a->time + a->child_time > 0.0 && !lgp_arc_hidden(p, (uint32_t)k))
      off[pu + 1]++;
  }
  for (u = 0; u < p->graph.nsyms; u++)
    if (p->graph.nodes[u].cyc_head != u && p->graph.nodes[u].prop_self > 0.0)
      moff[p->graph.nodes[u].cyc_head + 1]++;
  for (u = 0; u < nu; u++) {
    off[u + 1] += off[u];
    moff[u + 1] += moff[u];
  }
  out = lgp_alloc_array(off[nu] + 1, sizeof *out);
  rest = lgp_alloc_array(off[nu] + 1, sizeof *rest);
  mem = lgp_alloc_array(moff[nu] + 1, sizeof *mem);
  mrest = lgp_alloc_array(moff[nu] + 1, sizeof *mrest);
  if (out == NULL || rest == NULL || mem == NULL || mrest == NULL)
    goto done;
  /* arcs from one unit to another are one edge: a cycle's members calling
     one function, or a view's arcs, would otherwise give one stack twice
     (and each half judged against the weight cutoff alone). The arcs are
     taken unit by unit (a plain function's children, or every member's
     of a cycle), so that slot_of[callee] seen inside pu's range is pu's */
  memcpy(end, off, nu * sizeof *end);
  memset(slot_of, 0xff, nu * sizeof *slot_of);
  for (u = 0; u < nu; u++) {
    uint32_t pu = (uint32_t)u, m;
    if (u < p->graph.nsyms && p->graph.nodes[u].cyc_head != u)
      continue; /* a cycle member: its arcs are its cycle's */
    for (m = u < p->graph.nsyms ? pu : p->graph.nodes[u].cyc_next; m != LGP_NONE;
         m = u < p->graph.nsyms ? LGP_NONE : p->graph.nodes[m].cyc_next) {
      const uint32_t *it;
      for (it = lgp_children_begin(&p->graph, m); it != lgp_children_end(&p->graph, m); it++) {
        const lgp_arc *a = &p->graph.arcs.arcs[*it];
        uint32_t cu = p->graph.nodes[a->child].cyc_head, j;
        double w = a->time + a->child_time;
        if (cu == pu || !(w > 0.0) || lgp_arc_hidden(p, *it))
          continue;
        j = slot_of[cu];
        if (j == LGP_NONE || j < off[pu] || j >= end[pu]) { /* not yet an edge of pu */
          j = slot_of[cu] = end[pu]++;
          out[j].to = cu;
          out[j].w = 0.0;
        }
        out[j].w += w;
        inflow[cu] += w;
      }
    }
  }
  memcpy(fill, moff, nu * sizeof *fill);
  for (u = 0; u < p->graph.nsyms; u++) {
    uint32_t h = p->graph.nodes[u].cyc_head;
    if (h != u && p->graph.nodes[u].prop_self > 0.0) {
      mem[fill[h]].to = (uint32_t)u;
      mem[fill[h]++].w = p->graph.nodes[u].prop_self;
    }
  }
  fedge_finish(out, rest, off, end, nu);
  fedge_finish(mem, mrest, moff, moff + 1, nu);
  /* a stack from each unit that receives time no arc brings */
  for (u = 0; u < nu && !c->o->failed; u++) {
    const lgp_node *n = &p->graph.nodes[u];
    double t = n->prop_self + n->prop_child, w = t - inflow[u];
    size_t sp = 0;
    if ((u < p->graph.nsyms && (lgp_removed(p, (uint32_t)u) || n->cyc_head != u)) || !(t > 0.0) ||
        !(w > 1e-9 * t))
      continue;
    f.path.len = 0;
    lgp_export_label(c, (uint32_t)u, &f.path, 1);
    st[0].unit = (uint32_t)u;
    st[0].pos = off[u];
    st[0].end = end[u];
    st[0].pathlen = f.path.len;
    st[0].w = w;
    st[0].extra = 0.0;
    for (;;) {
      fframe *fr = &st[sp];
      const lgp_node *un = &p->graph.nodes[fr->unit];
      double ut = un->prop_self + un->prop_child;
      if (f.path.failed)
        goto done;
      if (fr->pos < fr->end) {
        uint32_t j = fr->pos++, to = out[j].to;
        double cw = fr->w * out[j].w / ut;
        if (cw < cutoff || sp + 1 >= depth_cap) {
          /* heaviest first: the rest is lighter still */
          fr->extra += fr->w * rest[j] / ut;
          fr->pos = fr->end;
          continue;
        }
        lgp_out_mem(&f.path, ";", 1);
        lgp_export_label(c, to, &f.path, 1);
        sp++;
        st[sp].unit = to;
        st[sp].pos = off[to];
        st[sp].end = end[to];
        st[sp].pathlen = f.path.len;
        st[sp].w = cw;
        st[sp].extra = 0.0;
        continue;
      }
      /* done with this frame: its own time, then up */
      f.path.len = fr->pathlen;
      if (fr->unit >= p->graph.nsyms) { /* a cycle: self time by member */
        double self = fr->w * un->prop_self / ut, msum = 0.0;
        uint32_t j;
        if (moff[fr->unit] < moff[fr->unit + 1])
          msum = mrest[moff[fr->unit]];
        for (j = moff[fr->unit]; j < moff[fr->unit + 1] && msum > 0.0; j++) {
          double mw = self * mem[j].w / msum;
          if (mw < cutoff || sp + 1 >= depth_cap) { /* too light: the cycle keeps it */
            fr->extra += self * mrest[j] / msum;
            break;
          }
          tail.len = 0;
          lgp_export_label(c, mem[j].to, &tail, 1);
          if (tail.failed)
            goto done;
          if (fold_emit(&f, tail.buf, tail.len, mw) != 0)
            goto done;
        }
        if (!(msum > 0.0))
          fr->extra += self;
        if (fold_emit(&f, NULL, 0, fr->extra) != 0)
          goto done;
      } else if (fold_emit(&f, NULL, 0, fr->w * un->prop_self / ut + fr->extra) != 0) {
        goto done;
      }
      if (sp == 0)
        break;
      sp--;
      f.path.len = st[sp].pathlen;
    }
  }
  lines_write(c->o, &f.lines);
  rc = 0;
done:
  free(off);
  free(end);
  free(slot_of);
  free(moff);
  free(fill);
  free(out);
  free(rest);
  free(mem);
  free(mrest);
  free(inflow);
  free(st);
  lgp_out_free(&f.path);
  lines_free(&f.lines);
  lgp_out_free(&tail);
  return rc;
}

/* }====================================================== */
