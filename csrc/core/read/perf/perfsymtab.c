/*
** perfsymtab.c: an address of a binary to its frames (perfsymtab.h): its
** symbol, from the binary's symbols sorted by address once, and the
** inlined functions there, from the DWARF scopes of its compilation unit
** indexed once.
*/
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "read/perf/perfreader.h"

static const char *die_name(Dwarf_Die *die) {
  Dwarf_Attribute a;
  const char *n = NULL;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a)
      || dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
    n = dwarf_formstring(&a);
  return n ? n : dwarf_diename(die);
}

static uint32_t decl_file(reader *s, Dwarf_Die *die, uint32_t *line) {
  int l = 0;
  const char *f = dwarf_decl_file(die);
  *line = dwarf_decl_line(die, &l) == 0 && l > 0 ? (uint32_t)l : 0;
  return lgp_pr_file_id(s, f);
}

/* x's symbols by address, those at one address by index (the order they
** were met in). */
static int syms_sort(reader *s, dsox *x) {
  uint64_t *keys = lgp_pr_alloc_array(x->nsyms, sizeof *keys);
  void *items = x->syms;
  size_t i;
  int rc = -1;
  if (keys) {
    for (i = 0; i < x->nsyms; i++)
      keys[i] = x->syms[i].value;
    rc = lgp_pr_sort_by_keys(&items, x->nsyms, sizeof *x->syms, keys);
    x->syms = items;
  }
  free(keys);
  return rc == 0 ? 0 : lgp_pr_oom(s);
}

/* Whether section shndx of elf holds code (SHF_EXECINSTR); *end: where it
** ends (0 unknown). */
static int in_code(Elf *elf, GElf_Word shndx, uint64_t *end) {
  GElf_Shdr sh;
  Elf_Scn *scn;
  *end = 0;
  if (elf == NULL || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
    return 0;
  scn = elf_getscn(elf, shndx);
  if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
    return 0;
  *end = sh.sh_addr + sh.sh_size;
  return (sh.sh_flags & SHF_EXECINSTR) != 0;
}

/* The module's defined symbols sorted by address, once: libdwfl's own
** search by address visits every symbol, which over the distinct
** addresses of a large recording was most of the reading. */
static int syms_make(reader *s, dsox *x) {
  int n = dwfl_module_getsymtab(x->mod), i;
  size_t cap = 0;
  x->syms_made = 1;
  for (i = 1; i < n; i++) {
    GElf_Sym sym;
    GElf_Word shndx;
    GElf_Addr addr;
    Elf *elf = NULL;
    uint64_t section_end;
    int type, code;
    const char *name = dwfl_module_getsym_info(x->mod, i, &sym, &addr, &shndx, &elf, NULL);
    if (!name || sym.st_shndx == SHN_UNDEF)
      continue;
    type = GELF_ST_TYPE(sym.st_info);
    if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
      continue;
    /* a symbol of data (in a section that holds no code: a linker's
       __rela_iplt_end at .init's address) names no code, as perf's
       functions and labels leave it out */
    code = in_code(elf, shndx, &section_end);
    if (type != STT_FUNC && type != STT_GNU_IFUNC && !code)
      continue;
    if (GROW(s, x->syms, cap, x->nsyms + 1) != 0)
      return -1;
    x->syms[x->nsyms].value = sym.st_value;
    x->syms[x->nsyms].size = sym.st_size;
    x->syms[x->nsyms].name = name;
    x->syms[x->nsyms].section_end = section_end;
    x->syms[x->nsyms++].index = i;
  }
  if (x->nsyms > 1 && syms_sort(s, x) != 0)
    return -1;
  for (i = 0; (size_t)i < x->nsyms; i++) {
    symaddr *y = &x->syms[i];
    uint64_t end = y->size ? y->value + y->size : 0;
    y->max_end = i > 0 && y[-1].max_end > end ? y[-1].max_end : end;
    y->sizeless = (i > 0 && y[-1].sizeless) || y->size == 0;
    y->chosen = 0;
    if (i > 0 && y[-1].value == y->value) {
      y->group = y[-1].group;
      if (y->size != x->syms[y->group].size)
        x->syms[y->group].uniform = 0;
    } else {
      y->group = (size_t)i;
      y->uniform = y->size > 0;
    }
  }
  return 0;
}

/* libdwfl's preference among symbols at one address: global, weak, local,
** others. */
static int binding_rank(const GElf_Sym *sym) {
  switch (GELF_ST_BIND(sym->st_info)) {
  case STB_GLOBAL: return 3;
  case STB_WEAK: return 2;
  case STB_LOCAL: return 1;
  default: return 0;
  }
}

/* libdwfl's choice among the aliases syms[from .. to) (one address, one
** size) when no other symbol covers the address: it searches the global
** part of the table first, the local part only when that found nothing,
** and keeps the first symbol of the highest binding it meets. The index
** of the symbol, or 0 (none: libdwfl is asked). Asking libdwfl costs a
** visit of every symbol of the module, once per group of aliases. */
static int alias_choice(dsox *x, size_t from, size_t to) {
  int first_global = dwfl_module_getsymtab_first_global(x->mod), pass, best = 0, rank = -1;
  size_t j;
  if (first_global < 0)
    return 0;
  for (pass = 0; pass < 2 && !best; pass++) {
    int lo = pass == 0 ? (first_global == 0 ? 1 : first_global) : 1;
    int hi = pass == 0 ? INT_MAX : first_global;
    if (pass == 1 && first_global <= 1)
      break;
    for (j = from; j < to; j++) {
      GElf_Sym sym;
      const char *name;
      int idx = x->syms[j].index;
      if (idx < lo || idx >= hi)
        continue;
      name = dwfl_module_getsym(x->mod, idx, &sym, NULL);
      if (!name || !*name)
        continue;
      if (binding_rank(&sym) > rank || (binding_rank(&sym) == rank && idx < best)) {
        rank = binding_rank(&sym);
        best = idx;
      }
    }
  }
  return best;
}

/* The symbol at addr: when the last symbol at or below addr is alone at
** its address and its size covers addr, it is the one (no other sized
** symbol covering addr starts closer, no sizeless one is nearer); when no
** symbol at or below addr covers it and none is sizeless, there is none
** (a stripped binary's static functions); in every other case libdwfl
** decides, by its own rules. */
static const char *sym_at(reader *s, dsox *x, uint64_t addr, GElf_Off *off, GElf_Sym *sym) {
  size_t lo = 0, hi;
  if (!x->syms_made && syms_make(s, x) != 0)
    return NULL;
  hi = x->nsyms;
  while (lo < hi) {          /* the first symbol above addr */
    size_t mid = lo + (hi - lo) / 2;
    if (x->syms[mid].value <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && (lo < 2 || x->syms[lo - 2].value != x->syms[lo - 1].value)) {
    /* (what libdwfl gave for the symbol when the table was made) */
    const symaddr *y = &x->syms[lo - 1];
    if (y->size > 0 && addr - y->value < y->size) {
      memset(sym, 0, sizeof *sym);
      sym->st_value = y->value;
      sym->st_size = y->size;
      *off = addr - y->value;
      return y->name;
    }
    /* a sizeless symbol no sized one covers (crti's _init, _fini): it
       reaches the next symbol, as perf makes it */
    if (y->size == 0 && addr < y->section_end && (lo < 2 || x->syms[lo - 2].max_end <= addr)) {
      memset(sym, 0, sizeof *sym);
      sym->st_value = y->value;
      *off = addr - y->value;
      return y->name;
    }
  } else if (lo > 0) {
    /* aliases, all covering addr: libdwfl's choice among them does not
       depend on where in them addr is; asked once per group */
    symaddr *g = &x->syms[x->syms[lo - 1].group];
    if (g->uniform && addr - g->value < g->size) {
      const char *name;
      size_t j;
      size_t gi = x->syms[lo - 1].group;
      /* no symbol below the aliases covers addr: the choice is among them */
      if (!g->chosen && (gi == 0 || x->syms[gi - 1].max_end <= addr))
        g->chosen = alias_choice(x, gi, lo);
      if (g->chosen && (name = dwfl_module_getsym(x->mod, g->chosen, sym, NULL)) != NULL) {
        *off = addr - sym->st_value;
        return name;
      }
      name = dwfl_module_addrinfo(x->mod, addr, off, sym, NULL, NULL, NULL);
      for (j = x->syms[lo - 1].group; name && sym->st_value == g->value && j < lo; j++) {
        GElf_Sym other;
        const char *n2 = dwfl_module_getsym(x->mod, x->syms[j].index, &other, NULL);
        if (n2 && strcmp(n2, name) == 0 && other.st_size == sym->st_size) {
          g->chosen = x->syms[j].index;
          break;
        }
      }
      return name;
    }
  }
  if (lo == 0 || (x->syms[lo - 1].max_end <= addr && !x->syms[lo - 1].sizeless))
    return NULL;
  return dwfl_module_addrinfo(x->mod, addr, off, sym, NULL, NULL, NULL);
}

/* libdw's classes of DIEs for scopes: the ones whose children it visits
** (DIEs with addresses to match, and namespaces and types, which can own
** such DIEs). */
static int scope_parent(int tag) {
  switch (tag) {
  case DW_TAG_compile_unit:
  case DW_TAG_module:
  case DW_TAG_lexical_block:
  case DW_TAG_with_stmt:
  case DW_TAG_catch_block:
  case DW_TAG_try_block:
  case DW_TAG_entry_point:
  case DW_TAG_inlined_subroutine:
  case DW_TAG_subprogram:
  case DW_TAG_namespace:
  case DW_TAG_class_type:
  case DW_TAG_structure_type:
    return 1;
  default:
    return 0;
  }
}

static int srange_cmp(const void *a, const void *b) {
  const scoperange *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Indexes the unit c->cu (its DIE: cudie): the DIEs whose ranges an
** address can reach from the unit (a DIE without ranges never matches,
** and libdw does not look inside it), level by level, iteratively. 0
** (c->irregular set where the index would not give libdw's answer), or
** -1 out of memory. */
static int cu_index(reader *s, cuscopes *c, Dwarf_Die *cudie) {
  size_t nodes_cap = 0, ranges_cap = 0, next = 0;
  if (GROW(s, c->nodes, nodes_cap, 1) != 0)
    return -1;
  c->nodes[0].die = *cudie;
  c->nodes[0].parent = NONE;
  c->nnodes = 1;
  /* nodes are expanded in the order they were added: each one's children
     come together in ranges */
  for (next = 0; next < c->nnodes && !c->irregular; next++) {
    Dwarf_Die child;
    size_t first = c->nranges, i;
    int rc;
    c->nodes[next].first = (uint32_t)first;
    c->nodes[next].n = 0;
    if (next > 0 && (!scope_parent(dwarf_tag(&c->nodes[next].die))
                     || !dwarf_haschildren(&c->nodes[next].die)))
      continue;
    rc = dwarf_child(&c->nodes[next].die, &child);
    if (rc < 0) {
      c->irregular = 1;
      break;
    }
    for (; rc == 0; rc = dwarf_siblingof(&child, &child)) {
      Dwarf_Addr base, lo, hi;
      ptrdiff_t at = 0;
      int any = 0;
      if (dwarf_tag(&child) == DW_TAG_imported_unit) {
        c->irregular = 1;
        break;
      }
      while ((at = dwarf_ranges(&child, at, &base, &lo, &hi)) > 0) {
        if (lo >= hi)
          continue;
        if (!any) {
          if (c->nnodes >= NONE - 1) {   /* ids are 32-bit: libdw answers */
            c->irregular = 1;
            return 0;
          }
          if (GROW(s, c->nodes, nodes_cap, c->nnodes + 1) != 0)
            return -1;
          c->nodes[c->nnodes].die = child;
          c->nodes[c->nnodes].parent = (uint32_t)next;
          c->nnodes++;
          any = 1;
        }
        if (GROW(s, c->ranges, ranges_cap, c->nranges + 1) != 0)
          return -1;
        c->ranges[c->nranges].lo = lo;
        c->ranges[c->nranges].hi = hi;
        c->ranges[c->nranges++].node = (uint32_t)(c->nnodes - 1);
      }
      if (at < 0) {
        /* libdw takes some errors as no match and stops on others */
        c->irregular = 1;
        break;
      }
    }
    if (rc < 0)
      c->irregular = 1;
    if (c->irregular)
      break;
    c->nodes[next].n = (uint32_t)(c->nranges - first);
    if (c->nranges - first > 1)
      qsort(c->ranges + first, c->nranges - first, sizeof *c->ranges, srange_cmp);
    /* libdw descends into the first child that holds the address: with
       siblings apart, the only one */
    for (i = first + 1; i < c->nranges; i++)
      if (c->ranges[i].lo < c->ranges[i - 1].hi) {
        c->irregular = 1;
        break;
      }
  }
  return 0;
}

static int cus_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const cuscopes *k = key;
  return s->cus[v].dso == k->dso && s->cus[v].cu == k->cu;
}

/* The scopes at pc (in the unit's addresses) into s->path, innermost
** first, the unit last, as dwarf_getscopes finds them before it follows
** an inlined instance to its abstract definition: their number, or -1
** when libdw must be asked (then s->err is set if out of memory). */
static int cu_scopes(reader *s, uint32_t dso, Dwarf_Die *cudie, uint64_t pc) {
  cuscopes k, *c;
  uint32_t h;
  uint32_t v, node = 0, depth = 0, i;
  k.dso = dso;
  k.cu = cudie->addr;
  h = lgp_hashtab_hash_u64((uint64_t)(uintptr_t)cudie->addr ^ ((uint64_t)dso << 48));
  v = lgp_pr_lookup(&s->cu_ht, h, cus_eq, s, &k);
  if (v == NONE) {
    if (GROW(s, s->cus, s->cus_cap, s->ncus + 1) != 0)
      return -1;
    v = (uint32_t)s->ncus++;
    c = &s->cus[v];
    memset(c, 0, sizeof *c);
    c->dso = dso;
    c->cu = cudie->addr;
    if (lgp_hashtab_add(&s->cu_ht, h, v) != 0) {
      lgp_pr_oom(s);
      return -1;
    }
    if (cu_index(s, c, cudie) != 0)
      return -1;
  }
  c = &s->cus[v];
  if (c->irregular)
    return -1;
  for (;;) {                 /* down from the unit: the child holding pc */
    const scopenode *nd = &c->nodes[node];
    size_t lo = nd->first, hi = (size_t)nd->first + nd->n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (c->ranges[mid].lo <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
    depth++;
    if (lo == nd->first || pc >= c->ranges[lo - 1].hi)
      break;
    node = c->ranges[lo - 1].node;
  }
  if (GROW(s, s->path, s->path_cap, depth) != 0)
    return -1;
  for (i = 0; i < depth; i++, node = c->nodes[node].parent)
    s->path[i] = c->nodes[node].die;
  return (int)depth;
}

/* The binary's FDEs, once, on its first address without a symbol: of
** .eh_frame (by .eh_frame_hdr's table), else of .debug_frame (the binary's
** own: one with a debug file has its symbols). */
static int fdes_make(reader *s, dsox *x) {
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf(x->mod, &bias);
  Elf_Scn *scn = NULL;
  lgp_fde_sections secs;
  size_t shstrndx;
  GElf_Ehdr ehdr;
  x->fdes_made = 1;
  memset(&secs, 0, sizeof secs);
  /* (the reader of the tables reads little-endian binaries: x86's) */
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getehdr(elf, &ehdr)
      || ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
    return 0;
  secs.addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    Elf_Data *data;
    const char *name;
    int hdr, eh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED)
        || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
      continue;
    hdr = strcmp(name, ".eh_frame_hdr") == 0;
    eh = strcmp(name, ".eh_frame") == 0;
    if ((!hdr && !eh && strcmp(name, ".debug_frame") != 0)
        || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
      continue;
    if (hdr) {
      secs.hdr = data->d_buf;
      secs.nhdr = data->d_size;
      secs.hdr_addr = sh.sh_addr;
    } else if (eh) {
      secs.eh = data->d_buf;
      secs.neh = data->d_size;
      secs.eh_addr = sh.sh_addr;
    } else {
      secs.debug = data->d_buf;
      secs.ndebug = data->d_size;
      secs.debug_addr = sh.sh_addr;
    }
  }
  return lgp_fde_index_init(&x->fdes, &secs) == 0 ? 0 : lgp_pr_oom(s);
}

/* The frame of an address of an ELF that no symbol covers: the function
** of the FDE that covers it, "label+0xSTART", else the address alone. */
static int anonymous_frame(reader *s, uint32_t dso, uint64_t addr) {
  dsox *x = &s->dx[dso];
  lgp_fde fde;
  char name[LGP_PR_OFFSET_NAME];
  uint32_t f, file = LGP_ST_NOFILE, line = 0;
  Dwfl_Line *ln;
  if (!x->fdes_made && fdes_make(s, x) != 0)
    return -1;
  if (!lgp_fde_lookup(&x->fdes, addr, &fde))
    return lgp_pr_unknown_frame(s, dso, addr);
  lgp_pr_offset_name(s, name, dso, fde.start);
  /* (a line table without symbols: a binary stripped of .symtab alone) */
  if ((ln = dwfl_module_getsrc(x->mod, addr)) != NULL) {
    int lineno = 0;
    const char *src = dwfl_lineinfo(ln, NULL, &lineno, NULL, NULL, NULL);
    if (src) {
      file = lgp_pr_file_id(s, src);
      line = lineno > 0 ? (uint32_t)lineno : 0;
      if (s->err->set)
        return -1;
    }
  }
  f = lgp_pr_func_get(s, dso, name, 0, 0, fde.start, fde.end, LGP_ST_NOFILE, 0);
  if (f == NONE)
    return -1;
  s->out->funcs[f].is_anonymous = 1;
  return lgp_pr_cframe_push(s, lgp_pr_fdef_add(s, f, addr, file, line));
}

/* The frames at addr of an ELF: the inlined functions there, innermost
** first, then the function of the symbol, each at its source line. */
int lgp_pr_dso_names(reader *s, uint32_t dso) {
  dsox *x = &s->dx[dso];
  const char **names;
  size_t i;
  int rc;
  if (!x->syms_made && syms_make(s, x) != 0)
    return -1;
  if (!(names = lgp_pr_alloc_array(x->nsyms ? x->nsyms : 1, sizeof *names)))
    return lgp_pr_oom(s);
  for (i = 0; i < x->nsyms; i++)
    names[i] = x->syms[i].name;
  rc = lgp_st_dso_set_names(&s->out->dsos[dso], names, x->nsyms);
  free(names);
  return rc == 0 ? 0 : lgp_pr_oom(s);
}

int lgp_pr_elf_frames(reader *s, uint32_t dso, uint64_t addr) {
  dsox *x = &s->dx[dso];
  GElf_Off off;
  GElf_Sym sym;
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu, *scopes = NULL, *subprogram = NULL, *path = NULL, *sc;
  Dwfl_Line *ln;
  const char *name, *src = NULL;
  uint32_t cur_file = LGP_ST_NOFILE, cur_line = 0, ffile = LGP_ST_NOFILE, fline = 0, f;
  int lineno = 0, nscopes = 0, i;
  name = sym_at(s, x, addr, &off, &sym);
  if (s->err->set)
    return -1;
  if (!name || !*name)
    return anonymous_frame(s, dso, addr);
  if ((ln = dwfl_module_getsrc(x->mod, addr)) != NULL)
    src = dwfl_lineinfo(ln, NULL, &lineno, NULL, NULL, NULL);
  if (src) {
    cur_file = lgp_pr_file_id(s, src);
    if (s->err->set)
      return -1;
    cur_line = lineno > 0 ? (uint32_t)lineno : 0;
  }
  if ((cu = dwfl_module_addrdie(x->mod, addr, &bias)) != NULL) {
    nscopes = cu_scopes(s, dso, cu, addr - bias);
    if (s->err->set)
      return -1;
    if (nscopes >= 0)
      path = s->path;     /* the DIEs that hold addr: already what is wanted */
    else
      nscopes = dwarf_getscopes(cu, addr - bias, &scopes);
  }
  /* libdw follows an inlined instance with its abstract definition's
     scopes, not with the code around it: from the innermost instance on,
     take the DIEs that hold it instead */
  for (i = 0; !path && i < nscopes; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Die inner = scopes[i];
      Dwarf_Die *held = NULL;
      int nheld = dwarf_getscopes_die(&inner, &held);
      free(scopes);
      scopes = held;
      nscopes = nheld > 0 ? nheld : 0;
      break;
    }
    if (tag == DW_TAG_subprogram)
      break;
  }
  sc = path ? path : scopes;
  for (i = 0; i < nscopes; i++) {
    int tag = dwarf_tag(&sc[i]);
    if (tag == DW_TAG_subprogram) {
      subprogram = &sc[i];
      break;
    }
    if (tag == DW_TAG_inlined_subroutine && !s->opts.no_inline) {
      Dwarf_Attribute a;
      Dwarf_Word cf = 0, cl = 0;
      Dwarf_Files *files;
      size_t nfiles;
      uint32_t ifile, iline;
      const char *iname = die_name(&sc[i]);
      ifile = decl_file(s, &sc[i], &iline);
      f = lgp_pr_func_get(s, dso, iname ? iname : "[inlined]", 1, 0, 0, 0, ifile, iline);
      if (lgp_pr_cframe_push(s, lgp_pr_fdef_add(s, f, addr, cur_file, cur_line)) != 0) {
        free(scopes);
        return -1;
      }
      /* the enclosing function is at the call site */
      cur_file = LGP_ST_NOFILE;
      cur_line = 0;
      if (dwarf_formudata(dwarf_attr(&sc[i], DW_AT_call_line, &a), &cl) == 0)
        cur_line = (uint32_t)cl;
      if (dwarf_formudata(dwarf_attr(&sc[i], DW_AT_call_file, &a), &cf) == 0
          && dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && cf < nfiles)
        cur_file = lgp_pr_file_id(s, dwarf_filesrc(files, cf, NULL, NULL));
      if (s->err->set) {
        free(scopes);
        return -1;
      }
    }
  }
  if (subprogram)
    ffile = decl_file(s, subprogram, &fline);
  free(scopes);
  if (s->err->set)
    return -1;
  f = lgp_pr_func_get(s, dso, name, 0, 0, addr - off, addr - off + (sym.st_size ? sym.st_size : 1),
               ffile, fline);
  return lgp_pr_cframe_push(s, lgp_pr_fdef_add(s, f, addr, cur_file, cur_line));
}


void lgp_pr_scopes_free(reader *s) {
  size_t i;
  lgp_hashtab_free(&s->cu_ht);
  for (i = 0; i < s->ncus; i++) {
    free(s->cus[i].nodes);
    free(s->cus[i].ranges);
  }
  free(s->cus);
  free(s->path);
}
