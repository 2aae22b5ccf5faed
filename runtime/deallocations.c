/* deallocations.c — pending deallocations, as numba-cuda's (_PendingDeallocs of its cudadrv/driver.py): device
 * memory and pinned host memory whose last user let go wait in a queue, and are freed together when the queue holds
 * more than max_count blocks or more than max_bytes (numba-cuda's CUDA_DEALLOCS_COUNT, and CUDA_DEALLOCS_RATIO of
 * the device's memory), when the embedder flushes it, or when an allocation finds the device full (the queue is
 * flushed and the allocation tried again). While deferral is on (kf_deallocations_defer, nested: numba-cuda's
 * defer_cleanup) nothing is flushed; the queue then waits for the next flush.
 *
 * Why: a free of device memory (cuMemFree) synchronises the device, which a free per array would do at every
 * array that goes; and a kernel launched asynchronously may still be using the memory when its last reference goes.
 * A flush first waits until the device has finished all its work (every stream: ops->finish, which leaves the
 * kernels' error records for the next synchronisation to read), then frees the batch, so a block is never freed
 * while a kernel that may use it runs.
 *
 * A block waiting here is still allocated: kf_runtime_allocated counts it, and a second free of it is refused. */
#include <string.h>

#include "runtime/rt.h"
#include "utils/mem.h"

static const SrcLoc NOLOC = {0};

void rt_deallocs_init(RtDeallocs *q, size_t total_memory) {
  memset(q, 0, sizeof *q);
  pthread_mutex_init(&q->lock, NULL);
  q->max_count = 10;                          /* numba-cuda's CUDA_DEALLOCS_COUNT */
  q->max_bytes = (size_t)(total_memory * 0.2); /* and CUDA_DEALLOCS_RATIO of the device's memory */
}

void rt_deallocs_free(RtDeallocs *q) {
  mem_free(q->items);
  pthread_mutex_destroy(&q->lock);
}

/* Frees every block of the queue (taken out under its lock) after the device has finished its work. */
kf_status rt_deallocs_flush(RtRuntime *rt) {
  RtDeallocs *q = &rt->deallocs;
  pthread_mutex_lock(&q->lock);
  if (q->deferring || !q->n) {
    pthread_mutex_unlock(&q->lock);
    return KF_OK;
  }
  RtPendingFree *items = q->items;
  size_t n = q->n;
  q->items = NULL;
  q->n = q->cap = 0;
  q->bytes = 0;
  pthread_mutex_unlock(&q->lock);
  kf_status st = rt->dev->ops->finish(rt->dev, rt->diag);
  for (size_t i = 0; i < n; i++) {
    kf_status fst = items[i].host ? rt_host_free(rt, items[i].ptr) : rt_device_release(rt, items[i].ptr);
    if (st == KF_OK) st = fst;
  }
  mem_free(items);
  return st;
}

static kf_status enqueue(RtRuntime *rt, void *p, size_t bytes, bool host) {
  RtDeallocs *q = &rt->deallocs;
  pthread_mutex_lock(&q->lock);
  if (q->n == q->cap) {
    size_t cap = q->cap ? 2 * q->cap : 16;
    RtPendingFree *items = mem_realloc(q->items, cap * sizeof *items);
    if (!items) {
      pthread_mutex_unlock(&q->lock);
      return rt_out_of_memory(rt);
    }
    q->items = items;
    q->cap = cap;
  }
  q->items[q->n++] = (RtPendingFree){.ptr = p, .bytes = bytes, .host = host};
  q->bytes += bytes;
  bool full = q->n > q->max_count || q->bytes > q->max_bytes;
  pthread_mutex_unlock(&q->lock);
  return full ? rt_deallocs_flush(rt) : KF_OK;
}

kf_status rt_device_free_deferred(RtRuntime *rt, void *p) {
  if (!p) return KF_OK;
  size_t bytes;
  if (!rt_device_mark_pending(rt, p, &bytes)) {
    diag_error(rt->diag, NOLOC, "kf_device_free_deferred: %p was not allocated by this runtime (or was freed "
               "already)", p);
    return KF_ERROR_INVALID_INPUT;
  }
  kf_status st = enqueue(rt, p, bytes, false);
  if (st == KF_ERROR_OUT_OF_MEMORY) { /* no room in the queue: freed now, after the device's work */
    rt->dev->ops->finish(rt->dev, NULL);
    rt_device_release(rt, p);
  }
  return st;
}

kf_status rt_host_free_deferred(RtRuntime *rt, void *p, size_t bytes) {
  if (!p) return KF_OK;
  kf_status st = enqueue(rt, p, bytes, true);
  if (st == KF_ERROR_OUT_OF_MEMORY) {
    rt->dev->ops->finish(rt->dev, NULL);
    rt_host_free(rt, p);
  }
  return st;
}

kf_status rt_deallocs_defer(RtRuntime *rt, bool defer) {
  RtDeallocs *q = &rt->deallocs;
  pthread_mutex_lock(&q->lock);
  bool ok = defer || q->deferring > 0;
  if (ok) q->deferring += defer ? 1 : -1;
  pthread_mutex_unlock(&q->lock);
  if (!ok) {
    diag_error(rt->diag, NOLOC, "kf_deallocations_defer(0): deallocations were not being deferred");
    return KF_ERROR_INVALID_INPUT;
  }
  return KF_OK;
}

void rt_deallocs_get(RtRuntime *rt, kf_deallocations *out) {
  RtDeallocs *q = &rt->deallocs;
  pthread_mutex_lock(&q->lock);
  out->pending = q->n;
  out->pending_bytes = q->bytes;
  out->max_count = q->max_count;
  out->max_bytes = q->max_bytes;
  out->deferring = q->deferring;
  pthread_mutex_unlock(&q->lock);
}

kf_status rt_deallocs_set_limits(RtRuntime *rt, size_t max_count, size_t max_bytes) {
  RtDeallocs *q = &rt->deallocs;
  pthread_mutex_lock(&q->lock);
  q->max_count = max_count;
  q->max_bytes = max_bytes;
  bool full = q->n > q->max_count || q->bytes > q->max_bytes;
  pthread_mutex_unlock(&q->lock);
  return full ? rt_deallocs_flush(rt) : KF_OK;
}
