/* runtime.h — the runtime's pieces (prefix rt_); runtime/rt.h has its objects (what api/ wraps).
 *
 *   runtime/dtype.c   dtypes, arrays (sizes, contiguity)
 *   runtime/check.c   dtypes <-> kir types, Numba type names and signatures, launch-configuration and
 *                     argument checks (one code path for the GPU and the simulator), the IndexError text
 *   runtime/params.c  kernel parameters packed per include/kfront/abi.h, scalar conversions
 *   runtime/device.h  the device interface: device_gpu.c (CUDA Driver API), device_sim.c (the simulator)
 *   runtime/cache.c   compiled-kernel cache (cache.h)
 *   runtime/cuda_driver.c  libcuda via dlopen (cuda_driver.h)
 *
 * The public types of kfront.h (kf_dtype, kf_array, kf_arg, kf_device_info) are used as they are. */
#ifndef KF_RUNTIME_RUNTIME_H
#define KF_RUNTIME_RUNTIME_H

#include "ir/ir.h"
#include "kfront/kfront.h"
#include "runtime/cuda_driver.h"

/* ---- runtime/dtype.c ------------------------------------------------------------------------- */

/* Bytes per element (bool: 1); 0 for an invalid value. */
size_t rt_dtype_size(kf_dtype t);
/* Numba's name ("boolean", "int8" ... "float64"), "invalid" for an invalid value. */
const char *rt_dtype_name(kf_dtype t);
/* Numba's name or a short form (b1, i8..i64, u8..u64, f16..f64), "bool", "bool_". */
bool rt_dtype_parse(const char *text, kf_dtype *out);
bool rt_dtype_is_float(kf_dtype t);
bool rt_dtype_is_unsigned(kf_dtype t);
bool rt_dtype_is_complex(kf_dtype t);
void rt_array_init(kf_array *a, void *data, kf_memory memory, kf_dtype dtype, unsigned ndim, const int64_t *shape,
                   char order);
size_t rt_array_size(const kf_array *a);
/* NumPy's rule: extents of 1 do not constrain their stride; an empty array is contiguous. */
bool rt_array_is_contiguous(const kf_array *a, char order);
/* NumPy's np.can_cast(from, to, "safe"): every value of `from` is a value of `to` (int64 and uint64 to float64
 * count as safe, as in NumPy). */
bool rt_dtype_can_cast(kf_dtype from, kf_dtype to);
/* Copies the elements of a host array (any strides) to dst in C order. */
void rt_array_gather(const kf_array *a, void *dst);

/* ---- runtime/check.c ------------------------------------------------------------------------- */

/* kir element type of a dtype, and back (false for a non-scalar type). */
Type *rt_dtype_type(IrContext *ctx, kf_dtype t);
/* Record dtypes (dtype.c): whether t is one; its alignment (a scalar's: its size); the dtype of a record type
 * (registered once per layout, process-wide; false when out of memory or full); a dtype from Numba's spelling
 * of a record (false, *why set, when malformed); the record type of a record dtype in ctx (NULL if none). */
bool rt_dtype_is_record(kf_dtype t);
/* Whether t is a datetime64 or timedelta64 dtype (KF_DTYPE_DATETIME64 + unit, KF_DTYPE_TIMEDELTA64 + unit). */
bool rt_dtype_is_time(kf_dtype t);
size_t rt_dtype_align(kf_dtype t);
bool rt_record_dtype_of(const Type *t, kf_dtype *out);
bool rt_record_dtype_parse(const char *spelling, kf_dtype *out, const char **why);
Type *rt_record_type(IrContext *ctx, kf_dtype t);
/* NumPy's descr list (a Python list literal, as np.save writes it) of a record dtype; false when out of memory. */
bool rt_record_descr(kf_dtype t, StrBuf *out);
bool rt_type_dtype(const Type *t, kf_dtype *out);
/* 'C' when the strides are C-contiguous (rank 1 contiguous arrays count as C), 'F' when F-contiguous,
 * else 'A'. */
char rt_array_layout(const kf_array *a);
/* "void(float32[::1], int64)": the parameters spelt by nb_type_signature (frontend/fe.h); those readonly names
 * (a kernel's "readonly_params" attribute, or NULL) as Array(float32, 1, 'C', readonly=True) */
void rt_signature_numba(Type *const *params, unsigned nparams, const Attr *readonly, StrBuf *out);
/* As Python's repr of numba's types shows them (its overload-resolution errors): the arguments' types as a tuple,
 * "(Array(float64, 1, 'C', False, aligned=True), float64)", and a kernel signature as numba's Signature prints,
 * "(Array(...), float32) -> none". */
void rt_args_repr_numba(const kf_arg *args, unsigned nargs, StrBuf *out);
void rt_signature_repr_numba(Type *const *params, unsigned nparams, const Attr *readonly, StrBuf *out);
/* The signature the arguments spell (each argument's own type; a 0-d array float64[()]). False (after reporting)
 * for an invalid argument (bad dtype, rank above KF_MAX_RANK, negative extent, NULL data with elements). */
bool rt_args_signature(const kf_arg *args, unsigned nargs, StrBuf *out, Diag *diag);
/* Tuple arguments pass their elements as parameters, in order (kfront.h, abi.h), and a 0-d array (numba's
 * array(float64, 0d, C)) its array of one element (a rank-1 parameter of extent 1, which the frontend presents to
 * the kernel as the 0-d array). The most parameters a kernel's arguments flatten to. */
enum { RT_MAX_FLAT_ARGS = 256 };
/* Whether some argument is a tuple or a 0-d array (not yet the kernel's parameters). */
bool rt_args_need_flattening(const kf_arg *args, unsigned n);
/* The arguments as the kernel's parameters (tuples by their elements, 0-d arrays their arrays of one): into stack when they fit in cap, else a new block
 * (mem_alloc: free it when *out != stack). KF_ERROR_INVALID_INPUT (reported) past KF_MAX_TUPLE_DEPTH or
 * RT_MAX_FLAT_ARGS, KF_ERROR_OUT_OF_MEMORY. */
kf_status rt_flatten_args(const kf_arg *args, unsigned n, kf_arg *stack, unsigned cap, kf_arg **out, unsigned *nout,
                          Diag *diag);

/* The kir type of the parameter a flat argument (no tuple) is passed to by its kind and type alone: a scalar's
 * scalar type (rt_dtype_type), an array's array<elem, ndim, layout> with its layout from its strides (rt_array_layout;
 * a 0-d array: its array of one, C), a record's record type; NULL for a tuple. Interns into ctx (the caller runs it
 * under a guard). The parameter types a generic program's kernel is made for (program.c). */
Type *rt_arg_type(IrContext *ctx, const kf_arg *arg);
/* Whether arg can be passed to a parameter of type param: arrays need the same dtype and rank, and a
 * C or F parameter needs such strides (A takes any); scalars convert to any scalar type. */
bool rt_arg_fits(const Type *param, const kf_arg *arg);
/* rt_arg_fits, or (reinterpret: a specialized function's launch, kf_function_set_specialized) an array of another
 * integer dtype of the parameter's integer width, its rank and a layout it takes: passed as the parameter's dtype. */
bool rt_arg_fits_as(const Type *param, const kf_arg *arg, bool reinterpret);
/* Whether every argument fits its parameter; rate: how many of them numba's casting rules convert unsafely,
 * safely and by promotion (numba's rating of an overload: lower is better, compared in that order). */
bool rt_rate_args(Type *const *params, const kf_arg *args, unsigned n, unsigned rate[3]);
/* Whether every readonly array among args goes to a parameter func declares readonly (its "readonly_params",
 * from a signature's Array(..., readonly=True)): a kernel declared writeable takes no readonly array, as Numba's
 * typing finds "No matching definition" for it (kfront's generated ufunc, gufunc and reduce kernels take any). *safe: how many writeable arrays go to readonly parameters (Numba's
 * safe conversion, rated as rt_rate_args's rate[1]). */
bool rt_readonly_fits(Op *func, const kf_arg *args, unsigned n, unsigned *safe);
/* Checks count and each argument against the parameter types (rt_arg_fits_as with reinterpret); reports the first
 * mismatch. */
bool rt_check_args(const char *kernel, Type *const *params, unsigned nparams, const kf_arg *args, unsigned nargs,
                   bool reinterpret, Diag *diag);

typedef struct RtLimits {
  unsigned max_threads_per_block;
  unsigned max_block[3], max_grid[3];
  size_t max_shared;        /* per block without opt-in */
  size_t max_shared_optin;  /* per block with opt-in */
  /* The simulated device's multiprocessors (rt_limits_sim only; a GPU's driver answers for its own through its
   * occupancy calculator): how many blocks it holds at once, rt_limits_resident_blocks. */
  unsigned sms;                  /* multiprocessors holding a cooperative launch's blocks */
  unsigned max_threads_per_sm;   /* in whole warps */
  unsigned max_blocks_per_sm;
  size_t max_shared_per_sm;      /* each block also takes the system's 1 KiB (sm_80 on) */
} RtLimits;

/* The limits of the simulated device (those of an sm_90 GPU, with two multiprocessors for what must be resident
 * at once). */
void rt_limits_sim(RtLimits *l);
/* The blocks of `threads` threads using `shared` bytes of shared memory (static and dynamic) that the simulated
 * device l holds at once: its multiprocessors times the fewest that one's threads, blocks and shared memory
 * allow (registers are not modelled: kir has none); 0 when a block does not fit one at all. */
unsigned rt_limits_resident_blocks(const RtLimits *l, unsigned threads, size_t shared);
void rt_limits_from_info(RtLimits *l, const kf_device_info *info);
/* Checks a launch configuration before launching. kernel_max_threads: the kernel's own limit (from its
 * register use), 0 if unknown. Reports "invalid launch of K: ..." naming the limit. */
bool rt_check_launch(const RtLimits *l, const char *kernel, const unsigned grid[3], const unsigned block[3],
                     size_t static_shared, size_t dynamic_shared, unsigned kernel_max_threads, Diag *diag);

/* "IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:5)";
 * file NULL or line 0 leave those parts out. */
void rt_format_index_error(StrBuf *out, const char *kernel, const char *file, unsigned line, unsigned col,
                           unsigned axis, int64_t index, int64_t extent);

/* Bytes of static shared memory (mem.global, space "shared") a kernel and the functions it calls use (each
 * global counted once, however many functions name it). False when out of memory. */
bool rt_kir_static_shared(Module *m, Op *func, size_t *out);
/* The most threads per block a kernel's cuda.jit(launch_bounds=...) allows (its `launch_bounds` attribute); 0: no
 * bound. */
unsigned rt_kir_launch_bound(const Op *func);
/* The same for the globals of any memory space ("shared", "const": the constant arrays a kernel reads). */
bool rt_kir_static_bytes(Module *m, Op *func, const char *space, size_t *out);
/* Kernels (func.func with the `kernel` attribute) of m that implement the Python function `name`:
 * sym_name equal to name, or name followed by a mangling suffix ("name__...", "name$..."), or a
 * `py_name`/`source_name` attribute equal to it. Fills out (up to max), returns how many there are. */
unsigned rt_kir_find_kernels(Module *m, const char *name, Op **out, unsigned max);
/* The parameter types of a func.func. */
Type *const *rt_kir_params(Op *func, unsigned *n);

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
/* A number converted to the complex type to, as its real and imaginary parts (the two parameters it takes). */
void rt_convert_complex(const kf_arg *a, const Type *to, void *re, void *im);
/* rt_convert_scalar to the scalar type of a dtype (without interning a kir type: any thread may call it). */
void rt_convert_to_dtype(const kf_arg *a, kf_dtype to, void *out);
/* The scalar of dtype t stored at p (the inverse of rt_convert_scalar: signed integers and bool to value.i,
 * unsigned integers to value.u, floats to value.f). */
kf_arg rt_scalar_read(const void *p, kf_dtype t);

/* Byte range an array's elements span relative to data: [*lo, *hi) (both 0 for an empty array). */
void rt_array_span(const kf_array *a, int64_t *lo, int64_t *hi);

/* "IndexError: ..." as rt_format_index_error writes it, reported to diag located at file:line:col (the
 * source line quoted when the file is registered), with its facts recorded for kf_context_last_error. */
void rt_report_index_error(Diag *diag, const char *kernel, const char *file, unsigned line, unsigned col,
                           unsigned axis, int64_t index, int64_t extent);
/* An exception the kernel raised (its error record's KF_ERROR_RAISE), reported to diag located at
 * file:line:col as "ValueError: message (kernel foo, k.py:7:9; thread (2, 0, 0) of block (0, 0, 0))", with
 * its facts recorded (kind RAISED). exception is the record's entry, "Class" or "Class: message". */
void rt_report_raised(Diag *diag, const char *kernel, const char *file, unsigned line, unsigned col,
                      const char *exception, const uint32_t thread[3], const uint32_t block[3]);

#endif
