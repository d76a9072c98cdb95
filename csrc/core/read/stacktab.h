/*
** stacktab.h: a table of sampled stacks, what a sampling input (perf.data,
** read in read/perf/) hands the model: the binaries and functions its
** addresses resolved to, the threads, and each distinct stack with how
** many samples ended in it and their weight. The model builds a profile
** from it (functions, arcs, exact self and total times, cycles) without
** knowing which file format it came from.
**
** Strings are owned by the table (lgp_stacktab_free frees them); ids are
** indices into the arrays. Frames of a stack are stored leaf first.
*/
#ifndef stacktab_h
#define stacktab_h

#include <stddef.h>
#include <stdint.h>

#define LGP_ST_NOFILE UINT32_MAX

/* How a binary's symbols were found (or why not). */
enum {
  LGP_DSO_OK = 0,        /* its ELF, build-id checked where one was recorded */
  LGP_DSO_MISSING,       /* no file at the recorded path or in a build-id cache */
  LGP_DSO_MISMATCH,      /* a file whose build-id is not the recorded one: not used */
  LGP_DSO_STRIPPED,      /* found, but without .symtab nor a debug file (or no function symbol) */
  LGP_DSO_KERNEL,        /* the kernel: kallsyms, or one [kernel] frame */
  LGP_DSO_VDSO,
  LGP_DSO_JIT,           /* anonymous code: /tmp/perf-PID.map, or unknown */
  LGP_DSO_UNKNOWN        /* an address in no mapping */
};

typedef struct lgp_st_dso {
  char *path;            /* as recorded ("[kernel.kallsyms]", "[vdso]", "//anon") */
  char *found;           /* the file read (may differ: build-id cache), or NULL */
  uint8_t build_id[20];
  uint8_t build_id_len;  /* 0: none recorded */
  uint8_t status;        /* LGP_DSO_* */
  uint8_t is_kernel;
  /* samples whose unwinding stopped at a frame of this binary because it
     has no unwind table entry there, or could not be read (or is no
     binary at all: "[unknown]", JIT code) */
  uint64_t stops_no_cfi, stops_no_binary;
  /* frame-pointer chains of a single user frame, in this binary */
  uint64_t depth_one;
  /* the functions its symbol table defines, sampled or not (what a
     comparison asks of a function sampled in one run only): a hash of each
     name (lgp_st_name_hash), and of a gcc clone's origin name, sorted;
     names_read 0: not read (no ELF opened, the kernel, JIT code, a table
     built by hand) */
  uint64_t *names;
  size_t nnames;
  uint8_t names_read;
} lgp_st_dso;

/* A function: (binary, symbol). Code no symbol covers is a function for
** each unwind table entry (FDE) that covers it, named "BINARY+0xSTART"
** (is_anonymous); an address neither covers is a function of its own
** named "[unknown] BINARY+0xOFFSET" (is_unknown); inlined functions are
** functions too (is_inline), met as frames of their own. */
typedef struct lgp_st_func {
  uint32_t dso;
  char *name;            /* raw (mangled) */
  uint64_t start, end;   /* the symbol's range in the binary's addresses, [start, end) */
  uint32_t file;         /* its source file (files[]), or LGP_ST_NOFILE */
  uint32_t line;         /* its first line, 0 when unknown */
  uint8_t is_inline, is_unknown, is_anonymous;
} lgp_st_func;

/* A frame: a function at a place in it. */
typedef struct lgp_st_frame {
  uint32_t func;
  uint64_t addr;         /* in the binary's addresses; a return address less 1 */
  uint32_t file;         /* the line's source file (files[]), or LGP_ST_NOFILE */
  uint32_t line;         /* 0 when unknown */
} lgp_st_frame;

typedef struct lgp_st_thread {
  uint32_t pid, tid;
  char *comm;            /* its name at its last sample */
} lgp_st_thread;

typedef struct lgp_st_event {
  char *name;            /* "cpu-clock", ... */
  int is_time;           /* weights are nanoseconds (cpu-clock, task-clock) */
} lgp_st_event;

/* A distinct stack: thread, event and frames (leaf first). */
typedef struct lgp_st_stack {
  uint32_t thread, event;
  uint32_t first, depth; /* frames[first .. first + depth) of the table */
  uint64_t samples;      /* how many samples had this stack */
  uint64_t weight;       /* the sum of their periods */
  uint8_t truncated;     /* the chain stopped before its root (unwinding failed) */
} lgp_st_stack;

/* A sample's time (or an off-CPU interval's start), kept on request. */
typedef struct lgp_st_time {
  uint64_t time;         /* perf's clock, ns */
  uint64_t weight;       /* its period (an interval: its length) */
  uint32_t stack;
} lgp_st_time;

/* Why a chain stopped before its root (the doctor's advice differs). */
enum {
  LGP_TRUNC_STACK_COPY = 0, /* unwinding needed memory past the sample's copy of the user stack */
  LGP_TRUNC_NO_CFI,         /* no unwind table entry (CFI) covers the PC in its binary */
  LGP_TRUNC_NO_BINARY,      /* the PC is in no binary that could be read */
  LGP_TRUNC_DEPTH,          /* cut at perf's depth limit (127 frames) */
  LGP_TRUNC_OTHER,          /* another unwinding failure: unwind_errors says which */
  LGP_TRUNC_NREASONS
};

/* An unwinding failure of the "other" kind: libdwfl's message, or lgprof's. */
typedef struct lgp_st_unwind_error {
  char *what;
  uint64_t samples;
} lgp_st_unwind_error;

/* The kernel's symbols of a recording (lgp_stacktab.kernel_symbols). */
enum {
  LGP_KSYMS_UNREAD = 0,     /* no kernel address to name */
  LGP_KSYMS_GIVEN,          /* the file given (kallsyms option) */
  LGP_KSYMS_CACHED,         /* the build-id cache's copy of the recorded kernel */
  LGP_KSYMS_RUNNING,        /* /proc/kallsyms: the recorded kernel is the running one */
  LGP_KSYMS_OTHER_KERNEL,   /* none: the recorded kernel's build-id is not the running one's */
  LGP_KSYMS_NO_BUILD_ID,    /* none: the recording names no kernel build-id to check */
  LGP_KSYMS_UNUSABLE,       /* none: the file could not be read, its addresses are
                               hidden (zero) or of another boot */
  LGP_KSYMS_NONE            /* none: the kallsyms option was "" */
};

typedef struct lgp_stacktab {
  lgp_st_dso *dsos;
  size_t ndsos;
  lgp_st_func *funcs;
  size_t nfuncs;
  lgp_st_frame *frame_defs;   /* distinct frames */
  size_t nframe_defs;
  uint32_t *frames;           /* frame_defs ids of every stack, leaf first */
  size_t nframes;
  lgp_st_stack *stacks;
  size_t nstacks;
  lgp_st_thread *threads;
  size_t nthreads;
  lgp_st_event *events;
  size_t nevents;
  char **files;               /* the distinct source file names frames point to */
  size_t nfiles;
  char *recording;            /* the perf.data read (as named), or NULL: built by hand */
  /* what the doctor reports */
  uint64_t samples;           /* read, of the chosen event */
  uint64_t lost;              /* lost samples (LOST or LOST_SAMPLES, counted once) */
  uint64_t no_chain;          /* samples with no call chain */
  uint64_t depth_one;         /* frame-pointer chains of a single user frame */
  uint64_t truncated;         /* chains that stopped early */
  uint64_t truncated_why[LGP_TRUNC_NREASONS]; /* the same samples by reason */
  uint64_t unwound;           /* samples whose user chain was unwound from a stack copy */
  uint64_t stack_copy_size;   /* the stack copy's recorded size (--call-graph dwarf,SIZE), 0 none */
  lgp_st_unwind_error *unwind_errors; /* LGP_TRUNC_OTHER's samples by message */
  size_t nunwind_errors;
  uint64_t kernel_unresolved; /* kernel frames without symbols */
  int kernel_symbols;         /* where they came from, or why none: LGP_KSYMS_* */
  int truncated_file;         /* the file ended inside a record */
  uint64_t other_samples;     /* samples of the recording's other events */
  uint64_t elf_opens;         /* ELF files opened: each binary once, its
                                 unwinding modules share it */
  uint64_t debug_inflated;    /* separate debug files read from an in-memory
                                 copy with their DWARF inflated (once each) */
  /* time (perf.data): the samples' first and last times (ns, perf's clock),
     what the recording says of switches, and the off-CPU time read */
  uint64_t time_first, time_last;
  uint8_t has_time;
  uint8_t switch_tracepoint;  /* sched:sched_switch samples with their format */
  uint8_t switch_records;     /* PERF_RECORD_SWITCH or SWITCH_CPU_WIDE records */
  uint8_t synthesized;        /* the event is off-cpu or wall: off-CPU time exact */
  uint64_t offcpu_ns[4];      /* off-CPU time kept, by kind (offcpu.h's LGP_OFF_*) */
  uint64_t offcpu_intervals;  /* intervals kept */
  uint64_t offcpu_open;       /* of them, still open when the recording ended */
  uint64_t offcpu_open_ns;    /* their time, charged up to the end */
  uint64_t offcpu_restarted;  /* switch-outs while off: a return was lost */
  uint64_t offcpu_restarted_ns; /* the time between those lost returns' switch-outs */
  uint64_t oncpu_ns;          /* wall: the on-CPU samples' time */
  lgp_st_time *times;         /* each sample's time, in time order, when asked for
                                 (lgp_perf_opts.sample_times), else NULL */
  size_t ntimes;
} lgp_stacktab;

void lgp_stacktab_free(lgp_stacktab *t);

/* The name of a binary's status (LGP_DSO_*): "ok", "stripped"... as the
** Lua API and the exports write it. */
const char *lgp_st_dso_status_name(unsigned status);

/* The hash of a symbol's name (len bytes at s) in lgp_st_dso.names; origin:
** as a clone's origin name (kept apart from the names themselves). */
uint64_t lgp_st_name_hash(const char *s, size_t len, int origin);
/* Sets d's names from the n symbol names given (each raw, as the table's
** functions are named): 0, or -1 out of memory (d unchanged). */
int lgp_st_dso_set_names(lgp_st_dso *d, const char *const *names, size_t n);
/* Does binary d define a function named name (raw)? With as_origin, one of
** the name's family: its clone origin (or the name), or any clone of that.
** 1 yes, 0 no, -1 unknown (its names were not read). A binary search. */
int lgp_st_dso_defines(const lgp_st_dso *d, const char *name, int as_origin);

/* A function's size in bytes (0: an inlined function's, or no range). */
uint64_t lgp_st_func_size(const lgp_st_func *f);

#endif
