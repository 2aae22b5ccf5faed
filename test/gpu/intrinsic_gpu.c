/* intrinsic_gpu.c — embedder intrinsics on a real GPU against the simulator: the kernel of test/unit/api_intrinsic.c
 * (bitrev as libdevice's __nv_brev, fast_rsqrt as __nv_rsqrtf, built with kf_build_intrinsic) launched through
 * kf_program_from_module on a KF_RUNTIME_GPU runtime and on a KF_RUNTIME_SIM one over the same inputs (1024
 * threads); bitrev must agree bit for bit, fast_rsqrt within 2 ulps (the GPU's rsqrt.approx against the
 * simulator's evaluation of __nv_rsqrtf). Public API only. Prints "intrinsic_gpu: N checks, N failed"; exit status
 * 0 when all pass, 1 when one fails, 2 when there is no GPU.
 *
 *   bench/stage_gpu.sh build-bench build-bench/gpu     (stages DEST/bin/intrinsic_gpu), then on the GPU machine
 *   build-bench/gpu/bin/intrinsic_gpu */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kfront/kir.h"

enum { N = 1024 };
static unsigned checks, failed;
#define EXPECT(cond, ...)                                              \
  do {                                                                 \
    checks++;                                                          \
    if (!(cond)) {                                                     \
      if (failed++ < 20) { printf("FAIL: " __VA_ARGS__); printf("\n"); } \
    }                                                                  \
  } while (0)

static kf_status reg(kf_context *ctx, const char *name, kf_type *t, const char *fn) {
  kf_intrinsic_desc d;
  kf_intrinsic_desc_init(&d);
  d.name = name;
  d.nparams = 1;
  d.params = &t;
  d.result = t;
  d.lowering = KF_INTRINSIC_LIBDEVICE;
  d.libdevice = fn;
  return kf_intrinsic_register(ctx, &d);
}

/* kernel k(a: i32[:], x: f32[:]) { i = blockIdx.x * blockDim.x + tid; a[i] = bitrev(a[i]); x[i] = fast_rsqrt(x[i]); } */
static kf_module *build(kf_context *ctx) {
  kf_module *m = NULL;
  kf_builder *b = NULL;
  kf_type *i32, *f32, *i64, *ai, *af, *k_ty;
  if (kf_module_create(ctx, "intrinsic_gpu.kl", &m) || kf_builder_create(m, &b)) return NULL;
  kf_type_scalar(ctx, KF_INT32, &i32);
  kf_type_scalar(ctx, KF_FLOAT32, &f32);
  kf_type_scalar(ctx, KF_INT64, &i64);
  kf_type_array(ctx, i32, 1, 'C', &ai);
  kf_type_array(ctx, f32, 1, 'C', &af);
  kf_type *params[2] = {ai, af};
  kf_type_function(ctx, 2, params, 0, NULL, &k_ty);
  kf_op *k = NULL;
  kf_status st = kf_build_function(b, "k", k_ty, KF_FUNCTION_FLAG_KERNEL, &k);
  kf_ir_value *a = k ? kf_block_arg(kf_function_entry(k), 0) : NULL, *x = k ? kf_block_arg(kf_function_entry(k), 1) : NULL;
  kf_ir_value *tid, *bid, *bdim, *base, *t, *i, *v, *r, *y, *s;
  if (!st) st = kf_build_gpu_index(b, "gpu.thread_id", 0, &tid);
  if (!st) st = kf_build_gpu_index(b, "gpu.block_id", 0, &bid);
  if (!st) st = kf_build_gpu_index(b, "gpu.block_dim", 0, &bdim);
  if (!st) st = kf_build_simple(b, "arith.muli", 2, (kf_ir_value *[]){bid, bdim}, NULL, &base);
  if (!st) st = kf_build_simple(b, "arith.addi", 2, (kf_ir_value *[]){base, tid}, NULL, &t);
  if (!st) st = kf_build_cast(b, t, i64, &i);
  if (!st) st = kf_build_load(b, a, 1, &i, &v);
  if (!st) st = kf_build_intrinsic(b, "bitrev", 1, &v, &r);
  if (!st) st = kf_build_store(b, r, a, 1, &i);
  if (!st) st = kf_build_load(b, x, 1, &i, &y);
  if (!st) st = kf_build_intrinsic(b, "fast_rsqrt", 1, &y, &s);
  if (!st) st = kf_build_store(b, s, x, 1, &i);
  if (!st) st = kf_build_return(b, 0, NULL);
  if (!st) st = kf_builder_finish(b);
  kf_builder_destroy(b);
  if (!st) st = kf_module_verify(m);
  if (st) {
    kf_module_destroy(m);
    return NULL;
  }
  return m;
}

/* Runs the kernel on a runtime of mode over a and x (in place). */
static kf_status run(kf_context *ctx, kf_runtime_mode mode, int32_t *a, float *x) {
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = mode;
  kf_runtime *rt = NULL;
  kf_status st = kf_runtime_create(ctx, &o, &rt);
  if (st) return st;
  kf_module *m = build(ctx);
  kf_program *p = NULL;
  kf_function *f = NULL;
  st = m ? kf_program_from_module(rt, m, &p) : KF_ERROR_INVALID_INPUT;
  if (!st) st = kf_program_get_function(p, "k", &f);
  int64_t n = N;
  kf_array aa, xa;
  kf_array_init(&aa, a, KF_MEMORY_HOST, KF_INT32, 1, &n, 'C');
  kf_array_init(&xa, x, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  kf_arg args[2] = {kf_arg_array(&aa), kf_arg_array(&xa)};
  unsigned g[3] = {N / 128, 1, 1}, bl[3] = {128, 1, 1};
  if (!st) st = kf_function_launch(f, g, bl, 0, NULL, args, 2);
  kf_program_destroy(p);
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  return st;
}

int main(void) {
  kf_context *ctx = kf_context_create();
  kf_type *i32, *f32;
  kf_type_scalar(ctx, KF_INT32, &i32);
  kf_type_scalar(ctx, KF_FLOAT32, &f32);
  if (reg(ctx, "bitrev", i32, "__nv_brev") || reg(ctx, "fast_rsqrt", f32, "__nv_rsqrtf")) {
    printf("intrinsic_gpu: registration failed:\n%s", kf_context_diagnostics(ctx));
    return 1;
  }
  static int32_t a_gpu[N], a_sim[N];
  static float x_gpu[N], x_sim[N];
  uint32_t seed = 12345;
  for (int i = 0; i < N; i++) {
    seed = seed * 1664525u + 1013904223u;
    a_gpu[i] = a_sim[i] = (int32_t)seed;
    x_gpu[i] = x_sim[i] = ldexpf(1.0f + (float)(seed >> 8) / 16777216.0f, (int)(seed % 120) - 60);
  }
  kf_status st = run(ctx, KF_RUNTIME_GPU, a_gpu, x_gpu);
  if (st == KF_ERROR_NOT_FOUND || st == KF_ERROR_DEVICE) {
    printf("intrinsic_gpu: no GPU (%s):\n%s", kf_status_name(st), kf_context_diagnostics(ctx));
    kf_context_destroy(ctx);
    return 2;
  }
  EXPECT(st == KF_OK, "GPU launch: %s\n%s", kf_status_name(st), kf_context_diagnostics(ctx));
  st = run(ctx, KF_RUNTIME_SIM, a_sim, x_sim);
  EXPECT(st == KF_OK, "simulator launch: %s\n%s", kf_status_name(st), kf_context_diagnostics(ctx));
  for (int i = 0; i < N; i++) {
    EXPECT(a_gpu[i] == a_sim[i], "bitrev[%d]: GPU %#x, simulator %#x", i, (unsigned)a_gpu[i], (unsigned)a_sim[i]);
    float ulp = nextafterf(x_sim[i], INFINITY) - x_sim[i];
    EXPECT(fabsf(x_gpu[i] - x_sim[i]) <= 2 * ulp, "fast_rsqrt[%d]: GPU %.9g, simulator %.9g", i, x_gpu[i], x_sim[i]);
  }
  printf("intrinsic_gpu: %u checks, %u failed\n", checks, failed);
  kf_context_destroy(ctx);
  return failed ? 1 : 0;
}
