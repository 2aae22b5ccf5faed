/* backend.c — the backend's entry points: kir -> LLVM IR text, kir -> PTX by libNVVM or LLVM's NVPTX.
 * Each call works in its own LLVMContext, so calls on different modules may run concurrently. */
#include <stdlib.h>

#include "backend/backend.h"
#include "utils/mem.h"

void be_options_default(BackendOptions *o) {
  o->kind = BE_NVVM;
  o->arch = 90;
  o->opt = 3;
  o->fastmath = false;
  o->lineinfo = false;
}

void be_tables_free(BackendTables *t) {
  if (!t) return;
  for (unsigned i = 0; i < t->nkernels; i++) mem_free(t->kernels[i]);
  for (unsigned i = 0; i < t->nfiles; i++) mem_free(t->files[i]);
  mem_free(t->kernels);
  mem_free(t->files);
  t->kernels = t->files = NULL;
  t->nkernels = t->nfiles = 0;
}

bool be_emit_llvm(Module *m, const BackendOptions *o, StrBuf *out, BackendTables *tables, Diag *diag) {
  int version[4] = {2, 0, 3, 2};
  if (o->kind == BE_NVVM) nvvm_ir_version(version);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = be_lower_module(m, ctx, o, version, tables, diag);
  if (mod) {
    be_print_module(mod, o->kind, out);
    LLVMDisposeModule(mod);
  }
  LLVMContextDispose(ctx);
  return mod != NULL;
}

BeStatus be_compile_ptx(Module *m, const BackendOptions *o, StrBuf *out, BackendTables *tables, Diag *diag) {
  BeStatus st = BE_UNSUPPORTED;
  LLVMContextRef ctx = LLVMContextCreate();
  if (o->kind == BE_NVVM) {
    if (!nvvm_load(diag)) {
      st = BE_NOT_FOUND;
    } else {
      int version[4];
      nvvm_ir_version(version);
      LLVMModuleRef mod = be_lower_module(m, ctx, o, version, tables, diag);
      if (mod) {
        StrBuf ir;
        sb_init(&ir);
        be_print_module(mod, BE_NVVM, &ir);
        LLVMDisposeModule(mod);
        st = nvvm_compile(ir.data, ir.len, o, out, diag);
        sb_free(&ir);
      }
    }
  } else {
    LLVMModuleRef mod = be_lower_module(m, ctx, o, (const int[4]){2, 0, 3, 2}, tables, diag);
    if (mod) st = nvptx_compile(mod, ctx, o, out, diag);
  }
  LLVMContextDispose(ctx);
  if (st != BE_OK && tables) be_tables_free(tables);
  return st;
}
