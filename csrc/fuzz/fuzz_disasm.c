/*
** fuzz_disasm.c: libFuzzer harness for the static call graphs over
** arbitrary machine code: gprof -c's byte scan (lgp_staticcg_gprof_scan) and
** the Capstone decoding of --static-arcs (lgp_staticcg_decode), with a symbol
** table, histogram records, a PLT and GOT slots all taken from the input.
** Layout: byte 0 the number of symbols (1 to 32), then two bytes per
** symbol (its offset, and flags: bit 0 a line symbol), four bytes of
** histogram cut points, then the code (.text at 0x401000; its first 64
** bytes again as a .plt at 0x400000 whose GOT slots name symbols).
** Built by `make fuzz`; not part of the library.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/staticcg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TEXT 0x401000u
#define PLT 0x400000u
#define NSYM_MAX 32

static int cmp_addr(const void *a, const void *b) {
  const lgp_rawsym *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const names[NSYM_MAX] = {
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
    "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25",
    "s26", "s27", "s28", "s29", "s30", "s31"};
  lgp_rawsym raw[NSYM_MAX];
  lgp_node nodes[NSYM_MAX];
  lgp_codesec secs[2];
  lgp_gotslot slots[4];
  char slot_names[4 * 8];
  lgp_code code;
  lgp_hist hist[3];
  lgp_symindex ix;
  lgp_arctab arcs;
  lgp_scan_ctx sc;
  lgp_err err = {0, ""};
  size_t nsym, i, n, head, codesize;
  const uint8_t *text;
  if (size < 6)
    return 0;
  nsym = (size_t)(data[0] % NSYM_MAX) + 1;
  head = 1 + 2 * nsym + 4;
  if (size <= head)
    return 0;
  text = data + head;
  codesize = size - head;
  for (i = 0, n = 0; i < nsym; i++) {
    size_t off = (size_t)data[1 + 2 * i] * codesize / 256;
    size_t k;
    for (k = 0; k < n && raw[k].addr != TEXT + off; k++)
      ;
    if (k < n)
      continue; /* one symbol per address, as the table has */
    memset(&raw[n], 0, sizeof raw[n]);
    raw[n].addr = TEXT + off;
    raw[n].name = names[i];
    raw[n].is_func = 1;
    raw[n].is_line = (data[2 + 2 * i] & 1) != 0;
    raw[n].file = -1;
    n++;
  }
  qsort(raw, n, sizeof raw[0], cmp_addr);
  raw[0].is_line = 0;
  for (i = 0; i < n; i++)
    lgp_symtab_node_init(&nodes[i], (uint32_t)i, &raw[i],
                         i + 1 < n ? raw[i + 1].addr - 1 : TEXT + codesize - 1);
  if (lgp_symindex_build(&ix, nodes, n) != 0)
    return 0;
  /* histogram records: [TEXT + a, TEXT + b), [TEXT + b, TEXT + c) and one far off */
  {
    size_t cuts[3];
    const uint8_t *h = data + 1 + 2 * nsym;
    cuts[0] = (size_t)h[0] * codesize / 256;
    cuts[1] = cuts[0] + (size_t)h[1] * (codesize - cuts[0]) / 256;
    cuts[2] = cuts[1] + (size_t)h[2] * (codesize - cuts[1] + 64) / 256;
    memset(hist, 0, sizeof hist);
    hist[0].low = TEXT + cuts[1];
    hist[0].high = TEXT + cuts[2];
    hist[1].low = TEXT + cuts[0];
    hist[1].high = TEXT + cuts[1];
    hist[2].low = (h[3] & 1) ? 0x100000000u + TEXT : PLT;
    hist[2].high = hist[2].low + 64;
  }
  memset(&code, 0, sizeof code);
  memset(secs, 0, sizeof secs);
  secs[0].vma = PLT;
  secs[0].size = codesize < 64 ? codesize : 64;
  secs[0].bytes = text;
  secs[0].is_plt = 1;
  secs[0].entsize = 16;
  secs[1].vma = TEXT;
  secs[1].size = codesize;
  secs[1].bytes = text;
  secs[1].is_text = 1;
  code.secs = secs;
  code.nsecs = 2;
  /* GOT slots near the code, named after the first symbols */
  for (i = 0; i < 4; i++) {
    snprintf(slot_names + 8 * i, 8, "%s", i < n ? raw[i].name : "import");
    slots[i].slot = TEXT + codesize + 0x1000 + 8 * i;
    slots[i].name = 8 * i;
  }
  code.slots = slots;
  code.nslots = 4;
  code.names = slot_names;
  lgp_arctab_init(&arcs, n);
  if (n > 1)
    lgp_arctab_add(&arcs, 1, 0, 3); /* an arc from gmon, which the scans must keep */
  sc.nodes = nodes;
  sc.n = n;
  sc.ix = &ix;
  sc.arcs = &arcs;
  sc.path = "fuzz";
  sc.lines = (data[0] & 16) != 0;
  if (lgp_staticcg_gprof_scan(&sc, &code, hist, 1 + (size_t)(data[0] >> 5) % 3, &err) == 0)
    lgp_staticcg_decode(&sc, &code, &err);
  for (i = 0; i < arcs.narcs; i++)
    if (arcs.arcs[i].parent >= n || arcs.arcs[i].child >= n ||
        (arcs.arcs[i].is_static && arcs.arcs[i].count != 0))
      abort();
  lgp_arctab_free(&arcs);
  lgp_symindex_free(&ix);
  return 0;
}
