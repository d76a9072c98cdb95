/*
** evidence.c: lgprof doctor's checks of a profile against its executable,
** made where they are cheap: one pass over the arc records (read again:
** the profile keeps only the arcs between routines), one over the
** histogram's non-empty bins, a look at the bytes around each address.
*/
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/codeimg.h"
#include "analyse/evidence.h"
#include "util/bytes.h"

#define MAX_TARGETS 16

/* What the pass over the arcs reads. */
typedef struct arc_ctx {
  const lgp_symindex *ix;
  const lgp_node *nodes;         /* the index's symbols */
  const lgp_code *code;          /* NULL: no code checks */
  const lgp_code *secs;          /* the code sections (NULL: unknown) */
  int addr_bytes;
  lgp_addr targets[MAX_TARGETS]; /* where a call to mcount goes */
  size_t ntargets;
  lgp_evidence *ev;
} arc_ctx;

/* The profiling hooks a -pg prologue calls (-mfentry: __fentry__). */
static int is_mcount(const char *name) {
  return name != NULL && (strcmp(name, "mcount") == 0 || strcmp(name, "_mcount") == 0 ||
                          strcmp(name, "__fentry__") == 0 || strcmp(name, "__mcount") == 0);
}

static int is_thread_start(const char *name) {
  return name != NULL && (strcmp(name, "pthread_create") == 0 ||
                          strcmp(name, "thrd_create") == 0 ||
                          strstr(name, "_M_start_thread") != NULL);
}

static lgp_addr wrap(const arc_ctx *c, lgp_addr a) {
  return c->addr_bytes == 4 ? (a & 0xffffffffu) : a;
}

/* The code ending just before addr: a pointer to addr's byte, with at
** least n bytes of the same section before it, or NULL. */
static const unsigned char *code_before(const lgp_code *code, lgp_addr addr, size_t n) {
  const lgp_codesec *sec;
  if (addr == 0)
    return NULL;
  sec = lgp_code_section(code, addr - 1);
  if (sec == NULL || addr - sec->vma < n)
    return NULL;
  return sec->bytes + (addr - sec->vma);
}

static void add_target(arc_ctx *c, lgp_addr a) {
  if (c->ntargets < MAX_TARGETS)
    c->targets[c->ntargets++] = a;
}

/* The PLT entries that jump through a GOT slot an mcount import fills
** (jmp *slot(%rip), FF 25, with or without endbr64 and bnd before it). */
static void find_mcount_stubs(arc_ctx *c) {
  size_t i;
  for (i = 0; i < c->code->nsecs; i++) {
    const lgp_codesec *sec = &c->code->secs[i];
    size_t off;
    if (!sec->is_plt || sec->entsize == 0)
      continue;
    for (off = 0; off + 6 <= sec->size; off += sec->entsize) {
      size_t len = sec->size - off < sec->entsize ? sec->size - off : sec->entsize, j;
      for (j = 0; j + 6 <= len; j++) {
        const unsigned char *b = sec->bytes + off + j;
        if (b[0] == 0xff && b[1] == 0x25) {
          lgp_addr next = sec->vma + off + j + 6;
          lgp_addr slot = c->addr_bytes == 4 ? (lgp_addr)(uint32_t)lgp_bytes_s32le(b + 2)
                                             : next + (lgp_addr)(int64_t)lgp_bytes_s32le(b + 2);
          if (is_mcount(lgp_code_slot_name(c->code, slot)))
            add_target(c, sec->vma + off);
          break;
        }
      }
    }
  }
}

/* Is there, just before addr, a call to mcount: call rel32 (E8) to one of
** its addresses, or call *slot(%rip) (FF 15) through its GOT slot? */
static int after_mcount_call(const arc_ctx *c, lgp_addr addr) {
  const unsigned char *b = code_before(c->code, addr, 5);
  size_t i;
  if (b == NULL)
    return -1;
  if (b[-5] == 0xe8) {
    lgp_addr target = wrap(c, addr + (lgp_addr)(int64_t)lgp_bytes_s32le(b - 4));
    for (i = 0; i < c->ntargets; i++)
      if (c->targets[i] == target)
        return 1;
  }
  b = code_before(c->code, addr, 6);
  if (b != NULL && b[-6] == 0xff && b[-5] == 0x15) {
    lgp_addr slot = c->addr_bytes == 4 ? (lgp_addr)(uint32_t)lgp_bytes_s32le(b - 4)
                                       : addr + (lgp_addr)(int64_t)lgp_bytes_s32le(b - 4);
    return is_mcount(lgp_code_slot_name(c->code, slot));
  }
  return 0;
}

/* The length of an FF /2 call's operand bytes after the opcode (ModRM,
** SIB, displacement). */
static size_t modrm_len(const unsigned char *m, size_t avail) {
  unsigned mod = m[0] >> 6, rm = m[0] & 7;
  size_t n = 1;
  if (mod == 3)
    return n;
  if (rm == 4) { /* SIB */
    if (avail < 2)
      return 0;
    n++;
    if (mod == 0 && (m[1] & 7) == 5)
      return n + 4;
  } else if (mod == 0 && rm == 5) {
    return n + 4; /* rip-relative (32-bit: absolute) */
  }
  return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* A -pg prologue calls mcount within its first bytes (after endbr64, the
** frame set-up and, for some, a stack protector's or a large frame's
** code): does the code from addr (its first len bytes) hold such a call? */
#define PROLOGUE_BYTES 64

static int calls_mcount(const arc_ctx *c, lgp_addr addr, lgp_addr len) {
  const lgp_codesec *sec = lgp_code_section(c->code, addr);
  size_t off, end;
  if (sec == NULL)
    return -1;
  off = (size_t)(addr - sec->vma);
  end = off + (size_t)(len < PROLOGUE_BYTES ? len : PROLOGUE_BYTES);
  if (end > sec->size)
    end = sec->size;
  for (; off + 5 <= end; off++) {
    const unsigned char *b = sec->bytes + off;
    if ((b[0] == 0xe8 || (b[0] == 0xff && b[1] == 0x15 && off + 6 <= end)) &&
        after_mcount_call(c, sec->vma + off + (b[0] == 0xe8 ? 5 : 6)) == 1)
      return 1;
  }
  return 0;
}

/* Is there a call instruction that ends at offset end of code: call
** rel32 (E8), or an indirect call FF /2 whose encoding is exactly the
** bytes before it? */
static int call_ends_at(const unsigned char *code, size_t end) {
  const unsigned char *b = code + end;
  size_t len;
  if (end >= 5 && b[-5] == 0xe8)
    return 1;
  for (len = 2; len <= 7 && len <= end; len++) {
    const unsigned char *op = b - len;
    if (op[0] == 0xff && ((op[1] >> 3) & 7) == 2 && 1 + modrm_len(op + 1, len - 1) == len)
      return 1;
  }
  return 0;
}

/* glibc records a caller's return address rounded down to its call-graph
** granularity (16 bytes on x86-64): a call must end somewhere in the 16
** bytes from the recorded address. -1 when they are in no code section. */
#define CALLER_GRAIN 16

static int after_call(const arc_ctx *c, lgp_addr from) {
  const lgp_codesec *sec = lgp_code_section(c->code, from);
  size_t off, k;
  if (sec == NULL)
    return -1;
  off = (size_t)(from - sec->vma);
  for (k = 0; k < CALLER_GRAIN && off + k <= sec->size; k++)
    if (call_ends_at(sec->bytes, off + k))
      return 1;
  return 0;
}

/* Is addr in no routine? gprof's last routines (etext, data_start ...)
** run on past the code: an address in no code section is outside too. */
static int outside(const lgp_symindex *ix, const lgp_code *code, lgp_addr addr) {
  return lgp_symindex_lookup(ix, addr) == LGP_NONE ||
         (code != NULL && lgp_code_section(code, addr) == NULL);
}

/* Is there, in the grain from a caller address, a call to an import: call
** rel32 into the PLT, or call *slot(%rip) through an import's GOT slot
** (-fno-plt)? */
static int after_import_call(const arc_ctx *c, lgp_addr from) {
  const lgp_codesec *sec = lgp_code_section(c->code, from);
  size_t off, k;
  if (sec == NULL)
    return 0;
  off = (size_t)(from - sec->vma);
  for (k = 0; k < CALLER_GRAIN && off + k <= sec->size; k++) {
    const unsigned char *b = sec->bytes + off + k;
    lgp_addr end = from + k;
    if (off + k >= 5 && b[-5] == 0xe8) {
      lgp_addr target = wrap(c, end + (lgp_addr)(int64_t)lgp_bytes_s32le(b - 4));
      const lgp_codesec *to = lgp_code_section(c->code, target);
      if (to != NULL && to->is_plt)
        return 1;
    }
    if (off + k >= 6 && b[-6] == 0xff && b[-5] == 0x15) {
      lgp_addr slot = c->addr_bytes == 4 ? (lgp_addr)(uint32_t)lgp_bytes_s32le(b - 4)
                                         : end + (lgp_addr)(int64_t)lgp_bytes_s32le(b - 4);
      if (lgp_code_slot_name(c->code, slot) != NULL)
        return 1;
    }
  }
  return 0;
}

/* Is the record a call from the executable into a shared library? glibc
** records the callee's address when only the caller lies in the
** executable's text: a -pg library's functions (run-time addresses, or
** relative to a PIE's base) called through the PLT. */
static int into_shared(const arc_ctx *c, lgp_addr from, lgp_addr self) {
  if (outside(c->ix, c->secs, from) || !outside(c->ix, c->secs, self))
    return 0;
  if (c->secs != NULL && lgp_code_section(c->secs, self) != NULL)
    return 0; /* in the executable's code (its PLT, say) */
  return c->code == NULL || after_import_call(c, from) == 1;
}

/* The function that starts exactly at addr, or LGP_NONE. A -pg run records
** a callee's address after the call to mcount, never at its start; gprof
** -s and lgprof merge write the callee's own address instead, and the
** caller's line (or function, without -g) start: the summed form. */
static uint32_t function_at(const arc_ctx *c, lgp_addr addr) {
  uint32_t k = lgp_symindex_lookup(c->ix, addr);
  if (k == LGP_NONE || c->nodes[k].addr != addr || c->nodes[k].is_line)
    return LGP_NONE;
  return k;
}

static lgp_addr node_len(const lgp_node *n) {
  return n->end_addr >= n->addr ? n->end_addr - n->addr + 1 : 0;
}

/* A summed record's caller is the start of the line (or function) holding
** the call: a call must end after it, before its routine's end (give or
** take the grain glibc rounds the caller's address down to), and not the
** prologue's call to mcount (which every -pg function has). Looked for
** over SUMMED_SPAN bytes at most (then -1, unknown, as for an address in
** no code section or no routine). */
#define SUMMED_SPAN 512

static int call_in_line(const arc_ctx *c, lgp_addr from) {
  const lgp_codesec *sec = lgp_code_section(c->code, from);
  uint32_t k = lgp_symindex_lookup(c->ix, from);
  lgp_addr room;
  size_t off, i;
  if (sec == NULL || k == LGP_NONE)
    return -1;
  off = (size_t)(from - sec->vma);
  room = c->nodes[k].end_addr >= from ? c->nodes[k].end_addr - from + CALLER_GRAIN : 0;
  if (room > sec->size - off)
    room = sec->size - off;
  for (i = 1; i <= SUMMED_SPAN && i <= room; i++)
    if (call_ends_at(sec->bytes, off + i) && after_mcount_call(c, from + i) != 1)
      return 1;
  return room > SUMMED_SPAN ? -1 : 0;
}

static void count_check(int r, uint64_t *checked, uint64_t *bad) {
  if (r >= 0) {
    (*checked)++;
    *bad += r == 0;
  }
}

/* One arc record as read. */
static int arc_sink(void *ctx, lgp_addr from, lgp_addr self, uint64_t count) {
  arc_ctx *c = ctx;
  lgp_evidence *ev = c->ev;
  uint32_t callee;
  (void)count;
  ev->arc_records++;
  if (into_shared(c, from, self)) {
    ev->arcs_shared++;
    return 0;
  }
  if (outside(c->ix, c->secs, from) || outside(c->ix, c->secs, self))
    ev->arcs_outside++;
  callee = function_at(c, self);
  ev->arcs_summed += callee != LGP_NONE;
  if (c->code == NULL)
    return 0;
  if (callee != LGP_NONE) {
    count_check(calls_mcount(c, self, node_len(&c->nodes[callee])), &ev->callee_checked,
                &ev->callee_bad);
    count_check(call_in_line(c, from), &ev->caller_checked, &ev->caller_bad);
  } else {
    count_check(after_mcount_call(c, self), &ev->callee_checked, &ev->callee_bad);
    count_check(after_call(c, from), &ev->caller_checked, &ev->caller_bad);
  }
  return 0;
}

/* Every arc record of the profile's files, read again. 0, or -1 when one
** cannot be read (then nothing is counted). */
static int read_arcs(const lgp_profile *p, arc_ctx *c) {
  lgp_gmon g;
  lgp_err ignored = {0, {0}};
  size_t i;
  int rc = 0;
  lgp_gmon_init(&g, p->image->addr_bytes, p->image->big_endian);
  g.sink = arc_sink;
  g.sink_ctx = c;
  for (i = 0; i < p->gmon->nfiles && rc == 0; i++) {
    const char *path = p->gmon->files[i].path;
    /* the loader's arcs of an LD_PROFILE file pass through no mcount and
       start outside the library: nothing here applies to them */
    if (p->gmon->files[i].version == (int)LGP_LDPROFILE_VERSION)
      continue;
    if (strcmp(path, "-") == 0 || lgp_gmon_read(&g, path, LGP_FMT_AUTO, &ignored) != 0)
      rc = -1;
  }
  lgp_gmon_free(&g);
  return rc;
}

/* Samples in bins that no routine overlaps. */
static void count_samples(const lgp_profile *p, const lgp_code *code, lgp_evidence *ev) {
  const lgp_gmon *g = p->gmon;
  double scale = g->hist_scale;
  size_t r, e;
  for (r = 0; r < g->nhist; r++) {
    const lgp_hist *h = &g->hist[r];
    uint64_t lowpc = h->low / 2;
    for (e = 0; e < h->nnz; e++) {
      lgp_addr lo = 2 * (lowpc + (uint64_t)(scale * (double)h->idx[e]));
      lgp_addr hi = 2 * (lowpc + (uint64_t)(scale * (double)(h->idx[e] + 1)));
      ev->samples += h->cnt[e];
      if (outside(p->index, code, lo) && (hi <= lo + 1 || outside(p->index, code, hi - 1)))
        ev->samples_outside += h->cnt[e];
    }
  }
}

static void profile_mtimes(const lgp_profile *p, lgp_evidence *ev) {
  size_t i;
  for (i = 0; i < p->gmon->nfiles; i++) {
    struct stat st;
    const char *path = p->gmon->files[i].path;
    int64_t s, ns;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    s = (int64_t)st.st_mtim.tv_sec;
    ns = (int64_t)st.st_mtim.tv_nsec;
    if (!ev->have_profile_mtime || s < ev->profile_mtime_s ||
        (s == ev->profile_mtime_s && ns < ev->profile_mtime_ns)) {
      ev->profile_mtime_s = s;
      ev->profile_mtime_ns = ns;
    }
    ev->have_profile_mtime = 1;
  }
}

/* The sampled functions whose prologue calls no mcount. 0 or -1. */
static int find_bare(const lgp_profile *p, const arc_ctx *c, lgp_evidence *ev) {
  const lgp_graph *g = &p->graph;
  size_t s;
  for (s = 0; s < g->nsyms; s++) {
    const lgp_node *n = &g->nodes[s];
    lgp_addr len = n->end_addr >= n->addr ? n->end_addr - n->addr + 1 : 0;
    if (n->is_line || n->hist_time <= 0 || calls_mcount(c, n->addr, len) != 0)
      continue;
    if (lgp_grow((void **)&ev->bare, &ev->bare_cap, ev->nbare + 1, sizeof *ev->bare) != 0)
      return -1;
    ev->bare[ev->nbare++] = (uint32_t)s;
  }
  return 0;
}

void lgp_evidence_free(lgp_evidence *ev) {
  free(ev->bare);
  ev->bare = NULL;
  ev->nbare = ev->bare_cap = 0;
}

int lgp_evidence_compute(const lgp_profile *p, lgp_evidence *ev, lgp_err *err) {
  const lgp_image *im = p->image;
  lgp_code code;
  lgp_err ignored = {0, {0}};
  arc_ctx c;
  int have_code;
  size_t i;
  int rc = 0;
  memset(ev, 0, sizeof *ev);
  memset(&c, 0, sizeof c);
  c.ix = p->index;
  c.nodes = p->graph.nodes;
  c.addr_bytes = im->addr_bytes;
  c.ev = ev;
  ev->image_mtime_s = im->mtime_s;
  ev->image_mtime_ns = im->mtime_ns;
  profile_mtimes(p, ev);
  for (i = 0; i < im->nsyms; i++) {
    if (is_mcount(im->syms[i].name))
      add_target(&c, im->syms[i].addr);
    ev->uses_threads |= is_thread_start(im->syms[i].name);
  }
  have_code = lgp_code_load(&code, im, 1, &ignored) == 0;
  if (have_code) {
    c.secs = &code;
    for (i = 0; i < code.nslots; i++) {
      const char *name = code.names + code.slots[i].name;
      ev->uses_threads |= is_thread_start(name);
      ev->mcount_known |= is_mcount(name);
    }
    /* x86-64 only: i386's PIC prologues call through %ebx's GOT
       (FF 93), which bytes alone do not resolve */
    if (im->machine == EM_X86_64) {
      c.code = &code;
      find_mcount_stubs(&c);
      ev->code_known = 1;
    }
  }
  ev->mcount_known |= c.ntargets > 0;
  count_samples(p, have_code ? &code : NULL, ev);
  ev->arcs_read = read_arcs(p, &c) == 0;
  if (!ev->arcs_read) {
    ev->arc_records = ev->arcs_outside = ev->arcs_shared = ev->arcs_summed = 0;
    ev->callee_checked = ev->callee_bad = ev->caller_checked = ev->caller_bad = 0;
  }
  if (ev->code_known && ev->mcount_known && find_bare(p, &c, ev) != 0)
    rc = lgp_fail(err, NULL, "out of memory");
  if (have_code)
    lgp_code_free(&code);
  if (rc != 0)
    lgp_evidence_free(ev);
  return rc;
}
