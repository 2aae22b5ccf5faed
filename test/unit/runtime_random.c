/* runtime_random.c — numba.cuda.random from C: kf_xoroshiro128p_init_states against SplitMix64's published
 * outputs and the jump relation between generators (generator i+1 is generator i jumped, subsequence_start
 * skips whole generators), kf_xoroshiro128p_init_device on a simulated device, and a kernel from Python source
 * drawing with numba.cuda.random's device functions (kfront's prelude) on the states as a 1-D array of
 * KF_XOROSHIRO128P_RECORD records, compared with a reimplementation in C of numba-cuda's xoroshiro128+ and its float
 * conversion; the same memory as a uint64 (n, 2) array is refused at the call. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

static uint64_t rotl(uint64_t x, unsigned k) { return (x << k) | (x >> (64 - k)); }

static uint64_t ref_next(uint64_t s[2]) {
  uint64_t s0 = s[0], s1 = s[1], r = s0 + s1;
  s1 ^= s0;
  s[0] = rotl(s0, 55) ^ s1 ^ (s1 << 14);
  s[1] = rotl(s1, 36);
  return r;
}

static const char SOURCE[] =
    "from numba import cuda\n"
    "from numba.cuda.random import xoroshiro128p_uniform_float64, xoroshiro128p_next\n"
    "\n"
    "@cuda.jit\n"
    "def draw(states, u, raw):\n"
    "    t = cuda.grid(1)\n"
    "    if t < states.shape[0]:\n"
    "        u[t] = xoroshiro128p_uniform_float64(states, t)\n"
    "        raw[t] = xoroshiro128p_next(states, t)\n";

static void test_host(void) {
  uint64_t s[2 * 4];
  kf_xoroshiro128p_init_states(s, 1, 0, 0);
  CHECK(s[0] == 0xE220A8397B1DCDAFull && s[1] == 0xE220A8397B1DCDAFull); /* SplitMix64(0)'s first output */
  kf_xoroshiro128p_init_states(s, 1, 1, 0);
  CHECK(s[0] == 0x910A2DEC89025CC1ull);                                   /* SplitMix64(1)'s */
  kf_xoroshiro128p_init_states(s, 4, 5, 0);
  uint64_t t[2 * 2];
  kf_xoroshiro128p_init_states(t, 2, 5, 2);
  CHECK(memcmp(t, s + 4, sizeof t) == 0);
  CHECK(s[2] != s[0] && s[3] != s[1]);
  kf_xoroshiro128p_init_states(NULL, 0, 5, 0); /* nothing to do */
}

static void test_device(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  enum { N = 50 };
  void *d = NULL;
  CHECK(kf_device_alloc(rt, N * 16, &d) == KF_OK && d);
  CHECK(kf_xoroshiro128p_init_device(rt, d, N, 77, 0, NULL) == KF_OK);
  uint64_t host[2 * N], ref[2 * N];
  CHECK(kf_memcpy_to_host(rt, host, d, sizeof host, NULL) == KF_OK);
  kf_xoroshiro128p_init_states(ref, N, 77, 0);
  CHECK(memcmp(host, ref, sizeof host) == 0);

  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "draw.py", SOURCE, sizeof SOURCE - 1, NULL, &p) == KF_OK);
  double u[N];
  uint64_t raw[N];
  int64_t sshape[2] = {N, 2}, n[1] = {N};
  kf_dtype rec;
  CHECK(kf_dtype_record(ctx, KF_XOROSHIRO128P_RECORD, &rec) == KF_OK && kf_dtype_size(rec) == 16);
  kf_array sa, ua, ra, rows;
  kf_array_init(&sa, d, KF_MEMORY_DEVICE, rec, 1, n, 'C');
  kf_array_init(&rows, d, KF_MEMORY_DEVICE, KF_UINT64, 2, sshape, 'C');
  kf_array_init(&ua, u, KF_MEMORY_HOST, KF_FLOAT64, 1, n, 'C');
  kf_array_init(&ra, raw, KF_MEMORY_HOST, KF_UINT64, 1, n, 'C');
  kf_arg args[3] = {kf_arg_array(&sa), kf_arg_array(&ua), kf_arg_array(&ra)};
  kf_kernel *k = NULL;
  kf_arg bad[3] = {kf_arg_array(&rows), kf_arg_array(&ua), kf_arg_array(&ra)};
  CHECK(p && kf_program_get_kernel(p, "draw", bad, 3, &k) != KF_OK && !k);
  CHECK(strstr(kf_context_diagnostics(ctx), "draw.py:8:46: error: xoroshiro128p_uniform_float64() takes numba.cuda.random's "
                                             "state array, a 1-D array of xoroshiro128p_dtype records") != NULL);
  CHECK(p && kf_program_get_kernel(p, "draw", args, 3, &k) == KF_OK && k);
  if (k) {
    unsigned g[3] = {2, 1, 1}, b[3] = {32, 1, 1};
    CHECK(kf_launch(k, g, b, 0, NULL, args, 3) == KF_OK);
    bool same = true;
    for (int i = 0; i < N; i++) {
      uint64_t *s = &ref[2 * i];
      double want = (double)(ref_next(s) >> 11) * (1.0 / 9007199254740992.0);
      same = same && u[i] == want && raw[i] == ref_next(s);
    }
    CHECK(same);
    CHECK(kf_memcpy_to_host(rt, host, d, sizeof host, NULL) == KF_OK);
    CHECK(memcmp(host, ref, sizeof host) == 0); /* advanced in place */
  } else {
    fputs(kf_context_diagnostics(ctx), stderr);
  }
  kf_program_destroy(p);
  kf_device_free(rt, d);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

int main(void) {
  test_host();
  test_device();
  return test_result("runtime_random");
}
