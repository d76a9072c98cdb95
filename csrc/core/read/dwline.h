/*
** dwline.h: DWARF line programs (versions 2 to 5) decoded into sequences
** of rows, in the order the program gives them.
*/
#ifndef dwline_h
#define dwline_h

#include "util/util.h"

typedef struct lgp_dwrow {
  lgp_addr addr;
  int32_t file;   /* the caller's file id (see lgp_dwline_ctx.file_id), or -1 */
  int32_t line;   /* 0 is a real row that has no line */
} lgp_dwrow;

/* [start, end): rows[first .. first + n), ascending, one row per address
** (the last of several at one address). Sequences that cover nothing are
** left out. */
typedef struct lgp_dwseq {
  lgp_addr start, end;
  size_t first, n;
  uint32_t cu;
} lgp_dwseq;

typedef struct lgp_dwsect {
  const unsigned char *p;
  size_t size;
} lgp_dwsect;

typedef struct lgp_dwline_ctx {
  lgp_dwsect line, line_str, str;   /* .debug_line, .debug_line_str, .debug_str */
  int big_endian;
  /* Maps a file name, as BFD spells it (see lgp_dwline_read), to an id. */
  int32_t (*file_id)(void *ud, const char *name);
  void *ud;
  lgp_dwrow *rows;
  size_t nrows, rows_cap;
  lgp_dwseq *seqs;
  size_t nseqs, seqs_cap;
  int backwards;          /* the open sequence went back: not a sequence */
  /* scratch, kept between programs */
  const char **names;     /* the program's file names */
  int32_t *ids;           /* their ids, -2 until first used */
  size_t names_cap, ids_cap;
  char *buf;              /* joined names */
  size_t buf_cap;
  const char **dirs;
  size_t dirs_cap;
} lgp_dwline_ctx;

/* Decodes the line program at offset of .debug_line for compilation unit
** cu, appending to rows/seqs. A DWARF 5 program's rows before the first
** DW_LNS_set_file of a sequence get file entry 0, as BFD 2.40 reads them.
** A relative file name is put under its directory entry and, unless that
** is absolute, under comp_dir (the unit's, NULL for none), as BFD does.
** 0; 1 when the program is malformed (what was decoded is kept);
** -1 out of memory. */
int lgp_dwline_read(lgp_dwline_ctx *c, uint64_t offset, uint32_t cu, const char *comp_dir);
void lgp_dwline_free(lgp_dwline_ctx *c);

#endif
