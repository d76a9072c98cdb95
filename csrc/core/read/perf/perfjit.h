/*
** perfjit.h: JIT code's symbols (private to read/perf/): the map file a
** JIT writes for perf, perf-PID.map ("START SIZE NAME" lines, in hex).
*/
#ifndef perfjit_h
#define perfjit_h

#include <stdint.h>

typedef struct jitsym {
  uint64_t start, size;
  char *name;
} jitsym;

/* Reads the map file of the process of dso d (of kind DK_JIT), once: 0,
** or -1 out of memory. */
int lgp_pr_jit_load(reader *s, uint32_t d);
/* The frame of addr in JIT code d, pushed: 0, or -1. */
int lgp_pr_jit_frames(reader *s, uint32_t d, uint64_t addr);

#endif
