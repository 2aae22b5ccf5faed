/* random_states.c — the host side of numba.cuda.random: xoroshiro128+ states initialised as numba-cuda's
 * init_xoroshiro128p_states does it on the CPU (random.py): state 0 from the seed by SplitMix64 (s0 = s1 = z),
 * advanced by subsequence_start jumps of 2**64 steps, then each next state the previous one jumped once, so that
 * the generators' sequences do not overlap. The states are n numba-cuda xoroshiro128p_dtype records (s0, s1: uint64,
 * 16 bytes each), seen here as 2n uint64, the records the device functions (frontend/random.c) read. */
#include <stdint.h>

#include "runtime/rt.h"
#include "utils/mem.h"

static uint64_t rotl(uint64_t x, unsigned k) { return (x << k) | (x >> (64 - k)); }

static void next(uint64_t s[2]) {
  uint64_t s0 = s[0], s1 = s[1] ^ s0;
  s[0] = rotl(s0, 55) ^ s1 ^ (s1 << 14);
  s[1] = rotl(s1, 36);
}

/* 2**64 steps ahead: numba-cuda's jump polynomial. */
static void jump(uint64_t s[2]) {
  static const uint64_t poly[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};
  uint64_t j0 = 0, j1 = 0;
  for (int i = 0; i < 2; i++)
    for (int b = 0; b < 64; b++) {
      if (poly[i] & (1ull << b)) {
        j0 ^= s[0];
        j1 ^= s[1];
      }
      next(s);
    }
  s[0] = j0;
  s[1] = j1;
}

void rt_xoroshiro128p_init(uint64_t *states, size_t n, uint64_t seed, uint64_t subsequence_start) {
  if (n == 0) return;
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  states[0] = states[1] = z;
  for (uint64_t k = 0; k < subsequence_start; k++) jump(states);
  for (size_t i = 1; i < n; i++) {
    states[2 * i] = states[2 * i - 2];
    states[2 * i + 1] = states[2 * i - 1];
    jump(&states[2 * i]);
  }
}

kf_status rt_xoroshiro128p_init_device(RtRuntime *rt, void *dptr, size_t n, uint64_t seed, uint64_t subsequence_start,
                                       RtStream *s) {
  if (n == 0) return KF_OK;
  if (n > SIZE_MAX / 16) {
    diag_error(rt->diag, srcloc(NULL, 0, 0), "xoroshiro128p states: %zu generators do not fit in memory", n);
    return KF_ERROR_INVALID_INPUT;
  }
  uint64_t *buf = mem_alloc(n * 16);
  if (!buf) return rt_out_of_memory(rt);
  rt_xoroshiro128p_init(buf, n, seed, subsequence_start);
  kf_status st = rt_copy(rt, RT_COPY_HTOD, dptr, buf, n * 16, s);
  if (st == KF_OK && s) st = rt_stream_synchronize(s); /* the buffer is freed next */
  mem_free(buf);
  return st;
}
