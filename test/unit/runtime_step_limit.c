/* runtime_step_limit.c — a kernel that never ends, on the simulator through the public API: with
 * kf_runtime_options.sim_max_steps the launch stops with a clear error (no hang), and the runtime goes on
 * launching other kernels afterwards. */
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  o.disk_cache = 0;
  o.sim_max_steps = 100000;
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
    CHECK(kf_launch(spin, g, b, 0, NULL, &arg, 1) != KF_OK);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "step limit");
  }
  kf_context_clear_diagnostics(ctx);
  CHECK(p && kf_program_get_kernel(p, "fill", &arg, 1, &fill) == KF_OK);
  if (fill) {
    CHECK(kf_launch(fill, g, b, 0, NULL, &arg, 1) == KF_OK);
    CHECK(data[0] == 0 && data[1] == 1 && data[2] == 2 && data[3] == 3);
  }
  if (test_failures) fputs(kf_context_diagnostics(ctx), stderr);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return test_result("runtime_step_limit");
}
