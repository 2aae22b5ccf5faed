/* file.c — whole-file reads, and writes through an exclusively created temporary file renamed into place
 * (see file.h). */
#define _GNU_SOURCE
#include "file.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return false;
}

static bool write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* The process's umask, read without changing it (umask(2) would race with other threads). */
static mode_t current_umask(void) {
  mode_t mask = 022;
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return mask;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    unsigned m;
    if (sscanf(line, "Umask: %o", &m) == 1) {
      mask = (mode_t)m & 0777;
      break;
    }
  }
  fclose(f);
  return mask;
}

/* A device or FIFO that exists: written in place, every write and the close checked. */
static bool write_in_place(const char *path, const void *data, size_t len, char *err, size_t errlen) {
  int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return fail(err, errlen, "cannot write: %s", strerror(errno));
  bool ok = write_all(fd, data, len);
  int saved = errno;
  if (close(fd) != 0 && ok) {
    saved = errno;
    ok = false;
  }
  return ok || fail(err, errlen, "cannot write: %s", strerror(saved));
}

bool file_write_atomic(const char *path, const void *data, size_t len, int mode, char *err, size_t errlen) {
  struct stat st;
  bool exists = lstat(path, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return fail(err, errlen, "cannot write: it is a directory");
  if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) && mode == FILE_MODE_DEFAULT)
    return write_in_place(path, data, len, err, errlen);
  mode_t final_mode = mode >= 0                         ? (mode_t)mode
                      : exists && S_ISREG(st.st_mode)   ? st.st_mode & 07777
                                                        : 0666 & ~current_umask();

  /* <dir>/.<name>.tmp-XXXXXX, beside the target so that rename() is atomic */
  const char *slash = strrchr(path, '/');
  size_t dirlen = slash ? (size_t)(slash - path) : 0;
  const char *name = slash ? slash + 1 : path;
  if (!*name) return fail(err, errlen, "cannot write: it is a directory");
  size_t namelen = strlen(name) > 128 ? 128 : strlen(name);
  char *tmp = mem_alloc(dirlen + namelen + 16);
  if (!tmp) {
    fail(err, errlen, "cannot write: out of memory");
    errno = ENOMEM;
    return false;
  }
  if (slash) {
    memcpy(tmp, path, dirlen + 1);
  } else {
    memcpy(tmp, "./", 2);
    dirlen = 1;
  }
  char *p = tmp + dirlen + 1;
  *p++ = '.';
  memcpy(p, name, namelen);
  strcpy(p + namelen, ".tmp-XXXXXX");

  int fd = mkostemp(tmp, O_CLOEXEC); /* O_CREAT | O_EXCL, mode 0600 */
  if (fd < 0) {
    int saved = errno;
    mem_free(tmp);
    return fail(err, errlen, "cannot write: %s", strerror(saved));
  }
  bool ok = write_all(fd, data, len) && fchmod(fd, final_mode) == 0 && fsync(fd) == 0;
  int saved = errno;
  if (close(fd) != 0 && ok) {
    saved = errno;
    ok = false;
  }
  if (ok && rename(tmp, path) != 0) {
    saved = errno;
    ok = false;
  }
  if (!ok) unlink(tmp);
  mem_free(tmp);
  return ok || fail(err, errlen, "cannot write: %s", strerror(saved));
}

char *file_read_all(const char *path, size_t *len, char *err, size_t errlen) {
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fail(err, errlen, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    fail(err, errlen, "cannot read: %s", strerror(errno));
    close(fd);
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    fail(err, errlen, "cannot read: it is a directory");
    close(fd);
    return NULL;
  }
  size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536, n = 0;
  char *buf = mem_alloc(cap + 1);
  if (!buf) errno = ENOMEM;
  while (buf) {
    if (n == cap) {
      char *grown = cap < ((size_t)-1) / 4 ? mem_realloc(buf, 2 * cap + 1) : NULL;
      if (!grown) {
        mem_free(buf);
        buf = NULL;
        errno = ENOMEM;
        break;
      }
      buf = grown;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int saved = errno;
      mem_free(buf);
      buf = NULL;
      errno = saved;
      break;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  int saved = errno;
  close(fd);
  if (!buf) {
    fail(err, errlen, "cannot read: %s", strerror(saved));
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}
