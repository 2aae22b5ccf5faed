/* exec.c — the simulator's interpreter and the CUDA execution model.
 *
 * A launch runs the blocks of the grid one after another (or spread over a few host threads, each with
 * its own BlockCtx). Within a block every CUDA thread is a context (program counter, call frames) that
 * runs until it reaches a barrier, a warp op, or its end:
 *   - warp by warp, the ready lanes run; lanes stopped at warp ops (shfl, vote, syncwarp) are then resolved in
 *     groups, as PTX matches them since sm_70 (resolve_warp): a lane's group is the live lanes its mask names,
 *     complete once each waits at a matching op (the same kind and mode, at whatever instruction: a shuffle in
 *     both branches of an if exchanges the halves' values) with the same mask; activemask, which synchronises
 *     nothing, groups the lanes at the same instruction. Lanes that have exited do not hold a warp op their mask
 *     names (PTX); what PTX leaves undefined is an error: a lane outside its own mask, a shuffle reading a lane
 *     that has exited or that its mask does not name, lanes that can never match (a warp op mismatch: the GPU
 *     would hang), and a lane the mask names waiting at a block barrier (a barrier divergence);
 *   - when every thread of the block waits at a barrier or has ended, the barrier is released if all of
 *     those that wait wait at the same one (barrier_reduce computed over them); threads at different
 *     barriers are a barrier divergence error. Threads that have exited do not take part (PTX's `exit`: a
 *     barrier waits for the threads of the block that have not exited, so a thread that returned early, or
 *     finishes while others wait, releases them), unless opts.strict_barriers asks for every thread; threads
 *     ended by a failed bounds check never count.
 * A cooperative launch (the kernel's `cooperative` attribute: it synchronises its grid) keeps every block of
 * the grid alive at once, each with its own BlockCtx, on one host thread: the blocks run in turn, each until
 * it ends or all of its threads that have not exited wait at a grid barrier (gpu.grid_sync: a block barrier
 * first, so the same rules hold within the block); when every block waits at the same grid barrier, all are
 * released. On the GPU a block arrives at a grid barrier through its thread (0,0,0) (backend/lower_llvm.c,
 * lower_grid_sync, as CUDA's cooperative groups do), so in a grid of several blocks a block that ended (all
 * its threads exited), that waits at another grid barrier, or whose thread (0,0,0) has exited while the others
 * wait, is a grid barrier divergence error (the GPU would hang). Once the error record is set (a failed bounds
 * check, a recorded raise), the launch ends at the next grid barrier instead, as the GPU's code does. The runtime
 * has checked the grid fits the simulated device (resident_blocks). A grid barrier in a launch that is not
 * cooperative is an error.
 * Shared-memory accesses are checked for races with a shadow entry per element (last writer, up to two
 * readers, each with the barrier epoch and its warp's syncwarp epoch); a barrier starts a new epoch.
 * Every load, store and atomic is checked against the array's extents whether or not check.bounds ops
 * are present, so an unchecked out-of-bounds access is an error, never a wild memory access.
 *
 * Memory: a launch's scratch (frames, shared memory, shadows) comes from mem.h with the launching thread's
 * allocator, which the worker threads take over (Launch.alloc). Out of memory stops the launch with
 * SIM_ERR_NOMEM, reported to the Diag as "out of memory". */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/sim/sim_internal.h"
#include "utils/mem.h"

/* ---- launch state ----------------------------------------------------------------------------- */

enum { T_READY, T_BARRIER, T_WARP, T_EXITED, T_FAILED };

typedef struct Frame {
  const SimFn *fn;
  uint32_t pc;         /* return address (for frames below the top) */
  Slot *regs;
  char *mem;           /* owned buffer holding regs and the local area */
  size_t cap;
} Frame;

typedef struct Thread {
  uint32_t tid[3];
  uint32_t linear;
  uint8_t state;
  unsigned depth;
  const SimFn *fn;     /* current function, pc and registers */
  uint32_t pc;
  Slot *regs;
  Frame *frames;
  unsigned frames_cap;
  uint64_t steps;
  uint32_t prints;     /* gpu.print lines so far (their order within the thread) */
} Thread;

struct SimShadow {
  uint32_t w_epoch, r_epoch;
  uint16_t w_tid, r_tid, r2_tid;
  uint16_t w_wep, r_wep, r2_wep;
  uint8_t nreaders;
  const Op *w_op, *r_op, *r2_op;
};

typedef struct Launch Launch;

typedef struct BlockCtx {
  Launch *L;
  uint32_t bid[3];
  uint64_t blinear;
  Thread *threads;
  unsigned nthreads, nwarps;
  SimArr *garr;        /* per global: shared ones point into this block's memory */
  char **gmem;         /* shared globals' buffers */
  SimShadow **gshadow;
  SimArr dyn[EK__COUNT];
  char *dyn_mem;
  SimShadow *dyn_shadow;
  uint32_t epoch;
  uint16_t *wep;       /* per warp: syncwarps resolved */
  uint64_t steps, barriers;
} BlockCtx;

struct Launch {
  MemAllocator alloc;  /* the launching thread's, for the workers */
  SimProgram *prog;
  const SimFn *kernel;
  const char *kname;
  SimOptions opts;
  uint32_t grid[3], block[3];
  uint64_t nblocks;
  size_t dyn_bytes;
  Slot *frame0;        /* the kernel's frame template with the arguments in place */
  SimArr *args;
  SimResult *res;
  int abort;           /* set (atomically) to stop every worker */
  uint64_t steps;      /* total, updated per thread slice */
  uint64_t next_block;
  double deadline;     /* now_s() past which the launch stops (opts.max_seconds; 0: never) */
  bool multi;
  bool cooperative;          /* every block resident at once (run_cooperative) */
  pthread_mutex_t lock;      /* result and global-memory atomics when multi */
  uint64_t index_block;      /* block of the recorded IndexError */
  /* gpu.print's lines (under the lock), put in order and handed over when the launch ends */
  struct PrintLine *lines;
  size_t nlines, lines_cap;
  StrBuf text;
  size_t dropped;            /* bytes beyond SIM_PRINT_MAX */
};

typedef struct PrintLine {
  uint64_t block;
  uint32_t thread, seq;
  size_t off, len;
} PrintLine;

static void lock(Launch *L) {
  if (L->multi) pthread_mutex_lock(&L->lock);
}
static void unlock(Launch *L) {
  if (L->multi) pthread_mutex_unlock(&L->lock);
}
static bool aborted(Launch *L) { return __atomic_load_n(&L->abort, __ATOMIC_RELAXED) != 0; }
/* Whether the embedder's interrupt flag (SimOptions.interrupt) asks the launch to stop. */
static bool interrupted(const Launch *L) { return L->opts.interrupt && *L->opts.interrupt; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* With a time limit, a thread looks at the clock every SIM_CLOCK_OPS ops (and a worker before each block). */
enum { SIM_CLOCK_OPS = 1 << 20 };

/* The messages of the launch's limits name the settings that set them (SimOptions.steps_setting, seconds_setting:
 * by default the C API's and kfront run's). */
static void step_limit_message(char *what, size_t n, uint64_t limit, bool one_thread, const char *setting) {
  snprintf(what, n, "simulation step limit exceeded (%llu ops in %s; %s)", (unsigned long long)limit,
           one_thread ? "one thread" : "the launch", setting);
}

static void time_limit_message(char *what, size_t n, double seconds, const char *setting) {
  snprintf(what, n, "simulation time limit exceeded (%g s; %s)", seconds, setting);
}

/* ---- error reports ---------------------------------------------------------------------------- */

/* snprintf without -Wformat-truncation's complaints: messages are cut at n bytes by design. */
static void __attribute__((format(printf, 3, 4))) msgf(char *dst, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, n, fmt, ap);
  va_end(ap);
}

static const char *loc_text(SrcLoc l, char *buf, size_t n) {
  if (!l.file) snprintf(buf, n, "<unknown>");
  else snprintf(buf, n, "%s:%u:%u", l.file, l.line, l.col);
  return buf;
}

static void xyz_of(const Launch *L, uint32_t linear, uint32_t out[3]) {
  out[0] = linear % L->block[0];
  out[1] = (linear / L->block[0]) % L->block[1];
  out[2] = linear / (L->block[0] * L->block[1]);
}

/* Records the launch's first error (under the lock). */
static void set_status(Launch *L, SimStatus s, const char *msg) {
  if (L->res->status == SIM_OK) {
    L->res->status = s;
    snprintf(L->res->message, SIM_MSG_MAX, "%s", msg);
  }
}

static void stop_launch(Launch *L) { __atomic_store_n(&L->abort, 1, __ATOMIC_RELAXED); }

/* The error record (a failed check.bounds: exception NULL; a recorded check.raise: its exception text), kept
 * for the lowest block that writes it, as the GPU's record keeps one. */
static void report_record(BlockCtx *B, Thread *t, const Ins *I, int64_t index, int64_t extent, const char *exception) {
  Launch *L = B->L;
  SimResult *r = L->res;
  lock(L);
  if (!r->index_error.set || B->blinear < L->index_block) {
    SimIndexError *e = &r->index_error;
    e->set = true;
    e->kind = exception ? KF_ERROR_RAISE : KF_ERROR_BOUNDS;
    e->kernel = L->kname;
    e->loc = I->op->loc;
    e->axis = exception ? 0 : (unsigned)I->imm;
    e->index = exception ? 0 : index;
    e->extent = exception ? 0 : extent;
    e->exception = exception;
    memcpy(e->thread, t->tid, sizeof e->thread);
    memcpy(e->block, B->bid, sizeof e->block);
    L->index_block = B->blinear;
    char lb[300];
    if (exception)
      snprintf(r->index_message, SIM_MSG_MAX, "%s (kernel %s, %s; thread (%u, %u, %u) of block (%u, %u, %u))", exception,
               L->kname, loc_text(e->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0], B->bid[1],
               B->bid[2]);
    else
      snprintf(r->index_message, SIM_MSG_MAX, "IndexError: index %lld is out of bounds for axis %u with size %lld (kernel %s, %s)",
               (long long)index, e->axis, (long long)extent, L->kname, loc_text(e->loc, lb, sizeof lb));
    if (r->status == SIM_OK || r->status == SIM_ERR_INDEX || r->status == SIM_ERR_RAISE) {
      r->status = exception ? SIM_ERR_RAISE : SIM_ERR_INDEX;
      snprintf(r->message, SIM_MSG_MAX, "%s", r->index_message);
    }
  }
  unlock(L);
}

static void report_oob(BlockCtx *B, Thread *t, const Ins *I, unsigned axis, int64_t index, int64_t extent) {
  Launch *L = B->L;
  SimResult *r = L->res;
  lock(L);
  if (!r->oob) {
    r->oob = true;
    char lb[300];
    snprintf(r->oob_message, SIM_MSG_MAX,
             "error: memory access out of bounds (unchecked) in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) "
             "uses index %lld for axis %u with size %lld",
             L->kname, loc_text(I->op->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0], B->bid[1],
             B->bid[2], (long long)index, axis, (long long)extent);
    set_status(L, SIM_ERR_OOB, r->oob_message);
  }
  unlock(L);
}

/* A run-time error that stops the launch. */
static void report_fatal(BlockCtx *B, Thread *t, SimStatus s, const Ins *I, const char *what) {
  Launch *L = B->L;
  char msg[SIM_MSG_MAX], lb[300];
  if (I)
    snprintf(msg, sizeof msg, "error: %s in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u)", what, L->kname,
             loc_text(I->op->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0], B->bid[1], B->bid[2]);
  else
    snprintf(msg, sizeof msg, "error: %s in kernel %s: thread (%u,%u,%u) of block (%u,%u,%u)", what, L->kname,
             t->tid[0], t->tid[1], t->tid[2], B->bid[0], B->bid[1], B->bid[2]);
  lock(L);
  set_status(L, s, msg);
  unlock(L);
  stop_launch(L);
}

static void report_race(BlockCtx *B, Thread *t, const Ins *I, uint16_t other, const Op *other_op, bool ww,
                        const int64_t *idx, unsigned rank) {
  Launch *L = B->L;
  SimResult *r = L->res;
  lock(L);
  r->races++;
  if (!r->race.set) {
    SimRace *e = &r->race;
    e->set = true;
    e->write_write = ww;
    e->loc = I->op->loc;
    e->other_loc = other_op ? other_op->loc : (SrcLoc){0};
    memcpy(e->thread, t->tid, sizeof e->thread);
    xyz_of(L, other, e->other_thread);
    memcpy(e->block, B->bid, sizeof e->block);
    e->rank = rank;
    char el[200] = "", lb[300], lb2[300];
    size_t n = 0;
    for (unsigned i = 0; i < rank && n < sizeof el; i++)
      n += (size_t)snprintf(el + n, sizeof el - n, "%s%lld", i ? ", " : "", (long long)(e->index[i] = idx[i]));
    msgf(r->race_message, SIM_MSG_MAX,
             "error: data race on shared array at %s (and %s): threads (%u,%u,%u) and (%u,%u,%u) access element [%s] "
             "between two barriers (%s, block (%u,%u,%u), kernel %s)",
             loc_text(e->loc, lb, sizeof lb), loc_text(e->other_loc, lb2, sizeof lb2), e->thread[0], e->thread[1],
             e->thread[2], e->other_thread[0], e->other_thread[1], e->other_thread[2], el,
             ww ? "write/write" : "read/write", B->bid[0], B->bid[1], B->bid[2], L->kname);
    set_status(L, SIM_ERR_RACE, r->race_message);
  }
  unlock(L);
}

/* ---- race detection --------------------------------------------------------------------------- */

/* Whether an earlier access by thread `prev` (with its warp's syncwarp epoch `wep`) conflicts with one by t. */
static inline bool conflicts(const BlockCtx *B, uint32_t t, uint16_t prev, uint16_t wep) {
  if (prev == t) return false;
  if (prev / 32 == t / 32 && B->wep[t / 32] != wep) return false; /* a __syncwarp since */
  return true;
}

static void race_access(BlockCtx *B, Thread *t, const Ins *I, const SimArr *a, const char *p, bool write,
                        const int64_t *idx) {
  SimShadow *s = &a->shadow[(size_t)(p - a->base) >> a->gshift];
  uint32_t e = B->epoch, u = t->linear;
  uint16_t wep = B->wep[u / 32];
  if (s->w_epoch == e && conflicts(B, u, s->w_tid, s->w_wep)) {
    report_race(B, t, I, s->w_tid, s->w_op, write, idx, a->rank);
  } else if (write && s->r_epoch == e) {
    if (conflicts(B, u, s->r_tid, s->r_wep)) report_race(B, t, I, s->r_tid, s->r_op, false, idx, a->rank);
    else if (s->nreaders > 1 && conflicts(B, u, s->r2_tid, s->r2_wep))
      report_race(B, t, I, s->r2_tid, s->r2_op, false, idx, a->rank);
  }
  if (write) {
    s->w_epoch = e;
    s->w_tid = (uint16_t)u;
    s->w_wep = wep;
    s->w_op = I->op;
  } else if (s->r_epoch != e) {
    s->r_epoch = e;
    s->nreaders = 1;
    s->r_tid = (uint16_t)u;
    s->r_wep = wep;
    s->r_op = I->op;
  } else if (s->r_tid == u) {
    s->r_wep = wep;
  } else if (s->nreaders == 1 || s->r2_tid == u) {
    s->nreaders = 2;
    s->r2_tid = (uint16_t)u;
    s->r2_wep = wep;
    s->r2_op = I->op;
  }
}

/* ---- memory ----------------------------------------------------------------------------------- */

static inline Slot load_elem(const char *p, unsigned ek) {
  Slot s;
  s.u = 0;
  switch (ek) {
  case EK_BOOL: s.u = *(const uint8_t *)p != 0; break;
  case EK_I8: s.i = *(const int8_t *)p; break;
  case EK_U8: s.u = *(const uint8_t *)p; break;
  case EK_I16: { int16_t v; memcpy(&v, p, 2); s.i = v; break; }
  case EK_U16: { uint16_t v; memcpy(&v, p, 2); s.u = v; break; }
  case EK_I32: { int32_t v; memcpy(&v, p, 4); s.i = v; break; }
  case EK_U32: { uint32_t v; memcpy(&v, p, 4); s.u = v; break; }
  case EK_I64:
  case EK_U64: memcpy(&s.u, p, 8); break;
  case EK_F16: { uint16_t v; memcpy(&v, p, 2); s.f = (float)sem_f16_value(v); break; }
  case EK_BF16: { uint16_t v; memcpy(&v, p, 2); s.f = sem_bf16_value(v); break; }
  case EK_F32: memcpy(&s.f, p, 4); break;
  case EK_F64: memcpy(&s.d, p, 8); break;
  }
  return s;
}

static inline void store_elem(char *p, unsigned ek, Slot v) {
  switch (ek) {
  case EK_BOOL: *(uint8_t *)p = v.u != 0; break;
  case EK_I8:
  case EK_U8: *(uint8_t *)p = (uint8_t)v.u; break;
  case EK_I16:
  case EK_U16: { uint16_t x = (uint16_t)v.u; memcpy(p, &x, 2); break; }
  case EK_I32:
  case EK_U32: { uint32_t x = (uint32_t)v.u; memcpy(p, &x, 4); break; }
  case EK_I64:
  case EK_U64: memcpy(p, &v.u, 8); break;
  case EK_F16: { uint16_t x = sem_f16_bits(v.f); memcpy(p, &x, 2); break; }
  case EK_BF16: { uint16_t x = sem_bf16_bits(v.f); memcpy(p, &x, 2); break; }
  case EK_F32: memcpy(p, &v.f, 4); break;
  case EK_F64: memcpy(p, &v.d, 8); break;
  }
}

/* Address of a[idx...] after checking every index against its extent; NULL (reported) when out of bounds. */
static char *element(BlockCtx *B, Thread *t, const Ins *I, const SimArr *a, const Slot *R, const SlotList *idx,
                     int64_t *iv) {
  char *p = a->data;
  for (unsigned k = 0; k < idx->n; k++) {
    int64_t i = R[idx->s[k]].i;
    if ((uint64_t)i >= (uint64_t)a->shape[k]) {
      report_oob(B, t, I, k, i, a->shape[k]);
      return NULL;
    }
    iv[k] = i;
    p += i * a->strides[k];
  }
  return p;
}

/* The view si makes of a into v; NULL, or why it cannot be made: an element of a non-empty view outside the
 * array (the frontend never makes one; kir from elsewhere may). */
static const char *make_subview(const SubviewInfo *si, const Slot *R, const SimArr *a, SimArr *v) {
  int64_t origin[SIM_MAX_RANK];
  bool empty = false;
  for (unsigned d = 0; d < si->rank; d++) {
    if (R[si->extent[d]].i < 0) return "mem.subview with a negative extent";
    empty |= R[si->extent[d]].i == 0;
  }
  char *p = a->data;
  for (unsigned k = 0; k < si->base_rank; k++) {
    origin[k] = R[si->origin[k]].i;
    if (empty) continue;
    if ((uint64_t)origin[k] >= (uint64_t)a->shape[k]) return "mem.subview outside its array";
    p += origin[k] * a->strides[k];
  }
  SimArr r = *a;
  r.data = p;
  r.rank = si->rank;
  for (unsigned d = 0; d < si->rank; d++) {
    int64_t n = R[si->extent[d]].i, st = R[si->step[d]].i;
    r.shape[d] = n;
    if (si->dims[d] < 0) {
      r.strides[d] = 0;
      continue;
    }
    unsigned k = (unsigned)si->dims[d];
    int64_t last;
    if (!empty && (__builtin_mul_overflow(n - 1, st, &last) || __builtin_add_overflow(origin[k], last, &last) ||
                   (uint64_t)last >= (uint64_t)a->shape[k]))
      return "mem.subview outside its array";
    r.strides[d] = (int64_t)((uint64_t)st * (uint64_t)a->strides[k]); /* (wraps only where never used) */
  }
  *v = r;
  return NULL;
}

/* The bytes [*lo, *hi) relative to a's data its elements of esize bytes span (empty: both 0); false on overflow. */
static bool byte_span(const int64_t *shape, const int64_t *strides, unsigned rank, int64_t esize, int64_t *lo,
                      int64_t *hi) {
  *lo = *hi = 0;
  for (unsigned k = 0; k < rank; k++)
    if (shape[k] == 0) return true;
  int64_t l = 0, h = esize;
  for (unsigned k = 0; k < rank; k++) {
    int64_t e;
    if (__builtin_mul_overflow(shape[k] - 1, strides[k], &e)) return false;
    if ((e < 0 && __builtin_add_overflow(l, e, &l)) || (e > 0 && __builtin_add_overflow(h, e, &h))) return false;
  }
  *lo = l;
  *hi = h;
  return true;
}

/* The array ri makes of a's memory into v; NULL, or why it cannot be made: an element outside a's memory. */
static const char *make_reinterpret(const ReinterpInfo *ri, const Slot *R, const SimArr *a, SimArr *v) {
  SimArr r = *a;
  r.rank = ri->rank;
  for (unsigned d = 0; d < ri->rank; d++) {
    r.shape[d] = R[ri->extent[d]].i;
    r.strides[d] = R[ri->stride[d]].i;
    if (r.shape[d] < 0) return "mem.reinterpret with a negative extent";
  }
  int64_t alo, ahi, rlo, rhi;
  bool empty = false;
  for (unsigned d = 0; d < ri->rank; d++) empty |= r.shape[d] == 0;
  if (empty) {
    *v = r;
    return NULL;
  }
  for (unsigned k = 0; k < a->rank; k++)
    if (a->shape[k] == 0) return "mem.reinterpret outside its array";
  if (!byte_span(a->shape, a->strides, a->rank, ri->base_esize, &alo, &ahi) ||
      !byte_span(r.shape, r.strides, r.rank, ri->esize, &rlo, &rhi) || rlo < alo || rhi > ahi)
    return "mem.reinterpret outside its array";
  *v = r;
  return NULL;
}

/* mem.field: the records' field as an array (the array's axes, then the field's nested ones). */
static void make_field(const FieldInfo *fi, const SimArr *a, SimArr *v) {
  *v = *a;
  v->data = a->data + fi->offset_bytes;
  int64_t stride = fi->esize;
  for (unsigned d = fi->ndims; d-- > 0;) {
    v->shape[a->rank + d] = fi->dims[d];
    v->strides[a->rank + d] = stride;
    stride *= fi->dims[d];
  }
  v->rank = a->rank + fi->ndims;
}

/* ---- print ---------------------------------------------------------------------------------------- */

/* The text gpu.print makes of its format and operands (as C's printf: %lld, %llu, %f, %s of True/False, %%),
 * recorded for the launch's output. False when out of memory. */
static bool print_line(BlockCtx *B, Thread *t, const PrintInfo *pi, const Slot *R) {
  Launch *L = B->L;
  StrBuf line;
  sb_init(&line);
  unsigned k = 0;
  for (const char *p = pi->format; *p; p++) {
    if (*p != '%') {
      sb_putc(&line, *p);
      continue;
    }
    p++;
    if (*p == '%') {
      sb_putc(&line, '%');
      continue;
    }
    if (!strncmp(p, "lld", 3) || !strncmp(p, "llu", 3)) p += 2;
    if (k >= pi->n) break; /* (the verifier matched directives and operands) */
    Slot v = R[pi->slots[k]];
    switch (pi->kinds[k++]) {
    case PK_I64: sb_printf(&line, "%lld", (long long)v.i); break;
    case PK_U64: sb_printf(&line, "%llu", (unsigned long long)v.u); break;
    case PK_F64: sb_printf(&line, "%f", v.d); break;
    case PK_BOOL: sb_puts(&line, v.u ? "True" : "False"); break;
    }
  }
  bool ok = !sb_failed(&line);
  lock(L);
  if (ok && L->text.len + line.len > SIM_PRINT_MAX) {
    L->dropped += line.len;
  } else if (ok) {
    if (L->nlines == L->lines_cap) {
      size_t cap = L->lines_cap ? 2 * L->lines_cap : 64;
      PrintLine *n = mem_realloc(L->lines, sizeof *n * cap);
      if (n) {
        L->lines = n;
        L->lines_cap = cap;
      }
    }
    if (L->nlines == L->lines_cap) {
      ok = false;
    } else {
      L->lines[L->nlines++] = (PrintLine){B->blinear, t->linear, t->prints++, L->text.len, line.len};
      sb_putn(&L->text, line.data, line.len);
      ok = !sb_failed(&L->text);
    }
  }
  unlock(L);
  sb_free(&line);
  return ok;
}

static int line_order(const void *a, const void *b) {
  const PrintLine *x = a, *y = b;
  if (x->block != y->block) return x->block < y->block ? -1 : 1;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The launch's printed lines, in order (blocks, threads, each thread's own order), to opts.print or stdout. */
static void emit_prints(Launch *L, Diag *diag) {
  if (L->nlines) {
    qsort(L->lines, L->nlines, sizeof *L->lines, line_order);
    StrBuf out;
    sb_init(&out);
    for (size_t i = 0; i < L->nlines; i++) sb_putn(&out, L->text.data + L->lines[i].off, L->lines[i].len);
    if (!sb_failed(&out)) {
      if (L->opts.print) {
        L->opts.print(L->opts.print_user, out.data, out.len);
      } else {
        fwrite(out.data, 1, out.len, stdout);
        fflush(stdout);
      }
    }
    sb_free(&out);
  }
  if (L->dropped)
    diag_warning(diag, (SrcLoc){0}, "kernel %s: %zu bytes of print() output beyond %d bytes were dropped (the GPU's "
                 "printf buffer drops them too)", L->kname, L->dropped, SIM_PRINT_MAX);
  mem_free(L->lines);
  sb_free(&L->text);
}

/* ---- integer and float helpers ---------------------------------------------------------------- */

static inline uint64_t norm(const Ins *I, uint64_t v) {
  unsigned sh = I->sh;
  return I->sgn ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
}
static inline int64_t sext(uint64_t v, unsigned sh) { return (int64_t)(v << sh) >> sh; }
static inline uint64_t zext(uint64_t v, unsigned sh) { return (v << sh) >> sh; }

/* ---- atomics ---------------------------------------------------------------------------------- */

static bool is_signed_ek(unsigned ek) { return ek == EK_I8 || ek == EK_I16 || ek == EK_I32 || ek == EK_I64; }

static Slot atomic_apply(AtomicKind k, unsigned ek, Slot old, Slot v) {
  Slot n = old;
  if (ek == EK_F16 || ek == EK_BF16 || ek == EK_F32 || ek == EK_F64) {
    bool f = ek != EK_F64; /* f16 and bf16 compute in float; store_elem rounds them */
    double a = f ? old.f : old.d, b = f ? v.f : v.d, r = a;
    switch (k) {
    case AK_ADD: r = a + b; break;
    case AK_SUB: r = a - b; break;
    case AK_MIN: r = b < a ? b : a; break; /* Python's min(old, val), as Numba's CAS loop */
    case AK_MAX: r = b > a ? b : a; break;
    /* numba-cuda's nanmin / nanmax: a NaN value keeps the old one, a NaN old value is replaced */
    case AK_NANMIN: r = isnan(b) ? a : isnan(a) || b < a ? b : a; break;
    case AK_NANMAX: r = isnan(b) ? a : isnan(a) || b > a ? b : a; break;
    case AK_EXCH: r = b; break;
    default: break;
    }
    if (f) {
      /* float arithmetic in float precision */
      if (k == AK_ADD) n.f = old.f + v.f;
      else if (k == AK_SUB) n.f = old.f - v.f;
      else n.f = (float)r;
    } else {
      n.d = r;
    }
    return n;
  }
  bool s = is_signed_ek(ek);
  switch (k) {
  case AK_ADD: n.u = old.u + v.u; break;
  case AK_SUB: n.u = old.u - v.u; break;
  case AK_AND: n.u = old.u & v.u; break;
  case AK_OR: n.u = old.u | v.u; break;
  case AK_XOR: n.u = old.u ^ v.u; break;
  case AK_MIN:
  case AK_NANMIN: n.u = (s ? v.i < old.i : v.u < old.u) ? v.u : old.u; break;
  case AK_MAX:
  case AK_NANMAX: n.u = (s ? v.i > old.i : v.u > old.u) ? v.u : old.u; break;
  case AK_EXCH: n.u = v.u; break;
  case AK_INC: n.u = old.u >= v.u ? 0 : old.u + 1; break;
  case AK_DEC: n.u = (old.u == 0 || old.u > v.u) ? v.u : old.u - 1; break;
  }
  return n;
}

/* The value as stored (so that comparisons of CAS see the element's bits). */
static uint64_t stored_bits(unsigned ek, Slot v) {
  char buf[8] = {0};
  store_elem(buf, ek, v);
  uint64_t b;
  memcpy(&b, buf, 8);
  return b & (sim_elem_size(ek) == 8 ? ~0ull : (1ull << (8 * sim_elem_size(ek))) - 1);
}

/* ---- call frames ------------------------------------------------------------------------------ */

static bool frame_reserve(Thread *t, unsigned depth, size_t bytes) {
  if (depth >= t->frames_cap) {
    unsigned cap = t->frames_cap ? t->frames_cap * 2 : 4;
    while (cap <= depth) cap *= 2;
    Frame *f = mem_realloc(t->frames, sizeof *f * cap);
    if (!f) return false;
    memset(f + t->frames_cap, 0, sizeof *f * (cap - t->frames_cap));
    t->frames = f;
    t->frames_cap = cap;
  }
  Frame *f = &t->frames[depth];
  if (f->cap < bytes) {
    size_t cap = bytes < 256 ? 256 : bytes;
    char *m = mem_alloc(cap);  /* 16-aligned (utils/mem.h) */
    if (!m) return false;
    mem_free(f->mem);
    f->mem = m;
    f->cap = cap;
  }
  f->regs = (Slot *)f->mem;
  return true;
}

static char *frame_local(const SimFn *fn, Slot *regs) {
  return (char *)regs + ((sizeof(Slot) * fn->nslots + 15) & ~(size_t)15);
}

/* ---- instructions run out of line (their locals stay out of the interpreter loop's frame) ------------- */

/* SEM: the op's row of ir_op_sem evaluates it. */
static void __attribute__((noinline)) run_sem(const Ins *I, Slot *R) {
  const SemCall *sc = I->ext;
  Slot x[3] = {R[I->a], R[I->b], R[I->c]};
  sc->eval(&sc->sig, x, &R[I->d]);
}

/* POWIF32 / POWIF64: the exponent's shift in aux, signed when aux2. */
static void __attribute__((noinline)) run_powi(const Ins *I, Slot *R) {
  bool neg = I->aux2 && sext(R[I->b].u, I->aux) < 0;
  uint64_t e = neg ? 0 - (uint64_t)sext(R[I->b].u, I->aux) : zext(R[I->b].u, I->aux);
  if (I->code == SI_POWIF32) R[I->d].f = sem_powi_f(R[I->a].f, e, neg);
  else R[I->d].d = sem_powi_d(R[I->a].d, e, neg);
}

/* ---- the interpreter -------------------------------------------------------------------------- */

/* Runs thread t until it waits at a barrier or warp op, ends, or the launch stops. */
static void run_thread(BlockCtx *B, Thread *t) {
  Launch *L = B->L;
  const SimFn *fn = t->fn;
  const Ins *code = fn->code;
  uint32_t pc = t->pc;
  Slot *R = t->regs;
  uint64_t tleft = L->opts.max_thread_steps > t->steps ? L->opts.max_thread_steps - t->steps : 0;
  uint64_t total = __atomic_load_n(&L->steps, __ATOMIC_RELAXED);
  uint64_t gleft = L->opts.max_steps > total ? L->opts.max_steps - total : 0;
  uint64_t limit = tleft < gleft ? tleft : gleft, n = 0;
  uint64_t budget = (L->deadline || L->opts.interrupt) && limit > SIM_CLOCK_OPS ? SIM_CLOCK_OPS : limit; /* then a look at the clock */
  int64_t iv[SIM_MAX_RANK];

  for (;;) {
    const Ins *I = &code[pc++];
    if (__builtin_expect(++n > budget, 0)) {
      bool stop = interrupted(L), in_time = !stop && (L->deadline == 0 || now_s() < L->deadline);
      if (n <= limit && in_time) {
        budget = limit - n > SIM_CLOCK_OPS ? n + SIM_CLOCK_OPS : limit;
      } else {
        n--;
        char what[200];
        if (stop) snprintf(what, sizeof what, "simulation interrupted");
        else if (!in_time) time_limit_message(what, sizeof what, L->opts.max_seconds, L->opts.seconds_setting);
        else if (tleft <= gleft) step_limit_message(what, sizeof what, L->opts.max_thread_steps, true, L->opts.steps_setting);
        else step_limit_message(what, sizeof what, L->opts.max_steps, false, L->opts.steps_setting);
        pc--;
        report_fatal(B, t, SIM_ERR_STEP_LIMIT, I, what);
        t->state = T_FAILED;
        goto out;
      }
    }
    switch ((SimOpcode)I->code) {
    case SI_NOP: break;
    case SI_JMP: pc = (uint32_t)I->imm; break;
    case SI_JZ:
      if (!R[I->a].u) pc = (uint32_t)I->imm;
      break;
    case SI_JNZ:
      if (R[I->a].u) pc = (uint32_t)I->imm;
      break;
    case SI_BR2: pc = R[I->a].u ? (uint32_t)I->imm : I->b; break;
    case SI_MOV: R[I->d] = R[I->a]; break;
    case SI_PMOVE: {
      const PMoveInfo *pm = I->ext;
      Slot tmp[64], *buf = pm->n <= 64 ? tmp : mem_alloc(sizeof(Slot) * pm->n);
      if (!buf) {
        pc--;
        report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
        t->state = T_FAILED;
        goto out;
      }
      for (unsigned i = 0; i < pm->n; i++) buf[i] = R[pm->src[i]];
      for (unsigned i = 0; i < pm->n; i++) R[pm->dst[i]] = buf[i];
      if (buf != tmp) mem_free(buf);
      break;
    }
    case SI_AMOVE: {
      const AMoveInfo *am = I->ext;
      SimArr tmp[4], *buf = am->n <= 4 ? tmp : mem_alloc(sizeof(SimArr) * am->n);
      if (!buf) {
        pc--;
        report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
        t->state = T_FAILED;
        goto out;
      }
      for (unsigned i = 0; i < am->n; i++) memcpy(&buf[i], R[am->src[i]].p, sizeof(SimArr));
      for (unsigned i = 0; i < am->n; i++) {
        SimArr *d = (SimArr *)(frame_local(fn, R) + am->dst_buf[i]);
        *d = buf[i];
        R[am->dst[i]].p = d;
      }
      if (buf != tmp) mem_free(buf);
      break;
    }
    case SI_CALL: {
      const CallInfo *ci = I->ext;
      const SimFn *callee = ci->callee;
      if (t->depth + 1 >= L->opts.max_call_depth) {
        char what[120];
        snprintf(what, sizeof what, "call depth limit (%u) exceeded calling @%s", L->opts.max_call_depth, callee->name);
        report_fatal(B, t, SIM_ERR_RUNTIME, I, what);
        t->state = T_FAILED;
        goto out;
      }
      t->frames[t->depth].pc = pc;
      if (!frame_reserve(t, t->depth + 1, callee->frame_bytes)) {
        pc--;
        report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
        t->state = T_FAILED;
        goto out;
      }
      Frame *f = &t->frames[++t->depth];
      f->fn = callee;
      Slot *CR = f->regs;
      memcpy(CR, callee->init, sizeof(Slot) * callee->nslots);
      for (unsigned i = 0; i < ci->args.n; i++) CR[callee->params[i]] = R[ci->args.s[i]];
      fn = callee;
      code = fn->code;
      R = CR;
      pc = 0;
      break;
    }
    case SI_RET: {
      if (t->depth == 0) {
        t->state = T_EXITED;
        goto out;
      }
      const SlotList *rl = I->ext;
      Frame *caller = &t->frames[--t->depth];
      const Ins *call = &caller->fn->code[caller->pc - 1];
      const CallInfo *ci = call->ext;
      for (unsigned i = 0; i < ci->results.n && i < rl->n; i++) {
        if (ci->result_buf[i]) { /* an array: its descriptor into the caller's frame (this one's is left) */
          SimArr *d = (SimArr *)(frame_local(caller->fn, caller->regs) + ci->result_buf[i] - 1);
          memmove(d, R[rl->s[i]].p, sizeof *d);
          caller->regs[ci->results.s[i]].p = d;
        } else {
          caller->regs[ci->results.s[i]] = R[rl->s[i]];
        }
      }
      fn = caller->fn;
      code = fn->code;
      R = caller->regs;
      pc = caller->pc;
      break;
    }
    case SI_EXIT: t->state = T_EXITED; goto out;

    /* ---- gpu ---- */
    case SI_TID: R[I->d].u = norm(I, t->tid[I->aux]); break;
    case SI_BID: R[I->d].u = norm(I, B->bid[I->aux]); break;
    case SI_BDIM: R[I->d].u = norm(I, L->block[I->aux]); break;
    case SI_GDIM: R[I->d].u = norm(I, L->grid[I->aux]); break;
    case SI_LANE: R[I->d].i = t->linear % 32; break;
    case SI_LANEMASK_LT: R[I->d].u = norm(I, (1u << (t->linear % 32)) - 1u); break;
    case SI_BARRIER:
    case SI_BARRED:
    case SI_GRIDSYNC:
      pc--;
      t->state = T_BARRIER;
      goto out;
    case SI_WARP:
      pc--;
      t->state = T_WARP;
      goto out;
    case SI_BOUNDS: {
      int64_t i = R[I->a].i, ext = R[I->b].i;
      if (i < 0 || i >= ext) {
        report_record(B, t, I, i, ext, NULL);
        t->state = T_FAILED;
        goto out;
      }
      break;
    }
    case SI_PRINT:
      if (!print_line(B, t, I->ext, R)) {
        report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
        t->state = T_FAILED;
        goto out;
      }
      break;
    case SI_RAISE:
      if (I->a != UINT32_MAX && !R[I->a].u) break;
      if (I->aux) { /* silent: the thread just ends, as a return from the kernel does */
        t->state = T_EXITED;
        goto out;
      }
      report_record(B, t, I, 0, 0, I->ext);
      t->state = T_FAILED;
      goto out;
    case SI_ATOMIC:
    case SI_CAS: {
      const AtomicInfo *ai = I->ext;
      const SimArr *a = R[ai->arr].p;
      char *p = element(B, t, I, a, R, &ai->idx, iv);
      if (!p) {
        t->state = T_FAILED;
        goto out;
      }
      if (a->flags & ARR_CONST) {
        report_fatal(B, t, SIM_ERR_RUNTIME, I, "atomic update of a constant array");
        t->state = T_FAILED;
        goto out;
      }
      bool locked = L->multi && !(a->flags & (ARR_SHARED | ARR_LOCAL));
      if (locked) pthread_mutex_lock(&L->lock);
      Slot old = load_elem(p, ai->ek);
      if (I->code == SI_CAS) {
        if (stored_bits(ai->ek, old) == stored_bits(ai->ek, R[ai->cmp])) store_elem(p, ai->ek, R[ai->val]);
      } else {
        store_elem(p, ai->ek, atomic_apply(ai->kind, ai->ek, old, R[ai->val]));
      }
      if (locked) pthread_mutex_unlock(&L->lock);
      R[I->d] = old;
      break;
    }

    /* ---- mem ---- */
    case SI_DIM: R[I->d].i = ((const SimArr *)R[I->a].p)->shape[I->aux]; break;
    case SI_STRIDE: R[I->d].i = ((const SimArr *)R[I->a].p)->strides[I->aux]; break;
    case SI_SIZE: {
      const SimArr *a = R[I->a].p;
      int64_t s = 1;
      for (unsigned k = 0; k < a->rank; k++) s *= a->shape[k];
      R[I->d].i = s;
      break;
    }
    case SI_DATA: R[I->d].p = ((const SimArr *)R[I->a].p)->data; break;
    case SI_LOAD1: {
      const SimArr *a = R[I->a].p;
      int64_t i = R[I->b].i;
      if (__builtin_expect((uint64_t)i >= (uint64_t)a->shape[0], 0)) {
        report_oob(B, t, I, 0, i, a->shape[0]);
        t->state = T_FAILED;
        goto out;
      }
      const char *p = a->data + i * a->strides[0];
      if (a->flags & ARR_RACE) race_access(B, t, I, a, p, false, &i);
      R[I->d] = load_elem(p, I->aux);
      break;
    }
    case SI_LOADN: {
      const SimArr *a = R[I->a].p;
      const char *p = element(B, t, I, a, R, I->ext, iv);
      if (!p) {
        t->state = T_FAILED;
        goto out;
      }
      if (a->flags & ARR_RACE) race_access(B, t, I, a, p, false, iv);
      R[I->d] = load_elem(p, I->aux);
      break;
    }
    case SI_STORE1:
    case SI_STOREN: {
      const SimArr *a = R[I->b].p;
      char *p;
      if (I->code == SI_STORE1) {
        int64_t i = iv[0] = R[I->c].i;
        if (__builtin_expect((uint64_t)i >= (uint64_t)a->shape[0], 0)) {
          report_oob(B, t, I, 0, i, a->shape[0]);
          t->state = T_FAILED;
          goto out;
        }
        p = a->data + i * a->strides[0];
      } else if (!(p = element(B, t, I, a, R, I->ext, iv))) {
        t->state = T_FAILED;
        goto out;
      }
      if (a->flags & (ARR_RACE | ARR_CONST)) {
        if (a->flags & ARR_CONST) {
          char what[160];
          snprintf(what, sizeof what, "store to the constant array @%s", a->name ? a->name : "?");
          report_fatal(B, t, SIM_ERR_RUNTIME, I, what);
          t->state = T_FAILED;
          goto out;
        }
        race_access(B, t, I, a, p, true, iv);
      }
      store_elem(p, I->aux, R[I->a]);
      break;
    }
    case SI_SUBVIEW: {
      const char *why = make_subview(I->ext, R, R[I->a].p, (SimArr *)(frame_local(fn, R) + ((const SubviewInfo *)I->ext)->offset));
      if (why) {
        report_fatal(B, t, SIM_ERR_RUNTIME, I, why);
        t->state = T_FAILED;
        goto out;
      }
      R[I->d].p = frame_local(fn, R) + ((const SubviewInfo *)I->ext)->offset;
      break;
    }
    case SI_REINTERP: {
      const ReinterpInfo *ri = I->ext;
      SimArr *v = (SimArr *)(frame_local(fn, R) + ri->offset);
      const char *why = make_reinterpret(ri, R, R[I->a].p, v);
      if (why) {
        report_fatal(B, t, SIM_ERR_RUNTIME, I, why);
        t->state = T_FAILED;
        goto out;
      }
      R[I->d].p = v;
      break;
    }
    case SI_FIELD: {
      const FieldInfo *fi = I->ext;
      SimArr *v = (SimArr *)(frame_local(fn, R) + fi->offset);
      make_field(fi, R[I->a].p, v);
      R[I->d].p = v;
      break;
    }
    case SI_ALLOCA: {
      const AllocaInfo *ai = I->ext;
      SimArr *a = (SimArr *)(frame_local(fn, R) + ai->offset);
      memset(a, 0, sizeof *a);
      a->data = (char *)a + ((sizeof(SimArr) + 15) & ~(size_t)15);
      a->rank = ai->rank;
      a->flags = ARR_LOCAL;
      int64_t st = ai->esize;
      for (unsigned k = 0; k < ai->rank; k++) {
        unsigned ax = ai->layout == 'F' ? k : ai->rank - 1 - k;
        a->shape[ax] = ai->shape[ax];
        a->strides[ax] = st;
        st *= ai->shape[ax];
      }
      memset(a->data, 0, ai->bytes);
      R[I->d].p = a;
      break;
    }
    case SI_GREF: R[I->d].p = &B->garr[I->imm]; break;
    case SI_DYNSH: R[I->d].p = &B->dyn[I->aux]; break;

    /* ---- integers ---- */
    case SI_ADDI64: R[I->d].u = R[I->a].u + R[I->b].u; break;
    case SI_SUBI64: R[I->d].u = R[I->a].u - R[I->b].u; break;
    case SI_MULI64: R[I->d].u = R[I->a].u * R[I->b].u; break;
    case SI_ADDI: R[I->d].u = norm(I, R[I->a].u + R[I->b].u); break;
    case SI_SUBI: R[I->d].u = norm(I, R[I->a].u - R[I->b].u); break;
    case SI_MULI: R[I->d].u = norm(I, R[I->a].u * R[I->b].u); break;
    case SI_DIVSI: R[I->d].u = norm(I, sem_divsi(sext(R[I->a].u, I->sh), sext(R[I->b].u, I->sh))); break;
    case SI_REMSI: R[I->d].u = norm(I, sem_remsi(sext(R[I->a].u, I->sh), sext(R[I->b].u, I->sh))); break;
    case SI_FLOORDIVSI: R[I->d].u = norm(I, sem_floordivsi(sext(R[I->a].u, I->sh), sext(R[I->b].u, I->sh))); break;
    case SI_FLOORMODSI: R[I->d].u = norm(I, sem_floormodsi(sext(R[I->a].u, I->sh), sext(R[I->b].u, I->sh))); break;
    case SI_DIVUI: R[I->d].u = norm(I, sem_divui(zext(R[I->a].u, I->sh), zext(R[I->b].u, I->sh))); break;
    case SI_REMUI: R[I->d].u = norm(I, sem_remui(zext(R[I->a].u, I->sh), zext(R[I->b].u, I->sh))); break;
    case SI_MINSI: R[I->d] = sext(R[I->b].u, I->sh) < sext(R[I->a].u, I->sh) ? R[I->b] : R[I->a]; break;
    case SI_MAXSI: R[I->d] = sext(R[I->b].u, I->sh) > sext(R[I->a].u, I->sh) ? R[I->b] : R[I->a]; break;
    case SI_MINUI: R[I->d] = zext(R[I->b].u, I->sh) < zext(R[I->a].u, I->sh) ? R[I->b] : R[I->a]; break;
    case SI_MAXUI: R[I->d] = zext(R[I->b].u, I->sh) > zext(R[I->a].u, I->sh) ? R[I->b] : R[I->a]; break;
    case SI_IPOW:
      R[I->d].u = norm(I, sem_ipow(R[I->a].u, zext(R[I->b].u, I->sh), I->sgn && sext(R[I->b].u, I->sh) < 0, 64u - I->sh));
      break;
    case SI_ABSI: R[I->d].u = norm(I, sem_absi(sext(R[I->a].u, I->sh))); break;
    case SI_SHLI: R[I->d].u = norm(I, sem_shl(R[I->a].u, zext(R[I->b].u, I->sh), 64u - I->sh)); break;
    case SI_SHRSI: R[I->d].u = norm(I, sem_shrs(sext(R[I->a].u, I->sh), zext(R[I->b].u, I->sh), 64u - I->sh)); break;
    case SI_SHRUI: R[I->d].u = norm(I, sem_shru(zext(R[I->a].u, I->sh), zext(R[I->b].u, I->sh), 64u - I->sh)); break;
    case SI_ANDI: R[I->d].u = norm(I, R[I->a].u & R[I->b].u); break;
    case SI_ORI: R[I->d].u = norm(I, R[I->a].u | R[I->b].u); break;
    case SI_XORI: R[I->d].u = norm(I, R[I->a].u ^ R[I->b].u); break;
    case SI_POPC: R[I->d].u = norm(I, sem_popc(zext(R[I->a].u, I->sh))); break;
    case SI_CLZ: R[I->d].u = norm(I, sem_clz(zext(R[I->a].u, I->sh), 64u - I->sh)); break;
    case SI_FFS: R[I->d].u = norm(I, sem_ffs(zext(R[I->a].u, I->sh))); break;
    case SI_BREV: R[I->d].u = norm(I, sem_brev(zext(R[I->a].u, I->sh), 64u - I->sh)); break;
#define CMPI(p) sem_cmpi((p), sext(R[I->a].u, I->sh), sext(R[I->b].u, I->sh), zext(R[I->a].u, I->sh), zext(R[I->b].u, I->sh))
    case SI_CMPI_EQ: R[I->d].u = CMPI(SEM_IEQ); break;
    case SI_CMPI_NE: R[I->d].u = CMPI(SEM_INE); break;
    case SI_CMPI_SLT: R[I->d].u = CMPI(SEM_ISLT); break;
    case SI_CMPI_SLE: R[I->d].u = CMPI(SEM_ISLE); break;
    case SI_CMPI_SGT: R[I->d].u = CMPI(SEM_ISGT); break;
    case SI_CMPI_SGE: R[I->d].u = CMPI(SEM_ISGE); break;
    case SI_CMPI_ULT: R[I->d].u = CMPI(SEM_IULT); break;
    case SI_CMPI_ULE: R[I->d].u = CMPI(SEM_IULE); break;
    case SI_CMPI_UGT: R[I->d].u = CMPI(SEM_IUGT); break;
    case SI_CMPI_UGE: R[I->d].u = CMPI(SEM_IUGE); break;
    /* JCMP_<pred>: compare slots a and c, to imm when true, else to b */
#define JCMP(p) \
  pc = sem_cmpi((p), sext(R[I->a].u, I->sh), sext(R[I->c].u, I->sh), zext(R[I->a].u, I->sh), zext(R[I->c].u, I->sh)) \
           ? (uint32_t)I->imm                                                                                        \
           : I->b
    case SI_JCMP_EQ: JCMP(SEM_IEQ); break;
    case SI_JCMP_NE: JCMP(SEM_INE); break;
    case SI_JCMP_SLT: JCMP(SEM_ISLT); break;
    case SI_JCMP_SLE: JCMP(SEM_ISLE); break;
    case SI_JCMP_SGT: JCMP(SEM_ISGT); break;
    case SI_JCMP_SGE: JCMP(SEM_ISGE); break;
    case SI_JCMP_ULT: JCMP(SEM_IULT); break;
    case SI_JCMP_ULE: JCMP(SEM_IULE); break;
    case SI_JCMP_UGT: JCMP(SEM_IUGT); break;
    case SI_JCMP_UGE: JCMP(SEM_IUGE); break;
#undef JCMP
#undef CMPI
    /* JSTEP_<pred>: a counted loop's latch (i64): compare slots a and c; when true, a += d and to imm, else to b */
    case SI_JSTEP_SLT:
      if ((int64_t)R[I->a].u < (int64_t)R[I->c].u) {
        R[I->a].u += R[I->d].u;
        pc = (uint32_t)I->imm;
      } else {
        pc = I->b;
      }
      break;
    case SI_JSTEP_SGT:
      if ((int64_t)R[I->a].u > (int64_t)R[I->c].u) {
        R[I->a].u += R[I->d].u;
        pc = (uint32_t)I->imm;
      } else {
        pc = I->b;
      }
      break;
    case SI_SELECT: R[I->d] = R[I->a].u ? R[I->b] : R[I->c]; break;
    case SI_EXTS: R[I->d].u = norm(I, (uint64_t)sext(R[I->a].u, I->aux)); break;
    case SI_EXTU: R[I->d].u = norm(I, zext(R[I->a].u, I->aux)); break;

    /* ---- floats ---- */
    case SI_ADDF32: R[I->d].f = R[I->a].f + R[I->b].f; break;
    case SI_SUBF32: R[I->d].f = R[I->a].f - R[I->b].f; break;
    case SI_MULF32: R[I->d].f = R[I->a].f * R[I->b].f; break;
    case SI_DIVF32: R[I->d].f = R[I->a].f / R[I->b].f; break;
    case SI_REMF32: R[I->d].f = fmodf(R[I->a].f, R[I->b].f); break;
    case SI_FLOORDIVF32: R[I->d].f = sem_floordiv_f(R[I->a].f, R[I->b].f); break;
    case SI_FLOORMODF32: R[I->d].f = sem_floormod_f(R[I->a].f, R[I->b].f); break;
    case SI_MINF32: R[I->d].f = sem_min_f(R[I->a].f, R[I->b].f); break;
    case SI_MAXF32: R[I->d].f = sem_max_f(R[I->a].f, R[I->b].f); break;
    case SI_NEGF32: R[I->d].f = -R[I->a].f; break;
    case SI_ADDF64: R[I->d].d = R[I->a].d + R[I->b].d; break;
    case SI_SUBF64: R[I->d].d = R[I->a].d - R[I->b].d; break;
    case SI_MULF64: R[I->d].d = R[I->a].d * R[I->b].d; break;
    case SI_DIVF64: R[I->d].d = R[I->a].d / R[I->b].d; break;
    case SI_REMF64: R[I->d].d = fmod(R[I->a].d, R[I->b].d); break;
    case SI_FLOORDIVF64: R[I->d].d = sem_floordiv_d(R[I->a].d, R[I->b].d); break;
    case SI_FLOORMODF64: R[I->d].d = sem_floormod_d(R[I->a].d, R[I->b].d); break;
    case SI_MINF64: R[I->d].d = sem_min_d(R[I->a].d, R[I->b].d); break;
    case SI_MAXF64: R[I->d].d = sem_max_d(R[I->a].d, R[I->b].d); break;
    case SI_NEGF64: R[I->d].d = -R[I->a].d; break;
    case SI_FMAF32: R[I->d].f = sem_fma_f(R[I->a].f, R[I->b].f, R[I->c].f); break;
    case SI_FMAF64: R[I->d].d = sem_fma_d(R[I->a].d, R[I->b].d, R[I->c].d); break;
    case SI_CMPF32: R[I->d].u = sem_cmpf(I->aux, R[I->a].f, R[I->b].f); break;
    case SI_CMPF64: R[I->d].u = sem_cmpf(I->aux, R[I->a].d, R[I->b].d); break;
    case SI_SITOF32: R[I->d].f = (float)sext(R[I->a].u, I->aux); break;
    case SI_SITOF64: R[I->d].d = (double)sext(R[I->a].u, I->aux); break;
    case SI_UITOF32: R[I->d].f = (float)zext(R[I->a].u, I->aux); break;
    case SI_UITOF64: R[I->d].d = (double)zext(R[I->a].u, I->aux); break;
    case SI_F32TOSI: R[I->d].u = norm(I, sem_float_to_int(R[I->a].f, 64u - I->sh, true)); break;
    case SI_F64TOSI: R[I->d].u = norm(I, sem_float_to_int(R[I->a].d, 64u - I->sh, true)); break;
    case SI_F32TOUI: R[I->d].u = norm(I, sem_float_to_int(R[I->a].f, 64u - I->sh, false)); break;
    case SI_F64TOUI: R[I->d].u = norm(I, sem_float_to_int(R[I->a].d, 64u - I->sh, false)); break;
    case SI_F32TOF64: R[I->d].d = R[I->a].f; break;
    case SI_F64TOF32: R[I->d].f = (float)R[I->a].d; break;
    case SI_F64TOF16: R[I->d].f = sem_f16_round(R[I->a].d); break;
    case SI_F16ROUND: R[I->d].f = sem_f16_round(R[I->a].f); break;
    case SI_BITCAST_FI: {
      uint64_t b = 0;
      if (I->aux == 64) memcpy(&b, &R[I->a].d, 8);
      else if (I->aux == 32) { uint32_t x; memcpy(&x, &R[I->a].f, 4); b = x; }
      else b = sem_f16_bits(R[I->a].f);
      R[I->d].u = norm(I, b);
      break;
    }
    case SI_BITCAST_IF: {
      uint64_t b = R[I->a].u;
      Slot v;
      v.u = 0;
      if (I->aux == 64) memcpy(&v.d, &b, 8);
      else if (I->aux == 32) { uint32_t x = (uint32_t)b; memcpy(&v.f, &x, 4); }
      else v.f = (float)sem_f16_value((uint16_t)b);
      R[I->d] = v;
      break;
    }
    case SI_MATH1F32: R[I->d].f = ((float (*)(float))I->ext)(R[I->a].f); break;
    case SI_MATH1F64: R[I->d].d = ((double (*)(double))I->ext)(R[I->a].d); break;
    case SI_MATH2F32: R[I->d].f = ((float (*)(float, float))I->ext)(R[I->a].f, R[I->b].f); break;
    case SI_MATH2F64: R[I->d].d = ((double (*)(double, double))I->ext)(R[I->a].d, R[I->b].d); break;
    case SI_POWIF32:
    case SI_POWIF64: run_powi(I, R); break;
    case SI_ISNAN32: R[I->d].u = isnan(R[I->a].f) != 0; break;
    case SI_ISNAN64: R[I->d].u = isnan(R[I->a].d) != 0; break;
    case SI_ISINF32: R[I->d].u = isinf(R[I->a].f) != 0; break;
    case SI_ISINF64: R[I->d].u = isinf(R[I->a].d) != 0; break;
    case SI_ISFIN32: R[I->d].u = isfinite(R[I->a].f) != 0; break;
    case SI_ISFIN64: R[I->d].u = isfinite(R[I->a].d) != 0; break;
    case SI_SEM: run_sem(I, R); break;
    case SI__COUNT:
      pc--;
      report_fatal(B, t, SIM_ERR_RUNTIME, I, "internal error: an instruction of no known kind");
      t->state = T_FAILED;
      goto out;
    }
  }
out:
  t->fn = fn;
  t->pc = pc;
  t->regs = R;
  t->steps += n;
  B->steps += n;
  __atomic_fetch_add(&L->steps, n, __ATOMIC_RELAXED);
}

/* ---- warps and barriers ----------------------------------------------------------------------- */

static inline const Ins *waiting_at(const Thread *t) { return &t->fn->code[t->pc]; }

/* A barrier (or a warp op, whose mask names `other`) that `waiter` waits at while `other` has exited or waits at
 * another barrier. */
static void divergence(BlockCtx *B, Thread *waiter, Thread *other) {
  Launch *L = B->L;
  char msg[SIM_MSG_MAX], lb[300], lb2[300], what[400];
  if (other->state == T_EXITED)
    snprintf(what, sizeof what, "thread (%u,%u,%u) has exited", other->tid[0], other->tid[1], other->tid[2]);
  else
    snprintf(what, sizeof what, "thread (%u,%u,%u) waits at %s", other->tid[0], other->tid[1], other->tid[2],
             loc_text(waiting_at(other)->op->loc, lb2, sizeof lb2));
  msgf(msg, sizeof msg,
           "error: barrier divergence in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) waits here, but %s",
           L->kname, loc_text(waiting_at(waiter)->op->loc, lb, sizeof lb), waiter->tid[0], waiter->tid[1],
           waiter->tid[2], B->bid[0], B->bid[1], B->bid[2], what);
  lock(L);
  if (!L->res->barrier_divergence) {
    L->res->barrier_divergence = true;
    snprintf(L->res->barrier_message, SIM_MSG_MAX, "%s", msg);
  }
  set_status(L, SIM_ERR_BARRIER, msg);
  unlock(L);
  stop_launch(L);
}

/* ---- warp ops: PTX's matching on sm_70 and later (the top comment); only sm_6x and earlier ask for the same
 * instruction, in convergence. The CUDA Programming Guide's shfl_xor_sync in both branches of an if is valid
 * code, and on the GPU each lane gets its partner's value. ------------------------------------------------ */

static inline bool lane_gone(const Thread *t) { return t->state == T_EXITED || t->state == T_FAILED; }

/* The mask of the warp op (not activemask) that t waits at. */
static uint32_t op_mask(const Thread *t) {
  const WarpInfo *wi = waiting_at(t)->ext;
  return (uint32_t)t->regs[wi->mask].u;
}

/* Whether lanes at warp ops a and b match: the same kind and mode and, for shuffles, as many shfl.sync.b32 (the
 * backend's lowering: a 64-bit value takes two, anything narrower one). */
static bool warp_ops_match(const WarpInfo *a, const WarpInfo *b) {
  if (a->kind != b->kind || a->mode != b->mode) return false;
  if (a->kind == WK_MATCH) return (a->vk == MV_BITS64) == (b->vk == MV_BITS64); /* match.sync.b32 or .b64 */
  return a->kind != WK_SHFL || (a->vty.bits == 64) == (b->vty.bits == 64);
}

/* The bits a gpu.match compares of the value in a lane's registers R. */
static uint64_t match_bits(const WarpInfo *wi, const Slot *R) {
  const Slot *v = &R[wi->val];
  if (wi->vk == MV_F32) {
    uint32_t b;
    memcpy(&b, &v->f, sizeof b);
    return b;
  }
  return wi->vk == MV_BITS32 ? (uint32_t)v->u : v->u;
}

/* The warp op that t waits at, for messages: "a shuffle (mode xor) of a 32-bit value with mask 0xffffffff". */
static const char *warp_op_text(const Thread *t, char *buf, size_t n) {
  const Ins *I = waiting_at(t);
  const WarpInfo *wi = I->ext;
  const char *mode = ir_op_attr_str(I->op, "mode");
  uint32_t mask = wi->kind == WK_ACTIVEMASK ? 0 : op_mask(t);
  if (wi->kind == WK_SHFL)
    snprintf(buf, n, "a shuffle (mode %s) of a %u-bit value with mask 0x%08x", mode, wi->vty.bits == 64 ? 64 : 32,
             mask);
  else if (wi->kind == WK_VOTE) snprintf(buf, n, "a vote (mode %s) with mask 0x%08x", mode, mask);
  else if (wi->kind == WK_SYNCWARP) snprintf(buf, n, "a syncwarp with mask 0x%08x", mask);
  else if (wi->kind == WK_MATCH)
    snprintf(buf, n, "a match (mode %s) of a %u-bit value with mask 0x%08x", mode, wi->vk == MV_BITS64 ? 64 : 32,
             mask);
  else snprintf(buf, n, "an activemask");
  return buf;
}

/* Records msg as the launch's error (a warp op mismatch also as its barrier divergence) and stops it. */
static void warp_error(Launch *L, SimStatus s, const char *msg) {
  lock(L);
  if (s == SIM_ERR_BARRIER && !L->res->barrier_divergence) {
    L->res->barrier_divergence = true;
    snprintf(L->res->barrier_message, SIM_MSG_MAX, "%s", msg);
  }
  set_status(L, s, msg);
  unlock(L);
  stop_launch(L);
}

/* Lane t waits at a warp op whose mask does not name it (PTX: undefined). */
static void mask_without_caller(BlockCtx *B, Thread *t) {
  Launch *L = B->L;
  char msg[SIM_MSG_MAX], lb[300], what[200];
  msgf(msg, sizeof msg,
       "error: warp op mask without its own lane in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u), lane %u "
       "of its warp, calls %s, which does not name it (on the GPU the behaviour is undefined)",
       L->kname, loc_text(waiting_at(t)->op->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0],
       B->bid[1], B->bid[2], t->linear % 32, warp_op_text(t, what, sizeof what));
  warp_error(L, SIM_ERR_RUNTIME, msg);
}

/* A shuffle of lane t that reads lane src of its warp, which is absent (has exited, or is past the block's last
 * thread) or live but not named by the mask: PTX leaves the value undefined (an exited lane named in the mask
 * does not hold the shuffle up, but it has nothing to give). Stops the launch. */
static void bad_shuffle_source(BlockCtx *B, Thread *t, unsigned src, unsigned nlanes, bool absent) {
  Launch *L = B->L;
  char msg[SIM_MSG_MAX], lb[300], what[200];
  uint32_t linear = t->linear - t->linear % 32 + src, tid[3];
  xyz_of(L, linear, tid);
  if (src >= nlanes)
    snprintf(what, sizeof what, "which the block does not have (its last warp has %u threads)", nlanes);
  else if (absent)
    snprintf(what, sizeof what, "thread (%u,%u,%u), which has exited", tid[0], tid[1], tid[2]);
  else
    snprintf(what, sizeof what, "thread (%u,%u,%u), which its mask 0x%08x does not name", tid[0], tid[1], tid[2],
             op_mask(t));
  msgf(msg, sizeof msg,
       "error: shuffle from %s in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) reads lane %u of its warp, "
       "%s (on the GPU the value read is undefined)",
       absent ? "an absent lane" : "a lane outside its mask", L->kname, loc_text(waiting_at(t)->op->loc, lb, sizeof lb),
       t->tid[0], t->tid[1], t->tid[2], B->bid[0], B->bid[1], B->bid[2], src, what);
  warp_error(L, SIM_ERR_RUNTIME, msg);
}

/* No group of the warp can complete (pending: its lanes at warp ops): the first of them waits for a lane its mask
 * names that waits at a warp op of another kind or mode, or with another mask. Stops the launch. */
static void warp_op_mismatch(BlockCtx *B, Thread *lanes, uint32_t pending, uint32_t live) {
  Launch *L = B->L;
  Thread *t = &lanes[__builtin_ctz(pending)], *other = NULL;
  const WarpInfo *wi = waiting_at(t)->ext;
  for (uint32_t m = op_mask(t) & live; m && !other; m &= m - 1) {
    Thread *o = &lanes[__builtin_ctz(m)];
    if (o->state == T_WARP && (!warp_ops_match(wi, waiting_at(o)->ext) || op_mask(o) != op_mask(t))) other = o;
  }
  char msg[SIM_MSG_MAX], lb[300], lb2[300], what[200], what2[200];
  if (!other) {
    report_fatal(B, t, SIM_ERR_RUNTIME, waiting_at(t), "internal error: a warp op that can neither run nor fail");
    return;
  }
  msgf(msg, sizeof msg,
       "error: warp op mismatch in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) waits here at %s, but "
       "thread (%u,%u,%u), which that mask names, waits at %s at %s (the two never match: the GPU would hang or "
       "give undefined values)",
       L->kname, loc_text(waiting_at(t)->op->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0],
       B->bid[1], B->bid[2], warp_op_text(t, what, sizeof what), other->tid[0], other->tid[1], other->tid[2],
       loc_text(waiting_at(other)->op->loc, lb2, sizeof lb2), warp_op_text(other, what2, sizeof what2));
  warp_error(L, SIM_ERR_BARRIER, msg);
}

/* The bits of a shuffled value of type from as a value of type to: shfl.sync moves 32-bit words (the backend
 * widens a narrower value and takes two for a 64-bit one), so at two sites an i32 and an f32 exchange their bits,
 * as on the GPU. */
static Slot shfl_value(Slot v, SemTy from, SemTy to) {
  if (from.bits == to.bits && from.is_float == to.is_float && from.sgn == to.sgn && from.bf == to.bf) return v;
  uint64_t bits;
  if (!from.is_float) {
    bits = from.bits == 64 ? v.u : v.u & ((1ull << from.bits) - 1);
  } else if (from.bits == 64) {
    memcpy(&bits, &v.d, 8);
  } else if (from.bits == 32) {
    uint32_t b32;
    memcpy(&b32, &v.f, 4);
    bits = b32;
  } else {
    bits = sem_narrow_bits(from, v.f);
  }
  Slot r;
  r.u = 0;
  if (!to.is_float) {
    r.u = bits << to.sh;
    if (to.sgn) r.i >>= to.sh;
    else r.u >>= to.sh;
  } else if (to.bits == 64) {
    memcpy(&r.d, &bits, 8);
  } else if (to.bits == 32) {
    uint32_t b32 = (uint32_t)bits;
    memcpy(&r.f, &b32, 4);
  } else {
    r.f = sem_narrow_value(to, (uint16_t)bits);
  }
  return r;
}

/* Runs the warp op of the lanes of group (of warp w, nl lanes), each at its own instruction (they match), and
 * sets them going. False when the launch stopped (a shuffle reading a lane it may not). */
static bool run_warp_group(BlockCtx *B, unsigned w, unsigned nl, uint32_t group) {
  Thread *lanes = &B->threads[w * 32];
  WarpKind kind = ((const WarpInfo *)waiting_at(&lanes[__builtin_ctz(group)])->ext)->kind;
  uint32_t ballot = 0;
  if (kind == WK_VOTE)
    for (uint32_t m = group; m; m &= m - 1) {
      const Thread *t = &lanes[__builtin_ctz(m)];
      if (t->regs[((const WarpInfo *)waiting_at(t)->ext)->val].u) ballot |= 1u << __builtin_ctz(m);
    }
  Slot out[32];
  bool pred[32] = {0};
  for (uint32_t m = group; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    Thread *t = &lanes[l];
    const WarpInfo *wi = waiting_at(t)->ext;
    const Slot *R = t->regs;
    Slot v;
    v.u = 0;
    switch (wi->kind) {
    case WK_SHFL: {
      int64_t width = R[wi->width].i;
      if (width < 1 || width > 32 || (width & (width - 1))) width = 32;
      unsigned b = (unsigned)(R[wi->lane].u & 31); /* PTX's shfl.sync reads b[4:0] */
      unsigned seg = l & ~(unsigned)(width - 1), last = seg + (unsigned)width - 1, src = l;
      switch (wi->mode) {
      case SH_IDX: src = seg | (b & (unsigned)(width - 1)); break;
      case SH_UP: src = l >= seg + b ? l - b : l; break;
      case SH_DOWN: src = l + b <= last ? l + b : l; break;
      case SH_XOR: src = (l ^ b) <= last ? l ^ b : l; break;
      }
      if (src == l) {
        v = R[wi->val];
      } else if (src >= nl || lane_gone(&lanes[src]) || !(group >> src & 1)) {
        bad_shuffle_source(B, t, src, nl, src >= nl || lane_gone(&lanes[src]));
        return false;
      } else {
        const Thread *s = &lanes[src];
        const WarpInfo *si = waiting_at(s)->ext;
        v = shfl_value(s->regs[si->val], si->vty, wi->vty);
      }
      break;
    }
    case WK_VOTE:
      if (wi->mode == VM_BALLOT) v.u = ballot;
      else if (wi->mode == VM_ALL) v.u = ballot == group;
      else if (wi->mode == VM_ANY) v.u = ballot != 0;
      else v.u = ballot == 0 || ballot == group;
      break;
    case WK_MATCH: { /* the lanes of the group (its mask's live lanes) whose value has this lane's bits */
      uint32_t same = 0;
      uint64_t mine = match_bits(wi, R);
      for (uint32_t e = group; e; e &= e - 1) {
        const Thread *o = &lanes[__builtin_ctz(e)];
        if (match_bits(waiting_at(o)->ext, o->regs) == mine) same |= 1u << __builtin_ctz(e);
      }
      if (wi->mode == MM_ANY) {
        v.u = same;
      } else {
        pred[l] = same == group;
        v.u = pred[l] ? group : 0;
      }
      break;
    }
    case WK_ACTIVEMASK: v.u = group; break;
    case WK_SYNCWARP: break;
    }
    out[l] = v;
  }
  if (kind == WK_SYNCWARP) B->wep[w]++;
  for (uint32_t m = group; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    Thread *t = &lanes[l];
    const Ins *I = waiting_at(t);
    if (kind == WK_SHFL) t->regs[I->d] = out[l]; /* any scalar type, bits as they are */
    else if (kind != WK_SYNCWARP) t->regs[I->d].u = norm(I, out[l].u);
    const WarpInfo *wi = I->ext;
    if (kind == WK_MATCH && wi->mode == MM_ALL) t->regs[wi->pred].u = pred[l];
    t->pc++;
    t->state = T_READY;
  }
  return true;
}

/* Resolves the groups of warp w's lanes waiting at warp ops that are complete: every live lane a lane's mask
 * names waits at a matching op with that mask (activemask: the lanes at the same instruction). Returns true if any
 * lane ran on; false when none did (then no lane waits, or the launch stopped: a warp op mismatch, a lane outside
 * its own mask, a shuffle reading a lane it may not, a lane the mask names that waits at a block barrier). */
static bool resolve_warp(BlockCtx *B, unsigned w) {
  Thread *lanes = &B->threads[w * 32];
  unsigned nl = B->nthreads - w * 32 < 32 ? B->nthreads - w * 32 : 32;
  uint32_t pending = 0, live = 0;
  for (unsigned l = 0; l < nl; l++) {
    if (lanes[l].state == T_WARP) pending |= 1u << l;
    if (!lane_gone(&lanes[l])) live |= 1u << l;
  }
  bool any = false;
  for (uint32_t todo = pending; todo;) {
    unsigned first = (unsigned)__builtin_ctz(todo);
    Thread *t = &lanes[first];
    const Ins *I = waiting_at(t);
    const WarpInfo *wi = I->ext;
    uint32_t group = 0;
    if (wi->kind == WK_ACTIVEMASK) {
      for (uint32_t m = todo; m; m &= m - 1)
        if (waiting_at(&lanes[__builtin_ctz(m)]) == I) group |= 1u << __builtin_ctz(m);
    } else {
      uint32_t mask = op_mask(t);
      if (!(mask >> first & 1)) {
        mask_without_caller(B, t);
        return false;
      }
      group = mask & live;
      for (uint32_t m = group; m; m &= m - 1) {
        Thread *o = &lanes[__builtin_ctz(m)];
        if (o->state == T_BARRIER) { /* neither could go on on the GPU */
          divergence(B, t, o);
          return false;
        }
        if (o->state != T_WARP || !warp_ops_match(wi, waiting_at(o)->ext) || op_mask(o) != mask) {
          group = 0; /* not complete: o has not arrived (or ran on from another group of this round) */
          break;
        }
      }
    }
    if (!group) {
      todo &= ~(1u << first);
      continue;
    }
    if (!run_warp_group(B, w, nl, group)) return false;
    todo &= ~group;
    pending &= ~group;
    any = true;
  }
  if (!any && pending) warp_op_mismatch(B, lanes, pending, live);
  return any;
}

/* Releases the barrier every waiting thread stands at. False on divergence (reported). */
static bool release_barrier(BlockCtx *B, Thread *first) {
  const Ins *I = waiting_at(first);
  Thread *exited = NULL, *other = NULL;
  uint32_t count = 0, n = 0;
  for (unsigned i = 0; i < B->nthreads; i++) {
    Thread *t = &B->threads[i];
    if (t->state == T_EXITED && !exited && B->L->opts.strict_barriers) exited = t;
    if (t->state != T_BARRIER) continue;
    if (waiting_at(t) != I) {
      if (!other) other = t;
      continue;
    }
    n++;
    if (I->code == SI_BARRED && t->regs[I->a].u) count++;
  }
  if (other || exited) {
    divergence(B, first, other ? other : exited);
    return false;
  }
  if (I->code == SI_GRIDSYNC) return true; /* the whole block waits at the grid barrier: released with the grid */
  uint64_t v = I->aux == BR_COUNT ? count : I->aux == BR_AND ? count == n : count != 0;
  for (unsigned i = 0; i < B->nthreads; i++) {
    Thread *t = &B->threads[i];
    if (t->state != T_BARRIER) continue;
    if (I->code == SI_BARRED) t->regs[I->d].u = norm(I, v);
    t->pc++;
    t->state = T_READY;
  }
  B->epoch++;
  B->barriers++;
  return true;
}

/* ---- blocks ----------------------------------------------------------------------------------- */

static bool block_init(BlockCtx *B, Launch *L) {
  memset(B, 0, sizeof *B);
  B->L = L;
  SimProgram *p = L->prog;
  B->nthreads = L->block[0] * L->block[1] * L->block[2];
  B->nwarps = (B->nthreads + 31) / 32;
  B->threads = mem_calloc(B->nthreads, sizeof *B->threads);
  B->wep = mem_calloc(B->nwarps, sizeof *B->wep);
  B->garr = mem_calloc(p->nglobals ? p->nglobals : 1, sizeof *B->garr);
  B->gmem = mem_calloc(p->nglobals ? p->nglobals : 1, sizeof *B->gmem);
  B->gshadow = mem_calloc(p->nglobals ? p->nglobals : 1, sizeof *B->gshadow);
  if (!B->threads || !B->wep || !B->garr || !B->gmem || !B->gshadow) return false;
  for (unsigned i = 0; i < p->nglobals; i++) {
    const SimGlobal *g = &p->globals_v[i];
    SimArr *a = &B->garr[i];
    a->rank = g->rank;
    a->name = g->name;
    int64_t st = g->esize;
    for (unsigned k = 0; k < g->rank; k++) {
      unsigned ax = g->layout == 'F' ? k : g->rank - 1 - k;
      a->shape[ax] = g->shape[ax];
      a->strides[ax] = st;
      st *= g->shape[ax];
    }
    if (!g->shared) {
      a->data = g->data;
      a->flags = ARR_CONST;
      continue;
    }
    if (!(B->gmem[i] = mem_calloc(1, g->nbytes ? g->nbytes : 1))) return false;
    a->data = a->base = B->gmem[i];
    a->flags = ARR_SHARED;
    if (L->opts.detect_races) {
      a->gshift = 0;
      while ((1u << a->gshift) < g->granule) a->gshift++;
      if (!(B->gshadow[i] = mem_calloc((g->nbytes >> a->gshift) + 1, sizeof(SimShadow)))) return false;
      a->shadow = B->gshadow[i];
      a->flags |= ARR_RACE;
    }
  }
  if (p->uses_dyn) {
    if (!(B->dyn_mem = mem_alloc(L->dyn_bytes ? L->dyn_bytes : 16))) return false;  /* 16-aligned */
    if (L->opts.detect_races && !(B->dyn_shadow = mem_calloc((L->dyn_bytes >> p->dyn_gshift) + 1, sizeof(SimShadow))))
      return false;
    for (unsigned ek = 0; ek < EK__COUNT; ek++) {
      SimArr *a = &B->dyn[ek];
      a->data = a->base = B->dyn_mem;
      a->rank = 1;
      a->shape[0] = (int64_t)(L->dyn_bytes / sim_elem_size(ek));
      a->strides[0] = sim_elem_size(ek);
      a->flags = ARR_SHARED | (B->dyn_shadow ? ARR_RACE : 0);
      a->shadow = B->dyn_shadow;
      a->gshift = p->dyn_gshift;
      a->name = "dynamic shared";
    }
  }
  return true;
}

static void block_free(BlockCtx *B) {
  SimProgram *p = B->L->prog;
  for (unsigned i = 0; i < B->nthreads && B->threads; i++) {
    Thread *t = &B->threads[i];
    for (unsigned k = 0; k < t->frames_cap; k++) mem_free(t->frames[k].mem);
    mem_free(t->frames);
  }
  mem_free(B->threads);
  mem_free(B->wep);
  for (unsigned i = 0; i < p->nglobals; i++) {  /* either may be missing after a failed block_init */
    if (B->gmem) mem_free(B->gmem[i]);
    if (B->gshadow) mem_free(B->gshadow[i]);
  }
  mem_free(B->garr);
  mem_free(B->gmem);
  mem_free(B->gshadow);
  mem_free(B->dyn_mem);
  mem_free(B->dyn_shadow);
}

/* Sets B up to run block blinear from its start. */
static void block_start(BlockCtx *B, uint64_t blinear) {
  Launch *L = B->L;
  SimProgram *p = L->prog;
  const SimFn *k = L->kernel;
  B->blinear = blinear;
  B->bid[0] = (uint32_t)(blinear % L->grid[0]);
  B->bid[1] = (uint32_t)((blinear / L->grid[0]) % L->grid[1]);
  B->bid[2] = (uint32_t)(blinear / ((uint64_t)L->grid[0] * L->grid[1]));
  for (unsigned i = 0; i < p->nglobals; i++)
    if (p->globals_v[i].shared) memset(B->gmem[i], 0, p->globals_v[i].nbytes);
  if (B->dyn_mem) memset(B->dyn_mem, 0, L->dyn_bytes);
  B->epoch++; /* shadow entries of the previous block are stale */
  for (unsigned i = 0; i < B->nthreads; i++) {
    Thread *t = &B->threads[i];
    t->linear = i;
    t->tid[0] = i % L->block[0];
    t->tid[1] = (i / L->block[0]) % L->block[1];
    t->tid[2] = i / (L->block[0] * L->block[1]);
    t->state = T_READY;
    t->depth = 0;
    t->steps = 0;
    t->prints = 0;
    t->fn = k;
    t->pc = 0;
    t->regs = NULL; /* frame set up when the thread first runs */
  }
}

typedef enum { BLOCK_RUNNING, BLOCK_DONE, BLOCK_AT_GRID_BARRIER, BLOCK_STOPPED } BlockState;

/* Runs B's threads until the block ends, every thread waits at a grid barrier, or the launch stops. */
static BlockState block_run(BlockCtx *B) {
  Launch *L = B->L;
  const SimFn *k = L->kernel;
  size_t nslot_bytes = sizeof(Slot) * k->nslots;
  for (;;) {
    for (unsigned w = 0; w < B->nwarps; w++) {
      unsigned lo = w * 32, hi = lo + 32 < B->nthreads ? lo + 32 : B->nthreads;
      do {
        for (unsigned i = lo; i < hi; i++) {
          Thread *t = &B->threads[i];
          if (t->state != T_READY) continue;
          if (!t->regs) {
            if (!frame_reserve(t, 0, k->frame_bytes)) {
              report_fatal(B, t, SIM_ERR_NOMEM, NULL, "out of memory");
              t->state = T_FAILED;
              return BLOCK_STOPPED;
            }
            t->frames[0].fn = k;
            t->regs = t->frames[0].regs;
            memcpy(t->regs, L->frame0, nslot_bytes);
          }
          run_thread(B, t);
          if (aborted(L)) return BLOCK_STOPPED;
        }
      } while (resolve_warp(B, w));
      if (aborted(L)) return BLOCK_STOPPED;
    }
    Thread *first = NULL;
    for (unsigned i = 0; i < B->nthreads && !first; i++)
      if (B->threads[i].state == T_BARRIER) first = &B->threads[i];
    if (!first) return BLOCK_DONE;
    if (!release_barrier(B, first)) return BLOCK_STOPPED;
    if (waiting_at(first)->code == SI_GRIDSYNC) {
      if (L->cooperative) return BLOCK_AT_GRID_BARRIER;
      report_fatal(B, first, SIM_ERR_RUNTIME, waiting_at(first),
                   "grid barrier (cuda.cg.this_grid().sync()) in a kernel not launched cooperatively");
      return BLOCK_STOPPED;
    }
  }
}

static void run_block(BlockCtx *B, uint64_t blinear) {
  block_start(B, blinear);
  block_run(B);
}

/* A thread of B that waits at a barrier (B waits at a grid barrier: every thread that has not failed does). */
static const Thread *grid_waiter(const BlockCtx *B) {
  for (unsigned i = 0; i < B->nthreads; i++)
    if (B->threads[i].state == T_BARRIER) return &B->threads[i];
  return &B->threads[0];
}

/* Releases the grid barrier every thread of every block waits at. */
static void release_grid_barrier(BlockCtx *blocks, uint64_t n) {
  for (uint64_t b = 0; b < n; b++) {
    BlockCtx *B = &blocks[b];
    for (unsigned i = 0; i < B->nthreads; i++) {
      Thread *t = &B->threads[i];
      if (t->state != T_BARRIER) continue;
      t->pc++;
      t->state = T_READY;
    }
    B->epoch++;
    B->barriers++;
  }
}

/* A grid barrier some blocks wait at while block `other` has ended or waits at another one, or (other ==
 * waiter) while the thread (0,0,0) of a waiting block, which arrives for it, has exited. */
static void grid_divergence(BlockCtx *waiter, BlockCtx *other, BlockState other_state) {
  Launch *L = waiter->L;
  char msg[SIM_MSG_MAX], lb[300], lb2[300], what[400];
  const Thread *wt = grid_waiter(waiter);
  if (other_state == BLOCK_DONE)
    snprintf(what, sizeof what, "block (%u,%u,%u) has ended: a grid barrier waits for every block of the grid",
             other->bid[0], other->bid[1], other->bid[2]);
  else if (other == waiter)
    snprintf(what, sizeof what,
             "its thread (0,0,0) has exited: a block arrives at a grid barrier through its thread (0,0,0), so the "
             "other blocks would wait for ever");
  else
    snprintf(what, sizeof what, "block (%u,%u,%u) waits at the grid barrier at %s", other->bid[0], other->bid[1],
             other->bid[2], loc_text(waiting_at(grid_waiter(other))->op->loc, lb2, sizeof lb2));
  msgf(msg, sizeof msg, "error: grid barrier divergence in kernel %s at %s: block (%u,%u,%u) waits here, but %s",
       L->kname, loc_text(waiting_at(wt)->op->loc, lb, sizeof lb), waiter->bid[0], waiter->bid[1], waiter->bid[2],
       what);
  if (!L->res->barrier_divergence) {
    L->res->barrier_divergence = true;
    snprintf(L->res->barrier_message, SIM_MSG_MAX, "%s", msg);
  }
  set_status(L, SIM_ERR_BARRIER, msg);
  stop_launch(L);
}

/* A cooperative launch: every block alive at once (see the top of the file), on the calling thread. */
static void run_cooperative(Launch *L) {
  uint64_t n = L->nblocks;
  BlockCtx *blocks = mem_calloc(n, sizeof *blocks);
  BlockState *state = mem_calloc(n, sizeof *state);
  uint64_t ready = 0;
  bool ok = blocks && state;
  for (; ok && ready < n; ready++) {
    if (!block_init(&blocks[ready], L)) {
      ready++; /* partly made: freed below */
      ok = false;
      break;
    }
    block_start(&blocks[ready], ready);
  }
  if (!ok) {
    set_status(L, SIM_ERR_NOMEM, "error: out of memory");
    stop_launch(L);
  }
  while (ok && !aborted(L)) {
    if ((L->deadline && now_s() >= L->deadline) || interrupted(L)) {
      char what[200], msg[SIM_MSG_MAX];
      if (interrupted(L)) snprintf(what, sizeof what, "simulation interrupted");
      else time_limit_message(what, sizeof what, L->opts.max_seconds, L->opts.seconds_setting);
      msgf(msg, sizeof msg, "error: %s in kernel %s (a cooperative launch of %llu blocks)", what, L->kname,
           (unsigned long long)n);
      set_status(L, SIM_ERR_STEP_LIMIT, msg);
      stop_launch(L);
      break;
    }
    uint64_t waiting = 0, first = n;
    for (uint64_t b = 0; b < n && !aborted(L); b++) {
      if (state[b] == BLOCK_DONE) continue;
      state[b] = block_run(&blocks[b]);
      if (state[b] == BLOCK_AT_GRID_BARRIER) {
        waiting++;
        if (first == n) first = b;
      }
    }
    if (aborted(L) || waiting == 0) break;
    if (L->res->index_error.set) break; /* an error recorded: every thread ends at the grid barrier */
    /* every block waits at the grid barrier of the first, each with its thread (0,0,0) (a grid of one block
     * needs no arrival: its grid barrier is the block barrier), or the launch cannot go on */
    const Ins *at = waiting_at(grid_waiter(&blocks[first]));
    for (uint64_t b = 0; b < n; b++) {
      if (state[b] == BLOCK_AT_GRID_BARRIER && waiting_at(grid_waiter(&blocks[b])) == at) {
        if (n == 1 || blocks[b].threads[0].state != T_EXITED) continue;
        grid_divergence(&blocks[b], &blocks[b], state[b]);
        break;
      }
      grid_divergence(&blocks[first], &blocks[b], state[b]);
      break;
    }
    if (aborted(L)) break;
    release_grid_barrier(blocks, n);
  }
  for (uint64_t b = 0; b < ready; b++) {
    L->res->blocks++;
    L->res->threads += blocks[b].nthreads;
    L->res->barriers += blocks[b].barriers;
    block_free(&blocks[b]);
  }
  mem_free(blocks);
  mem_free(state);
}

static void *worker(void *arg) {
  Launch *L = arg;
  MEM_SCOPE(L->alloc);  /* the launching thread's allocator (utils/mem.h) */
  BlockCtx B;
  bool ok = block_init(&B, L);
  if (!ok) {
    lock(L);
    set_status(L, SIM_ERR_NOMEM, "error: out of memory");
    unlock(L);
    stop_launch(L);
  }
  uint64_t blocks = 0;
  while (ok && !aborted(L)) {
    if ((L->deadline && now_s() >= L->deadline) || interrupted(L)) {
      char what[200], msg[SIM_MSG_MAX];
      if (interrupted(L)) snprintf(what, sizeof what, "simulation interrupted");
      else time_limit_message(what, sizeof what, L->opts.max_seconds, L->opts.seconds_setting);
      msgf(msg, sizeof msg, "error: %s in kernel %s, before block %llu of %llu", what, L->kname,
           (unsigned long long)__atomic_load_n(&L->next_block, __ATOMIC_RELAXED), (unsigned long long)L->nblocks);
      lock(L);
      set_status(L, SIM_ERR_STEP_LIMIT, msg);
      unlock(L);
      stop_launch(L);
      break;
    }
    uint64_t b = __atomic_fetch_add(&L->next_block, 1, __ATOMIC_RELAXED);
    if (b >= L->nblocks) break;
    run_block(&B, b);
    blocks++;
  }
  lock(L);
  L->res->blocks += blocks;
  L->res->threads += blocks * B.nthreads;
  L->res->barriers += B.barriers;
  unlock(L);
  block_free(&B);
  return NULL;
}

/* ---- launch ----------------------------------------------------------------------------------- */

void sim_options_init(SimOptions *o) {
  memset(o, 0, sizeof *o);
  o->detect_races = true;
  o->max_steps = 10000000000ull;
  o->max_thread_steps = 1000000000ull;
  o->max_call_depth = 256;
  o->nworkers = 1;
  o->steps_setting = SIM_STEPS_SETTING;
  o->seconds_setting = SIM_SECONDS_SETTING;
}

SimArg sim_arg_array_c(void *data, Type *elem, unsigned rank, const int64_t *shape) {
  SimArg a = {.kind = SIM_ARG_ARRAY};
  a.array.data = data;
  a.array.elem = elem;
  a.array.rank = rank;
  int64_t st = ty_size(elem);
  for (unsigned k = rank; k-- > 0;) {
    a.array.shape[k] = shape[k];
    a.array.strides[k] = st;
    st *= shape[k];
  }
  return a;
}

static bool same_scalar(const Type *a, const Type *b) {
  if (a && b && a->kind == TY_RECORD && b->kind == TY_RECORD) { /* records: the same layout, spelt the same */
    StrBuf x, y;
    sb_init(&x);
    sb_init(&y);
    ty_print(a, &x);
    ty_print(b, &y);
    bool same = !sb_failed(&x) && !sb_failed(&y) && strcmp(sb_cstr(&x), sb_cstr(&y)) == 0;
    sb_free(&x);
    sb_free(&y);
    return same;
  }
  return a && b && a->kind == b->kind && a->bits == b->bits && a->is_unsigned == b->is_unsigned;
}

static bool contiguous(const SimArray *a, char layout, unsigned esize) {
  int64_t st = esize;
  for (unsigned k = 0; k < a->rank; k++) {
    unsigned ax = layout == 'F' ? k : a->rank - 1 - k;
    if (a->shape[ax] > 1 && a->strides[ax] != st) return false;
    st *= a->shape[ax];
  }
  return true;
}

static const char *type_text(const Type *t, StrBuf *tb) {
  ty_print(t, tb);
  return sb_cstr(tb);
}

static bool setup_args(Launch *L, const SimArg *args, unsigned nargs, Diag *diag) {
  const SimFn *k = L->kernel;
  const Op *f = k->func;
  Type *ft = ir_func_type(f);
  if (!ft || ft->kind != TY_FUNC) {
    diag_error(diag, f->loc, "simulator: @%s has no function type", k->name);
    return false;
  }
  if (ft->nresults) {
    diag_error(diag, f->loc, "simulator: @%s returns values and cannot be launched as a kernel", k->name);
    return false;
  }
  if (nargs != ft->n || nargs != k->nparams) {
    diag_error(diag, f->loc, "simulator: kernel %s takes %u argument%s, got %u", k->name, ft->n, ft->n == 1 ? "" : "s",
               nargs);
    return false;
  }
  L->frame0 = mem_alloc(sizeof(Slot) * k->nslots);
  L->args = mem_calloc(nargs ? nargs : 1, sizeof(SimArr));
  if (!L->frame0 || !L->args) {
    L->res->status = SIM_ERR_NOMEM;
    diag_out_of_memory(diag);
    return false;
  }
  memcpy(L->frame0, k->init, sizeof(Slot) * k->nslots);
  for (unsigned i = 0; i < nargs; i++) {
    const Type *pt = ft->elems[i];
    const SimArg *a = &args[i];
    Slot v;
    v.u = 0;
    StrBuf tb;  /* the parameter's type, printed for an error only */
    sb_init(&tb);
    bool ok = true;
    if (ty_abi_rank(pt)) { /* an array; a record, passed as an array of one */
      const SimArray *sa = &a->array;
      if (a->kind != SIM_ARG_ARRAY || sa->rank != ty_abi_rank(pt) || !same_scalar(sa->elem, ty_abi_elem((Type *)pt)) ||
          (pt->kind == TY_RECORD && sa->shape[0] != 1)) {
        diag_error(diag, f->loc, "simulator: argument %u of kernel %s must be an array of type %s", i, k->name,
                   type_text(pt, &tb));
        ok = false;
      } else if (pt->kind == TY_ARRAY && pt->layout != 'A' && !contiguous(sa, pt->layout, ty_size(pt->elem))) {
        diag_error(diag, f->loc, "simulator: argument %u of kernel %s (%s) is not %c-contiguous", i, k->name,
                   type_text(pt, &tb), pt->layout);
        ok = false;
      } else {
        SimArr *d = &L->args[i];
        d->data = sa->data;
        d->rank = sa->rank;
        for (unsigned ax = 0; ax < sa->rank; ax++) {
          if (sa->shape[ax] < 0) ok = false;
          d->shape[ax] = sa->shape[ax];
          d->strides[ax] = sa->strides[ax];
        }
        if (!ok) diag_error(diag, f->loc, "simulator: argument %u of kernel %s has a negative extent", i, k->name);
        v.p = d;
      }
    } else if (pt->kind == TY_BOOL || pt->kind == TY_INT || pt->kind == TY_FLOAT) {
      if (a->kind == SIM_ARG_ARRAY) {
        diag_error(diag, f->loc, "simulator: argument %u of kernel %s must be a scalar of type %s", i, k->name,
                   type_text(pt, &tb));
        ok = false;
      } else if (pt->kind == TY_FLOAT) {
        double x = a->kind == SIM_ARG_FLOAT ? a->f : a->kind == SIM_ARG_INT ? (double)a->i : (double)a->u;
        if (pt->bits == 64) v.d = x;
        else v.f = pt->bits == 32 ? (float)x : sem_narrow_round(sem_ty(pt), x);
      } else if (pt->kind == TY_BOOL) {
        v.u = a->kind == SIM_ARG_FLOAT ? a->f != 0 : a->u != 0;
      } else {
        uint64_t x = a->kind == SIM_ARG_FLOAT ? sem_float_to_int(a->f, 64, true) : a->u;
        unsigned sh = 64 - pt->bits;
        v.u = pt->is_unsigned ? zext(x, sh) : (uint64_t)sext(x, sh);
      }
    } else {
      diag_error(diag, f->loc, "simulator: kernel %s has a parameter of type %s, which the simulator cannot pass", k->name,
                 type_text(pt, &tb));
      ok = false;
    }
    sb_free(&tb);
    if (!ok) return false;
    L->frame0[k->params[i]] = v;
  }
  return true;
}

bool sim_program_launch(SimProgram *p, Op *kernel_func, const uint32_t grid[3], const uint32_t block[3],
                        size_t dynamic_shared_bytes, const SimArg *args, unsigned nargs, const SimOptions *opts,
                        SimResult *result, Diag *diag) {
  memset(result, 0, sizeof *result);
  double t0 = now_s();
  Launch L;
  memset(&L, 0, sizeof L);
  sb_init(&L.text);
  L.alloc = mem_allocator();
  L.prog = p;
  L.res = result;
  if (opts) L.opts = *opts;
  else sim_options_init(&L.opts);
  if (!L.opts.max_steps) L.opts.max_steps = 10000000000ull;
  if (!L.opts.max_thread_steps) L.opts.max_thread_steps = 1000000000ull;
  if (!L.opts.max_call_depth) L.opts.max_call_depth = 256;
  if (!L.opts.steps_setting) L.opts.steps_setting = SIM_STEPS_SETTING;
  if (!L.opts.seconds_setting) L.opts.seconds_setting = SIM_SECONDS_SETTING;
  if (L.opts.max_seconds > 0) L.deadline = t0 + L.opts.max_seconds;
  result->status = SIM_ERR_SETUP;
  if (!kernel_func || kernel_func->kind != OP_FUNC_FUNC || !kernel_func->regions[0].first) {
    diag_error(diag, kernel_func ? kernel_func->loc : (SrcLoc){0}, "simulator: the kernel is not a func.func with a body");
    return false;
  }
  for (int d = 0; d < 3; d++) {
    L.grid[d] = grid[d];
    L.block[d] = block[d];
  }
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  if (!grid[0] || !grid[1] || !grid[2] || !threads || threads > 1024 || block[2] > 64 || grid[1] > 65535 ||
      grid[2] > 65535 || grid[0] > 2147483647u) {
    diag_error(diag, kernel_func->loc,
               "simulator: bad launch configuration grid (%u,%u,%u) block (%u,%u,%u) (at most 1024 threads per block)",
               grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    return false;
  }
  L.nblocks = (uint64_t)grid[0] * grid[1] * grid[2];
  L.dyn_bytes = dynamic_shared_bytes;
  p->diag = diag;
  bool oom;
  L.kernel = sim_compile_function(p, kernel_func, &oom);
  if (!L.kernel) {
    if (oom) result->status = SIM_ERR_NOMEM;  /* reported by the compile's guard */
    return false;
  }
  L.kname = L.kernel->name;
  bool ok = setup_args(&L, args, nargs, diag);
  if (ok) {
    result->status = SIM_OK;
    unsigned nw = L.opts.nworkers;
    if (nw == 0) {
      long n = sysconf(_SC_NPROCESSORS_ONLN);
      nw = n > 0 ? (unsigned)n : 1;
    }
    if (nw > 64) nw = 64;
    if ((uint64_t)nw > L.nblocks) nw = (unsigned)L.nblocks;
    L.cooperative = ir_op_attr(kernel_func, "cooperative") != NULL;
    L.multi = nw > 1 && !L.cooperative;
    if (L.cooperative) {
      run_cooperative(&L);
    } else if (L.multi) {
      pthread_mutex_init(&L.lock, NULL);
      pthread_t tids[64];
      unsigned started = 0;
      for (unsigned i = 0; i < nw; i++)
        if (pthread_create(&tids[started], NULL, worker, &L) == 0) started++;
      if (!started) {
        L.multi = false;
        worker(&L);
      }
      for (unsigned i = 0; i < started; i++) pthread_join(tids[i], NULL);
      pthread_mutex_destroy(&L.lock);
    } else {
      worker(&L);
    }
  }
  emit_prints(&L, diag);
  result->steps = L.steps;
  result->seconds = now_s() - t0;
  mem_free(L.frame0);
  mem_free(L.args);
  if (ok && result->status == SIM_ERR_NOMEM) diag_out_of_memory(diag);
  return ok && result->status == SIM_OK;
}

bool sim_launch(Module *m, Op *kernel_func, const uint32_t grid[3], const uint32_t block[3], size_t dynamic_shared_bytes,
                const SimArg *args, unsigned nargs, const SimOptions *opts, SimResult *result, Diag *diag) {
  bool oom;
  SimProgram *p = sim_program_new(m, diag, &oom);
  if (!p) {
    memset(result, 0, sizeof *result);
    result->status = oom ? SIM_ERR_NOMEM : SIM_ERR_SETUP;
    return false;
  }
  bool ok = sim_program_launch(p, kernel_func, grid, block, dynamic_shared_bytes, args, nargs, opts, result, diag);
  sim_program_free(p);
  return ok;
}
