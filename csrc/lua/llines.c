/*
** llines.c: Line handles and the line methods (profile:lines(), fn:lines(),
** profile:line()). A profile's line data (lines.c) is built on first use and
** kept, per profile and its views, in a registry table weak on the profile.
*/
#include <stdlib.h>
#include <string.h>

#include "lcore.h"
#include "model/lines.h"
#include "llines.h"

#define LINEDATA_T "lgprof.LineData"
#define LINEDATA_KEY "lgprof.LineDataCache" /* registry: base Profile -> LineData */

static const char *const line_fields[] = {
  "kind", "file", "path", "line", "address", "end_address", "func", "function", "self", "samples",
  "self_error", "percent", "calls", "is_inlined", "inlined_from", NULL
};
static const luaL_Reg no_methods[] = {{NULL, NULL}};

static int linedata_gc(lua_State *L) {
  lgp_lines_free(luaL_checkudata(L, 1, LINEDATA_T));
  return 0;
}

/* The line data of the open Profile at pidx, built on first use; a view
** shares its base's (the symbols, histogram and counts are the same). */
lgp_lines *lcore_get_lines(lua_State *L, int pidx) {
  lprofile *lp = lcore_check_profile(L, pidx);
  lgp_lines *ls;
  lgp_err err = {0, ""};
  pidx = lua_absindex(L, pidx);
  if (lp->p->stacks != NULL) /* lines credit gmon's histogram by address: a perf.data has none */
    luaL_error(L, "lines are not available for a profile of sampled stacks (perf.data): "
               "they are gmon.out's histogram by line");
  if (lua_getfield(L, LUA_REGISTRYINDEX, LINEDATA_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, LINEDATA_KEY);
  }
  if (lgp_is_view(lp->p))
    lua_getiuservalue(L, pidx, 1); /* the base */
  else
    lua_pushvalue(L, pidx);
  if (lua_rawget(L, -2) == LUA_TUSERDATA) {
    ls = lua_touserdata(L, -1);
    lua_pop(L, 2);
    return ls;
  }
  lua_pop(L, 1);
  ls = lua_newuserdatauv(L, sizeof *ls, 0);
  memset(ls, 0, sizeof *ls);
  luaL_setmetatable(L, LINEDATA_T);
  if (lgp_lines_build(ls, lp->p, lp->sources, &err) != 0)
    luaL_error(L, "%s", err.msg);
  if (lgp_is_view(lp->p))
    lua_getiuservalue(L, pidx, 1);
  else
    lua_pushvalue(L, pidx);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4);
  lua_pop(L, 2);
  return ls;
}

/* Is line j of a view's function left out? */
static int line_removed(const lgp_profile *p, const lgp_lines *ls, size_t j) {
  return ls->v[j].func != LGP_NONE && lgp_removed(p, ls->v[j].func);
}

static int line_index(lua_State *L) {
  lhandle *h = luaL_checkudata(L, 1, LINE_T);
  const char *k = luaL_checkstring(L, 2);
  lprofile *lp = lcore_handle_profile(L, 1);
  const lgp_profile *p = lp->p;
  const lgp_lines *ls;
  const lgp_line *l;
  lua_getiuservalue(L, 1, 1);
  ls = lcore_get_lines(L, -1);
  l = &ls->v[h->id];
  if (strcmp(k, "kind") == 0)
    lua_pushliteral(L, "line");
  else if (strcmp(k, "path") == 0) {
    /* the file joined to its compilation directory, where to read it */
    int32_t f = lgp_line_file_index(p, l);
    if (f < 0 || (size_t)f >= p->image->nfiles)
      lua_pushnil(L);
    else if (p->image->file_paths != NULL && p->image->file_paths[f] != NULL)
      lua_pushstring(L, p->image->file_paths[f]);
    else
      lua_pushstring(L, p->image->files[f]);
  } else if (strcmp(k, "file") == 0 || strcmp(k, "line") == 0) {
    lcore_push_file_or_line(L, k, lgp_line_file(p, l), lgp_line_number(p, l));
  } else if (strcmp(k, "address") == 0)
    lua_pushinteger(L, (lua_Integer)l->addr);
  else if (strcmp(k, "end_address") == 0) {
    /* up to the next line; the last runs to its function's end */
    if ((size_t)h->id + 1 < ls->n)
      lua_pushinteger(L, (lua_Integer)ls->v[h->id + 1].addr - 1);
    else if (l->func != LGP_NONE)
      lua_pushinteger(L, (lua_Integer)p->graph.nodes[l->func].end_addr);
    else
      lua_pushnil(L);
  } else if (strcmp(k, "func") == 0 || strcmp(k, "function") == 0) {
    if (l->func != LGP_NONE)
      lcore_push_node(L, -1, p, l->func);
    else
      lua_pushnil(L);
  } else if (strcmp(k, "self") == 0)
    lua_pushnumber(L, lgp_seconds(p, l->ticks));
  else if (strcmp(k, "samples") == 0)
    lua_pushnumber(L, l->ticks);
  else if (strcmp(k, "self_error") == 0)
    lua_pushnumber(L, lgp_sampling_error(p, l->ticks));
  else if (strcmp(k, "percent") == 0)
    lua_pushnumber(L, p->graph.total_time > 0 ? 100 * l->ticks / p->graph.total_time : 0.0);
  else if (strcmp(k, "calls") == 0) {
    int64_t c = lgp_line_count(p, l);
    if (c >= 0)
      lua_pushinteger(L, (lua_Integer)c);
    else
      lua_pushnil(L);
  } else if (strcmp(k, "is_inlined") == 0)
    lua_pushboolean(L, lgp_line_inlined(p, l) != NULL);
  else if (strcmp(k, "inlined_from") == 0) {
    const char *name = lgp_line_inlined(p, l);
    char *d = name != NULL && lp->names.enabled ? lgp_names_demangle(name, lp->names.options) : NULL;
    if (name != NULL)
      lua_pushstring(L, d != NULL ? d : name);
    else
      lua_pushnil(L);
    free(d);
  } else
    return lcore_no_field(L, "Line", k, line_fields, no_methods);
  return 1;
}

static int line_tostring(lua_State *L) {
  lhandle *h = luaL_checkudata(L, 1, LINE_T);
  lprofile *lp;
  const lgp_lines *ls;
  const lgp_line *l;
  const char *file;
  lua_getiuservalue(L, 1, 1);
  lp = lua_touserdata(L, -1);
  if (lp == NULL || lp->p == NULL) {
    lua_pushliteral(L, "lgprof.Line (closed profile)");
    return 1;
  }
  ls = lcore_get_lines(L, -1);
  l = &ls->v[h->id];
  file = lgp_line_file(lp->p, l);
  if (file != NULL && strrchr(file, '/') != NULL)
    file = strrchr(file, '/') + 1;
  lua_pushfstring(L, "lgprof.Line (%s:%d @ %p in %s)", file != NULL ? file : "??",
                  lgp_line_number(lp->p, l), (void *)(uintptr_t)l->addr,
                  l->func != LGP_NONE ? lgp_names_display(&lp->names, lp->p->graph.nodes, l->func)
                                      : "??");
  return 1;
}

/* Iterator: upvalues the profile, the position, the end (exclusive) and
** the function the lines must belong to (LGP_NONE: any). */
static int iter_lines(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
  lua_Integer end = lua_tointeger(L, lua_upvalueindex(3));
  uint32_t func = (uint32_t)lua_tointeger(L, lua_upvalueindex(4));
  const lgp_lines *ls;
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  ls = lcore_get_lines(L, lua_upvalueindex(1));
  if ((size_t)end > ls->n)
    end = (lua_Integer)ls->n;
  while (pos < end && func == LGP_NONE && line_removed(lp->p, ls, (size_t)pos))
    pos++;
  if (pos >= end || (func != LGP_NONE && ls->v[pos].func != func))
    return 0;
  lua_pushinteger(L, pos + 1);
  lua_replace(L, lua_upvalueindex(2));
  lcore_push_handle(L, lua_upvalueindex(1), LINE_T, (uint32_t)pos);
  return 1;
}

static void push_line_iter(lua_State *L, int pidx, lua_Integer from, lua_Integer end,
                           uint32_t func) {
  lua_pushvalue(L, pidx);
  lua_pushinteger(L, from);
  lua_pushinteger(L, end);
  lua_pushinteger(L, func);
  lua_pushcclosure(L, iter_lines, 4);
}

/* profile:lines(): every Line, in address order */
int lcore_profile_lines(lua_State *L) {
  const lgp_lines *ls = lcore_get_lines(L, 1);
  push_line_iter(L, 1, 0, (lua_Integer)ls->n, LGP_NONE);
  return 1;
}

/* fn:lines(): the function's Lines, in address order */
int lcore_function_lines(lua_State *L) {
  lhandle *h = luaL_checkudata(L, 1, FUNCTION_T);
  const lgp_lines *ls;
  lcore_handle_profile(L, 1);
  lua_getiuservalue(L, 1, 1);
  ls = lcore_get_lines(L, -1);
  if (ls->first[h->id] == LGP_NONE)
    push_line_iter(L, -1, 0, 0, h->id);
  else
    push_line_iter(L, -1, ls->first[h->id], (lua_Integer)ls->n, h->id);
  return 1;
}

/* profile:line(file, n) -> the list of Lines of source line n of the file
** (a path, or its last components), in address order | nil, message */
int lcore_profile_line(lua_State *L) {
  lgp_lines *ls = lcore_get_lines(L, 1);
  lprofile *lp = lcore_check_profile(L, 1);
  const char *want = luaL_checkstring(L, 2);
  lua_Integer n = luaL_checkinteger(L, 3);
  size_t lo = 0, hi = ls->n;
  lua_Integer count = 0;
  luaL_argcheck(L, want[0] != '\0', 2, "empty file name");
  if (lgp_lines_index(ls, lp->p) != 0)
    return luaL_error(L, "out of memory");
  while (lo < hi) { /* the first line numbered n or more (unknown last) */
    size_t mid = lo + (hi - lo) / 2;
    int m = lgp_line_number(lp->p, &ls->v[ls->by_line[mid]]);
    if (m != 0 && m < n)
      lo = mid + 1;
    else
      hi = mid;
  }
  lua_newtable(L);
  for (; lo < ls->n && lgp_line_number(lp->p, &ls->v[ls->by_line[lo]]) == n && n > 0; lo++) {
    uint32_t j = ls->by_line[lo];
    const char *file = lgp_line_file(lp->p, &ls->v[j]);
    if (file == NULL || !lgp_lines_path_matches(file, want) || line_removed(lp->p, ls, j))
      continue;
    lcore_push_handle(L, 1, LINE_T, j);
    lua_rawseti(L, -2, ++count);
  }
  if (count == 0) {
    luaL_pushfail(L);
    lua_pushfstring(L, "no code for %s:%I", want, n);
    return 2;
  }
  return 1;
}

void lcore_lines_release(lua_State *L, int pidx) {
  pidx = lua_absindex(L, pidx);
  if (lua_getfield(L, LUA_REGISTRYINDEX, LINEDATA_KEY) == LUA_TTABLE) {
    lua_pushvalue(L, pidx);
    if (lua_rawget(L, -2) == LUA_TUSERDATA)
      lgp_lines_free(lua_touserdata(L, -1));
    lua_pop(L, 1);
    lua_pushvalue(L, pidx);
    lua_pushnil(L);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
}

void lcore_lines_open(lua_State *L) {
  lcore_new_type(L, LINE_T, NULL, line_index, NULL, line_tostring);
  luaL_newmetatable(L, LINEDATA_T);
  lua_pushcfunction(L, linedata_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
}
