/*
** lsampled.h: profiles of sampled stacks in the binding (lsampled.c).
*/
#ifndef lsampled_h
#define lsampled_h

#include "lcore.h"

/* core functions (_profile_from_stacks, is_perfdata, open_stacks) and the
** Profile methods (processes, threads, dsos, stacks) */
extern const luaL_Reg lcore_stack_funcs[];
extern const luaL_Reg lcore_stack_profile_methods[];
/* The metatables lsampled.c needs. */
void lcore_stacks_register(lua_State *L);
/* Is the Profile at 1 one of sampled stacks? */
int lcore_is_stack_filter(lua_State *L);
/* profile:filter for a profile of stacks. */
int lcore_stack_filter(lua_State *L);
/* Function and Cycle fields that differ on a profile of stacks: 1 with
** the value pushed, or -1 (the common field). */
int lcore_stack_node_field(lua_State *L, const lgp_profile *p, uint32_t id, const char *k);

/* The bytes of path when it is read as a stream (a pipe, a FIFO, "-" for
** standard input), read whole on first use and kept for the Lua state
** (a stream is read once); NULL when path is no stream, or when it cannot
** be read (err says why). */
const lgp_blob *lcore_stream(lua_State *L, const char *path, lgp_err *err);

/* The samples of a profile of stacks. */
uint64_t lcore_stack_sample_count(const lgp_profile *p);

#endif
