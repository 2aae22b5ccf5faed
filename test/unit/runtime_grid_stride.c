/* runtime_grid_stride.c — the runtime's use of the grid-stride pass, through the public API on the
 * simulator: kernels compiled by the runtime (default pipeline + grid-stride) give the same outputs as with
 * kf_runtime_options.grid_stride = 0 (a 2-D launch of (37, 5) x (8, 4) blocks reading blockIdx/gridDim, and the seed's
 * 1-D `double`, including its IndexError); the signature, overload matching and argument checks see only
 * the user's parameters. (The GPU path, with a fake driver: runtime_gpu_fake.c.) */
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "api/api_internal.h"
#include "runtime/rt.h"
#include "runtime_test.h"

static const char *SOURCE =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def fill2d(out, scale):\n"
    "    x, y = cuda.grid(2)\n"
    "    if x < out.shape[0] and y < out.shape[1]:\n"
    "        out[x, y] = (x * 1000 + y) * scale + cuda.blockIdx.y * 7 + cuda.gridDim.x * 100000\n"
    "\n"
    "@cuda.jit\n"
    "def double(input_array, output_array):\n"
    "    i = cuda.grid(1)\n"
    "    output_array[i] = input_array[i] * 2\n";

enum { NX = 290, NY = 19, N1 = 10 };

typedef struct Outputs {
  double fill[NX * NY];
  double dbl[N1];
  char index_error[256];
} Outputs;

static kf_arg array_arg(void *data, kf_dtype t, unsigned ndim, const int64_t *shape) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, t, ndim, shape, 'C');
  return kf_arg_array(&a);
}

static void run(bool no_grid_stride, Outputs *o) {
  memset(o, 0, sizeof *o);
  kf_context *ctx = kf_context_create();
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  ro.grid_stride = !no_grid_stride;
  kf_runtime *rt = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK && rt);
  CHECK(rt && kf_program_create(rt, "gs.py", SOURCE, strlen(SOURCE), NULL, &p) == KF_OK);
  if (!p) goto done;

  int64_t s2[2] = {NX, NY};
  for (int i = 0; i < NX * NY; i++) o->fill[i] = -1;
  kf_arg fargs[2] = {array_arg(o->fill, KF_FLOAT64, 2, s2), kf_arg_int(KF_INT64, 3)};
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p, "fill2d", fargs, 2, &k) == KF_OK && k);
  if (k) {
    CHECK(strcmp(kf_kernel_signature(k), "void(float64[:, ::1], int64)") == 0);
    unsigned g[3] = {37, 5, 1}, b[3] = {8, 4, 1};
    CHECK(kf_launch(k, g, b, 0, NULL, fargs, 2) == KF_OK);
    /* the count and types are checked against the user's parameters only */
    kf_arg five[5] = {fargs[0], fargs[1], kf_arg_int(KF_INT32, 37), kf_arg_int(KF_INT32, 5), kf_arg_int(KF_INT32, 1)};
    CHECK(kf_launch(k, g, b, 0, NULL, five, 5) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx),
                   "kernel fill2d takes 2 arguments (void(float64[:, ::1], int64)), but 5 were given");
    kf_context_clear_diagnostics(ctx);
  }
  fputs(kf_context_diagnostics(ctx), stderr);

  int64_t in[N1], s1[1] = {N1};
  for (int i = 0; i < N1; i++) in[i] = 3 * i - 4;
  kf_arg dargs[2] = {array_arg(in, KF_INT64, 1, s1), array_arg(o->dbl, KF_FLOAT64, 1, s1)};
  CHECK(kf_program_get_kernel(p, "double", dargs, 2, &k) == KF_OK && k);
  if (k) {
    CHECK(strcmp(kf_kernel_signature(k), "void(int64[::1], float64[::1])") == 0);
    CHECK(kf_launch(k, (unsigned[3]){5, 1, 1}, (unsigned[3]){2, 1, 1}, 0, NULL, dargs, 2) == KF_OK);
    /* 12 threads over 10 elements: the IndexError */
    double spare[N1];
    kf_arg eargs[2] = {dargs[0], array_arg(spare, KF_FLOAT64, 1, s1)};
    CHECK(kf_launch(k, (unsigned[3]){4, 1, 1}, (unsigned[3]){3, 1, 1}, 0, NULL, eargs, 2) == KF_ERROR_OUT_OF_BOUNDS);
    const char *e = strstr(kf_context_diagnostics(ctx), "IndexError");
    CHECK(e != NULL);
    if (e) snprintf(o->index_error, sizeof o->index_error, "%.*s", (int)strcspn(e, "\n"), e);
    kf_context_clear_diagnostics(ctx);
    kf_arg one[1] = {dargs[0]};
    CHECK(kf_launch(k, (unsigned[3]){1, 1, 1}, (unsigned[3]){10, 1, 1}, 0, NULL, one, 1) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx),
                   "kernel double takes 2 arguments (void(int64[::1], float64[::1])), but 1 was given");
    kf_context_clear_diagnostics(ctx);
  }
  /* overloads are matched on the user's parameters: the grid dims are not arguments */
  kf_arg dfive[5] = {dargs[0], dargs[1], kf_arg_int(KF_INT32, 1), kf_arg_int(KF_INT32, 1), kf_arg_int(KF_INT32, 1)};
  kf_kernel *k5 = NULL;
  CHECK(kf_program_get_kernel(p, "double", dfive, 5, &k5) != KF_OK && !k5);
  kf_context_clear_diagnostics(ctx);
done:
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* The runtime's pipeline rewrites both kernels (so the launches above did run on a smaller grid). */
static void test_rewritten(void) {
  kf_context *ctx = kf_context_create();
  kf_compile_options o;
  kf_compile_options_init(&o);
  /* all-grids=1 rewrites both kernels; the default (what the runtime runs) leaves fill2d alone: it reads
   * gridDim and blockIdx.y */
  for (int all = 0; all < 2; all++) {
    char pipeline[256];
    snprintf(pipeline, sizeof pipeline, "%s,grid-stride%s", kf_default_pipeline(), all ? "{all-grids=1}" : "");
    o.pipeline = pipeline;
    const char *sigs[2] = {"void(float64[:, ::1], int64)", "void(int64[::1], float64[::1])"};
    const char *names[2] = {"fill2d", "double"};
    for (int i = 0; i < 2; i++) {
      o.kernels = &names[i];
      o.nkernels = 1;
      o.signatures = &sigs[i];
      o.nsignatures = 1;
      kf_module *km = NULL;
      CHECK(kf_compile_source(ctx, "gs.py", SOURCE, strlen(SOURCE), &o, &km) == KF_OK && km);
      if (!km) continue;
      Op *f = NULL;
      CHECK(rt_kir_find_kernels(km->ir, names[i], &f, 1) == 1);
      unsigned n = 0;
      RtLaunchPlan plan;
      if (f) {
        rt_kir_params(f, &n);
        CHECK(rt_plan_from_kir(f, &plan, &ctx->diag));
        bool rewritten = all || i == 1;
        if (rewritten) CHECK(plan.grid == RT_GRID_RESIDENT && n == 5 && plan.nhidden == 3);
        else CHECK(plan.grid == RT_GRID_AS_GIVEN && n == 2 && plan.nhidden == 0);
      }
      kf_module_destroy(km);
    }
  }
  fputs(kf_context_diagnostics(ctx), stderr);
  kf_context_destroy(ctx);
}

/* kf_runtime_pipeline says what the runtime compiles with, for each of its options: compiled with the whole text,
 * the 1-D kernel has the grid-stride launch variant (double__gs) exactly when the runtime's grid_stride is on; with
 * the kernels' passes only, never, and the kernel itself is the same. */
static char *compiled(kf_context *ctx, const char *pipeline) {
  kf_compile_options o;
  kf_compile_options_init(&o);
  o.pipeline = pipeline;
  const char *name = "double", *sig = "void(int64[::1], float64[::1])";
  o.kernels = &name;
  o.nkernels = 1;
  o.signatures = &sig;
  o.nsignatures = 1;
  kf_module *km = NULL;
  CHECK(kf_compile_source(ctx, "gs.py", SOURCE, strlen(SOURCE), &o, &km) == KF_OK && km);
  char *text = NULL;
  size_t len = 0;
  if (km) CHECK(kf_module_print(km, 0, &text, &len) == KF_OK);
  kf_module_destroy(km);
  return text;
}

static void test_pipeline_text(void) {
  for (int tm = 0; tm < 2; tm++)
    for (int gs = 0; gs < 2; gs++) {
      kf_context *ctx = kf_context_create();
      kf_runtime_options ro;
      kf_runtime_options_init(&ro);
      ro.mode = KF_RUNTIME_SIM;
      ro.thread_map = tm;
      ro.grid_stride = gs;
      kf_runtime *rt = NULL;
      CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK && rt);
      if (!rt) continue;
      const char *all = kf_runtime_pipeline(rt, 1), *kernels = kf_runtime_pipeline(rt, 0);
      CHECK((strstr(all, ",thread-map,") != NULL) == (tm == 1));
      CHECK((strstr(all, "tile-shared{column=1}") != NULL) == (tm == 0));
      CHECK((strstr(all, "grid-stride{variant=1}") != NULL) == (gs == 1));
      CHECK(strncmp(all, kernels, strlen(kernels)) == 0 && !strstr(kernels, "grid-stride"));
      CHECK(tm == 0 || strcmp(kernels, kf_default_pipeline()) == 0);
      char *with = compiled(ctx, all), *without = compiled(ctx, kernels);
      if (with && without) {
        CHECK((strstr(with, "sym_name = @double__gs,") != NULL) == (gs == 1));
        CHECK(!strstr(without, "sym_name = @double__gs,"));
      }
      kf_free(with);
      kf_free(without);
      kf_runtime_destroy(rt);
      fputs(kf_context_diagnostics(ctx), stderr);
      kf_context_destroy(ctx);
    }
}

int main(void) {
  static Outputs with, without;
  test_rewritten();
  test_pipeline_text();
  run(false, &with);
  run(true, &without);
  /* the expected values, and the same with and without the pass */
  bool ok = true;
  for (int x = 0; x < NX; x++)
    for (int y = 0; y < NY; y++)
      ok = ok && with.fill[x * NY + y] == (double)((x * 1000 + y) * 3 + (y / 4) * 7 + 37 * 100000);
  CHECK(ok);
  CHECK(memcmp(with.fill, without.fill, sizeof with.fill) == 0);
  for (int i = 0; i < N1; i++) CHECK(with.dbl[i] == (double)(2 * (3 * i - 4)));
  CHECK(memcmp(with.dbl, without.dbl, sizeof with.dbl) == 0);
  CHECK_CONTAINS(with.index_error, "IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel double, gs.py:12:");
  CHECK(strcmp(with.index_error, without.index_error) == 0);
  return test_result("runtime_grid_stride");
}
