/*
** offcpu.h: each thread's off-CPU intervals, from its switches: an
** interval runs from the moment a thread leaves the CPU to the moment it
** runs again, and is charged to the stack and the kind of wait it left
** with. The caller feeds the events of a recording in time order (the
** sched:sched_switch tracepoint's samples, PERF_RECORD_SWITCH records, or
** both) and gets the intervals back as they close; the ones still open at
** the end of the recording are handed out last, marked open.
**
** A thread that leaves the CPU again while an interval is open (its return
** was lost) restarts it: charging a double-length one would be worse.
*/
#ifndef offcpu_h
#define offcpu_h

#include <stddef.h>
#include <stdint.h>
#include "util/hashtab.h"

/* Why a thread left the CPU (the tracepoint's prev_state, or the switch
** record's preempt bit). */
enum {
  LGP_OFF_RUNNABLE = 0,  /* preempted while runnable (R, R+): waiting for a CPU */
  LGP_OFF_SLEEP,         /* S: interruptible sleep (sleep, futex, poll, ...) */
  LGP_OFF_DISK,          /* D: uninterruptible wait (I/O, some kernel locks) */
  LGP_OFF_BLOCKED,       /* S or D: a switch record tells no more */
  LGP_OFF_NKINDS,
  LGP_OFF_EXIT = LGP_OFF_NKINDS  /* X, Z: the thread is exiting, nothing starts */
};

#define LGP_OFF_NOSTACK UINT32_MAX

/* The kind of a sched_switch prev_state value: no bit of the low byte is
** R, bit 0 S, bit 1 D, X (0x10) and Z (0x20) an exit; the other waits
** (stopped, traced, parked, idle) count as sleeps. */
int lgp_offcpu_kind(int64_t prev_state);
/* The kind's one-letter name (R, S, D, B) and its frame's name. */
const char *lgp_offcpu_kind_letter(int kind);
const char *lgp_offcpu_kind_frame(int kind);

typedef struct lgp_offcpu_interval {
  uint32_t tid;
  uint32_t stack;        /* the caller's id, LGP_OFF_NOSTACK */
  int kind;
  uint64_t from, to;
  int open;              /* still off-CPU when the recording ended */
} lgp_offcpu_interval;

typedef struct lgp_offcpu_thread {
  uint32_t tid;
  uint32_t stack, noted_stack;
  uint8_t off, noted, kind, noted_kind;
  uint64_t since;
} lgp_offcpu_thread;

typedef struct lgp_offcpu {
  lgp_offcpu_thread *threads;
  size_t nthreads, cap;
  lgp_hashtab by_tid;
  uint64_t restarted;    /* switch-outs while off: a return was lost */
  uint64_t restarted_ns; /* the time of the intervals so dropped, up to the new switch-out */
} lgp_offcpu;

void lgp_offcpu_free(lgp_offcpu *t);
/* What the thread's next switch-out is charged to (a tracepoint sample that
** precedes its switch record). 0, or -1 out of memory. */
int lgp_offcpu_note(lgp_offcpu *t, uint32_t tid, int kind, uint32_t stack);
/* Is a note pending for the thread? */
int lgp_offcpu_noted(lgp_offcpu *t, uint32_t tid);
/* The thread left the CPU at time. kind and stack: the note's when one is
** pending and use_note is set, else these. 0, or -1 out of memory. */
int lgp_offcpu_out(lgp_offcpu *t, uint32_t tid, uint64_t time, int kind, uint32_t stack,
                   int use_note);
/* The thread runs again at time: 1 with the interval that ends, 0 when it
** was not off-CPU. */
int lgp_offcpu_in(lgp_offcpu *t, uint32_t tid, uint64_t time, lgp_offcpu_interval *iv);
/* The intervals still open, ended at end: start with *i = 0; 1 with one,
** 0 when there are no more. */
int lgp_offcpu_next_open(lgp_offcpu *t, size_t *i, uint64_t end, lgp_offcpu_interval *iv);

#endif
