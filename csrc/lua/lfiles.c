/*
** lfiles.c: the Profile's methods that write gprof's reports and files or
** describe the files read: gprof_report, write_gmon (-s), file_info (-i),
** histograms.
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "write/gmonsum.h"
#include "lcore.h"

static const char *const report_fields[] = {
  "traditional", "brief", "zeros", "flat", "graph", "first_output", "width",
  "inline_file_names", "print_path", NULL
};

/* profile:gprof_report(file, options) -> first_output */
int lcore_profile_report(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  luaL_Stream *f = luaL_checkudata(L, 2, LUA_FILEHANDLE);
  lgp_report_opts ro;
  lgp_out o;
  int first = 1;
  luaL_argcheck(L, f->closef != NULL, 2, "attempt to use a closed file");
  lcore_check_fields(L, 3, report_fields);
  memset(&ro, 0, sizeof ro);
  ro.bsd = lcore_opt_bool(L, 3, "traditional", 0);
  ro.brief = lcore_opt_bool(L, 3, "brief", 0);
  ro.ignore_zeros = !lcore_opt_bool(L, 3, "zeros", lp->zeros);
  /* as gprof: by default the parts the data allows; a part asked for
     without its data is refused (gprof would print inf and nan) */
  ro.flat = lcore_opt_bool(L, 3, "flat", lp->p->gmon->have_hist);
  ro.graph = lcore_opt_bool(L, 3, "graph", lp->p->gmon->have_cg);
  first = lcore_opt_bool(L, 3, "first_output", 1);
  ro.width = (int)lcore_opt_int(L, 3, "width", 80, 1, INT_MAX);
  ro.inline_file_names = lcore_opt_bool(L, 3, "inline_file_names", 0);
  ro.print_path = lcore_opt_bool(L, 3, "print_path", 0);
  if ((ro.flat && !lp->p->gmon->have_hist) || (ro.graph && !lp->p->gmon->have_cg)) {
    luaL_pushfail(L);
    lua_pushstring(L, ro.flat && !lp->p->gmon->have_hist ? "gmon.out file is missing histogram"
                                                          : "gmon.out file is missing call-graph data");
    return 2;
  }
  /* the flat profile alone needs no call-graph order (but -T's names
     carry index numbers) */
  lcore_analyse(L, lp, (ro.flat ? LGP_GRAPH_TIME | LGP_GRAPH_FLAT : 0) |
                 (ro.graph || ro.bsd ? LGP_GRAPH_INDEX : 0));
  ro.first_output = &first;
  ro.sources = lp->sources;
  lgp_out_init(&o, f->f);
  if (lgp_report_gprof(&o, lp->p, &lp->names, &ro) != 0) {
    lgp_out_free(&o);
    luaL_pushfail(L);
    lua_pushliteral(L, "write error");
    return 2;
  }
  lgp_out_free(&o);
  fflush(f->f);
  lua_pushboolean(L, first);
  return 1;
}

static const char *const write_gmon_fields[] = {"canonical", NULL};

/* profile:write_gmon(path [, {canonical =}]) -> true | nil, message
** (gprof -s; the file is replaced atomically) */
int lcore_profile_write_gmon(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  const char *path = luaL_checkstring(L, 2);
  int canonical = 0;
  lgp_err err;
  if (!lua_isnoneornil(L, 3)) {
    lcore_check_fields(L, 3, write_gmon_fields);
    canonical = lcore_opt_bool(L, 3, "canonical", 0);
  }
  if (lgp_is_view(lp->p))
    return luaL_error(L, "write_gmon: a view has no profile file of its own; write its base");
  lcore_analyse(L, lp, LGP_GRAPH_TIME); /* the arcs in gprof's list order */
  memset(&err, 0, sizeof err);
  if (lgp_gmonsum_write(lp->p, path, canonical, &err) != 0) {
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* profile:file_info() -> { {path=, version=, histograms=, arcs=, bb=}, ... } */
int lcore_profile_file_info(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  size_t i;
  lua_createtable(L, (int)lp->p->gmon->nfiles, 0);
  for (i = 0; i < lp->p->gmon->nfiles; i++) {
    const lgp_gmon_file *f = &lp->p->gmon->files[i];
    lua_createtable(L, 0, 5);
    lua_pushstring(L, f->path);
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, f->version);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, (lua_Integer)f->nhist);
    lua_setfield(L, -2, "histograms");
    lua_pushinteger(L, (lua_Integer)f->narcs);
    lua_setfield(L, -2, "arcs");
    lua_pushinteger(L, (lua_Integer)f->nbb);
    lua_setfield(L, -2, "bb");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* profile:histograms() -> list of {low, high, nbins, rate, samples = {...}} */
int lcore_profile_histograms(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  const lgp_gmon *g = lp->p->gmon;
  size_t i;
  uint32_t k;
  lua_createtable(L, (int)g->nhist, 0);
  for (i = 0; i < g->nhist; i++) {
    const lgp_hist *h = &g->hist[i];
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, (lua_Integer)h->low);
    lua_setfield(L, -2, "low");
    lua_pushinteger(L, (lua_Integer)h->high);
    lua_setfield(L, -2, "high");
    lua_pushinteger(L, (lua_Integer)h->nbins);
    lua_setfield(L, -2, "nbins");
    lua_pushinteger(L, (lua_Integer)g->hz);
    lua_setfield(L, -2, "rate");
    lua_newtable(L); /* sparse: bin index (1-based) -> count */
    for (k = 0; k < h->nnz; k++) {
      lua_pushinteger(L, (lua_Integer)h->cnt[k]);
      lua_rawseti(L, -2, (lua_Integer)h->idx[k] + 1);
    }
    lua_setfield(L, -2, "samples");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

