/* contract.c — floating multiply-add contraction: the one definition of where kfront computes x * y + z as
 * one fused multiply-add (math.fma, rounded once), as nvcc -fmad=true and numba-cuda (libNVVM's default
 * -fma=1) do on the GPU.
 *
 * The simulator and both backends run it on the copy they execute (lower_for_execution, passes/lower_scf.c),
 * after lower-complex and lower-scf, and the backends compile what remains with contraction off (libNVVM
 * -fma=0, LLVM's NVPTX without fusion): so the simulator and the GPU compute bit for bit the same results, and
 * complex arithmetic (expanded by lower-complex) is contracted like any other. It is in passes.def to be run
 * on its own (kfront-opt).
 *
 * The rule, LLVM's NVPTX DAG combiner's (aggressive fusion, visitFADDForFMACombine / visitFSUBForFMACombine):
 *   - An arith.addf or arith.subf of f16, bf16, f32 or f64 takes in one of its operands an arith.mulf of the
 *     same block (bf16 too: numba-cuda's bf16 operators are libNVVM's, which the H200 run shows fused into one
 *     rounding). Such a product is fused into each addition or subtraction of its block that uses it, whatever
 *     its other uses (a product used elsewhere stays for those uses):
 *       (x * y) + z  ->  fma(x, y, z)        z + (x * y)  ->  fma(x, y, z)
 *       (x * y) - z  ->  fma(x, y, -z)       z - (x * y)  ->  fma(-x, y, z)
 *   - When both operands are such products, the one with fewer uses is fused (the other stays an operand),
 *     the first operand when they have as many.
 *   - A block's ops are visited from its last to its first, so a product's uses counted at an op are those
 *     not yet fused below it (the order in which LLVM's combiner, working from a block's roots, finds them).
 *   - An op marked nocontract (a unit attr: cuda.fp16's hadd_rn, hsub_rn, hmul_rn, as CUDA's __hadd_rn ...)
 *     neither fuses nor is fused.
 *   - A function compiled with opt=False (attr opt = 0) contracts nothing, as numba-cuda's -opt=0 (below).
 *   - Nothing else contracts: a product in another block (a loop-invariant product used in a loop, a product
 *     carried through a block argument), through a conversion (arith.extf) or a negation, or of integers.
 *     x * y + z * w gives fma(x, y, z * w) with z * w rounded.
 * LLVM 14's llc -mtriple=nvptx64 -fp-contract=fast fuses as this rule does on the lit cases of test/passes/contract.kir
 * (complex product, a product of several uses, two products in a subtraction); libNVVM is NVIDIA's LLVM, whose
 * choices numba-cuda gets: test/gpu/python/test_contract_vs_numba.py compares on the GPU.
 * The rounding of the result is math.fma's: f32 and f64 rounded once; f16 and bf16 rounded once to
 * the 16-bit format (fma.rn.f16 / fma.rn.bf16, ir/op_semantics.c). Unused products are erased.
 *
 * Requires: valid IR (structured or cf form; each block is contracted on its own). Preserves: validity; the
 * results change by the rounding the fusion saves, which is the point. */
#include "passes.h"
#include "utils/mem.h"
#include "utils/ptrmap.h"

static bool contractible_type(const Type *t) { return ty_is_float(t); }

/* An addf / subf / mulf the rule may fuse: of a contractible type, not marked nocontract (__hadd_rn ...). */
static bool contractible(const Op *op) {
  return contractible_type(op->results[0].type) && !ir_op_attr(op, "nocontract");
}

/* The product v is defined by, when it can be fused into user (in user's block, of user's type). */
static Op *fusible_mul(Value *v, const Op *user) {
  Op *d = v->def;
  if (!d || d->kind != OP_MULF || d->block != user->block || !contractible(d)) return NULL;
  return d->results[0].type == user->results[0].type ? d : NULL;
}

typedef struct Contract {
  Module *m;
  IrBuilder b;
  Op **muls; /* products fused at least once: erased when no use is left */
  size_t nmuls, cap;
  unsigned fused;
} Contract;

static void note_mul(Contract *c, Op *mul) {
  for (size_t i = 0; i < c->nmuls; i++)
    if (c->muls[i] == mul) return;
  if (c->nmuls == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->muls = mem_realloc(c->muls, sizeof *c->muls * c->cap);
  }
  c->muls[c->nmuls++] = mul;
}

/* Replaces op (addf / subf) by the fma the rule gives, if any; returns the op now in its place. */
static Op *contract_op(Contract *c, Op *op) {
  if (!contractible(op)) return op;
  Value *x = op_operand(op, 0), *y = op_operand(op, 1);
  Op *mx = fusible_mul(x, op), *my = fusible_mul(y, op);
  if (!mx && !my) return op;
  /* which product: the one with fewer uses, the first on a tie */
  bool fuse_first = mx && (!my || ir_value_num_uses(x) <= ir_value_num_uses(y));
  Op *mul = fuse_first ? mx : my;
  Value *other = fuse_first ? y : x;
  Value *a = op_operand(mul, 0), *b = op_operand(mul, 1);
  ib_set_before(&c->b, op);
  c->b.loc = op->loc;
  if (op->kind == OP_SUBF) {
    if (fuse_first) other = ib_unary(&c->b, OP_NEGF, other, NULL); /* x * y - z = fma(x, y, -z) */
    else a = ib_unary(&c->b, OP_NEGF, a, NULL);                    /* z - x * y = fma(-x, y, z) */
  }
  Value *ops[3] = {a, b, other};
  Type *rt = op->results[0].type;
  Op *fma = ib_op(&c->b, OP_FMA, 3, ops, 1, &rt, 0);
  ir_value_replace_all_uses(&op->results[0], &fma->results[0]);
  ir_op_erase(op);
  note_mul(c, mul);
  c->fused++;
  return fma;
}

static void contract_region(Contract *c, Region *r);

static void contract_block(Contract *c, Block *blk) {
  for (Op *op = blk->last; op; op = op->prev) {
    for (unsigned i = 0; i < op->nregions; i++) contract_region(c, &op->regions[i]);
    if (op->kind == OP_ADDF || op->kind == OP_SUBF) op = contract_op(c, op);
  }
}

static void contract_region(Contract *c, Region *r) {
  for (Block *blk = r->first; blk; blk = blk->next) contract_block(c, blk);
}

/* ---- which functions contract ------------------------------------------------------------------------------
 * numba-cuda's libNVVM fuses at the optimisation level of the module it compiles: a kernel's (or, compiled alone,
 * a device function's), its device functions linked in. With opt=False (-opt=0) it fuses nothing: a root of the
 * module (a function no other calls) whose attr opt is 0 contracts nothing, nor do the functions only such roots
 * call; a function another root reaches contracts. */
typedef struct Reach {
  Module *m;
  PtrMap called, optimised; /* functions some function calls; functions an optimised root reaches */
} Reach;

static bool note_called(Op *op, void *user) {
  Reach *r = user;
  Op *f = ir_call_target(r->m, op);
  if (f) ptrmap_put(&r->called, f, f);
  return true;
}

static bool note_optimised(Op *callee, Op *call, void *user) {
  (void)call;
  if (callee) ptrmap_put(&((Reach *)user)->optimised, callee, callee);
  return true;
}

/* Fills r->optimised: the functions numba-cuda would compile with optimisation, the ones that contract. */
static void find_optimised(Module *m, Reach *r) {
  *r = (Reach){.m = m};
  ir_walk_module(m, note_called, r);
  for (Op *f = ir_module_body(m)->first; f; f = f->next) {
    if (f->kind != OP_FUNC_FUNC || ptrmap_get(&r->called, f) || ir_op_attr_int(f, "opt", 3) == 0) continue;
    ptrmap_put(&r->optimised, f, f);
    ir_walk_callees(m, f, note_optimised, r);
  }
}

bool pass_contract(Module *m, const PassContext *pc) {
  (void)pc;
  Contract c = {.m = m};
  ib_init(&c.b, m);
  Reach r;
  find_optimised(m, &r);
  for (Op *f = ir_module_body(m)->first; f; f = f->next)
    if (f->kind != OP_FUNC_FUNC || ptrmap_get(&r.optimised, f))
      for (unsigned i = 0; i < f->nregions; i++) contract_region(&c, &f->regions[i]);
  for (size_t i = 0; i < c.nmuls; i++)
    if (!value_has_uses(&c.muls[i]->results[0])) ir_op_erase(c.muls[i]);
  mem_free(c.muls);
  ptrmap_free(&r.called);
  ptrmap_free(&r.optimised);
  return true;
}

static bool find_contractible(Op *op, void *found) {
  if ((op->kind != OP_ADDF && op->kind != OP_SUBF) || !contractible(op)) return true;
  if (fusible_mul(op_operand(op, 0), op) || fusible_mul(op_operand(op, 1), op)) {
    *(bool *)found = true;
    return false;
  }
  return true;
}

bool pass_module_has_contractible(Module *m) {
  Reach r;
  find_optimised(m, &r);
  bool found = false;
  for (Op *f = ir_module_body(m)->first; f && !found; f = f->next)
    if (f->kind != OP_FUNC_FUNC || ptrmap_get(&r.optimised, f)) ir_walk_pre(f, find_contractible, &found);
  ptrmap_free(&r.called);
  ptrmap_free(&r.optimised);
  return found;
}
