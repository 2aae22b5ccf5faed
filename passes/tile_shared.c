/* tile_shared.c — shared-memory tiling: a loop whose iterations make the threads of a block re-read the same
 * global elements (the naive matmul's A[i, k] and B[k, j]) stages them, tile by tile, in shared memory; so do
 * the neighbour reads of a kernel without a loop (stencils), where the cost model says it pays.
 *
 * Requires: valid structured IR, after bce (the checks it could not remove stay where they are). Preserves:
 * validity and each thread's results bit for bit (the same values combined in the same order). Uses the range
 * analysis, the affine analysis, ir_op_clone and ir_walk_callees.
 * Options (passes.def): bx, by (the block tiled for; 16x16), depth (the tiles' extent along the loop; 16),
 * report (a note at each loop, or a loop-less kernel's neighbour reads, looked at: tiled with what, or why not:
 * kfront compile --remarks=tile), rx, ry (register blocking; 4x4), prefetch, uniform, wide, speculate (below; on),
 * min-blocks (2), min-reuse (2) and halo-min-reuse (8) (the cost model).
 *
 * The variant. A kernel that is tiled keeps its code and gets a variant, a copy named NAME__tiled after it
 * (attribute variant_of; the kernel names it in tiled_variant), with the loop tiled. The variant's launch plan
 * (runtime/plan.c) says when the runtime launches it instead of the kernel: launch_block, the block it was
 * built for (any other block runs the kernel, whose registers and shared memory are its own: a 32x32 launch is
 * never refused for the variant's sake), and launch_disjoint, the pairs (tiled array, written array) whose
 * memory must not overlap (the same array passed as input and output runs the kernel); launch_min_blocks asks
 * the backend for registers enough for that many of its blocks per SM (.maxntid, .minnctapersm).
 *
 * The loop L: an scf.for of a kernel, in its entry block or directly in one arm of an scf.if there whose other
 * arm is empty (`if i < n and j < m:` around the loop, and `if i >= n or j >= m: return` before it, which the
 * frontend makes the same shape), with step 1 and launch-invariant bounds. A tiled load: a mem.load in L's
 * body (not in a nested loop) from a kernel parameter whose every index is affine (affine.h) in at most one
 * of tid.x, tid.y, L's variable (coefficient 1; blockIdx*blockDim and invariants free; each used by one index
 * at most), that uses L's variable and not both tid.x and tid.y (threads of the block share it), and has no cache
 * hint (attribute `cache`: cuda.ldcg ... read global memory as the user chose; so are neighbour reads with one).
 * Legal when: L's body has no barrier, warp op, call or return; the ops before L in the guarded arm are pure
 * (they move before the guard); the tiled arrays are never written (no store or atomic in the kernel names
 * them; the kernel calls no function that stores anything); every array the kernel writes is a parameter,
 * a local or a shared one; the tiles fit 48 KiB.
 *
 * The cost model (enough_reuse, enough_occupancy; its numbers are in the remarks). A tile pays when each of
 * its elements staged in shared memory is read by the block at least min-reuse times (per step of L: the
 * threads of the block over those that read distinct elements; 16 for each tile of the naive matmul on 16x16
 * blocks, 1 where no two threads share an element); tiles below are left as global loads, and L is not tiled
 * when none is left. A kernel without a loop reads its neighbourhood once: staging it costs a store, a barrier
 * and a shared load per element, which pays when reads per element staged reach halo-min-reuse (8: a 3-point
 * stencil on 256 threads reads each element 2.98 times, and Hopper's L1 already serves those neighbour reads:
 * tiled it ran at 61% of copy bandwidth on an H200, untiled 71%), or when a warp reads the array down a
 * column (threadIdx.x moving a row index, as `i, j = cuda.grid(2); u[i, j]` does): the tile's loads read
 * along rows, coalesced (a 5-point Jacobi on 16x16: 21% of copy bandwidth untiled, 32% tiled; bench/README.md
 * has the measurements). Then the occupancy: the tiles
 * and the kernel's own static shared memory leave shared memory (the target's, PassContext.target: on Hopper 228 KB
 * per SM, 1 KB reserved per block) for some blocks per SM; when that keeps under a quarter of the SM's threads (2048
 * on Hopper) busy, tiling is declined. The tiles must fit the target's shared memory per block (48 KB).
 *
 * Rewrite (rewrite, emit_tile_loop). In the variant:
 *     pre = this thread's elements of the first tiles         # prefetch: loaded before the loop
 *     for k0 in range(lb, ub, depth):                          # every thread, guard or not; carries L's values
 *         store pre into the tiles (element e = t + j*bx*by of each: A[index with tid/k := e's coordinates]
 *             if in bounds else 0)
 *         barrier
 *         pre = this thread's elements of the tiles at k0 + depth   # in flight during the compute
 *         if guard: carried = (for k in range(k0, min(k0 + depth, ub)): L's body, loads read the tiles)
 *         barrier
 * (t = tid.x + bx*tid.y; with prefetch=0 each step loads its own tiles' elements at its top; tiles with more
 * than TS_MAX_SLOTS elements per thread in all are loaded by a loop, with no prefetch). With `double`, each
 * tile has two buffers used in turn (the loop carries which) and the second barrier goes: a thread stores
 * into a buffer again only past the next step's barrier, which no thread passes before every thread has
 * finished reading it. The inner loop is split: a whole tile
 * (k0 + depth <= ub) runs `for kk in range(0, depth)` with k = k0 + kk (a constant trip count, unrolled by the
 * backend), the last partial one the loop above. Each thread's k runs through the same values in the same
 * order, its checks stay before its reads, and a tile element it reads was loaded from the same index it
 * would have read (the indices of the cooperative loads are the original index computations, cloned with
 * threadIdx and k replaced, so this holds whatever the index arithmetic does). Loads past the end read 0 and
 * are never read back. A thread ended by a failed check leaves its part of later tiles unloaded: after an
 * IndexError the outputs are not meaningful (as with grid-stride).
 *
 * Register blocking (rewrite_blocked), where legal besides: the kernel has no barrier, warp op, shared memory,
 * call, atomic, fence, lane id or nested return; the ops before L are pure; blockIdx.x and .y are read only
 * there, and in a tiled index only where it moves with threadIdx.x (.y); L's bounds do not depend on them.
 * The runtime launches ceil(grid / (rx, ry)) blocks (launch_grid_divisor) and passes the user's grid as three
 * hidden parameters (arg_names __kf_grid_x/y/z, which every gridDim read becomes): block (bx, by) computes what
 * the user's blocks (rx*bx + r, ry*by + c), r < rx, c < ry, compute (those that exist), its thread (tx, ty) as
 * the thread (tx, ty) of each of them, a virtual thread: the original code with blockIdx := that block's (so
 * every index, guard, check and store keeps its meaning). The tiles hold the rows of all those blocks, so
 * each thread reads rx + ry values from shared memory per k for rx * ry accumulations. With `wide`, a tile of
 * rank 2 moving with threadIdx over f blocks and with L stores that index last, element q*bw + t at t*f + q:
 * each thread's f values for one k are adjacent (one ld.shared.v4 for 4 floats; rows padded by 16 bytes).
 * With `uniform`, the block takes one path for the whole loop: barrier_reduce(and) of "every virtual thread of
 * this thread exists and passes its guard" picks between a loop over the tiles whose compute is one loop over
 * k with all the virtual threads' bodies and the edge blocks' path; each path's registers are its own. Each
 * virtual thread's values are combined in the original order. The edge path (tiling at any size, issue 24):
 * where L's body can run for a virtual thread that is out (not_speculatable: pure ops that cannot trap, the
 * tiled loads, checks on indices computed from k), each virtual thread that passes its guard first does its
 * checks over the whole loop (emit_checks; hoist-checks makes them a few), then the same loop over the tiles as
 * the other path, whole tiles unrolled, the bodies without their checks: an out one's values are never used
 * (what follows L runs only for the virtual threads that exist and pass their guard). So a partial block at the
 * matrix's edge costs about what a whole one does (it used to run each body under its guard, per k: ~12x the
 * instructions, and the last row of blocks, all edge blocks, ran in the launch's last wave). Otherwise, and
 * with speculate=0, the edge path's compute is one loop over k with each body under its guard.
 *
 * Neighbour reads (analyze_halo, rewrite_halo): a kernel without a loop whose body sits in a guard (an scf.if
 * after pure ops, as above). Its loads from a read-only parameter whose indices are affine in at most one of
 * tid.x, tid.y each (coefficient 1) and differ only by constants (a[i - 1], a[i], a[i + 1]; Python's
 * negative-index wrap-around the guard decides is looked through) share a halo tile: the block's elements
 * from the least offset to the greatest, (bx + 2) x (by + 2) for a 5-point Jacobi, for blocks of (bx, by)
 * (of bx*by threads when the reads move with threadIdx.x alone). Before the guard every thread stores its
 * elements (the index rebuilt from the affine form: exact for every thread that reads it; 0 outside the
 * array), a barrier; the reads read the tile. */
#include <stdio.h>
#include <string.h>

#include "passes.h"
#include "passes/affine.h"
#include "passes/range.h"

enum { TS_MAX_TILES = 8, TS_MAX_RANK = 3, TS_MAX_WRITTEN = 16, TS_MAX_VIRT = 64,
       TS_MAX_CARRY = 64, TS_MAX_OPS = 512, TS_MAX_SLOTS = 32, TS_MAX_MEMBERS = 16 };
enum { VAR_NONE = -1, VAR_TX = 0, VAR_TY = 1, VAR_K = 2 };

typedef struct Tile {
  Op *load;
  Value *array;
  unsigned rank;
  int var[TS_MAX_RANK];       /* per index: the variable it moves with */
  int64_t ext[TS_MAX_RANK];   /* the tile's extent along each index */
  Value *idx[TS_MAX_RANK];    /* the load's indices (they stay, dead, in L's body once the load reads the tile) */
  const char *global;         /* the shared mem.global's name */
  bool wide;                  /* stored wide (register blocking): see stored_dim */
  bool halo;                  /* neighbour reads (a kernel without a loop): the loads of members[], the same
                               * index but for constant offsets moff; the tile covers the block's elements
                               * from offset lo[d] on, idx[] being member 0's (offset ref = moff[0]) */
  unsigned nmembers;
  Op *members[TS_MAX_MEMBERS];
  int64_t moff[TS_MAX_MEMBERS][TS_MAX_RANK];
  int64_t lo[TS_MAX_RANK];
  Affine form[TS_MAX_RANK];   /* the index forms (halo: member 0's): what the tile loads compute */
  unsigned tdim;              /* wide: the index that moves with threadIdx */
  int64_t f;                  /* wide: the blocks along it (rx or ry) */
} Tile;

/* Where index d of the tile lives in its shared array. Plain: the same order. Wide (a register-blocked tile
 * of rank 2, one index moving with threadIdx.x or .y over f blocks of bw threads, the other with L): that
 * index is stored last, its element q*bw + t (block q, thread t) at t*f + q, so each thread's f values for
 * one k are adjacent: the backend can read them with one wide shared load (ld.shared.v4 for 4 floats). */
static unsigned stored_dim(const Tile *tl, unsigned d) {
  if (!tl->wide) return d;
  return d == tl->tdim ? tl->rank - 1 : d < tl->tdim ? d : d - 1;
}

/* The shared array's extents. The last one is padded so that threads reading down a column (A[i, k] by
 * consecutive i) hit distinct banks: by one element in a plain tile of more than one (a 16x16 float tile
 * read by column was a 16-way bank conflict on every read), by 16 bytes in a wide one (its rows stay
 * 16-byte aligned). The padding is never indexed. */
static void stored_shape(const Tile *tl, int64_t out[TS_MAX_RANK]) {
  for (unsigned d = 0; d < tl->rank; d++) out[stored_dim(tl, d)] = tl->ext[d];
  int64_t *last = &out[tl->rank - 1];
  if (tl->wide) *last += 16 / (int64_t)ty_size(tl->array->type->elem);
  else if (tl->rank > 1 && *last > 1) *last += 1;
}

static int64_t tile_bytes(const Tile *tl) {
  int64_t shape[TS_MAX_RANK], e = (int64_t)ty_size(tl->array->type->elem);
  stored_shape(tl, shape);
  for (unsigned d = 0; d < tl->rank; d++) e *= shape[d];
  return e;
}

/* The cost model's numbers (pays), for the remarks. */
typedef struct Cost {
  double reuse;               /* reads of the staged elements by the block per element staged */
  bool coalesces;             /* a halo tile staged because a warp reads its array down a column */
  SrcLoc first;               /* the first read looked at (a halo's: where the remark goes) */
  int64_t tile_bytes, user_bytes, blocks_by_shared, blocks;
  char why[200];
} Cost;

typedef struct Ts {
  Module *m;
  Diag *diag;
  const TargetFacts *target;  /* the GPU's limits: the shared-memory budget, the occupancy model's SM */
  RangeAnalysis *ra;
  int64_t bx, by, depth;
  int64_t rx, ry;             /* register blocking: a block computes rx x ry blocks' outputs (1 x 1: none) */
  bool report;
  bool prefetch;              /* the next tile's global loads issued before the current tile's compute */
  bool uniform;               /* register blocking: the block picks its path (all virtual threads in or not) once */
  bool wide;                  /* register blocking: wide tiles (stored_dim) */
  bool unroll;                /* a whole tile's steps emitted one after the other (not a loop) */
  bool dbuf;                  /* double-buffered tiles (a loop's): two of each, one barrier per step */
  bool speculate;             /* register blocking: the edge blocks' path speculates the out bodies (speculatable) */
  const char *edge_why;       /* register blocking: why the edge blocks' path does not speculate (NULL: it does) */
  Value *bufph;               /* dbuf: the template's placeholder for the buffer index (i64) */
  Value *buf;                 /* dbuf: the buffer index of the loop being emitted */
  int64_t min_blocks;         /* the variant's blocks per SM asked of the backend (launch_min_blocks; 0: none) */
  int64_t min_reuse, halo_min_reuse; /* the cost model's thresholds (options) */
  int64_t vbx, vby;           /* the block the variant runs with (bx, by; a 1-D kernel without a loop: bx*by, 1) */
  Cost cost;
  bool blocked;               /* L is register-blocked */
  Op *func;
  Op *loop, *guard;           /* L, and the scf.if around it (NULL: none) */
  unsigned arm;               /* the arm of guard holding L */
  Tile tiles[TS_MAX_TILES];
  unsigned ntiles;
  Value *written[TS_MAX_WRITTEN];
  unsigned nwritten;
  const char *why;            /* the reason L is not tiled */
} Ts;

static bool fail(Ts *t, const char *why) {
  if (!t->why) t->why = why;
  return false;
}

static bool is_param(Ts *t, const Value *v) { return !v->def && v->block == ir_func_entry(t->func); }

static bool region_is_empty(const Region *r) {
  return r->first && r->first == r->last && r->first->first == r->first->last && r->first->first->kind == OP_YIELD &&
         r->first->first->noperands == 0;
}

/* ---- legality ----------------------------------------------------------------------------------- */

typedef struct BodyScan {
  Ts *t;
  bool ok;
} BodyScan;

static bool scan_body(Op *op, void *user) {
  BodyScan *s = user;
  if (op_kind_has(op->kind, OPT_CONVERGENT)) return s->ok = fail(s->t, "the loop synchronises threads (barrier or warp op)");
  switch (op->kind) {
  case OP_FUNC_CALL: s->ok = fail(s->t, "the loop calls a function"); break;
  case OP_FUNC_RETURN: s->ok = fail(s->t, "the loop returns"); break;
  case OP_RAISE: s->ok = fail(s->t, "the loop raises"); break;
  default: break;
  }
  return s->ok;
}

/* The array a store or atomic writes, or NULL. */
static Value *written_array(const Op *op) {
  switch (op->kind) {
  case OP_STORE: return op_operand(op, 1);
  case OP_ATOMIC_RMW: case OP_ATOMIC_CAS: return op_operand(op, 0);
  default: return NULL;
  }
}

static bool collect_written(Op *op, void *user) {
  Ts *t = user;
  if (op->kind == OP_PTR_STORE) return fail(t, "the kernel writes through a pointer (which may alias a parameter)");
  Value *a = written_array(op);
  if (!a) return true;
  Op *d = a->def;
  if (d && d->kind == OP_GLOBAL_REF) { /* a captured device array is global memory a parameter may alias */
    const char *name = ir_op_attr_str(d, "name");
    Op *g = name ? ir_module_lookup(t->m, name) : NULL;
    const char *space = g ? ir_op_attr_str(g, "space") : NULL;
    if (space && strcmp(space, "captured") == 0) return fail(t, "the kernel writes a captured device array");
    return true;
  }
  if (d && (d->kind == OP_ALLOCA || d->kind == OP_DYN_SHARED)) return true;
  if (!is_param(t, a)) return fail(t, "the kernel writes an array that is not a parameter");
  for (unsigned i = 0; i < t->nwritten; i++)
    if (t->written[i] == a) return true;
  if (t->nwritten == TS_MAX_WRITTEN) return fail(t, "the kernel writes too many arrays");
  t->written[t->nwritten++] = a;
  return true;
}

static bool callee_writes(Op *callee, Op *call, void *user) {
  (void)call;
  bool *writes = user;
  if (!callee) {
    *writes = true;
    return false;
  }
  for (Block *b = callee->regions[0].first; b; b = b->next)
    for (Op *op = b->first; op; op = op->next)
      if (op->kind == OP_STORE || op->kind == OP_PTR_STORE || op->kind == OP_ATOMIC_RMW || op->kind == OP_ATOMIC_CAS || op->nregions) {
        *writes = true; /* (nested regions: looked at conservatively) */
        return false;
      }
  return true;
}

/* Classifies index i of load as moving with one variable; false when it cannot be tiled. */
static bool classify_index(Ts *t, Value *idx, int *var, Affine *form) {
  Affine f;
  if (!affine_of(t->ra, idx, &f)) return fail(t, "an index is not affine (or may wrap around)");
  *form = f;
  Value *iv = t->loop->regions[0].first->args[0];
  *var = VAR_NONE;
  for (unsigned k = 0; k < f.n; k++) {
    const AffTerm *a = &f.t[k];
    int v;
    switch (a->kind) {
    case AFF_BBASE: case AFF_SYM: continue;
    case AFF_TID:
      if (a->dim > 1) return fail(t, "an index uses threadIdx.z");
      v = (int)a->dim;
      break;
    case AFF_IV:
      if (a->v != iv) return fail(t, "an index uses the variable of another loop");
      v = VAR_K;
      break;
    default: return false;
    }
    if (a->coef != 1) return fail(t, "an index has a coefficient other than 1 on threadIdx or the loop variable");
    if (*var != VAR_NONE) return fail(t, "an index moves with two of threadIdx.x, threadIdx.y and the loop variable");
    *var = v;
  }
  return true;
}

/* Whether op sits in L's body outside any nested loop. */
static bool directly_in_loop(Ts *t, Op *op) {
  for (Op *p = ir_block_parent_op(op->block); p; p = ir_block_parent_op(p->block)) {
    if (p == t->loop) return true;
    if (op_has(p, OPT_LOOP)) return false;
  }
  return false;
}

typedef struct LoadScan {
  Ts *t;
} LoadScan;

static bool find_loads(Op *op, void *user) {
  Ts *t = ((LoadScan *)user)->t;
  /* (a load with a cache hint, cuda.ldcg ...: the user chose how it reads global memory; left alone) */
  if (op->kind != OP_LOAD || ir_op_attr(op, "cache") || !directly_in_loop(t, op)) return true;
  Value *a = op_operand(op, 0);
  if (!is_param(t, a) || a->type->rank > TS_MAX_RANK) return true;
  const char *saved = t->why;
  Tile tl = {.load = op, .array = a, .rank = a->type->rank};
  for (unsigned i = 0; i < tl.rank; i++) tl.idx[i] = op_operand(op, 1 + i);
  RangeMark mk = range_scope_open(t->ra);
  range_assume_context(t->ra, op);
  bool ok = true, used[3] = {false, false, false};
  for (unsigned i = 0; i < tl.rank && ok; i++) {
    ok = classify_index(t, op_operand(op, 1 + i), &tl.var[i], &tl.form[i]);
    if (ok && tl.var[i] != VAR_NONE) {
      if (used[tl.var[i]]) ok = fail(t, "two indices move with the same variable");
      used[tl.var[i]] = true;
    }
  }
  range_scope_close(t->ra, mk);
  if (ok && !used[VAR_K]) ok = fail(t, "a load does not move with the loop");
  if (ok && used[VAR_TX] && used[VAR_TY]) ok = fail(t, "a load is not shared by the threads of a block");
  if (!ok) return true; /* this load stays; the reason is kept for the report if no load is tiled */
  t->why = saved;
  for (unsigned i = 0; i < tl.rank; i++)
    tl.ext[i] = tl.var[i] == VAR_TX ? t->bx : tl.var[i] == VAR_TY ? t->by : tl.var[i] == VAR_K ? t->depth : 1;
  if (t->ntiles < TS_MAX_TILES) t->tiles[t->ntiles++] = tl;
  return true;
}


/* Whether L (in t) can be tiled; fills the tiles and the written arrays. */
static bool legal(Ts *t) {
  Op *L = t->loop;
  int64_t step;
  if (L->noperands < 3 || !value_const_int(op_operand(L, 2), &step) || step != 1)
    return fail(t, "the loop's step is not 1");
  if (!affine_is_invariant(op_operand(L, 0)) || !affine_is_invariant(op_operand(L, 1)))
    return fail(t, "the loop's bounds are not the same for every thread");
  BodyScan bs = {t, true};
  ir_walk_pre(L, scan_body, &bs);
  if (!bs.ok) return false;
  if (t->guard) {
    for (Op *op = t->guard->regions[t->arm].first->first; op != L; op = op->next)
      if (!op_has(op, OPT_PURE) || op->nregions) return fail(t, "the guard holds more than pure ops before the loop");
  }
  bool writes = false;
  ir_walk_callees(t->m, t->func, callee_writes, &writes);
  if (writes) return fail(t, "the kernel calls a function that may write memory");
  t->nwritten = 0;
  if (!ir_walk_pre(t->func, collect_written, t)) return false;
  t->ntiles = 0;
  LoadScan ls = {t};
  ir_walk_pre(L, find_loads, &ls);
  /* tiled arrays are read-only in the kernel */
  unsigned n = 0;
  for (unsigned i = 0; i < t->ntiles; i++) {
    bool w = false;
    for (unsigned j = 0; j < t->nwritten; j++) w |= t->written[j] == t->tiles[i].array;
    if (!w) t->tiles[n++] = t->tiles[i];
    else fail(t, "the array read is written by the kernel");
  }
  t->ntiles = n;
  if (!n) return fail(t, "no load is shared by the threads of a block");
  int64_t bytes = 0;
  for (unsigned i = 0; i < n; i++) bytes += tile_bytes(&t->tiles[i]) * (t->dbuf ? 2 : 1);
  if (bytes > t->target->shared_per_block) return fail(t, "the tiles do not fit the shared-memory budget");
  return true;
}

/* ---- neighbour reads: a kernel without a loop ------------------------------------------------------ */

/* Whether a and b are the same sum of terms, constants aside. */
static bool same_but_constant(const Affine *a, const Affine *b) {
  if (a->n != b->n) return false;
  for (unsigned i = 0; i < a->n; i++) {
    bool found = false;
    for (unsigned j = 0; j < b->n && !found; j++)
      found = a->t[i].kind == b->t[j].kind && a->t[i].dim == b->t[j].dim && a->t[i].v == b->t[j].v &&
              a->t[i].coef == b->t[j].coef;
    if (!found) return false;
  }
  return true;
}

typedef struct HaloScan {
  Ts *t;
} HaloScan;

/* A load in the guarded body (not in a loop) from a parameter, each index affine in at most one of
 * threadIdx.x and .y (coefficient 1; blockIdx*blockDim and invariants free): it joins the group of the
 * loads of its array whose indices differ from its own by constants only (a new group if none). */
static bool find_halo_loads(Op *op, void *user) {
  HaloScan *hs = user;
  Ts *t = hs->t;
  if (op->kind != OP_LOAD || ir_op_attr(op, "cache")) return true; /* (a cache hint: the user's choice, as above) */
  for (Op *p = ir_block_parent_op(op->block); p && p != t->guard; p = ir_block_parent_op(p->block))
    if (op_has(p, OPT_LOOP)) return true; /* (in a loop: read many times, left alone) */
  Value *a = op_operand(op, 0);
  unsigned rank = a->type->rank;
  if (!is_param(t, a) || rank > TS_MAX_RANK) return true;
  Affine f[TS_MAX_RANK];
  int var[TS_MAX_RANK];
  bool ok = true, used[2] = {false, false};
  RangeMark mk = range_scope_open(t->ra);
  range_assume_context(t->ra, op);
  for (unsigned d = 0; d < rank && ok; d++) {
    ok = affine_of(t->ra, op_operand(op, 1 + d), &f[d]);
    var[d] = VAR_NONE;
    for (unsigned k = 0; k < f[d].n && ok; k++) {
      const AffTerm *x = &f[d].t[k];
      if (x->kind == AFF_BBASE || x->kind == AFF_SYM) continue;
      ok = x->kind == AFF_TID && x->dim < 2 && x->coef == 1 && var[d] == VAR_NONE && !used[x->dim];
      if (ok) used[x->dim] = true, var[d] = (int)x->dim;
    }
  }
  range_scope_close(t->ra, mk);
  if (!ok) return true;
  for (unsigned g = 0; g < t->ntiles; g++) {
    Tile *tl = &t->tiles[g];
    bool same = tl->array == a && tl->nmembers < TS_MAX_MEMBERS;
    for (unsigned d = 0; d < rank && same; d++) same = tl->var[d] == var[d] && same_but_constant(&tl->form[d], &f[d]);
    if (!same) continue;
    tl->members[tl->nmembers] = op;
    for (unsigned d = 0; d < rank; d++) tl->moff[tl->nmembers][d] = f[d].c;
    tl->nmembers++;
    return true;
  }
  if (t->ntiles == TS_MAX_TILES) return true;
  Tile *tl = &t->tiles[t->ntiles];
  *tl = (Tile){.load = op, .array = a, .rank = rank, .halo = true, .nmembers = 1, .members = {op}};
  for (unsigned d = 0; d < rank; d++) {
    tl->idx[d] = op_operand(op, 1 + d);
    tl->var[d] = var[d];
    tl->moff[0][d] = f[d].c;
    tl->form[d] = f[d];
  }
  t->ntiles++;
  return true;
}

/* Whether the guarded body of a kernel without a loop (G's arm) reads neighbours that the threads of a block
 * share: fills the tiles (the groups with more than one offset) and the written arrays. */
static bool legal_halo(Ts *t) {
  Op *G = t->guard;
  for (Op *op = ir_func_entry(t->func)->first; op != G; op = op->next)
    if (!op_has(op, OPT_PURE) || op->nregions) return fail(t, "the kernel does more than pure ops before its guard");
  BodyScan bs = {t, true};
  for (Op *op = G->regions[t->arm].first->first; op && bs.ok; op = op->next) ir_walk_pre(op, scan_body, &bs);
  if (!bs.ok) return false;
  bool writes = false;
  ir_walk_callees(t->m, t->func, callee_writes, &writes);
  if (writes) return fail(t, "the kernel calls a function that may write memory");
  t->nwritten = 0;
  if (!ir_walk_pre(t->func, collect_written, t)) return false;
  t->ntiles = 0;
  HaloScan hs = {t};
  for (Op *op = G->regions[t->arm].first->first; op; op = op->next) ir_walk_pre(op, find_halo_loads, &hs);
  /* a kernel whose reads move with threadIdx.x alone is tiled for 1-D blocks of bx*by threads */
  bool uses_y = false;
  for (unsigned i = 0; i < t->ntiles; i++)
    for (unsigned d = 0; d < t->tiles[i].rank; d++) uses_y |= t->tiles[i].var[d] == VAR_TY;
  t->vbx = uses_y ? t->bx : t->bx * t->by;
  t->vby = uses_y ? t->by : 1;
  unsigned n = 0;
  for (unsigned i = 0; i < t->ntiles; i++) {
    Tile *tl = &t->tiles[i];
    bool w = false, spread = false, shared = false;
    for (unsigned j = 0; j < t->nwritten; j++) w |= t->written[j] == tl->array;
    int64_t hi[TS_MAX_RANK];
    for (unsigned d = 0; d < tl->rank; d++) {
      tl->lo[d] = hi[d] = tl->moff[0][d];
      for (unsigned m = 1; m < tl->nmembers; m++) {
        if (tl->moff[m][d] < tl->lo[d]) tl->lo[d] = tl->moff[m][d];
        if (tl->moff[m][d] > hi[d]) hi[d] = tl->moff[m][d];
      }
      spread |= hi[d] > tl->lo[d];
      shared |= tl->var[d] != VAR_NONE;
      int64_t base = tl->var[d] == VAR_TX ? t->vbx : tl->var[d] == VAR_TY ? t->vby : 1;
      tl->ext[d] = base + hi[d] - tl->lo[d];
    }
    if (w) fail(t, "the array read is written by the kernel");
    else if (spread && shared) t->tiles[n++] = *tl;
  }
  t->ntiles = n;
  if (!n) return fail(t, "no neighbour reads shared by the threads of a block");
  return true;
}

/* ---- the cost model -------------------------------------------------------------------------------- */

typedef struct SharedScan {
  Module *m;
  int64_t bytes;
  const char *seen[64];
  unsigned nseen;
} SharedScan;

static bool count_shared(Op *op, void *user) {
  SharedScan *s = user;
  if (op->kind != OP_GLOBAL_REF) return true;
  const char *name = ir_op_attr_str(op, "name");
  Op *g = name ? ir_module_lookup(s->m, name) : NULL;
  const char *space = g ? ir_op_attr_str(g, "space") : NULL;
  if (!space || strcmp(space, "shared") != 0) return true;
  for (unsigned i = 0; i < s->nseen; i++)
    if (strcmp(s->seen[i], name) == 0) return true;
  if (s->nseen < 64) s->seen[s->nseen++] = name;
  Type *ty = ir_op_attr_type(g, "type");
  const Attr *shape = ir_op_attr(g, "shape");
  int64_t e = ty && ty->kind == TY_ARRAY ? (int64_t)ty_size(ty->elem) : 0;
  for (unsigned d = 0; shape && shape->kind == ATTR_ARRAY && d < shape->arr.n; d++) e *= shape->arr.elems[d].i;
  s->bytes += e;
  return true;
}

static bool count_shared_callee(Op *callee, Op *call, void *user) {
  (void)call;
  if (callee) ir_walk_pre(callee, count_shared, user);
  return true;
}

/* Whether the threads of a warp read tl's array down a column: threadIdx.x moves an index other than the
 * array's contiguous one (the last; the first of an F-ordered array), so a warp's read touches 32 rows where
 * the tile's loads read along rows. */
static bool warp_reads_down_a_column(const Tile *tl) {
  if (tl->rank < 2) return false;
  unsigned contiguous = tl->array->type->layout == LAYOUT_F ? 0 : tl->rank - 1;
  for (unsigned d = 0; d < tl->rank; d++)
    if (tl->var[d] == VAR_TX && d != contiguous) return true;
  return false;
}

/* The cost model, first part: the reads of a tile's elements by the block per element staged (per step of
 * L, or for the whole halo tile); tiles read fewer than min-reuse (halo-min-reuse) times are dropped, but for
 * a halo tile whose array a warp reads down a column (then staging it turns 32 rows read per warp into
 * rows read along: measured 1.5x on a 5-point Jacobi, bench/README.md). False (the reason kept) when none is
 * left. */
static bool enough_reuse(Ts *t) {
  Cost *c = &t->cost;
  int64_t threads = t->vbx * t->vby, reads = 0, loaded = 0;
  double need = t->loop ? (double)t->min_reuse : (double)t->halo_min_reuse, best = 0;
  unsigned n = 0;
  if (t->ntiles && t->tiles[0].halo) c->first = t->tiles[0].members[0]->loc;
  for (unsigned i = 0; i < t->ntiles; i++) {
    Tile *tl = &t->tiles[i];
    int64_t elems = 1; /* one block's (register blocking aside) */
    for (unsigned d = 0; d < tl->rank; d++)
      elems *= tl->halo ? tl->ext[d] : tl->var[d] == VAR_TX ? t->vbx : tl->var[d] == VAR_TY ? t->vby : 1;
    int64_t r = threads * (tl->halo ? tl->nmembers : 1);
    double reuse = (double)r / (double)elems;
    if (reuse > best) best = reuse;
    bool column = tl->halo && warp_reads_down_a_column(tl);
    c->coalesces |= column;
    if (reuse < need && !column) continue;
    reads += r;
    loaded += elems;
    t->tiles[n++] = *tl;
  }
  t->ntiles = n;
  c->reuse = n ? (double)reads / (double)loaded : best;
  if (n) return true;
  snprintf(c->why, sizeof c->why, "the cost model: each element staged would be read %.2f times, under the %.0f that "
           "pay%s", best, need, t->loop ? "" : " for a kernel without a loop (Hopper's L1 already serves neighbour reads)");
  t->why = c->why; /* the reason, whatever dropped other loads before */
  return false;
}

/* The cost model, second part (the tiles final): the blocks per SM that the tiles and the kernel's own static
 * shared memory leave (the target's: Hopper has 228 KB per SM, 1 KB reserved per block), against those the block's
 * threads allow; tiling is declined when the SM would keep under a quarter of its threads busy. */
static bool enough_occupancy(Ts *t) {
  Cost *c = &t->cost;
  int64_t threads = t->vbx * t->vby;
  c->tile_bytes = 0;
  for (unsigned i = 0; i < t->ntiles; i++) c->tile_bytes += tile_bytes(&t->tiles[i]) * (t->loop && t->dbuf ? 2 : 1);
  SharedScan ss = {.m = t->m};
  ir_walk_pre(t->func, count_shared, &ss);
  ir_walk_callees(t->m, t->func, count_shared_callee, &ss);
  c->user_bytes = ss.bytes;
  const TargetFacts *sm = t->target;
  int64_t by_threads = sm->threads_per_sm / threads;
  if (by_threads > sm->blocks_per_sm) by_threads = sm->blocks_per_sm;
  c->blocks_by_shared = sm->shared_per_sm / (c->tile_bytes + ss.bytes + sm->shared_reserved_per_block);
  c->blocks = c->blocks_by_shared < by_threads ? c->blocks_by_shared : by_threads;
  if (4 * c->blocks * threads >= sm->threads_per_sm) return true;
  snprintf(c->why, sizeof c->why, "the cost model: %lld bytes of tiles leave room for %lld block(s) of %lld threads "
           "per SM, under a quarter of its threads", (long long)c->tile_bytes, (long long)c->blocks, (long long)threads);
  t->why = c->why;
  return false;
}

/* ---- rewriting ---------------------------------------------------------------------------------- */

static Value *c64(IrBuilder *b, int64_t v) { return ib_const_int(b, ty_i64(b->ctx), v); }

/* Whether v is computed from blockIdx along a dim of mask (bit d: dim d; conservatively true past a depth). */
static bool uses_block_id(const Value *v, unsigned mask, unsigned depth) {
  const Op *d = v->def;
  if (!d) return false;
  if (d->kind == OP_BLOCK_ID) return (mask >> ir_op_attr_int(d, "dim", 0)) & 1;
  if (depth > 48) return true;
  for (unsigned i = 0; i < d->noperands; i++)
    if (uses_block_id(d->operands[i].value, mask, depth + 1)) return true;
  return false;
}

/* The index computation of v, cloned at b with threadIdx and L's variable replaced (tid[d]: i32 values,
 * NULL: 0; k: the value for L's variable). Values that do not depend on them and are defined outside L (the
 * guard, for a kernel without a loop) are used as they are. */
static Value *substitute(Ts *t, IrBuilder *b, Value *v, Value *const tid[2], Value *const bid[2], Value *k,
                         PtrMap *memo) {
  Value *m = ptrmap_get(memo, v);
  if (m) return m;
  Value *iv = t->loop ? t->loop->regions[0].first->args[0] : NULL;
  Op *d = v->def;
  if (iv && v == iv) return k;
  if (d && d->kind == OP_THREAD_ID) {
    int64_t dim = ir_op_attr_int(d, "dim", 0);
    return dim < 2 && tid[dim] ? tid[dim] : ib_const_int(b, v->type, 0);
  }
  if (d && d->kind == OP_BLOCK_ID && ir_op_attr_int(d, "dim", 0) < 2 && bid[ir_op_attr_int(d, "dim", 0)])
    return bid[ir_op_attr_int(d, "dim", 0)];
  Op *scope = t->loop ? t->loop : t->guard; /* what the tile loads are placed before */
  bool inside = d ? ir_op_is_ancestor(scope, d) : ir_block_parent_op(v->block) == scope;
  if (!inside && affine_is_invariant(v) && !((bid[0] || bid[1]) && uses_block_id(v, 3, 0))) return v;
  if (!d || d->nregions || !op_has(d, OPT_PURE)) return NULL; /* affine_of would have refused it */
  PtrMap map = {0};
  for (unsigned i = 0; i < d->noperands; i++) {
    Value *x = substitute(t, b, op_operand(d, i), tid, bid, k, memo);
    if (!x) {
      ptrmap_free(&map);
      return NULL;
    }
    ptrmap_put(&map, op_operand(d, i), x);
  }
  Op *c = ir_op_clone(t->m, d, &map);
  ptrmap_free(&map);
  ib_insert(b, c);
  Value *r = op_result(c, v->index);
  ptrmap_put(memo, v, r);
  return r;
}

/* Whether the tiles have two buffers (the leading index of their shared arrays). */
static unsigned double_buffered(const Ts *t) { return t->dbuf && t->loop ? 1 : 0; }

static const char *new_global(Ts *t, Tile *tl, unsigned n) {
  char name[160];
  snprintf(name, sizeof name, "__kf_tile_%s_%u", ir_func_name(t->func), n);
  Attr shape[1 + TS_MAX_RANK];
  int64_t ext[TS_MAX_RANK];
  stored_shape(tl, ext);
  Type *i64 = ty_i64(t->m->ctx);
  unsigned lead = double_buffered(t), rank = tl->rank + lead;
  if (lead) shape[0] = attr_int(i64, 2);
  for (unsigned d = 0; d < tl->rank; d++) shape[lead + d] = attr_int(i64, ext[d]);
  Op *g = ir_op_create(t->m, OP_GLOBAL, (t->loop ? t->loop : t->guard)->loc, 0, NULL, 0, NULL, 0);
  ir_op_set_attr(t->m, g, "sym_name", attr_sym(t->m, name));
  ir_op_set_attr(t->m, g, "type", attr_type(ty_array(t->m->ctx, tl->array->type->elem, rank, LAYOUT_C)));
  ir_op_set_attr(t->m, g, "shape", attr_array(t->m, rank, shape));
  ir_op_set_attr(t->m, g, "space", attr_str(t->m, "shared"));
  ir_op_insert_before(t->func, g);
  ir_module_add_symbol(t->m, g);
  return ir_op_attr_str(g, "sym_name");
}

static Value *tile_ref(Ts *t, IrBuilder *b, const Tile *tl) {
  Type *at = ty_array(t->m->ctx, tl->array->type->elem, tl->rank + double_buffered(t), LAYOUT_C);
  Op *r = ib_op(b, OP_GLOBAL_REF, 0, NULL, 1, &at, 0);
  ir_op_set_attr(t->m, r, "name", attr_sym(t->m, tl->global));
  return op_result(r, 0);
}

/* ---- the cooperative loads ------------------------------------------------------------------------ */

static int64_t tile_elements(const Tile *tl) {
  int64_t size = 1;
  for (unsigned d = 0; d < tl->rank; d++) size *= tl->ext[d];
  return size;
}

/* Element e of the tile in C order (the last index fastest: consecutive threads read consecutive elements
 * of A along its last index, coalesced): its coordinates. */
static void tile_coords(IrBuilder *b, const Tile *tl, Value *e, Value *coord[TS_MAX_RANK]) {
  Value *rest = e;
  for (int d = (int)tl->rank - 1; d >= 0; d--) {
    coord[d] = d ? ib_binary(b, OP_REMSI, rest, c64(b, tl->ext[d])) : rest;
    if (d) rest = ib_binary(b, OP_DIVSI, rest, c64(b, tl->ext[d]));
  }
}

/* The i64 sum of f's terms but threadIdx's (and its constant): blockIdx*blockDim and invariant symbols. */
static Value *affine_rest(Ts *t, IrBuilder *b, const Affine *f, PtrMap *memo) {
  Type *i64 = ty_i64(t->m->ctx);
  Value *sum = c64(b, 0);
  Value *none[2] = {NULL, NULL};
  for (unsigned i = 0; i < f->n; i++) {
    const AffTerm *x = &f->t[i];
    Value *v = NULL;
    if (x->kind == AFF_BBASE) {
      Value *id = ib_cast(b, ib_gpu_id(b, OP_BLOCK_ID, x->dim), i64);
      Value *dim = ib_cast(b, ib_gpu_id(b, OP_BLOCK_DIM, x->dim), i64);
      v = ib_binary(b, OP_MULI, id, dim);
    } else if (x->kind == AFF_SYM) {
      v = ib_cast(b, substitute(t, b, x->v, none, none, NULL, memo), i64);
    } else {
      continue;
    }
    if (x->coef != 1) v = ib_binary(b, OP_MULI, v, c64(b, x->coef));
    sum = ib_binary(b, OP_ADDI, sum, v);
  }
  return sum;
}

/* The i64 value of the affine form f with threadIdx (tid[d]: i32 values, NULL: 0), L's variable (k) and, under
 * register blocking, blockIdx (bid[d], NULL: the block's own) replaced. Exact: the affine analysis proved the
 * index is this sum with no wrap-around for every thread that reads it. The index computation itself is not
 * cloned: it may hold selects that only the ranges at the load decide, and values (loads before L) that
 * cannot be recomputed for another thread's coordinate. */
static Value *affine_value(Ts *t, IrBuilder *b, const Affine *f, Value *const tid[2], Value *const bid[2], Value *k,
                           PtrMap *memo) {
  Type *i64 = ty_i64(t->m->ctx);
  Value *sum = c64(b, f->c);
  for (unsigned i = 0; i < f->n; i++) {
    const AffTerm *x = &f->t[i];
    Value *v;
    switch (x->kind) {
    case AFF_TID: v = x->dim < 2 && tid[x->dim] ? ib_cast(b, tid[x->dim], i64) : c64(b, 0); break;
    case AFF_BBASE: {
      Value *id = x->dim < 2 && bid[x->dim] ? bid[x->dim] : ib_gpu_id(b, OP_BLOCK_ID, x->dim);
      v = ib_binary(b, OP_MULI, ib_cast(b, id, i64), ib_cast(b, ib_gpu_id(b, OP_BLOCK_DIM, x->dim), i64));
      break;
    }
    case AFF_IV: v = k; break; /* (classify_index: only L's variable) */
    default: v = ib_cast(b, substitute(t, b, x->v, tid, bid, k, memo), i64); break; /* AFF_SYM: invariant */
    }
    if (x->coef != 1) v = ib_binary(b, OP_MULI, v, c64(b, x->coef));
    sum = ib_binary(b, OP_ADDI, sum, v);
  }
  return sum;
}

/* The tile's element at coord for the tile starting at k0: A at the index the original load computes (its
 * affine form: affine_value) with threadIdx and L's variable replaced by the coordinate's (and blockIdx, under
 * register blocking, by that of the block the coordinate falls in: bidbase, the first block's), or 0 where that
 * index is outside A or where `valid` (when given) is false: never a failed check. A halo tile's element:
 * rebuilt from member 0's affine form, its terms but threadIdx's plus lo + the coordinate (exact: the affine
 * analysis proved each member's index is those terms + threadIdx + its offset, with no wrap-around, for every
 * thread that reads it). */
static Value *tile_value(Ts *t, IrBuilder *b, const Tile *tl, Value *const coord[], Value *k0, Value *const bidbase[2],
                         Value *valid) {
  Value *tid[2] = {NULL, NULL}, *bid[2] = {NULL, NULL}, *k = NULL;
  Type *i32 = ty_i32(t->m->ctx);
  for (unsigned d = 0; d < tl->rank && !tl->halo; d++) {
    if (tl->var[d] == VAR_TX || tl->var[d] == VAR_TY) {
      int v = tl->var[d];
      Value *c = coord[d], *w = c64(b, v == VAR_TX ? t->bx : t->by);
      if (bidbase[v]) { /* register blocking: the coordinate runs over the threads of rx (ry) blocks */
        Value *q = ib_binary(b, OP_DIVSI, c, w);
        Value *q32 = ib_unary(b, OP_TRUNCI, q, i32);
        bid[v] = ib_binary(b, OP_ADDI, bidbase[v], q32);
        c = ib_binary(b, OP_REMSI, c, w);
      }
      tid[v] = ib_unary(b, OP_TRUNCI, c, i32);
    }
    if (tl->var[d] == VAR_K) k = ib_binary(b, OP_ADDI, k0, coord[d]);
  }
  Value *gidx[TS_MAX_RANK];
  Value *inb = valid ? valid : ib_const_bool(b, true);
  PtrMap memo = {0};
  for (unsigned d = 0; d < tl->rank; d++) {
    if (tl->halo) { /* the index's terms but threadIdx's and the constant, plus lo and the coordinate */
      Value *rest = affine_rest(t, b, &tl->form[d], &memo); /* (one op-building call per statement: a fixed order) */
      Value *at = ib_binary(b, OP_ADDI, coord[d], c64(b, tl->lo[d]));
      gidx[d] = ib_binary(b, OP_ADDI, rest, at);
    } else {
      gidx[d] = affine_value(t, b, &tl->form[d], tid, bid, k, &memo);
    }
    Value *n = ib_dim(b, tl->array, d);
    Value *zero = c64(b, 0);
    Value *above = ib_cmpi(b, IR_CMPI_SGE, gidx[d], zero);
    Value *below = ib_cmpi(b, IR_CMPI_SLT, gidx[d], n);
    Value *inside = ib_binary(b, OP_ANDI, above, below);
    inb = ib_binary(b, OP_ANDI, inb, inside);
  }
  ptrmap_free(&memo);
  Type *et = tl->array->type->elem;
  Op *pick = ib_op(b, OP_IF, 1, &inb, 1, &et, 2);
  Block *yes = ir_block_new(t->m), *no = ir_block_new(t->m);
  ir_region_append_block(&pick->regions[0], yes);
  ir_region_append_block(&pick->regions[1], no);
  IrBuilder y;
  ib_init(&y, t->m);
  y.loc = b->loc;
  ib_set_end(&y, yes);
  Value *lops[1 + TS_MAX_RANK] = {tl->array};
  for (unsigned d = 0; d < tl->rank; d++) lops[1 + d] = gidx[d];
  Value *v = op_result(ib_op(&y, OP_LOAD, 1 + tl->rank, lops, 1, &et, 0), 0);
  ib_op(&y, OP_YIELD, 1, &v, 0, NULL, 0);
  ib_set_end(&y, no);
  Value *zero;
  if (et->kind == TY_COMPLEX) { /* a complex element: complex.create of two zeros */
    Value *parts[2] = {ib_const_float(&y, et->elem, 0.0), ib_const_float(&y, et->elem, 0.0)};
    zero = op_result(ib_op(&y, OP_COMPLEX_CREATE, 2, parts, 1, &et, 0), 0);
  } else {
    zero = ty_is_float(et) ? ib_const_float(&y, et, 0.0) : ty_is_bool(et) ? ib_const_bool(&y, false) : ib_const_int(&y, et, 0);
  }
  ib_op(&y, OP_YIELD, 1, &zero, 0, NULL, 0);
  return op_result(pick, 0);
}

/* Stores v as the tile's element at coord, at its place in the shared array (stored_dim). */
static void tile_store(Ts *t, IrBuilder *b, const Tile *tl, Value *const coord[], Value *v) {
  Value *sops[3 + TS_MAX_RANK] = {v, tile_ref(t, b, tl)};
  unsigned lead = double_buffered(t);
  if (lead) sops[2] = t->buf;
  for (unsigned d = 0; d < tl->rank; d++) {
    Value *c = coord[d];
    if (tl->wide && d == tl->tdim) { /* element q*bw + t at t*f + q */
      Value *w = c64(b, tl->var[d] == VAR_TX ? t->bx : t->by);
      Value *q = ib_binary(b, OP_DIVSI, c, w);
      Value *r = ib_binary(b, OP_REMSI, c, w);
      c = ib_binary(b, OP_ADDI, ib_binary(b, OP_MULI, r, c64(b, tl->f)), q);
    }
    sops[2 + lead + stored_dim(tl, d)] = c;
  }
  ib_op(b, OP_STORE, 2 + lead + tl->rank, sops, 0, NULL, 0);
}

/* The loop form, where a tile has more elements per thread than fit the slots:
 * for e in range(lin, size, bx*by): tile[e] = its value */
static void cooperative_load(Ts *t, IrBuilder *b, Tile *tl, Value *lin, Value *k0, Value *const bidbase[2]) {
  Value *bounds[3] = {lin, NULL, NULL};
  bounds[1] = c64(b, tile_elements(tl));
  bounds[2] = c64(b, t->bx * t->by);
  Op *loop = ib_op(b, OP_FOR, 3, bounds, 0, NULL, 1);
  Block *body = ir_block_new(t->m);
  ir_region_append_block(&loop->regions[0], body);
  Value *e = ir_block_add_arg(t->m, body, ty_i64(t->m->ctx));
  IrBuilder in;
  ib_init(&in, t->m);
  in.loc = b->loc;
  ib_set_end(&in, body);
  Value *coord[TS_MAX_RANK];
  tile_coords(&in, tl, e, coord);
  tile_store(t, &in, tl, coord, tile_value(t, &in, tl, coord, k0, bidbase, NULL));
  ib_op(&in, OP_YIELD, 0, NULL, 0, NULL, 0);
}

/* The slot form: thread lin holds elements lin + j*bx*by (j < slots) of each tile. */
static unsigned tile_slots(const Ts *t, const Tile *tl) {
  int64_t n = t->bx * t->by;
  return (unsigned)((tile_elements(tl) + n - 1) / n);
}

static unsigned total_slots(const Ts *t) {
  unsigned n = 0;
  for (unsigned i = 0; i < t->ntiles; i++) n += tile_slots(t, &t->tiles[i]);
  return n;
}

/* Element j of this thread's slots of tile tl, and whether it exists (NULL: always). */
static Value *slot_element(const Ts *t, IrBuilder *b, const Tile *tl, Value *lin, unsigned j, Value **exists) {
  int64_t n = t->bx * t->by, size = tile_elements(tl);
  Value *e = j ? ib_binary(b, OP_ADDI, lin, c64(b, (int64_t)j * n)) : lin;
  *exists = size % n && (int64_t)(j + 1) * n > size ? ib_cmpi(b, IR_CMPI_SLT, e, c64(b, size)) : NULL;
  return e;
}

/* This thread's elements of every tile starting at k0, in out[0..total_slots). */
static void slot_values(Ts *t, IrBuilder *b, Value *lin, Value *k0, Value *const bidbase[2], Value **out) {
  unsigned n = 0;
  for (unsigned i = 0; i < t->ntiles; i++)
    for (unsigned j = 0; j < tile_slots(t, &t->tiles[i]); j++) {
      Value *exists, *coord[TS_MAX_RANK];
      Value *e = slot_element(t, b, &t->tiles[i], lin, j, &exists);
      tile_coords(b, &t->tiles[i], e, coord);
      out[n++] = tile_value(t, b, &t->tiles[i], coord, k0, bidbase, exists);
    }
}

/* Stores this thread's slots (vals, as slot_values gave them) into the tiles. */
static void slot_stores(Ts *t, IrBuilder *b, Value *lin, Value *const *vals) {
  unsigned n = 0;
  for (unsigned i = 0; i < t->ntiles; i++)
    for (unsigned j = 0; j < tile_slots(t, &t->tiles[i]); j++) {
      Value *exists, *coord[TS_MAX_RANK];
      Value *e = slot_element(t, b, &t->tiles[i], lin, j, &exists);
      IrBuilder g, *at = b;
      if (exists) { /* the last slot of a tile whose size is not a multiple of the block */
        Op *gi = ib_op(b, OP_IF, 1, &exists, 0, NULL, 2);
        Block *yes = ir_block_new(t->m), *no = ir_block_new(t->m);
        ir_region_append_block(&gi->regions[0], yes);
        ir_region_append_block(&gi->regions[1], no);
        ib_init(&g, t->m);
        g.loc = b->loc;
        ib_set_end(&g, no);
        ib_op(&g, OP_YIELD, 0, NULL, 0, NULL, 0);
        ib_set_end(&g, yes);
        at = &g;
      }
      tile_coords(at, &t->tiles[i], e, coord);
      tile_store(t, at, &t->tiles[i], coord, vals[n++]);
      if (exists) ib_op(at, OP_YIELD, 0, NULL, 0, NULL, 0);
    }
}

/* The compute of one tile: given the builder inside the loop over the tiles (after the barrier that makes
 * the tile starting at k0 visible), the values carried in, fills next with the values carried out. */
typedef void (*ComputeFn)(Ts *t, IrBuilder *b, Value *k0, Value *const *carried, Value **next, void *user);

/* for k0 in range(lb, ub, depth), carrying init[0..nc):
 *     every thread stores its elements of the tiles starting at k0; barrier; compute; barrier
 * With prefetch (and the slot form), each thread's elements of the next tiles (k0 + depth) are loaded into
 * registers, carried by the loop, right after the first barrier and stored at the top of the next
 * iteration: the global loads are in flight during the compute (the first tiles are loaded before the
 * loop). Loads past the loop's end read what A holds there or 0 outside it, and are never used. Returns
 * the loop; its first nc results are the computed values. */
static Op *emit_tile_loop(Ts *t, IrBuilder *b, Value *lb, Value *ub, unsigned nc, Value *const *init, Value *lin,
                          Value *const bidbase[2], ComputeFn compute, void *user) {
  unsigned nslots = total_slots(t);
  bool slots = nslots <= TS_MAX_SLOTS, prefetch = slots && t->prefetch;
  unsigned np = prefetch ? nslots : 0, nb = double_buffered(t), n = nc + np + nb;
  Value *ops[4 + TS_MAX_CARRY + TS_MAX_SLOTS];
  Type *types[1 + TS_MAX_CARRY + TS_MAX_SLOTS];
  ops[0] = lb;
  ops[1] = ub;
  ops[2] = c64(b, t->depth);
  for (unsigned i = 0; i < nc; i++) ops[3 + i] = init[i];
  if (prefetch) slot_values(t, b, lin, lb, bidbase, &ops[3 + nc]);
  if (nb) ops[3 + nc + np] = c64(b, 0); /* the buffer the first tiles go to */
  for (unsigned i = 0; i < n; i++) types[i] = ops[3 + i]->type;
  Op *loop = ib_op(b, OP_FOR, 3 + n, ops, n, types, 1);
  Block *body = ir_block_new(t->m);
  ir_region_append_block(&loop->regions[0], body);
  Value *k0 = ir_block_add_arg(t->m, body, ty_i64(t->m->ctx));
  for (unsigned i = 0; i < n; i++) ir_block_add_arg(t->m, body, types[i]);
  if (nb) t->buf = body->args[1 + nc + np];
  IrBuilder in;
  ib_init(&in, t->m);
  in.loc = b->loc;
  ib_set_end(&in, body);
  if (prefetch) {
    slot_stores(t, &in, lin, &body->args[1 + nc]);
  } else if (slots) {
    Value *vals[TS_MAX_SLOTS];
    slot_values(t, &in, lin, k0, bidbase, vals);
    slot_stores(t, &in, lin, vals);
  } else {
    for (unsigned i = 0; i < t->ntiles; i++) cooperative_load(t, &in, &t->tiles[i], lin, k0, bidbase);
  }
  ib_op(&in, OP_BARRIER, 0, NULL, 0, NULL, 0);
  Value *next[1 + TS_MAX_CARRY + TS_MAX_SLOTS];
  if (prefetch) {
    Value *k1 = ib_binary(&in, OP_ADDI, k0, c64(&in, t->depth));
    slot_values(t, &in, lin, k1, bidbase, &next[nc]);
  }
  compute(t, &in, k0, &body->args[1], next, user);
  /* one buffer: the next step's stores wait for this step's reads; two: they go to the other buffer, and a
   * thread reaches the stores into this one again only past the next step's barrier, which every thread
   * reaches only after this compute */
  if (nb) next[nc + np] = ib_binary(&in, OP_SUBI, c64(&in, 1), t->buf);
  else ib_op(&in, OP_BARRIER, 0, NULL, 0, NULL, 0);
  ib_op(&in, OP_YIELD, n, next, 0, NULL, 0);
  return loop;
}

/* The tiled load in L's body (the template): tile[tpos or k - k0 or 0, ...], tpos[v] the thread's position
 * along a tile index moving with threadIdx.x (v = 0) or .y (1): threadIdx itself, or in a wide tile
 * threadIdx * f (wtpos). k0 is a placeholder each copy of the body maps to its loop's. */
static void redirect_load(Ts *t, Tile *tl, Value *const tpos[2], Value *const wtpos[2], Value *k0) {
  IrBuilder b;
  ib_init(&b, t->m);
  b.loc = tl->load->loc;
  ib_set_before(&b, tl->load);
  Value *ops[2 + TS_MAX_RANK];
  ops[0] = tile_ref(t, &b, tl);
  unsigned lead = double_buffered(t);
  if (lead) ops[1] = t->bufph;
  Value *iv = t->loop->regions[0].first->args[0];
  for (unsigned d = 0; d < tl->rank; d++) {
    int v = tl->var[d];
    Value *x = v == VAR_K ? ib_binary(&b, OP_SUBI, iv, k0) : v == VAR_NONE ? c64(&b, 0)
             : tl->wide && d == tl->tdim ? wtpos[v] : tpos[v];
    ops[1 + lead + stored_dim(tl, d)] = x;
  }
  Type *et = tl->array->type->elem;
  Value *v = op_result(ib_op(&b, OP_LOAD, 1 + lead + tl->rank, ops, 1, &et, 0), 0);
  ir_value_replace_all_uses(op_result(tl->load, 0), v);
  ir_op_erase(tl->load);
  tl->load = NULL;
}

/* scf.if(c) yielding n values: the then-block and else-block for the caller to fill. */
static Op *emit_if(Ts *t, IrBuilder *b, Value *c, unsigned n, Type *const *types, Block **yes, Block **no) {
  Op *op = ib_op(b, OP_IF, 1, &c, n, (Type **)types, 2);
  *yes = ir_block_new(t->m);
  *no = ir_block_new(t->m);
  ir_region_append_block(&op->regions[0], *yes);
  ir_region_append_block(&op->regions[1], *no);
  return op;
}

/* scf.yield at the end of blk of the first n results of op `of` (all of them: yield_results). */
static void yield_first(IrBuilder *b, Block *blk, Op *of, unsigned n) {
  Value *r[TS_MAX_CARRY];
  for (unsigned i = 0; i < n; i++) r[i] = op_result(of, i);
  ib_set_end(b, blk);
  ib_op(b, OP_YIELD, n, r, 0, NULL, 0);
}

static void yield_results(IrBuilder *b, Block *blk, Op *of) { yield_first(b, blk, of, of->nresults); }

/* The tile's two paths: a whole tile (k0 + depth <= ub) and the last, partial one:
 *     scf.if(k0 + depth <= ub) {whole(k0)} else {partial(k0, min(k0 + depth, ub))}
 * so that every tile but the last runs a loop of constant trip count that the backend unrolls. The
 * condition is written both ways: the first without wrap-around where ub - depth has none (ub an extent,
 * say), which gives the range analysis k0 + kk < ub in the loop; the second where k0 + depth has none. */
static Op *emit_full_or_partial(Ts *t, IrBuilder *b, Value *k0, Value *ub, unsigned n, Type *const *types,
                                Block **whole, Block **partial, Value **end) {
  Value *depth = c64(b, t->depth);
  Value *k0d = ib_binary(b, OP_ADDI, k0, depth);
  *end = ib_binary(b, OP_MINSI, k0d, ub);
  Value *ub_less = ib_binary(b, OP_SUBI, ub, depth);
  Value *fits_lo = ib_cmpi(b, IR_CMPI_SLE, k0, ub_less);
  Value *fits_hi = ib_cmpi(b, IR_CMPI_SLE, k0d, ub);
  Value *full = ib_binary(b, OP_ANDI, fits_lo, fits_hi);
  return emit_if(t, b, full, n, types, whole, partial);
}

/* ---- the plain rewrite (no register blocking) ------------------------------------------------------ */

typedef struct PlainCompute {
  Value *guard;               /* the thread's guard (NULL: none) */
  Value *k0ph;                /* the template's placeholder for k0 */
} PlainCompute;

/* The whole tile (at f, the end of its block): for kk in range(0, depth), k = k0 + kk, L's body, a loop of
 * constant trip count (marked `unroll` with the option). Yields the values carried out. */
static void plain_whole_tile(Ts *t, PlainCompute *pc, IrBuilder *f, Value *k0, Value *const *carried,
                             Type *const *ctypes) {
  Module *m = t->m;
  Op *L = t->loop;
  unsigned nc = L->noperands - 3;
  Block *tb = L->regions[0].first;
  Value *fops[3 + TS_MAX_CARRY];
  fops[0] = c64(f, 0);
  fops[1] = c64(f, t->depth);
  fops[2] = c64(f, 1);
  for (unsigned i = 0; i < nc; i++) fops[3 + i] = carried[i];
  Op *fast = ib_op(f, OP_FOR, 3 + nc, fops, nc, (Type **)ctypes, 1);
  if (t->unroll) ir_op_set_attr(m, fast, "unroll", attr_unit());
  Block *fb = ir_block_new(m);
  ir_region_append_block(&fast->regions[0], fb);
  Value *kk = ir_block_add_arg(m, fb, ty_i64(m->ctx));
  PtrMap map = {0};
  ptrmap_put(&map, pc->k0ph, k0);
  if (t->bufph) ptrmap_put(&map, t->bufph, t->buf);
  for (unsigned i = 0; i < nc; i++) ptrmap_put(&map, tb->args[1 + i], ir_block_add_arg(m, fb, ctypes[i]));
  IrBuilder fi;
  ib_init(&fi, m);
  fi.loc = L->loc;
  ib_set_end(&fi, fb);
  ptrmap_put(&map, tb->args[0], ib_binary(&fi, OP_ADDI, k0, kk));
  for (Op *op = tb->first; op; op = op->next) ir_block_append(fb, ir_op_clone(m, op, &map));
  ptrmap_free(&map);
  Value *r[TS_MAX_CARRY];
  for (unsigned i = 0; i < nc; i++) r[i] = op_result(fast, i);
  ib_op(f, OP_YIELD, nc, r, 0, NULL, 0);
}

/* if guard: carried = (L's body for k in [k0, min(k0 + depth, ub)), loads reading the tiles), a whole tile
 * as `for kk in range(0, depth)` with k = k0 + kk. */
static void plain_compute(Ts *t, IrBuilder *b, Value *k0, Value *const *carried, Value **next, void *user) {
  PlainCompute *pc = user;
  Module *m = t->m;
  Op *L = t->loop;
  unsigned nc = L->noperands - 3;
  Type *ctypes[TS_MAX_CARRY];
  for (unsigned i = 0; i < nc; i++) ctypes[i] = op_result(L, i)->type;
  IrBuilder in = *b, g;
  Op *gi = NULL;
  Block *yes, *no;
  if (pc->guard) {
    gi = emit_if(t, b, pc->guard, nc, ctypes, &yes, &no);
    ib_init(&g, m);
    g.loc = b->loc;
    ib_set_end(&g, no);
    ib_op(&g, OP_YIELD, nc, carried, 0, NULL, 0);
    ib_set_end(&g, yes);
    in = g;
  }
  Block *whole, *partial;
  Value *end;
  Value *ub = op_operand(L, 1);
  Op *sel = emit_full_or_partial(t, &in, k0, ub, nc, ctypes, &whole, &partial, &end);
  if (gi) yield_results(&in, yes, sel);
  IrBuilder f;
  ib_init(&f, m);
  f.loc = L->loc;
  ib_set_end(&f, whole);
  plain_whole_tile(t, pc, &f, k0, carried, ctypes);
  /* the last, partial tile: L over [k0, end) */
  PtrMap lmap = {0};
  ptrmap_put(&lmap, pc->k0ph, k0);
  if (t->bufph) ptrmap_put(&lmap, t->bufph, t->buf);
  Op *Lc = ir_op_clone(m, L, &lmap);
  ptrmap_free(&lmap);
  ir_op_set_operand(Lc, 0, k0);
  ir_op_set_operand(Lc, 1, end);
  for (unsigned i = 0; i < nc; i++) ir_op_set_operand(Lc, 3 + i, carried[i]);
  ir_block_append(partial, Lc);
  yield_results(&f, partial, Lc);
  Op *out = gi ? gi : sel;
  for (unsigned i = 0; i < nc; i++) next[i] = op_result(out, i);
}

/* In the variant, the loop over the tiles replaces L (before the guard, which moves inside: every thread
 * loads its part of the tiles). */
static void rewrite(Ts *t) {
  Module *m = t->m;
  Op *L = t->loop, *G = t->guard;
  for (unsigned i = 0; i < t->ntiles; i++) t->tiles[i].global = new_global(t, &t->tiles[i], i);
  IrBuilder b;
  ib_init(&b, m);
  b.loc = L->loc;
  Op *at = G ? G : L; /* the loop over the tiles goes here */
  if (G) { /* the pure ops before L leave the guard */
    Block *arm = G->regions[t->arm].first;
    while (arm->first != L) {
      Op *op = arm->first;
      ir_op_unlink(op);
      ir_op_insert_before(G, op);
    }
  }
  ib_set_before(&b, at);
  Type *i64 = ty_i64(m->ctx);
  Value *tid64[2];
  for (unsigned d = 0; d < 2; d++) tid64[d] = ib_cast(&b, ib_gpu_id(&b, OP_THREAD_ID, d), i64);
  Value *row = ib_binary(&b, OP_MULI, tid64[1], c64(&b, t->bx));
  Value *lin = ib_binary(&b, OP_ADDI, tid64[0], row);
  PlainCompute pc = {NULL, c64(&b, 0)};
  t->bufph = double_buffered(t) ? c64(&b, 0) : NULL;
  if (G) pc.guard = t->arm == 0 ? op_operand(G, 0) : ib_binary(&b, OP_XORI, op_operand(G, 0), ib_const_bool(&b, true));
  for (unsigned i = 0; i < t->ntiles; i++) redirect_load(t, &t->tiles[i], tid64, tid64, pc.k0ph);
  unsigned nc = L->noperands - 3;
  Value *init[TS_MAX_CARRY] = {NULL}, *nobid[2] = {NULL, NULL};
  for (unsigned i = 0; i < nc; i++) init[i] = op_operand(L, 3 + i);
  Op *outer = emit_tile_loop(t, &b, op_operand(L, 0), op_operand(L, 1), nc, init, lin, nobid, plain_compute, &pc);
  for (unsigned i = 0; i < nc; i++) ir_value_replace_all_uses(op_result(L, i), op_result(outer, i));
  ir_op_erase(L);
  ir_op_erase(pc.k0ph->def);
  if (t->bufph) ir_op_erase(t->bufph->def);
  t->bufph = NULL;
}
/* ---- the halo rewrite (a kernel without a loop) ---------------------------------------------------- */

/* Before the guard, every thread of the block stores its elements of the tiles (the block's neighbourhood,
 * 0 outside the arrays), then a barrier; the guarded body's neighbour reads read the tiles. */
static void rewrite_halo(Ts *t) {
  Module *m = t->m;
  Op *G = t->guard;
  for (unsigned i = 0; i < t->ntiles; i++) t->tiles[i].global = new_global(t, &t->tiles[i], i);
  IrBuilder b;
  ib_init(&b, m);
  b.loc = G->loc;
  ib_set_before(&b, G);
  Type *i64 = ty_i64(m->ctx);
  Value *tid64[2];
  for (unsigned d = 0; d < 2; d++) tid64[d] = ib_cast(&b, ib_gpu_id(&b, OP_THREAD_ID, d), i64);
  Value *lin = ib_binary(&b, OP_ADDI, tid64[0], ib_binary(&b, OP_MULI, tid64[1], c64(&b, t->vbx)));
  Value *nobid[2] = {NULL, NULL};
  if (total_slots(t) <= TS_MAX_SLOTS) {
    Value *vals[TS_MAX_SLOTS];
    slot_values(t, &b, lin, NULL, nobid, vals);
    slot_stores(t, &b, lin, vals);
  } else {
    for (unsigned i = 0; i < t->ntiles; i++) cooperative_load(t, &b, &t->tiles[i], lin, NULL, nobid);
  }
  ib_op(&b, OP_BARRIER, 0, NULL, 0, NULL, 0);
  for (unsigned i = 0; i < t->ntiles; i++) {
    Tile *tl = &t->tiles[i];
    for (unsigned k = 0; k < tl->nmembers; k++) {
      Op *load = tl->members[k];
      IrBuilder r;
      ib_init(&r, m);
      r.loc = load->loc;
      ib_set_before(&r, load);
      Value *ops[1 + TS_MAX_RANK] = {tile_ref(t, &r, tl)};
      for (unsigned d = 0; d < tl->rank; d++) {
        Value *off = c64(&r, tl->moff[k][d] - tl->lo[d]);
        ops[1 + d] = tl->var[d] == VAR_NONE ? off : ib_binary(&r, OP_ADDI, tid64[tl->var[d]], off);
      }
      Type *et = tl->array->type->elem;
      Value *v = op_result(ib_op(&r, OP_LOAD, 1 + tl->rank, ops, 1, &et, 0), 0);
      ir_value_replace_all_uses(op_result(load, 0), v);
      ir_op_erase(load);
    }
  }
}

/* ---- register blocking ---------------------------------------------------------------------------- */

/* Whether v, an operand of a check in L's body tb, is computed from L's variable and values from outside L by
 * pure ops without regions in tb (not from a load or a value L carries). */
static bool check_operand_ok(Block *tb, Value *v, unsigned depth) {
  if (v == tb->args[0]) return true;
  if (!v->def) return v->block != tb;
  if (v->def->block != tb) return true;
  if (depth > 48 || v->def->nregions || !op_has(v->def, OPT_PURE)) return false;
  for (unsigned i = 0; i < v->def->noperands; i++)
    if (!check_operand_ok(tb, op_operand(v->def, i), depth + 1)) return false;
  return true;
}

/* Why L's body cannot run for a virtual thread that is out (its guard fails, or its block does not exist), its
 * values unused; NULL: it can (speculatable). It can when every op has no regions and is a check, a tiled load
 * (which reads the tile: always in it, its indices being the thread's position and k - k0) or pure and cannot
 * trap (not an integer division or remainder, undefined by 0), and the checks' operands are computed in the body
 * from L's variable by pure ops alone (emit_checks does them apart). What follows L runs only for the virtual
 * threads that pass their guard (it is in the guard's arm) and exist, so an out one's values are never seen.
 * Looked at before the rewrite (the tiles' loads are t->tiles[i].load) and valid after it. */
static const char *not_speculatable(Ts *t) {
  Block *tb = t->loop->regions[0].first;
  Op *term = ir_block_terminator(tb);
  unsigned n = 0;
  for (Op *op = tb->first; op != term; op = op->next) {
    if (++n > TS_MAX_OPS) return "the loop's body has too many ops"; /* emit_checks' limit */
    if (op->nregions) return "the loop's body has an op with regions";
    if (op->kind == OP_BOUNDS) {
      for (unsigned i = 0; i < op->noperands; i++)
        if (!check_operand_ok(tb, op_operand(op, i), 0)) return "a check's index or extent comes from a load or a carried value";
      continue;
    }
    if (op->kind == OP_LOAD) {
      bool tiled = false;
      for (unsigned i = 0; i < t->ntiles && !tiled; i++) tiled = t->tiles[i].load == op;
      if (!tiled) return "the loop's body has a load that is not tiled";
      continue;
    }
    if (!op_has(op, OPT_PURE)) return "the loop's body has an op with an effect";
    switch (op->kind) {
    case OP_DIVSI: case OP_DIVUI: case OP_REMSI: case OP_REMUI: return "the loop's body has an integer division";
    default: break;
    }
  }
  return NULL;
}


static bool rb_scan(Op *op, void *user) {
  bool *ok = user;
  if (op_kind_has(op->kind, OPT_CONVERGENT)) return *ok = false;
  switch (op->kind) {
  case OP_FUNC_CALL: case OP_FUNC_RETURN: case OP_GLOBAL_REF: case OP_DYN_SHARED: case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS: case OP_FENCE: case OP_NANOSLEEP: case OP_LANE_ID: case OP_LANEMASK_LT: case OP_RAISE:
    *ok = false;
    return false;
  default: return true;
  }
}

static bool rb_scan_block_id(Op *op, void *user) {
  if (op->kind == OP_BLOCK_ID && ir_op_attr_int(op, "dim", 0) < 2) *(bool *)user = false;
  return *(bool *)user;
}

/* Whether the tiled L can also be register-blocked (t->rx x t->ry blocks' threads per block); scales the
 * tiles' extents when it can. */
static bool rb_legal(Ts *t) {
  Op *L = t->loop, *at = t->guard ? t->guard : L;
  Block *entry = ir_func_entry(t->func);
  if (t->rx * t->ry <= 1 || t->rx * t->ry > TS_MAX_VIRT || (L->noperands - 3) * t->rx * t->ry > TS_MAX_CARRY)
    return false;
  /* each virtual thread's code is its own: no barrier, warp op, shared memory, call, atomic or nested return */
  bool ok = true;
  for (Op *op = entry->first; op && ok; op = op->next)
    if (op != ir_block_terminator(entry)) ir_walk_pre(op, rb_scan, &ok);
  if (!ok) return false;
  unsigned n = 0;
  for (Op *op = entry->first; op != at; op = op->next, n++)
    if (!op_has(op, OPT_PURE) || op->nregions) return false;
  if (t->guard)
    for (Op *op = t->guard->regions[t->arm].first->first; op != L; op = op->next) n++;
  /* blockIdx.x and .y only in those ops (each virtual thread's are its own) */
  for (Op *op = at; op && op != ir_block_terminator(entry) && ok; op = op->next) {
    n++;
    ir_walk_pre(op, rb_scan_block_id, &ok);
  }
  if (!ok || n > TS_MAX_OPS) return false;
  if (uses_block_id(op_operand(L, 0), 3, 0) || uses_block_id(op_operand(L, 1), 3, 0)) return false;
  /* blockIdx.x only in the indices that move with threadIdx.x (the tile's rows of the rx blocks), y likewise */
  Tile scaled[TS_MAX_TILES];
  int64_t bytes = 0;
  for (unsigned i = 0; i < t->ntiles; i++) {
    Tile *tl = &scaled[i];
    *tl = t->tiles[i];
    for (unsigned d = 0; d < tl->rank; d++) {
      Value *idx = tl->idx[d];
      if ((tl->var[d] != VAR_TX && uses_block_id(idx, 1, 0)) || (tl->var[d] != VAR_TY && uses_block_id(idx, 2, 0)))
        return false;
      int64_t f = tl->var[d] == VAR_TX ? t->rx : tl->var[d] == VAR_TY ? t->ry : 1;
      tl->ext[d] *= f;
      /* wide: rank 2, this index over f > 1 blocks, the other moving with L, elements of 4 or 8 bytes */
      if (t->wide && tl->rank == 2 && f > 1 && tl->var[1 - d] == VAR_K && ty_size(tl->array->type->elem) <= 8 &&
          ty_size(tl->array->type->elem) >= 4) {
        tl->wide = true;
        tl->tdim = d;
        tl->f = f;
      }
    }
    bytes += tile_bytes(tl) * (t->dbuf ? 2 : 1);
  }
  if (bytes > t->target->shared_per_block) return false;
  memcpy(t->tiles, scaled, t->ntiles * sizeof *scaled);
  return true;
}

typedef struct Virt {
  PtrMap map[TS_MAX_VIRT];    /* per virtual thread: original value -> its value */
  Value *exists[TS_MAX_VIRT], *guard[TS_MAX_VIRT];
  unsigned n, nc;             /* virtual threads; values L carries */
  Value *k0ph;                /* the template's placeholder for k0 */
  Value *ub;                  /* L's upper bound */
  Value *all;                 /* every virtual thread of this thread exists and passes its guard */
  bool guarded;               /* the compute of the path where some virtual thread is out */
  bool spec;                  /* L's body can run for a virtual thread that is out (speculatable) */
  bool strip;                 /* emit_bodies leaves the checks out (they are done by emit_checks) */
} Virt;

static Value *vmapped(Virt *vt, unsigned v, Value *x) {
  Value *y = ptrmap_get(&vt->map[v], x);
  return y ? y : x;
}

/* for k in [lb, ub) (k = k0 + the loop's variable when whole), L's body for each virtual thread in turn
 * (each under scf.if(its guard) when guarded), carrying their values init[n * nc]. */
static Op *emit_bodies(Ts *t, Virt *vt, IrBuilder *b, Value *lb, Value *ub, Value *k0, bool whole, Value *const *init,
                       bool guarded) {
  Module *m = t->m;
  unsigned nc = vt->nc, nr = vt->n * nc;
  Value *ops[3 + TS_MAX_CARRY];
  Type *types[TS_MAX_CARRY];
  ops[0] = lb;
  ops[1] = ub;
  ops[2] = c64(b, 1);
  for (unsigned i = 0; i < nr; i++) {
    ops[3 + i] = init[i];
    types[i] = init[i]->type;
  }
  Op *loop = ib_op(b, OP_FOR, 3 + nr, ops, nr, types, 1);
  Block *body = ir_block_new(m), *tb = t->loop->regions[0].first;
  ir_region_append_block(&loop->regions[0], body);
  Value *iv = ir_block_add_arg(m, body, ty_i64(m->ctx));
  for (unsigned i = 0; i < nr; i++) ir_block_add_arg(m, body, types[i]);
  IrBuilder f;
  ib_init(&f, m);
  f.loc = b->loc;
  ib_set_end(&f, body);
  Value *k = whole ? ib_binary(&f, OP_ADDI, k0, iv) : iv, *ys[TS_MAX_CARRY];
  Op *term = ir_block_terminator(tb);
  for (unsigned j = 0; j < vt->n; j++) {
    PtrMap *mp = &vt->map[j];
    ptrmap_put(mp, tb->args[0], k);
    ptrmap_put(mp, vt->k0ph, k0);
    if (t->bufph) ptrmap_put(mp, t->bufph, t->buf);
    for (unsigned i = 0; i < nc; i++) ptrmap_put(mp, tb->args[1 + i], body->args[1 + j * nc + i]);
    IrBuilder *at = &f, g;
    Op *gi = NULL;
    if (guarded) {
      Block *yes, *no;
      gi = emit_if(t, &f, vt->guard[j], nc, &types[j * nc], &yes, &no);
      ib_init(&g, m);
      g.loc = f.loc;
      ib_set_end(&g, no);
      ib_op(&g, OP_YIELD, nc, &body->args[1 + j * nc], 0, NULL, 0);
      ib_set_end(&g, yes);
      at = &g;
    }
    for (Op *op = tb->first; op != term; op = op->next)
      if (!(vt->strip && op->kind == OP_BOUNDS)) ib_insert(at, ir_op_clone(m, op, mp));
    for (unsigned i = 0; i < nc; i++) ys[j * nc + i] = vmapped(vt, j, op_operand(term, i));
    if (gi) {
      ib_op(at, OP_YIELD, nc, &ys[j * nc], 0, NULL, 0);
      for (unsigned i = 0; i < nc; i++) ys[j * nc + i] = op_result(gi, i);
    }
  }
  ib_op(&f, OP_YIELD, nr, ys, 0, NULL, 0);
  return loop;
}

/* Every virtual thread in: a whole tile runs one loop over kk < depth with the bodies of all virtual threads
 * (marked `unroll` with the option: the unroll pass unrolls it after hoist-checks), the last partial one the
 * same loop over [k0, end). */
static void all_in_compute(Ts *t, Virt *vt, IrBuilder *b, Value *k0, Value *const *carried, Op **out) {
  unsigned nr = vt->n * vt->nc;
  Type *ctypes[TS_MAX_CARRY];
  for (unsigned i = 0; i < nr; i++) ctypes[i] = carried[i]->type;
  Block *whole, *partial;
  Value *end;
  *out = emit_full_or_partial(t, b, k0, vt->ub, nr, ctypes, &whole, &partial, &end);
  IrBuilder y;
  ib_init(&y, t->m);
  y.loc = b->loc;
  ib_set_end(&y, whole);
  Value *lo = c64(&y, 0), *hi = c64(&y, t->depth);
  Op *fast = emit_bodies(t, vt, &y, lo, hi, k0, true, carried, false);
  if (t->unroll) ir_op_set_attr(t->m, fast, "unroll", attr_unit());
  yield_results(&y, whole, fast);
  ib_set_end(&y, partial);
  yield_results(&y, partial, emit_bodies(t, vt, &y, k0, end, k0, false, carried, false));
}

/* For each virtual thread that passes its guard, the checks of L's body for k in [lo, hi), in order (with the
 * pure ops their operands need): what the bodies stripped of their checks (vt->strip) would have checked, done
 * before the loop over the tiles (L's body has nothing else observable, so each virtual thread fails with the
 * check it would have failed first). hoist-checks then makes each loop of checks a few checks (the first
 * iteration's, and the one whose index moves with k over its whole range): nothing of them stays live across
 * the loop over the tiles. */
static void emit_checks(Ts *t, Virt *vt, IrBuilder *b, Value *lo, Value *hi) {
  Module *m = t->m;
  Block *tb = t->loop->regions[0].first;
  Op *term = ir_block_terminator(tb);
  /* the ops the checks need: marked from the last op back */
  Op *ops[TS_MAX_OPS];
  bool need[TS_MAX_OPS];
  unsigned n = 0;
  for (Op *op = tb->first; op != term && n < TS_MAX_OPS; op = op->next) {
    need[n] = op->kind == OP_BOUNDS;
    ops[n++] = op;
  }
  for (unsigned i = n; i-- > 0;) {
    if (!need[i]) continue;
    for (unsigned o = 0; o < ops[i]->noperands; o++) {
      Op *d = op_operand(ops[i], o)->def;
      for (unsigned j = 0; j < i; j++)
        if (ops[j] == d) need[j] = true;
    }
  }
  bool any = false;
  for (unsigned i = 0; i < n; i++) any |= ops[i]->kind == OP_BOUNDS;
  if (!any) return;
  for (unsigned v = 0; v < vt->n; v++) {
    Block *yes, *no;
    emit_if(t, b, vt->guard[v], 0, NULL, &yes, &no);
    IrBuilder g;
    ib_init(&g, m);
    g.loc = b->loc;
    ib_set_end(&g, no);
    ib_op(&g, OP_YIELD, 0, NULL, 0, NULL, 0);
    ib_set_end(&g, yes);
    Value *ops3[3] = {lo, hi, c64(&g, 1)};
    Op *loop = ib_op(&g, OP_FOR, 3, ops3, 0, NULL, 1);
    Block *body = ir_block_new(m);
    ir_region_append_block(&loop->regions[0], body);
    Value *k = ir_block_add_arg(m, body, ty_i64(m->ctx));
    PtrMap map = {0};
    ptrmap_put(&map, tb->args[0], k);
    IrBuilder f;
    ib_init(&f, m);
    f.loc = b->loc;
    ib_set_end(&f, body);
    for (unsigned i = 0; i < n; i++) {
      if (!need[i]) continue;
      /* the virtual thread's own values for what comes from outside L (its indices, its extents) */
      for (unsigned o = 0; o < ops[i]->noperands; o++) {
        Value *x = op_operand(ops[i], o);
        if (!ptrmap_get(&map, x)) {
          Value *y = ptrmap_get(&vt->map[v], x);
          if (y) ptrmap_put(&map, x, y);
        }
      }
      ib_insert(&f, ir_op_clone(m, ops[i], &map));
    }
    ptrmap_free(&map);
    ib_op(&f, OP_YIELD, 0, NULL, 0, NULL, 0);
    ib_op(&g, OP_YIELD, 0, NULL, 0, NULL, 0);
  }
}

/* Some virtual thread out (or not known). Speculatable (vt->spec): the tile runs as all_in_compute's, the
 * bodies without their checks (emit_checks did them before the loop), for every virtual thread (an out one's
 * values are never used): the edge blocks keep the whole tile's unrolled loop. Else: for k in the tile, each
 * virtual thread's body under its guard. */
static Op *guarded_compute(Ts *t, Virt *vt, IrBuilder *b, Value *k0, Value *const *carried) {
  if (vt->spec) {
    Op *out;
    vt->strip = true;
    all_in_compute(t, vt, b, k0, carried, &out);
    vt->strip = false;
    return out;
  }
  Value *end = ib_binary(b, OP_MINSI, ib_binary(b, OP_ADDI, k0, c64(b, t->depth)), vt->ub);
  return emit_bodies(t, vt, b, k0, end, k0, false, carried, true);
}

/* The compute of the register-blocked loop: without `uniform`, each thread picks per tile between the
 * path of all its virtual threads in and the guarded one (vt->all); with it, the path is the loop's. */
static void blocked_compute(Ts *t, IrBuilder *b, Value *k0, Value *const *carried, Value **next, void *user) {
  Virt *vt = user;
  unsigned nr = vt->n * vt->nc;
  Op *out;
  if (vt->guarded) {
    out = guarded_compute(t, vt, b, k0, carried);
  } else if (t->uniform) {
    all_in_compute(t, vt, b, k0, carried, &out);
  } else {
    Type *ctypes[TS_MAX_CARRY];
    for (unsigned i = 0; i < nr; i++) ctypes[i] = carried[i]->type;
    Block *yes, *no;
    out = emit_if(t, b, vt->all, nr, ctypes, &yes, &no);
    IrBuilder y;
    ib_init(&y, t->m);
    y.loc = b->loc;
    ib_set_end(&y, yes);
    Op *in;
    all_in_compute(t, vt, &y, k0, carried, &in);
    yield_results(&y, yes, in);
    ib_set_end(&y, no);
    yield_results(&y, no, guarded_compute(t, vt, &y, k0, carried));
  }
  for (unsigned i = 0; i < nr; i++) next[i] = op_result(out, i);
}

static bool collect_grid_dims(Op *op, void *user) {
  Op ***list = user;
  if (op->kind == OP_GRID_DIM) *(*list)++ = op;
  return true;
}

/* Three i32 parameters appended to the variant (arg_names __kf_grid_x/y/z, the hidden parameters of the
 * runtime's launch plan: the user's grid dims, include/kfront/abi.h), every gpu.grid_dim replaced by them. */
static void add_grid_params(Ts *t, Value *g[3]) {
  Module *m = t->m;
  Type *i32 = ty_i32(m->ctx);
  Block *entry = ir_func_entry(t->func);
  Type *ft = ir_func_type(t->func);
  Type **params = ARENA_ARRAY(&m->arena, Type *, ft->n + 3);
  for (unsigned i = 0; i < ft->n; i++) params[i] = ft->elems[i];
  for (unsigned d = 0; d < 3; d++) params[ft->n + d] = i32;
  Attr *names = ir_op_attr(t->func, "arg_names");
  bool named = names && names->kind == ATTR_ARRAY && names->arr.n == ft->n;
  static const char *const gnames[3] = {"__kf_grid_x", "__kf_grid_y", "__kf_grid_z"};
  Attr *elems = ARENA_ARRAY(&m->arena, Attr, ft->n + 3);
  for (unsigned i = 0; i < ft->n; i++) {
    char pname[16];
    snprintf(pname, sizeof pname, "p%u", i);
    elems[i] = named ? names->arr.elems[i] : attr_str(m, pname);
  }
  for (unsigned d = 0; d < 3; d++) {
    g[d] = ir_block_add_arg(m, entry, i32);
    elems[ft->n + d] = attr_str(m, gnames[d]);
  }
  ir_op_set_attr(m, t->func, "function_type", attr_type(ty_func(m->ctx, ft->n + 3, params, 0, NULL)));
  ir_op_set_attr(m, t->func, "arg_names", attr_array(m, ft->n + 3, elems));
  size_t n = ir_count_ops(t->func);
  Op **ops = ARENA_ARRAY(&m->arena, Op *, n), **end = ops;
  ir_walk_pre(t->func, collect_grid_dims, &end);
  for (Op **o = ops; o < end; o++) {
    int64_t d = ir_op_attr_int(*o, "dim", 0);
    if (d < 0 || d > 2) continue;
    ir_value_replace_all_uses(op_result(*o, 0), g[d]);
    ir_op_erase(*o);
  }
}

/* The register-blocked rewrite. In the tiled variant, the block (bx0, by0) with bx0 % rx == 0 and by0 % ry == 0
 * computes what the blocks (bx0 + r, by0 + c), r < rx, c < ry, of the user's grid compute (those that exist);
 * the others do nothing. Its thread (tx, ty) plays the thread (tx, ty) of each of those blocks, a virtual
 * thread: its code is the original's with blockIdx.x := bx0 + r and blockIdx.y := by0 + c (so every index,
 * guard, check and store keeps its meaning), its tiles the rows of all rx (ry) blocks. With `uniform`:
 *     all = every virtual thread of this thread exists and passes its guard
 *     if barrier_reduce(and, all):   (the whole block: one path, its registers its own)
 *         loop over the tiles: per tile, L's body for each virtual thread in turn (a whole tile: kk < depth)
 *     else: loop over the tiles: per tile, for k in the tile: each virtual thread's body under its guard
 * (without it, the choice is made per tile and thread inside one loop). One loop over k with all bodies, not
 * one per virtual thread: less code, and fewer registers. Each virtual thread's k runs through the same
 * values in the same order (bit for bit); the code after L runs for each virtual thread that exists. */
static void rewrite_blocked(Ts *t) {
  Module *m = t->m;
  Op *L = t->loop, *G = t->guard;
  Type *i32 = ty_i32(m->ctx), *i64 = ty_i64(m->ctx);
  /* the user's grid: hidden parameters (the physical grid is smaller) */
  Value *gd[3];
  add_grid_params(t, gd);
  Virt vt = {0};
  vt.n = (unsigned)(t->rx * t->ry);
  vt.nc = L->noperands - 3;
  vt.ub = op_operand(L, 1);
  Block *then = ir_func_entry(t->func);
  for (unsigned i = 0; i < t->ntiles; i++) t->tiles[i].global = new_global(t, &t->tiles[i], i);
  Op *at = G ? G : L;
  if (G) {
    Block *arm = G->regions[t->arm].first;
    while (arm->first != L) {
      Op *op = arm->first;
      ir_op_unlink(op);
      ir_op_insert_before(G, op);
    }
  }
  /* the ops before `at` are pure: cloned for each virtual thread; those from `after` on run after L */
  Op *pre[TS_MAX_OPS], *after = G ? G : L->next;
  unsigned npre = 0;
  for (Op *op = then->first; op != at && npre < TS_MAX_OPS; op = op->next) pre[npre++] = op;
  IrBuilder in;
  ib_init(&in, m);
  in.loc = L->loc;
  ib_set_before(&in, at);
  Value *bid[2];
  for (unsigned d = 0; d < 2; d++) { /* the first of the rx x ry user blocks this block computes */
    Value *id = ib_gpu_id(&in, OP_BLOCK_ID, d);
    bid[d] = ib_binary(&in, OP_MULI, id, ib_const_int(&in, i32, d ? t->ry : t->rx));
  }
  Value *tid64[2], *wtpos[2];
  for (unsigned d = 0; d < 2; d++) tid64[d] = ib_cast(&in, ib_gpu_id(&in, OP_THREAD_ID, d), i64);
  wtpos[0] = ib_binary(&in, OP_MULI, tid64[0], c64(&in, t->rx));
  wtpos[1] = ib_binary(&in, OP_MULI, tid64[1], c64(&in, t->ry));
  vt.k0ph = c64(&in, 0);
  t->bufph = double_buffered(t) ? c64(&in, 0) : NULL;
  Value *row = ib_binary(&in, OP_MULI, tid64[1], c64(&in, t->bx));
  Value *lin = ib_binary(&in, OP_ADDI, tid64[0], row);
  Value *all = ib_const_bool(&in, true);
  for (unsigned v = 0; v < vt.n; v++) {
    int64_t r = v / t->ry, c = v % t->ry;
    PtrMap *mp = &vt.map[v];
    Value *vb[2];
    for (unsigned d = 0; d < 2; d++) {
      Value *off = ib_const_int(&in, i32, d ? c : r);
      vb[d] = ib_binary(&in, OP_ADDI, bid[d], off);
    }
    Value *in_x = ib_cmpi(&in, IR_CMPI_ULT, vb[0], gd[0]);
    Value *in_y = ib_cmpi(&in, IR_CMPI_ULT, vb[1], gd[1]);
    vt.exists[v] = ib_binary(&in, OP_ANDI, in_x, in_y);
    ptrmap_put(mp, tid64[0], ib_binary(&in, OP_ADDI, tid64[0], c64(&in, t->bx * r)));
    ptrmap_put(mp, tid64[1], ib_binary(&in, OP_ADDI, tid64[1], c64(&in, t->by * c)));
    ptrmap_put(mp, wtpos[0], ib_binary(&in, OP_ADDI, wtpos[0], c64(&in, r)));
    ptrmap_put(mp, wtpos[1], ib_binary(&in, OP_ADDI, wtpos[1], c64(&in, c)));
    for (unsigned p = 0; p < npre; p++) {
      Op *op = pre[p];
      if (op->kind == OP_BLOCK_ID && ir_op_attr_int(op, "dim", 0) < 2) {
        ptrmap_put(mp, op_result(op, 0), vb[ir_op_attr_int(op, "dim", 0)]);
        continue;
      }
      ib_insert(&in, ir_op_clone(m, op, mp));
    }
    Value *g = ib_const_bool(&in, true);
    if (G) {
      g = vmapped(&vt, v, op_operand(G, 0));
      if (t->arm == 1) g = ib_binary(&in, OP_XORI, g, ib_const_bool(&in, true));
    }
    vt.guard[v] = ib_binary(&in, OP_ANDI, g, vt.exists[v]);
    all = ib_binary(&in, OP_ANDI, all, vt.guard[v]);
  }
  vt.all = all;
  /* L's body reads the tiles; it is the template of every virtual thread's (what `in` inserted before L,
   * when there is no guard, now goes where L was: before what follows it) */
  Op *where = L->next;
  ir_op_unlink(L);
  if (at == L) ib_set_before(&in, where);
  for (unsigned i = 0; i < t->ntiles; i++) redirect_load(t, &t->tiles[i], tid64, wtpos, vt.k0ph);
  vt.spec = t->speculate && !t->edge_why;
  /* the loop(s) over the tiles, carrying every virtual thread's values */
  unsigned nr = vt.n * vt.nc;
  Value *init[TS_MAX_CARRY];
  Type *ctypes[TS_MAX_CARRY];
  for (unsigned v = 0; v < vt.n; v++)
    for (unsigned i = 0; i < vt.nc; i++) {
      init[v * vt.nc + i] = vmapped(&vt, v, op_operand(L, 3 + i));
      ctypes[v * vt.nc + i] = init[v * vt.nc + i]->type;
    }
  Op *outer;
  if (t->uniform) {
    Type *i32t = i32;
    Op *red = ib_op(&in, OP_BARRIER_RED, 1, &all, 1, &i32t, 0);
    ir_op_set_barrier_reduce_kind(m, red, IR_BARRIER_REDUCE_AND);
    Value *every = ib_cmpi(&in, IR_CMPI_NE, op_result(red, 0), ib_const_int(&in, i32, 0));
    Block *yes, *no;
    outer = emit_if(t, &in, every, nr, ctypes, &yes, &no);
    IrBuilder y;
    ib_init(&y, m);
    y.loc = L->loc;
    ib_set_end(&y, yes);
    yield_first(&y, yes, emit_tile_loop(t, &y, op_operand(L, 0), vt.ub, nr, init, lin, bid, blocked_compute, &vt), nr);
    ib_set_end(&y, no);
    vt.guarded = true;
    if (vt.spec) emit_checks(t, &vt, &y, op_operand(L, 0), vt.ub);
    yield_first(&y, no, emit_tile_loop(t, &y, op_operand(L, 0), vt.ub, nr, init, lin, bid, blocked_compute, &vt), nr);
  } else {
    if (vt.spec) { /* the threads that take the guarded path (all is invariant) do their checks first */
      Block *yes, *no;
      emit_if(t, &in, ib_binary(&in, OP_XORI, all, ib_const_bool(&in, true)), 0, NULL, &yes, &no);
      IrBuilder y;
      ib_init(&y, m);
      y.loc = L->loc;
      ib_set_end(&y, yes);
      emit_checks(t, &vt, &y, op_operand(L, 0), vt.ub);
      ib_op(&y, OP_YIELD, 0, NULL, 0, NULL, 0);
      ib_set_end(&y, no);
      ib_op(&y, OP_YIELD, 0, NULL, 0, NULL, 0);
    }
    outer = emit_tile_loop(t, &in, op_operand(L, 0), vt.ub, nr, init, lin, bid, blocked_compute, &vt);
  }
  /* what follows L, for each virtual thread that exists */
  Op *term = ir_block_terminator(then);
  for (unsigned v = 0; v < vt.n; v++) {
    for (unsigned i = 0; i < vt.nc; i++) ptrmap_put(&vt.map[v], op_result(L, i), op_result(outer, v * vt.nc + i));
    Block *ey, *en;
    emit_if(t, &in, vt.exists[v], 0, NULL, &ey, &en);
    IrBuilder z;
    ib_init(&z, m);
    z.loc = L->loc;
    ib_set_end(&z, ey);
    for (Op *op = after; op && op != term; op = op->next) ib_insert(&z, ir_op_clone(m, op, &vt.map[v]));
    ib_op(&z, OP_YIELD, 0, NULL, 0, NULL, 0);
    ib_set_end(&z, en);
    ib_op(&z, OP_YIELD, 0, NULL, 0, NULL, 0);
  }
  /* the originals go (after the new code, which no longer uses them) */
  Op *gone[TS_MAX_OPS];
  unsigned ng = 0;
  for (Op *op = after; op && op != term && ng < TS_MAX_OPS; op = op->next) gone[ng++] = op;
  for (unsigned i = ng; i-- > 0;) ir_op_erase(gone[i]);
  ir_op_erase(L);
  ir_op_erase(vt.k0ph->def);
  if (t->bufph) ir_op_erase(t->bufph->def);
  t->bufph = NULL;
  for (unsigned v = 0; v < vt.n; v++) ptrmap_free(&vt.map[v]);
  ir_op_set_attr(m, t->func, "register_blocked", attr_array(m, 2, (Attr[]){attr_int(i64, t->rx), attr_int(i64, t->ry)}));
}

/* ---- the pass ------------------------------------------------------------------------------------- */

/* The remark on what was looked at: L, or the neighbour reads of a kernel without a loop (at their first
 * load). Nothing for a kernel without a loop that has no neighbour reads. */
static void report(Ts *t, bool tiled) {
  if (!t->report) return;
  SrcLoc loc = t->loop ? t->loop->loc : t->cost.first.file ? t->cost.first : t->guard->loc;
  const char *what = t->loop ? "loop" : "neighbour reads";
  if (!tiled) {
    if (!t->loop && !t->ntiles && !t->cost.why[0]) return;
    diag_remark(t->diag, loc, "%s not tiled: %s", what, t->why ? t->why : "?");
    return;
  }
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s tiled for blocks of (%lld, %lld, 1)", what, (long long)t->vbx, (long long)t->vby);
  if (t->loop) sb_printf(&sb, ", depth %lld", (long long)t->depth);
  if (t->blocked) sb_printf(&sb, ", register-blocked %lldx%lld", (long long)t->rx, (long long)t->ry);
  if (t->blocked && t->edge_why) sb_printf(&sb, " (edge blocks: each body under its guard, per k: %s)", t->edge_why);
  sb_puts(&sb, ":");
  for (unsigned i = 0; i < t->ntiles; i++) {
    Tile *tl = &t->tiles[i];
    sb_printf(&sb, "%s parameter %u in a ", i ? "," : "", tl->array->index);
    for (unsigned d = 0; d < tl->rank; d++) sb_printf(&sb, "%s%lld", d ? "x" : "", (long long)tl->ext[d]);
    sb_puts(&sb, " tile");
    if (tl->halo) sb_printf(&sb, " (%u reads)", tl->nmembers);
  }
  sb_printf(&sb, "; each element staged is read %.2f times%s, %lld bytes of tiles, %lld block(s) per SM by shared "
            "memory", t->cost.reuse, t->cost.coalesces ? " (and a warp reads the array down a column: the tile's loads "
            "read along rows)" : "", (long long)t->cost.tile_bytes, (long long)t->cost.blocks_by_shared);
  diag_remark(t->diag, loc, "%s", sb_cstr(&sb));
  sb_free(&sb);
}

/* Whether loop L (guarded by G's arm, or G NULL) of t->func can be tiled (and register-blocked): fills t. */
static bool analyze(Ts *t, Op *L, Op *G, unsigned arm) {
  t->loop = L;
  t->guard = G;
  t->arm = arm;
  t->why = NULL;
  t->ntiles = 0;
  t->vbx = t->bx;
  t->vby = t->by;
  memset(&t->cost, 0, sizeof t->cost);
  bool ok = L->noperands - 3 <= 16 ? legal(t) && enough_reuse(t) : fail(t, "the loop carries too many values");
  t->blocked = ok && rb_legal(t);
  t->edge_why = t->blocked ? t->speculate ? not_speculatable(t) : "speculate=0" : NULL;
  return ok && enough_occupancy(t);
}

/* Whether the guarded body of a kernel without a loop (G's arm) has neighbour reads to tile: fills t. */
static bool analyze_halo(Ts *t, Op *G, unsigned arm) {
  t->loop = NULL;
  t->guard = G;
  t->arm = arm;
  t->why = NULL;
  t->ntiles = 0;
  t->blocked = false;
  memset(&t->cost, 0, sizeof t->cost);
  return legal_halo(t) && enough_reuse(t) && enough_occupancy(t);
}

/* The guard of a kernel without a loop at the top of its body: an scf.if (no results, one arm empty) after
 * pure ops only, which *arm holds the body; NULL if none. */
static Op *halo_guard(Op *func, unsigned *arm, unsigned *top) {
  *top = 0;
  for (Op *op = ir_func_entry(func)->first; op; op = op->next, ++*top) {
    if (op->kind == OP_IF && op->nresults == 0)
      for (*arm = 0; *arm < 2; ++*arm)
        if (region_is_empty(&op->regions[1 - *arm]) && op->regions[*arm].first) return op;
    if (!op_has(op, OPT_PURE) || op->nregions) return NULL;
  }
  return NULL;
}

/* A candidate loop of a kernel: the index of the op in the entry block that is L or its guard G, the arm
 * of G holding L and L's index in it. */
typedef struct Site {
  unsigned top, arm, in;
  bool guarded;
} Site;

static Op *nth_op(Block *b, unsigned n) {
  Op *op = b ? b->first : NULL;
  while (op && n--) op = op->next;
  return op;
}

static bool op_is_not_loop(Op *op, void *user) {
  (void)user;
  return !op_has(op, OPT_LOOP);
}

/* The first loop of func that can be tiled (its site in *at), each loop looked at reported. */
static bool find_loop(Ts *t, Op *func, Site *at) {
  t->func = func;
  unsigned top = 0;
  for (Op *op = ir_func_entry(func)->first; op; op = op->next, top++) {
    if (op->kind == OP_FOR) {
      bool ok = analyze(t, op, NULL, 0);
      report(t, ok);
      if (ok) return *at = (Site){top, 0, 0, false}, true;
    } else if (op->kind == OP_IF && op->nresults == 0) {
      for (unsigned arm = 0; arm < 2; arm++) {
        if (!region_is_empty(&op->regions[1 - arm]) || !op->regions[arm].first) continue;
        unsigned in = 0;
        for (Op *l = op->regions[arm].first->first; l; l = l->next, in++) {
          if (l->kind != OP_FOR) continue;
          bool ok = analyze(t, l, op, arm);
          report(t, ok);
          if (ok) return *at = (Site){top, arm, in, true}, true;
        }
      }
    }
  }
  return false;
}

/* The pairs (tiled array, written array) of parameter indices, flattened: what must not overlap. */
static Attr disjoint_pairs(Ts *t) {
  Attr pairs[2 * TS_MAX_TILES * TS_MAX_WRITTEN];
  unsigned n = 0;
  Type *i64 = ty_i64(t->m->ctx);
  for (unsigned i = 0; i < t->ntiles; i++) {
    bool seen = false;
    for (unsigned j = 0; j < i; j++) seen |= t->tiles[j].array == t->tiles[i].array;
    for (unsigned w = 0; w < t->nwritten && !seen; w++) {
      pairs[n++] = attr_int(i64, t->tiles[i].array->index);
      pairs[n++] = attr_int(i64, t->written[w]->index);
    }
  }
  return attr_array(t->m, n, pairs);
}

/* A kernel with a loop that can be tiled (or, without one, neighbour reads) gets a variant: a copy named
 * NAME__tiled, placed after it, with the loop (reads) tiled; the kernel itself stays as it was and names its
 * variant (see the header). */
static void tile_kernel(Ts *t, Op *func) {
  Block *entry = ir_func_entry(func);
  if (!entry || entry->next || ir_op_attr(func, "tiled_variant") || ir_op_attr(func, "variant_of") ||
      ir_op_attr(func, "grid_stride"))
    return;
  Site at;
  bool halo = false;
  bool has_loop = false;
  for (Op *op = entry->first; op && !has_loop; op = op->next) has_loop = ir_walk_pre(op, op_is_not_loop, NULL) == false;
  if (!find_loop(t, func, &at)) {
    Op *G = has_loop ? NULL : halo_guard(func, &at.arm, &at.top);
    if (!G) return;
    t->func = func;
    bool ok = analyze_halo(t, G, at.arm);
    report(t, ok);
    if (!ok) return;
    halo = true;
  }
  Module *m = t->m;
  Op *var = ir_op_clone(m, func, NULL);
  char name[256];
  snprintf(name, sizeof name, "%s__tiled", ir_func_name(func));
  ir_op_set_attr(m, var, "sym_name", attr_sym(m, name));
  ir_op_insert_after(func, var);
  ir_module_add_symbol(m, var);
  t->func = var;
  Op *top = nth_op(ir_func_entry(var), at.top);
  bool report_saved = t->report, ok;
  t->report = false;
  if (halo) {
    ok = analyze_halo(t, top, at.arm);
  } else {
    Op *L = at.guarded ? nth_op(top->regions[at.arm].first, at.in) : top;
    ok = analyze(t, L, at.guarded ? top : NULL, at.arm); /* (the same answer as on the original) */
  }
  t->report = report_saved;
  if (!ok) return;
  Type *i64 = ty_i64(m->ctx);
  ir_op_set_attr(m, var, "variant_of", attr_sym(m, ir_func_name(func)));
  ir_op_set_attr(m, var, "launch_block", attr_array(m, 3, (Attr[]){attr_int(i64, t->vbx), attr_int(i64, t->vby),
                                                                     attr_int(i64, 1)}));
  ir_op_set_attr(m, var, "launch_disjoint", disjoint_pairs(t));
  ir_op_set_attr(m, var, "tiled_block", attr_array(m, 3, (Attr[]){attr_int(i64, t->vbx), attr_int(i64, t->vby),
                                                                   attr_int(i64, 1)}));
  if (t->min_blocks > 0) ir_op_set_attr(m, var, "launch_min_blocks", attr_int(i64, t->min_blocks));
  if (halo) {
    rewrite_halo(t);
  } else if (t->blocked) {
    rewrite_blocked(t);
    ir_op_set_attr(m, var, "launch_grid_divisor", attr_array(m, 3, (Attr[]){attr_int(i64, t->rx),
                                                                            attr_int(i64, t->ry), attr_int(i64, 1)}));
  } else {
    rewrite(t);
  }
  ir_op_set_attr(m, func, "tiled_variant", attr_sym(m, name));
}

bool pass_tile_shared(Module *m, const PassContext *pc) {
  Ts t = {.m = m, .diag = pc->diag, .target = pc->target, .bx = pc->options[0], .by = pc->options[1],
          .depth = pc->options[2], .report = pc->options[3] != 0, .rx = pc->options[4], .ry = pc->options[5],
          .prefetch = pc->options[6] != 0,
          .uniform = pc->options[7] != 0, .wide = pc->options[8] != 0, .min_blocks = pc->options[9],
          .min_reuse = pc->options[10], .halo_min_reuse = pc->options[11], .unroll = pc->options[12] != 0,
          .dbuf = pc->options[13] != 0, .speculate = pc->options[14] != 0};
  if (t.bx < 1 || t.by < 1 || t.depth < 1 || t.bx * t.by > 1024) {
    diag_error(pc->diag, (SrcLoc){0}, "tile-shared: the block (bx, by) must have 1 to 1024 threads and depth >= 1");
    return false;
  }
  if (t.rx < 1 || t.ry < 1 || t.rx * t.ry > TS_MAX_VIRT) {
    diag_error(pc->diag, (SrcLoc){0}, "tile-shared: register blocking (rx, ry) must have 1 to %d blocks", TS_MAX_VIRT);
    return false;
  }
  t.ra = range_analysis_new(m);
  for (Op *f = ir_module_body(m)->first; f; f = f->next)
    /* a cooperative kernel keeps the user's grid (its variant could not: register blocking divides it) */
    if (f->kind == OP_FUNC_FUNC && ir_op_attr(f, "kernel") && !ir_op_attr(f, "cooperative")) tile_kernel(&t, f);
  range_analysis_free(t.ra);
  return true;
}
