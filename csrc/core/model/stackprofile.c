/*
** stackprofile.c: a profile from sampled stacks (see stackprofile.h): one
** node per function in (binary, address, name) order, the arcs the stacks
** show, cycles found by the graph's analysis, then the measured times put
** in place of gprof's propagated ones before the index is ordered.
*/
#include <stdlib.h>
#include <string.h>

#include "model/stackprofile.h"
#include "util/hashtab.h"

/* Node order: by binary, then address, then name. */
typedef struct func_key {
  uint32_t dso, func;
  uint64_t start;
  const char *name;
} func_key;

static int cmp_func_key(const void *a, const void *b) {
  const func_key *l = a, *r = b;
  int c;
  if (l->dso != r->dso)
    return l->dso < r->dso ? -1 : 1;
  if (l->start != r->start)
    return l->start < r->start ? -1 : 1;
  c = strcmp(l->name, r->name);
  if (c != 0)
    return c;
  return l->func < r->func ? -1 : l->func > r->func;
}

/* Every id of the table points inside its arrays. */
static int check_table(const lgp_stacktab *t, lgp_err *err) {
  size_t i;
  for (i = 0; i < t->nfuncs; i++)
    if (t->funcs[i].dso >= t->ndsos || t->funcs[i].name == NULL ||
        (t->funcs[i].file != LGP_ST_NOFILE && t->funcs[i].file >= t->nfiles))
      return lgp_fail(err, NULL, "stack table: function %zu: bad binary, name or file", i);
  for (i = 0; i < t->nframe_defs; i++)
    if (t->frame_defs[i].func >= t->nfuncs ||
        (t->frame_defs[i].file != LGP_ST_NOFILE && t->frame_defs[i].file >= t->nfiles))
      return lgp_fail(err, NULL, "stack table: frame %zu: bad function or file", i);
  for (i = 0; i < t->nframes; i++)
    if (t->frames[i] >= t->nframe_defs)
      return lgp_fail(err, NULL, "stack table: frame id %zu out of range", i);
  for (i = 0; i < t->nstacks; i++) {
    const lgp_st_stack *s = &t->stacks[i];
    if (s->depth == 0 || s->first > t->nframes || s->depth > t->nframes - s->first ||
        s->thread >= t->nthreads || s->event >= t->nevents)
      return lgp_fail(err, NULL, "stack table: stack %zu: bad frames, thread or event", i);
  }
  return 0;
}

/* Nodes for the functions (node_of and func_of set) and the image the
** symspecs and source lookups read (a symbol per node, the table's files). */
static int build_nodes(lgp_stackprof *sp, lgp_image *im, lgp_node **out) {
  const lgp_stacktab *t = &sp->tab;
  size_t n = t->nfuncs, i;
  func_key *keys = lgp_alloc_array(n ? n : 1, sizeof *keys);
  lgp_node *nodes = lgp_calloc_array(n ? n : 1, sizeof *nodes);
  int rc = -1;
  sp->node_of = lgp_alloc_array(n ? n : 1, sizeof *sp->node_of);
  sp->func_of = lgp_alloc_array(n ? n : 1, sizeof *sp->func_of);
  im->syms = lgp_calloc_array(n ? n : 1, sizeof *im->syms);
  im->files = lgp_calloc_array(t->nfiles ? t->nfiles : 1, sizeof *im->files);
  if (keys == NULL || nodes == NULL || sp->node_of == NULL || sp->func_of == NULL ||
      im->syms == NULL || im->files == NULL)
    goto out;
  for (i = 0; i < t->nfiles; i++) {
    size_t len = strlen(t->files[i]) + 1;
    if ((im->files[i] = malloc(len)) == NULL)
      goto out;
    memcpy(im->files[i], t->files[i], len);
    im->nfiles = i + 1;
  }
  for (i = 0; i < n; i++) {
    keys[i].dso = t->funcs[i].dso;
    keys[i].func = (uint32_t)i;
    keys[i].start = t->funcs[i].start;
    keys[i].name = t->funcs[i].name;
  }
  qsort(keys, n, sizeof *keys, cmp_func_key);
  for (i = 0; i < n; i++) {
    const lgp_st_func *f = &t->funcs[keys[i].func];
    lgp_rawsym *rs = &im->syms[i];
    sp->node_of[keys[i].func] = (uint32_t)i;
    sp->func_of[i] = keys[i].func;
    /* node addresses are positions, 16 apart: the binaries' addresses
       overlap, and the symspecs' ranges need distinct ones (the Lua API
       gives the real ones) */
    rs->addr = (lgp_addr)i * 16;
    rs->name = f->name;
    rs->symndx = (uint32_t)i;
    rs->is_func = 1;
    rs->file = f->file == LGP_ST_NOFILE ? -1 : (int32_t)f->file;
    rs->line = (int32_t)f->line;
    lgp_symtab_node_init(&nodes[i], (uint32_t)i, rs, rs->addr + 15);
  }
  im->nsyms = n;
  im->addr_bytes = 8;
  im->srcinfo_state = 1;  /* the table's files and lines are the source info */
  im->lines_state = -1;
  *out = nodes;
  nodes = NULL;
  rc = 0;
out:
  free(keys);
  free(nodes);
  return rc;
}

/* The arcs every stack shows; arc_at[j]: the arc into the frame at
** tab.frames[j] from the one just outside it (LGP_ARC_NONE at a root). */
static int add_arcs(lgp_stackprof *sp, lgp_arctab *arcs, uint32_t *arc_at, lgp_err *err) {
  const lgp_stacktab *t = &sp->tab;
  size_t s;
  uint32_t d;
  for (s = 0; s < t->nstacks; s++) {
    const lgp_st_stack *st = &t->stacks[s];
    for (d = 0; d < st->depth; d++) {
      size_t j = st->first + d;
      uint32_t child, parent;
      int rc;
      arc_at[j] = LGP_ARC_NONE;
      if (d + 1 == st->depth)
        break;
      child = sp->node_of[t->frame_defs[t->frames[j]].func];
      parent = sp->node_of[t->frame_defs[t->frames[j + 1]].func];
      rc = lgp_arctab_add(arcs, parent, child, st->samples ? st->samples : 1);
      if (rc == LGP_ARCS_FULL)
        return lgp_fail(err, NULL, "too many arcs");
      if (rc != 0)
        return lgp_fail(err, NULL, "out of memory");
      arc_at[j] = lgp_arctab_find(arcs, parent, child);
    }
  }
  return 0;
}

/* The measured times, in place of the propagated ones (stackprofile.h). */
static int measure(lgp_stackprof *sp, lgp_graph *g, const uint32_t *arc_at,
                   const lgp_specs *specs) {
  const lgp_stacktab *t = &sp->tab;
  size_t total = g->nsyms + g->ncycles, i, s, k;
  double *tot = lgp_calloc_array(total ? total : 1, sizeof *tot);
  double *self = lgp_calloc_array(total ? total : 1, sizeof *self);
  size_t *seen = lgp_calloc_array(total ? total : 1, sizeof *seen);
  uint32_t *node = NULL, *head = NULL, maxd = 1;
  int rc = -1;
  sp->self_samples = lgp_calloc_array(total ? total : 1, sizeof *sp->self_samples);
  sp->total_samples = lgp_calloc_array(total ? total : 1, sizeof *sp->total_samples);
  for (s = 0; s < t->nstacks; s++)
    if (t->stacks[s].depth > maxd)
      maxd = t->stacks[s].depth;
  node = lgp_alloc_array(maxd, sizeof *node);
  head = lgp_alloc_array(maxd, sizeof *head);
  if (tot == NULL || self == NULL || seen == NULL || node == NULL || head == NULL ||
      sp->self_samples == NULL || sp->total_samples == NULL)
    goto out;
  for (k = 0; k < g->arcs.narcs; k++)
    g->arcs.arcs[k].time = g->arcs.arcs[k].child_time = 0;
  for (s = 0; s < t->nstacks; s++) {
    const lgp_st_stack *st = &t->stacks[s];
    double w = (double)st->weight;
    uint32_t d, lo, hi;
    for (d = 0; d < st->depth; d++) {
      node[d] = sp->node_of[t->frame_defs[t->frames[st->first + d]].func];
      head[d] = g->cyc_of[node[d]];
    }
    self[node[0]] += w;
    sp->self_samples[node[0]] += st->samples;
    if (head[0] != node[0]) {
      self[head[0]] += w;
      sp->self_samples[head[0]] += st->samples;
    }
    /* once per sample (seen: the stack's number + 1) */
    for (d = 0; d < st->depth; d++) {
      uint32_t v[2];
      int m;
      v[0] = node[d];
      v[1] = head[d];
      for (m = 0; m < (v[1] != v[0] ? 2 : 1); m++) {
        if (seen[v[m]] == s + 1)
          continue;
        seen[v[m]] = s + 1;
        tot[v[m]] += w;
        sp->total_samples[v[m]] += st->samples;
      }
    }
    /* runs of one head: the arc into the outermost frame of each */
    for (lo = 0; lo < st->depth; lo = hi + 1) {
      uint32_t a;
      for (hi = lo; hi + 1 < st->depth && head[hi + 1] == head[lo]; hi++)
        ;
      if (hi + 1 == st->depth || (a = arc_at[st->first + hi]) == LGP_ARC_NONE)
        continue;
      if (lo == 0)
        g->arcs.arcs[a].time += w;
      else
        g->arcs.arcs[a].child_time += w;
    }
  }
  g->print_time = g->total_time = 0;
  for (i = 0; i < total; i++) {
    lgp_node *n = &g->nodes[i];
    n->hist_time = self[i];
    n->prop_self = self[i];
    n->prop_child = tot[i] - self[i];
    n->prop_fract = 1.0;
    n->ncalls = n->self_calls = n->member_calls = 0;
    if (i < g->nsyms) {
      g->print_time += self[i];
      if (lgp_specs_in_table(specs, n, LGP_INCL_FLAT, LGP_EXCL_FLAT))
        g->total_time += self[i];
    }
  }
  rc = 0;
out:
  free(tot);
  free(self);
  free(seen);
  free(node);
  free(head);
  return rc;
}

/* The image's path, which the exports name as the program's: the binary
** most samples end in (the first of equals), or "" without samples. */
static int set_image_path(lgp_image *im, const lgp_stacktab *t) {
  uint64_t *leaf = lgp_calloc_array(t->ndsos ? t->ndsos : 1, sizeof *leaf);
  const char *path = "";
  size_t i, best = 0, len;
  if (leaf == NULL)
    return -1;
  for (i = 0; i < t->nstacks; i++)
    leaf[t->funcs[t->frame_defs[t->frames[t->stacks[i].first]].func].dso] += t->stacks[i].samples;
  for (i = 1; i < t->ndsos; i++)
    if (leaf[i] > leaf[best])
      best = i;
  if (t->ndsos > 0 && leaf[best] > 0 && t->dsos[best].path != NULL)
    path = t->dsos[best].path;
  free(leaf);
  len = strlen(path) + 1;
  if ((im->path = malloc(len)) == NULL)
    return -1;
  memcpy(im->path, path, len);
  return 0;
}

int lgp_profile_from_stacks(lgp_profile *p, lgp_stacktab *tab, const lgp_options *opts,
                            lgp_err *err) {
  lgp_sources *src;
  lgp_stackprof *sp;
  lgp_node *nodes = NULL;
  uint32_t *arc_at = NULL;
  size_t i;
  memset(p, 0, sizeof *p);
  src = p->own = lgp_calloc_array(1, sizeof *p->own);
  sp = src != NULL ? lgp_calloc_array(1, sizeof *sp) : NULL;
  if (sp == NULL) {
    free(src);
    p->own = NULL;
    lgp_stacktab_free(tab);
    return lgp_fail(err, NULL, "out of memory");
  }
  sp->tab = *tab;
  memset(tab, 0, sizeof *tab);
  src->stackprof = sp;
  p->stacks = sp;
  p->image = &src->image;
  p->gmon = &src->gmon;
  p->specs = &src->specs;
  p->index = &src->index;
  if (check_table(&sp->tab, err) != 0)
    goto fail;
  sp->is_time = sp->tab.nevents > 0;
  for (i = 0; i < sp->tab.nevents; i++)
    sp->is_time &= sp->tab.events[i].is_time != 0;
  for (i = 0; i < sp->tab.nstacks; i++) {
    sp->samples += sp->tab.stacks[i].samples;
    sp->weight += sp->tab.stacks[i].weight;
  }
  lgp_gmon_init(&src->gmon, 8, 0);
  src->gmon.hz = sp->is_time ? 1000000000u : 1u;
  src->gmon.have_hist = src->gmon.have_cg = 1; /* self times and arcs, as the reports need */
  if (build_nodes(sp, &src->image, &nodes) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  lgp_graph_init(&p->graph, nodes, sp->tab.nfuncs);
  if (set_image_path(&src->image, &sp->tab) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_symindex_build(&src->index, nodes, sp->tab.nfuncs) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_specs_apply(&src->specs, nodes, sp->tab.nfuncs, &src->image, opts, err) != 0)
    goto fail;
  arc_at = lgp_alloc_array(sp->tab.nframes ? sp->tab.nframes : 1, sizeof *arc_at);
  if (arc_at == NULL) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (add_arcs(sp, &p->graph.arcs, arc_at, err) != 0)
    goto fail;
  /* cycles, adjacency and print flags are gprof's; the times then measured */
  if (lgp_graph_analyse(&p->graph, &src->specs, LGP_GRAPH_TIME, err) != 0)
    goto fail;
  if (measure(sp, &p->graph, arc_at, &src->specs) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_graph_analyse(&p->graph, &src->specs, LGP_GRAPH_ALL, err) != 0)
    goto fail;
  free(arc_at);
  p->base_time = p->graph.total_time;
  p->base_print_time = p->graph.print_time;
  return 0;
fail:
  free(arc_at);
  lgp_profile_free(p);
  return -1;
}

/* A copy of a string, or NULL for NULL; *bad set when out of memory. */
static char *dup_str(const char *s, int *bad) {
  char *d;
  size_t len;
  if (s == NULL)
    return NULL;
  len = strlen(s) + 1;
  d = malloc(len);
  if (d == NULL)
    *bad = 1;
  else
    memcpy(d, s, len);
  return d;
}

/* A copy of n elements (at least one allocated); NULL when out of memory. */
static void *dup_elems(const void *src, size_t n, size_t size) {
  void *d = lgp_alloc_array(n ? n : 1, size);
  if (d != NULL && n > 0)
    memcpy(d, src, n * size);
  return d;
}

int lgp_stacktab_subset(lgp_stacktab *dst, const lgp_stacktab *src, const uint8_t *keep) {
  size_t i, ns = 0, nf = 0;
  int bad = 0;
  *dst = *src; /* the counters; every array is copied below */
  dst->dsos = dup_elems(src->dsos, src->ndsos, sizeof *src->dsos);
  dst->funcs = dup_elems(src->funcs, src->nfuncs, sizeof *src->funcs);
  dst->frame_defs = dup_elems(src->frame_defs, src->nframe_defs, sizeof *src->frame_defs);
  dst->threads = dup_elems(src->threads, src->nthreads, sizeof *src->threads);
  dst->events = dup_elems(src->events, src->nevents, sizeof *src->events);
  dst->files = lgp_calloc_array(src->nfiles ? src->nfiles : 1, sizeof *dst->files);
  for (i = 0; i < src->nstacks; i++)
    if (keep[i]) {
      ns++;
      nf += src->stacks[i].depth;
    }
  dst->stacks = lgp_alloc_array(ns ? ns : 1, sizeof *dst->stacks);
  dst->frames = lgp_alloc_array(nf ? nf : 1, sizeof *dst->frames);
  /* the strings are the new table's own: none shared, so each table frees its own */
  if (dst->dsos != NULL)
    for (i = 0; i < src->ndsos; i++) {
      dst->dsos[i].path = dup_str(src->dsos[i].path, &bad);
      dst->dsos[i].found = dup_str(src->dsos[i].found, &bad);
    }
  else
    dst->ndsos = 0;
  if (dst->funcs != NULL)
    for (i = 0; i < src->nfuncs; i++)
      dst->funcs[i].name = dup_str(src->funcs[i].name, &bad);
  else
    dst->nfuncs = 0;
  if (dst->threads != NULL)
    for (i = 0; i < src->nthreads; i++)
      dst->threads[i].comm = dup_str(src->threads[i].comm, &bad);
  else
    dst->nthreads = 0;
  if (dst->events != NULL)
    for (i = 0; i < src->nevents; i++)
      dst->events[i].name = dup_str(src->events[i].name, &bad);
  else
    dst->nevents = 0;
  if (dst->files != NULL)
    for (i = 0; i < src->nfiles; i++)
      dst->files[i] = dup_str(src->files[i], &bad);
  else
    dst->nfiles = 0;
  dst->nstacks = dst->nframes = 0;
  if (dst->dsos == NULL || dst->funcs == NULL || dst->threads == NULL || dst->events == NULL ||
      dst->files == NULL)
    bad = 1;
  if (dst->frame_defs == NULL || dst->stacks == NULL || dst->frames == NULL || bad) {
    lgp_stacktab_free(dst);
    return -1;
  }
  for (i = 0; i < src->nstacks; i++) {
    lgp_st_stack st;
    if (!keep[i])
      continue;
    st = src->stacks[i];
    memcpy(dst->frames + dst->nframes, src->frames + st.first, st.depth * sizeof *dst->frames);
    st.first = (uint32_t)dst->nframes;
    dst->nframes += st.depth;
    dst->stacks[dst->nstacks++] = st;
  }
  return 0;
}

void lgp_stackprof_free(lgp_stackprof *sp) {
  lgp_stacktab_free(&sp->tab);
  free(sp->node_of);
  free(sp->func_of);
  free(sp->self_samples);
  free(sp->total_samples);
  memset(sp, 0, sizeof *sp);
}

/* ---- the stacks as the writers take them ---- */

void lgp_measured_free(lgp_measured *m) {
  free(m->node);
  free(m->parent);
  free(m->weight);
  free(m->merged);
  free(m->seconds);
  memset(m, 0, sizeof *m);
}

/* The entry of node under parent; made when missing if make, else
** LGP_HASHTAB_END (also when out of memory). cap: the entries' room. */
static uint32_t measured_entry(lgp_measured *m, size_t *cap, lgp_hashtab *ht, uint32_t parent,
                               uint32_t node, int make) {
  uint64_t key = (uint64_t)(parent + 1u) << 32 | node;
  lgp_hashpos at;
  uint32_t e;
  /* room first: a probe's end is where the new id goes */
  if (make && (m->n >= UINT32_MAX - 1 || lgp_hashtab_reserve(ht, 1) != 0))
    return LGP_HASHTAB_END;
  at = lgp_hashtab_probe(ht, lgp_hashtab_hash_u64(key));
  while ((e = lgp_hashtab_next(ht, &at)) != LGP_HASHTAB_END)
    if (m->parent[e] == parent && m->node[e] == node)
      return e;
  if (!make)
    return LGP_HASHTAB_END;
  if (m->n == *cap) {
    size_t c = *cap ? 2 * *cap : 256;
    uint32_t *nn = realloc(m->node, c * sizeof *nn), *np;
    double *nw;
    if (nn)
      m->node = nn;
    np = nn ? realloc(m->parent, c * sizeof *np) : NULL;
    if (np)
      m->parent = np;
    nw = np ? realloc(m->weight, c * sizeof *nw) : NULL;
    if (!nw)
      return LGP_HASHTAB_END;
    m->weight = nw;
    *cap = c;
  }
  e = (uint32_t)m->n++;
  m->node[e] = node;
  m->parent[e] = parent;
  m->weight[e] = 0;
  lgp_hashtab_put(ht, &at, e);
  return e;
}

int lgp_stacks_measured(lgp_measured *m, const lgp_profile *p, size_t max_depth,
                        double least_share) {
  const lgp_stackprof *sp = p->stacks;
  const lgp_stacktab *t = &sp->tab;
  lgp_hashtab ht = {0};
  uint32_t *merged_of = NULL;
  double *sec = NULL, total = 0, least;
  size_t cap = 0, mcap = 0, scap = 0, i, d;
  memset(m, 0, sizeof *m);
  if (!(sec = lgp_alloc_array(t->nstacks ? t->nstacks : 1, sizeof *sec)))
    goto oom;
  for (i = 0; i < t->nstacks; i++) {
    sec[i] = lgp_seconds(p, (double)t->stacks[i].weight);
    total += sec[i];
  }
  least = least_share * total;
  /* the weight of each path from the root */
  for (i = 0; i < t->nstacks; i++) {
    const lgp_st_stack *s = &t->stacks[i];
    uint32_t e = LGP_MEASURED_ROOT;
    size_t depth = s->depth < max_depth ? s->depth : max_depth;
    for (d = 0; d < depth; d++) {
      uint32_t node = sp->node_of[t->frame_defs[t->frames[s->first + s->depth - 1 - d]].func];
      if ((e = measured_entry(m, &cap, &ht, e, node, 1)) == LGP_HASHTAB_END)
        goto oom;
      m->weight[e] += sec[i];
    }
  }
  if (!(merged_of = lgp_alloc_array(m->n ? m->n : 1, sizeof *merged_of)))
    goto oom;
  for (i = 0; i < m->n; i++)
    merged_of[i] = LGP_MEASURED_ROOT;
  /* the cut stacks, equal ones summed, in the order first met */
  for (i = 0; i < t->nstacks; i++) {
    const lgp_st_stack *s = &t->stacks[i];
    uint32_t e = LGP_MEASURED_ROOT, kid, k;
    size_t depth = s->depth < max_depth ? s->depth : max_depth;
    for (d = 0; d < depth; d++) {
      uint32_t node = sp->node_of[t->frame_defs[t->frames[s->first + s->depth - 1 - d]].func];
      kid = measured_entry(m, &cap, &ht, e, node, 0);
      if (m->weight[kid] < least)
        break;
      e = kid;
    }
    if (e == LGP_MEASURED_ROOT)
      continue;
    if ((k = merged_of[e]) == LGP_MEASURED_ROOT) {
      if (lgp_grow((void **)&m->merged, &mcap, m->nmerged + 1, sizeof *m->merged) != 0
          || lgp_grow((void **)&m->seconds, &scap, m->nmerged + 1, sizeof *m->seconds) != 0)
        goto oom;
      k = merged_of[e] = (uint32_t)m->nmerged++;
      m->merged[k] = e;
      m->seconds[k] = 0;
    }
    m->seconds[k] += sec[i];
  }
  free(sec);
  free(merged_of);
  lgp_hashtab_free(&ht);
  return 0;
oom:
  free(sec);
  free(merged_of);
  lgp_hashtab_free(&ht);
  lgp_measured_free(m);
  return -1;
}
