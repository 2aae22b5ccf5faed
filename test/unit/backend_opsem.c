/* backend_opsem.c — the backend lowers every op of ir/op_semantics.h in every signature: the cases of
 * test/unit/opsem_cases.h (the ones test/unit/sim_opsem.c runs on the simulator and test/gpu/backend_gpu.c on the
 * GPU against the same definitions), one kernel each, in one module compiled to PTX through both backends
 * (libNVVM and LLVM's NVPTX), which `ptxas -arch=sm_90` must accept. A missing ptxas or libNVVM is a failure
 * under ctest (KFRONT_REQUIRE_PTXAS=1), else a SKIP. */
#include "backend_test.h"
#include "kfront/kfront.h"
#include "opsem_cases.h"

typedef struct Cases {
  StrBuf text;
  unsigned n;
} Cases;

static void add_case(OpKind k, unsigned n, const char *const *ops, const char *rt, const char *pred, void *user) {
  Cases *c = user;
  char name[32];
  snprintf(name, sizeof name, "k%u", c->n);
  StrBuf t;
  sb_init(&t);
  opsem_kernel_text(&t, name, k, n, ops, rt, pred);
  /* signatures the verifier refuses are no case */
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  bool valid = kf_module_parse(ctx, "case.kir", sb_cstr(&t), t.len, &m) == KF_OK && kf_module_verify(m) == KF_OK;
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  if (valid) {
    sb_putn(&c->text, sb_cstr(&t), t.len);
    c->n++;
  }
  sb_free(&t);
}

int main(void) {
  Cases c = {.n = 0};
  sb_init(&c.text);
  opsem_for_each_case(add_case, &c);
  char *ptxas = bt_find_ptxas();
  bool require = bt_require();
  int fails = 0;
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  if (kf_module_parse(ctx, "opsem.kir", sb_cstr(&c.text), c.text.len, &m) != KF_OK || kf_module_verify(m) != KF_OK) {
    printf("FAIL: the cases' module does not load:\n%s\n", kf_context_diagnostics(ctx));
    return 1;
  }
  for (int b = 0; b < 2; b++) {
    kf_codegen_options o;
    kf_codegen_options_init(&o);
    o.backend = b ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
    char *ptx = NULL;
    kf_status st = kf_module_emit_ptx(m, &o, &ptx, NULL);
    const char *bname = b ? "llvm" : "nvvm";
    if (st == KF_ERROR_NOT_FOUND && !require) {
      printf("SKIP [%s]: libNVVM not found\n", bname);
      continue;
    }
    if (st != KF_OK) {
      printf("FAIL [%s]: %u kernels do not compile:\n%s\n", bname, c.n, kf_context_diagnostics(ctx));
      fails++;
      continue;
    }
    if (ptxas) {
      char *log = NULL;
      if (!bt_ptxas(ptxas, ptx, 90, &log)) {
        printf("FAIL [%s]: ptxas -arch=sm_90 rejects the PTX:\n%s\n", bname, log ? log : "");
        fails++;
      }
      free(log);
    } else if (require) {
      printf("FAIL: no ptxas\n");
      fails++;
    }
    kf_free(ptx);
  }
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  free(ptxas);
  sb_free(&c.text);
  printf("backend_opsem: %u kernels through both backends, %d failure%s\n", c.n, fails, fails == 1 ? "" : "s");
  return fails ? 1 : 0;
}
