/*
** cgorder.c: the orders of the analysed call graph: the symbols ranked by
** name, the call graph's order (gprof's cmp_total: total time, calls,
** name) with the index numbers, and the flat profile's (self time, calls,
** name). Stable radix and merge sorts over packed keys; the many symbols
** with neither time nor calls (line symbols) are put in order by rank, in
** linear time.
*/
#include <stdlib.h>
#include <string.h>

#include "model/cgorder.h"

/* {====================================================== orderings */

/* Sort keys gathered from the nodes first: the sorts then read 24 bytes
** per comparison instead of two nodes. */
/* The node sorts move 32-byte records instead of sorting indices that
** point at keys: at a hundred thousand nodes, the index sort's key reads
** are cache misses and these merges are sequential. */
typedef struct node_key {
  double time;
  uint64_t calls;
  uint32_t rank;   /* name order */
  uint32_t cls;    /* cmp_total: 0 cycle, 1 name without '_', 2 with */
  uint32_t node;
  uint32_t pad;
} node_key;

/* A stable bottom-up merge sort of an array of TYPE by BEFORE(a, b) ("a
** strictly first"), using tmp (as long as the array); the sorted records
** end up in the array. */
#define DEFINE_RECORD_SORT(NAME, TYPE, BEFORE)                                 \
  static void NAME(TYPE *v, TYPE *tmp, size_t n) {                             \
    TYPE *src = v, *dst = tmp, *t;                                             \
    size_t width, lo;                                                          \
    for (width = 1; width < n; width *= 2) {                                   \
      for (lo = 0; lo < n; lo += 2 * width) {                                  \
        size_t mid = lo + width < n ? lo + width : n;                          \
        size_t hi = lo + 2 * width < n ? lo + 2 * width : n;                   \
        size_t i = lo, j = mid, k = lo;                                        \
        while (i < mid && j < hi)                                              \
          dst[k++] = BEFORE(&src[j], &src[i]) ? src[j++] : src[i++];           \
        while (i < mid)                                                        \
          dst[k++] = src[i++];                                                 \
        while (j < hi)                                                         \
          dst[k++] = src[j++];                                                 \
      }                                                                        \
      t = src;                                                                 \
      src = dst;                                                               \
      dst = t;                                                                 \
    }                                                                          \
    if (src != v)                                                              \
      memcpy(v, src, n * sizeof *v);                                           \
  }

/* gprof's cmp_total; ties stay in address order (stable sort). Two cycles
** compare "less" both ways in gprof, which a merge sort also leaves in
** their original order. */
static inline int total_before(const node_key *l, const node_key *r) {
  if (l->time != r->time)
    return l->time > r->time;
  if (l->cls == 0 || r->cls == 0)
    return l->cls == 0 && r->cls != 0;
  if (l->cls != r->cls)
    return l->cls < r->cls;
  if (l->calls != r->calls)
    return l->calls > r->calls;
  return l->rank < r->rank;
}

/* gprof's cmp_time: the flat profile's order. */
static inline int time_before(const node_key *l, const node_key *r) {
  if (l->time != r->time)
    return l->time > r->time;
  if (l->calls != r->calls)
    return l->calls > r->calls;
  return l->rank < r->rank;
}

DEFINE_RECORD_SORT(sort_by_total, node_key, total_before)
DEFINE_RECORD_SORT(sort_by_time, node_key, time_before)

/* A stable radix sort of idx by key[], least significant key first. */
static int radix_by(uint32_t *idx, uint64_t *key, const node_key *v, size_t n, int field,
                    uint64_t top) {
  size_t i;
  for (i = 0; i < n; i++) {
    const node_key *k = &v[i];
    switch (field) {
    case 0: key[i] = k->cls == 0 ? 0 : k->rank; break;
    case 1: key[i] = k->cls == 0 ? 0 : top - k->calls; break; /* descending */
    case 2: key[i] = k->cls; break;
    default: { /* time, descending: a non-negative double's bits rise with it */
      uint64_t b;
      double t = k->time == 0.0 ? 0.0 : k->time; /* -0 is 0 */
      memcpy(&b, &t, sizeof b);
      key[i] = top - b;
    }
    }
  }
  return lgp_radix_sort(idx, key, n);
}

/* v[0..n) in sort_by_time's (flat) or sort_by_total's order: radix sorts
** on rank, calls (cycles: neither, so they keep their order), kind and
** time, each stable, which is the lexicographic order the comparisons
** define; a few passes over 11-bit digits instead of a merge sort's
** log2(n). A negative or NaN time leaves it to the merge sort. */
static void sort_keys(node_key *v, node_key *tmp, size_t n, int flat) {
  uint32_t *idx = lgp_alloc_array(n ? n : 1, sizeof *idx);
  uint64_t *key = lgp_alloc_array(n ? n : 1, sizeof *key);
  uint64_t maxcalls = 0, maxbits = 0;
  size_t i;
  int ok = idx != NULL && key != NULL;
  for (i = 0; ok && i < n; i++) {
    uint64_t b;
    double t = v[i].time == 0.0 ? 0.0 : v[i].time;
    if (!(t >= 0.0)) {
      ok = 0;
      break;
    }
    memcpy(&b, &t, sizeof b);
    if (b > maxbits)
      maxbits = b;
    if (v[i].cls != 0 && v[i].calls > maxcalls)
      maxcalls = v[i].calls;
    idx[i] = (uint32_t)i;
  }
  if (ok && radix_by(idx, key, v, n, 0, 0) == 0 && radix_by(idx, key, v, n, 1, maxcalls) == 0 &&
      (flat || radix_by(idx, key, v, n, 2, 0) == 0) &&
      radix_by(idx, key, v, n, 3, maxbits) == 0) {
    for (i = 0; i < n; i++)
      tmp[i] = v[idx[i]];
    memcpy(v, tmp, n * sizeof *v);
  } else if (flat) { /* no memory for the radix sort, or a strange time */
    sort_by_time(v, tmp, n);
  } else {
    sort_by_total(v, tmp, n);
  }
  free(idx);
  free(key);
}

/* A key with no time and no calls (not a cycle): among such keys, the
** order is by kind and name rank alone. */
static inline int is_cold(const node_key *k) {
  return k->time == 0.0 && k->calls == 0 && k->cls != 0;
}

/* The node numbers of keys[0..n) after one stable sort; NULL if out of memory. */
static uint32_t *sorted_all(node_key *keys, size_t n, int flat) {
  node_key *tmp = lgp_alloc_array(n ? n : 1, sizeof *tmp);
  uint32_t *v = lgp_alloc_array(n ? n : 1, sizeof *v);
  size_t i;
  if (tmp == NULL || v == NULL) {
    free(tmp);
    free(v);
    return NULL;
  }
  sort_keys(keys, tmp, n, flat);
  for (i = 0; i < n; i++)
    v[i] = keys[i].node;
  free(tmp);
  return v;
}

/* The same. When most symbols have neither time nor calls (at line
** granularity nearly all do), those are put in order by kind and name rank
** (ranks are distinct, below nranks) in linear time, the others
** merge-sorted, and the two runs merged: no two keys tie, so this is the
** order one stable sort gives. */
static uint32_t *sorted_nodes(node_key *keys, size_t n, int flat, size_t nranks) {
  node_key *hot, *tmp;
  uint32_t *v, *at_rank, *cold;
  size_t i, nhot = 0, ncold = 0, h = 0, c = 0, k = 0;
  uint32_t cls;
  for (i = 0; i < n; i++)
    ncold += is_cold(&keys[i]);
  if (ncold < n / 2) /* mostly hot (function level, usually): one sort */
    return sorted_all(keys, n, flat);
  ncold = 0;
  hot = lgp_alloc_array(n ? n : 1, sizeof *hot);
  tmp = lgp_alloc_array(n ? n : 1, sizeof *tmp);
  v = lgp_alloc_array(n ? n : 1, sizeof *v);
  at_rank = lgp_alloc_array(nranks ? nranks : 1, sizeof *at_rank);
  cold = lgp_alloc_array(n ? n : 1, sizeof *cold);
  if (hot == NULL || tmp == NULL || v == NULL || at_rank == NULL || cold == NULL) {
    free(v);
    v = NULL;
    goto out;
  }
  for (i = 0; i < nranks; i++)
    at_rank[i] = UINT32_MAX;
  for (i = 0; i < n; i++) {
    if (is_cold(&keys[i]) && keys[i].rank < nranks)
      at_rank[keys[i].rank] = (uint32_t)i;
    else
      hot[nhot++] = keys[i];
  }
  sort_keys(hot, tmp, nhot, flat);
  for (cls = 1; cls <= 2; cls++)
    for (i = 0; i < nranks; i++)
      if (at_rank[i] != UINT32_MAX && keys[at_rank[i]].cls == cls)
        cold[ncold++] = at_rank[i];
  while (h < nhot || c < ncold) {
    int take_cold = h == nhot ||
                    (c < ncold && (flat ? time_before(&keys[cold[c]], &hot[h])
                                        : total_before(&keys[cold[c]], &hot[h])));
    v[k++] = take_cold ? keys[cold[c++]].node : hot[h++].node;
  }
out:
  free(hot);
  free(tmp);
  free(at_rank);
  free(cold);
  return v;
}

/* Names by their first 8 bytes as one big-endian number (the order strcmp
** gives): a radix sort, stable, so equal names stay in address order; then
** each run of equal prefixes, if its names go on, by the rest of the name.
** What is sorted is the runs of neighbours sharing one name string (a
** function's lines do): the ranks are then handed out run by run, address
** order within each. */
typedef struct name_runs {
  const lgp_node *nodes;
  const uint32_t *start; /* run r is nodes start[r] .. start[r + 1] - 1 */
} name_runs;

static int cmp_name_rest(const void *ctx, uint32_t a, uint32_t b) {
  const name_runs *nr = ctx;
  const char *l = nr->nodes[nr->start[a]].name, *r = nr->nodes[nr->start[b]].name;
  return l == r ? 0 : strcmp(l + 8, r + 8);
}

/* Names are compared once here; the orderings then compare ranks. */
int lgp_graph_rank_names(lgp_graph *g) {
  size_t i, j, n = g->nsyms, nruns = 0, rank = 0;
  uint32_t *start = lgp_alloc_array(n + 1, sizeof *start);
  uint64_t *prefix = NULL;
  uint32_t *v = NULL;
  name_runs nr;
  int rc = -1;
  g->name_rank = lgp_alloc_array(n ? n : 1, sizeof *g->name_rank);
  if (start == NULL || g->name_rank == NULL)
    goto out;
  for (i = 0; i < n; i++)
    if (i == 0 || g->nodes[i].name != g->nodes[i - 1].name)
      start[nruns++] = (uint32_t)i;
  start[nruns] = (uint32_t)n;
  prefix = lgp_alloc_array(nruns ? nruns : 1, sizeof *prefix);
  v = lgp_alloc_array(nruns ? nruns : 1, sizeof *v);
  if (prefix == NULL || v == NULL)
    goto out;
  for (i = 0; i < nruns; i++) {
    const unsigned char *s = (const unsigned char *)g->nodes[start[i]].name;
    uint64_t k = 0;
    int c, end = 0;
    for (c = 0; c < 8; c++) {
      unsigned ch = end ? 0 : s[c];
      end |= ch == 0;
      k = k << 8 | ch;
    }
    prefix[i] = k;
    v[i] = (uint32_t)i;
  }
  if (lgp_radix_sort(v, prefix, nruns) != 0)
    goto out;
  nr.nodes = g->nodes;
  nr.start = start;
  for (i = 0; i < nruns; i = j) {
    for (j = i + 1; j < nruns && prefix[v[j]] == prefix[v[i]]; j++)
      ;
    /* a prefix whose last byte is 0 holds the whole name: the run is equal */
    if (j - i > 1 && (prefix[v[i]] & 0xff) != 0 &&
        lgp_sort_indices(v + i, j - i, cmp_name_rest, &nr) != 0)
      goto out;
  }
  for (i = 0; i < nruns; i++)
    for (j = start[v[i]]; j < start[v[i] + 1]; j++)
      g->name_rank[j] = (uint32_t)rank++;
  rc = 0;
out:
  free(start);
  free(prefix);
  free(v);
  return rc;
}

/* }====================================================== */

/* The call graph's order (by total time) and its index numbers. */
int lgp_graph_index_order(lgp_graph *g) {
  size_t n = g->nsyms, i, total = n + g->ncycles;
  node_key *keys = lgp_alloc_array(total ? total : 1, sizeof *keys);
  if (keys == NULL)
    return -1;
  for (i = 0; i < total; i++) {
    const lgp_node *s = &g->nodes[i];
    keys[i].time = s->prop_self + s->prop_child;
    keys[i].calls = s->ncalls;
    keys[i].rank = s->is_cycle ? 0 : g->name_rank[i];
    keys[i].cls = s->is_cycle ? 0 : s->name[0] == '_' ? 2 : 1;
    keys[i].node = (uint32_t)i;
  }
  g->time_sorted = sorted_nodes(keys, total, 0, n);
  free(keys);
  if (g->time_sorted == NULL)
    return -1;
  for (i = 0; i < total; i++)
    g->nodes[g->time_sorted[i]].index = (uint32_t)i + 1;
  return 0;
}

int lgp_graph_flat_order(lgp_graph *g) {
  size_t i;
  node_key *keys;
  if (g->name_rank == NULL && lgp_graph_rank_names(g) != 0)
    return -1;
  keys = lgp_alloc_array(g->nsyms ? g->nsyms : 1, sizeof *keys);
  if (keys == NULL)
    return -1;
  for (i = 0; i < g->nsyms; i++) {
    keys[i].time = g->nodes[i].hist_time;
    keys[i].calls = g->nodes[i].ncalls;
    keys[i].rank = g->name_rank[i];
    keys[i].cls = 1;
    keys[i].node = (uint32_t)i;
  }
  g->flat_sorted = sorted_nodes(keys, g->nsyms, 1, g->nsyms);
  free(keys);
  if (g->flat_sorted == NULL)
    return -1;
  for (i = 0; i < g->nsyms; i++)
    g->nodes[g->flat_sorted[i]].flat_rank = (uint32_t)i;
  return 0;
}
