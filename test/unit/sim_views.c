/* sim_views.c — array views (mem.subview, mem.reinterpret) on the simulator: views with negative steps,
 * transposed and new axes; array values carried around loops and returned from device functions keeping their
 * descriptors (the op that made one runs again, the frame it was made in is gone); a view outside its array
 * stopped; the check.raise before a reinterpret raising its exception.
 * Each kernel runs in structured form and again after lower-scf. */
#include "sim_test.h"

/* out[k] = a[7 - 2k] for k < 4 through a view a[7::-2] of a 1-d array of 10, and out[4 + k] = m[k, 1] through the
 * transposed view m.T[1, k] of a 2x3 array, and out[7] the extent of a view with a new axis. */
static const char *VIEWS =
    "func.func() ({\n"
    "^bb0(%a: array<i64, 1, C>, %m: array<i64, 2, C>, %out: array<i64, 1, C>):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  %four = arith.constant() {value = 4} : () -> (i64)\n"
    "  %seven = arith.constant() {value = 7} : () -> (i64)\n"
    "  %m2 = arith.constant() {value = -2} : () -> (i64)\n"
    "  %v = mem.subview(%a, %seven, %four, %m2) {dims = [0]} : (array<i64, 1, C>, i64, i64, i64) -> (array<i64, 1, A>)\n"
    "  scf.for(%z, %four, %one) ({\n"
    "  ^bb0(%k: i64):\n"
    "    %x = mem.load(%v, %k) : (array<i64, 1, A>, i64) -> (i64)\n"
    "    mem.store(%x, %out, %k) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i64, i64, i64) -> ()\n"
    "  %r = mem.dim(%m) {axis = 0} : (array<i64, 2, C>) -> (i64)\n"
    "  %c = mem.dim(%m) {axis = 1} : (array<i64, 2, C>) -> (i64)\n"
    "  %t = mem.subview(%m, %z, %z, %c, %one, %r, %one) {dims = [1, 0]} : (array<i64, 2, C>, i64, i64, i64, i64, i64, i64) -> (array<i64, 2, F>)\n"
    "  scf.for(%z, %r, %one) ({\n"
    "  ^bb0(%kk: i64):\n"
    "    %y = mem.load(%t, %one, %kk) : (array<i64, 2, F>, i64, i64) -> (i64)\n"
    "    %o = arith.addi(%kk, %four) : (i64, i64) -> (i64)\n"
    "    mem.store(%y, %out, %o) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i64, i64, i64) -> ()\n"
    "  %n = mem.subview(%a, %two, %one, %one, %four, %one) {dims = [-1, 0]} : (array<i64, 1, C>, i64, i64, i64, i64, i64) -> (array<i64, 2, A>)\n"
    "  %n1 = mem.dim(%n) {axis = 1} : (array<i64, 2, A>) -> (i64)\n"
    "  %nv = mem.load(%n, %z, %one) : (array<i64, 2, A>, i64, i64) -> (i64)\n"
    "  %s = arith.muli(%n1, %nv) : (i64, i64) -> (i64)\n"
    "  %i7 = arith.constant() {value = 6} : () -> (i64)\n"
    "  mem.store(%s, %out, %i7) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %st = mem.stride(%t) {axis = 0} : (array<i64, 2, F>) -> (i64)\n"
    "  mem.store(%st, %out, %seven) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @views, function_type = (array<i64, 1, C>, array<i64, 2, C>, array<i64, 1, C>) -> (), kernel} : () -> ()\n";

static void run_views(const char *pipeline) {
  Kir k;
  if (!kir_load(&k, VIEWS)) return;
  if (pipeline && !kir_pipeline(&k, pipeline)) {
    kir_free(&k);
    return;
  }
  int64_t a[10], m[2][3], out[8];
  for (int i = 0; i < 10; i++) a[i] = 100 + i;
  for (int i = 0; i < 6; i++) m[i / 3][i % 3] = 10 * i;
  memset(out, 0, sizeof out);
  SimArg args[3] = {arr_c(&k, a, "i64", 1, 10, 0), arr_c(&k, m, "i64", 2, 2, 3), arr_c(&k, out, "i64", 1, 8, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "views", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  CHECK_EQ_INT(out[0], 107);
  CHECK_EQ_INT(out[1], 105);
  CHECK_EQ_INT(out[2], 103);
  CHECK_EQ_INT(out[3], 101);
  CHECK_EQ_INT(out[4], m[0][1]);
  CHECK_EQ_INT(out[5], m[1][1]);
  CHECK_EQ_INT(out[6], 4 * 103); /* extent 4 of the walked axis times a[2 + 1] */
  CHECK_EQ_INT(out[7], 8);       /* m.T's axis 0 walks m's axis 1: 8 bytes */
  kir_free(&k);
}

static void test_views(void) { run_views(NULL); }
static void test_views_cf(void) { run_views("lower-scf"); }

/* Two views swapped around a loop, each iteration making a new one from the same op: the values carried
 * keep their own descriptors. out[k] = first element of the view carried in as `p` at iteration k. */
static const char *CARRY =
    "func.func() ({\n"
    "^bb0(%a: array<i64, 1, C>, %out: array<i64, 1, C>):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %five = arith.constant() {value = 5} : () -> (i64)\n"
    "  %p0 = mem.subview(%a, %z, %one, %one) {dims = [0]} : (array<i64, 1, C>, i64, i64, i64) -> (array<i64, 1, A>)\n"
    "  %q0 = mem.subview(%a, %one, %one, %one) {dims = [0]} : (array<i64, 1, C>, i64, i64, i64) -> (array<i64, 1, A>)\n"
    "  %r0, %r1 = scf.for(%z, %five, %one, %p0, %q0) ({\n"
    "  ^bb0(%k: i64, %p: array<i64, 1, A>, %q: array<i64, 1, A>):\n"
    "    %x = mem.load(%p, %z) : (array<i64, 1, A>, i64) -> (i64)\n"
    "    mem.store(%x, %out, %k) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    %k2 = arith.addi(%k, %five) : (i64, i64) -> (i64)\n"
    "    %n = mem.subview(%a, %k2, %one, %one) {dims = [0]} : (array<i64, 1, C>, i64, i64, i64) -> (array<i64, 1, A>)\n"
    "    %c = arith.cmpi(%k, %one) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "    %s = arith.select(%c, %q, %n) : (i1, array<i64, 1, A>, array<i64, 1, A>) -> (array<i64, 1, A>)\n"
    "    scf.yield(%s, %p) : (array<i64, 1, A>, array<i64, 1, A>) -> ()\n"
    "  }) : (i64, i64, i64, array<i64, 1, A>, array<i64, 1, A>) -> (array<i64, 1, A>, array<i64, 1, A>)\n"
    "  %l0 = mem.load(%r0, %z) : (array<i64, 1, A>, i64) -> (i64)\n"
    "  %l1 = mem.load(%r1, %z) : (array<i64, 1, A>, i64) -> (i64)\n"
    "  mem.store(%l0, %out, %five) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %six = arith.constant() {value = 6} : () -> (i64)\n"
    "  mem.store(%l1, %out, %six) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @carry, function_type = (array<i64, 1, C>, array<i64, 1, C>) -> (), kernel} : () -> ()\n";

static void run_carry(const char *pipeline) {
  Kir k;
  if (!kir_load(&k, CARRY)) return;
  if (pipeline && !kir_pipeline(&k, pipeline)) {
    kir_free(&k);
    return;
  }
  int64_t a[16], out[7];
  for (int i = 0; i < 16; i++) a[i] = i;
  memset(out, -1, sizeof out);
  SimArg args[2] = {arr_c(&k, a, "i64", 1, 16, 0), arr_c(&k, out, "i64", 1, 7, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "carry", 1, 1, 1, 1, 0, args, 2, NULL, &r));
  /* p: a[0], then q0 = a[1], then the view made at k=1 (a[6]), at k=2 (a[7]), at k=3 (a[8]); the new view of each
   * iteration goes to p, the old p to q */
  static const int64_t want[7] = {0, 1, 6, 7, 8, 9, 8};
  for (int i = 0; i < 7; i++) CHECK_EQ_INT(out[i], want[i]);
  kir_free(&k);
}

static void test_carry(void) { run_carry(NULL); }
static void test_carry_cf(void) { run_carry("lower-scf"); }

/* A device function returning a view it made: the caller's copy outlives the callee's frame, which the second
 * call reuses. */
static const char *RETURNED =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 2, C>, %i: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %n = mem.dim(%a) {axis = 1} : (array<f32, 2, C>) -> (i64)\n"
    "  %row = mem.subview(%a, %i, %z, %n, %one) {dims = [1]} : (array<f32, 2, C>, i64, i64, i64, i64) -> (array<f32, 1, C>)\n"
    "  func.return(%row) : (array<f32, 1, C>) -> ()\n"
    "}) {sym_name = @row, function_type = (array<f32, 2, C>, i64) -> (array<f32, 1, C>)} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%a: array<f32, 2, C>, %out: array<f32, 1, C>):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  %r0 = func.call(%a, %z) {callee = @row} : (array<f32, 2, C>, i64) -> (array<f32, 1, C>)\n"
    "  %r2 = func.call(%a, %two) {callee = @row} : (array<f32, 2, C>, i64) -> (array<f32, 1, C>)\n"
    "  %x = mem.load(%r0, %one) : (array<f32, 1, C>, i64) -> (f32)\n"
    "  %y = mem.load(%r2, %one) : (array<f32, 1, C>, i64) -> (f32)\n"
    "  mem.store(%x, %out, %z) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "  mem.store(%y, %out, %one) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @rows, function_type = (array<f32, 2, C>, array<f32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_returned(void) {
  Kir k;
  if (!kir_load(&k, RETURNED)) return;
  float a[3][4], out[2] = {0, 0};
  for (int i = 0; i < 12; i++) a[i / 4][i % 4] = (float)i;
  SimArg args[2] = {arr_c(&k, a, "f32", 2, 3, 4), arr_c(&k, out, "f32", 1, 2, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "rows", 1, 1, 1, 1, 0, args, 2, NULL, &r));
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == 9.0f);
  kir_free(&k);
}

/* A view reaching outside its array stops the launch (the frontend clamps slices; kir written by hand may not);
 * an empty one may start anywhere. */
static const char *OUTSIDE =
    "func.func() ({\n"
    "^bb0(%a: array<i32, 1, C>, %n: i64, %start: i64):\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %v = mem.subview(%a, %start, %n, %one) {dims = [0]} : (array<i32, 1, C>, i64, i64, i64) -> (array<i32, 1, A>)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @outside, function_type = (array<i32, 1, C>, i64, i64) -> (), kernel} : () -> ()\n";

static void test_outside(void) {
  Kir k;
  if (!kir_load(&k, OUTSIDE)) return;
  int32_t a[4] = {0};
  SimArg args[3] = {arr_c(&k, a, "i32", 1, 4, 0), sim_arg_int(4), sim_arg_int(0)};
  SimResult r;
  CHECK(kir_launch(&k, "outside", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  args[1] = sim_arg_int(5);
  CHECK(!kir_launch(&k, "outside", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  CHECK(r.status == SIM_ERR_RUNTIME);
  CHECK_CONTAINS(r.message, "mem.subview outside its array in kernel outside at test.kir:");
  args[1] = sim_arg_int(0);
  args[2] = sim_arg_int(-7);
  CHECK(kir_launch(&k, "outside", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  args[1] = sim_arg_int(-1);
  CHECK(!kir_launch(&k, "outside", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  CHECK_CONTAINS(r.message, "mem.subview with a negative extent");
  kir_free(&k);
}

/* mem.reinterpret (a reshape, a view of another element type) and the frontend's check.raise before it: a raise ends the launch with
 * its exception; a reinterpret reaching outside its array stops it too. */
static const char *REINTERP =
    "func.func() ({\n"
    "^bb0(%a: array<u8, 1, C>, %out: array<i32, 1, C>, %rows: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %four = arith.constant() {value = 4} : () -> (i64)\n"
    "  %n = mem.size(%a) : (array<u8, 1, C>) -> (i64)\n"
    "  %k = arith.muli(%rows, %four) : (i64, i64) -> (i64)\n"
    "  %bad = arith.cmpi(%k, %n) {pred = \"ne\"} : (i64, i64) -> (i1)\n"
    "  check.raise(%bad) {exception = \"ValueError: total size of new array must be unchanged\"} : (i1) -> ()\n"
    "  %m = mem.reinterpret(%a, %rows, %four, %four, %one) : (array<u8, 1, C>, i64, i64, i64, i64) -> (array<u8, 2, C>)\n"
    "  %w = mem.reinterpret(%m, %rows, %one, %four, %four) : (array<u8, 2, C>, i64, i64, i64, i64) -> (array<i32, 2, C>)\n"
    "  %last = arith.subi(%rows, %one) : (i64, i64) -> (i64)\n"
    "  %x = mem.load(%w, %last, %z) : (array<i32, 2, C>, i64, i64) -> (i32)\n"
    "  mem.store(%x, %out, %z) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  %y = mem.load(%m, %last, %four) : (array<u8, 2, C>, i64, i64) -> (u8)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @reinterp, function_type = (array<u8, 1, C>, array<i32, 1, C>, i64) -> (), kernel} : () -> ()\n";

static void test_reinterpret_and_raise(void) {
  Kir k;
  if (!kir_load(&k, REINTERP)) return;
  uint8_t a[12];
  for (int i = 0; i < 12; i++) a[i] = (uint8_t)(i + 1);
  int32_t out[1] = {0};
  SimArg args[3] = {arr_c(&k, a, "u8", 1, 12, 0), arr_c(&k, out, "i32", 1, 1, 0), sim_arg_int(3)};
  SimResult r;
  /* 3 rows of 4 bytes: the last row as an i32; m[2, 4] is out of its extent 4: unchecked, an OOB stop */
  CHECK(!kir_launch(&k, "reinterp", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  int32_t want;
  memcpy(&want, a + 8, 4);
  CHECK_EQ_INT(out[0], want);
  CHECK(r.status == SIM_ERR_OOB);
  /* 2 rows of 4 bytes do not make 12: the check fails with its exception, located */
  args[2] = sim_arg_int(2);
  CHECK(!kir_launch(&k, "reinterp", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  CHECK(r.status == SIM_ERR_RAISE);
  CHECK(r.index_error.set && r.index_error.exception &&
        strcmp(r.index_error.exception, "ValueError: total size of new array must be unchanged") == 0);
  CHECK_CONTAINS(r.message, "ValueError: total size of new array must be unchanged (kernel reinterp, test.kir:9:3;");
  kir_free(&k);
}

/* A reinterpret reaching outside its array (kir not made by the frontend) stops the launch. */
static const char *REINTERP_OUT =
    "func.func() ({\n"
    "^bb0(%a: array<i32, 1, C>, %n: i64):\n"
    "  %four = arith.constant() {value = 4} : () -> (i64)\n"
    "  %w = mem.reinterpret(%a, %n, %four) : (array<i32, 1, C>, i64, i64) -> (array<i32, 1, C>)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @reinterp_out, function_type = (array<i32, 1, C>, i64) -> (), kernel} : () -> ()\n";

static void test_reinterpret_outside(void) {
  Kir k;
  if (!kir_load(&k, REINTERP_OUT)) return;
  int32_t a[4] = {0};
  SimArg args[2] = {arr_c(&k, a, "i32", 1, 4, 0), sim_arg_int(4)};
  SimResult r;
  CHECK(kir_launch(&k, "reinterp_out", 1, 1, 1, 1, 0, args, 2, NULL, &r));
  args[1] = sim_arg_int(5);
  CHECK(!kir_launch(&k, "reinterp_out", 1, 1, 1, 1, 0, args, 2, NULL, &r));
  CHECK_CONTAINS(r.message, "mem.reinterpret outside its array");
  kir_free(&k);
}

int main(void) {
  RUN(test_views);
  RUN(test_views_cf);
  RUN(test_carry);
  RUN(test_carry_cf);
  RUN(test_returned);
  RUN(test_outside);
  RUN(test_reinterpret_and_raise);
  RUN(test_reinterpret_outside);
  return sim_test_summary("sim_views");
}
