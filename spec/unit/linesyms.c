/*
** linesyms.c: prints the line symbols lgp_image_load_lines finds in an
** executable, one "ADDR NAME FILE:LINE [inlined]" line each (hexadecimal
** address), for spec/lines_spec.lua to compare with addr2line and gprof.
*/
#include <stdio.h>
#include <string.h>

#include "read/elfsym.h"

int main(int argc, char **argv) {
  lgp_image im;
  lgp_err err;
  size_t i;
  memset(&err, 0, sizeof err);
  if (argc != 2) {
    fprintf(stderr, "usage: linesyms EXE\n");
    return 2;
  }
  if (lgp_image_open(&im, argv[1], NULL, &err) != 0 || lgp_image_load_lines(&im, &err) != 0) {
    fprintf(stderr, "linesyms: %s\n", err.msg);
    return 1;
  }
  for (i = 0; i < im.nlines; i++) {
    const lgp_linesym *l = &im.lines[i];
    printf("%llx %s %s:%d%s\n", (unsigned long long)l->addr, l->name, im.files[l->file],
           (int)l->line, l->is_inlined ? " inlined" : "");
  }
  lgp_image_free(&im);
  return 0;
}
