/*
** perfstacks.c: perf.data -> a table of sampled stacks (see perfstacks.h).
**
** Two passes over the records: the first indexes the ones that matter
** (samples, mappings, tasks) with their times and counts losses; they are
** then sorted by time (stable: equal times and records without a time keep
** their file order) and replayed, rebuilding each process's executable
** mappings as the samples meet them. A sample's chain is the kernel's
** (frame pointers), else its branch stack, else its copy of the user stack
** unwound through the binaries' CFI (libdwfl, one address space per
** process, made again when its mappings change). Addresses are resolved
** once per (binary, address) and cached; binaries are opened once for
** their symbols, on first use.
*/
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* madvise's MADV_DONTNEED, MADV_POPULATE_READ */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#include "read/perf/debugcopy.h"
#include "read/perf/perfdata.h"
#include "read/perf/perfstacks.h"

#define NONE UINT32_MAX
/* perf's default perf_event_max_stack: a chain this deep was cut */
#define MAX_STACK 127

/* ---- an open-addressing hash table of ids; keys live with the caller ---- */

typedef struct htab {
  uint64_t *hash;
  uint32_t *val;   /* NONE: empty */
  size_t cap, n;
} htab;

typedef int (*ht_eq_fn)(const void *ctx, uint32_t val, const void *key);

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/* Bytes 8 at a time (names: a function's, a file's), the rest one by one,
** mixed at the end: the tables are indexed by the low bits. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  size_t i = 0;
  uint64_t w;
  h ^= 0xcbf29ce484222325ULL;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, b + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ULL;
  return mix64(h);
}

/* ids a word at a time (a stack's frames), mixed at the end: the table
** is indexed by the low bits. */
static uint64_t hash_ids(uint64_t h, const uint32_t *p, size_t n) {
  size_t i;
  h ^= 0xcbf29ce484222325ULL;
  for (i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return mix64(h);
}

static uint32_t ht_get(const htab *t, uint64_t h, ht_eq_fn eq, const void *ctx, const void *key) {
  size_t i;
  if (t->cap == 0)
    return NONE;
  for (i = (size_t)h & (t->cap - 1); t->val[i] != NONE; i = (i + 1) & (t->cap - 1))
    if (t->hash[i] == h && eq(ctx, t->val[i], key))
      return t->val[i];
  return NONE;
}

/* An array of n elements of size bytes from malloc, or NULL (overflow,
** out of memory): lgp_alloc_array would put one of a megabyte or more on
** a 2 MB boundary, where, in the command's heap on 2 MB pages,
** the gap before it costs whole pages once small blocks go in it. */
static void *alloc_array(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size)
    return NULL;
  return malloc(n == 0 || size == 0 ? 1 : n * size);
}

static void ht_place(uint64_t *hash, uint32_t *val, size_t cap, uint64_t h, uint32_t v) {
  size_t i = (size_t)h & (cap - 1);
  while (val[i] != NONE)
    i = (i + 1) & (cap - 1);
  hash[i] = h;
  val[i] = v;
}

static int ht_put(htab *t, uint64_t h, uint32_t v) {
  if (2 * (t->n + 1) > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64, i;
    uint64_t *nh = alloc_array(cap, sizeof *nh);
    uint32_t *nv = alloc_array(cap, sizeof *nv);
    if (!nh || !nv) {
      free(nh);
      free(nv);
      return -1;
    }
    for (i = 0; i < cap; i++)
      nv[i] = NONE;
    for (i = 0; i < t->cap; i++)
      if (t->val[i] != NONE)
        ht_place(nh, nv, cap, t->hash[i], t->val[i]);
    free(t->hash);
    free(t->val);
    t->hash = nh;
    t->val = nv;
    t->cap = cap;
  }
  ht_place(t->hash, t->val, t->cap, h, v);
  t->n++;
  return 0;
}

static void ht_free(htab *t) {
  free(t->hash);
  free(t->val);
  memset(t, 0, sizeof *t);
}

/* ---- state ---- */

typedef struct pmap {        /* an executable mapping of a process */
  uint64_t start, end, pgoff;
  uint32_t dso;
} pmap;

struct unw;

typedef struct proc {        /* an address space: mappings sorted, disjoint */
  uint32_t pid;
  pmap *maps;
  size_t n, cap;
  Dwfl *dwfl;                /* its binaries where they are, for unwinding */
  struct unw *unw;           /* the sample being unwound (the Dwfl's argument) */
  int stale;                 /* the mappings changed since dwfl was made */
} proc;

typedef struct tidname {
  uint32_t tid;
  const char *comm;          /* in the file's bytes */
} tidname;

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
  htab ht;                   /* by path */
  uint64_t inflated;         /* copies made */
} debugfiles;

/* A binary's ELF as the unwinding address spaces take it (their modules'
** libdwfl userdata): apart from the reader's arrays, which move. */
typedef struct elfshare {
  Elf *elf;                  /* the one opened for its symbols */
  const char *path;          /* the file (the table's found) */
  debugfiles *debug;
} elfshare;

typedef struct jitsym {
  uint64_t start, size;
  char *name;
} jitsym;

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
  jitsym *jit;
  size_t njit;
  char *label;               /* the base name in "[unknown] label+0x..." */
  struct symaddr *syms;      /* its symbols by address, made on first use */
  size_t nsyms;
  int syms_made;
} dsox;

typedef struct symaddr {     /* a symbol's address and its index in the module */
  uint64_t value, size;
  const char *name;          /* libdwfl's (its string table's, kept by the module) */
  uint64_t max_end;          /* the highest end of the sized symbols up to here */
  int index;
  int sizeless;              /* a sizeless symbol up to here */
  size_t group;              /* the first symbol at this address */
  /* on a group's first symbol: all of the group sized alike, and the
     symbol libdwfl chose among them (0: not asked yet) */
  int uniform, chosen;
} symaddr;

typedef struct ksym {
  uint64_t addr;
  uint32_t name;             /* offset in knames (the file: no NUL after it) */
} ksym;

typedef struct acache {      /* (binary, address) -> frames */
  uint32_t dso;
  uint64_t addr;
  uint32_t first, n;         /* in cframes */
} acache;

/* The DIEs of a compilation unit that have code addresses, as libdw's
** dwarf_getscopes looks for the scopes at an address (it walks the unit
** from its start for every address): each DIE's children with ranges,
** their ranges sorted, so that an address finds its path of scopes by a
** binary search per level. */
typedef struct scopenode {
  Dwarf_Die die;
  uint32_t parent;           /* NONE for the unit */
  uint32_t first, n;         /* its children's ranges: ranges[first .. first + n) */
} scopenode;

typedef struct scoperange {
  uint64_t lo, hi;
  uint32_t node;
} scoperange;

typedef struct cuscopes {
  uint32_t dso;
  const void *cu;            /* the unit's DIE (its address in the DWARF) */
  scopenode *nodes;
  scoperange *ranges;
  size_t nnodes, nranges;
  int irregular;             /* overlapping siblings, imported units, errors:
                                libdw is asked for each address */
} cuscopes;

typedef struct funckey {
  uint32_t dso;
  uint8_t is_inline;
  uint64_t start;
  const char *name;
} funckey;

typedef struct stackkey {
  uint32_t thread, depth;
  const uint32_t *ids;
} stackkey;

/* Everything one reading of a recording keeps. */
typedef struct reader {
  lgp_perf_data *pd;
  lgp_perf_opts opts;
  lgp_stacktab *out;
  lgp_err *err;
  size_t attr;               /* the chosen event */
  size_t dsos_cap, funcs_cap, fdefs_cap, frames_cap, stacks_cap, threads_cap, files_cap;
  size_t errors_cap;
  dsox *dx;
  size_t dx_cap;
  htab dso_ht, func_ht, file_ht, stack_ht, thread_ht, tid_ht, proc_ht, cache_ht, cu_ht;
  cuscopes *cus;
  size_t ncus, cus_cap;
  Dwarf_Die *path;           /* the scopes at an address, innermost first */
  size_t path_cap;
  proc *procs;
  size_t nprocs, procs_cap;
  uint32_t kernel_dso, unknown_dso, kernel_frame;
  uint64_t kernel_text;      /* runtime _text from the kernel's MMAP, 0 unknown */
  ksym *ksyms;
  size_t nksyms;
  char *knames;              /* the kernel symbol file: mapped (read-only), or read */
  size_t knames_len;         /* its size; names are read below knames_end */
  size_t knames_end;
  int knames_mapped;
  char *kname;               /* a kernel symbol's name, NUL-ended */
  size_t kname_cap;
  int kstate;                /* 0 not read, 1 usable, -1 none */
  tidname *tids;
  size_t ntids, tids_cap;
  const char **thread_comm;  /* out->threads' current names */
  acache *cache;
  size_t ncache, cache_cap;
  uint32_t *cframes;
  size_t ncframes, cframes_cap;
  uint32_t *scratch;
  size_t scratch_cap;
  uint64_t binaries;
  uint64_t spaces;           /* unwinding address spaces made */
  int can_unwind;            /* x86-64 registers and stack copies */
  char *buildid_dir;
  /* the last sample's process, thread and name, while no other record
     came (samples come in runs of one thread): indices, as arrays grow */
  int last_valid;
  uint32_t last_pid, last_tid, last_thread;
  size_t last_proc;
  const char *last_comm;
  debugfiles debug;          /* (a binary's module's libdwfl userdata) */
} reader;

static int oom(reader *s) {
  return lgp_fail(s->err, s->pd->path, "out of memory");
}

/* The reader's arrays grow by doubling with realloc: one that ends the
** heap grows where it is, and none is put on a 2 MB boundary (lgp_grow's
** big arrays are), which in the command's heap on 2 MB pages left gaps
** that cost whole pages once anything small was put in them. */
static int grow_array(void **p, size_t *cap, size_t need, size_t size) {
  size_t ncap = *cap ? *cap : 16;
  void *np;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2)
      return -1;
    ncap *= 2;
  }
  if (ncap > SIZE_MAX / size || !(np = realloc(*p, ncap * size)))
    return -1;
  *p = np;
  *cap = ncap;
  return 0;
}

/* (room already there, the common case, without a call) */
#define GROW(s, arr, cap, need) \
  ((need) <= (cap) ? 0 : grow_array((void **)&(arr), &(cap), (need), sizeof *(arr)) != 0 ? oom(s) : 0)

/* ---- source files ---- */

static int file_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  return strcmp(s->out->files[v], key) == 0;
}

/* The id of a source file name; LGP_ST_NOFILE without a name, and after
** a failure (then s->err is set). */
static uint32_t file_id(reader *s, const char *name) {
  uint64_t h;
  uint32_t v;
  if (!name || !*name)
    return LGP_ST_NOFILE;
  h = hash_bytes(0, name, strlen(name));
  v = ht_get(&s->file_ht, h, file_eq, s, name);
  if (v != NONE)
    return v;
  if (GROW(s, s->out->files, s->files_cap, s->out->nfiles + 1) != 0)
    return NONE;
  v = (uint32_t)s->out->nfiles;
  if (!(s->out->files[v] = lgp_strdup(name)) || ht_put(&s->file_ht, h, v) != 0) {
    free(s->out->files[v]);
    oom(s);
    return NONE;
  }
  s->out->nfiles++;
  return v;
}

/* ---- binaries ---- */

typedef struct dsokey {
  const char *path;
  uint32_t pid;
} dsokey;

static int dso_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const dsokey *k = key;
  return s->dx[v].pid == k->pid && strcmp(s->out->dsos[v].path, k->path) == 0;
}

static int is_anon(const char *path) {
  return strcmp(path, "//anon") == 0 || strncmp(path, "[anon:", 6) == 0
         || strncmp(path, "/memfd:", 7) == 0 || strcmp(path, "[heap]") == 0
         || strcmp(path, "[stack]") == 0;
}

/* The binary of this path (JIT code: of this process), made on first use. */
static uint32_t dso_get(reader *s, const char *path, uint32_t pid, int kind) {
  dsokey k;
  uint64_t h;
  uint32_t v;
  lgp_st_dso *d;
  const char *base;
  size_t i;
  if (kind == DK_ELF && is_anon(path))
    kind = DK_JIT;
  if (kind == DK_ELF && strcmp(path, "[vdso]") == 0)
    kind = DK_VDSO;
  k.path = path;
  k.pid = kind == DK_JIT ? pid : 0;
  h = hash_bytes(k.pid, path, strlen(path));
  v = ht_get(&s->dso_ht, h, dso_eq, s, &k);
  if (v != NONE)
    return v;
  if (GROW(s, s->out->dsos, s->dsos_cap, s->out->ndsos + 1) != 0
      || GROW(s, s->dx, s->dx_cap, s->out->ndsos + 1) != 0)
    return NONE;
  v = (uint32_t)s->out->ndsos;
  d = &s->out->dsos[v];
  memset(d, 0, sizeof *d);
  memset(&s->dx[v], 0, sizeof s->dx[v]);
  s->dx[v].kind = kind;
  s->dx[v].pid = k.pid;
  base = strrchr(path, '/');
  base = base && base[1] ? base + 1 : path;
  if (!(d->path = lgp_strdup(path)) || !(s->dx[v].label = lgp_strdup(base))) {
    free(d->path);
    free(s->dx[v].label);
    oom(s);
    return NONE;
  }
  d->is_kernel = kind == DK_KERNEL;
  d->status = kind == DK_KERNEL ? LGP_DSO_KERNEL : kind == DK_VDSO ? LGP_DSO_VDSO
              : kind == DK_JIT ? LGP_DSO_JIT : kind == DK_UNKNOWN ? LGP_DSO_UNKNOWN
              : LGP_DSO_MISSING;
  /* the build-id the recording lists for this path */
  for (i = 0; i < s->pd->nbuildids; i++)
    if (s->pd->buildids[i].path && strcmp(s->pd->buildids[i].path, path) == 0) {
      const lgp_perf_buildid *b = &s->pd->buildids[i];
      size_t len = b->len;
      if (len == 0 || len > 20) {
        /* length unknown: trailing zero words are not part of it */
        len = 20;
        while (len >= 4 && !b->id[len - 1] && !b->id[len - 2] && !b->id[len - 3]
               && !b->id[len - 4])
          len -= 4;
      }
      memcpy(d->build_id, b->id, 20);
      d->build_id_len = (uint8_t)len;
      break;
    }
  s->out->ndsos++;
  if (ht_put(&s->dso_ht, h, v) != 0) {
    oom(s);
    return NONE;
  }
  return v;
}

static char *joined(const char *a, const char *b, const char *c) {
  size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
  char *p = malloc(la + lb + lc + 1);
  if (!p)
    return NULL;
  memcpy(p, a, la);
  memcpy(p + la, b, lb);
  memcpy(p + la + lb, c, lc + 1);
  return p;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int debugfile_eq(const void *ctx, uint32_t v, const void *key) {
  const debugfiles *df = ctx;
  return strcmp(df->files[v].path, key) == 0;
}

/* The debug file at path, when it has the module's build-id (id) and
** compressed DWARF: a new descriptor of its inflated copy, *name set. -1
** when there is no file there, -2 when there is another one. */
static int inflated_at(debugfiles *df, const char *path, const unsigned char *id, size_t idlen,
                       const struct stat *main_st, char **name) {
  struct stat st;
  uint64_t h;
  uint32_t v;
  int copy = -1, fd;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return -1;
  if (main_st && st.st_dev == main_st->st_dev && st.st_ino == main_st->st_ino)
    return -2;
  h = hash_bytes(0, path, strlen(path));
  if ((v = ht_get(&df->ht, h, debugfile_eq, df, path)) != NONE) {
    const debugfile *f = &df->files[v];
    if (f->build_id_len != idlen || memcmp(f->build_id, id, idlen) != 0)
      return -2;
    copy = f->copy;
  } else {
    debugfile *f;
    if (df->n >= NONE || lgp_grow((void **)&df->files, &df->cap, df->n + 1, sizeof *df->files) != 0)
      return -2;
    f = &df->files[df->n];
    if (!(f->path = lgp_strdup(path)))
      return -2;
    if (ht_put(&df->ht, h, (uint32_t)df->n) != 0) {
      free(f->path);
      return -2;
    }
    memcpy(f->build_id, id, idlen);
    f->build_id_len = idlen;
    f->copy = -1;
    df->n++;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
      f->copy = copy = lgp_debug_inflated_copy(fd, id, idlen);
      close(fd);
      if (copy >= 0)
        df->inflated++;
    }
  }
  if (copy < 0 || (fd = dup(copy)) < 0)
    return -2;
  if (!(*name = lgp_strdup(path))) {
    close(fd);
    return -2;
  }
  return fd;
}

/* libdwfl's find_debuginfo: where libdwfl's standard search looks first
** (the build-id directory, then the debug link next to the binary, in
** its .debug/, under /usr/lib/debug/), a debug file with the binary's
** build-id and compressed DWARF is handed to libdwfl as an in-memory
** copy with its DWARF inflated (its name stays the file's: libdwfl looks
** for a .gnu_debugaltlink's file next to it). Anything else is libdwfl's
** standard search, which also opens the file it finds to check its
** build-id, and libdw then reads that one. */
static int find_debug(debugfiles *df, Dwfl_Module *mod, void **userdata, const char *modname,
                      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                      GElf_Word debuglink_crc, char **debuginfo_file_name) {
  const unsigned char *id;
  GElf_Addr id_vaddr;
  int idlen;
  if (df && file_name && (idlen = dwfl_module_build_id(mod, &id, &id_vaddr)) > 1 && idlen <= 20) {
    struct stat main_st;
    const char *slash = strrchr(file_name, '/');
    char hex[41], sub[96], *dir, *path = NULL, *own_link = NULL;
    const char *urls = getenv("DEBUGINFOD_URLS"), *link = debuglink_file;
    int i, fd = -1, looked = 0, have_main = stat(file_name, &main_st) == 0;
    for (i = 0; i < idlen; i++)
      snprintf(hex + 2 * i, 3, "%02x", id[i]);
    snprintf(sub, sizeof sub, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
    fd = inflated_at(df, sub, id, (size_t)idlen, have_main ? &main_st : NULL,
                     debuginfo_file_name);
    /* (no debug link: libdwfl looks for the binary's name and .debug) */
    if (!link && slash && (own_link = joined("", slash + 1, ".debug")) != NULL)
      link = own_link;
    if (fd == -1 && link && *link && !strchr(link, '/') && slash
        && (dir = malloc((size_t)(slash - file_name) + 1)) != NULL) {
      const char *const where[3][2] = { { "", "/" }, { "", "/.debug/" },
                                        { "/usr/lib/debug", "/" } };
      memcpy(dir, file_name, (size_t)(slash - file_name));
      dir[slash - file_name] = '\0';
      for (i = 0; i < 3 && fd == -1; i++) {
        char *under = joined(where[i][0], dir, where[i][1]);
        if (under && (path = joined(under, link, "")) != NULL)
          fd = inflated_at(df, path, id, (size_t)idlen, have_main ? &main_st : NULL,
                           debuginfo_file_name);
        free(under);
        free(path);
        path = NULL;
      }
      free(dir);
      looked = 1;
    }
    free(own_link);
    if (fd >= 0)
      return fd;
    /* Nothing at any place the standard search looks: it would go on to
       debuginfod, loading libdebuginfod, libcurl and their TLS libraries
       (some 5 ms) to find that no server is set. */
    if (fd == -1 && looked && !(urls && *urls))
      return -1;
  }
  return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                      debuglink_crc, debuginfo_file_name);
}

/* find_debuginfo of the binaries' own modules (userdata: debugfiles) */
static int own_debug(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                     const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                     char **debuginfo_file_name) {
  return find_debug(*userdata, mod, userdata, modname, base, file_name, debuglink_file,
                    debuglink_crc, debuginfo_file_name);
}

/* find_debuginfo of the unwinding address spaces' modules (userdata:
** elfshare, or NULL) */
static int space_debug(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name) {
  const elfshare *sh = *userdata;
  return find_debug(sh ? sh->debug : NULL, mod, userdata, modname, base, file_name,
                    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static void debugfiles_free(debugfiles *df) {
  size_t i;
  for (i = 0; i < df->n; i++) {
    free(df->files[i].path);
    if (df->files[i].copy >= 0)
      close(df->files[i].copy);
  }
  free(df->files);
  ht_free(&df->ht);
}

static const Dwfl_Callbacks dwfl_cbs = {
  NULL, own_debug, dwfl_offline_section_address, NULL
};

/* libdwfl's find_elf for the modules of the unwinding address spaces:
** the ELF the binary's symbols were read from, one more reference to it
** (libdwfl ends it with the module; the file stays open until the last). */
static int shared_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                      char **file_name, Elf **elfp) {
  const elfshare *sh = *userdata;
  (void)mod;
  (void)modname;
  (void)base;
  if (sh && (*elfp = elf_begin(-1, ELF_C_READ_MMAP, sh->elf)) != NULL && !*file_name)
    *file_name = lgp_strdup(sh->path);
  return -1;
}

static const Dwfl_Callbacks space_cbs = {
  shared_elf, space_debug, dwfl_offline_section_address, NULL
};

/* Does the module define any function (a stripped file's .dynsym may
** hold only the functions it imports)? */
static int defines_functions(Dwfl_Module *mod) {
  int n = dwfl_module_getsymtab(mod), i;
  for (i = 1; i < n; i++) {
    GElf_Sym sym;
    if (dwfl_module_getsym(mod, i, &sym, NULL) && GELF_ST_TYPE(sym.st_info) == STT_FUNC
        && sym.st_shndx != SHN_UNDEF)
      return 1;
  }
  return 0;
}

/* Opens file as the ELF of dso d: 1 used, 0 not an ELF or another
** build-id (*mismatch set), -1 out of memory. */
static int try_elf(reader *s, uint32_t d, const char *file, int *mismatch) {
  dsox *x = &s->dx[d];
  lgp_st_dso *sd = &s->out->dsos[d];
  Dwfl *dwfl;
  Dwfl_Module *mod;
  const unsigned char *bits;
  GElf_Addr vaddr, bias;
  Elf *elf;
  size_t nph, i, segs_cap = 0;
  int n;
  if (!is_file(file))
    return 0;
  if (!(dwfl = dwfl_begin(&dwfl_cbs)))
    return 0;
  s->out->elf_opens++;
  dwfl_report_begin(dwfl);
  mod = dwfl_report_elf(dwfl, sd->path, file, -1, 0, true);
  dwfl_report_end(dwfl, NULL, NULL);
  if (!mod) {
    dwfl_end(dwfl);
    return 0;
  }
  {
    void **ud;
    if (dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
      *ud = &s->debug;
  }
  n = dwfl_module_build_id(mod, &bits, &vaddr);
  if (sd->build_id_len
      && (n != sd->build_id_len || memcmp(bits, sd->build_id, sd->build_id_len) != 0)) {
    *mismatch = 1;
    dwfl_end(dwfl);
    return 0;
  }
  if (!(elf = dwfl_module_getelf(mod, &bias)) || elf_getphdrnum(elf, &nph) != 0) {
    dwfl_end(dwfl);
    return 0;
  }
  for (i = 0; i < nph; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
      if (GROW(s, x->segs, segs_cap, x->nsegs + 1) != 0) {
        dwfl_end(dwfl);
        return -1;
      }
      if (x->nsegs == 0)
        x->load_start = ph.p_vaddr & -ph.p_align;
      if (ph.p_vaddr + ph.p_memsz > 0)
        x->load_end = ph.p_vaddr + ph.p_memsz;
      x->segs[x->nsegs].off = ph.p_offset;
      x->segs[x->nsegs].filesz = ph.p_filesz;
      x->segs[x->nsegs++].vaddr = ph.p_vaddr;
    }
  }
  free(sd->found);
  /* the file itself, not the build-id cache's link to it */
  if (!(sd->found = realpath(file, NULL)) && !(sd->found = lgp_strdup(file))) {
    dwfl_end(dwfl);
    return oom(s);
  }
  x->dwfl = dwfl;
  x->mod = mod;
  {
    GElf_Ehdr eh;
    if (x->nsegs && x->load_end && gelf_getehdr(elf, &eh) && eh.e_type != ET_REL) {
      if (!(x->share = malloc(sizeof *x->share)))
        return oom(s);
      x->share->elf = elf;
      x->share->path = sd->found;
      x->share->debug = &s->debug;
    }
  }
  sd->status = defines_functions(mod) ? LGP_DSO_OK : LGP_DSO_STRIPPED;
  s->binaries++;
  return 1;
}

/* Finds and opens the ELF of dso d, once: the build-id cache, the
** recorded path (under symfs), the distribution's debug files. */
static int dso_open(reader *s, uint32_t d) {
  dsox *x = &s->dx[d];
  lgp_st_dso *sd = &s->out->dsos[d];
  char hex[41], *path = NULL, *p2;
  int mismatch = 0, rc = 0;
  size_t i, plen;
  if (x->opened)
    return 0;
  x->opened = 1;
  for (i = 0; i < sd->build_id_len; i++)
    snprintf(hex + 2 * i, 3, "%02x", sd->build_id[i]);
  if (sd->build_id_len > 1) {
    char sub[64];
    snprintf(sub, sizeof sub, "/.build-id/%.2s/%s", hex, hex + 2);
    if (!(path = joined(s->buildid_dir, sub, "")))
      return oom(s);
    if (is_dir(path)) {
      if (!(p2 = joined(path, x->kind == DK_VDSO ? "/vdso" : "/elf", "")))
        rc = -1;
      else
        rc = try_elf(s, d, p2, &mismatch);
      free(p2);
    } else {
      rc = try_elf(s, d, path, &mismatch);
    }
    free(path);
    if (rc != 0)
      return rc < 0 ? -1 : 0;
  }
  if (x->kind == DK_ELF) {
    plen = strlen(sd->path);
    if (!(path = joined(s->opts.symfs ? s->opts.symfs : "", sd->path, "")))
      return oom(s);
    /* an unlinked file is looked for where it was */
    if (plen > 10 && strcmp(path + strlen(path) - 10, " (deleted)") == 0)
      path[strlen(path) - 10] = '\0';
    rc = try_elf(s, d, path, &mismatch);
    free(path);
    if (rc != 0)
      return rc < 0 ? -1 : 0;
  }
  if (sd->build_id_len > 1) {
    char sub[96];
    snprintf(sub, sizeof sub, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
    rc = try_elf(s, d, sub, &mismatch);
    if (rc != 0)
      return rc < 0 ? -1 : 0;
  }
  if (mismatch)
    sd->status = LGP_DSO_MISMATCH;
  return 0;
}

/* ---- functions and frames ---- */

static int func_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const funckey *k = key;
  const lgp_st_func *f = &s->out->funcs[v];
  return f->dso == k->dso && f->is_inline == k->is_inline && f->start == k->start
         && strcmp(f->name, k->name) == 0;
}

static uint32_t func_get(reader *s, uint32_t dso, const char *name, int is_inline, int is_unknown,
                         uint64_t start, uint64_t end, uint32_t file, uint32_t line) {
  funckey k;
  uint64_t h;
  uint32_t v;
  lgp_st_func *f;
  k.dso = dso;
  k.is_inline = (uint8_t)is_inline;
  k.start = is_inline ? 0 : start;
  k.name = name;
  h = hash_bytes(mix64(((uint64_t)dso << 1 | (unsigned)is_inline) ^ k.start), name, strlen(name));
  v = ht_get(&s->func_ht, h, func_eq, s, &k);
  if (v != NONE)
    return v;
  if (GROW(s, s->out->funcs, s->funcs_cap, s->out->nfuncs + 1) != 0)
    return NONE;
  v = (uint32_t)s->out->nfuncs;
  f = &s->out->funcs[v];
  memset(f, 0, sizeof *f);
  f->dso = dso;
  f->start = k.start;
  f->end = is_inline ? 0 : end;
  f->file = file;
  f->line = line;
  f->is_inline = (uint8_t)is_inline;
  f->is_unknown = (uint8_t)is_unknown;
  if (!(f->name = lgp_strdup(name)))
    return (uint32_t)oom(s);
  s->out->nfuncs++;
  if (ht_put(&s->func_ht, h, v) != 0)
    return (uint32_t)oom(s);
  return v;
}

static uint32_t fdef_add(reader *s, uint32_t func, uint64_t addr, uint32_t file, uint32_t line) {
  lgp_st_frame *fr;
  if (func == NONE || GROW(s, s->out->frame_defs, s->fdefs_cap, s->out->nframe_defs + 1) != 0)
    return NONE;
  fr = &s->out->frame_defs[s->out->nframe_defs];
  fr->func = func;
  fr->addr = addr;
  fr->file = file;
  fr->line = line;
  return (uint32_t)s->out->nframe_defs++;
}

static int cframe_push(reader *s, uint32_t fd) {
  if (fd == NONE || GROW(s, s->cframes, s->cframes_cap, s->ncframes + 1) != 0)
    return -1;
  s->cframes[s->ncframes++] = fd;
  return 0;
}

/* "[unknown] label+0xOFF": one function per address no symbol covers
** (put together by hand: a stripped binary has thousands). */
static int unknown_frame(reader *s, uint32_t dso, uint64_t off) {
  static const char digits[] = "0123456789abcdef";
  char name[300], hex[16];
  size_t n = 10, l, k = 0;
  uint64_t v;
  uint32_t f;
  memcpy(name, "[unknown] ", 10);
  /* in no mapping: the address alone */
  if (dso != s->unknown_dso) {
    l = strlen(s->dx[dso].label);
    l = l > 250 ? 250 : l;
    memcpy(name + n, s->dx[dso].label, l);
    n += l;
    name[n++] = '+';
  }
  name[n++] = '0';
  name[n++] = 'x';
  v = off;
  do {                       /* the digits, least significant first */
    hex[k++] = digits[v & 0xf];
    v >>= 4;
  } while (v != 0);
  while (k > 0)
    name[n++] = hex[--k];
  name[n] = '\0';
  f = func_get(s, dso, name, 0, 1, off, off + 1, LGP_ST_NOFILE, 0);
  return cframe_push(s, fdef_add(s, f, off, LGP_ST_NOFILE, 0));
}

static const char *die_name(Dwarf_Die *die) {
  Dwarf_Attribute a;
  const char *n = NULL;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a)
      || dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
    n = dwarf_formstring(&a);
  return n ? n : dwarf_diename(die);
}

static uint32_t decl_file(reader *s, Dwarf_Die *die, uint32_t *line) {
  int l = 0;
  const char *f = dwarf_decl_file(die);
  *line = dwarf_decl_line(die, &l) == 0 && l > 0 ? (uint32_t)l : 0;
  return file_id(s, f);
}

/* ---- symbols by address ---- */

/* *items (n of size bytes each) in the order of keys (one per item; equal
** keys keep the items' order: a stable radix sort), as a new array in
** place of the old. 0, or -1 out of memory (*items as it was). */
static int sort_by_keys(void **items, size_t n, size_t size, const uint64_t *keys) {
  uint32_t *idx = alloc_array(n, sizeof *idx);
  unsigned char *sorted = alloc_array(n, size);
  const unsigned char *from = *items;
  size_t i;
  int rc = -1;
  if (idx && sorted && n < UINT32_MAX) {
    for (i = 0; i < n; i++)
      idx[i] = (uint32_t)i;
    if (lgp_radix_sort(idx, keys, n) == 0) {
      for (i = 0; i < n; i++)
        memcpy(sorted + i * size, from + (size_t)idx[i] * size, size);
      free(*items);
      *items = sorted;
      sorted = NULL;
      rc = 0;
    }
  }
  free(idx);
  free(sorted);
  return rc;
}

/* x's symbols by address, those at one address by index (the order they
** were met in). */
static int syms_sort(reader *s, dsox *x) {
  uint64_t *keys = alloc_array(x->nsyms, sizeof *keys);
  void *items = x->syms;
  size_t i;
  int rc = -1;
  if (keys) {
    for (i = 0; i < x->nsyms; i++)
      keys[i] = x->syms[i].value;
    rc = sort_by_keys(&items, x->nsyms, sizeof *x->syms, keys);
    x->syms = items;
  }
  free(keys);
  return rc == 0 ? 0 : oom(s);
}

/* The module's defined symbols sorted by address, once: libdwfl's own
** search by address visits every symbol, which over the distinct
** addresses of a large recording was most of the reading. */
static int syms_make(reader *s, dsox *x) {
  int n = dwfl_module_getsymtab(x->mod), i;
  size_t cap = 0;
  x->syms_made = 1;
  for (i = 1; i < n; i++) {
    GElf_Sym sym;
    int type;
    const char *name = dwfl_module_getsym(x->mod, i, &sym, NULL);
    if (!name || sym.st_shndx == SHN_UNDEF)
      continue;
    type = GELF_ST_TYPE(sym.st_info);
    if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
      continue;
    if (GROW(s, x->syms, cap, x->nsyms + 1) != 0)
      return -1;
    x->syms[x->nsyms].value = sym.st_value;
    x->syms[x->nsyms].size = sym.st_size;
    x->syms[x->nsyms].name = name;
    x->syms[x->nsyms++].index = i;
  }
  if (x->nsyms > 1 && syms_sort(s, x) != 0)
    return -1;
  for (i = 0; (size_t)i < x->nsyms; i++) {
    symaddr *y = &x->syms[i];
    uint64_t end = y->size ? y->value + y->size : 0;
    y->max_end = i > 0 && y[-1].max_end > end ? y[-1].max_end : end;
    y->sizeless = (i > 0 && y[-1].sizeless) || y->size == 0;
    y->chosen = 0;
    if (i > 0 && y[-1].value == y->value) {
      y->group = y[-1].group;
      if (y->size != x->syms[y->group].size)
        x->syms[y->group].uniform = 0;
    } else {
      y->group = (size_t)i;
      y->uniform = y->size > 0;
    }
  }
  return 0;
}

/* libdwfl's preference among symbols at one address: global, weak, local,
** others. */
static int binding_rank(const GElf_Sym *sym) {
  switch (GELF_ST_BIND(sym->st_info)) {
  case STB_GLOBAL: return 3;
  case STB_WEAK: return 2;
  case STB_LOCAL: return 1;
  default: return 0;
  }
}

/* libdwfl's choice among the aliases syms[from .. to) (one address, one
** size) when no other symbol covers the address: it searches the global
** part of the table first, the local part only when that found nothing,
** and keeps the first symbol of the highest binding it meets. The index
** of the symbol, or 0 (none: libdwfl is asked). Asking libdwfl costs a
** visit of every symbol of the module, once per group of aliases. */
static int alias_choice(dsox *x, size_t from, size_t to) {
  int first_global = dwfl_module_getsymtab_first_global(x->mod), pass, best = 0, rank = -1;
  size_t j;
  if (first_global < 0)
    return 0;
  for (pass = 0; pass < 2 && !best; pass++) {
    int lo = pass == 0 ? (first_global == 0 ? 1 : first_global) : 1;
    int hi = pass == 0 ? INT_MAX : first_global;
    if (pass == 1 && first_global <= 1)
      break;
    for (j = from; j < to; j++) {
      GElf_Sym sym;
      const char *name;
      int idx = x->syms[j].index;
      if (idx < lo || idx >= hi)
        continue;
      name = dwfl_module_getsym(x->mod, idx, &sym, NULL);
      if (!name || !*name)
        continue;
      if (binding_rank(&sym) > rank || (binding_rank(&sym) == rank && idx < best)) {
        rank = binding_rank(&sym);
        best = idx;
      }
    }
  }
  return best;
}

/* The symbol at addr: when the last symbol at or below addr is alone at
** its address and its size covers addr, it is the one (no other sized
** symbol covering addr starts closer, no sizeless one is nearer); when no
** symbol at or below addr covers it and none is sizeless, there is none
** (a stripped binary's static functions); in every other case libdwfl
** decides, by its own rules. */
static const char *sym_at(reader *s, dsox *x, uint64_t addr, GElf_Off *off, GElf_Sym *sym) {
  size_t lo = 0, hi;
  if (!x->syms_made && syms_make(s, x) != 0)
    return NULL;
  hi = x->nsyms;
  while (lo < hi) {          /* the first symbol above addr */
    size_t mid = lo + (hi - lo) / 2;
    if (x->syms[mid].value <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && (lo < 2 || x->syms[lo - 2].value != x->syms[lo - 1].value)) {
    /* (what libdwfl gave for the symbol when the table was made) */
    const symaddr *y = &x->syms[lo - 1];
    if (y->size > 0 && addr - y->value < y->size) {
      memset(sym, 0, sizeof *sym);
      sym->st_value = y->value;
      sym->st_size = y->size;
      *off = addr - y->value;
      return y->name;
    }
  } else if (lo > 0) {
    /* aliases, all covering addr: libdwfl's choice among them does not
       depend on where in them addr is; asked once per group */
    symaddr *g = &x->syms[x->syms[lo - 1].group];
    if (g->uniform && addr - g->value < g->size) {
      const char *name;
      size_t j;
      size_t gi = x->syms[lo - 1].group;
      /* no symbol below the aliases covers addr: the choice is among them */
      if (!g->chosen && (gi == 0 || x->syms[gi - 1].max_end <= addr))
        g->chosen = alias_choice(x, gi, lo);
      if (g->chosen && (name = dwfl_module_getsym(x->mod, g->chosen, sym, NULL)) != NULL) {
        *off = addr - sym->st_value;
        return name;
      }
      name = dwfl_module_addrinfo(x->mod, addr, off, sym, NULL, NULL, NULL);
      for (j = x->syms[lo - 1].group; name && sym->st_value == g->value && j < lo; j++) {
        GElf_Sym other;
        const char *n2 = dwfl_module_getsym(x->mod, x->syms[j].index, &other, NULL);
        if (n2 && strcmp(n2, name) == 0 && other.st_size == sym->st_size) {
          g->chosen = x->syms[j].index;
          break;
        }
      }
      return name;
    }
  }
  if (lo == 0 || (x->syms[lo - 1].max_end <= addr && !x->syms[lo - 1].sizeless))
    return NULL;
  return dwfl_module_addrinfo(x->mod, addr, off, sym, NULL, NULL, NULL);
}

/* libdw's classes of DIEs for scopes: the ones whose children it visits
** (DIEs with addresses to match, and namespaces and types, which can own
** such DIEs). */
static int scope_parent(int tag) {
  switch (tag) {
  case DW_TAG_compile_unit:
  case DW_TAG_module:
  case DW_TAG_lexical_block:
  case DW_TAG_with_stmt:
  case DW_TAG_catch_block:
  case DW_TAG_try_block:
  case DW_TAG_entry_point:
  case DW_TAG_inlined_subroutine:
  case DW_TAG_subprogram:
  case DW_TAG_namespace:
  case DW_TAG_class_type:
  case DW_TAG_structure_type:
    return 1;
  default:
    return 0;
  }
}

static int srange_cmp(const void *a, const void *b) {
  const scoperange *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Indexes the unit c->cu (its DIE: cudie): the DIEs whose ranges an
** address can reach from the unit (a DIE without ranges never matches,
** and libdw does not look inside it), level by level, iteratively. 0
** (c->irregular set where the index would not give libdw's answer), or
** -1 out of memory. */
static int cu_index(reader *s, cuscopes *c, Dwarf_Die *cudie) {
  size_t nodes_cap = 0, ranges_cap = 0, next = 0;
  if (GROW(s, c->nodes, nodes_cap, 1) != 0)
    return -1;
  c->nodes[0].die = *cudie;
  c->nodes[0].parent = NONE;
  c->nnodes = 1;
  /* nodes are expanded in the order they were added: each one's children
     come together in ranges */
  for (next = 0; next < c->nnodes && !c->irregular; next++) {
    Dwarf_Die child;
    size_t first = c->nranges, i;
    int rc;
    c->nodes[next].first = (uint32_t)first;
    c->nodes[next].n = 0;
    if (next > 0 && (!scope_parent(dwarf_tag(&c->nodes[next].die))
                     || !dwarf_haschildren(&c->nodes[next].die)))
      continue;
    rc = dwarf_child(&c->nodes[next].die, &child);
    if (rc < 0) {
      c->irregular = 1;
      break;
    }
    for (; rc == 0; rc = dwarf_siblingof(&child, &child)) {
      Dwarf_Addr base, lo, hi;
      ptrdiff_t at = 0;
      int any = 0;
      if (dwarf_tag(&child) == DW_TAG_imported_unit) {
        c->irregular = 1;
        break;
      }
      while ((at = dwarf_ranges(&child, at, &base, &lo, &hi)) > 0) {
        if (lo >= hi)
          continue;
        if (!any) {
          if (c->nnodes >= NONE - 1) {   /* ids are 32-bit: libdw answers */
            c->irregular = 1;
            return 0;
          }
          if (GROW(s, c->nodes, nodes_cap, c->nnodes + 1) != 0)
            return -1;
          c->nodes[c->nnodes].die = child;
          c->nodes[c->nnodes].parent = (uint32_t)next;
          c->nnodes++;
          any = 1;
        }
        if (GROW(s, c->ranges, ranges_cap, c->nranges + 1) != 0)
          return -1;
        c->ranges[c->nranges].lo = lo;
        c->ranges[c->nranges].hi = hi;
        c->ranges[c->nranges++].node = (uint32_t)(c->nnodes - 1);
      }
      if (at < 0) {
        /* libdw takes some errors as no match and stops on others */
        c->irregular = 1;
        break;
      }
    }
    if (rc < 0)
      c->irregular = 1;
    if (c->irregular)
      break;
    c->nodes[next].n = (uint32_t)(c->nranges - first);
    if (c->nranges - first > 1)
      qsort(c->ranges + first, c->nranges - first, sizeof *c->ranges, srange_cmp);
    /* libdw descends into the first child that holds the address: with
       siblings apart, the only one */
    for (i = first + 1; i < c->nranges; i++)
      if (c->ranges[i].lo < c->ranges[i - 1].hi) {
        c->irregular = 1;
        break;
      }
  }
  return 0;
}

static int cus_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const cuscopes *k = key;
  return s->cus[v].dso == k->dso && s->cus[v].cu == k->cu;
}

/* The scopes at pc (in the unit's addresses) into s->path, innermost
** first, the unit last, as dwarf_getscopes finds them before it follows
** an inlined instance to its abstract definition: their number, or -1
** when libdw must be asked (then s->err is set if out of memory). */
static int cu_scopes(reader *s, uint32_t dso, Dwarf_Die *cudie, uint64_t pc) {
  cuscopes k, *c;
  uint64_t h;
  uint32_t v, node = 0, depth = 0, i;
  k.dso = dso;
  k.cu = cudie->addr;
  h = mix64((uint64_t)(uintptr_t)cudie->addr ^ ((uint64_t)dso << 48));
  v = ht_get(&s->cu_ht, h, cus_eq, s, &k);
  if (v == NONE) {
    if (GROW(s, s->cus, s->cus_cap, s->ncus + 1) != 0)
      return -1;
    v = (uint32_t)s->ncus++;
    c = &s->cus[v];
    memset(c, 0, sizeof *c);
    c->dso = dso;
    c->cu = cudie->addr;
    if (ht_put(&s->cu_ht, h, v) != 0) {
      oom(s);
      return -1;
    }
    if (cu_index(s, c, cudie) != 0)
      return -1;
  }
  c = &s->cus[v];
  if (c->irregular)
    return -1;
  for (;;) {                 /* down from the unit: the child holding pc */
    const scopenode *nd = &c->nodes[node];
    size_t lo = nd->first, hi = (size_t)nd->first + nd->n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (c->ranges[mid].lo <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
    depth++;
    if (lo == nd->first || pc >= c->ranges[lo - 1].hi)
      break;
    node = c->ranges[lo - 1].node;
  }
  if (GROW(s, s->path, s->path_cap, depth) != 0)
    return -1;
  for (i = 0; i < depth; i++, node = c->nodes[node].parent)
    s->path[i] = c->nodes[node].die;
  return (int)depth;
}

/* The frames at addr of an ELF: the inlined functions there, innermost
** first, then the function of the symbol, each at its source line. */
static int elf_frames(reader *s, uint32_t dso, uint64_t addr) {
  dsox *x = &s->dx[dso];
  GElf_Off off;
  GElf_Sym sym;
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu, *scopes = NULL, *subprogram = NULL, *path = NULL, *sc;
  Dwfl_Line *ln;
  const char *name, *src = NULL;
  uint32_t cur_file = LGP_ST_NOFILE, cur_line = 0, ffile = LGP_ST_NOFILE, fline = 0, f;
  int lineno = 0, nscopes = 0, i;
  name = sym_at(s, x, addr, &off, &sym);
  if (s->err->set)
    return -1;
  if (!name || !*name)
    return unknown_frame(s, dso, addr);
  if ((ln = dwfl_module_getsrc(x->mod, addr)) != NULL)
    src = dwfl_lineinfo(ln, NULL, &lineno, NULL, NULL, NULL);
  if (src) {
    cur_file = file_id(s, src);
    if (s->err->set)
      return -1;
    cur_line = lineno > 0 ? (uint32_t)lineno : 0;
  }
  if ((cu = dwfl_module_addrdie(x->mod, addr, &bias)) != NULL) {
    nscopes = cu_scopes(s, dso, cu, addr - bias);
    if (s->err->set)
      return -1;
    if (nscopes >= 0)
      path = s->path;     /* the DIEs that hold addr: already what is wanted */
    else
      nscopes = dwarf_getscopes(cu, addr - bias, &scopes);
  }
  /* libdw follows an inlined instance with its abstract definition's
     scopes, not with the code around it: from the innermost instance on,
     take the DIEs that hold it instead */
  for (i = 0; !path && i < nscopes; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Die inner = scopes[i];
      Dwarf_Die *held = NULL;
      int nheld = dwarf_getscopes_die(&inner, &held);
      free(scopes);
      scopes = held;
      nscopes = nheld > 0 ? nheld : 0;
      break;
    }
    if (tag == DW_TAG_subprogram)
      break;
  }
  sc = path ? path : scopes;
  for (i = 0; i < nscopes; i++) {
    int tag = dwarf_tag(&sc[i]);
    if (tag == DW_TAG_subprogram) {
      subprogram = &sc[i];
      break;
    }
    if (tag == DW_TAG_inlined_subroutine && !s->opts.no_inline) {
      Dwarf_Attribute a;
      Dwarf_Word cf = 0, cl = 0;
      Dwarf_Files *files;
      size_t nfiles;
      uint32_t ifile, iline;
      const char *iname = die_name(&sc[i]);
      ifile = decl_file(s, &sc[i], &iline);
      f = func_get(s, dso, iname ? iname : "[inlined]", 1, 0, 0, 0, ifile, iline);
      if (cframe_push(s, fdef_add(s, f, addr, cur_file, cur_line)) != 0) {
        free(scopes);
        return -1;
      }
      /* the enclosing function is at the call site */
      cur_file = LGP_ST_NOFILE;
      cur_line = 0;
      if (dwarf_formudata(dwarf_attr(&sc[i], DW_AT_call_line, &a), &cl) == 0)
        cur_line = (uint32_t)cl;
      if (dwarf_formudata(dwarf_attr(&sc[i], DW_AT_call_file, &a), &cf) == 0
          && dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && cf < nfiles)
        cur_file = file_id(s, dwarf_filesrc(files, cf, NULL, NULL));
      if (s->err->set) {
        free(scopes);
        return -1;
      }
    }
  }
  if (subprogram)
    ffile = decl_file(s, subprogram, &fline);
  free(scopes);
  if (s->err->set)
    return -1;
  f = func_get(s, dso, name, 0, 0, addr - off, addr - off + (sym.st_size ? sym.st_size : 1),
               ffile, fline);
  return cframe_push(s, fdef_add(s, f, addr, cur_file, cur_line));
}

/* ---- kernel symbols ---- */

/* The kernel symbols by address, aliases in the file's order (a stable
** radix sort: the file is nearly sorted already, and long; sorted, as
** kallsyms usually is, it is left as it is). */
static int ksyms_sort(reader *s) {
  uint64_t *keys;
  void *items;
  size_t i;
  int rc = -1;
  for (i = 1; i < s->nksyms && s->ksyms[i - 1].addr <= s->ksyms[i].addr; i++)
    ;
  if (i >= s->nksyms)
    return 0;
  if ((keys = alloc_array(s->nksyms, sizeof *keys)) != NULL) {
    for (i = 0; i < s->nksyms; i++)
      keys[i] = s->ksyms[i].addr;
    items = s->ksyms;
    rc = sort_by_keys(&items, s->nksyms, sizeof *s->ksyms, keys);
    s->ksyms = items;
  }
  free(keys);
  return rc == 0 ? 0 : oom(s);
}

/* The whole of a file whose size stat may not tell (/proc): NULL when it
** cannot be read (errno), or out of memory (*oom set). */
static char *read_whole(FILE *f, size_t *len, int *oom_set) {
  size_t cap = 1 << 20, n = 0, got;
  char *buf = malloc(cap + 1), *nb;
  *oom_set = 0;
  if (!buf) {
    *oom_set = 1;
    return NULL;
  }
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      if (cap > SIZE_MAX / 4 || !(nb = realloc(buf, 2 * cap + 1))) {
        free(buf);
        *oom_set = 1;
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
  }
  if (ferror(f)) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* A hex digit's value + 1, 0 for other bytes. */
static const unsigned char hex_plus1[256] = {
  ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
  ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
  ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16
};

/* The bytes that end a kallsyms name. */
static const unsigned char name_end[256] = {
  ['\0'] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1
};

static uint64_t byte_swap64(uint64_t x) {
  x = (x & 0x00000000ffffffffULL) << 32 | x >> 32;
  x = (x & 0x0000ffff0000ffffULL) << 16 | (x >> 16 & 0x0000ffff0000ffffULL);
  return (x & 0x00ff00ff00ff00ffULL) << 8 | (x >> 8 & 0x00ff00ff00ff00ffULL);
}

/* The value of the 8 hex digits at p (either case), or 0 when one of the
** bytes is none: the bytes as one number, each checked and turned into
** its digit's value at once. */
static int hex8(const char *p, uint64_t *out) {
  const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
  const uint16_t endian = 1;
  uint64_t x, lo, digit, letter, n;
  memcpy(&x, p, 8);
  if (*(const unsigned char *)&endian == 0)   /* the first digit in the lowest byte */
    x = byte_swap64(x);
  if (x & high)
    return 0;
  /* a byte's high bit, once 0x80 - LO (resp. 0x7f - HI) is added: it is
     at least LO (resp. above HI); bytes below 0x80 carry into no other */
  digit = (x + (0x80 - '0') * ones) & ~(x + (0x7f - '9') * ones);
  lo = x | 0x20 * ones;             /* A-F as a-f */
  letter = (lo + (0x80 - 'a') * ones) & ~(lo + (0x7f - 'f') * ones);
  if (((digit | letter) & high) != high)
    return 0;
  /* '0'-'9' have bit 6 clear, letters set: the low nibble, + 9 for a letter */
  n = (x & 0x0f * ones) + ((x >> 6) & ones) * 9;
  /* nibbles to one number, the first byte's most significant */
  n = (n & 0x000f000f000f000fULL) << 4 | (n & 0x0f000f000f000f00ULL) >> 8;
  n = (n & 0x000000ff000000ffULL) << 8 | (n & 0x00ff000000ff0000ULL) >> 16;
  *out = (n & 0xffff) << 16 | (n >> 32 & 0xffff);
  return 1;
}

/* The kernel symbol file to read: the copy `perf record` keeps in the
** build-id cache for the recorded kernel (the recording's own addresses,
** and a plain file: reading /proc/kallsyms costs the kernel tens of
** milliseconds), else /proc/kallsyms. NULL for none, or out of memory. */
static char *kallsyms_path(reader *s) {
  const lgp_st_dso *k = &s->out->dsos[s->kernel_dso];
  char hex[41];
  size_t i;
  if (s->opts.kallsyms)
    return lgp_strdup(s->opts.kallsyms);
  if (k->build_id_len > 1) {
    char *cached;
    for (i = 0; i < k->build_id_len; i++)
      snprintf(hex + 2 * i, 3, "%02x", k->build_id[i]);
    if (!(cached = joined(s->buildid_dir, "/[kernel.kallsyms]/", hex)))
      return NULL;
    {
      char *file = joined(cached, "/kallsyms", "");
      free(cached);
      if (!file)
        return NULL;
      if (is_file(file))
        return file;
      free(file);
    }
  }
  return lgp_strdup("/proc/kallsyms");
}

/* The kernel symbol file's bytes into s->knames: a regular file (the
** build-id cache's copy) mapped read-only (page cache pages: no copy,
** nothing for the kernel to zero, no heap kept for the run);
** /proc/kallsyms, whose size stat does not tell, read. 0 when there is
** none, or the file cannot be read. */
static int kernel_bytes(reader *s, const char *path) {
  struct stat st;
  FILE *f;
  char *buf;
  size_t len = 0;
  int fd, nomem;
  if (!*path || (fd = open(path, O_RDONLY)) < 0)
    return 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
      && (uint64_t)st.st_size <= SIZE_MAX) {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      close(fd);
      s->knames = m;
      s->knames_len = (size_t)st.st_size;
      s->knames_mapped = 1;
      return 0;
    }
  }
  if (!(f = fdopen(fd, "r"))) {
    close(fd);
    return 0;
  }
  buf = read_whole(f, &len, &nomem);
  fclose(f);
  if (!buf)
    return nomem ? oom(s) : 0;
  s->knames = buf;
  s->knames_len = len;
  return 0;
}

#define KWINDOW ((size_t)1 << 20)

/* The parse of a mapped kernel symbol file walks it a window at a time:
** the pages of [from, to) are let go (they stay in the page cache; the run
** names a few hundred symbols, whose pages come back when read), the next
** `ahead` bytes asked for at once rather than by a fault every 16 pages
** (ahead 0: the end, all from `from` on let go). Returns the new window's
** start. Hints only. */
static size_t kernel_window(char *bytes, size_t len, size_t from, size_t to, size_t ahead) {
  long pg = sysconf(_SC_PAGESIZE);
  size_t page = pg > 0 ? (size_t)pg : 4096;
  from -= from % page;
  to = ahead ? to - to % page : len;
#ifdef MADV_DONTNEED
  if (to > from)
    madvise(bytes + from, to - from, MADV_DONTNEED);
#endif
#ifdef MADV_POPULATE_READ
  if (ahead && to < len)
    madvise(bytes + to, ahead < len - to ? ahead : len - to, MADV_POPULATE_READ);
#endif
  return to;
}

/* Reads the kernel's text symbols once, on the first kernel address to
** name; unusable (all addresses zero, as a user without the right sees
** them, or another boot's) means none. Lines "ADDRESS TYPE NAME[ MODULE]"
** are parsed where they are, a name found by its offset and length (the
** bytes may be a read-only mapping, with no NUL after them). */
static int kernel_load(reader *s) {
  char *path;
  const char *buf, *p, *endbuf;
  size_t cap = 0, len, window = 0;
  uint64_t nonzero = 0, text = 0;
  if (s->kstate)
    return 0;
  s->kstate = -1;
  if (!(path = kallsyms_path(s)))
    return oom(s);
  if (kernel_bytes(s, path) != 0) {
    free(path);
    return -1;
  }
  free(path);
  if (!s->knames)
    return 0;
  buf = s->knames;
  len = s->knames_len;
  if (len >= UINT32_MAX)     /* names are found by 32-bit offsets */
    len = UINT32_MAX - 1;
  s->knames_end = len;
  endbuf = buf + len;
  if (s->knames_mapped)
    kernel_window(s->knames, s->knames_len, 0, 0, KWINDOW);
  for (p = buf; p < endbuf; ) {
    const char *line = p, *eol = memchr(p, '\n', (size_t)(endbuf - p)), *q, *name;
    if (s->knames_mapped && (size_t)(p - buf) >= window + KWINDOW)
      window = kernel_window(s->knames, s->knames_len, window, (size_t)(p - buf), KWINDOW);
    const char *digit0;
    uint64_t a = 0, d8;
    int d;
    if (!eol)
      eol = endbuf;
    p = eol + 1;
    q = line;
    while (q < eol && (*q == ' ' || *q == '\t'))
      q++;
    if (eol - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X') && hex_plus1[(unsigned char)q[2]])
      q += 2;
    digit0 = q;
    /* the usual line: 16 digits, read 8 at a time */
    if (eol - q > 16 && q[16] == ' ' && hex8(q, &a) && hex8(q + 8, &d8)) {
      a = a << 32 | d8;
      q += 16;
    } else {
      a = 0;
    }
    /* 16 digits cannot overflow, more saturate (leading zeros may fit) */
    for (; q < eol && q - digit0 < 16 && (d = hex_plus1[(unsigned char)*q] - 1) >= 0; q++)
      a = a << 4 | (uint64_t)d;
    for (; q < eol && (d = hex_plus1[(unsigned char)*q] - 1) >= 0; q++)
      a = a >> 60 ? UINT64_MAX : a << 4 | (uint64_t)d;
    if (q == digit0 || eol - q < 3 || q[0] != ' ' || q[2] != ' ')
      continue;
    if (q[1] != 't' && q[1] != 'T' && q[1] != 'w' && q[1] != 'W')
      continue;
    /* a name ends at a blank, a NUL or the line's end (its newline, or the
       file's): its length is found when it is named, if ever */
    name = q + 3;
    if (name == eol || name_end[(unsigned char)*name])
      continue;
    if (eol - name >= 5 && memcmp(name, "_text", 5) == 0
        && (eol - name == 5 || name_end[(unsigned char)name[5]]))
      text = a;
    nonzero |= a;
    if (GROW(s, s->ksyms, cap, s->nksyms + 1) != 0)
      return -1;
    s->ksyms[s->nksyms].addr = a;
    s->ksyms[s->nksyms++].name = (uint32_t)(name - buf);
  }
  if (s->knames_mapped)
    kernel_window(s->knames, s->knames_len, window, s->knames_len, 0);
  if (!nonzero || s->nksyms == 0 || (text && s->kernel_text && text != s->kernel_text))
    return 0;
  if (ksyms_sort(s) != 0)
    return -1;
  s->kstate = 1;
  return 0;
}

static int kernel_frames(reader *s, uint64_t addr) {
  size_t lo = 0, hi = s->nksyms, len;
  const ksym *k;
  uint64_t end;
  uint32_t f;
  while (lo < hi) {        /* the last symbol at or below addr */
    size_t mid = lo + (hi - lo) / 2;
    if (s->ksyms[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) {
    s->out->kernel_unresolved++;
    return unknown_frame(s, s->kernel_dso, addr);
  }
  k = &s->ksyms[lo - 1];
  end = lo < s->nksyms ? s->ksyms[lo].addr : addr + 1;
  for (len = 0; k->name + len < s->knames_end && !name_end[(unsigned char)s->knames[k->name + len]];
       len++)
    ;
  if (GROW(s, s->kname, s->kname_cap, len + 1) != 0)
    return -1;
  memcpy(s->kname, s->knames + k->name, len);
  s->kname[len] = '\0';
  f = func_get(s, s->kernel_dso, s->kname, 0, 0, k->addr, end, LGP_ST_NOFILE, 0);
  return cframe_push(s, fdef_add(s, f, addr, LGP_ST_NOFILE, 0));
}

/* ---- JIT map files ---- */

static int jit_cmp(const void *a, const void *b) {
  const jitsym *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static int jit_load(reader *s, uint32_t d) {
  dsox *x = &s->dx[d];
  char path[4200], line[1024];
  size_t cap = 0;
  FILE *f;
  if (x->opened)
    return 0;
  x->opened = 1;
  snprintf(path, sizeof path, "%s/perf-%u.map", s->opts.jit_dir ? s->opts.jit_dir : "/tmp",
           x->pid);
  if (!(f = fopen(path, "r")))
    return 0;
  while (fgets(line, sizeof line, f)) {
    char *e1, *e2, *name;
    uint64_t start = strtoull(line, &e1, 16), size;
    if (e1 == line || *e1 != ' ')
      continue;
    size = strtoull(e1 + 1, &e2, 16);
    if (e2 == e1 + 1 || *e2 != ' ')
      continue;
    name = e2 + 1;
    name[strcspn(name, "\r\n")] = '\0';
    if (GROW(s, x->jit, cap, x->njit + 1) != 0) {
      fclose(f);
      return -1;
    }
    if (!(x->jit[x->njit].name = lgp_strdup(name))) {
      fclose(f);
      return oom(s);
    }
    x->jit[x->njit].start = start;
    x->jit[x->njit++].size = size;
  }
  fclose(f);
  qsort(x->jit, x->njit, sizeof *x->jit, jit_cmp);
  free(s->out->dsos[d].found);
  if (!(s->out->dsos[d].found = lgp_strdup(path)))
    return oom(s);
  return 0;
}

static int jit_frames(reader *s, uint32_t d, uint64_t addr) {
  const dsox *x = &s->dx[d];
  size_t lo = lgp_addr_count_le(x->jit, x->njit, sizeof *x->jit, offsetof(jitsym, start), addr);
  if (lo > 0 && addr - x->jit[lo - 1].start < x->jit[lo - 1].size) {
    const jitsym *j = &x->jit[lo - 1];
    uint32_t f = func_get(s, d, j->name, 0, 0, j->start, j->start + j->size, LGP_ST_NOFILE, 0);
    return cframe_push(s, fdef_add(s, f, addr, LGP_ST_NOFILE, 0));
  }
  return unknown_frame(s, d, addr);
}

/* ---- the address cache ---- */

static int cache_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const acache *k = key;
  return s->cache[v].dso == k->dso && s->cache[v].addr == k->addr;
}

/* The frames of addr (an address of binary dso), resolved once: appends
** their ids to the scratch chain at *n. */
static int frames_of(reader *s, uint32_t dso, uint64_t addr, size_t *n) {
  acache k, *c;
  uint64_t h;
  uint32_t v, i;
  int rc;
  k.dso = dso;
  k.addr = addr;
  h = mix64(addr * 31 + dso);
  v = ht_get(&s->cache_ht, h, cache_eq, s, &k);
  if (v == NONE) {
    size_t first = s->ncframes;
    dsox *x = &s->dx[dso];
    if (x->kind == DK_ELF || x->kind == DK_VDSO) {
      if (dso_open(s, dso) != 0)
        return -1;
      rc = x->mod ? elf_frames(s, dso, addr) : unknown_frame(s, dso, addr);
    } else if (x->kind == DK_JIT) {
      rc = jit_load(s, dso) != 0 ? -1 : jit_frames(s, dso, addr);
    } else if (x->kind == DK_KERNEL) {
      rc = kernel_frames(s, addr);
    } else {
      rc = unknown_frame(s, dso, addr);
    }
    if (rc != 0)
      return s->err->set ? -1 : oom(s);
    if (GROW(s, s->cache, s->cache_cap, s->ncache + 1) != 0)
      return -1;
    v = (uint32_t)s->ncache;
    c = &s->cache[s->ncache++];
    c->dso = dso;
    c->addr = addr;
    c->first = (uint32_t)first;
    c->n = (uint32_t)(s->ncframes - first);
    if (ht_put(&s->cache_ht, h, v) != 0)
      return oom(s);
  }
  c = &s->cache[v];
  if (GROW(s, s->scratch, s->scratch_cap, *n + c->n) != 0)
    return -1;
  for (i = 0; i < c->n; i++)
    s->scratch[(*n)++] = s->cframes[c->first + i];
  return 0;
}

/* ---- address spaces ---- */

static int proc_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  return s->procs[v].pid == *(const uint32_t *)key;
}

static proc *proc_get(reader *s, uint32_t pid) {
  uint64_t h = mix64(pid);
  uint32_t v = ht_get(&s->proc_ht, h, proc_eq, s, &pid);
  if (v != NONE)
    return &s->procs[v];
  if (GROW(s, s->procs, s->procs_cap, s->nprocs + 1) != 0)
    return NULL;
  v = (uint32_t)s->nprocs;
  memset(&s->procs[v], 0, sizeof s->procs[v]);
  s->procs[v].pid = pid;
  s->nprocs++;
  if (ht_put(&s->proc_ht, h, v) != 0) {
    oom(s);
    return NULL;
  }
  return &s->procs[v];
}

/* The first mapping of p ending after addr. */
static size_t map_after(const proc *p, uint64_t addr) {
  return lgp_addr_count_le(p->maps, p->n, sizeof *p->maps, offsetof(pmap, end), addr);
}

static const pmap *map_find(const proc *p, uint64_t addr) {
  size_t i = map_after(p, addr);
  return i < p->n && p->maps[i].start <= addr ? &p->maps[i] : NULL;
}

/* Adds m to p; what it overlaps of older mappings is gone. */
static int map_add(reader *s, proc *p, const pmap *m) {
  size_t i = map_after(p, m->start), j = i, keep_left, keep_right, removed;
  pmap left, right;
  if (m->end <= m->start)
    return 0;
  while (j < p->n && p->maps[j].start < m->end)
    j++;
  /* maps[i .. j) overlap m; the first may stick out before it, the last after */
  keep_left = i < j && p->maps[i].start < m->start;
  keep_right = i < j && p->maps[j - 1].end > m->end;
  if (keep_left) {
    left = p->maps[i];
    left.end = m->start;
  }
  if (keep_right) {
    right = p->maps[j - 1];
    right.pgoff += m->end - right.start;
    right.start = m->end;
  }
  removed = j - i;
  if (GROW(s, p->maps, p->cap, p->n - removed + 1 + (size_t)keep_left + (size_t)keep_right) != 0)
    return -1;
  {
    size_t add = 1 + (size_t)keep_left + (size_t)keep_right;
    memmove(p->maps + i + add, p->maps + j, (p->n - j) * sizeof *p->maps);
    p->n = p->n - removed + add;
  }
  p->stale = 1;
  if (keep_left)
    p->maps[i++] = left;
  p->maps[i++] = *m;
  if (keep_right)
    p->maps[i] = right;
  return 0;
}

/* ---- threads ---- */

static int tid_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  return s->tids[v].tid == *(const uint32_t *)key;
}

static tidname *tid_get(reader *s, uint32_t tid, int make) {
  uint64_t h = mix64((uint64_t)tid + 1);
  uint32_t v = ht_get(&s->tid_ht, h, tid_eq, s, &tid);
  if (v != NONE)
    return &s->tids[v];
  if (!make || GROW(s, s->tids, s->tids_cap, s->ntids + 1) != 0)
    return NULL;
  v = (uint32_t)s->ntids++;
  s->tids[v].tid = tid;
  s->tids[v].comm = NULL;
  if (ht_put(&s->tid_ht, h, v) != 0) {
    oom(s);
    return NULL;
  }
  return &s->tids[v];
}

typedef struct threadkey {
  uint32_t pid, tid;
} threadkey;

static int thread_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const threadkey *k = key;
  return s->out->threads[v].pid == k->pid && s->out->threads[v].tid == k->tid;
}

static uint32_t thread_get(reader *s, uint32_t pid, uint32_t tid) {
  threadkey k;
  uint64_t h = mix64((uint64_t)pid << 32 | tid);
  uint32_t v;
  size_t cap;
  k.pid = pid;
  k.tid = tid;
  v = ht_get(&s->thread_ht, h, thread_eq, s, &k);
  if (v != NONE)
    return v;
  cap = s->threads_cap;
  if (GROW(s, s->out->threads, s->threads_cap, s->out->nthreads + 1) != 0)
    return NONE;
  if (s->threads_cap != cap) {
    const char **nc = realloc(s->thread_comm, s->threads_cap * sizeof *nc);
    if (!nc)
      return (uint32_t)oom(s);
    s->thread_comm = nc;
  }
  v = (uint32_t)s->out->nthreads++;
  s->out->threads[v].pid = pid;
  s->out->threads[v].tid = tid;
  s->out->threads[v].comm = NULL;
  s->thread_comm[v] = NULL;
  if (ht_put(&s->thread_ht, h, v) != 0)
    return (uint32_t)oom(s);
  return v;
}

/* ---- stacks ---- */

static int stack_eq(const void *ctx, uint32_t v, const void *key) {
  const reader *s = ctx;
  const stackkey *k = key;
  const lgp_st_stack *st = &s->out->stacks[v];
  return st->thread == k->thread && st->depth == k->depth
         && (k->depth == 0
             || memcmp(s->out->frames + st->first, k->ids, k->depth * sizeof *k->ids) == 0);
}

static int stack_add(reader *s, uint32_t thread, size_t depth, uint64_t weight, int truncated) {
  stackkey k;
  uint64_t h;
  uint32_t v;
  lgp_st_stack *st;
  k.thread = thread;
  k.depth = (uint32_t)depth;
  k.ids = s->scratch;
  h = hash_ids(mix64((uint64_t)thread << 32 | depth), s->scratch, depth);
  v = ht_get(&s->stack_ht, h, stack_eq, s, &k);
  if (v == NONE) {
    if (GROW(s, s->out->stacks, s->stacks_cap, s->out->nstacks + 1) != 0
        || GROW(s, s->out->frames, s->frames_cap, s->out->nframes + depth) != 0)
      return -1;
    v = (uint32_t)s->out->nstacks++;
    st = &s->out->stacks[v];
    memset(st, 0, sizeof *st);
    st->thread = thread;
    st->event = 0;
    st->first = (uint32_t)s->out->nframes;
    st->depth = (uint32_t)depth;
    if (depth)
      memcpy(s->out->frames + s->out->nframes, s->scratch, depth * sizeof *s->scratch);
    s->out->nframes += depth;
    if (ht_put(&s->stack_ht, h, v) != 0)
      return oom(s);
  }
  st = &s->out->stacks[v];
  st->samples++;
  st->weight += weight;
  if (truncated)
    st->truncated = 1;
  return 0;
}

/* Counts a sample whose unwinding failed for another reason, by message.
** The messages are libdwfl's and lgprof's few fixed ones: a short list,
** capped all the same. */
#define MAX_UNWIND_ERRORS 16
static int unwind_error_add(reader *s, const char *what) {
  lgp_stacktab *t = s->out;
  size_t i;
  for (i = 0; i < t->nunwind_errors; i++)
    if (strcmp(t->unwind_errors[i].what, what) == 0)
      break;
  if (i == t->nunwind_errors && i == MAX_UNWIND_ERRORS) {
    i--;
    if (strcmp(t->unwind_errors[i].what, "other errors") != 0) {
      char *other = lgp_strdup("other errors");
      if (!other)
        return oom(s);
      free(t->unwind_errors[i].what);
      t->unwind_errors[i].what = other;
    }
  } else if (i == t->nunwind_errors) {
    if (GROW(s, t->unwind_errors, s->errors_cap, i + 1) != 0)
      return -1;
    if (!(t->unwind_errors[i].what = lgp_strdup(what)))
      return oom(s);
    t->unwind_errors[i].samples = 0;
    t->nunwind_errors++;
  }
  t->unwind_errors[i].samples++;
  return 0;
}

/* ---- samples ---- */

enum { MODE_USER, MODE_KERNEL, MODE_OTHER };

/* One address of a chain in the given mode; exact: the sample's PC (else
** a return address, looked up less 1). */
static int chain_addr(reader *s, const proc *p, int mode, uint64_t a, int exact, size_t *n,
                      int *kernel_open) {
  uint64_t look = exact || a == 0 ? a : a - 1;
  if (mode == MODE_KERNEL) {
    if (kernel_load(s) != 0)
      return -1;
    if (s->kstate != 1) {
      /* no kernel symbols: one frame per kernel part of the chain */
      s->out->kernel_unresolved++;
      if (*kernel_open)
        return 0;
      *kernel_open = 1;
      if (s->kernel_frame == NONE) {
        uint32_t f = func_get(s, s->kernel_dso, "[kernel]", 0, 1, 0, 0, LGP_ST_NOFILE, 0);
        if ((s->kernel_frame = fdef_add(s, f, 0, LGP_ST_NOFILE, 0)) == NONE)
          return -1;
      }
      if (GROW(s, s->scratch, s->scratch_cap, *n + 1) != 0)
        return -1;
      s->scratch[(*n)++] = s->kernel_frame;
      return 0;
    }
    return frames_of(s, s->kernel_dso, look, n);
  }
  *kernel_open = 0;
  if (mode == MODE_USER && p) {
    const pmap *m = map_find(p, look);
    if (m) {
      dsox *x = &s->dx[m->dso];
      uint64_t off = look - m->start + m->pgoff, vaddr = off;
      size_t i;
      if (x->kind == DK_JIT)
        return frames_of(s, m->dso, look, n);
      if ((x->kind == DK_ELF || x->kind == DK_VDSO) && dso_open(s, m->dso) != 0)
        return -1;
      /* the file offset to the address in the binary, by its PT_LOADs
         (a binary not found keeps the file offset) */
      for (i = 0; i < x->nsegs; i++)
        if (off >= x->segs[i].off && off - x->segs[i].off < x->segs[i].filesz) {
          vaddr = off - x->segs[i].off + x->segs[i].vaddr;
          break;
        }
      return frames_of(s, m->dso, vaddr, n);
    }
  }
  return frames_of(s, s->unknown_dso, look, n);
}

/* ---- unwinding the stack copies of `perf record --call-graph dwarf` ---- */

/* What an unwind reads (the sample's registers and stack copy) and finds. */
typedef struct unw {
  const lgp_perf_sample *sm;
  uint64_t mask;             /* the attr's sample_regs_user */
  uint64_t sp;
  uint64_t pcs[MAX_STACK];
  uint8_t activation[MAX_STACK];
  size_t n;
  int past_end;              /* a read past the stack copy since the last frame */
  int refused;               /* a read outside the stack copy since the last frame */
  int stop;                  /* why it stopped early (LGP_TRUNC_*), or STOP_NONE */
  const char *why;           /* LGP_TRUNC_OTHER: the failure, in libdwfl's words */
} unw;

#define STOP_NONE (-1)

/* perf's x86 register bits of DWARF registers 0-16 (rax, rdx, rcx, rbx,
** rsi, rdi, rbp, rsp, r8-r15, and the return address column: rip) */
static const int dwarf_to_perf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };

static int reg_of(const unw *u, int bit, uint64_t *v) {
  uint64_t below = u->mask & (((uint64_t)1 << bit) - 1);
  size_t idx = 0;
  if (!(u->mask >> bit & 1))
    return -1;
  while (below) {
    below &= below - 1;
    idx++;
  }
  if (idx >= u->sm->nregs)
    return -1;
  *v = lgp_perf_u64(u->sm->regs + 8 * idx);
  return 0;
}

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_arg) {
  if (*thread_arg)
    return 0;                /* one thread per unwind */
  *thread_arg = arg;
  return dwfl_pid(dwfl);
}

/* Only the stack copy is memory: the unwind stops where it ends (noted:
** a bigger copy would have gone on). */
static bool unw_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out, void *arg) {
  unw *u = arg;
  uint64_t len = u->sm->stack_dyn_size;
  (void)dwfl;
  if (addr < u->sp || addr - u->sp > len || len - (addr - u->sp) < 8) {
    u->refused = 1;
    u->past_end |= addr >= u->sp;
    return false;
  }
  memcpy(out, u->sm->stack + (addr - u->sp), 8);
  return true;
}

static bool unw_registers(Dwfl_Thread *thread, void *arg) {
  const unw *u = arg;
  Dwarf_Word dw[17];
  uint64_t v;
  int i;
  for (i = 0; i < 17; i++) {
    if (reg_of(u, dwarf_to_perf[i], &v) != 0)
      return false;
    dw[i] = v;
  }
  return dwfl_thread_state_registers(thread, 0, 17, dw);
}

static const Dwfl_Thread_Callbacks unw_cbs = {
  unw_next_thread, NULL, unw_read, unw_registers, NULL, NULL
};

static int unw_frame(Dwfl_Frame *frame, void *arg) {
  unw *u = arg;
  Dwarf_Addr pc;
  bool activation;
  /* the reads from here on unwind this frame (dwfl_frame_pc may start it) */
  u->past_end = u->refused = 0;
  if (!dwfl_frame_pc(frame, &pc, &activation) || pc == 0)
    return DWARF_CB_ABORT;
  u->pcs[u->n] = pc;
  u->activation[u->n] = activation;
  return ++u->n < MAX_STACK ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The unwinding address space of p: its binaries reported where they are
** mapped, made again when its mappings changed. NULL when there is none
** (no binary found: no unwinding, not an error unless s->err is set). */
static Dwfl *proc_dwfl(reader *s, proc *p) {
  Dwfl *dwfl;
  size_t i, j;
  if (p->dwfl && !p->stale)
    return p->dwfl;
  if (p->dwfl)
    dwfl_end(p->dwfl);
  p->dwfl = NULL;
  p->stale = 0;
  if (!p->unw && !(p->unw = calloc(1, sizeof *p->unw))) {
    oom(s);
    return NULL;
  }
  if (!(dwfl = dwfl_begin(&space_cbs)))
    return NULL;
  s->spaces++;
  dwfl_report_begin(dwfl);
  for (i = 0; i < p->n; i++) {
    const pmap *m = &p->maps[i];
    dsox *x = &s->dx[m->dso];
    if (x->kind != DK_ELF && x->kind != DK_VDSO)
      continue;
    if (dso_open(s, m->dso) != 0) {
      dwfl_end(dwfl);
      return NULL;
    }
    /* once per binary: libdwfl reports a module over all its segments */
    if (!x->mod || x->reported == s->spaces)
      continue;
    for (j = 0; j < x->nsegs; j++)
      if (m->pgoff >= x->segs[j].off && m->pgoff - x->segs[j].off < x->segs[j].filesz) {
        uint64_t bias = m->start - (m->pgoff - x->segs[j].off + x->segs[j].vaddr);
        x->reported = s->spaces;
        if (x->share) {
          /* where dwfl_report_elf would put it, the ELF not opened again */
          Dwfl_Module *mod = dwfl_report_module(dwfl, x->label, bias + x->load_start,
                                                bias + x->load_end);
          void **ud;
          if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
            *ud = x->share;
        } else {
          s->out->elf_opens++;
          dwfl_report_elf(dwfl, x->label, s->out->dsos[m->dso].found, -1, bias, true);
        }
        break;
      }
  }
  dwfl_report_end(dwfl, NULL, NULL);
  if (!dwfl_attach_state(dwfl, NULL, (pid_t)p->pid, &unw_cbs, p->unw)) {
    dwfl_end(dwfl);
    return NULL;
  }
  p->dwfl = dwfl;
  return dwfl;
}

/* Does an unwind table entry (.eh_frame, else .debug_frame) of mod cover
** addr? */
static int has_cfi(Dwfl_Module *mod, Dwarf_Addr addr) {
  Dwarf_Addr bias;
  Dwarf_CFI *cfi;
  Dwarf_Frame *frame;
  int pass;
  for (pass = 0; pass < 2; pass++) {
    cfi = pass == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
    if (cfi && dwarf_cfi_addrframe(cfi, addr - bias, &frame) == 0) {
      free(frame);
      return 1;
    }
  }
  return 0;
}

/* Why an unwind that libdwfl ended with an error stopped at its last
** frame: that frame's PC is in no binary reported, or no CFI covers it
** (libdwfl then tried frame pointers, and they failed too), or the CFI
** needed memory past the stack copy; else libdwfl's message (err). */
static void stop_reason(Dwfl *dwfl, unw *u, int err) {
  Dwarf_Addr look = u->activation[u->n - 1] ? u->pcs[u->n - 1] : u->pcs[u->n - 1] - 1;
  Dwfl_Module *mod = dwfl_addrmodule(dwfl, look);
  if (!mod)
    u->stop = LGP_TRUNC_NO_BINARY;
  else if (!has_cfi(mod, look))
    u->stop = LGP_TRUNC_NO_CFI;
  else if (u->past_end)
    u->stop = LGP_TRUNC_STACK_COPY;
  else {
    u->stop = LGP_TRUNC_OTHER;
    u->why = err ? dwfl_errmsg(err) : "unwinding failed";
  }
}

/* Unwinds the user stack copy of sm into u->pcs, and says in u->stop why
** it stopped if not at the outermost frame. 0 (u->n frames, maybe none),
** or -1 with s->err set. */
static int unwind(reader *s, proc *p, const lgp_perf_sample *sm, unw **out) {
  Dwfl *dwfl = proc_dwfl(s, p);
  unw *u = p->unw;
  int rc;
  *out = u;
  if (u) {
    u->sm = sm;
    u->mask = s->pd->attrs[s->attr].sample_regs_user;
    u->n = 0;
    u->why = NULL;
    u->past_end = u->refused = 0;
    /* no address space: not one binary of the process could be read */
    u->stop = LGP_TRUNC_NO_BINARY;
  }
  if (!dwfl)
    return s->err->set ? -1 : 0;
  u->stop = LGP_TRUNC_OTHER;
  if (reg_of(u, 7, &u->sp) != 0) {
    u->why = "no stack pointer in the sample's registers";
    return 0;
  }
  (void)dwfl_errno(); /* clears an error of earlier calls */
  rc = dwfl_getthread_frames(dwfl, (pid_t)p->pid, unw_frame, u);
  if (rc == 0 || (rc == DWARF_CB_ABORT && u->n < MAX_STACK)) {
    /* the outermost frame: CFI left the return address undefined, or it
       is 0; but libdwfl says so too of a return address it could not
       read, so a read refused in the last step cut the chain */
    u->stop = STOP_NONE;
    if (u->past_end)
      u->stop = LGP_TRUNC_STACK_COPY;
    else if (u->refused) {
      u->stop = LGP_TRUNC_OTHER;
      u->why = "unwinding read memory below the stack pointer";
    }
  } else if (rc == DWARF_CB_ABORT) {
    u->stop = LGP_TRUNC_DEPTH;
  } else if (u->n > 0) {
    stop_reason(dwfl, u, dwfl_errno());
  } else {
    int err = dwfl_errno();
    u->why = err ? dwfl_errmsg(err) : "the sample's registers are incomplete";
  }
  return 0;
}

/* The binary of the frame unwinding u stopped at: the last one added to
** the chain (n > 0 frames); nothing unwound, the user PC's. */
static uint32_t stop_dso(const reader *s, const proc *p, const unw *u, size_t n) {
  uint64_t ip;
  const pmap *m;
  if (u->n > 0)
    return s->out->funcs[s->out->frame_defs[s->scratch[n - 1]].func].dso;
  if (reg_of(u, 8, &ip) != 0 || !(m = map_find(p, ip)))
    return s->unknown_dso;
  return m->dso;
}

static int mode_of(uint64_t marker) {
  return marker == LGP_PERF_CONTEXT_KERNEL ? MODE_KERNEL
         : marker == LGP_PERF_CONTEXT_USER ? MODE_USER : MODE_OTHER;
}

static int do_sample(reader *s, const lgp_perf_sample *sm) {
  proc *p;
  tidname *tn;
  uint32_t thread;
  size_t n = 0, addrs = 0, user = 0, i;
  int mode = sm->cpumode == 1 ? MODE_KERNEL : sm->cpumode == 2 ? MODE_USER : MODE_OTHER;
  int first = 1, kernel_open = 0, truncated, user_part = 0, why = STOP_NONE;
  /* a stack copy to unwind (--call-graph dwarf): the chain holds only the
     kernel's part */
  int stack_copy = s->can_unwind && sm->regs_abi == 2 && sm->stack_dyn_size > 0;
  uint64_t weight = sm->has_period ? sm->period
                    : (s->pd->attrs[s->attr].flags & LGP_PERF_ATTR_FREQ) ? 1 : sm->period;
  if (s->last_valid && s->last_pid == sm->pid && s->last_tid == sm->tid) {
    p = &s->procs[s->last_proc];
    thread = s->last_thread;
  } else {
    if (!(p = proc_get(s, sm->pid)))
      return -1;
    if ((thread = thread_get(s, sm->pid, sm->tid)) == NONE)
      return -1;
    tn = tid_get(s, sm->tid, 0);
    s->last_valid = 1;
    s->last_pid = sm->pid;
    s->last_tid = sm->tid;
    s->last_proc = (size_t)(p - s->procs);
    s->last_thread = thread;
    s->last_comm = tn ? tn->comm : NULL;
  }
  s->thread_comm[thread] = s->last_comm;
  s->out->samples++;
  if (sm->nchain > 0) {
    for (i = 0; i < sm->nchain; i++) {
      uint64_t v = lgp_perf_u64(sm->chain + 8 * i);
      if (v >= LGP_PERF_CONTEXT_MAX) {
        mode = mode_of(v);
        first = 1;
        continue;
      }
      if (chain_addr(s, mode == MODE_KERNEL ? NULL : p, mode, v, first, &n, &kernel_open) != 0)
        return -1;
      first = 0;
      addrs++;
      user += mode == MODE_USER;
      user_part |= mode == MODE_USER;
    }
  } else if (sm->nbranch > 0 && !stack_copy) {
    /* a call stack from the branch records: the sample's PC, then the
       call sites (exact: the calls themselves) */
    if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
      return -1;
    addrs = 1;
    user = mode == MODE_USER;
    for (i = 0; i < sm->nbranch; i++) {
      uint64_t from = lgp_perf_u64(sm->branches + 24 * i);
      int m = from >= 0xffff800000000000ULL ? MODE_KERNEL : MODE_USER;
      if (chain_addr(s, m == MODE_KERNEL ? NULL : p, m, from, 1, &n, &kernel_open) != 0)
        return -1;
      addrs++;
      user += m == MODE_USER;
    }
  } else if (!stack_copy) {
    s->out->no_chain++;
    if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
      return -1;
    addrs = 1;
    user = mode == MODE_USER;
  }
  if (stack_copy && !user_part) {
    unw *u;
    if (unwind(s, p, sm, &u) != 0)
      return -1;
    s->out->unwound++;
    if (u && u->n > 0) {
      /* a frame that is not an activation was left by a call: less 1 */
      for (i = 0; i < u->n; i++)
        if (chain_addr(s, p, MODE_USER, u->pcs[i], u->activation[i], &n, &kernel_open) != 0)
          return -1;
      addrs += u->n;
    } else {
      /* nothing unwound: the PC alone */
      if (sm->nchain == 0)
        s->out->no_chain++;
      if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
        return -1;
      addrs++;
    }
    why = u ? u->stop : LGP_TRUNC_OTHER;
    if (why == LGP_TRUNC_NO_BINARY || why == LGP_TRUNC_NO_CFI) {
      lgp_st_dso *d = &s->out->dsos[stop_dso(s, p, u, n)];
      if (why == LGP_TRUNC_NO_BINARY)
        d->stops_no_binary++;
      else
        d->stops_no_cfi++;
    } else if (why == LGP_TRUNC_OTHER && unwind_error_add(s, u && u->why ? u->why : "out of memory") != 0) {
      return -1;
    }
  } else {
    if (addrs == 1 && user == 1 && sm->nchain > 0)
      s->out->depth_one++;
    if (addrs >= MAX_STACK)    /* cut at perf's depth limit */
      why = LGP_TRUNC_DEPTH;
  }
  if (n == 0) {
    /* a chain of context markers only: the sample's PC */
    kernel_open = 0;
    if (chain_addr(s, p, mode, sm->ip, 1, &n, &kernel_open) != 0)
      return -1;
  }
  truncated = why != STOP_NONE;
  if (truncated) {
    s->out->truncated++;
    s->out->truncated_why[why]++;
  }
  return stack_add(s, thread, n, weight, truncated);
}

/* ---- records ---- */

static int do_mmap(reader *s, const lgp_perf_record *rec) {
  lgp_perf_mmap m;
  pmap pm;
  proc *p;
  s->last_valid = 0;
  int kernel = (rec->misc & 7) == 1;
  if (lgp_perf_mmap_decode(s->pd, rec, &m, s->err) != 0)
    return -1;
  if (!(m.prot & 4) || (rec->type == LGP_PERF_MMAP2 && (rec->misc & 0x2000)))
    return 0;
  pm.start = m.start;
  pm.end = m.start + m.len < m.start ? UINT64_MAX : m.start + m.len;
  pm.pgoff = m.pgoff;
  if (kernel) {
    /* old perf wrote the kernel's start in pgoff and 0 as the address */
    if (pm.start < (1ULL << 63) && pm.pgoff >= (1ULL << 63))
      pm.start = pm.pgoff;
    if (strncmp(m.filename, "[kernel.kallsyms]", 17) == 0 && !s->kernel_text)
      s->kernel_text = m.pgoff;
    return 0;
  }
  if ((pm.dso = dso_get(s, m.filename, m.pid, DK_ELF)) == NONE)
    return -1;
  if (m.has_buildid && !s->out->dsos[pm.dso].build_id_len && m.buildid_len) {
    memcpy(s->out->dsos[pm.dso].build_id, m.buildid, 20);
    s->out->dsos[pm.dso].build_id_len = m.buildid_len;
  }
  if (!(p = proc_get(s, m.pid)))
    return -1;
  return map_add(s, p, &pm);
}

static int do_task(reader *s, const lgp_perf_record *rec) {
  lgp_perf_task t;
  tidname *tn;
  s->last_valid = 0;
  if (lgp_perf_task_decode(s->pd, rec, &t, s->err) != 0)
    return -1;
  if (rec->type == LGP_PERF_COMM) {
    if (!(tn = tid_get(s, t.tid, 1)))
      return -1;
    tn->comm = t.comm;
    if (rec->misc & 0x2000) {
      /* exec: the process's old mappings are gone */
      proc *p = proc_get(s, t.pid);
      if (!p)
        return -1;
      p->n = 0;
      p->stale = 1;
    }
    return 0;
  }
  if (rec->type == LGP_PERF_FORK) {
    const tidname *parent = tid_get(s, t.ptid, 0);
    const char *comm = parent ? parent->comm : NULL;
    if (!(tn = tid_get(s, t.tid, 1)))
      return -1;
    tn->comm = comm;
    if (t.pid != t.ppid) {
      /* a new process: a copy of its parent's address space */
      proc *child = proc_get(s, t.pid), *par;
      if (!child || !(par = proc_get(s, t.ppid)))
        return -1;
      child = proc_get(s, t.pid);   /* procs may have moved */
      if (GROW(s, child->maps, child->cap, par->n + 1) != 0)
        return -1;
      if (par->n)
        memcpy(child->maps, par->maps, par->n * sizeof *par->maps);
      child->n = par->n;
      child->stale = 1;
    }
  }
  return 0;
}

/* ---- the two passes ---- */

typedef struct entry {
  uint64_t time;
  size_t off;
} entry;

static int want(uint32_t type) {
  return type == LGP_PERF_SAMPLE || type == LGP_PERF_MMAP || type == LGP_PERF_MMAP2
         || type == LGP_PERF_COMM || type == LGP_PERF_FORK;
}

static int event_matches(const char *name, const char *want_name) {
  size_t l = strlen(want_name);
  return strcmp(name, want_name) == 0
         || (strncmp(name, want_name, l) == 0 && name[l] == ':');
}

static void progress(reader *s, uint64_t bytes) {
  if (s->opts.progress)
    s->opts.progress(s->opts.progress_ud, bytes, s->out->samples, s->binaries);
}

static int run(reader *s) {
  lgp_perf_record rec;
  lgp_perf_sample sm;
  entry *ents = NULL;
  uint64_t *keys = NULL, *nsamples = NULL, last_time = 0, lost = 0, lost_samples = 0;
  uint32_t *idx = NULL;
  size_t nents = 0, ents_cap = 0, pos = 0, i, nrec = 0;
  int rc = -1;
  char buf[64], buf2[64];
  if (!(nsamples = lgp_calloc_array(s->pd->nattrs, sizeof *nsamples)))
    return oom(s);
  /* pass 1: index the records that matter, with their times */
  while (lgp_perf_next(s->pd, &pos, &rec, s->err) == 1) {
    uint64_t t = last_time;
    if ((++nrec & 0xffff) == 0)
      progress(s, rec.offset);
    if (rec.type == LGP_PERF_LOST) {
      lost += lgp_perf_lost_count(&rec);
      continue;
    }
    if (rec.type == LGP_PERF_LOST_SAMPLES) {
      lost_samples += lgp_perf_lost_count(&rec);
      continue;
    }
    if (rec.type == LGP_PERF_HEADER_BUILD_ID) {
      /* too short an entry is no build-id, not a reason to give up */
      if (rec.size >= 36 && lgp_perf_buildid_record(s->pd, &rec, s->err) != 0)
        goto done;
      continue;
    }
    if (!want(rec.type))
      continue;
    if (rec.type == LGP_PERF_SAMPLE) {
      if (lgp_perf_sample_decode(s->pd, &rec, &sm, s->err) != 0)
        goto done;
      nsamples[sm.attr]++;
      if (s->pd->attrs[sm.attr].sample_type & LGP_PS_TIME)
        t = sm.time;
    } else {
      const lgp_perf_attr *a = &s->pd->attrs[lgp_perf_record_attr(s->pd, &rec)];
      uint64_t st = a->sample_type;
      size_t nslots = (size_t)(!!(st & LGP_PS_TID) + !!(st & LGP_PS_TIME) + !!(st & LGP_PS_ID)
                               + !!(st & LGP_PS_STREAM_ID) + !!(st & LGP_PS_CPU)
                               + !!(st & LGP_PS_IDENTIFIER));
      if ((a->flags & LGP_PERF_ATTR_SAMPLE_ID_ALL) && (st & LGP_PS_TIME)
          && rec.body_len >= 8 * nslots) {
        /* the trailer's time, counted back from the end */
        size_t back = 8 * (1 + !!(st & LGP_PS_ID) + !!(st & LGP_PS_STREAM_ID)
                           + !!(st & LGP_PS_CPU) + !!(st & LGP_PS_IDENTIFIER));
        t = lgp_perf_u64(rec.body + rec.body_len - back);
      }
    }
    last_time = t;
    if (GROW(s, ents, ents_cap, nents + 1) != 0)
      goto done;
    ents[nents].time = t;
    ents[nents++].off = rec.offset;
  }
  if (s->err->set)
    goto done;
  if (nents >= UINT32_MAX) {
    lgp_fail(s->err, s->pd->path, "too many records");
    goto done;
  }
  s->out->truncated_file = s->pd->truncated;
  /* LOST and LOST_SAMPLES report the same losses */
  s->out->lost = lost > lost_samples ? lost : lost_samples;
  /* the event */
  s->attr = 0;
  if (s->opts.event) {
    for (i = 0; i < s->pd->nattrs; i++)
      if (event_matches(lgp_perf_attr_name(&s->pd->attrs[i], buf, sizeof buf), s->opts.event))
        break;
    if (i == s->pd->nattrs) {
      lgp_fail(s->err, s->pd->path, "no event '%s' in the recording", s->opts.event);
      goto done;
    }
    s->attr = i;
  } else {
    for (i = 0; i < s->pd->nattrs; i++)
      if (nsamples[i]) {
        s->attr = i;
        break;
      }
  }
  for (i = 0; i < s->pd->nattrs; i++) /* (several attrs may be one event) */
    if (strcmp(lgp_perf_attr_name(&s->pd->attrs[i], buf, sizeof buf),
               lgp_perf_attr_name(&s->pd->attrs[s->attr], buf2, sizeof buf2)) != 0)
      s->out->other_samples += nsamples[i];
  if (!(s->out->events = calloc(1, sizeof *s->out->events)))
    goto oom_done;
  s->out->nevents = 1;
  {
    const lgp_perf_attr *a = &s->pd->attrs[s->attr];
    if (!(s->out->events[0].name = lgp_strdup(lgp_perf_attr_name(a, buf, sizeof buf))))
      goto oom_done;
    /* cpu-clock and task-clock count nanoseconds */
    s->out->events[0].is_time = a->type == 1 && a->config <= 1;
    /* stack copies this reader can unwind: x86-64's registers, all of
       those DWARF numbers 0 to 16 name */
    s->can_unwind = (a->sample_type & LGP_PS_REGS_USER) && (a->sample_type & LGP_PS_STACK_USER)
                    && (a->sample_regs_user & 0xff01ffu) == 0xff01ffu
                    && (!s->pd->arch || strcmp(s->pd->arch, "x86_64") == 0);
    if (a->sample_type & LGP_PS_STACK_USER)
      s->out->stack_copy_size = a->sample_stack_user;
  }
  /* the special binaries */
  if ((s->kernel_dso = dso_get(s, "[kernel.kallsyms]", 0, DK_KERNEL)) == NONE
      || (s->unknown_dso = dso_get(s, "[unknown]", 0, DK_UNKNOWN)) == NONE)
    goto done;
  s->kernel_frame = NONE;
  /* pass 2: in time order, file order among equal times */
  if (!(keys = alloc_array(nents ? nents : 1, sizeof *keys))
      || !(idx = alloc_array(nents ? nents : 1, sizeof *idx)))
    goto oom_done;
  for (i = 0; i < nents; i++) {
    keys[i] = ents[i].time;
    idx[i] = (uint32_t)i;
  }
  if (lgp_radix_sort(idx, keys, nents) != 0)
    goto oom_done;
  for (i = 0; i < nents; i++) {
    size_t at = ents[idx[i]].off;
    if (lgp_perf_next(s->pd, &at, &rec, s->err) != 1) {
      lgp_fail(s->err, s->pd->path, "offset %zu: record not found again", ents[idx[i]].off);
      goto done;
    }
    if ((i & 0xfff) == 0)
      progress(s, at);
    if (rec.type == LGP_PERF_SAMPLE) {
      if (lgp_perf_sample_decode(s->pd, &rec, &sm, s->err) != 0)
        goto done;
      if (sm.attr == s->attr && do_sample(s, &sm) != 0)
        goto done;
    } else if (rec.type == LGP_PERF_MMAP || rec.type == LGP_PERF_MMAP2) {
      if (do_mmap(s, &rec) != 0)
        goto done;
    } else if (do_task(s, &rec) != 0) {
      goto done;
    }
  }
  /* each thread's name at its last sample */
  for (i = 0; i < s->out->nthreads; i++) {
    const char *c = s->thread_comm[i];
    char tmp[32];
    if (!c) {
      snprintf(tmp, sizeof tmp, ":%u", s->out->threads[i].tid);
      c = tmp;
    }
    if (!(s->out->threads[i].comm = lgp_strdup(c)))
      goto oom_done;
  }
  progress(s, s->pd->size);
  rc = 0;
  goto done;
oom_done:
  oom(s);
done:
  free(ents);
  free(keys);
  free(idx);
  free(nsamples);
  return rc;
}

static void state_free(reader *s) {
  size_t i, j;
  /* the address spaces first: their modules point at the binaries' ELFs */
  for (i = 0; i < s->nprocs; i++) {
    free(s->procs[i].maps);
    if (s->procs[i].dwfl)
      dwfl_end(s->procs[i].dwfl);
    free(s->procs[i].unw);
  }
  for (i = 0; s->dx && i < s->out->ndsos; i++) {
    if (s->dx[i].dwfl)
      dwfl_end(s->dx[i].dwfl);
    free(s->dx[i].segs);
    free(s->dx[i].share);
    free(s->dx[i].syms);
    for (j = 0; j < s->dx[i].njit; j++)
      free(s->dx[i].jit[j].name);
    free(s->dx[i].jit);
    free(s->dx[i].label);
  }
  free(s->dx);
  free(s->procs);
  ht_free(&s->dso_ht);
  ht_free(&s->func_ht);
  ht_free(&s->file_ht);
  ht_free(&s->stack_ht);
  ht_free(&s->thread_ht);
  ht_free(&s->tid_ht);
  ht_free(&s->proc_ht);
  ht_free(&s->cache_ht);
  ht_free(&s->cu_ht);
  for (i = 0; i < s->ncus; i++) {
    free(s->cus[i].nodes);
    free(s->cus[i].ranges);
  }
  free(s->cus);
  free(s->path);
  free(s->ksyms);
  if (s->knames_mapped)
    munmap(s->knames, s->knames_len);
  else
    free(s->knames);
  free(s->kname);
  free(s->tids);
  free(s->thread_comm);
  free(s->cache);
  free(s->cframes);
  free(s->scratch);
  free(s->buildid_dir);
  s->out->debug_inflated = s->debug.inflated;
  debugfiles_free(&s->debug);
}

/* Leaves out the binaries no frame resolved to (mapped, never sampled:
** their files were not even looked for). */
static int drop_unused_dsos(lgp_stacktab *out, lgp_err *err, const char *path) {
  uint32_t *to = alloc_array(out->ndsos ? out->ndsos : 1, sizeof *to);
  size_t i, n = 0;
  if (!to)
    return lgp_fail(err, path, "out of memory");
  for (i = 0; i < out->ndsos; i++)
    to[i] = NONE;
  for (i = 0; i < out->nfuncs; i++)
    to[out->funcs[i].dso] = 0;
  for (i = 0; i < out->ndsos; i++) {
    if (to[i] == NONE) {
      free(out->dsos[i].path);
      free(out->dsos[i].found);
      continue;
    }
    to[i] = (uint32_t)n;
    out->dsos[n++] = out->dsos[i];
  }
  out->ndsos = n;
  for (i = 0; i < out->nfuncs; i++)
    out->funcs[i].dso = to[out->funcs[i].dso];
  free(to);
  return 0;
}

static int stacks(lgp_stacktab *out, lgp_perf_data *pd, const lgp_perf_opts *opts,
                  lgp_err *err) {
  reader s;
  int rc;
  memset(&s, 0, sizeof s);
  s.pd = pd;
  s.out = out;
  s.err = err;
  if (opts)
    s.opts = *opts;
  if (s.opts.buildid_dir) {
    s.buildid_dir = lgp_strdup(s.opts.buildid_dir);
  } else {
    const char *home = getenv("HOME");
    s.buildid_dir = joined(home ? home : "", "/.debug", "");
  }
  rc = s.buildid_dir ? run(&s) : oom(&s);
  state_free(&s);
  if (rc == 0)
    rc = drop_unused_dsos(out, err, pd->path);
  return rc;
}

/* The table names the recording it was read from (the exports list it). */
static int name_recording(lgp_stacktab *out, const char *name, lgp_err *err) {
  if ((out->recording = lgp_strdup(name)) != NULL)
    return 0;
  lgp_stacktab_free(out);
  return lgp_fail(err, name, "out of memory");
}

int lgp_perf_stacks_bytes(lgp_stacktab *out, const char *name, const uint8_t *bytes, size_t n,
                          const lgp_perf_opts *opts, lgp_err *err) {
  lgp_perf_data pd;
  int rc;
  memset(out, 0, sizeof *out);
  if (lgp_perf_open_bytes(&pd, name, bytes, n, err) != 0) {
    lgp_perf_close(&pd);
    return -1;
  }
  rc = stacks(out, &pd, opts, err);
  lgp_perf_close(&pd);
  return rc == 0 ? name_recording(out, name, err) : rc;
}

int lgp_perf_stacks(lgp_stacktab *out, const char *path, const lgp_perf_opts *opts,
                    lgp_err *err) {
  lgp_perf_data pd;
  int rc;
  memset(out, 0, sizeof *out);
  if (lgp_perf_open(&pd, path, err) != 0)
    return -1;
  rc = stacks(out, &pd, opts, err);
  lgp_perf_close(&pd);
  return rc == 0 ? name_recording(out, path, err) : rc;
}
