/*
** folded.c: folded stacks ("main;a;b value", for flame graph tools): the
** profile's stacks (analyse/stacks.h: estimated from the call graph), one
** line each, frames by their labels, values in integer microseconds.
*/
#include <stdlib.h>
#include <string.h>

#include "analyse/stacks.h"
#include "util/hashtab.h"
#include "write/export_int.h"

/* {====================================================== folded stacks */

/* The lines so far, one per distinct text: consumers (flamegraph.pl,
** inferno, speedscope) expect each stack once, and two stacks can have one
** text (two functions whose names differ only by a ';' or a newline, which
** labels replace). Written at the end in the order first seen. */
typedef struct fline {
  size_t off, len;   /* the stack's text in flines.text */
  uint64_t v;        /* microseconds */
} fline;

typedef struct flines {
  lgp_out text;
  fline *l;
  size_t n, cap;
  lgp_hashtab by_text; /* the lines by their stack's text */
} flines;

/* The text at off (no buffer yet while every stack written is empty). */
static const char *text_at(const flines *t, size_t off) {
  return t->text.buf != NULL ? t->text.buf + off : "";
}

/* Adds v to the line of the stack held in t->text from off on (len bytes
** long), which becomes a new line or is dropped from text if it is one
** already. */
static int lines_add(flines *t, size_t off, uint64_t v) {
  size_t len = t->text.len - off;
  const char *s;
  lgp_hashpos at;
  uint32_t k;
  if (t->text.failed)
    return -1;
  s = text_at(t, off);
  if (lgp_hashtab_reserve(&t->by_text, 1) != 0)
    return -1;
  for (at = lgp_hashtab_probe(&t->by_text, lgp_hashtab_hash_bytes(s, len));
       (k = lgp_hashtab_next(&t->by_text, &at)) != LGP_HASHTAB_END;) {
    fline *l = &t->l[k];
    if (l->len == len && memcmp(text_at(t, l->off), s, len) == 0) {
      l->v += v;
      t->text.len = off;
      return 0;
    }
  }
  if (t->n >= UINT32_MAX - 1 ||
      lgp_grow((void **)&t->l, &t->cap, t->n + 1, sizeof *t->l) != 0)
    return -1;
  t->l[t->n].off = off;
  t->l[t->n].len = len;
  t->l[t->n].v = v;
  lgp_hashtab_put(&t->by_text, &at, (uint32_t)t->n++);
  return 0;
}

static void lines_write(lgp_out *o, const flines *t) {
  size_t k;
  for (k = 0; k < t->n && !o->failed; k++) {
    lgp_out_mem(o, text_at(t, t->l[k].off), t->l[k].len);
    lgp_out_char(o, ' ');
    lgp_export_out_u64(o, t->l[k].v);
    lgp_out_char(o, '\n');
  }
}

static void lines_free(flines *t) {
  lgp_out_free(&t->text);
  free(t->l);
  lgp_hashtab_free(&t->by_text);
}

int lgp_export_write_folded(ectx *c) {
  lgp_stacks *it = lgp_stacks_new(c->p, c->eo->max_depth, c->eo->min_weight);
  size_t *plen = NULL; /* plen[k]: the path's length up to frame k */
  flines lines;
  lgp_out path;
  lgp_stack s;
  int rc = -1;
  memset(&lines, 0, sizeof lines);
  memset(&path, 0, sizeof path);
  if (it == NULL)
    return -1;
  plen = lgp_alloc_array(lgp_stacks_max_depth(it) + 1, sizeof *plen);
  if (plen == NULL)
    goto done;
  while (lgp_stacks_next(it, &s)) {
    size_t k, off;
    /* the path's text: the previous stack's up to where they part */
    path.len = s.same > 0 ? plen[s.same - 1] : 0;
    for (k = s.same; k < s.depth; k++) {
      if (k > 0)
        lgp_out_char(&path, ';');
      lgp_export_label(c, s.frames[k], &path, 1);
      plen[k] = path.len;
    }
    if (path.failed)
      goto done;
    if (s.us == 0)
      continue; /* rounds to nothing: left out */
    off = lines.text.len;
    lgp_out_mem(&lines.text, path.buf, path.len);
    if (lines_add(&lines, off, s.us) != 0)
      goto done;
  }
  lines_write(c->o, &lines);
  rc = 0;
done:
  lgp_stacks_free(it);
  free(plen);
  lgp_out_free(&path);
  lines_free(&lines);
  return rc;
}

/* }====================================================== */
