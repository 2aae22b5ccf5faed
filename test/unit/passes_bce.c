/* passes_bce.c — bounds-check elimination is sound on random kernels: a differential test on the simulator.
 *
 * A generator (seeded, deterministic) builds kernels in the frontend's shape: index expressions over thread
 * and block ids, cuda.grid(1), cuda.gridsize(1), scalar parameters (edge values included: wrap-around must
 * keep its checks), constants and array extents, combined with add/sub/mul, floor and C modulo and
 * division, min/max, masks, shifts, narrowing round trips, selects and scf.if results; Python's wrap of a
 * possibly negative index; clamps; accesses (mem.dim, check.bounds, then mem.load or mem.store) to a 1-D
 * and a 2-D parameter array and a local array of static shape, alone or under a guard on their own index
 * (right ones and off-by-one ones, in then or else arms), with neighbours i + c and n - 1 - i; guards of
 * every predicate and their andi/ori/not; range loops (extent, grid-stride, counting down, past the end,
 * min(n, p), run-time steps); calls of a device function that checks its own index. Every thread records
 * its progress in an output array, so a thread that stops at a failed check is seen.
 *
 * Each kernel runs, for several random launch configurations, array shapes (empty ones included) and
 * parameters, after a pipeline P and after P then bce, for P structured and cf form. The two runs must
 * agree on the first IndexError (location, axis, index, extent, thread, block), every output and array
 * element, and the run after bce must make no unchecked out-of-bounds access (the simulator reports it).
 * Launches where a thread reaches the simulator's step limit are skipped (the limit stops the launch
 * wherever the other threads are). With bce{report=1}, every check that stays has exactly one note. On a
 * failure the test prints both kernels and names the erased check that makes the difference.
 * The seed is fixed; KF_SEED picks other programs, KF_PROGRAMS sets how many, KF_DUMP prints each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/sim/sim.h"

enum { SLOTS = 48, MAX_THREADS = 96, MAX_POOL = 512, MAX_DIM = 12, CONFIGS = 5, STEPS = 100000 };

static int failures;
static uint64_t rng;

static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static unsigned pick_n(unsigned n) { return (unsigned)(rnd() % n); }

typedef struct Gen {
  IrContext *ctx;
  Module *m;
  IrBuilder b;
  Type *i32, *i64;
  Value *a, *b2, *out, *loc;       /* arrays: a (1-D), b2 (2-D), out (progress), loc (local, static shape) */
  Value *pool[MAX_POOL];           /* i64 values visible at the insertion point */
  unsigned npool;
  Value *gid;                      /* cuda.grid(1), the thread's row of out */
  Value *bases[8];                 /* tid, gid, the scalar parameters, ...: what indices are made of */
  unsigned nbases;
  unsigned slot, budget, line;
} Gen;

static void push(Gen *g, Value *v) {
  if (g->npool < MAX_POOL) g->pool[g->npool++] = v;
}

static Value *pick(Gen *g) {
  unsigned n = g->npool;
  if (rnd() % 2 && n > 6) return g->pool[n - 1 - pick_n(6)];
  return g->pool[pick_n(n)];
}

/* A base value, or the newest value (the induction variable at the start of a loop body). */
static Value *pick_base(Gen *g) { return rnd() % 3 == 0 ? g->pool[g->npool - 1] : g->bases[pick_n(g->nbases)]; }

static Value *cst(Gen *g, int64_t v) { return ib_const_int(&g->b, g->i64, v); }

/* Values where wrap-around and off-by-one mistakes show. */
static int64_t edge(void) {
  static const int64_t e[] = {0, 1, -1, 2, 3, 5, 7, 8, 11, 12, 16, -2, -8, 63, 1 << 20, INT64_MAX, INT64_MIN,
                              INT64_MAX - 1, INT64_MAX - 2, INT64_MIN + 1, (int64_t)1 << 62, -((int64_t)1 << 40),
                              INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX};
  return e[pick_n(sizeof e / sizeof e[0])];
}

static int64_t small_or_edge(void) { return rnd() % 4 ? (int64_t)pick_n(14) - 2 : edge(); }

static Value *bin(Gen *g, OpKind k, Value *x, Value *y) { return ib_binary(&g->b, k, x, y); }

static const IrCmpIPred preds[] = {IR_CMPI_EQ, IR_CMPI_NE, IR_CMPI_SLT, IR_CMPI_SLE, IR_CMPI_SGT, IR_CMPI_SGE, IR_CMPI_ULT, IR_CMPI_ULE, IR_CMPI_UGT, IR_CMPI_UGE};

/* An extent of one of the arrays. */
static Value *extent(Gen *g) {
  switch (pick_n(5)) {
  case 0: return ib_dim(&g->b, g->a, 0);
  case 1: return ib_unary(&g->b, OP_SIZE, g->a, g->i64);
  case 2: return ib_dim(&g->b, g->b2, 0);
  case 3: return ib_dim(&g->b, g->b2, 1);
  default: return ib_dim(&g->b, g->loc, 0);
  }
}

static Value *gen_cond(Gen *g, int depth);

/* r = x if c else y as an scf.if with a result (each arm may compute its value: x + 1, n - 1, ...). */
static Value *gen_if_value(Gen *g) {
  Value *c = rnd() % 2 ? gen_cond(g, 1) : ib_cmpi(&g->b, preds[pick_n(10)], pick(g), extent(g));
  Op *op = ib_op(&g->b, OP_IF, 1, &c, 1, &g->i64, 2);
  IrBuilder saved = g->b;
  for (unsigned r = 0; r < 2; r++) {
    Block *blk = ir_block_new(g->m);
    ir_region_append_block(&op->regions[r], blk);
    ib_set_end(&g->b, blk);
    Value *y = pick(g);
    switch (pick_n(4)) {
    case 0: y = bin(g, OP_ADDI, y, cst(g, (int64_t)pick_n(3) - 1)); break;
    case 1: y = bin(g, OP_SUBI, extent(g), cst(g, 1)); break;
    default: break;
    }
    ib_op(&g->b, OP_YIELD, 1, &y, 0, NULL, 0);
  }
  g->b = saved;
  return op_result(op, 0);
}

/* One new i64 value, often an index-like one. */
static void gen_value(Gen *g) {
  Value *x = pick(g), *y = pick(g), *v;
  switch (pick_n(17)) {
  case 0: v = cst(g, small_or_edge()); break;
  case 1: v = extent(g); break;
  case 2: v = bin(g, (OpKind[]){OP_ADDI, OP_SUBI}[pick_n(2)], x, cst(g, small_or_edge())); break;
  case 3: v = bin(g, (OpKind[]){OP_ADDI, OP_SUBI, OP_MULI}[pick_n(3)], x, y); break;
  case 4: v = bin(g, OP_MULI, x, cst(g, (int64_t)pick_n(5) - 1)); break;
  case 5: v = bin(g, (OpKind[]){OP_FLOORMODSI, OP_REMSI, OP_REMUI}[pick_n(3)], x, rnd() % 2 ? y : extent(g)); break;
  case 6:
    v = bin(g, (OpKind[]){OP_FLOORDIVSI, OP_DIVSI, OP_DIVUI}[pick_n(3)], x, rnd() % 2 ? y : cst(g, 1 + pick_n(4)));
    break;
  case 7: v = bin(g, (OpKind[]){OP_MINSI, OP_MAXSI, OP_MINUI, OP_MAXUI}[pick_n(4)], x, y); break;
  case 8: v = bin(g, OP_ANDI, x, cst(g, rnd() % 2 ? (int64_t)pick_n(16) : small_or_edge())); break;
  case 9:
    v = bin(g, (OpKind[]){OP_SHRSI, OP_SHRUI, OP_SHLI}[pick_n(3)], x,
            cst(g, rnd() % 4 ? (int64_t)pick_n(4) : small_or_edge()));
    break;
  case 10: { /* through i32 and back */
    Value *t = ib_unary(&g->b, OP_TRUNCI, x, g->i32);
    if (rnd() % 2) t = ib_binary(&g->b, OP_ADDI, t, ib_const_int(&g->b, g->i32, (int64_t)pick_n(5) - 2));
    v = ib_unary(&g->b, rnd() % 2 ? OP_EXTSI : OP_EXTUI, t, g->i64);
    break;
  }
  case 11: v = ib_select(&g->b, ib_cmpi(&g->b, preds[pick_n(10)], x, y), x, pick(g)); break;
  case 12: v = bin(g, OP_SUBI, bin(g, OP_SUBI, extent(g), cst(g, 1)), x); break; /* n - 1 - i */
  case 13: v = ib_unary(&g->b, OP_ABSI, x, NULL); break;
  case 14: v = bin(g, OP_ADDI, x, cst(g, 1)); break;
  case 15: v = gen_if_value(g); break;
  default: v = bin(g, OP_SUBI, x, cst(g, 1)); break;
  }
  push(g, v);
}

/* out[gid * SLOTS + slot] = v (always in range: no check). */
static void record(Gen *g, Value *v) {
  unsigned slot = g->slot++ % SLOTS;
  Value *idx = bin(g, OP_ADDI, bin(g, OP_MULI, g->gid, cst(g, SLOTS)), cst(g, slot));
  Value *ops[3] = {v, g->out, idx};
  ib_op(&g->b, OP_STORE, 3, ops, 0, NULL, 0);
}

static void check(Gen *g, Value *idx, Value *n, unsigned axis) {
  g->b.loc = srcloc("random.py", ++g->line, 1);
  Value *ops[2] = {idx, n};
  Op *c = ib_op(&g->b, OP_BOUNDS, 2, ops, 0, NULL, 0);
  ir_op_set_attr(g->m, c, "axis", attr_int(g->i64, axis));
  g->b.loc = (SrcLoc){0};
}

/* An index for an array of extent n: a pool value, Python's wrap of it, or one brought into range. */
static Value *index_for(Gen *g, Value *n) {
  Value *i = pick(g);
  switch (pick_n(20)) {
  case 0:
  case 1: return i;
  case 2:
  case 3: {
    Value *neg = ib_cmpi(&g->b, IR_CMPI_SLT, i, cst(g, 0));
    return ib_select(&g->b, neg, bin(g, OP_ADDI, i, n), i);
  }
  case 4: return bin(g, OP_ANDI, i, cst(g, 7));
  case 5: return bin(g, rnd() % 2 ? OP_MAXSI : OP_ANDI, i, cst(g, rnd() % 2 ? 0 : INT64_MAX)); /* >= 0, unbounded */
  case 6: return ib_select(&g->b, ib_cmpi(&g->b, IR_CMPI_SLT, i, n), i, bin(g, OP_SUBI, n, cst(g, 1)));
  case 7: return ib_select(&g->b, ib_cmpi(&g->b, IR_CMPI_SGE, i, n), cst(g, (int64_t)pick_n(3) - 1), i);
  case 8:
  case 9:
  case 10:
  case 11:
  case 12: return bin(g, OP_FLOORMODSI, i, n); /* fails only when n = 0 */
  default: return bin(g, OP_MINSI, bin(g, OP_MAXSI, i, cst(g, 0)), bin(g, OP_SUBI, n, cst(g, 1)));
  }
}

/* arr[idx...] = v or x = arr[idx...], each index checked as the frontend does (an extent of its own). */
static void emit_access(Gen *g, Value *arr, Value *const *idx) {
  for (unsigned ax = 0; ax < arr->type->rank; ax++) check(g, idx[ax], ib_dim(&g->b, arr, ax), ax);
  Value *ops[4];
  if (rnd() % 3 == 0) {
    ops[0] = rnd() % 2 ? pick(g) : cst(g, g->line);
    ops[1] = arr;
    for (unsigned ax = 0; ax < arr->type->rank; ax++) ops[2 + ax] = idx[ax];
    ib_op(&g->b, OP_STORE, 2 + arr->type->rank, ops, 0, NULL, 0);
    record(g, cst(g, g->line));
  } else {
    ops[0] = arr;
    for (unsigned ax = 0; ax < arr->type->rank; ax++) ops[1 + ax] = idx[ax];
    Value *x = op_result(ib_op(&g->b, OP_LOAD, 1 + arr->type->rank, ops, 1, &g->i64, 0), 0);
    record(g, x);
    push(g, x);
  }
}

/* A guard of index i against extent n, in one of the shapes kernels write it; *in_else: the guarded
 * code belongs in the else arm. Some are wrong on purpose (i <= n, i < n + 1). */
static Value *guard_for(Gen *g, Value *i, Value *n, bool *in_else) {
  *in_else = false;
  switch (pick_n(11)) {
  case 0: return ib_cmpi(&g->b, IR_CMPI_SLT, i, n);
  case 10:
    return bin(g, OP_ANDI, ib_cmpi(&g->b, IR_CMPI_SGE, i, cst(g, 0)),
               ib_cmpi(&g->b, IR_CMPI_SLT, bin(g, OP_ADDI, i, cst(g, 1 + pick_n(2))), n));
  case 1: return ib_cmpi(&g->b, IR_CMPI_ULT, i, n);
  case 2: *in_else = true; return ib_cmpi(&g->b, IR_CMPI_SGE, i, n);
  case 3: return bin(g, OP_ANDI, ib_cmpi(&g->b, IR_CMPI_SGE, i, cst(g, 0)), ib_cmpi(&g->b, IR_CMPI_SLT, i, n));
  case 4: return ib_cmpi(&g->b, IR_CMPI_SLE, bin(g, OP_ADDI, i, cst(g, 1)), n);
  case 5: return ib_cmpi(&g->b, IR_CMPI_SGT, n, i);
  case 6: return ib_cmpi(&g->b, IR_CMPI_SLE, i, n);
  case 7: return ib_cmpi(&g->b, IR_CMPI_SLT, bin(g, OP_ADDI, i, cst(g, pick_n(3))), n);
  case 8: return ib_cmpi(&g->b, IR_CMPI_SLT, i, bin(g, OP_SUBI, n, cst(g, (int64_t)pick_n(3) - 1)));
  default: return ib_cmpi(&g->b, IR_CMPI_SLT, i, bin(g, OP_ADDI, n, cst(g, 1)));
  }
}

/* idx + c for a small c (the neighbours of a guarded or loop index), n - 1 - idx, or idx. */
static Value *neighbour(Gen *g, Value *idx, Value *n) {
  int64_t c = (int64_t)pick_n(5) - 2;
  if (rnd() % 4 == 0) return bin(g, OP_SUBI, bin(g, OP_SUBI, n, cst(g, 1)), idx);
  return c && rnd() % 2 ? bin(g, OP_ADDI, idx, cst(g, c)) : idx;
}

static void gen_access(Gen *g) {
  Value *arr;
  switch (pick_n(4)) {
  case 0:
  case 1: arr = g->a; break;
  case 2: arr = g->b2; break;
  default: arr = g->loc; break;
  }
  Value *idx[2];
  bool guarded = rnd() % 2;
  for (unsigned ax = 0; ax < arr->type->rank; ax++)
    idx[ax] = guarded && rnd() % 2 ? pick_base(g) : index_for(g, ib_dim(&g->b, arr, ax));
  if (!guarded) {
    emit_access(g, arr, idx);
    return;
  }
  /* guarded: if i < n [and j < m]: access */
  bool in_else = false, e1 = false;
  Value *c = guard_for(g, idx[0], rnd() % 2 ? ib_dim(&g->b, arr, 0) : ib_unary(&g->b, OP_SIZE, arr, g->i64), &in_else);
  if (arr->type->rank == 2) {
    Value *c1 = guard_for(g, idx[1], ib_dim(&g->b, arr, 1), &e1);
    if (e1 != in_else) c1 = bin(g, OP_XORI, c1, ib_const_bool(&g->b, true));
    c = bin(g, in_else ? OP_ORI : OP_ANDI, c, c1);
  }
  Op *op = ib_op(&g->b, OP_IF, 1, &c, 0, NULL, 2);
  IrBuilder saved = g->b;
  unsigned mark = g->npool;
  for (unsigned r = 0; r < 2; r++) {
    Block *blk = ir_block_new(g->m);
    ir_region_append_block(&op->regions[r], blk);
    ib_set_end(&g->b, blk);
    if ((r == 1) == in_else) {
      emit_access(g, arr, idx);
      if (rnd() % 2) {
        Value *nb[2] = {neighbour(g, idx[0], ib_dim(&g->b, arr, 0)),
                        arr->type->rank == 2 ? neighbour(g, idx[1], ib_dim(&g->b, arr, 1)) : NULL};
        emit_access(g, arr, nb);
      }
    }
    ib_op(&g->b, OP_YIELD, 0, NULL, 0, NULL, 0);
  }
  g->npool = mark;
  g->b = saved;
}

static void gen_call(Gen *g) {
  Value *i = pick(g);
  Value *ops[2] = {g->a, rnd() % 4 ? bin(g, OP_FLOORMODSI, i, ib_dim(&g->b, g->a, 0)) : i};
  Op *call = ib_op(&g->b, OP_FUNC_CALL, 2, ops, 1, &g->i64, 0);
  ir_op_set_attr(g->m, call, "callee", attr_sym(g->m, "dev"));
  record(g, op_result(call, 0));
}

/* A guard: a comparison (often of an index with an extent), or andi / ori / not of two. */
static Value *gen_cond(Gen *g, int depth) {
  unsigned r = pick_n(8);
  if (depth < 2 && r == 0) return bin(g, OP_ANDI, gen_cond(g, depth + 1), gen_cond(g, depth + 1));
  if (depth < 2 && r == 1) return bin(g, OP_ORI, gen_cond(g, depth + 1), gen_cond(g, depth + 1));
  if (depth < 2 && r == 2) return bin(g, OP_XORI, gen_cond(g, depth + 1), ib_const_bool(&g->b, true));
  Value *x = pick(g), *y = rnd() % 2 ? extent(g) : pick(g);
  if (rnd() % 2) {
    Value *t = x;
    x = y;
    y = t;
  }
  return ib_cmpi(&g->b, preds[pick_n(10)], x, y);
}

static void gen_block(Gen *g, int depth, int nops);

static void gen_region(Gen *g, Region *r, Value *arg, int depth) {
  IrBuilder saved = g->b;
  unsigned mark = g->npool;
  Block *blk = ir_block_new(g->m);
  ir_region_append_block(r, blk);
  ib_set_end(&g->b, blk);
  if (arg) { /* a loop: often a[iv + c] first */
    Value *iv = ir_block_add_arg(g->m, blk, arg->type);
    push(g, iv);
    if (rnd() % 2) {
      Value *arr = rnd() % 3 ? g->a : g->loc, *idx = neighbour(g, iv, ib_dim(&g->b, arr, 0));
      emit_access(g, arr, &idx);
    }
  }
  gen_block(g, depth + 1, 1 + (int)pick_n(6));
  ib_op(&g->b, OP_YIELD, 0, NULL, 0, NULL, 0);
  g->npool = mark;
  g->b = saved;
}

/* An scf.if with code in both arms, or in one only (the other empty: an early return's shape when the code
 * is in the else arm, under the negated condition). */
static void gen_if(Gen *g, int depth) {
  Value *c = gen_cond(g, 0);
  Op *op = ib_op(&g->b, OP_IF, 1, &c, 0, NULL, 2);
  unsigned shape = pick_n(3); /* 0: both arms, 1: then only, 2: else only */
  for (unsigned r = 0; r < 2; r++) {
    if (shape == 0 || shape == r + 1) {
      gen_region(g, &op->regions[r], NULL, depth);
      continue;
    }
    IrBuilder saved = g->b;
    Block *blk = ir_block_new(g->m);
    ir_region_append_block(&op->regions[r], blk);
    ib_set_end(&g->b, blk);
    ib_op(&g->b, OP_YIELD, 0, NULL, 0, NULL, 0);
    g->b = saved;
  }
}

/* Bounds kept small so the loops end: clamp(x, -4, 24). */
static Value *small(Gen *g, Value *x) { return bin(g, OP_MINSI, bin(g, OP_MAXSI, x, cst(g, -4)), cst(g, 24)); }

static void gen_for(Gen *g, int depth) {
  Value *lb, *ub, *step;
  switch (pick_n(6)) {
  case 0: /* range(n) */
    lb = cst(g, 0), ub = extent(g), step = cst(g, 1);
    break;
  case 1: /* grid-stride */
    lb = g->gid;
    ub = rnd() % 3 ? extent(g) : small(g, pick(g));
    step = bin(g, OP_MULI, ib_unary(&g->b, OP_EXTSI, ib_gpu_id(&g->b, OP_BLOCK_DIM, 0), g->i64),
               ib_unary(&g->b, OP_EXTSI, ib_gpu_id(&g->b, OP_GRID_DIM, 0), g->i64));
    break;
  case 2: /* counting down: range(n - 1, -1, -1) or range(n - k, lb, -s) */
    lb = bin(g, OP_SUBI, extent(g), cst(g, pick_n(3)));
    ub = rnd() % 2 ? cst(g, -1) : small(g, pick(g));
    step = cst(g, -1 - (int64_t)pick_n(2));
    break;
  case 3: /* past the end or from an offset */
    lb = cst(g, (int64_t)pick_n(4) - 1);
    ub = bin(g, OP_ADDI, extent(g), cst(g, (int64_t)pick_n(3) - 1));
    step = cst(g, 1 + pick_n(2));
    break;
  case 4: /* min(n, p) */
    lb = cst(g, 0);
    ub = bin(g, OP_MINSI, extent(g), small(g, pick(g)));
    step = cst(g, 1);
    break;
  default: /* anything small, a run-time step of either sign */
    lb = small(g, pick(g));
    ub = small(g, pick(g));
    step = rnd() % 2 ? cst(g, rnd() % 2 ? 1 : -1)
                     : ib_select(&g->b, ib_cmpi(&g->b, IR_CMPI_SLT, pick(g), pick(g)), cst(g, 1), cst(g, -2));
    break;
  }
  Value *ops[3] = {lb, ub, step};
  Op *op = ib_op(&g->b, OP_FOR, 3, ops, 0, NULL, 1);
  gen_region(g, &op->regions[0], lb, depth);
}

static void gen_block(Gen *g, int depth, int nops) {
  for (int i = 0; i < nops && g->budget; i++, g->budget--) {
    unsigned r = pick_n(20);
    if (r < 8 || depth >= 3) {
      gen_value(g);
      if (rnd() % 2) gen_access(g);
    } else if (r < 13) gen_access(g);
    else if (r < 16) gen_if(g, depth);
    else if (r < 19) gen_for(g, depth);
    else gen_call(g);
  }
}

/* @dev(a, i) -> a[i] (checked: nothing is known of i there). */
static void gen_device(Gen *g) {
  Type *params[2] = {g->a->type, g->i64};
  Op *f = ir_func_create(g->m, "dev", ty_func(g->ctx, 2, params, 1, &g->i64), srcloc("random.py", 1000, 1));
  ir_op_set_attr(g->m, f, "device", attr_unit());
  IrBuilder saved = g->b;
  Block *entry = ir_func_entry(f);
  ib_set_end(&g->b, entry);
  Value *a = entry->args[0], *i = entry->args[1];
  Value *n = ib_dim(&g->b, a, 0);
  g->b.loc = srcloc("random.py", 1001, 1);
  Value *cops[2] = {i, n};
  Op *c = ib_op(&g->b, OP_BOUNDS, 2, cops, 0, NULL, 0);
  ir_op_set_attr(g->m, c, "axis", attr_int(g->i64, 0));
  g->b.loc = (SrcLoc){0};
  Value *lops[2] = {a, i};
  Value *x = op_result(ib_op(&g->b, OP_LOAD, 2, lops, 1, &g->i64, 0), 0);
  ib_op(&g->b, OP_FUNC_RETURN, 1, &x, 0, NULL, 0);
  g->b = saved;
}

/* Builds @k(a: array<i64, 1, C>, b: array<i64, 2, C>, out: array<i64, 1, C>, p: i64, q: i64). */
static void generate(Gen *g, uint64_t seed) {
  rng = seed;
  memset(g, 0, sizeof *g);
  g->ctx = ir_context_new();
  g->m = ir_module_new(g->ctx, "random");
  ib_init(&g->b, g->m);
  g->i32 = ty_i32(g->ctx);
  g->i64 = ty_i64(g->ctx);
  Type *arr1 = ty_array(g->ctx, g->i64, 1, LAYOUT_C), *arr2 = ty_array(g->ctx, g->i64, 2, LAYOUT_C);
  Type *params[5] = {arr1, arr2, arr1, g->i64, g->i64};
  Op *f = ir_func_create(g->m, "k", ty_func(g->ctx, 5, params, 0, NULL), srcloc("random.py", 1, 1));
  ir_op_set_attr(g->m, f, "kernel", attr_unit());
  Block *entry = ir_func_entry(f);
  g->a = entry->args[0];
  g->b2 = entry->args[1];
  g->out = entry->args[2];
  gen_device(g);
  ib_set_end(&g->b, entry);
  Op *al = ib_op(&g->b, OP_ALLOCA, 0, NULL, 1, &arr1, 0);
  Attr six = attr_int(g->i64, 6);
  ir_op_set_attr(g->m, al, "shape", attr_array(g->m, 1, &six));
  g->loc = op_result(al, 0);
  Value *tid = ib_unary(&g->b, OP_EXTSI, ib_gpu_id(&g->b, OP_THREAD_ID, 0), g->i64);
  Value *bid = ib_unary(&g->b, OP_EXTSI, ib_gpu_id(&g->b, OP_BLOCK_ID, 0), g->i64);
  Value *bdim = ib_unary(&g->b, OP_EXTSI, ib_gpu_id(&g->b, OP_BLOCK_DIM, 0), g->i64);
  g->gid = bin(g, OP_ADDI, tid, bin(g, OP_MULI, bid, bdim));
  Value *p = entry->args[3], *q = entry->args[4];
  Value *bases[] = {tid, g->gid, p, q, bin(g, OP_MAXSI, p, cst(g, 0)), bin(g, OP_ANDI, q, cst(g, INT64_MAX))};
  for (unsigned i = 0; i < sizeof bases / sizeof bases[0]; i++) push(g, g->bases[g->nbases++] = bases[i]);
  push(g, cst(g, (int64_t)pick_n(8)));
  push(g, ib_dim(&g->b, g->a, 0));
  g->budget = 40;
  gen_block(g, 0, 24);
  record(g, cst(g, -7)); /* the thread got to the end */
  ib_op(&g->b, OP_FUNC_RETURN, 0, NULL, 0, NULL, 0);
}

static void gen_free(Gen *g) {
  ir_module_free(g->m);
  ir_context_free(g->ctx);
}

static bool count_checks(Op *op, void *user) {
  if (op->kind == OP_BOUNDS) ++*(unsigned *)user;
  return true;
}

static unsigned checks_in(Module *m) {
  unsigned n = 0;
  ir_walk_module(m, count_checks, &n);
  return n;
}

/* ---- running ------------------------------------------------------------------------------------- */

typedef struct Config {
  uint32_t grid, block;
  int64_t na, nb0, nb1, p, q;
} Config;

typedef struct Outcome {
  SimResult r;
  int64_t a[MAX_DIM], b[MAX_DIM * MAX_DIM], out[MAX_THREADS * SLOTS];
} Outcome;

static void run(Module *m, const Config *c, uint64_t max_steps, Outcome *o, Diag *diag) {
  for (int64_t i = 0; i < MAX_DIM; i++) o->a[i] = 100 + i * 3 - (i % 4) * 50;
  for (int64_t i = 0; i < MAX_DIM * MAX_DIM; i++) o->b[i] = (i * 7) % 23 - 11;
  memset(o->out, 0, sizeof o->out);
  IrContext *ctx = m->ctx;
  Type *i64 = ty_i64(ctx);
  int64_t sa[1] = {c->na}, sb[2] = {c->nb0, c->nb1}, so[1] = {MAX_THREADS * SLOTS};
  SimArg args[5] = {sim_arg_array_c(o->a, i64, 1, sa), sim_arg_array_c(o->b, i64, 2, sb),
                    sim_arg_array_c(o->out, i64, 1, so), sim_arg_int(c->p), sim_arg_int(c->q)};
  SimOptions opt;
  sim_options_init(&opt);
  opt.max_thread_steps = max_steps;
  opt.detect_races = false;
  uint32_t grid[3] = {c->grid, 1, 1}, block[3] = {c->block, 1, 1};
  sim_launch(m, ir_module_lookup(m, "k"), grid, block, 0, args, 5, &opt, &o->r, diag);
}

static bool same_index_error(const SimIndexError *x, const SimIndexError *y) {
  if (x->set != y->set) return false;
  if (!x->set) return true;
  return x->loc.line == y->loc.line && x->axis == y->axis && x->index == y->index && x->extent == y->extent &&
         memcmp(x->thread, y->thread, sizeof x->thread) == 0 && memcmp(x->block, y->block, sizeof x->block) == 0;
}

static void dump(Module *m, const char *what) {
  StrBuf sb;
  sb_init(&sb);
  IrPrintOptions po = {.debug_info = true};
  ir_print_module(m, &po, &sb);
  fprintf(stderr, "--- %s:\n%s\n", what, sb_cstr(&sb));
  sb_free(&sb);
}

static bool run_pipeline(Module *m, const char *text, Diag *d) {
  Pipeline pl = {0};
  PassManagerOptions po = {.verify_each = true};
  bool ok = !*text || (pipeline_parse(&pl, text, d) && pipeline_run(&pl, m, &po, d));
  pipeline_free(&pl);
  return ok;
}

typedef struct CheckAt {
  unsigned line;
  Op *op;
} CheckAt;

static bool find_check(Op *op, void *user) {
  CheckAt *c = user;
  if (op->kind == OP_BOUNDS && op->loc.line == c->line) c->op = op;
  return true;
}

static Op *check_at(Module *m, unsigned line) {
  CheckAt c = {line, NULL};
  ir_walk_module(m, find_check, &c);
  return c.op;
}

/* After a failure: names the check, among those bce erased, whose erasure alone changes the run (each
 * check has a line of its own). */
static void blame(uint64_t seed, const char *pipeline, Module *with_bce, const Config *c, const Outcome *want, Diag *d) {
  static Outcome o;
  for (unsigned line = 1; line <= 1001; line++) {
    if (check_at(with_bce, line)) continue;
    Gen g;
    generate(&g, seed);
    run_pipeline(g.m, pipeline, d);
    Op *victim = check_at(g.m, line);
    bool guilty = false;
    if (victim) {
      ir_op_erase(victim);
      run(g.m, c, STEPS, &o, d);
      guilty = o.r.oob || o.r.status != want->r.status || memcmp(o.out, want->out, sizeof o.out) != 0;
    }
    gen_free(&g);
    if (guilty) {
      fprintf(stderr, "erasing the check at random.py:%u alone makes the difference\n", line);
      return;
    }
  }
}

static unsigned count_notes(const char *text) {
  unsigned n = 0;
  for (const char *s = text; (s = strstr(s, ": note: ")); s++) n++;
  return n;
}

int main(void) {
  static const char *const pipelines[] = {"", "canonicalize,cse", "lower-scf",
                                          "canonicalize,cse,lower-scf,canonicalize,cse"};
  const unsigned npipelines = sizeof pipelines / sizeof pipelines[0];
  uint64_t base = getenv("KF_SEED") ? strtoull(getenv("KF_SEED"), NULL, 0) : 0xbce5eed;
  unsigned programs = getenv("KF_PROGRAMS") ? (unsigned)atoi(getenv("KF_PROGRAMS")) : 160;
  static Outcome want, got;
  unsigned long compared = 0, skipped = 0, index_errors = 0, checks = 0, removed = 0;
  for (unsigned p = 0; p < programs && failures < 5; p++) {
    uint64_t seed = ((base << 32) + p) * 0x9e3779b97f4a7c15ull | 1; /* other bases: other programs */
    Config cfg[CONFIGS];
    rng = seed ^ 0x5151;
    for (unsigned k = 0; k < CONFIGS; k++) {
      cfg[k].block = 1 + pick_n(32);
      cfg[k].grid = 1 + pick_n(MAX_THREADS / cfg[k].block < 3 ? MAX_THREADS / cfg[k].block : 3);
      cfg[k].na = pick_n(MAX_DIM + 1);
      cfg[k].nb0 = pick_n(MAX_DIM + 1);
      cfg[k].nb1 = pick_n(MAX_DIM + 1);
      cfg[k].p = rnd() % 3 ? (int64_t)pick_n(30) - 6 : edge();
      cfg[k].q = rnd() % 3 ? (int64_t)pick_n(30) - 6 : edge();
    }
    for (unsigned pi = 0; pi < npipelines; pi++) {
      Gen g0, g1;
      Diag d;
      diag_init(&d);
      generate(&g0, seed);
      generate(&g1, seed);
      if (!ir_verify_module(g0.m, &d)) {
        fprintf(stderr, "program %u (seed %llu): the generator made invalid IR:\n%s", p, (unsigned long long)seed,
                diag_text(&d));
        dump(g0.m, "generated");
        failures++;
        goto next;
      }
      if (getenv("KF_DUMP") && pi == 0) dump(g0.m, "program");
      if (!run_pipeline(g0.m, pipelines[pi], &d) || !run_pipeline(g1.m, pipelines[pi], &d)) {
        fprintf(stderr, "program %u (seed %llu): pipeline '%s' failed:\n%s", p, (unsigned long long)seed, pipelines[pi],
                diag_text(&d));
        failures++;
        goto next;
      }
      unsigned before = checks_in(g1.m);
      Diag notes;
      diag_init(&notes);
      if (!run_pipeline(g1.m, "bce{report=1}", &notes)) {
        fprintf(stderr, "program %u (seed %llu): bce failed after '%s':\n%s", p, (unsigned long long)seed, pipelines[pi],
                diag_text(&notes));
        failures++;
        diag_free(&notes);
        goto next;
      }
      unsigned after = checks_in(g1.m);
      if (count_notes(diag_text(&notes)) != after) {
        fprintf(stderr, "program %u (seed %llu) after '%s': %u checks stay but %u notes:\n%s", p, (unsigned long long)seed,
                pipelines[pi], after, count_notes(diag_text(&notes)), diag_text(&notes));
        failures++;
      }
      diag_free(&notes);
      checks += before;
      removed += before - after;
      for (unsigned k = 0; k < CONFIGS; k++) {
        /* A thread that reaches the step limit stops the launch wherever the other threads are, which
         * depends on how many ops ran: such a launch is not compared. Whether it happened is not in the
         * status (an IndexError may come first), so the launch runs again with a higher limit: when no
         * thread reached the limit, it executes exactly as many ops. (With bce a thread runs fewer.) */
        run(g0.m, &cfg[k], 2 * STEPS, &got, &d);
        run(g0.m, &cfg[k], STEPS, &want, &d);
        if ((want.r.status != SIM_OK && want.r.status != SIM_ERR_INDEX) || want.r.steps != got.r.steps) {
          skipped++;
          continue;
        }
        run(g1.m, &cfg[k], STEPS, &got, &d);
        compared++;
        index_errors += want.r.status == SIM_ERR_INDEX;
        const char *diff = NULL;
        if (want.r.oob) diff = "(a generator bug) the run without bce makes an unchecked access";
        else if (got.r.oob || got.r.status == SIM_ERR_OOB) diff = "an access goes out of bounds unchecked";
        else if (got.r.status != want.r.status) diff = "the status differs";
        else if (!same_index_error(&want.r.index_error, &got.r.index_error)) diff = "the first IndexError differs";
        else if (memcmp(want.out, got.out, sizeof want.out) != 0) diff = "the output differs";
        else if (memcmp(want.a, got.a, sizeof want.a) || memcmp(want.b, got.b, sizeof want.b)) diff = "an array differs";
        if (diff) {
          fprintf(stderr,
                  "program %u (seed %llu), pipeline '%s', launch %u x %u, a[%lld], b[%lld, %lld], p = %lld, q = %lld: "
                  "after bce, %s\n  without bce: %s %s\n  with bce:    %s %s\n",
                  p, (unsigned long long)seed, pipelines[pi], cfg[k].grid, cfg[k].block, (long long)cfg[k].na,
                  (long long)cfg[k].nb0, (long long)cfg[k].nb1, (long long)cfg[k].p, (long long)cfg[k].q, diff,
                  want.r.message, want.r.index_message, got.r.message, got.r.index_message);
          dump(g0.m, "without bce");
          dump(g1.m, "with bce");
          blame(seed, pipelines[pi], g1.m, &cfg[k], &want, &d);
          failures++;
          break;
        }
      }
    next:
      diag_free(&d);
      gen_free(&g0);
      gen_free(&g1);
    }
  }
  printf("passes_bce: %lu launches compared (%lu with an IndexError, %lu skipped), %lu of %lu checks removed, %d failure%s\n",
         compared, index_errors, skipped, removed, checks, failures, failures == 1 ? "" : "s");
  return failures || compared == 0 ? 1 : 0;
}
