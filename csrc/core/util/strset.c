/*
** strset.c: a string set with dense ids (util/hashtab.h over the strings).
*/
#include <stdlib.h>
#include <string.h>

#include "util/strset.h"

int32_t lgp_strset_add(lgp_strset *t, const char *s, int *added) {
  size_t len = strlen(s);
  lgp_hashpos at;
  uint32_t id;
  if (added != NULL)
    *added = 0;
  if (lgp_hashtab_reserve(&t->ids, 1) != 0)
    return -2;
  for (at = lgp_hashtab_probe(&t->ids, lgp_hashtab_hash_bytes(s, len));
       (id = lgp_hashtab_next(&t->ids, &at)) != LGP_HASHTAB_END;)
    if (strcmp(t->s[id], s) == 0)
      return (int32_t)id;
  if (t->n >= INT32_MAX || lgp_grow((void **)&t->s, &t->cap, t->n + 1, sizeof *t->s) != 0)
    return -2;
  /* a borrowed string is never written through s[] */
  t->s[t->n] = t->borrow ? (char *)(uintptr_t)s : lgp_strdup(s);
  if (t->s[t->n] == NULL)
    return -2;
  t->bytes += len + 1;
  lgp_hashtab_put(&t->ids, &at, (uint32_t)t->n);
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
  lgp_hashtab_free(&t->ids);
  memset(t, 0, sizeof *t);
}
