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

/* The functions' order: node_of as if no line had a node (build_nodes
** then numbers the nodes, lines included). By address, then binary (two
** stable radix passes, ids in order within equal keys); only runs of one
** binary and address (inlined functions: all at 0) compare names. */
static int order_functions(lgp_stackprof *sp) {
  const lgp_stacktab *t = &sp->tab;
  size_t n = t->nfuncs, i, lo, hi;
  uint32_t *idx = lgp_alloc_array(n ? n : 1, sizeof *idx);
  uint64_t *keys = lgp_alloc_array(n ? n : 1, sizeof *keys);
  func_key *run = NULL;
  size_t run_cap = 0;
  int rc = -1;
  sp->node_of = lgp_alloc_array(n ? n : 1, sizeof *sp->node_of);
  if (idx == NULL || keys == NULL || sp->node_of == NULL)
    goto out;
  for (i = 0; i < n; i++) {
    idx[i] = (uint32_t)i;
    keys[i] = t->funcs[i].start;
  }
  if (lgp_radix_sort(idx, keys, n) != 0)
    goto out;
  for (i = 0; i < n; i++)
    keys[i] = t->funcs[i].dso;
  if (lgp_radix_sort(idx, keys, n) != 0)
    goto out;
  for (lo = 0; lo < n; lo = hi) {
    const lgp_st_func *f = &t->funcs[idx[lo]];
    for (hi = lo + 1; hi < n && t->funcs[idx[hi]].dso == f->dso
                      && t->funcs[idx[hi]].start == f->start; hi++)
      ;
    if (hi - lo > 1) {
      if (hi - lo > run_cap) {
        free(run);
        run_cap = hi - lo;
        if ((run = lgp_alloc_array(run_cap, sizeof *run)) == NULL)
          goto out;
      }
      for (i = lo; i < hi; i++) {
        run[i - lo].dso = f->dso;
        run[i - lo].func = idx[i];
        run[i - lo].start = f->start;
        run[i - lo].name = t->funcs[idx[i]].name;
      }
      qsort(run, hi - lo, sizeof *run, cmp_func_key);
      for (i = lo; i < hi; i++)
        idx[i] = run[i - lo].func;
    }
  }
  for (i = 0; i < n; i++)
    sp->node_of[idx[i]] = (uint32_t)i;
  rc = 0;
out:
  free(idx);
  free(keys);
  free(run);
  return rc;
}

/* Leaf frames with a line, in the order lines are made: by function
** (node order), file, line, then address. */
typedef struct leaf_key {
  uint32_t rank, file, line, def;
  uint64_t addr;
} leaf_key;

static int cmp_leaf_key(const void *a, const void *b) {
  const leaf_key *l = a, *r = b;
  if (l->rank != r->rank)
    return l->rank < r->rank ? -1 : 1;
  if (l->file != r->file)
    return l->file < r->file ? -1 : 1;
  if (l->line != r->line)
    return l->line < r->line ? -1 : 1;
  if (l->addr != r->addr)
    return l->addr < r->addr ? -1 : 1;
  return l->def < r->def ? -1 : l->def > r->def;
}

/* A function's lines in address order: by the function's node (before
** any line has one), then lowest address. */
static int cmp_line(const void *ctx, uint32_t x, uint32_t y) {
  const lgp_stackprof *sp = ctx;
  const lgp_st_line *l = &sp->lines[x], *r = &sp->lines[y];
  uint32_t lf = sp->node_of[l->func], rf = sp->node_of[r->func];
  if (lf != rf)
    return lf < rf ? -1 : 1;
  if (l->addr != r->addr)
    return l->addr < r->addr ? -1 : 1;
  if (l->file != r->file)
    return l->file < r->file ? -1 : 1;
  return l->line < r->line ? -1 : l->line > r->line;
}

/* The lines samples ended on (sp->lines); their node fields are LGP_NONE
** until build_nodes. 0, or -1 (out of memory). */
static int find_lines(lgp_stackprof *sp) {
  const lgp_stacktab *t = &sp->tab;
  size_t nd = t->nframe_defs, i, n = 0, k;
  uint64_t *samples = lgp_calloc_array(nd ? nd : 1, sizeof *samples);
  uint64_t *weight = lgp_calloc_array(nd ? nd : 1, sizeof *weight);
  uint8_t *leaf = lgp_calloc_array(nd ? nd : 1, 1);
  leaf_key *keys = NULL;
  uint32_t *order = NULL;
  lgp_st_line *sorted = NULL;
  int rc = -1;
  if (samples == NULL || weight == NULL || leaf == NULL)
    goto out;
  for (i = 0; i < t->nstacks; i++) {
    uint32_t d = t->frames[t->stacks[i].first];
    leaf[d] = 1;
    samples[d] += t->stacks[i].samples;
    weight[d] += t->stacks[i].weight;
  }
  for (i = 0; i < nd; i++)
    n += leaf[i] && t->frame_defs[i].line > 0 && t->frame_defs[i].file != LGP_ST_NOFILE;
  keys = lgp_alloc_array(n ? n : 1, sizeof *keys);
  sp->lines = lgp_alloc_array(n ? n : 1, sizeof *sp->lines);
  if (keys == NULL || sp->lines == NULL)
    goto out;
  for (i = 0, k = 0; i < nd; i++) {
    const lgp_st_frame *f = &t->frame_defs[i];
    if (!leaf[i] || f->line == 0 || f->file == LGP_ST_NOFILE)
      continue;
    keys[k].rank = sp->node_of[f->func];
    keys[k].file = f->file;
    keys[k].line = f->line;
    keys[k].def = (uint32_t)i;
    keys[k++].addr = f->addr;
  }
  qsort(keys, n, sizeof *keys, cmp_leaf_key);
  /* one line per (function, file, line); the first key is the lowest address */
  sp->nlines = 0;
  for (k = 0; k < n; k++) {
    lgp_st_line *l;
    if (k == 0 || keys[k].rank != keys[k - 1].rank || keys[k].file != keys[k - 1].file ||
        keys[k].line != keys[k - 1].line) {
      l = &sp->lines[sp->nlines++];
      l->func = t->frame_defs[keys[k].def].func;
      l->node = LGP_NONE; /* (build_nodes gives it one at line granularity) */
      l->file = keys[k].file;
      l->line = keys[k].line;
      l->addr = keys[k].addr;
      l->samples = l->weight = 0;
    }
    l = &sp->lines[sp->nlines - 1];
    l->samples += samples[keys[k].def];
    l->weight += weight[keys[k].def];
  }
  /* address order within each function */
  order = lgp_alloc_array(sp->nlines ? sp->nlines : 1, sizeof *order);
  sorted = lgp_alloc_array(sp->nlines ? sp->nlines : 1, sizeof *sorted);
  if (order == NULL || sorted == NULL)
    goto out;
  for (k = 0; k < sp->nlines; k++)
    order[k] = (uint32_t)k;
  if (lgp_sort_indices(order, sp->nlines, cmp_line, sp) != 0)
    goto out;
  for (k = 0; k < sp->nlines; k++)
    sorted[k] = sp->lines[order[k]];
  free(sp->lines);
  sp->lines = sorted;
  sorted = NULL;
  rc = 0;
out:
  free(samples);
  free(weight);
  free(leaf);
  free(keys);
  free(order);
  free(sorted);
  return rc;
}

/* Nodes for the functions, and at line granularity for the lines after
** each (node_of, func_of, lines' node set), and the image the symspecs and
** source lookups read (a symbol per node, the table's files). */
static int build_nodes(lgp_stackprof *sp, int with_lines, lgp_image *im, lgp_node **out,
                       size_t *nout) {
  const lgp_stacktab *t = &sp->tab;
  size_t nf = t->nfuncs, n = nf + (with_lines ? sp->nlines : 0), i, k = 0, fi, node = 0;
  uint32_t *by_node = lgp_alloc_array(nf ? nf : 1, sizeof *by_node);
  lgp_addr *inline_at = lgp_calloc_array(nf ? nf : 1, sizeof *inline_at);
  lgp_node *nodes = lgp_calloc_array(n ? n : 1, sizeof *nodes);
  int rc = -1;
  sp->func_of = lgp_alloc_array(n ? n : 1, sizeof *sp->func_of);
  im->syms = lgp_calloc_array(n ? n : 1, sizeof *im->syms);
  im->shown_addr = lgp_alloc_array(n ? n : 1, sizeof *im->shown_addr);
  im->files = lgp_calloc_array(t->nfiles ? t->nfiles : 1, sizeof *im->files);
  if (by_node == NULL || inline_at == NULL || nodes == NULL || sp->func_of == NULL || im->syms == NULL ||
      im->shown_addr == NULL || im->files == NULL)
    goto out;
  for (i = 0; i < t->nfiles; i++) {
    size_t len = strlen(t->files[i]) + 1;
    if ((im->files[i] = malloc(len)) == NULL)
      goto out;
    memcpy(im->files[i], t->files[i], len);
    im->nfiles = i + 1;
  }
  for (i = 0; i < nf; i++)
    by_node[sp->node_of[i]] = (uint32_t)i;
  /* an inlined function has no address of its own (start 0): it shows
     the lowest of its frames' */
  for (i = 0; i < t->nframe_defs; i++) {
    const lgp_st_frame *fr = &t->frame_defs[i];
    lgp_addr *a = &inline_at[fr->func];
    if (t->funcs[fr->func].is_inline && t->funcs[fr->func].start == 0)
      *a = *a == 0 || fr->addr < *a ? fr->addr : *a;
  }
  for (fi = 0; fi < nf; fi++) {
    uint32_t func = by_node[fi];
    const lgp_st_func *f = &t->funcs[func];
    size_t fnode = node;
    lgp_rawsym *rs = &im->syms[node];
    /* node addresses are positions, 16 apart: the binaries' addresses
       overlap, and the symspecs' ranges need distinct ones (the Lua API
       and the line suffixes give the real ones) */
    rs->addr = (lgp_addr)node * 16;
    rs->name = f->name;
    rs->symndx = (uint32_t)node;
    rs->is_func = 1;
    rs->file = f->file == LGP_ST_NOFILE ? -1 : (int32_t)f->file;
    rs->line = (int32_t)f->line;
    im->shown_addr[node] = f->is_inline && f->start == 0 ? inline_at[func] : f->start;
    sp->node_of[func] = (uint32_t)node;
    sp->func_of[node++] = func;
    /* its lines (k: the first line of this function) */
    for (; with_lines && k < sp->nlines && sp->lines[k].func == func; k++) {
      lgp_rawsym *ls = &im->syms[node];
      ls->addr = (lgp_addr)node * 16;
      ls->name = f->name;
      ls->symndx = (uint32_t)node;
      ls->is_line = 1;
      ls->file = (int32_t)sp->lines[k].file;
      ls->line = (int32_t)sp->lines[k].line;
      im->shown_addr[node] = sp->lines[k].addr;
      sp->lines[k].node = (uint32_t)node;
      lgp_symtab_node_init(&nodes[node], (uint32_t)node, ls, ls->addr + 15);
      sp->func_of[node++] = func;
    }
    /* the function's range covers its lines: -p NAME takes them too */
    lgp_symtab_node_init(&nodes[fnode], (uint32_t)fnode, rs, (lgp_addr)node * 16 - 1);
  }
  im->nsyms = n;
  im->addr_bytes = 8;
  im->srcinfo_state = 1;  /* the table's files and lines are the source info */
  im->lines_state = -1;
  *out = nodes;
  *nout = n;
  nodes = NULL;
  rc = 0;
out:
  free(by_node);
  free(inline_at);
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
  double *flat = lgp_alloc_array(total ? total : 1, sizeof *flat);
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
  if (tot == NULL || self == NULL || flat == NULL || seen == NULL || node == NULL || head == NULL ||
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
  /* line nodes (line granularity): their samples, taken from their
     function's flat self (its entry keeps them: flat[] is the flat self) */
  memcpy(flat, self, total * sizeof *flat);
  for (k = 0; k < sp->nlines; k++) {
    const lgp_st_line *l = &sp->lines[k];
    uint32_t f = sp->node_of[l->func];
    if (l->node == LGP_NONE)
      continue;
    flat[l->node] = self[l->node] = tot[l->node] = (double)l->weight;
    sp->self_samples[l->node] = sp->total_samples[l->node] = l->samples;
    flat[f] -= (double)l->weight;
  }
  g->print_time = g->total_time = 0;
  for (i = 0; i < total; i++) {
    lgp_node *n = &g->nodes[i];
    n->hist_time = flat[i];
    n->prop_self = self[i];
    n->prop_child = tot[i] - self[i];
    n->prop_fract = 1.0;
    if (!sp->has_calls)
      n->ncalls = n->self_calls = n->member_calls = 0;
    else /* the flat profile's total per call */
      n->child_time = tot[i] - self[i];
    if (i < g->nsyms) {
      g->print_time += flat[i];
      if (lgp_specs_in_table(specs, n, LGP_INCL_FLAT, LGP_EXCL_FLAT))
        g->total_time += flat[i];
    }
  }
  rc = 0;
out:
  free(tot);
  free(self);
  free(flat);
  free(seen);
  free(node);
  free(head);
  return rc;
}

/* {====================================================== combined with gmon.out */

/* calls' symbol node starting exactly at addr, or LGP_NONE. */
static uint32_t gmon_node_at(const lgp_profile *g, uint64_t addr) {
  uint32_t id = lgp_symindex_lookup(g->index, (lgp_addr)addr);
  return id != LGP_NONE && id < g->graph.nsyms && g->graph.nodes[id].addr == (lgp_addr)addr
         ? id : LGP_NONE;
}

/* A function a symbol of gmon's executable can be: not an inlined
** function's frame nor an address no symbol covers. */
static int matchable(const lgp_st_func *f) {
  return !f->is_inline && !f->is_unknown && !f->is_anonymous;
}

/* The last path component. */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

static char *copy_str(const char *s) {
  size_t len = strlen(s) + 1;
  char *d = malloc(len);
  if (d != NULL)
    memcpy(d, s, len);
  return d;
}

/* The executable's binary: the one with most functions at gmon symbols'
** addresses (PIE or not, both are the ELF's addresses), else one named as
** the image, else UINT32_MAX. */
static uint32_t pick_exe_dso(const lgp_stacktab *t, const lgp_profile *g, uint32_t *hits) {
  uint32_t best = UINT32_MAX;
  size_t i;
  for (i = 0; i < t->nfuncs; i++)
    if (matchable(&t->funcs[i]) && gmon_node_at(g, t->funcs[i].start) != LGP_NONE)
      hits[t->funcs[i].dso]++;
  for (i = 0; i < t->ndsos; i++)
    if (hits[i] > 0 && !t->dsos[i].is_kernel && (best == UINT32_MAX || hits[i] > hits[best]))
      best = (uint32_t)i;
  if (best == UINT32_MAX && g->image->path != NULL)
    for (i = 0; i < t->ndsos && best == UINT32_MAX; i++)
      if (!t->dsos[i].is_kernel && t->dsos[i].path != NULL &&
          strcmp(base_name(t->dsos[i].path), base_name(g->image->path)) == 0)
        best = (uint32_t)i;
  return best;
}

/* Appends a function (and the binary, when there is none yet) for gmon
** node id, which no stack shows. 0, or -1 (out of memory). */
static int add_gmon_func(lgp_stackprof *sp, const lgp_profile *g, uint32_t id, size_t *fcap) {
  lgp_stacktab *t = &sp->tab;
  const lgp_node *n = &g->graph.nodes[id];
  lgp_st_func *f;
  if (sp->exe_dso == UINT32_MAX) {
    lgp_st_dso *d = realloc(t->dsos, (t->ndsos + 1) * sizeof *d);
    if (d == NULL)
      return -1;
    t->dsos = d;
    d = &t->dsos[t->ndsos];
    memset(d, 0, sizeof *d);
    if ((d->path = copy_str(g->image->path != NULL ? g->image->path : "")) == NULL)
      return -1;
    d->status = LGP_DSO_OK;
    sp->exe_dso = (uint32_t)t->ndsos++;
    sp->exe_added = 1;
  }
  if (lgp_grow((void **)&t->funcs, fcap, t->nfuncs + 1, sizeof *t->funcs) != 0)
    return -1;
  f = &t->funcs[t->nfuncs];
  memset(f, 0, sizeof *f);
  if ((f->name = copy_str(n->name != NULL ? n->name : "")) == NULL)
    return -1;
  f->dso = sp->exe_dso;
  f->start = n->addr;
  f->end = n->end_addr >= n->addr ? n->end_addr + 1 : n->addr; /* (gmon's end is its last byte) */
  f->file = LGP_ST_NOFILE;
  t->nfuncs++;
  return 0;
}

/* Matches the stacks' functions to gmon's symbols: map[gmon node] = the
** table's function or UINT32_MAX; from_gmon[function]: matched or added
** (then its calls are gmon's). Adds the functions only gmon knows and
** sets the doctor's counters. 0, or -1 (out of memory). */
static int match_calls(lgp_stackprof *sp, const lgp_profile *g, uint32_t *map,
                       uint8_t **from_gmon) {
  lgp_stacktab *t = &sp->tab;
  size_t ng = g->graph.nsyms, nf0 = t->nfuncs, fcap = t->nfuncs, i, k;
  uint32_t *hits = lgp_calloc_array(t->ndsos ? t->ndsos : 1, sizeof *hits);
  uint8_t *on_stack = lgp_calloc_array(nf0 ? nf0 : 1, 1);
  uint8_t *wanted = lgp_calloc_array(ng ? ng : 1, 1);
  uint8_t *matched = lgp_calloc_array(nf0 ? nf0 : 1, 1);
  double most = 0;
  int rc = -1;
  *from_gmon = NULL;
  if (hits == NULL || on_stack == NULL || wanted == NULL || matched == NULL)
    goto out;
  if ((sp->gmon_image = copy_str(g->image->path != NULL ? g->image->path : "")) == NULL)
    goto out;
  sp->exe_dso = pick_exe_dso(t, g, hits);
  for (i = 0; i < ng; i++)
    map[i] = UINT32_MAX;
  if (sp->exe_dso != UINT32_MAX)
    for (i = 0; i < nf0; i++) {
      uint32_t id;
      if (t->funcs[i].dso != sp->exe_dso || !matchable(&t->funcs[i]))
        continue;
      id = gmon_node_at(g, t->funcs[i].start);
      if (id == LGP_NONE) {
        sp->exe_unmatched++;
        continue;
      }
      sp->exe_matched++;
      matched[i] = 1;
      if (map[id] == UINT32_MAX)
        map[id] = (uint32_t)i;
    }
  for (i = 0; i < t->nstacks; i++) {
    const lgp_st_stack *st = &t->stacks[i];
    uint32_t leaf = t->frame_defs[t->frames[st->first]].func, d;
    if (t->funcs[leaf].dso == sp->exe_dso && matchable(&t->funcs[leaf]) && !matched[leaf])
      sp->exe_unmatched_samples += st->samples;
    for (d = 0; d < st->depth; d++)
      on_stack[t->frame_defs[t->frames[st->first + d]].func] = 1;
  }
  /* gmon's histogram, and what of it no stack shows */
  sp->gmon_hz = g->gmon->hz;
  for (i = 0; i < ng; i++) {
    double ticks = g->graph.nodes[i].hist_time;
    sp->gmon_ticks += ticks;
    if (ticks > 0 && (map[i] == UINT32_MAX || !on_stack[map[i]])) {
      sp->gmon_unseen_ticks += ticks;
      if (ticks > most && g->graph.nodes[i].name != NULL) {
        most = ticks;
        free(sp->gmon_unseen_name);
        if ((sp->gmon_unseen_name = copy_str(g->graph.nodes[i].name)) == NULL)
          goto out;
      }
    }
  }
  /* the functions gmon's arcs name that no stack shows */
  for (k = 0; k < g->graph.arcs.narcs; k++) {
    const lgp_arc *a = &g->graph.arcs.arcs[k];
    if (!a->is_static && a->parent < ng && a->child < ng)
      wanted[a->parent] = wanted[a->child] = 1;
  }
  for (i = 0; i < ng; i++)
    if (wanted[i] && map[i] == UINT32_MAX) {
      if (add_gmon_func(sp, g, (uint32_t)i, &fcap) != 0)
        goto out;
      map[i] = (uint32_t)(t->nfuncs - 1);
      sp->gmon_added++;
    }
  if ((*from_gmon = lgp_calloc_array(t->nfuncs ? t->nfuncs : 1, 1)) == NULL)
    goto out;
  for (i = 0; i < ng; i++)
    if (map[i] != UINT32_MAX)
      (*from_gmon)[map[i]] = 1;
  rc = 0;
out:
  free(hits);
  free(on_stack);
  free(wanted);
  free(matched);
  return rc;
}

/* gmon's counts on the arcs: the stacks' arcs start at 0 (gmon saw no such
** call), gmon's arcs are added (those no stack shows carry no time). */
static int add_calls(const lgp_stackprof *sp, const lgp_profile *g, const uint32_t *map,
                     lgp_arctab *arcs, lgp_err *err) {
  size_t k;
  for (k = 0; k < arcs->narcs; k++)
    arcs->arcs[k].count = 0;
  for (k = 0; k < g->graph.arcs.narcs; k++) {
    const lgp_arc *a = &g->graph.arcs.arcs[k];
    int rc;
    if (a->is_static || a->parent >= g->graph.nsyms || a->child >= g->graph.nsyms ||
        map[a->parent] == UINT32_MAX || map[a->child] == UINT32_MAX)
      continue;
    rc = lgp_arctab_add(arcs, sp->node_of[map[a->parent]], sp->node_of[map[a->child]], a->count);
    if (rc == LGP_ARCS_FULL)
      return lgp_fail(err, NULL, "too many arcs");
    if (rc != 0)
      return lgp_fail(err, NULL, "out of memory");
  }
  return 0;
}

/* counted[]: the nodes whose calls are gmon's (a cycle: one of its members'). */
static int mark_counted(lgp_stackprof *sp, const lgp_graph *g, const uint8_t *from_gmon) {
  size_t total = g->nsyms + g->ncycles, i;
  sp->counted = lgp_calloc_array(total ? total : 1, 1);
  if (sp->counted == NULL)
    return -1;
  for (i = 0; i < g->nsyms; i++)
    if (from_gmon[sp->func_of[i]]) {
      sp->counted[i] = 1;
      sp->counted[g->cyc_of[i]] = 1;
    }
  return 0;
}

/* }====================================================== */

/* The recorded program: the process with the most samples (the lowest pid
** of equals) is the recorded command, and its executable is the image the
** exports and pages name (not the binary most samples end in: a program
** that spends its time in libz is not libz). */
static int by_pid(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_stacktab *t = ctx;
  uint32_t pa = t->threads[a].pid, pb = t->threads[b].pid;
  return pa < pb ? -1 : pa > pb;
}

/* Is path the file a process named comm runs? The kernel names a process
** after the file it executed, cut to 15 bytes. */
static int names_comm(const char *path, const char *comm) {
  const char *base = base_name(path);
  size_t n = strlen(comm);
  return n > 0 && strncmp(base, comm, n) == 0 && (base[n] == '\0' || n == 15);
}

/* Does path look like a shared library ("libz.so.1.2.13", "ld-linux.so.2")? */
static int is_library(const char *path) {
  return strstr(base_name(path), ".so") != NULL;
}

/* Sets the image's path to the recorded program's executable and
** sp->command to its command name ("" and NULL without samples): the
** binary of the top process's stacks named as its command, else the one
** not a library that most of its samples end in, else the binary most
** samples end in. */
static int set_program(lgp_image *im, lgp_stackprof *sp) {
  const lgp_stacktab *t = &sp->tab;
  size_t nd = t->ndsos ? t->ndsos : 1, nt = t->nthreads ? t->nthreads : 1;
  uint64_t *thread_samples = lgp_calloc_array(nt, sizeof *thread_samples);
  uint64_t *leaf = lgp_calloc_array(nd, sizeof *leaf);     /* of every process */
  uint64_t *in_top = lgp_calloc_array(nd, sizeof *in_top); /* leaves of the top process */
  uint64_t *frames = lgp_calloc_array(nd, sizeof *frames); /* its frames */
  uint32_t *order = lgp_alloc_array(nt, sizeof *order);
  const char *path = "", *comm = NULL;
  uint32_t top = UINT32_MAX;
  uint64_t best_samples = 0;
  size_t i, j, best;
  int rc = -1;
  if (thread_samples == NULL || leaf == NULL || in_top == NULL || frames == NULL || order == NULL)
    goto done;
  for (i = 0; i < t->nstacks; i++) {
    thread_samples[t->stacks[i].thread] += t->stacks[i].samples;
    leaf[t->funcs[t->frame_defs[t->frames[t->stacks[i].first]].func].dso] += t->stacks[i].samples;
  }
  /* the processes: the threads in pid order, each run of one pid summed */
  for (i = 0; i < t->nthreads; i++)
    order[i] = (uint32_t)i;
  if (lgp_sort_indices(order, t->nthreads, by_pid, t) != 0)
    goto done;
  for (i = 0; i < t->nthreads; i = j) {
    uint64_t n = 0;
    for (j = i; j < t->nthreads && t->threads[order[j]].pid == t->threads[order[i]].pid; j++)
      n += thread_samples[order[j]];
    if (n > best_samples) {
      best_samples = n;
      top = t->threads[order[i]].pid;
    }
  }
  if (top != UINT32_MAX) {
    /* its name: its main thread's, else its first thread's in the table */
    for (i = 0; i < t->nthreads; i++)
      if (t->threads[i].pid == top && t->threads[i].comm != NULL &&
          (comm == NULL || t->threads[i].tid == top))
        comm = t->threads[i].comm;
    for (i = 0; i < t->nstacks; i++) {
      const lgp_st_stack *s = &t->stacks[i];
      if (t->threads[s->thread].pid != top)
        continue;
      in_top[t->funcs[t->frame_defs[t->frames[s->first]].func].dso] += s->samples;
      for (j = 0; j < s->depth; j++)
        frames[t->funcs[t->frame_defs[t->frames[s->first + j]].func].dso] += s->samples;
    }
    best = SIZE_MAX;
    for (i = 0; i < t->ndsos; i++) /* named as the command */
      if (frames[i] > 0 && !t->dsos[i].is_kernel && t->dsos[i].path != NULL && comm != NULL &&
          names_comm(t->dsos[i].path, comm) && (best == SIZE_MAX || frames[i] > frames[best]))
        best = i;
    if (best == SIZE_MAX) /* else the binary not a library most of its samples end in */
      for (i = 0; i < t->ndsos; i++)
        if (in_top[i] > 0 && !t->dsos[i].is_kernel && t->dsos[i].path != NULL &&
            t->dsos[i].path[0] == '/' && !is_library(t->dsos[i].path) &&
            (best == SIZE_MAX || in_top[i] > in_top[best]))
          best = i;
    if (best == SIZE_MAX) { /* else the binary most samples end in */
      best = 0;
      for (i = 1; i < t->ndsos; i++)
        if (leaf[i] > leaf[best])
          best = i;
      if (t->ndsos == 0 || leaf[best] == 0)
        best = SIZE_MAX;
    }
    if (best != SIZE_MAX && t->dsos[best].path != NULL)
      path = t->dsos[best].path;
  }
  if ((im->path = copy_str(path)) == NULL)
    goto done;
  if (comm != NULL && (sp->command = copy_str(comm)) == NULL)
    goto done;
  rc = 0;
done:
  free(thread_samples);
  free(leaf);
  free(in_top);
  free(frames);
  free(order);
  return rc;
}

/* lgp_profile_from_stacks, with gmon's calls when calls is not NULL. */
static int from_stacks(lgp_profile *p, lgp_stacktab *tab, const lgp_profile *calls,
                       const lgp_options *opts, lgp_err *err) {
  lgp_sources *src;
  lgp_stackprof *sp;
  lgp_node *nodes = NULL;
  uint32_t *arc_at = NULL, *gmon_map = NULL;
  uint8_t *from_gmon = NULL;
  size_t i, nnodes = 0;
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
  sp->exe_dso = UINT32_MAX;
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
  if (!sp->is_time && sp->tab.nevents > 0) {
    /* the weights are counts of the event, not seconds: the reports' unit
       is the event's name (one event) or "events" */
    const char *unit = sp->tab.nevents == 1 && sp->tab.events[0].name != NULL ? sp->tab.events[0].name
                                                                            : "events";
    snprintf(src->gmon.dimen, sizeof src->gmon.dimen, "%s", unit);
    src->gmon.abbrev = 'e';
  }
  src->gmon.have_hist = src->gmon.have_cg = 1; /* self times and arcs, as the reports need */
  p->line_granularity = opts->line_granularity;
  if (calls != NULL) {
    sp->has_calls = 1;
    gmon_map = lgp_alloc_array(calls->graph.nsyms ? calls->graph.nsyms : 1, sizeof *gmon_map);
    if (gmon_map == NULL || match_calls(sp, calls, gmon_map, &from_gmon) != 0) {
      lgp_fail(err, NULL, "out of memory");
      goto fail;
    }
  }
  if (order_functions(sp) != 0 || find_lines(sp) != 0 ||
      build_nodes(sp, p->line_granularity, &src->image, &nodes, &nnodes) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  lgp_graph_init(&p->graph, nodes, nnodes);
  if (set_program(&src->image, sp) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_symindex_build(&src->index, nodes, nnodes) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_specs_apply(&src->specs, nodes, nnodes, &src->image, opts, err) != 0)
    goto fail;
  arc_at = lgp_alloc_array(sp->tab.nframes ? sp->tab.nframes : 1, sizeof *arc_at);
  if (arc_at == NULL) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (add_arcs(sp, &p->graph.arcs, arc_at, err) != 0)
    goto fail;
  if (calls != NULL && add_calls(sp, calls, gmon_map, &p->graph.arcs, err) != 0)
    goto fail;
  /* calls, cycles, adjacency and print flags are gprof's; the times then measured */
  if (lgp_graph_analyse(&p->graph, &src->specs, LGP_GRAPH_TIME, err) != 0)
    goto fail;
  if (calls != NULL && mark_counted(sp, &p->graph, from_gmon) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (measure(sp, &p->graph, arc_at, &src->specs) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_graph_analyse(&p->graph, &src->specs, LGP_GRAPH_ALL, err) != 0)
    goto fail;
  free(arc_at);
  free(gmon_map);
  free(from_gmon);
  p->base_time = p->graph.total_time;
  p->base_print_time = p->graph.print_time;
  return 0;
fail:
  free(arc_at);
  free(gmon_map);
  free(from_gmon);
  lgp_profile_free(p);
  return -1;
}

int lgp_profile_from_stacks(lgp_profile *p, lgp_stacktab *tab, const lgp_options *opts,
                            lgp_err *err) {
  return from_stacks(p, tab, NULL, opts, err);
}

int lgp_profile_from_stacks_calls(lgp_profile *p, lgp_stacktab *tab, const lgp_profile *calls,
                                  const lgp_options *opts, lgp_err *err) {
  return from_stacks(p, tab, calls, opts, err);
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
  dst->unwind_errors = dup_elems(src->unwind_errors, src->nunwind_errors, sizeof *src->unwind_errors);
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
      dst->dsos[i].names = NULL;
      if (src->dsos[i].nnames > 0
          && !(dst->dsos[i].names = dup_elems(src->dsos[i].names, src->dsos[i].nnames,
                                              sizeof *src->dsos[i].names))) {
        dst->dsos[i].nnames = 0;
        dst->dsos[i].names_read = 0;
        bad = 1;
      }
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
  if (dst->unwind_errors != NULL)
    for (i = 0; i < src->nunwind_errors; i++)
      dst->unwind_errors[i].what = dup_str(src->unwind_errors[i].what, &bad);
  else
    dst->nunwind_errors = 0;
  dst->recording = dup_str(src->recording, &bad);
  dst->nstacks = dst->nframes = 0;
  /* the kept stacks' sample times, renumbered below (not shared: each
     table frees its own) */
  dst->times = NULL;
  dst->ntimes = 0;
  if (src->times != NULL) {
    size_t nt = 0;
    for (i = 0; i < src->ntimes; i++)
      nt += keep[src->times[i].stack] != 0;
    if (!(dst->times = lgp_alloc_array(nt ? nt : 1, sizeof *dst->times)))
      bad = 1;
  }
  if (dst->dsos == NULL || dst->funcs == NULL || dst->threads == NULL || dst->events == NULL ||
      dst->files == NULL || dst->unwind_errors == NULL)
    bad = 1;
  if (dst->frame_defs == NULL || dst->stacks == NULL || dst->frames == NULL || bad
      || (src->times != NULL && dst->times == NULL)) {
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
  if (src->times != NULL) {
    /* a kept stack's new number: the kept stacks before it */
    uint32_t *renum = lgp_alloc_array(src->nstacks ? src->nstacks : 1, sizeof *renum);
    uint32_t k = 0;
    if (renum == NULL) {
      lgp_stacktab_free(dst);
      return -1;
    }
    for (i = 0; i < src->nstacks; i++)
      renum[i] = keep[i] ? k++ : UINT32_MAX;
    for (i = 0; i < src->ntimes; i++)
      if (src->times[i].stack < src->nstacks && keep[src->times[i].stack]) {
        dst->times[dst->ntimes] = src->times[i];
        dst->times[dst->ntimes++].stack = renum[src->times[i].stack];
      }
    free(renum);
  }
  return 0;
}

void lgp_stackprof_free(lgp_stackprof *sp) {
  lgp_stacktab_free(&sp->tab);
  free(sp->node_of);
  free(sp->func_of);
  free(sp->self_samples);
  free(sp->total_samples);
  free(sp->lines);
  free(sp->counted);
  free(sp->gmon_unseen_name);
  free(sp->gmon_image);
  free(sp->command);
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
  uint32_t *merged_of = NULL, *entry_at = NULL;
  double *sec = NULL, total = 0, least;
  size_t cap = 0, mcap = 0, scap = 0, i, d;
  memset(m, 0, sizeof *m);
  /* entry_at[s.first + d]: the entry of stack s's path to depth d (from
     the root), found once */
  if (!(sec = lgp_alloc_array(t->nstacks ? t->nstacks : 1, sizeof *sec))
      || !(entry_at = lgp_alloc_array(t->nframes ? t->nframes : 1, sizeof *entry_at)))
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
      entry_at[s->first + d] = e;
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
      kid = entry_at[s->first + d];
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
  free(entry_at);
  lgp_hashtab_free(&ht);
  return 0;
oom:
  free(sec);
  free(merged_of);
  free(entry_at);
  lgp_hashtab_free(&ht);
  lgp_measured_free(m);
  return -1;
}
