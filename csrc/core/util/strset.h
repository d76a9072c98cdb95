/*
** strset.h: a set of strings, each kept once (a copy) with a dense id in
** the order first added.
*/
#ifndef strset_h
#define strset_h

#include "util/hashtab.h"
#include "util/util.h"

typedef struct lgp_strset {
  char **s;          /* s[id] */
  size_t n, cap;
  lgp_hashtab ids;   /* the ids by string */
  size_t bytes;      /* the strings' lengths with their NULs */
  int borrow;        /* set before the first add: keep the callers' strings
                        (which outlive the set), not copies */
} lgp_strset;

/* The id of s, added if new (*added says so when not NULL); -2 when out of
** memory. */
int32_t lgp_strset_add(lgp_strset *t, const char *s, int *added);
/* Frees the set and, unless they were taken (t->s set to NULL) or
** borrowed, the strings. */
void lgp_strset_free(lgp_strset *t);

#endif
