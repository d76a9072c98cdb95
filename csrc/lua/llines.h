/*
** llines.h: the binding's Line handles and line methods (llines.c).
*/
#ifndef llines_h
#define llines_h

#include <lua.h>

#define LINE_T "lgprof.Line"

int lcore_profile_lines(lua_State *L);
int lcore_profile_line(lua_State *L);
int lcore_function_lines(lua_State *L);
/* Creates the Line metatable (luaopen_lgprof_core calls it). */
void lcore_lines_open(lua_State *L);

#endif
