/*
** lines.c: line-level data for the Lua API and the exports, built on use
** from the image's line symbols and the histogram already read, so that a
** function-granularity profile never pays for it until asked.
*/
#include <stdlib.h>
#include <string.h>

#include "model/hist.h"
#include "model/lines.h"
#include "model/stackprofile.h"

/* A function-granularity profile's lines: the table gprof -l builds (the
** symbol table's own line-granularity step, over this profile's function
** symbols), each entry tied to its function node (a function symbol stands
** for its first line) and to the image's line symbol at its address. */
static int table_from_functions(lgp_lines *ls, const lgp_profile *p, const lgp_image *im) {
  const lgp_node *nodes = p->graph.nodes;
  size_t ns = p->graph.nsyms, n, j, i = 0, k = 0;
  lgp_rawsym *raw;
  lgp_addr *ends;
  if (lgp_symtab_lines(im, im->syms, ns, &raw, &ends, &n) != 0)
    return -1;
  ls->v = lgp_alloc_array(n + 1, sizeof *ls->v);
  if (ls->v == NULL) {
    free(raw);
    free(ends);
    return -1;
  }
  for (j = 0; j < n; j++) {
    lgp_line *l = &ls->v[j];
    memset(l, 0, sizeof *l);
    l->addr = raw[j].addr;
    l->func = LGP_NONE;
    l->node = LGP_NONE;
    l->linesym = -1;
    while (k < im->nlines && im->lines[k].addr < l->addr)
      k++;
    if (k < im->nlines && im->lines[k].addr == l->addr)
      l->linesym = (int32_t)k;
    if (!raw[j].is_line) {
      while (i < ns && nodes[i].addr < l->addr)
        i++;
      if (i < ns && nodes[i].addr == l->addr) {
        l->node = (uint32_t)i;
        l->is_first = 1;
      }
    }
  }
  ls->n = n;
  free(raw);
  free(ends);
  return 0;
}

/* A line-granular profile's table is its own symbol table. */
static size_t copy_symbols(lgp_line *v, const lgp_node *nodes, size_t ns,
                           const lgp_linesym *lines, size_t nl) {
  size_t i, k = 0;
  for (i = 0; i < ns; i++) {
    lgp_line *l = &v[i];
    memset(l, 0, sizeof *l);
    l->addr = nodes[i].addr;
    l->node = (uint32_t)i;
    l->is_first = !nodes[i].is_line;
    l->func = LGP_NONE;
    l->ticks = nodes[i].hist_time;
    while (k < nl && lines[k].addr < l->addr)
      k++;
    l->linesym = k < nl && lines[k].addr == l->addr ? (int32_t)k : -1;
  }
  return ns;
}

/* Each line's function: the last function symbol at or below it (the
** address index's rule: a routine runs up to the next one), none before
** the first or past the last one's end. */
static void assign_functions(lgp_lines *ls, const lgp_node *nodes, size_t ns) {
  uint32_t cur = LGP_NONE;
  size_t j, last = ns;
  while (last > 0 && nodes[last - 1].is_line)
    last--;
  for (j = 0; j < ls->n; j++) {
    lgp_line *l = &ls->v[j];
    if (l->is_first)
      cur = l->node;
    if (cur != LGP_NONE && ((size_t)cur + 1 != last || l->addr <= nodes[cur].end_addr))
      l->func = cur;
    if (l->func != LGP_NONE && ls->first[l->func] == LGP_NONE)
      ls->first[l->func] = (uint32_t)j;
  }
}

/* gprof's histogram credit over the line table (hist.c's, on a scratch
** table carrying each line's function's symspec bits). */
static int assign_samples(lgp_lines *ls, const lgp_profile *p) {
  lgp_node *tmp = lgp_calloc_array(ls->n, sizeof *tmp);
  size_t j;
  if (tmp == NULL && ls->n > 0)
    return -1;
  for (j = 0; j < ls->n; j++) {
    tmp[j].addr = ls->v[j].addr;
    if (ls->v[j].func != LGP_NONE)
      tmp[j].spec = p->graph.nodes[ls->v[j].func].spec;
  }
  ls->total = lgp_hist_assign(p->gmon, tmp, ls->n, p->specs);
  for (j = 0; j < ls->n; j++)
    ls->v[j].ticks = tmp[j].hist_time;
  free(tmp);
  return 0;
}

/* The line holding addr: the last one at or below it, or LGP_NONE. */
static uint32_t line_at(const lgp_lines *ls, lgp_addr addr) {
  size_t lo = lgp_addr_count_le(ls->v, ls->n, sizeof *ls->v, offsetof(lgp_line, addr), addr);
  return lo == 0 ? LGP_NONE : (uint32_t)(lo - 1);
}

/* Basic-block counts: each line keeps its lowest block (counts of one
** address summed over records and files). */
static int assign_blocks(lgp_lines *ls, const lgp_gmon *g) {
  lgp_addr *at = lgp_alloc_array(ls->n, sizeof *at);
  size_t b;
  if (at == NULL && ls->n > 0)
    return -1;
  for (b = 0; b < g->nbb; b++) {
    uint32_t j = line_at(ls, g->bb[b].addr);
    lgp_line *l;
    if (j == LGP_NONE || ls->v[j].func == LGP_NONE)
      continue; /* outside every symbol: gprof drops it */
    l = &ls->v[j];
    if (!l->has_bb || g->bb[b].addr < at[j]) {
      l->has_bb = 1;
      at[j] = g->bb[b].addr;
      l->bb_count = g->bb[b].count;
    } else if (g->bb[b].addr == at[j]) {
      l->bb_count += g->bb[b].count;
    }
  }
  free(at);
  return 0;
}

typedef struct by_line_ctx {
  const lgp_profile *p;
  const lgp_lines *ls;
} by_line_ctx;

static int cmp_by_line(const void *ctx, uint32_t a, uint32_t b) {
  const by_line_ctx *c = ctx;
  unsigned la = (unsigned)lgp_line_number(c->p, &c->ls->v[a]) - 1u; /* unknown (0) last */
  unsigned lb = (unsigned)lgp_line_number(c->p, &c->ls->v[b]) - 1u;
  if (la != lb)
    return la < lb ? -1 : 1;
  return a < b ? -1 : a > b;
}

/* A profile of sampled stacks: its lines (lines.h); ls->first allocated. */
static int table_from_stacks(lgp_lines *ls, const lgp_profile *p, const lgp_stackprof *sp) {
  const lgp_node *nodes = p->graph.nodes;
  size_t ns = p->graph.nsyms, i, k = 0, n = 0;
  ls->v = lgp_alloc_array(ns + sp->nlines + 1, sizeof *ls->v);
  if (ls->v == NULL)
    return -1;
  for (i = 0; i < ns; i++) {
    uint32_t func = sp->func_of[i];
    uint64_t samples = sp->self_samples[i];
    double weight = nodes[i].prop_self;
    size_t k0 = k;
    lgp_line *l;
    if (nodes[i].is_line)
      continue;
    for (; k < sp->nlines && sp->lines[k].func == func; k++) {
      samples -= sp->lines[k].samples;
      weight -= (double)sp->lines[k].weight;
    }
    ls->first[i] = (uint32_t)n;
    if (samples > 0 || k == k0) { /* what no line holds */
      l = &ls->v[n++];
      memset(l, 0, sizeof *l);
      l->addr = p->image->shown_addr != NULL ? p->image->shown_addr[i] : nodes[i].addr;
      l->func = (uint32_t)i;
      l->node = p->line_granularity ? (uint32_t)i : LGP_NONE;
      l->linesym = -1;
      l->ticks = weight;
      l->samples = samples;
    }
    for (; k0 < k; k0++) {
      const lgp_st_line *sl = &sp->lines[k0];
      l = &ls->v[n++];
      memset(l, 0, sizeof *l);
      l->addr = sl->addr;
      l->func = (uint32_t)i;
      l->node = sl->node;
      l->linesym = (int32_t)k0;
      l->ticks = (double)sl->weight;
      l->samples = sl->samples;
    }
  }
  ls->n = n;
  ls->total = p->graph.total_time;
  return 0;
}

int lgp_lines_build(lgp_lines *ls, const lgp_profile *p, lgp_sources *src, lgp_err *err) {
  const lgp_image *im = p->image; /* src's: read below through src */
  const lgp_node *nodes = p->graph.nodes;
  size_t ns = p->graph.nsyms, j;
  lgp_err ignored = {0, ""};
  int granular = 0;
  memset(ls, 0, sizeof *ls);
  /* without DWARF there are no line symbols: one line per function */
  lgp_sources_load_lines(src, &ignored);
  for (j = 0; j < ns && !granular; j++)
    granular = nodes[j].is_line;
  ls->first = lgp_alloc_array(ns + 1, sizeof *ls->first);
  if (ls->first == NULL)
    goto oom;
  for (j = 0; j < ns; j++)
    ls->first[j] = LGP_NONE;
  if (lgp_stacks_of(p) != NULL) {
    if (table_from_stacks(ls, p, lgp_stacks_of(p)) != 0)
      goto oom;
    return 0;
  }
  if (granular) {
    ls->v = lgp_alloc_array(ns + 1, sizeof *ls->v);
    if (ls->v == NULL)
      goto oom;
    ls->n = copy_symbols(ls->v, nodes, ns, im->lines, im->nlines);
  } else if (table_from_functions(ls, p, im) != 0) {
    goto oom;
  }
  assign_functions(ls, nodes, ns);
  if (granular)
    ls->total = p->graph.total_time;
  else if (assign_samples(ls, p) != 0)
    goto oom;
  if (assign_blocks(ls, p->gmon) != 0)
    goto oom;
  return 0;
oom:
  lgp_lines_free(ls);
  return lgp_fail(err, NULL, "out of memory");
}

int lgp_lines_index(lgp_lines *ls, const lgp_profile *p) {
  by_line_ctx ctx;
  size_t j;
  if (ls->by_line != NULL)
    return 0;
  ls->by_line = lgp_alloc_array(ls->n + 1, sizeof *ls->by_line);
  if (ls->by_line == NULL)
    return -1;
  for (j = 0; j < ls->n; j++)
    ls->by_line[j] = (uint32_t)j;
  ctx.p = p;
  ctx.ls = ls;
  if (lgp_sort_indices(ls->by_line, ls->n, cmp_by_line, &ctx) != 0) {
    free(ls->by_line);
    ls->by_line = NULL;
    return -1;
  }
  return 0;
}

void lgp_lines_free(lgp_lines *ls) {
  free(ls->v);
  free(ls->first);
  free(ls->by_line);
  memset(ls, 0, sizeof *ls);
}

/* A line symbol's own file and line; a function symbol's are the
** function's (its first row), as gprof prints them. */
int32_t lgp_line_file_index(const lgp_profile *p, const lgp_line *l) {
  const lgp_image *im = p->image;
  if (lgp_stacks_of(p) != NULL)
    return l->linesym >= 0 ? (int32_t)lgp_stacks_of(p)->lines[l->linesym].file : -1;
  if (l->node != LGP_NONE && l->is_first && lgp_node_line(p, l->node) > 0)
    return lgp_node_file(p, l->node) != NULL ? im->syms[l->node].file : -1;
  if (l->linesym >= 0 && (size_t)l->linesym < im->nlines)
    return im->lines[l->linesym].file;
  return l->node != LGP_NONE && lgp_node_file(p, l->node) != NULL ? im->syms[l->node].file : -1;
}

const char *lgp_line_file(const lgp_profile *p, const lgp_line *l) {
  int32_t f = lgp_line_file_index(p, l);
  return f >= 0 && (size_t)f < p->image->nfiles ? p->image->files[f] : NULL;
}

int lgp_line_number(const lgp_profile *p, const lgp_line *l) {
  const lgp_image *im = p->image;
  if (lgp_stacks_of(p) != NULL)
    return l->linesym >= 0 ? (int)lgp_stacks_of(p)->lines[l->linesym].line : 0;
  if (l->node != LGP_NONE && l->is_first && lgp_node_line(p, l->node) > 0)
    return lgp_node_line(p, l->node);
  if (l->linesym >= 0 && (size_t)l->linesym < im->nlines)
    return im->lines[l->linesym].line;
  return l->node != LGP_NONE ? lgp_node_line(p, l->node) : 0;
}

const char *lgp_line_inlined(const lgp_profile *p, const lgp_line *l) {
  const lgp_image *im = p->image;
  const lgp_stackprof *sp = lgp_stacks_of(p);
  if (sp != NULL) { /* its function is the inlined one */
    const lgp_st_func *f = l->func != LGP_NONE ? &sp->tab.funcs[sp->func_of[l->func]] : NULL;
    return f != NULL && f->is_inline ? f->name : NULL;
  }
  if (l->linesym < 0 || (size_t)l->linesym >= im->nlines || !im->lines[l->linesym].is_inlined)
    return NULL;
  return im->lines[l->linesym].name;
}

int64_t lgp_line_count(const lgp_profile *p, const lgp_line *l) {
  const lgp_node *n;
  if (l->has_bb)
    return (int64_t)l->bb_count;
  if (!l->is_first || l->node == LGP_NONE)
    return -1;
  n = &p->graph.nodes[l->node];
  return (int64_t)(n->ncalls + n->self_calls);
}

int lgp_lines_path_matches(const char *path, const char *want) {
  size_t lp = strlen(path), lw = strlen(want);
  if (lw == 0 || lw > lp)
    return 0;
  return strcmp(path + lp - lw, want) == 0 && (lp == lw || path[lp - lw - 1] == '/');
}
