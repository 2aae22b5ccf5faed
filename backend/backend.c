/* backend.c — the backend's entry points: kir -> LLVM IR text, kir -> PTX by libNVVM or LLVM's NVPTX.
 * Each call works in its own LLVMContext, so calls on different modules may run concurrently.
 *
 * Each entry point runs the whole compile under a guard (utils/mem.h) reporting to its Diag: an allocation
 * failure of ours anywhere in it unwinds to the guard, which disposes of the LLVM objects and the libNVVM
 * program alive at that moment (every one is registered with mem_guard_defer while it lives) and reports "out
 * of memory"; the text and the tables reach the caller only when the compile finished. LLVM's and libNVVM's
 * own allocations are outside the hook (kfront.h).
 *
 * Structured control flow reaches the lowering as blocks and branches, complex values as floats, and x * y + z
 * contracted as the simulator contracts it: the module is copied through lower_for_execution (passes/lower_scf.c:
 * lower-complex, lower-scf, contract), so the module given stays as it was; the code generators contract nothing
 * themselves (libNVVM: kfront's +, -, * are .rn operations, lower_llvm_arith.c's uncontracted_nvvm; LLVM's NVPTX: no
 * unsafe-fp-math). */
#include "backend/backend.h"
#include "passes/passes.h"
#include "utils/mem.h"

void be_options_default(BackendOptions *o) {
  o->kind = BE_NVVM;
  o->arch = 90;
  o->arch_feature = 0;
  o->opt = 3;
  o->fastmath = false;
  o->lineinfo = false;
  o->debuginfo = false;
  o->lto = false;
}

void be_tables_free(BackendTables *t) {
  if (!t) return;
  for (unsigned i = 0; i < t->nkernels && t->kernels; i++) mem_free(t->kernels[i]);
  for (unsigned i = 0; i < t->nfiles && t->files; i++) mem_free(t->files[i]);
  mem_free(t->kernels);
  mem_free(t->files);
  t->kernels = t->files = NULL;
  t->nkernels = t->nfiles = 0;
}

void be_dispose_context(void *ctx) { LLVMContextDispose(ctx); }

/* One compile: what it reads, and what it makes (handed over by the entry point when it succeeds). */
typedef struct BeJob {
  Module *m;
  const BackendOptions *o;
  Diag *diag;
  bool ptx;              /* to PTX; else LLVM IR text */
  bool want_tables;
  StrBuf out;
  BackendTables tables;
  BeStatus st;
} BeJob;

static void emit_llvm(BeJob *j, LLVMContextRef ctx) {
  int version[4] = {2, 0, 3, 2};
  if (j->o->kind == BE_NVVM) nvvm_ir_version(version);
  LLVMModuleRef mod = be_lower_module(j->m, ctx, j->o, version, j->want_tables ? &j->tables : NULL, j->diag);
  if (mod) {
    be_print_module(mod, j->o->kind, &j->out);
    LLVMDisposeModule(mod);
  }
  j->st = mod ? BE_OK : BE_UNSUPPORTED;
}

static void compile_ptx(BeJob *j, LLVMContextRef ctx) {
  const BackendOptions *o = j->o;
  BackendTables *tables = j->want_tables ? &j->tables : NULL;
  j->st = BE_UNSUPPORTED;
  if (o->kind == BE_NVVM) {
    if (!nvvm_load(j->diag)) {
      j->st = BE_NOT_FOUND;
      return;
    }
    int version[4];
    nvvm_ir_version(version);
    LLVMModuleRef mod = be_lower_module(j->m, ctx, o, version, tables, j->diag);
    if (mod) {
      StrBuf ir;
      sb_init(&ir);
      be_print_module(mod, BE_NVVM, &ir);
      LLVMDisposeModule(mod);
      j->st = nvvm_compile(sb_cstr(&ir), ir.len, o, &j->out, j->diag);
      sb_free(&ir);
    }
  } else if (o->lto) {
    diag_error(j->diag, (SrcLoc){0}, "LTO-IR is libNVVM's: the LLVM backend (LLVM's NVPTX target) makes PTX only");
  } else if (o->arch_feature) {
    diag_error(j->diag, (SrcLoc){0}, "sm_%u%c is libNVVM's: the LLVM backend (LLVM 14's NVPTX target) has no "
               "architecture-specific targets (use the libNVVM backend, or sm_%u)", o->arch, o->arch_feature, o->arch);
  } else {
    LLVMModuleRef mod = be_lower_module(j->m, ctx, o, (const int[4]){2, 0, 3, 2}, tables, j->diag);
    if (mod) j->st = nvptx_compile(mod, ctx, o, &j->out, j->diag);
  }
}

static void run_job(void *arg) {
  BeJob *j = arg;
  Module *given = j->m;
  j->m = lower_for_execution(given, j->diag);
  if (!j->m) { /* lower-complex failed (reported) */
    j->st = BE_UNSUPPORTED;
    j->m = given;
    return;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  mem_guard_defer(be_dispose_context, ctx);  /* with it, every module made in it */
  if (j->ptx) compile_ptx(j, ctx);
  else emit_llvm(j, ctx);
  mem_guard_undefer(be_dispose_context, ctx);
  LLVMContextDispose(ctx);
  if (j->m != given) ir_module_free(j->m);
  j->m = given;
}

/* Whether every kernel of m (tiled variants aside) was compiled with fastmath (cuda.jit(fastmath=True): the attribute
 * fastmath). Then the compile's NVVM flags are fastmath's (ftz, -prec-div=0, -prec-sqrt=0), as numba-cuda gives a
 * kernel its own option's; BackendOptions.fastmath asks for them in any case. The fast forms of math are each
 * function's own (lower_llvm_arith.c). */
static bool kernels_ask_fastmath(Module *m) {
  unsigned kernels = 0;
  for (const Op *op = ir_module_body(m)->first; op; op = op->next) {
    if (op->kind != OP_FUNC_FUNC || !ir_op_attr(op, "kernel") || ir_op_attr(op, "variant_of")) continue;
    if (!ir_op_attr(op, "fastmath")) return false;
    kernels++;
  }
  return kernels > 0;
}

static BeStatus run(Module *m, const BackendOptions *o, bool ptx, StrBuf *out, BackendTables *tables, Diag *diag) {
  BackendOptions effective = *o;
  if (!effective.fastmath && kernels_ask_fastmath(m)) effective.fastmath = true;
  BeJob j = {.m = m, .o = &effective, .diag = diag, .ptx = ptx, .want_tables = tables != NULL};
  sb_init(&j.out);
  if (!diag_guard(diag, run_job, &j)) return BE_OUT_OF_MEMORY;
  if (j.st == BE_OK) {
    if (!out->data) {
      *out = j.out;
    } else {
      sb_putn(out, sb_cstr(&j.out), j.out.len);
      sb_free(&j.out);
      if (sb_failed(out)) {
        diag_out_of_memory(diag);
        j.st = BE_OUT_OF_MEMORY;
      }
    }
  } else {
    sb_free(&j.out);
  }
  if (tables && j.st == BE_OK) *tables = j.tables;
  else be_tables_free(&j.tables);
  return j.st;
}

BeStatus be_emit_llvm(Module *m, const BackendOptions *o, StrBuf *out, BackendTables *tables, Diag *diag) {
  return run(m, o, false, out, tables, diag);
}

BeStatus be_compile_ptx(Module *m, const BackendOptions *o, StrBuf *out, BackendTables *tables, Diag *diag) {
  return run(m, o, true, out, tables, diag);
}
