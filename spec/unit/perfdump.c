/*
** perfdump.c: prints what lgprof's perf.data reader (csrc/core/read/perf/)
** finds in a file, one line per item, for spec/perfdata_spec.lua to compare
** with what the spec wrote and with `perf report -D`:
**   perfdump FILE
** Exit status 0, or 1 with the reader's one-line message on stderr.
**   perfdump --each FILE...
** Each file in turn, in this one process (a spec that reads hundreds of
** files cut short would otherwise start a process for each, most of its
** time): "#file FILE", what perfdump FILE prints on stdout, then
** "#stderr MESSAGE" if it failed, and "#status N" (its exit status); exit
** status 0 once every file was read.
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "read/perf/perfdata.h"

static const char *name_of(uint32_t type) {
  switch (type) {
  case LGP_PERF_MMAP: return "MMAP";
  case LGP_PERF_LOST: return "LOST";
  case LGP_PERF_COMM: return "COMM";
  case LGP_PERF_EXIT: return "EXIT";
  case LGP_PERF_FORK: return "FORK";
  case LGP_PERF_SAMPLE: return "SAMPLE";
  case LGP_PERF_MMAP2: return "MMAP2";
  case LGP_PERF_LOST_SAMPLES: return "LOST_SAMPLES";
  case LGP_PERF_FINISHED_ROUND: return "FINISHED_ROUND";
  default: return NULL;
  }
}

/* Prints what the reader finds in path on stdout; returns the exit status,
** the reader's message written to msgs after prefix. */
static int dump(const char *path, FILE *msgs, const char *prefix) {
  lgp_perf_data pd;
  lgp_err err = { 0, "" };
  lgp_perf_record rec;
  size_t pos = 0, i, j;
  int rc;
  char buf[64];
  if (lgp_perf_open(&pd, path, &err) != 0) {
    fprintf(msgs, "%s%s\n", prefix, err.msg);
    return 1;
  }
  printf("mode %s\n", pd.pipe ? "pipe" : "file");
  for (i = 0; i < pd.nattrs; i++) {
    const lgp_perf_attr *a = &pd.attrs[i];
    printf("attr %zu type %u config %" PRIu64 " sample_type 0x%" PRIx64 " period %" PRIu64
           " name %s ids", i, a->type, a->config, a->sample_type, a->period_or_freq,
           lgp_perf_attr_name(a, buf, sizeof buf));
    for (j = 0; j < a->nids; j++)
      printf(" %" PRIu64, a->ids[j]);
    printf("\n");
  }
  if (pd.hostname) printf("hostname %s\n", pd.hostname);
  if (pd.version) printf("version %s\n", pd.version);
  if (pd.arch) printf("arch %s\n", pd.arch);
  for (i = 0; i < pd.ncmdline; i++) printf("cmdline %s\n", pd.cmdline[i]);
  for (i = 0; i < pd.nbuildids; i++) {
    printf("buildid %d ", pd.buildids[i].pid);
    for (j = 0; j < 20; j++) printf("%02x", pd.buildids[i].id[j]);
    printf(" len %u %s\n", pd.buildids[i].len, pd.buildids[i].path);
  }
  while ((rc = lgp_perf_next(&pd, &pos, &rec, &err)) == 1) {
    if (rec.type == LGP_PERF_SAMPLE) {
      lgp_perf_sample s;
      if (lgp_perf_sample_decode(&pd, &rec, &s, &err) != 0)
        break;
      printf("sample attr %zu mode %u pid %u tid %u time %" PRIu64 " ip 0x%" PRIx64
             " period %" PRIu64 " chain", s.attr, s.cpumode, s.pid, s.tid, s.time, s.ip,
             s.period);
      for (j = 0; j < s.nchain; j++)
        printf(" 0x%" PRIx64, lgp_perf_u64(s.chain + 8 * j));
      printf("\n");
    } else if (rec.type == LGP_PERF_MMAP || rec.type == LGP_PERF_MMAP2) {
      lgp_perf_mmap m;
      if (lgp_perf_mmap_decode(&pd, &rec, &m, &err) != 0)
        break;
      printf("mmap pid %u tid %u start 0x%" PRIx64 " len 0x%" PRIx64 " pgoff 0x%" PRIx64
             " prot %u time %" PRIu64 " buildid %d %s\n", m.pid, m.tid, m.start, m.len, m.pgoff,
             m.prot, m.sid.time, m.has_buildid, m.filename);
    } else if (rec.type == LGP_PERF_COMM || rec.type == LGP_PERF_FORK
               || rec.type == LGP_PERF_EXIT) {
      lgp_perf_task t;
      if (lgp_perf_task_decode(&pd, &rec, &t, &err) != 0)
        break;
      if (rec.type == LGP_PERF_COMM)
        printf("comm pid %u tid %u exec %d time %" PRIu64 " %s\n", t.pid, t.tid,
               !!(rec.misc & 0x2000), t.time, t.comm);
      else
        printf("%s pid %u ppid %u tid %u ptid %u time %" PRIu64 "\n",
               rec.type == LGP_PERF_FORK ? "fork" : "exit", t.pid, t.ppid, t.tid, t.ptid, t.time);
    } else if (rec.type == LGP_PERF_LOST || rec.type == LGP_PERF_LOST_SAMPLES) {
      printf("lost %" PRIu64 "\n", lgp_perf_lost_count(&rec));
    }
  }
  if (err.set) {
    fprintf(msgs, "%s%s\n", prefix, err.msg);
    lgp_perf_close(&pd);
    return 1;
  }
  for (i = 0; i < LGP_PERF_RECORD_TYPES; i++)
    if (pd.record_counts[i])
      printf("count %zu %s %" PRIu64 "\n", i, name_of((uint32_t)i) ? name_of((uint32_t)i) : "-",
             pd.record_counts[i]);
  printf("count other %" PRIu64 "\n", pd.other_records);
  if (pd.compressed_records)
    printf("compressed %" PRIu64 " records\n", pd.compressed_records);
  if (pd.truncated)
    printf("truncated at %zu\n", pd.truncated_at);
  lgp_perf_close(&pd);
  return 0;
}

int main(int argc, char **argv) {
  int k;
  if (argc == 2 && strcmp(argv[1], "--each") != 0)
    return dump(argv[1], stderr, "");
  if (argc < 3 || strcmp(argv[1], "--each") != 0) {
    fprintf(stderr, "usage: perfdump FILE | perfdump --each FILE...\n");
    return 2;
  }
  for (k = 2; k < argc; k++) {
    int status;
    printf("#file %s\n", argv[k]);
    status = dump(argv[k], stdout, "#stderr ");
    printf("#status %d\n", status);
  }
  return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
