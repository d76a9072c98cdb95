/*
** llines.h: the binding's Line handles and line methods (llines.c).
*/
#ifndef llines_h
#define llines_h

#include <lua.h>

#include "model/lines.h"

#define LINE_T "lgprof.Line"

int lcore_profile_lines(lua_State *L);
int lcore_profile_line(lua_State *L);
int lcore_function_lines(lua_State *L);
/* The line data of the open Profile (or view) at pidx, built on first use
** and kept while the profile lives (raises on a closed one). */
lgp_lines *lcore_get_lines(lua_State *L, int pidx);
/* Frees the line data of the base Profile at pidx, being closed with no
** view left (its Lines can no longer be read). */
void lcore_lines_release(lua_State *L, int pidx);
/* Creates the Line metatable (luaopen_lgprof_core calls it). */
void lcore_lines_open(lua_State *L);

#endif
