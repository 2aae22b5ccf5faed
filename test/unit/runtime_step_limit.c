/* runtime_step_limit.c — a kernel that never ends, on the simulator through the public API: with
 * kf_runtime_options.sim_max_steps, or sim_max_seconds (a wall-clock limit), the launch stops with a clear
 * error naming the option (no hang), and the runtime goes on launching other kernels afterwards; the time
 * limit also stops a launch of very many short blocks (the largest grid). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

static const char *SOURCE =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def spin(a):\n"
    "    i = 0\n"
    "    while a[0] >= 0:\n"
    "        i += 1\n"
    "    a[0] = i\n"
    "\n"
    "@cuda.jit\n"
    "def fill(a):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        a[i] = i\n";

/* Launches spin (which never ends) on a runtime with the given limits; then fill, which must still work. */
static void spin_then_fill(uint64_t max_steps, double max_seconds, const char *message) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  o.disk_cache = 0;
  o.sim_max_steps = max_steps;
  o.sim_max_seconds = max_seconds;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  kf_program *p = NULL;
  CHECK(rt && kf_program_create(rt, "spin.py", SOURCE, strlen(SOURCE), NULL, &p) == KF_OK);
  int64_t data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_INT64, 1, shape, 'C');
  kf_arg arg = kf_arg_array(&a);
  unsigned g[3] = {1, 1, 1}, b[3] = {4, 1, 1};
  kf_kernel *spin = NULL, *fill = NULL;
  CHECK(p && kf_program_get_kernel(p, "spin", &arg, 1, &spin) == KF_OK);
  if (spin) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(kf_launch(spin, g, b, 0, NULL, &arg, 1) != KF_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    CHECK_CONTAINS(kf_context_diagnostics(ctx), message);
    if (max_seconds > 0) CHECK(took >= max_seconds && took < max_seconds + 5);
  }
  kf_context_clear_diagnostics(ctx);
  CHECK(p && kf_program_get_kernel(p, "fill", &arg, 1, &fill) == KF_OK);
  if (fill) {
    CHECK(kf_launch(fill, g, b, 0, NULL, &arg, 1) == KF_OK);
    CHECK(data[0] == 0 && data[1] == 1 && data[2] == 2 && data[3] == 3);
    /* the largest grid of short blocks: only the time limit ends it soon (grid-stride loops in one thread) */
    if (max_seconds > 0) {
      unsigned big[3] = {2147483647u, 65535, 65535}, blk[3] = {1024, 1, 1};
      CHECK(kf_launch(fill, big, blk, 0, NULL, &arg, 1) != KF_OK);
      CHECK_CONTAINS(kf_context_diagnostics(ctx), "simulation time limit exceeded");
    }
  }
  if (test_failures) fputs(kf_context_diagnostics(ctx), stderr);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

int main(void) {
  spin_then_fill(100000, 0, "simulation step limit exceeded (100000 ops in the launch; "
                            "kf_runtime_options.sim_max_steps, kfront run --sim-max-steps) in kernel spin at spin.py:6:");
  spin_then_fill(0, 0.3, "simulation time limit exceeded (0.3 s; kf_runtime_options.sim_max_seconds, kfront run "
                         "--sim-max-seconds) in kernel spin at spin.py:");
  return test_result("runtime_step_limit");
}
