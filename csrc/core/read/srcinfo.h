/*
** srcinfo.h: source file and line of each function, and gprof's line
** symbols, from the DWARF line tables and functions.
*/
#ifndef srcinfo_h
#define srcinfo_h

#include <libelf.h>

#include "read/elfsym.h"

/* Sets file and line of every symbol of im whose address a DWARF line
** table covers with a non-zero line (unless im->files is set: read
** before), and with lines, fills im->lines. No DWARF is not an error.
** 0 or -1. */
int lgp_srcinfo_load(lgp_image *im, Elf *elf, int lines, lgp_err *err);

#endif
