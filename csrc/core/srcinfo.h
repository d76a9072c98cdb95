/*
** srcinfo.h: source file and line of each function from DWARF line tables
** (libdw), read once into one sorted table.
*/
#ifndef srcinfo_h
#define srcinfo_h

#include <libelf.h>

#include "elfsym.h"

/* Sets file and line of every symbol of im whose address a DWARF line
** table covers with a non-zero line. No DWARF is not an error. */
int lgp_srcinfo_assign(lgp_image *im, Elf *elf, lgp_err *err);

#endif
