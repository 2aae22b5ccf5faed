/* sim_raise.c — check.raise on the simulator: a recorded raise ends its thread and fills the launch's error
 * record (the one a failed check.bounds fills: first by lowest block), the other threads run on; a silent
 * raise ends its thread and records nothing; a raise inside a device function ends the whole thread. */
#include "sim_test.h"

/* out[i] = i unless in[i] < 0: then ValueError, raised by a device function in kernel `deep`. */
static const char *RAISE =
    "func.func() ({\n"
    "^bb0(%in: array<i64, 1, C>, %out: array<i64, 1, C>):\n" KIR_GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<i64, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%in, %i) : (array<i64, 1, C>, i64) -> (i64)\n"
    "    %z = arith.constant() {value = 0} : () -> (i64)\n"
    "    %neg = arith.cmpi(%v, %z) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "    check.raise(%neg) {exception = \"ValueError: negative input\"} : (i1) -> () loc(\"k.py\":7:9)\n"
    "    mem.store(%i, %out, %i) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @checked, function_type = (array<i64, 1, C>, array<i64, 1, C>) -> (), kernel} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%in: array<i64, 1, C>, %out: array<i64, 1, C>):\n" KIR_GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<i64, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%in, %i) : (array<i64, 1, C>, i64) -> (i64)\n"
    "    %z = arith.constant() {value = 0} : () -> (i64)\n"
    "    %neg = arith.cmpi(%v, %z) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "    check.raise(%neg) {exception = \"ValueError: negative input\", silent} : (i1) -> ()\n"
    "    mem.store(%i, %out, %i) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @quiet, function_type = (array<i64, 1, C>, array<i64, 1, C>) -> (), kernel} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%v: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %neg = arith.cmpi(%v, %z) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%neg) ({\n"
    "    check.raise() {exception = \"RuntimeError\"} : () -> () loc(\"k.py\":3:5)\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return(%v) : (i64) -> ()\n"
    "}) {sym_name = @must_be_positive, function_type = (i64) -> (i64), device} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%in: array<i64, 1, C>, %out: array<i64, 1, C>):\n" KIR_GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<i64, 1, C>) -> (i64)\n"
    "  check.bounds(%i, %n) {axis = 0} : (i64, i64) -> () loc(\"k.py\":20:5)\n"
    "  %v = mem.load(%in, %i) : (array<i64, 1, C>, i64) -> (i64)\n"
    "  %w = func.call(%v) {callee = @must_be_positive} : (i64) -> (i64)\n"
    "  mem.store(%w, %out, %i) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @deep, function_type = (array<i64, 1, C>, array<i64, 1, C>) -> (), kernel} : () -> ()\n";

static void test_recorded(void) {
  Kir k;
  if (!kir_load(&k, RAISE)) return;
  int64_t in[40], out[40];
  for (int i = 0; i < 40; i++) in[i] = i == 37 || i == 21 ? -1 : i, out[i] = -5;
  SimArg args[2] = {arr_c(&k, in, "i64", 1, 40, 0), arr_c(&k, out, "i64", 1, 40, 0)};
  SimResult r;
  CHECK(!kir_launch(&k, "checked", 2, 1, 32, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_ERR_RAISE);
  /* the lowest block's raise is the one kept (threads 21 of block 0, not 5 of block 1) */
  CHECK_STR(r.message, "ValueError: negative input (kernel checked, k.py:7:9; thread (21, 0, 0) of block (0, 0, 0))");
  CHECK(r.index_error.set && r.index_error.kind == KF_ERROR_RAISE);
  CHECK_STR(r.index_error.exception, "ValueError: negative input");
  CHECK(r.index_error.thread[0] == 21 && r.index_error.block[0] == 0);
  CHECK_EQ_INT(r.index_error.loc.line, 7);
  /* the raising threads stopped before their store; the others ran on */
  for (int i = 0; i < 40; i++) CHECK(out[i] == (i == 37 || i == 21 ? -5 : i));
  kir_free(&k);
}

static void test_silent(void) {
  Kir k;
  if (!kir_load(&k, RAISE)) return;
  int64_t in[32], out[32];
  for (int i = 0; i < 32; i++) in[i] = i % 3 == 0 ? -i - 1 : i, out[i] = -5;
  SimArg args[2] = {arr_c(&k, in, "i64", 1, 32, 0), arr_c(&k, out, "i64", 1, 32, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "quiet", 1, 1, 32, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_OK && !r.index_error.set);
  for (int i = 0; i < 32; i++) CHECK(out[i] == (i % 3 == 0 ? -5 : i));
  kir_free(&k);
}

static void test_device_function(void) {
  Kir k;
  if (!kir_load(&k, RAISE)) return;
  int64_t in[8], out[8];
  for (int i = 0; i < 8; i++) in[i] = i == 6 ? -3 : i * 10, out[i] = -5;
  SimArg args[2] = {arr_c(&k, in, "i64", 1, 8, 0), arr_c(&k, out, "i64", 1, 8, 0)};
  SimResult r;
  CHECK(!kir_launch(&k, "deep", 1, 1, 8, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_ERR_RAISE);
  CHECK_STR(r.message, "RuntimeError (kernel deep, k.py:3:5; thread (6, 0, 0) of block (0, 0, 0))");
  for (int i = 0; i < 8; i++) CHECK(out[i] == (i == 6 ? -5 : i * 10)); /* the whole thread ended in the callee */
  /* one record for bounds checks and raises, kept for the lowest block whichever ran first (two workers):
   * block 0's raise (thread 3) over block 1's failed bounds checks (threads 12..15 of 12 elements) */
  int64_t in2[12], out2[16];
  for (int i = 0; i < 12; i++) in2[i] = i == 3 ? -1 : i;
  SimArg args2[2] = {arr_c(&k, in2, "i64", 1, 12, 0), arr_c(&k, out2, "i64", 1, 16, 0)};
  SimOptions o;
  sim_options_init(&o);
  o.nworkers = 2;
  for (int rep = 0; rep < 4; rep++) {
    CHECK(!kir_launch(&k, "deep", 2, 1, 8, 1, 0, args2, 2, &o, &r));
    CHECK(r.status == SIM_ERR_RAISE && r.index_error.kind == KF_ERROR_RAISE && r.index_error.thread[0] == 3);
  }
  kir_free(&k);
}

int main(void) {
  RUN(test_recorded);
  RUN(test_silent);
  RUN(test_device_function);
  return sim_test_summary("sim_raise");
}
