/* runtime_gpu_multi_fake.c — the GPU side of several devices without a GPU: a fake driver table
 * (rt_cuda_install) with three devices, each with its own primary context, the current context per host
 * thread as the driver keeps it, memory that remembers which device allocated it, and peer access between
 * devices 0 and 1 only. So runtime/device_gpu.c's multi-device code runs end to end: the count and each
 * device's properties without a context, a runtime per device on its own context (every copy made with the
 * context of the memory's device, the thread's chosen context given back after it), kf_runtime_make_current
 * setting the thread's context, peer copies through
 * cuMemcpyPeer / cuMemcpyPeerAsync with peer access enabled once per pair (an "already enabled" from another
 * runtime of the device accepted), copies between devices without peer access staged through pinned host
 * memory, a driver without the peer entry points staging every copy, the device of foreign memory asked of the
 * driver, and the disk cache's entries shared by devices of one compute capability (not by one of another). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfront/kfront.h"
#include "runtime/cache.h"
#include "runtime/cuda_driver.h"
#include "runtime/rt.h"
#include "runtime_test.h"

/* ---- the fake driver -------------------------------------------------------------------------------- */

enum { NDEV = 3, MAX_ALLOCS = 64 };

static struct {
  struct { char *p; size_t n; int dev; } allocs[MAX_ALLOCS];
  int wrong_context;     /* copies of device memory made with another device's context current */
  int peer_copies, peer_async_copies, enables, host_allocs, host_frees, retains, releases, loads[NDEV];
  int enabled[NDEV][NDEV];
} fake;

static _Thread_local CUcontext current;
static CUcontext ctx_of(int d) { return (CUcontext)(uintptr_t)(0x1000 + d); }
static int dev_of_ctx(CUcontext c) {
  for (int d = 0; d < NDEV; d++)
    if (c == ctx_of(d)) return d;
  return -1;
}
/* The device that allocated p (an address inside an allocation), or -1. */
static int dev_of_ptr(CUdeviceptr p) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (fake.allocs[i].p && (char *)(uintptr_t)p >= fake.allocs[i].p &&
        (char *)(uintptr_t)p < fake.allocs[i].p + fake.allocs[i].n)
      return fake.allocs[i].dev;
  return -1;
}
static void check_context(CUdeviceptr p) {
  if (dev_of_ptr(p) != dev_of_ctx(current)) fake.wrong_context++;
}

static CUresult f_init(unsigned flags) { return CUDA_SUCCESS; }
static CUresult f_version(int *v) { *v = 12080; return CUDA_SUCCESS; }
static CUresult f_errname(CUresult r, const char **s) { *s = "CUDA_ERROR_FAKE"; return CUDA_SUCCESS; }
static CUresult f_errstring(CUresult r, const char **s) { *s = "fake error"; return CUDA_SUCCESS; }
static CUresult f_count(int *n) { *n = NDEV; return CUDA_SUCCESS; }
static CUresult f_get(CUdevice *d, int i) { *d = i; return i >= 0 && i < NDEV ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
static CUresult f_name(char *s, int n, CUdevice d) { snprintf(s, (size_t)n, "Fake GPU %d", d); return CUDA_SUCCESS; }
static CUresult f_attr(int *v, int a, CUdevice d) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 100 + d; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = d == 2 ? 8 : 9; break;  /* device 2 is another kind */
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
static CUresult f_retain(CUcontext *c, CUdevice d) { *c = ctx_of(d); fake.retains++; return CUDA_SUCCESS; }
static CUresult f_release(CUdevice d) { fake.releases++; return CUDA_SUCCESS; }
static CUresult f_setcur(CUcontext c) {
  if (c && dev_of_ctx(c) < 0) return CUDA_ERROR_INVALID_VALUE;
  current = c;
  return CUDA_SUCCESS;
}
static CUresult f_getcur(CUcontext *c) { *c = current; return CUDA_SUCCESS; }
static CUresult f_sync(void) { return CUDA_SUCCESS; }
/* the runtime sizes its pending-deallocation limit by the device's memory: an 80 GiB card */
static CUresult f_meminfo(size_t *free_bytes, size_t *total_bytes) {
  *free_bytes = *total_bytes = (size_t)80 << 30;
  return CUDA_SUCCESS;
}

static CUresult f_alloc(CUdeviceptr *p, size_t n) {
  int d = dev_of_ctx(current);
  if (d < 0) return CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (!fake.allocs[i].p) {
      fake.allocs[i].p = malloc(n);
      fake.allocs[i].n = n;
      fake.allocs[i].dev = d;
      *p = (CUdeviceptr)(uintptr_t)fake.allocs[i].p;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult f_free(CUdeviceptr p) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (fake.allocs[i].p == (char *)(uintptr_t)p) {
      check_context(p);
      free(fake.allocs[i].p);
      fake.allocs[i].p = NULL;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}
static CUresult f_htod(CUdeviceptr d, const void *s, size_t n) {
  check_context(d);
  memcpy((void *)(uintptr_t)d, s, n);
  return CUDA_SUCCESS;
}
static CUresult f_dtoh(void *d, CUdeviceptr s, size_t n) {
  check_context(s);
  memcpy(d, (void *)(uintptr_t)s, n);
  return CUDA_SUCCESS;
}
static CUresult f_dtod(CUdeviceptr d, CUdeviceptr s, size_t n) {
  check_context(d);
  memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
  return CUDA_SUCCESS;
}
static CUresult f_htod_a(CUdeviceptr d, const void *s, size_t n, CUstream st) { return f_htod(d, s, n); }
static CUresult f_dtoh_a(void *d, CUdeviceptr s, size_t n, CUstream st) { return f_dtoh(d, s, n); }
static CUresult f_dtod_a(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { return f_dtod(d, s, n); }
static CUresult f_host_alloc(void **p, size_t n, unsigned flags) {
  *p = malloc(n);
  fake.host_allocs++;
  return CUDA_SUCCESS;
}
static CUresult f_host_free(void *p) {
  free(p);
  fake.host_frees++;
  return CUDA_SUCCESS;
}
static CUresult f_screate(CUstream *s, unsigned flags) {
  *s = (CUstream)malloc(1);
  return CUDA_SUCCESS;
}
static CUresult f_sdestroy(CUstream s) { free(s); return CUDA_SUCCESS; }
static CUresult f_ssync(CUstream s) { return CUDA_SUCCESS; }

static CUresult f_can_access(int *can, CUdevice a, CUdevice b) {
  *can = a != b && a < 2 && b < 2;
  return CUDA_SUCCESS;
}
static CUresult f_enable(CUcontext peer, unsigned flags) {
  int a = dev_of_ctx(current), b = dev_of_ctx(peer);
  if (a < 0 || b < 0 || a == b) return CUDA_ERROR_INVALID_VALUE;
  if (fake.enabled[a][b]) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  fake.enabled[a][b] = 1;
  fake.enables++;
  return CUDA_SUCCESS;
}
static CUresult f_peer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n) {
  if (dev_of_ptr(d) != dev_of_ctx(dc) || dev_of_ptr(s) != dev_of_ctx(sc)) return CUDA_ERROR_INVALID_VALUE;
  memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
  fake.peer_copies++;
  return CUDA_SUCCESS;
}
static CUresult f_peer_a(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st) {
  fake.peer_async_copies++;
  return f_peer(d, dc, s, sc, n);
}

static CUresult f_pointer(void *data, int attr, CUdeviceptr p) {
  int d = dev_of_ptr(p);
  if (attr != CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL || d < 0) return CUDA_ERROR_INVALID_VALUE;
  *(int *)data = d;
  return CUDA_SUCCESS;
}

/* modules: the PTX text kept, its entries found by name */
static CUresult f_load(CUmodule *m, const void *image, unsigned nopts, int *opts, void **vals) {
  int d = dev_of_ctx(current);
  if (d < 0) return CUDA_ERROR_INVALID_VALUE;
  fake.loads[d]++;
  *m = (CUmodule)strdup(image);
  return CUDA_SUCCESS;
}
static CUresult f_unload_module(CUmodule m) { free(m); return CUDA_SUCCESS; }
static CUresult f_getfn(CUfunction *fn, CUmodule m, const char *name) {
  char pattern[80];
  snprintf(pattern, sizeof pattern, ".entry %s(", name);
  if (!strstr((char *)m, pattern)) return CUDA_ERROR_NOT_FOUND;
  *fn = (CUfunction)m;
  return CUDA_SUCCESS;
}
static CUresult f_getglobal(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name) { return CUDA_ERROR_NOT_FOUND; }
static CUresult f_fnattr(int *v, int a, CUfunction fn) {
  if (a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) *v = 1024;
  else if (a == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) *v = 0;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

static RtCuda table(int with_peer) {
  RtCuda t = {
      .cuInit = f_init, .cuDriverGetVersion = f_version, .cuGetErrorName = f_errname, .cuGetErrorString = f_errstring,
      .cuDeviceGetCount = f_count, .cuDeviceGet = f_get, .cuDeviceGetName = f_name, .cuDeviceGetAttribute = f_attr,
      .cuDevicePrimaryCtxRetain = f_retain, .cuDevicePrimaryCtxRelease = f_release, .cuCtxSetCurrent = f_setcur,
      .cuCtxGetCurrent = f_getcur, .cuCtxSynchronize = f_sync, .cuModuleUnload = f_unload_module,
      .cuMemGetInfo = f_meminfo,
      .cuModuleLoadDataEx = f_load, .cuModuleGetFunction = f_getfn, .cuModuleGetGlobal = f_getglobal,
      .cuFuncGetAttribute = f_fnattr, .cuMemAlloc = f_alloc,
      .cuMemFree = f_free, .cuMemcpyHtoD = f_htod, .cuMemcpyDtoH = f_dtoh, .cuMemcpyDtoD = f_dtod,
      .cuMemcpyHtoDAsync = f_htod_a, .cuMemcpyDtoHAsync = f_dtoh_a, .cuMemcpyDtoDAsync = f_dtod_a,
      .cuMemHostAlloc = f_host_alloc, .cuMemFreeHost = f_host_free, .cuStreamCreate = f_screate,
      .cuStreamDestroy = f_sdestroy, .cuStreamSynchronize = f_ssync,
  };
  if (with_peer) {
    t.cuDeviceCanAccessPeer = f_can_access;
    t.cuCtxEnablePeerAccess = f_enable;
    t.cuMemcpyPeer = f_peer;
    t.cuMemcpyPeerAsync = f_peer_a;
    t.cuPointerGetAttribute = f_pointer;
  }
  return t;
}

/* ---- the checks ----------------------------------------------------------------------------------- */

static kf_runtime *gpu(kf_context *ctx, int device) {
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.device = device;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  return rt;
}

static void *filled(kf_runtime *rt, size_t n, int base) {
  void *p = NULL;
  CHECK(kf_device_alloc(rt, n * sizeof(int), &p) == KF_OK);
  int *h = malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++) h[i] = base + (int)i;
  CHECK(kf_memcpy_to_device(rt, p, h, n * sizeof *h, NULL) == KF_OK);
  free(h);
  return p;
}

static int holds(kf_runtime *rt, const void *p, size_t n, int base) {
  int *h = malloc(n * sizeof *h);
  int ok = kf_memcpy_to_host(rt, h, p, n * sizeof *h, NULL) == KF_OK;
  for (size_t i = 0; ok && i < n; i++) ok = h[i] == base + (int)i;
  free(h);
  return ok;
}

static void test_devices(kf_context *ctx) {
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  int n = 0;
  CHECK(kf_device_count(ctx, &o, &n) == KF_OK && n == NDEV);  /* AUTO: the GPUs, since there are some */
  o.mode = KF_RUNTIME_GPU;
  o.sim_devices = 7;  /* the simulator's, not read here */
  CHECK(kf_device_count(ctx, &o, &n) == KF_OK && n == NDEV);
  kf_device_info info;
  CHECK(kf_device_get_info(ctx, &o, 2, &info) == KF_OK && strcmp(info.name, "Fake GPU 2") == 0 &&
        info.multiprocessors == 102 && info.cc_major == 8);
  CHECK(fake.retains == 0);  /* properties without a context */
  CHECK(kf_device_get_info(ctx, &o, 3, &info) == KF_ERROR_NOT_FOUND);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no CUDA device 3 (there are 3)");
  kf_context_clear_diagnostics(ctx);

  o.device = 3;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_ERROR_NOT_FOUND && rt == NULL);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no CUDA device 3 (the driver reports 3 devices)");
  kf_context_clear_diagnostics(ctx);
  o.mode = KF_RUNTIME_AUTO;  /* GPUs there: a missing one is an error, not the simulator */
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_ERROR_NOT_FOUND && rt == NULL);
  kf_context_clear_diagnostics(ctx);

  rt = gpu(ctx, 1);
  CHECK(strcmp(kf_runtime_describe(rt), "GPU 1: Fake GPU 1 (sm_90, 101 SMs)") == 0);
  CHECK(kf_runtime_device(rt) == 1 && kf_runtime_get_mode(rt) == KF_RUNTIME_GPU);
  kf_runtime_destroy(rt);
  CHECK(fake.retains == fake.releases);
}

static void test_contexts_and_copies(kf_context *ctx) {
  kf_runtime *rt[NDEV];
  current = NULL;  /* as on a thread that has no context yet */
  for (int d = 0; d < NDEV; d++) rt[d] = gpu(ctx, d);
  CHECK(current == ctx_of(0));  /* the first runtime's context became the thread's, which had none */
  CHECK(kf_runtime_make_current(rt[2]) == KF_OK && current == ctx_of(2) && kf_current_device() == 2);
  CHECK(kf_runtime_make_current(rt[0]) == KF_OK && current == ctx_of(0) && kf_current_device() == 0);

  /* each runtime's memory on its device, every copy made in that device's context whatever is current */
  enum { N = 3000 };
  void *m[NDEV];
  for (int d = 0; d < NDEV; d++) m[d] = filled(rt[d], N, 1000 * d);
  for (int d = 0; d < NDEV; d++) CHECK(holds(rt[d], m[d], N, 1000 * d));
  CHECK(fake.wrong_context == 0);
  CHECK(current == ctx_of(0));  /* work on other devices gave the thread's chosen context back */
  kf_runtime *late = gpu(ctx, 2);  /* so does making a runtime */
  CHECK(current == ctx_of(0));
  kf_runtime_destroy(late);
  CHECK(current == ctx_of(0));
  /* the device of memory, asked of the driver from any runtime (an interior address too); host memory: none */
  for (int d = 0; d < NDEV; d++) CHECK(kf_runtime_pointer_device(rt[0], (char *)m[d] + 8) == d);
  int on_host = 0;
  CHECK(kf_runtime_pointer_device(rt[1], &on_host) == -1 && kf_runtime_pointer_device(rt[1], NULL) == -1);

  int can = -1;
  CHECK(kf_device_can_access_peer(rt[0], rt[1], &can) == KF_OK && can == 1);
  CHECK(fake.enables == 1 && fake.enabled[0][1]);  /* enabled when found, once */
  CHECK(kf_device_can_access_peer(rt[0], rt[1], &can) == KF_OK && can == 1 && fake.enables == 1);
  CHECK(kf_device_can_access_peer(rt[0], rt[2], &can) == KF_OK && can == 0);
  CHECK(kf_device_can_access_peer(rt[2], rt[2], &can) == KF_OK && can == 0);

  /* peers: cuMemcpyPeer, then on a stream cuMemcpyPeerAsync */
  CHECK(kf_memcpy_peer(rt[1], m[1], rt[0], m[0], N * sizeof(int), NULL) == KF_OK);
  CHECK(fake.peer_copies == 1 && fake.enabled[1][0] && fake.enables == 2 && holds(rt[1], m[1], N, 0));
  kf_stream *s = NULL;
  CHECK(kf_stream_create(rt[0], &s) == KF_OK);
  void *m1b = filled(rt[1], N, 77);
  CHECK(kf_memcpy_peer(rt[0], m[0], rt[1], m1b, N * sizeof(int), s) == KF_OK);
  CHECK(fake.peer_async_copies == 1 && fake.peer_copies == 2 && holds(rt[0], m[0], N, 77));

  /* no peer access: staged through pinned host memory, with each device's own context */
  int hosts = fake.host_allocs, peers = fake.peer_copies;
  CHECK(kf_memcpy_peer(rt[2], m[2], rt[0], m[0], N * sizeof(int), s) == KF_OK);
  CHECK(fake.peer_copies == peers && fake.host_allocs == hosts + 1 && fake.host_frees == fake.host_allocs);
  CHECK(holds(rt[2], m[2], N, 77) && fake.wrong_context == 0);
  kf_stream_destroy(s);

  /* another runtime of device 1 meets access its device enabled already: accepted */
  kf_runtime *again = gpu(ctx, 1);
  CHECK(kf_device_can_access_peer(again, rt[0], &can) == KF_OK && can == 1);
  void *m1c = filled(again, N, 5);
  CHECK(kf_memcpy_peer(rt[0], m[0], again, m1c, N * sizeof(int), NULL) == KF_OK && holds(rt[0], m[0], N, 5));
  CHECK(kf_device_free(again, m1c) == KF_OK);
  kf_runtime_destroy(again);

  CHECK(kf_device_free(rt[1], m1b) == KF_OK);
  for (int d = 0; d < NDEV; d++) {
    CHECK(kf_device_free(rt[d], m[d]) == KF_OK);
    kf_runtime_destroy(rt[d]);
  }
  CHECK(fake.wrong_context == 0 && fake.retains == fake.releases);
  CHECK(kf_context_error_count(ctx) == 0);
}

/* The disk cache's key names the compute capability, not the device: an entry written for device 0 is device
 * 1's too (each loads it into its own context; nothing is compiled), and device 2, of another kind, misses. */
static void test_disk_cache_by_kind(kf_context *ctx) {
  char dir[] = "/tmp/kfront-multigpu-fake-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  const char *source = "from numba import cuda\n@cuda.jit\ndef fill(a):\n"
                       "    never_typed(a)  # never compiled: every device finds its kernel in the disk cache\n";
  const char *payload = "kfront-kernel 4\nentry fill\nplan hidden=- grid=given block=0,0,0 divisor=1,1,1 shared=0\n"
                        "params 1\narray<f32, 1, A>\nptx\n// fake PTX\n.visible .entry fill(\n";
  kf_runtime *rt[NDEV];
  kf_program *p[NDEV];
  RtCacheKey key[NDEV];
  for (int d = 0; d < NDEV; d++) {
    kf_runtime_options o;
    kf_runtime_options_init(&o);
    o.mode = KF_RUNTIME_GPU;
    o.device = d;
    o.cache_dir = dir;
    o.backend = KF_BACKEND_LLVM;
    CHECK(kf_runtime_create(ctx, &o, &rt[d]) == KF_OK);
    CHECK(kf_program_create(rt[d], "k.py", source, strlen(source), NULL, &p[d]) == KF_OK);
    CHECK(rt_program_cache_key((RtProgram *)p[d], "fill", "void(float32[::1])", &key[d]));
  }
  CHECK(memcmp(key[0].bytes, key[1].bytes, sizeof key[0].bytes) == 0);  /* sm_90 both */
  CHECK(memcmp(key[0].bytes, key[2].bytes, sizeof key[0].bytes) != 0);  /* sm_80 */
  CHECK(rt_cache_write_entry(dir, &key[0], payload, strlen(payload), NULL));
  float data[4];
  int64_t n = 4;
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  kf_arg arg = kf_arg_array(&a);
  for (int d = 0; d < 2; d++) {
    kf_kernel *k = NULL;
    CHECK(kf_program_get_kernel(p[d], "fill", &arg, 1, &k) == KF_OK && k && kf_kernel_cache_source(k) == 2);
    kf_runtime_stats st;
    kf_runtime_get_stats(rt[d], &st);
    CHECK(st.cache_disk_hits == 1 && st.compiles == 0 && fake.loads[d] == 1);
  }
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p[2], "fill", &arg, 1, &k) != KF_OK);  /* a miss: the "source" is no Python */
  kf_runtime_stats st;
  kf_runtime_get_stats(rt[2], &st);
  CHECK(st.cache_disk_hits == 0 && st.cache_misses == 1 && fake.loads[2] == 0);
  kf_context_clear_diagnostics(ctx);
  for (int d = 0; d < NDEV; d++) {
    kf_program_destroy(p[d]);
    kf_runtime_destroy(rt[d]);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* a driver without the peer entry points: every copy between devices is staged */
static void test_no_peer_entry_points(kf_context *ctx) {
  kf_runtime *a = gpu(ctx, 0), *b = gpu(ctx, 1);
  int can = -1;
  CHECK(kf_device_can_access_peer(a, b, &can) == KF_OK && can == 0);
  void *pa = filled(a, 100, 3), *pb = filled(b, 100, 0);
  int peers = fake.peer_copies, hosts = fake.host_allocs;
  CHECK(kf_memcpy_peer(b, pb, a, pa, 100 * sizeof(int), NULL) == KF_OK);
  CHECK(fake.peer_copies == peers && fake.host_allocs == hosts + 1 && holds(b, pb, 100, 3));
  kf_device_free(a, pa);
  kf_device_free(b, pb);
  kf_runtime_destroy(a);
  kf_runtime_destroy(b);
}

int main(void) {
  RtCuda t = table(1);
  rt_cuda_install(&t);
  kf_context *ctx = kf_context_create();
  test_devices(ctx);
  test_contexts_and_copies(ctx);
  test_disk_cache_by_kind(ctx);
  t = table(0);
  rt_cuda_install(&t);
  test_no_peer_entry_points(ctx);
  rt_cuda_install(NULL);
  if (kf_context_error_count(ctx)) fprintf(stderr, "%s\n", kf_context_diagnostics(ctx));
  CHECK(kf_context_error_count(ctx) == 0);
  kf_context_destroy(ctx);
  return test_result("runtime_gpu_multi_fake");
}
