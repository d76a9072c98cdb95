/*
** atomicfile.c: a file is replaced by rename(), which POSIX makes atomic:
** readers see the old contents or the new, never a part, and a failure
** at any step leaves the old file as it was. Only a regular file (or a new
** one) is replaced: renaming over /dev/null, a FIFO or a symbolic link
** would put a plain file in its place, so those are written to directly.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"

/* The mode the target would get from fopen: its own if it is a regular
** file (rename must not change it), else 0666 less the umask (which can
** only be read by setting it: harmless here, nothing else runs between). */
static mode_t target_mode(const char *path) {
  struct stat st;
  mode_t mask;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
    return st.st_mode & 07777;
  mask = umask(022);
  umask(mask);
  return 0666 & ~mask;
}

int lgp_atomicfile_open(lgp_atomicfile *a, const char *path, lgp_err *err) {
  static const char suffix[] = ".XXXXXX";
  size_t n = strlen(path);
  struct stat st;
  int fd, e;
  memset(a, 0, sizeof *a);
  a->path = path;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      return lgp_fail(err, path, "cannot open for writing (%s)", strerror(EISDIR));
    a->f = fopen(path, "wb");
    if (a->f == NULL)
      return lgp_fail(err, path, "cannot open for writing (%s)", strerror(errno));
    return 0;
  }
  a->tmp = malloc(n + sizeof suffix);
  if (a->tmp == NULL)
    return lgp_fail(err, path, "out of memory");
  memcpy(a->tmp, path, n);
  memcpy(a->tmp + n, suffix, sizeof suffix);
  fd = mkstemp(a->tmp);
  if (fd < 0) {
    e = errno;
    free(a->tmp);
    a->tmp = NULL;
    return lgp_fail(err, path, "cannot open for writing (%s)", strerror(e));
  }
  /* mkstemp makes the file 0600 */
  if (fchmod(fd, target_mode(path)) != 0 || (a->f = fdopen(fd, "wb")) == NULL) {
    e = errno;
    close(fd);
    lgp_atomicfile_abort(a);
    return lgp_fail(err, path, "cannot open for writing (%s)", strerror(e));
  }
  return 0;
}

int lgp_atomicfile_commit(lgp_atomicfile *a, lgp_err *err) {
  int closed, e;
  errno = 0;
  closed = fflush(a->f) == 0 && !ferror(a->f);
  e = errno;
  closed &= fclose(a->f) == 0;
  a->f = NULL;
  if (!closed) {
    e = e ? e : errno;
    lgp_atomicfile_abort(a);
    return e ? lgp_fail(err, a->path, "write error (%s)", strerror(e))
             : lgp_fail(err, a->path, "write error");
  }
  if (a->tmp != NULL && rename(a->tmp, a->path) != 0) {
    e = errno;
    lgp_atomicfile_abort(a);
    return lgp_fail(err, a->path, "cannot replace (%s)", strerror(e));
  }
  free(a->tmp);
  a->tmp = NULL;
  return 0;
}

void lgp_atomicfile_abort(lgp_atomicfile *a) {
  if (a->f != NULL)
    fclose(a->f);
  a->f = NULL;
  if (a->tmp != NULL)
    unlink(a->tmp);
  free(a->tmp);
  a->tmp = NULL;
}
