/* runtime_devices.c — several devices through the public API on the simulator's virtual devices
 * (kf_runtime_options.sim_devices = 2 and 3): the count and properties, a runtime per device (its own
 * description, programs, compiles and caches), the calling thread's current device (per thread, and
 * KF_DEVICE_CURRENT), arrays that say their device (a launch, a reduction and a ufunc call on another device
 * refused with a message naming both; arrays that say nothing accepted as before), streams of another device
 * refused, copies between devices (peer pairs directly, the others staged through host memory in chunks; the same
 * device as a plain copy), and kf_array / kf_runtime_options keeping kfront 0.1's layout.
 * With --auto it runs on the GPUs instead, when there are at least two (test/gpu/run_multigpu.sh; fewer: it says
 * NOT RUN and exits with status 2). */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

static const char source[] =
    "from numba import cuda, vectorize\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def scale(a, k):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        a[i] = a[i] * k\n"
    "\n"
    "\n"
    "@cuda.reduce\n"
    "def total(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "@vectorize([\"float32(float32)\"], target=\"cuda\")\n"
    "def twice(x):\n"
    "    return x * 2\n";

static kf_runtime_mode mode = KF_RUNTIME_SIM;
static int ndev = 3;  /* the devices the checks use: the simulator's 3, or the GPUs there are */

static void options(kf_runtime_options *o, unsigned sim_devices, int device) {
  kf_runtime_options_init(o);
  o->mode = mode;
  o->sim_devices = sim_devices;
  o->device = device;
}

/* The layouts of KF_API_VERSION 1 (LP64): kf_array's device fills what was padding; kf_runtime_options begins with
 * its struct_size */
static void test_layout(void) {
  CHECK(sizeof(kf_array) == 160);
  CHECK(offsetof(kf_array, device) == 20 && offsetof(kf_array, shape) == 24 && offsetof(kf_array, readonly) == 152);
  CHECK(sizeof(kf_runtime_options) == 80 && offsetof(kf_runtime_options, mode) == 8);
  CHECK(offsetof(kf_runtime_options, thread_map) == 72); /* appended after the first version's last field */
  CHECK(offsetof(kf_runtime_options, sim_devices) == 36 && offsetof(kf_runtime_options, libcuda_path) == 40);
  kf_array a;
  int64_t n = 4;
  kf_array_init(&a, NULL, KF_MEMORY_DEVICE, KF_FLOAT32, 1, &n, 'C');
  CHECK(kf_array_get_device(&a) == -1 && a.device == 0);
  kf_array_set_device(&a, 2);
  CHECK(kf_array_get_device(&a) == 2);
  kf_array_set_device(&a, -1);
  CHECK(kf_array_get_device(&a) == -1);
}

static void test_count_and_info(kf_context *ctx) {
  kf_runtime_options o;
  int n = -1;
  options(&o, 3, 0);
  CHECK(kf_device_count(ctx, &o, &n) == KF_OK && n == 3);
  options(&o, 0, 0);
  CHECK(kf_device_count(ctx, &o, &n) == KF_OK && n == 1);
  o.mode = KF_RUNTIME_SIM;
  CHECK(kf_device_count(ctx, NULL, &n) == KF_OK && n >= 1);  /* the defaults: AUTO */
  options(&o, 3, 0);
  kf_device_info info;
  CHECK(kf_device_get_info(ctx, &o, 2, &info) == KF_OK && info.cc_major == 9 && info.max_threads_per_block == 1024);
  CHECK(strcmp(info.name, "kfront simulator") == 0);
  CHECK(kf_device_get_info(ctx, &o, 3, &info) == KF_ERROR_NOT_FOUND);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no simulated device 3 (there are 3)");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_device_get_info(ctx, &o, -1, &info) == KF_ERROR_NOT_FOUND);
  kf_context_clear_diagnostics(ctx);

  /* the driver's attributes by name: the simulated device's for what kf_device_info holds, else not found */
  int v = -1;
  CHECK(kf_device_get_attribute(ctx, &o, 2, "MAX_THREADS_PER_BLOCK", &v) == KF_OK && v == 1024);
  CHECK(kf_device_get_attribute(ctx, &o, 0, "COMPUTE_CAPABILITY_MAJOR", &v) == KF_OK && v == 9);
  int alias = -1;
  CHECK(kf_device_get_attribute(ctx, &o, 0, "MAX_SHARED_MEMORY_PER_BLOCK", &v) == KF_OK && v == 48 * 1024);
  CHECK(kf_device_get_attribute(ctx, &o, 0, "SHARED_MEMORY_PER_BLOCK", &alias) == KF_OK && alias == v);  /* cuda.h's
                                                                  deprecated alias of MAX_SHARED_MEMORY_PER_BLOCK */
  CHECK(kf_device_get_attribute(ctx, &o, 0, "CLOCK_RATE", &v) == KF_ERROR_NOT_FOUND && v == 0);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "the simulated device does not model the attribute CLOCK_RATE");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_device_get_attribute(ctx, &o, 0, "NO_SUCH_THING", &v) == KF_ERROR_NOT_FOUND);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no device attribute named 'NO_SUCH_THING'");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_device_get_attribute(ctx, &o, 3, "WARP_SIZE", &v) == KF_ERROR_NOT_FOUND);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no simulated device 3 (there are 3)");
  kf_context_clear_diagnostics(ctx);

  /* a runtime per device, each saying which it is */
  kf_runtime *rt = NULL;
  options(&o, 3, 1);
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK(kf_runtime_device(rt) == 1);
  CHECK(strcmp(kf_runtime_describe(rt), "simulator device 1 of 3") == 0);
  kf_runtime_destroy(rt);
  options(&o, 3, 3);
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_ERROR_NOT_FOUND && rt == NULL);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no simulated device 3 (the simulator presents 3 devices");
  kf_context_clear_diagnostics(ctx);
  options(&o, 1, 0);
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && strcmp(kf_runtime_describe(rt), "simulator") == 0);
  kf_runtime_destroy(rt);
  options(&o, 1, -2);
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
}

/* ---- the current device, per thread --------------------------------------------------------------- */

typedef struct ThreadResult {
  int seen_first, seen_after, runtime_device;
  kf_status st;
} ThreadResult;

static void *other_thread(void *arg) {
  ThreadResult *r = arg;
  r->seen_first = kf_current_device();  /* a new thread starts on device 0, whatever others selected */
  kf_set_current_device(1);
  r->seen_after = kf_current_device();
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  options(&o, 3, KF_DEVICE_CURRENT);
  kf_runtime *rt = NULL;
  r->st = kf_runtime_create(ctx, &o, &rt);
  r->runtime_device = rt ? kf_runtime_device(rt) : -1;
  if (rt) kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return NULL;
}

static void test_current_device(kf_context *ctx) {
  CHECK(kf_current_device() == 0);
  CHECK(kf_set_current_device(-1) == KF_ERROR_INVALID_INPUT && kf_current_device() == 0);
  int last = ndev - 1;
  CHECK(kf_set_current_device(last) == KF_OK && kf_current_device() == last);
  ThreadResult r = {-1, -1, -1, KF_ERROR_INTERNAL};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, other_thread, &r) == 0);
  pthread_join(t, NULL);
  CHECK(r.seen_first == 0 && r.seen_after == 1 && r.st == KF_OK && r.runtime_device == 1);
  CHECK(kf_current_device() == last);  /* the other thread's selection is its own */

  kf_runtime_options o;
  options(&o, 3, KF_DEVICE_CURRENT);
  kf_runtime *rt = NULL, *rt0 = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && kf_runtime_device(rt) == last);
  options(&o, 3, 0);
  CHECK(kf_runtime_create(ctx, &o, &rt0) == KF_OK);
  CHECK(kf_runtime_make_current(rt0) == KF_OK && kf_current_device() == 0);
  CHECK(kf_runtime_make_current(rt) == KF_OK && kf_current_device() == last);
  kf_runtime_destroy(rt);
  kf_runtime_destroy(rt0);
  kf_set_current_device(0);
  /* a current device that does not exist fails when a runtime is made for it */
  kf_set_current_device(ndev + 4);
  options(&o, 3, KF_DEVICE_CURRENT);
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_ERROR_NOT_FOUND);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), mode == KF_RUNTIME_SIM ? "no simulated device 7" : "no CUDA device");
  kf_context_clear_diagnostics(ctx);
  kf_set_current_device(0);
}

/* ---- arrays, streams and programs per device -------------------------------------------------------- */

static void fill(kf_runtime *rt, void *dev, size_t n, float base) {
  float *h = malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++) h[i] = base + (float)i;
  CHECK(kf_memcpy_to_device(rt, dev, h, n * sizeof *h, NULL) == KF_OK);
  free(h);
}

static int equals(kf_runtime *rt, const void *dev, size_t n, float base, float k) {
  float *h = malloc(n * sizeof *h);
  int ok = kf_memcpy_to_host(rt, h, dev, n * sizeof *h, NULL) == KF_OK;
  for (size_t i = 0; ok && i < n; i++) ok = h[i] == (base + (float)i) * k;
  free(h);
  return ok;
}

static void test_arrays_per_device(kf_context *ctx) {
  kf_runtime *rt[2] = {NULL, NULL};
  kf_program *prog[2] = {NULL, NULL};
  kf_function *scale[2] = {NULL, NULL};
  for (int d = 0; d < 2; d++) {
    kf_runtime_options o;
    options(&o, 2, d);
    CHECK(kf_runtime_create(ctx, &o, &rt[d]) == KF_OK);
    CHECK(kf_program_create(rt[d], "devices.py", source, sizeof source - 1, NULL, &prog[d]) == KF_OK);
    CHECK(kf_program_get_function(prog[d], "scale", &scale[d]) == KF_OK);
  }
  enum { N = 1000 };
  int64_t n = N;
  void *mem[2];
  kf_array arr[2];
  for (int d = 0; d < 2; d++) {
    CHECK(kf_device_alloc(rt[d], N * sizeof(float), &mem[d]) == KF_OK);
    fill(rt[d], mem[d], N, (float)(100 * d));
    kf_array_init(&arr[d], mem[d], KF_MEMORY_DEVICE, KF_FLOAT32, 1, &n, 'C');
    kf_array_set_device(&arr[d], d);
  }
  unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
  kf_runtime_stats s0, s1;
  /* the simulator's device memory is host memory: the device that made it is for the array to say */
  CHECK(kf_runtime_pointer_device(rt[0], mem[1]) == (mode == KF_RUNTIME_SIM ? -1 : 1));

  /* each device launches on its own arrays, compiling its own specialisation */
  kf_arg args[2] = {kf_arg_array(&arr[0]), kf_arg_float(KF_FLOAT32, 2.0)};
  CHECK(kf_function_launch(scale[0], grid, block, 0, NULL, args, 2) == KF_OK);
  kf_runtime_get_stats(rt[0], &s0);
  kf_runtime_get_stats(rt[1], &s1);
  CHECK(s0.compiles >= 1 && s0.launches == 1 && s1.compiles == 0 && s1.launches == 0);
  unsigned compiles0 = s0.compiles;
  args[0] = kf_arg_array(&arr[1]);
  args[1] = kf_arg_float(KF_FLOAT32, 3.0);
  CHECK(kf_function_launch(scale[1], grid, block, 0, NULL, args, 2) == KF_OK);
  CHECK(kf_function_launch(scale[1], grid, block, 0, NULL, args, 2) == KF_OK);
  kf_runtime_get_stats(rt[1], &s1);
  kf_runtime_get_stats(rt[0], &s0);
  CHECK(s1.compiles == compiles0 && s1.launches == 2 && s0.compiles == compiles0 && s0.launches == 1);
  CHECK(kf_function_kernels(scale[0], NULL, 0) == 1 && kf_function_kernels(scale[1], NULL, 0) == 1);
  CHECK(kf_runtime_synchronize(rt[0]) == KF_OK && kf_runtime_synchronize(rt[1]) == KF_OK);
  CHECK(equals(rt[0], mem[0], N, 0, 2));
  CHECK(equals(rt[1], mem[1], N, 100, 9));

  /* device 1's array on device 0: refused before anything runs, on the fast path too (a fingerprint seen) */
  args[0] = kf_arg_array(&arr[1]);
  args[1] = kf_arg_float(KF_FLOAT32, 5.0);
  CHECK(kf_function_launch(scale[0], grid, block, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "scale runs on device 0, but its argument 1 is an array on device 1: "
                                              "copy the array to device 0 first, or run scale on device 1");
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_ARGUMENT);
  kf_context_clear_diagnostics(ctx);
  kf_runtime_get_stats(rt[0], &s0);
  CHECK(s0.launches == 1);
  CHECK(equals(rt[1], mem[1], N, 100, 9));
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(prog[0], "scale", args, 2, &k) == KF_OK);  /* types alone: any device */
  CHECK(kf_launch(k, grid, block, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);

  /* an array that does not say its device is taken to be the runtime's own (kfront 0.1's behaviour) */
  kf_array unsaid = arr[0];
  kf_array_set_device(&unsaid, -1);
  args[0] = kf_arg_array(&unsaid);
  args[1] = kf_arg_float(KF_FLOAT32, 0.5);
  CHECK(kf_function_launch(scale[0], grid, block, 0, NULL, args, 2) == KF_OK);
  CHECK(equals(rt[0], mem[0], N, 0, 1));

  /* a stream of device 1 cannot order device 0's launch or copy */
  kf_stream *s1_stream = NULL;
  CHECK(kf_stream_create(rt[1], &s1_stream) == KF_OK);
  args[0] = kf_arg_array(&arr[0]);
  CHECK(kf_function_launch(scale[0], grid, block, 0, s1_stream, args, 2) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "scale: the stream belongs to device 1, but this runs on device 0");
  kf_context_clear_diagnostics(ctx);
  float h = 0;
  CHECK(kf_memcpy_to_host(rt[0], &h, mem[0], sizeof h, s1_stream) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(scale[1], grid, block, 0, s1_stream, (kf_arg[]){kf_arg_array(&arr[1]),
                                                                         kf_arg_float(KF_FLOAT32, 1.0)}, 2) == KF_OK);
  CHECK(kf_stream_synchronize(s1_stream) == KF_OK);
  kf_stream_destroy(s1_stream);

  /* @cuda.reduce and @vectorize refuse another device's arrays too */
  kf_function *total = NULL, *twice = NULL;
  CHECK(kf_program_get_function(prog[0], "total", &total) == KF_OK);
  CHECK(kf_program_get_function(prog[0], "twice", &twice) == KF_OK);
  kf_arg result;
  CHECK(kf_reduce(total, &arr[0], -1, NULL, NULL, &result, NULL) == KF_OK && result.value.f == (N - 1) * N / 2.0);
  CHECK(kf_reduce(total, &arr[1], -1, NULL, NULL, &result, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "total runs on device 0, but its argument 1 is an array on device 1");
  kf_context_clear_diagnostics(ctx);
  kf_arg in = kf_arg_array(&arr[1]);
  CHECK(kf_ufunc_call(twice, &in, 1, &arr[0], NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "twice runs on device 0, but its argument 1 is an array on device 1");
  kf_context_clear_diagnostics(ctx);
  in = kf_arg_array(&arr[0]);
  CHECK(kf_ufunc_call(twice, &in, 1, &arr[1], NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "twice runs on device 0, but its argument 2 is an array on device 1");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_ufunc_call(twice, &in, 1, &arr[0], NULL) == KF_OK);
  CHECK(equals(rt[0], mem[0], N, 0, 2));

  /* memory belongs to the runtime that allocated it */
  CHECK(kf_device_free(rt[0], mem[1]) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
  for (int d = 0; d < 2; d++) {
    CHECK(kf_device_free(rt[d], mem[d]) == KF_OK);
    kf_program_destroy(prog[d]);
    kf_runtime_destroy(rt[d]);
  }
}

/* ---- copies between devices ------------------------------------------------------------------------ */

static void test_copies(kf_context *ctx) {
  int nd = ndev < 3 ? ndev : 3;  /* 0 and 1, and 2 when there is one */
  kf_runtime *rt[3] = {NULL, NULL, NULL};
  for (int d = 0; d < nd; d++) {
    kf_runtime_options o;
    options(&o, 3, d);
    CHECK(kf_runtime_create(ctx, &o, &rt[d]) == KF_OK);
  }
  int can = -1;
  CHECK(kf_device_can_access_peer(rt[1], rt[1], &can) == KF_OK && can == 0);
  if (mode == KF_RUNTIME_SIM) {  /* the simulator's pairs; a GPU machine's topology is its own */
    CHECK(kf_device_can_access_peer(rt[0], rt[1], &can) == KF_OK && can == 1);
    CHECK(kf_device_can_access_peer(rt[1], rt[0], &can) == KF_OK && can == 1);
    CHECK(kf_device_can_access_peer(rt[0], rt[2], &can) == KF_OK && can == 0);
    CHECK(kf_device_can_access_peer(rt[2], rt[1], &can) == KF_OK && can == 0);
  } else {
    CHECK(kf_device_can_access_peer(rt[0], rt[1], &can) == KF_OK);
    printf("runtime_devices: device 0 %s device 1's memory directly\n", can ? "reads" : "does not read");
  }
  /* more than one staging chunk (8 MiB), so the staged path's loop runs */
  size_t n = (9u << 20) / sizeof(float) + 3;
  void *m[3] = {NULL, NULL, NULL};
  for (int d = 0; d < nd; d++) CHECK(kf_device_alloc(rt[d], n * sizeof(float), &m[d]) == KF_OK);
  int far = nd - 1;  /* device 2 on the simulator: not 0's peer */
  fill(rt[0], m[0], n, 7);
  CHECK(kf_memcpy_peer(rt[1], m[1], rt[0], m[0], n * sizeof(float), NULL) == KF_OK);  /* peers on the simulator */
  CHECK(equals(rt[1], m[1], n, 7, 1));
  if (far != 1) {
    CHECK(kf_memcpy_peer(rt[far], m[far], rt[1], m[1], n * sizeof(float), NULL) == KF_OK);  /* staged */
    CHECK(equals(rt[far], m[far], n, 7, 1));
  }
  fill(rt[far], m[far], n, -5);
  kf_stream *s = NULL;
  CHECK(kf_stream_create(rt[0], &s) == KF_OK);
  CHECK(kf_memcpy_peer(rt[0], m[0], rt[far], m[far], n * sizeof(float), s) == KF_OK);  /* staged, after the stream */
  CHECK(kf_stream_synchronize(s) == KF_OK);
  CHECK(equals(rt[0], m[0], n, -5, 1));
  CHECK(kf_memcpy_peer(rt[1], m[1], rt[0], m[0], 64, s) == KF_OK);  /* on the stream */
  CHECK(kf_stream_synchronize(s) == KF_OK && equals(rt[1], m[1], 16, -5, 1));
  if (nd == 3) {
    kf_stream *s2 = NULL;
    CHECK(kf_stream_create(rt[2], &s2) == KF_OK);
    CHECK(kf_memcpy_peer(rt[1], m[1], rt[0], m[0], 64, s2) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "the stream belongs to device 2, neither the source's (0) nor the "
                                                "destination's (1)");
    kf_context_clear_diagnostics(ctx);
    kf_stream_destroy(s2);
  }
  kf_stream_destroy(s);

  /* the same device on both sides (two runtimes of one device): a device-to-device copy */
  kf_runtime_options o;
  options(&o, 3, 0);
  kf_runtime *again = NULL;
  CHECK(kf_runtime_create(ctx, &o, &again) == KF_OK);
  CHECK(kf_device_can_access_peer(rt[0], again, &can) == KF_OK && can == 0);
  void *m0b = NULL;
  CHECK(kf_device_alloc(again, n * sizeof(float), &m0b) == KF_OK);
  CHECK(kf_memcpy_peer(again, m0b, rt[0], m[0], n * sizeof(float), NULL) == KF_OK);
  CHECK(equals(again, m0b, n, -5, 1));
  CHECK(kf_memcpy_peer(rt[0], m[0], rt[far], m[far], 0, NULL) == KF_OK);
  CHECK(kf_memcpy_peer(rt[0], m[0], NULL, m[far], 4, NULL) == KF_ERROR_INVALID_INPUT);
  kf_context_clear_diagnostics(ctx);
  kf_device_free(again, m0b);
  kf_runtime_destroy(again);
  for (int d = 0; d < nd; d++) {
    kf_device_free(rt[d], m[d]);
    kf_runtime_destroy(rt[d]);
  }
}

int main(int argc, char **argv) {
  kf_context *ctx = kf_context_create();
  if (argc > 1 && strcmp(argv[1], "--auto") == 0) {  /* the GPUs, when there are two or more */
    mode = KF_RUNTIME_GPU;
    kf_runtime_options o;
    options(&o, 3, 0);
    int n = 0;
    if (kf_device_count(ctx, &o, &n) != KF_OK || n < 2) {
      printf("runtime_devices --auto: NOT RUN: %d GPU(s) here; the multi-device checks need 2 (the simulator's "
             "run covers them: run it without --auto)\n", n);
      kf_context_destroy(ctx);
      return 2;
    }
    ndev = n;
  }
  test_layout();
  if (mode == KF_RUNTIME_SIM) test_count_and_info(ctx);
  test_current_device(ctx);
  test_arrays_per_device(ctx);
  test_copies(ctx);
  CHECK(kf_context_error_count(ctx) == 0);
  if (kf_context_error_count(ctx)) fprintf(stderr, "%s\n", kf_context_diagnostics(ctx));
  kf_context_destroy(ctx);
  return test_result("runtime_devices");
}
