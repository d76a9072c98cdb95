/*
** pipeline.h: the whole lgprof pipeline on an executable and a profile
** (paths), for fuzz_profile.c and fuzz_exe.c: lgp_profile_open, gprof's
** report into memory, every export format and a filtered view with its
** report, and at line granularity (cfg 1 and 3) the execution counts and
** the annotated source too. cfg (0..3) picks the options; the fixed input
** of each harness lives next to the harness binary (make fuzz-build puts it
** there).
*/
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/annotate.h"
#include "write/execcount.h"
#include "write/export.h"
#include "model/profile.h"
#include "write/report.h"
#include "analyse/cyclecut.h"
#include "analyse/evidence.h"
#include "model/view.h"

static char fz_dir[4096];

static void fz_set_dir(const char *argv0) {
  char tmp[4096];
  const char *env = getenv("LGPROF_FUZZ_DIR");
  snprintf(tmp, sizeof tmp, "%s", argv0);
  snprintf(fz_dir, sizeof fz_dir, "%s", env ? env : dirname(tmp));
}

static void fz_write(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    abort();
  if (size > 0 && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);
}

static void fz_report(const lgp_profile *p, lgp_sources *sources, int cfg) {
  lgp_names nm;
  lgp_report_opts ro;
  lgp_out o;
  int first = 1;
  if (lgp_names_init(&nm, p->graph.nsyms + p->graph.ncycles, cfg != 1, NULL) != 0)
    return;
  memset(&ro, 0, sizeof ro);
  ro.bsd = cfg == 2;
  ro.brief = cfg == 1;
  ro.ignore_zeros = cfg != 3;
  ro.width = cfg == 3 ? 1 : 80;
  /* what profile:gprof_report passes (lcore.c): the parts the data
     allows (a view's removed functions are the profile's own business) */
  ro.flat = p->gmon->have_hist;
  ro.graph = p->gmon->have_cg;
  ro.first_output = &first;
  ro.sources = sources;
  lgp_out_init(&o, NULL);
  lgp_report_gprof(&o, p, &nm, &ro);
  lgp_out_free(&o);
  lgp_names_free(&nm);
}

static void fz_exports(const lgp_profile *p, lgp_sources *sources, int cfg) {
  lgp_names nm;
  int fmt;
  if (lgp_names_init(&nm, p->graph.nsyms + p->graph.ncycles, 1, NULL) != 0)
    return;
  for (fmt = LGP_EXPORT_CALLGRIND; fmt <= LGP_EXPORT_FOLDED; fmt++) {
    lgp_export_opts eo;
    lgp_out o;
    lgp_err err = {0, ""};
    lgp_export_opts_init(&eo);
    eo.format = fmt;
    eo.zeros = cfg & 1;
    eo.creator = "fuzz";
    eo.sources = sources;
    if (cfg == 2) {
      eo.max_depth = 1;
      eo.min_weight = 0;
    }
    lgp_out_init(&o, NULL);
    lgp_export(&o, p, &nm, &eo, &err);
    lgp_out_free(&o);
  }
  lgp_names_free(&nm);
}

static void fz_view(const lgp_profile *base, lgp_sources *sources, int cfg) {
  lgp_view_spec vs;
  lgp_profile v;
  lgp_err err = {0, ""};
  uint8_t *focus, *hide, *ignore, *prune;
  size_t i, n = base->graph.nsyms;
  memset(&vs, 0, sizeof vs);
  focus = calloc(n + 1, 1);
  hide = calloc(n + 1, 1);
  ignore = calloc(n + 1, 1);
  prune = calloc(n + 1, 1);
  if (!focus || !hide || !ignore || !prune)
    goto out;
  for (i = 0; i < n; i++) { /* spread the sets over the symbols */
    focus[i] = i % 3 == 0;
    hide[i] = i % 5 == 1;
    ignore[i] = i % 7 == 2;
    prune[i] = i % 4 == 3;
  }
  switch (cfg) {
  case 0: vs.hide = hide; vs.node_fraction = 0.005; vs.edge_fraction = 0.001; break;
  case 1: vs.focus = focus; vs.ignore = ignore; vs.top = 3; break;
  case 2: vs.prune_from = prune; vs.hide = hide; vs.min_calls = 2; break;
  default: vs.focus = focus; vs.hide = hide; vs.ignore = ignore; vs.prune_from = prune;
    vs.node_fraction = 0.1; vs.top = 1; vs.min_calls = 1; break;
  }
  memset(&v, 0, sizeof v);
  if (lgp_view_build(&v, base, &vs, &err) == 0) {
    fz_report(&v, sources, cfg);
    fz_exports(&v, sources, cfg);
    lgp_profile_free(&v);
  }
out:
  free(focus);
  free(hide);
  free(ignore);
  free(prune);
}

/* gprof's execution counts and annotated source of p, into memory, with
** the search list dirs (ndirs) and option set cfg (0..3). Never writes
** files (-y is left out). */
static void fz_sources(const lgp_profile *p, const char *const *dirs, size_t ndirs, int cfg) {
  lgp_anno_opts ao;
  lgp_out o, e;
  lgp_err err = {0, ""};
  int first = cfg & 1;
  /* as the binding does: no source information is not an error */
  (void)lgp_sources_load_srcinfo(p->own, &err);
  lgp_out_init(&o, NULL);
  lgp_out_init(&e, NULL);
  (void)lgp_report_exec_counts(&o, p, p->bbcounts, cfg >= 2, &first);
  memset(&ao, 0, sizeof ao);
  ao.dirs = dirs;
  ao.ndirs = ndirs;
  ao.all_lines = cfg & 1;
  ao.zeros = cfg >= 2;
  ao.table_length = cfg == 2 ? 0 : cfg == 3 ? 1 : 10;
  ao.min_count = cfg == 3 ? UINT64_MAX : (uint64_t)cfg;
  ao.first_output = &first;
  ao.err = &e;
  (void)lgp_report_annotate(&o, p, p->bbcounts, &ao);
  lgp_out_free(&o);
  lgp_out_free(&e);
}

/* Runs everything on exe and gmon with option set cfg (0..3). */
/* lgprof's own analyses of a profile: the cycle cuts (for N = 2 and 3,
** one cut per caller or not) and the doctor's evidence. */
static void fz_trust(const lgp_profile *p, int cfg) {
  size_t k, narcs = p->graph.arcs.narcs;
  lgp_cutarc *arcs = calloc(narcs ? narcs : 1, sizeof *arcs);
  lgp_cyclecuts cc;
  lgp_evidence ev;
  lgp_err err = {0, ""};
  if (arcs != NULL) {
    for (k = 0; k < narcs; k++) {
      arcs[k].from = p->graph.arcs.arcs[k].parent;
      arcs[k].to = p->graph.arcs.arcs[k].child;
      arcs[k].count = p->graph.arcs.arcs[k].count;
    }
    memset(&cc, 0, sizeof cc);
    if (lgp_cyclecut_find(p->graph.nsyms, arcs, narcs, NULL, cfg & 1 ? 3 : 2, cfg < 2, &cc, &err) == 0)
      lgp_cyclecut_free(&cc);
    free(arcs);
  }
  memset(&ev, 0, sizeof ev);
  if (lgp_evidence_compute(p, &ev, &err) == 0)
    lgp_evidence_free(&ev);
}

static void fz_pipeline(const char *exe, const char *gmon, int cfg) {
  static const char *const spec_sets[4][4] = {
    {NULL},
    {"main", "fact", NULL},
    {"is_even/is_odd", "demo.c", "burn", NULL},
    {"demo.c:30", ":main", "/fact", NULL},
  };
  static const int spec_tables[4][4] = {
    {0},
    {LGP_INCL_FLAT, LGP_EXCL_GRAPH},
    {LGP_EXCL_ARCS, LGP_INCL_TIME, LGP_EXCL_FLAT},
    {LGP_INCL_GRAPH, LGP_EXCL_TIME, LGP_INCL_ARCS},
  };
  lgp_options opts;
  lgp_profile p;
  lgp_err err = {0, ""};
  int k;
  const char *gmons[2];
  lgp_options_init(&opts);
  opts.format = cfg == 1 ? LGP_FMT_BSD : cfg == 3 ? LGP_FMT_MAGIC : LGP_FMT_AUTO;
  opts.line_granularity = cfg >= 2;
  opts.no_static = cfg == 1;
  opts.functions_only = cfg == 2;
  opts.default_excludes = cfg != 3;
  opts.line_granularity = cfg & 1;
  for (k = 0; spec_sets[cfg][k] != NULL; k++)
    lgp_options_add_spec(&opts, spec_tables[cfg][k], spec_sets[cfg][k]);
  gmons[0] = gmon;
  gmons[1] = gmon;
  if (lgp_profile_open(&p, exe, gmons, cfg == 2 ? 2 : 1, &opts, &err) == 0) {
    /* as the binding does: DWARF read on demand through the owner's image
       (in half the configurations) */
    lgp_sources *sources = cfg == 0 || cfg == 3 ? p.own : NULL;
    /* the sources' reports first, as the command runs them: on the calls alone */
    fz_sources(&p, NULL, 0, cfg);
    if (lgp_profile_analyse(&p, LGP_GRAPH_ALL, &err) != 0) {
      lgp_profile_free(&p);
      lgp_options_free(&opts);
      return;
    }
    fz_report(&p, sources, cfg);
    fz_exports(&p, sources, cfg);
    fz_view(&p, sources, cfg);
    fz_trust(&p, cfg);
    lgp_profile_free(&p);
  }
  lgp_options_free(&opts);
}
