/*
** options.h: what opening a profile is asked for: gprof's options that
** shape it, and its symspecs as given (model/symspec.h applies them).
*/
#ifndef options_h
#define options_h

#include <stddef.h>
#include "read/gmon.h"

/* What opening a profile is asked for (gprof's options that shape it). */
typedef struct lgp_options {
  int no_static;      /* -a */
  int functions_only; /* -D */
  int format;         /* -O: enum lgp_gmon_format */
  int no_srcinfo;
  int default_excludes; /* add mcount & co. to the exclude tables (gprof does) */
  int line_granularity; /* gprof -l (and -s): line symbols join the table */
  char *symbol_file;     /* -S: function symbols from this nm-style file */
  char *map_file;        /* -R: function -> object file map (nm -A style) */
  int static_call_graph; /* -c: gprof's scan for call bytes adds count-0 arcs */
  int static_arcs;       /* --static-arcs: decoded direct calls add count-0 arcs */
  int keep_clones;       /* gcc's clones (f.isra.0) are functions of their own */
  /* symspecs, in the order given: table (enum lgp_table) and text */
  struct { int table; char *text; } *specs;
  size_t nspecs, specs_cap;
  /* the profile files' bytes already read, one per file (a pipe or a FIFO
     is read once, to know what it holds): NULL, or NULL for a file to read.
     Not owned. */
  const lgp_blob *const *given;
} lgp_options;

void lgp_options_init(lgp_options *o);
void lgp_options_free(lgp_options *o);
int lgp_options_add_spec(lgp_options *o, int table, const char *text);

#endif
