/* demo.c: a small program for `make demo`: a CPU-heavy leaf, plain
 * recursion (fact) and a mutual-recursion cycle (is_even <-> is_odd).
 * Build with -pg, run it, and read gmon.out with lgprof. */
#include <stdio.h>

static volatile unsigned long sink;

static void burn(unsigned long n)
{
  for (unsigned long i = 0; i < n; i++)
    sink += i;
}

static int is_odd(int n);

static int is_even(int n)
{
  burn(300000);
  return n == 0 ? 1 : is_odd(n - 1);
}

static int is_odd(int n)
{
  burn(450000);
  return n == 0 ? 0 : is_even(n - 1);
}

static unsigned long fact(int n)
{
  burn(600000);
  return n <= 1 ? 1 : n * fact(n - 1);
}

static void leaf(void)
{
  burn(1500000);
}

int main(void)
{
  unsigned long total = 0;
  for (int i = 0; i < 40; i++)
    leaf();
  for (int i = 0; i < 30; i++)
    total += (unsigned long)is_even(21);
  for (int i = 0; i < 25; i++)
    total += fact(12);
  printf("demo done (%lu)\n", total);
  return 0;
}