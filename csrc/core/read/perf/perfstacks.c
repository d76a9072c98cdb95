/*
** perfstacks.c: perf.data -> a table of sampled stacks (see perfstacks.h).
**
** Two passes over the records: the first indexes the ones that matter
** (samples, mappings, tasks) with their times and counts losses; they are
** then sorted by time (stable: equal times and records without a time keep
** their file order) and replayed, rebuilding each process's executable
** mappings as the samples meet them. A sample's chain is the kernel's
** (frame pointers), else its branch stack, else its copy of the user stack
** unwound through the binaries' CFI (libdwfl, one address space per
** process, made again when its mappings change). Addresses are resolved
** once per (binary, address) and cached; binaries are opened once for
** their symbols, on first use. This file is the replay; perfreader.h
** lists where each of the other concepts lives.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/perf/perfreader.h"

/* ---- threads ---- */

static int tid_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  return s->tids[v].tid == *(const uint32_t *)key;
}

tidname *lgp_pr_tid_get(reader *s, uint32_t tid, int make) {
  uint32_t h = lgp_hashtab_hash_u64((uint64_t)tid + 1);
  uint32_t v = lgp_pr_lookup(&s->tid_ht, h, tid_eq, s, &tid);
  if (v != NONE)
    return &s->tids[v];
  if (!make || GROW(s, s->tids, s->tids_cap, s->ntids + 1) != 0)
    return NULL;
  v = (uint32_t)s->ntids++;
  s->tids[v].tid = tid;
  s->tids[v].comm = NULL;
  if (lgp_hashtab_add(&s->tid_ht, h, v) != 0) {
    lgp_pr_oom(s);
    return NULL;
  }
  return &s->tids[v];
}

typedef struct threadkey {
  uint32_t pid, tid;
} threadkey;

static int thread_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const threadkey *k = key;
  return s->out->threads[v].pid == k->pid && s->out->threads[v].tid == k->tid;
}

uint32_t lgp_pr_thread_get(reader *s, uint32_t pid, uint32_t tid) {
  threadkey k;
  uint32_t h = lgp_hashtab_hash_u64((uint64_t)pid << 32 | tid);
  uint32_t v;
  size_t cap;
  k.pid = pid;
  k.tid = tid;
  v = lgp_pr_lookup(&s->thread_ht, h, thread_eq, s, &k);
  if (v != NONE)
    return v;
  cap = s->threads_cap;
  if (GROW(s, s->out->threads, s->threads_cap, s->out->nthreads + 1) != 0)
    return NONE;
  if (s->threads_cap != cap) {
    const char **nc = realloc(s->thread_comm, s->threads_cap * sizeof *nc);
    if (!nc)
      return (uint32_t)lgp_pr_oom(s);
    s->thread_comm = nc;
  }
  v = (uint32_t)s->out->nthreads++;
  s->out->threads[v].pid = pid;
  s->out->threads[v].tid = tid;
  s->out->threads[v].comm = NULL;
  s->thread_comm[v] = NULL;
  if (lgp_hashtab_add(&s->thread_ht, h, v) != 0)
    return (uint32_t)lgp_pr_oom(s);
  return v;
}

/* ---- stacks ---- */

typedef struct stackkey {
  uint32_t thread, depth;
  const uint32_t *ids;
} stackkey;

static int stack_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const stackkey *k = key;
  const lgp_st_stack *st = &s->out->stacks[v];
  return st->thread == k->thread && st->depth == k->depth
         && (k->depth == 0
             || memcmp(s->out->frames + st->first, k->ids, k->depth * sizeof *k->ids) == 0);
}

int lgp_pr_stack_add(reader *s, uint32_t thread, size_t depth, uint64_t weight, int truncated,
                     uint64_t count) {
  stackkey k;
  uint32_t h;
  uint32_t v;
  lgp_st_stack *st;
  k.thread = thread;
  k.depth = (uint32_t)depth;
  k.ids = s->scratch;
  h = lgp_hashtab_hash_words(s->scratch, depth) ^ lgp_hashtab_hash_u64((uint64_t)thread << 32 | depth);
  v = lgp_pr_lookup(&s->stack_ht, h, stack_eq, s, &k);
  if (v == NONE) {
    if (GROW(s, s->out->stacks, s->stacks_cap, s->out->nstacks + 1) != 0
        || GROW(s, s->out->frames, s->frames_cap, s->out->nframes + depth) != 0)
      return -1;
    v = (uint32_t)s->out->nstacks++;
    st = &s->out->stacks[v];
    memset(st, 0, sizeof *st);
    st->thread = thread;
    st->event = 0;
    st->first = (uint32_t)s->out->nframes;
    st->depth = (uint32_t)depth;
    if (depth)
      memcpy(s->out->frames + s->out->nframes, s->scratch, depth * sizeof *s->scratch);
    s->out->nframes += depth;
    if (lgp_hashtab_add(&s->stack_ht, h, v) != 0)
      return lgp_pr_oom(s);
  }
  st = &s->out->stacks[v];
  st->samples += count;
  st->weight += weight;
  s->last_stack = v;
  if (truncated)
    st->truncated = 1;
  return 0;
}

/* Counts a sample whose unwinding failed for another reason, by message.
** The messages are libdwfl's and lgprof's few fixed ones: a short list,
** capped all the same. */
#define MAX_UNWIND_ERRORS 16
static int unwind_error_add(reader *s, const char *what) {
  lgp_stacktab *t = s->out;
  size_t i;
  for (i = 0; i < t->nunwind_errors; i++)
    if (strcmp(t->unwind_errors[i].what, what) == 0)
      break;
  if (i == t->nunwind_errors && i == MAX_UNWIND_ERRORS) {
    i--;
    if (strcmp(t->unwind_errors[i].what, "other errors") != 0) {
      char *other = lgp_strdup("other errors");
      if (!other)
        return lgp_pr_oom(s);
      free(t->unwind_errors[i].what);
      t->unwind_errors[i].what = other;
    }
  } else if (i == t->nunwind_errors) {
    if (GROW(s, t->unwind_errors, s->errors_cap, i + 1) != 0)
      return -1;
    if (!(t->unwind_errors[i].what = lgp_strdup(what)))
      return lgp_pr_oom(s);
    t->unwind_errors[i].samples = 0;
    t->nunwind_errors++;
  }
  t->unwind_errors[i].samples++;
  return 0;
}

/* ---- samples ---- */

enum { MODE_USER, MODE_KERNEL, MODE_OTHER };

/* One address of a chain in the given mode; exact: the sample's PC (else
** a return address, looked up less 1). */
static int chain_addr(reader *s, const proc *p, int mode, uint64_t a, int exact, size_t *n,
                      int *kernel_open) {
  uint64_t look = exact || a == 0 ? a : a - 1;
  if (mode == MODE_KERNEL) {
    if (lgp_pr_kernel_load(s) != 0)
      return -1;
    if (s->kstate != 1) {
      /* no kernel symbols: one frame per kernel part of the chain */
      s->out->kernel_unresolved++;
      if (*kernel_open)
        return 0;
      *kernel_open = 1;
      if (s->kernel_frame == NONE) {
        uint32_t f = lgp_pr_func_get(s, s->kernel_dso, "[kernel]", 0, 1, 0, 0, LGP_ST_NOFILE, 0);
        if ((s->kernel_frame = lgp_pr_fdef_add(s, f, 0, LGP_ST_NOFILE, 0)) == NONE)
          return -1;
      }
      if (GROW(s, s->scratch, s->scratch_cap, *n + 1) != 0)
        return -1;
      s->scratch[(*n)++] = s->kernel_frame;
      return 0;
    }
    return lgp_pr_frames_of(s, s->kernel_dso, look, n);
  }
  *kernel_open = 0;
  if (mode == MODE_USER && p) {
    const pmap *m = lgp_pr_map_find(p, look);
    if (m) {
      dsox *x = &s->dx[m->dso];
      uint64_t off = look - m->start + m->pgoff, vaddr = off;
      size_t i;
      if (x->kind == DK_JIT)
        return lgp_pr_frames_of(s, m->dso, look, n);
      if ((x->kind == DK_ELF || x->kind == DK_VDSO) && lgp_pr_dso_open(s, m->dso) != 0)
        return -1;
      /* the file offset to the address in the binary, by its PT_LOADs
         (a binary not found keeps the file offset) */
      for (i = 0; i < x->nsegs; i++)
        if (off >= x->segs[i].off && off - x->segs[i].off < x->segs[i].filesz) {
          vaddr = off - x->segs[i].off + x->segs[i].vaddr;
          break;
        }
      return lgp_pr_frames_of(s, m->dso, vaddr, n);
    }
  }
  return lgp_pr_frames_of(s, s->unknown_dso, look, n);
}

static int mode_of(uint64_t marker) {
  return marker == LGP_PERF_CONTEXT_KERNEL ? MODE_KERNEL
         : marker == LGP_PERF_CONTEXT_USER ? MODE_USER : MODE_OTHER;
}

int lgp_pr_do_sample(reader *s, const lgp_perf_sample *sm, uint32_t leaf) {
  proc *p;
  tidname *tn;
  uint32_t thread;
  size_t n = 0, addrs = 0, user = 0, i, n0;
  int mode = sm->cpumode == 1 ? MODE_KERNEL : sm->cpumode == 2 ? MODE_USER : MODE_OTHER;
  int first = 1, kernel_open = 0, truncated, user_part = 0, why = STOP_NONE;
  /* a stack copy to unwind (--call-graph dwarf): the chain holds only the
     kernel's part */
  int stack_copy = s->can_unwind && sm->regs_abi == 2 && sm->stack_dyn_size > 0;
  uint64_t weight = sm->has_period ? sm->period
                    : (s->pd->attrs[sm->attr].flags & LGP_PERF_ATTR_FREQ) ? 1 : sm->period;
  if (s->last_valid && s->last_pid == sm->pid && s->last_tid == sm->tid) {
    p = &s->procs[s->last_proc];
    thread = s->last_thread;
  } else {
    if (!(p = lgp_pr_proc_get(s, sm->pid)))
      return -1;
    if ((thread = lgp_pr_thread_get(s, sm->pid, sm->tid)) == NONE)
      return -1;
    tn = lgp_pr_tid_get(s, sm->tid, 0);
    s->last_valid = 1;
    s->last_pid = sm->pid;
    s->last_tid = sm->tid;
    s->last_proc = (size_t)(p - s->procs);
    s->last_thread = thread;
    s->last_comm = tn ? tn->comm : NULL;
  }
  s->thread_comm[thread] = s->last_comm;
  if (leaf != NONE) {
    if (GROW(s, s->scratch, s->scratch_cap, 1) != 0)
      return -1;
    s->scratch[n++] = leaf;
  } else {
    s->out->samples++;
  }
  n0 = n;
  if (sm->nchain > 0) {
    for (i = 0; i < sm->nchain; i++) {
      uint64_t v = lgp_perf_u64(sm->chain + 8 * i);
      if (v >= LGP_PERF_CONTEXT_MAX) {
        mode = mode_of(v);
        first = 1;
        continue;
      }
      if (chain_addr(s, mode == MODE_KERNEL ? NULL : p, mode, v, first, &n, &kernel_open) != 0)
        return -1;
      first = 0;
      addrs++;
      user += mode == MODE_USER;
      user_part |= mode == MODE_USER;
    }
  } else if (sm->nbranch > 0 && !stack_copy) {
    /* a call stack from the branch records: the sample's PC, then the
       call sites (exact: the calls themselves) */
    if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
      return -1;
    addrs = 1;
    user = mode == MODE_USER;
    for (i = 0; i < sm->nbranch; i++) {
      uint64_t from = lgp_perf_u64(sm->branches + 24 * i);
      int m = from >= 0xffff800000000000ULL ? MODE_KERNEL : MODE_USER;
      if (chain_addr(s, m == MODE_KERNEL ? NULL : p, m, from, 1, &n, &kernel_open) != 0)
        return -1;
      addrs++;
      user += m == MODE_USER;
    }
  } else if (!stack_copy) {
    s->out->no_chain++;
    if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
      return -1;
    addrs = 1;
    user = mode == MODE_USER;
  }
  if (stack_copy && !user_part) {
    unw *u;
    if (lgp_pr_unwind(s, p, sm, &u) != 0)
      return -1;
    s->out->unwound++;
    if (u && u->n > 0) {
      /* a frame that is not an activation was left by a call: less 1 */
      for (i = 0; i < u->n; i++)
        if (chain_addr(s, p, MODE_USER, u->pcs[i], u->activation[i], &n, &kernel_open) != 0)
          return -1;
      addrs += u->n;
    } else {
      /* nothing unwound: the PC alone */
      if (sm->nchain == 0)
        s->out->no_chain++;
      if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
        return -1;
      addrs++;
    }
    why = u ? u->stop : LGP_TRUNC_OTHER;
    if (why == LGP_TRUNC_NO_BINARY || why == LGP_TRUNC_NO_CFI) {
      lgp_st_dso *d = &s->out->dsos[lgp_pr_stop_dso(s, p, u, n)];
      if (why == LGP_TRUNC_NO_BINARY)
        d->stops_no_binary++;
      else
        d->stops_no_cfi++;
    } else if (why == LGP_TRUNC_OTHER && unwind_error_add(s, u && u->why ? u->why : "out of memory") != 0) {
      return -1;
    }
  } else {
    if (addrs == 1 && user == 1 && sm->nchain > 0) {
      s->out->depth_one++;
      /* the binary the chain ends in: the doctor names it */
      if (n > 0)
        s->out->dsos[s->out->funcs[s->out->frame_defs[s->scratch[n - 1]].func].dso].depth_one++;
    }
    if (addrs >= MAX_STACK)    /* cut at perf's depth limit */
      why = LGP_TRUNC_DEPTH;
  }
  if (n == n0) {
    /* a chain of context markers only: the sample's PC */
    kernel_open = 0;
    if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
      return -1;
  }
  truncated = why != STOP_NONE;
  if (truncated) {
    s->out->truncated++;
    s->out->truncated_why[why]++;
  }
  if (leaf != NONE)
    return lgp_pr_stack_add(s, thread, n, 0, truncated, 0);
  if (lgp_pr_stack_add(s, thread, n, weight, truncated, 1) != 0)
    return -1;
  return lgp_pr_time_add(s, sm->time, weight, s->last_stack);
}

int lgp_pr_time_add(reader *s, uint64_t time, uint64_t weight, uint32_t stack) {
  lgp_st_time *t;
  if (!s->opts.sample_times)
    return 0;
  if (GROW(s, s->out->times, s->times_cap, s->out->ntimes + 1) != 0)
    return -1;
  t = &s->out->times[s->out->ntimes++];
  t->time = time;
  t->weight = weight;
  t->stack = stack;
  return 0;
}

static int time_cmp(const void *a, const void *b) {
  const lgp_st_time *x = a, *y = b;
  return x->time < y->time ? -1 : x->time > y->time;
}

/* ---- records ---- */

static int do_mmap(reader *s, const lgp_perf_record *rec) {
  lgp_perf_mmap m;
  pmap pm;
  proc *p;
  s->last_valid = 0;
  int kernel = (rec->misc & 7) == 1;
  if (lgp_perf_mmap_decode(s->pd, rec, &m, s->err) != 0)
    return -1;
  if (!(m.prot & 4) || (rec->type == LGP_PERF_MMAP2 && (rec->misc & 0x2000)))
    return 0;
  pm.start = m.start;
  pm.end = m.start + m.len < m.start ? UINT64_MAX : m.start + m.len;
  pm.pgoff = m.pgoff;
  if (kernel) {
    /* old perf wrote the kernel's start in pgoff and 0 as the address */
    if (pm.start < (1ULL << 63) && pm.pgoff >= (1ULL << 63))
      pm.start = pm.pgoff;
    if (strncmp(m.filename, "[kernel.kallsyms]", 17) == 0 && !s->kernel_text)
      s->kernel_text = m.pgoff;
    return 0;
  }
  if ((pm.dso = lgp_pr_dso_get(s, m.filename, m.pid, DK_ELF)) == NONE)
    return -1;
  if (m.has_buildid && !s->out->dsos[pm.dso].build_id_len && m.buildid_len) {
    memcpy(s->out->dsos[pm.dso].build_id, m.buildid, 20);
    s->out->dsos[pm.dso].build_id_len = m.buildid_len;
  }
  if (!(p = lgp_pr_proc_get(s, m.pid)))
    return -1;
  return lgp_pr_map_add(s, p, &pm);
}

static int do_task(reader *s, const lgp_perf_record *rec) {
  lgp_perf_task t;
  tidname *tn;
  s->last_valid = 0;
  if (lgp_perf_task_decode(s->pd, rec, &t, s->err) != 0)
    return -1;
  if (rec->type == LGP_PERF_COMM) {
    if (!(tn = lgp_pr_tid_get(s, t.tid, 1)))
      return -1;
    tn->comm = t.comm;
    if (rec->misc & 0x2000) {
      /* exec: the process's old mappings are gone */
      proc *p = lgp_pr_proc_get(s, t.pid);
      if (!p)
        return -1;
      p->n = 0;
      p->stale = 1;
    }
    return 0;
  }
  if (rec->type == LGP_PERF_FORK) {
    const tidname *parent = lgp_pr_tid_get(s, t.ptid, 0);
    const char *comm = parent ? parent->comm : NULL;
    if (!(tn = lgp_pr_tid_get(s, t.tid, 1)))
      return -1;
    tn->comm = comm;
    if (t.pid != t.ppid) {
      /* a new process: a copy of its parent's address space */
      proc *child = lgp_pr_proc_get(s, t.pid), *par;
      if (!child || !(par = lgp_pr_proc_get(s, t.ppid)))
        return -1;
      child = lgp_pr_proc_get(s, t.pid);   /* procs may have moved */
      if (GROW(s, child->maps, child->cap, par->n + 1) != 0)
        return -1;
      if (par->n)
        memcpy(child->maps, par->maps, par->n * sizeof *par->maps);
      child->n = par->n;
      child->stale = 1;
    }
  }
  return 0;
}

/* ---- the two passes ---- */

typedef struct entry {
  uint64_t time;
  size_t off;
} entry;

static int want(const reader *s, uint32_t type) {
  return type == LGP_PERF_SAMPLE || type == LGP_PERF_MMAP || type == LGP_PERF_MMAP2
         || type == LGP_PERF_COMM || type == LGP_PERF_FORK
         || (s->synth && (type == LGP_PERF_SWITCH || type == LGP_PERF_SWITCH_CPU_WIDE
                          || type == LGP_PERF_EXIT));
}

static int event_matches(const char *name, const char *want_name) {
  size_t l = strlen(want_name);
  return strcmp(name, want_name) == 0
         || (strncmp(name, want_name, l) == 0 && name[l] == ':');
}

static void progress(reader *s, uint64_t bytes) {
  if (s->opts.progress)
    s->opts.progress(s->opts.progress_ud, bytes, s->out->samples, s->binaries);
}

static int run(reader *s) {
  lgp_perf_record rec;
  lgp_perf_sample sm;
  entry *ents = NULL;
  uint64_t *keys = NULL, *nsamples = NULL, last_time = 0, lost = 0, lost_samples = 0;
  uint32_t *idx = NULL;
  size_t nents = 0, ents_cap = 0, pos = 0, i, nrec = 0;
  int rc = -1;
  char buf[64], buf2[64];
  if (!(nsamples = lgp_calloc_array(s->pd->nattrs, sizeof *nsamples)))
    return lgp_pr_oom(s);
  /* pass 1: index the records that matter, with their times */
  while (lgp_perf_next(s->pd, &pos, &rec, s->err) == 1) {
    uint64_t t = last_time;
    if ((++nrec & 0xffff) == 0)
      progress(s, rec.offset);
    if (rec.type == LGP_PERF_LOST) {
      lost += lgp_perf_lost_count(&rec);
      continue;
    }
    if (rec.type == LGP_PERF_LOST_SAMPLES) {
      lost_samples += lgp_perf_lost_count(&rec);
      continue;
    }
    if (rec.type == LGP_PERF_HEADER_BUILD_ID) {
      /* too short an entry is no build-id, not a reason to give up */
      if (rec.size >= 36 && lgp_perf_buildid_record(s->pd, &rec, s->err) != 0)
        goto done;
      continue;
    }
    if (!want(s, rec.type))
      continue;
    if (rec.type == LGP_PERF_SAMPLE) {
      if (lgp_perf_sample_decode(s->pd, &rec, &sm, s->err) != 0)
        goto done;
      nsamples[sm.attr]++;
      if (s->pd->attrs[sm.attr].sample_type & LGP_PS_TIME) {
        t = sm.time;
        if (!s->out->has_time || t < s->out->time_first)
          s->out->time_first = t;
        if (!s->out->has_time || t > s->out->time_last)
          s->out->time_last = t;
        s->out->has_time = 1;
      }
    } else {
      const lgp_perf_attr *a = &s->pd->attrs[lgp_perf_record_attr(s->pd, &rec)];
      uint64_t st = a->sample_type;
      size_t nslots = (size_t)(!!(st & LGP_PS_TID) + !!(st & LGP_PS_TIME) + !!(st & LGP_PS_ID)
                               + !!(st & LGP_PS_STREAM_ID) + !!(st & LGP_PS_CPU)
                               + !!(st & LGP_PS_IDENTIFIER));
      if ((a->flags & LGP_PERF_ATTR_SAMPLE_ID_ALL) && (st & LGP_PS_TIME)
          && rec.body_len >= 8 * nslots) {
        /* the trailer's time, counted back from the end */
        size_t back = 8 * (1 + !!(st & LGP_PS_ID) + !!(st & LGP_PS_STREAM_ID)
                           + !!(st & LGP_PS_CPU) + !!(st & LGP_PS_IDENTIFIER));
        t = lgp_perf_u64(rec.body + rec.body_len - back);
      }
    }
    last_time = t;
    if (GROW(s, ents, ents_cap, nents + 1) != 0)
      goto done;
    ents[nents].time = t;
    ents[nents++].off = rec.offset;
  }
  if (s->err->set)
    goto done;
  if (nents >= UINT32_MAX) {
    lgp_fail(s->err, s->pd->path, "too many records");
    goto done;
  }
  s->out->truncated_file = s->pd->truncated;
  /* LOST and LOST_SAMPLES report the same losses */
  s->out->lost = lost > lost_samples ? lost : lost_samples;
  /* what the recording holds of switches (the doctor's evidence; read
     properly when an off-CPU event is asked for) */
  s->out->switch_records = s->pd->record_counts[LGP_PERF_SWITCH] > 0
                           || s->pd->record_counts[LGP_PERF_SWITCH_CPU_WIDE] > 0;
  for (i = 0; i < s->pd->nattrs; i++)
    if (s->pd->attrs[i].type == LGP_PERF_TYPE_TRACEPOINT && nsamples[i]
        && strstr(lgp_perf_attr_name(&s->pd->attrs[i], buf, sizeof buf), "sched_switch"))
      s->out->switch_tracepoint = 1;
  /* the event */
  s->attr = 0;
  s->switch_attr = LGP_PR_NO_ATTR;
  if (s->synth) {
    if (lgp_pr_offcpu_setup(s, nsamples) != 0)
      goto done;
  } else if (s->opts.event) {
    for (i = 0; i < s->pd->nattrs; i++)
      if (event_matches(lgp_perf_attr_name(&s->pd->attrs[i], buf, sizeof buf), s->opts.event))
        break;
    if (i == s->pd->nattrs) {
      lgp_fail(s->err, s->pd->path, "no event '%s' in the recording", s->opts.event);
      goto done;
    }
    s->attr = i;
  } else {
    for (i = 0; i < s->pd->nattrs; i++)
      if (nsamples[i]) {
        s->attr = i;
        break;
      }
  }
  for (i = 0; i < s->pd->nattrs; i++) /* (several attrs may be one event) */
    if (strcmp(lgp_perf_attr_name(&s->pd->attrs[i], buf, sizeof buf),
               lgp_perf_attr_name(&s->pd->attrs[s->attr], buf2, sizeof buf2)) != 0
        && i != s->switch_attr)
      s->out->other_samples += nsamples[i];
  /* the parts of the recording kept */
  if (s->opts.nranges) {
    if (!s->out->has_time) {
      lgp_fail(s->err, s->pd->path, "--time-range: the recording's samples have no times");
      goto done;
    }
    if (!(s->ranges = lgp_calloc_array(s->opts.nranges, sizeof *s->ranges)))
      goto oom_done;
    s->nranges = s->opts.nranges;
    if (lgp_time_resolve(s->opts.ranges, s->nranges, s->out->time_first, s->out->time_last,
                         s->ranges, s->pd->path, s->err) != 0)
      goto done;
  }
  if (!(s->out->events = calloc(1, sizeof *s->out->events)))
    goto oom_done;
  s->out->nevents = 1;
  {
    const lgp_perf_attr *a = &s->pd->attrs[s->attr];
    if (!(s->out->events[0].name = lgp_strdup(s->synth ? s->opts.event
                                                         : lgp_perf_attr_name(a, buf, sizeof buf))))
      goto oom_done;
    /* cpu-clock and task-clock count nanoseconds, and so do the intervals */
    s->out->events[0].is_time = s->synth || (a->type == 1 && a->config <= 1);
    /* stack copies this reader can unwind: x86-64's registers, all of
       those DWARF numbers 0 to 16 name */
    s->can_unwind = (a->sample_type & LGP_PS_REGS_USER) && (a->sample_type & LGP_PS_STACK_USER)
                    && (a->sample_regs_user & 0xff01ffu) == 0xff01ffu
                    && (!s->pd->arch || strcmp(s->pd->arch, "x86_64") == 0);
    if (a->sample_type & LGP_PS_STACK_USER)
      s->out->stack_copy_size = a->sample_stack_user;
  }
  /* the special binaries */
  if ((s->kernel_dso = lgp_pr_dso_get(s, "[kernel.kallsyms]", 0, DK_KERNEL)) == NONE
      || (s->unknown_dso = lgp_pr_dso_get(s, "[unknown]", 0, DK_UNKNOWN)) == NONE)
    goto done;
  s->kernel_frame = NONE;
  /* pass 2: in time order, file order among equal times */
  if (!(keys = lgp_pr_alloc_array(nents ? nents : 1, sizeof *keys))
      || !(idx = lgp_pr_alloc_array(nents ? nents : 1, sizeof *idx)))
    goto oom_done;
  for (i = 0; i < nents; i++) {
    keys[i] = ents[i].time;
    idx[i] = (uint32_t)i;
  }
  if (lgp_radix_sort(idx, keys, nents) != 0)
    goto oom_done;
  for (i = 0; i < nents; i++) {
    size_t at = ents[idx[i]].off;
    if (lgp_perf_next(s->pd, &at, &rec, s->err) != 1) {
      lgp_fail(s->err, s->pd->path, "offset %zu: record not found again", ents[idx[i]].off);
      goto done;
    }
    if ((i & 0xfff) == 0)
      progress(s, at);
    if (rec.type == LGP_PERF_SAMPLE) {
      int kept;
      if (lgp_perf_sample_decode(s->pd, &rec, &sm, s->err) != 0)
        goto done;
      if (s->synth && lgp_pr_offcpu_sample(s, &sm, &kept) != 0)
        goto done;
      if (s->synth && !kept)
        continue;
      if (sm.attr == s->attr && (!s->nranges || lgp_time_in(s->ranges, s->nranges, sm.time))
          && lgp_pr_do_sample(s, &sm, NONE) != 0)
        goto done;
    } else if (rec.type == LGP_PERF_SWITCH || rec.type == LGP_PERF_SWITCH_CPU_WIDE
               || rec.type == LGP_PERF_EXIT) {
      if (lgp_pr_offcpu_record(s, &rec) != 0)
        goto done;
    } else if (rec.type == LGP_PERF_MMAP || rec.type == LGP_PERF_MMAP2) {
      if (do_mmap(s, &rec) != 0)
        goto done;
    } else if (do_task(s, &rec) != 0) {
      goto done;
    }
  }
  if (s->synth && lgp_pr_offcpu_finish(s, nents ? keys[idx[nents - 1]] : 0) != 0)
    goto done;
  /* the off-CPU intervals were kept as they ended: all in time order */
  if (s->out->ntimes > 1 && s->synth)
    qsort(s->out->times, s->out->ntimes, sizeof *s->out->times, time_cmp);
  /* each thread's name at its last sample */
  for (i = 0; i < s->out->nthreads; i++) {
    const char *c = s->thread_comm[i];
    char tmp[32];
    if (!c) {
      snprintf(tmp, sizeof tmp, ":%u", s->out->threads[i].tid);
      c = tmp;
    }
    if (!(s->out->threads[i].comm = lgp_strdup(c)))
      goto oom_done;
  }
  progress(s, s->pd->size);
  rc = 0;
  goto done;
oom_done:
  lgp_pr_oom(s);
done:
  free(ents);
  free(keys);
  free(idx);
  free(nsamples);
  return rc;
}

static void state_free(reader *s) {
  /* the address spaces first: their modules point at the binaries' ELFs */
  lgp_pr_spaces_free(s);
  lgp_pr_binaries_free(s);
  lgp_pr_scopes_free(s);
  lgp_pr_kernel_free(s);
  lgp_hashtab_free(&s->func_ht);
  lgp_hashtab_free(&s->file_ht);
  lgp_hashtab_free(&s->stack_ht);
  lgp_hashtab_free(&s->thread_ht);
  lgp_hashtab_free(&s->tid_ht);
  lgp_hashtab_free(&s->cache_ht);
  free(s->tids);
  free(s->thread_comm);
  free(s->cache);
  free(s->cframes);
  free(s->scratch);
  free(s->ranges);
  lgp_pr_offcpu_free(s);
}

/* Leaves out the binaries no frame resolved to (mapped, never sampled:
** their files were not even looked for). */
static int drop_unused_dsos(lgp_stacktab *out, lgp_err *err, const char *path) {
  uint32_t *to = lgp_pr_alloc_array(out->ndsos ? out->ndsos : 1, sizeof *to);
  size_t i, n = 0;
  if (!to)
    return lgp_fail(err, path, "out of memory");
  for (i = 0; i < out->ndsos; i++)
    to[i] = NONE;
  for (i = 0; i < out->nfuncs; i++)
    to[out->funcs[i].dso] = 0;
  for (i = 0; i < out->ndsos; i++) {
    if (to[i] == NONE) {
      free(out->dsos[i].path);
      free(out->dsos[i].found);
      free(out->dsos[i].names);
      continue;
    }
    to[i] = (uint32_t)n;
    out->dsos[n++] = out->dsos[i];
  }
  out->ndsos = n;
  for (i = 0; i < out->nfuncs; i++)
    out->funcs[i].dso = to[out->funcs[i].dso];
  free(to);
  return 0;
}

/* The names each binary a frame resolved to defines (its symbols, read
** already), so that a comparison can tell a function of that build that
** was not sampled from one the build does not have. */
static int binaries_names(reader *s) {
  lgp_stacktab *out = s->out;
  uint8_t *used = lgp_pr_alloc_array(out->ndsos ? out->ndsos : 1, 1);
  size_t i;
  int rc = 0;
  if (!used)
    return lgp_pr_oom(s);
  memset(used, 0, out->ndsos ? out->ndsos : 1);
  for (i = 0; i < out->nfuncs; i++)
    used[out->funcs[i].dso] = 1;
  for (i = 0; i < out->ndsos && rc == 0; i++)
    if (used[i] && s->dx[i].kind == DK_ELF && s->dx[i].mod != NULL)
      rc = lgp_pr_dso_names(s, (uint32_t)i);
  free(used);
  return rc;
}

static int stacks(lgp_stacktab *out, lgp_perf_data *pd, const lgp_perf_opts *opts,
                  lgp_err *err) {
  reader s;
  int rc;
  lgp_hashtab *tables[] = { &s.func_ht, &s.file_ht, &s.stack_ht, &s.thread_ht, &s.tid_ht,
                           &s.dso_ht, &s.debug.ht, &s.cu_ht, &s.proc_ht, &s.cache_ht };
  size_t i;
  memset(&s, 0, sizeof s);
  /* the reader's tables among its many small blocks: plain memory (big
     arrays on 2 MB boundaries leave gaps that cost whole pages) */
  for (i = 0; i < sizeof tables / sizeof *tables; i++)
    tables[i]->plain = 1;
  s.pd = pd;
  s.out = out;
  s.err = err;
  if (opts)
    s.opts = *opts;
  lgp_pr_offcpu_init(&s);
  if (s.opts.buildid_dir) {
    s.buildid_dir = lgp_strdup(s.opts.buildid_dir);
  } else {
    const char *home = getenv("HOME");
    s.buildid_dir = lgp_pr_joined(home ? home : "", "/.debug", "");
  }
  rc = s.buildid_dir ? run(&s) : lgp_pr_oom(&s);
  if (rc == 0)
    rc = binaries_names(&s);
  state_free(&s);
  if (rc == 0)
    rc = drop_unused_dsos(out, err, pd->path);
  return rc;
}

/* The table names the recording it was read from (the exports list it). */
static int name_recording(lgp_stacktab *out, const char *name, lgp_err *err) {
  if ((out->recording = lgp_strdup(name)) != NULL)
    return 0;
  lgp_stacktab_free(out);
  return lgp_fail(err, name, "out of memory");
}

int lgp_perf_stacks_bytes(lgp_stacktab *out, const char *name, const uint8_t *bytes, size_t n,
                          const lgp_perf_opts *opts, lgp_err *err) {
  lgp_perf_data pd;
  int rc;
  memset(out, 0, sizeof *out);
  if (lgp_perf_open_bytes(&pd, name, bytes, n, err) != 0) {
    lgp_perf_close(&pd);
    return -1;
  }
  rc = stacks(out, &pd, opts, err);
  lgp_perf_close(&pd);
  return rc == 0 ? name_recording(out, name, err) : rc;
}

int lgp_perf_stacks(lgp_stacktab *out, const char *path, const lgp_perf_opts *opts,
                    lgp_err *err) {
  lgp_perf_data pd;
  int rc;
  memset(out, 0, sizeof *out);
  if (lgp_perf_open(&pd, path, err) != 0)
    return -1;
  rc = stacks(out, &pd, opts, err);
  lgp_perf_close(&pd);
  return rc == 0 ? name_recording(out, path, err) : rc;
}
