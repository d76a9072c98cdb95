/*
** fuzz_fde.c: libFuzzer harness for the FDE reader (read/perf/perffde.h):
** .eh_frame_hdr's search table and the FDEs it points at, and the walk of
** every entry of .eh_frame and of .debug_frame (CIE augmentations, pointer
** encodings, lengths). The input is two sections and where they lie:
** [u64 hdr_addr][u64 eh_addr][u32 hdr_len][.eh_frame_hdr][.eh_frame], all
** little-endian (seeds: real libraries' sections, cut out with objcopy).
** Each index made is looked up at the start, the middle and the last
** address of its FDEs, and at addresses spread over the sections' range.
** Built by `make fuzz`; not part of the library.
*/
#include <stdint.h>
#include <string.h>

#include "read/perf/perffde.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le(const uint8_t *p, size_t n) {
  uint64_t v = 0;
  while (n-- > 0)
    v = v << 8 | p[n];
  return v;
}

static void probe(const lgp_fde_index *ix, uint64_t lo, uint64_t hi) {
  lgp_fde f;
  size_t i;
  for (i = 0; i < ix->nfdes && i < 4096; i++) {
    lgp_fde g = ix->fdes[i];
    (void)lgp_fde_lookup(ix, g.start, &f);
    (void)lgp_fde_lookup(ix, g.start + (g.end - g.start) / 2, &f);
    (void)lgp_fde_lookup(ix, g.end - 1, &f);
  }
  for (i = 0; i <= 64; i++)
    if (lgp_fde_lookup(ix, lo + (hi - lo) / 64 * i, &f) == 1 && (f.end <= f.start))
      __builtin_trap();      /* an FDE found is never empty */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lgp_fde_sections s;
  lgp_fde_index ix;
  uint64_t hdr_addr, eh_addr;
  size_t hdr_len;
  if (size < 20)
    return 0;
  hdr_addr = le(data, 8);
  eh_addr = le(data + 8, 8);
  hdr_len = (size_t)le(data + 16, 4);
  data += 20;
  size -= 20;
  if (hdr_len > size)
    hdr_len = size;
  memset(&s, 0, sizeof s);
  s.addr_size = 8;
  /* the table, and its FDEs in .eh_frame */
  s.hdr = data;
  s.nhdr = hdr_len;
  s.hdr_addr = hdr_addr;
  s.eh = data + hdr_len;
  s.neh = size - hdr_len;
  s.eh_addr = eh_addr;
  if (lgp_fde_index_init(&ix, &s) == 0) {
    probe(&ix, hdr_addr > 0x100000 ? hdr_addr - 0x100000 : 0, hdr_addr);
    lgp_fde_index_free(&ix);
  }
  /* .eh_frame walked (no table), then the same bytes as .debug_frame
     (of 4-byte addresses when the input's size is odd) */
  s.hdr = NULL;
  s.nhdr = 0;
  if (lgp_fde_index_init(&ix, &s) == 0) {
    probe(&ix, 0, eh_addr);
    lgp_fde_index_free(&ix);
  }
  memset(&s, 0, sizeof s);
  s.addr_size = size & 1 ? 4 : 8;
  s.debug = data;
  s.ndebug = size;
  if (lgp_fde_index_init(&ix, &s) == 0) {
    probe(&ix, 0, 0x100000);
    lgp_fde_index_free(&ix);
  }
  return 0;
}
