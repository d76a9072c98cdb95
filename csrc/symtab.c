/*
** symtab.c: gprof's symbol table (symtab_finalize): stable sort by address,
** one survivor per address, and each routine ends where the next begins.
*/
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static int cmp_addr(const void *a, const void *b) {
  const lgp_rawsym *l = a, *r = b;
  if (l->addr != r->addr)
    return l->addr < r->addr ? -1 : 1;
  if (l->is_func != r->is_func)
    return l->is_func ? -1 : 1;      /* functions first */
  if (l->is_static != r->is_static)
    return l->is_static ? 1 : -1;    /* then globals */
  return l->symndx < r->symndx ? -1 : l->symndx > r->symndx; /* stable */
}

/* Does s replace d, the survivor so far at the same address? */
static int replaces(const lgp_rawsym *s, const lgp_rawsym *d) {
  if (!s->is_static && d->is_static)
    return 1;
  if (s->is_static != d->is_static)
    return 0;
  if (s->is_func && !d->is_func)
    return 1;
  if (s->is_func != d->is_func)
    return 0;
  if (s->name[0] != '_' && d->name[0] == '_')
    return 1;
  return s->name[0] == '_' && d->name[0] == '_' && s->name[1] != '_' && d->name[1] == '_';
}

int lgp_symtab_build(lgp_profile *p, lgp_err *err) {
  lgp_image *im = &p->image;
  size_t i, n = 0;
  lgp_rawsym *raw = im->syms;
  qsort(raw, im->nsyms, sizeof *raw, cmp_addr);
  for (i = 0; i < im->nsyms; i++) {
    if (n > 0 && raw[n - 1].addr == raw[i].addr) {
      if (replaces(&raw[i], &raw[n - 1]))
        raw[n - 1] = raw[i];
    } else {
      raw[n++] = raw[i];
    }
  }
  p->nsyms = n;
  p->nodes = lgp_calloc_array(n, sizeof *p->nodes);
  if (p->nodes == NULL)
    return lgp_fail(err, NULL, "out of memory");
  for (i = 0; i < n; i++) {
    lgp_node *s = &p->nodes[i];
    s->name = raw[i].name;
    s->addr = raw[i].addr;
    /* ELF st_size is never used: a routine runs to the next one */
    s->end_addr = i + 1 < n ? raw[i + 1].addr - 1 : im->text_vma + im->text_size - 1;
    s->file = raw[i].file;
    s->line = raw[i].line;
    s->is_static = raw[i].is_static;
    s->is_func = raw[i].is_func;
    s->cyc_head = (uint32_t)i;
    s->cyc_next = LGP_NONE;
  }
  return 0;
}

uint32_t lgp_sym_lookup(const lgp_profile *p, lgp_addr addr) {
  size_t lo = 0, hi = p->nsyms; /* first symbol above addr */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->nodes[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || addr > p->nodes[lo - 1].end_addr)
    return LGP_NONE;
  return (uint32_t)(lo - 1);
}
