/*
** perfswap.c: writes what lgprof's converter (csrc/core/read/perf/perfswap.c)
** makes of a perf.data of the other byte order, its copy in this machine's
** order, to stdout, for spec/perfendian_spec.lua to compare with the same
** recording written in this order:
**   perfswap FILE
** Exit status 0, or 1 with the converter's one-line message on stderr.
*/
#include <stdio.h>
#include <stdlib.h>
#include "read/perf/perfswap.h"

int main(int argc, char **argv) {
  FILE *f;
  uint8_t *in = NULL, *out = NULL;
  size_t n = 0, cap = 0, got;
  lgp_err err = { 0, "" };
  int rc = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: perfswap FILE\n");
    return 2;
  }
  if (!(f = fopen(argv[1], "rb"))) {
    fprintf(stderr, "%s: cannot open\n", argv[1]);
    return 1;
  }
  do {
    if (n == cap) {
      uint8_t *p = realloc(in, cap = cap ? 2 * cap : 65536);
      if (!p) {
        fclose(f);
        free(in);
        fprintf(stderr, "%s: out of memory\n", argv[1]);
        return 1;
      }
      in = p;
    }
    got = fread(in + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  if (lgp_perf_swap(argv[1], in, n, &out, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    rc = 1;
  } else if (fwrite(out, 1, n, stdout) != n) {
    rc = 1;
  }
  free(in);
  free(out);
  return rc;
}
