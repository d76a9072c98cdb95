/*
** symspec.c: gprof's symspecs (FILE, FUNC, LINE, FILE:FUNC, FILE:LINE and
** FROM/TO for arcs) and the include/exclude tables they fill.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symspec.h"

/* gprof adds these to the time, graph and flat exclude tables. */
static const char *const default_excluded[] = {
  "_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal",
  "__mcleanup", NULL
};

void lgp_options_init(lgp_options *o) {
  memset(o, 0, sizeof *o);
  o->default_excludes = 1;
}

void lgp_options_free(lgp_options *o) {
  size_t i;
  for (i = 0; i < o->nspecs; i++)
    free(o->specs[i].text);
  free(o->specs);
  memset(o, 0, sizeof *o);
}

int lgp_options_add_spec(lgp_options *o, int table, const char *text) {
  if (lgp_grow((void **)&o->specs, &o->specs_cap, o->nspecs + 1, sizeof *o->specs) != 0)
    return -1;
  o->specs[o->nspecs].table = table;
  o->specs[o->nspecs].text = lgp_strdup(text);
  if (o->specs[o->nspecs].text == NULL)
    return -1;
  o->nspecs++;
  return 0;
}

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
  const lgp_node *n = &nodes[k];
  if (s->any)
    return 1;
  if (n->end_addr < n->addr)
    return 0; /* gprof drops table entries with an empty range */
  if (s->file != NULL &&
      (im->syms[k].file < 0 || strcmp(s->file, base_name(im->files[im->syms[k].file])) != 0))
    return 0;
  if (s->line != 0 && s->line != im->syms[k].line)
    return 0;
  if (s->name != NULL && strcmp(s->name, n->name) != 0)
    return 0;
  return 1;
}

static void mark_table(lgp_specs *sp, lgp_node *nodes, size_t n, const lgp_image *im,
                       int table, const lgp_spec *s) {
  size_t i;
  for (i = 0; i < n; i++)
    if (spec_match(im, s, nodes, i)) {
      nodes[i].spec |= (uint16_t)(1u << table);
      sp->table_used[table] = 1;
    }
}

static int add_arcspec(lgp_specs *sp, const lgp_node *nodes, size_t n, const lgp_image *im,
                       int table, const char *text) {
  const char *slash = strchr(text, '/');
  lgp_arcspec *a;
  size_t i;
  a = &sp->arcspecs[sp->narcspecs];
  if (spec_parse(&a->from, text, (size_t)(slash - text)) != 0 ||
      spec_parse(&a->to, slash + 1, strlen(slash + 1)) != 0) {
    spec_free(&a->from);
    spec_free(&a->to);
    return -1;
  }
  a->table = table;
  sp->narcspecs++;
  for (i = 0; i < n; i++)
    if (spec_match(im, &a->from, nodes, i)) {
      sp->table_used[table] = 1;
      break;
    }
  return 0;
}

static int text_needs_srcinfo(const char *text, size_t len) {
  lgp_spec s;
  int need;
  if (spec_parse(&s, text, len) != 0)
    return 1; /* out of memory: let the real parse report it */
  need = s.file != NULL || s.line != 0;
  spec_free(&s);
  return need;
}

int lgp_options_need_srcinfo(const lgp_options *opts) {
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

int lgp_specs_apply(lgp_specs *sp, lgp_node *nodes, size_t n, const lgp_image *im,
                    const lgp_options *opts, lgp_err *err) {
  size_t i, narc = 0;
  memset(sp, 0, sizeof *sp);
  for (i = 0; i < opts->nspecs; i++)
    if (strchr(opts->specs[i].text, '/') != NULL &&
        (opts->specs[i].table == LGP_INCL_ARCS || opts->specs[i].table == LGP_EXCL_ARCS))
      narc++;
  if (narc > 0) {
    sp->arcspecs = lgp_calloc_array(narc, sizeof *sp->arcspecs);
    if (sp->arcspecs == NULL)
      return lgp_fail(err, NULL, "out of memory");
  }
  for (i = 0; i < opts->nspecs; i++) {
    const char *text = opts->specs[i].text;
    int table = opts->specs[i].table;
    if (table == LGP_INCL_ARCS || table == LGP_EXCL_ARCS) {
      if (strchr(text, '/') != NULL && add_arcspec(sp, nodes, n, im, table, text) != 0)
        return lgp_fail(err, NULL, "out of memory");
    } else {
      lgp_spec s;
      if (spec_parse(&s, text, strlen(text)) != 0)
        return lgp_fail(err, NULL, "out of memory");
      mark_table(sp, nodes, n, im, table, &s);
      spec_free(&s);
    }
  }
  if (opts->default_excludes) /* one pass for the six names and three tables */
    for (i = 0; i < n; i++) {
      lgp_node *nd = &nodes[i];
      const char *const *e;
      if ((nd->name[0] != '_' && nd->name[0] != 'm') || nd->end_addr < nd->addr)
        continue;
      for (e = default_excluded; *e != NULL; e++)
        if (strcmp(*e, nd->name) == 0) {
          nd->spec |= (uint16_t)(1u << LGP_EXCL_TIME | 1u << LGP_EXCL_GRAPH |
                                 1u << LGP_EXCL_FLAT);
          sp->table_used[LGP_EXCL_TIME] = sp->table_used[LGP_EXCL_GRAPH] =
              sp->table_used[LGP_EXCL_FLAT] = 1;
        }
    }
  return 0;
}

int lgp_specs_in_table(const lgp_specs *s, const lgp_node *node, int incl, int excl) {
  uint16_t bits = node->spec;
  if (bits & (1u << incl))
    return 1;
  return !s->table_used[incl] && !(bits & (1u << excl));
}

static int arc_in(const lgp_specs *s, const lgp_node *nodes, const lgp_image *im, int table,
                  uint32_t parent, uint32_t child) {
  size_t i;
  for (i = 0; i < s->narcspecs; i++) {
    const lgp_arcspec *a = &s->arcspecs[i];
    if (a->table == table && spec_match(im, &a->from, nodes, parent) &&
        spec_match(im, &a->to, nodes, child))
      return 1;
  }
  return 0;
}

int lgp_specs_arc_wanted(const lgp_specs *s, const lgp_node *nodes, const lgp_image *im,
                         uint32_t parent, uint32_t child) {
  if (s->narcspecs == 0)
    return 1;
  if (s->table_used[LGP_INCL_ARCS])
    return arc_in(s, nodes, im, LGP_INCL_ARCS, parent, child);
  return !arc_in(s, nodes, im, LGP_EXCL_ARCS, parent, child);
}

void lgp_specs_free(lgp_specs *s) {
  size_t i;
  for (i = 0; i < s->narcspecs; i++) {
    spec_free(&s->arcspecs[i].from);
    spec_free(&s->arcspecs[i].to);
  }
  free(s->arcspecs);
  memset(s, 0, sizeof *s);
}
