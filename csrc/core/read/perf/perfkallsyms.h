/*
** perfkallsyms.h: the kernel's symbols (private to read/perf/), from the
** copy of kallsyms perf keeps in its build-id cache for the recorded
** kernel, else /proc/kallsyms, read once on the first kernel address.
*/
#ifndef perfkallsyms_h
#define perfkallsyms_h

#include <stdint.h>

typedef struct ksym {
  uint64_t addr;
  uint32_t name;             /* offset in knames (the file: no NUL after it) */
} ksym;

/* Reads the kernel's text symbols once (s->kstate: 1 usable, -1 none): 0,
** or -1 out of memory. */
int lgp_pr_kernel_load(reader *s);
/* The frame of a kernel address (the symbols usable), pushed: 0, or -1. */
int lgp_pr_kernel_frames(reader *s, uint64_t addr);
void lgp_pr_kernel_free(reader *s);

#endif
