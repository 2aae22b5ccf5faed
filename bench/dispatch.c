/* dispatch.c (build/bin/bench_dispatch) — what a launch costs on the host through kfront's C API.
 *
 *   build/bin/bench_dispatch [LAUNCHES [ROUNDS]]        (default 10000 GPU launches, 9 rounds)
 *
 * 1. Specialisation lookup (simulator, always): kf_function_specialize of a 5-argument kernel (3 device
 *    arrays, a float32, an int64) whose fingerprint was seen before: the per-call cost of finding the
 *    kernel for a call's argument types (the fingerprint, a lock-free table probe), in ns.
 * 2. Prepared launch on the simulator's no-op path: kf_function_launch of that kernel over 1 thread whose
 *    body does nothing for it (n = 0), in ns: lookup + launch checks + packing + the simulator's launch.
 * 3. GPU (skipped without one): host cost of one launch of `tiny` below through kf_function_launch (the
 *    prepared path: lookup, checks once per fingerprint, packing, cuLaunchKernel), through kf_launch, and
 *    through a raw cuLaunchKernel of the same PTX:
 *     - kfront: kf_program_from_module over the module compiled with kf_compile_source (signature
 *       void(float32[::1], float32)), arguments built once, default stream;
 *     - raw: libcuda.so.1 dlopen'd here, the same primary context, cuModuleLoadData of the PTX that
 *       kf_module_emit_ptx gave for the device's arch, cuLaunchKernel with the ABI's parameters packed once.
 *    Each round does LAUNCHES launches back to back and then synchronises; "submit" is the loop alone per
 *    launch, "with sync" includes the final synchronise. The paths alternate round by round after 1000
 *    untimed launches each; medians over the rounds. Results are checked first (each path writes its own
 *    value over a poisoned array).
 * The last line is `RESULT dispatch lookup_ns=.. sim_launch_ns=..` (+ `prepared_us=.. raw_us=.. ratio=..`
 * on a GPU). */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfront/abi.h"
#include "kfront/kfront.h"

static const char kSource[] =
    "from numba import cuda\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def tiny(a, x):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        a[i] = x\n";
static const char kKernel[] = "tiny";

/* The lookup and simulator benchmark's kernel: 5 arguments; n = 0 makes it a no-op. */
static const char kFiveSource[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def five(a, b, c, x, n):\n"
    "    i = cuda.grid(1)\n"
    "    if i < n:\n"
    "        c[i] = a[i] * x + b[i]\n";
static const char kSignature[] = "void(float32[::1], float32)";
enum { N_ELEMS = 256, WARMUP = 1000, MAX_ROUNDS = 101 };

/* ---- the driver, dlopen'd ---- */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;
static struct {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
} cu;

static int cu_check(CUresult r, const char *what) {
  if (r == 0) return 1;
  const char *name = "?";
  if (cu.cuGetErrorName) cu.cuGetErrorName(r, &name);
  fprintf(stderr, "bench_dispatch: %s failed: %s (%d)\n", what, name, r);
  return 0;
}

static const char *load_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return dlerror();
#define LOAD(field, sym)                              \
  *(void **)&cu.field = dlsym(lib, sym);              \
  if (!cu.field) return "a symbol is missing: " sym;
  LOAD(cuInit, "cuInit")
  LOAD(cuDeviceGet, "cuDeviceGet")
  LOAD(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  LOAD(cuCtxSetCurrent, "cuCtxSetCurrent")
  LOAD(cuCtxSynchronize, "cuCtxSynchronize")
  LOAD(cuModuleLoadData, "cuModuleLoadData")
  LOAD(cuModuleUnload, "cuModuleUnload")
  LOAD(cuModuleGetFunction, "cuModuleGetFunction")
  LOAD(cuLaunchKernel, "cuLaunchKernel")
  LOAD(cuGetErrorName, "cuGetErrorName")
#undef LOAD
  return NULL;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The first .entry's name in ptx, and its parameter count. */
static int ptx_entry(const char *ptx, char *name, size_t cap, int *nparams) {
  const char *e = strstr(ptx, ".entry ");
  if (!e) return 0;
  e += 7;
  while (*e == ' ') e++;
  size_t n = strcspn(e, "( \t\n");
  if (n == 0 || n >= cap) return 0;
  memcpy(name, e, n);
  name[n] = 0;
  const char *open = strchr(e, '('), *close = open ? strchr(open, ')') : NULL;
  *nparams = 0;
  for (const char *p = open; p && p < close; p++)
    if (strncmp(p, ".param", 6) == 0) (*nparams)++;
  return close != NULL;
}

static int check_values(kf_runtime *rt, void *dptr, float want, const char *who) {
  float host[N_ELEMS];
  if (kf_memcpy_to_host(rt, host, dptr, sizeof host, NULL) != KF_OK) return 0;
  for (int i = 0; i < N_ELEMS; i++) {
    if (host[i] != want) {
      fprintf(stderr, "bench_dispatch: %s wrote %g at [%d], expected %g\n", who, host[i], i, want);
      return 0;
    }
  }
  return 1;
}

static int cmp_double(const void *a, const void *b);
static double median(double *v, int n);

/* Sections 1 and 2: the lookup hit and the prepared no-op launch on the simulator. */
static int sim_section(double *lookup_ns, double *launch_ns) {
  int ok = 0;
  kf_context *ctx = kf_context_create();
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  kf_program *p = NULL;
  kf_function *f = NULL;
  void *d[3] = {NULL, NULL, NULL};
  if (kf_runtime_create(ctx, &ro, &rt) != KF_OK ||
      kf_program_create(rt, "five.py", kFiveSource, sizeof kFiveSource - 1, NULL, &p) != KF_OK ||
      kf_program_get_function(p, "five", &f) != KF_OK)
    goto out;
  kf_arg args[5];
  int64_t n = 64;
  for (int i = 0; i < 3; i++) {
    if (kf_device_alloc(rt, 64 * sizeof(float), &d[i]) != KF_OK) goto out;
    kf_array a;
    kf_array_init(&a, d[i], KF_MEMORY_DEVICE, KF_FLOAT32, 1, &n, 'C');
    args[i] = kf_arg_array(&a);
  }
  args[3] = kf_arg_float(KF_FLOAT32, 2.0);
  args[4] = kf_arg_int(KF_INT64, 0);
  kf_kernel *k = NULL;
  const unsigned one[3] = {1, 1, 1};
  if (kf_function_specialize(f, args, 5, &k) != KF_OK || kf_function_launch(f, one, one, 0, NULL, args, 5) != KF_OK)
    goto out;
  enum { ROUNDS = 7, LOOKUPS = 1000000, LAUNCHES = 20000 };
  double t_lookup[ROUNDS], t_launch[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now_us();
    for (long i = 0; i < LOOKUPS; i++)
      if (kf_function_specialize(f, args, 5, &k) != KF_OK) goto out;
    double t1 = now_us();
    for (long i = 0; i < LAUNCHES; i++)
      if (kf_function_launch(f, one, one, 0, NULL, args, 5) != KF_OK) goto out;
    double t2 = now_us();
    t_lookup[r] = (t1 - t0) * 1e3 / LOOKUPS;
    t_launch[r] = (t2 - t1) * 1e3 / LAUNCHES;
  }
  *lookup_ns = median(t_lookup, ROUNDS);
  *launch_ns = median(t_launch, ROUNDS);
  printf("bench_dispatch: simulator, kernel five %s\n", kf_kernel_signature(k));
  printf("  specialisation lookup (hit, 5 arguments): %.1f ns (median of %d x %d)\n", *lookup_ns, ROUNDS, LOOKUPS);
  printf("  prepared launch, simulator no-op path:    %.1f ns (median of %d x %d)\n", *launch_ns, ROUNDS, LAUNCHES);
  ok = 1;
out:
  if (!ok) fprintf(stderr, "bench_dispatch: simulator section failed\n%s", kf_context_diagnostics(ctx));
  for (int i = 0; i < 3; i++)
    if (d[i]) kf_device_free(rt, d[i]);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return ok;
}

int main(int argc, char **argv) {
  long launches = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
  int rounds = argc > 2 ? atoi(argv[2]) : 9;
  if (launches < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
    fprintf(stderr, "usage: bench_dispatch [LAUNCHES [ROUNDS <= %d]]\n", MAX_ROUNDS);
    return 2;
  }
  double lookup_ns = 0, sim_launch_ns = 0;
  if (!sim_section(&lookup_ns, &sim_launch_ns)) return 1;
  char gpu_result[256] = "";
  int status = 1;
  kf_context *ctx = kf_context_create();
  kf_runtime *rt = NULL;
  kf_module *m = NULL;
  kf_program *prog = NULL;
  char *ptx = NULL;
  void *dptr = NULL;
  CUmodule raw_mod = NULL;

  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_GPU;
  ro.disk_cache = 0;
  if (kf_runtime_create(ctx, &ro, &rt) != KF_OK) {
    const char *d = kf_context_diagnostics(ctx);
    printf("bench_dispatch: GPU section: no GPU: skipped (%.*s)\n", (int)strcspn(d, "\n"), d);
    kf_context_destroy(ctx);
    printf("RESULT dispatch lookup_ns=%.1f sim_launch_ns=%.1f\n", lookup_ns, sim_launch_ns);
    return 0;
  }
  const char *why = load_driver();
  if (why) {
    printf("bench_dispatch: GPU section: no GPU: skipped (libcuda.so.1: %s)\n", why);
    goto done_ok;
  }
  kf_device_info info;
  if (kf_runtime_device_info(rt, &info) != KF_OK) goto fail;
  printf("bench_dispatch: %s\n", kf_runtime_describe(rt));

  /* compile once; both paths use this module */
  kf_compile_options co;
  kf_compile_options_init(&co);
  const char *names[1] = {kKernel}, *sigs[1] = {kSignature};
  co.kernels = names;
  co.nkernels = 1;
  co.signatures = sigs;
  co.nsignatures = 1;
  if (kf_compile_source(ctx, "tiny.py", kSource, sizeof kSource - 1, &co, &m) != KF_OK) goto fail;
  kf_codegen_options cg;
  kf_codegen_options_init(&cg);
  cg.arch = (unsigned)(info.cc_major * 10 + info.cc_minor);
  if (kf_module_emit_ptx(m, &cg, &ptx, NULL) != KF_OK) goto fail;
  char entry[512];
  int nparams = 0;
  if (!ptx_entry(ptx, entry, sizeof entry, &nparams)) {
    fprintf(stderr, "bench_dispatch: no .entry in the PTX\n");
    goto fail;
  }
  if ((unsigned)nparams != kf_abi_param_count(1) + 1) {
    fprintf(stderr, "bench_dispatch: entry %s has %d parameters, the ABI says %u\n", entry, nparams,
            kf_abi_param_count(1) + 1);
    goto fail;
  }

  /* kfront's path */
  if (kf_device_alloc(rt, N_ELEMS * sizeof(float), &dptr) != KF_OK) goto fail;
  if (kf_program_from_module(rt, m, &prog) != KF_OK) goto fail;
  kf_array arr;
  int64_t shape[1] = {N_ELEMS};
  kf_array_init(&arr, dptr, KF_MEMORY_DEVICE, KF_FLOAT32, 1, shape, 'C');
  kf_arg args[2] = {kf_arg_array(&arr), kf_arg_float(KF_FLOAT32, 3.0)};
  kf_kernel *k = NULL;
  kf_function *fn_tiny = NULL;
  if (kf_program_get_function(prog, kKernel, &fn_tiny) != KF_OK ||
      kf_function_specialize(fn_tiny, args, 2, &k) != KF_OK)
    goto fail;
  const unsigned grid[3] = {1, 1, 1}, block[3] = {N_ELEMS, 1, 1};

  /* the raw path: same primary context, same PTX */
  CUdevice dev;
  CUcontext cuctx;
  CUfunction fn;
  if (!cu_check(cu.cuInit(0), "cuInit") || !cu_check(cu.cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !cu_check(cu.cuDevicePrimaryCtxRetain(&cuctx, dev), "cuDevicePrimaryCtxRetain") ||
      !cu_check(cu.cuCtxSetCurrent(cuctx), "cuCtxSetCurrent") ||
      !cu_check(cu.cuModuleLoadData(&raw_mod, ptx), "cuModuleLoadData") ||
      !cu_check(cu.cuModuleGetFunction(&fn, raw_mod, entry), "cuModuleGetFunction"))
    goto fail;
  CUdeviceptr p_data = (CUdeviceptr)(uintptr_t)dptr;
  int64_t p_shape0 = N_ELEMS, p_stride0 = sizeof(float);
  float p_x = 2.0f;
  void *params[4] = {&p_data, &p_shape0, &p_stride0, &p_x};

  /* correctness: each path writes its value over a poisoned array */
  if (kf_memset_device(rt, dptr, 0xFF, N_ELEMS * sizeof(float), NULL) != KF_OK) goto fail;
  if (!cu_check(cu.cuLaunchKernel(fn, 1, 1, 1, N_ELEMS, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel") ||
      !cu_check(cu.cuCtxSynchronize(), "cuCtxSynchronize") || !check_values(rt, dptr, 2.0f, "raw cuLaunchKernel"))
    goto fail;
  if (kf_memset_device(rt, dptr, 0xFF, N_ELEMS * sizeof(float), NULL) != KF_OK) goto fail;
  if (kf_launch(k, grid, block, 0, NULL, args, 2) != KF_OK || kf_runtime_synchronize(rt) != KF_OK ||
      !check_values(rt, dptr, 3.0f, "kf_launch"))
    goto fail;
  printf("bench_dispatch: kernel %s, %s, PTX entry %s (%d params); results checked\n", kKernel,
         kf_kernel_signature(k), entry, nparams);

  for (int i = 0; i < WARMUP; i++) {
    if (kf_launch(k, grid, block, 0, NULL, args, 2) != KF_OK) goto fail;
    if (kf_function_launch(fn_tiny, grid, block, 0, NULL, args, 2) != KF_OK) goto fail;
    if (!cu_check(cu.cuLaunchKernel(fn, 1, 1, 1, N_ELEMS, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel")) goto fail;
  }
  if (kf_runtime_synchronize(rt) != KF_OK) goto fail;

  double kf_submit[MAX_ROUNDS], kf_total[MAX_ROUNDS], raw_submit[MAX_ROUNDS], raw_total[MAX_ROUNDS];
  double pr_submit[MAX_ROUNDS], pr_total[MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) {
    double t0 = now_us();
    for (long i = 0; i < launches; i++)
      if (kf_function_launch(fn_tiny, grid, block, 0, NULL, args, 2) != KF_OK) goto fail;
    double t1 = now_us();
    if (kf_runtime_synchronize(rt) != KF_OK) goto fail;
    double t2 = now_us();
    pr_submit[r] = (t1 - t0) / (double)launches;
    pr_total[r] = (t2 - t0) / (double)launches;

    t0 = now_us();
    for (long i = 0; i < launches; i++)
      if (kf_launch(k, grid, block, 0, NULL, args, 2) != KF_OK) goto fail;
    t1 = now_us();
    if (kf_runtime_synchronize(rt) != KF_OK) goto fail;
    t2 = now_us();
    kf_submit[r] = (t1 - t0) / (double)launches;
    kf_total[r] = (t2 - t0) / (double)launches;

    t0 = now_us();
    for (long i = 0; i < launches; i++)
      if (cu.cuLaunchKernel(fn, 1, 1, 1, N_ELEMS, 1, 1, 0, NULL, params, NULL) != 0) {
        cu_check(cu.cuLaunchKernel(fn, 1, 1, 1, N_ELEMS, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel");
        goto fail;
      }
    t1 = now_us();
    if (!cu_check(cu.cuCtxSynchronize(), "cuCtxSynchronize")) goto fail;
    t2 = now_us();
    raw_submit[r] = (t1 - t0) / (double)launches;
    raw_total[r] = (t2 - t0) / (double)launches;
  }
  double ps = median(pr_submit, rounds), pt = median(pr_total, rounds);
  double ks = median(kf_submit, rounds), kt = median(kf_total, rounds);
  double rs = median(raw_submit, rounds), rtot = median(raw_total, rounds);
  /* spread: min..max of the rounds (sorted by median()) */
  printf("bench_dispatch: %ld launches x %d rounds, medians (min..max) in microseconds per launch\n", launches,
         rounds);
  printf("  %-22s %8s %17s %10s %17s\n", "path", "submit", "", "with sync", "");
  printf("  %-22s %8.3f  (%6.3f..%6.3f) %10.3f  (%6.3f..%6.3f)\n", "kf_function_launch", ps, pr_submit[0],
         pr_submit[rounds - 1], pt, pr_total[0], pr_total[rounds - 1]);
  printf("  %-22s %8.3f  (%6.3f..%6.3f) %10.3f  (%6.3f..%6.3f)\n", "kf_launch", ks, kf_submit[0],
         kf_submit[rounds - 1], kt, kf_total[0], kf_total[rounds - 1]);
  printf("  %-22s %8.3f  (%6.3f..%6.3f) %10.3f  (%6.3f..%6.3f)\n", "raw cuLaunchKernel", rs, raw_submit[0],
         raw_submit[rounds - 1], rtot, raw_total[0], raw_total[rounds - 1]);
  printf("  ratio kf_function_launch / raw: submit %.3fx, with sync %.3fx (aim: <= 1.05x)\n", ps / rs, pt / rtot);
  printf("  ratio kf_launch / raw:          submit %.3fx, with sync %.3fx\n", ks / rs, kt / rtot);
  printf("RESULT launch_overhead kfront_us=%.3f raw_us=%.3f ratio=%.3f kfront_sync_us=%.3f raw_sync_us=%.3f "
         "ratio_sync=%.3f\n", ks, rs, ks / rs, kt, rtot, kt / rtot);
  snprintf(gpu_result, sizeof gpu_result, " prepared_us=%.3f raw_us=%.3f ratio=%.3f prepared_sync_us=%.3f "
           "raw_sync_us=%.3f ratio_sync=%.3f", ps, rs, ps / rs, pt, rtot, pt / rtot);
done_ok:
  status = 0;
  goto done;
fail:
  if (*kf_context_diagnostics(ctx)) fprintf(stderr, "%s", kf_context_diagnostics(ctx));
  fprintf(stderr, "bench_dispatch: failed\n");
  status = 1;
done:
  if (status == 0) printf("RESULT dispatch lookup_ns=%.1f sim_launch_ns=%.1f%s\n", lookup_ns, sim_launch_ns, gpu_result);
  if (raw_mod) cu.cuModuleUnload(raw_mod);
  kf_program_destroy(prog);
  if (dptr) kf_device_free(rt, dptr);
  kf_module_destroy(m);
  kf_free(ptx);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return status;
}
