/* runtime_host_funcs.c — the host side of @cuda.reduce, @vectorize and @guvectorize (runtime/host_funcs.c)
 * through the public API on the simulator: reductions of several dtypes and sizes against sequential sums in
 * C, with init, size and a device result; ufuncs of 1, 2 and 3 inputs with scalars, broadcasting, strided
 * and device operands, signatures picked by dtype; gufuncs with core dimensions, loop dimensions that
 * broadcast, scalars and safe conversions; every error a caller can make; a program over a compiled kir module;
 * and the three functions of the seed s003_kernels.py (read from the seed directory: missing, the test fails).
 * With --auto it runs on the GPU when there is one (test/gpu/run_gpu_tests.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

static const char source[] =
    "import math\n"
    "from numba import cuda, float32, float64, int32, guvectorize, vectorize\n"
    "\n"
    "\n"
    "@cuda.reduce\n"
    "def sum_reduce(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "@cuda.reduce\n"
    "def max_reduce(a, b):\n"
    "    return max(a, b)\n"
    "\n"
    "\n"
    "@vectorize([\"float32(float32)\"], target=\"cuda\")\n"
    "def twice(x):\n"
    "    return x * 2\n"
    "\n"
    "\n"
    "@vectorize([\"float32(float32, float32)\", \"float64(float64, float64)\", \"int32(int32, int32)\"],\n"
    "           target=\"cuda\")\n"
    "def add(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "@vectorize([\"float64(float64, float64, float64)\"], target=\"cuda\")\n"
    "def fma3(a, b, c):\n"
    "    return a * b + c\n"
    "\n"
    "\n"
    "@vectorize([\"int64(int32, int32)\", \"float32(float32, float32)\"], target=\"cuda\")\n"
    "def widen(a, b):\n"
    "    return a * b\n"
    "\n"
    "\n"
    "@guvectorize([\"void(float32[:], float32[:])\", \"void(float64[:], float64[:])\"], \"(n)->(n)\", target=\"cuda\")\n"
    "def cumsum(x, out):\n"
    "    acc = 0.0\n"
    "    for i in range(x.shape[0]):\n"
    "        acc += x[i]\n"
    "        out[i] = acc\n"
    "\n"
    "\n"
    "@guvectorize([\"void(float64[:, :], float64[:], float64[:])\"], \"(m,n),(n)->(m)\", target=\"cuda\")\n"
    "def matvec(a, v, out):\n"
    "    for i in range(a.shape[0]):\n"
    "        s = 0.0\n"
    "        for j in range(a.shape[1]):\n"
    "            s += a[i, j] * v[j]\n"
    "        out[i] = s\n"
    "\n"
    "\n"
    "@guvectorize([\"void(float64[:], float64, float64[:])\"], \"(n),()->(n)\", target=\"cuda\")\n"
    "def scale(x, s, out):\n"
    "    for i in range(x.shape[0]):\n"
    "        out[i] = x[i] * s\n"
    "\n"
    "\n"
    "@guvectorize([\"void(int32[:], int32[:])\"], \"(3)->(3)\", target=\"cuda\")\n"
    "def rev3(x, out):\n"
    "    for i in range(3):\n"
    "        out[i] = x[2 - i]\n"
    "\n"
    "\n"
    "@guvectorize([\"void(float64[:], float64[:])\"], \"(n)->(n)\", target=\"cuda\")\n"
    "def shifted(x, out):\n"
    "    for i in range(x.shape[0]):\n"
    "        out[i + 1] = x[i]\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def plain(a, b):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.shape[0]:\n"
    "        b[i] = a[i]\n"
    "\n"
    "\n"
    "def host_code(x):\n"
    "    return x\n";

static kf_context *ctx;
static kf_runtime *rt;
static kf_program *prog;

static kf_function *fn(const char *name) {
  kf_function *f = NULL;
  CHECK(kf_program_get_function(prog, name, &f) == KF_OK && f);
  return f;
}

/* The call failed with `part` in the diagnostics (cleared after). */
static void expect_error(kf_status st, kf_status want, const char *part) {
  if (st != want) fprintf(stderr, "status %d, expected %d:\n%s", st, want, kf_context_diagnostics(ctx));
  CHECK(st == want);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), part);
  kf_context_clear_diagnostics(ctx);
}

/* The call succeeded (else the diagnostics are printed). */
static int ok(kf_status st) {
  if (st != KF_OK) {
    fprintf(stderr, "unexpected %s:\n%s", kf_status_name(st), kf_context_diagnostics(ctx));
    kf_context_clear_diagnostics(ctx);
  }
  return st == KF_OK;
}

static kf_array host(void *data, kf_dtype t, unsigned ndim, const int64_t *shape) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, t, ndim, shape, 'C');
  return a;
}

static kf_array vec(void *data, kf_dtype t, int64_t n) { return host(data, t, 1, &n); }

/* A device copy of a host C-contiguous array (the caller frees a.data). */
static kf_array to_device(const kf_array *h) {
  size_t bytes = kf_array_size(h) * kf_dtype_size(h->dtype);
  kf_array d = *h;
  d.memory = KF_MEMORY_DEVICE;
  d.data = NULL;
  CHECK(kf_device_alloc(rt, bytes, &d.data) == KF_OK);
  CHECK(kf_memcpy_to_device(rt, d.data, h->data, bytes, NULL) == KF_OK);
  return d;
}

static uint32_t rng = 12345;
static double uniform(void) {
  rng = rng * 1664525u + 1013904223u;
  return (double)(rng >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

/* ---- reduce ------------------------------------------------------------------------------------- */

static void test_reduce_sums(void) {
  kf_function *sum = fn("sum_reduce");
  static const int64_t sizes[] = {0, 1, 2, 255, 256, 257, 10000};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t n = sizes[s];
    float *f = malloc(sizeof *f * (size_t)(n + 1));
    double *d = malloc(sizeof *d * (size_t)(n + 1)), *e = malloc(sizeof *e * (size_t)(n + 1));
    int32_t *i32 = malloc(sizeof *i32 * (size_t)(n + 1));
    float seqf = 0;
    double seqd = 0, abssum = 0, seqe = 0;
    int32_t seqi = 0;
    for (int64_t i = 0; i < n; i++) {
      f[i] = (float)uniform();
      d[i] = uniform();
      e[i] = (double)(i + 1);  /* Numba's test: arange + 1, exact in float64 */
      i32[i] = (int32_t)(uniform() * 1000);
      seqf += f[i];
      seqd += d[i];
      seqe += e[i];
      seqi += i32[i];
      abssum += fabs(f[i]) + fabs(d[i]);
    }
    double tol32 = 4 * (log2((double)n + 1) + 2) * 6e-8 * (abssum + 1), tol64 = tol32 * 1e-8;
    kf_array af = vec(f, KF_FLOAT32, n), ad = vec(d, KF_FLOAT64, n), ae = vec(e, KF_FLOAT64, n),
             ai = vec(i32, KF_INT32, n);
    kf_arg r;
    if (ok(kf_reduce(sum, &af, -1, NULL, NULL, &r, NULL)))
      CHECK(r.kind == KF_ARG_SCALAR && r.dtype == KF_FLOAT32 && fabs(r.value.f - seqf) <= tol32);
    if (ok(kf_reduce(sum, &ad, -1, NULL, NULL, &r, NULL))) CHECK(r.dtype == KF_FLOAT64 && fabs(r.value.f - seqd) <= tol64);
    if (ok(kf_reduce(sum, &ae, -1, NULL, NULL, &r, NULL))) CHECK(r.value.f == seqe);
    if (ok(kf_reduce(sum, &ai, -1, NULL, NULL, &r, NULL))) CHECK(r.dtype == KF_INT32 && r.value.i == seqi);
    /* the same from device memory */
    if (n > 0) {
      kf_array di = to_device(&ai);
      if (ok(kf_reduce(sum, &di, -1, NULL, NULL, &r, NULL))) CHECK(r.value.i == seqi);
      kf_device_free(rt, di.data);
    }
    free(f);
    free(d);
    free(e);
    free(i32);
  }
}

static void test_reduce_options(void) {
  kf_function *sum = fn("sum_reduce"), *mx = fn("max_reduce");
  enum { N = 1000 };
  static double x[N];
  double maxv = -INFINITY, total = 0;
  for (int i = 0; i < N; i++) {
    x[i] = -1 - fabs(uniform()) * 100;  /* all negative */
    if (x[i] > maxv) maxv = x[i];
    total += x[i];
  }
  kf_array a = vec(x, KF_FLOAT64, N);
  kf_arg r, init = kf_arg_float(KF_FLOAT64, -INFINITY);
  /* max with init; Numba's default init=0 is combined too: 0 for negative numbers */
  if (ok(kf_reduce(mx, &a, -1, &init, NULL, &r, NULL))) CHECK(r.value.f == maxv);
  if (ok(kf_reduce(mx, &a, -1, NULL, NULL, &r, NULL))) CHECK(r.value.f == 0);
  /* init combined into a sum (an int converted to the array's dtype) */
  kf_arg three = kf_arg_int(KF_INT64, 3);
  if (ok(kf_reduce(sum, &a, -1, &three, NULL, &r, NULL))) CHECK(fabs(r.value.f - (total + 3)) < 1e-9);
  /* size: the first 10 elements; beyond the length: all of them; 0: init */
  double first10 = 0;
  for (int i = 0; i < 10; i++) first10 += x[i];
  if (ok(kf_reduce(sum, &a, 10, NULL, NULL, &r, NULL))) CHECK(fabs(r.value.f - first10) < 1e-9);
  if (ok(kf_reduce(sum, &a, 5000, NULL, NULL, &r, NULL))) CHECK(fabs(r.value.f - total) < 1e-9);
  if (ok(kf_reduce(sum, &a, 0, &three, NULL, &r, NULL))) CHECK(r.dtype == KF_FLOAT64 && r.value.f == 3);
  /* a strided view: every other element */
  kf_array every2 = a;
  every2.shape[0] = N / 2;
  every2.strides[0] = 16;
  double even = 0;
  for (int i = 0; i < N; i += 2) even += x[i];
  if (ok(kf_reduce(sum, &every2, -1, NULL, NULL, &r, NULL))) CHECK(fabs(r.value.f - even) < 1e-9);
  /* into a device result, on a stream, without a host result; then both */
  void *dres = NULL;
  CHECK(kf_device_alloc(rt, 2 * sizeof(double), &dres) == KF_OK);
  double back[2] = {7, 7};
  CHECK(kf_memcpy_to_device(rt, dres, back, sizeof back, NULL) == KF_OK);
  kf_array res = vec(dres, KF_FLOAT64, 2);
  res.memory = KF_MEMORY_DEVICE;
  kf_stream *s = NULL;
  CHECK(kf_stream_create(rt, &s) == KF_OK);
  if (ok(kf_reduce(mx, &a, -1, &init, s, NULL, &res))) {
    CHECK(kf_stream_synchronize(s) == KF_OK);
    CHECK(kf_memcpy_to_host(rt, back, dres, sizeof back, NULL) == KF_OK);
    CHECK(back[0] == maxv && back[1] == 7);
  }
  if (ok(kf_reduce(sum, &a, 0, &three, NULL, &r, &res))) {  /* empty: init written to res too */
    CHECK(kf_memcpy_to_host(rt, back, dres, sizeof back, NULL) == KF_OK);
    CHECK(back[0] == 3 && r.value.f == 3);
  }
  /* a host res */
  double hres = 0;
  kf_array hr = vec(&hres, KF_FLOAT64, 1);
  if (ok(kf_reduce(sum, &a, 10, NULL, NULL, NULL, &hr))) CHECK(fabs(hres - first10) < 1e-9);
  kf_stream_destroy(s);
  kf_device_free(rt, dres);
}

/* ---- vectorize ------------------------------------------------------------------------------------ */

static void test_ufunc_basic(void) {
  kf_function *twice = fn("twice"), *add = fn("add"), *fma3 = fn("fma3"), *widen = fn("widen");
  kf_function_info info;
  if (ok(kf_function_get_info(add, &info)))
    CHECK(info.kind == KF_FUNCTION_VECTORIZE && info.nin == 2 && info.nout == 1 && info.nsignatures == 3 &&
          !info.layout);
  enum { N = 1000 };
  static float xf[N], yf[N], of[N];
  static double xd[N], yd[N], zd[N], od[N];
  static int32_t xi[N], yi[N], oi[N];
  static int64_t ol[N];
  for (int i = 0; i < N; i++) {
    xf[i] = (float)uniform(), yf[i] = (float)uniform();
    xd[i] = uniform(), yd[i] = uniform(), zd[i] = uniform();
    xi[i] = i, yi[i] = 3 * i - 7;
  }
  /* one input */
  kf_arg in1 = kf_arg_array((kf_array[]){vec(xf, KF_FLOAT32, N)});
  kf_array out;
  if (ok(kf_ufunc_result(twice, &in1, 1, &out)))
    CHECK(out.dtype == KF_FLOAT32 && out.ndim == 1 && out.shape[0] == N && out.strides[0] == 4 && !out.data);
  kf_array o = vec(of, KF_FLOAT32, N);
  if (ok(kf_ufunc_call(twice, &in1, 1, &o, NULL)))
    for (int i = 0; i < N; i++) CHECK(of[i] == xf[i] * 2);
  /* two inputs: the signature by dtype */
  kf_arg f2[2] = {kf_arg_array((kf_array[]){vec(xf, KF_FLOAT32, N)}), kf_arg_array((kf_array[]){vec(yf, KF_FLOAT32, N)})};
  kf_arg d2[2] = {kf_arg_array((kf_array[]){vec(xd, KF_FLOAT64, N)}), kf_arg_array((kf_array[]){vec(yd, KF_FLOAT64, N)})};
  kf_arg i2[2] = {kf_arg_array((kf_array[]){vec(xi, KF_INT32, N)}), kf_arg_array((kf_array[]){vec(yi, KF_INT32, N)})};
  if (ok(kf_ufunc_result(add, d2, 2, &out))) CHECK(out.dtype == KF_FLOAT64);
  if (ok(kf_ufunc_result(add, i2, 2, &out))) CHECK(out.dtype == KF_INT32);
  o = vec(of, KF_FLOAT32, N);
  if (ok(kf_ufunc_call(add, f2, 2, &o, NULL)))
    for (int i = 0; i < N; i++) CHECK(of[i] == xf[i] + yf[i]);
  o = vec(od, KF_FLOAT64, N);
  if (ok(kf_ufunc_call(add, d2, 2, &o, NULL)))
    for (int i = 0; i < N; i++) CHECK(od[i] == xd[i] + yd[i]);
  o = vec(oi, KF_INT32, N);
  if (ok(kf_ufunc_call(add, i2, 2, &o, NULL)))
    for (int i = 0; i < N; i++) CHECK(oi[i] == xi[i] + yi[i]);
  /* a signature whose result type differs from its inputs' */
  if (ok(kf_ufunc_result(widen, i2, 2, &out))) CHECK(out.dtype == KF_INT64);
  o = vec(ol, KF_INT64, N);
  if (ok(kf_ufunc_call(widen, i2, 2, &o, NULL)))
    for (int i = 0; i < N; i++) CHECK(ol[i] == (int64_t)xi[i] * yi[i]);
  /* three inputs */
  kf_arg d3[3] = {d2[0], d2[1], kf_arg_array((kf_array[]){vec(zd, KF_FLOAT64, N)})};
  o = vec(od, KF_FLOAT64, N);
  if (ok(kf_ufunc_call(fma3, d3, 3, &o, NULL)))
    for (int i = 0; i < N; i++) CHECK(od[i] == xd[i] * yd[i] + zd[i]);
  /* in place: the output is an input */
  o = vec(xd, KF_FLOAT64, N);
  double before = xd[17];
  if (ok(kf_ufunc_call(add, d2, 2, &o, NULL))) CHECK(xd[17] == before + yd[17]);
}

static void test_ufunc_scalars_broadcast(void) {
  kf_function *add = fn("add"), *fma3 = fn("fma3");
  double a[3] = {1, 2, 3}, b[4] = {10, 20, 30, 40}, o[12];
  kf_array out;
  /* scalar + array: a float64 scalar matches float64(float64, float64) exactly */
  kf_arg sa[2] = {kf_arg_array((kf_array[]){vec(b, KF_FLOAT64, 4)}), kf_arg_float(KF_FLOAT64, 0.5)};
  kf_array ov = vec(o, KF_FLOAT64, 4);
  if (ok(kf_ufunc_call(add, sa, 2, &ov, NULL)))
    for (int i = 0; i < 4; i++) CHECK(o[i] == b[i] + 0.5);
  /* an int64 scalar with int32 arrays: no exact match, so the arrays pick int32(int32, int32) */
  int32_t xi[5] = {1, 2, 3, 4, 5}, oi[5];
  kf_arg si[2] = {kf_arg_int(KF_INT64, 100), kf_arg_array((kf_array[]){vec(xi, KF_INT32, 5)})};
  if (ok(kf_ufunc_result(add, si, 2, &out))) CHECK(out.dtype == KF_INT32 && out.ndim == 1 && out.shape[0] == 5);
  ov = vec(oi, KF_INT32, 5);
  if (ok(kf_ufunc_call(add, si, 2, &ov, NULL)))
    for (int i = 0; i < 5; i++) CHECK(oi[i] == xi[i] + 100);
  /* scalars only: Numba gives shape (1,) */
  kf_arg ss[2] = {kf_arg_float(KF_FLOAT64, 1.25), kf_arg_float(KF_FLOAT64, 2.5)};
  if (ok(kf_ufunc_result(add, ss, 2, &out))) CHECK(out.ndim == 1 && out.shape[0] == 1 && out.dtype == KF_FLOAT64);
  ov = vec(o, KF_FLOAT64, 1);
  if (ok(kf_ufunc_call(add, ss, 2, &ov, NULL))) CHECK(o[0] == 3.75);
  /* (3, 1) with (4,) -> (3, 4) */
  kf_arg bc[2] = {kf_arg_array((kf_array[]){host(a, KF_FLOAT64, 2, (int64_t[]){3, 1})}),
                  kf_arg_array((kf_array[]){vec(b, KF_FLOAT64, 4)})};
  if (ok(kf_ufunc_result(add, bc, 2, &out)))
    CHECK(out.ndim == 2 && out.shape[0] == 3 && out.shape[1] == 4 && out.strides[0] == 32 && out.strides[1] == 8);
  kf_array o34 = host(o, KF_FLOAT64, 2, (int64_t[]){3, 4});
  memset(o, 0, sizeof o);
  if (ok(kf_ufunc_call(add, bc, 2, &o34, NULL)))
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++) CHECK(o[i * 4 + j] == a[i] + b[j]);
  /* the same on device memory, and a scalar: (3, 1) * (4,) + 1 */
  kf_array ha = host(a, KF_FLOAT64, 2, (int64_t[]){3, 1}), hb = vec(b, KF_FLOAT64, 4);
  kf_array da = to_device(&ha), db = to_device(&hb);
  void *dout = NULL;
  CHECK(kf_device_alloc(rt, sizeof o, &dout) == KF_OK);
  kf_array dout34 = host(dout, KF_FLOAT64, 2, (int64_t[]){3, 4});
  dout34.memory = KF_MEMORY_DEVICE;
  kf_arg f3[3] = {kf_arg_array(&da), kf_arg_array(&db), kf_arg_float(KF_FLOAT64, 1)};
  if (ok(kf_ufunc_call(fma3, f3, 3, &dout34, NULL))) {
    CHECK(kf_memcpy_to_host(rt, o, dout, sizeof o, NULL) == KF_OK);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++) CHECK(o[i * 4 + j] == a[i] * b[j] + 1);
  }
  kf_device_free(rt, da.data);
  kf_device_free(rt, db.data);
  kf_device_free(rt, dout);

  /* non-contiguous: a transposed (F-order) 4x5 input with a C one, into a strided output (every other column
   * of a 4x10 array: the columns between stay as they were) */
  double c[20], t[20], wide[40];
  for (int i = 0; i < 20; i++) c[i] = i, t[i] = 100 * i;
  for (int i = 0; i < 40; i++) wide[i] = -1;
  kf_array ac = host(c, KF_FLOAT64, 2, (int64_t[]){4, 5}), at;
  kf_array_init(&at, t, KF_MEMORY_HOST, KF_FLOAT64, 2, (int64_t[]){4, 5}, 'F');
  kf_array ow = host(wide, KF_FLOAT64, 2, (int64_t[]){4, 5});
  ow.strides[0] = 80;
  ow.strides[1] = 16;
  kf_arg nc[2] = {kf_arg_array(&ac), kf_arg_array(&at)};
  if (ok(kf_ufunc_call(add, nc, 2, &ow, NULL))) {
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 5; j++) {
        CHECK(wide[i * 10 + 2 * j] == c[i * 5 + j] + t[j * 4 + i]);
        CHECK(wide[i * 10 + 2 * j + 1] == -1);
      }
  }
  /* a strided 1-D input (every third element) on a stream */
  double big[30], o10[10];
  for (int i = 0; i < 30; i++) big[i] = i;
  kf_array every3 = vec(big, KF_FLOAT64, 10);
  every3.strides[0] = 24;
  kf_arg st[2] = {kf_arg_array(&every3), kf_arg_array(&every3)};
  kf_stream *s = NULL;
  CHECK(kf_stream_create(rt, &s) == KF_OK);
  kf_array o1 = vec(o10, KF_FLOAT64, 10);
  if (ok(kf_ufunc_call(add, st, 2, &o1, s)) && kf_stream_synchronize(s) == KF_OK)
    for (int i = 0; i < 10; i++) CHECK(o10[i] == 6 * i);
  kf_stream_destroy(s);
  /* an outer sum, (40, 1) + (1, 50): no two dimensions merge, so one launch per row of the shorter */
  enum { R = 40, C = 50 };
  static double col[R], row[C], outer[R * C];
  for (int i = 0; i < R; i++) col[i] = i;
  for (int j = 0; j < C; j++) row[j] = 1000 * j;
  kf_arg os[2] = {kf_arg_array((kf_array[]){host(col, KF_FLOAT64, 2, (int64_t[]){R, 1})}),
                  kf_arg_array((kf_array[]){host(row, KF_FLOAT64, 2, (int64_t[]){1, C})})};
  kf_array oo = host(outer, KF_FLOAT64, 2, (int64_t[]){R, C});
  if (ok(kf_ufunc_call(add, os, 2, &oo, NULL)))
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++) CHECK(outer[i * C + j] == i + 1000.0 * j);
  /* empty: nothing to do */
  kf_arg e2[2] = {kf_arg_array((kf_array[]){vec(NULL, KF_FLOAT64, 0)}), kf_arg_float(KF_FLOAT64, 1)};
  kf_array eo = vec(NULL, KF_FLOAT64, 0);
  CHECK(ok(kf_ufunc_call(add, e2, 2, &eo, NULL)));
}

/* ---- guvectorize ---------------------------------------------------------------------------------- */

static void test_gufunc(void) {
  kf_function *cumsum = fn("cumsum"), *matvec = fn("matvec"), *scale = fn("scale"), *rev3 = fn("rev3");
  kf_function_info info;
  if (ok(kf_function_get_info(matvec, &info)))
    CHECK(info.kind == KF_FUNCTION_GUVECTORIZE && info.nin == 2 && info.nout == 1 && info.nsignatures == 1 &&
          info.layout && strcmp(info.layout, "(m,n),(n)->(m)") == 0);
  /* (n)->(n) over loop dimensions (5,) and (2, 3) (merged into one launch), and without any */
  float x[2 * 3 * 7], o[2 * 3 * 7];
  for (int i = 0; i < 42; i++) x[i] = (float)(i % 7 + 1);
  kf_arg in = kf_arg_array((kf_array[]){host(x, KF_FLOAT32, 2, (int64_t[]){5, 7})});
  kf_array out;
  if (ok(kf_gufunc_result(cumsum, &in, 1, &out, 1)))
    CHECK(out.dtype == KF_FLOAT32 && out.ndim == 2 && out.shape[0] == 5 && out.shape[1] == 7);
  kf_arg args[2] = {in, kf_arg_array((kf_array[]){host(o, KF_FLOAT32, 2, (int64_t[]){5, 7})})};
  if (ok(kf_gufunc_call(cumsum, args, 2, NULL)))
    for (int r = 0; r < 5; r++)
      for (int i = 0; i < 7; i++) CHECK(o[r * 7 + i] == (float)((i + 1) * (i + 2) / 2));
  args[0] = kf_arg_array((kf_array[]){host(x, KF_FLOAT32, 3, (int64_t[]){2, 3, 7})});
  args[1] = kf_arg_array((kf_array[]){host(o, KF_FLOAT32, 3, (int64_t[]){2, 3, 7})});
  memset(o, 0, sizeof o);
  if (ok(kf_gufunc_call(cumsum, args, 2, NULL))) CHECK(o[41] == 28 && o[35] == 1);
  args[0] = kf_arg_array((kf_array[]){vec(x, KF_FLOAT32, 7)});
  args[1] = kf_arg_array((kf_array[]){vec(o, KF_FLOAT32, 7)});
  memset(o, 0, sizeof o);
  if (ok(kf_gufunc_call(cumsum, args, 2, NULL))) CHECK(o[6] == 28 && o[7] == 0);
  /* int32 input: no exact signature; it converts safely to float64 (not to float32) */
  int32_t xi[4] = {1, 2, 3, 4};
  double od[4];
  kf_arg ci = kf_arg_array((kf_array[]){vec(xi, KF_INT32, 4)});
  if (ok(kf_gufunc_result(cumsum, &ci, 1, &out, 1))) CHECK(out.dtype == KF_FLOAT64);
  kf_arg cargs[2] = {ci, kf_arg_array((kf_array[]){vec(od, KF_FLOAT64, 4)})};
  if (ok(kf_gufunc_call(cumsum, cargs, 2, NULL))) CHECK(od[0] == 1 && od[3] == 10);

  /* (m,n),(n)->(m): a (4, 3, 5) stack of matrices with one vector (broadcast), into device memory */
  enum { B = 4, M = 3, N = 5 };
  double A[B * M * N], v[N], mv[B * M];
  for (int i = 0; i < B * M * N; i++) A[i] = i % 11 - 5;
  for (int j = 0; j < N; j++) v[j] = j + 1;
  kf_arg mvin[2] = {kf_arg_array((kf_array[]){host(A, KF_FLOAT64, 3, (int64_t[]){B, M, N})}),
                    kf_arg_array((kf_array[]){vec(v, KF_FLOAT64, N)})};
  if (ok(kf_gufunc_result(matvec, mvin, 2, &out, 1)))
    CHECK(out.ndim == 2 && out.shape[0] == B && out.shape[1] == M && out.dtype == KF_FLOAT64);
  void *dmv = NULL;
  CHECK(kf_device_alloc(rt, sizeof mv, &dmv) == KF_OK);
  kf_array dout = host(dmv, KF_FLOAT64, 2, (int64_t[]){B, M});
  dout.memory = KF_MEMORY_DEVICE;
  kf_arg mvargs[3] = {mvin[0], mvin[1], kf_arg_array(&dout)};
  if (ok(kf_gufunc_call(matvec, mvargs, 3, NULL)) && kf_memcpy_to_host(rt, mv, dmv, sizeof mv, NULL) == KF_OK)
    for (int b = 0; b < B; b++)
      for (int i = 0; i < M; i++) {
        double want = 0;
        for (int j = 0; j < N; j++) want += A[(b * M + i) * N + j] * v[j];
        CHECK(mv[b * M + i] == want);
      }
  kf_device_free(rt, dmv);
  /* loop dimensions that broadcast: matrices (2, 1, M, N) with vectors (4, N) give (2, 4, M) */
  double V[4 * N], R2[2 * 4 * M];
  for (int i = 0; i < 4 * N; i++) V[i] = i % 3;
  kf_arg lb[3] = {kf_arg_array((kf_array[]){host(A, KF_FLOAT64, 4, (int64_t[]){2, 1, M, N})}),
                  kf_arg_array((kf_array[]){host(V, KF_FLOAT64, 2, (int64_t[]){4, N})}),
                  kf_arg_array((kf_array[]){host(R2, KF_FLOAT64, 3, (int64_t[]){2, 4, M})})};
  if (ok(kf_gufunc_result(matvec, lb, 2, &out, 1)))
    CHECK(out.ndim == 3 && out.shape[0] == 2 && out.shape[1] == 4 && out.shape[2] == M);
  if (ok(kf_gufunc_call(matvec, lb, 3, NULL)))
    for (int p = 0; p < 2; p++)
      for (int q = 0; q < 4; q++)
        for (int i = 0; i < M; i++) {
          double want = 0;
          for (int j = 0; j < N; j++) want += A[(p * M + i) * N + j] * V[q * N + j];
          CHECK(R2[(p * 4 + q) * M + i] == want);
        }
  /* (n),()->(n) with a scalar, and with an array of scalars over the loop dimension */
  double xs[2 * 3] = {1, 2, 3, 4, 5, 6}, os[6], fac[2] = {10, 100};
  kf_arg sc[3] = {kf_arg_array((kf_array[]){host(xs, KF_FLOAT64, 2, (int64_t[]){2, 3})}), kf_arg_int(KF_INT64, 2),
                  kf_arg_array((kf_array[]){host(os, KF_FLOAT64, 2, (int64_t[]){2, 3})})};
  if (ok(kf_gufunc_call(scale, sc, 3, NULL)))
    for (int i = 0; i < 6; i++) CHECK(os[i] == xs[i] * 2);
  sc[1] = kf_arg_array((kf_array[]){vec(fac, KF_FLOAT64, 2)});
  sc[0] = kf_arg_array((kf_array[]){host(xs, KF_FLOAT64, 2, (int64_t[]){2, 3})});
  if (ok(kf_gufunc_call(scale, sc, 3, NULL)))
    for (int i = 0; i < 6; i++) CHECK(os[i] == xs[i] * fac[i / 3]);
  /* a fixed core extent: (3)->(3) */
  int32_t t3[6] = {1, 2, 3, 4, 5, 6}, r3[6];
  kf_arg rv[2] = {kf_arg_array((kf_array[]){host(t3, KF_INT32, 2, (int64_t[]){2, 3})}),
                  kf_arg_array((kf_array[]){host(r3, KF_INT32, 2, (int64_t[]){2, 3})})};
  if (ok(kf_gufunc_call(rev3, rv, 2, NULL))) CHECK(r3[0] == 3 && r3[2] == 1 && r3[3] == 6 && r3[5] == 4);
  if (ok(kf_gufunc_result(rev3, rv, 1, &out, 1))) CHECK(out.ndim == 2 && out.shape[1] == 3);
}

/* ---- errors ----------------------------------------------------------------------------------------- */

static void test_errors(void) {
  kf_function *sum = fn("sum_reduce"), *add = fn("add"), *plain = fn("plain"), *cumsum = fn("cumsum"),
              *matvec = fn("matvec"), *rev3 = fn("rev3"), *twice = fn("twice");
  double d[12] = {0}, o[12];
  float f[12] = {0};
  int64_t l[12] = {0};
  kf_array a4 = vec(d, KF_FLOAT64, 4), o4 = vec(o, KF_FLOAT64, 4);
  kf_arg r;
  kf_arg two[2] = {kf_arg_array(&a4), kf_arg_array(&a4)};
  kf_array out;
  kf_function_info info;

  /* functions of the wrong kind, or none */
  expect_error(kf_reduce(plain, &a4, -1, NULL, NULL, &r, NULL), KF_ERROR_INVALID_INPUT,
               "kf_reduce: 'plain' is a @cuda.jit kernel, not a @cuda.reduce function");
  expect_error(kf_ufunc_call(sum, two, 2, &o4, NULL), KF_ERROR_INVALID_INPUT,
               "kf_ufunc_call: 'sum_reduce' is a @cuda.reduce function, not a @vectorize function");
  expect_error(kf_gufunc_call(add, two, 2, NULL), KF_ERROR_INVALID_INPUT,
               "kf_gufunc_call: 'add' is a @vectorize function, not a @guvectorize function");
  expect_error(kf_ufunc_result(cumsum, two, 2, &out), KF_ERROR_INVALID_INPUT, "is a @guvectorize function, not a @vectorize");
  kf_function *none = NULL;  /* a function the program does not have is not found when asked for */
  expect_error(kf_program_get_function(prog, "nothing", &none), KF_ERROR_NOT_FOUND, "no function named 'nothing'");
  CHECK(none == NULL);
  expect_error(kf_program_get_function(prog, "host_code", &none), KF_ERROR_NOT_FOUND,
               "'host_code' in host_funcs.py is host code");
  CHECK(none == NULL);
  if (ok(kf_function_get_info(plain, &info))) CHECK(info.kind == KF_FUNCTION_KERNEL && info.nsignatures == 0);
  if (ok(kf_function_get_info(sum, &info))) CHECK(info.kind == KF_FUNCTION_REDUCE);

  /* reduce */
  kf_array m22 = host(d, KF_FLOAT64, 2, (int64_t[]){2, 2});
  expect_error(kf_reduce(sum, &m22, -1, NULL, NULL, &r, NULL), KF_ERROR_INVALID_INPUT,
               "the array has rank 2; a reduction takes a 1-D array");
  expect_error(kf_reduce(sum, &a4, -1, NULL, NULL, NULL, NULL), KF_ERROR_INVALID_INPUT, "neither result nor res given");
  kf_array fres = vec(f, KF_FLOAT32, 1);
  expect_error(kf_reduce(sum, &a4, -1, NULL, NULL, NULL, &fres), KF_ERROR_INVALID_INPUT,
               "res must be a writable array of the input's dtype (float64)");
  kf_arg notscalar = kf_arg_array(&a4);
  expect_error(kf_reduce(sum, &a4, -1, &notscalar, NULL, &r, NULL), KF_ERROR_INVALID_INPUT, "init must be a scalar");
  kf_array nodata = vec(NULL, KF_FLOAT64, 4);
  expect_error(kf_reduce(sum, &nodata, -1, NULL, NULL, &r, NULL), KF_ERROR_INVALID_INPUT,
               "the array has 4 elements but no data pointer");

  /* vectorize: count, dtypes, broadcasting, the output */
  expect_error(kf_ufunc_call(add, two, 1, &o4, NULL), KF_ERROR_INVALID_INPUT, "vectorize 'add': takes 2 inputs, but 1 was given");
  expect_error(kf_ufunc_result(twice, two, 2, &out), KF_ERROR_INVALID_INPUT, "takes 1 input, but 2 were given");
  kf_array l4 = vec(l, KF_INT64, 4), f4 = vec(f, KF_FLOAT32, 4);
  kf_arg ll[2] = {kf_arg_array(&l4), kf_arg_array(&l4)}, mixed[2] = {kf_arg_array(&f4), kf_arg_array(&a4)};
  expect_error(kf_ufunc_call(add, ll, 2, &o4, NULL), KF_ERROR_INVALID_INPUT,
               "vectorize 'add': no signature matches the input types (int64 array, int64 array); its signatures are "
               "float32(float32, float32), float64(float64, float64), int32(int32, int32)");
  expect_error(kf_ufunc_result(add, mixed, 2, &out), KF_ERROR_INVALID_INPUT, "(float32 array, float64 array)");
  kf_arg amb[2] = {kf_arg_int(KF_INT8, 1), kf_arg_int(KF_INT8, 2)};
  expect_error(kf_ufunc_result(add, amb, 2, &out), KF_ERROR_INVALID_INPUT, "match 3 of its signatures");
  kf_array a3 = vec(d, KF_FLOAT64, 3);
  kf_arg bad[2] = {kf_arg_array(&a3), kf_arg_array(&a4)};
  expect_error(kf_ufunc_call(add, bad, 2, &o4, NULL), KF_ERROR_INVALID_INPUT,
               "input 2 has loop shape (4,), which does not broadcast with (3,)");
  kf_array o3 = vec(o, KF_FLOAT64, 3), of4 = vec(f, KF_FLOAT32, 4), o22 = host(o, KF_FLOAT64, 2, (int64_t[]){2, 2});
  expect_error(kf_ufunc_call(add, two, 2, &o3, NULL), KF_ERROR_INVALID_INPUT,
               "output has shape (3,), but the inputs broadcast to (4,)");
  expect_error(kf_ufunc_call(add, two, 2, &o22, NULL), KF_ERROR_INVALID_INPUT, "output has shape (2, 2)");
  expect_error(kf_ufunc_call(add, two, 2, &of4, NULL), KF_ERROR_INVALID_INPUT,
               "output 1 has dtype float32, but the signature picked for the inputs gives float64");
  kf_array ro = o4;
  ro.readonly = 1;
  expect_error(kf_ufunc_call(add, two, 2, &ro, NULL), KF_ERROR_INVALID_INPUT, "output 1 is read-only");
  expect_error(kf_ufunc_call(add, two, 2, NULL, NULL), KF_ERROR_INVALID_INPUT, "no output array given");
  kf_arg junk[2] = {two[0], two[1]};
  junk[1].kind = (kf_arg_kind)7;
  expect_error(kf_ufunc_call(add, junk, 2, &o4, NULL), KF_ERROR_INVALID_INPUT, "input 2 is neither an array nor a scalar");

  /* guvectorize: count, core dimensions, loop dimensions, outputs, conversions */
  kf_array m34 = host(d, KF_FLOAT64, 2, (int64_t[]){3, 4}), v3 = vec(d, KF_FLOAT64, 3), r3 = vec(o, KF_FLOAT64, 3);
  kf_arg mv[3] = {kf_arg_array(&m34), kf_arg_array(&v3), kf_arg_array(&r3)};
  expect_error(kf_gufunc_call(matvec, mv, 2, NULL), KF_ERROR_INVALID_INPUT,
               "guvectorize 'matvec': takes 3 arguments (its layout '(m,n),(n)->(m)': 2 inputs, then 1 output), but 2 were given");
  expect_error(kf_gufunc_call(matvec, mv, 3, NULL), KF_ERROR_INVALID_INPUT,
               "input 2 has extent 3 for the core dimension 'n' of its layout '(m,n),(n)->(m)', but an argument before it has 4");
  kf_array v4 = vec(d, KF_FLOAT64, 4), r4 = vec(o, KF_FLOAT64, 4);
  mv[1] = kf_arg_array(&v4);
  mv[2] = kf_arg_array(&r4);
  expect_error(kf_gufunc_call(matvec, mv, 3, NULL), KF_ERROR_INVALID_INPUT,
               "output 1 has extent 4 for the core dimension 'm'");
  mv[0] = kf_arg_array(&v4);
  expect_error(kf_gufunc_call(matvec, mv, 3, NULL), KF_ERROR_INVALID_INPUT,
               "input 1 has rank 1, but the layout '(m,n),(n)->(m)' gives it 2 core dimensions");
  kf_array s234 = host(d, KF_FLOAT64, 3, (int64_t[]){2, 1, 4}), s34 = host(d, KF_FLOAT64, 2, (int64_t[]){3, 4}),
           q = host(o, KF_FLOAT64, 2, (int64_t[]){2, 1});
  kf_arg lp[3] = {kf_arg_array(&s234), kf_arg_array(&s34), kf_arg_array(&q)};
  expect_error(kf_gufunc_call(matvec, lp, 3, NULL), KF_ERROR_INVALID_INPUT,
               "input 2 has loop shape (3,), which does not broadcast with (2,)");
  kf_array c4 = vec(d, KF_FLOAT64, 4), c24 = host(o, KF_FLOAT64, 2, (int64_t[]){2, 4});
  kf_arg cs[2] = {kf_arg_array(&c4), kf_arg_array(&c24)};
  expect_error(kf_gufunc_call(cumsum, cs, 2, NULL), KF_ERROR_INVALID_INPUT,
               "output 1 has shape (2, 4): its loop dimensions must be the inputs' broadcast loop shape (), followed by 1 "
               "core dimension");
  cs[1] = kf_arg_float(KF_FLOAT64, 1);
  expect_error(kf_gufunc_call(cumsum, cs, 2, NULL), KF_ERROR_INVALID_INPUT, "output 1 must be an array, not a scalar float64");
  cs[0] = kf_arg_float(KF_FLOAT64, 1);
  expect_error(kf_gufunc_result(cumsum, cs, 1, &out, 1), KF_ERROR_INVALID_INPUT,
               "input 1 is a scalar, but the layout gives it 1 core dimensions");
  expect_error(kf_gufunc_result(cumsum, cs, 1, &out, 2), KF_ERROR_INVALID_INPUT, "has 1 output, but room for 2 was given");
  kf_array dl = to_device(&l4);
  kf_arg devl = kf_arg_array(&dl);
  expect_error(kf_gufunc_result(cumsum, &devl, 1, &out, 1), KF_ERROR_INVALID_INPUT,
               "input 1 is a device array of int64, which the signature picked wants as float64: device arrays are not "
               "converted");
  kf_device_free(rt, dl.data);
  int32_t t4[4] = {0};
  kf_array i4 = vec(t4, KF_INT32, 4), i4o = vec(t4, KF_INT32, 4);
  kf_arg rv[2] = {kf_arg_array(&i4), kf_arg_array(&i4o)};
  expect_error(kf_gufunc_call(rev3, rv, 2, NULL), KF_ERROR_INVALID_INPUT,
               "input 1 has extent 4 in core dimension 1, but the layout '(3)->(3)' fixes it to 3");
  kf_array f4b = vec(f, KF_FLOAT32, 4);
  kf_arg nomatch[2] = {kf_arg_array(&f4b), kf_arg_array(&i4o)};
  expect_error(kf_gufunc_call(rev3, nomatch, 2, NULL), KF_ERROR_INVALID_INPUT,
               "guvectorize 'rev3': no signature matches the input types (float32 array), exactly or by safe conversions; "
               "its signatures are (int32[:]) -> (int32[:])");

  /* an IndexError in the function: located, and the runtime goes on (the axis is the kernel's array's: 1, where
   * Numba names the axis of the function's view, 0) */
  double sx[3] = {1, 2, 3}, so[3] = {0};
  kf_arg sh[2] = {kf_arg_array((kf_array[]){vec(sx, KF_FLOAT64, 3)}), kf_arg_array((kf_array[]){vec(so, KF_FLOAT64, 3)})};
  CHECK(kf_gufunc_call(fn("shifted"), sh, 2, NULL) == KF_ERROR_OUT_OF_BOUNDS);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "IndexError: index 3 is out of bounds for axis ");
  expect_error(KF_ERROR_OUT_OF_BOUNDS, KF_ERROR_OUT_OF_BOUNDS, "with size 3 (kernel shifted, host_funcs.py:68:9)");
  /* the outputs are unspecified after an IndexError (kfront.h): on the simulator the elements written before it
   * are there, on the GPU a staged output not copied in first is not copied back */
  CHECK(ok(kf_gufunc_call(cumsum, (kf_arg[]){sh[0], sh[1]}, 2, NULL)) && so[2] == 6);
  if (kf_context_error_count(ctx)) fputs(kf_context_diagnostics(ctx), stderr);
}

/* ---- a program over a compiled module ------------------------------------------------------------------ */

/* kf_compile_source's kir (the eager functions, and sum_reduce for float64) as a program: the kinds come from the
 * kernels' `generated` attribute, the layout from `gu_layout`. */
static void test_module_program(void) {
  kf_compile_options o;
  kf_compile_options_init(&o);
  kf_module *eager = NULL, *red = NULL;
  CHECK(ok(kf_compile_source(ctx, "host_funcs.py", source, sizeof source - 1, &o, &eager)));
  const char *names[1] = {"sum_reduce"}, *sigs[1] = {"float64(float64, float64)"};
  o.kernels = names;
  o.nkernels = 1;
  o.signatures = sigs;
  o.nsignatures = 1;
  CHECK(ok(kf_compile_source(ctx, "host_funcs.py", source, sizeof source - 1, &o, &red)));
  if (!eager || !red) return;
  kf_program *pe = NULL, *pr = NULL;
  CHECK(kf_program_from_module(rt, eager, &pe) == KF_OK && kf_program_from_module(rt, red, &pr) == KF_OK);
  kf_function *add = NULL, *matvec = NULL, *sum = NULL;
  CHECK(kf_program_get_function(pe, "add", &add) == KF_OK && kf_program_get_function(pe, "matvec", &matvec) == KF_OK &&
        kf_program_get_function(pr, "sum_reduce", &sum) == KF_OK);
  kf_function_info info;
  if (ok(kf_function_get_info(matvec, &info)))
    CHECK(info.kind == KF_FUNCTION_GUVECTORIZE && info.layout && strcmp(info.layout, "(m,n),(n)->(m)") == 0);
  if (ok(kf_function_get_info(sum, &info))) CHECK(info.kind == KF_FUNCTION_REDUCE);
  int32_t x[6] = {1, 2, 3, 4, 5, 6}, y[6];
  kf_arg in[2] = {kf_arg_array((kf_array[]){vec(x, KF_INT32, 6)}), kf_arg_int(KF_INT32, 10)};
  kf_array out = vec(y, KF_INT32, 6);
  if (ok(kf_ufunc_call(add, in, 2, &out, NULL)))
    for (int i = 0; i < 6; i++) CHECK(y[i] == x[i] + 10);
  double m[6] = {1, 2, 3, 4, 5, 6}, v[3] = {1, 0, -1}, r[2];
  kf_arg mv[3] = {kf_arg_array((kf_array[]){host(m, KF_FLOAT64, 2, (int64_t[]){2, 3})}),
                  kf_arg_array((kf_array[]){vec(v, KF_FLOAT64, 3)}), kf_arg_array((kf_array[]){vec(r, KF_FLOAT64, 2)})};
  if (ok(kf_gufunc_call(matvec, mv, 3, NULL))) CHECK(r[0] == -2 && r[1] == -2);
  kf_arg sr;
  kf_array dm = vec(m, KF_FLOAT64, 6);
  if (ok(kf_reduce(sum, &dm, -1, NULL, NULL, &sr, NULL))) CHECK(sr.value.f == 21);
  kf_array fm = vec(y, KF_FLOAT32, 6);  /* no float32 kernel in that module: kfront.h's "dtypes no signature takes" */
  expect_error(kf_reduce(sum, &fm, -1, NULL, NULL, &sr, NULL), KF_ERROR_INVALID_INPUT,
               "kernel sum_reduce has no signature that matches them");
  kf_program_destroy(pe);
  kf_program_destroy(pr);
  kf_module_destroy(eager);
  kf_module_destroy(red);
}

/* ---- the seed's functions ---------------------------------------------------------------------------- */

static char *read_seed(const char *name, size_t *len) {
  const char *dirs[] = {getenv("KFRONT_SEEDS"), "acceptance/seeds"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    if (!dirs[i]) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dirs[i], name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
  }
  return NULL;
}

/* s003_kernels.py's __main__: reduce_gpu(arr.flatten()), doubled_ufunc(arr), doubled_gufunc(arr, out). */
static void test_seed(void) {
  size_t len;
  char *src = read_seed("s003_kernels.py", &len);
  CHECK(src != NULL);
  if (!src) {
    fprintf(stderr, "runtime_host_funcs: s003_kernels.py not found (set KFRONT_SEEDS)\n");
    return;
  }
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "s003_kernels.py", src, len, NULL, &p) == KF_OK);
  kf_function *reduce_gpu = NULL, *ufunc = NULL, *gufunc = NULL;
  CHECK(kf_program_get_function(p, "reduce_gpu", &reduce_gpu) == KF_OK);
  CHECK(kf_program_get_function(p, "doubled_ufunc", &ufunc) == KF_OK);
  CHECK(kf_program_get_function(p, "doubled_gufunc", &gufunc) == KF_OK);
  float arr[9], out[9];
  double total = 0;
  for (int i = 0; i < 9; i++) arr[i] = (float)uniform() * 3, total += arr[i];
  kf_array flat = vec(arr, KF_FLOAT32, 9), a33 = host(arr, KF_FLOAT32, 2, (int64_t[]){3, 3});
  kf_arg r;
  if (ok(kf_reduce(reduce_gpu, &flat, -1, NULL, NULL, &r, NULL))) CHECK(fabs(r.value.f - total) < 1e-4);
  /* doubled_ufunc(arr): the result allocated from kf_ufunc_result */
  kf_arg in = kf_arg_array(&a33);
  kf_array o;
  if (ok(kf_ufunc_result(ufunc, &in, 1, &o))) {
    CHECK(o.ndim == 2 && o.shape[0] == 3 && o.shape[1] == 3 && o.dtype == KF_FLOAT32);
    o.data = out;
    if (ok(kf_ufunc_call(ufunc, &in, 1, &o, NULL)))
      for (int i = 0; i < 9; i++) CHECK(out[i] == arr[i] * 2);
  }
  /* doubled_gufunc(arr, out) with out = cuda.device_array_like(arr) */
  void *dout = NULL;
  CHECK(kf_device_alloc(rt, sizeof out, &dout) == KF_OK);
  kf_array d33 = a33;
  d33.data = dout;
  d33.memory = KF_MEMORY_DEVICE;
  kf_arg g[2] = {kf_arg_array(&a33), kf_arg_array(&d33)};
  memset(out, 0, sizeof out);
  if (ok(kf_gufunc_call(gufunc, g, 2, NULL)) && kf_memcpy_to_host(rt, out, dout, sizeof out, NULL) == KF_OK)
    for (int i = 0; i < 9; i++) CHECK(out[i] == arr[i] * 2);
  kf_device_free(rt, dout);
  kf_program_destroy(p);
  free(src);
}

/* On the simulator; with --auto, on what the runtime picks (the GPU when there is one: test/gpu runs that). */
int main(int argc, char **argv) {
  ctx = kf_context_create();
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = argc > 1 && strcmp(argv[1], "--auto") == 0 ? KF_RUNTIME_AUTO : KF_RUNTIME_SIM;
  CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK);
  printf("runtime_host_funcs: %s\n", kf_runtime_describe(rt));
  CHECK(kf_program_create(rt, "host_funcs.py", source, sizeof source - 1, NULL, &prog) == KF_OK);
  test_reduce_sums();
  test_reduce_options();
  test_ufunc_basic();
  test_ufunc_scalars_broadcast();
  test_gufunc();
  test_errors();
  test_module_program();
  test_seed();
  kf_runtime_stats stats;
  kf_runtime_get_stats(rt, &stats);
  printf("runtime_host_funcs: %u compiles, %u launches\n", stats.compiles, stats.launches);
  kf_program_destroy(prog);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return test_result("runtime_host_funcs");
}
