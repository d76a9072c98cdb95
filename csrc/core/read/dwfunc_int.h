/*
** dwfunc_int.h: what dwfunc.c (the functions of a unit, through libdw) and
** dwinfo.c (the direct walk of .debug_info that finds them faster) share.
*/
#ifndef dwfunc_int_h
#define dwfunc_int_h

#include "read/dwfunc.h"

/* The attributes of a DIE that name a function or give its code. */
typedef struct fattrs {
  Dwarf_Attribute linkage, name, origin, low, high, ranges;
  unsigned have;
} fattrs;

enum { HAVE_LINKAGE = 1, HAVE_NAME = 2, HAVE_ORIGIN = 4, HAVE_LOW = 8, HAVE_HIGH = 16,
       HAVE_RANGES = 32 };

/* Keeps the attributes of at that lgp_dwfn_record needs (a dwarf_getattrs
** callback: arg is an fattrs). */
int lgp_dwfn_collect(Dwarf_Attribute *at, void *arg);
/* Records the function die whose attributes are a: 1 if it has code,
** else 0; -1 out of memory. */
int lgp_dwfn_record(lgp_dwfuncs *f, Dwarf_Die *die, const fattrs *a, int tag, int lang);
int lgp_dwfn_is_function(int tag);
/* Tags whose children may hold functions: others are skipped whole. */
int lgp_dwfn_may_hold(int tag);

/* The direct walk's answer when it cannot read a unit: the libdw walk
** reads it instead. */
enum { LGP_DWINFO_BAIL = 2 };
/* Records the functions of cudie's unit (header at unit_off of .debug_info)
** by reading .debug_info directly: 0, -1 (out of memory) or
** LGP_DWINFO_BAIL. shallow: as lgp_dwfuncs_add_unit's, cleared when the
** unit can make inlined code. */
int lgp_dwinfo_walk(lgp_dwfuncs *f, Dwarf_Die *cudie, uint64_t unit_off, int *shallow);

#endif
