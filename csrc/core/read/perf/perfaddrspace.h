/*
** perfaddrspace.h: the address spaces of the recorded processes (private
** to read/perf/): each one's executable mappings, sorted and disjoint, as
** the MMAP, FORK and COMM records replayed in time order leave them.
*/
#ifndef perfaddrspace_h
#define perfaddrspace_h

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pmap {        /* an executable mapping of a process */
  uint64_t start, end, pgoff;
  uint32_t dso;
} pmap;

struct unw;

typedef struct proc {        /* an address space: mappings sorted, disjoint */
  uint32_t pid;
  pmap *maps;
  size_t n, cap;
  Dwfl *dwfl;                /* its binaries where they are, for unwinding (perfunwind.h) */
  struct unw *unw;           /* the sample being unwound (the Dwfl's argument) */
  int stale;                 /* the mappings changed since dwfl was made */
} proc;

/* The address space of process pid, made on first use; NULL out of
** memory. The pointer holds until the next call. */
proc *lgp_pr_proc_get(reader *s, uint32_t pid);
/* The mapping of p that holds addr, or NULL. */
const pmap *lgp_pr_map_find(const proc *p, uint64_t addr);
/* Adds m to p; what it overlaps of older mappings is gone. 0, or -1. */
int lgp_pr_map_add(reader *s, proc *p, const pmap *m);
/* Frees the address spaces (before the binaries: their unwinding modules
** point at the binaries' ELFs). */
void lgp_pr_spaces_free(reader *s);

#endif
