/*
** bytes.h: the core's readers of numbers stored in bytes: fixed-size
** unsigned integers of either byte order (gmon.out, DWARF, x86 code) and
** LEB128 (DWARF). Inline: DWARF line programs call them for every byte.
*/
#ifndef bytes_h
#define bytes_h

#include <stddef.h>
#include <stdint.h>

/* Two, four and eight bytes at p as an unsigned number, big-endian if big:
** written out, as the compiler turns them into one load (and a byte swap),
** which a loop over the bytes with the order decided inside it is not (the
** gmon reader decodes every arc record with them). */
static inline uint16_t lgp_bytes_u16(const unsigned char *p, int big) {
  return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t lgp_bytes_u32(const unsigned char *p, int big) {
  if (big)
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t lgp_bytes_u64(const unsigned char *p, int big) {
  uint64_t hi = lgp_bytes_u32(p, big), lo = lgp_bytes_u32(p + 4, big);
  return big ? hi << 32 | lo : lo << 32 | hi;
}

/* The n (at most 8) bytes at p as an unsigned number, big-endian if big. */
static inline uint64_t lgp_bytes_uint(const unsigned char *p, size_t n, int big) {
  uint64_t v = 0;
  size_t i;
  switch (n) {
  case 2: return lgp_bytes_u16(p, big);
  case 4: return lgp_bytes_u32(p, big);
  case 8: return lgp_bytes_u64(p, big);
  default:
    for (i = 0; i < n; i++)
      v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
    return v;
  }
}

/* A little-endian 32-bit two's complement number (x86 displacements). */
static inline int32_t lgp_bytes_s32le(const unsigned char *p) {
  uint32_t v = lgp_bytes_u32(p, 0);
  return v < 0x80000000u ? (int32_t)v : -(int32_t)(0xffffffffu - v) - 1;
}

/* LEB128 at *p (before end): its bits into *v (beyond 64 dropped), *p
** past it and the bits it holds into *nbits; 0, or -1 when end comes first
** (*p is then end, *v 0). The last byte is (*p)[-1]. */
static inline int lgp_bytes_leb(const unsigned char **p, const unsigned char *end,
                                uint64_t *v, unsigned *nbits) {
  const unsigned char *q = *p;
  uint64_t r = 0;
  unsigned shift = 0;
  while (q < end) {
    unsigned char b = *q++;
    if (shift < 64)
      r |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) {
      *p = q;
      *v = r;
      *nbits = shift;
      return 0;
    }
  }
  *p = end;
  *v = 0;
  *nbits = 0;
  return -1;
}

/* Unsigned and signed LEB128 (DWARF's ULEB128 and SLEB128); as lgp_bytes_leb. */
static inline int lgp_bytes_uleb(const unsigned char **p, const unsigned char *end,
                                 uint64_t *v) {
  unsigned nbits;
  return lgp_bytes_leb(p, end, v, &nbits);
}

static inline int lgp_bytes_sleb(const unsigned char **p, const unsigned char *end,
                                 int64_t *v) {
  uint64_t r;
  unsigned nbits;
  if (lgp_bytes_leb(p, end, &r, &nbits) != 0) {
    *v = 0;
    return -1;
  }
  if (nbits < 64 && ((*p)[-1] & 0x40)) /* the sign bit: extend it */
    r |= ~(uint64_t)0 << nbits;
  *v = (int64_t)r;
  return 0;
}

/* Skips a LEB128 number; 0 or -1 as lgp_bytes_uleb. */
static inline int lgp_bytes_skip_leb(const unsigned char **p, const unsigned char *end) {
  const unsigned char *q = *p;
  while (q < end)
    if (!(*q++ & 0x80)) {
      *p = q;
      return 0;
    }
  *p = end;
  return -1;
}

#endif
