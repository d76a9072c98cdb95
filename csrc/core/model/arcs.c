/*
** arcs.c: the arc table as arcs are read (gprof's cg_tally merges records
** of the same caller and callee): records from one caller arrive
** together, so each caller's arcs are merged in a small table reused for
** the next caller; the (parent, child) hash over all arcs is built only
** when a caller comes back or a lookup needs it. Arcs keep the order they
** were first seen in, which gprof's list order depends on. Also the arcs
** by calling line that gprof -s writes.
*/
#include <stdlib.h>
#include <string.h>

#include "model/arcs.h"
/* {====================================================== arcs */

/* A slot holds the arc index + 1 in its low half and the key's hash in
** its high half, so probing past other keys does not touch the arcs. */
static uint64_t arc_key_hash(uint32_t parent, uint32_t child) {
  uint64_t k = ((uint64_t)parent << 32 | child) * 0x9E3779B97F4A7C15u;
  return k ^ (k >> 29);
}

static int arc_end_groups(lgp_arctab *p);

uint32_t lgp_arctab_find(lgp_arctab *p, uint32_t parent, uint32_t child) {
  uint64_t h = arc_key_hash(parent, child), tag = h >> 32 << 32;
  size_t mask, i;
  if (p->mode == LGP_ARCS_SEALED)
    return LGP_ARC_NONE;
  /* the hash over all arcs is built on the first lookup */
  if (arc_end_groups(p) != 0) {
    for (i = 0; i < p->narcs; i++) /* out of memory: slow but right */
      if (p->arcs[i].parent == parent && p->arcs[i].child == child)
        return (uint32_t)i;
    return LGP_ARC_NONE;
  }
  if (p->nslots == 0)
    return LGP_ARC_NONE;
  mask = p->nslots - 1;
  for (i = (size_t)h & mask; p->slots[i] != 0; i = (i + 1) & mask) {
    uint64_t slot = p->slots[i];
    if ((slot & ~(uint64_t)UINT32_MAX) == tag) {
      const lgp_arc *a = &p->arcs[(uint32_t)slot - 1];
      if (a->parent == parent && a->child == child)
        return (uint32_t)slot - 1;
    }
  }
  return LGP_ARC_NONE;
}

static void arc_slot_put(uint64_t *slots, size_t mask, uint64_t h, size_t k) {
  size_t i = (size_t)h & mask;
  while (slots[i] != 0)
    i = (i + 1) & mask;
  slots[i] = (h >> 32 << 32) | ((uint64_t)k + 1);
}

/* Hashes all arcs into a table of at least min_slots slots. */
static int arc_rehash(lgp_arctab *p, size_t min_slots) {
  size_t ns = 1024, k;
  uint64_t *slots;
  while (ns < min_slots)
    ns *= 2;
  slots = lgp_calloc_array(ns, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (k = 0; k < p->narcs; k++)
    arc_slot_put(slots, ns - 1, arc_key_hash(p->arcs[k].parent, p->arcs[k].child), k);
  free(p->slots);
  p->slots = slots;
  p->nslots = ns;
  return 0;
}

static int arc_new(lgp_arctab *p, uint32_t parent, uint32_t child, uint64_t count) {
  lgp_arc *a;
  if (p->narcs >= LGP_ARCS_MAX)
    return LGP_ARCS_FULL;
  if (lgp_grow_aligned((void **)&p->arcs, &p->cap, p->narcs + 1, sizeof *p->arcs) != 0)
    return -1;
  a = &p->arcs[p->narcs++];
  memset(a, 0, sizeof *a);
  a->parent = parent;
  a->child = child;
  a->count = count;
  return 0;
}

/* Find or insert in one probe sequence. */
static int arc_add(lgp_arctab *p, uint32_t parent, uint32_t child, uint64_t count) {
  uint64_t h = arc_key_hash(parent, child), tag = h >> 32 << 32;
  size_t mask, i;
  lgp_arc *a;
  int rc;
  if ((p->narcs + 1) * 2 > p->nslots && arc_rehash(p, (p->narcs + 1) * 2) != 0)
    return -1;
  mask = p->nslots - 1;
  for (i = (size_t)h & mask; p->slots[i] != 0; i = (i + 1) & mask) {
    uint64_t slot = p->slots[i];
    if ((slot & ~(uint64_t)UINT32_MAX) == tag) {
      a = &p->arcs[(uint32_t)slot - 1];
      if (a->parent == parent && a->child == child) {
        a->count += count;
        return 0;
      }
    }
  }
  if ((rc = arc_new(p, parent, child, count)) != 0)
    return rc;
  p->slots[i] = tag | (uint64_t)p->narcs;
  return 0;
}

static void free_groups(lgp_arctab *p) {
  free(p->grp_seen);
  free(p->grp_slots);
  p->grp_seen = NULL;
  p->grp_slots = NULL;
  p->grp_nslots = 0;
}

/* Ends group mode: every arc goes into slots. */
static int arc_end_groups(lgp_arctab *p) {
  if (p->mode != LGP_ARCS_GROUPING)
    return 0;
  free_groups(p);
  p->mode = LGP_ARCS_HASHED;
  return p->narcs > 0 ? arc_rehash(p, (p->narcs + 1) * 2) : 0;
}

static uint32_t grp_hash(uint32_t child) {
  return (uint32_t)(((uint64_t)child * 0x9E3779B97F4A7C15u) >> 40);
}

/* The current group's children table, resized to hold the group. */
static int grp_resize(lgp_arctab *p, size_t ns) {
  uint64_t *slots = lgp_calloc_array(ns, sizeof *slots);
  uint64_t gen = (uint64_t)p->grp_gen << 32;
  size_t k;
  if (slots == NULL)
    return -1;
  for (k = p->grp_first; k < p->narcs; k++) {
    size_t i = grp_hash(p->arcs[k].child) & (ns - 1);
    while ((slots[i] >> 32) == p->grp_gen)
      i = (i + 1) & (ns - 1);
    slots[i] = gen | ((uint64_t)k + 1);
  }
  free(p->grp_slots);
  p->grp_slots = slots;
  p->grp_nslots = ns;
  return 0;
}

/* arc_add in group mode: a parent's records in a row are merged in the
** group table; a parent seen before in another group ends group mode. */
static int arc_add_grouped(lgp_arctab *p, uint32_t parent, uint32_t child, uint64_t count) {
  uint64_t gen;
  size_t i, mask;
  int rc;
  if (parent != p->grp_parent) {
    if (p->grp_seen[parent]) {
      if (arc_end_groups(p) != 0)
        return -1;
      return arc_add(p, parent, child, count);
    }
    p->grp_seen[parent] = 1;
    p->grp_parent = parent;
    p->grp_gen++;
    p->grp_first = (uint32_t)p->narcs;
  }
  if ((p->narcs - p->grp_first + 1) * 2 > p->grp_nslots &&
      grp_resize(p, p->grp_nslots * 2) != 0)
    return -1;
  gen = p->grp_gen;
  mask = p->grp_nslots - 1;
  for (i = grp_hash(child) & mask; (p->grp_slots[i] >> 32) == gen; i = (i + 1) & mask) {
    lgp_arc *a = &p->arcs[(uint32_t)p->grp_slots[i] - 1];
    if (a->child == child) {
      a->count += count;
      return 0;
    }
  }
  if ((rc = arc_new(p, parent, child, count)) != 0)
    return rc;
  p->grp_slots[i] = gen << 32 | (uint64_t)p->narcs;
  return 0;
}

void lgp_arctab_init(lgp_arctab *p, size_t nnodes) {
  memset(p, 0, sizeof *p);
  p->nnodes = nnodes;
}

void lgp_arctab_free(lgp_arctab *p) {
  free_groups(p);
  free(p->arcs);
  free(p->slots);
  memset(p, 0, sizeof *p);
}

void lgp_arctab_seal(lgp_arctab *p) {
  free_groups(p);
  free(p->slots);
  p->slots = NULL;
  p->nslots = 0;
  p->mode = LGP_ARCS_SEALED;
}

/* Calls into each node are summed by the graph analysis. */
int lgp_arctab_add(lgp_arctab *p, uint32_t parent, uint32_t child, uint64_t count) {
  if (p->mode == LGP_ARCS_SEALED)
    return -1;
  if (p->mode == LGP_ARCS_HASHED && p->narcs == 0 && p->nslots == 0 && p->nnodes > 0) {
    /* the first arc: start grouping (if the scratch tables can be had) */
    p->grp_seen = lgp_calloc_array(p->nnodes, 1);
    p->grp_slots = lgp_calloc_array(64, sizeof *p->grp_slots);
    if (p->grp_seen != NULL && p->grp_slots != NULL) {
      p->mode = LGP_ARCS_GROUPING;
      p->grp_nslots = 64;
      p->grp_parent = LGP_ARC_NONE;
      p->grp_gen = 0;
    } else {
      free_groups(p);
    }
  }
  if (p->mode == LGP_ARCS_GROUPING)
    return arc_add_grouped(p, parent, child, count);
  return arc_add(p, parent, child, count);
}
