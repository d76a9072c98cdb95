/*
** elfsym.c: function symbols from an ELF file's .symtab via libelf, as
** GNU gprof selects them (core_sym_class in the reference, section 3.1).
*/
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/elfsym.h"
#include "read/nmsyms.h"
#include "read/srcinfo.h"

/* Section-name prefixes BFD classifies by name before looking at flags
** (followed by end of name, '.', '$' or a digit); only these four give
** code. */
static int section_class_is_code(const char *name, uint64_t flags) {
  static const struct { const char *name; int code; } table[] = {
    {".bss", 0}, {".code", 1}, {".data", 0}, {"*DEBUG*", 0}, {".debug", 0},
    {".drectve", 0}, {".edata", 0}, {".fini", 1}, {".idata", 0}, {".init", 1},
    {".pdata", 0}, {".rdata", 0}, {".rodata", 0}, {".sbss", 0}, {".scommon", 0},
    {".sdata", 0}, {".text", 1}, {"vars", 0}, {"zerovars", 0},
  };
  size_t i;
  if (name != NULL) {
    for (i = 0; i < sizeof table / sizeof table[0]; i++) {
      size_t n = strlen(table[i].name);
      if (strncmp(name, table[i].name, n) == 0 &&
          (name[n] == '\0' || name[n] == '.' || name[n] == '$' ||
           isdigit((unsigned char)name[n])))
        return table[i].code;
    }
  }
  return (flags & SHF_EXECINSTR) != 0;
}

int lgp_image_local_name_ok(const char *strtab, size_t size, size_t off) {
  static const char clone[] = ".clone.", constprop[] = ".constprop.";
  size_t i = off;
  /* gprof's loop: one character per step while the character is not NUL;
     a '.' starts a digit scan that may stop on the NUL, after which the
     outer step moves past it into the next string. The end of the table
     ends the scan (gprof would read on into unrelated memory). */
  for (; i < size && strtab[i] != '\0'; i++) {
    if (strtab[i] == '$')
      return 0;
    while (i < size && strtab[i] == '.') {
      int digit_seen = 0;
      size_t rest = strnlen(strtab + i, size - i);
      if (rest > sizeof clone - 1 && strncmp(strtab + i, clone, sizeof clone - 1) == 0)
        i += sizeof clone - 2;
      else if (rest > sizeof constprop - 1 &&
               strncmp(strtab + i, constprop, sizeof constprop - 1) == 0)
        i += sizeof constprop - 2;
      for (i++; i < size && strtab[i] != '\0'; i++) {
        if (digit_seen && strtab[i] == '.')
          break;
        else if (isdigit((unsigned char)strtab[i]))
          digit_seen = 1;
        else
          return 0;
      }
    }
    if (i >= size)
      break;
  }
  return 1;
}

/* The length of a chain of gcc clone suffixes at s (".isra.0.cold"),
** ended by stop or the end of the string, or 0 if s does not start one;
** *end: where the parse stopped. */
static size_t clone_suffixes_len(const char *s, char stop, const char **end) {
  static const char *const words[] = {
    "constprop", "isra", "part", "cold", "lto_priv", "localalias", "clone", "specialized", NULL
  };
  const char *p = s;
  while (*p == '.') {
    size_t i, n = 0;
    for (i = 0; words[i] != NULL; i++) {
      n = strlen(words[i]);
      if (strncmp(p + 1, words[i], n) == 0 &&
          (p[1 + n] == '.' || p[1 + n] == '\0' || p[1 + n] == stop))
        break;
    }
    if (words[i] == NULL)
      break;
    p += 1 + n;
    if (p[0] == '.' && isdigit((unsigned char)p[1])) { /* the clone's number */
      for (p++; isdigit((unsigned char)*p); p++)
        ;
    }
  }
  *end = p;
  return p == s || (*p != '\0' && *p != stop) ? 0 : (size_t)(p - s);
}

size_t lgp_clone_origin_len(const char *name) {
  static const char clone_tag[] = " [clone ";
  const size_t tag = sizeof clone_tag - 1;
  const char *p, *end;
  size_t i;
  /* demangled: "f(int) [clone .constprop.0] [clone .isra.0]" */
  p = strstr(name, clone_tag);
  if (p != NULL && p > name) {
    const char *q = p;
    while (strncmp(q, clone_tag, tag) == 0) {
      size_t n = clone_suffixes_len(q + tag, ']', &end);
      if (n == 0 || q[tag + n] != ']')
        break;
      q += tag + n + 1;
    }
    if (*q == '\0')
      return (size_t)(p - name);
  }
  /* raw: the first '.' after which the rest is a chain of suffixes. A
     failed parse fails from each '.' it passed too (words hold no '.'), so
     the scan goes on from where it stopped: linear in the name. */
  if (name[0] == '\0')
    return 0;
  for (i = 1; name[i] != '\0';) {
    if (name[i] != '.') {
      i++;
      continue;
    }
    if (clone_suffixes_len(name + i, '\0', &end) > 0)
      return i;
    i = (size_t)(end - name) > i ? (size_t)(end - name) : i + 1;
  }
  return 0;
}

typedef struct secinfo {
  uint64_t flags, addr;
  const char *name;
  int is_code;  /* section_class_is_code, worked out once per section */
} secinfo;

/* gprof's acceptance test; returns 'T' (global), 't' (static) or 0. */
static int symbol_class(const GElf_Sym *s, Elf32_Word shndx, const secinfo *secs,
                        size_t nsecs, const char *strtab, size_t strsize,
                        const lgp_image_opts *opts, size_t *folded) {
  int bind = GELF_ST_BIND(s->st_info), type = GELF_ST_TYPE(s->st_info);
  const char *name;
  if (type == STT_SECTION || type == STT_FILE)
    return 0; /* debugging symbols */
  if (opts->no_static && bind == STB_LOCAL)
    return 0;
  if (shndx == SHN_UNDEF || shndx == SHN_COMMON)
    return 0;
  if (type == STT_GNU_IFUNC)
    return 0;
  if (bind == STB_WEAK) /* 'W' is accepted whatever the section; 'V' is not */
    return (type == STT_OBJECT || type == STT_COMMON) ? 0 : 'T';
  if (bind != STB_GLOBAL && bind != STB_LOCAL)
    return 0; /* GNU_UNIQUE and others */
  if (shndx == SHN_ABS || shndx >= nsecs)
    return 0;
  if (!secs[shndx].is_code)
    return 0;
  if (bind == STB_GLOBAL)
    return 'T';
  if (s->st_name >= strsize)
    return 0;
  name = strtab + s->st_name;
  if (name[0] == '\0')
    return 0;
  /* a clone's name judged within its own string: gprof's scan can run on
     into the next name, and rejects most clone suffixes anyway */
  if (!lgp_image_local_name_ok(strtab, strsize, s->st_name)) {
    if (strchr(name, '$') != NULL || lgp_clone_origin_len(name) == 0)
      return 0;
    if (!opts->keep_clones) {
      if (!opts->functions_only || type == STT_FUNC)
        (*folded)++;
      return 0;
    }
  }
  if (strncmp(name, "__gnu_compiled", 14) == 0 || strncmp(name, "___gnu_compiled", 15) == 0)
    return 0;
  if (opts->functions_only && type != STT_FUNC)
    return 0;
  return 't';
}

static int load_symbols(lgp_image *im, Elf *elf, const char *path,
                        const lgp_image_opts *opts, lgp_err *err) {
  size_t shstrndx, nsecs, i;
  Elf_Scn *scn = NULL, *symscn = NULL;
  Elf_Data *symdata = NULL, *strdata = NULL, *xdata = NULL;
  GElf_Shdr symhdr;
  GElf_Ehdr eh;
  secinfo *secs;
  size_t nsyms, kept = 0;
  int have_text = 0, rc = 0;

  if (gelf_getehdr(elf, &eh) == NULL || elf_getshdrnum(elf, &nsecs) != 0 ||
      elf_getshdrstrndx(elf, &shstrndx) != 0)
    return lgp_fail(err, path, "corrupt ELF headers: %s", elf_errmsg(-1));
  im->machine = eh.e_machine;
  secs = lgp_calloc_array(nsecs, sizeof *secs);
  if (secs == NULL)
    return lgp_fail(err, path, "out of memory");
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    size_t ndx = elf_ndxscn(scn);
    if (gelf_getshdr(scn, &sh) == NULL || ndx >= nsecs) {
      rc = lgp_fail(err, path, "corrupt section header: %s", elf_errmsg(-1));
      goto done;
    }
    secs[ndx].flags = sh.sh_flags;
    secs[ndx].addr = sh.sh_addr;
    secs[ndx].name = elf_strptr(elf, shstrndx, sh.sh_name);
    secs[ndx].is_code = section_class_is_code(secs[ndx].name, sh.sh_flags);
    if (sh.sh_type == SHT_SYMTAB && symscn == NULL) {
      symscn = scn;
      symhdr = sh;
    }
    if (sh.sh_type == SHT_SYMTAB_SHNDX)
      xdata = elf_getdata(scn, NULL);
    if (!have_text && secs[ndx].name != NULL &&
        (strcmp(secs[ndx].name, ".text") == 0 || strcmp(secs[ndx].name, "$CODE$") == 0)) {
      have_text = 1;
      im->text_vma = sh.sh_addr;
      im->text_size = sh.sh_size;
    }
  }
  if (!have_text) {
    rc = lgp_fail(err, path, "can't find .text section");
    goto done;
  }
  if (opts->symbol_file != NULL) { /* -S: the ELF's own table is not used */
    rc = lgp_nmsyms_load(im, opts->symbol_file, err);
    goto done;
  }
  if (symscn == NULL) {
    rc = lgp_fail(err, path, "no symbols (stripped executable?)");
    goto done;
  }
  symdata = elf_getdata(symscn, NULL);
  if (symdata == NULL || symhdr.sh_entsize == 0 || symhdr.sh_link >= nsecs ||
      (strdata = elf_getdata(elf_getscn(elf, symhdr.sh_link), NULL)) == NULL) {
    rc = lgp_fail(err, path, "corrupt symbol table: %s", elf_errmsg(-1));
    goto done;
  }
  nsyms = symdata->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
  if (nsyms <= 1) {
    rc = lgp_fail(err, path, "no symbols (stripped executable?)");
    goto done;
  }
  im->strtab_size = strdata->d_size;
  im->strtab = malloc(im->strtab_size + 1);
  im->syms = lgp_alloc_array(nsyms, sizeof *im->syms);
  if (im->strtab == NULL || im->syms == NULL) {
    rc = lgp_fail(err, path, "out of memory");
    goto done;
  }
  if (im->strtab_size > 0)
    memcpy(im->strtab, strdata->d_buf, im->strtab_size);
  im->strtab[im->strtab_size] = '\0';
  for (i = 1; i < nsyms; i++) { /* entry 0 is the null symbol */
    GElf_Sym s;
    Elf32_Word shndx = 0;
    int cls;
    lgp_rawsym *r;
    if (gelf_getsymshndx(symdata, xdata, (int)i, &s, &shndx) == NULL) {
      rc = lgp_fail(err, path, "corrupt symbol table entry %zu: %s", i, elf_errmsg(-1));
      goto done;
    }
    if (s.st_shndx != SHN_XINDEX)
      shndx = s.st_shndx;
    cls = symbol_class(&s, shndx, secs, nsecs, im->strtab, im->strtab_size, opts,
                       &im->folded_clones);
    if (cls == 0)
      continue;
    r = &im->syms[kept++];
    r->addr = s.st_value;
    if (eh.e_type == ET_REL && shndx < nsecs && shndx != SHN_ABS)
      r->addr += secs[shndx].addr; /* section-relative values in objects */
    r->name = im->strtab + (s.st_name < im->strtab_size ? s.st_name : im->strtab_size);
    r->symndx = (uint32_t)i;
    r->is_static = cls == 't';
    r->is_func = GELF_ST_TYPE(s.st_info) == STT_FUNC;
    r->is_line = 0;
    r->file = -1;
    r->line = 0;
    r->is_mapped = 0;
  }
  im->nsyms = kept;
  if (kept == 0)
    rc = lgp_fail(err, path, "no function symbols");
done:
  free(secs);
  return rc;
}

int lgp_image_open(lgp_image *im, const char *path, const lgp_image_opts *opts,
                   lgp_err *err) {
  static const lgp_image_opts defaults;
  struct stat st;
  Elf *elf = NULL;
  const char *ident;
  int fd, rc = -1;
  memset(im, 0, sizeof *im);
  if (opts == NULL)
    opts = &defaults;
  if (elf_version(EV_CURRENT) == EV_NONE)
    return lgp_fail(err, path, "libelf is out of date");
  fd = open(path, O_RDONLY | O_NONBLOCK); /* a FIFO must not block: refused below */
  if (fd < 0)
    return lgp_fail(err, path, "%s", strerror(errno));
  if (fstat(fd, &st) != 0) {
    lgp_fail(err, path, "%s", strerror(errno));
    goto out;
  }
  if (S_ISDIR(st.st_mode)) {
    lgp_fail(err, path, "is a directory");
    goto out;
  }
  if (!S_ISREG(st.st_mode)) {
    lgp_fail(err, path, "not a regular file");
    goto out;
  }
  elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
    lgp_fail(err, path, "file format not recognized (not an ELF file)");
    goto out;
  }
  ident = elf_getident(elf, NULL);
  if (ident == NULL || (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64) ||
      (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)) {
    lgp_fail(err, path, "unsupported ELF class or byte order");
    goto out;
  }
  im->addr_bytes = ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
  im->keep_clones = opts->keep_clones != 0;
  im->big_endian = ident[EI_DATA] == ELFDATA2MSB;
  if (load_symbols(im, elf, path, opts, err) != 0)
    goto out;
  im->path = lgp_strdup(path);
  if (im->path == NULL) {
    lgp_fail(err, path, "out of memory");
    goto out;
  }
  im->dev = (uint64_t)st.st_dev;
  im->ino = (uint64_t)st.st_ino;
  im->size = (uint64_t)st.st_size;
  im->mtime_s = (int64_t)st.st_mtim.tv_sec;
  im->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
  if (opts->symbol_file != NULL) { /* no source information for those symbols */
    im->srcinfo_state = -1;
    im->lines_state = -1;
  } else if (opts->srcinfo) {
    im->srcinfo_state = 1;
    if (lgp_srcinfo_load(im, elf, 0, err) != 0)
      goto out;
  }
  rc = 0;
out:
  if (elf != NULL)
    elf_end(elf);
  close(fd);
  if (rc != 0)
    lgp_image_free(im);
  return rc;
}

/* Reopens the image's file, as it was when opened, and reads its DWARF. */
static int load_dwarf(lgp_image *im, int lines, lgp_err *err) {
  struct stat st;
  Elf *elf;
  int fd, rc = -1;
  if (im->path == NULL || (fd = open(im->path, O_RDONLY | O_NONBLOCK)) < 0)
    return lgp_fail(err, im->path, "cannot reopen for source information");
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != im->dev || (uint64_t)st.st_ino != im->ino ||
      (uint64_t)st.st_size != im->size || (int64_t)st.st_mtim.tv_sec != im->mtime_s ||
      (int64_t)st.st_mtim.tv_nsec != im->mtime_ns) {
    close(fd);
    return lgp_fail(err, im->path, "changed since it was opened: no source information");
  }
  elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if (elf != NULL && lgp_srcinfo_load(im, elf, lines, err) == 0)
    rc = 0;
  if (elf != NULL)
    elf_end(elf);
  close(fd);
  return rc;
}

int lgp_image_load_srcinfo(lgp_image *im, lgp_err *err) {
  if (im->srcinfo_state != 0)
    return im->srcinfo_state > 0 ? 0 : -1;
  im->srcinfo_state = -1;
  if (load_dwarf(im, 0, err) != 0)
    return -1;
  im->srcinfo_state = 1;
  return 0;
}

int lgp_image_load_lines(lgp_image *im, lgp_err *err) {
  if (im->lines_state != 0)
    return im->lines_state > 0 ? 0 : -1;
  im->lines_state = -1;
  if (im->srcinfo_state < 0)
    return -1;
  if (load_dwarf(im, 1, err) != 0) {
    if (im->srcinfo_state == 0)
      im->srcinfo_state = -1;
    return -1;
  }
  im->srcinfo_state = 1;
  im->lines_state = 1;
  return 0;
}

void lgp_image_free(lgp_image *im) {
  size_t i;
  free(im->path);
  free(im->strtab);
  free(im->syms);
  for (i = 0; i < im->nfiles; i++) {
    free(im->files[i]);
    if (im->file_paths != NULL)
      free(im->file_paths[i]);
  }
  free(im->files);
  free(im->file_paths);
  free(im->file_len);
  free(im->file_base);
  free(im->lines);
  free(im->line_names);
  free(im->shown_addr);
  memset(im, 0, sizeof *im);
}
