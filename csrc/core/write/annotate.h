/*
** annotate.h: gprof's annotated source listings (-A): each source file's
** text with execution counts in front of its lines, a "Top N Lines" table
** and a summary.
*/
#ifndef annotate_h
#define annotate_h

#include "model/bbcount.h"
#include "model/profile.h"

typedef struct lgp_anno_opts {
  const char *const *dirs; /* the search list (-I, then GPROF_PATH), in order */
  size_t ndirs;
  int all_lines;           /* -x: counts carried to lines without their own */
  int separate;            /* -y: each file to BASENAME-ann in the current directory */
  int zeros;               /* -z: files without calls too */
  int table_length;        /* -t: rows of the Top table; <= 0: no table */
  uint64_t min_count;      /* -m: a line whose total is below shows ##### */
  int *first_output;       /* shared "nothing printed yet" state, for form feeds */
  lgp_out *err;            /* where a missing source or output file is reported */
} lgp_anno_opts;

/* Writes the listing of every source file with annotated symbols, in
** gprof's order (the reverse of the order files first appear among the
** symbols). Source files must be read (lgp_image_load_srcinfo). bb: the
** profile's block counts, or NULL. 0, or -1 (out of memory). */
int lgp_report_annotate(lgp_out *o, const lgp_profile *p, const lgp_bbcounts *bb,
                        const lgp_anno_opts *ao);

#endif
