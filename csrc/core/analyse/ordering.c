/*
** ordering.c: gprof's -r (function ordering) and -R (file ordering): a
** greedy placement of call arcs into chains of symbols, with gprof's
** thresholds, orders and quirks (see doc/command.md, Link orders). The
** symbols are the table's, plus the copies a FROM/TO spec makes of the
** symbols it matches (gprof links those copies by count-0 arcs, which
** these orders see too).
** A chain's ends and each member's distance to them are kept by a
** union-find with positions, so no placement walks a chain.
*/
#include <stdlib.h>
#include <string.h>

#include "analyse/ordering.h"

#define NONE UINT32_MAX

#define MULTIRUN "--%s-ordering: a FROM/TO spec (-k, -q or -Q with '/') whose FROM or TO " \
  "matches symbols in more than one place is not supported with it (gprof's order then " \
  "follows stale links, and can loop for ever)"

typedef struct osym {
  const char *name;
  uint32_t prev, next;   /* the chain */
  uint32_t nuses;
  uint8_t placed, mapped;
  /* union-find over chains: up, and the position relative to up; a root
     holds its chain's ends and their positions */
  uint32_t up, head, tail;
  int64_t off, lo, hi;
} osym;

typedef struct oarc {
  uint32_t parent, child; /* osym ids */
  uint64_t count;
  uint8_t placed;
} oarc;

typedef struct idlist {
  uint32_t *v;
  size_t n, cap;
} idlist;

typedef struct order {
  const lgp_profile *p;
  osym *s;
  size_t ns, nreal;
  oarc *a;
  size_t na, nphantom;   /* a[0..nphantom): the specs' arcs; then the table's */
  lgp_namelist *out;
  int failed;
  int multirun;          /* a FROM/TO spec with several runs on a side takes part */
} order;

void lgp_ordering_namelist_free(lgp_namelist *l) {
  free(l->v);
  memset(l, 0, sizeof *l);
}

static void emit(order *o, uint32_t s) {
  lgp_namelist *l = o->out;
  if (lgp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0) {
    o->failed = 1;
    return;
  }
  l->v[l->n++] = o->s[s].name;
}

static void push(order *o, idlist *l, uint32_t id) {
  if (lgp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0) {
    o->failed = 1;
    return;
  }
  l->v[l->n++] = id;
}

/* {====================================================== chains */

static void sym_init(osym *s, uint32_t id, const char *name, int mapped) {
  memset(s, 0, sizeof *s);
  s->name = name;
  s->prev = s->next = NONE;
  s->mapped = (uint8_t)mapped;
  s->up = s->head = s->tail = id;
}

/* The root of x's chain; *pos: x's position there. Compresses the path. */
static uint32_t find(osym *s, uint32_t x, int64_t *pos) {
  uint32_t r = x, y = x;
  int64_t total = 0, acc;
  while (s[r].up != r) {
    total += s[r].off;
    r = s[r].up;
  }
  acc = total;
  while (s[y].up != y) {
    uint32_t next = s[y].up;
    int64_t o = s[y].off;
    s[y].up = r;
    s[y].off = acc;
    acc -= o;
    y = next;
  }
  *pos = total;
  return r;
}

static int linked(const osym *s, uint32_t x) {
  return s[x].prev != NONE || s[x].next != NONE;
}

/* a, the tail of its chain, gets b, the head of another, after it. */
static void join(osym *s, uint32_t a, uint32_t b) {
  int64_t pa, pb;
  uint32_t ra = find(s, a, &pa), rb = find(s, b, &pb);
  s[a].next = b;
  s[b].prev = a;
  if (ra == rb)
    return;
  if (s[ra].hi - s[ra].lo >= s[rb].hi - s[rb].lo) {
    s[rb].up = ra;
    s[rb].off = pa + 1 - pb;
    s[ra].hi = pa + 1 + (s[rb].hi - pb);
    s[ra].tail = s[rb].tail;
  } else {
    s[ra].up = rb;
    s[ra].off = pb - 1 - pa;
    s[rb].lo = pb - 1 - (pa - s[ra].lo);
    s[rb].head = s[ra].head;
  }
}

/* The chain's head or tail, and x's distances to them. */
static void ends(osym *s, uint32_t x, uint32_t *head, uint32_t *tail, int64_t *to_head,
                 int64_t *to_tail) {
  int64_t pos;
  uint32_t r = find(s, x, &pos);
  *head = s[r].head;
  *tail = s[r].tail;
  *to_head = pos - s[r].lo;
  *to_tail = s[r].hi - pos;
}

/* The end of x's chain in the direction it extends: its tail if x has a
** next, else its head. */
static uint32_t far_end(osym *s, uint32_t x) {
  uint32_t h, t;
  int64_t dh, dt;
  ends(s, x, &h, &t, &dh, &dt);
  return s[x].next != NONE ? t : h;
}

/* One arc of phase A: chained, sent to into, or dropped. */
static void place_arc(order *o, uint32_t k, idlist *into) {
  osym *s = o->s;
  oarc *a = &o->a[k];
  uint32_t pp = a->parent, cc = a->child, h, t;
  int64_t dh, dt;
  if (s[pp].prev != NONE && s[pp].next != NONE && s[cc].prev != NONE && s[cc].next != NONE) {
    push(o, into, k);
    return;
  }
  if (!linked(s, pp)) {
    ends(s, cc, &h, &t, &dh, &dt);
    cc = dt < dh ? t : h;
  } else if (!linked(s, cc)) {
    ends(s, pp, &h, &t, &dh, &dt);
    pp = dh < dt ? h : t;
  } else {
    push(o, into, k);
    return;
  }
  if (far_end(s, pp) == cc && far_end(s, cc) == pp) {
    push(o, into, k);
    return;
  }
  if (s[pp].next != NONE) {
    if (s[cc].next != NONE)
      return; /* gprof drops it */
    join(s, cc, pp);
  } else if (s[pp].prev != NONE) {
    if (s[cc].prev != NONE)
      return;
    join(s, pp, cc);
  } else if (s[cc].prev != NONE) {
    join(s, cc, pp);
  } else {
    join(s, pp, cc);
  }
  a->placed = 1;
}

/* gprof's placement of the arcs list (in that order): chains built, then
** printed; with all, the parents of the arcs left. Arcs not placed go to
** into; without all, so does every arc past 99 % of the list's calls. */
static void place(order *o, const idlist *list, int all, idlist *into) {
  osym *s = o->s;
  uint64_t total = 0, run = 0;
  size_t i;
  if (!all)
    for (i = 0; i < list->n; i++)
      total += o->a[list->v[i]].count;
  for (i = 0; i < list->n; i++) {
    oarc *a = &o->a[list->v[i]];
    run += a->count;
    if (a->placed)
      continue;
    if ((!all && (double)run / (double)total > 0.99) || s[a->child].placed ||
        s[a->parent].placed)
      push(o, into, list->v[i]);
    else
      place_arc(o, list->v[i], into);
  }
  for (i = 0; i < list->n; i++) {
    const oarc *a = &o->a[list->v[i]];
    uint32_t x, r;
    int64_t pos;
    if (s[a->parent].placed || s[a->child].placed || !linked(s, a->parent))
      continue;
    r = find(s, a->parent, &pos);
    for (x = s[r].head; x != NONE; x = s[x].next) {
      emit(o, x);
      s[x].placed = 1;
    }
  }
  if (all)
    for (i = 0; i < list->n; i++) {
      const oarc *a = &o->a[list->v[i]];
      if (!s[a->parent].placed && !s[a->child].placed) {
        emit(o, a->parent);
        s[a->parent].placed = 1;
      }
    }
}

/* }====================================================== */

/* {====================================================== symbols and arcs */

typedef struct slotrun {
  const lgp_specrange *r;
  uint32_t slot;
} slotrun;

static int cmp_run_lo(const void *ctx, uint32_t x, uint32_t y) {
  const slotrun *v = ctx;
  return v[x].r->lo < v[y].r->lo ? -1 : v[x].r->lo > v[y].r->lo;
}

static int add_sym(order *o, size_t *cap, uint32_t node) {
  const lgp_profile *p = o->p;
  if (lgp_grow((void **)&o->s, cap, o->ns + 1, sizeof *o->s) != 0)
    return -1;
  sym_init(&o->s[o->ns], (uint32_t)o->ns, p->graph.nodes[node].name,
           p->image->syms[node].is_mapped);
  o->ns++;
  return 0;
}

/* The copies an arc table's FROM runs become, in gprof's table order (by
** address; at one address in spec order). gprof sorts and compacts the
** table after linking its entries, so an arc's parent is the entry that
** ends up in its slot: of the entries at one address only the first stays,
** later ones move down, and the slots past the end keep what they had.
** Sets slot_sym[j][r] for spec j's run r. */
static int table_copies(order *o, size_t *cap, int table, uint32_t **slot_sym) {
  const lgp_specs *sp = o->p->specs;
  slotrun *v = NULL;
  uint32_t *idx = NULL, *content = NULL;
  size_t n = 0, j, r, i, kept = 0;
  int rc = -1;
  for (j = 0; j < sp->narcspecs; j++)
    if (sp->arcspecs[j].table == table)
      n += sp->arcspecs[j].nfrom;
  if (n == 0)
    return 0;
  v = lgp_alloc_array(n, sizeof *v);
  idx = lgp_alloc_array(n, sizeof *idx);
  content = lgp_alloc_array(n, sizeof *content);
  if (v == NULL || idx == NULL || content == NULL)
    goto out;
  for (j = 0, i = 0; j < sp->narcspecs; j++)
    if (sp->arcspecs[j].table == table)
      for (r = 0; r < sp->arcspecs[j].nfrom; r++, i++) {
        v[i].r = &sp->arcspecs[j].from_ranges[r];
        idx[i] = (uint32_t)i;
      }
  if (lgp_sort_indices(idx, n, cmp_run_lo, v) != 0)
    goto out;
  for (i = 0; i < n; i++) {
    const lgp_specrange *e = v[idx[i]].r;
    v[idx[i]].slot = (uint32_t)i;
    content[i] = e->first;
    if (kept > 0 && o->p->graph.nodes[content[kept - 1]].addr == e->lo)
      continue;
    if (e->hi != 0 && e->hi < e->lo)
      continue;
    content[kept++] = e->first;
  }
  /* content[i] for i >= kept was written in the loop and never after */
  {
    size_t base = o->ns;
    for (i = 0; i < n; i++)
      if (add_sym(o, cap, content[i]) != 0)
        goto out;
    for (j = 0, i = 0; j < sp->narcspecs; j++)
      if (sp->arcspecs[j].table == table)
        for (r = 0; r < sp->arcspecs[j].nfrom; r++, i++)
          slot_sym[j][r] = (uint32_t)(base + v[i].slot);
  }
  rc = 0;
out:
  free(v);
  free(idx);
  free(content);
  return rc;
}

/* The table's symbols (osym i is node i), the specs' copies, and the arcs:
** the specs' count-0 arcs between copies (specs in gprof's list order, FROM
** runs, then TO runs, by address), then the table's arcs in creation order. */
static int order_init(order *o, const lgp_profile *p, lgp_namelist *out, int file_order) {
  const lgp_specs *sp = p->specs;
  uint32_t **from_sym = NULL;
  size_t cap = 0, acap = 0, j, r, q, k;
  int rc = -1;
  memset(o, 0, sizeof *o);
  o->p = p;
  o->out = out;
  o->nreal = p->graph.nsyms;
  for (k = 0; k < o->nreal; k++)
    if (add_sym(o, &cap, (uint32_t)k) != 0)
      goto out;
  if (sp->narcspecs > 0) {
    from_sym = lgp_calloc_array(sp->narcspecs, sizeof *from_sym);
    if (from_sym == NULL)
      goto out;
    for (j = 0; j < sp->narcspecs; j++)
      if (sp->arcspecs[j].nfrom > 0 &&
          (from_sym[j] = lgp_alloc_array(sp->arcspecs[j].nfrom, sizeof **from_sym)) == NULL)
        goto out;
    if (table_copies(o, &cap, LGP_INCL_ARCS, from_sym) != 0 ||
        table_copies(o, &cap, LGP_EXCL_ARCS, from_sym) != 0)
      goto out;
    for (j = 0; j < sp->narcspecs; j++) {
      const lgp_arcspec *as = &sp->arcspecs[j];
      size_t to_base = o->ns;
      if (!as->has_to)
        continue;
      for (q = 0; q < as->nto; q++)
        if (add_sym(o, &cap, as->to_ranges[q].first) != 0)
          goto out;
      for (r = 0; r < as->nfrom; r++)
        for (q = 0; q < as->nto; q++) {
          oarc *a;
          if (lgp_grow((void **)&o->a, &acap, o->na + 1, sizeof *o->a) != 0)
            goto out;
          a = &o->a[o->na++];
          a->parent = from_sym[j][r];
          a->child = (uint32_t)(to_base + q);
          a->count = 0;
          a->placed = 0;
          /* gprof chains the copies of a side's runs through the links the
             placement uses: its orders then follow those stale links (and
             can loop for ever). Not reproduced: refused. */
          if ((as->nfrom > 1 || as->nto > 1) &&
              (!file_order || (o->s[a->parent].mapped && o->s[a->child].mapped)))
            o->multirun = 1;
        }
    }
  }
  o->nphantom = o->na;
  if (lgp_grow((void **)&o->a, &acap, o->na + p->graph.arcs.narcs + 1, sizeof *o->a) != 0)
    goto out;
  for (k = 0; k < p->graph.arcs.narcs; k++) {
    const lgp_arc *t = &p->graph.arcs.arcs[k];
    oarc *a = &o->a[o->na++];
    a->parent = t->parent;
    a->child = t->child;
    a->count = t->count;
    a->placed = 0;
  }
  if (o->ns >= NONE || o->na >= NONE)
    goto out;
  rc = 0;
out:
  if (from_sym != NULL)
    for (j = 0; j < sp->narcspecs; j++)
      free(from_sym[j]);
  free(from_sym);
  return rc;
}

static void order_free(order *o) {
  free(o->s);
  free(o->a);
}

/* gprof's list of arcs: every arc but self arcs, in creation order. */
static void arc_list(order *o, idlist *l) {
  size_t k;
  for (k = 0; k < o->na; k++)
    if (o->a[k].parent != o->a[k].child)
      push(o, l, (uint32_t)k);
}

static int cmp_count_desc(const void *ctx, uint32_t x, uint32_t y) {
  const oarc *a = ctx;
  return a[x].count > a[y].count ? -1 : a[x].count < a[y].count;
}

static int cmp_nuses_desc(const void *ctx, uint32_t x, uint32_t y) {
  const osym *s = ctx;
  return s[x].nuses > s[y].nuses ? -1 : s[x].nuses < s[y].nuses;
}

/* }====================================================== */

/* {====================================================== -r */

/* gprof's call graph sorts the parents and children lists of each entry it
** prints, in place: a later -r reads them in that order. cmp_arc's order
** (self arcs, arcs inside a cycle by count, the others by propagated time,
** then count), parents ascending and children descending, ties in creation
** order, as report.c prints them. */
typedef struct arckey {
  const lgp_graph *g;
  uint32_t node;
  int desc;
} arckey;

static int arc_cls(const lgp_graph *g, uint32_t s, uint32_t other) {
  if (other == s)
    return 0;
  return g->nodes[s].cyc_num != 0 && g->nodes[s].cyc_num == g->nodes[other].cyc_num ? 1 : 2;
}

static int cmp_printed(const void *ctx, uint32_t x, uint32_t y) {
  const arckey *k = ctx;
  const lgp_arc *a = &k->g->arcs.arcs[x], *b = &k->g->arcs.arcs[y];
  uint32_t oa = k->desc ? a->child : a->parent, ob = k->desc ? b->child : b->parent;
  int ca = arc_cls(k->g, k->node, oa), cb = arc_cls(k->g, k->node, ob), c = 0;
  if (ca != cb) {
    c = ca < cb ? -1 : 1;
  } else if (ca != 0) {
    if (ca == 2) {
      double ta = a->time + a->child_time, tb = b->time + b->child_time;
      c = ta < tb ? -1 : ta > tb;
    }
    if (c == 0 && a->count != b->count)
      c = a->count < b->count ? -1 : 1;
  }
  if (k->desc)
    c = -c;
  return c != 0 ? c : (x < y ? -1 : x > y);
}

/* The arcs of f's children (or parents) list as gprof holds it when -r
** runs: newest first, or sorted if the call graph printed f's entry. */
static void arc_list_of(order *o, uint32_t f, int parents, const lgp_ordering_opts *oo,
                        idlist *l) {
  const lgp_profile *p = o->p;
  const lgp_graph *g = &p->graph;
  const uint32_t *off = parents ? g->parent_off : g->child_off;
  const uint32_t *arcs = parents ? g->parent_arcs : g->child_arcs;
  size_t j;
  l->n = 0;
  for (j = off[f]; j < off[f + 1]; j++)
    push(o, l, arcs[j]);
  if (o->failed || oo == NULL || !oo->after_graph || !lgp_graph_shows(p, f, oo->ignore_zeros) ||
      (p->line_granularity && !g->nodes[f].is_func))
    return;
  {
    arckey k;
    k.g = g;
    k.node = f;
    k.desc = !parents;
    if (lgp_sort_indices(l->v, l->n, cmp_printed, &k) != 0)
      o->failed = 1;
  }
}

/* Step 4: the up to used/80 functions most arcs lead to (gprof stops at
** one with exactly 5 uses), their arcs whose both ends are then marked
** (HIGH), and those functions still marked, but the last. */
static void pick_hubs(order *o, const idlist *used, idlist *high, const lgp_ordering_opts *oo) {
  osym *s = o->s;
  idlist scratch = {NULL, 0, 0}, list = {NULL, 0, 0};
  uint32_t *by_uses = lgp_alloc_array(used->n ? used->n : 1, sizeof *by_uses);
  size_t i, j, last = 0, npick = used->n / 80;
  int side;
  if (by_uses == NULL) {
    o->failed = 1;
    return;
  }
  if (used->n > 0)
    memcpy(by_uses, used->v, used->n * sizeof *by_uses);
  if (lgp_sort_indices(by_uses, used->n, cmp_nuses_desc, s) != 0) {
    o->failed = 1;
    free(by_uses);
    return;
  }
  for (i = 0; i < npick && !o->failed; i++) {
    uint32_t f = by_uses[i];
    if (s[f].nuses == 5)
      break;
    for (side = 0; side < 2; side++) { /* children, then parents */
      arc_list_of(o, f, side, oo, &list);
      for (j = 0; j < list.n; j++) {
        uint32_t k = (uint32_t)o->nphantom + list.v[j];
        if (o->a[k].parent != o->a[k].child)
          push(o, &scratch, k);
        o->a[k].placed = 1;
      }
    }
    last = i;
    s[f].placed = 1;
  }
  for (i = 0; i < scratch.n; i++) {
    oarc *a = &o->a[scratch.v[i]];
    if (s[a->child].placed && s[a->parent].placed) {
      push(o, high, scratch.v[i]);
      s[a->child].placed = s[a->parent].placed = 0;
    }
  }
  for (i = 0; i < last; i++)
    if (s[by_uses[i]].placed)
      emit(o, by_uses[i]);
  free(scratch.v);
  free(list.v);
  free(by_uses);
}

int lgp_ordering_functions(const lgp_profile *p, const lgp_ordering_opts *oo, lgp_namelist *out,
                           lgp_err *err) {
  order o;
  idlist arcs = {NULL, 0, 0}, used = {NULL, 0, 0}, unused = {NULL, 0, 0};
  idlist high = {NULL, 0, 0}, unplaced = {NULL, 0, 0}, scratch = {NULL, 0, 0};
  uint64_t total = 0, sum = 0;
  size_t i;
  memset(out, 0, sizeof *out);
  if (order_init(&o, p, out, 0) != 0) {
    order_free(&o);
    return lgp_fail(err, NULL, "out of memory");
  }
  if (o.multirun) {
    order_free(&o);
    return lgp_fail(err, NULL, MULTIRUN, "function");
  }
  osym *s = o.s;
  for (i = 0; i < o.nreal; i++) {
    if (p->graph.nodes[i].ncalls == 0) {
      push(&o, &unused, (uint32_t)i);
      s[i].placed = 1;
    } else {
      push(&o, &used, (uint32_t)i);
    }
  }
  arc_list(&o, &arcs);
  if (!o.failed && lgp_sort_indices(arcs.v, arcs.n, cmp_count_desc, o.a) != 0)
    o.failed = 1;
  for (i = 0; i < arcs.n; i++)
    total += o.a[arcs.v[i]].count;
  for (i = 0; i < arcs.n; i++) {
    const oarc *a = &o.a[arcs.v[i]];
    sum += a->count;
    if ((double)sum / (double)total > 0.90)
      break;
    s[a->child].nuses++;
  }
  if (!o.failed)
    pick_hubs(&o, &used, &high, oo);
  if (!o.failed && lgp_sort_indices(high.v, high.n, cmp_count_desc, o.a) != 0)
    o.failed = 1;
  if (!o.failed) {
    place(&o, &high, 1, &unplaced);
    place(&o, &arcs, 0, &unplaced);
    place(&o, &unplaced, 1, &scratch);
  }
  for (i = 0; i < used.n; i++)
    if (!s[used.v[i]].placed)
      emit(&o, used.v[i]);
  for (i = 0; i < unused.n; i++)
    emit(&o, unused.v[i]);
  free(arcs.v);
  free(used.v);
  free(unused.v);
  free(high.v);
  free(unplaced.v);
  free(scratch.v);
  order_free(&o);
  if (o.failed) {
    lgp_ordering_namelist_free(out);
    return lgp_fail(err, NULL, "out of memory");
  }
  return 0;
}

/* }====================================================== */

/* {====================================================== -R */

static int cmp_name(const void *ctx, uint32_t x, uint32_t y) {
  const osym *s = ctx;
  return strcmp(s[x].name, s[y].name);
}

/* Is name among the n mapped symbols' names sorted in by_name? */
static int has_name(const osym *s, const uint32_t *by_name, size_t n, const char *name) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(s[by_name[mid]].name, name);
    if (c == 0)
      return 1;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

int lgp_ordering_files(const lgp_profile *p, const lgp_mapfile *m, lgp_namelist *out,
                       lgp_err *err) {
  order o;
  idlist arcs = {NULL, 0, 0}, scratch = {NULL, 0, 0}, mapped = {NULL, 0, 0};
  size_t i;
  memset(out, 0, sizeof *out);
  if (order_init(&o, p, out, 1) != 0) {
    order_free(&o);
    return lgp_fail(err, NULL, "out of memory");
  }
  if (o.multirun) {
    order_free(&o);
    return lgp_fail(err, NULL, MULTIRUN, "file");
  }
  arc_list(&o, &arcs);
  for (i = 0; i < arcs.n; i++) {
    oarc *a = &o.a[arcs.v[i]];
    if (!o.s[a->parent].mapped || !o.s[a->child].mapped)
      a->placed = 1;
  }
  if (!o.failed)
    place(&o, &arcs, 0, &scratch);
  for (i = 0; i < o.nreal; i++)
    if (o.s[i].mapped) {
      push(&o, &mapped, (uint32_t)i);
      if (!o.s[i].placed)
        emit(&o, (uint32_t)i);
    }
  if (!o.failed && lgp_sort_indices(mapped.v, mapped.n, cmp_name, o.s) != 0)
    o.failed = 1;
  for (i = 0; i < m->n && !o.failed; i++) {
    const char *file = m->by_file[i].file;
    if (i > 0 && strcmp(file, m->by_file[i - 1].file) == 0)
      continue;
    if (!has_name(o.s, mapped.v, mapped.n, file)) {
      lgp_namelist *l = out;
      if (lgp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0)
        o.failed = 1;
      else
        l->v[l->n++] = file;
    }
  }
  free(arcs.v);
  free(scratch.v);
  free(mapped.v);
  order_free(&o);
  if (o.failed) {
    lgp_ordering_namelist_free(out);
    return lgp_fail(err, NULL, "out of memory");
  }
  return 0;
}

/* }====================================================== */
