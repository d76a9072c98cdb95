/*
** perfunwind.h: unwinding the copies of the user stack that `perf record
** --call-graph dwarf` takes (private to read/perf/), through the CFI of
** the binaries of the process (libdwfl, one address space per process,
** made again when its mappings change), with the reason an unwind
** stopped short.
*/
#ifndef perfunwind_h
#define perfunwind_h

#include <stddef.h>
#include <stdint.h>

/* What an unwind reads (the sample's registers and stack copy) and finds. */
typedef struct unw {
  const lgp_perf_sample *sm;
  uint64_t mask;             /* the attr's sample_regs_user */
  uint64_t sp;
  uint64_t pcs[MAX_STACK];
  uint8_t activation[MAX_STACK];
  size_t n;
  int past_end;              /* a read past the stack copy since the last frame */
  int refused;               /* a read outside the stack copy since the last frame */
  int stop;                  /* why it stopped early (LGP_TRUNC_*), or STOP_NONE */
  const char *why;           /* LGP_TRUNC_OTHER: the failure, in libdwfl's words */
} unw;

#define STOP_NONE (-1)

/* Unwinds the user stack copy of sm into (*out)->pcs (*out NULL when p
** has no unwinding state), and says in u->stop why it stopped if not at
** the outermost frame. 0 (u->n frames, maybe none), or -1 with s->err
** set. */
int lgp_pr_unwind(reader *s, proc *p, const lgp_perf_sample *sm, unw **out);
/* The binary of the frame unwinding u stopped at: the last one of the
** chain s->scratch[0 .. n) (n > 0 frames); nothing unwound, the user
** PC's. */
uint32_t lgp_pr_stop_dso(const reader *s, const proc *p, const unw *u, size_t n);

#endif
