/*
** gmon.c: gmon.out files in the GNU tagged format (versions 0 and 1) and
** the two BSD formats, detected as gprof detects them, and glibc's
** LD_PROFILE files (below). Every size or count read from a file is
** checked against the bytes that are really left before anything is
** allocated or looped over.
**
** An LD_PROFILE file (LD_PROFILE=libfoo.so LD_PROFILE_OUTPUT=DIR makes the
** dynamic loader write DIR/libfoo.so.profile) profiles one shared library.
** It is a fixed-size image the loader maps and updates in place, laid out
** as found by experiment (glibc 2.36, x86_64 and the analogue for 32-bit
** addresses); every field is in the machine's byte order, addresses are as
** wide as the library's, nothing is padded:
**   "gmon"                   4 bytes
**   version 0x0001ffff       u32 (gprof knows only 0 and 1, and refuses it)
**   spare                    12 bytes
**   tag 0 (histogram)        u32, where a gmon.out has one byte
**   low_pc, high_pc          addresses: the library's executable segment,
**                            page-aligned, as ELF (link-time) addresses
**   hist_size                u32: number of 16-bit bins
**   prof_rate                u32: samples per second
**   dimen, dimen_abbrev      15 bytes and 1, as in gmon.out
**   bins                     hist_size u16 sample counts over [low_pc, high_pc)
**   tag 1 (call graph)       u32
**   narcs                    u32: arc records in use
**   arc records              {from_pc, self_pc: addresses; count: u32}, as
**                            many as the file has room for (the loader
**                            preallocates them, zero-filled); the first
**                            narcs are in use
** An arc's pcs are offsets from low_pc at run time (the segment's load
** address), so low_pc plus an offset is the library's ELF address. The
** loader records only calls through the library's PLT slots and sets
** from_pc to 0 for a caller outside the library (no call can return to
** offset 0, where no call instruction precedes): such arcs come from
** LGP_LDPROFILE_EXTERNAL.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/gmon.h"
#include "util/bytes.h"

#define GMON_TAG_TIME_HIST 0
#define GMON_TAG_CG_ARC 1
#define GMON_TAG_BB_COUNT 2
#define BSD44_VERSION 0x00051879u
#define LDPROFILE_TAG_SIZE 4
/* What a file that is no gmon.out at all is called (random bytes, an
** executable, text, an empty file). */
#define NOT_GMON_MSG "not a gmon.out file (GNU, 4.4BSD or old BSD)"

/* {====================================================== loading files */

static int slurp(lgp_blob *b, int fd, const char *path, lgp_err *err) {
  unsigned char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    ssize_t n;
    if (lgp_grow((void **)&buf, &cap, len + 65536, 1) != 0) {
      free(buf);
      return lgp_fail(err, path, "out of memory");
    }
    n = read(fd, buf + len, cap - len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      free(buf);
      return lgp_fail(err, path, "%s", strerror(errno));
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  b->data = buf;
  b->mem = buf;
  b->size = len;
  b->mapped = 0;
  return 0;
}

int lgp_gmon_blob_load(lgp_blob *b, const char *path, lgp_err *err) {
  struct stat st;
  int fd, rc = 0;
  memset(b, 0, sizeof *b);
  if (strcmp(path, "-") == 0)
    return slurp(b, 0, "-", err);
  /* O_NONBLOCK: a FIFO without a writer must not block the open; it then
     reads as empty (a FIFO with a writer is read in blocking mode below) */
  fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0)
    return lgp_fail(err, path, "%s", strerror(errno));
  if (fstat(fd, &st) != 0) {
    rc = lgp_fail(err, path, "%s", strerror(errno));
  } else if (S_ISDIR(st.st_mode)) {
    rc = lgp_fail(err, path, "is a directory");
  } else if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void *p;
    if ((uint64_t)st.st_size > SIZE_MAX) {
      rc = lgp_fail(err, path, "file too large");
    } else {
      p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        rc = lgp_fail(err, path, "%s", strerror(errno));
      } else {
        b->data = p;
        b->mem = p;
        b->size = (size_t)st.st_size;
        b->mapped = 1;
      }
    }
  } else if (S_ISREG(st.st_mode)) {
    b->data = NULL; /* empty file */
    b->size = 0;
  } else {
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
      (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    rc = slurp(b, fd, path, err); /* FIFO, character device, ... */
  }
  close(fd);
  return rc;
}

void lgp_gmon_blob_free(lgp_blob *b) {
  if (b->mapped)
    munmap(b->mem, b->size);
  else
    free(b->mem);
  memset(b, 0, sizeof *b);
}

/* }====================================================== */

/* {====================================================== decoding */

typedef struct reader {
  const unsigned char *p;
  size_t left;
  int big, abytes;
} reader;

static uint64_t get_addr(const unsigned char *p, int abytes, int big) {
  return abytes == 8 ? lgp_bytes_u64(p, big) : lgp_bytes_u32(p, big);
}

static const unsigned char *take(reader *r, size_t n) {
  const unsigned char *p = r->p;
  if (n > r->left)
    return NULL;
  r->p += n;
  r->left -= n;
  return p;
}

/* }====================================================== */

void lgp_gmon_init(lgp_gmon *g, int addr_bytes, int big_endian) {
  memset(g, 0, sizeof *g);
  g->addr_bytes = addr_bytes;
  g->big_endian = big_endian;
  strcpy(g->dimen, "seconds");
  g->abbrev = 's';
  g->bsd_hz = 100;
}

void lgp_gmon_free(lgp_gmon *g) {
  size_t i;
  for (i = 0; i < g->nhist; i++) {
    free(g->hist[i].idx);
    free(g->hist[i].cnt);
  }
  free(g->hist);
  free(g->bb);
  for (i = 0; i < g->nfiles; i++)
    free(g->files[i].path);
  free(g->files);
  memset(g, 0, sizeof *g);
}

/* Finds the record for [low, high) or makes one; rejects overlaps. */
static lgp_hist *hist_record(lgp_gmon *g, const char *path, lgp_addr low,
                             lgp_addr high, uint32_t nbins, lgp_err *err) {
  size_t i;
  lgp_hist *h;
  for (i = 0; i < g->nhist; i++) {
    h = &g->hist[i];
    if (h->low == low && h->high == high) {
      if (h->nbins != nbins) {
        lgp_fail(err, path, "histogram record has %u bins where an earlier "
                 "one for the same range had %u", nbins, h->nbins);
        return NULL;
      }
      return h;
    }
    if (low < h->high && high > h->low) {
      lgp_fail(err, path, "overlapping histogram records");
      return NULL;
    }
  }
  if (lgp_grow((void **)&g->hist, &g->hist_cap, g->nhist + 1, sizeof *g->hist) != 0) {
    lgp_fail(err, path, "out of memory");
    return NULL;
  }
  h = &g->hist[g->nhist];
  memset(h, 0, sizeof *h);
  h->low = low;
  h->high = high;
  h->nbins = nbins;
  g->nhist++;
  return h;
}

/* Checks a histogram header and merges its settings; returns the record. */
static lgp_hist *hist_begin(lgp_gmon *g, const char *path, lgp_addr low,
                            lgp_addr high, uint32_t nbins, uint32_t rate,
                            const char *dimen, char abbrev, lgp_err *err) {
  double scale;
  if (low > high) {
    lgp_fail(err, path, "corrupt histogram: low address 0x%llx is above "
             "high address 0x%llx", (unsigned long long)low, (unsigned long long)high);
    return NULL;
  }
  if (nbins == 0) {
    lgp_fail(err, path, "corrupt histogram: no bins");
    return NULL;
  }
  if (rate == 0) {
    lgp_fail(err, path, "corrupt histogram: profiling rate is 0");
    return NULL;
  }
  /* gprof: 2-byte units per bin, the span divided by 2 in integers first */
  scale = (double)((high - low) / 2) / nbins;
  if (!g->have_hist) {
    g->have_hist = 1;
    g->hz = rate;
    g->hist_scale = scale;
    memcpy(g->dimen, dimen, 15);
    g->dimen[15] = '\0';
    g->abbrev = abbrev;
  } else {
    double d = g->hist_scale - scale;
    if (strncmp(g->dimen, dimen, 15) != 0) {
      lgp_fail(err, path, "dimension unit changed between histogram records");
      return NULL;
    }
    if (g->abbrev != abbrev) {
      lgp_fail(err, path, "dimension abbreviation changed between histogram records");
      return NULL;
    }
    if (d > 0.000001 || d < -0.000001) {
      lgp_fail(err, path, "histogram scale changed between histogram records");
      return NULL;
    }
  }
  return hist_record(g, path, low, high, nbins, err);
}

/* Adds n raw 16-bit bins to h: the new samples are merged into the
** sparse lists (one pass over both). */
static int hist_add_bins(lgp_gmon *g, lgp_hist *h, const unsigned char *p, uint32_t n) {
  size_t nz = 0, a, b, k;
  uint32_t i, *idx;
  uint64_t *cnt;
  for (i = 0; i < n; i++) {
    if (i + 4 <= n) { /* skip runs of empty bins 4 at a time */
      uint64_t w;
      memcpy(&w, p + 2 * (size_t)i, 8);
      if (w == 0) {
        i += 3;
        continue;
      }
    }
    nz += lgp_bytes_u16(p + 2 * (size_t)i, g->big_endian) != 0;
  }
  if (nz == 0)
    return 0;
  idx = lgp_alloc_array(h->nnz + nz, sizeof *idx);
  cnt = lgp_alloc_array(h->nnz + nz, sizeof *cnt);
  if (idx == NULL || cnt == NULL) {
    free(idx);
    free(cnt);
    return -1;
  }
  for (i = 0, a = 0, k = 0; i < n; i++) {
    uint64_t v;
    if (i + 4 <= n) {
      uint64_t w;
      memcpy(&w, p + 2 * (size_t)i, 8);
      if (w == 0) {
        i += 3;
        continue;
      }
    }
    v = lgp_bytes_u16(p + 2 * (size_t)i, g->big_endian);
    if (v == 0)
      continue;
    while (a < h->nnz && h->idx[a] < i) {
      idx[k] = h->idx[a];
      cnt[k++] = h->cnt[a++];
    }
    if (a < h->nnz && h->idx[a] == i)
      v += h->cnt[a++];
    idx[k] = i;
    cnt[k++] = v;
  }
  for (b = a; b < h->nnz; b++) {
    idx[k] = h->idx[b];
    cnt[k++] = h->cnt[b];
  }
  free(h->idx);
  free(h->cnt);
  h->idx = idx;
  h->cnt = cnt;
  h->nnz = k;
  return 0;
}

static int add_file(lgp_gmon *g, const char *path, int version, lgp_err *err) {
  lgp_gmon_file *f;
  if (lgp_grow((void **)&g->files, &g->files_cap, g->nfiles + 1, sizeof *g->files) != 0)
    return lgp_fail(err, path, "out of memory");
  f = &g->files[g->nfiles];
  memset(f, 0, sizeof *f);
  f->path = lgp_strdup(path);
  if (f->path == NULL)
    return lgp_fail(err, path, "out of memory");
  f->version = version;
  g->nfiles++;
  return 0;
}

/* The bytes of a histogram's header after its tag: low and high pc, the
** number of bins, the rate, the dimension and its abbreviation. */
static size_t hist_header_size(const reader *r) {
  return 2 * (size_t)r->abytes + 8 + 16;
}

/* A histogram after its tag: its header and bins, into g and counted in
** f; *low_pc: its low pc. The messages name it as truncated (for a short
** header) and what (for bins past the end) say. */
static int read_hist(lgp_gmon *g, reader *r, const char *path, lgp_gmon_file *f,
                     lgp_addr *low_pc, const char *truncated, const char *what, lgp_err *err) {
  const unsigned char *p = take(r, hist_header_size(r));
  const unsigned char *bins;
  lgp_addr low, high;
  uint32_t nbins, rate;
  char dimen[16];
  lgp_hist *h;
  if (p == NULL)
    return lgp_fail(err, path, "%s", truncated);
  low = get_addr(p, r->abytes, r->big);
  high = get_addr(p + r->abytes, r->abytes, r->big);
  p += 2 * r->abytes;
  nbins = lgp_bytes_u32(p, r->big);
  rate = lgp_bytes_u32(p + 4, r->big);
  memcpy(dimen, p + 8, 15);
  dimen[15] = '\0';
  if ((uint64_t)nbins * 2 > r->left)
    return lgp_fail(err, path, "%s declares %u bins but only %zu bytes are left in the file",
                    what, nbins, r->left);
  bins = take(r, (size_t)nbins * 2);
  g->last_hist_high = high;
  g->last_hist_count = nbins;
  h = hist_begin(g, path, low, high, nbins, rate, dimen, (char)p[23], err);
  if (h == NULL)
    return -1;
  if (hist_add_bins(g, h, bins, nbins) != 0)
    return lgp_fail(err, path, "out of memory");
  f->nhist++;
  *low_pc = low;
  return 0;
}

static int read_tagged_bb(lgp_gmon *g, reader *r, const char *path, int version,
                          lgp_gmon_file *f, lgp_err *err) {
  const unsigned char *p = take(r, 4);
  uint32_t n, i;
  size_t per = 2 * (size_t)r->abytes;
  if (p == NULL)
    return lgp_fail(err, path, "truncated basic-block record");
  n = lgp_bytes_u32(p, r->big);
  if (version == 0) {
    /* version 0: a NUL-terminated name, then blocks of ncalls(8) addr(8)
       file name, function name (NUL-terminated) and a 4-byte line */
    const unsigned char *z = memchr(r->p, '\0', r->left);
    if (z == NULL)
      return lgp_fail(err, path, "truncated basic-block record");
    take(r, (size_t)(z - r->p) + 1);
    for (i = 0; i < n; i++) {
      const unsigned char *q = take(r, 16);
      int s;
      if (q == NULL)
        return lgp_fail(err, path, "truncated basic-block record");
      for (s = 0; s < 2; s++) {
        z = memchr(r->p, '\0', r->left);
        if (z == NULL)
          return lgp_fail(err, path, "truncated basic-block record");
        take(r, (size_t)(z - r->p) + 1);
      }
      if (take(r, 4) == NULL)
        return lgp_fail(err, path, "truncated basic-block record");
      if (lgp_grow((void **)&g->bb, &g->bb_cap, g->nbb + 1, sizeof *g->bb) != 0)
        return lgp_fail(err, path, "out of memory");
      g->bb[g->nbb].count = lgp_bytes_u64(q, r->big);
      g->bb[g->nbb].addr = lgp_bytes_u64(q + 8, r->big);
      g->nbb++;
    }
  } else {
    if ((uint64_t)n * per > r->left)
      return lgp_fail(err, path, "basic-block record declares %u blocks but only "
                      "%zu bytes are left in the file", n, r->left);
    if (lgp_grow((void **)&g->bb, &g->bb_cap, g->nbb + n, sizeof *g->bb) != 0)
      return lgp_fail(err, path, "out of memory");
    for (i = 0; i < n; i++) {
      p = take(r, per);
      g->bb[g->nbb].addr = get_addr(p, r->abytes, r->big);
      g->bb[g->nbb].count = get_addr(p + r->abytes, r->abytes, r->big);
      g->nbb++;
    }
  }
  g->have_bb = 1;
  f->nbb++;
  return 0;
}

/* What a sink's failure means (see lgp_arc_sink). */
static int sink_fail(lgp_err *err, const char *path, int rc) {
  if (rc == LGP_ARCS_FULL)
    return lgp_fail(err, path, LGP_ARCS_FULL_MSG, (unsigned long)LGP_ARCS_MAX);
  return lgp_fail(err, path, "out of memory");
}

/* The rest of an LD_PROFILE file, after its 20-byte header (see the top
** of this file). */
static int read_ldprofile(lgp_gmon *g, reader *r, const char *path, lgp_err *err) {
  size_t ab = (size_t)r->abytes, recsize = 2 * ab + 4;
  lgp_addr mask = ab == 4 ? UINT32_MAX : UINT64_MAX;
  const unsigned char *p;
  lgp_addr low;
  uint32_t tag, narcs, i;
  lgp_gmon_file *f;
  int rc;
  /* a short header is truncated whatever its tag says */
  if (r->left < LDPROFILE_TAG_SIZE + hist_header_size(r))
    return lgp_fail(err, path, "truncated LD_PROFILE histogram header");
  p = take(r, LDPROFILE_TAG_SIZE);
  tag = lgp_bytes_u32(p, r->big);
  if (tag != GMON_TAG_TIME_HIST)
    return lgp_fail(err, path, "corrupt LD_PROFILE file: histogram tag is %u, not %d",
                    tag, GMON_TAG_TIME_HIST);
  if (add_file(g, path, (int)LGP_LDPROFILE_VERSION, err) != 0)
    return -1;
  f = &g->files[g->nfiles - 1];
  if (read_hist(g, r, path, f, &low, "truncated LD_PROFILE histogram header",
                "LD_PROFILE histogram", err) != 0)
    return -1;
  p = take(r, 2 * LDPROFILE_TAG_SIZE);
  if (p == NULL)
    return lgp_fail(err, path, "truncated LD_PROFILE file: no call-graph header "
                    "after the histogram");
  tag = lgp_bytes_u32(p, r->big);
  if (tag != GMON_TAG_CG_ARC)
    return lgp_fail(err, path, "corrupt LD_PROFILE file: call-graph tag is %u, not %d",
                    tag, GMON_TAG_CG_ARC);
  narcs = lgp_bytes_u32(p + LDPROFILE_TAG_SIZE, r->big);
  if ((uint64_t)narcs * recsize > r->left)
    return lgp_fail(err, path, "LD_PROFILE file declares %u call-graph arcs but "
                    "only %zu bytes are left in the file", narcs, r->left);
  /* the records not in use fill the rest: whole records, or the file lies */
  if (r->left % recsize != 0)
    return lgp_fail(err, path, "corrupt LD_PROFILE file: the %zu bytes of arc "
                    "records are not whole %zu-byte records", r->left, recsize);
  g->have_cg = 1;
  for (i = 0; i < narcs; i++) {
    const unsigned char *a = take(r, recsize);
    lgp_addr from = get_addr(a, r->abytes, r->big);
    lgp_addr self = get_addr(a + ab, r->abytes, r->big);
    f->narcs++;
    g->narc_records++;
    /* the sums wrap as the library's addresses would */
    from = from == 0 ? LGP_LDPROFILE_EXTERNAL : (low + from) & mask;
    self = (low + self) & mask;
    if (g->sink != NULL &&
        (rc = g->sink(g->sink_ctx, from, self, lgp_bytes_u32(a + 2 * ab, r->big))) != 0)
      return sink_fail(err, path, rc);
  }
  return 0;
}

static int read_tagged(lgp_gmon *g, reader *r, const char *path, lgp_err *err) {
  const unsigned char *p = take(r, 20);
  int32_t version;
  int rc;
  lgp_gmon_file *f;
  lgp_addr low;
  if (p == NULL)
    return lgp_fail(err, path, "file too short to be a gmon file");
  if (memcmp(p, "gmon", 4) != 0)
    return lgp_fail(err, path, "not a gmon file (bad magic)");
  version = (int32_t)lgp_bytes_u32(p + 4, r->big);
  if ((uint32_t)version == LGP_LDPROFILE_VERSION)
    return read_ldprofile(g, r, path, err);
  if (version != 0 && version != 1)
    return lgp_fail(err, path, "unsupported gmon file version %d", (int)version);
  if (add_file(g, path, version, err) != 0)
    return -1;
  f = &g->files[g->nfiles - 1];
  while (r->left > 0) {
    int tag = *take(r, 1);
    switch (tag) {
    case GMON_TAG_TIME_HIST:
      if (read_hist(g, r, path, f, &low, "truncated histogram record", "histogram record",
                    err) != 0)
        return -1;
      break;
    case GMON_TAG_CG_ARC: {
      const unsigned char *a = take(r, 2 * (size_t)r->abytes + 4);
      if (a == NULL)
        return lgp_fail(err, path, "truncated call-graph record");
      f->narcs++;
      g->narc_records++;
      g->have_cg = 1;
      if (g->sink != NULL &&
          (rc = g->sink(g->sink_ctx, get_addr(a, r->abytes, r->big),
                        get_addr(a + r->abytes, r->abytes, r->big),
                        lgp_bytes_u32(a + 2 * r->abytes, r->big))) != 0)
        return sink_fail(err, path, rc);
      break;
    }
    case GMON_TAG_BB_COUNT:
      if (read_tagged_bb(g, r, path, version, f, err) != 0)
        return -1;
      break;
    default:
      return lgp_fail(err, path, "found bad tag %d (file corrupted?)", tag);
    }
  }
  return 0;
}

static int read_bsd(lgp_gmon *g, reader *r, const char *path, int format,
                    lgp_err *err) {
  static const char bsd_dimen[16] = "seconds"; /* hist_begin reads 15 bytes */
  size_t ab = (size_t)r->abytes;
  size_t hdr44 = 2 * ab + 4 + 4 + 4 + 12, hdrold = 2 * ab + 4;
  size_t hdrsize, arcsize = 3 * ab;
  const unsigned char *p = r->p;
  lgp_addr low, high;
  uint32_t ncnt, rate, nbins;
  int is44, rc;
  lgp_hist *h;
  if (r->left < hdrold)
    return lgp_fail(err, path, format == LGP_FMT_AUTO ? NOT_GMON_MSG
                    : "file too short to be a gmon file");
  low = get_addr(p, r->abytes, r->big);
  high = get_addr(p + ab, r->abytes, r->big);
  ncnt = lgp_bytes_u32(p + 2 * ab, r->big);
  is44 = r->left >= 2 * ab + 8 && lgp_bytes_u32(p + 2 * ab + 4, r->big) == BSD44_VERSION;
  if (format == LGP_FMT_BSD44 && !is44)
    return lgp_fail(err, path, "not a 4.4BSD gmon file");
  /* Guessed, not asked for: an old BSD file has no magic number, only a
  ** header whose sample buffer lies inside the file and whose range is in
  ** order. Anything else is no profile at all, and the sizes it seems to
  ** declare would mislead. A 4.4BSD version word does identify the file:
  ** its damage is reported in detail below. */
  if (format == LGP_FMT_AUTO && !is44 &&
      (ncnt < hdrold || (uint64_t)ncnt > r->left || low > high))
    return lgp_fail(err, path, NOT_GMON_MSG);
  if (is44) {
    if (r->left < hdr44)
      return lgp_fail(err, path, "file too short to be a gmon file");
    rate = lgp_bytes_u32(p + 2 * ab + 8, r->big);
    hdrsize = hdr44;
  } else {
    rate = g->bsd_hz;
    hdrsize = hdrold;
  }
  if (ncnt < hdrsize)
    return lgp_fail(err, path, "corrupt BSD gmon header: sample buffer size "
                    "%u is smaller than the header", ncnt);
  if ((uint64_t)ncnt > r->left)
    return lgp_fail(err, path, "BSD gmon header declares %u bytes of samples "
                    "but the file has only %zu", ncnt, r->left);
  nbins = (ncnt - (uint32_t)hdrsize) / 2;
  take(r, hdrsize);
  g->last_hist_high = high;
  g->last_hist_count = ncnt;
  if (g->have_hist && g->nhist > 0 && g->files[0].version < 0) {
    lgp_hist *first = &g->hist[0];
    if (first->low != low || first->high != high || first->nbins != nbins)
      return lgp_fail(err, path, "incompatible with first gmon file");
    if (g->hz != rate)
      return lgp_fail(err, path, "profiling rate incompatible with first gmon file");
  }
  if (add_file(g, path, -1, err) != 0)
    return -1;
  h = hist_begin(g, path, low, high, nbins, rate, bsd_dimen, 's', err);
  if (h == NULL)
    return -1;
  if (hist_add_bins(g, h, take(r, (ncnt - hdrsize) & ~(size_t)1), nbins) != 0)
    return lgp_fail(err, path, "out of memory");
  g->files[g->nfiles - 1].nhist = 1;
  g->have_cg = 1;
  /* raw arcs until the data ends; a trailing partial record is ignored */
  while (r->left >= arcsize) {
    const unsigned char *a = take(r, arcsize);
    g->files[g->nfiles - 1].narcs++;
    g->narc_records++;
    if (g->sink != NULL &&
        (rc = g->sink(g->sink_ctx, get_addr(a, r->abytes, r->big),
                      get_addr(a + ab, r->abytes, r->big),
                      get_addr(a + 2 * ab, r->abytes, r->big))) != 0)
      return sink_fail(err, path, rc);
  }
  return 0;
}

int lgp_gmon_is_ldprofile(const unsigned char *data, size_t size, int big_endian) {
  return size >= 8 && memcmp(data, "gmon", 4) == 0 &&
         lgp_bytes_u32(data + 4, big_endian) == LGP_LDPROFILE_VERSION;
}

int lgp_gmon_read_mem(lgp_gmon *g, const unsigned char *data, size_t size,
                      const char *path, int format, lgp_err *err) {
  reader r;
  int tagged;
  r.p = data;
  r.left = size;
  r.big = g->big_endian;
  r.abytes = g->addr_bytes;
  tagged = size >= 4 && memcmp(data, "gmon", 4) == 0;
  if (format == LGP_FMT_MAGIC || (format == LGP_FMT_AUTO && tagged))
    return read_tagged(g, &r, path, err);
  return read_bsd(g, &r, path, format, err);
}

int lgp_gmon_read(lgp_gmon *g, const char *path, int format, lgp_err *err) {
  lgp_blob b;
  int rc;
  if (lgp_gmon_blob_load(&b, path, err) != 0)
    return -1;
  rc = lgp_gmon_read_mem(g, b.data, b.size, path, format, err);
  lgp_gmon_blob_free(&b);
  return rc;
}

/* {====================================================== writing */

static void put_u32(lgp_gmon_writer *w, uint32_t v) {
  unsigned char b[4];
  int i;
  for (i = 0; i < 4; i++)
    b[w->big_endian ? 3 - i : i] = (unsigned char)(v >> (8 * i));
  lgp_out_mem(&w->out, (const char *)b, 4);
}

static void put_u16(lgp_gmon_writer *w, uint16_t v) {
  unsigned char b[2];
  b[w->big_endian ? 1 : 0] = (unsigned char)v;
  b[w->big_endian ? 0 : 1] = (unsigned char)(v >> 8);
  lgp_out_mem(&w->out, (const char *)b, 2);
}

static void put_addr(lgp_gmon_writer *w, uint64_t v) {
  if (w->addr_bytes == 8) {
    uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;
    put_u32(w, w->big_endian ? hi : lo);
    put_u32(w, w->big_endian ? lo : hi);
  } else {
    put_u32(w, (uint32_t)v);
  }
}

void lgp_gmon_write_header(lgp_gmon_writer *w, const lgp_gmon *g) {
  lgp_out_mem(&w->out, "gmon", 4);
  put_u32(w, 1);
  /* spare bytes: what gprof leaves there (see last_hist_high) */
  if (w->addr_bytes == 8) {
    put_addr(w, g->last_hist_high);
    put_u32(w, g->last_hist_count);
  } else {
    put_addr(w, g->last_hist_high);
    put_u32(w, g->last_hist_count);
    put_u32(w, 0);
  }
}

void lgp_gmon_write_hist(lgp_gmon_writer *w, const lgp_gmon *g) {
  size_t i;
  for (i = 0; i < g->nhist; i++) {
    const lgp_hist *h = &g->hist[i];
    uint64_t left, maxbin = 0;
    uint32_t j;
    size_t e;
    for (e = 0; e < h->nnz; e++)
      if (h->cnt[e] > maxbin)
        maxbin = h->cnt[e];
    /* bins hold 16 bits: sums beyond that go into repeated records */
    for (left = maxbin ? maxbin : 1; left > 0;) {
      uint64_t pass = left > 65535 ? 65535 : left;
      uint64_t done = maxbin > left ? maxbin - left : 0; /* already written */
      lgp_out_char(&w->out, GMON_TAG_TIME_HIST);
      put_addr(w, h->low);
      put_addr(w, h->high);
      put_u32(w, h->nbins);
      put_u32(w, g->hz);
      lgp_out_mem(&w->out, g->dimen, 15);
      lgp_out_char(&w->out, g->abbrev);
      for (j = 0, e = 0; j < h->nbins; j++) {
        uint64_t v = 0;
        if (e < h->nnz && h->idx[e] == j) {
          v = h->cnt[e] > done ? h->cnt[e] - done : 0;
          e++;
        }
        put_u16(w, (uint16_t)(v > pass ? pass : v));
      }
      left -= pass;
    }
  }
}

void lgp_gmon_write_arc(lgp_gmon_writer *w, lgp_addr from, lgp_addr self,
                        uint64_t count) {
  do {
    uint32_t part = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
    lgp_out_char(&w->out, GMON_TAG_CG_ARC);
    put_addr(w, from);
    put_addr(w, self);
    put_u32(w, part);
    count -= part;
  } while (count > 0);
}

void lgp_gmon_write_bb(lgp_gmon_writer *w, const lgp_gmon *g) {
  if (g->nbb != 0)
    lgp_gmon_write_bb_list(w, g->bb, g->nbb);
}

void lgp_gmon_write_bb_list(lgp_gmon_writer *w, const lgp_bbcount *bb, size_t n) {
  size_t i;
  lgp_out_char(&w->out, GMON_TAG_BB_COUNT);
  put_u32(w, (uint32_t)n);
  for (i = 0; i < n; i++) {
    put_addr(w, bb[i].addr);
    put_addr(w, bb[i].count);
  }
}

/* }====================================================== */

uint64_t lgp_gmon_sample_count(const lgp_gmon *g) {
  uint64_t sum = 0;
  size_t h, i;
  for (h = 0; h < g->nhist; h++)
    for (i = 0; i < g->hist[h].nnz; i++)
      sum += g->hist[h].cnt[i];
  return sum;
}
