/* api_intrinsic.c — embedder intrinsics (kir.h's kf_intrinsic_register, kf_build_intrinsic):
 *
 *  simulator  a kernel built with two libdevice intrinsics, bitrev (i32 -> i32 as __nv_brev) and fast_rsqrt
 *             (f32 -> f32 as __nv_rsqrtf), run on the simulator through kf_program_from_module and
 *             kf_function_launch: bit reversals exact, reciprocal square roots within 2 ulps of 1/sqrt;
 *  text       the module prints them as math.libdevice ops and the text parses back to the same text;
 *  ptx        kf_module_emit_ptx: libdevice's code for both in the kernel (brev.b32, rsqrt.approx), accepted by
 *             `ptxas -arch=sm_90`;
 *  register   every refusal of kf_intrinsic_register, located at the descriptor's location;
 *  build      every refusal of kf_build_intrinsic, located at the builder's location.
 * libNVVM and ptxas are required under ctest (KFRONT_REQUIRE_PTXAS); elsewhere their absence skips the PTX checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_test.h"
#include "kfront/kir.h"
#include "runtime_test.h"

#define OK(call) CHECK((call) == KF_OK)

static char diags[16384];
static void on_diag(void *user, int level, const char *text) {
  (void)user;
  (void)level;
  strncat(diags, text, sizeof diags - strlen(diags) - 1);
}

static kf_location at(unsigned line, unsigned col) { return (kf_location){"intr.kl", line, col}; }

static kf_type *scalar(kf_context *ctx, kf_dtype d) {
  kf_type *t = NULL;
  OK(kf_type_scalar(ctx, d, &t));
  return t;
}

static kf_status reg(kf_context *ctx, const char *name, kf_type *param, kf_type *result, const char *fn,
                     unsigned line) {
  kf_intrinsic_desc d;
  kf_intrinsic_desc_init(&d);
  d.name = name;
  d.nparams = 1;
  d.params = &param;
  d.result = result;
  d.lowering = KF_INTRINSIC_LIBDEVICE;
  d.libdevice = fn;
  d.loc = at(line, 1);
  return kf_intrinsic_register(ctx, &d);
}

/* kernel k(a: i32[:], x: f32[:]) { i = tid; a[i] = bitrev(a[i]); x[i] = fast_rsqrt(x[i]); } */
static kf_module *build(kf_context *ctx) {
  kf_module *m = NULL;
  kf_builder *b = NULL;
  OK(kf_module_create(ctx, "intr.kl", &m));
  OK(kf_builder_create(m, &b));
  kf_type *i32 = scalar(ctx, KF_INT32), *f32 = scalar(ctx, KF_FLOAT32), *i64 = scalar(ctx, KF_INT64);
  kf_type *ai = NULL, *af = NULL, *k_ty = NULL;
  OK(kf_type_array(ctx, i32, 1, 'C', &ai));
  OK(kf_type_array(ctx, f32, 1, 'C', &af));
  kf_type *params[2] = {ai, af};
  OK(kf_type_function(ctx, 2, params, 0, NULL, &k_ty));
  kf_op *k = NULL;
  OK(kf_builder_set_location(b, at(3, 1)));
  OK(kf_build_function(b, "k", k_ty, KF_FUNCTION_FLAG_KERNEL, &k));
  kf_ir_value *a = kf_block_arg(kf_function_entry(k), 0), *x = kf_block_arg(kf_function_entry(k), 1);
  kf_ir_value *tid = NULL, *i = NULL, *v = NULL, *r = NULL, *y = NULL, *s = NULL;
  OK(kf_build_gpu_index(b, "gpu.thread_id", 0, &tid));
  OK(kf_build_cast(b, tid, i64, &i));
  OK(kf_build_load(b, a, 1, &i, &v));
  OK(kf_builder_set_location(b, at(4, 10)));
  OK(kf_build_intrinsic(b, "bitrev", 1, &v, &r));
  CHECK(r && kf_value_type(r) == i32);
  OK(kf_build_store(b, r, a, 1, &i));
  OK(kf_build_load(b, x, 1, &i, &y));
  OK(kf_builder_set_location(b, at(5, 10)));
  OK(kf_build_intrinsic(b, "fast_rsqrt", 1, &y, &s));
  OK(kf_build_store(b, s, x, 1, &i));
  OK(kf_build_return(b, 0, NULL));
  OK(kf_builder_finish(b));
  kf_builder_destroy(b);
  OK(kf_module_verify(m));
  return m;
}

static uint32_t brev32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i++) r |= ((v >> i) & 1u) << (31 - i);
  return r;
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
  enum { N = 8 };
  int32_t ai[N] = {0, 1, 2, -1, 0x12345678, (int32_t)0x80000000u, 0x0F0F0F0F, 7};
  int32_t in[N];
  memcpy(in, ai, sizeof in);
  float xf[N] = {1.0f, 4.0f, 0.25f, 2.0f, 100.0f, 1e-6f, 3.0f, 1e30f};
  float xin[N];
  memcpy(xin, xf, sizeof xin);
  int64_t n = N;
  kf_array a, x;
  kf_array_init(&a, ai, KF_MEMORY_HOST, KF_INT32, 1, &n, 'C');
  kf_array_init(&x, xf, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  kf_arg args[2] = {kf_arg_array(&a), kf_arg_array(&x)};
  unsigned g[3] = {1, 1, 1}, bl[3] = {N, 1, 1};
  diags[0] = 0;
  CHECK_MSG(f && kf_function_launch(f, g, bl, 0, NULL, args, 2) == KF_OK, "%s", diags);
  for (int i = 0; i < N; i++) {
    CHECK_MSG((uint32_t)ai[i] == brev32((uint32_t)in[i]), "bitrev(%#x) = %#x, not %#x", (unsigned)in[i],
              (unsigned)ai[i], brev32((uint32_t)in[i]));
    double want = 1.0 / sqrt((double)xin[i]);
    CHECK_MSG(fabs(xf[i] - want) <= 2 * (nextafterf((float)want, INFINITY) - (float)want),
              "fast_rsqrt(%g) = %.9g, not %.9g", xin[i], xf[i], want);
  }
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_module_destroy(m);
}

static void test_text(kf_context *ctx) {
  kf_module *m = build(ctx);
  char *text = NULL, *again = NULL;
  size_t len = 0;
  OK(kf_module_print(m, 0, &text, &len));
  CHECK_CONTAINS(text, "math.libdevice(%");
  CHECK_CONTAINS(text, "{name = \"__nv_brev\"} : (i32) -> (i32)");
  CHECK_CONTAINS(text, "{name = \"__nv_rsqrtf\"} : (f32) -> (f32)");
  kf_module *back = NULL;
  if (text) OK(kf_module_parse(ctx, "intr.kir", text, len, &back));
  if (back) {
    OK(kf_module_verify(back));
    OK(kf_module_print(back, 0, &again, NULL));
    CHECK_MSG(again && strcmp(text, again) == 0, "round trip:\n%s\n---\n%s", text, again ? again : "");
  }
  kf_free(text);
  kf_free(again);
  kf_module_destroy(back);
  kf_module_destroy(m);
}

static void test_ptx(kf_context *ctx) {
  kf_module *m = build(ctx);
  kf_codegen_options co;
  kf_codegen_options_init(&co);
  char *ptx = NULL;
  diags[0] = 0;
  kf_status st = kf_module_emit_ptx(m, &co, &ptx, NULL);
  if (st == KF_ERROR_NOT_FOUND && !bt_require()) {
    printf("SKIP api_intrinsic's PTX checks: no libNVVM\n");
    kf_module_destroy(m);
    return;
  }
  CHECK_MSG(st == KF_OK, "%s", diags);
  CHECK_CONTAINS(ptx, ".visible .entry k(");
  CHECK_CONTAINS(ptx, "brev.b32");      /* __nv_brev's code */
  CHECK_CONTAINS(ptx, "rsqrt.approx");  /* __nv_rsqrtf's */
  char *ptxas = bt_find_ptxas();
  if (!ptxas) {
    CHECK_MSG(!bt_require(), "no ptxas");
  } else if (ptx) {
    char *log = NULL;
    CHECK_MSG(bt_ptxas(ptxas, ptx, 90, &log), "ptxas refused the PTX:\n%s\n%s", log ? log : "", ptx);
    free(log);
  }
  free(ptxas);
  kf_free(ptx);
  kf_module_destroy(m);
}

static void test_register_refusals(kf_context *ctx) {
  kf_type *i32 = scalar(ctx, KF_INT32), *f32 = scalar(ctx, KF_FLOAT32), *f64 = scalar(ctx, KF_FLOAT64);
  kf_type *arr = NULL;
  OK(kf_type_array(ctx, f32, 1, 'C', &arr));
  struct {
    const char *name;
    kf_type *param, *result;
    const char *fn;
    const char *message;
  } cases[] = {
      {"bitrev", i32, i32, "__nv_brev", "intr.kl:20:1: error: kf_intrinsic_register: intrinsic 'bitrev': registered already"},
      {"1bad", i32, i32, "__nv_brev", "intr.kl:21:1: error: kf_intrinsic_register: intrinsic '1bad': not an intrinsic name"},
      {"nosuch", f32, f32, "__nv_nosuch",
       "intr.kl:22:1: error: kf_intrinsic_register: intrinsic 'nosuch': '__nv_nosuch' is not a libdevice function"},
      {"nopfx", i32, i32, "brev", "intr.kl:23:1: error: kf_intrinsic_register: intrinsic 'nopfx': 'brev' is not a libdevice"},
      {"wrongp", f32, i32, "__nv_brev",
       "intr.kl:24:1: error: kf_intrinsic_register: intrinsic 'wrongp': parameter 0 is f32, but argument 0 of __nv_brev "
       "is i32 (i32 (i32))"},
      {"wrongr", f32, f64, "__nv_rsqrtf",
       "intr.kl:25:1: error: kf_intrinsic_register: intrinsic 'wrongr': the result is f64, but __nv_rsqrtf returns f32 "
       "(f32 (f32))"},
      {"twoargs", f32, f32, "__nv_powf",
       "intr.kl:26:1: error: kf_intrinsic_register: intrinsic 'twoargs': __nv_powf takes 2 arguments (f32 (f32, f32)), "
       "the intrinsic 1 parameters"},
      {"arrp", arr, f32, "__nv_rsqrtf",
       "intr.kl:27:1: error: kf_intrinsic_register: intrinsic 'arrp': parameter 0 is array<f32, 1, C>: an intrinsic "
       "takes scalars"},
  };
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    diags[0] = 0;
    kf_context_clear_diagnostics(ctx);
    CHECK_MSG(reg(ctx, cases[i].name, cases[i].param, cases[i].result, cases[i].fn, 20 + i) == KF_ERROR_INVALID_INPUT,
              "case %u", i);
    CHECK_CONTAINS(diags, cases[i].message);
    kf_error_info e;
    OK(kf_context_first_error(ctx, &e));
    CHECK(e.kind == KF_ERRKIND_INVALID_ARGUMENT);
  }
  /* no lowering, a struct_size of 0 */
  kf_intrinsic_desc d;
  kf_intrinsic_desc_init(&d);
  d.name = "nolower";
  d.result = f32;
  d.loc = at(30, 1);
  diags[0] = 0;
  CHECK(kf_intrinsic_register(ctx, &d) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "intr.kl:30:1: error: kf_intrinsic_register: intrinsic 'nolower': unknown lowering 0");
  d.struct_size = 0;
  diags[0] = 0;
  CHECK(kf_intrinsic_register(ctx, &d) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_intrinsic_desc.struct_size");
  CHECK(kf_intrinsic_register(ctx, NULL) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
}

static void test_build_refusals(kf_context *ctx) {
  kf_module *m = NULL;
  kf_builder *b = NULL;
  OK(kf_module_create(ctx, "intr.kl", &m));
  OK(kf_builder_create(m, &b));
  kf_type *f32 = scalar(ctx, KF_FLOAT32), *f64 = scalar(ctx, KF_FLOAT64), *fn_ty = NULL;
  kf_type *two[2] = {f32, f64};
  OK(kf_type_function(ctx, 2, two, 0, NULL, &fn_ty));
  kf_op *k = NULL;
  OK(kf_build_function(b, "k", fn_ty, KF_FUNCTION_FLAG_KERNEL, &k));
  kf_ir_value *x = kf_block_arg(kf_function_entry(k), 0), *d = kf_block_arg(kf_function_entry(k), 1), *r = NULL;
  kf_ir_value *both[2] = {x, x};
  diags[0] = 0;
  OK(kf_builder_set_location(b, at(40, 7)));
  CHECK(kf_build_intrinsic(b, "clock", 0, NULL, &r) == KF_ERROR_INVALID_INPUT && !r);
  CHECK_CONTAINS(diags, "intr.kl:40:7: error: unknown intrinsic 'clock': none of that name is registered");
  kf_error_info e;
  OK(kf_context_first_error(ctx, &e));
  CHECK(e.kind == KF_ERRKIND_INVALID_IR && e.line == 40 && e.col == 7);
  OK(kf_builder_set_location(b, at(41, 3)));
  CHECK(kf_build_intrinsic(b, "fast_rsqrt", 2, both, &r) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "intr.kl:41:3: error: intrinsic 'fast_rsqrt' takes 1 argument, got 2");
  OK(kf_builder_set_location(b, at(42, 9)));
  CHECK(kf_build_intrinsic(b, "fast_rsqrt", 1, &d, &r) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "intr.kl:42:9: error: intrinsic 'fast_rsqrt': argument 0 must be f32, got f64");
  CHECK(kf_build_intrinsic(b, "fast_rsqrt", 1, NULL, &r) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "intr.kl:42:9: error: intrinsic 'fast_rsqrt': argument 0 is NULL");
  CHECK(kf_build_intrinsic(b, "fast_rsqrt", 1, &x, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_build_intrinsic: out is NULL");
  CHECK(kf_build_intrinsic(NULL, "fast_rsqrt", 1, &x, &r) == KF_ERROR_INVALID_INPUT);
  /* the builder still works after its refusals */
  OK(kf_build_intrinsic(b, "fast_rsqrt", 1, &x, &r));
  OK(kf_build_return(b, 0, NULL));
  OK(kf_builder_finish(b));
  kf_builder_destroy(b);
  OK(kf_module_verify(m));
  kf_module_destroy(m);
  kf_context_clear_diagnostics(ctx);
}

int main(void) {
  kf_context *ctx = kf_context_create();
  kf_context_set_diagnostic_handler(ctx, on_diag, NULL);
  kf_type *i32 = scalar(ctx, KF_INT32), *f32 = scalar(ctx, KF_FLOAT32);
  OK(reg(ctx, "bitrev", i32, i32, "__nv_brev", 1));
  OK(reg(ctx, "fast_rsqrt", f32, f32, "__nv_rsqrtf", 2));
  test_simulator(ctx);
  test_text(ctx);
  test_ptx(ctx);
  test_register_refusals(ctx);
  test_build_refusals(ctx);
  kf_context_destroy(ctx);
  return test_result("api_intrinsic");
}
