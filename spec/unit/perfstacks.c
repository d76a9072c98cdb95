/*
** perfstacks.c: prints the table of sampled stacks lgprof makes of a
** perf.data file (csrc/core/read/perf/perfstacks.c), for
** spec/perfstacks_spec.lua:
**   perfstacks [--event E] [--symfs D] [--buildid-dir D] [--kallsyms F]
**              [--jit-dir D] [--no-inline] [--progress] FILE
** Tab-separated lines:
**   event NAME samples weight lost no_chain depth_one truncated
**         kernel_unresolved truncated_file nstacks elf_opens debug_inflated
**   progress CALLS BYTES SAMPLES BINARIES (--progress: the last call's)
**   why unwound stack_copy_size stack_copy no_cfi no_binary depth other
**     (the truncated samples by reason)
**   unwind_error SAMPLES WHAT
**   dso PATH STATUS FOUND stops_no_cfi stops_no_binary
**   thread PID TID COMM
**   func DSO NAME self_samples self_weight children_samples children_weight
**     (self: the stacks' leaf frames; children: every function of a stack,
**     once per stack however often it recurs, as perf report counts them)
**   arc DSO CALLER DSO CALLEE samples weight (each pair once per stack)
**   stack PID TID samples weight truncated FRAMES (leaf first, ";"-separated
**     "NAME" or "NAME@FILE:LINE" with the base name of FILE)
** Exit status 0, or 1 with the reader's one-line message on stderr.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "read/perf/perfstacks.h"

static const char *const status_names[] = {
  "ok", "missing", "mismatch", "stripped", "kernel", "vdso", "jit", "unknown"
};

typedef struct seen {
  unsigned long calls;
  uint64_t bytes, samples, binaries;
} seen;

static void on_progress(void *ud, uint64_t bytes, uint64_t samples, uint64_t binaries) {
  seen *p = ud;
  p->calls++;
  p->bytes = bytes;
  p->samples = samples;
  p->binaries = binaries;
}

static const char *base(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int main(int argc, char **argv) {
  lgp_perf_opts o;
  lgp_stacktab t;
  lgp_err err = { 0, "" };
  const char *path = NULL;
  uint64_t *self_s, *self_w, *ch_s, *ch_w;
  size_t *stamp, i, j, k;
  int a, show_progress = 0;
  seen prog = { 0, 0, 0, 0 };
  memset(&o, 0, sizeof o);
  for (a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--no-inline") == 0) o.no_inline = 1;
    else if (strcmp(argv[a], "--progress") == 0) show_progress = 1;
    else if (a + 1 < argc && strcmp(argv[a], "--event") == 0) o.event = argv[++a];
    else if (a + 1 < argc && strcmp(argv[a], "--symfs") == 0) o.symfs = argv[++a];
    else if (a + 1 < argc && strcmp(argv[a], "--buildid-dir") == 0) o.buildid_dir = argv[++a];
    else if (a + 1 < argc && strcmp(argv[a], "--kallsyms") == 0) o.kallsyms = argv[++a];
    else if (a + 1 < argc && strcmp(argv[a], "--jit-dir") == 0) o.jit_dir = argv[++a];
    else if (!path) path = argv[a];
    else path = NULL, a = argc;
  }
  if (!path) {
    fprintf(stderr, "usage: perfstacks [options] FILE\n");
    return 2;
  }
  if (show_progress) {
    o.progress = on_progress;
    o.progress_ud = &prog;
  }
  if (lgp_perf_stacks(&t, path, &o, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    lgp_stacktab_free(&t);
    return 1;
  }
  {
    uint64_t w = 0;
    for (i = 0; i < t.nstacks; i++)
      w += t.stacks[i].weight;
    printf("event\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
           "\t%" PRIu64 "\t%d\t%zu\t%" PRIu64 "\t%" PRIu64 "\n", t.nevents ? t.events[0].name : "-",
           t.samples, w, t.lost, t.no_chain, t.depth_one, t.truncated, t.kernel_unresolved,
           t.truncated_file, t.nstacks, t.elf_opens, t.debug_inflated);
  }
  if (show_progress)
    printf("progress\t%lu\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", prog.calls, prog.bytes,
           prog.samples, prog.binaries);
  printf("why\t%" PRIu64 "\t%" PRIu64, t.unwound, t.stack_copy_size);
  for (i = 0; i < LGP_TRUNC_NREASONS; i++)
    printf("\t%" PRIu64, t.truncated_why[i]);
  printf("\n");
  for (i = 0; i < t.nunwind_errors; i++)
    printf("unwind_error\t%" PRIu64 "\t%s\n", t.unwind_errors[i].samples, t.unwind_errors[i].what);
  for (i = 0; i < t.ndsos; i++)
    printf("dso\t%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n", t.dsos[i].path,
           t.dsos[i].status < 8 ? status_names[t.dsos[i].status] : "?",
           t.dsos[i].found ? t.dsos[i].found : "-", t.dsos[i].stops_no_cfi,
           t.dsos[i].stops_no_binary);
  for (i = 0; i < t.nthreads; i++)
    printf("thread\t%u\t%u\t%s\n", t.threads[i].pid, t.threads[i].tid, t.threads[i].comm);
  self_s = calloc(t.nfuncs + 1, sizeof *self_s);
  self_w = calloc(t.nfuncs + 1, sizeof *self_w);
  ch_s = calloc(t.nfuncs + 1, sizeof *ch_s);
  ch_w = calloc(t.nfuncs + 1, sizeof *ch_w);
  stamp = calloc(t.nfuncs + 1, sizeof *stamp);
  if (!self_s || !self_w || !ch_s || !ch_w || !stamp) {
    fprintf(stderr, "perfstacks: out of memory\n");
    return 1;
  }
  for (i = 0; i < t.nstacks; i++) {
    const lgp_st_stack *s = &t.stacks[i];
    if (s->depth) {
      uint32_t leaf = t.frame_defs[t.frames[s->first]].func;
      self_s[leaf] += s->samples;
      self_w[leaf] += s->weight;
    }
    for (j = 0; j < s->depth; j++) {
      uint32_t f = t.frame_defs[t.frames[s->first + j]].func;
      if (stamp[f] != i + 1) {
        stamp[f] = i + 1;
        ch_s[f] += s->samples;
        ch_w[f] += s->weight;
      }
    }
  }
  for (i = 0; i < t.nfuncs; i++)
    printf("func\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
           t.dsos[t.funcs[i].dso].path, t.funcs[i].name, self_s[i], self_w[i], ch_s[i], ch_w[i]);
  /* arcs: distinct (caller, callee) pairs of each stack; a quadratic scan
     is fine for the small stacks a spec writes */
  for (i = 0; i < t.nstacks; i++) {
    const lgp_st_stack *s = &t.stacks[i];
    for (j = 0; j + 1 < s->depth; j++) {
      uint32_t callee = t.frame_defs[t.frames[s->first + j]].func;
      uint32_t caller = t.frame_defs[t.frames[s->first + j + 1]].func;
      int seen = 0;
      for (k = 0; k < j; k++)
        if (t.frame_defs[t.frames[s->first + k]].func == callee
            && t.frame_defs[t.frames[s->first + k + 1]].func == caller)
          seen = 1;
      if (!seen)
        printf("arc\t%s\t%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n", t.dsos[t.funcs[caller].dso].path,
               t.funcs[caller].name, t.dsos[t.funcs[callee].dso].path, t.funcs[callee].name,
               s->samples, s->weight);
    }
  }
  for (i = 0; i < t.nstacks; i++) {
    const lgp_st_stack *s = &t.stacks[i];
    printf("stack\t%u\t%u\t%" PRIu64 "\t%" PRIu64 "\t%d\t", t.threads[s->thread].pid,
           t.threads[s->thread].tid, s->samples, s->weight, s->truncated);
    for (j = 0; j < s->depth; j++) {
      const lgp_st_frame *fr = &t.frame_defs[t.frames[s->first + j]];
      printf("%s%s", j ? ";" : "", t.funcs[fr->func].name);
      if (fr->file != LGP_ST_NOFILE)
        printf("@%s:%u", base(t.files[fr->file]), fr->line);
    }
    printf("\n");
  }
  free(self_s);
  free(self_w);
  free(ch_s);
  free(ch_w);
  free(stamp);
  lgp_stacktab_free(&t);
  return 0;
}
