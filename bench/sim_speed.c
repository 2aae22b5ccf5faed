/* sim_speed.c — simulator throughput: simulated threads per second and executed kir ops per second on
 *   1. a 1-D elementwise kernel (out[i] = 2 * a[i] + b[i] under a guard, f32), N threads (blocks of 256);
 *   2. the seed's shared-memory tiled matmul (TPB = 16, two barriers per tile), S x S by S x S, f32 in,
 *      f64 out, 16 x 16 blocks — checked against a C reference.
 * Each case runs 3 times with 1 host thread and 3 times with 2 (nworkers); the best time counts. Ops are
 * the simulator's executed instructions (SimResult.steps; constants are free, a loop iteration costs its
 * body plus one).
 *
 *   build/bin/sim_speed [N [S]]      (defaults: N = 4194304, S = 256)
 *
 * Exit status 1 if a result is wrong. Results are recorded in bench/SIM.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime/sim/sim.h"

static const char *KERNELS =
    "mem.global() {sym_name = @sA, type = array<f32, 2, C>, shape = [16, 16], space = \"shared\"} : () -> ()\n"
    "mem.global() {sym_name = @sB, type = array<f32, 2, C>, shape = [16, 16], space = \"shared\"} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %b: array<f32, 1, C>, %out: array<f32, 1, C>):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %bx = gpu.block_id() {dim = 0} : () -> (i32)\n"
    "  %bw = gpu.block_dim() {dim = 0} : () -> (i32)\n"
    "  %g0 = arith.muli(%bx, %bw) : (i32, i32) -> (i32)\n"
    "  %g1 = arith.addi(%g0, %tx) : (i32, i32) -> (i32)\n"
    "  %i = arith.extsi(%g1) : (i32) -> (i64)\n"
    "  %n = mem.dim(%a) {axis = 0} : (array<f32, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %x = mem.load(%a, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "    %y = mem.load(%b, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "    %two = arith.constant() {value = 2.0 : f32} : () -> (f32)\n"
    "    %x2 = arith.mulf(%x, %two) : (f32, f32) -> (f32)\n"
    "    %s = arith.addf(%x2, %y) : (f32, f32) -> (f32)\n"
    "    mem.store(%s, %out, %i) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @axpy, function_type = (array<f32, 1, C>, array<f32, 1, C>, array<f32, 1, C>) -> (), kernel} : () -> ()\n"
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

typedef struct Case {
  const char *name;
  uint32_t grid[3], block[3];
  SimArg args[3];
} Case;

static Type *type_of(IrContext *ctx, const char *text) {
  size_t pos = 0;
  return ty_parse(ctx, text, strlen(text), &pos);
}

static void run_case(SimProgram *p, Module *m, Case *c, Diag *diag, bool detect_races) {
  Op *f = ir_module_lookup(m, c->name);
  for (unsigned nw = 1; nw <= 2; nw++) {
    SimOptions o;
    sim_options_init(&o);
    o.nworkers = nw;
    o.detect_races = detect_races;
    double best = 1e30;
    SimResult r;
    for (int rep = 0; rep < 3; rep++) {
      if (!sim_program_launch(p, f, c->grid, c->block, 0, c->args, 3, &o, &r, diag)) {
        fprintf(stderr, "%s failed: %s\n%s\n", c->name, r.message, diag_text(diag));
        exit(1);
      }
      if (r.seconds < best) best = r.seconds;
    }
    printf("%-12s workers=%u races=%-3s threads=%-9llu ops=%-11llu %.3f s  %6.2f M threads/s  %6.1f M ops/s  (%.1f ops/thread)\n",
           c->name, nw, detect_races ? "on" : "off", (unsigned long long)r.threads, (unsigned long long)r.steps, best,
           (double)r.threads / best * 1e-6, (double)r.steps / best * 1e-6, (double)r.steps / (double)r.threads);
  }
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 4194304;
  int64_t s = argc > 2 ? atoll(argv[2]) : 256;
  if (n < 1 || s < 16 || s % 16) {
    fprintf(stderr, "usage: sim_speed [N [S (a multiple of 16)]]\n");
    return 2;
  }
  IrContext *ctx = ir_context_new();
  Diag diag;
  diag_init(&diag);
  Module *m = ir_parse_module(ctx, &diag, "sim_speed.kir", KERNELS, strlen(KERNELS));
  if (!m || !ir_verify_module(m, &diag)) {
    fprintf(stderr, "%s", diag_text(&diag));
    return 1;
  }
  bool oom;
  SimProgram *p = sim_program_new(m, &diag, &oom);
  Type *f32 = type_of(ctx, "f32"), *f64 = type_of(ctx, "f64");
  int bad = 0;

  /* 1. elementwise */
  float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n), *out = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++) a[i] = (float)i * 0.5f, b[i] = 1.0f, out[i] = 0;
  Case ew = {"axpy", {(uint32_t)((n + 255) / 256), 1, 1}, {256, 1, 1}, {{0}}};
  ew.args[0] = sim_arg_array_c(a, f32, 1, &n);
  ew.args[1] = sim_arg_array_c(b, f32, 1, &n);
  ew.args[2] = sim_arg_array_c(out, f32, 1, &n);
  run_case(p, m, &ew, &diag, true);
  for (int64_t i = 0; i < n; i++) bad += out[i] != a[i] * 2.0f + b[i];

  /* 2. tiled matmul */
  float *A = malloc(sizeof(float) * (size_t)(s * s)), *B = malloc(sizeof(float) * (size_t)(s * s));
  double *C = malloc(sizeof(double) * (size_t)(s * s));
  for (int64_t i = 0; i < s * s; i++) A[i] = (float)(i % 7) - 3.0f, B[i] = (float)(i % 5) * 0.5f;
  int64_t shape[2] = {s, s};
  Case mm = {"fast_matmul", {(uint32_t)(s / 16), (uint32_t)(s / 16), 1}, {16, 16, 1}, {{0}}};
  mm.args[0] = sim_arg_array_c(A, f32, 2, shape);
  mm.args[1] = sim_arg_array_c(B, f32, 2, shape);
  mm.args[2] = sim_arg_array_c(C, f64, 2, shape);
  run_case(p, m, &mm, &diag, true);
  run_case(p, m, &mm, &diag, false);
  for (int64_t i = 0; i < s; i += 7)
    for (int64_t j = 0; j < s; j += 5) {
      double t = 0;
      for (int64_t k = 0; k < s; k++) t += (double)(A[i * s + k] * B[k * s + j]);
      bad += C[i * s + j] != t;
    }
  printf("%s\n", bad ? "WRONG RESULTS" : "results checked");
  free(a), free(b), free(out), free(A), free(B), free(C);
  sim_program_free(p);
  ir_module_free(m);
  diag_free(&diag);
  ir_context_free(ctx);
  return bad ? 1 : 0;
}
