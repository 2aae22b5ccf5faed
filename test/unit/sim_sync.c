/* sim_sync.c — the simulator's CUDA execution model: the seed's shared-memory tiled matmul (two barriers
 * per tile) against a C reference, structured and lowered to cf, on one and two host threads; barrier
 * divergence (threads wait at different barriers); threads that exited before a barrier do not hold it (PTX),
 * unless strict_barriers asks for CUDA C's rule; warp ops and barrier_reduce after some lanes exited, and the
 * error of a shuffle reading an exited lane; data races on shared memory
 * (write/write, read/write, 2-D element) and their absence when a barrier separates the accesses;
 * atomics from thousands of threads (add, max, inc, CAS); warp shuffles (down reduction, idx, up with a
 * width), votes and ballot, activemask under divergence; barrier_reduce. */
#include "sim_test.h"

/* ---- fast_matmul (seed 002) ------------------------------------------------------------------------ */

static const char *MATMUL =
    "mem.global() {sym_name = @sA, type = array<f32, 2, C>, shape = [16, 16], space = \"shared\"} : () -> ()\n"
    "mem.global() {sym_name = @sB, type = array<f32, 2, C>, shape = [16, 16], space = \"shared\"} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%A: array<f32, 2, C>, %B: array<f32, 2, C>, %C: array<f64, 2, C>):\n"
    "  %sA = mem.global_ref() {name = @sA} : () -> (array<f32, 2, C>)\n"
    "  %sB = mem.global_ref() {name = @sB} : () -> (array<f32, 2, C>)\n"
    "  %tx32 = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %ty32 = gpu.thread_id() {dim = 1} : () -> (i32)\n"
    "  %bx = gpu.block_id() {dim = 0} : () -> (i32)\n"
    "  %by = gpu.block_id() {dim = 1} : () -> (i32)\n"
    "  %bw = gpu.block_dim() {dim = 0} : () -> (i32)\n"
    "  %bh = gpu.block_dim() {dim = 1} : () -> (i32)\n"
    "  %x0 = arith.muli(%bx, %bw) : (i32, i32) -> (i32)\n"
    "  %x1 = arith.addi(%x0, %tx32) : (i32, i32) -> (i32)\n"
    "  %x = arith.extsi(%x1) : (i32) -> (i64)\n"
    "  %y0 = arith.muli(%by, %bh) : (i32, i32) -> (i32)\n"
    "  %y1 = arith.addi(%y0, %ty32) : (i32, i32) -> (i32)\n"
    "  %y = arith.extsi(%y1) : (i32) -> (i64)\n"
    "  %tx = arith.extsi(%tx32) : (i32) -> (i64)\n"
    "  %ty = arith.extsi(%ty32) : (i32) -> (i64)\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %tpb = arith.constant() {value = 16} : () -> (i64)\n"
    "  %tpbf = arith.constant() {value = 16.0} : () -> (f64)\n"
    "  %fz = arith.constant() {value = 0.0} : () -> (f64)\n"
    "  %a1 = mem.dim(%A) {axis = 1} : (array<f32, 2, C>) -> (i64)\n"
    "  %a1f = arith.sitofp(%a1) : (i64) -> (f64)\n"
    "  %nq = arith.divf(%a1f, %tpbf) : (f64, f64) -> (f64)\n"
    "  %nt = arith.fptosi(%nq) : (f64) -> (i64)\n"
    "  %tmp = scf.for(%z, %nt, %one, %fz) ({\n"
    "  ^bb0(%i: i64, %acc: f64):\n"
    "    %off = arith.muli(%i, %tpb) : (i64, i64) -> (i64)\n"
    "    %ac = arith.addi(%ty, %off) : (i64, i64) -> (i64)\n"
    "    %av = mem.load(%A, %x, %ac) : (array<f32, 2, C>, i64, i64) -> (f32)\n"
    "    mem.store(%av, %sA, %tx, %ty) : (f32, array<f32, 2, C>, i64, i64) -> ()\n"
    "    %br = arith.addi(%tx, %off) : (i64, i64) -> (i64)\n"
    "    %bv = mem.load(%B, %br, %y) : (array<f32, 2, C>, i64, i64) -> (f32)\n"
    "    mem.store(%bv, %sB, %tx, %ty) : (f32, array<f32, 2, C>, i64, i64) -> ()\n"
    "    gpu.barrier() : () -> ()\n"
    "    %acc2 = scf.for(%z, %tpb, %one, %acc) ({\n"
    "    ^bb0(%j: i64, %t: f64):\n"
    "      %p = mem.load(%sA, %tx, %j) : (array<f32, 2, C>, i64, i64) -> (f32)\n"
    "      %q = mem.load(%sB, %j, %ty) : (array<f32, 2, C>, i64, i64) -> (f32)\n"
    "      %m = arith.mulf(%p, %q) : (f32, f32) -> (f32)\n"
    "      %me = arith.extf(%m) : (f32) -> (f64)\n"
    "      %t2 = arith.addf(%t, %me) : (f64, f64) -> (f64)\n"
    "      scf.yield(%t2) : (f64) -> ()\n"
    "    }) : (i64, i64, i64, f64) -> (f64)\n"
    "    gpu.barrier() : () -> ()\n"
    "    scf.yield(%acc2) : (f64) -> ()\n"
    "  }) : (i64, i64, i64, f64) -> (f64)\n"
    "  mem.store(%tmp, %C, %x, %y) : (f64, array<f64, 2, C>, i64, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @fast_matmul, function_type = (array<f32, 2, C>, array<f32, 2, C>, array<f64, 2, C>) -> (), kernel} : () -> ()\n";

enum { M = 32, K = 48, N = 16 };

static void matmul_check(Kir *k, unsigned nworkers, bool all_threes) {
  static float A[M][K], B[K][N];
  static double C[M][N], ref[M][N];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < K; j++) A[i][j] = all_threes ? 3.0f : (float)((i * 7 + j * 3) % 11) * 0.37f - 1.5f;
  for (int i = 0; i < K; i++)
    for (int j = 0; j < N; j++) B[i][j] = all_threes ? 4.0f : (float)((i * 5 + j) % 13) * 0.21f - 1.0f;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double t = 0;
      for (int kk = 0; kk < K; kk++) t += (double)(A[i][kk] * B[kk][j]);
      ref[i][j] = t;
      C[i][j] = -1;
    }
  SimArg args[3] = {arr_c(k, A, "f32", 2, M, K), arr_c(k, B, "f32", 2, K, N), arr_c(k, C, "f64", 2, M, N)};
  SimOptions o;
  sim_options_init(&o);
  o.nworkers = nworkers;
  SimResult r;
  CHECK(kir_launch(k, "fast_matmul", 2, 1, 16, 16, 0, args, 3, &o, &r));
  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) bad += C[i][j] != ref[i][j];
  CHECK_EQ_INT(bad, 0);
  if (all_threes) CHECK(C[5][7] == 576.0);
  CHECK_EQ_INT(r.races, 0);
  CHECK_EQ_INT(r.threads, 512);
  CHECK_EQ_INT(r.barriers, 2 * 3 * 2); /* 2 blocks x 3 tiles x 2 barriers */
}

static void test_matmul(void) {
  Kir k;
  if (!kir_load(&k, MATMUL)) return;
  matmul_check(&k, 1, true);
  matmul_check(&k, 1, false);
  matmul_check(&k, 2, false);
  CHECK(kir_scf_ops(&k) == 2);
  if (kir_pipeline(&k, "lower-scf")) {
    CHECK(kir_scf_ops(&k) == 0);
    matmul_check(&k, 1, false);
  }
  kir_free(&k);
}

/* ---- barrier divergence ---------------------------------------------------------------------------- */

static const char *DIVERGE =
    "func.func() ({\n"
    "^bb0(%out: array<i32, 1, C>, %mode: i64):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %h = arith.constant() {value = 16 : i32} : () -> (i32)\n"
    "  %c = arith.cmpi(%tx, %h) {pred = \"slt\"} : (i32, i32) -> (i1)\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %m0 = arith.cmpi(%mode, %z) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%m0) ({\n"
    "    scf.if(%c) ({\n"
    "      gpu.barrier() : () -> () loc(\"div.py\":5:9)\n"
    "      scf.yield() : () -> ()\n"
    "    }, {\n"
    "      scf.yield() : () -> ()\n"
    "    }) : (i1) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.if(%c) ({\n"
    "      gpu.barrier() : () -> () loc(\"div.py\":8:9)\n"
    "      scf.yield() : () -> ()\n"
    "    }, {\n"
    "      gpu.barrier() : () -> () loc(\"div.py\":10:9)\n"
    "      scf.yield() : () -> ()\n"
    "    }) : (i1) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  gpu.barrier() : () -> () loc(\"div.py\":11:5)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @diverge, function_type = (array<i32, 1, C>, i64) -> (), kernel} : () -> ()\n";

static void test_barrier_divergence(void) {
  Kir k;
  if (!kir_load(&k, DIVERGE)) return;
  int32_t out[1];
  SimArg args[2] = {arr_c(&k, out, "i32", 1, 1, 0), sim_arg_int(0)};
  SimResult r;
  CHECK(!kir_launch(&k, "diverge", 2, 1, 64, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_ERR_BARRIER && r.barrier_divergence);
  CHECK_STR(r.message, "error: barrier divergence in kernel diverge at div.py:5:9: thread (0,0,0) of block (0,0,0) "
                       "waits here, but thread (16,0,0) waits at div.py:11:5");
  args[1] = sim_arg_int(1);
  CHECK(!kir_launch(&k, "diverge", 2, 1, 64, 1, 0, args, 2, NULL, &r));
  CHECK_STR(r.message, "error: barrier divergence in kernel diverge at div.py:8:9: thread (0,0,0) of block (0,0,0) "
                       "waits here, but thread (16,0,0) waits at div.py:10:9");
  /* with 16 threads, all take the same path: fine */
  CHECK(kir_launch(&k, "diverge", 2, 1, 16, 1, 0, args, 2, NULL, &r));
  CHECK_EQ_INT(r.barriers, 4);
  kir_free(&k);
}

static const char *EARLY_EXIT =
    "func.func() ({\n"
    "^bb0(%n: i32):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %c = arith.cmpi(%tx, %n) {pred = \"sge\"} : (i32, i32) -> (i1)\n"
    "  cf.cond_br(%c) [^exit, ^work] : (i1) -> ()\n"
    "^exit:\n"
    "  func.return() : () -> ()\n"
    "^work:\n"
    "  gpu.barrier() : () -> () loc(\"exit.py\":7:5)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @early, function_type = (i32) -> (), kernel} : () -> ()\n";

/* PTX's `exit`: a barrier waits for the threads that have not exited (threads 20..31 returned); CUDA C's
 * stricter rule (opts.strict_barriers) reports them */
static void test_barrier_after_exit(void) {
  Kir k;
  if (!kir_load(&k, EARLY_EXIT)) return;
  SimArg args[1] = {sim_arg_int(20)};
  SimResult r;
  for (unsigned n = 0; n <= 32; n += 4) { /* none, some or all of the threads exit before the barrier */
    args[0] = sim_arg_int(n);
    CHECK(kir_launch(&k, "early", 2, 1, 32, 1, 0, args, 1, NULL, &r));
    CHECK_EQ_INT(r.barriers, n ? 2 : 0);
    CHECK(!r.barrier_divergence);
  }
  SimOptions o;
  sim_options_init(&o);
  o.strict_barriers = true;
  args[0] = sim_arg_int(20);
  CHECK(!kir_launch(&k, "early", 1, 1, 32, 1, 0, args, 1, &o, &r));
  CHECK(r.status == SIM_ERR_BARRIER && r.barrier_divergence);
  CHECK_STR(r.message, "error: barrier divergence in kernel early at exit.py:7:5: thread (0,0,0) of block (0,0,0) "
                       "waits here, but thread (20,0,0) has exited");
  args[0] = sim_arg_int(32);
  CHECK(kir_launch(&k, "early", 1, 1, 32, 1, 0, args, 1, &o, &r));
  kir_free(&k);
}

/* ---- warp ops and barrier_reduce after some threads exited: PTX's warp ops wait for the non-exited threads
 * their mask names, votes and barrier_reduce count those; a shuffle that reads an exited lane (or one past the
 * block's last thread) reads an undefined value on the GPU: an error ---------------------------------------- */

static const char *EXITED_LANES =
    "func.func() ({\n"
    "^bb0(%bal: array<u32, 1, C>, %shf: array<i32, 1, C>, %cnt: array<i32, 1, C>, %n: i32, %delta: i32):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %c = arith.cmpi(%tx, %n) {pred = \"sge\"} : (i32, i32) -> (i1)\n"
    "  cf.cond_br(%c) [^exit, ^work] : (i1) -> ()\n"
    "^exit:\n"
    "  func.return() : () -> ()\n"
    "^work:\n"
    "  %tx64 = arith.extsi(%tx) : (i32) -> (i64)\n"
    "  %full = arith.constant() {value = 4294967295 : u32} : () -> (u32)\n"
    "  %w32 = arith.constant() {value = 32 : i32} : () -> (i32)\n"
    "  %yes = arith.constant() {value = 1 : i1} : () -> (i1)\n"
    "  gpu.syncwarp(%full) : (u32) -> () loc(\"lanes.py\":8:5)\n"
    "  %b = gpu.vote(%full, %yes) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "  mem.store(%b, %bal, %tx64) : (u32, array<u32, 1, C>, i64) -> ()\n"
    "  %s = gpu.shfl(%full, %tx, %delta, %w32) {mode = \"down\"} : (u32, i32, i32, i32) -> (i32) loc(\"lanes.py\":10:9)\n"
    "  mem.store(%s, %shf, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  %k = gpu.barrier_reduce(%yes) {kind = \"count\"} : (i1) -> (i32) loc(\"lanes.py\":12:9)\n"
    "  mem.store(%k, %cnt, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @lanes, function_type = (array<u32, 1, C>, array<i32, 1, C>, array<i32, 1, C>, i32, i32) -> (), "
    "kernel} : () -> ()\n";

static bool launch_lanes(Kir *k, unsigned block, int n, int delta, const SimOptions *o, uint32_t *bal, int32_t *shf,
                         int32_t *cnt, SimResult *r) {
  for (unsigned t = 0; t < block; t++) bal[t] = 0, shf[t] = cnt[t] = -1;
  SimArg args[5] = {arr_c(k, bal, "u32", 1, block, 0), arr_c(k, shf, "i32", 1, block, 0),
                    arr_c(k, cnt, "i32", 1, block, 0), sim_arg_int(n), sim_arg_int(delta)};
  return kir_launch(k, "lanes", 1, 1, block, 1, 0, args, 5, o, r);
}

static void test_warp_ops_after_exit(void) {
  Kir k;
  if (!kir_load(&k, EXITED_LANES)) return;
  uint32_t bal[64];
  int32_t shf[64], cnt[64];
  SimResult r;
  /* 64 threads, 40 live: warp 0 whole, warp 1 lanes 0..7; shuffles down by 4 read live lanes only in warp 0 */
  CHECK(launch_lanes(&k, 64, 40, 0, NULL, bal, shf, cnt, &r));
  for (unsigned t = 0; t < 64; t++) {
    CHECK_EQ_INT(bal[t], t < 32 ? 0xffffffffu : t < 40 ? 0xffu : 0);
    CHECK_EQ_INT(shf[t], t < 40 ? (int)t : -1);
    CHECK_EQ_INT(cnt[t], t < 40 ? 40 : -1);
  }
  CHECK_EQ_INT(r.barriers, 1);
  /* 20 live of 32: lanes 0..3 read lanes 16..19, lane 4 lane 20, which exited */
  CHECK(launch_lanes(&k, 32, 20, 16, NULL, bal, shf, cnt, &r) == false);
  CHECK(r.status == SIM_ERR_RUNTIME && !r.barrier_divergence);
  CHECK_STR(r.message, "error: shuffle from an absent lane in kernel lanes at lanes.py:10:9: thread (4,0,0) of block "
                       "(0,0,0) reads lane 20 of its warp, thread (20,0,0), which has exited (on the GPU the value "
                       "read is undefined)");
  /* warp 1 exited whole: warp 0's shuffles read live lanes (or, past the warp, their own value) */
  CHECK(launch_lanes(&k, 64, 32, 16, NULL, bal, shf, cnt, &r));
  for (unsigned t = 0; t < 64; t++) CHECK_EQ_INT(shf[t], t < 16 ? (int)t + 16 : t < 32 ? (int)t : -1);
  CHECK_EQ_INT(cnt[0], 32);
  /* a block of 16 threads: its warp has no lanes 16..31 */
  CHECK(!launch_lanes(&k, 16, 16, 8, NULL, bal, shf, cnt, &r));
  CHECK_STR(r.message, "error: shuffle from an absent lane in kernel lanes at lanes.py:10:9: thread (8,0,0) of block "
                       "(0,0,0) reads lane 16 of its warp, which the block does not have (its last warp has 16 threads) "
                       "(on the GPU the value read is undefined)");
  CHECK(launch_lanes(&k, 16, 12, 0, NULL, bal, shf, cnt, &r));
  CHECK_EQ_INT(bal[0], 0xfffu);
  CHECK_EQ_INT(cnt[11], 12);
  /* CUDA C's rule: barrier_reduce after the exits is a divergence (syncwarp and the vote still are not) */
  SimOptions o;
  sim_options_init(&o);
  o.strict_barriers = true;
  CHECK(!launch_lanes(&k, 32, 20, 0, &o, bal, shf, cnt, &r));
  CHECK_STR(r.message, "error: barrier divergence in kernel lanes at lanes.py:12:9: thread (0,0,0) of block (0,0,0) "
                       "waits here, but thread (20,0,0) has exited");
  CHECK_EQ_INT(bal[0], 0xfffffu);
  kir_free(&k);
}

/* ---- data races on shared memory -------------------------------------------------------------------- */

static const char *RACE =
    "mem.global() {sym_name = @sm, type = array<i32, 1, C>, shape = [32], space = \"shared\"} : () -> ()\n"
    "mem.global() {sym_name = @sm2, type = array<f32, 2, C>, shape = [4, 4], space = \"shared\"} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%out: array<i32, 1, C>, %sync: i1, %mode: i64):\n"
    "  %sm = mem.global_ref() {name = @sm} : () -> (array<i32, 1, C>)\n"
    "  %sm2 = mem.global_ref() {name = @sm2} : () -> (array<f32, 2, C>)\n"
    "  %tx32 = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %tx = arith.extsi(%tx32) : (i32) -> (i64)\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %two = arith.constant() {value = 2} : () -> (i64)\n"
    "  %is0 = arith.cmpi(%tx, %z) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  %is1 = arith.cmpi(%tx, %one) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  %v1 = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %v2 = arith.constant() {value = 2 : i32} : () -> (i32)\n"
    "  %m0 = arith.cmpi(%mode, %z) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  %m1 = arith.cmpi(%mode, %one) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    "  %m2 = arith.cmpi(%mode, %two) {pred = \"eq\"} : (i64, i64) -> (i1)\n"
    /* mode 0: write/write on sm[0] */
    "  %w0 = arith.andi(%m0, %is0) : (i1, i1) -> (i1)\n"
    "  scf.if(%w0) ({\n"
    "    mem.store(%v1, %sm, %z) : (i32, array<i32, 1, C>, i64) -> () loc(\"race.py\":4:5)\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    /* mode 1: each thread writes sm[tx], thread 1 then reads sm[0] */
    "  scf.if(%m1) ({\n"
    "    mem.store(%tx32, %sm, %tx) : (i32, array<i32, 1, C>, i64) -> () loc(\"race.py\":5:5)\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    /* mode 2: thread 0 writes sm2[1, 2], thread 1 reads it */
    "  %w2 = arith.andi(%m2, %is0) : (i1, i1) -> (i1)\n"
    "  scf.if(%w2) ({\n"
    "    %f = arith.constant() {value = 2.5 : f32} : () -> (f32)\n"
    "    mem.store(%f, %sm2, %one, %two) : (f32, array<f32, 2, C>, i64, i64) -> () loc(\"race.py\":6:5)\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  scf.if(%sync) ({\n"
    "    gpu.barrier() : () -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  scf.if(%is1) ({\n"
    "    scf.if(%m0) ({\n"
    "      mem.store(%v2, %sm, %z) : (i32, array<i32, 1, C>, i64) -> () loc(\"race.py\":9:5)\n"
    "      scf.yield() : () -> ()\n"
    "    }, {\n"
    "      scf.yield() : () -> ()\n"
    "    }) : (i1) -> ()\n"
    "    scf.if(%m1) ({\n"
    "      %r = mem.load(%sm, %z) : (array<i32, 1, C>, i64) -> (i32) loc(\"race.py\":10:9)\n"
    "      mem.store(%r, %out, %one) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "      scf.yield() : () -> ()\n"
    "    }, {\n"
    "      scf.yield() : () -> ()\n"
    "    }) : (i1) -> ()\n"
    "    scf.if(%m2) ({\n"
    "      %r2 = mem.load(%sm2, %one, %two) : (array<f32, 2, C>, i64, i64) -> (f32) loc(\"race.py\":11:9)\n"
    "      %r2i = arith.fptosi(%r2) : (f32) -> (i32)\n"
    "      mem.store(%r2i, %out, %one) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "      scf.yield() : () -> ()\n"
    "    }, {\n"
    "      scf.yield() : () -> ()\n"
    "    }) : (i1) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  gpu.barrier() : () -> ()\n"
    /* everyone reads sm[0] after the barrier: reads alone never race */
    "  %fin = mem.load(%sm, %z) : (array<i32, 1, C>, i64) -> (i32)\n"
    "  scf.if(%is0) ({\n"
    "    mem.store(%fin, %out, %z) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @race, function_type = (array<i32, 1, C>, i1, i64) -> (), kernel} : () -> ()\n";

static void test_races(void) {
  Kir k;
  if (!kir_load(&k, RACE)) return;
  int32_t out[2];
  SimArg args[3] = {arr_c(&k, out, "i32", 1, 2, 0), sim_arg_int(0), sim_arg_int(0)};
  SimResult r;
  /* write/write without a barrier */
  CHECK(!kir_launch(&k, "race", 1, 1, 32, 1, 0, args, 3, NULL, &r));
  CHECK(r.status == SIM_ERR_RACE && r.race.set && r.race.write_write);
  CHECK_CONTAINS(r.message, "error: data race on shared array at race.py:9:5 (and race.py:4:5): threads (1,0,0) and "
                            "(0,0,0) access element [0] between two barriers");
  CHECK_STR(r.race_message, r.message);
  CHECK_EQ_INT(out[0], 2);
  /* the same with a barrier in between: no race */
  args[1] = sim_arg_int(1);
  CHECK(kir_launch(&k, "race", 1, 1, 32, 1, 0, args, 3, NULL, &r));
  CHECK_EQ_INT(r.races, 0);
  CHECK_EQ_INT(out[0], 2);
  /* read/write: thread 0 writes sm[0], thread 1 reads it */
  args[1] = sim_arg_int(0);
  args[2] = sim_arg_int(1);
  CHECK(!kir_launch(&k, "race", 1, 1, 32, 1, 0, args, 3, NULL, &r));
  CHECK(r.status == SIM_ERR_RACE && !r.race.write_write);
  CHECK_CONTAINS(r.message, "at race.py:10:9 (and race.py:5:5): threads (1,0,0) and (0,0,0) access element [0] between two barriers");
  args[1] = sim_arg_int(1);
  CHECK(kir_launch(&k, "race", 1, 1, 32, 1, 0, args, 3, NULL, &r));
  CHECK_EQ_INT(out[1], 0);
  /* a 2-D element */
  args[1] = sim_arg_int(0);
  args[2] = sim_arg_int(2);
  CHECK(!kir_launch(&k, "race", 1, 1, 32, 1, 0, args, 3, NULL, &r));
  CHECK_CONTAINS(r.message, "at race.py:11:9 (and race.py:6:5): threads (1,0,0) and (0,0,0) access element [1, 2] between two barriers");
  CHECK(r.race.rank == 2 && r.race.index[0] == 1 && r.race.index[1] == 2);
  /* detection off */
  SimOptions o;
  sim_options_init(&o);
  o.detect_races = false;
  CHECK(kir_launch(&k, "race", 1, 1, 32, 1, 0, args, 3, &o, &r));
  CHECK_EQ_INT(out[1], 2);
  kir_free(&k);
}

/* ---- atomics --------------------------------------------------------------------------------------- */

static const char *ATOMICS =
    "mem.global() {sym_name = @scount, type = array<i32, 1, C>, shape = [1], space = \"shared\"} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%cnt: array<i32, 1, C>, %facc: array<f32, 1, C>, %mx: array<i64, 1, C>, %lock: array<i32, 1, C>, "
    "%win: array<i32, 1, C>, %wrap: array<u32, 1, C>, %blk: array<i32, 1, C>):\n" KIR_GRID1
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %zero32 = arith.constant() {value = 0 : i32} : () -> (i32)\n"
    "  %half = arith.constant() {value = 0.5 : f32} : () -> (f32)\n"
    "  %o1 = gpu.atomic_rmw(%cnt, %z, %one) {kind = \"add\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %o2 = gpu.atomic_rmw(%facc, %z, %half) {kind = \"add\"} : (array<f32, 1, C>, i64, f32) -> (f32)\n"
    "  %o3 = gpu.atomic_rmw(%mx, %z, %i) {kind = \"max\"} : (array<i64, 1, C>, i64, i64) -> (i64)\n"
    "  %gp = arith.addi(%g1, %one) : (i32, i32) -> (i32)\n"
    "  %old = gpu.atomic_cas(%lock, %z, %zero32, %gp) : (array<i32, 1, C>, i64, i32, i32) -> (i32)\n"
    "  %won = arith.cmpi(%old, %zero32) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %wi = arith.extui(%won) : (i1) -> (i32)\n"
    "  %o4 = gpu.atomic_rmw(%win, %z, %wi) {kind = \"add\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %nine = arith.constant() {value = 9 : u32} : () -> (u32)\n"
    "  %o5 = gpu.atomic_rmw(%wrap, %z, %nine) {kind = \"inc\"} : (array<u32, 1, C>, i64, u32) -> (u32)\n"
    "  %sc = mem.global_ref() {name = @scount} : () -> (array<i32, 1, C>)\n"
    "  %o6 = gpu.atomic_rmw(%sc, %z, %one) {kind = \"add\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  gpu.barrier() : () -> ()\n"
    "  %tot = mem.load(%sc, %z) : (array<i32, 1, C>, i64) -> (i32)\n"
    "  %bx64 = arith.extsi(%bx) : (i32) -> (i64)\n"
    "  %t0 = arith.cmpi(%tx, %zero32) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  scf.if(%t0) ({\n"
    "    mem.store(%tot, %blk, %bx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @atomics, function_type = (array<i32, 1, C>, array<f32, 1, C>, array<i64, 1, C>, array<i32, 1, C>, "
    "array<i32, 1, C>, array<u32, 1, C>, array<i32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_atomics(void) {
  Kir k;
  if (!kir_load(&k, ATOMICS)) return;
  for (unsigned nw = 1; nw <= 2; nw++) {
    int32_t cnt[1] = {0}, lock[1] = {0}, win[1] = {0}, blk[16];
    float facc[1] = {0};
    int64_t mx[1] = {-1};
    uint32_t wrap[1] = {0};
    SimArg args[7] = {arr_c(&k, cnt, "i32", 1, 1, 0), arr_c(&k, facc, "f32", 1, 1, 0), arr_c(&k, mx, "i64", 1, 1, 0),
                      arr_c(&k, lock, "i32", 1, 1, 0), arr_c(&k, win, "i32", 1, 1, 0), arr_c(&k, wrap, "u32", 1, 1, 0),
                      arr_c(&k, blk, "i32", 1, 16, 0)};
    SimOptions o;
    sim_options_init(&o);
    o.nworkers = nw;
    SimResult r;
    CHECK(kir_launch(&k, "atomics", 16, 1, 256, 1, 0, args, 7, &o, &r));
    CHECK_EQ_INT(cnt[0], 4096);
    CHECK(facc[0] == 2048.0f);
    CHECK_EQ_INT(mx[0], 4095);
    CHECK_EQ_INT(win[0], 1);
    CHECK(lock[0] >= 1 && lock[0] <= 4096);
    CHECK_EQ_INT(wrap[0], 4096 % 10);
    for (int b = 0; b < 16; b++) CHECK_EQ_INT(blk[b], 256);
    CHECK_EQ_INT(r.races, 0);
  }
  kir_free(&k);
}

/* ---- warp shuffles and votes ------------------------------------------------------------------------ */

static const char *WARPS =
    "func.func() ({\n"
    "^bb0(%sum: array<i32, 1, C>, %bal: array<u32, 1, C>, %bc: array<i32, 1, C>, %up: array<i32, 1, C>, "
    "%am: array<u32, 1, C>, %votes: array<i32, 1, C>, %bred: array<i32, 1, C>):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %tx64 = arith.extsi(%tx) : (i32) -> (i64)\n"
    "  %full = arith.constant() {value = 4294967295 : u32} : () -> (u32)\n"
    "  %w32 = arith.constant() {value = 32 : i32} : () -> (i32)\n"
    "  %d16 = arith.constant() {value = 16 : i32} : () -> (i32)\n"
    "  %d8 = arith.constant() {value = 8 : i32} : () -> (i32)\n"
    "  %d4 = arith.constant() {value = 4 : i32} : () -> (i32)\n"
    "  %d2 = arith.constant() {value = 2 : i32} : () -> (i32)\n"
    "  %d1 = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %d0 = arith.constant() {value = 0 : i32} : () -> (i32)\n"
    "  %r1 = gpu.shfl(%full, %tx, %d16, %w32) {mode = \"down\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  %s1 = arith.addi(%tx, %r1) : (i32, i32) -> (i32)\n"
    "  %r2 = gpu.shfl(%full, %s1, %d8, %w32) {mode = \"down\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  %s2 = arith.addi(%s1, %r2) : (i32, i32) -> (i32)\n"
    "  %r3 = gpu.shfl(%full, %s2, %d4, %w32) {mode = \"down\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  %s3 = arith.addi(%s2, %r3) : (i32, i32) -> (i32)\n"
    "  %r4 = gpu.shfl(%full, %s3, %d2, %w32) {mode = \"down\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  %s4 = arith.addi(%s3, %r4) : (i32, i32) -> (i32)\n"
    "  %r5 = gpu.shfl(%full, %s4, %d1, %w32) {mode = \"down\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  %s5 = arith.addi(%s4, %r5) : (i32, i32) -> (i32)\n"
    "  %lane = gpu.lane_id() : () -> (i32)\n"
    "  %warp = arith.divsi(%tx, %w32) : (i32, i32) -> (i32)\n"
    "  %warp64 = arith.extsi(%warp) : (i32) -> (i64)\n"
    "  %is0 = arith.cmpi(%lane, %d0) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %three = arith.constant() {value = 3 : i32} : () -> (i32)\n"
    "  %m3 = arith.remsi(%tx, %three) : (i32, i32) -> (i32)\n"
    "  %p3 = arith.cmpi(%m3, %d0) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %b = gpu.vote(%full, %p3) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "  %five = arith.constant() {value = 5 : i32} : () -> (i32)\n"
    "  %is5 = arith.cmpi(%tx, %five) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %any = gpu.vote(%full, %is5) {mode = \"any\"} : (u32, i1) -> (i1)\n"
    "  %big = arith.constant() {value = 1000 : i32} : () -> (i32)\n"
    "  %small = arith.cmpi(%tx, %big) {pred = \"slt\"} : (i32, i32) -> (i1)\n"
    "  %all = gpu.vote(%full, %small) {mode = \"all\"} : (u32, i1) -> (i1)\n"
    "  %alln = gpu.vote(%full, %p3) {mode = \"all\"} : (u32, i1) -> (i1)\n"
    "  %uni = gpu.vote(%full, %small) {mode = \"uni\"} : (u32, i1) -> (i1)\n"
    "  scf.if(%is0) ({\n"
    "    mem.store(%s5, %sum, %warp64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    mem.store(%b, %bal, %warp64) : (u32, array<u32, 1, C>, i64) -> ()\n"
    "    %a1 = arith.extui(%any) : (i1) -> (i32)\n"
    "    %a2 = arith.extui(%all) : (i1) -> (i32)\n"
    "    %a3 = arith.extui(%alln) : (i1) -> (i32)\n"
    "    %a4 = arith.extui(%uni) : (i1) -> (i32)\n"
    "    %v1 = arith.muli(%a1, %big) : (i32, i32) -> (i32)\n"
    "    %hundred = arith.constant() {value = 100 : i32} : () -> (i32)\n"
    "    %ten = arith.constant() {value = 10 : i32} : () -> (i32)\n"
    "    %v2 = arith.muli(%a2, %hundred) : (i32, i32) -> (i32)\n"
    "    %v3 = arith.muli(%a3, %ten) : (i32, i32) -> (i32)\n"
    "    %v12 = arith.addi(%v1, %v2) : (i32, i32) -> (i32)\n"
    "    %v123 = arith.addi(%v12, %v3) : (i32, i32) -> (i32)\n"
    "    %v = arith.addi(%v123, %a4) : (i32, i32) -> (i32)\n"
    "    mem.store(%v, %votes, %warp64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  %seven = arith.constant() {value = 7 : i32} : () -> (i32)\n"
    "  %bcv = gpu.shfl(%full, %tx, %seven, %w32) {mode = \"idx\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  mem.store(%bcv, %bc, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  %upv = gpu.shfl(%full, %tx, %d1, %d8) {mode = \"up\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  mem.store(%upv, %up, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  %ten2 = arith.constant() {value = 10 : i32} : () -> (i32)\n"
    "  %low = arith.cmpi(%lane, %ten2) {pred = \"slt\"} : (i32, i32) -> (i1)\n"
    "  %amv = scf.if(%low) ({\n"
    "    %m = gpu.activemask() : () -> (u32)\n"
    "    scf.yield(%m) : (u32) -> ()\n"
    "  }, {\n"
    "    %m2 = gpu.activemask() : () -> (u32)\n"
    "    scf.yield(%m2) : (u32) -> ()\n"
    "  }) : (i1) -> (u32)\n"
    "  mem.store(%amv, %am, %tx64) : (u32, array<u32, 1, C>, i64) -> ()\n"
    "  gpu.syncwarp(%full) : (u32) -> ()\n"
    "  %even = arith.remsi(%tx, %d2) : (i32, i32) -> (i32)\n"
    "  %pe = arith.cmpi(%even, %d0) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %cnt = gpu.barrier_reduce(%pe) {kind = \"count\"} : (i1) -> (i32)\n"
    "  %and = gpu.barrier_reduce(%small) {kind = \"and\"} : (i1) -> (i32)\n"
    "  %or = gpu.barrier_reduce(%is5) {kind = \"or\"} : (i1) -> (i32)\n"
    "  %nor = gpu.barrier_reduce(%pe) {kind = \"and\"} : (i1) -> (i32)\n"
    "  %x1 = arith.muli(%cnt, %big) : (i32, i32) -> (i32)\n"
    "  %hundred2 = arith.constant() {value = 100 : i32} : () -> (i32)\n"
    "  %x2 = arith.muli(%and, %hundred2) : (i32, i32) -> (i32)\n"
    "  %x3 = arith.muli(%or, %ten2) : (i32, i32) -> (i32)\n"
    "  %x12 = arith.addi(%x1, %x2) : (i32, i32) -> (i32)\n"
    "  %x123 = arith.addi(%x12, %x3) : (i32, i32) -> (i32)\n"
    "  %xv = arith.addi(%x123, %nor) : (i32, i32) -> (i32)\n"
    "  mem.store(%xv, %bred, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @warps, function_type = (array<i32, 1, C>, array<u32, 1, C>, array<i32, 1, C>, array<i32, 1, C>, "
    "array<u32, 1, C>, array<i32, 1, C>, array<i32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_warps(void) {
  Kir k;
  if (!kir_load(&k, WARPS)) return;
  enum { T = 64 };
  int32_t sum[2], bc[T], up[T], votes[2], bred[T];
  uint32_t bal[2], am[T];
  SimArg args[7] = {arr_c(&k, sum, "i32", 1, 2, 0),    arr_c(&k, bal, "u32", 1, 2, 0),  arr_c(&k, bc, "i32", 1, T, 0),
                    arr_c(&k, up, "i32", 1, T, 0),     arr_c(&k, am, "u32", 1, T, 0),   arr_c(&k, votes, "i32", 1, 2, 0),
                    arr_c(&k, bred, "i32", 1, T, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "warps", 1, 1, T, 1, 0, args, 7, NULL, &r));
  CHECK_EQ_INT(sum[0], 496);
  CHECK_EQ_INT(sum[1], 1520);
  uint32_t b0 = 0, b1 = 0;
  for (int l = 0; l < 32; l++) {
    if (l % 3 == 0) b0 |= 1u << l;
    if ((32 + l) % 3 == 0) b1 |= 1u << l;
  }
  CHECK_EQ_INT(bal[0], b0);
  CHECK_EQ_INT(bal[1], b1);
  CHECK_EQ_INT(votes[0], 1000 + 100 + 0 + 1); /* any(tx == 5), all(tx < 1000), !all(tx % 3 == 0), uni */
  CHECK_EQ_INT(votes[1], 0 + 100 + 0 + 1);
  for (int t = 0; t < T; t++) {
    CHECK_EQ_INT(bc[t], (t / 32) * 32 + 7);
    CHECK_EQ_INT(up[t], t % 8 == 0 ? t : t - 1);
    CHECK_EQ_INT(am[t], t % 32 < 10 ? 0x3ffu : 0xfffffc00u);
    CHECK_EQ_INT(bred[t], 32 * 1000 + 100 + 10 + 0);
  }
  CHECK_EQ_INT(r.barriers, 4);
  kir_free(&k);
}

/* ---- __syncwarp orders accesses within a warp; a failed bounds check does not hold a barrier ----- */

static const char *WARPSYNC =
    "mem.global() {sym_name = @sm, type = array<i32, 1, C>, shape = [32], space = \"shared\"} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%out: array<i32, 1, C>, %sync: i1):\n"
    "  %sm = mem.global_ref() {name = @sm} : () -> (array<i32, 1, C>)\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %c0 = arith.constant() {value = 0 : i32} : () -> (i32)\n"
    "  %c1 = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %seven = arith.constant() {value = 7 : i32} : () -> (i32)\n"
    "  %full = arith.constant() {value = 4294967295 : u32} : () -> (u32)\n"
    "  %is0 = arith.cmpi(%tx, %c0) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %is1 = arith.cmpi(%tx, %c1) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  scf.if(%is0) ({\n"
    "    mem.store(%seven, %sm, %z) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  scf.if(%sync) ({\n"
    "    gpu.syncwarp(%full) : (u32) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  scf.if(%is1) ({\n"
    "    %r = mem.load(%sm, %z) : (array<i32, 1, C>, i64) -> (i32)\n"
    "    mem.store(%r, %out, %z) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @warpsync, function_type = (array<i32, 1, C>, i1) -> (), kernel} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%a: array<i32, 1, C>):\n" KIR_GRID1
    "  %tx64 = arith.extsi(%tx) : (i32) -> (i64)\n"
    "  %n = mem.dim(%a) {axis = 0} : (array<i32, 1, C>) -> (i64)\n"
    "  check.bounds(%tx64, %n) {axis = 0} : (i64, i64) -> () loc(\"b.py\":3:5)\n"
    "  gpu.barrier() : () -> ()\n"
    "  %one = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %old = gpu.atomic_rmw(%a, %tx64, %one) {kind = \"add\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @checked_barrier, function_type = (array<i32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_syncwarp_and_failed_threads(void) {
  Kir k;
  if (!kir_load(&k, WARPSYNC)) return;
  int32_t out[1] = {0};
  SimArg args[2] = {arr_c(&k, out, "i32", 1, 1, 0), sim_arg_int(1)};
  SimResult r;
  CHECK(kir_launch(&k, "warpsync", 1, 1, 32, 1, 0, args, 2, NULL, &r));
  CHECK_EQ_INT(out[0], 7);
  args[1] = sim_arg_int(0);
  CHECK(!kir_launch(&k, "warpsync", 1, 1, 32, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_ERR_RACE);
  /* threads 20..31 of each block fail their check; the rest pass the barrier */
  for (unsigned nw = 1; nw <= 2; nw++) {
    int32_t a[20] = {0};
    SimArg a1[1] = {arr_c(&k, a, "i32", 1, 20, 0)};
    SimOptions o;
    sim_options_init(&o);
    o.nworkers = nw;
    CHECK(!kir_launch(&k, "checked_barrier", 4, 1, 32, 1, 0, a1, 1, &o, &r));
    CHECK(r.status == SIM_ERR_INDEX && !r.barrier_divergence);
    CHECK_STR(r.message, "IndexError: index 20 is out of bounds for axis 0 with size 20 (kernel checked_barrier, b.py:3:5)");
    CHECK(r.index_error.block[0] == 0 && r.index_error.thread[0] == 20);
    for (int i = 0; i < 20; i++) CHECK_EQ_INT(a[i], 4);
    CHECK_EQ_INT(r.barriers, 4);
  }
  kir_free(&k);
}

int main(void) {
  RUN(test_matmul);
  RUN(test_barrier_divergence);
  RUN(test_barrier_after_exit);
  RUN(test_races);
  RUN(test_atomics);
  RUN(test_warps);
  RUN(test_syncwarp_and_failed_threads);
  RUN(test_warp_ops_after_exit);
  return sim_test_summary("sim_sync");
}
