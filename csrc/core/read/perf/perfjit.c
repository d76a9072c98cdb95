/*
** perfjit.c: JIT code's symbols (perfjit.h), from perf-PID.map.
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/perf/perfreader.h"

static int jit_cmp(const void *a, const void *b) {
  const jitsym *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

int lgp_pr_jit_load(reader *s, uint32_t d) {
  dsox *x = &s->dx[d];
  char path[4200], line[1024];
  size_t cap = 0;
  FILE *f;
  if (x->opened)
    return 0;
  x->opened = 1;
  snprintf(path, sizeof path, "%s/perf-%u.map", s->opts.jit_dir ? s->opts.jit_dir : "/tmp",
           x->pid);
  if (!(f = fopen(path, "r")))
    return 0;
  while (fgets(line, sizeof line, f)) {
    char *e1, *e2, *name;
    uint64_t start = strtoull(line, &e1, 16), size;
    if (e1 == line || *e1 != ' ')
      continue;
    size = strtoull(e1 + 1, &e2, 16);
    if (e2 == e1 + 1 || *e2 != ' ')
      continue;
    name = e2 + 1;
    name[strcspn(name, "\r\n")] = '\0';
    if (GROW(s, x->jit, cap, x->njit + 1) != 0) {
      fclose(f);
      return -1;
    }
    if (!(x->jit[x->njit].name = lgp_strdup(name))) {
      fclose(f);
      return lgp_pr_oom(s);
    }
    x->jit[x->njit].start = start;
    x->jit[x->njit++].size = size;
  }
  fclose(f);
  qsort(x->jit, x->njit, sizeof *x->jit, jit_cmp);
  free(s->out->dsos[d].found);
  if (!(s->out->dsos[d].found = lgp_strdup(path)))
    return lgp_pr_oom(s);
  return 0;
}

int lgp_pr_jit_frames(reader *s, uint32_t d, uint64_t addr) {
  const dsox *x = &s->dx[d];
  size_t lo = lgp_addr_count_le(x->jit, x->njit, sizeof *x->jit, offsetof(jitsym, start), addr);
  if (lo > 0 && addr - x->jit[lo - 1].start < x->jit[lo - 1].size) {
    const jitsym *j = &x->jit[lo - 1];
    uint32_t f = lgp_pr_func_get(s, d, j->name, 0, 0, j->start, j->start + j->size, LGP_ST_NOFILE, 0);
    return lgp_pr_cframe_push(s, lgp_pr_fdef_add(s, f, addr, LGP_ST_NOFILE, 0));
  }
  return lgp_pr_unknown_frame(s, d, addr);
}
