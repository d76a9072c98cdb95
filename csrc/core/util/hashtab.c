/*
** hashtab.c: the core's hash table (hashtab.h).
*/
#include <stdlib.h>
#include <string.h>

#include "util/hashtab.h"
#include "util/util.h"

#define MIN_SLOTS 16

void lgp_hashtab_free(lgp_hashtab *t) {
  int plain = t->plain;
  free(t->slots);
  memset(t, 0, sizeof *t);
  t->plain = plain;
}

/* ns empty slots: big arrays on 2 MB pages (lgp_calloc_array), unless
** the table asked for plain memory. */
static uint64_t *slots_alloc(const lgp_hashtab *t, size_t ns) {
  if (t->plain)
    return ns > SIZE_MAX / sizeof(uint64_t) ? NULL : calloc(ns, sizeof(uint64_t));
  return lgp_calloc_array(ns, sizeof(uint64_t));
}

/* The table moved into ns slots (a power of 2 holding its ids). */
static int resize(lgp_hashtab *t, size_t ns) {
  uint64_t *slots = slots_alloc(t, ns);
  size_t k;
  if (slots == NULL)
    return -1;
  for (k = 0; k < t->nslots; k++) {
    uint64_t s = t->slots[k];
    if (s != 0) {
      size_t i = (size_t)(s >> 32) & (ns - 1);
      while (slots[i] != 0)
        i = (i + 1) & (ns - 1);
      slots[i] = s;
    }
  }
  free(t->slots);
  t->slots = slots;
  t->nslots = ns;
  return 0;
}

int lgp_hashtab_grow(lgp_hashtab *t, size_t need) {
  size_t ns = t->nslots ? t->nslots : MIN_SLOTS;
  while (ns / 2 < need) {
    if (ns > SIZE_MAX / 4)
      return -1;
    ns *= 2;
  }
  return ns == t->nslots ? 0 : resize(t, ns);
}

int lgp_hashtab_clear(lgp_hashtab *t) {
  size_t ns = MIN_SLOTS;
  /* cleared often (a table per group of keys): the cost of a clear stays
     that of the ids it held, not of the largest group seen */
  while (ns / 2 < t->n)
    ns *= 2;
  if (ns < t->nslots) {
    free(t->slots);
    t->slots = slots_alloc(t, ns);
    t->nslots = t->slots != NULL ? ns : 0;
    t->n = 0;
    return t->slots != NULL ? 0 : -1;
  }
  if (t->slots != NULL)
    memset(t->slots, 0, t->nslots * sizeof *t->slots);
  t->n = 0;
  return 0;
}

uint32_t lgp_hashtab_hash_bytes(const char *s, size_t len) {
  uint64_t h = 1469598103934665603u, w;
  size_t i = 0;
  /* 8 bytes a step (names run to a hundred bytes: C++ signatures) */
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 1099511628211u;
  }
  for (; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return lgp_hashtab_hash_u64(h);
}

uint32_t lgp_hashtab_hash_words(const uint32_t *w, size_t n) {
  uint64_t h = 1469598103934665603u;
  size_t i;
  for (i = 0; i < n; i++)
    h = (h ^ w[i]) * 1099511628211u;
  return lgp_hashtab_hash_u64(h);
}
