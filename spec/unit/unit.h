/*
** unit.h: the checks of the C unit tests in spec/unit/ (compiled and run by
** spec/unit_spec.lua): a failed check prints "not ok - FILE:LINE: what",
** and unit_done() prints the counts and gives the exit status.
*/
#ifndef unit_h
#define unit_h

#include <stdio.h>

static int unit_checks, unit_failures;

/* CHECK(condition, printf-style description of the failure) */
#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    unit_checks++;                                                       \
    if (!(cond) && ++unit_failures <= 50) { /* the first 50 suffice */ \
      printf("not ok - %s:%d: ", __FILE__, __LINE__);                    \
      printf(__VA_ARGS__);                                               \
      printf("\n");                                                      \
    }                                                                    \
  } while (0)

static int unit_done(const char *name) {
  printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
  return unit_failures == 0 ? 0 : 1;
}

/* xorshift64*: the same pseudo-random sequence on every run */
static unsigned long long unit_seed = 0x9E3779B97F4A7C15ull;
static inline unsigned long long unit_rand(void) {
  unit_seed ^= unit_seed >> 12;
  unit_seed ^= unit_seed << 25;
  unit_seed ^= unit_seed >> 27;
  return unit_seed * 2685821657736338717ull;
}

#endif
