/* compile_source.c — Python source to kir ready to run: the frontend (frontend/compile.h), the verifier,
 * then the pass pipeline. One sequence for the runtime's programs and for kf_compile_source. */
#include "frontend/compile.h"
#include "passes/passes.h"
#include "runtime/rt.h"

Module *rt_compile_source(IrContext *ir, Diag *diag, const kf_source *main, const RtSourceOptions *o) {
  FeOptions fo = {.kernels = o->kernels,
                  .nkernels = o->nkernels,
                  .signatures = o->signatures,
                  .nsignatures = o->nsignatures,
                  .bounds_check = o->bounds_check,
                  .extra_sources = o->extra_sources,
                  .nextra_sources = o->nextra_sources,
                  .bindings = o->bindings,
                  .nbindings = o->nbindings,
                  .functions = o->functions,
                  .nfunctions = o->nfunctions};
  DiagKind prev = diag_set_kind(DIAG_KIND_TYPING);  /* the parser says SYNTAX itself */
  Module *m = fe_compile(ir, diag, main, &fo);
  diag_set_kind(DIAG_KIND_INTERNAL);  /* a module the verifier or a pass refuses is kfront's fault */
  if (!m) {
    diag_set_kind(prev);
    return NULL;
  }
  if (!ir_verify_module(m, diag)) {
    diag_set_kind(prev);
    ir_module_free(m);
    return NULL;
  }
  Pipeline p = {0};
  PassManagerOptions pm = {.verify_each = o->verify_each};
  bool ok = pipeline_parse(&p, o->pipeline ? o->pipeline : PASS_DEFAULT_PIPELINE, diag) && pipeline_run(&p, m, &pm, diag);
  pipeline_free(&p);
  diag_set_kind(prev);
  if (!ok) {
    ir_module_free(m);
    return NULL;
  }
  return m;
}
