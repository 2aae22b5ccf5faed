/* passes_grid_stride.c — randomized equivalence of the grid-stride pass (passes/grid_stride.c).
 *
 * Random kernels of the eligible shape (1-D/2-D/3-D grids and blocks; a guard on the global linear thread
 * id, or a grid-stride loop written by the user; values mixing threadIdx, blockIdx, blockDim, gridDim,
 * cuda.grid / gridsize-style products; an atomic count of the blocks run and a checksum of their ids) run on
 * the simulator twice: the original over the user's grid, and the rewritten kernel over physical 1-D grids
 * of 1, 2, 7 and gx*gy*gz blocks with the user's grid dims as the extra arguments. Outputs must be equal. */
#include <inttypes.h>
#include <stdarg.h>

#include "sim_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static unsigned pick(unsigned n) { return (unsigned)(rnd() % n); }

typedef struct Text {
  char buf[16384];
  size_t n;
  unsigned tmp;
} Text;

static void put(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
  va_end(ap);
  if (k > 0) t->n += (size_t)k;
  if (t->n >= sizeof t->buf) abort();
}

/* the 12 id values (i64), named %v0..%v11: tx ty tz bx by bz dx dy dz gx gy gz */
static const char *const id_ops[4] = {"gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim"};

/* a fresh i64 temporary: v op w */
static unsigned bin(Text *t, const char *op, const char *v, const char *w) {
  unsigned r = t->tmp++;
  put(t, "  %%t%u = arith.%s(%s, %s) : (i64, i64) -> (i64)\n", r, op, v, w);
  return r;
}

static unsigned cst(Text *t, int64_t c) {
  unsigned r = t->tmp++;
  put(t, "  %%t%u = arith.constant() {value = %" PRId64 "} : () -> (i64)\n", r, c);
  return r;
}

/* a random i64 value from the ids: sum of c_k * id_k, sometimes with a remainder by a grid dim */
static unsigned value(Text *t, const char *extra) {
  char acc[32], a[32], b[32];
  snprintf(acc, sizeof acc, "%%t%u", cst(t, (int64_t)pick(100)));
  unsigned nterms = 1 + pick(5);
  for (unsigned i = 0; i < nterms; i++) {
    snprintf(a, sizeof a, "%%v%u", pick(12));
    unsigned form = pick(4);
    unsigned r;
    if (form == 0) {
      snprintf(b, sizeof b, "%%v%u", 9 + pick(3));
      r = bin(t, "remsi", a, b);
    } else if (form == 1) {
      snprintf(b, sizeof b, "%%v%u", pick(12));
      r = bin(t, "muli", a, b);
    } else {
      snprintf(b, sizeof b, "%%t%u", cst(t, 1 + pick(1000)));
      r = bin(t, "muli", a, b);
    }
    snprintf(b, sizeof b, "%%t%u", r);
    snprintf(acc, sizeof acc, "%%t%u", bin(t, "addi", acc, b));
  }
  if (extra) snprintf(acc, sizeof acc, "%%t%u", bin(t, "addi", acc, extra));
  return (unsigned)atoi(acc + 2);
}

static void store(Text *t, unsigned val, const char *idx) {
  unsigned d = t->tmp++;
  put(t, "  %%t%u = mem.dim(%%out) {axis = 0} : (array<i64, 1, C>) -> (i64)\n", d);
  put(t, "  check.bounds(%s, %%t%u) {axis = 0} : (i64, i64) -> ()\n", idx, d);
  put(t, "  mem.store(%%t%u, %%out, %s) : (i64, array<i64, 1, C>, i64) -> ()\n", val, idx);
}

static void generate(Text *t) {
  t->n = 0;
  t->tmp = 0;
  put(t, "func.func() ({\n^bb0(%%out: array<i64, 1, C>, %%cnt: array<i64, 1, C>, %%n: i64):\n");
  for (unsigned k = 0; k < 12; k++) {
    put(t, "  %%w%u = %s() {dim = %u} : () -> (i32)\n", k, id_ops[k / 3], k % 3);
    put(t, "  %%v%u = arith.extsi(%%w%u) : (i32) -> (i64)\n", k, k);
  }
  /* global linear thread id g and the number of threads T */
  unsigned bzy = bin(t, "muli", "%v5", "%v10");
  char s1[32], s2[32];
  snprintf(s1, sizeof s1, "%%t%u", bzy);
  unsigned lb = bin(t, "addi", s1, "%v4");
  snprintf(s1, sizeof s1, "%%t%u", lb);
  lb = bin(t, "muli", s1, "%v9");
  snprintf(s1, sizeof s1, "%%t%u", lb);
  lb = bin(t, "addi", s1, "%v3");
  unsigned bs = bin(t, "muli", "%v6", "%v7");
  snprintf(s1, sizeof s1, "%%t%u", bs);
  bs = bin(t, "muli", s1, "%v8");
  unsigned lt = bin(t, "muli", "%v2", "%v7");
  snprintf(s1, sizeof s1, "%%t%u", lt);
  lt = bin(t, "addi", s1, "%v1");
  snprintf(s1, sizeof s1, "%%t%u", lt);
  lt = bin(t, "muli", s1, "%v6");
  snprintf(s1, sizeof s1, "%%t%u", lt);
  lt = bin(t, "addi", s1, "%v0");
  snprintf(s1, sizeof s1, "%%t%u", lb);
  snprintf(s2, sizeof s2, "%%t%u", bs);
  unsigned g = bin(t, "muli", s1, s2);
  snprintf(s1, sizeof s1, "%%t%u", g);
  snprintf(s2, sizeof s2, "%%t%u", lt);
  g = bin(t, "addi", s1, s2);
  unsigned gt = bin(t, "muli", "%v9", "%v10");
  snprintf(s1, sizeof s1, "%%t%u", gt);
  gt = bin(t, "muli", s1, "%v11");
  snprintf(s1, sizeof s1, "%%t%u", gt);
  snprintf(s2, sizeof s2, "%%t%u", bs);
  unsigned total = bin(t, "muli", s1, s2);

  /* atomics: a count of the threads run, a checksum of their block ids */
  unsigned zero = cst(t, 0), one = cst(t, 1);
  put(t, "  %%t%u = gpu.atomic_rmw(%%cnt, %%t%u, %%t%u) {kind = \"add\"} : (array<i64, 1, C>, i64, i64) -> (i64)\n",
      t->tmp, zero, one);
  t->tmp++;
  unsigned sum = value(t, NULL);
  put(t, "  %%t%u = gpu.atomic_rmw(%%cnt, %%t%u, %%t%u) {kind = \"add\"} : (array<i64, 1, C>, i64, i64) -> (i64)\n",
      t->tmp, one, sum);
  t->tmp++;

  char gs[32], ts[32];
  snprintf(gs, sizeof gs, "%%t%u", g);
  snprintf(ts, sizeof ts, "%%t%u", total);
  if (pick(2)) {
    /* if g < n: out[g] = value (sometimes under a second guard on a block id) */
    unsigned c = t->tmp++;
    put(t, "  %%t%u = arith.cmpi(%s, %%n) {pred = \"slt\"} : (i64, i64) -> (i1)\n", c, gs);
    if (pick(2)) {
      unsigned two = cst(t, 2);
      char tw[32];
      snprintf(tw, sizeof tw, "%%t%u", two);
      unsigned r = bin(t, "remsi", pick(2) ? "%v3" : "%v4", tw);
      unsigned c2 = t->tmp++;
      put(t, "  %%t%u = arith.cmpi(%%t%u, %%t%u) {pred = \"eq\"} : (i64, i64) -> (i1)\n", c2, r, zero);
      unsigned c3 = t->tmp++;
      put(t, "  %%t%u = arith.andi(%%t%u, %%t%u) : (i1, i1) -> (i1)\n", c3, c, c2);
      c = c3;
    }
    put(t, "  scf.if(%%t%u) ({\n", c);
    store(t, value(t, NULL), gs);
    put(t, "  scf.yield() : () -> ()\n  }, {\n  scf.yield() : () -> ()\n  }) : (i1) -> ()\n");
  } else {
    /* for i in range(g, n, T): out[i] = value + i */
    put(t, "  scf.for(%s, %%n, %s) ({\n  ^bb1(%%i: i64):\n", gs, ts);
    store(t, value(t, "%i"), "%i");
    put(t, "  scf.yield() : () -> ()\n  }) : (i64, i64, i64) -> ()\n");
  }
  put(t, "  func.return() : () -> ()\n}) {sym_name = @k, function_type = (array<i64, 1, C>, array<i64, 1, C>, i64) -> (), kernel} : () -> ()\n");
}

enum { NOUT = 512 };

static bool launch(Kir *k, const uint32_t grid[3], const uint32_t block[3], int64_t n, const uint32_t *ugrid,
                   int64_t *out, int64_t *cnt) {
  for (unsigned i = 0; i < NOUT; i++) out[i] = -1;
  cnt[0] = cnt[1] = 0;
  Type *i64 = ty_i64(k->ctx);
  int64_t so = NOUT, sc = 2;
  SimArg args[6] = {sim_arg_array_c(out, i64, 1, &so), sim_arg_array_c(cnt, i64, 1, &sc), sim_arg_int(n)};
  unsigned nargs = 3;
  if (ugrid)
    for (unsigned d = 0; d < 3; d++) args[nargs++] = sim_arg_int(ugrid[d]);
  SimResult r;
  bool ok = sim_launch(k->m, ir_module_lookup(k->m, "k"), grid, block, 0, args, nargs, NULL, &r, &k->diag);
  if (!ok) fprintf(stderr, "[%s] launch failed: %s\n%s\n", st_current, r.message, diag_text(&k->diag));
  return ok;
}

static void random_kernels(void) {
  Text *t = malloc(sizeof *t);
  for (unsigned iter = 0; iter < 300; iter++) {
    generate(t);
    Kir orig, rw;
    if (!kir_load(&orig, t->buf)) break;
    if (!kir_load(&rw, t->buf)) break;
    if (!kir_pipeline(&rw, "grid-stride{all-grids=1}")) break;
    Op *f = ir_module_lookup(rw.m, "k");
    CHECK(f && ir_op_attr(f, "grid_stride"));
    unsigned dims = 1 + pick(3);
    uint32_t grid[3] = {1 + pick(6), dims > 1 ? 1 + pick(4) : 1, dims > 2 ? 1 + pick(3) : 1};
    uint32_t block[3] = {1 + pick(5), pick(2) ? 1 + pick(3) : 1, pick(3) == 0 ? 1 + pick(2) : 1};
    uint64_t threads = (uint64_t)grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
    int64_t n = (int64_t)(rnd() % (2 * threads + 3));
    if (n > NOUT) n = NOUT;
    static int64_t out0[NOUT], out1[NOUT];
    int64_t cnt0[2], cnt1[2];
    bool ok = launch(&orig, grid, block, n, NULL, out0, cnt0);
    CHECK(ok);
    uint32_t total = grid[0] * grid[1] * grid[2];
    uint32_t phys[4] = {1, 2, 7, total};
    for (unsigned p = 0; ok && p < 4; p++) {
      uint32_t pg[3] = {phys[p], 1, 1};
      if (!launch(&rw, pg, block, n, grid, out1, cnt1)) {
        CHECK(false);
        break;
      }
      bool same = memcmp(out0, out1, sizeof out0) == 0 && cnt0[0] == cnt1[0] && cnt0[1] == cnt1[1];
      if (!same) {
        fprintf(stderr, "[%s] iteration %u: grid (%u,%u,%u) block (%u,%u,%u) n %" PRId64 " physical %u: outputs differ"
                " (cnt %" PRId64 "/%" PRId64 " vs %" PRId64 "/%" PRId64 ")\n%s\n",
                st_current, iter, grid[0], grid[1], grid[2], block[0], block[1], block[2], n, phys[p], cnt0[0], cnt0[1],
                cnt1[0], cnt1[1], t->buf);
        CHECK(false);
        p = 4;
        iter = 1000;
      }
    }
    kir_free(&orig);
    kir_free(&rw);
  }
  free(t);
}

int main(void) {
  RUN(random_kernels);
  return sim_test_summary("passes_grid_stride");
}
