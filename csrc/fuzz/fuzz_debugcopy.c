/*
** fuzz_debugcopy.c: libFuzzer harness for the in-memory copy of a separate
** debug file with its compressed DWARF inflated (lgp_debug_inflated_copy):
** the ELF, section and compression headers, the build-id note, the parts
** left out and the inflating. The input is the file; its last 20 bytes
** are also the build-id asked for (a seed is a debug file with its
** build-id appended), so that inputs get past the build-id check. The
** copy made is read back whole.
** Built by `make fuzz`; not part of the library.
*/
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/perf/debugcopy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd, copy;
  size_t off;
  if (size < 21 || (fd = memfd_create("fuzz-debug", MFD_CLOEXEC)) < 0)
    return 0;
  for (off = 0; off < size;) {
    ssize_t n = write(fd, data + off, size - off);
    if (n <= 0)
      break;
    off += (size_t)n;
  }
  if (off == size && (copy = lgp_debug_inflated_copy(fd, data + size - 20, 20)) >= 0) {
    struct stat st;
    if (fstat(copy, &st) == 0 && st.st_size > 0) {
      void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, copy, 0);
      if (m != MAP_FAILED) {
        const volatile unsigned char *p = m;
        unsigned sum = 0;
        off_t i;
        for (i = 0; i < st.st_size; i += 4096)
          sum += p[i];
        (void)sum;
        munmap(m, (size_t)st.st_size);
      }
    }
    close(copy);
  }
  close(fd);
  return 0;
}
