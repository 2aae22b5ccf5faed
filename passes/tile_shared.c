/* tile_shared.c — shared-memory tiling: a loop whose iterations make the threads of a block re-read the same
 * global elements (the naive matmul's A[i, k] and B[k, j]) stages them, tile by tile, in shared memory.
 *
 * Requires: valid structured IR, after bce (the checks it could not remove stay where they are). Preserves:
 * validity and each thread's results bit for bit (the same values combined in the same order). Uses the range
 * analysis, the affine analysis, ir_op_clone and ir_walk_callees.
 * Options: bx, by (the block shape tiled for; default 16x16), depth (the tile's extent along the loop; 16),
 * report (1: a note at each loop looked at: tiled with what, or why not), rx, ry (register blocking; 4x4).
 *
 * The loop L: an scf.for of a kernel, in its entry block or directly in one arm of an scf.if there whose other
 * arm is empty (`if i < n and j < m:` around the loop, and `if i >= n or j >= m: return` before it, which the
 * frontend makes the same shape), with step 1 and launch-invariant bounds. A tiled load: a mem.load in L's
 * body (not in a nested loop) from a kernel parameter whose every index is affine (affine.h) in at most one
 * of tid.x, tid.y, L's variable (coefficient 1; blockIdx*blockDim and invariants free; each used by one index
 * at most), that uses L's variable and not both tid.x and tid.y (threads of the block share it).
 * Legal when: L's body has no barrier, warp op, call or return; the ops before L in the guarded arm are pure
 * (they move before the guard); the tiled arrays are never written (no store or atomic in the kernel names
 * them; the kernel calls no function that stores anything); every array the kernel writes is a parameter,
 * a local or a shared one; the tiles fit 48 KiB.
 *
 * Rewrite. The kernel body becomes `scf.if(fits) {tiled} else {the original, cloned}`, where fits says the
 * block is (bx, by, 1) and no tiled array's memory overlaps that of a written parameter (mem.addr spans,
 * computed at run time: the same array passed twice runs the original). Both are uniform over the block, so
 * barriers are never divergent, and a launch with any other block shape, or aliasing arguments, runs the
 * untiled code: the variant needs nothing from the launch (no launch-plan entry, no second kernel). In the
 * tiled version:
 *     for k0 in range(lb, ub, depth):                  # every thread, guard or not; carries L's values
 *         for e in range(t, tile size, bx*by): tile[e] = A[index with tid/k := e's coordinates] if in bounds else 0
 *         barrier
 *         if guard: carried = (for k in range(k0, min(k0 + depth, ub)): L's body, loads read the tiles)
 *         barrier
 * where the inner loop is split: a whole tile (k0 + depth <= ub) runs `for kk in range(0, depth)` with
 * k = k0 + kk (a constant trip count, unrolled by the backend), the last partial one the loop above.
 * (t = tid.x + bx*tid.y). Each thread's k runs through the same values in the same order, its checks stay
 * before its reads, and a tile element it reads was loaded from the same index it would have read (the
 * indices of the cooperative loads are the original index computations, cloned with threadIdx and k
 * replaced, so this holds whatever the index arithmetic does). A thread ended by a failed check leaves its
 * part of later tiles unloaded: after an IndexError the outputs are not meaningful (as with grid-stride).
 *
 * Register blocking (rewrite_blocked), where legal besides: the kernel has no barrier, warp op, shared memory,
 * call, atomic, fence, lane id or nested return; the ops before L are pure; blockIdx.x and .y are read only
 * there, and in a tiled index only where it moves with threadIdx.x (.y); L's bounds do not depend on them.
 * The launch stays the user's: a block of the tiled variant whose blockIdx is a multiple of (rx, ry) computes
 * what the rx x ry blocks from it compute, its thread (tx, ty) as the thread (tx, ty) of each of them that
 * exists (a virtual thread: the original code with blockIdx := blockIdx + (r, c), so every index, guard, check
 * and store keeps its meaning); the other blocks do nothing. The tiles hold the rows of all those blocks, so
 * each thread reads rx + ry values from shared memory per k for rx * ry accumulations. Each virtual thread's
 * values are combined in the original order. */
#include <stdio.h>
#include <string.h>

#include "passes.h"
#include "passes/affine.h"
#include "passes/range.h"

enum { TS_MAX_TILES = 8, TS_MAX_RANK = 3, TS_SHARED_BUDGET = 48 * 1024, TS_MAX_WRITTEN = 16, TS_MAX_VIRT = 64,
       TS_MAX_CARRY = 64, TS_MAX_OPS = 512 };
enum { VAR_NONE = -1, VAR_TX = 0, VAR_TY = 1, VAR_K = 2 };

typedef struct Tile {
  Op *load;
  Value *array;
  unsigned rank;
  int var[TS_MAX_RANK];       /* per index: the variable it moves with */
  int64_t ext[TS_MAX_RANK];   /* the tile's extent along each index */
  const char *global;         /* the shared mem.global's name */
} Tile;

/* The tile's extent in shared memory along d: the last dimension is padded by one element (when the tile has
 * more than one), so that threads reading down a column (A[i, k] by consecutive i) hit distinct banks: a
 * 16x16 float tile read by column was a 16-way bank conflict on every read. The padding is never indexed. */
static int64_t stored_extent(const Tile *tl, unsigned d) {
  return d + 1 == tl->rank && tl->rank > 1 && tl->ext[d] > 1 ? tl->ext[d] + 1 : tl->ext[d];
}

typedef struct Ts {
  Module *m;
  Diag *diag;
  RangeAnalysis *ra;
  int64_t bx, by, depth;
  int64_t rx, ry;             /* register blocking: a block computes rx x ry blocks' outputs (1 x 1: none) */
  bool report;
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
  switch (op->kind) {
  case OP_BARRIER: case OP_BARRIER_RED: case OP_SYNCWARP: case OP_SHFL: case OP_VOTE: case OP_ACTIVEMASK:
    s->ok = fail(s->t, "the loop synchronises threads (barrier or warp op)");
    break;
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
  Value *a = written_array(op);
  if (!a) return true;
  Op *d = a->def;
  if (d && (d->kind == OP_ALLOCA || d->kind == OP_GLOBAL_REF || d->kind == OP_DYN_SHARED)) return true;
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
      if (op->kind == OP_STORE || op->kind == OP_ATOMIC_RMW || op->kind == OP_ATOMIC_CAS || op->nregions) {
        *writes = true; /* (nested regions: looked at conservatively) */
        return false;
      }
  return true;
}

/* Classifies index i of load as moving with one variable; false when it cannot be tiled. */
static bool classify_index(Ts *t, Value *idx, int *var) {
  Affine f;
  if (!affine_of(t->ra, idx, &f)) return fail(t, "an index is not affine (or may wrap around)");
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
  if (op->kind != OP_LOAD || !directly_in_loop(t, op)) return true;
  Value *a = op_operand(op, 0);
  if (!is_param(t, a) || a->type->rank > TS_MAX_RANK) return true;
  const char *saved = t->why;
  Tile tl = {.load = op, .array = a, .rank = a->type->rank};
  RangeMark mk = range_scope_open(t->ra);
  range_assume_context(t->ra, op);
  bool ok = true, used[3] = {false, false, false};
  for (unsigned i = 0; i < tl.rank && ok; i++) {
    ok = classify_index(t, op_operand(op, 1 + i), &tl.var[i]);
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
  for (unsigned i = 0; i < n; i++) {
    int64_t e = (int64_t)ty_size(t->tiles[i].array->type->elem);
    for (unsigned d = 0; d < t->tiles[i].rank; d++) e *= stored_extent(&t->tiles[i], d);
    bytes += e;
  }
  if (bytes > TS_SHARED_BUDGET) return fail(t, "the tiles do not fit the shared-memory budget");
  return true;
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
 * NULL: 0; k: the value for L's variable). Values that do not depend on them and are defined outside L are
 * used as they are. */
static Value *substitute(Ts *t, IrBuilder *b, Value *v, Value *const tid[2], Value *const bid[2], Value *k,
                         PtrMap *memo) {
  Value *m = ptrmap_get(memo, v);
  if (m) return m;
  Value *iv = t->loop->regions[0].first->args[0];
  Op *d = v->def;
  if (v == iv) return k;
  if (d && d->kind == OP_THREAD_ID) {
    int64_t dim = ir_op_attr_int(d, "dim", 0);
    return dim < 2 && tid[dim] ? tid[dim] : ib_const_int(b, v->type, 0);
  }
  if (d && d->kind == OP_BLOCK_ID && ir_op_attr_int(d, "dim", 0) < 2 && bid[ir_op_attr_int(d, "dim", 0)])
    return bid[ir_op_attr_int(d, "dim", 0)];
  bool inside = d ? ir_op_is_ancestor(t->loop, d) : ir_block_parent_op(v->block) == t->loop;
  if (!inside && affine_is_invariant(v) && !((bid[0] || bid[1]) && uses_block_id(v, 3, 0))) return v;
  if (!d || d->nregions || !op_has(d, OPT_PURE)) return NULL; /* affine_of would have refused it */
  Value *ops[4];
  if (d->noperands > 4) return NULL;
  for (unsigned i = 0; i < d->noperands; i++)
    if (!(ops[i] = substitute(t, b, op_operand(d, i), tid, bid, k, memo))) return NULL;
  PtrMap map = {0};
  for (unsigned i = 0; i < d->noperands; i++) ptrmap_put(&map, op_operand(d, i), ops[i]);
  Op *c = ir_op_clone(t->m, d, &map);
  ptrmap_free(&map);
  ib_insert(b, c);
  Value *r = op_result(c, v->index);
  ptrmap_put(memo, v, r);
  return r;
}

/* not(empty(a) or empty(w) or end(a) <= start(w) or end(w) <= start(a)) is overlap; returns "disjoint". */
static Value *span(IrBuilder *b, Value *a, Value **lo, Value **hi) {
  Type *i64 = ty_i64(b->ctx);
  Value *base = ib_op(b, OP_ADDR, 1, &a, 1, (Type *[]){ty_int(b->ctx, 64, true)}, 0)->results;
  base = ib_cast(b, base, i64);
  Value *l = base, *h = ib_binary(b, OP_ADDI, base, c64(b, (int64_t)ty_size(a->type->elem)));
  Value *zero = c64(b, 0), *empty = ib_const_bool(b, false);
  for (unsigned d = 0; d < a->type->rank; d++) {
    Value *n = ib_dim(b, a, d);
    Op *so = ib_op(b, OP_STRIDE, 1, &a, 1, &i64, 0);
    ir_op_set_attr(b->m, so, "axis", attr_int(i64, d));
    Value *one = c64(b, 1);
    Value *last = ib_binary(b, OP_SUBI, n, one);
    Value *reach = ib_binary(b, OP_MULI, last, op_result(so, 0));
    l = ib_binary(b, OP_ADDI, l, ib_binary(b, OP_MINSI, reach, zero));
    h = ib_binary(b, OP_ADDI, h, ib_binary(b, OP_MAXSI, reach, zero));
    empty = ib_binary(b, OP_ORI, empty, ib_cmpi(b, "sle", n, zero));
  }
  *lo = l;
  *hi = h;
  return empty;
}

static Value *fits_condition(Ts *t, IrBuilder *b) {
  Type *i32 = ty_i32(b->ctx);
  int64_t want[3] = {t->bx, t->by, 1};
  Value *ok = ib_const_bool(b, true);
  for (unsigned d = 0; d < 3; d++)
  {
    Value *dim = ib_gpu_id(b, OP_BLOCK_DIM, d);
    Value *w = ib_const_int(b, i32, want[d]);
    ok = ib_binary(b, OP_ANDI, ok, ib_cmpi(b, "eq", dim, w));
  }
  for (unsigned i = 0; i < t->ntiles; i++) {
    bool seen = false;
    for (unsigned j = 0; j < i; j++) seen |= t->tiles[j].array == t->tiles[i].array;
    if (seen) continue;
    for (unsigned w = 0; w < t->nwritten; w++) {
      Value *la, *ha, *lw, *hw;
      Value *ea = span(b, t->tiles[i].array, &la, &ha), *ew = span(b, t->written[w], &lw, &hw);
      Value *empty = ib_binary(b, OP_ORI, ea, ew);
      Value *before = ib_cmpi(b, "sle", ha, lw);
      Value *after = ib_cmpi(b, "sle", hw, la);
      Value *apart = ib_binary(b, OP_ORI, before, after);
      Value *disjoint = ib_binary(b, OP_ORI, empty, apart);
      ok = ib_binary(b, OP_ANDI, ok, disjoint);
    }
  }
  return ok;
}

/* Moves the entry block's ops (but its return) into the then-arm of scf.if(fits), a clone of them into the
 * else-arm. Returns the then-block. */
static Block *version(Ts *t) {
  Block *entry = ir_func_entry(t->func);
  Op *ret = ir_block_terminator(entry);
  Op *first = entry->first;
  IrBuilder b;
  ib_init(&b, t->m);
  b.loc = t->loop->loc;
  ib_set_before(&b, first);
  Value *fits = fits_condition(t, &b);
  Op *vs = ib_op(&b, OP_IF, 1, &fits, 0, NULL, 2);
  Block *then = ir_block_new(t->m), *other = ir_block_new(t->m);
  ir_region_append_block(&vs->regions[0], then);
  ir_region_append_block(&vs->regions[1], other);
  PtrMap map = {0};
  for (Op *op = first; op != ret; op = op->next) ir_block_append(other, ir_op_clone(t->m, op, &map));
  ptrmap_free(&map);
  ir_op_unlink(ret);
  ir_block_splice_tail(then, first);
  ir_block_append(entry, ret);
  ib_set_end(&b, then);
  ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_end(&b, other);
  ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);
  return then;
}

static const char *new_global(Ts *t, Tile *tl, unsigned n) {
  char name[160];
  snprintf(name, sizeof name, "__kf_tile_%s_%u", ir_func_name(t->func), n);
  Attr shape[TS_MAX_RANK];
  Type *i64 = ty_i64(t->m->ctx);
  for (unsigned d = 0; d < tl->rank; d++) shape[d] = attr_int(i64, stored_extent(tl, d));
  Op *g = ir_op_create(t->m, OP_GLOBAL, t->loop->loc, 0, NULL, 0, NULL, 0);
  ir_op_set_attr(t->m, g, "sym_name", attr_sym(t->m, name));
  ir_op_set_attr(t->m, g, "type", attr_type(ty_array(t->m->ctx, tl->array->type->elem, tl->rank, LAYOUT_C)));
  ir_op_set_attr(t->m, g, "shape", attr_array(t->m, tl->rank, shape));
  ir_op_set_attr(t->m, g, "space", attr_str(t->m, "shared"));
  ir_op_insert_before(t->func, g);
  ir_module_add_symbol(t->m, g);
  return ir_op_attr_str(g, "sym_name");
}

static Value *tile_ref(Ts *t, IrBuilder *b, const Tile *tl) {
  Type *at = ty_array(t->m->ctx, tl->array->type->elem, tl->rank, LAYOUT_C);
  Op *r = ib_op(b, OP_GLOBAL_REF, 0, NULL, 1, &at, 0);
  ir_op_set_attr(t->m, r, "name", attr_sym(t->m, tl->global));
  return op_result(r, 0);
}

/* for e in range(lin, size, bx*by): tile[coords(e)] = A[index(coords)] if in bounds else 0 */
static void cooperative_load(Ts *t, IrBuilder *b, Tile *tl, Value *lin, Value *k0, Value *const bidbase[2]) {
  int64_t size = 1;
  for (unsigned d = 0; d < tl->rank; d++) size *= tl->ext[d];
  Value *bounds[3] = {lin, NULL, NULL};
  bounds[1] = c64(b, size);
  bounds[2] = c64(b, t->bx * t->by);
  Op *loop = ib_op(b, OP_FOR, 3, bounds, 0, NULL, 1);
  Block *body = ir_block_new(t->m);
  ir_region_append_block(&loop->regions[0], body);
  Value *e = ir_block_add_arg(t->m, body, ty_i64(t->m->ctx));
  IrBuilder in;
  ib_init(&in, t->m);
  in.loc = b->loc;
  ib_set_end(&in, body);
  Value *coord[TS_MAX_RANK], *rest = e;
  for (int d = (int)tl->rank - 1; d >= 0; d--) { /* the last index varies fastest: C order, coalesced */
    coord[d] = d ? ib_binary(&in, OP_REMSI, rest, c64(&in, tl->ext[d])) : rest;
    if (d) rest = ib_binary(&in, OP_DIVSI, rest, c64(&in, tl->ext[d]));
  }
  Value *tid[2] = {NULL, NULL}, *bid[2] = {NULL, NULL}, *k = NULL;
  Type *i32 = ty_i32(t->m->ctx);
  for (unsigned d = 0; d < tl->rank; d++) {
    if (tl->var[d] == VAR_TX || tl->var[d] == VAR_TY) {
      int v = tl->var[d];
      Value *c = coord[d], *w = c64(&in, v == VAR_TX ? t->bx : t->by);
      if (bidbase[v]) { /* register blocking: the coordinate runs over the threads of rx (ry) blocks */
        Value *q = ib_binary(&in, OP_DIVSI, c, w);
        Value *q32 = ib_unary(&in, OP_TRUNCI, q, i32);
        bid[v] = ib_binary(&in, OP_ADDI, bidbase[v], q32);
        c = ib_binary(&in, OP_REMSI, c, w);
      }
      tid[v] = ib_unary(&in, OP_TRUNCI, c, i32);
    }
    if (tl->var[d] == VAR_K) k = ib_binary(&in, OP_ADDI, k0, coord[d]);
  }
  Value *gidx[TS_MAX_RANK];
  Value *inb = ib_const_bool(&in, true);
  PtrMap memo = {0};
  for (unsigned d = 0; d < tl->rank; d++) {
    gidx[d] = substitute(t, &in, op_operand(tl->load, 1 + d), tid, bid, k, &memo);
    Value *n = ib_dim(&in, tl->array, d);
    Value *zero = c64(&in, 0);
    Value *above = ib_cmpi(&in, "sge", gidx[d], zero);
    Value *below = ib_cmpi(&in, "slt", gidx[d], n);
    Value *inside = ib_binary(&in, OP_ANDI, above, below);
    inb = ib_binary(&in, OP_ANDI, inb, inside);
  }
  ptrmap_free(&memo);
  Type *et = tl->array->type->elem;
  Op *pick = ib_op(&in, OP_IF, 1, &inb, 1, &et, 2);
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
  Value *zero = ty_is_float(et) ? ib_const_float(&y, et, 0.0) : ty_is_bool(et) ? ib_const_bool(&y, false)
                                                                              : ib_const_int(&y, et, 0);
  ib_op(&y, OP_YIELD, 1, &zero, 0, NULL, 0);
  Value *sops[2 + TS_MAX_RANK] = {op_result(pick, 0), tile_ref(t, &in, tl)};
  for (unsigned d = 0; d < tl->rank; d++) sops[2 + d] = coord[d];
  ib_op(&in, OP_STORE, 2 + tl->rank, sops, 0, NULL, 0);
  ib_op(&in, OP_YIELD, 0, NULL, 0, NULL, 0);
}

/* The tiled load: tile[tid.x or tid.y or k - k0 or 0, ...]. */
static void redirect_load(Ts *t, Tile *tl, Value *const tid64[2], Value *k0) {
  IrBuilder b;
  ib_init(&b, t->m);
  b.loc = tl->load->loc;
  ib_set_before(&b, tl->load);
  Value *ops[1 + TS_MAX_RANK];
  ops[0] = tile_ref(t, &b, tl);
  Value *iv = t->loop->regions[0].first->args[0];
  for (unsigned d = 0; d < tl->rank; d++)
    ops[1 + d] = tl->var[d] == VAR_K ? ib_binary(&b, OP_SUBI, iv, k0) : tl->var[d] == VAR_NONE ? c64(&b, 0) : tid64[tl->var[d]];
  Type *et = tl->array->type->elem;
  Value *v = op_result(ib_op(&b, OP_LOAD, 1 + tl->rank, ops, 1, &et, 0), 0);
  ir_value_replace_all_uses(op_result(tl->load, 0), v);
  ir_op_erase(tl->load);
}

/* L (the inner loop over [k0, end), its loads reading the tiles) becomes
 *     scf.if(k0 + depth <= ub) {for kk in range(0, depth): L's body with k := k0 + kk} else {L}
 * so that a whole tile, every tile but the last partial one, runs a loop of constant trip count that the
 * backend unrolls. k takes the same values in the same order either way. */
static void full_tile_path(Ts *t, Value *k0, Value *k0_plus_depth, Value *ub) {
  Module *m = t->m;
  Op *L = t->loop;
  unsigned ncarry = L->noperands - 3;
  Type *ctypes[16];
  for (unsigned i = 0; i < ncarry; i++) ctypes[i] = op_result(L, i)->type;
  IrBuilder b;
  ib_init(&b, m);
  b.loc = L->loc;
  ib_set_before(&b, L);
  /* k0 + depth <= ub, both ways: the first without wrap-around where ub - depth has none (ub an extent, say),
   * which gives the range analysis k0 + kk < ub in the loop; the second where k0 + depth has none */
  Value *depth = c64(&b, t->depth);
  Value *ub_less = ib_binary(&b, OP_SUBI, ub, depth);
  Value *fits_lo = ib_cmpi(&b, "sle", k0, ub_less);
  Value *fits_hi = ib_cmpi(&b, "sle", k0_plus_depth, ub);
  Value *full = ib_binary(&b, OP_ANDI, fits_lo, fits_hi);
  Op *sel = ib_op(&b, OP_IF, 1, &full, ncarry, ctypes, 2);
  Block *yes = ir_block_new(m), *no = ir_block_new(m);
  ir_region_append_block(&sel->regions[0], yes);
  ir_region_append_block(&sel->regions[1], no);
  for (unsigned i = 0; i < ncarry; i++) ir_value_replace_all_uses(op_result(L, i), op_result(sel, i));
  /* the whole tile */
  ib_set_end(&b, yes);
  Value *fops[3 + 16];
  fops[0] = c64(&b, 0);
  fops[1] = c64(&b, t->depth);
  fops[2] = c64(&b, 1);
  for (unsigned i = 0; i < ncarry; i++) fops[3 + i] = op_operand(L, 3 + i);
  Op *fast = ib_op(&b, OP_FOR, 3 + ncarry, fops, ncarry, ctypes, 1);
  Block *body = L->regions[0].first, *fb = ir_block_new(m);
  ir_region_append_block(&fast->regions[0], fb);
  Value *kk = ir_block_add_arg(m, fb, ty_i64(m->ctx));
  PtrMap map = {0};
  for (unsigned i = 0; i < ncarry; i++) ptrmap_put(&map, body->args[1 + i], ir_block_add_arg(m, fb, ctypes[i]));
  IrBuilder f;
  ib_init(&f, m);
  f.loc = L->loc;
  ib_set_end(&f, fb);
  ptrmap_put(&map, body->args[0], ib_binary(&f, OP_ADDI, k0, kk));
  for (Op *op = body->first; op; op = op->next) ir_block_append(fb, ir_op_clone(m, op, &map));
  ptrmap_free(&map);
  Value *fr[16];
  for (unsigned i = 0; i < ncarry; i++) fr[i] = op_result(fast, i);
  ib_op(&b, OP_YIELD, ncarry, fr, 0, NULL, 0);
  /* the last, partial tile */
  ir_op_unlink(L);
  ir_block_append(no, L);
  ib_set_end(&b, no);
  Value *lr[16];
  for (unsigned i = 0; i < ncarry; i++) lr[i] = op_result(L, i);
  ib_op(&b, OP_YIELD, ncarry, lr, 0, NULL, 0);
}

static void rewrite(Ts *t) {
  Module *m = t->m;
  Op *L = t->loop, *G = t->guard;
  version(t);
  for (unsigned i = 0; i < t->ntiles; i++) t->tiles[i].global = new_global(t, &t->tiles[i], i);
  IrBuilder b;
  ib_init(&b, m);
  b.loc = L->loc;
  Op *at = G ? G : L; /* the outer loop goes here */
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
  Value *bx = c64(&b, t->bx);
  Value *row = ib_binary(&b, OP_MULI, tid64[1], bx);
  Value *lin = ib_binary(&b, OP_ADDI, tid64[0], row);
  Value *guard = NULL;
  if (G) guard = t->arm == 0 ? op_operand(G, 0) : ib_binary(&b, OP_XORI, op_operand(G, 0), ib_const_bool(&b, true));
  /* the outer loop, carrying L's values */
  unsigned ncarry = L->noperands - 3;
  Value *oops[3 + 16];
  Type *ctypes[16];
  if (ncarry > 16) return; /* checked in legal() */
  oops[0] = op_operand(L, 0);
  oops[1] = op_operand(L, 1);
  oops[2] = c64(&b, t->depth);
  for (unsigned i = 0; i < ncarry; i++) {
    oops[3 + i] = op_operand(L, 3 + i);
    ctypes[i] = op_operand(L, 3 + i)->type;
  }
  Op *outer = ib_op(&b, OP_FOR, 3 + ncarry, oops, ncarry, ctypes, 1);
  Block *ob = ir_block_new(m);
  ir_region_append_block(&outer->regions[0], ob);
  Value *k0 = ir_block_add_arg(m, ob, i64);
  Value *carried[16];
  for (unsigned i = 0; i < ncarry; i++) carried[i] = ir_block_add_arg(m, ob, ctypes[i]);
  for (unsigned i = 0; i < ncarry; i++) ir_value_replace_all_uses(op_result(L, i), op_result(outer, i));
  IrBuilder in;
  ib_init(&in, m);
  in.loc = L->loc;
  ib_set_end(&in, ob);
  Value *nobid[2] = {NULL, NULL};
  for (unsigned i = 0; i < t->ntiles; i++) cooperative_load(t, &in, &t->tiles[i], lin, k0, nobid);
  ib_op(&in, OP_BARRIER, 0, NULL, 0, NULL, 0);
  Value *depth = c64(&in, t->depth);
  Value *k0_plus_depth = ib_binary(&in, OP_ADDI, k0, depth);
  Value *end = ib_binary(&in, OP_MINSI, k0_plus_depth, op_operand(L, 1));
  /* L becomes the inner loop over [k0, end), carrying the outer loop's values */
  ir_op_unlink(L);
  ir_op_set_operand(L, 0, k0);
  ir_op_set_operand(L, 1, end);
  for (unsigned i = 0; i < ncarry; i++) ir_op_set_operand(L, 3 + i, carried[i]);
  Value *next[16];
  if (guard) {
    Op *gi = ib_op(&in, OP_IF, 1, &guard, ncarry, ctypes, 2);
    Block *yes = ir_block_new(m), *no = ir_block_new(m);
    ir_region_append_block(&gi->regions[0], yes);
    ir_region_append_block(&gi->regions[1], no);
    ir_block_append(yes, L);
    IrBuilder y;
    ib_init(&y, m);
    y.loc = L->loc;
    ib_set_end(&y, yes);
    Value *lr[16];
    for (unsigned i = 0; i < ncarry; i++) lr[i] = op_result(L, i);
    ib_op(&y, OP_YIELD, ncarry, lr, 0, NULL, 0);
    ib_set_end(&y, no);
    ib_op(&y, OP_YIELD, ncarry, carried, 0, NULL, 0);
    for (unsigned i = 0; i < ncarry; i++) next[i] = op_result(gi, i);
  } else {
    ib_insert(&in, L);
    for (unsigned i = 0; i < ncarry; i++) next[i] = op_result(L, i);
  }
  ib_op(&in, OP_BARRIER, 0, NULL, 0, NULL, 0);
  ib_op(&in, OP_YIELD, ncarry, next, 0, NULL, 0);
  for (unsigned i = 0; i < t->ntiles; i++) redirect_load(t, &t->tiles[i], tid64, k0);
  full_tile_path(t, k0, op_operand(end->def, 0), oops[1]);
  ir_op_set_attr(m, t->func, "tiled_block", attr_array(m, 3, (Attr[]){attr_int(i64, t->bx), attr_int(i64, t->by),
                                                                        attr_int(i64, 1)}));
}

/* ---- register blocking ---------------------------------------------------------------------------- */

static bool rb_scan(Op *op, void *user) {
  bool *ok = user;
  switch (op->kind) {
  case OP_BARRIER: case OP_BARRIER_RED: case OP_SYNCWARP: case OP_SHFL: case OP_VOTE: case OP_ACTIVEMASK:
  case OP_FUNC_CALL: case OP_FUNC_RETURN: case OP_GLOBAL_REF: case OP_DYN_SHARED: case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS: case OP_FENCE: case OP_LANE_ID: case OP_RAISE:
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
  int64_t bytes = 0;
  for (unsigned i = 0; i < t->ntiles; i++) {
    Tile *tl = &t->tiles[i];
    for (unsigned d = 0; d < tl->rank; d++) {
      Value *idx = op_operand(tl->load, 1 + d);
      if ((tl->var[d] != VAR_TX && uses_block_id(idx, 1, 0)) || (tl->var[d] != VAR_TY && uses_block_id(idx, 2, 0)))
        return false;
    }
    int64_t e = (int64_t)ty_size(tl->array->type->elem);
    for (unsigned d = 0; d < tl->rank; d++) {
      int64_t x = tl->var[d] == VAR_TX ? t->rx : tl->var[d] == VAR_TY ? t->ry : 1;
      Tile s = *tl;
      s.ext[d] *= x;
      e *= stored_extent(&s, d);
    }
    bytes += e;
  }
  if (bytes > TS_SHARED_BUDGET) return false;
  for (unsigned i = 0; i < t->ntiles; i++)
    for (unsigned d = 0; d < t->tiles[i].rank; d++)
      t->tiles[i].ext[d] *= t->tiles[i].var[d] == VAR_TX ? t->rx : t->tiles[i].var[d] == VAR_TY ? t->ry : 1;
  return true;
}

typedef struct Virt {
  PtrMap map[TS_MAX_VIRT];    /* per virtual thread: original value -> its value */
  Value *exists[TS_MAX_VIRT], *guard[TS_MAX_VIRT];
  unsigned n, nc;             /* virtual threads; values L carries */
} Virt;

static Value *vmapped(Virt *vt, unsigned v, Value *x) {
  Value *y = ptrmap_get(&vt->map[v], x);
  return y ? y : x;
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

/* for k in [lb, ub) (k = k0 + the loop's variable when k0 is given), L's body for each virtual thread of
 * vs[0..n) in turn (each under scf.if(its guard) when guarded), carrying their values init[n * nc]. */
static Op *emit_bodies(Ts *t, Virt *vt, IrBuilder *b, Value *lb, Value *ub, Value *k0, const unsigned *vs, unsigned n,
                       Value *const *init, bool guarded) {
  Module *m = t->m;
  unsigned nc = vt->nc, nr = n * nc;
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
  Value *k = k0 ? ib_binary(&f, OP_ADDI, k0, iv) : iv, *ys[TS_MAX_CARRY];
  Op *term = ir_block_terminator(tb);
  for (unsigned j = 0; j < n; j++) {
    PtrMap *mp = &vt->map[vs[j]];
    ptrmap_put(mp, tb->args[0], k);
    for (unsigned i = 0; i < nc; i++) ptrmap_put(mp, tb->args[1 + i], body->args[1 + j * nc + i]);
    IrBuilder *at = &f, g;
    Op *gi = NULL;
    if (guarded) {
      Block *yes, *no;
      gi = emit_if(t, &f, vt->guard[vs[j]], nc, &types[j * nc], &yes, &no);
      ib_init(&g, m);
      g.loc = f.loc;
      ib_set_end(&g, no);
      ib_op(&g, OP_YIELD, nc, &body->args[1 + j * nc], 0, NULL, 0);
      ib_set_end(&g, yes);
      at = &g;
    }
    for (Op *op = tb->first; op != term; op = op->next) ib_insert(at, ir_op_clone(m, op, mp));
    for (unsigned i = 0; i < nc; i++) ys[j * nc + i] = vmapped(vt, vs[j], op_operand(term, i));
    if (gi) {
      ib_op(at, OP_YIELD, nc, &ys[j * nc], 0, NULL, 0);
      for (unsigned i = 0; i < nc; i++) ys[j * nc + i] = op_result(gi, i);
    }
  }
  ib_op(&f, OP_YIELD, nr, ys, 0, NULL, 0);
  return loop;
}

static void yield_results(IrBuilder *b, Block *blk, Op *of) {
  Value *r[TS_MAX_CARRY];
  for (unsigned i = 0; i < of->nresults; i++) r[i] = op_result(of, i);
  ib_set_end(b, blk);
  ib_op(b, OP_YIELD, of->nresults, r, 0, NULL, 0);
}

/* The register-blocked rewrite. In the tiled variant, the block (bx0, by0) with bx0 % rx == 0 and by0 % ry == 0
 * computes what the blocks (bx0 + r, by0 + c), r < rx, c < ry, of the user's grid compute (those that exist);
 * the others do nothing. Its thread (tx, ty) plays the thread (tx, ty) of each of those blocks, a virtual
 * thread: its code is the original's with blockIdx.x := bx0 + r and blockIdx.y := by0 + c (so every index,
 * guard, check and store keeps its meaning), its tiles the rows of all rx (ry) blocks. Per tile:
 *     if every virtual thread exists and passes its guard:
 *         for k in the tile: L's body for each virtual thread in turn (a whole tile: k = k0 + kk, kk < depth)
 *     else: for k in the tile: for each virtual thread: if it exists and passes its guard: its L's body
 * (one loop, not one per virtual thread: less code, and 127 registers instead of 137 for the 4x4 float32 matmul)
 * Each virtual thread's k runs through the same values in the same order (bit for bit); the code after L
 * runs for each virtual thread that exists. */
static void rewrite_blocked(Ts *t) {
  Module *m = t->m;
  Op *L = t->loop, *G = t->guard;
  Type *i32 = ty_i32(m->ctx), *i64 = ty_i64(m->ctx);
  Virt vt = {0};
  vt.n = (unsigned)(t->rx * t->ry);
  vt.nc = L->noperands - 3;
  Block *then = version(t);
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
  IrBuilder b;
  ib_init(&b, m);
  b.loc = L->loc;
  ib_set_before(&b, at);
  Value *bid[2] = {ib_gpu_id(&b, OP_BLOCK_ID, 0), ib_gpu_id(&b, OP_BLOCK_ID, 1)};
  Value *first[2];
  for (unsigned d = 0; d < 2; d++) {  /* blockIdx a multiple of (rx, ry) */
    Value *r = ib_const_int(&b, i32, d ? t->ry : t->rx);
    Value *rem = ib_binary(&b, OP_REMSI, bid[d], r);
    Value *zero = ib_const_int(&b, i32, 0);
    first[d] = ib_cmpi(&b, "eq", rem, zero);
  }
  Value *active = ib_binary(&b, OP_ANDI, first[0], first[1]);
  Block *nb, *idle;
  emit_if(t, &b, active, 0, NULL, &nb, &idle);
  ib_set_end(&b, idle);
  ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);
  IrBuilder in;
  ib_init(&in, m);
  in.loc = L->loc;
  ib_set_end(&in, nb);
  Value *tid64[2], *gd[2];
  for (unsigned d = 0; d < 2; d++) tid64[d] = ib_cast(&in, ib_gpu_id(&in, OP_THREAD_ID, d), i64);
  Value *bx = c64(&in, t->bx);
  Value *row = ib_binary(&in, OP_MULI, tid64[1], bx);
  Value *lin = ib_binary(&in, OP_ADDI, tid64[0], row);
  for (unsigned d = 0; d < 2; d++) gd[d] = ib_gpu_id(&in, OP_GRID_DIM, d);
  Value *all = ib_const_bool(&in, true);
  for (unsigned v = 0; v < vt.n; v++) {
    int64_t r = v / t->ry, c = v % t->ry;
    PtrMap *mp = &vt.map[v];
    Value *vb[2];
    for (unsigned d = 0; d < 2; d++) {
      Value *off = ib_const_int(&in, i32, d ? c : r);
      vb[d] = ib_binary(&in, OP_ADDI, bid[d], off);
    }
    Value *in_x = ib_cmpi(&in, "ult", vb[0], gd[0]);
    Value *in_y = ib_cmpi(&in, "ult", vb[1], gd[1]);
    vt.exists[v] = ib_binary(&in, OP_ANDI, in_x, in_y);
    ptrmap_put(mp, tid64[0], ib_binary(&in, OP_ADDI, tid64[0], c64(&in, t->bx * r)));
    ptrmap_put(mp, tid64[1], ib_binary(&in, OP_ADDI, tid64[1], c64(&in, t->by * c)));
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
  /* the outer loop over the tiles, carrying every virtual thread's values */
  unsigned nr = vt.n * vt.nc;
  Value *oops[3 + TS_MAX_CARRY];
  Type *ctypes[TS_MAX_CARRY];
  Value *lb = op_operand(L, 0), *ub = op_operand(L, 1);
  oops[0] = lb;
  oops[1] = ub;
  oops[2] = c64(&in, t->depth);
  for (unsigned v = 0; v < vt.n; v++)
    for (unsigned i = 0; i < vt.nc; i++) {
      oops[3 + v * vt.nc + i] = vmapped(&vt, v, op_operand(L, 3 + i));
      ctypes[v * vt.nc + i] = op_operand(L, 3 + i)->type;
    }
  Op *outer = ib_op(&in, OP_FOR, 3 + nr, oops, nr, ctypes, 1);
  Block *ob = ir_block_new(m);
  ir_region_append_block(&outer->regions[0], ob);
  Value *k0 = ir_block_add_arg(m, ob, i64), *carried[TS_MAX_CARRY];
  for (unsigned i = 0; i < nr; i++) carried[i] = ir_block_add_arg(m, ob, ctypes[i]);
  IrBuilder o;
  ib_init(&o, m);
  o.loc = L->loc;
  ib_set_end(&o, ob);
  for (unsigned i = 0; i < t->ntiles; i++) cooperative_load(t, &o, &t->tiles[i], lin, k0, bid);
  ib_op(&o, OP_BARRIER, 0, NULL, 0, NULL, 0);
  /* L's body reads the tiles; it is the template of every virtual thread's */
  ir_op_unlink(L);
  for (unsigned i = 0; i < t->ntiles; i++) redirect_load(t, &t->tiles[i], tid64, k0);
  Value *k0d = ib_binary(&o, OP_ADDI, k0, c64(&o, t->depth));
  Value *end = ib_binary(&o, OP_MINSI, k0d, ub);
  Block *yes, *no, *fy, *fn;
  Op *sel = emit_if(t, &o, all, nr, ctypes, &yes, &no);
  IrBuilder y;
  ib_init(&y, m);
  y.loc = L->loc;
  ib_set_end(&y, yes);
  Value *depth = c64(&y, t->depth);
  Value *ub_less = ib_binary(&y, OP_SUBI, ub, depth);
  Value *fits_lo = ib_cmpi(&y, "sle", k0, ub_less);
  Value *fits_hi = ib_cmpi(&y, "sle", k0d, ub);
  Value *full = ib_binary(&y, OP_ANDI, fits_lo, fits_hi);
  Op *fsel = emit_if(t, &y, full, nr, ctypes, &fy, &fn);
  yield_results(&y, yes, fsel);
  unsigned vs[TS_MAX_VIRT];
  for (unsigned v = 0; v < vt.n; v++) vs[v] = v;
  ib_set_end(&y, fy);
  Value *lo = c64(&y, 0);
  Value *hi = c64(&y, t->depth);
  yield_results(&y, fy, emit_bodies(t, &vt, &y, lo, hi, k0, vs, vt.n, carried, false));
  ib_set_end(&y, fn);
  yield_results(&y, fn, emit_bodies(t, &vt, &y, k0, end, NULL, vs, vt.n, carried, false));
  /* some virtual thread is out: each body under its guard */
  ib_set_end(&y, no);
  yield_results(&y, no, emit_bodies(t, &vt, &y, k0, end, NULL, vs, vt.n, carried, true));
  ib_op(&o, OP_BARRIER, 0, NULL, 0, NULL, 0);
  Value *next[TS_MAX_CARRY];
  for (unsigned i = 0; i < nr; i++) next[i] = op_result(sel, i);
  ib_op(&o, OP_YIELD, nr, next, 0, NULL, 0);
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
  ib_op(&in, OP_YIELD, 0, NULL, 0, NULL, 0);
  /* the originals go (after the new code, which no longer uses them) */
  Op *gone[TS_MAX_OPS];
  unsigned ng = 0;
  for (Op *op = after; op && op != term && ng < TS_MAX_OPS; op = op->next) gone[ng++] = op;
  for (unsigned i = ng; i-- > 0;) ir_op_erase(gone[i]);
  ir_op_erase(L);
  for (unsigned v = 0; v < vt.n; v++) ptrmap_free(&vt.map[v]);
  ir_op_set_attr(m, t->func, "tiled_block", attr_array(m, 3, (Attr[]){attr_int(i64, t->bx), attr_int(i64, t->by),
                                                                        attr_int(i64, 1)}));
  ir_op_set_attr(m, t->func, "register_blocked", attr_array(m, 2, (Attr[]){attr_int(i64, t->rx), attr_int(i64, t->ry)}));
}

/* ---- the pass ------------------------------------------------------------------------------------- */

static void report(Ts *t, bool tiled) {
  if (!t->report) return;
  if (!tiled) {
    diag_note(t->diag, t->loop->loc, "loop not tiled: %s", t->why ? t->why : "?");
    return;
  }
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "loop tiled for blocks of (%lld, %lld, 1), depth %lld", (long long)t->bx, (long long)t->by,
            (long long)t->depth);
  if (t->blocked) sb_printf(&sb, ", register-blocked %lldx%lld", (long long)t->rx, (long long)t->ry);
  sb_puts(&sb, ":");
  for (unsigned i = 0; i < t->ntiles; i++) {
    Tile *tl = &t->tiles[i];
    sb_printf(&sb, "%s parameter %u in a ", i ? "," : "", tl->array->index);
    for (unsigned d = 0; d < tl->rank; d++) sb_printf(&sb, "%s%lld", d ? "x" : "", (long long)tl->ext[d]);
    sb_puts(&sb, " tile");
  }
  diag_note(t->diag, t->loop->loc, "%s", sb_cstr(&sb));
  sb_free(&sb);
}

/* Tries loop L (guarded by G's arm, or G NULL). True when tiled. */
static bool try_loop(Ts *t, Op *L, Op *G, unsigned arm) {
  t->loop = L;
  t->guard = G;
  t->arm = arm;
  t->why = NULL;
  t->ntiles = 0;
  bool ok = L->noperands - 3 <= 16 ? legal(t) : fail(t, "the loop carries too many values");
  t->blocked = ok && rb_legal(t);
  report(t, ok);
  if (ok && t->blocked) rewrite_blocked(t);
  else if (ok) rewrite(t);
  return ok;
}

static void tile_kernel(Ts *t, Op *func) {
  t->func = func;
  Block *entry = ir_func_entry(func);
  if (!entry || entry->next || ir_op_attr(func, "tiled_block") || ir_op_attr(func, "grid_stride")) return;
  for (Op *op = entry->first; op; op = op->next) {
    if (op->kind == OP_FOR) {
      if (try_loop(t, op, NULL, 0)) return;
    } else if (op->kind == OP_IF && op->nresults == 0) {
      for (unsigned arm = 0; arm < 2; arm++) {
        if (!region_is_empty(&op->regions[1 - arm]) || !op->regions[arm].first) continue;
        for (Op *in = op->regions[arm].first->first; in; in = in->next)
          if (in->kind == OP_FOR && try_loop(t, in, op, arm)) return;
      }
    }
  }
}

bool pass_tile_shared(Module *m, const PassContext *pc) {
  Ts t = {.m = m, .diag = pc->diag, .bx = pc->options[0], .by = pc->options[1], .depth = pc->options[2],
          .report = pc->options[3] != 0, .rx = pc->options[4], .ry = pc->options[5]};
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
    if (f->kind == OP_FUNC_FUNC && ir_op_attr(f, "kernel")) tile_kernel(&t, f);
  range_analysis_free(t.ra);
  return true;
}
