/* launch.c — the one launch path, for the GPU and the simulator alike:
 *   1. the argument checks against the kernel's parameters, unless these argument types (their dispatch
 *      entry) already passed them for this kernel; the fingerprint itself validated the values;
 *   2. the kernel's variant instead where its plan allows (its block shape, its arrays disjoint) and, for a
 *      grid-stride variant, where it costs no occupancy (variant_pays, below); the
 *      launch plan: the block shape the variant needs, the physical grid/block/shared bytes and the hidden
 *      parameters; then the launch configuration against the device's limits, and a cooperative kernel's grid
 *      against the blocks the device holds at once (rt_plan_fit_coop);
 *   3. host arrays staged in device memory (unless the device reads host memory: the simulator), by
 *      rt_stage_array, which host_funcs.c uses too; a device array said to be on another device, or a stream
 *      of another device, is refused (a comparison each: the launch path stays as it was);
 *   4. the parameters packed per include/kfront/abi.h into this call's own storage (launches from several
 *      threads never share it), the device's launch;
 *   5. with staged host arrays: synchronise, check the error record, copy back (also after an
 *      IndexError), free the staging; with device arrays only the launch stays asynchronous.
 * Scratch for many parameters or arguments comes from mem.h (KF_ERROR_OUT_OF_MEMORY when it cannot). */
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"
#include "utils/mem.h"

/* a launch of up to 64 parameter slots and 64 arguments allocates nothing (kf_args of tuples flattened: 16) */
enum { STACK_SLOTS = 64, STACK_ARGS = 64, STACK_FLAT = 16 };

static const SrcLoc NOLOC = {0};

bool rt_array_wrong_device(RtRuntime *rt, const kf_array *a, const char *what, unsigned index) {
  int on = a->device - 1, here = rt->dev->ordinal;
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  diag_error(rt->diag, NOLOC, "%s runs on device %d, but its argument %u is an array on device %d: copy the array "
             "to device %d first, or run %s on device %d", what, here, index + 1, on, here, what, on);
  diag_set_kind(prev);
  return false;
}

kf_status rt_stage_array_checked(RtRuntime *rt, const kf_array *a, const char *what, unsigned index, bool copy,
                                 RtStream *s, uint64_t *data, uint64_t *tmp, bool *staged) {
  *tmp = 0;
  *staged = false;
  if (!rt_array_fits(rt, a, what, index)) return KF_ERROR_INVALID_INPUT;
  return rt_stage_array(rt, a, copy, s, data, tmp, staged);
}

kf_status rt_stage_array(RtRuntime *rt, const kf_array *a, bool copy, RtStream *s, uint64_t *data, uint64_t *tmp,
                         bool *staged) {
  RtDevice *dev = rt->dev;
  *tmp = 0;
  *data = (uint64_t)(uintptr_t)a->data;
  *staged = a->memory != KF_MEMORY_DEVICE && !dev->host_is_device;
  int64_t lo, hi;
  rt_array_span(a, &lo, &hi);
  if (a->memory == KF_MEMORY_DEVICE && dev->ops->holds && hi > lo &&
      !dev->ops->holds(dev, *data + (uint64_t)lo, (size_t)(hi - lo), rt->diag))
    return KF_ERROR_DEVICE;
  if (!*staged) return KF_OK;
  if (hi == lo) return KF_OK;
  if (!dev->ops->alloc(dev, (size_t)(hi - lo), tmp, rt->diag)) return KF_ERROR_DEVICE;
  *data = *tmp - (uint64_t)lo;
  if (copy && !dev->ops->copy(dev, RT_COPY_HTOD, (void *)(uintptr_t)*tmp, (const char *)a->data + lo,
                              (size_t)(hi - lo), rt_stream_handle(s), rt->diag))
    return KF_ERROR_DEVICE;
  return KF_OK;
}

kf_status rt_stage_copy_back(RtRuntime *rt, const kf_array *a, uint64_t tmp, RtStream *s) {
  if (!tmp) return KF_OK;
  int64_t lo, hi;
  rt_array_span(a, &lo, &hi);
  return rt->dev->ops->copy(rt->dev, RT_COPY_DTOH, (char *)a->data + lo, (void *)(uintptr_t)tmp, (size_t)(hi - lo),
                            rt_stream_handle(s), rt->diag)
             ? KF_OK
             : KF_ERROR_DEVICE;
}

void rt_stage_free(RtRuntime *rt, uint64_t tmp) {
  if (tmp) rt->dev->ops->free(rt->dev, tmp, NULL);
}

/* Host arrays of args copied to device memory: data[i] is the device address of argument i's element
 * [0, ...] (for every array), tmp[i] the staging allocation to free (0 if none). Device arrays of another
 * device are refused (`what`: the kernel's name). */
static kf_status stage_in(RtRuntime *rt, const char *what, const kf_arg *args, unsigned nargs, uint64_t *data,
                          uint64_t *tmp, bool *staged) {
  for (unsigned i = 0; i < nargs; i++) {
    tmp[i] = data[i] = 0;
    if (args[i].kind != KF_ARG_ARRAY) continue;
    bool host;
    kf_status st = rt_stage_array_checked(rt, &args[i].array, what, i, true, NULL, &data[i], &tmp[i], &host);
    *staged |= host;
    if (st != KF_OK) return st;
  }
  return KF_OK;
}

static kf_status stage_out(RtRuntime *rt, const kf_arg *args, unsigned nargs, const uint64_t *tmp) {
  kf_status st = KF_OK;
  for (unsigned i = 0; i < nargs; i++) {
    kf_status back = tmp[i] ? rt_stage_copy_back(rt, &args[i].array, tmp[i], NULL) : KF_OK;
    if (st == KF_OK) st = back;
  }
  return st;
}

/* Fills the hidden parameters' slots (the last nhidden parameters are scalars: one slot each). */
static void pack_hidden(const RtKernel *k, const int64_t *hidden, uint64_t *storage) {
  unsigned first = k->nslots - k->plan.nhidden;
  for (unsigned i = 0; i < k->plan.nhidden; i++) {
    kf_arg v = {.kind = KF_ARG_SCALAR, .dtype = KF_INT64};
    v.value.i = hidden[i];
    storage[first + i] = 0;
    rt_convert_scalar(&v, k->params[k->nuser + i], &storage[first + i]);
  }
}

/* The block shape the variant needs, then the user's launch against the device's limits. */
static bool check_configuration(RtRuntime *rt, const RtKernel *k, const RtLaunchShape *user) {
  const char *name = k->f->name;
  DiagKind prev = diag_set_kind(DIAG_KIND_LAUNCH_CONFIG);
  bool ok = rt_plan_block_fits(&k->plan, user->block);
  if (!ok)
    diag_error(rt->diag, NOLOC, "invalid launch of %s: this variant was compiled for blocks of (%u, %u, %u) threads, "
               "not (%u, %u, %u)", name, k->plan.required_block[0], k->plan.required_block[1],
               k->plan.required_block[2], user->block[0], user->block[1], user->block[2]);
  else
    ok = rt_check_launch(&rt->limits, name, user->grid, user->block, k->fn.static_shared, user->shared,
                         k->fn.max_threads, rt->diag);
  diag_set_kind(prev);
  return ok;
}

static kf_status launch_flat(RtKernel *k, const RtLaunchShape *user, RtStream *stream, const kf_arg *args,
                             unsigned nargs, RtDispatchEntry *entry);

bool rt_grid_stride_pays(unsigned plain_blocks, unsigned variant_blocks, size_t plain_static_shared,
                         size_t variant_static_shared) {
  /* a variant with shared memory of its own (privatised atomics) bought it on purpose: it pays beyond occupancy */
  if (variant_static_shared != plain_static_shared) return true;
  return variant_blocks >= plain_blocks;
}

/* Whether k's variant v runs this launch instead of k, beyond its plan's block and disjointness: a grid-stride
 * variant of a plain kernel (passes/grid_stride.c, variant=1) only where, at the user's block and dynamic shared
 * memory, the device holds as many of its blocks per SM as of the plain kernel's (the driver's occupancy, from
 * each function's registers; the simulator's are equal, so it runs the grid-stride form). Both answers are
 * memoised per kernel (rt_plan_resident_blocks). */
static bool variant_pays(RtRuntime *rt, RtKernel *k, RtKernel *v, const RtLaunchShape *user) {
  if (v->plan.grid != RT_GRID_RESIDENT || k->plan.grid == RT_GRID_RESIDENT) return true;
  uint64_t t = (uint64_t)user->block[0] * user->block[1] * user->block[2];
  if (t == 0 || t > rt->limits.max_threads_per_block) return true;  /* check_configuration reports it */
  unsigned threads = (unsigned)t;
  unsigned kb = rt_plan_resident_blocks(rt->dev, &k->fn, threads, user->shared + k->plan.dynamic_shared,
                                        &k->resident_memo);
  unsigned vb = rt_plan_resident_blocks(rt->dev, &v->fn, threads, user->shared + v->plan.dynamic_shared,
                                        &v->resident_memo);
  return rt_grid_stride_pays(kb, vb, k->fn.static_shared, v->fn.static_shared);
}

kf_status rt_launch(RtKernel *k, const RtLaunchShape *user, RtStream *stream, const kf_arg *args, unsigned nargs,
                    RtDispatchEntry *entry) {
  RtRuntime *rt = k->f->p->rt;
  if (nargs && !args) {
    diag_error(rt->diag, NOLOC, "kf_launch: %u arguments announced but none given", nargs);
    return KF_ERROR_INVALID_INPUT;
  }
  kf_status setup = rt_kernel_setup(k);  /* the module's setup callback before its first launch */
  if (setup != KF_OK) return setup;
  if (!entry) {
    RtFingerprint fp;
    if (!rt_fingerprint(args, nargs, &fp, rt->diag)) return KF_ERROR_INVALID_INPUT;
    entry = rt_dispatch_find(&k->f->dispatch, &fp);
  }
  /* tuple arguments from here on as their elements: the kernel's parameters */
  kf_arg flat_stack[STACK_FLAT], *flat = NULL;
  if (rt_args_need_flattening(args, nargs)) {
    kf_status fs = rt_flatten_args(args, nargs, flat_stack, STACK_FLAT, &flat, &nargs, rt->diag);
    if (fs != KF_OK) return fs == KF_ERROR_OUT_OF_MEMORY ? rt_out_of_memory(rt) : fs;
    args = flat;
  }
  kf_status st = launch_flat(k, user, stream, args, nargs, entry);
  if (flat && flat != flat_stack) mem_free(flat);
  return st;
}

/* rt_launch of arguments without tuples. */
static kf_status launch_flat(RtKernel *k, const RtLaunchShape *user, RtStream *stream, const kf_arg *args,
                             unsigned nargs, RtDispatchEntry *entry) {
  RtRuntime *rt = k->f->p->rt;
  RtDevice *dev = rt->dev;
  const char *name = k->f->name;
  bool trusted = entry && entry->kernel == k && atomic_load_explicit(&entry->checked, memory_order_acquire);
  if (!trusted) {
    DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
    bool ok = rt_check_args(name, k->params, k->nuser, args, nargs, k->f->specialized, rt->diag);
    diag_set_kind(prev);
    if (!ok) return KF_ERROR_INVALID_INPUT;
    if (entry && entry->kernel == k) atomic_store_explicit(&entry->checked, true, memory_order_release);
  }
  /* the variant where its block shape is the user's and the arrays it stages do not overlap those written
   * (same parameters: the checks above hold for it), a grid-stride one where it costs no occupancy */
  if (k->variant && rt_plan_block_fits(&k->variant->plan, user->block) &&
      rt_plan_args_disjoint(&k->variant->plan, args, nargs) && variant_pays(rt, k, k->variant, user))
    k = k->variant;
  if (!check_configuration(rt, k, user)) return KF_ERROR_INVALID_INPUT;
  if (stream && !rt_stream_fits(rt, stream, name)) return KF_ERROR_INVALID_INPUT;
  RtLaunchShape phys;
  int64_t hidden[RT_PLAN_MAX_HIDDEN];
  rt_plan_apply(&k->plan, user, dev, &k->fn, &k->resident_memo, &phys, hidden);
  if (!rt_plan_fit_coop(&k->plan, &phys, dev, &k->fn, &k->resident_memo, name, rt->diag)) return KF_ERROR_INVALID_INPUT;

  uint64_t stack_storage[STACK_SLOTS], stack_data[STACK_ARGS], stack_tmp[STACK_ARGS];
  void *stack_ptrs[STACK_SLOTS];
  bool big = k->nslots > STACK_SLOTS, many = nargs > STACK_ARGS;
  uint64_t *storage = big ? mem_calloc(k->nslots, sizeof *storage) : stack_storage;
  void **ptrs = big ? mem_calloc(k->nslots, sizeof *ptrs) : stack_ptrs;
  uint64_t *data = many ? mem_calloc(nargs, sizeof *data) : stack_data;
  uint64_t *tmp = many ? mem_calloc(nargs, sizeof *tmp) : stack_tmp;
  kf_status st = KF_OK;
  bool staged = false;
  DiagKind prev = diag_set_kind(DIAG_KIND_DEVICE);  /* from here on: the device's errors and the kernel's */
  if (!storage || !ptrs || !data || !tmp) {
    st = rt_out_of_memory(rt);
  } else {
    memset(tmp, 0, sizeof *tmp * nargs);
    st = stage_in(rt, name, args, nargs, data, tmp, &staged);
  }
  if (st == KF_OK) {
    RtParams packed = {.nslots = k->nslots, .ptrs = ptrs, .storage = storage};
    for (unsigned i = 0; i < k->nslots; i++) ptrs[i] = &storage[i];
    rt_params_pack(&packed, k->params, k->nuser, args, data);
    pack_hidden(k, hidden, storage);
    void *s = rt_stream_handle(stream);
    st = dev->ops->launch(dev, &k->fn, phys.grid, phys.block, phys.shared, s, ptrs, k->nslots, rt->diag);
    atomic_fetch_add_explicit(&rt->launches, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&k->launches, 1, memory_order_relaxed);
    if (st == KF_OK && staged) {
      /* a launch with host arrays completes here, as in Numba: synchronise, check, copy back */
      st = dev->ops->stream_synchronize(dev, s, rt->diag);
      if (st == KF_OK || st == KF_ERROR_OUT_OF_BOUNDS) {
        kf_status back = stage_out(rt, args, nargs, tmp);
        if (st == KF_OK) st = back;
      }
    }
  }
  for (unsigned i = 0; tmp && data && storage && ptrs && i < nargs; i++)
    rt_stage_free(rt, tmp[i]);
  diag_set_kind(prev);
  if (big) {
    mem_free(storage);
    mem_free(ptrs);
  }
  if (many) {
    mem_free(data);
    mem_free(tmp);
  }
  return st;
}
