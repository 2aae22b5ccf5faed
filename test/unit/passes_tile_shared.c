/* passes_tile_shared.c — shared-memory tiling keeps every result bit for bit: a randomized differential test
 * on the simulator.
 *
 * Naive matmuls (both guard styles: `if i < n and j < m:` around the loop and `if i >= n or j >= m: return`
 * before it; float32, float64 and integer accumulators) are compiled twice from the same source: with the
 * pipeline without tile-shared (canonicalize,cse,bce,dce), and with tile-shared{bx,by,rx,ry},hoist-checks after
 * bce (and unroll after hoist-checks), for square (16x16) and non-square (32x8, 8x4) tiled blocks, plain (rx =
 * ry = 1) and register-blocked (a block computing the outputs of 4x4, 2x4, 4x2 blocks), with the options'
 * defaults, with prefetch, uniform, wide and unroll off and with double buffering. Each is launched on random shapes that are not
 * multiples of the tile (1x1x1 up to 130x70x90,
 * the extremes always), random data, the grid covering C with a spare block; the outputs must agree bit for
 * bit with the untiled kernel's, the simulator must report no race, no barrier divergence (under strict_barriers:
 * every thread reaches each barrier the pass inserts, CUDA C's rule, not only the threads that have not exited)
 * and no error.
 * Launches with the block the variant was built for must run the tiled code (barriers counted), launches
 * with another block shape, or with C passed as A (aliasing arguments), the untiled code (no barrier) with
 * the untiled answer. The stencils (neighbour reads of kernels without a loop) tiled with their halo, and the
 * seed's fast_matmul padded by pad-shared, and loops with no guard around them (the register-blocked variant
 * then inserts its code where the loop was), against the same, below. Each kernel must have been tiled (a variant named by its `tiled_variant` attribute), so
 * the test cannot pass by tiling nothing. A launch picks the kernel or its variant as the runtime does, through
 * its launch-plan code (runtime/plan.c): the variant with the block it was built for and disjoint arrays, on
 * the physical grid of its plan (a register-blocked block computes several of the user's), with the user's
 * grid as hidden parameters. Launches where B is smaller than A and C say (fewer rows than A's columns, or one
 * column fewer than C) must fail in the tiled code with the untiled code's IndexError: the same source line,
 * axis, index and extent (the checks hoist-checks moved out of the loops report as the originals would).
 * KF_SEED picks other shapes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/rt.h"
#include "runtime/runtime.h"
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
    "        C[i, j] = acc\n"
    "\n"
    "@cuda.jit('void(float32[:], float32[:])')\n"
    "def st3_f32(a, b):\n"
    "    i = cuda.grid(1)\n"
    "    if i >= 1 and i < a.shape[0] - 1:\n"
    "        b[i] = float32(0.25) * a[i - 1] + float32(0.5) * a[i] + float32(0.25) * a[i + 1]\n"
    "\n"
    "@cuda.jit('void(float64[:], float64[:])')\n"
    "def st3_f64(a, b):\n"
    "    i = cuda.grid(1)\n"
    "    if i > 0 and i < a.size - 1:\n"
    "        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0\n"
    "\n"
    "@cuda.jit('void(float64[:], float64[:])')\n"
    "def st_unsafe(a, b):\n"
    "    i = cuda.grid(1)\n"
    "    if i < b.size:\n"
    "        b[i] = a[i] + a[i + 1] + a[i + 2]\n"
    "\n"
    "@cuda.jit('void(float32[:,:], float32[:,:])')\n"
    "def jacobi(u, v):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i >= 1 and i < u.shape[0] - 1 and j >= 1 and j < u.shape[1] - 1:\n"
    "        v[i, j] = float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])\n"
    "\n"
    "@cuda.jit('void(float64[:,:], float64[:,:])')\n"
    "def jacobi_ret(u, v):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i < 1 or j < 1 or i >= u.shape[0] - 1 or j >= u.shape[1] - 1:\n"
    "        return\n"
    "    v[i, j] = 0.2 * (u[i, j] + u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])\n"
    "\n"
    "@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')\n"
    "def fast_matmul(A, B, C):\n"
    "    sA = cuda.shared.array(shape=(16, 16), dtype=float32)\n"
    "    sB = cuda.shared.array(shape=(16, 16), dtype=float32)\n"
    "    x, y = cuda.grid(2)\n"
    "    tx = cuda.threadIdx.x\n"
    "    ty = cuda.threadIdx.y\n"
    "    if x >= C.shape[0] and y >= C.shape[1]:\n"
    "        return\n"
    "    tmp = 0.\n"
    "    for i in range(int(A.shape[1] / 16)):\n"
    "        sA[tx, ty] = A[x, ty + i * 16]\n"
    "        sB[tx, ty] = B[tx + i * 16, y]\n"
    "        cuda.syncthreads()\n"
    "        for j in range(16):\n"
    "            tmp += sA[tx, j] * sB[j, ty]\n"
    "        cuda.syncthreads()\n"
    "    C[x, y] = tmp\n"
    "\n"
    "@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')\n"
    "def mm_noguard(A, B, C):\n"
    "    i, j = cuda.grid(2)\n"
    "    acc = float32(0)\n"
    "    for k in range(A.shape[1]):\n"
    "        acc += A[i, k] * B[k, j]\n"
    "    C[i, j] = acc\n"
    "\n"
    "@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')\n"
    "def sum_all(A, B, C):\n"
    "    i, j = cuda.grid(2)\n"
    "    acc = float32(0)\n"
    "    for k in range(A.shape[1]):\n"
    "        acc += A[0, k]\n"
    "    if i < C.shape[0] and j < C.shape[1]:\n"
    "        C[i, j] = acc + B[0, 0]\n";

enum { NKERNELS = 4, NVARIANTS = 8 };
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
  kf_compile_options co;
  kf_compile_options_init(&co);
  co.pipeline = pipeline;
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

static Op *find_variant(Module *m, const char *name) {
  Op *f = find_kernel(m, name);
  const char *v = f ? ir_op_attr_str(f, "tiled_variant") : NULL;
  return v ? ir_module_lookup(m, v) : NULL;
}

static kf_arg kf_array_arg(void *data, unsigned elem, int64_t rows, int64_t cols) {
  kf_arg a = {.kind = KF_ARG_ARRAY};
  a.array = (kf_array){.data = data, .memory = KF_MEMORY_HOST, .dtype = elem == 8 ? KF_FLOAT64 : KF_FLOAT32, .ndim = 2,
                       .shape = {rows, cols}, .strides = {cols * elem, elem}};
  return a;
}

/* Launches kernel `name` of m as the runtime would: its tiled variant when the variant's plan takes this block
 * and these arrays (kargs: the same arrays as the runtime sees them), on its physical grid, with the user's grid
 * as hidden parameters; else the kernel itself. */
static bool ran_variant; /* whether the last launch_as_runtime launched the tiled variant */

static void launch_as_runtime(Module *m, const char *name, const uint32_t grid[3], const uint32_t block[3],
                              SimArg *args, unsigned nargs, const kf_arg *kargs, const SimOptions *o, SimResult *res,
                              Diag *d) {
  Op *f = find_kernel(m, name), *v = find_variant(m, name);
  RtLaunchPlan plan;
  RtLaunchShape user = {{grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, 0}, phys;
  int64_t hidden[RT_PLAN_MAX_HIDDEN];
  ran_variant = false;
  if (v && rt_plan_from_kir(v, &plan, d) && rt_plan_block_fits(&plan, block) &&
      rt_plan_args_disjoint(&plan, kargs, nargs)) {
    rt_plan_apply(&plan, &user, NULL, NULL, NULL, &phys, hidden);
    SimArg all[16];
    memcpy(all, args, nargs * sizeof *args);
    for (unsigned i = 0; i < plan.nhidden; i++) all[nargs + i] = sim_arg_int(hidden[i]);
    sim_launch(m, v, phys.grid, phys.block, 0, all, nargs + plan.nhidden, o, res, d);
    ran_variant = true;
  } else {
    sim_launch(m, f, grid, block, 0, args, nargs, o, res, d);
  }
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
  int64_t sb[2] = {bshape ? bshape[0] : K, bshape ? bshape[1] : N};
  size_t ca = (size_t)(M * K) * elem_bytes[kernel][0], cb = (size_t)(sb[0] * sb[1]) * elem_bytes[kernel][1],
         cc = (size_t)(M * N) * elem_bytes[kernel][2];
  void *A = malloc(ca + 1), *B = malloc(cb + 1), *C = calloc(1, cc + 1);
  memcpy(A, a, ca);
  memcpy(B, b, cb);
  int64_t sa[2] = {M, K}, sc[2] = {M, N};
  SimArg args[3] = {sim_arg_array_c(A, elem_type(kernel, 0), 2, sa), sim_arg_array_c(B, elem_type(kernel, 1), 2, sb),
                    sim_arg_array_c(C, elem_type(kernel, 2), 2, sc)};
  const unsigned *eb = elem_bytes[kernel];
  kf_arg kargs[3] = {kf_array_arg(A, eb[0], M, K), kf_array_arg(B, eb[1], sb[0], sb[1]), kf_array_arg(C, eb[2], M, N)};
  if (alias) { /* C passed as A too (square shapes, same dtype): the kernel reads what it writes */
    memcpy(C, a, ca);
    args[0] = sim_arg_array_c(C, elem_type(kernel, 0), 2, sa);
    kargs[0] = kf_array_arg(C, eb[0], M, K);
  }
  uint32_t grid[3] = {(uint32_t)((M + block[0] - 1) / block[0] + 1), (uint32_t)((N + block[1] - 1) / block[1]), 1};
  if (grid_given) memcpy(grid, grid_given, sizeof grid);
  SimOptions o;
  sim_options_init(&o);
  o.strict_barriers = true;
  memset(res, 0, sizeof *res);
  launch_as_runtime(m, kernels[kernel], grid, block, args, 3, kargs, &o, res, d);
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
    /* (a register-blocked edge block does its checks before its first barrier: ran_variant, not barriers) */
    CHECK(p->set && t->set && ran_variant, "%s B %lldx%lld block %ux%u: an IndexError each, the tiled code ran",
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

/* ---- stencils: neighbour reads of kernels without a loop (halo tiles) ------------------------------------ */

enum { NSTENCILS = 5 };
static const struct {
  const char *name;
  unsigned rank, elem;      /* elem: bytes (4 float32, 8 float64) */
  bool index_error;         /* reads past the end where the untiled kernel does (the same IndexError) */
} stencils[NSTENCILS] = {{"st3_f32", 1, 4, false}, {"st3_f64", 1, 8, false}, {"st_unsafe", 1, 8, true},
                         {"jacobi", 2, 4, false}, {"jacobi_ret", 2, 8, false}};

static Type *float_type(unsigned elem) { return ty_float(ctx, elem * 8); }

/* Runs stencil s of m over an input of the given shape (b: the output, same shape; the input as b too when
 * alias), returns b. */
static void *run_stencil(Module *m, unsigned s, const uint32_t block[3], const int64_t shape[2], const void *in,
                         bool alias, SimResult *res, Diag *d) {
  unsigned rank = stencils[s].rank, elem = stencils[s].elem;
  int64_t n = shape[0] * (rank == 2 ? shape[1] : 1);
  size_t bytes = (size_t)n * elem;
  void *a = malloc(bytes + 1), *b = calloc(1, bytes + 1);
  memcpy(a, in, bytes);
  if (alias) memcpy(b, in, bytes);
  SimArg args[2] = {sim_arg_array_c(alias ? b : a, float_type(elem), rank, shape),
                    sim_arg_array_c(b, float_type(elem), rank, shape)};
  kf_arg kargs[2];
  for (unsigned i = 0; i < 2; i++) {
    kargs[i] = kf_array_arg(i == 0 && !alias ? a : b, elem, shape[0], rank == 2 ? shape[1] : 1);
    kargs[i].array.ndim = rank;
    if (rank == 1) kargs[i].array.strides[0] = elem;
  }
  uint32_t grid[3] = {(uint32_t)((shape[0] + block[0] - 1) / block[0]), 1, 1};
  if (rank == 2) grid[1] = (uint32_t)((shape[1] + block[1] - 1) / block[1]);
  SimOptions o;
  sim_options_init(&o);
  o.strict_barriers = true;
  memset(res, 0, sizeof *res);
  launch_as_runtime(m, stencils[s].name, grid, block, args, 2, kargs, &o, res, d);
  free(a);
  return b;
}

/* The stencils tiled (the cost model told to take them: halo-min-reuse=0) against untiled, bit for bit, on
 * shapes around the block's edges and at the arrays' (1 and 2 elements, one past a block, ...): the variant
 * with its block (1-D: 256 threads, 2-D 16x16) runs the tiled code race-free, another block or the input
 * passed as the output the untiled one; the unguarded one fails with the untiled IndexError. The default
 * pipeline's cost model declines the 1-D ones (it leaves their neighbour reads to L1) and takes the 2-D ones
 * (a warp reads down a column: the tile's loads read along rows). Returns the launches. */
static unsigned stencil_tests(Module *plain, Diag *d) {
  Module *tiled = compile("canonicalize,cse,bce,tile-shared{halo-min-reuse=0},cse,hoist-checks,unroll,canonicalize,cse,dce", d);
  Module *dflt = compile(NULL, d);
  if (!tiled || !dflt) {
    failures++;
    return 0;
  }
  unsigned launches = 0;
  const int64_t shapes1[] = {1, 2, 3, 255, 256, 257, 258, 300, 513, 0, 0, 0};
  const int64_t shapes2[][2] = {{1, 1}, {2, 3}, {3, 3}, {16, 16}, {17, 15}, {18, 18}, {33, 40}, {0, 0}, {0, 0}};
  for (unsigned s = 0; s < NSTENCILS; s++) {
    Op *v = find_variant(tiled, stencils[s].name);
    CHECK(v != NULL, "%s: no tiled variant", stencils[s].name);
    /* the default cost model: 1-D stencils are left to L1, the 2-D ones (a warp reads down a column) tiled */
    CHECK((find_variant(dflt, stencils[s].name) != NULL) == (stencils[s].rank == 2), "%s: the default cost model %s it",
          stencils[s].name, stencils[s].rank == 2 ? "did not tile" : "tiled");
    if (!v) continue;
    unsigned rank = stencils[s].rank, elem = stencils[s].elem;
    const uint32_t blocks[2][3] = {{rank == 1 ? 256 : 16, rank == 1 ? 1 : 16, 1}, {rank == 1 ? 64 : 8, rank == 1 ? 1 : 32, 1}};
    unsigned nshapes = rank == 1 ? sizeof shapes1 / sizeof *shapes1 : sizeof shapes2 / sizeof *shapes2;
    for (unsigned k = 0; k < nshapes; k++) {
      int64_t shape[2] = {rank == 1 ? shapes1[k] : shapes2[k][0], rank == 1 ? 1 : shapes2[k][1]};
      if (!shape[0]) { /* random */
        shape[0] = 1 + (int64_t)(rnd() % (rank == 1 ? 1100 : 70));
        shape[1] = rank == 1 ? 1 : 1 + (int64_t)(rnd() % 70);
      }
      size_t n = (size_t)(shape[0] * shape[1]);
      void *in = malloc(n * elem + 1);
      for (size_t e = 0; e < n; e++) {
        uint64_t r = rnd();
        if (elem == 4) ((float *)in)[e] = (float)((double)(r % 100000) / 7919.0 - 6.0);
        else ((double *)in)[e] = (double)(r % 1000003) / 7919.0 - 60.0;
      }
      for (unsigned bi = 0; bi < 3; bi++) { /* the variant's block, another, the variant's with the input aliased */
        const uint32_t *block = blocks[bi == 1];
        bool alias = bi == 2;
        SimResult rp, rt;
        void *want = run_stencil(plain, s, block, shape, in, alias, &rp, d);
        void *got = run_stencil(tiled, s, block, shape, in, alias, &rt, d);
        launches++;
        const char *name = stencils[s].name;
        if (stencils[s].index_error) {
          const SimIndexError *p = &rp.index_error, *t = &rt.index_error;
          CHECK(p->set && t->set && p->loc.line == t->loc.line && p->loc.col == t->loc.col && p->index == t->index &&
                    p->extent == t->extent,
                "%s %lld: untiled IndexError %d line %u index %lld, tiled %d line %u index %lld", name,
                (long long)shape[0], p->set, p->loc.line, (long long)p->index, t->set, t->loc.line, (long long)t->index);
        } else {
          CHECK(rp.status == SIM_OK, "%s untiled %lldx%lld: %s", name, (long long)shape[0], (long long)shape[1], rp.message);
          CHECK(rt.status == SIM_OK && rt.races == 0 && !rt.barrier_divergence, "%s tiled %lldx%lld block %ux%u: %s", name,
                (long long)shape[0], (long long)shape[1], block[0], block[1], rt.message);
          CHECK(memcmp(want, got, n * elem) == 0, "%s %lldx%lld block %ux%u%s: outputs differ", name, (long long)shape[0],
                (long long)shape[1], block[0], block[1], alias ? " aliased" : "");
        }
        if (bi == 0) CHECK(rt.barriers > 0, "%s: the block it was tiled for ran the untiled code", name);
        else CHECK(rt.barriers == 0, "%s: %s ran the tiled code", name, alias ? "aliased arrays" : "another block");
        free(want);
        free(got);
      }
      free(in);
    }
  }
  ir_module_free(tiled);
  ir_module_free(dflt);
  return launches;
}

/* The seed's hand-tiled fast_matmul with its shared arrays padded (pad-shared) against unpadded: bit for bit,
 * race-free (its shapes multiples of 16, as it needs). */
static unsigned padded_tests(Module *plain, Diag *d) {
  Module *padded = compile("canonicalize,cse,bce,pad-shared,dce", d);
  if (!padded) {
    failures++;
    return 0;
  }
  const Op *g = ir_module_lookup(padded, "fast_matmul__sA");
  const Attr *shape = g ? ir_op_attr(g, "shape") : NULL;
  CHECK(shape && shape->arr.n == 2 && shape->arr.elems[1].i == 17, "fast_matmul's sA not padded");
  static const int64_t shapes[][3] = {{16, 16, 16}, {64, 48, 32}, {32, 16, 80}};
  unsigned launches = 0;
  for (unsigned s = 0; s < 3; s++) {
    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
    size_t na = (size_t)(M * K), nb = (size_t)(K * N), nc = (size_t)(M * N);
    float *a = malloc(na * 4), *b = malloc(nb * 4), *c[2] = {calloc(nc, 4), calloc(nc, 4)};
    fill(a, 0, 0, na);
    fill(b, 0, 1, nb);
    int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
    SimResult r[2];
    for (unsigned v = 0; v < 2; v++) {
      Module *m = v ? padded : plain;
      SimArg args[3] = {sim_arg_array_c(a, elem_type(0, 0), 2, sa), sim_arg_array_c(b, elem_type(0, 1), 2, sb),
                        sim_arg_array_c(c[v], elem_type(0, 2), 2, sc)};
      SimOptions o;
      sim_options_init(&o);
      o.strict_barriers = true;
      const uint32_t grid[3] = {(uint32_t)(M / 16), (uint32_t)(N / 16), 1}, block[3] = {16, 16, 1};
      sim_launch(m, find_kernel(m, "fast_matmul"), grid, block, 0, args, 3, &o, &r[v], d);
      launches++;
    }
    CHECK(r[0].status == SIM_OK && r[1].status == SIM_OK && r[1].races == 0, "fast_matmul %lldx%lldx%lld: %s %s",
          (long long)M, (long long)N, (long long)K, r[0].message, r[1].message);
    CHECK(memcmp(c[0], c[1], nc * 4) == 0, "fast_matmul %lldx%lldx%lld: padded and unpadded differ", (long long)M,
          (long long)N, (long long)K);
    free(a);
    free(b);
    free(c[0]);
    free(c[1]);
  }
  ir_module_free(padded);
  return launches;
}

/* Loops with no guard around them: the naive matmul without one (launched on exactly C's shape) and a loop
 * whose load every thread shares (A[0, k]: no thread index), tiled and register-blocked, against untiled. */
static unsigned unguarded_tests(Module *plain, Diag *d) {
  static const char *const pipes[2] = {"canonicalize,cse,bce,tile-shared,cse,hoist-checks,unroll,canonicalize,cse,dce",
                                       "canonicalize,cse,bce,tile-shared{rx=1,ry=1},cse,hoist-checks,canonicalize,cse,dce"};
  static const char *const names[2] = {"mm_noguard", "sum_all"};
  static const int64_t shapes[][3] = {{16, 16, 5}, {48, 80, 33}, {112, 32, 17}};
  unsigned launches = 0;
  for (unsigned p = 0; p < 2; p++) {
    Module *tiled = compile(pipes[p], d);
    if (!tiled) {
      failures++;
      continue;
    }
    for (unsigned k = 0; k < 2; k++) {
      CHECK(find_variant(tiled, names[k]) != NULL, "%s not tiled (%s)", names[k], pipes[p]);
      for (unsigned s = 0; s < 3; s++) {
        int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        size_t na = (size_t)(M * K), nb = (size_t)(K * N), nc = (size_t)(M * N);
        float *a = malloc(na * 4), *b = malloc(nb * 4), *c[2] = {calloc(nc, 4), calloc(nc, 4)};
        fill(a, 0, 0, na);
        fill(b, 0, 1, nb);
        int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
        SimResult r[2];
        const uint32_t grid[3] = {(uint32_t)(M / 16), (uint32_t)(N / 16), 1}, block[3] = {16, 16, 1};
        for (unsigned v = 0; v < 2; v++) {
          Module *m = v ? tiled : plain;
          SimArg args[3] = {sim_arg_array_c(a, elem_type(0, 0), 2, sa), sim_arg_array_c(b, elem_type(0, 1), 2, sb),
                            sim_arg_array_c(c[v], elem_type(0, 2), 2, sc)};
          kf_arg kargs[3] = {kf_array_arg(a, 4, M, K), kf_array_arg(b, 4, K, N), kf_array_arg(c[v], 4, M, N)};
          SimOptions o;
          sim_options_init(&o);
          o.strict_barriers = true;
          launch_as_runtime(m, names[k], grid, block, args, 3, kargs, &o, &r[v], d);
          launches++;
        }
        CHECK(r[0].status == SIM_OK && r[1].status == SIM_OK && r[1].races == 0 && r[1].barriers > 0,
              "%s %lldx%lldx%lld (%s): %s %s", names[k], (long long)M, (long long)N, (long long)K, pipes[p],
              r[0].message, r[1].message);
        CHECK(memcmp(c[0], c[1], nc * 4) == 0, "%s %lldx%lldx%lld (%s): outputs differ", names[k], (long long)M,
              (long long)N, (long long)K, pipes[p]);
        free(a);
        free(b);
        free(c[0]);
        free(c[1]);
      }
    }
    ir_module_free(tiled);
  }
  return launches;
}

/* An array argument in C or F order (F: the first index fastest), for the simulator and for the launch plan. */
static SimArg sim_array(void *data, Type *elem, int64_t rows, int64_t cols, bool f_order) {
  SimArg a = sim_arg_array_c(data, elem, 2, (const int64_t[2]){rows, cols});
  if (f_order) {
    a.array.strides[0] = (int64_t)ty_size(elem);
    a.array.strides[1] = rows * (int64_t)ty_size(elem);
  }
  return a;
}

static kf_arg kf_array_ord(void *data, unsigned elem, int64_t rows, int64_t cols, bool f_order) {
  kf_arg a = kf_array_arg(data, elem, rows, cols);
  if (f_order) {
    a.array.strides[0] = elem;
    a.array.strides[1] = rows * elem;
  }
  return a;
}

/* Tiling at any size (issue 24): sizes that are not multiples of the tile (the register-blocked variant's 64 x 64
 * outputs per block, depth 16 along K), 1 x 1, sizes just off 1024, rectangular M != N != K, a K below one tile,
 * and F-order inputs and output, launched on exactly the grid a user writes (ceil(M/16) x ceil(N/16)); the
 * default pipeline (edge blocks on the speculated whole-tile path) and speculate=0 (each body under its guard,
 * per k), bit for bit against the untiled compile. The sizes near 1000 are long along one side only: the
 * simulator is slow. */
static unsigned edge_size_tests(Module *plain, Diag *d) {
  /* the default, the old edge path, and the variants bench/matmul_variants.py times (8x8 register tiles with
   * their whole tiles unrolled, 4x8, depth 8) */
  static const char *const pipes[] = {
      "canonicalize,cse,bce,pad-shared,tile-shared,cse,hoist-checks,unroll,privatize-atomics,dce",
      "canonicalize,cse,bce,pad-shared,tile-shared{speculate=0},cse,hoist-checks,unroll,privatize-atomics,dce",
      "canonicalize,cse,bce,pad-shared,tile-shared{rx=8,ry=8,min-blocks=1,double=1},cse,hoist-checks,"
      "unroll{max-ops=20000},privatize-atomics,dce",
      "canonicalize,cse,bce,pad-shared,tile-shared{rx=4,ry=8,min-blocks=1,double=1},cse,hoist-checks,unroll,"
      "privatize-atomics,dce",
      "canonicalize,cse,bce,pad-shared,tile-shared{depth=8},cse,hoist-checks,unroll,privatize-atomics,dce"};
  enum { NPIPES = sizeof pipes / sizeof *pipes };
  /* M, N, K, F order */
  static const int64_t shapes[][4] = {{1, 1, 1, 0},    {17, 17, 17, 0},  {100, 100, 100, 0}, {1000, 20, 7, 0},
                                      {1023, 9, 19, 0}, {1025, 33, 3, 0}, {6, 1025, 17, 0},   {64, 64, 64, 0},
                                      {128, 64, 33, 0}, {65, 127, 50, 0}, {100, 37, 50, 1},   {64, 128, 16, 1},
                                      {129, 131, 17, 0}, {257, 130, 9, 0}};
  unsigned launches = 0;
  for (unsigned p = 0; p < NPIPES; p++) {
    Module *tiled = compile(pipes[p], d);
    if (!tiled) {
      failures++;
      continue;
    }
    for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; s++) {
      int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
      bool fo = shapes[s][3] != 0;
      unsigned k = s % 3 == 2 ? 2 : s % 2; /* mm_f32, mm_f32_ret, mm_f64_ret in turn */
      if (p >= 1 && (s + p + 1) % 2) continue; /* the others on half the shapes each (the old path on the even) */
      unsigned e = elem_bytes[k][0];
      size_t na = (size_t)(M * K), nb = (size_t)(K * N), nc = (size_t)(M * N);
      void *a = malloc(na * e), *b = malloc(nb * e), *c[2] = {calloc(nc, e), calloc(nc, e)};
      fill(a, k, 0, na);
      fill(b, k, 1, nb);
      SimResult r[2];
      const uint32_t grid[3] = {(uint32_t)((M + 15) / 16), (uint32_t)((N + 15) / 16), 1}, block[3] = {16, 16, 1};
      bool ran[2];
      for (unsigned v = 0; v < 2; v++) {
        Module *m = v ? tiled : plain;
        SimArg args[3] = {sim_array(a, elem_type(k, 0), M, K, fo), sim_array(b, elem_type(k, 1), K, N, fo),
                          sim_array(c[v], elem_type(k, 2), M, N, fo)};
        kf_arg kargs[3] = {kf_array_ord(a, e, M, K, fo), kf_array_ord(b, e, K, N, fo), kf_array_ord(c[v], e, M, N, fo)};
        SimOptions o;
        sim_options_init(&o);
        o.strict_barriers = true;
        launch_as_runtime(m, kernels[k], grid, block, args, 3, kargs, &o, &r[v], d);
        ran[v] = ran_variant;
        launches++;
      }
      CHECK(r[0].status == SIM_OK && r[1].status == SIM_OK && r[1].races == 0 && !r[1].barrier_divergence && ran[1],
            "%s %lldx%lldx%lld%s (%s): %s %s", kernels[k], (long long)M, (long long)N, (long long)K, fo ? " F" : "",
            pipes[p], r[0].message, r[1].message);
      CHECK(memcmp(c[0], c[1], nc * e) == 0, "%s %lldx%lldx%lld%s (%s): outputs differ", kernels[k], (long long)M,
            (long long)N, (long long)K, fo ? " F" : "", pipes[p]);
      free(a);
      free(b);
      free(c[0]);
      free(c[1]);
    }
    ir_module_free(tiled);
  }
  return launches;
}

int main(void) {
  const char *seed = getenv("KF_SEED");
  if (seed) rng = strtoull(seed, NULL, 0) | 1;
  ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  /* (bx, by, rx, ry): tiled, and register-blocked (a block computing rx x ry blocks' outputs) */
  static const uint32_t tiled_for[NVARIANTS][4] = {{16, 16, 1, 1}, {16, 16, 4, 4}, {32, 8, 2, 4}, {8, 4, 4, 2},
                                                   {16, 16, 4, 4}, {16, 16, 1, 1}, {16, 16, 4, 4}, {32, 8, 1, 1}};
  /* the others: the code paths the options switch off (prefetch, uniform, wide, unroll) or on (double) */
  static const char *const extra[NVARIANTS] = {"", "", "", "", ",prefetch=0,uniform=0,wide=0,unroll=0",
                                               ",prefetch=0,unroll=0", ",double=1", ",double=1,prefetch=0"};
  Module *plain = compile("canonicalize,cse,bce,dce", &d);
  Module *tiled[NVARIANTS] = {NULL};
  for (unsigned v = 0; v < NVARIANTS; v++) {
    char pipeline[240];
    snprintf(pipeline, sizeof pipeline,
             "canonicalize,cse,bce,tile-shared{bx=%u,by=%u,rx=%u,ry=%u%s},cse,hoist-checks,unroll,canonicalize,cse,dce",
             tiled_for[v][0], tiled_for[v][1], tiled_for[v][2], tiled_for[v][3], extra[v]);
    tiled[v] = compile(pipeline, &d);
  }
  for (unsigned v = 0; v < NVARIANTS; v++)
    if (!plain || !tiled[v]) return 1;
  for (unsigned v = 0; v < NVARIANTS; v++)
    for (unsigned k = 0; k < NKERNELS; k++) {
      Op *f = find_variant(tiled[v], kernels[k]);
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
      bool is16 = tiled_for[v][0] == 16 && tiled_for[v][1] == 16;
      uint32_t blocks[2][3] = {{tiled_for[v][0], tiled_for[v][1], 1}, {is16 ? 32 : 16, is16 ? 8 : 16, 1}};
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
  launches += stencil_tests(plain, &d);
  launches += padded_tests(plain, &d);
  launches += unguarded_tests(plain, &d);
  launches += edge_size_tests(plain, &d);
  if (diag_errors(&d)) fprintf(stderr, "%s", diag_text(&d));
  ir_module_free(plain);
  for (unsigned v = 0; v < NVARIANTS; v++) ir_module_free(tiled[v]);
  diag_free(&d);
  ir_context_free(ctx);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  else printf("passes_tile_shared: %u launches bit-identical\n", launches);
  return failures != 0;
}
