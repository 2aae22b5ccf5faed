/* runtime.c — RtRuntime: the device a runtime launches on (the GPU through the driver, or the simulator,
 * chosen at creation from the options alone: the library reads no environment), its limits, the
 * compiled-kernel cache, the default pipeline; device memory (tracked, so the runtime frees what is left),
 * copies, memset, pinned host memory, streams and events — each a call into the device interface.
 * Out of memory, each returns KF_ERROR_OUT_OF_MEMORY after rt_out_of_memory reported it (rt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/rt.h"
#include "utils/mem.h"

static const SrcLoc NOLOC = {0};

kf_status rt_out_of_memory(RtRuntime *rt) {
  diag_out_of_memory(rt->diag);
  return KF_ERROR_OUT_OF_MEMORY;
}

/* Opens the GPU; in AUTO mode a missing driver or device is not an error: the reason goes into the
 * description and the simulator is used. NULL when it cannot: *oom says whether for lack of memory. */
static RtDevice *open_device(RtRuntime *rt, const kf_runtime_options *o, bool *oom) {
  *oom = false;
  kf_runtime_mode mode = o->mode;
  if (mode != KF_RUNTIME_SIM) {
    Diag quiet;
    diag_init(&quiet);
    RtDevice *d = rt_device_gpu_open(o->libcuda_path, o->device, mode == KF_RUNTIME_GPU ? rt->diag : &quiet);
    if (d) {
      sb_printf(&rt->describe, "GPU %d: %s (sm_%u, %d SMs)", o->device, d->info.name, d->arch,
                d->info.multiprocessors);
    } else if (mode == KF_RUNTIME_AUTO) {
      size_t n = quiet.text.len;
      const char *why = diag_text(&quiet);
      if (strncmp(why, "kfront: error: ", 15) == 0) why += 15, n -= 15;
      while (n && why[n - 1] == '\n') n--;
      sb_printf(&rt->describe, "simulator (%.*s)", (int)n, why);
    }
    diag_free(&quiet);
    if (d || mode == KF_RUNTIME_GPU) return d;
  }
  SimOptions so;
  sim_options_init(&so);
  so.detect_races = o->sim_detect_races != 0;
  so.nworkers = o->sim_workers;
  if (o->sim_max_steps) { /* one thread may take the whole launch's steps when they are more than its own limit */
    so.max_steps = o->sim_max_steps;
    if (o->sim_max_steps > so.max_thread_steps) so.max_thread_steps = o->sim_max_steps;
  }
  if (o->sim_max_seconds > 0) so.max_seconds = o->sim_max_seconds;
  if (!rt->describe.len) sb_puts(&rt->describe, "simulator");
  RtDevice *d = rt_device_sim_open(&so, rt->diag);
  *oom = !d;  /* the simulator fails to open only for lack of memory */
  return d;
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
  bool oom;
  rt->dev = open_device(rt, o, &oom);
  if (rt->dev && sb_failed(&rt->describe)) {
    rt->dev->ops->close(rt->dev);
    rt->dev = NULL;
    oom = true;
    diag_out_of_memory(diag);
  }
  if (!rt->dev) {
    bool found = !oom && rt_cuda(o->libcuda_path, NULL) != NULL;
    sb_free(&rt->describe);
    mem_free(rt);
    return oom ? KF_ERROR_OUT_OF_MEMORY : found ? KF_ERROR_DEVICE : KF_ERROR_NOT_FOUND;
  }
  pthread_mutex_init(&rt->lock, NULL);
  pthread_mutex_init(&rt->scratch_lock, NULL);
  rt_limits_from_info(&rt->limits, &rt->dev->info);
  rt->backend = o->backend;
  rt->backend_chosen = o->backend != KF_BACKEND_AUTO;
  snprintf(rt->pipeline, sizeof rt->pipeline, "%s%s", PASS_DEFAULT_PIPELINE, o->grid_stride ? ",grid-stride" : "");
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

kf_status rt_device_alloc(RtRuntime *rt, size_t bytes, void **out) {
  *out = NULL;
  if (!bytes) return KF_OK;
  uint64_t p = 0;
  if (!OPS(rt)->alloc(DEV(rt), bytes, &p, rt->diag)) return KF_ERROR_DEVICE;
  pthread_mutex_lock(&rt->lock);
  bool ok = ptrmap_put(&rt->allocations, (void *)(uintptr_t)p, (void *)1);
  pthread_mutex_unlock(&rt->lock);
  if (!ok) {
    OPS(rt)->free(DEV(rt), p, NULL);
    return rt_out_of_memory(rt);
  }
  *out = (void *)(uintptr_t)p;
  return KF_OK;
}

kf_status rt_device_free(RtRuntime *rt, void *p) {
  if (!p) return KF_OK;
  pthread_mutex_lock(&rt->lock);
  bool known = ptrmap_get(&rt->allocations, p) != NULL;
  if (known) ptrmap_put(&rt->allocations, p, NULL);
  pthread_mutex_unlock(&rt->lock);
  if (!known) {
    diag_error(rt->diag, NOLOC, "kf_device_free: %p was not allocated by this runtime (or was freed already)", p);
    return KF_ERROR_INVALID_INPUT;
  }
  return OPS(rt)->free(DEV(rt), (uint64_t)(uintptr_t)p, rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_copy(RtRuntime *rt, RtCopyKind kind, void *dst, const void *src, size_t bytes, RtStream *s) {
  if (!bytes) return KF_OK;
  return OPS(rt)->copy(DEV(rt), kind, dst, src, bytes, rt_stream_handle(s), rt->diag) ? KF_OK : KF_ERROR_DEVICE;
}

kf_status rt_memset(RtRuntime *rt, void *dst, int value, size_t bytes, RtStream *s) {
  if (!bytes) return KF_OK;
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
