/*
** report_index.c: gprof's index by function name (the FSF layout with
** names in columns, statics with their file; the BSD one truncated).
*/
#include <stdlib.h>
#include <string.h>

#include "write/report_int.h"

/* The index reads its entries in name order, three rows apart: no order in
** memory. Row i + 8's nodes and display names are fetched while row i
** prints, and the name strings of row i + 4. */
PREFETCH_FN prefetch_index_row(const rctx *r, const uint32_t *v, size_t row, size_t rows,
                               size_t todo, int stage) {
  size_t j;
  for (j = row; j < todo; j += rows) {
    uint32_t t = v[j];
    if (stage == 2) {
      PREFETCH(&r->p->graph.nodes[t]);
      PREFETCH((const char *)&r->p->graph.nodes[t] + 64);
      if (r->nm != NULL && t < r->nm->n)
        PREFETCH(&r->nm->disp[t]);
    } else if (r->nm != NULL && t < r->nm->n) {
      PREFETCH(r->nm->disp[t].s);
    }
  }
}

void lgp_report_index(lgp_out *o, const lgp_profile *p, lgp_names *nm, const lgp_report_opts *ro) {
  rctx r = lgp_report_ctx(o, p, nm, ro);
  size_t nnames = 0, todo, rows, i, j, k;
  size_t column_width = (size_t)(ro->width - 1) / 3;
  uint32_t *v = lgp_alloc_array(p->graph.nsyms + p->graph.ncycles, sizeof *v);
  uint8_t *listed = lgp_alloc_array(p->graph.nsyms ? p->graph.nsyms : 1, 1);
  int any_static = 0;
  char buf[64];
  if (v == NULL || listed == NULL) {
    free(v);
    free(listed);
    o->failed = 1;
    return;
  }
  for (k = 0; k < p->graph.nsyms; k++) {
    const lgp_node *n = &p->graph.nodes[k];
    listed[k] = !lgp_removed(p, (uint32_t)k) &&
                !(ro->ignore_zeros && n->ncalls == 0 && n->hist_time == 0);
    any_static |= listed[k] && n->is_static;
  }
  if (p->line_granularity)
    any_static = 0; /* line names carry their file already */
  if (any_static && !ro->bsd) { /* statics show their file: read DWARF now */
    lgp_err err = {0, {0}};
    if (ro->sources != NULL)
      lgp_sources_load_srcinfo(ro->sources, &err);
    if (p->image->srcinfo_state != 1)
      any_static = 0;
  }
  /* by name: the ranks are that order already (ties by address) */
  for (k = 0; k < p->graph.nsyms; k++)
    v[p->graph.name_rank[k]] = (uint32_t)k;
  for (k = 0; k < p->graph.nsyms; k++)
    if (listed[v[k]])
      v[nnames++] = v[k];
  free(listed);
  todo = nnames;
  for (k = p->graph.nsyms; k < p->graph.nsyms + p->graph.ncycles; k++)
    if (!lgp_removed(p, (uint32_t)k))
      v[todo++] = (uint32_t)k;
  lgp_out_str(o, "\f\n");
  lgp_out_str(o, "Index by function name\n\n");
  rows = (todo + 2) / 3;
  for (i = 0; i < rows; i++) {
    size_t col = 0, starting_col = 0;
    if (i + 8 < rows)
      prefetch_index_row(&r, v, i + 8, rows, todo, 2);
    if (i + 4 < rows)
      prefetch_index_row(&r, v, i + 4, rows, todo, 1);
    for (j = i; j < todo; j += rows) {
      const lgp_node *n = &p->graph.nodes[v[j]];
      char *tag_end = lgp_names_put_index(buf, n->index, (int)n->print_flag);
      size_t tag_len = (size_t)(tag_end - buf);
      *tag_end = '\0';
      if (ro->bsd) {
        lgp_out_pad(o, buf, 6, 6, 0);
        lgp_out_char(o, ' ');
        if (j < nnames) {
          lgp_out_pad(o, n->name, 19, 19, 1);
        } else {
          char cbuf[32];
          *lgp_names_put_cycle(cbuf, n->cyc_num) = '\0';
          lgp_out_pad(o, cbuf, 19, 19, 1);
        }
      } else {
        col += tag_len;
        if (col < starting_col + 5) {
          lgp_out_chars(o, ' ', starting_col + 5 - col);
          col = starting_col + 5;
        }
        lgp_out_char(o, ' ');
        lgp_out_str(o, buf);
        lgp_out_char(o, ' ');
        if (j < nnames) {
          col += lgp_report_name_only(&r, v[j]);
          const char *f = any_static && n->is_static ? lgp_node_file(p, v[j]) : NULL;
          if (f != NULL) {
            f = lgp_names_print_path(f, ro->print_path);
            lgp_out_printf(o, " (%s)", f);
            col += strlen(f) + 3;
          }
        } else {
          char cbuf[32];
          size_t clen = (size_t)(lgp_names_put_cycle(cbuf, n->cyc_num) - cbuf);
          lgp_out_mem(o, cbuf, clen);
          col += clen;
        }
      }
      starting_col += column_width;
    }
    lgp_out_char(o, '\n');
  }
  free(v);
}
