/* api_builder.c — the kir builder API (include/kfront/kir.h), every entry point.
 *
 *  build     kernels built through the builder only, verified, printed (the text checked where the SSA
 *            construction decides something: carried values, scf results, block arguments, trivial phis
 *            removed), and run on the simulator through kf_program_from_module: saxpy (scf.for over a
 *            variable), a sum with an scf.if inside an scf.for, a while loop of cf blocks whose loop header gets
 *            block arguments for two variables (Braun's phis), an scf.while (kf_build_while_*) carrying variables
 *            assigned in its condition and in its body, a block sum in a shared array (kf_build_shared_array)
 *            with a barrier and an atomic add, and a device function called from a kernel;
 *  types     every type constructor, parse and print, and their bad input;
 *  errors    bad input to each entry point: the status and a diagnostic located at the builder's location in
 *            the embedder's own file, quoting its line with a caret (kf_context_add_source); a read before any
 *            assignment (straight, in a loop's first iteration, after an if that assigns on one side, at a
 *            cf join one of whose paths does not assign, after a while loop whose body alone assigns);
 *  report    kf_context_report: the embedder's own diagnostics, rendered and kinded as kfront's;
 *  oom       the build scenario under an allocator that fails its Nth call, for every N: the call that fails
 *            returns KF_ERROR_OUT_OF_MEMORY, reported, later calls on the spent builder too, and destroying
 *            everything leaves no block allocated. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kir.h"
#include "runtime_test.h"

#define OK(call) CHECK((call) == KF_OK)

static kf_type *scalar(kf_context *ctx, kf_dtype d) {
  kf_type *t = NULL;
  OK(kf_type_scalar(ctx, d, &t));
  return t;
}

static kf_type *array1(kf_context *ctx, kf_dtype d) {
  kf_type *t = NULL;
  OK(kf_type_array(ctx, scalar(ctx, d), 1, 'A', &t));
  return t;
}

static kf_location at(unsigned line, unsigned col) { return (kf_location){"kernels.kl", line, col}; }

/* ---- the build scenario ------------------------------------------------------------------------ */

/* Everything the scenario builds; each step's status goes to *st, stopping at the first failure. */
typedef struct Build {
  kf_context *ctx;
  kf_module *m;
  kf_builder *b;
  kf_status st;
} Build;

#define STEP(B, call)                     \
  do {                                    \
    if ((B)->st == KF_OK) (B)->st = (call); \
  } while (0)

/* A scalar type, the step's status recorded (the allocator may fail in the oom scenario). */
static kf_type *type_of(Build *B, kf_dtype d) {
  kf_type *t = NULL;
  STEP(B, kf_type_scalar(B->ctx, d, &t));
  return t;
}

static kf_type *array_of(Build *B, kf_dtype d) {
  kf_type *t = NULL, *e = type_of(B, d);
  STEP(B, kf_type_array(B->ctx, e, 1, 'A', &t));
  return t;
}

/* The global index i = block_id * block_dim + thread_id, as an i64. */
static kf_ir_value *global_index(Build *B) {
  kf_builder *b = B->b;
  kf_ir_value *tid = NULL, *bid = NULL, *bdim = NULL, *m = NULL, *s = NULL, *i = NULL;
  STEP(B, kf_build_gpu_index(b, "gpu.thread_id", 0, &tid));
  STEP(B, kf_build_gpu_index(b, "gpu.block_id", 0, &bid));
  STEP(B, kf_build_gpu_index(b, "gpu.block_dim", 0, &bdim));
  kf_ir_value *mo[2] = {bid, bdim};
  STEP(B, kf_build_simple(b, "arith.muli", 2, mo, NULL, &m));
  kf_ir_value *ao[2] = {m, tid};
  STEP(B, kf_build_simple(b, "arith.addi", 2, ao, NULL, &s));
  STEP(B, kf_build_cast(b, s, type_of(B, KF_INT64), &i));
  return i;
}

/* saxpy(a, x, y, n): for k in range(i, n, stride): y[k] = a * x[k] + y[k], with `acc` a variable the loop
 * assigns (carried) and `a2` one it only reads (not carried). */
static void build_saxpy(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *f32 = type_of(B, KF_FLOAT32), *i64 = type_of(B, KF_INT64), *arr = array_of(B, KF_FLOAT32);
  kf_type *params[4] = {f32, arr, arr, i64}, *fn = NULL;
  STEP(B, kf_type_function(ctx, 4, params, 0, NULL, &fn));
  kf_op *func = NULL;
  STEP(B, kf_builder_set_location(b, at(1, 1)));
  STEP(B, kf_build_function(b, "saxpy", fn, KF_FUNCTION_FLAG_KERNEL, &func));
  if (B->st != KF_OK) return;
  kf_block *entry = kf_function_entry(func);
  kf_ir_value *a = kf_block_arg(entry, 0), *x = kf_block_arg(entry, 1), *y = kf_block_arg(entry, 2);
  kf_ir_value *n = kf_block_arg(entry, 3);
  kf_var *a2 = NULL, *count = NULL;
  STEP(B, kf_builder_set_location(b, at(2, 3)));
  STEP(B, kf_var_declare(b, "a2", f32, &a2));
  STEP(B, kf_var_set(b, a2, a));
  kf_ir_value *zero = NULL, *one = NULL;
  STEP(B, kf_build_constant_int(b, i64, 0, &zero));
  STEP(B, kf_build_constant_int(b, i64, 1, &one));
  STEP(B, kf_var_declare(b, "count", i64, &count));
  STEP(B, kf_var_set(b, count, zero));
  kf_ir_value *i = global_index(B), *gdim = NULL, *bdim = NULL, *stride = NULL, *k = NULL;
  STEP(B, kf_build_gpu_index(b, "gpu.grid_dim", 0, &gdim));
  STEP(B, kf_build_gpu_index(b, "gpu.block_dim", 0, &bdim));
  kf_ir_value *so[2] = {gdim, bdim};
  STEP(B, kf_build_simple(b, "arith.muli", 2, so, NULL, &stride));
  STEP(B, kf_build_cast(b, stride, i64, &stride));
  STEP(B, kf_builder_set_location(b, at(3, 3)));
  STEP(B, kf_build_for_begin(b, i, n, stride, &k));
  kf_ir_value *xv = NULL, *yv = NULL, *av = NULL, *p = NULL, *s = NULL, *c = NULL, *c1 = NULL;
  STEP(B, kf_builder_set_location(b, at(4, 5)));
  STEP(B, kf_build_load(b, x, 1, &k, &xv));
  STEP(B, kf_build_load(b, y, 1, &k, &yv));
  STEP(B, kf_var_get(b, a2, &av));
  kf_ir_value *po[2] = {av, xv};
  STEP(B, kf_build_simple(b, "arith.mulf", 2, po, NULL, &p));
  kf_ir_value *ao[2] = {p, yv};
  STEP(B, kf_build_simple(b, "arith.addf", 2, ao, NULL, &s));
  STEP(B, kf_build_store(b, s, y, 1, &k));
  STEP(B, kf_var_get(b, count, &c));
  kf_ir_value *co[2] = {c, one};
  STEP(B, kf_build_simple(b, "arith.addi", 2, co, NULL, &c1));
  STEP(B, kf_var_set(b, count, c1));
  kf_op *loop = NULL;
  STEP(B, kf_build_for_end(b, &loop));
  if (B->st == KF_OK) CHECK(kf_op_num_results(loop) == 1 && strcmp(kf_op_name(loop), "scf.for") == 0);
  STEP(B, kf_builder_set_location(b, at(6, 3)));
  STEP(B, kf_build_return(b, 0, NULL));
}

/* total(x, out, n): out[0] = sum of the positive x[k] (one thread), with an scf.if in an scf.for: `s` a result of
 * the if and carried by the loop. */
static void build_total(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *f32 = type_of(B, KF_FLOAT32), *i64 = type_of(B, KF_INT64), *arr = array_of(B, KF_FLOAT32);
  kf_type *params[3] = {arr, arr, i64}, *fn = NULL;
  STEP(B, kf_type_function(ctx, 3, params, 0, NULL, &fn));
  kf_op *func = NULL;
  STEP(B, kf_builder_set_location(b, at(10, 1)));
  STEP(B, kf_build_function(b, "total", fn, KF_FUNCTION_FLAG_KERNEL, &func));
  if (B->st != KF_OK) return;
  kf_block *entry = kf_function_entry(func);
  kf_ir_value *x = kf_block_arg(entry, 0), *out = kf_block_arg(entry, 1), *n = kf_block_arg(entry, 2);
  kf_var *s = NULL;
  kf_ir_value *fz = NULL, *zero = NULL, *one = NULL, *k = NULL, *xv = NULL, *pos = NULL, *sv = NULL, *sum = NULL;
  STEP(B, kf_var_declare(b, "s", f32, &s));
  STEP(B, kf_build_constant_float(b, f32, 0.0, &fz));
  STEP(B, kf_var_set(b, s, fz));
  STEP(B, kf_build_constant_int(b, i64, 0, &zero));
  STEP(B, kf_build_constant_int(b, i64, 1, &one));
  STEP(B, kf_build_for_begin(b, zero, n, one, &k));
  STEP(B, kf_build_load(b, x, 1, &k, &xv));
  STEP(B, kf_build_compare(b, "ogt", xv, fz, &pos));
  STEP(B, kf_build_if_begin(b, pos));
  STEP(B, kf_var_get(b, s, &sv));
  kf_ir_value *ao[2] = {sv, xv};
  STEP(B, kf_build_simple(b, "arith.addf", 2, ao, NULL, &sum));
  STEP(B, kf_var_set(b, s, sum));
  kf_op *iff = NULL;
  STEP(B, kf_build_if_end(b, &iff));
  if (B->st == KF_OK) CHECK(kf_op_num_results(iff) == 1);
  STEP(B, kf_build_for_end(b, NULL));
  kf_ir_value *final = NULL;
  STEP(B, kf_var_get(b, s, &final));
  STEP(B, kf_build_store(b, final, out, 1, &zero));
  STEP(B, kf_build_return(b, 0, NULL));
}

/* collatz(out, n0): steps = 0; v = n0; while v != 1: v = v even ? v / 2 : 3v + 1; steps += 1; out[0] = steps —
 * cf blocks: the loop header gets one block argument per variable (v, steps), the body's if/else joins in a
 * block with one argument (v) and none for steps (assigned before the branch: a trivial phi). */
static void build_collatz(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *i64 = type_of(B, KF_INT64), *arr = NULL;
  STEP(B, kf_type_array(ctx, i64, 1, 'C', &arr));
  kf_type *params[2] = {arr, i64}, *fn = NULL;
  STEP(B, kf_type_function(ctx, 2, params, 0, NULL, &fn));
  kf_op *func = NULL;
  STEP(B, kf_builder_set_location(b, at(20, 1)));
  STEP(B, kf_build_function(b, "collatz", fn, KF_FUNCTION_FLAG_KERNEL, &func));
  if (B->st != KF_OK) return;
  kf_region *body = kf_op_region(func, 0);
  kf_block *entry = kf_function_entry(func), *head = NULL, *loop = NULL, *even = NULL, *odd = NULL, *join = NULL,
           *done = NULL;
  kf_ir_value *out = kf_block_arg(entry, 0);
  kf_var *v = NULL, *steps = NULL;
  kf_ir_value *zero = NULL, *one = NULL, *two = NULL, *three = NULL;
  STEP(B, kf_var_declare(b, "v", i64, &v));
  STEP(B, kf_var_declare(b, "steps", i64, &steps));
  STEP(B, kf_var_set(b, v, kf_block_arg(entry, 1)));
  STEP(B, kf_build_constant_int(b, i64, 0, &zero));
  STEP(B, kf_build_constant_int(b, i64, 1, &one));
  STEP(B, kf_build_constant_int(b, i64, 2, &two));
  STEP(B, kf_build_constant_int(b, i64, 3, &three));
  STEP(B, kf_var_set(b, steps, zero));
  STEP(B, kf_block_create(b, body, &head));
  STEP(B, kf_block_create(b, body, &loop));
  STEP(B, kf_block_create(b, body, &even));
  STEP(B, kf_block_create(b, body, &odd));
  STEP(B, kf_block_create(b, body, &join));
  STEP(B, kf_block_create(b, body, &done));
  STEP(B, kf_build_br(b, head, 0, NULL));
  /* head: v != 1 ? loop : done (unsealed until the back edge) */
  kf_ir_value *vv = NULL, *more = NULL;
  STEP(B, kf_builder_set_insertion_end(b, head));
  STEP(B, kf_var_get(b, v, &vv));
  STEP(B, kf_build_compare(b, "ne", vv, one, &more));
  STEP(B, kf_build_cond_br(b, more, loop, 0, NULL, done, 0, NULL));
  STEP(B, kf_block_seal(b, loop));
  STEP(B, kf_block_seal(b, done));
  /* loop: steps += 1; v % 2 == 0 ? even : odd */
  kf_ir_value *st = NULL, *st1 = NULL, *r = NULL, *ev = NULL;
  STEP(B, kf_builder_set_insertion_end(b, loop));
  STEP(B, kf_var_get(b, steps, &st));
  kf_ir_value *so[2] = {st, one};
  STEP(B, kf_build_simple(b, "arith.addi", 2, so, NULL, &st1));
  STEP(B, kf_var_set(b, steps, st1));
  STEP(B, kf_var_get(b, v, &vv));
  kf_ir_value *ro[2] = {vv, two};
  STEP(B, kf_build_simple(b, "arith.remsi", 2, ro, NULL, &r));
  STEP(B, kf_build_compare(b, "eq", r, zero, &ev));
  STEP(B, kf_build_cond_br(b, ev, even, 0, NULL, odd, 0, NULL));
  STEP(B, kf_block_seal(b, even));
  STEP(B, kf_block_seal(b, odd));
  kf_ir_value *h = NULL, *t = NULL, *t1 = NULL;
  STEP(B, kf_builder_set_insertion_end(b, even));
  STEP(B, kf_var_get(b, v, &vv));
  kf_ir_value *ho[2] = {vv, two};
  STEP(B, kf_build_simple(b, "arith.divsi", 2, ho, NULL, &h));
  STEP(B, kf_var_set(b, v, h));
  STEP(B, kf_build_br(b, join, 0, NULL));
  STEP(B, kf_builder_set_insertion_end(b, odd));
  STEP(B, kf_var_get(b, v, &vv));
  kf_ir_value *to[2] = {vv, three};
  STEP(B, kf_build_simple(b, "arith.muli", 2, to, NULL, &t));
  kf_ir_value *t1o[2] = {t, one};
  STEP(B, kf_build_simple(b, "arith.addi", 2, t1o, NULL, &t1));
  STEP(B, kf_var_set(b, v, t1));
  STEP(B, kf_build_br(b, join, 0, NULL));
  STEP(B, kf_block_seal(b, join));
  STEP(B, kf_builder_set_insertion_end(b, join));
  STEP(B, kf_build_br(b, head, 0, NULL));
  STEP(B, kf_block_seal(b, head));
  kf_ir_value *fin = NULL;
  STEP(B, kf_builder_set_insertion_end(b, done));
  STEP(B, kf_var_get(b, steps, &fin));
  STEP(B, kf_build_store(b, fin, out, 1, &zero));
  STEP(B, kf_build_return(b, 0, NULL));
  if (B->st == KF_OK) {
    CHECK(kf_block_num_args(head) == 2); /* v and steps */
    CHECK(kf_block_num_args(join) == 1); /* v; steps was trivial */
    CHECK(kf_block_num_args(loop) == 0 && kf_block_num_args(done) == 0);
  }
}

/* wsum(out, n): i = 0; j = 0; s = 0; k = 3; while (j = j + 1, i < n) { t = i * k; if (t % 2 == 0) s = s + t;
 * i = i + 1; } out = [s, i, j] — scf.while through kf_build_while_*: i, j and s carried (j assigned in the
 * condition's region, s only in the body), k only read (not carried), t the body's own (neither). */
static void build_while(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *i64 = type_of(B, KF_INT64), *arr = NULL;
  STEP(B, kf_type_array(ctx, i64, 1, 'C', &arr));
  kf_type *params[2] = {arr, i64}, *fn = NULL;
  STEP(B, kf_type_function(ctx, 2, params, 0, NULL, &fn));
  kf_op *func = NULL, *loop = NULL;
  STEP(B, kf_builder_set_location(b, at(30, 1)));
  STEP(B, kf_build_function(b, "wsum", fn, KF_FUNCTION_FLAG_KERNEL, &func));
  if (B->st != KF_OK) return;
  kf_ir_value *out = kf_block_arg(kf_function_entry(func), 0), *n = kf_block_arg(kf_function_entry(func), 1);
  kf_var *i = NULL, *j = NULL, *s = NULL, *k = NULL, *t = NULL;
  kf_ir_value *zero = NULL, *one = NULL, *two = NULL, *three = NULL, *v = NULL, *w = NULL, *x = NULL, *c = NULL;
  STEP(B, kf_build_constant_int(b, i64, 0, &zero));
  STEP(B, kf_build_constant_int(b, i64, 1, &one));
  STEP(B, kf_build_constant_int(b, i64, 2, &two));
  STEP(B, kf_build_constant_int(b, i64, 3, &three));
  STEP(B, kf_var_declare(b, "i", i64, &i));
  STEP(B, kf_var_declare(b, "j", i64, &j));
  STEP(B, kf_var_declare(b, "s", i64, &s));
  STEP(B, kf_var_declare(b, "k", i64, &k));
  STEP(B, kf_var_set(b, i, zero));
  STEP(B, kf_var_set(b, j, zero));
  STEP(B, kf_var_set(b, s, zero));
  STEP(B, kf_var_set(b, k, three));
  STEP(B, kf_builder_set_location(b, at(31, 3)));
  STEP(B, kf_build_while_begin(b));
  STEP(B, kf_var_get(b, j, &v));
  kf_ir_value *jo[2] = {v, one};
  STEP(B, kf_build_simple(b, "arith.addi", 2, jo, NULL, &w));
  STEP(B, kf_var_set(b, j, w));
  STEP(B, kf_var_get(b, i, &v));
  STEP(B, kf_build_compare(b, "slt", v, n, &c));
  STEP(B, kf_build_while_do(b, c));
  STEP(B, kf_var_declare(b, "t", i64, &t));
  STEP(B, kf_var_get(b, i, &v));
  STEP(B, kf_var_get(b, k, &w));
  kf_ir_value *to[2] = {v, w};
  STEP(B, kf_build_simple(b, "arith.muli", 2, to, NULL, &x));
  STEP(B, kf_var_set(b, t, x));
  kf_ir_value *ro[2] = {x, two};
  STEP(B, kf_build_simple(b, "arith.remsi", 2, ro, NULL, &x));
  STEP(B, kf_build_compare(b, "eq", x, zero, &c));
  STEP(B, kf_build_if_begin(b, c));
  STEP(B, kf_var_get(b, s, &v));
  STEP(B, kf_var_get(b, t, &w));
  kf_ir_value *so[2] = {v, w};
  STEP(B, kf_build_simple(b, "arith.addi", 2, so, NULL, &x));
  STEP(B, kf_var_set(b, s, x));
  STEP(B, kf_build_if_end(b, NULL));
  STEP(B, kf_var_get(b, i, &v));
  kf_ir_value *io[2] = {v, one};
  STEP(B, kf_build_simple(b, "arith.addi", 2, io, NULL, &x));
  STEP(B, kf_var_set(b, i, x));
  STEP(B, kf_build_while_end(b, &loop));
  if (B->st == KF_OK) CHECK(strcmp(kf_op_name(loop), "scf.while") == 0 && kf_op_num_results(loop) == 3);
  kf_var *vars[3] = {s, i, j};
  for (int64_t q = 0; q < 3; q++) {
    kf_ir_value *idx = NULL;
    STEP(B, kf_build_constant_int(b, i64, q, &idx));
    STEP(B, kf_var_get(b, vars[q], &v));
    STEP(B, kf_build_store(b, v, out, 1, &idx));
  }
  STEP(B, kf_build_return(b, 0, NULL));
}

/* bsum(x, out): each block of 32 threads puts its x[i] into a shared array (kf_build_shared_array), waits
 * (gpu.barrier), and its thread 0 adds the 32 up and atomically adds the block's sum to out[0] (gpu.atomic_rmw). */
static void build_bsum(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *f32 = type_of(B, KF_FLOAT32), *i64 = type_of(B, KF_INT64), *arr = array_of(B, KF_FLOAT32);
  kf_type *params[2] = {arr, arr}, *fn = NULL;
  STEP(B, kf_type_function(ctx, 2, params, 0, NULL, &fn));
  kf_op *func = NULL;
  STEP(B, kf_builder_set_location(b, at(40, 1)));
  STEP(B, kf_build_function(b, "bsum", fn, KF_FUNCTION_FLAG_KERNEL, &func));
  if (B->st != KF_OK) return;
  kf_ir_value *x = kf_block_arg(kf_function_entry(func), 0), *out = kf_block_arg(kf_function_entry(func), 1);
  kf_ir_value *buf = NULL, *tid = NULL, *i = global_index(B), *v = NULL, *zero = NULL, *one = NULL, *n = NULL;
  kf_ir_value *first = NULL, *k = NULL, *e = NULL, *sv = NULL, *sum = NULL, *fz = NULL;
  int64_t shape[1] = {32};
  STEP(B, kf_build_shared_array(b, "bsum.buf", f32, 1, shape, &buf));
  STEP(B, kf_build_gpu_index(b, "gpu.thread_id", 0, &tid));
  STEP(B, kf_build_cast(b, tid, i64, &tid));
  STEP(B, kf_build_load(b, x, 1, &i, &v));
  STEP(B, kf_build_store(b, v, buf, 1, &tid));
  kf_op_state barrier = {.name = "gpu.barrier"};
  STEP(B, kf_build_op(b, &barrier, NULL));
  STEP(B, kf_build_constant_int(b, i64, 0, &zero));
  STEP(B, kf_build_constant_int(b, i64, 1, &one));
  STEP(B, kf_build_constant_int(b, i64, 32, &n));
  STEP(B, kf_build_compare(b, "eq", tid, zero, &first));
  STEP(B, kf_build_if_begin(b, first));
  kf_var *s = NULL;
  STEP(B, kf_var_declare(b, "s", f32, &s));
  STEP(B, kf_build_constant_float(b, f32, 0.0, &fz));
  STEP(B, kf_var_set(b, s, fz));
  STEP(B, kf_build_for_begin(b, zero, n, one, &k));
  STEP(B, kf_build_load(b, buf, 1, &k, &e));
  STEP(B, kf_var_get(b, s, &sv));
  kf_ir_value *ao[2] = {sv, e};
  STEP(B, kf_build_simple(b, "arith.addf", 2, ao, NULL, &sum));
  STEP(B, kf_var_set(b, s, sum));
  STEP(B, kf_build_for_end(b, NULL));
  STEP(B, kf_var_get(b, s, &sv));
  kf_attr *kind = NULL;
  STEP(B, kf_attr_string(b, "add", &kind));
  kf_named_attr na = {"kind", kind};
  kf_ir_value *rmw[3] = {out, zero, sv};
  kf_op_state add = {.name = "gpu.atomic_rmw", .noperands = 3, .operands = rmw, .nresults = 1, .result_types = &f32,
                     .nattrs = 1, .attrs = &na};
  STEP(B, kf_build_op(b, &add, NULL));
  STEP(B, kf_build_if_end(b, NULL));
  STEP(B, kf_build_return(b, 0, NULL));
}

/* twice(x) = x + x, a device function; call2(a): a[0] = twice(a[0]) */
static void build_call(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *f64 = type_of(B, KF_FLOAT64), *arr = NULL, *ft = NULL, *kt = NULL;
  STEP(B, kf_type_array(ctx, f64, 1, 'C', &arr));
  STEP(B, kf_type_function(ctx, 1, &f64, 1, &f64, &ft));
  STEP(B, kf_type_function(ctx, 1, &arr, 0, NULL, &kt));
  kf_op *twice = NULL, *kern = NULL, *call = NULL;
  STEP(B, kf_build_function(b, "twice", ft, KF_FUNCTION_FLAG_DEVICE, &twice));
  if (B->st != KF_OK) return;
  kf_ir_value *x = kf_block_arg(kf_function_entry(twice), 0), *s = NULL;
  kf_ir_value *xo[2] = {x, x};
  STEP(B, kf_build_simple(b, "arith.addf", 2, xo, NULL, &s));
  STEP(B, kf_build_return(b, 1, &s));
  STEP(B, kf_build_function(b, "call2", kt, KF_FUNCTION_FLAG_KERNEL, &kern));
  if (B->st != KF_OK) return;
  kf_ir_value *a = kf_block_arg(kf_function_entry(kern), 0), *zero = NULL, *v = NULL;
  STEP(B, kf_build_constant_int(b, type_of(B, KF_INT64), 0, &zero));
  STEP(B, kf_build_load(b, a, 1, &zero, &v));
  STEP(B, kf_build_call(b, "twice", 1, &v, 1, &f64, &call));
  if (B->st == KF_OK) STEP(B, kf_build_store(b, kf_op_result(call, 0), a, 1, &zero));
  STEP(B, kf_build_return(b, 0, NULL));
}

static kf_status build_all(Build *B) {
  B->st = KF_OK;
  STEP(B, kf_module_create(B->ctx, "kernels.kl", &B->m));
  STEP(B, kf_builder_create(B->m, &B->b));
  build_saxpy(B);
  build_total(B);
  build_collatz(B);
  build_while(B);
  build_bsum(B);
  build_call(B);
  STEP(B, kf_builder_finish(B->b));
  return B->st;
}

static void build_free(Build *B) {
  kf_builder_destroy(B->b);
  kf_module_destroy(B->m);
  B->b = NULL;
  B->m = NULL;
}

static void launch1(kf_program *p, const char *name, unsigned grid, unsigned block, const kf_arg *args, unsigned n) {
  kf_function *f = NULL;
  OK(kf_program_get_function(p, name, &f));
  unsigned g[3] = {grid, 1, 1}, bl[3] = {block, 1, 1};
  if (f) OK(kf_function_launch(f, g, bl, 0, NULL, args, n));
}

static void test_build(void) {
  kf_context *ctx = kf_context_create();
  Build B = {.ctx = ctx};
  CHECK(build_all(&B) == KF_OK);
  OK(kf_module_verify(B.m));
  char *text = NULL;
  OK(kf_module_print(B.m, 0, &text, NULL));
  /* saxpy: count carried (one loop result), a2 not; total: the if's result carried */
  CHECK_CONTAINS(text, "= scf.for(");
  CHECK_CONTAINS(text, ") : (i64, i64, i64, i64) -> (i64)");
  CHECK_CONTAINS(text, ") : (i64, i64, i64, f32) -> (f32)");
  CHECK_CONTAINS(text, "}) : (i1) -> (f32)");
  CHECK_CONTAINS(text, "scf.yield(");
  /* wsum: i, j, s carried and passed on; k and t neither */
  CHECK_CONTAINS(text, "= scf.while(");
  CHECK_CONTAINS(text, "}) : (i64, i64, i64) -> (i64, i64, i64)");
  CHECK_CONTAINS(text, "scf.condition(");
  /* bsum: its shared array */
  CHECK_CONTAINS(text, "mem.global() {sym_name = @bsum.buf, type = array<f32, 1, C>, shape = [32], space = \"shared\"}");
  CHECK_CONTAINS(text, "mem.global_ref() {name = @bsum.buf} : () -> (array<f32, 1, C>)");
  if (kf_context_error_count(ctx) || getenv("API_BUILDER_PRINT")) fprintf(stderr, "%s\n%s\n", kf_context_diagnostics(ctx), text ? text : "");
  kf_free(text);
  /* the embedder's locations are the ops' */
  OK(kf_module_print(B.m, KF_PRINT_DEBUG_INFO, &text, NULL));
  CHECK_CONTAINS(text, "loc(\"kernels.kl\":3:3)");
  kf_free(text);

  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  ro.disk_cache = 0;
  kf_runtime *rt = NULL;
  OK(kf_runtime_create(ctx, &ro, &rt));
  kf_program *p = NULL;
  OK(kf_program_from_module(rt, B.m, &p));
  enum { N = 100 };
  float x[N], y[N], expect[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i - 40.0f;
    y[i] = 0.5f * (float)i;
    expect[i] = 2.5f * x[i] + y[i];
  }
  int64_t shape[1] = {N};
  kf_array ax, ay;
  kf_array_init(&ax, x, KF_MEMORY_HOST, KF_FLOAT32, 1, shape, 'C');
  kf_array_init(&ay, y, KF_MEMORY_HOST, KF_FLOAT32, 1, shape, 'C');
  kf_arg sargs[4] = {kf_arg_float(KF_FLOAT32, 2.5), kf_arg_array(&ax), kf_arg_array(&ay), kf_arg_int(KF_INT64, N)};
  launch1(p, "saxpy", 2, 16, sargs, 4);
  for (int i = 0; i < N; i++) CHECK(y[i] == expect[i]);

  float out[1] = {-1}, sum = 0;
  for (int i = 0; i < N; i++) sum += x[i] > 0 ? x[i] : 0;
  int64_t one[1] = {1};
  kf_array aout;
  kf_array_init(&aout, out, KF_MEMORY_HOST, KF_FLOAT32, 1, one, 'C');
  kf_arg targs[3] = {kf_arg_array(&ax), kf_arg_array(&aout), kf_arg_int(KF_INT64, N)};
  launch1(p, "total", 1, 1, targs, 3);
  CHECK(out[0] == sum);

  int64_t steps[1] = {-1};
  kf_array asteps;
  kf_array_init(&asteps, steps, KF_MEMORY_HOST, KF_INT64, 1, one, 'C');
  kf_arg cargs[2] = {kf_arg_array(&asteps), kf_arg_int(KF_INT64, 27)};
  launch1(p, "collatz", 1, 1, cargs, 2);
  CHECK(steps[0] == 111); /* 27 takes 111 steps to reach 1 */

  for (int64_t n = 0; n <= 7; n += 7) {
    int64_t w[3] = {-1, -1, -1}, three[1] = {3}, sum = 0;
    for (int64_t q = 0; q < n; q++) sum += (q * 3) % 2 == 0 ? q * 3 : 0;
    kf_array aw;
    kf_array_init(&aw, w, KF_MEMORY_HOST, KF_INT64, 1, three, 'C');
    kf_arg wargs[2] = {kf_arg_array(&aw), kf_arg_int(KF_INT64, n)};
    launch1(p, "wsum", 1, 1, wargs, 2);
    CHECK(w[0] == sum && w[1] == n && w[2] == n + 1);
  }

  enum { NB = 4 * 32 };
  float bx[NB], bout[1] = {0}, bexpect = 0;
  for (int q = 0; q < NB; q++) bx[q] = (float)(q % 13), bexpect += bx[q];
  int64_t nb[1] = {NB};
  kf_array abx, abo;
  kf_array_init(&abx, bx, KF_MEMORY_HOST, KF_FLOAT32, 1, nb, 'C');
  kf_array_init(&abo, bout, KF_MEMORY_HOST, KF_FLOAT32, 1, one, 'C');
  kf_arg bargs[2] = {kf_arg_array(&abx), kf_arg_array(&abo)};
  launch1(p, "bsum", 4, 32, bargs, 2);
  CHECK(bout[0] == bexpect); /* small integers: exact in any order */

  double d[1] = {21.25};
  kf_array ad;
  kf_array_init(&ad, d, KF_MEMORY_HOST, KF_FLOAT64, 1, one, 'C');
  kf_arg dargs[1] = {kf_arg_array(&ad)};
  launch1(p, "call2", 1, 1, dargs, 1);
  CHECK(d[0] == 42.5);
  if (kf_context_error_count(ctx)) fprintf(stderr, "%s\n", kf_context_diagnostics(ctx));

  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  build_free(&B);
  kf_context_destroy(ctx);
}

/* ---- types ------------------------------------------------------------------------------------- */

static void check_type_text(kf_context *ctx, const kf_type *t, const char *expect) {
  char *text = NULL;
  OK(kf_type_print(ctx, t, &text));
  CHECK(text && strcmp(text, expect) == 0);
  if (text && strcmp(text, expect) != 0) fprintf(stderr, "type printed as %s, expected %s\n", text, expect);
  kf_free(text);
}

static void test_types(void) {
  kf_context *ctx = kf_context_create();
  static const struct { kf_dtype d; const char *text; } scalars[] = {
    {KF_BOOL, "i1"}, {KF_INT8, "i8"}, {KF_INT16, "i16"}, {KF_INT32, "i32"}, {KF_INT64, "i64"}, {KF_UINT8, "u8"},
    {KF_UINT16, "u16"}, {KF_UINT32, "u32"}, {KF_UINT64, "u64"}, {KF_FLOAT16, "f16"}, {KF_FLOAT32, "f32"},
    {KF_FLOAT64, "f64"}, {KF_COMPLEX64, "complex<f32>"}, {KF_COMPLEX128, "complex<f64>"}, {KF_BFLOAT16, "bf16"},
  };
  for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
    kf_type *t = scalar(ctx, scalars[i].d), *p = NULL;
    check_type_text(ctx, t, scalars[i].text);
    OK(kf_type_parse(ctx, scalars[i].text, &p));
    CHECK(p == t); /* interned */
  }
  kf_type *f32 = scalar(ctx, KF_FLOAT32), *i64 = scalar(ctx, KF_INT64), *arr = NULL, *tup = NULL, *fn = NULL, *p = NULL;
  OK(kf_type_array(ctx, f32, 2, 'F', &arr));
  check_type_text(ctx, arr, "array<f32, 2, F>");
  kf_type *elems[2] = {i64, f32};
  OK(kf_type_tuple(ctx, 2, elems, &tup));
  check_type_text(ctx, tup, "tuple<i64, f32>");
  OK(kf_type_function(ctx, 2, elems, 1, &f32, &fn));
  check_type_text(ctx, fn, "(i64, f32) -> (f32)");
  OK(kf_type_parse(ctx, " array<f32, 2, F> ", &p));
  CHECK(p == arr);
  OK(kf_type_parse(ctx, "record<x: f32 @0, n: i64 @8; size 16, align 8, aligned>", &p));
  /* bad input: a status, a diagnostic, no type */
  kf_type *bad = f32;
  CHECK(kf_type_scalar(ctx, (kf_dtype)99, &bad) == KF_ERROR_INVALID_INPUT && bad == NULL);
  CHECK(kf_type_array(ctx, f32, 0, 'C', &bad) == KF_ERROR_INVALID_INPUT && bad == NULL);
  CHECK(kf_type_array(ctx, f32, 1, 'X', &bad) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_type_array(ctx, fn, 1, 'C', &bad) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_type_tuple(ctx, 2, NULL, &bad) == KF_ERROR_INVALID_INPUT);
  kf_type *holes[2] = {f32, NULL};
  CHECK(kf_type_function(ctx, 2, holes, 0, NULL, &bad) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_type_parse(ctx, "f33", &bad) == KF_ERROR_INVALID_INPUT && bad == NULL);
  CHECK(kf_type_parse(ctx, "f32 junk", &bad) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_type_print(ctx, NULL, (char **)&bad) == KF_ERROR_INVALID_INPUT);
  const char *d = kf_context_diagnostics(ctx);
  CHECK_CONTAINS(d, "kf_type_scalar: dtype 99 is not a scalar dtype");
  CHECK_CONTAINS(d, "rank 0, layout 'C' is not a kir array type");
  CHECK_CONTAINS(d, "'f33' is not a kir type");
  CHECK_CONTAINS(d, "kf_type_function: type 1 is NULL");
  CHECK(kf_context_error_count(ctx) == 9);
  kf_context_destroy(ctx);
}

/* ---- bad input --------------------------------------------------------------------------------- */

static const char source_text[] =
    "kernel k(f32[] a, i64 n) {\n"
    "  i64 x;\n"
    "  a[0] = x + wrong;\n"
    "}\n";

/* The last error's message located at line:col of kernels.kl, quoting source line `line` with a caret. */
static void check_located(kf_context *ctx, unsigned line, unsigned col, const char *message) {
  kf_error_info e;
  OK(kf_context_first_error(ctx, &e));
  CHECK(e.file && strcmp(e.file, "kernels.kl") == 0 && e.line == line && e.col == col);
  CHECK_CONTAINS(e.message, message);
  char located[64];
  snprintf(located, sizeof located, "kernels.kl:%u:%u: error: ", line, col);
  const char *d = kf_context_diagnostics(ctx);
  CHECK_CONTAINS(d, located);
  CHECK_CONTAINS(d, message);
  /* the embedder's line and a caret under the column */
  const char *src = source_text;
  for (unsigned l = 1; l < line; l++) src = strchr(src, '\n') + 1;
  char quoted[128];
  size_t len = (size_t)(strchr(src, '\n') - src);
  snprintf(quoted, sizeof quoted, "%.*s\n%*s^", (int)len, src, (int)(col - 1), "");
  CHECK_CONTAINS(d, quoted);
  kf_context_clear_diagnostics(ctx);
}

#define BAD(call, line, col, message)                 \
  do {                                                \
    CHECK((call) == KF_ERROR_INVALID_INPUT);          \
    check_located(ctx, line, col, message);           \
  } while (0)

static void test_errors(void) {
  kf_context *ctx = kf_context_create();
  OK(kf_context_add_source(ctx, "kernels.kl", source_text, sizeof source_text - 1));
  CHECK(kf_context_add_source(ctx, NULL, "x", 1) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
  kf_module *m = NULL;
  kf_builder *b = NULL;
  OK(kf_module_create(ctx, NULL, &m));
  OK(kf_builder_create(m, &b));
  kf_builder_destroy(b);
  CHECK(kf_builder_create(NULL, &b) == KF_ERROR_INVALID_INPUT && b == NULL);
  OK(kf_builder_create(m, &b));
  kf_type *f32 = scalar(ctx, KF_FLOAT32), *i64 = scalar(ctx, KF_INT64), *i1 = scalar(ctx, KF_BOOL);
  kf_type *arr = array1(ctx, KF_FLOAT32), *params[2] = {arr, i64}, *fn = NULL, *fr = NULL;
  OK(kf_type_function(ctx, 2, params, 0, NULL, &fn));
  OK(kf_type_function(ctx, 0, NULL, 1, &f32, &fr));
  kf_op *func = NULL, *op = NULL;
  OK(kf_builder_set_location(b, at(1, 8)));
  BAD(kf_build_function(b, "1k", fn, KF_FUNCTION_FLAG_KERNEL, &func), 1, 8, "'1k' is not a function name");
  BAD(kf_build_function(b, "k", f32, KF_FUNCTION_FLAG_KERNEL, &func), 1, 8, "its type must be a function type");
  BAD(kf_build_function(b, "k", fr, KF_FUNCTION_FLAG_KERNEL, &func), 1, 8, "kernel 'k' must return no values");
  BAD(kf_build_function(b, "k", fn, 8, &func), 1, 8, "unknown flags 0x8");
  /* no insertion point yet */
  kf_ir_value *v = NULL;
  BAD(kf_build_constant_int(b, i64, 1, &v), 1, 8, "no insertion point");
  OK(kf_build_function(b, "k", fn, KF_FUNCTION_FLAG_KERNEL, &func));
  kf_op *again = NULL;
  BAD(kf_build_function(b, "k", fn, KF_FUNCTION_FLAG_KERNEL, &again), 1, 8, "already has a symbol 'k'");
  OK(kf_builder_set_insertion_end(b, kf_function_entry(func)));
  kf_block *entry = kf_function_entry(func);
  CHECK(kf_builder_insertion_block(b) == entry && kf_block_num_args(entry) == 2);
  CHECK(kf_block_arg(entry, 2) == NULL && kf_op_result(func, 0) == NULL && kf_op_region(func, 1) == NULL);
  CHECK(kf_region_first_block(kf_op_region(func, 0)) == entry && kf_block_next(entry) == NULL);
  kf_ir_value *a = kf_block_arg(entry, 0), *n = kf_block_arg(entry, 1);
  CHECK(kf_value_type(a) == arr && kf_value_type(n) == i64);
  /* variables */
  kf_var *x = NULL;
  OK(kf_builder_set_location(b, at(2, 7)));
  OK(kf_var_declare(b, "x", i64, &x));
  OK(kf_builder_set_location(b, at(3, 10)));
  BAD(kf_var_get(b, x, &v), 3, 10, "variable 'x' may be read before it is assigned");
  BAD(kf_var_set(b, x, a), 3, 10, "variable 'x' of type i64 cannot be assigned a value of type array<f32, 1, A>");
  /* ops by name */
  OK(kf_builder_set_location(b, at(3, 14)));
  kf_op_state st = {.name = "arith.wrong"};
  BAD(kf_build_op(b, &st, &op), 3, 14, "'arith.wrong' is not a kir op");
  kf_ir_value *ops[2] = {n, n};
  st = (kf_op_state){.name = "arith.addi", .noperands = 1, .operands = ops, .nresults = 1, .result_types = &i64};
  BAD(kf_build_op(b, &st, &op), 3, 14, "'arith.addi' takes 2 operands, given 1");
  st = (kf_op_state){.name = "arith.addi", .noperands = 2, .operands = ops, .nresults = 0};
  BAD(kf_build_op(b, &st, &op), 3, 14, "'arith.addi' takes 1 result, given 0");
  kf_ir_value *holes[2] = {n, NULL};
  st = (kf_op_state){.name = "arith.addi", .noperands = 2, .operands = holes, .nresults = 1, .result_types = &i64};
  BAD(kf_build_op(b, &st, &op), 3, 14, "'arith.addi': operand 1 is NULL");
  st = (kf_op_state){.name = "scf.if", .noperands = 1, .operands = ops, .nregions = 1};
  BAD(kf_build_op(b, &st, &op), 3, 14, "'scf.if' takes 2 regions, given 1");
  st = (kf_op_state){.name = "func.func", .nregions = 1};
  BAD(kf_build_op(b, &st, &op), 3, 14, "'func.func' is made at module level");
  /* a generic op, then an attribute on it; the verifier's rules come at kf_module_verify */
  kf_ir_value *sum = NULL;
  st = (kf_op_state){.name = "arith.addi", .noperands = 2, .operands = ops, .nresults = 1, .result_types = &i64};
  OK(kf_build_op(b, &st, &op));
  CHECK(op && strcmp(kf_op_name(op), "arith.addi") == 0 && kf_op_num_results(op) == 1);
  sum = kf_op_result(op, 0);
  kf_attr *attr = NULL, *elems[2];
  OK(kf_attr_unit(b, &attr));
  OK(kf_op_set_attr(b, op, "nocontract", attr));
  BAD(kf_op_set_attr(b, op, NULL, attr), 3, 14, "kf_op_set_attr: no name");
  OK(kf_attr_bool(b, 1, &elems[0]));
  OK(kf_attr_string(b, "s", &elems[1]));
  OK(kf_attr_array(b, 2, elems, &attr));
  OK(kf_attr_type(b, f32, &attr));
  OK(kf_attr_symbol(b, "k", &attr));
  OK(kf_attr_float(b, f32, 0.1, &attr));
  BAD(kf_attr_int(b, scalar(ctx, KF_INT8), 300, &attr), 3, 14, "kf_attr_int: 300 does not fit i8");
  BAD(kf_attr_int(b, f32, 1, &attr), 3, 14, "kf_attr_int: f32 is not an integer type");
  BAD(kf_attr_float(b, i64, 1, &attr), 3, 14, "kf_attr_float: i64 is not a float type");
  BAD(kf_attr_symbol(b, "", &attr), 3, 14, "kf_attr_symbol: no name");
  BAD(kf_attr_array(b, 2, NULL, &attr), 3, 14, "kf_attr_array: 2 elements given as NULL");
  /* typed helpers */
  BAD(kf_build_simple(b, "arith.addi", 0, NULL, NULL, &v), 3, 14, "no result type and no operand");
  BAD(kf_build_compare(b, "slt", a, a, &v), 3, 14, "operands of a scalar type");
  BAD(kf_build_cast(b, a, f32, &v), 3, 14, "cannot convert array<f32, 1, A> to f32");
  BAD(kf_build_gpu_index(b, "gpu.lane_id", 0, &v), 3, 14, "'gpu.lane_id' is not gpu.thread_id");
  BAD(kf_build_gpu_index(b, "gpu.thread_id", 3, &v), 3, 14, "dimension 3");
  BAD(kf_build_dim(b, n, 0, &v), 3, 14, "mem.dim: the value is not an array");
  BAD(kf_build_dim(b, a, 1, &v), 3, 14, "mem.dim: axis 1 of an array of rank 1");
  BAD(kf_build_load(b, a, 2, ops, &v), 3, 14, "mem.load: 2 indices into an array of rank 1");
  BAD(kf_build_store(b, NULL, a, 1, &n), 3, 14, "mem.store: no value");
  BAD(kf_build_call(b, "", 0, NULL, 0, NULL, NULL), 3, 14, "func.call: no callee");
  OK(kf_build_cast(b, n, i64, &v));
  CHECK(v == n);
  /* structured constructs */
  BAD(kf_build_if_begin(b, n), 3, 14, "scf.if: the condition must be an i1");
  BAD(kf_build_if_else(b), 3, 14, "no scf.if is open");
  BAD(kf_build_if_end(b, NULL), 3, 14, "no scf.if is open");
  BAD(kf_build_for_end(b, NULL), 3, 14, "no scf.for is open");
  kf_ir_value *cf = NULL, *iv = NULL, *c = NULL;
  OK(kf_build_constant_float(b, f32, 1.0, &cf));
  BAD(kf_build_for_begin(b, n, n, cf, &iv), 3, 14, "scf.for: the step must be an i64, not f32");
  BAD(kf_build_compare(b, "olt", n, sum, &c), 3, 14,
      "kf_build_compare: unknown integer predicate \"olt\" (one of eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge)");
  BAD(kf_build_compare(b, "slt", cf, cf, &c), 3, 14, "kf_build_compare: unknown float predicate \"slt\" (one of oeq, one");
  OK(kf_build_compare(b, "slt", n, sum, &c));
  CHECK(kf_value_type(c) == i1);
  OK(kf_build_if_begin(b, c));
  BAD(kf_build_return(b, 0, NULL), 3, 14, "'func.return' must be in a block of a function's body, not in a region "
      "of 'scf.if'");
  OK(kf_var_set(b, x, sum));          /* assigned in the then-region only */
  OK(kf_build_if_else(b));
  BAD(kf_build_if_else(b), 3, 14, "already has its else-region");
  BAD(kf_builder_set_insertion_end(b, entry), 3, 14, "outside the innermost open scf construct");
  BAD(kf_builder_finish(b), 3, 14, "an scf.if begun here is still open");
  OK(kf_build_if_end(b, &op));
  CHECK(kf_op_num_results(op) == 0);
  OK(kf_builder_set_location(b, at(3, 10)));
  BAD(kf_var_get(b, x, &v), 3, 10, "variable 'x' may be read before it is assigned");
  /* read in a loop's first iteration before the body assigns it */
  kf_var *y = NULL;
  OK(kf_var_declare(b, "y", i64, &y));
  OK(kf_build_for_begin(b, n, n, n, &iv));
  OK(kf_var_get(b, y, &v));  /* the first iteration's value comes from before the loop: known at its end */
  OK(kf_var_set(b, y, iv));
  OK(kf_builder_set_location(b, at(4, 1)));
  BAD(kf_build_for_end(b, NULL), 3, 10, "variable 'y' may be read before it is assigned");
  /* scf.while: the calls out of order, a body's own variable read after the loop */
  BAD(kf_build_while_do(b, c), 4, 1, "kf_build_while_do: no scf.while is open");
  BAD(kf_build_while_end(b, NULL), 4, 1, "kf_build_while_end: no scf.while is open");
  OK(kf_build_while_begin(b));
  BAD(kf_build_while_end(b, NULL), 4, 1, "the scf.while is still in its condition (kf_build_while_do first)");
  BAD(kf_build_while_do(b, n), 4, 1, "scf.while: the condition must be an i1");
  BAD(kf_build_for_end(b, NULL), 4, 1, "no scf.for is open innermost (an scf.while is)");
  kf_ir_value *wc = NULL;
  OK(kf_build_compare(b, "slt", n, n, &wc));
  OK(kf_build_while_do(b, wc));
  BAD(kf_build_while_do(b, wc), 4, 1, "already in its body");
  kf_var *u = NULL;
  OK(kf_var_declare(b, "u", i64, &u));
  OK(kf_var_set(b, u, n));
  BAD(kf_builder_finish(b), 4, 1, "an scf.while begun here is still open");
  OK(kf_build_while_end(b, &op));
  CHECK(op && kf_op_num_results(op) == 0);
  BAD(kf_var_get(b, u, &v), 4, 1, "variable 'u' may be read before it is assigned");
  /* shared arrays */
  int64_t ext[2] = {4, 0};
  kf_ir_value *sh = NULL;
  BAD(kf_build_shared_array(b, "k", f32, 1, ext, &sh), 4, 1, "shared array 'k': the module already has a symbol 'k'");
  BAD(kf_build_shared_array(b, "k.s", arr, 1, ext, &sh), 4, 1, "its element must be a scalar type, not array<f32, 1, A>");
  BAD(kf_build_shared_array(b, "k.s", f32, 0, ext, &sh), 4, 1, "shared array 'k.s': rank 0");
  BAD(kf_build_shared_array(b, "k.s", f32, 2, ext, &sh), 4, 1, "shared array 'k.s': extent 1 is 0, not positive");
  OK(kf_build_shared_array(b, "k.s", f32, 1, ext, &sh));
  CHECK(sh && kf_value_type(sh) != arr);
  BAD(kf_build_shared_array(b, "k.s", f32, 1, ext, &sh), 4, 1, "the module already has a symbol 'k.s'");
  /* a cf join one of whose paths does not assign */
  kf_block *left = NULL, *right = NULL, *join = NULL;
  kf_var *z = NULL;
  OK(kf_var_declare(b, "z", i64, &z));
  OK(kf_block_create(b, kf_op_region(func, 0), &left));
  OK(kf_block_create(b, kf_op_region(func, 0), &right));
  OK(kf_block_create(b, kf_op_region(func, 0), &join));
  BAD(kf_block_add_arg(b, entry, i64, &v), 4, 1, "the entry block's arguments are the function's parameters");
  kf_ir_value *jarg = NULL;
  OK(kf_block_add_arg(b, join, f32, &jarg));
  CHECK(kf_block_num_args(join) == 1 && kf_block_arg(join, 0) == jarg);
  OK(kf_build_cond_br(b, c, left, 0, NULL, right, 0, NULL));
  OK(kf_block_seal(b, left));
  OK(kf_block_seal(b, right));
  OK(kf_builder_set_insertion_end(b, left));
  OK(kf_var_set(b, z, n));
  OK(kf_build_br(b, join, 1, &cf));
  BAD(kf_block_add_arg(b, join, i64, &v), 4, 1, "the block already has predecessors");
  OK(kf_builder_set_insertion_end(b, right));
  OK(kf_build_br(b, join, 1, &cf));
  OK(kf_block_seal(b, join));
  BAD(kf_build_br(b, join, 1, &cf), 4, 1, "'cf.br': successor 0 is a sealed block");
  OK(kf_builder_set_insertion_end(b, join));
  OK(kf_builder_set_location(b, at(3, 3)));
  BAD(kf_var_get(b, z, &v), 3, 3, "variable 'z' may be read before it is assigned");
  OK(kf_build_return(b, 0, NULL));
  OK(kf_builder_finish(b));
  /* another function's variable */
  kf_op *g = NULL;
  kf_type *none = NULL;
  OK(kf_type_function(ctx, 0, NULL, 0, NULL, &none));
  OK(kf_build_function(b, "g", none, 0, &g));
  BAD(kf_var_set(b, z, n), 3, 3, "variable 'z' belongs to another function");
  /* the verifier's diagnostics are located at the embedder's positions too: arith.addi(i64, i64) given an f32
   * result type */
  st = (kf_op_state){.name = "arith.addi", .noperands = 2, .operands = ops, .nresults = 1, .result_types = &f32};
  OK(kf_builder_set_location(b, at(3, 12)));
  OK(kf_build_op(b, &st, &op));
  OK(kf_build_return(b, 0, NULL));
  CHECK(kf_module_verify(m) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernels.kl:3:12: error: ");
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "  a[0] = x + wrong;\n           ^");
  kf_builder_destroy(b);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

/* ---- out of memory ----------------------------------------------------------------------------- */

typedef struct Counter {
  unsigned long calls, fail_at;
  long live;
} Counter;

static void *counting_alloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  Counter *c = ud;
  if (new_size == 0) {
    if (ptr) c->live--;
    free(ptr);
    return NULL;
  }
  if (++c->calls == c->fail_at) return NULL;
  void *p = realloc(ptr, new_size);
  if (p && !ptr) c->live++;
  return p;
}

static void test_oom(void) {
  Counter c = {0, 0, 0};
  kf_context_options o;
  kf_context_options_init(&o);
  o.alloc = counting_alloc;
  o.alloc_ud = &c;
  /* the calls of a whole build, counted */
  kf_context *ctx = NULL;
  OK(kf_context_create_with(&o, &ctx));
  Build B = {.ctx = ctx};
  CHECK(build_all(&B) == KF_OK);
  OK(kf_module_verify(B.m));
  build_free(&B);
  kf_context_destroy(ctx);
  CHECK(c.live == 0);
  unsigned long total = c.calls, failed_builds = 0;
  CHECK(total > 100); /* the build allocates through the hook */
  for (unsigned long n = 1; n <= total; n++) {
    c = (Counter){0, n, 0};
    if (kf_context_create_with(&o, &ctx) != KF_OK) {
      CHECK(c.live == 0);
      continue;
    }
    B = (Build){.ctx = ctx};
    kf_status st = build_all(&B);
    if (st != KF_OK) {
      failed_builds++;
      CHECK(st == KF_ERROR_OUT_OF_MEMORY);
      kf_error_info e;
      CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_OUT_OF_MEMORY);
      /* a builder spent by the failure says so; one the failure did not reach (a type's, the module's) works */
      if (B.b) {
        kf_ir_value *v = NULL;
        kf_type *i64 = NULL;
        if (kf_type_scalar(ctx, KF_INT64, &i64) == KF_OK) {
          kf_status again = kf_build_constant_int(B.b, i64, 1, &v);
          CHECK(again == KF_ERROR_OUT_OF_MEMORY || again == KF_OK || again == KF_ERROR_INVALID_INPUT);
          CHECK((again == KF_OK) == (v != NULL));
        }
      }
    } else {
      kf_status vst = kf_module_verify(B.m); /* the failing call is the verifier's */
      CHECK(vst == KF_OK || vst == KF_ERROR_OUT_OF_MEMORY);
    }
    build_free(&B);
    kf_context_destroy(ctx);
    if (c.live) fprintf(stderr, "allocation %lu failing: %ld blocks left after everything was destroyed\n", n, c.live);
    CHECK(c.live == 0);
  }
  CHECK(failed_builds > total / 2);
  /* a builder call that runs out of memory spends the builder: later calls fail at once, without a new report */
  c = (Counter){0, 0, 0};
  OK(kf_context_create_with(&o, &ctx));
  kf_module *m = NULL;
  kf_builder *b = NULL;
  kf_type *none = NULL, *i64 = NULL;
  kf_op *f = NULL;
  kf_ir_value *v = NULL;
  OK(kf_module_create(ctx, NULL, &m));
  OK(kf_builder_create(m, &b));
  OK(kf_type_function(ctx, 0, NULL, 0, NULL, &none));
  OK(kf_type_scalar(ctx, KF_INT64, &i64));
  c.fail_at = c.calls + 1;
  CHECK(kf_build_function(b, "f", none, 0, &f) == KF_ERROR_OUT_OF_MEMORY && f == NULL);
  CHECK(kf_context_error_count(ctx) == 1);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "out of memory");
  CHECK(kf_build_constant_int(b, i64, 1, &v) == KF_ERROR_OUT_OF_MEMORY && v == NULL);
  CHECK(kf_builder_finish(b) == KF_ERROR_OUT_OF_MEMORY);
  CHECK(kf_context_error_count(ctx) == 1);
  kf_builder_destroy(b);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  CHECK(c.live == 0);
}

/* kf_context_report: the embedder's own errors among kfront's, rendered with its source line and a caret, with
 * the kind it gives; warnings and notes do not count as errors; bad level, kind or message refused. */
static void test_report(void) {
  kf_context *ctx = kf_context_create();
  OK(kf_context_add_source(ctx, "kernels.kl", source_text, sizeof source_text - 1));
  OK(kf_context_report(ctx, 1, KF_ERRKIND_NONE, (kf_location){"kernels.kl", 2, 7}, "'x' is never assigned"));
  CHECK(kf_context_error_count(ctx) == 0);
  OK(kf_context_report(ctx, 0, KF_ERRKIND_TYPING, (kf_location){"kernels.kl", 3, 14}, "undefined name 'wrong'"));
  OK(kf_context_report(ctx, 2, KF_ERRKIND_NONE, (kf_location){"kernels.kl", 1, 1}, "in kernel 'k'"));
  CHECK(kf_context_error_count(ctx) == 1);
  const char *d = kf_context_diagnostics(ctx);
  CHECK_CONTAINS(d, "kernels.kl:2:7: warning: 'x' is never assigned\n  i64 x;\n      ^");
  CHECK_CONTAINS(d, "kernels.kl:3:14: error: undefined name 'wrong'\n  a[0] = x + wrong;\n             ^");
  CHECK_CONTAINS(d, "kernels.kl:1:1: note: in kernel 'k'");
  kf_error_info e;
  OK(kf_context_first_error(ctx, &e));
  CHECK(e.kind == KF_ERRKIND_TYPING && e.line == 3 && e.col == 14 && e.file && strcmp(e.file, "kernels.kl") == 0);
  CHECK(e.message && strcmp(e.message, "undefined name 'wrong'") == 0);
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_context_report(ctx, 3, KF_ERRKIND_TYPING, (kf_location){0}, "x") == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_report(ctx, 0, KF_ERRKIND_NONE, (kf_location){0}, "x") == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_report(ctx, 0, (kf_error_kind)99, (kf_location){0}, "x") == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_report(ctx, 0, KF_ERRKIND_SYNTAX, (kf_location){0}, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "kf_context_report: no message");
  kf_context_destroy(ctx);
}

int main(void) {
  test_build();
  test_report();
  test_types();
  test_errors();
  test_oom();
  return test_result("api_builder");
}
