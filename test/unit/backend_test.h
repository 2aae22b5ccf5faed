/* backend_test.h — helpers shared by the backend unit tests: reading files, finding and running ptxas. */
#ifndef KF_TEST_BACKEND_TEST_H
#define KF_TEST_BACKEND_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline char *bt_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (cap - n - 1 == 0) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (buf) buf[n] = 0;
  *len = n;
  return buf;
}

/* In CI (KFRONT_REQUIRE_PTXAS=1) a missing ptxas or libNVVM is a failure, never a skip. */
static inline bool bt_require(void) {
  const char *e = getenv("KFRONT_REQUIRE_PTXAS");
  return e && strcmp(e, "1") == 0;
}

static inline char *bt_find_ptxas(void) {
  char buf[4096];
  const char *env = getenv("KFRONT_PTXAS");
  if (env && access(env, X_OK) == 0) return strdup(env);
  const char *path = getenv("PATH");
  if (path) {
    char *copy = strdup(path);
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
      snprintf(buf, sizeof buf, "%s/ptxas", dir);
      if (access(buf, X_OK) == 0) {
        free(copy);
        return strdup(buf);
      }
    }
    free(copy);
  }
  const char *cuda = getenv("CUDA_HOME");
  if (cuda) {
    snprintf(buf, sizeof buf, "%s/bin/ptxas", cuda);
    if (access(buf, X_OK) == 0) return strdup(buf);
  }
  if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0) return strdup("/usr/local/cuda/bin/ptxas");
  return NULL;
}

/* Assembles ptx with `ptxas -arch=sm_<arch>`; true if it is accepted. *log gets ptxas's output (free it). */
static inline bool bt_ptxas(const char *ptxas, const char *ptx, unsigned arch, char **log) {
  char tmpl[] = "/tmp/kfront-ptx-XXXXXX.ptx";
  int fd = mkstemps(tmpl, 4);
  if (fd < 0) return false;
  size_t len = strlen(ptx);
  bool wrote = write(fd, ptx, len) == (ssize_t)len;
  close(fd);
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%u '%s' -o /dev/null 2>&1", ptxas, arch, tmpl);
  FILE *p = wrote ? popen(cmd, "r") : NULL;
  size_t cap = 4096, n = 0;
  char *out = malloc(cap);
  out[0] = 0;
  int status = -1;
  if (p) {
    for (size_t got; (got = fread(out + n, 1, cap - n - 1, p)) > 0;) {
      n += got;
      if (cap - n - 1 == 0) out = realloc(out, cap *= 2);
    }
    out[n] = 0;
    status = pclose(p);
  }
  unlink(tmpl);
  *log = out;
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif
