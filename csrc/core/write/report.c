/*
** report.c: the flat profile and call graph exactly as GNU gprof 2.40
** prints them (the index: report_index.c). All output goes
** through the buffered writer; numbers use the exact fast formatter.
*/
#include <stdlib.h>
#include <string.h>

#include "model/stackprofile.h"
#include "write/report_int.h"

/* The report's context; reads the DWARF line tables if the names need them. */
rctx lgp_report_ctx(lgp_out *o, const lgp_profile *p, lgp_names *nm,
                      const lgp_report_opts *ro) {
  rctx r;
  r.o = o;
  r.p = p;
  r.nm = nm;
  r.ro = ro;
  r.hz = (double)p->gmon->hz;
  r.have_cg = p->gmon->have_cg;
  r.rn = NULL;
  r.suffix = p->line_granularity ? LGP_SUFFIX_LINE
           : ro->inline_file_names ? LGP_SUFFIX_FILE : LGP_SUFFIX_NONE;
  if (r.suffix != LGP_SUFFIX_NONE && ro->sources != NULL) {
    lgp_err err = {0, {0}};
    lgp_sources_load_srcinfo(ro->sources, &err);
  }
  return r;
}

int lgp_report_flat_shows(const lgp_profile *p, uint32_t s, int ignore_zeros) {
  const lgp_node *n = &p->graph.nodes[s];
  return s < p->graph.nsyms && !lgp_removed(p, s) &&
         lgp_specs_in_table(p->specs, n, LGP_INCL_FLAT, LGP_EXCL_FLAT) &&
         !(ignore_zeros && n->ncalls == 0 && n->hist_time == 0);
}

static void form_feed(rctx *r) {
  if (*r->ro->first_output)
    *r->ro->first_output = 0;
  else
    lgp_out_str(r->o, "\f\n");
}

/* gprof's print_name_only: the name (demangled unless -T) and its file
** suffix in the line modes; their length. */
size_t lgp_report_name_only(rctx *r, uint32_t node) {
  const char *s;
  size_t len;
  if (r->rn != NULL) {
    lgp_out_mem(r->o, r->rn[node].name, r->rn[node].len);
    return r->rn[node].len;
  }
  if (r->ro->bsd) {
    if (r->p->graph.nodes[node].name == NULL)
      return 0;
    s = r->p->graph.nodes[node].name;
    len = strlen(s);
  } else {
    s = lgp_names_display_len(r->nm, r->p->graph.nodes, node, &len);
  }
  lgp_out_mem(r->o, s, len);
  if (r->suffix != LGP_SUFFIX_NONE)
    len += lgp_names_suffix(r->o, r->p->image, r->p->graph.nodes, node, r->suffix,
                            r->ro->print_path);
  return len;
}

/* gprof's print_name: the name, " <cycle N>" and " [index]" or " (index)". */
static void name_full(rctx *r, uint32_t node) {
  const lgp_node *n = &r->p->graph.nodes[node];
  char *p;
  lgp_report_name_only(r, node);
  p = lgp_out_reserve(r->o, LGP_NAMES_TAIL_MAX);
  if (p != NULL)
    r->o->len += (size_t)(lgp_names_put_tail(p, n->cyc_num, n->index, (int)n->print_flag,
                                             r->have_cg) - p);
}

/* Can the call graph print node i's name? At line granularity it prints
** the entries of functions and the lines at either end of an arc, a few
** thousand names out of tens of thousands of lines. */
static int graph_names(const lgp_profile *p, size_t i) {
  const lgp_graph *g = &p->graph;
  return !p->line_granularity || i >= g->nsyms || g->nodes[i].is_func ||
         g->parent_off[i] != g->parent_off[i + 1] || g->child_off[i] != g->child_off[i + 1];
}

/* The packed nodes for the call graph; NULL if out of memory. With file
** suffixes, the names and their suffixes are written once into arena (and
** only those the graph can print). */
static rnode *make_rnodes(rctx *r, lgp_out *arena) {
  const lgp_profile *p = r->p;
  size_t n = p->graph.nsyms + p->graph.ncycles, i;
  rnode *rn = lgp_alloc_array(n ? n : 1, sizeof *rn);
  if (rn == NULL)
    return NULL;
  if (r->suffix != LGP_SUFFIX_NONE) {
    size_t *off = lgp_alloc_array(n ? n : 1, sizeof *off);
    if (off == NULL) {
      free(rn);
      return NULL;
    }
    for (i = 0; i < n; i++) {
      off[i] = arena->len;
      /* r->rn is NULL: the name goes into r->o */
      rn[i].len = graph_names(p, i) ? (uint32_t)lgp_report_name_only(r, (uint32_t)i) : 0;
    }
    for (i = 0; i < n; i++) /* (no name written at all: no buffer either) */
      rn[i].name = arena->buf != NULL ? arena->buf + off[i] : "";
    free(off);
    if (arena->failed) {
      free(rn);
      return NULL;
    }
  }
  for (i = 0; i < n; i++) {
    const lgp_node *nd = &p->graph.nodes[i];
    size_t len = 0;
    if (r->suffix != LGP_SUFFIX_NONE) {
      len = rn[i].len; /* named above */
    } else if (nd->name == NULL) {
      rn[i].name = "";
    } else if (r->ro->bsd) {
      rn[i].name = nd->name;
      len = strlen(nd->name);
    } else {
      rn[i].name = lgp_names_display_len(r->nm, p->graph.nodes, (uint32_t)i, &len);
    }
    rn[i].len = (uint32_t)len;
    rn[i].index = nd->index;
    rn[i].cyc_num = nd->cyc_num;
    rn[i].print_flag = nd->print_flag;
    rn[i].head_calls = p->graph.nodes[nd->cyc_head].ncalls;
  }
  return rn;
}

/* {====================================================== flat profile */

static const struct { char prefix; double scale; } si_table[] = {
  {'T', 1e-12}, {'G', 1e-09}, {'M', 1e-6}, {'K', 1e-3}, {' ', 1},
  {'m', 1e3}, {'u', 1e6}, {'n', 1e9}, {'p', 1e12}, {'f', 1e15}, {'a', 1e18},
};
#define SI_COUNT ((int)(sizeof si_table / sizeof si_table[0]))

/* The per-call unit: fitted to the largest time per call. When nothing
** fits, gprof reads one entry past its table, which overlays the bytes of
** the string "<unknown>\0 (addr": prefix '<' and the double those bytes
** make. Observed output is reproduced with exactly that entry. */
static int flat_log_scale(rctx *r) {
  const lgp_profile *p = r->p;
  double top_time = 0.0;
  int have_top = 0, i;
  size_t k;
  if (r->ro->bsd)
    return 5;
  for (k = 0; k < p->graph.nsyms; k++) { /* a maximum: address order will do */
    const lgp_node *n = &p->graph.nodes[k];
    if (n->ncalls != 0) {
      double t = (n->hist_time + n->child_time) / (double)n->ncalls;
      if (t > top_time) {
        top_time = t;
        have_top = 1;
      }
    }
  }
  if (!have_top || !(top_time > 0.0))
    return 0;
  top_time /= r->hz;
  for (i = 0; i < SI_COUNT; i++) {
    double v = si_table[i].scale * top_time;
    if (v >= 1.0 && v < 1000.0)
      return i;
  }
  return SI_COUNT;
}

static char unit_prefix(int log_scale) {
  return log_scale < SI_COUNT ? si_table[log_scale].prefix : '<';
}

static double unit_scale(int log_scale) {
  return log_scale < SI_COUNT ? si_table[log_scale].scale : 1.0877989367040056e+243;
}

/* The event of a profile of sampled stacks (they record no calls: the
** calls columns are blank), or NULL for gmon's. */
static const char *stack_event(const rctx *r) {
  const lgp_stackprof *sp = lgp_stacks_of(r->p);
  if (sp == NULL)
    return NULL;
  return sp->tab.nevents > 0 && sp->tab.events[0].name != NULL ? sp->tab.events[0].name : "?";
}

/* Whether the profile's weights are counts of an event (cycles...) rather
** than time. */
static int counts_events(const rctx *r) {
  const lgp_stackprof *sp = lgp_stacks_of(r->p);
  return sp != NULL && !sp->is_time;
}

/* One sample, in the profile's ticks: gmon's one; a profile of stacks'
** mean period (its samples weigh their own periods), for gprof's "for X%"
** (one sample's share). */
static double one_sample(const rctx *r) {
  const lgp_stackprof *sp = lgp_stacks_of(r->p);
  return sp != NULL && sp->samples > 0 ? (double)sp->weight / (double)sp->samples : 1.0;
}

/* Off-CPU and wall profiles (--event=off-cpu, wall) say what is exact and
** what is sampled, and the intervals the recording's end cut. */
static void time_note(const rctx *r) {
  const lgp_stacktab *t = &lgp_stacks_of(r->p)->tab;
  double off = (double)(t->offcpu_ns[0] + t->offcpu_ns[1] + t->offcpu_ns[2] + t->offcpu_ns[3]);
  if (!t->synthesized)
    return;
  lgp_out_printf(r->o, "Off-CPU time is exact, measured from the recorded context switches: "
                 "%.6f seconds in %llu intervals (sleeping %.6f, waiting %.6f, preempted %.6f, "
                 "blocked %.6f).\n", off / 1e9, (unsigned long long)t->offcpu_intervals,
                 (double)t->offcpu_ns[1] / 1e9, (double)t->offcpu_ns[2] / 1e9,
                 (double)t->offcpu_ns[0] / 1e9, (double)t->offcpu_ns[3] / 1e9);
  if (t->oncpu_ns > 0)
    lgp_out_printf(r->o, "On-CPU time is sampled: %.6f seconds.\n", (double)t->oncpu_ns / 1e9);
  if (t->offcpu_open > 0)
    lgp_out_printf(r->o, "%llu interval(s) had not ended when the recording did: charged up to "
                   "its end (%.6f seconds).\n", (unsigned long long)t->offcpu_open,
                   (double)t->offcpu_open_ns / 1e9);
}

static void granularity(rctx *r) {
  if (stack_event(r) != NULL) {
    lgp_out_printf(r->o, "\ngranularity: each sample is one stack from perf.data (%s)%s",
                   stack_event(r), r->p->stacks->has_calls ? "; calls counted by gmon.out" : "");
    return;
  }
  lgp_out_str(r->o, "\ngranularity: each sample hit covers ");
  lgp_out_printf(r->o, "%ld", (long)r->p->gmon->hist_scale * 2L);
  lgp_out_str(r->o, " byte(s)");
}

void lgp_report_flat(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro) {
  rctx r = lgp_report_ctx(o, p, nm, ro);
  double total = p->graph.total_time, accum = 0.0, scale;
  const char *dimen = p->gmon->dimen;
  char unit[16];
  int log_scale;
  size_t k;
  form_feed(&r);
  if (ro->bsd) {
    if (!ro->brief) {
      lgp_out_str(o, "\n\n\nflat profile:\n");
      lgp_report_flat_blurb(o, p);
    }
    granularity(&r);
    if (total > 0.0)
      lgp_out_printf(o, " for %.2f%% of %.2f %s\n\n", 100.0 * one_sample(&r) / total,
                     total / r.hz, dimen);
  } else {
    lgp_out_str(o, "Flat profile:\n");
    if (stack_event(&r) != NULL) {
      if (p->stacks->has_calls)
        lgp_out_printf(o, "\nTimes are sampled stacks from perf.data (%s); calls are counted "
                       "by gmon.out.\n", stack_event(&r));
      else if (counts_events(&r))
        lgp_out_printf(o, "\nEach sample is a stack of %s from perf.data (%s): the columns count "
                       "%s (each sample weighs its period), not seconds; a sampler counts no "
                       "call, so gprof's call columns are blank.\n",
                       p->stacks->command != NULL ? p->stacks->command : p->image->path,
                       stack_event(&r), dimen);
      else
        lgp_out_printf(o, "\nEach sample is a stack of %s from perf.data (%s): times are "
                       "measured; a sampler counts no call, so gprof's call columns are blank.\n",
                       p->stacks->command != NULL ? p->stacks->command : p->image->path,
                       stack_event(&r));
      time_note(&r);
      if (p->line_granularity)
        lgp_out_str(o, "A line's row holds the samples whose leaf frame is on it; @ is the "
                       "lowest address sampled there.\n");
    } else
      lgp_out_printf(o, "\nEach sample counts as %g %s.\n", 1.0 / r.hz, dimen);
  }
  if (total <= 0.0) {
    lgp_out_str(o, " no time accumulated\n\n");
    total = 1.0;
  }
  log_scale = flat_log_scale(&r);
  scale = unit_scale(log_scale);
  snprintf(unit, sizeof unit, "%c%c/call", unit_prefix(log_scale), p->gmon->abbrev);
  lgp_out_printf(o, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n",
                 "%  ", "cumulative", "self  ", "", "self  ", "total ", "");
  /* (a count event's name, cut to the column, would read as a word cut:
     the columns say "events", the line above names the event) */
  if (counts_events(&r))
    lgp_out_printf(o, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n",
                   "share", "events", "events", "calls", unit, unit, "name");
  else
    lgp_out_printf(o, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n",
                   "time", dimen, dimen, "calls", unit, unit, "name");
  for (k = 0; k < p->graph.nsyms; k++) {
    uint32_t s = p->graph.flat_sorted[k];
    const lgp_node *n = &p->graph.nodes[s];
    /* lines come in no order in memory: fetch the nodes 16 lines ahead,
       the names (known once the name table is read) 8 lines ahead */
    if (k + 16 < p->graph.nsyms) {
      uint32_t t = p->graph.flat_sorted[k + 16];
      PREFETCH(&p->graph.nodes[t]);
      PREFETCH((const char *)&p->graph.nodes[t] + 64);
      if (nm != NULL && t < nm->n)
        PREFETCH(&nm->disp[t]);
    }
    if (k + 8 < p->graph.nsyms) {
      uint32_t t = p->graph.flat_sorted[k + 8];
      if (nm != NULL && t < nm->n && nm->disp[t].s != NULL)
        PREFETCH(nm->disp[t].s);
      else /* not displayed yet: the raw name is what is read first */
        PREFETCH(p->graph.nodes[t].name);
    }
    /* the order is by time, then calls, both descending: from the first
       line with neither on, -z aside, no line is shown */
    if (ro->ignore_zeros && n->hist_time == 0 && n->ncalls == 0)
      break;
    if (!lgp_report_flat_shows(p, s, ro->ignore_zeros))
      continue;
    accum += n->hist_time;
    if (ro->bsd) {
      lgp_out_fixed(o, 100 * n->hist_time / total, 5, 1);
      lgp_out_char(o, ' ');
      lgp_out_fixed(o, accum / r.hz, 10, 2);
    } else {
      lgp_out_fixed(o, 100 * n->hist_time / total, 6, 2);
      lgp_out_char(o, ' ');
      lgp_out_fixed(o, accum / r.hz, 9, 2);
    }
    lgp_out_char(o, ' ');
    lgp_out_fixed(o, n->hist_time / r.hz, 8, 2);
    if (n->ncalls != 0) {
      lgp_out_char(o, ' ');
      lgp_out_u64(o, n->ncalls, 8, 0);
      lgp_out_char(o, ' ');
      lgp_out_fixed(o, scale * n->hist_time / r.hz / (double)n->ncalls, 8, 2);
      lgp_out_char(o, ' ');
      lgp_out_fixed(o, scale * (n->hist_time + n->child_time) / r.hz / (double)n->ncalls, 8, 2);
      lgp_out_str(o, "  ");
    } else {
      lgp_out_chars(o, ' ', 29);
    }
    if (ro->bsd)
      name_full(&r, s);
    else
      lgp_report_name_only(&r, s);
    lgp_out_char(o, '\n');
  }
  if (!ro->bsd && !ro->brief)
    lgp_report_flat_blurb(o, p);
}

/* }====================================================== */

/* {====================================================== call graph */

/* The second time column is wider in the traditional (-T) layout. */
static void col_time2(rctx *r, double v) {
  lgp_out_fixed(r->o, v, r->ro->bsd ? 11 : 7, 2);
}

static void col_blank2(rctx *r) { lgp_out_chars(r->o, ' ', r->ro->bsd ? 11 : 7); }

static int same_cycle(const rnode *rn, uint32_t a, uint32_t b) {
  return rn[a].cyc_num != 0 && rn[a].cyc_num == rn[b].cyc_num;
}

/* gprof's cmp_arc: self arc < arcs inside a cycle (by count) < the others
** (by propagated time, then count). The keys of one list are gathered
** first, with what its lines print, so neither the sort nor the printing
** goes back to the arcs. */
typedef struct arc_key {
  double time, child_time;
  uint64_t count;
  uint32_t arc, other; /* other: the parent or child the line names */
  int cls;             /* 0 self, 1 inside a cycle, 2 other */
} arc_key;

static int cmp_arc(const arc_key *l, const arc_key *r) {
  if (l->cls != r->cls)
    return l->cls < r->cls ? -1 : 1;
  if (l->cls == 0)
    return 0;
  if (l->cls == 2) {
    double lt = l->time + l->child_time, rt = r->time + r->child_time;
    if (lt < rt)
      return -1;
    if (lt > rt)
      return 1;
  }
  if (l->count != r->count)
    return l->count < r->count ? -1 : 1;
  return 0;
}

/* Parents ascending, children descending; ties in arc creation order,
** which is where gprof's insertion sorts leave them. A total order, sorted
** here with the comparison inlined: these sorts run for every entry. */
static inline int arc_before(const arc_key *k, uint32_t x, uint32_t y, int desc) {
  int c = cmp_arc(&k[x], &k[y]);
  if (desc)
    c = -c;
  return c != 0 ? c < 0 : k[x].arc < k[y].arc;
}

typedef struct arcbuf {
  uint32_t *v, *tmp;
  size_t cap, tmp_cap;
  arc_key *keys;
  size_t keys_cap;
} arcbuf;

static int sort_arc_positions(arcbuf *b, size_t n, int desc) {
  uint32_t *v = b->v, *src, *dst, *t;
  size_t width, i, j;
  if (n <= 16) {
    for (i = 1; i < n; i++) {
      uint32_t x = v[i];
      for (j = i; j > 0 && arc_before(b->keys, x, v[j - 1], desc); j--)
        v[j] = v[j - 1];
      v[j] = x;
    }
    return 0;
  }
  if (lgp_grow((void **)&b->tmp, &b->tmp_cap, n, sizeof *b->tmp) != 0)
    return -1;
  src = v;
  dst = b->tmp;
  for (width = 1; width < n; width *= 2) {
    size_t lo;
    for (lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, c = mid, k = lo;
      while (a < mid && c < hi)
        dst[k++] = arc_before(b->keys, src[c], src[a], desc) ? src[c++] : src[a++];
      while (a < mid)
        dst[k++] = src[a++];
      while (c < hi)
        dst[k++] = src[c++];
    }
    t = src;
    src = dst;
    dst = t;
  }
  if (src != v)
    memcpy(v, src, n * sizeof *v);
  return 0;
}

/* Drops from b->keys[0..n) the arcs a view leaves out; the count kept. */
static size_t drop_hidden(const lgp_profile *p, arcbuf *b, size_t n) {
  size_t i, kept = 0;
  for (i = 0; i < n; i++)
    if (!lgp_arc_hidden(p, b->keys[i].arc))
      b->keys[kept++] = b->keys[i];
  return kept;
}

/* The parents or children of s sorted: b->v holds positions into b->keys. */
static size_t sorted_arcs(rctx *r, arcbuf *b, uint32_t s, int parents) {
  const lgp_profile *p = r->p;
  const uint32_t *off = parents ? p->graph.parent_off : p->graph.child_off;
  const uint32_t *list = parents ? p->graph.parent_arcs : p->graph.child_arcs;
  const uint32_t *others = parents ? p->graph.parent_pred : p->graph.child_succ;
  uint32_t j0 = off[s];
  size_t i, n = off[s + 1] - j0;
  if (lgp_grow((void **)&b->v, &b->cap, n, sizeof *b->v) != 0 ||
      lgp_grow((void **)&b->keys, &b->keys_cap, n, sizeof *b->keys) != 0) {
    r->o->failed = 1;
    return 0;
  }
  for (i = 0; i < n; i++) {
    uint32_t j = j0 + (uint32_t)i, other = others[j];
    arc_key *k = &b->keys[i];
    k->arc = list[j];
    k->other = other;
    k->count = p->graph.arcs.arcs[list[j]].count;
    k->time = p->graph.arcs.arcs[list[j]].time;
    k->child_time = p->graph.arcs.arcs[list[j]].child_time;
    /* the line prints rn[other] and its name: reading them here, in a
       loop of independent loads, overlaps their cache misses */
    k->cls = other == s ? 0 : same_cycle(r->rn, s, other) ? 1 : 2;
    PREFETCH(r->rn[other].name);
    b->v[i] = (uint32_t)i;
  }
  if (p->removed != NULL) /* views only: the profile's loop stays as it is */
    n = drop_hidden(p, b, n);
  if (sort_arc_positions(b, n, !parents) != 0)
    r->o->failed = 1;
  return n;
}

/* " <cycle N>" and " [index]" (or " (index)") after a name, into p. */
static char *put_name_tail(const rctx *r, char *p, uint32_t node) {
  const rnode *rn = &r->rn[node];
  return lgp_names_put_tail(p, rn->cyc_num, rn->index, (int)rn->print_flag, r->have_cg);
}

/* A parent or child line, formatted straight into the output buffer (the
** call graph is mostly these lines). */
static void arc_line(rctx *r, const arc_key *a, uint32_t entry, int is_parent) {
  lgp_out *o = r->o;
  uint32_t other = a->other;
  size_t w2 = r->ro->bsd ? 11 : 7;
  char *p0 = lgp_out_reserve(o, 2 * LGP_FIXED_MAX + 128 + r->rn[other].len), *p = p0;
  if (p == NULL)
    return;
  memset(p, ' ', 6 + 1 + 5 + 1); /* index and %time columns */
  p += 6 + 1 + 5 + 1;
  if (other == entry || same_cycle(r->rn, other, entry)) {
    memset(p, ' ', 7 + 1 + w2 + 1);
    p += 7 + 1 + w2 + 1;
    if (!lgp_calls_known(r->p, other) || !lgp_calls_known(r->p, entry)) { /* not recorded */
      memset(p, ' ', 7);
      p += 7;
    } else {
      p += lgp_fmt_u64(p, a->count, 7, 0);
    }
    memset(p, ' ', 1 + 7 + 5);
    p += 1 + 7 + 5;
  } else {
    uint32_t callee = is_parent ? entry : other;
    p += lgp_fmt_fixed(p, a->time / r->hz, 7, 2);
    *p++ = ' ';
    p += lgp_fmt_fixed(p, a->child_time / r->hz, (int)w2, 2);
    *p++ = ' ';
    if (!lgp_calls_known(r->p, other) || !lgp_calls_known(r->p, entry)) { /* not recorded */
      memset(p, ' ', 7 + 1 + 7);
      p += 7 + 1 + 7;
    } else {
      p += lgp_fmt_u64(p, a->count, 7, 0);
      *p++ = '/';
      p += lgp_fmt_u64(p, r->rn[callee].head_calls, 7, 1);
    }
    memset(p, ' ', 5);
    p += 5;
  }
  memcpy(p, r->rn[other].name, r->rn[other].len);
  p = put_name_tail(r, p + r->rn[other].len, other);
  *p++ = '\n';
  o->len += (size_t)(p - p0);
}

/* The "[index] %time self children" columns of a primary or cycle line. */
static void primary_cols(rctx *r, const lgp_node *n, double print_time) {
  char buf[32];
  *lgp_names_put_index(buf, n->index, 1) = '\0';
  lgp_out_pad(r->o, buf, 6, 6, 1); /* "%-6.6s" */
  lgp_out_char(r->o, ' ');
  lgp_out_fixed(r->o, 100 * (n->prop_self + n->prop_child) / print_time, 5, 1);
  lgp_out_char(r->o, ' ');
  lgp_out_fixed(r->o, n->prop_self / r->hz, 7, 2);
  lgp_out_char(r->o, ' ');
  col_time2(r, n->prop_child / r->hz);
}

static void self_calls_col(rctx *r, uint64_t self_calls) {
  if (self_calls != 0) {
    lgp_out_char(r->o, '+');
    lgp_out_u64(r->o, self_calls, 7, 1);
  } else {
    lgp_out_chars(r->o, ' ', 8);
  }
}

/* gprof's sort_members: descending by time, then calls; ties keep the
** member chain's order (head first, then the order members joined). */
typedef struct member_key {
  double time;
  uint64_t calls;
} member_key;

static int cmp_member(const void *ctx, uint32_t x, uint32_t y) {
  const member_key *l = (const member_key *)ctx + x, *r = (const member_key *)ctx + y;
  if (l->time != r->time)
    return l->time > r->time ? -1 : 1;
  if (l->calls != r->calls)
    return l->calls > r->calls ? -1 : 1;
  return 0;
}

static void print_cycle_entry(rctx *r, uint32_t c, double print_time, arcbuf *b) {
  const lgp_profile *p = r->p;
  const lgp_node *cyc = &p->graph.nodes[c];
  uint32_t m;
  size_t nmem = 0, i;
  primary_cols(r, cyc, print_time);
  lgp_out_char(r->o, ' ');
  if (!lgp_calls_known(r->p, c)) /* not recorded */
    lgp_out_chars(r->o, ' ', 7 + 8);
  else {
    lgp_out_u64(r->o, cyc->ncalls, 7, 0);
    self_calls_col(r, cyc->self_calls);
  }
  lgp_out_printf(r->o, " <cycle %d as a whole> [%u]\n", (int)cyc->cyc_num, (unsigned)cyc->index);
  /* members: descending by time, then calls; ties in chain order */
  for (m = cyc->cyc_next; m != LGP_NONE; m = p->graph.chain[m])
    nmem++;
  if (lgp_grow((void **)&b->v, &b->cap, nmem, sizeof *b->v) != 0) {
    r->o->failed = 1;
    return;
  }
  {
    /* sort positions by keys gathered once; then positions -> members */
    member_key *keys = lgp_alloc_array(nmem ? nmem : 1, sizeof *keys);
    uint32_t *pos = lgp_alloc_array(nmem ? nmem : 1, sizeof *pos);
    if (keys == NULL || pos == NULL) {
      free(keys);
      free(pos);
      r->o->failed = 1;
      return;
    }
    for (i = 0, m = cyc->cyc_next; m != LGP_NONE; m = p->graph.chain[m], i++) {
      const lgp_node *mn = &p->graph.nodes[m];
      keys[i].time = mn->prop_self + mn->prop_child;
      keys[i].calls = mn->ncalls + mn->self_calls;
      pos[i] = (uint32_t)i;
      b->v[i] = m;
    }
    if (lgp_sort_indices(pos, nmem, cmp_member, keys) != 0)
      r->o->failed = 1;
    for (i = 0; i < nmem; i++)
      pos[i] = b->v[pos[i]];
    memcpy(b->v, pos, nmem * sizeof *pos);
    free(keys);
    free(pos);
  }
  for (i = 0; i < nmem; i++) {
    const lgp_node *n = &p->graph.nodes[b->v[i]];
    if (lgp_removed(p, b->v[i]))
      continue; /* a view leaves it out */
    if (i + 8 < nmem) { /* members come in no order in memory */
      const lgp_node *ahead = &p->graph.nodes[b->v[i + 8]];
      PREFETCH(&ahead->ncalls);
      PREFETCH(&ahead->prop_child);
      PREFETCH(&r->rn[b->v[i + 8]]);
    }
    if (i + 4 < nmem)
      PREFETCH(r->rn[b->v[i + 4]].name);
    lgp_out_chars(r->o, ' ', 6 + 1 + 5 + 1);
    lgp_out_fixed(r->o, n->prop_self / r->hz, 7, 2);
    lgp_out_char(r->o, ' ');
    col_time2(r, n->prop_child / r->hz);
    lgp_out_char(r->o, ' ');
    if (!lgp_calls_known(r->p, b->v[i])) /* not recorded */
      lgp_out_chars(r->o, ' ', 7 + 8);
    else {
      lgp_out_u64(r->o, n->ncalls, 7, 0);
      self_calls_col(r, n->self_calls);
    }
    lgp_out_chars(r->o, ' ', 5);
    name_full(r, b->v[i]);
    lgp_out_char(r->o, '\n');
  }
}

static void print_entry(rctx *r, uint32_t s, double print_time, arcbuf *b) {
  const lgp_profile *p = r->p;
  const lgp_node *n = &p->graph.nodes[s];
  size_t k, cnt = 0;
  /* no parent (in a view: none shown) is gprof's <spontaneous> */
  if (p->graph.parent_off[s] != p->graph.parent_off[s + 1])
    cnt = sorted_arcs(r, b, s, 1);
  if (cnt == 0) {
    lgp_out_chars(r->o, ' ', 6 + 1 + 5 + 1 + 7 + 1);
    col_blank2(r);
    lgp_out_chars(r->o, ' ', 1 + 7 + 1 + 7);
    lgp_out_str(r->o, "     <spontaneous>\n");
  } else {
    for (k = 0; k < cnt; k++)
      arc_line(r, &b->keys[b->v[k]], s, 1);
  }
  primary_cols(r, n, print_time);
  if (n->ncalls + n->self_calls != 0) {
    lgp_out_char(r->o, ' ');
    lgp_out_u64(r->o, n->ncalls, 7, 0);
    if (n->self_calls != 0) {
      lgp_out_char(r->o, '+');
      lgp_out_u64(r->o, n->self_calls, 7, 1);
      lgp_out_char(r->o, ' ');
    } else {
      lgp_out_chars(r->o, ' ', 9);
    }
  } else {
    lgp_out_chars(r->o, ' ', 1 + 7 + 1 + 7 + 1);
  }
  name_full(r, s);
  lgp_out_char(r->o, '\n');
  cnt = sorted_arcs(r, b, s, 0);
  for (k = 0; k < cnt; k++)
    arc_line(r, &b->keys[b->v[k]], s, 0);
}

/* Entries come in time order, their parents and children from anywhere in
** memory: at a million arcs these reads miss every cache. Formatting an
** entry takes long enough to hide them, so while entry k prints, the data
** of the next entries is prefetched in stages, each needing the one before:
** k+4 its list offsets and node, k+3 its lists, k+2 the arcs and the
** nodes they name, k+1 those nodes' names. Only the first PREFETCH_ARCS
** of a list: a huge list would evict what the others fetched. */
#define PREFETCH_ARCS 32

PREFETCH_FN prefetch_lists(const rctx *r, uint32_t s, int stage) {
  const lgp_profile *p = r->p;
  int side;
  if (s >= p->graph.nsyms) /* a cycle: its members are prefetched as printed */
    return;
  if (stage == 4) {
    PREFETCH(&p->graph.parent_off[s]);
    PREFETCH(&p->graph.child_off[s]);
    PREFETCH(&p->graph.nodes[s].prop_self);
    PREFETCH(&r->rn[s]);
    return;
  }
  for (side = 0; side < 2; side++) {
    const uint32_t *off = side ? p->graph.parent_off : p->graph.child_off;
    const uint32_t *list = side ? p->graph.parent_arcs : p->graph.child_arcs;
    const uint32_t *others = side ? p->graph.parent_pred : p->graph.child_succ;
    uint32_t j = off[s], end = off[s + 1];
    if (end - j > PREFETCH_ARCS)
      end = j + PREFETCH_ARCS;
    if (stage == 3) {
      PREFETCH(&list[j]);
      PREFETCH(&others[j]);
      continue;
    }
    for (; j < end; j++) {
      if (stage == 2) {
        PREFETCH(&p->graph.arcs.arcs[list[j]]);
        PREFETCH(&r->rn[others[j]]);
      } else {
        PREFETCH(r->rn[others[j]].name);
      }
    }
  }
}

void lgp_report_graph(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro) {
  rctx r = lgp_report_ctx(o, p, nm, ro);
  double print_time = p->graph.print_time;
  lgp_out arena;
  arcbuf b;
  size_t total = p->graph.nsyms + p->graph.ncycles, nent = 0, k;
  uint32_t *ent;
  memset(&b, 0, sizeof b);
  lgp_out_init(&arena, NULL);
  r.o = &arena;
  r.rn = make_rnodes(&r, &arena);
  r.o = o;
  ent = lgp_alloc_array(total ? total : 1, sizeof *ent);
  if (r.rn == NULL || ent == NULL) {
    free(r.rn);
    free(ent);
    lgp_out_free(&arena);
    o->failed = 1;
    return;
  }
  /* the entries printed, in time order: the prefetches ahead then fetch
     what is printed next (at line granularity, a few in ten nodes). Which
     ones is decided in address order (the nodes read in the order they
     lie); the time order then reads only a byte per node. */
  {
    uint8_t *shown = lgp_alloc_array(total ? total : 1, 1);
    if (shown == NULL) {
      free(r.rn);
      free(ent);
      lgp_out_free(&arena);
      o->failed = 1;
      return;
    }
    for (k = 0; k < total; k++) /* line mode: functions only (gprof: cycles neither) */
      shown[k] = (uint8_t)(lgp_graph_shows(p, (uint32_t)k, ro->ignore_zeros) &&
                           (!p->line_granularity || p->graph.nodes[k].is_func));
    for (k = 0; k < total; k++) {
      uint32_t s = p->graph.time_sorted[k];
      if (shown[s])
        ent[nent++] = s;
    }
    free(shown);
  }
  if (ro->bsd && !ro->brief)
    lgp_report_callg_blurb(o, p, 1);
  form_feed(&r);
  if (!ro->bsd)
    lgp_out_str(o, ro->brief ? "\t\t\tCall graph\n\n" : "\t\t     Call graph (explanation follows)\n\n");
  granularity(&r);
  if (print_time > 0.0) {
    /* gprof's words, but the unit of a count event */
    lgp_out_printf(o, " for %.2f%% of %.2f %s\n\n", 100.0 * one_sample(&r) / print_time,
                   print_time / r.hz, stack_event(&r) != NULL ? p->gmon->dimen : "seconds");
  } else {
    lgp_out_str(o, " no time propagated\n\n");
    print_time = 1.0;
  }
  if (ro->bsd) {
    lgp_out_printf(o, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
                   "", "", "", "", "called", "total", "parents");
    lgp_out_printf(o, "%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n",
                   "index", counts_events(&r) ? "%shr" : "%time", "self", "descendants", "called", "self", "name", "index");
    lgp_out_printf(o, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
                   "", "", "", "", "called", "total", "children");
    lgp_out_char(o, '\n');
  } else if (counts_events(&r)) {
    lgp_out_str(o, "index %share    self  children    called     name\n");
  } else {
    lgp_out_str(o, "index % time    self  children    called     name\n");
  }
  for (k = 0; k < nent; k++) {
    uint32_t s = ent[k];
    int ahead;
    for (ahead = 1; ahead <= 4; ahead++)
      if (k + (size_t)ahead < nent)
        prefetch_lists(&r, ent[k + (size_t)ahead], ahead);
    if (p->graph.nodes[s].is_cycle)
      print_cycle_entry(&r, s, print_time, &b);
    else
      print_entry(&r, s, print_time, &b);
    if (ro->bsd)
      lgp_out_char(o, '\n');
    lgp_out_str(o, "-----------------------------------------------\n");
    if (ro->bsd)
      lgp_out_char(o, '\n');
  }
  free(b.v);
  free(b.keys);
  free(b.tmp);
  free(r.rn);
  free(ent);
  lgp_out_free(&arena);
  if (!ro->bsd && !ro->brief)
    lgp_report_callg_blurb(o, p, 0);
}

/* }====================================================== */

int lgp_report_gprof(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro) {
  if (ro->bsd) {
    if (ro->graph)
      lgp_report_graph(o, p, nm, ro);
    if (ro->flat)
      lgp_report_flat(o, p, nm, ro);
  } else {
    if (ro->flat)
      lgp_report_flat(o, p, nm, ro);
    if (ro->graph)
      lgp_report_graph(o, p, nm, ro);
  }
  if (ro->graph)
    lgp_report_index(o, p, nm, ro);
  return lgp_out_flush(o);
}
