/* launch_overhead.c — host cost of one kernel launch through kfront's C API (kf_launch) against a raw
 * cuLaunchKernel of the same PTX, on the GPU. A benchmark, not a test: without a GPU it prints
 * "launch_overhead: no GPU: skipped (...)" and exits 0.
 *
 *   build/bin/launch_overhead [LAUNCHES [ROUNDS]]        (default 10000 launches, 9 rounds)
 *
 * The kernel (compiled from the Python string below with kf_compile_source, signature
 * void(float32[::1], float32): what kfront's runtime picks for a contiguous device array and a float32):
 *     i = cuda.grid(1); if i < a.size: a[i] = x
 * launched as 1 block of 256 threads over a 256-element device array (kf_device_alloc), no host copies.
 *  - kfront: kf_program_from_module over that module, kf_program_get_kernel, then kf_launch (argument and
 *    launch checks, parameter packing, cuLaunchKernel) on the default stream, arguments built once.
 *  - raw: libcuda.so.1 dlopen'd here, the same primary context, cuModuleLoadData of the PTX that
 *    kf_module_emit_ptx gave for the device's arch (the runtime compiles the same module with the same
 *    options), cuLaunchKernel with the kernel ABI's parameters (data, shape0, stride0, x) packed once.
 * Each round does LAUNCHES launches back to back and then synchronises; "submit" is the loop alone per
 * launch, "with sync" includes the final synchronise (where the GPU, not the host, may be the limit).
 * The two paths alternate round by round after 1000 untimed launches each; medians over the rounds.
 * Results are checked first: each path writes its own value over a poisoned array. */
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
  fprintf(stderr, "launch_overhead: %s failed: %s (%d)\n", what, name, r);
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
      fprintf(stderr, "launch_overhead: %s wrote %g at [%d], expected %g\n", who, host[i], i, want);
      return 0;
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  long launches = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
  int rounds = argc > 2 ? atoi(argv[2]) : 9;
  if (launches < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
    fprintf(stderr, "usage: launch_overhead [LAUNCHES [ROUNDS <= %d]]\n", MAX_ROUNDS);
    return 2;
  }
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
    printf("launch_overhead: no GPU: skipped (%.*s)\n", (int)strcspn(d, "\n"), d);
    kf_context_destroy(ctx);
    return 0;
  }
  const char *why = load_driver();
  if (why) {
    printf("launch_overhead: no GPU: skipped (libcuda.so.1: %s)\n", why);
    goto done_ok;
  }
  kf_device_info info;
  if (kf_runtime_device_info(rt, &info) != KF_OK) goto fail;
  printf("launch_overhead: %s\n", kf_runtime_describe(rt));

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
    fprintf(stderr, "launch_overhead: no .entry in the PTX\n");
    goto fail;
  }
  if ((unsigned)nparams != kf_abi_param_count(1) + 1) {
    fprintf(stderr, "launch_overhead: entry %s has %d parameters, the ABI says %u\n", entry, nparams,
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
  if (kf_program_get_kernel(prog, kKernel, args, 2, &k) != KF_OK) goto fail;
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
  printf("launch_overhead: kernel %s, %s, PTX entry %s (%d params); results checked\n", kKernel,
         kf_kernel_signature(k), entry, nparams);

  for (int i = 0; i < WARMUP; i++) {
    if (kf_launch(k, grid, block, 0, NULL, args, 2) != KF_OK) goto fail;
    if (!cu_check(cu.cuLaunchKernel(fn, 1, 1, 1, N_ELEMS, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel")) goto fail;
  }
  if (kf_runtime_synchronize(rt) != KF_OK) goto fail;

  double kf_submit[MAX_ROUNDS], kf_total[MAX_ROUNDS], raw_submit[MAX_ROUNDS], raw_total[MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) {
    double t0 = now_us();
    for (long i = 0; i < launches; i++)
      if (kf_launch(k, grid, block, 0, NULL, args, 2) != KF_OK) goto fail;
    double t1 = now_us();
    if (kf_runtime_synchronize(rt) != KF_OK) goto fail;
    double t2 = now_us();
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
  double ks = median(kf_submit, rounds), kt = median(kf_total, rounds);
  double rs = median(raw_submit, rounds), rtot = median(raw_total, rounds);
  /* spread: min..max of the rounds (sorted by median()) */
  printf("launch_overhead: %ld launches x %d rounds, medians (min..max) in microseconds per launch\n", launches,
         rounds);
  printf("  %-22s %8s %17s %10s %17s\n", "path", "submit", "", "with sync", "");
  printf("  %-22s %8.3f  (%6.3f..%6.3f) %10.3f  (%6.3f..%6.3f)\n", "kf_launch", ks, kf_submit[0],
         kf_submit[rounds - 1], kt, kf_total[0], kf_total[rounds - 1]);
  printf("  %-22s %8.3f  (%6.3f..%6.3f) %10.3f  (%6.3f..%6.3f)\n", "raw cuLaunchKernel", rs, raw_submit[0],
         raw_submit[rounds - 1], rtot, raw_total[0], raw_total[rounds - 1]);
  printf("  ratio kf_launch / raw: submit %.3fx, with sync %.3fx (aim: < 1.2x)\n", ks / rs, kt / rtot);
  printf("RESULT launch_overhead kfront_us=%.3f raw_us=%.3f ratio=%.3f kfront_sync_us=%.3f raw_sync_us=%.3f "
         "ratio_sync=%.3f\n", ks, rs, ks / rs, kt, rtot, kt / rtot);
done_ok:
  status = 0;
  goto done;
fail:
  if (*kf_context_diagnostics(ctx)) fprintf(stderr, "%s", kf_context_diagnostics(ctx));
  fprintf(stderr, "launch_overhead: failed\n");
  status = 1;
done:
  if (raw_mod) cu.cuModuleUnload(raw_mod);
  kf_program_destroy(prog);
  if (dptr) kf_device_free(rt, dptr);
  kf_module_destroy(m);
  kf_free(ptx);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return status;
}
