/*
** fuzz_mapfile.c: libFuzzer harness for gprof's -R map files: the fuzzed
** text is parsed, then used to open the fixed demo executable and profile
** (next to the harness) with -R's renaming, with and without -l and a
** FROM/TO spec, and both link orders and gprof's report are made.
*/
#include "analyse/ordering.h"
#include "pipeline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char exe_path[4200], gmon_path[4200], map_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  fz_set_dir((*argv)[0]);
  snprintf(exe_path, sizeof exe_path, "%s/demo", fz_dir);
  snprintf(gmon_path, sizeof gmon_path, "%s/demo.gmon.out", fz_dir);
  snprintf(map_path, sizeof map_path, "/tmp/lgprof-fuzz-map-%ld", (long)getpid());
  if (access(exe_path, R_OK) != 0 || access(gmon_path, R_OK) != 0) {
    fprintf(stderr, "fuzz_mapfile: %s or %s missing (set LGPROF_FUZZ_DIR)\n", exe_path, gmon_path);
    abort();
  }
  return 0;
}

static void orders(const lgp_profile *p) {
  lgp_namelist l = {NULL, 0, 0};
  lgp_ordering_opts oo = {1, 1};
  lgp_err err = {0, ""};
  if (lgp_ordering_files(p, &p->own->map, &l, &err) == 0)
    lgp_ordering_namelist_free(&l);
  if (lgp_ordering_functions(p, &oo, &l, &err) == 0)
    lgp_ordering_namelist_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lgp_mapfile m;
  lgp_err err = {0, ""};
  int cfg;
  if (lgp_mapfile_parse(&m, (const char *)data, size, "map", &err) == 0)
    lgp_mapfile_free(&m);
  fz_write(map_path, data, size);
  for (cfg = 0; cfg < 3; cfg++) {
    lgp_options opts;
    lgp_profile p;
    lgp_err e2 = {0, ""};
    lgp_options_init(&opts);
    opts.line_granularity = cfg == 1;
    opts.map_file = lgp_strdup(map_path);
    if (opts.map_file == NULL || (cfg == 2 && lgp_options_add_spec(&opts, LGP_EXCL_ARCS, "main/") != 0))
      abort();
    if (lgp_profile_open(&p, exe_path, (const char *const[]){gmon_path}, 1, &opts, &e2) == 0) {
      if (lgp_profile_analyse(&p, LGP_GRAPH_ALL, &e2) == 0) { /* as the binding does */
        orders(&p);
        fz_report(&p, p.own, cfg);
      }
      lgp_profile_free(&p);
    }
    lgp_options_free(&opts);
  }
  return 0;
}
