/*
** bbcount.h: basic-block execution counts per symbol, as gprof keeps them
** at line granularity: ten slots per symbol, in the order blocks arrive.
*/
#ifndef bbcount_h
#define bbcount_h

#include "read/gmon.h"
#include "model/symtab.h"

#define LGP_BB_SLOTS 10

/* The used slots of every symbol, symbols in address (node) order: those of
** symbol s are slots[first[s] .. first[s + 1]). */
typedef struct lgp_bbcounts {
  size_t nsyms;
  uint32_t *first;    /* nsyms + 1 offsets */
  lgp_bbcount *slots;
  size_t nslots;
} lgp_bbcounts;

/* Files the blocks g read into the symbols of ix: a block goes to the first
** slot of its symbol that is empty (address 0) or holds its address, and
** counts add up; an eleventh distinct address, or a block outside every
** symbol, is dropped. 0, or -1 (out of memory). */
int lgp_bbcounts_build(lgp_bbcounts *b, const lgp_gmon *g, const lgp_symindex *ix);
void lgp_bbcounts_free(lgp_bbcounts *b);

static inline size_t lgp_bbcounts_nslots(const lgp_bbcounts *b, uint32_t s) {
  return b != NULL && s < b->nsyms ? b->first[s + 1] - b->first[s] : 0;
}
static inline const lgp_bbcount *lgp_bbcounts_slots(const lgp_bbcounts *b, uint32_t s) {
  return b->slots + b->first[s];
}

#endif
