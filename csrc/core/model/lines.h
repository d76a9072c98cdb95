/*
** lines.h: a profile's line-level data: gprof's line symbols (-l) with the
** histogram credited to them, each tied to the function that holds it.
*/
#ifndef lines_h
#define lines_h

#include "model/profile.h"

/* One line symbol, as gprof's line-mode table has it: a function symbol
** stands for its own first line, a line symbol for the addresses up to the
** next symbol. */
typedef struct lgp_line {
  lgp_addr addr;
  uint32_t func;      /* the profile's node (function) holding addr, or LGP_NONE */
  uint32_t node;      /* the profile's node when it is one (a function symbol, or a
                         line-granular profile's line symbol), else LGP_NONE */
  int32_t linesym;    /* index into the image's lines at addr, or -1 */
  uint8_t is_first;   /* the function symbol itself: its first line */
  uint8_t has_bb;     /* a basic-block count lies in the line */
  double ticks;       /* histogram samples credited (gprof -l's self time) */
  uint64_t bb_count;  /* the count of the line's lowest basic block */
  uint64_t samples;   /* sampled stacks: the samples whose leaf is here (ticks
                         is their weight) */
} lgp_line;

typedef struct lgp_lines {
  lgp_line *v;        /* address order */
  size_t n;
  uint32_t *first;    /* per symbol node: its first line, or LGP_NONE */
  uint32_t *by_line;  /* line ids by (source line, address), unknown lines
                         last: built by lgp_lines_index, NULL before */
  double total;       /* ticks: the sum of every line's (gprof's total time) */
} lgp_lines;

/* Builds p's line data from its image's line symbols (read now through
** src, the owner of p's sources) and its histogram; without DWARF each
** function is one line of unknown number. A profile of sampled stacks has
** its own (stackprofile.h's lines: linesym indexes them): each function's
** lines with samples, after one of unknown number for its samples without
** a line (made also when it has no line at all). 0, or -1 with a message (out of
** memory). */
int lgp_lines_build(lgp_lines *ls, const lgp_profile *p, lgp_sources *src, lgp_err *err);
void lgp_lines_free(lgp_lines *ls);
/* Builds ls->by_line (for look-ups by source line) if not yet. 0, or -1
** (out of memory). */
int lgp_lines_index(lgp_lines *ls, const lgp_profile *p);
/* A line's source file (as DWARF gives it) and number: NULL / 0 when unknown;
** the file's index in the image's files, or -1. */
const char *lgp_line_file(const lgp_profile *p, const lgp_line *l);
int32_t lgp_line_file_index(const lgp_profile *p, const lgp_line *l);
int lgp_line_number(const lgp_profile *p, const lgp_line *l);
/* The name of the inlined function the line's code comes from, or NULL. */
const char *lgp_line_inlined(const lgp_profile *p, const lgp_line *l);
/* The line's execution count: its lowest basic block's count when the
** profile has one in it, else, for a function's first line, the calls the
** function received (from others and itself); -1 when unknown. */
int64_t lgp_line_count(const lgp_profile *p, const lgp_line *l);
/* Does a DWARF path name the file `want` (equal, or ending in "/want")? */
int lgp_lines_path_matches(const char *path, const char *want);

#endif
