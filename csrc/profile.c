/*
** profile.c: the pipeline from files to an analysed profile.
*/
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* A histogram that covers no routine of the executable means the profile
** belongs to another program: say so rather than print an empty report. */
static int check_hist_range(lgp_profile *p, const char *gmon, lgp_err *err) {
  size_t i;
  lgp_addr lo, hi;
  if (p->nsyms == 0)
    return 0;
  lo = p->nodes[0].addr;
  hi = p->image.text_vma + p->image.text_size;
  for (i = 0; i < p->gmon.nhist; i++) {
    const lgp_hist *h = &p->gmon.hist[i];
    if (h->high <= lo || h->low >= hi)
      return lgp_fail(err, gmon, "histogram range 0x%llx-0x%llx lies outside the "
                      "executable's text (0x%llx-0x%llx): profile of another program?",
                      (unsigned long long)h->low, (unsigned long long)h->high,
                      (unsigned long long)lo, (unsigned long long)hi);
  }
  return 0;
}

int lgp_profile_open(lgp_profile *p, const char *exe, const char *const *gmons,
                     size_t ngmons, const lgp_options *opts, lgp_err *err) {
  lgp_image_opts io;
  size_t i;
  memset(p, 0, sizeof *p);
  memset(&io, 0, sizeof io);
  io.no_static = opts->no_static;
  io.functions_only = opts->functions_only;
  /* DWARF is slow to read and the report needs it only for specs naming
     files or lines and for -s; the Lua API reads it on demand */
  io.srcinfo = !opts->no_srcinfo && (opts->line_arcs || lgp_specs_need_srcinfo(opts));
  if (lgp_image_open(&p->image, exe, &io, err) != 0)
    return -1;
  if (opts->no_srcinfo)
    p->image.srcinfo_state = -1;
  lgp_gmon_init(&p->gmon, p->image.addr_bytes, p->image.big_endian);
  if (lgp_symtab_build(p, err) != 0 || lgp_specs_apply(p, opts, err) != 0)
    goto fail;
  p->keep_line_arcs = opts->line_arcs;
  p->gmon.sink = lgp_cg_tally;
  p->gmon.sink_ctx = p;
  for (i = 0; i < ngmons; i++) {
    size_t before = p->gmon.nhist;
    if (lgp_gmon_read(&p->gmon, gmons[i], opts->format, err) != 0)
      goto fail;
    if (p->gmon.nhist != before && check_hist_range(p, gmons[i], err) != 0)
      goto fail;
  }
  if (p->gmon.have_hist)
    lgp_hist_assign(p);
  if (lgp_cg_assemble(p, err) != 0 || lgp_flat_order(p, err) != 0)
    goto fail;
  p->analysed = 1;
  p->base_time = p->total_time;
  return 0;
fail:
  lgp_profile_free(p);
  return -1;
}

int lgp_profile_srcinfo(lgp_profile *p, lgp_err *err) {
  lgp_profile *root = (lgp_profile *)(p->base ? p->base : p);
  size_t i;
  if (root->image.srcinfo_state == 1)
    return 0;
  if (lgp_image_load_srcinfo(&root->image, err) != 0)
    return -1;
  /* symtab_build left the surviving raw symbols first, in node order */
  for (i = 0; i < root->nsyms; i++) {
    root->nodes[i].file = root->image.syms[i].file;
    root->nodes[i].line = root->image.syms[i].line;
  }
  return 0;
}

void lgp_profile_free(lgp_profile *p) {
  if (p->base == NULL) { /* a view borrows these */
    lgp_profile_free_specs(p);
    lgp_image_free(&p->image);
    lgp_gmon_free(&p->gmon);
  }
  free(p->removed);
  free(p->nodes);
  free(p->sym_addrs);
  free(p->sym_is_func);
  free(p->bucket_first);
  free(p->arcs);
  free(p->arc_slots);
  free(p->child_off);
  free(p->child_arcs);
  free(p->parent_off);
  free(p->parent_arcs);
  free(p->top_sorted);
  free(p->time_sorted);
  free(p->flat_sorted);
  free(p->name_rank);
  free(p->chain);
  free(p->cyc_of);
  free(p->line_arcs);
  free(p->line_arc_slots);
  free(p->arc_grp_seen);
  free(p->arc_grp_slots);
  free(p->child_succ);
  free(p->parent_pred);
  memset(p, 0, sizeof *p);
}
