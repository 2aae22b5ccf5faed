/* runtime_dispatch.c — typed dispatch through the public API on the simulator: argument-type fingerprints
 * (values never matter; dtype, rank, layout and readonly do; invalid arguments are refused), function
 * handles resolved once, specialisation hits and misses, an eager kernel whose one signature serves several
 * fingerprints, the parameter queries, the full checks on the first launch of each fingerprint, 8 threads
 * asking for a new specialisation at once compiling it once, and the runtime's pinned host memory,
 * external streams and memory info on the simulator. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime/rt.h"
#include "runtime_test.h"

static const char SOURCE[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def axpy(out, a, x, y):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = a * x[i] + y[i]\n"
    "\n"
    "@cuda.jit(\"void(float64[:], int64)\")\n"
    "def fill(out, v):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = v\n";

static kf_arg vec(double *data, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT64, 1, &n, 'C');
  return kf_arg_array(&a);
}

static void test_fingerprints(void) {
  double d[12];
  int64_t s2[2] = {3, 4};
  kf_array c, f;
  kf_array_init(&c, d, KF_MEMORY_HOST, KF_FLOAT64, 2, s2, 'C');
  kf_array_init(&f, d, KF_MEMORY_HOST, KF_FLOAT64, 2, s2, 'F');
  kf_array strided = c;
  strided.strides[1] = 16;
  strided.shape[1] = 2;
  kf_array ro = c;
  ro.readonly = 1;
  kf_arg a1[2] = {kf_arg_array(&c), kf_arg_int(KF_INT64, 1)};
  kf_arg a2[2] = {kf_arg_array(&c), kf_arg_int(KF_INT64, 99)};  /* another value, the same types */
  RtFingerprint x, y;
  CHECK(rt_fingerprint(a1, 2, &x, NULL) && rt_fingerprint(a2, 2, &y, NULL));
  CHECK(x.hash == y.hash && x.n == 2 && memcmp(x.words, y.words, 4) == 0);
  kf_arg others[5][2] = {{kf_arg_array(&f), a1[1]},          {kf_arg_array(&strided), a1[1]},
                         {kf_arg_array(&ro), a1[1]},         {a1[0], kf_arg_int(KF_INT32, 1)},
                         {a1[0], kf_arg_float(KF_FLOAT64, 1)}};
  for (int i = 0; i < 5; i++) {
    CHECK(rt_fingerprint(others[i], 2, &y, NULL));
    CHECK(memcmp(x.words, y.words, 4) != 0);
  }
  /* invalid arguments are refused with a reason */
  Diag d0;
  diag_init(&d0);
  kf_array neg = c;
  neg.shape[0] = -1;
  kf_array nodata = c;
  nodata.data = NULL;
  kf_array too_deep = c;
  too_deep.ndim = KF_MAX_RANK + 1;
  kf_arg bad[4] = {kf_arg_array(&neg), kf_arg_array(&nodata), kf_arg_array(&too_deep), kf_arg_int((kf_dtype)200, 0)};
  for (int i = 0; i < 4; i++) CHECK(!rt_fingerprint(&bad[i], 1, &y, &d0));
  CHECK(d0.nerrors == 4);
  CHECK_CONTAINS(diag_text(&d0), "argument 1: negative extent -1 in axis 0");
  CHECK_CONTAINS(diag_text(&d0), "has no data pointer");
  CHECK_CONTAINS(diag_text(&d0), "arrays of rank 9 cannot be passed to a kernel (ranks 0 to 8 are supported)");
  diag_free(&d0);
  /* a 0-d array is an array of its own (numba's array(float32, 0d, C)), not its array of one nor a scalar */
  kf_array rank0 = c, one = c;
  rank0.ndim = 0;
  one.shape[0] = 1;
  RtFingerprint z, o, s;
  kf_arg scalar = kf_arg_float(KF_FLOAT32, 1);
  CHECK(rt_fingerprint((kf_arg[]){kf_arg_array(&rank0)}, 1, &z, NULL) &&
        rt_fingerprint((kf_arg[]){kf_arg_array(&one)}, 1, &o, NULL) && rt_fingerprint(&scalar, 1, &s, NULL));
  CHECK(z.words[0] != o.words[0] && z.words[0] != s.words[0]);
  /* an empty array needs no data */
  kf_array empty = c;
  empty.data = NULL;
  empty.shape[0] = 0;
  kf_arg e = kf_arg_array(&empty);
  CHECK(rt_fingerprint(&e, 1, &y, NULL));
}

/* Enum members (scalars with a type spelling): specialised on the spelling, compared in full (not by pointer,
 * nor by hash alone), and the dispatch table keeps one entry per spelling. */
static void test_typed_scalars(void) {
  char color[] = "EnumMember(\"m.Color\", int64)", color2[] = "EnumMember(\"m.Color\", int64)",
       shape[] = "IntEnumMember(\"m.Shape\", int64)";
  kf_arg a = kf_arg_int(KF_INT64, 1), b = kf_arg_int(KF_INT64, 2), c = kf_arg_int(KF_INT64, 1), p = kf_arg_int(KF_INT64, 1);
  a.type = color;
  b.type = color2; /* the same type in another string */
  c.type = shape;
  RtFingerprint fa, fb, fc, fp;
  CHECK(rt_fingerprint(&a, 1, &fa, NULL) && rt_fingerprint(&b, 1, &fb, NULL) && rt_fingerprint(&c, 1, &fc, NULL) &&
        rt_fingerprint(&p, 1, &fp, NULL));
  CHECK(fa.typed && fb.typed && fc.typed && !fp.typed);
  CHECK(fa.hash == fb.hash && fa.hash != fc.hash && fa.words[0] != fp.words[0]);
  RtDispatch d = {0};
  RtKernel *k1 = (RtKernel *)&d, *k2 = (RtKernel *)&fa; /* any distinct pointers: the table does not look at them */
  CHECK(rt_dispatch_insert(&d, &fa, k1));
  color[0] = 'X'; /* the entry keeps a copy */
  RtDispatchEntry *e = rt_dispatch_find(&d, &fb);
  CHECK(e && e->kernel == k1);
  CHECK(!rt_dispatch_find(&d, &fc) && !rt_dispatch_find(&d, &fp));
  /* a spelling whose fingerprint collides (forced: another spelling under the same hash and words) is not found */
  RtFingerprint forged = fb;
  kf_arg other = b;
  other.type = shape;
  forged.args = &other;
  CHECK(!rt_dispatch_find(&d, &forged));
  CHECK(rt_dispatch_insert(&d, &forged, k2));
  CHECK(rt_dispatch_find(&d, &forged)->kernel == k2 && rt_dispatch_find(&d, &fb)->kernel == k1);
  rt_dispatch_free(&d);
  /* the argument signature spells the type */
  StrBuf sig;
  sb_init(&sig);
  kf_arg two[2] = {c, p};
  CHECK(rt_args_signature(two, 2, &sig, NULL));
  CHECK(strcmp(sb_cstr(&sig), "void(IntEnumMember(\"m.Shape\", int64), int64)") == 0);
  sb_free(&sig);
}

typedef struct Shared {
  kf_function *f;
  kf_kernel *got;
  kf_status st;
  pthread_barrier_t *start;
} Shared;

static void *specialize_thread(void *p) {
  Shared *s = p;
  double out[8] = {0}, x[8], y[8];
  for (int i = 0; i < 8; i++) x[i] = i, y[i] = 1;
  kf_arg args[4] = {vec(out, 8), kf_arg_float(KF_FLOAT64, 2), vec(x, 8), vec(y, 8)};
  pthread_barrier_wait(s->start);
  s->st = kf_function_specialize(s->f, args, 4, &s->got);
  if (s->st == KF_OK) {
    unsigned g[3] = {1, 1, 1}, b[3] = {8, 1, 1};
    s->st = kf_function_launch(s->f, g, b, 0, NULL, args, 4);
    for (int i = 0; i < 8 && s->st == KF_OK; i++)
      if (out[i] != 2.0 * i + 1) s->st = KF_ERROR_INTERNAL;
  }
  return NULL;
}

static void test_dispatch(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK(kf_program_create(rt, "d.py", SOURCE, strlen(SOURCE), NULL, &p) == KF_OK);
  kf_function *f = NULL, *f2 = NULL;
  CHECK(kf_program_get_function(p, "axpy", &f) == KF_OK && f);
  CHECK(kf_program_get_function(p, "axpy", &f2) == KF_OK && f2 == f);
  CHECK(kf_program_get_function(p, "", &f2) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);

  double out[8], x[8], y[8];
  for (int i = 0; i < 8; i++) x[i] = i, y[i] = 1;
  kf_arg args[4] = {vec(out, 8), kf_arg_float(KF_FLOAT64, 2), vec(x, 8), vec(y, 8)};
  kf_runtime_stats st0, st1;
  kf_runtime_get_stats(rt, &st0);
  kf_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
  CHECK(kf_function_specialize(f, args, 4, &k1) == KF_OK && k1);
  kf_runtime_get_stats(rt, &st1);
  unsigned per_compile = st1.compiles - st0.compiles;  /* the eager probe and the lazy compile */
  CHECK(per_compile == 2);
  args[1] = kf_arg_float(KF_FLOAT64, -7.5);  /* another value: a hit, nothing compiled */
  CHECK(kf_function_specialize(f, args, 4, &k2) == KF_OK && k2 == k1);
  kf_runtime_get_stats(rt, &st0);
  CHECK(st0.compiles == st1.compiles);
  args[1] = kf_arg_int(KF_INT64, 2);  /* another type: a miss, a new specialisation */
  CHECK(kf_function_specialize(f, args, 4, &k3) == KF_OK && k3 && k3 != k1);
  CHECK(strcmp(kf_kernel_signature(k1), "void(float64[::1], float64, float64[::1], float64[::1])") == 0);
  CHECK(strcmp(kf_kernel_signature(k3), "void(float64[::1], int64, float64[::1], float64[::1])") == 0);
  /* the function's kernels so far, oldest first (Numba's overloads) */
  kf_kernel *all[4] = {NULL};
  CHECK(kf_function_kernels(f, NULL, 0) == 2);
  CHECK(kf_function_kernels(f, all, 4) == 2 && all[0] == k1 && all[1] == k3 && !all[2]);
  CHECK(kf_function_kernels(f, all, 1) == 2 && all[0] == k1);

  /* parameter queries */
  CHECK(kf_kernel_param_count(k3) == 4);
  kf_param_info pi;
  CHECK(kf_kernel_param(k3, 0, &pi) == KF_OK && pi.kind == KF_ARG_ARRAY && pi.dtype == KF_FLOAT64 && pi.ndim == 1 &&
        pi.layout == 'C');
  CHECK(kf_kernel_param(k3, 1, &pi) == KF_OK && pi.kind == KF_ARG_SCALAR && pi.dtype == KF_INT64);
  CHECK(kf_kernel_param(k3, 4, &pi) == KF_ERROR_INVALID_INPUT);

  /* launches through the function: checked on the first launch of a fingerprint, then trusted */
  unsigned g[3] = {1, 1, 1}, b[3] = {8, 1, 1};
  CHECK(kf_function_launch(f, g, b, 0, NULL, args, 4) == KF_OK);
  for (int i = 0; i < 8; i++) CHECK(out[i] == 2.0 * i + 1);
  kf_arg three[3] = {args[0], args[1], args[2]};
  CHECK(kf_function_launch(f, g, b, 0, NULL, three, 3) != KF_OK);  /* another fingerprint: a new compile fails */
  kf_context_clear_diagnostics(ctx);
  /* kf_launch of k1 with k3's argument types: the full checks run and convert the scalar */
  CHECK(kf_launch(k1, g, b, 0, NULL, args, 4) == KF_OK);
  CHECK(kf_launch(k1, g, b, 0, NULL, three, 3) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel axpy takes 4 arguments");
  kf_context_clear_diagnostics(ctx);

  /* an eager kernel: one signature serves int64 and int32 scalars (two fingerprints, one kernel) */
  kf_function *fill = NULL;
  CHECK(kf_program_get_function(p, "fill", &fill) == KF_OK);
  /* numba-cuda's shared_memory_carveout: -1..100 (the simulator has no L1 to split; a GPU's driver gets it) */
  CHECK(kf_function_set_shared_memory_carveout(fill, 101) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "Carveout must be between -1 and 100, not 101");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_set_shared_memory_carveout(fill, 50) == KF_OK);
  CHECK(kf_function_set_specialized(NULL, 1) == KF_ERROR_INVALID_INPUT);
  /* specialized: a float64 array's bytes are not read as another type (integers of one width only are) */
  CHECK(kf_function_set_specialized(fill, 1) == KF_OK);
  kf_arg fa[2] = {vec(out, 8), kf_arg_int(KF_INT64, 5)};
  kf_arg fb[2] = {vec(out, 8), kf_arg_int(KF_INT32, 6)};
  kf_kernel *ka = NULL, *kb = NULL;
  CHECK(kf_function_specialize(fill, fa, 2, &ka) == KF_OK && kf_function_specialize(fill, fb, 2, &kb) == KF_OK);
  CHECK(ka && ka == kb);
  CHECK(kf_function_launch(fill, g, b, 0, NULL, fb, 2) == KF_OK && out[7] == 6.0);
  kf_arg fc[2] = {vec(out, 8), kf_arg_array(&fa[0].array)};
  CHECK(kf_function_specialize(fill, fc, 2, &kb) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel fill has no signature that matches them");
  kf_context_clear_diagnostics(ctx);

  /* 8 threads asking for one new specialisation at once: compiled once, every thread gets it */
  kf_function *fresh = NULL;
  kf_program *p2 = NULL;
  CHECK(kf_program_create(rt, "d2.py", SOURCE, strlen(SOURCE), NULL, &p2) == KF_OK);
  CHECK(kf_program_get_function(p2, "axpy", &fresh) == KF_OK);
  enum { T = 8 };
  pthread_t th[T];
  Shared sh[T];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, T);
  kf_runtime_get_stats(rt, &st0);
  for (int i = 0; i < T; i++) {
    sh[i] = (Shared){.f = fresh, .start = &start};
    pthread_create(&th[i], NULL, specialize_thread, &sh[i]);
  }
  for (int i = 0; i < T; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&start);
  kf_runtime_get_stats(rt, &st1);
  CHECK(st1.compiles - st0.compiles == per_compile);
  for (int i = 0; i < T; i++) CHECK(sh[i].st == KF_OK && sh[i].got == sh[0].got);
  if (*kf_context_diagnostics(ctx)) fputs(kf_context_diagnostics(ctx), stderr);

  kf_program_destroy(p2);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* Pinned and mapped host memory, external streams and memory info behave on the simulator. */
static void test_host_memory(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  void *h = NULL, *dp = NULL, *dev = NULL;
  CHECK(kf_host_alloc(rt, 64, KF_HOST_MAPPED, &h) == KF_OK && h);
  CHECK(kf_host_device_pointer(rt, h, &dp) == KF_OK && dp == h);
  memset(h, 7, 64);
  CHECK(kf_device_alloc(rt, 64, &dev) == KF_OK);
  kf_stream *ext = NULL;
  CHECK(kf_stream_wrap(rt, (void *)0x1234, &ext) == KF_OK && kf_stream_handle(ext) == (void *)0x1234);
  CHECK(kf_memcpy_to_device(rt, dev, h, 64, ext) == KF_OK && kf_stream_synchronize(ext) == KF_OK);
  CHECK(((unsigned char *)dev)[63] == 7);
  kf_stream_destroy(ext);  /* forgets it, destroys nothing */
  char buf[32];
  CHECK(kf_host_register(rt, buf, sizeof buf, 0) == KF_OK && kf_host_unregister(rt, buf) == KF_OK);
  CHECK(kf_host_register(rt, NULL, 0, 0) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
  size_t free_b = 0, total_b = 0;
  CHECK(kf_runtime_memory_info(rt, &free_b, &total_b) == KF_OK && total_b > 0 && free_b <= total_b);
  CHECK(kf_host_free(rt, h) == KF_OK);
  CHECK(kf_device_free(rt, dev) == KF_OK);
  CHECK(kf_device_free(rt, dev) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
  /* managed memory is the simulator's device memory, which the host uses as it is; freed as device memory */
  void *managed = NULL, *base = NULL;
  size_t bytes = 0;
  CHECK(kf_managed_alloc(rt, 32, KF_MANAGED_ATTACH_HOST, &managed) == KF_OK && managed);
  memset(managed, 3, 32);
  CHECK(kf_memset_device(rt, managed, 9, 16, NULL) == KF_OK && ((unsigned char *)managed)[15] == 9 &&
        ((unsigned char *)managed)[16] == 3);
  /* the simulator knows its allocations: the range of one, and no range for an address none holds */
  CHECK(kf_pointer_range(rt, (char *)managed + 5, &base, &bytes) == KF_OK && base == managed && bytes == 32);
  CHECK(kf_pointer_range(rt, (void *)(uintptr_t)0x1000, &base, &bytes) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "0x1000 is not an address of the simulated device's memory");
  kf_context_clear_diagnostics(ctx);
  /* copies and memsets into memory the simulator never handed out (or freed) are refused, not dereferenced */
  unsigned char host[64] = {0};
  CHECK(kf_memcpy_to_host(rt, host, (void *)(uintptr_t)0xdead0000, 16, NULL) == KF_ERROR_DEVICE);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "the 16 bytes at 0xdead0000 are not memory of the simulated device");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_memcpy_to_device(rt, (char *)managed + 16, host, 17, NULL) == KF_ERROR_DEVICE); /* one byte past it */
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_memset_device(rt, (void *)(uintptr_t)0xdead0000, 0, 8, NULL) == KF_ERROR_DEVICE);
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_device_free(rt, managed) == KF_OK);
  CHECK(kf_memcpy_to_host(rt, host, managed, 16, NULL) == KF_ERROR_DEVICE); /* freed */
  kf_context_clear_diagnostics(ctx);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

int main(void) {
  test_fingerprints();
  test_typed_scalars();
  test_dispatch();
  test_host_memory();
  return test_result("runtime_dispatch");
}
