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

static uint32_t ends_hash(uint32_t parent, uint32_t child) {
  return lgp_hashtab_hash_u64((uint64_t)parent << 32 | child);
}

static int arc_end_groups(lgp_arctab *p);

uint32_t lgp_arctab_find(lgp_arctab *p, uint32_t parent, uint32_t child) {
  lgp_hashpos at;
  uint32_t k;
  size_t i;
  if (p->mode == LGP_ARCS_SEALED)
    return LGP_ARC_NONE;
  /* the hash over all arcs is built on the first lookup */
  if (arc_end_groups(p) != 0) {
    for (i = 0; i < p->narcs; i++) /* out of memory: slow but right */
      if (p->arcs[i].parent == parent && p->arcs[i].child == child)
        return (uint32_t)i;
    return LGP_ARC_NONE;
  }
  for (at = lgp_hashtab_probe(&p->by_ends, ends_hash(parent, child));
       (k = lgp_hashtab_next(&p->by_ends, &at)) != LGP_HASHTAB_END;)
    if (p->arcs[k].parent == parent && p->arcs[k].child == child)
      return k;
  return LGP_ARC_NONE;
}

/* Hashes all arcs into by_ends (empty), with room for one more. */
static int arc_rehash(lgp_arctab *p) {
  size_t k;
  if (lgp_hashtab_reserve(&p->by_ends, p->narcs + 1) != 0)
    return -1;
  for (k = 0; k < p->narcs; k++) {
    lgp_hashpos at = lgp_hashtab_probe(&p->by_ends, ends_hash(p->arcs[k].parent, p->arcs[k].child));
    while (lgp_hashtab_next(&p->by_ends, &at) != LGP_HASHTAB_END)
      ;
    lgp_hashtab_put(&p->by_ends, &at, (uint32_t)k);
  }
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
  lgp_hashpos at;
  uint32_t k;
  int rc;
  if (lgp_hashtab_reserve(&p->by_ends, 1) != 0)
    return -1;
  for (at = lgp_hashtab_probe(&p->by_ends, ends_hash(parent, child));
       (k = lgp_hashtab_next(&p->by_ends, &at)) != LGP_HASHTAB_END;)
    if (p->arcs[k].parent == parent && p->arcs[k].child == child) {
      p->arcs[k].count += count;
      return 0;
    }
  if ((rc = arc_new(p, parent, child, count)) != 0)
    return rc;
  lgp_hashtab_put(&p->by_ends, &at, (uint32_t)p->narcs - 1);
  return 0;
}

static void free_groups(lgp_arctab *p) {
  free(p->grp_seen);
  p->grp_seen = NULL;
  lgp_hashtab_free(&p->grp_by_child);
}

/* Ends group mode: every arc goes into by_ends. */
static int arc_end_groups(lgp_arctab *p) {
  if (p->mode != LGP_ARCS_GROUPING)
    return 0;
  free_groups(p);
  p->mode = LGP_ARCS_HASHED;
  return p->narcs > 0 ? arc_rehash(p) : 0;
}

/* arc_add in group mode: a parent's records in a row are merged in the
** group table; a parent seen before in another group ends group mode. */
static int arc_add_grouped(lgp_arctab *p, uint32_t parent, uint32_t child, uint64_t count) {
  lgp_hashpos at;
  uint32_t k;
  int rc;
  if (parent != p->grp_parent) {
    if (p->grp_seen[parent]) {
      if (arc_end_groups(p) != 0)
        return -1;
      return arc_add(p, parent, child, count);
    }
    if (lgp_hashtab_clear(&p->grp_by_child) != 0)
      return -1;
    p->grp_seen[parent] = 1;
    p->grp_parent = parent;
  }
  if (lgp_hashtab_reserve(&p->grp_by_child, 1) != 0)
    return -1;
  for (at = lgp_hashtab_probe(&p->grp_by_child, lgp_hashtab_hash_u64(child));
       (k = lgp_hashtab_next(&p->grp_by_child, &at)) != LGP_HASHTAB_END;)
    if (p->arcs[k].child == child) {
      p->arcs[k].count += count;
      return 0;
    }
  if ((rc = arc_new(p, parent, child, count)) != 0)
    return rc;
  lgp_hashtab_put(&p->grp_by_child, &at, (uint32_t)p->narcs - 1);
  return 0;
}

void lgp_arctab_init(lgp_arctab *p, size_t nnodes) {
  memset(p, 0, sizeof *p);
  p->nnodes = nnodes;
}

void lgp_arctab_free(lgp_arctab *p) {
  free_groups(p);
  free(p->arcs);
  lgp_hashtab_free(&p->by_ends);
  memset(p, 0, sizeof *p);
}

void lgp_arctab_seal(lgp_arctab *p) {
  free_groups(p);
  lgp_hashtab_free(&p->by_ends);
  p->mode = LGP_ARCS_SEALED;
}

/* Calls into each node are summed by the graph analysis. */
int lgp_arctab_add(lgp_arctab *p, uint32_t parent, uint32_t child, uint64_t count) {
  if (p->mode == LGP_ARCS_SEALED)
    return -1;
  if (p->mode == LGP_ARCS_HASHED && p->narcs == 0 && p->by_ends.nslots == 0 && p->nnodes > 0) {
    /* the first arc: start grouping (if the scratch table can be had) */
    p->grp_seen = lgp_calloc_array(p->nnodes, 1);
    if (p->grp_seen != NULL) {
      p->mode = LGP_ARCS_GROUPING;
      p->grp_parent = LGP_ARC_NONE;
    }
  }
  if (p->mode == LGP_ARCS_GROUPING)
    return arc_add_grouped(p, parent, child, count);
  return arc_add(p, parent, child, count);
}
