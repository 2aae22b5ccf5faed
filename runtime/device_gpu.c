/* device_gpu.c — the device interface (device.h) over one CUDA device through the Driver API: its primary
 * context and limits, memory, pinned host memory, streams and events, modules loaded from PTX or a cubin (as
 * libraries, cuLibraryLoadData, where the driver has the library API, else by cuModuleLoadDataEx; the JIT's logs
 * captured and shown when loading fails), kernel entries and launches, and the device-side
 * error record of include/kfront/abi.h, read after a synchronisation and reset for the next launch.
 *
 * Every entry point makes the device's primary context current on the calling thread first, so any host
 * thread may call in (and refuses in a fork() child of the process that used the driver: rt_cuda_forked);
 * runtimes of several devices each hold their own Gpu (one device, its primary context).
 * Peer access between two devices is asked of the driver once per pair and enabled when it exists. A module
 * whose kernels ran since its record was last read is `dirty`; a synchronisation reads the records of the
 * dirty modules only. Host memory comes from utils/mem.h (out of
 * memory: KF_ERROR_OUT_OF_MEMORY from load; the driver's own memory is the driver's). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/abi.h"
#include "runtime/device.h"
#include "runtime/runtime.h"
#include "utils/mem.h"

struct RtDevModule {
  CUmodule mod;
  CUlibrary lib;             /* what mod was loaded as (cuLibraryLoadData), NULL: loaded by cuModuleLoadDataEx */
  CUdeviceptr error_record;  /* __kf_error, 0 when the module has no bounds checks */
  atomic_bool dirty;         /* launched since its record was last read */
  const char *_Atomic last_kernel;  /* Python name of the kernel launched last (borrowed) */
  const char *_Atomic last_entry;   /* and its PTX entry name (borrowed) */
  RtDevModule *next, *prev;
};

enum { PEER_SLOTS = 64 };   /* peers whose access state is remembered (ordinals 0..63) */

typedef struct Gpu {
  RtDevice base;
  const RtCuda *cu;
  CUdevice dev;
  CUcontext ctx;
  pthread_mutex_t lock;      /* the module list, the peer states */
  RtDevModule *modules;
  signed char peer[PEER_SLOTS];  /* by the peer's ordinal: 0 not asked yet, 1 access enabled, -1 none */
} Gpu;

#define G(d) ((Gpu *)(d))
#define CU(call, ...) RT_CU(g->cu, diag, call, __VA_ARGS__)

/* The device's context made current on the calling thread for one call (bind), unless it is already (a
 * launch's common case: reading the current context is cheaper than setting it); when another device's context
 * was current, the call gives it back when it returns (unbind, run by the cleanup attribute of the Binding that
 * BINDING declares), so that the thread's current device stays the one it chose (kf_runtime_make_current) for
 * the other CUDA libraries it uses. A thread with no current context keeps the device's. */
typedef struct Binding {
  Gpu *g;
  CUcontext prev;  /* the context to give back, or NULL */
} Binding;

static void unbind(Binding *b) {
  if (b->prev) b->g->cu->cuCtxSetCurrent(b->prev);
}

#define BINDING(g) Binding binding __attribute__((cleanup(unbind))) = {(g), NULL}

static bool bind(Binding *b, Diag *diag) {
  Gpu *g = b->g;
  if (rt_cuda_forked(diag)) return false;
  CUcontext cur = NULL;
  if (g->cu->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == g->ctx) return true;
  if (!CU(cuCtxSetCurrent, g->ctx)) return false;
  b->prev = cur;
  return true;
}

static bool attr(const RtCuda *cu, CUdevice dev, int which, int *out, Diag *diag) {
  return RT_CU(cu, diag, cuDeviceGetAttribute, out, which, dev);
}

/* The properties of dev (no context needed) and its SM version. */
static bool read_info(const RtCuda *cu, CUdevice dev, kf_device_info *in, unsigned *arch, Diag *diag) {
  memset(in, 0, sizeof *in);
  if (!RT_CU(cu, diag, cuDeviceGetName, in->name, (int)sizeof in->name, dev)) return false;
  in->name[sizeof in->name - 1] = 0;
  int shared = 0, optin = 0;
  if (!attr(cu, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &in->cc_major, diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &in->cc_minor, diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &in->multiprocessors, diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &in->warp_size, diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &in->max_threads_per_block, diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &in->max_block_dim[0], diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &in->max_block_dim[1], diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &in->max_block_dim[2], diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &in->max_grid_dim[0], diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &in->max_grid_dim[1], diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &in->max_grid_dim[2], diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &shared, diag) ||
      !attr(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &optin, diag))
    return false;
  in->max_shared_per_block = (size_t)shared;
  in->max_shared_per_block_optin = (size_t)(optin > shared ? optin : shared);
  *arch = (unsigned)(in->cc_major * 10 + in->cc_minor);
  return true;
}

/* The CUdevice of `ordinal`, checked against the driver's count. */
static bool device_of(const RtCuda *cu, int ordinal, CUdevice *out, Diag *diag) {
  int count = 0;
  if (!RT_CU(cu, diag, cuDeviceGetCount, &count)) return false;
  if (ordinal < 0 || ordinal >= count) {
    diag_error(diag, srcloc(NULL, 0, 0), "no CUDA device %d (the driver reports %d device%s)", ordinal, count,
               count == 1 ? "" : "s");
    return false;
  }
  return RT_CU(cu, diag, cuDeviceGet, out, ordinal);
}

bool rt_device_gpu_count(const char *libcuda_path, int *count, Diag *diag) {
  *count = 0;
  const RtCuda *cu = rt_cuda(libcuda_path, diag);
  return cu && RT_CU(cu, diag, cuDeviceGetCount, count);
}

bool rt_device_gpu_info(const char *libcuda_path, int ordinal, kf_device_info *out, Diag *diag) {
  const RtCuda *cu = rt_cuda(libcuda_path, diag);
  CUdevice dev;
  unsigned arch;
  return cu && device_of(cu, ordinal, &dev, diag) && read_info(cu, dev, out, &arch, diag);
}

bool rt_device_gpu_attribute(const char *libcuda_path, int ordinal, int attribute, int *out, Diag *diag) {
  const RtCuda *cu = rt_cuda(libcuda_path, diag);
  CUdevice dev;
  return cu && device_of(cu, ordinal, &dev, diag) && attr(cu, dev, attribute, out, diag);
}

/* Unloads m's code: its library, or its module. */
static void unload_code(const RtCuda *cu, RtDevModule *m) {
  if (m->lib) cu->cuLibraryUnload(m->lib);
  else cu->cuModuleUnload(m->mod);
}

static void gpu_close(RtDevice *d) {
  Gpu *g = G(d);
  if (rt_cuda_forked(NULL)) { /* a fork() child: the parent's modules and context are not the child's to release */
    for (RtDevModule *m = g->modules, *n; m; m = n) {
      n = m->next;
      mem_free(m);
    }
    pthread_mutex_destroy(&g->lock);
    mem_free(g);
    return;
  }
  CUcontext prev = NULL;
  g->cu->cuCtxGetCurrent(&prev);
  if (g->ctx) g->cu->cuCtxSetCurrent(g->ctx);
  for (RtDevModule *m = g->modules, *n; m; m = n) {
    n = m->next;
    unload_code(g->cu, m);
    mem_free(m);
  }
  if (g->ctx) g->cu->cuDevicePrimaryCtxRelease(g->dev);
  if (prev && prev != g->ctx) g->cu->cuCtxSetCurrent(prev);  /* another device's: the thread's own again */
  pthread_mutex_destroy(&g->lock);
  mem_free(g);
}

/* ---- memory ----------------------------------------------------------------------------------- */

static bool gpu_alloc(RtDevice *d, size_t bytes, uint64_t *out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  CUdeviceptr p = 0;
  if (!bind(&binding, diag) ||
      !rt_cu_check_alloc(g->cu, g->cu->cuMemAlloc(&p, bytes), "cuMemAlloc", bytes, "device memory", diag))
    return false;
  *out = p;
  return true;
}

static kf_status gpu_alloc_managed(RtDevice *d, size_t bytes, unsigned flags, uint64_t *out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!g->cu->cuMemAllocManaged) {
    diag_error(diag, srcloc(NULL, 0, 0), "this CUDA driver has no managed memory (cuMemAllocManaged)");
    return KF_ERROR_UNSUPPORTED;
  }
  CUdeviceptr p = 0;
  unsigned attach = flags & KF_MANAGED_ATTACH_HOST ? CU_MEM_ATTACH_HOST : CU_MEM_ATTACH_GLOBAL;
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  if (!rt_cu_check_alloc(g->cu, g->cu->cuMemAllocManaged(&p, bytes, attach), "cuMemAllocManaged", bytes,
                         "managed memory", diag))
    return KF_ERROR_DEVICE;
  *out = p;
  return KF_OK;
}

static kf_status gpu_pointer_range(RtDevice *d, uint64_t ptr, uint64_t *base, size_t *bytes, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!g->cu->cuMemGetAddressRange) {
    diag_error(diag, srcloc(NULL, 0, 0), "this CUDA driver cannot tell which allocation an address lies in "
               "(it has no cuMemGetAddressRange)");
    return KF_ERROR_UNSUPPORTED;
  }
  CUdeviceptr b = 0;
  if (!bind(&binding, diag) || !CU(cuMemGetAddressRange, &b, bytes, (CUdeviceptr)ptr)) return KF_ERROR_DEVICE;
  *base = b;
  return KF_OK;
}

static bool gpu_free(RtDevice *d, uint64_t p, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuMemFree, (CUdeviceptr)p);
}

static bool gpu_copy(RtDevice *d, RtCopyKind kind, void *dst, const void *src, size_t bytes, void *stream, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!bind(&binding, diag)) return false;
  CUdeviceptr dd = (CUdeviceptr)(uintptr_t)dst, sd = (CUdeviceptr)(uintptr_t)src;
  CUstream s = stream;
  if (s) {
    return kind == RT_COPY_HTOD   ? CU(cuMemcpyHtoDAsync, dd, src, bytes, s)
           : kind == RT_COPY_DTOH ? CU(cuMemcpyDtoHAsync, dst, sd, bytes, s)
                                  : CU(cuMemcpyDtoDAsync, dd, sd, bytes, s);
  }
  return kind == RT_COPY_HTOD   ? CU(cuMemcpyHtoD, dd, src, bytes)
         : kind == RT_COPY_DTOH ? CU(cuMemcpyDtoH, dst, sd, bytes)
                                : CU(cuMemcpyDtoD, dd, sd, bytes);
}

static bool gpu_memset(RtDevice *d, uint64_t dst, int value, size_t bytes, void *stream, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!bind(&binding, diag)) return false;
  return stream ? CU(cuMemsetD8Async, (CUdeviceptr)dst, (unsigned char)value, bytes, (CUstream)stream)
                : CU(cuMemsetD8, (CUdeviceptr)dst, (unsigned char)value, bytes);
}

static unsigned host_flags(unsigned flags) {
  return (flags & KF_HOST_MAPPED ? CU_MEMHOSTALLOC_DEVICEMAP : 0) | CU_MEMHOSTALLOC_PORTABLE;
}

static bool gpu_host_alloc(RtDevice *d, size_t bytes, unsigned flags, void **out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && rt_cu_check_alloc(g->cu, g->cu->cuMemHostAlloc(out, bytes, host_flags(flags)),
                                                    "cuMemHostAlloc", bytes, "pinned host memory", diag);
}

static bool gpu_host_free(RtDevice *d, void *p, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuMemFreeHost, p);
}

static bool gpu_host_register(RtDevice *d, void *p, size_t bytes, unsigned flags, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuMemHostRegister, p, bytes, host_flags(flags));
}

static bool gpu_host_unregister(RtDevice *d, void *p, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuMemHostUnregister, p);
}

static bool gpu_host_device_pointer(RtDevice *d, void *host, uint64_t *out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  CUdeviceptr p = 0;
  if (!bind(&binding, diag) || !CU(cuMemHostGetDevicePointer, &p, host, 0)) return false;
  *out = p;
  return true;
}

static bool gpu_memory_info(RtDevice *d, size_t *free_bytes, size_t *total_bytes, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuMemGetInfo, free_bytes, total_bytes);
}

/* ---- streams, events, error records ----------------------------------------------------------- */

static kf_status gpu_stream_create(RtDevice *d, void **out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  CUstream s = NULL;
  if (!bind(&binding, diag) || !CU(cuStreamCreate, &s, CU_STREAM_DEFAULT)) return KF_ERROR_DEVICE;
  *out = s;
  return KF_OK;
}

static void gpu_stream_destroy(RtDevice *d, void *s) {
  Gpu *g = G(d);
  BINDING(g);
  if (s && bind(&binding, NULL)) g->cu->cuStreamDestroy(s);
}

/* The __kf_error_strings table of a module, copied to the host (caller frees), or NULL. */
static char *read_strings(Gpu *g, RtDevModule *m, size_t *len) {
  CUdeviceptr p = 0;
  size_t bytes = 0;
  if (g->cu->cuModuleGetGlobal(&p, &bytes, m->mod, KF_ERROR_STRINGS_SYMBOL) != CUDA_SUCCESS || !bytes) return NULL;
  char *t = mem_alloc(bytes);
  if (t && g->cu->cuMemcpyDtoH(t, p, bytes) != CUDA_SUCCESS) {
    mem_free(t);
    return NULL;
  }
  *len = bytes;
  return t;
}

/* Reads the error record of every dirty module and resets any that is set. The first IndexError or raised
 * exception found is reported, located in the kernel's source. */
static kf_status check_records(Gpu *g, Diag *diag) {
  kf_status st = KF_OK;
  pthread_mutex_lock(&g->lock);
  for (RtDevModule *m = g->modules; m; m = m->next) {
    if (!m->error_record || !atomic_exchange(&m->dirty, false)) continue;
    kf_error_record rec;
    if (!CU(cuMemcpyDtoH, &rec, m->error_record, sizeof rec)) {
      st = KF_ERROR_DEVICE;
      break;
    }
    if (rec.flag == KF_ERROR_NONE) continue;
    size_t tlen = 0;
    char *table = read_strings(g, m, &tlen);
    const char *kernel = NULL, *file = NULL, *last_entry = atomic_load(&m->last_entry);
    if (table && rec.kernel_id != KF_ERROR_KERNEL_UNKNOWN)
      kernel = kf_error_string(table, tlen, KF_ERROR_STRINGS_KERNELS, rec.kernel_id);
    if (!kernel || (last_entry && strcmp(kernel, last_entry) == 0)) kernel = atomic_load(&m->last_kernel);
    if (table && rec.file_id != KF_ERROR_FILE_UNKNOWN)
      file = kf_error_string(table, tlen, KF_ERROR_STRINGS_FILES, rec.file_id);
    if (rec.flag == KF_ERROR_BOUNDS) {
      rt_report_index_error(diag, kernel, file, rec.line, rec.col, rec.axis, rec.index, rec.extent);
    } else if (rec.flag == KF_ERROR_RAISE) {
      const char *exc = table ? kf_error_string(table, tlen, KF_ERROR_STRINGS_EXCEPTIONS, rec.axis) : NULL;
      uint32_t thread[3], block[3];
      kf_error_unpack_thread(rec.index, thread);
      kf_error_unpack_block(rec.extent, block);
      rt_report_raised(diag, kernel, file, rec.line, rec.col, exc, thread, block);
    } else {
      diag_error(diag, srcloc(file, file ? rec.line : 0, file ? rec.col : 0),
                 "kernel %s failed with device error code %u", kernel ? kernel : "?", rec.flag);
    }
    if (st == KF_OK) st = KF_ERROR_OUT_OF_BOUNDS;
    mem_free(table);
    /* reset, so the next launch of this module is checked afresh */
    if (!CU(cuMemsetD8, m->error_record, 0, sizeof rec)) {
      st = KF_ERROR_DEVICE;
      break;
    }
  }
  pthread_mutex_unlock(&g->lock);
  return st;
}

/* A failed synchronisation after a kernel fault leaves the context unusable: say so. */
static kf_status sync_failed(Diag *diag) {
  diag_note(diag, srcloc(NULL, 0, 0), "a kernel fault like this one leaves the CUDA context unusable: later GPU "
            "calls in this process will fail too");
  return KF_ERROR_DEVICE;
}

static kf_status gpu_stream_synchronize(RtDevice *d, void *s, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  if (!CU(cuStreamSynchronize, (CUstream)s)) return sync_failed(diag);
  return check_records(g, diag);
}

static kf_status gpu_synchronize(RtDevice *d, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  if (!CU(cuCtxSynchronize)) return sync_failed(diag);
  return check_records(g, diag);
}

static kf_status ipc_missing(Gpu *g, Diag *diag) {
  (void)g;
  diag_error(diag, srcloc(NULL, 0, 0), "this CUDA driver has no IPC entry points (cuIpcGetMemHandle, "
             "cuIpcOpenMemHandle, cuIpcCloseMemHandle)");
  return KF_ERROR_UNSUPPORTED;
}

static kf_status gpu_ipc_get_handle(RtDevice *d, uint64_t ptr, unsigned char handle[KF_IPC_HANDLE_BYTES], Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!g->cu->cuIpcGetMemHandle) return ipc_missing(g, diag);
  CUipcMemHandle h;
  if (!bind(&binding, diag) || !CU(cuIpcGetMemHandle, &h, (CUdeviceptr)ptr)) return KF_ERROR_DEVICE;
  memcpy(handle, h.reserved, KF_IPC_HANDLE_BYTES);
  return KF_OK;
}

static kf_status gpu_ipc_open_handle(RtDevice *d, const unsigned char handle[KF_IPC_HANDLE_BYTES], uint64_t *out,
                                     Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!g->cu->cuIpcOpenMemHandle) return ipc_missing(g, diag);
  CUipcMemHandle h;
  memcpy(h.reserved, handle, KF_IPC_HANDLE_BYTES);
  CUdeviceptr p = 0;
  if (!bind(&binding, diag) || !CU(cuIpcOpenMemHandle, &p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
    return KF_ERROR_DEVICE;
  *out = (uint64_t)p;
  return KF_OK;
}

static kf_status gpu_ipc_close_handle(RtDevice *d, uint64_t ptr, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!g->cu->cuIpcCloseMemHandle) return ipc_missing(g, diag);
  return bind(&binding, diag) && CU(cuIpcCloseMemHandle, (CUdeviceptr)ptr) ? KF_OK : KF_ERROR_DEVICE;
}

static kf_status gpu_finish(RtDevice *d, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuCtxSynchronize) ? KF_OK : KF_ERROR_DEVICE;
}

static kf_status gpu_event_create(RtDevice *d, void **out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  CUevent e = NULL;
  if (!bind(&binding, diag) || !CU(cuEventCreate, &e, CU_EVENT_DEFAULT)) return KF_ERROR_DEVICE;
  *out = e;
  return KF_OK;
}

static void gpu_event_destroy(RtDevice *d, void *e) {
  Gpu *g = G(d);
  BINDING(g);
  if (e && bind(&binding, NULL)) g->cu->cuEventDestroy(e);
}

static bool gpu_event_record(RtDevice *d, void *e, void *s, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuEventRecord, (CUevent)e, (CUstream)s);
}

static bool gpu_event_synchronize(RtDevice *d, void *e, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuEventSynchronize, (CUevent)e);
}

static bool gpu_event_elapsed_ms(RtDevice *d, void *start, void *end, float *ms, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  return bind(&binding, diag) && CU(cuEventElapsedTime, ms, (CUevent)start, (CUevent)end);
}

/* ---- code ------------------------------------------------------------------------------------- */

/* Appends a JIT log (a NUL-terminated string the driver wrote into log) as a note, if it says anything. */
static void jit_note(Diag *diag, const char *what, char *log, size_t cap) {
  log[cap - 1] = 0;
  size_t n = strlen(log);
  while (n && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = 0;
  if (n) diag_note(diag, srcloc(NULL, 0, 0), "%s:\n%s", what, log);
}

static kf_status gpu_load(RtDevice *d, Module *kir, const char *ptx, RtDevModule **out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  *out = NULL;
  if (!ptx) {
    diag_error(diag, srcloc(NULL, 0, 0), "internal error: the GPU loads PTX, and none was given");
    return KF_ERROR_INTERNAL;
  }
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  enum { LOG = 16384 };
  char *info = mem_calloc(1, LOG), *err = mem_calloc(1, LOG);
  RtDevModule *m = mem_calloc(1, sizeof *m);
  if (!info || !err || !m) {
    mem_free(info);
    mem_free(err);
    mem_free(m);
    diag_out_of_memory(diag);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  int opts[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                 CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[4] = {info, (void *)(uintptr_t)LOG, err, (void *)(uintptr_t)LOG};
  /* as a library where the driver has the library API (its handle is what module callbacks are given), its module
   * in this context at once */
  bool as_library = g->cu->cuLibraryLoadData && g->cu->cuLibraryGetModule && g->cu->cuLibraryUnload;
  CUresult r = as_library ? g->cu->cuLibraryLoadData(&m->lib, ptx, opts, vals, 4, NULL, NULL, 0)
                          : g->cu->cuModuleLoadDataEx(&m->mod, ptx, 4, opts, vals);
  if (r == CUDA_SUCCESS && as_library) {
    r = g->cu->cuLibraryGetModule(&m->mod, m->lib);
    if (r != CUDA_SUCCESS) {
      rt_cu_check(g->cu, r, "cuLibraryGetModule", diag);
      g->cu->cuLibraryUnload(m->lib);
      m->lib = NULL;
    }
  } else if (r != CUDA_SUCCESS) {
    rt_cu_check(g->cu, r, as_library ? "cuLibraryLoadData" : "cuModuleLoadDataEx", diag);
    jit_note(diag, "the JIT compiler's error log", err, LOG);
    jit_note(diag, "the JIT compiler's info log", info, LOG);
  }
  mem_free(info);
  mem_free(err);
  if (r != CUDA_SUCCESS) {
    mem_free(m);
    return KF_ERROR_DEVICE;
  }
  size_t bytes = 0;
  /* PTX without the record's name has none: not asked for, so no failed driver call (compute-sanitizer reports
   * each); a cubin (a linked module) is asked */
  bool may_have_record = strncmp(ptx, "\177ELF", 4) == 0 || strstr(ptx, KF_ERROR_RECORD_SYMBOL) != NULL;
  r = may_have_record ? g->cu->cuModuleGetGlobal(&m->error_record, &bytes, m->mod, KF_ERROR_RECORD_SYMBOL)
                      : CUDA_ERROR_NOT_FOUND;
  if (r == CUDA_ERROR_NOT_FOUND) {
    m->error_record = 0;  /* no bounds checks remain in this module */
  } else if (r != CUDA_SUCCESS || bytes < sizeof(kf_error_record)) {
    if (r != CUDA_SUCCESS) rt_cu_check(g->cu, r, "cuModuleGetGlobal(" KF_ERROR_RECORD_SYMBOL ")", diag);
    else diag_error(diag, srcloc(NULL, 0, 0), "the module's " KF_ERROR_RECORD_SYMBOL " is %zu bytes, not the %zu "
                    "of include/kfront/abi.h (PTX from another kfront version?)", bytes, sizeof(kf_error_record));
    unload_code(g->cu, m);
    mem_free(m);
    return KF_ERROR_DEVICE;
  }
  pthread_mutex_lock(&g->lock);
  m->next = g->modules;
  if (g->modules) g->modules->prev = m;
  g->modules = m;
  pthread_mutex_unlock(&g->lock);
  *out = m;
  return KF_OK;
}

static int jit_input_type(BeLinkKind kind) {
  switch (kind) {
  case BE_LINK_CUBIN: return CU_JIT_INPUT_CUBIN;
  case BE_LINK_FATBIN: return CU_JIT_INPUT_FATBINARY;
  case BE_LINK_OBJECT: return CU_JIT_INPUT_OBJECT;
  case BE_LINK_LIBRARY: return CU_JIT_INPUT_LIBRARY;
  default: return CU_JIT_INPUT_PTX;  /* backend/link.c gives .cu inputs as PTX and no LTO-IR */
  }
}

/* The driver's linker: each input added (PTX as NUL-terminated text), the cubin copied out before the link state
 * that owns it is destroyed. */
static bool gpu_link(RtDevice *d, const BeLinkInput *inputs, unsigned n, bool lineinfo, StrBuf *cubin, char **log,
                     Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  const RtCuda *cu = g->cu;
  *log = NULL;
  if (!cu->cuLinkCreate || !cu->cuLinkAddData || !cu->cuLinkComplete || !cu->cuLinkDestroy) {
    diag_error(diag, srcloc(NULL, 0, 0), "this CUDA driver has no linker (cuLinkCreate_v2 ...) to link foreign code "
               "without nvJitLink");
    return false;
  }
  if (!bind(&binding, diag)) return false;
  enum { LOG = 16384 };
  char *err = mem_calloc(1, LOG);
  if (!err) {
    diag_out_of_memory(diag);
    return false;
  }
  int opts[3] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_GENERATE_LINE_INFO};
  void *vals[3] = {err, (void *)(uintptr_t)LOG, (void *)(uintptr_t)(lineinfo ? 1 : 0)};
  CUlinkState state = NULL;
  CUresult r = cu->cuLinkCreate(3, opts, vals, &state);
  const char *step = "cuLinkCreate";
  for (unsigned i = 0; r == CUDA_SUCCESS && i < n; i++) {
    const BeLinkInput *in = &inputs[i];
    bool text = jit_input_type(in->kind) == CU_JIT_INPUT_PTX;
    char *copy = text ? mem_alloc(in->len + 1) : NULL;
    if (text && !copy) {
      cu->cuLinkDestroy(state);
      mem_free(err);
      diag_out_of_memory(diag);
      return false;
    }
    if (copy) {
      memcpy(copy, in->data, in->len);
      copy[in->len] = 0;
    }
    r = cu->cuLinkAddData(state, jit_input_type(in->kind), copy ? copy : (void *)in->data, in->len + (copy ? 1 : 0),
                          in->name, 0, NULL, NULL);
    mem_free(copy);
    step = "cuLinkAddData";
  }
  void *image = NULL;
  size_t bytes = 0;
  if (r == CUDA_SUCCESS) {
    r = cu->cuLinkComplete(state, &image, &bytes);
    step = "cuLinkComplete";
  }
  if (r == CUDA_SUCCESS) {
    sb_putn(cubin, image, bytes);
  } else {
    err[LOG - 1] = 0;
    size_t l = strlen(err);
    while (l && (err[l - 1] == '\n' || err[l - 1] == ' ')) err[--l] = 0;
    if (l) *log = mem_strdup(err);
    else rt_cu_check(cu, r, step, diag);
  }
  if (state) cu->cuLinkDestroy(state);
  mem_free(err);
  if (r == CUDA_SUCCESS && sb_failed(cubin)) {
    diag_out_of_memory(diag);
    return false;
  }
  return r == CUDA_SUCCESS;
}

static void gpu_unload(RtDevice *d, RtDevModule *m) {
  Gpu *g = G(d);
  if (!m) return;
  pthread_mutex_lock(&g->lock);
  if (m->prev) m->prev->next = m->next;
  else g->modules = m->next;
  if (m->next) m->next->prev = m->prev;
  pthread_mutex_unlock(&g->lock);
  BINDING(g);
  if (bind(&binding, NULL)) unload_code(g->cu, m); /* (not in a fork() child: bind refuses) */
  mem_free(m);
}

static void gpu_module_handles(RtDevice *d, RtDevModule *m, void **module, void **library) {
  *module = m->mod;
  *library = m->lib;
}

static kf_status gpu_function(RtDevice *d, RtDevModule *m, const char *entry, Op *func, RtDevFunction *out,
                              Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  CUfunction fn = NULL;
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  CUresult r = g->cu->cuModuleGetFunction(&fn, m->mod, entry);
  if (r != CUDA_SUCCESS) {
    rt_cu_check(g->cu, r, "cuModuleGetFunction", diag);
    diag_note(diag, srcloc(NULL, 0, 0), "looking for the kernel entry '%s' in the loaded PTX", entry);
    return KF_ERROR_DEVICE;
  }
  int threads = 0, shared = 0;
  if (!CU(cuFuncGetAttribute, &threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) ||
      !CU(cuFuncGetAttribute, &shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn))
    return KF_ERROR_DEVICE;
  memset(out, 0, sizeof *out);
  out->module = m;
  out->handle = fn;
  out->max_threads = threads > 0 ? (unsigned)threads : 0;
  out->static_shared = shared > 0 ? (size_t)shared : 0;
  return KF_OK;
}

static kf_status gpu_prefer_carveout(RtDevice *d, RtDevFunction *fn, int percent, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  return CU(cuFuncSetAttribute, (CUfunction)fn->handle, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent)
             ? KF_OK
             : KF_ERROR_DEVICE;
}

static kf_status gpu_function_attributes(RtDevice *d, RtDevFunction *fn, kf_kernel_attributes *out, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  static const int attrs[] = {CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                              CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
                              CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK};
  int v[5];
  for (int i = 0; i < 5; i++)
    if (!CU(cuFuncGetAttribute, &v[i], attrs[i], (CUfunction)fn->handle)) return KF_ERROR_DEVICE;
  out->regs_per_thread = v[0];
  out->local_bytes = v[1];
  out->shared_bytes = v[2];
  out->const_bytes = v[3];
  out->max_threads_per_block = v[4];
  return KF_OK;
}

static unsigned gpu_resident_blocks(RtDevice *d, RtDevFunction *fn, unsigned threads, size_t shared) {
  Gpu *g = G(d);
  unsigned per_sm = rt_cu_occupancy(g->cu, fn->handle, threads, shared);
  return (unsigned)(d->info.multiprocessors > 0 ? d->info.multiprocessors : 1) * per_sm;
}

static kf_status gpu_launch(RtDevice *d, RtDevFunction *fn, const unsigned grid[3], const unsigned block[3],
                            size_t shared, void *stream, void **params, unsigned nparams, Diag *diag) {
  Gpu *g = G(d);
  BINDING(g);
  if (!bind(&binding, diag)) return KF_ERROR_DEVICE;
  /* dynamic shared memory above the default per-block limit needs the function's opt-in */
  if (shared + fn->static_shared > d->info.max_shared_per_block && shared > fn->dynamic_optin) {
    if (!CU(cuFuncSetAttribute, fn->handle, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared))
      return KF_ERROR_DEVICE;
    fn->dynamic_optin = shared;
  }
  CUresult r;
  if (fn->cooperative) {
    if (!g->cu->cuLaunchCooperativeKernel) {
      diag_error(diag, srcloc(NULL, 0, 0), "kernel %s synchronises its grid, but the CUDA driver lacks "
                 "cuLaunchCooperativeKernel", fn->kernel ? fn->kernel : "?");
      return KF_ERROR_DEVICE;
    }
    r = g->cu->cuLaunchCooperativeKernel(fn->handle, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                         (unsigned)shared, (CUstream)stream, params);
  } else {
    r = g->cu->cuLaunchKernel(fn->handle, grid[0], grid[1], grid[2], block[0], block[1], block[2], (unsigned)shared,
                              (CUstream)stream, params, NULL);
  }
  if (r != CUDA_SUCCESS) {
    rt_cu_check(g->cu, r, fn->cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", diag);
    return KF_ERROR_DEVICE;
  }
  RtDevModule *m = fn->module;
  if (m->error_record) {  /* published by the release store of dirty; read after the exchange that clears it */
    atomic_store_explicit(&m->last_kernel, fn->kernel, memory_order_relaxed);
    atomic_store_explicit(&m->last_entry, fn->entry, memory_order_relaxed);
    atomic_store_explicit(&m->dirty, true, memory_order_release);
  }
  return KF_OK;
}

/* ---- several devices ------------------------------------------------------------------------- */

static bool gpu_make_current(RtDevice *d, Diag *diag) {
  Gpu *g = G(d);
  return CU(cuCtxSetCurrent, g->ctx);
}

/* Whether g reads p's memory directly: asked of the driver once per pair, and then enabled (from g's context)
 * at once, so that a pair said to have access has it. */
static bool peer_access(Gpu *g, Gpu *p, Diag *diag) {
  const RtCuda *cu = g->cu;
  int o = p->base.ordinal;
  bool slot = o >= 0 && o < PEER_SLOTS;
  signed char known = 0;
  if (slot) {
    pthread_mutex_lock(&g->lock);
    known = g->peer[o];
    pthread_mutex_unlock(&g->lock);
  }
  if (known) return known > 0;
  int can = 0;
  if (!cu->cuDeviceCanAccessPeer || !cu->cuCtxEnablePeerAccess || !cu->cuMemcpyPeer || !cu->cuMemcpyPeerAsync ||
      cu->cuDeviceCanAccessPeer(&can, g->dev, p->dev) != CUDA_SUCCESS)
    can = 0;
  if (can) {
    CUcontext cur = NULL;
    cu->cuCtxGetCurrent(&cur);
    CUresult r = cu->cuCtxSetCurrent(g->ctx);
    if (r == CUDA_SUCCESS) r = cu->cuCtxEnablePeerAccess(p->ctx, 0);
    if (r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) r = CUDA_SUCCESS;  /* by another runtime of this device */
    if (r != CUDA_SUCCESS) can = 0;  /* no access after all (peer mappings exhausted...): copies are staged */
    cu->cuCtxSetCurrent(cur);
  }
  if (slot) {
    pthread_mutex_lock(&g->lock);
    g->peer[o] = can ? 1 : -1;
    pthread_mutex_unlock(&g->lock);
  }
  return can != 0;
}

static bool gpu_can_access_peer(RtDevice *d, RtDevice *peer) {
  return peer->mode == KF_RUNTIME_GPU && peer->ordinal != d->ordinal && peer_access(G(d), G(peer), NULL);
}

static bool gpu_copy_peer(RtDevice *d, RtDevice *dst_dev, uint64_t dst, RtDevice *src_dev, uint64_t src, size_t bytes,
                          void *stream, Diag *diag) {
  Gpu *g = G(d), *gd = G(dst_dev), *gs = G(src_dev);
  BINDING(g);
  if (!bind(&binding, diag)) return false;
  return stream ? CU(cuMemcpyPeerAsync, dst, gd->ctx, src, gs->ctx, bytes, (CUstream)stream)
                : CU(cuMemcpyPeer, dst, gd->ctx, src, gs->ctx, bytes);
}

static int gpu_pointer_device(RtDevice *d, uint64_t ptr) {
  Gpu *g = G(d);
  int ordinal = -1;
  if (!ptr || !g->cu->cuPointerGetAttribute ||
      g->cu->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)ptr) != CUDA_SUCCESS)
    return -1;
  return ordinal;
}

static const RtDeviceOps gpu_ops = {
    .close = gpu_close,
    .alloc = gpu_alloc,
    .free = gpu_free,
    .copy = gpu_copy,
    .memset = gpu_memset,
    .host_alloc = gpu_host_alloc,
    .host_free = gpu_host_free,
    .host_register = gpu_host_register,
    .host_unregister = gpu_host_unregister,
    .host_device_pointer = gpu_host_device_pointer,
    .memory_info = gpu_memory_info,
    .stream_create = gpu_stream_create,
    .stream_destroy = gpu_stream_destroy,
    .stream_synchronize = gpu_stream_synchronize,
    .synchronize = gpu_synchronize,
    .finish = gpu_finish,
    .event_create = gpu_event_create,
    .event_destroy = gpu_event_destroy,
    .event_record = gpu_event_record,
    .event_synchronize = gpu_event_synchronize,
    .event_elapsed_ms = gpu_event_elapsed_ms,
    .load = gpu_load,
    .link = gpu_link,
    .unload = gpu_unload,
    .function = gpu_function,
    .module_handles = gpu_module_handles,
    .function_attributes = gpu_function_attributes,
    .prefer_carveout = gpu_prefer_carveout,
    .resident_blocks = gpu_resident_blocks,
    .launch = gpu_launch,
    .make_current = gpu_make_current,
    .can_access_peer = gpu_can_access_peer,
    .copy_peer = gpu_copy_peer,
    .alloc_managed = gpu_alloc_managed,
    .pointer_range = gpu_pointer_range,
    .ipc_get_handle = gpu_ipc_get_handle,
    .ipc_open_handle = gpu_ipc_open_handle,
    .ipc_close_handle = gpu_ipc_close_handle,
    .pointer_device = gpu_pointer_device,
};

RtDevice *rt_device_gpu_open(const char *libcuda_path, int ordinal, Diag *diag) {
  const RtCuda *cu = rt_cuda(libcuda_path, diag);
  if (!cu) return NULL;
  Gpu *g = mem_calloc(1, sizeof *g);
  if (!g) {
    diag_out_of_memory(diag);
    return NULL;
  }
  g->base.ops = &gpu_ops;
  g->base.mode = KF_RUNTIME_GPU;
  g->cu = cu;
  g->base.ordinal = ordinal;
  pthread_mutex_init(&g->lock, NULL);
  bool ok = device_of(cu, ordinal, &g->dev, diag) && read_info(cu, g->dev, &g->base.info, &g->base.arch, diag) &&
            CU(cuDevicePrimaryCtxRetain, &g->ctx, g->dev);
  /* the new context becomes the thread's when it had none (so that other CUDA libraries see it, as before), and
   * is checked usable either way; another device's context that was current stays current */
  CUcontext prev = NULL;
  if (ok) cu->cuCtxGetCurrent(&prev);
  if (ok && !CU(cuCtxSetCurrent, g->ctx)) {
    cu->cuDevicePrimaryCtxRelease(g->dev);
    g->ctx = NULL;
    ok = false;
  } else if (ok && prev && prev != g->ctx) {
    cu->cuCtxSetCurrent(prev);
  }
  if (!ok) {
    pthread_mutex_destroy(&g->lock);
    mem_free(g);
    return NULL;
  }
  rt_device_set_target(&g->base);
  return &g->base;
}
