/*
** buildid.c: the GNU build-id of a note area (see buildid.h).
*/
#include "read/perf/buildid.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_GNU_BUILD_ID 3u /* NT_GNU_BUILD_ID */
/* the kernel's notes are a few hundred bytes; a binary's note segment
   rarely more than a page: more is not a note area */
#define MAX_NOTES 65536u

size_t lgp_notes_build_id(const unsigned char *p, size_t n, unsigned char *id, size_t cap) {
  size_t left = n;
  while (left >= 12) {
    uint32_t nh[3];
    uint64_t namesz, descsz;
    memcpy(nh, p, sizeof nh);
    /* name and description each padded to 4 bytes */
    namesz = ((uint64_t)nh[0] + 3) & ~(uint64_t)3;
    descsz = ((uint64_t)nh[1] + 3) & ~(uint64_t)3;
    if (namesz > left - 12 || descsz > left - 12 - namesz)
      return 0;
    if (nh[2] == NOTE_GNU_BUILD_ID && nh[0] == 4 && memcmp(p + 12, "GNU", 4) == 0) {
      if (nh[1] == 0 || nh[1] > cap)
        return 0;
      memcpy(id, p + 12 + namesz, nh[1]);
      return nh[1];
    }
    p += 12 + namesz + descsz;
    left -= (size_t)(12 + namesz + descsz);
  }
  return 0;
}

size_t lgp_running_kernel_build_id(const char *path, unsigned char *id, size_t cap) {
  FILE *f = fopen(path != NULL ? path : "/sys/kernel/notes", "rb");
  unsigned char *buf;
  size_t n, len = 0;
  if (f == NULL)
    return 0;
  if ((buf = malloc(MAX_NOTES)) != NULL) {
    n = fread(buf, 1, MAX_NOTES, f);
    len = lgp_notes_build_id(buf, n, id, cap);
    free(buf);
  }
  fclose(f);
  return len;
}
