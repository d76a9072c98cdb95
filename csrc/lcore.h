/*
** lcore.h: what the binding's files (lcore.c, lobjects.c, lview.c: the
** only C files that see Lua) share. A Profile userdata
** owns an lgp_profile; a view's Profile borrows its base's image and
** keeps the base alive through its user value.
*/
#ifndef lcore_h
#define lcore_h

#include <lauxlib.h>
#include <lua.h>

#include "report.h"

#define PROFILE_T "lgprof.Profile"
#define FUNCTION_T "lgprof.Function"
#define ARC_T "lgprof.Arc"
#define CYCLE_T "lgprof.Cycle"

typedef struct lprofile {
  lgp_profile *p;          /* NULL once closed */
  lgp_names names;
  lgp_profile *kept;       /* closed while views still borrow from it */
  int nviews;              /* live views of this profile */
  uint32_t *by_name;       /* find(): symbols by printed name, built on use */
  int zeros;               /* open's `zeros`: gprof_report's default for -z */
} lprofile;

typedef struct lhandle {
  uint32_t id; /* node or arc index */
} lhandle;

lprofile *lcore_check_profile(lua_State *L, int idx);
lprofile *lcore_handle_profile(lua_State *L, int idx);
void lcore_push_handle(lua_State *L, int pidx, const char *tname, uint32_t id);
void lcore_push_node(lua_State *L, int pidx, const lgp_profile *p, uint32_t node);
int lcore_opt_bool(lua_State *L, int t, const char *k, int def);
/* Pushes a closed Profile userdata (a view of the Profile at base_idx when
** base_idx != 0), then gives it its profile, which it owns from there. */
lprofile *lcore_new_profile(lua_State *L, int base_idx);
void lcore_set_profile(lua_State *L, lprofile *lp, lgp_profile *p, int demangle,
                       const char *style);

/* lobjects.c: Function, Arc and Cycle handles */
int lcore_handle_index(lua_State *L);
int lcore_handle_eq(lua_State *L);
int lcore_handle_tostring(lua_State *L);
extern const luaL_Reg lcore_function_methods[];
extern const luaL_Reg lcore_cycle_methods[];

/* lview.c: views, name search, regular expressions */
int lcore_profile_filter(lua_State *L);
int lcore_profile_find(lua_State *L);
int lcore_profile_roots(lua_State *L);
int lcore_regex_match(lua_State *L);

/* lexport.c: profile:export */
int lcore_profile_export(lua_State *L);

#endif
