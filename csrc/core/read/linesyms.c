/*
** linesyms.c: gprof's line symbols. Where BFD's (function name, file,
** line) for an address changes, a new one starts; the names are those BFD
** settles on (the DWARF function's, or the ELF code symbol's), and the
** DWARF functions of a unit walked without its subprograms' children are
** checked against the code symbols first. Gets the units' map and
** functions from srcinfo.c's load (dwunits.h); holds only its own: the
** code symbols and the names it gives.
*/
#include <stdlib.h>
#include <string.h>

#include "read/dwunits.h"
#include "util/strset.h"

/* A code symbol as BFD's ELF function lookup sees it: the last one at or
** below an address (of several at one address, the largest, then the
** first) names it. */
typedef struct codesym {
  lgp_addr addr, size;
  const char *name;  /* the ELF's */
  uint32_t order;
  int32_t id;        /* name id, -2 until used */
} codesym;

/* One making of line symbols: what it reads (the units' map and
** functions, the ELF's code symbols) and the names it gives. */
typedef struct linesyms {
  lgp_image *im;
  Elf *elf;
  const lgp_unitmap *m;
  lgp_unitfns *f;
  codesym *cs;       /* by address, one per address */
  size_t ncs;
  lgp_strset nm;     /* the line symbols' names */
} linesyms;

static int cmp_codesym(const void *a, const void *b) {
  const codesym *l = a, *r = b;
  if (l->addr != r->addr)
    return l->addr < r->addr ? -1 : 1;
  if (l->size != r->size)
    return l->size > r->size ? -1 : 1;
  return l->order < r->order ? -1 : l->order > r->order;
}

/* Keeps, of the code symbols at each address, the one that names it: the
** largest, then the first. A stable radix sort by address (they are
** gathered in .symtab order) and a pick in each run of one address. */
static int first_per_addr(linesyms *L) {
  size_t n = L->ncs, i, j, k = 0;
  uint64_t *keys = NULL;
  uint32_t *idx = NULL;
  codesym *out = NULL;
  int rc = -1;
  if (n > UINT32_MAX) /* beyond the ids: more than .symtab can hold in memory */
    return -1;
  keys = lgp_alloc_array(n ? n : 1, sizeof *keys);
  idx = lgp_alloc_array(n ? n : 1, sizeof *idx);
  out = lgp_alloc_array(n ? n : 1, sizeof *out);
  if (keys == NULL || idx == NULL || out == NULL)
    goto out;
  if (lgp_addr_order(idx, keys, L->cs, n, sizeof *L->cs, offsetof(codesym, addr)) != 0)
    goto out;
  for (i = 0; i < n; i = j) {
    size_t best = idx[i];
    for (j = i + 1; j < n && L->cs[idx[j]].addr == L->cs[best].addr; j++)
      if (cmp_codesym(&L->cs[idx[j]], &L->cs[best]) < 0)
        best = idx[j];
    out[k++] = L->cs[best];
  }
  free(L->cs);
  L->cs = out;
  out = NULL;
  L->ncs = k;
  rc = 0;
out:
  free(keys);
  free(idx);
  free(out);
  return rc;
}

/* The symbols BFD's ELF function lookup may name code of .text by: all of
** .symtab's in .text but sections, files, objects and thread data. */
static int code_syms(linesyms *L) {
  size_t shstrndx, n, i;
  Elf_Scn *scn = NULL, *symscn = NULL;
  GElf_Shdr symhdr;
  size_t text_ndx = 0;
  memset(&symhdr, 0, sizeof symhdr);
  Elf_Data *d;
  if (elf_getshdrstrndx(L->elf, &shstrndx) != 0)
    return 0;
  while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
    GElf_Shdr sh;
    const char *name;
    if (gelf_getshdr(scn, &sh) == NULL)
      continue;
    name = elf_strptr(L->elf, shstrndx, sh.sh_name);
    if (text_ndx == 0 && name != NULL && strcmp(name, ".text") == 0)
      text_ndx = elf_ndxscn(scn);
    if (sh.sh_type == SHT_SYMTAB && symscn == NULL) {
      symscn = scn;
      symhdr = sh;
    }
  }
  if (symscn == NULL || text_ndx == 0 || symhdr.sh_entsize == 0 ||
      (d = elf_getdata(symscn, NULL)) == NULL)
    return 0;
  n = d->d_size / symhdr.sh_entsize;
  L->cs = lgp_alloc_array(n ? n : 1, sizeof *L->cs);
  if (L->cs == NULL)
    return -1;
  for (i = 1; i < n; i++) {
    GElf_Sym s;
    int type;
    const char *name;
    if (gelf_getsym(d, (int)i, &s) == NULL || s.st_shndx != text_ndx)
      continue;
    type = GELF_ST_TYPE(s.st_info);
    if (type == STT_SECTION || type == STT_FILE || type == STT_OBJECT || type == STT_TLS ||
        type == STT_COMMON)
      continue;
    name = elf_strptr(L->elf, symhdr.sh_link, s.st_name);
    if (name == NULL)
      continue;
    L->cs[L->ncs].addr = s.st_value;
    L->cs[L->ncs].size = s.st_size ? s.st_size : 1;
    L->cs[L->ncs].name = name;
    L->cs[L->ncs].order = (uint32_t)i;
    L->cs[L->ncs].id = -2;
    L->ncs++;
  }
  return first_per_addr(L);
}

/* The code symbol at or below addr (its index), or SIZE_MAX. */
static size_t code_sym_at(const linesyms *L, lgp_addr addr) {
  size_t lo = lgp_addr_count_le(L->cs, L->ncs, sizeof *L->cs, offsetof(codesym, addr), addr);
  return lo > 0 ? lo - 1 : SIZE_MAX;
}

static int32_t code_sym_name(linesyms *L, size_t i) {
  if (L->cs[i].id == -2)
    L->cs[i].id = lgp_strset_add(&L->nm, L->cs[i].name, NULL);
  return L->cs[i].id;
}

/* Unit u's innermost function at addr (an index of L->f->fx.fns, or -1) and
** where that can next change. With a cursor (*cur, an index into the
** unit's points, for addresses that only grow) the search starts there. */
static int32_t fn_at(const linesyms *L, uint32_t u, lgp_addr addr, lgp_addr *next, size_t *cur) {
  size_t lo = L->f->ptbeg[u], hi = L->f->ptbeg[u + 1], b = lo;
  if (cur != NULL && *cur >= lo && *cur < hi && L->f->fx.pts[*cur].addr <= addr) {
    lo = *cur;
    while (lo < hi && L->f->fx.pts[lo].addr <= addr)
      lo++;
    *cur = lo - 1;
    *next = lo < L->f->ptbeg[u + 1] ? L->f->fx.pts[lo].addr : ~(lgp_addr)0;
    return L->f->fx.pts[lo - 1].fn;
  }
  lo += lgp_addr_count_le(L->f->fx.pts + lo, hi - lo, sizeof *L->f->fx.pts,
                          offsetof(lgp_dwfpoint, addr), addr);
  *next = lo < L->f->ptbeg[u + 1] ? L->f->fx.pts[lo].addr : ~(lgp_addr)0;
  if (cur != NULL && lo > b)
    *cur = lo - 1;
  return lo > b ? L->f->fx.pts[lo - 1].fn : -1;
}


/* The names BFD gives each DWARF function. A final name (linkage name, or
** DW_AT_name in C) is used as it is. Otherwise (C++ without a linkage
** name, no name) BFD settles the name at the first lookup that finds the
** function: the ELF symbol's if the ELF symbol at or below that address
** starts where the function does, else DW_AT_name. gprof looks up every
** function symbol (in .symtab order), then probes .text byte by byte
** twice, counting, then making the symbols: these see settled names. (The
** first lookup itself answers with the ELF symbol's name: when that makes
** the two passes count differently, gprof stops, "somebody miscounted".) */
static int settle(linesyms *L, int32_t *ids, uint8_t *seen, int32_t f, lgp_addr at) {
  const lgp_dwfn *d = &L->f->fx.fns[f];
  size_t c = code_sym_at(L, at);
  seen[f] = 1;
  if (!d->is_linkage && c != SIZE_MAX && L->cs[c].addr == d->low)
    ids[f] = code_sym_name(L, c);
  else
    ids[f] = d->name != NULL ? lgp_strset_add(&L->nm, d->name, NULL) : -1;
  return ids[f] == -2 ? -1 : 0;
}

static int settle_names(linesyms *L, int32_t *ids) {
  lgp_image *im = L->im;
  lgp_addr tlo = im->text_vma, thi = im->text_vma + im->text_size, next;
  size_t n = L->f->fx.nfns ? L->f->fx.nfns : 1, i, k;
  uint8_t *seen = lgp_calloc_array(n, 1);
  int rc = -1;
  if (seen == NULL)
    goto out;
  for (i = 0; i < im->nsyms; i++) { /* gprof's lookups at its function symbols */
    int64_t u = lgp_unitmap_owner_at(L->m, im->syms[i].addr);
    int32_t f = u < 0 ? -1 : fn_at(L, (uint32_t)u, im->syms[i].addr, &next, NULL);
    if (f >= 0 && !seen[f] && settle(L, ids, seen, f, im->syms[i].addr) != 0)
      goto out;
  }
  for (i = 0; i < L->m->nowners; i++) { /* then its probes of .text, in order */
    const crange *o = &L->m->owners[i];
    lgp_addr lo = o->lo < tlo ? tlo : o->lo, hi = o->hi > thi ? thi : o->hi;
    if (lo >= hi)
      continue;
    k = L->f->ptbeg[o->cu];
    {
      int32_t f = fn_at(L, o->cu, lo, &next, NULL);
      if (f >= 0 && !seen[f] && settle(L, ids, seen, f, lo) != 0)
        goto out;
    }
    for (; k < L->f->ptbeg[o->cu + 1]; k++) {
      const lgp_dwfpoint *p = &L->f->fx.pts[k];
      if (p->addr <= lo)
        continue;
      if (p->addr >= hi)
        break;
      if (p->fn >= 0 && !seen[p->fn] && settle(L, ids, seen, p->fn, p->addr) != 0)
        goto out;
    }
  }
  for (i = 0; i < L->f->fx.nfns; i++) /* never probed: its own name */
    if (!seen[i] && settle(L, ids, seen, (int32_t)i, L->f->fx.fns[i].low) != 0)
      goto out;
  rc = 0;
out:
  free(seen);
  return rc;
}

static int add_line(lgp_image *im, size_t *cap, lgp_addr addr, int32_t name, int32_t file,
                    int32_t line, int inl) {
  lgp_linesym *l;
  if (im->nlines == *cap &&
      lgp_grow((void **)&im->lines, cap, im->nlines + 1, sizeof *im->lines) != 0)
    return -1;
  l = &im->lines[im->nlines++];
  l->addr = addr;
  l->name = (const char *)(uintptr_t)name; /* an id until the names are laid out */
  l->file = file;
  l->line = line;
  l->is_inlined = (uint8_t)inl;
  return 0;
}

/* The units walked without their subprograms' children hold no function
** nested in another if every code symbol in their ranges lies in a
** function found (a nested function's code is its own, outside its
** parent's ranges, under its own symbol); else every unit is walked again
** whole. A unit walked whole is not checked: a symbol in no function there
** (an assembler label) is what BFD finds too. 0, or -1. */
static int check_shallow(linesyms *L) {
  size_t k;
  if (!L->f->any_shallow)
    return 0;
  for (k = 0; k < L->m->ncr; k++) {
    const crange *r = &L->m->cr[k];
    size_t c;
    lgp_addr next;
    if (!L->f->shallow[r->cu])
      continue;
    c = code_sym_at(L, r->lo);
    if (c == SIZE_MAX || L->cs[c].addr < r->lo)
      c = c == SIZE_MAX ? 0 : c + 1;
    for (; c < L->ncs && L->cs[c].addr < r->hi; c++)
      if (fn_at(L, r->cu, L->cs[c].addr, &next, NULL) < 0)
        return lgp_unitfns_read(L->f, 0);
  }
  return 0;
}

/* gprof's line symbols: probing every byte of .text, a new one starts
** where BFD's (function name, file, line) differs from the last one made;
** probes with no line, line 0, no file or no name are skipped. Only the
** points where one of them can change are visited. */
static int make_line_syms(linesyms *L) {
  lgp_image *im = L->im;
  lgp_addr tlo = im->text_vma, thi = im->text_vma + im->text_size;
  int32_t last_name = -1, last_file = -1, last_line = -1, fcur = -1;
  int64_t fcu = -1;
  lgp_addr flo = 0, fnext = 0;
  size_t i, cap = 0;
  char *buf, *p;
  /* about a line symbol per point of the map */
  if (L->m->nmap > 0 && lgp_grow((void **)&im->lines, &cap, L->m->nmap, sizeof *im->lines) != 0)
    return -1;
  size_t *offs;
  int32_t *ids = lgp_alloc_array(L->f->fx.nfns ? L->f->fx.nfns : 1, sizeof *ids);
  size_t *curs = lgp_calloc_array((size_t)L->m->nunits + 1, sizeof *curs);
  int rc = -1;
  if (ids == NULL || curs == NULL || settle_names(L, ids) != 0)
    goto out;
  for (i = 0; i < L->m->nmap; i++) {
    const ment *e = &L->m->map[i];
    lgp_addr pos = e->addr < tlo ? tlo : e->addr, end = i + 1 < L->m->nmap ? L->m->map[i + 1].addr : thi;
    if (end > thi)
      end = thi;
    if (e->file < 0 || e->line <= 0)
      continue;
    while (pos < end) {
      lgp_addr next;
      int32_t f, name;
      if (e->cu == fcu && pos >= flo && pos < fnext) { /* the function found last holds */
        f = fcur;
        next = fnext;
      } else {
        f = fcur = fn_at(L, e->cu, pos, &next, &curs[e->cu]);
        fcu = e->cu;
        flo = pos;
        fnext = next;
      }
      if (f >= 0) {
        name = ids[f];
      } else {
        size_t c = code_sym_at(L, pos);
        name = c == SIZE_MAX ? -1 : code_sym_name(L, c);
        if (c + 1 < L->ncs && L->cs[c + 1].addr < next)
          next = L->cs[c + 1].addr;
        if (c == SIZE_MAX && L->ncs > 0 && L->cs[0].addr < next)
          next = L->cs[0].addr;
      }
      if (name == -2)
        goto out;
      if (name >= 0 && (name != last_name || e->file != last_file || e->line != last_line)) {
        if (add_line(im, &cap, pos, name, e->file, e->line, f >= 0 && L->f->fx.fns[f].is_inlined) != 0)
          goto out;
        last_name = name;
        last_file = e->file;
        last_line = e->line;
      }
      pos = next < end ? next : end;
    }
  }
  /* the names, laid out in one block the image owns */
  offs = lgp_alloc_array(L->nm.n ? L->nm.n : 1, sizeof *offs);
  buf = p = malloc(L->nm.bytes ? L->nm.bytes : 1);
  if (offs == NULL || buf == NULL) {
    free(offs);
    free(buf);
    goto out;
  }
  for (i = 0; i < L->nm.n; i++) {
    size_t len = strlen(L->nm.s[i]) + 1;
    memcpy(p, L->nm.s[i], len);
    offs[i] = (size_t)(p - buf);
    p += len;
  }
  for (i = 0; i < im->nlines; i++)
    im->lines[i].name = buf + offs[(uintptr_t)im->lines[i].name];
  free(offs);
  im->line_names = buf;
  rc = 0;
out:
  free(ids);
  free(curs);
  return rc;
}

int lgp_linesyms_make(lgp_image *im, Elf *elf, const lgp_unitmap *m, lgp_unitfns *f) {
  linesyms L;
  int rc;
  memset(&L, 0, sizeof L);
  L.im = im;
  L.elf = elf;
  L.m = m;
  L.f = f;
  L.nm.borrow = 1; /* libdw's and libelf's names: alive until the load is done */
  rc = code_syms(&L) != 0 || check_shallow(&L) != 0 ? -1 : make_line_syms(&L);
  free(L.cs);
  lgp_strset_free(&L.nm);
  return rc;
}
