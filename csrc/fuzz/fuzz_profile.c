/*
** fuzz_profile.c: libFuzzer harness for the whole pipeline with a fixed
** executable (demo, next to the harness) and a fuzzed profile.
*/
#include "pipeline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char exe_path[4200], gmon_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  fz_set_dir((*argv)[0]);
  snprintf(exe_path, sizeof exe_path, "%s/demo", fz_dir);
  snprintf(gmon_path, sizeof gmon_path, "/tmp/lgprof-fuzz-gmon-%ld", (long)getpid());
  if (access(exe_path, R_OK) != 0) {
    fprintf(stderr, "fuzz_profile: %s missing (set LGPROF_FUZZ_DIR)\n", exe_path);
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int cfg;
  fz_write(gmon_path, data, size);
  for (cfg = 0; cfg < 4; cfg++)
    fz_pipeline(exe_path, gmon_path, cfg);
  return 0;
}
