/* api_extern.c — extern device functions from the builder (kir.h's KF_FUNCTION_FLAG_EXTERN):
 *
 *  declare   a kernel built with kf_build_call of `scale3`, declared extern (float scale3(float)): it verifies, the
 *            declaration has no body (kf_function_entry NULL, flags read back), and kf_module_emit_ptx leaves it an
 *            `.extern .func` the kernel calls;
 *  link      kf_module_emit_lto_ptx links it with CUDA C defining it (NVRTC to LTO-IR, nvJitLink, no GPU needed): the
 *            call is resolved, scale3's code (its fma by 3 and 0.5) inlined into the kernel; with a link input that
 *            defines no scale3 the call stays, to an `.extern .func`;
 *  simulator a program of the module on the simulator refuses the launch, the diagnostic located at the call;
 *  refuse    an extern kernel, an array parameter, two results.
 * The link needs NVRTC, nvJitLink and libNVVM: without them the link checks are skipped, unless KFRONT_REQUIRE_PTXAS
 * is set (ctest sets it), where their absence fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kir.h"
#include "runtime_test.h"

#define OK(call) CHECK((call) == KF_OK)

static char diags[16384];
static void on_diag(void *user, int level, const char *text) {
  (void)user;
  (void)level;
  strncat(diags, text, sizeof diags - strlen(diags) - 1);
}

static kf_location at(unsigned line, unsigned col) { return (kf_location){"ext.kl", line, col}; }

static const char CU[] = "extern \"C\" __device__ float scale3(float x) { return x * 3.0f + 0.5f; }\n";
static const char CU_OTHER[] = "extern \"C\" __device__ float other(float x) { return x; }\n";

/* kernel k(a: f32[:]) { a[tid] = scale3(a[tid]); } with scale3 extern. */
static kf_module *build(kf_context *ctx) {
  kf_module *m = NULL;
  kf_builder *b = NULL;
  OK(kf_module_create(ctx, "ext.kl", &m));
  OK(kf_builder_create(m, &b));
  kf_type *f32 = NULL, *i64 = NULL, *arr = NULL, *scale_ty = NULL, *k_ty = NULL;
  OK(kf_type_scalar(ctx, KF_FLOAT32, &f32));
  OK(kf_type_scalar(ctx, KF_INT64, &i64));
  OK(kf_type_array(ctx, f32, 1, 'C', &arr));
  OK(kf_type_function(ctx, 1, &f32, 1, &f32, &scale_ty));
  OK(kf_type_function(ctx, 1, &arr, 0, NULL, &k_ty));
  kf_op *scale = NULL, *k = NULL, *call = NULL;
  OK(kf_builder_set_location(b, at(1, 1)));
  OK(kf_build_function(b, "scale3", scale_ty, KF_FUNCTION_FLAG_DEVICE | KF_FUNCTION_FLAG_EXTERN, &scale));
  CHECK(scale && kf_function_entry(scale) == NULL && kf_builder_insertion_block(b) == NULL);
  CHECK(kf_function_flags(scale) == (KF_FUNCTION_FLAG_DEVICE | KF_FUNCTION_FLAG_EXTERN));
  OK(kf_builder_set_location(b, at(3, 1)));
  OK(kf_build_function(b, "k", k_ty, KF_FUNCTION_FLAG_KERNEL, &k));
  kf_ir_value *a = kf_block_arg(kf_function_entry(k), 0), *tid = NULL, *i = NULL, *x = NULL;
  OK(kf_build_gpu_index(b, "gpu.thread_id", 0, &tid));
  OK(kf_build_cast(b, tid, i64, &i));
  OK(kf_build_load(b, a, 1, &i, &x));
  OK(kf_builder_set_location(b, at(4, 12)));
  OK(kf_build_call(b, "scale3", 1, &x, 1, &f32, &call));
  OK(kf_builder_set_location(b, at(4, 3)));
  OK(kf_build_store(b, kf_op_result(call, 0), a, 1, &i));
  OK(kf_build_return(b, 0, NULL));
  OK(kf_builder_finish(b));
  kf_builder_destroy(b);
  OK(kf_module_verify(m));
  return m;
}

static void test_declare_and_link(kf_context *ctx) {
  kf_module *m = build(ctx);
  char *text = NULL;
  OK(kf_module_print(m, 0, &text, NULL));
  CHECK_CONTAINS(text, "{sym_name = @scale3, function_type = (f32) -> (f32), device, foreign}");
  kf_free(text);
  kf_codegen_options co;
  kf_codegen_options_init(&co);
  char *ptx = NULL;
  size_t len = 0;
  diags[0] = 0;
  kf_status st = kf_module_emit_ptx(m, &co, &ptx, &len);
  const int required = getenv("KFRONT_REQUIRE_PTXAS") != NULL;
  if (st == KF_ERROR_NOT_FOUND && !required) {
    printf("SKIP api_extern's PTX and link checks: no libNVVM\n");
    kf_module_destroy(m);
    return;
  }
  CHECK_MSG(st == KF_OK, "%s", diags);
  CHECK_CONTAINS(ptx, ".extern .func  (.param .b32 func_retval0) scale3");
  CHECK_CONTAINS(ptx, "call.uni");
  kf_free(ptx);
  ptx = NULL;

  kf_link_input in = {KF_LINK_CU, "scale3.cu", CU, strlen(CU)};
  diags[0] = 0;
  st = kf_module_emit_lto_ptx(m, &co, &in, 1, NULL, 0, &ptx, &len);
  if (st == KF_ERROR_NOT_FOUND && !required) {
    printf("SKIP api_extern's link checks: no NVRTC or nvJitLink\n");
  } else {
    CHECK_MSG(st == KF_OK, "%s", diags);
    CHECK_CONTAINS(ptx, ".visible .entry k(");
    CHECK_CONTAINS(ptx, "fma.rn.f32");           /* scale3's code, in the kernel */
    CHECK_CONTAINS(ptx, "0f40400000");           /* 3.0f */
    CHECK_CONTAINS(ptx, "0f3F000000");           /* 0.5f */
    CHECK_MSG(ptx && !strstr(ptx, "scale3") && !strstr(ptx, "call"), "the call resolved and inlined:\n%s", ptx);
    kf_free(ptx);
    ptx = NULL;
    kf_link_input other = {KF_LINK_CU, "other.cu", CU_OTHER, strlen(CU_OTHER)};
    diags[0] = 0;
    st = kf_module_emit_lto_ptx(m, &co, &other, 1, NULL, 0, &ptx, &len);
    CHECK_MSG(st == KF_OK, "%s", diags);  /* an LTO PTX may keep externs: the symbol stays unresolved, called */
    CHECK_CONTAINS(ptx, ".extern .func  (.param .b32 func_retval0) scale3");
    CHECK_CONTAINS(ptx, "call");
    kf_free(ptx);
  }
  kf_module_destroy(m);
}

static void test_simulator(kf_context *ctx) {
  kf_module *m = build(ctx);
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  OK(kf_runtime_create(ctx, &o, &rt));
  kf_program *p = NULL;
  if (rt) OK(kf_program_from_module(rt, m, &p));
  kf_function *f = NULL;
  if (p) OK(kf_program_get_function(p, "k", &f));
  float data[4] = {1, 2, 3, 4};
  int64_t n = 4;
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  kf_arg args[1] = {kf_arg_array(&a)};
  unsigned g[3] = {1, 1, 1}, bl[3] = {4, 1, 1};
  diags[0] = 0;
  kf_context_clear_diagnostics(ctx);
  CHECK(f && kf_function_launch(f, g, bl, 0, NULL, args, 1) != KF_OK);
  CHECK_CONTAINS(diags, "ext.kl:4:12: error: simulator: 'scale3' is a foreign device function");
  CHECK(data[0] == 1 && data[3] == 4);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_module_destroy(m);
}

static void test_refuse(kf_context *ctx) {
  kf_module *m = NULL;
  kf_builder *b = NULL;
  OK(kf_module_create(ctx, "bad.kl", &m));
  OK(kf_builder_create(m, &b));
  kf_type *f32 = NULL, *arr = NULL, *k_ty = NULL, *two = NULL;
  OK(kf_type_scalar(ctx, KF_FLOAT32, &f32));
  OK(kf_type_array(ctx, f32, 1, 'C', &arr));
  OK(kf_type_function(ctx, 1, &arr, 0, NULL, &k_ty));
  kf_type *res[2] = {f32, f32};
  OK(kf_type_function(ctx, 0, NULL, 2, res, &two));
  kf_op *f = NULL;
  diags[0] = 0;
  CHECK(kf_build_function(b, "x", k_ty, KF_FUNCTION_FLAG_KERNEL | KF_FUNCTION_FLAG_EXTERN, &f) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "function 'x': an extern function is a device function, not a kernel");
  CHECK(kf_build_function(b, "y", k_ty, KF_FUNCTION_FLAG_EXTERN, &f) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "extern function 'y': parameter 1 is array<f32, 1, C>; an extern function takes and returns "
                        "numbers, booleans and pointers");
  CHECK(kf_build_function(b, "z", two, KF_FUNCTION_FLAG_EXTERN, &f) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "extern function 'z': a C function returns at most one value, not 2");
  CHECK(kf_build_function(b, "w", k_ty, 8, &f) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "function 'w': unknown flags 0x8");
  kf_builder_destroy(b);
  kf_module_destroy(m);
}

int main(void) {
  kf_context *ctx = kf_context_create();
  kf_context_set_diagnostic_handler(ctx, on_diag, NULL);
  test_declare_and_link(ctx);
  test_simulator(ctx);
  test_refuse(ctx);
  kf_context_destroy(ctx);
  return test_result("api_extern");
}
