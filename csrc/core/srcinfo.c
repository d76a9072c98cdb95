/*
** srcinfo.c: DWARF line tables to (file, line) per function address.
** gprof asks BFD for the nearest line of each symbol's address: the last
** line-table row at or below it, within a sequence (BFD keeps the last of
** several rows at one address). We read every CU's rows once, sort them,
** and answer each symbol with a binary search. Each file also gets its
** absolute path from its CU's compilation directory (for the exports).
*/
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "srcinfo.h"

typedef struct row {
  lgp_addr addr;
  int32_t line;
  int32_t file; /* index into the image's file table */
  uint32_t order;
  uint8_t end;  /* end_sequence: first address past a sequence */
} row;

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

static int cmp_row(const void *a, const void *b) {
  const row *l = a, *r = b;
  if (l->addr != r->addr)
    return l->addr < r->addr ? -1 : 1;
  if (l->end != r->end) /* a sequence's end before another's start */
    return l->end ? -1 : 1;
  return l->order < r->order ? -1 : l->order > r->order;
}

/* BFD 2.40 reads a DWARF 5 line program's initial file register (1) as
** the CU's primary file (entry 0) until the program sets a file; gcc and
** gas only emit DW_LNS_set_file when the file changes, so rows of file 1
** before the first change in a sequence are the ones BFD misattributes
** (a static inline function from a header then shows as the .c file). */
static const char *row_source(Dwarf_Line *l, int version, int *changed) {
  Dwarf_Files *files;
  size_t idx;
  if (dwarf_line_file(l, &files, &idx) != 0)
    return dwarf_linesrc(l, NULL, NULL);
  if (idx != 1)
    *changed = 1;
  if (version >= 5 && idx == 1 && !*changed)
    return dwarf_filesrc(files, 0, NULL, NULL);
  return dwarf_linesrc(l, NULL, NULL);
}

static int collect_rows(Dwarf *dw, interner *files, row **rows, size_t *nrows) {
  Dwarf_Off off = 0, next;
  size_t hsize, cap = 0;
  const char *last_src = NULL;
  int last_id = -1;
  Dwarf_Half version;
  while (dwarf_next_unit(dw, off, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL) == 0) {
    Dwarf_Die cudie;
    Dwarf_Lines *lines;
    Dwarf_Attribute at;
    size_t n, i;
    int changed = 0;
    if (dwarf_offdie(dw, off + hsize, &cudie) != NULL &&
        dwarf_getsrclines(&cudie, &lines, &n) == 0) {
      const char *comp_dir = dwarf_formstring(dwarf_attr_integrate(&cudie, DW_AT_comp_dir, &at));
      last_src = NULL; /* a name's directory is its CU's */
      if (lgp_grow((void **)rows, &cap, *nrows + n, sizeof **rows) != 0)
        return -1;
      for (i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int lineno = 0;
        bool end = false;
        const char *src;
        row *r;
        if (l == NULL || dwarf_lineaddr(l, &a) != 0)
          continue;
        dwarf_lineno(l, &lineno);
        dwarf_lineendsequence(l, &end);
        src = row_source(l, version, &changed);
        if (end)
          changed = 0; /* the next sequence starts with file 1 again */
        r = &(*rows)[(*nrows)++];
        r->addr = a;
        r->line = lineno;
        r->end = end;
        r->order = (uint32_t)*nrows;
        if (src == NULL || src[0] == '\0') {
          r->file = -1;
        } else {
          if (src != last_src) {
            last_id = intern(files, src, comp_dir);
            if (last_id < 0)
              return -1;
            last_src = src;
          }
          r->file = last_id;
        }
      }
    }
    off = next;
  }
  return 0;
}

/* gprof's line symbols: walking .text, a new one starts wherever the
** nearest line's (file, line) differs from the last one found; bytes with
** no line information are skipped. Of several rows at one address the
** last is the one BFD keeps. */
static int line_starts(lgp_image *im, const row *rows, size_t nrows) {
  lgp_addr lo = im->text_vma, hi = im->text_vma + im->text_size;
  int32_t prev_file = -2, prev_line = -1;
  size_t i, cap = 0;
  for (i = 0; i < nrows; i++) {
    const row *r = &rows[i];
    if (i + 1 < nrows && rows[i + 1].addr == r->addr)
      continue; /* not the last row at this address */
    if (r->end || r->line == 0 || r->file < 0 || r->addr < lo || r->addr >= hi)
      continue;
    if (r->file == prev_file && r->line == prev_line)
      continue;
    if (lgp_grow((void **)&im->lines, &cap, im->nlines + 1, sizeof *im->lines) != 0)
      return -1;
    im->lines[im->nlines].addr = r->addr;
    im->lines[im->nlines].name = NULL;
    im->lines[im->nlines].file = r->file;
    im->lines[im->nlines].line = r->line;
    im->lines[im->nlines].is_inlined = 0;
    im->nlines++;
    prev_file = r->file;
    prev_line = r->line;
  }
  return 0;
}

int lgp_srcinfo_assign(lgp_image *im, Elf *elf, lgp_err *err) {
  Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
  interner files;
  row *rows = NULL;
  size_t nrows = 0, i;
  int rc = 0;
  (void)err;
  if (dw == NULL)
    return 0; /* no DWARF: no source info, as with gprof */
  memset(&files, 0, sizeof files);
  if (collect_rows(dw, &files, &rows, &nrows) != 0) {
    rc = lgp_fail(err, NULL, "out of memory reading DWARF line tables");
    goto out;
  }
  if (nrows > 1)
    qsort(rows, nrows, sizeof *rows, cmp_row);
  if (line_starts(im, rows, nrows) != 0) {
    rc = lgp_fail(err, NULL, "out of memory reading DWARF line tables");
    goto out;
  }
  for (i = 0; i < im->nsyms && nrows > 0; i++) {
    lgp_rawsym *s = &im->syms[i];
    size_t lo = 0, hi = nrows; /* first row with addr > s->addr */
    const row *r;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (rows[mid].addr <= s->addr)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == 0)
      continue;
    r = &rows[lo - 1];
    if (r->end || r->line == 0 || r->file < 0)
      continue;
    s->file = r->file;
    s->line = r->line;
  }
  im->files = files.names;
  im->file_paths = files.paths;
  im->nfiles = files.n;
  files.names = NULL;
  files.paths = NULL;
out:
  free(rows);
  free(files.slots);
  if (files.names != NULL) {
    for (i = 0; i < files.n; i++)
      free(files.names[i]);
    free(files.names);
  }
  if (files.paths != NULL) {
    for (i = 0; i < files.n; i++)
      free(files.paths[i]);
    free(files.paths);
  }
  dwarf_end(dw);
  return rc;
}
