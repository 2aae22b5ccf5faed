/* api_internal.h — what the public handles hold; shared by the api/ files only. */
#ifndef KF_API_INTERNAL_H
#define KF_API_INTERNAL_H

#include "ir/ir.h"
#include "kfront/kfront.h"

struct kf_context {
  IrContext *ir;
  Diag diag;
  kf_diagnostic_fn handler;
  void *handler_user;
};

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
 * passes, run-time IndexErrors) point into them. On failure nothing is kept and *out stays NULL:
 * KF_ERROR_INVALID_INPUT when `build` returns NULL (it has reported why), KF_ERROR_INTERNAL when out of
 * memory. */
typedef Module *(*ApiBuildFn)(kf_context *ctx, const char *name, const char *text, size_t len, const void *user);
kf_status api_module_build(kf_context *ctx, const char *filename, const char *text, size_t len, ApiBuildFn build,
                           const void *user, kf_module **out);
/* Frees n sources copied by api_compile.c (file names and texts), after removing them from the context's
 * diagnostics; s may be NULL. */
void api_sources_free(kf_context *ctx, kf_source *s, unsigned n);

#endif
