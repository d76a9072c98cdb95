/*
** perfreader.h: what one reading of a perf.data recording keeps (private
** to read/perf/). Each concept has its file and small header, all working
** on this state:
**
**   perfreader.c     the state's memory; the table being filled: source
**                    files, functions and frames, each made once
**   perfbinary.c     binaries: made per recorded path, found (build-id
**                    cache, recorded path, debug files) and opened once
**   perfsymtab.c     a binary's symbols by address and DWARF scopes: an
**                    address of a binary to its frames, inlined ones too
**   perffde.c        functions of code without symbols: its FDEs
**   perfkallsyms.c   kernel symbols (kallsyms)
**   perfjit.c        JIT code's symbols (perf-PID.map)
**   perfaddrcache.c  (binary, address) -> frames, resolved once
**   perfaddrspace.c  a process's executable mappings
**   perfunwind.c     unwinding the user stack copies (--call-graph dwarf)
**   perfstacks.c     the records replayed in time order: threads, chains,
**                    stacks (the public entry points, perfstacks.h)
**   perfoffcpu.c     off-CPU intervals from the recorded switches, for the
**                    synthesized events off-cpu and wall
*/
#ifndef perfreader_h
#define perfreader_h

#include <stddef.h>
#include <stdint.h>

#include "read/perf/perfdata.h"
#include "read/perf/perffde.h"
#include "read/perf/perfstacks.h"
#include "read/stacktab.h"
#include "util/hashtab.h"
#include "util/util.h"

#define NONE UINT32_MAX
/* perf's default perf_event_max_stack: a chain this deep was cut */
#define MAX_STACK 127

typedef struct reader reader;

#include "read/perf/perfaddrcache.h"
#include "read/perf/perfaddrspace.h"
#include "read/perf/perfbinary.h"
#include "read/perf/perfjit.h"
#include "read/perf/perfkallsyms.h"
#include "read/perf/perfsymtab.h"
#include "read/perf/perfunwind.h"
#include "read/perf/offcpu.h"
#include "read/perf/timerange.h"
#include "read/perf/tracedata.h"
#include "read/perf/perfoffcpu.h"

typedef struct tidname {
  uint32_t tid;
  const char *comm;          /* in the file's bytes */
} tidname;

/* Everything one reading of a recording keeps. */
struct reader {
  lgp_perf_data *pd;
  lgp_perf_opts opts;
  lgp_stacktab *out;
  lgp_err *err;
  size_t attr;               /* the chosen event */
  /* the table's arrays (perfreader.c, perfstacks.c) */
  size_t dsos_cap, funcs_cap, fdefs_cap, frames_cap, stacks_cap, threads_cap, files_cap;
  size_t errors_cap;
  lgp_hashtab func_ht, file_ht, stack_ht, thread_ht, tid_ht;
  /* binaries (perfbinary.c) */
  dsox *dx;
  size_t dx_cap;
  lgp_hashtab dso_ht;
  uint64_t binaries;
  char *buildid_dir;
  debugfiles debug;          /* (a binary's module's libdwfl userdata) */
  unsigned char image_id[64]; /* the image given's build-id (opts.image), */
  size_t image_id_len;       /* read once: its length, 0 none */
  int image_id_read;
  /* DWARF scopes (perfsymtab.c) */
  lgp_hashtab cu_ht;
  cuscopes *cus;
  size_t ncus, cus_cap;
  Dwarf_Die *path;           /* the scopes at an address, innermost first */
  size_t path_cap;
  /* address spaces (perfaddrspace.c) */
  lgp_hashtab proc_ht;
  proc *procs;
  size_t nprocs, procs_cap;
  /* kernel symbols (perfkallsyms.c) */
  uint32_t kernel_dso, unknown_dso, kernel_frame;
  uint64_t kernel_text;      /* runtime _text from the kernel's MMAP, 0 unknown */
  ksym *ksyms;
  size_t nksyms;
  char *knames;              /* the kernel symbol file: mapped (read-only), or read */
  size_t knames_len;         /* its size; names are read below knames_end */
  size_t knames_end;
  int knames_mapped;
  char *kname;               /* a kernel symbol's name, NUL-ended */
  size_t kname_cap;
  int kstate;                /* 0 not read, 1 usable, -1 none */
  /* the address cache (perfaddrcache.c) */
  lgp_hashtab cache_ht;
  acache *cache;
  size_t ncache, cache_cap;
  uint32_t *cframes;
  size_t ncframes, cframes_cap;
  /* unwinding (perfunwind.c) */
  uint64_t spaces;           /* unwinding address spaces made */
  int can_unwind;            /* x86-64 registers and stack copies */
  /* the replay (perfstacks.c) */
  tidname *tids;
  size_t ntids, tids_cap;
  const char **thread_comm;  /* out->threads' current names */
  uint32_t *scratch;         /* the chain being resolved: frame ids */
  size_t scratch_cap;
  /* the last sample's process, thread and name, while no other record
     came (samples come in runs of one thread): indices, as arrays grow */
  int last_valid;
  uint32_t last_pid, last_tid, last_thread;
  size_t last_proc;
  const char *last_comm;
  uint32_t last_stack;       /* the stack lgp_pr_stack_add last counted in */
  size_t times_cap;
  lgp_time_range *ranges;    /* --time-range, resolved */
  size_t nranges;
  /* off-CPU time (perfoffcpu.c): the synthesized event (LGP_PR_SYNTH_*),
     the sched_switch event and its fields, each thread's state */
  int synth;
  size_t switch_attr;        /* LGP_PR_NO_ATTR: none */
  lgp_trace_data trace;
  const lgp_trace_field *f_prev_state, *f_next_pid, *f_prev_pid;
  lgp_offcpu off;
  uint32_t offcpu_dso, kind_fd[LGP_OFF_NKINDS];
};

enum { LGP_PR_SYNTH_NONE, LGP_PR_SYNTH_OFFCPU, LGP_PR_SYNTH_WALL };
#define LGP_PR_NO_ATTR SIZE_MAX

/* "PATH: out of memory" into s->err: -1. */
int lgp_pr_oom(reader *s);
/* An array of n elements of size bytes from malloc, or NULL (overflow,
** out of memory). */
void *lgp_pr_alloc_array(size_t n, size_t size);
/* *p (*cap elements of size bytes) grown to hold need: 0, or -1. */
int lgp_pr_grow_array(void **p, size_t *cap, size_t need, size_t size);
/* (room already there, the common case, without a call) */
#define GROW(s, arr, cap, need) \
  ((need) <= (cap) ? 0 \
   : lgp_pr_grow_array((void **)&(arr), &(cap), (need), sizeof *(arr)) != 0 ? lgp_pr_oom(s) : 0)
/* *items (n of size bytes each) in the order of keys, stably, as a new
** array in place of the old. 0, or -1 out of memory (*items as it was). */
int lgp_pr_sort_by_keys(void **items, size_t n, size_t size, const uint64_t *keys);
/* a, b and c end to end (malloc), or NULL. */
char *lgp_pr_joined(const char *a, const char *b, const char *c);
int lgp_pr_is_file(const char *path);

/* The id in t whose key eq(ctx, id, key) says is key (its hash: h), or
** NONE. */
typedef int (*lgp_pr_eq_fn)(const void *ctx, uint32_t id, const void *key);
static inline uint32_t lgp_pr_lookup(const lgp_hashtab *t, uint32_t h, lgp_pr_eq_fn eq,
                                     const void *ctx, const void *key) {
  lgp_hashpos at = lgp_hashtab_probe(t, h);
  uint32_t id;
  while ((id = lgp_hashtab_next(t, &at)) != LGP_HASHTAB_END)
    if (eq(ctx, id, key))
      return id;
  return NONE;
}

/* The id of a source file name; LGP_ST_NOFILE without a name, and after
** a failure (then s->err is set). */
uint32_t lgp_pr_file_id(reader *s, const char *name);
/* The function (dso, name, inlined or not, start) of the table, made on
** first use; NONE after a failure. */
uint32_t lgp_pr_func_get(reader *s, uint32_t dso, const char *name, int is_inline,
                         int is_unknown, uint64_t start, uint64_t end, uint32_t file,
                         uint32_t line);
/* A frame of the table: func at addr, at a source line; NONE after a
** failure (or when func is NONE). */
uint32_t lgp_pr_fdef_add(reader *s, uint32_t func, uint64_t addr, uint32_t file, uint32_t line);
/* Appends frame fd to the frames being resolved (perfaddrcache.h): 0, or
** -1 (fd NONE, out of memory). */
int lgp_pr_cframe_push(reader *s, uint32_t fd);
/* "label+0xOFF" (dso's file name, off in hex) into name, which has room
** for LGP_PR_OFFSET_NAME bytes: its length. */
#define LGP_PR_OFFSET_NAME 272
size_t lgp_pr_offset_name(const reader *s, char *name, uint32_t dso, uint64_t off);
/* "[unknown] label+0xOFF": the frame of an address of dso no symbol nor
** FDE covers, pushed. */
int lgp_pr_unknown_frame(reader *s, uint32_t dso, uint64_t off);

/* The replay's (perfstacks.c), shared with perfoffcpu.c. */
/* A thread id's name record, made when make is set; NULL when absent (or
** out of memory, s->err set). */
tidname *lgp_pr_tid_get(reader *s, uint32_t tid, int make);
/* The table's thread (pid, tid), made on first use; NONE after a failure. */
uint32_t lgp_pr_thread_get(reader *s, uint32_t pid, uint32_t tid);
/* Counts count samples of weight in the stack of thread whose frames are
** s->scratch[0 .. depth), made on first use (s->last_stack says which).
** 0, or -1 out of memory. */
int lgp_pr_stack_add(reader *s, uint32_t thread, size_t depth, uint64_t weight, int truncated,
                     uint64_t count);
/* A sample's stack, counted. leaf: a frame put below its own frames (an
** off-CPU kind's), or NONE; with one, the stack is made with no sample
** and no weight (its intervals add them). 0, or -1. */
int lgp_pr_do_sample(reader *s, const lgp_perf_sample *sm, uint32_t leaf);
/* Keeps a sample's time when asked for (opts.sample_times). 0, or -1. */
int lgp_pr_time_add(reader *s, uint64_t time, uint64_t weight, uint32_t stack);

#endif
