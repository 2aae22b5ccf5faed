/* runtime_launch.c — what the runtime checks and converts before a launch (runtime/check.c, params.c),
 * and the public launch API on the simulator: a kir module (kf_module_parse) as a program, kernels picked
 * by argument types, launch-configuration and argument errors, the located IndexError and a working launch
 * after it, device memory, host arrays, scalars converted to the parameter types. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op_semantics.h"
#include "kfront/abi.h"
#include "kfront/kfront.h"
#include "runtime/rt.h"
#include "runtime/runtime.h"
#include "runtime_test.h"

/* ---- launch configuration -------------------------------------------------------------------- */

static void expect_launch_error(const unsigned grid[3], const unsigned block[3], size_t stat, size_t dyn,
                                unsigned kmax, const char *part) {
  RtLimits l;
  rt_limits_sim(&l);
  Diag d;
  diag_init(&d);
  CHECK(!rt_check_launch(&l, "foo", grid, block, stat, dyn, kmax, &d));
  CHECK_CONTAINS(diag_text(&d), part);
  diag_free(&d);
}

static void test_launch_checks(void) {
  RtLimits l;
  rt_limits_sim(&l);
  Diag d;
  diag_init(&d);
  unsigned g1[3] = {1, 1, 1}, b1024[3] = {1024, 1, 1}, b32x32[3] = {32, 32, 1};
  CHECK(rt_check_launch(&l, "foo", g1, b1024, 0, 0, 0, &d));
  CHECK(rt_check_launch(&l, "foo", g1, b32x32, 16384, 32768, 0, &d));
  unsigned gbig[3] = {2147483647u, 65535, 65535};
  CHECK(rt_check_launch(&l, "foo", gbig, g1, 0, 0, 0, &d));
  CHECK(d.nerrors == 0);
  diag_free(&d);

  expect_launch_error(g1, (unsigned[3]){1024, 2, 1}, 0, 0, 0,
                      "invalid launch of kernel foo: a block of (1024, 2, 1) = 2048 threads is above the device's "
                      "limit of 1024 threads per block");
  expect_launch_error(g1, (unsigned[3]){2048, 1, 1}, 0, 0, 0, "block dimension x is 2048, above the device's limit of 1024");
  expect_launch_error(g1, (unsigned[3]){1, 1, 65}, 0, 0, 0, "block dimension z is 65, above the device's limit of 64");
  expect_launch_error(g1, (unsigned[3]){32, 0, 1}, 0, 0, 0, "block dimension y is 0 (every grid and block dimension must be at least 1)");
  expect_launch_error((unsigned[3]){0, 1, 1}, b1024, 0, 0, 0, "grid dimension x is 0");
  expect_launch_error((unsigned[3]){1, 70000, 1}, b1024, 0, 0, 0, "grid dimension y is 70000, above the device's limit of 65535");
  expect_launch_error(g1, b1024, 0, 0, 768, "a block of 1024 threads is above this kernel's limit of 768 threads per block");
  expect_launch_error(g1, b1024, 8192, 227 * 1024, 0,
                      "232448 bytes of dynamic shared memory plus 8192 bytes of static shared memory are above the "
                      "device's limit of 232448 bytes per block");
  expect_launch_error(g1, b1024, 0, (size_t)-1, 0, "bytes of dynamic shared memory");
}

/* ---- types, signatures, argument checks -------------------------------------------------------- */

static kf_arg array_arg(void *data, kf_dtype t, unsigned ndim, const int64_t *shape, char order) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, t, ndim, shape, order);
  return kf_arg_array(&a);
}

static void test_signatures(void) {
  float buf[64];
  int64_t s1[1] = {10}, s2[2] = {4, 8}, s3[3] = {2, 3, 4};
  kf_arg args[6] = {
      array_arg(buf, KF_FLOAT32, 1, s1, 'C'), array_arg(buf, KF_FLOAT32, 2, s2, 'C'),
      array_arg(buf, KF_FLOAT64, 2, s2, 'F'), kf_arg_int(KF_INT64, 3), kf_arg_float(KF_FLOAT32, 2.5),
      kf_arg_int(KF_BOOL, 1),
  };
  StrBuf b;
  sb_init(&b);
  Diag d;
  diag_init(&d);
  CHECK(rt_args_signature(args, 6, &b, &d));
  CHECK(strcmp(sb_cstr(&b), "void(float32[::1], float32[:, ::1], float64[::1, :], int64, float32, boolean)") == 0);
  /* a strided view: every other column of a 4x8 array is layout A */
  kf_arg view = array_arg(buf, KF_FLOAT32, 2, (int64_t[]){4, 4}, 'C');
  view.array.strides[1] = 8;
  sb_reset(&b);
  CHECK(rt_args_signature(&view, 1, &b, &d) && strcmp(sb_cstr(&b), "void(float32[:, :])") == 0);
  /* NumPy's relaxed rule: an extent of 1 does not constrain its stride */
  kf_arg column = array_arg(buf, KF_FLOAT32, 2, (int64_t[]){4, 1}, 'C');
  column.array.strides[1] = 1234;
  CHECK(kf_array_is_contiguous(&column.array, 'C') && kf_array_is_contiguous(&column.array, 'F'));
  /* 3-D F order strides */
  kf_array f3;
  kf_array_init(&f3, buf, KF_MEMORY_HOST, KF_INT16, 3, s3, 'F');
  CHECK(f3.strides[0] == 2 && f3.strides[1] == 4 && f3.strides[2] == 12 && kf_array_size(&f3) == 24);
  CHECK(!kf_array_is_contiguous(&f3, 'C') && kf_array_is_contiguous(&f3, 'F'));
  /* a 0-d array is an array of its own (numba's array(float32, 0d, C)); then invalid arguments */
  kf_arg rank0 = array_arg(buf, KF_FLOAT32, 0, s1, 'C'); /* a 0-d array: float32[()] */
  sb_reset(&b);
  CHECK(rt_args_signature(&rank0, 1, &b, &d) && strcmp(sb_cstr(&b), "void(float32[()])") == 0);
  sb_reset(&b);
  kf_arg rank9 = array_arg(buf, KF_FLOAT32, 1, s1, 'C');
  rank9.array.ndim = KF_MAX_RANK + 1;
  CHECK(!rt_args_signature(&rank9, 1, &b, &d));
  CHECK_CONTAINS(diag_text(&d), "argument 1: arrays of rank 9 cannot be passed to a kernel");
  kf_arg nodata = array_arg(NULL, KF_FLOAT32, 1, s1, 'C');
  CHECK(!rt_args_signature(&nodata, 1, &b, &d));
  CHECK_CONTAINS(diag_text(&d), "array with 10 elements has no data pointer");
  sb_free(&b);
  diag_free(&d);

  /* dtype names both ways */
  kf_dtype t;
  CHECK(kf_dtype_parse("f32", &t) == KF_OK && t == KF_FLOAT32);
  CHECK(kf_dtype_parse("i8", &t) == KF_OK && t == KF_INT8);
  CHECK(kf_dtype_parse("uint16", &t) == KF_OK && t == KF_UINT16);
  CHECK(kf_dtype_parse("bool", &t) == KF_OK && t == KF_BOOL);
  CHECK(kf_dtype_parse("b1", &t) == KF_OK && t == KF_BOOL);
  CHECK(kf_dtype_parse("f4", &t) == KF_ERROR_INVALID_INPUT);
  for (int i = 0; i < KF_DTYPE_COUNT; i++) CHECK(kf_dtype_parse(kf_dtype_name((kf_dtype)i), &t) == KF_OK && t == (kf_dtype)i);
}

static void test_arg_checks(void) {
  IrContext *ir = ir_context_new();
  Type *f32 = ty_f32(ir), *i64 = ty_i64(ir);
  Type *params[3] = {ty_array(ir, f32, 1, 'C'), ty_array(ir, f32, 2, 'A'), ty_int(ir, 32, false)};
  float buf[64];
  int64_t s1[1] = {10}, s2[2] = {4, 8};
  kf_arg good[3] = {array_arg(buf, KF_FLOAT32, 1, s1, 'C'), array_arg(buf, KF_FLOAT32, 2, s2, 'F'),
                    kf_arg_float(KF_FLOAT64, 7.9)};
  Diag d;
  diag_init(&d);
  CHECK(rt_check_args("k", params, 3, good, 3, false, &d));
  CHECK(!rt_check_args("k", params, 3, good, 2, false, &d));
  CHECK_CONTAINS(diag_text(&d), "kernel k takes 3 arguments (void(float32[::1], float32[:, :], int32)), but 2 were given");
  kf_arg bad_dtype[3] = {array_arg(buf, KF_FLOAT64, 1, s1, 'C'), good[1], good[2]};
  CHECK(!rt_check_args("k", params, 3, bad_dtype, 3, false, &d));
  CHECK_CONTAINS(diag_text(&d), "argument 1 of kernel k (void(float32[::1], float32[:, :], int32)): expected an array "
                                "float32[::1], got float64 array of rank 1 (C-contiguous)");
  /* a specialized function's launch reads an array of the element's size as the parameter's dtype; another size,
   * rank or layout still does not fit */
  /* int32[::1], uint16[:, :] */
  Type *ints[2] = {ty_array(ir, ty_int(ir, 32, false), 1, 'C'), ty_array(ir, ty_int(ir, 16, true), 2, 'A')};
  kf_arg same_width[2] = {array_arg(buf, KF_UINT32, 1, s1, 'C'), array_arg(buf, KF_INT16, 2, s2, 'F')};
  CHECK(!rt_check_args("k", ints, 2, same_width, 2, false, &d));
  CHECK(rt_check_args("k", ints, 2, same_width, 2, true, &d));
  kf_arg same_size[3] = {array_arg(buf, KF_INT32, 1, s1, 'C'), array_arg(buf, KF_FLOAT32, 2, s2, 'F'), good[2]};
  CHECK(!rt_check_args("k", params, 3, same_size, 3, true, &d)); /* int32 bits are no float32 */
  CHECK_CONTAINS(diag_text(&d), "expected an array float32[::1], got int32 array of rank 1 (C-contiguous)");
  CHECK(!rt_check_args("k", params, 3, bad_dtype, 3, true, &d));
  CHECK_CONTAINS(diag_text(&d), "expected an array float32[::1], got float64 array of rank 1 (C-contiguous)");
  kf_arg strided = array_arg(buf, KF_FLOAT32, 1, (int64_t[]){5}, 'C');
  strided.array.strides[0] = 8;
  kf_arg bad_layout[3] = {strided, good[1], good[2]};
  CHECK(!rt_check_args("k", params, 3, bad_layout, 3, false, &d));
  kf_arg strided_int = strided;
  strided_int.array.dtype = KF_UINT32;
  kf_arg bad_layout_int[2] = {strided_int, same_width[1]};
  CHECK(!rt_check_args("k", ints, 2, bad_layout_int, 2, true, &d));
  CHECK_CONTAINS(diag_text(&d), "expected an array float32[::1], got float32 array of rank 1 (non-contiguous, strides (8))");
  kf_arg bad_rank[3] = {good[0], good[0], good[2]};
  CHECK(!rt_check_args("k", params, 3, bad_rank, 3, false, &d));
  CHECK_CONTAINS(diag_text(&d), "argument 2 of kernel k");
  kf_arg scalar_for_array[3] = {kf_arg_int(KF_INT64, 1), good[1], good[2]};
  CHECK(!rt_check_args("k", params, 3, scalar_for_array, 3, false, &d));
  CHECK_CONTAINS(diag_text(&d), "expected an array float32[::1], got a scalar int64");
  kf_arg array_for_scalar[3] = {good[0], good[1], good[0]};
  CHECK(!rt_check_args("k", params, 3, array_for_scalar, 3, false, &d));
  CHECK_CONTAINS(diag_text(&d), "argument 3 of kernel k (void(float32[::1], float32[:, :], int32)): expected a scalar int32");
  kf_arg neg[3] = {good[0], good[1], good[2]};
  neg[0].array.shape[0] = -1;
  CHECK(!rt_check_args("k", params, 3, neg, 3, false, &d));
  CHECK_CONTAINS(diag_text(&d), "argument 1: negative extent -1 in axis 0");
  (void)i64;
  diag_free(&d);
  ir_context_free(ir);
}

/* ---- conversions and parameter packing ---------------------------------------------------------- */

static void test_conversions(void) {
  IrContext *ir = ir_context_new();
  int32_t i32;
  uint8_t u8, b;
  uint16_t h;
  float f;
  rt_convert_scalar(&(kf_arg){.kind = KF_ARG_SCALAR, .dtype = KF_INT64, .value.i = (1ll << 32) + 5}, ty_i32(ir), &i32);
  CHECK(i32 == 5);  /* wraps, as a C cast */
  kf_arg x = kf_arg_float(KF_FLOAT64, -7.9);
  rt_convert_scalar(&x, ty_i32(ir), &i32);
  CHECK(i32 == -7);
  x.value.f = 1e20;
  rt_convert_scalar(&x, ty_i32(ir), &i32);
  CHECK(i32 == INT32_MAX);
  x.value.f = NAN;
  rt_convert_scalar(&x, ty_i32(ir), &i32);
  CHECK(i32 == 0);
  x.value.f = -3;
  rt_convert_scalar(&x, ty_int(ir, 8, true), &u8);
  CHECK(u8 == 0);
  x.value.f = 0.25;
  rt_convert_scalar(&x, ty_bool(ir), &b);
  CHECK(b == 1);
  rt_convert_scalar(&(kf_arg){.kind = KF_ARG_SCALAR, .dtype = KF_UINT64, .value.u = UINT64_MAX}, ty_f32(ir), &f);
  CHECK(f == 18446744073709551616.0f);
  rt_convert_scalar(&(kf_arg){.kind = KF_ARG_SCALAR, .dtype = KF_INT32, .value.i = 300}, ty_int(ir, 8, true), &u8);
  CHECK(u8 == 44);
  x.value.f = 1.0;
  rt_convert_scalar(&x, ty_float(ir, 16), &h);
  CHECK(h == 0x3c00);
  /* half: round to nearest even, subnormals, overflow, NaN */
  CHECK(sem_f16_bits(65504.0) == 0x7bff && sem_f16_bits(65520.0) == 0x7c00 && sem_f16_bits(-1e9) == 0xfc00);
  CHECK(sem_f16_bits(1.0 + 1.0 / 2048) == 0x3c00);           /* tie, rounds to even */
  CHECK(sem_f16_bits(1.0 + 3.0 / 2048) == 0x3c02);           /* tie, rounds up to even */
  CHECK(sem_f16_bits(ldexp(1, -24)) == 0x0001 && sem_f16_bits(ldexp(1, -25)) == 0 && sem_f16_bits(ldexp(3, -26)) == 1);
  CHECK(sem_f16_bits(ldexp(1, -14)) == 0x0400 && (sem_f16_bits(NAN) & 0x7c00) == 0x7c00 && (sem_f16_bits(NAN) & 0x3ff));
  for (unsigned v = 0; v < 0x7c00; v += 7) CHECK(sem_f16_bits(sem_f16_value((uint16_t)v)) == v);
  ir_context_free(ir);
}

static void test_params(void) {
  IrContext *ir = ir_context_new();
  Type *params[3] = {ty_array(ir, ty_f32(ir), 2, 'A'), ty_int(ir, 16, false), ty_bool(ir)};
  CHECK(rt_param_slots(params, 3) == 7 && kf_abi_param_count(2) == 5);
  RtParams p;
  CHECK(rt_params_init(&p, params, 3));
  float buf[12];
  kf_arg args[3] = {array_arg(buf, KF_FLOAT32, 2, (int64_t[]){3, 4}, 'F'), kf_arg_float(KF_FLOAT64, -2.7),
                    kf_arg_int(KF_INT64, 5)};
  uint64_t dev[3] = {0xdead0000, 0, 0};
  rt_params_pack(&p, params, 3, args, dev);
  CHECK(p.nslots == 7);
  CHECK(*(uint64_t *)p.ptrs[0] == 0xdead0000);
  CHECK(*(int64_t *)p.ptrs[1] == 3 && *(int64_t *)p.ptrs[2] == 4);
  CHECK(*(int64_t *)p.ptrs[3] == 4 && *(int64_t *)p.ptrs[4] == 12);
  CHECK(*(int16_t *)p.ptrs[5] == -2);
  CHECK(*(uint8_t *)p.ptrs[6] == 1);
  rt_params_free(&p);
  /* spans: a reversed view reaches backwards from data */
  kf_array a;
  kf_array_init(&a, buf, KF_MEMORY_HOST, KF_FLOAT32, 2, (int64_t[]){3, 4}, 'C');
  int64_t lo, hi;
  rt_array_span(&a, &lo, &hi);
  CHECK(lo == 0 && hi == 48);
  a.strides[0] = -16;
  rt_array_span(&a, &lo, &hi);
  CHECK(lo == -32 && hi == 16);
  a.shape[1] = 0;
  rt_array_span(&a, &lo, &hi);
  CHECK(lo == 0 && hi == 0);
  ir_context_free(ir);
}

/* ---- the public API on the simulator --------------------------------------------------------------- */

#define GRID1                                                                   \
  "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"                           \
  "  %bx = gpu.block_id() {dim = 0} : () -> (i32)\n"                            \
  "  %bw = gpu.block_dim() {dim = 0} : () -> (i32)\n"                           \
  "  %g0 = arith.muli(%bx, %bw) : (i32, i32) -> (i32)\n"                        \
  "  %g1 = arith.addi(%g0, %tx) : (i32, i32) -> (i32)\n"                        \
  "  %i = arith.extsi(%g1) : (i32) -> (i64)\n"

/* foo_grid of s000_kernels.py as the frontend lowers it (checked accesses), two eager signatures of a
 * scaling kernel, and a kernel with static shared memory. */
static const char *KIR =
    "func.func() ({\n"
    "^bb0(%in: array<i64, 1, A>, %out: array<f64, 1, A>):\n" GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<i64, 1, A>) -> (i64)\n"
    "  check.bounds(%i, %n) {axis = 0} : (i64, i64) -> () loc(\"s000_kernels.py\":23:5)\n"
    "  %v = mem.load(%in, %i) : (array<i64, 1, A>, i64) -> (i64)\n"
    "  %f = arith.sitofp(%v) : (i64) -> (f64)\n"
    "  %m = mem.dim(%out) {axis = 0} : (array<f64, 1, A>) -> (i64)\n"
    "  check.bounds(%i, %m) {axis = 0} : (i64, i64) -> () loc(\"s000_kernels.py\":23:5)\n"
    "  mem.store(%f, %out, %i) : (f64, array<f64, 1, A>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @foo_grid, function_type = (array<i64, 1, A>, array<f64, 1, A>) -> (), kernel} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %s: i32):\n" GRID1
    "  %n = mem.dim(%a) {axis = 0} : (array<f32, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%a, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "    %sf = arith.sitofp(%s) : (i32) -> (f32)\n"
    "    %w = arith.mulf(%v, %sf) : (f32, f32) -> (f32)\n"
    "    mem.store(%w, %a, %i) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @scale__f32, function_type = (array<f32, 1, C>, i32) -> (), kernel} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%a: array<f64, 1, C>, %s: f64):\n" GRID1
    "  %n = mem.dim(%a) {axis = 0} : (array<f64, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%a, %i) : (array<f64, 1, C>, i64) -> (f64)\n"
    "    %w = arith.mulf(%v, %s) : (f64, f64) -> (f64)\n"
    "    mem.store(%w, %a, %i) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @scale__f64, function_type = (array<f64, 1, C>, f64) -> (), kernel} : () -> ()\n"
    "\n"
    "mem.global() {sym_name = @tile, type = array<f32, 2, C>, shape = [64, 64], space = \"shared\"} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>):\n"
    "  %t = mem.global_ref() {name = @tile} : () -> (array<f32, 2, C>)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @tiled, function_type = (array<f32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_public_sim(void) {
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  CHECK(kf_module_parse(ctx, "kernels.kir", KIR, strlen(KIR), &m) == KF_OK);
  if (!m) {
    fputs(kf_context_diagnostics(ctx), stderr);
    kf_context_destroy(ctx);
    return;
  }
  kf_runtime *rt = NULL;
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK && kf_runtime_get_mode(rt) == KF_RUNTIME_SIM);
  kf_program *p = NULL;
  CHECK(kf_program_from_module(rt, m, &p) == KF_OK);

  int64_t in[10];
  double out[10];
  for (int i = 0; i < 10; i++) in[i] = i, out[i] = -1;
  int64_t n10[1] = {10};
  kf_arg args[2] = {array_arg(in, KF_INT64, 1, n10, 'C'), array_arg(out, KF_FLOAT64, 1, n10, 'C')};
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k) == KF_OK && k);
  CHECK(strcmp(kf_kernel_signature(k), "void(int64[:], float64[:])") == 0);
  kf_kernel *again = NULL;
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &again) == KF_OK && again == k);

  /* 32 threads over 10 elements: the located IndexError, the others ran */
  unsigned g[3] = {1, 1, 1}, b32[3] = {32, 1, 1}, b10[3] = {10, 1, 1};
  CHECK(kf_launch(k, g, b32, 0, NULL, args, 2) == KF_ERROR_OUT_OF_BOUNDS);
  CHECK_CONTAINS(kf_context_diagnostics(ctx),
                 "error: IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:5)");
  for (int i = 0; i < 10; i++) CHECK(out[i] == i);
  kf_context_clear_diagnostics(ctx);
  /* and a launch after it works */
  for (int i = 0; i < 10; i++) out[i] = 0;
  CHECK(kf_launch(k, g, b10, 0, NULL, args, 2) == KF_OK);
  for (int i = 0; i < 10; i++) CHECK(out[i] == i);
  CHECK(kf_context_error_count(ctx) == 0);

  /* configuration and argument errors, checked before launching */
  CHECK(kf_launch(k, g, (unsigned[3]){1024, 2, 1}, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "invalid launch of kernel foo_grid: a block of (1024, 2, 1) = 2048 threads");
  CHECK(kf_launch(k, (unsigned[3]){0, 1, 1}, b10, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "grid dimension x is 0");
  CHECK(kf_launch(k, g, b10, 0, NULL, args, 1) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel foo_grid takes 2 arguments (void(int64[:], float64[:])), but 1 was given");
  float fout[10];
  kf_arg wrong[2] = {args[0], array_arg(fout, KF_FLOAT32, 1, n10, 'C')};
  CHECK(kf_launch(k, g, b10, 0, NULL, wrong, 2) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "argument 2 of kernel foo_grid (void(int64[:], float64[:])): expected an "
                                              "array float64[:], got float32 array of rank 1");
  kf_context_clear_diagnostics(ctx);

  /* eager signatures: the arguments pick one; scalars convert to the parameter type */
  float fa[5] = {1, 2, 3, 4, 5};
  double da[5] = {1, 2, 3, 4, 5};
  int64_t n5[1] = {5};
  kf_arg fargs[2] = {array_arg(fa, KF_FLOAT32, 1, n5, 'C'), kf_arg_float(KF_FLOAT64, 3.9)};
  kf_arg dargs[2] = {array_arg(da, KF_FLOAT64, 1, n5, 'C'), kf_arg_int(KF_INT64, 2)};
  kf_kernel *kf = NULL, *kd = NULL;
  CHECK(kf_program_get_kernel(p, "scale", fargs, 2, &kf) == KF_OK);
  CHECK(kf_program_get_kernel(p, "scale", dargs, 2, &kd) == KF_OK);
  CHECK(kf && kd && kf != kd);
  if (kf && kd) {
    CHECK(strcmp(kf_kernel_signature(kf), "void(float32[::1], int32)") == 0);
    CHECK(kf_launch(kf, g, b32, 0, NULL, fargs, 2) == KF_OK);  /* 3.9 -> int32 3 */
    for (int i = 0; i < 5; i++) CHECK(fa[i] == 3.0f * (float)(i + 1));
    CHECK(kf_launch(kd, g, b32, 0, NULL, dargs, 2) == KF_OK);
    for (int i = 0; i < 5; i++) CHECK(da[i] == 2.0 * (i + 1));
  }
  int32_t ia[5] = {0};
  kf_arg iargs[2] = {array_arg(ia, KF_INT32, 1, n5, 'C'), kf_arg_int(KF_INT64, 2)};
  kf_kernel *none = NULL;
  CHECK(kf_program_get_kernel(p, "scale", iargs, 2, &none) != KF_OK && none == NULL);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "No matching definition for argument type(s) int32[::1], int64: "
                                              "kernel scale has no signature that matches them; its signatures are:");
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "void(float32[::1], int32)");
  CHECK(kf_program_get_kernel(p, "nope", iargs, 2, &none) == KF_ERROR_NOT_FOUND);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no kernel named 'nope'");
  kf_context_clear_diagnostics(ctx);

  /* static shared memory counts against the limit: 64*64*4 = 16384 bytes */
  kf_arg targs[1] = {fargs[0]};
  kf_kernel *kt = NULL;
  CHECK(kf_program_get_kernel(p, "tiled", targs, 1, &kt) == KF_OK);
  if (kt) {
    CHECK(kf_launch(kt, g, b32, 227 * 1024 - 16384, NULL, targs, 1) == KF_OK);
    CHECK(kf_launch(kt, g, b32, 227 * 1024 - 16383, NULL, targs, 1) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "plus 16384 bytes of static shared memory are above the device's limit");
  }
  kf_context_clear_diagnostics(ctx);

  /* device memory: in, launch on device arrays, out */
  void *din = NULL, *dout = NULL;
  CHECK(kf_device_alloc(rt, sizeof in, &din) == KF_OK && din);
  CHECK(kf_device_alloc(rt, sizeof out, &dout) == KF_OK && dout);
  CHECK(kf_memcpy_to_device(rt, din, in, sizeof in, NULL) == KF_OK);
  CHECK(kf_memset_device(rt, dout, 0, sizeof out, NULL) == KF_OK);
  kf_array ain, aout;
  kf_array_init(&ain, din, KF_MEMORY_DEVICE, KF_INT64, 1, n10, 'C');
  kf_array_init(&aout, dout, KF_MEMORY_DEVICE, KF_FLOAT64, 1, n10, 'C');
  kf_arg dev[2] = {kf_arg_array(&ain), kf_arg_array(&aout)};
  kf_stream *s = NULL;
  CHECK(kf_stream_create(rt, &s) == KF_OK);
  CHECK(kf_launch(k, g, b10, 0, s, dev, 2) == KF_OK);
  CHECK(kf_stream_synchronize(s) == KF_OK);
  double back[10] = {0};
  CHECK(kf_memcpy_to_host(rt, back, dout, sizeof back, NULL) == KF_OK);
  for (int i = 0; i < 10; i++) CHECK(back[i] == i);
  CHECK(kf_device_free(rt, din) == KF_OK);
  CHECK(kf_device_free(rt, din) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "was not allocated by this runtime (or was freed already)");
  kf_stream_destroy(s);
  kf_runtime_stats st;
  kf_runtime_get_stats(rt, &st);
  CHECK(st.launches >= 6 && st.compiles == 0);

  kf_program_destroy(p);
  kf_runtime_destroy(rt);  /* frees dout */
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

/* A kernel with a tiled variant (passes/tile_shared.c): the launch with the variant's block runs the variant
 * (on a quarter of the user's grid each way, with the user's grid as hidden parameters: register blocking),
 * any other block, or the input passed as the output, the kernel itself; every answer the kernel's own, bit
 * for bit (the simulator runs kir: the same program either way). */
static void test_tiled_variant(void) {
  static const char *src =
      "from numba import cuda, float32\n"
      "@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')\n"
      "def matmul(A, B, C):\n"
      "    i, j = cuda.grid(2)\n"
      "    if i >= C.shape[0] or j >= C.shape[1]:\n"
      "        return\n"
      "    acc = float32(0)\n"
      "    for k in range(A.shape[1]):\n"
      "        acc += A[i, k] * B[k, j]\n"
      "    C[i, j] = acc\n";
  kf_context *ctx = kf_context_create();
  kf_runtime *rt = NULL;
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK);
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "mm.py", src, strlen(src), NULL, &p) == KF_OK);
  enum { M = 70, N = 37, K = 29 };
  static float A[M * K], B[K * N], C[M * N], want[M * N], sq[M * M], sqb[M * M], want_sq[M * M];
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7919) % 1000) / 97.0f - 5.0f;
  for (int i = 0; i < K * N; i++) B[i] = (float)((i * 104729) % 1000) / 89.0f - 5.0f;
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N}, ss[2] = {M, M};
  kf_arg args[3] = {array_arg(A, KF_FLOAT32, 2, sa, 'C'), array_arg(B, KF_FLOAT32, 2, sb, 'C'),
                    array_arg(C, KF_FLOAT32, 2, sc, 'C')};
  kf_kernel *kk = NULL;
  CHECK(kf_program_get_kernel(p, "matmul", args, 3, &kk) == KF_OK && kk);
  RtKernel *k = (RtKernel *)kk;
  CHECK(k && k->variant && k->variant->plan.grid_divisor[0] == 4 && k->variant->plan.ndisjoint == 2);
  if (!k || !k->variant) goto done;
  unsigned b8[3] = {8, 8, 1}, b16[3] = {16, 16, 1}, b32[3] = {32, 32, 1};
  unsigned g8[3] = {(M + 7) / 8, (N + 7) / 8, 1}, g16[3] = {(M + 15) / 16, (N + 15) / 16, 1}, g32[3] = {3, 2, 1};
  CHECK(kf_launch(kk, g8, b8, 0, NULL, args, 3) == KF_OK);
  memcpy(want, C, sizeof C);
  unsigned before = k->launches, vbefore = k->variant->launches;
  memset(C, 0, sizeof C);
  CHECK(kf_launch(kk, g16, b16, 0, NULL, args, 3) == KF_OK);
  CHECK(k->variant->launches == vbefore + 1 && k->launches == before);
  CHECK(memcmp(C, want, sizeof C) == 0);
  memset(C, 0, sizeof C);
  CHECK(kf_launch(kk, g32, b32, 0, NULL, args, 3) == KF_OK); /* 1024 threads: the kernel, never the variant */
  CHECK(k->variant->launches == vbefore + 1 && k->launches == before + 1);
  CHECK(memcmp(C, want, sizeof C) == 0);
  /* a square product with C passed as A: the kernel (reading what it writes) */
  for (int i = 0; i < M * M; i++) sq[i] = (float)(i % 13) - 6.0f, sqb[i] = (float)(i % 7) - 3.0f;
  kf_arg alias[3] = {array_arg(sq, KF_FLOAT32, 2, ss, 'C'), array_arg(sqb, KF_FLOAT32, 2, ss, 'C'),
                     array_arg(sq, KF_FLOAT32, 2, ss, 'C')};
  kf_kernel *ka = NULL;
  CHECK(kf_program_get_kernel(p, "matmul", alias, 3, &ka) == KF_OK && ka == kk);
  unsigned gs[3] = {(M + 15) / 16, (M + 15) / 16, 1}, gs8[3] = {(M + 7) / 8, (M + 7) / 8, 1};
  float keep[M * M];
  memcpy(keep, sq, sizeof sq);
  CHECK(kf_launch(kk, gs8, b8, 0, NULL, alias, 3) == KF_OK);
  memcpy(want_sq, sq, sizeof sq);
  memcpy(sq, keep, sizeof sq);
  vbefore = k->variant->launches;
  CHECK(kf_launch(kk, gs, b16, 0, NULL, alias, 3) == KF_OK);
  CHECK(k->variant->launches == vbefore);
  CHECK(memcmp(sq, want_sq, sizeof sq) == 0);
done:
  CHECK(kf_context_error_count(ctx) == 0);
  if (kf_context_error_count(ctx)) fputs(kf_context_diagnostics(ctx), stderr);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* A cooperative plan's text (the cache manifest) and back: ` coop` last, after the other optional fields. */
static void test_plan_text(void) {
  RtLaunchPlan p, q;
  rt_plan_init(&p);
  p.cooperative = true;
  p.ndisjoint = 1;
  p.disjoint[0][0] = 0;
  p.disjoint[0][1] = 2;
  StrBuf b;
  sb_init(&b);
  rt_plan_print(&p, &b);
  const char *want = "hidden=- grid=given block=0,0,0 divisor=1,1,1 shared=0 disjoint=0:2 coop";
  CHECK(strcmp(sb_cstr(&b), want) == 0);
  CHECK(rt_plan_parse(sb_cstr(&b), strlen(sb_cstr(&b)), &q) && q.cooperative && q.ndisjoint == 1 && q.disjoint[0][1] == 2);
  const char *plain = "hidden=- grid=given block=0,0,0 divisor=1,1,1 shared=0";
  CHECK(rt_plan_parse(plain, strlen(plain), &q) && !q.cooperative);
  const char *bad = "hidden=- grid=given block=0,0,0 divisor=1,1,1 shared=0 coop disjoint=0:2";
  CHECK(!rt_plan_parse(bad, strlen(bad), &q));
  sb_free(&b);
}

int main(void) {
  test_plan_text();
  test_launch_checks();
  test_tiled_variant();
  test_signatures();
  test_arg_checks();
  test_conversions();
  test_params();
  test_public_sim();
  return test_result("runtime_launch");
}
