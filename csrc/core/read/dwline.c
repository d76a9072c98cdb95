/*
** dwline.c: a decoder of DWARF line programs (versions 2 to 5). libdw
** sorts a unit's rows by address, which loses where each sequence ends
** (a row at the address of its sequence's end sorts after the end) and
** costs a sort; decoding the program keeps both in the order given.
*/
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "read/dwline.h"
#include "util/bytes.h"

typedef struct rd {
  const unsigned char *p, *end;
  int be, bad;
} rd;

static uint64_t rd_fixed(rd *r, size_t n) {
  uint64_t v;
  if ((size_t)(r->end - r->p) < n) {
    r->bad = 1;
    r->p = r->end;
    return 0;
  }
  v = lgp_bytes_uint(r->p, n, r->be);
  r->p += n;
  return v;
}

/* Skips a LEB128 number (set_column's, most often). */
static inline void rd_skip_leb(rd *r) {
  if (lgp_bytes_skip_leb(&r->p, r->end) != 0)
    r->bad = 1;
}

static uint64_t rd_uleb(rd *r) {
  uint64_t v;
  if (lgp_bytes_uleb(&r->p, r->end, &v) != 0)
    r->bad = 1;
  return v;
}

static int64_t rd_sleb(rd *r) {
  int64_t v;
  if (lgp_bytes_sleb(&r->p, r->end, &v) != 0)
    r->bad = 1;
  return v;
}

static const char *rd_cstr(rd *r) {
  const char *s = (const char *)r->p;
  const unsigned char *z = memchr(r->p, 0, (size_t)(r->end - r->p));
  if (z == NULL) {
    r->bad = 1;
    r->p = r->end;
    return NULL;
  }
  r->p = z + 1;
  return s;
}

static const char *sect_str(const lgp_dwsect *s, uint64_t off) {
  if (s->p == NULL || off >= s->size || memchr(s->p + off, 0, s->size - off) == NULL)
    return NULL;
  return (const char *)s->p + off;
}

/* One attribute of a DWARF 5 directory or file entry: its string (or
** NULL) and, for a number, *num. 0, or -1 for a form we cannot skip. */
static int read_form(lgp_dwline_ctx *c, rd *r, uint64_t form, int offsz, const char **str,
                     uint64_t *num) {
  *str = NULL;
  *num = 0;
  switch (form) {
  case DW_FORM_string: *str = rd_cstr(r); break;
  case DW_FORM_line_strp: *str = sect_str(&c->line_str, rd_fixed(r, (size_t)offsz)); break;
  case DW_FORM_strp: *str = sect_str(&c->str, rd_fixed(r, (size_t)offsz)); break;
  case DW_FORM_udata: *num = rd_uleb(r); break;
  case DW_FORM_sdata: *num = (uint64_t)rd_sleb(r); break;
  case DW_FORM_data1: case DW_FORM_strx1: *num = rd_fixed(r, 1); break;
  case DW_FORM_data2: case DW_FORM_strx2: *num = rd_fixed(r, 2); break;
  case DW_FORM_strx3: *num = rd_fixed(r, 3); break;
  case DW_FORM_data4: case DW_FORM_strx4: *num = rd_fixed(r, 4); break;
  case DW_FORM_data8: *num = rd_fixed(r, 8); break;
  case DW_FORM_data16: rd_fixed(r, 8); rd_fixed(r, 8); break;
  case DW_FORM_strx: *num = rd_uleb(r); break;
  case DW_FORM_block: {
    uint64_t n = rd_uleb(r);
    if (n > (uint64_t)(r->end - r->p))
      return -1;
    r->p += n;
    break;
  }
  case DW_FORM_block1: {
    uint64_t n = rd_fixed(r, 1);
    if (n > (uint64_t)(r->end - r->p))
      return -1;
    r->p += n;
    break;
  }
  default:
    return -1;
  }
  return r->bad ? -1 : 0;
}

/* A DWARF 5 entry list (directories or files): the paths and directory
** indexes of each entry. 0, 1 malformed, -1 out of memory. */
static int read_entries(lgp_dwline_ctx *c, rd *r, int offsz, const char ***out, size_t *cap,
                        uint64_t **dirs, size_t *dcap, size_t *n) {
  uint64_t fmt[2 * 16];
  unsigned nfmt = (unsigned)rd_fixed(r, 1), i;
  uint64_t count, k;
  if (nfmt > 16)
    return 1;
  for (i = 0; i < nfmt; i++) {
    fmt[2 * i] = rd_uleb(r);
    fmt[2 * i + 1] = rd_uleb(r);
  }
  count = rd_uleb(r);
  if (r->bad || count > (uint64_t)(r->end - r->p))
    return 1; /* each entry takes a byte at least */
  if (lgp_grow((void **)out, cap, (size_t)count + 1, sizeof **out) != 0 ||
      (dirs != NULL && lgp_grow((void **)dirs, dcap, (size_t)count + 1, sizeof **dirs) != 0))
    return -1;
  for (k = 0; k < count; k++) {
    (*out)[k] = NULL;
    if (dirs != NULL)
      (*dirs)[k] = 0;
    for (i = 0; i < nfmt; i++) {
      const char *s;
      uint64_t v;
      if (read_form(c, r, fmt[2 * i + 1], offsz, &s, &v) != 0)
        return 1;
      if (fmt[2 * i] == DW_LNCT_path)
        (*out)[k] = s;
      else if (fmt[2 * i] == DW_LNCT_directory_index && dirs != NULL)
        (*dirs)[k] = v;
    }
  }
  *n = (size_t)count;
  return 0;
}

/* Appends the n bytes of s to c->buf at *len. */
static void put(lgp_dwline_ctx *c, size_t *len, const char *s, size_t n) {
  memcpy(c->buf + *len, s, n);
  *len += n;
}

/* A file's name as BFD 2.40 (so gprof and addr2line) spells it: a
** relative name goes under its directory entry (dir, NULL for none), and
** under the compilation directory when that entry is not absolute
** ("COMP/sub/m.c" for "m.c" in "sub"); nothing is normalised ("COMP/./m.c").
** In c->buf, or name itself; NULL without memory. */
static const char *join(lgp_dwline_ctx *c, const char *comp_dir, const char *dir,
                        const char *name) {
  const char *first = comp_dir, *second = dir;
  size_t len = 0, need;
  if (name[0] == '/')
    return name;
  if (dir != NULL && dir[0] == '/') /* an absolute entry needs no compilation directory */
    first = NULL;
  if (first == NULL) {
    first = second;
    second = NULL;
  }
  if (first == NULL)
    return name;
  need = strlen(first) + (second != NULL ? strlen(second) + 1 : 0) + strlen(name) + 2;
  if (lgp_grow((void **)&c->buf, &c->buf_cap, need, 1) != 0)
    return NULL;
  put(c, &len, first, strlen(first));
  if (second != NULL) {
    put(c, &len, "/", 1);
    put(c, &len, second, strlen(second));
  }
  put(c, &len, "/", 1);
  put(c, &len, name, strlen(name) + 1);
  return c->buf;
}

/* The id of file entry idx, interned on first use: -1 for none, -2
** without memory. */
static int32_t file_of(lgp_dwline_ctx *c, uint64_t idx, size_t nfiles, const uint64_t *fdirs,
                       size_t ndirs, const char *comp_dir) {
  const char *name;
  if (idx >= nfiles || c->names[idx] == NULL)
    return -1;
  if (c->ids[idx] != -2)
    return c->ids[idx];
  /* an entry beyond the directory table has none, as in BFD */
  name = join(c, comp_dir, fdirs[idx] < ndirs ? c->dirs[fdirs[idx]] : NULL, c->names[idx]);
  if (name == NULL)
    return -2;
  c->ids[idx] = name[0] == '\0' ? -1 : c->file_id(c->ud, name);
  return c->ids[idx];
}

static inline int add_row(lgp_dwline_ctx *c, size_t seq_first, lgp_addr addr, int32_t file,
                   int32_t line) {
  lgp_dwrow *w;
  if (c->nrows > seq_first && c->rows[c->nrows - 1].addr >= addr) {
    if (c->rows[c->nrows - 1].addr > addr)
      c->backwards = 1;
    w = &c->rows[c->nrows - 1]; /* the last row at an address is the one kept */
  } else {
    if (c->nrows == c->rows_cap &&
        lgp_grow((void **)&c->rows, &c->rows_cap, c->nrows + 1, sizeof *c->rows) != 0)
      return -1;
    w = &c->rows[c->nrows++];
  }
  w->addr = addr;
  w->file = file;
  w->line = line;
  return 0;
}

/* Closes the sequence of rows [first, nrows) at end. */
static int end_seq(lgp_dwline_ctx *c, size_t first, lgp_addr end, uint32_t cu) {
  lgp_dwseq *s;
  int backwards = c->backwards;
  c->backwards = 0;
  if (c->nrows == first)
    return 0;
  if (backwards || end <= c->rows[first].addr) {
    c->nrows = first; /* covers nothing, or goes backwards: not a sequence */
    return 0;
  }
  if (lgp_grow((void **)&c->seqs, &c->seqs_cap, c->nseqs + 1, sizeof *c->seqs) != 0)
    return -1;
  s = &c->seqs[c->nseqs++];
  s->start = c->rows[first].addr;
  s->end = end;
  s->first = first;
  s->n = c->nrows - first;
  s->cu = cu;
  return 0;
}

int lgp_dwline_read(lgp_dwline_ctx *c, uint64_t offset, uint32_t cu, const char *comp_dir) {
  rd r, h;
  uint64_t len, hlen, *fdirs = NULL, *ddirs = NULL;
  size_t fdcap = 0, ddcap = 0, nfiles = 0, ndirs = 0, i, seq_first;
  int offsz = 4, version, rc = 1;
  unsigned min_inst, max_ops, line_range, opcode_base, addr_size = 8;
  int line_base;
  unsigned char oplen[256];
  lgp_addr sp_addr[256];   /* each special opcode's address and line steps */
  int sp_line[256];
  lgp_addr addr = 0;
  uint64_t file = 1;
  int64_t line = 1;
  int file_set = 0;
  int32_t cur;             /* the current file's id; -3 until needed */
  if (c->line.p == NULL || offset >= c->line.size)
    return 1;
  r.p = c->line.p + offset;
  r.end = c->line.p + c->line.size;
  r.be = c->big_endian;
  r.bad = 0;
  len = rd_fixed(&r, 4);
  if (len == 0xffffffffu) {
    offsz = 8;
    len = rd_fixed(&r, 8);
  }
  if (r.bad || len > (uint64_t)(r.end - r.p))
    return 1;
  r.end = r.p + len;
  version = (int)rd_fixed(&r, 2);
  if (version < 2 || version > 5)
    return 1;
  if (version >= 5) {
    addr_size = (unsigned)rd_fixed(&r, 1);
    rd_fixed(&r, 1); /* segment selector size */
  }
  hlen = rd_fixed(&r, (size_t)offsz);
  if (r.bad || hlen > (uint64_t)(r.end - r.p))
    return 1;
  h = r;
  h.end = r.p + hlen;
  r.p += hlen; /* the program */
  min_inst = (unsigned)rd_fixed(&h, 1);
  max_ops = version >= 4 ? (unsigned)rd_fixed(&h, 1) : 1;
  rd_fixed(&h, 1); /* default_is_stmt: is_stmt plays no part */
  line_base = (int)(signed char)rd_fixed(&h, 1);
  line_range = (unsigned)rd_fixed(&h, 1);
  opcode_base = (unsigned)rd_fixed(&h, 1);
  if (h.bad || line_range == 0 || opcode_base == 0 || max_ops == 0)
    return 1;
  memset(oplen, 0, sizeof oplen);
  for (i = 1; i < opcode_base; i++)
    oplen[i] = (unsigned char)rd_fixed(&h, 1);
  for (i = opcode_base; i < 256; i++) {
    sp_addr[i] = (lgp_addr)min_inst * ((i - opcode_base) / line_range);
    sp_line[i] = line_base + (int)((i - opcode_base) % line_range);
  }
  if (version >= 5) {
    int e = read_entries(c, &h, offsz, &c->dirs, &c->dirs_cap, &ddirs, &ddcap, &ndirs);
    if (e == 0)
      e = read_entries(c, &h, offsz, &c->names, &c->names_cap, &fdirs, &fdcap, &nfiles);
    free(ddirs);
    if (e != 0) {
      rc = e;
      goto out;
    }
  } else {
    /* directory 0 is the compilation directory (join's NULL entry); file 0
       does not exist */
    const char *s;
    ndirs = 1;
    if (lgp_grow((void **)&c->dirs, &c->dirs_cap, 1, sizeof *c->dirs) != 0)
      return -1;
    c->dirs[0] = NULL;
    while ((s = rd_cstr(&h)) != NULL && s[0] != '\0') {
      if (lgp_grow((void **)&c->dirs, &c->dirs_cap, ndirs + 1, sizeof *c->dirs) != 0)
        return -1;
      c->dirs[ndirs++] = s;
    }
    nfiles = 1;
    if (lgp_grow((void **)&c->names, &c->names_cap, 1, sizeof *c->names) != 0 ||
        lgp_grow((void **)&fdirs, &fdcap, 1, sizeof *fdirs) != 0)
      goto oom;
    c->names[0] = NULL;
    fdirs[0] = 0;
    while ((s = rd_cstr(&h)) != NULL && s[0] != '\0') {
      if (lgp_grow((void **)&c->names, &c->names_cap, nfiles + 1, sizeof *c->names) != 0 ||
          lgp_grow((void **)&fdirs, &fdcap, nfiles + 1, sizeof *fdirs) != 0)
        goto oom;
      c->names[nfiles] = s;
      fdirs[nfiles] = rd_uleb(&h);
      rd_uleb(&h);
      rd_uleb(&h);
      nfiles++;
    }
    if (h.bad)
      goto out;
  }
  if (lgp_grow((void **)&c->ids, &c->ids_cap, nfiles + 1, sizeof *c->ids) != 0)
    goto oom;
  for (i = 0; i < nfiles; i++)
    c->ids[i] = -2;

  seq_first = c->nrows;
  c->backwards = 0;
  cur = -3;
  /* The hot loop: the position in locals (the reader is brought up to
     date around the calls that read longer numbers), one-byte LEB128
     numbers (most of them) read in line. */
  {
    const unsigned char *p = r.p, *end = r.end;
    while (p < end) {
      unsigned op = *p++;
      if (op >= opcode_base) {
        addr += sp_addr[op];
        line += sp_line[op];
      } else if (op == DW_LNS_set_column) {
        do {
          if (p == end) {
            r.bad = 1;
            break;
          }
        } while (*p++ & 0x80);
        if (r.bad)
          break;
        continue;
      } else if (op == DW_LNS_negate_stmt) {
        continue;
      } else if (op == DW_LNS_copy) {
        /* a row */
      } else if (op == 0) {
        uint64_t n;
        const unsigned char *next;
        unsigned sub;
        r.p = p;
        n = r.p < r.end && *r.p < 0x80 ? *r.p++ : rd_uleb(&r);
        if (r.bad || n == 0 || n > (uint64_t)(r.end - r.p)) {
          p = r.p;
          break;
        }
        next = r.p + n;
        sub = *r.p++;
        if (sub == DW_LNE_end_sequence) {
          if (end_seq(c, seq_first, addr, cu) != 0)
            goto oom;
          seq_first = c->nrows;
          addr = 0;
          file = 1;
          line = 1;
          file_set = 0;
          cur = -3;
        } else if (sub == DW_LNE_set_address) {
          size_t as = (size_t)(n - 1);
          addr = as <= 8 ? rd_fixed(&r, as) : 0;
        }
        p = next;
        continue;
      } else {
        r.p = p;
        switch (op) {
        case DW_LNS_advance_pc: addr += (lgp_addr)min_inst * rd_uleb(&r); break;
        case DW_LNS_advance_line: line += rd_sleb(&r); break;
        case DW_LNS_set_file: file = rd_uleb(&r); file_set = 1; cur = -3; break;
        case DW_LNS_const_add_pc:
          addr += (lgp_addr)min_inst * ((255 - opcode_base) / line_range);
          break;
        case DW_LNS_fixed_advance_pc: addr += rd_fixed(&r, 2); break;
        default: {
          unsigned k;
          for (k = 0; k < oplen[op]; k++)
            rd_skip_leb(&r);
        }
        }
        p = r.p;
        if (r.bad)
          break;
        continue;
      }
      if (cur == -3) {
        /* BFD 2.40 starts each DWARF 5 sequence at entry 0, not 1 */
        uint64_t fi = version >= 5 && !file_set ? 0 : file;
        cur = fi < nfiles && c->ids[fi] != -2 ? c->ids[fi]
                                               : file_of(c, fi, nfiles, fdirs, ndirs, comp_dir);
        if (cur == -2)
          goto oom;
      }
      if (add_row(c, seq_first, addr, cur, line > 0 && line <= INT32_MAX ? (int32_t)line : 0) != 0)
        goto oom;
    }
    r.p = p;
  }
  (void)addr_size;
  c->nrows = seq_first; /* rows of an unterminated sequence */
  c->backwards = 0;
  rc = r.bad ? 1 : 0;
out:
  free(fdirs);
  return rc;
oom:
  free(fdirs);
  return -1;
}

void lgp_dwline_free(lgp_dwline_ctx *c) {
  free(c->rows);
  free(c->seqs);
  free(c->names);
  free(c->ids);
  free(c->buf);
  free(c->dirs);
  memset(c, 0, sizeof *c);
}
