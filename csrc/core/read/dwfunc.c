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

#include "read/dwfunc_int.h"

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

int lgp_dwfn_collect(Dwarf_Attribute *at, void *arg) {
  fattrs *a = arg;
  switch (dwarf_whatattr(at)) {
  case DW_AT_linkage_name:
  case DW_AT_MIPS_linkage_name:
    a->linkage = *at;
    a->have |= HAVE_LINKAGE;
    break;
  case DW_AT_name: a->name = *at; a->have |= HAVE_NAME; break;
  case DW_AT_abstract_origin:
  case DW_AT_specification:
    a->origin = *at;
    a->have |= HAVE_ORIGIN;
    break;
  case DW_AT_low_pc: a->low = *at; a->have |= HAVE_LOW; break;
  case DW_AT_high_pc: a->high = *at; a->have |= HAVE_HIGH; break;
  case DW_AT_ranges: a->ranges = *at; a->have |= HAVE_RANGES; break;
  default: break;
  }
  return DWARF_CB_OK;
}

/* The function's name: its own linkage name or name, else that of the DIE
** its abstract origin or specification names, and so on (a bounded chain:
** the input could make a loop). */
static const char *fn_name(const fattrs *first, int lang, uint8_t *is_linkage) {
  fattrs a = *first;
  const char *name = NULL;
  int hops;
  for (hops = 0; hops < 16; hops++) {
    Dwarf_Die origin;
    if (a.have & HAVE_LINKAGE) {
      *is_linkage = 1;
      return dwarf_formstring(&a.linkage);
    }
    if (name == NULL && (a.have & HAVE_NAME))
      name = dwarf_formstring(&a.name);
    if (!(a.have & HAVE_ORIGIN) || dwarf_formref_die(&a.origin, &origin) == NULL)
      break;
    memset(&a, 0, sizeof a);
    if (dwarf_getattrs(&origin, lgp_dwfn_collect, &a, 0) != 1)
      break;
  }
  *is_linkage = name != NULL && unmangled(lang);
  return name;
}

static int add_range(lgp_dwfuncs *f, lgp_addr lo, lgp_addr hi) {
  if (lo >= hi)
    return 0;
  if (f->nar == f->ar_cap && lgp_grow((void **)&f->ar, &f->ar_cap, f->nar + 1, sizeof *f->ar) != 0)
    return -1;
  f->ar[f->nar].lo = lo;
  f->ar[f->nar].hi = hi;
  f->ar[f->nar].fn = (uint32_t)f->nfns;
  f->nar++;
  return 0;
}

/* Records the function die whose attributes are a: 1 if it has code,
** else 0; -1 out of memory. */
int lgp_dwfn_record(lgp_dwfuncs *f, Dwarf_Die *die, const fattrs *a, int tag, int lang) {
  size_t first = f->nar;
  lgp_dwfn *fn;
  if ((a->have & (HAVE_LOW | HAVE_HIGH)) == (HAVE_LOW | HAVE_HIGH)) {
    Dwarf_Attribute low = a->low, high = a->high;
    Dwarf_Addr lo, hi;
    Dwarf_Word len;
    int form = dwarf_whatform(&high);
    if (dwarf_formaddr(&low, &lo) == 0) {
      /* DWARF 4 and later give the end as a length from the start */
      if (form == DW_FORM_addr || form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
          (form >= DW_FORM_addrx1 && form <= DW_FORM_addrx4)) {
        if (dwarf_formaddr(&high, &hi) == 0 && add_range(f, lo, hi) != 0)
          return -1;
      } else if (dwarf_formudata(&high, &len) == 0 && add_range(f, lo, lo + len) != 0) {
        return -1;
      }
    }
  } else if (a->have & HAVE_RANGES) {
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
      if (add_range(f, lo, hi) != 0)
        return -1;
  }
  if (f->nar == first)
    return 0;
  if (lgp_grow((void **)&f->fns, &f->fns_cap, f->nfns + 1, sizeof *f->fns) != 0)
    return -1;
  fn = &f->fns[f->nfns++];
  fn->low = f->ar[first].lo;
  fn->is_inlined = tag == DW_TAG_inlined_subroutine;
  fn->name = fn_name(a, lang, &fn->is_linkage);
  return 1;
}

int lgp_dwfn_is_function(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
         tag == DW_TAG_entry_point;
}

/* Records die if it is a function with code: 1, else 0; -1 out of memory. */
static int visit(lgp_dwfuncs *f, Dwarf_Die *die, int tag, int lang) {
  fattrs a;
  if (!lgp_dwfn_is_function(tag))
    return 0;
  memset(&a, 0, sizeof a);
  if (dwarf_getattrs(die, lgp_dwfn_collect, &a, 0) != 1)
    return 0;
  return lgp_dwfn_record(f, die, &a, tag, lang);
}

/* Tags whose children may hold functions: others are skipped whole. */
int lgp_dwfn_may_hold(int tag) {
  switch (tag) {
  case DW_TAG_subprogram: case DW_TAG_inlined_subroutine: case DW_TAG_lexical_block:
  case DW_TAG_namespace: case DW_TAG_module: case DW_TAG_entry_point:
  case DW_TAG_try_block: case DW_TAG_catch_block: case DW_TAG_with_stmt:
  case DW_TAG_common_block:
    return 1;
  default:
    return 0;
  }
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
    int tag = dwarf_tag(&f->stack[n - 1]), code = visit(f, &f->stack[n - 1], tag, lang);
    if (code < 0)
      return -1;
    /* a subprogram without code (an abstract instance) may still hold
       a nested function with code, as BFD finds */
    if (lgp_dwfn_may_hold(tag) && dwarf_haschildren(&f->stack[n - 1]) > 0 &&
        dwarf_child(&f->stack[n - 1], &child) == 0) {
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

/* Sorts the ranges by start (stably: the functions' order stays, as they
** were added in it) and their ends into byhi, by radix sorts; each only
** when the order is not already so, as it mostly is. 0 or -1. */
static int sort_ranges(lgp_dwfuncs *f) {
  size_t n = f->nar, k, s;
  uint64_t *keys = NULL;
  uint32_t *idx = NULL;
  lgp_dwarange *tmp = NULL;
  int rc = -1;
  for (k = 0; k < n; k++)
    f->byhi[k] = f->ar[k].hi;
  for (k = 1; k < n && f->ar[k - 1].lo <= f->ar[k].lo; k++)
    ;
  for (s = 1; s < n && f->byhi[s - 1] <= f->byhi[s]; s++)
    ;
  if (k == n && s == n)
    return 0;
  if (n > UINT32_MAX || (keys = lgp_alloc_array(n, sizeof *keys)) == NULL ||
      (idx = lgp_alloc_array(n, sizeof *idx)) == NULL)
    goto out;
  if (k < n) {
    if ((tmp = lgp_alloc_array(n, sizeof *tmp)) == NULL)
      goto out;
    if (lgp_addr_order(idx, keys, f->ar, n, sizeof *f->ar, offsetof(lgp_dwarange, lo)) != 0)
      goto out;
    for (k = 0; k < n; k++)
      tmp[k] = f->ar[idx[k]];
    memcpy(f->ar, tmp, n * sizeof *tmp);
  }
  if (s < n) {
    if (lgp_addr_order(idx, keys, f->byhi, n, sizeof *f->byhi, 0) != 0)
      goto out;
    for (k = 0; k < n; k++)
      f->byhi[k] = keys[idx[k]];
  }
  rc = 0;
out:
  free(keys);
  free(idx);
  free(tmp);
  return rc;
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

int lgp_dwfuncs_add_unit(lgp_dwfuncs *f, Dwarf_Die *cudie, uint64_t unit_off, int shallow) {
  size_t i = 0, j = 0, nh = 0, first = f->npts, nfns = f->nfns;
  int r = LGP_DWINFO_BAIL;
  f->nar = 0;
  if (f->info != NULL && f->abbrev != NULL)
    r = lgp_dwinfo_walk(f, cudie, unit_off, &shallow);
  if (r == LGP_DWINFO_BAIL) {
    f->nar = 0;
    f->nfns = nfns;
    shallow = 0;
    r = walk(f, cudie);
  }
  if (r != 0)
    return -1;
  if (f->nar == 0)
    return shallow;
  if (lgp_grow((void **)&f->heap, &f->heap_cap, f->nar, sizeof *f->heap) != 0 ||
      lgp_grow((void **)&f->byhi, &f->byhi_cap, f->nar, sizeof *f->byhi) != 0 ||
      sort_ranges(f) != 0)
    return -1;
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
  return shallow;
}

void lgp_dwfuncs_free(lgp_dwfuncs *f) {
  free(f->fns);
  free(f->pts);
  free(f->ar);
  free(f->stack);
  free(f->heap);
  free(f->byhi);
  free(f->abbrs);
  free(f->specs);
  free(f->abidx);
  free(f->steps);
  free(f->pos);
  memset(f, 0, sizeof *f);
}
