/* abi.h — the kernel ABI of the PTX that kfront emits: how a host passes arguments to a kernel and
 * reads back a failed bounds check. Plain C, no dependencies: any host (kfront's runtime, the Python
 * module, a C program using the CUDA Driver API directly) can launch kfront kernels with this alone.
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
 * kf_abi_param_count() gives the count for one kir parameter.
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
 * A module in which a run-time check remains (check.bounds: an IndexError; check.valid: an exception such as
 * a ValueError) defines two globals the host reads with cuModuleGetGlobal after a launch (a module without
 * checks defines neither: cuModuleGetGlobal fails with CUDA_ERROR_NOT_FOUND, and the host has nothing to
 * read):
 *
 *   __kf_error          a kf_error_record, zero at module load. The first thread whose check fails
 *                       sets flag 0 -> KF_ERROR_BOUNDS or KF_ERROR_EXCEPTION with an atomic
 *                       compare-and-swap and, if it won, writes the other fields; then that thread ends
 *                       (returns from the kernel; from inside a device function it executes PTX `exit`).
 *                       It never traps, so the context stays usable. Other threads carry on; later
 *                       failures leave the record alone. After reading a set record the host must zero it
 *                       (e.g. cuMemsetD8 of sizeof(kf_error_record) bytes) before the next launch it wants
 *                       to check.
 *   __kf_error_strings  a constant byte table naming what the record's ids refer to: the module's
 *                       kernel names in kernel-id order, each NUL-terminated, then an empty string,
 *                       then the source file names in file-id order, each NUL-terminated, then an
 *                       empty string, then the exceptions' texts in message-id order ("ValueError: total
 *                       size of new array must be unchanged": the class name, ": ", the message), each
 *                       NUL-terminated, then an empty string. kf_error_string() looks one up. The same
 *                       tables come back at compile time (kf_codegen_result), so a host may also keep
 *                       them itself.
 *
 * Kernel ids number the module's kernels (func.func with the `kernel` attribute) in module order from 0.
 * A check inside a device function does not know its kernel: it stores KF_ERROR_KERNEL_UNKNOWN and the
 * host names the kernel it launched. Line and column are 1-based source positions (0 when unknown).
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
  KF_ERROR_EXCEPTION = 2,        /* a check.valid failed: the exception of message `axis` (the strings' section 2) */
};

#define KF_ERROR_KERNEL_UNKNOWN 0xFFFFFFFFu
#define KF_ERROR_FILE_UNKNOWN 0xFFFFFFFFu

/* The layout of the __kf_error global: 40 bytes, 8-byte aligned, no padding. */
typedef struct kf_error_record {
  uint32_t flag;        /* offset  0: KF_ERROR_NONE, or what failed first (KF_ERROR_BOUNDS, KF_ERROR_EXCEPTION) */
  uint32_t kernel_id;   /* offset  4: index of the failing kernel, or KF_ERROR_KERNEL_UNKNOWN */
  uint32_t line;        /* offset  8: source line of the failing access (1-based, 0 unknown) */
  uint32_t col;         /* offset 12: source column (1-based, 0 unknown) */
  uint32_t axis;        /* offset 16: the array axis whose index was out of range; KF_ERROR_EXCEPTION: the
                         *            message id of the exception's text */
  uint32_t file_id;     /* offset 20: index of the source file name, or KF_ERROR_FILE_UNKNOWN */
  int64_t index;        /* offset 24: the index as the kernel computed it (may be negative); 0 for an exception */
  int64_t extent;       /* offset 32: the extent of that axis; 0 for an exception */
} kf_error_record;

#define KF_ERROR_RECORD_SYMBOL "__kf_error"
#define KF_ERROR_STRINGS_SYMBOL "__kf_error_strings"

/* Sections of the __kf_error_strings table. */
enum { KF_ERROR_STRINGS_KERNELS = 0, KF_ERROR_STRINGS_FILES = 1, KF_ERROR_STRINGS_MESSAGES = 2 };

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

/* Number of PTX parameters one kir parameter takes: 1 + 2 * rank for an array, 1 otherwise. */
static inline unsigned kf_abi_param_count(unsigned array_rank) { return array_rank ? 1 + 2 * array_rank : 1; }

#ifdef __cplusplus
}
#endif

#endif
