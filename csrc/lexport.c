/*
** lexport.c: profile:export(format, file [, options]): the writers of
** export.c (callgrind, JSON, CSV, folded stacks) on a Lua file handle.
** lgprof.report checks the options' types; here unknown options and bad
** values raise, before anything is written.
*/
#include <string.h>

#include "lcore.h"
#include "export.h"

/* profile:export(format, file [, options]) -> true | nil, message
** format: "callgrind", "json", "csv" (options.table "flat" or "arcs"),
** "folded"; options: zeros, creator, max_depth, min_weight. */
int lcore_profile_export(lua_State *L) {
  static const char *const formats[] = {"callgrind", "json", "csv", "folded", NULL};
  static const int codes[] = {LGP_EXPORT_CALLGRIND, LGP_EXPORT_JSON, LGP_EXPORT_CSV_FLAT,
                              LGP_EXPORT_FOLDED};
  static const char *const known[][4] = { /* the options of each format */
    {"zeros", "creator", NULL}, {"zeros", "creator", NULL},
    {"zeros", "creator", "table", NULL}, {"creator", "max_depth", "min_weight", NULL}};
  lprofile *lp = lcore_check_profile(L, 1);
  int which = luaL_checkoption(L, 2, NULL, formats);
  luaL_Stream *f = luaL_checkudata(L, 3, LUA_FILEHANDLE);
  lgp_export_opts eo;
  lgp_out o;
  lgp_err err = {0, ""};
  int rc;
  luaL_argcheck(L, f->closef != NULL, 3, "attempt to use a closed file");
  lgp_export_opts_init(&eo);
  eo.format = codes[which];
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 4) != 0) { /* every option known, before anything is written */
      int i = 0;
      lua_pop(L, 1);
      while (lua_type(L, -1) == LUA_TSTRING && known[which][i] != NULL &&
             strcmp(lua_tostring(L, -1), known[which][i]) != 0)
        i++;
      if (lua_type(L, -1) != LUA_TSTRING || known[which][i] == NULL)
        return luaL_argerror(L, 4, lua_pushfstring(L, "unknown option '%s'",
                                                   luaL_tolstring(L, -1, NULL)));
    }
    eo.zeros = lcore_opt_bool(L, 4, "zeros", 0);
    if (lua_getfield(L, 4, "creator") != LUA_TNIL)
      eo.creator = luaL_checkstring(L, -1); /* anchored by the options table */
    lua_pop(L, 1);
    if (lua_getfield(L, 4, "table") != LUA_TNIL) {
      static const char *const tables[] = {"flat", "arcs", NULL};
      if (luaL_checkoption(L, -1, NULL, tables) == 1)
        eo.format = eo.format == LGP_EXPORT_CSV_FLAT ? LGP_EXPORT_CSV_ARCS : eo.format;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 4, "max_depth") != LUA_TNIL) {
      lua_Integer d = luaL_checkinteger(L, -1);
      luaL_argcheck(L, d >= 1, 4, "max_depth must be at least 1");
      luaL_argcheck(L, d <= 1000000, 4, "max_depth must be at most 1000000");
      eo.max_depth = (int)d;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 4, "min_weight") != LUA_TNIL) {
      lua_Number w = luaL_checknumber(L, -1);
      luaL_argcheck(L, w >= 0 && w <= 1, 4, "min_weight must be between 0 and 1");
      eo.min_weight = (double)w;
    }
    lua_pop(L, 1);
  }
  lgp_out_init(&o, f->f);
  rc = lgp_export(&o, lp->p, &lp->names, &eo, &err);
  lgp_out_free(&o);
  if (rc != 0) {
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  fflush(f->f);
  lua_pushboolean(L, 1);
  return 1;
}
