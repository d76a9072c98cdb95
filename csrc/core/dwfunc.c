/*
** dwfunc.c: the DWARF functions of a unit and, at each address, the one
** BFD names there: of the subprograms and inlined subroutines whose range
** holds the address, the one with the shortest range (the later one of
** equal lengths), named by its linkage name, else by DW_AT_name, following
** DW_AT_abstract_origin and DW_AT_specification.
*/
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dwfunc.h"

typedef struct lgp_dwarange {
  lgp_addr lo, hi;
  uint32_t fn;
} lgp_dwarange;

/* Languages whose DW_AT_name is the symbol's name (no mangling). */
static int unmangled(int lang) {
  switch (lang) {
  case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
  case DW_LANG_Ada83: case DW_LANG_Ada95: case DW_LANG_Cobol74: case DW_LANG_Cobol85:
  case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95:
  case DW_LANG_Fortran03: case DW_LANG_Fortran08: case DW_LANG_Pascal83:
  case DW_LANG_PLI: case DW_LANG_UPC: case DW_LANG_Mips_Assembler:
    return 1;
  default:
    return 0;
  }
}

static int visit(lgp_dwfuncs *f, Dwarf_Die *die, int lang) {
  int tag = dwarf_tag(die);
  Dwarf_Addr base, lo, hi;
  ptrdiff_t off = 0;
  size_t first = f->nar;
  lgp_dwfn *fn;
  Dwarf_Attribute at;
  if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine && tag != DW_TAG_entry_point)
    return 0;
  while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
    if (lo >= hi)
      continue;
    if (lgp_grow((void **)&f->ar, &f->ar_cap, f->nar + 1, sizeof *f->ar) != 0)
      return -1;
    f->ar[f->nar].lo = lo;
    f->ar[f->nar].hi = hi;
    f->ar[f->nar].fn = (uint32_t)f->nfns;
    f->nar++;
  }
  if (f->nar == first)
    return 0;
  if (lgp_grow((void **)&f->fns, &f->fns_cap, f->nfns + 1, sizeof *f->fns) != 0)
    return -1;
  fn = &f->fns[f->nfns++];
  fn->low = f->ar[first].lo;
  fn->is_inlined = tag == DW_TAG_inlined_subroutine;
  fn->name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
  if (fn->name == NULL)
    fn->name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
  if (fn->name != NULL) {
    fn->is_linkage = 1;
  } else {
    fn->name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
    fn->is_linkage = fn->name != NULL && unmangled(lang);
  }
  return 0;
}

/* Every DIE of the unit, in order, with an explicit stack (the depth is
** the input's). */
static int walk(lgp_dwfuncs *f, Dwarf_Die *cudie) {
  size_t n = 0;
  int lang = dwarf_srclang(cudie);
  if (lgp_grow((void **)&f->stack, &f->stack_cap, 1, sizeof *f->stack) != 0)
    return -1;
  if (dwarf_child(cudie, &f->stack[0]) != 0)
    return 0;
  n = 1;
  for (;;) {
    Dwarf_Die child;
    if (visit(f, &f->stack[n - 1], lang) != 0)
      return -1;
    if (dwarf_haschildren(&f->stack[n - 1]) > 0 && dwarf_child(&f->stack[n - 1], &child) == 0) {
      if (lgp_grow((void **)&f->stack, &f->stack_cap, n + 1, sizeof *f->stack) != 0)
        return -1;
      f->stack[n++] = child;
      continue;
    }
    while (n > 0 && dwarf_siblingof(&f->stack[n - 1], &f->stack[n - 1]) != 0)
      n--;
    if (n == 0)
      return 0;
  }
}

/* Heap order: the shorter range first, then the later function. */
static int better(const lgp_dwarange *ar, uint32_t a, uint32_t b) {
  lgp_addr la = ar[a].hi - ar[a].lo, lb = ar[b].hi - ar[b].lo;
  return la != lb ? la < lb : ar[a].fn > ar[b].fn;
}

static void heap_push(uint32_t *h, size_t *n, const lgp_dwarange *ar, uint32_t v) {
  size_t i = (*n)++;
  while (i > 0 && better(ar, v, h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = v;
}

static void heap_pop(uint32_t *h, size_t *n, const lgp_dwarange *ar) {
  uint32_t v = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && better(ar, h[c + 1], h[c]))
      c++;
    if (!better(ar, h[c], v))
      break;
    h[i] = h[c];
    i = c;
  }
  if (*n > 0)
    h[i] = v;
}

static int cmp_lo(const void *a, const void *b) {
  const lgp_dwarange *l = a, *r = b;
  if (l->lo != r->lo)
    return l->lo < r->lo ? -1 : 1;
  return l->fn < r->fn ? -1 : l->fn > r->fn;
}

static int cmp_addr(const void *a, const void *b) {
  lgp_addr l = *(const lgp_addr *)a, r = *(const lgp_addr *)b;
  return l < r ? -1 : l > r;
}

static int add_point(lgp_dwfuncs *f, size_t first, lgp_addr addr, int32_t fn) {
  if (f->npts > first && f->pts[f->npts - 1].fn == fn)
    return 0;
  if (f->npts > first && f->pts[f->npts - 1].addr == addr) {
    f->pts[f->npts - 1].fn = fn;
    return 0;
  }
  if (lgp_grow((void **)&f->pts, &f->pts_cap, f->npts + 1, sizeof *f->pts) != 0)
    return -1;
  f->pts[f->npts].addr = addr;
  f->pts[f->npts].fn = fn;
  f->npts++;
  return 0;
}

int lgp_dwfuncs_add_unit(lgp_dwfuncs *f, Dwarf_Die *cudie) {
  size_t i = 0, j = 0, nh = 0, first = f->npts, k;
  f->nar = 0;
  if (walk(f, cudie) != 0)
    return -1;
  if (f->nar == 0)
    return 0;
  qsort(f->ar, f->nar, sizeof *f->ar, cmp_lo);
  if (lgp_grow((void **)&f->heap, &f->heap_cap, f->nar, sizeof *f->heap) != 0 ||
      lgp_grow((void **)&f->byhi, &f->byhi_cap, f->nar, sizeof *f->byhi) != 0)
    return -1;
  for (k = 0; k < f->nar; k++)
    f->byhi[k] = f->ar[k].hi;
  qsort(f->byhi, f->nar, sizeof *f->byhi, cmp_addr);
  while (i < f->nar || j < f->nar) {
    lgp_addr pos = j < f->nar ? f->byhi[j] : ~(lgp_addr)0;
    if (i < f->nar && f->ar[i].lo < pos)
      pos = f->ar[i].lo;
    while (i < f->nar && f->ar[i].lo == pos)
      heap_push(f->heap, &nh, f->ar, (uint32_t)i++);
    while (j < f->nar && f->byhi[j] == pos)
      j++;
    while (nh > 0 && f->ar[f->heap[0]].hi <= pos)
      heap_pop(f->heap, &nh, f->ar);
    if (add_point(f, first, pos, nh > 0 ? (int32_t)f->ar[f->heap[0]].fn : -1) != 0)
      return -1;
  }
  return 0;
}

void lgp_dwfuncs_free(lgp_dwfuncs *f) {
  free(f->fns);
  free(f->pts);
  free(f->ar);
  free(f->stack);
  free(f->heap);
  free(f->byhi);
  memset(f, 0, sizeof *f);
}
