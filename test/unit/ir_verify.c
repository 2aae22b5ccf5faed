/* ir_verify.c — unit tests of ir/verify.c and ir/dominance.c: valid IR built with the builder verifies;
 * each kind of broken IR gets its diagnostic, with its text and location; dominator trees of small CFGs;
 * the verifier stays linear on a large module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/ir.h"

static int failures;
static const char *current;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__, __LINE__, current, #cond); \
      failures++;                                                                     \
    }                                                                                 \
  } while (0)

/* ---- fixtures ---------------------------------------------------------------------------------- */

typedef struct {
  IrContext *ctx;
  Module *m;
  IrBuilder b;
  Type *i1, *i32, *i64, *u32, *f32, *f64;
} Fx;

static void fx_init(Fx *f, const char *name) {
  current = name;
  f->ctx = ir_context_new();
  f->m = ir_module_new(f->ctx, name);
  ib_init(&f->b, f->m);
  f->i1 = ty_bool(f->ctx);
  f->i32 = ty_i32(f->ctx);
  f->i64 = ty_i64(f->ctx);
  f->u32 = ty_u32(f->ctx);
  f->f32 = ty_f32(f->ctx);
  f->f64 = ty_f64(f->ctx);
}

static void fx_free(Fx *f) {
  ir_module_free(f->m);
  ir_context_free(f->ctx);
}

/* Sets the builder's location to t.kir:line:1. */
static void at(Fx *f, unsigned line) { f->b.loc = srcloc("t.kir", line, 1); }

/* A func.func @name with the given type; builder at the end of its entry block. */
static Op *func(Fx *f, const char *name, unsigned np, Type *const *params, unsigned nr, Type *const *results) {
  Op *fn = ir_func_create(f->m, name, ty_func(f->ctx, np, params, nr, results), srcloc("t.kir", 1, 1));
  ib_set_end(&f->b, ir_func_entry(fn));
  return fn;
}

static Op *ret(Fx *f, unsigned n, Value *const *vals) { return ib_op(&f->b, OP_FUNC_RETURN, n, vals, 0, NULL, 0); }

static Op *op1(Fx *f, OpKind k, unsigned n, Value *const *opnds, Type *rt) {
  return ib_op(&f->b, k, n, opnds, rt ? 1 : 0, rt ? &rt : NULL, (unsigned)ir_op_info[k].nregions);
}

static void set_str(Fx *f, Op *op, const char *name, const char *s) { ir_op_set_attr(f->m, op, name, attr_str(f->m, s)); }
static void set_int(Fx *f, Op *op, const char *name, int64_t v) { ir_op_set_attr(f->m, op, name, attr_int(f->i64, v)); }
static void set_sym(Fx *f, Op *op, const char *name, const char *s) { ir_op_set_attr(f->m, op, name, attr_sym(f->m, s)); }

/* Verifies the module; returns the diagnostics text (owned by the caller). */
static char *verify(Fx *f, bool *ok, unsigned *nerrors) {
  Diag d;
  diag_init(&d);
  *ok = ir_verify_module(f->m, &d);
  *nerrors = diag_errors(&d);
  char *text = strdup(diag_text(&d));
  if (getenv("IR_VERIFY_DUMP")) fprintf(stderr, "--- %s:\n%s", current, text);
  diag_free(&d);
  return text;
}

static void expect_ok(Fx *f) {
  bool ok;
  unsigned n;
  char *text = verify(f, &ok, &n);
  CHECK(ok);
  CHECK(n == 0);
  if (!ok || n) fprintf(stderr, "  unexpected diagnostics:\n%s", text);
  free(text);
}

/* Expects verification to fail with exactly `count` errors, one of which contains `msg`. */
static void expect_errors(Fx *f, unsigned count, const char *msg) {
  bool ok;
  unsigned n;
  char *text = verify(f, &ok, &n);
  CHECK(!ok);
  CHECK(n == count);
  CHECK(strstr(text, msg) != NULL);
  if (ok || n != count || !strstr(text, msg))
    fprintf(stderr, "  expected %u error(s) with \"%s\", got %u:\n%s", count, msg, n, text);
  free(text);
}

static void expect_error(Fx *f, const char *msg) { expect_errors(f, 1, msg); }

/* ---- valid IR ---------------------------------------------------------------------------------- */

/* A kernel using most op families in their structured form. */
static void test_valid_structured(void) {
  Fx f;
  fx_init(&f, "valid_structured");
  /* module-level shared array and a device function */
  Op *g = ir_op_create(f.m, OP_GLOBAL, srcloc("t.kir", 1, 1), 0, NULL, 0, NULL, 0);
  set_sym(&f, g, "sym_name", "tile");
  Type *tile_t = ty_array(f.ctx, f.f32, 2, 'C');
  ir_op_set_attr(f.m, g, "type", attr_type(tile_t));
  Attr ext[2] = {attr_int(f.i64, 16), attr_int(f.i64, 16)};
  ir_op_set_attr(f.m, g, "shape", attr_array(f.m, 2, ext));
  set_str(&f, g, "space", "shared");
  ir_block_append(ir_module_body(f.m), g);
  ir_module_add_symbol(f.m, g);

  Op *dev = func(&f, "twice", 1, &f.f32, 1, &f.f32);
  Value *x = ir_func_entry(dev)->args[0];
  Value *two = ib_const_float(&f.b, f.f32, 2.0);
  Value *y = ib_binary(&f.b, OP_MULF, x, two);
  ret(&f, 1, &y);

  Type *arr = ty_array(f.ctx, f.f32, 1, 'C');
  Type *params[2] = {arr, f.i64};
  Op *k = func(&f, "kern", 2, params, 0, NULL);
  ir_op_set_attr(f.m, k, "kernel", attr_unit());
  Block *entry = ir_func_entry(k);
  Value *a = entry->args[0], *n = entry->args[1];
  Value *tid = ib_cast(&f.b, ib_gpu_id(&f.b, OP_THREAD_ID, 0), f.i64);
  Value *bid = ib_cast(&f.b, ib_gpu_id(&f.b, OP_BLOCK_ID, 0), f.i64);
  Value *bdim = ib_cast(&f.b, ib_gpu_id(&f.b, OP_BLOCK_DIM, 0), f.i64);
  Value *i = ib_binary(&f.b, OP_ADDI, ib_binary(&f.b, OP_MULI, bid, bdim), tid);
  Value *inb = ib_cmpi(&f.b, IR_CMPI_SLT, i, n);
  /* scf.if (i < n) { a[i] = twice(a[i]) } */
  Op *iff = ib_op(&f.b, OP_IF, 1, &inb, 0, NULL, 2);
  Block *then = ir_block_new(f.m), *els = ir_block_new(f.m);
  ir_region_append_block(&iff->regions[0], then);
  ir_region_append_block(&iff->regions[1], els);
  ib_set_end(&f.b, then);
  Value *d0 = ib_dim(&f.b, a, 0);
  Value *bo[2] = {i, d0};
  Op *bc = ib_op(&f.b, OP_BOUNDS, 2, bo, 0, NULL, 0);
  set_int(&f, bc, "axis", 0);
  Value *li[2] = {a, i};
  Value *v = op_result(op1(&f, OP_LOAD, 2, li, f.f32), 0);
  Op *call = op1(&f, OP_FUNC_CALL, 1, &v, f.f32);
  set_sym(&f, call, "callee", "twice");
  Value *si[3] = {op_result(call, 0), a, i};
  ib_op(&f.b, OP_STORE, 3, si, 0, NULL, 0);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_end(&f.b, els);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_after(&f.b, iff);

  /* %s = scf.for(0, n, 1, 0.0) ^(%iv, %acc): acc + a[iv] */
  Value *zero = ib_const_int(&f.b, f.i64, 0), *one = ib_const_int(&f.b, f.i64, 1);
  Value *fz = ib_const_float(&f.b, f.f32, 0.0);
  Value *fo[4] = {zero, n, one, fz};
  Op *loop = op1(&f, OP_FOR, 4, fo, f.f32);
  Block *body = ir_block_new(f.m);
  ir_region_append_block(&loop->regions[0], body);
  Value *iv = ir_block_add_arg(f.m, body, f.i64), *acc = ir_block_add_arg(f.m, body, f.f32);
  ib_set_end(&f.b, body);
  Value *li2[2] = {a, iv};
  Value *e = op_result(op1(&f, OP_LOAD, 2, li2, f.f32), 0);
  Value *sum = ib_binary(&f.b, OP_ADDF, acc, e);
  ib_op(&f.b, OP_YIELD, 1, &sum, 0, NULL, 0);
  ib_set_after(&f.b, loop);

  /* scf.while counting down from n */
  Op *wh = op1(&f, OP_WHILE, 1, &n, f.i64);
  Block *before = ir_block_new(f.m), *after = ir_block_new(f.m);
  ir_region_append_block(&wh->regions[0], before);
  ir_region_append_block(&wh->regions[1], after);
  Value *wa = ir_block_add_arg(f.m, before, f.i64);
  ib_set_end(&f.b, before);
  Value *pos = ib_cmpi(&f.b, IR_CMPI_SGT, wa, zero);
  Value *co[2] = {pos, wa};
  ib_op(&f.b, OP_CONDITION, 2, co, 0, NULL, 0);
  Value *wb = ir_block_add_arg(f.m, after, f.i64);
  ib_set_end(&f.b, after);
  Value *dec = ib_binary(&f.b, OP_SUBI, wb, one);
  ib_op(&f.b, OP_YIELD, 1, &dec, 0, NULL, 0);
  ib_set_after(&f.b, wh);

  /* shared memory, barriers, atomics, warps, math, casts */
  Op *ref = op1(&f, OP_GLOBAL_REF, 0, NULL, tile_t);
  set_sym(&f, ref, "name", "tile");
  Value *sti[4] = {op_result(loop, 0), op_result(ref, 0), zero, zero};
  ib_op(&f.b, OP_STORE, 4, sti, 0, NULL, 0);
  ib_op(&f.b, OP_BARRIER, 0, NULL, 0, NULL, 0);
  Op *fence = ib_op(&f.b, OP_FENCE, 0, NULL, 0, NULL, 0);
  set_str(&f, fence, "scope", "block");
  Value *ai[3] = {a, zero, op_result(loop, 0)};
  Op *rmw = op1(&f, OP_ATOMIC_RMW, 3, ai, f.f32);
  set_str(&f, rmw, "kind", "add");
  Value *mask = ib_const_int(&f.b, f.u32, 0xffffffffu);
  Value *lane = ib_const_int(&f.b, f.i32, 1), *width = ib_const_int(&f.b, f.i32, 32);
  Value *sh[4] = {mask, op_result(loop, 0), lane, width};
  Op *shfl = op1(&f, OP_SHFL, 4, sh, f.f32);
  set_str(&f, shfl, "mode", "down");
  Value *vo[2] = {mask, inb};
  Op *vote = op1(&f, OP_VOTE, 2, vo, f.u32);
  set_str(&f, vote, "mode", "ballot");
  Op *br = op1(&f, OP_BARRIER_RED, 1, &inb, f.i32);
  set_str(&f, br, "kind", "count");
  ib_op(&f.b, OP_SYNCWARP, 1, &mask, 0, NULL, 0);
  ib_op(&f.b, OP_NANOSLEEP, 1, &mask, 0, NULL, 0);
  Value *wide = ib_unary(&f.b, OP_EXTF, op_result(shfl, 0), f.f64);
  Value *sq = ib_unary(&f.b, OP_SQRT, wide, NULL);
  Value *pw[2] = {sq, n};
  Value *p = op_result(op1(&f, OP_POWI, 2, pw, f.f64), 0);
  Value *isn = op_result(op1(&f, OP_ISNAN, 1, &p, f.i1), 0);
  Value *sel = ib_select(&f.b, isn, wide, p);
  Value *back = ib_unary(&f.b, OP_TRUNCF, sel, f.f32);
  Value *bits = ib_unary(&f.b, OP_BITCAST, back, f.u32);
  (void)ib_unary(&f.b, OP_POPC, bits, NULL);
  Value *t32 = ib_unary(&f.b, OP_TRUNCI, n, f.i32);
  (void)ib_unary(&f.b, OP_SITOFP, t32, f.f64);
  (void)ib_unary(&f.b, OP_FPTOUI, back, f.u32);
  (void)ib_const_int(&f.b, ty_int(f.ctx, 8, false), -128);
  (void)ib_const_int(&f.b, ty_int(f.ctx, 8, true), 255);
  Op *loc = op1(&f, OP_ALLOCA, 0, NULL, ty_array(f.ctx, f.i32, 2, 'C'));
  Attr sh2[2] = {attr_int(f.i64, 4), attr_int(f.i64, 4)};
  ir_op_set_attr(f.m, loc, "shape", attr_array(f.m, 2, sh2));
  Value *ds = op_result(op1(&f, OP_DYN_SHARED, 0, NULL, arr), 0);
  (void)op_result(op1(&f, OP_SIZE, 1, &ds, f.i64), 0);
  (void)op_result(op1(&f, OP_DATA, 1, &ds, ty_ptr(f.ctx, f.f32, 3)), 0);
  ret(&f, 0, NULL);
  expect_ok(&f);
  fx_free(&f);
}

/* Unstructured control flow: a loop with a back edge, forward references to later blocks, block
 * arguments, and an unreachable block that uses a value it is not dominated by. */
static void test_valid_cf(void) {
  Fx f;
  fx_init(&f, "valid_cf");
  Op *fn = func(&f, "count", 1, &f.i64, 1, &f.i64);
  Region *r = &fn->regions[0];
  Block *entry = ir_func_entry(fn);
  Block *header = ir_block_new(f.m), *body = ir_block_new(f.m), *exit = ir_block_new(f.m), *dead = ir_block_new(f.m);
  ir_region_append_block(r, dead); /* placed before the blocks it names */
  ir_region_append_block(r, header);
  ir_region_append_block(r, body);
  ir_region_append_block(r, exit);
  Value *n = entry->args[0];
  Value *hi = ir_block_add_arg(f.m, header, f.i64);
  Value *xr = ir_block_add_arg(f.m, exit, f.i64);
  Value *zero = ib_const_int(&f.b, f.i64, 0);
  Op *b0 = ib_op(&f.b, OP_BR, 1, &zero, 0, NULL, 0);
  unsigned one_arg = 1;
  ir_op_set_successors(f.m, b0, 1, &header, &one_arg);
  ib_set_end(&f.b, header);
  Value *lt = ib_cmpi(&f.b, IR_CMPI_SLT, hi, n);
  Value *cb[2] = {lt, hi};
  Op *cbr = ib_op(&f.b, OP_COND_BR, 2, cb, 0, NULL, 0);
  Block *succs[2] = {body, exit};
  unsigned counts[2] = {0, 1};
  ir_op_set_successors(f.m, cbr, 2, succs, counts);
  ib_set_end(&f.b, body);
  Value *next = ib_binary(&f.b, OP_ADDI, hi, ib_const_int(&f.b, f.i64, 1));
  Op *back = ib_op(&f.b, OP_BR, 1, &next, 0, NULL, 0);
  ir_op_set_successors(f.m, back, 1, &header, &one_arg);
  ib_set_end(&f.b, exit);
  ret(&f, 1, &xr);
  ib_set_end(&f.b, dead); /* unreachable: may use `next`, which does not dominate it */
  Value *dd = ib_binary(&f.b, OP_ADDI, next, next);
  Op *db = ib_op(&f.b, OP_BR, 1, &dd, 0, NULL, 0);
  ir_op_set_successors(f.m, db, 1, &exit, &one_arg);
  expect_ok(&f);

  /* the same function, checked alone */
  Diag d;
  diag_init(&d);
  CHECK(ir_verify_op(fn, &d));
  diag_free(&d);

  /* dominator tree of that CFG */
  DomTree *t = dom_compute(r);
  CHECK(dom_block_reachable(t, entry) && dom_block_reachable(t, header) && dom_block_reachable(t, exit));
  CHECK(!dom_block_reachable(t, dead));
  CHECK(dom_block_dominates(t, entry, exit));
  CHECK(dom_block_dominates(t, header, body));
  CHECK(dom_block_dominates(t, header, exit));
  CHECK(!dom_block_dominates(t, body, exit));
  CHECK(!dom_block_dominates(t, body, header));
  CHECK(dom_block_dominates(t, body, body));
  CHECK(!dom_block_dominates(t, entry, dead));
  CHECK(!dom_block_dominates(t, dead, exit));
  CHECK(!dom_idom(t, entry) && !dom_idom(t, dead));
  CHECK(dom_idom(t, header) == entry && dom_idom(t, body) == header && dom_idom(t, exit) == header);
  unsigned np;
  Block *const *pre = dom_preorder(t, &np); /* children in region order: body before exit */
  CHECK(np == 4 && pre[0] == entry && pre[1] == header && pre[2] == body && pre[3] == exit);
  dom_free(t);

  /* values across blocks, with and without a cache */
  DomCache *c = dom_cache_new();
  Op *ret_op = exit->last;
  CHECK(dom_value_dominates(c, hi, ret_op) && dom_value_dominates(NULL, hi, ret_op));
  CHECK(!dom_value_dominates(c, next, ret_op) && !dom_value_dominates(NULL, next, ret_op));
  CHECK(dom_value_dominates(c, next, db) && dom_value_dominates(NULL, next, db)); /* unreachable use */
  CHECK(dom_value_dominates(c, lt, cbr) && dom_value_dominates(NULL, lt, cbr));
  CHECK(!dom_value_dominates(c, next, next->def) && !dom_value_dominates(NULL, next, next->def));
  dom_cache_free(c);
  fx_free(&f);
}

/* Diamond: the join block is dominated by the entry only. */
static void test_dom_diamond(void) {
  Fx f;
  fx_init(&f, "dom_diamond");
  Op *fn = func(&f, "d", 1, &f.i1, 0, NULL);
  Region *r = &fn->regions[0];
  Block *e = ir_func_entry(fn), *l = ir_block_new(f.m), *rr = ir_block_new(f.m), *j = ir_block_new(f.m);
  ir_region_append_block(r, j); /* block order in the region must not matter */
  ir_region_append_block(r, rr);
  ir_region_append_block(r, l);
  Op *cbr = ib_op(&f.b, OP_COND_BR, 1, &e->args[0], 0, NULL, 0);
  Block *s[2] = {l, rr};
  ir_op_set_successors(f.m, cbr, 2, s, NULL);
  ib_set_end(&f.b, l);
  ir_op_set_successors(f.m, ib_op(&f.b, OP_BR, 0, NULL, 0, NULL, 0), 1, &j, NULL);
  ib_set_end(&f.b, rr);
  ir_op_set_successors(f.m, ib_op(&f.b, OP_BR, 0, NULL, 0, NULL, 0), 1, &j, NULL);
  ib_set_end(&f.b, j);
  ret(&f, 0, NULL);
  expect_ok(&f);
  DomTree *t = dom_compute(r);
  CHECK(dom_block_dominates(t, e, j) && dom_block_dominates(t, e, l) && dom_block_dominates(t, e, rr));
  CHECK(!dom_block_dominates(t, l, j) && !dom_block_dominates(t, rr, j) && !dom_block_dominates(t, l, rr));
  CHECK(!dom_block_dominates(t, j, e));
  CHECK(!dom_idom(t, e) && dom_idom(t, j) == e && dom_idom(t, l) == e && dom_idom(t, rr) == e);
  unsigned np;
  Block *const *pre = dom_preorder(t, &np); /* the region's order, not the order of the edges */
  CHECK(np == 4 && pre[0] == e && pre[1] == j && pre[2] == rr && pre[3] == l);
  dom_free(t);
  fx_free(&f);
}

/* ---- invalid IR: one mistake each --------------------------------------------------------------- */

/* Builds `func @f(i64, i32) -> ()` with the builder at its entry; the test adds the body and the return. */
static Op *fx_func2(Fx *f, const char *name) {
  fx_init(f, name);
  Type *p[2] = {f->i64, f->i32};
  return func(f, "f", 2, p, 0, NULL);
}

static void test_type_mismatch(void) {
  Fx f;
  Op *fn = fx_func2(&f, "type_mismatch");
  at(&f, 3);
  Block *e = ir_func_entry(fn);
  ib_binary(&f.b, OP_ADDI, e->args[0], e->args[1]);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:3:1: error: 'arith.addi' op operand types must match: i64 vs i32");
  fx_free(&f);
}

static void test_not_dominated_same_block(void) {
  Fx f;
  Op *fn = fx_func2(&f, "not_dominated_same_block");
  Block *e = ir_func_entry(fn);
  at(&f, 2);
  Value *a = ib_binary(&f.b, OP_ADDI, e->args[0], e->args[0]);
  at(&f, 3);
  Value *b = ib_binary(&f.b, OP_MULI, a, a);
  ir_op_set_operand(a->def, 1, b); /* %a = addi(%arg, %b) before %b is defined */
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:2:1: error: 'arith.addi' op operand #1 does not dominate this use");
  bool ok;
  unsigned n;
  char *text = verify(&f, &ok, &n);
  CHECK(strstr(text, "t.kir:3:1: note: operand #1 defined here") != NULL);
  free(text);
  /* an op using its own result */
  ir_op_set_operand(a->def, 1, a);
  expect_error(&f, "'arith.addi' op operand #1 does not dominate this use");
  fx_free(&f);
}

static void test_not_dominated_blocks(void) {
  Fx f;
  Op *fn = fx_func2(&f, "not_dominated_blocks");
  Block *e = ir_func_entry(fn), *b1 = ir_block_new(f.m), *b2 = ir_block_new(f.m);
  ir_region_append_block(&fn->regions[0], b1);
  ir_region_append_block(&fn->regions[0], b2);
  Value *c = ib_const_bool(&f.b, true);
  Op *cbr = ib_op(&f.b, OP_COND_BR, 1, &c, 0, NULL, 0);
  Block *s[2] = {b1, b2};
  ir_op_set_successors(f.m, cbr, 2, s, NULL);
  ib_set_end(&f.b, b1);
  Value *x = ib_binary(&f.b, OP_ADDI, e->args[0], e->args[0]);
  ir_op_set_successors(f.m, ib_op(&f.b, OP_BR, 0, NULL, 0, NULL, 0), 1, &b2, NULL);
  ib_set_end(&f.b, b2);
  at(&f, 9);
  ib_binary(&f.b, OP_MULI, x, e->args[0]);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:9:1: error: 'arith.muli' op operand #0 does not dominate this use");
  fx_free(&f);
}

static void test_value_from_other_func(void) {
  Fx f;
  Op *fn = fx_func2(&f, "value_from_other_func");
  Value *arg = ir_func_entry(fn)->args[0];
  ret(&f, 0, NULL);
  func(&f, "g", 0, NULL, 0, NULL);
  at(&f, 7);
  ib_binary(&f.b, OP_ADDI, arg, arg);
  ret(&f, 0, NULL);
  expect_errors(&f, 2, "t.kir:7:1: error: 'arith.addi' op operand #0 is defined outside the enclosing 'func.func'");
  fx_free(&f);
}

static void test_value_from_sibling_region(void) {
  Fx f;
  Op *fn = fx_func2(&f, "value_from_sibling_region");
  Value *arg = ir_func_entry(fn)->args[0];
  Value *c = ib_const_bool(&f.b, true);
  Op *iff = ib_op(&f.b, OP_IF, 1, &c, 0, NULL, 2);
  Block *t = ir_block_new(f.m), *e = ir_block_new(f.m);
  ir_region_append_block(&iff->regions[0], t);
  ir_region_append_block(&iff->regions[1], e);
  ib_set_end(&f.b, t);
  Value *inner = ib_binary(&f.b, OP_ADDI, arg, arg);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_end(&f.b, e);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_after(&f.b, iff);
  at(&f, 5);
  ib_binary(&f.b, OP_ADDI, inner, arg);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:5:1: error: 'arith.addi' op operand #0 is defined in a region that does not enclose this use");
  fx_free(&f);
}

static void test_missing_terminator(void) {
  Fx f;
  Op *fn = fx_func2(&f, "missing_terminator");
  Block *e = ir_func_entry(fn);
  at(&f, 4);
  ib_binary(&f.b, OP_ADDI, e->args[0], e->args[0]);
  expect_error(&f, "t.kir:4:1: error: 'arith.addi' op is not a terminator, but ends block #0 of region #0 of 'func.func'");
  fx_free(&f);
}

static void test_terminator_in_middle(void) {
  Fx f;
  Op *fn = fx_func2(&f, "terminator_in_middle");
  Block *e = ir_func_entry(fn);
  at(&f, 2);
  ret(&f, 0, NULL);
  at(&f, 3);
  ib_binary(&f.b, OP_ADDI, e->args[0], e->args[0]);
  at(&f, 4);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:2:1: error: 'func.return' op is a terminator but is not the last op of its block");
  fx_free(&f);
}

static void test_empty_block_and_region(void) {
  Fx f;
  fx_init(&f, "empty_block_and_region");
  Op *fn = func(&f, "f", 0, NULL, 0, NULL);
  (void)fn;
  expect_error(&f, "t.kir:1:1: error: 'func.func' op region #0 block #0 is empty; a block must end in a terminator");
  at(&f, 2);
  Value *c = ib_const_bool(&f.b, true);
  at(&f, 3);
  Op *iff = ib_op(&f.b, OP_IF, 1, &c, 0, NULL, 2);
  ir_region_append_block(&iff->regions[0], ir_block_new(f.m));
  ib_set_after(&f.b, iff);
  ret(&f, 0, NULL);
  expect_errors(&f, 2, "t.kir:3:1: error: 'scf.if' op region #1 is empty; it must hold a block");
  fx_free(&f);
}

static void test_wrong_region_count(void) {
  Fx f;
  fx_func2(&f, "wrong_region_count");
  Value *c = ib_const_bool(&f.b, true);
  at(&f, 6);
  Op *iff = ib_op(&f.b, OP_IF, 1, &c, 0, NULL, 1);
  Block *t = ir_block_new(f.m);
  ir_region_append_block(&iff->regions[0], t);
  ib_set_end(&f.b, t);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_after(&f.b, iff);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:6:1: error: 'scf.if' op expects 2 regions, got 1");
  fx_free(&f);
}

static void test_scf_region_blocks(void) {
  Fx f;
  Op *fn = fx_func2(&f, "scf_region_blocks");
  Value *arg = ir_func_entry(fn)->args[0];
  Value *one = ib_const_int(&f.b, f.i64, 1);
  Value *fo[3] = {arg, arg, one};
  at(&f, 4);
  Op *loop = ib_op(&f.b, OP_FOR, 3, fo, 0, NULL, 1);
  Block *b0 = ir_block_new(f.m), *b1 = ir_block_new(f.m);
  ir_region_append_block(&loop->regions[0], b0);
  ir_region_append_block(&loop->regions[0], b1);
  ir_block_add_arg(f.m, b0, f.i64);
  ib_set_end(&f.b, b0);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_end(&f.b, b1);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_after(&f.b, loop);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:4:1: error: 'scf.for' op region #0 must have exactly one block, has 2");
  fx_free(&f);
}

static void test_wrong_operand_count(void) {
  Fx f;
  Op *fn = fx_func2(&f, "wrong_operand_count");
  at(&f, 3);
  Type *i64 = f.i64;
  ib_op(&f.b, OP_ADDI, 1, &ir_func_entry(fn)->args[0], 1, &i64, 0);
  at(&f, 4);
  ib_op(&f.b, OP_BARRIER, 0, NULL, 1, &i64, 0);
  ret(&f, 0, NULL);
  expect_errors(&f, 2, "t.kir:3:1: error: 'arith.addi' op expects 2 operands, got 1");
  expect_errors(&f, 2, "t.kir:4:1: error: 'gpu.barrier' op expects 0 results, got 1");
  fx_free(&f);
}

static void test_null_operand(void) {
  Fx f;
  fx_func2(&f, "null_operand");
  at(&f, 3);
  Type *i64 = f.i64;
  ib_op(&f.b, OP_ADDI, 2, NULL, 1, &i64, 0);
  ret(&f, 0, NULL);
  expect_errors(&f, 2, "t.kir:3:1: error: 'arith.addi' op operand #1 is null");
  fx_free(&f);
}

static void test_attributes(void) {
  Fx f;
  Op *fn = fx_func2(&f, "attributes");
  Value *a = ir_func_entry(fn)->args[0];
  at(&f, 2);
  ir_op_set_attr(f.m, ib_cmpi(&f.b, IR_CMPI_SLT, a, a)->def, "pred", attr_str(f.m, "lt")); /* no such predicate */
  at(&f, 3);
  Value *cb = ib_cmpi(&f.b, IR_CMPI_SLT, ib_const_bool(&f.b, true), ib_const_bool(&f.b, false));
  at(&f, 4);
  Op *tid = ib_gpu_id(&f.b, OP_THREAD_ID, 3)->def;
  at(&f, 5);
  Type *i64 = f.i64;
  ib_op(&f.b, OP_CONSTANT, 0, NULL, 1, &i64, 0);
  at(&f, 6);
  Op *c8 = ib_op(&f.b, OP_CONSTANT, 0, NULL, 1, &i64, 0);
  ir_op_set_attr(f.m, c8, "value", attr_int(f.i32, 1));
  at(&f, 7);
  Type *i8 = ty_int(f.ctx, 8, false);
  Op *big = ib_op(&f.b, OP_CONSTANT, 0, NULL, 1, &i8, 0);
  ir_op_set_attr(f.m, big, "value", attr_int(i8, 300));
  at(&f, 8);
  Op *fc = ib_op(&f.b, OP_CONSTANT, 0, NULL, 1, &f.f32, 0);
  ir_op_set_attr(f.m, fc, "value", attr_int(f.f32, 1));
  at(&f, 9);
  ib_dim(&f.b, ib_const_int(&f.b, f.i64, 0), 0);
  at(&f, 10);
  Op *fence = ib_op(&f.b, OP_FENCE, 0, NULL, 0, NULL, 0);
  ir_op_set_attr(f.m, fence, "scope", attr_int(f.i64, 1));
  at(&f, 11);
  Value *signed_ns = ib_const_int(&f.b, f.i32, 100);
  ib_op(&f.b, OP_NANOSLEEP, 1, &signed_ns, 0, NULL, 0);
  ret(&f, 0, NULL);
  (void)cb;
  (void)tid;
  const char *msgs[] = {
      "t.kir:2:1: error: 'arith.cmpi' op attribute 'pred' must be one of eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge; got \"lt\"",
      "t.kir:3:1: error: 'arith.cmpi' op predicate \"slt\" does not apply to i1 (only eq and ne do)",
      "t.kir:4:1: error: 'gpu.thread_id' op attribute 'dim' must be 0, 1 or 2, got 3",
      "t.kir:5:1: error: 'arith.constant' op requires attribute 'value'",
      "t.kir:6:1: error: 'arith.constant' op attribute 'value' type must match the result type: i32 vs i64",
      "t.kir:7:1: error: 'arith.constant' op value 300 does not fit in i8",
      "t.kir:8:1: error: 'arith.constant' op attribute 'value' must be a float for result type f32",
      "t.kir:9:1: error: 'mem.dim' op operand #0 must be an array, got i64",
      "t.kir:10:1: error: 'gpu.fence' op attribute 'scope' must be a string",
      "t.kir:11:1: error: 'gpu.nanosleep' op duration (operand #0) must be u32 nanoseconds, got i32",
  };
  for (unsigned i = 0; i < sizeof msgs / sizeof *msgs; i++) expect_errors(&f, 10, msgs[i]);
  fx_free(&f);
}

static void test_successors(void) {
  Fx f;
  Op *fn = fx_func2(&f, "successors");
  Block *e = ir_func_entry(fn), *b1 = ir_block_new(f.m);
  ir_region_append_block(&fn->regions[0], b1);
  ir_block_add_arg(f.m, b1, f.i64);
  at(&f, 2);
  Op *br = ib_op(&f.b, OP_BR, 1, &e->args[1], 0, NULL, 0);
  unsigned one = 1;
  ir_op_set_successors(f.m, br, 1, &b1, &one);
  ib_set_end(&f.b, b1);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:2:1: error: 'cf.br' op type of operand #0 must match argument #0 of successor #0: i32 vs i64");
  ir_op_set_operands(f.m, br, 0, NULL);
  ir_op_set_successors(f.m, br, 1, &b1, NULL);
  expect_error(&f, "t.kir:2:1: error: 'cf.br' op passes 0 operands to successor #0, whose block has 1 argument");
  ir_op_set_successors(f.m, br, 1, &e, NULL);
  expect_error(&f, "'cf.br' op successor #0 is the entry block of its region");
  /* a successor in another function */
  Op *g = func(&f, "g", 0, NULL, 0, NULL);
  ret(&f, 0, NULL);
  Block *ge = ir_func_entry(g);
  ir_op_set_successors(f.m, br, 1, &ge, NULL);
  expect_error(&f, "'cf.br' op successor #0 is not a block of the op's own region");
  fx_free(&f);
}

static void test_return_and_call(void) {
  Fx f;
  fx_init(&f, "return_and_call");
  Op *callee = func(&f, "callee", 1, &f.i64, 1, &f.f32);
  at(&f, 2);
  ret(&f, 1, &ir_func_entry(callee)->args[0]);
  Op *caller = func(&f, "caller", 1, &f.i32, 0, NULL);
  Value *x = ir_func_entry(caller)->args[0];
  at(&f, 4);
  Op *c1 = op1(&f, OP_FUNC_CALL, 1, &x, f.f32);
  set_sym(&f, c1, "callee", "nope");
  at(&f, 5);
  Op *c2 = op1(&f, OP_FUNC_CALL, 1, &x, f.f32);
  set_sym(&f, c2, "callee", "callee");
  at(&f, 6);
  Op *r6 = ret(&f, 0, NULL);
  const char *msgs[] = {
      "t.kir:2:1: error: 'func.return' op type of operand #0 must match result #0 of the function type: i64 vs f32",
      "t.kir:4:1: error: 'func.call' op 'callee' refers to an undefined symbol @nope",
      "t.kir:5:1: error: 'func.call' op type of operand #0 must match parameter #0 of @callee: i32 vs i64",
  };
  for (unsigned i = 0; i < 3; i++) expect_errors(&f, 3, msgs[i]);
  ir_op_erase(c1);
  ir_op_erase(c2);
  ib_set_before(&f.b, r6);
  at(&f, 7);
  Op *c3 = ib_op(&f.b, OP_FUNC_CALL, 0, NULL, 0, NULL, 0);
  set_sym(&f, c3, "callee", "callee");
  expect_errors(&f, 3, "t.kir:7:1: error: 'func.call' op expects 1 operand to match the parameters of @callee, got 0");
  expect_errors(&f, 3, "t.kir:7:1: error: 'func.call' op expects 1 result to match the results of @callee, got 0");
  fx_free(&f);
}

static void test_memory(void) {
  Fx f;
  fx_init(&f, "memory");
  Type *a2 = ty_array(f.ctx, f.f32, 2, 'C');
  Op *fn = func(&f, "f", 1, &a2, 0, NULL);
  Value *a = ir_func_entry(fn)->args[0];
  Value *i = ib_const_int(&f.b, f.i64, 0), *j = ib_const_int(&f.b, f.i32, 0);
  at(&f, 3);
  Value *l1[2] = {a, i};
  op1(&f, OP_LOAD, 2, l1, f.f32);
  at(&f, 4);
  Value *l2[3] = {a, i, j};
  op1(&f, OP_LOAD, 3, l2, f.f32);
  at(&f, 5);
  Value *l3[3] = {a, i, i};
  op1(&f, OP_LOAD, 3, l3, f.f64);
  at(&f, 6);
  Value *s1[4] = {i, a, i, i};
  ib_op(&f.b, OP_STORE, 4, s1, 0, NULL, 0);
  at(&f, 7);
  Op *al = op1(&f, OP_ALLOCA, 0, NULL, a2);
  Attr ext[1] = {attr_int(f.i64, 4)};
  ir_op_set_attr(f.m, al, "shape", attr_array(f.m, 1, ext));
  at(&f, 8);
  Value *dim_a = a;
  Op *dm = op1(&f, OP_DIM, 1, &dim_a, f.i64);
  set_int(&f, dm, "axis", 2);
  ret(&f, 0, NULL);
  const char *msgs[] = {
      "t.kir:3:1: error: 'mem.load' op expects 2 index operands for array<f32, 2, C>, got 1",
      "t.kir:4:1: error: 'mem.load' op index (operand #2) must be i64, got i32",
      "t.kir:5:1: error: 'mem.load' op result type must be the element type of the array: f64 vs f32",
      "t.kir:6:1: error: 'mem.store' op stored value type must be the element type of the array: i64 vs f32",
      "t.kir:7:1: error: 'mem.alloca' op attribute 'shape' has 1 extent but the array type has rank 2",
      "t.kir:8:1: error: 'mem.dim' op attribute 'axis' (2) must be in [0, 2) for array<f32, 2, C>",
  };
  for (unsigned k = 0; k < 6; k++) expect_errors(&f, 6, msgs[k]);
  fx_free(&f);
}

static void test_globals(void) {
  Fx f;
  fx_init(&f, "globals");
  Type *a1 = ty_array(f.ctx, f.f32, 1, 'C');
  Op *gl = ir_op_create(f.m, OP_GLOBAL, srcloc("t.kir", 1, 1), 0, NULL, 0, NULL, 0);
  set_sym(&f, gl, "sym_name", "c");
  ir_op_set_attr(f.m, gl, "type", attr_type(a1));
  Attr ext[1] = {attr_int(f.i64, 2)};
  ir_op_set_attr(f.m, gl, "shape", attr_array(f.m, 1, ext));
  set_str(&f, gl, "space", "local");
  ir_block_append(ir_module_body(f.m), gl);
  ir_module_add_symbol(f.m, gl);
  func(&f, "f", 0, NULL, 0, NULL);
  at(&f, 3);
  Op *r1 = op1(&f, OP_GLOBAL_REF, 0, NULL, a1);
  set_sym(&f, r1, "name", "f");
  at(&f, 4);
  Op *r2 = op1(&f, OP_GLOBAL_REF, 0, NULL, ty_array(f.ctx, f.f64, 1, 'C'));
  set_sym(&f, r2, "name", "c");
  at(&f, 5);
  Op *r3 = op1(&f, OP_GLOBAL_REF, 0, NULL, a1);
  (void)r3;
  ret(&f, 0, NULL);
  const char *msgs[] = {
      "t.kir:1:1: error: 'mem.global' op attribute 'space' must be one of shared, const, captured; got \"local\"",
      "t.kir:3:1: error: 'mem.global_ref' op @f is a 'func.func', not a 'mem.global'",
      "t.kir:4:1: error: 'mem.global_ref' op result type must match the type of @c: array<f64, 1, C> vs array<f32, 1, C>",
      "t.kir:5:1: error: 'mem.global_ref' op requires attribute 'name'",
  };
  for (unsigned k = 0; k < 4; k++) expect_errors(&f, 4, msgs[k]);
  /* a const global with initial values */
  set_str(&f, gl, "space", "const");
  Attr vals[3] = {attr_float(f.f32, 1), attr_float(f.f32, 2), attr_float(f.f32, 3)};
  ir_op_set_attr(f.m, gl, "value", attr_array(f.m, 3, vals));
  expect_errors(&f, 4, "t.kir:1:1: error: 'mem.global' op attribute 'value' has 3 elements but the shape holds 2");
  fx_free(&f);
}

static void test_symbols_and_module_level(void) {
  Fx f;
  fx_init(&f, "symbols");
  func(&f, "f", 0, NULL, 0, NULL);
  ret(&f, 0, NULL);
  Op *dup = ir_op_create(f.m, OP_FUNC_FUNC, srcloc("t.kir", 5, 1), 0, NULL, 0, NULL, 1);
  set_sym(&f, dup, "sym_name", "f");
  ir_op_set_attr(f.m, dup, "function_type", attr_type(ty_func(f.ctx, 0, NULL, 0, NULL)));
  Block *b = ir_block_new(f.m);
  ir_region_append_block(&dup->regions[0], b);
  ib_set_end(&f.b, b);
  ret(&f, 0, NULL);
  ir_block_append(ir_module_body(f.m), dup);
  expect_error(&f, "t.kir:5:1: error: 'func.func' op redefines symbol @f");
  ir_op_unlink(dup);
  ib_set_end(&f.b, ir_module_body(f.m));
  at(&f, 9);
  ib_const_int(&f.b, f.i64, 1);
  expect_error(&f, "t.kir:9:1: error: 'arith.constant' op cannot be at module level");
  fx_free(&f);
}

static void test_casts(void) {
  Fx f;
  Op *fn = fx_func2(&f, "casts");
  Block *e = ir_func_entry(fn);
  Value *a = e->args[0], *b = e->args[1];
  at(&f, 2);
  ib_unary(&f.b, OP_EXTSI, a, f.i32);
  at(&f, 3);
  ib_unary(&f.b, OP_TRUNCI, b, f.i64);
  at(&f, 4);
  ib_unary(&f.b, OP_BITCAST, a, f.f32);
  at(&f, 5);
  ib_unary(&f.b, OP_SITOFP, ib_const_bool(&f.b, true), f.f32);
  at(&f, 6);
  ib_unary(&f.b, OP_EXTF, ib_const_float(&f.b, f.f64, 1), f.f32);
  at(&f, 7);
  ib_unary(&f.b, OP_NEGF, a, NULL);
  ret(&f, 0, NULL);
  const char *msgs[] = {
      "t.kir:2:1: error: 'arith.extsi' op result type must be wider than the operand type: i64 -> i32",
      "t.kir:3:1: error: 'arith.trunci' op result type must be narrower than the operand type: i32 -> i64",
      "t.kir:4:1: error: 'arith.bitcast' op operand and result must have the same width: i64 -> f32",
      "t.kir:5:1: error: 'arith.sitofp' op operand must be an integer, got i1",
      "t.kir:6:1: error: 'arith.extf' op result type must be wider than the operand type: f64 -> f32",
      "t.kir:7:1: error: 'arith.negf' op operand must be a float, got i64",
  };
  for (unsigned k = 0; k < 6; k++) expect_errors(&f, 6, msgs[k]);
  fx_free(&f);
}

static void test_scf(void) {
  Fx f;
  Op *fn = fx_func2(&f, "scf");
  Block *e = ir_func_entry(fn);
  Value *a = e->args[0], *b = e->args[1];
  Value *c = ib_const_bool(&f.b, true);
  Value *s = ib_const_float(&f.b, f.f32, 1);
  /* scf.if yielding f64 for an f32 result */
  at(&f, 3);
  Op *iff = op1(&f, OP_IF, 1, &c, f.f32);
  Block *t = ir_block_new(f.m), *el = ir_block_new(f.m);
  ir_region_append_block(&iff->regions[0], t);
  ir_region_append_block(&iff->regions[1], el);
  ib_set_end(&f.b, t);
  Value *d = ib_const_float(&f.b, f.f64, 1);
  at(&f, 4);
  ib_op(&f.b, OP_YIELD, 1, &d, 0, NULL, 0);
  ib_set_end(&f.b, el);
  ib_op(&f.b, OP_YIELD, 1, &s, 0, NULL, 0);
  ib_set_after(&f.b, iff);
  /* scf.for with an i32 bound and a mismatched carried value */
  Value *fo[4] = {a, b, a, s};
  at(&f, 7);
  Op *loop = op1(&f, OP_FOR, 4, fo, f.f32);
  Block *body = ir_block_new(f.m);
  ir_region_append_block(&loop->regions[0], body);
  ir_block_add_arg(f.m, body, f.i64);
  ir_block_add_arg(f.m, body, f.f32);
  ib_set_end(&f.b, body);
  ib_op(&f.b, OP_YIELD, 1, &s, 0, NULL, 0);
  ib_set_after(&f.b, loop);
  /* scf.while whose condition is not i1 */
  at(&f, 10);
  Op *wh = op1(&f, OP_WHILE, 1, &a, f.i64);
  Block *bf = ir_block_new(f.m), *af = ir_block_new(f.m);
  ir_region_append_block(&wh->regions[0], bf);
  ir_region_append_block(&wh->regions[1], af);
  Value *x = ir_block_add_arg(f.m, bf, f.i64);
  ib_set_end(&f.b, bf);
  Value *co[2] = {x, x};
  at(&f, 11);
  ib_op(&f.b, OP_CONDITION, 2, co, 0, NULL, 0);
  Value *y = ir_block_add_arg(f.m, af, f.i64);
  ib_set_end(&f.b, af);
  ib_op(&f.b, OP_YIELD, 1, &y, 0, NULL, 0);
  ib_set_after(&f.b, wh);
  /* a yield directly in a function */
  at(&f, 13);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  const char *msgs[] = {
      "t.kir:4:1: error: 'scf.yield' op type of operand #0 must match result #0 of the parent 'scf.if': f64 vs f32",
      "t.kir:7:1: error: 'scf.for' op upper bound (operand #1) must be i64, got i32",
      "t.kir:11:1: error: 'scf.condition' op operand #0 must be the i1 condition, got i64",
      "t.kir:13:1: error: 'scf.yield' op must end a region of 'scf.if', 'scf.for' or the after-region of 'scf.while', not in 'func.func'",
  };
  for (unsigned k = 0; k < 4; k++) expect_errors(&f, 4, msgs[k]);
  /* fix the bound; then the carried-value mismatch shows */
  ir_op_set_operand(loop, 1, a);
  ir_op_set_operand(loop, 3, a);
  expect_errors(&f, 4, "t.kir:7:1: error: 'scf.for' op type of result #0 must match operand #3 (the initial loop-carried values): f32 vs i64");
  fx_free(&f);
}

static void test_gpu(void) {
  Fx f;
  Op *fn = fx_func2(&f, "gpu");
  Block *e = ir_func_entry(fn);
  Type *a1 = ty_array(f.ctx, f.f32, 1, 'C');
  Value *arr = op_result(op1(&f, OP_DYN_SHARED, 0, NULL, a1), 0);
  Value *i = e->args[0], *v = ib_const_float(&f.b, f.f32, 1), *m = e->args[1];
  at(&f, 2);
  Value *ao[3] = {arr, i, v};
  Op *rmw = op1(&f, OP_ATOMIC_RMW, 3, ao, f.f32);
  set_str(&f, rmw, "kind", "xor");
  at(&f, 3);
  Value *so[4] = {m, v, m, i};
  Op *sh = op1(&f, OP_SHFL, 4, so, f.f32);
  set_str(&f, sh, "mode", "bfly");
  at(&f, 4);
  Value *vo[2] = {m, ib_const_bool(&f.b, true)};
  Op *vote = op1(&f, OP_VOTE, 2, vo, f.u32);
  set_str(&f, vote, "mode", "all");
  at(&f, 5);
  Value *co[4] = {arr, i, v, v};
  op1(&f, OP_ATOMIC_CAS, 4, co, f.f64);
  ret(&f, 0, NULL);
  const char *msgs[] = {
      "t.kir:2:1: error: 'gpu.atomic_rmw' op kind \"xor\" needs an integer array, got array<f32, 1, C>",
      "t.kir:3:1: error: 'gpu.shfl' op attribute 'mode' must be one of idx, up, down, xor; got \"bfly\"",
      "t.kir:4:1: error: 'gpu.vote' op result of vote \"all\" must be i1, got u32",
      "t.kir:5:1: error: 'gpu.atomic_cas' op result type must be the element type of the array: f64 vs f32",
  };
  for (unsigned k = 0; k < 4; k++) expect_errors(&f, 4, msgs[k]);
  fx_free(&f);
}

static void test_func_signature(void) {
  Fx f;
  Op *fn = fx_func2(&f, "func_signature");
  ir_block_erase_arg(ir_func_entry(fn), 1);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:1:1: error: 'func.func' op expects 2 entry block arguments to match the parameters of the function type, got 1");
  ir_op_remove_attr(fn, "function_type");
  expect_error(&f, "t.kir:1:1: error: 'func.func' op requires attribute 'function_type'");
  fx_free(&f);
}

/* ir_verify_op on an op not (yet) in a block: uses of outer values are not judged; its own rules are. */
static void test_detached(void) {
  Fx f;
  Op *fn = fx_func2(&f, "detached");
  Value *a = ir_func_entry(fn)->args[0];
  ret(&f, 0, NULL);
  Value *c = ib_const_bool(&f.b, true);
  ir_op_unlink(c->def);
  Op *iff = ir_op_create(f.m, OP_IF, srcloc("t.kir", 8, 1), 1, &c, 0, NULL, 2);
  Block *t = ir_block_new(f.m), *e = ir_block_new(f.m);
  ir_region_append_block(&iff->regions[0], t);
  ir_region_append_block(&iff->regions[1], e);
  ib_set_end(&f.b, t);
  ib_binary(&f.b, OP_ADDI, a, a);
  ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  ib_set_end(&f.b, e);
  Op *y = ib_op(&f.b, OP_YIELD, 0, NULL, 0, NULL, 0);
  Diag d;
  diag_init(&d);
  CHECK(ir_verify_op(iff, &d));
  CHECK(diag_errors(&d) == 0);
  at(&f, 9);
  ib_set_before(&f.b, y);
  ib_unary(&f.b, OP_EXTSI, a, f.i32);
  CHECK(!ir_verify_op(iff, &d));
  CHECK(diag_errors(&d) == 1);
  CHECK(strstr(diag_text(&d), "t.kir:9:1: error: 'arith.extsi' op result type must be wider") != NULL);
  diag_free(&d);
  fx_free(&f);
}

/* One broken op per function of a module: every one is reported, in order. */
static void test_keeps_going(void) {
  Fx f;
  fx_init(&f, "keeps_going");
  for (int k = 0; k < 5; k++) {
    char name[8];
    snprintf(name, sizeof name, "f%d", k);
    Op *fn = func(&f, name, 1, &f.i64, 0, NULL);
    at(&f, 10 + (unsigned)k);
    ib_unary(&f.b, OP_EXTSI, ir_func_entry(fn)->args[0], f.i32);
    ret(&f, 0, NULL);
  }
  bool ok;
  unsigned n;
  char *text = verify(&f, &ok, &n);
  CHECK(!ok && n == 5);
  const char *p = text;
  for (int k = 0; k < 5; k++) {
    char want[16];
    snprintf(want, sizeof want, "t.kir:%d:1", 10 + k);
    const char *q = strstr(p, want);
    CHECK(q != NULL);
    if (q) p = q;
  }
  free(text);
  fx_free(&f);
}

/* ---- scale: a long function and many nested loops verify in linear time ------------------------- */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_scale(void) {
  Fx f;
  fx_init(&f, "scale");
  Op *fn = func(&f, "big", 1, &f.i64, 0, NULL);
  Value *acc = ir_func_entry(fn)->args[0];
  Value *zero = ib_const_int(&f.b, f.i64, 0), *one = ib_const_int(&f.b, f.i64, 1);
  size_t nops = 0;
  for (int l = 0; l < 2000; l++) {
    Value *fo[4] = {zero, acc, one, acc};
    Op *loop = op1(&f, OP_FOR, 4, fo, f.i64);
    Block *body = ir_block_new(f.m);
    ir_region_append_block(&loop->regions[0], body);
    Value *iv = ir_block_add_arg(f.m, body, f.i64), *c = ir_block_add_arg(f.m, body, f.i64);
    ib_set_end(&f.b, body);
    for (int k = 0; k < 50; k++) c = ib_binary(&f.b, OP_ADDI, ib_binary(&f.b, OP_MULI, c, iv), acc);
    ib_op(&f.b, OP_YIELD, 1, &c, 0, NULL, 0);
    ib_set_after(&f.b, loop);
    acc = op_result(loop, 0);
    nops += 102;
  }
  ret(&f, 0, NULL);
  double t0 = now();
  expect_ok(&f);
  double dt = now() - t0;
  fprintf(stderr, "verified %zu ops in %.1f ms\n", nops, dt * 1e3);
  fx_free(&f);
}

/* The complex type and dialect: a valid use of every op, then each verifier rule once. */
static void test_complex(void) {
  Fx f;
  fx_init(&f, "complex");
  Type *c32 = ty_complex(f.ctx, f.f32), *c64 = ty_complex(f.ctx, f.f64);
  CHECK(ty_complex(f.ctx, f.f32) == c32 && c32 != c64 && ty_size(c32) == 8 && ty_size(c64) == 16);
  CHECK(ty_is_complex(c32) && ty_is_number(c32) && !ty_is_scalar(c32));
  StrBuf b;
  sb_init(&b);
  ty_print(c64, &b);
  CHECK(strcmp(sb_cstr(&b), "complex<f64>") == 0);
  size_t pos = 0;
  CHECK(ty_parse(f.ctx, "complex<f64>", 12, &pos) == c64 && pos == 12);
  pos = 0;
  CHECK(ty_parse(f.ctx, "complex<i32>", 12, &pos) == NULL && pos == 0);
  pos = 0;
  CHECK(ty_parse(f.ctx, "complex<f16>", 12, &pos) == NULL);
  sb_free(&b);
  Type *params[2] = {c32, f.f32};
  Op *fn = func(&f, "ok", 2, params, 1, &c32);
  Block *e = ir_func_entry(fn);
  Value *z = e->args[0], *x = e->args[1];
  Value *mk = op_result(op1(&f, OP_COMPLEX_CREATE, 2, (Value *[]){x, x}, c32), 0);
  Value *re = op_result(op1(&f, OP_COMPLEX_RE, 1, &z, f.f32), 0);
  op1(&f, OP_COMPLEX_IM, 1, &z, f.f32);
  op1(&f, OP_COMPLEX_ABS, 1, &z, f.f32);
  OpKind bins[] = {OP_COMPLEX_ADD, OP_COMPLEX_SUB, OP_COMPLEX_MUL, OP_COMPLEX_DIV, OP_COMPLEX_POW};
  Value *acc = mk;
  for (unsigned i = 0; i < sizeof bins / sizeof *bins; i++) acc = op_result(op1(&f, bins[i], 2, (Value *[]){acc, z}, c32), 0);
  acc = op_result(op1(&f, OP_COMPLEX_NEG, 1, &acc, c32), 0);
  acc = op_result(op1(&f, OP_COMPLEX_CONJ, 1, &acc, c32), 0);
  op1(&f, OP_COMPLEX_EQ, 2, (Value *[]){acc, z}, f.i1);
  op1(&f, OP_COMPLEX_NE, 2, (Value *[]){acc, z}, f.i1);
  (void)re;
  ret(&f, 1, &acc);
  expect_ok(&f);
  fx_free(&f);

  fx_init(&f, "complex_create_bad");
  c32 = ty_complex(f.ctx, f.f32), c64 = ty_complex(f.ctx, f.f64);
  params[0] = c32, params[1] = f.f32;
  fn = func(&f, "bad", 2, params, 0, NULL);
  at(&f, 2);
  op1(&f, OP_COMPLEX_CREATE, 2, (Value *[]){ir_func_entry(fn)->args[1], ir_func_entry(fn)->args[1]}, c64);
  ret(&f, 0, NULL);
  expect_error(&f, "t.kir:2:1: error: 'complex.create' op operand #0 must be f64, got f32");
  fx_free(&f);

  fx_init(&f, "complex_part_bad");
  c32 = ty_complex(f.ctx, f.f32), c64 = ty_complex(f.ctx, f.f64);
  params[0] = c32, params[1] = f.f32;
  fn = func(&f, "bad", 2, params, 0, NULL);
  at(&f, 2);
  op1(&f, OP_COMPLEX_RE, 1, &ir_func_entry(fn)->args[0], f.f64);
  ret(&f, 0, NULL);
  expect_error(&f, "'complex.re' op result must be f32, got f64");
  fx_free(&f);

  fx_init(&f, "complex_binary_bad");
  c32 = ty_complex(f.ctx, f.f32), c64 = ty_complex(f.ctx, f.f64);
  params[0] = c32, params[1] = f.f32;
  fn = func(&f, "bad", 2, params, 0, NULL);
  at(&f, 2);
  op1(&f, OP_COMPLEX_MUL, 2, (Value *[]){ir_func_entry(fn)->args[1], ir_func_entry(fn)->args[1]}, f.f32);
  ret(&f, 0, NULL);
  expect_error(&f, "'complex.mul' op operands must be complex, got f32");
  fx_free(&f);

  fx_init(&f, "complex_cmp_bad");
  c32 = ty_complex(f.ctx, f.f32), c64 = ty_complex(f.ctx, f.f64);
  params[0] = c32, params[1] = f.f32;
  fn = func(&f, "bad", 2, params, 0, NULL);
  at(&f, 2);
  op1(&f, OP_COMPLEX_EQ, 2, (Value *[]){ir_func_entry(fn)->args[0], ir_func_entry(fn)->args[0]}, c32);
  ret(&f, 0, NULL);
  expect_error(&f, "'complex.eq' op result must be i1, got complex<f32>");
  fx_free(&f);

  /* atomics need arrays of scalars */
  fx_init(&f, "complex_atomic_bad");
  c32 = ty_complex(f.ctx, f.f32);
  Type *arr = ty_array(f.ctx, c32, 1, 'C');
  Type *aparams[2] = {arr, c32};
  fn = func(&f, "bad", 2, aparams, 0, NULL);
  at(&f, 2);
  Value *i0 = ib_const_int(&f.b, f.i64, 0);
  Op *a = op1(&f, OP_ATOMIC_RMW, 3, (Value *[]){ir_func_entry(fn)->args[0], i0, ir_func_entry(fn)->args[1]}, c32);
  set_str(&f, a, "kind", "add");
  ret(&f, 0, NULL);
  expect_error(&f, "'gpu.atomic_rmw' op needs an array of scalars, got array<complex<f32>, 1, C>");
  fx_free(&f);
}

int main(void) {
  test_valid_structured();
  test_valid_cf();
  test_dom_diamond();
  test_type_mismatch();
  test_not_dominated_same_block();
  test_not_dominated_blocks();
  test_value_from_other_func();
  test_value_from_sibling_region();
  test_missing_terminator();
  test_terminator_in_middle();
  test_empty_block_and_region();
  test_wrong_region_count();
  test_scf_region_blocks();
  test_wrong_operand_count();
  test_null_operand();
  test_attributes();
  test_successors();
  test_return_and_call();
  test_memory();
  test_globals();
  test_symbols_and_module_level();
  test_casts();
  test_scf();
  test_gpu();
  test_func_signature();
  test_detached();
  test_keeps_going();
  test_scale();
  test_complex();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("ir_verify: all tests passed\n");
  return 0;
}
