/* fuzz_kir.c — libFuzzer harness: kir text through parse, verify, a pass pipeline and print.
 *
 * The pipeline is the one a `--pass-pipeline=P` in the input names (the seed corpus keeps the RUN lines of the
 * lit tests it comes from), else kfront's default; passes run with the verifier after each. A module that
 * verifies and survives the pipeline must print as text that parses back and prints the same (kir's textual
 * form round-trips). A crash, a sanitizer report, a leak, a failure without a diagnostic or a broken round
 * trip is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"

/* The value of the first --pass-pipeline= in text (a malloc'ed copy), or NULL. */
static char *pipeline_of(const char *text, size_t size) {
  static const char flag[] = "--pass-pipeline=";
  const char *p = NULL;
  for (size_t i = 0; i + sizeof flag - 1 <= size; i++)
    if (memcmp(text + i, flag, sizeof flag - 1) == 0) {
      p = text + i + sizeof flag - 1;
      break;
    }
  if (!p) return NULL;
  size_t n = 0;
  while (p + n < text + size && p[n] && p[n] != ' ' && p[n] != '\n' && p[n] != '\'' && p[n] != '"') n++;
  char *s = malloc(n + 1);
  if (s) {
    memcpy(s, p, n);
    s[n] = 0;
  }
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  char *pipeline = pipeline_of(text, size);
  kf_status st = kf_module_parse(ctx, "fuzz.kir", text, size, &m);
  if (st == KF_OK) st = kf_module_verify(m);
  if (st == KF_OK) st = kf_module_run_pipeline(m, pipeline ? pipeline : kf_default_pipeline(), NULL, NULL);
  if (st != KF_OK && kf_context_error_count(ctx) == 0) __builtin_trap(); /* a failure is always said */
  if (st == KF_OK) {
    char *once = NULL, *twice = NULL;
    size_t n1 = 0, n2 = 0;
    kf_module *back = NULL;
    if (kf_module_print(m, KF_PRINT_DEBUG_INFO, &once, &n1) != KF_OK) __builtin_trap();
    if (kf_module_parse(ctx, "fuzz.kir", once, n1, &back) != KF_OK) __builtin_trap();
    if (kf_module_print(back, KF_PRINT_DEBUG_INFO, &twice, &n2) != KF_OK) __builtin_trap();
    if (n1 != n2 || memcmp(once, twice, n1) != 0) __builtin_trap();
    kf_free(once);
    kf_free(twice);
    kf_module_destroy(back);
  }
  free(pipeline);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  return 0;
}
