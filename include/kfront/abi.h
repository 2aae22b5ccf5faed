/* abi.h — the kernel ABI of the PTX that kfront emits: how a host passes arguments to a kernel and
 * reads back a failed bounds check or a raised exception. Plain C, no dependencies: any host (kfront's
 * runtime, the Python module, a C program using the CUDA Driver API directly) can launch kfront kernels
 * with this alone.
 *
 * ## Parameters
 * A kernel `void k(P0, P1, ...)` becomes a PTX entry whose parameter list is each kir parameter, in
 * order, expanded as follows:
 *
 *   scalar  i8/i16/i32/i64, u8..u64, f16/f32/f64   one parameter of that width, by value
 *   scalar  i1 (bool)                              one 8-bit parameter, 0 or 1
 *   array<T, R, L>                                 1 + 2R parameters:
 *              T *data                             generic address of element [0, 0, ...] (device memory;
 *                                                  bool elements are 1 byte each)
 *              int64 shape[0], ..., shape[R-1]     extents
 *              int64 strides[0], ..., strides[R-1] strides in BYTES (NumPy's convention)
 *   ptr<T, AS>                                     one 64-bit address
 *   a tuple (UniTuple, Tuple)                      its elements in order, each expanded by these rules (nested
 *                                                  tuples too): `void(UniTuple(int64, 2), float32[:])` takes
 *                                                  (t0, t1, data, shape0, stride0), as Numba passes it
 *
 * So a kernel `void(float32[:, :], int64)` takes 6 parameters: (data, shape0, shape1, stride0, stride1,
 * n); `cuLaunchKernel`'s kernelParams is an array of 6 pointers to those values. Layout C arrays must have
 * strides[R-1] == sizeof(T) and layout F arrays strides[0] == sizeof(T) (the kernel relies on it); layout
 * A arrays may have any strides. The parameter names in the PTX are the kir parameter names when the
 * function has an `arg_names` attribute, else p0, p1, ...; arrays add `_data`, `_shape<k>`,
 * `_stride<k>` (e.g. `a_data`, `a_shape0`, `a_stride0`). Hosts should rely on the order only.
 * A complex64 / complex128 scalar takes two parameters, its real then its imaginary part (float32 / float64;
 * KF_ABI_COMPLEX_PARAMS). kf_abi_param_count() gives the count for one array or real kir parameter.
 *
 * Dynamic shared memory (cuda.shared.array(0, dtype)) is the launch's sharedMemBytes: its extent as seen
 * by the kernel is sharedMemBytes / sizeof(dtype).
 *
 * ## Grid-stride kernels
 * A kernel rewritten by the grid-stride pass (the kir function has the unit attribute `grid_stride`) takes
 * three more parameters after the user's: int32 gx, gy, gz, the grid dimensions of the user's launch
 * (arg_names __kf_grid_x/y/z). It must be launched on a 1-D grid (gridDimY = gridDimZ = 1) of any size
 * >= 1 with the user's block shape; its threads loop over the user's gx*gy*gz blocks, so blockIdx, gridDim
 * and cuda.grid read what they would in the user's launch. kfront's runtime compiles with this pass (unless
 * kf_runtime_options.grid_stride is 0; the tools set it from KFRONT_NO_GRID_STRIDE=1) and launches such
 * kernels on min(gx*gy*gz, SMs x occupancy) blocks: its launch plan (hidden grid_x/y/z, grid "resident"),
 * which the disk cache's manifest records. `kfront
 * compile`'s default pipeline does not run it, so its PTX keeps the plain ABI above unless asked
 * (--pass-pipeline=canonicalize,cse,bce,dce,grid-stride).
 *
 * ## Tiled variants
 * A kernel the tile-shared pass tiled keeps its ABI above and has a second entry, NAME__tiled (the kir
 * function's attribute tiled_variant names it; it has `variant_of`), taking the same parameters, then, when
 * register-blocked, the three int32 hidden parameters gx, gy, gz of the grid-stride ABI (the user's grid).
 * Its launch plan (the manifest's "variant" entry) says when it may replace the kernel: only with the block
 * launch_block (e.g. 16x16x1), only when the arrays of each launch_disjoint pair of parameters do not overlap
 * in memory, and on a grid of ceil(gx / rx) x ceil(gy / ry) x gz blocks (launch_grid_divisor). kfront's
 * runtime does this at each launch (runtime/launch.c); a host launching kfront compile's PTX itself may
 * launch NAME, always correct, or NAME__tiled under those rules.
 *
 * ## The device-side error record
 * A module in which a bounds check (check.bounds) or a recorded exception (check.raise: a `raise` or
 * `assert` under debug=True, the read of a variable on a path where it is unbound) remains defines two
 * globals the host reads with cuModuleGetGlobal after a launch (a module without them defines neither:
 * cuModuleGetGlobal fails with CUDA_ERROR_NOT_FOUND, and the host has nothing to read):
 *
 *   __kf_error          a kf_error_record, zero at module load. The first thread whose check fails or
 *                       that raises sets flag 0 -> KF_ERROR_BOUNDS or KF_ERROR_RAISE with an atomic
 *                       compare-and-swap and, if it won, writes the other fields; then that thread ends
 *                       (returns from the kernel; from inside a device function it executes PTX `exit`).
 *                       It never traps, so the context stays usable. Other threads carry on; later
 *                       failures leave the record alone. After reading a set record the host must zero
 *                       it (e.g. cuMemsetD8 of sizeof(kf_error_record) bytes) before the next launch it
 *                       wants to check.
 *   __kf_error_strings  a constant byte table naming what the record's ids refer to, in sections, each
 *                       a list of NUL-terminated strings ended by an empty string: the module's kernel
 *                       names in kernel-id order; the source file names in file-id order; the
 *                       exceptions the module may raise in exception-id order, each the Python class
 *                       name alone ("ValueError": raised without arguments) or the class name, ": " and
 *                       the message ("ValueError: x must be positive"). kf_error_string() looks one up,
 *                       kf_error_exception() splits an exception into class and message.
 *
 * Kernel ids number the module's kernels (func.func with the `kernel` attribute) in module order from 0.
 * A check inside a device function does not know its kernel: it stores KF_ERROR_KERNEL_UNKNOWN and the
 * host names the kernel it launched. Line and column are 1-based source positions (0 when unknown).
 * For KF_ERROR_BOUNDS, axis, index and extent describe the failed access. For KF_ERROR_RAISE, axis is
 * the exception id, index the raising thread's threadIdx and extent its blockIdx, packed by
 * kf_error_pack_thread / kf_error_pack_block (kf_error_unpack_* read them back).
 */
#ifndef KFRONT_ABI_H
#define KFRONT_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  KF_ERROR_NONE = 0,
  KF_ERROR_BOUNDS = 1,           /* a bounds check failed: IndexError */
  KF_ERROR_RAISE = 2,            /* the kernel raised an exception (check.raise) */
};

#define KF_ERROR_KERNEL_UNKNOWN 0xFFFFFFFFu
#define KF_ERROR_FILE_UNKNOWN 0xFFFFFFFFu

/* The layout of the __kf_error global: 40 bytes, 8-byte aligned, no padding. */
typedef struct kf_error_record {
  uint32_t flag;        /* offset  0: KF_ERROR_NONE, or KF_ERROR_BOUNDS / KF_ERROR_RAISE once one happened */
  uint32_t kernel_id;   /* offset  4: index of the failing kernel, or KF_ERROR_KERNEL_UNKNOWN */
  uint32_t line;        /* offset  8: source line of the failing access (1-based, 0 unknown) */
  uint32_t col;         /* offset 12: source column (1-based, 0 unknown) */
  uint32_t axis;        /* offset 16: the array axis whose index was out of range; RAISE: the exception id */
  uint32_t file_id;     /* offset 20: index of the source file name, or KF_ERROR_FILE_UNKNOWN */
  int64_t index;        /* offset 24: the index as the kernel computed it (may be negative); RAISE: threadIdx */
  int64_t extent;       /* offset 32: the extent of that axis; RAISE: blockIdx */
} kf_error_record;

#define KF_ERROR_RECORD_SYMBOL "__kf_error"
#define KF_ERROR_STRINGS_SYMBOL "__kf_error_strings"

/* Sections of the __kf_error_strings table. */
enum { KF_ERROR_STRINGS_KERNELS = 0, KF_ERROR_STRINGS_FILES = 1, KF_ERROR_STRINGS_EXCEPTIONS = 2 };

/* Looks up string `id` of `section` in a __kf_error_strings table of `len` bytes copied to the host.
 * Returns a pointer into table, or NULL when there is no such entry. */
static inline const char *kf_error_string(const char *table, size_t len, int section, uint32_t id) {
  size_t pos = 0;
  for (int s = 0; s <= section; s++) {
    for (uint32_t i = 0;; i++) {
      if (pos >= len) return NULL;
      size_t n = 0;
      while (n < len - pos && table[pos + n]) n++;
      if (n == len - pos) return NULL;  /* unterminated: a corrupt table */
      if (n == 0) { pos++; break; }     /* end of this section */
      if (s == section && i == id) return table + pos;
      pos += n + 1;
    }
  }
  return NULL;
}

/* Splits an exception entry of the table ("ValueError" or "ValueError: message") into its class name (the
 * first *class_len bytes of entry) and its message (NULL when it was raised without arguments). */
static inline void kf_error_exception(const char *entry, size_t *class_len, const char **message) {
  size_t n = 0;
  while (entry[n] && entry[n] != ':') n++;
  *class_len = n;
  *message = entry[n] == ':' ? entry + n + (entry[n + 1] == ' ' ? 2 : 1) : NULL;
}

/* threadIdx (each < 2^21: blocks hold at most 1024 threads) and blockIdx (x < 2^32, y and z < 2^16) of a
 * KF_ERROR_RAISE record, packed into its index and extent fields. */
static inline int64_t kf_error_pack_thread(uint32_t x, uint32_t y, uint32_t z) {
  return (int64_t)((uint64_t)(x & 0x1FFFFF) | (uint64_t)(y & 0x1FFFFF) << 21 | (uint64_t)(z & 0x1FFFFF) << 42);
}
static inline int64_t kf_error_pack_block(uint32_t x, uint32_t y, uint32_t z) {
  return (int64_t)((uint64_t)x | (uint64_t)(y & 0xFFFF) << 32 | (uint64_t)(z & 0xFFFF) << 48);
}
static inline void kf_error_unpack_thread(int64_t packed, uint32_t out[3]) {
  uint64_t p = (uint64_t)packed;
  out[0] = (uint32_t)(p & 0x1FFFFF);
  out[1] = (uint32_t)((p >> 21) & 0x1FFFFF);
  out[2] = (uint32_t)((p >> 42) & 0x1FFFFF);
}
static inline void kf_error_unpack_block(int64_t packed, uint32_t out[3]) {
  uint64_t p = (uint64_t)packed;
  out[0] = (uint32_t)(p & 0xFFFFFFFFu);
  out[1] = (uint32_t)((p >> 32) & 0xFFFF);
  out[2] = (uint32_t)((p >> 48) & 0xFFFF);
}

/* Number of PTX parameters one kir parameter takes: 1 + 2 * rank for an array, 1 otherwise (a complex scalar:
 * KF_ABI_COMPLEX_PARAMS). */
enum { KF_ABI_COMPLEX_PARAMS = 2 };
static inline unsigned kf_abi_param_count(unsigned array_rank) { return array_rank ? 1 + 2 * array_rank : 1; }

#ifdef __cplusplus
}
#endif

#endif
