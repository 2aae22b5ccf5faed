/* runtime_driver.c — runtime/cuda_driver.c without a GPU: a missing or unusable libcuda fails cleanly with
 * "no CUDA driver found (...)" (never a crash), through the internal loader and the public API (GPU mode
 * fails, AUTO falls back to the simulator and says why); driver error texts name the call, the error name
 * and its description. The driver path (the option the tools fill from $KFRONT_LIBCUDA) names a file that
 * does not exist, and the library ignores KFRONT_SIM in the environment. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfront/kfront.h"
#include "runtime/cuda_driver.h"
#include "runtime_test.h"

#define BOGUS "/nonexistent/kfront-test/libcuda.so.1"

static CUresult fake_name(CUresult r, const char **s) {
  if (r == CUDA_ERROR_INVALID_VALUE) *s = "CUDA_ERROR_INVALID_VALUE";
  else if (r == CUDA_ERROR_NO_DEVICE) *s = "CUDA_ERROR_NO_DEVICE";
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

static CUresult fake_string(CUresult r, const char **s) {
  if (r == CUDA_ERROR_INVALID_VALUE) *s = "invalid argument";
  else if (r == CUDA_ERROR_NO_DEVICE) *s = "no CUDA-capable device is detected";
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

static void test_error_text(void) {
  RtCuda t;
  memset(&t, 0, sizeof t);
  t.cuGetErrorName = fake_name;
  t.cuGetErrorString = fake_string;
  StrBuf b;
  sb_init(&b);
  rt_cu_error_text(&t, CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel", &b);
  CHECK(strcmp(sb_cstr(&b), "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)") == 0);
  sb_reset(&b);
  rt_cu_error_text(&t, 999, "cuMemAlloc", &b);
  CHECK(strcmp(sb_cstr(&b), "cuMemAlloc failed: CUDA error 999 (unknown to this driver)") == 0);
  sb_free(&b);

  Diag d;
  diag_init(&d);
  CHECK(rt_cu_check(&t, CUDA_SUCCESS, "cuInit", &d) && d.nerrors == 0);
  CHECK(!RT_CU(&t, &d, cuGetErrorName, CUDA_ERROR_NO_DEVICE + 1, NULL) && d.nerrors == 1);
  CHECK_CONTAINS(diag_text(&d), "kfront: error: cuGetErrorName failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
  diag_free(&d);
}

static void test_open_failures(void) {
  RtCuda t;
  StrBuf err;
  sb_init(&err);
  CHECK(!rt_cuda_open(&t, BOGUS, &err));
  CHECK_CONTAINS(sb_cstr(&err), "no CUDA driver found (" BOGUS "): ");
  CHECK(t.lib == NULL && t.cuInit == NULL);
  /* a real library that is not a CUDA driver */
  sb_reset(&err);
  CHECK(!rt_cuda_open(&t, "libm.so.6", &err));
  CHECK_CONTAINS(sb_cstr(&err), "no CUDA driver found (libm.so.6): the library lacks cuInit");
  sb_free(&err);

  /* the toolkit's stub libcuda, where there is one: it loads, but cuInit fails with a clear text */
  const char *stubs[] = {"/usr/local/cuda/lib64/stubs/libcuda.so", "/usr/local/cuda/lib/stubs/libcuda.so"};
  for (size_t i = 0; i < 2; i++) {
    if (access(stubs[i], R_OK) != 0) continue;
    sb_init(&err);
    if (rt_cuda_open(&t, stubs[i], &err)) {
      CUresult r = t.cuInit(0);
      CHECK(r != CUDA_SUCCESS);
      StrBuf text;
      sb_init(&text);
      rt_cu_error_text(&t, r, "cuInit", &text);
      CHECK_CONTAINS(sb_cstr(&text), "cuInit failed: ");
      printf("stub driver %s: %s\n", stubs[i], sb_cstr(&text));
      sb_free(&text);
      rt_cuda_close(&t);
    } else {
      printf("stub driver %s: %s\n", stubs[i], sb_cstr(&err));
    }
    sb_free(&err);
    break;
  }
}

static void test_process_driver(void) {
  CHECK(strcmp(rt_cuda_library_name(BOGUS), BOGUS) == 0);
  CHECK(strcmp(rt_cuda_library_name(NULL), "libcuda.so.1") == 0);
  CHECK(strcmp(rt_cuda_library_name(""), "libcuda.so.1") == 0);
  Diag d;
  diag_init(&d);
  CHECK(rt_cuda(BOGUS, &d) == NULL);
  CHECK(rt_cuda(NULL, NULL) == NULL);  /* the same answer, once loaded: one driver per process */
  CHECK_CONTAINS(diag_text(&d), "kfront: error: no CUDA driver found (" BOGUS "): ");
  CHECK_CONTAINS(rt_cuda_failure(), "no CUDA driver found (" BOGUS ")");
  diag_free(&d);
}

static void test_public_api(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.libcuda_path = BOGUS;
  kf_runtime *rt = (kf_runtime *)1;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_ERROR_NOT_FOUND && rt == NULL);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no CUDA driver found (" BOGUS "): ");
  CHECK(kf_context_error_count(ctx) == 1);
  kf_context_clear_diagnostics(ctx);

  /* AUTO: the simulator, saying why, and no error */
  o.mode = KF_RUNTIME_AUTO;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK(kf_runtime_get_mode(rt) == KF_RUNTIME_SIM);
  CHECK_CONTAINS(kf_runtime_describe(rt), "simulator (no CUDA driver found (" BOGUS "): ");
  CHECK(kf_context_error_count(ctx) == 0);
  kf_device_info info;
  CHECK(kf_runtime_device_info(rt, &info) == KF_OK && info.max_threads_per_block == 1024 && info.cc_major == 9);
  kf_runtime_destroy(rt);

  o.mode = KF_RUNTIME_SIM;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK(strcmp(kf_runtime_describe(rt), "simulator") == 0);
  kf_runtime_destroy(rt);

  /* the library reads no environment: KFRONT_SIM is the tools' business */
  setenv("KFRONT_SIM", "1", 1);
  o.mode = KF_RUNTIME_AUTO;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK_CONTAINS(kf_runtime_describe(rt), "simulator (no CUDA driver found (" BOGUS "): ");
  kf_runtime_destroy(rt);
  unsetenv("KFRONT_SIM");

  kf_runtime_options_init(&o);
  o.mode = (kf_runtime_mode)7;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_ERROR_INVALID_INPUT && rt == NULL);
  kf_context_clear_diagnostics(ctx);
  kf_context_destroy(ctx);
}

int main(void) {
  test_error_text();
  test_open_failures();
  test_process_driver();
  test_public_api();
  return test_result("runtime_driver");
}
