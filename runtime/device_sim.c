/* device_sim.c — the device interface (device.h) over the simulator (runtime/sim): "device memory" is host
 * memory, copies are memmove, streams and events are markers (launches run to completion in order, so a
 * stream orders nothing; an event records host time), a module is the kir Module itself (a SimProgram over
 * it), and a launch unpacks the parameters packed per include/kfront/abi.h back into simulator arguments
 * by the kernel's kir parameter types, so it goes through the same packing as the GPU.
 *
 * Several devices: each simulated device (kf_runtime_options.sim_devices) is an RtDevice of its own ordinal over
 * the same host memory; a peer copy is a memmove, and devices 2k and 2k+1 are peers (others are staged by
 * runtime.c), so both copy paths run without a GPU. Which device memory belongs to is the runtime's business
 * (kf_array.device), not the memory's.
 *
 * Kernel errors (IndexError, races, barrier divergence, unchecked out-of-bounds accesses, the step limit)
 * are reported by the launch itself: the first error first, then each other kind that also happened.
 *
 * Memory: the "device memory" and "pinned host memory" the simulator hands out stand in for the GPU's, so they
 * come from the system allocator (mem_system_alloc), outside the context's allocator; everything else (the
 * device, modules, streams, events, a launch's scratch, the simulator's own state) comes from mem.h and runs
 * out as KF_ERROR_OUT_OF_MEMORY. Every block handed out (and host memory registered) is kept in one registry for
 * all simulated devices, so that an address no allocation holds — a freed block, a pointer a
 * __cuda_array_interface__ made up — is refused (sim_holds: launches, copies, memsets) where a GPU would fault
 * with an illegal address, instead of being dereferenced by this process; the registry also answers
 * kf_pointer_range. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir/op_semantics.h"
#include "runtime/device.h"
#include "runtime/runtime.h"
#include "runtime/sim/sim.h"
#include "utils/mem.h"

struct RtDevModule {
  Module *kir;           /* borrowed: the program's module */
  SimProgram *sim;
  pthread_mutex_t lock;  /* a SimProgram runs one launch at a time */
};

enum { SETTING_MAX = 160 };

typedef struct Sim {
  RtDevice base;
  SimOptions opts;                  /* under opts_lock: kf_runtime_set_sim_limits changes them */
  pthread_mutex_t opts_lock;
  char steps_setting[SETTING_MAX];  /* opts.steps_setting and seconds_setting, when the embedder set them */
  char seconds_setting[SETTING_MAX];
} Sim;

typedef struct SimEvent {
  struct timespec when;
} SimEvent;

static const SrcLoc NOLOC = {0};

/* ---- the registry of simulated device memory ------------------------------------------------------------ */

typedef struct SimBlock {
  uint64_t base, end; /* [base, end) */
} SimBlock;

static struct {
  pthread_mutex_t lock;
  SimBlock *blocks;      /* sorted by base, disjoint */
  size_t n, cap;
} registry = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* The index of the first block whose base is above addr (under the lock). */
static size_t blocks_above(uint64_t addr) {
  size_t lo = 0, hi = registry.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (registry.blocks[mid].base <= addr) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static bool registry_add(uint64_t base, size_t bytes) {
  pthread_mutex_lock(&registry.lock);
  bool ok = true;
  if (registry.n == registry.cap) {
    /* process-wide, like the memory it describes: outside any context's allocator and guard */
    size_t cap = registry.cap ? 2 * registry.cap : 64;
    SimBlock *b = mem_system_alloc(16, cap * sizeof *b);
    if (b) {
      if (registry.n) memcpy(b, registry.blocks, registry.n * sizeof *b);
      mem_system_free(registry.blocks);
      registry.blocks = b;
      registry.cap = cap;
    } else {
      ok = false;
    }
  }
  if (ok) {
    size_t i = blocks_above(base);
    memmove(&registry.blocks[i + 1], &registry.blocks[i], (registry.n - i) * sizeof *registry.blocks);
    registry.blocks[i] = (SimBlock){base, base + (bytes ? bytes : 1)};
    registry.n++;
  }
  pthread_mutex_unlock(&registry.lock);
  return ok;
}

static void registry_remove(uint64_t base) {
  pthread_mutex_lock(&registry.lock);
  size_t i = blocks_above(base);
  if (i && registry.blocks[i - 1].base == base) {
    memmove(&registry.blocks[i - 1], &registry.blocks[i], (registry.n - i) * sizeof *registry.blocks);
    registry.n--;
  }
  pthread_mutex_unlock(&registry.lock);
}

/* The block holding every byte of [lo, hi) (hi > lo), into *out; false when none does. */
static bool registry_find(uint64_t lo, uint64_t hi, SimBlock *out) {
  pthread_mutex_lock(&registry.lock);
  size_t i = blocks_above(lo);
  bool ok = i && hi >= lo && hi <= registry.blocks[i - 1].end;
  if (ok) *out = registry.blocks[i - 1];
  pthread_mutex_unlock(&registry.lock);
  return ok;
}

/* Whether [ptr, ptr + bytes) is memory the simulator handed out (or host memory registered); reported when not. */
static bool sim_holds(RtDevice *d, uint64_t ptr, size_t bytes, Diag *diag) {
  (void)d;
  SimBlock b;
  if (!bytes || (ptr + bytes > ptr && registry_find(ptr, ptr + bytes, &b))) return true;
  DiagKind prev = diag_set_kind(DIAG_KIND_DEVICE);
  diag_error(diag, NOLOC, "the %zu bytes at 0x%llx are not memory of the simulated device (never allocated by "
             "kfront, or freed already): a GPU would fault on them (an illegal address), the simulator refuses them",
             bytes, (unsigned long long)ptr);
  diag_set_kind(prev);
  return false;
}

static void sim_close(RtDevice *d) {
  pthread_mutex_destroy(&((Sim *)d)->opts_lock);
  mem_free(d);
}

void rt_sim_limits(SimOptions *o, uint64_t max_steps, double max_seconds) {
  SimOptions defaults;
  sim_options_init(&defaults);
  /* one thread may take the whole launch's steps when they are more than its own limit */
  o->max_steps = max_steps ? max_steps : defaults.max_steps;
  o->max_thread_steps = max_steps > defaults.max_thread_steps ? max_steps : defaults.max_thread_steps;
  o->max_seconds = max_seconds > 0 ? max_seconds : 0;
}

static const char *keep_setting(char *buf, const char *setting, const char *fallback) {
  if (!setting) return fallback;
  snprintf(buf, SETTING_MAX, "%s", setting);
  return buf;
}

void rt_device_sim_set_limits(RtDevice *d, uint64_t max_steps, double max_seconds, const char *steps_setting,
                              const char *seconds_setting) {
  Sim *s = (Sim *)d;
  pthread_mutex_lock(&s->opts_lock);
  rt_sim_limits(&s->opts, max_steps, max_seconds);
  s->opts.steps_setting = keep_setting(s->steps_setting, steps_setting, SIM_STEPS_SETTING);
  s->opts.seconds_setting = keep_setting(s->seconds_setting, seconds_setting, SIM_SECONDS_SETTING);
  pthread_mutex_unlock(&s->opts_lock);
}

/* The options of a launch starting now: a copy of the device's (their settings' text copied too, into the
 * caller's buffers, so that a concurrent rt_device_sim_set_limits changes nothing under the launch). */
/* SimOptions.holds: whether [addr, addr + bytes) lies in one block of the registry (what a kernel may reach through a
 * pointer it was handed). */
static bool registry_holds(void *user, uint64_t addr, size_t bytes) {
  (void)user;
  SimBlock b;
  return bytes && addr + bytes > addr && registry_find(addr, addr + bytes, &b);
}

static void launch_options(Sim *s, SimOptions *o, char steps[SETTING_MAX], char seconds[SETTING_MAX]) {
  pthread_mutex_lock(&s->opts_lock);
  *o = s->opts;
  snprintf(steps, SETTING_MAX, "%s", s->opts.steps_setting ? s->opts.steps_setting : SIM_STEPS_SETTING);
  snprintf(seconds, SETTING_MAX, "%s", s->opts.seconds_setting ? s->opts.seconds_setting : SIM_SECONDS_SETTING);
  pthread_mutex_unlock(&s->opts_lock);
  o->steps_setting = steps;
  o->seconds_setting = seconds;
  o->interrupt = rt_interrupt_flag();
  o->holds = registry_holds;
  o->holds_user = NULL;
}

static bool sim_alloc(RtDevice *d, size_t bytes, uint64_t *out, Diag *diag) {
  void *h = mem_system_alloc(256, bytes);
  if (!h) {
    DiagKind prev = diag_set_kind(DIAG_KIND_OUT_OF_MEMORY);
    diag_error(diag, NOLOC, "out of memory allocating %zu bytes of (simulated) device memory", bytes);
    diag_set_kind(prev);
    return false;
  }
  if (!registry_add((uint64_t)(uintptr_t)h, bytes)) {
    mem_system_free(h);
    diag_out_of_memory(diag);
    return false;
  }
  *out = (uint64_t)(uintptr_t)h;
  return true;
}

/* The simulator's device memory is host memory, which the host reads and writes as it is: managed already. */
static kf_status sim_alloc_managed(RtDevice *d, size_t bytes, unsigned flags, uint64_t *out, Diag *diag) {
  return sim_alloc(d, bytes, out, diag) ? KF_OK : KF_ERROR_DEVICE;
}

static kf_status sim_pointer_range(RtDevice *d, uint64_t ptr, uint64_t *base, size_t *bytes, Diag *diag) {
  SimBlock b;
  if (!registry_find(ptr, ptr + 1, &b)) {
    diag_error(diag, NOLOC, "0x%llx is not an address of the simulated device's memory (never allocated by kfront, "
               "or freed already)", (unsigned long long)ptr);
    return KF_ERROR_INVALID_INPUT;
  }
  *base = b.base;
  *bytes = (size_t)(b.end - b.base);
  return KF_OK;
}

static bool sim_free(RtDevice *d, uint64_t p, Diag *diag) {
  registry_remove(p);
  mem_system_free((void *)(uintptr_t)p);
  return true;
}

static bool sim_copy(RtDevice *d, RtCopyKind kind, void *dst, const void *src, size_t bytes, void *stream, Diag *diag) {
  if ((kind != RT_COPY_DTOH && !sim_holds(d, (uint64_t)(uintptr_t)dst, bytes, diag)) ||
      (kind != RT_COPY_HTOD && !sim_holds(d, (uint64_t)(uintptr_t)src, bytes, diag)))
    return false;
  memmove(dst, src, bytes);
  return true;
}

static bool sim_memset(RtDevice *d, uint64_t dst, int value, size_t bytes, void *stream, Diag *diag) {
  if (!sim_holds(d, dst, bytes, diag)) return false;
  memset((void *)(uintptr_t)dst, value, bytes);
  return true;
}

static bool sim_host_alloc(RtDevice *d, size_t bytes, unsigned flags, void **out, Diag *diag) {
  uint64_t p;
  if (!sim_alloc(d, bytes, &p, diag)) return false;
  *out = (void *)(uintptr_t)p;
  return true;
}

static bool sim_host_free(RtDevice *d, void *p, Diag *diag) {
  registry_remove((uint64_t)(uintptr_t)p);
  mem_system_free(p);
  return true;
}

/* Registered host memory is the device's to read and write (mapped), as pinned memory is. */
static bool sim_host_register(RtDevice *d, void *p, size_t bytes, unsigned flags, Diag *diag) {
  if (registry_add((uint64_t)(uintptr_t)p, bytes)) return true;
  diag_out_of_memory(diag);
  return false;
}

static bool sim_host_unregister(RtDevice *d, void *p, Diag *diag) {
  registry_remove((uint64_t)(uintptr_t)p);
  return true;
}

static bool sim_host_device_pointer(RtDevice *d, void *host, uint64_t *out, Diag *diag) {
  *out = (uint64_t)(uintptr_t)host;
  return true;
}

static bool sim_memory_info(RtDevice *d, size_t *free_bytes, size_t *total_bytes, Diag *diag) {
  long page = sysconf(_SC_PAGESIZE), total = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES);
  *total_bytes = page > 0 && total > 0 ? (size_t)page * (size_t)total : 0;
  *free_bytes = page > 0 && avail > 0 ? (size_t)page * (size_t)avail : 0;
  return true;
}

static kf_status out_of_memory(Diag *diag) {
  diag_out_of_memory(diag);
  return KF_ERROR_OUT_OF_MEMORY;
}

/* A stream is a distinct non-NULL marker (NULL is the default stream). */
static kf_status sim_stream_create(RtDevice *d, void **out, Diag *diag) {
  *out = mem_alloc(1);
  return *out ? KF_OK : out_of_memory(diag);
}

static void sim_stream_destroy(RtDevice *d, void *s) { mem_free(s); }
static kf_status sim_stream_synchronize(RtDevice *d, void *s, Diag *diag) { return KF_OK; }
static kf_status sim_synchronize(RtDevice *d, Diag *diag) { return KF_OK; }
static kf_status sim_finish(RtDevice *d, Diag *diag) { return KF_OK; }  /* launches ran to completion */

static kf_status sim_event_create(RtDevice *d, void **out, Diag *diag) {
  *out = mem_calloc(1, sizeof(SimEvent));
  return *out ? KF_OK : out_of_memory(diag);
}

static void sim_event_destroy(RtDevice *d, void *e) { mem_free(e); }

static bool sim_event_record(RtDevice *d, void *e, void *s, Diag *diag) {
  clock_gettime(CLOCK_MONOTONIC, &((SimEvent *)e)->when);
  return true;
}

static bool sim_event_synchronize(RtDevice *d, void *e, Diag *diag) { return true; }

static bool sim_event_elapsed_ms(RtDevice *d, void *start, void *end, float *ms, Diag *diag) {
  const struct timespec *a = &((SimEvent *)start)->when, *b = &((SimEvent *)end)->when;
  *ms = (float)((double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6);
  return true;
}

static kf_status sim_load(RtDevice *d, Module *kir, const char *ptx, RtDevModule **out, Diag *diag) {
  *out = NULL;
  RtDevModule *m = mem_calloc(1, sizeof *m);
  if (!m) return out_of_memory(diag);
  m->kir = kir;
  bool oom;
  m->sim = sim_program_new(kir, diag, &oom);
  if (!m->sim) {
    mem_free(m);
    return oom ? KF_ERROR_OUT_OF_MEMORY : KF_ERROR_UNSUPPORTED;
  }
  pthread_mutex_init(&m->lock, NULL);
  *out = m;
  return KF_OK;
}

static void sim_unload(RtDevice *d, RtDevModule *m) {
  if (!m) return;
  sim_program_free(m->sim);
  pthread_mutex_destroy(&m->lock);
  mem_free(m);
}

static void sim_module_handles(RtDevice *d, RtDevModule *m, void **module, void **library) {
  *module = m;
  *library = NULL;
}

static kf_status sim_function(RtDevice *d, RtDevModule *m, const char *entry, Op *func, RtDevFunction *out,
                              Diag *diag) {
  memset(out, 0, sizeof *out);
  out->module = m;
  out->handle = func;
  out->max_threads = rt_kir_launch_bound(func); /* as a GPU's driver, its launch_bounds' (0: none) */
  if (!rt_kir_static_shared(m->kir, func, &out->static_shared)) {
    diag_out_of_memory(diag);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  return KF_OK;
}

/* The simulator runs kir: no registers, no local-memory frame (not known: -1); the shared and constant arrays the
 * kernel declares; the block limit of its launch_bounds, else the device's. */
static kf_status sim_function_attributes(RtDevice *d, RtDevFunction *fn, kf_kernel_attributes *out, Diag *diag) {
  size_t consts = 0;
  if (!rt_kir_static_bytes(fn->module->kir, fn->handle, "const", &consts)) return out_of_memory(diag);
  out->regs_per_thread = -1;
  out->local_bytes = -1;
  out->shared_bytes = (int64_t)fn->static_shared;
  out->const_bytes = (int64_t)consts;
  out->max_threads_per_block = fn->max_threads ? (int64_t)fn->max_threads : d->info.max_threads_per_block;
  return KF_OK;
}

/* The blocks the simulated device holds at once (a cooperative launch's limit, a grid-stride launch's grid): by
 * the occupancy of its multiprocessors, as a GPU's (rt_limits_sim). */
static unsigned sim_resident_blocks(RtDevice *d, RtDevFunction *fn, unsigned threads, size_t shared) {
  RtLimits l;
  rt_limits_sim(&l);
  return rt_limits_resident_blocks(&l, threads, shared + fn->static_shared);
}

/* One packed scalar slot as a simulator argument, by its kir type. */
static SimArg unpack_scalar(const Type *t, const void *slot) {
  if (t->kind == TY_FLOAT) {
    if (t->bits == 16) {
      uint16_t h;
      memcpy(&h, slot, sizeof h);
      return sim_arg_float(sem_narrow_value(sem_ty(t), h));
    }
    if (t->bits == 32) {
      float f;
      memcpy(&f, slot, sizeof f);
      return sim_arg_float(f);
    }
    double f;
    memcpy(&f, slot, sizeof f);
    return sim_arg_float(f);
  }
  if (t->kind == TY_BOOL) return sim_arg_int(*(const uint8_t *)slot != 0);
  uint64_t raw = 0;
  size_t n = ty_size(t);
  memcpy(&raw, slot, n > sizeof raw ? sizeof raw : n);
  if (t->kind == TY_INT && !t->is_unsigned && n < 8) {
    unsigned shift = 64 - 8 * (unsigned)n;
    return sim_arg_int((int64_t)(raw << shift) >> shift);
  }
  if (t->kind == TY_INT && !t->is_unsigned) return sim_arg_int((int64_t)raw);
  return sim_arg_uint(raw);
}

/* Reports one simulator message (without its own "error: " prefix), located when loc is known. */
static void report(Diag *diag, const char *msg, SrcLoc loc) {
  if (!msg || !*msg) return;
  if (strncmp(msg, "error: ", 7) == 0) msg += 7;
  diag_error(diag, loc, "%s", msg);
}

static kf_status sim_launch_fn(RtDevice *d, RtDevFunction *fn, const unsigned grid[3], const unsigned block[3],
                               size_t shared, void *stream, void **params, unsigned nparams, Diag *diag) {
  Sim *s = (Sim *)d;
  Op *func = fn->handle;
  unsigned n;
  Type *const *types = rt_kir_params(func, &n);
  SimArg stack_args[16];
  unsigned nsim = 0;  /* the simulator's parameters: a complex one is two floats, as lower-complex passes it */
  for (unsigned i = 0; i < n; i++) nsim += types[i]->kind == TY_COMPLEX ? 2 : 1;
  SimArg *args = nsim <= 16 ? stack_args : mem_calloc(nsim, sizeof *args);
  SimResult *res = mem_calloc(1, sizeof *res);
  if (!args || !res) {
    if (args != stack_args) mem_free(args);
    mem_free(res);
    return out_of_memory(diag);
  }
  unsigned slot = 0, ai = 0;
  for (unsigned i = 0; i < n; i++) {
    const Type *t = types[i];
    if (t->kind == TY_COMPLEX) {
      args[ai++] = unpack_scalar(t->elem, params[slot++]);
      args[ai++] = unpack_scalar(t->elem, params[slot++]);
    } else if (ty_abi_rank(t)) { /* an array; a record, as an array of one */
      SimArray *a = &args[ai].array;
      args[ai++].kind = SIM_ARG_ARRAY;
      a->data = (void *)(uintptr_t)*(const uint64_t *)params[slot++];
      a->elem = ty_abi_elem((Type *)t);
      a->rank = ty_abi_rank(t);
      for (unsigned k = 0; k < a->rank; k++) a->shape[k] = *(const int64_t *)params[slot++];
      for (unsigned k = 0; k < a->rank; k++) a->strides[k] = *(const int64_t *)params[slot++];
    } else {
      args[ai++] = unpack_scalar(t, params[slot++]);
    }
  }
  uint32_t g[3] = {grid[0], grid[1], grid[2]}, b[3] = {block[0], block[1], block[2]};
  SimOptions opts;
  char steps_setting[SETTING_MAX], seconds_setting[SETTING_MAX];
  launch_options(s, &opts, steps_setting, seconds_setting);
  pthread_mutex_lock(&fn->module->lock);
  bool ok = slot == nparams && sim_program_launch(fn->module->sim, func, g, b, shared, args, nsim, &opts, res, diag);
  pthread_mutex_unlock(&fn->module->lock);
  kf_status st = KF_OK;
  if (slot != nparams) {
    diag_error(diag, NOLOC, "internal error: %u parameter slots packed for a kernel taking %u", nparams, slot);
    st = KF_ERROR_INTERNAL;
  } else if (!ok) {
    if (res->status == SIM_ERR_SETUP) {
      st = KF_ERROR_INVALID_INPUT;
    } else if (res->status == SIM_ERR_NOMEM) {
      st = KF_ERROR_OUT_OF_MEMORY;  /* reported by the simulator */
    } else {
      bool record = res->status == SIM_ERR_INDEX || res->status == SIM_ERR_RAISE;
      st = record ? KF_ERROR_OUT_OF_BOUNDS : KF_ERROR_DEVICE;
      const SimIndexError *e = &res->index_error;
      if (record && e->kind == KF_ERROR_RAISE) {
        rt_report_raised(diag, e->kernel, e->loc.file, e->loc.line, e->loc.col, e->exception, e->thread, e->block);
      } else if (record) {
        rt_report_index_error(diag, e->kernel, e->loc.file, e->loc.line, e->loc.col, e->axis, e->index, e->extent);
      } else {
        report(diag, res->message, NOLOC);
      }
      if (!record && res->index_error.set) report(diag, res->index_message, res->index_error.loc);
      if (res->status != SIM_ERR_RACE && res->race.set) report(diag, res->race_message, NOLOC);
      if (res->status != SIM_ERR_BARRIER && res->barrier_divergence) report(diag, res->barrier_message, NOLOC);
      if (res->status != SIM_ERR_OOB && res->oob) report(diag, res->oob_message, NOLOC);
    }
  }
  if (args != stack_args) mem_free(args);
  mem_free(res);
  return st;
}

/* ---- several devices: every simulated device's memory is host memory, so a peer copy is a memmove ---- */

bool rt_device_sim_peers(int a, int b) { return a != b && a / 2 == b / 2; }

static bool sim_make_current(RtDevice *d, Diag *diag) { return true; }

static bool sim_can_access_peer(RtDevice *d, RtDevice *peer) {
  return peer->mode == KF_RUNTIME_SIM && rt_device_sim_peers(d->ordinal, peer->ordinal);
}

static bool sim_copy_peer(RtDevice *d, RtDevice *dst_dev, uint64_t dst, RtDevice *src_dev, uint64_t src, size_t bytes,
                          void *stream, Diag *diag) {
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return true;
}

/* The simulator's device memory is this process's host memory: no other process can open it. */
static kf_status sim_ipc_unsupported(Diag *diag) {
  DiagKind prev = diag_set_kind(DIAG_KIND_UNSUPPORTED);
  diag_error(diag, NOLOC, "IPC handles: the simulator's device memory is this process's host memory, which other "
             "processes cannot open (IPC needs a GPU)");
  diag_set_kind(prev);
  return KF_ERROR_UNSUPPORTED;
}
static kf_status sim_ipc_get_handle(RtDevice *d, uint64_t ptr, unsigned char h[KF_IPC_HANDLE_BYTES], Diag *diag) {
  return sim_ipc_unsupported(diag);
}
static kf_status sim_ipc_open_handle(RtDevice *d, const unsigned char h[KF_IPC_HANDLE_BYTES], uint64_t *out,
                                     Diag *diag) {
  return sim_ipc_unsupported(diag);
}
static kf_status sim_ipc_close_handle(RtDevice *d, uint64_t ptr, Diag *diag) { return sim_ipc_unsupported(diag); }

/* The simulator's device memory is host memory: which device made it is the runtime's to know, not the memory's. */
static int sim_pointer_device(RtDevice *d, uint64_t ptr) { return -1; }

static const RtDeviceOps sim_ops = {
    .close = sim_close,
    .alloc = sim_alloc,
    .free = sim_free,
    .copy = sim_copy,
    .memset = sim_memset,
    .host_alloc = sim_host_alloc,
    .host_free = sim_host_free,
    .host_register = sim_host_register,
    .host_unregister = sim_host_unregister,
    .host_device_pointer = sim_host_device_pointer,
    .memory_info = sim_memory_info,
    .stream_create = sim_stream_create,
    .stream_destroy = sim_stream_destroy,
    .stream_synchronize = sim_stream_synchronize,
    .synchronize = sim_synchronize,
    .finish = sim_finish,
    .event_create = sim_event_create,
    .event_destroy = sim_event_destroy,
    .event_record = sim_event_record,
    .event_synchronize = sim_event_synchronize,
    .event_elapsed_ms = sim_event_elapsed_ms,
    .load = sim_load,
    .unload = sim_unload,
    .function = sim_function,
    .module_handles = sim_module_handles,
    .function_attributes = sim_function_attributes,
    .resident_blocks = sim_resident_blocks,
    .launch = sim_launch_fn,
    .make_current = sim_make_current,
    .can_access_peer = sim_can_access_peer,
    .copy_peer = sim_copy_peer,
    .alloc_managed = sim_alloc_managed,
    .pointer_range = sim_pointer_range,
    .ipc_get_handle = sim_ipc_get_handle,
    .ipc_open_handle = sim_ipc_open_handle,
    .ipc_close_handle = sim_ipc_close_handle,
    .pointer_device = sim_pointer_device,
    .holds = sim_holds,
};

void rt_device_sim_info(kf_device_info *in) {
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

RtDevice *rt_device_sim_open(const SimOptions *opts, int ordinal, Diag *diag) {
  Sim *s = mem_calloc(1, sizeof *s);
  if (!s) {
    diag_out_of_memory(diag);
    return NULL;
  }
  s->base.ops = &sim_ops;
  s->base.mode = KF_RUNTIME_SIM;
  s->base.ordinal = ordinal;
  s->base.runs_kir = true;
  s->base.host_is_device = true;
  s->opts = *opts;
  pthread_mutex_init(&s->opts_lock, NULL);
  rt_device_sim_info(&s->base.info);
  s->base.arch = 90;
  rt_device_set_target(&s->base);
  return &s->base;
}
