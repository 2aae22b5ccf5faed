/* api.c — the public C API (include/kfront/kfront.h) over the internal layers: contexts (with their
 * allocator), kir modules, pipelines. Tools and embedders reach the library only through these functions.
 * Parsing, verifying and running pipelines run under a guard reporting to the context's diagnostics
 * (diag_guard, utils/mem.h); what they make reaches the caller only when the guard returns. */
#include "kfront/kfront.h"

#include <string.h>

#include "api/api_internal.h"
#include "ir/libdevice.h"
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
  case KF_ERROR_CALLBACK: return "callback failed";
  }
  return "unknown status";
}

const char *kf_version(void) { return KFRONT_VERSION; }
unsigned kf_version_number(void) { return KF_VERSION_NUMBER; }
unsigned kf_api_version(void) { return KF_API_VERSION; }
void kf_free(void *p) { mem_free(p); }

kf_status api_options_read(Diag *diag, const char *api, const char *type, const void *given, size_t known,
                           size_t original, void *out) {
  if (!given) return KF_OK;
  size_t size;
  memcpy(&size, given, sizeof size);  /* struct_size, the first field of every options struct */
  const char *why = NULL;
  if (size == 0) why = "is 0: fill the struct with its _init function before setting its fields";
  else if (size < original) why = "is smaller than the struct's first version";
  else if (size > known)
    for (size_t i = known; i < size && !why; i++)
      if (((const unsigned char *)given)[i])
        why = "is larger than this library's, and sets options it does not know: the program was built with newer "
              "headers";
  if (why) {
    if (diag)
      diag_error_kind(diag, DIAG_KIND_INVALID_ARGUMENT, srcloc(NULL, 0, 0),
                      "%s: %s.struct_size %zu %s (%s_init sets it); this library (kfront %s) reads %zu bytes", api,
                      type, size, why, type, KFRONT_VERSION, known);
    return KF_ERROR_INVALID_INPUT;
  }
  memcpy((char *)out + sizeof size, (const char *)given + sizeof size, (size < known ? size : known) - sizeof size);
  return KF_OK;
}

kf_status api_out_of_memory(kf_context *ctx) {
  diag_out_of_memory(&ctx->diag);
  return KF_ERROR_OUT_OF_MEMORY;
}

void api_diagnostic_from(const DiagRecord *r, kf_diagnostic *out) {
  out->severity = (kf_severity)r->level;
  out->kind = (kf_error_kind)r->kind;
  out->message = r->message;
  out->file = r->file;
  out->line = r->line;
  out->col = r->col;
  out->end_col = r->end_col;
  out->index = r->index;
  out->parent = r->parent;
  out->nnotes = r->nnotes;
  out->rendered = r->rendered;
}

static void forward_diag(void *user, const DiagRecord *r) {
  kf_context *ctx = user;
  if (ctx->handler) ctx->handler(ctx->handler_user, (int)r->level, r->rendered);
  if (ctx->callback) {
    kf_diagnostic d;
    api_diagnostic_from(r, &d);
    if (r->parent != DIAG_NO_PARENT) d.parent = ctx->diag.recs[r->parent].index;  /* as a top-level index */
    ctx->callback(ctx->callback_user, &d);
  }
}

void kf_context_options_init(kf_context_options *o) {
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
}

kf_status kf_context_create_with(const kf_context_options *given, kf_context **out) {
  *out = NULL;
  kf_context_options opts;
  kf_status st = API_READ_OPTIONS(NULL, "kf_context_create_with", kf_context_options, alloc_ud, given, &opts);
  if (st != KF_OK) return st;
  MemAllocator a = {opts.alloc, opts.alloc_ud};
  API_SCOPE(a);
  kf_context *ctx = mem_calloc(1, sizeof *ctx);
  if (!ctx) return KF_ERROR_OUT_OF_MEMORY;
  ctx->alloc = a;
  ctx->ir = ir_context_new();
  if (!ctx->ir) {
    mem_free(ctx);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  diag_init(&ctx->diag);
  ctx->diag.callback = forward_diag;
  ctx->diag.callback_user = ctx;
  *out = ctx;
  return KF_OK;
}

kf_context *kf_context_create(void) {
  kf_context *ctx;
  return kf_context_create_with(NULL, &ctx) == KF_OK ? ctx : NULL;
}

void kf_context_destroy(kf_context *ctx) {
  if (!ctx) return;
  API_CONTEXT(ctx);
  api_sources_free(ctx, ctx->sources, ctx->nsources);
  api_passes_free(ctx);
  api_intrinsics_free(ctx);
  diag_free(&ctx->diag);
  ir_context_free(ctx->ir);
  mem_free(ctx);
}

const char *kf_context_diagnostics(kf_context *ctx) { return diag_text(&ctx->diag); }
unsigned kf_context_error_count(kf_context *ctx) { return diag_errors(&ctx->diag); }

void kf_context_clear_diagnostics(kf_context *ctx) {
  API_CONTEXT(ctx);
  diag_clear(&ctx->diag);
}

_Static_assert((int)KF_ERRKIND_NONE == (int)DIAG_KIND_NONE && (int)KF_ERRKIND_INTERNAL == (int)DIAG_KIND_INTERNAL &&
                   (int)KF_ERRKIND_OUT_OF_MEMORY == (int)DIAG_KIND_OUT_OF_MEMORY &&
                   (int)KF_ERRKIND_VALUE == (int)DIAG_KIND_VALUE &&
                   (int)KF_ERRKIND_INVALID_IR == (int)DIAG_KIND_INVALID_IR &&
                   (int)KF_ERRKIND_INVALID_ARGUMENT == (int)DIAG_KIND_INVALID_ARGUMENT &&
                   (int)KF_SEVERITY_ERROR == (int)DIAG_ERROR && (int)KF_SEVERITY_WARNING == (int)DIAG_WARNING &&
                   (int)KF_SEVERITY_NOTE == (int)DIAG_NOTE,
               "kf_error_kind and DiagKind, kf_severity and DiagLevel have the same values");

kf_status kf_context_first_error(kf_context *ctx, kf_error_info *out) {
  memset(out, 0, sizeof *out);
  const DiagFirst *f = &ctx->diag.first;
  if (!f->set) return KF_ERROR_NOT_FOUND;
  out->kind = (kf_error_kind)f->kind;
  out->message = f->message ? f->message : "out of memory";  /* no message: it could not be kept */
  out->file = f->file;
  out->line = f->line;
  out->col = f->col;
  if (f->has_index) {
    out->kernel = f->kernel;
    out->axis = f->axis;
    out->index = f->index;
    out->extent = f->extent;
    out->exception = f->exception;
    for (unsigned i = 0; i < 3; i++) {
      out->thread[i] = f->thread[i];
      out->block[i] = f->block[i];
    }
  }
  return KF_OK;
}

void kf_context_set_diagnostic_handler(kf_context *ctx, kf_diagnostic_fn fn, void *user) {
  ctx->handler = fn;
  ctx->handler_user = user;
}

void kf_context_set_diagnostic_callback(kf_context *ctx, kf_diagnostic_callback fn, void *user) {
  pthread_mutex_lock(&ctx->diag.lock);  /* launches may be reporting */
  ctx->callback = fn;
  ctx->callback_user = user;
  pthread_mutex_unlock(&ctx->diag.lock);
}

unsigned kf_context_diagnostic_count(kf_context *ctx) { return diag_record_count(&ctx->diag); }

kf_status kf_context_diagnostic_at(kf_context *ctx, unsigned i, kf_diagnostic *out) {
  memset(out, 0, sizeof *out);
  DiagRecord r;
  if (!diag_record_at(&ctx->diag, i, &r)) return KF_ERROR_INVALID_INPUT;
  api_diagnostic_from(&r, out);
  return KF_OK;
}

kf_status kf_context_diagnostic_note(kf_context *ctx, unsigned i, unsigned j, kf_diagnostic *out) {
  memset(out, 0, sizeof *out);
  DiagRecord r;
  if (!diag_record_note(&ctx->diag, i, j, &r)) return KF_ERROR_INVALID_INPUT;
  api_diagnostic_from(&r, out);
  out->parent = i;
  return KF_OK;
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
    return api_out_of_memory(ctx);
  }
  memcpy(copy, text, len);
  copy[len] = 0;
  Module *m = NULL;
  kf_status st = build(ctx, name, copy, len, user, &m);
  kf_module *km = st == KF_OK ? mem_calloc(1, sizeof *km) : NULL;
  if (!km) {
    ir_module_free(m);
    /* nothing points at the copies now but the source they were registered as */
    diag_remove_source(&ctx->diag, copy);
    mem_free(copy);
    mem_free(name);
    return st == KF_OK ? api_out_of_memory(ctx) : st;
  }
  km->ctx = ctx;
  km->ir = m;
  km->source = copy;
  km->filename = name;
  *out = km;
  return KF_OK;
}

typedef struct ParseJob {
  kf_context *ctx;
  const char *name, *text;
  size_t len;
  Module *m;
} ParseJob;

static void parse_job(void *arg) {
  ParseJob *j = arg;
  diag_set_kind(DIAG_KIND_SYNTAX);  /* the caller's (API_KIND) again after the guard */
  j->m = ir_parse_module(j->ctx->ir, &j->ctx->diag, j->name, j->text, j->len);
}

static kf_status parse_kir(kf_context *ctx, const char *name, const char *text, size_t len, const void *user,
                           Module **out) {
  (void)user;
  ParseJob j = {ctx, name, text, len, NULL};
  if (!diag_guard(&ctx->diag, parse_job, &j)) return KF_ERROR_OUT_OF_MEMORY;
  *out = j.m;
  return j.m ? KF_OK : KF_ERROR_INVALID_INPUT;
}

kf_status kf_module_parse(kf_context *ctx, const char *filename, const char *text, size_t len, kf_module **out) {
  API_CONTEXT(ctx);
  API_KIND(DIAG_KIND_SYNTAX);
  return api_module_build(ctx, filename, text, len, parse_kir, NULL, out);
}

void kf_module_destroy(kf_module *m) {
  if (!m) return;
  API_CONTEXT(m->ctx);
  if (m->source) diag_remove_source(&m->ctx->diag, m->source);
  api_sources_free(m->ctx, m->extra, m->nextra);
  ir_module_free(m->ir);
  mem_free(m->source);
  mem_free(m->filename);
  mem_free(m);
}

typedef struct VerifyJob {
  Module *m;
  Diag *diag;
  bool ok;
} VerifyJob;

static void verify_job(void *arg) {
  VerifyJob *j = arg;
  j->ok = ir_verify_module(j->m, j->diag);
}

kf_status kf_module_verify(kf_module *m) {
  API_CONTEXT(m->ctx);
  API_KIND(DIAG_KIND_INVALID_IR);  /* the embedder's module: parsed or built by it */
  VerifyJob j = {m->ir, &m->ctx->diag, false};
  if (!diag_guard(&m->ctx->diag, verify_job, &j)) return KF_ERROR_OUT_OF_MEMORY;
  return j.ok ? KF_OK : KF_ERROR_INVALID_INPUT;
}

kf_status kf_module_print(kf_module *m, unsigned flags, char **out, size_t *len) {
  API_CONTEXT(m->ctx);
  *out = NULL;
  if (len) *len = 0;
  StrBuf b;
  sb_init(&b);
  IrPrintOptions po = {(flags & KF_PRINT_DEBUG_INFO) != 0};
  ir_print_module(m->ir, &po, &b);
  size_t n = b.len;
  *out = sb_take(&b);
  if (!*out) return api_out_of_memory(m->ctx);
  if (len) *len = n;
  return KF_OK;
}

/* ---- passes --------------------------------------------------------------------------------- */

/* A pipeline parsed (and run over m, when there is one) under a guard; its report in dump. */
typedef struct PipelineJob {
  const PassSet *extra;  /* the context's embedder passes */
  Module *m;
  const char *text;
  const kf_pass_options *opts;
  Diag *diag;
  StrBuf dump;
  bool parsed, ok;
} PipelineJob;

static void pipeline_job(void *arg) {
  PipelineJob *j = arg;
  Pipeline p = {.extra = j->extra};
  diag_set_kind(DIAG_KIND_SYNTAX);  /* the pipeline's text; the caller's kind (API_KIND) again after the guard */
  j->parsed = pipeline_parse(&p, j->text, j->diag);
  diag_set_kind(DIAG_KIND_INVALID_IR);  /* a pass's refusal of the embedder's module, or its input not verifying */
  if (j->parsed && !j->m) {
    pipeline_print(&p, &j->dump);
  } else if (j->parsed) {
    PassManagerOptions pm = {.verify_each = true, .dump = &j->dump};
    const kf_pass_options *o = j->opts;
    TargetFacts target = target_facts(o ? o->arch : 0);
    pm.target = &target;
    if (o) {
      pm.verify_each = o->verify_each != 0;
      pm.print_ir_after_all = o->print_ir_after_all != 0;
      pm.print_ir_after = o->print_ir_after;
      pm.print_debug_info = o->print_debug_info != 0;
      pm.time_passes = o->time_passes != 0;
    }
    j->ok = pipeline_run(&p, j->m, &pm, j->diag);
  }
  pipeline_free(&p);
}

void kf_pass_options_init(kf_pass_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->verify_each = 1;
}

kf_status kf_module_run_pipeline(kf_module *m, const char *pipeline, const kf_pass_options *given, char **report) {
  API_CONTEXT(m->ctx);
  API_KIND(DIAG_KIND_INTERNAL);
  if (report) *report = NULL;
  kf_pass_options opts;
  kf_status st = API_READ_OPTIONS(&m->ctx->diag, "kf_module_run_pipeline", kf_pass_options, arch, given, &opts);
  if (st != KF_OK) return st;
  PipelineJob j = {.extra = &m->ctx->passes, .m = m->ir, .text = pipeline ? pipeline : "", .opts = &opts, .diag = &m->ctx->diag};
  sb_init(&j.dump);
  if (!diag_guard(&m->ctx->diag, pipeline_job, &j)) return KF_ERROR_OUT_OF_MEMORY;  /* j.dump went with it */
  if (report && j.dump.len) *report = sb_take(&j.dump);
  sb_free(&j.dump);
  return j.parsed && j.ok ? KF_OK : KF_ERROR_INVALID_INPUT;
}

kf_status kf_pipeline_normalize(kf_context *ctx, const char *pipeline, char **out) {
  API_CONTEXT(ctx);
  API_KIND(DIAG_KIND_INTERNAL);
  *out = NULL;
  PipelineJob j = {.extra = &ctx->passes, .text = pipeline, .diag = &ctx->diag};
  sb_init(&j.dump);
  if (!diag_guard(&ctx->diag, pipeline_job, &j)) return KF_ERROR_OUT_OF_MEMORY;
  if (!j.parsed) {
    sb_free(&j.dump);
    return KF_ERROR_INVALID_INPUT;
  }
  *out = sb_take(&j.dump);
  return *out ? KF_OK : api_out_of_memory(ctx);
}

typedef struct RenameJob {
  Module *m;
  Op *func;
  const char *from, *to;
} RenameJob;

static bool rename_calls(Op *op, void *user) {
  RenameJob *j = user;
  const char *callee = op->kind == OP_FUNC_CALL ? ir_op_attr_str(op, "callee") : NULL;
  if (callee && strcmp(callee, j->from) == 0) ir_op_set_attr(j->m, op, "callee", attr_sym(j->m, j->to));
  return true;
}

static void rename_job(void *arg) {
  RenameJob *j = arg;
  ir_walk_module(j->m, rename_calls, j);
  ir_op_set_attr(j->m, j->func, "sym_name", attr_sym(j->m, j->to));
  ir_module_rebuild_symbols(j->m);
}

static bool is_identifier(const char *s) {
  if (!*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '$'))
      return false;
  return true;
}

kf_status kf_module_rename_function(kf_module *m, const char *name, const char *new_name) {
  API_CONTEXT(m->ctx);
  Op *func = name ? ir_module_lookup(m->ir, name) : NULL;
  if (!func || func->kind != OP_FUNC_FUNC) {
    diag_error_kind(&m->ctx->diag, DIAG_KIND_NOT_FOUND, (SrcLoc){0}, "no function '%s' in the module to rename",
                    name ? name : "(null)");
    return KF_ERROR_NOT_FOUND;
  }
  API_KIND(DIAG_KIND_INVALID_ARGUMENT);
  if (!new_name || !is_identifier(new_name)) {
    diag_error(&m->ctx->diag, (SrcLoc){0}, "'%s' is not a function name: letters, digits, '_' and '$', not first a "
               "digit", new_name ? new_name : "(null)");
    return KF_ERROR_INVALID_INPUT;
  }
  if (strcmp(name, new_name) == 0) return KF_OK;
  if (ir_module_lookup(m->ir, new_name)) {
    diag_error(&m->ctx->diag, (SrcLoc){0}, "cannot rename '%s' to '%s': the module has a symbol of that name", name,
               new_name);
    return KF_ERROR_INVALID_INPUT;
  }
  RenameJob j = {.m = m->ir, .func = func, .from = name, .to = new_name};
  return diag_guard(&m->ctx->diag, rename_job, &j) ? KF_OK : KF_ERROR_OUT_OF_MEMORY;
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

void kf_libdevice_foreach(void (*fn)(void *user, const char *name, const char *signature, const char *params),
                          void *user) {
  for (unsigned k = 0; k < ir_libdevice_count(); k++) {
    const LibdeviceFn *f = ir_libdevice_at((int)k);
    fn(user, f->name, f->sig, f->params);
  }
}
