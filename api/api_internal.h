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
};

kf_module *api_module_wrap(kf_context *ctx, Module *m, char *source);

#endif
