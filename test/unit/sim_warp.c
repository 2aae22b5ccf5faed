/* sim_warp.c — warp ops at different sites, as PTX matches them on sm_70 and later: a shfl.sync, vote.sync or
 * bar.warp.sync waits for the live lanes its mask names to execute the same kind of op with the same mode and
 * mask, whatever instruction each executes (runtime/sim/exec_warp.c, sim_resolve_warp). Checked: a shuffle in both
 * branches of an if (each half gets its partner's value, as on an H200), votes and ballots whose halves vote at
 * two sites, syncwarp at two sites ordering shared memory (and the race without it), an i32 and an f32 (an i64
 * and an f64) exchanging their bits across sites, a half-warp shuffle before a whole-warp one, four disjoint
 * groups at four sites (numba-cuda's test_independent_scheduling), a shuffle's lane operand read as its low five
 * bits; and what PTX leaves undefined, each a located error: a lane outside its own mask, a shuffle reading a lane
 * its mask does not name, lanes whose masks or ops never match (a shuffle against one of another width, a ballot
 * against an any). */
#include "sim_test.h"

#define KIR_HALVES                                                                      \
  "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"                                   \
  "  %tx64 = arith.extsi(%tx) : (i32) -> (i64)\n"                                       \
  "  %lane = gpu.lane_id() : () -> (i32)\n"                                             \
  "  %h16 = arith.constant() {value = 16 : i32} : () -> (i32)\n"                        \
  "  %w32 = arith.constant() {value = 32 : i32} : () -> (i32)\n"                        \
  "  %full = arith.constant() {value = 4294967295 : u32} : () -> (u32)\n"               \
  "  %lo = arith.cmpi(%lane, %h16) {pred = \"slt\"} : (i32, i32) -> (i1)\n"

/* ---- a shuffle in both branches of an if: lanes 0..15 send tx * 10, lanes 16..31 tx * 10 + 1 ------------- */

static const char *XOR_SITES =
    "func.func() ({\n"
    "^bb0(%out: array<i32, 1, C>, %mlo: u32, %mhi: u32):\n" KIR_HALVES
    "  %ten = arith.constant() {value = 10 : i32} : () -> (i32)\n"
    "  %one = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %a = arith.muli(%tx, %ten) : (i32, i32) -> (i32)\n"
    "  %v = scf.if(%lo) ({\n"
    "    %r = gpu.shfl(%mlo, %a, %h16, %w32) {mode = \"xor\"} : (u32, i32, i32, i32) -> (i32) loc(\"sites.py\":4:13)\n"
    "    scf.yield(%r) : (i32) -> ()\n"
    "  }, {\n"
    "    %b = arith.addi(%a, %one) : (i32, i32) -> (i32)\n"
    "    %r2 = gpu.shfl(%mhi, %b, %h16, %w32) {mode = \"xor\"} : (u32, i32, i32, i32) -> (i32) loc(\"sites.py\":6:13)\n"
    "    scf.yield(%r2) : (i32) -> ()\n"
    "  }) : (i1) -> (i32)\n"
    "  mem.store(%v, %out, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @xor_sites, function_type = (array<i32, 1, C>, u32, u32) -> (), kernel} : () -> ()\n";

static bool launch_xor(Kir *k, unsigned block, uint32_t mlo, uint32_t mhi, int32_t *out, SimResult *r) {
  for (unsigned t = 0; t < block; t++) out[t] = -1;
  SimArg args[3] = {arr_c(k, out, "i32", 1, block, 0), sim_arg_uint(mlo), sim_arg_uint(mhi)};
  return kir_launch(k, "xor_sites", 1, 1, block, 1, 0, args, 3, NULL, r);
}

static void check_xor_exchange(const int32_t *out, unsigned block) {
  for (unsigned t = 0; t < block; t++) {
    unsigned partner = t ^ 16;
    CHECK_EQ_INT(out[t], (int)partner * 10 + (partner % 32 >= 16));
  }
}

static void test_shuffle_in_both_branches(void) {
  Kir k;
  if (!kir_load(&k, XOR_SITES)) return;
  int32_t out[64];
  SimResult r;
  CHECK(launch_xor(&k, 64, 0xffffffffu, 0xffffffffu, out, &r));
  check_xor_exchange(out, 64);
  /* the same in unstructured form */
  if (kir_pipeline(&k, "lower-scf")) {
    CHECK(launch_xor(&k, 64, 0xffffffffu, 0xffffffffu, out, &r));
    check_xor_exchange(out, 64);
  }
  /* each half with its own half's mask: lane 0 reads lane 16, which its mask does not name */
  CHECK(!launch_xor(&k, 32, 0xffffu, 0xffff0000u, out, &r));
  CHECK(r.status == SIM_ERR_RUNTIME && !r.barrier_divergence);
  CHECK_STR(r.message, "error: shuffle from a lane outside its mask in kernel xor_sites at sites.py:4:13: thread "
                       "(0,0,0) of block (0,0,0) reads lane 16 of its warp, thread (16,0,0), which its mask "
                       "0x0000ffff does not name (on the GPU the value read is undefined)");
  /* a mask without the caller's own lane */
  CHECK(!launch_xor(&k, 32, 0xffff0000u, 0xffffffffu, out, &r));
  CHECK_STR(r.message, "error: warp op mask without its own lane in kernel xor_sites at sites.py:4:13: thread (0,0,0) "
                       "of block (0,0,0), lane 0 of its warp, calls a shuffle (mode xor) of a 32-bit value with mask "
                       "0xffff0000, which does not name it (on the GPU the behaviour is undefined)");
  /* the halves' masks differ: neither group can complete */
  CHECK(!launch_xor(&k, 32, 0xffffffffu, 0xfffffffeu, out, &r));
  CHECK(r.status == SIM_ERR_BARRIER && r.barrier_divergence);
  CHECK_STR(r.message, "error: warp op mismatch in kernel xor_sites at sites.py:4:13: thread (0,0,0) of block (0,0,0) "
                       "waits here at a shuffle (mode xor) of a 32-bit value with mask 0xffffffff, but thread "
                       "(16,0,0), which that mask names, waits at sites.py:6:13 at a shuffle (mode xor) of a 32-bit "
                       "value with mask 0xfffffffe (the two never match: the GPU would hang or give undefined "
                       "values)");
  kir_free(&k);
}

/* ---- votes at two sites: a ballot, then all() over predicates that differ between the halves ----------- */

static const char *VOTE_SITES =
    "func.func() ({\n"
    "^bb0(%bal: array<u32, 1, C>, %all: array<i32, 1, C>, %lim: i32):\n" KIR_HALVES
    "  %three = arith.constant() {value = 3 : i32} : () -> (i32)\n"
    "  %five = arith.constant() {value = 5 : i32} : () -> (i32)\n"
    "  %zero = arith.constant() {value = 0 : i32} : () -> (i32)\n"
    "  %m3 = arith.remsi(%tx, %three) : (i32, i32) -> (i32)\n"
    "  %p3 = arith.cmpi(%m3, %zero) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %m5 = arith.remsi(%tx, %five) : (i32, i32) -> (i32)\n"
    "  %p5 = arith.cmpi(%m5, %zero) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  %below = arith.cmpi(%tx, %lim) {pred = \"slt\"} : (i32, i32) -> (i1)\n"
    "  %b, %v = scf.if(%lo) ({\n"
    "    %b1 = gpu.vote(%full, %p3) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "    %a1 = gpu.vote(%full, %below) {mode = \"all\"} : (u32, i1) -> (i1)\n"
    "    scf.yield(%b1, %a1) : (u32, i1) -> ()\n"
    "  }, {\n"
    "    %b2 = gpu.vote(%full, %p5) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "    %yes = arith.constant() {value = 1 : i1} : () -> (i1)\n"
    "    %a2 = gpu.vote(%full, %yes) {mode = \"all\"} : (u32, i1) -> (i1)\n"
    "    scf.yield(%b2, %a2) : (u32, i1) -> ()\n"
    "  }) : (i1) -> (u32, i1)\n"
    "  mem.store(%b, %bal, %tx64) : (u32, array<u32, 1, C>, i64) -> ()\n"
    "  %vi = arith.extui(%v) : (i1) -> (i32)\n"
    "  mem.store(%vi, %all, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @vote_sites, function_type = (array<u32, 1, C>, array<i32, 1, C>, i32) -> (), kernel} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%out: array<u32, 1, C>):\n" KIR_HALVES
    "  %yes = arith.constant() {value = 1 : i1} : () -> (i1)\n"
    "  %v = scf.if(%lo) ({\n"
    "    %b1 = gpu.vote(%full, %yes) {mode = \"ballot\"} : (u32, i1) -> (u32) loc(\"votes.py\":3:13)\n"
    "    scf.yield(%b1) : (u32) -> ()\n"
    "  }, {\n"
    "    %a2 = gpu.vote(%full, %yes) {mode = \"any\"} : (u32, i1) -> (i1) loc(\"votes.py\":5:13)\n"
    "    %a3 = arith.extui(%a2) : (i1) -> (u32)\n"
    "    scf.yield(%a3) : (u32) -> ()\n"
    "  }) : (i1) -> (u32)\n"
    "  mem.store(%v, %out, %tx64) : (u32, array<u32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @ballot_against_any, function_type = (array<u32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_votes_in_both_branches(void) {
  Kir k;
  if (!kir_load(&k, VOTE_SITES)) return;
  uint32_t bal[32];
  int32_t all[32];
  SimResult r;
  for (int lim = 20; lim >= 10; lim -= 10) {
    SimArg args[3] = {arr_c(&k, bal, "u32", 1, 32, 0), arr_c(&k, all, "i32", 1, 32, 0), sim_arg_int(lim)};
    CHECK(kir_launch(&k, "vote_sites", 1, 1, 32, 1, 0, args, 3, NULL, &r));
    uint32_t expect = 0;
    for (unsigned t = 0; t < 32; t++)
      if (t < 16 ? t % 3 == 0 : t % 5 == 0) expect |= 1u << t;
    for (unsigned t = 0; t < 32; t++) {
      CHECK_EQ_INT(bal[t], expect); /* 0x42109249: the whole warp's ballot in both halves */
      CHECK_EQ_INT(all[t], lim == 20);
    }
  }
  SimArg args[1] = {arr_c(&k, bal, "u32", 1, 32, 0)};
  CHECK(!kir_launch(&k, "ballot_against_any", 1, 1, 32, 1, 0, args, 1, NULL, &r));
  CHECK_STR(r.message, "error: warp op mismatch in kernel ballot_against_any at votes.py:3:13: thread (0,0,0) of block "
                       "(0,0,0) waits here at a vote (mode ballot) with mask 0xffffffff, but thread (16,0,0), which "
                       "that mask names, waits at votes.py:5:13 at a vote (mode any) with mask 0xffffffff (the two "
                       "never match: the GPU would hang or give undefined values)");
  kir_free(&k);
}

/* ---- syncwarp at two sites orders shared memory across them; without the second, a race --------------- */

static const char *SYNCWARP_SITES =
    "mem.global() {sym_name = @sm, type = array<i32, 1, C>, shape = [32], space = \"shared\"} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%out: array<i32, 1, C>, %sync_hi: i1):\n" KIR_HALVES
    "  %sm = mem.global_ref() {name = @sm} : () -> (array<i32, 1, C>)\n"
    "  %c31 = arith.constant() {value = 31 : i32} : () -> (i32)\n"
    "  %mirror = arith.subi(%c31, %tx) : (i32, i32) -> (i32)\n"
    "  %mirror64 = arith.extsi(%mirror) : (i32) -> (i64)\n"
    "  %c100 = arith.constant() {value = 100 : i32} : () -> (i32)\n"
    "  %c200 = arith.constant() {value = 200 : i32} : () -> (i32)\n"
    "  %v = scf.if(%lo) ({\n"
    "    %s1 = arith.addi(%tx, %c100) : (i32, i32) -> (i32)\n"
    "    mem.store(%s1, %sm, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    gpu.syncwarp(%full) : (u32) -> ()\n"
    "    %r1 = mem.load(%sm, %mirror64) : (array<i32, 1, C>, i64) -> (i32)\n"
    "    scf.yield(%r1) : (i32) -> ()\n"
    "  }, {\n"
    "    %s2 = arith.addi(%tx, %c200) : (i32, i32) -> (i32)\n"
    "    mem.store(%s2, %sm, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    scf.if(%sync_hi) ({\n"
    "      gpu.syncwarp(%full) : (u32) -> ()\n"
    "      scf.yield() : () -> ()\n"
    "    }, {\n"
    "      scf.yield() : () -> ()\n"
    "    }) : (i1) -> ()\n"
    "    %r2 = mem.load(%sm, %mirror64) : (array<i32, 1, C>, i64) -> (i32)\n"
    "    scf.yield(%r2) : (i32) -> ()\n"
    "  }) : (i1) -> (i32)\n"
    "  mem.store(%v, %out, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @syncwarp_sites, function_type = (array<i32, 1, C>, i1) -> (), kernel} : () -> ()\n";

static void test_syncwarp_in_both_branches(void) {
  Kir k;
  if (!kir_load(&k, SYNCWARP_SITES)) return;
  int32_t out[32];
  SimArg args[2] = {arr_c(&k, out, "i32", 1, 32, 0), sim_arg_int(1)};
  SimResult r;
  CHECK(kir_launch(&k, "syncwarp_sites", 1, 1, 32, 1, 0, args, 2, NULL, &r));
  for (int t = 0; t < 32; t++) CHECK_EQ_INT(out[t], (31 - t) + (31 - t < 16 ? 100 : 200));
  args[1] = sim_arg_int(0); /* the upper half reads the lower half's stores with nothing in between */
  CHECK(!kir_launch(&k, "syncwarp_sites", 1, 1, 32, 1, 0, args, 2, NULL, &r));
  CHECK(r.status == SIM_ERR_RACE);
  kir_free(&k);
}

/* ---- values of other types at the other site: the bits move, 32 or 64 of them ------------------------ */

static const char *TYPE_SITES =
    "func.func() ({\n"
    "^bb0(%oi: array<i32, 1, C>, %of: array<f32, 1, C>, %ol: array<i64, 1, C>, %od: array<f64, 1, C>):\n" KIR_HALVES
    "  %one_bits = arith.constant() {value = 1065353216 : i32} : () -> (i32)\n"
    "  %c33 = arith.constant() {value = 33 : i64} : () -> (i64)\n"
    "  %half = arith.constant() {value = 1.5 : f64} : () -> (f64)\n"
    "  scf.if(%lo) ({\n"
    "    %x = arith.addi(%tx, %one_bits) : (i32, i32) -> (i32)\n"
    "    %rx = gpu.shfl(%full, %x, %h16, %w32) {mode = \"xor\"} : (u32, i32, i32, i32) -> (i32)\n"
    "    mem.store(%rx, %oi, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "    %l = arith.shli(%tx64, %c33) : (i64, i64) -> (i64)\n"
    "    %rl = gpu.shfl(%full, %l, %h16, %w32) {mode = \"xor\"} : (u32, i64, i32, i32) -> (i64)\n"
    "    mem.store(%rl, %ol, %tx64) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    %f = arith.sitofp(%tx) : (i32) -> (f32)\n"
    "    %rf = gpu.shfl(%full, %f, %h16, %w32) {mode = \"xor\"} : (u32, f32, i32, i32) -> (f32)\n"
    "    mem.store(%rf, %of, %tx64) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "    %d0 = arith.sitofp(%tx) : (i32) -> (f64)\n"
    "    %d = arith.mulf(%d0, %half) : (f64, f64) -> (f64)\n"
    "    %rd = gpu.shfl(%full, %d, %h16, %w32) {mode = \"xor\"} : (u32, f64, i32, i32) -> (f64)\n"
    "    mem.store(%rd, %od, %tx64) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @type_sites, function_type = (array<i32, 1, C>, array<f32, 1, C>, array<i64, 1, C>, "
    "array<f64, 1, C>) -> (), kernel} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%out: array<i64, 1, C>):\n" KIR_HALVES
    "  %v = scf.if(%lo) ({\n"
    "    %r = gpu.shfl(%full, %tx, %h16, %w32) {mode = \"xor\"} : (u32, i32, i32, i32) -> (i32) loc(\"w.py\":3:13)\n"
    "    %r64 = arith.extsi(%r) : (i32) -> (i64)\n"
    "    scf.yield(%r64) : (i64) -> ()\n"
    "  }, {\n"
    "    %r2 = gpu.shfl(%full, %tx64, %h16, %w32) {mode = \"xor\"} : (u32, i64, i32, i32) -> (i64) loc(\"w.py\":5:13)\n"
    "    scf.yield(%r2) : (i64) -> ()\n"
    "  }) : (i1) -> (i64)\n"
    "  mem.store(%v, %out, %tx64) : (i64, array<i64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @narrow_against_wide, function_type = (array<i64, 1, C>) -> (), kernel} : () -> ()\n";

static void test_shuffled_bits_across_types(void) {
  Kir k;
  if (!kir_load(&k, TYPE_SITES)) return;
  int32_t oi[32];
  float of[32];
  int64_t ol[32];
  double od[32];
  memset(oi, 0, sizeof oi);
  memset(of, 0, sizeof of);
  memset(ol, 0, sizeof ol);
  memset(od, 0, sizeof od);
  SimArg args[4] = {arr_c(&k, oi, "i32", 1, 32, 0), arr_c(&k, of, "f32", 1, 32, 0), arr_c(&k, ol, "i64", 1, 32, 0),
                    arr_c(&k, od, "f64", 1, 32, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "type_sites", 1, 1, 32, 1, 0, args, 4, NULL, &r));
  for (int t = 0; t < 16; t++) {
    float f = (float)(t + 16); /* lane t reads lane t + 16's f32: its bits as an i32 */
    int32_t fbits;
    memcpy(&fbits, &f, 4);
    CHECK_EQ_INT(oi[t], fbits);
    double d = (t + 16) * 1.5;
    int64_t dbits;
    memcpy(&dbits, &d, 8);
    CHECK_EQ_INT(ol[t], dbits);
    /* lane t + 16 reads lane t's i32 0x3f800000 + t as an f32, its i64 t << 33 as an f64 */
    int32_t ibits = 0x3f800000 + t;
    float fi;
    memcpy(&fi, &ibits, 4);
    CHECK(of[t + 16] == fi);
    int64_t lbits = (int64_t)t << 33;
    double dl;
    memcpy(&dl, &lbits, 8);
    CHECK(od[t + 16] == dl);
  }
  int64_t out[32];
  SimArg a1[1] = {arr_c(&k, out, "i64", 1, 32, 0)};
  CHECK(!kir_launch(&k, "narrow_against_wide", 1, 1, 32, 1, 0, a1, 1, NULL, &r));
  CHECK_STR(r.message, "error: warp op mismatch in kernel narrow_against_wide at w.py:3:13: thread (0,0,0) of block "
                       "(0,0,0) waits here at a shuffle (mode xor) of a 32-bit value with mask 0xffffffff, but thread "
                       "(16,0,0), which that mask names, waits at w.py:5:13 at a shuffle (mode xor) of a 64-bit value "
                       "with mask 0xffffffff (the two never match: the GPU would hang or give undefined values)");
  kir_free(&k);
}

/* ---- order: lanes 0..15 shuffle among themselves, then with the whole warp, which waits for them ------ */

static const char *HALF_THEN_WHOLE =
    "func.func() ({\n"
    "^bb0(%out: array<i32, 1, C>):\n" KIR_HALVES
    "  %one = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %m16 = arith.constant() {value = 65535 : u32} : () -> (u32)\n"
    "  %v = scf.if(%lo) ({\n"
    "    %r = gpu.shfl(%m16, %tx, %one, %w32) {mode = \"xor\"} : (u32, i32, i32, i32) -> (i32)\n"
    "    scf.yield(%r) : (i32) -> ()\n"
    "  }, {\n"
    "    scf.yield(%tx) : (i32) -> ()\n"
    "  }) : (i1) -> (i32)\n"
    "  %w = gpu.shfl(%full, %v, %h16, %w32) {mode = \"xor\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  mem.store(%w, %out, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @half_then_whole, function_type = (array<i32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_half_warp_then_whole_warp(void) {
  Kir k;
  if (!kir_load(&k, HALF_THEN_WHOLE)) return;
  int32_t out[32];
  SimArg args[1] = {arr_c(&k, out, "i32", 1, 32, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "half_then_whole", 1, 1, 32, 1, 0, args, 1, NULL, &r));
  for (int t = 0; t < 32; t++) CHECK_EQ_INT(out[t], t < 16 ? t + 16 : (t - 16) ^ 1);
  kir_free(&k);
}

/* ---- four groups at four sites (numba-cuda's test_independent_scheduling), in cf form ------------------ */

static const char *FOUR_SITES =
    "func.func() ({\n"
    "^bb0(%out: array<u32, 1, C>):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %tx64 = arith.extsi(%tx) : (i32) -> (i64)\n"
    "  %four = arith.constant() {value = 4 : i32} : () -> (i32)\n"
    "  %q = arith.remsi(%tx, %four) : (i32, i32) -> (i32)\n"
    "  %zero = arith.constant() {value = 0 : i32} : () -> (i32)\n"
    "  %one = arith.constant() {value = 1 : i32} : () -> (i32)\n"
    "  %two = arith.constant() {value = 2 : i32} : () -> (i32)\n"
    "  %yes = arith.constant() {value = 1 : i1} : () -> (i1)\n"
    "  %is0 = arith.cmpi(%q, %zero) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  cf.cond_br(%is0) [^g0, ^n1] : (i1) -> ()\n"
    "^n1:\n"
    "  %is1 = arith.cmpi(%q, %one) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  cf.cond_br(%is1) [^g1, ^n2] : (i1) -> ()\n"
    "^n2:\n"
    "  %is2 = arith.cmpi(%q, %two) {pred = \"eq\"} : (i32, i32) -> (i1)\n"
    "  cf.cond_br(%is2) [^g2, ^g3] : (i1) -> ()\n"
    "^g0:\n"
    "  %m0 = arith.constant() {value = 286331153 : u32} : () -> (u32)\n"
    "  %b0 = gpu.vote(%m0, %yes) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "  cf.br() [^done(%b0)] : (u32) -> ()\n"
    "^g1:\n"
    "  %m1 = arith.constant() {value = 572662306 : u32} : () -> (u32)\n"
    "  %b1 = gpu.vote(%m1, %yes) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "  cf.br() [^done(%b1)] : (u32) -> ()\n"
    "^g2:\n"
    "  %m2 = arith.constant() {value = 1145324612 : u32} : () -> (u32)\n"
    "  %b2 = gpu.vote(%m2, %yes) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "  cf.br() [^done(%b2)] : (u32) -> ()\n"
    "^g3:\n"
    "  %m3 = arith.constant() {value = 2290649224 : u32} : () -> (u32)\n"
    "  %b3 = gpu.vote(%m3, %yes) {mode = \"ballot\"} : (u32, i1) -> (u32)\n"
    "  cf.br() [^done(%b3)] : (u32) -> ()\n"
    "^done(%b: u32):\n"
    "  mem.store(%b, %out, %tx64) : (u32, array<u32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @four_sites, function_type = (array<u32, 1, C>) -> (), kernel} : () -> ()\n";

static void test_four_groups_at_four_sites(void) {
  Kir k;
  if (!kir_load(&k, FOUR_SITES)) return;
  uint32_t out[32];
  SimArg args[1] = {arr_c(&k, out, "u32", 1, 32, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "four_sites", 1, 1, 32, 1, 0, args, 1, NULL, &r));
  static const uint32_t masks[4] = {0x11111111u, 0x22222222u, 0x44444444u, 0x88888888u};
  for (int t = 0; t < 32; t++) CHECK_EQ_INT(out[t], masks[t % 4]);
  kir_free(&k);
}

/* ---- a shuffle's lane or delta operand is read as its low five bits (PTX's b[4:0]) -------------------- */

static const char *WIDE_DELTA =
    "func.func() ({\n"
    "^bb0(%out: array<i32, 1, C>, %delta: i32):\n" KIR_HALVES
    "  %r = gpu.shfl(%full, %tx, %delta, %w32) {mode = \"down\"} : (u32, i32, i32, i32) -> (i32)\n"
    "  mem.store(%r, %out, %tx64) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @wide_delta, function_type = (array<i32, 1, C>, i32) -> (), kernel} : () -> ()\n";

static void test_lane_operand_low_bits(void) {
  Kir k;
  if (!kir_load(&k, WIDE_DELTA)) return;
  int32_t out[32];
  SimResult r;
  static const int deltas[3] = {1, 33, -31};
  for (int i = 0; i < 3; i++) {
    SimArg args[2] = {arr_c(&k, out, "i32", 1, 32, 0), sim_arg_int(deltas[i])};
    CHECK(kir_launch(&k, "wide_delta", 1, 1, 32, 1, 0, args, 2, NULL, &r));
    for (int t = 0; t < 32; t++) CHECK_EQ_INT(out[t], t < 31 ? t + 1 : 31);
  }
  kir_free(&k);
}

int main(void) {
  RUN(test_shuffle_in_both_branches);
  RUN(test_votes_in_both_branches);
  RUN(test_syncwarp_in_both_branches);
  RUN(test_shuffled_bits_across_types);
  RUN(test_half_warp_then_whole_warp);
  RUN(test_four_groups_at_four_sites);
  RUN(test_lane_operand_low_bits);
  return sim_test_summary("sim_warp");
}
