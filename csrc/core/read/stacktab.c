/*
** stacktab.c: freeing a table of sampled stacks, the names of a binary's
** status (see stacktab.h).
*/
#include <stdlib.h>
#include <string.h>
#include "read/stacktab.h"
#include "read/elfsym.h"
#include "util/util.h"

const char *lgp_st_dso_status_name(unsigned status) {
  static const char *const names[] = {
    "ok", "missing", "mismatch", "stripped", "kernel", "vdso", "jit", "unknown"
  };
  return names[status <= LGP_DSO_UNKNOWN ? status : LGP_DSO_UNKNOWN];
}

uint64_t lgp_st_func_size(const lgp_st_func *f) {
  return f->end > f->start ? f->end - f->start : 0;
}

uint64_t lgp_st_name_hash(const char *s, size_t len, int origin) {
  /* FNV-1a, 64 bits (a collision between two of a binary's names, which
     would make a missing function present, is then ~n^2 / 2^65); an
     origin's hash starts from another basis */
  uint64_t h = origin ? 0x84222325cbf29ce4u : 0xcbf29ce484222325u;
  size_t i;
  for (i = 0; i < len; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3u;
  }
  return h;
}

static int u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int lgp_st_dso_set_names(lgp_st_dso *d, const char *const *names, size_t n) {
  uint64_t *h = lgp_alloc_array(2 * n + 1, sizeof *h);
  size_t i, k = 0, m = 0;
  if (h == NULL)
    return -1;
  for (i = 0; i < n; i++) {
    size_t len = strlen(names[i]), o = lgp_clone_origin_len(names[i]);
    h[k++] = lgp_st_name_hash(names[i], len, 0);
    if (o > 0)
      h[k++] = lgp_st_name_hash(names[i], o, 1);
  }
  qsort(h, k, sizeof *h, u64_cmp);
  for (i = 0; i < k; i++)
    if (m == 0 || h[m - 1] != h[i])
      h[m++] = h[i];
  free(d->names);
  d->names = h;
  d->nnames = m;
  d->names_read = 1;
  return 0;
}

static int has_hash(const lgp_st_dso *d, uint64_t h) {
  return d->nnames > 0 && bsearch(&h, d->names, d->nnames, sizeof h, u64_cmp) != NULL;
}

int lgp_st_dso_defines(const lgp_st_dso *d, const char *name, int as_origin) {
  size_t len = strlen(name), o;
  if (!d->names_read)
    return -1;
  if (!as_origin)
    return has_hash(d, lgp_st_name_hash(name, len, 0));
  /* the family of f.isra.0 is f: f itself, or a clone of f (f.constprop.0) */
  o = lgp_clone_origin_len(name);
  if (o > 0)
    len = o;
  return has_hash(d, lgp_st_name_hash(name, len, 0)) || has_hash(d, lgp_st_name_hash(name, len, 1));
}

void lgp_stacktab_free(lgp_stacktab *t) {
  size_t i;
  for (i = 0; i < t->ndsos; i++) {
    free(t->dsos[i].path);
    free(t->dsos[i].found);
    free(t->dsos[i].names);
  }
  for (i = 0; i < t->nfuncs; i++)
    free(t->funcs[i].name);
  for (i = 0; i < t->nthreads; i++)
    free(t->threads[i].comm);
  for (i = 0; i < t->nevents; i++)
    free(t->events[i].name);
  for (i = 0; i < t->nfiles; i++)
    free(t->files[i]);
  for (i = 0; i < t->nunwind_errors; i++)
    free(t->unwind_errors[i].what);
  free(t->unwind_errors);
  free(t->dsos);
  free(t->funcs);
  free(t->frame_defs);
  free(t->frames);
  free(t->stacks);
  free(t->times);
  free(t->threads);
  free(t->events);
  free(t->files);
  free(t->recording);
  memset(t, 0, sizeof *t);
}
