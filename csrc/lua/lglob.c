/*
** lglob.c: core.glob(pattern): the paths a shell pattern names (POSIX
** glob(3), sorted), for the command's options that take a pattern of files
** quoted past the shell (lgprof --diff 'base/gmon.*').
*/
#include <glob.h>
#include <string.h>

#include "lcore.h"

#define GLOB_T "lgprof.Glob"

typedef struct lglob {
  glob_t g;
  int used; /* glob() was called: globfree() is due */
} lglob;

/* The glob_t lives in a userdata, so that a memory error while the list is
** built (lua_pushstring) still frees it when the userdata is collected. */
static int glob_gc(lua_State *L) {
  lglob *u = luaL_checkudata(L, 1, GLOB_T);
  if (u->used) globfree(&u->g);
  u->used = 0;
  return 0;
}

/* core.glob(pattern) -> list of paths (empty when nothing matches), or
** nil, message when a directory cannot be read. */
int lcore_glob(lua_State *L) {
  const char *pattern = luaL_checkstring(L, 1);
  lglob *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  if (luaL_newmetatable(L, GLOB_T)) {
    lua_pushcfunction(L, glob_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  int rc = glob(pattern, 0, NULL, &u->g);
  u->used = 1;
  if (rc == GLOB_NOSPACE) return luaL_error(L, "not enough memory");
  if (rc != 0 && rc != GLOB_NOMATCH) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: cannot read a directory the pattern names", pattern);
    return 2;
  }
  size_t n = rc == 0 ? u->g.gl_pathc : 0;
  lua_createtable(L, n > 0x7fffffff ? 0 : (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, u->g.gl_pathv[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  globfree(&u->g);
  u->used = 0;
  return 1;
}
