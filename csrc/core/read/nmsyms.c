/*
** nmsyms.c: function symbols from an nm-style file (gprof -S). The file is
** read in pieces the way gprof's line buffer takes them; each piece gives
** an address, a type character and a name, and 't'/'T' lines become
** function symbols with no source information.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/nmsyms.h"

/* The C locale's isspace. */
static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* A token read as C's strtoull reads base 16: a sign, "0x" when a hex
** digit follows it, the digits up to the first other character; too large
** gives the maximum. 1, or 0 when no digit starts the token. */
static int parse_hex(const char *s, size_t len, lgp_addr *out) {
  size_t i = 0;
  int neg = 0, over = 0;
  lgp_addr v = 0;
  if (i < len && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  if (i + 2 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
      hex_value(s[i + 2]) >= 0)
    i += 2;
  if (i >= len || hex_value(s[i]) < 0)
    return 0;
  for (; i < len && hex_value(s[i]) >= 0; i++) {
    if (v > (UINT64_MAX >> 4))
      over = 1;
    v = (v << 4) | (lgp_addr)hex_value(s[i]);
  }
  *out = over ? UINT64_MAX : neg ? (lgp_addr)0 - v : v;
  return 1;
}

/* One piece (up to its first NUL): the address token, the type and the
** name token. 0 when it holds fewer than three items. */
typedef struct nm_item { const char *addr, *name; size_t addr_len, name_len; char type; } nm_item;

static int scan_piece(const char *p, const char *end, nm_item *it) {
  const char *q;
  while (p < end && is_space(*p))
    p++;
  for (q = p; q < end && *q != '\0' && !is_space(*q); q++)
    ;
  if (q == p)
    return 0;
  it->addr = p;
  it->addr_len = (size_t)(q - p);
  for (p = q; p < end && is_space(*p); p++)
    ;
  if (p >= end || *p == '\0')
    return 0;
  it->type = *p++;
  while (p < end && is_space(*p))
    p++;
  for (q = p; q < end && *q != '\0' && !is_space(*q); q++)
    ;
  if (q == p)
    return 0;
  it->name = p;
  it->name_len = (size_t)(q - p);
  return 1;
}

int lgp_nmsyms_parse(const char *data, size_t size, lgp_rawsym **syms_out, size_t *n_out,
                     char **names_out) {
  lgp_rawsym *syms = NULL;
  size_t n = 0, cap = 0, pos = 0, used = 0;
  char *names = malloc(size + 1); /* a name and its NUL fit in its piece */
  lgp_addr last = 0;
  int have_last = 0;
  if (names == NULL)
    return -1;
  while (pos < size) {
    size_t lim = size - pos < LGP_NM_PIECE ? size - pos : LGP_NM_PIECE;
    const char *nl = memchr(data + pos, '\n', lim);
    const char *end = nl != NULL ? nl + 1 : data + pos + lim;
    const char *stop = memchr(data + pos, '\0', (size_t)(end - (data + pos)));
    nm_item it;
    lgp_addr addr;
    lgp_rawsym *r;
    if (scan_piece(data + pos, stop != NULL ? stop : end, &it) &&
        (it.type == 't' || it.type == 'T')) {
      if (parse_hex(it.addr, it.addr_len, &addr)) {
        last = addr;
        have_last = 1;
      }
      if (have_last) { /* gprof keeps the previous value; the first: garbage */
        if (lgp_grow((void **)&syms, &cap, n + 1, sizeof *syms) != 0) {
          free(syms);
          free(names);
          return -1;
        }
        r = &syms[n];
        memset(r, 0, sizeof *r);
        r->addr = last;
        memcpy(names + used, it.name, it.name_len);
        names[used + it.name_len] = '\0';
        r->name = names + used; /* names never moves */
        used += it.name_len + 1;
        r->symndx = (uint32_t)n;
        r->is_static = it.type == 't';
        r->is_func = 1;
        r->file = -1;
        r->line = 0;
        n++;
      }
    }
    pos = (size_t)(end - data);
  }
  if (syms == NULL && (syms = malloc(1)) == NULL) {
    free(names);
    return -1;
  }
  *syms_out = syms;
  *n_out = n;
  *names_out = names;
  return 0;
}

/* The whole file: 0, or -1 with errno (open or read failed). A read error
** after some bytes keeps them, as gprof's line reads stop there. */
static int read_all(const char *path, char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  size_t len = 0, cap = 0;
  char *buf = NULL;
  if (f == NULL)
    return -1;
  for (;;) {
    size_t got;
    if (lgp_grow((void **)&buf, &cap, len + 65536, 1) != 0) {
      free(buf);
      fclose(f);
      errno = ENOMEM;
      return -1;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  fclose(f);
  *data = buf;
  *size = len;
  return 0;
}

int lgp_nmsyms_load(lgp_image *im, const char *path, lgp_err *err) {
  char *data = NULL;
  size_t size = 0;
  int rc;
  if (read_all(path, &data, &size) != 0)
    return lgp_fail(err, path, "%s", strerror(errno));
  rc = lgp_nmsyms_parse(data, size, &im->syms, &im->nsyms, &im->strtab);
  free(data);
  if (rc != 0)
    return lgp_fail(err, path, "out of memory");
  im->strtab_size = 0; /* the names are not a string table to scan */
  im->external_syms = 1;
  if (im->nsyms == 0)
    return lgp_fail(err, path, "no function symbols (no line of type t or T)");
  return 0;
}
