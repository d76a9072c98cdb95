/*
** lcore.h: what the binding's files (csrc/lua/: the only C files that see
** Lua) share. A Profile userdata owns an lgp_profile; a view's Profile
** borrows its base's sources and keeps the base alive through its user
** value.
*/
#ifndef lcore_h
#define lcore_h

#include <lauxlib.h>
#include <lua.h>

#include "write/report.h"
#include "model/view.h"

#define PROFILE_T "lgprof.Profile"
#define FUNCTION_T "lgprof.Function"
#define ARC_T "lgprof.Arc"
#define CYCLE_T "lgprof.Cycle"
#define WEAK_T "lgprof.HandleCache" /* the metatable of the weak caches */

/* The one version of lgprof (lgprof.VERSION, the exports' "creator"). */
#define LGPROF_VERSION "0.1.0"

typedef struct lprofile {
  lgp_profile *p;          /* NULL once closed */
  lgp_sources *sources;    /* the owner of p's sources (a view's: its base
                              profile's): DWARF is read through it on demand */
  lgp_names names;
  lgp_profile *kept;       /* closed while views still borrow from it */
  int nviews;              /* live views of this profile */
  uint32_t *by_name;       /* find(): symbols by printed name, built on use */
  int zeros;               /* open's `zeros`: gprof_report's default for -z */
  struct lgp_bounds *bounds; /* lbounds.c: built on first use */
} lprofile;

typedef struct lhandle {
  uint32_t id; /* node or arc index */
} lhandle;

/* Runs the stages of the profile's analysis in need (LGP_GRAPH_*) not
** run yet; raises on failure (out of memory). */
void lcore_analyse(lua_State *L, lprofile *lp, unsigned need);
/* The Profile at idx, open; check_profile analyses it too (the first
** use of most methods), open_profile leaves that to the caller (methods
** that read only calls and samples). */
lprofile *lcore_open_profile(lua_State *L, int idx);
lprofile *lcore_check_profile(lua_State *L, int idx);
/* A handle's Profile (its user value), open and analysed. */
lprofile *lcore_handle_profile(lua_State *L, int idx);
void lcore_push_handle(lua_State *L, int pidx, const char *tname, uint32_t id);
/* Registers the metatable tname: methods (NULL: none) in its field
** "methods", __index, __tostring, and __gc and __close when gc is not NULL
** (a Profile), else __eq (a handle: lcore_handle_eq). */
void lcore_new_type(lua_State *L, const char *tname, const luaL_Reg *methods,
                    lua_CFunction index, lua_CFunction gc, lua_CFunction tostring);
/* Pushes a file (k "file...") or a line number (else) as fields file and
** line show them: nil when unknown (NULL, or a line of 0). */
void lcore_push_file_or_line(lua_State *L, const char *k, const char *file, int line);
void lcore_push_node(lua_State *L, int pidx, const lgp_profile *p, uint32_t node);
/* lopts.c: option tables at argument arg (nil or absent: every default).
** Each raises "bad argument #arg to 'f' (...)" on a wrong key or value. */
void lcore_check_fields(lua_State *L, int arg, const char *const names[]);
int lcore_opt_bool(lua_State *L, int arg, const char *key, int def);
/* The option `demangle` of the table at arg: false (0), true (1), or a
** style name (1, *style set; the style checked); misuse raises. */
int lcore_opt_demangle(lua_State *L, int arg, const char **style);
lua_Integer lcore_opt_int(lua_State *L, int arg, const char *key, lua_Integer def,
                          lua_Integer min, lua_Integer max);
double lcore_opt_number(lua_State *L, int arg, const char *key, double def, double min,
                        double max);
/* The one parser of shares: a number, or a string "0.3" or "30%" (blanks
** around allowed); 1 with *v set if it is one from 0 to max, else 0. */
int lcore_to_share(lua_State *L, int idx, double max, double *v);
/* An option that is a share from 0 to 1 (100%). */
double lcore_opt_share(lua_State *L, int arg, const char *key, double def);
const char *lcore_opt_string(lua_State *L, int arg, const char *key, const char *def);
int lcore_opt_enum(lua_State *L, int arg, const char *key, int def, const char *const names[]);
/* lcore.c: open's options from the table at t (0: none), in a userdata
** pushed on the stack (collected with it). */
lgp_options *lcore_new_options(lua_State *L, int t);
/* Pushes a closed Profile userdata (a view of the Profile at base_idx when
** base_idx != 0), then gives it its profile, which it owns from there. */
lprofile *lcore_new_profile(lua_State *L, int base_idx);
void lcore_set_profile(lua_State *L, lprofile *lp, lgp_profile *p, int demangle,
                       const char *style);

/* lobjects.c: Function, Arc and Cycle handles */
int lcore_handle_index(lua_State *L);
int lcore_handle_eq(lua_State *L);
int lcore_handle_tostring(lua_State *L);
/* Raises "FILE:LINE: TYPE has no field 'k' (fields: ...; methods: ...)". */
int lcore_no_field(lua_State *L, const char *type, const char *k, const char *const fields[],
                   const luaL_Reg methods[]);
extern const luaL_Reg lcore_function_methods[];
extern const luaL_Reg lcore_cycle_methods[];

/* lview.c: views, name search, regular expressions */
int lcore_profile_filter(lua_State *L);
int lcore_profile_find(lua_State *L);
int lcore_profile_search(lua_State *L);
int lcore_profile_roots(lua_State *L);
int lcore_profile_select(lua_State *L);
int lcore_regex_match(lua_State *L);

/* lbounds.c: attribution bounds (built on first use, freed with the profile) */
struct lgp_bounds *lcore_bounds(lua_State *L, lprofile *lp);
void lcore_bounds_release(lprofile *lp);
int lcore_profile_ambiguous(lua_State *L);

/* lexport.c: profile:export */
int lcore_profile_export(lua_State *L);

/* lstacks.c: profile:_stacks (an iterator over the stacks, frames as
** handles), profile:_shared_names (the functions labelled with their
** address); lcore_stacks_open registers the iterator's type */
int lcore_profile_stacks(lua_State *L);
int lcore_profile_shared_names(lua_State *L);
void lcore_stacks_open(lua_State *L);

/* lordering.c: profile:function_ordering, profile:file_ordering */
int lcore_profile_function_ordering(lua_State *L);
int lcore_profile_file_ordering(lua_State *L);

/* lcyclecut.c: profile:cycle_cuts */
int lcore_profile_cycle_cuts(lua_State *L);
int lcore_profile_exclude_arcs(lua_State *L);
int lcore_profile_cut_text(lua_State *L);

/* lasm.c: fn:instructions, profile:_asm (model/asm.h) */
int lcore_function_instructions(lua_State *L);
int lcore_profile_asm(lua_State *L);

/* lsource.c: profile:exec_counts, profile:annotate */
int lcore_profile_exec_counts(lua_State *L);
/* lfiles.c: gprof's reports and files, the files' description */
int lcore_profile_report(lua_State *L);
int lcore_profile_write_gmon(lua_State *L);
int lcore_profile_file_info(lua_State *L);
int lcore_profile_histograms(lua_State *L);
int lcore_profile_annotate(lua_State *L);

/* ldoctor.c: profile:_evidence, core._list_dir (lgprof.doctor's) */
int lcore_profile_evidence(lua_State *L);
int lcore_list_dir(lua_State *L);
/* lglob.c: core.glob(pattern) (POSIX glob(3), sorted). */
int lcore_glob(lua_State *L);

#endif
