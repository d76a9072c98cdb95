/*
** hashtab.h: the core's hash table: open addressing with linear probing,
** of 32-bit ids whose keys live with the caller, who hashes them (32 bits)
** and compares them. A slot holds the key's hash in its high half and the
** id + 1 in its low half (0: empty): a probe compares the caller's keys
** only where the hashes agree, and growing moves slots without hashing a
** key again. At most half full.
**
**   lgp_hashpos at;
**   uint32_t id;
**   if (lgp_hashtab_reserve(&t, 1) != 0) ... out of memory
**   for (at = lgp_hashtab_probe(&t, h); (id = lgp_hashtab_next(&t, &at)) != LGP_HASHTAB_END;)
**     if (same key as id) ... found
**   lgp_hashtab_put(&t, &at, new_id);   -- not found: into the empty slot reached
**
** Keys may repeat: the ids of one key are met in the order they were put.
*/
#ifndef hashtab_h
#define hashtab_h

#include <stddef.h>
#include <stdint.h>

typedef struct lgp_hashtab {
  uint64_t *slots;
  size_t nslots; /* a power of 2; 0 before the first reserve */
  size_t n;      /* ids put */
  /* set before the first reserve: slots from calloc, never on 2 MB pages
     as lgp_calloc_array puts arrays of a megabyte or more (a table kept
     among many small blocks, where the gap before such an array costs
     whole pages once small blocks go in it) */
  int plain;
} lgp_hashtab;

/* Where a probe is: the slot it reads next, and the hash it looks for. */
typedef struct lgp_hashpos {
  size_t i;
  uint64_t tag;
} lgp_hashpos;

#define LGP_HASHTAB_END UINT32_MAX

/* An empty table holds no memory (zeroed, as {0} makes it); freed, it is
** empty again (and as plain as it was). */
void lgp_hashtab_free(lgp_hashtab *t);
/* Empties the table; its storage shrinks to what the ids it held needed. 0,
** or -1 (out of memory: the table is then as lgp_hashtab_free leaves it). */
int lgp_hashtab_clear(lgp_hashtab *t);
/* Room for more ids (keeping it at most half full); 0, or -1 (out of memory). */
int lgp_hashtab_grow(lgp_hashtab *t, size_t need);
static inline int lgp_hashtab_reserve(lgp_hashtab *t, size_t more) {
  return 2 * (t->n + more) <= t->nslots ? 0 : lgp_hashtab_grow(t, t->n + more);
}

/* A 32-bit hash of the len bytes at s (FNV-1a 8 bytes at a time, mixed
** at the end: the table is indexed by the low bits). */
uint32_t lgp_hashtab_hash_bytes(const char *s, size_t len);
/* A 32-bit hash of a 64-bit key (a multiplicative mix, its high half). */
static inline uint32_t lgp_hashtab_hash_u64(uint64_t k) {
  k *= 0x9E3779B97F4A7C15u;
  return (uint32_t)((k ^ (k >> 29)) >> 32);
}

/* A 32-bit hash of n 32-bit words (a stack's frame ids): FNV-1a a word at
** a time, mixed at the end (the table is indexed by the low bits). */
uint32_t lgp_hashtab_hash_words(const uint32_t *w, size_t n);

/* Starts a probe for hash h (an empty table: the probe ends at once). */
static inline lgp_hashpos lgp_hashtab_probe(const lgp_hashtab *t, uint32_t h) {
  lgp_hashpos at;
  at.i = t->nslots != 0 ? h & (t->nslots - 1) : 0;
  at.tag = (uint64_t)h << 32;
  return at;
}

/* The next id put with the probe's hash, or LGP_HASHTAB_END at an empty
** slot (where lgp_hashtab_put puts). */
static inline uint32_t lgp_hashtab_next(const lgp_hashtab *t, lgp_hashpos *at) {
  uint64_t s;
  if (t->nslots == 0)
    return LGP_HASHTAB_END;
  while ((s = t->slots[at->i]) != 0) {
    at->i = (at->i + 1) & (t->nslots - 1);
    if ((s & ~(uint64_t)UINT32_MAX) == at->tag)
      return (uint32_t)s - 1;
  }
  return LGP_HASHTAB_END;
}

/* Puts id (below UINT32_MAX) where the probe at ended (LGP_HASHTAB_END);
** lgp_hashtab_reserve made room before the probe began. */
static inline void lgp_hashtab_put(lgp_hashtab *t, const lgp_hashpos *at, uint32_t id) {
  t->slots[at->i] = at->tag | ((uint64_t)id + 1);
  t->n++;
}

/* Puts id (below UINT32_MAX) under hash h, after the ids already there
** (a key not looked for, or looked for and not found): 0, or -1 (out of
** memory). */
static inline int lgp_hashtab_add(lgp_hashtab *t, uint32_t h, uint32_t id) {
  lgp_hashpos at;
  if (lgp_hashtab_reserve(t, 1) != 0)
    return -1;
  at = lgp_hashtab_probe(t, h);
  while (lgp_hashtab_next(t, &at) != LGP_HASHTAB_END)
    ;
  lgp_hashtab_put(t, &at, id);
  return 0;
}

#endif
