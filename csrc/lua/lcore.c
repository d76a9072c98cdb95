/*
** lcore.c: the Lua binding, module "lgprof.core": open, the Profile type
** and its methods (the files of csrc/lua/ are the only C files that see
** Lua; lfiles.c, lview.c ... hold more of the methods). Objects are small handles (an index and a user value that keeps
** the profile alive); fields are read in O(1) on access.
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/gzip.h"
#include "util/json.h"
#include "model/stackprofile.h"
#include "lcore.h"
#include "model/stackprofile.h"
#include "llines.h"
#include "lsampled.h"


#if defined(__GNUC__)
#define LGP_EXPORT __attribute__((visibility("default")))
#else
#define LGP_EXPORT
#endif

/* {====================================================== helpers */

/* The rest of the profile's analysis, done once (it can only run out of
** memory). */
void lcore_analyse(lua_State *L, lprofile *lp, unsigned need) {
  lgp_err err = {0, ""};
  if ((lp->p->graph.analysed & need) != need && lgp_profile_analyse(lp->p, need, &err) != 0)
    luaL_error(L, "%s", err.msg);
}

lprofile *lcore_open_profile(lua_State *L, int idx) {
  lprofile *lp = luaL_checkudata(L, idx, PROFILE_T);
  if (lp->p == NULL)
    luaL_argerror(L, idx, "attempt to use a closed profile");
  return lp;
}

lprofile *lcore_check_profile(lua_State *L, int idx) {
  lprofile *lp = lcore_open_profile(L, idx);
  lcore_analyse(L, lp, LGP_GRAPH_ALL);
  return lp;
}

/* A handle's profile (its user value), checked to be open. */
lprofile *lcore_handle_profile(lua_State *L, int idx) {
  lprofile *lp;
  lua_getiuservalue(L, idx, 1);
  lp = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (lp == NULL || lp->p == NULL)
    luaL_error(L, "attempt to use an object of a closed profile");
  lcore_analyse(L, lp, LGP_GRAPH_ALL);
  return lp;
}

/* Pushes the handle of type tname for id; profile at stack index pidx.
** A profile keeps its live handles in a weak table (its second user
** value), so one object has one handle: handles compare with rawequal and
** work as table keys. */
void lcore_push_handle(lua_State *L, int pidx, const char *tname, uint32_t id) {
  lhandle *h;
  /* node ids and arc ids are both 32-bit: arcs are keyed above 2^32 */
  lua_Integer key = (lua_Integer)id + (strcmp(tname, ARC_T) == 0 ? (lua_Integer)1 << 32
                                        : strcmp(tname, LINE_T) == 0 ? (lua_Integer)2 << 32 : 0);
  pidx = lua_absindex(L, pidx);
  if (lua_getiuservalue(L, pidx, 2) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    luaL_setmetatable(L, WEAK_T);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, pidx, 2);
  }
  if (lua_rawgeti(L, -1, key) != LUA_TNIL) {
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 1);
  h = lua_newuserdatauv(L, sizeof *h, 1);
  h->id = id;
  lua_pushvalue(L, pidx);
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, tname);
  lua_pushvalue(L, -1);
  lua_rawseti(L, -3, key);
  lua_remove(L, -2);
}

/* A Function or a Cycle handle for a node. */
void lcore_push_node(lua_State *L, int pidx, const lgp_profile *p, uint32_t node) {
  lcore_push_handle(L, pidx, p->graph.nodes[node].is_cycle ? CYCLE_T : FUNCTION_T, node);
}

/* }====================================================== */

/* {====================================================== open */

static const char *const table_names[] = {
  "incl_graph", "excl_graph", "incl_arcs", "excl_arcs",
  "incl_flat", "excl_flat", "incl_time", "excl_time", "incl_anno", "excl_anno",
  "incl_exec", "excl_exec", NULL
};

static const char *const open_fields[] = {
  "no_static", "functions_only", "no_srcinfo", "default_excludes", "granularity", "format",
  "demangle", "zeros", "incl_graph", "excl_graph", "incl_arcs", "excl_arcs", "incl_flat",
  "excl_flat", "incl_time", "excl_time", "incl_anno", "excl_anno", "incl_exec", "excl_exec",
  "symbol_file", "map_file", "spec_order", "static_call_graph", "static_arcs", "clones",
  /* perf.data's reader (lsampled.c); lgprof.open refuses them for gmon.out */
  "event", "symfs", "buildid_dir", "search_dirs", "no_inline", "kallsyms", "progress", "off_cpu_state",
  "time_range", "sample_times", NULL
};

/* spec_order: the tables of the specs in the order they were given (the
** lists above lose it across tables, and gprof's -r sees the order of the
** FROM/TO specs of both arc tables). Puts o->specs in that order. */
static void order_specs(lua_State *L, int t, lgp_options *o) {
  size_t first[LGP_NTABLES + 1], next[LGP_NTABLES], i;
  lua_Integer k, n = 0;
  int type = lua_getfield(L, t, "spec_order");
  void *tmp;
  if (type == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (type != LUA_TTABLE || (n = luaL_len(L, -1)) != (lua_Integer)o->nspecs)
    luaL_argerror(L, t, "option 'spec_order' must list the table of every symspec");
  memset(first, 0, sizeof first);
  for (i = 0; i < o->nspecs; i++) /* the specs are grouped by table, in table order */
    first[o->specs[i].table + 1]++;
  for (i = 1; i <= LGP_NTABLES; i++)
    first[i] += first[i - 1];
  memcpy(next, first, sizeof next);
  tmp = lua_newuserdatauv(L, (o->nspecs ? o->nspecs : 1) * sizeof *o->specs, 0);
  for (k = 1; k <= n; k++) {
    int j = 0;
    if (lua_geti(L, -2, k) == LUA_TSTRING)
      while (table_names[j] != NULL && strcmp(table_names[j], lua_tostring(L, -1)) != 0)
        j++;
    if (lua_type(L, -1) != LUA_TSTRING || table_names[j] == NULL || next[j] >= first[j + 1])
      luaL_argerror(L, t, "option 'spec_order' must list the table of every symspec");
    memcpy((char *)tmp + (size_t)(k - 1) * sizeof *o->specs, &o->specs[next[j]++],
           sizeof *o->specs);
    lua_pop(L, 1);
  }
  if (o->nspecs > 0)
    memcpy(o->specs, tmp, o->nspecs * sizeof *o->specs);
  lua_pop(L, 2);
}

static void read_options(lua_State *L, int t, lgp_options *o) {
  static const char *const fmts[] = {"auto", "magic", "bsd", "4.4bsd", NULL};
  static const char *const grains[] = {"function", "line", NULL};
  static const char *const clones[] = {"gprof", "keep", NULL};
  int i;
  if (lua_isnoneornil(L, t))
    return;
  lcore_check_fields(L, t, open_fields);
  o->no_static = lcore_opt_bool(L, t, "no_static", 0);
  o->functions_only = lcore_opt_bool(L, t, "functions_only", 0);
  o->no_srcinfo = lcore_opt_bool(L, t, "no_srcinfo", 0);
  o->default_excludes = lcore_opt_bool(L, t, "default_excludes", 1);
  o->format = lcore_opt_enum(L, t, "format", 0, fmts);
  o->line_granularity = lcore_opt_enum(L, t, "granularity", 0, grains);
  {
    const char *sf = lcore_opt_string(L, t, "symbol_file", NULL);
    const char *map = lcore_opt_string(L, t, "map_file", NULL);
    if ((sf != NULL && (o->symbol_file = lgp_strdup(sf)) == NULL) ||
        (map != NULL && (o->map_file = lgp_strdup(map)) == NULL))
      luaL_error(L, "out of memory");
  }
  o->static_call_graph = lcore_opt_bool(L, t, "static_call_graph", 0);
  o->static_arcs = lcore_opt_bool(L, t, "static_arcs", 0);
  o->keep_clones = lcore_opt_enum(L, t, "clones", 0, clones);
  for (i = 0; table_names[i] != NULL; i++) {
    lua_Integer k, n;
    int type = lua_getfield(L, t, table_names[i]);
    if (type != LUA_TTABLE && type != LUA_TNIL) {
      lua_pushfstring(L, "option '%s' must be a list of symspecs", table_names[i]);
      luaL_argerror(L, t, lua_tostring(L, -1));
    }
    n = type == LUA_TTABLE ? luaL_len(L, -1) : 0;
    for (k = 1; k <= n; k++) {
      if (lua_geti(L, -1, k) != LUA_TSTRING) {
        lua_pushfstring(L, "option '%s' must be a list of symspecs (item %I is a %s)",
                        table_names[i], k, luaL_typename(L, -2));
        luaL_argerror(L, t, lua_tostring(L, -1));
      }
      if (lgp_options_add_spec(o, i, lua_tostring(L, -1)) != 0)
        luaL_error(L, "out of memory");
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  order_specs(L, t, o);
}

/* Options read from the table at t (0 or nil: the defaults), in a
** userdata pushed on the stack that frees them when collected. */
lgp_options *lcore_new_options(lua_State *L, int t) {
  lgp_options *opts;
  t = t ? lua_absindex(L, t) : 0;
  opts = lua_newuserdatauv(L, sizeof *opts, 0);
  lgp_options_init(opts);
  luaL_setmetatable(L, "lgprof.Options");
  if (t != 0)
    read_options(L, t, opts);
  return opts;
}

static int options_gc(lua_State *L) {
  lgp_options_free(luaL_checkudata(L, 1, "lgprof.Options"));
  return 0;
}

static void free_profile(lgp_profile *p) {
  lgp_profile_free(p);
  free(p);
}

/* __gc, __close and close(). A view lets go of its base; a base that views
** still borrow from looks closed but keeps its memory until the last view
** goes. */
static int profile_gc(lua_State *L) {
  lprofile *lp = luaL_checkudata(L, 1, PROFILE_T);
  lcore_bounds_release(lp);
  if (lp->p != NULL && lgp_is_view(lp->p)) {
    free_profile(lp->p);
    lp->p = NULL;
    if (lua_getiuservalue(L, 1, 1) == LUA_TUSERDATA) {
      lprofile *base = lua_touserdata(L, -1);
      if (--base->nviews == 0 && base->kept != NULL) {
        free_profile(base->kept);
        base->kept = NULL;
      }
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setiuservalue(L, 1, 1);
  } else if (lp->p != NULL) {
    if (lp->nviews > 0) {
      lp->kept = lp->p;
    } else {
      free_profile(lp->p);
      lcore_lines_release(L, 1);
    }
    lp->p = NULL;
  }
  lgp_names_free(&lp->names);
  free(lp->by_name);
  lp->by_name = NULL;
  return 0;
}

lprofile *lcore_new_profile(lua_State *L, int base_idx) {
  lprofile *lp;
  base_idx = base_idx ? lua_absindex(L, base_idx) : 0;
  /* the base, the handle cache, a profile of stacks' options (its filter
     rebuilds it from the stacks with them) and a combined profile's gmon
     profile (lsampled.c) */
  lp = lua_newuserdatauv(L, sizeof *lp, 4);
  memset(lp, 0, sizeof *lp); /* closed until p is set */
  luaL_setmetatable(L, PROFILE_T);
  if (base_idx != 0) {
    lua_pushvalue(L, base_idx);
    lua_setiuservalue(L, -2, 1);
  }
  return lp;
}

void lcore_set_profile(lua_State *L, lprofile *lp, lgp_profile *p, int demangle,
                       const char *style) {
  lp->p = p; /* owned from here: __gc frees it */
  if (!lgp_is_view(p)) {
    lp->sources = p->own;
  } else {
    lprofile *base;
    lua_getiuservalue(L, -1, 1);
    base = lua_touserdata(L, -1);
    base->nviews++;
    lp->sources = base->sources;
    lua_pop(L, 1);
  }
  /* room for the cycles an analysis still to come may add (a cycle has
     two members at least) */
  if (lgp_names_init(&lp->names, p->graph.nsyms + p->graph.nsyms / 2 + 1, demangle, style) != 0)
    luaL_error(L, "out of memory");
  /* the collector sees only the small userdata: tell it what the profile
     holds, so that a loop opening profiles collects the old ones in time */
  {
    size_t kb = lgp_graph_bytes(&p->graph) / 1024;
    lua_gc(L, LUA_GCSTEP, kb < INT_MAX ? (int)kb : INT_MAX);
  }
}

/* core.open(exe, {gmon...} [, options]) -> profile | nil, message */
static int l_open(lua_State *L) {
  const char *exe = luaL_checkstring(L, 1);
  const char *style = NULL;
  lgp_options *opts;
  const char **gmons;
  const lgp_blob **given;
  lgp_profile *p;
  lprofile *lp;
  lgp_err err = {0, ""};
  lua_Integer n, i;
  int demangle = 1;
  luaL_checktype(L, 2, LUA_TTABLE);
  n = luaL_len(L, 2);
  luaL_argcheck(L, n >= 1 && n < (1 << 24), 2, "expected a non-empty list of profile files");
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    demangle = lcore_opt_demangle(L, 3, &style);
  }
  lua_settop(L, 3);
  opts = lua_newuserdatauv(L, sizeof *opts, 0); /* freed by __gc on any error */
  lgp_options_init(opts);
  luaL_setmetatable(L, "lgprof.Options");
  read_options(L, 3, opts);
  gmons = lua_newuserdatauv(L, (size_t)n * sizeof *gmons, 0);
  given = lua_newuserdatauv(L, (size_t)n * sizeof *given, 0);
  for (i = 1; i <= n; i++) {
    if (lua_geti(L, 2, i) != LUA_TSTRING)
      return luaL_argerror(L, 2, "profile file names must be strings");
    gmons[i - 1] = lua_tostring(L, -1); /* anchored by the table */
    lua_pop(L, 1);
    /* a stream already read (to see whether it is a perf.data), or read now */
    given[i - 1] = lcore_stream(L, gmons[i - 1], &err);
    if (given[i - 1] == NULL && err.msg[0] != '\0') {
      luaL_pushfail(L);
      lua_pushstring(L, err.msg);
      return 2;
    }
  }
  opts->given = given;
  lp = lcore_new_profile(L, 0);
  p = malloc(sizeof *p);
  if (p == NULL)
    return luaL_error(L, "out of memory");
  if (lgp_profile_open(p, exe, gmons, (size_t)n, opts, &err) != 0) {
    free(p);
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lcore_set_profile(L, lp, p, demangle, style);
  lp->zeros = lcore_opt_bool(L, 3, "zeros", 0);
  return 1;
}

/* }====================================================== */

/* {====================================================== profile methods */

static int profile_close(lua_State *L) {
  luaL_checkudata(L, 1, PROFILE_T);
  return profile_gc(L);
}

static int profile_tostring(lua_State *L) {
  lprofile *lp = luaL_checkudata(L, 1, PROFILE_T);
  if (lp->p == NULL)
    lua_pushliteral(L, "lgprof.Profile (closed)");
  else
    lua_pushfstring(L, "lgprof.Profile (%s, %d functions)", "open", (int)lp->p->graph.nsyms);
  return 1;
}

static int iter_nodes(lua_State *L) {
  /* upvalues: profile, which order (0 address, 1 index, 2 flat rows,
     3 cycles, 4 index without cycles), position, and for 2 whether rows
     without samples or calls are left out (gprof without -z) */
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  int which = (int)lua_tointeger(L, lua_upvalueindex(2));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(3));
  const lgp_profile *p;
  uint32_t node;
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  p = lp->p;
  for (;;) {
    size_t limit = which == 1 || which == 4 ? p->graph.nsyms + p->graph.ncycles
                 : which == 3 ? p->graph.ncycles : p->graph.nsyms;
    if ((size_t)pos >= limit)
      return 0;
    node = which == 0 ? (uint32_t)pos : which == 1 || which == 4 ? p->graph.time_sorted[pos]
         : which == 2 ? p->graph.flat_sorted[pos] : (uint32_t)(p->graph.nsyms + (size_t)pos);
    pos++;
    if (which == 4 && node >= p->graph.nsyms)
      continue; /* functions(): no cycles */
    if (which == 2) {
      if (lgp_report_flat_shows(p, node, lua_toboolean(L, lua_upvalueindex(4))))
        break; /* flat(): the rows gprof's flat profile prints */
    } else if (!lgp_removed(p, node))
      break; /* a view leaves out what its filters removed */
  }
  lua_pushinteger(L, pos);
  lua_replace(L, lua_upvalueindex(3));
  lcore_push_node(L, lua_upvalueindex(1), p, node);
  return 1;
}

/* The iterator over the profile at 1: upvalues the profile, which list,
** the position, and (flat() only) whether rows without time or calls are
** left out. */
static int push_node_iter(lua_State *L, int which, int ignore_zeros) {
  lcore_check_profile(L, 1);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, which);
  lua_pushinteger(L, 0);
  lua_pushboolean(L, ignore_zeros);
  lua_pushcclosure(L, iter_nodes, 4);
  return 1;
}

static const char *const flat_fields[] = {"zeros", NULL};

/* profile:flat([{zeros =}]): the flat profile's rows in its order; zeros
** defaults to open's, as for gprof_report */
static int profile_flat(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  int zeros;
  if (!lua_isnoneornil(L, 2))
    lcore_check_fields(L, 2, flat_fields);
  zeros = lcore_opt_bool(L, 2, "zeros", lp->zeros);
  return push_node_iter(L, 2, !zeros);
}

static int profile_symbols(lua_State *L) { return push_node_iter(L, 0, 0); }
static int profile_entries(lua_State *L) { return push_node_iter(L, 1, 0); }
static int profile_functions(lua_State *L) { return push_node_iter(L, 4, 0); }
static int profile_cycles(lua_State *L) { return push_node_iter(L, 3, 0); }

/* profile:get(index) -> the Function or Cycle with that call-graph index */
static int profile_get(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  const lgp_profile *p = lp->p;
  if (i < 1 || (size_t)i > p->graph.nsyms + p->graph.ncycles)
    return 0;
  lcore_push_node(L, 1, p, p->graph.time_sorted[i - 1]);
  return 1;
}

/* profile:lookup(address) -> the Function whose range holds the address */
static int profile_lookup(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  uint32_t s = lgp_symindex_lookup(lp->p->index, (lgp_addr)luaL_checkinteger(L, 2));
  if (s == LGP_NONE)
    return 0;
  lcore_push_node(L, 1, lp->p, s);
  return 1;
}

static int iter_arcs(lua_State *L) {
  lprofile *lp = lua_touserdata(L, lua_upvalueindex(1));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  while ((size_t)pos < lp->p->graph.arcs.narcs && lgp_arc_hidden(lp->p, (uint32_t)pos))
    pos++; /* a view leaves it out */
  if ((size_t)pos >= lp->p->graph.arcs.narcs)
    return 0;
  lua_pushinteger(L, pos + 1);
  lua_replace(L, lua_upvalueindex(2));
  lcore_push_handle(L, lua_upvalueindex(1), ARC_T, (uint32_t)pos);
  return 1;
}

/* profile:arcs(): every arc, in the order they were first read */
static int profile_arcs(lua_State *L) {
  lcore_check_profile(L, 1);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_arcs, 2);
  return 1;
}

static const char *const profile_fields[] = {
  "total_time", "print_time", "hz", "sample_period", "have_histogram", "have_call_graph",
  "have_bb_counts", "function_count", "cycle_count", "arc_count", "arc_records", "text_start",
  "text_end", "address_bits", "big_endian", "dimension", "files", "image", "is_view",
  "base_time", "base_print_time", "samples", "clones", "folded_clones", "source", "calls_source",
  "command", NULL
};
static const luaL_Reg profile_methods[] = {
  {"close", profile_close},
  {"gprof_report", lcore_profile_report},
  {"write_gmon", lcore_profile_write_gmon},
  {"file_info", lcore_profile_file_info},
  {"histograms", lcore_profile_histograms},
  {"symbols", profile_symbols},
  {"functions", profile_functions},
  {"entries", profile_entries},
  {"flat", profile_flat},
  {"cycles", profile_cycles},
  {"arcs", profile_arcs},
  {"get", profile_get},
  {"lookup", profile_lookup},
  {"filter", lcore_profile_filter},
  {"find", lcore_profile_find},
  {"search", lcore_profile_search},
  {"roots", lcore_profile_roots},
  {"select", lcore_profile_select},
  {"export", lcore_profile_export},
  {"exec_counts", lcore_profile_exec_counts},
  {"annotate", lcore_profile_annotate},
  {"function_ordering", lcore_profile_function_ordering},
  {"file_ordering", lcore_profile_file_ordering},
  {"lines", lcore_profile_lines},
  {"line", lcore_profile_line},
  {"_evidence", lcore_profile_evidence},
  {"cycle_cuts", lcore_profile_cycle_cuts},
  {"ambiguous", lcore_profile_ambiguous},
  {"_exclude_arcs", lcore_profile_exclude_arcs},
  {"_cut_text", lcore_profile_cut_text},
  {"_stacks", lcore_profile_stacks},
  {"_asm", lcore_profile_asm},
  {"_shared_names", lcore_profile_shared_names},
  {NULL, NULL}
};

static int profile_index(lua_State *L) {
  lprofile *lp = luaL_checkudata(L, 1, PROFILE_T);
  const char *k = luaL_checkstring(L, 2);
  const lgp_profile *p;
  if (luaL_getmetafield(L, 1, "methods") != LUA_TNIL) {
    if (lua_getfield(L, -1, k) != LUA_TNIL)
      return 1;
    lua_pop(L, 2);
  }
  if (lp->p == NULL)
    return luaL_error(L, "attempt to use a closed profile");
  if (strcmp(k, "print_time") == 0 || strcmp(k, "cycle_count") == 0 ||
      strcmp(k, "base_print_time") == 0)
    lcore_analyse(L, lp, LGP_GRAPH_ALL);
  p = lp->p;
  if (strcmp(k, "total_time") == 0)
    lua_pushnumber(L, lgp_seconds(p, p->graph.total_time));
  else if (strcmp(k, "print_time") == 0)
    lua_pushnumber(L, lgp_seconds(p, p->graph.print_time));
  else if (strcmp(k, "hz") == 0)
    lua_pushinteger(L, lgp_sample_rate(p));
  else if (strcmp(k, "sample_period") == 0)
    lua_pushnumber(L, lgp_sample_period(p));
  else if (strcmp(k, "have_histogram") == 0)
    lua_pushboolean(L, p->gmon->have_hist);
  else if (strcmp(k, "have_call_graph") == 0)
    lua_pushboolean(L, p->gmon->have_cg);
  else if (strcmp(k, "have_bb_counts") == 0)
    lua_pushboolean(L, p->gmon->have_bb);
  else if (strcmp(k, "function_count") == 0)
    lua_pushinteger(L, (lua_Integer)p->graph.nsyms);
  else if (strcmp(k, "cycle_count") == 0)
    lua_pushinteger(L, (lua_Integer)p->graph.ncycles);
  else if (strcmp(k, "arc_count") == 0)
    lua_pushinteger(L, (lua_Integer)lgp_profile_arc_count(p));
  else if (strcmp(k, "arc_records") == 0)
    lua_pushinteger(L, (lua_Integer)p->gmon->narc_records);
  else if (strcmp(k, "text_start") == 0)
    lua_pushinteger(L, (lua_Integer)p->image->text_vma);
  else if (strcmp(k, "text_end") == 0)
    lua_pushinteger(L, (lua_Integer)(p->image->text_vma + p->image->text_size));
  else if (strcmp(k, "address_bits") == 0)
    lua_pushinteger(L, p->image->addr_bytes * 8);
  else if (strcmp(k, "big_endian") == 0)
    lua_pushboolean(L, p->image->big_endian);
  else if (strcmp(k, "dimension") == 0)
    lua_pushstring(L, p->gmon->dimen);
  else if (strcmp(k, "files") == 0 && p->stacks != NULL) { /* the perf.data read */
    lua_createtable(L, 1, 0);
    if (p->stacks->tab.recording != NULL) {
      lua_pushstring(L, p->stacks->tab.recording);
      lua_rawseti(L, -2, 1);
    }
  } else if (strcmp(k, "files") == 0) {
    size_t i;
    lua_createtable(L, (int)p->gmon->nfiles, 0);
    for (i = 0; i < p->gmon->nfiles; i++) {
      lua_pushstring(L, p->gmon->files[i].path);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
  } else if (strcmp(k, "image") == 0)
    lua_pushstring(L, p->image->path);
  else if (strcmp(k, "is_view") == 0)
    lua_pushboolean(L, lgp_is_view(p));
  else if (strcmp(k, "samples") == 0 && p->stacks != NULL)
    lua_pushinteger(L, (lua_Integer)lcore_stack_sample_count(p));
  else if (strcmp(k, "samples") == 0)
    lua_pushinteger(L, (lua_Integer)lgp_gmon_sample_count(p->gmon));
  else if (strcmp(k, "clones") == 0)
    lua_pushstring(L, p->image->keep_clones ? "keep" : "gprof");
  else if (strcmp(k, "folded_clones") == 0)
    lua_pushinteger(L, (lua_Integer)p->image->folded_clones);
  else if (strcmp(k, "source") == 0) /* what the times are from: the command asks */
    lua_pushstring(L, p->stacks != NULL ? "stacks" : "gmon");
  else if (strcmp(k, "command") == 0) { /* the recorded command (perf.data), else nil */
    if (p->stacks != NULL && p->stacks->command != NULL)
      lua_pushstring(L, p->stacks->command);
    else
      lua_pushnil(L);
  }
  else if (strcmp(k, "calls_source") == 0) { /* and the calls: gmon's, or none */
    if (p->stacks == NULL || p->stacks->has_calls)
      lua_pushliteral(L, "gmon");
    else
      lua_pushnil(L);
  }
  else if (strcmp(k, "base_time") == 0)
    lua_pushnumber(L, lgp_seconds(p, p->base_time));
  else if (strcmp(k, "base_print_time") == 0)
    lua_pushnumber(L, lgp_seconds(p, p->base_print_time));
  else
    return lcore_no_field(L, "Profile", k, profile_fields, profile_methods);
  return 1;
}

/* }====================================================== */


/* core.demangle(name [, style]) -> demangled name, or nil when not mangled */
static int l_demangle(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *style = luaL_optstring(L, 2, "auto");
  lgp_names nm;
  char *d;
  if (lgp_names_init(&nm, 0, 1, style) != 0)
    return luaL_argerror(L, 2, "unknown demangling style");
  d = lgp_names_demangle(name, nm.options);
  lgp_names_free(&nm);
  if (d == NULL)
    return 0;
  lua_pushstring(L, d);
  free(d);
  return 1;
}

/* core.clone_origin(name) -> the origin name of a gcc clone's name
** ("f" for "f.isra.0"; lgp_clone_origin_len), or nil if it is not one */
static int l_clone_origin(lua_State *L) {
  size_t len;
  const char *name = luaL_checklstring(L, 1, &len);
  size_t n = strlen(name) == len ? lgp_clone_origin_len(name) : 0;
  if (n == 0)
    return 0;
  lua_pushlstring(L, name, n);
  return 1;
}

/* core.share(v [, max]) -> the share v (a fraction, or a percent string:
** "30%" is 0.3) if it is one from 0 to max (default 1), else nil */
static int l_share(lua_State *L) {
  double max = (double)luaL_optnumber(L, 2, 1.0), v;
  luaL_checkany(L, 1);
  if (!lcore_to_share(L, 1, max, &v)) {
    luaL_pushfail(L);
    return 1;
  }
  lua_pushnumber(L, v);
  return 1;
}

void lcore_push_file_or_line(lua_State *L, const char *k, const char *file, int line) {
  if (k[0] == 'f' && file != NULL)
    lua_pushstring(L, file);
  else if (k[0] != 'f' && line > 0)
    lua_pushinteger(L, line);
  else
    lua_pushnil(L);
}

/* core.gzip(data [, level]): data compressed as one gzip member (the
** pprof export's container), written straight into a Lua buffer. */
static int l_gzip(lua_State *L) {
  size_t n, bound, len;
  const char *data = luaL_checklstring(L, 1, &n);
  int level = (int)luaL_optinteger(L, 2, -1);
  luaL_Buffer b;
  char *out;
  luaL_argcheck(L, level >= -1 && level <= 9, 2, "level from -1 to 9 expected");
  bound = lgp_gzip_bound(n);
  if (bound == 0)
    return luaL_error(L, "gzip: input too large");
  out = luaL_buffinitsize(L, &b, bound);
  len = lgp_gzip(data, n, level, (unsigned char *)out);
  if (len == 0)
    return luaL_error(L, "gzip: out of memory");
  luaL_pushresultsize(&b, len);
  return 1;
}

/* core.json_string(s): s as a JSON string, quotes included: the one
** encoder (util/json.h) of every JSON lgprof writes. */
static int l_json_string(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  lgp_out o;
  lgp_out_init(&o, NULL);
  lgp_json_string(&o, s, n);
  if (o.failed) {
    lgp_out_free(&o);
    return luaL_error(L, "not enough memory");
  }
  lua_pushlstring(L, o.buf, o.len);
  lgp_out_free(&o);
  return 1;
}

/* core.type(v) -> "profile", "function", "cycle", "arc", "line" or nil (as io.type) */
static int l_type(lua_State *L) {
  static const struct { const char *tname, *kind; } types[] = {
    {PROFILE_T, "profile"}, {FUNCTION_T, "function"}, {CYCLE_T, "cycle"}, {ARC_T, "arc"},
    {LINE_T, "line"}
  };
  size_t i;
  luaL_checkany(L, 1);
  for (i = 0; i < sizeof types / sizeof types[0]; i++)
    if (luaL_testudata(L, 1, types[i].tname) != NULL) {
      lua_pushstring(L, types[i].kind);
      return 1;
    }
  luaL_pushfail(L);
  return 1;
}


void lcore_new_type(lua_State *L, const char *tname, const luaL_Reg *methods,
                    lua_CFunction index, lua_CFunction gc, lua_CFunction tostring) {
  luaL_newmetatable(L, tname);
  if (methods != NULL) {
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "methods");
  }
  lua_pushcfunction(L, index);
  lua_setfield(L, -2, "__index");
  if (gc != NULL) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__close");
  } else {
    lua_pushcfunction(L, lcore_handle_eq);
    lua_setfield(L, -2, "__eq");
  }
  lua_pushcfunction(L, tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
}

LGP_EXPORT int luaopen_lgprof_core(lua_State *L);
LGP_EXPORT int luaopen_lgprof_core(lua_State *L) {
  static const luaL_Reg funcs[] = {
    {"open", l_open},
    {"demangle", l_demangle},
    {"clone_origin", l_clone_origin},
    {"regex_match", lcore_regex_match},
    {"share", l_share},
    {"type", l_type},
    {"gzip", l_gzip},
    {"json_string", l_json_string},
    {"_list_dir", lcore_list_dir},
    {"glob", lcore_glob},
    {NULL, NULL}
  };
  static const luaL_Reg nomethods[] = {{NULL, NULL}};
  lcore_new_type(L, PROFILE_T, profile_methods, profile_index, profile_gc, profile_tostring);
  luaL_getmetatable(L, PROFILE_T); /* the methods of profiles of stacks */
  lua_getfield(L, -1, "methods");
  luaL_setfuncs(L, lcore_stack_profile_methods, 0);
  lua_pop(L, 2);
  lcore_new_type(L, FUNCTION_T, lcore_function_methods, lcore_handle_index, NULL,
                 lcore_handle_tostring);
  lcore_new_type(L, ARC_T, nomethods, lcore_handle_index, NULL, lcore_handle_tostring);
  lcore_new_type(L, CYCLE_T, lcore_cycle_methods, lcore_handle_index, NULL,
                 lcore_handle_tostring);
  lcore_lines_open(L);
  lcore_stacks_open(L);
  luaL_newmetatable(L, "lgprof.Options");
  lua_pushcfunction(L, options_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  luaL_newmetatable(L, WEAK_T);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_pop(L, 1);
  lcore_stacks_register(L);
  luaL_newlib(L, funcs);
  luaL_setfuncs(L, lcore_stack_funcs, 0);
  lua_pushliteral(L, LGPROF_VERSION);
  lua_setfield(L, -2, "VERSION");
  /* the Profile's methods, for those written in Lua (lgprof's init.lua) */
  luaL_getmetatable(L, PROFILE_T);
  lua_getfield(L, -1, "methods");
  lua_setfield(L, -3, "_profile_methods");
  lua_pop(L, 1);
  return 1;
}
