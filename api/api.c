/* api.c — the public C API (include/kfront/kfront.h) over the internal layers: contexts, kir modules,
 * pipelines. Tools and embedders reach the library only through these functions. */
#include "kfront/kfront.h"

#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "passes/passes.h"
#include "utils/mem.h"

const char *kf_status_name(kf_status s) {
  switch (s) {
  case KF_OK: return "ok";
  case KF_ERROR_INVALID_INPUT: return "invalid input";
  case KF_ERROR_NOT_FOUND: return "not found";
  case KF_ERROR_UNSUPPORTED: return "unsupported";
  case KF_ERROR_BACKEND: return "backend error";
  case KF_ERROR_DEVICE: return "device error";
  case KF_ERROR_OUT_OF_BOUNDS: return "index out of bounds";
  case KF_ERROR_INTERNAL: return "internal error";
  case KF_ERROR_OUT_OF_MEMORY: return "out of memory";
  }
  return "unknown status";
}

const char *kf_version(void) { return KFRONT_VERSION; }
void kf_free(void *p) { mem_free(p); }

static void forward_diag(void *user, DiagLevel level, const char *rendered) {
  kf_context *ctx = user;
  if (ctx->handler) ctx->handler(ctx->handler_user, (int)level, rendered);
}

kf_context *kf_context_create(void) {
  kf_context *ctx = mem_calloc(1, sizeof *ctx);
  if (!ctx) return NULL;
  ctx->ir = ir_context_new();
  diag_init(&ctx->diag);
  ctx->diag.callback = forward_diag;
  ctx->diag.callback_user = ctx;
  return ctx;
}

void kf_context_destroy(kf_context *ctx) {
  if (!ctx) return;
  diag_free(&ctx->diag);
  ir_context_free(ctx->ir);
  mem_free(ctx);
}

const char *kf_context_diagnostics(kf_context *ctx) { return diag_text(&ctx->diag); }
unsigned kf_context_error_count(kf_context *ctx) { return diag_errors(&ctx->diag); }

void kf_context_clear_diagnostics(kf_context *ctx) { diag_clear(&ctx->diag); }

_Static_assert((int)KF_ERRKIND_INTERNAL == (int)DIAG_KIND_INTERNAL &&
                   (int)KF_ERRKIND_OUT_OF_MEMORY == (int)DIAG_KIND_OUT_OF_MEMORY,
               "kf_error_kind and DiagKind have the same values");

kf_status kf_context_first_error(kf_context *ctx, kf_error_info *out) {
  memset(out, 0, sizeof *out);
  const DiagFirst *f = &ctx->diag.first;
  if (!f->set) return KF_ERROR_NOT_FOUND;
  out->kind = (kf_error_kind)f->kind;
  out->message = f->message ? f->message : "out of memory";
  out->file = f->file;
  out->line = f->line;
  out->col = f->col;
  if (f->has_index) {
    out->kernel = f->kernel;
    out->axis = f->axis;
    out->index = f->index;
    out->extent = f->extent;
  }
  return KF_OK;
}

void kf_context_set_diagnostic_handler(kf_context *ctx, kf_diagnostic_fn fn, void *user) {
  ctx->handler = fn;
  ctx->handler_user = user;
}

/* ---- modules -------------------------------------------------------------------------------- */

kf_status api_module_build(kf_context *ctx, const char *filename, const char *text, size_t len, ApiBuildFn build,
                           const void *user, kf_module **out) {
  *out = NULL;
  char *copy = mem_alloc(len + 1);
  char *name = mem_strdup(filename ? filename : "<input>");
  if (!copy || !name) {
    mem_free(copy);
    mem_free(name);
    return KF_ERROR_INTERNAL;
  }
  memcpy(copy, text, len);
  copy[len] = 0;
  Module *m = build(ctx, name, copy, len, user);
  if (!m) {
    diag_remove_source(&ctx->diag, copy);
    /* name stays alive with the context's diagnostics only as text; nothing points at it now */
    mem_free(copy);
    mem_free(name);
    return KF_ERROR_INVALID_INPUT;
  }
  kf_module *km = mem_calloc(1, sizeof *km);
  if (!km) {
    ir_module_free(m);
    mem_free(copy);
    mem_free(name);
    return KF_ERROR_INTERNAL;
  }
  km->ctx = ctx;
  km->ir = m;
  km->source = copy;
  km->filename = name;
  *out = km;
  return KF_OK;
}

static Module *parse_kir(kf_context *ctx, const char *name, const char *text, size_t len, const void *user) {
  (void)user;
  return ir_parse_module(ctx->ir, &ctx->diag, name, text, len);
}

kf_status kf_module_parse(kf_context *ctx, const char *filename, const char *text, size_t len, kf_module **out) {
  return api_module_build(ctx, filename, text, len, parse_kir, NULL, out);
}

void kf_module_destroy(kf_module *m) {
  if (!m) return;
  if (m->source) diag_remove_source(&m->ctx->diag, m->source);
  api_sources_free(m->ctx, m->extra, m->nextra);
  ir_module_free(m->ir);
  mem_free(m->source);
  mem_free(m->filename);
  mem_free(m);
}

kf_status kf_module_verify(kf_module *m) {
  return ir_verify_module(m->ir, &m->ctx->diag) ? KF_OK : KF_ERROR_INVALID_INPUT;
}

kf_status kf_module_print(kf_module *m, unsigned flags, char **out, size_t *len) {
  StrBuf b;
  sb_init(&b);
  IrPrintOptions po = {(flags & KF_PRINT_DEBUG_INFO) != 0};
  ir_print_module(m->ir, &po, &b);
  if (len) *len = b.len;
  *out = sb_take(&b);
  return KF_OK;
}

/* ---- passes --------------------------------------------------------------------------------- */

kf_status kf_module_run_pipeline(kf_module *m, const char *pipeline, const kf_pass_options *opts, char **report) {
  if (report) *report = NULL;
  Pipeline p = {0};
  if (!pipeline_parse(&p, pipeline ? pipeline : "", &m->ctx->diag)) {
    pipeline_free(&p);
    return KF_ERROR_INVALID_INPUT;
  }
  StrBuf dump;
  sb_init(&dump);
  PassManagerOptions pm = {.verify_each = true, .dump = &dump};
  if (opts) {
    pm.verify_each = opts->verify_each != 0;
    pm.print_ir_after_all = opts->print_ir_after_all != 0;
    pm.print_ir_after = opts->print_ir_after;
    pm.print_debug_info = opts->print_debug_info != 0;
    pm.time_passes = opts->time_passes != 0;
  }
  bool ok = pipeline_run(&p, m->ir, &pm, &m->ctx->diag);
  pipeline_free(&p);
  if (report && dump.len) *report = sb_take(&dump);
  sb_free(&dump);
  return ok ? KF_OK : KF_ERROR_INVALID_INPUT;
}

kf_status kf_pipeline_normalize(kf_context *ctx, const char *pipeline, char **out) {
  *out = NULL;
  Pipeline p = {0};
  if (!pipeline_parse(&p, pipeline, &ctx->diag)) {
    pipeline_free(&p);
    return KF_ERROR_INVALID_INPUT;
  }
  StrBuf b;
  sb_init(&b);
  pipeline_print(&p, &b);
  pipeline_free(&p);
  *out = sb_take(&b);
  return KF_OK;
}

void kf_pass_registry_foreach(void (*fn)(void *user, const char *name, const char *summary), void *user) {
  for (int k = 0; k < PASS__COUNT; k++) {
    const PassInfo *pi = pass_info((PassKind)k);
    fn(user, pi->name, pi->summary);
  }
}

void kf_op_registry_foreach(void (*fn)(void *user, const char *name, const char *summary, const char *example),
                            void *user) {
  for (int k = 0; k < OP__COUNT; k++) fn(user, ir_op_info[k].name, ir_op_info[k].summary, ir_op_info[k].example);
}
