/*
** tinyprof.h: a profile built in memory for the C unit tests: n functions
** named names[k] at TINY_AT(k), 0xff bytes each, no samples and no arcs yet
** (add them to t->p.graph.arcs, then lgp_graph_analyse).
*/
#ifndef tinyprof_h
#define tinyprof_h

#include <stdlib.h>
#include <string.h>

#include "model/profile.h"

#define TINY_AT(k) (0x1000u + 0x100u * (k))

/* The profile and what it points to (so t must stay where it is). */
typedef struct tinyprof {
  lgp_image im;
  lgp_gmon g;
  lgp_specs specs;
  lgp_profile p;
} tinyprof;

/* syms: n entries the caller keeps alive. 0, or -1 (out of memory). */
static inline int tinyprof_init(tinyprof *t, lgp_rawsym *syms, const char *const *names, size_t n) {
  lgp_node *nodes = calloc(n, sizeof *nodes);
  size_t k;
  if (nodes == NULL)
    return -1;
  memset(t, 0, sizeof *t);
  lgp_gmon_init(&t->g, 8, 0);
  for (k = 0; k < n; k++) {
    memset(&syms[k], 0, sizeof syms[k]);
    syms[k].name = names[k];
    syms[k].addr = TINY_AT(k);
    syms[k].is_func = 1;
    syms[k].file = -1;
    lgp_symtab_node_init(&nodes[k], (uint32_t)k, &syms[k], TINY_AT(k) + 0xff);
  }
  t->im.syms = syms;
  t->im.nsyms = n;
  t->im.srcinfo_state = -1;
  t->im.path = "tiny";
  t->p.image = &t->im;
  t->p.gmon = &t->g;
  t->p.specs = &t->specs;
  lgp_graph_init(&t->p.graph, nodes, n);
  return 0;
}

static inline void tinyprof_free(tinyprof *t) {
  lgp_profile_free(&t->p);
  lgp_gmon_free(&t->g);
}

#endif
