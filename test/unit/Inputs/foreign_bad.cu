// A .cu that does not compile: NVRTC's error is reported at line 4 of this file.
extern "C" __device__ int mul_f32_f32(float *ret, float x, float y) {
  *ret = x * y;
  NOT VALID C++
  return 0;
}
