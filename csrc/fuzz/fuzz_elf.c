/*
** fuzz_elf.c: libFuzzer harness for the ELF symbol reader: the input is
** written to a temporary file, opened with each option set
** (lgp_image_open), its DWARF line tables read (lgp_image_load_srcinfo) and its
** line symbols made (lgp_image_load_lines).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char tmp_path[64];

static void write_input(const uint8_t *data, size_t size) {
  FILE *f;
  if (tmp_path[0] == '\0')
    snprintf(tmp_path, sizeof tmp_path, "/tmp/lgprof-fuzz-elf-%ld", (long)getpid());
  f = fopen(tmp_path, "wb");
  if (f == NULL)
    abort();
  if (size > 0 && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int k;
  write_input(data, size);
  for (k = 0; k < 3; k++) {
    lgp_image im;
    lgp_image_opts io;
    lgp_err err = {0, ""};
    memset(&io, 0, sizeof io);
    io.no_static = k == 1;
    io.functions_only = k == 2;
    io.srcinfo = k == 2; /* read at open time, or on demand below */
    if (lgp_image_open(&im, tmp_path, &io, &err) == 0) {
      size_t i;
      for (i = 0; i < im.nsyms; i++) /* every name is a valid string */
        (void)strlen(im.syms[i].name);
      lgp_image_load_srcinfo(&im, &err);
      for (i = 0; i < im.nsyms; i++)
        if (im.syms[i].file >= 0 && (size_t)im.syms[i].file >= im.nfiles)
          abort();
      if (k != 1 && lgp_image_load_lines(&im, &err) == 0)
        for (i = 0; i < im.nlines; i++) /* ascending, in .text, valid files and names */
          if ((i > 0 && im.lines[i].addr <= im.lines[i - 1].addr) || im.lines[i].line <= 0 ||
              im.lines[i].file < 0 || (size_t)im.lines[i].file >= im.nfiles ||
              strlen(im.lines[i].name) == (size_t)-1 || im.lines[i].addr < im.text_vma ||
              im.lines[i].addr - im.text_vma >= im.text_size)
            abort();
      lgp_image_free(&im);
    }
  }
  return 0;
}
