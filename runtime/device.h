/* device.h — the one device interface the runtime launches through, implemented twice: by the GPU
 * (runtime/device_gpu.c, the CUDA Driver API) and by the simulator (runtime/device_sim.c, kir on the CPU).
 *
 * Everything above this interface (programs, specialisation, launch plans, argument staging, packing per
 * include/kfront/abi.h, the checks) is written once in runtime/; a device only moves bytes, loads code,
 * runs a packed launch and reports what went wrong. Device addresses are uint64_t; streams and events are
 * opaque pointers the device made (NULL: the default stream). Every function reports its failures to the
 * Diag it is given and returns false (or a kf_status: KF_ERROR_OUT_OF_MEMORY when host memory ran out, after
 * diag_out_of_memory), never prints, never exits.
 *
 * Code: a device that `runs_kir` (the simulator) loads the kir Module itself; the GPU loads PTX text. A
 * loaded module (RtDevModule) and the functions looked up in it belong to the device; unload frees both.
 * The caller fills RtDevFunction.kernel and .entry after `function` (names for messages).
 *
 * Several devices: each RtDevice is one device (its ordinal); runtimes of different devices hold different
 * RtDevices. Copies between two devices go through copy_peer where can_access_peer says so; runtime.c stages
 * the others through host memory with the two devices' own copies. */
#ifndef KF_RUNTIME_DEVICE_H
#define KF_RUNTIME_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "ir/ir.h"
#include "ir/target.h"
#include "kfront/kfront.h"
#include "runtime/cuda_driver.h"

typedef struct RtDevice RtDevice;
typedef struct RtDevModule RtDevModule;

/* A kernel entry of a loaded module. */
typedef struct RtDevFunction {
  RtDevModule *module;
  void *handle;              /* GPU: CUfunction; simulator: the kir func.func (Op *) */
  const char *kernel;        /* Python name, for messages (borrowed from the kernel) */
  const char *entry;         /* its symbol (PTX entry), borrowed from the kernel */
  unsigned max_threads;      /* threads per block its resources allow (0: the device's limit) */
  size_t static_shared;      /* bytes of static shared memory */
  size_t dynamic_optin;      /* GPU: dynamic shared bytes the function has been allowed (cuFuncSetAttribute) */
  bool cooperative;          /* launched cooperatively, every block resident (a grid barrier): set by the runtime
                              * from the launch plan; the runtime has checked the grid fits (resident_blocks) */
} RtDevFunction;

typedef enum RtCopyKind { RT_COPY_HTOD, RT_COPY_DTOH, RT_COPY_DTOD } RtCopyKind;

typedef struct RtDeviceOps {
  void (*close)(RtDevice *d);
  /* memory */
  bool (*alloc)(RtDevice *d, size_t bytes, uint64_t *out, Diag *diag);
  /* managed memory (kfront.h's kf_managed_alloc; flags: KF_MANAGED_*), freed by `free`; KF_ERROR_UNSUPPORTED
   * (reported) where the device has none */
  kf_status (*alloc_managed)(RtDevice *d, size_t bytes, unsigned flags, uint64_t *out, Diag *diag);
  /* The allocation ptr lies in (kf_pointer_range); KF_ERROR_UNSUPPORTED (reported) where the device cannot tell. */
  kf_status (*pointer_range)(RtDevice *d, uint64_t ptr, uint64_t *base, size_t *bytes, Diag *diag);
  bool (*free)(RtDevice *d, uint64_t ptr, Diag *diag);
  bool (*copy)(RtDevice *d, RtCopyKind kind, void *dst, const void *src, size_t bytes, void *stream, Diag *diag);
  /* Whether [ptr, ptr + bytes) is the device's memory (reported when not); NULL: the device faults on an address
   * that is not (a GPU: CUDA's illegal address), so nobody asks. */
  bool (*holds)(RtDevice *d, uint64_t ptr, size_t bytes, Diag *diag);
  bool (*memset)(RtDevice *d, uint64_t dst, int value, size_t bytes, void *stream, Diag *diag);
  /* page-locked host memory (flags: KF_HOST_*); registering existing memory */
  bool (*host_alloc)(RtDevice *d, size_t bytes, unsigned flags, void **out, Diag *diag);
  bool (*host_free)(RtDevice *d, void *p, Diag *diag);
  bool (*host_register)(RtDevice *d, void *p, size_t bytes, unsigned flags, Diag *diag);
  bool (*host_unregister)(RtDevice *d, void *p, Diag *diag);
  bool (*host_device_pointer)(RtDevice *d, void *host, uint64_t *out, Diag *diag);
  bool (*memory_info)(RtDevice *d, size_t *free_bytes, size_t *total_bytes, Diag *diag);
  /* streams and events; synchronising checks the error records of what ran (KF_ERROR_OUT_OF_BOUNDS) */
  kf_status (*stream_create)(RtDevice *d, void **out, Diag *diag);
  void (*stream_destroy)(RtDevice *d, void *stream);
  kf_status (*stream_synchronize)(RtDevice *d, void *stream, Diag *diag);
  kf_status (*synchronize)(RtDevice *d, Diag *diag);
  /* Waits until the work of every stream is done, without reading the error records (the next synchronisation
   * reads them): before memory that kernels may use is freed (diag may be NULL). */
  kf_status (*finish)(RtDevice *d, Diag *diag);
  kf_status (*event_create)(RtDevice *d, void **out, Diag *diag);
  void (*event_destroy)(RtDevice *d, void *event);
  bool (*event_record)(RtDevice *d, void *event, void *stream, Diag *diag);
  bool (*event_synchronize)(RtDevice *d, void *event, Diag *diag);
  bool (*event_elapsed_ms)(RtDevice *d, void *start, void *end, float *ms, Diag *diag);
  /* code: the GPU loads ptx (PTX text, or the cubin image of a module linked with foreign code), the simulator kir */
  kf_status (*load)(RtDevice *d, Module *kir, const char *ptx, RtDevModule **out, Diag *diag);
  void (*unload)(RtDevice *d, RtDevModule *m);
  /* The driver's own linker (GPU; NULL on the simulator), backend/link.c's BeDriverLinker: the inputs (PTX,
   * cubins, fatbins, objects, archives) linked for this device into a cubin appended to *cubin; false on failure,
   * with the linker's error log in *log (mem_alloc'd) or a diagnostic (a driver without cuLink*). */
  bool (*link)(RtDevice *d, const BeLinkInput *inputs, unsigned n, bool lineinfo, StrBuf *cubin, char **log,
               Diag *diag);
  kf_status (*function)(RtDevice *d, RtDevModule *m, const char *entry, Op *func, RtDevFunction *out, Diag *diag);
  /* What kfront.h's kf_module_info says of loaded module m: GPU: its CUmodule and the CUlibrary it was loaded as
   * (NULL where the driver has no library API); simulator: m itself as an opaque handle, no library. */
  void (*module_handles)(RtDevice *d, RtDevModule *m, void **module, void **library);
  /* What fn's compiled code uses (kfront.h's kf_kernel_attributes: -1 for what the device cannot tell). */
  kf_status (*function_attributes)(RtDevice *d, RtDevFunction *fn, kf_kernel_attributes *out, Diag *diag);
  /* The function's preferred shared-memory carveout (percent of the unified L1/shared memory, -1 the driver's
   * default); NULL where the device has no such cache (the simulator) */
  kf_status (*prefer_carveout)(RtDevice *d, RtDevFunction *fn, int percent, Diag *diag);
  /* Blocks of fn (block_threads threads, shared bytes) the whole device runs at once. */
  unsigned (*resident_blocks)(RtDevice *d, RtDevFunction *fn, unsigned block_threads, size_t shared);
  /* Runs fn over the physical grid x block with the parameters packed per abi.h (params[i] points at slot
   * i, nparams slots in all). Asynchronous where the device is (errors of the kernel itself may then come
   * at the next synchronisation; the simulator reports them here). */
  kf_status (*launch)(RtDevice *d, RtDevFunction *fn, const unsigned grid[3], const unsigned block[3], size_t shared,
                      void *stream, void **params, unsigned nparams, Diag *diag);
  /* several devices: makes d the calling thread's device for other CUDA libraries (GPU: its context current) */
  bool (*make_current)(RtDevice *d, Diag *diag);
  /* Whether d reads peer's memory directly (peer is a device of d's implementation, another ordinal). */
  bool (*can_access_peer)(RtDevice *d, RtDevice *peer);
  /* Copies from src (memory of src_dev) to dst (memory of dst_dev) directly, with d's context (d is one of the
   * two; can_access_peer(dst_dev, src_dev) holds), asynchronously on stream (a stream of d; NULL: complete on
   * return). */
  bool (*copy_peer)(RtDevice *d, RtDevice *dst_dev, uint64_t dst, RtDevice *src_dev, uint64_t src, size_t bytes,
                    void *stream, Diag *diag);
  /* IPC (memory shared with other processes): a handle of the allocation at ptr, and opening and closing a handle
   * another process made (KF_ERROR_UNSUPPORTED, reported, where the device cannot share memory: the simulator). */
  kf_status (*ipc_get_handle)(RtDevice *d, uint64_t ptr, unsigned char handle[KF_IPC_HANDLE_BYTES], Diag *diag);
  kf_status (*ipc_open_handle)(RtDevice *d, const unsigned char handle[KF_IPC_HANDLE_BYTES], uint64_t *out, Diag *diag);
  kf_status (*ipc_close_handle)(RtDevice *d, uint64_t ptr, Diag *diag);
  /* The ordinal of the device whose memory ptr is (memory made by anyone: CuPy's, PyTorch's), or -1 when the
   * device cannot tell (host memory, the simulator, a driver without the query). */
  int (*pointer_device)(RtDevice *d, uint64_t ptr);
} RtDeviceOps;

struct RtDevice {
  const RtDeviceOps *ops;
  kf_runtime_mode mode;          /* KF_RUNTIME_GPU or KF_RUNTIME_SIM */
  int ordinal;                   /* which device of its mode: a GPU ordinal, or a simulated device */
  kf_device_info info;
  unsigned arch;                 /* SM version the code is compiled for: 90 for sm_90 */
  TargetFacts target;            /* arch's limits for the passes (rt_device_set_target) */
  bool runs_kir;                 /* loads kir modules (simulator), not PTX */
  bool host_is_device;           /* kernels may be given host addresses as they are (simulator) */
};

/* d->target from d->arch and d->info: the table's limits for the SM version, the device's own shared memory per
 * block where it reports one. Called by each device once its info and arch are known. */
static inline void rt_device_set_target(RtDevice *d) {
  d->target = target_facts(d->arch);
  if (d->info.max_shared_per_block) d->target.shared_per_block = (unsigned)d->info.max_shared_per_block;
}

/* Opens GPU `ordinal` through the driver at libcuda_path (NULL: "libcuda.so.1"). NULL (reported) when
 * there is no usable driver or device. */
RtDevice *rt_device_gpu_open(const char *libcuda_path, int ordinal, Diag *diag);
/* How many GPUs the driver at libcuda_path reports; false (reported to diag when not NULL) when there is no
 * usable driver. */
bool rt_device_gpu_count(const char *libcuda_path, int *count, Diag *diag);
/* The properties of GPU `ordinal` (no context is made); false (reported) when there is no such device. */
bool rt_device_gpu_info(const char *libcuda_path, int ordinal, kf_device_info *out, Diag *diag);
/* The driver's attribute `attribute` (a CUdevice_attribute value) of GPU `ordinal`; false (reported) when there is no
 * such device or the driver refuses the attribute. */
bool rt_device_gpu_attribute(const char *libcuda_path, int ordinal, int attribute, int *out, Diag *diag);
/* Simulated device `ordinal` (0 <= ordinal < its count; the caller checks) as a device. opts is copied. NULL
 * (reported) only when out of memory. */
typedef struct SimOptions SimOptions;
RtDevice *rt_device_sim_open(const SimOptions *opts, int ordinal, Diag *diag);
/* The calling thread's interrupt flag (kf_set_interrupt_flag; runtime.c), or NULL. */
volatile int *rt_interrupt_flag(void);
/* kf_runtime_options' launch limits onto simulator options (0: the simulator's defaults). */
void rt_sim_limits(SimOptions *o, uint64_t max_steps, double max_seconds);
/* A simulated device's new limits and the settings its messages name (NULL: the C API's), for later launches. */
void rt_device_sim_set_limits(RtDevice *d, uint64_t max_steps, double max_seconds, const char *steps_setting,
                              const char *seconds_setting);
/* The properties every simulated device has (those of an sm_90 GPU, with the host's CPUs as multiprocessors). */
void rt_device_sim_info(kf_device_info *out);
/* Whether simulated devices a and b are peers: the pairs 2k, 2k+1 (as GPUs linked two by two). */
bool rt_device_sim_peers(int a, int b);

#endif
