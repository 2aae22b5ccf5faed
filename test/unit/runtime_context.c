/* runtime_context.c — the seed kernels of s000_kernels.py through the public C API, end to end (source ->
 * kernel specialised for the arguments -> launch), on whatever the runtime picks (the GPU when there is one,
 * else the simulator): the located IndexError of foo_grid with 32 threads over 10 elements, then launches in
 * the same process that work (the context survives), with host and device arrays; the memoised kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

static char *read_seed(const char *name, size_t *len) {
  const char *dirs[] = {getenv("KFRONT_SEEDS"), "acceptance/seeds"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    if (!dirs[i]) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dirs[i], name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
  }
  return NULL;
}

static kf_arg host_1d(void *data, kf_dtype t, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, t, 1, &n, 'C');
  return kf_arg_array(&a);
}

int main(void) {
  size_t len;
  char *src = read_seed("s000_kernels.py", &len);
  if (!src) {
    fprintf(stderr, "runtime_context: s000_kernels.py not found (set KFRONT_SEEDS)\n");
    return 1;
  }
  kf_context *ctx = kf_context_create();
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, NULL, &rt) == KF_OK);
  printf("runtime_context: %s\n", kf_runtime_describe(rt));
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "s000_kernels.py", src, len, NULL, &p) == KF_OK);

  int64_t in[10];
  double out[10];
  for (int i = 0; i < 10; i++) in[i] = i, out[i] = 0;
  kf_arg args[2] = {host_1d(in, KF_INT64, 10), host_1d(out, KF_FLOAT64, 10)};
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k) == KF_OK && k);
  if (!k) {
    fputs(kf_context_diagnostics(ctx), stderr);
    return 1;
  }
  unsigned g[3] = {1, 1, 1}, b32[3] = {32, 1, 1}, b10[3] = {10, 1, 1};
  CHECK(kf_launch(k, g, b32, 0, NULL, args, 2) == KF_ERROR_OUT_OF_BOUNDS);
  /* the column is the frontend's choice of the check's location (the statement or the subscript): the line
   * is what this test pins down; test/gpu/run_gpu_tests.sh checks the full text of issue 5 */
  CHECK_CONTAINS(kf_context_diagnostics(ctx),
                 "IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:");
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "\n    output_array[i] = input_array[i]\n");
  kf_context_clear_diagnostics(ctx);

  /* the same process goes on: the same kernel, then another one, host then device arrays */
  for (int i = 0; i < 10; i++) out[i] = -1;
  CHECK(kf_launch(k, g, b10, 0, NULL, args, 2) == KF_OK);
  for (int i = 0; i < 10; i++) CHECK(out[i] == i);
  kf_kernel *k2 = NULL;
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k2) == KF_OK && k2 == k);

  int64_t a[10], b[10], o[10];
  for (int i = 0; i < 10; i++) a[i] = i, b[i] = 2 * i, o[i] = 0;
  void *da = NULL, *db = NULL, *dout = NULL;
  CHECK(kf_device_alloc(rt, sizeof a, &da) == KF_OK && kf_device_alloc(rt, sizeof b, &db) == KF_OK &&
        kf_device_alloc(rt, sizeof o, &dout) == KF_OK);
  CHECK(kf_memcpy_to_device(rt, da, a, sizeof a, NULL) == KF_OK && kf_memcpy_to_device(rt, db, b, sizeof b, NULL) == KF_OK);
  CHECK(kf_memset_device(rt, dout, 0, sizeof o, NULL) == KF_OK);
  kf_array xa, xb, xo;
  int64_t n = 10;
  kf_array_init(&xa, da, KF_MEMORY_DEVICE, KF_INT64, 1, &n, 'C');
  kf_array_init(&xb, db, KF_MEMORY_DEVICE, KF_INT64, 1, &n, 'C');
  kf_array_init(&xo, dout, KF_MEMORY_DEVICE, KF_INT64, 1, &n, 'C');
  kf_arg dargs[3] = {kf_arg_array(&xa), kf_arg_array(&xb), kf_arg_array(&xo)};
  kf_kernel *add = NULL;
  CHECK(kf_program_get_kernel(p, "add", dargs, 3, &add) == KF_OK && add);
  if (add) {
    CHECK(kf_launch(add, g, b32, 0, NULL, dargs, 3) == KF_OK);
    CHECK(kf_runtime_synchronize(rt) == KF_OK);
    CHECK(kf_memcpy_to_host(rt, o, dout, sizeof o, NULL) == KF_OK);
    for (int i = 0; i < 10; i++) CHECK(o[i] == 3 * i);
  }
  if (kf_context_error_count(ctx)) fputs(kf_context_diagnostics(ctx), stderr);
  kf_device_free(rt, da);
  kf_device_free(rt, db);
  kf_device_free(rt, dout);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  free(src);
  return test_result("runtime_context");
}
