/* fuzz_frontend.c — libFuzzer harness: Python source through the whole compiler to LLVM IR.
 *
 * The input is a Python module (with optional `#@ NAME SIGNATURE` lines naming kernels to compile, see
 * fuzz_common.h); it goes through kf_compile_source (parser, typing, lowering, verifier, the default
 * pipeline) and, when that succeeds, kf_module_emit_llvm. Any input must give a module or a diagnostic:
 * a crash, a sanitizer report, a leak, or a failure with no error reported is a finding. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "kfront/kfront.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzDirectives d;
  fuzz_directives_read(&d, data, size);
  if (!d.text || !d.buf) {
    fuzz_directives_free(&d);
    return 0;
  }
  kf_context *ctx = kf_context_create();
  kf_compile_options co;
  fuzz_compile_options(&d, &co);
  kf_module *m = NULL;
  kf_status st = kf_compile_source(ctx, "fuzz.py", d.text, size, &co, &m);
  if (st == KF_OK) {
    kf_codegen_options cg;
    kf_codegen_options_init(&cg);
    char *ir = NULL;
    st = kf_module_emit_llvm(m, &cg, &ir, NULL);
    kf_free(ir);
  }
  /* a failure is always said */
  if (st != KF_OK && kf_context_error_count(ctx) == 0) __builtin_trap();
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  fuzz_directives_free(&d);
  return 0;
}
