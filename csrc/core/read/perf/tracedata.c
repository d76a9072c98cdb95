/*
** tracedata.c: the tracing data of a perf.data (tracedata.h). Every size
** and count is checked against the bytes left before it is used.
*/
#include <stdlib.h>
#include <string.h>
#include "read/perf/tracedata.h"

typedef struct tcursor {
  const uint8_t *p, *end;
  int big_endian;
} tcursor;

static uint64_t load(const uint8_t *p, size_t n, int big_endian) {
  uint64_t v = 0;
  size_t i;
  for (i = 0; i < n; i++)
    v |= (uint64_t)p[big_endian ? n - 1 - i : i] << (8 * i);
  return v;
}

static int take_int(tcursor *c, size_t n, uint64_t *v) {
  if ((size_t)(c->end - c->p) < n)
    return -1;
  *v = load(c->p, n, c->big_endian);
  c->p += n;
  return 0;
}

/* A NUL-terminated string in place; NULL when it runs past the end. */
static const char *take_cstr(tcursor *c) {
  const uint8_t *z = memchr(c->p, '\0', (size_t)(c->end - c->p));
  const char *s = (const char *)c->p;
  if (!z)
    return NULL;
  c->p = z + 1;
  return s;
}

/* u64 size then that many bytes. */
static int take_text(tcursor *c, const char **text, size_t *len) {
  uint64_t n;
  if (take_int(c, 8, &n) != 0 || n > (uint64_t)(c->end - c->p))
    return -1;
  *text = (const char *)c->p;
  *len = (size_t)n;
  c->p += n;
  return 0;
}

static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

/* The unsigned decimal at s (at most e), or -1 when there is none. */
static int64_t decimal(const char *s, const char *e) {
  int64_t v = 0;
  int any = 0;
  while (s < e && (*s == ' ' || *s == '\t'))
    s++;
  while (s < e && *s >= '0' && *s <= '9') {
    if (v > (INT64_MAX - 9) / 10)
      return -1;
    v = v * 10 + (*s++ - '0');
    any = 1;
  }
  return any ? v : -1;
}

/* The value after "key:" in the line [s, e), or -1. */
static int64_t line_value(const char *s, const char *e, const char *key) {
  size_t kl = strlen(key);
  const char *p;
  for (p = s; p + kl <= e; p++)
    if (memcmp(p, key, kl) == 0)
      return decimal(p + kl, e);
  return -1;
}

static int is_ident(char ch) {
  return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* A field line: "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;".
** 0 with *f filled, 1 when the line is no field, -1 out of memory. */
static int field_line(const char *s, const char *e, lgp_trace_field *f) {
  const char *decl = NULL, *semi, *ne, *nb, *p;
  int64_t off, size, sgn;
  for (p = s; p + 6 <= e; p++)
    if (memcmp(p, "field:", 6) == 0) {
      decl = p + 6;
      break;
    }
  if (!decl || !(semi = memchr(decl, ';', (size_t)(e - decl))))
    return 1;
  off = line_value(semi, e, "offset:");
  size = line_value(semi, e, "size:");
  sgn = line_value(semi, e, "signed:");
  if (off < 0 || size < 0 || off > UINT32_MAX || size > UINT32_MAX)
    return 1;
  /* the name: the last identifier of the declaration, before any [N] */
  ne = semi;
  for (p = decl; p < semi; p++)
    if (*p == '[') {
      ne = p;
      break;
    }
  while (ne > decl && !is_ident(ne[-1]))
    ne--;
  nb = ne;
  while (nb > decl && is_ident(nb[-1]))
    nb--;
  if (nb == ne)
    return 1;
  if (!(f->name = dup_n(nb, (size_t)(ne - nb))))
    return -1;
  f->offset = (uint32_t)off;
  f->size = (uint32_t)size;
  f->is_signed = sgn == 1;
  return 0;
}

static void event_free(lgp_trace_event *ev) {
  size_t i;
  for (i = 0; i < ev->nfields; i++)
    free(ev->fields[i].name);
  free(ev->fields);
  free(ev->system);
  free(ev->name);
  memset(ev, 0, sizeof *ev);
}

/* One event's format text. 0, 1 when it names no event (skipped), -1 out
** of memory. */
static int event_text(lgp_trace_event *ev, const char *sys, const char *text, size_t len) {
  const char *p = text, *end = text + len;
  size_t cap = 0;
  int have_id = 0, rc;
  memset(ev, 0, sizeof *ev);
  while (p < end) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    if (!e)
      e = end;
    if (e - p > 5 && memcmp(p, "name:", 5) == 0 && !ev->name) {
      const char *b = p + 5;
      while (b < e && (*b == ' ' || *b == '\t'))
        b++;
      if (!(ev->name = dup_n(b, (size_t)(e - b))))
        goto oom;
    } else if (e - p > 3 && memcmp(p, "ID:", 3) == 0) {
      int64_t id = decimal(p + 3, e);
      if (id >= 0) {
        ev->id = (uint64_t)id;
        have_id = 1;
      }
    } else {
      lgp_trace_field f;
      rc = field_line(p, e, &f);
      if (rc < 0)
        goto oom;
      if (rc == 0) {
        if (lgp_grow((void **)&ev->fields, &cap, ev->nfields + 1, sizeof *ev->fields) != 0) {
          free(f.name);
          goto oom;
        }
        ev->fields[ev->nfields++] = f;
      }
    }
    p = e + 1;
  }
  if (!have_id || !ev->name) {
    event_free(ev);
    return 1;
  }
  if (!(ev->system = dup_n(sys, strlen(sys))))
    goto oom;
  return 0;
oom:
  event_free(ev);
  return -1;
}

void lgp_trace_free(lgp_trace_data *td) {
  size_t i;
  for (i = 0; i < td->nevents; i++)
    event_free(&td->events[i]);
  free(td->events);
  memset(td, 0, sizeof *td);
}

int lgp_trace_parse(lgp_trace_data *td, const uint8_t *blob, size_t len, const char *name,
                    lgp_err *err) {
  static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
  tcursor c = { blob, blob + len, 0 };
  const char *s, *text;
  size_t tlen, cap = 0;
  uint64_t v, nsys, n, i, j;
  memset(td, 0, sizeof *td);
  if (len < sizeof magic || memcmp(blob, magic, sizeof magic) != 0)
    return lgp_fail(err, name, "tracing data: no tracing data magic");
  c.p += sizeof magic;
  if (!take_cstr(&c) || (size_t)(c.end - c.p) < 2)
    goto cut;
  td->big_endian = c.p[0] != 0;
  td->long_size = c.p[1];
  c.big_endian = td->big_endian;
  c.p += 2;
  if (take_int(&c, 4, &v) != 0)           /* page size */
    goto cut;
  /* header_page and header_event: a name, then a sized text */
  for (i = 0; i < 2; i++)
    if (!take_cstr(&c) || take_text(&c, &text, &tlen) != 0)
      goto cut;
  if (take_int(&c, 4, &n) != 0)           /* ftrace's own formats */
    goto cut;
  for (i = 0; i < n; i++)
    if (take_text(&c, &text, &tlen) != 0)
      goto cut;
  if (take_int(&c, 4, &nsys) != 0)
    goto cut;
  for (i = 0; i < nsys; i++) {
    if (!(s = take_cstr(&c)) || take_int(&c, 4, &n) != 0)
      goto cut;
    for (j = 0; j < n; j++) {
      lgp_trace_event ev;
      int rc;
      if (take_text(&c, &text, &tlen) != 0)
        goto cut;
      rc = event_text(&ev, s, text, tlen);
      if (rc < 0)
        goto oom;
      if (rc > 0)
        continue;
      if (lgp_grow((void **)&td->events, &cap, td->nevents + 1, sizeof *td->events) != 0) {
        event_free(&ev);
        goto oom;
      }
      td->events[td->nevents++] = ev;
    }
  }
  /* kallsyms, printk formats and saved command lines follow: not needed */
  return 0;
cut:
  lgp_trace_free(td);
  return lgp_fail(err, name, "tracing data cut short");
oom:
  lgp_trace_free(td);
  return lgp_fail(err, name, "out of memory");
}

const lgp_trace_event *lgp_trace_event_by_id(const lgp_trace_data *td, uint64_t id) {
  size_t i;
  /* a recording carries the formats of its own few tracepoints */
  for (i = 0; i < td->nevents; i++)
    if (td->events[i].id == id)
      return &td->events[i];
  return NULL;
}

const lgp_trace_field *lgp_trace_field_find(const lgp_trace_event *ev, const char *name) {
  size_t i;
  for (i = 0; i < ev->nfields; i++)
    if (strcmp(ev->fields[i].name, name) == 0)
      return &ev->fields[i];
  return NULL;
}

int lgp_trace_field_int(const lgp_trace_data *td, const lgp_trace_field *f, const uint8_t *raw,
                        size_t raw_len, int64_t *out) {
  uint64_t v;
  unsigned bits;
  if (!(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) || f->offset > raw_len
      || f->size > raw_len - f->offset)
    return -1;
  v = load(raw + f->offset, f->size, td->big_endian);
  bits = 8 * f->size;
  if (f->is_signed && bits < 64 && (v >> (bits - 1) & 1))
    v |= ~(uint64_t)0 << bits;
  *out = (int64_t)v;
  return 0;
}
