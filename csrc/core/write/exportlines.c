/*
** exportlines.c: the exports at line granularity (lgp_export_opts.lines):
** JSON's "lines", CSV's table of lines, callgrind's cost line by line.
*/
#include <stdlib.h>
#include <string.h>

#include "write/export_int.h"

/* Is line l written: its function is, and it has samples or a count (or
** zeros asks for every line)? */
static int line_listed(const ectx *c, const lgp_line *l) {
  return l->func != LGP_NONE && c->listed[l->func] &&
         (c->eo->zeros || l->ticks != 0.0 || lgp_line_count(c->p, l) > 0);
}

/* The demangled name of the inlined function a line comes from, or NULL;
** *owned is what to free. */
static const char *inlined_name(const ectx *c, const lgp_line *l, char **owned) {
  const char *raw = lgp_line_inlined(c->p, l);
  *owned = raw != NULL && c->nm->enabled ? lgp_names_demangle(raw, c->nm->options) : NULL;
  return *owned != NULL ? *owned : raw;
}

void lgp_export_json_lines(ectx *c) {
  lgp_out *o = c->o;
  const lgp_profile *p = c->p;
  const lgp_lines *ls = c->eo->lines;
  size_t j;
  int first = 1;
  lgp_out_str(o, ",\n\"lines\":[");
  for (j = 0; j < ls->n && !o->failed; j++) {
    const lgp_line *l = &ls->v[j];
    int n = c->have_src ? lgp_line_number(p, l) : 0;
    int64_t count = lgp_line_count(p, l);
    char *owned;
    const char *inl;
    if (!line_listed(c, l))
      continue;
    lgp_out_str(o, first ? "\n{" : ",\n{");
    first = 0;
    lgp_export_json_u64(o, "address", l->addr);
    lgp_export_json_key(o, "file");
    lgp_json_cstr(o, c->have_src ? lgp_line_file(p, l) : NULL);
    lgp_out_char(o, ',');
    lgp_export_json_key(o, "line");
    if (n > 0)
      lgp_out_printf(o, "%d,", n);
    else
      lgp_out_str(o, "null,");
    lgp_export_json_u64(o, "function", p->graph.nodes[l->func].index);
    lgp_export_json_num(o, "self", lgp_seconds(p, l->ticks));
    lgp_export_json_num(o, "percent", p->graph.total_time > 0 ? 100 * l->ticks / p->graph.total_time : 0.0);
    lgp_export_json_num(o, "samples", l->ticks);
    lgp_export_json_num(o, "self_error", lgp_sampling_error(p, l->ticks));
    lgp_export_json_key(o, "calls");
    if (count >= 0)
      lgp_out_printf(o, "%lld,", (long long)count);
    else
      lgp_out_str(o, "null,");
    inl = inlined_name(c, l, &owned);
    lgp_export_json_bool(o, "is_inlined", inl != NULL);
    lgp_export_json_key(o, "inlined_from");
    lgp_json_cstr(o, inl);
    free(owned);
    lgp_out_char(o, '}');
  }
  lgp_out_char(o, ']');
}

/* CSV at line granularity: one row per line, in address order. */
void lgp_export_csv_lines(ectx *c) {
  lgp_out *o = c->o;
  const lgp_profile *p = c->p;
  const lgp_lines *ls = c->eo->lines;
  size_t j;
  lgp_out_str(o, "address,file,line,function,function_index,self_seconds,percent_time,"
                 "samples,calls,is_inlined,inlined_from,self_error_seconds");
  lgp_export_csv_unit_head(c);
  for (j = 0; j < ls->n && !o->failed; j++) {
    const lgp_line *l = &ls->v[j];
    const char *file = c->have_src ? lgp_line_file(p, l) : NULL, *inl, *name;
    int n = c->have_src ? lgp_line_number(p, l) : 0;
    int64_t count = lgp_line_count(p, l);
    size_t len;
    char *owned;
    if (!line_listed(c, l))
      continue;
    lgp_export_csv_addr(o, l->addr);
    lgp_out_char(o, ',');
    if (file != NULL)
      lgp_export_csv_str(o, file, strlen(file));
    lgp_out_char(o, ',');
    if (n > 0)
      lgp_out_printf(o, "%d", n);
    lgp_out_char(o, ',');
    name = lgp_names_display_len(c->nm, p->graph.nodes, l->func, &len);
    lgp_export_csv_str(o, name, len);
    lgp_out_char(o, ',');
    lgp_export_out_u64(o, p->graph.nodes[l->func].index);
    lgp_out_char(o, ',');
    lgp_export_num_field(o, lgp_seconds(p, l->ticks));
    lgp_export_num_field(o, p->graph.total_time > 0 ? 100 * l->ticks / p->graph.total_time : 0.0);
    lgp_export_num_field(o, l->ticks);
    if (count >= 0)
      lgp_out_printf(o, "%lld", (long long)count);
    inl = inlined_name(c, l, &owned);
    lgp_out_str(o, inl != NULL ? ",1," : ",0,");
    if (inl != NULL)
      lgp_export_csv_str(o, inl, strlen(inl));
    free(owned);
    lgp_out_char(o, ','); /* (columns added later go last: readers by position keep working) */
    lgp_export_num_field_last(o, lgp_sampling_error(p, l->ticks));
    lgp_export_csv_unit_field(c);
    lgp_out_str(o, "\r\n");
  }
}

/* With line data: function s's cost line by line, "fi=" where a line's
** file is not the function's (inlined code), "fe=" back to it after. */
void lgp_export_cg_lines(ectx *c, uint32_t s, int fn_line, uint8_t *file_seen) {
  const lgp_lines *ls = c->eo->lines;
  int32_t own = lgp_export_node_file(c, s), cur = own;
  uint32_t j = ls->first[s];
  int wrote = 0;
  for (; j != LGP_NONE && j < ls->n && ls->v[j].func == s; j++) {
    const lgp_line *l = &ls->v[j];
    int32_t f = c->have_src ? lgp_line_file_index(c->p, l) : -1;
    int n = c->have_src ? lgp_line_number(c->p, l) : 0;
    if (l->ticks == 0.0)
      continue;
    if (f != cur)
      lgp_export_cg_file_id(c, f == own ? "fe=" : "fi=", f, file_seen);
    cur = f;
    lgp_out_printf(c->o, "%d %llu\n", n > 0 ? n : fn_line, lgp_export_cost_of(c->p, l->ticks));
    wrote = 1;
  }
  if (cur != own)
    lgp_export_cg_file_id(c, "fe=", own, file_seen);
  if (!wrote)
    lgp_out_printf(c->o, "%d %llu\n", fn_line, lgp_export_cost_of(c->p, c->p->graph.nodes[s].hist_time));
}

