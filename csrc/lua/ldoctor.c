/*
** ldoctor.c: what lgprof.doctor needs from C: profile:_evidence() (the
** checks of evidence.h as a table) and core._list_dir(path) (the names in
** a directory: the profile files a run left beside a missing one).
*/
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "analyse/evidence.h"
#include "lcore.h"

static void set_int(lua_State *L, const char *k, uint64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static void set_bool(lua_State *L, const char *k, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

/* profile:_evidence() -> { arcs_read, arc_records, arcs_outside,
** arcs_shared, arcs_summed, code_known, mcount_known, callee_checked,
** callee_bad, caller_checked, caller_bad, samples, samples_outside,
** uses_threads, image_mtime, profile_mtime, profile_older, bare } (times
** in seconds; profile_older compares them to the nanosecond; bare: the
** sampled Functions whose code calls no mcount, when that could be
** checked, else nil) */
int lcore_profile_evidence(lua_State *L) {
  lprofile *lp = lcore_open_profile(L, 1);
  lgp_evidence ev;
  lgp_err err = {0, {0}};
  if (lgp_evidence_compute(lp->p, &ev, &err) != 0)
    return luaL_error(L, "%s", err.msg);
  lua_createtable(L, 0, 18);
  set_bool(L, "arcs_read", ev.arcs_read);
  set_int(L, "arc_records", ev.arc_records);
  set_int(L, "arcs_outside", ev.arcs_outside);
  set_int(L, "arcs_shared", ev.arcs_shared);
  set_int(L, "arcs_summed", ev.arcs_summed);
  set_bool(L, "code_known", ev.code_known);
  set_bool(L, "mcount_known", ev.mcount_known);
  set_int(L, "callee_checked", ev.callee_checked);
  set_int(L, "callee_bad", ev.callee_bad);
  set_int(L, "caller_checked", ev.caller_checked);
  set_int(L, "caller_bad", ev.caller_bad);
  set_int(L, "samples", ev.samples);
  set_int(L, "samples_outside", ev.samples_outside);
  set_bool(L, "uses_threads", ev.uses_threads);
  lua_pushnumber(L, (double)ev.image_mtime_s + (double)ev.image_mtime_ns * 1e-9);
  lua_setfield(L, -2, "image_mtime");
  if (ev.have_profile_mtime) {
    lua_pushnumber(L, (double)ev.profile_mtime_s + (double)ev.profile_mtime_ns * 1e-9);
    lua_setfield(L, -2, "profile_mtime");
    set_bool(L, "profile_older", ev.profile_mtime_s < ev.image_mtime_s ||
             (ev.profile_mtime_s == ev.image_mtime_s && ev.profile_mtime_ns < ev.image_mtime_ns));
  }
  if (ev.code_known && ev.mcount_known) {
    size_t i;
    lua_createtable(L, ev.nbare < INT_MAX ? (int)ev.nbare : 0, 0);
    for (i = 0; i < ev.nbare; i++) {
      if (lgp_removed(lp->p, ev.bare[i]))
        continue;
      lcore_push_node(L, 1, lp->p, ev.bare[i]);
      lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    lua_setfield(L, -2, "bare");
  }
  lgp_evidence_free(&ev);
  return 1;
}

/* core._list_dir(path) -> { name... } (unsorted, without . and ..) | nil, message */
int lcore_list_dir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  DIR *d = opendir(path);
  struct dirent *e;
  lua_Integer n = 0;
  if (d == NULL) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_newtable(L);
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    lua_pushstring(L, e->d_name);
    lua_rawseti(L, -2, ++n);
  }
  closedir(d);
  return 1;
}
