/* params.c — kernel parameters as include/kfront/abi.h lays them out, and scalar conversions (to a kir
 * type, and reading a stored scalar back).
 *
 * Every parameter slot gets 8 bytes of storage (enough for any scalar, pointer or int64), so the pointer
 * array handed to cuLaunchKernel is built once per kernel and only the values change per launch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op_semantics.h"
#include "kfront/abi.h"
#include "runtime/runtime.h"
#include "utils/mem.h"

unsigned rt_param_slots(Type *const *params, unsigned nparams) {
  unsigned n = 0;
  for (unsigned i = 0; i < nparams; i++)
    n += params[i]->kind == TY_COMPLEX ? KF_ABI_COMPLEX_PARAMS : kf_abi_param_count(ty_abi_rank(params[i]));
  return n;
}

bool rt_params_init(RtParams *p, Type *const *params, unsigned nparams) {
  p->nslots = rt_param_slots(params, nparams);
  p->storage = mem_calloc(p->nslots ? p->nslots : 1, sizeof *p->storage);
  p->ptrs = mem_calloc(p->nslots ? p->nslots : 1, sizeof *p->ptrs);
  if (!p->storage || !p->ptrs) {
    rt_params_free(p);
    return false;
  }
  for (unsigned i = 0; i < p->nslots; i++) p->ptrs[i] = &p->storage[i];
  return true;
}

void rt_params_free(RtParams *p) {
  mem_free(p->storage);
  mem_free(p->ptrs);
  memset(p, 0, sizeof *p);
}

void rt_params_pack(RtParams *p, Type *const *params, unsigned nparams, const kf_arg *args,
                    const uint64_t *device_data) {
  unsigned k = 0;
  for (unsigned i = 0; i < nparams; i++) {
    if (params[i]->kind == TY_RECORD) { /* a record (a 0-d array of one): as an array of one */
      p->storage[k++] = device_data[i];
      p->storage[k++] = 1;
      p->storage[k++] = params[i]->size;
    } else if (params[i]->kind == TY_ARRAY) {
      const kf_array *a = &args[i].array;
      p->storage[k++] = device_data[i];
      for (unsigned d = 0; d < a->ndim; d++) p->storage[k++] = (uint64_t)a->shape[d];
      for (unsigned d = 0; d < a->ndim; d++) p->storage[k++] = (uint64_t)a->strides[d];
    } else if (params[i]->kind == TY_COMPLEX) {
      p->storage[k] = p->storage[k + 1] = 0;
      rt_convert_complex(&args[i], params[i], &p->storage[k], &p->storage[k + 1]);
      k += 2;
    } else {
      p->storage[k] = 0;
      rt_convert_scalar(&args[i], params[i], &p->storage[k]);
      k++;
    }
  }
}

/* ---- scalars --------------------------------------------------------------------------------- */

void rt_convert_scalar(const kf_arg *a, const Type *to, void *out) {
  /* (a complex value reaches a real type only as its real part: rt_convert_complex) */
  bool from_float = rt_dtype_is_float(a->dtype) || rt_dtype_is_complex(a->dtype), from_unsigned = rt_dtype_is_unsigned(a->dtype);
  switch (to->kind) {
  case TY_BOOL: {
    uint8_t v = from_float ? a->value.f != 0 : from_unsigned ? a->value.u != 0 : a->value.i != 0;
    memcpy(out, &v, 1);
    return;
  }
  case TY_PTR: /* an address: its 64 bits (rt_arg_fits takes integers only) */
  case TY_INT: {
    uint64_t bits = from_float ? sem_float_to_int(a->value.f, to->bits, !to->is_unsigned)
                    : from_unsigned ? a->value.u : (uint64_t)a->value.i;
    /* little-endian: the low bytes are the narrower integer (wrapping, as a C cast does) */
    uint8_t b8 = (uint8_t)bits;
    uint16_t b16 = (uint16_t)bits;
    uint32_t b32 = (uint32_t)bits;
    switch (to->bits) {
    case 8: memcpy(out, &b8, 1); return;
    case 16: memcpy(out, &b16, 2); return;
    case 32: memcpy(out, &b32, 4); return;
    default: memcpy(out, &bits, 8); return;
    }
  }
  case TY_FLOAT: {
    if (to->bits == 32) {
      float f = from_float ? (float)a->value.f : from_unsigned ? (float)a->value.u : (float)a->value.i;
      memcpy(out, &f, 4);
      return;
    }
    double d = from_float ? a->value.f : from_unsigned ? (double)a->value.u : (double)a->value.i;
    if (to->bits == 16) {
      uint16_t h = sem_narrow_bits(sem_ty(to), d);
      memcpy(out, &h, 2);
    } else {
      memcpy(out, &d, 8);
    }
    return;
  }
  default: return;
  }
}

void rt_convert_complex(const kf_arg *a, const Type *to, void *re, void *im) {
  kf_arg r = *a, i = *a;
  if (rt_dtype_is_complex(a->dtype)) {
    r.dtype = i.dtype = KF_FLOAT64;
    i.value.f = a->imag;
  } else {
    i.dtype = KF_FLOAT64;
    i.value.f = 0;
  }
  rt_convert_scalar(&r, to->elem, re);
  rt_convert_scalar(&i, to->elem, im);
}

void rt_convert_to_dtype(const kf_arg *a, kf_dtype to, void *out) {
  Type t = {.kind = to == KF_BOOL ? TY_BOOL : rt_dtype_is_float(to) ? TY_FLOAT : TY_INT,
            .bits = to == KF_BOOL ? 1 : (unsigned)rt_dtype_size(to) * 8, .is_unsigned = rt_dtype_is_unsigned(to),
            .bfloat = to == KF_BFLOAT16};
  rt_convert_scalar(a, &t, out);
}

kf_arg rt_scalar_read(const void *p, kf_dtype t) {
  kf_arg a;
  memset(&a, 0, sizeof a);
  a.kind = KF_ARG_SCALAR;
  a.dtype = t;
  switch (t) {
  case KF_BOOL: a.value.i = *(const uint8_t *)p != 0; break;
  case KF_INT8: a.value.i = *(const int8_t *)p; break;
  case KF_INT16: { int16_t v; memcpy(&v, p, 2); a.value.i = v; break; }
  case KF_INT32: { int32_t v; memcpy(&v, p, 4); a.value.i = v; break; }
  case KF_INT64: memcpy(&a.value.i, p, 8); break;
  case KF_UINT8: a.value.u = *(const uint8_t *)p; break;
  case KF_UINT16: { uint16_t v; memcpy(&v, p, 2); a.value.u = v; break; }
  case KF_UINT32: { uint32_t v; memcpy(&v, p, 4); a.value.u = v; break; }
  case KF_UINT64: memcpy(&a.value.u, p, 8); break;
  case KF_FLOAT16: { uint16_t h; memcpy(&h, p, 2); a.value.f = sem_f16_value(h); break; }
  case KF_FLOAT32: { float v; memcpy(&v, p, 4); a.value.f = v; break; }
  case KF_FLOAT64: memcpy(&a.value.f, p, 8); break;
  case KF_COMPLEX64: { float v[2]; memcpy(v, p, 8); a.value.f = v[0]; a.imag = v[1]; break; }
  case KF_COMPLEX128: { double v[2]; memcpy(v, p, 16); a.value.f = v[0]; a.imag = v[1]; break; }
  case KF_BFLOAT16: { uint16_t h; memcpy(&h, p, 2); a.value.f = sem_bf16_value(h); break; }
  default: if (rt_dtype_is_time(t)) memcpy(&a.value.i, p, 8); break; /* datetime64/timedelta64: an int64 */
  }
  return a;
}

void rt_array_span(const kf_array *a, int64_t *lo, int64_t *hi) {
  *lo = *hi = 0;
  for (unsigned d = 0; d < a->ndim; d++)
    if (a->shape[d] == 0) return;
  int64_t l = 0, h = 0;
  for (unsigned d = 0; d < a->ndim; d++) {
    int64_t reach = (a->shape[d] - 1) * a->strides[d];
    if (reach < 0) l += reach;
    else h += reach;
  }
  *lo = l;
  *hi = h + (int64_t)rt_dtype_size(a->dtype);
}
