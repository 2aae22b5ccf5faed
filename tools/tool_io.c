/* tool_io.c — the tools' input and output: reading a whole input file (or standard input), writing the output
 * file atomically or to standard output (no -o, or -o -), and checking that standard output was written; see tool_io.h. */
#include "tool_io.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *tool_read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return NULL;
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    if (f != stdin) fclose(f);
    errno = EISDIR;
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *grown = realloc(buf, 2 * cap + 1);
      if (!grown) {
        free(buf);
        buf = NULL;
        errno = ENOMEM;
        break;
      }
      buf = grown;
      cap *= 2;
    }
  }
  if (buf && ferror(f)) {
    free(buf);
    buf = NULL;
    errno = EIO;
  }
  if (f != stdin) fclose(f);
  if (buf) buf[n] = 0;
  *len = n;
  return buf;
}

const char *tool_read_error(int err) { return err == EISDIR ? "it is a directory" : strerror(err); }

bool tool_read_link(const char *tool, const char *path, kf_link_input *out) {
  kf_link_kind kind;
  if (kf_link_kind_of(path, &kind) != KF_OK) {
    fprintf(stderr, "%s: error: --link %s: not a file kfront links (.cu, .ptx, .cubin, .fatbin, .ltoir, .o, .a)\n",
            tool, path);
    return false;
  }
  size_t len = 0;
  char *data = tool_read_file(path, &len);
  if (!data) {
    fprintf(stderr, "%s: error: --link %s: cannot read it: %s\n", tool, path, tool_read_error(errno));
    return false;
  }
  *out = (kf_link_input){kind, path, data, len};
  return true;
}

void tool_free_links(kf_link_input *links, unsigned n) {
  for (unsigned i = 0; i < n; i++) free((void *)links[i].data);
}

void tool_init(void) { signal(SIGXFSZ, SIG_IGN); }

static int stdout_errno; /* why the first write to standard output failed (0: none did, or not known) */

bool tool_write_output(const char *tool, const char *path, const void *data, size_t len) {
  if (!path || strcmp(path, "-") == 0) {
    errno = 0;
    if (len && fwrite(data, 1, len, stdout) != len) {
      if (!stdout_errno) stdout_errno = errno;
      return false; /* tool_exit says so */
    }
    return true;
  }
  kf_context *ctx = kf_context_create();
  if (!ctx) {
    fprintf(stderr, "%s: error: cannot write '%s': out of memory\n", tool, path);
    return false;
  }
  bool ok = kf_write_file(ctx, path, data, len) == KF_OK;
  fputs(kf_context_diagnostics(ctx), stderr);
  kf_context_destroy(ctx);
  return ok;
}

void tool_printed(int r) {
  if (r < 0 && !stdout_errno) stdout_errno = errno;
}

int tool_exit(const char *tool, int status) {
  /* fclose flushes; ferror catches a write that failed earlier (its data is lost even if the flush works) */
  bool lost = ferror(stdout) != 0;
  errno = 0;
  if (fclose(stdout) != 0) {
    lost = true;
    if (!stdout_errno) stdout_errno = errno;
  }
  if (!lost) return status;
  fprintf(stderr, "%s: error: cannot write standard output%s%s\n", tool, stdout_errno ? ": " : "",
          stdout_errno ? strerror(stdout_errno) : "");
  return status ? status : 1;
}
