/*
** perfswap.h: perf.data files of the other byte order (magic "2ELIFREP").
** lgp_perf_swap makes a copy of such a file in this machine's byte order,
** which the reader (perfdata.h) then reads as if perf had written it here:
** every integer the reader can use is swapped by its own width where it
** lies, strings and byte arrays are not, and the attr's flag word (a C
** bitfield, laid out from the other end of the word by a big-endian
** compiler) is rebuilt field by field. Offsets do not change, so messages
** name the same offsets for a file and its swapped copy.
*/
#ifndef perfswap_h
#define perfswap_h

#include <stddef.h>
#include <stdint.h>
#include "util/util.h"

/* Copies the n bytes of a file (file or pipe mode) of the other byte order
** into *out (n bytes, the caller frees it) with every integer of the
** header, the attrs and their ids, the feature sections the reader reads
** and every record turned to this machine's order. Sizes that do not fit
** are left for the reader to refuse. 0, or -1 with "NAME: what is wrong"
** (zstd-compressed records, out of memory). */
int lgp_perf_swap(const char *name, const uint8_t *in, size_t n, uint8_t **out, lgp_err *err);
/* The same for a bare record stream of a directory recording (`perf
** record --threads -o DIR`: DIR/data.0, data.1, ...), laid out by the
** attrs of head, the head_n bytes of DIR/data as they are in the file. */
int lgp_perf_swap_stream(const char *name, const uint8_t *head, size_t head_n, const uint8_t *in,
                         size_t n, uint8_t **out, lgp_err *err);

#endif
