/*
** mapfile.c: gprof's -R map file, read as gprof's stream parse reads it
** (two fields a line, at most 1023 bytes each; a cycle ends by skipping
** all whitespace), and its renaming of the function symbols.
*/
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/mapfile.h"

#define FIELD_MAX 1023

typedef struct stream {
  const unsigned char *p;
  size_t n, i;
  int eof;        /* a read looked past the end (scanf's end-of-file state) */
  size_t line;    /* 1-based line of the next byte */
} stream;

/* The next byte, or -1 at the end (which is then remembered). */
static int peek(stream *s) {
  if (s->i >= s->n) {
    s->eof = 1;
    return -1;
  }
  return s->p[s->i];
}

static void advance(stream *s) {
  if (s->p[s->i++] == '\n')
    s->line++;
}

/* scanf's "%1023[^:\n]" (colon) or "%1023[^\n]" into buf: the number of
** bytes read, or -1 when the end came before any (an input failure, which
** leaves buf as it was). */
static int scan_field(stream *s, char *buf, int colon) {
  size_t k = 0;
  int c = 0;
  while (k < FIELD_MAX) {
    c = peek(s);
    if (c < 0 || c == '\n' || (colon && c == ':'))
      break;
    buf[k++] = (char)c;
    advance(s);
  }
  if (k == 0)
    return c < 0 ? -1 : 0;
  buf[k] = '\0';
  return (int)k;
}

/* scanf's " ": every whitespace byte. */
static void skip_space(stream *s) {
  int c;
  while ((c = peek(s)) >= 0 && isspace(c))
    advance(s);
}

typedef struct rawentry {
  size_t file, func; /* offsets into the pool */
  int first;
} rawentry;

static int pool_add(lgp_mapfile *m, const char *s, size_t *off) {
  size_t len = strlen(s) + 1;
  if (lgp_grow((void **)&m->pool, &m->pool_cap, m->pool_len + len, 1) != 0)
    return -1;
  memcpy(m->pool + m->pool_len, s, len);
  *off = m->pool_len;
  m->pool_len += len;
  return 0;
}

static int cmp_func(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_mapentry *v = ctx;
  return strcmp(v[a].func, v[b].func);
}

static int cmp_file(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_mapentry *v = ctx;
  return strcmp(v[a].file, v[b].file);
}

/* out = v stable-sorted by cmp. */
static int sorted_copy(lgp_mapentry **out, const lgp_mapentry *v, size_t n, lgp_cmp_fn cmp) {
  uint32_t *idx = lgp_alloc_array(n ? n : 1, sizeof *idx);
  size_t i;
  *out = lgp_alloc_array(n ? n : 1, sizeof **out);
  if (idx == NULL || *out == NULL) {
    free(idx);
    return -1;
  }
  for (i = 0; i < n; i++)
    idx[i] = (uint32_t)i;
  if (lgp_sort_indices(idx, n, cmp, v) != 0) {
    free(idx);
    return -1;
  }
  for (i = 0; i < n; i++)
    (*out)[i] = v[idx[i]];
  free(idx);
  return 0;
}

int lgp_mapfile_parse(lgp_mapfile *m, const char *text, size_t n, const char *path,
                      lgp_err *err) {
  stream s;
  char f1[FIELD_MAX + 1], f2[FIELD_MAX + 1];
  rawentry *raw = NULL;
  lgp_mapentry *v = NULL;
  size_t nraw = 0, cap = 0, i;
  int rc = -1;
  memset(m, 0, sizeof *m);
  s.p = (const unsigned char *)text;
  s.n = n;
  s.i = 0;
  s.eof = 0;
  s.line = 1;
  if (n >= UINT32_MAX) /* entry indices are 32-bit */
    return lgp_fail(err, path, "map file too large");
  while (!s.eof) {
    size_t line = s.line;
    int r = scan_field(&s, f1, 1);
    const char *name;
    if (r == 0) {
      lgp_fail(err, NULL, "unable to parse mapping file %s.", path);
      goto out;
    }
    if (r < 0) { /* only at the start: gprof reads uninitialised buffers */
      lgp_fail(err, path, "empty map file");
      goto out;
    }
    if (strncmp(f1, "No symbols in ", 14) == 0) {
      skip_space(&s);
      continue;
    }
    r = scan_field(&s, f2, 0);
    if (r == 0) {
      lgp_fail(err, NULL, "unable to parse mapping file %s.", path);
      goto out;
    }
    if (r < 0) /* the file ended after field 1: gprof takes that text again */
      memcpy(f2, f1, sizeof f2);
    skip_space(&s);
    name = strrchr(f2, ' ');
    if (name == NULL) { /* gprof crashes */
      lgp_fail(err, path, "line %zu: no space before the function name in \"%s\" "
               "(nm --print-file-name's FILE:ADDRESS TYPE NAME expected)", line, f2);
      goto out;
    }
    if (lgp_grow((void **)&raw, &cap, nraw + 1, sizeof *raw) != 0 ||
        pool_add(m, f1, &raw[nraw].file) != 0 || pool_add(m, name + 1, &raw[nraw].func) != 0) {
      lgp_fail(err, NULL, "out of memory");
      goto out;
    }
    raw[nraw].first = nraw == 0 || strcmp(m->pool + raw[nraw - 1].file, f1) != 0;
    nraw++;
  }
  v = lgp_alloc_array(nraw ? nraw : 1, sizeof *v);
  if (v == NULL) {
    lgp_fail(err, NULL, "out of memory");
    goto out;
  }
  for (i = 0; i < nraw; i++) {
    v[i].file = m->pool + raw[i].file;
    v[i].func = m->pool + raw[i].func;
    v[i].first = raw[i].first;
  }
  m->n = nraw;
  if (sorted_copy(&m->by_func, v, nraw, cmp_func) != 0 ||
      sorted_copy(&m->by_file, v, nraw, cmp_file) != 0) {
    lgp_fail(err, NULL, "out of memory");
    goto out;
  }
  rc = 0;
out:
  free(raw);
  free(v);
  if (rc != 0)
    lgp_mapfile_free(m);
  return rc;
}

int lgp_mapfile_read(lgp_mapfile *m, const char *path, lgp_err *err) {
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  size_t len = 0, cap = 0;
  int rc;
  memset(m, 0, sizeof *m);
  if (f == NULL)
    return lgp_fail(err, NULL, "could not open %s.", path);
  for (;;) {
    size_t got;
    if (lgp_grow((void **)&text, &cap, len + 65536, 1) != 0) {
      fclose(f);
      free(text);
      return lgp_fail(err, NULL, "out of memory");
    }
    got = fread(text + len, 1, cap - len, f);
    len += got;
    if (got == 0 || len < cap)
      break;
  }
  if (ferror(f)) {
    int e = errno;
    fclose(f);
    free(text);
    return lgp_fail(err, path, "%s", strerror(e));
  }
  fclose(f);
  rc = lgp_mapfile_parse(m, text, len, path, err);
  free(text);
  return rc;
}

void lgp_mapfile_free(lgp_mapfile *m) {
  free(m->by_func);
  free(m->by_file);
  free(m->pool);
  memset(m, 0, sizeof *m);
}

/* glibc's bsearch: the middle of [lo, hi), the first equal entry probed. */
const lgp_mapentry *lgp_mapfile_lookup(const lgp_mapfile *m, const char *name) {
  size_t lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(name, m->by_func[mid].func);
    if (c < 0)
      hi = mid;
    else if (c > 0)
      lo = mid + 1;
    else
      return &m->by_func[mid];
  }
  return NULL;
}

void lgp_mapfile_apply(const lgp_mapfile *m, lgp_image *im) {
  size_t i, kept = 0;
  for (i = 0; i < im->nsyms; i++) {
    lgp_rawsym r = im->syms[i];
    const lgp_mapentry *e = lgp_mapfile_lookup(m, r.name);
    r.is_mapped = 0;
    if (e != NULL) {
      if (!e->first)
        continue;
      r.name = e->file;
      r.is_mapped = 1;
    }
    im->syms[kept++] = r;
  }
  im->nsyms = kept;
}
