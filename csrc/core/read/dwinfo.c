/*
** dwinfo.c: the direct walk of a unit's .debug_info for its functions.
*/
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "read/dwfunc_int.h"
#include "util/bytes.h"

/* The direct walk. libdw's walk spends most of its time finding where each
** DIE's attributes end; here each abbreviation's layout is read once, and
** the walk takes libdw's dwarf_child and dwarf_siblingof steps (following
** DW_AT_sibling as they do) so that it visits the same DIEs. Values are
** still read by libdw. Whatever it does not know (a form, a unit type, a
** malformed DIE) sends the unit back to the libdw walk: LGP_DWINFO_BAIL. */
typedef struct lgp_dwabbr {
  uint64_t code;
  int tag;
  uint8_t children;
  uint32_t spec, nspec;  /* its attributes: specs[spec .. spec + nspec) */
  int32_t fixed;         /* their bytes when all sizes are fixed, else -1 */
  int32_t sib;           /* its first DW_AT_sibling (index from spec), or -1 */
  uint32_t step, nstep;  /* how to skip them: steps[step .. step + nstep) */
  uint32_t sib_nstep, sib_add; /* and to reach the sibling: the first
                                  sib_nstep steps, then sib_add bytes */
  uint8_t kind;          /* KIND_ bits of its tag */
} lgp_dwabbr;

enum { KIND_FN = 1, KIND_HOLD = 2 };

/* Skipping attributes: add bytes, then skip a value of a variable-size
** form (0: none). */
typedef struct lgp_dwstep {
  uint32_t add, form;
} lgp_dwstep;

typedef struct lgp_dwaspec {
  uint32_t name, form;
  int32_t size;          /* fixed size, or -1 */
} lgp_dwaspec;

typedef struct unitrd {
  lgp_dwfuncs *f;
  unsigned char *p;      /* .debug_info, as libdw reads it */
  size_t start, end;     /* the unit's bytes */
  unsigned addr_size, off_size, version;
  size_t ncodes;         /* abidx's entries */
  int has_inline;        /* an abbreviation of inlined code or entry points */
} unitrd;

/* LEB128 at p[*pos] (before p[end]), *pos moved past it; 0 or -1. */
static int uleb(const unsigned char *p, size_t *pos, size_t end, uint64_t *v) {
  const unsigned char *q = p + *pos;
  int rc = lgp_bytes_uleb(&q, p + end, v);
  *pos = (size_t)(q - p);
  return rc;
}

/* A form's size when fixed; -1 when the data says (LEB128, string,
** block); -2 for a form this reader does not know. */
static int32_t form_size(uint64_t form, unsigned addr_size, unsigned off_size, unsigned version) {
  switch (form) {
  case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
  case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
  case DW_FORM_addrx1: return 1;
  case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
  case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
  case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: return 4;
  case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: return 8;
  case DW_FORM_data16: return 16;
  case DW_FORM_addr: return (int32_t)addr_size;
  case DW_FORM_ref_addr: return (int32_t)(version == 2 ? addr_size : off_size);
  case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
    return (int32_t)off_size;
  case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_ref_udata: case DW_FORM_strx:
  case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_string:
  case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
  case DW_FORM_exprloc:
    return -1;
  default:
    return -2;
  }
}

/* Moves *pos past one attribute value of a variable-size form. */
static int skip_var(const unitrd *u, uint32_t form, size_t *pos) {
  uint64_t n;
  const unsigned char *z;
  int be = u->f->big_endian;
  switch (form) {
  case DW_FORM_string:
    z = memchr(u->p + *pos, 0, u->end - *pos);
    if (z == NULL)
      return -1;
    *pos = (size_t)(z - u->p) + 1;
    return 0;
  case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: {
    size_t w = form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4;
    if (u->end - *pos < w)
      return -1;
    n = lgp_bytes_uint(u->p + *pos, w, be);
    *pos += w;
    break;
  }
  case DW_FORM_block: case DW_FORM_exprloc:
    if (uleb(u->p, pos, u->end, &n) != 0)
      return -1;
    break;
  default:
    return uleb(u->p, pos, u->end, &n);
  }
  if (n > u->end - *pos)
    return -1;
  *pos += (size_t)n;
  return 0;
}

static int skip_attr(const unitrd *u, const lgp_dwaspec *sp, size_t *pos) {
  if (sp->size >= 0) {
    if (u->end - *pos < (size_t)sp->size)
      return -1;
    *pos += (size_t)sp->size;
    return 0;
  }
  return skip_var(u, sp->form, pos);
}

static int add_step(lgp_dwfuncs *f, size_t *nsteps, uint32_t add, uint32_t form) {
  if (*nsteps >= UINT32_MAX ||
      lgp_grow((void **)&f->steps, &f->steps_cap, *nsteps + 1, sizeof *f->steps) != 0)
    return -1;
  f->steps[*nsteps].add = add;
  f->steps[*nsteps].form = form;
  ++*nsteps;
  return 0;
}

/* The unit's abbreviations, at offset aoff of .debug_abbrev. */
static int read_abbrevs(lgp_dwfuncs *f, unitrd *u, uint64_t aoff) {
  size_t pos = (size_t)aoff, size = f->abbrev_size, n = 0, ns = 0, nsteps = 0, k;
  uint64_t maxcode = 0;
  if (aoff >= size)
    return LGP_DWINFO_BAIL;
  for (;;) {
    uint64_t code, tag, name, form, c;
    uint32_t acc;
    lgp_dwabbr *ab;
    if (uleb(f->abbrev, &pos, size, &code) != 0)
      return LGP_DWINFO_BAIL;
    if (code == 0)
      break;
    if (uleb(f->abbrev, &pos, size, &tag) != 0 || tag > 0xffff || pos >= size)
      return LGP_DWINFO_BAIL;
    if (lgp_grow((void **)&f->abbrs, &f->abbrs_cap, n + 1, sizeof *f->abbrs) != 0)
      return -1;
    ab = &f->abbrs[n++];
    ab->code = code;
    ab->tag = (int)tag;
    ab->children = f->abbrev[pos++] == DW_CHILDREN_yes;
    ab->kind = (uint8_t)((lgp_dwfn_is_function(ab->tag) ? KIND_FN : 0) |
                         (lgp_dwfn_may_hold(ab->tag) ? KIND_HOLD : 0));
    if (ab->tag == DW_TAG_inlined_subroutine || ab->tag == DW_TAG_entry_point)
      u->has_inline = 1;
    ab->spec = (uint32_t)ns;
    ab->fixed = 0;
    ab->sib = -1;
    ab->sib_nstep = ab->sib_add = 0;
    ab->step = (uint32_t)nsteps;
    acc = 0;
    if (code > maxcode)
      maxcode = code;
    for (;;) {
      int32_t sz;
      if (uleb(f->abbrev, &pos, size, &name) != 0 || uleb(f->abbrev, &pos, size, &form) != 0)
        return LGP_DWINFO_BAIL;
      if (name == 0 && form == 0)
        break;
      if (form == DW_FORM_implicit_const && uleb(f->abbrev, &pos, size, &c) != 0)
        return LGP_DWINFO_BAIL;
      sz = form_size(form, u->addr_size, u->off_size, u->version);
      if (sz == -2 || name > 0xffff || ns >= UINT32_MAX)
        return LGP_DWINFO_BAIL;
      if (lgp_grow((void **)&f->specs, &f->specs_cap, ns + 1, sizeof *f->specs) != 0)
        return -1;
      if (name == DW_AT_sibling && ab->sib < 0) {
        ab->sib = (int32_t)(ns - ab->spec);
        ab->sib_nstep = (uint32_t)(nsteps - ab->step);
        ab->sib_add = acc;
      }
      f->specs[ns].name = (uint32_t)name;
      f->specs[ns].form = (uint32_t)form;
      f->specs[ns].size = sz;
      ns++;
      if (sz < 0 || ab->fixed < 0 || ab->fixed > INT32_MAX - 16)
        ab->fixed = -1;
      else
        ab->fixed += sz;
      if (sz < 0) {
        if (add_step(f, &nsteps, acc, (uint32_t)form) != 0)
          return -1;
        acc = 0;
      } else if (acc > UINT32_MAX - 16) {
        return LGP_DWINFO_BAIL;
      } else {
        acc += (uint32_t)sz;
      }
    }
    if (acc > 0 && add_step(f, &nsteps, acc, 0) != 0)
      return -1;
    ab->nspec = (uint32_t)(ns - ab->spec);
    ab->nstep = (uint32_t)(nsteps - ab->step);
  }
  if (maxcode > 4 * (uint64_t)n + 1024) /* codes are dense in practice */
    return LGP_DWINFO_BAIL;
  u->ncodes = (size_t)maxcode + 1;
  if (lgp_grow((void **)&f->abidx, &f->abidx_cap, u->ncodes, sizeof *f->abidx) != 0)
    return -1;
  memset(f->abidx, 0, u->ncodes * sizeof *f->abidx);
  for (k = 0; k < n; k++) {
    if (f->abidx[f->abbrs[k].code] != 0)
      return LGP_DWINFO_BAIL; /* which one counts is libdw's business */
    f->abidx[f->abbrs[k].code] = (uint32_t)k + 1;
  }
  return 0;
}

/* The abbreviation of the DIE at *pos, moving *pos past its code. */
static inline const lgp_dwabbr *die_abbr(const unitrd *u, size_t *pos) {
  uint64_t code;
  if (*pos < u->end && u->p[*pos] < 0x80)
    code = u->p[(*pos)++];
  else if (uleb(u->p, pos, u->end, &code) != 0)
    return NULL;
  if (code == 0 || code >= u->ncodes || u->f->abidx[code] == 0)
    return NULL;
  return &u->f->abbrs[u->f->abidx[code] - 1];
}

/* Moves *pos past what nstep steps skip. */
static int run_steps(const unitrd *u, const lgp_dwstep *st, uint32_t nstep, size_t *pos) {
  const lgp_dwstep *e = st + nstep;
  for (; st < e; st++) {
    if (u->end - *pos < st->add)
      return -1;
    *pos += st->add;
    if (st->form != 0) {
      if (st->form == DW_FORM_exprloc || st->form == DW_FORM_block ||
          st->form == DW_FORM_string || st->form == DW_FORM_block1 ||
          st->form == DW_FORM_block2 || st->form == DW_FORM_block4) {
        if (skip_var(u, st->form, pos) != 0)
          return -1;
      } else { /* a LEB128 number */
        const unsigned char *p = u->p;
        size_t q = *pos;
        while (q < u->end && (p[q] & 0x80))
          q++;
        if (q >= u->end)
          return -1;
        *pos = q + 1;
      }
    }
  }
  return 0;
}

/* Moves *pos (at ab's attributes) past them. */
static int skip_attrs(const unitrd *u, const lgp_dwabbr *ab, size_t *pos) {
  return run_steps(u, &u->f->steps[ab->step], ab->nstep, pos);
}

/* dwarf_child: the first child of the DIE whose attributes start at attrs.
** 0 and *child, 1 none, LGP_DWINFO_BAIL. */
static int first_child(const unitrd *u, const lgp_dwabbr *ab, size_t attrs, size_t *child) {
  size_t c;
  if (!ab->children)
    return 1;
  if (skip_attrs(u, ab, &attrs) != 0)
    return LGP_DWINFO_BAIL;
  for (c = attrs; c < u->end && u->p[c] == 0x80; c++)
    ;
  if (c >= u->end || u->p[c] == 0)
    return 1;
  *child = attrs;
  return 0;
}

/* dwarf_siblingof: the DIE after die's subtree at its level (ab: its
** abbreviation when known, its attributes at attrs). 0 and *next, 1 none
** (libdw's error on a sibling pointer out of place too), LGP_DWINFO_BAIL. */
static int next_sibling(const unitrd *u, size_t die, const lgp_dwabbr *ab, size_t attrs,
                        size_t *next) {
  unsigned level = 0;
  do {
    size_t pos = attrs, addr;
    if (ab == NULL) {
      pos = die;
      if ((ab = die_abbr(u, &pos)) == NULL)
        return LGP_DWINFO_BAIL;
    }
    if (ab->sib >= 0) {
      const lgp_dwaspec *sp = &u->f->specs[ab->spec + (uint32_t)ab->sib];
      uint64_t off;
      if (run_steps(u, &u->f->steps[ab->step], ab->sib_nstep, &pos) != 0 ||
          u->end - pos < ab->sib_add)
        return LGP_DWINFO_BAIL;
      pos += ab->sib_add;
      if (sp->form == DW_FORM_ref_udata) {
        if (uleb(u->p, &pos, u->end, &off) != 0)
          return LGP_DWINFO_BAIL;
      } else if (sp->form == DW_FORM_ref1 || sp->form == DW_FORM_ref2 ||
                 sp->form == DW_FORM_ref4 || sp->form == DW_FORM_ref8) {
        if (u->end - pos < (size_t)sp->size)
          return LGP_DWINFO_BAIL;
        off = lgp_bytes_uint(u->p + pos, (size_t)sp->size, u->f->big_endian);
      } else {
        return LGP_DWINFO_BAIL;
      }
      if (off >= u->end - u->start || off <= die - u->start)
        return 1;
      addr = u->start + (size_t)off;
    } else {
      if (skip_attrs(u, ab, &pos) != 0)
        return LGP_DWINFO_BAIL;
      addr = pos;
      if (ab->children)
        level++;
    }
    for (;;) {
      if (addr >= u->end)
        return 1;
      if (u->p[addr] != 0)
        break;
      if (level-- == 0)
        return 1;
      addr++;
    }
    die = addr;
    ab = NULL;
  } while (level > 0);
  *next = die;
  return 0;
}

static int interesting(uint32_t name) {
  return name == DW_AT_linkage_name || name == DW_AT_MIPS_linkage_name || name == DW_AT_name ||
         name == DW_AT_abstract_origin || name == DW_AT_specification || name == DW_AT_low_pc ||
         name == DW_AT_high_pc || name == DW_AT_ranges;
}

/* Records the function DIE at die (attributes at attrs) as visit does. */
static int fast_visit(const unitrd *u, Dwarf_Die *cudie, const lgp_dwabbr *ab, size_t die,
                      size_t attrs, int lang) {
  const lgp_dwaspec *sp = &u->f->specs[ab->spec];
  Dwarf_Die d;
  fattrs a;
  uint32_t i;
  memset(&a, 0, sizeof a);
  for (i = 0; i < ab->nspec; i++) {
    if (interesting(sp[i].name)) {
      Dwarf_Attribute at;
      if (sp[i].form == DW_FORM_implicit_const)
        return LGP_DWINFO_BAIL;
      at.code = sp[i].name;
      at.form = sp[i].form;
      at.valp = u->p + attrs;
      at.cu = cudie->cu;
      lgp_dwfn_collect(&at, &a);
    }
    if (skip_attr(u, &sp[i], &attrs) != 0)
      return LGP_DWINFO_BAIL;
  }
  memset(&d, 0, sizeof d);
  d.addr = u->p + die;
  d.cu = cudie->cu;
  return lgp_dwfn_record(u->f, &d, &a, ab->tag, lang);
}

/* The unit header at unit_off, checked against libdw's reading of it. */
static int read_header(lgp_dwfuncs *f, unitrd *u, Dwarf_Die *cudie, uint64_t unit_off,
                       size_t *die0) {
  size_t pos = (size_t)unit_off, size = f->info_size;
  uint64_t len, aoff;
  int be = f->big_endian;
  unsigned char *die = cudie->addr;
  if (unit_off >= size || size - pos < 4)
    return LGP_DWINFO_BAIL;
  u->off_size = 4;
  len = lgp_bytes_uint(f->info + pos, 4, be);
  pos += 4;
  if (len == 0xffffffffu) {
    if (size - pos < 8)
      return LGP_DWINFO_BAIL;
    u->off_size = 8;
    len = lgp_bytes_uint(f->info + pos, 8, be);
    pos += 8;
  } else if (len >= 0xfffffff0u) {
    return LGP_DWINFO_BAIL;
  }
  if (len > size - pos || len < 2 + 2 + 2 * (uint64_t)u->off_size)
    return LGP_DWINFO_BAIL;
  u->start = (size_t)unit_off;
  u->end = pos + (size_t)len;
  u->version = (unsigned)lgp_bytes_uint(f->info + pos, 2, be);
  pos += 2;
  if (u->version < 2 || u->version > 5)
    return LGP_DWINFO_BAIL;
  if (u->version >= 5) {
    unsigned type = f->info[pos];
    if (type != DW_UT_compile && type != DW_UT_partial)
      return LGP_DWINFO_BAIL;
    u->addr_size = f->info[pos + 1];
    aoff = lgp_bytes_uint(f->info + pos + 2, u->off_size, be);
    pos += 2 + u->off_size;
  } else {
    aoff = lgp_bytes_uint(f->info + pos, u->off_size, be);
    u->addr_size = f->info[pos + u->off_size];
    pos += u->off_size + 1;
  }
  if (u->addr_size != 4 && u->addr_size != 8)
    return LGP_DWINFO_BAIL;
  /* libdw's copy of the section must be the one read here */
  if (die == NULL || (const unsigned char *)die != f->info + pos)
    return LGP_DWINFO_BAIL;
  u->p = die - pos;
  *die0 = pos;
  return read_abbrevs(f, u, aoff);
}

/* shallow: leave the subprograms' children out when no abbreviation of
** the unit can make inlined code (*shallow says whether it did). */
int lgp_dwinfo_walk(lgp_dwfuncs *f, Dwarf_Die *cudie, uint64_t unit_off, int *shallow) {
  unitrd u;
  size_t pos, n, die0;
  const lgp_dwabbr *ab;
  int lang = dwarf_srclang(cudie), r;
  memset(&u, 0, sizeof u);
  u.f = f;
  if ((r = read_header(f, &u, cudie, unit_off, &die0)) != 0)
    return r;
  if (u.has_inline)
    *shallow = 0;
  pos = die0;
  if ((ab = die_abbr(&u, &pos)) == NULL)
    return LGP_DWINFO_BAIL;
  if (lgp_grow((void **)&f->pos, &f->pos_cap, 1, sizeof *f->pos) != 0)
    return -1;
  if ((r = first_child(&u, ab, pos, &f->pos[0])) != 0)
    return r == 1 ? 0 : r;
  n = 1;
  for (;;) {
    size_t die = f->pos[n - 1], child;
    int code = 0;
    pos = die;
    if ((ab = die_abbr(&u, &pos)) == NULL)
      return LGP_DWINFO_BAIL;
    if ((ab->kind & KIND_FN) && (code = fast_visit(&u, cudie, ab, die, pos, lang)) < 0)
      return -1;
    if (code == LGP_DWINFO_BAIL)
      return LGP_DWINFO_BAIL;
    /* a subprogram without code (an abstract instance) may still hold
       a nested function with code, as BFD finds */
    if ((ab->kind & KIND_HOLD) && (ab->tag != DW_TAG_subprogram || !*shallow)) {
      if ((r = first_child(&u, ab, pos, &child)) == LGP_DWINFO_BAIL)
        return LGP_DWINFO_BAIL;
      if (r == 0) {
        if (lgp_grow((void **)&f->pos, &f->pos_cap, n + 1, sizeof *f->pos) != 0)
          return -1;
        f->pos[n++] = child;
        continue;
      }
    }
    r = next_sibling(&u, die, ab, pos, &f->pos[n - 1]);
    while (r == 1 && --n > 0)
      r = next_sibling(&u, f->pos[n - 1], NULL, 0, &f->pos[n - 1]);
    if (r == LGP_DWINFO_BAIL)
      return LGP_DWINFO_BAIL;
    if (n == 0)
      return 0;
  }
}

