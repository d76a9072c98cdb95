/*
** lexport.c: profile:export(format, file [, options]): the writers of
** export.c (callgrind, JSON, CSV, folded stacks) on a Lua file handle.
** Options are checked here (lgprof.report passes them on).
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
  eo.srcinfo = lp->srcinfo;
  if (!lua_isnoneornil(L, 4)) {
    static const char *const tables[] = {"flat", "arcs", NULL};
    lcore_check_fields(L, 4, known[which]);
    eo.zeros = lcore_opt_bool(L, 4, "zeros", 0);
    eo.creator = lcore_opt_string(L, 4, "creator", NULL);
    if (lcore_opt_enum(L, 4, "table", 0, tables) == 1 && eo.format == LGP_EXPORT_CSV_FLAT)
      eo.format = LGP_EXPORT_CSV_ARCS;
    eo.max_depth = (int)lcore_opt_int(L, 4, "max_depth", eo.max_depth, 1, 1000000);
    eo.min_weight = lcore_opt_number(L, 4, "min_weight", eo.min_weight, 0.0, 1.0);
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
