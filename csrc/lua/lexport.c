/*
** lexport.c: profile:export(format, file [, options]): the writers of
** export.c (callgrind, JSON, CSV, folded stacks) on a Lua file handle.
** Options are checked here (lgprof.report passes them on).
*/
#include <string.h>

#include "util/atomicfile.h"
#include "model/stackprofile.h"
#include "write/export.h"
#include "lcore.h"
#include "llines.h"

/* Writes the profile to an open stream. 0, or -1 with a message. */
static int export_to(FILE *f, lprofile *lp, const lgp_export_opts *eo, lgp_err *err) {
  lgp_out o;
  int rc;
  lgp_out_init(&o, f);
  rc = lgp_export(&o, lp->p, &lp->names, eo, err);
  lgp_out_free(&o);
  return rc;
}

/* Writes the profile to a path, replaced in one step (nothing is touched
** if the export fails). 0, or -1 with a message. */
static int export_to_path(lprofile *lp, const char *path, const lgp_export_opts *eo,
                          lgp_err *err) {
  lgp_atomicfile a;
  if (lgp_atomicfile_open(&a, path, err) != 0)
    return -1;
  if (export_to(a.f, lp, eo, err) != 0) {
    lgp_atomicfile_abort(&a);
    return -1;
  }
  return lgp_atomicfile_commit(&a, err);
}

/* profile:export(format, file [, options]) -> true | nil, message
** format: "callgrind", "json", "csv" (options.table "flat" or "arcs"),
** "folded"; file: a file handle (written, flushed, left open) or a path
** (written only once the options are checked, and replaced in one step);
** options: zeros, creator, max_depth, min_weight, granularity ("function"
** or "line": line-level data, built on first use, for callgrind, JSON and
** the flat CSV), sample_times (JSON: each sample's time and stack, per
** thread; a profile of stacks opened with sample_times = true, else an
** error). */

int lcore_profile_export(lua_State *L) {
  static const char *const formats[] = {"callgrind", "json", "csv", "folded", NULL};
  static const int codes[] = {LGP_EXPORT_CALLGRIND, LGP_EXPORT_JSON, LGP_EXPORT_CSV_FLAT,
                              LGP_EXPORT_FOLDED};
  static const char *const known[][6] = { /* the options of each format */
    {"zeros", "creator", "granularity", NULL}, {"zeros", "creator", "granularity", "sample_times", NULL},
    {"zeros", "creator", "table", "granularity", NULL},
    {"creator", "max_depth", "min_weight", NULL}};
  lprofile *lp = lcore_check_profile(L, 1);
  int which = luaL_checkoption(L, 2, NULL, formats);
  const char *path = lua_type(L, 3) == LUA_TSTRING ? lua_tostring(L, 3) : NULL;
  luaL_Stream *f = path != NULL ? NULL : luaL_testudata(L, 3, LUA_FILEHANDLE);
  lgp_export_opts eo;
  lgp_err err = {0, ""};
  int rc;
  luaL_argexpected(L, path != NULL || f != NULL, 3, "file or path");
  luaL_argcheck(L, path != NULL || f->closef != NULL, 3, "attempt to use a closed file");
  lgp_export_opts_init(&eo);
  eo.format = codes[which];
  eo.sources = lp->sources;
  if (!lua_isnoneornil(L, 4)) {
    static const char *const tables[] = {"flat", "arcs", NULL};
    static const char *const grains[] = {"function", "line", NULL};
    lcore_check_fields(L, 4, known[which]);
    eo.zeros = lcore_opt_bool(L, 4, "zeros", 0);
    eo.sample_times = lcore_opt_bool(L, 4, "sample_times", 0);
    eo.creator = lcore_opt_string(L, 4, "creator", NULL);
    if (lcore_opt_enum(L, 4, "table", 0, tables) == 1 && eo.format == LGP_EXPORT_CSV_FLAT)
      eo.format = LGP_EXPORT_CSV_ARCS;
    eo.max_depth = (int)lcore_opt_int(L, 4, "max_depth", eo.max_depth, 1, 1000000);
    eo.min_weight = lcore_opt_share(L, 4, "min_weight", eo.min_weight);
    if (lcore_opt_enum(L, 4, "granularity", 0, grains) == 1) {
      luaL_argcheck(L, eo.format != LGP_EXPORT_CSV_ARCS, 4,
                    "option 'granularity' = \"line\" is for table \"flat\"");
      eo.lines = lcore_get_lines(L, 1);
    }
  }
  if (eo.sample_times && (lgp_stacks_of(lp->p) == NULL || lgp_stacks_of(lp->p)->tab.times == NULL))
    return luaL_error(L, "bad argument #3 to 'export' (option 'sample_times': %s)",
                      lgp_stacks_of(lp->p) == NULL
                        ? "a gmon profile's samples have no times"
                        : "open the profile with the option sample_times = true");
  if (path != NULL) {
    rc = export_to_path(lp, path, &eo, &err);
  } else {
    rc = export_to(f->f, lp, &eo, &err);
    if (rc == 0 && fflush(f->f) != 0)
      rc = lgp_fail(&err, NULL, "write error");
  }
  if (rc != 0) {
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}
