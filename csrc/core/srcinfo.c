/*
** srcinfo.c: BFD's nearest-line lookup over the DWARF line tables: the
** (file, line) of each function symbol, and gprof's line symbols.
** At an address BFD asks the first unit whose ranges hold it; in that
** unit's line table, the sequence [first row, end) that holds it, and in
** it the last row at or below it. The units' sequences are merged into one
** map of points; each symbol is a binary search, the line symbols a walk
** over the points. Each file also gets its absolute path from its unit's
** compilation directory (for the exports).
*/
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "dwfunc.h"
#include "dwline.h"
#include "srcinfo.h"

typedef struct interner {
  char **names;
  char **paths; /* absolute form of names[i] (see file_path), or NULL */
  size_t n, cap, pcap;
  size_t *slots; /* open addressing: index + 1, 0 = empty */
  size_t nslots;
} interner;

/* Appends the segments of q to buf at *len as "/seg", leaving out empty
** and "." segments. */
static void add_segments(char *buf, size_t *len, const char *q) {
  while (*q != '\0') {
    size_t k = strcspn(q, "/");
    if (k > 0 && !(k == 1 && q[0] == '.')) {
      buf[(*len)++] = '/';
      memcpy(buf + *len, q, k);
      *len += k;
    }
    q += k;
    if (*q == '/')
      q++;
  }
}

/* A relative name joined to the CU's compilation directory, without "."
** segments and repeated slashes; ".." is kept (removing "a/.." is wrong
** when a is a symbolic link). NULL with *fail 0: nothing to join (the
** name is absolute, or DWARF gives no absolute compilation directory). */
static char *file_path(const char *comp_dir, const char *name, int *fail) {
  size_t len = 0;
  char *buf;
  *fail = 0;
  if (name[0] == '/' || comp_dir == NULL || comp_dir[0] != '/')
    return NULL;
  buf = lgp_alloc_array(strlen(comp_dir) + strlen(name) + 3, 1);
  if (buf == NULL) {
    *fail = 1;
    return NULL;
  }
  add_segments(buf, &len, comp_dir);
  add_segments(buf, &len, name);
  if (len == 0)
    buf[len++] = '/';
  buf[len] = '\0';
  return buf;
}

static int intern(interner *t, const char *s, const char *comp_dir) {
  int fail;
  size_t h, i;
  if (t->n * 2 >= t->nslots) {
    size_t ns = t->nslots ? t->nslots * 2 : 64, k;
    size_t *slots = lgp_calloc_array(ns, sizeof *slots);
    if (slots == NULL)
      return -1;
    for (k = 0; k < t->n; k++) {
      i = lgp_hash_bytes(t->names[k], strlen(t->names[k])) & (ns - 1);
      while (slots[i] != 0)
        i = (i + 1) & (ns - 1);
      slots[i] = k + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
  }
  h = lgp_hash_bytes(s, strlen(s));
  for (i = h & (t->nslots - 1); t->slots[i] != 0; i = (i + 1) & (t->nslots - 1))
    if (strcmp(t->names[t->slots[i] - 1], s) == 0)
      return (int)(t->slots[i] - 1);
  if (lgp_grow((void **)&t->names, &t->cap, t->n + 1, sizeof *t->names) != 0 ||
      lgp_grow((void **)&t->paths, &t->pcap, t->n + 1, sizeof *t->paths) != 0)
    return -1;
  t->names[t->n] = lgp_strdup(s);
  if (t->names[t->n] == NULL)
    return -1;
  /* the first CU to name a file gives its directory */
  t->paths[t->n] = file_path(comp_dir, s, &fail);
  if (fail) {
    free(t->names[t->n]);
    return -1;
  }
  t->slots[i] = t->n + 1;
  return (int)t->n++;
}


/* A name table for line symbols: each distinct name once, by id. */
typedef struct names {
  char **s;
  size_t n, cap;
  size_t *slots, nslots;
  size_t bytes;
} names;

static int32_t name_id(names *t, const char *s) {
  size_t i, len = strlen(s);
  if (t->n * 2 >= t->nslots) {
    size_t ns = t->nslots ? t->nslots * 2 : 256, k;
    size_t *slots = lgp_calloc_array(ns, sizeof *slots);
    if (slots == NULL)
      return -2;
    for (k = 0; k < t->n; k++) {
      i = lgp_hash_bytes(t->s[k], strlen(t->s[k])) & (ns - 1);
      while (slots[i] != 0)
        i = (i + 1) & (ns - 1);
      slots[i] = k + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
  }
  for (i = lgp_hash_bytes(s, len) & (t->nslots - 1); t->slots[i] != 0; i = (i + 1) & (t->nslots - 1))
    if (strcmp(t->s[t->slots[i] - 1], s) == 0)
      return (int32_t)(t->slots[i] - 1);
  if (t->n >= INT32_MAX || lgp_grow((void **)&t->s, &t->cap, t->n + 1, sizeof *t->s) != 0 ||
      (t->s[t->n] = lgp_strdup(s)) == NULL)
    return -2;
  t->bytes += len + 1;
  t->slots[i] = t->n + 1;
  return (int32_t)t->n++;
}

static void names_free(names *t) {
  size_t i;
  for (i = 0; i < t->n; i++)
    free(t->s[i]);
  free(t->s);
  free(t->slots);
}

/* A point of the line map: from addr on, this file and line (file -1:
** no line), in unit cu. */
typedef struct ment {
  lgp_addr addr;
  int32_t file, line;
  uint32_t cu;
} ment;

typedef struct crange {
  lgp_addr lo, hi;
  uint32_t cu;
} crange;

/* A code symbol as BFD's ELF function lookup sees it: the last one at or
** below an address (of several at one address, the largest, then the
** first) names it. */
typedef struct codesym {
  lgp_addr addr, size;
  const char *name;  /* in the image's strtab copy, or the ELF's */
  uint32_t order;
  int32_t id;        /* name id, -2 until used */
} codesym;

typedef struct loader {
  lgp_image *im;
  Elf *elf;
  Dwarf *dw;
  interner files;
  const char *comp_dir;
  lgp_dwline_ctx lc;
  lgp_dwfuncs fx;
  size_t *ptbeg;       /* unit u's function points: [ptbeg[u], ptbeg[u + 1]) */
  size_t *ebeg;        /* unit u's map: ents[ebeg[u] .. ebeg[u + 1]) */
  uint32_t nunits;
  crange *cr;            /* the units' ranges */
  size_t ncr, cr_cap;
  crange *owners;        /* ascending: who answers for [lo, hi) */
  size_t nowners, owners_cap;
  ment *ents, *map;
  size_t nents, ents_cap, nmap, map_cap;
  codesym *cs;
  size_t ncs;
  names nm;
} loader;

static int32_t file_id(void *ud, const char *name) {
  loader *L = ud;
  int id = intern(&L->files, name, L->comp_dir);
  return id < 0 ? -2 : id;
}

static lgp_dwsect section(Elf *elf, const char *want) {
  lgp_dwsect r = {NULL, 0};
  size_t shstrndx;
  Elf_Scn *scn = NULL;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return r;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    const char *name;
    Elf_Data *d;
    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
      continue;
    name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (name == NULL || strcmp(name, want) != 0)
      continue;
    if ((sh.sh_flags & SHF_COMPRESSED) != 0 && elf_compress(scn, 0, 0) < 0)
      return r;
    d = elf_getdata(scn, NULL);
    if (d != NULL && d->d_buf != NULL) {
      r.p = d->d_buf;
      r.size = d->d_size;
    }
    return r;
  }
  return r;
}

static int add_crange(loader *L, lgp_addr lo, lgp_addr hi, uint32_t cu) {
  if (lo >= hi)
    return 0;
  if (lgp_grow((void **)&L->cr, &L->cr_cap, L->ncr + 1, sizeof *L->cr) != 0)
    return -1;
  L->cr[L->ncr].lo = lo;
  L->cr[L->ncr].hi = hi;
  L->cr[L->ncr].cu = cu;
  L->ncr++;
  return 0;
}

/* Every compilation unit: its line program, its ranges and (want_fns)
** its functions. 0, or -1 out of memory. */
static int read_units(loader *L, int want_fns) {
  Dwarf_Off off = 0, next;
  size_t hsize, ucap = 0;
  Dwarf_Half version;
  L->lc.line = section(L->elf, ".debug_line");
  L->lc.line_str = section(L->elf, ".debug_line_str");
  L->lc.str = section(L->elf, ".debug_str");
  L->lc.big_endian = L->im->big_endian;
  L->lc.file_id = file_id;
  L->lc.ud = L;
  for (; dwarf_next_unit(L->dw, off, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL) == 0;
       off = next) {
    Dwarf_Die cudie;
    Dwarf_Attribute at;
    Dwarf_Word stmt;
    Dwarf_Addr base, lo, hi;
    ptrdiff_t roff = 0;
    uint32_t u = L->nunits;
    size_t seq0 = L->lc.nseqs, cr0 = L->ncr, k;
    if (u == UINT32_MAX || lgp_grow((void **)&L->ptbeg, &ucap, (size_t)u + 2, sizeof *L->ptbeg) != 0)
      return -1;
    L->ptbeg[u] = L->ptbeg[u + 1] = L->fx.npts;
    L->nunits++;
    if (dwarf_offdie(L->dw, off + hsize, &cudie) == NULL)
      continue;
    L->comp_dir = dwarf_formstring(dwarf_attr_integrate(&cudie, DW_AT_comp_dir, &at));
    if (dwarf_formudata(dwarf_attr(&cudie, DW_AT_stmt_list, &at), &stmt) == 0 &&
        lgp_dwline_read(&L->lc, stmt, u, L->comp_dir) < 0)
      return -1;
    while ((roff = dwarf_ranges(&cudie, roff, &base, &lo, &hi)) > 0)
      if (add_crange(L, lo, hi, u) != 0)
        return -1;
    if (L->ncr == cr0) /* no ranges given: its sequences are its ranges */
      for (k = seq0; k < L->lc.nseqs; k++)
        if (add_crange(L, L->lc.seqs[k].start, L->lc.seqs[k].end, u) != 0)
          return -1;
    if (want_fns && lgp_dwfuncs_add_unit(&L->fx, &cudie) != 0)
      return -1;
    L->ptbeg[u + 1] = L->fx.npts;
  }
  return 0;
}

static int cmp_seq(const void *a, const void *b) {
  const lgp_dwseq *l = a, *r = b;
  if (l->cu != r->cu)
    return l->cu < r->cu ? -1 : 1;
  if (l->start != r->start)
    return l->start < r->start ? -1 : 1;
  return l->first < r->first ? -1 : l->first > r->first;
}

static int push_ent(ment **v, size_t *n, size_t *cap, size_t floor, lgp_addr addr,
                    int32_t file, int32_t line, uint32_t cu) {
  ment *e;
  if (*n > floor && (*v)[*n - 1].addr == addr) {
    e = &(*v)[*n - 1]; /* the later point at one address is the one that holds */
  } else {
    if (lgp_grow((void **)v, cap, *n + 1, sizeof **v) != 0)
      return -1;
    e = &(*v)[(*n)++];
  }
  e->addr = addr;
  e->file = file;
  e->line = line;
  e->cu = cu;
  return 0;
}

/* Each unit's map: its sequences by start address (libdw and the
** decoder give each sequence's rows in order: only the sequences are
** sorted, and only when they are not already), each row a point, each end
** a point without a line. Where a unit's sequences overlap, the later
** start cuts the earlier sequence short. */
static int unit_maps(loader *L) {
  size_t k, u = 0;
  lgp_dwseq *sq = L->lc.seqs;
  for (k = 1; k < L->lc.nseqs; k++)
    if (cmp_seq(&sq[k - 1], &sq[k]) > 0)
      break;
  if (k < L->lc.nseqs)
    qsort(sq, L->lc.nseqs, sizeof *sq, cmp_seq);
  L->ebeg = lgp_alloc_array((size_t)L->nunits + 1, sizeof *L->ebeg);
  if (L->ebeg == NULL || lgp_grow((void **)&L->ents, &L->ents_cap,
                                  L->lc.nrows + L->lc.nseqs, sizeof *L->ents) != 0)
    return -1;
  for (k = 0; k < L->lc.nseqs; k++) {
    const lgp_dwseq *s = &sq[k];
    size_t r;
    while (u <= s->cu)
      L->ebeg[u++] = L->nents;
    while (L->nents > L->ebeg[s->cu] && L->ents[L->nents - 1].addr > s->start)
      L->nents--;
    for (r = s->first; r < s->first + s->n; r++) {
      const lgp_dwrow *w = &L->lc.rows[r];
      if (push_ent(&L->ents, &L->nents, &L->ents_cap, L->ebeg[s->cu], w->addr, w->file,
                   w->line, s->cu) != 0)
        return -1;
    }
    if (push_ent(&L->ents, &L->nents, &L->ents_cap, L->ebeg[s->cu], s->end, -1, 0, s->cu) != 0)
      return -1;
  }
  while (u <= L->nunits)
    L->ebeg[u++] = L->nents;
  return 0;
}

static int cmp_crange(const void *a, const void *b) {
  const crange *l = a, *r = b;
  if (l->lo != r->lo)
    return l->lo < r->lo ? -1 : 1;
  return l->cu < r->cu ? -1 : l->cu > r->cu;
}

static int cmp_addr(const void *a, const void *b) {
  lgp_addr l = *(const lgp_addr *)a, r = *(const lgp_addr *)b;
  return l < r ? -1 : l > r;
}

/* Unit u's point at or below addr (its index), or SIZE_MAX. */
static size_t unit_point(const loader *L, uint32_t u, lgp_addr addr) {
  size_t lo = L->ebeg[u], hi = L->ebeg[u + 1];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L->ents[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > L->ebeg[u] ? lo - 1 : SIZE_MAX;
}

/* Copies unit u's points over [a, b) into the global map. */
static int own(loader *L, uint32_t u, lgp_addr a, lgp_addr b) {
  size_t i = unit_point(L, u, a);
  const ment *e = i == SIZE_MAX ? NULL : &L->ents[i];
  if (lgp_grow((void **)&L->owners, &L->owners_cap, L->nowners + 1, sizeof *L->owners) != 0)
    return -1;
  L->owners[L->nowners].lo = a;
  L->owners[L->nowners].hi = b;
  L->owners[L->nowners].cu = u;
  L->nowners++;
  if (push_ent(&L->map, &L->nmap, &L->map_cap, 0, a, e ? e->file : -1, e ? e->line : 0, u) != 0)
    return -1;
  for (i = i == SIZE_MAX ? L->ebeg[u] : i + 1; i < L->ebeg[u + 1] && L->ents[i].addr < b; i++)
    if (push_ent(&L->map, &L->nmap, &L->map_cap, 0, L->ents[i].addr, L->ents[i].file,
                 L->ents[i].line, u) != 0)
      return -1;
  return push_ent(&L->map, &L->nmap, &L->map_cap, 0, b, -1, 0, u);
}

/* The global map: at each address, BFD asks the first unit (in
** .debug_info order) whose ranges hold it; the linker points the ranges
** and line tables of discarded COMDAT copies at the kept copy, so units
** overlap. A sweep over the range bounds with the owning candidates in a
** heap (least unit first). */
static int global_map(loader *L) {
  size_t i = 0, j = 0, nh = 0, n = L->ncr;
  uint32_t *heap;
  lgp_addr *ends, cur_lo = 0;
  int64_t cur = -1;
  int rc = -1;
  if (n == 0)
    return 0;
  qsort(L->cr, n, sizeof *L->cr, cmp_crange);
  heap = lgp_alloc_array(n, sizeof *heap);
  ends = lgp_alloc_array(n, sizeof *ends);
  if (heap == NULL || ends == NULL)
    goto out;
  for (i = 0; i < n; i++)
    ends[i] = L->cr[i].hi;
  qsort(ends, n, sizeof *ends, cmp_addr);
  i = 0;
  while (i < n || j < n) {
    lgp_addr pos = j < n ? ends[j] : ~(lgp_addr)0;
    int64_t top;
    if (i < n && L->cr[i].lo < pos)
      pos = L->cr[i].lo;
    while (i < n && L->cr[i].lo == pos) { /* push by unit */
      size_t c = nh++;
      uint32_t v = (uint32_t)i++;
      while (c > 0 && L->cr[heap[(c - 1) / 2]].cu > L->cr[v].cu) {
        heap[c] = heap[(c - 1) / 2];
        c = (c - 1) / 2;
      }
      heap[c] = v;
    }
    while (j < n && ends[j] == pos)
      j++;
    while (nh > 0 && L->cr[heap[0]].hi <= pos) { /* pop */
      uint32_t v = heap[--nh];
      size_t c = 0;
      for (;;) {
        size_t d = 2 * c + 1;
        if (d >= nh)
          break;
        if (d + 1 < nh && L->cr[heap[d + 1]].cu < L->cr[heap[d]].cu)
          d++;
        if (L->cr[heap[d]].cu >= L->cr[v].cu)
          break;
        heap[c] = heap[d];
        c = d;
      }
      if (nh > 0)
        heap[c] = v;
    }
    top = nh > 0 ? (int64_t)L->cr[heap[0]].cu : -1;
    if (top != cur) {
      if (cur >= 0 && pos > cur_lo && own(L, (uint32_t)cur, cur_lo, pos) != 0)
        goto out;
      cur = top;
      cur_lo = pos;
    }
  }
  rc = 0;
out:
  free(heap);
  free(ends);
  return rc;
}

/* The global map's point at or below addr, or NULL. */
static const ment *map_at(const loader *L, lgp_addr addr) {
  size_t lo = 0, hi = L->nmap;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L->map[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 ? &L->map[lo - 1] : NULL;
}

static int cmp_codesym(const void *a, const void *b) {
  const codesym *l = a, *r = b;
  if (l->addr != r->addr)
    return l->addr < r->addr ? -1 : 1;
  if (l->size != r->size)
    return l->size > r->size ? -1 : 1;
  return l->order < r->order ? -1 : l->order > r->order;
}

/* The symbols BFD's ELF function lookup may name code of .text by: all of
** .symtab's in .text but sections, files, objects and thread data. */
static int code_syms(loader *L) {
  size_t shstrndx, n, i, k;
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
  qsort(L->cs, L->ncs, sizeof *L->cs, cmp_codesym);
  for (i = k = 0; i < L->ncs; i++) /* the first of each address names it */
    if (k == 0 || L->cs[k - 1].addr != L->cs[i].addr)
      L->cs[k++] = L->cs[i];
  L->ncs = k;
  return 0;
}

/* The code symbol at or below addr (its index), or SIZE_MAX. */
static size_t code_sym_at(const loader *L, lgp_addr addr) {
  size_t lo = 0, hi = L->ncs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L->cs[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 ? lo - 1 : SIZE_MAX;
}

static int32_t code_sym_name(loader *L, size_t i) {
  if (L->cs[i].id == -2)
    L->cs[i].id = name_id(&L->nm, L->cs[i].name);
  return L->cs[i].id;
}

/* Unit u's innermost function at addr (an index of L->fx.fns, or -1) and
** where that can next change. */
static int32_t fn_at(const loader *L, uint32_t u, lgp_addr addr, lgp_addr *next) {
  size_t lo = L->ptbeg[u], hi = L->ptbeg[u + 1], b = lo;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L->fx.pts[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  *next = lo < L->ptbeg[u + 1] ? L->fx.pts[lo].addr : ~(lgp_addr)0;
  return lo > b ? L->fx.pts[lo - 1].fn : -1;
}

/* The unit whose ranges answer for addr, or -1. */
static int64_t owner_at(const loader *L, lgp_addr addr) {
  size_t lo = 0, hi = L->nowners;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L->owners[mid].lo <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && addr < L->owners[lo - 1].hi ? (int64_t)L->owners[lo - 1].cu : -1;
}

/* The names BFD gives each DWARF function. A final name (linkage name, or
** DW_AT_name in C) is used as it is. Otherwise (C++ without a linkage
** name, no name) BFD settles the name at the first lookup that finds the
** function: the ELF symbol's if that starts where the function does; else
** DW_AT_name, but that first lookup itself answers with the name of the
** ELF symbol at or below the address. gprof looks up every function
** symbol (in .symtab order) before it probes .text byte by byte. */
typedef struct fnames {
  int32_t *id;        /* the name after the first lookup (-1 none) */
  int32_t *first_id;  /* the name at first_at */
  lgp_addr *first_at; /* the first probe of .text that finds it, when that
                         gives another name; else ~0 */
} fnames;

static int settle(loader *L, fnames *fn, uint8_t *seen, int32_t f, lgp_addr at, int probe) {
  const lgp_dwfn *d = &L->fx.fns[f];
  size_t c = code_sym_at(L, at);
  int32_t dw = -1;
  seen[f] = 1;
  if (d->name != NULL && (dw = name_id(&L->nm, d->name)) == -2)
    return -1;
  fn->id[f] = dw;
  if (d->is_linkage || c == SIZE_MAX)
    return 0;
  if (L->cs[c].addr == d->low) {
    if ((fn->id[f] = code_sym_name(L, c)) == -2)
      return -1;
  } else if (probe) {
    fn->first_at[f] = at;
    if ((fn->first_id[f] = code_sym_name(L, c)) == -2)
      return -1;
  }
  return 0;
}

static int settle_names(loader *L, fnames *fn) {
  lgp_image *im = L->im;
  lgp_addr tlo = im->text_vma, thi = im->text_vma + im->text_size, next;
  size_t n = L->fx.nfns ? L->fx.nfns : 1, i, k;
  uint8_t *seen = lgp_calloc_array(n, 1);
  int rc = -1;
  fn->id = lgp_alloc_array(n, sizeof *fn->id);
  fn->first_id = lgp_alloc_array(n, sizeof *fn->first_id);
  fn->first_at = lgp_alloc_array(n, sizeof *fn->first_at);
  if (seen == NULL || fn->id == NULL || fn->first_id == NULL || fn->first_at == NULL)
    goto out;
  for (i = 0; i < L->fx.nfns; i++) {
    fn->id[i] = -1;
    fn->first_at[i] = ~(lgp_addr)0;
  }
  for (i = 0; i < im->nsyms; i++) { /* gprof's lookups at its function symbols */
    int64_t u = owner_at(L, im->syms[i].addr);
    int32_t f = u < 0 ? -1 : fn_at(L, (uint32_t)u, im->syms[i].addr, &next);
    if (f >= 0 && !seen[f] && settle(L, fn, seen, f, im->syms[i].addr, 0) != 0)
      goto out;
  }
  for (i = 0; i < L->nowners; i++) { /* then its probes of .text, in order */
    const crange *o = &L->owners[i];
    lgp_addr lo = o->lo < tlo ? tlo : o->lo, hi = o->hi > thi ? thi : o->hi;
    if (lo >= hi)
      continue;
    k = L->ptbeg[o->cu];
    {
      int32_t f = fn_at(L, o->cu, lo, &next);
      if (f >= 0 && !seen[f] && settle(L, fn, seen, f, lo, 1) != 0)
        goto out;
    }
    for (; k < L->ptbeg[o->cu + 1]; k++) {
      const lgp_dwfpoint *p = &L->fx.pts[k];
      if (p->addr <= lo)
        continue;
      if (p->addr >= hi)
        break;
      if (p->fn >= 0 && !seen[p->fn] && settle(L, fn, seen, p->fn, p->addr, 1) != 0)
        goto out;
    }
  }
  for (i = 0; i < L->fx.nfns; i++) /* never probed: its own name */
    if (!seen[i] && L->fx.fns[i].name != NULL &&
        (fn->id[i] = name_id(&L->nm, L->fx.fns[i].name)) == -2)
      goto out;
  rc = 0;
out:
  free(seen);
  return rc;
}

static int add_line(lgp_image *im, size_t *cap, lgp_addr addr, int32_t name, int32_t file,
                    int32_t line, int inl) {
  lgp_linesym *l;
  if (lgp_grow((void **)&im->lines, cap, im->nlines + 1, sizeof *im->lines) != 0)
    return -1;
  l = &im->lines[im->nlines++];
  l->addr = addr;
  l->name = (const char *)(uintptr_t)name; /* an id until the names are laid out */
  l->file = file;
  l->line = line;
  l->is_inlined = (uint8_t)inl;
  return 0;
}

/* gprof's line symbols: probing every byte of .text, a new one starts
** where BFD's (function name, file, line) differs from the last one made;
** probes with no line, line 0, no file or no name are skipped. Only the
** points where one of them can change are visited. */
static int line_syms(loader *L) {
  lgp_image *im = L->im;
  lgp_addr tlo = im->text_vma, thi = im->text_vma + im->text_size;
  int32_t last_name = -1, last_file = -1, last_line = -1;
  size_t i, cap = 0;
  char *buf, *p;
  size_t *offs;
  fnames fn;
  int rc = -1;
  memset(&fn, 0, sizeof fn);
  if (settle_names(L, &fn) != 0)
    goto out;
  for (i = 0; i < L->nmap; i++) {
    const ment *e = &L->map[i];
    lgp_addr pos = e->addr < tlo ? tlo : e->addr, end = i + 1 < L->nmap ? L->map[i + 1].addr : thi;
    if (end > thi)
      end = thi;
    if (e->file < 0 || e->line <= 0)
      continue;
    while (pos < end) {
      lgp_addr next;
      int32_t f = fn_at(L, e->cu, pos, &next), name;
      if (f >= 0 && fn.first_at[f] >= pos && fn.first_at[f] < next) {
        if (fn.first_at[f] > pos) {
          next = fn.first_at[f];
          name = fn.id[f];
        } else {
          next = pos + 1;
          name = fn.first_id[f];
        }
      } else if (f >= 0) {
        name = fn.id[f];
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
        if (add_line(im, &cap, pos, name, e->file, e->line, f >= 0 && L->fx.fns[f].is_inlined) != 0)
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
  free(fn.id);
  free(fn.first_id);
  free(fn.first_at);
  return rc;
}

static void loader_free(loader *L) {
  size_t i;
  lgp_dwline_free(&L->lc);
  lgp_dwfuncs_free(&L->fx);
  free(L->ptbeg);
  free(L->ebeg);
  free(L->cr);
  free(L->owners);
  free(L->ents);
  free(L->map);
  free(L->cs);
  names_free(&L->nm);
  free(L->files.slots);
  if (L->files.names != NULL) {
    for (i = 0; i < L->files.n; i++)
      free(L->files.names[i]);
    free(L->files.names);
  }
  if (L->files.paths != NULL) {
    for (i = 0; i < L->files.n; i++)
      free(L->files.paths[i]);
    free(L->files.paths);
  }
  if (L->dw != NULL)
    dwarf_end(L->dw);
}

int lgp_srcinfo_load(lgp_image *im, Elf *elf, int lines, lgp_err *err) {
  loader L;
  size_t i;
  int rc = -1;
  memset(&L, 0, sizeof L);
  L.im = im;
  L.elf = elf;
  L.dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
  if (L.dw == NULL) /* no DWARF: no source info, as with gprof */
    return 0;
  if (im->files != NULL) { /* read before: keep its ids */
    for (i = 0; i < im->nfiles; i++)
      if (intern(&L.files, im->files[i], NULL) != (int)i)
        goto oom;
  }
  if (read_units(&L, lines) != 0 || unit_maps(&L) != 0 || global_map(&L) != 0)
    goto oom;
  if (im->files == NULL) {
    for (i = 0; i < im->nsyms; i++) {
      lgp_rawsym *s = &im->syms[i];
      const ment *e = map_at(&L, s->addr);
      if (e == NULL || e->file < 0 || e->line <= 0)
        continue;
      s->file = e->file;
      s->line = e->line;
    }
  }
  if (lines && (code_syms(&L) != 0 || line_syms(&L) != 0))
    goto oom;
  if (im->files == NULL) {
    im->files = L.files.names;
    im->file_paths = L.files.paths;
    im->nfiles = L.files.n;
    L.files.names = NULL;
    L.files.paths = NULL;
  }
  rc = 0;
  goto out;
oom:
  rc = lgp_fail(err, NULL, "out of memory reading DWARF");
out:
  loader_free(&L);
  return rc;
}
