/* passes_differential.c — the passes keep the meaning of random programs: a differential test on the
 * simulator.
 *
 * A generator (seeded, deterministic) builds random kernels with the IR builder: i64 arithmetic of every
 * kind (division by zero, INT_MIN / -1, shifts out of range and overflow included), comparisons and
 * selects, round trips through i32 and f64, algebraic patterns canonicalize rewrites, stores of
 * intermediate values to an output array, and nested scf.if / scf.for (constant, data-dependent and
 * run-time steps, counting up and down) / scf.while with loop-carried values. Each kernel runs on the
 * simulator as built, then again after each of several pipelines (run with the verifier after every
 * pass); the output arrays must be identical. The seed is fixed; KF_SEED picks another, KF_PROGRAMS
 * sets how many programs to try, KF_DUMP prints each program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/sim/sim.h"

enum { THREADS = 4, SLOTS = 64, MAX_POOL = 4096 };

static int failures;
static uint64_t rng;

static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

typedef struct Gen {
  IrContext *ctx;
  Module *m;
  IrBuilder b;
  Type *i1, *i32, *i64, *f64;
  Value *pool[MAX_POOL];  /* i64 values visible at the insertion point */
  unsigned npool;
  Value *out, *tid, *step;
  unsigned slot, budget;
} Gen;

static void push(Gen *g, Value *v) {
  if (g->npool < MAX_POOL) g->pool[g->npool++] = v;
}

/* A visible value, recent ones more often. */
static Value *pick(Gen *g) {
  unsigned n = g->npool;
  if (rnd() % 2 && n > 4) return g->pool[n - 1 - rnd() % 4];
  return g->pool[rnd() % n];
}

static Value *cst(Gen *g, int64_t v) { return ib_const_int(&g->b, g->i64, v); }

static int64_t edge(void) {
  static const int64_t e[] = {0, 1, -1, 2, 3, 7, -8, 63, 64, 65, INT64_MIN, INT64_MAX, INT64_MIN + 1, 1 << 20, -12345};
  return rnd() % 3 ? e[rnd() % (sizeof e / sizeof e[0])] : (int64_t)rnd();
}

static Value *bin(Gen *g, OpKind k, Value *x, Value *y) { return ib_binary(&g->b, k, x, y); }

static Value *cmp(Gen *g, Value *x, Value *y) {
  static const IrCmpIPred preds[] = {IR_CMPI_EQ, IR_CMPI_NE, IR_CMPI_SLT, IR_CMPI_SLE, IR_CMPI_SGT, IR_CMPI_SGE, IR_CMPI_ULT, IR_CMPI_ULE, IR_CMPI_UGT, IR_CMPI_UGE};
  return ib_cmpi(&g->b, preds[rnd() % 10], x, y);
}

/* One new i64 value from the pool. */
static void gen_value(Gen *g) {
  static const OpKind ints[] = {OP_ADDI, OP_SUBI, OP_MULI, OP_ANDI, OP_ORI, OP_XORI, OP_MINSI, OP_MAXSI,
                                OP_MINUI, OP_MAXUI, OP_DIVSI, OP_DIVUI, OP_REMSI, OP_REMUI, OP_FLOORDIVSI,
                                OP_FLOORMODSI, OP_SHLI, OP_SHRSI, OP_SHRUI, OP_IPOW};
  static const OpKind floats[] = {OP_ADDF, OP_SUBF, OP_MULF, OP_DIVF, OP_FLOORDIVF, OP_FLOORMODF, OP_REMF};
  Value *x = pick(g), *y = pick(g), *v;
  switch (rnd() % 12) {
  case 0: v = cst(g, edge()); break;
  case 1:
  case 2:
  case 3: {
    OpKind k = ints[rnd() % (sizeof ints / sizeof ints[0])];
    if (k == OP_IPOW) y = bin(g, OP_ANDI, y, cst(g, 7));
    v = bin(g, k, x, rnd() % 3 ? y : cst(g, edge()));
    break;
  }
  case 4: v = ib_select(&g->b, cmp(g, x, y), x, pick(g)); break;
  case 5: { /* through i32 and back */
    Value *a = ib_unary(&g->b, OP_TRUNCI, x, g->i32), *c = ib_unary(&g->b, OP_TRUNCI, y, g->i32);
    Value *r = ib_binary(&g->b, rnd() % 2 ? OP_MULI : OP_ADDI, a, c);
    v = ib_unary(&g->b, rnd() % 2 ? OP_EXTSI : OP_EXTUI, r, g->i64);
    break;
  }
  case 6: { /* through f64 and back (fptosi of NaN or out of range is left to the run time) */
    Value *a = ib_unary(&g->b, OP_SITOFP, x, g->f64), *c = ib_unary(&g->b, OP_SITOFP, y, g->f64);
    Value *r = ib_binary(&g->b, floats[rnd() % (sizeof floats / sizeof floats[0])], a, c);
    if (rnd() % 3 == 0) r = ib_unary(&g->b, rnd() % 2 ? OP_FLOOR : OP_SQRT, r, NULL);
    v = ib_unary(&g->b, OP_FPTOSI, r, g->i64);
    break;
  }
  case 7: { /* patterns canonicalize rewrites */
    switch (rnd() % 8) {
    case 0: v = bin(g, OP_ADDI, x, cst(g, 0)); break;
    case 1: v = bin(g, OP_MULI, cst(g, 1), x); break;
    case 2: v = bin(g, OP_SUBI, x, x); break;
    case 3: v = bin(g, OP_XORI, bin(g, OP_XORI, x, cst(g, 5)), cst(g, 5)); break;
    case 4: v = ib_select(&g->b, cmp(g, x, x), x, y); break;
    case 5: v = ib_unary(&g->b, OP_TRUNCI, ib_unary(&g->b, OP_EXTSI, ib_unary(&g->b, OP_TRUNCI, x, g->i32), g->i64), g->i32);
            v = ib_unary(&g->b, OP_EXTSI, v, g->i64);
            break;
    case 6: v = bin(g, OP_ADDI, bin(g, OP_ADDI, x, cst(g, 3)), cst(g, edge())); break;
    default: v = bin(g, OP_SUBI, cst(g, 0), bin(g, OP_SUBI, cst(g, 0), x)); break;
    }
    break;
  }
  case 8: v = ib_unary(&g->b, (OpKind[]){OP_ABSI, OP_POPC, OP_CLZ, OP_FFS, OP_BREV}[rnd() % 5], x, NULL); break;
  case 9: v = bin(g, OP_ADDI, x, bin(g, OP_MULI, y, cst(g, edge()))); break; /* same expression again: CSE */
  default: v = bin(g, OP_ADDI, bin(g, OP_MULI, x, y), x); break;
  }
  push(g, v);
}

static void gen_store(Gen *g) {
  unsigned slot = g->slot++ % SLOTS;
  Value *idx = bin(g, OP_ADDI, bin(g, OP_MULI, g->tid, cst(g, SLOTS)), cst(g, slot));
  Value *ops[3] = {pick(g), g->out, idx};
  ib_op(&g->b, OP_STORE, 3, ops, 0, NULL, 0);
}

static void gen_block(Gen *g, int depth, int nops);

/* Fills region r of op with one block (arguments of the given count, pushed to the pool), generated ops
 * and a terminator of `term` kind over `nyield` picked values (after the prefix values). */
static Block *gen_region(Gen *g, Region *r, unsigned nargs, int depth, OpKind term, unsigned nprefix,
                         Value *const *prefix, unsigned nyield) {
  IrBuilder saved = g->b;
  unsigned mark = g->npool;
  Block *blk = ir_block_new(g->m);
  ir_region_append_block(r, blk);
  for (unsigned i = 0; i < nargs; i++) push(g, ir_block_add_arg(g->m, blk, g->i64));
  ib_set_end(&g->b, blk);
  gen_block(g, depth + 1, 1 + (int)(rnd() % 6));
  Value *vals[8];
  for (unsigned i = 0; i < nprefix; i++) vals[i] = prefix[i];
  for (unsigned i = 0; i < nyield; i++) vals[nprefix + i] = pick(g);
  ib_op(&g->b, term, nprefix + nyield, vals, 0, NULL, 0);
  g->npool = mark;
  g->b = saved;
  return blk;
}

static void gen_if(Gen *g, int depth) {
  unsigned n = rnd() % 3;
  Type *ts[2] = {g->i64, g->i64};
  Value *c = cmp(g, pick(g), pick(g));
  Op *op = ib_op(&g->b, OP_IF, 1, &c, n, ts, 2);
  for (unsigned r = 0; r < 2; r++) gen_region(g, &op->regions[r], 0, depth, OP_YIELD, 0, NULL, n);
  for (unsigned i = 0; i < n; i++) push(g, op_result(op, i));
}

static void gen_for(Gen *g, int depth) {
  static const int64_t steps[] = {1, 2, 3, -1, -2};
  unsigned n = rnd() % 3;
  Value *ops[5];
  ops[0] = cst(g, (int64_t)(rnd() % 7) - 3);
  ops[1] = rnd() % 2 ? cst(g, (int64_t)(rnd() % 14) - 3) : bin(g, OP_ANDI, pick(g), cst(g, 7));
  ops[2] = rnd() % 4 == 0 ? g->step : cst(g, steps[rnd() % 5]);
  for (unsigned i = 0; i < n; i++) ops[3 + i] = pick(g);
  Type *ts[2] = {g->i64, g->i64};
  Op *op = ib_op(&g->b, OP_FOR, 3 + n, ops, n, ts, 1);
  gen_region(g, &op->regions[0], 1 + n, depth, OP_YIELD, 0, NULL, n);
  for (unsigned i = 0; i < n; i++) push(g, op_result(op, i));
}

/* while (k > 0) { k -= 1; acc = f(acc) } with k starting in [0, 7]. */
static void gen_while(Gen *g, int depth) {
  Value *init[2] = {bin(g, OP_ANDI, pick(g), cst(g, 7)), pick(g)};
  Type *ts[2] = {g->i64, g->i64};
  Op *op = ib_op(&g->b, OP_WHILE, 2, init, 2, ts, 2);
  /* before: test the counter, pass both on */
  IrBuilder saved = g->b;
  Block *before = ir_block_new(g->m);
  ir_region_append_block(&op->regions[0], before);
  Value *k = ir_block_add_arg(g->m, before, g->i64), *acc = ir_block_add_arg(g->m, before, g->i64);
  ib_set_end(&g->b, before);
  Value *cops[3] = {ib_cmpi(&g->b, IR_CMPI_SGT, k, cst(g, 0)), k, acc};
  ib_op(&g->b, OP_CONDITION, 3, cops, 0, NULL, 0);
  /* after: the counter goes down, the accumulator is whatever the generated code makes */
  Block *after = ir_block_new(g->m);
  ir_region_append_block(&op->regions[1], after);
  Value *k2 = ir_block_add_arg(g->m, after, g->i64), *acc2 = ir_block_add_arg(g->m, after, g->i64);
  unsigned mark = g->npool;
  push(g, k2);
  push(g, acc2);
  ib_set_end(&g->b, after);
  gen_block(g, depth + 1, 1 + (int)(rnd() % 5));
  Value *yops[2] = {bin(g, OP_SUBI, k2, cst(g, 1)), pick(g)};
  ib_op(&g->b, OP_YIELD, 2, yops, 0, NULL, 0);
  g->npool = mark;
  g->b = saved;
  push(g, op_result(op, 1));
}

static void gen_block(Gen *g, int depth, int nops) {
  for (int i = 0; i < nops && g->budget; i++, g->budget--) {
    unsigned r = rnd() % 20;
    if (r < 11 || depth >= 3) gen_value(g);
    else if (r < 14) gen_store(g);
    else if (r < 16) gen_if(g, depth);
    else if (r < 18) gen_for(g, depth);
    else gen_while(g, depth);
  }
}

/* Builds kernel @k(out: array<i64, 1, C>, a: i64, b: i64, step: i64) from the seed. */
static void generate(Gen *g, uint64_t seed) {
  rng = seed;
  g->ctx = ir_context_new();
  g->m = ir_module_new(g->ctx, "random");
  ib_init(&g->b, g->m);
  g->i1 = ty_bool(g->ctx);
  g->i32 = ty_i32(g->ctx);
  g->i64 = ty_i64(g->ctx);
  g->f64 = ty_f64(g->ctx);
  Type *params[4] = {ty_array(g->ctx, g->i64, 1, LAYOUT_C), g->i64, g->i64, g->i64};
  Op *f = ir_func_create(g->m, "k", ty_func(g->ctx, 4, params, 0, NULL), srcloc("random.kir", 1, 1));
  ir_op_set_attr(g->m, f, "kernel", attr_unit());
  Block *entry = ir_func_entry(f);
  ib_set_end(&g->b, entry);
  g->npool = 0;
  g->slot = 0;
  g->budget = 60;
  g->out = entry->args[0];
  g->step = entry->args[3];
  push(g, entry->args[1]);
  push(g, entry->args[2]);
  g->tid = ib_unary(&g->b, OP_EXTSI, ib_gpu_id(&g->b, OP_THREAD_ID, 0), g->i64);
  push(g, g->tid);
  push(g, cst(g, edge()));
  gen_block(g, 0, 40);
  for (int i = 0; i < 4; i++) gen_store(g);
  ib_op(&g->b, OP_FUNC_RETURN, 0, NULL, 0, NULL, 0);
}

static void gen_free(Gen *g) {
  ir_module_free(g->m);
  ir_context_free(g->ctx);
}

/* Runs @k over one block of THREADS threads; out gets the stored values. */
static SimStatus run(Gen *g, int64_t *out, const int64_t *args, Diag *diag) {
  memset(out, 0, sizeof(int64_t) * THREADS * SLOTS);
  int64_t shape[1] = {THREADS * SLOTS};
  SimArg a[4] = {sim_arg_array_c(out, g->i64, 1, shape), sim_arg_int(args[0]), sim_arg_int(args[1]),
                 sim_arg_int(args[2])};
  SimOptions o;
  sim_options_init(&o);
  o.max_thread_steps = 2000000;
  o.detect_races = false;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {THREADS, 1, 1};
  SimResult r;
  sim_launch(g->m, ir_module_lookup(g->m, "k"), grid, block, 0, a, 4, &o, &r, diag);
  return r.status;
}

static void dump(Gen *g, const char *what) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_module(g->m, NULL, &sb);
  fprintf(stderr, "--- %s:\n%s\n", what, sb_cstr(&sb));
  sb_free(&sb);
}

int main(void) {
  static const char *const pipelines[] = {
      "canonicalize", "cse", "lower-scf", "dce", "canonicalize,cse,dce,lower-scf",
      "lower-scf,canonicalize,cse,dce", "cse,canonicalize{region-simplify=0},lower-scf,cse,canonicalize,dce",
  };
  const unsigned npipelines = sizeof pipelines / sizeof pipelines[0];
  uint64_t base = getenv("KF_SEED") ? strtoull(getenv("KF_SEED"), NULL, 0) : 0x5eed;
  unsigned programs = getenv("KF_PROGRAMS") ? (unsigned)atoi(getenv("KF_PROGRAMS")) : 150;
  static int64_t want[THREADS * SLOTS], got[THREADS * SLOTS];
  unsigned ran = 0, skipped = 0;
  for (unsigned p = 0; p < programs && failures < 5; p++) {
    uint64_t seed = (base + p) * 0x9e3779b97f4a7c15ull | 1;
    Gen a;
    generate(&a, seed);
    Diag d;
    diag_init(&d);
    if (!ir_verify_module(a.m, &d)) {
      fprintf(stderr, "program %u (seed %llu): the generator made invalid IR:\n%s", p, (unsigned long long)seed, diag_text(&d));
      dump(&a, "generated");
      failures++;
    }
    rng = seed ^ 0xabcdef;
    int64_t args[3] = {edge(), edge(), rnd() % 2 ? 1 : -1};
    SimStatus st = run(&a, want, args, &d);
    if (st != SIM_OK) { /* e.g. the step limit: not a program to compare on */
      skipped++;
      diag_free(&d);
      gen_free(&a);
      continue;
    }
    ran++;
    if (getenv("KF_DUMP")) dump(&a, "program");
    for (unsigned i = 0; i < npipelines; i++) {
      Gen b;
      generate(&b, seed);
      Pipeline pl = {0};
      PassManagerOptions po = {.verify_each = true};
      if (!pipeline_parse(&pl, pipelines[i], &d) || !pipeline_run(&pl, b.m, &po, &d)) {
        fprintf(stderr, "program %u (seed %llu): pipeline %s failed:\n%s", p, (unsigned long long)seed, pipelines[i],
                diag_text(&d));
        dump(&a, "input");
        failures++;
      } else {
        SimStatus st2 = run(&b, got, args, &d);
        if (st2 != SIM_OK || memcmp(want, got, sizeof want) != 0) {
          unsigned at = 0;
          while (at < THREADS * SLOTS && want[at] == got[at]) at++;
          fprintf(stderr, "program %u (seed %llu): after %s the result differs (status %d; out[%u] = %lld, want %lld)\n",
                  p, (unsigned long long)seed, pipelines[i], (int)st2, at, at < THREADS * SLOTS ? (long long)got[at] : 0,
                  at < THREADS * SLOTS ? (long long)want[at] : 0);
          dump(&a, "input");
          dump(&b, "after");
          failures++;
        }
      }
      pipeline_free(&pl);
      gen_free(&b);
    }
    diag_free(&d);
    gen_free(&a);
  }
  printf("passes_differential: %u programs x %u pipelines compared (%u skipped), %d failure%s\n", ran, npipelines,
         skipped, failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
