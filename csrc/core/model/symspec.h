/*
** symspec.h: gprof's symspecs (-p/-P/-q/-Q/-k/-n/-N/-e/-E/-f/-F, -A/-J/-C/-Z) and the
** include/exclude tables they fill: options in, table bits on the nodes.
*/
#ifndef symspec_h
#define symspec_h

#include "model/options.h"
#include "model/symtab.h"

enum lgp_table {
  LGP_INCL_GRAPH, LGP_EXCL_GRAPH,
  LGP_INCL_ARCS, LGP_EXCL_ARCS,
  LGP_INCL_FLAT, LGP_EXCL_FLAT,
  LGP_INCL_TIME, LGP_EXCL_TIME,
  LGP_INCL_ANNO, LGP_EXCL_ANNO, /* -A/-J: annotated source */
  LGP_INCL_EXEC, LGP_EXCL_EXEC, /* -C/-Z: execution counts */
  LGP_NTABLES
};

/* A symspec: FILE, FUNC, LINE or combinations. */
typedef struct lgp_spec {
  char *file; /* basename to match, or NULL */
  char *name;
  int line;
  int any;    /* empty spec: matches everything */
} lgp_spec;

/* A table entry: a run of consecutive matching symbols as one address
** range (gprof's extend_match); reach is the largest hi of this and the
** entries before it, so a search for the entries holding an address can
** stop early although entries may overlap. */
typedef struct lgp_specrange {
  lgp_addr lo, hi, reach;
  uint32_t arcspec; /* arc tables: the FROM/TO spec the entry came from */
  uint32_t first;   /* the run's first node (gprof's copy of it names the entry) */
} lgp_specrange;

typedef struct lgp_arcspec {
  int table; /* LGP_INCL_ARCS or LGP_EXCL_ARCS */
  lgp_spec from, to;
  int has_to;             /* FROM/TO (without '/', the entry has no arcs) */
  lgp_specrange *to_ranges; /* the runs TO matches, ascending */
  size_t nto;
  lgp_specrange *from_ranges; /* the runs FROM matches, ascending (for -r's copies) */
  size_t nfrom;
} lgp_arcspec;

/* Does a spec of opts name a file or a line (so it needs DWARF)? */
int lgp_specs_need_srcinfo(const lgp_options *opts);

/* The tables as applied to one symbol table. The plain tables live in
** the nodes' spec bits; the arc tables' FROM runs are kept here. */
typedef struct lgp_specs {
  lgp_arcspec *arcspecs;
  size_t narcspecs;
  lgp_specrange *arc_from[2]; /* INCL_ARCS, EXCL_ARCS: by address, one per address */
  size_t narc_from[2];
  /* per node of the table applied to: how many entries of arc_from[]
     start at or below its address (NULL: the table is unused), so that
     the test of an arc starts where the entries that may hold its caller
     end */
  uint32_t *arc_at[2];
  size_t nnodes;
  int table_used[LGP_NTABLES]; /* a table has at least one entry */
} lgp_specs;

/* Marks the nodes' table bits and keeps the arc specs. 0, or -1. */
int lgp_specs_apply(lgp_specs *s, lgp_node *nodes, size_t n, const lgp_image *im,
                    const lgp_options *opts, lgp_err *err);
void lgp_specs_free(lgp_specs *s);
/* The arc tables of the specs "-k F/T" for the node pairs from[i]/to[i]
** (in that order) when each spec names its node alone, built without
** parsing; last[n] gets each caller's last pair (UINT32_MAX: none): the
** arc p -> c is deleted when the range of to[last[p]] holds c's. 0; 1 when
** the nodes' ranges overlap or a caller's is empty (then parse the specs);
** -1 out of memory (free the tables either way). */
int lgp_specs_from_pairs(lgp_specs *sp, const lgp_node *nodes, size_t n, const uint32_t *from,
                         const uint32_t *to, size_t npairs, uint32_t *last);

/* Is the node in table incl, or in no exclude table excl while incl is
** unused (gprof's rule)? */
int lgp_specs_in_table(const lgp_specs *s, const lgp_node *node, int incl, int excl);
/* Do the arc tables keep the arc parent -> child (node numbers)? */
int lgp_specs_arc_wanted(const lgp_specs *s, const lgp_node *nodes, uint32_t parent,
                         uint32_t child);

#endif
