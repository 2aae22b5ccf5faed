/* api_compile.c — compiling Numba-CUDA source: kf_compile_sources (kf_compile_source is its one-source case)
 * runs the frontend over copies of the sources, the verifier and the default (or given) pass pipeline
 * (rt_compile_source, the sequence the runtime's programs use too);
 * kf_compile_options_key writes the canonical text of the options (the frontend's fe_options_key, and the
 * pipeline as the pass manager reads it back), under a guard of its own (it takes no context: out of memory
 * is its status alone). */
#include <string.h>

#include "api/api_internal.h"
#include "frontend/compile.h"
#include "passes/passes.h"
#include "runtime/rt.h"
#include "utils/mem.h"

const char *kf_default_pipeline(void) { return PASS_DEFAULT_PIPELINE; }

const char *kf_builtin_path(unsigned i) { return fe_builtin_path(i); }

void kf_compile_options_init(kf_compile_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->bounds_check = 1;
  opts->verify_each = 1;
}

void api_sources_free(kf_context *ctx, kf_source *s, unsigned n) {
  for (unsigned i = 0; s && i < n; i++) {
    diag_remove_source(&ctx->diag, s[i].text);
    mem_free((char *)s[i].filename);
    mem_free((char *)s[i].text);
  }
  mem_free(s);
}

/* Copies of n sources (file names and NUL-terminated texts), or NULL when out of memory. */
static kf_source *sources_copy(kf_context *ctx, const kf_source *src, unsigned n) {
  kf_source *c = mem_calloc(n ? n : 1, sizeof *c);
  if (!c) return NULL;
  for (unsigned i = 0; i < n; i++) {
    char *name = mem_strdup(src[i].filename ? src[i].filename : "<input>"), *text = mem_alloc(src[i].len + 1);
    c[i] = (kf_source){name, text, src[i].len, src[i].first_line};
    if (!name || !text) {
      api_sources_free(ctx, c, i + 1);
      return NULL;
    }
    if (src[i].len) memcpy(text, src[i].text, src[i].len);
    text[src[i].len] = 0;
  }
  return c;
}

typedef struct CompileJob {
  kf_compile_options opts;  /* the caller's, with the copies of sources 1.. */
  unsigned first_line;      /* of the main source */
} CompileJob;

static kf_status compile_python(kf_context *ctx, const char *name, const char *text, size_t len, const void *user,
                                Module **out) {
  const CompileJob *job = user;
  kf_source main = {name, text, len, job->first_line};
  RtSourceOptions ro = {.compile = &job->opts};
  return rt_compile_source(ctx->ir, &ctx->diag, &main, &ro, out);
}

kf_status kf_compile_sources(kf_context *ctx, const kf_source *sources, unsigned nsources,
                             const kf_compile_options *given, kf_module **out) {
  API_CONTEXT(ctx);
  *out = NULL;
  SrcLoc none = srcloc(NULL, 0, 0);
  kf_compile_options dflt;
  kf_status read = API_READ_OPTIONS(&ctx->diag, "kf_compile_sources", kf_compile_options, module_callback_data, given, &dflt);
  if (read != KF_OK) return read;
  const kf_compile_options *opts = &dflt;
  if (!sources || nsources == 0) {
    diag_error(&ctx->diag, none, "kf_compile_sources: no source given");
    return KF_ERROR_INVALID_INPUT;
  }
  for (unsigned i = 0; i < nsources; i++)
    if (!sources[i].text && sources[i].len) {
      diag_error(&ctx->diag, none, "kf_compile_sources: source %u (%s) has a length but no text", i,
                 sources[i].filename ? sources[i].filename : "<input>");
      return KF_ERROR_INVALID_INPUT;
    }
  kf_source *extra = sources_copy(ctx, sources + 1, nsources - 1);
  if (!extra) return api_out_of_memory(ctx);
  CompileJob job = {*opts, sources[0].first_line};
  job.opts.extra_sources = extra;
  job.opts.nextra_sources = nsources - 1;
  kf_module *km;
  kf_status st = api_module_build(ctx, sources[0].filename, sources[0].text ? sources[0].text : "", sources[0].len,
                                  compile_python, &job, &km);
  if (st != KF_OK) {
    api_sources_free(ctx, extra, nsources - 1);
    return st;
  }
  km->extra = extra;
  km->nextra = nsources - 1;
  *out = km;
  return KF_OK;
}

kf_status kf_compile_source(kf_context *ctx, const char *filename, const char *text, size_t len,
                            const kf_compile_options *given, kf_module **out) {
  API_CONTEXT(ctx);
  *out = NULL;
  kf_compile_options o;
  kf_status read = API_READ_OPTIONS(&ctx->diag, "kf_compile_source", kf_compile_options, module_callback_data, given, &o);
  if (read != KF_OK) return read;
  const kf_compile_options *opts = &o;
  unsigned nextra = opts->nextra_sources;
  if (nextra && !opts->extra_sources) {
    diag_error(&ctx->diag, srcloc(NULL, 0, 0), "kf_compile_source: %u extra sources given with no sources pointer", nextra);
    return KF_ERROR_INVALID_INPUT;
  }
  kf_source *all = mem_alloc(sizeof *all * (1 + nextra));
  if (!all) return api_out_of_memory(ctx);
  all[0] = (kf_source){filename, text, len, 1};
  if (nextra) memcpy(all + 1, opts->extra_sources, sizeof *all * nextra);
  kf_status st = kf_compile_sources(ctx, all, 1 + nextra, opts, out);
  mem_free(all);
  return st;
}

/* The options' canonical text, under a guard (the frontend's fe_options_key and the pass manager run there). */
typedef struct KeyJob {
  const kf_compile_options *opts;
  Diag *scratch;
  StrBuf b;
  bool ok;
} KeyJob;

static void key_job(void *arg) {
  KeyJob *j = arg;
  const kf_compile_options *opts = j->opts;
  j->ok = fe_options_key(opts, &j->b);
  /* the pipeline as the pass manager reads it (spelling aside); one it cannot read, as written */
  const char *text = opts->pipeline ? opts->pipeline : kf_default_pipeline();
  Pipeline p = {0};
  StrBuf norm;
  sb_init(&norm);
  if (pipeline_parse(&p, text, j->scratch)) pipeline_print(&p, &norm);
  else sb_puts(&norm, text);
  pipeline_free(&p);
  sb_printf(&j->b, "pipeline %zu:%s\n", norm.len, sb_cstr(&norm));
  sb_free(&norm);
  j->ok = j->ok && rt_links_key(opts, &j->b);
}

kf_status kf_compile_options_key(const kf_compile_options *given, char **out) {
  *out = NULL;
  kf_compile_options dflt;
  kf_status read = API_READ_OPTIONS(NULL, "kf_compile_options_key", kf_compile_options, module_callback_data, given, &dflt);
  if (read != KF_OK) return read;
  const kf_compile_options *opts = &dflt;
  Diag scratch;  /* made outside the guard (diag.h) */
  diag_init(&scratch);
  KeyJob j = {.opts = opts, .scratch = &scratch};
  sb_init(&j.b);
  bool done = mem_guard_run(key_job, &j);
  diag_free(&scratch);
  if (!done) return KF_ERROR_OUT_OF_MEMORY;  /* j.b went with the guard */
  if (!j.ok) {
    sb_free(&j.b);
    return KF_ERROR_INVALID_INPUT;
  }
  *out = sb_take(&j.b);
  return *out ? KF_OK : KF_ERROR_OUT_OF_MEMORY;
}

/* ---- signatures and result types as trees (the frontend's grammar and Numba names: type_tree.c) ---- */

typedef struct TreeJob {
  kf_context *ctx;
  const char *text;   /* kf_signature_parse: the signature */
  size_t len;
  const Type *type;   /* kf_module_function_result: the result type */
  kf_value *out;
  bool ok;
} TreeJob;

static void signature_job(void *arg) {
  TreeJob *j = arg;
  DiagKind prev = diag_set_kind(DIAG_KIND_TYPING); /* the parser says SYNTAX itself, unsupported types UNSUPPORTED */
  j->ok = fe_signature_tree(j->ctx->ir, &j->ctx->diag, "<signature>", j->text, j->len, &j->out);
  diag_set_kind(prev);
}

static void type_job(void *arg) {
  TreeJob *j = arg;
  j->ok = fe_type_tree(&j->ctx->diag, j->type, &j->out);
}

/* Runs job under a guard; its tree reaches *out only when it succeeded. */
static kf_status tree_run(TreeJob *j, void (*job)(void *), kf_status failure, kf_value **out) {
  if (!diag_guard(&j->ctx->diag, job, j)) return KF_ERROR_OUT_OF_MEMORY;
  if (!j->ok) return failure;
  *out = j->out;
  return KF_OK;
}

kf_status kf_signature_parse(kf_context *ctx, const char *text, size_t len, kf_value **out) {
  if (!ctx || !out) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(ctx);
  *out = NULL;
  if (!text) {
    diag_error(&ctx->diag, srcloc(NULL, 0, 0), "kf_signature_parse: no signature text");
    return KF_ERROR_INVALID_INPUT;
  }
  TreeJob j = {ctx, text, len, NULL, NULL, false};
  kf_status st = tree_run(&j, signature_job, KF_ERROR_INVALID_INPUT, out);
  kf_error_info e;
  if (st == KF_ERROR_INVALID_INPUT && kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_UNSUPPORTED)
    st = KF_ERROR_UNSUPPORTED;
  return st;
}

kf_status kf_module_function_result(kf_module *m, const char *name, kf_value **out) {
  if (!m || !out) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(m->ctx);
  *out = NULL;
  Op *func = name ? ir_module_lookup(m->ir, name) : NULL;
  Type *ft = func && func->kind == OP_FUNC_FUNC ? ir_op_attr_type(func, "function_type") : NULL;
  if (!ft || ft->kind != TY_FUNC) {
    diag_error_kind(&m->ctx->diag, DIAG_KIND_NOT_FOUND, srcloc(NULL, 0, 0), "no function '%s' in the module",
                    name ? name : "(null)");
    return KF_ERROR_NOT_FOUND;
  }
  /* an Optional result is carried as its parts (the value and a flag): the function says which type it is */
  Type *t = ir_op_attr_type(func, "result_type");
  if (!t && ft->nresults == 1) t = ft->results[0];
  else if (!t && ft->nresults > 1) { /* a tuple returned as its elements */
    t = ty_tuple(m->ctx->ir, ft->nresults, ft->results);
    if (!t) return api_out_of_memory(m->ctx);
  }
  TreeJob j = {m->ctx, NULL, 0, t, NULL, false};
  return tree_run(&j, type_job, KF_ERROR_UNSUPPORTED, out);
}

void kf_value_free(kf_value *v) { kf_free(v); }
