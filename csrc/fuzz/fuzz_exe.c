/*
** fuzz_exe.c: libFuzzer harness for the whole pipeline with a fuzzed
** executable and a fixed profile (demo.gmon.out, next to the harness).
*/
#include "pipeline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char exe_path[64], gmon_path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  fz_set_dir((*argv)[0]);
  snprintf(gmon_path, sizeof gmon_path, "%s/demo.gmon.out", fz_dir);
  snprintf(exe_path, sizeof exe_path, "/tmp/lgprof-fuzz-exe-%ld", (long)getpid());
  if (access(gmon_path, R_OK) != 0) {
    fprintf(stderr, "fuzz_exe: %s missing (set LGPROF_FUZZ_DIR)\n", gmon_path);
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int cfg;
  fz_write(exe_path, data, size);
  for (cfg = 0; cfg < 4; cfg++)
    fz_pipeline(exe_path, gmon_path, cfg);
  return 0;
}
