/* tool_io.c — reading a whole input file (or standard input) for the tools; see tool_io.h. */
#include "tool_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tool_read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return NULL;
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
