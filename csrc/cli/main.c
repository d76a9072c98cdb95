/*
** main.c: the lgprof executable: Lua 5.4, the core (lgprof.core) and every
** Lua module of lua/lgprof/ in one file, so that it starts fast and finds
** its modules wherever it is installed, copied or linked from.
*/
#define _DEFAULT_SOURCE /* sbrk, madvise */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "embedded.h"

/* csrc/lua/lcore.c, linked in */
int luaopen_lgprof_core(lua_State *L);

/* Where `make install` puts things, for --lua-env when the executable is
   not under a tree of that shape (the Makefile's build/cli/paths.h sets them). */
#ifndef LGPROF_PREFIX
#define LGPROF_PREFIX "/usr/local"
#endif
#ifndef LGPROF_BINDIR
#define LGPROF_BINDIR LGPROF_PREFIX "/bin"
#endif
#ifndef LGPROF_LUADIR
#define LGPROF_LUADIR LGPROF_PREFIX "/share/lua/5.4"
#endif
#ifndef LGPROF_CDIR
#define LGPROF_CDIR LGPROF_PREFIX "/lib/lua/5.4"
#endif

/* package.preload's loader of one embedded chunk (upvalue 1: its index):
   compiled only when required, run with require's two arguments. */
static int load_chunk(lua_State *L) {
  const lgp_embedded *c = &lgp_embedded_chunks[lua_tointeger(L, lua_upvalueindex(1))];
  if (luaL_loadbuffer(L, (const char *)c->code, c->size, c->name) != LUA_OK)
    return lua_error(L);
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

/* The message handler: "lgprof: message", a traceback only with LGPROF_DEBUG. */
static int on_error(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  const char *debug = getenv("LGPROF_DEBUG");
  if (debug && *debug) luaL_traceback(L, L, msg, 1);
  else lua_pushstring(L, msg);
  return 1;
}

/* lgprof.memory.big_heap(): the command's memory for a big run (line
** granularity, annotated source): one heap that grows in big steps and is
** kept to the end, on transparent huge pages where the kernel gives them.
** Such a run allocates and frees arrays of megabytes over ~80,000 line
** symbols: taken from fresh mappings, each 4 KB of them costs a page fault
** (about a fifth of the run). Small runs keep malloc's defaults: a heap on
** 2 MB pages would only raise their peak memory. Only the command has this
** (package.preload): the module (core.so) leaves its host's malloc alone. */
static int l_big_heap(lua_State *L) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t start, end;
  void *room;
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
  start = (uintptr_t)sbrk(0);
  room = malloc((size_t)32 << 20); /* beyond what the heap holds: it grows */
  end = (uintptr_t)sbrk(0);
  start = (start + huge - 1) & ~(huge - 1);
  if (room != NULL && start != 0 && end > start)
    madvise((void *)start, end - start, MADV_HUGEPAGE); /* a hint: may fail */
  free(room); /* back to the heap, which keeps it */
#endif
  (void)L;
  return 0;
}

static int open_memory(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, l_big_heap);
  lua_setfield(L, -2, "big_heap");
  return 1;
}

/* Runs the embedded bin/lgprof.lua (called protected): its first argument
   says where this executable is and where make install put the modules;
   it returns the exit status. */
static int run(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = (char **)lua_touserdata(L, 2);
  const lgp_embedded *c, *main_chunk = NULL;
  char exe[PATH_MAX];

  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_lgprof_core);
  lua_setfield(L, -2, "lgprof.core");
  lua_pushcfunction(L, open_memory);
  lua_setfield(L, -2, "lgprof.memory");
  for (c = lgp_embedded_chunks; c->name; c++) {
    if (strcmp(c->name, "main") == 0) {
      main_chunk = c;
      continue;
    }
    lua_pushinteger(L, c - lgp_embedded_chunks);
    lua_pushcclosure(L, load_chunk, 1);
    lua_setfield(L, -2, c->name);
  }
  lua_pop(L, 1);

  /* arg as lua.c sets it for a script: arg[0] the program, then its words */
  lua_createtable(L, argc, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i);
  }
  lua_setglobal(L, "arg");

  if (!main_chunk) return luaL_error(L, "no main chunk embedded");
  if (luaL_loadbuffer(L, (const char *)main_chunk->code, main_chunk->size,
                      main_chunk->name) != LUA_OK)
    return lua_error(L);
  lua_createtable(L, 0, 5);
  /* the real path, through any symlink; nil if /proc is missing (or the
     path filled the buffer: it may have been cut) */
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe);
  if (n > 0 && (size_t)n < sizeof exe) lua_pushlstring(L, exe, (size_t)n);
  else lua_pushnil(L);
  lua_setfield(L, -2, "exe");
  static const char *const install_paths[][2] = {
    { "prefix", LGPROF_PREFIX }, { "bindir", LGPROF_BINDIR },
    { "luadir", LGPROF_LUADIR }, { "cdir", LGPROF_CDIR },
  };
  for (size_t i = 0; i < sizeof install_paths / sizeof install_paths[0]; i++) {
    lua_pushstring(L, install_paths[i][1]);
    lua_setfield(L, -2, install_paths[i][0]);
  }
  lua_call(L, 1, 1);
  return 1;
}

int main(int argc, char **argv) {
  lua_State *L = luaL_newstate();
  int status;
  if (!L) {
    fputs("lgprof: not enough memory\n", stderr);
    return 2;
  }
  lua_pushcfunction(L, on_error);
  lua_pushcfunction(L, run);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  if (lua_pcall(L, 2, 1, 1) != LUA_OK) {
    fflush(stdout);
    fprintf(stderr, "lgprof: %s\n", lua_tostring(L, -1));
    status = 2;
  } else {
    status = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1)
             : lua_isboolean(L, -1) ? !lua_toboolean(L, -1)
             : 0;
  }
  lua_close(L);
  return status;
}
