/* privatize_atomics.c — atomic privatisation: a kernel whose threads only ever update a small global array by
 * atomics (a histogram: cuda.atomic.add(bins, int(x[i] * n), 1), counters, a scatter-add into few bins) does
 * its atomics on a per-block copy in shared memory and adds the block's totals to the global array at its end.
 * The global array sees one atomic per nonzero bin per block instead of one per update: many threads updating
 * few addresses in global memory (L2) serialise there, while shared-memory atomics are resolved in each SM.
 *
 * Requires: valid IR, the kernel's body in structured form (one block, its func.return last). Preserves:
 * validity; for integer elements every value the global array ends with, bit for bit (the updates are of one
 * associative and commutative kind, done exactly, in another order: the original order is unspecified
 * already). Keeps no analysis valid.
 *
 * For each entry argument `bins` of a kernel (one-dimensional array of 32- or 64-bit integers; f32/f64 with
 * kind add only when the function has the `fastmath` attribute: the sums then round in another order) whose
 * every use is a gpu.atomic_rmw into it (the array operand) or mem.dim, the atomics all of one kind among add
 * and sub (both flushed as add), and, or, xor, min, max, their old values unused, the pass builds, with S a new
 * static shared array of B elements (`__kf_priv_<kernel>_<arg>`) and C a shared i32 counter:
 *
 *     n = bins.shape[0]; fast = n <= B              (the extent is known only at run time: kfront specialises
 *     if tid == 0: C = 0                             on types, not shapes; uniform over the block)
 *     if fast: for j in range(tid, n, nthreads): S[j] = identity of the kind (0; ~0 for and; the type's max
 *     barrier                                        for min, its min for max)
 *     ... the body, each atomic `bins[i] op= v` now `if fast: S[i] op= v (shared atomic) else: bins[i] op= v`
 *     barrier
 *     if fast: while (j = atomic_add(C, 1)) < n:     (every live thread takes the next bin)
 *                  if S[j] != identity: atomic(bins, j, S[j])   (add for add and sub; the kind itself else)
 *
 * The zeroing is the first thing the kernel does, so every thread of the block takes part. The flush hands out
 * bins through the counter rather than in fixed slices because a thread may end before it: a failed bounds
 * check or a raise (silent in a kernel without debug=True) ends the thread, and a block barrier waits only for
 * the threads that have not exited (PTX's rule, and the simulator's), so the live threads flush every bin. The
 * bounds checks are the original ones, on the original extent, before each atomic: an index out of range
 * raises the same IndexError at the same check (n <= B, so a checked index is in S). Without bounds checks an
 * index out of range is undefined behaviour in both forms (the original writes outside bins, the new one
 * outside [0, n) of S or of shared memory).
 *
 * Declines (a remark with report=1, `kfront compile --remarks=atomics`), for the kernel or one array:
 *   - the kernel (or a device function it calls) has a barrier, warp op or grid sync (OPT_CONVERGENT: the new
 *     barriers would change which threads meet at them), is cooperative, or uses dynamic shared memory;
 *   - the body is not structured (more than one block or a func.return other than the last op);
 *   - bins is not one-dimensional, has another element type, is used other than as the array of an atomic or
 *     by mem.dim (a load, a store, a view, passed to a device function), the atomics mix kinds, one of them is
 *     exch/inc/dec/nanmin/nanmax/cas, a float atomic without fastmath, or an old value is used;
 *   - profitability (option require-loop, default 1): no atomic on bins is inside a loop (scf.for/scf.while,
 *     the grid-stride loop the runtime adds included). A thread that adds once pays the zeroing, the barriers
 *     and the flush for one update; with a loop each block makes many updates per bin, which is where
 *     privatisation pays (64M values into 256 bins: one global atomic per bin per block instead of 64M);
 *   - the shared copy does not fit: B = min(max-bins, max-bytes / element size, what the target's static
 *     shared memory per block (TargetFacts) leaves after the shared arrays the kernel and its device functions
 *     use and the copies of its other arrays), and B < 32.
 * Defaults max-bins 4096, max-bytes 16384 (16 KiB: 4096 i32 or 2048 i64 bins; at most 14 such blocks per SM of
 * an H200's 228 KiB, occupancy still full at 256 threads per block). A launch with bins larger than B runs the
 * original path (the same kernel, one uniform branch per atomic).
 *
 * In the pipeline: after unroll in the default pipeline (loops of the user's); the runtime runs it again after
 * grid-stride, whose loop over the user's blocks makes a one-thread-per-element histogram privatisable (the
 * kernel then runs on the grid the device holds at once, each block over many of the user's blocks). A
 * privatised kernel gets the unit attribute `privatized_atomics` and is not looked at again.
 *
 * Known difference: another array argument that aliases bins and is read by the kernel sees the global array
 * without the block's updates (a race in the original already, but for a thread's own updates). */
#include <stdio.h>
#include <string.h>

#include "passes.h"
#include "utils/ptrmap.h"

enum { PA_MAX_ATOMICS = 256 };

typedef struct Pa {
  Module *m;
  Diag *diag;
  bool report;
  bool require_loop;
  int64_t max_bins, max_bytes;
  Op *func;
  const char *why;         /* the kernel's reason to decline, or NULL */
} Pa;

static void remark(Pa *p, SrcLoc loc, const char *fmt, const char *arg, const char *why)
    __attribute__((format(printf, 3, 0)));
static void remark(Pa *p, SrcLoc loc, const char *fmt, const char *arg, const char *why) {
  if (p->report) diag_remark(p->diag, loc, fmt, arg, why);
}

/* ---- the kernel's eligibility ------------------------------------------------------------------------- */

static bool scan_kernel_op(Op *op, void *user) {
  Pa *p = user;
  if (op_kind_has(op->kind, OPT_CONVERGENT)) {
    p->why = "the kernel has a barrier, a warp op or a grid sync";
    return false;
  }
  if (op->kind == OP_DYN_SHARED) {
    p->why = "the kernel uses dynamic shared memory";
    return false;
  }
  return true;
}

static bool scan_callee(Op *callee, Op *call, void *user) {
  (void)call;
  Pa *p = user;
  if (!callee) return true; /* a foreign function: it cannot name the kernel's arrays but through arguments */
  for (Block *b = callee->regions[0].first; b; b = b->next)
    for (Op *op = b->first; op; op = op->next)
      if (!ir_walk_pre(op, scan_kernel_op, p)) return false;
  return true;
}

/* Why func cannot be privatised as a whole, or NULL. */
static const char *kernel_why(Pa *p, Op *func) {
  if (ir_op_attr(func, "cooperative")) return "the kernel is cooperative";
  Block *entry = ir_func_entry(func);
  if (!entry || entry->next) return "the kernel's body is not in structured form";
  Op *term = ir_block_terminator(entry);
  if (!term || term->kind != OP_FUNC_RETURN) return "the kernel's body is not in structured form";
  p->why = NULL;
  for (Op *op = entry->first; op; op = op->next)
    if (!ir_walk_pre(op, scan_kernel_op, p)) return p->why;
  if (ir_walk_callees(p->m, func, scan_callee, p) != IR_WALK_DONE) return p->why ? p->why : "?";
  return NULL;
}

/* ---- one array ---------------------------------------------------------------------------------------- */

typedef struct Cand {
  Value *arr;
  const char *name;
  Op *atomics[PA_MAX_ATOMICS];
  unsigned natomics;
  IrAtomicKind kind;       /* the shared atomics' kind (add and sub mixed: each keeps its own) */
  IrAtomicKind flush;      /* the flush's kind */
  bool in_loop;
  const char *why;
} Cand;

static bool inside_loop(const Op *op, const Op *func) {
  for (Op *p = ir_block_parent_op(op->block); p && p != func; p = ir_block_parent_op(p->block))
    if (op_kind_has(p->kind, OPT_LOOP)) return true;
  return false;
}

/* Fills c from the uses of c->arr; c->why when it cannot be privatised. */
static void analyse(Pa *p, Cand *c) {
  Type *t = c->arr->type, *e = t->elem;
  bool fast = ir_op_attr(p->func, "fastmath") != NULL;
  int kind = -1;
  const char *why = NULL; /* the first reason found; every atomic is recorded still (the remark's place) */
  for (Use *u = c->arr->uses; u; u = u->next) {
    Op *op = u->user;
    if (op->kind == OP_DIM) continue;
    if (op->kind != OP_ATOMIC_RMW || u->index != 0) {
      if (!why)
        why = op->kind == OP_FUNC_CALL ? "it is passed to a device function"
              : op->kind == OP_ATOMIC_CAS ? "it has a compare-and-swap"
                                          : "it is read or written other than by atomics";
      continue;
    }
    if (c->natomics == PA_MAX_ATOMICS) {
      if (!why) why = "too many atomics";
      continue;
    }
    c->atomics[c->natomics++] = op;
    if (inside_loop(op, p->func)) c->in_loop = true;
    if (ir_value_num_uses(op_result(op, 0)) && !why) why = "the old value an atomic returns is used";
    IrAtomicKind k = ir_op_atomic_kind(op);
    if (k == IR_ATOMIC_SUB) k = IR_ATOMIC_ADD; /* add and sub mix: both flush as add */
    if (kind >= 0 && (int)k != kind && !why) why = "its atomics are of different kinds";
    if (kind < 0) kind = (int)k;
  }
  if (why) {
    c->why = why;
    return;
  }
  if (kind < 0) return; /* no atomics: not a candidate (c->natomics == 0) */
  if (t->rank != 1) {
    c->why = "it is not one-dimensional";
    return;
  }
  if (ty_is_float(e)) {
    if (kind != IR_ATOMIC_ADD || ty_is_f16(e) || ty_is_bf16(e)) {
      c->why = "float atomics other than add (f32, f64) are not associative";
      return;
    }
    if (!fast) {
      c->why = "float additions in another order round differently (allowed with fastmath=True)";
      return;
    }
  } else if (!ty_is_int(e) || ty_is_storage(e) || (e->bits != 32 && e->bits != 64)) {
    c->why = "its elements are not 32- or 64-bit integers";
    return;
  }
  switch (kind) {
  case IR_ATOMIC_ADD: case IR_ATOMIC_AND: case IR_ATOMIC_OR: case IR_ATOMIC_XOR: case IR_ATOMIC_MIN:
  case IR_ATOMIC_MAX:
    break;
  default:
    c->why = "its atomics are not of an associative and commutative kind (add, sub, and, or, xor, min, max)";
    return;
  }
  c->flush = (IrAtomicKind)kind;
  if (p->require_loop && !c->in_loop) c->why = "no atomic on it is inside a loop: each thread updates it once, "
                                               "privatising would not pay";
}

/* The identity of kind k over element type e (raw bits as kir's constants take them). */
static Value *identity(IrBuilder *b, IrAtomicKind k, Type *e) {
  if (ty_is_float(e)) return ib_const_float(b, e, 0.0);
  unsigned w = e->bits;
  uint64_t bits = 0;
  switch (k) {
  case IR_ATOMIC_AND: bits = int_mask(w); break;
  case IR_ATOMIC_MIN: bits = e->is_unsigned ? int_mask(w) : int_mask(w - 1); break;
  case IR_ATOMIC_MAX: bits = e->is_unsigned ? 0 : (uint64_t)1 << (w - 1); break;
  default: bits = 0; break;
  }
  int64_t v = e->is_unsigned && w < 64 ? (int64_t)bits : int_sext(bits, w);
  return ib_const_int(b, e, v);
}

static Value *global_ref(IrBuilder *b, const char *name, Type *t) {
  Op *r = ib_op(b, OP_GLOBAL_REF, 0, NULL, 1, &t, 0);
  ir_op_set_attr(b->m, r, "name", attr_sym(b->m, name));
  return op_result(r, 0);
}

static const char *new_shared(Pa *p, const char *base, Type *elem, int64_t n) {
  char name[200];
  snprintf(name, sizeof name, "%s", base);
  for (unsigned k = 1; ir_module_lookup(p->m, name); k++) snprintf(name, sizeof name, "%s_%u", base, k);
  Attr shape = attr_int(ty_i64(p->m->ctx), n);
  Op *g = ir_op_create(p->m, OP_GLOBAL, p->func->loc, 0, NULL, 0, NULL, 0);
  ir_op_set_attr(p->m, g, "sym_name", attr_sym(p->m, name));
  ir_op_set_attr(p->m, g, "type", attr_type(ty_array(p->m->ctx, elem, 1, LAYOUT_C)));
  ir_op_set_attr(p->m, g, "shape", attr_array(p->m, 1, &shape));
  ir_op_set_attr(p->m, g, "space", attr_str(p->m, "shared"));
  ir_op_insert_before(p->func, g);
  ir_module_add_symbol(p->m, g);
  return ir_op_attr_str(g, "sym_name");
}

/* scf.if(cond) with an empty else; returns the then block's builder position (before its yield). */
static Op *build_if(IrBuilder *b, Value *cond, IrBuilder *then_b, IrBuilder *else_b) {
  Op *iff = ib_op(b, OP_IF, 1, &cond, 0, NULL, 2);
  Block *tb = ir_block_new(b->m), *eb = ir_block_new(b->m);
  ir_region_append_block(&iff->regions[0], tb);
  ir_region_append_block(&iff->regions[1], eb);
  IrBuilder y;
  ib_init(&y, b->m);
  y.loc = b->loc;
  ib_set_end(&y, tb);
  Op *ty = ib_op(&y, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_end(&y, eb);
  Op *ey = ib_op(&y, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_init(then_b, b->m);
  then_b->loc = b->loc;
  ib_set_before(then_b, ty);
  if (else_b) {
    ib_init(else_b, b->m);
    else_b->loc = b->loc;
    ib_set_before(else_b, ey);
  }
  return iff;
}

typedef struct Site {
  Cand *c;
  const char *shared;
  Value *n, *fast, *S;
  int64_t bound;
} Site;

static void rewrite(Pa *p, Site *sites, unsigned nsites, const char *counter) {
  Module *m = p->m;
  IrContext *ctx = m->ctx;
  Type *i64 = ty_i64(ctx), *i32 = ty_i32(ctx);
  Block *entry = ir_func_entry(p->func);
  Op *term = ir_block_terminator(entry);
  IrBuilder b;
  ib_init(&b, m);
  b.loc = p->func->loc;
  if (entry->first) ib_set_before(&b, entry->first);
  else ib_set_end(&b, entry);

  /* the linear thread id and the block's size */
  Value *tx = ib_cast(&b, ib_gpu_id(&b, OP_THREAD_ID, 0), i64), *ty = ib_cast(&b, ib_gpu_id(&b, OP_THREAD_ID, 1), i64),
        *tz = ib_cast(&b, ib_gpu_id(&b, OP_THREAD_ID, 2), i64);
  Value *bx = ib_cast(&b, ib_gpu_id(&b, OP_BLOCK_DIM, 0), i64), *by = ib_cast(&b, ib_gpu_id(&b, OP_BLOCK_DIM, 1), i64),
        *bz = ib_cast(&b, ib_gpu_id(&b, OP_BLOCK_DIM, 2), i64);
  Value *tid = ib_binary(&b, OP_ADDI, tx, ib_binary(&b, OP_MULI, bx, ib_binary(&b, OP_ADDI, ty, ib_binary(&b, OP_MULI, by, tz))));
  Value *nt = ib_binary(&b, OP_MULI, ib_binary(&b, OP_MULI, bx, by), bz);
  Type *ct = ty_array(ctx, i32, 1, LAYOUT_C);
  Value *C = global_ref(&b, counter, ct);
  Value *zero64 = ib_const_int(&b, i64, 0);

  /* thread 0 clears the counters */
  {
    IrBuilder t;
    build_if(&b, ib_cmpi(&b, IR_CMPI_EQ, tid, zero64), &t, NULL);
    for (unsigned s = 0; s < nsites; s++) {
      Value *ops[3] = {ib_const_int(&t, i32, 0), C, ib_const_int(&t, i64, s)};
      ib_op(&t, OP_STORE, 3, ops, 0, NULL, 0);
    }
  }
  for (unsigned s = 0; s < nsites; s++) {
    Site *st = &sites[s];
    Type *e = st->c->arr->type->elem;
    st->n = ib_dim(&b, st->c->arr, 0);
    st->fast = ib_cmpi(&b, IR_CMPI_SLE, st->n, ib_const_int(&b, i64, st->bound));
    st->S = global_ref(&b, st->shared, ty_array(ctx, e, 1, LAYOUT_C));
    IrBuilder t;
    build_if(&b, st->fast, &t, NULL);
    Value *bounds[3] = {tid, st->n, nt};
    Op *loop = ib_op(&t, OP_FOR, 3, bounds, 0, NULL, 1);
    Block *body = ir_block_new(m);
    ir_region_append_block(&loop->regions[0], body);
    Value *j = ir_block_add_arg(m, body, i64);
    IrBuilder in;
    ib_init(&in, m);
    in.loc = b.loc;
    ib_set_end(&in, body);
    Value *ops[3] = {identity(&in, st->c->flush, e), st->S, j};
    ib_op(&in, OP_STORE, 3, ops, 0, NULL, 0);
    ib_op(&in, OP_YIELD, 0, NULL, 0, NULL, 0);
  }
  ib_op(&b, OP_BARRIER, 0, NULL, 0, NULL, 0);

  /* each atomic: to the shared copy on the fast path */
  for (unsigned s = 0; s < nsites; s++) {
    Site *st = &sites[s];
    for (unsigned a = 0; a < st->c->natomics; a++) {
      Op *at = st->c->atomics[a];
      IrBuilder ab, t, el;
      ib_init(&ab, m);
      ab.loc = at->loc;
      ib_set_before(&ab, at);
      build_if(&ab, st->fast, &t, &el);
      Value *ops[3] = {st->S, op_operand(at, 1), op_operand(at, 2)};
      Type *rt = at->results[0].type;
      Op *sh = ib_op(&t, OP_ATOMIC_RMW, 3, ops, 1, &rt, 0);
      ir_op_set_atomic_kind(m, sh, ir_op_atomic_kind(at));
      ir_op_unlink(at);
      ib_insert(&el, at);
    }
  }

  /* the flush, after the body */
  ib_set_before(&b, term);
  ib_op(&b, OP_BARRIER, 0, NULL, 0, NULL, 0);
  for (unsigned s = 0; s < nsites; s++) {
    Site *st = &sites[s];
    Type *e = st->c->arr->type->elem;
    IrBuilder t;
    build_if(&b, st->fast, &t, NULL);
    /* scf.while: before: j = atomic_add(C[s], 1); condition(j < n, j); after(j): flush bin j */
    Op *w = ib_op(&t, OP_WHILE, 0, NULL, 1, &i64, 2);
    Block *before = ir_block_new(m), *after = ir_block_new(m);
    ir_region_append_block(&w->regions[0], before);
    ir_region_append_block(&w->regions[1], after);
    IrBuilder in;
    ib_init(&in, m);
    in.loc = b.loc;
    ib_set_end(&in, before);
    Value *aops[3] = {C, ib_const_int(&in, i64, s), ib_const_int(&in, i32, 1)};
    Op *grab = ib_op(&in, OP_ATOMIC_RMW, 3, aops, 1, &i32, 0);
    ir_op_set_atomic_kind(m, grab, IR_ATOMIC_ADD);
    Value *j = ib_cast(&in, op_result(grab, 0), i64);
    Value *cops[2] = {ib_cmpi(&in, IR_CMPI_SLT, j, st->n), j};
    ib_op(&in, OP_CONDITION, 2, cops, 0, NULL, 0);
    Value *ja = ir_block_add_arg(m, after, i64);
    ib_set_end(&in, after);
    Value *lops[2] = {st->S, ja};
    Op *ld = ib_op(&in, OP_LOAD, 2, lops, 1, &e, 0);
    Value *v = op_result(ld, 0), *id = identity(&in, st->c->flush, e);
    Value *nz = ty_is_float(e) ? ib_cmpf(&in, IR_CMPF_UNE, v, id) : ib_cmpi(&in, IR_CMPI_NE, v, id);
    IrBuilder f;
    build_if(&in, nz, &f, NULL);
    Value *fops[3] = {st->c->arr, ja, v};
    Op *ga = ib_op(&f, OP_ATOMIC_RMW, 3, fops, 1, &e, 0);
    ir_op_set_atomic_kind(m, ga, st->c->flush);
    ib_op(&in, OP_YIELD, 0, NULL, 0, NULL, 0);
  }
  ir_op_set_attr(m, p->func, "privatized_atomics", attr_unit());
}

/* The bytes of the static shared arrays the kernel and the functions it calls use. */
typedef struct SharedUse {
  Module *m;
  PtrMap seen;
  int64_t bytes;
} SharedUse;

static bool count_shared(Op *op, void *user) {
  SharedUse *u = user;
  if (op->kind != OP_GLOBAL_REF) return true;
  const char *name = ir_op_attr_str(op, "name");
  Op *g = name ? ir_module_lookup(u->m, name) : NULL;
  const char *space = g ? ir_op_attr_str(g, "space") : NULL;
  Type *t = g ? ir_op_attr_type(g, "type") : NULL;
  Attr *shape = g ? ir_op_attr(g, "shape") : NULL;
  if (!space || strcmp(space, "shared") != 0 || !t || !ty_is_array(t) || !shape || shape->kind != ATTR_ARRAY ||
      ptrmap_get(&u->seen, g))
    return true;
  ptrmap_put(&u->seen, g, g);
  int64_t n = ty_size(t->elem);
  for (unsigned i = 0; i < shape->arr.n; i++) n *= shape->arr.elems[i].i;
  u->bytes += n;
  return true;
}

static void count_func(SharedUse *u, Op *func) {
  for (Block *b = func->regions[0].first; b; b = b->next)
    for (Op *op = b->first; op; op = op->next) ir_walk_pre(op, count_shared, u);
}

static bool count_callee(Op *callee, Op *call, void *user) {
  (void)call;
  if (callee) count_func(user, callee);
  return true;
}

static int64_t kernel_shared_bytes(Module *m, Op *func) {
  SharedUse u = {.m = m};
  count_func(&u, func);
  ir_walk_callees(m, func, count_callee, &u);
  ptrmap_free(&u.seen);
  return u.bytes;
}

enum { PA_MAX_ARGS = 32 };

static const char *arg_name(Pa *p, Op *func, unsigned i) {
  Attr *names = ir_op_attr(func, "arg_names");
  if (names && names->kind == ATTR_ARRAY && i < names->arr.n && names->arr.elems[i].kind == ATTR_STR)
    return names->arr.elems[i].s;
  char buf[32];
  snprintf(buf, sizeof buf, "parameter %u", i);
  return attr_str(p->m, buf).s;
}

static void privatize_kernel(Pa *p, Op *func, const TargetFacts *tf) {
  p->func = func;
  Block *entry = ir_func_entry(func);
  if (!entry || ir_op_attr(func, "privatized_atomics")) return;
  Cand *cands = ARENA_ARRAY(&p->m->arena, Cand, entry->nargs ? entry->nargs : 1);
  Site sites[PA_MAX_ARGS];
  unsigned nsites = 0;
  const char *kwhy = NULL;
  bool kchecked = false;
  int64_t left = -1; /* the shared memory left to the copies, computed at the first candidate */
  for (unsigned i = 0; i < entry->nargs; i++) {
    Value *a = entry->args[i];
    if (!ty_is_array(a->type) || !ty_is_scalar(a->type->elem)) continue;
    Cand *c = &cands[i];
    memset(c, 0, sizeof *c);
    c->arr = a;
    c->name = arg_name(p, func, i);
    analyse(p, c);
    if (!c->natomics) continue;
    SrcLoc loc = c->atomics[0]->loc; /* the first atomic in the source */
    for (unsigned a = 1; a < c->natomics; a++) {
      SrcLoc l = c->atomics[a]->loc;
      if (l.line < loc.line || (l.line == loc.line && l.col < loc.col)) loc = l;
    }
    if (!kchecked) {
      kwhy = kernel_why(p, func);
      kchecked = true;
      if (!kwhy) left = (int64_t)tf->shared_per_block - kernel_shared_bytes(p->m, func) - 4 * PA_MAX_ARGS;
    }
    if (kwhy) {
      remark(p, loc, "atomics into '%s' not privatised: %s", c->name, kwhy);
      continue;
    }
    if (c->why) {
      remark(p, loc, "atomics into '%s' not privatised: %s", c->name, c->why);
      continue;
    }
    int64_t esz = ty_size(c->arr->type->elem);
    int64_t bound = p->max_bins;
    if (bound > p->max_bytes / esz) bound = p->max_bytes / esz;
    if (bound > left / esz) bound = left / esz;
    if (bound < 32 || nsites == PA_MAX_ARGS) {
      remark(p, loc, "atomics into '%s' not privatised: %s", c->name, "no room for a copy in shared memory");
      continue;
    }
    left -= bound * esz;
    char base[200];
    snprintf(base, sizeof base, "__kf_priv_%s_%u", ir_func_name(func), i);
    sites[nsites++] = (Site){.c = c, .shared = new_shared(p, base, c->arr->type->elem, bound), .bound = bound};
    if (p->report) {
      char msg[64];
      snprintf(msg, sizeof msg, "%lld", (long long)bound);
      diag_remark(p->diag, loc, "atomics into '%s' privatised: %u atomic%s of kind %s to a shared copy when its "
                  "extent is at most %s, one global atomic per nonzero bin per block at the end", c->name, c->natomics,
                  c->natomics == 1 ? "" : "s", ir_atomic_kind_name(c->flush), msg);
    }
  }
  if (!nsites) return;
  char base[200];
  snprintf(base, sizeof base, "__kf_priv_%s_counter", ir_func_name(func));
  const char *counter = new_shared(p, base, ty_i32(p->m->ctx), nsites);
  rewrite(p, sites, nsites, counter);
}

bool pass_privatize_atomics(Module *m, const PassContext *pc) {
  Pa p = {.m = m, .diag = pc->diag, .max_bins = pc->options[0], .max_bytes = pc->options[1],
          .require_loop = pc->options[2] != 0, .report = pc->options[3] != 0};
  for (Op *op = ir_module_body(m)->first; op; op = op->next)
    if (op->kind == OP_FUNC_FUNC && ir_op_attr(op, "kernel")) privatize_kernel(&p, op, pc->target);
  return true;
}
