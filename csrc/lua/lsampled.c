/*
** lsampled.c: profiles of sampled stacks (model/stackprofile.h) in Lua:
** core._profile_from_stacks (a table of stacks given as Lua data, for
** exact hand-built cases), core.is_perfdata and core.open_stacks (a
** perf.data file), and the Profile methods processes, threads, dsos and
** stacks, the filter by pid, tid, comm and dso, and the Function fields
** that differ from a gmon profile's.
*/
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lcore.h"
#include "lsampled.h"
#include "read/perf/perfstacks.h"
#include "model/stackprofile.h"
#include "read/perf/perfdata.h"
#include "read/perf/offcpu.h"

/* {====================================================== building a table */

/* A copy of the string field k of the table on top (NULL when absent). */
static char *field_string(lua_State *L, const char *k, int required, const char *what) {
  const char *s;
  char *d;
  size_t len;
  lua_getfield(L, -1, k);
  if (lua_isnil(L, -1) && !required) {
    lua_pop(L, 1);
    return NULL;
  }
  if (lua_type(L, -1) != LUA_TSTRING)
    luaL_error(L, "bad stack table: %s: field '%s' must be a string", what, k);
  s = lua_tolstring(L, -1, &len);
  d = malloc(len + 1);
  if (d == NULL)
    luaL_error(L, "out of memory");
  memcpy(d, s, len + 1);
  lua_pop(L, 1);
  return d;
}

/* The integer field k of the table on top, from min to max (def when absent). */
static lua_Integer field_int(lua_State *L, const char *k, lua_Integer def, lua_Integer min,
                             lua_Integer max, const char *what) {
  lua_Integer v;
  int isnum;
  lua_getfield(L, -1, k);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return def;
  }
  v = lua_tointegerx(L, -1, &isnum);
  if (!isnum || v < min || v > max)
    luaL_error(L, "bad stack table: %s: field '%s' must be an integer from %I to %I", what, k,
               min, max);
  lua_pop(L, 1);
  return v;
}

/* The list field k of table t: its length (0 when absent), pushed. */
static size_t push_list(lua_State *L, int t, const char *k) {
  lua_Integer n;
  if (lua_getfield(L, t, k) == LUA_TNIL)
    return 0;
  if (!lua_istable(L, -1))
    luaL_error(L, "bad stack table: field '%s' must be a list", k);
  n = luaL_len(L, -1);
  return n > 0 ? (size_t)n : 0;
}

static void *alloc_list(lua_State *L, size_t n, size_t size) {
  void *p = lgp_calloc_array(n ? n : 1, size);
  if (p == NULL)
    luaL_error(L, "out of memory");
  return p;
}

/* The table userdata: its __gc frees what an error leaves behind. */
static int tab_gc(lua_State *L) {
  lgp_stacktab_free(luaL_checkudata(L, 1, "lgprof.StackTable"));
  return 0;
}

#define U32MAX ((lua_Integer)UINT32_MAX)

/* Reads the Lua description at index t (stackprofile_spec.lua, lsampled.h)
** into tab; raises on a malformed one. Each function is one frame of its
** own (its start address, first line). */
static void read_table(lua_State *L, int t, lgp_stacktab *tab) {
  size_t i, n, j;
  n = push_list(L, t, "dsos");
  tab->dsos = alloc_list(L, n, sizeof *tab->dsos);
  for (i = 0; i < n; i++) {
    lua_geti(L, -1, (lua_Integer)i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    tab->ndsos = i + 1;
    tab->dsos[i].path = field_string(L, "path", 1, "dso");
    tab->dsos[i].status = (uint8_t)field_int(L, "status", LGP_DSO_OK, 0, LGP_DSO_UNKNOWN, "dso");
    tab->dsos[i].is_kernel = (uint8_t)field_int(L, "is_kernel", 0, 0, 1, "dso");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  n = push_list(L, t, "files");
  tab->files = alloc_list(L, n, sizeof *tab->files);
  for (i = 0; i < n; i++) {
    lua_geti(L, -1, (lua_Integer)i + 1);
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "bad stack table: files must be strings");
    tab->files[i] = malloc(luaL_len(L, -1) + 1);
    if (tab->files[i] == NULL)
      luaL_error(L, "out of memory");
    strcpy(tab->files[i], lua_tostring(L, -1));
    tab->nfiles = i + 1;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  n = push_list(L, t, "funcs");
  tab->funcs = alloc_list(L, n, sizeof *tab->funcs);
  tab->frame_defs = alloc_list(L, n, sizeof *tab->frame_defs);
  for (i = 0; i < n; i++) {
    lgp_st_func *f = &tab->funcs[i];
    lua_geti(L, -1, (lua_Integer)i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    tab->nfuncs = tab->nframe_defs = i + 1;
    f->name = field_string(L, "name", 1, "function");
    f->dso = (uint32_t)(field_int(L, "dso", 1, 1, (lua_Integer)tab->ndsos, "function") - 1);
    f->start = (uint64_t)field_int(L, "start", 0, 0, LUA_MAXINTEGER, "function");
    f->end = (uint64_t)field_int(L, "end", (lua_Integer)f->start, 0, LUA_MAXINTEGER, "function");
    f->file = (uint32_t)(field_int(L, "file", 0, 0, (lua_Integer)tab->nfiles, "function") - 1);
    f->line = (uint32_t)field_int(L, "line", 0, 0, U32MAX, "function");
    f->is_inline = (uint8_t)field_int(L, "is_inline", 0, 0, 1, "function");
    f->is_unknown = (uint8_t)field_int(L, "is_unknown", 0, 0, 1, "function");
    f->is_anonymous = (uint8_t)field_int(L, "is_anonymous", 0, 0, 1, "function");
    tab->frame_defs[i].func = (uint32_t)i;
    tab->frame_defs[i].addr = f->start;
    tab->frame_defs[i].file = f->file;
    tab->frame_defs[i].line = f->line;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  n = push_list(L, t, "threads");
  tab->threads = alloc_list(L, n, sizeof *tab->threads);
  for (i = 0; i < n; i++) {
    lua_geti(L, -1, (lua_Integer)i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    tab->nthreads = i + 1;
    tab->threads[i].pid = (uint32_t)field_int(L, "pid", 0, 0, U32MAX, "thread");
    tab->threads[i].tid = (uint32_t)field_int(L, "tid", tab->threads[i].pid, 0, U32MAX, "thread");
    tab->threads[i].comm = field_string(L, "comm", 0, "thread");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  n = push_list(L, t, "events");
  tab->events = alloc_list(L, n, sizeof *tab->events);
  for (i = 0; i < n; i++) {
    lua_geti(L, -1, (lua_Integer)i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    tab->nevents = i + 1;
    tab->events[i].name = field_string(L, "name", 1, "event");
    lua_getfield(L, -1, "is_time");
    tab->events[i].is_time = lua_toboolean(L, -1);
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  n = push_list(L, t, "stacks");
  tab->stacks = alloc_list(L, n, sizeof *tab->stacks);
  for (i = 0; i < n; i++) { /* frame counts first */
    lua_geti(L, -1, (lua_Integer)i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    if (lua_getfield(L, -1, "frames") != LUA_TTABLE || luaL_len(L, -1) < 1)
      luaL_error(L, "bad stack table: a stack's frames must be a non-empty list");
    tab->nframes += (size_t)luaL_len(L, -1);
    lua_pop(L, 2);
  }
  tab->frames = alloc_list(L, tab->nframes, sizeof *tab->frames);
  tab->nframes = 0;
  for (i = 0; i < n; i++) {
    lgp_st_stack *s = &tab->stacks[i];
    size_t depth;
    lua_geti(L, -1, (lua_Integer)i + 1);
    s->thread = (uint32_t)(field_int(L, "thread", 1, 1, (lua_Integer)tab->nthreads, "stack") - 1);
    s->event = (uint32_t)(field_int(L, "event", 1, 1, (lua_Integer)tab->nevents, "stack") - 1);
    s->samples = (uint64_t)field_int(L, "samples", 1, 0, LUA_MAXINTEGER, "stack");
    s->weight = (uint64_t)field_int(L, "weight", 0, 0, LUA_MAXINTEGER, "stack");
    s->truncated = (uint8_t)field_int(L, "truncated", 0, 0, 1, "stack");
    lua_getfield(L, -1, "frames");
    depth = (size_t)luaL_len(L, -1);
    s->first = (uint32_t)tab->nframes;
    s->depth = (uint32_t)depth;
    for (j = 0; j < depth; j++) { /* leaf first, function numbers */
      lua_Integer f;
      int isnum;
      lua_geti(L, -1, (lua_Integer)j + 1);
      f = lua_tointegerx(L, -1, &isnum);
      if (!isnum || f < 1 || (size_t)f > tab->nfuncs)
        luaL_error(L, "bad stack table: a frame must be a function number");
      tab->frames[tab->nframes++] = (uint32_t)(f - 1);
      lua_pop(L, 1);
    }
    tab->nstacks = i + 1;
    tab->samples += s->samples;
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
}

/* A combined profile keeps the gmon profile whose calls it took (its
** user value 4) for its filters. */

/* Records the gmon profile on top (popped) as that of the profile at idx. */
static void keep_calls(lua_State *L, int idx) {
  lua_setiuservalue(L, idx, 4);
}

/* Pushes the gmon profile whose calls the combined profile at idx took
** (nil: none) and returns its model: NULL when there is none, raises when
** it was closed since. */
static const lgp_profile *push_calls_of(lua_State *L, int idx, const lprofile *lp) {
  lprofile *cp;
  idx = lua_absindex(L, idx);
  if (!lp->p->stacks->has_calls) {
    lua_pushnil(L);
    return NULL;
  }
  lua_getiuservalue(L, idx, 4);
  cp = luaL_testudata(L, -1, PROFILE_T);
  if (cp == NULL || cp->p == NULL)
    luaL_error(L, "filter: the gmon profile whose calls this profile has was closed");
  return cp->p;
}

/* Pushes a Profile built from *tab (taken), with the calls of the gmon
** profile calls when not NULL, and the options at opts_idx (an
** lgprof.Options userdata, kept with the profile for its filter); nil,
** message on failure. */
static int push_stack_profile(lua_State *L, lgp_stacktab *tab, const lgp_profile *calls,
                              int opts_idx) {
  const lgp_options *opts = luaL_checkudata(L, opts_idx, "lgprof.Options");
  lprofile *lp;
  lgp_profile *p;
  lgp_err err = {0, ""};
  opts_idx = lua_absindex(L, opts_idx);
  lp = lcore_new_profile(L, 0);
  lua_pushvalue(L, opts_idx);
  lua_setiuservalue(L, -2, 3);
  p = malloc(sizeof *p);
  if (p == NULL) {
    lgp_stacktab_free(tab);
    return luaL_error(L, "out of memory");
  }
  if ((calls != NULL ? lgp_profile_from_stacks_calls(p, tab, calls, opts, &err)
                     : lgp_profile_from_stacks(p, tab, opts, &err)) != 0) {
    free(p);
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lcore_set_profile(L, lp, p, 1, NULL);
  return 1;
}

/* core._profile_from_stacks(table [, options]) -> Profile | nil, message */
static int l_profile_from_stacks(lua_State *L) {
  lgp_stacktab *tab;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  lcore_new_options(L, 2);
  tab = lua_newuserdatauv(L, sizeof *tab, 0);
  memset(tab, 0, sizeof *tab);
  luaL_setmetatable(L, "lgprof.StackTable");
  read_table(L, 1, tab);
  return push_stack_profile(L, tab, NULL, 3);
}

/* {====================================================== streams */

/* A pipe, a FIFO or standard input can be read once: to know whether it
** holds a perf.data or a gmon.out its bytes are read whole, on first use,
** and kept in the registry's table STREAMS (path -> a userdata lgp_blob)
** for the reader that then opens it. */
#define STREAMS "lgprof.streams"
#define STREAM_T "lgprof.Stream"

static int stream_gc(lua_State *L) {
  lgp_gmon_blob_free(luaL_checkudata(L, 1, STREAM_T));
  return 0;
}

/* Is path read as a stream: "-" (standard input), a FIFO or a pipe (as
** /dev/stdin or <(...)), a socket? (A device is not: /dev/zero never ends,
** and the gmon reader reads what it is given, as before.) */
static int is_stream(const char *path) {
  struct stat st;
  if (strcmp(path, "-") == 0)
    return 1;
  return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

const lgp_blob *lcore_stream(lua_State *L, const char *path, lgp_err *err) {
  lgp_blob *b;
  if (!is_stream(path))
    return NULL;
  if (lua_getfield(L, LUA_REGISTRYINDEX, STREAMS) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, STREAMS);
  }
  if (lua_getfield(L, -1, path) == LUA_TUSERDATA) {
    b = lua_touserdata(L, -1);
    lua_pop(L, 2);
    return b; /* anchored by the table */
  }
  lua_pop(L, 1);
  b = lua_newuserdatauv(L, sizeof *b, 0);
  memset(b, 0, sizeof *b);
  luaL_setmetatable(L, STREAM_T);
  if (lgp_gmon_blob_load(b, path, err) != 0) {
    lua_pop(L, 2);
    return NULL;
  }
  lua_setfield(L, -2, path);
  lua_pop(L, 1);
  return b;
}

/* }====================================================== */

/* core.is_perfdata(path [, streams]) -> boolean: is it a perf.data file,
** by its magic? A regular file's first bytes are read; a stream (a FIFO, a
** pipe, standard input) is read whole, once (lcore_stream), unless streams
** is false (then it is no perf.data): one without a writer reads as empty,
** at once. */
static int l_is_perfdata(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int streams = lua_isnoneornil(L, 2) || lua_toboolean(L, 2);
  uint8_t head[8];
  ssize_t n = 0;
  struct stat st;
  int fd;
  lgp_err err = {0, ""};
  const lgp_blob *stream;
  if (is_stream(path)) {
    stream = streams ? lcore_stream(L, path, &err) : NULL;
    lua_pushboolean(L, stream != NULL && lgp_perf_is_perfdata(stream->data, stream->size));
    return 1;
  }
  /* stat first: even a non-blocking open of a FIFO lets its writer go on,
     and its bytes are lost when this end closes unread */
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd >= 0) {
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
      n = read(fd, head, sizeof head);
    close(fd);
  }
  lua_pushboolean(L, n == (ssize_t)sizeof head && lgp_perf_is_perfdata(head, sizeof head));
  return 1;
}

/* What a profile of stacks cannot do with open's options: NULL, or why. */
static const char *unsupported(const lgp_options *o) {
  size_t i;
  if (o->static_call_graph || o->static_arcs)
    return "a static call graph";
  if (o->map_file != NULL)
    return "a map file";
  if (o->symbol_file != NULL)
    return "a symbol file";
  for (i = 0; i < o->nspecs; i++)
    if (o->specs[i].table == LGP_INCL_ARCS || o->specs[i].table == LGP_EXCL_ARCS)
      return "arc specs (-k)";
  return NULL;
}

/* The reader's progress on stderr, one line rewritten in place (only ever
** set up when stderr is a terminal). */
static void show_progress(void *ud, uint64_t bytes, uint64_t samples, uint64_t binaries) {
  (void)ud;
  fprintf(stderr, "\rlgprof: %llu bytes read, %llu samples, %llu binaries",
          (unsigned long long)bytes, (unsigned long long)samples, (unsigned long long)binaries);
  fflush(stderr);
}

/* The off-CPU kinds of "S,D,R" (any of them, comma-separated) as
** lgp_perf_opts.off_kinds; 0 when the text is no such list. */
static unsigned off_kinds_of(const char *text) {
  unsigned k = 0;
  const char *p = text;
  for (;;) {
    switch (*p) {
    case 'S': case 's': k |= 1u << LGP_OFF_SLEEP; break;
    case 'D': case 'd': k |= 1u << LGP_OFF_DISK; break;
    case 'R': case 'r': k |= 1u << LGP_OFF_RUNNABLE; break;
    default: return 0;
    }
    p++;
    if (*p == '\0')
      return k;
    if (*p++ != ',')
      return 0;
  }
}

/* core._off_cpu_state(text) -> true | nil: --off-cpu-state's check. */
static int l_off_cpu_state(lua_State *L) {
  if (off_kinds_of(luaL_checkstring(L, 1)) == 0)
    luaL_pushfail(L);
  else
    lua_pushboolean(L, 1);
  return 1;
}

/* core._time_range(text) -> true | nil: --time-range's check (its
** resolution needs the recording). */
static int l_time_range(lua_State *L) {
  lgp_time_spec sp;
  if (lgp_time_spec_parse(luaL_checkstring(L, 1), &sp) != 0)
    luaL_pushfail(L);
  else
    lua_pushboolean(L, 1);
  return 1;
}

/* The option time_range (a string or a list of them) as *out, specs in a
** userdata left on the stack that keeps their texts alive; *n: how many.
** 0, or -1 with a message pushed when one is no range. */
static int time_specs(lua_State *L, int opts, const lgp_time_spec **out, size_t *n) {
  lgp_time_spec *specs;
  lua_Integer i, len;
  int t;
  *n = 0;
  *out = NULL;
  if (lua_isnil(L, opts))
    return 0;
  t = lua_getfield(L, opts, "time_range");
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (t == LUA_TSTRING) {
    lua_createtable(L, 1, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
  } else if (t != LUA_TTABLE) {
    luaL_error(L, "option 'time_range' must be a string or a list of strings");
  }
  len = luaL_len(L, -1);
  specs = lua_newuserdatauv(L, (size_t)(len > 0 ? len : 1) * sizeof *specs, 1);
  lua_insert(L, -2);
  lua_setiuservalue(L, -2, 1);  /* the strings live as long as the specs */
  lua_getiuservalue(L, -1, 1);
  for (i = 1; i <= len; i++) {
    const char *text;
    if (lua_rawgeti(L, -1, i) != LUA_TSTRING)
      luaL_error(L, "option 'time_range' must be a string or a list of strings");
    text = lua_tostring(L, -1);
    lua_pop(L, 1);
    if (lgp_time_spec_parse(text, &specs[i - 1]) != 0) {
      lua_pushfstring(L, "--time-range=%s: not a range (FROM,TO: seconds from the first sample, "
                      "percentages of the recording such as 10%%,20%%, or perf's timestamps)", text);
      return -1;
    }
  }
  lua_pop(L, 1);
  *n = (size_t)len;
  *out = specs;
  return 0;
}

/* The option search_dirs (a list of folder names) into o: the names stay
** in the options table (argument 3), the array in a userdata left on the
** stack for the call's length. */
static void search_dirs(lua_State *L, lgp_perf_opts *o) {
  const char **dirs;
  lua_Integer i, n;
  if (lua_isnil(L, 3) || lua_getfield(L, 3, "search_dirs") == LUA_TNIL) {
    if (!lua_isnil(L, 3))
      lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1))
    luaL_argerror(L, 3, "option 'search_dirs' must be a list of folder names");
  n = luaL_len(L, -1);
  dirs = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *dirs, 0);
  for (i = 1; i <= n; i++) {
    if (lua_geti(L, -2, i) != LUA_TSTRING)
      luaL_argerror(L, 3, "option 'search_dirs' must be a list of folder names");
    dirs[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lua_remove(L, -2); /* the list, still held by the options table */
  o->search_dirs = dirs;
  o->nsearch_dirs = (size_t)n;
}

/* core.open_stacks(exe | nil, path [, options [, calls]]) -> Profile | nil,
** message: options as core.open's (demangle, zeros, the symspecs), less
** those unsupported() names, and the reader's: event, symfs, buildid_dir,
** search_dirs (a list), no_inline, kallsyms ("": none), progress (true: the reader's progress on
** stderr when stderr is a terminal). calls: a gmon Profile (not a view) of
** the same run, whose calls the profile takes (stackprofile.h); it is kept
** alive with the new profile (keep_calls) for the new profile's filters. */
static int l_open_stacks(lua_State *L) {
  const char *exe = luaL_optstring(L, 1, NULL);
  const char *path = luaL_checkstring(L, 2);
  const char *style = NULL, *why;
  int demangle = 1, zeros, progress, rc, opts_idx;
  lgp_perf_opts popts;
  lgp_stacktab *tab;
  lgp_options *opts;
  lprofile *lp;
  lgp_err err = {0, ""};
  const lgp_profile *calls = NULL;
  lua_settop(L, 4);
  if (!lua_isnil(L, 4)) {
    lprofile *cp = lcore_check_profile(L, 4);
    if (lgp_is_view(cp->p) || cp->p->stacks != NULL || cp->p->line_granularity)
      luaL_argerror(L, 4, "a gmon profile (not a view, nor of lines) expected");
    calls = cp->p;
  }
  if (!lua_isnil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    demangle = lcore_opt_demangle(L, 3, &style);
  }
  zeros = lcore_opt_bool(L, 3, "zeros", 0);
  memset(&popts, 0, sizeof popts);
  popts.event = lcore_opt_string(L, 3, "event", NULL);
  popts.symfs = lcore_opt_string(L, 3, "symfs", NULL);
  popts.buildid_dir = lcore_opt_string(L, 3, "buildid_dir", NULL);
  popts.no_inline = lcore_opt_bool(L, 3, "no_inline", 0);
  popts.kallsyms = lcore_opt_string(L, 3, "kallsyms", NULL);
  popts.sample_times = lcore_opt_bool(L, 3, "sample_times", 0);
  {
    const char *kinds = lcore_opt_string(L, 3, "off_cpu_state", NULL);
    if (kinds && (popts.off_kinds = off_kinds_of(kinds)) == 0) {
      luaL_pushfail(L);
      lua_pushfstring(L, "--off-cpu-state=%s: not a list of S, D and R", kinds);
      return 2;
    }
  }
  if (time_specs(L, 3, &popts.ranges, &popts.nranges) != 0) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  popts.image = exe;
  search_dirs(L, &popts);
  progress = lcore_opt_bool(L, 3, "progress", 0) && isatty(STDERR_FILENO);
  if (progress)
    popts.progress = show_progress;
  opts = lcore_new_options(L, 3);
  opts_idx = lua_gettop(L);
  if ((why = unsupported(opts)) != NULL) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s is not available for sampled stacks (perf.data)", path, why);
    return 2;
  }
  tab = lua_newuserdatauv(L, sizeof *tab, 0);
  memset(tab, 0, sizeof *tab);
  luaL_setmetatable(L, "lgprof.StackTable");
  if (is_stream(path)) { /* read once, maybe already by is_perfdata */
    const lgp_blob *b = lcore_stream(L, path, &err);
    rc = b == NULL ? -1 : lgp_perf_stacks_bytes(tab, path, b->data, b->size, &popts, &err);
  } else {
    rc = lgp_perf_stacks(tab, path, &popts, &err);
  }
  if (progress) /* the progress line cleared */
    fputs("\r\033[K", stderr);
  if (rc != 0) {
    lgp_stacktab_free(tab);
    luaL_pushfail(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  if (push_stack_profile(L, tab, calls, opts_idx) != 1)
    return 2;
  lp = lua_touserdata(L, -1);
  if (calls != NULL) {
    lua_pushvalue(L, 4);
    keep_calls(L, -2);
  }
  if (!demangle || style != NULL) { /* names as asked */
    lgp_names_free(&lp->names);
    if (lgp_names_init(&lp->names, lp->p->graph.nsyms + lp->p->graph.nsyms / 2 + 1, demangle,
                       style) != 0)
      return luaL_error(L, "out of memory");
  }
  lp->zeros = zeros;
  return 1;
}

/* }====================================================== */

/* {====================================================== profile methods */

static const lgp_stackprof *check_stacks(lua_State *L, lprofile **lpp) {
  lprofile *lp = lcore_check_profile(L, 1);
  const lgp_stackprof *sp = lgp_stacks_of(lp->p);
  if (sp == NULL)
    luaL_error(L, "not a profile of sampled stacks (perf.data): a gmon profile has no stacks, "
               "threads or binaries");
  if (lpp != NULL)
    *lpp = lp;
  return sp;
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v) {
  if (v == NULL)
    return;
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

/* weight in seconds for time events, else the event's count */
static void set_weight(lua_State *L, const lgp_profile *p, uint64_t samples, uint64_t weight) {
  set_int(L, "samples", (lua_Integer)samples);
  set_int(L, "weight", (lua_Integer)weight);
  lua_pushnumber(L, lgp_seconds(p, (double)weight));
  lua_setfield(L, -2, "seconds");
}

/* {====================================================== iterators */

/* The next element of the list in upvalue 1 (upvalue 2: the position). */
static int iter_list(lua_State *L) {
  lua_Integer i = lua_tointeger(L, lua_upvalueindex(2)) + 1;
  if (lua_geti(L, lua_upvalueindex(1), i) == LUA_TNIL)
    return 1;
  lua_pushinteger(L, i);
  lua_replace(L, lua_upvalueindex(2));
  return 1;
}

/* Replaces the list on top by an iterator over it. The groups of a
** profile are few (threads, processes, binaries: counted in one pass over
** the stacks), so they are made at once and handed out one at a time, as
** every other collection of the API is. */
static int push_list_iter(lua_State *L) {
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_list, 2);
  return 1;
}

/* }====================================================== */

/* The list, in the table's order, of { pid, tid, comm, samples, weight,
** seconds } of the threads with samples (profile:threads() iterates it). */
static int list_threads(lua_State *L) {
  lprofile *lp;
  const lgp_stackprof *sp = check_stacks(L, &lp);
  const lgp_stacktab *t = &sp->tab;
  uint64_t *samples = lgp_calloc_array(t->nthreads + 1, sizeof *samples);
  uint64_t *weight = lgp_calloc_array(t->nthreads + 1, sizeof *weight);
  size_t i;
  lua_Integer k;
  if (samples == NULL || weight == NULL) {
    free(samples);
    free(weight);
    return luaL_error(L, "out of memory");
  }
  for (i = 0; i < t->nstacks; i++) {
    samples[t->stacks[i].thread] += t->stacks[i].samples;
    weight[t->stacks[i].thread] += t->stacks[i].weight;
  }
  lua_createtable(L, (int)t->nthreads, 0);
  for (i = 0, k = 0; i < t->nthreads; i++) {
    if (samples[i] == 0)
      continue; /* a thread no sample of this profile (or view) is from */
    lua_createtable(L, 0, 6);
    set_int(L, "pid", t->threads[i].pid);
    set_int(L, "tid", t->threads[i].tid);
    set_str(L, "comm", t->threads[i].comm);
    set_weight(L, lp->p, samples[i], weight[i]);
    lua_rawseti(L, -2, ++k);
  }
  free(samples);
  free(weight);
  return 1;
}

/* profile:threads(): an iterator over list_threads'. */
static int profile_threads(lua_State *L) {
  list_threads(L);
  return push_list_iter(L);
}

/* profile:processes(): an iterator, by pid, over { pid, comm (its main
** thread's, else its first thread's), threads (how many), samples, weight,
** seconds }, made from the threads' list. */
static int profile_processes(lua_State *L) {
  lua_Integer n, i, k = 0;
  list_threads(L);
  n = luaL_len(L, -1);
  lua_newtable(L);   /* pid -> entry */
  lua_newtable(L);   /* the list */
  for (i = 1; i <= n; i++) {
    lua_Integer pid, tid;
    lua_geti(L, -3, i);
    lua_getfield(L, -1, "pid");
    pid = lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "tid");
    tid = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (lua_rawgeti(L, -3, pid) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_createtable(L, 0, 6);
      set_int(L, "pid", pid);
      set_int(L, "threads", 0);
      set_int(L, "samples", 0);
      set_int(L, "weight", 0);
      lua_pushnumber(L, 0.0);
      lua_setfield(L, -2, "seconds");
      lua_pushvalue(L, -1);
      lua_rawseti(L, -5, pid);   /* bypid */
      lua_pushvalue(L, -1);
      lua_rawseti(L, -4, ++k);   /* the list */
    }
    /* stack: threads, bypid, list, thread, process */
    {
      const char *fields[] = {"threads", "samples", "weight", "seconds"};
      int f;
      for (f = 0; f < 4; f++) {
        lua_getfield(L, -1, fields[f]);
        if (f == 0)
          lua_pushinteger(L, 1);
        else
          lua_getfield(L, -3, fields[f]);
        lua_arith(L, LUA_OPADD);
        lua_setfield(L, -2, fields[f]);
      }
    }
    lua_getfield(L, -1, "comm");
    if (lua_isnil(L, -1) || tid == pid) {
      lua_getfield(L, -3, "comm");
      lua_setfield(L, -3, "comm");
    }
    lua_pop(L, 3);
  }
  /* by pid */
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "sort");
  lua_pushvalue(L, -3);
  luaL_loadstring(L, "local a, b = ... return a.pid < b.pid");
  lua_call(L, 2, 0);
  lua_pop(L, 1);
  return push_list_iter(L);
}

/* profile:dsos(): an iterator, in the table's order, over { path, found,
** build_id (hex), status, is_kernel, samples, weight, seconds } where
** samples and weight are those of the samples whose leaf is in the binary. */
static int profile_dsos(lua_State *L) {
  lprofile *lp;
  const lgp_stackprof *sp = check_stacks(L, &lp);
  const lgp_stacktab *t = &sp->tab;
  uint64_t *samples = lgp_calloc_array(t->ndsos + 1, sizeof *samples);
  uint64_t *weight = lgp_calloc_array(t->ndsos + 1, sizeof *weight);
  size_t i, b;
  if (samples == NULL || weight == NULL) {
    free(samples);
    free(weight);
    return luaL_error(L, "out of memory");
  }
  for (i = 0; i < t->nstacks; i++) {
    uint32_t d = t->funcs[t->frame_defs[t->frames[t->stacks[i].first]].func].dso;
    samples[d] += t->stacks[i].samples;
    weight[d] += t->stacks[i].weight;
  }
  lua_createtable(L, (int)t->ndsos, 0);
  for (i = 0; i < t->ndsos; i++) {
    const lgp_st_dso *d = &t->dsos[i];
    lua_createtable(L, 0, 8);
    set_str(L, "path", d->path);
    set_str(L, "found", d->found);
    if (d->build_id_len > 0) {
      char hex[41];
      for (b = 0; b < d->build_id_len && b < 20; b++)
        snprintf(hex + 2 * b, 3, "%02x", d->build_id[b]);
      set_str(L, "build_id", hex);
    }
    set_str(L, "status", lgp_st_dso_status_name(d->status));
    lua_pushboolean(L, d->is_kernel);
    lua_setfield(L, -2, "is_kernel");
    set_weight(L, lp->p, samples[i], weight[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  free(samples);
  free(weight);
  return push_list_iter(L);
}

/* profile:_defines(i, symbol, as_origin): does the profile's i-th binary
** (profile:dsos()' order) define a function of that raw name, sampled or
** not (as_origin: of its family, a clone's origin or a clone of it)? true,
** false, or nil when its symbols were not read (not an ELF file opened: the
** kernel, JIT code, a missing file). A binary search of its names. */
static int profile_defines(lua_State *L) {
  const lgp_stackprof *sp = check_stacks(L, NULL);
  lua_Integer i = luaL_checkinteger(L, 2);
  const char *name = luaL_checkstring(L, 3);
  int as_origin = lua_toboolean(L, 4), r;
  luaL_argcheck(L, i >= 1 && (lua_Unsigned)i <= sp->tab.ndsos, 2, "no such binary");
  r = lgp_st_dso_defines(&sp->tab.dsos[i - 1], name, as_origin);
  if (r < 0)
    lua_pushnil(L);
  else
    lua_pushboolean(L, r);
  return 1;
}

/* The next stack of the profile in upvalue 1 (upvalue 2: the position):
** { frames = { Function, ... } (root first, as lgprof.stacks), samples,
** weight, seconds, value (microseconds, as lgprof.stacks; time events
** only), pid, tid, comm, event, truncated }, made when asked for. */
static int iter_stacks(lua_State *L) {
  lprofile *lp;
  const lgp_stackprof *sp;
  const lgp_stacktab *t;
  lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
  uint32_t d;
  lua_settop(L, 0);
  lua_pushvalue(L, lua_upvalueindex(1));
  sp = check_stacks(L, &lp); /* (closed since: an error) */
  t = &sp->tab;
  if ((size_t)i >= t->nstacks)
    return 0;
  lua_pushinteger(L, i + 1);
  lua_replace(L, lua_upvalueindex(2));
  {
    const lgp_st_stack *s = &t->stacks[i];
    const lgp_st_thread *th = &t->threads[s->thread];
    lua_createtable(L, 0, 10);
    lua_createtable(L, (int)s->depth, 0);
    for (d = 0; d < s->depth; d++) {
      uint32_t f = t->frame_defs[t->frames[s->first + s->depth - 1 - d]].func;
      lcore_push_node(L, 1, lp->p, sp->node_of[f]);
      lua_rawseti(L, -2, (lua_Integer)d + 1);
    }
    lua_setfield(L, -2, "frames");
    set_weight(L, lp->p, s->samples, s->weight);
    if (sp->is_time) {
      lua_pushinteger(L, (lua_Integer)((s->weight + 500) / 1000));
      lua_setfield(L, -2, "value");
    }
    set_int(L, "pid", th->pid);
    set_int(L, "tid", th->tid);
    set_str(L, "comm", th->comm);
    set_str(L, "event", t->events[s->event].name);
    lua_pushboolean(L, s->truncated);
    lua_setfield(L, -2, "truncated");
  }
  return 1;
}

/* profile:stacks(): an iterator over the distinct stacks, in the table's
** order (iter_stacks' entries). */
static int profile_stacks(lua_State *L) {
  check_stacks(L, NULL);
  lua_settop(L, 1);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_stacks, 2);
  return 1;
}

/* profile:sample_times([{ pid =, tid = }]): the samples in time order (the
** profile opened with sample_times = true), an lgprof.SampleTimes object:
** an iterator (for s in profile:sample_times() do), and a list (#, [i],
** ipairs) whose entries are made when asked for: { time (seconds from the
** recording's first sample), perf_time (perf's clock, seconds), seconds
** (its weight: the period, or an off-CPU interval's length; a count for an
** event that is not time), weight (the same in the recording's unit:
** nanoseconds, or the count), stack (its index in profile:stacks()), pid,
** tid, comm, off_cpu (an off-CPU interval, whose time is its start; a
** sample's time is its period's end) }. pid and tid (an integer or a list
** of them) keep the samples of those processes or threads. User values:
** the profile, the threads kept (one byte a thread) or nil. */
#define SAMPLE_TIMES_T "lgprof.SampleTimes"

typedef struct sample_times {
  size_t next;     /* the iteration's next position in the table's times */
  size_t *kept;    /* the positions kept, when a list of them was asked for
                      (#, [i]) and threads were chosen; else NULL */
  size_t nkept;
  int counted;     /* kept and nkept are made */
} sample_times;

static int is_off_cpu(const lgp_stacktab *t, uint32_t stack) {
  const lgp_st_stack *s = &t->stacks[stack];
  const char *dso = t->dsos[t->funcs[t->frame_defs[t->frames[s->first]].func].dso].path;
  return dso != NULL && strcmp(dso, "[off-cpu]") == 0;
}

/* The profile's table of the object at idx (its profile still open, else
** an error); *keep: the threads kept, or NULL (all). */
static const lgp_stacktab *times_of(lua_State *L, int idx, const lgp_stackprof **spp,
                                    const uint8_t **keep) {
  lprofile *lp = lcore_handle_profile(L, idx);
  const lgp_stackprof *sp = lgp_stacks_of(lp->p);
  lua_getiuservalue(L, idx, 2);
  *keep = lua_touserdata(L, -1);
  lua_pop(L, 1);
  *spp = sp;
  return &sp->tab;
}

/* Pushes the entry of the table's time i. */
static void push_sample(lua_State *L, const lgp_stackprof *sp, size_t i) {
  const lgp_stacktab *t = &sp->tab;
  const lgp_st_time *e = &t->times[i];
  const lgp_st_thread *th = &t->threads[t->stacks[e->stack].thread];
  lua_createtable(L, 0, 9);
  /* (a switch record may come before the first sample) */
  lua_pushnumber(L, ((double)e->time - (double)t->time_first) / 1e9);
  lua_setfield(L, -2, "time");
  lua_pushnumber(L, (double)e->time / 1e9);
  lua_setfield(L, -2, "perf_time");
  lua_pushnumber(L, sp->is_time ? (double)e->weight / 1e9 : (double)e->weight);
  lua_setfield(L, -2, "seconds");
  set_int(L, "weight", (lua_Integer)e->weight);
  set_int(L, "stack", (lua_Integer)e->stack + 1);
  set_int(L, "pid", th->pid);
  set_int(L, "tid", th->tid);
  set_str(L, "comm", th->comm);
  lua_pushboolean(L, is_off_cpu(t, e->stack));
  lua_setfield(L, -2, "off_cpu");
}

/* __call: the next sample kept, or nil at the end. */
static int sample_times_call(lua_State *L) {
  sample_times *st = luaL_checkudata(L, 1, SAMPLE_TIMES_T);
  const lgp_stackprof *sp;
  const uint8_t *keep;
  const lgp_stacktab *t = times_of(L, 1, &sp, &keep);
  size_t i = st->next;
  while (i < t->ntimes && keep != NULL && !keep[t->stacks[t->times[i].stack].thread])
    i++;
  if (i >= t->ntimes) {
    st->next = t->ntimes;
    return 0;
  }
  st->next = i + 1;
  push_sample(L, sp, i);
  return 1;
}

/* The positions kept (made once, for # and [i] with threads chosen). */
static void count_kept(lua_State *L, sample_times *st, const lgp_stacktab *t, const uint8_t *keep) {
  size_t i, n = 0;
  if (st->counted)
    return;
  if (keep != NULL) {
    for (i = 0; i < t->ntimes; i++)
      n += keep[t->stacks[t->times[i].stack].thread] != 0;
    st->kept = lgp_alloc_array(n ? n : 1, sizeof *st->kept);
    if (st->kept == NULL)
      luaL_error(L, "out of memory");
    for (i = 0, n = 0; i < t->ntimes; i++)
      if (keep[t->stacks[t->times[i].stack].thread])
        st->kept[n++] = i;
  } else {
    n = t->ntimes;
  }
  st->nkept = n;
  st->counted = 1;
}

static int sample_times_len(lua_State *L) {
  sample_times *st = luaL_checkudata(L, 1, SAMPLE_TIMES_T);
  const lgp_stackprof *sp;
  const uint8_t *keep;
  const lgp_stacktab *t = times_of(L, 1, &sp, &keep);
  count_kept(L, st, t, keep);
  lua_pushinteger(L, (lua_Integer)st->nkept);
  return 1;
}

/* __index: the i-th sample kept (1-based), nil past the end or for any
** other key. */
static int sample_times_index(lua_State *L) {
  sample_times *st = luaL_checkudata(L, 1, SAMPLE_TIMES_T);
  const lgp_stackprof *sp;
  const uint8_t *keep;
  const lgp_stacktab *t;
  lua_Integer k;
  int isnum;
  k = lua_tointegerx(L, 2, &isnum);
  if (!isnum)
    return 0;
  t = times_of(L, 1, &sp, &keep);
  count_kept(L, st, t, keep);
  if (k < 1 || (lua_Unsigned)k > st->nkept)
    return 0;
  push_sample(L, sp, st->kept != NULL ? st->kept[k - 1] : (size_t)(k - 1));
  return 1;
}

static int sample_times_gc(lua_State *L) {
  sample_times *st = luaL_checkudata(L, 1, SAMPLE_TIMES_T);
  free(st->kept);
  st->kept = NULL;
  return 0;
}

static int wanted(lua_State *L, int idx, lua_Integer n, const char *s);

static int profile_sample_times(lua_State *L) {
  static const char *const keys[] = {"pid", "tid", NULL};
  lprofile *lp;
  const lgp_stackprof *sp = check_stacks(L, &lp);
  const lgp_stacktab *t = &sp->tab;
  sample_times *st;
  lua_settop(L, 2);
  if (lgp_is_view(lp->p))
    return luaL_error(L, "profile:sample_times(): a view has no samples of its own: ask its profile");
  if (t->times == NULL && t->nstacks > 0)
    return luaL_error(L, "profile:sample_times(): open the profile with the option sample_times = true");
  st = lua_newuserdatauv(L, sizeof *st, 2); /* 3 */
  memset(st, 0, sizeof *st);
  luaL_setmetatable(L, SAMPLE_TIMES_T);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, 3, 1);
  if (!lua_isnil(L, 2)) {
    uint8_t *keep;
    size_t i;
    int k;
    luaL_checktype(L, 2, LUA_TTABLE);
    lcore_check_fields(L, 2, keys);
    for (k = 0; keys[k] != NULL; k++) {
      int ty = lua_getfield(L, 2, keys[k]);
      if (ty != LUA_TNIL && ty != LUA_TTABLE && !lua_isinteger(L, -1))
        luaL_error(L, "bad argument #1 to 'sample_times' (option '%s' must be an integer or a list of "
                   "them)", keys[k]);
    } /* 4, 5: pid, tid */
    keep = lua_newuserdatauv(L, t->nthreads ? t->nthreads : 1, 0);
    for (i = 0; i < t->nthreads; i++)
      keep[i] = (lua_isnil(L, 4) || wanted(L, 4, t->threads[i].pid, NULL)) &&
                (lua_isnil(L, 5) || wanted(L, 5, t->threads[i].tid, NULL));
    lua_setiuservalue(L, 3, 2);
  }
  lua_settop(L, 3);
  return 1;
}

/* profile:_measured_stacks(max_depth, least_share): the stacks as
** lgprof.stacks' writers take them (lgp_stacks_measured), cut and merged:
** a list of { frames = { Function, ... } (root first), seconds }, in the
** order first met. */
#define MEASURED_T "lgprof.MeasuredStacks"

static int measured_gc(lua_State *L) {
  lgp_measured_free(luaL_checkudata(L, 1, MEASURED_T));
  return 0;
}

/* An empty lgp_measured in a userdata pushed on the stack: a Lua error
** while it is filled or read frees it. */
static lgp_measured *push_measured(lua_State *L) {
  lgp_measured *m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  if (luaL_newmetatable(L, MEASURED_T)) {
    lua_pushcfunction(L, measured_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return m;
}

static int profile_measured_stacks(lua_State *L) {
  lprofile *lp;
  lgp_measured *m;
  lua_Integer max_depth;
  double least_share;
  size_t i;
  check_stacks(L, &lp);
  max_depth = luaL_checkinteger(L, 2);
  least_share = luaL_checknumber(L, 3);
  luaL_argcheck(L, max_depth >= 1, 2, "max_depth must be at least 1");
  lua_settop(L, 1);
  m = push_measured(L);
  if (lgp_stacks_measured(m, lp->p, (size_t)max_depth, least_share) != 0)
    return luaL_error(L, "not enough memory");
  lua_createtable(L, m->nmerged > INT_MAX ? INT_MAX : (int)m->nmerged, 0);
  for (i = 0; i < m->nmerged; i++) {
    uint32_t e;
    lua_Integer depth = 0, d;
    for (e = m->merged[i]; e != LGP_MEASURED_ROOT; e = m->parent[e])
      depth++;
    lua_createtable(L, 0, 2);
    lua_createtable(L, depth > INT_MAX ? INT_MAX : (int)depth, 0);
    for (d = depth, e = m->merged[i]; d >= 1; d--, e = m->parent[e]) {
      lcore_push_node(L, 1, lp->p, m->node[e]);
      lua_rawseti(L, -2, d);
    }
    lua_setfield(L, -2, "frames");
    lua_pushnumber(L, m->seconds[i]);
    lua_setfield(L, -2, "seconds");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lgp_measured_free(m);
  return 1;
}

/* profile:_measured_paths(max_depth): the recorded stacks as the tree of
** their paths from the root (each stack's frames nearest the root, at most
** max_depth), uncut: { node = { id, ... }, parent = { entry, ... },
** self = { seconds, ... }, total = { seconds, ... }, funcs = { [id] =
** Function } }, entry i the path ending at profile node node[i] under
** entry parent[i] (0: at the root; a parent comes before its children),
** self[i] the weight of the stacks ending there, total[i] of those through
** it. For pictures that merge two profiles' stacks
** (lgprof.analysis.difftree) without a Lua table per stack and frame. */
static int profile_measured_paths(lua_State *L) {
  lprofile *lp;
  lgp_measured *m;
  lua_Integer max_depth;
  double *self;
  size_t i;
  check_stacks(L, &lp);
  max_depth = luaL_checkinteger(L, 2);
  luaL_argcheck(L, max_depth >= 1, 2, "max_depth must be at least 1");
  lua_settop(L, 1);
  m = push_measured(L);
  /* (least share 0: no cut, every distinct path kept) */
  if (lgp_stacks_measured(m, lp->p, (size_t)max_depth, 0.0) != 0)
    return luaL_error(L, "not enough memory");
  self = lua_newuserdatauv(L, (m->n ? m->n : 1) * sizeof *self, 0);
  for (i = 0; i < m->n; i++)
    self[i] = 0;
  for (i = 0; i < m->nmerged; i++)
    self[m->merged[i]] += m->seconds[i];
  lua_createtable(L, 0, 5);
  lua_createtable(L, m->n > INT_MAX ? INT_MAX : (int)m->n, 0);
  for (i = 0; i < m->n; i++) {
    lua_pushinteger(L, (lua_Integer)m->node[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "node");
  lua_createtable(L, m->n > INT_MAX ? INT_MAX : (int)m->n, 0);
  for (i = 0; i < m->n; i++) {
    lua_pushinteger(L, m->parent[i] == LGP_MEASURED_ROOT ? 0 : (lua_Integer)m->parent[i] + 1);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "parent");
  lua_createtable(L, m->n > INT_MAX ? INT_MAX : (int)m->n, 0);
  for (i = 0; i < m->n; i++) {
    lua_pushnumber(L, self[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "self");
  lua_createtable(L, m->n > INT_MAX ? INT_MAX : (int)m->n, 0);
  for (i = 0; i < m->n; i++) {
    lua_pushnumber(L, m->weight[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "total");
  /* each distinct node's object, once */
  lua_newtable(L);
  for (i = 0; i < m->n; i++) {
    if (lua_rawgeti(L, -1, (lua_Integer)m->node[i]) == LUA_TNIL) {
      lua_pop(L, 1);
      lcore_push_node(L, 1, lp->p, m->node[i]);
      lua_rawseti(L, -2, (lua_Integer)m->node[i]);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_setfield(L, -2, "funcs");
  lgp_measured_free(m);
  return 1;
}

static const char *const stack_filter_keys[] = {"pid", "tid", "comm", "dso", NULL};
/* a gmon profile's views (lview.c), not done on stacks */
static const char *const gmon_filter_keys[] = {
  "focus", "ignore", "hide", "prune_from", "node_fraction", "edge_fraction", "top", "min_calls",
  NULL
};

/* Does the value at idx (a value or a list of values) hold n / s? */
static int wanted(lua_State *L, int idx, lua_Integer n, const char *s) {
  lua_Integer i, len;
  int hit = 0;
  if (!lua_istable(L, idx)) {
    lua_pushvalue(L, idx);
    len = 0;
  } else {
    len = luaL_len(L, idx);
    lua_pushnil(L);
  }
  for (i = 0; i <= len && !hit; i++) {
    if (i > 0) {
      lua_pop(L, 1);
      lua_geti(L, idx, i);
    } else if (len > 0) {
      continue;
    }
    if (s != NULL)
      hit = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), s) == 0;
    else
      hit = lua_isinteger(L, -1) && lua_tointeger(L, -1) == n;
  }
  lua_pop(L, 1);
  return hit;
}

int lcore_is_stack_filter(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  return lgp_stacks_of(lp->p) != NULL;
}

/* profile:filter{pid=, tid=, comm=, dso=} on a profile of stacks: a new
** profile from the stacks whose thread (pid, tid, comm) and leaf binary
** (dso: its recorded path) match every key given (a key's value: one
** value or a list of them). */
int lcore_stack_filter(lua_State *L) {
  lprofile *lp, *sel;
  const lgp_stackprof *sp = check_stacks(L, &lp);
  const lgp_stacktab *t = &sp->tab;
  lgp_stacktab *sub;
  const lgp_profile *calls;
  lgp_options *opts;
  uint8_t *keep;
  size_t i;
  int k, opts_idx;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  for (k = 0; gmon_filter_keys[k] != NULL; k++)
    if (lua_getfield(L, 2, gmon_filter_keys[k]) != LUA_TNIL) {
      luaL_pushfail(L);
      lua_pushfstring(L, "filter: '%s' is not available for sampled stacks (perf.data) yet; "
                      "pid, tid, comm and dso are", gmon_filter_keys[k]);
      return 2;
    }
  lua_settop(L, 2);
  lcore_check_fields(L, 2, stack_filter_keys);
  for (k = 0; stack_filter_keys[k] != NULL; k++) {
    int ty = lua_getfield(L, 2, stack_filter_keys[k]);
    int str = k >= 2;
    if (ty != LUA_TNIL && !(ty == LUA_TTABLE || (str ? ty == LUA_TSTRING : lua_isinteger(L, -1))))
      luaL_error(L, "bad argument #1 to 'filter' (option '%s' must be %s or a list of them)",
                 stack_filter_keys[k], str ? "a string" : "an integer");
  } /* 3..6: pid, tid, comm, dso */
  /* the profile's own options (symspecs, granularity): a selection is
     the same report of fewer samples */
  if (lua_getiuservalue(L, 1, 3) != LUA_TUSERDATA) {
    lua_pop(L, 1);
    opts = lcore_new_options(L, 0);
    opts->line_granularity = lp->p->line_granularity;
  }
  opts_idx = lua_gettop(L);
  keep = lua_newuserdatauv(L, t->nstacks ? t->nstacks : 1, 0);
  for (i = 0; i < t->nstacks; i++) {
    const lgp_st_stack *s = &t->stacks[i];
    const lgp_st_thread *th = &t->threads[s->thread];
    const lgp_st_dso *dso = &t->dsos[t->funcs[t->frame_defs[t->frames[s->first]].func].dso];
    keep[i] = (lua_isnil(L, 3) || wanted(L, 3, th->pid, NULL)) &&
              (lua_isnil(L, 4) || wanted(L, 4, th->tid, NULL)) &&
              (lua_isnil(L, 5) || (th->comm != NULL && wanted(L, 5, 0, th->comm))) &&
              (lua_isnil(L, 6) || wanted(L, 6, 0, dso->path));
  }
  sub = lua_newuserdatauv(L, sizeof *sub, 0);
  memset(sub, 0, sizeof *sub);
  luaL_setmetatable(L, "lgprof.StackTable");
  if (lgp_stacktab_subset(sub, t, keep) != 0)
    return luaL_error(L, "out of memory");
  calls = push_calls_of(L, 1, lp); /* kept on the stack while the profile is built */
  if (push_stack_profile(L, sub, calls, opts_idx) != 1)
    return 2;
  if (calls != NULL) {
    lua_pushvalue(L, -2);
    keep_calls(L, -2);
  }
  /* named and zero-filled as the profile it selects from */
  sel = lua_touserdata(L, -1);
  lgp_names_free(&sel->names);
  if (lgp_names_init_like(&sel->names, sel->p->graph.nsyms + sel->p->graph.nsyms / 2 + 1,
                          &lp->names) != 0)
    return luaL_error(L, "out of memory");
  sel->zeros = lp->zeros;
  return 1;
}

uint64_t lcore_stack_sample_count(const lgp_profile *p) {
  return lgp_stacks_of(p)->samples;
}

/* Function fields of a profile of stacks (-1: the field is the common
** one); p's stack model is sp. */
int lcore_stack_node_field(lua_State *L, const lgp_profile *p, uint32_t id, const char *k) {
  const lgp_stackprof *sp = lgp_stacks_of(p);
  const lgp_node *n = &p->graph.nodes[id];
  const lgp_st_func *f = n->is_cycle ? NULL : &sp->tab.funcs[sp->func_of[id]];
  if ((strcmp(k, "calls") == 0 || strcmp(k, "self_calls") == 0 ||
       strcmp(k, "member_calls") == 0 || strcmp(k, "internal_calls") == 0) &&
      !lgp_calls_known(p, id))
    lua_pushnil(L); /* not recorded (gmon.out's when combined) */
  else if (strcmp(k, "samples") == 0)
    lua_pushinteger(L, (lua_Integer)sp->self_samples[id]);
  else if (strcmp(k, "self_error") == 0)
    lua_pushnumber(L, lgp_self_error(p, id));
  else if (strcmp(k, "total_min") == 0 || strcmp(k, "total_max") == 0)
    lua_pushnumber(L, lgp_seconds(p, n->prop_self + n->prop_child)); /* measured */
  else if (strcmp(k, "total_max_exact") == 0)
    lua_pushboolean(L, 1);
  else if (f != NULL && strcmp(k, "address") == 0) /* a line's: its lowest sampled */
    lua_pushinteger(L, (lua_Integer)p->image->shown_addr[id]);
  else if (f != NULL && n->is_line && (strcmp(k, "end_address") == 0 || strcmp(k, "size") == 0))
    lua_pushnil(L); /* a line of sampled stacks is its samples' addresses, not a range */
  else if (f != NULL && strcmp(k, "end_address") == 0) /* its last byte's, as gmon's functions */
    lua_pushinteger(L, (lua_Integer)(lgp_st_func_size(f) > 0 ? f->end - 1 : f->start));
  else if (f != NULL && strcmp(k, "size") == 0)
    lua_pushinteger(L, (lua_Integer)lgp_st_func_size(f));
  else if (f != NULL && strcmp(k, "dso") == 0)
    lua_pushstring(L, sp->tab.dsos[f->dso].path);
  else if (f != NULL && strcmp(k, "is_inline") == 0)
    lua_pushboolean(L, f->is_inline);
  else if (f != NULL && strcmp(k, "is_anonymous") == 0) /* named after its FDE's start */
    lua_pushboolean(L, f->is_anonymous);
  else
    return -1;
  return 1;
}

/* }====================================================== */

/* profile:_stack_evidence(): the reader's counters for lgprof doctor:
** { samples, lost, no_chain, depth_one, truncated, kernel_unresolved,
** kernel_symbols (where the kernel's names came from, or why none: unread,
** given, cached, running, other-kernel, no-build-id, unusable, none),
** truncated_file, other_samples (of the other events), event, is_time, unwound
** (samples unwound from a stack copy), stack_copy_size, truncated_why =
** { stack_copy, no_cfi, no_binary, depth, other }, unwind_errors = { {
** what, samples }, ... }, unwind_stops = { { path, status, no_cfi,
** no_binary }, ... } (the binaries unwinding stopped in), depth_one_dsos =
** { { path, found, status, samples }, ... } (the binaries the one-frame
** chains end in) }; combined with
** gmon.out, also combined = { image (gmon's executable), exe (the matched
** binary's recorded path), exe_found (the file read for it), matched,
** unmatched, unmatched_samples, added, gmon_seconds, gmon_unseen_seconds,
** gmon_unseen_name } (stackprofile.h). */
static int profile_stack_evidence(lua_State *L) {
  static const char *const why[LGP_TRUNC_NREASONS] = {
    "stack_copy", "no_cfi", "no_binary", "depth", "other"
  };
  lprofile *lp;
  const lgp_stackprof *sp = check_stacks(L, &lp);
  const lgp_stacktab *t = &sp->tab;
  size_t i;
  int k, n;
  lua_createtable(L, 0, 14);
  set_int(L, "samples", (lua_Integer)t->samples);
  set_int(L, "lost", (lua_Integer)t->lost);
  set_int(L, "no_chain", (lua_Integer)t->no_chain);
  set_int(L, "depth_one", (lua_Integer)t->depth_one);
  set_int(L, "truncated", (lua_Integer)t->truncated);
  set_int(L, "kernel_unresolved", (lua_Integer)t->kernel_unresolved);
  {
    static const char *const ksyms[] = {
      "unread", "given", "cached", "running", "other-kernel", "no-build-id", "unusable", "none"
    };
    set_str(L, "kernel_symbols", ksyms[t->kernel_symbols >= 0 && t->kernel_symbols <= LGP_KSYMS_NONE
                                        ? t->kernel_symbols : LGP_KSYMS_UNUSABLE]);
  }
  lua_pushboolean(L, t->truncated_file);
  lua_setfield(L, -2, "truncated_file");
  set_int(L, "other_samples", (lua_Integer)t->other_samples);
  if (t->nevents > 0)
    set_str(L, "event", t->events[0].name);
  lua_pushboolean(L, sp->is_time); /* else the weights are counts of the event */
  lua_setfield(L, -2, "is_time");
  set_int(L, "unwound", (lua_Integer)t->unwound);
  set_int(L, "stack_copy_size", (lua_Integer)t->stack_copy_size);
  lua_createtable(L, 0, LGP_TRUNC_NREASONS);
  for (k = 0; k < LGP_TRUNC_NREASONS; k++)
    set_int(L, why[k], (lua_Integer)t->truncated_why[k]);
  lua_setfield(L, -2, "truncated_why");
  lua_createtable(L, (int)t->nunwind_errors, 0);
  for (i = 0; i < t->nunwind_errors; i++) {
    lua_createtable(L, 0, 2);
    set_str(L, "what", t->unwind_errors[i].what);
    set_int(L, "samples", (lua_Integer)t->unwind_errors[i].samples);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "unwind_errors");
  lua_newtable(L);
  for (i = 0, n = 0; i < t->ndsos; i++) {
    const lgp_st_dso *d = &t->dsos[i];
    if (d->stops_no_cfi == 0 && d->stops_no_binary == 0)
      continue;
    lua_createtable(L, 0, 4);
    set_str(L, "path", d->path);
    set_str(L, "status", lgp_st_dso_status_name(d->status));
    set_int(L, "no_cfi", (lua_Integer)d->stops_no_cfi);
    set_int(L, "no_binary", (lua_Integer)d->stops_no_binary);
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, "unwind_stops");
  /* time: the samples' span and the off-CPU time read (seconds) */
  lua_createtable(L, 0, 12);
  if (t->has_time) {
    lua_pushnumber(L, (double)t->time_first / 1e9);
    lua_setfield(L, -2, "first");
    lua_pushnumber(L, (double)t->time_last / 1e9);
    lua_setfield(L, -2, "last");
  }
  lua_pushboolean(L, t->switch_tracepoint);
  lua_setfield(L, -2, "switch_tracepoint");
  lua_pushboolean(L, t->switch_records);
  lua_setfield(L, -2, "switch_records");
  lua_pushboolean(L, t->synthesized);
  lua_setfield(L, -2, "synthesized");
  lua_createtable(L, 0, LGP_OFF_NKINDS);
  for (k = 0; k < LGP_OFF_NKINDS; k++) {
    lua_pushnumber(L, (double)t->offcpu_ns[k] / 1e9);
    lua_setfield(L, -2, lgp_offcpu_kind_letter(k));
  }
  lua_setfield(L, -2, "offcpu");
  set_int(L, "intervals", (lua_Integer)t->offcpu_intervals);
  set_int(L, "open", (lua_Integer)t->offcpu_open);
  lua_pushnumber(L, (double)t->offcpu_open_ns / 1e9);
  lua_setfield(L, -2, "open_seconds");
  set_int(L, "restarted", (lua_Integer)t->offcpu_restarted);
  lua_pushnumber(L, (double)t->offcpu_restarted_ns / 1e9);
  lua_setfield(L, -2, "restarted_seconds");
  lua_pushnumber(L, (double)t->oncpu_ns / 1e9);
  lua_setfield(L, -2, "oncpu_seconds");
  lua_setfield(L, -2, "time");
  lua_newtable(L);
  for (i = 0, n = 0; i < t->ndsos; i++) {
    const lgp_st_dso *d = &t->dsos[i];
    if (d->depth_one == 0)
      continue;
    lua_createtable(L, 0, 4);
    set_str(L, "path", d->path);
    set_str(L, "found", d->found);
    set_str(L, "status", lgp_st_dso_status_name(d->status));
    set_int(L, "samples", (lua_Integer)d->depth_one);
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, "depth_one_dsos");
  if (sp->has_calls) {
    double hz = sp->gmon_hz ? (double)sp->gmon_hz : 1.0;
    lua_createtable(L, 0, 9);
    if (sp->exe_dso < t->ndsos && !sp->exe_added) {
      set_str(L, "exe", t->dsos[sp->exe_dso].path);
      set_str(L, "exe_found", t->dsos[sp->exe_dso].found);
    }
    set_int(L, "matched", sp->exe_matched);
    set_int(L, "unmatched", sp->exe_unmatched);
    set_int(L, "unmatched_samples", (lua_Integer)sp->exe_unmatched_samples);
    set_int(L, "added", sp->gmon_added);
    lua_pushnumber(L, sp->gmon_ticks / hz);
    lua_setfield(L, -2, "gmon_seconds");
    lua_pushnumber(L, sp->gmon_unseen_ticks / hz);
    lua_setfield(L, -2, "gmon_unseen_seconds");
    set_str(L, "gmon_unseen_name", sp->gmon_unseen_name);
    set_str(L, "image", sp->gmon_image);
    lua_setfield(L, -2, "combined");
  }
  return 1;
}

const luaL_Reg lcore_stack_profile_methods[] = {
  {"_stack_evidence", profile_stack_evidence},
  {"processes", profile_processes},
  {"threads", profile_threads},
  {"dsos", profile_dsos},
  {"_defines", profile_defines},
  {"stacks", profile_stacks},
  {"sample_times", profile_sample_times},
  {"_measured_stacks", profile_measured_stacks},
  {"_measured_paths", profile_measured_paths},
  {NULL, NULL}
};

const luaL_Reg lcore_stack_funcs[] = {
  {"_profile_from_stacks", l_profile_from_stacks},
  {"is_perfdata", l_is_perfdata},
  {"open_stacks", l_open_stacks},
  {"_off_cpu_state", l_off_cpu_state},
  {"_time_range", l_time_range},
  {NULL, NULL}
};

void lcore_stacks_register(lua_State *L) {
  if (luaL_newmetatable(L, SAMPLE_TIMES_T)) {
    static const luaL_Reg meta[] = {
      {"__call", sample_times_call}, {"__len", sample_times_len},
      {"__index", sample_times_index}, {"__gc", sample_times_gc}, {NULL, NULL}
    };
    luaL_setfuncs(L, meta, 0);
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, "lgprof.StackTable")) {
    lua_pushcfunction(L, tab_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, STREAM_T)) {
    lua_pushcfunction(L, stream_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
}
