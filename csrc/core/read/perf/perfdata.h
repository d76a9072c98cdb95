/*
** perfdata.h: the container of perf.data files (`perf record`), file mode,
** pipe mode and directories (--threads), zstd-compressed or not: the header, the event attributes and their ids, the
** feature sections lgprof uses, and the record stream, with each record's
** fields decoded on request. Nothing here resolves an address: that is the
** address spaces' and symbols' work, on the records this hands out in file
** order.
**
** Every size and count read from the file is checked against the bytes
** really there before it is used; fields are read with memcpy (records are
** not always 8-byte aligned). Files of the other byte order are read through
** a copy turned to this machine's order (perfswap.h).
*/
#ifndef perfdata_h
#define perfdata_h

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "read/gmon.h"
#include "util/util.h"

/* Record types (the kernel's, then perf's own). */
enum {
  LGP_PERF_MMAP = 1, LGP_PERF_LOST = 2, LGP_PERF_COMM = 3, LGP_PERF_EXIT = 4,
  LGP_PERF_THROTTLE = 5, LGP_PERF_UNTHROTTLE = 6, LGP_PERF_FORK = 7, LGP_PERF_READ = 8,
  LGP_PERF_SAMPLE = 9, LGP_PERF_MMAP2 = 10, LGP_PERF_LOST_SAMPLES = 13,
  LGP_PERF_SWITCH = 14, LGP_PERF_SWITCH_CPU_WIDE = 15,
  LGP_PERF_HEADER_ATTR = 64, LGP_PERF_HEADER_TRACING_DATA = 66, LGP_PERF_HEADER_BUILD_ID = 67,
  LGP_PERF_FINISHED_ROUND = 68, LGP_PERF_AUXTRACE = 71, LGP_PERF_HEADER_FEATURE = 80,
  LGP_PERF_COMPRESSED = 81, LGP_PERF_FINISHED_INIT = 82, LGP_PERF_COMPRESSED2 = 83,
  LGP_PERF_RECORD_TYPES = 84 /* counted per type below this */
};

/* sample_type bits. */
enum {
  LGP_PS_IP = 1u << 0, LGP_PS_TID = 1u << 1, LGP_PS_TIME = 1u << 2, LGP_PS_ADDR = 1u << 3,
  LGP_PS_READ = 1u << 4, LGP_PS_CALLCHAIN = 1u << 5, LGP_PS_ID = 1u << 6, LGP_PS_CPU = 1u << 7,
  LGP_PS_PERIOD = 1u << 8, LGP_PS_STREAM_ID = 1u << 9, LGP_PS_RAW = 1u << 10,
  LGP_PS_BRANCH_STACK = 1u << 11, LGP_PS_REGS_USER = 1u << 12, LGP_PS_STACK_USER = 1u << 13,
  LGP_PS_WEIGHT = 1u << 14, LGP_PS_DATA_SRC = 1u << 15, LGP_PS_IDENTIFIER = 1u << 16,
  LGP_PS_TRANSACTION = 1u << 17, LGP_PS_REGS_INTR = 1u << 18, LGP_PS_PHYS_ADDR = 1u << 19,
  LGP_PS_AUX = 1u << 20, LGP_PS_CGROUP = 1u << 21, LGP_PS_DATA_PAGE_SIZE = 1u << 22,
  LGP_PS_CODE_PAGE_SIZE = 1u << 23, LGP_PS_WEIGHT_STRUCT = 1u << 24,
  LGP_PS_KNOWN = (1u << 25) - 1
};

/* Callchain context markers: values at or above LGP_PERF_CONTEXT_MAX. */
#define LGP_PERF_CONTEXT_HV ((uint64_t)-32)
#define LGP_PERF_CONTEXT_KERNEL ((uint64_t)-128)
#define LGP_PERF_CONTEXT_USER ((uint64_t)-512)
#define LGP_PERF_CONTEXT_GUEST ((uint64_t)-2048)
#define LGP_PERF_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define LGP_PERF_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define LGP_PERF_CONTEXT_MAX ((uint64_t)-4095)

/* One event of the recording (an attr), with its ids and name. */
typedef struct lgp_perf_attr {
  uint32_t type, size;
  uint64_t config, period_or_freq, sample_type, read_format, flags;
  uint64_t branch_sample_type, sample_regs_user, sample_regs_intr;
  uint32_t sample_stack_user;
  uint64_t *ids;
  size_t nids;
  char *name;          /* EVENT_DESC's, else NULL */
} lgp_perf_attr;

#define LGP_PERF_ATTR_FREQ (1u << 10)
#define LGP_PERF_ATTR_SAMPLE_ID_ALL (1u << 18)
#define LGP_PERF_ATTR_CONTEXT_SWITCH (1u << 26)
#define LGP_PERF_TYPE_TRACEPOINT 2

/* A build-id as the recording lists it (BUILD_ID feature or record). */
typedef struct lgp_perf_buildid {
  int32_t pid;
  uint8_t cpumode;     /* misc & 7: 1 kernel, 2 user, ... */
  uint8_t len;         /* 0: unknown (strip trailing zero words) */
  uint8_t id[20];
  char *path;
} lgp_perf_buildid;

typedef struct lgp_perf_data {
  const char *path;
  lgp_blob blob;          /* the file, mapped or read (lgp_perf_open) */
  const uint8_t *bytes;   /* the whole file */
  size_t size;
  int pipe;               /* pipe mode: 16-byte header, attrs and features as records */
  size_t data_start, data_end;
  uint64_t features[4];   /* file mode: the feature bitmap */
  lgp_perf_attr *attrs;
  size_t nattrs, attrs_cap;
  struct lgp_perf_idattr *id_index; /* every attr's ids, sorted: which attr has an id */
  size_t nid_index;
  lgp_perf_buildid *buildids;
  size_t nbuildids, buildids_cap;
  char *hostname, *osrelease, *version, *arch, *cpudesc;
  char **cmdline;
  size_t ncmdline;
  uint32_t nrcpus_online, nrcpus_avail;
  uint64_t first_time, last_time;   /* SAMPLE_TIME, 0 when absent */
  int compressed;         /* the COMPRESSED feature (zstd records) */
  const uint8_t *tracing; /* the tracing data (feature 1, pipe record 66), or NULL */
  size_t tracing_len;
  /* perf record -z, or a directory: the file's bytes up to its records,
  ** then its records (a directory's data, data.0, data.1, ...) with each
  ** COMPRESSED record replaced by the records it holds; bytes, size and
  ** data_end then point here, and record offsets are in it */
  uint8_t *expanded;
  uint8_t *swapped;       /* a file of the other byte order: its copy in this order */
  uint64_t compressed_records; /* COMPRESSED and COMPRESSED2 records read */
  int cut_short;          /* the expanded stream's source ended inside a record */
  int truncated;          /* the stream ended inside a record, or data.size was 0 */
  size_t truncated_at;    /* where the last whole record ended */
  uint64_t record_counts[LGP_PERF_RECORD_TYPES];
  uint64_t other_records; /* types past the table */
} lgp_perf_data;

/* One record of the stream, in place (body: the bytes after the header). */
typedef struct lgp_perf_record {
  uint32_t type;
  uint16_t misc, size;
  size_t offset;          /* in bytes: the file, or the expanded stream */
  const uint8_t *body;
  size_t body_len;        /* size - 8 */
} lgp_perf_record;

/* The sample_id trailer of a non-sample kernel record (fields present
** according to its attr's sample_type). */
typedef struct lgp_perf_sample_id {
  uint32_t pid, tid, cpu;
  uint64_t time, id, stream_id;
  int has_tid, has_time;
} lgp_perf_sample_id;

/* A decoded SAMPLE. Pointers point into the file's bytes; arrays of u64
** there are not aligned: read them with lgp_perf_u64. */
typedef struct lgp_perf_sample {
  size_t attr;            /* which event */
  uint16_t cpumode;       /* misc & 7 */
  uint64_t ip, time, addr, id, stream_id, period;
  uint32_t pid, tid, cpu;
  uint64_t nchain;
  const uint8_t *chain;   /* nchain u64 */
  uint64_t nbranch;
  const uint8_t *branches; /* nbranch x {from, to, flags} */
  uint64_t regs_abi;
  uint64_t nregs;
  const uint8_t *regs;    /* nregs u64, in the mask's bit order */
  uint64_t stack_size, stack_dyn_size;
  const uint8_t *stack;
  const uint8_t *raw;     /* a tracepoint's RAW bytes (read them by tracedata.h) */
  uint32_t raw_size;
  int has_period;
} lgp_perf_sample;

/* A context switch (SWITCH, SWITCH_CPU_WIDE): the thread switching and the
** time are those of the trailer. */
typedef struct lgp_perf_switch {
  int out;                /* switched out (else in) */
  int preempt;            /* out while still runnable (preempted) */
  uint32_t next_prev_pid, next_prev_tid; /* CPU-wide only */
  lgp_perf_sample_id sid;
} lgp_perf_switch;

typedef struct lgp_perf_mmap {
  uint32_t pid, tid;
  uint64_t start, len, pgoff;
  uint32_t prot, flags;   /* MMAP2 only; MMAP: prot = PROT_EXEC unless misc says data */
  int has_buildid;
  uint8_t buildid_len;
  uint8_t buildid[20];
  const char *filename;   /* in the file; NUL-terminated within the record */
  lgp_perf_sample_id sid;
} lgp_perf_mmap;

typedef struct lgp_perf_task {   /* COMM, FORK, EXIT */
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
  const char *comm;       /* COMM only */
  lgp_perf_sample_id sid;
} lgp_perf_task;

/* Reads an unaligned u64 of the file. */
static inline uint64_t lgp_perf_u64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Is this file a perf.data (file or pipe mode), by its first 8 bytes? */
int lgp_perf_is_perfdata(const uint8_t *bytes, size_t n);
/* Opens path: maps it, reads the header, the attrs and the features (in
** pipe mode, the attr and feature records at the start of the stream),
** and decompresses the records of a `perf record -z` file (zstd), so
** that the stream handed out holds no COMPRESSED record. A directory
** (`perf record --threads -o DIR`) reads as DIR/data with the records of
** DIR/data.0, data.1, ... after its own (not in time order).
** 0, or -1 with "PATH: what is wrong". */
int lgp_perf_open(lgp_perf_data *pd, const char *path, lgp_err *err);
/* The same over a file's bytes the caller keeps alive (name: for
** messages). */
int lgp_perf_open_bytes(lgp_perf_data *pd, const char *name, const uint8_t *bytes, size_t n,
                        lgp_err *err);
void lgp_perf_close(lgp_perf_data *pd);
/* The next record at *pos (start with *pos = 0); advances *pos. 1 with
** the record, 0 at the end (pd->truncated says if it ended inside a
** record), -1 with a message. Records are counted per type. */
int lgp_perf_next(lgp_perf_data *pd, size_t *pos, lgp_perf_record *rec, lgp_err *err);
/* Which attr a record belongs to (the first one when it cannot tell). */
size_t lgp_perf_record_attr(const lgp_perf_data *pd, const lgp_perf_record *rec);

/* An event id and the attr it belongs to: an index of every attr's ids,
** sorted by lgp_perf_idattr_sort (by id, then attr), finds a record's attr
** by a binary search (lgp_perf_idattr_find: the first attr that has id, 0
** when none has). The byte-order converter keeps one too. */
struct lgp_perf_idattr {
  uint64_t id;
  size_t attr;
};
void lgp_perf_idattr_sort(struct lgp_perf_idattr *index, size_t n);
size_t lgp_perf_idattr_find(const struct lgp_perf_idattr *index, size_t n, uint64_t id);
/* Decodes a SAMPLE record. 0, or -1 with a message (a sample whose fields
** do not add up to its size). */
int lgp_perf_sample_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                           lgp_perf_sample *s, lgp_err *err);
/* Decodes MMAP and MMAP2; COMM, FORK and EXIT. 0, or -1 with a message. */
int lgp_perf_mmap_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                         lgp_perf_mmap *m, lgp_err *err);
int lgp_perf_task_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                         lgp_perf_task *t, lgp_err *err);
/* Decodes SWITCH and SWITCH_CPU_WIDE. 0, or -1 with a message (no thread
** or no time in its trailer: the record tells nothing). */
int lgp_perf_switch_decode(const lgp_perf_data *pd, const lgp_perf_record *rec,
                           lgp_perf_switch *sw, lgp_err *err);
/* Adds the build-id a HEADER_BUILD_ID (67) record of the stream carries
** (`perf inject --buildid-all` writes them) to pd->buildids. 0, or -1
** with a message. */
int lgp_perf_buildid_record(lgp_perf_data *pd, const lgp_perf_record *rec, lgp_err *err);
/* The number of samples a LOST (2) or LOST_SAMPLES (13) record reports. */
uint64_t lgp_perf_lost_count(const lgp_perf_record *rec);
/* The event's name: EVENT_DESC's, else one made from type and config. */
const char *lgp_perf_attr_name(const lgp_perf_attr *a, char *buf, size_t n);

#endif
