/*
** profile.c: the pipeline from files to an analysed profile: image,
** symbol table and index, symspecs, gmon files (arcs tallied as read),
** histogram credit, graph analysis.
*/
#include <stdlib.h>
#include <string.h>

#include "model/hist.h"
#include "model/profile.h"
#include "model/stackprofile.h"
#include "model/staticcg.h"

/* A histogram that covers no routine of the executable means the profile
** belongs to another program: say so rather than print an empty report. */
static int check_hist_range(const lgp_image *im, const lgp_gmon *g, const lgp_graph *gr,
                            size_t first, const char *gmon, lgp_err *err) {
  size_t i;
  lgp_addr lo, hi;
  if (gr->nsyms == 0)
    return 0;
  lo = gr->nodes[0].addr;
  hi = im->text_vma + im->text_size;
  for (i = first; i < g->nhist; i++) {
    const lgp_hist *h = &g->hist[i];
    if (h->high <= lo || h->low >= hi)
      return lgp_fail(err, gmon, "histogram range 0x%llx-0x%llx lies outside the "
                      "executable's text (0x%llx-0x%llx): profile of another program?",
                      (unsigned long long)h->low, (unsigned long long)h->high,
                      (unsigned long long)lo, (unsigned long long)hi);
  }
  return 0;
}

/* An LD_PROFILE file's callers outside the library: one symbol of their
** own at LGP_LDPROFILE_EXTERNAL (the library's ELF header, where no
** routine begins), so that their calls are counted and shown. */
static int add_external_sym(lgp_image *im) {
  lgp_rawsym *syms = lgp_alloc_array(im->nsyms + 1, sizeof *syms);
  if (syms == NULL)
    return -1;
  if (im->nsyms != 0)
    memcpy(syms, im->syms, im->nsyms * sizeof *syms);
  memset(&syms[im->nsyms], 0, sizeof *syms);
  syms[im->nsyms].addr = LGP_LDPROFILE_EXTERNAL;
  syms[im->nsyms].name = LGP_LDPROFILE_EXTERNAL_NAME;
  syms[im->nsyms].symndx = UINT32_MAX; /* after any real symbol there */
  syms[im->nsyms].is_func = 1;
  syms[im->nsyms].file = -1;
  free(im->syms);
  im->syms = syms;
  im->nsyms++;
  return 0;
}

/* What the arc sink needs while files are read (pointers into the
** profile being opened, held here so that the sink follows none). */
typedef struct tally_ctx {
  const lgp_symindex *ix;
  const lgp_specs *specs;
  const lgp_node *nodes;
  lgp_arctab *arcs;
  uint32_t last_parent;    /* callers arrive in address order */
} tally_ctx;

/* One arc record as read: gprof's cg_tally. 0, -1 or LGP_ARCS_FULL. */
static int tally(void *ctx, lgp_addr from, lgp_addr self, uint64_t count) {
  tally_ctx *t = ctx;
  const lgp_symindex *ix = t->ix;
  uint32_t parent = t->last_parent, child = lgp_symindex_lookup(ix, self);
  if (parent >= ix->n || from < ix->addrs[parent] ||
      (parent + 1 < ix->n ? from >= ix->addrs[parent + 1] : from > ix->last_end) ||
      (ix->ends != NULL && from > ix->ends[parent]))
    parent = t->last_parent = lgp_symindex_lookup(ix, from);
  if (parent == LGP_NONE || child == LGP_NONE)
    return 0;
  /* a callee that is not a function (a label) becomes the function before */
  while (!ix->is_func[child]) {
    if (child == 0)
      return 0;
    child--;
  }
  if (t->specs->narcspecs != 0 &&
      !lgp_specs_arc_wanted(t->specs, t->nodes, parent, child))
    return 0;
  return lgp_arctab_add(t->arcs, parent, child, count);
}

static void free_blobs(lgp_sources *src) {
  size_t i;
  for (i = 0; i < src->nblobs; i++)
    lgp_gmon_blob_free(&src->blobs[i]);
  free(src->blobs);
  src->blobs = NULL;
  src->nblobs = 0;
}

int lgp_profile_open(lgp_profile *p, const char *exe, const char *const *gmons,
                     size_t ngmons, const lgp_options *opts, lgp_err *err) {
  lgp_image_opts io;
  lgp_sources *src;
  lgp_node *nodes;
  size_t i, n, nloaded;
  tally_ctx t;
  lgp_blob *blobs;
  lgp_err load_err = {0, {0}};
  int ldprofile = 0;
  memset(p, 0, sizeof *p);
  memset(&io, 0, sizeof io);
  src = p->own = lgp_calloc_array(1, sizeof *p->own);
  if (src == NULL)
    return lgp_fail(err, NULL, "out of memory");
  p->image = &src->image;
  p->gmon = &src->gmon;
  p->specs = &src->specs;
  p->index = &src->index;
  p->line_granularity = opts->line_granularity;
  io.no_static = opts->no_static;
  io.functions_only = opts->functions_only;
  io.keep_clones = opts->keep_clones;
  io.symbol_file = opts->symbol_file;
  /* DWARF is slow to read and the report needs it only for specs naming
     files or lines; the Lua API reads it on demand. Line granularity
     reads the line symbols too (a profile without them keeps only its
     functions, as gprof does for an executable without DWARF). */
  io.srcinfo = !opts->no_srcinfo && lgp_specs_need_srcinfo(opts) && !opts->line_granularity;
  if (lgp_image_open(&src->image, exe, &io, err) != 0)
    goto fail;
  if (opts->map_file != NULL) { /* gprof reads it as it takes the symbols */
    if (lgp_mapfile_read(&src->map, opts->map_file, err) != 0)
      goto fail;
    src->have_map = 1;
    /* an nm-style symbol file's symbols are not renamed (gprof still reads
       the map, and -R then lists its files) */
    if (opts->symbol_file == NULL) {
      lgp_mapfile_apply(&src->map, &src->image);
      if (src->image.nsyms == 0) { /* the map dropped them all: gprof's message */
        lgp_fail(err, NULL, "file `%s' has no symbols", exe);
        goto fail;
      }
    }
  }
  if (opts->no_srcinfo || opts->symbol_file != NULL) {
    src->image.srcinfo_state = -1;
    src->image.lines_state = -1;
  } else if (opts->line_granularity) {
    lgp_err ignored = {0, {0}};
    lgp_image_load_lines(&src->image, &ignored);
  }
  lgp_gmon_init(&src->gmon, src->image.addr_bytes, src->image.big_endian);
  /* The files are loaded before the symbol table is built, which needs an
     LD_PROFILE file's external callers (standard input cannot be read
     twice). A file that cannot be loaded is reported when its turn comes,
     as if loaded then: the files before it may have worse to say. */
  blobs = src->blobs = lgp_calloc_array(ngmons ? ngmons : 1, sizeof *blobs);
  if (blobs == NULL) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  for (nloaded = 0; nloaded < ngmons; nloaded++) {
    if (opts->given != NULL && opts->given[nloaded] != NULL) {
      blobs[nloaded].data = opts->given[nloaded]->data; /* borrowed: nothing to free */
      blobs[nloaded].size = opts->given[nloaded]->size;
    } else if (lgp_gmon_blob_load(&blobs[nloaded], gmons[nloaded], &load_err) != 0) {
      break;
    }
    src->nblobs = nloaded + 1;
    ldprofile |= lgp_gmon_is_ldprofile(blobs[nloaded].data, blobs[nloaded].size,
                                       src->image.big_endian);
  }
  if (ldprofile && add_external_sym(&src->image) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_symtab_build(&src->image, opts->line_granularity, &nodes, &n, err) != 0)
    goto fail;
  lgp_graph_init(&p->graph, nodes, n);
  if (lgp_symindex_build(&src->index, nodes, n) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto fail;
  }
  if (lgp_specs_apply(&src->specs, nodes, n, &src->image, opts, err) != 0)
    goto fail;
  t.ix = &src->index;
  t.specs = &src->specs;
  t.nodes = nodes;
  t.arcs = &p->graph.arcs;
  t.last_parent = LGP_NONE;
  src->gmon.sink = tally;
  src->gmon.sink_ctx = &t;
  for (i = 0; i < ngmons; i++) {
    size_t before = src->gmon.nhist;
    if (i == nloaded) {
      lgp_fail(err, NULL, "%s", load_err.msg);
      goto fail;
    }
    if (lgp_gmon_read_mem(&src->gmon, blobs[i].data, blobs[i].size, gmons[i],
                          opts->format, err) != 0)
      goto fail;
    if (src->gmon.nhist != before &&
        check_hist_range(&src->image, &src->gmon, &p->graph, before, gmons[i], err) != 0)
      goto fail;
  }
  src->gmon.sink = NULL;
  src->gmon.sink_ctx = NULL;
  free_blobs(src);
  if (opts->line_granularity) {
    if (lgp_bbcounts_build(&src->bbcounts, &src->gmon, &src->index) != 0) {
      lgp_fail(err, NULL, "out of memory");
      goto fail;
    }
    p->bbcounts = &src->bbcounts;
  }
  if (src->gmon.have_hist)
    p->graph.total_time = lgp_hist_assign(&src->gmon, nodes, n, &src->specs);
  if (opts->static_call_graph || opts->static_arcs) {
    lgp_scan_ctx sc;
    sc.nodes = nodes;
    sc.n = n;
    sc.ix = &src->index;
    sc.arcs = &p->graph.arcs;
    sc.path = exe;
    sc.lines = opts->line_granularity;
    if (lgp_staticcg_add(&sc, &src->image, &src->gmon, opts, err) != 0)
      goto fail;
  }
  /* the rest of the analysis when a report or a query needs it */
  if (lgp_graph_analyse(&p->graph, &src->specs, LGP_GRAPH_CALLS, err) != 0)
    goto fail;
  p->base_time = p->graph.total_time;
  return 0;
fail:
  lgp_profile_free(p);
  return -1;
}

/* Can arcs be deleted from p as by specs given to lgp_profile_open? */
static int can_exclude(const lgp_profile *p, lgp_err *err) {
  if (lgp_is_view(p) || p->line_granularity || (p->graph.analysed & ~(unsigned)LGP_GRAPH_CALLS) ||
      p->specs->narcspecs != 0)
    return lgp_fail(err, NULL, "arcs can be excluded only from a profile of functions, "
                    "not analysed yet, without arc specs of its own");
  return 0;
}

/* The profile's specs, which had no arc tables, take those of add. */
static void take_arc_tables(lgp_profile *p, lgp_specs *add) {
  lgp_specs *own = &p->own->specs;
  size_t i;
  p->graph.analysed = 0; /* the calls are counted again */
  free(own->arcspecs); /* (none: narcspecs is 0) */
  own->arcspecs = add->arcspecs;
  own->narcspecs = add->narcspecs;
  for (i = 0; i < 2; i++) {
    free(own->arc_from[i]); /* empty tables */
    free(own->arc_at[i]);
    own->arc_from[i] = add->arc_from[i];
    own->narc_from[i] = add->narc_from[i];
    own->arc_at[i] = add->arc_at[i];
  }
  own->nnodes = add->nnodes;
  own->table_used[LGP_INCL_ARCS] = add->table_used[LGP_INCL_ARCS];
  own->table_used[LGP_EXCL_ARCS] = add->table_used[LGP_EXCL_ARCS];
}

int lgp_profile_exclude_pairs(lgp_profile *p, const uint32_t *from, const uint32_t *to,
                              size_t npairs, lgp_err *err) {
  lgp_specs add;
  lgp_arctab *t = &p->graph.arcs;
  uint32_t *last;
  size_t k, kept = 0;
  int rc;
  if (can_exclude(p, err) != 0)
    return -1;
  last = lgp_alloc_array(p->graph.nsyms ? p->graph.nsyms : 1, sizeof *last);
  if (last == NULL)
    return lgp_fail(err, NULL, "out of memory");
  rc = lgp_specs_from_pairs(&add, p->graph.nodes, p->graph.nsyms, from, to, npairs, last);
  if (rc != 0) {
    free(last);
    lgp_specs_free(&add);
    return rc < 0 ? lgp_fail(err, NULL, "out of memory") : 1;
  }
  /* lgp_specs_arc_wanted's answer (lgp_specs_from_pairs says why), in
     creation order as lgp_profile_exclude_arcs */
  for (k = 0; k < t->narcs; k++) {
    const lgp_arc *a = &t->arcs[k];
    const lgp_node *c = &p->graph.nodes[a->child], *callee;
    uint32_t j = last[a->parent];
    if (a->is_static || j == UINT32_MAX) {
      t->arcs[kept++] = *a;
      continue;
    }
    callee = &p->graph.nodes[to[j]];
    if (!(callee->addr <= c->addr && c->end_addr <= callee->end_addr))
      t->arcs[kept++] = *a;
  }
  t->narcs = kept;
  free(last);
  take_arc_tables(p, &add);
  return 0;
}

int lgp_profile_exclude_arcs(lgp_profile *p, const lgp_options *extra, lgp_err *err) {
  lgp_specs add;
  lgp_arctab *t = &p->graph.arcs;
  size_t i, k, kept = 0;
  if (can_exclude(p, err) != 0)
    return -1;
  for (i = 0; i < extra->nspecs; i++)
    if (extra->specs[i].table != LGP_EXCL_ARCS)
      return lgp_fail(err, NULL, "only -k specs can be added to an open profile");
  if (extra->default_excludes)
    return lgp_fail(err, NULL, "the default excludes are the profile's already");
  if (lgp_specs_need_srcinfo(extra) && p->image->srcinfo_state == 0) {
    lgp_err ignored = {0, {0}}; /* unreadable: files unknown, as at open */
    lgp_sources_load_srcinfo(p->own, &ignored);
  }
  if (lgp_specs_apply(&add, p->graph.nodes, p->graph.nsyms, p->image, extra, err) != 0) {
    lgp_specs_free(&add);
    return -1;
  }
  /* the arcs in creation order, less the deleted ones: the order the
     reading would have created them in */
  for (k = 0; k < t->narcs; k++)
    if (t->arcs[k].is_static ||
        lgp_specs_arc_wanted(&add, p->graph.nodes, t->arcs[k].parent, t->arcs[k].child))
      t->arcs[kept++] = t->arcs[k];
  t->narcs = kept;
  take_arc_tables(p, &add);
  return 0;
}

int lgp_sources_load_srcinfo(lgp_sources *s, lgp_err *err) {
  return lgp_image_load_srcinfo(&s->image, err);
}

int lgp_sources_load_lines(lgp_sources *s, lgp_err *err) {
  return lgp_image_load_lines(&s->image, err);
}

int lgp_profile_analyse(lgp_profile *p, unsigned need, lgp_err *err) {
  unsigned had = p->graph.analysed;
  if (lgp_graph_analyse(&p->graph, p->specs, need, err) != 0)
    return -1;
  if (!(had & LGP_GRAPH_TIME) && (p->graph.analysed & LGP_GRAPH_TIME) && !lgp_is_view(p))
    p->base_print_time = p->graph.print_time;
  return 0;
}

int lgp_graph_shows(const lgp_profile *p, uint32_t s, int ignore_zeros) {
  const lgp_node *n = &p->graph.nodes[s];
  return !lgp_removed(p, s) && n->print_flag &&
         !(ignore_zeros && n->ncalls == 0 && n->self_calls == 0 && n->prop_self == 0 &&
           n->prop_child == 0);
}

size_t lgp_profile_arc_count(const lgp_profile *p) {
  size_t k, n = 0;
  if (p->removed == NULL)
    return p->graph.arcs.narcs;
  for (k = 0; k < p->graph.arcs.narcs; k++)
    n += !lgp_arc_hidden(p, (uint32_t)k);
  return n;
}

void lgp_profile_borrow(lgp_profile *view, const lgp_profile *src) {
  memset(view, 0, sizeof *view);
  view->image = src->image;
  view->gmon = src->gmon;
  view->specs = src->specs;
  view->index = src->index;
  view->line_granularity = src->line_granularity;
  view->bbcounts = src->bbcounts;
  view->base_time = src->base_time;
  view->base_print_time = src->base_print_time;
  view->stacks = src->stacks;
}

void lgp_profile_free(lgp_profile *p) {
  if (p->own != NULL) { /* a view borrows these */
    free_blobs(p->own);
    lgp_specs_free(&p->own->specs);
    lgp_symindex_free(&p->own->index);
    lgp_bbcounts_free(&p->own->bbcounts);
    lgp_image_free(&p->own->image);
    lgp_gmon_free(&p->own->gmon);
    lgp_mapfile_free(&p->own->map);
    if (p->own->stackprof != NULL) {
      lgp_stackprof_free(p->own->stackprof);
      free(p->own->stackprof);
    }
    free(p->own);
  }
  free(p->removed_own);
  free(p->arc_removed_own);
  lgp_graph_free(&p->graph);
  memset(p, 0, sizeof *p);
}
