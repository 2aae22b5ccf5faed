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
 * released. On the GPU a block arrives at a grid barrier through its thread (0,0,0) (backend/lower_llvm_ops.c,
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
 * SIM_ERR_NOMEM, reported to the Diag as "out of memory".
 *
 * Files: exec.c the interpreter (sim_run_thread) with its error reports, race detection, memory, print and
 * atomics; exec_warp.c warps and barriers; exec_launch.c blocks and launches. The launch state they share is at
 * the end of sim_internal.h. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/sim/sim_internal.h"
#include "utils/mem.h"

/* With a time limit, a thread looks at the clock every SIM_CLOCK_OPS ops (and a worker before each block). */
enum { SIM_CLOCK_OPS = 1 << 20 };

/* ---- error reports ---------------------------------------------------------------------------- */

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

/* A load or store through a pointer (mem.ptr_load / ptr_store), or an array made over one (mem.ptr_array, `access`
 * "views"), of the `bytes` bytes at addr that no allocation of the device holds (SimOptions.holds), or at an address
 * not a multiple of the element's size: reported as an unchecked out-of-bounds access (the thread ends), where a GPU
 * would fault with an illegal or misaligned address. */
static void report_bad_pointer(BlockCtx *B, Thread *t, const Ins *I, uint64_t addr, int64_t bytes, const char *access,
                               bool misaligned) {
  Launch *L = B->L;
  SimResult *r = L->res;
  lock(L);
  if (!r->oob) {
    r->oob = true;
    char lb[160];
    snprintf(r->oob_message, SIM_MSG_MAX,
             "error: memory access through a pointer %s in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) "
             "%s the %lld bytes at 0x%llx%s",
             misaligned ? "at a misaligned address" : "outside the simulated device's memory", L->kname,
             loc_text(I->op->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0], B->bid[1], B->bid[2],
             access, (long long)bytes, (unsigned long long)addr,
             misaligned ? " (a GPU would fault with a misaligned address)"
                        : ", which no allocation holds (a GPU would fault with an illegal address)");
    set_status(L, SIM_ERR_OOB, r->oob_message);
  }
  unlock(L);
}

static char *frame_local(const SimFn *fn, Slot *regs);

static bool within(uint64_t addr, uint64_t bytes, const void *lo, size_t n) {
  uint64_t b = (uint64_t)(uintptr_t)lo;
  return lo && addr >= b && addr + bytes <= b + n;
}

/* Whether the bytes [addr, addr + bytes) are memory a pointer of thread t may reach: one array argument of the launch,
 * one of its block's shared arrays (static or dynamic), the local arrays of its own frames, or one allocation of the
 * device (SimOptions.holds). (Accesses through a pointer into shared memory are not race-checked.) */
static bool pointer_holds(const BlockCtx *B, const Thread *t, uint64_t addr, uint64_t bytes) {
  const Launch *L = B->L;
  if (addr + bytes < addr) return false;
  for (unsigned i = 0; i < L->nargs; i++)
    if (addr >= L->arg_spans[i][0] && addr + bytes <= L->arg_spans[i][1]) return true;
  for (unsigned i = 0; i < L->prog->nglobals; i++)
    if (B->gmem[i] && within(addr, bytes, B->garr[i].data, L->prog->globals_v[i].nbytes)) return true;
  if (within(addr, bytes, B->dyn_mem, L->dyn_bytes)) return true;
  for (unsigned d = 0; d <= t->depth; d++) { /* the local areas (after the registers) of the live frames */
    const Frame *f = &t->frames[d];
    if (!f->fn || !f->mem) continue;
    const char *local = frame_local(f->fn, f->regs);
    if (within(addr, bytes, local, (size_t)(f->mem + f->cap - local))) return true;
  }
  return L->opts.holds && L->opts.holds(L->opts.holds_user, addr, (size_t)bytes);
}

/* A run-time error that stops the launch. */
void sim_report_fatal(BlockCtx *B, Thread *t, SimStatus s, const Ins *I, const char *what) {
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
void sim_emit_prints(Launch *L, Diag *diag) {
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

/* ---- atomics ---------------------------------------------------------------------------------- */

static bool is_signed_ek(unsigned ek) { return ek == EK_I8 || ek == EK_I16 || ek == EK_I32 || ek == EK_I64; }

static Slot atomic_apply(IrAtomicKind k, unsigned ek, Slot old, Slot v) {
  Slot n = old;
  if (ek == EK_F16 || ek == EK_BF16 || ek == EK_F32 || ek == EK_F64) {
    bool f = ek != EK_F64; /* f16 and bf16 compute in float; store_elem rounds them */
    double a = f ? old.f : old.d, b = f ? v.f : v.d, r = a;
    switch (k) {
    case IR_ATOMIC_ADD: r = a + b; break;
    case IR_ATOMIC_SUB: r = a - b; break;
    case IR_ATOMIC_MIN: r = b < a ? b : a; break; /* Python's min(old, val), as Numba's CAS loop */
    case IR_ATOMIC_MAX: r = b > a ? b : a; break;
    /* numba-cuda's nanmin / nanmax: a NaN value keeps the old one, a NaN old value is replaced */
    case IR_ATOMIC_NANMIN: r = isnan(b) ? a : isnan(a) || b < a ? b : a; break;
    case IR_ATOMIC_NANMAX: r = isnan(b) ? a : isnan(a) || b > a ? b : a; break;
    case IR_ATOMIC_EXCH: r = b; break;
    default: break;
    }
    if (f) {
      /* float arithmetic in float precision */
      if (k == IR_ATOMIC_ADD) n.f = old.f + v.f;
      else if (k == IR_ATOMIC_SUB) n.f = old.f - v.f;
      else n.f = (float)r;
    } else {
      n.d = r;
    }
    return n;
  }
  bool s = is_signed_ek(ek);
  switch (k) {
  case IR_ATOMIC_ADD: n.u = old.u + v.u; break;
  case IR_ATOMIC_SUB: n.u = old.u - v.u; break;
  case IR_ATOMIC_AND: n.u = old.u & v.u; break;
  case IR_ATOMIC_OR: n.u = old.u | v.u; break;
  case IR_ATOMIC_XOR: n.u = old.u ^ v.u; break;
  case IR_ATOMIC_MIN:
  case IR_ATOMIC_NANMIN: n.u = (s ? v.i < old.i : v.u < old.u) ? v.u : old.u; break;
  case IR_ATOMIC_MAX:
  case IR_ATOMIC_NANMAX: n.u = (s ? v.i > old.i : v.u > old.u) ? v.u : old.u; break;
  case IR_ATOMIC_EXCH: n.u = v.u; break;
  case IR_ATOMIC_INC: n.u = old.u >= v.u ? 0 : old.u + 1; break;
  case IR_ATOMIC_DEC: n.u = (old.u == 0 || old.u > v.u) ? v.u : old.u - 1; break;
  case IR_ATOMIC_INVALID: break; /* (compile.c refuses it) */
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

bool sim_frame_reserve(Thread *t, unsigned depth, size_t bytes) {
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
void sim_run_thread(BlockCtx *B, Thread *t) {
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
        sim_report_fatal(B, t, SIM_ERR_STEP_LIMIT, I, what);
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
        sim_report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
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
        sim_report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
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
        sim_report_fatal(B, t, SIM_ERR_RUNTIME, I, what);
        t->state = T_FAILED;
        goto out;
      }
      t->frames[t->depth].pc = pc;
      if (!sim_frame_reserve(t, t->depth + 1, callee->frame_bytes)) {
        pc--;
        sim_report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
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
        sim_report_fatal(B, t, SIM_ERR_NOMEM, I, "out of memory");
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
        sim_report_fatal(B, t, SIM_ERR_RUNTIME, I, "atomic update of a constant array");
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
    case SI_PLOAD:
    case SI_PSTORE: {
      uint64_t addr = R[I->b].u + (uint64_t)R[I->c].i * (uint64_t)I->imm;
      bool misaligned = addr % (uint64_t)I->imm != 0;
      if (misaligned || !pointer_holds(B, t, addr, (uint64_t)I->imm)) {
        report_bad_pointer(B, t, I, addr, I->imm, I->code == SI_PSTORE ? "writes" : "reads", misaligned);
        t->state = T_FAILED;
        goto out;
      }
      if (I->code == SI_PSTORE) store_elem((char *)(uintptr_t)addr, I->aux, R[I->a]);
      else R[I->d] = load_elem((const char *)(uintptr_t)addr, I->aux);
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
          sim_report_fatal(B, t, SIM_ERR_RUNTIME, I, what);
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
        sim_report_fatal(B, t, SIM_ERR_RUNTIME, I, why);
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
        sim_report_fatal(B, t, SIM_ERR_RUNTIME, I, why);
        t->state = T_FAILED;
        goto out;
      }
      R[I->d].p = v;
      break;
    }
    case SI_PTRARRAY: { /* an array over a pointer's memory: every element of it in one allocation, or an error */
      const ReinterpInfo *ri = I->ext;
      SimArr *v = (SimArr *)(frame_local(fn, R) + ri->offset);
      memset(v, 0, sizeof *v);
      v->data = R[I->a].p;
      v->rank = ri->rank;
      bool empty = false;
      for (unsigned d = 0; d < ri->rank; d++) {
        v->shape[d] = R[ri->extent[d]].i;
        v->strides[d] = R[ri->stride[d]].i;
        empty |= v->shape[d] == 0;
        if (v->shape[d] < 0) {
          sim_report_fatal(B, t, SIM_ERR_RUNTIME, I, "an array over a pointer (carray / farray) with a negative extent");
          t->state = T_FAILED;
          goto out;
        }
      }
      int64_t lo = 0, hi = 0;
      if (!empty) {
        uint64_t addr = R[I->a].u;
        bool spans = byte_span(v->shape, v->strides, v->rank, ri->esize, &lo, &hi);
        bool misaligned = addr % (uint64_t)I->imm != 0;
        if (!spans || misaligned || !pointer_holds(B, t, addr + (uint64_t)lo, (uint64_t)(hi - lo))) {
          report_bad_pointer(B, t, I, addr + (uint64_t)lo, hi - lo, "views", misaligned);
          t->state = T_FAILED;
          goto out;
        }
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
      uintptr_t data = (uintptr_t)a + ((sizeof(SimArr) + 15) & ~(size_t)15);
      a->data = (char *)((data + ai->align - 1) & ~(uintptr_t)(ai->align - 1));
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
    case SI_CMPI_EQ: R[I->d].u = CMPI(IR_CMPI_EQ); break;
    case SI_CMPI_NE: R[I->d].u = CMPI(IR_CMPI_NE); break;
    case SI_CMPI_SLT: R[I->d].u = CMPI(IR_CMPI_SLT); break;
    case SI_CMPI_SLE: R[I->d].u = CMPI(IR_CMPI_SLE); break;
    case SI_CMPI_SGT: R[I->d].u = CMPI(IR_CMPI_SGT); break;
    case SI_CMPI_SGE: R[I->d].u = CMPI(IR_CMPI_SGE); break;
    case SI_CMPI_ULT: R[I->d].u = CMPI(IR_CMPI_ULT); break;
    case SI_CMPI_ULE: R[I->d].u = CMPI(IR_CMPI_ULE); break;
    case SI_CMPI_UGT: R[I->d].u = CMPI(IR_CMPI_UGT); break;
    case SI_CMPI_UGE: R[I->d].u = CMPI(IR_CMPI_UGE); break;
    /* JCMP_<pred>: compare slots a and c, to imm when true, else to b */
#define JCMP(p) \
  pc = sem_cmpi((p), sext(R[I->a].u, I->sh), sext(R[I->c].u, I->sh), zext(R[I->a].u, I->sh), zext(R[I->c].u, I->sh)) \
           ? (uint32_t)I->imm                                                                                        \
           : I->b
    case SI_JCMP_EQ: JCMP(IR_CMPI_EQ); break;
    case SI_JCMP_NE: JCMP(IR_CMPI_NE); break;
    case SI_JCMP_SLT: JCMP(IR_CMPI_SLT); break;
    case SI_JCMP_SLE: JCMP(IR_CMPI_SLE); break;
    case SI_JCMP_SGT: JCMP(IR_CMPI_SGT); break;
    case SI_JCMP_SGE: JCMP(IR_CMPI_SGE); break;
    case SI_JCMP_ULT: JCMP(IR_CMPI_ULT); break;
    case SI_JCMP_ULE: JCMP(IR_CMPI_ULE); break;
    case SI_JCMP_UGT: JCMP(IR_CMPI_UGT); break;
    case SI_JCMP_UGE: JCMP(IR_CMPI_UGE); break;
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
      sim_report_fatal(B, t, SIM_ERR_RUNTIME, I, "internal error: an instruction of no known kind");
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
