/*
** annotate.c: gprof's annotated source (-A, -J, -I, -x, -y, -t, -m): which
** files, found where, and the count column in front of each line. A
** profile of sampled stacks is annotated in the same frame with samples
** for counts (the lines samples ended on; see lgp_report_annotate).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/stackprofile.h"
#include "write/annotate.h"

/* One annotated line: the first symbol on it (its flags, address and
** blocks count), or with several, a merged copy of the first at address 0
** whose calls are the sum (gprof shows only the first one's blocks). */
typedef struct anno_line {
  int32_t line;
  uint32_t sym;
  int merged;
  uint64_t ncalls;
} anno_line;

typedef struct anno_file {
  int32_t file;       /* index into the image's files */
  uint64_t created;   /* when gprof first met the file: the listing order */
  uint64_t ncalls;    /* calls of its annotated symbols */
  size_t first, n;    /* its lines: lines[first .. first + n), ascending */
} anno_file;

typedef struct annotator {
  const lgp_profile *p;
  const char *event;     /* sampled stacks: their event (counts are samples), else NULL */
  const lgp_bbcounts *bb;
  const lgp_anno_opts *ao;
  uint64_t last_count;   /* gprof's running count: never reset, not even between files */
  long executable, executed;
  int first_file;
} annotator;

static int anno_wanted(const lgp_profile *p, uint32_t s) {
  return lgp_specs_in_table(p->specs, &p->graph.nodes[s], LGP_INCL_ANNO, LGP_EXCL_ANNO);
}

static size_t put_u64(char *buf, size_t len, uint64_t v) {
  char d[24];
  size_t k = 0;
  do {
    d[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (k > 0)
    buf[len++] = d[--k];
  return len;
}

/* The 16 columns in front of a line that has symbols; counts the line as
** executable, and as executed when a count is shown. */
static void count_column(annotator *a, const anno_line *ln, char out[16]) {
  const lgp_node *nd = &a->p->graph.nodes[ln->sym];
  lgp_addr addr = ln->merged ? 0 : nd->addr;
  size_t nb = lgp_bbcounts_nslots(a->bb, ln->sym), k, len = 0;
  const lgp_bbcount *slots = nb > 0 ? lgp_bbcounts_slots(a->bb, ln->sym) : NULL;
  int x = a->ao->all_lines, any = 0, printed = 0;
  uint64_t total = 0, last_print = 0;
  char t[16 * 24 + 8]; /* at most 12 counts of 20 digits, commas, the arrow */
  a->executable++;
  if (a->event != NULL) { /* sampled stacks: the line's samples, nothing carried */
    nb = 0;
    x = 0;
    len = put_u64(t, len, ln->ncalls);
    total = ln->ncalls;
    any = 1;
  } else if (nd->is_func) {
    a->last_count = last_print = ln->ncalls;
    len = put_u64(t, len, ln->ncalls);
    total += ln->ncalls;
    any = printed = 1;
  } else if (x && nb > 0 && slots[0].addr > addr) {
    last_print = a->last_count;
    len = put_u64(t, len, a->last_count);
    total += a->last_count;
    any = printed = 1;
  }
  for (k = 0; k < nb; k++) {
    uint64_t c = slots[k].count;
    a->last_count = c;
    total += c;
    any = 1;
    if (!x || !printed || c != last_print) {
      if (len > 0)
        t[len++] = ',';
      len = put_u64(t, len, c);
      last_print = c;
      printed = 1;
    }
  }
  if (x && !printed) {
    len = put_u64(t, len, a->last_count);
    total += a->last_count;
    any = 1;
  }
  if (!any) {
    memset(out, ' ', 16);
    return;
  }
  a->executed++;
  if (total < a->ao->min_count) {
    memcpy(t, "#####", 5);
    len = 5;
  }
  memcpy(t + len, " -> ", 4);
  len += 4;
  if (len >= 16) {
    memcpy(out, t, 16);
  } else {
    memset(out, ' ', 16 - len);
    memcpy(out + 16 - len, t, len);
  }
}

/* The source text with the count column; lines past the last annotated
** one, or without a symbol, get 16 blanks. */
static void copy_annotated(annotator *a, FILE *src, lgp_out *o, const anno_line *lines,
                           size_t n) {
  char buf[8192];
  size_t got, next = 0;
  int32_t line = 1;
  int at_start = 1;
  while ((got = fread(buf, 1, sizeof buf, src)) > 0) {
    size_t i = 0;
    while (i < got) {
      const char *nl = memchr(buf + i, '\n', got - i);
      size_t end = nl != NULL ? (size_t)(nl - buf) + 1 : got;
      /* the column and the text in one reservation: a source has
         thousands of lines */
      char *p = lgp_out_reserve(o, 16 + (end - i)), spare[16];
      if (at_start) {
        char *col = p != NULL ? p : spare; /* the counts still add up */
        while (next < n && lines[next].line < line)
          next++;
        if (next < n && lines[next].line == line)
          count_column(a, &lines[next], col);
        else
          memset(col, ' ', 16);
        if (p != NULL) {
          p += 16;
          o->len += 16;
        }
        line++;
      }
      if (p != NULL) {
        memcpy(p, buf + i, end - i);
        o->len += end - i;
      }
      at_start = nl != NULL;
      i = end;
    }
  }
}

static int cmp_top(const void *ctx, uint32_t x, uint32_t y) {
  const anno_line *l = ctx;
  if (l[x].ncalls != l[y].ncalls)
    return l[x].ncalls > l[y].ncalls ? -1 : 1;
  return l[x].line < l[y].line ? -1 : l[x].line > l[y].line;
}

/* Up to this many Top lines are picked by insertion as the lines go by (a
** pass over the file, not a sort); longer tables sort. */
#define TOP_BY_INSERTION 64

/* The Top table and the summary after a file's text. */
static int put_tables(annotator *a, lgp_out *o, const anno_file *f, const anno_line *lines) {
  int tl = a->ao->table_length;
  if (tl > 0) {
    uint32_t *order = lgp_alloc_array(f->n ? f->n : 1, sizeof *order);
    size_t k, m = 0;
    if (order == NULL)
      return -1;
    if (tl <= TOP_BY_INSERTION) { /* the first tl with counts, kept as the lines go by */
      size_t cap = (size_t)tl < f->n ? (size_t)tl : f->n;
      for (k = 0; k < f->n; k++) {
        uint64_t c = lines[k].ncalls;
        size_t j;
        if (c == 0 || (m == cap && c <= lines[order[m - 1]].ncalls))
          continue; /* equal counts: the earlier line stays first */
        j = m < cap ? m++ : cap - 1;
        for (; j > 0 && lines[order[j - 1]].ncalls < c; j--)
          order[j] = order[j - 1];
        order[j] = (uint32_t)k;
      }
    } else {
      for (k = 0; k < f->n; k++)
        order[k] = (uint32_t)k;
      if (lgp_sort_indices(order, f->n, cmp_top, lines) != 0) {
        free(order);
        return -1;
      }
      m = f->n;
    }
    lgp_out_printf(o, "\n\nTop %d Lines:\n\n     Line    %s\n\n", tl,
                   a->event != NULL ? "Samples" : "  Count");
    for (k = 0; k < m && k < (size_t)tl && lines[order[k]].ncalls != 0; k++) {
      lgp_out_printf(o, "%9d ", (int)lines[order[k]].line);
      lgp_out_u64(o, lines[order[k]].ncalls, 10, 0);
      lgp_out_char(o, '\n');
    }
    free(order);
  }
  if (a->event != NULL) {
    const lgp_stackprof *sp = lgp_stacks_of(a->p);
    lgp_out_printf(o, "\nSample Summary:\n\n%9ld   Lines with samples in this file\n",
                   a->executed);
    lgp_out_u64(o, f->ncalls, 9, 0);
    lgp_out_str(o, "   Samples on them\n");
    lgp_out_fixed(o, sp->samples > 0 ? 100.0 * (double)f->ncalls / (double)sp->samples : 0.0,
                  9, 2);
    lgp_out_str(o, "   Percent of the profile's samples\n");
    return 0;
  }
  lgp_out_printf(o, "\nExecution Summary:\n\n%9ld   Executable lines in this file\n"
                    "%9ld   Lines executed\n", a->executable, a->executed);
  lgp_out_fixed(o, a->executable > 0 ? 100.0 * (double)a->executed / (double)a->executable
                                     : 100.0, 9, 2);
  lgp_out_str(o, "   Percent of the file executed\n\n");
  lgp_out_u64(o, f->ncalls, 9, 0);
  lgp_out_str(o, "   Total number of line executions\n");
  lgp_out_fixed(o, a->executable > 0 ? (double)f->ncalls / (double)a->executable : 0.0, 9, 2);
  lgp_out_str(o, "   Average executions per line\n");
  return 0;
}

/* perror(what) as gprof writes it. */
static void report_errno(lgp_out *err, const char *what, int e) {
  lgp_out_printf(err, "%s: %s\n", what, strerror(e));
}

/* Opens the source: its recorded path, then DIR/P for a relative P, then
** DIR/BASENAME for a P with a slash, each DIR of the search list in order.
** NULL after reporting it. */
static FILE *open_source(const lgp_anno_opts *ao, const char *path) {
  const char *slash = strrchr(path, '/');
  int pass, e;
  size_t d;
  FILE *f = fopen(path, "r");
  e = errno;
  for (pass = 0; f == NULL && pass < 2; pass++) {
    const char *tail = pass == 0 ? path : slash != NULL ? slash + 1 : NULL;
    if ((pass == 0 && path[0] == '/') || tail == NULL)
      continue;
    for (d = 0; f == NULL && d < ao->ndirs; d++) {
      size_t ld = strlen(ao->dirs[d]), lt = strlen(tail);
      char *cand = lgp_alloc_array(ld + lt + 2, 1);
      if (cand == NULL) {
        e = ENOMEM;
        continue;
      }
      memcpy(cand, ao->dirs[d], ld);
      cand[ld] = '/';
      memcpy(cand + ld + 1, tail, lt + 1);
      f = fopen(cand, "r");
      e = errno;
      free(cand);
    }
  }
  if (f == NULL) {
    if (e == ENOENT)
      lgp_out_printf(ao->err, "lgprof: could not locate `%s'\n", path);
    else
      report_errno(ao->err, path, e);
  }
  return f;
}

/* One file's listing; 0, or -1 (out of memory). */
static int annotate_file(annotator *a, lgp_out *o, const anno_file *f, const anno_line *lines) {
  const char *path = a->p->image->files[f->file];
  lgp_out file_out, *dst = o;
  FILE *src = open_source(a->ao, path), *ann = NULL;
  int rc;
  if (src == NULL)
    return 0;
  if (a->ao->separate) {
    const char *slash = strrchr(path, '/'), *base = slash != NULL ? slash + 1 : path;
    size_t lb = strlen(base);
    char *name = lgp_alloc_array(lb + 5, 1);
    if (name == NULL) {
      fclose(src);
      return -1;
    }
    memcpy(name, base, lb);
    memcpy(name + lb, "-ann", 5);
    ann = fopen(name, "w");
    if (ann == NULL)
      report_errno(a->ao->err, name, errno);
    free(name);
    if (ann == NULL) {
      fclose(src);
      return 0;
    }
    lgp_out_init(&file_out, ann);
    dst = &file_out;
  } else {
    if (!a->first_file)
      lgp_out_char(o, '\n');
    a->first_file = 0;
    if (!*a->ao->first_output)
      lgp_out_str(o, "\f\n");
    *a->ao->first_output = 0;
    lgp_out_printf(o, "*** File %s:\n", path);
  }
  if (a->event != NULL)
    lgp_out_printf(dst, "*** perf.data (%s): the count before a line is the samples whose "
                   "leaf frame is on it\n", a->event);
  a->executable = a->executed = 0;
  copy_annotated(a, src, dst, lines + f->first, f->n);
  fclose(src);
  rc = put_tables(a, dst, f, lines + f->first);
  if (ann != NULL) {
    lgp_out_flush(&file_out);
    lgp_out_free(&file_out);
    fclose(ann);
  }
  return rc;
}

/* The annotated symbols sorted by (file, line), node order kept within a
** line, become the files' line tables; files get their calls and their
** creation order. */
static int build_lines(const lgp_profile *p, anno_line **lines_out, size_t *nlines,
                       anno_file **files_out, size_t *nfiles) {
  const lgp_image *im = p->image;
  size_t nsyms = p->graph.nsyms, n = 0, i, nl = 0, nf = 0;
  uint32_t *ids = lgp_alloc_array(nsyms ? nsyms : 1, sizeof *ids);
  uint64_t *keys = lgp_alloc_array(nsyms ? nsyms : 1, sizeof *keys);
  anno_line *lines = lgp_alloc_array(nsyms ? nsyms : 1, sizeof *lines);
  anno_file *files = lgp_alloc_array(im->nfiles ? im->nfiles : 1, sizeof *files);
  int32_t *slot = lgp_alloc_array(im->nfiles ? im->nfiles : 1, sizeof *slot);
  int rc = -1;
  if (ids == NULL || keys == NULL || lines == NULL || files == NULL || slot == NULL)
    goto out;
  for (i = 0; i < nsyms; i++) {
    const lgp_rawsym *r = &im->syms[i];
    if (r->file < 0 || r->line <= 0 || !anno_wanted(p, (uint32_t)i))
      continue;
    keys[i] = (uint64_t)(uint32_t)r->file << 32 | (uint32_t)r->line;
    ids[n++] = (uint32_t)i;
  }
  if (lgp_radix_sort(ids, keys, n) != 0)
    goto out;
  for (i = 0; i < im->nfiles; i++)
    slot[i] = -1;
  for (i = 0; i < n; i++) {
    uint32_t s = ids[i];
    const lgp_rawsym *r = &im->syms[s];
    uint64_t calls = p->graph.nodes[s].ncalls;
    anno_file *f;
    if (slot[r->file] < 0) {
      slot[r->file] = (int32_t)nf;
      f = &files[nf++];
      f->file = r->file;
      f->ncalls = 0;
      f->first = nl;
      f->n = 0;
    }
    f = &files[slot[r->file]];
    f->ncalls += calls;
    if (f->n > 0 && lines[nl - 1].line == r->line) {
      lines[nl - 1].merged = 1;
      lines[nl - 1].ncalls += calls;
    } else {
      lines[nl].line = r->line;
      lines[nl].sym = s;
      lines[nl].merged = 0;
      lines[nl].ncalls = calls;
      nl++;
      f->n++;
    }
  }
  /* when gprof created each file: at its first symbol with a source line,
     annotated or not: function symbols in .symtab order, then line
     symbols in address (node) order */
  for (i = 0; i < im->nfiles; i++)
    if (slot[i] >= 0)
      files[slot[i]].created = UINT64_MAX;
  for (i = 0; i < nsyms; i++) {
    const lgp_rawsym *r = &im->syms[i];
    uint64_t when = r->is_line ? ((uint64_t)1 << 32) + i : r->symndx;
    if (r->file >= 0 && slot[r->file] >= 0 && when < files[slot[r->file]].created)
      files[slot[r->file]].created = when;
  }
  *lines_out = lines;
  *nlines = nl;
  *files_out = files;
  *nfiles = nf;
  lines = NULL;
  files = NULL;
  rc = 0;
out:
  free(ids);
  free(keys);
  free(lines);
  free(files);
  free(slot);
  return rc;
}

/* A profile of sampled stacks: the lines samples ended on whose function
** the ANNO specs keep, merged by (file, line), ncalls their samples; each
** file's samples. With zeros, the files of every such function too (no
** line of theirs has samples). */
static int build_stack_lines(const lgp_profile *p, const lgp_stackprof *sp, int zeros,
                             anno_line **lines_out, size_t *nlines, anno_file **files_out,
                             size_t *nfiles) {
  const lgp_stacktab *t = &sp->tab;
  size_t n = 0, i, nl = 0, nf = 0, nfl = t->nfiles;
  uint32_t *ids = lgp_alloc_array(sp->nlines ? sp->nlines : 1, sizeof *ids);
  uint64_t *keys = lgp_alloc_array(sp->nlines ? sp->nlines : 1, sizeof *keys);
  anno_line *lines = lgp_alloc_array(sp->nlines ? sp->nlines : 1, sizeof *lines);
  anno_file *files = lgp_alloc_array(nfl ? nfl : 1, sizeof *files);
  int32_t *slot = lgp_alloc_array(nfl ? nfl : 1, sizeof *slot);
  int rc = -1;
  if (ids == NULL || keys == NULL || lines == NULL || files == NULL || slot == NULL)
    goto out;
  for (i = 0; i < sp->nlines; i++) {
    if (!anno_wanted(p, sp->node_of[sp->lines[i].func]))
      continue;
    keys[i] = (uint64_t)sp->lines[i].file << 32 | sp->lines[i].line;
    ids[n++] = (uint32_t)i;
  }
  if (lgp_radix_sort(ids, keys, n) != 0)
    goto out;
  for (i = 0; i < nfl; i++)
    slot[i] = -1;
  for (i = 0; i < n; i++) {
    const lgp_st_line *l = &sp->lines[ids[i]];
    anno_file *f;
    if (slot[l->file] < 0) {
      slot[l->file] = (int32_t)nf;
      f = &files[nf++];
      f->file = (int32_t)l->file;
      f->ncalls = 0;
      f->first = nl;
      f->n = 0;
    }
    f = &files[slot[l->file]];
    f->ncalls += l->samples;
    if (f->n > 0 && lines[nl - 1].line == (int32_t)l->line) {
      lines[nl - 1].ncalls += l->samples;
    } else {
      lines[nl].line = (int32_t)l->line;
      lines[nl].sym = sp->node_of[l->func];
      lines[nl].merged = 0;
      lines[nl].ncalls = l->samples;
      nl++;
      f->n++;
    }
  }
  for (i = 0; zeros && i < t->nfuncs; i++) {
    uint32_t file = t->funcs[i].file;
    if (file == LGP_ST_NOFILE || slot[file] >= 0 || !anno_wanted(p, sp->node_of[i]))
      continue;
    slot[file] = (int32_t)nf;
    files[nf].file = (int32_t)file;
    files[nf].ncalls = 0;
    files[nf].first = nl;
    files[nf++].n = 0;
  }
  for (i = 0; i < nf; i++)
    files[i].created = 0; /* (the order is cmp_sampled's) */
  *lines_out = lines;
  *nlines = nl;
  *files_out = files;
  *nfiles = nf;
  lines = NULL;
  files = NULL;
  rc = 0;
out:
  free(ids);
  free(keys);
  free(lines);
  free(files);
  free(slot);
  return rc;
}

typedef struct sampled_order {
  const anno_file *files;
  const lgp_image *im;
} sampled_order;

/* Sampled stacks' file order: most samples first, then by path. */
static int cmp_sampled(const void *ctx, uint32_t x, uint32_t y) {
  const anno_file *f = ((const sampled_order *)ctx)->files;
  const lgp_image *im = ((const sampled_order *)ctx)->im;
  if (f[x].ncalls != f[y].ncalls)
    return f[x].ncalls > f[y].ncalls ? -1 : 1;
  return strcmp(im->files[f[x].file], im->files[f[y].file]);
}

static int cmp_created(const void *ctx, uint32_t x, uint32_t y) {
  const anno_file *f = ctx; /* the latest first */
  return f[x].created > f[y].created ? -1 : f[x].created < f[y].created;
}

int lgp_report_annotate(lgp_out *o, const lgp_profile *p, const lgp_bbcounts *bb,
                        const lgp_anno_opts *ao) {
  anno_line *lines = NULL;
  anno_file *files = NULL;
  uint32_t *order = NULL;
  size_t nlines, nfiles, k;
  annotator a;
  int rc = -1;
  const lgp_stackprof *sp = lgp_stacks_of(p);
  sampled_order by_samples;
  if (p->image->srcinfo_state != 1)
    return 0; /* no source lines: nothing to annotate */
  if (sp != NULL ? build_stack_lines(p, sp, ao->zeros, &lines, &nlines, &files, &nfiles)
                 : build_lines(p, &lines, &nlines, &files, &nfiles))
    return -1;
  order = lgp_alloc_array(nfiles ? nfiles : 1, sizeof *order);
  if (order == NULL)
    goto out;
  for (k = 0; k < nfiles; k++)
    order[k] = (uint32_t)k;
  by_samples.files = files;
  by_samples.im = p->image;
  if (sp != NULL ? lgp_sort_indices(order, nfiles, cmp_sampled, &by_samples)
                 : lgp_sort_indices(order, nfiles, cmp_created, files))
    goto out;
  memset(&a, 0, sizeof a);
  a.p = p;
  if (sp != NULL)
    a.event = sp->tab.nevents > 0 && sp->tab.events[0].name != NULL ? sp->tab.events[0].name : "?";
  a.bb = bb;
  a.ao = ao;
  a.first_file = 1;
  for (k = 0; k < nfiles; k++) {
    const anno_file *f = &files[order[k]];
    if (f->ncalls == 0 && !ao->zeros) /* (sampled stacks: only -z makes those) */
      continue;
    if (annotate_file(&a, o, f, lines) != 0)
      goto out;
  }
  rc = 0;
out:
  free(order);
  free(lines);
  free(files);
  return rc;
}
