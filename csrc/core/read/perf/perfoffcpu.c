/*
** perfoffcpu.c: off-CPU time from the recorded switches (perfoffcpu.h).
**
** The three ways a recording tells switches, and what each gives:
**   - sched:sched_switch samples (perf record -e sched:sched_switch -g):
**     the stack and prev_state at each switch-out; no switch-in, so an
**     interval ends at the thread's next record of any kind, or at a switch
**     whose next_pid names it: an upper bound;
**   - PERF_RECORD_SWITCH / SWITCH_CPU_WIDE (--switch-events): both ends,
**     exact, and "preempted" or not, but no stack;
**   - both (hotspot's recording): the ends from the records, the stack and
**     the state from the thread's sched_switch sample just before its OUT.
*/
#include <stdlib.h>
#include <string.h>

#include "read/perf/perfreader.h"

void lgp_pr_offcpu_init(reader *s) {
  const char *e = s->opts.event;
  int k;
  s->synth = !e ? LGP_PR_SYNTH_NONE
             : strcmp(e, LGP_PERF_EVENT_OFFCPU) == 0 ? LGP_PR_SYNTH_OFFCPU
             : strcmp(e, LGP_PERF_EVENT_WALL) == 0 ? LGP_PR_SYNTH_WALL : LGP_PR_SYNTH_NONE;
  s->switch_attr = LGP_PR_NO_ATTR;
  s->offcpu_dso = NONE;
  for (k = 0; k < LGP_OFF_NKINDS; k++)
    s->kind_fd[k] = NONE;
}

void lgp_pr_offcpu_free(reader *s) {
  lgp_trace_free(&s->trace);
  lgp_offcpu_free(&s->off);
}

static int kind_wanted(const reader *s, int kind) {
  unsigned k = s->opts.off_kinds;
  if (k == 0)
    return 1;
  if (kind == LGP_OFF_BLOCKED)  /* S or D: a switch record tells no more */
    return (k & (1u << LGP_OFF_SLEEP | 1u << LGP_OFF_DISK | 1u << LGP_OFF_BLOCKED)) != 0;
  return (k >> kind & 1) != 0;
}

/* The frame of an off-CPU kind, put below the stack a thread left with: a
** function of its own pseudo-binary "[off-cpu]". */
static uint32_t kind_frame(reader *s, int kind) {
  if (s->kind_fd[kind] == NONE) {
    uint32_t f;
    if (s->offcpu_dso == NONE
        && (s->offcpu_dso = lgp_pr_dso_get(s, "[off-cpu]", 0, DK_UNKNOWN)) == NONE)
      return NONE;
    f = lgp_pr_func_get(s, s->offcpu_dso, lgp_offcpu_kind_frame(kind), 0, 0, (uint64_t)kind,
                        (uint64_t)kind + 1, LGP_ST_NOFILE, 0);
    s->kind_fd[kind] = lgp_pr_fdef_add(s, f, (uint64_t)kind, LGP_ST_NOFILE, 0);
  }
  return s->kind_fd[kind];
}

/* A stack of the kind's frame alone: the switch record tells no stack. */
static int bare_stack(reader *s, uint32_t pid, uint32_t tid, int kind, uint32_t *out) {
  uint32_t thread = lgp_pr_thread_get(s, pid, tid), fd = kind_frame(s, kind);
  if (thread == NONE || fd == NONE || GROW(s, s->scratch, s->scratch_cap, 1) != 0)
    return -1;
  if (!s->thread_comm[thread]) {
    const tidname *tn = lgp_pr_tid_get(s, tid, 0);
    s->thread_comm[thread] = tn ? tn->comm : NULL;
  }
  s->scratch[0] = fd;
  if (lgp_pr_stack_add(s, thread, 1, 0, 0, 0) != 0)
    return -1;
  *out = s->last_stack;
  return 0;
}

/* An interval that ended: its time (within the ranges) to its stack. */
static int charge(reader *s, const lgp_offcpu_interval *iv) {
  uint64_t w;
  lgp_st_stack *st;
  if (iv->stack == LGP_OFF_NOSTACK || !kind_wanted(s, iv->kind))
    return 0;
  w = s->nranges ? lgp_time_overlap(s->ranges, s->nranges, iv->from, iv->to) : iv->to - iv->from;
  if (w == 0 && s->nranges)
    return 0;
  st = &s->out->stacks[iv->stack];
  st->samples++;
  st->weight += w;
  s->out->samples++;
  s->out->offcpu_ns[iv->kind] += w;
  s->out->offcpu_intervals++;
  if (iv->open) {
    s->out->offcpu_open++;
    s->out->offcpu_open_ns += w;
  }
  return lgp_pr_time_add(s, iv->from, w, iv->stack);
}

/* The thread runs (again) at time. 0, or -1 out of memory. */
static int runs(reader *s, uint32_t tid, uint64_t time) {
  lgp_offcpu_interval iv;
  return lgp_offcpu_in(&s->off, tid, time, &iv) == 1 ? charge(s, &iv) : 0;
}

/* A sched:sched_switch sample: the thread leaves the CPU with its stack;
** the fields are read where the recording's format puts them. */
static int switch_sample(reader *s, const lgp_perf_sample *sm) {
  int64_t state, next = -1, prev = -1;
  uint32_t tid = sm->tid, stack = LGP_OFF_NOSTACK;
  int kind;
  if (!sm->raw
      || lgp_trace_field_int(&s->trace, s->f_prev_state, sm->raw, sm->raw_size, &state) != 0)
    return 0;   /* no state: a sample that tells nothing */
  if (s->f_next_pid)
    (void)lgp_trace_field_int(&s->trace, s->f_next_pid, sm->raw, sm->raw_size, &next);
  /* a thread already exiting has no tid in the sample (perf record -a) */
  if (tid == UINT32_MAX && s->f_prev_pid
      && lgp_trace_field_int(&s->trace, s->f_prev_pid, sm->raw, sm->raw_size, &prev) == 0)
    tid = (uint32_t)prev;
  kind = lgp_offcpu_kind(state);
  if (kind != LGP_OFF_EXIT && kind_wanted(s, kind)) {
    lgp_perf_sample copy = *sm;
    uint32_t fd = kind_frame(s, kind);
    copy.tid = tid;
    if (fd == NONE || lgp_pr_do_sample(s, &copy, fd) != 0)
      return -1;
    stack = s->last_stack;
  }
  if (s->out->switch_records)
    return lgp_offcpu_note(&s->off, tid, kind, stack) == 0 ? 0 : lgp_pr_oom(s);
  /* the tracepoint alone: the next task runs from now (the idle task, 0,
     is no thread of the program) */
  if (next > 0 && (uint64_t)next != tid && next <= UINT32_MAX
      && runs(s, (uint32_t)next, sm->time) != 0)
    return -1;
  /* and this one ran before it left again: its own switch is a record of
     it too */
  if (runs(s, tid, sm->time) != 0)
    return -1;
  return lgp_offcpu_out(&s->off, tid, sm->time, kind, stack, 0) == 0 ? 0 : lgp_pr_oom(s);
}

int lgp_pr_offcpu_sample(reader *s, const lgp_perf_sample *sm, int *kept) {
  *kept = 0;
  if (sm->attr == s->switch_attr)
    return switch_sample(s, sm);
  /* a thread that is sampled runs: the tracepoint alone tells no switch-in */
  if (!s->out->switch_records && runs(s, sm->tid, sm->time) != 0)
    return -1;
  if (s->synth != LGP_PR_SYNTH_WALL || sm->attr != s->attr)
    return 0;
  *kept = 1;
  if (sm->has_period && (!s->nranges || lgp_time_in(s->ranges, s->nranges, sm->time)))
    s->out->oncpu_ns += sm->period;
  return 0;
}

int lgp_pr_offcpu_record(reader *s, const lgp_perf_record *rec) {
  lgp_perf_switch sw;
  uint32_t stack = LGP_OFF_NOSTACK;
  int kind;
  if (rec->type == LGP_PERF_EXIT) {
    lgp_perf_task t;
    if (lgp_perf_task_decode(s->pd, rec, &t, s->err) != 0)
      return -1;
    return runs(s, t.tid, t.sid.has_time ? t.sid.time : t.time);
  }
  if (lgp_perf_switch_decode(s->pd, rec, &sw, s->err) != 0)
    return -1;
  if (sw.sid.tid == 0)      /* the idle task */
    return 0;
  if (!sw.out)
    return runs(s, sw.sid.tid, sw.sid.time);
  kind = sw.preempt ? LGP_OFF_RUNNABLE : LGP_OFF_BLOCKED;
  if (!lgp_offcpu_noted(&s->off, sw.sid.tid) && kind_wanted(s, kind)
      && bare_stack(s, sw.sid.pid, sw.sid.tid, kind, &stack) != 0)
    return -1;
  return lgp_offcpu_out(&s->off, sw.sid.tid, sw.sid.time, kind, stack, 1) == 0 ? 0
         : lgp_pr_oom(s);
}

int lgp_pr_offcpu_setup(reader *s, const uint64_t *nsamples) {
  size_t i;
  char buf[64];
  s->out->switch_records = s->pd->record_counts[LGP_PERF_SWITCH] > 0
                           || s->pd->record_counts[LGP_PERF_SWITCH_CPU_WIDE] > 0;
  if (s->pd->tracing
      && lgp_trace_parse(&s->trace, s->pd->tracing, s->pd->tracing_len, s->pd->path, s->err) != 0)
    return -1;
  /* the attrs are few: each looked up once */
  for (i = 0; i < s->pd->nattrs; i++) {
    const lgp_perf_attr *a = &s->pd->attrs[i];
    const lgp_trace_event *ev;
    if (a->type != LGP_PERF_TYPE_TRACEPOINT || !(a->sample_type & LGP_PS_RAW)
        || !(ev = lgp_trace_event_by_id(&s->trace, a->config))
        || strcmp(ev->name, "sched_switch") != 0
        || !(s->f_prev_state = lgp_trace_field_find(ev, "prev_state")))
      continue;
    s->f_next_pid = lgp_trace_field_find(ev, "next_pid");
    s->f_prev_pid = lgp_trace_field_find(ev, "prev_pid");
    s->switch_attr = i;
    s->out->switch_tracepoint = 1;
    break;
  }
  if (s->switch_attr == LGP_PR_NO_ATTR && !s->out->switch_records)
    return lgp_fail(s->err, s->pd->path,
                    "no context switches in the recording: --event=%s needs sched:sched_switch "
                    "samples or switch records (lgprof record --off-cpu, or perf record "
                    "-e sched:sched_switch or --switch-events)", s->opts.event);
  s->out->synthesized = 1;
  if (s->synth == LGP_PR_SYNTH_OFFCPU) {
    s->attr = s->switch_attr != LGP_PR_NO_ATTR ? s->switch_attr : 0;
    return 0;
  }
  /* wall: the on-CPU event, a time (its weights are nanoseconds) */
  for (i = 0; i < s->pd->nattrs; i++) {
    const lgp_perf_attr *a = &s->pd->attrs[i];
    if (i != s->switch_attr && nsamples[i] && a->type != LGP_PERF_TYPE_TRACEPOINT)
      break;
  }
  if (i == s->pd->nattrs)
    return lgp_fail(s->err, s->pd->path,
                    "--event=wall needs on-CPU samples (cpu-clock) besides the switches");
  if (!(s->pd->attrs[i].type == 1 && s->pd->attrs[i].config <= 1))
    return lgp_fail(s->err, s->pd->path,
                    "--event=wall needs a time event sampled on the CPU (cpu-clock or "
                    "task-clock), not %s", lgp_perf_attr_name(&s->pd->attrs[i], buf, sizeof buf));
  s->attr = i;
  return 0;
}

int lgp_pr_offcpu_finish(reader *s, uint64_t end) {
  lgp_offcpu_interval iv;
  size_t at = 0, i, k = 0;
  uint32_t *to = NULL;
  /* the threads still off the CPU: charged up to the recording's end */
  while (lgp_offcpu_next_open(&s->off, &at, end, &iv) == 1)
    if (charge(s, &iv) != 0)
      return -1;
  s->out->offcpu_restarted = s->off.restarted;
  s->out->offcpu_restarted_ns = s->off.restarted_ns;
  /* the stacks no interval reached (their kind was not kept, or their
     switch was lost) left out: nothing points at a stack by its index yet */
  if (s->out->ntimes && !(to = lgp_pr_alloc_array(s->out->nstacks, sizeof *to)))
    return lgp_pr_oom(s);
  for (i = 0; i < s->out->nstacks; i++) {
    if (to)
      to[i] = (uint32_t)k;
    if (s->out->stacks[i].samples > 0)
      s->out->stacks[k++] = s->out->stacks[i];
  }
  s->out->nstacks = k;
  /* the kept times point at kept stacks, which moved down */
  for (i = 0; to && i < s->out->ntimes; i++)
    s->out->times[i].stack = to[s->out->times[i].stack];
  free(to);
  /* none (a program that never left the CPU): an empty profile, as a time
     range with no sample gives */
  return 0;
}
