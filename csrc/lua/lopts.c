/*
** lopts.c: option tables, checked once and here, in the style of Lua's
** own messages: "bad argument #n to 'f' (...)". The Lua modules above map
** aliases only.
*/
#include <string.h>

#include "lcore.h"

void lcore_check_fields(lua_State *L, int arg, const char *const names[]) {
  luaL_checktype(L, arg, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, arg) != 0) {
    size_t i = 0;
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING)
      while (names[i] != NULL && strcmp(lua_tostring(L, -1), names[i]) != 0)
        i++;
    if (lua_type(L, -1) != LUA_TSTRING || names[i] == NULL) {
      lua_pushfstring(L, "unknown option '%s'", luaL_tolstring(L, -1, NULL));
      luaL_argerror(L, arg, lua_tostring(L, -1));
    }
  }
}

/* Pushes t[key]; its type. */
static int field(lua_State *L, int arg, const char *key) {
  return lua_istable(L, arg) ? lua_getfield(L, arg, key) : (lua_pushnil(L), LUA_TNIL);
}

static int bad_option(lua_State *L, int arg, const char *key, const char *what) {
  lua_pushfstring(L, "option '%s' must be %s", key, what);
  return luaL_argerror(L, arg, lua_tostring(L, -1));
}

int lcore_opt_bool(lua_State *L, int arg, const char *key, int def) {
  int t = field(L, arg, key), v = def;
  if (t == LUA_TBOOLEAN)
    v = lua_toboolean(L, -1);
  else if (t != LUA_TNIL)
    bad_option(L, arg, key, "a boolean");
  lua_pop(L, 1);
  return v;
}

lua_Integer lcore_opt_int(lua_State *L, int arg, const char *key, lua_Integer def,
                          lua_Integer min, lua_Integer max) {
  int t = field(L, arg, key), isint = 0;
  lua_Integer v = def;
  if (t != LUA_TNIL) {
    v = lua_tointegerx(L, -1, &isint);
    if (t != LUA_TNUMBER || !isint || v < min || v > max) {
      lua_pushfstring(L, "an integer from %I to %I", min, max);
      bad_option(L, arg, key, lua_tostring(L, -1));
    }
  }
  lua_pop(L, 1);
  return v;
}

double lcore_opt_number(lua_State *L, int arg, const char *key, double def, double min,
                        double max) {
  int t = field(L, arg, key);
  double v = def;
  if (t != LUA_TNIL) {
    v = (double)lua_tonumber(L, -1);
    if (t != LUA_TNUMBER || !(v >= min && v <= max)) {
      lua_pushfstring(L, "a number from %f to %f", (lua_Number)min, (lua_Number)max);
      bad_option(L, arg, key, lua_tostring(L, -1));
    }
  }
  lua_pop(L, 1);
  return v;
}

const char *lcore_opt_string(lua_State *L, int arg, const char *key, const char *def) {
  int t = field(L, arg, key);
  const char *v = def;
  if (t == LUA_TSTRING)
    v = lua_tostring(L, -1); /* anchored by the options table */
  else if (t != LUA_TNIL)
    bad_option(L, arg, key, "a string");
  lua_pop(L, 1);
  return v;
}

int lcore_opt_enum(lua_State *L, int arg, const char *key, int def, const char *const names[]) {
  const char *s = lcore_opt_string(L, arg, key, NULL);
  int i;
  if (s == NULL)
    return def;
  for (i = 0; names[i] != NULL; i++)
    if (strcmp(s, names[i]) == 0)
      return i;
  {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "one of ");
    for (i = 0; names[i] != NULL; i++) {
      luaL_addstring(&b, i > 0 ? ", '" : "'");
      luaL_addstring(&b, names[i]);
      luaL_addchar(&b, '\'');
    }
    luaL_pushresult(&b);
  }
  return bad_option(L, arg, key, lua_tostring(L, -1));
}
