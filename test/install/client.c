/* client.c — an out-of-tree program of kfront's installed public API (test/install/run_install_test.sh
 * builds it against an installed prefix three ways: CMake with kfront::kfront, pkg-config, CMake with
 * kfront::kfront_static). It compiles a small kernel to kir and checks the text, then runs the kernel on
 * the simulator and checks the result. Exit 0 only if every step succeeded; on failure it says which step
 * and prints the context's diagnostics. Only kfront/kfront.h, and only the functions this needs: the runtime
 * API grows, and options structs are filled by their _init functions (so new fields get their defaults). */
#include <stdio.h>
#include <string.h>

#include <kfront/kfront.h>

static const char source[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit(\"void(float32[:], float32[:])\")\n"
    "def double(a, out):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        out[i] = 2 * a[i]\n";

enum { N = 100 };

static int failed(kf_context *ctx, const char *step, kf_status s) {
  fprintf(stderr, "client: %s failed (kf_status %d)\n%s\n", step, (int)s, kf_context_diagnostics(ctx));
  return 1;
}

/* kf_compile_source, then the kir text must hold the kernel as a func.func. */
static int compile_and_print(kf_context *ctx) {
  kf_compile_options opts;
  kf_compile_options_init(&opts);
  kf_module *m = NULL;
  kf_status s = kf_compile_source(ctx, "double.py", source, sizeof source - 1, &opts, &m);
  if (s != KF_OK) return failed(ctx, "kf_compile_source", s);
  char *text = NULL;
  size_t len = 0;
  s = kf_module_print(m, 0, &text, &len);
  int bad = s != KF_OK ? failed(ctx, "kf_module_print", s) : 0;
  if (!bad && (!strstr(text, "func.func") || !strstr(text, "@double"))) {
    fprintf(stderr, "client: the kir has no func.func for double:\n%s\n", text);
    bad = 1;
  }
  if (!bad) printf("kir: %zu bytes, func.func @double\n", len);
  kf_free(text);
  kf_module_destroy(m);
  return bad;
}

/* The kernel on the simulator over two host float32 arrays: out must be 2 * a. */
static int run_on_simulator(kf_context *ctx) {
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  ro.disk_cache = 0;  /* leave the user's ~/.cache/kfront alone */
  kf_runtime *rt = NULL;
  kf_status s = kf_runtime_create(ctx, &ro, &rt);
  if (s != KF_OK) return failed(ctx, "kf_runtime_create", s);
  int bad = 0;
  kf_program *prog = NULL;
  s = kf_program_create(rt, "double.py", source, sizeof source - 1, NULL, &prog);
  if (s != KF_OK) bad = failed(ctx, "kf_program_create", s);

  float a[N], out[N];
  for (int i = 0; i < N; i++) {
    a[i] = 0.5f * (float)i - 7.0f;
    out[i] = -1.0f;
  }
  int64_t shape[1] = {N};
  kf_array aa, ao;
  kf_array_init(&aa, a, KF_MEMORY_HOST, KF_FLOAT32, 1, shape, 'C');
  kf_array_init(&ao, out, KF_MEMORY_HOST, KF_FLOAT32, 1, shape, 'C');
  kf_arg args[2] = {kf_arg_array(&aa), kf_arg_array(&ao)};

  kf_kernel *k = NULL;
  if (!bad && (s = kf_program_get_kernel(prog, "double", args, 2, &k)) != KF_OK)
    bad = failed(ctx, "kf_program_get_kernel", s);
  const unsigned grid[3] = {4, 1, 1}, block[3] = {32, 1, 1};
  if (!bad && (s = kf_launch(k, grid, block, 0, NULL, args, 2)) != KF_OK) bad = failed(ctx, "kf_launch", s);
  for (int i = 0; !bad && i < N; i++) {
    if (out[i] != 2.0f * a[i]) {
      fprintf(stderr, "client: out[%d] = %g, expected %g\n", i, out[i], 2.0f * a[i]);
      bad = 1;
    }
  }
  if (!bad) printf("simulator: out == 2 * a for %d elements\n", N);
  kf_program_destroy(prog);
  kf_runtime_destroy(rt);
  return bad;
}

int main(void) {
  if (kf_api_version() != KF_API_VERSION) {  /* the ABI scheme: headers and library of one KF_API_VERSION */
    fprintf(stderr, "client: library API version %u, headers %d\n", kf_api_version(), KF_API_VERSION);
    return 1;
  }
  kf_context *ctx = kf_context_create();
  if (!ctx) {
    fprintf(stderr, "client: kf_context_create failed\n");
    return 1;
  }
  int bad = compile_and_print(ctx);
  if (!bad) bad = run_on_simulator(ctx);
  kf_context_destroy(ctx);
  if (!bad) printf("client: ok\n");
  return bad;
}
