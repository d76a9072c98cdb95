/*
** lcyclecut.c: profile:cycle_cuts{...}, the arcs whose removal breaks the
** profile's cycles (cyclecut.h), with the gprof symspecs (-k FROM/TO) that
** delete them; for --break-cycles, profile:_exclude_arcs(specs), which
** deletes them from the profile opened (no second reading of the files),
** and profile:_cut_text(cuts), the list and the -k line it prints.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/cyclecut.h"
#include "util/hashtab.h"
#include "lcore.h"

/* {====================================================== symspecs */

/* A function at an end of a cut arc, and what its spec needs to know
** about the other symbols. */
typedef struct endinfo {
  uint32_t node;
  uint32_t namesakes;      /* other symbols of the same raw name */
  uint32_t file_namesakes; /* of those, the ones in a file of the same base name */
} endinfo;

/* The ends, found by node (slot) and by name. */
typedef struct endset {
  endinfo *v;
  size_t n;
  uint32_t *slot;      /* nsyms: the end of each node, or UINT32_MAX */
  lgp_hashtab by_name; /* the ends by their node's raw name */
} endset;

static const char *base_name(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  return slash ? slash + 1 : path;
}

static int same_base(const char *a, const char *b) {
  return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

static void add_end(endset *s, uint32_t node) {
  if (s->slot[node] != UINT32_MAX)
    return;
  s->slot[node] = (uint32_t)s->n;
  s->v[s->n].node = node;
  s->v[s->n].namesakes = s->v[s->n].file_namesakes = 0;
  s->n++;
}

static uint32_t name_hash(const char *name) {
  return lgp_hashtab_hash_bytes(name, strlen(name));
}

/* The ends by name; 0, or -1 (out of memory). */
static int index_names(endset *s, const lgp_node *nodes) {
  size_t i;
  if (lgp_hashtab_reserve(&s->by_name, s->n) != 0)
    return -1;
  for (i = 0; i < s->n; i++) {
    lgp_hashpos at = lgp_hashtab_probe(&s->by_name, name_hash(nodes[s->v[i].node].name));
    while (lgp_hashtab_next(&s->by_name, &at) != LGP_HASHTAB_END)
      ;
    lgp_hashtab_put(&s->by_name, &at, (uint32_t)i);
  }
  return 0;
}

/* For each symbol i and each end of the same name that is not i: counts
** a namesake, or (files) one in a file of the same base name; 1 if any. */
static int visit_namesakes(endset *s, const lgp_profile *p, int files) {
  const lgp_node *nodes = p->graph.nodes;
  size_t i;
  int any = 0;
  for (i = 0; i < p->graph.nsyms; i++) {
    lgp_hashpos at = lgp_hashtab_probe(&s->by_name, name_hash(nodes[i].name));
    uint32_t k;
    while ((k = lgp_hashtab_next(&s->by_name, &at)) != LGP_HASHTAB_END) {
      endinfo *e = &s->v[k];
      if (e->node == i || strcmp(nodes[e->node].name, nodes[i].name) != 0)
        continue;
      any = 1;
      if (!files)
        e->namesakes++;
      else if (same_base(base_name(lgp_node_file(p, i)), base_name(lgp_node_file(p, e->node))))
        e->file_namesakes++;
    }
  }
  return any;
}

/* Counts each end's namesakes: one pass over the symbols, a hash probe
** each. Reads DWARF (the files) only when a spec needs a file: namesakes
** to tell apart, or a name with a dot. */
static void count_namesakes(lprofile *lp, endset *s) {
  const lgp_profile *p = lp->p;
  size_t j;
  int any = 0;
  for (j = 0; j < s->n; j++)
    any |= strchr(p->graph.nodes[s->v[j].node].name, '.') != NULL;
  any |= visit_namesakes(s, p, 0);
  if (!any)
    return;
  {
    lgp_err err = {0, ""};
    lgp_sources_load_srcinfo(lp->sources, &err); /* unreadable: files unknown */
  }
  visit_namesakes(s, p, 1);
}

/* Can gprof's symspec parser read name as a function name after a colon? */
static int name_ok(const char *name) {
  return name[0] != '\0' && !isdigit((unsigned char)name[0]) && strchr(name, ':') == NULL &&
         strchr(name, '/') == NULL;
}

/* Pushes the symspec of a symbol: NAME, or FILE:NAME (FILE: the base name
** of its source file) when other symbols have the name or the name has a
** dot (gprof reads a spec with a dot and no colon as a file); *exact is 0
** when the spec does not name that symbol alone. */
static void push_spec(lua_State *L, const lprofile *lp, const endinfo *e, int *exact) {
  const lgp_profile *p = lp->p;
  const char *name = p->graph.nodes[e->node].name;
  const char *file = base_name(lgp_node_file(p, e->node));
  int dotted = strchr(name, '.') != NULL;
  if (file != NULL && strchr(file, ':') == NULL && (e->namesakes > 0 || dotted)) {
    *exact = e->file_namesakes == 0 && name_ok(name);
    lua_pushfstring(L, "%s:%s", file, name);
  } else {
    *exact = e->namesakes == 0 && !dotted && name_ok(name);
    lua_pushstring(L, name);
  }
}

/* Writes the symspec of push_spec into buf (cap bytes); its length, or 0
** if it does not fit. */
static size_t write_spec(char *buf, size_t cap, const lprofile *lp, const endinfo *e,
                         int *exact) {
  const lgp_profile *p = lp->p;
  const char *name = p->graph.nodes[e->node].name;
  const char *file = base_name(lgp_node_file(p, e->node));
  size_t nlen = strlen(name), flen;
  int dotted = strchr(name, '.') != NULL;
  if (file != NULL && strchr(file, ':') == NULL && (e->namesakes > 0 || dotted)) {
    *exact = e->file_namesakes == 0 && name_ok(name);
    flen = strlen(file);
    if (flen + 1 + nlen > cap)
      return 0;
    memcpy(buf, file, flen);
    buf[flen] = ':';
    memcpy(buf + flen + 1, name, nlen);
    return flen + 1 + nlen;
  }
  *exact = e->namesakes == 0 && !dotted && name_ok(name);
  if (nlen > cap || nlen == 0)
    return 0;
  memcpy(buf, name, nlen);
  return nlen;
}

/* Pushes FROM/TO, the -k spec of an arc: one Lua string made (a short
** one built in place; 31,000 of them on B3). */
static void push_arc_spec(lua_State *L, const lprofile *lp, const endinfo *from,
                          const endinfo *to, int *exact_from, int *exact_to) {
  char buf[512];
  size_t a = write_spec(buf, sizeof buf - 1, lp, from, exact_from), b = 0;
  if (a > 0) {
    buf[a] = '/';
    b = write_spec(buf + a + 1, sizeof buf - a - 1, lp, to, exact_to);
  }
  if (a > 0 && b > 0) {
    lua_pushlstring(L, buf, a + 1 + b);
    return;
  }
  push_spec(L, lp, from, exact_from);
  lua_pushliteral(L, "/");
  push_spec(L, lp, to, exact_to);
  lua_concat(L, 3);
}

/* }====================================================== */

/* (_plain, internal to --break-cycles: the arcs as plain tables {count,
** from_node, to_node: the caller's and callee's node numbers}, not Arc
** objects, whose fields would analyse the profile) */
static const char *const cuts_fields[] = {"min_members", "one_per_caller", "count_only", "_plain",
                                          NULL};

static void set_stats(lua_State *L, const char *when, const lgp_cyclestats *s) {
  char key[32];
  snprintf(key, sizeof key, "cycles_%s", when);
  lua_pushinteger(L, (lua_Integer)s->cycles);
  lua_setfield(L, -2, key);
  snprintf(key, sizeof key, "large_%s", when);
  lua_pushinteger(L, (lua_Integer)s->large);
  lua_setfield(L, -2, key);
  snprintf(key, sizeof key, "largest_%s", when);
  lua_pushinteger(L, (lua_Integer)s->largest);
  lua_setfield(L, -2, key);
}

/* The cuts of the profile's graph (the arcs a view shows); the arc ids go
** to a userdata pushed on the stack (Lua owns it: an error below leaks
** nothing), *cc keeps the counts. */
static uint32_t *compute(lua_State *L, const lgp_profile *p, size_t min_members,
                         int one_per_caller, int count_only, lgp_cyclecuts *cc,
                         size_t *ncuts) {
  size_t k, narcs = p->graph.arcs.narcs;
  lgp_cutarc *arcs = lgp_alloc_array(narcs ? narcs : 1, sizeof *arcs);
  uint8_t *skip = NULL;
  uint32_t *cuts;
  lgp_err err = {0, ""};
  int rc;
  if (arcs != NULL && p->removed != NULL && (skip = lgp_calloc_array(narcs ? narcs : 1, 1)) == NULL) {
    free(arcs);
    arcs = NULL;
  }
  if (arcs == NULL)
    luaL_error(L, "out of memory");
  for (k = 0; k < narcs; k++) {
    arcs[k].from = p->graph.arcs.arcs[k].parent;
    arcs[k].to = p->graph.arcs.arcs[k].child;
    arcs[k].count = p->graph.arcs.arcs[k].count;
    if (skip != NULL)
      skip[k] = (uint8_t)lgp_arc_hidden(p, (uint32_t)k);
  }
  if (count_only) {
    memset(cc, 0, sizeof *cc);
    rc = lgp_cyclecut_stats(p->graph.nsyms, arcs, narcs, skip, min_members, &cc->before, &err);
  } else {
    rc = lgp_cyclecut_find(p->graph.nsyms, arcs, narcs, skip, min_members, one_per_caller, cc,
                           &err);
  }
  free(arcs);
  free(skip);
  if (rc != 0)
    luaL_error(L, "%s", err.msg);
  /* (the userdata's memory error, if any, would leak cc's cuts: the one
     allocation made before Lua's) */
  cuts = lua_newuserdatauv(L, (cc->ncuts ? cc->ncuts : 1) * sizeof *cuts, 0);
  if (cc->ncuts > 0) /* (no cuts: cc->cuts may be NULL) */
    memcpy(cuts, cc->cuts, cc->ncuts * sizeof *cuts);
  *ncuts = cc->ncuts;
  lgp_cyclecut_free(cc);
  return cuts;
}

/* profile:cycle_cuts([{min_members = N}]) -> a list of Arcs (lightest
** first) with the fields min_members, cycles_before/after,
** large_before/after, largest_before/after, minimal, calls, specs (the
** -k FROM/TO of each arc) and exact (each spec names its arc alone). */
int lcore_profile_cycle_cuts(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  const lgp_profile *p = lp->p;
  lgp_cyclecuts cc;
  endset es;
  uint32_t *cuts;
  size_t k, ncuts, nsyms = p->graph.nsyms;
  uint64_t calls = 0;
  uint32_t *pairs = NULL;
  lua_Integer min_members;
  int one_per_caller, plain, all_exact = 1;
  if (!lua_isnoneornil(L, 2))
    lcore_check_fields(L, 2, cuts_fields);
  min_members = lcore_opt_int(L, 2, "min_members", 2, 2, (lua_Integer)UINT32_MAX);
  one_per_caller = lcore_opt_bool(L, 2, "one_per_caller", 1);
  plain = lcore_opt_bool(L, 2, "_plain", 0);
  if (lcore_opt_bool(L, 2, "count_only", 0)) {
    compute(L, p, (size_t)min_members, 0, 1, &cc, &ncuts);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, min_members);
    lua_setfield(L, -2, "min_members");
    set_stats(L, "before", &cc.before);
    return 1;
  }
  cuts = compute(L, p, (size_t)min_members, one_per_caller, 0, &cc, &ncuts);
  /* the ends, in memory Lua owns */
  memset(&es, 0, sizeof es);
  es.v = lua_newuserdatauv(L, (2 * ncuts + 1) * sizeof *es.v, 0);
  es.slot = lua_newuserdatauv(L, (nsyms ? nsyms : 1) * sizeof *es.slot, 0);
  memset(es.slot, 0xff, nsyms * sizeof *es.slot);
  for (k = 0; k < ncuts; k++) {
    const lgp_arc *a = &p->graph.arcs.arcs[cuts[k]];
    add_end(&es, a->parent);
    add_end(&es, a->child);
    calls += a->count;
  }
  /* (no Lua call from here to the free: nothing raises in between) */
  if (index_names(&es, p->graph.nodes) != 0) {
    lgp_hashtab_free(&es.by_name);
    return luaL_error(L, "out of memory");
  }
  count_namesakes(lp, &es);
  lgp_hashtab_free(&es.by_name);

  if (plain) /* the cuts' ends for _exclude_arcs, below the result */
    pairs = lua_newuserdatauv(L, (2 * ncuts + 1) * sizeof *pairs, 0);
  lua_createtable(L, ncuts < INT32_MAX ? (int)ncuts : 0, 12);
  lua_createtable(L, ncuts < INT32_MAX ? (int)ncuts : 0, 0); /* specs */
  lua_createtable(L, ncuts < INT32_MAX ? (int)ncuts : 0, 0); /* exact */
  for (k = 0; k < ncuts; k++) {
    const lgp_arc *a = &p->graph.arcs.arcs[cuts[k]];
    int exact_from, exact_to;
    if (plain) {
      lua_createtable(L, 0, 3);
      lua_pushinteger(L, (lua_Integer)a->count);
      lua_setfield(L, -2, "count");
      lua_pushinteger(L, (lua_Integer)a->parent); /* node numbers (stay) */
      lua_setfield(L, -2, "from_node");
      lua_pushinteger(L, (lua_Integer)a->child);
      lua_setfield(L, -2, "to_node");
      pairs[k] = a->parent; /* the callers, then the callees */
      pairs[ncuts + k] = a->child;
    } else {
      lcore_push_handle(L, 1, ARC_T, cuts[k]);
    }
    lua_rawseti(L, -4, (lua_Integer)k + 1);
    push_arc_spec(L, lp, &es.v[es.slot[a->parent]], &es.v[es.slot[a->child]], &exact_from,
                  &exact_to);
    lua_rawseti(L, -3, (lua_Integer)k + 1);
    lua_pushboolean(L, exact_from && exact_to);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
    all_exact &= exact_from && exact_to;
  }
  lua_setfield(L, -3, "exact");
  lua_setfield(L, -2, "specs");
  lua_pushinteger(L, min_members);
  lua_setfield(L, -2, "min_members");
  set_stats(L, "before", &cc.before);
  set_stats(L, "after", &cc.after);
  lua_pushboolean(L, cc.minimal);
  lua_setfield(L, -2, "minimal");
  lua_pushinteger(L, (lua_Integer)calls);
  lua_setfield(L, -2, "calls");
  lua_pushinteger(L, (lua_Integer)cc.crowded);
  lua_setfield(L, -2, "crowded");
  if (plain && all_exact) { /* (_exclude_arcs may then skip the specs) */
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "_pairs");
  }
  return 1;
}

/* profile:_exclude_arcs(specs[, pairs]): deletes from an open profile, not
** analysed yet, the arcs the -k FROM/TO specs (a list of strings) delete,
** as if they had been given to lgprof.open (lgp_profile_exclude_arcs).
** pairs, the _pairs of profile:cycle_cuts{_plain = true} (present when
** every spec names its function alone), are the specs' node numbers: then
** the arcs are deleted by node (lgp_profile_exclude_pairs: no spec parsed
** and matched per arc), the same ones. Internal to --break-cycles: arc
** numbers change, so the Arc objects made before are dropped from the
** profile's cache (an old one names another arc). */
int lcore_profile_exclude_arcs(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  lgp_options extra;
  lgp_err err = {0, ""};
  lua_Integer i, n;
  int rc = 0;
  luaL_checktype(L, 2, LUA_TTABLE);
  if (lp->nviews > 0 || lp->kept != NULL)
    return luaL_error(L, "arcs cannot be excluded from a profile with views");
  n = luaL_len(L, 2);
  if (!lua_isnoneornil(L, 3)) {
    const uint32_t *pairs = lua_touserdata(L, 3);
    luaL_argcheck(L, pairs != NULL && lua_rawlen(L, 3) >= (size_t)n * 2 * sizeof *pairs, 3,
                  "not the pairs of the specs");
    rc = lgp_profile_exclude_pairs(lp->p, pairs, pairs + n, (size_t)n, &err);
    if (rc < 0)
      return luaL_error(L, "%s", err.msg);
    if (rc == 0) {
      lua_pushnil(L); /* the handles made so far: a new cache */
      lua_setiuservalue(L, 1, 2);
      return 0;
    }
    rc = 0; /* the symbols overlap: the specs, parsed */
  }
  lgp_options_init(&extra);
  extra.default_excludes = 0;
  for (i = 1; i <= n && rc == 0; i++) {
    if (lua_rawgeti(L, 2, i) != LUA_TSTRING) {
      lgp_options_free(&extra);
      return luaL_error(L, "spec %d is not a string", (int)i);
    }
    rc = lgp_options_add_spec(&extra, LGP_EXCL_ARCS, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  if (rc != 0) {
    lgp_options_free(&extra);
    return luaL_error(L, "out of memory");
  }
  rc = lgp_profile_exclude_arcs(lp->p, &extra, &err);
  lgp_options_free(&extra);
  if (rc != 0)
    return luaL_error(L, "%s", err.msg);
  lua_pushnil(L); /* the handles made so far: a new cache */
  lua_setiuservalue(L, 1, 2);
  return 0;
}

/* A function's name as gprof's report prints it (print_name). */
static void add_print_name(luaL_Buffer *b, lprofile *lp, uint32_t s) {
  const lgp_node *n = &lp->p->graph.nodes[s];
  char tail[LGP_NAMES_TAIL_MAX];
  size_t len;
  const char *name = lgp_names_display_len(&lp->names, lp->p->graph.nodes, s, &len);
  luaL_addlstring(b, name, len);
  luaL_addlstring(b, tail, (size_t)(lgp_names_put_tail(tail, n->cyc_num, n->index,
                                                        (int)n->print_flag,
                                                        lp->p->gmon->have_cg) - tail));
}

/* A cut's node number at key of the table on the top. */
static uint32_t cut_end(lua_State *L, const lprofile *lp, const char *key) {
  lua_Integer s;
  lua_getfield(L, -1, key);
  s = luaL_checkinteger(L, -1);
  lua_pop(L, 1);
  if (s < 0 || (size_t)s >= lp->p->graph.nsyms)
    luaL_error(L, "a cut's %s is no function of the profile", key);
  return (uint32_t)s;
}

/* Can a POSIX shell take s as a word as it is? (letters, digits and
** _./:+=@%,- only; the one shell quoting of lgprof: the -k options that
** --break-cycles prints are made here) */
static int shell_safe(const char *s, size_t len) {
  size_t i;
  if (len == 0)
    return 0;
  for (i = 0; i < len; i++)
    if (s[i] == '\0' || (!isalnum((unsigned char)s[i]) && strchr("_./:+=@%,-", s[i]) == NULL))
      return 0;
  return 1;
}

/* " -k WORD" (no space before the first), WORD as it is when a shell
** takes it so, else single-quoted (a ' as '\'\''). */
static void add_k_word(luaL_Buffer *b, const char *s, size_t len, int first) {
  size_t i;
  luaL_addstring(b, first ? "-k " : " -k ");
  if (shell_safe(s, len)) {
    luaL_addlstring(b, s, len);
    return;
  }
  luaL_addchar(b, '\'');
  for (i = 0; i < len; i++) {
    if (s[i] == '\'')
      luaL_addstring(b, "'\\''");
    else
      luaL_addchar(b, s[i]);
  }
  luaL_addchar(b, '\'');
}

/* The -k options of the list: c.specs at index specs, c.exact at exact;
** all of them (loose = 0) or the inexact ones only. */
static void push_k_line(lua_State *L, int specs, int exact, int loose) {
  luaL_Buffer b;
  lua_Integer i, n = luaL_len(L, specs);
  int first = 1;
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    size_t len;
    const char *s;
    char buf[256];
    int is_exact;
    lua_rawgeti(L, exact, i);
    is_exact = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (loose && is_exact)
      continue;
    lua_rawgeti(L, specs, i);
    s = luaL_checklstring(L, -1, &len);
    if (len < sizeof buf) { /* a copy: the string is popped before it is added */
      memcpy(buf, s, len);
      lua_pop(L, 1);
      add_k_word(&b, buf, len, first);
    } else {
      char *big = malloc(len);
      if (big == NULL)
        luaL_error(L, "out of memory");
      memcpy(big, s, len);
      lua_pop(L, 1);
      add_k_word(&b, big, len, first);
      free(big);
    }
    first = 0;
  }
  luaL_pushresult(&b);
}

/* profile:_cut_text(c): for c, a list of cuts as plain tables {count,
** from_node, to_node} (profile:cycle_cuts{_plain = true}: node numbers
** stay when arcs are deleted) with c.specs and c.exact, three strings:
** the lines "\tX to Y with N calls\n" (names as the profile's call graph
** prints them), the -k options of every cut and those of the inexact
** ones. Internal to --break-cycles (31,000 cuts on B3: built here rather
** than from as many Lua strings). */
int lcore_profile_cut_text(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  luaL_Buffer b;
  lua_Integer i, n;
  int specs, exact;
  luaL_checktype(L, 2, LUA_TTABLE);
  n = luaL_len(L, 2);
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    uint32_t from, to;
    char num[48];
    size_t nlen;
    lua_rawgeti(L, 2, i); /* (popped before the buffer is added to) */
    from = cut_end(L, lp, "from_node");
    to = cut_end(L, lp, "to_node");
    lua_getfield(L, -1, "count");
    nlen = lgp_fmt_u64(num, (uint64_t)luaL_checkinteger(L, -1), 0, 0);
    lua_pop(L, 2);
    luaL_addchar(&b, '\t');
    add_print_name(&b, lp, from);
    luaL_addstring(&b, " to ");
    add_print_name(&b, lp, to);
    luaL_addstring(&b, " with ");
    luaL_addlstring(&b, num, nlen);
    luaL_addstring(&b, " calls\n");
  }
  luaL_pushresult(&b);
  lua_getfield(L, 2, "specs");
  specs = lua_gettop(L);
  lua_getfield(L, 2, "exact");
  exact = lua_gettop(L);
  luaL_checktype(L, specs, LUA_TTABLE);
  luaL_checktype(L, exact, LUA_TTABLE);
  push_k_line(L, specs, exact, 0);
  push_k_line(L, specs, exact, 1);
  lua_remove(L, exact);
  lua_remove(L, specs);
  return 3;
}
