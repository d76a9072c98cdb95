/*
** gmon.h: reading and writing gmon.out files (GNU tagged, 4.4BSD, old BSD).
** Multi-byte fields use the executable's byte order and address width.
*/
#ifndef gmon_h
#define gmon_h

#include "util/util.h"

enum lgp_gmon_format {
  LGP_FMT_AUTO = 0, /* "gmon" cookie -> tagged, otherwise BSD */
  LGP_FMT_MAGIC,    /* demand the tagged format */
  LGP_FMT_BSD,      /* either BSD variant */
  LGP_FMT_BSD44     /* demand 4.4BSD */
};

/* Bins are kept sparse: a histogram of a big program has hundreds of
** thousands of bins and few samples. */
typedef struct lgp_hist {
  lgp_addr low, high;
  uint32_t nbins;
  size_t nnz;     /* bins with samples */
  uint32_t *idx;  /* their indices, ascending */
  uint64_t *cnt;  /* their sums over every file read */
} lgp_hist;

typedef struct lgp_bbcount {
  lgp_addr addr;
  uint64_t count;
} lgp_bbcount;

/* What one file held, for -i. */
typedef struct lgp_gmon_file {
  char *path;
  int version; /* tagged format version (LGP_LDPROFILE_VERSION for an
                  LD_PROFILE file); -1 for BSD files */
  size_t nhist, narcs, nbb;
} lgp_gmon_file;

/* Returns 0, -1 (out of memory) or LGP_ARCS_FULL: the profile already
** holds LGP_ARCS_MAX distinct arcs (arcs are numbered in 32 bits). */
typedef int (*lgp_arc_sink)(void *ctx, lgp_addr from, lgp_addr self,
                            uint64_t count);
#define LGP_ARCS_FULL (-2)
#ifndef LGP_ARCS_MAX /* defined lower by spec/unit/arcs.c to reach it */
#define LGP_ARCS_MAX (UINT32_MAX - 1)
#endif
#define LGP_ARCS_FULL_MSG "more than %lu distinct call-graph arcs: lgprof cannot hold them"

typedef struct lgp_gmon {
  int addr_bytes;   /* 4 or 8 */
  int big_endian;
  lgp_hist *hist;
  size_t nhist, hist_cap;
  double hist_scale; /* 2-byte units per bin, from the first histogram */
  uint32_t hz;       /* profiling rate of the first histogram; 0 if none */
  char dimen[16];
  char abbrev;
  int have_hist, have_cg, have_bb;
  lgp_bbcount *bb;
  size_t nbb, bb_cap;
  lgp_gmon_file *files;
  size_t nfiles, files_cap;
  size_t narc_records; /* arc records read, over all files */
  lgp_arc_sink sink;   /* receives each arc record as it is read */
  void *sink_ctx;
  uint32_t bsd_hz;     /* clock ticks per second for old BSD files */
  /* gprof -s leaves stale stack bytes in gmon.sum's spare header field:
     the last histogram header's high address and its bin count (tagged)
     or byte count (BSD). Kept to write the same bytes. */
  lgp_addr last_hist_high;
  uint32_t last_hist_count;
} lgp_gmon;

void lgp_gmon_init(lgp_gmon *g, int addr_bytes, int big_endian);
void lgp_gmon_free(lgp_gmon *g);

/* glibc's LD_PROFILE files (gmon.c says more): a "gmon" file of this
** version, read with the tagged format. Their arcs from callers outside
** the library come from LGP_LDPROFILE_EXTERNAL: a profile opening gives
** that address a symbol of its own. */
#define LGP_LDPROFILE_VERSION 0x0001ffffu
#define LGP_LDPROFILE_EXTERNAL ((lgp_addr)0)
#define LGP_LDPROFILE_EXTERNAL_NAME "<external>"
int lgp_gmon_is_ldprofile(const unsigned char *data, size_t size, int big_endian);

/* Reads one file ("-" is standard input) and merges it into g. */
int lgp_gmon_read(lgp_gmon *g, const char *path, int format, lgp_err *err);
/* The same from size bytes in memory (path names them in messages). */
int lgp_gmon_read_mem(lgp_gmon *g, const unsigned char *data, size_t size,
                      const char *path, int format, lgp_err *err);

/* A whole file in memory (mapped when it is a regular file). */
typedef struct lgp_blob {
  const unsigned char *data;
  void *mem;   /* what to free or unmap: data, writable */
  size_t size;
  int mapped;
} lgp_blob;
int lgp_gmon_blob_load(lgp_blob *b, const char *path, lgp_err *err);
void lgp_gmon_blob_free(lgp_blob *b);

/* Writing (gprof -s): header, histograms, the given arcs, bb counts.
** Counts too large for a record's field are split over several records,
** which any reader sums back. */
typedef struct lgp_gmon_writer {
  lgp_out out;
  int addr_bytes, big_endian;
} lgp_gmon_writer;
void lgp_gmon_write_header(lgp_gmon_writer *w, const lgp_gmon *g);
void lgp_gmon_write_hist(lgp_gmon_writer *w, const lgp_gmon *g);
void lgp_gmon_write_arc(lgp_gmon_writer *w, lgp_addr from, lgp_addr self,
                        uint64_t count);
void lgp_gmon_write_bb(lgp_gmon_writer *w, const lgp_gmon *g);
/* One tag-2 record of n blocks (even none). */
void lgp_gmon_write_bb_list(lgp_gmon_writer *w, const lgp_bbcount *bb, size_t n);

/* The samples of every histogram bin, summed. */
uint64_t lgp_gmon_sample_count(const lgp_gmon *g);

#endif
