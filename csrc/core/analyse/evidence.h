/*
** evidence.h: what a profile's own records say about whether they belong
** to the executable they are read with (lgprof doctor). A -pg program
** records, for each arc, the return address of the call to mcount in the
** callee's prologue (so the bytes before it are that call) and the return
** address of the call in the caller (so the bytes before it are a call);
** its histogram samples land inside its functions. Another program's or
** an older build's addresses do neither. A summed file (gprof -s, lgprof
** merge) records instead the callee's start and the start of the caller's
** line (or function): its records are checked as such. A call into a -pg
** shared library is recorded with the library's address: counted apart.
*/
#ifndef evidence_h
#define evidence_h

#include "model/profile.h"

typedef struct lgp_evidence {
  int arcs_read;            /* the profile files could be read again */
  uint64_t arc_records;     /* arc records, every file */
  uint64_t arcs_outside;    /* records with an end in no routine, but for ... */
  uint64_t arcs_shared;     /* ... calls through the PLT (or an import's GOT
                               slot) to an address outside the executable's
                               code: a -pg shared library's functions */
  uint64_t arcs_summed;     /* records whose callee is a function's start */
  int code_known;           /* x86-64 code read: the checks below were made */
  int mcount_known;         /* the image calls mcount somewhere we found */
  uint64_t callee_checked;  /* records whose callee address could be checked */
  uint64_t callee_bad;      /* ... not just after a call to mcount */
  uint64_t caller_checked;
  uint64_t caller_bad;      /* ... not just after a call instruction */
  uint64_t samples;         /* histogram samples, every bin */
  uint64_t samples_outside; /* in bins wholly outside every routine */
  int uses_threads;         /* the image imports or defines pthread_create */
  int64_t image_mtime_s, image_mtime_ns;
  int have_profile_mtime;   /* some profile file could be stat'ed */
  int64_t profile_mtime_s, profile_mtime_ns; /* the oldest profile file's */
  /* the sampled functions whose code never calls mcount (compiled without
     -pg), by node; only when code_known and mcount_known */
  uint32_t *bare;
  size_t nbare, bare_cap;
} lgp_evidence;

/* Reads the profile files of p again (arc records are not kept) and the
** image's code, and counts the evidence in one pass over the arcs and one
** over the histogram's non-empty bins. A part that cannot be read is left
** unknown (arcs_read, code_known 0); only running out of memory fails
** (-1 with a message). */
int lgp_evidence_compute(const lgp_profile *p, lgp_evidence *ev, lgp_err *err);
void lgp_evidence_free(lgp_evidence *ev);

#endif
