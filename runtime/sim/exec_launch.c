/* exec_launch.c — the simulator's blocks and launches (exec.c's top comment describes the execution model): a
 * block's memory and threads, running a block until its threads end or wait, cooperative launches and their grid
 * barriers, the worker threads, and the entry points (sim_options_init, sim_arg_array_c, sim_program_launch,
 * sim_launch) with the checks of a launch's arguments. */
#include <string.h>
#include <unistd.h>

#include "runtime/sim/sim_internal.h"

/* The bytes [span[0], span[1]) the elements of a span (both 0 when it has none, or they overflow). */
static void array_span(const SimArray *a, size_t esize, uint64_t span[2]) {
  int64_t lo = 0, hi = (int64_t)esize;
  span[0] = span[1] = 0;
  for (unsigned k = 0; k < a->rank; k++) {
    int64_t e;
    if (a->shape[k] == 0 || __builtin_mul_overflow(a->shape[k] - 1, a->strides[k], &e)) return;
    if ((e < 0 && __builtin_add_overflow(lo, e, &lo)) || (e > 0 && __builtin_add_overflow(hi, e, &hi))) return;
  }
  span[0] = (uint64_t)(uintptr_t)a->data + (uint64_t)lo;
  span[1] = (uint64_t)(uintptr_t)a->data + (uint64_t)hi;
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
    if (g->captured) { /* device memory, as a kernel argument's */
      a->data = g->data;
      memcpy(a->strides, g->strides, sizeof *a->strides * g->rank);
      a->name = NULL;
      continue;
    }
    if (!g->shared) {
      a->data = g->data;
      a->flags = ARR_CONST;
      continue;
    }
    /* the data at the first multiple of align in the block (align - 1 bytes more than the data's) */
    if (!(B->gmem[i] = mem_calloc(1, (g->nbytes ? g->nbytes : 1) + (g->align - 1)))) return false;
    a->data = a->base = (char *)(((uintptr_t)B->gmem[i] + g->align - 1) & ~(uintptr_t)(g->align - 1));
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
    if (p->globals_v[i].shared) memset(B->garr[i].data, 0, p->globals_v[i].nbytes);
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
            if (!sim_frame_reserve(t, 0, k->frame_bytes)) {
              sim_report_fatal(B, t, SIM_ERR_NOMEM, NULL, "out of memory");
              t->state = T_FAILED;
              return BLOCK_STOPPED;
            }
            t->frames[0].fn = k;
            t->regs = t->frames[0].regs;
            memcpy(t->regs, L->frame0, nslot_bytes);
          }
          sim_run_thread(B, t);
          if (aborted(L)) return BLOCK_STOPPED;
        }
      } while (sim_resolve_warp(B, w));
      if (aborted(L)) return BLOCK_STOPPED;
    }
    Thread *first = NULL;
    for (unsigned i = 0; i < B->nthreads && !first; i++)
      if (B->threads[i].state == T_BARRIER) first = &B->threads[i];
    if (!first) return BLOCK_DONE;
    if (!sim_release_barrier(B, first)) return BLOCK_STOPPED;
    if (waiting_at(first)->code == SI_GRIDSYNC) {
      if (L->cooperative) return BLOCK_AT_GRID_BARRIER;
      sim_report_fatal(B, first, SIM_ERR_RUNTIME, waiting_at(first),
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
  L->arg_spans = mem_calloc(nargs ? nargs : 1, sizeof *L->arg_spans);
  L->nargs = nargs;
  if (!L->frame0 || !L->args || !L->arg_spans) {
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
        if (ok) array_span(sa, ty_size(ty_abi_elem((Type *)pt)), L->arg_spans[i]);
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
    } else if (pt->kind == TY_PTR && (a->kind == SIM_ARG_INT || a->kind == SIM_ARG_UINT)) {
      v.u = a->u; /* an address: checked where the kernel loads or stores through it (SimOptions.holds) */
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
  /* a launch variant (NAME__gs, NAME__tiled) reports as the kernel the user launched, as on the GPU */
  const char *variant_of = ir_op_attr_str(kernel_func, "variant_of");
  L.kname = variant_of ? variant_of : L.kernel->name;
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
  sim_emit_prints(&L, diag);
  result->steps = L.steps;
  result->seconds = now_s() - t0;
  mem_free(L.frame0);
  mem_free(L.args);
  mem_free(L.arg_spans);
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
