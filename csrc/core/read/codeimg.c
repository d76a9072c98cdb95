/*
** codeimg.c: the code sections of an executable and the imports its GOT
** slots receive, read through libelf when a static call graph is asked
** for (the symbol table reader keeps none of the bytes).
*/
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/codeimg.h"

#ifndef R_X86_64_GLOB_DAT
#define R_X86_64_GLOB_DAT 6
#endif
#ifndef R_X86_64_JUMP_SLOT
#define R_X86_64_JUMP_SLOT 7
#endif

static int is_plt_name(const char *name) {
  return name != NULL && (strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
                          strcmp(name, ".plt.got") == 0);
}

static int add_section(lgp_code *c, size_t *cap, const GElf_Shdr *sh, const char *name,
                       Elf_Data *d, int *have_text) {
  unsigned char *bytes;
  size_t bcap = c->nsecs;
  lgp_codesec *s;
  if (lgp_grow((void **)&c->secs, cap, c->nsecs + 1, sizeof *c->secs) != 0 ||
      lgp_grow((void **)&c->blocks, &bcap, c->nsecs + 1, sizeof *c->blocks) != 0)
    return -1;
  bytes = malloc(d->d_size);
  if (bytes == NULL)
    return -1;
  memcpy(bytes, d->d_buf, d->d_size);
  c->blocks[c->nsecs] = bytes;
  s = &c->secs[c->nsecs++];
  s->vma = sh->sh_addr;
  s->size = d->d_size;
  s->bytes = bytes;
  s->is_text = !*have_text && name != NULL && strcmp(name, ".text") == 0;
  if (s->is_text)
    *have_text = 1;
  s->is_plt = is_plt_name(name);
  s->entsize = sh->sh_entsize >= 8 && sh->sh_entsize <= 64 ? (size_t)sh->sh_entsize : 16;
  return 0;
}

static int add_slot(lgp_code *c, size_t *cap, lgp_addr slot, const char *name) {
  size_t len = strlen(name) + 1;
  if (lgp_grow((void **)&c->slots, cap, c->nslots + 1, sizeof *c->slots) != 0 ||
      lgp_grow((void **)&c->names, &c->names_cap, c->names_len + len, 1) != 0)
    return -1;
  memcpy(c->names + c->names_len, name, len);
  c->slots[c->nslots].slot = slot;
  c->slots[c->nslots++].name = c->names_len;
  c->names_len += len;
  return 0;
}

/* The JUMP_SLOT and GLOB_DAT relocations of a RELA section against the
** dynamic symbols. Bad indices and names are skipped. */
static int read_relocs(lgp_code *c, size_t *cap, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh) {
  Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
  GElf_Shdr symsh;
  Elf_Data *rd = elf_getdata(scn, NULL), *sd;
  size_t i, n, nsyms, relsize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
  size_t symsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
  if (rd == NULL || symscn == NULL || gelf_getshdr(symscn, &symsh) == NULL ||
      symsh.sh_type != SHT_DYNSYM || (sd = elf_getdata(symscn, NULL)) == NULL ||
      relsize == 0 || symsize == 0)
    return 0;
  n = rd->d_size / relsize;
  nsyms = sd->d_size / symsize;
  for (i = 0; i < n; i++) {
    GElf_Rela r;
    GElf_Sym s;
    const char *name;
    size_t type, sym;
    if (gelf_getrela(rd, (int)i, &r) == NULL)
      break;
    type = GELF_R_TYPE(r.r_info);
    sym = GELF_R_SYM(r.r_info);
    if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || sym == 0 || sym >= nsyms ||
        gelf_getsym(sd, (int)sym, &s) == NULL)
      continue;
    name = elf_strptr(elf, symsh.sh_link, s.st_name);
    if (name == NULL || name[0] == '\0')
      continue;
    if (add_slot(c, cap, r.r_offset, name) != 0)
      return -1;
  }
  return 0;
}

static int cmp_sec(const void *a, const void *b) {
  const lgp_codesec *x = a, *y = b;
  return x->vma < y->vma ? -1 : x->vma > y->vma;
}

static int cmp_slot(const void *a, const void *b) {
  const lgp_gotslot *x = a, *y = b;
  return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int load(lgp_code *c, Elf *elf, const lgp_image *im, int dynamic, lgp_err *err) {
  Elf_Scn *scn = NULL;
  size_t shstrndx, seccap = 0, slotcap = 0;
  int have_text = 0;
  if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
    return lgp_fail(err, im->path, "corrupt ELF headers: %s", elf_errmsg(-1));
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    const char *name;
    Elf_Data *d;
    if (gelf_getshdr(scn, &sh) == NULL)
      return lgp_fail(err, im->path, "corrupt section header: %s", elf_errmsg(-1));
    name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (dynamic && sh.sh_type == SHT_RELA && read_relocs(c, &slotcap, elf, scn, &sh) != 0)
      return lgp_fail(err, im->path, "out of memory");
    if (!(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
      continue;
    d = elf_getdata(scn, NULL);
    if (d == NULL || d->d_buf == NULL || d->d_size == 0)
      return lgp_fail(err, im->path, "cannot read section %s: %s",
                      name != NULL ? name : "?", elf_errmsg(-1));
    if (add_section(c, &seccap, &sh, name, d, &have_text) != 0)
      return lgp_fail(err, im->path, "out of memory");
  }
  /* by address (blocks keeps the bytes to free in reading order) */
  if (c->nsecs > 1)
    qsort(c->secs, c->nsecs, sizeof *c->secs, cmp_sec);
  if (c->nslots > 1)
    qsort(c->slots, c->nslots, sizeof *c->slots, cmp_slot);
  return 0;
}

int lgp_code_load(lgp_code *c, const lgp_image *im, int dynamic, lgp_err *err) {
  struct stat st;
  Elf *elf;
  int fd, rc = -1;
  memset(c, 0, sizeof *c);
  if (im->path == NULL || (fd = open(im->path, O_RDONLY | O_NONBLOCK)) < 0)
    return lgp_fail(err, im->path, "cannot reopen to read its code: %s", strerror(errno));
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != im->dev || (uint64_t)st.st_ino != im->ino ||
      (uint64_t)st.st_size != im->size || (int64_t)st.st_mtim.tv_sec != im->mtime_s ||
      (int64_t)st.st_mtim.tv_nsec != im->mtime_ns) {
    close(fd);
    return lgp_fail(err, im->path, "changed since it was opened: cannot read its code");
  }
  elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if (elf == NULL)
    lgp_fail(err, im->path, "file format not recognized (not an ELF file)");
  else
    rc = load(c, elf, im, dynamic, err);
  if (elf != NULL)
    elf_end(elf);
  close(fd);
  if (rc != 0)
    lgp_code_free(c);
  return rc;
}

void lgp_code_free(lgp_code *c) {
  size_t i;
  for (i = 0; i < c->nsecs; i++)
    free(c->blocks[i]);
  free(c->blocks);
  free(c->secs);
  free(c->slots);
  free(c->names);
  memset(c, 0, sizeof *c);
}

const lgp_codesec *lgp_code_section(const lgp_code *c, lgp_addr addr) {
  size_t lo = /* the sections starting at or below addr */
    lgp_addr_count_le(c->secs, c->nsecs, sizeof *c->secs, offsetof(lgp_codesec, vma), addr);
  const lgp_codesec *s;
  if (lo == 0)
    return NULL;
  s = &c->secs[lo - 1];
  return addr - s->vma < s->size ? s : NULL;
}

const char *lgp_code_slot_name(const lgp_code *c, lgp_addr slot) {
  size_t lo =
    lgp_addr_count_lt(c->slots, c->nslots, sizeof *c->slots, offsetof(lgp_gotslot, slot), slot);
  return lo < c->nslots && c->slots[lo].slot == slot ? c->names + c->slots[lo].name : NULL;
}
