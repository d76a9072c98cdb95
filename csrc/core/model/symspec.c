/*
** symspec.c: gprof's symspecs (FILE, FUNC, LINE, FILE:FUNC, FILE:LINE and
** FROM/TO for arcs) and the include/exclude tables they fill: address
** ranges, looked up by a symbol's address as gprof does.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model/symspec.h"
#include "util/hashtab.h"

static void spec_free(lgp_spec *s) {
  free(s->file);
  free(s->name);
}

static char *dup_range(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d != NULL) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

/* FILE:FUNC, FILE:LINE, FILE (has a '.'), LINE (starts with a digit), FUNC. */
static int spec_parse(lgp_spec *s, const char *text, size_t len) {
  const char *colon = NULL, *rest = text;
  size_t i, restlen = len;
  memset(s, 0, sizeof *s);
  if (len == 0) {
    s->any = 1;
    return 0;
  }
  for (i = len; i > 0; i--)
    if (text[i - 1] == ':') {
      colon = text + i - 1;
      break;
    }
  if (colon != NULL) {
    if (colon > text && (s->file = dup_range(text, (size_t)(colon - text))) == NULL)
      return -1;
    rest = colon + 1;
    restlen = len - (size_t)(rest - text);
  } else if (memchr(text, '.', len) != NULL) {
    return (s->file = dup_range(text, len)) == NULL ? -1 : 0;
  }
  if (restlen > 0 && isdigit((unsigned char)rest[0]))
    s->line = atoi(rest);
  else if (restlen > 0 && (s->name = dup_range(rest, restlen)) == NULL)
    return -1;
  return 0;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Node k of nodes is symbol k of the image (its file and line). */
static int spec_match(const lgp_image *im, const lgp_spec *s, const lgp_node *nodes, size_t k) {
  if (s->any)
    return 1;
  if (s->file != NULL &&
      (im->syms[k].file < 0 || strcmp(s->file, base_name(im->files[im->syms[k].file])) != 0))
    return 0;
  if (s->line != 0 && s->line != im->syms[k].line)
    return 0;
  if (s->name != NULL && strcmp(s->name, nodes[k].name) != 0)
    return 0;
  return 1;
}

/* {====================================================== tables */

typedef struct rangelist {
  lgp_specrange *v;
  size_t n, cap;
} rangelist;

/* Extends the run that ends at node k - 1, or starts one at node k. */
static int add_to_run(rangelist *l, const lgp_node *nodes, size_t k, size_t *prev,
                      uint32_t arcspec) {
  if (*prev != k - 1 || k == 0 || l->n == 0) {
    if (lgp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0)
      return -1;
    l->v[l->n].lo = nodes[k].addr;
    l->v[l->n].arcspec = arcspec;
    l->v[l->n].first = (uint32_t)k;
    l->n++;
  }
  l->v[l->n - 1].hi = nodes[k].end_addr;
  *prev = k;
  return 0;
}

/* The symbols by raw name, for many specs: a spec with a name then looks
** at its namesakes only, not at every symbol (a command line of thousands
** of -k options, as --break-cycles prints). Namesakes are met in node
** order (the order they were put). Empty (not built): every symbol is
** scanned. */
typedef lgp_hashtab nameindex;
#define NAMEINDEX_MIN_SPECS 32

static uint32_t name_hash(const char *name) {
  return lgp_hashtab_hash_bytes(name, strlen(name));
}

static int nameindex_build(nameindex *x, const lgp_node *nodes, size_t n) {
  size_t k;
  if (n >= UINT32_MAX || lgp_hashtab_reserve(x, n) != 0)
    return -1;
  for (k = 0; k < n; k++) {
    lgp_hashpos at = lgp_hashtab_probe(x, name_hash(nodes[k].name));
    while (lgp_hashtab_next(x, &at) != LGP_HASHTAB_END)
      ;
    lgp_hashtab_put(x, &at, (uint32_t)k);
  }
  return 0;
}

/* The runs of consecutive symbols s matches, appended to l. */
static int add_runs(rangelist *l, const lgp_image *im, const lgp_spec *s, const lgp_node *nodes,
                    size_t n, uint32_t arcspec, const nameindex *x) {
  size_t k, prev = SIZE_MAX;
  if (x != NULL && x->n > 0 && s->name != NULL && !s->any) {
    lgp_hashpos at = lgp_hashtab_probe(x, name_hash(s->name));
    uint32_t j;
    while ((j = lgp_hashtab_next(x, &at)) != LGP_HASHTAB_END)
      if (strcmp(nodes[j].name, s->name) == 0 && spec_match(im, s, nodes, j) &&
          add_to_run(l, nodes, j, &prev, arcspec) != 0)
        return -1;
    return 0;
  }
  for (k = 0; k < n; k++)
    if (spec_match(im, s, nodes, k) && add_to_run(l, nodes, k, &prev, arcspec) != 0)
      return -1;
  return 0;
}

static void set_reach(lgp_specrange *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    v[i].reach = i > 0 && v[i - 1].reach > v[i].hi ? v[i - 1].reach : v[i].hi;
}

static int cmp_lo(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_specrange *v = ctx;
  return v[a].lo < v[b].lo ? -1 : v[a].lo > v[b].lo;
}

/* gprof finalises each table as a symbol table: a stable sort by address,
** the first entry at an address kept (two entries there copy the same
** symbol), an entry whose range is empty dropped. */
static int finalise(rangelist *l) {
  uint32_t *idx = lgp_alloc_array(l->n ? l->n : 1, sizeof *idx);
  lgp_specrange *out = lgp_alloc_array(l->n ? l->n : 1, sizeof *out);
  size_t i, kept = 0;
  if (idx == NULL || out == NULL) {
    free(idx);
    free(out);
    return -1;
  }
  for (i = 0; i < l->n; i++)
    idx[i] = (uint32_t)i;
  if (lgp_sort_indices(idx, l->n, cmp_lo, l->v) != 0) {
    free(idx);
    free(out);
    return -1;
  }
  for (i = 0; i < l->n; i++) {
    const lgp_specrange *r = &l->v[idx[i]];
    if (kept > 0 && out[kept - 1].lo == r->lo)
      continue;
    if (r->hi != 0 && r->hi < r->lo)
      continue;
    out[kept++] = *r;
  }
  free(idx);
  free(l->v);
  l->v = out;
  l->n = l->cap = kept;
  set_reach(l->v, l->n);
  return 0;
}

/* Sets bit t on the nodes whose address the table holds: the entry at or
** below it (gprof's sym_lookup) must reach it. */
static void mark_nodes(lgp_node *nodes, size_t n, int t, const rangelist *l) {
  size_t k, j = 0;
  if (l->n == 0)
    return;
  for (k = 0; k < n; k++) {
    lgp_addr a = nodes[k].addr;
    while (j + 1 < l->n && l->v[j + 1].lo <= a)
      j++;
    if (l->v[j].lo <= a && a <= l->v[j].hi)
      nodes[k].spec |= (uint16_t)(1u << t);
  }
}

/* gprof adds these to the time, graph and flat exclude tables, before
** (so, in its prepended list, after) the user's specs; last added first. */
static const char *const default_excluded[] = {
  "__mcleanup", "__mcount_internal", "__mcount", "_mcount", "mcount", "_gprof_mcount"
};
#define NDEFAULT (sizeof default_excluded / sizeof default_excluded[0])

/* The default names' runs, in that order, each appended to all three tables. */
static int add_defaults(rangelist *tabs, const lgp_node *nodes, size_t n) {
  static const int tables[] = {LGP_EXCL_TIME, LGP_EXCL_GRAPH, LGP_EXCL_FLAT};
  rangelist runs[NDEFAULT];
  size_t prev[NDEFAULT], k, d, t, i;
  int rc = -1;
  memset(runs, 0, sizeof runs);
  for (d = 0; d < NDEFAULT; d++)
    prev[d] = SIZE_MAX;
  for (k = 0; k < n; k++) { /* one pass: most names fail at the first byte */
    const char *name = nodes[k].name;
    if (name[0] != '_' && name[0] != 'm')
      continue;
    for (d = 0; d < NDEFAULT; d++)
      if (strcmp(default_excluded[d], name) == 0 &&
          add_to_run(&runs[d], nodes, k, &prev[d], 0) != 0)
        goto out;
  }
  for (d = 0; d < NDEFAULT; d++)
    for (t = 0; t < 3; t++)
      for (i = 0; i < runs[d].n; i++) {
        rangelist *l = &tabs[tables[t]];
        if (lgp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0)
          goto out;
        l->v[l->n++] = runs[d].v[i];
      }
  rc = 0;
out:
  for (d = 0; d < NDEFAULT; d++)
    free(runs[d].v);
  return rc;
}

static int is_arc_table(int table) {
  return table == LGP_INCL_ARCS || table == LGP_EXCL_ARCS;
}

/* One FROM[/TO] spec of an arc table: its FROM runs go to the table, its
** TO runs stay with it. */
static int add_arcspec(lgp_specs *sp, rangelist *tab, const lgp_node *nodes, size_t n,
                       const lgp_image *im, int table, const char *text, const nameindex *x) {
  const char *slash = strchr(text, '/');
  uint32_t id = (uint32_t)sp->narcspecs;
  lgp_arcspec *a = &sp->arcspecs[sp->narcspecs++];
  rangelist to = {NULL, 0, 0};
  size_t before = tab->n;
  a->table = table;
  a->has_to = slash != NULL;
  if (spec_parse(&a->from, text, slash ? (size_t)(slash - text) : strlen(text)) != 0 ||
      (slash != NULL && spec_parse(&a->to, slash + 1, strlen(slash + 1)) != 0))
    return -1;
  if (add_runs(tab, im, &a->from, nodes, n, id, x) != 0)
    return -1;
  if (tab->n > before) {
    a->from_ranges = lgp_alloc_array(tab->n - before, sizeof *a->from_ranges);
    if (a->from_ranges == NULL)
      return -1;
    memcpy(a->from_ranges, tab->v + before, (tab->n - before) * sizeof *a->from_ranges);
    a->nfrom = tab->n - before;
  }
  if (slash != NULL) {
    if (add_runs(&to, im, &a->to, nodes, n, id, x) != 0) {
      free(to.v);
      return -1;
    }
    set_reach(to.v, to.n);
    a->to_ranges = to.v;
    a->nto = to.n;
  }
  return 0;
}

/* Does spec_parse give the text a file or a line? Read in place: a
** command line may hold thousands of specs. */
static int text_needs_srcinfo(const char *text, size_t len) {
  const char *colon = NULL;
  size_t i;
  for (i = len; i > 0; i--)
    if (text[i - 1] == ':') {
      colon = text + i - 1;
      break;
    }
  if (colon != NULL) {
    if (colon > text)
      return 1;
    text = colon + 1;
    len -= 1;
  } else if (memchr(text, '.', len) != NULL) {
    return 1;
  }
  return len > 0 && isdigit((unsigned char)text[0]) && atoi(text) != 0;
}

int lgp_specs_need_srcinfo(const lgp_options *opts) {
  size_t i;
  for (i = 0; i < opts->nspecs; i++) {
    const char *text = opts->specs[i].text, *slash = strchr(text, '/');
    int table = opts->specs[i].table;
    if ((table == LGP_INCL_ARCS || table == LGP_EXCL_ARCS) && slash != NULL) {
      if (text_needs_srcinfo(text, (size_t)(slash - text)) ||
          text_needs_srcinfo(slash + 1, strlen(slash + 1)))
        return 1;
    } else if (text_needs_srcinfo(text, strlen(text))) {
      return 1;
    }
  }
  return 0;
}

static size_t count_at_or_below(const lgp_specrange *v, size_t n, lgp_addr addr);

/* arc_at[a] of each node: a binary search each, once, rather than one per
** arc record read. */
static int index_arc_table(lgp_specs *sp, int a, const lgp_node *nodes, size_t n) {
  size_t k;
  if (sp->narc_from[a] == 0)
    return 0;
  sp->arc_at[a] = lgp_alloc_array(n ? n : 1, sizeof *sp->arc_at[a]);
  if (sp->arc_at[a] == NULL)
    return -1;
  for (k = 0; k < n; k++)
    sp->arc_at[a][k] = (uint32_t)count_at_or_below(sp->arc_from[a], sp->narc_from[a], nodes[k].addr);
  return 0;
}

int lgp_specs_apply(lgp_specs *sp, lgp_node *nodes, size_t n, const lgp_image *im,
                    const lgp_options *opts, lgp_err *err) {
  rangelist tabs[LGP_NTABLES];
  nameindex x = {0};
  size_t i, narc = 0;
  int t, rc = -1;
  memset(sp, 0, sizeof *sp);
  memset(tabs, 0, sizeof tabs);
  for (i = 0; i < opts->nspecs; i++)
    narc += is_arc_table(opts->specs[i].table);
  if (narc > 0) {
    sp->arcspecs = lgp_calloc_array(narc, sizeof *sp->arcspecs);
    if (sp->arcspecs == NULL)
      goto out;
  }
  if (opts->default_excludes && add_defaults(tabs, nodes, n) != 0)
    goto out;
  if (opts->nspecs >= NAMEINDEX_MIN_SPECS && nameindex_build(&x, nodes, n) != 0)
    goto out;
  /* gprof prepends each spec to its list: the last one given comes first */
  for (i = opts->nspecs; i-- > 0;) {
    const char *text = opts->specs[i].text;
    int table = opts->specs[i].table;
    if (is_arc_table(table)) {
      if (add_arcspec(sp, &tabs[table], nodes, n, im, table, text, &x) != 0)
        goto out;
    } else {
      lgp_spec s;
      int r;
      if (spec_parse(&s, text, strlen(text)) != 0)
        goto out;
      r = add_runs(&tabs[table], im, &s, nodes, n, 0, &x);
      spec_free(&s);
      if (r != 0)
        goto out;
    }
  }
  for (t = 0; t < LGP_NTABLES; t++) {
    if (finalise(&tabs[t]) != 0)
      goto out;
    sp->table_used[t] = tabs[t].n > 0;
    if (is_arc_table(t)) {
      int a = t == LGP_EXCL_ARCS;
      sp->arc_from[a] = tabs[t].v;
      sp->narc_from[a] = tabs[t].n;
      tabs[t].v = NULL;
      if (index_arc_table(sp, a, nodes, n) != 0)
        goto out;
    } else {
      mark_nodes(nodes, n, t, &tabs[t]);
    }
  }
  sp->nnodes = n;
  rc = 0;
out:
  for (t = 0; t < LGP_NTABLES; t++)
    free(tabs[t].v);
  lgp_hashtab_free(&x);
  return rc == 0 ? 0 : lgp_fail(err, NULL, "out of memory");
}

/* Are the nodes at ascending addresses, each ending before the next one
** begins (a function's table; in line mode functions overlap lines)? */
static int nodes_apart(const lgp_node *nodes, size_t n) {
  size_t k;
  for (k = 0; k + 1 < n; k++)
    if (nodes[k].addr >= nodes[k + 1].addr || nodes[k].end_addr >= nodes[k + 1].addr)
      return 0;
  return 1;
}

/* Why this is lgp_specs_apply of the specs "-k F/T", one per pair, in
** order, when each names its node alone (no other symbol matches F or T)
** and every caller F has a non-empty range: each spec gives one run, the
** node's own range [addr, end_addr], and the spec given last comes first
** in gprof's list (arcspecs[0]). The table keeps the first entry at an
** address, so of a caller's specs the last given, and drops none (none is
** empty). As the nodes lie apart, no entry but a caller's own holds its
** address. So lgp_specs_arc_wanted(p, c) is false exactly when last[p]
** names a pair whose callee's range holds c's: addr(T) <= addr(c) and
** end(c) <= end(T) (ranges_hold on T's one run; c == T, or c an empty
** symbol past T's start, such as one past the end of the text). No spec
** parsed, no name looked up. */
int lgp_specs_from_pairs(lgp_specs *sp, const lgp_node *nodes, size_t n, const uint32_t *from,
                         const uint32_t *to, size_t npairs, uint32_t *last) {
  size_t i, k, nkept = 0;
  memset(sp, 0, sizeof *sp);
  if (npairs >= UINT32_MAX || !nodes_apart(nodes, n))
    return 1;
  for (i = 0; i < npairs; i++)
    if (from[i] >= n || to[i] >= n || nodes[from[i]].end_addr < nodes[from[i]].addr)
      return 1;
  for (k = 0; k < n; k++)
    last[k] = UINT32_MAX;
  sp->arcspecs = lgp_calloc_array(npairs ? npairs : 1, sizeof *sp->arcspecs);
  sp->arc_at[1] = lgp_alloc_array(n ? n : 1, sizeof *sp->arc_at[1]);
  if (sp->arcspecs == NULL || sp->arc_at[1] == NULL)
    return -1;
  for (i = 0; i < npairs; i++) { /* the last given first */
    uint32_t f = from[npairs - 1 - i], t = to[npairs - 1 - i];
    lgp_arcspec *a = &sp->arcspecs[i];
    a->table = LGP_EXCL_ARCS;
    a->has_to = 1;
    a->from_ranges = lgp_alloc_array(1, sizeof *a->from_ranges);
    a->to_ranges = lgp_alloc_array(1, sizeof *a->to_ranges);
    sp->narcspecs++;
    if (a->from_ranges == NULL || a->to_ranges == NULL)
      return -1;
    a->nfrom = a->nto = 1;
    a->from_ranges->lo = nodes[f].addr;
    a->from_ranges->hi = a->from_ranges->reach = nodes[f].end_addr;
    a->from_ranges->arcspec = (uint32_t)i;
    a->from_ranges->first = f;
    a->to_ranges->lo = nodes[t].addr;
    a->to_ranges->hi = a->to_ranges->reach = nodes[t].end_addr;
    a->to_ranges->arcspec = (uint32_t)i;
    a->to_ranges->first = t;
    if (last[f] == UINT32_MAX) /* the caller's last pair given */
      last[f] = (uint32_t)(npairs - 1 - i);
  }
  for (k = 0; k < n; k++)
    nkept += last[k] != UINT32_MAX;
  sp->arc_from[1] = lgp_alloc_array(nkept ? nkept : 1, sizeof *sp->arc_from[1]);
  if (sp->arc_from[1] == NULL)
    return -1;
  for (k = 0, nkept = 0; k < n; k++) { /* by address: by node */
    if (last[k] != UINT32_MAX)
      sp->arc_from[1][nkept++] = *sp->arcspecs[npairs - 1 - last[k]].from_ranges;
    sp->arc_at[1][k] = (uint32_t)nkept;
  }
  sp->narc_from[1] = nkept;
  sp->table_used[LGP_EXCL_ARCS] = nkept > 0;
  sp->nnodes = n;
  return 0;
}

int lgp_specs_in_table(const lgp_specs *s, const lgp_node *node, int incl, int excl) {
  uint16_t bits = node->spec;
  if (bits & (1u << incl))
    return 1;
  return !s->table_used[incl] && !(bits & (1u << excl));
}

/* How many entries of v (ascending by lo) start at or below addr. */
static size_t count_at_or_below(const lgp_specrange *v, size_t n, lgp_addr addr) {
  return lgp_addr_count_le(v, n, sizeof *v, offsetof(lgp_specrange, lo), addr);
}

/* Does an entry of v (ascending by lo, reach set) hold [lo_q, hi_q]? From
** the nearest entry at or below lo_q down, until none before reaches hi_q. */
static int ranges_hold(const lgp_specrange *v, size_t n, lgp_addr lo_q, lgp_addr hi_q) {
  size_t i = count_at_or_below(v, n, lo_q);
  while (i-- > 0 && v[i].reach >= hi_q)
    if (v[i].hi >= hi_q)
      return 1;
  return 0;
}

/* gprof's sym_id_arc: an entry of the table holds the parent's address and
** has an arc whose callee range holds the child's range. */
static int arc_in(const lgp_specs *s, int a, const lgp_node *nodes, uint32_t parent_id,
                  uint32_t child_id) {
  const lgp_specrange *v = s->arc_from[a];
  const lgp_node *parent = &nodes[parent_id], *child = &nodes[child_id];
  size_t i = s->arc_at[a] != NULL && parent_id < s->nnodes
             ? s->arc_at[a][parent_id] : count_at_or_below(v, s->narc_from[a], parent->addr);
  while (i-- > 0 && v[i].reach >= parent->addr) {
    const lgp_arcspec *sp = &s->arcspecs[v[i].arcspec];
    if (v[i].hi >= parent->addr && sp->has_to &&
        ranges_hold(sp->to_ranges, sp->nto, child->addr, child->end_addr))
      return 1;
  }
  return 0;
}

int lgp_specs_arc_wanted(const lgp_specs *s, const lgp_node *nodes, uint32_t parent,
                         uint32_t child) {
  if (s->table_used[LGP_INCL_ARCS])
    return arc_in(s, 0, nodes, parent, child);
  return !s->table_used[LGP_EXCL_ARCS] || !arc_in(s, 1, nodes, parent, child);
}

void lgp_specs_free(lgp_specs *s) {
  size_t i;
  for (i = 0; i < s->narcspecs; i++) {
    spec_free(&s->arcspecs[i].from);
    spec_free(&s->arcspecs[i].to);
    free(s->arcspecs[i].to_ranges);
    free(s->arcspecs[i].from_ranges);
  }
  free(s->arcspecs);
  free(s->arc_from[0]);
  free(s->arc_from[1]);
  free(s->arc_at[0]);
  free(s->arc_at[1]);
  memset(s, 0, sizeof *s);
}
