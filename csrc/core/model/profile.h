/*
** profile.h: the data model of an analysed profile. Data flows one way:
**   files -> image (elfsym.h) + gmon (gmon.h) -> symbol table and index
**   (symtab.h) + arc table (arcs.h) -> graph (cgraph.h) -> profile or
**   view (view.h) -> reports (report.h) and exports (export.h).
** A profile owns its sources (image, files, symspecs, address index); a
** view borrows its base's through the same const pointers and owns only
** its graph.
*/
#ifndef profile_h
#define profile_h

#include <math.h>
#include "model/bbcount.h"
#include "model/cgraph.h"
#include "read/gmon.h"
#include "read/mapfile.h"

/* What one opening read: owned by the profile that opened it. */
typedef struct lgp_sources {
  lgp_image image;
  lgp_gmon gmon;
  lgp_specs specs;
  lgp_symindex index;
  lgp_bbcounts bbcounts;  /* at line granularity (gprof ignores blocks otherwise) */
  lgp_mapfile map;        /* -R: the symbols' names point into it */
  int have_map;
  lgp_blob *blobs;        /* the gmon files while they are read */
  size_t nblobs;
  struct lgp_stackprof *stackprof; /* a profile of sampled stacks (stackprofile.h) */
} lgp_sources;

typedef struct lgp_profile {
  const lgp_image *image;
  const lgp_gmon *gmon;
  const lgp_specs *specs;
  const lgp_symindex *index;
  int line_granularity;    /* the table holds gprof's line symbols (-l, -s) */
  const lgp_bbcounts *bbcounts;  /* NULL unless at line granularity */
  lgp_sources *own;       /* a profile's; NULL in a view */
  lgp_graph graph;
  /* views: the symbols and cycles their filters removed (NULL: none), and
     the arcs thresholds hide (NULL: none beyond removed ends) */
  const uint8_t *removed;
  uint8_t *removed_own;
  const uint8_t *arc_removed;
  uint8_t *arc_removed_own;
  double base_time;       /* the unfiltered profile's total_time */
  double base_print_time; /* and its print_time */
  const struct lgp_stackprof *stacks; /* sampled stacks (stackprofile.h), or NULL */
} lgp_profile;

/* DWARF is read on first need (a file or line to print), into the sources
** that own the image: views and reports see the image only as const, so
** what may read it is handed its owner (a view's is its base's). Source
** files and lines; the same and gprof -l's line symbols. 0, or -1 when
** they are unavailable (the image records that; err says why). */
int lgp_sources_load_srcinfo(lgp_sources *s, lgp_err *err);
int lgp_sources_load_lines(lgp_sources *s, lgp_err *err);

/* Reads the image and the gmon files and counts the calls; the rest of
** the analysis is lgp_profile_analyse's. */
int lgp_profile_open(lgp_profile *p, const char *exe, const char *const *gmons,
                     size_t ngmons, const lgp_options *opts, lgp_err *err);
/* The analysis stages in need (LGP_GRAPH_*), done once each, before what
** reads them: index and flat orders, cycles, propagated times. 0, or -1
** (out of memory). */
int lgp_profile_analyse(lgp_profile *p, unsigned need, lgp_err *err);
/* Deletes the arcs that the arc specs of extra (-k FROM/TO) delete, as if
** they had been given to lgp_profile_open: the arc table read is the same
** less those arcs (gprof's test depends on the two symbols alone), and the
** specs join the profile's. Only on a profile (not a view) of functions,
** analysed no further than its calls (the rest is done again when needed),
** without arc specs of its own (gprof's table keeps one entry per caller:
** a spec given later would override, not add to, an earlier one), and
** extra has arc specs only. Arc numbers change. 0, or -1 with a message. */
int lgp_profile_exclude_arcs(lgp_profile *p, const lgp_options *extra, lgp_err *err);
/* lgp_profile_exclude_arcs for the specs "-k F/T" of the node pairs
** from[i] -> to[i], in that order, when each spec names its node alone (as
** gprof would read it): the arcs deleted and the -k tables (those -r's
** copies read) made from the node numbers, no spec parsed. 0; 1 when the
** symbols' ranges overlap (nothing done: use lgp_profile_exclude_arcs);
** -1 with a message. */
int lgp_profile_exclude_pairs(lgp_profile *p, const uint32_t *from, const uint32_t *to,
                              size_t npairs, lgp_err *err);
void lgp_profile_free(lgp_profile *p);
/* Starts view (no graph yet) as a view of src: it borrows src's sources. */
void lgp_profile_borrow(lgp_profile *view, const lgp_profile *src);
static inline int lgp_is_view(const lgp_profile *p) { return p->own == NULL; }
/* Was node s (a symbol or a cycle) removed by a view's filters? */
static inline int lgp_removed(const lgp_profile *p, uint32_t s) {
  return p->removed != NULL && p->removed[s];
}
/* Is arc k left out of a view (hidden, or an end removed)? */
static inline int lgp_arc_hidden(const lgp_profile *p, uint32_t k) {
  const lgp_arc *a;
  if (p->removed == NULL)
    return 0;
  if (p->arc_removed != NULL && p->arc_removed[k])
    return 1;
  a = &p->graph.arcs.arcs[k];
  return p->removed[a->parent] || p->removed[a->child];
}
/* Does gprof's call graph print an entry for node s (a symbol or a
** cycle)? Not if a view removed it or the -q/-Q specs leave it out (its
** print flag), nor, with ignore_zeros, if it has no time and no calls. */
int lgp_graph_shows(const lgp_profile *p, uint32_t s, int ignore_zeros);
/* The arcs the profile (or view) shows. */
size_t lgp_profile_arc_count(const lgp_profile *p);
/* Ticks (histogram samples) in seconds; 0 when the rate is unknown. */
static inline double lgp_seconds(const lgp_profile *p, double ticks) {
  return p->gmon->hz ? ticks / (double)p->gmon->hz : 0.0;
}
/* The standard error of a time measured by sampling, in seconds: n samples
** counted at random instants vary from run to run like a Poisson count,
** whose standard deviation is sqrt(n). */
static inline double lgp_sampling_error(const lgp_profile *p, double ticks) {
  return ticks > 0 ? lgp_seconds(p, sqrt(ticks)) : 0.0;
}
/* A symbol's source file and line (NULL / 0 when unknown, or not read:
** lgp_image_load_srcinfo reads them). */
static inline const char *lgp_node_file(const lgp_profile *p, uint32_t s) {
  const lgp_image *im = p->image;
  return im->srcinfo_state == 1 && s < p->graph.nsyms && im->syms[s].file >= 0
         ? im->files[im->syms[s].file] : NULL;
}
static inline int lgp_node_line(const lgp_profile *p, uint32_t s) {
  const lgp_image *im = p->image;
  return im->srcinfo_state == 1 && s < p->graph.nsyms ? im->syms[s].line : 0;
}

#endif
