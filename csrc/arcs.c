/*
** arcs.c: arcs as they are read (gprof's cg_tally): records from one caller
** arrive together, so each caller's arcs are merged in a small table
** reused for the next caller; the (parent, child) hash over all arcs is
** built only when a caller comes back or a lookup needs it. Arcs keep the
** order they were first seen in, which gprof's list order depends on.
** Also the line arcs gprof -s writes.
*/
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* {====================================================== arcs */

/* A slot holds the arc index + 1 in its low half and the key's hash in
** its high half, so probing past other keys does not touch the arcs. */
static uint64_t arc_key_hash(uint32_t parent, uint32_t child) {
  uint64_t k = ((uint64_t)parent << 32 | child) * 0x9E3779B97F4A7C15u;
  return k ^ (k >> 29);
}

static int arc_end_groups(lgp_profile *p);

static uint32_t arc_find(const lgp_profile *p, uint32_t parent, uint32_t child) {
  uint64_t h = arc_key_hash(parent, child), tag = h >> 32 << 32;
  size_t mask, i;
  /* the table is built on the first lookup (most profiles never need
     one); the profile is const to callers only as it does not change */
  if (p->arc_grouping && arc_end_groups((lgp_profile *)p) != 0) {
    for (i = 0; i < p->narcs; i++) /* out of memory: slow but right */
      if (p->arcs[i].parent == parent && p->arcs[i].child == child)
        return (uint32_t)i;
    return LGP_NONE;
  }
  if (p->arc_nslots == 0)
    return LGP_NONE;
  mask = p->arc_nslots - 1;
  for (i = (size_t)h & mask; p->arc_slots[i] != 0; i = (i + 1) & mask) {
    uint64_t slot = p->arc_slots[i];
    if ((slot & ~(uint64_t)UINT32_MAX) == tag) {
      const lgp_arc *a = &p->arcs[(uint32_t)slot - 1];
      if (a->parent == parent && a->child == child)
        return (uint32_t)slot - 1;
    }
  }
  return LGP_NONE;
}

static void arc_slot_put(uint64_t *slots, size_t mask, uint64_t h, size_t k) {
  size_t i = (size_t)h & mask;
  while (slots[i] != 0)
    i = (i + 1) & mask;
  slots[i] = (h >> 32 << 32) | ((uint64_t)k + 1);
}

/* Hashes all arcs into a table of at least min_slots slots. */
static int arc_rehash(lgp_profile *p, size_t min_slots) {
  size_t ns = 1024, k;
  uint64_t *slots;
  while (ns < min_slots)
    ns *= 2;
  slots = lgp_calloc_array(ns, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (k = 0; k < p->narcs; k++)
    arc_slot_put(slots, ns - 1, arc_key_hash(p->arcs[k].parent, p->arcs[k].child), k);
  free(p->arc_slots);
  p->arc_slots = slots;
  p->arc_nslots = ns;
  return 0;
}

static int arc_new(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  lgp_arc *a;
  if (p->narcs >= LGP_ARCS_MAX)
    return LGP_ARCS_FULL;
  if (lgp_grow_aligned((void **)&p->arcs, &p->arcs_cap, p->narcs + 1, sizeof *p->arcs) != 0)
    return -1;
  a = &p->arcs[p->narcs++];
  memset(a, 0, sizeof *a);
  a->parent = parent;
  a->child = child;
  a->count = count;
  return 0;
}

/* Find or insert in one probe sequence. */
static int arc_add(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  uint64_t h = arc_key_hash(parent, child), tag = h >> 32 << 32;
  size_t mask, i;
  lgp_arc *a;
  int rc;
  if ((p->narcs + 1) * 2 > p->arc_nslots && arc_rehash(p, (p->narcs + 1) * 2) != 0)
    return -1;
  mask = p->arc_nslots - 1;
  for (i = (size_t)h & mask; p->arc_slots[i] != 0; i = (i + 1) & mask) {
    uint64_t slot = p->arc_slots[i];
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
  p->arc_slots[i] = tag | (uint64_t)p->narcs;
  return 0;
}

/* Ends group mode (1), or the wait for a table (2) after
** lgp_cg_assemble: every arc goes into arc_slots. */
void lgp_arc_free_groups(lgp_profile *p) {
  free(p->arc_grp_seen);
  free(p->arc_grp_slots);
  p->arc_grp_seen = NULL;
  p->arc_grp_slots = NULL;
  p->arc_grp_nslots = 0;
}

static int arc_end_groups(lgp_profile *p) {
  if (!p->arc_grouping)
    return 0;
  lgp_arc_free_groups(p);
  if (p->narcs > 0 && arc_rehash(p, (p->narcs + 1) * 2) != 0) {
    p->arc_grouping = 2;
    return -1;
  }
  p->arc_grouping = 0;
  return 0;
}

static uint32_t grp_hash(uint32_t child) {
  return (uint32_t)(((uint64_t)child * 0x9E3779B97F4A7C15u) >> 40);
}

/* The current group's children table, resized to hold the group. */
static int grp_resize(lgp_profile *p, size_t ns) {
  uint64_t *slots = lgp_calloc_array(ns, sizeof *slots);
  uint64_t gen = (uint64_t)p->arc_grp_gen << 32;
  size_t k;
  if (slots == NULL)
    return -1;
  for (k = p->arc_grp_first; k < p->narcs; k++) {
    size_t i = grp_hash(p->arcs[k].child) & (ns - 1);
    while ((slots[i] >> 32) == p->arc_grp_gen)
      i = (i + 1) & (ns - 1);
    slots[i] = gen | ((uint64_t)k + 1);
  }
  free(p->arc_grp_slots);
  p->arc_grp_slots = slots;
  p->arc_grp_nslots = ns;
  return 0;
}

/* arc_add in group mode: a parent's records in a row are merged in the
** group table; a parent seen before in another group ends group mode. */
static int arc_add_grouped(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  uint64_t gen;
  size_t i, mask;
  int rc;
  if (parent != p->arc_grp_parent) {
    if (p->arc_grp_seen[parent]) {
      if (arc_end_groups(p) != 0)
        return -1;
      return arc_add(p, parent, child, count);
    }
    p->arc_grp_seen[parent] = 1;
    p->arc_grp_parent = parent;
    p->arc_grp_gen++;
    p->arc_grp_first = (uint32_t)p->narcs;
  }
  if ((p->narcs - p->arc_grp_first + 1) * 2 > p->arc_grp_nslots &&
      grp_resize(p, p->arc_grp_nslots * 2) != 0)
    return -1;
  gen = p->arc_grp_gen;
  mask = p->arc_grp_nslots - 1;
  for (i = grp_hash(child) & mask; (p->arc_grp_slots[i] >> 32) == gen; i = (i + 1) & mask) {
    lgp_arc *a = &p->arcs[(uint32_t)p->arc_grp_slots[i] - 1];
    if (a->child == child) {
      a->count += count;
      return 0;
    }
  }
  if ((rc = arc_new(p, parent, child, count)) != 0)
    return rc;
  p->arc_grp_slots[i] = gen << 32 | (uint64_t)p->narcs;
  return 0;
}

uint32_t lgp_arc_lookup(const lgp_profile *p, uint32_t parent, uint32_t child) {
  return arc_find(p, parent, child);
}

int lgp_arc_insert(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  if (arc_end_groups(p) != 0)
    return -1;
  return arc_add(p, parent, child, count);
}

/* Calls into each node are summed by lgp_cg_assemble. */
int lgp_cg_add_arc(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count) {
  if (!p->arc_grouping && p->narcs == 0 && p->arc_nslots == 0 && p->nsyms > 0) {
    p->arc_grp_seen = lgp_calloc_array(p->nsyms, 1);
    p->arc_grp_slots = lgp_calloc_array(64, sizeof *p->arc_grp_slots);
    if (p->arc_grp_seen != NULL && p->arc_grp_slots != NULL) {
      p->arc_grouping = 1;
      p->arc_grp_nslots = 64;
      p->arc_grp_parent = LGP_NONE;
      p->arc_grp_gen = 0;
    } else {
      free(p->arc_grp_seen);
      free(p->arc_grp_slots);
      p->arc_grp_seen = NULL;
      p->arc_grp_slots = NULL;
    }
  }
  if (p->arc_grouping == 1)
    return arc_add_grouped(p, parent, child, count);
  if (arc_end_groups(p) != 0)
    return -1;
  return arc_add(p, parent, child, count);
}

/* {====================================================== line arcs (-s) */

static size_t line_hash(lgp_addr from, uint32_t child, size_t mask) {
  uint64_t k = (from * 0x9E3779B97F4A7C15u) ^ ((uint64_t)child * 0xC2B2AE3D27D4EB4Fu);
  return (size_t)(k >> 17) & mask;
}

static int line_arc_rehash(lgp_profile *p) {
  size_t ns = p->line_arc_nslots ? p->line_arc_nslots * 2 : 1024, mask = ns - 1, k;
  uint32_t *slots = lgp_calloc_array(ns, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (k = 0; k < p->nline_arcs; k++) {
    size_t i = line_hash(p->line_arcs[k].from, p->line_arcs[k].child, mask);
    while (slots[i] != 0)
      i = (i + 1) & mask;
    slots[i] = (uint32_t)k + 1;
  }
  free(p->line_arc_slots);
  p->line_arc_slots = slots;
  p->line_arc_nslots = ns;
  return 0;
}

/* The parent gprof's line-mode table gives from_pc: the nearest line
** symbol or function start at or below it. */
static lgp_addr line_parent(const lgp_profile *p, uint32_t parent, lgp_addr from) {
  const lgp_image *im = &p->image;
  size_t lo = 0, hi = im->nline_starts;
  lgp_addr best = p->nodes[parent].addr;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (im->line_starts[mid] <= from)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && im->line_starts[lo - 1] > best)
    best = im->line_starts[lo - 1];
  return best;
}

static int line_arc_add(lgp_profile *p, uint32_t parent, lgp_addr from, uint32_t child,
                        uint64_t count) {
  lgp_addr at = line_parent(p, parent, from);
  size_t i, mask;
  if ((p->nline_arcs + 1) * 2 > p->line_arc_nslots && line_arc_rehash(p) != 0)
    return -1;
  mask = p->line_arc_nslots - 1;
  for (i = line_hash(at, child, mask); p->line_arc_slots[i] != 0; i = (i + 1) & mask) {
    struct lgp_linearc *a = &p->line_arcs[p->line_arc_slots[i] - 1];
    if (a->from == at && a->child == child) {
      a->count += count;
      return 0;
    }
  }
  if (p->nline_arcs >= LGP_ARCS_MAX)
    return LGP_ARCS_FULL;
  if (lgp_grow((void **)&p->line_arcs, &p->line_arcs_cap, p->nline_arcs + 1,
               sizeof *p->line_arcs) != 0)
    return -1;
  p->line_arcs[p->nline_arcs].from = at;
  p->line_arcs[p->nline_arcs].child = child;
  p->line_arcs[p->nline_arcs].count = count;
  p->line_arc_slots[i] = (uint32_t)++p->nline_arcs;
  return 0;
}

static int cmp_line_arc(const void *ctx, uint32_t x, uint32_t y) {
  const lgp_profile *p = ctx;
  lgp_addr l = p->line_arcs[x].from, r = p->line_arcs[y].from;
  if (l != r)
    return l < r ? -1 : 1;
  return x > y ? -1 : x < y; /* newest first, as gprof's lists */
}

int lgp_sum_arcs(const lgp_profile *p, uint32_t **order, size_t *n) {
  size_t k;
  *n = p->nline_arcs;
  *order = lgp_alloc_array(*n, sizeof **order);
  if (*order == NULL)
    return -1;
  for (k = 0; k < *n; k++)
    (*order)[k] = (uint32_t)k;
  return lgp_sort_indices(*order, *n, cmp_line_arc, p);
}

/* }====================================================== */

/* One arc record as read: gprof's cg_tally. */
int lgp_cg_tally(void *profile, lgp_addr from, lgp_addr self, uint64_t count) {
  lgp_profile *p = profile;
  uint32_t parent = p->last_parent, child = lgp_sym_lookup(p, self);
  int rc;
  if (parent >= p->nsyms || from < p->sym_addrs[parent] ||
      (parent + 1 < p->nsyms ? from >= p->sym_addrs[parent + 1] : from > p->nodes[parent].end_addr))
    parent = p->last_parent = lgp_sym_lookup(p, from);
  if (parent == LGP_NONE || child == LGP_NONE)
    return 0;
  /* a callee that is not a function (a label) becomes the function before */
  while (!p->sym_is_func[child]) {
    if (child == 0)
      return 0;
    child--;
  }
  if (!lgp_arc_wanted(p, parent, child))
    return 0;
  if (p->keep_line_arcs && (rc = line_arc_add(p, parent, from, child, count)) != 0)
    return rc;
  return lgp_cg_add_arc(p, parent, child, count);
}

