/*
** stacktab.c: freeing a table of sampled stacks, the names of a binary's
** status (see stacktab.h).
*/
#include <stdlib.h>
#include <string.h>
#include "read/stacktab.h"

const char *lgp_st_dso_status_name(unsigned status) {
  static const char *const names[] = {
    "ok", "missing", "mismatch", "stripped", "kernel", "vdso", "jit", "unknown"
  };
  return names[status <= LGP_DSO_UNKNOWN ? status : LGP_DSO_UNKNOWN];
}

uint64_t lgp_st_func_size(const lgp_st_func *f) {
  return f->end > f->start ? f->end - f->start : 0;
}

void lgp_stacktab_free(lgp_stacktab *t) {
  size_t i;
  for (i = 0; i < t->ndsos; i++) {
    free(t->dsos[i].path);
    free(t->dsos[i].found);
  }
  for (i = 0; i < t->nfuncs; i++)
    free(t->funcs[i].name);
  for (i = 0; i < t->nthreads; i++)
    free(t->threads[i].comm);
  for (i = 0; i < t->nevents; i++)
    free(t->events[i].name);
  for (i = 0; i < t->nfiles; i++)
    free(t->files[i]);
  for (i = 0; i < t->nunwind_errors; i++)
    free(t->unwind_errors[i].what);
  free(t->unwind_errors);
  free(t->dsos);
  free(t->funcs);
  free(t->frame_defs);
  free(t->frames);
  free(t->stacks);
  free(t->times);
  free(t->threads);
  free(t->events);
  free(t->files);
  free(t->recording);
  memset(t, 0, sizeof *t);
}
