/* runtime.h — the runtime's internal pieces (prefix rt_), used by api/api_runtime.c.
 *
 *   runtime/check.c   dtypes <-> kir types, Numba type names and signatures, launch-configuration and
 *                     argument checks (one code path for the GPU and the simulator), the IndexError text
 *   runtime/params.c  kernel parameters packed per include/kfront/abi.h, scalar conversions
 *   runtime/gpu.c     device, primary context, modules from PTX (JIT log on failure), launches, the
 *                     device-side error record
 *   runtime/cache.c   compiled-kernel cache (cache.h)
 *   runtime/cuda_driver.c  libcuda via dlopen (cuda_driver.h)
 *
 * The public types of kfront.h (kf_dtype, kf_array, kf_arg, kf_device_info) are used as they are. */
#ifndef KF_RUNTIME_RUNTIME_H
#define KF_RUNTIME_RUNTIME_H

#include "ir/ir.h"
#include "kfront/kfront.h"
#include "runtime/cuda_driver.h"

/* ---- runtime/check.c ------------------------------------------------------------------------- */

/* kir element type of a dtype, and back (false for a non-scalar type). */
Type *rt_dtype_type(IrContext *ctx, kf_dtype t);
bool rt_type_dtype(const Type *t, kf_dtype *out);
/* 'C' when the strides are C-contiguous (rank 1 contiguous arrays count as C), 'F' when F-contiguous,
 * else 'A'. */
char rt_array_layout(const kf_array *a);
/* The kir type an argument has: array<T, R, layout> or the scalar type. NULL for an invalid dtype/rank. */
Type *rt_arg_type(IrContext *ctx, const kf_arg *a);
/* Numba's spelling of a kir type: float32, int64, boolean, float32[::1], float32[:, ::1], float32[::1, :],
 * float32[:, :] (layout A). */
void rt_type_numba(const Type *t, StrBuf *out);
/* "void(float32[::1], int64)" */
void rt_signature_numba(Type *const *params, unsigned nparams, StrBuf *out);
/* The signature the arguments spell (each argument's own type). False (after reporting) for an invalid
 * argument (bad dtype, rank 0 or above KF_MAX_RANK, negative extent, NULL data with elements). */
bool rt_args_signature(const kf_arg *args, unsigned nargs, StrBuf *out, Diag *diag);

/* Whether arg can be passed to a parameter of type param: arrays need the same dtype and rank, and a
 * C or F parameter needs such strides (A takes any); scalars convert to any scalar type. */
bool rt_arg_fits(const Type *param, const kf_arg *arg);
/* Checks count and each argument against the parameter types; reports the first mismatch. */
bool rt_check_args(const char *kernel, Type *const *params, unsigned nparams, const kf_arg *args, unsigned nargs,
                   Diag *diag);

typedef struct RtLimits {
  unsigned max_threads_per_block;
  unsigned max_block[3], max_grid[3];
  size_t max_shared;        /* per block without opt-in */
  size_t max_shared_optin;  /* per block with opt-in */
} RtLimits;

/* The limits of the simulated device (those of an sm_90 GPU). */
void rt_limits_sim(RtLimits *l);
void rt_limits_from_info(RtLimits *l, const kf_device_info *info);
/* Checks a launch configuration before launching. kernel_max_threads: the kernel's own limit (from its
 * register use), 0 if unknown. Reports "invalid launch of K: ..." naming the limit. */
bool rt_check_launch(const RtLimits *l, const char *kernel, const unsigned grid[3], const unsigned block[3],
                     size_t static_shared, size_t dynamic_shared, unsigned kernel_max_threads, Diag *diag);

/* "IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:5)";
 * file NULL or line 0 leave those parts out. */
void rt_format_index_error(StrBuf *out, const char *kernel, const char *file, unsigned line, unsigned col,
                           unsigned axis, int64_t index, int64_t extent);

/* Bytes of static shared memory (mem.global, space "shared") a kernel and the functions it calls use. */
size_t rt_kir_static_shared(Module *m, Op *func);
/* Kernels (func.func with the `kernel` attribute) of m that implement the Python function `name`:
 * sym_name equal to name, or name followed by a mangling suffix ("name__...", "name$..."), or a
 * `py_name`/`source_name` attribute equal to it. Fills out (up to max), returns how many there are. */
unsigned rt_kir_find_kernels(Module *m, const char *name, Op **out, unsigned max);
/* The parameter types of a func.func. */
Type *const *rt_kir_params(Op *func, unsigned *n);
/* A kernel rewritten by the grid-stride pass (unit attr `grid_stride`) takes the user's grid dims as
 * RT_GRID_STRIDE_PARAMS trailing i32 parameters (include/kfront/abi.h); they are not the user's. */
enum { RT_GRID_STRIDE_PARAMS = 3 };
bool rt_kir_grid_stride(Op *func);
/* The user's parameters: rt_kir_params less the trailing grid dims of a grid_stride kernel. */
Type *const *rt_kir_user_params(Op *func, unsigned *n);

/* ---- runtime/params.c ------------------------------------------------------------------------ */

/* Kernel parameter slots (include/kfront/abi.h): 1 per scalar, 1 + 2R per array of rank R. */
unsigned rt_param_slots(Type *const *params, unsigned nparams);

/* A packed parameter list: slot i lives at storage + 8 i, and ptrs[i] points at it (cuLaunchKernel's
 * kernelParams). Built once per kernel, refilled per launch. */
typedef struct RtParams {
  unsigned nslots;
  void **ptrs;
  uint64_t *storage;
} RtParams;
bool rt_params_init(RtParams *p, Type *const *params, unsigned nparams);
void rt_params_free(RtParams *p);
/* Fills the slots from args (already checked by rt_check_args). device_data[i] is the device address of
 * array argument i's element [0, ...] (ignored for scalars). */
void rt_params_pack(RtParams *p, Type *const *params, unsigned nparams, const kf_arg *args,
                    const uint64_t *device_data);

/* Converts a scalar argument to a scalar kir type, writing ty_size(to) bytes (bool: one byte 0/1) to out.
 * Integers wrap; floats to integers truncate toward zero, saturating (NaN gives 0); f16 rounds to nearest. */
void rt_convert_scalar(const kf_arg *a, const Type *to, void *out);
uint16_t rt_f64_to_f16(double v);
double rt_f16_to_f64(uint16_t h);

/* Byte range an array's elements span relative to data: [*lo, *hi) (both 0 for an empty array). */
void rt_array_span(const kf_array *a, int64_t *lo, int64_t *hi);

/* ---- runtime/gpu.c --------------------------------------------------------------------------- */

typedef struct RtGpuModule RtGpuModule;
struct RtGpuModule {
  CUmodule mod;
  CUdeviceptr error_record;  /* __kf_error, 0 when the module has no bounds checks */
  bool dirty;                /* launched since its record was last read */
  const char *last_kernel;   /* Python name of the kernel launched last (borrowed) */
  const char *last_entry;    /* and its PTX entry name (borrowed) */
  RtGpuModule *next;
};

typedef struct RtGpu {
  const RtCuda *cu;
  int ordinal;
  CUdevice dev;
  CUcontext ctx;
  kf_device_info info;
  unsigned arch;             /* 90 for sm_90 */
  RtGpuModule *modules;      /* every module loaded, for record checks and unloading */
} RtGpu;

/* Opens device `ordinal`: retains its primary context and reads its limits. */
bool rt_gpu_open(RtGpu *g, const RtCuda *cu, int ordinal, Diag *diag);
/* Unloads every module and releases the primary context. */
void rt_gpu_close(RtGpu *g);
/* Makes the runtime's context current on the calling thread. */
bool rt_gpu_bind(RtGpu *g, Diag *diag);
/* Loads PTX (NUL-terminated) into a module; the JIT's error log (and info log) is shown on failure.
 * The module is owned by g (unloaded by rt_gpu_close). */
RtGpuModule *rt_gpu_load(RtGpu *g, const char *ptx, Diag *diag);
/* Unloads one module (after its last use) and forgets it. */
void rt_gpu_unload(RtGpu *g, RtGpuModule *m);
/* Looks a kernel entry up; reads its register-limited max threads per block and static shared memory. */
bool rt_gpu_function(RtGpu *g, RtGpuModule *m, const char *entry, CUfunction *fn, unsigned *max_threads,
                     size_t *static_shared, Diag *diag);
/* Reads the error record of every dirty module (after a synchronisation) and resets any that is set.
 * The first IndexError found is reported (located in the kernel's source) and the result is false. */
bool rt_gpu_check_records(RtGpu *g, Diag *diag);

#endif
