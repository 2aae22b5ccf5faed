// A foreign device function with numba-cuda's ABI: the result through the first pointer, 0 for success.
extern "C" __device__ int mul_f32_f32(float *ret, float x, float y) {
  *ret = x * y;
  return 0;
}
