/*
** lobjects.c: Function, Arc and Cycle handles: an index and a user value
** holding the Profile. Fields are computed on access, in O(1).
*/
#include <string.h>

#include "analyse/bounds.h"
#include "lcore.h"
#include "model/stackprofile.h"
#include "llines.h"
#include "lsampled.h"

/* The documented fields of each handle: reading any other raises an error
** that names them (a misspelt field must not read as nil). */
static const char *const function_fields[] = {
  "kind", "name", "symbol", "address", "end_address", "size", "file", "line", "is_static",
  "is_function", "index", "self", "children", "total", "percent", "profile_percent",
  "flat_self", "flat_percent", "calls", "self_calls", "member_calls", "cycle", "printed",
  "in_flat", "in_graph", "propagated_fraction", "samples", "self_error", "total_min",
  "total_max", "total_max_exact", "is_spontaneous", "dso", "is_inline", "is_anonymous", NULL
};
static const char *const cycle_fields[] = {
  "kind", "name", "number", "index", "self", "children", "total", "percent",
  "profile_percent", "flat_self", "flat_percent", "calls", "internal_calls", "printed",
  "in_graph", "propagated_fraction", "samples", "self_error", "total_min", "total_max",
  "total_max_exact", "is_spontaneous", NULL
};
static const char *const arc_fields[] = {
  "kind", "caller", "callee", "count", "self", "children", "is_recursive", "in_cycle",
  "is_static", "is_tail", "is_estimated", NULL
};
static const luaL_Reg no_methods[] = {{NULL, NULL}};

int lcore_no_field(lua_State *L, const char *type, const char *k, const char *const fields[],
                   const luaL_Reg methods[]) {
  luaL_Buffer b;
  size_t i;
  luaL_buffinit(L, &b);
  luaL_where(L, 1); /* the line that read the field */
  luaL_addvalue(&b);
  lua_pushfstring(L, "%s has no field '%s' (fields: ", type, k);
  luaL_addvalue(&b);
  for (i = 0; fields[i] != NULL; i++) {
    if (i > 0)
      luaL_addstring(&b, ", ");
    luaL_addstring(&b, fields[i]);
  }
  for (i = 0; methods[i].name != NULL; i++) {
    luaL_addstring(&b, i == 0 ? "; methods: " : ", ");
    luaL_addstring(&b, methods[i].name);
  }
  luaL_addchar(&b, ')');
  luaL_pushresult(&b);
  return lua_error(L);
}


static int node_field(lua_State *L, lprofile *lp, uint32_t id, const char *k) {
  const lgp_profile *p = lp->p;
  const lgp_node *n = &p->graph.nodes[id];
  double print_time = p->graph.print_time > 0 ? p->graph.print_time : 1.0;
  if (p->stacks != NULL && lcore_stack_node_field(L, p, id, k) > 0)
    return 1;
  if (strcmp(k, "kind") == 0) {
    lua_pushstring(L, n->is_cycle ? "cycle" : "function");
  } else if (strcmp(k, "name") == 0) {
    if (n->is_cycle)
      lua_pushfstring(L, "<cycle %d>", (int)n->cyc_num);
    else
      lua_pushstring(L, lgp_names_display(&lp->names, p->graph.nodes, id));
  } else if (strcmp(k, "symbol") == 0 && !n->is_cycle)
    lua_pushstring(L, n->name);
  else if (strcmp(k, "address") == 0 && !n->is_cycle)
    lua_pushinteger(L, (lua_Integer)n->addr);
  else if (strcmp(k, "end_address") == 0 && !n->is_cycle)
    lua_pushinteger(L, (lua_Integer)n->end_addr);
  else if (strcmp(k, "size") == 0 && !n->is_cycle)
    lua_pushinteger(L, n->end_addr >= n->addr ? (lua_Integer)(n->end_addr - n->addr + 1) : 0);
  else if ((strcmp(k, "file") == 0 || strcmp(k, "line") == 0) && !n->is_cycle) {
    /* DWARF is read on first use; unreadable means unknown (nil) */
    lgp_err err = {0, ""};
    lgp_sources_load_srcinfo(lp->sources, &err);
    lcore_push_file_or_line(L, k, lgp_node_file(p, id), lgp_node_line(p, id));
  } else if (strcmp(k, "is_static") == 0 && !n->is_cycle)
    lua_pushboolean(L, n->is_static);
  else if (strcmp(k, "is_function") == 0 && !n->is_cycle)
    lua_pushboolean(L, n->is_func);
  else if (strcmp(k, "index") == 0)
    lua_pushinteger(L, n->index);
  else if (strcmp(k, "number") == 0 && n->is_cycle)
    lua_pushinteger(L, n->cyc_num);
  else if (strcmp(k, "self") == 0)
    lua_pushnumber(L, lgp_seconds(p, n->prop_self));
  else if (strcmp(k, "children") == 0)
    lua_pushnumber(L, lgp_seconds(p, n->prop_child));
  else if (strcmp(k, "total") == 0)
    lua_pushnumber(L, lgp_seconds(p, n->prop_self + n->prop_child));
  else if (strcmp(k, "percent") == 0)
    lua_pushnumber(L, 100 * (n->prop_self + n->prop_child) / print_time);
  else if (strcmp(k, "profile_percent") == 0) /* of the unfiltered profile */
    lua_pushnumber(L, p->base_print_time > 0
                      ? 100 * (n->prop_self + n->prop_child) / p->base_print_time : 0.0);
  else if (strcmp(k, "flat_self") == 0)
    lua_pushnumber(L, lgp_seconds(p, n->hist_time));
  else if (strcmp(k, "samples") == 0) /* the flat profile's self time, in samples */
    lua_pushnumber(L, n->hist_time);
  else if (strcmp(k, "self_error") == 0)
    lua_pushnumber(L, lgp_sampling_error(p, n->hist_time));
  else if (strcmp(k, "total_min") == 0) /* attribution bounds (bounds.h) */
    lua_pushnumber(L, lgp_seconds(p, lgp_bounds_min(lcore_bounds(L, lp), id)));
  else if (strcmp(k, "total_max") == 0 || strcmp(k, "total_max_exact") == 0) {
    double max;
    int exact;
    if (lgp_bounds_max(lcore_bounds(L, lp), id, &max, &exact) != 0)
      return luaL_error(L, "out of memory");
    if (k[9] == '\0')
      lua_pushnumber(L, lgp_seconds(p, max));
    else
      lua_pushboolean(L, exact);
  }
  else if (strcmp(k, "is_spontaneous") == 0)
    lua_pushboolean(L, lgp_bounds_spontaneous(lcore_bounds(L, lp), id));
  else if (strcmp(k, "flat_percent") == 0)
    lua_pushnumber(L, p->graph.total_time > 0 ? 100 * n->hist_time / p->graph.total_time : 0.0);
  else if (strcmp(k, "calls") == 0)
    lua_pushinteger(L, (lua_Integer)n->ncalls);
  else if (strcmp(k, "self_calls") == 0 && !n->is_cycle)
    lua_pushinteger(L, (lua_Integer)n->self_calls);
  else if (strcmp(k, "internal_calls") == 0 && n->is_cycle)
    lua_pushinteger(L, (lua_Integer)n->self_calls);
  else if (strcmp(k, "member_calls") == 0 && !n->is_cycle)
    lua_pushinteger(L, (lua_Integer)n->member_calls);
  else if (strcmp(k, "printed") == 0 || strcmp(k, "in_graph") == 0)
    lua_pushboolean(L, lgp_graph_shows(p, id, !lp->zeros));
  else if (strcmp(k, "in_flat") == 0 && !n->is_cycle)
    lua_pushboolean(L, lgp_report_flat_shows(p, id, !lp->zeros));
  else if (strcmp(k, "propagated_fraction") == 0)
    lua_pushnumber(L, n->prop_fract);
  else if (strcmp(k, "cycle") == 0 && !n->is_cycle) {
    if (n->cyc_num != 0) {
      lua_getiuservalue(L, 1, 1);
      lcore_push_node(L, -1, p, n->cyc_head);
    } else {
      lua_pushnil(L);
    }
  } else if (strcmp(k, "dso") == 0 && !n->is_cycle) /* a gmon profile's: its executable */
    lua_pushstring(L, p->image->path);
  else if ((strcmp(k, "is_inline") == 0 || strcmp(k, "is_anonymous") == 0) && !n->is_cycle)
    lua_pushboolean(L, 0);
  else if (n->is_cycle)
    return lcore_no_field(L, "Cycle", k, cycle_fields, lcore_cycle_methods);
  else
    return lcore_no_field(L, "Function", k, function_fields, lcore_function_methods);
  return 1;
}

int lcore_handle_index(lua_State *L) {
  lhandle *h = lua_touserdata(L, 1);
  const char *k = luaL_checkstring(L, 2);
  lprofile *lp;
  if (luaL_getmetafield(L, 1, "methods") != LUA_TNIL) {
    if (lua_getfield(L, -1, k) != LUA_TNIL)
      return 1;
    lua_pop(L, 2);
  }
  lp = lcore_handle_profile(L, 1);
  if (luaL_testudata(L, 1, ARC_T) != NULL) {
    const lgp_arc *a = &lp->p->graph.arcs.arcs[h->id];
    lua_getiuservalue(L, 1, 1);
    if (strcmp(k, "kind") == 0)
      lua_pushliteral(L, "arc");
    else if (strcmp(k, "caller") == 0)
      lcore_push_node(L, -1, lp->p, a->parent);
    else if (strcmp(k, "callee") == 0)
      lcore_push_node(L, -1, lp->p, a->child);
    else if (strcmp(k, "count") == 0 &&
             (!lgp_calls_known(lp->p, a->parent) || !lgp_calls_known(lp->p, a->child)))
      lua_pushnil(L); /* sampled stacks record no calls (gmon.out's count those it knows) */
    else if (strcmp(k, "count") == 0)
      lua_pushinteger(L, (lua_Integer)a->count);
    else if (strcmp(k, "self") == 0)
      lua_pushnumber(L, lgp_seconds(lp->p, a->time));
    else if (strcmp(k, "children") == 0)
      lua_pushnumber(L, lgp_seconds(lp->p, a->child_time));
    else if (strcmp(k, "is_recursive") == 0)
      lua_pushboolean(L, a->parent == a->child);
    else if (strcmp(k, "in_cycle") == 0)
      lua_pushboolean(L, lgp_arc_in_cycle(&lp->p->graph, a));
    else if (strcmp(k, "is_static") == 0)
      lua_pushboolean(L, a->is_static);
    else if (strcmp(k, "is_tail") == 0)
      lua_pushboolean(L, a->is_tail);
    else if (strcmp(k, "is_estimated") == 0 && lp->p->stacks != NULL)
      lua_pushboolean(L, 0); /* measured from the stacks */
    else if (strcmp(k, "is_estimated") == 0)
      lua_pushboolean(L, lgp_bounds_arc_estimated(lcore_bounds(L, lp), h->id));
    else
      return lcore_no_field(L, "Arc", k, arc_fields, no_methods);
    return 1;
  }
  return node_field(L, lp, h->id, k);
}

/* fn:callers() / fn:callees(): arcs in gprof's list order */
static int iter_adj(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  uint32_t node = (uint32_t)lua_tointeger(L, lua_upvalueindex(2));
  int parents = lua_toboolean(L, lua_upvalueindex(3));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(4));
  const lgp_profile *p;
  const uint32_t *b, *e;
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  p = lp->p;
  b = parents ? lgp_parents_begin(&p->graph, node) : lgp_children_begin(&p->graph, node);
  e = parents ? lgp_parents_end(&p->graph, node) : lgp_children_end(&p->graph, node);
  while (pos < e - b && lgp_arc_hidden(p, b[pos]))
    pos++; /* a view leaves it out */
  if (pos >= e - b)
    return 0;
  lua_pushinteger(L, pos + 1);
  lua_replace(L, lua_upvalueindex(4));
  lcore_push_handle(L, lua_upvalueindex(1), ARC_T, b[pos]);
  return 1;
}

static int push_adj_iter(lua_State *L, int parents) {
  lhandle *h = luaL_checkudata(L, 1, FUNCTION_T);
  lcore_handle_profile(L, 1);
  lua_getiuservalue(L, 1, 1);
  lua_pushinteger(L, h->id);
  lua_pushboolean(L, parents);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_adj, 4);
  return 1;
}

static int function_callers(lua_State *L) { return push_adj_iter(L, 1); }
static int function_callees(lua_State *L) { return push_adj_iter(L, 0); }

/* cycle:callers() / cycle:callees(): the arcs that cross the cycle's
** boundary (from outside into a member, from a member to outside), member
** by member in chain order, each member's in gprof's list order */
static int iter_cycle_adj(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  uint32_t cyc = (uint32_t)lua_tointeger(L, lua_upvalueindex(2));
  int parents = lua_toboolean(L, lua_upvalueindex(3));
  uint32_t m = (uint32_t)lua_tointeger(L, lua_upvalueindex(4));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(5));
  const lgp_graph *g;
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  g = &lp->p->graph;
  for (; m != LGP_NONE; m = g->nodes[m].cyc_next, pos = 0) {
    const uint32_t *b = parents ? lgp_parents_begin(g, m) : lgp_children_begin(g, m);
    const uint32_t *e = parents ? lgp_parents_end(g, m) : lgp_children_end(g, m);
    for (; pos < e - b; pos++) {
      const lgp_arc *a = &g->arcs.arcs[b[pos]];
      uint32_t other = parents ? a->parent : a->child;
      if (g->nodes[other].cyc_head == cyc || lgp_arc_hidden(lp->p, b[pos]))
        continue; /* inside the cycle, or left out of a view */
      lua_pushinteger(L, m);
      lua_replace(L, lua_upvalueindex(4));
      lua_pushinteger(L, pos + 1);
      lua_replace(L, lua_upvalueindex(5));
      lcore_push_handle(L, lua_upvalueindex(1), ARC_T, b[pos]);
      return 1;
    }
  }
  lua_pushinteger(L, LGP_NONE);
  lua_replace(L, lua_upvalueindex(4));
  return 0;
}

static int push_cycle_adj_iter(lua_State *L, int parents) {
  lhandle *h = luaL_checkudata(L, 1, CYCLE_T);
  lprofile *lp = lcore_handle_profile(L, 1);
  lua_getiuservalue(L, 1, 1);
  lua_pushinteger(L, h->id);
  lua_pushboolean(L, parents);
  lua_pushinteger(L, lp->p->graph.nodes[h->id].cyc_next);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_cycle_adj, 5);
  return 1;
}

static int cycle_callers(lua_State *L) { return push_cycle_adj_iter(L, 1); }
static int cycle_callees(lua_State *L) { return push_cycle_adj_iter(L, 0); }

static int iter_members(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  uint32_t next = (uint32_t)lua_tointeger(L, lua_upvalueindex(2));
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  if (next == LGP_NONE)
    return 0;
  lua_pushinteger(L, lp->p->graph.nodes[next].cyc_next);
  lua_replace(L, lua_upvalueindex(2));
  lcore_push_node(L, lua_upvalueindex(1), lp->p, next);
  lua_pushinteger(L, (lua_Integer)lp->p->graph.nodes[next].member_calls);
  return 2;
}

/* cycle:members(): each member (in gprof's chain order) and the calls it
** received from the other members */
static int cycle_members(lua_State *L) {
  lhandle *h = luaL_checkudata(L, 1, CYCLE_T);
  lprofile *lp = lcore_handle_profile(L, 1);
  lua_getiuservalue(L, 1, 1);
  lua_pushinteger(L, lp->p->graph.nodes[h->id].cyc_next);
  lua_pushcclosure(L, iter_members, 2);
  return 1;
}

int lcore_handle_eq(lua_State *L) {
  lhandle *a = lua_touserdata(L, 1), *b = lua_touserdata(L, 2);
  int same = 0;
  if (a != NULL && b != NULL && lua_getmetatable(L, 1) && lua_getmetatable(L, 2)) {
    same = lua_rawequal(L, -1, -2) && a->id == b->id;
    lua_getiuservalue(L, 1, 1);
    lua_getiuservalue(L, 2, 1);
    same = same && lua_rawequal(L, -1, -2);
  }
  lua_pushboolean(L, same);
  return 1;
}

int lcore_handle_tostring(lua_State *L) {
  lhandle *h = lua_touserdata(L, 1);
  lprofile *lp;
  lua_getiuservalue(L, 1, 1);
  lp = lua_touserdata(L, -1);
  if (lp == NULL || lp->p == NULL) {
    lua_pushfstring(L, "%s (closed profile)", luaL_typename(L, 1));
  } else if (luaL_testudata(L, 1, ARC_T) != NULL) {
    const lgp_arc *a = &lp->p->graph.arcs.arcs[h->id];
    lua_pushfstring(L, "lgprof.Arc (%s -> %s)", lgp_names_display(&lp->names, lp->p->graph.nodes, a->parent),
                    lgp_names_display(&lp->names, lp->p->graph.nodes, a->child));
  } else if (lp->p->graph.nodes[h->id].is_cycle) {
    lua_pushfstring(L, "lgprof.Cycle (<cycle %d>)", (int)lp->p->graph.nodes[h->id].cyc_num);
  } else {
    lua_pushfstring(L, "lgprof.Function (%s)", lgp_names_display(&lp->names, lp->p->graph.nodes, h->id));
  }
  return 1;
}

/* }====================================================== */
const luaL_Reg lcore_function_methods[] = {
  {"callers", function_callers},
  {"callees", function_callees},
  {"lines", lcore_function_lines},
  {"instructions", lcore_function_instructions},
  {NULL, NULL}
};

const luaL_Reg lcore_cycle_methods[] = {
  {"members", cycle_members},
  {"callers", cycle_callers},
  {"callees", cycle_callees},
  {NULL, NULL}
};
