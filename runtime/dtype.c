/* dtype.c — the runtime's element types (kf_dtype: size, Numba's name, parsing, NumPy's safe casts) and
 * host-side array facts (element count, contiguity as NumPy defines it, gathering elements in C order). One
 * table for every dtype. */
#include <string.h>

#include "runtime/runtime.h"

static const struct {
  const char *name, *short_name;
  size_t size;
  bool is_float, is_unsigned, is_complex;
} dtypes[KF_DTYPE_COUNT] = {
    [KF_BOOL] = {"boolean", "b1", 1},
    [KF_INT8] = {"int8", "i8", 1},
    [KF_INT16] = {"int16", "i16", 2},
    [KF_INT32] = {"int32", "i32", 4},
    [KF_INT64] = {"int64", "i64", 8},
    [KF_UINT8] = {"uint8", "u8", 1, false, true},
    [KF_UINT16] = {"uint16", "u16", 2, false, true},
    [KF_UINT32] = {"uint32", "u32", 4, false, true},
    [KF_UINT64] = {"uint64", "u64", 8, false, true},
    [KF_FLOAT16] = {"float16", "f16", 2, true},
    [KF_FLOAT32] = {"float32", "f32", 4, true},
    [KF_FLOAT64] = {"float64", "f64", 8, true},
    [KF_COMPLEX64] = {"complex64", "c8", 8, false, false, true},
    [KF_COMPLEX128] = {"complex128", "c16", 16, false, false, true},
    [KF_BFLOAT16] = {"bfloat16", "bf16", 2, true},
};

size_t rt_dtype_size(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT ? dtypes[t].size : 0; }
const char *rt_dtype_name(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT ? dtypes[t].name : "invalid"; }
bool rt_dtype_is_float(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT && dtypes[t].is_float; }
bool rt_dtype_is_unsigned(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT && dtypes[t].is_unsigned; }
bool rt_dtype_is_complex(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT && dtypes[t].is_complex; }

bool rt_dtype_parse(const char *text, kf_dtype *out) {
  if (!text) return false;
  for (int i = 0; i < KF_DTYPE_COUNT; i++) {
    if (strcmp(text, dtypes[i].name) == 0 || strcmp(text, dtypes[i].short_name) == 0) {
      *out = (kf_dtype)i;
      return true;
    }
  }
  if (strcmp(text, "bool") == 0 || strcmp(text, "bool_") == 0) {
    *out = KF_BOOL;
    return true;
  }
  return false;
}

void rt_array_init(kf_array *a, void *data, kf_memory memory, kf_dtype dtype, unsigned ndim, const int64_t *shape,
                   char order) {
  memset(a, 0, sizeof *a);
  a->data = data;
  a->memory = memory;
  a->dtype = dtype;
  a->ndim = ndim > KF_MAX_RANK ? KF_MAX_RANK : ndim;
  int64_t stride = (int64_t)rt_dtype_size(dtype);
  for (unsigned k = 0; k < a->ndim; k++) {
    unsigned d = order == 'F' ? k : a->ndim - 1 - k;
    a->shape[d] = shape[d];
    a->strides[d] = stride;
    stride *= shape[d] > 0 ? shape[d] : 1;
  }
}

size_t rt_array_size(const kf_array *a) {
  size_t n = 1;
  for (unsigned d = 0; d < a->ndim && d < KF_MAX_RANK; d++) n *= a->shape[d] > 0 ? (size_t)a->shape[d] : 0;
  return n;
}

bool rt_array_is_contiguous(const kf_array *a, char order) {
  if (a->ndim > KF_MAX_RANK) return false;
  if (rt_array_size(a) == 0) return true;
  int64_t want = (int64_t)rt_dtype_size(a->dtype);
  for (unsigned k = 0; k < a->ndim; k++) {
    unsigned d = order == 'F' ? k : a->ndim - 1 - k;
    if (a->shape[d] == 1) continue;
    if (a->strides[d] != want) return false;
    want *= a->shape[d];
  }
  return true;
}

bool rt_dtype_can_cast(kf_dtype from, kf_dtype to) {
  if ((unsigned)from >= KF_DTYPE_COUNT || (unsigned)to >= KF_DTYPE_COUNT) return false;
  if (from == to || from == KF_BOOL) return true;
  if (to == KF_BOOL) return false;
  size_t fs = dtypes[from].size, ts = dtypes[to].size;
  /* bfloat16 to f32 and f64 (NumPy with ml_dtypes: "safe"); nothing else to or from it but bool */
  if (from == KF_BFLOAT16 || to == KF_BFLOAT16) return from == KF_BFLOAT16 && (to == KF_FLOAT32 || to == KF_FLOAT64);
  if (dtypes[from].is_complex) return dtypes[to].is_complex && ts >= fs;
  if (dtypes[to].is_complex) /* as to a float of half its size */
    return rt_dtype_can_cast(from, ts == 8 ? KF_FLOAT32 : KF_FLOAT64);
  if (dtypes[from].is_float) return dtypes[to].is_float && ts >= fs;
  /* integers: to a float that holds every value (and, as NumPy says, int64/uint64 to float64) */
  if (dtypes[to].is_float) return ts > fs || to == KF_FLOAT64;
  if (dtypes[from].is_unsigned) return dtypes[to].is_unsigned ? ts >= fs : ts > fs;
  return !dtypes[to].is_unsigned && ts >= fs;
}

void rt_array_gather(const kf_array *a, void *dst) {
  size_t isz = rt_dtype_size(a->dtype), n = rt_array_size(a);
  int64_t idx[KF_MAX_RANK] = {0};
  for (size_t e = 0; e < n; e++) {
    int64_t off = 0;
    for (unsigned d = 0; d < a->ndim; d++) off += idx[d] * a->strides[d];
    memcpy((char *)dst + e * isz, (const char *)a->data + off, isz);
    for (int d = (int)a->ndim - 1; d >= 0; d--) {
      if (++idx[d] < a->shape[d]) break;
      idx[d] = 0;
    }
  }
}
