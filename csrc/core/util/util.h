/*
** util.h: types and helpers every module of the core uses: errors,
** checked allocation, sorts and searches, prefetch hints, buffered
** output, numbers.
*/
#ifndef util_h
#define util_h

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t lgp_addr;

/* Binary searches over n records (stride bytes apart) ascending by the
** lgp_addr at byte offset off of each: how many have a key <= x
** (lgp_addr_count_le: the last one at or below x is the one before), or
** a key < x (lgp_addr_count_lt: the first one at or above x). Inline:
** symbol and line lookups run them per sample, and with a constant stride
** and offset the key's load is a plain one. */
static inline size_t lgp_addr_count_(const void *base, size_t n, size_t stride, size_t off,
                                     lgp_addr x, int below) {
  const unsigned char *b = base;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    lgp_addr k;
    memcpy(&k, b + mid * stride + off, sizeof k);
    if (below ? k < x : k <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
static inline size_t lgp_addr_count_le(const void *base, size_t n, size_t stride, size_t off,
                                       lgp_addr x) {
  return lgp_addr_count_(base, n, stride, off, x, 0);
}
static inline size_t lgp_addr_count_lt(const void *base, size_t n, size_t stride, size_t off,
                                       lgp_addr x) {
  return lgp_addr_count_(base, n, stride, off, x, 1);
}

/* Error state: the first failure's message, "FILE: what is wrong". */
typedef struct lgp_err {
  int set;
  char msg[1024];
} lgp_err;

/* Records a failure (only the first one is kept); always returns -1. */
int lgp_fail(lgp_err *e, const char *file, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;


/* Overflow-checked allocation helpers: NULL on failure or overflow. */
void *lgp_alloc_array(size_t n, size_t size);
void *lgp_calloc_array(size_t n, size_t size);
/* Grows *p (of *cap elements) to hold at least need elements. 0 or -1. */
int lgp_grow(void **p, size_t *cap, size_t need, size_t size);
/* The same with 64-byte aligned storage (a cache line): for arrays of
** 32- or 64-byte records read at random, each record is then one line. */
int lgp_grow_aligned(void **p, size_t *cap, size_t need, size_t size);
char *lgp_strdup(const char *s);

/* Stable merge sort of n indices with a comparator taking a context
** (glibc's qsort, which gprof uses, is a stable merge sort). 0 or -1. */
typedef int (*lgp_cmp_fn)(const void *ctx, uint32_t a, uint32_t b);
int lgp_sort_indices(uint32_t *v, size_t n, lgp_cmp_fn cmp, const void *ctx);
/* Stable sort of the n ids in idx by keys[id], least significant bits
** first, 11 at a time (bits where every key is the same are skipped);
** 0 or -1. */
int lgp_radix_sort(uint32_t *idx, const uint64_t *keys, size_t n);
/* The order of n records (stride bytes apart) by the lgp_addr at byte
** offset off of each, equal ones as they come: into idx, with keys (room
** for n) filled on the way (lgp_radix_sort). 0 or -1. */
int lgp_addr_order(uint32_t *idx, uint64_t *keys, const void *base, size_t n, size_t stride,
                   size_t off);

/* A hint to fetch memory a loop will read soon (random accesses into big
** arrays are what costs at a million arcs). */
#ifdef __GNUC__
#define PREFETCH(a) __builtin_prefetch(a)
/* For a function that only prefetches: to GCC it has no effect, and a call
** to it is dropped unless it is inlined first. */
#define PREFETCH_FN static inline __attribute__((always_inline)) void
#else
#define PREFETCH(a) ((void)(a))
#define PREFETCH_FN static void
#endif

/* Buffered output: text is built in memory and flushed to a FILE*
** (or kept, when f is NULL, for callers that want a string). */
typedef struct lgp_out {
  char *buf;
  size_t len, cap;
  size_t limit;   /* len may grow to this without a flush or a realloc */
  FILE *f;
  int failed;     /* a write or an allocation failed */
} lgp_out;

/* Room for n more bytes: a pointer to write them, or NULL after a failure.
** The test is inline: reports call this for every field they print. */
char *lgp_out_reserve_slow(lgp_out *o, size_t n);
static inline char *lgp_out_reserve(lgp_out *o, size_t n) {
  return o->len + n <= o->limit ? o->buf + o->len : lgp_out_reserve_slow(o, n);
}

void lgp_out_init(lgp_out *o, FILE *f);
void lgp_out_free(lgp_out *o);
int lgp_out_flush(lgp_out *o);
void lgp_out_mem(lgp_out *o, const char *s, size_t n);
void lgp_out_str(lgp_out *o, const char *s);
void lgp_out_char(lgp_out *o, char c);
void lgp_out_chars(lgp_out *o, char c, size_t n);
void lgp_out_printf(lgp_out *o, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* printf "%*.*s" style padding of a string: width w, left-justified if
** left, truncated to prec characters if prec >= 0. */
void lgp_out_pad(lgp_out *o, const char *s, int w, int prec, int left);
/* printf("%<w>lu") and ("%-<w>lu"). */
void lgp_out_u64(lgp_out *o, uint64_t v, int w, int left);
/* printf("%<w>.<prec>f", v), exactly as glibc rounds (to nearest, ties to
** even on the exact binary value); a fast path for ordinary values. */
void lgp_out_fixed(lgp_out *o, double v, int w, int prec);
/* The same into dst, which has room for LGP_FIXED_MAX bytes (or w + 24 for
** the integer); they return the length written (no NUL). */
#define LGP_FIXED_MAX 400
size_t lgp_fmt_fixed(char *dst, double v, int w, int prec);
size_t lgp_fmt_u64(char *dst, uint64_t v, int w, int left);

#endif
