/* Many runs of an unchanged program for the price of one start: preloaded
 * (LD_PRELOAD) into GNU gprof by spec/helpers/oracle.lua, this library takes
 * the program's main from __libc_start_main and, when GPROFSERVER_JOBS names
 * a job file, runs each job in a child forked from the process as it stands
 * before main: the child calls the program's own main with the job's
 * arguments, as an exec of it would, without the exec and the dynamic
 * linking of gprof's libraries (most of a gprof run's CPU time on small
 * inputs).
 *
 * The job file: for each job, NUL-terminated strings: the working directory
 * ("" for the server's), the path prefix P of its outputs, the count of
 * arguments in decimal, then the arguments (argv[0] first). The child's
 * stdin is /dev/null, its stdout P.out, its stderr P.err; the server writes
 * the job's exit status, as a shell would report it, to P.rc after the
 * child ended. Without GPROFSERVER_JOBS the program runs as usual.
 *
 * With GPROFSERVER_RESULTS=R as well, no file is made per job (three
 * files a run were a third of a child's kernel time: an ext4 inode each):
 * every child's stdout goes to the end of R.out and its stderr to the end of
 * R.err (both opened once, appending), and the server writes one line a job
 * to R.idx, "STATUS OUT_END ERR_END", the two files' sizes after the child
 * ended; the prefixes are then unused.
 *
 * The server allocates nothing from the heap before it forks (the children
 * start from the heap a fresh process has), and takes the three variables
 * out of the children's environment. Started with LD_BIND_NOW=1, the
 * dynamic linker binds every symbol once in the server, not in each child
 * (lazy binding was a tenth of a child's CPU time, with a copy of each page
 * of the tables it writes). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                        void *);

/* set once, before main: the program's main (the only state the library has) */
static main_fn program_main;

enum { MAX_ARGS = 4096 };

static void drop_variables(char **envp)
{
  size_t to = 0;
  for (size_t from = 0; envp[from]; from++) {
    if (strncmp(envp[from], "GPROFSERVER_", 12) == 0 || strncmp(envp[from], "LD_PRELOAD=", 11) == 0
        || strncmp(envp[from], "LD_BIND_NOW=", 12) == 0)
      continue;
    envp[to++] = envp[from];
  }
  envp[to] = NULL;
}

static int open_output(const char *prefix, const char *ext)
{
  char path[4096];
  int n = snprintf(path, sizeof path, "%s.%s", prefix, ext);
  if (n < 0 || (size_t)n >= sizeof path) return -1;
  return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

/* The batch's files (GPROFSERVER_RESULTS): all -1 without it. */
struct results {
  int out, err, idx;
};

/* How a child ends, after gprof's own exit handlers: its streams flushed,
 * as exit would, then _exit, without the destructors of every library
 * (_dl_fini), which fault in code pages the server never touched: a tenth
 * of a child's CPU time, for no effect on what it writes. */
static void end_child(int status, void *unused)
{
  (void)unused;
  fflush(NULL);
  _exit(status);
}

/* The child: stdout and stderr are r's out and err (shared with the server:
 * appending) or, when those are -1, PREFIX.out and PREFIX.err; no other
 * file of the server's stays open (as in an exec's process). */
static void run_child(const char *cwd, const char *prefix, const struct results *r, int argc,
                      char **argv, char **envp)
{
  int out = r->out, err = r->err;
  if (r->idx >= 0) close(r->idx);
  if (out < 0) out = open_output(prefix, "out");
  if (err < 0) err = open_output(prefix, "err");
  int in = open("/dev/null", O_RDONLY);
  if (out < 0 || err < 0 || in < 0) _exit(126);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
  close(in);
  close(out);
  close(err);
  if (cwd[0] && chdir(cwd) != 0) _exit(126);
  drop_variables(envp);
  if (on_exit(end_child, NULL) != 0) _exit(126);
  exit(program_main(argc, argv, envp));
}

/* Writes a job's status where it goes: PREFIX.rc, or a line of R.idx; 0 or -1. */
static int record_status(const struct results *r, const char *prefix, int rc)
{
  char line[64];
  int n;
  if (r->idx >= 0) {
    struct stat out, err;
    if (fstat(r->out, &out) != 0 || fstat(r->err, &err) != 0) return -1;
    n = snprintf(line, sizeof line, "%d %lld %lld\n", rc, (long long)out.st_size, (long long)err.st_size);
  } else {
    n = snprintf(line, sizeof line, "%d\n", rc);
  }
  if (n < 0 || (size_t)n >= sizeof line) return -1;
  int fd = r->idx >= 0 ? r->idx : open_output(prefix, "rc");
  if (fd < 0) return -1;
  ssize_t wrote = write(fd, line, (size_t)n);
  if (r->idx < 0) close(fd);
  return wrote == n ? 0 : -1;
}

/* Runs the jobs of text[0..size) (a job file: its last byte NUL); 0, or
 * 125 for a job file it cannot read or a child it cannot start. */
static int run_jobs(char *text, size_t size, const struct results *r, char **envp)
{
  char *argv[MAX_ARGS + 1];
  char *at = text, *end = text + size;
  while (at < end) {
    char *fields[3];
    for (int k = 0; k < 3; k++) {
      if (at >= end) return 125;
      fields[k] = at;
      at += strlen(at) + 1;
    }
    char *stop;
    long argc = strtol(fields[2], &stop, 10);
    if (*stop || argc < 1 || argc > MAX_ARGS) return 125;
    for (long k = 0; k < argc; k++) {
      if (at >= end) return 125;
      argv[k] = at;
      at += strlen(at) + 1;
    }
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0) return 125;
    if (pid == 0) run_child(fields[0], fields[1], r, (int)argc, argv, envp);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) return 125;
    }
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (record_status(r, fields[1], rc) != 0) return 125;
  }
  return 0;
}

/* R.EXT opened for appending (made empty), or -1. */
static int open_result(const char *base, const char *ext)
{
  char path[4096];
  int n = snprintf(path, sizeof path, "%s.%s", base, ext);
  if (n < 0 || (size_t)n >= sizeof path) return -1;
  return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
}

/* The job file mapped (copy on write: no allocation), run, unmapped; the
 * batch's files, if asked for, opened first and closed after. */
static int serve(const char *jobs, const char *results, char **envp)
{
  struct results r = { -1, -1, -1 };
  if (results) {
    r.out = open_result(results, "out");
    r.err = open_result(results, "err");
    r.idx = open_result(results, "idx");
  }
  int rc = 125;
  int fd = open(jobs, O_RDONLY);
  struct stat st;
  char *text = MAP_FAILED;
  size_t size = 0;
  if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
    size = (size_t)st.st_size;
    text = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  }
  if (fd >= 0) close(fd);
  if (text != MAP_FAILED) {
    if (text[size - 1] == '\0' && (!results || (r.out >= 0 && r.err >= 0 && r.idx >= 0)))
      rc = run_jobs(text, size, &r, envp);
    munmap(text, size);
  }
  if (r.out >= 0) close(r.out);
  if (r.err >= 0) close(r.err);
  if (r.idx >= 0 && close(r.idx) != 0) rc = 125;
  return rc;
}

static int server_main(int argc, char **argv, char **envp)
{
  const char *jobs = getenv("GPROFSERVER_JOBS");
  if (!jobs) return program_main(argc, argv, envp);
  return serve(jobs, getenv("GPROFSERVER_RESULTS"), envp);
}

/* (glibc's entry point, which the program's _start calls: this library's
 * comes first, LD_PRELOAD's) */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end);
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
  start_fn next = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  program_main = main;
  return next(server_main, argc, argv, init, fini, rtld_fini, stack_end);
}
