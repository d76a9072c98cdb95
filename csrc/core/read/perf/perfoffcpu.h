/*
** perfoffcpu.h: the replay's off-CPU part (private to read/perf/): the
** synthesized events off-cpu and wall from the recorded switches (the
** sched:sched_switch tracepoint read through the recording's tracing data,
** PERF_RECORD_SWITCH and SWITCH_CPU_WIDE records, or both). Each interval
** (offcpu.h) is charged to the stack its thread left the CPU with, below a
** frame that names why ("[off-cpu: sleeping (S)]"), and cut to the time
** ranges kept.
*/
#ifndef perfoffcpu_h
#define perfoffcpu_h

#include <stdint.h>
#include "read/perf/perfdata.h"

/* Before anything: which event opts.event synthesizes, if any. */
void lgp_pr_offcpu_init(reader *s);
/* After the first pass: the switch sources and, for wall, the on-CPU
** event (s->attr). 0, or -1 with a message (no switches in the recording). */
int lgp_pr_offcpu_setup(reader *s, const uint64_t *nsamples);
/* A sample in time order: a switch-out when it is sched_switch's, else a
** sign that its thread runs. *kept: whether it goes on as an on-CPU
** sample (wall's event). 0, or -1. */
int lgp_pr_offcpu_sample(reader *s, const lgp_perf_sample *sm, int *kept);
/* A SWITCH, SWITCH_CPU_WIDE or EXIT record in time order. 0, or -1. */
int lgp_pr_offcpu_record(reader *s, const lgp_perf_record *rec);
/* At the end (end: the recording's last time): the intervals still open
** charged up to it, the stacks no interval reached left out. 0. */
int lgp_pr_offcpu_finish(reader *s, uint64_t end);
void lgp_pr_offcpu_free(reader *s);

#endif
