/* api_runtime.c — the public runtime API (kfront.h, "runtime" section) over runtime/ and the simulator.
 *
 * kf_runtime: the GPU (runtime/gpu.c over the dlopen'd driver) or the simulator (runtime/sim), chosen at
 *   creation; a compiled-kernel cache (runtime/cache.c); device allocations it hands out (freed with it).
 * kf_program: Python source (copied) or a borrowed kir module. Kernels are specialised on demand:
 *   - a lazy kernel is compiled for the signature its arguments spell (kf_compile_source with that
 *     signature); an eager one is compiled once with its decorator's signatures and the first one the
 *     arguments fit is used (whether a kernel is eager is found by compiling it with no signature);
 *   - GPU: kir -> PTX (backend), cached in memory and on disk under a key of (kfront version, file, source,
 *     kernel, argument signature, options, arch); a cache hit skips the frontend and the backend entirely:
 *     the entry holds a small manifest (PTX entry, grid_stride, parameter types) and the PTX;
 *   - the default pipeline is kf_default_pipeline() + ",grid-stride" (unless KFRONT_NO_GRID_STRIDE=1): a
 *     kernel the pass rewrote (`grid_stride`) takes the user's grid dims as 3 trailing i32 parameters, which
 *     are not the user's (signatures, overloads, argument checks see only the user's), and is launched on a
 *     1-D grid: min(blocks, SMs x occupancy) on the GPU, min(blocks, 64) on the simulator;
 *   - simulator: the kir module after the pass pipeline, run by sim_program_launch.
 * kf_kernel: one specialisation, memoised in its program by (name, argument signature), with its packed
 *   parameter buffer (runtime/params.c) so a launch only refills values.
 * kf_launch: the same checks on both paths (runtime/check.c), then host arrays are copied in and out around
 *   a synchronised launch (GPU) and the error record is read; device-only launches stay asynchronous. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "backend/backend.h"
#include "runtime/cache.h"
#include "runtime/runtime.h"
#include "runtime/sim/sim.h"
#include "utils/npy.h"

#define NOLOC srcloc(NULL, 0, 0)

/* ---- dtypes, arrays, arguments --------------------------------------------------------------- */

static const struct {
  const char *name, *short_name;
  size_t size;
} dtypes[KF_DTYPE_COUNT] = {
    [KF_BOOL] = {"boolean", "b1", 1},     [KF_INT8] = {"int8", "i8", 1},       [KF_INT16] = {"int16", "i16", 2},
    [KF_INT32] = {"int32", "i32", 4},     [KF_INT64] = {"int64", "i64", 8},    [KF_UINT8] = {"uint8", "u8", 1},
    [KF_UINT16] = {"uint16", "u16", 2},   [KF_UINT32] = {"uint32", "u32", 4},  [KF_UINT64] = {"uint64", "u64", 8},
    [KF_FLOAT16] = {"float16", "f16", 2}, [KF_FLOAT32] = {"float32", "f32", 4}, [KF_FLOAT64] = {"float64", "f64", 8},
};

size_t kf_dtype_size(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT ? dtypes[t].size : 0; }
const char *kf_dtype_name(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT ? dtypes[t].name : "invalid"; }

kf_status kf_dtype_parse(const char *text, kf_dtype *out) {
  if (!text) return KF_ERROR_INVALID_INPUT;
  for (int i = 0; i < KF_DTYPE_COUNT; i++) {
    if (strcmp(text, dtypes[i].name) == 0 || strcmp(text, dtypes[i].short_name) == 0) {
      *out = (kf_dtype)i;
      return KF_OK;
    }
  }
  if (strcmp(text, "bool") == 0 || strcmp(text, "bool_") == 0) {
    *out = KF_BOOL;
    return KF_OK;
  }
  return KF_ERROR_INVALID_INPUT;
}

void kf_array_init(kf_array *a, void *data, kf_memory memory, kf_dtype dtype, unsigned ndim, const int64_t *shape,
                   char order) {
  memset(a, 0, sizeof *a);
  a->data = data;
  a->memory = memory;
  a->dtype = dtype;
  a->ndim = ndim > KF_MAX_RANK ? KF_MAX_RANK : ndim;
  int64_t stride = (int64_t)kf_dtype_size(dtype);
  for (unsigned k = 0; k < a->ndim; k++) {
    unsigned d = order == 'F' ? k : a->ndim - 1 - k;
    a->shape[d] = shape[d];
    a->strides[d] = stride;
    stride *= shape[d] > 0 ? shape[d] : 1;
  }
}

size_t kf_array_size(const kf_array *a) {
  size_t n = 1;
  for (unsigned d = 0; d < a->ndim && d < KF_MAX_RANK; d++) n *= a->shape[d] > 0 ? (size_t)a->shape[d] : 0;
  return n;
}

/* NumPy's rule: extents of 1 do not constrain their stride; an empty array is contiguous. */
int kf_array_is_contiguous(const kf_array *a, char order) {
  if (a->ndim > KF_MAX_RANK) return 0;
  if (kf_array_size(a) == 0) return 1;
  int64_t want = (int64_t)kf_dtype_size(a->dtype);
  for (unsigned k = 0; k < a->ndim; k++) {
    unsigned d = order == 'F' ? k : a->ndim - 1 - k;
    if (a->shape[d] == 1) continue;
    if (a->strides[d] != want) return 0;
    want *= a->shape[d];
  }
  return 1;
}

kf_arg kf_arg_array(const kf_array *a) {
  kf_arg r;
  memset(&r, 0, sizeof r);
  r.kind = KF_ARG_ARRAY;
  r.dtype = a->dtype;
  r.array = *a;
  return r;
}

static kf_arg scalar(kf_dtype dtype) {
  kf_arg r;
  memset(&r, 0, sizeof r);
  r.kind = KF_ARG_SCALAR;
  r.dtype = dtype;
  return r;
}
kf_arg kf_arg_int(kf_dtype dtype, int64_t v) { kf_arg r = scalar(dtype); r.value.i = v; return r; }
kf_arg kf_arg_uint(kf_dtype dtype, uint64_t v) { kf_arg r = scalar(dtype); r.value.u = v; return r; }
kf_arg kf_arg_float(kf_dtype dtype, double v) { kf_arg r = scalar(dtype); r.value.f = v; return r; }

/* ---- .npy ------------------------------------------------------------------------------------- */

static const kf_dtype npy_to_dtype[NPY__COUNT] = {
    [NPY_BOOL] = KF_BOOL,  [NPY_I8] = KF_INT8,    [NPY_I16] = KF_INT16,  [NPY_I32] = KF_INT32,
    [NPY_I64] = KF_INT64,  [NPY_U8] = KF_UINT8,   [NPY_U16] = KF_UINT16, [NPY_U32] = KF_UINT32,
    [NPY_U64] = KF_UINT64, [NPY_F16] = KF_FLOAT16, [NPY_F32] = KF_FLOAT32, [NPY_F64] = KF_FLOAT64,
};

kf_status kf_npy_load(kf_context *ctx, const char *path, kf_array *out) {
  memset(out, 0, sizeof *out);
  NpyArray n;
  char err[512];
  if (!npy_read_file(path, &n, err, sizeof err)) {
    diag_error(&ctx->diag, srcloc(path, 0, 0), "%s", err);
    return errno == ENOENT && strstr(err, "cannot open") ? KF_ERROR_NOT_FOUND : KF_ERROR_INVALID_INPUT;
  }
  kf_array_init(out, n.data, KF_MEMORY_HOST, npy_to_dtype[n.type], n.ndim, n.shape, n.fortran_order ? 'F' : 'C');
  return KF_OK;
}

/* Copies the elements of a (any strides) into dst in C order. */
static void gather_c(const kf_array *a, char *dst) {
  size_t isz = kf_dtype_size(a->dtype), n = kf_array_size(a);
  int64_t idx[KF_MAX_RANK] = {0};
  for (size_t e = 0; e < n; e++) {
    int64_t off = 0;
    for (unsigned d = 0; d < a->ndim; d++) off += idx[d] * a->strides[d];
    memcpy(dst + e * isz, (const char *)a->data + off, isz);
    for (int d = (int)a->ndim - 1; d >= 0; d--) {
      if (++idx[d] < a->shape[d]) break;
      idx[d] = 0;
    }
  }
}

kf_status kf_npy_save(kf_context *ctx, const char *path, const kf_array *a) {
  if (a->memory != KF_MEMORY_HOST) {
    diag_error(&ctx->diag, srcloc(path, 0, 0), "cannot save a device array; copy it to the host first");
    return KF_ERROR_INVALID_INPUT;
  }
  if (kf_dtype_size(a->dtype) == 0 || a->ndim > KF_MAX_RANK) {
    diag_error(&ctx->diag, srcloc(path, 0, 0), "cannot save an array of invalid dtype or rank");
    return KF_ERROR_INVALID_INPUT;
  }
  NpyArray n = {.ndim = a->ndim};
  for (int t = 0; t < NPY__COUNT; t++)
    if (npy_to_dtype[t] == a->dtype) n.type = (NpyType)t;
  for (unsigned d = 0; d < a->ndim; d++) n.shape[d] = a->shape[d];
  n.nbytes = kf_array_size(a) * kf_dtype_size(a->dtype);
  char *copy = NULL;
  if (kf_array_is_contiguous(a, 'C')) {
    n.data = a->data;
  } else if (kf_array_is_contiguous(a, 'F')) {
    n.data = a->data;
    n.fortran_order = a->ndim > 1;
  } else {
    copy = malloc(n.nbytes ? n.nbytes : 1);
    if (!copy) return KF_ERROR_INTERNAL;
    gather_c(a, copy);
    n.data = copy;
  }
  char err[512];
  bool ok = npy_write_file(path, &n, err, sizeof err);
  free(copy);
  if (!ok) {
    diag_error(&ctx->diag, srcloc(path, 0, 0), "%s", err);
    return KF_ERROR_INVALID_INPUT;
  }
  return KF_OK;
}

/* ---- the runtime ------------------------------------------------------------------------------ */

/* A set of device addresses handed out (open addressing; 0 empty, 1 deleted). */
typedef struct PtrSet {
  uint64_t *slots;
  size_t cap, count, used;
} PtrSet;

static size_t ptr_slot(uint64_t p, size_t cap) { return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1); }

static bool ptrset_add(PtrSet *s, uint64_t p) {
  if ((s->used + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < s->cap; i++) {
      if (s->slots[i] <= 1) continue;
      size_t j = ptr_slot(s->slots[i], cap);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    s->used = s->count;
  }
  size_t j = ptr_slot(p, s->cap);
  while (s->slots[j] > 1) j = (j + 1) & (s->cap - 1);
  if (s->slots[j] == 0) s->used++;
  s->slots[j] = p;
  s->count++;
  return true;
}

static bool ptrset_remove(PtrSet *s, uint64_t p) {
  if (!s->cap) return false;
  for (size_t j = ptr_slot(p, s->cap); s->slots[j]; j = (j + 1) & (s->cap - 1)) {
    if (s->slots[j] == p) {
      s->slots[j] = 1;
      s->count--;
      return true;
    }
  }
  return false;
}

struct kf_runtime {
  kf_context *ctx;
  kf_runtime_mode mode;       /* GPU or SIM */
  RtGpu gpu;
  kf_device_info info;
  RtLimits limits;
  RtCache cache;
  bool backend_chosen;
  BackendKind backend;
  SimOptions sim;
  bool grid_stride;           /* the default pipeline ends with grid-stride (KFRONT_NO_GRID_STRIDE unset) */
  char pipeline[128];         /* that default pipeline */
  PtrSet allocations;
  StrBuf describe;
  unsigned compiles, launches;
};

static Diag *D(kf_runtime *rt) { return &rt->ctx->diag; }

void kf_runtime_options_init(kf_runtime_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = KF_RUNTIME_AUTO;
  o->disk_cache = 1;
  o->sim_detect_races = 1;
  o->sim_workers = 1;
}

static bool env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

static void sim_info(kf_device_info *in) {
  memset(in, 0, sizeof *in);
  snprintf(in->name, sizeof in->name, "kfront simulator");
  in->cc_major = 9;
  in->cc_minor = 0;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  in->multiprocessors = cpus > 0 ? (int)cpus : 1;
  in->warp_size = 32;
  RtLimits l;
  rt_limits_sim(&l);
  in->max_threads_per_block = (int)l.max_threads_per_block;
  for (int i = 0; i < 3; i++) {
    in->max_block_dim[i] = (int)l.max_block[i];
    in->max_grid_dim[i] = (int)l.max_grid[i];
  }
  in->max_shared_per_block = l.max_shared;
  in->max_shared_per_block_optin = l.max_shared_optin;
}

kf_status kf_runtime_create(kf_context *ctx, const kf_runtime_options *opts, kf_runtime **out) {
  *out = NULL;
  kf_runtime_options defaults;
  if (!opts) {
    kf_runtime_options_init(&defaults);
    opts = &defaults;
  }
  kf_runtime *rt = calloc(1, sizeof *rt);
  if (!rt) return KF_ERROR_INTERNAL;
  rt->ctx = ctx;
  sb_init(&rt->describe);
  kf_runtime_mode mode = opts->mode;
  if (mode == KF_RUNTIME_AUTO && env_on("KFRONT_SIM")) {
    mode = KF_RUNTIME_SIM;
    sb_puts(&rt->describe, "simulator (KFRONT_SIM is set)");
  }
  if (mode != KF_RUNTIME_SIM) {
    /* In AUTO mode a missing driver or device is not an error: the reason goes into the description. */
    Diag quiet;
    diag_init(&quiet);
    Diag *d = mode == KF_RUNTIME_GPU ? &ctx->diag : &quiet;
    const RtCuda *cu = rt_cuda(d);
    bool ok = cu && rt_gpu_open(&rt->gpu, cu, opts->device, d);
    if (ok) {
      rt->mode = KF_RUNTIME_GPU;
      rt->info = rt->gpu.info;
      sb_printf(&rt->describe, "GPU %d: %s (sm_%u, %d SMs)", opts->device, rt->info.name, rt->gpu.arch,
                rt->info.multiprocessors);
    } else if (mode == KF_RUNTIME_GPU) {
      if (cu) rt_gpu_close(&rt->gpu);
      diag_free(&quiet);
      sb_free(&rt->describe);
      free(rt);
      return cu ? KF_ERROR_DEVICE : KF_ERROR_NOT_FOUND;
    } else {
      if (cu) rt_gpu_close(&rt->gpu);
      memset(&rt->gpu, 0, sizeof rt->gpu);
      mode = KF_RUNTIME_SIM;
      size_t n = quiet.text.len;
      const char *why = diag_text(&quiet);
      if (strncmp(why, "kfront: error: ", 15) == 0) why += 15, n -= 15;
      while (n && why[n - 1] == '\n') n--;
      sb_printf(&rt->describe, "simulator (%.*s)", (int)n, why);
    }
    diag_free(&quiet);
  }
  if (mode == KF_RUNTIME_SIM) {
    rt->mode = KF_RUNTIME_SIM;
    if (!rt->describe.len) sb_puts(&rt->describe, "simulator");
    sim_info(&rt->info);
  }
  rt_limits_from_info(&rt->limits, &rt->info);
  sim_options_init(&rt->sim);
  rt->sim.detect_races = opts->sim_detect_races != 0;
  rt->sim.nworkers = opts->sim_workers;
  if (opts->sim_max_steps) rt->sim.max_steps = opts->sim_max_steps;
  rt->grid_stride = !env_on("KFRONT_NO_GRID_STRIDE");
  snprintf(rt->pipeline, sizeof rt->pipeline, "%s%s", kf_default_pipeline(), rt->grid_stride ? ",grid-stride" : "");

  StrBuf dir;
  sb_init(&dir);
  bool disk = opts->disk_cache && !env_on("KFRONT_NO_CACHE") && rt->mode == KF_RUNTIME_GPU;
  if (disk) {
    if (opts->cache_dir && *opts->cache_dir) sb_puts(&dir, opts->cache_dir);
    else disk = rt_cache_default_dir(&dir);
  }
  rt_cache_init(&rt->cache, true, disk ? sb_cstr(&dir) : NULL);
  sb_free(&dir);
  *out = rt;
  return KF_OK;
}

void kf_runtime_destroy(kf_runtime *rt) {
  if (!rt) return;
  for (size_t i = 0; i < rt->allocations.cap; i++) {
    uint64_t p = rt->allocations.slots[i];
    if (p <= 1) continue;
    if (rt->mode == KF_RUNTIME_GPU) {
      rt->gpu.cu->cuCtxSetCurrent(rt->gpu.ctx);
      rt->gpu.cu->cuMemFree((CUdeviceptr)p);
    } else {
      free((void *)(uintptr_t)p);
    }
  }
  free(rt->allocations.slots);
  if (rt->mode == KF_RUNTIME_GPU) rt_gpu_close(&rt->gpu);
  rt_cache_free(&rt->cache);
  sb_free(&rt->describe);
  free(rt);
}

kf_runtime_mode kf_runtime_get_mode(kf_runtime *rt) { return rt->mode; }
const char *kf_runtime_describe(kf_runtime *rt) { return sb_cstr(&rt->describe); }

kf_status kf_runtime_device_info(kf_runtime *rt, kf_device_info *out) {
  *out = rt->info;
  return KF_OK;
}

void kf_runtime_get_stats(kf_runtime *rt, kf_runtime_stats *out) {
  RtCacheStats c = rt_cache_stats(&rt->cache);
  memset(out, 0, sizeof *out);
  out->cache_memory_hits = c.memory_hits;
  out->cache_disk_hits = c.disk_hits;
  out->cache_misses = c.misses;
  out->cache_corrupt = c.corrupt;
  out->cache_writes = c.writes;
  out->compiles = rt->compiles;
  out->launches = rt->launches;
}

static bool gpu_bind(kf_runtime *rt) { return rt->mode != KF_RUNTIME_GPU || rt_gpu_bind(&rt->gpu, D(rt)); }

#define GPU_CALL(rt, fn, ...) RT_CU((rt)->gpu.cu, D(rt), fn, __VA_ARGS__)

/* ---- device memory, streams, events ---------------------------------------------------------- */

struct kf_stream {
  kf_runtime *rt;
  CUstream stream;
};

struct kf_event {
  kf_runtime *rt;
  CUevent event;
  struct timespec when;  /* simulator */
};

static CUstream stream_of(kf_stream *s) { return s ? s->stream : NULL; }

kf_status kf_device_alloc(kf_runtime *rt, size_t bytes, void **dptr) {
  *dptr = NULL;
  if (!bytes) return KF_OK;
  uint64_t p = 0;
  if (rt->mode == KF_RUNTIME_GPU) {
    CUdeviceptr d = 0;
    if (!gpu_bind(rt) || !GPU_CALL(rt, cuMemAlloc, &d, bytes)) return KF_ERROR_DEVICE;
    p = d;
  } else {
    void *h = NULL;
    if (posix_memalign(&h, 256, bytes) != 0) {
      diag_error(D(rt), NOLOC, "out of memory allocating %zu bytes of (simulated) device memory", bytes);
      return KF_ERROR_DEVICE;
    }
    p = (uint64_t)(uintptr_t)h;
  }
  if (!ptrset_add(&rt->allocations, p)) {
    if (rt->mode == KF_RUNTIME_GPU) rt->gpu.cu->cuMemFree((CUdeviceptr)p);
    else free((void *)(uintptr_t)p);
    return KF_ERROR_INTERNAL;
  }
  *dptr = (void *)(uintptr_t)p;
  return KF_OK;
}

kf_status kf_device_free(kf_runtime *rt, void *dptr) {
  if (!dptr) return KF_OK;
  uint64_t p = (uint64_t)(uintptr_t)dptr;
  if (!ptrset_remove(&rt->allocations, p)) {
    diag_error(D(rt), NOLOC, "kf_device_free: %p was not allocated by this runtime (or was freed already)", dptr);
    return KF_ERROR_INVALID_INPUT;
  }
  if (rt->mode == KF_RUNTIME_GPU) {
    if (!gpu_bind(rt) || !GPU_CALL(rt, cuMemFree, (CUdeviceptr)p)) return KF_ERROR_DEVICE;
  } else {
    free(dptr);
  }
  return KF_OK;
}

typedef enum { COPY_HTOD, COPY_DTOH, COPY_DTOD } CopyKind;

static kf_status copy(kf_runtime *rt, CopyKind kind, void *dst, const void *src, size_t bytes, kf_stream *s) {
  if (!bytes) return KF_OK;
  if (rt->mode == KF_RUNTIME_SIM) {
    memmove(dst, src, bytes);
    return KF_OK;
  }
  if (!gpu_bind(rt)) return KF_ERROR_DEVICE;
  CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, sp = (CUdeviceptr)(uintptr_t)src;
  bool ok;
  if (s) {
    ok = kind == COPY_HTOD   ? GPU_CALL(rt, cuMemcpyHtoDAsync, d, src, bytes, s->stream)
         : kind == COPY_DTOH ? GPU_CALL(rt, cuMemcpyDtoHAsync, dst, sp, bytes, s->stream)
                             : GPU_CALL(rt, cuMemcpyDtoDAsync, d, sp, bytes, s->stream);
  } else {
    ok = kind == COPY_HTOD   ? GPU_CALL(rt, cuMemcpyHtoD, d, src, bytes)
         : kind == COPY_DTOH ? GPU_CALL(rt, cuMemcpyDtoH, dst, sp, bytes)
                             : GPU_CALL(rt, cuMemcpyDtoD, d, sp, bytes);
  }
  return ok ? KF_OK : KF_ERROR_DEVICE;
}

kf_status kf_memcpy_to_device(kf_runtime *rt, void *dst, const void *src, size_t bytes, kf_stream *s) {
  return copy(rt, COPY_HTOD, dst, src, bytes, s);
}
kf_status kf_memcpy_to_host(kf_runtime *rt, void *dst, const void *src, size_t bytes, kf_stream *s) {
  return copy(rt, COPY_DTOH, dst, src, bytes, s);
}
kf_status kf_memcpy_device(kf_runtime *rt, void *dst, const void *src, size_t bytes, kf_stream *s) {
  return copy(rt, COPY_DTOD, dst, src, bytes, s);
}

kf_status kf_memset_device(kf_runtime *rt, void *dst, int value, size_t bytes, kf_stream *s) {
  if (!bytes) return KF_OK;
  if (rt->mode == KF_RUNTIME_SIM) {
    memset(dst, value, bytes);
    return KF_OK;
  }
  CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst;
  bool ok = gpu_bind(rt) && (s ? GPU_CALL(rt, cuMemsetD8Async, d, (unsigned char)value, bytes, s->stream)
                               : GPU_CALL(rt, cuMemsetD8, d, (unsigned char)value, bytes));
  return ok ? KF_OK : KF_ERROR_DEVICE;
}

kf_status kf_stream_create(kf_runtime *rt, kf_stream **out) {
  *out = NULL;
  kf_stream *s = calloc(1, sizeof *s);
  if (!s) return KF_ERROR_INTERNAL;
  s->rt = rt;
  if (rt->mode == KF_RUNTIME_GPU && (!gpu_bind(rt) || !GPU_CALL(rt, cuStreamCreate, &s->stream, CU_STREAM_DEFAULT))) {
    free(s);
    return KF_ERROR_DEVICE;
  }
  *out = s;
  return KF_OK;
}

void kf_stream_destroy(kf_stream *s) {
  if (!s) return;
  if (s->rt->mode == KF_RUNTIME_GPU && s->stream && gpu_bind(s->rt)) s->rt->gpu.cu->cuStreamDestroy(s->stream);
  free(s);
}

/* After a synchronisation: the bounds-check records of the kernels launched since the last check. */
static kf_status check_records(kf_runtime *rt) {
  return rt_gpu_check_records(&rt->gpu, D(rt)) ? KF_OK : KF_ERROR_OUT_OF_BOUNDS;
}

/* A failed synchronisation after a kernel fault leaves the context unusable: say so. */
static void sticky_note(kf_runtime *rt) {
  diag_note(D(rt), NOLOC, "a kernel fault like this one leaves the CUDA context unusable: later GPU calls in "
            "this process will fail too");
}

kf_status kf_stream_synchronize(kf_stream *s) {
  kf_runtime *rt = s->rt;
  if (rt->mode == KF_RUNTIME_SIM) return KF_OK;
  if (!gpu_bind(rt)) return KF_ERROR_DEVICE;
  if (!GPU_CALL(rt, cuStreamSynchronize, s->stream)) {
    sticky_note(rt);
    return KF_ERROR_DEVICE;
  }
  return check_records(rt);
}

kf_status kf_runtime_synchronize(kf_runtime *rt) {
  if (rt->mode == KF_RUNTIME_SIM) return KF_OK;
  if (!gpu_bind(rt)) return KF_ERROR_DEVICE;
  if (!GPU_CALL(rt, cuCtxSynchronize)) {
    sticky_note(rt);
    return KF_ERROR_DEVICE;
  }
  return check_records(rt);
}

kf_status kf_event_create(kf_runtime *rt, kf_event **out) {
  *out = NULL;
  kf_event *e = calloc(1, sizeof *e);
  if (!e) return KF_ERROR_INTERNAL;
  e->rt = rt;
  if (rt->mode == KF_RUNTIME_GPU && (!gpu_bind(rt) || !GPU_CALL(rt, cuEventCreate, &e->event, CU_EVENT_DEFAULT))) {
    free(e);
    return KF_ERROR_DEVICE;
  }
  *out = e;
  return KF_OK;
}

void kf_event_destroy(kf_event *e) {
  if (!e) return;
  if (e->rt->mode == KF_RUNTIME_GPU && e->event && gpu_bind(e->rt)) e->rt->gpu.cu->cuEventDestroy(e->event);
  free(e);
}

kf_status kf_event_record(kf_event *e, kf_stream *s) {
  kf_runtime *rt = e->rt;
  if (rt->mode == KF_RUNTIME_SIM) {
    clock_gettime(CLOCK_MONOTONIC, &e->when);
    return KF_OK;
  }
  return gpu_bind(rt) && GPU_CALL(rt, cuEventRecord, e->event, stream_of(s)) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status kf_event_synchronize(kf_event *e) {
  kf_runtime *rt = e->rt;
  if (rt->mode == KF_RUNTIME_SIM) return KF_OK;
  return gpu_bind(rt) && GPU_CALL(rt, cuEventSynchronize, e->event) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status kf_event_elapsed_ms(kf_event *start, kf_event *end, float *ms) {
  kf_runtime *rt = start->rt;
  if (rt->mode == KF_RUNTIME_SIM) {
    *ms = (float)((double)(end->when.tv_sec - start->when.tv_sec) * 1e3 +
                  (double)(end->when.tv_nsec - start->when.tv_nsec) / 1e6);
    return KF_OK;
  }
  return gpu_bind(rt) && GPU_CALL(rt, cuEventElapsedTime, ms, start->event, end->event) ? KF_OK : KF_ERROR_DEVICE;
}

/* ---- programs ---------------------------------------------------------------------------------- */

/* A kir module of a program: compiled from its source (owned) or the borrowed one of from_module. */
typedef struct ProgModule ProgModule;
struct ProgModule {
  kf_module *km;
  bool owned;
  SimProgram *sim;         /* simulator, made on first launch */
  RtGpuModule *gpu;        /* GPU: the whole module's PTX, loaded (eager and borrowed modules) */
  char *ptx;               /* and that PTX, kept for the cache entries of each specialisation */
  ProgModule *next;
};

typedef struct EagerInfo {
  bool eager;
  ProgModule *pm;          /* eager: the module with every signature of the decorator */
} EagerInfo;

struct kf_program {
  kf_runtime *rt;
  char *filename, *source;  /* owned; NULL for a program over a module */
  size_t len;
  int bounds_check, verify_each;
  char *pipeline;           /* owned; NULL: the default pipeline */
  ProgModule *borrowed;     /* kf_program_from_module */
  ProgModule *modules;
  StrMap kernels;           /* "name\nargsig" (owned key) -> kf_kernel* */
  StrMap eager;             /* name (owned key) -> EagerInfo* */
};

struct kf_kernel {
  kf_program *p;
  char *name, *entry, *signature;
  Type **params;            /* interned in the context's IrContext: the user's, then (grid_stride) 3 x i32 */
  unsigned nparams;         /* the user's parameters (what arguments are checked against) */
  bool grid_stride;         /* takes the user's grid dims as 3 trailing i32 parameters (abi.h) */
  unsigned grid_slot;       /* grid_stride: the packed slot of the first of them */
  int cache_source;
  RtParams packed;
  /* simulator */
  ProgModule *pm;
  Op *func;
  size_t static_shared;
  /* GPU */
  RtGpuModule *gm;
  bool owns_gm;             /* loaded for this kernel alone (from a cache entry) */
  CUfunction fn;
  unsigned max_threads;
  size_t dynamic_optin;     /* dynamic shared memory the function has been allowed (cuFuncSetAttribute) */
  unsigned occ_threads, occ_blocks;  /* grid_stride: blocks per SM for the last block size and shared bytes */
  size_t occ_shared;
};

static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

kf_status kf_program_create(kf_runtime *rt, const char *filename, const char *text, size_t len,
                            const kf_compile_options *opts, kf_program **out) {
  *out = NULL;
  kf_compile_options defaults;
  if (!opts) {
    kf_compile_options_init(&defaults);
    opts = &defaults;
  }
  kf_program *p = calloc(1, sizeof *p);
  if (!p) return KF_ERROR_INTERNAL;
  p->rt = rt;
  p->filename = strdup(filename ? filename : "<input>");
  p->source = malloc(len + 1);
  p->pipeline = xstrdup(opts->pipeline);
  if (!p->filename || !p->source || (opts->pipeline && !p->pipeline)) {
    free(p->filename);
    free(p->source);
    free(p->pipeline);
    free(p);
    return KF_ERROR_INTERNAL;
  }
  memcpy(p->source, text, len);
  p->source[len] = 0;
  p->len = len;
  p->bounds_check = opts->bounds_check;
  p->verify_each = opts->verify_each;
  strmap_init(&p->kernels);
  strmap_init(&p->eager);
  /* registered so that run-time errors (IndexError) quote the source line, even on a cache hit */
  diag_add_source(D(rt), p->filename, p->source, p->len);
  *out = p;
  return KF_OK;
}

kf_status kf_program_from_module(kf_runtime *rt, kf_module *m, kf_program **out) {
  *out = NULL;
  kf_program *p = calloc(1, sizeof *p);
  ProgModule *pm = calloc(1, sizeof *pm);
  if (!p || !pm) {
    free(p);
    free(pm);
    return KF_ERROR_INTERNAL;
  }
  p->rt = rt;
  pm->km = m;
  p->borrowed = pm;
  p->modules = pm;
  strmap_init(&p->kernels);
  strmap_init(&p->eager);
  *out = p;
  return KF_OK;
}

static void kernel_free(kf_kernel *k) {
  if (k->owns_gm) rt_gpu_unload(&k->p->rt->gpu, k->gm);
  rt_params_free(&k->packed);
  free(k->name);
  free(k->entry);
  free(k->signature);
  free(k->params);
  free(k);
}

static void free_map(StrMap *m, bool kernels) {
  for (size_t i = 0; i < m->cap; i++) {
    StrMapEntry *e = &m->slots[i];
    if (!e->key) continue;
    free((char *)e->key);
    if (kernels) kernel_free(e->value);
    else free(e->value);
  }
  strmap_free(m);
}

void kf_program_destroy(kf_program *p) {
  if (!p) return;
  free_map(&p->kernels, true);
  free_map(&p->eager, false);
  for (ProgModule *pm = p->modules, *n; pm; pm = n) {
    n = pm->next;
    if (pm->sim) sim_program_free(pm->sim);
    if (pm->gpu) rt_gpu_unload(&p->rt->gpu, pm->gpu);
    if (pm->owned) kf_module_destroy(pm->km);
    free(pm->ptx);
    free(pm);
  }
  if (p->source) diag_remove_source(D(p->rt), p->source);
  free(p->filename);
  free(p->source);
  free(p->pipeline);
  free(p);
}

const char *kf_kernel_signature(kf_kernel *k) { return k->signature; }
int kf_kernel_cache_source(kf_kernel *k) { return k->cache_source; }

/* Compiles the program's source for one kernel: with a signature (lazy) or without (eager probe; quiet:
 * its diagnostics are dropped, a failure only means "not eager"). */
static kf_status compile_kernel(kf_program *p, const char *name, const char *signature, bool quiet, ProgModule **out) {
  *out = NULL;
  kf_context *ctx = p->rt->ctx;
  kf_compile_options o;
  kf_compile_options_init(&o);
  const char *names[1] = {name}, *sigs[1] = {signature};
  o.kernels = names;
  o.nkernels = 1;
  o.signatures = signature ? sigs : NULL;
  o.nsignatures = signature ? 1 : 0;
  o.bounds_check = p->bounds_check;
  o.pipeline = p->pipeline ? p->pipeline : p->rt->pipeline;
  o.verify_each = p->verify_each;
  Diag *d = &ctx->diag;
  size_t len0 = d->text.len;
  unsigned errors0 = d->nerrors, warnings0 = d->nwarnings;
  DiagCallback cb = d->callback;
  if (quiet) d->callback = NULL;
  kf_module *km = NULL;
  kf_status st = kf_compile_source(ctx, p->filename, p->source, p->len, &o, &km);
  p->rt->compiles++;
  if (quiet) {
    d->callback = cb;
    d->text.len = len0;
    if (d->text.data) d->text.data[len0] = 0;
    d->nerrors = errors0;
    d->nwarnings = warnings0;
  }
  if (st != KF_OK) return st;
  ProgModule *pm = calloc(1, sizeof *pm);
  if (!pm) {
    kf_module_destroy(km);
    return KF_ERROR_INTERNAL;
  }
  pm->km = km;
  pm->owned = true;
  pm->next = p->modules;
  p->modules = pm;
  *out = pm;
  return KF_OK;
}

/* Whether `name` is an eager kernel (memoised): compiled once with no signature. */
static EagerInfo *eager_info(kf_program *p, const char *name) {
  EagerInfo *e = strmap_get(&p->eager, name);
  if (e) return e;
  e = calloc(1, sizeof *e);
  char *key = strdup(name);
  if (!e || !key) {
    free(e);
    free(key);
    return NULL;
  }
  ProgModule *pm = NULL;
  if (compile_kernel(p, name, NULL, true, &pm) == KF_OK) {
    Op *f;
    if (rt_kir_find_kernels(pm->km->ir, name, &f, 1) > 0) {
      e->eager = true;
      e->pm = pm;
    }
  }
  strmap_put(&p->eager, key, e);
  return e;
}

enum { MAX_SPECIALISATIONS = 64 };

/* The first kernel of pm named `name` that the arguments fit. Reports the signatures on a miss. */
static Op *pick_kernel(kf_program *p, ProgModule *pm, const char *name, const kf_arg *args, unsigned nargs,
                       const char *argsig) {
  Op *cands[MAX_SPECIALISATIONS];
  unsigned n = rt_kir_find_kernels(pm->km->ir, name, cands, MAX_SPECIALISATIONS);
  if (n > MAX_SPECIALISATIONS) n = MAX_SPECIALISATIONS;
  if (n == 0) {
    diag_error(D(p->rt), NOLOC, "no kernel named '%s' in %s", name,
               p->filename ? p->filename : "the module");
    return NULL;
  }
  for (unsigned i = 0; i < n; i++) {
    unsigned np;
    Type *const *params = rt_kir_user_params(cands[i], &np);
    if (np != nargs) continue;
    bool fits = true;
    for (unsigned a = 0; a < nargs && fits; a++) fits = rt_arg_fits(params[a], &args[a]);
    if (fits) return cands[i];
  }
  StrBuf sigs;
  sb_init(&sigs);
  for (unsigned i = 0; i < n; i++) {
    unsigned np;
    Type *const *params = rt_kir_user_params(cands[i], &np);
    sb_puts(&sigs, "\n  ");
    rt_signature_numba(params, np, &sigs);
  }
  diag_error(D(p->rt), NOLOC, "no signature of kernel %s matches the arguments %s; its signatures are:%s", name,
             argsig, sb_cstr(&sigs));
  sb_free(&sigs);
  return NULL;
}

/* The kir function (and its module) implementing `name` for these arguments: compiled if needed. */
static kf_status kir_kernel(kf_program *p, const char *name, const kf_arg *args, unsigned nargs, const char *argsig,
                            ProgModule **pm_out, Op **func) {
  if (p->borrowed) {
    *pm_out = p->borrowed;
    *func = pick_kernel(p, p->borrowed, name, args, nargs, argsig);
    return *func ? KF_OK : KF_ERROR_NOT_FOUND;
  }
  EagerInfo *e = eager_info(p, name);
  if (!e) return KF_ERROR_INTERNAL;
  if (e->eager) {
    *pm_out = e->pm;
    *func = pick_kernel(p, e->pm, name, args, nargs, argsig);
    return *func ? KF_OK : KF_ERROR_INVALID_INPUT;
  }
  ProgModule *pm;
  kf_status st = compile_kernel(p, name, argsig, false, &pm);
  if (st != KF_OK) return st;
  *pm_out = pm;
  *func = pick_kernel(p, pm, name, args, nargs, argsig);
  return *func ? KF_OK : KF_ERROR_INTERNAL;
}

/* params: every kir parameter (nparams), the trailing grid dims included when grid_stride. */
static kf_kernel *kernel_new(kf_program *p, const char *name, const char *entry, Type *const *params,
                             unsigned nparams, bool grid_stride) {
  if (grid_stride && nparams < RT_GRID_STRIDE_PARAMS) return NULL;
  unsigned nuser = grid_stride ? nparams - RT_GRID_STRIDE_PARAMS : nparams;
  kf_kernel *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->p = p;
  k->name = strdup(name);
  k->entry = strdup(entry);
  k->params = malloc(sizeof *k->params * (nparams ? nparams : 1));
  StrBuf sig;
  sb_init(&sig);
  rt_signature_numba(params, nuser, &sig);
  k->signature = sb_take(&sig);
  if (!k->name || !k->entry || !k->params || !k->signature || !rt_params_init(&k->packed, params, nparams)) {
    kernel_free(k);
    return NULL;
  }
  memcpy(k->params, params, sizeof *k->params * nparams);
  k->nparams = nuser;
  k->grid_stride = grid_stride;
  k->grid_slot = rt_param_slots(params, nuser);
  return k;
}

/* ---- GPU code: backend, cache entries, loading ----------------------------------------------- */

static void choose_backend(kf_runtime *rt) {
  if (rt->backend_chosen) return;
  rt->backend_chosen = true;
  const char *b = getenv("KFRONT_BACKEND");
  if (b && strcmp(b, "llvm") == 0) {
    rt->backend = BE_LLVM;
    return;
  }
  Diag quiet;
  diag_init(&quiet);
  rt->backend = nvvm_load(&quiet) ? BE_NVVM : BE_LLVM; /* LLVM's NVPTX target where libNVVM is missing */
  diag_free(&quiet);
}

static kf_status compile_ptx(kf_program *p, ProgModule *pm, Op *func, Diag *diag) {
  if (pm->ptx) return KF_OK;
  kf_runtime *rt = p->rt;
  choose_backend(rt);
  BackendOptions o;
  be_options_default(&o);
  o.kind = rt->backend;
  o.arch = rt->gpu.arch;
  if (ir_op_attr(func, "fastmath")) o.fastmath = true;
  if (ir_op_attr(func, "lineinfo")) o.lineinfo = true;
  o.opt = (int)ir_op_attr_int(func, "opt", o.opt);
  StrBuf ptx;
  sb_init(&ptx);
  BeStatus st = be_compile_ptx(pm->km->ir, &o, &ptx, NULL, diag);
  if (st != BE_OK) {
    sb_free(&ptx);
    return st == BE_NOT_FOUND ? KF_ERROR_NOT_FOUND : st == BE_UNSUPPORTED ? KF_ERROR_UNSUPPORTED : KF_ERROR_BACKEND;
  }
  pm->ptx = sb_take(&ptx);
  return KF_OK;
}

/* Cache payload: a manifest, then the PTX.
 *   kfront-kernel 2\nentry NAME\ngrid_stride 0|1\nparams N\n<kir type>\n...ptx\n<PTX text>
 * params lists every kir parameter (a grid_stride kernel's 3 trailing i32 included). */
static void payload_build(StrBuf *out, const char *entry, bool grid_stride, Type *const *params, unsigned n,
                          const char *ptx) {
  sb_printf(out, "kfront-kernel 2\nentry %s\ngrid_stride %d\nparams %u\n", entry, grid_stride ? 1 : 0, n);
  for (unsigned i = 0; i < n; i++) {
    ty_print(params[i], out);
    sb_putc(out, '\n');
  }
  sb_puts(out, "ptx\n");
  sb_puts(out, ptx);
}

/* Reads one line starting at *pos; returns its start and length, advances past the newline. */
static const char *next_line(const char *s, size_t len, size_t *pos, size_t *n) {
  if (*pos >= len) return NULL;
  const char *start = s + *pos;
  const char *nl = memchr(start, '\n', len - *pos);
  if (!nl) return NULL;
  *n = (size_t)(nl - start);
  *pos += *n + 1;
  return start;
}

typedef struct Manifest {
  char entry[256];
  bool grid_stride;
  unsigned nparams;
  Type *params[256];
  const char *ptx;
} Manifest;

static bool payload_parse(IrContext *ir, const char *s, size_t len, Manifest *m) {
  size_t pos = 0, n;
  const char *line = next_line(s, len, &pos, &n);
  if (!line || n != 15 || memcmp(line, "kfront-kernel 2", 15) != 0) return false;
  line = next_line(s, len, &pos, &n);
  if (!line || n < 7 || n - 6 >= sizeof m->entry || memcmp(line, "entry ", 6) != 0) return false;
  memcpy(m->entry, line + 6, n - 6);
  m->entry[n - 6] = 0;
  line = next_line(s, len, &pos, &n);
  if (!line || n != 13 || memcmp(line, "grid_stride ", 12) != 0 || (line[12] != '0' && line[12] != '1')) return false;
  m->grid_stride = line[12] == '1';
  line = next_line(s, len, &pos, &n);
  if (!line || n < 8 || memcmp(line, "params ", 7) != 0) return false;
  char num[16];
  if (n - 7 >= sizeof num) return false;
  memcpy(num, line + 7, n - 7);
  num[n - 7] = 0;
  char *end;
  unsigned long np = strtoul(num, &end, 10);
  if (*end || np > 256 || (m->grid_stride && np < RT_GRID_STRIDE_PARAMS)) return false;
  m->nparams = (unsigned)np;
  for (unsigned i = 0; i < m->nparams; i++) {
    line = next_line(s, len, &pos, &n);
    if (!line) return false;
    size_t tpos = 0;
    m->params[i] = ty_parse(ir, line, n, &tpos);
    if (!m->params[i] || tpos != n) return false;
  }
  line = next_line(s, len, &pos, &n);
  if (!line || n != 3 || memcmp(line, "ptx", 3) != 0) return false;
  m->ptx = s + pos;  /* the payload is NUL-terminated by rt_cache_get */
  return true;
}

static void cache_key_for(kf_program *p, const char *name, const char *argsig, RtCacheKey *key) {
  kf_runtime *rt = p->rt;
  choose_backend(rt);
  char options[512], arch[16];
  snprintf(options, sizeof options, "backend=%s;bounds_check=%d;pipeline=%s",
           rt->backend == BE_NVVM ? "nvvm" : "llvm", p->bounds_check,
           p->pipeline ? p->pipeline : rt->grid_stride ? "<default>,grid-stride" : "<default>");
  snprintf(arch, sizeof arch, "sm_%u", rt->gpu.arch);
  RtCacheKeyParts parts = {.filename = p->filename, .source = p->source, .source_len = p->len, .function = name,
                           .signature = argsig, .options = options, .arch = arch};
  rt_cache_key(key, &parts);
}

/* Loads PTX and looks the entry up: the GPU half of a kernel. */
static kf_status gpu_attach(kf_kernel *k, RtGpuModule *gm) {
  kf_runtime *rt = k->p->rt;
  k->gm = gm;
  return rt_gpu_function(&rt->gpu, gm, k->entry, &k->fn, &k->max_threads, &k->static_shared, D(rt))
             ? KF_OK
             : KF_ERROR_DEVICE;
}

static kf_status gpu_kernel(kf_program *p, const char *name, const kf_arg *args, unsigned nargs, const char *argsig,
                            kf_kernel **out) {
  kf_runtime *rt = p->rt;
  *out = NULL;
  if (!gpu_bind(rt)) return KF_ERROR_DEVICE;
  RtCacheKey key;
  bool use_cache = p->source != NULL;
  if (use_cache) {
    cache_key_for(p, name, argsig, &key);
    char *payload;
    size_t plen;
    RtCacheResult hit = rt_cache_get(&rt->cache, &key, &payload, &plen);
    if (hit != RT_CACHE_MISS) {
      Manifest *m = calloc(1, sizeof *m);
      kf_kernel *k = NULL;
      if (m && payload_parse(rt->ctx->ir, payload, plen, m))
        k = kernel_new(p, name, m->entry, m->params, m->nparams, m->grid_stride);
      if (k) {
        k->cache_source = hit == RT_CACHE_HIT_MEMORY ? 1 : 2;
        RtGpuModule *gm = rt_gpu_load(&rt->gpu, m->ptx, D(rt));
        k->owns_gm = gm != NULL;
        kf_status st = gm ? gpu_attach(k, gm) : KF_ERROR_DEVICE;
        free(m);
        free(payload);
        if (st != KF_OK) {
          kernel_free(k);
          return st;
        }
        *out = k;
        return KF_OK;
      }
      free(m);
      free(payload);  /* an unreadable manifest: compile afresh */
    }
  }
  ProgModule *pm;
  Op *func;
  kf_status st = kir_kernel(p, name, args, nargs, argsig, &pm, &func);
  if (st != KF_OK) return st;
  st = compile_ptx(p, pm, func, D(rt));
  if (st != KF_OK) return st;
  unsigned np;
  Type *const *params = rt_kir_params(func, &np);
  kf_kernel *k = kernel_new(p, name, ir_func_name(func), params, np, rt_kir_grid_stride(func));
  if (!k) return KF_ERROR_INTERNAL;
  if (use_cache) {
    StrBuf payload;
    sb_init(&payload);
    payload_build(&payload, k->entry, k->grid_stride, params, np, pm->ptx);
    rt_cache_put(&rt->cache, &key, payload.data, payload.len);  /* a failed disk write is not an error */
    sb_free(&payload);
  }
  if (!pm->gpu) pm->gpu = rt_gpu_load(&rt->gpu, pm->ptx, D(rt));
  st = pm->gpu ? gpu_attach(k, pm->gpu) : KF_ERROR_DEVICE;
  if (st != KF_OK) {
    kernel_free(k);
    return st;
  }
  *out = k;
  return KF_OK;
}

static kf_status sim_kernel(kf_program *p, const char *name, const kf_arg *args, unsigned nargs, const char *argsig,
                            kf_kernel **out) {
  *out = NULL;
  ProgModule *pm;
  Op *func;
  kf_status st = kir_kernel(p, name, args, nargs, argsig, &pm, &func);
  if (st != KF_OK) return st;
  unsigned np;
  Type *const *params = rt_kir_params(func, &np);
  kf_kernel *k = kernel_new(p, name, ir_func_name(func), params, np, rt_kir_grid_stride(func));
  if (!k) return KF_ERROR_INTERNAL;
  k->pm = pm;
  k->func = func;
  k->static_shared = rt_kir_static_shared(pm->km->ir, func);
  *out = k;
  return KF_OK;
}

kf_status kf_program_get_kernel(kf_program *p, const char *name, const kf_arg *args, unsigned nargs,
                                kf_kernel **out) {
  *out = NULL;
  kf_runtime *rt = p->rt;
  if (!name || (nargs && !args)) {
    diag_error(D(rt), NOLOC, "kf_program_get_kernel: no kernel name or no arguments given");
    return KF_ERROR_INVALID_INPUT;
  }
  StrBuf argsig;
  sb_init(&argsig);
  if (!rt_args_signature(args, nargs, &argsig, D(rt))) {
    sb_free(&argsig);
    return KF_ERROR_INVALID_INPUT;
  }
  StrBuf memo;
  sb_init(&memo);
  sb_printf(&memo, "%s\n%s", name, sb_cstr(&argsig));
  kf_kernel *k = strmap_get(&p->kernels, sb_cstr(&memo));
  kf_status st = KF_OK;
  if (k) {
    k->cache_source = 1;
  } else {
    st = rt->mode == KF_RUNTIME_GPU ? gpu_kernel(p, name, args, nargs, sb_cstr(&argsig), &k)
                                    : sim_kernel(p, name, args, nargs, sb_cstr(&argsig), &k);
    if (st == KF_OK) strmap_put(&p->kernels, sb_take(&memo), k);
  }
  sb_free(&memo);
  sb_free(&argsig);
  *out = k;
  return st;
}

/* ---- launches ---------------------------------------------------------------------------------- */

/* Reports one simulator message (without its own "error: " prefix), located when loc is known. */
static void sim_report(kf_runtime *rt, const char *msg, SrcLoc loc) {
  if (!msg || !*msg) return;
  if (strncmp(msg, "error: ", 7) == 0) msg += 7;
  diag_error(D(rt), loc, "%s", msg);
}

/* The physical grid of a grid_stride kernel on the simulator: at most this many blocks. */
enum { SIM_GRID_STRIDE_BLOCKS = 64 };

static kf_status launch_sim(kf_kernel *k, const unsigned grid[3], const unsigned block[3], size_t shared_bytes,
                            const kf_arg *args, unsigned nargs) {
  kf_runtime *rt = k->p->rt;
  if (!rt_check_launch(&rt->limits, k->name, grid, block, k->static_shared, shared_bytes, 0, D(rt)))
    return KF_ERROR_INVALID_INPUT;
  if (!k->pm->sim) {
    k->pm->sim = sim_program_new(k->pm->km->ir, D(rt));
    if (!k->pm->sim) return KF_ERROR_UNSUPPORTED;
  }
  unsigned nsim = nargs + (k->grid_stride ? RT_GRID_STRIDE_PARAMS : 0);
  SimArg *sa = calloc(nsim ? nsim : 1, sizeof *sa);
  if (!sa) return KF_ERROR_INTERNAL;
  for (unsigned i = 0; i < nargs; i++) {
    const kf_arg *a = &args[i];
    if (a->kind == KF_ARG_ARRAY) {
      sa[i].kind = SIM_ARG_ARRAY;
      sa[i].array.data = a->array.data;
      sa[i].array.elem = k->params[i]->elem;
      sa[i].array.rank = a->array.ndim;
      for (unsigned d = 0; d < a->array.ndim; d++) {
        sa[i].array.shape[d] = a->array.shape[d];
        sa[i].array.strides[d] = a->array.strides[d];
      }
    } else if (a->dtype == KF_FLOAT16 || a->dtype == KF_FLOAT32 || a->dtype == KF_FLOAT64) {
      sa[i] = sim_arg_float(a->value.f);
    } else if (a->dtype == KF_UINT8 || a->dtype == KF_UINT16 || a->dtype == KF_UINT32 || a->dtype == KF_UINT64) {
      sa[i] = sim_arg_uint(a->value.u);
    } else {
      sa[i] = sim_arg_int(a->value.i);
    }
  }
  uint32_t g[3] = {grid[0], grid[1], grid[2]}, b[3] = {block[0], block[1], block[2]};
  if (k->grid_stride) {
    /* the user's grid dims as the trailing arguments, on a small 1-D grid (any size is correct) */
    for (unsigned d = 0; d < 3; d++) sa[nargs + d] = sim_arg_int((int32_t)grid[d]);
    uint64_t total = (uint64_t)grid[0] * grid[1] * grid[2];
    g[0] = (uint32_t)(total < SIM_GRID_STRIDE_BLOCKS ? total : SIM_GRID_STRIDE_BLOCKS);
    g[1] = g[2] = 1;
  }
  SimResult *res = calloc(1, sizeof *res);
  if (!res) {
    free(sa);
    return KF_ERROR_INTERNAL;
  }
  bool ok = sim_program_launch(k->pm->sim, k->func, g, b, shared_bytes, sa, nsim, &rt->sim, res, D(rt));
  free(sa);
  rt->launches++;
  kf_status st = KF_OK;
  if (!ok) {
    if (res->status == SIM_ERR_SETUP) {
      st = KF_ERROR_INVALID_INPUT;
    } else {
      st = res->status == SIM_ERR_INDEX ? KF_ERROR_OUT_OF_BOUNDS : KF_ERROR_DEVICE;
      /* the first error first, then any other kind that also happened */
      if (res->status == SIM_ERR_INDEX) sim_report(rt, res->index_message, res->index_error.loc);
      else sim_report(rt, res->message, NOLOC);
      if (res->status != SIM_ERR_INDEX && res->index_error.set) sim_report(rt, res->index_message, res->index_error.loc);
      if (res->status != SIM_ERR_RACE && res->race.set) sim_report(rt, res->race_message, NOLOC);
      if (res->status != SIM_ERR_BARRIER && res->barrier_divergence) sim_report(rt, res->barrier_message, NOLOC);
      if (res->status != SIM_ERR_OOB && res->oob) sim_report(rt, res->oob_message, NOLOC);
    }
  }
  free(res);
  return st;
}

static kf_status launch_gpu(kf_kernel *k, const unsigned grid[3], const unsigned block[3], size_t shared_bytes,
                            kf_stream *stream, const kf_arg *args, unsigned nargs) {
  kf_runtime *rt = k->p->rt;
  RtGpu *g = &rt->gpu;
  if (!rt_gpu_bind(g, D(rt))) return KF_ERROR_DEVICE;
  if (!rt_check_launch(&rt->limits, k->name, grid, block, k->static_shared, shared_bytes, k->max_threads, D(rt)))
    return KF_ERROR_INVALID_INPUT;
  /* dynamic shared memory above the default per-block limit needs the function's opt-in */
  if (shared_bytes + k->static_shared > rt->info.max_shared_per_block && shared_bytes > k->dynamic_optin) {
    if (!GPU_CALL(rt, cuFuncSetAttribute, k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared_bytes))
      return KF_ERROR_DEVICE;
    k->dynamic_optin = shared_bytes;
  }
  uint64_t stack_data[16];
  CUdeviceptr stack_tmp[16];
  uint64_t *data = nargs <= 16 ? stack_data : calloc(nargs, sizeof *data);
  CUdeviceptr *tmp = nargs <= 16 ? stack_tmp : calloc(nargs, sizeof *tmp);
  kf_status st = KF_OK;
  bool host_arrays = false;
  if (!data || !tmp) st = KF_ERROR_INTERNAL;
  for (unsigned i = 0; st == KF_OK && i < nargs; i++) {
    tmp[i] = 0;
    data[i] = 0;
    if (args[i].kind != KF_ARG_ARRAY) continue;
    const kf_array *a = &args[i].array;
    if (a->memory == KF_MEMORY_DEVICE) {
      data[i] = (uint64_t)(uintptr_t)a->data;
      continue;
    }
    host_arrays = true;
    int64_t lo, hi;
    rt_array_span(a, &lo, &hi);
    if (hi == lo) continue;
    if (!GPU_CALL(rt, cuMemAlloc, &tmp[i], (size_t)(hi - lo)) ||
        !GPU_CALL(rt, cuMemcpyHtoD, tmp[i], (const char *)a->data + lo, (size_t)(hi - lo))) {
      st = KF_ERROR_DEVICE;
      break;
    }
    data[i] = tmp[i] - (uint64_t)lo;
  }
  CUstream s = stream_of(stream);
  if (st == KF_OK) {
    rt_params_pack(&k->packed, k->params, k->nparams, args, data);
    unsigned phys[3] = {grid[0], grid[1], grid[2]};
    if (k->grid_stride) {
      /* the user's grid dims (i32) after the user's parameters; a 1-D grid that the device holds at once */
      for (unsigned d = 0; d < 3; d++) {
        int32_t v = (int32_t)grid[d];
        k->packed.storage[k->grid_slot + d] = 0;
        memcpy(&k->packed.storage[k->grid_slot + d], &v, sizeof v);
      }
      unsigned threads = block[0] * block[1] * block[2];
      uint64_t total = (uint64_t)grid[0] * grid[1] * grid[2];
      if (!k->occ_blocks || k->occ_threads != threads || k->occ_shared != shared_bytes) {
        k->occ_blocks = rt_cu_occupancy(g->cu, k->fn, threads, shared_bytes);
        k->occ_threads = threads;
        k->occ_shared = shared_bytes;
      }
      uint64_t resident = (uint64_t)(rt->info.multiprocessors > 0 ? rt->info.multiprocessors : 1) * k->occ_blocks;
      phys[0] = (unsigned)(total < resident ? total : resident);
      phys[1] = phys[2] = 1;
    }
    CUresult r = g->cu->cuLaunchKernel(k->fn, phys[0], phys[1], phys[2], block[0], block[1], block[2],
                                       (unsigned)shared_bytes, s, k->packed.ptrs, NULL);
    rt->launches++;
    if (r != CUDA_SUCCESS) {
      rt_cu_check(g->cu, r, "cuLaunchKernel", D(rt));
      st = KF_ERROR_DEVICE;
    } else {
      k->gm->dirty = k->gm->error_record != 0;
      k->gm->last_kernel = k->name;
      k->gm->last_entry = k->entry;
    }
  }
  if (st == KF_OK && host_arrays) {
    /* a launch with host arrays completes here, as in Numba: synchronise, check, copy back */
    if (!GPU_CALL(rt, cuStreamSynchronize, s)) {
      sticky_note(rt);
      st = KF_ERROR_DEVICE;
    } else {
      st = check_records(rt);
      for (unsigned i = 0; i < nargs; i++) {
        if (!tmp[i]) continue;
        const kf_array *a = &args[i].array;
        int64_t lo, hi;
        rt_array_span(a, &lo, &hi);
        if (!GPU_CALL(rt, cuMemcpyDtoH, (char *)a->data + lo, tmp[i], (size_t)(hi - lo)) && st == KF_OK)
          st = KF_ERROR_DEVICE;
      }
    }
  }
  for (unsigned i = 0; tmp && i < nargs; i++)
    if (tmp[i]) g->cu->cuMemFree(tmp[i]);
  if (data != stack_data) free(data);
  if (tmp != stack_tmp) free(tmp);
  return st;
}

kf_status kf_launch(kf_kernel *k, const unsigned grid[3], const unsigned block[3], size_t shared_bytes,
                    kf_stream *stream, const kf_arg *args, unsigned nargs) {
  kf_runtime *rt = k->p->rt;
  if (nargs && !args) {
    diag_error(D(rt), NOLOC, "kf_launch: %u arguments announced but none given", nargs);
    return KF_ERROR_INVALID_INPUT;
  }
  if (!rt_check_args(k->name, k->params, k->nparams, args, nargs, D(rt))) return KF_ERROR_INVALID_INPUT;
  if (rt->mode == KF_RUNTIME_GPU) return launch_gpu(k, grid, block, shared_bytes, stream, args, nargs);
  return launch_sim(k, grid, block, shared_bytes, args, nargs);
}
