/*
** json.h: JSON strings, the one encoder every JSON writer uses (the
** exports here, and through the binding the doctor, html and speedscope).
*/
#ifndef json_h
#define json_h

#include <stddef.h>

#include "util/util.h"

/* The len bytes of s as a JSON string, quotes included. Valid UTF-8 is
** copied; '"' and '\' are escaped; the other bytes below 0x20 are written
** \u00XX; a byte that does not begin a valid UTF-8 sequence (symbol names
** and paths are bytes, not text) is written as the code point of its
** value, as Latin-1 would read it. */
void lgp_json_string(lgp_out *o, const char *s, size_t len);
/* A NUL-terminated string, or null when s is NULL. */
void lgp_json_cstr(lgp_out *o, const char *s);

#endif
