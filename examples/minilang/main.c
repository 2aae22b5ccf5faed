/* main.c — the minilang compiler's command line: `minilang [--ptx] FILE.ml`.
 *
 * Compiles FILE.ml to kir (ml_compile) and, with --ptx, prints the module's PTX (kf_module_emit_ptx through
 * libNVVM). Diagnostics, minilang's and kfront's alike, are printed as kfront renders them, located in
 * FILE.ml with the line and a caret. Exit status: 0 compiled, 1 an error in the source, 2 bad usage or an
 * unreadable file, 3 no libNVVM (--ptx only; the diagnostic names the paths searched). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minilang.h"

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      char *grown = realloc(buf, cap *= 2);
      if (!grown) free(buf);
      buf = grown;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  int ptx = argc == 3 && strcmp(argv[1], "--ptx") == 0;
  if (argc != 2 + ptx || argv[1 + ptx][0] == '-') {
    fprintf(stderr, "usage: minilang [--ptx] FILE.ml\n");
    return 2;
  }
  const char *path = argv[1 + ptx];
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    fprintf(stderr, "minilang: error: cannot read '%s'\n", path);
    return 2;
  }
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  int rc = ml_compile(ctx, path, text, len, &m) == KF_OK ? 0 : 1;
  if (rc == 0 && ptx) {
    kf_codegen_options opts;
    kf_codegen_options_init(&opts);
    char *out = NULL;
    kf_status st = kf_module_emit_ptx(m, &opts, &out, NULL);
    if (st == KF_OK) fputs(out, stdout);
    rc = st == KF_OK ? 0 : st == KF_ERROR_NOT_FOUND ? 3 : 1;
    kf_free(out);
  }
  fputs(kf_context_diagnostics(ctx), stderr);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  free(text);
  return rc;
}
