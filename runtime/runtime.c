/* runtime.c — RtRuntime: the device a runtime launches on (a GPU through the driver, or a simulated device,
 * chosen at creation from the options alone: the library reads no environment), the devices there are and
 * the calling thread's current one, copies between devices (peer or staged through the host), its limits, the
 * compiled-kernel cache, the default pipeline; device memory (tracked, so the runtime frees what is left),
 * copies, memset, pinned host memory, streams and events — each a call into the device interface.
 * Out of memory, each returns KF_ERROR_OUT_OF_MEMORY after rt_out_of_memory reported it (rt.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/rt.h"
#include "utils/mem.h"

static const SrcLoc NOLOC = {0};

kf_status rt_set_sim_limits(RtRuntime *rt, uint64_t max_steps, double max_seconds, const char *steps_setting,
                            const char *seconds_setting) {
  if (rt->dev->mode != KF_RUNTIME_SIM) {
    DiagKind prev = diag_set_kind(DIAG_KIND_UNSUPPORTED);
    diag_error(rt->diag, NOLOC, "the simulator's launch limits are not those of a GPU runtime");
    diag_set_kind(prev);
    return KF_ERROR_UNSUPPORTED;
  }
  rt_device_sim_set_limits(rt->dev, max_steps, max_seconds, steps_setting, seconds_setting);
  return KF_OK;
}

kf_status rt_out_of_memory(RtRuntime *rt) {
  diag_out_of_memory(rt->diag);
  return KF_ERROR_OUT_OF_MEMORY;
}

/* ---- devices ------------------------------------------------------------------------------------ */

static _Thread_local int current_device;  /* the calling thread's (rt_current_device) */

int rt_current_device(void) { return current_device; }

static _Thread_local volatile int *interrupt_flag;  /* the calling thread's (kf_set_interrupt_flag) */

void rt_set_interrupt_flag(volatile int *flag) { interrupt_flag = flag; }
volatile int *rt_interrupt_flag(void) { return interrupt_flag; }
void rt_set_current_device(int ordinal) { current_device = ordinal; }

static unsigned sim_count(const kf_runtime_options *o) { return o->sim_devices ? o->sim_devices : 1; }

/* Which devices the options give: *gpu and how many. AUTO takes the GPUs when a driver reports at least one;
 * a missing driver (or none in AUTO) is said in *why (for the description), else reported to diag (GPU mode:
 * false, KF_ERROR_NOT_FOUND). */
static kf_status pick_devices(const kf_runtime_options *o, Diag *diag, StrBuf *why, bool *gpu, int *count) {
  *gpu = false;
  *count = 0;
  if (o->mode != KF_RUNTIME_SIM) {
    Diag quiet;
    diag_init(&quiet);
    int n = 0;
    bool driver = rt_device_gpu_count(o->libcuda_path, &n, o->mode == KF_RUNTIME_GPU ? diag : &quiet);
    if (!driver && why) {
      size_t len = quiet.text.len;
      const char *text = diag_text(&quiet);
      if (strncmp(text, "kfront: error: ", 15) == 0) text += 15, len -= 15;
      while (len && text[len - 1] == '\n') len--;
      sb_printf(why, "%.*s", (int)len, text);
    } else if (driver && n == 0 && why && o->mode == KF_RUNTIME_AUTO) {
      sb_puts(why, "the CUDA driver reports no device");
    }
    diag_free(&quiet);
    if (o->mode == KF_RUNTIME_GPU) {
      if (!driver) return KF_ERROR_NOT_FOUND;
      *gpu = true;
      *count = n;
      return KF_OK;
    }
    if (driver && n > 0) {
      *gpu = true;
      *count = n;
      return KF_OK;
    }
  }
  *count = (int)sim_count(o);
  return KF_OK;
}

kf_status rt_device_count(const kf_runtime_options *o, Diag *diag, int *count) {
  bool gpu;
  return pick_devices(o, diag, NULL, &gpu, count);
}

kf_status rt_device_info(const kf_runtime_options *o, int ordinal, Diag *diag, kf_device_info *out) {
  bool gpu;
  int count;
  kf_status st = pick_devices(o, diag, NULL, &gpu, &count);
  if (st != KF_OK) return st;
  if (ordinal < 0 || ordinal >= count) {
    diag_error(diag, NOLOC, "no %s device %d (there %s %d)", gpu ? "CUDA" : "simulated", ordinal,
               count == 1 ? "is" : "are", count);
    return KF_ERROR_NOT_FOUND;
  }
  if (!gpu) {
    rt_device_sim_info(out);
    return KF_OK;
  }
  return rt_device_gpu_info(o->libcuda_path, ordinal, out, diag) ? KF_OK : KF_ERROR_DEVICE;
}

/* Device attributes by name (runtime/device_attributes.def): the simulated device's value, SIM_NONE where it
 * models none. */
#define SIM_NONE INT_MIN
static int sim_attribute(const kf_device_info *in, int value) {
#define DEVICE_ATTRIBUTE(NAME, VALUE, SIM) \
  if (value == VALUE) return SIM;
#include "runtime/device_attributes.def"
#undef DEVICE_ATTRIBUTE
  return SIM_NONE;
}

kf_status rt_device_attribute(const kf_runtime_options *o, int ordinal, const char *name, Diag *diag, int *out) {
  static const struct {
    const char *name;
    int value;
  } table[] = {
#define DEVICE_ATTRIBUTE(NAME, VALUE, SIM) {#NAME, VALUE},
#include "runtime/device_attributes.def"
#undef DEVICE_ATTRIBUTE
  };
  *out = 0;
  int value = -1;
  for (size_t i = 0; name && i < sizeof table / sizeof *table && value < 0; i++)
    if (strcmp(table[i].name, name) == 0) value = table[i].value;
  if (value < 0) {
    diag_error(diag, NOLOC, "no device attribute named '%s' (CUDA's CU_DEVICE_ATTRIBUTE_* names, without the prefix)",
               name ? name : "(null)");
    return KF_ERROR_NOT_FOUND;
  }
  bool gpu;
  int count;
  kf_status st = pick_devices(o, diag, NULL, &gpu, &count);
  if (st != KF_OK) return st;
  if (ordinal < 0 || ordinal >= count) {
    diag_error(diag, NOLOC, "no %s device %d (there %s %d)", gpu ? "CUDA" : "simulated", ordinal,
               count == 1 ? "is" : "are", count);
    return KF_ERROR_NOT_FOUND;
  }
  if (gpu) return rt_device_gpu_attribute(o->libcuda_path, ordinal, value, out, diag) ? KF_OK : KF_ERROR_DEVICE;
  kf_device_info in;
  rt_device_sim_info(&in);
  int v = sim_attribute(&in, value);
  if (v == SIM_NONE) {
    diag_error(diag, NOLOC, "the simulated device does not model the attribute %s", name);
    return KF_ERROR_NOT_FOUND;
  }
  *out = v;
  return KF_OK;
}

/* Opens device `ordinal` of the kind the options pick (pick_devices), saying in the description what it is
 * (and, for the simulator in AUTO mode, why no GPU is used). */
static kf_status open_device(RtRuntime *rt, const kf_runtime_options *o, int ordinal) {
  StrBuf why;
  sb_init(&why);
  bool gpu;
  int count;
  kf_status st = pick_devices(o, rt->diag, &why, &gpu, &count);
  if (st == KF_OK && (ordinal < 0 || ordinal >= count)) {
    if (gpu)
      diag_error(rt->diag, NOLOC, "no CUDA device %d (the driver reports %d device%s)", ordinal, count,
                 count == 1 ? "" : "s");
    else
      diag_error(rt->diag, NOLOC, "no simulated device %d (the simulator presents %d device%s: "
                 "kf_runtime_options.sim_devices)", ordinal, count, count == 1 ? "" : "s");
    st = KF_ERROR_NOT_FOUND;
  }
  if (st == KF_OK && gpu) {
    rt->dev = rt_device_gpu_open(o->libcuda_path, ordinal, rt->diag);
    if (rt->dev)
      sb_printf(&rt->describe, "GPU %d: %s (sm_%u, %d SMs)", ordinal, rt->dev->info.name, rt->dev->arch,
                rt->dev->info.multiprocessors);
    else
      st = KF_ERROR_DEVICE;
  } else if (st == KF_OK) {
    SimOptions so;
    sim_options_init(&so);
    so.detect_races = o->sim_detect_races != 0;
    so.nworkers = o->sim_workers;
    rt_sim_limits(&so, o->sim_max_steps, o->sim_max_seconds);
    sb_puts(&rt->describe, "simulator");
    if (count > 1) sb_printf(&rt->describe, " device %d of %d", ordinal, count);
    if (why.len) sb_printf(&rt->describe, " (%s)", sb_cstr(&why));
    rt->dev = rt_device_sim_open(&so, ordinal, rt->diag);
    if (!rt->dev) st = KF_ERROR_OUT_OF_MEMORY;  /* the simulator fails to open only for lack of memory */
  }
  if (st == KF_OK && (sb_failed(&rt->describe) || sb_failed(&why))) {
    rt->dev->ops->close(rt->dev);
    rt->dev = NULL;
    st = rt_out_of_memory(rt);
  }
  sb_free(&why);
  return st;
}

kf_status rt_runtime_create(IrContext *ir, Diag *diag, const kf_runtime_options *o, RtRuntime **out) {
  *out = NULL;
  RtRuntime *rt = mem_calloc(1, sizeof *rt);
  if (!rt) {
    diag_out_of_memory(diag);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  rt->alloc = mem_allocator();
  rt->ir = ir;
  rt->diag = diag;
  sb_init(&rt->describe);
  kf_status st = open_device(rt, o, o->device == KF_DEVICE_CURRENT ? rt_current_device() : o->device);
  if (st != KF_OK) {
    sb_free(&rt->describe);
    mem_free(rt);
    return st;
  }
  pthread_mutex_init(&rt->lock, NULL);
  pthread_mutex_init(&rt->scratch_lock, NULL);
  size_t free_bytes = 0, total_bytes = 0;
  DiagMark mark = diag_mark(diag);
  if (!rt->dev->ops->memory_info(rt->dev, &free_bytes, &total_bytes, diag)) diag_rollback(diag, &mark);
  rt_deallocs_init(&rt->deallocs, total_bytes);
  rt_limits_from_info(&rt->limits, &rt->dev->info);
  rt->backend = o->backend;
  rt->backend_chosen = o->backend != KF_BACKEND_AUTO;
  /* privatize-atomics again after grid-stride: its loop over the user's blocks puts a one-thread-per-element
   * histogram's atomics in a loop, where privatising them pays (passes/privatize_atomics.c). grid-stride as a
   * variant: the launch runs the plain kernel where the loop's registers would cost blocks per SM (launch.c) */
  /* the kernels as compiled (what inspect shows): block-pair only adds its launch variant NAME__bp beside them */
  const char *kernels = o->thread_map ? PASS_DEFAULT_PIPELINE : PASS_DEFAULT_PIPELINE_NO_THREAD_MAP;
  snprintf(rt->kernel_pipeline, sizeof rt->kernel_pipeline, "%s", kernels);
  snprintf(rt->pipeline, sizeof rt->pipeline, "%s%s", o->thread_map == 2 ? PASS_BLOCK_PAIR_PIPELINE : kernels,
           o->grid_stride ? ",grid-stride{variant=1},privatize-atomics" : "");
  /* PTX is cached on disk; the simulator's kir is not (compiling it again is cheaper than reading it) */
  bool disk = o->disk_cache && o->cache_dir && *o->cache_dir && !rt->dev->runs_kir;
  rt_cache_init(&rt->cache, true, disk ? o->cache_dir : NULL);
  if (rt->cache.refused.len) diag_warning(rt->diag, NOLOC, "%s", sb_cstr(&rt->cache.refused));
  if (disk && !rt->cache.dir && !rt->cache.refused.len) {  /* not refused: its copy could not be made */
    rt_runtime_destroy(rt);
    diag_out_of_memory(diag);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  *out = rt;
  return KF_OK;
}

void rt_runtime_destroy(RtRuntime *rt) {
  if (!rt) return;
  /* pinned host memory waiting to be freed (pending device memory is in the allocation set, freed below) */
  rt->dev->ops->finish(rt->dev, NULL);
  for (size_t i = 0; i < rt->deallocs.n; i++)
    if (rt->deallocs.items[i].host) rt->dev->ops->host_free(rt->dev, rt->deallocs.items[i].ptr, NULL);
  rt_deallocs_free(&rt->deallocs);
  for (size_t i = 0; i < rt->allocations.cap; i++)
    if (rt->allocations.keys[i] && rt->allocations.vals[i])
      rt->dev->ops->free(rt->dev, (uint64_t)(uintptr_t)rt->allocations.keys[i], NULL);
  ptrmap_free(&rt->allocations);
  rt->dev->ops->close(rt->dev);
  rt_cache_free(&rt->cache);
  sb_free(&rt->describe);
  pthread_mutex_destroy(&rt->lock);
  pthread_mutex_destroy(&rt->scratch_lock);  /* the scratch memory went with the allocations above */
  mem_free(rt);
}

void rt_runtime_stats(RtRuntime *rt, kf_runtime_stats *out) {
  RtCacheStats c = rt_cache_stats(&rt->cache);
  memset(out, 0, sizeof *out);
  out->cache_memory_hits = c.memory_hits;
  out->cache_disk_hits = c.disk_hits;
  out->cache_misses = c.misses;
  out->cache_corrupt = c.corrupt;
  out->cache_writes = c.writes;
  out->compiles = atomic_load(&rt->compiles);
  out->launches = atomic_load(&rt->launches);
}

/* ---- memory ----------------------------------------------------------------------------------- */

void *rt_scratch_acquire(RtRuntime *rt, size_t bytes, kf_status *st) {
  *st = KF_OK;
  if (pthread_mutex_trylock(&rt->scratch_lock) != 0) return NULL;
  if (rt->scratch_bytes < bytes) {
    if (rt->scratch) rt_device_free(rt, rt->scratch);
    rt->scratch = NULL;
    rt->scratch_bytes = 0;
    size_t grown = bytes < 4096 ? 4096 : bytes;
    DiagMark mark = diag_mark(rt->diag);
    kf_status ast = rt_device_alloc(rt, grown, &rt->scratch);
    if (ast != KF_OK) {
      /* no device memory is not an error: the caller allocates its own; no host memory is (reported) */
      if (ast == KF_ERROR_OUT_OF_MEMORY) *st = ast;
      else diag_rollback(rt->diag, &mark);
      rt->scratch = NULL;
      pthread_mutex_unlock(&rt->scratch_lock);
      return NULL;
    }
    rt->scratch_bytes = grown;
  }
  return rt->scratch;
}

void rt_scratch_release(RtRuntime *rt) { pthread_mutex_unlock(&rt->scratch_lock); }

#define DEV(rt) ((rt)->dev)
#define OPS(rt) ((rt)->dev->ops)

#define RT_PENDING_FREE ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))

/* One device allocation: ordinary device memory, or managed memory (managed_flags: KF_MANAGED_*). */
static kf_status device_alloc_once(RtRuntime *rt, size_t bytes, bool managed, unsigned managed_flags, uint64_t *p) {
  if (managed) return OPS(rt)->alloc_managed(DEV(rt), bytes, managed_flags, p, rt->diag);
  return OPS(rt)->alloc(DEV(rt), bytes, p, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

static kf_status device_alloc(RtRuntime *rt, size_t bytes, bool managed, unsigned managed_flags, void **out) {
  *out = NULL;
  if (!bytes) return KF_OK;
  uint64_t p = 0;
  DiagMark mark = diag_mark(rt->diag);
  kf_status st = device_alloc_once(rt, bytes, managed, managed_flags, &p);
  if (st == KF_ERROR_DEVICE) {
    /* as numba-cuda: the device may be full of memory waiting to be freed; free it and try once more */
    kf_deallocations q;
    rt_deallocs_get(rt, &q);
    if (!q.pending || q.deferring || rt_deallocs_flush(rt) != KF_OK) return KF_ERROR_DEVICE;
    diag_rollback(rt->diag, &mark);
    st = device_alloc_once(rt, bytes, managed, managed_flags, &p);
  }
  if (st != KF_OK) return st;
  pthread_mutex_lock(&rt->lock);
  bool ok = ptrmap_put(&rt->allocations, (void *)(uintptr_t)p, (void *)(uintptr_t)bytes);
  if (ok) {
    rt->allocated_bytes += bytes;
    rt->allocated_count++;
  }
  pthread_mutex_unlock(&rt->lock);
  if (!ok) {
    OPS(rt)->free(DEV(rt), p, NULL);
    return rt_out_of_memory(rt);
  }
  *out = (void *)(uintptr_t)p;
  return KF_OK;
}

kf_status rt_device_alloc(RtRuntime *rt, size_t bytes, void **out) { return device_alloc(rt, bytes, false, 0, out); }

kf_status rt_managed_alloc(RtRuntime *rt, size_t bytes, unsigned flags, void **out) {
  return device_alloc(rt, bytes, true, flags, out);
}

kf_status rt_pointer_range(RtRuntime *rt, const void *ptr, void **base, size_t *bytes) {
  uint64_t b = 0;
  size_t n = 0;
  kf_status st = OPS(rt)->pointer_range(DEV(rt), (uint64_t)(uintptr_t)ptr, &b, &n, rt->diag);
  if (st != KF_OK) return st;
  *base = (void *)(uintptr_t)b;
  *bytes = n;
  return KF_OK;
}

/* Takes p out of the allocation set when it is there (and, unless pending_ok, not waiting in the deallocation
 * queue); its bytes, or 0 when it was not. */
static size_t forget_allocation(RtRuntime *rt, void *p, bool pending_ok) {
  pthread_mutex_lock(&rt->lock);
  uintptr_t v = (uintptr_t)ptrmap_get(&rt->allocations, p);
  size_t bytes = (size_t)(v & ~RT_PENDING_FREE);
  if (v && (pending_ok || !(v & RT_PENDING_FREE))) {
    ptrmap_put(&rt->allocations, p, NULL);
    rt->allocated_bytes -= bytes;
    rt->allocated_count--;
  } else {
    bytes = 0;
  }
  pthread_mutex_unlock(&rt->lock);
  return bytes;
}

kf_status rt_device_free(RtRuntime *rt, void *p) {
  if (!p) return KF_OK;
  if (!forget_allocation(rt, p, false)) {
    diag_error(rt->diag, NOLOC, "kf_device_free: %p was not allocated by this runtime (or was freed already)", p);
    return KF_ERROR_INVALID_INPUT;
  }
  return OPS(rt)->free(DEV(rt), (uint64_t)(uintptr_t)p, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_device_release(RtRuntime *rt, void *p) {
  if (!forget_allocation(rt, p, true)) return KF_ERROR_INVALID_INPUT;
  return OPS(rt)->free(DEV(rt), (uint64_t)(uintptr_t)p, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

bool rt_device_mark_pending(RtRuntime *rt, void *p, size_t *bytes) {
  pthread_mutex_lock(&rt->lock);
  uintptr_t v = (uintptr_t)ptrmap_get(&rt->allocations, p);
  bool ok = v && !(v & RT_PENDING_FREE);
  if (ok) ptrmap_put(&rt->allocations, p, (void *)(v | RT_PENDING_FREE));  /* (an existing key: no allocation) */
  pthread_mutex_unlock(&rt->lock);
  *bytes = (size_t)(v & ~RT_PENDING_FREE);
  return ok;
}

void rt_device_allocated(RtRuntime *rt, size_t *bytes, size_t *count) {
  pthread_mutex_lock(&rt->lock);
  *bytes = rt->allocated_bytes;
  *count = rt->allocated_count;
  pthread_mutex_unlock(&rt->lock);
}

bool rt_stream_fits(RtRuntime *rt, const RtStream *s, const char *what) {
  if (!s || s->rt->dev->ordinal == rt->dev->ordinal) return true;
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  diag_error(rt->diag, NOLOC, "%s: the stream belongs to device %d, but this runs on device %d (a stream orders "
             "the work of its own device only)", what, s->rt->dev->ordinal, rt->dev->ordinal);
  diag_set_kind(prev);
  return false;
}

kf_status rt_copy(RtRuntime *rt, RtCopyKind kind, void *dst, const void *src, size_t bytes, RtStream *s) {
  if (!bytes) return KF_OK;
  if (!rt_stream_fits(rt, s, "a copy")) return KF_ERROR_INVALID_INPUT;
  return OPS(rt)->copy(DEV(rt), kind, dst, src, bytes, rt_stream_handle(s), rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

/* A copy between two devices without peer access: through a page-locked host buffer (plain host memory when
 * none can be had), a chunk at a time, each chunk read from src's device and written to dst's. Synchronous. */
enum { STAGE_CHUNK = 8u << 20 };

static kf_status copy_staged(RtRuntime *dst_rt, char *dst, RtRuntime *src_rt, const char *src, size_t bytes) {
  RtDevice *dd = dst_rt->dev, *sd = src_rt->dev;
  Diag *diag = dst_rt->diag;
  size_t chunk = bytes < STAGE_CHUNK ? bytes : STAGE_CHUNK;
  void *bounce = NULL;
  DiagMark mark = diag_mark(diag);
  bool pinned = dd->ops->host_alloc(dd, chunk, 0, &bounce, diag);
  if (!pinned) {
    diag_rollback(diag, &mark);  /* no pinned memory is not an error: pageable memory does, more slowly */
    bounce = mem_alloc(chunk);
    if (!bounce) return rt_out_of_memory(dst_rt);
  }
  kf_status st = KF_OK;
  for (size_t off = 0; st == KF_OK && off < bytes; off += chunk) {
    size_t n = bytes - off < chunk ? bytes - off : chunk;
    if (!sd->ops->copy(sd, RT_COPY_DTOH, bounce, src + off, n, NULL, diag) ||
        !dd->ops->copy(dd, RT_COPY_HTOD, dst + off, bounce, n, NULL, diag))
      st = KF_ERROR_DEVICE;
  }
  if (pinned) dd->ops->host_free(dd, bounce, NULL);
  else mem_free(bounce);
  return st;
}

kf_status rt_copy_peer(RtRuntime *dst_rt, void *dst, RtRuntime *src_rt, const void *src, size_t bytes, RtStream *s) {
  RtDevice *dd = dst_rt->dev, *sd = src_rt->dev;
  if (dd->mode != sd->mode) {
    diag_error(dst_rt->diag, NOLOC, "kf_memcpy_peer: one runtime runs on a GPU and the other on the simulator");
    return KF_ERROR_INVALID_INPUT;
  }
  if (s && s->rt->dev->ordinal != dd->ordinal && s->rt->dev->ordinal != sd->ordinal) {
    diag_error(dst_rt->diag, NOLOC, "kf_memcpy_peer: the stream belongs to device %d, neither the source's (%d) nor "
               "the destination's (%d)", s->rt->dev->ordinal, sd->ordinal, dd->ordinal);
    return KF_ERROR_INVALID_INPUT;
  }
  if (!bytes) return KF_OK;
  RtRuntime *on = s ? s->rt : dst_rt;  /* whose context runs the copy */
  if (dd->ordinal == sd->ordinal) return rt_copy(on, RT_COPY_DTOD, dst, src, bytes, s);
  if (dd->ops->can_access_peer(dd, sd))
    return on->dev->ops->copy_peer(on->dev, dd, (uint64_t)(uintptr_t)dst, sd, (uint64_t)(uintptr_t)src, bytes,
                                   rt_stream_handle(s), dst_rt->diag)
               ? KF_OK
               : KF_ERROR_DEVICE;
  if (s) {  /* the staged copy is synchronous: what the stream holds first */
    kf_status st = rt_stream_sync(s->rt, s);
    if (st != KF_OK) return st;
  }
  return copy_staged(dst_rt, dst, src_rt, src, bytes);
}

bool rt_can_access_peer(RtRuntime *rt, RtRuntime *peer) {
  RtDevice *d = rt->dev, *p = peer->dev;
  return d->mode == p->mode && d->ordinal != p->ordinal && d->ops->can_access_peer(d, p);
}

kf_status rt_make_current(RtRuntime *rt) {
  if (!OPS(rt)->make_current(DEV(rt), rt->diag)) return KF_ERROR_DEVICE;
  rt_set_current_device(DEV(rt)->ordinal);
  return KF_OK;
}

kf_status rt_memset(RtRuntime *rt, void *dst, int value, size_t bytes, RtStream *s) {
  if (!bytes) return KF_OK;
  if (!rt_stream_fits(rt, s, "a memset")) return KF_ERROR_INVALID_INPUT;
  return OPS(rt)->memset(DEV(rt), (uint64_t)(uintptr_t)dst, value, bytes, rt_stream_handle(s), rt->diag)
             ? KF_OK
             : KF_ERROR_DEVICE;
}

kf_status rt_host_alloc(RtRuntime *rt, size_t bytes, unsigned flags, void **out) {
  *out = NULL;
  if (!bytes) return KF_OK;
  return OPS(rt)->host_alloc(DEV(rt), bytes, flags, out, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_host_free(RtRuntime *rt, void *p) {
  if (!p) return KF_OK;
  return OPS(rt)->host_free(DEV(rt), p, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_host_register(RtRuntime *rt, void *p, size_t bytes, unsigned flags) {
  if (!p || !bytes) {
    diag_error(rt->diag, NOLOC, "kf_host_register: no memory given");
    return KF_ERROR_INVALID_INPUT;
  }
  return OPS(rt)->host_register(DEV(rt), p, bytes, flags, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_host_unregister(RtRuntime *rt, void *p) {
  return OPS(rt)->host_unregister(DEV(rt), p, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_host_device_pointer(RtRuntime *rt, void *host, void **out) {
  uint64_t p = 0;
  *out = NULL;
  if (!OPS(rt)->host_device_pointer(DEV(rt), host, &p, rt->diag)) return KF_ERROR_DEVICE;
  *out = (void *)(uintptr_t)p;
  return KF_OK;
}

kf_status rt_memory_info(RtRuntime *rt, size_t *free_bytes, size_t *total_bytes) {
  return OPS(rt)->memory_info(DEV(rt), free_bytes, total_bytes, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

/* ---- streams and events ------------------------------------------------------------------------ */

kf_status rt_stream_create(RtRuntime *rt, RtStream **out) {
  *out = NULL;
  RtStream *s = mem_calloc(1, sizeof *s);
  if (!s) return rt_out_of_memory(rt);
  s->rt = rt;
  kf_status st = OPS(rt)->stream_create(DEV(rt), &s->handle, rt->diag);
  if (st != KF_OK) {
    mem_free(s);
    return st;
  }
  *out = s;
  return KF_OK;
}

kf_status rt_stream_wrap(RtRuntime *rt, void *handle, RtStream **out) {
  *out = NULL;
  RtStream *s = mem_calloc(1, sizeof *s);
  if (!s) return rt_out_of_memory(rt);
  s->rt = rt;
  s->handle = handle;
  s->external = true;
  *out = s;
  return KF_OK;
}

void rt_stream_destroy(RtStream *s) {
  if (!s) return;
  if (!s->external) s->rt->dev->ops->stream_destroy(s->rt->dev, s->handle);
  mem_free(s);
}

kf_status rt_stream_synchronize(RtStream *s) { return rt_stream_sync(s->rt, s); }

kf_status rt_stream_sync(RtRuntime *rt, RtStream *s) {
  return OPS(rt)->stream_synchronize(DEV(rt), rt_stream_handle(s), rt->diag);
}

kf_status rt_synchronize(RtRuntime *rt) { return OPS(rt)->synchronize(DEV(rt), rt->diag); }

kf_status rt_event_create(RtRuntime *rt, RtEvent **out) {
  *out = NULL;
  RtEvent *e = mem_calloc(1, sizeof *e);
  if (!e) return rt_out_of_memory(rt);
  e->rt = rt;
  kf_status st = OPS(rt)->event_create(DEV(rt), &e->handle, rt->diag);
  if (st != KF_OK) {
    mem_free(e);
    return st;
  }
  *out = e;
  return KF_OK;
}

void rt_event_destroy(RtEvent *e) {
  if (!e) return;
  e->rt->dev->ops->event_destroy(e->rt->dev, e->handle);
  mem_free(e);
}

kf_status rt_event_record(RtEvent *e, RtStream *s) {
  RtRuntime *rt = e->rt;
  return OPS(rt)->event_record(DEV(rt), e->handle, rt_stream_handle(s), rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_event_synchronize(RtEvent *e) {
  RtRuntime *rt = e->rt;
  return OPS(rt)->event_synchronize(DEV(rt), e->handle, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_event_elapsed_ms(RtEvent *start, RtEvent *end, float *ms) {
  RtRuntime *rt = start->rt;
  return OPS(rt)->event_elapsed_ms(DEV(rt), start->handle, end->handle, ms, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}
