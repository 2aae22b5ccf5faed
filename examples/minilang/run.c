/* run.c — minilang_run DIR: compiles DIR/saxpy.ml, DIR/reduce.ml and DIR/tests/out_of_bounds.ml with minilang
 * and runs their kernels on kfront's simulator (kf_program_from_module, kf_function_launch), checking every
 * result against the same computation in C; the last must fail with an IndexError located in its .ml file.
 * Prints "minilang_run: ok" when all pass; any failure exits 1 with what differed. */
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

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
  fclose(f);
  return buf;
}

/* The program of DIR/name compiled by minilang, or NULL (reported); *m its module, which must outlive it. */
static kf_program *compile(kf_context *ctx, kf_runtime *rt, const char *dir, const char *name, char *path, size_t cap,
                           kf_module **m) {
  snprintf(path, cap, "%s/%s", dir, name);
  size_t len;
  char *text = read_file(path, &len);
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

static kf_array array_f32(float *data, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  return a;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: minilang_run EXAMPLES_DIR\n");
    return 2;
  }
  char path[4096];
  kf_module *m = NULL;
  kf_context *ctx = kf_context_create();
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  ro.disk_cache = 0;
  kf_runtime *rt = NULL;
  if (kf_runtime_create(ctx, &ro, &rt) != KF_OK) {
    fprintf(stderr, "minilang_run: no simulator:\n%s", kf_context_diagnostics(ctx));
    return 1;
  }

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
