/* passes_privatize.c — privatize-atomics keeps the meaning of histogram kernels: a differential test on the
 * simulator.
 *
 * Kernels of every kind the pass privatises (add, sub, min, max, and, or, xor; i32, i64, u32, u64 bins) plus one
 * whose threads end early by a silent raise (a kernel without debug=True), compiled from Python with bounds
 * checks on, are run untransformed and after privatize-atomics{max-bins=64} on many random inputs: extents of
 * bins on both sides of the bound (the shared path and the original one), random grids and 1-, 2- and 3-D
 * blocks, negative (wrapped) indices and, now and then, an index out of range. Each pair of launches must end
 * the same: the same bins bit for bit, or the same IndexError (kernel, line, index, extent, thread, block).
 * Every kernel must have been privatised, and the shared path must have run (barriers) where the extent fits.
 * KF_SEED picks other inputs, KF_RUNS sets how many launches per kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/rt.h"
#include "runtime/runtime.h"
#include "runtime/sim/sim.h"
#include "runtime_test.h"


static const char *source =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], int32[::1])')\n"
    "def h_add_i32(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.add(bins, x[i], 1)\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], int64[::1])')\n"
    "def h_sub_i64(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.sub(bins, x[i], w[i])\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], int32[::1])')\n"
    "def h_min_i32(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.min(bins, x[i], w[i])\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], uint32[::1])')\n"
    "def h_max_u32(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.max(bins, x[i], w[i])\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], int64[::1])')\n"
    "def h_max_i64(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.max(bins, x[i], w[i])\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], uint64[::1])')\n"
    "def h_and_u64(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.and_(bins, x[i], w[i])\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], int32[::1])')\n"
    "def h_or_i32(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.or_(bins, x[i], w[i])\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], int64[::1])')\n"
    "def h_xor_i64(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        cuda.atomic.xor(bins, x[i], w[i])\n"
    "\n"
    "@cuda.jit('void(int64[::1], int64[::1], int32[::1])')\n"
    "def h_add_raise(x, w, bins):\n"
    "    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):\n"
    "        if w[i] == 77:\n"
    "            raise ValueError('stop')\n"
    "        cuda.atomic.add(bins, x[i], w[i])\n"
    "        cuda.atomic.add(bins, 0, 1)\n";

enum { NKERNELS = 9, BOUND = 64 };
static const char *const kernels[NKERNELS] = {"h_add_i32", "h_sub_i64", "h_min_i32", "h_max_u32", "h_max_i64",
                                              "h_and_u64", "h_or_i32", "h_xor_i64", "h_add_raise"};
static const unsigned bin_bits[NKERNELS] = {32, 64, 32, 32, 64, 64, 32, 64, 32};
static const bool bin_unsigned[NKERNELS] = {0, 0, 0, 1, 0, 1, 0, 0, 0};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static IrContext *ctx;

static Module *compile(const char *pipeline, Diag *d) {
  kf_source main = {"privatize_diff.py", source, strlen(source), 1};
  kf_compile_options co = {.bounds_check = 1, .pipeline = pipeline, .verify_each = 1};
  RtSourceOptions o = {.compile = &co};
  Module *m = NULL;
  if (rt_compile_source(ctx, d, &main, &o, &m) != KF_OK) m = NULL;
  if (!m) fprintf(stderr, "compile failed (%s):\n%s", pipeline, diag_text(d));
  return m;
}

static Op *find_kernel(Module *m, const char *name) {
  Op *f = NULL;
  return rt_kir_find_kernels(m, name, &f, 1) ? f : NULL;
}

static void run(Module *m, unsigned k, const uint32_t grid[3], const uint32_t block[3], int64_t *x, int64_t *w,
                int64_t nx, void *bins, int64_t nb, SimResult *r, Diag *d) {
  Type *i64 = ty_i64(ctx), *bt = ty_int(ctx, bin_bits[k], bin_unsigned[k]);
  SimArg a[3] = {sim_arg_array_c(x, i64, 1, &nx), sim_arg_array_c(w, i64, 1, &nx), sim_arg_array_c(bins, bt, 1, &nb)};
  SimOptions o;
  sim_options_init(&o);
  sim_launch(m, find_kernel(m, kernels[k]), grid, block, 0, a, 3, &o, r, d);
}

int main(void) {
  const char *seed = getenv("KF_SEED");
  if (seed) rng = strtoull(seed, NULL, 0) | 1;
  unsigned runs = getenv("KF_RUNS") ? (unsigned)atoi(getenv("KF_RUNS")) : 40;
  ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  Module *plain = compile("canonicalize,cse,bce,dce", &d);
  Module *priv = compile("canonicalize,cse,bce,privatize-atomics{max-bins=64},dce", &d);
  if (!plain || !priv) return 1;
  for (unsigned k = 0; k < NKERNELS; k++) {
    Op *f = find_kernel(priv, kernels[k]);
    CHECK_MSG(f && ir_op_attr(f, "privatized_atomics"), "%s not privatised", kernels[k]);
  }
  unsigned launches = 0, fast = 0, errors = 0;
  for (unsigned k = 0; k < NKERNELS; k++)
    for (unsigned r = 0; r < runs; r++) {
      /* extents around the bound: 1.., BOUND-1, BOUND, BOUND+1, larger */
      static const int64_t edges[] = {1, 2, BOUND - 1, BOUND, BOUND + 1, 3 * BOUND};
      int64_t nb = r % 3 ? edges[rnd() % 6] : 1 + (int64_t)(rnd() % (2 * BOUND));
      int64_t nx = (int64_t)(rnd() % 400);
      bool bad = rnd() % 6 == 0; /* an index out of range somewhere */
      int64_t *x = malloc(sizeof(int64_t) * (size_t)(nx + 1)), *w = malloc(sizeof(int64_t) * (size_t)(nx + 1));
      for (int64_t i = 0; i < nx; i++) {
        x[i] = (int64_t)(rnd() % (uint64_t)(2 * nb)) - nb; /* [-nb, nb): negatives wrap */
        if (rnd() % 4 == 0) x[i] = (int64_t)(rnd() % (uint64_t)(nb < 4 ? nb : 4)); /* contention on few bins */
        uint64_t v = rnd();
        w[i] = rnd() % 2 ? (int64_t)(v % 1000) - 500 : (int64_t)v;
        if (k == 8) w[i] = rnd() % 50 == 0 ? 77 : (int64_t)(v % 9);
      }
      if (bad && nx) x[rnd() % (uint64_t)nx] = rnd() % 2 ? nb + (int64_t)(rnd() % 3) : -nb - 1 - (int64_t)(rnd() % 3);
      size_t bytes = (size_t)nb * bin_bits[k] / 8;
      unsigned char *init = malloc(bytes), *b1 = malloc(bytes), *b2 = malloc(bytes);
      for (size_t i = 0; i < bytes; i++) init[i] = (unsigned char)rnd();
      if (rnd() % 2) memset(init, 0, bytes);
      memcpy(b1, init, bytes);
      memcpy(b2, init, bytes);
      uint32_t grid[3] = {1 + (uint32_t)(rnd() % 4), 1, 1};
      uint32_t block[3] = {1 + (uint32_t)(rnd() % 70), 1, 1};
      if (rnd() % 3 == 0) block[1] = 1 + (uint32_t)(rnd() % 3);
      if (rnd() % 5 == 0) block[2] = 2;
      SimResult rp, rq;
      run(plain, k, grid, block, x, w, nx, b1, nb, &rp, &d);
      run(priv, k, grid, block, x, w, nx, b2, nb, &rq, &d);
      launches++;
      const char *what = kernels[k];
      CHECK_MSG(rp.status == rq.status, "%s nb=%lld nx=%lld block %ux%ux%u: status %d vs %d (%s | %s)", what,
            (long long)nb, (long long)nx, block[0], block[1], block[2], (int)rp.status, (int)rq.status, rp.message,
            rq.message);
      CHECK_MSG(rq.races == 0 && !rq.barrier_divergence, "%s: %s", what, rq.message);
      if (rp.status == SIM_OK && rq.status == SIM_OK) {
        CHECK_MSG(memcmp(b1, b2, bytes) == 0, "%s nb=%lld nx=%lld grid %u block %ux%ux%u: bins differ", what,
              (long long)nb, (long long)nx, grid[0], block[0], block[1], block[2]);
        if (nb <= BOUND) {
          CHECK_MSG(rq.barriers > 0, "%s nb=%lld: the shared path did not run", what, (long long)nb);
          fast++;
        }
      } else if (rp.status == SIM_ERR_INDEX && rq.status == SIM_ERR_INDEX) {
        errors++;
        SimIndexError *a = &rp.index_error, *b = &rq.index_error;
        CHECK_MSG(a->loc.line == b->loc.line && a->index == b->index && a->extent == b->extent &&
                  memcmp(a->thread, b->thread, sizeof a->thread) == 0 && memcmp(a->block, b->block, sizeof a->block) == 0,
              "%s: IndexError differs: %s | %s", what, rp.index_message, rq.index_message);
      }
      free(x);
      free(w);
      free(init);
      free(b1);
      free(b2);
    }
  CHECK_MSG(fast > NKERNELS * 4, "too few launches on the shared path (%u)", fast);
  CHECK_MSG(errors > 0, "no launch raised IndexError");
  printf("passes_privatize: %u launch pairs compared (%u on the shared path, %u IndexErrors), %d failure%s\n",
         launches, fast, errors, test_failures, test_failures == 1 ? "" : "s");
  ir_module_free(plain);
  ir_module_free(priv);
  diag_free(&d);
  ir_context_free(ctx);
  return test_failures ? 1 : 0;
}
