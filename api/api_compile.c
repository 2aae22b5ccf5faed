/* api_compile.c — kf_compile_source: the frontend, then the default (or given) pass pipeline. */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "frontend/compile.h"
#include "passes/passes.h"

const char *kf_default_pipeline(void) { return "canonicalize,cse,bce,dce"; }

void kf_compile_options_init(kf_compile_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->bounds_check = 1;
  opts->verify_each = 1;
}

kf_status kf_compile_source(kf_context *ctx, const char *filename, const char *text, size_t len,
                            const kf_compile_options *opts, kf_module **out) {
  *out = NULL;
  kf_compile_options dflt;
  if (!opts) {
    kf_compile_options_init(&dflt);
    opts = &dflt;
  }
  /* The module keeps its own copies of the text and the file name: locations and later diagnostics
   * (verifier, passes, run-time IndexErrors) point into them. */
  char *copy = malloc(len + 1);
  char *name = strdup(filename ? filename : "<input>");
  if (!copy || !name) {
    free(copy);
    free(name);
    return KF_ERROR_INTERNAL;
  }
  memcpy(copy, text, len);
  copy[len] = 0;
  FeOptions fo = {opts->kernels, opts->nkernels, opts->signatures, opts->nsignatures, opts->bounds_check != 0};
  Module *m = fe_compile(ctx->ir, &ctx->diag, name, copy, len, &fo);
  if (!m) {
    diag_remove_source(&ctx->diag, copy);
    free(copy);
    free(name);
    return KF_ERROR_INVALID_INPUT;
  }
  kf_module *km = api_module_wrap(ctx, m, copy);
  if (!km) {
    ir_module_free(m);
    free(copy);
    free(name);
    return KF_ERROR_INTERNAL;
  }
  km->filename = name;
  if (!ir_verify_module(m, &ctx->diag)) {
    kf_module_destroy(km);
    return KF_ERROR_INTERNAL;
  }
  kf_pass_options po = {.verify_each = opts->verify_each};
  kf_status st = kf_module_run_pipeline(km, opts->pipeline ? opts->pipeline : kf_default_pipeline(), &po, NULL);
  if (st != KF_OK) {
    kf_module_destroy(km);
    return st;
  }
  *out = km;
  return KF_OK;
}
