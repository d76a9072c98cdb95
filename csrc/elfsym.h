/*
** elfsym.h: the function symbols gprof would take from an executable's
** .symtab, with gprof's rules, plus the source file and line of each from
** DWARF where present.
*/
#ifndef elfsym_h
#define elfsym_h

#include "lgp.h"

typedef struct lgp_rawsym {
  lgp_addr addr;
  const char *name;  /* in lgp_image.strtab */
  uint32_t symndx;   /* .symtab index: the order of ties */
  uint8_t is_static; /* gprof class 't' (local code) rather than 'T'/'W' */
  uint8_t is_func;   /* STT_FUNC */
  int32_t file;      /* index into lgp_image.files, or -1 */
  int32_t line;      /* 0 when unknown */
} lgp_rawsym;

typedef struct lgp_image_opts {
  int no_static;        /* -a: drop local symbols */
  int functions_only;   /* -D: drop local symbols that are not STT_FUNC */
  int no_srcinfo;       /* skip DWARF */
} lgp_image_opts;

typedef struct lgp_image {
  int addr_bytes;       /* 4 or 8 (ELF class) */
  int big_endian;
  int machine;          /* e_machine */
  lgp_addr text_vma, text_size;
  char *strtab;         /* copy of the symbol string table, NUL-terminated */
  size_t strtab_size;
  lgp_rawsym *syms;
  size_t nsyms;
  char **files;         /* source file paths, as DWARF gives them */
  size_t nfiles;
  /* gprof's line symbols (-l, -s): addresses in .text where the nearest
     source line changes, ascending */
  lgp_addr *line_starts;
  size_t nline_starts;
} lgp_image;

int lgp_image_open(lgp_image *im, const char *path, const lgp_image_opts *opts,
                   lgp_err *err);
void lgp_image_free(lgp_image *im);

/* The name filter gprof applies to local code symbols, run over the raw
** string table from offset off (see the reference, section 3.1: a name
** ending in ".digits" makes the scan run on into the next string). */
int lgp_local_name_ok(const char *strtab, size_t size, size_t off);

#endif
