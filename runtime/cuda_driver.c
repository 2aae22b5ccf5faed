/* cuda_driver.c — dlopen of libcuda.so.1, the entry-point table, cuInit once, fork detection, and error texts.
 *
 * The table is filled by dlsym from RT_CUDA_FUNCTIONS; a library lacking any entry point is refused as a
 * whole (a partial table would fail later, far from the cause). The optional entry points (occupancy, peer
 * access) may be missing: their fields stay NULL. Loading and cuInit happen once, under a
 * mutex; the outcome (table or failure text) is then read-only, so any thread may use it. */
#include "runtime/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rt_cuda_library_name(const char *path) { return path && *path ? path : "libcuda.so.1"; }

bool rt_cuda_open(RtCuda *t, const char *path, StrBuf *err) {
  memset(t, 0, sizeof *t);
  dlerror();
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    sb_printf(err, "no CUDA driver found (%s): %s", path, why ? why : "dlopen failed");
    return false;
  }
  RtCuda tmp = {.lib = lib};
#define RT_CUDA_LOAD(field, symbol, params)                                                  \
  *(void **)&tmp.field = dlsym(lib, symbol);                                                 \
  if (!tmp.field) {                                                                          \
    sb_printf(err, "no CUDA driver found (%s): the library lacks %s, so it is not a usable " \
              "CUDA driver (or it is older than CUDA 11)", path, symbol);                    \
    dlclose(lib);                                                                            \
    return false;                                                                            \
  }
  RT_CUDA_FUNCTIONS(RT_CUDA_LOAD)
#undef RT_CUDA_LOAD
  *(void **)&tmp.cuOccupancyMaxActiveBlocksPerMultiprocessor = dlsym(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  *(void **)&tmp.cuDeviceCanAccessPeer = dlsym(lib, "cuDeviceCanAccessPeer");
  *(void **)&tmp.cuCtxEnablePeerAccess = dlsym(lib, "cuCtxEnablePeerAccess");
  *(void **)&tmp.cuMemcpyPeer = dlsym(lib, "cuMemcpyPeer");
  *(void **)&tmp.cuMemcpyPeerAsync = dlsym(lib, "cuMemcpyPeerAsync");
  *(void **)&tmp.cuPointerGetAttribute = dlsym(lib, "cuPointerGetAttribute");
  *(void **)&tmp.cuLaunchCooperativeKernel = dlsym(lib, "cuLaunchCooperativeKernel");
  *(void **)&tmp.cuIpcGetMemHandle = dlsym(lib, "cuIpcGetMemHandle");
  *(void **)&tmp.cuIpcOpenMemHandle = dlsym(lib, "cuIpcOpenMemHandle_v2");  /* cuda.h's name since CUDA 11 */
  if (!tmp.cuIpcOpenMemHandle) *(void **)&tmp.cuIpcOpenMemHandle = dlsym(lib, "cuIpcOpenMemHandle");
  *(void **)&tmp.cuIpcCloseMemHandle = dlsym(lib, "cuIpcCloseMemHandle");
  *(void **)&tmp.cuMemAllocManaged = dlsym(lib, "cuMemAllocManaged");
  *(void **)&tmp.cuMemGetAddressRange = dlsym(lib, "cuMemGetAddressRange_v2");
  *(void **)&tmp.cuLibraryLoadData = dlsym(lib, "cuLibraryLoadData");
  *(void **)&tmp.cuLibraryGetModule = dlsym(lib, "cuLibraryGetModule");
  *(void **)&tmp.cuLibraryUnload = dlsym(lib, "cuLibraryUnload");
  *(void **)&tmp.cuLinkCreate = dlsym(lib, "cuLinkCreate_v2");
  *(void **)&tmp.cuLinkAddData = dlsym(lib, "cuLinkAddData_v2");
  *(void **)&tmp.cuLinkComplete = dlsym(lib, "cuLinkComplete");
  *(void **)&tmp.cuLinkDestroy = dlsym(lib, "cuLinkDestroy");
  *t = tmp;
  return true;
}

void rt_cuda_close(RtCuda *t) {
  if (t->lib) dlclose(t->lib);
  memset(t, 0, sizeof *t);
}

void rt_cu_error_text(const RtCuda *cu, CUresult r, const char *call, StrBuf *out) {
  const char *name = NULL, *text = NULL;
  if (cu && cu->cuGetErrorName && cu->cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
  if (cu && cu->cuGetErrorString && cu->cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
  if (name) sb_printf(out, "%s failed: %s (%s)", call, name, text ? text : "no description");
  else sb_printf(out, "%s failed: CUDA error %d (unknown to this driver)", call, r);
}

bool rt_cu_check(const RtCuda *cu, CUresult r, const char *call, Diag *diag) {
  if (r == CUDA_SUCCESS) return true;
  if (diag) {
    StrBuf b;
    sb_init(&b);
    rt_cu_error_text(cu, r, call, &b);
    DiagKind prev = diag_set_kind(r == CUDA_ERROR_OUT_OF_MEMORY ? DIAG_KIND_OUT_OF_MEMORY : DIAG_KIND_DEVICE);
    diag_error(diag, srcloc(NULL, 0, 0), "%s", sb_cstr(&b));
    diag_set_kind(prev);
    sb_free(&b);
  }
  return false;
}

bool rt_cu_check_alloc(const RtCuda *cu, CUresult r, const char *call, size_t bytes, const char *what, Diag *diag) {
  if (r != CUDA_ERROR_OUT_OF_MEMORY) return rt_cu_check(cu, r, call, diag);
  if (diag) {
    DiagKind prev = diag_set_kind(DIAG_KIND_OUT_OF_MEMORY);
    diag_error(diag, srcloc(NULL, 0, 0), "out of memory allocating %zu bytes of %s (%s: CUDA_ERROR_OUT_OF_MEMORY)",
               bytes, what, call);
    diag_set_kind(prev);
  }
  return false;
}

unsigned rt_cu_occupancy(const RtCuda *cu, CUfunction fn, unsigned block_threads, size_t dynamic_shared) {
  int n = 0;
  if (cu && cu->cuOccupancyMaxActiveBlocksPerMultiprocessor &&
      cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, (int)block_threads, dynamic_shared) == CUDA_SUCCESS &&
      n > 0)
    return (unsigned)n;
  unsigned f = block_threads ? 2048 / block_threads : 1;
  return f ? f : 1;
}

/* ---- the process-wide table ----------------------------------------------------------------- */

static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;        /* load_once ran (under once_lock; read after it by every caller) */
static RtCuda driver;
static bool driver_ok;
static char driver_failure[1024];
static const RtCuda *installed;  /* a test's fake table */
static RtCuda installed_copy;
static atomic_bool forked;      /* this process is a fork() child of one that initialised the driver */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A child made by fork() after cuInit inherits no usable CUDA state (CUDA's programming guide): it must not call
 * the driver. The handler marks it; rt_cuda and every device entry point then refuse, with numba-cuda's words. */
static void mark_forked(void) { atomic_store(&forked, true); }
static void watch_fork(void) { pthread_atfork(NULL, NULL, mark_forked); }

bool rt_cuda_forked(Diag *diag) {
  if (!atomic_load(&forked)) return false;
  if (diag) {
    DiagKind prev = diag_set_kind(DIAG_KIND_DEVICE); /* numba-cuda's CudaDriverError */
    diag_error(diag, srcloc(NULL, 0, 0), "CUDA initialized before forking: this process was made by fork() after "
                                         "its parent used CUDA, and cannot use the driver (start it with the 'spawn' "
                                         "or 'forkserver' method of multiprocessing instead)");
    diag_set_kind(prev);
  }
  return true;
}

static void load_once(const char *path) {
  StrBuf err;
  sb_init(&err);
  if (rt_cuda_open(&driver, path, &err)) {
    CUresult r = driver.cuInit(0);
    if (r == CUDA_SUCCESS) {
      driver_ok = true;
      pthread_once(&atfork_once, watch_fork);
    } else {
      sb_printf(&err, "no usable CUDA driver (%s): ", path);
      rt_cu_error_text(&driver, r, "cuInit", &err);
      /* the library stays loaded: unloading a driver that started threads is not safe */
    }
  }
  snprintf(driver_failure, sizeof driver_failure, "%s", sb_cstr(&err));
  sb_free(&err);
}

const RtCuda *rt_cuda(const char *path, Diag *diag) {
  if (rt_cuda_forked(diag)) return NULL;
  if (installed) return installed;
  pthread_mutex_lock(&once_lock);
  if (!loaded) load_once(rt_cuda_library_name(path));
  loaded = true;
  pthread_mutex_unlock(&once_lock);
  if (driver_ok) return &driver;
  if (diag) diag_error(diag, srcloc(NULL, 0, 0), "%s", driver_failure);
  return NULL;
}

const char *rt_cuda_failure(void) { return installed ? "" : driver_failure; }

void rt_cuda_install(const RtCuda *t) {
  if (t) {
    pthread_once(&atfork_once, watch_fork); /* a fake driver is initialised as the real one */
    installed_copy = *t;
    installed = &installed_copy;
  } else {
    installed = NULL;
  }
}
