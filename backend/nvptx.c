/* nvptx.c — the second backend: LLVM 14's own NVPTX target (`--backend=llvm`).
 *
 * From the LLVM IR lower_llvm.c builds for BE_LLVM: libdevice is linked in when the module calls __nv_*
 * (LLVMParseBitcodeInContext2 + LLVMLinkModules2), every function but the kernels is internalized,
 * libdevice's llvm.nvvm.round (which LLVM 14's NVPTX lowers as llvm.round) is mapped to llvm.rint,
 * __nvvm_reflect calls are folded here (__CUDA_FTZ from fastmath, __CUDA_PREC_SQRT/__CUDA_PREC_DIV
 * = !fastmath, __CUDA_ARCH = arch * 10; LLVM 14's own NVVMReflect only knows FTZ and ARCH, and the
 * "nvvm-reflect-ftz" module flag is set too), the legacy pass manager runs PassManagerBuilder's -O<n>
 * pipeline with the target's TTI, and LLVMTargetMachineEmitToMemoryBuffer prints PTX.
 * LLVM 14 knows SM versions up to sm_86 and PTX up to 7.5: a newer --arch (sm_90) is compiled for the
 * newest it knows (`.target sm_86`, `.version 7.5`), which the driver JIT-compiles for the newer GPU.
 * Runs under the backend's guard (backend.c): the target machine, messages and buffers LLVM hands out are
 * registered with it while they live. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/IPO.h>
#include <llvm-c/Transforms/PassManagerBuilder.h>

#include "backend/backend.h"
#include "utils/mem.h"

static pthread_once_t targets_once = PTHREAD_ONCE_INIT;

/* Under the backend's guard (backend.c), what LLVM allocated is registered while it lives: an allocation
 * failure of ours disposes of it. Modules go with their context (registered by backend.c). */
static void dispose_message(void *m) { LLVMDisposeMessage(m); }
static void dispose_tm(void *tm) { LLVMDisposeTargetMachine(tm); }
static void dispose_buffer(void *b) { LLVMDisposeMemoryBuffer(b); }

static void init_targets(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

/* The newest SM version LLVM 14 knows that is not newer than arch. */
static unsigned llvm_sm(unsigned arch) {
  static const unsigned known[] = {20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86};
  unsigned best = 20;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (known[i] <= arch) best = known[i];
  return best;
}

static bool calls_libdevice(LLVMModuleRef mod) {
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (LLVMIsDeclaration(f) && n > 5 && strncmp(name, "__nv_", 5) == 0) return true;
  }
  return false;
}

/* Replaces each __nvvm_reflect("NAME") call by its value. */
static void resolve_reflect(LLVMModuleRef mod, LLVMContextRef ctx, const BackendOptions *o) {
  LLVMValueRef fn = LLVMGetNamedFunction(mod, "__nvvm_reflect");
  if (!fn) return;
  unsigned n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) n++;
  LLVMValueRef *calls = mem_alloc(sizeof *calls * (n ? n : 1));
  n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) calls[n++] = LLVMGetUser(u);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef c = calls[i];
    if (!LLVMIsACallInst(c)) continue;
    LLVMValueRef arg = LLVMGetOperand(c, 0);
    while (arg && LLVMIsAConstantExpr(arg)) arg = LLVMGetOperand(arg, 0);
    const char *s = NULL;
    size_t len = 0;
    if (arg && LLVMIsAGlobalVariable(arg)) {
      LLVMValueRef init = LLVMGetInitializer(arg);
      if (init && LLVMIsAConstantDataSequential(init) && LLVMIsConstantString(init)) s = LLVMGetAsString(init, &len);
    }
    int value = 0;
    if (s) {
      if (strncmp(s, "__CUDA_FTZ", len) == 0 && len >= 10) value = o->fastmath;
      else if (strncmp(s, "__CUDA_PREC_SQRT", len) == 0 && len >= 16) value = !o->fastmath;
      else if (strncmp(s, "__CUDA_PREC_DIV", len) == 0 && len >= 15) value = !o->fastmath;
      else if (strncmp(s, "__CUDA_ARCH", len) == 0 && len >= 11) value = (int)(o->arch ? o->arch : 90) * 10;
    }
    LLVMReplaceAllUsesWith(c, LLVMConstInt(i32, (unsigned long long)value, 0));
    LLVMInstructionEraseFromParent(c);
  }
  mem_free(calls);
}

/* libdevice's llvm.nvvm.round.{f,ftz.f,d} round half to even (cvt.rni), but LLVM 14's NVPTX lowers them as
 * llvm.round (half away from zero): __nv_rint, __nv_nearbyint and the range reductions of erf, tanh, tgamma,
 * powf, ... would differ from libNVVM's. Map them to llvm.rint, which NVPTX lowers to cvt.rni. */
static void fix_nvvm_round(LLVMModuleRef mod) {
  static const char *pairs[][2] = {{"llvm.nvvm.round.f", "llvm.rint.f32"}, {"llvm.nvvm.round.ftz.f", "llvm.rint.f32"},
                                   {"llvm.nvvm.round.d", "llvm.rint.f64"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    LLVMValueRef old = LLVMGetNamedFunction(mod, pairs[i][0]);
    if (!old) continue;
    LLVMValueRef rint = LLVMGetNamedFunction(mod, pairs[i][1]);
    if (!rint) rint = LLVMAddFunction(mod, pairs[i][1], LLVMGlobalGetValueType(old));
    LLVMReplaceAllUsesWith(old, rint);
    LLVMDeleteFunction(old);
  }
}

static BeStatus link_libdevice(LLVMModuleRef mod, LLVMContextRef ctx, const BackendOptions *o, Diag *diag) {
  size_t len = 0;
  const char *bytes = nvvm_libdevice(&len, diag);
  if (!bytes) return BE_NOT_FOUND;
  /* the functions defined before linking (kernels, device functions) keep their linkage */
  unsigned nkeep = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) nkeep++;
  LLVMValueRef *keep = mem_alloc(sizeof *keep * (nkeep ? nkeep : 1));
  nkeep = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) keep[nkeep++] = f;
  /* Read lazily (the module owns the buffer, which only points at the loaded bytes). Only the functions the
   * module calls stay external; the linker pulls in local ones only when something it links refers to them,
   * so just those function bodies are ever read. */
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(bytes, len, "libdevice.10.bc", 0);
  LLVMModuleRef lib = NULL;
  bool ok = !LLVMGetBitcodeModuleInContext2(ctx, buf, &lib);
  if (ok) {
    for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f)) {
      size_t n;
      const char *name = LLVMGetValueName2(f, &n);
      if (!LLVMIsDeclaration(f) && !LLVMGetNamedFunction(mod, name)) LLVMSetLinkage(f, LLVMInternalLinkage);
    }
  }
  if (!ok) {
    diag_error(diag, (SrcLoc){0}, "backend: cannot read libdevice's bitcode");
    mem_free(keep);
    return BE_FAILED;
  }
  LLVMSetTarget(lib, LLVMGetTarget(mod));
  LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(mod));
  if (LLVMLinkModules2(mod, lib)) {
    diag_error(diag, (SrcLoc){0}, "backend: linking libdevice failed");
    mem_free(keep);
    return BE_FAILED;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || LLVMGetLinkage(f) == LLVMInternalLinkage || LLVMGetLinkage(f) == LLVMPrivateLinkage)
      continue;
    bool kept = false;
    for (unsigned i = 0; i < nkeep && !kept; i++) kept = keep[i] == f;
    if (!kept) LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  mem_free(keep);
  resolve_reflect(mod, ctx, o);
  fix_nvvm_round(mod);
  return BE_OK;
}

BeStatus nvptx_compile(LLVMModuleRef mod, LLVMContextRef ctx, const BackendOptions *o, StrBuf *ptx, Diag *diag) {
  pthread_once(&targets_once, init_targets);
  int opt = o->opt < 0 ? 3 : o->opt > 3 ? 3 : o->opt;
  LLVMAddModuleFlag(mod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), o->fastmath ? 1 : 0, 0)));
  if (calls_libdevice(mod)) {
    BeStatus st = link_libdevice(mod, ctx, o, diag);
    if (st != BE_OK) {
      LLVMDisposeModule(mod);
      return st;
    }
  }
  const char *triple = LLVMGetTarget(mod);
  LLVMTargetRef target = NULL;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    mem_guard_defer(dispose_message, err);
    diag_error(diag, (SrcLoc){0}, "backend: LLVM has no NVPTX target: %s", err ? err : "");
    mem_guard_undefer(dispose_message, err);
    LLVMDisposeMessage(err);
    LLVMDisposeModule(mod);
    return BE_FAILED;
  }
  char cpu[16];
  snprintf(cpu, sizeof cpu, "sm_%u", llvm_sm(o->arch ? o->arch : 90));
  LLVMCodeGenOptLevel level = opt == 0 ? LLVMCodeGenLevelNone : opt == 1 ? LLVMCodeGenLevelLess
                            : opt == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive;
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, "+ptx75", level, LLVMRelocDefault,
                                                    LLVMCodeModelDefault);
  mem_guard_defer(dispose_tm, tm);
  LLVMPassManagerRef pm = LLVMCreatePassManager();
  LLVMAddAnalysisPasses(tm, pm);
  if (opt > 0) {
    LLVMPassManagerBuilderRef pmb = LLVMPassManagerBuilderCreate();
    LLVMPassManagerBuilderSetOptLevel(pmb, (unsigned)opt);
    LLVMPassManagerBuilderUseInlinerWithThreshold(pmb, opt >= 3 ? 275 : 225);
    LLVMPassManagerBuilderPopulateModulePassManager(pmb, pm);
    LLVMPassManagerBuilderDispose(pmb);
  } else {
    LLVMAddAlwaysInlinerPass(pm);
    LLVMAddGlobalDCEPass(pm);
  }
  LLVMRunPassManager(pm, mod);
  LLVMDisposePassManager(pm);
  LLVMMemoryBufferRef out = NULL;
  bool ok = !LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &out);
  if (!ok) {
    mem_guard_defer(dispose_message, err);
    diag_error(diag, (SrcLoc){0}, "backend: LLVM's NVPTX target failed: %s", err ? err : "");
    mem_guard_undefer(dispose_message, err);
    LLVMDisposeMessage(err);
  } else {
    mem_guard_defer(dispose_buffer, out);
    sb_putn(ptx, LLVMGetBufferStart(out), LLVMGetBufferSize(out));
    mem_guard_undefer(dispose_buffer, out);
    LLVMDisposeMemoryBuffer(out);
  }
  mem_guard_undefer(dispose_tm, tm);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(mod);
  return ok ? BE_OK : BE_FAILED;
}
