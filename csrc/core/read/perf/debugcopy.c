/*
** debugcopy.c: a separate debug file's compressed DWARF inflated into an
** in-memory copy (see debugcopy.h).
**
** The copy is the file's bytes (but the compressed sections', left as
** holes: none of them may overlap another section or the headers), then each inflated section appended (at its alignment); the
** section headers, in place in the copy, point at them with
** SHF_COMPRESSED cleared. Program headers, notes, the build-id
** and the symbol table stay where they were. A memfd (Linux) rather than
** a temporary file: nothing is written to a disk, and nothing is left
** behind by a killed run.
*/
#define _GNU_SOURCE /* memfd_create */
#include "read/perf/debugcopy.h"
#include "read/perf/buildid.h"

#if defined(LGP_HAVE_LIBDEFLATE) && defined(__linux__)

#include <elf.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most a zlib stream inflates to: deflate's longest match (258
** bytes) in its shortest code (1 bit), with room for a stream's header. */
#define MAX_RATIO 1032u
#define MAX_ALIGN 4096u

/* A section header of either class, as this code needs it. */
typedef struct shdr {
  uint32_t name, type;
  uint64_t flags, offset, size, addralign;
} shdr;

/* What becomes of a compressed .debug_* section. */
typedef struct plan {
  size_t index;
  uint64_t data, len;     /* the compressed stream: after the Chdr */
  uint64_t out, out_len;  /* where it goes inflated in the copy */
  uint64_t align;
  int empty;              /* never read by lgprof: left empty */
} plan;

/* The sections lgprof never asks libdw for (it reads scopes, inlined
** frames, lines and CFI): location lists, macros, name indexes. */
static int unread(const char *name) {
  static const char *const names[] = {
    ".debug_loc", ".debug_loclists", ".debug_macro", ".debug_macinfo", ".debug_pubnames",
    ".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes", ".debug_names", NULL
  };
  size_t i;
  for (i = 0; names[i]; i++)
    if (strcmp(name, names[i]) == 0)
      return 1;
  return 0;
}

static int native_order(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b ? ELFDATA2LSB : ELFDATA2MSB;
}

/* Reads exactly n bytes at off. */
static int read_at(int fd, void *buf, size_t n, uint64_t off) {
  unsigned char *p = buf;
  while (n > 0) {
    ssize_t got = pread(fd, p, n, (off_t)off);
    if (got <= 0)
      return -1;
    p += got;
    n -= (size_t)got;
    off += (uint64_t)got;
  }
  return 0;
}

static void get_shdr(const unsigned char *p, int is64, shdr *h) {
  if (is64) {
    Elf64_Shdr s;
    memcpy(&s, p, sizeof s);
    h->name = s.sh_name;
    h->type = s.sh_type;
    h->flags = s.sh_flags;
    h->offset = s.sh_offset;
    h->size = s.sh_size;
    h->addralign = s.sh_addralign;
  } else {
    Elf32_Shdr s;
    memcpy(&s, p, sizeof s);
    h->name = s.sh_name;
    h->type = s.sh_type;
    h->flags = s.sh_flags;
    h->offset = s.sh_offset;
    h->size = s.sh_size;
    h->addralign = s.sh_addralign;
  }
}

/* Points the section header at p (in the copy) at its inflated data. */
static void put_shdr(unsigned char *p, int is64, const plan *pl) {
  if (is64) {
    Elf64_Shdr s;
    memcpy(&s, p, sizeof s);
    s.sh_flags &= ~(Elf64_Xword)SHF_COMPRESSED;
    s.sh_size = pl->empty ? 0 : pl->out_len;
    if (!pl->empty) {
      s.sh_offset = pl->out;
      s.sh_addralign = pl->align;
    }
    memcpy(p, &s, sizeof s);
  } else {
    Elf32_Shdr s;
    memcpy(&s, p, sizeof s);
    s.sh_flags &= ~(Elf32_Word)SHF_COMPRESSED;
    s.sh_size = pl->empty ? 0 : (Elf32_Word)pl->out_len;
    if (!pl->empty) {
      s.sh_offset = (Elf32_Off)pl->out;
      s.sh_addralign = (Elf32_Word)pl->align;
    }
    memcpy(p, &s, sizeof s);
  }
}

/* Reads a Chdr at off: its type, inflated size and alignment. */
static int get_chdr(int fd, uint64_t off, int is64, uint32_t *type, uint64_t *size,
                    uint64_t *align) {
  if (is64) {
    Elf64_Chdr c;
    if (read_at(fd, &c, sizeof c, off) != 0)
      return -1;
    *type = c.ch_type;
    *size = c.ch_size;
    *align = c.ch_addralign;
  } else {
    Elf32_Chdr c;
    if (read_at(fd, &c, sizeof c, off) != 0)
      return -1;
    *type = c.ch_type;
    *size = c.ch_size;
    *align = c.ch_addralign;
  }
  return 0;
}

/* Does the note section at off (size bytes) hold the GNU build-id id? */
static int has_build_id(int fd, uint64_t off, uint64_t size, const unsigned char *id,
                        size_t idlen) {
  unsigned char *notes, found[64];
  int same = 0;
  /* (a build-id note is 36 bytes; a debug file's notes a few hundred) */
  if (size > 65536 || !(notes = malloc(size ? (size_t)size : 1)))
    return 0;
  if (read_at(fd, notes, (size_t)size, off) == 0)
    same = lgp_notes_build_id(notes, (size_t)size, found, sizeof found) == idlen
           && memcmp(found, id, idlen) == 0;
  free(notes);
  return same;
}

/* A part of the file: a section's bytes, or the ELF, program or section
** headers. */
typedef struct range {
  uint64_t start, end;
  int left_out;              /* a compressed section's: not in the copy */
} range;

static int by_start(const void *a, const void *b) {
  const range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Does a part left out of the copy overlap any other part (the copy
** would lose its bytes)? Sorted by start, each part against the furthest
** end before it, of any part and of the parts left out. */
static int overlaps(range *r, size_t n) {
  uint64_t any = 0, out = 0;
  size_t i;
  qsort(r, n, sizeof *r, by_start);
  for (i = 0; i < n; i++) {
    if (r[i].start < out || (r[i].left_out && r[i].start < any))
      return 1;
    if (r[i].end > any)
      any = r[i].end;
    if (r[i].left_out && r[i].end > out)
      out = r[i].end;
  }
  return 0;
}

/* The plans of fd's compressed .debug_* sections (*n of them; none: 0
** and NULL) and the copy's size; -1 on anything unexpected, and when the
** file does not have the build-id id. */
static int make_plans(int fd, uint64_t fsize, const unsigned char *id, size_t idlen, plan **plans,
                      size_t *n, uint64_t *total, uint64_t *shoff, size_t *shentsize, int *is64) {
  unsigned char ident[EI_NIDENT], *tab = NULL;
  char *names = NULL;
  uint64_t names_size = 0, end = fsize, phoff, ehsize;
  size_t shnum, shstrndx, phnum, phentsize, i, np = 0, nr = 0;
  int id_seen = 0;
  plan *pl = NULL;
  range *parts = NULL;
  shdr h;
  *plans = NULL;
  *n = 0;
  if (read_at(fd, ident, sizeof ident, 0) != 0 || memcmp(ident, ELFMAG, SELFMAG) != 0
      || (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32)
      || ident[EI_DATA] != native_order() || ident[EI_VERSION] != EV_CURRENT)
    return -1;
  *is64 = ident[EI_CLASS] == ELFCLASS64;
  if (*is64) {
    Elf64_Ehdr e;
    if (fsize < sizeof e || read_at(fd, &e, sizeof e, 0) != 0)
      return -1;
    *shoff = e.e_shoff, *shentsize = e.e_shentsize, shnum = e.e_shnum, shstrndx = e.e_shstrndx;
    phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize, ehsize = sizeof e;
  } else {
    Elf32_Ehdr e;
    if (fsize < sizeof e || read_at(fd, &e, sizeof e, 0) != 0)
      return -1;
    *shoff = e.e_shoff, *shentsize = e.e_shentsize, shnum = e.e_shnum, shstrndx = e.e_shstrndx;
    phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize, ehsize = sizeof e;
  }
  /* (no extended section numbering: a debug file has far fewer sections) */
  if (*shentsize != (*is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) || shnum == 0
      || shnum >= SHN_LORESERVE || shstrndx == SHN_UNDEF || shstrndx >= shnum
      || *shoff > fsize || shnum * *shentsize > fsize - *shoff || phoff > fsize
      || (uint64_t)phnum * phentsize > fsize - phoff)
    return -1;
  if (!(tab = malloc(shnum * *shentsize)) || read_at(fd, tab, shnum * *shentsize, *shoff) != 0
      || !(parts = malloc((shnum + 3) * sizeof *parts)))
    goto fail;
  parts[nr].start = 0, parts[nr].end = ehsize, parts[nr++].left_out = 0;
  if (phnum > 0) {
    parts[nr].start = phoff, parts[nr].end = phoff + phnum * phentsize;
    parts[nr++].left_out = 0;
  }
  parts[nr].start = *shoff, parts[nr].end = *shoff + shnum * *shentsize, parts[nr++].left_out = 0;
  get_shdr(tab + shstrndx * *shentsize, *is64, &h);
  if (h.type != SHT_STRTAB || (h.flags & SHF_COMPRESSED) || h.offset > fsize
      || h.size > fsize - h.offset || h.size == 0)
    goto fail;
  names_size = h.size;
  if (!(names = malloc(names_size)) || read_at(fd, names, names_size, h.offset) != 0)
    goto fail;
  for (i = 1; i < shnum; i++) {
    const char *name;
    uint32_t type;
    uint64_t csize, size, align, chdr = *is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
    get_shdr(tab + i * *shentsize, *is64, &h);
    if (h.type != SHT_NOBITS && h.size > 0 && h.offset <= fsize && h.size <= fsize - h.offset) {
      parts[nr].start = h.offset, parts[nr].end = h.offset + h.size;
      parts[nr++].left_out = 0;
    }
    if (h.type == SHT_NOTE && !(h.flags & SHF_COMPRESSED) && !id_seen && h.offset <= fsize
        && h.size <= fsize - h.offset)
      id_seen = has_build_id(fd, h.offset, h.size, id, idlen);
    if (!(h.flags & SHF_COMPRESSED) || h.name >= names_size
        || !memchr(names + h.name, '\0', names_size - h.name))
      continue;
    name = names + h.name;
    if (strncmp(name, ".debug_", 7) != 0)
      continue;
    if (h.type == SHT_NOBITS || h.offset > fsize || h.size > fsize - h.offset || h.size <= chdr
        || get_chdr(fd, h.offset, *is64, &type, &size, &align) != 0 || type != ELFCOMPRESS_ZLIB)
      goto fail;
    parts[nr - 1].left_out = 1;
    csize = h.size - chdr;
    if (align == 0)
      align = 1;
    /* a size from the file is only a claim: bounded here, checked by
       inflating to exactly that many bytes */
    if ((align & (align - 1)) != 0 || align > MAX_ALIGN || size / MAX_RATIO > csize
        || (!*is64 && size > UINT32_MAX))
      goto fail;
    if (np % 8 == 0) {
      plan *grown = realloc(pl, (np + 8) * sizeof *pl);
      if (!grown)
        goto fail;
      pl = grown;
    }
    pl[np].index = i;
    pl[np].data = h.offset + chdr;
    pl[np].len = csize;
    pl[np].out_len = size;
    pl[np].align = align;
    pl[np].empty = unread(name);
    pl[np].out = 0;
    if (!pl[np].empty) {
      end = (end + align - 1) & ~(align - 1);
      pl[np].out = end;
      end += size;
      if (end > (uint64_t)SIZE_MAX / 2 || (!*is64 && end > UINT32_MAX))
        goto fail;
    }
    np++;
  }
  if (!id_seen || overlaps(parts, nr))
    goto fail;
  free(tab);
  free(names);
  free(parts);
  *plans = pl;
  *n = np;
  *total = end;
  return 0;
fail:
  free(tab);
  free(names);
  free(parts);
  free(pl);
  return -1;
}

/* Asks for the pages of copy[from, to) at once: one call, where a page
** fault each would cost more than the bytes written to them (a hint).
** Only for what the file can be believed to hold: an inflated size is a
** claim until inflating ends, and the pages asked for are given. */
static void populate(unsigned char *copy, uint64_t from, uint64_t to) {
#ifdef MADV_POPULATE_WRITE
  const uint64_t page = 4096;
  from &= ~(page - 1);
  if (to > from)
    madvise(copy + from, (size_t)(to - from), MADV_POPULATE_WRITE);
#else
  (void)copy, (void)from, (void)to;
#endif
}

static int by_data(const void *a, const void *b) {
  const plan *x = a, *y = b;
  return x->data < y->data ? -1 : x->data > y->data;
}

/* Fills the copy from the file (file: fsize bytes mapped): its bytes but
** the compressed sections' (which stay holes, never given pages), then
** the sections inflated, their headers patched. pl is sorted here. */
static int fill(const unsigned char *file, unsigned char *copy, uint64_t fsize, plan *pl,
                size_t np, uint64_t shoff, size_t shentsize, int is64) {
  const uint64_t chdr = is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
  struct libdeflate_decompressor *d;
  uint64_t at = 0;
  size_t i;
  int rc = 0;
  qsort(pl, np, sizeof *pl, by_data);
  for (i = 0; i <= np; i++) {
    uint64_t upto = i < np ? pl[i].data - chdr : fsize;
    if (upto > at) {
      populate(copy, at, upto);
      memcpy(copy + at, file + at, (size_t)(upto - at));
    }
    if (i < np && pl[i].data + pl[i].len > at)
      at = pl[i].data + pl[i].len;
  }
  if (!(d = libdeflate_alloc_decompressor()))
    return -1;
  for (i = 0; i < np && rc == 0; i++) {
    if (!pl[i].empty) {
      /* (DWARF inflates 2 to 8 times; beyond 32, pages as written) */
      uint64_t likely = pl[i].len <= UINT64_MAX / 32 ? 32 * pl[i].len : UINT64_MAX;
      populate(copy, pl[i].out, pl[i].out + (pl[i].out_len < likely ? pl[i].out_len : likely));
      if (libdeflate_zlib_decompress(d, file + pl[i].data, (size_t)pl[i].len, copy + pl[i].out,
                                     (size_t)pl[i].out_len, NULL) != LIBDEFLATE_SUCCESS)
        rc = -1;
    }
    put_shdr(copy + shoff + pl[i].index * shentsize, is64, &pl[i]);
  }
  libdeflate_free_decompressor(d);
  return rc;
}

int lgp_debug_inflated_copy(int fd, const unsigned char *build_id, size_t build_id_len) {
  struct stat st;
  plan *pl;
  size_t np, shentsize;
  uint64_t total, shoff, fsize;
  int is64, mfd = -1;
  void *file, *copy;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
    return -1;
  fsize = (uint64_t)st.st_size;
  if (!build_id_len
      || make_plans(fd, fsize, build_id, build_id_len, &pl, &np, &total, &shoff, &shentsize,
                    &is64) != 0)
    return -1;
  if (np == 0)
    return -1;
  mfd = memfd_create("lgprof-debuginfo", MFD_CLOEXEC);
  if (mfd < 0 || ftruncate(mfd, (off_t)total) != 0) {
    free(pl);
    if (mfd >= 0)
      close(mfd);
    return -1;
  }
  file = mmap(NULL, (size_t)fsize, PROT_READ, MAP_PRIVATE, fd, 0);
  copy = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  if (file == MAP_FAILED || copy == MAP_FAILED
      || fill(file, copy, fsize, pl, np, shoff, shentsize, is64) != 0) {
    close(mfd);
    mfd = -1;
  }
  if (file != MAP_FAILED)
    munmap(file, (size_t)fsize);
  if (copy != MAP_FAILED)
    munmap(copy, (size_t)total);
  free(pl);
  return mfd;
}

#else

int lgp_debug_inflated_copy(int fd, const unsigned char *build_id, size_t build_id_len) {
  (void)fd;
  (void)build_id;
  (void)build_id_len;
  return -1;
}

#endif
