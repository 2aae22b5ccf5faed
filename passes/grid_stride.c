/* grid_stride.c — grid-stride rewriting: a kernel runs on any 1-D physical grid, its threads looping over
 * the virtual blocks of the user's launch configuration.
 *
 * Requires: valid IR, structured (scf) form of the kernel's body (one block). Preserves: validity; the
 * meaning of the kernel under the new ABI below. Keeps no analysis valid.
 *
 * For each func.func with the `kernel` attribute that is eligible (below), the pass
 *   - appends three i32 entry-block arguments gx, gy, gz (arg_names "__kf_grid_x/y/z", the others named
 *     p0, p1, ... when the function had no arg_names): the grid dims of
 *     the user's launch; the function type gets them too, and the kernel gets the unit attr `grid_stride`;
 *   - replaces every gpu.grid_dim{dim d} in the body by the d-th new argument;
 *   - wraps the whole body (the entry block minus its func.return) in
 *       scf.for %vb = block_id.x to gx*gy*gz step grid_dim.x     (i64; the physical ids are read outside)
 *     and, at the top of the loop, decomposes vb into bx = vb % gx, by = (vb / gx) % gy, bz = vb / (gx*gy)
 *     (an scf.if takes the cheap path bx = vb when gy*gz == 1), replacing every gpu.block_id{dim d}.
 * thread_id and block_dim are unchanged: the physical block has the user's shape. So cuda.grid,
 * cuda.gridsize, blockIdx and gridDim read exactly what they would have read in the user's launch.
 *
 * ABI (include/kfront/abi.h): a `grid_stride` kernel takes the three trailing i32 parameters and must be
 * launched with a 1-D grid of any size >= 1 (the runtime does it; kfront's default pipeline does not run
 * this pass, so `kfront compile` PTX keeps the plain ABI unless --pass-pipeline asks for grid-stride).
 *
 * Eligible: a kernel whose body (and every device function it calls, transitively) uses
 *   - no barriers (gpu.barrier, barrier_reduce, syncwarp), no warp ops (shfl, vote, match, activemask),
 *   - no shared memory (mem.global_ref of a "shared" global, mem.dynamic_shared; so no shared atomics),
 * whose only func.return is its entry block's terminator (one block: structured form), which takes no
 * `grid_stride` attribute yet, and whose device functions read no gpu.block_id / gpu.grid_dim (they would
 * see the physical ids). By default also: the kernel reads no gpu.grid_dim and no gpu.block_id other than x
 * (where the rewrite pays: see scan_op); option all-grids=1 lifts that (the transformation is correct for
 * every grid; the randomized test runs it that way). Anything else is left alone.
 *
 * Option variant=1 (the runtime's pipeline): an eligible kernel keeps its code and gets the grid-stride form as
 * a copy NAME__gs placed after it (attribute variant_of; the kernel names it in tiled_variant, the attribute of
 * a kernel's launch variant, as tile-shared's NAME__tiled), so that the runtime can launch either. The
 * runtime's rule (runtime/launch.c, variant_pays): the grid-stride form runs unless, at the user's block size,
 * the device holds fewer of its blocks per SM than of the plain form's (the loop's registers: Black-Scholes in
 * float64 needs 40 registers as the loop to 32 plain, 48 resident warps per SM instead of 64, 14% slower on an
 * H200; capped to 32 with .maxnreg it spills 24 bytes, so a cap does not help it). A kernel that has a variant
 * already (tiled) is rewritten in place, as without the option.
 *
 * Known difference: a failed bounds check ends the thread, so the virtual blocks it had still to run are
 * skipped. The launch reports the IndexError anyway (its outputs are not meaningful after an IndexError). */
#include <stdio.h>
#include <string.h>

#include "passes.h"

typedef struct GsScan {
  Module *m;
  bool ok;
  bool in_callee;     /* scanning a device function: block_id/grid_dim are not allowed there */
  bool all_grids;     /* option all-grids: also kernels that read gridDim or blockIdx.y/z */
  Op *entry_term;     /* the kernel's own func.return (allowed) */
} GsScan;

static bool scan_op(Op *op, void *user) {
  GsScan *s = user;
  if (op_kind_has(op->kind, OPT_CONVERGENT)) { /* a barrier or warp op: each thread must be one user thread */
    s->ok = false;
    return false;
  }
  switch (op->kind) {
  case OP_DYN_SHARED:
  case OP_RAISE: /* ends the thread: the user's blocks after it would not run */
    s->ok = false;
    break;
  case OP_GLOBAL_REF: {
    const char *name = ir_op_attr_str(op, "name");
    Op *g = name ? ir_module_lookup(s->m, name) : NULL;
    const char *space = g ? ir_op_attr_str(g, "space") : NULL;
    if (!g || (space && strcmp(space, "shared") == 0)) s->ok = false;
    break;
  }
  case OP_BLOCK_ID: case OP_GRID_DIM:
    if (s->in_callee) s->ok = false;
    /* Profitable by default only for "one thread per element" kernels over 1-D grids: a kernel that reads
     * gridDim already adapts to its grid (a grid-stride loop of its own: a second loop measured 3% slower on
     * an H200), and one that reads blockIdx.y/z pays a per-block decomposition of the virtual block number
     * (64-bit division: 12% slower on a 1000x1000 2-D kernel). all-grids=1 rewrites those too. */
    if (!s->all_grids && (op->kind == OP_GRID_DIM || ir_op_attr_int(op, "dim", 0) != 0)) s->ok = false;
    break;
  case OP_FUNC_RETURN:
    if (!s->in_callee && op != s->entry_term) s->ok = false;
    break;
  default:
    break;
  }
  return s->ok;
}

static bool scan_func(GsScan *s, Op *func) {
  for (Block *b = func->regions[0].first; b && s->ok; b = b->next)
    for (Op *op = b->first; op && s->ok; op = op->next) ir_walk_pre(op, scan_op, s);
  return s->ok;
}

/* Each device function the kernel calls, transitively; a call that names nothing defined is not eligible. */
static bool scan_callee(Op *callee, Op *call, void *user) {
  (void)call;
  GsScan *s = user;
  if (!callee) s->ok = false;
  else scan_func(s, callee);
  return s->ok;
}

static bool eligible(Module *m, Op *func, bool all_grids) {
  /* a cooperative kernel keeps the user's grid (cuda.cg.this_grid() sees it) */
  if (!ir_op_attr(func, "kernel") || ir_op_attr(func, "grid_stride") || ir_op_attr(func, "cooperative")) return false;
  Block *entry = ir_func_entry(func);
  if (!entry || entry->next) return false;
  Op *term = ir_block_terminator(entry);
  if (!term || term->kind != OP_FUNC_RETURN || term->noperands) return false;
  Type *ft = ir_func_type(func);
  if (!ft || ft->kind != TY_FUNC || ft->nresults || ft->n != entry->nargs) return false;
  GsScan s = {.m = m, .ok = true, .entry_term = term, .all_grids = all_grids};
  if (!scan_func(&s, func)) return false;
  s.in_callee = true;
  return ir_walk_callees(m, func, scan_callee, &s) == IR_WALK_DONE && s.ok;
}

typedef struct GsCollect {
  Op **ops;
  size_t n, cap;
  Module *m;
} GsCollect;

static bool collect_ids(Op *op, void *user) {
  GsCollect *c = user;
  if (op->kind != OP_BLOCK_ID && op->kind != OP_GRID_DIM) return true;
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    Op **l = ARENA_ARRAY(&c->m->arena, Op *, cap);
    if (c->n) memcpy(l, c->ops, c->n * sizeof *l);
    c->ops = l;
    c->cap = cap;
  }
  c->ops[c->n++] = op;
  return true;
}

static void rewrite(Module *m, Op *func) {
  IrContext *ctx = m->ctx;
  Type *i32 = ty_i32(ctx), *i64 = ty_i64(ctx);
  Block *entry = ir_func_entry(func);
  Op *term = ir_block_terminator(entry);
  SrcLoc loc = func->loc;

  /* the user's grid dims: three new parameters */
  Value *g[3];
  for (unsigned d = 0; d < 3; d++) g[d] = ir_block_add_arg(m, entry, i32);
  Type *ft = ir_func_type(func);
  Type **params = ARENA_ARRAY(&m->arena, Type *, ft->n + 3);
  for (unsigned i = 0; i < ft->n; i++) params[i] = ft->elems[i];
  for (unsigned d = 0; d < 3; d++) params[ft->n + d] = i32;
  ir_op_set_attr(m, func, "function_type", attr_type(ty_func(ctx, ft->n + 3, params, 0, NULL)));
  /* the hidden parameters are known by their names (the runtime's launch plan reads them): a function
   * without arg_names gets the ABI's default names p0, p1, ... for the user's */
  Attr *names = ir_op_attr(func, "arg_names");
  bool named = names && names->kind == ATTR_ARRAY && names->arr.n == ft->n;
  static const char *const gnames[3] = {"__kf_grid_x", "__kf_grid_y", "__kf_grid_z"};
  Attr *elems = ARENA_ARRAY(&m->arena, Attr, ft->n + 3);
  for (unsigned i = 0; i < ft->n; i++) {
    char pname[16];
    snprintf(pname, sizeof pname, "p%u", i);
    elems[i] = named ? names->arr.elems[i] : attr_str(m, pname);
  }
  for (unsigned d = 0; d < 3; d++) elems[ft->n + d] = attr_str(m, gnames[d]);
  ir_op_set_attr(m, func, "arg_names", attr_array(m, ft->n + 3, elems));
  ir_op_set_attr(m, func, "grid_stride", attr_unit());

  /* the body moves into the loop's block */
  ir_op_unlink(term);
  Block *body = ir_block_new(m);
  Value *vb = ir_block_add_arg(m, body, i64);
  if (entry->first) ir_block_splice_tail(body, entry->first);

  GsCollect ids = {.m = m};
  for (Op *op = body->first; op; op = op->next) ir_walk_pre(op, collect_ids, &ids);

  /* outside the loop: physical ids, the virtual grid's size */
  IrBuilder b;
  ib_init(&b, m);
  b.loc = loc;
  ib_set_end(&b, entry);
  Value *pb = ib_cast(&b, ib_gpu_id(&b, OP_BLOCK_ID, 0), i64);
  Value *pg = ib_cast(&b, ib_gpu_id(&b, OP_GRID_DIM, 0), i64);
  Value *g64[3];
  for (unsigned d = 0; d < 3; d++) g64[d] = ib_cast(&b, g[d], i64);
  Value *gxy = ib_binary(&b, OP_MULI, g64[0], g64[1]);
  Value *total = ib_binary(&b, OP_MULI, gxy, g64[2]);
  Value *gyz = ib_binary(&b, OP_MULI, g64[1], g64[2]);
  Value *one_d = ib_cmpi(&b, IR_CMPI_EQ, gyz, ib_const_int(&b, i64, 1));
  Value *bounds[3] = {pb, total, pg};
  Op *loop = ib_op(&b, OP_FOR, 3, bounds, 0, NULL, 1);
  ir_region_append_block(&loop->regions[0], body);
  ir_block_append(entry, term);

  /* inside: the virtual block's (bx, by, bz) */
  if (body->first) ib_set_before(&b, body->first);
  else ib_set_end(&b, body);
  Type *rt[3] = {i32, i32, i32};
  Op *dec = ib_op(&b, OP_IF, 1, &one_d, 3, rt, 2);
  Block *thenb = ir_block_new(m), *elseb = ir_block_new(m);
  ir_region_append_block(&dec->regions[0], thenb);
  ir_region_append_block(&dec->regions[1], elseb);
  IrBuilder t;
  ib_init(&t, m);
  t.loc = loc;
  ib_set_end(&t, thenb);
  Value *zero = ib_const_int(&t, i32, 0);
  Value *ty[3] = {ib_unary(&t, OP_TRUNCI, vb, i32), zero, zero};
  ib_op(&t, OP_YIELD, 3, ty, 0, NULL, 0);
  ib_set_end(&t, elseb);
  Value *q = ib_binary(&t, OP_DIVSI, vb, g64[0]);
  Value *ey[3] = {
      ib_unary(&t, OP_TRUNCI, ib_binary(&t, OP_REMSI, vb, g64[0]), i32),
      ib_unary(&t, OP_TRUNCI, ib_binary(&t, OP_REMSI, q, g64[1]), i32),
      ib_unary(&t, OP_TRUNCI, ib_binary(&t, OP_DIVSI, vb, gxy), i32),
  };
  ib_op(&t, OP_YIELD, 3, ey, 0, NULL, 0);
  ib_set_end(&b, body);
  ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);

  for (size_t i = 0; i < ids.n; i++) {
    Op *op = ids.ops[i];
    int64_t d = ir_op_attr_int(op, "dim", 0);
    if (d < 0 || d > 2) continue; /* the verifier rejects these */
    Value *to = op->kind == OP_GRID_DIM ? g[d] : op_result(dec, (unsigned)d);
    ir_value_replace_all_uses(op_result(op, 0), to);
    ir_op_erase(op);
  }
}

/* variant=1: the grid-stride form as a copy NAME__gs after func, which names it as its launch variant (func
 * itself stays as it was); a kernel with a variant already, or one that is a variant, is rewritten in place. */
static void add_variant(Module *m, Op *func) {
  const char *vname = ir_op_attr_str(func, "tiled_variant");
  Op *v = vname ? ir_module_lookup(m, vname) : NULL;
  if (v && ir_op_attr(v, "grid_stride")) return; /* it has its grid-stride form already */
  if (vname || ir_op_attr(func, "variant_of")) {
    rewrite(m, func);
    return;
  }
  Op *var = ir_op_clone(m, func, NULL);
  char name[256];
  snprintf(name, sizeof name, "%s__gs", ir_func_name(func));
  ir_op_set_attr(m, var, "sym_name", attr_sym(m, name));
  ir_op_insert_after(func, var);
  ir_module_add_symbol(m, var);
  ir_op_set_attr(m, var, "variant_of", attr_sym(m, ir_func_name(func)));
  rewrite(m, var);
  ir_op_set_attr(m, func, "tiled_variant", attr_sym(m, name));
}

bool pass_grid_stride(Module *m, const PassContext *pc) {
  bool all_grids = pc->options[0] != 0, variant = pc->options[1] != 0;
  for (Op *op = ir_module_body(m)->first; op; op = op->next)
    if (op->kind == OP_FUNC_FUNC && eligible(m, op, all_grids)) {
      if (variant) add_variant(m, op);
      else rewrite(m, op);
    }
  return true;
}
