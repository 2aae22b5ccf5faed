/* api_internal.h — what the public handles hold; shared by the api/ files only.
 *
 * Every entry point that is given a handle begins with API_SCOPE(the handle's allocator): the context's
 * allocator is the calling thread's for the duration of the call (utils/mem.h), so every block made for it
 * comes from there. Entry points that run the compiler (parse, verify, pipelines, compiles, code generation)
 * run it under a guard (diag_guard, or the layer's own: rt_compile_source, backend.c) and return
 * KF_ERROR_OUT_OF_MEMORY when it reports out of memory; the others check each allocation. */
#ifndef KF_API_INTERNAL_H
#define KF_API_INTERNAL_H

#include <stddef.h>

#include "ir/ir.h"
#include "kfront/kfront.h"
#include "passes/passes.h"
#include "utils/mem.h"

struct kf_context {
  MemAllocator alloc;   /* kf_context_options' allocator: every block of this context's calls */
  IrContext *ir;
  Diag diag;
  kf_diagnostic_fn handler;        /* the rendered text of each diagnostic */
  void *handler_user;
  kf_diagnostic_callback callback; /* each diagnostic as facts */
  void *callback_user;
  kf_source *sources;   /* kf_context_add_source's copies (filename and text owned), registered with diag */
  unsigned nsources;
  PassSet passes;       /* kf_pass_register's passes (each PassInfo, its name and its ApiPass owned) */
  struct ApiIntrinsic *intrinsics;  /* kf_intrinsic_register's (api_intrinsic.c; owned, with their strings) */
  unsigned nintrinsics, intrinsics_cap;
};

/* The allocator of a call on an object with this allocator (one per entry point, at its top). */
#define API_SCOPE(a) MEM_SCOPE(a)
#define API_CONTEXT(ctx) API_SCOPE((ctx)->alloc)

struct kf_module {
  kf_context *ctx;
  Module *ir;
  char *source;    /* text the module was read from, kept for diagnostics (owned) */
  char *filename;  /* owned */
  kf_source *extra;  /* further sources it was compiled from (kf_compile_sources): filename and text owned, */
  unsigned nextra;   /* registered with the context's diagnostics like source */
};

/* Builds a module from source text: `build` gets copies of the text (NUL-terminated) and of the file name
 * ("<input>" when NULL), which the new module then owns, since locations and later diagnostics (verifier,
 * passes, run-time IndexErrors) point into them. On failure nothing is kept and *out stays NULL: the status
 * `build` returned (it has reported why), or KF_ERROR_OUT_OF_MEMORY. */
typedef kf_status (*ApiBuildFn)(kf_context *ctx, const char *name, const char *text, size_t len, const void *user,
                                Module **out);
kf_status api_module_build(kf_context *ctx, const char *filename, const char *text, size_t len, ApiBuildFn build,
                           const void *user, kf_module **out);
/* A diagnostic's facts as the API gives them (a note's parent is still an index into the Diag's records). */
void api_diagnostic_from(const DiagRecord *r, kf_diagnostic *out);
/* Makes kind the calling thread's error kind until the enclosing block ends (then the previous one again). */
typedef struct ApiKindScope { DiagKind prev; } ApiKindScope;
static inline ApiKindScope api_kind_enter(DiagKind k) {
  ApiKindScope s = {diag_set_kind(k)};
  return s;
}
static inline void api_kind_leave(ApiKindScope *s) { diag_set_kind(s->prev); }
#define API_KIND(k) ApiKindScope api_kind_ __attribute__((cleanup(api_kind_leave), unused)) = api_kind_enter(k)
/* A caller's options struct (kfront.h, "The ABI scheme") read into *out, which holds the defaults (its _init's) and
 * keeps them for the fields past the caller's struct_size; out->struct_size is then this library's sizeof. given
 * NULL: the defaults. known is sizeof the struct here, original the end of its first version's last field. A
 * struct_size of 0, below original, or above known with a nonzero byte past it: KF_ERROR_INVALID_INPUT, reported to
 * diag (kind invalid argument) when not NULL, as "<api>: <type>.struct_size ...". */
kf_status api_options_read(Diag *diag, const char *api, const char *type, const void *given, size_t known,
                           size_t original, void *out);
#define API_OPTIONS_END(T, last) (offsetof(T, last) + sizeof(((T *)0)->last))
/* API_READ_OPTIONS(diag, "kf_compile_source", kf_compile_options, module_callback_data, opts, &local): local is
 * filled with T's defaults (T_init) first. */
#define API_READ_OPTIONS(diag, api, T, last, given, out)                                                             \
  (T##_init(out), api_options_read(diag, api, #T, given, sizeof(T), API_OPTIONS_END(T, last), out))
/* Frees the context's embedder passes (api_pass.c). */
void api_passes_free(kf_context *ctx);
/* Frees the context's embedder intrinsics (api_intrinsic.c). */
void api_intrinsics_free(kf_context *ctx);
/* KF_ERROR_OUT_OF_MEMORY after reporting it to ctx. */
kf_status api_out_of_memory(kf_context *ctx);
/* Frees n sources copied by api_compile.c (file names and texts), after removing them from the context's
 * diagnostics; s may be NULL. */
void api_sources_free(kf_context *ctx, kf_source *s, unsigned n);

#endif
