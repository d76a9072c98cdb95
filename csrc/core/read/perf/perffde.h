/*
** perffde.h: the functions of code without symbols, from its unwind
** tables: each FDE (Frame Description Entry) of .eh_frame or .debug_frame
** gives the start and end of the code it describes, which for compiled
** code is one function. A stripped binary keeps .eh_frame (C++ exceptions
** and unwinders need it), so its functions are known even without names.
**
** The parser reads only the entries' lengths, their CIE's augmentation
** (the pointer encoding of the FDEs, 'R') and each FDE's initial location
** and address range: every size is checked against the section before it
** is used; an entry that does not check out ends the walk (the ones
** before it are kept).
*/
#ifndef perffde_h
#define perffde_h

#include <stddef.h>
#include <stdint.h>

typedef struct lgp_fde {
  uint64_t start, end;       /* [start, end) in the binary's addresses */
} lgp_fde;

/* A little-endian binary's unwind sections (bytes, size, address:
** sh_addr; NULL when it has none) and its address size (4 or 8 bytes). */
typedef struct lgp_fde_sections {
  const uint8_t *hdr, *eh, *debug;  /* .eh_frame_hdr, .eh_frame, .debug_frame */
  size_t nhdr, neh, ndebug;
  uint64_t hdr_addr, eh_addr, debug_addr;
  int addr_size;
} lgp_fde_sections;

/* The FDEs of a binary, for lookups by address: .eh_frame_hdr's sorted
** table read in place where there is one (and an FDE read when its entry
** is found: nothing is copied or walked); else every FDE of .eh_frame (or,
** without one, of .debug_frame) walked once, sorted. The sections' bytes
** must outlive the index. */
typedef struct lgp_fde_index {
  const uint8_t *table;      /* .eh_frame_hdr's entries, or NULL */
  size_t ntable;
  uint64_t hdr_addr;
  const uint8_t *eh;
  size_t neh;
  uint64_t eh_addr;
  int addr_size;
  lgp_fde *fdes;             /* no table: the FDEs walked, by start */
  size_t nfdes;
} lgp_fde_index;

/* 0, or -1 out of memory (an index of no FDE: every section may be
** missing or malformed). */
int lgp_fde_index_init(lgp_fde_index *ix, const lgp_fde_sections *s);
void lgp_fde_index_free(lgp_fde_index *ix);
/* The FDE that covers addr: 1 (*out set), or 0. */
int lgp_fde_lookup(const lgp_fde_index *ix, uint64_t addr, lgp_fde *out);

#endif
