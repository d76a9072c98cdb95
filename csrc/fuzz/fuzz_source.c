/*
** fuzz_source.c: libFuzzer harness for the annotated source listing with a
** fuzzed source file: the fixed anno executable (next to the harness) was
** compiled from a copy of demo.c that no longer exists, so the listing finds
** the fuzzed text, written as demo.c into a directory of its own, through the
** search list (gprof -I), at function and at line granularity.
*/
#include <sys/stat.h>

#include "pipeline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char exe_path[4200], gmon_path[4200], src_dir[64], src_path[96];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  fz_set_dir((*argv)[0]);
  snprintf(exe_path, sizeof exe_path, "%s/anno", fz_dir);
  snprintf(gmon_path, sizeof gmon_path, "%s/anno.gmon.out", fz_dir);
  snprintf(src_dir, sizeof src_dir, "/tmp/lgprof-fuzz-src-%ld", (long)getpid());
  snprintf(src_path, sizeof src_path, "%s/demo.c", src_dir);
  if (access(exe_path, R_OK) != 0 || access(gmon_path, R_OK) != 0) {
    fprintf(stderr, "fuzz_source: %s or %s missing (set LGPROF_FUZZ_DIR)\n", exe_path, gmon_path);
    abort();
  }
  if (mkdir(src_dir, 0700) != 0 && access(src_dir, W_OK) != 0)
    abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *dirs[2];
  int cfg;
  dirs[0] = "/nonexistent";
  dirs[1] = src_dir;
  fz_write(src_path, data, size);
  for (cfg = 0; cfg < 4; cfg++) {
    lgp_options opts;
    lgp_profile p;
    lgp_err err = {0, ""};
    const char *gmons[1];
    gmons[0] = gmon_path;
    lgp_options_init(&opts);
    opts.line_granularity = cfg & 1;
    if (lgp_profile_open(&p, exe_path, gmons, 1, &opts, &err) == 0) {
      fz_sources(&p, dirs, 2, cfg);
      lgp_profile_free(&p);
    }
    lgp_options_free(&opts);
  }
  return 0;
}
