/*
** lbounds.c: attribution bounds in the binding: a Profile's bounds are
** built on first use (fn.total_min, fn.total_max, fn.is_spontaneous,
** arc.is_estimated, profile:ambiguous()) and freed with the profile.
*/
#include <stdlib.h>

#include "analyse/bounds.h"
#include "lcore.h"

lgp_bounds *lcore_bounds(lua_State *L, lprofile *lp) {
  if (lp->bounds == NULL) {
    lgp_bounds *b = malloc(sizeof *b);
    if (b == NULL || lgp_bounds_build(b, lp->p) != 0) {
      free(b);
      luaL_error(L, "out of memory");
    }
    lp->bounds = b;
  }
  return lp->bounds;
}

void lcore_bounds_release(lprofile *lp) {
  if (lp->bounds != NULL) {
    lgp_bounds_free(lp->bounds);
    free(lp->bounds);
    lp->bounds = NULL;
  }
}

/* profile:ambiguous() -> { {func =, callers =, calls =, time =}, ... }:
** the callees (functions or cycles) whose time gprof splits between
** several callers by its equal-cost assumption, heaviest first */
int lcore_profile_ambiguous(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  lgp_bounds *b;
  uint32_t *ids;
  size_t n, i;
  if (lp->p->stacks != NULL) { /* measured stacks: every share is known */
    lua_newtable(L);
    return 1;
  }
  b = lcore_bounds(L, lp);
  if (lgp_bounds_ambiguous(b, &ids, &n) != 0)
    return luaL_error(L, "out of memory");
  lua_createtable(L, n < INT32_MAX ? (int)n : INT32_MAX, 0);
  for (i = 0; i < n; i++) {
    const lgp_node *nd = &lp->p->graph.nodes[ids[i]];
    lua_createtable(L, 0, 4);
    lcore_push_node(L, 1, lp->p, ids[i]);
    lua_setfield(L, -2, "func");
    lua_pushinteger(L, (lua_Integer)b->ncallers[ids[i]]);
    lua_setfield(L, -2, "callers");
    lua_pushinteger(L, (lua_Integer)nd->ncalls);
    lua_setfield(L, -2, "calls");
    lua_pushnumber(L, lgp_seconds(lp->p, nd->prop_self + nd->prop_child));
    lua_setfield(L, -2, "time");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  free(ids);
  return 1;
}
