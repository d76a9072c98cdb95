/*
** lstacks.c: the profile's stacks (analyse/stacks.h) for lgprof.stacks, as
** data: profile:_stacks([options]) iterates over them lazily, one stack a
** call, its frames as Function and Cycle handles; profile:_shared_names()
** says which functions the other formats label with their address.
*/
#include "analyse/stacks.h"
#include "write/export.h"
#include "lcore.h"

#define STACKS_T "lgprof.StackIterator"

typedef struct lstacks {
  lgp_stacks *it;          /* NULL once freed */
  const lgp_profile *p;    /* what it walks */
  const lgp_node *nodes;   /* p's nodes and their count then: a profile */
  size_t nnodes;           /* changed since (arcs excluded) is not read */
} lstacks;

static int stacks_gc(lua_State *L) {
  lstacks *s = luaL_checkudata(L, 1, STACKS_T);
  lgp_stacks_free(s->it);
  s->it = NULL;
  return 0;
}

/* The iterator: upvalues the profile and the lstacks. Returns the frames
** (a list of handles, root first), the microseconds and the seconds of the
** next stack whose microseconds are not 0, or nothing at the end. */
static int stacks_next(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  lstacks *s = lua_touserdata(L, lua_upvalueindex(2));
  lgp_stack st;
  size_t k;
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  if (s->it == NULL)
    return 0; /* done, or closed by a for loop's end */
  if (lp->p != s->p || lp->p->graph.nodes != s->nodes ||
      lp->p->graph.nsyms + lp->p->graph.ncycles != s->nnodes)
    return luaL_error(L, "the profile changed while its stacks were read");
  do {
    if (!lgp_stacks_next(s->it, &st)) {
      lgp_stacks_free(s->it);
      s->it = NULL;
      return 0;
    }
  } while (st.us == 0); /* rounds to nothing, as the folded writer leaves it out */
  lua_createtable(L, st.depth < INT32_MAX ? (int)st.depth : INT32_MAX, 0);
  for (k = 0; k < st.depth; k++) {
    lcore_push_node(L, lua_upvalueindex(1), lp->p, st.frames[k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_pushinteger(L, (lua_Integer)st.us);
  lua_pushnumber(L, lgp_seconds(lp->p, st.ticks));
  return 3;
}

/* profile:_stacks([options]) -> iterator, nil, nil, closing value.
** options: max_depth, min_weight (the folded stacks'). */
int lcore_profile_stacks(lua_State *L) {
  static const char *const known[] = {"max_depth", "min_weight", NULL};
  lprofile *lp = lcore_check_profile(L, 1);
  int max_depth = 64;
  double min_weight = 1e-4;
  lstacks *s;
  if (!lua_isnoneornil(L, 2)) {
    lcore_check_fields(L, 2, known);
    max_depth = (int)lcore_opt_int(L, 2, "max_depth", max_depth, 1, 1000000);
    min_weight = lcore_opt_share(L, 2, "min_weight", min_weight);
  }
  s = lua_newuserdatauv(L, sizeof *s, 0);
  s->it = NULL;
  luaL_setmetatable(L, STACKS_T); /* from here on, its __gc frees it */
  s->p = lp->p;
  s->nodes = lp->p->graph.nodes;
  s->nnodes = lp->p->graph.nsyms + lp->p->graph.ncycles;
  s->it = lgp_stacks_new(lp->p, max_depth, min_weight);
  if (s->it == NULL)
    return luaL_error(L, "out of memory");
  lua_pushvalue(L, 1);
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, stacks_next, 2);
  lua_pushnil(L);
  lua_pushnil(L);
  lua_pushvalue(L, -4); /* the closing value: a loop left early frees the walk */
  return 4;
}

/* profile:_shared_names() -> { [Function] = true, ... }: the functions
** whose printed name another listed function prints too (callgrind and
** folded stacks append their address to it). */
int lcore_profile_shared_names(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  size_t n = lp->p->graph.nsyms, k;
  uint8_t *shared = lua_newuserdatauv(L, n ? n : 1, 0); /* Lua's: freed on an error too */
  if (lgp_export_shared_names(lp->p, &lp->names, shared) != 0)
    return luaL_error(L, "out of memory");
  lua_newtable(L);
  for (k = 0; k < n; k++) {
    if (!shared[k])
      continue;
    lcore_push_node(L, 1, lp->p, (uint32_t)k);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
  }
  return 1;
}

void lcore_stacks_open(lua_State *L) {
  luaL_newmetatable(L, STACKS_T);
  lua_pushcfunction(L, stacks_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, stacks_gc);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}
