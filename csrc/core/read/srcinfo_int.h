/*
** srcinfo_int.h: what srcinfo.c (the line tables, the units' map, each
** symbol's file and line) and linesyms.c (gprof's line symbols over that
** map) share: the loader of one DWARF reading.
*/
#ifndef srcinfo_int_h
#define srcinfo_int_h

#include <elfutils/libdw.h>
#include <gelf.h>

#include "read/dwfunc.h"
#include "read/dwline.h"
#include "read/srcinfo.h"
#include "util/strset.h"

/* The source files: names as BFD spells them, and absolute paths. */
typedef struct interner {
  lgp_strset set;
  char **paths; /* absolute form of set.s[i] (see file_path), or NULL */
  size_t pcap;
} interner;

/* A point of the line map: from addr on, this file and line (file -1:
** no line), in unit cu. */
typedef struct ment {
  lgp_addr addr;
  int32_t file, line;
  uint32_t cu;
} ment;

typedef struct crange {
  lgp_addr lo, hi;
  uint32_t cu;
} crange;

/* A code symbol as BFD's ELF function lookup sees it: the last one at or
** below an address (of several at one address, the largest, then the
** first) names it. */
typedef struct codesym {
  lgp_addr addr, size;
  const char *name;  /* in the image's strtab copy, or the ELF's */
  uint32_t order;
  int32_t id;        /* name id, -2 until used */
} codesym;

typedef struct loader {
  lgp_image *im;
  Elf *elf;
  Dwarf *dw;
  interner files;
  lgp_dwline_ctx lc;
  lgp_dwfuncs fx;
  size_t *ptbeg;       /* unit u's function points: [ptbeg[u], ptbeg[u + 1]) */
  int any_shallow;     /* a unit's functions were walked without their children */
  uint8_t *shallow;    /* which units were (nunits entries) */
  size_t *ebeg;        /* unit u's map: ents[ebeg[u] .. ebeg[u + 1]) */
  size_t *sbeg;        /* unit u's sequences: lc.seqs[sbeg[u] .. sbeg[u + 1]) */
  int lines;           /* make the global map and the line symbols */
  uint32_t nunits;
  crange *cr;            /* the units' ranges */
  size_t ncr, cr_cap;
  crange *owners;        /* ascending: who answers for [lo, hi) */
  size_t nowners, owners_cap;
  ment *ents, *map;
  size_t nents, ents_cap, nmap, map_cap;
  codesym *cs;
  size_t ncs;
  lgp_strset nm;       /* the line symbols' names */
} loader;

/* The unit whose ranges answer for addr, or -1. */
int64_t lgp_srcinfo_owner_at(const loader *L, lgp_addr addr);
/* Every unit's functions (the points of L->fx, by unit in L->ptbeg);
** shallow: a unit without inlined code is walked without its subprograms'
** children (lgp_dwfuncs_add_unit), which L->any_shallow then says. A new
** reading replaces the last one. 0, or -1. */
int lgp_srcinfo_read_functions(loader *L, int shallow);
/* gprof's line symbols into L->im (lgp_image.lines, line_names), from the
** map, the units' functions and the code symbols. 0, or -1 (out of memory). */
int lgp_srcinfo_line_syms(loader *L);

#endif
