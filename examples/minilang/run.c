/* run.c — minilang_run [--mode sim|auto|gpu] DIR: compiles DIR's examples (saxpy.ml, reduce.ml, block_sum.ml,
 * histogram.ml, collatz.ml; generic.ml's kernels as a generic program, ml_program, with two element types) and
 * DIR/tests/out_of_bounds.ml with minilang and runs their kernels
 * (kf_program_from_module, kf_function_launch) on kfront's simulator (the default), or with --mode auto on the GPU
 * when a driver and a device are found (else the simulator), --mode gpu on the GPU only; every result is checked
 * exactly against the same computation in C, and the last program must fail with an IndexError located in its
 * .ml file. Prints what ran the kernels, then "minilang_run: ok" when all pass; any failure exits 1 with what
 * differed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minilang.h"

static int failures;

#define EXPECT(cond, ...)                                            \
  do {                                                               \
    if (!(cond)) {                                                   \
      failures++;                                                    \
      fprintf(stderr, "minilang_run: FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                  \
      fputc('\n', stderr);                                           \
    }                                                                \
  } while (0)

/* The program of DIR/name compiled by minilang, or NULL (reported); *m its module, which must outlive it. */
static kf_program *compile(kf_context *ctx, kf_runtime *rt, const char *dir, const char *name, char *path, size_t cap,
                           kf_module **m) {
  snprintf(path, cap, "%s/%s", dir, name);
  size_t len;
  char *text = ml_read_file(path, &len);
  kf_program *p = NULL;
  *m = NULL;
  EXPECT(text && ml_compile(ctx, path, text, len, m) == KF_OK, "%s does not compile:\n%s", path, kf_context_diagnostics(ctx));
  if (*m) EXPECT(kf_program_from_module(rt, *m, &p) == KF_OK, "%s: no program:\n%s", path, kf_context_diagnostics(ctx));
  free(text);
  return p;
}

static kf_status launch(kf_program *p, const char *name, unsigned grid, unsigned block, const kf_arg *args, unsigned n) {
  kf_function *f = NULL;
  unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
  kf_status st = kf_program_get_function(p, name, &f);
  return st == KF_OK ? kf_function_launch(f, g, b, 0, NULL, args, n) : st;
}

static kf_array array_of(void *data, kf_dtype dtype, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, dtype, 1, &n, 'C');
  return a;
}

static kf_array array_f32(float *data, int64_t n) { return array_of(data, KF_FLOAT32, n); }

/* The module's kir text holds what the lowering must make (kf_module_print, to check it, never to build). */
static void expect_kir(kf_module *m, const char *name, const char *what) {
  char *text = NULL;
  EXPECT(m && kf_module_print(m, 0, &text, NULL) == KF_OK && strstr(text, what), "%s: no '%s' in its kir", name, what);
  kf_free(text);
}

static int64_t collatz(int64_t v) {
  int64_t steps = 0;
  for (; v != 1; steps++) v = v % 2 == 0 ? v / 2 : 3 * v + 1;
  return steps;
}

int main(int argc, char **argv) {
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  ro.disk_cache = 0;
  if (argc == 4 && strcmp(argv[1], "--mode") == 0) {
    ro.mode = strcmp(argv[2], "auto") == 0  ? KF_RUNTIME_AUTO
              : strcmp(argv[2], "gpu") == 0 ? KF_RUNTIME_GPU
                                            : KF_RUNTIME_SIM;
    argv += 2, argc -= 2;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: minilang_run [--mode sim|auto|gpu] EXAMPLES_DIR\n");
    return 2;
  }
  char path[4096];
  kf_module *m = NULL;
  kf_context *ctx = kf_context_create();
  kf_runtime *rt = NULL;
  if (kf_runtime_create(ctx, &ro, &rt) != KF_OK) {
    fprintf(stderr, "minilang_run: no runtime:\n%s", kf_context_diagnostics(ctx));
    return 1;
  }
  printf("minilang_run: kernels run on %s\n", kf_runtime_describe(rt));

  /* saxpy: 1000 elements on 8 blocks of 128 threads (the last block partly idle) */
  enum { N = 1000 };
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; i++) x[i] = (float)i * 0.25f - 100.0f, y[i] = (float)(i % 7), out[i] = NAN;
  kf_program *p = compile(ctx, rt, argv[1], "saxpy.ml", path, sizeof path, &m);
  if (p) {
    kf_array ax = array_f32(x, N), ay = array_f32(y, N), aout = array_f32(out, N);
    kf_arg args[4] = {kf_arg_float(KF_FLOAT32, 1.5), kf_arg_array(&ax), kf_arg_array(&ay), kf_arg_array(&aout)};
    EXPECT(launch(p, "saxpy", 8, 128, args, 4) == KF_OK, "saxpy: %s", kf_context_diagnostics(ctx));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += out[i] != 1.5f * x[i] + y[i];
    EXPECT(bad == 0, "saxpy: %d of %d elements wrong (out[1] = %g, expected %g)", bad, N, out[1], 1.5f * x[1] + y[1]);
    kf_program_destroy(p);
  }
  kf_module_destroy(m);

  /* reduce: the sum of squares through 4 x 32 partial sums, then total with and without skip_negative */
  enum { M = 3001, T = 128 };
  static float v[M], partial[T];
  float total[1] = {NAN};
  for (int i = 0; i < M; i++) v[i] = (float)((i * 37) % 101) / 16.0f - 3.0f;
  p = compile(ctx, rt, argv[1], "reduce.ml", path, sizeof path, &m);
  if (p) {
    kf_array av = array_f32(v, M), ap = array_f32(partial, T), at = array_f32(total, 1);
    kf_arg args[2] = {kf_arg_array(&av), kf_arg_array(&ap)};
    EXPECT(launch(p, "partial_sums", 4, 32, args, 2) == KF_OK, "partial_sums: %s", kf_context_diagnostics(ctx));
    int bad = 0;
    for (int t = 0; t < T; t++) {
      float acc = 0;
      for (int i = t; i < M; i += T) acc = acc + v[i] * v[i];
      bad += partial[t] != acc;
    }
    EXPECT(bad == 0, "partial_sums: %d of %d partial sums wrong", bad, T);
    partial[5] = -1.0f; /* skip_negative leaves it out */
    float sum_all = 0, sum_nonneg = 0;
    for (int t = 0; t < T; t++) sum_all += partial[t], sum_nonneg += partial[t] >= 0 ? partial[t] : 0;
    kf_arg targs[3] = {kf_arg_array(&ap), kf_arg_array(&at), kf_arg_int(KF_BOOL, 0)};
    EXPECT(launch(p, "total", 1, 1, targs, 3) == KF_OK, "total: %s", kf_context_diagnostics(ctx));
    EXPECT(total[0] == sum_all, "total: %.9g, expected %.9g", total[0], sum_all);
    targs[2] = kf_arg_int(KF_BOOL, 1);
    EXPECT(launch(p, "total", 1, 1, targs, 3) == KF_OK, "total: %s", kf_context_diagnostics(ctx));
    EXPECT(total[0] == sum_nonneg, "total (skip_negative): %.9g, expected %.9g", total[0], sum_nonneg);
    kf_program_destroy(p);
  }
  kf_module_destroy(m);

  /* block_sum: 1000 elements in blocks of 128 (the tree's order of additions, in C too); total by atomics
   * (multiples of 1/4: exact in any order) */
  enum { BS = 1000, BB = 128, NBLK = (BS + BB - 1) / BB };
  static float bx[BS];
  float sums[NBLK], tot[1] = {0}, want_total = 0;
  for (int i = 0; i < BS; i++) bx[i] = (float)((i * 7) % 50) * 0.25f - 3.0f;
  p = compile(ctx, rt, argv[1], "block_sum.ml", path, sizeof path, &m);
  expect_kir(m, "block_sum",
             "mem.global() {sym_name = @block_sum.buf, type = array<f32, 1, C>, shape = [256], space = \"shared\"}");
  expect_kir(m, "block_sum", "gpu.barrier()");
  if (p) {
    kf_array ax = array_f32(bx, BS), as = array_f32(sums, NBLK), at = array_f32(tot, 1);
    kf_arg args[3] = {kf_arg_array(&ax), kf_arg_array(&as), kf_arg_array(&at)};
    EXPECT(launch(p, "block_sum", NBLK, BB, args, 3) == KF_OK, "block_sum: %s", kf_context_diagnostics(ctx));
    int bad = 0;
    for (int blk = 0; blk < NBLK; blk++) {
      float buf[BB];
      for (int t = 0; t < BB; t++) buf[t] = blk * BB + t < BS ? bx[blk * BB + t] : 0.0f;
      for (int half = BB / 2; half > 0; half /= 2)
        for (int t = 0; t < half; t++) buf[t] = buf[t] + buf[t + half];
      bad += sums[blk] != buf[0];
      want_total += buf[0];
    }
    EXPECT(bad == 0, "block_sum: %d of %d block sums wrong", bad, NBLK);
    EXPECT(tot[0] == want_total, "block_sum: total %.9g, expected %.9g", tot[0], want_total);
    kf_program_destroy(p);
  }
  kf_module_destroy(m);

  /* histogram: 5000 values on 3 blocks of 64 threads */
  enum { HN = 5000 };
  static int32_t data[HN];
  int32_t bins[16] = {0}, biggest[1] = {0}, want_bins[16] = {0}, want_big = 0;
  for (int i = 0; i < HN; i++) {
    data[i] = (int32_t)((i * 2654435761u) % 1000u);
    want_bins[data[i] % 16]++;
    if (data[i] > want_big) want_big = data[i];
  }
  p = compile(ctx, rt, argv[1], "histogram.ml", path, sizeof path, &m);
  expect_kir(m, "histogram", "gpu.atomic_rmw(");
  expect_kir(m, "histogram", "{kind = \"max\"}");
  if (p) {
    kf_array ad = array_of(data, KF_INT32, HN), ab = array_of(bins, KF_INT32, 16), am = array_of(biggest, KF_INT32, 1);
    kf_arg args[3] = {kf_arg_array(&ad), kf_arg_array(&ab), kf_arg_array(&am)};
    EXPECT(launch(p, "histogram", 3, 64, args, 3) == KF_OK, "histogram: %s", kf_context_diagnostics(ctx));
    EXPECT(memcmp(bins, want_bins, sizeof bins) == 0, "histogram: bins[0] = %d, expected %d", bins[0], want_bins[0]);
    EXPECT(biggest[0] == want_big, "histogram: biggest %d, expected %d", biggest[0], want_big);
    kf_program_destroy(p);
  }
  kf_module_destroy(m);

  /* collatz: the step counts of 1..300, then the first index with at least 100 steps and one none reaches */
  enum { CN = 300 };
  int64_t steps[CN], found[1] = {-1}, want_first = CN;
  for (int i = CN - 1; i >= 0; i--) want_first = collatz(i + 1) >= 100 ? i : want_first;
  p = compile(ctx, rt, argv[1], "collatz.ml", path, sizeof path, &m);
  expect_kir(m, "collatz", "scf.while(");
  if (p) {
    kf_array as = array_of(steps, KF_INT64, CN), af = array_of(found, KF_INT64, 1);
    kf_arg args[1] = {kf_arg_array(&as)};
    EXPECT(launch(p, "collatz_steps", 3, 128, args, 1) == KF_OK, "collatz_steps: %s", kf_context_diagnostics(ctx));
    int bad = 0;
    for (int i = 0; i < CN; i++) bad += steps[i] != collatz(i + 1);
    EXPECT(bad == 0, "collatz_steps: %d of %d counts wrong", bad, CN);
    kf_arg fargs[3] = {kf_arg_array(&as), kf_arg_int(KF_INT64, 100), kf_arg_array(&af)};
    EXPECT(launch(p, "first_at_least", 1, 1, fargs, 3) == KF_OK, "first_at_least: %s", kf_context_diagnostics(ctx));
    EXPECT(found[0] == want_first, "first_at_least: %lld, expected %lld", (long long)found[0], (long long)want_first);
    fargs[1] = kf_arg_int(KF_INT64, 1000); /* none: k stops at len(steps), steps[len] never read */
    EXPECT(launch(p, "first_at_least", 1, 1, fargs, 3) == KF_OK, "first_at_least: %s", kf_context_diagnostics(ctx));
    EXPECT(found[0] == CN, "first_at_least (none): %lld, expected %d", (long long)found[0], CN);
    kf_program_destroy(p);
  }
  kf_module_destroy(m);

  /* generic.ml: axpy and sum launched with f32 and f64 arrays (a kernel each); sum of i32 arrays refused where
   * its 0.0 is no i32 */
  snprintf(path, sizeof path, "%s/generic.ml", argv[1]);
  size_t glen;
  char *gtext = ml_read_file(path, &glen);
  MlUnit *unit = NULL;
  p = NULL;
  EXPECT(gtext && ml_program(rt, ctx, path, gtext, glen, &unit, &p) == KF_OK, "generic.ml:\n%s", kf_context_diagnostics(ctx));
  for (int f64 = 0; p && f64 < 2; f64++) {
    enum { GN = 200 };
    static float gx[GN], gy[GN], gt[1];
    static double dx[GN], dy[GN], dt[1];
    for (int i = 0; i < GN; i++) gx[i] = (float)i / 8, gy[i] = (float)(i % 5), dx[i] = i / 8.0 + 1e-10, dy[i] = i % 5;
    kf_dtype dtype = f64 ? KF_FLOAT64 : KF_FLOAT32;
    kf_array ax = array_of(f64 ? (void *)dx : gx, dtype, GN), ay = array_of(f64 ? (void *)dy : gy, dtype, GN);
    kf_array at = array_of(f64 ? (void *)dt : gt, dtype, 1);
    kf_arg args[3] = {kf_arg_float(dtype, 0.75), kf_arg_array(&ax), kf_arg_array(&ay)};
    EXPECT(launch(p, "axpy", 2, 128, args, 3) == KF_OK, "axpy: %s", kf_context_diagnostics(ctx));
    kf_arg sargs[2] = {kf_arg_array(&ay), kf_arg_array(&at)};
    EXPECT(launch(p, "sum", 1, 1, sargs, 2) == KF_OK, "sum: %s", kf_context_diagnostics(ctx));
    int bad = 0;
    float fs = 0;
    double ds = 0;
    for (int i = 0; i < GN; i++) {
      if (f64) bad += dy[i] != 0.75 * dx[i] + i % 5, ds += dy[i];
      else bad += gy[i] != 0.75f * gx[i] + (float)(i % 5), fs += gy[i];
    }
    EXPECT(bad == 0 && (f64 ? dt[0] == ds : gt[0] == fs), "generic %s: %d of %d wrong, sum %.17g", f64 ? "f64" : "f32",
           bad, GN, f64 ? dt[0] : gt[0]);
  }
  if (p) {
    kf_function *sum = NULL;
    kf_program_get_function(p, "sum", &sum);
    EXPECT(sum && kf_function_kernels(sum, NULL, 0) == 2, "sum: not one kernel per element type");
    int32_t ix[3] = {1, 2, 3}, itotal[1] = {0};
    kf_array ai = array_of(ix, KF_INT32, 3), at = array_of(itotal, KF_INT32, 1);
    kf_arg iargs[2] = {kf_arg_array(&ai), kf_arg_array(&at)};
    kf_context_clear_diagnostics(ctx);
    EXPECT(launch(p, "sum", 1, 1, iargs, 2) == KF_ERROR_INVALID_INPUT, "sum of i32 arrays was not refused");
    kf_error_info e;
    EXPECT(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_TYPING && e.line == 12 && e.col == 16,
           "sum of i32: expected a type error at generic.ml:12:16, got:\n%s", kf_context_diagnostics(ctx));
    printf("%s", kf_context_diagnostics(ctx));
    double d3[3] = {0}; /* an f32 a with f64 arrays: T bound twice */
    kf_array ad = array_of(d3, KF_FLOAT64, 3);
    kf_arg mixed[3] = {kf_arg_float(KF_FLOAT32, 1), kf_arg_array(&ad), kf_arg_array(&ad)};
    kf_context_clear_diagnostics(ctx);
    EXPECT(launch(p, "axpy", 1, 4, mixed, 3) == KF_ERROR_INVALID_INPUT &&
               strstr(kf_context_diagnostics(ctx), "generic.ml:3:19: error: 'x' (T[]) cannot take a array<f64, 1, C>: T is f32"),
           "axpy of f32 and f64 arrays: expected T bound twice, got:\n%s", kf_context_diagnostics(ctx));
  }
  kf_program_destroy(p);
  ml_unit_free(unit);
  free(gtext);

  /* out of bounds: an IndexError at the load's line and column in the .ml file */
  p = compile(ctx, rt, argv[1], "tests/out_of_bounds.ml", path, sizeof path, &m);
  if (p) {
    float a[4] = {1, 2, 3, 4}, b[4] = {0};
    kf_array aa = array_f32(a, 4), ab = array_f32(b, 4);
    kf_arg args[2] = {kf_arg_array(&aa), kf_arg_array(&ab)};
    kf_context_clear_diagnostics(ctx);
    EXPECT(launch(p, "shift", 1, 4, args, 2) != KF_OK, "shift: an out-of-bounds read did not fail");
    kf_error_info e;
    EXPECT(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_OUT_OF_BOUNDS && e.file &&
               strstr(e.file, "out_of_bounds.ml") && e.line == 4 && e.col == 12 && e.index == 4 && e.extent == 4,
           "shift: expected an IndexError at out_of_bounds.ml:4:12, index 4, extent 4; got:\n%s", kf_context_diagnostics(ctx));
    printf("%s", kf_context_diagnostics(ctx));
    kf_program_destroy(p);
  }
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  if (failures) return 1;
  printf("minilang_run: ok\n");
  return 0;
}
