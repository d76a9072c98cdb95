/*
** buildid.h: the GNU build-id of an ELF note area (a PT_NOTE segment, a
** SHT_NOTE section, or the running kernel's /sys/kernel/notes).
*/
#ifndef buildid_h
#define buildid_h

#include <stddef.h>

/* The length of the GNU build-id note's description in the n bytes of
** notes at p (in the machine's byte order), copied into id when it fits
** cap; 0 when there is none (or it is longer than cap). */
size_t lgp_notes_build_id(const unsigned char *p, size_t n, unsigned char *id, size_t cap);

/* The running kernel's build-id from the notes file at path (NULL:
** /sys/kernel/notes): its length, or 0 when the file cannot be read or
** holds none. */
size_t lgp_running_kernel_build_id(const char *path, unsigned char *id, size_t cap);

#endif
