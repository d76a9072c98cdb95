/*
** perfdata.c: perf.data's container (see perfdata.h). The layout is the
** one `perf record` writes: a 104-byte header (16 in pipe mode) pointing at
** the attrs, the record stream and, after the stream, a table of feature
** sections; the records' bodies are decoded here field by field, every
** length checked against the record's own size.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>
#include "read/perf/perfdata.h"
#include "read/perf/perfswap.h"

#define MAGIC 0x32454c4946524550ULL   /* "PERFILE2" read in this byte order */
#define MAGIC_SWAPPED 0x50455246494c4532ULL
#define FILE_HEADER 104
#define PIPE_HEADER 16
#define ATTR_V0 64                    /* attr.size 0 means the first layout */

/* Feature bits lgprof reads. */
enum {
  F_TRACING_DATA = 1, F_BUILD_ID = 2, F_HOSTNAME = 3, F_OSRELEASE = 4, F_VERSION = 5, F_ARCH = 6, F_NRCPUS = 7,
  F_CPUDESC = 8, F_CMDLINE = 11, F_EVENT_DESC = 12, F_STAT = 19, F_SAMPLE_TIME = 21,
  F_COMPRESSED = 27, F_LAST = 256
};

static uint32_t u32_at(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static uint16_t u16_at(const uint8_t *p) {
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* A bounded view of bytes, read front to back. */
typedef struct cursor {
  const uint8_t *p, *end;
} cursor;

static int take(cursor *c, size_t n, const uint8_t **out) {
  if ((size_t)(c->end - c->p) < n)
    return -1;
  *out = c->p;
  c->p += n;
  return 0;
}

static int take_u64(cursor *c, uint64_t *v) {
  const uint8_t *p;
  if (take(c, 8, &p) != 0)
    return -1;
  *v = lgp_perf_u64(p);
  return 0;
}

static int take_u32(cursor *c, uint32_t *v) {
  const uint8_t *p;
  if (take(c, 4, &p) != 0)
    return -1;
  *v = u32_at(p);
  return 0;
}

/* perf's string: u32 length (NUL and padding included), then the bytes. A
** copy up to the first NUL; NULL when it does not fit or memory ran out. */
static char *take_string(cursor *c) {
  uint32_t len;
  const uint8_t *p;
  char *s;
  size_t n;
  if (take_u32(c, &len) != 0 || take(c, len, &p) != 0)
    return NULL;
  n = strnlen((const char *)p, len);
  s = malloc(n + 1);
  if (!s)
    return NULL;
  memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

int lgp_perf_is_perfdata(const uint8_t *bytes, size_t n) {
  uint64_t m;
  if (n < 8)
    return 0;
  m = lgp_perf_u64(bytes);
  return m == MAGIC || m == MAGIC_SWAPPED;
}

static void attr_free(lgp_perf_attr *a) {
  free(a->ids);
  free(a->name);
}

static int idattr_cmp(const void *a, const void *b) {
  const struct lgp_perf_idattr *x = a, *y = b;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return x->attr < y->attr ? -1 : x->attr > y->attr;
}

void lgp_perf_idattr_sort(struct lgp_perf_idattr *index, size_t n) {
  if (n > 1) /* (qsort is not given a null array) */
    qsort(index, n, sizeof *index, idattr_cmp);
}

size_t lgp_perf_idattr_find(const struct lgp_perf_idattr *index, size_t n, uint64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (index[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && index[lo].id == id ? index[lo].attr : 0;
}

/* Sorts every attr's ids once, so that a record's attr is found by a
** binary search rather than a scan of all ids (one per event and CPU). */
static int id_index_build(lgp_perf_data *pd, lgp_err *err) {
  size_t i, j, n = 0;
  for (i = 0; i < pd->nattrs; i++)
    n += pd->attrs[i].nids;
  if (pd->nattrs < 2 || n == 0)
    return 0;
  if (!(pd->id_index = lgp_alloc_array(n, sizeof *pd->id_index)))
    return lgp_fail(err, pd->path, "out of memory");
  for (i = 0; i < pd->nattrs; i++)
    for (j = 0; j < pd->attrs[i].nids; j++) {
      pd->id_index[pd->nid_index].id = pd->attrs[i].ids[j];
      pd->id_index[pd->nid_index++].attr = i;
    }
  lgp_perf_idattr_sort(pd->id_index, pd->nid_index);
  return 0;
}

void lgp_perf_close(lgp_perf_data *pd) {
  size_t i;
  free(pd->id_index);
  for (i = 0; i < pd->nattrs; i++)
    attr_free(&pd->attrs[i]);
  free(pd->attrs);
  for (i = 0; i < pd->nbuildids; i++)
    free(pd->buildids[i].path);
  free(pd->buildids);
  for (i = 0; i < pd->ncmdline; i++)
    free(pd->cmdline[i]);
  free(pd->cmdline);
  free(pd->hostname);
  free(pd->osrelease);
  free(pd->version);
  free(pd->arch);
  free(pd->cpudesc);
  free(pd->expanded);
  free(pd->swapped);
  lgp_gmon_blob_free(&pd->blob);
  memset(pd, 0, sizeof *pd);
}

/* Decodes the attr of `len` bytes at p into a (fields past len stay 0). */
static int attr_decode(lgp_perf_data *pd, const uint8_t *p, size_t len, lgp_perf_attr *a,
                       lgp_err *err) {
  uint8_t buf[136];
  size_t n = len < sizeof buf ? len : sizeof buf;
  memset(a, 0, sizeof *a);
  memset(buf, 0, sizeof buf);
  memcpy(buf, p, n);
  a->type = u32_at(buf);
  a->size = u32_at(buf + 4);
  if (a->size == 0)
    a->size = ATTR_V0;
  if (a->size < ATTR_V0 || a->size > len)
    return lgp_fail(err, pd->path, "event attribute of %u bytes in a space of %zu", a->size, len);
  a->config = lgp_perf_u64(buf + 8);
  a->period_or_freq = lgp_perf_u64(buf + 16);
  a->sample_type = lgp_perf_u64(buf + 24);
  a->read_format = lgp_perf_u64(buf + 32);
  a->flags = lgp_perf_u64(buf + 40);
  a->branch_sample_type = lgp_perf_u64(buf + 72);
  a->sample_regs_user = lgp_perf_u64(buf + 80);
  a->sample_stack_user = u32_at(buf + 88);
  a->sample_regs_intr = lgp_perf_u64(buf + 96);
  if (a->sample_type & ~(uint64_t)LGP_PS_KNOWN)
    return lgp_fail(err, pd->path, "event sample type 0x%llx has fields lgprof cannot size",
                    (unsigned long long)a->sample_type);
  return 0;
}

/* Appends an attr with ids[nids] (read at idp, unaligned). */
static int attr_add(lgp_perf_data *pd, const lgp_perf_attr *a, const uint8_t *idp, size_t nids,
                    lgp_err *err) {
  lgp_perf_attr *dst;
  size_t i;
  if (lgp_grow((void **)&pd->attrs, &pd->attrs_cap, pd->nattrs + 1, sizeof *pd->attrs) != 0)
    return lgp_fail(err, pd->path, "out of memory");
  dst = &pd->attrs[pd->nattrs];
  *dst = *a;
  dst->ids = NULL;
  dst->nids = 0;
  if (nids > 0) {
    dst->ids = lgp_alloc_array(nids, sizeof *dst->ids);
    if (!dst->ids)
      return lgp_fail(err, pd->path, "out of memory");
    for (i = 0; i < nids; i++)
      dst->ids[i] = lgp_perf_u64(idp + 8 * i);
    dst->nids = nids;
  }
  pd->nattrs++;
  return 0;
}

/* A build-id entry (feature payload or type-67 record) of `len` bytes. */
static int buildid_add(lgp_perf_data *pd, const uint8_t *p, size_t len, lgp_err *err) {
  lgp_perf_buildid *b;
  uint16_t misc;
  size_t n;
  if (len < 36)
    return lgp_fail(err, pd->path, "build-id entry of %zu bytes", len);
  if (lgp_grow((void **)&pd->buildids, &pd->buildids_cap, pd->nbuildids + 1,
               sizeof *pd->buildids) != 0)
    return lgp_fail(err, pd->path, "out of memory");
  b = &pd->buildids[pd->nbuildids];
  memset(b, 0, sizeof *b);
  misc = u16_at(p + 4);
  b->cpumode = (uint8_t)(misc & 7);
  memcpy(&b->pid, p + 8, 4);
  memcpy(b->id, p + 12, 20);
  /* the length is valid only with perf's BUILD_ID_SIZE flag */
  b->len = (misc & 0x8000) && p[32] <= 20 ? p[32] : 0;
  n = strnlen((const char *)p + 36, len - 36);
  b->path = malloc(n + 1);
  if (!b->path)
    return lgp_fail(err, pd->path, "out of memory");
  memcpy(b->path, p + 36, n);
  b->path[n] = '\0';
  pd->nbuildids++;
  return 0;
}

/* One feature section's payload (file mode: from the table; pipe mode:
** from a HEADER_FEATURE record). Unknown features are skipped. */
static int feature(lgp_perf_data *pd, unsigned bit, const uint8_t *p, size_t len, lgp_err *err) {
  cursor c = { p, p + len };
  char **str = NULL;
  switch (bit) {
  case F_HOSTNAME: str = &pd->hostname; break;
  case F_OSRELEASE: str = &pd->osrelease; break;
  case F_VERSION: str = &pd->version; break;
  case F_ARCH: str = &pd->arch; break;
  case F_CPUDESC: str = &pd->cpudesc; break;
  case F_STAT:
    return lgp_fail(err, pd->path, "a recording of `perf stat record`, not of samples");
  case F_COMPRESSED:
    pd->compressed = 1;
    return 0;
  case F_TRACING_DATA:
    /* parsed by its user (tracedata.h): most recordings never need it */
    pd->tracing = p;
    pd->tracing_len = len;
    return 0;
  case F_NRCPUS:
    if (take_u32(&c, &pd->nrcpus_avail) != 0 || take_u32(&c, &pd->nrcpus_online) != 0)
      return lgp_fail(err, pd->path, "feature NRCPUS cut short");
    return 0;
  case F_SAMPLE_TIME:
    if (take_u64(&c, &pd->first_time) != 0 || take_u64(&c, &pd->last_time) != 0)
      return lgp_fail(err, pd->path, "feature SAMPLE_TIME cut short");
    return 0;
  case F_CMDLINE: {
    uint32_t nr, i;
    if (take_u32(&c, &nr) != 0 || nr > len / 4)
      return lgp_fail(err, pd->path, "feature CMDLINE cut short");
    pd->cmdline = lgp_calloc_array(nr ? nr : 1, sizeof *pd->cmdline);
    if (!pd->cmdline)
      return lgp_fail(err, pd->path, "out of memory");
    for (i = 0; i < nr; i++) {
      pd->cmdline[i] = take_string(&c);
      if (!pd->cmdline[i])
        return lgp_fail(err, pd->path, "feature CMDLINE cut short");
      pd->ncmdline++;
    }
    return 0;
  }
  case F_EVENT_DESC: {
    uint32_t nr, asize, i, nids;
    const uint8_t *ap, *idp;
    if (take_u32(&c, &nr) != 0 || take_u32(&c, &asize) != 0)
      return lgp_fail(err, pd->path, "feature EVENT_DESC cut short");
    for (i = 0; i < nr; i++) {
      char *name;
      size_t k;
      if (take(&c, asize, &ap) != 0 || take_u32(&c, &nids) != 0)
        return lgp_fail(err, pd->path, "feature EVENT_DESC cut short");
      name = take_string(&c);
      if (!name || nids > (size_t)(c.end - c.p) / 8 || take(&c, (size_t)nids * 8, &idp) != 0) {
        free(name);
        return lgp_fail(err, pd->path, "feature EVENT_DESC cut short");
      }
      /* the name goes to the attr that has the first of these ids */
      for (k = 0; k < pd->nattrs && name; k++) {
        lgp_perf_attr *a = &pd->attrs[k];
        size_t j;
        for (j = 0; j < a->nids && nids > 0; j++) {
          if (a->ids[j] == lgp_perf_u64(idp) && !a->name) {
            a->name = name;
            name = NULL;
            break;
          }
        }
      }
      /* no ids (one attr): the attrs in order */
      if (name && nids == 0 && i < pd->nattrs && !pd->attrs[i].name) {
        pd->attrs[i].name = name;
        name = NULL;
      }
      free(name);
    }
    return 0;
  }
  case F_BUILD_ID:
    while (c.p < c.end) {
      uint16_t size;
      if ((size_t)(c.end - c.p) < 8)
        break;
      size = u16_at(c.p + 6);
      if (size < 36 || size > (size_t)(c.end - c.p))
        return lgp_fail(err, pd->path, "feature BUILD_ID: an entry of %u bytes", size);
      if (buildid_add(pd, c.p, size, err) != 0)
        return -1;
      c.p += size;
    }
    return 0;
  default:
    return 0;
  }
  if (*str)
    return 0;  /* the first one given */
  *str = take_string(&c);
  if (!*str)
    return lgp_fail(err, pd->path, "feature %u cut short", bit);
  return 0;
}

/* File mode: the attrs section and the feature table. */
static int read_file_header(lgp_perf_data *pd, lgp_err *err) {
  const uint8_t *h = pd->bytes;
  uint64_t hsize = lgp_perf_u64(h + 8), attr_size, attrs_off, attrs_len, data_off, data_len;
  uint64_t i, nattrs;
  unsigned bit;
  size_t ftab;
  /* the fields below are read only once the file is known to hold them */
  if (pd->size < FILE_HEADER || (hsize != FILE_HEADER && hsize != 72))
    return lgp_fail(err, pd->path, "not a perf.data file (header of %llu bytes)",
                    (unsigned long long)hsize);
  attr_size = lgp_perf_u64(h + 16);
  attrs_off = lgp_perf_u64(h + 24);
  attrs_len = lgp_perf_u64(h + 32);
  data_off = lgp_perf_u64(h + 40);
  data_len = lgp_perf_u64(h + 48);
  if (hsize == FILE_HEADER)
    for (bit = 0; bit < 4; bit++)
      pd->features[bit] = lgp_perf_u64(h + 72 + 8 * bit);
  if (attr_size < ATTR_V0 + 16 || attrs_off < hsize || data_off < hsize
      || attrs_off > pd->size || attrs_len > pd->size - attrs_off || data_off > pd->size)
    return lgp_fail(err, pd->path, "perf.data header points outside the file");
  if (attrs_off < data_off + data_len && data_off < attrs_off + attrs_len && attrs_len && data_len)
    return lgp_fail(err, pd->path, "perf.data header: attrs and data overlap");
  nattrs = attrs_len / attr_size;
  for (i = 0; i < nattrs; i++) {
    const uint8_t *e = pd->bytes + attrs_off + i * attr_size;
    uint64_t ids_off = lgp_perf_u64(e + attr_size - 16), ids_len = lgp_perf_u64(e + attr_size - 8);
    lgp_perf_attr a;
    if (attr_decode(pd, e, (size_t)(attr_size - 16), &a, err) != 0)
      return -1;
    if (ids_off > pd->size || ids_len > pd->size - ids_off)
      return lgp_fail(err, pd->path, "event %llu: its ids lie outside the file",
                      (unsigned long long)i);
    if (attr_add(pd, &a, pd->bytes + ids_off, (size_t)(ids_len / 8), err) != 0)
      return -1;
  }
  pd->data_start = (size_t)data_off;
  if (data_len == 0) {
    /* perf was killed before rewriting the header: records to the end of
       the file, no feature table */
    pd->data_end = pd->size;
    pd->truncated = 1;
    pd->truncated_at = pd->size;
    return 0;
  }
  if (data_len > pd->size - data_off) {
    /* cut short (a copy or a disk that filled up): the whole records */
    pd->data_end = pd->size;
    pd->truncated = 1;
    pd->truncated_at = pd->size;
    return 0;
  }
  pd->data_end = (size_t)(data_off + data_len);
  ftab = pd->data_end;
  for (bit = 0; bit < F_LAST; bit++) {
    uint64_t off, len;
    if (!(pd->features[bit / 64] >> (bit % 64) & 1))
      continue;
    if (pd->size - ftab < 16) {
      pd->truncated = 1; /* the feature table is missing: keep the records */
      break;
    }
    off = lgp_perf_u64(pd->bytes + ftab);
    len = lgp_perf_u64(pd->bytes + ftab + 8);
    ftab += 16;
    if (off > pd->size || len > pd->size - off)
      return lgp_fail(err, pd->path, "feature %u lies outside the file", bit);
    if (feature(pd, bit, pd->bytes + off, (size_t)len, err) != 0)
      return -1;
  }
  return 0;
}

/* Pipe mode: HEADER_ATTR and HEADER_FEATURE records, read as they come. */
static int pipe_record(lgp_perf_data *pd, const lgp_perf_record *rec, lgp_err *err) {
  if (rec->type == LGP_PERF_HEADER_ATTR) {
    lgp_perf_attr a;
    uint32_t asize;
    if (rec->body_len < ATTR_V0)
      return lgp_fail(err, pd->path, "offset %zu: attribute record of %u bytes", rec->offset,
                      rec->size);
    asize = u32_at(rec->body + 4);
    if (asize == 0)
      asize = ATTR_V0;
    if (asize > rec->body_len)
      return lgp_fail(err, pd->path, "offset %zu: attribute of %u bytes in a record of %u",
                      rec->offset, asize, rec->size);
    if (attr_decode(pd, rec->body, asize, &a, err) != 0)
      return -1;
    return attr_add(pd, &a, rec->body + asize, (rec->body_len - asize) / 8, err);
  }
  if (rec->type == LGP_PERF_HEADER_FEATURE) {
    uint64_t bit;
    if (rec->body_len < 8)
      return lgp_fail(err, pd->path, "offset %zu: feature record of %u bytes", rec->offset,
                      rec->size);
    bit = lgp_perf_u64(rec->body);
    if (bit >= F_LAST)
      return 0;
    pd->features[bit / 64] |= (uint64_t)1 << (bit % 64);
    return feature(pd, (unsigned)bit, rec->body + 8, rec->body_len - 8, err);
  }
  if (rec->type == LGP_PERF_HEADER_TRACING_DATA && rec->body_len >= 4 && !pd->tracing) {
    /* the blob follows the record, outside its size (lgp_perf_next checked
       that its rounded size is there) */
    pd->tracing = rec->body + rec->body_len;
    pd->tracing_len = u32_at(rec->body);
  }
  return 0;
}

/* perf record -z. Decompressed bytes allowed: EXPAND_FLOOR plus
** EXPAND_RATIO per byte of the files. perf's own ratios are near 10, but
** a zstd block of a few bytes can claim 128 KiB, and a hostile file must
** not exhaust memory. */
#define EXPAND_FLOOR ((size_t)64 << 20)
#define EXPAND_RATIO 256

/* A growing byte buffer. */
typedef struct bytebuf {
  uint8_t *p;
  size_t n, cap;
} bytebuf;

static int buf_reserve(bytebuf *b, size_t more) {
  if (more > SIZE_MAX - b->n)
    return -1;
  return lgp_grow((void **)&b->p, &b->cap, b->n + more, 1);
}

static int buf_add(bytebuf *b, const uint8_t *p, size_t n) {
  if (n == 0)
    return 0;
  if (buf_reserve(b, n) != 0)
    return -1;
  memcpy(b->p + b->n, p, n);
  b->n += n;
  return 0;
}

/* Builds the expanded stream: record streams (the file's; in a directory,
** data's and then each data.N's) appended with their COMPRESSED records
** decompressed. A stream's payloads form one zstd stream whose frame perf
** never closes, and a record may begin in one payload and end in the
** next, so the bytes after the last whole record wait in `pending`. */
typedef struct expander {
  const char *path;       /* the stream's, for messages */
  ZSTD_DCtx *dctx;
  bytebuf out, pending;
  size_t limit;
  uint64_t ncompressed;
  int cut;                /* a stream ended inside a record */
  lgp_err *err;
} expander;

static void limit_add(expander *x, size_t file_size) {
  size_t more = file_size > SIZE_MAX / EXPAND_RATIO ? SIZE_MAX : EXPAND_RATIO * file_size;
  x->limit = more > SIZE_MAX - x->limit ? SIZE_MAX : x->limit + more;
}

/* Decompresses rec's payload; `cut`: the file ends inside rec, whose
** body_len is then what is left of it. */
static int expand_payload(expander *x, const lgp_perf_record *rec, int cut) {
  const uint8_t *data = rec->body;
  size_t len = rec->body_len, whole = 0;
  ZSTD_inBuffer in;
  if (rec->type == LGP_PERF_COMPRESSED2) {
    /* the zstd data's size first, the record padded to 8 bytes */
    uint64_t n = len >= 8 ? lgp_perf_u64(data) : 0;
    if (cut && len >= 8 && n > len - 8)
      n = len - 8;
    if (len < 8 || n > len - 8)
      return lgp_fail(x->err, x->path, "offset %zu: compressed record of %u bytes "
                      "claims %llu", rec->offset, rec->size, (unsigned long long)n);
    data += 8;
    len = (size_t)n;
  }
  x->ncompressed++;
  in.src = data;
  in.size = len;
  in.pos = 0;
  for (;;) {
    ZSTD_outBuffer o;
    size_t rc, room = ZSTD_DStreamOutSize();
    if (x->out.n + x->pending.n > x->limit)
      return lgp_fail(x->err, x->path, "compressed records (perf record -z) decompress "
                      "to more than %zu bytes: refused", x->limit);
    if (buf_reserve(&x->pending, room) != 0)
      return lgp_fail(x->err, x->path, "out of memory");
    o.dst = x->pending.p + x->pending.n;
    o.size = room;
    o.pos = 0;
    rc = ZSTD_decompressStream(x->dctx, &o, &in);
    if (ZSTD_isError(rc))
      return lgp_fail(x->err, x->path, "offset %zu: compressed record: %s", rec->offset,
                      ZSTD_getErrorName(rc));
    x->pending.n += o.pos;
    /* all input read and the output not full: nothing more is held back */
    if (in.pos == in.size && o.pos < o.size)
      break;
  }
  /* the whole records go out; a record begun stays for the next payload */
  while (x->pending.n - whole >= 8) {
    uint16_t size = u16_at(x->pending.p + whole + 6);
    if (size < 8)
      return lgp_fail(x->err, x->path, "offset %zu: compressed record holds a record "
                      "of %u bytes", rec->offset, size);
    if (size > x->pending.n - whole)
      break;
    whole += size;
  }
  if (buf_add(&x->out, x->pending.p, whole) != 0)
    return lgp_fail(x->err, x->path, "out of memory");
  memmove(x->pending.p, x->pending.p + whole, x->pending.n - whole);
  x->pending.n -= whole;
  return 0;
}

/* Appends src's records to x->out, each COMPRESSED one replaced by the
** records it holds, with a zstd context of its own. */
static int expand_stream(expander *x, lgp_perf_data *src) {
  lgp_perf_record rec;
  size_t pos = 0;
  int rc;
  x->path = src->path;
  x->pending.n = 0;
  if (ZSTD_isError(ZSTD_DCtx_reset(x->dctx, ZSTD_reset_session_only)))
    return lgp_fail(x->err, x->path, "zstd context reset failed");
  while ((rc = lgp_perf_next(src, &pos, &rec, x->err)) == 1) {
    if (rec.type == LGP_PERF_COMPRESSED || rec.type == LGP_PERF_COMPRESSED2) {
      if (expand_payload(x, &rec, 0) != 0)
        return -1;
    } else if (buf_add(&x->out, src->bytes + rec.offset, pos - rec.offset) != 0) {
      return lgp_fail(x->err, x->path, "out of memory");
    }
  }
  if (rc < 0)
    return -1;
  if (src->truncated && src->truncated_at >= src->data_start
      && src->truncated_at <= src->data_end && src->data_end - src->truncated_at >= 8) {
    /* the file ends inside a COMPRESSED record: the records whole in
       what is left of its payload */
    const uint8_t *p = src->bytes + src->truncated_at;
    rec.type = u32_at(p);
    rec.misc = u16_at(p + 4);
    rec.size = u16_at(p + 6);
    rec.offset = src->truncated_at;
    rec.body = p + 8;
    rec.body_len = src->data_end - src->truncated_at - 8;
    if ((rec.type == LGP_PERF_COMPRESSED || rec.type == LGP_PERF_COMPRESSED2)
        && rec.size > 8 + rec.body_len && expand_payload(x, &rec, 1) != 0)
      return -1;
  }
  /* the file ended inside a record, or the last payload inside one */
  if (src->truncated || x->pending.n > 0)
    x->cut = 1;
  return 0;
}

/* Starts the expanded stream with pd's bytes before its records, so that
** records before the first COMPRESSED one keep their file offsets. */
static int expander_init(expander *x, lgp_perf_data *pd, lgp_err *err) {
  memset(x, 0, sizeof *x);
  x->err = err;
  x->path = pd->path;
  x->limit = EXPAND_FLOOR;
  limit_add(x, pd->size);
  if (!(x->dctx = ZSTD_createDCtx()) || buf_add(&x->out, pd->bytes, pd->data_start) != 0)
    return lgp_fail(err, pd->path, "out of memory");
  return 0;
}

static void expander_free(expander *x) {
  ZSTD_freeDCtx(x->dctx);
  free(x->pending.p);
  free(x->out.p);
}

/* pd reads the expanded stream from now on; counts and truncation are
** those it will show when read. */
static void expander_finish(expander *x, lgp_perf_data *pd) {
  pd->cut_short = x->cut;
  pd->truncated = 0;
  pd->truncated_at = 0;
  memset(pd->record_counts, 0, sizeof pd->record_counts);
  pd->other_records = 0;
  pd->compressed_records = x->ncompressed;
  pd->expanded = x->out.p;
  pd->bytes = x->out.p;
  pd->size = x->out.n;
  pd->data_end = x->out.n;
  x->out.p = NULL;
  expander_free(x);
}

/* A file with COMPRESSED records reads the expanded stream (nothing to
** do without one). The records are looked at rather than the COMPRESSED
** feature: a file perf did not finish has no feature table. */
static int expand(lgp_perf_data *pd, lgp_err *err) {
  expander x;
  lgp_perf_record rec;
  size_t pos = 0, truncated_at = pd->truncated_at;
  int rc, found = 0, truncated = pd->truncated;
  while ((rc = lgp_perf_next(pd, &pos, &rec, err)) == 1)
    if (rec.type == LGP_PERF_COMPRESSED || rec.type == LGP_PERF_COMPRESSED2) {
      found = 1;
      break;
    }
  memset(pd->record_counts, 0, sizeof pd->record_counts);
  pd->other_records = 0;
  /* whoever reads the records sees the same again */
  pd->truncated = truncated;
  pd->truncated_at = truncated_at;
  if (rc < 0 || !found)
    return rc < 0 ? -1 : 0;
  if (expander_init(&x, pd, err) != 0 || expand_stream(&x, pd) != 0) {
    expander_free(&x);
    return -1;
  }
  expander_finish(&x, pd);
  return 0;
}

/* The header, attrs and features; the records expanded when `records`. */
static int open_bytes(lgp_perf_data *pd, const char *name, const uint8_t *bytes, size_t n,
                      int records, lgp_err *err) {
  uint64_t magic, hsize;
  memset(pd, 0, sizeof *pd);
  pd->path = name;
  pd->bytes = bytes;
  pd->size = n;
  if (n < PIPE_HEADER)
    return lgp_fail(err, name, "not a perf.data file (%zu bytes)", n);
  magic = lgp_perf_u64(bytes);
  if (magic == MAGIC_SWAPPED) {
    /* read from a copy in this machine's order, kept (and freed) with pd;
       its magic is not looked at again (a hostile file can swap it back) */
    if (lgp_perf_swap(name, bytes, n, &pd->swapped, err) != 0)
      return -1;
    pd->bytes = pd->swapped;
  } else if (magic != MAGIC) {
    return lgp_fail(err, name, "not a perf.data file");
  }
  hsize = lgp_perf_u64(pd->bytes + 8);
  if (hsize == PIPE_HEADER) {
    /* the attrs and features are records at the start of the stream */
    size_t pos = 0;
    lgp_perf_record rec;
    int rc;
    pd->pipe = 1;
    pd->data_start = PIPE_HEADER;
    pd->data_end = n;
    while ((rc = lgp_perf_next(pd, &pos, &rec, err)) == 1)
      if (pipe_record(pd, &rec, err) != 0)
        return -1;
    if (rc < 0)
      return -1;
    memset(pd->record_counts, 0, sizeof pd->record_counts);
    pd->other_records = 0;
    /* truncation is seen again by whoever reads the records */
    pd->truncated = 0;
  } else if (read_file_header(pd, err) != 0) {
    return -1;
  }
  if (pd->nattrs == 0)
    return lgp_fail(err, name, "perf.data file without events");
  if (id_index_build(pd, err) != 0)
    return -1;
  return records ? expand(pd, err) : 0;
}

int lgp_perf_open_bytes(lgp_perf_data *pd, const char *name, const uint8_t *bytes, size_t n,
                        lgp_err *err) {
  return open_bytes(pd, name, bytes, n, 1, err);
}

/* `perf record --threads -o DIR`: DIR/data (header, attrs, features and
** the records synthesized at start), then DIR/data.0, data.1, ... (bare
** record streams, one per writer thread), read as one stream; readers
** order records by time. */
static int open_dir(lgp_perf_data *pd, const char *path, lgp_err *err) {
  size_t len = strlen(path);
  char *name = malloc(len + 32);
  lgp_blob blob;
  expander x;
  unsigned k;
  memset(pd, 0, sizeof *pd);
  memset(&x, 0, sizeof x);
  if (!name)
    return lgp_fail(err, path, "out of memory");
  snprintf(name, len + 32, "%s/data", path);
  if (lgp_gmon_blob_load(&blob, name, err) != 0) {
    free(name);
    return -1;
  }
  if (open_bytes(pd, path, blob.data, blob.size, 0, err) != 0) {
    lgp_gmon_blob_free(&blob);
    goto fail;
  }
  pd->blob = blob;
  if (expander_init(&x, pd, err) != 0 || expand_stream(&x, pd) != 0)
    goto fail;
  for (k = 0;; k++) {
    lgp_perf_data part;
    struct stat st;
    int rc;
    snprintf(name, len + 32, "%s/data.%u", path, k);
    if (stat(name, &st) != 0)
      break;
    if (lgp_gmon_blob_load(&blob, name, err) != 0)
      goto fail;
    memset(&part, 0, sizeof part);
    part.path = name;
    part.bytes = blob.data;
    part.size = blob.size;
    part.data_end = blob.size;
    /* a stream of the other byte order, turned by the attrs of data */
    if (pd->swapped && lgp_perf_swap_stream(name, pd->blob.data, pd->blob.size, blob.data,
                                            blob.size, &part.swapped, err) != 0) {
      lgp_gmon_blob_free(&blob);
      goto fail;
    }
    if (part.swapped)
      part.bytes = part.swapped;
    limit_add(&x, blob.size);
    rc = expand_stream(&x, &part);
    free(part.swapped);
    lgp_gmon_blob_free(&blob);
    if (rc != 0)
      goto fail;
  }
  if (k == 0) {
    lgp_fail(err, path, "a directory without data.0 (perf record --threads writes data and "
             "data.0, data.1, ...)");
    goto fail;
  }
  free(name);
  expander_finish(&x, pd);
  return 0;
fail:
  free(name);
  expander_free(&x);
  lgp_perf_close(pd);
  return -1;
}

int lgp_perf_open(lgp_perf_data *pd, const char *path, lgp_err *err) {
  lgp_blob blob;
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return open_dir(pd, path, err);
  if (lgp_gmon_blob_load(&blob, path, err) != 0)
    return -1;
  if (lgp_perf_open_bytes(pd, path, blob.data, blob.size, err) != 0) {
    lgp_perf_close(pd);
    lgp_gmon_blob_free(&blob);
    return -1;
  }
  pd->blob = blob;
  return 0;
}

int lgp_perf_next(lgp_perf_data *pd, size_t *pos, lgp_perf_record *rec, lgp_err *err) {
  size_t at = *pos ? *pos : pd->data_start, left;
  const uint8_t *p;
  (void)err;
  if (at >= pd->data_end) {
    if (pd->cut_short) {
      pd->truncated = 1;
      pd->truncated_at = pd->data_end;
    }
    return 0;
  }
  left = pd->data_end - at;
  p = pd->bytes + at;
  if (left < 8) {
    pd->truncated = 1;
    pd->truncated_at = at;
    return 0;
  }
  rec->type = u32_at(p);
  rec->misc = u16_at(p + 4);
  rec->size = u16_at(p + 6);
  if (rec->size < 8 || rec->size > left) {
    /* a record cut short, or garbage where one should be: the stream ends
       at the last whole record */
    pd->truncated = 1;
    pd->truncated_at = at;
    return 0;
  }
  rec->offset = at;
  rec->body = p + 8;
  rec->body_len = rec->size - 8u;
  at += rec->size;
  /* payloads not counted in the record's size */
  if (rec->type == LGP_PERF_AUXTRACE && rec->body_len >= 8) {
    uint64_t extra = lgp_perf_u64(rec->body);
    if (extra > pd->data_end - at) {
      pd->truncated = 1;
      pd->truncated_at = rec->offset;
      return 0;
    }
    at += (size_t)extra;
  } else if (rec->type == LGP_PERF_HEADER_TRACING_DATA && rec->body_len >= 4) {
    uint64_t extra = ((uint64_t)u32_at(rec->body) + 7) & ~(uint64_t)7;
    if (extra > pd->data_end - at) {
      pd->truncated = 1;
      pd->truncated_at = rec->offset;
      return 0;
    }
    at += (size_t)extra;
  }
  if (rec->type < LGP_PERF_RECORD_TYPES)
    pd->record_counts[rec->type]++;
  else
    pd->other_records++;
  *pos = at;
  return 1;
}

/* Position of the event id in a SAMPLE (-1: none) and, counted back from
** the end of other records, in their trailer (0: none). */
static int sample_id_slot(uint64_t st) {
  if (st & LGP_PS_IDENTIFIER)
    return 0;
  if (!(st & LGP_PS_ID))
    return -1;
  return !!(st & LGP_PS_IP) + !!(st & LGP_PS_TID) + !!(st & LGP_PS_TIME) + !!(st & LGP_PS_ADDR);
}

static int trailer_id_slot(uint64_t st) {
  if (st & LGP_PS_IDENTIFIER)
    return 1;
  if (!(st & LGP_PS_ID))
    return 0;
  return 1 + !!(st & LGP_PS_CPU) + !!(st & LGP_PS_STREAM_ID);
}

/* The first attr that has id (the first attr when none has). */
static size_t attr_of_id(const lgp_perf_data *pd, uint64_t id) {
  return lgp_perf_idattr_find(pd->id_index, pd->nid_index, id);
}

size_t lgp_perf_record_attr(const lgp_perf_data *pd, const lgp_perf_record *rec) {
  uint64_t st;
  if (pd->nattrs <= 1)
    return 0;
  /* perf makes the id's position the same for every attr */
  st = pd->attrs[0].sample_type;
  if (rec->type == LGP_PERF_SAMPLE) {
    int slot = sample_id_slot(st);
    if (slot < 0 || rec->body_len < 8u * (size_t)(slot + 1))
      return 0;
    return attr_of_id(pd, lgp_perf_u64(rec->body + 8 * slot));
  }
  if (rec->type < 64 && (pd->attrs[0].flags & LGP_PERF_ATTR_SAMPLE_ID_ALL)) {
    int slot = trailer_id_slot(st);
    if (slot == 0 || rec->body_len < 8u * (size_t)slot)
      return 0;
    return attr_of_id(pd, lgp_perf_u64(rec->body + rec->body_len - 8 * (size_t)slot));
  }
  return 0;
}

/* The trailer of a non-sample kernel record: decoded backwards from the
** end; *body_len is cut to what precedes it. */
static void sample_id_decode(const lgp_perf_attr *a, const uint8_t *body, size_t *body_len,
                             lgp_perf_sample_id *sid) {
  uint64_t st = a->sample_type;
  size_t n = 0, end;
  memset(sid, 0, sizeof *sid);
  if (!(a->flags & LGP_PERF_ATTR_SAMPLE_ID_ALL))
    return;
  n = (size_t)(!!(st & LGP_PS_TID) + !!(st & LGP_PS_TIME) + !!(st & LGP_PS_ID)
               + !!(st & LGP_PS_STREAM_ID) + !!(st & LGP_PS_CPU) + !!(st & LGP_PS_IDENTIFIER));
  if (*body_len < 8 * n)
    return;
  end = *body_len;
  *body_len -= 8 * n;
  if (st & LGP_PS_IDENTIFIER) { end -= 8; sid->id = lgp_perf_u64(body + end); }
  if (st & LGP_PS_CPU) { end -= 8; sid->cpu = u32_at(body + end); }
  if (st & LGP_PS_STREAM_ID) { end -= 8; sid->stream_id = lgp_perf_u64(body + end); }
  if (st & LGP_PS_ID) { end -= 8; sid->id = lgp_perf_u64(body + end); }
  if (st & LGP_PS_TIME) { end -= 8; sid->time = lgp_perf_u64(body + end); sid->has_time = 1; }
  if (st & LGP_PS_TID) {
    end -= 8;
    sid->pid = u32_at(body + end);
    sid->tid = u32_at(body + end + 4);
    sid->has_tid = 1;
  }
}

static int popcount64(uint64_t v) {
  int n = 0;
  while (v) {
    v &= v - 1;
    n++;
  }
  return n;
}

int lgp_perf_sample_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                           lgp_perf_sample *s, lgp_err *err) {
  const lgp_perf_attr *a;
  uint64_t st;
  cursor c = { rec->body, rec->body + rec->body_len };
  const uint8_t *p;
  uint64_t v;
  memset(s, 0, sizeof *s);
  s->attr = lgp_perf_record_attr(pd, rec);
  a = &pd->attrs[s->attr];
  st = a->sample_type;
  s->cpumode = rec->misc & 7;
  s->period = a->period_or_freq;
#define NEED(x) do { if ((x) != 0) goto short_sample; } while (0)
  if (st & LGP_PS_IDENTIFIER) NEED(take_u64(&c, &s->id));
  if (st & LGP_PS_IP) NEED(take_u64(&c, &s->ip));
  if (st & LGP_PS_TID) {
    NEED(take(&c, 8, &p));
    s->pid = u32_at(p);
    s->tid = u32_at(p + 4);
  }
  if (st & LGP_PS_TIME) NEED(take_u64(&c, &s->time));
  if (st & LGP_PS_ADDR) NEED(take_u64(&c, &s->addr));
  if (st & LGP_PS_ID) NEED(take_u64(&c, &s->id));
  if (st & LGP_PS_STREAM_ID) NEED(take_u64(&c, &s->stream_id));
  if (st & LGP_PS_CPU) {
    NEED(take(&c, 8, &p));
    s->cpu = u32_at(p);
  }
  if (st & LGP_PS_PERIOD) {
    NEED(take_u64(&c, &s->period));
    s->has_period = 1;
  }
  if (st & LGP_PS_READ) {
    uint64_t rf = a->read_format, nr = 1, per;
    per = 1 + !!(rf & 4) + !!(rf & 16);     /* value, [id], [lost] */
    if (rf & 8)
      NEED(take_u64(&c, &nr));              /* GROUP: nr first */
    v = !!(rf & 1) + !!(rf & 2);            /* time enabled, running */
    if (nr > (uint64_t)(c.end - c.p) / 8 / per)
      goto short_sample;
    NEED(take(&c, (size_t)(v + nr * per) * 8, &p));
  }
  if (st & LGP_PS_CALLCHAIN) {
    NEED(take_u64(&c, &s->nchain));
    if (s->nchain > (uint64_t)(c.end - c.p) / 8)
      goto short_sample;
    NEED(take(&c, (size_t)s->nchain * 8, &s->chain));
  }
  if (st & LGP_PS_RAW) {
    NEED(take_u32(&c, &s->raw_size));
    NEED(take(&c, s->raw_size, &s->raw));
  }
  if (st & LGP_PS_BRANCH_STACK) {
    NEED(take_u64(&c, &s->nbranch));
    if (a->branch_sample_type & (1u << 17))
      NEED(take_u64(&c, &v));               /* hw_idx */
    if (s->nbranch > (uint64_t)(c.end - c.p) / 24)
      goto short_sample;
    NEED(take(&c, (size_t)s->nbranch * 24, &s->branches));
  }
  if (st & LGP_PS_REGS_USER) {
    NEED(take_u64(&c, &s->regs_abi));
    if (s->regs_abi != 0) {
      s->nregs = (uint64_t)popcount64(a->sample_regs_user);
      NEED(take(&c, (size_t)s->nregs * 8, &s->regs));
    }
  }
  if (st & LGP_PS_STACK_USER) {
    NEED(take_u64(&c, &s->stack_size));
    if (s->stack_size != 0) {
      if (s->stack_size > (uint64_t)(c.end - c.p))
        goto short_sample;
      NEED(take(&c, (size_t)s->stack_size, &s->stack));
      NEED(take_u64(&c, &s->stack_dyn_size));
      if (s->stack_dyn_size > s->stack_size)
        s->stack_dyn_size = s->stack_size;
    }
  }
  if (st & (LGP_PS_WEIGHT | LGP_PS_WEIGHT_STRUCT)) NEED(take_u64(&c, &v));
  if (st & LGP_PS_DATA_SRC) NEED(take_u64(&c, &v));
  if (st & LGP_PS_TRANSACTION) NEED(take_u64(&c, &v));
  if (st & LGP_PS_REGS_INTR) {
    NEED(take_u64(&c, &v));
    if (v != 0)
      NEED(take(&c, (size_t)popcount64(a->sample_regs_intr) * 8, &p));
  }
  if (st & LGP_PS_PHYS_ADDR) NEED(take_u64(&c, &v));
  if (st & LGP_PS_CGROUP) NEED(take_u64(&c, &v));
  if (st & LGP_PS_DATA_PAGE_SIZE) NEED(take_u64(&c, &v));
  if (st & LGP_PS_CODE_PAGE_SIZE) NEED(take_u64(&c, &v));
  if (st & LGP_PS_AUX) {
    NEED(take_u64(&c, &v));
    if (v > (uint64_t)(c.end - c.p))
      goto short_sample;
    NEED(take(&c, (size_t)v, &p));
  }
#undef NEED
  if (c.p != c.end)
    return lgp_fail(err, pd->path, "offset %zu: a sample of %u bytes whose fields take %zu",
                    rec->offset, rec->size, (size_t)(c.p - rec->body) + 8);
  return 0;
short_sample:
  return lgp_fail(err, pd->path, "offset %zu: a sample of %u bytes is cut short", rec->offset,
                  rec->size);
}

/* A NUL-terminated string at p within len bytes, else NULL. */
static const char *string_in(const uint8_t *p, size_t len) {
  return memchr(p, '\0', len) ? (const char *)p : NULL;
}

int lgp_perf_mmap_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                         lgp_perf_mmap *m, lgp_err *err) {
  const lgp_perf_attr *a = &pd->attrs[lgp_perf_record_attr(pd, rec)];
  size_t len = rec->body_len, fixed;
  const uint8_t *b = rec->body;
  memset(m, 0, sizeof *m);
  sample_id_decode(a, b, &len, &m->sid);
  fixed = rec->type == LGP_PERF_MMAP2 ? 64 : 32;
  if (len <= fixed)
    return lgp_fail(err, pd->path, "offset %zu: mapping record of %u bytes", rec->offset,
                    rec->size);
  m->pid = u32_at(b);
  m->tid = u32_at(b + 4);
  m->start = lgp_perf_u64(b + 8);
  m->len = lgp_perf_u64(b + 16);
  m->pgoff = lgp_perf_u64(b + 24);
  if (rec->type == LGP_PERF_MMAP2) {
    if (rec->misc & 0x4000) {
      m->has_buildid = 1;
      m->buildid_len = b[32] <= 20 ? b[32] : 20;
      memcpy(m->buildid, b + 36, 20);
    }
    m->prot = u32_at(b + 56);
    m->flags = u32_at(b + 60);
  } else {
    m->prot = (rec->misc & 0x2000) ? 1 : 5;  /* MMAP_DATA: not executable */
  }
  m->filename = string_in(b + fixed, len - fixed);
  if (!m->filename)
    return lgp_fail(err, pd->path, "offset %zu: mapping record without a file name", rec->offset);
  return 0;
}

int lgp_perf_task_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                         lgp_perf_task *t, lgp_err *err) {
  const lgp_perf_attr *a = &pd->attrs[lgp_perf_record_attr(pd, rec)];
  size_t len = rec->body_len;
  const uint8_t *b = rec->body;
  memset(t, 0, sizeof *t);
  sample_id_decode(a, b, &len, &t->sid);
  if (rec->type == LGP_PERF_COMM) {
    if (len <= 8 || !(t->comm = string_in(b + 8, len - 8)))
      return lgp_fail(err, pd->path, "offset %zu: COMM record of %u bytes", rec->offset,
                      rec->size);
    t->pid = u32_at(b);
    t->tid = u32_at(b + 4);
    t->time = t->sid.time;
    return 0;
  }
  if (len < 24)
    return lgp_fail(err, pd->path, "offset %zu: task record of %u bytes", rec->offset, rec->size);
  t->pid = u32_at(b);
  t->ppid = u32_at(b + 4);
  t->tid = u32_at(b + 8);
  t->ptid = u32_at(b + 12);
  t->time = lgp_perf_u64(b + 16);
  return 0;
}

int lgp_perf_switch_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                           lgp_perf_switch *sw, lgp_err *err) {
  const lgp_perf_attr *a = &pd->attrs[lgp_perf_record_attr(pd, rec)];
  size_t len = rec->body_len;
  memset(sw, 0, sizeof *sw);
  sample_id_decode(a, rec->body, &len, &sw->sid);
  if (!sw->sid.has_tid || !sw->sid.has_time)
    return lgp_fail(err, pd->path, "offset %zu: a switch record without thread or time",
                    rec->offset);
  if (rec->type == LGP_PERF_SWITCH_CPU_WIDE) {
    if (len < 8)
      return lgp_fail(err, pd->path, "offset %zu: switch record of %u bytes", rec->offset,
                      rec->size);
    sw->next_prev_pid = u32_at(rec->body);
    sw->next_prev_tid = u32_at(rec->body + 4);
  }
  sw->out = (rec->misc & 0x2000) != 0;
  sw->preempt = sw->out && (rec->misc & 0x4000) != 0;
  return 0;
}

int lgp_perf_buildid_record(lgp_perf_data *pd, const lgp_perf_record *rec, lgp_err *err) {
  /* the entry is the whole record, its header included */
  return buildid_add(pd, rec->body - 8, rec->size, err);
}

uint64_t lgp_perf_lost_count(const lgp_perf_record *rec) {
  if (rec->type == LGP_PERF_LOST && rec->body_len >= 16)
    return lgp_perf_u64(rec->body + 8);
  if (rec->type == LGP_PERF_LOST_SAMPLES && rec->body_len >= 8)
    return lgp_perf_u64(rec->body);
  return 0;
}

const char *lgp_perf_attr_name(const lgp_perf_attr *a, char *buf, size_t n) {
  static const char *const software[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
    "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
  };
  static const char *const hardware[] = {
    "cycles", "instructions", "cache-references", "cache-misses", "branches",
    "branch-misses", "bus-cycles",
  };
  if (a->name)
    return a->name;
  if (a->type == 1 && a->config < sizeof software / sizeof *software)
    return software[a->config];
  if (a->type == 0 && a->config < sizeof hardware / sizeof *hardware)
    return hardware[a->config];
  snprintf(buf, n, "event %u:0x%llx", a->type, (unsigned long long)a->config);
  return buf;
}
