/*
** staticcg.h: static call graphs, arcs of count 0 found in the machine
** code: gprof -c's byte scan (staticcg.c) and lgprof's decoded direct
** calls, --static-arcs (disasm.c).
*/
#ifndef staticcg_h
#define staticcg_h

#include "model/arcs.h"
#include "read/codeimg.h"
#include "model/options.h"
#include "model/symtab.h"

/* What a scan needs of the profile being opened. */
typedef struct lgp_scan_ctx {
  const lgp_node *nodes;     /* the symbol table, in address order */
  size_t n;
  const lgp_symindex *ix;    /* over nodes */
  lgp_arctab *arcs;          /* static arcs are appended here */
  const char *path;          /* the executable, for messages */
  int lines;                 /* line granularity: the table holds line symbols */
} lgp_scan_ctx;

/* The static arcs opts asks for, appended to s->arcs: gprof -c's
** (static_call_graph: only when the profile has call-graph records, and
** only on x86 machines, where gprof has its scan) and then lgprof's
** (static_arcs: x86-64 only, an error elsewhere). 0, or -1 with a message. */
int lgp_staticcg_add(const lgp_scan_ctx *s, const lgp_image *im, const lgp_gmon *g,
                     const lgp_options *opts, lgp_err *err);

/* Adds the count-0 arc parent -> child unless it exists; a new arc is
** marked static (and a tail call when tail). An existing static arc found
** again by a call stops being a tail call. 0, or -1 with a message. */
int lgp_staticcg_arc(const lgp_scan_ctx *s, uint32_t parent, uint32_t child, int tail,
                     lgp_err *err);

/* gprof -c on x86: every byte of every symbol's range, clipped to the
** first histogram record (in g's order) that overlaps it and to .text, is
** looked at; an E8 byte and the unsigned 32-bit number after it give a
** target (no sign extension), taken when its low 32 bits fall in a
** histogram record and a symbol starts exactly at it. */
int lgp_staticcg_gprof_scan(const lgp_scan_ctx *s, const lgp_code *code,
                            const lgp_hist *hist, size_t nhist, lgp_err *err);

/* --static-arcs (x86-64): each function symbol's code decoded from its
** start up to the next one's: direct calls (forward and backward) to a
** symbol's start, calls through the PLT to an import the table has a
** symbol of, and jumps to another function's start (tail calls). The
** caller is the symbol holding the instruction; at line granularity, the
** line a measured call is charged to (the one holding the return address
** rounded down to 16 bytes, as glibc records it) when that is still in
** the same function, so that a call made at run time does not show twice. */
int lgp_staticcg_decode(const lgp_scan_ctx *s, const lgp_code *code, lgp_err *err);

#endif
