/*
** asm.h: a function's instructions with their samples (--annotate-asm,
** Function:instructions()): the code decoded with Capstone (x86-64), each
** instruction's source line and the DWARF chain of inlined functions it
** belongs to, and what the profile measured there.
**
** - perf.data: a sample counts at its leaf address, exactly (the function
**   whose symbol holds the leaf, its inlined frames included). The CPU
**   reports an address at or after the instruction that caused the
**   sample (skid): on a hot loop the count lands on the next instruction
**   or a few later.
** - gmon.out: a histogram bin covers 2 to 4 bytes of code, not one
**   instruction. Its count is spread as gprof spreads it over symbols:
**   in 2-byte units (an odd address truncated), each instruction
**   [addr/2, next/2) credited overlap * count / scale, where scale is the
**   histogram's units per bin. The instructions of a function run from
**   its symbol up to the next symbol (its padding included: gprof credits
**   it to the function), so they tile the range gprof credits the
**   function for, and their overlaps add up to the function's, bin by
**   bin: units (overlap * count, an integer) add up exactly, and samples
**   (units / scale) do too whenever scale is a power of two. An
**   instruction that shares a bin having samples with another one (or
**   with another function) is marked: its share is gprof's rule, not a
**   measurement.
*/
#ifndef lgp_asm_h
#define lgp_asm_h

#include "model/profile.h"
#include "util/strset.h"

#define LGP_ASM_NOSTR UINT32_MAX

/* One function of the DWARF inline chain of an instruction: the inlined
** function and the line of its call (innermost first). */
typedef struct lgp_asm_inline {
  uint32_t name;          /* string id */
  uint32_t call_file;     /* string id, or LGP_ASM_NOSTR */
  uint32_t call_line;     /* 0 when unknown */
} lgp_asm_inline;

typedef struct lgp_asm_insn {
  lgp_addr addr;
  lgp_addr target;        /* a direct jump's or call's, when has_target */
  lgp_addr target_off;    /* from the start of target_name's symbol */
  uint32_t mnemonic, operands; /* string ids ("" when not decoded) */
  uint32_t target_name;   /* the symbol holding target (LGP_ASM_NOSTR: none or this function) */
  uint32_t file, line;    /* source (string id or LGP_ASM_NOSTR; 0 unknown) */
  uint32_t inl_first, ninl; /* inline chain: inl[inl_first ..], innermost first */
  uint8_t size;
  uint8_t bytes[16];
  uint8_t has_target, is_call, is_jump, is_ret;
  uint8_t back_edge;      /* a jump to this function's code at or before it: a loop */
  uint8_t shared_bin;     /* gmon: a bin with samples covers it and other code */
  uint64_t units;         /* gmon: overlap * count summed over its bins */
  double samples;         /* gmon: ticks (units / scale); perf: samples */
  double weight;          /* gmon: = samples; perf: the samples' periods */
} lgp_asm_insn;

typedef struct lgp_asm_list {
  lgp_addr start, end;    /* the function's range [start, end) */
  lgp_asm_insn *insns;    /* ascending by address */
  size_t n, cap;
  lgp_asm_inline *inl;
  size_t ninl, inl_cap;
  lgp_strset strs;
  const char *arch;       /* "x86-64", or the machine the code is not decoded for */
  int decoded;            /* 0: rows are the sampled addresses (no decoder, no code) */
  int code_read;          /* the function's bytes were read (a file holds them) */
  int from_gmon;          /* histogram spreading (gmon) rather than exact leaves (perf) */
  double samples, weight; /* sums over insns */
  uint64_t units;
  double scale;           /* gmon: the histogram's units per bin */
} lgp_asm_list;

/* What a set of listings shares: the binaries opened, their code and
** DWARF, the decoder, the leaf addresses of a sampled profile. */
typedef struct lgp_asm_session lgp_asm_session;

lgp_asm_session *lgp_asm_session_new(const lgp_profile *p);
void lgp_asm_session_free(lgp_asm_session *s);

/* The listing of symbol node s of the session's profile into *out (which
** must be zeroed; lgp_asm_list_free frees it). 0, or -1 with a message. */
int lgp_asm_function(lgp_asm_session *ss, uint32_t s, lgp_asm_list *out, lgp_err *err);
void lgp_asm_list_free(lgp_asm_list *l);
static inline const char *lgp_asm_str(const lgp_asm_list *l, uint32_t id) {
  return id == LGP_ASM_NOSTR ? NULL : l->strs.s[id];
}

#endif
