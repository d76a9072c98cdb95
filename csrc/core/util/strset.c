/*
** strset.c: a string set with dense ids (open addressing over FNV-1a).
*/
#include <stdlib.h>
#include <string.h>

#include "util/strset.h"

static int rehash(lgp_strset *t) {
  size_t ns = t->nslots ? t->nslots * 2 : 64, k, i;
  size_t *slots = lgp_calloc_array(ns, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (k = 0; k < t->n; k++) {
    i = lgp_hash_bytes(t->s[k], strlen(t->s[k])) & (ns - 1);
    while (slots[i] != 0)
      i = (i + 1) & (ns - 1);
    slots[i] = k + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->nslots = ns;
  return 0;
}

int32_t lgp_strset_add(lgp_strset *t, const char *s, int *added) {
  size_t i, len = strlen(s);
  if (added != NULL)
    *added = 0;
  if (t->n * 2 >= t->nslots && rehash(t) != 0)
    return -2;
  for (i = lgp_hash_bytes(s, len) & (t->nslots - 1); t->slots[i] != 0; i = (i + 1) & (t->nslots - 1))
    if (strcmp(t->s[t->slots[i] - 1], s) == 0)
      return (int32_t)(t->slots[i] - 1);
  if (t->n >= INT32_MAX || lgp_grow((void **)&t->s, &t->cap, t->n + 1, sizeof *t->s) != 0)
    return -2;
  /* a borrowed string is never written through s[] */
  t->s[t->n] = t->borrow ? (char *)(uintptr_t)s : lgp_strdup(s);
  if (t->s[t->n] == NULL)
    return -2;
  t->bytes += len + 1;
  t->slots[i] = t->n + 1;
  if (added != NULL)
    *added = 1;
  return (int32_t)t->n++;
}

void lgp_strset_free(lgp_strset *t) {
  size_t i;
  if (t->s != NULL && !t->borrow)
    for (i = 0; i < t->n; i++)
      free(t->s[i]);
  free(t->s);
  free(t->slots);
  memset(t, 0, sizeof *t);
}
