/*
** util.c: csrc/core/util/util.c's number formatting (lgp_fmt_fixed, lgp_fmt_u64,
** lgp_out_fixed: printf without snprintf, byte for byte) and its sorts
** (lgp_sort_indices, lgp_radix_sort: stable, checked against a reference)
** and searches (lgp_addr_count_le, lgp_addr_count_lt, lgp_addr_order:
** checked against a count of every record).
*/
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "unit.h"

/* {====================================================== formatting */

static void check_fixed(double v, int w, int prec) {
  char got[LGP_FIXED_MAX + 1], want[LGP_FIXED_MAX + 1];
  size_t n = lgp_fmt_fixed(got, v, w, prec);
  got[n] = '\0';
  snprintf(want, sizeof want, "%*.*f", w, prec, v);
  CHECK(strcmp(got, want) == 0, "%%%d.%df of %.17g (%a): '%s', printf '%s'", w, prec, v, v,
        got, want);
}

static void check_fixed_all(double v) {
  static const int widths[] = {0, 1, 5, 8, 12, 64};
  int w, prec;
  for (w = 0; w < (int)(sizeof widths / sizeof *widths); w++)
    for (prec = 0; prec <= 6; prec++)
      check_fixed(v, widths[w], prec);
}

/* A double from random bits, or of a random magnitude and mantissa. */
static double random_double(int k) {
  unsigned long long r = unit_rand();
  double v;
  if (k % 2 == 0) {
    memcpy(&v, &r, sizeof v);
    return v;
  }
  return ldexp((double)(r >> 11), (int)(unit_rand() % 140) - 110);
}

static void fixed(void) {
  static const double special[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 3.5, 0.125, 0.375, 0.625, 0.005, 0.015, 0.025,
    0.045, 1.005, 2.675, 1e-7, 4.9999999e-7, 5e-7, 5.0000001e-7, 0.9999995, 9.9999995,
    99.995, 999999.9999995, 1e-300, DBL_MIN, 5e-324, 9007199254740991.0,
    9007199254740992.0, 9007199254740994.0, 4503599627370495.5, 1e17, 1.8446744073709552e19,
    1e300, DBL_MAX, -DBL_MAX, HUGE_VAL, -HUGE_VAL, -1.5, -0.001, -0.0049,
  };
  size_t i;
  int prec, k;
  unsigned long j;
  for (i = 0; i < sizeof special / sizeof *special; i++)
    check_fixed_all(special[i]);
  check_fixed_all(nan(""));
  /* exact binary ties (2j+1) / 2^(prec+1): printf rounds them to even */
  for (prec = 0; prec <= 6; prec++)
    for (j = 0; j < 3000; j++)
      check_fixed(ldexp((double)(2 * j + 1), -(prec + 1)), 0, prec);
  /* decimal halves k.5 / 10^prec and their neighbours */
  for (prec = 0; prec <= 6; prec++)
    for (j = 0; j < 3000; j++) {
      double v = ((double)j + 0.5) / pow(10.0, prec);
      check_fixed(v, 0, prec);
      check_fixed(nextafter(v, 0.0), 0, prec);
      check_fixed(nextafter(v, HUGE_VAL), 0, prec);
    }
  for (k = 0; k < 200000; k++)
    check_fixed(random_double(k), k % 13, k % 7);
}

/* through the buffered writer, as the reports call it */
static void out_fixed(void) {
  static const struct { double v; int w, prec; } calls[] = {
    {12.345, 8, 2}, {0.005, 0, 2}, {1e20, 4, 1}, {2.5, 3, 0}};
  char want[256];
  size_t k, len = 0;
  lgp_out o;
  lgp_out_init(&o, NULL);
  for (k = 0; k < sizeof calls / sizeof *calls; k++) {
    lgp_out_fixed(&o, calls[k].v, calls[k].w, calls[k].prec);
    len += (size_t)snprintf(want + len, sizeof want - len, "%*.*f", calls[k].w, calls[k].prec,
                            calls[k].v);
  }
  CHECK(o.len == len && memcmp(o.buf, want, len) == 0, "lgp_out_fixed: '%.*s', printf '%s'",
        (int)o.len, o.buf, want);
  lgp_out_free(&o);
}

static void check_u64(uint64_t v, int w, int left) {
  char got[128], want[128];
  size_t n = lgp_fmt_u64(got, v, w, left);
  got[n] = '\0';
  snprintf(want, sizeof want, left ? "%-*llu" : "%*llu", w, (unsigned long long)v);
  CHECK(strcmp(got, want) == 0, "%%%s%dllu of %llu: '%s', printf '%s'", left ? "-" : "", w,
        (unsigned long long)v, got, want);
}

static void u64(void) {
  static const int widths[] = {0, 1, 2, 5, 19, 20, 24, 40};
  uint64_t p = 1;
  int i, k;
  for (i = 0; i < 20; i++, p *= 10)
    for (k = 0; k < 8; k++) {
      check_u64(p, widths[k], k & 1);
      check_u64(p - 1, widths[k], k & 1);
      check_u64(p + 1, widths[k], !(k & 1));
    }
  for (k = 0; k < 8; k++)
    check_u64(UINT64_MAX, widths[k], k & 1);
  for (k = 0; k < 100000; k++)
    check_u64(unit_rand() >> (k % 64), widths[k % 8], k & 1);
}

/* }====================================================== */

/* {====================================================== sorts */

static int cmp_key(const void *ctx, uint32_t a, uint32_t b) {
  const int *key = ctx;
  return key[a] < key[b] ? -1 : key[a] > key[b];
}

/* Stable reference: insertion sort of v by keys[v[i]]. */
static void reference_sort(uint32_t *v, size_t n, const uint64_t *keys) {
  size_t i, j;
  for (i = 1; i < n; i++) {
    uint32_t x = v[i];
    for (j = i; j > 0 && keys[v[j - 1]] > keys[x]; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

/* n ids, a random permutation of 0..n-1 */
static void shuffled(uint32_t *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    v[i] = (uint32_t)i;
  for (i = n; i > 1; i--) {
    size_t j = (size_t)(unit_rand() % i);
    uint32_t t = v[i - 1];
    v[i - 1] = v[j];
    v[j] = t;
  }
}

static void sort_indices(void) {
  static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 18, 31, 32, 33, 100, 1000, 4097};
  static const int ranges[] = {1, 2, 10, 1000, 1 << 30};
  size_t s, i;
  int r;
  for (s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (r = 0; r < 5; r++) {
      size_t n = sizes[s];
      int *key = malloc((n + 1) * sizeof *key);
      uint64_t *key64 = malloc((n + 1) * sizeof *key64);
      uint32_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
      if (!key || !key64 || !got || !want)
        abort();
      for (i = 0; i < n; i++) {
        key[i] = (int)(unit_rand() % (unsigned)ranges[r]);
        key64[i] = (uint64_t)key[i];
      }
      shuffled(got, n);
      memcpy(want, got, n * sizeof *got);
      reference_sort(want, n, key64);
      CHECK(lgp_sort_indices(got, n, cmp_key, key) == 0, "lgp_sort_indices(n = %zu) failed", n);
      CHECK(n == 0 || memcmp(got, want, n * sizeof *got) == 0,
            "lgp_sort_indices(n = %zu, keys < %d) differs from a stable sort", n, ranges[r]);
      free(key);
      free(key64);
      free(got);
      free(want);
    }
}

static void radix_sort(void) {
  static const size_t sizes[] = {0, 1, 2, 3, 10, 100, 2049, 5000};
  /* key ranges around the 11-bit digits, up to all 64 bits */
  static const int bits[] = {0, 1, 11, 12, 22, 23, 33, 44, 55, 56, 63, 64};
  size_t s, i;
  int b;
  for (s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (b = 0; b < (int)(sizeof bits / sizeof *bits); b++) {
      size_t n = sizes[s];
      uint64_t *keys = malloc((n + 1) * sizeof *keys);
      uint32_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
      if (!keys || !got || !want)
        abort();
      for (i = 0; i < n; i++) {
        uint64_t k = bits[b] == 0 ? 0 : unit_rand() >> (64 - bits[b]);
        if (i % 3 == 1)
          k = keys[i - 1]; /* equal keys, to see the order kept */
        keys[i] = k;
      }
      shuffled(got, n);
      memcpy(want, got, n * sizeof *got);
      reference_sort(want, n, keys);
      CHECK(lgp_radix_sort(got, keys, n) == 0, "lgp_radix_sort(n = %zu) failed", n);
      CHECK(n == 0 || memcmp(got, want, n * sizeof *got) == 0,
            "lgp_radix_sort(n = %zu, %d-bit keys) differs from a stable sort", n, bits[b]);
      /* in order already (left as it is), and in order but for its last
         two unequal keys */
      CHECK(lgp_radix_sort(got, keys, n) == 0, "lgp_radix_sort(n = %zu) failed", n);
      CHECK(n == 0 || memcmp(got, want, n * sizeof *got) == 0,
            "lgp_radix_sort(n = %zu, %d-bit keys, sorted) changed the order", n, bits[b]);
      if (n >= 2 && keys[want[n - 1]] != keys[want[n - 2]]) {
        got[n - 1] = want[n - 2];
        got[n - 2] = want[n - 1];
        CHECK(lgp_radix_sort(got, keys, n) == 0, "lgp_radix_sort(n = %zu) failed", n);
        CHECK(memcmp(got, want, n * sizeof *got) == 0,
              "lgp_radix_sort(n = %zu, %d-bit keys, two swapped) differs from a stable sort", n,
              bits[b]);
      }
      free(keys);
      free(got);
      free(want);
    }
}

/* }====================================================== */

/* {====================================================== searches */

/* A record with its key between other fields, as the callers' are. */
typedef struct keyed {
  uint32_t before;
  lgp_addr key;
  uint8_t after;
} keyed;

static void addr_counts(void) {
  static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000};
  size_t s, i, j;
  for (s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t n = sizes[s];
    keyed *v = malloc((n ? n : 1) * sizeof *v);
    lgp_addr *plain = malloc((n ? n : 1) * sizeof *plain);
    lgp_addr k = 5;
    if (v == NULL || plain == NULL)
      abort();
    for (i = 0; i < n; i++) { /* ascending, with runs of equal keys and a top key */
      if (unit_rand() % 3 != 0)
        k += unit_rand() % 4;
      if (i + 1 == n && n > 3)
        k = ~(lgp_addr)0;
      v[i].before = (uint32_t)i;
      v[i].key = plain[i] = k;
      v[i].after = 0xff;
    }
    for (j = 0; j < 2 * n + 4; j++) {
      lgp_addr x = j < 2 * n + 2 && n > 0 ? v[j % n].key - 1 + j % 3 : j % 2 ? 0 : ~(lgp_addr)0;
      size_t le = 0, lt = 0;
      for (i = 0; i < n; i++) {
        le += v[i].key <= x;
        lt += v[i].key < x;
      }
      CHECK(lgp_addr_count_le(v, n, sizeof *v, offsetof(keyed, key), x) == le,
            "lgp_addr_count_le(n = %zu, x = %llu): not %zu", n, (unsigned long long)x, le);
      CHECK(lgp_addr_count_lt(v, n, sizeof *v, offsetof(keyed, key), x) == lt,
            "lgp_addr_count_lt(n = %zu, x = %llu): not %zu", n, (unsigned long long)x, lt);
      CHECK(lgp_addr_count_le(plain, n, sizeof *plain, 0, x) == le,
            "lgp_addr_count_le over keys (n = %zu, x = %llu): not %zu", n,
            (unsigned long long)x, le);
    }
    free(v);
    free(plain);
  }
}

/* lgp_addr_order: the records' order by key, stable, as a count of the
** smaller keys and of the equal ones before says. */
static void addr_order(void) {
  static const size_t sizes[] = {0, 1, 2, 5, 300};
  size_t s, i, j;
  for (s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t n = sizes[s];
    keyed *v = malloc((n ? n : 1) * sizeof *v);
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (v == NULL || idx == NULL || keys == NULL)
      abort();
    for (i = 0; i < n; i++) {
      v[i].before = (uint32_t)i;
      v[i].key = i % 4 == 3 ? ~(lgp_addr)0 - unit_rand() % 3 : unit_rand() % 50;
      v[i].after = 0xff;
    }
    CHECK(lgp_addr_order(idx, keys, v, n, sizeof *v, offsetof(keyed, key)) == 0,
          "lgp_addr_order(n = %zu) failed", n);
    for (i = 0; i < n; i++) {
      size_t want = 0;
      uint32_t r = idx[i];
      CHECK(keys[i] == v[i].key, "lgp_addr_order(n = %zu): key %zu not filled", n, i);
      if (r >= n)
        continue;
      for (j = 0; j < n; j++)
        want += v[j].key < v[r].key || (v[j].key == v[r].key && j < r);
      CHECK(want == i, "lgp_addr_order(n = %zu): record %u at %zu, not %zu", n, (unsigned)r,
            i, want);
    }
    free(v);
    free(idx);
    free(keys);
  }
}

/* }====================================================== */

int main(void) {
  fixed();
  out_fixed();
  u64();
  sort_indices();
  radix_sort();
  addr_counts();
  addr_order();
  return unit_done("util");
}
