/* demo.c: a small program for `make demo`: a CPU-heavy leaf, plain
 * recursion (fact) and a mutual-recursion cycle (is_even <-> is_odd).
 * Build with -pg, run it, and read gmon.out with lgprof. */
