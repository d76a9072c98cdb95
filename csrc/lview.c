/*
** lview.c: profile:filter{} (views, built in C by view.c), profile:find,
** profile:roots and core.regex_match. Patterns are POSIX extended regular
** expressions matched anywhere in the demangled name.
*/
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "lcore.h"

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
    luaL_error(L, "filter option '%s' must be a pattern or a list of patterns", key);
  }
  set = lua_newuserdatauv(L, p->nsyms ? p->nsyms : 1, 0);
  memset(set, 0, p->nsyms);
  n = luaL_len(L, -2);
  for (k = 1; k <= n; k++) {
    regex_t re;
    size_t i;
    if (lua_geti(L, -2, k) != LUA_TSTRING)
      luaL_error(L, "filter option '%s' must be a pattern or a list of patterns", key);
    compile(L, &re, lua_tostring(L, -1));
    lua_pop(L, 1);
    for (i = 0; i < p->nsyms; i++)
      if (!set[i] && (p->removed == NULL || !p->removed[i]) &&
          regexec(&re, lgp_display_name(&lp->names, p, (uint32_t)i), 0, NULL, 0) == 0)
        set[i] = 1;
    regfree(&re);
  }
  lua_remove(L, -2); /* the pattern list; the set stays */
  return set;
}

static double opt_fraction(lua_State *L, const char *key) {
  double v = 0.0;
  if (lua_getfield(L, 2, key) != LUA_TNIL) {
    if (!lua_isnumber(L, -1))
      luaL_error(L, "filter option '%s' must be a number", key);
    v = lua_tonumber(L, -1);
    if (!(v >= 0.0 && v <= 1.0))
      luaL_error(L, "filter option '%s' must be between 0 and 1", key);
  }
  lua_pop(L, 1);
  return v;
}

static lua_Integer opt_count(lua_State *L, const char *key) {
  lua_Integer v = 0;
  int isnum = 1;
  if (lua_getfield(L, 2, key) != LUA_TNIL) {
    v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || v < 0)
      luaL_error(L, "filter option '%s' must be a non-negative integer", key);
  }
  lua_pop(L, 1);
  return v;
}

/* profile:filter{...} -> a view (a Profile), or nil, message */
int lcore_profile_filter(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1), *vp;
  lgp_view_spec spec;
  lgp_profile *v;
  lgp_err err = {0, ""};
  int root_idx = 1;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, 2) != 0) {
    int i;
    lua_pop(L, 1);
    for (i = 0; filter_keys[i] != NULL; i++)
      if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), filter_keys[i]) == 0)
        break;
    if (filter_keys[i] == NULL)
      return luaL_error(L, "unknown filter option '%s'", luaL_tolstring(L, -1, NULL));
  }
  lua_settop(L, 2);
  memset(&spec, 0, sizeof spec);
  spec.focus = match_set(L, lp, "focus");
  spec.ignore = match_set(L, lp, "ignore");
  spec.hide = match_set(L, lp, "hide");
  spec.prune_from = match_set(L, lp, "prune_from");
  spec.node_fraction = opt_fraction(L, "node_fraction");
  spec.edge_fraction = opt_fraction(L, "edge_fraction");
  spec.top = (size_t)opt_count(L, "top");
  spec.min_calls = (uint64_t)opt_count(L, "min_calls");
  if (lp->p->base != NULL) { /* a view of a view hangs on the owner */
    lua_getiuservalue(L, 1, 1);
    root_idx = lua_gettop(L);
  }
  vp = lcore_new_profile(L, root_idx);
  v = malloc(sizeof *v);
  if (v == NULL)
    return luaL_error(L, "out of memory");
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

/* {====================================================== find, roots */

static int cmp_display(const void *ctx, uint32_t x, uint32_t y) {
  lprofile *lp = (lprofile *)ctx;
  return strcmp(lgp_display_name(&lp->names, lp->p, x), lgp_display_name(&lp->names, lp->p, y));
}

/* Does the node's source file end with `file` at a path boundary? */
static int file_matches(lprofile *lp, uint32_t node, const char *file) {
  const lgp_profile *root = lgp_root(lp->p);
  const lgp_node *n = &root->nodes[node];
  lgp_err err = {0, ""};
  const char *path;
  size_t pl, fl = strlen(file);
  if (lgp_profile_srcinfo(lp->p, &err) != 0 || n->file < 0)
    return 0;
  path = root->image.files[n->file];
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
    if (lgp_profile_srcinfo(p, &err) != 0) {
      luaL_pushfail(L);
      lua_pushstring(L, err.set ? err.msg : "no source information");
      return 2;
    }
  }
  if (lp->by_name == NULL) { /* sorted once, on first use */
    lp->by_name = lgp_alloc_array(p->nsyms ? p->nsyms : 1, sizeof *lp->by_name);
    if (lp->by_name == NULL)
      return luaL_error(L, "out of memory");
    for (i = 0; i < p->nsyms; i++)
      lp->by_name[i] = (uint32_t)i;
    if (lgp_sort_indices(lp->by_name, p->nsyms, cmp_display, lp) != 0) {
      free(lp->by_name);
      lp->by_name = NULL;
      return luaL_error(L, "out of memory");
    }
  }
  lo = 0;
  hi = p->nsyms;
  while (lo < hi) { /* first display name >= name */
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(lgp_display_name(&lp->names, p, lp->by_name[mid]), name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (i = lo; i < p->nsyms && strcmp(lgp_display_name(&lp->names, p, lp->by_name[i]), name) == 0;
       i++) {
    uint32_t s = lp->by_name[i];
    if ((p->removed && p->removed[s]) || (file != NULL && !file_matches(lp, s, file)))
      continue;
    if (found++ == 0 || s < hit)
      hit = s;
  }
  if (found == 0) /* the raw symbol, when it differs from the printed name */
    for (i = 0; i < p->nsyms; i++)
      if (strcmp(p->nodes[i].name, name) == 0 && !(p->removed && p->removed[i]) &&
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

/* Would gprof print the node's entry (default options)? */
static int printed(const lgp_node *n) {
  return n->print_flag && !(n->ncalls == 0 && n->self_calls == 0 && n->prop_self == 0 &&
                            n->prop_child == 0);
}

static int iter_roots(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
  const lgp_profile *p = lp->p;
  if (p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  for (; (size_t)pos < p->nsyms + p->ncycles; pos++) {
    uint32_t s = p->time_sorted[pos];
    if (s >= p->nsyms || (p->removed && p->removed[s]) || !printed(&p->nodes[s]) ||
        p->parent_off[s] != p->parent_off[s + 1])
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
