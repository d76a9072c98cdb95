/*
** capstone.h: Capstone's functions, from its shared library loaded when a
** decode starts (--static-arcs, --annotate-asm): linked in, its tables
** (megabytes of data the loader relocates) would cost every run of the
** command a millisecond at start-up.
*/
#ifndef lgp_capstone_h
#define lgp_capstone_h

#include <capstone/capstone.h>

#include "util/util.h"

typedef struct lgp_capstone {
  void *lib;
  cs_err (*open)(cs_arch, cs_mode, csh *);
  cs_err (*option)(csh, cs_opt_type, size_t);
  cs_insn *(*malloc_insn)(csh);
  bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
  bool (*insn_group)(csh, const cs_insn *, unsigned int);
  void (*free_insn)(cs_insn *, size_t);
  cs_err (*close)(csh *);
} lgp_capstone;

/* Loads the library; what names the option that needs it in the message.
** 0, or -1 with a message. */
int lgp_capstone_load(lgp_capstone *c, const char *what, lgp_err *err);
void lgp_capstone_unload(lgp_capstone *c);

#endif
