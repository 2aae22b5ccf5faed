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

static Module *compile_python(kf_context *ctx, const char *name, const char *text, size_t len, const void *user) {
  return fe_compile(ctx->ir, &ctx->diag, name, text, len, user);
}

kf_status kf_compile_source(kf_context *ctx, const char *filename, const char *text, size_t len,
                            const kf_compile_options *opts, kf_module **out) {
  *out = NULL;
  kf_compile_options dflt;
  if (!opts) {
    kf_compile_options_init(&dflt);
    opts = &dflt;
  }
  FeOptions fo = {opts->kernels, opts->nkernels, opts->signatures, opts->nsignatures, opts->bounds_check != 0};
  kf_module *km;
  kf_status st = api_module_build(ctx, filename, text, len, compile_python, &fo, &km);
  if (st != KF_OK) return st;
  if (!ir_verify_module(km->ir, &ctx->diag)) {
    kf_module_destroy(km);
    return KF_ERROR_INTERNAL;
  }
  kf_pass_options po = {.verify_each = opts->verify_each};
  st = kf_module_run_pipeline(km, opts->pipeline ? opts->pipeline : kf_default_pipeline(), &po, NULL);
  if (st != KF_OK) {
    kf_module_destroy(km);
    return st;
  }
  *out = km;
  return KF_OK;
}
