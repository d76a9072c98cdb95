/*
** arcs.h: the arc table (caller -> callee, count, and the time
** propagation puts on it).
*/
#ifndef arcs_h
#define arcs_h

#include "read/gmon.h" /* LGP_ARCS_MAX, LGP_ARCS_FULL: the arc sink's limit */
#include "util/hashtab.h"

#define LGP_ARC_NONE UINT32_MAX

typedef struct lgp_arc {
  uint32_t parent, child;
  uint64_t count;
  int is_static; /* added by a scan of the code (-c, --static-arcs), not by gmon */
  int is_tail;   /* static, and found only as a jump to the callee's start */
  double time, child_time; /* shares propagated along the arc (ticks) */
} lgp_arc;

/* How (parent, child) pairs are found while arcs are added. Records from
** one caller arrive together, so each caller's arcs are merged in a small
** table reused for the next caller (GROUPING); the hash over all arcs is
** built only when a caller comes back (HASHED). */
typedef enum lgp_arc_mode {
  LGP_ARCS_HASHED = 0,  /* every arc is in by_ends */
  LGP_ARCS_GROUPING,    /* only the current caller's arcs are in grp_by_child */
  LGP_ARCS_SEALED       /* complete: no more adding, no lookups */
} lgp_arc_mode;

typedef struct lgp_arctab {
  lgp_arc *arcs;        /* in creation order (gprof's list order needs it) */
  size_t narcs, cap;
  lgp_hashtab by_ends;  /* the arcs by (parent, child) */
  lgp_arc_mode mode;
  size_t nnodes;        /* parents are below this */
  uint32_t grp_parent;  /* the current group's caller */
  uint8_t *grp_seen;    /* nnodes: parents that had a group */
  lgp_hashtab grp_by_child; /* the current group's arcs by child */
} lgp_arctab;

/* An empty table for arcs between nnodes nodes. */
void lgp_arctab_init(lgp_arctab *t, size_t nnodes);
void lgp_arctab_free(lgp_arctab *t);
/* Adds count calls parent -> child (merged with an existing arc). 0, -1
** (out of memory) or LGP_ARCS_FULL (LGP_ARCS_MAX arcs already). */
int lgp_arctab_add(lgp_arctab *t, uint32_t parent, uint32_t child, uint64_t count);
/* Adding is over: frees the lookup tables (the graph, built next, needs
** none: it walks adjacency lists). */
void lgp_arctab_seal(lgp_arctab *t);
/* The arc (parent, child) or LGP_NONE; only while adding (not sealed). */
uint32_t lgp_arctab_find(lgp_arctab *t, uint32_t parent, uint32_t child);

#endif
