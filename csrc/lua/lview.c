/*
** lview.c: profile:filter{} (views, built in C by view.c), profile:find,
** profile:search, profile:roots and core.regex_match. Patterns are POSIX
** extended regular expressions matched anywhere in the demangled name.
*/
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "lcore.h"
#include "lsampled.h"
#include "model/select.h"

/* Compiles pattern or raises a Lua error that quotes regerror's text. */
static void compile(lua_State *L, regex_t *re, const char *pattern) {
  int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char msg[256];
    regerror(rc, re, msg, sizeof msg);
    regfree(re);
    luaL_error(L, "bad pattern '%s': %s", pattern, msg);
  }
}

/* core.regex_match(name, pattern) -> boolean */
int lcore_regex_match(lua_State *L) {
  const char *name = luaL_checkstring(L, 1), *pattern = luaL_checkstring(L, 2);
  regex_t re;
  int hit;
  compile(L, &re, pattern);
  hit = regexec(&re, name, 0, NULL, 0) == 0;
  regfree(&re);
  lua_pushboolean(L, hit);
  return 1;
}

/* {====================================================== filter */

static const char *const filter_keys[] = {
  "focus", "ignore", "hide", "prune_from", "node_fraction", "edge_fraction", "top",
  "min_calls", NULL
};

static void bad_patterns(lua_State *L, const char *key) {
  lua_pushfstring(L, "option '%s' must be a pattern or a list of patterns", key);
  luaL_argerror(L, 2, lua_tostring(L, -1));
}

/* The match set of option key: one byte per symbol, in a userdata left on
** the stack (collected with it); NULL when the option is absent. */
static uint8_t *match_set(lua_State *L, lprofile *lp, const char *key) {
  lgp_profile *p = lp->p;
  uint8_t *set;
  lua_Integer k, n;
  int t = lua_getfield(L, 2, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return NULL;
  }
  if (t == LUA_TSTRING) {
    lua_createtable(L, 1, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
  } else if (t != LUA_TTABLE) {
    bad_patterns(L, key);
  }
  set = lua_newuserdatauv(L, p->graph.nsyms ? p->graph.nsyms : 1, 0);
  memset(set, 0, p->graph.nsyms);
  n = luaL_len(L, -2);
  for (k = 1; k <= n; k++) {
    regex_t re;
    size_t i;
    if (lua_geti(L, -2, k) != LUA_TSTRING)
      bad_patterns(L, key);
    compile(L, &re, lua_tostring(L, -1));
    lua_pop(L, 1);
    for (i = 0; i < p->graph.nsyms; i++)
      if (!set[i] && !lgp_removed(p, (uint32_t)i) &&
          regexec(&re, lgp_names_display(&lp->names, p->graph.nodes, (uint32_t)i), 0, NULL, 0) == 0)
        set[i] = 1;
    regfree(&re);
  }
  lua_remove(L, -2); /* the pattern list; the set stays */
  return set;
}

/* profile:filter{...} -> a view (a Profile), or nil, message */
int lcore_profile_filter(lua_State *L) {
  lprofile *lp, *vp;
  lgp_view_spec spec;
  lgp_profile *v;
  lgp_err err;
  int root_idx = 1;
  if (lcore_is_stack_filter(L))
    return lcore_stack_filter(L);
  lp = lcore_check_profile(L, 1);
  lcore_check_fields(L, 2, filter_keys);
  lua_settop(L, 2);
  memset(&spec, 0, sizeof spec);
  spec.focus = match_set(L, lp, "focus");
  spec.ignore = match_set(L, lp, "ignore");
  spec.hide = match_set(L, lp, "hide");
  spec.prune_from = match_set(L, lp, "prune_from");
  spec.node_fraction = lcore_opt_share(L, 2, "node_fraction", 0.0);
  spec.edge_fraction = lcore_opt_share(L, 2, "edge_fraction", 0.0);
  spec.top = (size_t)lcore_opt_int(L, 2, "top", 0, 0, LUA_MAXINTEGER);
  spec.min_calls = (uint64_t)lcore_opt_int(L, 2, "min_calls", 0, 0, LUA_MAXINTEGER);
  if (lgp_is_view(lp->p)) { /* a view of a view hangs on the owner */
    lua_getiuservalue(L, 1, 1);
    root_idx = lua_gettop(L);
  }
  vp = lcore_new_profile(L, root_idx);
  v = malloc(sizeof *v);
  if (v == NULL)
    return luaL_error(L, "out of memory");
  memset(&err, 0, sizeof err);
  if (lgp_view_build(v, lp->p, &spec, &err) != 0) {
    free(v);
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lcore_set_profile(L, vp, v, lp->names.enabled, NULL);
  vp->names.options = lp->names.options;
  vp->zeros = lp->zeros;
  return 1;
}

/* }====================================================== */

/* {====================================================== select */

static const char *const select_keys[] = {
  "node_fraction", "edge_fraction", "max_nodes", "min_calls", "dotted", NULL
};

/* Sets the time (seconds) and its share of the call graph's time t. */
static void set_time(lua_State *L, double seconds, double t, int with_share) {
  lua_pushnumber(L, seconds);
  lua_setfield(L, -2, "time");
  if (with_share) {
    lua_pushnumber(L, t > 0.0 ? seconds / t : 0.0);
    lua_setfield(L, -2, "share");
  }
}

/* Sets field k of the table on top to the node's handle. */
static void set_node(lua_State *L, const lgp_profile *p, const char *k, uint32_t node) {
  lcore_push_node(L, 1, p, node);
  lua_setfield(L, -2, k);
}

/* profile:select{...} -> { nodes = {Function...}, edges = {...}, dotted =
** {...}, candidates = n, time = seconds }: what a picture of the profile
** shows (see select.h), times in seconds. */
int lcore_profile_select(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  const lgp_profile *p = lp->p;
  lgp_select_spec spec;
  lgp_selection sel;
  lua_Number max_nodes;
  double t;
  size_t i;
  if (!lua_isnoneornil(L, 2))
    lcore_check_fields(L, 2, select_keys);
  memset(&spec, 0, sizeof spec);
  spec.node_fraction = lcore_opt_share(L, 2, "node_fraction", 0.0);
  spec.edge_fraction = lcore_opt_share(L, 2, "edge_fraction", 0.0);
  max_nodes = (lua_Number)lcore_opt_number(L, 2, "max_nodes", HUGE_VAL, 0.0, HUGE_VAL);
  luaL_argcheck(L, max_nodes == HUGE_VAL || max_nodes == floor(max_nodes), 2,
                "option 'max_nodes' must be a whole number (or math.huge)");
  spec.max_nodes = max_nodes >= (lua_Number)SIZE_MAX ? SIZE_MAX : (size_t)max_nodes;
  spec.min_calls = (uint64_t)lcore_opt_int(L, 2, "min_calls", 0, 0, LUA_MAXINTEGER);
  spec.residual = lcore_opt_bool(L, 2, "dotted", 1);
  if (lgp_select(p, &spec, &sel) != 0)
    return luaL_error(L, "out of memory");
  lua_settop(L, 1);
  t = lgp_seconds(p, p->graph.print_time);
  lua_createtable(L, 0, 5);
  lua_createtable(L, (int)sel.nnodes, 0);
  for (i = 0; i < sel.nnodes; i++) {
    lcore_push_node(L, 1, p, sel.nodes[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "nodes");
  lua_createtable(L, (int)sel.narcs, 0);
  for (i = 0; i < sel.narcs; i++) {
    const lgp_arc *a = &p->graph.arcs.arcs[sel.arcs[i]];
    int structural = lgp_arc_untimed(&p->graph, a);
    lua_createtable(L, 0, 8);
    set_node(L, p, "caller", a->parent);
    set_node(L, p, "callee", a->child);
    lcore_push_handle(L, 1, ARC_T, sel.arcs[i]);
    lua_setfield(L, -2, "arc");
    if (p->stacks == NULL) { /* sampled stacks recorded no calls: count nil */
      lua_pushinteger(L, (lua_Integer)a->count);
      lua_setfield(L, -2, "count");
    }
    set_time(L, structural ? 0.0 : lgp_seconds(p, a->time) + lgp_seconds(p, a->child_time), t,
             !structural);
    lua_pushboolean(L, structural);
    lua_setfield(L, -2, "structural");
    lua_pushboolean(L, !structural);
    lua_setfield(L, -2, "timed");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "edges");
  lua_createtable(L, (int)sel.nresidual, 0);
  for (i = 0; i < sel.nresidual; i++) {
    const lgp_residual *e = &sel.residual[i];
    uint32_t k;
    lua_createtable(L, 0, 5);
    set_node(L, p, "caller", e->caller);
    set_node(L, p, "callee", e->callee);
    set_time(L, e->time, t, 1);
    lua_createtable(L, (int)e->nvia, 0);
    for (k = 0; k < e->nvia; k++) {
      lcore_push_node(L, 1, p, sel.via[e->via_first + k]);
      lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, "via");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "dotted");
  lua_pushinteger(L, (lua_Integer)sel.ncandidates);
  lua_setfield(L, -2, "candidates");
  lua_pushnumber(L, t);
  lua_setfield(L, -2, "time");
  lgp_selection_free(&sel);
  return 1;
}

/* }====================================================== */

/* {====================================================== find, roots */

/* The sort's context: the names cache fills in as names are compared. */
typedef struct by_name_ctx {
  lgp_names *names;
  const lgp_node *nodes;
} by_name_ctx;

static int cmp_display(const void *ctx, uint32_t x, uint32_t y) {
  const by_name_ctx *c = ctx;
  return strcmp(lgp_names_display(c->names, c->nodes, x), lgp_names_display(c->names, c->nodes, y));
}

/* Does the node's source file end with `file` at a path boundary? */
static int file_matches(lprofile *lp, uint32_t node, const char *file) {
  const char *path;
  size_t pl, fl = strlen(file);
  path = lgp_node_file(lp->p, node);
  if (path == NULL)
    return 0;
  pl = strlen(path);
  return pl >= fl && strcmp(path + pl - fl, file) == 0 &&
         (pl == fl || path[pl - fl - 1] == '/');
}

/* profile:find(name [, file]) -> Function | nil, message. The name is the
** demangled name or the raw symbol; statics of one name are told apart by
** their source file (a path or its last components). */
int lcore_profile_find(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  const char *name = luaL_checkstring(L, 2), *file = luaL_optstring(L, 3, NULL);
  lgp_profile *p = lp->p;
  size_t lo, hi, i, found = 0;
  uint32_t hit = LGP_NONE;
  if (file != NULL) { /* files come from DWARF: say why they are unknown */
    lgp_err err = {0, ""};
    if (lgp_sources_load_srcinfo(lp->sources, &err) != 0) {
      luaL_pushfail(L);
      lua_pushstring(L, err.set ? err.msg : "no source information");
      return 2;
    }
  }
  if (lp->by_name == NULL) { /* sorted once, on first use */
    lp->by_name = lgp_alloc_array(p->graph.nsyms ? p->graph.nsyms : 1, sizeof *lp->by_name);
    if (lp->by_name == NULL)
      return luaL_error(L, "out of memory");
    for (i = 0; i < p->graph.nsyms; i++)
      lp->by_name[i] = (uint32_t)i;
    by_name_ctx ctx;
    ctx.names = &lp->names;
    ctx.nodes = p->graph.nodes;
    if (lgp_sort_indices(lp->by_name, p->graph.nsyms, cmp_display, &ctx) != 0) {
      free(lp->by_name);
      lp->by_name = NULL;
      return luaL_error(L, "out of memory");
    }
  }
  lo = 0;
  hi = p->graph.nsyms;
  while (lo < hi) { /* first display name >= name */
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(lgp_names_display(&lp->names, p->graph.nodes, lp->by_name[mid]), name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (i = lo; i < p->graph.nsyms && strcmp(lgp_names_display(&lp->names, p->graph.nodes, lp->by_name[i]), name) == 0;
       i++) {
    uint32_t s = lp->by_name[i];
    if (lgp_removed(p, s) || (file != NULL && !file_matches(lp, s, file)))
      continue;
    if (found++ == 0 || s < hit)
      hit = s;
  }
  if (found == 0) /* the raw symbol, when it differs from the printed name */
    for (i = 0; i < p->graph.nsyms; i++)
      if (strcmp(p->graph.nodes[i].name, name) == 0 && !lgp_removed(p, (uint32_t)i) &&
          (file == NULL || file_matches(lp, (uint32_t)i, file)) && found++ == 0)
        hit = (uint32_t)i;
  if (found == 1) {
    lcore_push_node(L, 1, p, hit);
    return 1;
  }
  luaL_pushfail(L);
  if (found == 0)
    lua_pushfstring(L, "no function named '%s'%s%s", name, file ? " in " : "", file ? file : "");
  else
    lua_pushfstring(L, "%d functions named '%s': give the source file too", (int)found, name);
  return 2;
}

/* profile:search(pattern) -> the list of Functions whose name matches the
** POSIX ERE, in call-graph index order. A list, not an iterator: the
** pattern is checked (and its regex freed) before the call returns, and a
** caller can count the matches. */
int lcore_profile_search(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  const char *pattern = luaL_checkstring(L, 2);
  const lgp_profile *p = lp->p;
  regex_t re;
  size_t k;
  lua_Integer n = 0;
  compile(L, &re, pattern);
  lua_newtable(L);
  for (k = 0; k < p->graph.nsyms + p->graph.ncycles; k++) {
    uint32_t s = p->graph.time_sorted[k];
    if (s >= p->graph.nsyms || lgp_removed(p, s) ||
        regexec(&re, lgp_names_display(&lp->names, p->graph.nodes, s), 0, NULL, 0) != 0)
      continue;
    lcore_push_node(L, 1, p, s);
    lua_rawseti(L, -2, ++n);
  }
  regfree(&re);
  return 1;
}

/* Does s have a caller (one a view shows)? */
static int has_shown_caller(const lgp_profile *p, uint32_t s) {
  const uint32_t *a;
  for (a = lgp_parents_begin(&p->graph, s); a < lgp_parents_end(&p->graph, s); a++)
    if (!lgp_arc_hidden(p, *a))
      return 1;
  return 0;
}

static int iter_roots(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
  const lgp_profile *p = lp->p;
  if (p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  for (; (size_t)pos < p->graph.nsyms + p->graph.ncycles; pos++) {
    uint32_t s = p->graph.time_sorted[pos];
    if (s >= p->graph.nsyms || !lgp_graph_shows(p, s, 1) ||
        has_shown_caller(p, s))
      continue;
    lua_pushinteger(L, pos + 1);
    lua_replace(L, lua_upvalueindex(2));
    lcore_push_node(L, lua_upvalueindex(1), p, s);
    return 1;
  }
  lua_pushinteger(L, pos);
  lua_replace(L, lua_upvalueindex(2));
  return 0;
}

/* profile:roots(): the <spontaneous> entries (no callers), in index order */
int lcore_profile_roots(lua_State *L) {
  lcore_check_profile(L, 1);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_roots, 2);
  return 1;
}

/* }====================================================== */
