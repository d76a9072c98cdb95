/*
** lopts.c: option tables, checked once and here, in the style of Lua's
** own messages: "bad argument #n to 'f' (...)". The Lua modules above map
** aliases only.
*/
#include <string.h>

#include "lcore.h"
#include "model/names.h"

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

int lcore_opt_demangle(lua_State *L, int arg, const char **style) {
  int demangle = 1;
  if (lua_getfield(L, arg, "demangle") == LUA_TSTRING) {
    *style = lua_tostring(L, -1); /* the options table keeps the string alive */
    luaL_argcheck(L, lgp_names_demangle_style_ok(*style), arg, "unknown demangling style");
  } else if (lua_isboolean(L, -1)) {
    demangle = lua_toboolean(L, -1);
  } else if (!lua_isnil(L, -1)) {
    luaL_argerror(L, arg, "option 'demangle' must be a boolean or a style name");
  }
  lua_pop(L, 1);
  return demangle;
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

int lcore_to_share(lua_State *L, int idx, double max, double *v) {
  double n;
  if (lua_type(L, idx) == LUA_TNUMBER) {
    n = (double)lua_tonumber(L, idx);
  } else if (lua_type(L, idx) == LUA_TSTRING) {
    size_t len;
    const char *b = lua_tolstring(L, idx, &len), *e = b + len;
    char buf[64];
    int pct = 0;
    while (b < e && (*b == ' ' || *b == '\t'))
      b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
      e--;
    if (e > b && e[-1] == '%') {
      pct = 1;
      while (--e > b && (e[-1] == ' ' || e[-1] == '\t'))
        ;
    }
    /* decimal digits only: not "0x1p4", "inf" or "nan" */
    if (e == b || (size_t)(e - b) >= sizeof buf || strspn(b, "0123456789.eE+-") < (size_t)(e - b))
      return 0;
    memcpy(buf, b, (size_t)(e - b));
    buf[e - b] = '\0';
    if (lua_stringtonumber(L, buf) == 0)
      return 0;
    n = (double)lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (pct)
      n /= 100.0;
  } else {
    return 0;
  }
  if (!(n >= 0.0 && n <= max))
    return 0; /* NaN too */
  *v = n;
  return 1;
}

double lcore_opt_share(lua_State *L, int arg, const char *key, double def) {
  double v = def;
  if (field(L, arg, key) != LUA_TNIL && !lcore_to_share(L, -1, 1.0, &v))
    bad_option(L, arg, key, "a share: a fraction from 0 to 1 or a percent string (0.3 or \"30%\")");
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
