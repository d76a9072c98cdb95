/*
** atomicfile.h: replacing a file all at once: the new contents go to a
** temporary file beside it, renamed over it only when complete.
*/
#ifndef atomicfile_h
#define atomicfile_h

#include "util/util.h"

typedef struct lgp_atomicfile {
  FILE *f;          /* where the new contents go */
  char *tmp;        /* the temporary file's path; NULL when the target is
                       not a regular file and is written directly */
  const char *path; /* the target (borrowed: it must outlive the handle) */
} lgp_atomicfile;

/* Creates path's temporary file (path.XXXXXX), or opens path itself when
** it exists and is not a regular file (a device, a FIFO, a symbolic link:
** replacing it would be wrong, and it has no contents to keep). 0, or -1 with
** "PATH: cannot open for writing (...)"; nothing is then left behind. */
int lgp_atomicfile_open(lgp_atomicfile *a, const char *path, lgp_err *err);
/* Closes the temporary file and renames it over the target. 0, or -1 with
** "PATH: what is wrong"; the temporary file is then removed and the
** target left as it was. Either way the handle is finished. */
int lgp_atomicfile_commit(lgp_atomicfile *a, lgp_err *err);
/* Closes and removes the temporary file: the target is left as it was. */
void lgp_atomicfile_abort(lgp_atomicfile *a);

#endif
