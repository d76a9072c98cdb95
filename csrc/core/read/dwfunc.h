/*
** dwfunc.h: the DWARF functions (subprograms, inlined subroutines) of a
** compilation unit, as the innermost function at each address.
*/
#ifndef dwfunc_h
#define dwfunc_h

#include <elfutils/libdw.h>

#include "util/util.h"

/* From addr on (up to the next point), the innermost function is fn
** (an index into lgp_dwfuncs.fns), or -1 for none. */
typedef struct lgp_dwfpoint {
  lgp_addr addr;
  int32_t fn;
} lgp_dwfpoint;

typedef struct lgp_dwfn {
  const char *name;   /* from libdw (valid while the Dwarf is), or NULL */
  lgp_addr low;       /* start of its first range */
  uint8_t is_linkage; /* name is final: a linkage name, or the name of a
                         function of a language without mangling */
  uint8_t is_inlined;
} lgp_dwfn;

typedef struct lgp_dwfuncs {
  lgp_dwfn *fns;
  size_t nfns, fns_cap;
  lgp_dwfpoint *pts;  /* all units' points; unit u's are [ptbeg[u], ptbeg[u+1]) */
  size_t npts, pts_cap;
  /* scratch */
  struct lgp_dwarange *ar;
  size_t nar, ar_cap;
  Dwarf_Die *stack;
  size_t stack_cap;
  uint32_t *heap;
  lgp_addr *byhi;         /* the ranges' ends, ascending */
  size_t heap_cap, byhi_cap;
  /* .debug_info and .debug_abbrev as libdw reads them, set by the caller
     to let units be walked directly (NULL: only through libdw) */
  const unsigned char *info, *abbrev;
  size_t info_size, abbrev_size;
  int big_endian;
  /* scratch of the direct walk */
  struct lgp_dwabbr *abbrs;
  struct lgp_dwaspec *specs;
  struct lgp_dwstep *steps;
  uint32_t *abidx;        /* abbreviation code -> index in abbrs + 1, or 0 */
  size_t *pos;            /* the open DIEs' offsets */
  size_t abbrs_cap, specs_cap, steps_cap, abidx_cap, pos_cap;
} lgp_dwfuncs;

/* Appends the functions and points (ascending) of cudie's unit, whose
** header is at offset unit_off of .debug_info. shallow: when no
** abbreviation of the unit can make inlined code, the subprograms' own
** children (variables, blocks, call sites) are skipped; a function nested
** in another (GNU C, local classes) is then missed, which the caller
** checks. 1 if the walk was shallow, 0 if whole, -1 (out of memory). */
int lgp_dwfuncs_add_unit(lgp_dwfuncs *f, Dwarf_Die *cudie, uint64_t unit_off, int shallow);
void lgp_dwfuncs_free(lgp_dwfuncs *f);

#endif
