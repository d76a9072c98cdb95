/*
** fuzz_symfile.c: libFuzzer harness for the nm-style symbol file reader
** (gprof -S): the input is parsed (lgp_nmsyms_parse), what it gives is
** checked (names inside the names block, non-empty, without blanks; order
** numbers in sequence), and the symbols go through gprof's table making at
** function and line granularity (lgp_symtab_build) and the address index,
** which is then asked about every symbol's address and its neighbours.
** Built by `make fuzz`; not part of the library.
*/
#include <stdlib.h>
#include <string.h>

#include "read/nmsyms.h"
#include "model/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_syms(const lgp_rawsym *syms, size_t n, const char *names, size_t size) {
  size_t i;
  for (i = 0; i < n; i++) {
    const char *s = syms[i].name;
    size_t len;
    if (s < names || s > names + size || syms[i].symndx != i || !syms[i].is_func)
      abort();
    len = strlen(s);
    if (len == 0 || len > LGP_NM_PIECE || s + len > names + size ||
        strpbrk(s, " \t\n\v\f\r") != NULL)
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int lines;
  for (lines = 0; lines < 2; lines++) {
    lgp_image im;
    lgp_node *nodes = NULL;
    lgp_symindex ix;
    lgp_err err = {0, ""};
    size_t n = 0, i;
    memset(&im, 0, sizeof im);
    if (lgp_nmsyms_parse((const char *)data, size, &im.syms, &im.nsyms, &im.strtab) != 0)
      return 0;
    check_syms(im.syms, im.nsyms, im.strtab, size);
    im.external_syms = 1;
    im.addr_bytes = 8;
    im.text_vma = 0x1000;
    im.text_size = 0x1000;
    im.lines_state = -1;
    im.srcinfo_state = -1;
    if (lgp_symtab_build(&im, lines, &nodes, &n, &err) == 0) {
      if (lgp_symindex_build(&ix, nodes, n) == 0) {
        for (i = 0; i < n; i++) {
          uint32_t k = lgp_symindex_lookup(&ix, nodes[i].addr);
          if (k != LGP_NONE && k >= n)
            abort();
          (void)lgp_symindex_lookup(&ix, nodes[i].addr - 1);
          (void)lgp_symindex_lookup(&ix, nodes[i].end_addr + 1);
          if (i > 0 && nodes[i].addr <= nodes[i - 1].addr) /* sorted, one per address */
            abort();
        }
        lgp_symindex_free(&ix);
      }
      free(nodes);
    }
    lgp_image_free(&im);
  }
  return 0;
}
