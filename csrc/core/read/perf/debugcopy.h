/*
** debugcopy.h: a separate debug file with its compressed DWARF inflated
** once, by libdeflate, into an anonymous in-memory copy that libdw reads
** as it is (libdw would inflate every compressed .debug_* section with
** zlib each time it opens the file, the ones lgprof never reads too).
*/
#ifndef debugcopy_h
#define debugcopy_h

#include <stddef.h>

/* A new descriptor of an in-memory copy of the ELF file open as fd, if
** it has the GNU build-id build_id (build_id_len bytes), in
** which the .debug_* sections compressed with zlib (SHF_COMPRESSED) are
** stored inflated and the ones lgprof never reads (location lists,
** macros, name indexes) are empty; everything else is the file's bytes.
** -1 when there is nothing to do or anything is unexpected (not an ELF
** of this machine's byte order, another compression, a size that does
** not check out, lgprof built without libdeflate, no memfd): then the
** file itself is to be read. fd's offset is not used. */
int lgp_debug_inflated_copy(int fd, const unsigned char *build_id, size_t build_id_len);

#endif
