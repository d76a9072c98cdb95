/*
** asm.c: a function's instructions with their samples, source lines and
** inline chains (asm.h says how samples are counted).
*/
#include <elf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/asm.h"
#include "model/capstone.h"
#include "model/stackprofile.h"
#include "read/codeimg.h"

/* A binary the session read: its symbols, code and DWARF. */
typedef struct asm_bin {
  char *path;
  const lgp_image *im;     /* the profile's, or own */
  lgp_image own;
  int own_open;
  lgp_code code;
  int code_state;          /* 0 not read, 1 read, -1 unreadable */
  int dw_fd;
  Dwarf *dw;               /* NULL: no DWARF */
  int dw_state;
  int tab_named;           /* sym_* taken from a recording's functions */
  lgp_addr *sym_addr;      /* function symbols by address, for naming targets */
  const char **sym_name;
  size_t nsyms;
} asm_bin;

/* A sampled leaf: its function (table id), address, samples and weight. */
typedef struct asm_leaf {
  uint32_t func;
  uint64_t addr, samples, weight;
} asm_leaf;

struct lgp_asm_session {
  const lgp_profile *p;
  lgp_capstone api;
  csh cs;
  cs_insn *insn;
  int cs_state;            /* 0 not loaded, 1 ready, -1 unavailable */
  char cs_why[sizeof ((lgp_err *)0)->msg];
  asm_bin *bins;
  size_t nbins, bins_cap;
  asm_leaf *leaves;        /* by function, then address; NULL until needed */
  size_t nleaves;
  int leaves_made;
};

lgp_asm_session *lgp_asm_session_new(const lgp_profile *p) {
  lgp_asm_session *s = calloc(1, sizeof *s);
  if (s != NULL)
    s->p = p;
  return s;
}

static void bin_free(asm_bin *b) {
  lgp_code_free(&b->code);
  if (b->dw != NULL)
    dwarf_end(b->dw);
  if (b->dw_fd >= 0)
    close(b->dw_fd);
  if (b->own_open)
    lgp_image_free(&b->own);
  free(b->sym_addr);
  free(b->sym_name);
  free(b->path);
}

void lgp_asm_session_free(lgp_asm_session *s) {
  size_t i;
  if (s == NULL)
    return;
  for (i = 0; i < s->nbins; i++)
    bin_free(&s->bins[i]);
  free(s->bins);
  free(s->leaves);
  if (s->insn != NULL)
    s->api.free_insn(s->insn, 1);
  if (s->cs_state == 1)
    s->api.close(&s->cs);
  lgp_capstone_unload(&s->api);
  free(s);
}

void lgp_asm_list_free(lgp_asm_list *l) {
  free(l->insns);
  free(l->inl);
  lgp_strset_free(&l->strs);
  memset(l, 0, sizeof *l);
}

/* ---- strings and rows ---- */

static uint32_t str_id(lgp_asm_list *l, const char *s, lgp_err *err) {
  int32_t id = lgp_strset_add(&l->strs, s ? s : "", NULL);
  if (id < 0) {
    lgp_fail(err, NULL, "out of memory");
    return LGP_ASM_NOSTR;
  }
  return (uint32_t)id;
}

static lgp_asm_insn *row_add(lgp_asm_list *l, lgp_addr addr, lgp_err *err) {
  lgp_asm_insn *r;
  if (lgp_grow((void **)&l->insns, &l->cap, l->n + 1, sizeof *l->insns) != 0) {
    lgp_fail(err, NULL, "out of memory");
    return NULL;
  }
  r = &l->insns[l->n++];
  memset(r, 0, sizeof *r);
  r->addr = addr;
  r->mnemonic = r->operands = r->target_name = r->file = LGP_ASM_NOSTR;
  return r;
}

/* The row holding addr (the last starting at or below it), or n. */
static size_t row_at(const lgp_asm_list *l, lgp_addr addr) {
  size_t k = lgp_addr_count_le(l->insns, l->n, sizeof *l->insns, offsetof(lgp_asm_insn, addr),
                               addr);
  return k > 0 ? k - 1 : l->n;
}

/* ---- binaries ---- */

static int cmp_addr_idx(const void *ctx, uint32_t a, uint32_t b) {
  const lgp_rawsym *y = ctx;
  return y[a].addr < y[b].addr ? -1 : y[a].addr > y[b].addr;
}

/* An ELF file without a symbol table (a stripped binary: perf named its
** functions from elsewhere) as an image of no symbols, for its code: its
** machine and what lgp_code_load checks before reading it again. 0, or -1
** when it is not an ELF file. */
static int bare_image(lgp_image *im, const char *path) {
  struct stat st;
  GElf_Ehdr eh;
  Elf *elf;
  int fd = open(path, O_RDONLY), rc = -1;
  if (fd < 0)
    return -1;
  elf_version(EV_CURRENT);
  if (fstat(fd, &st) == 0 && (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL) {
    if (elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) != NULL) {
      im->machine = eh.e_machine;
      im->dev = (uint64_t)st.st_dev;
      im->ino = (uint64_t)st.st_ino;
      im->size = (uint64_t)st.st_size;
      im->mtime_s = (int64_t)st.st_mtim.tv_sec;
      im->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
      im->path = lgp_strdup(path);
      rc = 0;
    }
    elf_end(elf);
  }
  close(fd);
  return rc;
}

/* The binary at path (im: the profile's image of it, or NULL to open it). */
static asm_bin *bin_get(lgp_asm_session *s, const char *path, const lgp_image *im, lgp_err *err) {
  asm_bin *b;
  uint32_t *idx;
  size_t i;
  for (i = 0; i < s->nbins; i++)
    if (strcmp(s->bins[i].path, path) == 0)
      return &s->bins[i];
  if (lgp_grow((void **)&s->bins, &s->bins_cap, s->nbins + 1, sizeof *s->bins) != 0) {
    lgp_fail(err, NULL, "out of memory");
    return NULL;
  }
  b = &s->bins[s->nbins];
  memset(b, 0, sizeof *b);
  b->dw_fd = -1;
  if ((b->path = lgp_strdup(path)) == NULL) {
    lgp_fail(err, NULL, "out of memory");
    return NULL;
  }
  s->nbins++;
  if (im == NULL) {
    lgp_image_opts o;
    memset(&o, 0, sizeof o);
    if (lgp_image_open(&b->own, path, &o, err) == 0) {
      b->own_open = 1;
      im = &b->own;
    } else {
      err->set = 0;
      memset(&b->own, 0, sizeof b->own);
      if (bare_image(&b->own, path) != 0) {
        b->code_state = -1; /* not an ELF file: listed undecoded */
        return b;
      }
      if (b->own.path == NULL) {
        lgp_fail(err, NULL, "out of memory");
        return NULL;
      }
      b->own_open = 1;
      im = &b->own;
    }
  }
  b->im = im;
  /* the function symbols by address, to name a call's target */
  idx = lgp_alloc_array(im->nsyms ? im->nsyms : 1, sizeof *idx);
  b->sym_addr = lgp_alloc_array(im->nsyms ? im->nsyms : 1, sizeof *b->sym_addr);
  b->sym_name = lgp_alloc_array(im->nsyms ? im->nsyms : 1, sizeof *b->sym_name);
  if (idx == NULL || b->sym_addr == NULL || b->sym_name == NULL) {
    free(idx);
    lgp_fail(err, NULL, "out of memory");
    return NULL;
  }
  for (i = 0; i < im->nsyms; i++)
    idx[i] = (uint32_t)i;
  if (lgp_sort_indices(idx, im->nsyms, cmp_addr_idx, im->syms) != 0) {
    free(idx);
    lgp_fail(err, NULL, "out of memory");
    return NULL;
  }
  for (i = 0; i < im->nsyms; i++) {
    const lgp_rawsym *y = &im->syms[idx[i]];
    if (y->is_line || y->name == NULL)
      continue;
    if (b->nsyms > 0 && b->sym_addr[b->nsyms - 1] == y->addr)
      continue; /* the first at an address names it */
    b->sym_addr[b->nsyms] = y->addr;
    b->sym_name[b->nsyms++] = y->name;
  }
  free(idx);
  return b;
}

static int bin_code(asm_bin *b) {
  lgp_err e;
  if (b->code_state == 0) {
    memset(&e, 0, sizeof e);
    b->code_state = lgp_code_load(&b->code, b->im, 1, &e) == 0 ? 1 : -1;
  }
  return b->code_state == 1;
}

static Dwarf *bin_dwarf(asm_bin *b) {
  if (b->dw_state == 0) {
    b->dw_state = -1;
    if ((b->dw_fd = open(b->path, O_RDONLY)) >= 0) {
      b->dw = dwarf_begin(b->dw_fd, DWARF_C_READ);
      if (b->dw != NULL)
        b->dw_state = 1;
    }
  }
  return b->dw;
}

/* The symbol holding addr: its name and start, or NULL. */
static const char *bin_sym(const asm_bin *b, lgp_addr addr, lgp_addr *start) {
  size_t k = lgp_addr_count_le(b->sym_addr, b->nsyms, sizeof *b->sym_addr, 0, addr);
  if (k == 0)
    return NULL;
  *start = b->sym_addr[k - 1];
  return b->sym_name[k - 1];
}

typedef struct named_start {
  lgp_addr addr;
  const char *name;
} named_start;

static int cmp_named(const void *a, const void *b) {
  const named_start *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A binary without a symbol table (stripped: the recording's reader named
** its functions from its other symbols or its debug file) names targets
** after the recording's functions in it. 0, or -1 out of memory. */
static int bin_names_from_tab(asm_bin *b, const lgp_stacktab *t, uint32_t dso) {
  named_start *v;
  size_t i, n = 0;
  if (b->nsyms > 0 || b->tab_named)
    return 0;
  b->tab_named = 1;
  v = lgp_alloc_array(t->nfuncs ? t->nfuncs : 1, sizeof *v);
  if (v == NULL)
    return -1;
  for (i = 0; i < t->nfuncs; i++)
    if (t->funcs[i].dso == dso && !t->funcs[i].is_inline && !t->funcs[i].is_unknown) {
      v[n].addr = t->funcs[i].start;
      v[n++].name = t->funcs[i].name;
    }
  if (n > 1)
    qsort(v, n, sizeof *v, cmp_named);
  free(b->sym_addr);
  free(b->sym_name);
  b->sym_addr = lgp_alloc_array(n ? n : 1, sizeof *b->sym_addr);
  b->sym_name = lgp_alloc_array(n ? n : 1, sizeof *b->sym_name);
  if (b->sym_addr == NULL || b->sym_name == NULL) {
    free(v);
    return -1;
  }
  for (i = 0; i < n; i++) {
    b->sym_addr[i] = v[i].addr;
    b->sym_name[i] = v[i].name;
  }
  b->nsyms = n;
  free(v);
  return 0;
}

/* ---- decoding ---- */

static int decoder_ready(lgp_asm_session *s) {
  lgp_err e;
  if (s->cs_state != 0)
    return s->cs_state == 1;
  memset(&e, 0, sizeof e);
  s->cs_state = -1;
  if (lgp_capstone_load(&s->api, "--annotate-asm", &e) != 0) {
    snprintf(s->cs_why, sizeof s->cs_why, "%s", e.msg);
    return 0;
  }
  if (s->api.open(CS_ARCH_X86, CS_MODE_64, &s->cs) != CS_ERR_OK)
    return 0;
  s->api.option(s->cs, CS_OPT_DETAIL, CS_OPT_ON);
  if ((s->insn = s->api.malloc_insn(s->cs)) == NULL) {
    s->api.close(&s->cs);
    return 0;
  }
  s->cs_state = 1;
  return 1;
}

static int in_group(const lgp_asm_session *s, const cs_insn *in, int group) {
  return s->api.insn_group(s->cs, in, (uint8_t)group);
}

/* The import whose GOT slot an indirect jump or call through rip reads,
** or NULL. */
static const char *slot_import(const asm_bin *b, const cs_insn *in) {
  const cs_x86 *x = &in->detail->x86;
  if (x->op_count != 1 || x->operands[0].type != X86_OP_MEM ||
      x->operands[0].mem.base != X86_REG_RIP || x->operands[0].mem.index != X86_REG_INVALID)
    return NULL;
  return lgp_code_slot_name(&b->code, in->address + in->size + (lgp_addr)x->operands[0].mem.disp);
}

/* The import a PLT entry at addr jumps to (its first indirect jump), or
** NULL. Decodes with s->insn: the caller's instruction is read before. */
static const char *plt_import(lgp_asm_session *s, const asm_bin *b, lgp_addr addr) {
  const lgp_codesec *sec = lgp_code_section(&b->code, addr);
  const uint8_t *p;
  size_t left;
  uint64_t at = addr;
  int k;
  if (sec == NULL || !sec->is_plt)
    return NULL;
  p = sec->bytes + (addr - sec->vma);
  left = (size_t)(sec->vma + sec->size - addr);
  if (left > sec->entsize)
    left = sec->entsize;
  for (k = 0; k < 4 && s->api.disasm_iter(s->cs, &p, &left, &at, s->insn); k++)
    if (in_group(s, s->insn, X86_GRP_JUMP))
      return slot_import(b, s->insn);
  return NULL;
}

/* [lo, hi) of b decoded into l's rows; a byte that does not decode is a
** row of its own ("(bad)"). 0, or -1 with a message. */
static int decode(lgp_asm_session *s, asm_bin *b, lgp_asm_list *l, lgp_addr lo, lgp_addr hi,
                  lgp_err *err) {
  const lgp_codesec *sec = lgp_code_section(&b->code, lo);
  uint64_t addr = lo;
  lgp_addr sec_end;
  if (sec == NULL)
    return 0;
  sec_end = sec->vma + sec->size;
  if (hi > sec_end)
    hi = sec_end;
  while (addr < hi) {
    const uint8_t *p = sec->bytes + (addr - sec->vma);
    size_t left = (size_t)(hi - addr);
    uint64_t at = addr;
    lgp_asm_insn *r = row_add(l, at, err);
    const cs_insn *in = s->insn;
    const char *name;
    char import[300];
    if (r == NULL)
      return -1;
    if (!s->api.disasm_iter(s->cs, &p, &left, &addr, s->insn)) {
      r->size = 1;
      r->bytes[0] = sec->bytes[at - sec->vma];
      r->mnemonic = str_id(l, "(bad)", err);
      r->operands = str_id(l, "", err);
      addr = at + 1;
      if (err->set)
        return -1;
      continue;
    }
    r->size = (uint8_t)in->size;
    memcpy(r->bytes, in->bytes, in->size < sizeof r->bytes ? in->size : sizeof r->bytes);
    r->mnemonic = str_id(l, in->mnemonic, err);
    r->operands = str_id(l, in->op_str, err);
    if (err->set)
      return -1;
    r->is_call = (uint8_t)in_group(s, in, X86_GRP_CALL);
    r->is_jump = (uint8_t)(!r->is_call && in_group(s, in, X86_GRP_JUMP));
    r->is_ret = (uint8_t)in_group(s, in, X86_GRP_RET);
    if ((r->is_call || r->is_jump) && (name = slot_import(b, in)) != NULL) {
      /* call *f@GOTPCREL(%rip) (-fno-plt): the import's name, no address */
      snprintf(import, sizeof import, "%s@GOT", name);
      r->target_name = str_id(l, import, err);
      if (err->set)
        return -1;
    } else if ((r->is_call || r->is_jump) && in->detail->x86.op_count == 1 &&
        in->detail->x86.operands[0].type == X86_OP_IMM) {
      lgp_addr start;
      r->has_target = 1;
      r->target = (lgp_addr)in->detail->x86.operands[0].imm;
      r->back_edge = (uint8_t)(r->is_jump && r->target <= at && r->target >= l->start);
      if ((name = plt_import(s, b, r->target)) != NULL) {
        snprintf(import, sizeof import, "%s@plt", name);
        r->target_name = str_id(l, import, err);
        if (err->set)
          return -1;
      } else if (r->target < l->start || r->target >= l->end) {
        if ((name = bin_sym(b, r->target, &start)) != NULL) {
          r->target_name = str_id(l, name, err);
          r->target_off = r->target - start;
          if (err->set)
            return -1;
        }
      } else {
        r->target_off = r->target - l->start;
      }
    }
  }
  return 0;
}

/* ---- source lines and inline chains ---- */

static const char *die_name(Dwarf_Die *die) {
  Dwarf_Attribute a;
  const char *n = NULL;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
    n = dwarf_formstring(&a);
  return n ? n : dwarf_diename(die);
}

/* Does die (a lexical block or an inlined subroutine) hold addr? 1 yes, 0
** no, -1 it has no addresses of its own (a block whose children have). */
static int holds(Dwarf_Die *die, Dwarf_Addr addr) {
  if (!dwarf_hasattr(die, DW_AT_low_pc) && !dwarf_hasattr(die, DW_AT_ranges))
    return -1;
  return dwarf_haspc(die, addr) > 0;
}

/* The innermost inlined subroutines holding addr under die, innermost
** first, into chain[] (at most cap; *n of them): from the function's own
** DIE down, one child a level (blocks without addresses searched through),
** so a lookup costs the children on the path, not the unit's DIEs. */
static void inline_path(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Die *chain, int cap, int *n,
                        int depth) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(die, &child) != 0)
    return;
  do {
    int tag = dwarf_tag(&child), h;
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
      continue;
    h = holds(&child, addr);
    if (h == 0 || (h < 0 && tag == DW_TAG_inlined_subroutine))
      continue;
    if (h > 0 && tag == DW_TAG_inlined_subroutine) {
      inline_path(&child, addr, chain, cap, n, depth + 1);
      if (*n < cap) { /* after the inner ones: innermost first */
        chain[*n] = child;
        ++*n;
      }
      return;
    }
    {
      int before = *n;
      inline_path(&child, addr, chain, cap, n, depth + 1);
      if (h > 0 || *n > before)
        return;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

/* The concrete subprogram DIE holding addr in cu: the outermost scope that
** is a subprogram with addr in its ranges (libdw's scopes past an inlined
** instance are its abstract definition's, which have none). 0, or -1. */
static int subprogram_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *sub) {
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes(cu, addr, &scopes), i, found = -1;
  for (i = 0; i < n; i++)
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && dwarf_haspc(&scopes[i], addr) > 0) {
      *sub = scopes[i];
      found = 0;
    }
  free(scopes);
  return found;
}

#define MAX_INLINE 64

/* Each row's line and the inlined functions holding its address,
** innermost first, with the line each was called from. */
static int add_sources(lgp_asm_list *l, Dwarf *dw, lgp_err *err) {
  Dwarf_Die cu, sub, chain[MAX_INLINE];
  Dwarf_Files *files = NULL;
  size_t nfiles = 0, i;
  int have_sub;
  if (l->n == 0 || dwarf_addrdie(dw, l->insns[0].addr, &cu) == NULL)
    return 0;
  have_sub = subprogram_at(&cu, l->insns[0].addr, &sub) == 0;
  if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
    files = NULL;
  for (i = 0; i < l->n; i++) {
    lgp_asm_insn *r = &l->insns[i];
    Dwarf_Line *ln = dwarf_getsrc_die(&cu, r->addr);
    int nchain = 0, k;
    if (ln != NULL) {
      int lineno = 0;
      const char *src = dwarf_linesrc(ln, NULL, NULL);
      if (dwarf_lineno(ln, &lineno) == 0 && lineno > 0 && src != NULL) {
        r->file = str_id(l, src, err);
        r->line = (uint32_t)lineno;
        if (err->set)
          return -1;
      }
    }
    if (have_sub && dwarf_haspc(&sub, r->addr) > 0)
      inline_path(&sub, r->addr, chain, MAX_INLINE, &nchain, 0);
    r->inl_first = (uint32_t)l->ninl;
    for (k = 0; k < nchain; k++) {
      Dwarf_Attribute a;
      Dwarf_Word cf = 0, cl = 0;
      lgp_asm_inline *x;
      const char *name;
      if (lgp_grow((void **)&l->inl, &l->inl_cap, l->ninl + 1, sizeof *l->inl) != 0)
        return lgp_fail(err, NULL, "out of memory");
      x = &l->inl[l->ninl];
      name = die_name(&chain[k]);
      x->name = str_id(l, name ? name : "[inlined]", err);
      x->call_file = LGP_ASM_NOSTR;
      x->call_line = 0;
      if (dwarf_formudata(dwarf_attr(&chain[k], DW_AT_call_line, &a), &cl) == 0)
        x->call_line = (uint32_t)cl;
      if (files != NULL && dwarf_formudata(dwarf_attr(&chain[k], DW_AT_call_file, &a), &cf) == 0 &&
          cf < nfiles)
        x->call_file = str_id(l, dwarf_filesrc(files, cf, NULL, NULL), err);
      if (err->set)
        return -1;
      l->ninl++;
      r->ninl++;
    }
  }
  return 0;
}

/* ---- samples: gmon.out's histogram ---- */

/* The first nonzero bin of h (index into idx) whose high edge passes lo. */
static size_t first_bin(const lgp_hist *h, double scale, uint64_t lowpc, uint64_t lo) {
  size_t a = 0, b = h->nnz;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    uint64_t high = lowpc + (uint64_t)(scale * (double)(h->idx[m] + 1));
    if (high <= lo)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

/* Spreads the bins over the rows of [l->start, l->end), gprof's way. */
static void credit_gmon(lgp_asm_list *l, const lgp_gmon *g) {
  double scale = g->hist_scale;
  uint64_t lo = l->start / 2, hi = l->end / 2;
  size_t r;
  l->scale = scale;
  for (r = 0; r < g->nhist; r++) {
    const lgp_hist *h = &g->hist[r];
    uint64_t lowpc = h->low / 2;
    size_t e, k = 0;
    for (e = first_bin(h, scale, lowpc, lo); e < h->nnz; e++) {
      uint32_t i = h->idx[e];
      uint64_t count = h->cnt[e];
      uint64_t bin_low = lowpc + (uint64_t)(scale * (double)i);
      uint64_t bin_high = lowpc + (uint64_t)(scale * (double)(i + 1));
      size_t first = l->n, touched = 0, j;
      int outside;
      if (bin_low >= hi)
        break;
      outside = bin_low < lo || bin_high > hi;
      while (k > 0 && l->insns[k].addr / 2 > bin_low)
        k--;
      for (j = k; j < l->n; j++) {
        uint64_t ilo = l->insns[j].addr / 2;
        uint64_t ihi = j + 1 < l->n ? l->insns[j + 1].addr / 2 : hi;
        uint64_t a, z;
        if (ilo >= bin_high)
          break;
        a = ilo > bin_low ? ilo : bin_low;
        z = ihi < bin_high ? ihi : bin_high;
        if (z <= a)
          continue;
        if (first == l->n)
          first = j;
        touched++;
        l->insns[j].units += (z - a) * count;
      }
      if (first < l->n) {
        if (touched > 1 || outside)
          for (j = first; j < first + touched; j++)
            l->insns[j].shared_bin = 1;
        k = first;
      }
    }
  }
  for (r = 0; r < l->n; r++) {
    l->insns[r].samples = l->insns[r].weight = (double)l->insns[r].units / scale;
    l->units += l->insns[r].units;
    l->samples += l->insns[r].samples;
  }
  l->weight = l->samples;
}

/* The rows of an undecoded gmon function: one per bin with samples (at the
** bin's first address in the function). */
static int rows_of_bins(lgp_asm_list *l, const lgp_gmon *g, lgp_err *err) {
  double scale = g->hist_scale;
  uint64_t lo = l->start / 2, hi = l->end / 2;
  size_t r, e;
  for (r = 0; r < g->nhist; r++) {
    const lgp_hist *h = &g->hist[r];
    uint64_t lowpc = h->low / 2;
    for (e = first_bin(h, scale, lowpc, lo); e < h->nnz; e++) {
      uint64_t bin_low = lowpc + (uint64_t)(scale * (double)h->idx[e]);
      lgp_addr at;
      if (bin_low >= hi)
        break;
      at = bin_low < lo ? l->start : bin_low * 2;
      if ((l->n == 0 || l->insns[l->n - 1].addr < at) && row_add(l, at, err) == NULL)
        return -1;
    }
  }
  return 0;
}

/* ---- samples: perf.data's leaves ---- */

static int cmp_leaf(const void *a, const void *b) {
  const asm_leaf *x = a, *y = b;
  if (x->func != y->func)
    return x->func < y->func ? -1 : 1;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every stack's leaf address, under the function of the symbol holding
** it (the first frame from the leaf that is not an inlined one). */
static int make_leaves(lgp_asm_session *s, lgp_err *err) {
  const lgp_stacktab *t = &s->p->stacks->tab;
  size_t i, n = 0;
  s->leaves_made = 1;
  s->leaves = lgp_alloc_array(t->nstacks ? t->nstacks : 1, sizeof *s->leaves);
  if (s->leaves == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < t->nstacks; i++) {
    const lgp_st_stack *st = &t->stacks[i];
    uint32_t d;
    const lgp_st_frame *leaf;
    if (st->depth == 0)
      continue;
    leaf = &t->frame_defs[t->frames[st->first]];
    for (d = 0; d < st->depth; d++) {
      const lgp_st_frame *f = &t->frame_defs[t->frames[st->first + d]];
      if (!t->funcs[f->func].is_inline) {
        s->leaves[n].func = f->func;
        s->leaves[n].addr = leaf->addr;
        s->leaves[n].samples = st->samples;
        s->leaves[n++].weight = st->weight;
        break;
      }
    }
  }
  s->nleaves = n;
  if (n > 1)
    qsort(s->leaves, n, sizeof *s->leaves, cmp_leaf);
  return 0;
}

static int credit_perf(lgp_asm_session *s, lgp_asm_list *l, uint32_t func, lgp_err *err) {
  size_t a = 0, b, i;
  if (!s->leaves_made && make_leaves(s, err) != 0)
    return -1;
  b = s->nleaves;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if (s->leaves[m].func < func)
      a = m + 1;
    else
      b = m;
  }
  for (i = a; i < s->nleaves && s->leaves[i].func == func; i++) {
    const asm_leaf *v = &s->leaves[i];
    size_t k = row_at(l, v->addr);
    if (!l->decoded && (k == l->n || l->insns[k].addr != v->addr)) {
      if (row_add(l, v->addr, err) == NULL)   /* leaves come ascending */
        return -1;
      k = l->n - 1;
    }
    if (k == l->n)
      continue;
    l->insns[k].samples += (double)v->samples;
    l->insns[k].weight += (double)v->weight;
    l->samples += (double)v->samples;
    l->weight += (double)v->weight;
  }
  return 0;
}

/* ---- a function ---- */

static const char *machine_name(int machine) {
  switch (machine) {
  case EM_X86_64: return "x86-64";
  case EM_386: return "i386";
  case EM_AARCH64: return "aarch64";
  case EM_ARM: return "arm";
  case EM_RISCV: return "riscv";
  case EM_PPC64: return "ppc64";
  case EM_S390: return "s390";
  default: return "this machine";
  }
}

int lgp_asm_function(lgp_asm_session *ss, uint32_t s, lgp_asm_list *out, lgp_err *err) {
  const lgp_profile *p = ss->p;
  const lgp_node *nodes = p->graph.nodes;
  asm_bin *b;
  uint32_t func = 0;
  int last = 0;
  if (s >= p->graph.nsyms || nodes[s].is_line)
    return lgp_fail(err, NULL, "not a function of the profile");
  memset(out, 0, sizeof *out);
  if (p->stacks == NULL) {
    size_t next = s + 1;
    while (next < p->graph.nsyms && nodes[next].is_line)
      next++;
    out->from_gmon = 1;
    out->start = nodes[s].addr;
    /* up to the next symbol, as gprof credits it; the last one gets nothing
       from gprof: its own end */
    last = next >= p->graph.nsyms;
    out->end = last ? nodes[s].end_addr + 1 : nodes[next].addr;
    b = bin_get(ss, p->image->path, p->image, err);
  } else {
    const lgp_stacktab *t = &p->stacks->tab;
    const lgp_st_func *f;
    const lgp_st_dso *d;
    func = p->stacks->func_of[s];
    if (func == LGP_NONE || func >= t->nfuncs) {
      /* a function only gmon.out knows (--perf=): no sample, no binary */
      out->start = out->end = nodes[s].addr;
      out->arch = "this binary";
      return 0;
    }
    f = &t->funcs[func];
    d = &t->dsos[f->dso];
    out->start = f->start;
    out->end = f->end > f->start ? f->end : f->start + 1;
    b = bin_get(ss, d->found ? d->found : d->path, NULL, err);
    /* (a stripped binary's code is there to read: its functions are named
       from .dynsym or its unwind entries) */
    if (b != NULL && ((d->status != LGP_DSO_OK && d->status != LGP_DSO_STRIPPED) || d->is_kernel ||
                      f->is_unknown))
      b->code_state = -1;
    if (b != NULL && b->im != NULL && bin_names_from_tab(b, t, f->dso) != 0)
      return lgp_fail(err, NULL, "out of memory");
  }
  if (b == NULL)
    return -1;
  out->arch = b->im != NULL ? machine_name(b->im->machine) : "this binary";
  out->code_read = b->im != NULL && bin_code(b) && lgp_code_section(&b->code, out->start) != NULL;
  if (out->code_read && b->im->machine == EM_X86_64 && decoder_ready(ss)) {
    out->decoded = 1;
    if (decode(ss, b, out, out->start, out->end, err) != 0)
      return -1;
    if (out->n == 0)
      out->decoded = 0; /* no code there (not in a code section) */
  }
  if (out->from_gmon) {
    if (!out->decoded && rows_of_bins(out, p->gmon, err) != 0)
      return -1;
    if (p->gmon->have_hist && !last && lgp_specs_in_table(p->specs, &nodes[s], LGP_INCL_FLAT, LGP_EXCL_FLAT))
      credit_gmon(out, p->gmon);
  } else if (credit_perf(ss, out, func, err) != 0) {
    return -1;
  }
  if (bin_dwarf(b) != NULL && add_sources(out, b->dw, err) != 0)
    return -1;
  return 0;
}
