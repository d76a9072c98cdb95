/*
** elfsym.h: the function symbols gprof would take from an executable's
** .symtab, with gprof's rules, plus the source file and line of each from
** DWARF where present.
*/
#ifndef elfsym_h
#define elfsym_h

#include "util/util.h"

typedef struct lgp_rawsym {
  lgp_addr addr;
  const char *name;  /* in lgp_image.strtab */
  uint32_t symndx;   /* .symtab index: the order of ties */
  uint8_t is_static; /* gprof class 't' (local code) rather than 'T'/'W' */
  uint8_t is_func;   /* STT_FUNC */
  int32_t file;      /* index into lgp_image.files, or -1 */
  int32_t line;      /* 0 when unknown */
  uint8_t is_line;   /* a gprof line symbol (-l, -s): is_func 0, file/line set */
  uint8_t is_mapped; /* renamed to its object file by a -R map (mapfile.h) */
} lgp_rawsym;

/* A gprof line symbol: where the (function name, file, line) triple BFD
** reports for an address of .text changes. */
typedef struct lgp_linesym {
  lgp_addr addr;
  const char *name;     /* the function name BFD reports there (DWARF linkage
                           name, else DW_AT_name, else the ELF symbol's), raw
                           (mangled), owned by the image */
  int32_t file;         /* index into lgp_image.files */
  int32_t line;         /* > 0 */
  uint8_t is_inlined;   /* the innermost DWARF function there is an inlined
                           subroutine (name is its name) */
} lgp_linesym;

typedef struct lgp_image_opts {
  int no_static;        /* -a: drop local symbols */
  int functions_only;   /* -D: drop local symbols that are not STT_FUNC */
  int srcinfo;          /* read DWARF now (else on demand) */
  int keep_clones;      /* keep the local code symbols named as gcc's clones
                           (lgp_clone_origin_len) that gprof's filter drops */
  const char *symbol_file; /* -S: the symbols from this nm-style file (no
                           source information then: -a and -D do not apply) */
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
  int external_syms;    /* syms came from an nm-style file (-S) */
  int keep_clones;      /* opened with lgp_image_opts.keep_clones */
  size_t folded_clones; /* clone-named local code symbols gprof's filter
                           dropped: their code counts for the symbol before */
  char **files;         /* source file paths, as BFD joins DWARF's names */
  char **file_paths;    /* files[i] without "." segments and repeated
                           slashes, or NULL (relative: no absolute directory) */
  size_t nfiles;
  /* each file's length and where its base name starts (the reports'
     "(file:line)" suffixes, tens of thousands of them), or NULL */
  uint32_t *file_len, *file_base;
  /* gprof's line symbols (-l, -s), ascending by addr, inside .text;
     filled by lgp_image_load_lines */
  lgp_linesym *lines;
  size_t nlines;
  char *line_names;     /* the lines' names, one block */
  int lines_state;      /* 0 not read, 1 read, -1 unavailable */
  /* DWARF is read on demand (lgp_image_load_srcinfo): the file, as it was */
  char *path;
  uint64_t dev, ino, size;
  int64_t mtime_s, mtime_ns;
  int srcinfo_state;    /* 0 not read, 1 read, -1 unavailable */
  /* the address each symbol's " @ ADDR" suffix prints, or NULL: its
     addr (sampled stacks: addr is a position, this the binary's address) */
  lgp_addr *shown_addr;
} lgp_image;

int lgp_image_open(lgp_image *im, const char *path, const lgp_image_opts *opts,
                   lgp_err *err);
void lgp_image_free(lgp_image *im);
/* Reads the DWARF line tables into syms[].file/line, once.
** 0, or -1 if the file changed or cannot be read (then there is no source
** information, like an executable without DWARF). */
int lgp_image_load_srcinfo(lgp_image *im, lgp_err *err);
/* Reads gprof's line symbols into lines/nlines (and the function-level
** source information too), once. 0, or -1 as lgp_image_load_srcinfo. */
int lgp_image_load_lines(lgp_image *im, lgp_err *err);

/* The name filter gprof applies to local code symbols, run over the raw
** string table from offset off (see the reference, section 3.1: a name
** ending in ".digits" makes the scan run on into the next string). */
int lgp_image_local_name_ok(const char *strtab, size_t size, size_t off);

/* gcc names the functions it specialises or splits after their origin:
** f.constprop.0, f.isra.0, f.part.0, f.cold, f.lto_priv.0, f.localalias,
** f.clone.0, f.specialized.0, and chains of these (f.isra.0.cold); a C++
** name demangles to "f(int) [clone .constprop.0]". The length of the
** origin name (the text before the first clone suffix), or 0 when name is
** not a clone's. */
size_t lgp_clone_origin_len(const char *name);

#endif
