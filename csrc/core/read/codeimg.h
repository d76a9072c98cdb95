/*
** codeimg.h: the machine code of an opened image, read again from its
** file for the static call graph: the bytes of its code sections and, for
** the PLT, which import each GOT slot holds.
*/
#ifndef codeimg_h
#define codeimg_h

#include "read/elfsym.h"

typedef struct lgp_codesec {
  lgp_addr vma;
  size_t size;
  const unsigned char *bytes;  /* size bytes (owned by the lgp_code) */
  int is_text;                 /* the section gprof reads (.text) */
  int is_plt;                  /* .plt, .plt.sec, .plt.got */
  size_t entsize;              /* PLT sections: bytes per entry (16 if unset) */
} lgp_codesec;

/* A GOT slot a dynamic relocation fills with an imported symbol. */
typedef struct lgp_gotslot {
  lgp_addr slot;
  size_t name;                 /* offset into lgp_code.names */
} lgp_gotslot;

typedef struct lgp_code {
  lgp_codesec *secs;           /* code sections with contents, ascending by vma */
  size_t nsecs;
  unsigned char **blocks;      /* each section's bytes */
  lgp_gotslot *slots;          /* ascending by slot */
  size_t nslots;
  char *names;                 /* the slots' names, NUL-terminated */
  size_t names_len, names_cap;
} lgp_code;

/* Reads the code sections of im's file (which must not have changed
** since it was opened); with dynamic, the GOT slots of .rela.plt and
** .rela.dyn (JUMP_SLOT and GLOB_DAT) too. 0, or -1 with a message. */
int lgp_code_load(lgp_code *c, const lgp_image *im, int dynamic, lgp_err *err);
void lgp_code_free(lgp_code *c);
/* The section holding addr, or NULL. */
const lgp_codesec *lgp_code_section(const lgp_code *c, lgp_addr addr);
/* The name of the import in a GOT slot, or NULL. */
const char *lgp_code_slot_name(const lgp_code *c, lgp_addr slot);

#endif
