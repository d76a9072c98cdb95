/*
** util.c: errors, checked allocation and the buffered writer.
*/
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux); guarded below */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/util.h"

int lgp_fail(lgp_err *e, const char *file, const char *fmt, ...) {
  va_list ap;
  size_t n = 0;
  if (e == NULL || e->set)
    return -1;
  e->set = 1;
  if (file != NULL) {
    snprintf(e->msg, sizeof e->msg, "%s: ", file);
    n = strlen(e->msg);
  }
  va_start(ap, fmt);
  vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
  va_end(ap);
  return -1;
}

#define BIG_ALLOC ((size_t)1 << 20)

/* Arrays of a megabyte or more are read at random (a million arcs) or are
** fresh memory each time (the temporaries of an analysis at 80,000 line
** symbols, which malloc maps and unmaps): on 2 MB pages they cost far fewer
** page faults and TLB misses. A hint only; the memory is freed with free()
** like any other. */
static void *big_alloc(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

void *lgp_alloc_array(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size)
    return NULL;
  if (n * size >= BIG_ALLOC)
    return big_alloc(n * size);
  return malloc(n == 0 || size == 0 ? 1 : n * size);
}

void *lgp_calloc_array(size_t n, size_t size) {
  void *p;
  if (size != 0 && n > SIZE_MAX / size)
    return NULL;
  if (n * size < BIG_ALLOC)
    return calloc(n ? n : 1, size ? size : 1);
  if ((p = big_alloc(n * size)) != NULL)
    memset(p, 0, n * size);
  return p;
}

/* The doubled capacity that holds need elements of size bytes, or 0 if it
** would overflow. */
static size_t grown_cap(size_t cap, size_t need, size_t size) {
  size_t ncap = cap ? cap : 16;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2)
      return 0;
    ncap *= 2;
  }
  return ncap > SIZE_MAX / size ? 0 : ncap;
}

/* lgp_grow and lgp_grow_aligned: big arrays always on their own pages
** (aligned); small ones with realloc, or 64-byte aligned when asked. */
static int grow(void **p, size_t *cap, size_t need, size_t size, int aligned) {
  size_t ncap;
  void *np = NULL;
  if (need <= *cap)
    return 0;
  if ((ncap = grown_cap(*cap, need, size)) == 0)
    return -1;
  if (!aligned && ncap * size < BIG_ALLOC) {
    if ((np = realloc(*p, ncap * size)) == NULL)
      return -1;
  } else {
    if (ncap * size >= BIG_ALLOC ? (np = big_alloc(ncap * size)) == NULL
                                 : posix_memalign(&np, 64, ncap * size) != 0)
      return -1;
    if (*p != NULL)
      memcpy(np, *p, *cap * size);
    free(*p);
  }
  *p = np;
  *cap = ncap;
  return 0;
}

int lgp_grow(void **p, size_t *cap, size_t need, size_t size) {
  return grow(p, cap, need, size, 0);
}

int lgp_grow_aligned(void **p, size_t *cap, size_t need, size_t size) {
  return grow(p, cap, need, size, 1);
}

char *lgp_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d != NULL)
    memcpy(d, s, n);
  return d;
}

/* After the passes of a sort between v and tmp, the result is in src:
** brings it home to v and frees tmp. Returns 0. */
static int end_passes(uint32_t *v, const uint32_t *src, size_t n, uint32_t *tmp) {
  if (src != v)
    memcpy(v, src, n * sizeof *v);
  free(tmp);
  return 0;
}

int lgp_radix_sort(uint32_t *idx, const uint64_t *keys, size_t n) {
  uint64_t varies = 0, first;
  uint32_t *tmp, *src = idx, *dst, count[2048];
  unsigned shift;
  size_t i;
  if (n < 2)
    return 0;
  /* the bits in which some key differs from the first: a digit where
     none does leaves the order as it is (keys such as file << 32 | line
     or addresses in one text section have long constant runs) */
  first = keys[idx[0]];
  for (i = 1; i < n; i++)
    varies |= keys[idx[i]] ^ first;
  if (varies == 0)
    return 0;
  tmp = lgp_alloc_array(n, sizeof *tmp);
  if (tmp == NULL)
    return -1;
  dst = tmp;
  /* each pass takes the 11 bits from the lowest varying bit not yet
     sorted: stable passes over disjoint windows, low to high */
  for (shift = 0; shift < 64 && (varies >> shift) != 0; shift += 11) {
    uint32_t sum = 0, *t;
    while (((varies >> shift) & 1) == 0)
      shift++;
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++)
      count[(keys[src[i]] >> shift) & 2047]++;
    for (i = 0; i < 2048; i++) {
      uint32_t c = count[i];
      count[i] = sum;
      sum += c;
    }
    for (i = 0; i < n; i++)
      dst[count[(keys[src[i]] >> shift) & 2047]++] = src[i];
    t = src;
    src = dst;
    dst = t;
  }
  return end_passes(idx, src, n, tmp);
}

int lgp_addr_order(uint32_t *idx, uint64_t *keys, const void *base, size_t n, size_t stride,
                   size_t off) {
  const unsigned char *b = base;
  size_t i;
  for (i = 0; i < n; i++) {
    lgp_addr k;
    memcpy(&k, b + i * stride + off, sizeof k);
    keys[i] = k;
    idx[i] = (uint32_t)i;
  }
  return lgp_radix_sort(idx, keys, n);
}

int lgp_sort_indices(uint32_t *v, size_t n, lgp_cmp_fn cmp, const void *ctx) {
  uint32_t *tmp, *src = v, *dst;
  size_t width;
  if (n < 2)
    return 0;
  if (n <= 16) { /* short lists (most of them): stable insertion sort */
    size_t i, j;
    for (i = 1; i < n; i++) {
      uint32_t x = v[i];
      for (j = i; j > 0 && cmp(ctx, x, v[j - 1]) < 0; j--)
        v[j] = v[j - 1];
      v[j] = x;
    }
    return 0;
  }
  tmp = lgp_alloc_array(n, sizeof *tmp);
  if (tmp == NULL)
    return -1;
  dst = tmp;
  for (width = 1; width < n; width *= 2) { /* bottom-up: no recursion */
    size_t lo;
    uint32_t *t;
    for (lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        dst[k++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid)
        dst[k++] = src[i++];
      while (j < hi)
        dst[k++] = src[j++];
    }
    t = src;
    src = dst;
    dst = t;
  }
  return end_passes(v, src, n, tmp);
}

/* {====================================================== buffered output */

/* 64 KB writes: the buffer stays in the cache and its pages are touched
   once (a megabyte cost a report of 3 MB 500 page faults); a report of
   175 MB is 2,700 system calls, a few milliseconds */
#define OUT_FLUSH_AT (1u << 16)

void lgp_out_init(lgp_out *o, FILE *f) {
  memset(o, 0, sizeof *o);
  o->f = f;
}

void lgp_out_free(lgp_out *o) {
  free(o->buf);
  o->buf = NULL;
  o->len = o->cap = o->limit = 0;
}

int lgp_out_flush(lgp_out *o) {
  if (o->f != NULL && o->len > 0) {
    if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
      o->failed = 1;
      o->limit = 0;
    }
    o->len = 0;
  }
  return o->failed ? -1 : 0;
}

char *lgp_out_reserve_slow(lgp_out *o, size_t n) {
  if (o->failed)
    return NULL;
  if (o->f != NULL && o->len + n > OUT_FLUSH_AT)
    lgp_out_flush(o);
  if (o->len + n > o->cap) {
    void *p = o->buf;
    if (lgp_grow(&p, &o->cap, o->len + n, 1) != 0) {
      o->failed = 1;
      o->limit = 0;
      return NULL;
    }
    o->buf = p;
  }
  o->limit = o->f != NULL && o->cap > OUT_FLUSH_AT ? OUT_FLUSH_AT : o->cap;
  if (o->failed)
    o->limit = 0;
  return o->buf != NULL ? o->buf + o->len : NULL; /* NULL: n is 0, no buffer yet */
}

void lgp_out_mem(lgp_out *o, const char *s, size_t n) {
  char *p;
  if (n == 0) /* s and the buffer may be NULL then */
    return;
  p = lgp_out_reserve(o, n);
  if (p != NULL) {
    memcpy(p, s, n);
    o->len += n;
  }
}

void lgp_out_str(lgp_out *o, const char *s) { lgp_out_mem(o, s, strlen(s)); }

void lgp_out_char(lgp_out *o, char c) {
  char *p = lgp_out_reserve(o, 1);
  if (p != NULL) {
    *p = c;
    o->len++;
  }
}

void lgp_out_chars(lgp_out *o, char c, size_t n) {
  char *p = lgp_out_reserve(o, n);
  if (p != NULL) {
    memset(p, c, n);
    o->len += n;
  }
}

void lgp_out_printf(lgp_out *o, const char *fmt, ...) {
  char small[256];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    o->failed = 1;
    return;
  }
  if ((size_t)n < sizeof small) {
    lgp_out_mem(o, small, (size_t)n);
  } else {
    char *p = lgp_out_reserve(o, (size_t)n + 1);
    if (p == NULL)
      return;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->len += (size_t)n;
  }
}

void lgp_out_pad(lgp_out *o, const char *s, int w, int prec, int left) {
  size_t n = strlen(s);
  if (prec >= 0 && n > (size_t)prec)
    n = (size_t)prec;
  if (!left && (size_t)w > n)
    lgp_out_chars(o, ' ', (size_t)w - n);
  lgp_out_mem(o, s, n);
  if (left && (size_t)w > n)
    lgp_out_chars(o, ' ', (size_t)w - n);
}

/* Writes the decimal digits of v into the end of buf; returns the start.
** Two digits a division: reports print hundreds of thousands of numbers. */
static char *u64_digits(char *end, uint64_t v) {
  static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                              "25262728293031323334353637383940414243444546474849"
                              "50515253545556575859606162636465666768697071727374"
                              "75767778798081828384858687888990919293949596979899";
  char *p = end;
  while (v >= 100) {
    unsigned r = (unsigned)(v % 100);
    v /= 100;
    p -= 2;
    memcpy(p, pairs + 2 * r, 2);
  }
  if (v >= 10) {
    p -= 2;
    memcpy(p, pairs + 2 * v, 2);
  } else {
    *--p = (char)('0' + v);
  }
  return p;
}

void lgp_out_u64(lgp_out *o, uint64_t v, int w, int left) {
  char *p = lgp_out_reserve(o, (size_t)(w > 0 ? w : 0) + 24);
  if (p != NULL)
    o->len += lgp_fmt_u64(p, v, w, left);
}

/* Exact rounding of a finite non-negative double to prec (<= 6) decimals:
** v = m * 2^e, so v * 10^prec = m * 10^prec * 2^e, an exact integer
** product shifted right with the remainder deciding the rounding (ties
** to even, as glibc's printf does). Returns 0 if v is out of the fast
** range, leaving the job to snprintf. */
static int fixed_scaled(double v, int prec, uint64_t *out) {
  static const uint64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  uint64_t bits, m;
  int shift;
  unsigned __int128 p, q, r, half;
  if (v == 0) {
    *out = 0;
    return 1;
  }
  /* the IEEE fields read directly (frexp and ldexp are calls): v = m * 2^-shift */
  memcpy(&bits, &v, sizeof bits);
  m = bits & (((uint64_t)1 << 52) - 1);
  if ((bits >> 52 & 0x7ff) == 0) { /* subnormal */
    shift = 1074;
  } else {
    m |= (uint64_t)1 << 52;
    shift = 1075 - (int)(bits >> 52 & 0x7ff);
  }
  p = (unsigned __int128)m * pow10[prec];
  if (shift <= 0)
    return 0; /* v >= 2^53: leave it to snprintf */
  if (shift >= 120) {
    *out = 0; /* far below half a unit in the last place printed */
    return 1;
  }
  q = p >> shift;
  r = p & (((unsigned __int128)1 << shift) - 1);
  half = (unsigned __int128)1 << (shift - 1);
  if (r > half || (r == half && (q & 1)))
    q++;
  if (q > (unsigned __int128)UINT64_MAX / 2)
    return 0;
  *out = (uint64_t)q;
  return 1;
}

size_t lgp_fmt_fixed(char *dst, double v, int w, int prec) {
  static const uint64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  char buf[48];
  char *s, *end = buf + sizeof buf;
  uint64_t q;
  size_t n, pad;
  if (!(v >= 0) || signbit(v) || isinf(v) || prec < 0 || prec > 6 || w > 64 ||
      !fixed_scaled(v, prec, &q)) {
    int len = snprintf(dst, LGP_FIXED_MAX, "%*.*f", w, prec, v);
    return len < 0 ? 0 : (size_t)len < LGP_FIXED_MAX ? (size_t)len : LGP_FIXED_MAX - 1;
  }
  s = end;
  if (prec > 0) {
    uint64_t frac = q % pow10[prec];
    int i;
    for (i = 0; i < prec; i++) {
      *--s = (char)('0' + frac % 10);
      frac /= 10;
    }
    *--s = '.';
  }
  s = u64_digits(s, q / pow10[prec]);
  n = (size_t)(end - s);
  pad = (size_t)w > n ? (size_t)w - n : 0;
  memset(dst, ' ', pad);
  memcpy(dst + pad, s, n);
  return pad + n;
}

void lgp_out_fixed(lgp_out *o, double v, int w, int prec) {
  char *p = lgp_out_reserve(o, LGP_FIXED_MAX);
  if (p != NULL)
    o->len += lgp_fmt_fixed(p, v, w, prec);
}

size_t lgp_fmt_u64(char *dst, uint64_t v, int w, int left) {
  char buf[24];
  char *s = u64_digits(buf + sizeof buf, v);
  size_t n = (size_t)(buf + sizeof buf - s), pad = w > 0 && (size_t)w > n ? (size_t)w - n : 0;
  size_t i;
  /* byte loops: a few bytes each, shorter than calls to memset and memcpy */
  if (!left)
    for (i = 0; i < pad; i++)
      *dst++ = ' ';
  for (i = 0; i < n; i++)
    dst[i] = s[i];
  if (left)
    for (i = 0; i < pad; i++)
      dst[n + i] = ' ';
  return n + pad;
}

/* }====================================================== */
