/* check.c — what the runtime checks before it launches, for the GPU and the simulator alike:
 * argument types (dtype, rank, layout) against a kernel's parameters, launch dimensions, threads per
 * block and shared memory against the device's limits. Also the names: dtypes <-> kir types, Numba's
 * spelling of types and signatures (the signature of a lazy kernel is spelt from its arguments and handed
 * to the frontend), and the texts of the error record's errors (an IndexError, a raised exception). */
#include <inttypes.h>
#include <string.h>

#include "frontend/compile.h"
#include "frontend/fe.h"  /* numba's conversion kinds of numbers (nb_can_convert), nb_type_signature */
#include "runtime/runtime.h"
#include "utils/mem.h"

/* ---- dtypes and types ------------------------------------------------------------------------ */

Type *rt_dtype_type(IrContext *ctx, kf_dtype t) {
  switch (t) {
  case KF_BOOL: return ty_bool(ctx);
  case KF_INT8: return ty_int(ctx, 8, false);
  case KF_INT16: return ty_int(ctx, 16, false);
  case KF_INT32: return ty_int(ctx, 32, false);
  case KF_INT64: return ty_int(ctx, 64, false);
  case KF_UINT8: return ty_int(ctx, 8, true);
  case KF_UINT16: return ty_int(ctx, 16, true);
  case KF_UINT32: return ty_int(ctx, 32, true);
  case KF_UINT64: return ty_int(ctx, 64, true);
  case KF_FLOAT16: return ty_float(ctx, 16);
  case KF_FLOAT32: return ty_float(ctx, 32);
  case KF_FLOAT64: return ty_float(ctx, 64);
  case KF_COMPLEX64: return ty_complex(ctx, ty_float(ctx, 32));
  case KF_COMPLEX128: return ty_complex(ctx, ty_float(ctx, 64));
  case KF_BFLOAT16: return ty_bf16(ctx);
  }
  if (rt_dtype_is_time(t)) {
    bool dt = (unsigned)t < KF_DTYPE_TIMEDELTA64;
    return ty_time(ctx, dt, (TimeUnit)((unsigned)t - (dt ? KF_DTYPE_DATETIME64 : KF_DTYPE_TIMEDELTA64)));
  }
  return rt_record_type(ctx, t);
}

bool rt_type_dtype(const Type *t, kf_dtype *out) {
  switch (t->kind) {
  case TY_BOOL: *out = KF_BOOL; return true;
  case TY_INT:
    if (t->time) {
      *out = (kf_dtype)((t->datetime ? KF_DTYPE_DATETIME64 : KF_DTYPE_TIMEDELTA64) + ty_time_unit(t));
      return true;
    }
    switch (t->bits) {
    case 8: *out = t->is_unsigned ? KF_UINT8 : KF_INT8; return true;
    case 16: *out = t->is_unsigned ? KF_UINT16 : KF_INT16; return true;
    case 32: *out = t->is_unsigned ? KF_UINT32 : KF_INT32; return true;
    case 64: *out = t->is_unsigned ? KF_UINT64 : KF_INT64; return true;
    }
    return false;
  case TY_FLOAT:
    switch (t->bits) {
    case 16: *out = t->bfloat ? KF_BFLOAT16 : KF_FLOAT16; return true;
    case 32: *out = KF_FLOAT32; return true;
    case 64: *out = KF_FLOAT64; return true;
    }
    return false;
  case TY_RECORD: return rt_record_dtype_of(t, out);
  case TY_COMPLEX: *out = t->elem->bits == 32 ? KF_COMPLEX64 : KF_COMPLEX128; return true;
  default: return false;
  }
}

char rt_array_layout(const kf_array *a) {
  if (rt_array_is_contiguous(a, 'C')) return 'C';
  if (rt_array_is_contiguous(a, 'F')) return 'F';
  return 'A';
}

static bool declared_readonly(const Attr *ro, unsigned i);

void rt_signature_numba(Type *const *params, unsigned nparams, const Attr *readonly, StrBuf *out) {
  sb_puts(out, "void(");
  for (unsigned i = 0; i < nparams; i++) {
    if (i) sb_puts(out, ", ");
    const Type *t = params[i];
    if (t->kind == TY_ARRAY && declared_readonly(readonly, i)) { /* no slice syntax spells a readonly array */
      sb_puts(out, "Array(");
      nb_type_signature(t->elem, out);
      sb_printf(out, ", %u, '%c', readonly=True)", t->rank,
                t->layout == LAYOUT_C ? 'C' : t->layout == LAYOUT_F ? 'F' : 'A');
      continue;
    }
    nb_type_signature(params[i], out);
  }
  sb_putc(out, ')');
}

static bool check_arg_valid(const kf_arg *a, unsigned i, Diag *diag) {
  if (a->kind == KF_ARG_TUPLE) {
    if (a->nitems && !a->items) {
      diag_error(diag, srcloc(NULL, 0, 0), "argument %u: a tuple of %u items without them", i + 1, a->nitems);
      return false;
    }
    for (unsigned k = 0; k < a->nitems; k++)
      if (!check_arg_valid(&a->items[k], i, diag)) return false;
    return true;
  }
  if (a->kind == KF_ARG_SCALAR) {
    if (rt_dtype_size(a->dtype) == 0) {
      diag_error(diag, srcloc(NULL, 0, 0), "argument %u: invalid scalar dtype %d", i + 1, (int)a->dtype);
      return false;
    }
    return true;
  }
  if (a->kind != KF_ARG_ARRAY) {
    diag_error(diag, srcloc(NULL, 0, 0), "argument %u: invalid argument kind %d", i + 1, (int)a->kind);
    return false;
  }
  const kf_array *x = &a->array;
  if (rt_dtype_size(x->dtype) == 0) {
    diag_error(diag, srcloc(NULL, 0, 0), "argument %u: invalid array dtype %d", i + 1, (int)x->dtype);
    return false;
  }
  if (x->ndim > KF_MAX_RANK) {
    diag_error(diag, srcloc(NULL, 0, 0), "argument %u: arrays of rank %u cannot be passed to a kernel "
               "(ranks 0 to %d are supported)", i + 1, x->ndim, KF_MAX_RANK);
    return false;
  }
  for (unsigned d = 0; d < x->ndim; d++) {
    if (x->shape[d] < 0) {
      diag_error(diag, srcloc(NULL, 0, 0), "argument %u: negative extent %" PRId64 " in axis %u", i + 1,
                 x->shape[d], d);
      return false;
    }
  }
  if (!x->data && rt_array_size(x) > 0) {
    diag_error(diag, srcloc(NULL, 0, 0), "argument %u: array with %zu elements has no data pointer", i + 1,
               rt_array_size(x));
    return false;
  }
  return true;
}

/* One argument's own type, spelt as a signature spells it (checked already); spell_readonly: an argument itself or
 * an item of a tuple, not a field of a named tuple (the frontend takes readonly arrays there only: in a named tuple
 * one is typed mutable). */
/* An argument's Numba type: as a signature spells it (float64[::1]; readonly arrays as Array(..., readonly=True)
 * where spell_readonly), or, with repr, as Python's repr of numba's type shows it (Array(float64, 1, 'C', False,
 * aligned=True): numba's overload-resolution errors spell types so). */
static void arg_numba(const kf_arg *a, bool spell_readonly, bool repr, StrBuf *out) {
  if (a->kind == KF_ARG_TUPLE && a->type) { /* a named tuple: NamedTuple("mod.Point", ("x", "y"), (int64, float64)) */
    sb_printf(out, "NamedTuple(%s, (", a->type);
    for (unsigned i = 0; i < a->nitems; i++) {
      if (i) sb_puts(out, ", ");
      arg_numba(&a->items[i], false, repr, out);
    }
    sb_puts(out, a->nitems == 1 ? ",))" : "))");
    return;
  }
  if (a->kind == KF_ARG_TUPLE) {
    bool uni = a->nitems > 0;
    StrBuf first, other;
    sb_init(&first);
    sb_init(&other);
    if (uni) arg_numba(&a->items[0], spell_readonly, repr, &first);
    for (unsigned i = 1; i < a->nitems && uni; i++) {
      sb_reset(&other);
      arg_numba(&a->items[i], spell_readonly, repr, &other);
      uni = strcmp(sb_cstr(&first), sb_cstr(&other)) == 0;
    }
    if (uni) {
      sb_printf(out, "UniTuple(%s, %u)", sb_cstr(&first), a->nitems);
    } else {
      sb_puts(out, "Tuple((");
      for (unsigned i = 0; i < a->nitems; i++) {
        if (i) sb_puts(out, ", ");
        arg_numba(&a->items[i], spell_readonly, repr, out);
      }
      sb_puts(out, a->nitems == 1 ? ",))" : "))");
    }
    sb_free(&first);
    sb_free(&other);
    return;
  }
  if (a->kind == KF_ARG_SCALAR && a->type) { /* an enum member: its type as the frontend reads it */
    sb_puts(out, a->type);
    return;
  }
  kf_dtype dt = a->kind == KF_ARG_ARRAY ? a->array.dtype : a->dtype;
  bool is_array = a->kind == KF_ARG_ARRAY && (a->array.ndim || !rt_dtype_is_record(dt));
  if (is_array && repr) {
    sb_printf(out, "Array(%s, %u, '%c', %s, aligned=True)", rt_dtype_name(dt), a->array.ndim,
              rt_array_layout(&a->array), a->array.readonly ? "True" : "False");
    return;
  }
  if (is_array && a->array.readonly && spell_readonly) { /* Numba's readonly array: no slice syntax spells it */
    sb_printf(out, "Array(%s, %u, '%c', readonly=True)", rt_dtype_name(dt), a->array.ndim, rt_array_layout(&a->array));
    return;
  }
  sb_puts(out, rt_dtype_name(dt));
  if (is_array) nb_signature_dims(a->array.ndim, rt_array_layout(&a->array), out);
}

bool rt_args_signature(const kf_arg *args, unsigned nargs, StrBuf *out, Diag *diag) {
  sb_puts(out, "void(");
  for (unsigned i = 0; i < nargs; i++) {
    if (!check_arg_valid(&args[i], i, diag)) return false;
    if (i) sb_puts(out, ", ");
    arg_numba(&args[i], true, false, out);
  }
  sb_putc(out, ')');
  return true;
}

void rt_args_repr_numba(const kf_arg *args, unsigned nargs, StrBuf *out) {
  sb_putc(out, '(');
  for (unsigned i = 0; i < nargs; i++) {
    if (i) sb_puts(out, ", ");
    arg_numba(&args[i], false, true, out);
  }
  sb_puts(out, nargs == 1 ? ",)" : ")");
}

void rt_signature_repr_numba(Type *const *params, unsigned nparams, const Attr *readonly, StrBuf *out) {
  sb_putc(out, '(');
  for (unsigned i = 0; i < nparams; i++) {
    if (i) sb_puts(out, ", ");
    const Type *t = params[i];
    if (t->kind != TY_ARRAY) {
      nb_type_signature(t, out);
      continue;
    }
    sb_puts(out, "Array(");
    nb_type_signature(t->elem, out);
    sb_printf(out, ", %u, '%c', %s, aligned=True)", t->rank,
              t->layout == LAYOUT_C ? 'C' : t->layout == LAYOUT_F ? 'F' : 'A', declared_readonly(readonly, i) ? "True" : "False");
  }
  sb_puts(out, nparams == 1 ? ",) -> none" : ") -> none");
}

static unsigned flat_count(const kf_arg *args, unsigned n, unsigned depth) {
  unsigned c = 0;
  for (unsigned i = 0; i < n; i++) {
    if (args[i].kind != KF_ARG_TUPLE) {
      c++;
      continue;
    }
    if (depth >= KF_MAX_TUPLE_DEPTH || (args[i].nitems && !args[i].items)) return UINT32_MAX;
    unsigned k = flat_count(args[i].items, args[i].nitems, depth + 1);
    if (k == UINT32_MAX || k > RT_MAX_FLAT_ARGS) return UINT32_MAX;
    c += k;
  }
  return c > RT_MAX_FLAT_ARGS ? UINT32_MAX : c;
}

static bool is_0d_array(const kf_arg *a) {
  return a->kind == KF_ARG_ARRAY && a->array.ndim == 0 && !rt_dtype_is_record(a->array.dtype);
}

static void flatten(const kf_arg *args, unsigned n, kf_arg *out, unsigned *k) {
  for (unsigned i = 0; i < n; i++) {
    if (args[i].kind == KF_ARG_TUPLE) {
      flatten(args[i].items, args[i].nitems, out, k);
      continue;
    }
    kf_arg *a = &out[(*k)++];
    *a = args[i];
    if (is_0d_array(a)) { /* its array of one */
      a->array.ndim = 1;
      a->array.shape[0] = 1;
      a->array.strides[0] = (int64_t)rt_dtype_size(a->array.dtype);
    }
  }
}

bool rt_args_need_flattening(const kf_arg *args, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (args[i].kind == KF_ARG_TUPLE || is_0d_array(&args[i])) return true;
  return false;
}

kf_status rt_flatten_args(const kf_arg *args, unsigned n, kf_arg *stack, unsigned cap, kf_arg **out, unsigned *nout,
                          Diag *diag) {
  unsigned c = flat_count(args, n, 0);
  if (c == UINT32_MAX) {
    DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
    diag_error(diag, srcloc(NULL, 0, 0), "tuple arguments nested more than %d deep or holding more than %d values are "
               "not supported", KF_MAX_TUPLE_DEPTH, RT_MAX_FLAT_ARGS);
    diag_set_kind(prev);
    return KF_ERROR_INVALID_INPUT;
  }
  kf_arg *v = c <= cap ? stack : mem_alloc(sizeof *v * c);
  if (!v) return KF_ERROR_OUT_OF_MEMORY;
  unsigned k = 0;
  flatten(args, n, v, &k);
  *out = v;
  *nout = c;
  return KF_OK;
}

/* ---- argument checks ------------------------------------------------------------------------- */

Type *rt_arg_type(IrContext *ctx, const kf_arg *arg) {
  if (arg->kind == KF_ARG_SCALAR) return rt_dtype_type(ctx, arg->dtype);
  if (arg->kind != KF_ARG_ARRAY) return NULL;
  const kf_array *a = &arg->array;
  if (a->ndim == 0 && rt_dtype_is_record(a->dtype)) return rt_record_type(ctx, a->dtype); /* one record */
  Type *elem = rt_dtype_type(ctx, a->dtype);
  return elem ? ty_array(ctx, elem, a->ndim ? a->ndim : 1, a->ndim ? rt_array_layout(a) : 'C') : NULL;
}

bool rt_arg_fits(const Type *param, const kf_arg *arg) {
  if (param->kind == TY_RECORD) { /* one record: a 0-d array of its dtype */
    kf_dtype want;
    return arg->kind == KF_ARG_ARRAY && arg->array.ndim == 0 && rt_type_dtype(param, &want) &&
           want == arg->array.dtype;
  }
  /* a number converts to a complex parameter (Numba's casts); a complex one to no real parameter */
  if (param->kind == TY_COMPLEX) return arg->kind == KF_ARG_SCALAR && rt_dtype_size(arg->dtype) != 0;
  if (ty_is_scalar(param))
    return arg->kind == KF_ARG_SCALAR && rt_dtype_size(arg->dtype) != 0 && !rt_dtype_is_complex(arg->dtype);
  /* a pointer: an address, as numba-cuda passes a CPointer argument (an integer) */
  if (param->kind == TY_PTR)
    return arg->kind == KF_ARG_SCALAR && !arg->type && rt_dtype_size(arg->dtype) != 0 && !rt_dtype_is_float(arg->dtype) &&
           !rt_dtype_is_complex(arg->dtype) && arg->dtype != KF_BOOL;
  if (param->kind != TY_ARRAY || arg->kind != KF_ARG_ARRAY) return false;
  kf_dtype want;
  if (!rt_type_dtype(param->elem, &want) || want != arg->array.dtype || param->rank != arg->array.ndim) return false;
  if (param->layout == LAYOUT_C) return rt_array_is_contiguous(&arg->array, 'C');
  if (param->layout == LAYOUT_F) return rt_array_is_contiguous(&arg->array, 'F');
  return true;
}

static bool plain_integer(kf_dtype t) { return t >= KF_INT8 && t <= KF_UINT64; }

bool rt_arg_fits_as(const Type *param, const kf_arg *arg, bool reinterpret) {
  if (rt_arg_fits(param, arg)) return true;
  kf_dtype want;
  if (!reinterpret || param->kind != TY_ARRAY || arg->kind != KF_ARG_ARRAY || !rt_type_dtype(param->elem, &want))
    return false;
  /* integers of one width only (int32 read as uint32: the same bits, the value modulo 2^n): numba-cuda would read
   * any array's bytes as the parameter's dtype, but floats read as integers (or another width) are garbage */
  kf_dtype dt = arg->array.dtype;
  if (!plain_integer(dt) || !plain_integer(want) || rt_dtype_size(dt) != rt_dtype_size(want) ||
      param->rank != arg->array.ndim)
    return false;
  if (param->layout == LAYOUT_C) return rt_array_is_contiguous(&arg->array, 'C');
  if (param->layout == LAYOUT_F) return rt_array_is_contiguous(&arg->array, 'F');
  return true;
}

/* kf_dtype's numbers are in the order of the frontend's Numba kinds (NB_*), which its conversion table uses */
_Static_assert((int)KF_BOOL == (int)NB_BOOL && (int)KF_INT64 == (int)NB_I64 && (int)KF_UINT64 == (int)NB_U64 &&
                   (int)KF_FLOAT64 == (int)NB_F64 && (int)KF_COMPLEX128 == (int)NB_C128 &&
                   (int)KF_BFLOAT16 == (int)NB_BF16 && (int)KF_DTYPE_COUNT == (int)NB_NKINDS,
               "kf_dtype and the frontend's NB_* kinds differ");

/* numba's conversion kind (frontend/fe.h's CONV_*) of an argument to a parameter */
static int arg_conversion(const Type *param, const kf_arg *arg) {
  if (!rt_arg_fits(param, arg)) return CONV_NONE;
  if (arg->kind == KF_ARG_SCALAR && nb_kind(param) >= 0 && (unsigned)arg->dtype < KF_DTYPE_COUNT)
    return nb_can_convert((int)arg->dtype, nb_kind(param));
  /* an array to a parameter of layout A that its own layout is not: numba's Array conversion is safe */
  if (param->kind == TY_ARRAY && param->layout == LAYOUT_A && arg->array.ndim > 0 &&
      rt_array_layout(&arg->array) != 'A')
    return CONV_SAFE;
  return CONV_EXACT;
}

static bool declared_readonly(const Attr *ro, unsigned i) {
  for (unsigned k = 0; ro && ro->kind == ATTR_ARRAY && k < ro->arr.n; k++)
    if (ro->arr.elems[k].kind == ATTR_INT && ro->arr.elems[k].i == (int64_t)i) return true;
  return false;
}

bool rt_readonly_fits(Op *func, const kf_arg *args, unsigned n, unsigned *safe) {
  Attr *ro = ir_op_attr(func, "readonly_params");
  *safe = 0;
  if (ir_op_attr(func, "generated")) return true; /* a ufunc's kernel: kfront's own code, reading its inputs only */
  for (unsigned i = 0; i < n; i++) {
    if (args[i].kind != KF_ARG_ARRAY || args[i].array.ndim == 0) continue;
    bool declared = declared_readonly(ro, i);
    if (args[i].array.readonly && !declared) return false;
    *safe += !args[i].array.readonly && declared;
  }
  return true;
}

bool rt_rate_args(Type *const *params, const kf_arg *args, unsigned n, unsigned rate[3]) {
  rate[0] = rate[1] = rate[2] = 0;
  for (unsigned i = 0; i < n; i++) {
    int conv = arg_conversion(params[i], &args[i]);
    if (conv == CONV_NONE) return false;
    rate[0] += conv == CONV_UNSAFE;
    rate[1] += conv == CONV_SAFE;
    rate[2] += conv == CONV_PROMOTE;
  }
  return true;
}

static void describe_arg(const kf_arg *a, StrBuf *out) {
  if (a->kind == KF_ARG_SCALAR) {
    sb_printf(out, "a scalar %s", rt_dtype_name(a->dtype));
    return;
  }
  const kf_array *x = &a->array;
  if (x->ndim == 0) {
    sb_printf(out, "a record %s", rt_dtype_name(x->dtype));
    return;
  }
  char layout = rt_array_layout(x);
  sb_printf(out, "%s array of rank %u (%s", rt_dtype_name(x->dtype), x->ndim,
            layout == 'C' ? "C-contiguous" : layout == 'F' ? "F-contiguous" : "non-contiguous");
  if (layout == 'A') {
    sb_puts(out, ", strides (");
    for (unsigned d = 0; d < x->ndim; d++) sb_printf(out, "%s%" PRId64, d ? ", " : "", x->strides[d]);
    sb_puts(out, ")");
  }
  sb_puts(out, ")");
}

bool rt_check_args(const char *kernel, Type *const *params, unsigned nparams, const kf_arg *args, unsigned nargs,
                   bool reinterpret, Diag *diag) {
  /* the common case first, without building any text: launches check this every time */
  for (unsigned i = 0; i < nargs; i++)
    if (!check_arg_valid(&args[i], i, diag)) return false;
  bool fits = nargs == nparams;
  for (unsigned i = 0; fits && i < nargs; i++) fits = rt_arg_fits_as(params[i], &args[i], reinterpret);
  if (fits) return true;
  StrBuf sig;
  sb_init(&sig);
  rt_signature_numba(params, nparams, NULL, &sig);
  if (nargs != nparams) {
    diag_error(diag, srcloc(NULL, 0, 0), "kernel %s takes %u argument%s (%s), but %u %s given", kernel, nparams,
               nparams == 1 ? "" : "s", sb_cstr(&sig), nargs, nargs == 1 ? "was" : "were");
    sb_free(&sig);
    return false;
  }
  for (unsigned i = 0; i < nargs; i++) {
    if (rt_arg_fits_as(params[i], &args[i], reinterpret)) continue;
    StrBuf want, got;
    sb_init(&want);
    sb_init(&got);
    nb_type_signature(params[i], &want);
    describe_arg(&args[i], &got);
    const char *what = ty_is_scalar(params[i])            ? "a scalar "
                       : params[i]->kind == TY_ARRAY   ? "an array "
                       : params[i]->kind == TY_RECORD ? "a record "
                       : params[i]->kind == TY_PTR    ? "an address (an integer) for "
                                                       : "";
    diag_error(diag, srcloc(NULL, 0, 0), "argument %u of kernel %s (%s): expected %s%s, got %s", i + 1, kernel,
               sb_cstr(&sig), what, sb_cstr(&want), sb_cstr(&got));
    sb_free(&want);
    sb_free(&got);
    break;
  }
  sb_free(&sig);
  return false;
}

/* ---- launch configuration -------------------------------------------------------------------- */

void rt_limits_sim(RtLimits *l) {
  *l = (RtLimits){.max_threads_per_block = 1024,
                  .max_block = {1024, 1024, 64},
                  .max_grid = {2147483647u, 65535, 65535},
                  .max_shared = 48 * 1024,
                  .max_shared_optin = 227 * 1024,
                  .sms = 2,
                  .max_threads_per_sm = 2048,
                  .max_blocks_per_sm = 32,
                  .max_shared_per_sm = 228 * 1024};
}

unsigned rt_limits_resident_blocks(const RtLimits *l, unsigned threads, size_t shared) {
  enum { WARP = 32, BLOCK_RESERVED_SHARED = 1024 };
  uint64_t warps = ((uint64_t)threads + WARP - 1) / WARP;
  if (!warps) return 0;
  uint64_t per_sm = l->max_blocks_per_sm, by_threads = l->max_threads_per_sm / (warps * WARP);
  uint64_t by_shared = l->max_shared_per_sm / ((uint64_t)shared + BLOCK_RESERVED_SHARED);
  if (by_threads < per_sm) per_sm = by_threads;
  if (by_shared < per_sm) per_sm = by_shared;
  return (unsigned)(per_sm * l->sms);
}

void rt_limits_from_info(RtLimits *l, const kf_device_info *info) {
  l->max_threads_per_block = (unsigned)info->max_threads_per_block;
  for (int i = 0; i < 3; i++) {
    l->max_block[i] = (unsigned)info->max_block_dim[i];
    l->max_grid[i] = (unsigned)info->max_grid_dim[i];
  }
  l->max_shared = info->max_shared_per_block;
  l->max_shared_optin = info->max_shared_per_block_optin > info->max_shared_per_block
                            ? info->max_shared_per_block_optin
                            : info->max_shared_per_block;
}

bool rt_check_launch(const RtLimits *l, const char *kernel, const unsigned grid[3], const unsigned block[3],
                     size_t static_shared, size_t dynamic_shared, unsigned kernel_max_threads, Diag *diag) {
  static const char axes[3] = {'x', 'y', 'z'};
  SrcLoc none = srcloc(NULL, 0, 0);
  for (int i = 0; i < 3; i++) {
    if (grid[i] == 0 || block[i] == 0) {
      diag_error(diag, none, "invalid launch of kernel %s: %s dimension %c is 0 (every grid and block dimension "
                 "must be at least 1)", kernel, grid[i] == 0 ? "grid" : "block", axes[i]);
      return false;
    }
  }
  for (int i = 0; i < 3; i++) {
    if (block[i] > l->max_block[i]) {
      diag_error(diag, none, "invalid launch of kernel %s: block dimension %c is %u, above the device's limit of %u",
                 kernel, axes[i], block[i], l->max_block[i]);
      return false;
    }
  }
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  if (threads > l->max_threads_per_block) {
    diag_error(diag, none, "invalid launch of kernel %s: a block of (%u, %u, %u) = %" PRIu64 " threads is above "
               "the device's limit of %u threads per block (the CUDA driver refuses the launch with "
               "CUDA_ERROR_INVALID_VALUE)", kernel, block[0], block[1], block[2], threads, l->max_threads_per_block);
    return false;
  }
  if (kernel_max_threads && threads > kernel_max_threads) {
    diag_error(diag, none, "invalid launch of kernel %s: a block of %" PRIu64 " threads is above this kernel's "
               "limit of %u threads per block (set by its launch_bounds or its register use; the CUDA driver "
               "refuses the launch with CUDA_ERROR_INVALID_VALUE)", kernel, threads, kernel_max_threads);
    return false;
  }
  for (int i = 0; i < 3; i++) {
    if (grid[i] > l->max_grid[i]) {
      diag_error(diag, none, "invalid launch of kernel %s: grid dimension %c is %u, above the device's limit of %u",
                 kernel, axes[i], grid[i], l->max_grid[i]);
      return false;
    }
  }
  size_t limit = l->max_shared_optin > l->max_shared ? l->max_shared_optin : l->max_shared;
  if (dynamic_shared > limit || static_shared > limit - dynamic_shared) {
    diag_error(diag, none, "invalid launch of kernel %s: %zu bytes of dynamic shared memory plus %zu bytes of "
               "static shared memory are above the device's limit of %zu bytes per block", kernel, dynamic_shared,
               static_shared, limit);
    return false;
  }
  return true;
}

void rt_format_index_error(StrBuf *out, const char *kernel, const char *file, unsigned line, unsigned col,
                           unsigned axis, int64_t index, int64_t extent) {
  sb_printf(out, "IndexError: index %" PRId64 " is out of bounds for axis %u with size %" PRId64 " (kernel %s",
            index, axis, extent, kernel ? kernel : "?");
  if (file && *file) {
    sb_printf(out, ", %s", file);
    if (line) sb_printf(out, ":%u", line);
    if (line && col) sb_printf(out, ":%u", col);
  }
  sb_putc(out, ')');
}

void rt_report_index_error(Diag *diag, const char *kernel, const char *file, unsigned line, unsigned col,
                           unsigned axis, int64_t index, int64_t extent) {
  StrBuf msg;
  sb_init(&msg);
  rt_format_index_error(&msg, kernel, file, line, col, axis, index, extent);
  diag_index_error(diag, srcloc(file, file ? line : 0, file ? col : 0), kernel, axis, index, extent, "%s",
                   sb_cstr(&msg));
  sb_free(&msg);
}

void rt_report_raised(Diag *diag, const char *kernel, const char *file, unsigned line, unsigned col,
                      const char *exception, const uint32_t thread[3], const uint32_t block[3]) {
  StrBuf msg;
  sb_init(&msg);
  sb_printf(&msg, "%s (kernel %s", exception && *exception ? exception : "Exception", kernel ? kernel : "?");
  if (file && *file) {
    sb_printf(&msg, ", %s", file);
    if (line) sb_printf(&msg, ":%u", line);
    if (line && col) sb_printf(&msg, ":%u", col);
  }
  sb_printf(&msg, "; thread (%u, %u, %u) of block (%u, %u, %u))", thread[0], thread[1], thread[2], block[0], block[1],
            block[2]);
  diag_raised_error(diag, srcloc(file, file ? line : 0, file ? col : 0), kernel, exception, thread, block, "%s",
                    sb_cstr(&msg));
  sb_free(&msg);
}

/* ---- kir queries ----------------------------------------------------------------------------- */

typedef struct SharedWalk {
  Module *m;
  const char *space;    /* the memory space counted: "shared" or "const" */
  PtrMap seen;          /* globals already counted */
  size_t bytes;
  bool no_memory;
} SharedWalk;

static bool seen_before(SharedWalk *w, Op *op) {
  if (ptrmap_get(&w->seen, op)) return true;
  if (!ptrmap_put(&w->seen, op, op)) w->no_memory = true;
  return false;
}

static bool shared_visit(Op *op, void *user) {
  SharedWalk *w = user;
  if (op->kind == OP_GLOBAL_REF) {
    const char *name = ir_op_attr_str(op, "name");
    Op *g = name ? ir_module_lookup(w->m, name) : NULL;
    if (!g || g->kind != OP_GLOBAL || seen_before(w, g)) return !w->no_memory;
    const char *space = ir_op_attr_str(g, "space");
    Type *t = ir_op_attr_type(g, "type");
    Attr *shape = ir_op_attr(g, "shape");
    if (!space || strcmp(space, w->space) != 0 || !t || t->kind != TY_ARRAY || !shape || shape->kind != ATTR_ARRAY)
      return true;
    size_t n = ty_size(t->elem);
    for (unsigned i = 0; i < shape->arr.n; i++)
      if (shape->arr.elems[i].kind == ATTR_INT && shape->arr.elems[i].i > 0) n *= (size_t)shape->arr.elems[i].i;
    w->bytes += n;
  }
  return true;
}

static bool shared_callee(Op *callee, Op *call, void *user) {
  (void)call;
  SharedWalk *w = user;
  if (callee) ir_walk_pre(callee, shared_visit, w);
  return !w->no_memory;
}

bool rt_kir_static_bytes(Module *m, Op *func, const char *space, size_t *out) {
  SharedWalk w = {.m = m, .space = space};
  ir_walk_pre(func, shared_visit, &w);
  if (!w.no_memory && ir_walk_callees(m, func, shared_callee, &w) == IR_WALK_NO_MEMORY) w.no_memory = true;
  ptrmap_free(&w.seen);
  *out = w.bytes;
  return !w.no_memory;
}

bool rt_kir_static_shared(Module *m, Op *func, size_t *out) { return rt_kir_static_bytes(m, func, "shared", out); }

unsigned rt_kir_launch_bound(const Op *func) {
  const Attr *a = ir_op_attr(func, "launch_bounds");
  if (!a || a->kind != ATTR_ARRAY || !a->arr.n || a->arr.elems[0].kind != ATTR_INT) return 0;
  int64_t n = a->arr.elems[0].i;
  return n > 0 && n <= INT32_MAX ? (unsigned)n : 0;
}

static bool names_function(const char *sym, const char *name) {
  size_t n = strlen(name);
  if (strncmp(sym, name, n) != 0) return false;
  if (sym[n] == 0) return true;
  return (sym[n] == '_' && sym[n + 1] == '_') || sym[n] == '$' || sym[n] == '.';
}

unsigned rt_kir_find_kernels(Module *m, const char *name, Op **out, unsigned max) {
  unsigned n = 0;
  for (Op *op = ir_module_body(m)->first; op; op = op->next) {
    /* (a tiled variant is its kernel's: RtKernel.variant) */
    if (op->kind != OP_FUNC_FUNC || !ir_op_attr(op, "kernel") || ir_op_attr(op, "variant_of")) continue;
    const char *sym = ir_func_name(op);
    const char *py = ir_op_attr_str(op, "py_name");
    if (!py) py = ir_op_attr_str(op, "source_name");
    bool match = py ? strcmp(py, name) == 0 : sym && names_function(sym, name);
    if (!match) continue;
    if (n < max) out[n] = op;
    n++;
  }
  return n;
}

Type *const *rt_kir_params(Op *func, unsigned *n) {
  Type *ft = ir_func_type(func);
  *n = ft ? ft->n : 0;
  return ft ? ft->elems : NULL;
}

