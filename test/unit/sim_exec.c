/* sim_exec.c — the simulator's sequential semantics: kernels over grids with guards, 2-D and strided
 * (transposed) arrays, Python's // and % on ints and floats, C division, scf.for with negative steps and
 * swapped carried values, scf.while and the same loop in cf form, device calls and recursion limits, the
 * located IndexError, unchecked out-of-bounds accesses, the step limit, integer widths, f16/f32 precision,
 * constant, local and dynamic shared arrays. */
#include "sim_test.h"

/* ---- 1-D copy over a grid with a guard ----------------------------------------------------------- */

static const char *COPY1D =
    "func.func() ({\n"
    "^bb0(%in: array<f64, 1, C>, %out: array<f64, 1, C>):\n" KIR_GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<f64, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%in, %i) : (array<f64, 1, C>, i64) -> (f64)\n"
    "    mem.store(%v, %out, %i) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @copy1d, function_type = (array<f64, 1, C>, array<f64, 1, C>) -> (), kernel} : () -> ()\n";

static void test_copy1d(void) {
  Kir k;
  if (!kir_load(&k, COPY1D)) return;
  double in[100], out[128];
  for (int i = 0; i < 100; i++) in[i] = i * 1.5 - 7;
  for (int i = 0; i < 128; i++) out[i] = -1;
  SimArg args[2] = {arr_c(&k, in, "f64", 1, 100, 0), arr_c(&k, out, "f64", 1, 100, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "copy1d", 4, 1, 32, 1, 0, args, 2, NULL, &r));
  for (int i = 0; i < 100; i++) CHECK(out[i] == in[i]);
  for (int i = 100; i < 128; i++) CHECK(out[i] == -1);
  CHECK_EQ_INT(r.threads, 128);
  CHECK_EQ_INT(r.blocks, 4);
  CHECK(r.steps > 128 * 10);
  /* the same with blocks spread over two host threads */
  for (int i = 0; i < 100; i++) out[i] = 0;
  SimOptions o;
  sim_options_init(&o);
  o.nworkers = 2;
  CHECK(kir_launch(&k, "copy1d", 4, 1, 32, 1, 0, args, 2, &o, &r));
  for (int i = 0; i < 100; i++) CHECK(out[i] == in[i]);
  CHECK_EQ_INT(r.threads, 128);
  kir_free(&k);
}

/* ---- 2-D indexing, strides in bytes, a transposed view -------------------------------------------- */

static const char *INC2D =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 2, A>, %out: array<f32, 2, C>, %info: array<i64, 1, C>):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %ty = gpu.thread_id() {dim = 1} : () -> (i32)\n"
    "  %bx = gpu.block_id() {dim = 0} : () -> (i32)\n"
    "  %by = gpu.block_id() {dim = 1} : () -> (i32)\n"
    "  %bw = gpu.block_dim() {dim = 0} : () -> (i32)\n"
    "  %bh = gpu.block_dim() {dim = 1} : () -> (i32)\n"
    "  %x0 = arith.muli(%bx, %bw) : (i32, i32) -> (i32)\n"
    "  %x1 = arith.addi(%x0, %tx) : (i32, i32) -> (i32)\n"
    "  %x = arith.extsi(%x1) : (i32) -> (i64)\n"
    "  %y0 = arith.muli(%by, %bh) : (i32, i32) -> (i32)\n"
    "  %y1 = arith.addi(%y0, %ty) : (i32, i32) -> (i32)\n"
    "  %y = arith.extsi(%y1) : (i32) -> (i64)\n"
    "  %n0 = mem.dim(%a) {axis = 0} : (array<f32, 2, A>) -> (i64)\n"
    "  %n1 = mem.dim(%a) {axis = 1} : (array<f32, 2, A>) -> (i64)\n"
    "  %c0 = arith.cmpi(%x, %n0) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  %c1 = arith.cmpi(%y, %n1) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  %ok = arith.andi(%c0, %c1) : (i1, i1) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%a, %x, %y) : (array<f32, 2, A>, i64, i64) -> (f32)\n"
    "    %one = arith.constant() {value = 1.0 : f32} : () -> (f32)\n"
    "    %w = arith.addf(%v, %one) : (f32, f32) -> (f32)\n"
    "    mem.store(%w, %out, %x, %y) : (f32, array<f32, 2, C>, i64, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %first = arith.cmpi(%x, %z) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  %first2 = arith.cmpi(%y, %z) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  %origin = arith.andi(%first, %first2) : (i1, i1) -> (i1)\n"
    "  scf.if(%origin) ({\n"
    "    %s0 = mem.stride(%a) {axis = 0} : (array<f32, 2, A>) -> (i64)\n"
    "    %s1 = mem.stride(%a) {axis = 1} : (array<f32, 2, A>) -> (i64)\n"
    "    %sz = mem.size(%a) : (array<f32, 2, A>) -> (i64)\n"
    "    %k1 = arith.constant() {value = 1} : () -> (i64)\n"
    "    %k2 = arith.constant() {value = 2} : () -> (i64)\n"
    "    %k3 = arith.constant() {value = 3} : () -> (i64)\n"
    "    mem.store(%s0, %info, %z) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    mem.store(%s1, %info, %k1) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    mem.store(%sz, %info, %k2) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    mem.store(%n0, %info, %k3) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @inc2d, function_type = (array<f32, 2, A>, array<f32, 2, C>, array<i64, 1, C>) -> (), kernel} : () -> ()\n";

static void test_2d_transposed(void) {
  Kir k;
  if (!kir_load(&k, INC2D)) return;
  enum { ROWS = 5, COLS = 7 };
  float src[ROWS][COLS], out[COLS][ROWS];
  int64_t info[4] = {0};
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) src[r][c] = (float)(r * 10 + c);
  memset(out, 0, sizeof out);
  /* a = src.T: shape (7, 5), strides (4, 28) bytes */
  SimArg a = {.kind = SIM_ARG_ARRAY};
  a.array = (SimArray){.data = src, .elem = kir_type(&k, "f32"), .rank = 2, .shape = {COLS, ROWS}, .strides = {4, COLS * 4}};
  SimArg args[3] = {a, arr_c(&k, out, "f32", 2, COLS, ROWS), arr_c(&k, info, "i64", 1, 4, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "inc2d", 2, 2, 4, 4, 0, args, 3, NULL, &r));
  for (int x = 0; x < COLS; x++)
    for (int y = 0; y < ROWS; y++) CHECK(out[x][y] == src[y][x] + 1);
  CHECK_EQ_INT(info[0], 4);
  CHECK_EQ_INT(info[1], COLS * 4);
  CHECK_EQ_INT(info[2], 35);
  CHECK_EQ_INT(info[3], COLS);
  /* a C-layout parameter refuses a non-contiguous view */
  kir_free(&k);
}

/* ---- Python // and %, C / and rem ----------------------------------------------------------------- */

static const char *DIVMOD =
    "func.func() ({\n"
    "^bb0(%a: array<i64, 1, C>, %b: array<i64, 1, C>, %q: array<i64, 1, C>, %r: array<i64, 1, C>, %q32: array<i32, 1, C>, "
    "%r32: array<i32, 1, C>, %fq: array<f64, 1, C>, %fr: array<f64, 1, C>, %cd: array<i64, 1, C>, %cr: array<i64, 1, C>, "
    "%fq32: array<f32, 1, C>):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %n = mem.dim(%a) {axis = 0} : (array<i64, 1, C>) -> (i64)\n"
    "  scf.for(%z, %n, %one) ({\n"
    "  ^bb0(%i: i64):\n"
    "    %x = mem.load(%a, %i) : (array<i64, 1, C>, i64) -> (i64)\n"
    "    %y = mem.load(%b, %i) : (array<i64, 1, C>, i64) -> (i64)\n"
    "    %fd = arith.floordivsi(%x, %y) : (i64, i64) -> (i64)\n"
    "    %fm = arith.floormodsi(%x, %y) : (i64, i64) -> (i64)\n"
    "    mem.store(%fd, %q, %i) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    mem.store(%fm, %r, %i) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    %x32 = arith.trunci(%x) : (i64) -> (i32)\n"
    "    %y32 = arith.trunci(%y) : (i64) -> (i32)\n"
    "    %fd32 = arith.floordivsi(%x32, %y32) : (i32, i32) -> (i32)\n"
    "    %fm32 = arith.floormodsi(%x32, %y32) : (i32, i32) -> (i32)\n"
    "    mem.store(%fd32, %q32, %i) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    mem.store(%fm32, %r32, %i) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    %fx = arith.sitofp(%x) : (i64) -> (f64)\n"
    "    %fy = arith.sitofp(%y) : (i64) -> (f64)\n"
    "    %ffd = arith.floordivf(%fx, %fy) : (f64, f64) -> (f64)\n"
    "    %ffm = arith.floormodf(%fx, %fy) : (f64, f64) -> (f64)\n"
    "    mem.store(%ffd, %fq, %i) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "    mem.store(%ffm, %fr, %i) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "    %fx32 = arith.sitofp(%x32) : (i32) -> (f32)\n"
    "    %fy32 = arith.sitofp(%y32) : (i32) -> (f32)\n"
    "    %ffd32 = arith.floordivf(%fx32, %fy32) : (f32, f32) -> (f32)\n"
    "    mem.store(%ffd32, %fq32, %i) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "    %d = arith.divsi(%x, %y) : (i64, i64) -> (i64)\n"
    "    %m = arith.remsi(%x, %y) : (i64, i64) -> (i64)\n"
    "    mem.store(%d, %cd, %i) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    mem.store(%m, %cr, %i) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i64, i64, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @divmod, function_type = (array<i64, 1, C>, array<i64, 1, C>, array<i64, 1, C>, array<i64, 1, C>, "
    "array<i32, 1, C>, array<i32, 1, C>, array<f64, 1, C>, array<f64, 1, C>, array<i64, 1, C>, array<i64, 1, C>, "
    "array<f32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_python_divmod(void) {
  Kir k;
  if (!kir_load(&k, DIVMOD)) return;
  enum { N = 12 };
  int64_t a[N] = {7, -7, 7, -7, 0, 5, -5, -9, 9, -1, INT64_MIN, 100};
  int64_t b[N] = {2, 2, -2, -2, 3, 0, 0, 4, -4, 5, -1, 7};
  /* Python: a // b, a % b (x // 0 and x % 0 are 0 as in Numba; INT64_MIN // -1 wraps) */
  int64_t pq[N] = {3, -4, -4, 3, 0, 0, 0, -3, -3, -1, INT64_MIN, 14};
  int64_t pr[N] = {1, 1, -1, -1, 0, 0, 0, 3, -3, 4, 0, 2};
  int64_t cq[N] = {3, -3, -3, 3, 0, 0, 0, -2, -2, 0, INT64_MIN, 14};
  int64_t cr[N] = {1, -1, 1, -1, 0, 0, 0, -1, 1, -1, 0, 2};
  int64_t q[N], r[N], cd[N], crem[N];
  int32_t q32[N], r32[N];
  double fq[N], fr[N];
  float fq32[N];
  SimArg args[11] = {arr_c(&k, a, "i64", 1, N, 0),     arr_c(&k, b, "i64", 1, N, 0),    arr_c(&k, q, "i64", 1, N, 0),
                     arr_c(&k, r, "i64", 1, N, 0),     arr_c(&k, q32, "i32", 1, N, 0),  arr_c(&k, r32, "i32", 1, N, 0),
                     arr_c(&k, fq, "f64", 1, N, 0),    arr_c(&k, fr, "f64", 1, N, 0),   arr_c(&k, cd, "i64", 1, N, 0),
                     arr_c(&k, crem, "i64", 1, N, 0),  arr_c(&k, fq32, "f32", 1, N, 0)};
  SimResult res;
  CHECK(kir_launch(&k, "divmod", 1, 1, 1, 1, 0, args, 11, NULL, &res));
  for (int i = 0; i < N; i++) {
    CHECK_EQ_INT(q[i], pq[i]);
    CHECK_EQ_INT(r[i], pr[i]);
    CHECK_EQ_INT(cd[i], cq[i]);
    CHECK_EQ_INT(crem[i], cr[i]);
    if (i < 10 || i == 11) {
      CHECK_EQ_INT(q32[i], pq[i]);
      CHECK_EQ_INT(r32[i], pr[i]);
    }
    if (b[i] != 0 && i != 10) {
      CHECK(fq[i] == (double)pq[i]);
      CHECK(fr[i] == (double)pr[i]);
      CHECK(fq32[i] == (float)pq[i]);
    }
  }
  CHECK_EQ_INT(q32[10], 0); /* INT64_MIN truncates to 0 */
  CHECK(isinf(fq[5]) && fq[5] > 0 && isinf(fq[6]) && fq[6] < 0);
  CHECK(isnan(fr[5]));
  CHECK(signbit(fr[0]) == 0 && fr[4] == 0 && signbit(fr[4]) == 0);
  kir_free(&k);
}

/* ---- scf.for with negative steps, swapped carried values ------------------------------------------ */

static const char *RANGE =
    "func.func() ({\n"
    "^bb0(%out: array<i64, 1, C>, %lb: i64, %ub: i64, %st: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  %three = arith.constant() {value = 3} : () -> (i64)\n"
    "  %cnt, %sum = scf.for(%lb, %ub, %st, %z, %z) ({\n"
    "  ^bb0(%i: i64, %c: i64, %s: i64):\n"
    "    %slot = arith.addi(%c, %three) : (i64, i64) -> (i64)\n"
    "    mem.store(%i, %out, %slot) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    %c1 = arith.addi(%c, %one) : (i64, i64) -> (i64)\n"
    "    %s1 = arith.addi(%s, %i) : (i64, i64) -> (i64)\n"
    "    scf.yield(%c1, %s1) : (i64, i64) -> ()\n"
    "  }) : (i64, i64, i64, i64, i64) -> (i64, i64)\n"
    "  mem.store(%cnt, %out, %z) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  mem.store(%sum, %out, %one) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %p, %q = scf.for(%z, %three, %one, %one, %two) ({\n"
    "  ^bb0(%j: i64, %u: i64, %v: i64):\n"
    "    scf.yield(%v, %u) : (i64, i64) -> ()\n"
    "  }) : (i64, i64, i64, i64, i64) -> (i64, i64)\n"
    "  %pq = arith.muli(%p, %three) : (i64, i64) -> (i64)\n"
    "  %pq2 = arith.addi(%pq, %q) : (i64, i64) -> (i64)\n"
    "  mem.store(%pq2, %out, %two) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @range, function_type = (array<i64, 1, C>, i64, i64, i64) -> (), kernel} : () -> ()\n";

static void run_range(Kir *k, int64_t lb, int64_t ub, int64_t st, const int64_t *expect, int n) {
  int64_t out[16];
  for (int i = 0; i < 16; i++) out[i] = -99;
  SimArg args[4] = {arr_c(k, out, "i64", 1, 16, 0), sim_arg_int(lb), sim_arg_int(ub), sim_arg_int(st)};
  SimResult r;
  CHECK(kir_launch(k, "range", 1, 1, 1, 1, 0, args, 4, NULL, &r));
  int64_t sum = 0;
  for (int i = 0; i < n; i++) sum += expect[i];
  CHECK_EQ_INT(out[0], n);
  CHECK_EQ_INT(out[1], sum);
  CHECK_EQ_INT(out[2], 2 * 3 + 1); /* (1, 2) swapped three times: (2, 1) */
  for (int i = 0; i < n; i++) CHECK_EQ_INT(out[3 + i], expect[i]);
  CHECK_EQ_INT(out[3 + n], -99);
}

static void test_for_negative_step(void) {
  Kir k;
  if (!kir_load(&k, RANGE)) return;
  static const int64_t down[] = {10, 7, 4, 1, -2}, up[] = {0, 3, 6, 9}, down1[] = {3, 2, 1, 0, -1};
  run_range(&k, 10, -5, -3, down, 5);
  run_range(&k, 0, 10, 3, up, 4);
  run_range(&k, 3, -2, -1, down1, 5);
  run_range(&k, 0, 10, -1, NULL, 0);
  run_range(&k, 5, 5, 1, NULL, 0);
  run_range(&k, -3, 4, 100, (const int64_t[]){-3}, 1);
  /* step 0 (which the frontend refuses, as range() does) runs as lower-scf defines it: while iv < ub, so not at
   * all from above ub and without end from below: here the store past `out`'s end stops it (an error, not a
   * hang) */
  run_range(&k, 10, 0, 0, NULL, 0);
  int64_t out[16];
  SimArg args[4] = {arr_c(&k, out, "i64", 1, 16, 0), sim_arg_int(0), sim_arg_int(10), sim_arg_int(0)};
  SimResult r;
  CHECK(!kir_launch(&k, "range", 1, 1, 1, 1, 0, args, 4, NULL, &r));
  CHECK(r.status == SIM_ERR_OOB);
  kir_free(&k);
}

/* ---- scf.while, and the same loop in cf form ------------------------------------------------------ */

static const char *COLLATZ =
    "func.func() ({\n"
    "^bb0(%out: array<i64, 1, C>, %n0: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  %three = arith.constant() {value = 3} : () -> (i64)\n"
    "  %steps, %last = scf.while(%z, %n0) ({\n"
    "  ^bb0(%s: i64, %n: i64):\n"
    "    %c = arith.cmpi(%n, %one) {pred = \"ne\"} : (i64, i64) -> (i1)\n"
    "    scf.condition(%c, %s, %n) : (i1, i64, i64) -> ()\n"
    "  }, {\n"
    "  ^bb0(%s2: i64, %n2: i64):\n"
    "    %odd = arith.remsi(%n2, %two) : (i64, i64) -> (i64)\n"
    "    %isodd = arith.cmpi(%odd, %z) {pred = \"ne\"} : (i64, i64) -> (i1)\n"
    "    %nn = scf.if(%isodd) ({\n"
    "      %t = arith.muli(%n2, %three) : (i64, i64) -> (i64)\n"
    "      %t1 = arith.addi(%t, %one) : (i64, i64) -> (i64)\n"
    "      scf.yield(%t1) : (i64) -> ()\n"
    "    }, {\n"
    "      %h = arith.divsi(%n2, %two) : (i64, i64) -> (i64)\n"
    "      scf.yield(%h) : (i64) -> ()\n"
    "    }) : (i1) -> (i64)\n"
    "    %s3 = arith.addi(%s2, %one) : (i64, i64) -> (i64)\n"
    "    scf.yield(%s3, %nn) : (i64, i64) -> ()\n"
    "  }) : (i64, i64) -> (i64, i64)\n"
    "  mem.store(%steps, %out, %z) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  mem.store(%last, %out, %one) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @collatz, function_type = (array<i64, 1, C>, i64) -> (), kernel} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%out: array<i64, 1, C>, %n0: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  %three = arith.constant() {value = 3} : () -> (i64)\n"
    "  cf.br() [^head(%z, %n0)] : (i64, i64) -> ()\n"
    "^head(%s: i64, %n: i64):\n"
    "  %c = arith.cmpi(%n, %one) {pred = \"ne\"} : (i64, i64) -> (i1)\n"
    "  cf.cond_br(%c) [^body, ^done] : (i1) -> ()\n"
    "^body:\n"
    "  %odd = arith.remsi(%n, %two) : (i64, i64) -> (i64)\n"
    "  %isodd = arith.cmpi(%odd, %z) {pred = \"ne\"} : (i64, i64) -> (i1)\n"
    "  %s1 = arith.addi(%s, %one) : (i64, i64) -> (i64)\n"
    "  %h = arith.divsi(%n, %two) : (i64, i64) -> (i64)\n"
    "  cf.cond_br(%isodd) [^odd, ^head(%s1, %h)] : (i1, i64, i64) -> ()\n"
    "^odd:\n"
    "  %t = arith.muli(%n, %three) : (i64, i64) -> (i64)\n"
    "  %t1 = arith.addi(%t, %one) : (i64, i64) -> (i64)\n"
    "  cf.br() [^head(%s1, %t1)] : (i64, i64) -> ()\n"
    "^done:\n"
    "  mem.store(%s, %out, %z) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  mem.store(%n, %out, %one) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @collatz_cf, function_type = (array<i64, 1, C>, i64) -> (), kernel} : () -> ()\n";

static void test_while_and_cf(void) {
  Kir k;
  if (!kir_load(&k, COLLATZ)) return;
  const char *names[2] = {"collatz", "collatz_cf"};
  for (int v = 0; v < 2; v++) {
    int64_t out[2] = {0, 0};
    SimArg args[2] = {arr_c(&k, out, "i64", 1, 2, 0), sim_arg_int(27)};
    SimResult r;
    CHECK(kir_launch(&k, names[v], 1, 1, 1, 1, 0, args, 2, NULL, &r));
    CHECK_EQ_INT(out[0], 111);
    CHECK_EQ_INT(out[1], 1);
    args[1] = sim_arg_int(1);
    CHECK(kir_launch(&k, names[v], 1, 1, 1, 1, 0, args, 2, NULL, &r));
    CHECK_EQ_INT(out[0], 0);
  }
  /* lowered by the pass: the structured kernel runs the same in cf form */
  if (kir_pipeline(&k, "lower-scf")) {
    CHECK(kir_scf_ops(&k) == 0);
    int64_t out[2] = {0, 0};
    SimArg args[2] = {arr_c(&k, out, "i64", 1, 2, 0), sim_arg_int(97)};
    SimResult r;
    CHECK(kir_launch(&k, "collatz", 1, 1, 1, 1, 0, args, 2, NULL, &r));
    CHECK_EQ_INT(out[0], 118);
  }
  kir_free(&k);
}

/* ---- the IndexError of a failed check.bounds ------------------------------------------------------ */

static const char *FOO_GRID =
    "func.func() ({\n"
    "^bb0(%in: array<i64, 1, C>, %out: array<f64, 1, C>):\n" KIR_GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<i64, 1, C>) -> (i64)\n"
    "  check.bounds(%i, %n) {axis = 0} : (i64, i64) -> () loc(\"s000_kernels.py\":23:5)\n"
    "  %v = mem.load(%in, %i) : (array<i64, 1, C>, i64) -> (i64)\n"
    "  %f = arith.sitofp(%v) : (i64) -> (f64)\n"
    "  %m = mem.dim(%out) {axis = 0} : (array<f64, 1, C>) -> (i64)\n"
    "  check.bounds(%i, %m) {axis = 0} : (i64, i64) -> () loc(\"s000_kernels.py\":23:5)\n"
    "  mem.store(%f, %out, %i) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @foo_grid, function_type = (array<i64, 1, C>, array<f64, 1, C>) -> (), kernel} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%in: array<i64, 1, C>, %out: array<f64, 1, C>):\n" KIR_GRID1
    "  %v = mem.load(%in, %i) : (array<i64, 1, C>, i64) -> (i64) loc(\"s000_kernels.py\":23:22)\n"
    "  %f = arith.sitofp(%v) : (i64) -> (f64)\n"
    "  mem.store(%f, %out, %i) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @foo_unchecked, function_type = (array<i64, 1, C>, array<f64, 1, C>) -> (), kernel} : () -> ()\n";

static void test_index_error(void) {
  Kir k;
  if (!kir_load(&k, FOO_GRID)) return;
  int64_t in[10];
  double out[10];
  for (int i = 0; i < 10; i++) in[i] = i, out[i] = 0;
  SimArg args[2] = {arr_c(&k, in, "i64", 1, 10, 0), arr_c(&k, out, "f64", 1, 10, 0)};
  SimResult r;
  CHECK(!kir_launch(&k, "foo_grid", 1, 1, 32, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_ERR_INDEX);
  CHECK_STR(r.message, "IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:5)");
  CHECK_STR(r.index_message, r.message);
  CHECK(r.index_error.set && r.index_error.index == 10 && r.index_error.extent == 10 && r.index_error.thread[0] == 10);
  CHECK_EQ_INT(r.index_error.loc.line, 23);
  for (int i = 0; i < 10; i++) CHECK(out[i] == i); /* the other threads ran on */
  CHECK_EQ_INT(r.threads, 32);
  /* without a check: the simulator still refuses the access */
  for (int i = 0; i < 10; i++) out[i] = 0;
  CHECK(!kir_launch(&k, "foo_unchecked", 1, 1, 32, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_ERR_OOB && r.oob);
  CHECK_CONTAINS(r.message, "error: memory access out of bounds (unchecked) in kernel foo_unchecked at s000_kernels.py:23:22");
  CHECK_CONTAINS(r.message, "thread (10,0,0) of block (0,0,0) uses index 10 for axis 0 with size 10");
  for (int i = 0; i < 10; i++) CHECK(out[i] == i);
  kir_free(&k);
}

/* ---- device calls, recursion, the call-depth limit ------------------------------------------------ */

static const char *CALLS =
    "func.func() ({\n"
    "^bb0(%n: i64):\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %c = arith.cmpi(%n, %one) {pred = \"sle\"} : (i64, i64) -> (i1)\n"
    "  %r = scf.if(%c) ({\n"
    "    scf.yield(%one) : (i64) -> ()\n"
    "  }, {\n"
    "    %m = arith.subi(%n, %one) : (i64, i64) -> (i64)\n"
    "    %f = func.call(%m) {callee = @fact} : (i64) -> (i64)\n"
    "    %p = arith.muli(%n, %f) : (i64, i64) -> (i64)\n"
    "    scf.yield(%p) : (i64) -> ()\n"
    "  }) : (i1) -> (i64)\n"
    "  func.return(%r) : (i64) -> ()\n"
    "}) {sym_name = @fact, function_type = (i64) -> (i64)} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%n: i64, %a: array<i64, 1, C>):\n"
    "  %l = mem.alloca() {shape = [2]} : () -> (array<i64, 1, C>)\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  mem.store(%n, %l, %z) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %r = func.call(%n, %a) {callee = @forever} : (i64, array<i64, 1, C>) -> (i64)\n"
    "  %x = mem.load(%l, %z) : (array<i64, 1, C>, i64) -> (i64)\n"
    "  %s = arith.addi(%r, %x) : (i64, i64) -> (i64)\n"
    "  func.return(%s) : (i64) -> ()\n"
    "}) {sym_name = @forever, function_type = (i64, array<i64, 1, C>) -> (i64)} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%out: array<i64, 1, C>, %n: i64, %deep: i1):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %f = func.call(%n) {callee = @fact} : (i64) -> (i64)\n"
    "  mem.store(%f, %out, %z) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  scf.if(%deep) ({\n"
    "    %g = func.call(%n, %out) {callee = @forever} : (i64, array<i64, 1, C>) -> (i64)\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @calls, function_type = (array<i64, 1, C>, i64, i1) -> (), kernel} : () -> ()\n";

static void test_calls(void) {
  Kir k;
  if (!kir_load(&k, CALLS)) return;
  int64_t out[1] = {0};
  SimArg args[3] = {arr_c(&k, out, "i64", 1, 1, 0), sim_arg_int(10), sim_arg_int(0)};
  SimResult r;
  CHECK(kir_launch(&k, "calls", 1, 1, 4, 1, 0, args, 3, NULL, &r));
  CHECK_EQ_INT(out[0], 3628800);
  args[2] = sim_arg_int(1);
  CHECK(!kir_launch(&k, "calls", 1, 1, 4, 1, 0, args, 3, NULL, &r));
  CHECK(r.status == SIM_ERR_RUNTIME);
  CHECK_CONTAINS(r.message, "call depth limit (256) exceeded calling @forever in kernel calls at test.kir:");
  kir_free(&k);
}

/* ---- the step limit ---------------------------------------------------------------------------- */

static const char *SPIN =
    "func.func() ({\n"
    "^bb0(%out: array<i64, 1, C>):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %t = arith.constant() {value = 1 : i1} : () -> (i1)\n"
    "  %r = scf.while(%z) ({\n"
    "  ^bb0(%x: i64):\n"
    "    scf.condition(%t, %x) : (i1, i64) -> ()\n"
    "  }, {\n"
    "  ^bb0(%y: i64):\n"
    "    %y1 = arith.addi(%y, %one) : (i64, i64) -> (i64)\n"
    "    scf.yield(%y1) : (i64) -> ()\n"
    "  }) : (i64) -> (i64)\n"
    "  mem.store(%r, %out, %z) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @spin, function_type = (array<i64, 1, C>) -> (), kernel} : () -> ()\n";

static void test_step_limit(void) {
  Kir k;
  if (!kir_load(&k, SPIN)) return;
  int64_t out[1] = {0};
  SimArg args[1] = {arr_c(&k, out, "i64", 1, 1, 0)};
  SimOptions o;
  sim_options_init(&o);
  o.max_steps = 1000000;
  SimResult r;
  CHECK(!kir_launch(&k, "spin", 2, 1, 8, 1, 0, args, 1, &o, &r));
  CHECK(r.status == SIM_ERR_STEP_LIMIT);
  CHECK_CONTAINS(r.message, "error: simulation step limit exceeded (1000000 ops in the launch; "
                            "kf_runtime_options.sim_max_steps, kfront run --sim-max-steps) in kernel spin");
  CHECK(r.steps <= 1000000);
  o.max_steps = 0;
  o.max_thread_steps = 5000;
  CHECK(!kir_launch(&k, "spin", 2, 1, 8, 1, 0, args, 1, &o, &r));
  CHECK(r.status == SIM_ERR_STEP_LIMIT);
  CHECK_CONTAINS(r.message, "(5000 ops in one thread; kf_runtime_options.sim_max_steps, kfront run --sim-max-steps) "
                            "in kernel spin at test.kir:");
  CHECK_CONTAINS(r.message, ": thread (0,0,0) of block (0,0,0)");
  /* a wall-clock limit: a thread looks at the clock every 2^20 ops */
  o.max_thread_steps = 0;
  o.max_seconds = 0.05;
  CHECK(!kir_launch(&k, "spin", 2, 1, 8, 1, 0, args, 1, &o, &r));
  CHECK(r.status == SIM_ERR_STEP_LIMIT);
  CHECK_CONTAINS(r.message, "error: simulation time limit exceeded (0.05 s; kf_runtime_options.sim_max_seconds, "
                            "kfront run --sim-max-seconds) in kernel spin at test.kir:");
  CHECK(r.seconds >= 0.05 && r.seconds < 5);
  kir_free(&k);
}

/* ---- integer widths, casts, f16 and f32 precision, math ---------------------------------------------- */

static const char *SCALARS =
    "func.func() ({\n"
    "^bb0(%o: array<i64, 1, C>, %f: array<f32, 1, C>, %h: array<f16, 1, C>, %d: array<f64, 1, C>, %b: array<u8, 1, C>):\n"
    "  %k0 = arith.constant() {value = 0} : () -> (i64)\n"
    "  %k1 = arith.constant() {value = 1} : () -> (i64)\n"
    "  %k2 = arith.constant() {value = 2} : () -> (i64)\n"
    "  %k3 = arith.constant() {value = 3} : () -> (i64)\n"
    "  %k4 = arith.constant() {value = 4} : () -> (i64)\n"
    "  %k5 = arith.constant() {value = 5} : () -> (i64)\n"
    "  %k6 = arith.constant() {value = 6} : () -> (i64)\n"
    "  %k7 = arith.constant() {value = 7} : () -> (i64)\n"
    "  %i8max = arith.constant() {value = 127 : i8} : () -> (i8)\n"
    "  %i8one = arith.constant() {value = 1 : i8} : () -> (i8)\n"
    "  %w8 = arith.addi(%i8max, %i8one) : (i8, i8) -> (i8)\n"
    "  %w64 = arith.extsi(%w8) : (i8) -> (i64)\n"
    "  mem.store(%w64, %o, %k0) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %u32max = arith.constant() {value = 4294967295 : u32} : () -> (u32)\n"
    "  %u64 = arith.extui(%u32max) : (u32) -> (u64)\n"
    "  %u64i = arith.bitcast(%u64) : (u64) -> (i64)\n"
    "  mem.store(%u64i, %o, %k1) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %one32 = arith.constant() {value = 1 : u32} : () -> (u32)\n"
    "  %lt = arith.cmpi(%one32, %u32max) {pred = \"ult\"} : (u32, u32) -> (i1)\n"
    "  %slt = arith.cmpi(%one32, %u32max) {pred = \"slt\"} : (u32, u32) -> (i1)\n"
    "  %lt64 = arith.extui(%lt) : (i1) -> (i64)\n"
    "  %slt64 = arith.extui(%slt) : (i1) -> (i64)\n"
    "  %both = arith.muli(%lt64, %k2) : (i64, i64) -> (i64)\n"
    "  %both2 = arith.addi(%both, %slt64) : (i64, i64) -> (i64)\n"
    "  mem.store(%both2, %o, %k2) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %big = arith.constant() {value = 1.0e10 : f32} : () -> (f32)\n"
    "  %sat = arith.fptosi(%big) : (f32) -> (i32)\n"
    "  %sat64 = arith.extsi(%sat) : (i32) -> (i64)\n"
    "  mem.store(%sat64, %o, %k3) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %m5 = arith.constant() {value = -5 : i32} : () -> (i32)\n"
    "  %sh = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %shr = arith.shrsi(%m5, %sh) : (i32, i32) -> (i32)\n"
    "  %shr64 = arith.extsi(%shr) : (i32) -> (i64)\n"
    "  mem.store(%shr64, %o, %k4) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %m5u = arith.bitcast(%m5) : (i32) -> (u32)\n"
    "  %shru = arith.shrui(%m5u, %one32) : (u32, u32) -> (u32)\n"
    "  %shru64 = arith.extui(%shru) : (u32) -> (i64)\n"
    "  mem.store(%shru64, %o, %k5) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %p = arith.ipow(%k3, %k4) : (i64, i64) -> (i64)\n"
    "  %clz = arith.clz(%one32) : (u32) -> (u32)\n"
    "  %clz64 = arith.extui(%clz) : (u32) -> (i64)\n"
    "  %pc = arith.muli(%p, %clz64) : (i64, i64) -> (i64)\n"
    "  mem.store(%pc, %o, %k6) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  %two = arith.constant() {value = 2.0 : f32} : () -> (f32)\n"
    "  %sq = math.sqrt(%two) : (f32) -> (f32)\n"
    "  mem.store(%sq, %f, %k0) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "  %tenth = arith.constant() {value = 0.1 : f32} : () -> (f32)\n"
    "  %s3 = arith.addf(%tenth, %tenth) : (f32, f32) -> (f32)\n"
    "  %s4 = arith.addf(%s3, %tenth) : (f32, f32) -> (f32)\n"
    "  mem.store(%s4, %f, %k1) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "  %h1 = arith.constant() {value = 1.0 : f16} : () -> (f16)\n"
    "  %hs = arith.constant() {value = 0.0001 : f16} : () -> (f16)\n"
    "  %hsum = arith.addf(%h1, %hs) : (f16, f16) -> (f16)\n"
    "  mem.store(%hsum, %h, %k0) : (f16, array<f16, 1, C>, i64) -> ()\n"
    "  %hin = mem.load(%h, %k1) : (array<f16, 1, C>, i64) -> (f16)\n"
    "  %hd = arith.extf(%hin) : (f16) -> (f64)\n"
    "  mem.store(%hd, %d, %k0) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "  %pi = arith.constant() {value = 3.14159265358979 : f64} : () -> (f64)\n"
    "  %cos = math.cos(%pi) : (f64) -> (f64)\n"
    "  %r25 = arith.constant() {value = 2.5 : f64} : () -> (f64)\n"
    "  %rnd = math.round(%r25) : (f64) -> (f64)\n"
    "  %cr = arith.addf(%cos, %rnd) : (f64, f64) -> (f64)\n"
    "  mem.store(%cr, %d, %k1) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "  %u300 = arith.constant() {value = 300 : i32} : () -> (i32)\n"
    "  %u8v = arith.trunci(%u300) : (i32) -> (u8)\n"
    "  mem.store(%u8v, %b, %k0) : (u8, array<u8, 1, C>, i64) -> ()\n"
    "  %bits = arith.bitcast(%two) : (f32) -> (u32)\n"
    "  %bits64 = arith.extui(%bits) : (u32) -> (i64)\n"
    "  mem.store(%bits64, %o, %k7) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @scalars, function_type = (array<i64, 1, C>, array<f32, 1, C>, array<f16, 1, C>, array<f64, 1, C>, "
    "array<u8, 1, C>) -> (), kernel} : () -> ()\n";

static void test_scalars(void) {
  Kir k;
  if (!kir_load(&k, SCALARS)) return;
  int64_t o[8] = {0};
  float f[2] = {0};
  uint16_t h[2] = {0, 0x3e00}; /* h[1] = 1.5 */
  double d[2] = {0};
  uint8_t b[1] = {0};
  SimArg args[5] = {arr_c(&k, o, "i64", 1, 8, 0), arr_c(&k, f, "f32", 1, 2, 0), arr_c(&k, h, "f16", 1, 2, 0),
                    arr_c(&k, d, "f64", 1, 2, 0), arr_c(&k, b, "u8", 1, 1, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "scalars", 1, 1, 1, 1, 0, args, 5, NULL, &r));
  CHECK_EQ_INT(o[0], -128);
  CHECK_EQ_INT(o[1], 4294967295ll);
  CHECK_EQ_INT(o[2], 2);            /* 1 <u 0xffffffff, but not 1 <s -1 */
  CHECK_EQ_INT(o[3], 2147483647);   /* saturated */
  CHECK_EQ_INT(o[4], -3);
  CHECK_EQ_INT(o[5], 2147483645);
  CHECK_EQ_INT(o[6], 81 * 31);
  CHECK_EQ_INT(o[7], 0x40000000);
  CHECK(f[0] == sqrtf(2.0f));
  float t = 0.1f;
  CHECK(f[1] == (t + t) + t);       /* computed in float, not double */
  CHECK(h[0] == 0x3c00);            /* 1 + 0.0001 rounds to 1 in f16 */
  CHECK(d[0] == 1.5);
  CHECK(fabs(d[1] - 1.0) < 1e-12);  /* cos(pi) + round(2.5) = -1 + 2 */
  CHECK_EQ_INT(b[0], 44);
  kir_free(&k);
}

/* ---- constant, local and dynamic shared arrays ------------------------------------------------------ */

static const char *ARRAYS =
    "mem.global() {sym_name = @coef, type = array<f64, 1, C>, shape = [4], space = \"const\", value = [1.0, -0.5, 0.25, 4.0]} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%out: array<f64, 1, C>):\n"
    "  %tx32 = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %tx = arith.extsi(%tx32) : (i32) -> (i64)\n"
    "  %d = mem.dynamic_shared() : () -> (array<f64, 1, C>)\n"
    "  %ftx = arith.sitofp(%tx) : (i64) -> (f64)\n"
    "  mem.store(%ftx, %d, %tx) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "  gpu.barrier() : () -> ()\n"
    "  %n = mem.dim(%d) {axis = 0} : (array<f64, 1, C>) -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %n1 = arith.subi(%n, %one) : (i64, i64) -> (i64)\n"
    "  %j = arith.subi(%n1, %tx) : (i64, i64) -> (i64)\n"
    "  %v = mem.load(%d, %j) : (array<f64, 1, C>, i64) -> (f64)\n"
    "  %four = arith.constant() {value = 4} : () -> (i64)\n"
    "  %m = arith.floormodsi(%tx, %four) : (i64, i64) -> (i64)\n"
    "  %cg = mem.global_ref() {name = @coef} : () -> (array<f64, 1, C>)\n"
    "  %c = mem.load(%cg, %m) : (array<f64, 1, C>, i64) -> (f64)\n"
    "  %loc = mem.alloca() {shape = [2, 3]} : () -> (array<f64, 2, C>)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  mem.store(%v, %loc, %one, %two) : (f64, array<f64, 2, C>, i64, i64) -> ()\n"
    "  %w = mem.load(%loc, %one, %two) : (array<f64, 2, C>, i64, i64) -> (f64)\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %zz = mem.load(%loc, %z, %z) : (array<f64, 2, C>, i64, i64) -> (f64)\n"
    "  %wc = arith.mulf(%w, %c) : (f64, f64) -> (f64)\n"
    "  %wcz = arith.addf(%wc, %zz) : (f64, f64) -> (f64)\n"
    "  mem.store(%wcz, %out, %tx) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @arrays, function_type = (array<f64, 1, C>) -> (), kernel} : () -> ()\n";

static void test_const_local_dynamic(void) {
  Kir k;
  if (!kir_load(&k, ARRAYS)) return;
  double out[64];
  SimArg args[1] = {arr_c(&k, out, "f64", 1, 64, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "arrays", 2, 1, 64, 1, 64 * sizeof(double), args, 1, NULL, &r));
  static const double coef[4] = {1.0, -0.5, 0.25, 4.0};
  for (int t = 0; t < 64; t++) CHECK(out[t] == (63 - t) * coef[t % 4]);
  CHECK_EQ_INT(r.races, 0);
  CHECK_EQ_INT(r.barriers, 2);
  kir_free(&k);
}

/* ---- setup errors ---------------------------------------------------------------------------------- */

static void test_setup_errors(void) {
  Kir k;
  if (!kir_load(&k, COPY1D)) return;
  double buf[8];
  Op *f = ir_module_lookup(k.m, "copy1d");
  uint32_t grid[3] = {1, 1, 1}, block[3] = {2048, 1, 1};
  SimArg args[2] = {arr_c(&k, buf, "f64", 1, 8, 0), arr_c(&k, buf, "f32", 1, 8, 0)};
  SimResult r;
  CHECK(!sim_launch(k.m, f, grid, block, 0, args, 2, NULL, &r, &k.diag));
  CHECK(r.status == SIM_ERR_SETUP);
  CHECK_CONTAINS(diag_text(&k.diag), "at most 1024 threads per block");
  block[0] = 8;
  CHECK(!sim_launch(k.m, f, grid, block, 0, args, 2, NULL, &r, &k.diag));
  CHECK_CONTAINS(diag_text(&k.diag), "argument 1 of kernel copy1d must be an array of type array<f64, 1, C>");
  CHECK(!sim_launch(k.m, f, grid, block, 0, args, 1, NULL, &r, &k.diag));
  CHECK_CONTAINS(diag_text(&k.diag), "kernel copy1d takes 2 arguments, got 1");
  SimArg strided = args[0];
  strided.array.strides[0] = 16;
  args[1] = strided;
  args[1].array.shape[0] = 4;
  CHECK(!sim_launch(k.m, f, grid, block, 0, args, 2, NULL, &r, &k.diag));
  CHECK_CONTAINS(diag_text(&k.diag), "is not C-contiguous");
  kir_free(&k);
}

int main(void) {
  RUN(test_copy1d);
  RUN(test_2d_transposed);
  RUN(test_python_divmod);
  RUN(test_for_negative_step);
  RUN(test_while_and_cf);
  RUN(test_index_error);
  RUN(test_calls);
  RUN(test_step_limit);
  RUN(test_scalars);
  RUN(test_const_local_dynamic);
  RUN(test_setup_errors);
  return sim_test_summary("sim_exec");
}
