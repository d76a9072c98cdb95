/*
** gmonsum.c: gprof -s's summed file from an opened profile, its arc
** records in gprof's order or in the canonical (sorted) one.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "write/gmonsum.h"

/* One arc record: counts over 32 bits are already split. */
typedef struct arc_rec {
  lgp_addr from, to;
  uint32_t count;
} arc_rec;

typedef struct rec_list {
  arc_rec *v;
  size_t n, cap;
} rec_list;

/* Receives the arcs in gprof's order (callers by address, each one's
** newest arc first); 0 or -1. At line granularity, which gprof -s always
** uses, a caller is a line symbol (or the function, for its first line). */
typedef int (*arc_fn)(void *ctx, lgp_addr from, lgp_addr to, uint64_t count);

static int each_arc(const lgp_profile *p, arc_fn fn, void *ctx) {
  size_t s;
  for (s = 0; s < p->graph.nsyms; s++) {
    const uint32_t *a;
    for (a = lgp_children_begin(&p->graph, s); a < lgp_children_end(&p->graph, s); a++) {
      const lgp_arc *arc = &p->graph.arcs.arcs[*a];
      if (arc->is_static) /* gprof writes the sum before -c's scan */
        continue;
      if (fn(ctx, p->graph.nodes[arc->parent].addr, p->graph.nodes[arc->child].addr,
             arc->count) != 0)
        return -1;
    }
  }
  return 0;
}

static int write_arc(void *ctx, lgp_addr from, lgp_addr to, uint64_t count) {
  lgp_gmon_write_arc(ctx, from, to, count);
  return 0;
}

/* Splits as lgp_gmon_write_arc does, so that the records sort as written. */
static int add_recs(void *ctx, lgp_addr from, lgp_addr to, uint64_t count) {
  rec_list *l = ctx;
  do {
    uint32_t part = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
    if (lgp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0)
      return -1;
    l->v[l->n].from = from;
    l->v[l->n].to = to;
    l->v[l->n++].count = part;
    count -= part;
  } while (count > 0);
  return 0;
}

static int cmp_rec(const void *ctx, uint32_t x, uint32_t y) {
  const arc_rec *a = (const arc_rec *)ctx + x, *b = (const arc_rec *)ctx + y;
  if (a->from != b->from)
    return a->from < b->from ? -1 : 1;
  if (a->to != b->to)
    return a->to < b->to ? -1 : 1;
  return a->count < b->count ? -1 : a->count > b->count;
}

static int write_sorted_arcs(lgp_gmon_writer *w, const lgp_profile *p) {
  rec_list l = {NULL, 0, 0};
  uint32_t *order = NULL;
  size_t k;
  int rc = -1;
  if (each_arc(p, add_recs, &l) != 0 || l.n > UINT32_MAX)
    goto done;
  order = lgp_alloc_array(l.n ? l.n : 1, sizeof *order);
  if (order == NULL)
    goto done;
  for (k = 0; k < l.n; k++)
    order[k] = (uint32_t)k;
  if (lgp_sort_indices(order, l.n, cmp_rec, l.v) != 0)
    goto done;
  for (k = 0; k < l.n; k++) {
    const arc_rec *r = &l.v[order[k]];
    lgp_gmon_write_arc(w, r->from, r->to, r->count);
  }
  rc = 0;
done:
  free(order);
  free(l.v);
  return rc;
}

/* The file's bytes into w; 0, or -1 when out of memory (w->out.failed
** says whether writing failed). */
static int put(lgp_gmon_writer *w, const lgp_profile *p, int canonical) {
  int rc;
  w->addr_bytes = p->gmon->addr_bytes;
  w->big_endian = p->gmon->big_endian;
  lgp_gmon_write_header(w, p->gmon);
  lgp_gmon_write_hist(w, p->gmon);
  rc = canonical ? write_sorted_arcs(w, p) : each_arc(p, write_arc, w);
  if (rc == 0 && p->bbcounts != NULL && p->gmon->have_bb) /* every used slot, as filed */
    lgp_gmon_write_bb_list(w, p->bbcounts->slots, p->bbcounts->nslots);
  else if (rc == 0)
    lgp_gmon_write_bb(w, p->gmon);
  return rc;
}

int lgp_gmonsum_write(const lgp_profile *p, const char *path, int canonical,
                      lgp_err *err) {
  lgp_atomicfile a;
  lgp_gmon_writer w;
  int rc, e;
  if (lgp_atomicfile_open(&a, path, err) != 0)
    return -1;
  lgp_out_init(&w.out, a.f);
  errno = 0;
  rc = put(&w, p, canonical);
  if (rc == 0 && lgp_out_flush(&w.out) != 0)
    rc = -2;
  e = errno;
  lgp_out_free(&w.out);
  if (rc != 0) {
    lgp_atomicfile_abort(&a);
    if (rc == -1)
      return lgp_fail(err, path, "out of memory");
    return e ? lgp_fail(err, path, "write error (%s)", strerror(e))
             : lgp_fail(err, path, "write error");
  }
  return lgp_atomicfile_commit(&a, err);
}
