/*
** json.c: JSON strings (json.h).
*/
#include <string.h>

#include "util/json.h"

/* The length of the valid UTF-8 sequence at s (before e), 0 if none:
** no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, const unsigned char *e) {
  unsigned b = s[0], b1;
  size_t n, k;
  if (b >= 0xc2 && b <= 0xdf)
    n = 2;
  else if (b >= 0xe0 && b <= 0xef)
    n = 3;
  else if (b >= 0xf0 && b <= 0xf4)
    n = 4;
  else
    return 0;
  if ((size_t)(e - s) < n)
    return 0;
  b1 = s[1];
  if ((b1 & 0xc0) != 0x80 || (b == 0xe0 && b1 < 0xa0) || (b == 0xed && b1 > 0x9f) ||
      (b == 0xf0 && b1 < 0x90) || (b == 0xf4 && b1 > 0x8f))
    return 0;
  for (k = 2; k < n; k++)
    if ((s[k] & 0xc0) != 0x80)
      return 0;
  return n;
}

void lgp_json_string(lgp_out *o, const char *str, size_t len) {
  const unsigned char *s = (const unsigned char *)str, *e = s + len;
  lgp_out_char(o, '"');
  while (s < e) {
    const unsigned char *run = s;
    size_t n = 0;
    /* plain bytes are copied a run at a time */
    while (s < e && *s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
      s++;
    if (s > run)
      lgp_out_mem(o, (const char *)run, (size_t)(s - run));
    if (s == e)
      break;
    if (*s == '"' || *s == '\\') {
      lgp_out_char(o, '\\');
      lgp_out_char(o, (char)*s);
      s++;
    } else if (*s >= 0x80 && (n = utf8_seq(s, e)) != 0) {
      lgp_out_mem(o, (const char *)s, n);
      s += n;
    } else {
      lgp_out_printf(o, "\\u%04x", *s);
      s++;
    }
  }
  lgp_out_char(o, '"');
}

void lgp_json_cstr(lgp_out *o, const char *s) {
  if (s == NULL)
    lgp_out_str(o, "null");
  else
    lgp_json_string(o, s, strlen(s));
}
