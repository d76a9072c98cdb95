/*
** perfkallsyms.c: the kernel's symbols (perfkallsyms.h): the kernel
** symbol file parsed where it lies (mapped, or read when it is
** /proc/kallsyms), its text symbols sorted by address once.
*/
#define _DEFAULT_SOURCE   /* madvise's MADV_DONTNEED, MADV_POPULATE_READ */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/perf/buildid.h"
#include "read/perf/perfreader.h"

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
  if ((keys = lgp_pr_alloc_array(s->nksyms, sizeof *keys)) != NULL) {
    for (i = 0; i < s->nksyms; i++)
      keys[i] = s->ksyms[i].addr;
    items = s->ksyms;
    rc = lgp_pr_sort_by_keys(&items, s->nksyms, sizeof *s->ksyms, keys);
    s->ksyms = items;
  }
  free(keys);
  return rc == 0 ? 0 : lgp_pr_oom(s);
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
  unsigned char running[64];
  char hex[41];
  size_t i;
  if (s->opts.kallsyms) {
    s->out->kernel_symbols = *s->opts.kallsyms ? LGP_KSYMS_GIVEN : LGP_KSYMS_NONE;
    return lgp_strdup(s->opts.kallsyms);
  }
  /* another kernel's addresses must not get this one's names: the running
     kernel's symbols only when the recording names its build-id */
  if (k->build_id_len <= 1 || k->build_id_len > 20) {
    s->out->kernel_symbols = LGP_KSYMS_NO_BUILD_ID;
    return lgp_strdup("");
  }
  for (i = 0; i < k->build_id_len; i++)
    snprintf(hex + 2 * i, 3, "%02x", k->build_id[i]);
  {
    char *cached = lgp_pr_joined(s->buildid_dir, "/[kernel.kallsyms]/", hex), *file;
    if (!cached)
      return NULL;
    file = lgp_pr_joined(cached, "/kallsyms", "");
    free(cached);
    if (!file)
      return NULL;
    if (lgp_pr_is_file(file)) {
      s->out->kernel_symbols = LGP_KSYMS_CACHED;
      return file;
    }
    free(file);
  }
  if (lgp_running_kernel_build_id(NULL, running, sizeof running) == k->build_id_len
      && memcmp(running, k->build_id, k->build_id_len) == 0) {
    s->out->kernel_symbols = LGP_KSYMS_RUNNING;
    return lgp_strdup("/proc/kallsyms");
  }
  s->out->kernel_symbols = LGP_KSYMS_OTHER_KERNEL;
  return lgp_strdup("");
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
    return nomem ? lgp_pr_oom(s) : 0;
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
int lgp_pr_kernel_load(reader *s) {
  char *path;
  const char *buf, *p, *endbuf;
  size_t cap = 0, len, window = 0;
  uint64_t nonzero = 0, text = 0;
  if (s->kstate)
    return 0;
  s->kstate = -1;
  if (!(path = kallsyms_path(s)))
    return lgp_pr_oom(s);
  if (kernel_bytes(s, path) != 0) {
    free(path);
    return -1;
  }
  free(path);
  if (!s->knames) {
    if (s->out->kernel_symbols <= LGP_KSYMS_RUNNING)
      s->out->kernel_symbols = LGP_KSYMS_UNUSABLE;
    return 0;
  }
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
  if (!nonzero || s->nksyms == 0 || (text && s->kernel_text && text != s->kernel_text)) {
    s->out->kernel_symbols = LGP_KSYMS_UNUSABLE;
    return 0;
  }
  if (ksyms_sort(s) != 0)
    return -1;
  s->kstate = 1;
  return 0;
}

int lgp_pr_kernel_frames(reader *s, uint64_t addr) {
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
    return lgp_pr_unknown_frame(s, s->kernel_dso, addr);
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
  f = lgp_pr_func_get(s, s->kernel_dso, s->kname, 0, 0, k->addr, end, LGP_ST_NOFILE, 0);
  return lgp_pr_cframe_push(s, lgp_pr_fdef_add(s, f, addr, LGP_ST_NOFILE, 0));
}

void lgp_pr_kernel_free(reader *s) {
  free(s->ksyms);
  if (s->knames_mapped)
    munmap(s->knames, s->knames_len);
  else
    free(s->knames);
  free(s->kname);
}
