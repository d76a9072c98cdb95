/*
** mapfile.h: gprof's -R map file (function -> object file, the output of
** nm --extern-only --defined-only -v --print-file-name), parsed as gprof
** reads it, and its effect on the function symbols: a function found in
** the map takes its file's name if it is the first of its file's run, and
** is dropped otherwise.
*/
#ifndef mapfile_h
#define mapfile_h

#include "read/elfsym.h"

typedef struct lgp_mapentry {
  const char *file;     /* the text before the first ':' */
  const char *func;     /* the text after field 2's last space */
  int first;            /* first entry of a run of its file */
} lgp_mapentry;

typedef struct lgp_mapfile {
  lgp_mapentry *by_func;  /* stable-sorted by function name (strcmp) */
  lgp_mapentry *by_file;  /* stable-sorted by file name */
  size_t n;
  char *pool;             /* the entries' strings */
  size_t pool_len, pool_cap;
} lgp_mapfile;

/* Parses n bytes of a map file named path (for messages). 0, or -1 with
** "unable to parse mapping file PATH." (gprof's message) or lgprof's own
** one-line message where gprof crashes. */
int lgp_mapfile_parse(lgp_mapfile *m, const char *text, size_t n, const char *path,
                      lgp_err *err);
/* Reads and parses the file at path. 0, or -1 ("could not open PATH."). */
int lgp_mapfile_read(lgp_mapfile *m, const char *path, lgp_err *err);
void lgp_mapfile_free(lgp_mapfile *m);
/* The entry glibc's bsearch over by_func finds for name, or NULL. */
const lgp_mapentry *lgp_mapfile_lookup(const lgp_mapfile *m, const char *name);
/* Renames the image's function symbols found first in their run to their
** file's name (marking them mapped), drops the others found, and marks
** every other symbol unmapped. The names point into m, which must outlive
** the image's use. */
void lgp_mapfile_apply(const lgp_mapfile *m, lgp_image *im);

#endif
