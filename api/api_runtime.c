/* api_runtime.c — the public runtime API (kfront.h, "runtime" sections): thin wrappers that convert
 * handles to the runtime's objects (runtime/rt.h) and back, and check what the caller passed. No policy and
 * no driver call lives here: runtime/ does the work; the .npy helpers wrap utils/npy. Each entry point given a
 * handle makes its runtime's allocator (the context's) current for the call (API_SCOPE, api_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "runtime/cuda_driver.h"
#include "runtime/rt.h"
#include "utils/npy.h"
#include "utils/mem.h"

/* The public handles are the runtime's objects. */
#define RT(x) ((RtRuntime *)(x))
#define PROG(x) ((RtProgram *)(x))
#define FN(x) ((RtFunction *)(x))
#define KER(x) ((RtKernel *)(x))
#define STREAM(x) ((RtStream *)(x))
#define EVENT(x) ((RtEvent *)(x))

static const SrcLoc NOLOC = {0};

/* The allocator of a call on rt's objects (a NULL handle: the thread's own, for the callee to refuse). */
static inline MemAllocator alloc_of(const RtRuntime *rt) { return rt ? rt->alloc : mem_allocator(); }
#define API_RT(rt) API_SCOPE(alloc_of(rt))

/* ---- dtypes, arrays, arguments --------------------------------------------------------------- */

size_t kf_dtype_size(kf_dtype t) { return rt_dtype_size(t); }
const char *kf_dtype_name(kf_dtype t) { return rt_dtype_name(t); }
kf_status kf_dtype_parse(const char *text, kf_dtype *out) {
  return rt_dtype_parse(text, out) ? KF_OK : KF_ERROR_INVALID_INPUT;
}
kf_status kf_dtype_record(kf_context *ctx, const char *spelling, kf_dtype *out) {
  API_CONTEXT(ctx);
  const char *why = "no spelling given";
  if (spelling && rt_record_dtype_parse(spelling, out, &why)) return KF_OK;
  diag_error(&ctx->diag, srcloc("<record dtype>", 0, 0), "invalid record dtype '%s': %s", spelling ? spelling : "",
             why);
  return KF_ERROR_INVALID_INPUT;
}
int kf_dtype_is_record(kf_dtype t) { return rt_dtype_is_record(t); }
size_t kf_dtype_alignment(kf_dtype t) { return rt_dtype_align(t); }
void kf_array_init(kf_array *a, void *data, kf_memory memory, kf_dtype dtype, unsigned ndim, const int64_t *shape,
                   char order) {
  rt_array_init(a, data, memory, dtype, ndim, shape, order);
}
void kf_array_set_device(kf_array *a, int ordinal) { a->device = ordinal >= 0 ? ordinal + 1 : 0; }
int kf_array_get_device(const kf_array *a) { return a->device > 0 ? a->device - 1 : -1; }
size_t kf_array_size(const kf_array *a) { return rt_array_size(a); }
int kf_array_is_contiguous(const kf_array *a, char order) { return rt_array_is_contiguous(a, order); }

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
kf_arg kf_arg_complex(kf_dtype dtype, double re, double im) {
  kf_arg r = scalar(dtype);
  r.value.f = re;
  r.imag = im;
  return r;
}
kf_arg kf_arg_tuple(const kf_arg *items, unsigned n) {
  kf_arg r;
  memset(&r, 0, sizeof r);
  r.kind = KF_ARG_TUPLE;
  r.items = items;
  r.nitems = n;
  return r;
}

/* ---- .npy ------------------------------------------------------------------------------------- */

static const kf_dtype npy_to_dtype[NPY__COUNT] = {
    [NPY_BOOL] = KF_BOOL,  [NPY_I8] = KF_INT8,    [NPY_I16] = KF_INT16,  [NPY_I32] = KF_INT32,
    [NPY_I64] = KF_INT64,  [NPY_U8] = KF_UINT8,   [NPY_U16] = KF_UINT16, [NPY_U32] = KF_UINT32,
    [NPY_U64] = KF_UINT64, [NPY_F16] = KF_FLOAT16, [NPY_F32] = KF_FLOAT32, [NPY_F64] = KF_FLOAT64,
    [NPY_C64] = KF_COMPLEX64, [NPY_C128] = KF_COMPLEX128,
};

kf_status kf_npy_load(kf_context *ctx, const char *path, kf_array *out) {
  API_CONTEXT(ctx);
  memset(out, 0, sizeof *out);
  NpyArray n;
  char err[512];
  errno = 0;
  if (!npy_read_file(path, &n, err, sizeof err)) {
    if (errno == ENOMEM) return api_out_of_memory(ctx);
    diag_error(&ctx->diag, srcloc(path, 0, 0), "%s", err);
    return errno == ENOENT && strstr(err, "cannot open") ? KF_ERROR_NOT_FOUND : KF_ERROR_INVALID_INPUT;
  }
  kf_dtype dt = KF_BOOL;
  if (n.type == NPY_RECORD) { /* a structured dtype: its record dtype */
    const char *why;
    bool ok = rt_record_dtype_parse(n.record, &dt, &why);
    if (!ok) diag_error(&ctx->diag, srcloc(path, 0, 0), "unsupported structured dtype %s: %s", n.record, why);
    npy_free_record(&n);
    if (!ok) {
      mem_free(n.data);
      return KF_ERROR_INVALID_INPUT;
    }
  } else {
    dt = npy_to_dtype[n.type];
  }
  rt_array_init(out, n.data, KF_MEMORY_HOST, dt, n.ndim, n.shape, n.fortran_order ? 'F' : 'C');
  return KF_OK;
}

kf_status kf_npy_save(kf_context *ctx, const char *path, const kf_array *a) {
  API_CONTEXT(ctx);
  if (a->memory != KF_MEMORY_HOST) {
    diag_error(&ctx->diag, srcloc(path, 0, 0), "cannot save a device array; copy it to the host first");
    return KF_ERROR_INVALID_INPUT;
  }
  if (rt_dtype_size(a->dtype) == 0 || a->ndim > KF_MAX_RANK) {
    diag_error(&ctx->diag, srcloc(path, 0, 0), "cannot save an array of invalid dtype or rank");
    return KF_ERROR_INVALID_INPUT;
  }
  NpyArray n = {.ndim = a->ndim};
  for (int t = 0; t < NPY__COUNT; t++)
    if (npy_to_dtype[t] == a->dtype) n.type = (NpyType)t;
  StrBuf descr;
  sb_init(&descr);
  if (rt_dtype_is_record(a->dtype)) { /* a record: NumPy's descr list of it */
    if (!rt_record_descr(a->dtype, &descr)) {
      sb_free(&descr);
      return api_out_of_memory(ctx);
    }
    n.type = NPY_RECORD;
    n.descr = (char *)sb_cstr(&descr);
    n.itemsize = rt_dtype_size(a->dtype);
  }
  for (unsigned d = 0; d < a->ndim; d++) n.shape[d] = a->shape[d];
  n.nbytes = rt_array_size(a) * rt_dtype_size(a->dtype);
  char *copy = NULL;
  if (rt_array_is_contiguous(a, 'C')) {
    n.data = a->data;
  } else if (rt_array_is_contiguous(a, 'F')) {
    n.data = a->data;
    n.fortran_order = a->ndim > 1;
  } else {
    copy = mem_alloc(n.nbytes ? n.nbytes : 1);
    if (!copy) {
      sb_free(&descr);
      return api_out_of_memory(ctx);
    }
    rt_array_gather(a, copy);
    n.data = copy;
  }
  char err[512];
  errno = 0;
  bool ok = npy_write_file(path, &n, err, sizeof err);
  mem_free(copy);
  sb_free(&descr);
  if (!ok && errno == ENOMEM) return api_out_of_memory(ctx);
  if (!ok) {
    diag_error(&ctx->diag, srcloc(path, 0, 0), "%s", err);
    return KF_ERROR_INVALID_INPUT;
  }
  return KF_OK;
}

/* ---- the runtime ------------------------------------------------------------------------------ */

void kf_runtime_options_init(kf_runtime_options *o) {
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->mode = KF_RUNTIME_AUTO;
  o->grid_stride = 1;
  o->thread_map = 1;
  o->disk_cache = 1;
  o->backend = KF_BACKEND_AUTO;
  o->sim_detect_races = 1;
  o->sim_workers = 1;
}

kf_status kf_default_cache_dir(const char *kfront_cache_dir, const char *xdg_cache_home, const char *home,
                               char **out) {
  StrBuf b;
  sb_init(&b);
  *out = NULL;
  if (!rt_cache_default_dir(kfront_cache_dir, xdg_cache_home, home, &b)) {
    sb_free(&b);
    return KF_ERROR_NOT_FOUND;
  }
  *out = sb_take(&b);
  return *out ? KF_OK : KF_ERROR_OUT_OF_MEMORY;
}

kf_status kf_runtime_create(kf_context *ctx, const kf_runtime_options *given, kf_runtime **out) {
  API_CONTEXT(ctx);
  *out = NULL;
  kf_runtime_options defaults;
  kf_status read = API_READ_OPTIONS(&ctx->diag, "kf_runtime_create", kf_runtime_options, sim_max_seconds, given, &defaults);
  if (read != KF_OK) return read;
  const kf_runtime_options *opts = &defaults;
  if ((unsigned)opts->mode > KF_RUNTIME_SIM || (unsigned)opts->backend > KF_BACKEND_AUTO ||
      opts->device < KF_DEVICE_CURRENT) {
    diag_error(&ctx->diag, NOLOC, "kf_runtime_create: invalid mode %d, backend %d or device %d", (int)opts->mode,
               (int)opts->backend, opts->device);
    return KF_ERROR_INVALID_INPUT;
  }
  RtRuntime *rt;
  kf_status st = rt_runtime_create(ctx->ir, &ctx->diag, opts, &rt);
  if (st == KF_OK) rt->passes = &ctx->passes;  /* kf_pass_register's, in the programs' pipelines */
  *out = (kf_runtime *)rt;
  return st;
}

void kf_runtime_destroy(kf_runtime *rt) {
  API_RT(RT(rt));
  rt_runtime_destroy(RT(rt));
}
kf_runtime_mode kf_runtime_get_mode(kf_runtime *rt) {
  API_RT(RT(rt));
  return RT(rt)->dev->mode;
}
const char *kf_runtime_describe(kf_runtime *rt) {
  API_RT(RT(rt));
  return sb_cstr(&RT(rt)->describe);
}

const char *kf_runtime_pipeline(kf_runtime *rt, int with_launch_variants) {
  API_RT(RT(rt));
  return with_launch_variants ? RT(rt)->pipeline : RT(rt)->kernel_pipeline;
}

kf_status kf_runtime_device_info(kf_runtime *rt, kf_device_info *out) {
  API_RT(RT(rt));
  *out = RT(rt)->dev->info;
  return KF_OK;
}

kf_status kf_runtime_memory_info(kf_runtime *rt, size_t *free_bytes, size_t *total_bytes) {
  API_RT(RT(rt));
  return rt_memory_info(RT(rt), free_bytes, total_bytes);
}

void kf_runtime_get_stats(kf_runtime *rt, kf_runtime_stats *out) {
  API_RT(RT(rt));
  rt_runtime_stats(RT(rt), out);
}

/* ---- several devices ---------------------------------------------------------------------------- */

/* The options a device query reads (NULL: the defaults); false (reported) for an invalid mode. */
static bool device_options(kf_context *ctx, const kf_runtime_options *opts, kf_runtime_options *out,
                           const char *api) {
  if (API_READ_OPTIONS(&ctx->diag, api, kf_runtime_options, sim_max_seconds, opts, out) != KF_OK) return false;
  if ((unsigned)out->mode > KF_RUNTIME_SIM) {
    diag_error(&ctx->diag, NOLOC, "%s: invalid mode %d", api, (int)out->mode);
    return false;
  }
  return true;
}

kf_status kf_device_count(kf_context *ctx, const kf_runtime_options *opts, int *count) {
  API_CONTEXT(ctx);
  *count = 0;
  kf_runtime_options o;
  if (!device_options(ctx, opts, &o, "kf_device_count")) return KF_ERROR_INVALID_INPUT;
  return rt_device_count(&o, &ctx->diag, count);
}

kf_status kf_device_get_info(kf_context *ctx, const kf_runtime_options *opts, int ordinal, kf_device_info *out) {
  API_CONTEXT(ctx);
  memset(out, 0, sizeof *out);
  kf_runtime_options o;
  if (!device_options(ctx, opts, &o, "kf_device_get_info")) return KF_ERROR_INVALID_INPUT;
  return rt_device_info(&o, ordinal, &ctx->diag, out);
}

kf_status kf_device_get_attribute(kf_context *ctx, const kf_runtime_options *opts, int ordinal, const char *name,
                                  int *out) {
  API_CONTEXT(ctx);
  *out = 0;
  kf_runtime_options o;
  if (!device_options(ctx, opts, &o, "kf_device_get_attribute")) return KF_ERROR_INVALID_INPUT;
  return rt_device_attribute(&o, ordinal, name, &ctx->diag, out);
}

kf_status kf_driver_version(kf_context *ctx, const char *libcuda_path, int *version) {
  API_CONTEXT(ctx);
  *version = 0;
  const RtCuda *cu = rt_cuda(libcuda_path, &ctx->diag);
  if (!cu) return KF_ERROR_NOT_FOUND;
  return rt_cu_check(cu, cu->cuDriverGetVersion(version), "cuDriverGetVersion", &ctx->diag) ? KF_OK : KF_ERROR_DEVICE;
}

int kf_current_device(void) { return rt_current_device(); }

kf_status kf_set_current_device(int ordinal) {
  if (ordinal < 0) return KF_ERROR_INVALID_INPUT;
  rt_set_current_device(ordinal);
  return KF_OK;
}

kf_status kf_runtime_make_current(kf_runtime *rt) {
  API_RT(RT(rt));
  return rt_make_current(RT(rt));
}

int kf_runtime_device(kf_runtime *rt) { return RT(rt)->dev->ordinal; }

int kf_runtime_pointer_device(kf_runtime *rt, const void *ptr) {
  RtDevice *d = RT(rt)->dev;
  return d->ops->pointer_device(d, (uint64_t)(uintptr_t)ptr);
}

kf_status kf_device_can_access_peer(kf_runtime *rt, kf_runtime *peer, int *can) {
  API_RT(RT(rt));
  *can = 0;
  if (!peer) {
    diag_error(RT(rt)->diag, NOLOC, "kf_device_can_access_peer: no peer runtime given");
    return KF_ERROR_INVALID_INPUT;
  }
  *can = rt_can_access_peer(RT(rt), RT(peer));
  return KF_OK;
}

kf_status kf_memcpy_peer(kf_runtime *dst_rt, void *dst, kf_runtime *src_rt, const void *src, size_t bytes,
                         kf_stream *s) {
  API_RT(RT(dst_rt));
  if (!src_rt) {
    diag_error(RT(dst_rt)->diag, NOLOC, "kf_memcpy_peer: no source runtime given");
    return KF_ERROR_INVALID_INPUT;
  }
  return rt_copy_peer(RT(dst_rt), dst, RT(src_rt), src, bytes, STREAM(s));
}

/* ---- memory, streams, events -------------------------------------------------------------------- */

kf_status kf_device_alloc(kf_runtime *rt, size_t bytes, void **dptr) {
  API_RT(RT(rt));
  return rt_device_alloc(RT(rt), bytes, dptr);
}
kf_status kf_device_free(kf_runtime *rt, void *dptr) {
  API_RT(RT(rt));
  return rt_device_free(RT(rt), dptr);
}
kf_status kf_managed_alloc(kf_runtime *rt, size_t bytes, unsigned flags, void **dptr) {
  API_RT(RT(rt));
  return rt_managed_alloc(RT(rt), bytes, flags, dptr);
}
kf_status kf_pointer_range(kf_runtime *rt, const void *ptr, void **base, size_t *bytes) {
  API_RT(RT(rt));
  return rt_pointer_range(RT(rt), ptr, base, bytes);
}

void kf_runtime_allocated(kf_runtime *rt, size_t *bytes, size_t *count) {
  API_RT(RT(rt));
  rt_device_allocated(RT(rt), bytes, count);
}
kf_status kf_device_free_deferred(kf_runtime *rt, void *dptr) {
  API_RT(RT(rt));
  return rt_device_free_deferred(RT(rt), dptr);
}
kf_status kf_host_free_deferred(kf_runtime *rt, void *p, size_t bytes) {
  API_RT(RT(rt));
  return rt_host_free_deferred(RT(rt), p, bytes);
}
kf_status kf_deallocations_flush(kf_runtime *rt) {
  API_RT(RT(rt));
  return rt_deallocs_flush(RT(rt));
}
kf_status kf_deallocations_defer(kf_runtime *rt, int defer) {
  API_RT(RT(rt));
  return rt_deallocs_defer(RT(rt), defer != 0);
}
void kf_deallocations_get(kf_runtime *rt, kf_deallocations *out) {
  API_RT(RT(rt));
  rt_deallocs_get(RT(rt), out);
}
void kf_set_interrupt_flag(volatile int *flag) { rt_set_interrupt_flag(flag); }
kf_status kf_runtime_set_sim_limits(kf_runtime *rt, uint64_t max_steps, double max_seconds, const char *steps_setting,
                                    const char *seconds_setting) {
  API_RT(RT(rt));
  return rt_set_sim_limits(RT(rt), max_steps, max_seconds, steps_setting, seconds_setting);
}
kf_status kf_deallocations_set_limits(kf_runtime *rt, size_t max_count, size_t max_bytes) {
  API_RT(RT(rt));
  return rt_deallocs_set_limits(RT(rt), max_count, max_bytes);
}

kf_status kf_ipc_get_handle(kf_runtime *rt, void *dptr, unsigned char handle[KF_IPC_HANDLE_BYTES]) {
  API_RT(RT(rt));
  return RT(rt)->dev->ops->ipc_get_handle(RT(rt)->dev, (uint64_t)(uintptr_t)dptr, handle, RT(rt)->diag);
}
kf_status kf_ipc_open_handle(kf_runtime *rt, const unsigned char handle[KF_IPC_HANDLE_BYTES], void **dptr) {
  API_RT(RT(rt));
  uint64_t p = 0;
  kf_status st = RT(rt)->dev->ops->ipc_open_handle(RT(rt)->dev, handle, &p, RT(rt)->diag);
  *dptr = st == KF_OK ? (void *)(uintptr_t)p : NULL;
  return st;
}
kf_status kf_ipc_close_handle(kf_runtime *rt, void *dptr) {
  API_RT(RT(rt));
  return RT(rt)->dev->ops->ipc_close_handle(RT(rt)->dev, (uint64_t)(uintptr_t)dptr, RT(rt)->diag);
}

kf_status kf_memcpy_to_device(kf_runtime *rt, void *dst, const void *src, size_t bytes, kf_stream *s) {
  API_RT(RT(rt));
  return rt_copy(RT(rt), RT_COPY_HTOD, dst, src, bytes, STREAM(s));
}
kf_status kf_memcpy_to_host(kf_runtime *rt, void *dst, const void *src, size_t bytes, kf_stream *s) {
  API_RT(RT(rt));
  return rt_copy(RT(rt), RT_COPY_DTOH, dst, src, bytes, STREAM(s));
}
kf_status kf_memcpy_device(kf_runtime *rt, void *dst, const void *src, size_t bytes, kf_stream *s) {
  API_RT(RT(rt));
  return rt_copy(RT(rt), RT_COPY_DTOD, dst, src, bytes, STREAM(s));
}
kf_status kf_memset_device(kf_runtime *rt, void *dst, int value, size_t bytes, kf_stream *s) {
  API_RT(RT(rt));
  return rt_memset(RT(rt), dst, value, bytes, STREAM(s));
}

kf_status kf_host_alloc(kf_runtime *rt, size_t bytes, unsigned flags, void **out) {
  API_RT(RT(rt));
  return rt_host_alloc(RT(rt), bytes, flags, out);
}
kf_status kf_host_free(kf_runtime *rt, void *p) {
  API_RT(RT(rt));
  return rt_host_free(RT(rt), p);
}
kf_status kf_host_register(kf_runtime *rt, void *p, size_t bytes, unsigned flags) {
  API_RT(RT(rt));
  return rt_host_register(RT(rt), p, bytes, flags);
}
kf_status kf_host_unregister(kf_runtime *rt, void *p) {
  API_RT(RT(rt));
  return rt_host_unregister(RT(rt), p);
}
kf_status kf_host_device_pointer(kf_runtime *rt, void *host, void **dptr) {
  API_RT(RT(rt));
  return rt_host_device_pointer(RT(rt), host, dptr);
}

kf_status kf_stream_create(kf_runtime *rt, kf_stream **out) {
  API_RT(RT(rt));
  RtStream *s;
  kf_status st = rt_stream_create(RT(rt), &s);
  *out = (kf_stream *)s;
  return st;
}
kf_status kf_stream_wrap(kf_runtime *rt, void *cu_stream, kf_stream **out) {
  API_RT(RT(rt));
  RtStream *s;
  kf_status st = rt_stream_wrap(RT(rt), cu_stream, &s);
  *out = (kf_stream *)s;
  return st;
}
void *kf_stream_handle(kf_stream *s) {
  API_RT(s ? STREAM(s)->rt : NULL);
  return rt_stream_handle(STREAM(s));
}
void kf_stream_destroy(kf_stream *s) {
  API_RT(s ? STREAM(s)->rt : NULL);
  rt_stream_destroy(STREAM(s));
}
kf_status kf_stream_synchronize(kf_stream *s) {
  if (!s) return KF_ERROR_INVALID_INPUT;  /* the default stream has no runtime here: kf_runtime_synchronize */
  API_RT(STREAM(s)->rt);
  return rt_stream_synchronize(STREAM(s));
}
kf_status kf_runtime_synchronize(kf_runtime *rt) {
  API_RT(RT(rt));
  return rt_synchronize(RT(rt));
}

kf_status kf_event_create(kf_runtime *rt, kf_event **out) {
  API_RT(RT(rt));
  RtEvent *e;
  kf_status st = rt_event_create(RT(rt), &e);
  *out = (kf_event *)e;
  return st;
}
void kf_event_destroy(kf_event *e) {
  API_RT(e ? EVENT(e)->rt : NULL);
  rt_event_destroy(EVENT(e));
}
kf_status kf_event_record(kf_event *e, kf_stream *s) {
  API_RT(e ? EVENT(e)->rt : NULL);
  return rt_event_record(EVENT(e), STREAM(s));
}
kf_status kf_event_synchronize(kf_event *e) {
  API_RT(e ? EVENT(e)->rt : NULL);
  return rt_event_synchronize(EVENT(e));
}
kf_status kf_event_elapsed_ms(kf_event *start, kf_event *end, float *ms) {
  API_RT(start ? EVENT(start)->rt : NULL);
  return rt_event_elapsed_ms(EVENT(start), EVENT(end), ms);
}

/* ---- programs, functions, kernels, launches ---------------------------------------------------- */

kf_status kf_program_create_sources(kf_runtime *rt, const kf_source *sources, unsigned nsources,
                                    const kf_compile_options *given, kf_program **out) {
  API_RT(RT(rt));
  *out = NULL;
  kf_compile_options defaults;
  kf_status read = API_READ_OPTIONS(RT(rt)->diag, "kf_program_create_sources", kf_compile_options, module_callback_data, given, &defaults);
  if (read != KF_OK) return read;
  const kf_compile_options *opts = &defaults;
  if (!sources || nsources == 0 || (!sources[0].text && sources[0].len)) {
    diag_error(RT(rt)->diag, NOLOC, "kf_program_create: no source text given");
    return KF_ERROR_INVALID_INPUT;
  }
  kf_source main = sources[0];
  if (!main.text) main.text = "";
  RtProgram *p;
  kf_status st = rt_program_create(RT(rt), &main, sources + 1, nsources - 1, opts, &p);
  *out = (kf_program *)p;
  return st;
}

kf_status kf_program_create(kf_runtime *rt, const char *filename, const char *text, size_t len,
                            const kf_compile_options *given, kf_program **out) {
  API_RT(RT(rt));
  *out = NULL;
  kf_compile_options defaults;
  kf_status read = API_READ_OPTIONS(RT(rt)->diag, "kf_program_create", kf_compile_options, module_callback_data, given, &defaults);
  if (read != KF_OK) return read;
  const kf_compile_options *opts = &defaults;
  unsigned nextra = opts->nextra_sources;
  if (nextra && !opts->extra_sources) {
    diag_error(RT(rt)->diag, NOLOC, "kf_program_create: %u extra sources given with no sources pointer", nextra);
    return KF_ERROR_INVALID_INPUT;
  }
  if (!text && len) {
    diag_error(RT(rt)->diag, NOLOC, "kf_program_create: no source text given");
    return KF_ERROR_INVALID_INPUT;
  }
  kf_source main = {filename, text ? text : "", len, 1};
  RtProgram *p;
  kf_status st = rt_program_create(RT(rt), &main, opts->extra_sources, nextra, opts, &p);
  *out = (kf_program *)p;
  return st;
}

kf_status kf_program_from_module(kf_runtime *rt, kf_module *m, kf_program **out) {
  API_RT(RT(rt));
  RtProgram *p;
  kf_status st = rt_program_from_module(RT(rt), m->ir, &p);
  *out = (kf_program *)p;
  return st;
}

/* ---- generic programs: the embedder's callback as the runtime's generator ---- */

/* The context a runtime was made from (kf_runtime_create gives the runtime its context's Diag). */
static kf_context *context_of(Diag *diag) { return (kf_context *)((char *)diag - offsetof(kf_context, diag)); }

static kf_status generic_make(const RtGenerator *g, Diag *diag, const char *kernel, Type *const *types, unsigned n,
                              Module **m, void **owner) {
  kf_context *ctx = context_of(diag);
  kf_module *km = NULL;
  kf_status st = g->fn(g->user, ctx, kernel, (struct kf_type *const *)types, n, &km);
  *m = NULL;
  *owner = km;
  if (st != KF_OK || !km) return st;
  if (km->ctx != ctx) {
    diag_error_kind(diag, DIAG_KIND_INVALID_ARGUMENT, NOLOC, "the specialisation callback of kernel %s returned a "
                    "module of another context", kernel);
    return KF_ERROR_INVALID_INPUT;  /* released (kf_module_destroy, in its own context) */
  }
  *m = km->ir;
  return KF_OK;
}

static void generic_release(const RtGenerator *g, void *owner) {
  (void)g;
  kf_module_destroy(owner);
}

void kf_generic_options_init(kf_generic_options *o) {
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
}

kf_status kf_program_create_generic(kf_runtime *rt, const kf_generic_options *given, kf_program **out) {
  API_RT(RT(rt));
  *out = NULL;
  kf_generic_options o;
  kf_status st = API_READ_OPTIONS(RT(rt)->diag, "kf_program_create_generic", kf_generic_options, pipeline, given, &o);
  if (st != KF_OK) return st;
  API_KIND(DIAG_KIND_INVALID_ARGUMENT);
  Diag *d = RT(rt)->diag;
  if (!o.specialize || !o.nkernels || !o.kernels) {
    diag_error(d, NOLOC, "kf_program_create_generic: %s", !o.specialize ? "no specialisation callback given"
                                                                         : "no kernels given");
    return KF_ERROR_INVALID_INPUT;
  }
  for (unsigned i = 0; i < o.nkernels; i++) {
    const char *name = o.kernels[i].name;
    bool twice = false;
    for (unsigned k = 0; name && k < i; k++) twice |= o.kernels[k].name && strcmp(o.kernels[k].name, name) == 0;
    if (!name || !*name || twice || o.kernels[i].nparams < -1) {
      diag_error(d, NOLOC, "kf_program_create_generic: kernel %u %s", i,
                 !name || !*name ? "has no name" : twice ? "is named twice" : "has a parameter count below -1");
      return KF_ERROR_INVALID_INPUT;
    }
  }
  RtGenerator g = {generic_make, generic_release, o.specialize, o.user_data};
  RtProgram *p;
  st = rt_program_generic(RT(rt), &g, o.kernels, o.nkernels, o.pipeline, &p);
  *out = (kf_program *)p;
  return st;
}

void kf_program_destroy(kf_program *p) {
  API_RT(p ? PROG(p)->rt : NULL);
  rt_program_destroy(PROG(p));
}

kf_status kf_program_get_function(kf_program *p, const char *name, kf_function **out) {
  API_RT(p ? PROG(p)->rt : NULL);
  RtFunction *f;
  kf_status st = rt_program_function(PROG(p), name, &f);
  *out = (kf_function *)f;
  return st;
}

kf_status kf_function_specialize(kf_function *f, const kf_arg *args, unsigned nargs, kf_kernel **out) {
  API_RT(f ? FN(f)->p->rt : NULL);
  RtKernel *k;
  kf_status st = rt_function_specialize(FN(f), args, nargs, &k, NULL);
  *out = (kf_kernel *)k;
  return st;
}

kf_status kf_function_set_shared_memory_carveout(kf_function *f, int percent) {
  if (!f) return KF_ERROR_INVALID_INPUT;
  API_RT(FN(f)->p->rt);
  if (percent < -1 || percent > 100) {
    diag_error(FN(f)->p->rt->diag, NOLOC, "Carveout must be between -1 and 100, not %d", percent);
    return KF_ERROR_INVALID_INPUT;
  }
  FN(f)->has_carveout = true;
  FN(f)->carveout = percent;
  return KF_OK;
}

kf_status kf_function_set_specialized(kf_function *f, int on) {
  if (!f) return KF_ERROR_INVALID_INPUT;
  API_RT(FN(f)->p->rt);
  FN(f)->specialized = on != 0;
  return KF_OK;
}

unsigned kf_function_kernels(kf_function *f, kf_kernel **out, unsigned max) {
  API_RT(f ? FN(f)->p->rt : NULL);
  return rt_function_kernels(FN(f), (RtKernel **)out, out ? max : 0);
}

static bool launch_shape(RtRuntime *rt, const unsigned grid[3], const unsigned block[3], size_t shared,
                         RtLaunchShape *out) {
  if (!grid || !block) {
    diag_error(rt->diag, NOLOC, "kf_launch: no grid or block dimensions given");
    return false;
  }
  for (int d = 0; d < 3; d++) {
    out->grid[d] = grid[d];
    out->block[d] = block[d];
  }
  out->shared = shared;
  return true;
}

kf_status kf_function_launch(kf_function *f, const unsigned grid[3], const unsigned block[3], size_t shared_bytes,
                             kf_stream *stream, const kf_arg *args, unsigned nargs) {
  API_RT(f ? FN(f)->p->rt : NULL);
  RtLaunchShape shape;
  if (!launch_shape(FN(f)->p->rt, grid, block, shared_bytes, &shape)) return KF_ERROR_INVALID_INPUT;
  RtKernel *k;
  RtDispatchEntry *e;
  kf_status st = rt_function_specialize(FN(f), args, nargs, &k, &e);
  return st == KF_OK ? rt_launch(k, &shape, STREAM(stream), args, nargs, e) : st;
}

kf_status kf_program_get_kernel(kf_program *p, const char *name, const kf_arg *args, unsigned nargs,
                                kf_kernel **out) {
  API_RT(p ? PROG(p)->rt : NULL);
  *out = NULL;
  RtFunction *f;
  kf_status st = rt_program_function(PROG(p), name, &f);
  if (st != KF_OK) return st;
  RtKernel *k;
  unsigned compiles = atomic_load(&PROG(p)->rt->compiles);
  st = rt_function_specialize(f, args, nargs, &k, NULL);
  /* a kernel found again (no compile, no new cache lookup) now comes from the in-memory cache */
  if (st == KF_OK && compiles == atomic_load(&PROG(p)->rt->compiles) && atomic_load(&k->cache_source) == 0)
    atomic_store(&k->cache_source, 1);
  *out = (kf_kernel *)k;
  return st;
}

const char *kf_kernel_signature(kf_kernel *k) {
  API_RT(k ? KER(k)->f->p->rt : NULL);
  return KER(k)->signature;
}
int kf_kernel_cache_source(kf_kernel *k) {
  API_RT(k ? KER(k)->f->p->rt : NULL);
  return atomic_load(&KER(k)->cache_source);
}
void kf_xoroshiro128p_init_states(uint64_t *states, size_t n, uint64_t seed, uint64_t subsequence_start) {
  rt_xoroshiro128p_init(states, n, seed, subsequence_start);
}

kf_status kf_xoroshiro128p_init_device(kf_runtime *rt, void *dptr, size_t n, uint64_t seed, uint64_t subsequence_start,
                                       kf_stream *s) {
  API_RT(RT(rt));
  return rt_xoroshiro128p_init_device(RT(rt), dptr, n, seed, subsequence_start, STREAM(s));
}

int kf_kernel_is_cooperative(kf_kernel *k) {
  API_RT(k ? KER(k)->f->p->rt : NULL);
  return KER(k)->plan.cooperative;
}

kf_status kf_kernel_max_cooperative_blocks(kf_kernel *k, unsigned threads_per_block, size_t shared_bytes,
                                           unsigned *out) {
  RtRuntime *rt = KER(k)->f->p->rt;
  API_RT(rt);
  *out = 0;
  if (threads_per_block == 0 || threads_per_block > rt->limits.max_threads_per_block) {
    diag_error(rt->diag, NOLOC, "max_cooperative_grid_blocks of %s: a block of %u threads (the device takes 1 to %u)",
               KER(k)->f->name, threads_per_block, rt->limits.max_threads_per_block);
    return KF_ERROR_INVALID_INPUT;
  }
  *out = rt_plan_resident_blocks(rt->dev, &KER(k)->fn, threads_per_block, shared_bytes, &KER(k)->resident_memo);
  return KF_OK;
}

kf_status kf_kernel_get_attributes(kf_kernel *k, kf_kernel_attributes *out) {
  RtRuntime *rt = KER(k)->f->p->rt;
  API_RT(rt);
  memset(out, 0, sizeof *out);
  return rt->dev->ops->function_attributes(rt->dev, &KER(k)->fn, out, rt->diag);
}

unsigned kf_kernel_param_count(kf_kernel *k) {
  API_RT(k ? KER(k)->f->p->rt : NULL);
  return KER(k)->nuser;
}

kf_status kf_kernel_param(kf_kernel *k, unsigned i, kf_param_info *out) {
  API_RT(k ? KER(k)->f->p->rt : NULL);
  memset(out, 0, sizeof *out);
  if (i >= KER(k)->nuser) return KF_ERROR_INVALID_INPUT;
  const Type *t = KER(k)->params[i];
  if (t->kind == TY_ARRAY) {
    out->kind = KF_ARG_ARRAY;
    out->ndim = t->rank;
    out->layout = t->layout == LAYOUT_C ? 'C' : t->layout == LAYOUT_F ? 'F' : 'A';
    t = t->elem;
  } else if (t->kind == TY_RECORD) { /* one record: a 0-d array of its dtype */
    out->kind = KF_ARG_ARRAY;
    out->ndim = 0;
    out->layout = 'C';
  } else {
    out->kind = KF_ARG_SCALAR;
  }
  return rt_type_dtype(t, &out->dtype) ? KF_OK : KF_ERROR_INVALID_INPUT;
}

kf_status kf_launch(kf_kernel *k, const unsigned grid[3], const unsigned block[3], size_t shared_bytes,
                    kf_stream *stream, const kf_arg *args, unsigned nargs) {
  API_RT(k ? KER(k)->f->p->rt : NULL);
  RtLaunchShape shape;
  if (!launch_shape(KER(k)->f->p->rt, grid, block, shared_bytes, &shape)) return KF_ERROR_INVALID_INPUT;
  return rt_launch(KER(k), &shape, STREAM(stream), args, nargs, NULL);
}

/* ---- @cuda.reduce, @vectorize, @guvectorize ------------------------------------------------------- */

kf_status kf_function_get_info(kf_function *f, kf_function_info *out) {
  API_RT(f ? FN(f)->p->rt : NULL);
  return rt_function_info(FN(f), out);
}

kf_status kf_reduce(kf_function *f, const kf_array *arr, int64_t size, const kf_arg *init, kf_stream *stream,
                    kf_arg *result, const kf_array *res) {
  API_RT(f ? FN(f)->p->rt : NULL);
  return rt_reduce(FN(f), arr, size, init, STREAM(stream), result, res);
}

kf_status kf_ufunc_result(kf_function *f, const kf_arg *inputs, unsigned ninputs, kf_array *out) {
  API_RT(f ? FN(f)->p->rt : NULL);
  return rt_ufunc_result(FN(f), inputs, ninputs, out);
}

kf_status kf_ufunc_call(kf_function *f, const kf_arg *inputs, unsigned ninputs, const kf_array *out,
                        kf_stream *stream) {
  API_RT(f ? FN(f)->p->rt : NULL);
  return rt_ufunc_call(FN(f), inputs, ninputs, out, STREAM(stream));
}

kf_status kf_gufunc_result(kf_function *f, const kf_arg *inputs, unsigned ninputs, kf_array *outs, unsigned nouts) {
  API_RT(f ? FN(f)->p->rt : NULL);
  return rt_gufunc_result(FN(f), inputs, ninputs, outs, nouts);
}

kf_status kf_gufunc_call(kf_function *f, const kf_arg *args, unsigned nargs, kf_stream *stream) {
  API_RT(f ? FN(f)->p->rt : NULL);
  return rt_gufunc_call(FN(f), args, nargs, STREAM(stream));
}
