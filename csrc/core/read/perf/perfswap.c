/*
** perfswap.c: perf.data of the other byte order (see perfswap.h). The copy
** is turned in place, structure by structure, in the order the reader
** reads them: the header, the attrs (which say how each record is laid
** out), the feature sections, then the record stream. Values are read
** from the copy only once swapped, or with peek (a swapped read that
** leaves the bytes), so nothing is swapped twice in a well-formed file.
** A size that does not fit stops the swapping of what it measures: the
** reader then stops at the same place with its own message.
*/
#include <stdlib.h>
#include <string.h>
#include "read/perf/perfswap.h"
#include "read/perf/perfdata.h"

#define MAGIC_SWAPPED 0x50455246494c4532ULL  /* "PERFILE2" read in the other order */
#define FILE_HEADER 104
#define PIPE_HEADER 16
#define ATTR_V0 64
#define FEATURE_BITS 256
#define F_HOSTNAME 3

/* What the record layouts depend on, per attr. */
typedef struct swattr {
  uint64_t sample_type, read_format, flags, branch_sample_type, regs_user, regs_intr;
} swattr;

typedef struct swapper {
  const char *name;
  uint8_t *b;             /* the copy being turned */
  size_t n;
  int pipe;
  int host_big;           /* this machine is big-endian (the file little) */
  swattr *attrs;
  size_t nattrs, attrs_cap;
  struct lgp_perf_idattr *ids; /* every attr's ids, sorted once all are known */
  size_t nids, ids_cap;
  lgp_err *err;
} swapper;

static void reverse(uint8_t *p, size_t w) {
  size_t i;
  for (i = 0; i < w / 2; i++) {
    uint8_t t = p[i];
    p[i] = p[w - 1 - i];
    p[w - 1 - i] = t;
  }
}

/* Swaps the integer of w bytes at p in place; returns its value. */
static uint64_t sw(uint8_t *p, size_t w) {
  uint64_t v8;
  uint32_t v4;
  uint16_t v2;
  reverse(p, w);
  switch (w) {
  case 8: memcpy(&v8, p, 8); return v8;
  case 4: memcpy(&v4, p, 4); return v4;
  case 2: memcpy(&v2, p, 2); return v2;
  default: return *p;
  }
}

/* The value of the integer of w bytes at p, swapped, the bytes left. */
static uint64_t peek(const uint8_t *p, size_t w) {
  uint8_t t[8];
  memcpy(t, p, w);
  return sw(t, w);
}

/* Swaps count u64 at p. */
static void sw64s(uint8_t *p, size_t count) {
  size_t i;
  for (i = 0; i < count; i++)
    reverse(p + 8 * i, 8);
}

/* Swaps the fields of `layout` one after the other from p, within len
** bytes: digits are widths in bytes, 's' skips 8 bytes left as they are.
** Returns the bytes walked (fields that do not fit are left). */
static size_t sw_seq(uint8_t *p, size_t len, const char *layout) {
  size_t at = 0;
  for (; *layout; layout++) {
    size_t w = *layout == 's' ? 8 : (size_t)(*layout - '0');
    if (w > len - at)
      break;
    if (*layout != 's')
      reverse(p + at, w);
    at += w;
  }
  return at;
}

/* A C bitfield word: a little-endian compiler gives the first field the
** least significant bits, a big-endian one the most significant, each
** field's value in the usual order within its bits. Moves every field of
** v (widths: in declaration order, 0-terminated) to where this machine's
** compiler puts it; v is the word already swapped as a u64. */
static uint64_t bitfield(uint64_t v, const unsigned char *widths, int host_big) {
  uint64_t r = 0;
  unsigned at = 0;
  for (; *widths && at + *widths <= 64; at += *widths++) {
    unsigned w = *widths, from = host_big ? at : 64 - at - w, to = host_big ? 64 - at - w : at;
    uint64_t mask = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
    r |= ((v >> from) & mask) << to;
  }
  return r;
}

/* perf_event_attr's flags: 15 one-bit flags, precise_ip (2 bits), 21 more
** flags, 26 reserved bits. */
static const unsigned char ATTR_FLAGS[] = {
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 26, 0
};
/* A branch entry's flags: mispred, predicted, in_tx, abort, cycles (16),
** type (4), spec (2), new_type (4), priv (3), reserved (31). */
static const unsigned char BRANCH_FLAGS[] = { 1, 1, 1, 1, 16, 4, 2, 4, 3, 31, 0 };

static void sw_bitfield(swapper *s, uint8_t *p, const unsigned char *widths) {
  uint64_t v = sw(p, 8);
  v = bitfield(v, widths, s->host_big);
  memcpy(p, &v, 8);
}

/* An attr in the len bytes at p (the space the reader reads it from: the
** fields past attr.size are read too, so they are swapped too); *a gets
** what layouts depend on (fields that do not fit stay 0). */
static void sw_attr(swapper *s, uint8_t *p, size_t len, swattr *a) {
  /* type, size; config, sample_period, sample_type, read_format */
  static const char head[] = "448888";
  /* after the flags: wakeup, bp_type, config1, config2, branch_sample_type,
     sample_regs_user, sample_stack_user, clockid, sample_regs_intr,
     aux_watermark, sample_max_stack, reserved, aux_sample_size, reserved,
     sig_data, config3 */
  static const char tail[] = "4488884484224488";
  size_t at;
  memset(a, 0, sizeof *a);
  at = sw_seq(p, len, head);
  if (at < 40)
    return;
  a->sample_type = lgp_perf_u64(p + 24);
  a->read_format = lgp_perf_u64(p + 32);
  if (len - at < 8)
    return;
  sw_bitfield(s, p + 40, ATTR_FLAGS);
  a->flags = lgp_perf_u64(p + 40);
  at = 48 + sw_seq(p + 48, len - 48, tail);
  if (at >= 80)
    a->branch_sample_type = lgp_perf_u64(p + 72);
  if (at >= 88)
    a->regs_user = lgp_perf_u64(p + 80);
  if (at >= 104)
    a->regs_intr = lgp_perf_u64(p + 96);
  /* fields of newer attrs: u64 */
  if (at == 136)
    sw64s(p + at, (len - at) / 8);
}

/* Adds an attr with the nids u64 ids at idp (already swapped). */
static int attr_add(swapper *s, const swattr *a, const uint8_t *idp, size_t nids) {
  size_t i;
  if (lgp_grow((void **)&s->attrs, &s->attrs_cap, s->nattrs + 1, sizeof *s->attrs) != 0
      || (nids > 0 && lgp_grow((void **)&s->ids, &s->ids_cap, s->nids + nids, sizeof *s->ids) != 0))
    return lgp_fail(s->err, s->name, "out of memory");
  for (i = 0; i < nids; i++) {
    s->ids[s->nids].id = lgp_perf_u64(idp + 8 * i);
    s->ids[s->nids++].attr = s->nattrs;
  }
  s->attrs[s->nattrs++] = *a;
  return 0;
}

/* Sorts the ids once all are known. */
static void ids_sort(swapper *s) {
  lgp_perf_idattr_sort(s->ids, s->nids);
}

/* The first attr that has id, else the first (as the reader decides). */
static size_t attr_of_id(const swapper *s, uint64_t id) {
  return lgp_perf_idattr_find(s->ids, s->nids, id);
}

/* Which attr a record (its body still in the file's order) belongs to:
** the reader's rule, the id where attr 0's sample_type puts it. */
static const swattr *record_attr(const swapper *s, uint32_t type, const uint8_t *body,
                                 size_t len) {
  uint64_t st;
  size_t slot;
  if (s->nattrs <= 1)
    return s->nattrs ? &s->attrs[0] : NULL;
  st = s->attrs[0].sample_type;
  if (type == LGP_PERF_SAMPLE) {
    if (st & LGP_PS_IDENTIFIER)
      slot = 0;
    else if (st & LGP_PS_ID)
      slot = (size_t)(!!(st & LGP_PS_IP) + !!(st & LGP_PS_TID) + !!(st & LGP_PS_TIME)
                      + !!(st & LGP_PS_ADDR));
    else
      return &s->attrs[0];
    if (len < 8 * (slot + 1))
      return &s->attrs[0];
    return &s->attrs[attr_of_id(s, peek(body + 8 * slot, 8))];
  }
  if (type < 64 && (s->attrs[0].flags & LGP_PERF_ATTR_SAMPLE_ID_ALL)) {
    if (st & LGP_PS_IDENTIFIER)
      slot = 1;
    else if (st & LGP_PS_ID)
      slot = 1 + !!(st & LGP_PS_CPU) + !!(st & LGP_PS_STREAM_ID);
    else
      return &s->attrs[0];
    if (len < 8 * slot)
      return &s->attrs[0];
    return &s->attrs[attr_of_id(s, peek(body + len - 8 * slot, 8))];
  }
  return &s->attrs[0];
}

/* The sample_id trailer at the end of a kernel record's body; *len is cut
** to what precedes it (left whole when the reader would not cut it). */
static void sw_trailer(const swattr *a, uint8_t *body, size_t *len) {
  uint64_t st = a->sample_type;
  size_t n, at;
  if (!(a->flags & LGP_PERF_ATTR_SAMPLE_ID_ALL))
    return;
  n = (size_t)(!!(st & LGP_PS_TID) + !!(st & LGP_PS_TIME) + !!(st & LGP_PS_ID)
               + !!(st & LGP_PS_STREAM_ID) + !!(st & LGP_PS_CPU) + !!(st & LGP_PS_IDENTIFIER));
  if (*len < 8 * n)
    return;
  at = *len -= 8 * n;
  if (st & LGP_PS_TID) { sw_seq(body + at, 8, "44"); at += 8; }
  if (st & LGP_PS_TIME) { reverse(body + at, 8); at += 8; }
  if (st & LGP_PS_ID) { reverse(body + at, 8); at += 8; }
  if (st & LGP_PS_STREAM_ID) { reverse(body + at, 8); at += 8; }
  if (st & LGP_PS_CPU) { sw_seq(body + at, 8, "44"); at += 8; }
  if (st & LGP_PS_IDENTIFIER) reverse(body + at, 8);
}

static int popcount64(uint64_t v) {
  int n = 0;
  for (; v; v &= v - 1)
    n++;
  return n;
}

/* A bounded walk over a record's body. */
typedef struct walk {
  uint8_t *p;
  size_t at, len;
} walk;

/* Swaps the next u64 (0), or -1 when it does not fit. */
static int next64(walk *w, uint64_t *v) {
  if (w->len - w->at < 8)
    return -1;
  *v = sw(w->p + w->at, 8);
  w->at += 8;
  return 0;
}

/* Swaps count u64 (0), or -1 when they do not fit. */
static int next64s(walk *w, uint64_t count) {
  if (count > (w->len - w->at) / 8)
    return -1;
  sw64s(w->p + w->at, (size_t)count);
  w->at += (size_t)count * 8;
  return 0;
}

/* Skips n bytes left as they are (0), or -1. */
static int skip(walk *w, uint64_t n) {
  if (n > w->len - w->at)
    return -1;
  w->at += (size_t)n;
  return 0;
}

/* A SAMPLE's fields in perf's order, those of its attr's sample_type; it
** stops where the reader finds the sample cut short. */
static void sw_sample(swapper *s, const swattr *a, uint8_t *body, size_t len) {
  uint64_t st = a->sample_type, v, nr;
  walk w = { body, 0, len };
#define NEED(x) do { if ((x) != 0) return; } while (0)
  if (st & LGP_PS_IDENTIFIER) NEED(next64s(&w, 1));
  if (st & LGP_PS_IP) NEED(next64s(&w, 1));
  if (st & LGP_PS_TID) {
    NEED(skip(&w, 8));
    sw_seq(body + w.at - 8, 8, "44");
  }
  NEED(next64s(&w, !!(st & LGP_PS_TIME) + !!(st & LGP_PS_ADDR) + !!(st & LGP_PS_ID)
               + !!(st & LGP_PS_STREAM_ID)));
  if (st & LGP_PS_CPU) {
    NEED(skip(&w, 8));
    sw_seq(body + w.at - 8, 8, "44");
  }
  if (st & LGP_PS_PERIOD) NEED(next64s(&w, 1));
  if (st & LGP_PS_READ) {
    uint64_t rf = a->read_format, per = 1 + !!(rf & 4) + !!(rf & 16);
    nr = 1;
    if (rf & 8)
      NEED(next64(&w, &nr));
    NEED(next64s(&w, !!(rf & 1) + !!(rf & 2)));
    if (nr > (w.len - w.at) / 8 / per)
      return;
    NEED(next64s(&w, nr * per));
  }
  if (st & LGP_PS_CALLCHAIN) {
    NEED(next64(&w, &nr));
    NEED(next64s(&w, nr));
  }
  if (st & LGP_PS_RAW) {
    NEED(skip(&w, 4));
    v = sw(body + w.at - 4, 4);
    NEED(skip(&w, v));
  }
  if (st & LGP_PS_BRANCH_STACK) {
    uint64_t k;
    NEED(next64(&w, &nr));
    if (a->branch_sample_type & (1u << 17))
      NEED(next64s(&w, 1));    /* hw_idx */
    if (nr > (w.len - w.at) / 24)
      return;
    for (k = 0; k < nr; k++) {
      sw64s(body + w.at, 2);   /* from, to */
      sw_bitfield(s, body + w.at + 16, BRANCH_FLAGS);
      w.at += 24;
    }
  }
  if (st & LGP_PS_REGS_USER) {
    NEED(next64(&w, &v));
    if (v != 0)
      NEED(next64s(&w, (uint64_t)popcount64(a->regs_user)));
  }
  if (st & LGP_PS_STACK_USER) {
    NEED(next64(&w, &v));
    if (v != 0) {
      NEED(skip(&w, v));       /* the stack's bytes */
      NEED(next64s(&w, 1));    /* dyn_size */
    }
  }
  /* weight (its struct form is laid out for a u64 swap), data_src,
     transaction */
  NEED(next64s(&w, !!(st & (LGP_PS_WEIGHT | LGP_PS_WEIGHT_STRUCT)) + !!(st & LGP_PS_DATA_SRC)
               + !!(st & LGP_PS_TRANSACTION)));
  if (st & LGP_PS_REGS_INTR) {
    NEED(next64(&w, &v));
    if (v != 0)
      NEED(next64s(&w, (uint64_t)popcount64(a->regs_intr)));
  }
  NEED(next64s(&w, !!(st & LGP_PS_PHYS_ADDR) + !!(st & LGP_PS_CGROUP)
               + !!(st & LGP_PS_DATA_PAGE_SIZE) + !!(st & LGP_PS_CODE_PAGE_SIZE)));
  if (st & LGP_PS_AUX) {
    NEED(next64(&w, &v));
    NEED(skip(&w, v));
  }
#undef NEED
}

/* perf's string (u32 length, then the bytes): 0, or -1 when it does not
** fit. */
static int sw_string(walk *w) {
  uint64_t len;
  if (w->len - w->at < 4)
    return -1;
  len = sw(w->p + w->at, 4);
  w->at += 4;
  return skip(w, len);
}

/* A build-id entry (feature or HEADER_BUILD_ID record), its header
** already swapped: the pid. */
static void sw_buildid(uint8_t *p, size_t len) {
  if (len >= 12)
    reverse(p + 8, 4);
}

/* A feature section's payload (the ones the reader reads, and a few
** fixed ones; the others stay as they are: the reader skips them). */
static void sw_feature(swapper *s, unsigned bit, uint8_t *p, size_t len) {
  walk w = { p, 0, len };
  uint64_t nr, asize, nids, i;
  switch (bit) {
  case 2:   /* BUILD_ID: entries back to back */
    while (len - w.at >= 8) {
      uint8_t *e = p + w.at;
      uint16_t size;
      sw_seq(e, 8, "422");
      memcpy(&size, e + 6, 2);
      if (size < 36 || size > len - w.at)
        return;
      sw_buildid(e, size);
      w.at += size;
    }
    return;
  case 3: case 4: case 5: case 6: case 8: case 9:   /* strings */
    sw_string(&w);
    return;
  case 7:   /* NRCPUS */
    sw_seq(p, len, "44");
    return;
  case 10: case 23: case 24:   /* TOTAL_MEM, CLOCKID, DIR_FORMAT */
    sw_seq(p, len, "8");
    return;
  case 11:  /* CMDLINE */
    if (len < 4)
      return;
    nr = sw(p, 4);
    w.at = 4;
    for (i = 0; i < nr; i++)
      if (sw_string(&w) != 0)
        return;
    return;
  case 12:  /* EVENT_DESC: attr, ids count, name, ids */
    if (sw_seq(p, len, "44") < 8)
      return;
    {
      uint32_t v[2];
      memcpy(v, p, 8);
      nr = v[0];
      asize = v[1];
    }
    w.at = 8;
    for (i = 0; i < nr; i++) {
      swattr unused;
      if (asize > len - w.at)
        return;
      sw_attr(s, p + w.at, (size_t)asize, &unused);
      w.at += (size_t)asize;
      if (len - w.at < 4)
        return;
      nids = sw(p + w.at, 4);
      w.at += 4;
      if (sw_string(&w) != 0 || next64s(&w, nids) != 0)
        return;
    }
    return;
  case 21:  /* SAMPLE_TIME */
    sw_seq(p, len, "88");
    return;
  case 27:  /* COMPRESSED */
    sw_seq(p, len, "44444");
    return;
  case 29:  /* CLOCK_DATA */
    sw_seq(p, len, "4488");
    return;
  default:
    return;
  }
}

/* The fixed fields of kernel records other than SAMPLE, before the
** trailer ('s': 8 bytes that are not integers). */
static const char *kernel_layout(uint32_t type, uint16_t misc) {
  switch (type) {
  case LGP_PERF_MMAP: return "44888";
  case LGP_PERF_LOST: return "88";
  case LGP_PERF_COMM: return "44";
  case LGP_PERF_EXIT: case LGP_PERF_FORK: return "44448";
  case LGP_PERF_THROTTLE: case LGP_PERF_UNTHROTTLE: return "888";
  case LGP_PERF_MMAP2:
    /* the build-id form: u8 size, u8, u16 reserved, 20 bytes of id */
    return misc & 0x4000 ? "44888sss44" : "44888448844";
  case 11: return "888";           /* AUX */
  case LGP_PERF_READ: case 12: case 15: return "44";  /* and ITRACE_START, SWITCH_CPU_WIDE */
  case LGP_PERF_LOST_SAMPLES: case 19: case 21: return "8";  /* and CGROUP, AUX_OUTPUT_HW_ID */
  case 17: return "8422";          /* KSYMBOL */
  case 18: return "224";           /* BPF_EVENT */
  case 20: return "822";           /* TEXT_POKE */
  default: return "";
  }
}

/* One record's body (its header already swapped). phase 1 (pipe mode):
** only the attrs and features; phase 2: the others (all in file mode). */
static int sw_record(swapper *s, int phase, uint32_t type, uint16_t misc, uint8_t *body,
                     size_t len) {
  int header_record = type == LGP_PERF_HEADER_ATTR || type == LGP_PERF_HEADER_FEATURE;
  size_t at;
  if (s->pipe && header_record != (phase == 1))
    return 0;
  if (type == LGP_PERF_COMPRESSED || type == LGP_PERF_COMPRESSED2)
    return lgp_fail(s->err, s->name, "compressed records (perf record -z) in a perf.data of "
                    "the other byte order: not supported");
  if (type == LGP_PERF_SAMPLE) {
    const swattr *a = record_attr(s, type, body, len);
    if (a)
      sw_sample(s, a, body, len);
    return 0;
  }
  if (type < 64) {
    const swattr *a = record_attr(s, type, body, len);
    if (a)
      sw_trailer(a, body, &len);
    at = sw_seq(body, len, kernel_layout(type, misc));
    if (type == LGP_PERF_READ)
      sw64s(body + at, (len - at) / 8);     /* the values after pid, tid */
    return 0;
  }
  switch (type) {
  case LGP_PERF_HEADER_ATTR:
    if (s->pipe && len >= ATTR_V0) {
      swattr a;
      uint64_t asize = peek(body + 4, 4);
      if (asize == 0)
        asize = ATTR_V0;
      if (asize > len)
        return 0;
      sw_attr(s, body, (size_t)asize, &a);
      sw64s(body + asize, (len - (size_t)asize) / 8);
      return attr_add(s, &a, body + asize, (len - (size_t)asize) / 8);
    }
    return 0;
  case LGP_PERF_HEADER_FEATURE:
    if (s->pipe && len >= 8) {
      uint64_t bit = sw(body, 8);
      if (bit < FEATURE_BITS)
        sw_feature(s, (unsigned)bit, body + 8, len - 8);
    }
    return 0;
  case LGP_PERF_HEADER_TRACING_DATA:
    sw_seq(body, len, "4");
    return 0;
  case LGP_PERF_HEADER_BUILD_ID:
    sw_buildid(body - 8, len + 8);
    return 0;
  case LGP_PERF_AUXTRACE:
    sw_seq(body, len, "8884444");
    return 0;
  case 69:  /* ID_INDEX: u64 only */
    sw64s(body, len / 8);
    return 0;
  case 73: {  /* THREAD_MAP: nr, then {u64 pid, char comm[16]} */
    uint64_t nr, i;
    if (len < 8)
      return 0;
    nr = sw(body, 8);
    for (i = 0; i < nr && (len - 8) / 24 > i; i++)
      reverse(body + 8 + 24 * i, 8);
    return 0;
  }
  case 79:  /* TIME_CONV */
    sw_seq(body, len, "88888");
    return 0;
  default:
    return 0;   /* skipped by the reader: the header is enough */
  }
}

/* Walks the record stream from start to end (as lgp_perf_next does),
** turning each record's header (phase 2) and body. */
static int sw_records(swapper *s, int phase, size_t start, size_t end) {
  size_t at = start;
  while (end - at >= 8) {
    uint8_t *p = s->b + at;
    uint32_t type = (uint32_t)peek(p, 4);
    uint16_t misc = (uint16_t)peek(p + 4, 2), size = (uint16_t)peek(p + 6, 2);
    uint64_t extra = 0;
    if (type == LGP_PERF_COMPRESSED || type == LGP_PERF_COMPRESSED2)
      return sw_record(s, phase, type, misc, p + 8, 0);
    if (phase == 2)
      sw_seq(p, 8, "422");
    if (size < 8 || size > end - at)
      return 0;   /* the reader stops here: cut short */
    /* payloads not counted in the record's size, read before the body is
       turned */
    if (type == LGP_PERF_AUXTRACE && size >= 16)
      extra = peek(p + 8, 8);
    else if (type == LGP_PERF_HEADER_TRACING_DATA && size >= 12)
      extra = (peek(p + 8, 4) + 7) & ~(uint64_t)7;
    if (sw_record(s, phase, type, misc, p + 8, size - 8u) != 0)
      return -1;
    at += size;
    if (extra > end - at)
      return 0;
    at += (size_t)extra;
  }
  return 0;
}

/* File mode: header, attrs and ids, feature table and payloads, records.
** Each size is checked as the reader checks it before it is used. */
static int sw_file(swapper *s) {
  uint8_t *h = s->b;
  uint64_t hsize, attr_size, attrs_off, attrs_len, data_off, data_len, i;
  size_t data_end;
  unsigned bit;
  hsize = sw(h + 8, 8);
  if (s->n < FILE_HEADER || (hsize != FILE_HEADER && hsize != 72))
    return 0;
  sw64s(h + 16, 7);    /* attr_size, attrs, data, event_types */
  if (hsize == FILE_HEADER) {
    uint8_t copy[32];
    memcpy(copy, h + 72, 32);
    sw64s(h + 72, 4);
    /* perf's rule: written as u64 words, HOSTNAME (always written by
       perf) reads set; else as u32 words (a 32-bit writer) */
    if (!(h[72 + (s->host_big ? 7 : 0)] & (1u << F_HOSTNAME))) {
      memcpy(h + 72, copy, 32);
      for (i = 0; i < 8; i++)
        reverse(h + 72 + 4 * i, 4);
    }
  }
  attr_size = lgp_perf_u64(h + 16);
  attrs_off = lgp_perf_u64(h + 24);
  attrs_len = lgp_perf_u64(h + 32);
  data_off = lgp_perf_u64(h + 40);
  data_len = lgp_perf_u64(h + 48);
  if (attr_size < ATTR_V0 + 16 || attrs_off < hsize || data_off < hsize || attrs_off > s->n
      || attrs_len > s->n - attrs_off || data_off > s->n)
    return 0;
  if (attrs_off < data_off + data_len && data_off < attrs_off + attrs_len && attrs_len && data_len)
    return 0;
  for (i = 0; i < attrs_len / attr_size; i++) {
    uint8_t *e = s->b + attrs_off + i * attr_size;
    uint64_t ids_off, ids_len;
    swattr a;
    sw_attr(s, e, (size_t)(attr_size - 16), &a);
    ids_off = sw(e + attr_size - 16, 8);
    ids_len = sw(e + attr_size - 8, 8);
    if (ids_off > s->n || ids_len > s->n - ids_off)
      return 0;
    /* arrays that overlap (more ids than the file holds) would be swapped
       over and over: left to the reader */
    if (ids_len / 8 > s->n / 8 - s->nids)
      return 0;
    sw64s(s->b + ids_off, (size_t)(ids_len / 8));
    if (attr_add(s, &a, s->b + ids_off, (size_t)(ids_len / 8)) != 0)
      return -1;
  }
  ids_sort(s);
  if (data_len == 0 || data_len > s->n - data_off)
    /* no feature table: records to the end of the file */
    return sw_records(s, 2, (size_t)data_off, s->n);
  data_end = (size_t)(data_off + data_len);
  if (sw_records(s, 2, (size_t)data_off, data_end) != 0)
    return -1;
  for (bit = 0; bit < FEATURE_BITS; bit++) {
    uint64_t off, len, word;
    memcpy(&word, h + 72 + 8 * (bit / 64), 8);
    if (hsize != FILE_HEADER || !(word >> (bit % 64) & 1))
      continue;
    if (s->n - data_end < 16)
      break;
    off = sw(s->b + data_end, 8);
    len = sw(s->b + data_end + 8, 8);
    data_end += 16;
    if (off > s->n || len > s->n - off)
      return 0;
    sw_feature(s, bit, s->b + off, (size_t)len);
  }
  return 0;
}

/* Starts s for name. */
static void swapper_init(swapper *s, const char *name, lgp_err *err) {
  uint16_t one = 1;
  memset(s, 0, sizeof *s);
  s->name = name;
  s->err = err;
  s->host_big = *(const uint8_t *)&one == 0;
}

static void swapper_free(swapper *s) {
  free(s->attrs);
  free(s->ids);
  free(s->b);
}

/* Turns a copy of a whole file (s->b, s->n); its attrs stay in s. */
static int swap_file(swapper *s, const uint8_t *in, size_t n) {
  int rc;
  if (n < PIPE_HEADER || lgp_perf_u64(in) != MAGIC_SWAPPED)
    return lgp_fail(s->err, s->name, "not a perf.data file of the other byte order");
  if (!(s->b = malloc(n)))
    return lgp_fail(s->err, s->name, "out of memory");
  memcpy(s->b, in, n);
  s->n = n;
  /* the magic reads right once swapped as a u64 */
  reverse(s->b, 8);
  if (peek(s->b + 8, 8) != PIPE_HEADER)
    return sw_file(s);
  /* attrs and features come as records: all of them first, as the reader
     reads them before any sample */
  s->pipe = 1;
  reverse(s->b + 8, 8);
  rc = sw_records(s, 1, PIPE_HEADER, n);
  if (rc == 0) {
    ids_sort(s);
    rc = sw_records(s, 2, PIPE_HEADER, n);
  }
  return rc;
}

int lgp_perf_swap(const char *name, const uint8_t *in, size_t n, uint8_t **out, lgp_err *err) {
  swapper s;
  swapper_init(&s, name, err);
  *out = NULL;
  if (swap_file(&s, in, n) != 0) {
    swapper_free(&s);
    return -1;
  }
  *out = s.b;
  s.b = NULL;
  swapper_free(&s);
  return 0;
}

int lgp_perf_swap_stream(const char *name, const uint8_t *head, size_t head_n, const uint8_t *in,
                         size_t n, uint8_t **out, lgp_err *err) {
  swapper s;
  swapper_init(&s, name, err);
  *out = NULL;
  /* the attrs come from the file; its turned copy is not needed */
  if (swap_file(&s, head, head_n) != 0) {
    swapper_free(&s);
    return -1;
  }
  free(s.b);
  s.pipe = 0;
  if (!(s.b = malloc(n ? n : 1))) {
    swapper_free(&s);
    return lgp_fail(err, name, "out of memory");
  }
  memcpy(s.b, in, n);
  s.n = n;
  if (sw_records(&s, 2, 0, n) != 0) {
    swapper_free(&s);
    return -1;
  }
  *out = s.b;
  s.b = NULL;
  swapper_free(&s);
  return 0;
}
