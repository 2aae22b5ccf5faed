/* main.c — the minilang compiler's command line: `minilang [--ptx] FILE.ml`.
 *
 * Compiles FILE.ml to kir (ml_compile) and, with --ptx, prints the module's PTX (kf_module_emit_ptx through
 * libNVVM). Diagnostics, minilang's and kfront's alike, are printed as kfront renders them, located in
 * FILE.ml with the line and a caret, read one by one from the context (kf_context_diagnostic_at, each with its
 * notes); --diagnostics also lists them on stdout as facts, one a line: `SEVERITY KIND FILE:LINE:COL[-END]:
 * MESSAGE` (notes indented under their diagnostic). Exit status: 0 compiled, 1 an error in the source, 2 bad
 * usage or an unreadable file, 3 no libNVVM (--ptx only; the diagnostic names the paths searched). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minilang.h"

static const char *kind_name(kf_error_kind k) {
  switch (k) {
  case KF_ERRKIND_NONE: return "-";
  case KF_ERRKIND_SYNTAX: return "syntax";
  case KF_ERRKIND_TYPING: return "typing";
  case KF_ERRKIND_INVALID_IR: return "invalid-ir";
  case KF_ERRKIND_NOT_FOUND: return "not-found";
  case KF_ERRKIND_OUT_OF_MEMORY: return "out-of-memory";
  case KF_ERRKIND_INTERNAL: return "internal";
  default: return "other";
  }
}

static void list_one(const kf_diagnostic *d, const char *indent) {
  static const char *const severity[] = {"error", "warning", "note"};
  printf("%s%s %s ", indent, severity[d->severity], kind_name(d->kind));
  if (d->file) printf("%s:%u:%u", d->file, d->line, d->col);
  else printf("-");
  if (d->end_col) printf("-%u", d->end_col);
  printf(": %s\n", d->message);
}

/* Every diagnostic of ctx: rendered on stderr (as kf_context_diagnostics has them), listed on stdout if asked;
 * the number of errors. */
static unsigned print_diagnostics(kf_context *ctx, int list) {
  unsigned errors = 0;
  for (unsigned i = 0, n = kf_context_diagnostic_count(ctx); i < n; i++) {
    kf_diagnostic d;
    if (kf_context_diagnostic_at(ctx, i, &d) != KF_OK) break;
    errors += d.severity == KF_SEVERITY_ERROR;
    fputs(d.rendered, stderr);
    if (list) list_one(&d, "");
    for (unsigned j = 0; j < d.nnotes; j++) {
      kf_diagnostic note;
      if (kf_context_diagnostic_note(ctx, i, j, &note) != KF_OK) break;
      fputs(note.rendered, stderr);
      if (list) list_one(&note, "  ");
    }
  }
  return errors;
}

int main(int argc, char **argv) {
  int list = argc >= 2 && strcmp(argv[1], "--diagnostics") == 0;
  int ptx = argc >= 2 + list && strcmp(argv[1 + list], "--ptx") == 0;
  if (argc != 2 + list + ptx || argv[1 + list + ptx][0] == '-') {
    fprintf(stderr, "usage: minilang [--diagnostics] [--ptx] FILE.ml\n");
    return 2;
  }
  const char *path = argv[1 + list + ptx];
  size_t len;
  char *text = ml_read_file(path, &len);
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
  if (print_diagnostics(ctx, list) && rc == 0) rc = 1;
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  free(text);
  return rc;
}
