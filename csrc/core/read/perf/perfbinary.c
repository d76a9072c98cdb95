/*
** perfbinary.c: the binaries of a recording (perfbinary.h): made per
** recorded path, found and opened once, their separate debug files looked
** for where libdwfl's standard search looks.
*/
#define _XOPEN_SOURCE 700 /* realpath */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/perf/buildid.h"
#include "read/perf/debugcopy.h"
#include "read/perf/perfreader.h"

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

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
uint32_t lgp_pr_dso_get(reader *s, const char *path, uint32_t pid, int kind) {
  dsokey k;
  uint32_t h;
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
  h = lgp_hashtab_hash_bytes(path, strlen(path)) ^ lgp_hashtab_hash_u64(k.pid);
  v = lgp_pr_lookup(&s->dso_ht, h, dso_eq, s, &k);
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
    lgp_pr_oom(s);
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
  if (lgp_hashtab_add(&s->dso_ht, h, v) != 0) {
    lgp_pr_oom(s);
    return NONE;
  }
  return v;
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
  uint32_t h;
  uint32_t v;
  int copy = -1, fd;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return -1;
  if (main_st && st.st_dev == main_st->st_dev && st.st_ino == main_st->st_ino)
    return -2;
  h = lgp_hashtab_hash_bytes(path, strlen(path));
  if ((v = lgp_pr_lookup(&df->ht, h, debugfile_eq, df, path)) != NONE) {
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
    if (lgp_hashtab_add(&df->ht, h, (uint32_t)df->n) != 0) {
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
int lgp_pr_find_debug(debugfiles *df, Dwfl_Module *mod, void **userdata, const char *modname,
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
    if (!link && slash && (own_link = lgp_pr_joined("", slash + 1, ".debug")) != NULL)
      link = own_link;
    if (fd == -1 && link && *link && !strchr(link, '/') && slash
        && (dir = malloc((size_t)(slash - file_name) + 1)) != NULL) {
      const char *const where[3][2] = { { "", "/" }, { "", "/.debug/" },
                                        { "/usr/lib/debug", "/" } };
      memcpy(dir, file_name, (size_t)(slash - file_name));
      dir[slash - file_name] = '\0';
      for (i = 0; i < 3 && fd == -1; i++) {
        char *under = lgp_pr_joined(where[i][0], dir, where[i][1]);
        if (under && (path = lgp_pr_joined(under, link, "")) != NULL)
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
  return lgp_pr_find_debug(*userdata, mod, userdata, modname, base, file_name, debuglink_file,
                    debuglink_crc, debuginfo_file_name);
}

static void debugfiles_free(debugfiles *df) {
  size_t i;
  for (i = 0; i < df->n; i++) {
    free(df->files[i].path);
    if (df->files[i].copy >= 0)
      close(df->files[i].copy);
  }
  free(df->files);
  lgp_hashtab_free(&df->ht);
}

static const Dwfl_Callbacks dwfl_cbs = {
  NULL, own_debug, dwfl_offline_section_address, NULL
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

/* Has the module a full symbol table: .symtab in the binary, or a debug
** file (libdwfl looked for one when the binary had none)? Else only the
** exported functions (.dynsym) have names: the others are anonymous. */
static int has_symbols(Dwfl_Module *mod, Elf *elf) {
  Elf_Scn *scn = NULL;
  const char *debug_name = NULL;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
      return 1;
  }
  dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_name);
  return debug_name != NULL;
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
  if (!lgp_pr_is_file(file))
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
    return lgp_pr_oom(s);
  }
  x->dwfl = dwfl;
  x->mod = mod;
  {
    GElf_Ehdr eh;
    if (x->nsegs && x->load_end && gelf_getehdr(elf, &eh) && eh.e_type != ET_REL) {
      if (!(x->share = malloc(sizeof *x->share)))
        return lgp_pr_oom(s);
      x->share->elf = elf;
      x->share->path = sd->found;
      x->share->debug = &s->debug;
    }
  }
  sd->status = defines_functions(mod) && (x->kind != DK_ELF || has_symbols(mod, elf))
               ? LGP_DSO_OK : LGP_DSO_STRIPPED;
  s->binaries++;
  return 1;
}

/* Finds and opens the ELF of dso d, once: the build-id cache, the
** recorded path (under symfs), the distribution's debug files. */
/* The file name of a path (after its last slash). */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The image given's GNU build-id (its note segments'), read once into
** s->image_id: its length, 0 none. */
static size_t image_build_id(reader *s) {
  int fd;
  Elf *elf;
  size_t nph, i;
  if (s->image_id_read)
    return s->image_id_len;
  s->image_id_read = 1;
  if ((fd = open(s->opts.image, O_RDONLY)) < 0)
    return 0;
  (void)elf_version(EV_CURRENT); /* (libelf's own state: set once, idempotent) */
  if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL && elf_getphdrnum(elf, &nph) == 0) {
    for (i = 0; i < nph && s->image_id_len == 0; i++) {
      GElf_Phdr ph;
      Elf_Data *notes;
      if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE
          && (notes = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, (size_t)ph.p_filesz, ELF_T_BYTE)))
        s->image_id_len = lgp_notes_build_id(notes->d_buf, notes->d_size, s->image_id,
                                             sizeof s->image_id);
    }
  }
  elf_end(elf);
  close(fd);
  return s->image_id_len;
}

/* Tries the image given on the command line for dso d: it serves the
** binary of its build-id or, where the recording has none, of its file
** name. 1 taken, 0 not, -1 out of memory. */
static int try_image(reader *s, uint32_t d, int *mismatch) {
  const lgp_st_dso *sd = &s->out->dsos[d];
  if (s->opts.image == NULL || s->dx[d].kind != DK_ELF)
    return 0;
  if (sd->build_id_len > 1)
    return image_build_id(s) == sd->build_id_len
           && memcmp(s->image_id, sd->build_id, sd->build_id_len) == 0
           ? try_elf(s, d, s->opts.image, mismatch) : 0;
  return strcmp(base_name(s->opts.image), base_name(sd->path)) == 0
         ? try_elf(s, d, s->opts.image, mismatch) : 0;
}

/* Tries the --search-dir folders for dso d: DIR/.build-id/xx/rest.debug
** and DIR/.build-id/xx/rest (hex: the build-id), then DIR/NAME (the
** recorded file name). 1 taken, 0 not, -1 out of memory. */
static int try_search_dirs(reader *s, uint32_t d, const char *hex, int *mismatch) {
  const lgp_st_dso *sd = &s->out->dsos[d];
  size_t i, k;
  int rc = 0;
  for (i = 0; i < s->opts.nsearch_dirs && rc == 0; i++) {
    const char *dir = s->opts.search_dirs[i];
    char *path;
    if (sd->build_id_len > 1) {
      static const char *const ends[] = {".debug", ""};
      for (k = 0; k < 2 && rc == 0; k++) {
        char sub[96];
        snprintf(sub, sizeof sub, "/.build-id/%.2s/%s%s", hex, hex + 2, ends[k]);
        if (!(path = lgp_pr_joined(dir, sub, "")))
          return lgp_pr_oom(s);
        rc = try_elf(s, d, path, mismatch);
        free(path);
      }
    }
    if (rc == 0 && s->dx[d].kind == DK_ELF && *base_name(sd->path) != '\0') {
      if (!(path = lgp_pr_joined(dir, "/", base_name(sd->path))))
        return lgp_pr_oom(s);
      rc = try_elf(s, d, path, mismatch);
      free(path);
    }
  }
  return rc;
}

int lgp_pr_dso_open(reader *s, uint32_t d) {
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
    if (!(path = lgp_pr_joined(s->buildid_dir, sub, "")))
      return lgp_pr_oom(s);
    if (is_dir(path)) {
      if (!(p2 = lgp_pr_joined(path, x->kind == DK_VDSO ? "/vdso" : "/elf", "")))
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
  /* the image given: the user's word for which file it is */
  if ((rc = try_image(s, d, &mismatch)) != 0)
    return rc < 0 ? -1 : 0;
  if (x->kind == DK_ELF) {
    plen = strlen(sd->path);
    if (!(path = lgp_pr_joined(s->opts.symfs ? s->opts.symfs : "", sd->path, "")))
      return lgp_pr_oom(s);
    /* an unlinked file is looked for where it was */
    if (plen > 10 && strcmp(path + strlen(path) - 10, " (deleted)") == 0)
      path[strlen(path) - 10] = '\0';
    rc = try_elf(s, d, path, &mismatch);
    free(path);
    if (rc != 0)
      return rc < 0 ? -1 : 0;
  }
  if ((rc = try_search_dirs(s, d, hex, &mismatch)) != 0)
    return rc < 0 ? -1 : 0;
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


void lgp_pr_binaries_free(reader *s) {
  size_t i, j;
  for (i = 0; s->dx && i < s->out->ndsos; i++) {
    if (s->dx[i].dwfl)
      dwfl_end(s->dx[i].dwfl);
    free(s->dx[i].segs);
    free(s->dx[i].share);
    free(s->dx[i].syms);
    lgp_fde_index_free(&s->dx[i].fdes);
    for (j = 0; j < s->dx[i].njit; j++)
      free(s->dx[i].jit[j].name);
    free(s->dx[i].jit);
    free(s->dx[i].label);
  }
  free(s->dx);
  lgp_hashtab_free(&s->dso_ht);
  free(s->buildid_dir);
  s->out->debug_inflated = s->debug.inflated;
  debugfiles_free(&s->debug);
}
