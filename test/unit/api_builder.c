/* api_builder.c — the kir builder API (include/kfront/kir.h), every entry point.
 *
 *  build     kernels built through the builder only, verified, printed (the text checked where the SSA
 *            construction decides something: carried values, scf results, block arguments, trivial phis
 *            removed), and run on the simulator through kf_program_from_module: saxpy (scf.for over a
 *            variable), a sum with an scf.if inside an scf.for, a while loop of cf blocks whose loop header gets
 *            block arguments for two variables (Braun's phis), and a device function called from a kernel;
 *  types     every type constructor, parse and print, and their bad input;
 *  errors    bad input to each entry point: the status and a diagnostic located at the builder's location in
 *            the embedder's own file, quoting its line with a caret (kf_context_add_source); a read before any
 *            assignment (straight, in a loop's first iteration, after an if that assigns on one side, at a
 *            cf join one of whose paths does not assign);
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
  STEP(B, kf_build_cast(b, s, scalar(B->ctx, KF_INT64), &i));
  return i;
}

/* saxpy(a, x, y, n): for k in range(i, n, stride): y[k] = a * x[k] + y[k], with `acc` a variable the loop
 * assigns (carried) and `a2` one it only reads (not carried). */
static void build_saxpy(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *f32 = scalar(ctx, KF_FLOAT32), *i64 = scalar(ctx, KF_INT64), *arr = array1(ctx, KF_FLOAT32);
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
  kf_type *f32 = scalar(ctx, KF_FLOAT32), *i64 = scalar(ctx, KF_INT64), *arr = array1(ctx, KF_FLOAT32);
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
  kf_type *i64 = scalar(ctx, KF_INT64), *arr = NULL;
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

/* twice(x) = x + x, a device function; call2(a): a[0] = twice(a[0]) */
static void build_call(Build *B) {
  kf_context *ctx = B->ctx;
  kf_builder *b = B->b;
  kf_type *f64 = scalar(ctx, KF_FLOAT64), *arr = NULL, *ft = NULL, *kt = NULL;
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
  STEP(B, kf_build_constant_int(b, scalar(ctx, KF_INT64), 0, &zero));
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

int main(void) {
  test_build();
  return test_result("api_builder");
}
