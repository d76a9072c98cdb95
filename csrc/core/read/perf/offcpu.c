/*
** offcpu.c: each thread's off-CPU intervals (offcpu.h).
*/
#include <stdlib.h>
#include <string.h>
#include "read/perf/offcpu.h"
#include "util/util.h"

int lgp_offcpu_kind(int64_t prev_state) {
  if ((prev_state & 0xff) == 0)
    return LGP_OFF_RUNNABLE;
  if (prev_state & 0x30)
    return LGP_OFF_EXIT;
  if (prev_state & 0x2)
    return LGP_OFF_DISK;
  return LGP_OFF_SLEEP;
}

const char *lgp_offcpu_kind_letter(int kind) {
  static const char *const letters[] = { "R", "S", "D", "B" };
  return kind >= 0 && kind < LGP_OFF_NKINDS ? letters[kind] : "?";
}

const char *lgp_offcpu_kind_frame(int kind) {
  static const char *const frames[] = {
    "[off-cpu: preempted (R)]", "[off-cpu: sleeping (S)]", "[off-cpu: waiting (D)]",
    "[off-cpu: blocked (S or D)]",
  };
  return kind >= 0 && kind < LGP_OFF_NKINDS ? frames[kind] : "[off-cpu]";
}

void lgp_offcpu_free(lgp_offcpu *t) {
  free(t->threads);
  lgp_hashtab_free(&t->by_tid);
  memset(t, 0, sizeof *t);
}

/* The thread's slot, made when absent; NULL out of memory. */
static lgp_offcpu_thread *thread_of(lgp_offcpu *t, uint32_t tid, int make) {
  lgp_hashpos at;
  uint32_t id;
  lgp_offcpu_thread *th;
  if (lgp_hashtab_reserve(&t->by_tid, 1) != 0)
    return NULL;
  for (at = lgp_hashtab_probe(&t->by_tid, lgp_hashtab_hash_u64(tid));
       (id = lgp_hashtab_next(&t->by_tid, &at)) != LGP_HASHTAB_END;)
    if (t->threads[id].tid == tid)
      return &t->threads[id];
  if (!make || t->nthreads >= UINT32_MAX - 1
      || lgp_grow((void **)&t->threads, &t->cap, t->nthreads + 1, sizeof *t->threads) != 0)
    return NULL;
  th = &t->threads[t->nthreads];
  memset(th, 0, sizeof *th);
  th->tid = tid;
  th->stack = th->noted_stack = LGP_OFF_NOSTACK;
  lgp_hashtab_put(&t->by_tid, &at, (uint32_t)t->nthreads++);
  return th;
}

int lgp_offcpu_note(lgp_offcpu *t, uint32_t tid, int kind, uint32_t stack) {
  lgp_offcpu_thread *th = thread_of(t, tid, 1);
  if (!th)
    return -1;
  th->noted = 1;
  th->noted_kind = (uint8_t)kind;
  th->noted_stack = stack;
  return 0;
}

int lgp_offcpu_noted(lgp_offcpu *t, uint32_t tid) {
  lgp_offcpu_thread *th = t->nthreads ? thread_of(t, tid, 0) : NULL;
  return th != NULL && th->noted;
}

int lgp_offcpu_out(lgp_offcpu *t, uint32_t tid, uint64_t time, int kind, uint32_t stack,
                   int use_note) {
  lgp_offcpu_thread *th = thread_of(t, tid, 1);
  if (!th)
    return -1;
  if (use_note && th->noted) {
    kind = th->noted_kind;
    stack = th->noted_stack;
  }
  th->noted = 0;
  if (th->off) {
    t->restarted++;
    t->restarted_ns += time > th->since ? time - th->since : 0;
  }
  th->off = kind != LGP_OFF_EXIT;
  th->kind = (uint8_t)kind;
  th->stack = stack;
  th->since = time;
  return 0;
}

int lgp_offcpu_in(lgp_offcpu *t, uint32_t tid, uint64_t time, lgp_offcpu_interval *iv) {
  lgp_offcpu_thread *th = t->nthreads ? thread_of(t, tid, 0) : NULL;
  if (!th)
    return 0;
  th->noted = 0;
  if (!th->off)
    return 0;
  th->off = 0;
  iv->tid = tid;
  iv->stack = th->stack;
  iv->kind = th->kind;
  iv->from = th->since;
  iv->to = time > th->since ? time : th->since;
  iv->open = 0;
  return 1;
}

int lgp_offcpu_next_open(lgp_offcpu *t, size_t *i, uint64_t end, lgp_offcpu_interval *iv) {
  while (*i < t->nthreads) {
    lgp_offcpu_thread *th = &t->threads[(*i)++];
    if (!th->off)
      continue;
    iv->tid = th->tid;
    iv->stack = th->stack;
    iv->kind = th->kind;
    iv->from = th->since;
    iv->to = end > th->since ? end : th->since;
    iv->open = 1;
    return 1;
  }
  return 0;
}
