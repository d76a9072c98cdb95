/*
** exporttimes.c: JSON's "sample_times" (export.h's sample_times option):
** a profile of sampled stacks' samples in time order, per thread, each
** with its time and its stack, so that a script finds the phases of a run
** itself. Written in one pass over the samples: they are ordered by thread
** with a counting sort (stable: each thread's stay in time order), never
** searched per thread.
*/
#include <stdlib.h>
#include <string.h>
#include "model/stackprofile.h"
#include "write/export_int.h"

/* The stacks: each one's frames as the call-graph indices of their
** functions, root first (as "functions" lists them). */
static void json_stacks(ectx *c, const lgp_stackprof *sp) {
  lgp_out *o = c->o;
  const lgp_stacktab *t = &sp->tab;
  size_t i;
  uint32_t d;
  const char *dso;
  lgp_out_str(o, "\"stacks\":[");
  for (i = 0; i < t->nstacks && !o->failed; i++) {
    const lgp_st_stack *s = &t->stacks[i];
    lgp_out_str(o, i == 0 ? "\n{\"frames\":[" : ",\n{\"frames\":[");
    for (d = 0; d < s->depth; d++) {
      uint32_t f = t->frame_defs[t->frames[s->first + s->depth - 1 - d]].func;
      if (d > 0)
        lgp_out_char(o, ',');
      lgp_export_out_u64(o, c->p->graph.nodes[sp->node_of[f]].index);
    }
    lgp_out_str(o, "],");
    lgp_export_json_u64(o, "tid", t->threads[s->thread].tid);
    /* an off-CPU interval's stack ends in its pseudo-binary's frame: its
       samples' times are their starts */
    dso = t->dsos[t->funcs[t->frame_defs[t->frames[s->first]].func].dso].path;
    lgp_export_json_bool(o, "off_cpu", dso != NULL && strcmp(dso, "[off-cpu]") == 0);
    lgp_export_json_key(o, "truncated");
    lgp_out_str(o, s->truncated ? "true}" : "false}");
  }
  lgp_out_str(o, "],\n");
}

int lgp_export_json_sample_times(ectx *c) {
  lgp_out *o = c->o;
  const lgp_stackprof *sp = lgp_stacks_of(c->p);
  const lgp_stacktab *t;
  size_t *start, *order, i, th;
  if (sp == NULL || sp->tab.times == NULL)
    return 0; /* gmon.out's samples have no times; nor a profile opened without them */
  t = &sp->tab;
  start = lgp_calloc_array(t->nthreads + 1, sizeof *start);
  order = lgp_alloc_array(t->ntimes ? t->ntimes : 1, sizeof *order);
  if (start == NULL || order == NULL) {
    free(start);
    free(order);
    return -1;
  }
  /* counting sort by thread: start[th] .. start[th + 1] are its samples */
  for (i = 0; i < t->ntimes; i++)
    start[t->stacks[t->times[i].stack].thread + 1]++;
  for (th = 0; th < t->nthreads; th++)
    start[th + 1] += start[th];
  for (i = 0; i < t->ntimes; i++)
    order[start[t->stacks[t->times[i].stack].thread]++] = i;
  for (th = t->nthreads; th > 0; th--) /* each start[th] was moved to its end: back */
    start[th] = start[th - 1];
  start[0] = 0;
  lgp_out_str(o, ",\n\"sample_times\":{");
  lgp_export_json_key(o, "unit");
  lgp_out_str(o, "\"seconds from the recording's first sample\",");
  lgp_export_json_num(o, "first", (double)t->time_first / 1e9);
  lgp_export_json_num(o, "last", (double)t->time_last / 1e9);
  json_stacks(c, sp);
  lgp_out_str(o, "\"threads\":[");
  {
    int first_thread = 1;
    for (th = 0; th < t->nthreads && !o->failed; th++) {
      size_t end = start[th + 1];
      if (start[th] == end)
        continue; /* a thread none of this profile's samples is from */
      lgp_out_str(o, first_thread ? "\n{" : ",\n{");
      first_thread = 0;
      lgp_export_json_u64(o, "pid", t->threads[th].pid);
      lgp_export_json_u64(o, "tid", t->threads[th].tid);
      lgp_export_json_key(o, "comm");
      lgp_json_cstr(o, t->threads[th].comm);
      lgp_out_str(o, ",\"samples\":[");
      for (i = start[th]; i < end && !o->failed; i++) {
        const lgp_st_time *e = &t->times[order[i]];
        lgp_out_str(o, i == start[th] ? "\n{" : ",\n{");
        /* (a switch record may come before the first sample) */
        lgp_export_json_num(o, "time", ((double)e->time - (double)t->time_first) / 1e9);
        lgp_export_json_num(o, "seconds", sp->is_time ? (double)e->weight / 1e9 : (double)e->weight);
        lgp_export_json_key(o, "stack");
        lgp_export_out_u64(o, e->stack);
        lgp_out_char(o, '}');
      }
      lgp_out_str(o, "]}");
    }
  }
  lgp_out_str(o, "]}");
  free(start);
  free(order);
  return 0;
}
