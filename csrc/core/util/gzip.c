/*
** gzip.c: a buffer compressed into one gzip member with zlib (the library
** libdw already links): deflate with zlib's gzip wrapper, which writes a
** header without a name and with a zero time stamp.
*/
#include <limits.h>
#include <stdint.h>

/* next_in as a pointer to const: the input is never written */
#define ZLIB_CONST
#include <zlib.h>

#include "util/gzip.h"

/* zlib counts in uInt: feed and drain at most this much per call */
#define CHUNK_MAX ((size_t)UINT_MAX)

/* zlib's bound for a zlib stream (compressBound's terms, computed in
** size_t: deflate's worst case is stored blocks, 5 bytes per 16 KiB and a
** few more) plus the gzip wrapper's 18 bytes of header and trailer. */
size_t lgp_gzip_bound(size_t n) {
  size_t extra = (n >> 12) + (n >> 14) + (n >> 25) + 13 + 18 + 64;
  return n > SIZE_MAX - extra ? 0 : n + extra;
}

size_t lgp_gzip(const void *data, size_t n, int level, unsigned char *out) {
  z_stream z;
  size_t in_left = n, cap = lgp_gzip_bound(n), used = 0;
  int rc;
  if (level < -1 || level > 9)
    level = Z_DEFAULT_COMPRESSION;
  z.zalloc = Z_NULL;
  z.zfree = Z_NULL;
  z.opaque = Z_NULL;
  /* 15 + 16: the largest window, wrapped as gzip rather than zlib */
  if (cap == 0 || deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return 0;
  z.next_in = (const Bytef *)data;
  do {
    size_t take = in_left < CHUNK_MAX ? in_left : CHUNK_MAX, room = cap - used;
    if (room == 0) /* cannot happen within the bound: give up, not overrun */
      break;
    z.avail_in = (uInt)take;
    z.next_out = out + used;
    z.avail_out = (uInt)(room < CHUNK_MAX ? room : CHUNK_MAX);
    rc = deflate(&z, take == in_left ? Z_FINISH : Z_NO_FLUSH);
    in_left -= take - z.avail_in;
    used = (size_t)(z.next_out - out);
  } while (rc == Z_OK || rc == Z_BUF_ERROR);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? used : 0;
}
