/*
** lasm.c: a function's instructions (model/asm.h): fn:instructions(), and
** profile:_asm(functions), the listings of several functions sharing the
** binaries read and the decoder (--annotate-asm).
*/
#include <stdio.h>
#include <string.h>

#include "lcore.h"
#include "model/asm.h"
#include "model/stackprofile.h"

static void set_str(lua_State *L, const lgp_asm_list *l, uint32_t id, const char *k) {
  const char *s = lgp_asm_str(l, id);
  if (s != NULL) {
    lua_pushstring(L, s);
    lua_setfield(L, -2, k);
  }
}

static void set_int(lua_State *L, lua_Integer v, const char *k) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void set_num(lua_State *L, double v, const char *k) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

static void set_bool(lua_State *L, int v, const char *k) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

/* One instruction as a table. */
static void push_insn(lua_State *L, const lgp_asm_list *l, const lgp_asm_insn *r) {
  char hex[16 * 3 + 1];
  size_t i, n = 0;
  uint32_t k;
  lua_createtable(L, 0, 20);
  set_int(L, (lua_Integer)r->addr, "address");
  set_int(L, (lua_Integer)(r->addr - l->start), "offset");
  set_int(L, r->size, "size");
  for (i = 0; i < r->size && i < sizeof r->bytes; i++)
    n += (size_t)snprintf(hex + n, sizeof hex - n, i ? " %02x" : "%02x", r->bytes[i]);
  hex[n] = '\0';
  lua_pushstring(L, hex);
  lua_setfield(L, -2, "bytes");
  set_str(L, l, r->mnemonic, "mnemonic");
  set_str(L, l, r->operands, "operands");
  set_num(L, r->samples, "samples");
  set_num(L, r->weight, "weight");
  set_num(L, l->weight > 0 ? r->weight / l->weight : 0, "share");
  if (l->from_gmon)
    set_int(L, (lua_Integer)r->units, "units");
  if (r->line > 0) {
    set_str(L, l, r->file, "file");
    set_int(L, r->line, "line");
  }
  if (r->has_target) {
    set_int(L, (lua_Integer)r->target, "target");
    set_int(L, (lua_Integer)r->target_off, "target_offset");
    if (r->target_name != LGP_ASM_NOSTR)
      set_str(L, l, r->target_name, "target_name");
  }
  set_bool(L, r->is_call, "is_call");
  set_bool(L, r->is_jump, "is_jump");
  set_bool(L, r->is_ret, "is_ret");
  set_bool(L, r->back_edge, "back_edge");
  if (l->from_gmon)
    set_bool(L, r->shared_bin, "shared_bin");
  lua_createtable(L, (int)r->ninl, 0);
  for (k = 0; k < r->ninl; k++) {
    const lgp_asm_inline *x = &l->inl[r->inl_first + k];
    lua_createtable(L, 0, 3);
    set_str(L, l, x->name, "name");
    set_str(L, l, x->call_file, "call_file");
    if (x->call_line > 0)
      set_int(L, x->call_line, "call_line");
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "inlined");
}

/* The listing as a table: its fields and `instructions`, a list. */
static void push_list(lua_State *L, const lgp_asm_list *l) {
  size_t i;
  lua_createtable(L, 0, 10);
  set_int(L, (lua_Integer)l->start, "start");
  set_int(L, (lua_Integer)(l->end - l->start), "size");
  lua_pushstring(L, l->arch);
  lua_setfield(L, -2, "arch");
  set_bool(L, l->decoded, "decoded");
  set_bool(L, l->code_read, "code_read");
  lua_pushstring(L, l->from_gmon ? "histogram" : "samples");
  lua_setfield(L, -2, "counts");
  set_num(L, l->samples, "samples");
  set_num(L, l->weight, "weight");
  if (l->from_gmon) {
    set_int(L, (lua_Integer)l->units, "units");
    set_num(L, l->scale, "scale");
  }
  lua_createtable(L, (int)l->n, 0);
  for (i = 0; i < l->n; i++) {
    push_insn(L, l, &l->insns[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "instructions");
}

typedef struct lsession {
  lgp_asm_session *s;
} lsession;

static int session_gc(lua_State *L) {
  lsession *u = lua_touserdata(L, 1);
  lgp_asm_session_free(u->s);
  u->s = NULL;
  return 0;
}

/* Pushes a userdata holding a new session (freed when collected). */
static lgp_asm_session *new_session(lua_State *L, const lgp_profile *p) {
  lsession *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->s = NULL;
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, session_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  if ((u->s = lgp_asm_session_new(p)) == NULL)
    luaL_error(L, "out of memory");
  return u->s;
}

/* Pushes function node s's listing; raises on failure. */
static void push_function(lua_State *L, lgp_asm_session *ss, uint32_t s) {
  lgp_asm_list l;
  lgp_err err;
  memset(&err, 0, sizeof err);
  memset(&l, 0, sizeof l);
  if (lgp_asm_function(ss, s, &l, &err) != 0) {
    lgp_asm_list_free(&l);
    luaL_error(L, "%s", err.msg);
    return;
  }
  push_list(L, &l);
  lgp_asm_list_free(&l);
}

static int iter_insns(lua_State *L) {
  lua_Integer i = lua_tointeger(L, lua_upvalueindex(2)) + 1;
  if (lua_rawgeti(L, lua_upvalueindex(1), i) == LUA_TNIL)
    return 0;
  lua_pushinteger(L, i);
  lua_replace(L, lua_upvalueindex(2));
  return 1;
}

/* fn:instructions() -> an iterator over its instructions (tables: address,
** offset, size, bytes, mnemonic, operands, samples, weight, share, file,
** line, inlined, target ...), then the listing (arch, decoded, counts,
** samples, weight ...). */
int lcore_function_instructions(lua_State *L) {
  lhandle *h = luaL_checkudata(L, 1, FUNCTION_T);
  lprofile *lp = lcore_handle_profile(L, 1);
  lgp_asm_session *ss = new_session(L, lp->p);
  push_function(L, ss, h->id);
  lua_getfield(L, -1, "instructions");
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_insns, 2);
  lua_pushvalue(L, -2);
  lua_pushnil(L);
  lua_setfield(L, -2, "instructions");
  return 2;
}

/* profile:_asm(list of Functions) -> the list of their listings, and the
** profile's total in the listings' weight (gmon: ticks; perf: the periods
** of every sample) and samples. */
int lcore_profile_asm(lua_State *L) {
  lprofile *lp = lcore_check_profile(L, 1);
  lua_Integer i, n;
  lgp_asm_session *ss;
  luaL_checktype(L, 2, LUA_TTABLE);
  n = (lua_Integer)lua_rawlen(L, 2);
  ss = new_session(L, lp->p);
  lua_createtable(L, (int)n, 0);
  for (i = 1; i <= n; i++) {
    lhandle *h;
    lua_rawgeti(L, 2, i);
    h = luaL_testudata(L, -1, FUNCTION_T);
    if (h == NULL)
      return luaL_error(L, "bad argument #1 to '_asm' (item %d is not a Function)", (int)i);
    lua_pop(L, 1);
    push_function(L, ss, h->id);
    lua_rawseti(L, -2, i);
  }
  if (lp->p->stacks != NULL) {
    lua_pushnumber(L, (double)lp->p->stacks->weight);
    lua_pushnumber(L, (double)lp->p->stacks->samples);
  } else {
    lua_pushnumber(L, lp->p->graph.total_time);
    lua_pushnumber(L, lp->p->graph.total_time);
  }
  return 3;
}
