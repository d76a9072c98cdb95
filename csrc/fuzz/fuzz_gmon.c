/*
** fuzz_gmon.c: libFuzzer harness for the gmon.out reader alone
** (lgp_gmon_read_mem), every format option, both address widths and byte
** orders, one file or the input read twice (the merge paths).
** Built by `make fuzz`; not part of the library.
*/
#include <stdlib.h>
#include <string.h>

#include "read/gmon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_sink(void *ctx, lgp_addr from, lgp_addr self, uint64_t count) {
  (void)from;
  (void)self;
  *(uint64_t *)ctx += count;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int formats[] = {LGP_FMT_AUTO, LGP_FMT_MAGIC, LGP_FMT_BSD, LGP_FMT_BSD44};
  int f, w;
  for (w = 0; w < 4; w++) {
    for (f = 0; f < 4; f++) {
      lgp_gmon g;
      lgp_err err = {0, ""};
      uint64_t total = 0;
      lgp_gmon_init(&g, (w & 1) ? 4 : 8, (w & 2) != 0);
      g.sink = (f & 1) ? count_sink : NULL;
      g.sink_ctx = &total;
      if (lgp_gmon_read_mem(&g, data, size, "fuzz", formats[f], &err) == 0 &&
          w == 0) /* a second file merged into the first */
        lgp_gmon_read_mem(&g, data, size, "fuzz2", formats[f], &err);
      lgp_gmon_free(&g);
    }
  }
  return 0;
}
