/*
** disasm.c: lgprof's static call graph (--static-arcs): the code of every
** function symbol decoded with Capstone, the calls and tail jumps to a
** symbol's start taken as count-0 arcs, with the PLT's stubs followed to
** the import their GOT slot receives; and Capstone's loading (capstone.h),
** shared with --annotate-asm (asm.c).
*/
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "model/capstone.h"
#include "model/staticcg.h"

/* A PLT stub: its address and the import it jumps to. */
typedef struct stub {
  lgp_addr addr;
  const char *name;
} stub;

typedef struct decoder {
  const lgp_scan_ctx *s;
  const lgp_code *code;
  lgp_capstone api;
  csh cs;
  cs_insn *insn;
  stub *stubs;             /* ascending by addr */
  size_t nstubs, stubs_cap;
  uint32_t *by_name;       /* function symbols by name (strcmp), ties by address */
  size_t nnamed;
} decoder;

/* The target of a direct branch (an immediate operand), or 0. */
static int imm_target(const cs_insn *in, lgp_addr *target) {
  const cs_x86 *x = &in->detail->x86;
  if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
    return 0;
  *target = (lgp_addr)x->operands[0].imm;
  return 1;
}

/* The GOT slot of an indirect jump or call through rip, or 0. */
static int rip_slot(const cs_insn *in, lgp_addr *slot) {
  const cs_x86 *x = &in->detail->x86;
  if (x->op_count != 1 || x->operands[0].type != X86_OP_MEM ||
      x->operands[0].mem.base != X86_REG_RIP || x->operands[0].mem.index != X86_REG_INVALID)
    return 0;
  *slot = in->address + in->size + (lgp_addr)x->operands[0].mem.disp;
  return 1;
}

static int is_branch(const decoder *d, const cs_insn *in, int group) {
  return d->api.insn_group(d->cs, in, (uint8_t)group);
}

/* Each PLT entry whose first indirect jump reads a slot that a dynamic
** relocation names becomes a stub of that import. */
static int read_stubs(decoder *d) {
  size_t i;
  for (i = 0; i < d->code->nsecs; i++) {
    const lgp_codesec *sec = &d->code->secs[i];
    size_t off;
    if (!sec->is_plt)
      continue;
    for (off = 0; off < sec->size; off += sec->entsize) {
      const uint8_t *p = sec->bytes + off;
      size_t left = sec->size - off < sec->entsize ? sec->size - off : sec->entsize;
      uint64_t addr = sec->vma + off;
      lgp_addr slot;
      while (left > 0 && d->api.disasm_iter(d->cs, &p, &left, &addr, d->insn)) {
        const char *name;
        if (!is_branch(d, d->insn, X86_GRP_JUMP))
          continue;
        if (rip_slot(d->insn, &slot) && (name = lgp_code_slot_name(d->code, slot)) != NULL) {
          if (lgp_grow((void **)&d->stubs, &d->stubs_cap, d->nstubs + 1, sizeof *d->stubs) != 0)
            return -1;
          d->stubs[d->nstubs].addr = sec->vma + off;
          d->stubs[d->nstubs++].name = name;
        }
        break; /* the entry's first jump decides */
      }
    }
  }
  return 0;
}

static int cmp_stub(const void *a, const void *b) {
  const stub *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *stub_name(const decoder *d, lgp_addr addr) {
  size_t lo = lgp_addr_count_lt(d->stubs, d->nstubs, sizeof *d->stubs, offsetof(stub, addr), addr);
  return lo < d->nstubs && d->stubs[lo].addr == addr ? d->stubs[lo].name : NULL;
}

static int cmp_name(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_node *n = ctx;
  int c = strcmp(n[a].name, n[b].name);
  return c != 0 ? c : (n[a].addr < n[b].addr ? -1 : n[a].addr > n[b].addr);
}

/* The first function symbol (by address) named name, or LGP_NONE. */
static uint32_t node_named(const decoder *d, const char *name) {
  size_t lo = 0, hi = d->nnamed;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(d->s->nodes[d->by_name[mid]].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < d->nnamed && strcmp(d->s->nodes[d->by_name[lo]].name, name) == 0
         ? d->by_name[lo] : LGP_NONE;
}

/* The symbol starting exactly at addr that is not a line symbol, or LGP_NONE. */
static uint32_t symbol_at(const decoder *d, lgp_addr addr) {
  uint32_t k = lgp_symindex_lookup(d->s->ix, addr);
  if (k == LGP_NONE || d->s->nodes[k].addr != addr || d->s->nodes[k].is_line)
    return LGP_NONE;
  return k;
}

/* One instruction of function fn: an arc if it calls or jumps to a start. */
static int visit(decoder *d, uint32_t fn, const cs_insn *in, lgp_err *err) {
  int call = is_branch(d, in, X86_GRP_CALL), jump = !call && is_branch(d, in, X86_GRP_JUMP);
  lgp_addr target, slot, at;
  uint32_t child = LGP_NONE, parent;
  if (!call && !jump)
    return 0;
  if (imm_target(in, &target)) {
    const char *import = stub_name(d, target);
    child = import != NULL ? node_named(d, import) : symbol_at(d, target);
  } else if (rip_slot(in, &slot)) { /* call/jmp *f@GOTPCREL(%rip) (-fno-plt) */
    const char *import = lgp_code_slot_name(d->code, slot);
    child = import != NULL ? node_named(d, import) : LGP_NONE;
  }
  if (child == LGP_NONE || (jump && child == fn))
    return 0;
  at = in->address;
  if (d->s->lines && call) {
    lgp_addr ret = (in->address + in->size) & ~(lgp_addr)15;
    if (ret >= d->s->nodes[fn].addr)
      at = ret;
  }
  parent = lgp_symindex_lookup(d->s->ix, at);
  if (parent == LGP_NONE)
    return 0;
  return lgp_staticcg_arc(d->s, parent, child, jump, err);
}

/* Decodes [start, end) of function fn, from its start on; an undecodable
** byte is stepped over. */
static int decode_range(decoder *d, uint32_t fn, lgp_addr start, lgp_addr end, lgp_err *err) {
  const lgp_codesec *sec = lgp_code_section(d->code, start);
  lgp_addr sec_end;
  uint64_t addr = start;
  if (sec == NULL)
    return 0;
  sec_end = sec->vma + sec->size;
  if (end > sec_end)
    end = sec_end;
  while (addr < end) {
    const uint8_t *p = sec->bytes + (addr - sec->vma);
    size_t left = (size_t)(sec_end - addr);
    if (!d->api.disasm_iter(d->cs, &p, &left, &addr, d->insn)) {
      addr++;
      continue;
    }
    if (visit(d, fn, d->insn, err) != 0)
      return -1;
  }
  return 0;
}

static int decode_all(decoder *d, lgp_err *err) {
  const lgp_scan_ctx *s = d->s;
  size_t i, next;
  if (read_stubs(d) != 0)
    return lgp_fail(err, NULL, "out of memory");
  if (d->nstubs > 1)
    qsort(d->stubs, d->nstubs, sizeof *d->stubs, cmp_stub);
  d->by_name = lgp_alloc_array(s->n ? s->n : 1, sizeof *d->by_name);
  if (d->by_name == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < s->n; i++)
    if (!s->nodes[i].is_line && s->nodes[i].name != NULL)
      d->by_name[d->nnamed++] = (uint32_t)i;
  if (lgp_sort_indices(d->by_name, d->nnamed, cmp_name, s->nodes) != 0)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < s->n; i = next) {
    lgp_addr end;
    for (next = i + 1; next < s->n && s->nodes[next].is_line; next++)
      ;
    if (s->nodes[i].is_line)
      continue;
    end = next < s->n ? s->nodes[next].addr : s->nodes[i].end_addr + 1;
    if (end > s->nodes[i].addr && decode_range(d, (uint32_t)i, s->nodes[i].addr, end, err) != 0)
      return -1;
  }
  return 0;
}

int lgp_staticcg_decode(const lgp_scan_ctx *s, const lgp_code *code, lgp_err *err) {
  decoder d;
  int rc;
  memset(&d, 0, sizeof d);
  d.s = s;
  d.code = code;
  if (lgp_capstone_load(&d.api, "--static-arcs", err) != 0)
    return -1;
  if (d.api.open(CS_ARCH_X86, CS_MODE_64, &d.cs) != CS_ERR_OK) {
    lgp_capstone_unload(&d.api);
    return lgp_fail(err, NULL, "cannot start the Capstone x86-64 decoder");
  }
  d.api.option(d.cs, CS_OPT_DETAIL, CS_OPT_ON);
  d.insn = d.api.malloc_insn(d.cs);
  if (d.insn == NULL) {
    d.api.close(&d.cs);
    lgp_capstone_unload(&d.api);
    return lgp_fail(err, NULL, "out of memory");
  }
  rc = decode_all(&d, err);
  d.api.free_insn(d.insn, 1);
  d.api.close(&d.cs);
  lgp_capstone_unload(&d.api);
  free(d.stubs);
  free(d.by_name);
  return rc;
}

/* dlsym's object pointer as the function pointer at fn (POSIX's way). */
static int get_fn(void *lib, const char *name, void *fn) {
  void *p = dlsym(lib, name);
  if (p == NULL)
    return -1;
  memcpy(fn, &p, sizeof p);
  return 0;
}

int lgp_capstone_load(lgp_capstone *c, const char *what, lgp_err *err) {
  static const char *const names[] = {"libcapstone.so.4", "libcapstone.so.5", "libcapstone.so"};
  size_t i;
  memset(c, 0, sizeof *c);
  for (i = 0; i < sizeof names / sizeof *names && c->lib == NULL; i++)
    c->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (c->lib == NULL)
    return lgp_fail(err, NULL, "%s needs Capstone (libcapstone.so.4): %s", what, dlerror());
  if (get_fn(c->lib, "cs_open", &c->open) != 0 || get_fn(c->lib, "cs_option", &c->option) != 0 ||
      get_fn(c->lib, "cs_malloc", &c->malloc_insn) != 0 ||
      get_fn(c->lib, "cs_disasm_iter", &c->disasm_iter) != 0 ||
      get_fn(c->lib, "cs_insn_group", &c->insn_group) != 0 ||
      get_fn(c->lib, "cs_free", &c->free_insn) != 0 || get_fn(c->lib, "cs_close", &c->close) != 0) {
    dlclose(c->lib);
    c->lib = NULL;
    return lgp_fail(err, NULL, "%s: the Capstone library lacks cs_disasm_iter", what);
  }
  return 0;
}

void lgp_capstone_unload(lgp_capstone *c) {
  if (c->lib != NULL)
    dlclose(c->lib);
  c->lib = NULL;
}
