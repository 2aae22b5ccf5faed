/* kfront-opt — reads kir text, runs a textual pass pipeline, prints kir (like mlir-opt).
 *
 *   kfront-opt FILE.kir|- [--pass-pipeline=P] [-o OUT] [--split-input-file] [--no-verify-each]
 *              [--print-ir-after-all] [--print-ir-after=NAMES] [--time-passes] [--mlir-print-debuginfo]
 *              [--list-passes] [--list-ops] [--print-pipeline]
 *
 * Exit status 0 on success, 1 on any diagnostic (printed to stderr), 2 on a usage error.
 * Only argument handling lives here; the work is done through the public API (kfront/kfront.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "tool_io.h"

static void usage(FILE *f) {
  fputs("usage: kfront-opt FILE.kir|- [options]\n"
        "  --pass-pipeline=P        run the comma-separated passes P (e.g. 'canonicalize,cse,dce')\n"
        "  -o OUT                   write the result to OUT (default, and -o -: stdout)\n"
        "  --split-input-file       treat '// -----' lines as separators of independent inputs\n",
        f);
  fputs(tool_pass_flags_help, f);
  fputs("  --list-passes            list the registered passes\n"
        "  --print-pipeline         print the pipeline as the pass manager reads it back, and exit\n"
        "  --list-ops               list every op with its summary and example\n"
        "  --version                print kfront's version\n",
        f);
}

static void print_pass(void *user, const char *name, const char *summary) {
  (void)user;
  tool_printed(printf("  %-16s %s\n", name, summary));
}

static void print_op(void *user, const char *name, const char *summary, const char *example) {
  (void)user;
  tool_printed(printf("%s\n  %s\n  example: %s\n\n", name, summary, example));
}

/* Processes one input (one chunk with --split-input-file); appends the printed module to out. */
static int process(kf_context *ctx, const char *name, const char *text, size_t len, const char *pipeline,
                   const kf_pass_options *po, unsigned print_flags, FILE *out) {
  kf_module *m = NULL;
  int rc = 0;
  if (kf_module_parse(ctx, name, text, len, &m) != KF_OK || kf_module_verify(m) != KF_OK) {
    rc = 1;
  } else {
    char *report = NULL;
    kf_status st = kf_module_run_pipeline(m, pipeline, po, &report);
    if (report) {
      fputs(report, stderr);
      kf_free(report);
    }
    if (st != KF_OK) {
      rc = 1;
    } else {
      char *printed;
      size_t plen;
      kf_module_print(m, print_flags, &printed, &plen);
      fwrite(printed, 1, plen, out);
      kf_free(printed);
    }
  }
  fputs(kf_context_diagnostics(ctx), stderr);
  kf_context_clear_diagnostics(ctx);
  kf_module_destroy(m);
  return rc;
}

static int opt_main(int argc, char **argv) {
  const char *input = NULL, *output = NULL, *pipeline = "";
  kf_pass_options po;
  kf_pass_options_init(&po);
  unsigned print_flags = 0;
  int split = 0, print_pipeline = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--pass-pipeline=", 16) == 0) pipeline = a + 16;
    else if (strcmp(a, "--pass-pipeline") == 0 && i + 1 < argc) pipeline = argv[++i];
    else if (strcmp(a, "-o") == 0 && i + 1 < argc) output = argv[++i];
    else if (strcmp(a, "--split-input-file") == 0) split = 1;
    else if (tool_pass_flag(a, &po, &print_flags)) continue;
    else if (strcmp(a, "--print-pipeline") == 0) print_pipeline = 1;
    else if (strcmp(a, "--list-passes") == 0) {
      puts("passes:");
      kf_pass_registry_foreach(print_pass, NULL);
      return 0;
    } else if (strcmp(a, "--list-ops") == 0) {
      kf_op_registry_foreach(print_op, NULL);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("kfront-opt %s\n", kf_version());
      return 0;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' && a[1] != 0) {
      fprintf(stderr, "kfront-opt: error: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!input) input = a;
    else {
      fprintf(stderr, "kfront-opt: error: more than one input file ('%s' and '%s')\n", input, a);
      return 2;
    }
  }
  if (print_pipeline) {
    /* no input needed: check and normalise the pipeline text only */
    kf_context *ctx = kf_context_create();
    char *normal = NULL;
    int rc = kf_pipeline_normalize(ctx, pipeline, &normal) == KF_OK ? 0 : 1;
    if (normal) printf("%s\n", normal);
    fputs(kf_context_diagnostics(ctx), stderr);
    kf_free(normal);
    kf_context_destroy(ctx);
    return rc;
  }
  if (!input) {
    usage(stderr);
    return 2;
  }
  size_t len;
  char *text = tool_read_file(input, &len);
  if (!text) {
    fprintf(stderr, "kfront-opt: error: cannot read '%s': %s\n", input, tool_read_error(errno));
    return 1;
  }
  kf_context *ctx = kf_context_create();
  /* check the pipeline once, before any input */
  char *normal = NULL;
  if (kf_pipeline_normalize(ctx, pipeline, &normal) != KF_OK) {
    fputs(kf_context_diagnostics(ctx), stderr);
    kf_context_destroy(ctx);
    free(text);
    return 1;
  }
  kf_free(normal);
  /* the output is collected in memory and written once at the end (atomically to -o OUT) */
  char *outbuf = NULL;
  size_t outlen = 0;
  FILE *out = open_memstream(&outbuf, &outlen);
  if (!out) {
    fprintf(stderr, "kfront-opt: error: out of memory\n");
    kf_context_destroy(ctx);
    free(text);
    return 1;
  }
  const char *name = strcmp(input, "-") == 0 ? "<stdin>" : input;
  int rc = 0;
  if (!split) {
    rc = process(ctx, name, text, len, pipeline, &po, print_flags, out);
  } else {
    /* Each chunk keeps its line numbers: it is parsed behind as many blank lines as precede it. */
    size_t start = 0, line = 0, chunk_first_line = 0;
    int first_chunk = 1;
    for (size_t i = 0; i <= len; i++) {
      int at_end = i == len;
      int sep = !at_end && (i == 0 || text[i - 1] == '\n') && strncmp(text + i, "// -----", 8) == 0 &&
                (i + 8 == len || text[i + 8] == '\n' || text[i + 8] == '\r');
      if (sep || at_end) {
        size_t clen = i - start;
        char *chunk = malloc(chunk_first_line + clen + 1);
        memset(chunk, '\n', chunk_first_line);
        memcpy(chunk + chunk_first_line, text + start, clen);
        if (!first_chunk) fputs("// -----\n", out);
        rc |= process(ctx, name, chunk, chunk_first_line + clen, pipeline, &po, print_flags, out);
        free(chunk);
        first_chunk = 0;
        if (at_end) break;
        while (i < len && text[i] != '\n') i++;
        line++;
        start = i + 1;
        chunk_first_line = line;
        continue;
      }
      if (text[i] == '\n') line++;
    }
  }
  if (fclose(out) != 0) {
    fprintf(stderr, "kfront-opt: error: out of memory\n");
    rc = 1;
  } else if (!tool_write_output("kfront-opt", output, outbuf, outlen)) {
    rc = 1;
  }
  free(outbuf);
  kf_context_destroy(ctx);
  free(text);
  return rc;
}

int main(int argc, char **argv) {
  tool_init();
  return tool_exit("kfront-opt", opt_main(argc, argv));
}
