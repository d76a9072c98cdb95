/*
** perfbinary.h: the binaries of a recording (private to read/perf/): one
** per recorded path (JIT code: per process), found where perf and the
** distributions put them (the build-id cache, the recorded path under
** --symfs, /usr/lib/debug) with the recorded build-id checked, and opened
** once, on first use, through libdwfl; separate debug files with
** compressed DWARF handed to libdw inflated once (debugcopy.h).
*/
#ifndef perfbinary_h
#define perfbinary_h

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

typedef struct seg {         /* a PT_LOAD: file offsets -> addresses */
  uint64_t off, filesz, vaddr;
} seg;

/* The separate debug files looked at, each once: an in-memory copy with
** its DWARF inflated (debugcopy.h), or -1 (libdwfl reads the file). */
typedef struct debugfile {
  char *path;
  unsigned char build_id[20]; /* the one it was checked against */
  size_t build_id_len;
  int copy;
} debugfile;

typedef struct debugfiles {
  debugfile *files;
  size_t n, cap;
  lgp_hashtab ht;            /* by path */
  uint64_t inflated;         /* copies made */
} debugfiles;

/* A binary's ELF as the unwinding address spaces take it (their modules'
** libdwfl userdata): apart from the reader's arrays, which move. */
typedef struct elfshare {
  Elf *elf;                  /* the one opened for its symbols */
  const char *path;          /* the file (the table's found) */
  debugfiles *debug;
} elfshare;

enum { DK_ELF, DK_KERNEL, DK_VDSO, DK_JIT, DK_UNKNOWN };

typedef struct dsox {        /* what is known of out->dsos[i] beside the table */
  int kind, opened;
  uint64_t reported;         /* the last unwinding address space it was put in */
  uint32_t pid;              /* JIT: the process */
  Dwfl *dwfl;
  Dwfl_Module *mod;
  seg *segs;
  size_t nsegs;
  /* where libdwfl puts the module: from the first PT_LOAD's aligned start
     to the last PT_LOAD's end */
  uint64_t load_start, load_end;
  elfshare *share;           /* NULL until opened, and for an ELF of type ET_REL */
  struct jitsym *jit;        /* (perfjit.h) */
  size_t njit;
  char *label;               /* the base name in "[unknown] label+0x..." */
  struct symaddr *syms;      /* its symbols by address, made on first use (perfsymtab.h) */
  size_t nsyms;
  int syms_made;
} dsox;

/* The binary of this path (JIT code: of this process), made on first use;
** NONE after a failure. */
uint32_t lgp_pr_dso_get(reader *s, const char *path, uint32_t pid, int kind);
/* Finds and opens the ELF of dso d, once (x->mod set when found): 0, or
** -1 out of memory. */
int lgp_pr_dso_open(reader *s, uint32_t d);
/* libdwfl's find_debuginfo over the debug files df (NULL: libdwfl's
** standard search alone). */
int lgp_pr_find_debug(debugfiles *df, Dwfl_Module *mod, void **userdata, const char *modname,
                      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                      GElf_Word debuglink_crc, char **debuginfo_file_name);
/* Frees the binaries' state (after the address spaces, whose modules
** point at their ELFs), and the debug files. */
void lgp_pr_binaries_free(reader *s);

#endif
