/*
** names.c: demangled names via libiberty's cplus_demangle, which is what
** gprof uses (through bfd_demangle: leading '.'/'$' and an '@' suffix are
** set aside and put back). The style goes in the option bits, so
** libiberty's global current style is never touched.
*/
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "model/names.h"

int lgp_names_demangle_style_ok(const char *style) {
  return cplus_demangle_name_to_style(style) != unknown_demangling;
}

char *lgp_names_demangle(const char *name, int options) {
  const char *pre = name, *at;
  size_t pre_len, suf_len;
  char *core = NULL, *res, *out;
  while (*name == '.' || *name == '$')
    name++;
  /* every scheme the auto style knows (_Z, _R, _D...) starts with '_': the
     other names of a big C program need no trip through libiberty */
  if ((options & DMGL_STYLE_MASK) == DMGL_AUTO && *name != '_')
    return NULL;
  pre_len = (size_t)(name - pre);
  at = strchr(name, '@');
  if (at != NULL) {
    core = malloc((size_t)(at - name) + 1);
    if (core == NULL)
      return NULL;
    memcpy(core, name, (size_t)(at - name));
    core[at - name] = '\0';
    name = core;
  }
  res = cplus_demangle(name, options);
  free(core);
  if (res == NULL || (pre_len == 0 && at == NULL))
    return res;
  suf_len = strlen(at ? at : "");
  out = malloc(pre_len + strlen(res) + suf_len + 1);
  if (out != NULL) {
    memcpy(out, pre, pre_len);
    strcpy(out + pre_len, res);
    strcat(out, at ? at : "");
  }
  free(res);
  return out;
}

int lgp_names_init(lgp_names *nm, size_t n, int enabled, const char *style) {
  enum demangling_styles st = auto_demangling;
  memset(nm, 0, sizeof *nm);
  if (style != NULL) {
    st = cplus_demangle_name_to_style(style);
    if (st == unknown_demangling)
      return -1;
  }
  /* calloc: at line granularity a report names a few nodes in ten, and
     fresh zero pages that are never read cost nothing */
  nm->disp = calloc(n ? n : 1, sizeof *nm->disp);
  nm->owned = calloc(n ? n : 1, sizeof *nm->owned);
  if (nm->disp == NULL || nm->owned == NULL) {
    lgp_names_free(nm);
    return -1;
  }
  nm->n = n;
  nm->enabled = enabled && st != no_demangling;
  nm->options = DMGL_ANSI | DMGL_PARAMS | ((int)st & DMGL_STYLE_MASK);
  return 0;
}

int lgp_names_init_like(lgp_names *nm, size_t n, const lgp_names *like) {
  if (lgp_names_init(nm, n, like->enabled, NULL) != 0)
    return -1;
  nm->options = like->options;
  return 0;
}

void lgp_names_free(lgp_names *nm) {
  size_t i;
  if (nm->owned != NULL && nm->nowned > 0)
    for (i = 0; i < nm->n; i++)
      free(nm->owned[i]);
  free(nm->disp);
  free(nm->owned);
  memset(nm, 0, sizeof *nm);
}

const char *lgp_names_display_len(lgp_names *nm, const lgp_node *nodes, uint32_t node,
                                  size_t *len) {
  const char *raw;
  char *d;
  if (node < nm->n && nm->disp[node].s != NULL) { /* fast path: no node access */
    *len = nm->disp[node].len;
    return nm->disp[node].s;
  }
  raw = nodes[node].name;
  if (raw == NULL || node >= nm->n) {
    raw = raw ? raw : "";
    *len = strlen(raw);
    return raw;
  }
  d = nm->enabled ? lgp_names_demangle(raw, nm->options) : NULL;
  nm->owned[node] = d;
  nm->nowned += d != NULL;
  nm->disp[node].s = d != NULL ? d : raw;
  *len = nm->disp[node].len = strlen(nm->disp[node].s);
  return nm->disp[node].s;
}

const char *lgp_names_display(lgp_names *nm, const lgp_node *nodes, uint32_t node) {
  size_t len;
  return lgp_names_display_len(nm, nodes, node, &len);
}

const char *lgp_names_print_path(const char *path, int print_path) {
  const char *slash = print_path ? NULL : strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

size_t lgp_names_suffix(lgp_out *o, const lgp_image *im, const lgp_node *nodes, uint32_t node,
                        int mode, int print_path) {
  const lgp_rawsym *s;
  const char *file;
  char *p0, *p;
  size_t n;
  if (mode == LGP_SUFFIX_NONE || im->srcinfo_state != 1 || nodes[node].is_cycle ||
      node >= im->nsyms)
    return 0;
  s = &im->syms[node];
  if (s->file < 0)
    return 0;
  if (im->file_len != NULL && im->file_len[s->file] != 0) {
    uint32_t base = print_path ? 0 : im->file_base[s->file];
    file = im->files[s->file] + base;
    n = im->file_len[s->file] - base;
  } else {
    file = lgp_names_print_path(im->files[s->file], print_path);
    n = strlen(file);
  }
  /* written in place: reports print tens of thousands of these */
  if ((p0 = p = lgp_out_reserve(o, n + 64)) == NULL)
    return 0;
  *p++ = ' ';
  *p++ = '(';
  memcpy(p, file, n);
  p += n;
  *p++ = ':';
  p += lgp_fmt_u64(p, (uint64_t)(s->line > 0 ? s->line : 0), 0, 0);
  if (mode == LGP_SUFFIX_LINE) { /* " @ %lx" */
    char hex[16];
    size_t k = 0;
    lgp_addr a = im->shown_addr != NULL ? im->shown_addr[node] : s->addr;
    do {
      hex[k++] = "0123456789abcdef"[a & 15];
      a >>= 4;
    } while (a != 0);
    memcpy(p, " @ ", 3);
    p += 3;
    while (k > 0)
      *p++ = hex[--k];
  }
  *p++ = ')';
  o->len += (size_t)(p - p0);
  return (size_t)(p - p0);
}
