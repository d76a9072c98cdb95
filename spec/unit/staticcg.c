/*
** staticcg.c: the two static call graph scans (csrc/core/model/staticcg.c,
** disasm.c) on hand-assembled x86-64 code, with the arcs worked out from
** the bytes: a backward call through a PLT stub whose GOT slot names a
** symbol of the table, a forward call, a tail jump, a call into the middle
** of a routine, an E8 byte in data, and an arc already read from gmon.
*/
#include <stdlib.h>
#include <string.h>

#include "model/staticcg.h"
#include "unit.h"

#define PLT 0x1000u
#define TEXT 0x2000u
#define SLOT 0x3000u

/* .plt: entry 0 (PLT0, its jmp reads a slot no relocation names), entry 1
** at 0x1010: jmp *SLOT(%rip) (ff 25, disp32 from 0x1016) */
static void put_plt(unsigned char *p) {
  uint32_t d = SLOT - (PLT + 0x10 + 6);
  memset(p, 0x90, 0x20);
  p[0] = 0xff; p[1] = 0x25; p[2] = 0x00; p[3] = 0x10; p[4] = 0; p[5] = 0; /* slot 0x2016: none */
  p[0x10] = 0xff; p[0x11] = 0x25;
  p[0x12] = (unsigned char)d; p[0x13] = (unsigned char)(d >> 8);
  p[0x14] = (unsigned char)(d >> 16); p[0x15] = (unsigned char)(d >> 24);
}

static void rel32(unsigned char *p, uint32_t from_next, uint32_t to) {
  uint32_t d = to - from_next;
  p[0] = (unsigned char)d; p[1] = (unsigned char)(d >> 8);
  p[2] = (unsigned char)(d >> 16); p[3] = (unsigned char)(d >> 24);
}

/* .text: caller at 0x2000, direct 0x2020, tailee 0x2030, callee 0x2040,
** data 0x2050, after 0x2058:
**   2000 e8 -> 1010 (puts-like stub: backward)   2005 e8 -> 2020 (direct)
**   200a e8 -> 2034 (inside tailee)              200f e9 -> 2030 (tail jump)
**   2014 c3
**   2050 eb 05 e8 -> 2058 (a jmp over an E8 byte and its number) */
static void put_text(unsigned char *t) {
  memset(t, 0x90, 0x60);
  t[0x00] = 0xe8; rel32(t + 0x01, TEXT + 0x05, PLT + 0x10);
  t[0x05] = 0xe8; rel32(t + 0x06, TEXT + 0x0a, TEXT + 0x20);
  t[0x0a] = 0xe8; rel32(t + 0x0b, TEXT + 0x0f, TEXT + 0x34);
  t[0x0f] = 0xe9; rel32(t + 0x10, TEXT + 0x14, TEXT + 0x30);
  t[0x14] = 0xc3;
  t[0x20] = 0xc3;
  t[0x30] = 0xc3;
  t[0x40] = 0xc3;
  t[0x50] = 0xeb; t[0x51] = 0x05; t[0x52] = 0xe8; rel32(t + 0x53, TEXT + 0x57, TEXT + 0x58);
  t[0x57] = 0xc3;
  t[0x58] = 0xc3;
}

typedef struct fixture {
  unsigned char plt[0x20], text[0x60];
  lgp_codesec secs[2];
  lgp_gotslot slot;
  char names[16];
  lgp_code code;
  lgp_rawsym raw[6];
  lgp_node nodes[6];
  lgp_symindex ix;
  lgp_arctab arcs;
  lgp_scan_ctx sc;
} fixture;

static void setup(fixture *f) {
  static const char *const names[6] = {"caller", "direct", "tailee", "callee", "data", "after"};
  static const uint32_t at[6] = {0x00, 0x20, 0x30, 0x40, 0x50, 0x58};
  size_t i;
  memset(f, 0, sizeof *f);
  put_plt(f->plt);
  put_text(f->text);
  f->secs[0].vma = PLT; f->secs[0].size = sizeof f->plt; f->secs[0].bytes = f->plt;
  f->secs[0].is_plt = 1; f->secs[0].entsize = 16;
  f->secs[1].vma = TEXT; f->secs[1].size = sizeof f->text; f->secs[1].bytes = f->text;
  f->secs[1].is_text = 1;
  strcpy(f->names, "callee");
  f->slot.slot = SLOT;
  f->slot.name = 0;
  f->code.secs = f->secs; f->code.nsecs = 2;
  f->code.slots = &f->slot; f->code.nslots = 1;
  f->code.names = f->names;
  for (i = 0; i < 6; i++) {
    f->raw[i].addr = TEXT + at[i];
    f->raw[i].name = names[i];
    f->raw[i].is_func = 1;
    f->raw[i].file = -1;
  }
  for (i = 0; i < 6; i++)
    lgp_symtab_node_init(&f->nodes[i], (uint32_t)i, &f->raw[i],
                         i + 1 < 6 ? f->raw[i + 1].addr - 1 : TEXT + sizeof f->text - 1);
  if (lgp_symindex_build(&f->ix, f->nodes, 6) != 0)
    abort();
  lgp_arctab_init(&f->arcs, 6);
  f->sc.nodes = f->nodes; f->sc.n = 6; f->sc.ix = &f->ix; f->sc.arcs = &f->arcs;
  f->sc.path = "unit";
  f->sc.lines = 0;
}

static void teardown(fixture *f) {
  lgp_arctab_free(&f->arcs);
  lgp_symindex_free(&f->ix);
}

/* The arc parent -> child, or NULL. */
static const lgp_arc *arc(const fixture *f, uint32_t parent, uint32_t child) {
  size_t k;
  for (k = 0; k < f->arcs.narcs; k++)
    if (f->arcs.arcs[k].parent == parent && f->arcs.arcs[k].child == child)
      return &f->arcs.arcs[k];
  return NULL;
}

int main(void) {
  fixture f;
  lgp_err err = {0, ""};
  lgp_hist hist[2];
  const lgp_arc *a;

  setup(&f);
  CHECK(f.nodes[1].addr == TEXT + 0x20 && f.nodes[4].addr == TEXT + 0x50, "layout");

  /* decoding: caller -> callee through the stub, caller -> direct, the
     tail jump caller -> tailee; not the call into tailee's middle nor the
     jmp into data's; the E8
     byte under data's jmp is decoded as a call too (a linear sweep) */
  lgp_arctab_add(&f.arcs, 0, 1, 7); /* read from gmon first */
  CHECK(lgp_staticcg_decode(&f.sc, &f.code, &err) == 0, "decode: %s", err.msg);
  a = arc(&f, 0, 3);
  CHECK(a != NULL && a->is_static && !a->is_tail && a->count == 0, "caller -> callee (PLT)");
  a = arc(&f, 0, 1);
  CHECK(a != NULL && !a->is_static && a->count == 7, "caller -> direct stays the gmon arc");
  a = arc(&f, 0, 2);
  CHECK(a != NULL && a->is_static && a->is_tail, "caller -> tailee is a tail call");
  a = arc(&f, 4, 5);
  CHECK(a != NULL && a->is_static && !a->is_tail, "data -> after from the swept E8");
  CHECK(f.arcs.narcs == 4, "decode: %zu arcs, expected 4", f.arcs.narcs);
  teardown(&f);

  /* gprof's scan over one histogram record covering the text: the forward
     call caller -> direct, and data -> after from the E8 byte in data; not
     the backward stub call, the call into tailee's middle, the jump */
  setup(&f);
  memset(hist, 0, sizeof hist);
  hist[0].low = TEXT;
  hist[0].high = TEXT + 0x60;
  CHECK(lgp_staticcg_gprof_scan(&f.sc, &f.code, hist, 1, &err) == 0, "scan: %s", err.msg);
  CHECK(arc(&f, 0, 1) != NULL && arc(&f, 0, 1)->is_static, "scan: caller -> direct");
  CHECK(arc(&f, 4, 5) != NULL, "scan: data -> after");
  CHECK(f.arcs.narcs == 2, "scan: %zu arcs, expected 2", f.arcs.narcs);
  teardown(&f);

  /* a histogram that stops before the call: caller is clipped to
     [0x2000, 0x2005), the call at 0x2005 is not looked at; a second record
     further on does not widen the range (the first one that overlaps wins) */
  setup(&f);
  hist[0].low = TEXT;
  hist[0].high = TEXT + 0x05;
  hist[1].low = TEXT + 0x05;
  hist[1].high = TEXT + 0x60;
  CHECK(lgp_staticcg_gprof_scan(&f.sc, &f.code, hist, 2, &err) == 0, "scan2: %s", err.msg);
  CHECK(arc(&f, 0, 1) == NULL, "scan2: caller clipped to the first record");
  CHECK(arc(&f, 4, 5) != NULL, "scan2: data -> after");
  teardown(&f);

  /* the records the other way round: caller's range is the second part */
  setup(&f);
  hist[0].low = TEXT + 0x05;
  hist[0].high = TEXT + 0x60;
  hist[1].low = TEXT;
  hist[1].high = TEXT + 0x05;
  CHECK(lgp_staticcg_gprof_scan(&f.sc, &f.code, hist, 2, &err) == 0, "scan3: %s", err.msg);
  CHECK(arc(&f, 0, 1) != NULL, "scan3: caller -> direct");
  teardown(&f);

  /* no histogram: nothing */
  setup(&f);
  CHECK(lgp_staticcg_gprof_scan(&f.sc, &f.code, hist, 0, &err) == 0 && f.arcs.narcs == 0,
        "no histogram: no arc");
  teardown(&f);
  return unit_done("staticcg");
}
