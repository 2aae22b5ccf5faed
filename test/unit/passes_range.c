/* passes_range.c — unit tests of the range analysis as a query API (passes/range.h), the way a pass other
 * than bce uses it: at an op of its choosing, with the facts of the enclosing scf.if and scf.for pushed by
 * range_assume_context in a scope of its own, keyed by value pointers (no numbering done first).
 *   - inside `if t < a.size: for k in range(0, n):` the index t is below mem.dim(a) (one extent term for
 *     mem.size and mem.dim of a rank-1 array) and k + 1 <= n; outside that context neither is provable;
 *   - the else arm learns the negated condition; scopes pop what they pushed;
 *   - ranges: k in [0, ...] from the loop, t in [0, 1023] from CUDA's limits, a cached range is not reused
 *     once the fact stack changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime_test.h"
#include "passes/range.h"


static const char *text =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %n: i64):\n"
    "  %t = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %t64 = arith.extsi(%t) : (i32) -> (i64)\n"
    "  %size = mem.size(%a) : (array<f32, 1, C>) -> (i64)\n"
    "  %c = arith.cmpi(%t64, %size) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%c) ({\n"
    "    %lb = arith.constant() {value = 0} : () -> (i64)\n"
    "    %st = arith.constant() {value = 1} : () -> (i64)\n"
    "    scf.for(%lb, %n, %st) ({\n"
    "    ^bb0(%k: i64):\n"
    "      %n1 = mem.dim(%a) {axis = 0} : (array<f32, 1, C>) -> (i64)\n"
    "      check.bounds(%t64, %n1) {axis = 0} : (i64, i64) -> ()\n"
    "      scf.yield() : () -> ()\n"
    "    }) : (i64, i64, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    %n2 = mem.dim(%a) {axis = 0} : (array<f32, 1, C>) -> (i64)\n"
    "    check.bounds(%t64, %n2) {axis = 0} : (i64, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @k, function_type = (array<f32, 1, C>, i64) -> (), kernel} : () -> ()\n";

typedef struct Found {
  Op *checks[2];
  unsigned n;
} Found;

static bool find_checks(Op *op, void *user) {
  Found *f = user;
  if (op->kind == OP_BOUNDS && f->n < 2) f->checks[f->n++] = op;
  return true;
}

int main(void) {
  IrContext *ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  Module *m = ir_parse_module(ctx, &d, "range.kir", text, strlen(text));
  if (!m) {
    fprintf(stderr, "%s", diag_text(&d));
    return 1;
  }
  Found f = {{0}, 0};
  ir_walk_module(m, find_checks, &f);
  CHECK(f.n == 2);
  if (f.n != 2) return 1;
  Op *inner = f.checks[0], *other = f.checks[1];
  Value *t64 = op_operand(inner, 0), *n1 = op_operand(inner, 1), *n2 = op_operand(other, 1);
  Op *loop = ir_block_parent_op(inner->block);
  Value *k = loop->regions[0].first->args[0], *n = op_operand(loop, 1);

  RangeAnalysis *ra = range_analysis_new(m);
  /* no context: t may be at or past the extent, k may be anything below n only inside the loop */
  CHECK(range_prove_le(ra, NULL, t64, 0));        /* a thread id is never negative */
  CHECK(!range_prove_le(ra, t64, n1, 1));
  CHECK(!range_prove_le(ra, k, n, 1));
  Range rt = range_of_value(ra, t64);
  CHECK(rt.lo == 0 && rt.hi == 1023);

  RangeMark mk = range_scope_open(ra);
  range_assume_context(ra, inner);
  CHECK(range_prove_le(ra, t64, n1, 1));           /* t < a.size, and a.size is a.shape[0] */
  CHECK(range_prove_le(ra, t64, n2, 1));           /* any mem.dim(a){axis 0} is the same term */
  CHECK(range_prove_le(ra, k, n, 1));
  CHECK(range_prove_le(ra, NULL, k, 0));
  CHECK(!range_prove_le(ra, n1, t64, 0));          /* the facts do not say the opposite */
  range_scope_close(ra, mk);
  CHECK(!range_prove_le(ra, t64, n1, 1));          /* popped */
  CHECK(!range_prove_le(ra, k, n, 1));

  mk = range_scope_open(ra);
  range_assume_context(ra, other);                 /* else arm: t >= a.size */
  CHECK(range_prove_le(ra, n2, t64, 0));
  CHECK(!range_prove_le(ra, t64, n2, 1));
  range_scope_close(ra, mk);

  /* a range is recomputed under new facts: t < 7 narrows it */
  Value *seven = NULL;
  {
    IrBuilder b;
    ib_init(&b, m);
    ib_set_before(&b, inner);
    seven = ib_const_int(&b, ty_i64(ctx), 7);
  }
  mk = range_scope_open(ra);
  range_assume_le(ra, t64, seven, 1);
  rt = range_of_value(ra, t64);
  CHECK(rt.lo == 0 && rt.hi == 6);
  range_scope_close(ra, mk);
  rt = range_of_value(ra, t64);
  CHECK(rt.lo == 0 && rt.hi == 1023);

  range_analysis_free(ra);
  ir_module_free(m);
  diag_free(&d);
  ir_context_free(ctx);
  return test_result("passes_range");
}
