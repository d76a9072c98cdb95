/*
** perfsymtab.h: an address of a binary to its frames (private to
** read/perf/): the symbol that covers it, found by a binary search of the
** binary's symbols sorted once (with libdwfl's choices among aliases
** kept), and the inlined functions there from the DWARF scopes of its
** compilation unit, indexed once per unit.
*/
#ifndef perfsymtab_h
#define perfsymtab_h

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

typedef struct symaddr {     /* a symbol's address and its index in the module */
  uint64_t value, size;
  const char *name;          /* libdwfl's (its string table's, kept by the module) */
  uint64_t max_end;          /* the highest end of the sized symbols up to here */
  uint64_t section_end;      /* where its section ends (a sizeless symbol reaches no further), 0 unknown */
  int index;
  int sizeless;              /* a sizeless symbol up to here */
  size_t group;              /* the first symbol at this address */
  /* on a group's first symbol: all of the group sized alike, and the
     symbol libdwfl chose among them (0: not asked yet) */
  int uniform, chosen;
} symaddr;

/* The DIEs of a compilation unit that have code addresses, as libdw's
** dwarf_getscopes looks for the scopes at an address (it walks the unit
** from its start for every address): each DIE's children with ranges,
** their ranges sorted, so that an address finds its path of scopes by a
** binary search per level. */
typedef struct scopenode {
  Dwarf_Die die;
  uint32_t parent;           /* NONE for the unit */
  uint32_t first, n;         /* its children's ranges: ranges[first .. first + n) */
} scopenode;

typedef struct scoperange {
  uint64_t lo, hi;
  uint32_t node;
} scoperange;

typedef struct cuscopes {
  uint32_t dso;
  const void *cu;            /* the unit's DIE (its address in the DWARF) */
  scopenode *nodes;
  scoperange *ranges;
  size_t nnodes, nranges;
  int irregular;             /* overlapping siblings, imported units, errors:
                                libdw is asked for each address */
} cuscopes;

/* The frames at addr of an opened ELF (dso): the inlined functions there,
** innermost first, then the function of the symbol, each at its source
** line; pushed (lgp_pr_cframe_push). 0, or -1. */
int lgp_pr_elf_frames(reader *s, uint32_t dso, uint64_t addr);
/* Puts the names of the functions of binary dso (an opened ELF) in the
** table (lgp_st_dso.names): every symbol it looks addresses up among,
** sampled or not. 0, or -1. */
int lgp_pr_dso_names(reader *s, uint32_t dso);
/* Frees the scopes' index. */
void lgp_pr_scopes_free(reader *s);

#endif
