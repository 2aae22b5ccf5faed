/* thread_map.c — thread mapping for coalescing (issue 24, item 1): in a kernel whose threads do not cooperate,
 * the physical thread of a block that runs each logical thread is chosen so that consecutive lanes of a warp run
 * consecutive threadIdx.y, when that makes the kernel's dominant global accesses contiguous along the lanes (the
 * `x, y = cuda.grid(2); a[x, y]` of a C-order array, whose lanes otherwise stride by a whole row).
 *
 * Requires: valid IR. Preserves: validity; the meaning of the kernel: every logical thread (threadIdx, blockIdx)
 * of the user's launch runs once, in the block it belongs to, with the index values the user's launch gives it.
 * Keeps no analysis valid.
 *
 * The rewrite. Within a block of the user's shape (bx, by, bz), the physical thread (px, py, pz) has the linear
 * number l = py*bx + px within its z-slice; it runs the logical thread
 *     threadIdx.x = l / by,  threadIdx.y = l % by,  threadIdx.z = pz
 * (a bijection of the slice onto itself for every block shape: consecutive lanes take consecutive threadIdx.y,
 * by of them for each threadIdx.x). For a square block (bx == by, a run-time test) that is the exchange
 * threadIdx.x = py, threadIdx.y = px, without the divisions. Every gpu.thread_id of the kernel is replaced by the
 * logical one; blockIdx, blockDim and gridDim are untouched, so the physical block and grid are the user's (no
 * hidden parameters, nothing in the launch plan: runtime/plan.c has nothing to read) and the kernel sees the
 * launch the user wrote. The kernel gets the unit attribute `thread_map` (the pass leaves such a kernel alone).
 * grid-stride (which the runtime runs after) replaces blockIdx and gridDim only and composes with it.
 *
 * Eligible: a `kernel` func.func without `thread_map` or `cooperative`, whose body and every device function it
 * calls (transitively; a call of nothing defined here is not eligible) have
 *   - no barrier or warp op (OPT_CONVERGENT), no lane id or lane mask (they name the physical lane),
 *   - no shared memory (mem.dynamic_shared, mem.global_ref of a "shared" global): its threads share nothing,
 *   - no atomics (the order of the threads' updates would change: a float sum's bits, the values returned),
 *   - no gpu.print (the order of its lines would change), no check.raise (its record holds the physical
 *     threadIdx; check.bounds records the index and extent only, which are the logical thread's),
 * and whose device functions read no gpu.thread_id (they would see the physical one).
 *
 * Profitable (the cost model): each mem.load and mem.store of an array that is a kernel parameter is weighed
 * (16 for each loop around it, up to 3) and classified by its affine index forms (passes/affine.c) and the
 * array's layout, C (the last axis contiguous) or F (the first): contiguous along threadIdx.x when the contiguous
 * axis's index has coefficient +-1 for tid.x and no other axis's index has tid.x (likewise threadIdx.y).
 * The forms are exact (the range analysis, in the access's context: it decides the selects of Python's
 * negative-index wrap-around under the kernel's guards). An access of layout A (strides known only at launch),
 * of a rank-1 array indexed by a non-affine flattening, or not affine is not counted. The kernel is rewritten when the weight contiguous along y only exceeds the
 * weight contiguous along x only. The report option puts a remark at the kernel: remapped, with the weights, or
 * why not. */
#include <stdio.h>
#include <string.h>

#include "passes/affine.h"
#include "passes/passes.h"

typedef struct TmScan {
  Module *m;
  const char *why;     /* the first reason the kernel is not eligible */
  bool in_callee;
  bool reads_tid_y;    /* the kernel (not a callee) reads threadIdx.y */
} TmScan;

static bool scan_op(Op *op, void *user) {
  TmScan *s = user;
  if (op_kind_has(op->kind, OPT_CONVERGENT)) s->why = "a barrier or warp-level operation (its threads cooperate)";
  switch (op->kind) {
  case OP_LANE_ID: case OP_LANEMASK_LT: s->why = "it reads the lane id (the physical thread)"; break;
  case OP_DYN_SHARED: s->why = "shared memory (its threads cooperate)"; break;
  case OP_ATOMIC_RMW: case OP_ATOMIC_CAS: s->why = "atomics (the order of the threads' updates would change)"; break;
  case OP_PRINT: s->why = "print (the order of the lines would change)"; break;
  case OP_RAISE: s->why = "a raise or assert (its error record names the physical thread)"; break;
  case OP_GLOBAL_REF: {
    const char *name = ir_op_attr_str(op, "name");
    Op *g = name ? ir_module_lookup(s->m, name) : NULL;
    const char *space = g ? ir_op_attr_str(g, "space") : NULL;
    if (!g || (space && strcmp(space, "shared") == 0)) s->why = "shared memory (its threads cooperate)";
    break;
  }
  case OP_THREAD_ID:
    if (s->in_callee) s->why = "a device function reads threadIdx";
    else if (ir_op_attr_int(op, "dim", 0) == 1) s->reads_tid_y = true;
    break;
  default: break;
  }
  return !s->why;
}

static bool scan_func(TmScan *s, Op *func) {
  for (Block *b = func->regions[0].first; b && !s->why; b = b->next)
    for (Op *op = b->first; op && !s->why; op = op->next) ir_walk_pre(op, scan_op, s);
  return !s->why;
}

static bool scan_callee(Op *callee, Op *call, void *user) {
  (void)call;
  TmScan *s = user;
  if (!callee) s->why = "it calls a function defined elsewhere (it may read threadIdx)";
  else scan_func(s, callee);
  return !s->why;
}

/* ---- the cost model ---------------------------------------------------------------------------------- */

typedef struct TmCost {
  Op *func;
  Block *entry;
  RangeAnalysis *ra;
  uint64_t along_x, along_y; /* weights of the accesses contiguous along tid.x only, along tid.y only */
  uint64_t layout_a;         /* weight of the accesses not counted for their layout A */
  const char *a_name;        /* one such array's name */
} TmCost;

static unsigned loop_depth(const Op *op, const Op *func) {
  unsigned d = 0;
  for (Op *p = ir_block_parent_op(op->block); p && p != func; p = ir_block_parent_op(p->block))
    if (p->kind == OP_FOR || p->kind == OP_WHILE) d++;
  return d;
}

static const char *param_name(const Op *func, unsigned i) {
  Attr *names = ir_op_attr(func, "arg_names");
  if (names && names->kind == ATTR_ARRAY && i < names->arr.n &&
      (names->arr.elems[i].kind == ATTR_STR || names->arr.elems[i].kind == ATTR_SYM))
    return names->arr.elems[i].s;
  return "?";
}

/* Whether the access with these indices into an array of this rank and layout is contiguous along tid.dim. */
static bool contiguous_along(Affine *forms, unsigned rank, char layout, unsigned dim) {
  unsigned fast = layout == LAYOUT_C ? rank - 1 : 0;
  for (unsigned a = 0; a < rank; a++) {
    int64_t c = affine_coef(&forms[a], AFF_TID, dim, NULL);
    if (a == fast ? (c != 1 && c != -1) : c != 0) return false;
  }
  return true;
}

static bool cost_op(Op *op, void *user) {
  TmCost *c = user;
  unsigned first; /* the array operand */
  if (op->kind == OP_LOAD) first = 0;
  else if (op->kind == OP_STORE) first = 1;
  else return true;
  Value *arr = op_operand(op, first);
  Type *t = arr->type;
  if (arr->def || arr->block != c->entry || !t || t->kind != TY_ARRAY || op->noperands != first + 1 + t->rank)
    return true; /* only the kernel's array parameters, indexed by one index per axis */
  unsigned depth = loop_depth(op, c->func);
  uint64_t w = (uint64_t)1 << (4 * (depth < 3 ? depth : 3));
  if (t->layout != LAYOUT_C && t->layout != LAYOUT_F) {
    c->layout_a += w;
    if (!c->a_name) c->a_name = param_name(c->func, arr->index);
    return true;
  }
  Affine forms[8];
  if (t->rank > 8) return true;
  /* in the access's context (its guards), which decides the selects of Python's negative-index wrap-around */
  RangeMark mk = range_scope_open(c->ra);
  range_assume_context(c->ra, op);
  bool affine = true;
  for (unsigned a = 0; a < t->rank && affine; a++) affine = affine_of(c->ra, op_operand(op, first + 1 + a), &forms[a]);
  range_scope_close(c->ra, mk);
  if (!affine) return true;
  bool x = contiguous_along(forms, t->rank, t->layout, 0), y = contiguous_along(forms, t->rank, t->layout, 1);
  if (x && !y) c->along_x += w;
  if (y && !x) c->along_y += w;
  return true;
}

/* ---- the rewrite ------------------------------------------------------------------------------------- */

typedef struct TmCollect {
  Module *m;
  Op **ops;
  size_t n, cap;
} TmCollect;

static bool collect_tid(Op *op, void *user) {
  TmCollect *c = user;
  if (op->kind != OP_THREAD_ID) return true;
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
  Block *entry = ir_func_entry(func);
  TmCollect ids = {.m = m};
  for (Block *b = func->regions[0].first; b; b = b->next)
    for (Op *op = b->first; op; op = op->next) ir_walk_pre(op, collect_tid, &ids);

  Type *i32 = ty_i32(m->ctx);
  IrBuilder b;
  ib_init(&b, m);
  b.loc = func->loc;
  if (entry->first) ib_set_before(&b, entry->first);
  else ib_set_end(&b, entry);
  Value *px = ib_gpu_id(&b, OP_THREAD_ID, 0), *py = ib_gpu_id(&b, OP_THREAD_ID, 1);
  Value *pz = ib_gpu_id(&b, OP_THREAD_ID, 2);
  Value *bx = ib_gpu_id(&b, OP_BLOCK_DIM, 0), *by = ib_gpu_id(&b, OP_BLOCK_DIM, 1);
  Value *square = ib_cmpi(&b, IR_CMPI_EQ, bx, by);
  Type *rt[2] = {i32, i32};
  Op *sel = ib_op(&b, OP_IF, 1, &square, 2, rt, 2);
  Block *thenb = ir_block_new(m), *elseb = ir_block_new(m);
  ir_region_append_block(&sel->regions[0], thenb);
  ir_region_append_block(&sel->regions[1], elseb);
  IrBuilder t;
  ib_init(&t, m);
  t.loc = func->loc;
  ib_set_end(&t, thenb);
  Value *swapped[2] = {py, px};
  ib_op(&t, OP_YIELD, 2, swapped, 0, NULL, 0);
  ib_set_end(&t, elseb);
  Value *l = ib_binary(&t, OP_ADDI, ib_binary(&t, OP_MULI, py, bx), px); /* < 1024: no wrap-around */
  Value *general[2] = {ib_binary(&t, OP_DIVUI, l, by), ib_binary(&t, OP_REMUI, l, by)};
  ib_op(&t, OP_YIELD, 2, general, 0, NULL, 0);
  Value *logical[3] = {op_result(sel, 0), op_result(sel, 1), pz};

  for (size_t i = 0; i < ids.n; i++) {
    int64_t d = ir_op_attr_int(ids.ops[i], "dim", 0);
    if (d < 0 || d > 2) continue; /* the verifier rejects these */
    ir_value_replace_all_uses(op_result(ids.ops[i], 0), logical[d]);
    ir_op_erase(ids.ops[i]);
  }
  ir_op_set_attr(m, func, "thread_map", attr_unit());
}

/* Whether func is eligible (the scan, without the threadIdx.y condition) and the weights of its accesses, for
 * block-pair (passes/block_pair.c), which shares this pass's eligibility and cost model. */
bool thread_map_weights(Module *m, Op *func, uint64_t *along_x, uint64_t *along_y, const char **why) {
  Block *entry = ir_func_entry(func);
  TmScan s = {.m = m};
  if (!entry) s.why = "it has no body";
  if (!s.why && ir_op_attr(func, "cooperative")) s.why = "it synchronises its grid (cuda.cg)";
  if (!s.why) scan_func(&s, func);
  if (!s.why) {
    s.in_callee = true;
    if (ir_walk_callees(m, func, scan_callee, &s) != IR_WALK_DONE && !s.why) s.why = "its calls could not be walked";
  }
  TmCost c = {.func = func, .entry = entry};
  if (!s.why) {
    c.ra = range_analysis_new(m);
    for (Block *b = func->regions[0].first; b; b = b->next)
      for (Op *op = b->first; op; op = op->next) ir_walk_pre(op, cost_op, &c);
    range_analysis_free(c.ra);
  }
  *along_x = c.along_x;
  *along_y = c.along_y;
  *why = s.why;
  return !s.why;
}

/* Whether the pass remaps func (eligible and profitable); *why (into buf) the reason when not. *c gets the
 * weights. */
static bool decide(Module *m, Op *func, TmCost *c, const char **why, char *buf, size_t len) {
  Block *entry = ir_func_entry(func);
  TmScan s = {.m = m};
  if (ir_op_attr(func, "thread_map")) s.why = "it is thread-mapped already";
  if (!s.why && ir_op_attr(func, "cooperative")) s.why = "it synchronises its grid (cuda.cg)";
  if (!s.why && entry) scan_func(&s, func);
  if (!s.why && entry) {
    s.in_callee = true;
    if (ir_walk_callees(m, func, scan_callee, &s) != IR_WALK_DONE && !s.why) s.why = "its calls could not be walked";
  }
  if (!entry) s.why = "it has no body";
  if (!s.why && !s.reads_tid_y) s.why = "it reads no threadIdx.y (nothing to exchange)";
  *c = (TmCost){.func = func, .entry = entry};
  if (!s.why) {
    c->ra = range_analysis_new(m);
    for (Block *b = func->regions[0].first; b; b = b->next)
      for (Op *op = b->first; op; op = op->next) ir_walk_pre(op, cost_op, c);
    range_analysis_free(c->ra);
  }
  if (!s.why && c->along_y <= c->along_x) {
    if (c->along_y == 0 && c->along_x == 0 && c->layout_a)
      snprintf(buf, len, "its arrays' strides are known only at launch (layout A, '%s')", c->a_name);
    else if (c->along_y == 0 && c->along_x == 0)
      snprintf(buf, len, "no access is contiguous along threadIdx.x or threadIdx.y");
    else
      snprintf(buf, len, "accesses contiguous along threadIdx.x weigh %llu, along threadIdx.y %llu",
               (unsigned long long)c->along_x, (unsigned long long)c->along_y);
    s.why = buf;
  }
  *why = s.why;
  return !s.why;
}

bool thread_map_would_remap(Module *m, Op *func) {
  TmCost c;
  const char *why;
  char buf[160];
  return decide(m, func, &c, &why, buf, sizeof buf);
}

static void consider(Module *m, Op *func, bool report, Diag *diag) {
  const char *kname = ir_op_attr_str(func, "sym_name");
  if (!kname) kname = "?";
  TmCost c;
  const char *why;
  char buf[160];
  if (!decide(m, func, &c, &why, buf, sizeof buf)) {
    if (report) diag_remark(diag, func->loc, "kernel '%s' not thread-mapped: %s", kname, why);
    return;
  }
  rewrite(m, func);
  if (report)
    diag_remark(diag, func->loc, "kernel '%s' thread-mapped: consecutive lanes run consecutive threadIdx.y "
                "(threadIdx.x = l / blockDim.y, threadIdx.y = l %% blockDim.y of the lane's number l in the "
                "block; an exchange when blockDim.x == blockDim.y): accesses contiguous along threadIdx.y weigh "
                "%llu, along threadIdx.x %llu", kname, (unsigned long long)c.along_y,
                (unsigned long long)c.along_x);
}

bool pass_thread_map(Module *m, const PassContext *pc) {
  bool report = pc->options[0] != 0;
  for (Op *op = ir_module_body(m)->first; op; op = op->next)
    if (op->kind == OP_FUNC_FUNC && ir_op_attr(op, "kernel") && !ir_op_attr(op, "thread_map"))
      consider(m, op, report, pc->diag);
  return true;
}
