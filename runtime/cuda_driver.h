/* cuda_driver.h — the CUDA Driver API, loaded at run time with dlopen("libcuda.so.1").
 *
 * kfront must build, compile and simulate where there is no driver, so it never links libcuda and never
 * includes cuda.h: the few types, enum values and entry points it uses are declared here (values from the
 * Driver API documentation; they are part of the driver's stable ABI). Versioned entry points are looked
 * up by the names cuda.h maps to on 64-bit Linux (cuMemAlloc -> cuMemAlloc_v2, ...).
 *
 * rt_cuda(path) loads the library and calls cuInit(0) once per process; every later call returns the same
 * table or the same failure (one driver per process: the path of the first call wins). The library reads
 * no environment: the path comes from the embedder (kfront's tools pass $KFRONT_LIBCUDA). Every failure is
 * reported as text, never printed:
 *     no CUDA driver found (libcuda.so.1): libcuda.so.1: cannot open shared object file: ...
 *     cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)
 */
#ifndef KF_RUNTIME_CUDA_DRIVER_H
#define KF_RUNTIME_CUDA_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "utils/diag.h"
#include "utils/strbuf.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlinkState_st *CUlinkState;
/* An IPC handle of device memory (cuIpcGetMemHandle), passed by value */
typedef struct CUipcMemHandle {
  char reserved[64];
} CUipcMemHandle;
enum { CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1 };

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
};

/* CUdevice_attribute */
enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/* CUfunction_attribute */
enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
};

/* CUjit_option */
enum {
  CU_JIT_WALL_TIME = 2,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
};
/* CUjitInputType: what cuLinkAddData is given */
enum { CU_JIT_INPUT_CUBIN = 0, CU_JIT_INPUT_PTX = 1, CU_JIT_INPUT_FATBINARY = 2, CU_JIT_INPUT_OBJECT = 3,
       CU_JIT_INPUT_LIBRARY = 4 };

enum { CU_STREAM_DEFAULT = 0, CU_STREAM_NON_BLOCKING = 1 };
/* cuMemHostAlloc / cuMemHostRegister flags */
enum { CU_MEMHOSTALLOC_PORTABLE = 1, CU_MEMHOSTALLOC_DEVICEMAP = 2, CU_MEMHOSTALLOC_WRITECOMBINED = 4 };
enum { CU_EVENT_DEFAULT = 0, CU_EVENT_DISABLE_TIMING = 2 };
/* cuMemAllocManaged flags */
enum { CU_MEM_ATTACH_GLOBAL = 1, CU_MEM_ATTACH_HOST = 2 };
enum { CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9 };

/* The entry points kfront uses. X(field, symbol, return-and-parameters) */
#define RT_CUDA_FUNCTIONS(X)                                                                                    \
  X(cuInit, "cuInit", (unsigned flags))                                                                         \
  X(cuDriverGetVersion, "cuDriverGetVersion", (int *version))                                                   \
  X(cuGetErrorName, "cuGetErrorName", (CUresult error, const char **name))                                      \
  X(cuGetErrorString, "cuGetErrorString", (CUresult error, const char **text))                                  \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                                         \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice *dev, int ordinal))                                                   \
  X(cuDeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice dev))                                    \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *value, int attrib, CUdevice dev))                       \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *ctx, CUdevice dev))                       \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice dev))                                  \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx))                                                        \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", (CUcontext *ctx))                                                       \
  X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                                               \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                                                   \
    (CUmodule *module, const void *image, unsigned nopts, int *options, void **values))                         \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule module))                                                        \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *fn, CUmodule module, const char *name))            \
  X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", (CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name)) \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", (int *value, int attrib, CUfunction fn))                          \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction fn, int attrib, int value))                           \
  X(cuLaunchKernel, "cuLaunchKernel",                                                                           \
    (CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,               \
     unsigned shared_bytes, CUstream stream, void **params, void **extra))                                      \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *ptr, size_t bytes))                                              \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr ptr))                                                               \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr dst, const void *src, size_t bytes))                          \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, CUdeviceptr src, size_t bytes))                                \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", (CUdeviceptr dst, CUdeviceptr src, size_t bytes))                          \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr dst, const void *src, size_t bytes, CUstream s))    \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void *dst, CUdeviceptr src, size_t bytes, CUstream s))          \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s))    \
  X(cuMemsetD8, "cuMemsetD8_v2", (CUdeviceptr dst, unsigned char value, size_t count))                          \
  X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr dst, unsigned char value, size_t count, CUstream s))       \
  X(cuStreamCreate, "cuStreamCreate", (CUstream *stream, unsigned flags))                                       \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream stream))                                                   \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream stream))                                              \
  X(cuEventCreate, "cuEventCreate", (CUevent *event, unsigned flags))                                           \
  X(cuEventRecord, "cuEventRecord", (CUevent event, CUstream stream))                                           \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent event))                                                  \
  X(cuEventElapsedTime, "cuEventElapsedTime", (float *ms, CUevent start, CUevent end))                          \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent event))                                                      \
  X(cuMemHostAlloc, "cuMemHostAlloc", (void **p, size_t bytes, unsigned flags))                                  \
  X(cuMemFreeHost, "cuMemFreeHost", (void *p))                                                                  \
  X(cuMemHostRegister, "cuMemHostRegister_v2", (void *p, size_t bytes, unsigned flags))                         \
  X(cuMemHostUnregister, "cuMemHostUnregister", (void *p))                                                      \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", (CUdeviceptr *dptr, void *p, unsigned flags))     \
  X(cuMemGetInfo, "cuMemGetInfo_v2", (size_t *free_bytes, size_t *total_bytes))

typedef struct RtCuda {
  void *lib;  /* dlopen handle (NULL for a table installed by rt_cuda_install) */
#define RT_CUDA_FIELD(field, symbol, params) CUresult (*field) params;
  RT_CUDA_FUNCTIONS(RT_CUDA_FIELD)
#undef RT_CUDA_FIELD
  /* Optional entry points: NULL when the library lacks them (callers fall back). */
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction fn, int block_size,
                                                          size_t dynamic_shared_bytes);
  /* Peer access between devices: without them, copies between devices are staged through host memory. */
  CUresult (*cuDeviceCanAccessPeer)(int *can, CUdevice dev, CUdevice peer);
  CUresult (*cuCtxEnablePeerAccess)(CUcontext peer, unsigned flags);
  CUresult (*cuMemcpyPeer)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t bytes);
  CUresult (*cuMemcpyPeerAsync)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t bytes,
                                CUstream s);
  /* Which device memory belongs to (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL): without it, no device is known. */
  CUresult (*cuPointerGetAttribute)(void *data, int attribute, CUdeviceptr ptr);
  /* Memory shared with other processes (IPC): without them, IPC handles are refused. */
  CUresult (*cuIpcGetMemHandle)(CUipcMemHandle *handle, CUdeviceptr ptr);
  CUresult (*cuIpcOpenMemHandle)(CUdeviceptr *ptr, CUipcMemHandle handle, unsigned flags);
  CUresult (*cuIpcCloseMemHandle)(CUdeviceptr ptr);
  /* Managed memory (numba-cuda's managed arrays) and the allocation an address lies in: without them, refused. */
  CUresult (*cuMemAllocManaged)(CUdeviceptr *ptr, size_t bytes, unsigned flags);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr *base, size_t *bytes, CUdeviceptr ptr);
  /* Modules loaded as libraries (CUDA 12.0's library API: what numba-cuda's cuda.core loads, whose handle its link
   * items' setup callbacks are given): without them, modules are loaded by cuModuleLoadDataEx. */
  CUresult (*cuLibraryLoadData)(CUlibrary *library, const void *code, int *jit_options, void **jit_values,
                                unsigned njit_options, int *library_options, void **library_values,
                                unsigned nlibrary_options);
  CUresult (*cuLibraryGetModule)(CUmodule *module, CUlibrary library);
  CUresult (*cuLibraryUnload)(CUlibrary library);
  /* The driver's linker (cuLink*), used for foreign code where nvJitLink is missing: without them, such code is
   * refused. input types: CU_JIT_INPUT_* below. */
  CUresult (*cuLinkCreate)(unsigned nopts, int *options, void **values, CUlinkState *state);
  CUresult (*cuLinkAddData)(CUlinkState state, int type, void *data, size_t bytes, const char *name, unsigned nopts,
                            int *options, void **values);
  CUresult (*cuLinkComplete)(CUlinkState state, void **cubin, size_t *bytes);
  CUresult (*cuLinkDestroy)(CUlinkState state);
  /* Cooperative launches (kernels with a grid barrier): without it they are refused. */
  CUresult (*cuLaunchCooperativeKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared_bytes, CUstream stream, void **params);
} RtCuda;

/* Blocks of fn (block_threads threads, dynamic_shared bytes) that fit on one multiprocessor at once:
 * cuOccupancyMaxActiveBlocksPerMultiprocessor, or max(1, 2048 / block_threads) when the driver lacks it
 * or it fails. */
unsigned rt_cu_occupancy(const RtCuda *cu, CUfunction fn, unsigned block_threads, size_t dynamic_shared);

/* The library rt_cuda(path) loads: path when not NULL or empty, else "libcuda.so.1". */
const char *rt_cuda_library_name(const char *path);

/* Loads every entry point from the library at path into t (no cuInit). On failure appends why to err
 * ("no CUDA driver found (path): <dlerror>" or "... is not a usable CUDA driver: it lacks cuLaunchKernel")
 * and leaves t zeroed. */
bool rt_cuda_open(RtCuda *t, const char *path, StrBuf *err);
void rt_cuda_close(RtCuda *t);

/* The process-wide driver: loaded from rt_cuda_library_name(path) and cuInit(0)-ed on first use
 * (thread-safe, once). NULL when there is no usable driver; then, if diag is not NULL, the reason is
 * reported to it as an error. */
const RtCuda *rt_cuda(const char *path, Diag *diag);
/* True when this process is a fork() child of one that initialised the driver (or installed a fake): the driver
 * must not be used; then, if diag is not NULL, reports "CUDA initialized before forking: ..." to it. rt_cuda() and
 * every device entry point check it. */
bool rt_cuda_forked(Diag *diag);
/* The reason rt_cuda() failed ("" when it succeeded or was not called). Static text. */
const char *rt_cuda_failure(void);
/* For tests: makes rt_cuda() return t (a table of fakes; copied) from now on, or restores the real
 * loading when t is NULL. Not thread-safe against concurrent rt_cuda() calls. */
void rt_cuda_install(const RtCuda *t);

/* "<call> failed: <cuGetErrorName> (<cuGetErrorString>)", appended to out. */
void rt_cu_error_text(const RtCuda *cu, CUresult r, const char *call, StrBuf *out);
/* True when r is CUDA_SUCCESS; otherwise reports rt_cu_error_text to diag and returns false. */
bool rt_cu_check(const RtCuda *cu, CUresult r, const char *call, Diag *diag);
/* rt_cu_check of an allocation of `bytes` bytes of `what` ("device memory"): running out is said as the simulator
 * says it, "out of memory allocating N bytes of device memory", the call and the driver's code after (an
 * OUT_OF_MEMORY error: Python's MemoryError class). */
bool rt_cu_check_alloc(const RtCuda *cu, CUresult r, const char *call, size_t bytes, const char *what, Diag *diag);

/* Calls cu->fn(args...) and checks it, naming the call: RT_CU(cu, diag, cuMemAlloc, &p, n). */
#define RT_CU(cu, diag, fn, ...) rt_cu_check((cu), (cu)->fn(__VA_ARGS__), #fn, (diag))

#endif
