/*
** nmsyms.h: function symbols from an nm-style text file (gprof -S,
** --external-symbol-table) instead of the executable's symbol table.
*/
#ifndef nmsyms_h
#define nmsyms_h

#include "read/elfsym.h"

/* Parses size bytes of nm output as gprof reads them: pieces of at most
** NM_PIECE characters (a longer line is cut into several), each scanned
** for an address, a one-character type and a name; only types 't' (static)
** and 'T' (global) make a symbol (is_func set, no file or line). An address
** that is not hexadecimal takes the previous symbol's; a first one is
** skipped. Sets *syms (*n of them, symndx their order) and *names (their
** names, one block: syms[i].name points into it), both allocated, even when
** n is 0. 0, or -1 (out of memory: nothing allocated). */
#define LGP_NM_PIECE 1022
int lgp_nmsyms_parse(const char *data, size_t size, lgp_rawsym **syms, size_t *n,
                     char **names);

/* Reads the file at path into the image's symbols (im->syms, im->strtab),
** replacing none: the image has none yet. 0, or -1 with "PATH: ..." (it
** cannot be read, or it holds no 't'/'T' line). */
int lgp_nmsyms_load(lgp_image *im, const char *path, lgp_err *err);

#endif
