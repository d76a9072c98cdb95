/*
** lordering.c: profile:function_ordering() and profile:file_ordering(),
** gprof's -r and -R as lists of names.
*/
#include <limits.h>

#include "lcore.h"
#include "analyse/ordering.h"

/* The names, or nil and the message (a spec the orders cannot follow; out
** of memory). */
static int push_names(lua_State *L, int rc, lgp_namelist *l, const lgp_err *err) {
  size_t i;
  if (rc != 0) {
    luaL_pushfail(L);
    lua_pushstring(L, err->msg);
    return 2;
  }
  lua_createtable(L, l->n < INT_MAX ? (int)l->n : 0, 0);
  for (i = 0; i < l->n; i++) {
    lua_pushstring(L, l->v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lgp_ordering_namelist_free(l);
  return 1;
}

static const lgp_profile *base_profile(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  if (lgp_is_view(lp->p))
    luaL_argerror(L, 1, "a view has no link order (call it on the opened profile)");
  return lp->p;
}

static const char *const order_fields[] = {"after_graph", "zeros", NULL};

/* profile:function_ordering([{after_graph =, zeros =}]) -> { name... } | nil,
** message (gprof -r; after_graph: as gprof prints it after its call graph,
** which was printed with zeros) */
int lcore_profile_function_ordering(lua_State *L) {
  const lgp_profile *p = base_profile(L);
  lprofile *lp = lcore_check_profile(L, 1);
  lgp_namelist l = {NULL, 0, 0};
  lgp_err err = {0, ""};
  lgp_ordering_opts oo;
  int rc;
  if (!lua_isnoneornil(L, 2))
    lcore_check_fields(L, 2, order_fields);
  oo.after_graph = lcore_opt_bool(L, 2, "after_graph", 0);
  oo.ignore_zeros = !lcore_opt_bool(L, 2, "zeros", lp->zeros);
  rc = lgp_ordering_functions(p, &oo, &l, &err);
  return push_names(L, rc, &l, &err);
}

/* profile:file_ordering() -> { file... } (gprof -R; the profile opened
** with map_file) */
int lcore_profile_file_ordering(lua_State *L) {
  const lgp_profile *p = base_profile(L);
  lgp_namelist l = {NULL, 0, 0};
  lgp_err err = {0, ""};
  int rc;
  if (!p->own->have_map)
    return luaL_error(L, "file_ordering: the profile was opened without a map_file");
  rc = lgp_ordering_files(p, &p->own->map, &l, &err);
  return push_names(L, rc, &l, &err);
}
