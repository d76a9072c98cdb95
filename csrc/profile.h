/*
** profile.h: the analysed profile. Data flows one way:
**   ELF image + gmon files -> symbol table -> histogram credit and arcs
**   -> call-graph analysis (cycles, propagation, orderings) -> reports.
*/
#ifndef profile_h
#define profile_h

#include "elfsym.h"
#include "gmon.h"

#define LGP_NONE UINT32_MAX

/* gprof's symspec tables. */
enum lgp_table {
  LGP_INCL_GRAPH, LGP_EXCL_GRAPH,
  LGP_INCL_ARCS, LGP_EXCL_ARCS,
  LGP_INCL_FLAT, LGP_EXCL_FLAT,
  LGP_INCL_TIME, LGP_EXCL_TIME,
  LGP_NTABLES
};

/* A routine (symbol) or, past the symbols, a cycle as a whole. */
typedef struct lgp_node {
  const char *name;      /* raw (mangled) name; NULL for a cycle */
  lgp_addr addr, end_addr;
  int32_t file, line;
  uint8_t is_static, is_func, is_cycle;
  uint8_t print_flag;
  uint16_t spec;         /* bit t set: the node is in table t */
  double hist_time;      /* self time in ticks */
  uint64_t ncalls;       /* calls from others (cycles: from outside) */
  uint64_t self_calls;   /* recursive calls (cycles: between members) */
  uint64_t member_calls; /* cycle members: calls from other members */
  double child_time;     /* unscaled time of descendants */
  double prop_self, prop_child, prop_fract;
  int32_t top_order;
  int32_t cyc_num;       /* cycle number, 0 if none */
  uint32_t cyc_head;     /* members: their cycle node; others: themselves */
  uint32_t cyc_next;     /* member chain (from a cycle node: the first) */
  uint32_t index;        /* call-graph index, 1-based */
  uint32_t flat_rank;    /* position in flat-profile order */
} lgp_node;

typedef struct lgp_arc {
  uint32_t parent, child;
  uint64_t count;
  double time, child_time; /* shares propagated along the arc (ticks) */
} lgp_arc;

/* A symspec: FILE, FUNC, LINE or combinations (reference 3.2). */
typedef struct lgp_spec {
  char *file; /* basename to match, or NULL */
  char *name;
  int line;
  int any;    /* empty spec: matches everything */
} lgp_spec;

typedef struct lgp_arcspec {
  int table; /* LGP_INCL_ARCS or LGP_EXCL_ARCS */
  lgp_spec from, to;
} lgp_arcspec;

typedef struct lgp_options {
  int no_static;      /* -a */
  int functions_only; /* -D */
  int format;         /* -O: enum lgp_gmon_format */
  int no_srcinfo;
  int default_excludes; /* add mcount & co. to the exclude tables (gprof does) */
  int line_arcs;      /* also keep arcs by calling line, for gprof -s */
  /* symspecs, in the order given: table and text */
  struct { int table; char *text; } *specs;
  size_t nspecs, specs_cap;
} lgp_options;

typedef struct lgp_profile {
  lgp_image image;
  lgp_gmon gmon;
  lgp_node *nodes;   /* nsyms symbols in address order, then ncycles cycles */
  size_t nsyms, ncycles;
  /* address lookup: symbol addresses packed, and a bucket index over them
  ** (bucket b covers [sym_base + b << bucket_shift, ...); bucket_first[b]
  ** is the number of symbols below its start) */
  lgp_addr *sym_addrs;
  uint8_t *sym_is_func;
  struct lgp_bucket { uint32_t first, off; } *bucket_first;
  size_t nbuckets;
  unsigned bucket_shift;
  uint32_t last_parent;   /* lgp_cg_tally: callers arrive in address order */
  lgp_arc *arcs;     /* in creation order */
  size_t narcs, arcs_cap;
  /* arc hash: (parent, child) -> arc index + 1, tagged with the key hash */
  uint64_t *arc_slots;
  size_t arc_nslots;
  /* adjacency in gprof's list order (newest arc first) */
  uint32_t *child_off, *child_arcs;   /* nsyms + 1 offsets */
  uint32_t *parent_off, *parent_arcs;
  /* orderings */
  uint32_t *top_sorted;   /* symbols by top_order (leaves first) */
  uint32_t *time_sorted;  /* symbols and cycles: call-graph index order */
  uint32_t *flat_sorted;  /* symbols: flat-profile order */
  uint32_t *name_rank;    /* symbols: position by raw name (ties by address) */
  /* dense copies of nodes[].cyc_next and cyc_head (symbols), for the walks
  ** over big cycles that would otherwise touch a node per arc */
  uint32_t *chain, *cyc_of;
  /* with line_arcs: arcs from gprof's line symbols, in creation order */
  struct lgp_linearc { lgp_addr from; uint32_t child; uint64_t count; } *line_arcs;
  size_t nline_arcs, line_arcs_cap;
  uint32_t *line_arc_slots;
  size_t line_arc_nslots;
  int keep_line_arcs;
  lgp_arcspec *arcspecs;
  size_t narcspecs;
  int table_used[LGP_NTABLES]; /* a table has at least one entry */
  double total_time;      /* histogram ticks (flat profile denominator) */
  double print_time;      /* propagated self ticks (call-graph denominator) */
  int analysed;
  /* views (view.c): the profile owning the image and the files, whose
  ** image, gmon and specs this one borrows; and the nodes a filter removed */
  const struct lgp_profile *base;
  uint8_t *removed;
  double base_time;       /* the unfiltered profile's total_time */
  /* cgraph.c: while arcs are tallied, records from one parent in a row (a
  ** group: callers arrive in address order) are merged in a small table,
  ** and arc_slots is filled at once when a parent comes back, or at the
  ** first lookup: one random probe per arc instead of per record */
  int arc_grouping;            /* 1 grouping, 2 arc_slots not built yet */
  uint32_t arc_grp_parent, arc_grp_gen, arc_grp_first;
  uint8_t *arc_grp_seen;       /* nsyms: parents that had a group */
  uint64_t *arc_grp_slots;     /* gen << 32 | arc + 1, keyed by child */
  size_t arc_grp_nslots;
  /* the other end of each child_arcs and parent_arcs entry */
  uint32_t *child_succ, *parent_pred;
} lgp_profile;

void lgp_options_init(lgp_options *o);
void lgp_options_free(lgp_options *o);
int lgp_options_add_spec(lgp_options *o, int table, const char *text);

/* Reads the image and the gmon files and analyses them. */
int lgp_profile_open(lgp_profile *p, const char *exe, const char *const *gmons,
                     size_t ngmons, const lgp_options *opts, lgp_err *err);
void lgp_profile_free(lgp_profile *p);
/* Reads source files and lines on demand into the owning profile's nodes
** (a view reads them from there: lgp_root). 0, or -1 with a message. */
int lgp_profile_srcinfo(lgp_profile *p, lgp_err *err);
#define lgp_root(p) ((p)->base ? (p)->base : (p))
/* Ticks (histogram samples) in seconds; 0 when the rate is unknown. */
static inline double lgp_seconds(const lgp_profile *p, double ticks) {
  return p->gmon.hz ? ticks / (double)p->gmon.hz : 0.0;
}

/* symtab.c */
int lgp_symtab_build(lgp_profile *p, lgp_err *err);
uint32_t lgp_sym_lookup(const lgp_profile *p, lgp_addr addr);
/* The address index lgp_sym_lookup uses (after nodes are set). */
int lgp_symtab_index(lgp_profile *p);

/* symspec.c */
int lgp_specs_apply(lgp_profile *p, const lgp_options *opts, lgp_err *err);
/* Does a spec name a file or a line (so it needs DWARF)? */
int lgp_specs_need_srcinfo(const lgp_options *opts);
int lgp_arc_wanted(const lgp_profile *p, uint32_t parent, uint32_t child);
int lgp_in_table(const lgp_profile *p, uint32_t node, int incl, int excl);
void lgp_profile_free_specs(lgp_profile *p);

/* hist.c */
void lgp_hist_assign(lgp_profile *p);

/* cgraph.c */
int lgp_cg_tally(void *profile, lgp_addr from, lgp_addr self, uint64_t count);
int lgp_cg_assemble(lgp_profile *p, lgp_err *err);
int lgp_flat_order(lgp_profile *p, lgp_err *err);
/* Adds count calls from parent to child, as if read from a file. */
int lgp_cg_add_arc(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count);
/* Frees the per-caller merge table once reading is over (arcs.c). */
void lgp_arc_free_groups(lgp_profile *p);
/* The arc (parent, child) or LGP_NONE; an arc table without analysis. */
uint32_t lgp_arc_lookup(const lgp_profile *p, uint32_t parent, uint32_t child);
int lgp_arc_insert(lgp_profile *p, uint32_t parent, uint32_t child, uint64_t count);
/* The arcs gprof -s writes: (from address, child) in gprof's order. */
int lgp_sum_arcs(const lgp_profile *p, uint32_t **order, size_t *n);

/* view.c: a filtered copy of an analysed profile, analysed again.
** Match sets are one byte per symbol of the base (NULL: unused). */
typedef struct lgp_view_spec {
  const uint8_t *focus, *ignore, *hide, *prune_from;
  double node_fraction, edge_fraction; /* shares of the call graph's time */
  size_t top;                          /* keep the N heaviest functions */
  uint64_t min_calls;
} lgp_view_spec;

int lgp_view_build(lgp_profile *view, const lgp_profile *base, const lgp_view_spec *spec,
                   lgp_err *err);

/* Children and parents of a symbol, in gprof's list order. */
#define lgp_children_begin(p, s) ((p)->child_arcs + (p)->child_off[s])
#define lgp_children_end(p, s) ((p)->child_arcs + (p)->child_off[(s) + 1])
#define lgp_parents_begin(p, s) ((p)->parent_arcs + (p)->parent_off[s])
#define lgp_parents_end(p, s) ((p)->parent_arcs + (p)->parent_off[(s) + 1])

#endif
