/*
** perfreader.c: the state of one reading (perfreader.h): its memory, and
** the table of sampled stacks it fills: source files, functions and
** frames, each made once.
*/
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/perf/perfreader.h"

int lgp_pr_oom(reader *s) {
  return lgp_fail(s->err, s->pd->path, "out of memory");
}

/* The reader's arrays grow by doubling with realloc: one that ends the
** heap grows where it is, and none is put on a 2 MB boundary (lgp_grow's
** big arrays are), which in the command's heap on 2 MB pages left gaps
** that cost whole pages once anything small was put in them. */
int lgp_pr_grow_array(void **p, size_t *cap, size_t need, size_t size) {
  size_t ncap = *cap ? *cap : 16;
  void *np;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2)
      return -1;
    ncap *= 2;
  }
  if (ncap > SIZE_MAX / size || !(np = realloc(*p, ncap * size)))
    return -1;
  *p = np;
  *cap = ncap;
  return 0;
}

/* (malloc: lgp_alloc_array would put one of a megabyte or more on a 2 MB
** boundary, where, in the command's heap on 2 MB pages, the gap before it
** costs whole pages once small blocks go in it) */
void *lgp_pr_alloc_array(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size)
    return NULL;
  return malloc(n == 0 || size == 0 ? 1 : n * size);
}

/* *items (n of size bytes each) in the order of keys (one per item; equal
** keys keep the items' order: a stable radix sort), as a new array in
** place of the old. 0, or -1 out of memory (*items as it was). */
int lgp_pr_sort_by_keys(void **items, size_t n, size_t size, const uint64_t *keys) {
  uint32_t *idx = lgp_pr_alloc_array(n, sizeof *idx);
  unsigned char *sorted = lgp_pr_alloc_array(n, size);
  const unsigned char *from = *items;
  size_t i;
  int rc = -1;
  if (idx && sorted && n < UINT32_MAX) {
    for (i = 0; i < n; i++)
      idx[i] = (uint32_t)i;
    if (lgp_radix_sort(idx, keys, n) == 0) {
      for (i = 0; i < n; i++)
        memcpy(sorted + i * size, from + (size_t)idx[i] * size, size);
      free(*items);
      *items = sorted;
      sorted = NULL;
      rc = 0;
    }
  }
  free(idx);
  free(sorted);
  return rc;
}

char *lgp_pr_joined(const char *a, const char *b, const char *c) {
  size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
  char *p = malloc(la + lb + lc + 1);
  if (!p)
    return NULL;
  memcpy(p, a, la);
  memcpy(p + la, b, lb);
  memcpy(p + la + lb, c, lc + 1);
  return p;
}

int lgp_pr_is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- source files ---- */

static int file_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  return strcmp(s->out->files[v], key) == 0;
}

/* The id of a source file name; LGP_ST_NOFILE without a name, and after
** a failure (then s->err is set). */
uint32_t lgp_pr_file_id(reader *s, const char *name) {
  uint32_t h;
  uint32_t v;
  if (!name || !*name)
    return LGP_ST_NOFILE;
  h = lgp_hashtab_hash_bytes(name, strlen(name));
  v = lgp_pr_lookup(&s->file_ht, h, file_eq, s, name);
  if (v != NONE)
    return v;
  if (GROW(s, s->out->files, s->files_cap, s->out->nfiles + 1) != 0)
    return NONE;
  v = (uint32_t)s->out->nfiles;
  if (!(s->out->files[v] = lgp_strdup(name)) || lgp_hashtab_add(&s->file_ht, h, v) != 0) {
    free(s->out->files[v]);
    lgp_pr_oom(s);
    return NONE;
  }
  s->out->nfiles++;
  return v;
}

/* ---- functions and frames ---- */

typedef struct funckey {
  uint32_t dso;
  uint8_t is_inline;
  uint64_t start;
  const char *name;
} funckey;

static int func_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const funckey *k = key;
  const lgp_st_func *f = &s->out->funcs[v];
  return f->dso == k->dso && f->is_inline == k->is_inline && f->start == k->start
         && strcmp(f->name, k->name) == 0;
}

uint32_t lgp_pr_func_get(reader *s, uint32_t dso, const char *name, int is_inline, int is_unknown,
                         uint64_t start, uint64_t end, uint32_t file, uint32_t line) {
  funckey k;
  uint32_t h;
  uint32_t v;
  lgp_st_func *f;
  k.dso = dso;
  k.is_inline = (uint8_t)is_inline;
  k.start = is_inline ? 0 : start;
  k.name = name;
  h = lgp_hashtab_hash_bytes(name, strlen(name))
      ^ lgp_hashtab_hash_u64(((uint64_t)dso << 1 | (unsigned)is_inline) ^ k.start);
  v = lgp_pr_lookup(&s->func_ht, h, func_eq, s, &k);
  if (v != NONE)
    return v;
  if (GROW(s, s->out->funcs, s->funcs_cap, s->out->nfuncs + 1) != 0)
    return NONE;
  v = (uint32_t)s->out->nfuncs;
  f = &s->out->funcs[v];
  memset(f, 0, sizeof *f);
  f->dso = dso;
  f->start = k.start;
  f->end = is_inline ? 0 : end;
  f->file = file;
  f->line = line;
  f->is_inline = (uint8_t)is_inline;
  f->is_unknown = (uint8_t)is_unknown;
  if (!(f->name = lgp_strdup(name)))
    return (uint32_t)lgp_pr_oom(s);
  s->out->nfuncs++;
  if (lgp_hashtab_add(&s->func_ht, h, v) != 0)
    return (uint32_t)lgp_pr_oom(s);
  return v;
}

uint32_t lgp_pr_fdef_add(reader *s, uint32_t func, uint64_t addr, uint32_t file, uint32_t line) {
  lgp_st_frame *fr;
  if (func == NONE || GROW(s, s->out->frame_defs, s->fdefs_cap, s->out->nframe_defs + 1) != 0)
    return NONE;
  fr = &s->out->frame_defs[s->out->nframe_defs];
  fr->func = func;
  fr->addr = addr;
  fr->file = file;
  fr->line = line;
  return (uint32_t)s->out->nframe_defs++;
}

int lgp_pr_cframe_push(reader *s, uint32_t fd) {
  if (fd == NONE || GROW(s, s->cframes, s->cframes_cap, s->ncframes + 1) != 0)
    return -1;
  s->cframes[s->ncframes++] = fd;
  return 0;
}

/* "[unknown] label+0xOFF": one function per address no symbol covers
** (put together by hand: a stripped binary has thousands). */
int lgp_pr_unknown_frame(reader *s, uint32_t dso, uint64_t off) {
  static const char digits[] = "0123456789abcdef";
  char name[300], hex[16];
  size_t n = 10, l, k = 0;
  uint64_t v;
  uint32_t f;
  memcpy(name, "[unknown] ", 10);
  /* in no mapping: the address alone */
  if (dso != s->unknown_dso) {
    l = strlen(s->dx[dso].label);
    l = l > 250 ? 250 : l;
    memcpy(name + n, s->dx[dso].label, l);
    n += l;
    name[n++] = '+';
  }
  name[n++] = '0';
  name[n++] = 'x';
  v = off;
  do {                       /* the digits, least significant first */
    hex[k++] = digits[v & 0xf];
    v >>= 4;
  } while (v != 0);
  while (k > 0)
    name[n++] = hex[--k];
  name[n] = '\0';
  f = lgp_pr_func_get(s, dso, name, 0, 1, off, off + 1, LGP_ST_NOFILE, 0);
  return lgp_pr_cframe_push(s, lgp_pr_fdef_add(s, f, off, LGP_ST_NOFILE, 0));
}
