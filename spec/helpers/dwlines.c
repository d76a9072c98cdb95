/*
** dwlines.c: prints an executable's DWARF line table as libdw reads it, for
** spec/lines_api_spec.lua: one row per line "ADDR LINE END FILE SCOPE", ADDR
** in hex, END 1 for an end-of-sequence row, SCOPE the innermost subprogram
** or inlined subroutine holding ADDR ("-" if none; "i:NAME" when inlined).
*/
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void print_scope(Dwarf_Die *cu, Dwarf_Addr addr) {
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes(cu, addr, &scopes), i;
  for (i = 0; i < n; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      const char *name = dwarf_diename(&scopes[i]);
      printf(" %s%s", tag == DW_TAG_inlined_subroutine ? "i:" : "", name ? name : "?");
      free(scopes);
      return;
    }
  }
  free(scopes);
  printf(" -");
}

int main(int argc, char **argv) {
  Dwarf *dw;
  Dwarf_Off off = 0, next;
  size_t hsize;
  int fd;
  if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0 || (dw = dwarf_begin(fd, DWARF_C_READ)) == NULL) {
    fprintf(stderr, "usage: dwlines EXE (with DWARF)\n");
    return 1;
  }
  while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines *lines;
    size_t n, i;
    if (dwarf_offdie(dw, off + hsize, &cu) != NULL && dwarf_getsrclines(&cu, &lines, &n) == 0) {
      for (i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int line;
        bool end;
        const char *file = dwarf_linesrc(l, NULL, NULL);
        dwarf_lineaddr(l, &a);
        dwarf_lineno(l, &line);
        dwarf_lineendsequence(l, &end);
        printf("%" PRIx64 " %d %d %s", (uint64_t)a, line, end ? 1 : 0, file ? file : "?");
        print_scope(&cu, a);
        putchar('\n');
      }
    }
    off = next;
  }
  dwarf_end(dw);
  close(fd);
  return 0;
}
