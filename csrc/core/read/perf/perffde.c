/*
** perffde.c: functions from the FDEs of .eh_frame and .debug_frame
** (perffde.h). The layout is the DWARF call frame information's (DWARF 4,
** section 6.4.1) with the .eh_frame variations of the Linux Standard
** Base (CIE ids of 0, CIE pointers counted back from the FDE, the 'z'
** augmentation and its pointer encodings).
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "read/perf/perffde.h"
#include "util/util.h"

/* A cursor over the bytes [0, n) of a section; bad once a read went past
** the end it was given (then every read gives 0). */
typedef struct cursor {
  const uint8_t *b;
  size_t pos, end;
  int bad;
} cursor;

static uint64_t fixed(cursor *c, size_t size) {
  uint64_t v = 0;
  size_t i;
  if (c->bad || c->end - c->pos < size) {
    c->bad = 1;
    return 0;
  }
  for (i = size; i-- > 0;)   /* little-endian: the binaries read are x86's */
    v = v << 8 | c->b[c->pos + i];
  c->pos += size;
  return v;
}

static uint64_t uleb(cursor *c) {
  uint64_t v = 0;
  unsigned shift = 0;
  for (;;) {
    uint8_t byte = (uint8_t)fixed(c, 1);
    if (c->bad)
      return 0;
    if (shift < 64)
      v |= (uint64_t)(byte & 0x7f) << shift;
    shift += 7;
    if (!(byte & 0x80))
      return v;
    if (shift > 70) {        /* longer than any 64-bit value needs */
      c->bad = 1;
      return 0;
    }
  }
}

static int64_t sleb(cursor *c) {
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t byte;
  do {
    byte = (uint8_t)fixed(c, 1);
    if (c->bad)
      return 0;
    if (shift < 64)
      v |= (uint64_t)(byte & 0x7f) << shift;
    shift += 7;
    if ((byte & 0x80) && shift > 70) {
      c->bad = 1;
      return 0;
    }
  } while (byte & 0x80);
  if (shift < 64 && (byte & 0x40))
    v |= ~(uint64_t)0 << shift;
  return (int64_t)v;
}

/* DW_EH_PE_*: the value's format (low 4 bits) and what it is relative to */
enum {
  PE_ABSPTR = 0x00, PE_ULEB128 = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03, PE_UDATA8 = 0x04,
  PE_SLEB128 = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b, PE_SDATA8 = 0x0c,
  PE_PCREL = 0x10, PE_OMIT = 0xff
};

/* A pointer in encoding enc at the cursor; sec_addr: the section's
** address (pc-relative values count from the field's). 0, or -1 for an
** encoding this reader does not follow (relative to the text, the data,
** the function, aligned, indirect: never in the FDEs of x86 binaries). */
static int pointer(cursor *c, int enc, int addr_size, uint64_t sec_addr, int apply,
                   uint64_t *out) {
  size_t at = c->pos;
  uint64_t v;
  switch (enc & 0x0f) {
  case PE_ABSPTR: v = fixed(c, (size_t)addr_size); break;
  case PE_ULEB128: v = uleb(c); break;
  case PE_UDATA2: v = fixed(c, 2); break;
  case PE_UDATA4: v = fixed(c, 4); break;
  case PE_UDATA8: v = fixed(c, 8); break;
  case PE_SLEB128: v = (uint64_t)sleb(c); break;
  case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
  case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
  case PE_SDATA8: v = fixed(c, 8); break;
  default: return -1;
  }
  if (c->bad)
    return -1;
  if (apply) {
    if ((enc & 0x70) == PE_PCREL)
      v += sec_addr + at;
    else if ((enc & 0xf0) != 0)
      return -1;
  }
  if (addr_size == 4)
    v &= 0xffffffffu;
  *out = v;
  return 0;
}

/* The FDE pointer encoding of the CIE at off (its 'R' augmentation; none:
** absolute pointers of the address size), or -1 when it is not a CIE this
** reader follows. */
static int cie_encoding(const uint8_t *b, size_t n, size_t off, int is_eh, int *addr_size) {
  cursor c;
  uint64_t len, id;
  size_t aug_at, aug_len = 0, i;
  int version, enc = PE_ABSPTR;
  c.b = b;
  c.pos = off;
  c.end = n;
  c.bad = 0;
  len = fixed(&c, 4);
  if (c.bad || len == 0 || len == 0xffffffffu || len > c.end - c.pos)
    return -1;
  c.end = c.pos + (size_t)len;
  id = fixed(&c, 4);
  if (id != (is_eh ? 0 : 0xffffffffu))
    return -1;
  version = (int)fixed(&c, 1);
  if (version != 1 && version != 3 && version != 4)
    return -1;
  aug_at = c.pos;
  /* the augmentation string: the known ones are a few letters long */
  while (aug_len < 8 && c.pos + aug_len < c.end && b[c.pos + aug_len] != 0)
    aug_len++;
  if (c.pos + aug_len >= c.end || b[c.pos + aug_len] != 0)
    return -1;
  c.pos += aug_len + 1;
  if (version == 4) {
    int size = (int)fixed(&c, 1);
    if (size != 4 && size != 8)
      return -1;
    *addr_size = size;
    (void)fixed(&c, 1);      /* segment selector size */
  }
  (void)uleb(&c);            /* code alignment */
  (void)sleb(&c);            /* data alignment */
  if (version == 1)
    (void)fixed(&c, 1);      /* return address register */
  else
    (void)uleb(&c);
  if (aug_len > 0 && b[aug_at] == 'z') {
    uint64_t data_len = uleb(&c);
    size_t data_end;
    if (c.bad || data_len > c.end - c.pos)
      return -1;
    data_end = c.pos + (size_t)data_len;
    for (i = 1; i < aug_len; i++) {
      uint64_t ignored;
      switch (b[aug_at + i]) {
      case 'R': enc = (int)fixed(&c, 1); break;
      case 'L': (void)fixed(&c, 1); break;
      case 'P': {
        int penc = (int)fixed(&c, 1);
        if (pointer(&c, penc & 0x7f, *addr_size, 0, 0, &ignored) != 0)
          return -1;
        break;
      }
      case 'S': case 'B': break;   /* signal frame, BTI: no data */
      default: return -1;
      }
      if (c.bad || c.pos > data_end)
        return -1;
    }
  } else if (aug_len > 0) {
    return -1;                     /* "eh" and others: another layout */
  }
  return c.bad || enc == PE_OMIT ? -1 : enc;
}

/* The last CIE an FDE named, and its encoding: FDEs come in runs of one
** CIE. */
typedef struct cie_cache {
  size_t off;
  int enc, addr_size;
} cie_cache;

/* The entry at *pos of a section (advanced past it): 1 an FDE, [*start,
** *end) set; 0 another entry, or an FDE that does not check out; -1 the
** end of the entries (the terminator, or an entry that does not fit). */
static int entry_at(const uint8_t *b, size_t n, size_t *pos, uint64_t addr, int is_eh,
                    int addr_size, cie_cache *cc, uint64_t *start, uint64_t *end) {
  cursor c;
  uint64_t len, id, range;
  size_t cie, id_at;
  c.b = b;
  c.pos = *pos;
  c.end = n;
  c.bad = 0;
  len = fixed(&c, 4);
  if (c.bad || (len == 0 && is_eh))
    return -1;               /* the terminator */
  if (len == 0xffffffffu || len > c.end - c.pos || len < 4)
    return -1;               /* (64-bit DWARF: not in the binaries read) */
  c.end = c.pos + (size_t)len;
  *pos = c.end;
  id_at = c.pos;
  id = fixed(&c, 4);
  if (is_eh ? id == 0 : id == 0xffffffffu)
    return 0;                /* a CIE: read when an FDE names it */
  if (is_eh) {
    if (id > id_at)
      return 0;
    cie = id_at - (size_t)id;
  } else {
    if (id >= n)
      return 0;
    cie = (size_t)id;
  }
  if (cie != cc->off) {
    cc->off = cie;
    cc->addr_size = addr_size;
    cc->enc = cie_encoding(b, n, cie, is_eh, &cc->addr_size);
  }
  if (cc->enc < 0 || pointer(&c, cc->enc, cc->addr_size, addr, 1, start) != 0
      || pointer(&c, cc->enc & 0x0f, cc->addr_size, addr, 0, &range) != 0)
    return 0;
  if (range == 0 || *start + range < *start)
    return 0;
  *end = *start + range;
  return 1;
}

/* All the FDEs of a section, sorted by start, into ix->fdes. 0, or -1
** out of memory. */
static int walk(lgp_fde_index *ix, const uint8_t *bytes, size_t n, uint64_t addr, int is_eh) {
  lgp_fde *fdes = NULL, *sorted = NULL;
  uint64_t *keys = NULL, start, end;
  uint32_t *idx = NULL;
  size_t count = 0, cap = 0, pos = 0, i;
  cie_cache cc;
  int rc = -1, got;
  cc.off = SIZE_MAX;
  cc.enc = -1;
  cc.addr_size = ix->addr_size;
  while (pos < n && n - pos >= 8
         && (got = entry_at(bytes, n, &pos, addr, is_eh, ix->addr_size, &cc, &start, &end)) >= 0) {
    if (!got)
      continue;
    if (count >= UINT32_MAX - 1)
      break;
    if (count == cap) {
      /* (realloc, not lgp_grow: kept for the run among small blocks) */
      size_t ncap = cap ? 2 * cap : 64;
      lgp_fde *nf = ncap <= SIZE_MAX / sizeof *nf ? realloc(fdes, ncap * sizeof *nf) : NULL;
      if (!nf)
        goto done;
      fdes = nf;
      cap = ncap;
    }
    fdes[count].start = start;
    fdes[count++].end = end;
  }
  for (i = 1; i < count && fdes[i - 1].start <= fdes[i].start; i++)
    ;
  if (count > 0 && i == count) {   /* in order already, as linkers write them */
    ix->fdes = fdes;
    ix->nfdes = count;
    fdes = NULL;
  } else if (count > 0) {
    if (!(keys = malloc(count * sizeof *keys)) || !(idx = malloc(count * sizeof *idx))
        || !(sorted = malloc(count * sizeof *sorted)))
      goto done;
    for (i = 0; i < count; i++) {
      keys[i] = fdes[i].start;
      idx[i] = (uint32_t)i;
    }
    if (lgp_radix_sort(idx, keys, count) != 0)
      goto done;
    for (i = 0; i < count; i++)
      sorted[i] = fdes[idx[i]];
    ix->fdes = sorted;
    ix->nfdes = count;
    sorted = NULL;
  }
  rc = 0;
done:
  free(fdes);
  free(keys);
  free(idx);
  free(sorted);
  return rc;
}

/* .eh_frame_hdr's search table, when it is the one linkers write (version
** 1, entries of two 4-byte offsets from the header's start) and lies within
** the section, for lookups in place. */
static int hdr_table(lgp_fde_index *ix, const lgp_fde_sections *s) {
  cursor c;
  uint64_t ignored, count;
  int ptr_enc, count_enc, table_enc;
  c.b = s->hdr;
  c.pos = 0;
  c.end = s->nhdr;
  c.bad = 0;
  if (!s->hdr || fixed(&c, 1) != 1)
    return 0;
  ptr_enc = (int)fixed(&c, 1);
  count_enc = (int)fixed(&c, 1);
  table_enc = (int)fixed(&c, 1);
  if (c.bad || table_enc != 0x3b || ptr_enc == PE_OMIT || count_enc == PE_OMIT
      || pointer(&c, ptr_enc, ix->addr_size, s->hdr_addr, 1, &ignored) != 0
      || pointer(&c, count_enc, ix->addr_size, s->hdr_addr, 1, &count) != 0)
    return 0;
  if (count == 0 || count > (c.end - c.pos) / 8)
    return 0;
  ix->table = s->hdr + c.pos;
  ix->ntable = (size_t)count;
  ix->hdr_addr = s->hdr_addr;
  ix->eh = s->eh;
  ix->neh = s->neh;
  ix->eh_addr = s->eh_addr;
  return 1;
}

int lgp_fde_index_init(lgp_fde_index *ix, const lgp_fde_sections *s) {
  memset(ix, 0, sizeof *ix);
  ix->addr_size = s->addr_size == 4 ? 4 : 8;
  if (s->eh && s->neh > 0 && hdr_table(ix, s))
    return 0;
  if (s->eh && s->neh > 0 && (walk(ix, s->eh, s->neh, s->eh_addr, 1) != 0 || ix->nfdes > 0))
    return ix->nfdes > 0 ? 0 : -1;
  if (s->debug && s->ndebug > 0)
    return walk(ix, s->debug, s->ndebug, s->debug_addr, 0);
  return 0;
}

void lgp_fde_index_free(lgp_fde_index *ix) {
  free(ix->fdes);
  memset(ix, 0, sizeof *ix);
}

/* Entry i of .eh_frame_hdr's table: its initial location, and the FDE's
** offset in .eh_frame (SIZE_MAX when outside it). */
static uint64_t table_loc(const lgp_fde_index *ix, size_t i) {
  cursor c;
  c.b = ix->table + 8 * i;
  c.pos = 0;
  c.end = 8;
  c.bad = 0;
  return ix->hdr_addr + (uint64_t)(int64_t)(int32_t)fixed(&c, 4);
}

static size_t table_fde(const lgp_fde_index *ix, size_t i) {
  cursor c;
  uint64_t at;
  c.b = ix->table + 8 * i;
  c.pos = 4;
  c.end = 8;
  c.bad = 0;
  at = ix->hdr_addr + (uint64_t)(int64_t)(int32_t)fixed(&c, 4);
  return at >= ix->eh_addr && at - ix->eh_addr < ix->neh ? (size_t)(at - ix->eh_addr) : SIZE_MAX;
}

int lgp_fde_lookup(const lgp_fde_index *ix, uint64_t addr, lgp_fde *out) {
  if (ix->table) {
    size_t lo = 0, hi = ix->ntable, pos;
    uint64_t start, end;
    cie_cache cc;
    while (lo < hi) {        /* the first entry above addr */
      size_t mid = lo + (hi - lo) / 2;
      if (table_loc(ix, mid) <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == 0 || (pos = table_fde(ix, lo - 1)) == SIZE_MAX)
      return 0;
    cc.off = SIZE_MAX;
    cc.enc = -1;
    cc.addr_size = ix->addr_size;
    /* the FDE the table names, its start the table's */
    if (entry_at(ix->eh, ix->neh, &pos, ix->eh_addr, 1, ix->addr_size, &cc, &start, &end) != 1
        || start != table_loc(ix, lo - 1) || addr >= end)
      return 0;
    out->start = start;
    out->end = end;
    return 1;
  } else {
    size_t i = lgp_addr_count_le(ix->fdes, ix->nfdes, sizeof *ix->fdes,
                                 offsetof(lgp_fde, start), addr);
    if (i == 0 || addr >= ix->fdes[i - 1].end)
      return 0;
    *out = ix->fdes[i - 1];
    return 1;
  }
}
