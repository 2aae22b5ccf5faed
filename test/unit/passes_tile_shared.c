/* passes_tile_shared.c — shared-memory tiling keeps every result bit for bit: a randomized differential test
 * on the simulator.
 *
 * Naive matmuls (both guard styles: `if i < n and j < m:` around the loop and `if i >= n or j >= m: return`
 * before it; float32, float64 and integer accumulators) are compiled twice from the same source: with the
 * pipeline without tile-shared (canonicalize,cse,bce,dce), and with tile-shared{bx,by,rx,ry},hoist-checks after
 * bce, for square (16x16) and non-square (32x8, 8x4) tiled blocks, plain (rx = ry = 1) and register-blocked (a
 * block computing the outputs of 4x4, 2x4, 4x2 blocks). Each is launched on random shapes that are not
 * multiples of the tile (1x1x1 up to 130x70x90,
 * the extremes always), random data, the grid covering C with a spare block; the outputs must agree bit for
 * bit with the untiled kernel's, the simulator must report no race, no barrier divergence and no error.
 * Launches with the block the variant was built for must run the tiled code (barriers counted), launches
 * with another block shape, or with C passed as A (aliasing arguments), the untiled code (no barrier) with
 * the untiled answer. Each kernel must have been tiled (its `tiled_block` attribute), so the test cannot
 * pass by tiling nothing. Launches where B is smaller than A and C say (fewer rows than A's columns, or one
 * column fewer than C) must fail in the tiled code with the untiled code's IndexError: the same source line,
 * axis, index and extent (the checks hoist-checks moved out of the loops report as the originals would).
 * KF_SEED picks other shapes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/rt.h"
#include "runtime/sim/sim.h"

static int failures;

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
      failures++;                                                         \
    }                                                                     \
  } while (0)

static const char *source =
    "from numba import cuda, float32\n"
    "\n"
    "@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')\n"
    "def mm_f32(A, B, C):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i < C.shape[0] and j < C.shape[1]:\n"
    "        acc = 0.0\n"
    "        for k in range(A.shape[1]):\n"
    "            acc += A[i, k] * B[k, j]\n"
    "        C[i, j] = acc\n"
    "\n"
    "@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')\n"
    "def mm_f32_ret(A, B, C):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i >= C.shape[0] or j >= C.shape[1]:\n"
    "        return\n"
    "    acc = float32(0.0)\n"
    "    for k in range(A.shape[1]):\n"
    "        acc += A[i, k] * B[k, j]\n"
    "    C[i, j] = acc\n"
    "\n"
    "@cuda.jit('void(float64[:,:], float64[:,:], float64[:,:])')\n"
    "def mm_f64_ret(A, B, C):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i >= C.shape[0] or j >= C.shape[1]:\n"
    "        return\n"
    "    acc = 0.0\n"
    "    for k in range(A.shape[1]):\n"
    "        acc += A[i, k] * B[k, j]\n"
    "    C[i, j] = acc\n"
    "\n"
    "@cuda.jit('void(int32[:,:], int32[:,:], int64[:,:])')\n"
    "def mm_int(A, B, C):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i < C.shape[0] and j < C.shape[1]:\n"
    "        acc = 0\n"
    "        for k in range(A.shape[1]):\n"
    "            acc += A[i, k] * B[k, j]\n"
    "        C[i, j] = acc\n";

enum { NKERNELS = 4, NVARIANTS = 4 };
static const char *const kernels[NKERNELS] = {"mm_f32", "mm_f32_ret", "mm_f64_ret", "mm_int"};
static const unsigned elem_bytes[NKERNELS][3] = {{4, 4, 4}, {4, 4, 4}, {8, 8, 8}, {4, 4, 8}};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static IrContext *ctx;

static Module *compile(const char *pipeline, Diag *d) {
  kf_source main = {"tile_diff.py", source, strlen(source), 1};
  RtSourceOptions o = {.bounds_check = true, .pipeline = pipeline, .verify_each = true};
  Module *m = NULL;
  if (rt_compile_source(ctx, d, &main, &o, &m) != KF_OK) m = NULL;
  if (!m) fprintf(stderr, "compile failed (%s):\n%s", pipeline, diag_text(d));
  return m;
}

static Op *find_kernel(Module *m, const char *name) {
  Op *f = NULL;
  return rt_kir_find_kernels(m, name, &f, 1) ? f : NULL;
}

static Type *elem_type(unsigned kernel, unsigned arg) {
  if (kernel == 3) return arg < 2 ? ty_int(ctx, 32, false) : ty_int(ctx, 64, false);
  return ty_float(ctx, elem_bytes[kernel][arg] * 8);
}

static void fill(void *p, unsigned kernel, unsigned arg, size_t n) {
  for (size_t e = 0; e < n; e++) {
    uint64_t r = rnd();
    if (kernel == 3) ((int32_t *)p)[e] = (int32_t)(r % 2001) - 1000;
    else if (elem_bytes[kernel][arg] == 4) ((float *)p)[e] = (float)((double)(r % 100000) / 7919.0 - 6.0);
    else ((double *)p)[e] = (double)(r % 1000003) / 7919.0 - 60.0;
  }
}

/* Runs kernel `name` of m on (A: M x K, B: bshape or K x N, C: M x N) with the given data (copied), returns C. */
static void *run_shapes(Module *m, unsigned kernel, const uint32_t block[3], const uint32_t *grid_given, int64_t M,
                        int64_t N, int64_t K, const int64_t bshape[2], const void *a, const void *b, bool alias,
                        SimResult *res, Diag *d) {
  Op *f = find_kernel(m, kernels[kernel]);
  int64_t sb[2] = {bshape ? bshape[0] : K, bshape ? bshape[1] : N};
  size_t ca = (size_t)(M * K) * elem_bytes[kernel][0], cb = (size_t)(sb[0] * sb[1]) * elem_bytes[kernel][1],
         cc = (size_t)(M * N) * elem_bytes[kernel][2];
  void *A = malloc(ca + 1), *B = malloc(cb + 1), *C = calloc(1, cc + 1);
  memcpy(A, a, ca);
  memcpy(B, b, cb);
  int64_t sa[2] = {M, K}, sc[2] = {M, N};
  SimArg args[3] = {sim_arg_array_c(A, elem_type(kernel, 0), 2, sa), sim_arg_array_c(B, elem_type(kernel, 1), 2, sb),
                    sim_arg_array_c(C, elem_type(kernel, 2), 2, sc)};
  if (alias) { /* C passed as A too (square shapes, same dtype): the kernel reads what it writes */
    memcpy(C, a, ca);
    args[0] = sim_arg_array_c(C, elem_type(kernel, 0), 2, sa);
  }
  uint32_t grid[3] = {(uint32_t)((M + block[0] - 1) / block[0] + 1), (uint32_t)((N + block[1] - 1) / block[1]), 1};
  if (grid_given) memcpy(grid, grid_given, sizeof grid);
  SimOptions o;
  sim_options_init(&o);
  o.exit_releases_barriers = false;
  memset(res, 0, sizeof *res);
  sim_launch(m, f, grid, block, 0, args, 3, &o, res, d);
  free(A);
  free(B);
  return C;
}

static void *run(Module *m, unsigned kernel, const uint32_t block[3], int64_t M, int64_t N, int64_t K, const void *a,
                 const void *b, bool alias, SimResult *res, Diag *d) {
  return run_shapes(m, kernel, block, NULL, M, N, K, NULL, a, b, alias, res, d);
}

/* B smaller than the kernel's loops assume: the tiled kernel (with hoisted checks) reports the untiled one's
 * IndexError. */
static unsigned index_errors(Module *plain, Module *tiled, const uint32_t block[3], unsigned kernel, Diag *d) {
  const int64_t M = 37, N = 29, K = 40;
  /* rows: failing in a whole tile (k0 + depth <= K), in the partial last one; a column fewer than C */
  const int64_t bshapes[][2] = {{5, N}, {23, N}, {35, N}, {K, N - 1}};
  unsigned launches = 0;
  for (unsigned s = 0; s < sizeof bshapes / sizeof *bshapes; s++) {
    size_t na = (size_t)(M * K), nb = (size_t)(bshapes[s][0] * bshapes[s][1]);
    void *a = malloc(na * elem_bytes[kernel][0]), *b = malloc(nb * elem_bytes[kernel][1]);
    fill(a, kernel, 0, na);
    fill(b, kernel, 1, nb);
    SimResult rp, rt;
    free(run_shapes(plain, kernel, block, NULL, M, N, K, bshapes[s], a, b, false, &rp, d));
    free(run_shapes(tiled, kernel, block, NULL, M, N, K, bshapes[s], a, b, false, &rt, d));
    launches += 2;
    const SimIndexError *p = &rp.index_error, *t = &rt.index_error;
    CHECK(p->set && t->set && rt.barriers > 0, "%s B %lldx%lld block %ux%u: an IndexError each, the tiled code ran",
          kernels[kernel], (long long)bshapes[s][0], (long long)bshapes[s][1], block[0], block[1]);
    CHECK(p->loc.line == t->loc.line && p->loc.col == t->loc.col && p->axis == t->axis && p->index == t->index &&
              p->extent == t->extent,
          "%s B %lldx%lld block %ux%u: untiled IndexError line %u axis %u index %lld extent %lld, tiled line %u axis %u "
          "index %lld extent %lld", kernels[kernel], (long long)bshapes[s][0], (long long)bshapes[s][1], block[0],
          block[1], p->loc.line, p->axis, (long long)p->index, (long long)p->extent, t->loc.line, t->axis,
          (long long)t->index, (long long)t->extent);
    free(a);
    free(b);
  }
  return launches;
}

/* A grid that covers only part of C (not a multiple of the register blocking): the outputs of blocks the user
 * did not launch stay as they were (a register-blocked block computes only the blocks that exist). */
static unsigned short_grid(Module *plain, Module *tiled, const uint32_t block[3], unsigned kernel, Diag *d) {
  const int64_t M = 150, N = 90, K = 20;
  const uint32_t grid[3] = {(uint32_t)(M / block[0]) / 2 + 1, (uint32_t)(N / block[1]) / 2 + 1, 1};
  size_t na = (size_t)(M * K), nb = (size_t)(K * N), cc = (size_t)(M * N) * elem_bytes[kernel][2];
  void *a = malloc(na * elem_bytes[kernel][0]), *b = malloc(nb * elem_bytes[kernel][1]);
  fill(a, kernel, 0, na);
  fill(b, kernel, 1, nb);
  SimResult rp, rt;
  void *want = run_shapes(plain, kernel, block, grid, M, N, K, NULL, a, b, false, &rp, d);
  void *got = run_shapes(tiled, kernel, block, grid, M, N, K, NULL, a, b, false, &rt, d);
  CHECK(rt.status == SIM_OK && rt.races == 0 && rt.barriers > 0 && memcmp(want, got, cc) == 0,
        "%s grid %ux%u block %ux%u: outputs differ or the tiled code did not run (%s)", kernels[kernel], grid[0],
        grid[1], block[0], block[1], rt.message);
  free(want);
  free(got);
  free(a);
  free(b);
  return 2;
}

int main(void) {
  const char *seed = getenv("KF_SEED");
  if (seed) rng = strtoull(seed, NULL, 0) | 1;
  ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  /* (bx, by, rx, ry): tiled, and register-blocked (a block computing rx x ry blocks' outputs) */
  static const uint32_t tiled_for[NVARIANTS][4] = {{16, 16, 1, 1}, {16, 16, 4, 4}, {32, 8, 2, 4}, {8, 4, 4, 2}};
  Module *plain = compile("canonicalize,cse,bce,dce", &d);
  Module *tiled[NVARIANTS] = {NULL};
  for (unsigned v = 0; v < NVARIANTS; v++) {
    char pipeline[160];
    snprintf(pipeline, sizeof pipeline, "canonicalize,cse,bce,tile-shared{bx=%u,by=%u,rx=%u,ry=%u},cse,hoist-checks,canonicalize,cse,dce",
             tiled_for[v][0], tiled_for[v][1], tiled_for[v][2], tiled_for[v][3]);
    tiled[v] = compile(pipeline, &d);
  }
  for (unsigned v = 0; v < NVARIANTS; v++)
    if (!plain || !tiled[v]) return 1;
  for (unsigned v = 0; v < NVARIANTS; v++)
    for (unsigned k = 0; k < NKERNELS; k++) {
      Op *f = find_kernel(tiled[v], kernels[k]);
      CHECK(f && ir_op_attr(f, "tiled_block"), "%s not tiled for %ux%u", kernels[k], tiled_for[v][0], tiled_for[v][1]);
      CHECK(f && (ir_op_attr(f, "register_blocked") != NULL) == (tiled_for[v][2] * tiled_for[v][3] > 1),
            "%s: register blocking %ux%u not as asked", kernels[k], tiled_for[v][2], tiled_for[v][3]);
    }

  int64_t shapes[][3] = {{1, 1, 1}, {130, 70, 90}, {16, 16, 16}, {17, 15, 33}, {64, 64, 32}, {0, 0, 0}, {0, 0, 0},
                         {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  unsigned nshapes = sizeof shapes / sizeof *shapes;
  for (unsigned s = 5; s < nshapes; s++) {
    shapes[s][0] = 1 + (int64_t)(rnd() % 130);
    shapes[s][1] = 1 + (int64_t)(rnd() % 70);
    shapes[s][2] = 1 + (int64_t)(rnd() % 90);
  }
  unsigned launches = 0;
  for (unsigned s = 0; s < nshapes; s++) {
    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
    for (unsigned k = 0; k < NKERNELS; k++) {
      unsigned v = (s + k) % NVARIANTS; /* each shape and kernel against one tiled variant, all variants covered */
      size_t ca = (size_t)(M * K) * elem_bytes[k][0], cb = (size_t)(K * N) * elem_bytes[k][1];
      void *a = malloc(ca + 1), *b = malloc(cb + 1);
      fill(a, k, 0, (size_t)(M * K));
      fill(b, k, 1, (size_t)(K * N));
      size_t cc = (size_t)(M * N) * elem_bytes[k][2];
      /* the block it was tiled for, then another shape */
      uint32_t blocks[2][3] = {{tiled_for[v][0], tiled_for[v][1], 1}, {tiled_for[(v + 2) % NVARIANTS][0], tiled_for[(v + 2) % NVARIANTS][1], 1}};
      for (unsigned bi = 0; bi < 2; bi++) {
        SimResult rp, rt;
        void *want = run(plain, k, blocks[bi], M, N, K, a, b, false, &rp, &d);
        void *got = run(tiled[v], k, blocks[bi], M, N, K, a, b, false, &rt, &d);
        launches++;
        CHECK(rp.status == SIM_OK, "%s untiled %lldx%lldx%lld: %s", kernels[k], (long long)M, (long long)N,
              (long long)K, rp.message);
        CHECK(rt.status == SIM_OK && rt.races == 0 && !rt.barrier_divergence, "%s tiled %ux%u %lldx%lldx%lld block %ux%u: %s",
              kernels[k], tiled_for[v][0], tiled_for[v][1], (long long)M, (long long)N, (long long)K, blocks[bi][0],
              blocks[bi][1], rt.message);
        CHECK(memcmp(want, got, cc) == 0, "%s tiled %ux%u %lldx%lldx%lld block %ux%u: outputs differ", kernels[k],
              tiled_for[v][0], tiled_for[v][1], (long long)M, (long long)N, (long long)K, blocks[bi][0], blocks[bi][1]);
        if (bi == 0) CHECK(rt.barriers > 0, "%s: the block it was tiled for ran the untiled code", kernels[k]);
        else CHECK(rt.barriers == 0, "%s: another block shape ran the tiled code", kernels[k]);
        free(want);
        free(got);
      }
      /* aliasing: C is A (square, A's dtype is C's) */
      if (M == K && elem_bytes[k][0] == elem_bytes[k][2] && k != 3) {
        SimResult rp, rt;
        void *want = run(plain, k, blocks[0], M, N, K, a, b, true, &rp, &d);
        void *got = run(tiled[v], k, blocks[0], M, N, K, a, b, true, &rt, &d);
        launches++;
        CHECK(rt.status == SIM_OK && rt.barriers == 0, "%s aliasing %lld: the tiled code ran (%s)", kernels[k],
              (long long)M, rt.message);
        CHECK(memcmp(want, got, cc) == 0, "%s aliasing %lld: outputs differ", kernels[k], (long long)M);
        free(want);
        free(got);
      }
      free(a);
      free(b);
    }
  }
  /* aliasing on a square shape is always covered */
  for (unsigned k = 0; k < 3; k++) {
    int64_t n = 19 + k;
    size_t bytes = (size_t)(n * n) * elem_bytes[k][0];
    void *a = malloc(bytes), *b = malloc(bytes);
    fill(a, k, 0, (size_t)(n * n));
    fill(b, k, 1, (size_t)(n * n));
    const uint32_t blk[3] = {tiled_for[0][0], tiled_for[0][1], 1};
    SimResult rp, rt;
    void *want = run(plain, k, blk, n, n, n, a, b, true, &rp, &d);
    void *got = run(tiled[0], k, blk, n, n, n, a, b, true, &rt, &d);
    launches++;
    CHECK(rt.status == SIM_OK && rt.barriers == 0, "%s aliasing: the tiled code ran (%s)", kernels[k], rt.message);
    CHECK(memcmp(want, got, bytes) == 0, "%s aliasing: outputs differ", kernels[k]);
    free(want);
    free(got);
    free(a);
    free(b);
  }
  for (unsigned v = 0; v < NVARIANTS; v++)
    for (unsigned k = 0; k < NKERNELS; k++) {
      launches += short_grid(plain, tiled[v], (const uint32_t[3]){tiled_for[v][0], tiled_for[v][1], 1}, k, &d);
      launches += index_errors(plain, tiled[v], (const uint32_t[3]){tiled_for[v][0], tiled_for[v][1], 1}, k, &d);
    }
  if (diag_errors(&d)) fprintf(stderr, "%s", diag_text(&d));
  ir_module_free(plain);
  for (unsigned v = 0; v < NVARIANTS; v++) ir_module_free(tiled[v]);
  diag_free(&d);
  ir_context_free(ctx);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  else printf("passes_tile_shared: %u launches bit-identical\n", launches);
  return failures != 0;
}
