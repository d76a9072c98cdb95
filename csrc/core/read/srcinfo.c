/*
** srcinfo.c: the load of the DWARF: the line tables and the files they
** name, the units' map (lgp_unitmap) and functions (lgp_unitfns), BFD's
** (file, line) of each function symbol, and, handing linesyms.c the map
** and the functions, gprof's line symbols. Holds all it reads in one
** loader, freed when the load is done.
** At an address BFD asks the first unit whose ranges hold it; in that
** unit's line table, the sequence [first row, end) that holds it, and in
** it the last row at or below it. The units' sequences are merged into one
** map of points; each symbol is a binary search, the line symbols a walk
** over the points. Files are named as BFD names them (lgp_dwline_read);
** an absolute name also gets a normalised form (for the exports).
*/
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "read/dwline.h"
#include "read/dwunits.h"
#include "read/srcinfo.h"
#include "util/strset.h"

/* The source files: names as BFD spells them, and absolute paths. */
typedef struct interner {
  lgp_strset set;
  char **paths; /* absolute form of set.s[i] (see file_path), or NULL */
  size_t pcap;
} interner;

/* One reading of the DWARF: the line tables (each unit's sequences and
** points), the files they name, and what it hands linesyms.c: the units'
** map and their functions. */
typedef struct loader {
  lgp_image *im;
  Elf *elf;
  interner files;
  lgp_dwline_ctx lc;
  int lines;           /* make the global map and the line symbols */
  size_t *sbeg;        /* unit u's sequences: lc.seqs[sbeg[u] .. sbeg[u + 1]) */
  size_t *ebeg;        /* unit u's points: ents[ebeg[u] .. ebeg[u + 1]) */
  ment *ents;
  size_t nents, ents_cap;
  lgp_unitmap um;
  size_t cr_cap, owners_cap, map_cap;
  lgp_unitfns fns;
} loader;

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

/* An absolute name without "." segments and repeated slashes; ".." is
** kept (removing "a/.." is wrong when a is a symbolic link). NULL with
** *fail 0: nothing to give (the name is relative: DWARF gives no absolute
** compilation directory). */
static char *file_path(const char *name, int *fail) {
  size_t len = 0;
  char *buf;
  *fail = 0;
  if (name[0] != '/')
    return NULL;
  buf = lgp_alloc_array(strlen(name) + 2, 1);
  if (buf == NULL) {
    *fail = 1;
    return NULL;
  }
  add_segments(buf, &len, name);
  if (len == 0)
    buf[len++] = '/';
  buf[len] = '\0';
  return buf;
}

static int intern(interner *t, const char *s) {
  int fail, added;
  int32_t id;
  if (lgp_grow((void **)&t->paths, &t->pcap, t->set.n + 1, sizeof *t->paths) != 0)
    return -1;
  id = lgp_strset_add(&t->set, s, &added);
  if (id < 0 || !added)
    return id < 0 ? -1 : id;
  t->paths[id] = file_path(s, &fail);
  return fail ? -1 : id;
}

static int32_t file_id(void *ud, const char *name) {
  loader *L = ud;
  int id = intern(&L->files, name);
  return id < 0 ? -2 : id;
}

/* A unit's compilation directory as BFD reads it: a "HOST.:" that some
** old compilers put before the path is dropped ("h.:/src" is "/src"). */
static const char *comp_dir_of(Dwarf_Die *cudie) {
  Dwarf_Attribute at;
  const char *d = dwarf_formstring(dwarf_attr_integrate(cudie, DW_AT_comp_dir, &at));
  const char *colon = d != NULL ? strchr(d, ':') : NULL;
  if (colon != NULL && colon != d && colon[-1] == '.' && colon[1] == '/')
    return colon + 1;
  return d;
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
  if (lgp_grow((void **)&L->um.cr, &L->cr_cap, L->um.ncr + 1, sizeof *L->um.cr) != 0)
    return -1;
  L->um.cr[L->um.ncr].lo = lo;
  L->um.cr[L->um.ncr].hi = hi;
  L->um.cr[L->um.ncr].cu = cu;
  L->um.ncr++;
  return 0;
}

/* Every compilation unit: its line program and its ranges (its functions
** are lgp_unitfns_read's). 0, or -1 out of memory. */
static int read_units(loader *L) {
  Dwarf_Off off = 0, next;
  size_t hsize;
  Dwarf_Half version;
  L->lc.line = section(L->elf, ".debug_line");
  L->lc.line_str = section(L->elf, ".debug_line_str");
  L->lc.str = section(L->elf, ".debug_str");
  L->lc.big_endian = L->im->big_endian;
  /* room for the rows up front (a row takes a few bytes of program; more
     rows grow the table): no copies of a table of megabytes as it doubles */
  if (L->lc.line.size / 4 > 0 &&
      lgp_grow((void **)&L->lc.rows, &L->lc.rows_cap, L->lc.line.size / 4, sizeof *L->lc.rows) != 0)
    return -1;
  L->lc.file_id = file_id;
  L->lc.ud = L;
  for (; dwarf_next_unit(L->fns.dw, off, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL) == 0;
       off = next) {
    Dwarf_Die cudie;
    Dwarf_Attribute at;
    Dwarf_Word stmt;
    Dwarf_Addr base, lo, hi;
    ptrdiff_t roff = 0;
    uint32_t u = L->um.nunits;
    size_t seq0 = L->lc.nseqs, cr0 = L->um.ncr, k;
    if (u == UINT32_MAX)
      return -1;
    L->um.nunits++;
    if (dwarf_offdie(L->fns.dw, off + hsize, &cudie) == NULL)
      continue;
    if (dwarf_formudata(dwarf_attr(&cudie, DW_AT_stmt_list, &at), &stmt) == 0 &&
        lgp_dwline_read(&L->lc, stmt, u, comp_dir_of(&cudie)) < 0)
      return -1;
    while ((roff = dwarf_ranges(&cudie, roff, &base, &lo, &hi)) > 0)
      if (add_crange(L, lo, hi, u) != 0)
        return -1;
    if (L->um.ncr == cr0) /* no ranges given: its sequences are its ranges */
      for (k = seq0; k < L->lc.nseqs; k++)
        if (add_crange(L, L->lc.seqs[k].start, L->lc.seqs[k].end, u) != 0)
          return -1;
  }
  return 0;
}

/* Makes ready to read the units' functions (lgp_unitfns_read). 0, or -1. */
static int unitfns_init(loader *L) {
  lgp_unitfns *f = &L->fns;
  lgp_dwsect info = section(L->elf, ".debug_info"), abbrev = section(L->elf, ".debug_abbrev");
  f->nunits = L->um.nunits;
  f->ptbeg = lgp_calloc_array((size_t)f->nunits + 1, sizeof *f->ptbeg);
  f->shallow = lgp_calloc_array((size_t)f->nunits + 1, sizeof *f->shallow);
  if (f->ptbeg == NULL || f->shallow == NULL)
    return -1;
  f->fx.info = info.p;
  f->fx.info_size = info.size;
  f->fx.abbrev = abbrev.p;
  f->fx.abbrev_size = abbrev.size;
  f->fx.big_endian = L->im->big_endian;
  return 0;
}

int lgp_unitfns_read(lgp_unitfns *f, int shallow) {
  Dwarf_Off off = 0, next;
  size_t hsize;
  uint32_t u = 0;
  f->fx.nfns = 0;
  f->fx.npts = 0;
  f->any_shallow = 0;
  for (; u < f->nunits &&
         dwarf_next_unit(f->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0;
       off = next, u++) {
    Dwarf_Die cudie;
    int r;
    f->ptbeg[u] = f->ptbeg[u + 1] = f->fx.npts;
    if (dwarf_offdie(f->dw, off + hsize, &cudie) == NULL)
      continue;
    if ((r = lgp_dwfuncs_add_unit(&f->fx, &cudie, off, shallow)) < 0)
      return -1;
    f->any_shallow |= r;
    f->shallow[u] = (uint8_t)r;
    f->ptbeg[u + 1] = f->fx.npts;
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

static inline int push_ent(ment **v, size_t *n, size_t *cap, size_t floor, lgp_addr addr,
                    int32_t file, int32_t line, uint32_t cu) {
  ment *e;
  if (*n > floor && (*v)[*n - 1].addr == addr) {
    e = &(*v)[*n - 1]; /* the later point at one address is the one that holds */
  } else {
    if (*n == *cap && lgp_grow((void **)v, cap, *n + 1, sizeof **v) != 0)
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
  L->sbeg = lgp_alloc_array((size_t)L->um.nunits + 1, sizeof *L->sbeg);
  if (L->sbeg == NULL)
    return -1;
  for (k = 0; k < L->lc.nseqs; k++)
    while (u <= sq[k].cu)
      L->sbeg[u++] = k;
  while (u <= L->um.nunits)
    L->sbeg[u++] = L->lc.nseqs;
  if (!L->lines)
    return 0;
  u = 0;
  L->ebeg = lgp_alloc_array((size_t)L->um.nunits + 1, sizeof *L->ebeg);
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
  while (u <= L->um.nunits)
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
  size_t lo = L->ebeg[u] + lgp_addr_count_le(L->ents + L->ebeg[u], L->ebeg[u + 1] - L->ebeg[u],
                                              sizeof *L->ents, offsetof(ment, addr), addr);
  return lo > L->ebeg[u] ? lo - 1 : SIZE_MAX;
}

/* Copies unit u's points over [a, b) into the global map. */
static int own(loader *L, uint32_t u, lgp_addr a, lgp_addr b) {
  size_t i, j;
  const ment *e;
  if (lgp_grow((void **)&L->um.owners, &L->owners_cap, L->um.nowners + 1, sizeof *L->um.owners) != 0)
    return -1;
  L->um.owners[L->um.nowners].lo = a;
  L->um.owners[L->um.nowners].hi = b;
  L->um.owners[L->um.nowners].cu = u;
  L->um.nowners++;
  if (!L->lines)
    return 0;
  i = unit_point(L, u, a);
  e = i == SIZE_MAX ? NULL : &L->ents[i];
  if (push_ent(&L->um.map, &L->um.nmap, &L->map_cap, 0, a, e ? e->file : -1, e ? e->line : 0, u) != 0)
    return -1;
  /* the unit's points after a and before b: ascending, one per address,
     above a: copied as they are */
  i = i == SIZE_MAX ? L->ebeg[u] : i + 1;
  for (j = i; j < L->ebeg[u + 1] && L->ents[j].addr < b; j++)
    ;
  if (j > i) {
    if (lgp_grow((void **)&L->um.map, &L->map_cap, L->um.nmap + (j - i), sizeof *L->um.map) != 0)
      return -1;
    memcpy(L->um.map + L->um.nmap, L->ents + i, (j - i) * sizeof *L->um.map);
    L->um.nmap += j - i;
  }
  return push_ent(&L->um.map, &L->um.nmap, &L->map_cap, 0, b, -1, 0, u);
}

/* The global map: at each address, BFD asks the first unit (in
** .debug_info order) whose ranges hold it; the linker points the ranges
** and line tables of discarded COMDAT copies at the kept copy, so units
** overlap. A sweep over the range bounds with the owning candidates in a
** heap (least unit first). */
static int global_map(loader *L) {
  size_t i = 0, j = 0, nh = 0, n = L->um.ncr;
  uint32_t *heap;
  lgp_addr *ends, cur_lo = 0;
  int64_t cur = -1;
  int rc = -1;
  if (n == 0)
    return 0;
  qsort(L->um.cr, n, sizeof *L->um.cr, cmp_crange);
  /* the map holds each unit's points once at most, and two more for each
     of the 2n + 1 stretches at most that the units' ranges cut */
  if (L->lines &&
      lgp_grow((void **)&L->um.map, &L->map_cap, L->nents + 4 * n + 2, sizeof *L->um.map) != 0)
    return -1;
  heap = lgp_alloc_array(n, sizeof *heap);
  ends = lgp_alloc_array(n, sizeof *ends);
  if (heap == NULL || ends == NULL)
    goto out;
  for (i = 0; i < n; i++)
    ends[i] = L->um.cr[i].hi;
  qsort(ends, n, sizeof *ends, cmp_addr);
  i = 0;
  while (i < n || j < n) {
    lgp_addr pos = j < n ? ends[j] : ~(lgp_addr)0;
    int64_t top;
    if (i < n && L->um.cr[i].lo < pos)
      pos = L->um.cr[i].lo;
    while (i < n && L->um.cr[i].lo == pos) { /* push by unit */
      size_t c = nh++;
      uint32_t v = (uint32_t)i++;
      while (c > 0 && L->um.cr[heap[(c - 1) / 2]].cu > L->um.cr[v].cu) {
        heap[c] = heap[(c - 1) / 2];
        c = (c - 1) / 2;
      }
      heap[c] = v;
    }
    while (j < n && ends[j] == pos)
      j++;
    while (nh > 0 && L->um.cr[heap[0]].hi <= pos) { /* pop */
      uint32_t v = heap[--nh];
      size_t c = 0;
      for (;;) {
        size_t d = 2 * c + 1;
        if (d >= nh)
          break;
        if (d + 1 < nh && L->um.cr[heap[d + 1]].cu < L->um.cr[heap[d]].cu)
          d++;
        if (L->um.cr[heap[d]].cu >= L->um.cr[v].cu)
          break;
        heap[c] = heap[d];
        c = d;
      }
      if (nh > 0)
        heap[c] = v;
    }
    top = nh > 0 ? (int64_t)L->um.cr[heap[0]].cu : -1;
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

/* Where the last lookup of row_at ended: its sequence and row. */
typedef struct row_cursor {
  const lgp_dwseq *sq;
  size_t row;
} row_cursor;

/* BFD's line at addr: in the unit that answers for it, the sequence that
** holds it and its last row at or below it. NULL for none. Lookups in
** ascending order go on from the cursor: an address ahead of the last one
** in the same sequence (and before the next sequence of its unit starts)
** is found by galloping forward from the last row, in rows just read
** (a binary search of the megabytes of rows misses the cache each time). */
static const lgp_dwrow *row_at(const loader *L, lgp_addr addr, row_cursor *cur) {
  int64_t u = lgp_unitmap_owner_at(&L->um, addr);
  const lgp_dwrow *rows = L->lc.rows;
  const lgp_dwseq *sq = cur->sq;
  size_t lo, hi, b;
  if (u < 0)
    return NULL;
  if (sq != NULL && sq->cu == (uint32_t)u && addr >= rows[cur->row].addr && addr < sq->end &&
      ((size_t)(sq - L->lc.seqs) + 1 >= L->sbeg[u + 1] || sq[1].start > addr)) {
    size_t end = sq->first + sq->n, step = 1;
    lo = cur->row;
    while (lo + step < end && rows[lo + step].addr <= addr) {
      lo += step;
      step *= 2;
    }
    hi = lo + step < end ? lo + step : end;
    lo++;
  } else {
    b = L->sbeg[u];
    lo = b + lgp_addr_count_le(L->lc.seqs + b, L->sbeg[u + 1] - b, sizeof *L->lc.seqs,
                               offsetof(lgp_dwseq, start), addr);
    if (lo == b || addr >= L->lc.seqs[lo - 1].end)
      return NULL;
    sq = &L->lc.seqs[lo - 1];
    lo = sq->first;
    hi = sq->first + sq->n;
  }
  lo += lgp_addr_count_le(rows + lo, hi - lo, sizeof *rows, offsetof(lgp_dwrow, addr), addr);
  cur->sq = sq;
  cur->row = lo - 1;
  return &rows[lo - 1];
}

/* Each symbol's file and line, looked up in address order. 0, or -1. */
static int assign_lines(loader *L) {
  lgp_image *im = L->im;
  size_t n = im->nsyms, i;
  uint32_t *idx = NULL;
  uint64_t *keys = NULL;
  row_cursor cur = {NULL, 0};
  int rc = -1;
  for (i = 1; i < n && im->syms[i - 1].addr <= im->syms[i].addr; i++)
    ;
  if (i < n) { /* not in order (.symtab's): an order by address */
    if (n > UINT32_MAX || (idx = lgp_alloc_array(n, sizeof *idx)) == NULL ||
        (keys = lgp_alloc_array(n, sizeof *keys)) == NULL)
      goto out;
    if (lgp_addr_order(idx, keys, im->syms, n, sizeof *im->syms, offsetof(lgp_rawsym, addr)) != 0)
      goto out;
  }
  for (i = 0; i < n; i++) {
    lgp_rawsym *s = &im->syms[idx != NULL ? idx[i] : i];
    const lgp_dwrow *w = row_at(L, s->addr, &cur);
    if (w == NULL || w->file < 0 || w->line <= 0)
      continue;
    s->file = w->file;
    s->line = w->line;
  }
  rc = 0;
out:
  free(idx);
  free(keys);
  return rc;
}

int64_t lgp_unitmap_owner_at(const lgp_unitmap *m, lgp_addr addr) {
  size_t lo =
    lgp_addr_count_le(m->owners, m->nowners, sizeof *m->owners, offsetof(crange, lo), addr);
  return lo > 0 && addr < m->owners[lo - 1].hi ? (int64_t)m->owners[lo - 1].cu : -1;
}

static void loader_free(loader *L) {
  size_t i;
  lgp_dwline_free(&L->lc);
  lgp_dwfuncs_free(&L->fns.fx);
  free(L->fns.ptbeg);
  free(L->fns.shallow);
  free(L->ebeg);
  free(L->sbeg);
  free(L->um.cr);
  free(L->um.owners);
  free(L->ents);
  free(L->um.map);
  if (L->files.paths != NULL) {
    for (i = 0; i < L->files.set.n; i++)
      free(L->files.paths[i]);
    free(L->files.paths);
  }
  lgp_strset_free(&L->files.set);
  if (L->fns.dw != NULL)
    dwarf_end(L->fns.dw);
}

int lgp_srcinfo_load(lgp_image *im, Elf *elf, int lines, lgp_err *err) {
  loader L;
  size_t i;
  int rc = -1;
  memset(&L, 0, sizeof L);
  L.im = im;
  L.elf = elf;
  L.lines = lines;
  L.fns.dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
  if (L.fns.dw == NULL) /* no DWARF: no source info, as with gprof */
    return 0;
  if (im->files != NULL) { /* read before: keep its ids */
    for (i = 0; i < im->nfiles; i++)
      if (intern(&L.files, im->files[i]) != (int)i)
        goto oom;
  }
  if (read_units(&L) != 0 ||
      (lines && (unitfns_init(&L) != 0 || lgp_unitfns_read(&L.fns, 1) != 0)) ||
      unit_maps(&L) != 0 || global_map(&L) != 0)
    goto oom;
  if (im->files == NULL && assign_lines(&L) != 0)
    goto oom;
  if (lines && lgp_linesyms_make(im, elf, &L.um, &L.fns) != 0)
    goto oom;
  if (im->files == NULL) {
    im->files = L.files.set.s;
    im->file_paths = L.files.paths;
    im->nfiles = L.files.set.n;
    L.files.set.s = NULL;
    L.files.paths = NULL;
  }
  if (im->file_len == NULL && im->nfiles > 0) {
    im->file_len = lgp_alloc_array(im->nfiles, sizeof *im->file_len);
    im->file_base = lgp_alloc_array(im->nfiles, sizeof *im->file_base);
    if (im->file_len == NULL || im->file_base == NULL)
      goto oom;
    for (i = 0; i < im->nfiles; i++) {
      const char *f = im->files[i], *slash = strrchr(f, '/');
      size_t len = strlen(f);
      im->file_len[i] = len < UINT32_MAX ? (uint32_t)len : 0;
      im->file_base[i] = slash != NULL && len < UINT32_MAX ? (uint32_t)(slash + 1 - f) : 0;
    }
  }
  rc = 0;
  goto out;
oom:
  rc = lgp_fail(err, NULL, "out of memory reading DWARF");
out:
  loader_free(&L);
  return rc;
}
