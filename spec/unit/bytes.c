/*
** bytes.c: util/bytes.h, the core's readers of fixed-size integers and
** LEB128. Expected values from the definitions (DWARF 5, 7.6: the
** encodings of 2, 127, 128, 129, 12857 and -2, -127, -128, -129; and
** 624485, the usual example).
*/
#include <stdint.h>

#include "util/bytes.h"
#include "unit.h"

static int uleb_is(const unsigned char *b, size_t n, uint64_t want) {
  const unsigned char *p = b;
  uint64_t v = 1;
  return lgp_bytes_uleb(&p, b + n, &v) == 0 && v == want && p == b + n;
}

static int sleb_is(const unsigned char *b, size_t n, int64_t want) {
  const unsigned char *p = b;
  int64_t v = 1;
  return lgp_bytes_sleb(&p, b + n, &v) == 0 && v == want && p == b + n;
}

int main(void) {
  static const unsigned char be[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  const unsigned char *p;
  uint64_t u;
  int64_t s;

  CHECK(lgp_bytes_u16(be, 0) == 0x0201 && lgp_bytes_u16(be, 1) == 0x0102, "u16");
  CHECK(lgp_bytes_u32(be, 0) == 0x04030201u && lgp_bytes_u32(be, 1) == 0x01020304u, "u32");
  CHECK(lgp_bytes_u64(be, 0) == 0x0807060504030201ull &&
        lgp_bytes_u64(be, 1) == 0x0102030405060708ull, "u64");
  CHECK(lgp_bytes_uint(be, 3, 0) == 0x030201 && lgp_bytes_uint(be, 3, 1) == 0x010203, "u24");
  CHECK(lgp_bytes_s32le((const unsigned char *)"\xfe\xff\xff\xff") == -2, "s32le -2");
  CHECK(lgp_bytes_s32le((const unsigned char *)"\x00\x00\x00\x80") == INT32_MIN, "s32le min");
  CHECK(lgp_bytes_s32le((const unsigned char *)"\xff\xff\xff\x7f") == INT32_MAX, "s32le max");

  CHECK(uleb_is((const unsigned char *)"\x02", 1, 2), "uleb 2");
  CHECK(uleb_is((const unsigned char *)"\x7f", 1, 127), "uleb 127");
  CHECK(uleb_is((const unsigned char *)"\x80\x01", 2, 128), "uleb 128");
  CHECK(uleb_is((const unsigned char *)"\x81\x01", 2, 129), "uleb 129");
  CHECK(uleb_is((const unsigned char *)"\xb9\x64", 2, 12857), "uleb 12857");
  CHECK(uleb_is((const unsigned char *)"\xe5\x8e\x26", 3, 624485), "uleb 624485");
  CHECK(sleb_is((const unsigned char *)"\x02", 1, 2), "sleb 2");
  CHECK(sleb_is((const unsigned char *)"\x7e", 1, -2), "sleb -2");
  CHECK(sleb_is((const unsigned char *)"\xff\x00", 2, 127), "sleb 127");
  CHECK(sleb_is((const unsigned char *)"\x81\x7f", 2, -127), "sleb -127");
  CHECK(sleb_is((const unsigned char *)"\x80\x01", 2, 128), "sleb 128");
  CHECK(sleb_is((const unsigned char *)"\x80\x7f", 2, -128), "sleb -128");
  CHECK(sleb_is((const unsigned char *)"\xff\x7e", 2, -129), "sleb -129");
  /* ten bytes: bits beyond 64 dropped; a negative number of 64 bits */
  CHECK(uleb_is((const unsigned char *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10,
                UINT64_MAX), "uleb 2^64 - 1");
  CHECK(sleb_is((const unsigned char *)"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x7f", 10,
                INT64_MIN), "sleb -2^63");

  /* truncated: -1, the cursor at the end, 0 */
  p = (const unsigned char *)"\x80\x80";
  u = 1;
  CHECK(lgp_bytes_uleb(&p, p + 2, &u) == -1 && u == 0, "uleb truncated");
  p = (const unsigned char *)"\xff";
  s = 1;
  CHECK(lgp_bytes_sleb(&p, p + 1, &s) == -1 && s == 0, "sleb truncated");
  p = (const unsigned char *)"\x80\x80\x01\x05";
  CHECK(lgp_bytes_skip_leb(&p, p + 4) == 0 && *p == 0x05, "skip");
  return unit_done("bytes");
}
