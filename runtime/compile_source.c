/* compile_source.c — Python source to kir ready to run: the frontend (frontend/compile.h), the verifier,
 * then the pass pipeline. One sequence for the runtime's programs and for kf_compile_source, run under a guard
 * (utils/mem.h) reporting to the Diag: the module reaches the caller only when all of it finished. The same
 * verifier and pipeline run over an embedder's module (a generic program's specialisation: rt_compile_module). */
#include "frontend/compile.h"
#include "passes/passes.h"
#include "runtime/rt.h"

typedef struct CompileJob {
  IrContext *ir;
  Diag *diag;
  const kf_source *main;
  const RtSourceOptions *o;
  Module *m;
} CompileJob;

/* The verifier, then o's pipeline, over m: whether both passed. */
static bool verify_and_run(Module *m, const RtSourceOptions *o, Diag *diag) {
  if (!ir_verify_module(m, diag)) return false;
  Pipeline p = {.extra = o->passes};  /* the context's embedder passes (kf_pass_register) */
  PassManagerOptions pm = {.verify_each = o->compile->verify_each != 0, .target = o->target};
  const char *pipeline = o->compile->pipeline;
  bool ok = pipeline_parse(&p, pipeline ? pipeline : PASS_DEFAULT_PIPELINE, diag) && pipeline_run(&p, m, &pm, diag);
  pipeline_free(&p);
  return ok;
}

static void compile_job(void *arg) {
  CompileJob *j = arg;
  FeOptions fo = {.compile = j->o->compile};
  diag_set_kind(DIAG_KIND_TYPING);  /* the parser says SYNTAX itself */
  Module *m = fe_compile(j->ir, j->diag, j->main, &fo);
  diag_set_kind(DIAG_KIND_INTERNAL);  /* a module the verifier or a pass refuses is kfront's fault */
  if (!m) return;
  if (!verify_and_run(m, j->o, j->diag)) {
    ir_module_free(m);
    return;
  }
  j->m = m;
}

kf_status rt_compile_source(IrContext *ir, Diag *diag, const kf_source *main, const RtSourceOptions *o, Module **out) {
  *out = NULL;
  CompileJob j = {ir, diag, main, o, NULL};
  DiagKind prev = diag_kind();
  bool done = diag_guard(diag, compile_job, &j);
  diag_set_kind(prev);
  if (!done) return KF_ERROR_OUT_OF_MEMORY;
  *out = j.m;
  return j.m ? KF_OK : KF_ERROR_INVALID_INPUT;
}

typedef struct ModuleJob {
  Module *m;
  Diag *diag;
  const RtSourceOptions *o;
  bool ok;
} ModuleJob;

static void module_job(void *arg) {
  ModuleJob *j = arg;
  diag_set_kind(DIAG_KIND_INVALID_IR);  /* the embedder's module: its errors are input errors */
  j->ok = verify_and_run(j->m, j->o, j->diag);
}

kf_status rt_compile_module(Diag *diag, Module *m, const RtSourceOptions *o) {
  ModuleJob j = {m, diag, o, false};
  DiagKind prev = diag_kind();
  bool done = diag_guard(diag, module_job, &j);
  diag_set_kind(prev);
  if (!done) return KF_ERROR_OUT_OF_MEMORY;
  return j.ok ? KF_OK : KF_ERROR_INVALID_INPUT;
}
