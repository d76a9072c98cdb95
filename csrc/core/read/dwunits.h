/*
** dwunits.h: what the DWARF units say about code addresses, as srcinfo.c
** loads it and linesyms.c reads it: which unit answers for each address
** and the line map over them (lgp_unitmap), and each unit's functions
** (lgp_unitfns). srcinfo.c builds and frees both; linesyms.c gets them
** through lgp_linesyms_make only.
*/
#ifndef dwunits_h
#define dwunits_h

#include <elfutils/libdw.h>
#include <gelf.h>

#include "read/dwfunc.h"
#include "read/elfsym.h"

/* A point of the line map: from addr on, this file and line (file -1:
** no line), in unit cu. */
typedef struct ment {
  lgp_addr addr;
  int32_t file, line;
  uint32_t cu;
} ment;

/* A stretch [lo, hi) of code that unit cu covers. */
typedef struct crange {
  lgp_addr lo, hi;
  uint32_t cu;
} crange;

/* The units over the code: each unit's ranges, the stretches each
** answers for (BFD asks the first unit whose ranges hold an address), and
** the line map over those stretches (made only for the line symbols). */
typedef struct lgp_unitmap {
  uint32_t nunits;
  crange *cr;     /* the units' ranges, by lo */
  size_t ncr;
  crange *owners; /* ascending, apart: who answers for [lo, hi) */
  size_t nowners;
  ment *map;      /* ascending: the owners' line points */
  size_t nmap;
} lgp_unitmap;

/* The unit whose ranges answer for addr, or -1. */
int64_t lgp_unitmap_owner_at(const lgp_unitmap *m, lgp_addr addr);

/* Each unit's functions: the points of fx, unit u's in
** [ptbeg[u], ptbeg[u + 1]). */
typedef struct lgp_unitfns {
  Dwarf *dw;        /* read from, the units in .debug_info order */
  uint32_t nunits;
  lgp_dwfuncs fx;
  size_t *ptbeg;
  uint8_t *shallow; /* which units were walked without their subprograms' children */
  int any_shallow;  /* any of them */
} lgp_unitfns;

/* Reads every unit's functions into f (a new reading replaces the last);
** shallow: a unit without inlined code is walked without its
** subprograms' children (lgp_dwfuncs_add_unit). 0, or -1. */
int lgp_unitfns_read(lgp_unitfns *f, int shallow);

/* gprof's line symbols into im (lgp_image.lines, line_names), from the
** map, the units' functions (read again whole where a shallow walk may
** have missed one) and elf's code symbols. 0, or -1 (out of memory). */
int lgp_linesyms_make(lgp_image *im, Elf *elf, const lgp_unitmap *m, lgp_unitfns *f);

#endif
