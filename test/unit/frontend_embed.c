/* frontend_embed.c — compiling kernels the way an embedder (the Python module) does, through the public API
 * only: sources that are one function's lines as they stand in their file (indented, at line 40), several
 * sources, names bound to values (scalars of several dtypes, complex ones too, nested tuples, constant arrays of any strides,
 * modules, paths, functions of another source, an enum namespace), function specs instead of decorators,
 * the canonical options key, and bad embedder input. Each feature is checked in the kir and, where it
 * matters, by running the kernel on the simulator (kf_runtime with KF_RUNTIME_SIM). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

/* ---- helpers ------------------------------------------------------------------------------------------ */

static kf_context *ctx;
static kf_runtime *rt;

static kf_value v_int(kf_dtype t, int64_t i) { return (kf_value){.kind = KF_VALUE_INT, .dtype = t, .scalar.i = i}; }
static kf_value v_uint(kf_dtype t, uint64_t u) { return (kf_value){.kind = KF_VALUE_INT, .dtype = t, .scalar.u = u}; }
static kf_value v_float(kf_dtype t, double f) { return (kf_value){.kind = KF_VALUE_FLOAT, .dtype = t, .scalar.f = f}; }
static kf_value v_bool(int b) { return (kf_value){.kind = KF_VALUE_BOOL, .dtype = KF_BOOL, .scalar.i = b}; }
static kf_value v_module(const char *path) { return (kf_value){.kind = KF_VALUE_MODULE, .path = path}; }
static kf_value v_path(const char *path) { return (kf_value){.kind = KF_VALUE_PATH, .path = path}; }
static kf_value v_function(unsigned source, const char *name) {
  return (kf_value){.kind = KF_VALUE_FUNCTION, .source = source, .function = name};
}
static kf_value v_array(void *data, kf_dtype t, unsigned ndim, const int64_t *shape, const int64_t *strides) {
  kf_value v = {.kind = KF_VALUE_ARRAY};
  kf_array_init(&v.array, data, KF_MEMORY_HOST, t, ndim, shape, 'C');
  if (strides) memcpy(v.array.strides, strides, sizeof(int64_t) * ndim);
  return v;
}

static kf_source src(const char *file, const char *text, unsigned first_line) {
  return (kf_source){file, text, strlen(text), first_line};
}

/* The binding every source without imports needs for its @cuda.jit decorators and cuda.* calls. */
#define CUDA_BINDING {"cuda", {.kind = KF_VALUE_MODULE, .path = "numba.cuda"}}

/* Compiles; on failure prints the diagnostics unless a failure is expected. */
/* Options compiling one kernel (*kname) for one signature (*sig) with the bindings b[0..nb). */
static kf_compile_options one_kernel(const char **kname, const char **sig, const kf_binding *b, unsigned nb) {
  kf_compile_options o;
  kf_compile_options_init(&o);
  o.kernels = kname;
  o.nkernels = 1;
  o.signatures = sig;
  o.nsignatures = 1;
  o.bindings = b;
  o.nbindings = nb;
  return o;
}

static kf_module *compile(const kf_source *s, unsigned n, const kf_compile_options *o, kf_status expect) {
  kf_module *m = NULL;
  kf_context_clear_diagnostics(ctx);
  kf_status st = kf_compile_sources(ctx, s, n, o, &m);
  if (st != expect) {
    fprintf(stderr, "compile: status %s, expected %s\n%s", kf_status_name(st), kf_status_name(expect),
            kf_context_diagnostics(ctx));
    test_failures++;
  }
  CHECK((st == KF_OK) == (m != NULL));
  return m;
}

static char *kir(kf_module *m) {
  char *text = NULL;
  if (m) kf_module_print(m, 0, &text, NULL);
  return text;
}

static kf_arg f64_array(double *data, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT64, 1, &n, 'C');
  return kf_arg_array(&a);
}

static kf_arg f32_array(float *data, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  return kf_arg_array(&a);
}

/* Runs kernel `name` of m on the simulator over one block of `threads` threads. */
static kf_status launch(kf_module *m, const char *name, unsigned threads, const kf_arg *args, unsigned nargs) {
  if (!m) return KF_ERROR_INVALID_INPUT;
  kf_program *p = NULL;
  kf_kernel *k = NULL;
  kf_status st = kf_program_from_module(rt, m, &p);
  if (st == KF_OK) st = kf_program_get_kernel(p, name, args, nargs, &k);
  unsigned grid[3] = {1, 1, 1}, block[3] = {threads, 1, 1};
  if (st == KF_OK) st = kf_launch(k, grid, block, 0, NULL, args, nargs);
  kf_program_destroy(p);
  return st;
}

static void run_out(kf_module *m, const char *name, double *out, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = -1;
  kf_arg a = f64_array(out, n);
  kf_status st = launch(m, name, 1, &a, 1);
  if (st != KF_OK) fprintf(stderr, "launch %s: %s\n%s", name, kf_status_name(st), kf_context_diagnostics(ctx));
  CHECK(st == KF_OK);
}

/* ---- scalars, tuples, shadowing ------------------------------------------------------------------------- */

static const char SCALARS[] =
    "from numba import cuda\n"
    "N = 5\n"
    "\n"
    "@cuda.jit\n"
    "def k(out):\n"
    "    out[0] = N\n"
    "    out[1] = F\n"
    "    out[2] = B\n"
    "    out[3] = H\n"
    "    out[4] = U\n"
    "    out[5] = S * S\n"
    "    out[6] = N // 3\n"
    "    out[7] = T[0] + T[1][0] * T[1][1] + len(T[1])\n";

static void test_scalars(void) {
  const char *kname = "k", *sig = "void(float64[:])";
  kf_value inner[2] = {v_float(KF_FLOAT64, 2.5), v_int(KF_INT32, 3)};
  kf_value tup[2] = {v_int(KF_INT64, 1), {.kind = KF_VALUE_TUPLE, .items = inner, .nitems = 2}};
  kf_binding b[] = {
      {"N", v_int(KF_INT64, 42)},         {"F", v_float(KF_FLOAT64, 2.5)}, {"B", v_bool(1)},
      {"H", v_int(KF_INT8, -7)},          {"U", v_uint(KF_UINT16, 65535)}, {"S", v_float(KF_FLOAT32, 0.1)},
      {"T", {.kind = KF_VALUE_TUPLE, .items = tup, .nitems = 2}},
  };
  kf_compile_options o = one_kernel(&kname, &sig, b, sizeof b / sizeof *b);
  kf_source s = src("scalars.py", SCALARS, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  char *text = kir(m);
  /* N shadows the module's N = 5; the constants are there with their types */
  CHECK_CONTAINS(text, "arith.constant() {value = 42.0} : () -> (f64)");
  CHECK_CONTAINS(text, "arith.constant() {value = 2.5} : () -> (f64)");
  CHECK(!text || !strstr(text, "value = 5.0}"));
  /* S is a float32: S * S is computed in float32 (folded in its precision) */
  float s2 = 0.1f * 0.1f;
  double out[8];
  run_out(m, "k", out, 8);
  CHECK(out[0] == 42 && out[1] == 2.5 && out[2] == 1 && out[3] == -7 && out[4] == 65535);
  CHECK(out[5] == (double)s2);
  CHECK(out[6] == 14);
  CHECK(out[7] == 1 + 7.5 + 2);
  kf_free(text);
  kf_module_destroy(m);

  /* without the binding of N the module's constant counts */
  o.nbindings = 0;
  kf_binding rest[] = {b[1], b[2], b[3], b[4], b[5], b[6]};
  o.bindings = rest;
  o.nbindings = 6;
  m = compile(&s, 1, &o, KF_OK);
  run_out(m, "k", out, 8);
  CHECK(out[0] == 5 && out[6] == 1);
  kf_module_destroy(m);

  /* a Python int binding is int64: N // 3 with N = 2**40 keeps its width */
  kf_binding big[] = {{"N", v_int(KF_INT64, 1ll << 40)}, b[1], b[2], b[3], b[4], b[5], b[6]};
  o.bindings = big;
  o.nbindings = 7;
  m = compile(&s, 1, &o, KF_OK);
  run_out(m, "k", out, 8);
  CHECK(out[0] == (double)(1ll << 40) && out[6] == (double)((1ll << 40) / 3));
  kf_module_destroy(m);
}

/* float16 (rounded to its precision), uint64, bool and float16 arrays */
static const char DTYPES[] =
    "@cuda.jit\n"
    "def d(out):\n"
    "    out[0] = HALF\n"
    "    out[1] = Q\n"
    "    out[2] = BA[2] + BA[1]\n"
    "    out[3] = HA[0] + HA[1]\n";

static void test_dtypes(void) {
  uint8_t bools[3] = {1, 0, 7};
  uint16_t halves[2] = {0x3E00, 0xC000}; /* 1.5, -2.0 */
  int64_t n3[1] = {3}, n2[1] = {2};
  kf_binding b[] = {CUDA_BINDING,
                    {"HALF", v_float(KF_FLOAT16, 0.1)},
                    {"Q", v_uint(KF_UINT64, (1ull << 63) + 4096)},
                    {"BA", v_array(bools, KF_BOOL, 1, n3, NULL)},
                    {"HA", v_array(halves, KF_FLOAT16, 1, n2, NULL)}};
  const char *kname = "d", *sig = "void(float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 5);
  kf_source s = src("dtypes.py", DTYPES, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  char *text = kir(m);
  CHECK_CONTAINS(text, "value = [1 : i1, 0 : i1, 1 : i1]");
  CHECK_CONTAINS(text, "value = [1.5 : f16, -2.0 : f16]");
  kf_free(text);
  double out[4];
  run_out(m, "d", out, 4);
  CHECK(out[0] == 0.0999755859375); /* the float16 nearest 0.1 */
  CHECK(out[1] == (double)((1ull << 63) + 4096));
  CHECK(out[2] == 1 && out[3] == -0.5);
  kf_module_destroy(m);
}

/* complex numbers: scalars of both dtypes (complex64's parts rounded to float32), in a tuple, and a strided constant
 * array of complex64 (its elements [re, im] in order); the key tells imaginary parts apart */
static const char COMPLEXES[] =
    "@cuda.jit\n"
    "def z(out):\n"
    "    w = Z * T[1] + A[1]\n"
    "    out[0] = w.real\n"
    "    out[1] = w.imag\n"
    "    out[2] = Z64.real\n"
    "    out[3] = Z64.imag\n"
    "    out[4] = T[0]\n";

static kf_value v_complex(kf_dtype t, double re, double im) {
  return (kf_value){.kind = KF_VALUE_FLOAT, .dtype = t, .scalar.f = re, .imag = im};
}

static void test_complex(void) {
  float abuf[8] = {1, 2, -9, -9, 0.5f, -0.25f, -9, -9}; /* A = [1+2j, 0.5-0.25j], every other element */
  int64_t n2[1] = {2}, astride[1] = {16};
  kf_value items[2] = {v_int(KF_INT64, 7), v_complex(KF_COMPLEX128, 0, -1)};
  kf_binding b[] = {CUDA_BINDING,
                    {"Z", v_complex(KF_COMPLEX128, 1.5, -2)},
                    {"Z64", v_complex(KF_COMPLEX64, 0.1, 0.2)},
                    {"T", {.kind = KF_VALUE_TUPLE, .items = items, .nitems = 2}},
                    {"A", v_array(abuf, KF_COMPLEX64, 1, n2, astride)}};
  const char *kname = "z", *sig = "void(float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 5);
  kf_source s = src("complexes.py", COMPLEXES, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  char *text = kir(m);
  CHECK_CONTAINS(text, "type = array<complex<f32>, 1, C>, shape = [2], space = \"const\", value = [[1.0 : f32, 2.0 : f32], "
                       "[0.5 : f32, -0.25 : f32]]}");
  kf_free(text);
  double out[5];
  run_out(m, "z", out, 5);
  /* (1.5-2j)(-1j) + (0.5-0.25j) = (-2-1.5j) + (0.5-0.25j) */
  CHECK(out[0] == -1.5 && out[1] == -1.75);
  CHECK(out[2] == (double)0.1f && out[3] == (double)0.2f);
  CHECK(out[4] == 7);
  kf_module_destroy(m);
  char *k1 = NULL, *k2 = NULL;
  CHECK(kf_compile_options_key(&o, &k1) == KF_OK);
  b[1].value.imag = 2;
  CHECK(kf_compile_options_key(&o, &k2) == KF_OK);
  CHECK(k1 && k2 && strcmp(k1, k2) != 0);
  kf_free(k1);
  kf_free(k2);
}

/* ---- the options key: a changed value changes the result and the key -------------------------------------- */

static const char SCALE[] =
    "@cuda.jit\n"
    "def scale(out):\n"
    "    out[0] = FACTOR * 2\n";

static double scale_with(kf_value factor, char **key) {
  kf_binding b[] = {CUDA_BINDING, {"FACTOR", factor}};
  const char *kname = "scale", *sig = "void(float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 2);
  CHECK(kf_compile_options_key(&o, key) == KF_OK && *key);
  kf_source s = src("scale.py", SCALE, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  double out[1] = {0};
  run_out(m, "scale", out, 1);
  kf_module_destroy(m);
  return out[0];
}

static void test_key(void) {
  char *k3, *k4, *k3b;
  CHECK(scale_with(v_int(KF_INT64, 3), &k3) == 6);
  CHECK(scale_with(v_int(KF_INT64, 4), &k4) == 8);
  CHECK(scale_with(v_int(KF_INT64, 3), &k3b) == 6);
  CHECK(k3 && k4 && k3b && strcmp(k3, k4) != 0 && strcmp(k3, k3b) == 0);
  CHECK_CONTAINS(k3, "bind 6:FACTOR int int64 3\n");
  CHECK_CONTAINS(k3, "bind 4:cuda module 10:numba.cuda\n");
  CHECK_CONTAINS(k3, "pipeline 100:canonicalize,cse,bce,pad-shared,tile-shared,thread-map,cse,hoist-checks,unroll,privatize-atomics,dce\n");
  kf_free(k3);
  kf_free(k4);
  kf_free(k3b);

  /* canonical: binding order does not matter; a float32 value is keyed as float32 holds it */
  float tenth = 0.1f;
  kf_binding b1[] = {{"x", v_float(KF_FLOAT32, 0.1)}, {"y", v_float(KF_FLOAT64, 0.5)}};
  kf_binding b2[] = {{"y", v_float(KF_FLOAT64, 0.5)}, {"x", v_float(KF_FLOAT32, (double)tenth)}};
  kf_compile_options o1, o2;
  kf_compile_options_init(&o1);
  kf_compile_options_init(&o2);
  o1.bindings = b1;
  o2.bindings = b2;
  o1.nbindings = o2.nbindings = 2;
  char *t1 = NULL, *t2 = NULL;
  CHECK(kf_compile_options_key(&o1, &t1) == KF_OK && kf_compile_options_key(&o2, &t2) == KF_OK);
  CHECK(t1 && t2 && strcmp(t1, t2) == 0);
  CHECK_CONTAINS(t1, "bind 1:x float float32 0x1.99999ap-4\nbind 1:y float float64 0x1p-1\n");
  kf_free(t2);
  /* arrays are keyed by their elements in C order, whatever the strides */
  float fdata[4] = {1, 2, 3, 4}, tdata[4] = {1, 3, 2, 4}; /* tdata read through F strides is fdata in C order */
  int64_t shape[2] = {2, 2}, fstrides[2] = {4, 8};
  kf_binding a1[] = {{"A", v_array(fdata, KF_FLOAT32, 2, shape, NULL)}};
  kf_binding a2[] = {{"A", v_array(tdata, KF_FLOAT32, 2, shape, fstrides)}};
  o1.bindings = a1;
  o2.bindings = a2;
  o1.nbindings = o2.nbindings = 1;
  char *ka1 = NULL, *ka2 = NULL;
  CHECK(kf_compile_options_key(&o1, &ka1) == KF_OK && kf_compile_options_key(&o2, &ka2) == KF_OK);
  CHECK(ka1 && ka2 && strcmp(ka1, ka2) == 0 && strcmp(ka1, t1) != 0);
  CHECK_CONTAINS(ka1, "bind 1:A array float32 2 2 2 sha256 ");
  fdata[3] = 5;
  char *ka3 = NULL;
  CHECK(kf_compile_options_key(&o1, &ka3) == KF_OK && ka3 && strcmp(ka1, ka3) != 0);
  kf_free(ka1);
  kf_free(ka2);
  kf_free(ka3);
  /* extra sources, specs and the pipeline take part */
  kf_source extra = src("more.py", "x = 1\n", 7);
  const char *sig = "void(float32[:])";
  kf_function_spec spec = {.name = "k", .kind = KF_FUNCTION_KERNEL, .signatures = &sig, .nsignatures = 1, .opt = -1};
  o1.extra_sources = &extra;
  o1.nextra_sources = 1;
  o1.functions = &spec;
  o1.nfunctions = 1;
  o1.pipeline = "cse, dce";
  char *ks = NULL;
  CHECK(kf_compile_options_key(&o1, &ks) == KF_OK);
  CHECK_CONTAINS(ks, "source 1 file 7:more.py first_line 7 sha256 ");
  CHECK_CONTAINS(ks, "function 1:k source 0 kind kernel signatures 1 16:void(float32[:]) layout 0: fastmath 0 debug 0 "
                     "lineinfo 0 opt -1 inline 0 forceinline 0 launch_bounds 0 0 0\n");
  CHECK_CONTAINS(ks, "pipeline 7:cse,dce\n");
  /* launch bounds change the PTX (.maxntid): they are part of the key */
  spec.launch_bounds[0] = 128;
  spec.launch_bounds[1] = 2;
  char *kb = NULL;
  CHECK(kf_compile_options_key(&o1, &kb) == KF_OK && kb && strcmp(kb, ks) != 0);
  CHECK_CONTAINS(kb, " inline 0 forceinline 0 launch_bounds 128 2 0\n");
  kf_free(kb);
  spec.launch_bounds[0] = spec.launch_bounds[1] = 0;
  /* forceinline changes the IR (alwaysinline): part of the key too */
  spec.forceinline = 1;
  char *kf = NULL;
  CHECK(kf_compile_options_key(&o1, &kf) == KF_OK && kf && strcmp(kf, ks) != 0);
  CHECK_CONTAINS(kf, " inline 0 forceinline 1 launch_bounds 0 0 0\n");
  kf_free(kf);
  spec.forceinline = 0;
  /* link inputs (their contents, by SHA-256) and include folders take part; a foreign function's ABI too */
  const char cu1[] = "extern \"C\" __device__ int f(int *r) { *r = 1; return 0; }";
  char cu2[sizeof cu1];
  memcpy(cu2, cu1, sizeof cu1);
  cu2[sizeof cu1 - 14] = '2';
  const char *inc = "/opt/inc";
  kf_link_input link = {KF_LINK_CU, "f.cu", cu1, sizeof cu1 - 1};
  o1.links = &link;
  o1.nlinks = 1;
  o1.include_dirs = &inc;
  o1.ninclude_dirs = 1;
  char *kl1 = NULL, *kl2 = NULL;
  CHECK(kf_compile_options_key(&o1, &kl1) == KF_OK && kl1 && strcmp(kl1, ks) != 0);
  CHECK_CONTAINS(kl1, "link .cu 4:f.cu ");
  CHECK_CONTAINS(kl1, "include 8:/opt/inc\n");
  link.data = cu2;
  CHECK(kf_compile_options_key(&o1, &kl2) == KF_OK && kl2 && strcmp(kl1, kl2) != 0);
  link.kind = (kf_link_kind)99;
  char *bad_link = (char *)1;
  CHECK(kf_compile_options_key(&o1, &bad_link) == KF_ERROR_INVALID_INPUT && bad_link == NULL);
  kf_free(kl1);
  kf_free(kl2);
  kf_link_kind lk;
  CHECK(kf_link_kind_of(".cu", &lk) == KF_OK && lk == KF_LINK_CU);
  CHECK(kf_link_kind_of("lib/k.ltoir", &lk) == KF_OK && lk == KF_LINK_LTOIR);
  CHECK(kf_link_kind_of("libfoo.a", &lk) == KF_OK && lk == KF_LINK_LIBRARY);
  CHECK(kf_link_kind_of("notes.txt", &lk) == KF_ERROR_INVALID_INPUT);
  o1.links = NULL;
  o1.nlinks = o1.ninclude_dirs = 0;
  o1.include_dirs = NULL;
  kf_value fv = {.kind = KF_VALUE_FOREIGN, .path = "f", .function = "int32(int32)"};
  kf_binding fb[] = {{"f", fv}};
  o2.bindings = fb;
  o2.nbindings = 1;
  char *kn = NULL, *kc = NULL;
  CHECK(kf_compile_options_key(&o2, &kn) == KF_OK);
  fb[0].value.scalar.i = KF_FOREIGN_ABI_C;
  CHECK(kf_compile_options_key(&o2, &kc) == KF_OK && kn && kc && strcmp(kn, kc) != 0);
  kf_free(kn);
  kf_free(kc);
  kf_free(ks);
  kf_free(t1);
  /* unreadable options */
  kf_binding noname[] = {{NULL, v_int(KF_INT64, 1)}};
  o2.bindings = noname;
  o2.nbindings = 1;
  char *bad = (char *)1;
  CHECK(kf_compile_options_key(&o2, &bad) == KF_ERROR_INVALID_INPUT && bad == NULL);
  kf_binding twice[] = {{"a", v_int(KF_INT64, 1)}, {"a", v_int(KF_INT64, 2)}};
  o2.bindings = twice;
  o2.nbindings = 2;
  CHECK(kf_compile_options_key(&o2, &bad) == KF_ERROR_INVALID_INPUT && bad == NULL);
  char *dflt = NULL;
  CHECK(kf_compile_options_key(NULL, &dflt) == KF_OK && dflt && strstr(dflt, "bounds_check 1"));
  kf_free(dflt);
}

/* ---- arrays ------------------------------------------------------------------------------------------- */

static const char ARRAYS[] =
    "@cuda.jit\n"
    "def arr(out):\n"
    "    i = cuda.grid(1)\n"
    "    if i < 4:\n"
    "        out[i] = V[i] + 10 * W[i] + 100 * M[1, i] + 1000 * G[i, 1]\n";

static void test_arrays(void) {
  /* V: float32 contiguous; W: int32, every other element of 8; M: int32 3x4, every other column of 3x8;
   * G: float32 4x2 in Fortran order */
  float vbuf[4] = {0.5f, 1.5f, 2.5f, 3.5f};
  int32_t wbuf[8] = {1, -1, 2, -1, 3, -1, 4, -1};
  int32_t mbuf[3][8];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 8; c++) mbuf[r][c] = c % 2 ? -99 : r * 10 + c / 2;
  float gbuf[8] = {0, 0, 0, 0, 5, 6, 7, 8}; /* G[i, 1] = gbuf[4 + i] */
  int64_t n4[1] = {4}, wstride[1] = {8}, m34[2] = {3, 4}, mstrides[2] = {32, 8}, g42[2] = {4, 2}, gstrides[2] = {4, 16};
  kf_binding b[] = {CUDA_BINDING,
                    {"V", v_array(vbuf, KF_FLOAT32, 1, n4, NULL)},
                    {"W", v_array(wbuf, KF_INT32, 1, n4, wstride)},
                    {"M", v_array(mbuf, KF_INT32, 2, m34, mstrides)},
                    {"G", v_array(gbuf, KF_FLOAT32, 2, g42, gstrides)}};
  const char *kname = "arr", *sig = "void(float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 5);
  kf_source s = src("arrays.py", ARRAYS, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  char *text = kir(m);
  CHECK_CONTAINS(text, "mem.global() {sym_name = @arr__V, type = array<f32, 1, C>, shape = [4], space = \"const\", "
                       "value = [0.5 : f32, 1.5 : f32, 2.5 : f32, 3.5 : f32]}");
  CHECK_CONTAINS(text, "sym_name = @arr__W, type = array<i32, 1, C>, shape = [4], space = \"const\", value = [1 : i32, "
                       "2 : i32, 3 : i32, 4 : i32]}");
  CHECK_CONTAINS(text, "sym_name = @arr__M, type = array<i32, 2, C>, shape = [3, 4], space = \"const\", value = [0 : i32, "
                       "1 : i32, 2 : i32, 3 : i32, 10 : i32,");
  CHECK_CONTAINS(text, "sym_name = @arr__G, type = array<f32, 2, C>, shape = [4, 2], space = \"const\", value = [0.0 : f32, "
                       "5.0 : f32, 0.0 : f32, 6.0 : f32,");
  CHECK_CONTAINS(text, "mem.global_ref() {name = @arr__M} : () -> (array<i32, 2, C>)");
  kf_free(text);
  double out[4];
  for (int i = 0; i < 4; i++) out[i] = -1;
  kf_arg a = f64_array(out, 4);
  CHECK(launch(m, "arr", 4, &a, 1) == KF_OK);
  for (int i = 0; i < 4; i++) CHECK(out[i] == vbuf[i] + 10 * (i + 1) + 100 * (10 + i) + 1000 * (5 + i));
  kf_module_destroy(m);
}

/* ---- modules, paths, functions of another source, namespaces ----------------------------------------------- */

static const char MAIN[] =
    "@cuda.jit\n"
    "def k(a, out):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.shape[0]:\n"
    "        out[i] = sqrt(a[i]) + triple(a[i]) + other_k(Color.BLUE) + Color.RED\n";

static const char HELPERS[] =
    "@cuda.jit(device=True)\n"
    "def scale(x):\n"
    "    return x * 3\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def k(x):\n"
    "    return x + 1\n";

static void test_names(void) {
  kf_value members[3] = {v_int(KF_INT64, 1), v_int(KF_INT64, 2), v_int(KF_INT64, 4)};
  const char *names[3] = {"RED", "GREEN", "BLUE"};
  kf_binding b[] = {
      CUDA_BINDING,
      {"sqrt", v_path("math.sqrt")},
      {"triple", v_function(1, "scale")},
      {"other_k", v_function(1, "k")},
      {"Color", {.kind = KF_VALUE_NAMESPACE, .items = members, .names = names, .nitems = 3}},
  };
  const char *kname = "k", *sig = "void(float64[:], float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 5);
  kf_source s[2] = {src("main.py", MAIN, 1), src("helpers.py", HELPERS, 10)};
  kf_module *m = compile(s, 2, &o, KF_OK);
  char *text = kir(m);
  /* the device k of helpers.py does not collide with the kernel k; both keep their Python name */
  CHECK_CONTAINS(text, "sym_name = @k__s1");
  CHECK_CONTAINS(text, "{callee = @k__s1}");
  CHECK_CONTAINS(text, "{callee = @scale}");
  CHECK_CONTAINS(text, "math.sqrt");
  CHECK_CONTAINS(text, "sym_name = @k, function_type = (array<f64, 1, A>, array<f64, 1, A>) -> (), kernel, py_name = \"k\"");
  kf_free(text);
  char *dbg = NULL;
  if (m) kf_module_print(m, KF_PRINT_DEBUG_INFO, &dbg, NULL);
  CHECK_CONTAINS(dbg, "loc(\"helpers.py\":12:"); /* scale's return, at its true line */
  kf_free(dbg);
  double a[3] = {4, 9, 16}, out[3];
  kf_arg args[2] = {f64_array(a, 3), f64_array(out, 3)};
  CHECK(launch(m, "k", 3, args, 2) == KF_OK);
  for (int i = 0; i < 3; i++) CHECK(out[i] == sqrt(a[i]) + 3 * a[i] + 5 + 1);
  kf_module_destroy(m);

  /* a member the namespace does not have: located */
  static const char BADNS[] = "@cuda.jit\ndef k(out):\n    out[0] = Color.PURPLE\n";
  const char *sig1 = "void(float64[:])";
  o.signatures = &sig1;
  kf_source s1 = src("ns.py", BADNS, 1);
  m = compile(&s1, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "ns.py:3:20: error: namespace 'Color' has no attribute 'PURPLE'");
}

/* ---- a module of the embedder's own, bound by the attributes kernels read (KF_VALUE_PYMODULE) ------------------ */

static const char USES_CONFIG[] =
    "@cuda.jit\n"
    "def k(out):\n"
    "    out[0] = cfg.LIMIT + cfg.sub.STEP + cfg.scale(2.0)\n";

static void test_program_modules(void) {
  kf_value sub_items[1] = {v_int(KF_INT64, 7)};
  const char *sub_names[1] = {"STEP"};
  kf_value items[4] = {v_int(KF_INT64, 5),
                       {.kind = KF_VALUE_PYMODULE, .path = "app.config.sub", .items = sub_items, .names = sub_names, .nitems = 1},
                       v_function(1, "scale"),
                       {.kind = KF_VALUE_UNSUPPORTED, .path = "a Python list"}};
  const char *names[4] = {"LIMIT", "sub", "scale", "NAMES"};
  kf_binding b[] = {CUDA_BINDING,
                    {"cfg", {.kind = KF_VALUE_PYMODULE, .path = "app.config", .items = items, .names = names, .nitems = 4}}};
  const char *kname = "k", *sig = "void(float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 2);
  kf_source s[2] = {src("main.py", USES_CONFIG, 1), src("config.py", HELPERS, 1)};
  kf_module *m = compile(s, 2, &o, KF_OK);
  double out[1];
  kf_arg a = f64_array(out, 1);
  CHECK(m && launch(m, "k", 1, &a, 1) == KF_OK && out[0] == 5 + 7 + 6);
  kf_module_destroy(m);
  /* the key has the module's name and members */
  char *k1 = NULL, *k2 = NULL;
  CHECK(kf_compile_options_key(&o, &k1) == KF_OK);
  CHECK_CONTAINS(k1, "pymodule");
  CHECK_CONTAINS(k1, "app.config");
  items[0] = v_int(KF_INT64, 6);
  CHECK(kf_compile_options_key(&o, &k2) == KF_OK && strcmp(k1, k2) != 0);
  kf_free(k1);
  kf_free(k2);
  /* an attribute the module does not have, one kernels cannot use: located, saying which */
  static const char MISSING[] = "@cuda.jit\ndef k(out):\n    out[0] = cfg.OTHER\n";
  kf_source s1 = src("m.py", MISSING, 1);
  m = compile(&s1, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "m.py:3:18: error: module 'app.config' has no attribute 'OTHER'");
  static const char LIST[] = "@cuda.jit\ndef k(out):\n    out[0] = cfg.NAMES[0]\n";
  kf_source s2 = src("l.py", LIST, 1);
  m = compile(&s2, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "l.py:3:18: error: 'cfg.NAMES': a Python list, which kernels cannot use");
}

/* ---- enums, exception classes and strings as the Python module binds them ------------------------------------ */

static const char LANG[] =
    "@cuda.jit(debug=True)\n"
    "def k(out, c):\n"
    "    out[0] = c.value\n"
    "    out[1] = c is Color.GREEN\n"
    "    out[2] = FAV is Color.RED\n"
    "    if c is Color.BLUE:\n"
    "        raise Oops(WHY)\n";

static void test_language_values(void) {
  const char *spelling = "EnumMember(\"app.Color\", int64)";
  kf_value members[3] = {v_int(KF_INT64, 1), v_int(KF_INT64, 2), v_int(KF_INT64, 4)};
  const char *names[3] = {"RED", "GREEN", "BLUE"};
  kf_value fav = v_int(KF_INT64, 1);
  fav.path = spelling;
  kf_binding b[] = {
      CUDA_BINDING,
      {"Color", {.kind = KF_VALUE_NAMESPACE, .items = members, .names = names, .nitems = 3, .path = spelling}},
      {"FAV", fav},
      {"Oops", {.kind = KF_VALUE_EXCEPTION, .path = "app.Oops"}},
      {"WHY", {.kind = KF_VALUE_STRING, .path = "blue is not allowed"}},
  };
  const char *kname = "k";
  char sig[128];
  snprintf(sig, sizeof sig, "void(float64[:], %s)", spelling);
  const char *sigp = sig;
  kf_compile_options o = one_kernel(&kname, &sigp, b, 5);
  kf_source s = src("app.py", LANG, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  char *text = kir(m);
  CHECK_CONTAINS(text, "check.raise() {exception = \"app.Oops: blue is not allowed\"}");
  kf_free(text);
  /* the enum argument: kf_arg.type, the same spelling as the namespace's */
  double out[3];
  kf_arg args[2] = {f64_array(out, 3), kf_arg_int(KF_INT64, 2)};
  args[1].type = spelling;
  CHECK(launch(m, "k", 1, args, 2) == KF_OK);
  CHECK(out[0] == 2 && out[1] == 1 && out[2] == 1);
  args[1].value.i = 4;
  CHECK(launch(m, "k", 1, args, 2) == KF_ERROR_OUT_OF_BOUNDS);
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_RAISED && e.exception &&
        strcmp(e.exception, "app.Oops: blue is not allowed") == 0 && e.line == 7 && e.col == 9);
  kf_module_destroy(m);
  /* the canonical key tells the enum types apart */
  char *k1 = NULL, *k2 = NULL;
  CHECK(kf_compile_options_key(&o, &k1) == KF_OK);
  b[1].value.path = "EnumMember(\"app.Other\", int64)";
  CHECK(kf_compile_options_key(&o, &k2) == KF_OK);
  CHECK(k1 && k2 && strcmp(k1, k2) != 0);
  kf_free(k1);
  kf_free(k2);
}

/* ---- slices: KF_VALUE_SLICE of INT and NONE items, as Numba freezes a global slice --------------------------- */

static const char SLICES[] =
    "from numba import cuda\n"
    "@cuda.jit\n"
    "def k(a, out):\n"
    "    v = a[EVERY]\n"
    "    out[0] = len(v)\n"
    "    out[1] = v[1]\n"
    "    out[2] = EVERY.start\n"
    "    out[3] = BACK.start\n"
    "    out[4] = a[BACK][0]\n";

static void test_slices(void) {
  kf_value none = {.kind = KF_VALUE_NONE};
  kf_value every[3] = {none, none, v_int(KF_INT64, 2)};      /* slice(None, None, 2) */
  kf_value back[3] = {none, v_int(KF_INT32, -6), v_int(KF_INT64, -1)};  /* slice(None, -6, -1) */
  kf_binding b[] = {CUDA_BINDING,
                    {"EVERY", {.kind = KF_VALUE_SLICE, .items = every, .nitems = 3}},
                    {"BACK", {.kind = KF_VALUE_SLICE, .items = back, .nitems = 3}}};
  const char *kname = "k", *sig = "void(float64[::1], float64[::1])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 3);
  kf_source s = src("slices.py", SLICES, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  double a[7] = {0, 1, 2, 3, 4, 5, 6}, out[5] = {0};
  kf_arg args[2] = {f64_array(a, 7), f64_array(out, 5)};
  CHECK(launch(m, "k", 1, args, 2) == KF_OK);
  CHECK(out[0] == 4 && out[1] == 2 && out[2] == 0 && out[3] == (double)INT64_MAX && out[4] == 6);
  kf_module_destroy(m);
  /* the key tells slices apart; a slice of a float, or of two items, is a located error where it is used */
  char *k1 = NULL, *k2 = NULL;
  CHECK(kf_compile_options_key(&o, &k1) == KF_OK);
  every[2] = v_int(KF_INT64, 3);
  CHECK(kf_compile_options_key(&o, &k2) == KF_OK);
  CHECK(k1 && k2 && strcmp(k1, k2) != 0);
  kf_free(k1);
  kf_free(k2);
  every[2] = v_float(KF_FLOAT64, 2.0);
  compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "the step of a slice must be an integer or None");
  every[2] = v_int(KF_INT64, 2);
  b[1].value.nitems = 2;
  compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "a slice needs 3 items (start, stop, step), not 2");
}

/* An enum class of tuple values bound (a namespace whose spelling lists the values) and one of its members as a
 * kernel argument: the index of its value, an alias the index of the member it repeats, an index that names no
 * member a ValueError raised by the kernel. */
static const char VALUED[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def k(out, p):\n"
    "    out[0] = p.value[0] + p.value[1]\n"
    "    out[1] = p == Pair.LOW\n"
    "    out[2] = p is Pair.SAME\n";

static void test_valued_enum_arguments(void) {
  const char *spelling = "EnumMember(\"app.Pair\", UniTuple(int64, 2), ((1, 2), (30, 40), (1, 2)))";
  kf_value low[2] = {v_int(KF_INT64, 1), v_int(KF_INT64, 2)}, high[2] = {v_int(KF_INT64, 30), v_int(KF_INT64, 40)};
  kf_value members[3] = {{.kind = KF_VALUE_TUPLE, .items = low, .nitems = 2},
                         {.kind = KF_VALUE_TUPLE, .items = high, .nitems = 2},
                         {.kind = KF_VALUE_TUPLE, .items = low, .nitems = 2}};
  const char *names[3] = {"LOW", "HIGH", "SAME"}; /* SAME: an alias of LOW */
  kf_binding b[] = {CUDA_BINDING,
                    {"Pair", {.kind = KF_VALUE_NAMESPACE, .items = members, .names = names, .nitems = 3,
                              .path = spelling}}};
  const char *kname = "k";
  char sig[160];
  snprintf(sig, sizeof sig, "void(float64[:], %s)", spelling);
  const char *sigp = sig;
  kf_compile_options o = one_kernel(&kname, &sigp, b, 2);
  kf_source s = src("app.py", VALUED, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  double out[3];
  kf_arg args[2] = {f64_array(out, 3), kf_arg_int(KF_INT64, 1)};
  args[1].type = spelling;
  CHECK(launch(m, "k", 1, args, 2) == KF_OK);
  CHECK(out[0] == 70 && out[1] == 0 && out[2] == 0);
  args[1].value.i = 0;
  CHECK(launch(m, "k", 1, args, 2) == KF_OK);
  CHECK(out[0] == 3 && out[1] == 1 && out[2] == 1);
  kf_context_clear_diagnostics(ctx);
  args[1].value.i = 3;
  CHECK(launch(m, "k", 1, args, 2) != KF_OK);
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_RAISED && e.exception);
  if (e.exception)
    CHECK_CONTAINS(e.exception, "ValueError: an argument of Enum<UniTuple(int64, 2)>(app.Pair) that is not the index "
                                "of one of its 3 members");
  kf_module_destroy(m);
  /* a spelling whose values are not the class's is refused, located in the signature */
  sigp = "void(float64[:], EnumMember(\"app.Pair\", UniTuple(int64, 2), ((1, 2), (3, 4))))";
  m = compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK(!m);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "error: the values spelt for app.Pair are not those of its members");
}

/* A tuple binding holding device functions (of another source), a path (math.sin) and an array: the functions
 * called through the tuple, the array read as a constant array (symbol named after the tuple and the item). */
static const char TUPLED[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def k(out, x):\n"
    "    for f in cuda.literal_unroll(FS):\n"
    "        out[0] += f(x)\n"
    "    out[1] = FS[2](0.0) + MIXED[1][2]\n";
static const char TUPLED_HELPERS[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def square(x):\n"
    "    return x * x\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def negate(x):\n"
    "    return -x\n";

static void test_tuples_of_functions_and_arrays(void) {
  kf_value fs[3] = {v_function(1, "square"), v_function(1, "negate"), v_path("math.sin")};
  double table[3] = {1, 2, 40};
  int64_t n = 3;
  kf_value mixed[2] = {v_function(1, "square"), v_array(table, KF_FLOAT64, 1, &n, NULL)};
  kf_binding b[] = {CUDA_BINDING,
                    {"FS", {.kind = KF_VALUE_TUPLE, .items = fs, .nitems = 3}},
                    {"MIXED", {.kind = KF_VALUE_TUPLE, .items = mixed, .nitems = 2}}};
  const char *kname = "k", *sig = "void(float64[:], float64)";
  kf_compile_options o = one_kernel(&kname, &sig, b, 3);
  kf_source s[2] = {src("app.py", TUPLED, 1), src("helpers.py", TUPLED_HELPERS, 1)};
  kf_module *m = compile(s, 2, &o, KF_OK);
  char *text = kir(m);
  if (text) CHECK_CONTAINS(text, "sym_name = @k__MIXED_1");
  kf_free(text);
  double out[2] = {0, 0};
  kf_arg args[2] = {f64_array(out, 2), kf_arg_float(KF_FLOAT64, 3)};
  CHECK(launch(m, "k", 1, args, 2) == KF_OK);
  CHECK(out[0] == 9 - 3 + sin(3.0) && out[1] == 40);
  kf_module_destroy(m);
  /* a tuple may not hold a namespace (nor an exception class, nor a string) */
  kf_value bad[2] = {v_function(1, "square"), {.kind = KF_VALUE_STRING, .path = "s"}};
  b[2].value.items = bad;
  m = compile(s, 2, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "item 1 of the tuple is a string: kfront's constant tuples hold "
                                              "numbers, arrays, functions, None, slices and tuples of them");
}

/* ---- fragments: one function's lines, indented, at line 40 ------------------------------------------------- */

static void test_fragments(void) {
  static const char TYPO[] =
      "    @cuda.jit\n"
      "    def bad(a):\n"
      "        x = 1\n"
      "        a[0] = x + nope\n";
  kf_binding b[] = {CUDA_BINDING};
  const char *kname = "bad", *sig = "void(float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, 1);
  kf_source s = src("file.py", TYPO, 40);
  compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "file.py:43:20: error: NameError: name 'nope' is not defined\n"
                                              "        a[0] = x + nope\n"
                                              "                   ^\n");
  static const char TYPING[] =
      "    @cuda.jit\n"
      "    def bad(a):\n"
      "        t = (1, 2)\n"
      "        a[0] = t - 1\n";
  s = src("file.py", TYPING, 40);
  compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "file.py:43:18: error: unsupported operand types for '-': UniTuple(int64 x 2) "
                                              "and int64\n        a[0] = t - 1\n                 ^\n");
  /* a line less indented than the first is an indentation error at its true line */
  static const char DEDENT[] = "    @cuda.jit\n    def bad(a):\n        a[0] = 1\n  x = 1\n";
  s = src("file.py", DEDENT, 40);
  compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "file.py:43:3: error: unindent does not match any outer indentation level");

  /* two pieces of one file: an error in the device function (lines 10..12) quotes its own line, while the
   * kernel (lines 40..43) calls it under another name */
  static const char CALLER[] =
      "    @cuda.jit\n"
      "    def bad(a):\n"
      "        x = 1\n"
      "        a[0] = twice(x)\n";
  static const char CALLEE[] =
      "@cuda.jit(device=True)\n"
      "def dbl(x):\n"
      "    return x * undefined_too\n";
  kf_binding twice[] = {CUDA_BINDING, {"twice", v_function(1, "dbl")}};
  o.bindings = twice;
  o.nbindings = 2;
  kf_source pieces[2] = {src("file.py", CALLER, 40), src("file.py", CALLEE, 10)};
  compile(pieces, 2, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "file.py:12:16: error: NameError: name 'undefined_too' is not defined\n"
                                              "    return x * undefined_too\n"
                                              "               ^\n");
  o.bindings = b;
  o.nbindings = 1;

  /* a failed bounds check names the true line */
  static const char OOB[] =
      "    @cuda.jit\n"
      "    def oob(a):\n"
      "        i = cuda.grid(1)\n"
      "        a[i] = 2.0\n";
  kname = "oob";
  s = src("file.py", OOB, 40);
  kf_module *m = compile(&s, 1, &o, KF_OK);
  double a[10];
  kf_arg arg = f64_array(a, 10);
  kf_context_clear_diagnostics(ctx);
  CHECK(launch(m, "oob", 32, &arg, 1) == KF_ERROR_OUT_OF_BOUNDS);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "file.py:43:9: error: IndexError: index 10 is out of bounds for axis 0 with "
                                              "size 10 (kernel oob, file.py:43:9)\n        a[i] = 2.0\n        ^\n");
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "\n        a[i] = 2.0\n");
  for (int i = 0; i < 10; i++) CHECK(a[i] == 2.0);
  kf_module_destroy(m);
}

/* ---- function specs ----------------------------------------------------------------------------------------- */

static const char SPECS[] =
    "@some_unknown_decorator\n"
    "def fill(a):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.shape[0]:\n"
    "        a[i] = helper(i)\n"
    "\n"
    "def helper(x):\n"
    "    return x * 2 + 1\n"
    "\n"
    "@cuda.jit('void(int32[:])')\n"
    "def vadd(x, y):\n"
    "    return x + y\n";

static void test_specs(void) {
  const char *fill_sig = "void(float32[:])", *vadd_sig = "float32(float32, float32)";
  kf_function_spec specs[] = {
      {.name = "fill", .kind = KF_FUNCTION_KERNEL, .signatures = &fill_sig, .nsignatures = 1, .opt = -1, .fastmath = 1},
      {.name = "helper", .kind = KF_FUNCTION_DEVICE, .opt = 2, .inline_mode = 1},
      {.name = "vadd", .kind = KF_FUNCTION_VECTORIZE, .signatures = &vadd_sig, .nsignatures = 1, .opt = -1},
  };
  kf_binding b[] = {CUDA_BINDING};
  kf_compile_options o;
  kf_compile_options_init(&o);
  o.functions = specs;
  o.nfunctions = 3;
  o.bindings = b;
  o.nbindings = 1;
  kf_source s = src("specs.py", SPECS, 1);
  kf_module *m = compile(&s, 1, &o, KF_OK); /* every eager function: fill and vadd */
  char *text = kir(m);
  CHECK_CONTAINS(text, "sym_name = @fill, function_type = (array<f32, 1, A>) -> (), kernel, py_name = \"fill\"");
  CHECK_CONTAINS(text, "fastmath");
  CHECK_CONTAINS(text, "device, py_name = \"helper\", arg_names = [\"x\"], opt = 2, inline = \"always\"");
  CHECK_CONTAINS(text, "generated = \"vectorize\"");
  kf_free(text);
  float a[5];
  kf_arg fa = f32_array(a, 5);
  CHECK(launch(m, "fill", 8, &fa, 1) == KF_OK);
  for (int i = 0; i < 5; i++) CHECK(a[i] == 2 * i + 1);
  float x[4] = {1, 2, 3, 4}, y[4] = {0.5f, 0.25f, 0.125f, 0}, z[4] = {0};
  kf_arg va[3] = {f32_array(x, 4), f32_array(y, 4), f32_array(z, 4)};
  CHECK(launch(m, "vadd", 4, va, 3) == KF_OK);
  for (int i = 0; i < 4; i++) CHECK(z[i] == x[i] + y[i]);
  kf_module_destroy(m);

  /* a spec's signature that does not fit is located at the def */
  const char *two = "void(float32[:], float32[:])";
  specs[0].signatures = &two;
  m = compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "specs.py:2:1: error: signature has 2 arguments but 'fill' takes 1");
  /* a signature with a syntax error quotes it */
  const char *broken = "void(float32[:]";
  specs[0].signatures = &broken;
  m = compile(&s, 1, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "<signature of fill>:1:5: error: '(' was never closed\nvoid(float32[:]\n");
}

/* ---- bad embedder input --------------------------------------------------------------------------------------- */

static const char USES_F[] = "@cuda.jit\ndef k(out):\n    out[0] = f(1)\n";
static const char PLAIN[] = "@cuda.jit\ndef k(out):\n    out[0] = 1\n";

static void expect_bad(const kf_source *s, unsigned n, const kf_binding *b, unsigned nb, const kf_function_spec *sp,
                       unsigned nsp, const char *message) {
  const char *kname = "k", *sig = "void(float64[:])";
  kf_compile_options o = one_kernel(&kname, &sig, b, nb);
  o.functions = sp;
  o.nfunctions = nsp;
  compile(s, n, &o, KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), message);
}

static void test_bad_input(void) {
  kf_source uses = src("uses.py", USES_F, 1), plain = src("plain.py", PLAIN, 1);
  kf_source two[2] = {plain, src("lib.py", "def g(x):\n    return x\n", 1)};
  /* a FUNCTION naming nothing: at its use, or naming the binding when unused */
  kf_binding nothing[] = {CUDA_BINDING, {"f", v_function(1, "missing")}};
  kf_source uses2[2] = {uses, two[1]};
  expect_bad(uses2, 2, nothing, 2, NULL, 0,
             "uses.py:3:14: error: Untyped global name 'f': no function 'missing' in source 1 (lib.py) (bound by the embedder)");
  expect_bad(two, 2, nothing, 2, NULL, 0, "kfront: error: binding 'f': no function 'missing' in source 1 (lib.py)");
  /* an undecorated function of another source is host code */
  kf_binding undecorated[] = {CUDA_BINDING, {"f", v_function(1, "g")}};
  expect_bad(uses2, 2, undecorated, 2, NULL, 0, "uses.py:3:14: error: 'g' is not a device function");
  /* source index out of range */
  kf_binding far[] = {CUDA_BINDING, {"f", v_function(3, "g")}};
  expect_bad(&uses, 1, far, 2, NULL, 0, "error: Untyped global name 'f': function 'g' of source 3, but there is only 1 source (bound by the embedder)");
  /* a spec naming nothing, a spec out of range, a spec without a name */
  kf_binding cuda[] = {CUDA_BINDING};
  kf_function_spec ghost = {.name = "ghost", .kind = KF_FUNCTION_DEVICE, .opt = -1};
  expect_bad(&plain, 1, cuda, 1, &ghost, 1,
             "kfront: error: function spec 0 ('ghost'): source 0 (plain.py) defines no function 'ghost' at its top level");
  kf_function_spec ghost2 = {.name = "k", .source = 2, .kind = KF_FUNCTION_KERNEL, .opt = -1};
  expect_bad(&plain, 1, cuda, 1, &ghost2, 1, "kfront: error: function spec 0 ('k') names source 2, but there is only 1 source");
  kf_function_spec unnamed = {.kind = KF_FUNCTION_KERNEL, .opt = -1};
  expect_bad(&plain, 1, cuda, 1, &unnamed, 1, "kfront: error: function spec 0 ('?') has no name");
  kf_function_spec unbounded = {.name = "k", .kind = KF_FUNCTION_KERNEL, .opt = -1, .launch_bounds = {0, 2, 0}};
  expect_bad(&plain, 1, cuda, 1, &unbounded, 1, "kfront: error: function spec 0 ('k') has launch bound 1 of 2 (each is at "
             "most 2**31-1, and the first, the most threads per block, must be given for the others)");
  /* bindings without a name or bound twice */
  kf_binding noname[] = {CUDA_BINDING, {NULL, v_int(KF_INT64, 1)}};
  expect_bad(&plain, 1, noname, 2, NULL, 0, "kfront: error: binding 1 has no name");
  kf_binding twice[] = {CUDA_BINDING, {"cuda", v_module("numba.cuda")}};
  expect_bad(&plain, 1, twice, 2, NULL, 0, "kfront: error: the name 'cuda' is bound twice");
  /* content kfront cannot use: located at the use */
  static const char USES_A[] = "@cuda.jit\ndef k(out):\n    out[0] = A[0]\n";
  kf_source usesa = src("a.py", USES_A, 1);
  float data[2] = {1, 2};
  int64_t n2[1] = {2};
  kf_binding wrong_dtype[] = {CUDA_BINDING, {"A", v_array(data, KF_FLOAT32, 1, n2, NULL)}};
  wrong_dtype[1].value.array.dtype = (kf_dtype)99;
  expect_bad(&usesa, 1, wrong_dtype, 2, NULL, 0, "a.py:3:14: error: Untyped global name 'A': an array of invalid dtype 99 (bound by the embedder)");
  /* a device array is captured at its address, with its shape and strides (numba-cuda captures the pointer) */
  kf_binding device[] = {CUDA_BINDING, {"A", v_array(data, KF_FLOAT32, 1, n2, NULL)}};
  device[1].value.array.memory = KF_MEMORY_DEVICE;
  {
    const char *kname = "k", *sig = "void(float64[:])";
    kf_compile_options o = one_kernel(&kname, &sig, device, 2);
    kf_module *m = compile(&usesa, 1, &o, KF_OK);
    char *text = kir(m), want[160];
    snprintf(want, sizeof want, "shape = [2], strides = [4], space = \"captured\", address = %llu",
             (unsigned long long)(uintptr_t)data);
    CHECK_CONTAINS(text ? text : "", want);
    kf_free(text);
    kf_module_destroy(m);
  }
  kf_binding nodata[] = {CUDA_BINDING, {"A", v_array(NULL, KF_FLOAT32, 1, n2, NULL)}};
  expect_bad(&usesa, 1, nodata, 2, NULL, 0, "'A': an array with no data pointer (bound by the embedder)");
  kf_binding toobig[] = {CUDA_BINDING, {"A", v_int(KF_INT8, 300)}};
  expect_bad(&usesa, 1, toobig, 2, NULL, 0, "'A': 300 does not fit int8 (bound by the embedder)");
  kf_binding badkind[] = {CUDA_BINDING, {"A", v_int(KF_FLOAT32, 3)}};
  expect_bad(&usesa, 1, badkind, 2, NULL, 0, "'A': a value of kind int cannot have dtype float32 (bound by the embedder)");
  kf_value selfref = {.kind = KF_VALUE_TUPLE, .nitems = 1};
  selfref.items = &selfref; /* a cycle ends in an error, not a stack overflow */
  kf_binding cycle[] = {CUDA_BINDING, {"A", selfref}};
  cycle[1].value.items = &selfref;
  expect_bad(&usesa, 1, cycle, 2, NULL, 0, "values nested more than 64 deep");
  /* no sources */
  kf_module *m = (kf_module *)1;
  CHECK(kf_compile_sources(ctx, NULL, 0, NULL, &m) == KF_ERROR_INVALID_INPUT && m == NULL);
}

int main(void) {
  ctx = kf_context_create();
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  ro.disk_cache = 0;
  CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK);
  if (!rt) {
    fputs(kf_context_diagnostics(ctx), stderr);
    kf_context_destroy(ctx);
    return 1;
  }
  test_scalars();
  test_dtypes();
  test_complex();
  test_key();
  test_arrays();
  test_names();
  test_program_modules();
  test_language_values();
  test_slices();
  test_valued_enum_arguments();
  test_tuples_of_functions_and_arrays();
  test_fragments();
  test_specs();
  test_bad_input();
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return test_result("frontend_embed");
}
