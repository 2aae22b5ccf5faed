/* block_pair.c — block pairing for coalescing (issue 24): in a 2-D or 3-D kernel whose threads do not cooperate,
 * each physical block runs two logical blocks of the user's launch side by side along the grid axis whose
 * thread index is contiguous in memory, so that a warp covers 2*blockDim (32 for the users' 16x16 blocks)
 * consecutive elements, one 128-byte line of f32, instead of two rows of 16 (two half-used 64-byte segments),
 * and each thread runs two logical threads (two independent loads in flight).
 *
 * Requires: valid IR, structured (scf) form of the kernel's body (one block, its only func.return the entry
 * block's terminator). Preserves: validity; the meaning of the kernel: every logical thread (threadIdx,
 * blockIdx) of the user's launch runs once, with the index values the user's launch gives it; blockDim and
 * gridDim read the user's. Keeps no analysis valid.
 *
 * The rewrite, for the contiguous thread axis c (x or y: thread-map's cost model, passes/thread_map.c, the
 * weights of the accesses contiguous along threadIdx.x against .y) and o the other of x, y:
 *   - three trailing i32 parameters __kf_grid_x/y/z, the user's grid (the launch plan's hidden parameters);
 *     every gpu.grid_dim is replaced by its parameter;
 *   - the attribute launch_grid_divisor: the physical grid is the user's with axis c halved, rounded up
 *     (runtime/plan.c); the physical block is the user's (bx, by, bz), so blockDim is the user's;
 *   - the body is wrapped in scf.for k = 0 to 2: with S = bx*by, p = ty*bx + tx the physical thread's number in its
 *     z-slice, w = 2*blockDim.c, q = k*S + p (a bijection of the pair's 2S logical threads of the slice onto
 *     (k, p)): the logical thread has threadIdx.o = q / w, h = (q % w) / blockDim.c, threadIdx.c = (q % w) %
 *     blockDim.c, threadIdx.z = tz, and blockIdx.c = 2*blockIdx.c + h (the other blockIdx the physical ones).
 *     The body runs under scf.if blockIdx.c < gridDim.c (the missing half of the last pair of an odd grid).
 *     Consecutive lanes (consecutive q) run consecutive threadIdx.c across both halves, h = 0 then 1. Where
 *     blockDim.c is 16 or 32 (a run-time test) the divisors are constants: shifts and masks.
 * The kernel gets the unit attributes block_pair and thread_map (thread-map leaves it alone: the rewrite maps
 * the threads itself).
 *
 * Option variant=1 (the runtime's pipeline, only where kf_runtime_options.thread_map is 2: off by default): the
 * kernel keeps its code and gets the paired form as a copy NAME__bp placed after it (attribute variant_of; the
 * kernel names it in tiled_variant), which the launch runs instead (runtime/launch.c: any block shape, any grid).
 *
 * Eligible: thread-map's eligibility (no barrier, warp op, lane id, shared memory, atomics, print, raise; device
 * functions read no threadIdx), and also: the device functions read no blockIdx or gridDim, the kernel reads
 * blockIdx.y or .z (a 1-D kernel is left to grid-stride, which takes the kernel's one variant), it reads
 * blockIdx.c, it has no launch variant yet (tile-shared's), it is not thread-mapped, grid-strided or a variant,
 * and its accesses weigh more along one of threadIdx.x, .y than along the other. The report option puts a
 * remark at each kernel: paired along which axis, with the weights, or why not.
 *
 * Known difference (as grid-stride's): a failed bounds check ends the thread, so its second logical thread does
 * not run; the launch reports the IndexError anyway. */
#include <stdio.h>
#include <string.h>

#include "passes/passes.h"

typedef struct BpScan {
  Module *m;
  const char *why;
  bool in_callee;
  Op *entry_term;
  bool reads_block[3];
} BpScan;

static bool scan_op(Op *op, void *user) {
  BpScan *s = user;
  switch (op->kind) {
  case OP_BLOCK_ID: case OP_GRID_DIM:
    if (s->in_callee) s->why = "a device function reads blockIdx or gridDim";
    else if (op->kind == OP_BLOCK_ID) {
      int64_t d = ir_op_attr_int(op, "dim", 0);
      if (d >= 0 && d < 3) s->reads_block[d] = true;
    }
    break;
  case OP_FUNC_RETURN:
    if (!s->in_callee && op != s->entry_term) s->why = "it returns from inside its body (not structured)";
    break;
  default: break;
  }
  return !s->why;
}

static void scan_func(BpScan *s, Op *func) {
  for (Block *b = func->regions[0].first; b && !s->why; b = b->next)
    for (Op *op = b->first; op && !s->why; op = op->next) ir_walk_pre(op, scan_op, s);
}

static bool scan_callee(Op *callee, Op *call, void *user) {
  (void)call;
  BpScan *s = user;
  if (!callee) s->why = "it calls a function defined elsewhere";
  else scan_func(s, callee);
  return !s->why;
}

/* The axis to pair along (0 or 1), or -1 with *why (into buf). */
static int decide(Module *m, Op *func, uint64_t *ax, uint64_t *ay, const char **why, char *buf, size_t len) {
  *ax = *ay = 0;
  *why = NULL;
  if (ir_op_attr(func, "thread_map")) *why = "it is thread-mapped already";
  else if (ir_op_attr(func, "grid_stride")) *why = "it is grid-strided already";
  else if (ir_op_attr(func, "variant_of")) *why = "it is a launch variant";
  else if (ir_op_attr(func, "tiled_variant")) *why = "it has a launch variant already (tiled)";
  if (*why) return -1;
  Block *entry = ir_func_entry(func);
  Op *term = entry ? ir_block_terminator(entry) : NULL;
  Type *ft = ir_func_type(func);
  if (!entry || entry->next || !term || term->kind != OP_FUNC_RETURN || term->noperands || !ft ||
      ft->kind != TY_FUNC || ft->nresults || ft->n != entry->nargs) {
    *why = "its body is not one structured block";
    return -1;
  }
  if (!thread_map_weights(m, func, ax, ay, why)) return -1;
  BpScan s = {.m = m, .entry_term = term};
  scan_func(&s, func);
  if (!s.why) {
    s.in_callee = true;
    if (ir_walk_callees(m, func, scan_callee, &s) != IR_WALK_DONE && !s.why) s.why = "its calls could not be walked";
  }
  if (s.why) {
    *why = s.why;
    return -1;
  }
  if (!s.reads_block[1] && !s.reads_block[2]) {
    *why = "it reads no blockIdx.y or .z (a 1-D kernel: left to grid-stride)";
    return -1;
  }
  if (*ax == *ay) {
    snprintf(buf, len, "accesses contiguous along threadIdx.x and along threadIdx.y weigh the same (%llu)",
             (unsigned long long)*ax);
    *why = buf;
    return -1;
  }
  int c = *ay > *ax ? 1 : 0;
  if (!s.reads_block[c]) {
    snprintf(buf, len, "it reads no blockIdx.%c (the axis to pair along)", "xy"[c]);
    *why = buf;
    return -1;
  }
  return c;
}

typedef struct BpCollect {
  Module *m;
  Op **ops;
  size_t n, cap;
} BpCollect;

static bool collect_ids(Op *op, void *user) {
  BpCollect *c = user;
  if (op->kind != OP_THREAD_ID && op->kind != OP_BLOCK_ID && op->kind != OP_GRID_DIM) return true;
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

static Block *if_block(Module *m, Op *sel, unsigned r) {
  Block *b = ir_block_new(m);
  ir_region_append_block(&sel->regions[r], b);
  return b;
}

/* q of a pair of blocks w = 2*bc wide along c: yields (q / w, (q % w) % bc, (q % w) / bc), the other axis's
 * threadIdx, threadIdx.c and the half */
static void decompose(IrBuilder *t, Value *q, Value *w, Value *bc) {
  Value *r = ib_binary(t, OP_REMUI, q, w);
  Value *out[3] = {ib_binary(t, OP_DIVUI, q, w), ib_binary(t, OP_REMUI, r, bc), ib_binary(t, OP_DIVUI, r, bc)};
  ib_op(t, OP_YIELD, 3, out, 0, NULL, 0);
}

static void rewrite(Module *m, Op *func, int c) {
  IrContext *ctx = m->ctx;
  Type *i32 = ty_i32(ctx), *i64 = ty_i64(ctx);
  Block *entry = ir_func_entry(func);
  Op *term = ir_block_terminator(entry);
  SrcLoc loc = func->loc;
  int o = 1 - c;

  /* the user's grid: three hidden parameters, known by their names (runtime/plan.c) */
  Value *g[3];
  for (unsigned d = 0; d < 3; d++) g[d] = ir_block_add_arg(m, entry, i32);
  Type *ft = ir_func_type(func);
  Type **params = ARENA_ARRAY(&m->arena, Type *, ft->n + 3);
  for (unsigned i = 0; i < ft->n; i++) params[i] = ft->elems[i];
  for (unsigned d = 0; d < 3; d++) params[ft->n + d] = i32;
  ir_op_set_attr(m, func, "function_type", attr_type(ty_func(ctx, ft->n + 3, params, 0, NULL)));
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
  Attr div[3] = {attr_int(i64, 1), attr_int(i64, 1), attr_int(i64, 1)};
  div[c] = attr_int(i64, 2);
  ir_op_set_attr(m, func, "launch_grid_divisor", attr_array(m, 3, div));
  ir_op_set_attr(m, func, "block_pair", attr_unit());
  ir_op_set_attr(m, func, "thread_map", attr_unit());

  /* the body moves into the guard inside the loop */
  ir_op_unlink(term);
  Block *body = ir_block_new(m);
  if (entry->first) ir_block_splice_tail(body, entry->first);
  BpCollect ids = {.m = m};
  for (Op *op = body->first; op; op = op->next) ir_walk_pre(op, collect_ids, &ids);

  IrBuilder b;
  ib_init(&b, m);
  b.loc = loc;
  ib_set_end(&b, entry);
  Value *pt[3], *pb[3], *bd[3];
  for (unsigned d = 0; d < 3; d++) pt[d] = ib_gpu_id(&b, OP_THREAD_ID, d);
  for (unsigned d = 0; d < 3; d++) pb[d] = ib_gpu_id(&b, OP_BLOCK_ID, d);
  for (unsigned d = 0; d < 2; d++) bd[d] = ib_gpu_id(&b, OP_BLOCK_DIM, d);
  Value *slice = ib_binary(&b, OP_MULI, bd[0], bd[1]);                          /* <= 1024 */
  Value *p = ib_binary(&b, OP_ADDI, ib_binary(&b, OP_MULI, pt[1], bd[0]), pt[0]);
  Value *w = ib_binary(&b, OP_MULI, bd[c], ib_const_int(&b, i32, 2));
  Value *base = ib_binary(&b, OP_MULI, pb[c], ib_const_int(&b, i32, 2));       /* < 2^31: gridDim.c < 2^31 */
  Value *bounds[3] = {ib_const_int(&b, i64, 0), ib_const_int(&b, i64, 2), ib_const_int(&b, i64, 1)};
  Op *loop = ib_op(&b, OP_FOR, 3, bounds, 0, NULL, 1);
  Block *lb = ir_block_new(m);
  Value *k = ir_block_add_arg(m, lb, i64);
  ir_region_append_block(&loop->regions[0], lb);
  ir_block_append(entry, term);

  ib_set_end(&b, lb);
  Value *q = ib_binary(&b, OP_ADDI, ib_binary(&b, OP_MULI, ib_unary(&b, OP_TRUNCI, k, i32), slice), p);
  /* the decomposition of q, with constant divisors where blockDim.c is 16 or 32 (shifts and masks, not the
   * u32 divisions' dozens of instructions each) */
  Value *eq16 = ib_cmpi(&b, IR_CMPI_EQ, bd[c], ib_const_int(&b, i32, 16));
  Type *rt3[3] = {i32, i32, i32};
  Op *sel16 = ib_op(&b, OP_IF, 1, &eq16, 3, rt3, 2);
  Block *b16 = if_block(m, sel16, 0), *bn16 = if_block(m, sel16, 1);
  IrBuilder t;
  ib_init(&t, m);
  t.loc = loc;
  ib_set_end(&t, b16);
  decompose(&t, q, ib_const_int(&t, i32, 32), ib_const_int(&t, i32, 16));
  ib_set_end(&t, bn16);
  Value *eq32 = ib_cmpi(&t, IR_CMPI_EQ, bd[c], ib_const_int(&t, i32, 32));
  Op *sel32 = ib_op(&t, OP_IF, 1, &eq32, 3, rt3, 2);
  ib_op(&t, OP_YIELD, 3, (Value *[3]){op_result(sel32, 0), op_result(sel32, 1), op_result(sel32, 2)}, 0, NULL, 0);
  Block *b32 = if_block(m, sel32, 0), *bgen = if_block(m, sel32, 1);
  ib_set_end(&t, b32);
  decompose(&t, q, ib_const_int(&t, i32, 64), ib_const_int(&t, i32, 32));
  ib_set_end(&t, bgen);
  decompose(&t, q, w, bd[c]);
  Value *lt[3], *lbk[3];
  lt[o] = op_result(sel16, 0);
  lt[c] = op_result(sel16, 1);
  lt[2] = pt[2];
  lbk[o] = pb[o];
  lbk[c] = ib_binary(&b, OP_ADDI, base, op_result(sel16, 2));
  lbk[2] = pb[2];
  Value *in = ib_cmpi(&b, IR_CMPI_SLT, lbk[c], g[c]);
  Op *guard = ib_op(&b, OP_IF, 1, &in, 0, NULL, 2);
  Block *thenb = if_block(m, guard, 0), *elseb = if_block(m, guard, 1);
  ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ir_block_splice_tail(thenb, body->first);
  ib_set_end(&b, thenb);
  ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_end(&b, elseb);
  ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);

  for (size_t i = 0; i < ids.n; i++) {
    Op *op = ids.ops[i];
    int64_t d = ir_op_attr_int(op, "dim", 0);
    if (d < 0 || d > 2) continue; /* the verifier rejects these */
    Value *to = op->kind == OP_THREAD_ID ? lt[d] : op->kind == OP_BLOCK_ID ? lbk[d] : g[d];
    ir_value_replace_all_uses(op_result(op, 0), to);
    ir_op_erase(op);
  }
}

static void consider(Module *m, Op *func, bool variant, bool report, Diag *diag) {
  const char *kname = ir_func_name(func);
  uint64_t ax, ay;
  const char *why;
  char buf[160];
  int c = decide(m, func, &ax, &ay, &why, buf, sizeof buf);
  if (c < 0) {
    if (report) diag_remark(diag, func->loc, "kernel '%s' not block-paired: %s", kname ? kname : "?", why);
    return;
  }
  Op *target = func;
  char name[256];
  if (variant) {
    target = ir_op_clone(m, func, NULL);
    snprintf(name, sizeof name, "%s__bp", kname);
    ir_op_set_attr(m, target, "sym_name", attr_sym(m, name));
    ir_op_insert_after(func, target);
    ir_module_add_symbol(m, target);
    ir_op_set_attr(m, target, "variant_of", attr_sym(m, kname));
    ir_op_set_attr(m, func, "tiled_variant", attr_sym(m, name));
  }
  rewrite(m, target, c);
  if (report)
    diag_remark(diag, func->loc, "kernel '%s' block-paired%s%s: each block runs two of the user's side by side "
                "along blockIdx.%c (grid halved along %c, two logical threads a thread): accesses contiguous along "
                "threadIdx.x weigh %llu, along threadIdx.y %llu", kname, variant ? " as " : "",
                variant ? name : "", "xy"[c], "xy"[c], (unsigned long long)ax, (unsigned long long)ay);
}

bool pass_block_pair(Module *m, const PassContext *pc) {
  bool report = pc->options[0] != 0, variant = pc->options[1] != 0;
  for (Op *op = ir_module_body(m)->first; op; op = op->next)
    if (op->kind == OP_FUNC_FUNC && ir_op_attr(op, "kernel") && !ir_op_attr(op, "block_pair")) {
      Op *next = op->next;
      consider(m, op, variant, report, pc->diag);
      if (variant && next != op->next) op = op->next; /* past the variant just added */
    }
  return true;
}
