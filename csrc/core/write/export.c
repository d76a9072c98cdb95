/*
** export.c: callgrind, JSON and CSV writers (folded stacks: folded.c, over
** analyse/stacks.c's walk) over an analysed profile or view (removed
** functions are skipped). Every writer is one pass over the functions and
** one over the arcs.
**
** Units: JSON and CSV in seconds (as the Lua API; numbers written so that
** they read back as the same doubles), callgrind in integer nanoseconds
** (event Time_ns), folded stacks in integer microseconds. A perf.data
** event that is not time (page-faults ...) is counted instead: its
** "seconds" are counts of it, callgrind's cost is the count (an event
** named after it), and JSON's units and CSV's last column say so.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/stackprofile.h"
#include "util/hashtab.h"
#include "write/export_int.h"

void lgp_export_opts_init(lgp_export_opts *eo) {
  memset(eo, 0, sizeof *eo);
  eo->max_depth = 64;
  eo->min_weight = 1e-4;
}

/* {====================================================== shared */

/* The shortest of %.15g and %.17g that reads back as v (integers plain). */
static size_t fmt_num(char *dst, double v) {
  char *end;
  int n;
  if (v != v || v - v != 0.0) /* NaN or infinite: never produced */
    v = 0.0;
  if (v == 0.0) {
    dst[0] = '0';
    return 1;
  }
  if (fabs(v) < 1e15 && v == (double)(long long)v)
    return (size_t)snprintf(dst, 32, "%lld", (long long)v);
  n = snprintf(dst, 32, "%.15g", v);
  if (strtod(dst, &end) != v)
    n = snprintf(dst, 32, "%.17g", v);
  return (size_t)n;
}

static void out_num(lgp_out *o, double v) {
  char buf[32];
  lgp_out_mem(o, buf, fmt_num(buf, v));
}

void lgp_export_out_u64(lgp_out *o, uint64_t v) {
  char buf[32];
  lgp_out_mem(o, buf, lgp_fmt_u64(buf, v, 0, 0));
}

static const char *src_file(const ectx *c, uint32_t s) {
  return c->have_src ? lgp_node_file(c->p, s) : NULL;
}

static int src_line(const ectx *c, uint32_t s) {
  int line = c->have_src ? lgp_node_line(c->p, s) : 0;
  return line > 0 ? line : 0;
}

/* The name a function is written under where names must identify it
** (callgrind, folded): its printed name, followed by its address in
** brackets (" [0x401136]") when another listed function prints the same; newlines (and
** for folded stacks, the frame separator ';') become other characters. */
void lgp_export_label(ectx *c, uint32_t s, lgp_out *b, int folded) {
  size_t len, i, start = b->len;
  const char *name;
  if (s >= c->p->graph.nsyms) {
    char buf[32];
    lgp_out_mem(b, buf, (size_t)(lgp_names_put_cycle(buf, c->p->graph.nodes[s].cyc_num) - buf));
    return;
  }
  name = lgp_names_display_len(c->nm, c->p->graph.nodes, s, &len);
  lgp_out_mem(b, name, len);
  if (c->dup[s]) {
    char buf[48];
    lgp_out_mem(b, buf, (size_t)snprintf(buf, sizeof buf, " [0x%llx]",
                                    (unsigned long long)c->p->graph.nodes[s].addr));
  }
  if (b->failed)
    return;
  for (i = start; i < b->len; i++) {
    if (b->buf[i] == '\n' || b->buf[i] == '\r')
      b->buf[i] = ' ';
    else if (folded && b->buf[i] == ';')
      b->buf[i] = ':';
  }
}

/* dup[s]: another listed function prints the same name (C++ destructors
** and constructors have several symbols of one name; statics of one name
** live in several files). A hash table over the printed names. */
static int mark_dups(ectx *c) {
  size_t n = c->p->graph.nsyms, k;
  lgp_hashtab names = {0};
  if (lgp_hashtab_reserve(&names, n) != 0)
    return -1;
  for (k = 0; k < n; k++) {
    size_t len;
    const char *name;
    lgp_hashpos at;
    uint32_t other;
    if (!c->listed[k])
      continue;
    name = lgp_names_display_len(c->nm, c->p->graph.nodes, (uint32_t)k, &len);
    for (at = lgp_hashtab_probe(&names, lgp_hashtab_hash_bytes(name, len));
         (other = lgp_hashtab_next(&names, &at)) != LGP_HASHTAB_END;) {
      size_t olen;
      const char *oname = lgp_names_display_len(c->nm, c->p->graph.nodes, other, &olen);
      if (olen == len && memcmp(oname, name, len) == 0) {
        c->dup[other] = c->dup[k] = 1;
        break;
      }
    }
    if (other == LGP_HASHTAB_END)
      lgp_hashtab_put(&names, &at, (uint32_t)k);
  }
  lgp_hashtab_free(&names);
  return 0;
}

static int ctx_init(ectx *c, lgp_out *o, const lgp_profile *p, lgp_names *nm,
                    const lgp_export_opts *eo, int want_src, int want_dup) {
  size_t n = p->graph.nsyms, k;
  uint8_t *has_arc;
  memset(c, 0, sizeof *c);
  c->o = o;
  c->p = p;
  c->nm = nm;
  c->eo = eo;
  c->listed = lgp_calloc_array(n ? n : 1, 1);
  c->dup = lgp_calloc_array(n ? n : 1, 1);
  has_arc = lgp_calloc_array(n ? n : 1, 1);
  if (c->listed == NULL || c->dup == NULL || has_arc == NULL) {
    free(has_arc);
    return -1;
  }
  for (k = 0; k < p->graph.arcs.narcs; k++)
    if (!lgp_arc_hidden(p, (uint32_t)k)) {
      has_arc[p->graph.arcs.arcs[k].parent] = 1;
      has_arc[p->graph.arcs.arcs[k].child] = 1;
    }
  for (k = 0; k < n; k++) {
    const lgp_node *nd = &p->graph.nodes[k];
    c->listed[k] = !lgp_removed(p, (uint32_t)k) &&
                   (eo->zeros || nd->hist_time != 0.0 || nd->ncalls != 0 ||
                    nd->self_calls != 0 || has_arc[k]);
  }
  free(has_arc);
  if (want_dup && mark_dups(c) != 0)
    return -1;
  if (want_src) {
    lgp_err err = {0, {0}};
    if (eo->sources != NULL)
      lgp_sources_load_srcinfo(eo->sources, &err);
    c->have_src = p->image->srcinfo_state == 1;
  }
  return 0;
}

static void ctx_free(ectx *c) {
  free(c->listed);
  free(c->dup);
  lgp_out_free(&c->scratch);
}

/* }====================================================== */

/* {====================================================== callgrind */

const char *lgp_export_count_event(const lgp_profile *p) {
  const lgp_stackprof *sp = lgp_stacks_of(p);
  if (sp == NULL || sp->is_time || sp->tab.nevents == 0)
    return NULL;
  return sp->tab.events[0].name != NULL ? sp->tab.events[0].name : "events";
}

/* Rounded half up (what callgrind's integer costs hold). */
unsigned long long lgp_export_cost_of(const lgp_profile *p, double ticks) {
  double v = lgp_seconds(p, ticks) * (lgp_export_count_event(p) != NULL ? 1.0 : 1e9);
  return v > 0.0 ? (unsigned long long)floor(v + 0.5) : 0;
}

/* An event's name as a callgrind event name: letters, digits and '_'
** (anything else, from the recording, becomes '_'), not starting with a
** digit. */
static void cg_event_name(lgp_out *o, const char *name) {
  const char *q;
  if (*name == '\0' || (*name >= '0' && *name <= '9'))
    lgp_out_char(o, '_');
  for (q = name; *q != '\0'; q++) {
    char ch = *q;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    lgp_out_char(o, ok ? ch : '_');
  }
}

static void cg_name(ectx *c, uint32_t s) {
  c->scratch.len = 0;
  lgp_export_label(c, s, &c->scratch, 0);
  lgp_out_mem(c->o, c->scratch.buf, c->scratch.len);
}

/* "fl=(id) name" the first time, "fl=(id)" later; unknown files are "???".
** The name is absolute where DWARF gives a compilation directory, so that
** callgrind_annotate and KCachegrind find the source from anywhere. */
void lgp_export_cg_file_id(ectx *c, const char *key, int32_t file, uint8_t *file_seen) {
  const lgp_image *im = c->p->image;
  size_t id = c->have_src && file >= 0 && (size_t)file < im->nfiles ? (size_t)file + 1 : 0;
  lgp_out_str(c->o, key);
  lgp_out_printf(c->o, "(%zu)", id + 1);
  if (!file_seen[id]) {
    file_seen[id] = 1;
    lgp_out_char(c->o, ' ');
    if (id == 0)
      lgp_out_str(c->o, "???");
    else if (im->file_paths != NULL && im->file_paths[id - 1] != NULL)
      lgp_out_str(c->o, im->file_paths[id - 1]);
    else
      lgp_out_str(c->o, im->files[id - 1]);
  }
  lgp_out_char(c->o, '\n');
}

int32_t lgp_export_node_file(const ectx *c, uint32_t s) {
  return c->have_src && s < c->p->graph.nsyms ? c->p->image->syms[s].file : -1;
}

static void cg_file(ectx *c, const char *key, uint32_t s, uint8_t *file_seen) {
  lgp_export_cg_file_id(c, key, lgp_export_node_file(c, s), file_seen);
}

static void cg_fn(ectx *c, const char *key, uint32_t s, uint8_t *fn_seen) {
  lgp_out_str(c->o, key);
  lgp_out_printf(c->o, "(%u)", (unsigned)s + 1);
  if (!fn_seen[s]) {
    fn_seen[s] = 1;
    lgp_out_char(c->o, ' ');
    cg_name(c, s);
  }
  lgp_out_char(c->o, '\n');
}

static int write_callgrind(ectx *c) {
  lgp_out *o = c->o;
  const lgp_profile *p = c->p;
  const lgp_stackprof *sp = lgp_stacks_of(p);
  const char *event = lgp_export_count_event(p);
  size_t s, g, nfiles = c->have_src ? c->p->image->nfiles : 0;
  unsigned long long total;
  uint8_t *file_seen = lgp_calloc_array(nfiles + 1, 1);
  uint8_t *fn_seen = lgp_calloc_array(p->graph.nsyms ? p->graph.nsyms : 1, 1);
  if (file_seen == NULL || fn_seen == NULL) {
    free(file_seen);
    free(fn_seen);
    return -1;
  }
  /* the flat profile's total (its % time denominator); gprof may credit a
     histogram bin that straddles two functions to both, so the functions'
     costs can add up to a little more */
  total = lgp_export_cost_of(p, p->graph.total_time);
  lgp_out_str(o, "# callgrind format\nversion: 1\n");
  if (c->eo->creator != NULL)
    lgp_out_printf(o, "creator: %s\n", c->eo->creator);
  lgp_out_printf(o, "cmd: %s\n", c->p->image->path);
  lgp_out_str(o, "part: 1\n");
  lgp_out_str(o, "desc: Profile files:");
  if (sp != NULL && sp->tab.recording != NULL)
    lgp_out_printf(o, " %s", sp->tab.recording);
  for (g = 0; sp == NULL && g < p->gmon->nfiles; g++)
    lgp_out_printf(o, " %s", p->gmon->files[g].path);
  lgp_out_char(o, '\n');
  if (event != NULL) { /* no rate: the event's name, control bytes as '?' */
    const char *q;
    lgp_out_str(o, "desc: Event: ");
    for (q = event; *q != '\0'; q++)
      lgp_out_char(o, (unsigned char)*q < 0x20 || *q == 0x7f ? '?' : *q);
    lgp_out_printf(o, " (not time: costs are counts of it), mean %.6g per sample\n",
                   lgp_sample_period(p));
  } else
    lgp_out_printf(o, "desc: Sampling rate: %s%u Hz\n", sp != NULL ? "mean " : "",
                   (unsigned)lgp_sample_rate(p));
  if (lgp_is_view(p))
    lgp_out_str(o, "desc: Filtered view: yes\n");
  if (sp != NULL && !sp->has_calls)
    lgp_out_str(o, "desc: Call costs: measured (stacks recorded in perf.data); a sampler "
                   "counts no call: calls= holds the samples through the caller-callee pair; "
                   "0 inside a cycle\n");
  else if (sp != NULL)
    lgp_out_str(o, "desc: Call costs: measured (stacks recorded in perf.data); calls= counts "
                   "the samples through the call (gmon.out counts the calls); 0 for calls "
                   "inside a cycle\n");
  else
    lgp_out_str(o, "desc: Call costs: gprof's estimate (callee time apportioned by call "
                   "counts); 0 for calls inside a cycle\n");
  lgp_out_str(o, "positions: line\n");
  if (event != NULL) { /* the event's counts; its name as the recording spells it in desc */
    lgp_out_str(o, "event: ");
    cg_event_name(o, event);
    lgp_out_str(o, " : Sampled events (counts)\nevents: ");
    cg_event_name(o, event);
    lgp_out_char(o, '\n');
  } else {
    lgp_out_str(o, "event: Time_ns : Sampled CPU time (nanoseconds)\n");
    lgp_out_str(o, "events: Time_ns\n");
  }
  lgp_out_printf(o, "summary: %llu\n\n", total);
  lgp_out_str(o, "ob=(1) ");
  lgp_out_str(o, c->p->image->path);
  lgp_out_char(o, '\n');
  for (s = 0; s < p->graph.nsyms && !o->failed; s++) {
    const uint32_t *a;
    int line = src_line(c, (uint32_t)s);
    if (!c->listed[s])
      continue;
    lgp_out_char(o, '\n');
    cg_file(c, "fl=", (uint32_t)s, file_seen);
    cg_fn(c, "fn=", (uint32_t)s, fn_seen);
    if (c->eo->lines != NULL)
      lgp_export_cg_lines(c, (uint32_t)s, line, file_seen);
    else
      lgp_out_printf(o, "%d %llu\n", line, lgp_export_cost_of(p, p->graph.nodes[s].hist_time));
    for (a = lgp_children_begin(&p->graph, s); a < lgp_children_end(&p->graph, s); a++) {
      const lgp_arc *arc = &p->graph.arcs.arcs[*a];
      int in_cycle = lgp_arc_untimed(&p->graph, arc);
      if (lgp_arc_hidden(p, *a))
        continue;
      cg_file(c, "cfl=", arc->child, file_seen);
      cg_fn(c, "cfn=", arc->child, fn_seen);
      lgp_out_str(o, "calls=");
      lgp_export_out_u64(o, arc->count);
      lgp_out_printf(o, " %d\n%d %llu\n", src_line(c, arc->child), line,
                     in_cycle ? 0ULL : lgp_export_cost_of(p, arc->time + arc->child_time));
    }
  }
  lgp_out_printf(o, "\ntotals: %llu\n", total);
  free(file_seen);
  free(fn_seen);
  return 0;
}

/* }====================================================== */

/* {====================================================== JSON */

void lgp_export_json_key(lgp_out *o, const char *k) {
  lgp_out_char(o, '"');
  lgp_out_str(o, k);
  lgp_out_str(o, "\":");
}

void lgp_export_json_num(lgp_out *o, const char *k, double v) {
  lgp_export_json_key(o, k);
  out_num(o, v);
  lgp_out_char(o, ',');
}

void lgp_export_json_u64(lgp_out *o, const char *k, uint64_t v) {
  lgp_export_json_key(o, k);
  lgp_export_out_u64(o, v);
  lgp_out_char(o, ',');
}

/* A call count, or null where calls were not recorded (sampled stacks:
** their arcs' counts are the samples through them, not calls). */
static void json_count(lgp_out *o, const lgp_profile *p, const char *k, uint64_t v) {
  if (lgp_stacks_of(p) == NULL) {
    lgp_export_json_u64(o, k, v);
  } else {
    lgp_export_json_key(o, k);
    lgp_out_str(o, "null,");
  }
}

void lgp_export_json_bool(lgp_out *o, const char *k, int v) {
  lgp_export_json_key(o, k);
  lgp_out_str(o, v ? "true," : "false,");
}

static double percent(const lgp_profile *p, const lgp_node *n) {
  double print_time = p->graph.print_time > 0 ? p->graph.print_time : 1.0;
  return 100 * (n->prop_self + n->prop_child) / print_time;
}

/* the fields of a Function and a Cycle that gprof's call graph shows */
static void json_times(lgp_out *o, const lgp_profile *p, const lgp_node *n) {
  lgp_export_json_num(o, "self", lgp_seconds(p, n->prop_self));
  lgp_export_json_num(o, "children", lgp_seconds(p, n->prop_child));
  lgp_export_json_num(o, "total", lgp_seconds(p, n->prop_self + n->prop_child));
  lgp_export_json_num(o, "percent", percent(p, n));
}

/* node s's upper bound (computed when the bounds were built) */
static double ex_max(ectx *c, uint32_t s, int *exact) {
  double max = 0.0;
  lgp_bounds_max(c->bounds, s, &max, exact);
  return max;
}

/* version 3: the sampling error and the attribution bounds of node s */
static void json_trust(ectx *c, uint32_t s) {
  const lgp_profile *p = c->p;
  int exact;
  lgp_export_json_num(c->o, "samples", lgp_self_samples(p, s));
  lgp_export_json_num(c->o, "self_error", lgp_self_error(p, s));
  lgp_export_json_num(c->o, "total_min", lgp_seconds(p, lgp_bounds_min(c->bounds, s)));
  lgp_export_json_num(c->o, "total_max", lgp_seconds(p, ex_max(c, s, &exact)));
  lgp_export_json_bool(c->o, "total_max_exact", exact);
  lgp_export_json_bool(c->o, "is_spontaneous", lgp_bounds_spontaneous(c->bounds, s));
}

static const char json_estimated[] =
  "\"estimated\":{\"propagated_times_are_estimates\":true,"
  "\"method\":\"call_count_apportioning\","
  "\"fields\":[\"functions.children\",\"functions.total\",\"functions.percent\","
  "\"arcs.self\",\"arcs.children\",\"cycles.children\",\"cycles.total\",\"cycles.percent\"],"
  "\"note\":\"gprof's model: a function's time is charged to its callers in proportion "
  "to the calls each made, as if every call cost the same; arcs inside a cycle carry "
  "none. Self times (flat_self, self) and call counts are measured.\"},\n"
  "\"bounds\":{\"fields\":[\"functions.total_min\",\"functions.total_max\","
  "\"cycles.total_min\",\"cycles.total_max\",\"arcs.is_estimated\"],"
  "\"note\":\"whatever each call really cost, total lies in [total_min, total_max]: self plus "
  "the self of what only this function leads to, and self plus the self of all it reaches "
  "(cycles as units; a cycle member's total_min is its self; total_max_exact false: a looser "
  "sound bound, on graphs too large for exact sums). Below an is_spontaneous root "
  "the lower bounds assume nothing unprofiled calls in. self_error is sqrt(samples) "
  "sample periods.\"},\n";

/* A perf.data's profile: its stacks were recorded, nothing is propagated. */
static const char json_measured[] =
  "\"estimated\":{\"propagated_times_are_estimates\":false,"
  "\"method\":\"recorded_stacks\",\"fields\":[],"
  "\"note\":\"each sample is a stack recorded in perf.data: self, total and caller-callee "
  "times are measured (sampled); a sampler counts no call (the call-count fields are null).\"},\n"
  "\"bounds\":{\"fields\":[\"functions.total_min\",\"functions.total_max\","
  "\"cycles.total_min\",\"cycles.total_max\",\"arcs.is_estimated\"],"
  "\"note\":\"measured stacks: total_min and total_max are the total. self_error is "
  "sqrt(samples) sample periods.\"},\n";

/* The same with gmon.out's calls: only the note differs. */
static const char json_measured_calls[] =
  "\"estimated\":{\"propagated_times_are_estimates\":false,"
  "\"method\":\"recorded_stacks\",\"fields\":[],"
  "\"note\":\"each sample is a stack recorded in perf.data: self, total and arc times are "
  "measured (sampled); calls are counted by gmon.out.\"},\n"
  "\"bounds\":{\"fields\":[\"functions.total_min\",\"functions.total_max\","
  "\"cycles.total_min\",\"cycles.total_max\",\"arcs.is_estimated\"],"
  "\"note\":\"measured stacks: total_min and total_max are the total. self_error is "
  "sqrt(samples) sample periods.\"},\n";

/* A perf.data function's binary (tab function of node s), or NULL for a
** gmon.out profile's, whose functions are all the executable's. */
static const lgp_st_func *stack_func(const lgp_profile *p, uint32_t s) {
  const lgp_stackprof *sp = lgp_stacks_of(p);
  return sp != NULL ? &sp->tab.funcs[sp->func_of[s]] : NULL;
}

/* Node s's address and size as its binary has them: a perf.data's nodes
** are laid out at positions of their own (the binaries' ranges overlap),
** its functions start where their symbol or FDE does. */
static lgp_addr node_address(const lgp_profile *p, uint32_t s) {
  return p->image->shown_addr != NULL ? p->image->shown_addr[s] : p->graph.nodes[s].addr;
}

static uint64_t node_size(const lgp_profile *p, uint32_t s) {
  const lgp_st_func *f = stack_func(p, s);
  const lgp_node *n = &p->graph.nodes[s];
  if (f != NULL)
    return lgp_st_func_size(f);
  return n->end_addr >= n->addr ? n->end_addr - n->addr + 1 : 0;
}

/* A perf.data function's binary, its status and whether it is a function
** of stripped code named after its FDE: the fields the Lua API gives as
** fn.dso, profile:dsos()'s status and fn.is_anonymous. */
static void json_binary(lgp_out *o, const lgp_profile *p, uint32_t s) {
  const lgp_st_func *f = stack_func(p, s);
  const lgp_st_dso *d;
  if (f == NULL)
    return;
  d = &lgp_stacks_of(p)->tab.dsos[f->dso];
  lgp_export_json_key(o, "dso");
  lgp_json_cstr(o, d->path);
  lgp_out_char(o, ',');
  lgp_export_json_key(o, "dso_status");
  lgp_json_cstr(o, lgp_st_dso_status_name(d->status));
  lgp_out_char(o, ',');
  lgp_export_json_bool(o, "is_anonymous", f->is_anonymous);
}

static int write_json(ectx *c) {
  lgp_out *o = c->o;
  const lgp_profile *p = c->p;
  size_t i, k, nlisted = 0, total = p->graph.nsyms + p->graph.ncycles;
  int first;
  for (i = 0; i < p->graph.nsyms; i++)
    nlisted += c->listed[i];
  const lgp_stackprof *sp = lgp_stacks_of(p);
  lgp_out_str(o, "{\"format\":\"lgprof-profile\",\"version\":4,");
  lgp_export_json_key(o, "creator");
  lgp_json_cstr(o, c->eo->creator);
  lgp_out_char(o, ',');
  lgp_export_json_key(o, "source"); /* what the samples are: gmon.out's or perf.data's */
  lgp_json_cstr(o, sp == NULL ? "gmon" : sp->has_calls ? "perf.data+gmon" : "perf.data");
  lgp_out_str(o, ",\n");
  lgp_export_json_key(o, "image");
  lgp_json_cstr(o, c->p->image->path);
  lgp_out_char(o, ',');
  if (sp != NULL && sp->command != NULL) { /* the recorded command, whose executable image is */
    lgp_export_json_key(o, "command");
    lgp_json_cstr(o, sp->command);
    lgp_out_char(o, ',');
  }
  lgp_export_json_key(o, "profile_files");
  lgp_out_char(o, '[');
  if (sp != NULL && sp->tab.recording != NULL)
    lgp_json_cstr(o, sp->tab.recording);
  for (i = 0; sp == NULL && i < p->gmon->nfiles; i++) {
    if (i > 0)
      lgp_out_char(o, ',');
    lgp_json_cstr(o, p->gmon->files[i].path);
  }
  lgp_out_str(o, "],");
  if (sp != NULL) { /* the binaries the recording's frames resolved to */
    lgp_export_json_key(o, "binaries");
    lgp_out_char(o, '[');
    for (i = 0; i < sp->tab.ndsos; i++) {
      if (i > 0)
        lgp_out_char(o, ',');
      lgp_json_cstr(o, sp->tab.dsos[i].path);
    }
    lgp_out_str(o, "],");
  }
  lgp_export_json_bool(o, "is_view", lgp_is_view(p));
  lgp_export_json_u64(o, "hz", lgp_sample_rate(p));
  lgp_export_json_num(o, "sample_period", lgp_sample_period(p));
  if (lgp_export_count_event(p) != NULL) { /* the "seconds" are counts of the event */
    lgp_out_str(o, "\n\"units\":{\"time\":\"events\",\"event\":");
    lgp_json_cstr(o, lgp_export_count_event(p));
    lgp_out_str(o, ",\"percent\":\"percent\","
                   "\"calls\":\"count\",\"address\":\"byte address\"},\n");
  } else
    lgp_out_str(o, "\n\"units\":{\"time\":\"seconds\",\"percent\":\"percent\","
                   "\"calls\":\"count\",\"address\":\"byte address\"},\n");
  lgp_out_str(o, "\"totals\":{");
  lgp_export_json_num(o, "time", lgp_seconds(p, p->graph.total_time));
  lgp_export_json_num(o, "call_graph_time", lgp_seconds(p, p->graph.print_time));
  lgp_export_json_num(o, "base_time", lgp_seconds(p, lgp_is_view(p) ? p->base_time : p->graph.total_time));
  lgp_export_json_u64(o, "samples", sp != NULL ? sp->samples : lgp_gmon_sample_count(p->gmon));
  lgp_export_json_u64(o, "functions", nlisted);
  lgp_export_json_u64(o, "arcs", lgp_profile_arc_count(p));
  lgp_export_json_key(o, "cycles");
  lgp_export_out_u64(o, p->graph.ncycles);
  lgp_out_str(o, "},\n");
  lgp_out_str(o, sp == NULL ? json_estimated : sp->has_calls ? json_measured_calls : json_measured);
  lgp_out_str(o, "\"functions\":[");
  first = 1;
  for (i = 0; i < total && !o->failed; i++) {
    uint32_t s = p->graph.time_sorted[i];
    const lgp_node *n = &p->graph.nodes[s];
    size_t len;
    const char *name;
    if (s >= p->graph.nsyms || !c->listed[s])
      continue;
    lgp_out_str(o, first ? "\n{" : ",\n{");
    first = 0;
    lgp_export_json_u64(o, "index", n->index);
    name = lgp_names_display_len(c->nm, p->graph.nodes, s, &len);
    lgp_export_json_key(o, "name");
    lgp_json_string(o, name, len);
    lgp_out_char(o, ',');
    lgp_export_json_key(o, "symbol");
    lgp_json_cstr(o, n->name);
    lgp_out_char(o, ',');
    lgp_export_json_u64(o, "address", node_address(p, s));
    lgp_export_json_u64(o, "size", node_size(p, s));
    lgp_export_json_key(o, "file");
    lgp_json_cstr(o, src_file(c, s));
    lgp_out_char(o, ',');
    lgp_export_json_key(o, "line");
    if (src_line(c, s) > 0)
      lgp_out_printf(o, "%d,", src_line(c, s));
    else
      lgp_out_str(o, "null,");
    lgp_export_json_bool(o, "is_static", n->is_static);
    json_binary(o, p, s);
    lgp_export_json_num(o, "flat_self", lgp_seconds(p, n->hist_time));
    lgp_export_json_num(o, "flat_percent", p->graph.total_time > 0 ? 100 * n->hist_time / p->graph.total_time : 0.0);
    json_times(o, p, n);
    json_trust(c, s);
    json_count(o, p, "calls", n->ncalls);
    json_count(o, p, "self_calls", n->self_calls);
    json_count(o, p, "member_calls", n->member_calls);
    lgp_export_json_key(o, "cycle");
    if (n->cyc_num != 0)
      lgp_out_printf(o, "%d,", (int)n->cyc_num);
    else
      lgp_out_str(o, "null,");
    lgp_export_json_key(o, "printed"); /* as fn.printed: gprof's call graph (with -z if zeros) prints it */
    lgp_out_str(o, lgp_graph_shows(p, s, !c->eo->zeros) ? "true}" : "false}");
  }
  lgp_out_str(o, "],\n\"arcs\":[");
  first = 1;
  for (k = 0; k < p->graph.arcs.narcs && !o->failed; k++) {
    const lgp_arc *a = &p->graph.arcs.arcs[k];
    const lgp_node *pn = &p->graph.nodes[a->parent], *cn = &p->graph.nodes[a->child];
    if (!c->listed[a->parent] || !c->listed[a->child] || lgp_arc_hidden(p, (uint32_t)k))
      continue;
    lgp_out_str(o, first ? "\n{" : ",\n{");
    first = 0;
    lgp_export_json_u64(o, "caller", pn->index);
    lgp_export_json_u64(o, "callee", cn->index);
    json_count(o, p, "count", a->count);
    lgp_export_json_num(o, "self", lgp_seconds(p, a->time));
    lgp_export_json_num(o, "children", lgp_seconds(p, a->child_time));
    lgp_export_json_bool(o, "is_recursive", a->parent == a->child);
    lgp_export_json_bool(o, "is_static", a->is_static);
    lgp_export_json_bool(o, "is_tail", a->is_tail);
    lgp_export_json_bool(o, "is_estimated", lgp_bounds_arc_estimated(c->bounds, (uint32_t)k));
    lgp_export_json_key(o, "in_cycle");
    lgp_out_str(o, lgp_arc_in_cycle(&p->graph, a) ? "true}" : "false}");
  }
  lgp_out_str(o, "],\n\"cycles\":[");
  for (i = p->graph.nsyms; i < total && !o->failed; i++) {
    const lgp_node *n = &p->graph.nodes[i];
    uint32_t m;
    char cname[32];
    lgp_out_str(o, i == p->graph.nsyms ? "\n{" : ",\n{");
    lgp_export_json_u64(o, "number", (uint64_t)n->cyc_num);
    lgp_export_json_u64(o, "index", n->index);
    lgp_export_json_key(o, "name");
    lgp_out_char(o, '"');
    lgp_out_mem(o, cname, (size_t)(lgp_names_put_cycle(cname, n->cyc_num) - cname));
    lgp_out_str(o, "\",");
    json_times(o, p, n);
    json_trust(c, (uint32_t)i);
    json_count(o, p, "calls", n->ncalls);
    json_count(o, p, "internal_calls", n->self_calls);
    lgp_export_json_key(o, "members");
    lgp_out_char(o, '[');
    for (m = n->cyc_next; m != LGP_NONE; m = p->graph.nodes[m].cyc_next) {
      if (m != n->cyc_next)
        lgp_out_char(o, ',');
      lgp_out_str(o, "{\"index\":");
      lgp_export_out_u64(o, p->graph.nodes[m].index);
      lgp_out_str(o, ",\"calls_from_members\":");
      if (lgp_stacks_of(p) != NULL)
        lgp_out_str(o, "null");
      else
        lgp_export_out_u64(o, p->graph.nodes[m].member_calls);
      lgp_out_char(o, '}');
    }
    lgp_out_str(o, "]}");
  }
  lgp_out_char(o, ']');
  if (c->eo->lines != NULL)
    lgp_export_json_lines(c);
  if (c->eo->sample_times && lgp_export_json_sample_times(c) != 0)
    return -1;
  lgp_out_str(o, "}\n");
  return 0;
}

/* }====================================================== */

/* {====================================================== CSV (RFC 4180) */

void lgp_export_csv_str(lgp_out *o, const char *s, size_t len) {
  size_t i;
  int quote = 0;
  for (i = 0; i < len && !quote; i++)
    quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
  if (!quote) {
    lgp_out_mem(o, s, len);
    return;
  }
  lgp_out_char(o, '"');
  for (i = 0; i < len; i++) {
    if (s[i] == '"')
      lgp_out_char(o, '"');
    lgp_out_char(o, s[i]);
  }
  lgp_out_char(o, '"');
}

static void csv_name(ectx *c, uint32_t s) {
  size_t len;
  const char *name = lgp_names_display_len(c->nm, c->p->graph.nodes, s, &len);
  lgp_export_csv_str(c->o, name, len);
}

/* A CSV field and its separator. */
void lgp_export_num_field(lgp_out *o, double v) {
  out_num(o, v);
  lgp_out_char(o, ',');
}

void lgp_export_num_field_last(lgp_out *o, double v) { out_num(o, v); }

static void u64_field(lgp_out *o, uint64_t v) {
  lgp_export_out_u64(o, v);
  lgp_out_char(o, ',');
}

/* A call count, blank where calls were not recorded (see json_count). */
static void count_field(lgp_out *o, const lgp_profile *p, uint64_t v) {
  if (lgp_stacks_of(p) == NULL)
    lgp_export_out_u64(o, v);
  lgp_out_char(o, ',');
}

void lgp_export_csv_addr(lgp_out *o, lgp_addr a) {
  lgp_out_printf(o, "0x%llx", (unsigned long long)a);
}

/* For an event that is not time, a last column "unit": the event whose
** counts the *_seconds columns hold (added, not renamed: readers by name
** or position keep working). The header's end, and a row's. */
void lgp_export_csv_unit_head(const ectx *c) {
  lgp_out_str(c->o, lgp_export_count_event(c->p) != NULL ? ",unit\r\n" : "\r\n");
}

void lgp_export_csv_unit_field(const ectx *c) {
  const char *event = lgp_export_count_event(c->p);
  if (event == NULL)
    return;
  lgp_out_char(c->o, ',');
  lgp_export_csv_str(c->o, event, strlen(event));
}

/* json_binary's fields as CSV columns (each after a comma) */
static void csv_binary(lgp_out *o, const lgp_profile *p, uint32_t s) {
  const lgp_st_func *f = stack_func(p, s);
  const lgp_st_dso *d;
  const char *status;
  if (f == NULL)
    return;
  d = &lgp_stacks_of(p)->tab.dsos[f->dso];
  status = lgp_st_dso_status_name(d->status);
  lgp_out_char(o, ',');
  lgp_export_csv_str(o, d->path, strlen(d->path));
  lgp_out_char(o, ',');
  lgp_export_csv_str(o, status, strlen(status));
  lgp_out_str(o, f->is_anonymous ? ",1" : ",0");
}

static void write_csv_flat(ectx *c) {
  lgp_out *o = c->o;
  const lgp_profile *p = c->p;
  size_t i;
  uint64_t rank = 0;
  double cum = 0.0;
  lgp_out_str(o, "rank,name,file,line,address,percent_time,cumulative_seconds,"
                 "self_seconds,calls,self_calls,children_seconds,total_seconds,index,cycle,"
                 "samples,self_error_seconds,total_min_seconds,total_max_seconds");
  if (lgp_stacks_of(p) != NULL) /* a perf.data's: after the others, before unit */
    lgp_out_str(o, ",dso,dso_status,is_anonymous");
  lgp_export_csv_unit_head(c);
  for (i = 0; i < p->graph.nsyms && !o->failed; i++) {
    uint32_t s = p->graph.flat_sorted[i];
    const lgp_node *n = &p->graph.nodes[s];
    const char *file;
    if (!c->listed[s])
      continue;
    cum += lgp_seconds(p, n->hist_time);
    u64_field(o, ++rank);
    csv_name(c, s);
    lgp_out_char(o, ',');
    if ((file = src_file(c, s)) != NULL)
      lgp_export_csv_str(o, file, strlen(file));
    lgp_out_char(o, ',');
    if (src_line(c, s) > 0)
      lgp_out_printf(o, "%d", src_line(c, s));
    lgp_out_char(o, ',');
    lgp_export_csv_addr(o, node_address(p, s));
    lgp_out_char(o, ',');
    lgp_export_num_field(o, p->graph.total_time > 0 ? 100 * n->hist_time / p->graph.total_time : 0.0);
    lgp_export_num_field(o, cum);
    lgp_export_num_field(o, lgp_seconds(p, n->hist_time));
    count_field(o, p, n->ncalls);
    count_field(o, p, n->self_calls);
    lgp_export_num_field(o, lgp_seconds(p, n->prop_child));
    lgp_export_num_field(o, lgp_seconds(p, n->prop_self + n->prop_child));
    u64_field(o, n->index);
    if (n->cyc_num != 0)
      lgp_out_printf(o, "%d", (int)n->cyc_num);
    lgp_out_char(o, ','); /* version 3's columns, last: readers by position keep working */
    lgp_export_num_field(o, lgp_self_samples(p, s));
    lgp_export_num_field(o, lgp_self_error(p, s));
    lgp_export_num_field(o, lgp_seconds(p, lgp_bounds_min(c->bounds, s)));
    out_num(o, lgp_seconds(p, ex_max(c, s, NULL)));
    csv_binary(o, p, s);
    lgp_export_csv_unit_field(c);
    lgp_out_str(o, "\r\n");
  }
}

static void write_csv_arcs(ectx *c) {
  lgp_out *o = c->o;
  const lgp_profile *p = c->p;
  size_t k;
  lgp_out_str(o, "caller,callee,count,self_seconds,children_seconds,in_cycle,recursive,"
                 "caller_index,callee_index,caller_address,callee_address,is_static,is_tail,"
                 "is_estimated");
  lgp_export_csv_unit_head(c);
  for (k = 0; k < p->graph.arcs.narcs && !o->failed; k++) {
    const lgp_arc *a = &p->graph.arcs.arcs[k];
    const lgp_node *pn = &p->graph.nodes[a->parent], *cn = &p->graph.nodes[a->child];
    if (!c->listed[a->parent] || !c->listed[a->child] || lgp_arc_hidden(p, (uint32_t)k))
      continue;
    csv_name(c, a->parent);
    lgp_out_char(o, ',');
    csv_name(c, a->child);
    lgp_out_char(o, ',');
    count_field(o, p, a->count);
    lgp_export_num_field(o, lgp_seconds(p, a->time));
    out_num(o, lgp_seconds(p, a->child_time));
    lgp_out_str(o, lgp_arc_in_cycle(&p->graph, a) ? ",1," : ",0,");
    lgp_out_str(o, a->parent == a->child ? "1," : "0,");
    lgp_export_out_u64(o, pn->index);
    lgp_out_char(o, ',');
    lgp_export_out_u64(o, cn->index);
    lgp_out_char(o, ',');
    lgp_export_csv_addr(o, node_address(p, a->parent));
    lgp_out_char(o, ',');
    lgp_export_csv_addr(o, node_address(p, a->child));
    lgp_out_str(o, a->is_static ? ",1" : ",0");
    lgp_out_str(o, a->is_tail ? ",1" : ",0");
    lgp_out_str(o, lgp_bounds_arc_estimated(c->bounds, (uint32_t)k) ? ",1" : ",0");
    lgp_export_csv_unit_field(c);
    lgp_out_str(o, "\r\n");
  }
}

/* }====================================================== */


int lgp_export_shared_names(const lgp_profile *p, lgp_names *nm, uint8_t *shared) {
  lgp_export_opts eo;
  ectx c;
  lgp_export_opts_init(&eo);
  eo.format = LGP_EXPORT_FOLDED;
  if (ctx_init(&c, NULL, p, nm, &eo, 0, 1) != 0) {
    ctx_free(&c);
    return -1;
  }
  memcpy(shared, c.dup, p->graph.nsyms);
  ctx_free(&c);
  return 0;
}

int lgp_export(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_export_opts *eo,
               lgp_err *err) {
  ectx c;
  int rc = 0;
  if (eo->format < LGP_EXPORT_CALLGRIND || eo->format > LGP_EXPORT_FOLDED)
    return lgp_fail(err, NULL, "unknown export format %d", eo->format);
  if (ctx_init(&c, o, p, nm, eo, eo->format != LGP_EXPORT_FOLDED,
               eo->format == LGP_EXPORT_CALLGRIND || eo->format == LGP_EXPORT_FOLDED) != 0) {
    ctx_free(&c);
    return lgp_fail(err, NULL, "out of memory");
  }
  if (eo->format == LGP_EXPORT_JSON || eo->format == LGP_EXPORT_CSV_FLAT ||
      eo->format == LGP_EXPORT_CSV_ARCS) {
    c.bounds = malloc(sizeof *c.bounds);
    if (c.bounds == NULL || lgp_bounds_build(c.bounds, p) != 0) {
      free(c.bounds);
      ctx_free(&c);
      return lgp_fail(err, NULL, "out of memory");
    }
    if (lgp_bounds_upper(c.bounds) != 0) {
      lgp_bounds_free(c.bounds);
      free(c.bounds);
      ctx_free(&c);
      return lgp_fail(err, NULL, "out of memory");
    }
  }
  switch (eo->format) {
  case LGP_EXPORT_CALLGRIND: rc = write_callgrind(&c); break;
  case LGP_EXPORT_JSON: rc = write_json(&c); break;
  case LGP_EXPORT_CSV_FLAT:
    if (eo->lines != NULL)
      lgp_export_csv_lines(&c);
    else
      write_csv_flat(&c);
    break;
  case LGP_EXPORT_CSV_ARCS: write_csv_arcs(&c); break;
  default: rc = lgp_export_write_folded(&c); break; /* LGP_EXPORT_FOLDED */
  }
  rc = rc != 0 || c.scratch.failed ? -1 : 0;
  if (c.bounds != NULL) {
    lgp_bounds_free(c.bounds);
    free(c.bounds);
  }
  ctx_free(&c);
  if (rc != 0)
    return lgp_fail(err, NULL, "out of memory");
  if (lgp_out_flush(o) != 0 || o->failed)
    return lgp_fail(err, NULL, "write error");
  return 0;
}
