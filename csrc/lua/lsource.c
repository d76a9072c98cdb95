/*
** lsource.c: the binding of gprof's source-level reports: profile:exec_counts
** (-C) and profile:annotate (-A).
*/
#include <limits.h>
#include <string.h>

#include "write/annotate.h"
#include "write/execcount.h"
#include "lcore.h"

/* The stream at idx, checked to be an open Lua file. */
static FILE *check_file(lua_State *L, int idx) {
  luaL_Stream *f = luaL_checkudata(L, idx, LUA_FILEHANDLE);
  luaL_argcheck(L, f->closef != NULL, idx, "attempt to use a closed file");
  return f->f;
}

/* Both reports need every symbol's source file and line. */
static void need_srcinfo(lprofile *lp) {
  lgp_err err = {0, ""};
  lgp_sources_load_srcinfo(lp->sources, &err); /* none: "<unknown>" rows, no files */
}

/* Flushes o into its stream; pushes first_output, or fail and a message. */
static int finish(lua_State *L, lgp_out *o, int rc, int first) {
  int werr = lgp_out_flush(o) != 0;
  lgp_out_free(o);
  if (rc != 0)
    return luaL_error(L, "out of memory");
  if (werr) {
    luaL_pushfail(L);
    lua_pushliteral(L, "write error");
    return 2;
  }
  lua_pushboolean(L, first);
  return 1;
}

static const char *const exec_fields[] = {"zeros", "first_output", NULL};

/* profile:exec_counts(file [, {zeros =, first_output =}]) -> first_output */
int lcore_profile_exec_counts(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  FILE *f = check_file(L, 2);
  int zeros, first, rc;
  lgp_out o;
  lcore_check_fields(L, 3, exec_fields);
  zeros = lcore_opt_bool(L, 3, "zeros", lp->zeros);
  first = lcore_opt_bool(L, 3, "first_output", 1);
  need_srcinfo(lp);
  lgp_out_init(&o, f);
  rc = lgp_report_exec_counts(&o, lp->p, lp->p->bbcounts, zeros, &first);
  return finish(L, &o, rc, first);
}

static const char *const anno_fields[] = {
  "dirs", "all_lines", "separate", "zeros", "table_length", "min_count", "first_output", NULL
};

/* profile:annotate(file, errfile [, {dirs =, all_lines =, separate =, zeros =,
** table_length =, min_count =, first_output =}]) -> first_output. min_count
** is read as an unsigned 64-bit number (-1: the largest). */
int lcore_profile_annotate(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  FILE *f = check_file(L, 2), *ef = check_file(L, 3);
  lgp_anno_opts ao;
  const char **dirs = NULL;
  lgp_out o, e;
  int first, rc;
  lua_Integer k, n = 0;
  lcore_check_fields(L, 4, anno_fields);
  memset(&ao, 0, sizeof ao);
  ao.all_lines = lcore_opt_bool(L, 4, "all_lines", 0);
  ao.separate = lcore_opt_bool(L, 4, "separate", 0);
  ao.zeros = lcore_opt_bool(L, 4, "zeros", lp->zeros);
  ao.table_length = (int)lcore_opt_int(L, 4, "table_length", 10, INT_MIN, INT_MAX);
  ao.min_count = (uint64_t)lcore_opt_int(L, 4, "min_count", 1, LUA_MININTEGER, LUA_MAXINTEGER);
  first = lcore_opt_bool(L, 4, "first_output", 1);
  if (!lua_isnoneornil(L, 4)) {
    int t = lua_getfield(L, 4, "dirs");
    if (t != LUA_TNIL && t != LUA_TTABLE)
      luaL_argerror(L, 4, "option 'dirs' must be a list of directories");
    n = t == LUA_TTABLE ? luaL_len(L, -1) : 0;
    if (n > 0) {
      dirs = lua_newuserdatauv(L, (size_t)n * sizeof *dirs, 0); /* freed by the GC */
      for (k = 1; k <= n; k++) {
        if (lua_geti(L, -2, k) != LUA_TSTRING)
          luaL_argerror(L, 4, "option 'dirs' must be a list of strings");
        dirs[k - 1] = lua_tostring(L, -1);
        lua_pop(L, 1); /* still referenced by the table */
      }
    }
  }
  ao.dirs = dirs;
  ao.ndirs = (size_t)n;
  ao.first_output = &first;
  ao.err = &e;
  need_srcinfo(lp);
  lgp_out_init(&o, f);
  lgp_out_init(&e, ef);
  rc = lgp_report_annotate(&o, lp->p, lp->p->bbcounts, &ao);
  (void)lgp_out_flush(&e); /* messages are best effort, as gprof's */
  lgp_out_free(&e);
  return finish(L, &o, rc, first);
}
