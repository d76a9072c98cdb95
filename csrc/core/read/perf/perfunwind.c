/*
** perfunwind.c: unwinding the user stack copies of `perf record
** --call-graph dwarf` (perfunwind.h): one libdwfl address space per
** process, whose modules share the ELF each binary was opened as for its
** symbols; the memory an unwind reads is the sample's stack copy alone.
*/
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "read/perf/perfreader.h"

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

/* find_debuginfo of the unwinding address spaces' modules (userdata:
** elfshare, or NULL) */
static int space_debug(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name) {
  const elfshare *sh = *userdata;
  return lgp_pr_find_debug(sh ? sh->debug : NULL, mod, userdata, modname, base, file_name,
                    debuglink_file, debuglink_crc, debuginfo_file_name);
}

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
    lgp_pr_oom(s);
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
    if (lgp_pr_dso_open(s, m->dso) != 0) {
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
int lgp_pr_unwind(reader *s, proc *p, const lgp_perf_sample *sm, unw **out) {
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
uint32_t lgp_pr_stop_dso(const reader *s, const proc *p, const unw *u, size_t n) {
  uint64_t ip;
  const pmap *m;
  if (u->n > 0)
    return s->out->funcs[s->out->frame_defs[s->scratch[n - 1]].func].dso;
  if (reg_of(u, 8, &ip) != 0 || !(m = lgp_pr_map_find(p, ip)))
    return s->unknown_dso;
  return m->dso;
}
