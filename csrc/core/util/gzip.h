/*
** gzip.h: a buffer compressed into one gzip member (RFC 1952) with zlib,
** for the exports whose format is gzip-compressed (pprof's profile.proto).
*/
#ifndef gzip_h
#define gzip_h

#include <stddef.h>

/* The most lgp_gzip can write for n bytes of input (0 if that overflows). */
size_t lgp_gzip_bound(size_t n);

/* Compresses the n bytes at data at zlib's level (0-9, or -1 for zlib's
** default) into out, which has room for lgp_gzip_bound(n) bytes (the
** caller's buffer: a Lua buffer, say, so that nothing here needs freeing if
** the caller's allocator gives up later). The header has no name and no
** time stamp, so equal inputs give equal files. Returns the bytes written,
** or 0 when zlib is out of memory. */
size_t lgp_gzip(const void *data, size_t n, int level, unsigned char *out);

#endif
