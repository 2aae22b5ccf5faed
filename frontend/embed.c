/* embed.c — what an embedder supplies instead of module text (FeOptions: kf_source, kf_binding,
 * kf_function_spec of kfront.h), and the canonical text of it all (fe_options_key).
 *
 * Bindings become the FeVals the module-level machinery of module.c gives the same Python objects, so that
 * lowering sees no difference between a bound name and a module-level one: a scalar is the constant of its
 * dtype (fe_const_int / fe_const_float / fe_const_complex, as `N = 5`, `X = np.float32(0.5)` or `Z = 1 + 2j`), a
 * tuple a tuple of them, an
 * array the constant array np.array([...], dtype=...) makes (fe_const_array: elements read through the
 * strides in C order), a module or path what the import would bind (fe_module_value, fe_import_value), a
 * function the FeFunc of that name in its source, a namespace (FV_NAMESPACE) its members. What cannot be
 * used becomes FV_INVALID with the reason: an error located at the first use of the name (lower.c), or, if
 * nothing uses it, an unlocated error naming the binding once everything else compiled (embed_end).
 * Structural problems (a binding or spec without a name, a name bound twice) are unlocated errors at once.
 *
 * A function spec replaces the decorator of the def it names: read here into the FeFunc the equivalent
 * decorator would give (module.c's read_decorated), the decorator text is never evaluated.
 *
 * fe_options_key writes one line per fact, every string as <length>:<bytes>, bindings sorted by name and
 * namespace members by name, so that equal texts mean equal compiles (the main source excepted: the caller
 * keys it). Scalars are written after their conversion to the dtype (floats in hex), arrays as dtype, shape
 * and the SHA-256 of their elements in C order (booleans as 0/1 bytes), sources as file, first line and the
 * SHA-256 of the text. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "ir/op_semantics.h"
#include "utils/sha256.h"
#include "utils/mem.h"

_Static_assert(NB_BOOL == (int)KF_BOOL && NB_I8 == (int)KF_INT8 && NB_I64 == (int)KF_INT64 && NB_U8 == (int)KF_UINT8 &&
                   NB_U64 == (int)KF_UINT64 && NB_F16 == (int)KF_FLOAT16 && NB_F64 == (int)KF_FLOAT64 && NB_BF16 == (int)KF_BFLOAT16 &&
                   NB_NKINDS == (int)KF_DTYPE_COUNT,
               "kf_dtype and Numba's scalar kinds are in one order");

static const char *const value_kind_names[] = {"bool", "int", "float", "tuple", "array", "module", "path", "function",
                                               "namespace", "exception", "string", "none", "slice",
                                               "unsupported", "pymodule", "tuple class", "overload",
                                               "foreign"};
static const char *const function_kind_names[] = {"kernel", "device", "reduce", "vectorize", "guvectorize"};
static const char *const dtype_names[KF_DTYPE_COUNT] = {"boolean", "int8",   "int16",  "int32",   "int64",   "uint8",
                                                        "uint16",  "uint32", "uint64", "float16", "float32", "float64",
                                                        "complex64", "complex128", "bfloat16"};
static const unsigned dtype_bytes[KF_DTYPE_COUNT] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16, 2};

static bool dtype_valid(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT; }
static bool dtype_float(kf_dtype t) { return t == KF_FLOAT16 || t == KF_FLOAT32 || t == KF_FLOAT64 || t == KF_BFLOAT16; }
static bool dtype_unsigned(kf_dtype t) { return t >= KF_UINT8 && t <= KF_UINT64; }
static bool dtype_complex(kf_dtype t) { return t == KF_COMPLEX64 || t == KF_COMPLEX128; }

/* ---- scalars ------------------------------------------------------------------------------------------ */

/* The value of a scalar of dtype t as kfront keeps it: integers (and bools as 0/1) in *i, floats rounded to
 * their precision in *f, a complex one's parts rounded to theirs in *f and *im. False, with the reason in why, when
 * the value is not one of dtype t. */
static bool scalar_value(const kf_value *v, int64_t *i, double *f, double *im, char *why, size_t nwhy) {
  kf_dtype t = v->dtype;
  if (!dtype_valid(t)) {
    snprintf(why, nwhy, "invalid dtype %d", (int)t);
    return false;
  }
  bool cplx = dtype_complex(t);
  bool ok = v->kind == KF_VALUE_BOOL    ? t == KF_BOOL
            : v->kind == KF_VALUE_FLOAT ? dtype_float(t) || cplx
                                        : t != KF_BOOL && !dtype_float(t) && !cplx;
  if (!ok) {
    snprintf(why, nwhy, "a value of kind %s cannot have dtype %s", value_kind_names[v->kind], dtype_names[t]);
    return false;
  }
  *i = 0;
  *f = 0;
  *im = 0;
  if (cplx) {
    *f = t == KF_COMPLEX128 ? v->scalar.f : (double)(float)v->scalar.f;
    *im = t == KF_COMPLEX128 ? v->imag : (double)(float)v->imag;
  } else if (t == KF_BOOL) {
    *i = v->scalar.i != 0;
  } else if (dtype_float(t)) {
    *f = t == KF_FLOAT64   ? v->scalar.f
         : t == KF_FLOAT32 ? (double)(float)v->scalar.f
         : t == KF_BFLOAT16 ? (double)sem_bf16_round(v->scalar.f)
                           : (double)sem_f16_round(v->scalar.f);
  } else {
    unsigned bits = 8 * dtype_bytes[t];
    bool fits = dtype_unsigned(t) ? bits == 64 || v->scalar.u < (1ull << bits)
                                  : bits == 64 || (v->scalar.i >= -(1ll << (bits - 1)) && v->scalar.i < (1ll << (bits - 1)));
    if (!fits) {
      if (dtype_unsigned(t)) snprintf(why, nwhy, "%llu does not fit %s", (unsigned long long)v->scalar.u, dtype_names[t]);
      else snprintf(why, nwhy, "%lld does not fit %s", (long long)v->scalar.i, dtype_names[t]);
      return false;
    }
    *i = v->scalar.i;
  }
  return true;
}

/* ---- arrays ------------------------------------------------------------------------------------------- */

/* Whether a can be read as a constant array; *count its elements. */
/* The record type a bound array of records names in its value's path (kf_value: the dtype's spelling), parsed in
 * ctx; NULL when path is not a record's spelling. */
static Type *bound_record(IrContext *ctx, const kf_value *v) {
  if (!v->path) return NULL;
  size_t len = strlen(v->path), pos = 0;
  const char *why = NULL;
  Type *t = fe_record_parse(ctx, v->path, len, &pos, &why);
  return t && pos == len ? t : NULL;
}

/* Whether the array can be a constant (*count its elements); record: a is an array of records whose record type
 * its binding spells (its dtype a record dtype, not a scalar one). */
static bool array_readable(const kf_array *a, bool record, size_t *count, char *why, size_t nwhy) {
  if (a->memory != KF_MEMORY_HOST) return snprintf(why, nwhy, "a device array cannot be a constant (copy it to the host)"), false;
  if (!record && (unsigned)a->dtype >= KF_DTYPE_RECORD_BASE)
    return snprintf(why, nwhy, "an array of a record dtype whose binding does not spell the record in its path"), false;
  if (!record && !dtype_valid(a->dtype)) return snprintf(why, nwhy, "an array of invalid dtype %d", (int)a->dtype), false;
  if (a->ndim > KF_MAX_RANK)
    return snprintf(why, nwhy, "an array of rank %u (kfront takes constant arrays of rank 0 to %d)", a->ndim, KF_MAX_RANK), false;
  if (record && a->ndim == 0)
    return snprintf(why, nwhy, "a 0-d array of records (kfront takes constant arrays of records of rank 1 to %d)",
                    KF_MAX_RANK), false;
  size_t n = 1;
  for (unsigned k = 0; k < a->ndim; k++) {
    if (a->shape[k] < 0) return snprintf(why, nwhy, "an array with extent %lld", (long long)a->shape[k]), false;
    if (a->shape[k] && n > (size_t)UINT32_MAX / (size_t)a->shape[k])
      return snprintf(why, nwhy, "an array too large to be a constant"), false;
    n *= (size_t)a->shape[k];
  }
  if (!a->data) return snprintf(why, nwhy, "an array with no data pointer"), false;
  *count = n;
  return true;
}

/* A device array bound as a global: captured at its address, as numba-cuda captures a global device array's pointer. */
static FeVal invalid(FeCtx *fe, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static FeVal captured_array(FeCtx *fe, const kf_array *a, Type *rec) {
  if (a->ndim > KF_MAX_RANK)
    return invalid(fe, "a device array of rank %u (kfront captures device arrays of rank 0 to %d)", a->ndim, KF_MAX_RANK);
  if (!rec && ((unsigned)a->dtype >= KF_DTYPE_RECORD_BASE || !dtype_valid(a->dtype)))
    return invalid(fe, "a device array of a dtype kfront cannot capture");
  for (unsigned k = 0; k < a->ndim; k++)
    if (a->shape[k] < 0) return invalid(fe, "a device array with extent %lld", (long long)a->shape[k]);
  if (!a->data) return invalid(fe, "a device array with no data pointer");
  Type *t = rec ? rec : nb_type(fe->ctx, (int)a->dtype);
  return fe_captured_array(fe, t, a->ndim, a->shape, a->strides, (uint64_t)(uintptr_t)a->data);
}

/* The bytes of each element of an array of records (of size bytes each), in C order. */
typedef struct ByteCollect {
  unsigned char *out;
  size_t size, n;
} ByteCollect;

static void collect_bytes(void *user, kf_dtype t, const unsigned char *p) {
  (void)t;
  ByteCollect *c = user;
  memcpy(c->out + c->n, p, c->size);
  c->n += c->size;
}

/* Calls fn with each element's bytes, in C order, read through the strides. */
static void array_each(const kf_array *a, void (*fn)(void *user, kf_dtype t, const unsigned char *elem), void *user) {
  int64_t idx[KF_MAX_RANK] = {0};
  const unsigned char *base = a->data;
  for (unsigned k = 0; k < a->ndim; k++)
    if (a->shape[k] == 0) return; /* no elements */
  for (;;) {
    int64_t off = 0;
    for (unsigned k = 0; k < a->ndim; k++) off += idx[k] * a->strides[k];
    fn(user, a->dtype, base + off);
    unsigned k = a->ndim;
    while (k > 0 && ++idx[k - 1] == a->shape[k - 1]) idx[--k] = 0;
    if (k == 0) return;
  }
}

/* An element's value: integers (bools 0/1) in *i, floats in *f, complex numbers' parts in *f and *im. */
static void element_value(kf_dtype t, const unsigned char *p, int64_t *i, double *f, double *im) {
  *i = 0;
  *f = 0;
  *im = 0;
  switch (t) {
  case KF_BOOL: *i = p[0] != 0; break;
  case KF_INT8: { int8_t x; memcpy(&x, p, 1); *i = x; break; }
  case KF_INT16: { int16_t x; memcpy(&x, p, 2); *i = x; break; }
  case KF_INT32: { int32_t x; memcpy(&x, p, 4); *i = x; break; }
  case KF_INT64: memcpy(i, p, 8); break;
  case KF_UINT8: *i = p[0]; break;
  case KF_UINT16: { uint16_t x; memcpy(&x, p, 2); *i = x; break; }
  case KF_UINT32: { uint32_t x; memcpy(&x, p, 4); *i = x; break; }
  case KF_UINT64: memcpy(i, p, 8); break;
  case KF_FLOAT16: { uint16_t x; memcpy(&x, p, 2); *f = sem_f16_value(x); break; }
  case KF_FLOAT32: { float x; memcpy(&x, p, 4); *f = x; break; }
  case KF_FLOAT64: memcpy(f, p, 8); break;
  case KF_COMPLEX64: { float x[2]; memcpy(x, p, 8); *f = x[0]; *im = x[1]; break; }
  case KF_COMPLEX128: { double x[2]; memcpy(x, p, 16); *f = x[0]; *im = x[1]; break; }
  case KF_BFLOAT16: { uint16_t x; memcpy(&x, p, 2); *f = sem_bf16_value(x); break; }
  }
}

typedef struct ElemCollect {
  FeCtx *fe;
  Type *t;
  FeVal *out;
  unsigned n;
} ElemCollect;

static void collect_element(void *user, kf_dtype t, const unsigned char *p) {
  ElemCollect *c = user;
  int64_t i;
  double f, im;
  element_value(t, p, &i, &f, &im);
  c->out[c->n++] = dtype_complex(t) ? fe_const_complex(c->t, f, im)
                   : dtype_float(t) ? fe_const_float(c->t, f) : fe_const_int(c->fe, c->t, i);
}

/* ---- bindings to FeVals ---------------------------------------------------------------------------------- */

static FeVal invalid(FeCtx *fe, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static FeVal invalid(FeCtx *fe, const char *fmt, ...) {
  StrBuf b;
  sb_init(&b);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  FeVal v = {.kind = FV_INVALID};
  v.str.s = fe_intern(fe, sb_cstr(&b));
  v.str.len = b.len;
  sb_free(&b);
  return v;
}

static FeVal convert(FeCtx *fe, const kf_value *v, const char *name, unsigned depth);

/* An enum class whose members' values are tuples or strings: a NAMESPACE whose path spells its member type with
 * the values, EnumMember("mod.Color", UniTuple(int64, 2), (values...)) (fe_enum_parse), its items the same values. */
static FeVal valued_enum(FeCtx *fe, const kf_value *v, const char *name, unsigned depth) {
  const FeEnum *en = fe_enum_parse_text(fe, v->path, srcloc(NULL, 0, 0));
  if (!en || !en->values) return invalid(fe, "'%s' does not spell the member type of an enum of tuples or strings", v->path);
  if (en->nvalues != v->nitems)
    return invalid(fe, "the enum class has %u members but its type spells %u values", v->nitems, en->nvalues);
  const char **names = ARENA_ARRAY(&fe->arena, const char *, v->nitems);
  for (unsigned k = 0; k < v->nitems; k++) {
    if (!v->names || !v->names[k] || !*v->names[k]) return invalid(fe, "member %u of the namespace has no name", k);
    names[k] = fe_intern(fe, v->names[k]);
    FeVal x = convert(fe, &v->items[k], arena_printf(&fe->arena, "%s.%s", name, names[k]), depth + 1);
    if (x.kind == FV_INVALID) return x;
    const char *t = fe_enum_value_type(fe, &x);
    if (!t || strcmp(t, en->value_type) != 0)
      return invalid(fe, "member '%s' of the enum class is not of its members' type %s", names[k], en->value_type);
  }
  return fe_enum_valued_namespace(fe, en->name, name, en->value_type, names, en->values, en->nvalues);
}

/* What v means to a kernel; `name` says where it is (the binding, "Color.RED"). FUNCTION values are FV_HOST
 * here, until embed_after_read finds the function. */
/* A named tuple's (or its class's) field names, checked: given, non-empty, distinct; its class named. */
static bool field_names(FeCtx *fe, const kf_value *v, const char **out) {
  if (!v->path || !*v->path || (v->nitems && !v->names) || v->nitems > 64) return false;
  for (unsigned k = 0; k < v->nitems; k++) {
    if (!v->names[k] || !*v->names[k]) return false;
    for (unsigned j = 0; j < k; j++)
      if (strcmp(v->names[j], v->names[k]) == 0) return false;
    out[k] = fe_intern(fe, v->names[k]);
  }
  return true;
}

/* A bound named tuple (v, its items converted in t): t typed as its class, its items values with types. */
static FeVal named_tuple(FeCtx *fe, const kf_value *v, FeVal t) {
  const char **fields = ARENA_ARRAY(&fe->arena, const char *, v->nitems ? v->nitems : 1);
  Type **elems = ARENA_ARRAY(&fe->arena, Type *, v->nitems ? v->nitems : 1);
  if (!field_names(fe, v, fields)) return invalid(fe, "a named tuple needs its class's name and distinct field names");
  for (unsigned k = 0; k < v->nitems; k++) {
    const FeVal *it = &t.tup.elems[k];
    if ((it->kind != FV_VAL && it->kind != FV_TUPLE) || !(elems[k] = it->type))
      return invalid(fe, "field '%s' of the named tuple: kfront's constant named tuples hold numbers and tuples of "
                         "them", fields[k]);
  }
  t.type = ty_named_tuple(fe->ctx, v->path, fields, v->nitems, elems);
  return t;
}

static FeVal convert(FeCtx *fe, const kf_value *v, const char *name, unsigned depth) {
  char why[160];
  if (depth > FE_MAX_NESTING) return invalid(fe, "values nested more than %d deep", FE_MAX_NESTING);
  switch (v->kind) {
  case KF_VALUE_BOOL:
  case KF_VALUE_INT:
  case KF_VALUE_FLOAT: {
    int64_t i;
    double f, im;
    if (!scalar_value(v, &i, &f, &im, why, sizeof why)) return invalid(fe, "%s", why);
    Type *t = nb_type(fe->ctx, (int)v->dtype);
    FeVal r = dtype_complex(v->dtype) ? fe_const_complex(t, f, im) : dtype_float(v->dtype) ? fe_const_float(t, f) : fe_const_int(fe, t, i);
    if (v->path && dtype_complex(v->dtype)) return invalid(fe, "an enum member cannot be a %s", dtype_names[v->dtype]);
    if (v->path) { /* an enum member: its type spelt (its value of the kind of the members' type) */
      const FeEnum *en = fe_enum_parse_text(fe, v->path, srcloc(NULL, 0, 0));
      if (!en) return invalid(fe, "'%s' does not spell an enum member type", v->path);
      if (en->values && (v->kind != KF_VALUE_INT || i < 0 || (uint64_t)i >= en->nvalues))
        return invalid(fe, "a member of %s is the index of its value, 0 to %u", v->path, en->nvalues - 1);
      TypeKind want = en->dtype->kind;
      if ((want == TY_INT && v->kind != KF_VALUE_INT) || (want == TY_FLOAT && v->kind != KF_VALUE_FLOAT) ||
          (want == TY_BOOL && v->kind != KF_VALUE_BOOL))
        return invalid(fe, "an enum member of %s cannot be a %s", v->path, value_kind_names[v->kind]);
      r = want == TY_FLOAT ? fe_const_float(en->dtype, f) : fe_const_int(fe, en->dtype, i);
      r.enumc = en;
    }
    return r;
  }
  case KF_VALUE_TUPLE: {
    if (v->nitems && !v->items) return invalid(fe, "a tuple of %u items with no items pointer", v->nitems);
    FeVal t = {.kind = FV_TUPLE};
    t.tup.n = v->nitems;
    t.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, v->nitems ? v->nitems : 1);
    for (unsigned k = 0; k < v->nitems; k++) {
      const kf_value *it = &v->items[k];
      if (it->kind == KF_VALUE_NAMESPACE || it->kind == KF_VALUE_EXCEPTION || it->kind == KF_VALUE_STRING ||
          (unsigned)it->kind > KF_VALUE_SLICE)
        return invalid(fe, "item %u of the tuple is a %s: kfront's constant tuples hold numbers, arrays, functions, "
                           "None, slices and tuples of them", k,
                       (unsigned)it->kind < sizeof value_kind_names / sizeof *value_kind_names ? value_kind_names[it->kind]
                                                                                          : "value of unknown kind");
      t.tup.elems[k] = convert(fe, it, name, depth + 1);
      if (t.tup.elems[k].kind == FV_INVALID) /* said once, at the outermost tuple */
        return depth ? t.tup.elems[k] : invalid(fe, "item %u of the tuple: %s", k, t.tup.elems[k].str.s);
    }
    return v->path ? named_tuple(fe, v, t) : t;
  }
  case KF_VALUE_TUPLE_CLASS: {
    const char **fields = ARENA_ARRAY(&fe->arena, const char *, v->nitems ? v->nitems : 1);
    if (!field_names(fe, v, fields)) return invalid(fe, "a named tuple class needs its name and distinct field names");
    FeNamespace *ns = ARENA_NEW(&fe->arena, FeNamespace);
    ns->name = name;
    ns->tclass = fe_intern(fe, v->path);
    ns->fields = fields;
    ns->nfields = v->nitems;
    return (FeVal){.kind = FV_NAMESPACE, .ns = ns};
  }
  case KF_VALUE_ARRAY: {
    const kf_array *a = &v->array;
    size_t n;
    Type *rec = (unsigned)a->dtype >= KF_DTYPE_RECORD_BASE ? bound_record(fe->ctx, v) : NULL;
    if (a->memory == KF_MEMORY_DEVICE) return captured_array(fe, a, rec);
    if (!array_readable(a, rec != NULL, &n, why, sizeof why)) return invalid(fe, "%s", why);
    if (rec) { /* an array of records: its bytes, as numba-cuda's constant arrays are */
      if ((size_t)rec->size * n > UINT32_MAX) return invalid(fe, "an array too large to be a constant");
      ByteCollect bc = {ARENA_ARRAY(&fe->arena, unsigned char, rec->size * n), rec->size, 0};
      array_each(a, collect_bytes, &bc);
      FeVal r = fe_const_record_array(fe, rec, a->ndim, a->shape, bc.out, bc.n);
      return r.kind == FV_CONSTARR ? r : invalid(fe, "an array of records kfront cannot make a constant of");
    }
    ElemCollect c = {fe, nb_type(fe->ctx, (int)a->dtype), ARENA_ARRAY(&fe->arena, FeVal, n), 0};
    array_each(a, collect_element, &c);
    FeVal r = fe_const_array(fe, c.t, a->ndim, a->shape, c.out, c.n);
    return r.kind == FV_CONSTARR ? r : invalid(fe, "an array kfront cannot make a constant of");
  }
  case KF_VALUE_MODULE:
  case KF_VALUE_PATH:
    if (!v->path || !*v->path) return invalid(fe, "a %s with no path", value_kind_names[v->kind]);
    return v->kind == KF_VALUE_MODULE ? fe_module_value(fe, v->path) : fe_import_value(fe, v->path);
  case KF_VALUE_STRING: {
    if (!v->path) return invalid(fe, "a string with no text");
    FeVal str = {.kind = FV_STR};
    str.str.s = fe_intern(fe, v->path);
    str.str.len = strlen(v->path);
    return str;
  }
  case KF_VALUE_NONE: return (FeVal){.kind = FV_NONE};
  case KF_VALUE_OVERLOAD: {
    if (!v->path || !*v->path) return invalid(fe, "an overloaded function with no path");
    FeVal o = {.kind = FV_OVERLOAD};
    o.str.s = fe_intern(fe, v->path);
    o.str.len = strlen(v->path);
    return o;
  }
  case KF_VALUE_FOREIGN: {
    if (!v->path || !*v->path || !v->function || !*v->function)
      return invalid(fe, "a foreign function with no name or no signature");
    if ((v->scalar.i & ~(int64_t)KF_FOREIGN_COOPERATIVE) != KF_FOREIGN_ABI_NUMBA &&
        (v->scalar.i & ~(int64_t)KF_FOREIGN_COOPERATIVE) != KF_FOREIGN_ABI_C)
      return invalid(fe, "a foreign function of an unknown ABI (%lld)", (long long)v->scalar.i);
    FeVal f = {.kind = FV_FOREIGN};
    f.foreign.symbol = fe_intern(fe, v->path);
    f.foreign.signature = fe_intern(fe, v->function);
    f.foreign.c_abi = (v->scalar.i & ~(int64_t)KF_FOREIGN_COOPERATIVE) == KF_FOREIGN_ABI_C;
    f.foreign.cooperative = (v->scalar.i & KF_FOREIGN_COOPERATIVE) != 0;
    return f;
  }
  case KF_VALUE_UNSUPPORTED: return invalid(fe, "%s, which kernels cannot use", v->path ? v->path : "a value");
  case KF_VALUE_SLICE: {
    if (v->nitems != 3 || !v->items) return invalid(fe, "a slice needs 3 items (start, stop, step), not %u", v->nitems);
    int64_t field[3];
    bool given[3];
    for (unsigned k = 0; k < 3; k++) {
      const kf_value *it = &v->items[k];
      double f, im;
      const char *part = (const char *const[]){"start", "stop", "step"}[k];
      given[k] = it->kind != KF_VALUE_NONE;
      if (given[k] && it->kind != KF_VALUE_INT) return invalid(fe, "the %s of a slice must be an integer or None", part);
      if (given[k] && !scalar_value(it, &field[k], &f, &im, why, sizeof why))
        return invalid(fe, "the %s of a slice: %s", part, why);
      if (given[k] && (it->dtype == KF_UINT64 && field[k] < 0))
        return invalid(fe, "the %s of a slice does not fit in int64", part);
    }
    return fe_const_slice(fe, given[0] ? &field[0] : NULL, given[1] ? &field[1] : NULL, given[2] ? &field[2] : NULL);
  }
  case KF_VALUE_EXCEPTION: {
    if (!v->path || !*v->path) return invalid(fe, "an exception class with no name");
    FeVal e = {.kind = FV_EXCEPTION};
    e.str.s = fe_intern(fe, v->path);
    e.str.len = strlen(v->path);
    return e;
  }
  case KF_VALUE_FUNCTION:
    if (!v->function || !*v->function) return invalid(fe, "a function with no name");
    if (v->source >= fe->nsrcs)
      return invalid(fe, "function '%s' of source %u, but there %s only %u source%s", v->function, v->source,
                     fe->nsrcs == 1 ? "is" : "are", fe->nsrcs, fe->nsrcs == 1 ? "" : "s");
    return (FeVal){.kind = FV_HOST};
  case KF_VALUE_PYMODULE:
  case KF_VALUE_NAMESPACE: { /* a module's attributes are a namespace's members */
    if (v->kind == KF_VALUE_PYMODULE && (!v->path || !*v->path)) return invalid(fe, "a module with no name");
    if (v->nitems && (!v->items || !v->names)) return invalid(fe, "a namespace of %u members with no items or names", v->nitems);
    if (v->kind == KF_VALUE_NAMESPACE && v->path && v->nitems && (v->items[0].kind == KF_VALUE_TUPLE || v->items[0].kind == KF_VALUE_STRING))
      return valued_enum(fe, v, name, depth);
    FeNamespace *ns = ARENA_NEW(&fe->arena, FeNamespace);
    ns->name = name;
    if (v->kind == KF_VALUE_PYMODULE) ns->module = fe_intern(fe, v->path);
    else if (v->path) { /* an enum class: its members' type spelt */
      if (!(ns->enumc = fe_enum_parse_text(fe, v->path, srcloc(NULL, 0, 0))))
        return invalid(fe, "'%s' does not spell an enum member type", v->path);
      kf_value_kind want = ns->enumc->dtype->kind == TY_FLOAT  ? KF_VALUE_FLOAT
                           : ns->enumc->dtype->kind == TY_BOOL ? KF_VALUE_BOOL
                                                               : KF_VALUE_INT;
      for (unsigned k = 0; k < v->nitems; k++)
        if (v->items && v->items[k].kind != want)
          return invalid(fe, "member %u of the enum class is not of its members' type", k);
    }
    ns->n = v->nitems;
    ns->names = ARENA_ARRAY(&fe->arena, const char *, v->nitems ? v->nitems : 1);
    ns->vals = ARENA_ARRAY(&fe->arena, FeVal, v->nitems ? v->nitems : 1);
    for (unsigned k = 0; k < v->nitems; k++) {
      if (!v->names[k] || !*v->names[k]) return invalid(fe, "member %u of the namespace has no name", k);
      for (unsigned j = 0; j < k; j++)
        if (strcmp(ns->names[j], v->names[k]) == 0) return invalid(fe, "the namespace has two members '%s'", v->names[k]);
      ns->names[k] = fe_intern(fe, v->names[k]);
      ns->vals[k] = convert(fe, &v->items[k], arena_printf(&fe->arena, "%s.%s", name, v->names[k]), depth + 1);
      if (ns->enumc && ns->vals[k].kind == FV_VAL) {
        ns->vals[k] = fe_const_int(fe, ns->enumc->dtype, ns->vals[k].c.i);
        ns->vals[k].enumc = ns->enumc;
      }
    }
    return (FeVal){.kind = FV_NAMESPACE, .ns = ns};
  }
  }
  return invalid(fe, "a value of unknown kind %d", (int)v->kind);
}

/* Completes the FUNCTION values of a binding (slot is its FeVal, v what the embedder gave). */
static void bind_functions(FeCtx *fe, FeVal *slot, const kf_value *v) {
  if ((v->kind == KF_VALUE_NAMESPACE || v->kind == KF_VALUE_PYMODULE) && slot->kind == FV_NAMESPACE) {
    for (unsigned k = 0; k < slot->ns->n; k++) bind_functions(fe, &slot->ns->vals[k], &v->items[k]);
    return;
  }
  if (v->kind == KF_VALUE_TUPLE && slot->kind == FV_TUPLE) { /* (square, negate): a tuple of device functions */
    for (unsigned k = 0; k < slot->tup.n; k++) bind_functions(fe, &slot->tup.elems[k], &v->items[k]);
    return;
  }
  if (v->kind != KF_VALUE_FUNCTION || slot->kind != FV_HOST) return;
  FeSource *src = &fe->srcs[v->source];
  FeFunc *fn = fe_find_func(fe, src, v->function);
  if (fn) {
    *slot = (FeVal){.kind = FV_FUNC, .func = fn};
    return;
  }
  FeVal *g = strmap_get(&src->globals, v->function);
  if (g && g->kind == FV_PYFUNC) *slot = *g; /* undecorated: calling it says so */
  else *slot = invalid(fe, "no function '%s' in source %u (%s)", v->function, v->source, src->filename);
}

static bool spec_ok(FeCtx *fe, unsigned i, const kf_function_spec *sp) {
  const char *name = sp->name ? sp->name : "?";
  SrcLoc none = srcloc(NULL, 0, 0);
  const char *bad = NULL;
  if (!sp->name || !*sp->name) bad = "has no name";
  else if (sp->source >= fe->nsrcs) bad = arena_printf(&fe->arena, "names source %u, but there %s only %u source%s",
                                                          sp->source, fe->nsrcs == 1 ? "is" : "are", fe->nsrcs,
                                                          fe->nsrcs == 1 ? "" : "s");
  else if ((unsigned)sp->kind > KF_FUNCTION_GUVECTORIZE) bad = arena_printf(&fe->arena, "has an unknown kind %d", (int)sp->kind);
  else if (sp->nsignatures && !sp->signatures) bad = "has signatures but no signatures pointer";
  else if (sp->opt < -1 || sp->opt > 3) bad = arena_printf(&fe->arena, "has opt %d (expected -1 for the default, or 0 to 3)", sp->opt);
  else if (sp->inline_mode < 0 || sp->inline_mode > 2)
    bad = arena_printf(&fe->arena, "has inline_mode %d (expected 0, 1 \"always\" or 2 \"never\")", sp->inline_mode);
  for (unsigned k = 0; !bad && k < sp->nsignatures; k++)
    if (!sp->signatures[k]) bad = arena_printf(&fe->arena, "has no text for signature %u", k);
  for (unsigned k = 0; !bad && k < 3; k++)
    if (sp->launch_bounds[k] > INT32_MAX || (k && sp->launch_bounds[k] && !sp->launch_bounds[0]))
      bad = arena_printf(&fe->arena, "has launch bound %u of %u (each is at most 2**31-1, and the first, the most "
                         "threads per block, must be given for the others)", k, sp->launch_bounds[k]);
  for (unsigned j = 0; !bad && j < i; j++) {
    const kf_function_spec *o = &fe->opts->compile->functions[j];
    if (o->name && o->source == sp->source && strcmp(o->name, sp->name) == 0) bad = "is given twice";
  }
  if (bad) fe_error(fe, none, "function spec %u ('%s') %s", i, name, bad);
  return !bad;
}

void embed_begin(FeCtx *fe) {
  const kf_compile_options *o = fe->opts->compile;
  SrcLoc none = srcloc(NULL, 0, 0);
  if (o->nbindings && !o->bindings) fe_error(fe, none, "%u bindings given with no bindings pointer", o->nbindings);
  if (o->nfunctions && !o->functions) fe_error(fe, none, "%u function specs given with no functions pointer", o->nfunctions);
  if (o->nextra_sources && !o->extra_sources) fe_error(fe, none, "%u extra sources given with no sources pointer", o->nextra_sources);
  fe->binds = ARENA_ARRAY(&fe->arena, FeBinding, o->nbindings ? o->nbindings : 1);
  for (unsigned i = 0; o->bindings && i < o->nbindings; i++) {
    const kf_binding *b = &o->bindings[i];
    if (!b->name || !*b->name) {
      fe_error(fe, none, "binding %u has no name", i);
      continue;
    }
    if (strmap_get(&fe->bindings, b->name)) {
      fe_error(fe, none, "the name '%s' is bound twice", b->name);
      continue;
    }
    FeBinding *fb = &fe->binds[fe->nbinds++];
    fb->name = fe_intern(fe, b->name);
    fb->value = &b->value;
    fb->val = ARENA_NEW(&fe->arena, FeVal);
    *fb->val = convert(fe, &b->value, fb->name, 0);
    strmap_put(&fe->bindings, fb->name, fb->val);
  }
  fe->spec_found = ARENA_ARRAY(&fe->arena, bool, o->nfunctions ? o->nfunctions : 1);
  for (unsigned i = 0; o->functions && i < o->nfunctions; i++) spec_ok(fe, i, &o->functions[i]);
}

/* The FeFunc the decorator equivalent to sp would give def. */
static FeFunc *spec_func(FeCtx *fe, const kf_function_spec *sp, const PyStmt *def) {
  FeFunc *fn = ARENA_NEW(&fe->arena, FeFunc);
  fn->def = def;
  fn->name = def->funcdef.name;
  fn->loc = fn->deco_loc = def->loc;
  static const FeFuncKind kinds[] = {FN_KERNEL, FN_DEVICE, FN_REDUCE, FN_VECTORIZE, FN_GUVECTORIZE};
  fn->kind = kinds[sp->kind];
  fn->fastmath = sp->fastmath != 0;
  fn->debug = sp->debug != 0;
  fn->lineinfo = sp->lineinfo != 0;
  fn->cache = sp->cache != 0;
  fn->opt = sp->opt;
  fn->inline_opt = sp->inline_mode == 1 ? "always" : sp->inline_mode == 2 ? "never" : NULL;
  fn->forceinline = sp->forceinline != 0;
  memcpy(fn->launch_bounds, sp->launch_bounds, sizeof fn->launch_bounds);
  fn->nsigs = sp->nsignatures;
  fn->sigs = ARENA_ARRAY(&fe->arena, FeSig, sp->nsignatures ? sp->nsignatures : 1);
  /* each signature is parsed as a file of its own, so that an error in it quotes it */
  const char *file = arena_printf(&fe->arena, "<signature of %s>", fn->name);
  for (unsigned k = 0; k < sp->nsignatures; k++) {
    const char *s = sp->signatures[k];
    diag_add_source(fe->diag, file, s, strlen(s));
    nb_parse_signature_text(fe, s, strlen(s), file, 1, 1, &fn->sigs[k]);
    diag_remove_source(fe->diag, s);
    fn->sigs[k].loc = def->loc; /* later errors about the signature point at the def */
  }
  fn->lazy = (fn->kind == FN_KERNEL || fn->kind == FN_REDUCE) && fn->nsigs == 0;
  if ((fn->kind == FN_VECTORIZE || fn->kind == FN_GUVECTORIZE) && fn->nsigs == 0)
    fe_error(fe, def->loc, "'%s' is specified as a %s function, which needs a list of signatures", fn->name,
             function_kind_names[sp->kind]);
  if (fn->kind == FN_GUVECTORIZE) {
    if (!sp->layout || !*sp->layout)
      fe_error(fe, def->loc, "'%s' is specified as a guvectorize function, which needs a layout such as \"(m,n)->(m,n)\"",
               fn->name);
    else
      fn->gu_layout = fe_intern(fe, sp->layout);
    fn->gu_layout_loc = def->loc;
  }
  return fn;
}

FeFunc *embed_spec_func(FeCtx *fe, const PyStmt *def) {
  const kf_compile_options *o = fe->opts->compile;
  for (unsigned i = 0; o->functions && i < o->nfunctions; i++) {
    const kf_function_spec *sp = &o->functions[i];
    if (!sp->name || sp->source != fe->cur->index || strcmp(sp->name, def->funcdef.name) != 0) continue;
    fe->spec_found[i] = true;
    return spec_func(fe, sp, def);
  }
  return NULL;
}

void embed_after_read(FeCtx *fe) {
  for (unsigned i = 0; i < fe->nbinds; i++) bind_functions(fe, fe->binds[i].val, fe->binds[i].value);
  const kf_compile_options *o = fe->opts->compile;
  for (unsigned i = 0; o->functions && i < o->nfunctions; i++) {
    const kf_function_spec *sp = &o->functions[i];
    if (fe->spec_found[i] || !sp->name || sp->source >= fe->nsrcs) continue;
    FeSource *src = &fe->srcs[sp->source];
    fe_error(fe, srcloc(NULL, 0, 0), "function spec %u ('%s'): source %u (%s) defines no function '%s' at its top level",
             i, sp->name, sp->source, src->filename, sp->name);
  }
}

static void report_invalid(FeCtx *fe, const char *name, const FeVal *v) {
  if (v->kind == FV_INVALID) fe_error(fe, srcloc(NULL, 0, 0), "binding '%s': %s", name, v->str.s);
  if (v->kind == FV_NAMESPACE && !v->ns->module) /* a module's attributes are those kernels may read: said where read */
    for (unsigned k = 0; k < v->ns->n; k++)
      report_invalid(fe, arena_printf(&fe->arena, "%s.%s", name, v->ns->names[k]), &v->ns->vals[k]);
}

void embed_end(FeCtx *fe) {
  for (unsigned i = 0; i < fe->nbinds; i++) report_invalid(fe, fe->binds[i].name, fe->binds[i].val);
}

void embed_free(FeCtx *fe) { strmap_free(&fe->bindings); }

/* ---- the canonical text ---------------------------------------------------------------------------------- */

static void put_str(StrBuf *b, const char *s) { sb_printf(b, " %zu:%s", strlen(s), s); }

static void put_sha(StrBuf *b, const unsigned char digest[32]) {
  char hex[65];
  hex_encode(digest, 32, hex);
  sb_printf(b, " sha256 %s", hex);
}

static void hash_element(void *user, kf_dtype t, const unsigned char *p) {
  unsigned char one = p[0] != 0;
  sha256_update(user, t == KF_BOOL ? &one : p, dtype_bytes[t]);
}

typedef struct HashRecord {
  Sha256 *h;
  size_t size;
} HashRecord;

static void hash_record(void *user, kf_dtype t, const unsigned char *p) {
  (void)t;
  HashRecord *r = user;
  sha256_update(r->h, p, r->size);
}

static int by_name(const void *a, const void *b) {
  return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

/* Sorts n named things (each starts with a `const char *` name, at stride `size`) by name into order[];
 * false if a name is NULL or given twice. */
static bool sorted_names(const void *items, size_t size, unsigned n, const char *const **order) {
  for (unsigned i = 0; i < n; i++) {
    order[i] = (const char *const *)(const void *)((const char *)items + i * size);
    if (!*order[i]) return false;
  }
  qsort(order, n, sizeof *order, by_name);
  for (unsigned i = 1; i < n; i++)
    if (strcmp(*order[i - 1], *order[i]) == 0) return false;
  return true;
}

/* A named tuple's or its class's name and field names, in order. */
static bool key_names(const kf_value *v, StrBuf *b) {
  if (!v->path || (v->nitems && !v->names)) return false;
  put_str(b, v->path);
  for (unsigned k = 0; k < v->nitems; k++) {
    if (!v->names[k]) return false;
    put_str(b, v->names[k]);
  }
  return true;
}

static bool key_value(const kf_value *v, unsigned depth, StrBuf *b) {
  if (depth > FE_MAX_NESTING || (unsigned)v->kind > KF_VALUE_FOREIGN) return false;
  sb_printf(b, " %s", value_kind_names[v->kind]);
  switch (v->kind) {
  case KF_VALUE_BOOL:
  case KF_VALUE_INT:
  case KF_VALUE_FLOAT: {
    if (!dtype_valid(v->dtype)) return false;
    int64_t i;
    double f, im;
    char why[160];
    sb_printf(b, " %s", dtype_names[v->dtype]);
    if (!scalar_value(v, &i, &f, &im, why, sizeof why))
      sb_printf(b, " invalid %lld %a %a", (long long)v->scalar.i, v->scalar.f, v->imag);
    else if (dtype_complex(v->dtype)) sb_printf(b, " %a %a", f, im);
    else if (dtype_float(v->dtype)) sb_printf(b, " %a", f);
    else if (dtype_unsigned(v->dtype)) sb_printf(b, " %llu", (unsigned long long)(uint64_t)i);
    else sb_printf(b, " %lld", (long long)i);
    if (v->path) put_str(b, v->path);  /* an enum member's type */
    return true;
  }
  case KF_VALUE_TUPLE:
    if (v->nitems && !v->items) return false;
    if (v->path && !key_names(v, b)) return false; /* a named tuple: its class and fields */
    sb_printf(b, " %u (", v->nitems);
    for (unsigned k = 0; k < v->nitems; k++)
      if (!key_value(&v->items[k], depth + 1, b)) return false;
    sb_puts(b, " )");
    return true;
  case KF_VALUE_ARRAY: {
    const kf_array *a = &v->array;
    size_t n;
    char why[160];
    IrContext *ctx = (unsigned)a->dtype >= KF_DTYPE_RECORD_BASE ? ir_context_new() : NULL;
    Type *rec = ctx ? bound_record(ctx, v) : NULL;
    unsigned rec_size = rec ? rec->size : 0;
    if (ctx) ir_context_free(ctx);
    if (a->memory == KF_MEMORY_DEVICE) { /* captured: what the code depends on, its address, shape and strides */
      if (rec_size) put_str(b, v->path);
      else if (dtype_valid(a->dtype)) sb_printf(b, " %s", dtype_names[a->dtype]);
      sb_printf(b, " device %u", a->ndim);
      for (unsigned k = 0; k < a->ndim && k < KF_MAX_RANK; k++)
        sb_printf(b, " %lld %lld", (long long)a->shape[k], (long long)a->strides[k]);
      sb_printf(b, " @%llx", (unsigned long long)(uintptr_t)a->data);
      return true;
    }
    if (!array_readable(a, rec_size != 0, &n, why, sizeof why)) return false;
    if (rec_size) put_str(b, v->path);
    else sb_printf(b, " %s", dtype_names[a->dtype]);
    sb_printf(b, " %u", a->ndim);
    for (unsigned k = 0; k < a->ndim; k++) sb_printf(b, " %lld", (long long)a->shape[k]);
    Sha256 h;
    sha256_init(&h);
    HashRecord hr = {&h, rec_size};
    if (rec_size) array_each(a, hash_record, &hr);
    else array_each(a, hash_element, &h);
    unsigned char digest[32];
    sha256_final(&h, digest);
    put_sha(b, digest);
    return true;
  }
  case KF_VALUE_MODULE:
  case KF_VALUE_PATH:
  case KF_VALUE_EXCEPTION:
  case KF_VALUE_STRING:
  case KF_VALUE_UNSUPPORTED:
  case KF_VALUE_OVERLOAD:
    if (!v->path) return false;
    put_str(b, v->path);
    return true;
  case KF_VALUE_NONE: return true;
  case KF_VALUE_SLICE:
    if (v->nitems != 3 || !v->items) return false;
    for (unsigned k = 0; k < 3; k++)
      if (!key_value(&v->items[k], depth + 1, b)) return false;
    return true;
  case KF_VALUE_FOREIGN:
    if (!v->path || !v->function) return false;
    put_str(b, v->path);
    put_str(b, v->function);
    sb_printf(b, " abi %lld", (long long)v->scalar.i);
    return true;
  case KF_VALUE_FUNCTION:
    if (!v->function) return false;
    sb_printf(b, " %u", v->source);
    put_str(b, v->function);
    return true;
  case KF_VALUE_TUPLE_CLASS: return key_names(v, b);
  case KF_VALUE_PYMODULE:
  case KF_VALUE_NAMESPACE: {
    if ((v->nitems && (!v->items || !v->names)) || (v->kind == KF_VALUE_PYMODULE && !v->path)) return false;
    /* members by name: (name, index) pairs sorted through their name pointers */
    const char *const **order = mem_alloc(sizeof *order * (v->nitems ? v->nitems : 1));
    bool ok = order && sorted_names(v->names, sizeof *v->names, v->nitems, order);
    if (ok && v->path) put_str(b, v->path);  /* an enum class's member type, a module's name */
    if (ok) sb_printf(b, " %u (", v->nitems);
    for (unsigned k = 0; ok && k < v->nitems; k++) {
      put_str(b, *order[k]);
      ok = key_value(&v->items[order[k] - v->names], depth + 1, b);
    }
    mem_free(order);
    if (ok) sb_puts(b, " )");
    return ok;
  }
  }
  return false;
}

static int by_spec(const void *a, const void *b) {
  const kf_function_spec *x = *(const kf_function_spec *const *)a, *y = *(const kf_function_spec *const *)b;
  if (x->source != y->source) return x->source < y->source ? -1 : 1;
  return strcmp(x->name, y->name);
}

static bool key_specs(const kf_compile_options *o, StrBuf *b) {
  const kf_function_spec **order = mem_alloc(sizeof *order * (o->nfunctions ? o->nfunctions : 1));
  if (!order) return false;
  bool ok = true;
  for (unsigned i = 0; i < o->nfunctions; i++) {
    order[i] = &o->functions[i];
    ok = ok && order[i]->name && (!order[i]->nsignatures || order[i]->signatures);
  }
  if (ok) qsort(order, o->nfunctions, sizeof *order, by_spec);
  for (unsigned i = 0; ok && i < o->nfunctions; i++) {
    const kf_function_spec *sp = order[i];
    if (i && by_spec(&order[i - 1], &order[i]) == 0) ok = false;
    if ((unsigned)sp->kind > KF_FUNCTION_GUVECTORIZE) ok = false;
    if (!ok) break;
    sb_puts(b, "function");
    put_str(b, sp->name);
    sb_printf(b, " source %u kind %s signatures %u", sp->source, function_kind_names[sp->kind], sp->nsignatures);
    for (unsigned k = 0; ok && k < sp->nsignatures; k++) {
      if (!sp->signatures[k]) ok = false;
      else put_str(b, sp->signatures[k]);
    }
    sb_puts(b, " layout");
    put_str(b, sp->kind == KF_FUNCTION_GUVECTORIZE && sp->layout ? sp->layout : "");
    sb_printf(b, " fastmath %d debug %d lineinfo %d opt %d inline %d forceinline %d launch_bounds %u %u %u\n",
              sp->fastmath != 0, sp->debug != 0, sp->lineinfo != 0, sp->opt, sp->inline_mode, sp->forceinline != 0,
              sp->launch_bounds[0], sp->launch_bounds[1], sp->launch_bounds[2]);
  }
  mem_free(order);
  return ok;
}

bool fe_options_key(const kf_compile_options *o, StrBuf *b) {
  static const kf_compile_options none;
  if (!o) o = &none;
  sb_puts(b, "kfront-compile-options 1\nkernels");
  if (o->nkernels && !o->kernels) return false;
  for (unsigned i = 0; i < o->nkernels; i++) {
    if (!o->kernels[i]) return false;
    put_str(b, o->kernels[i]);
  }
  sb_puts(b, "\nsignatures");
  if (o->nsignatures && !o->signatures) return false;
  for (unsigned i = 0; i < o->nsignatures; i++) {
    if (!o->signatures[i]) return false;
    put_str(b, o->signatures[i]);
  }
  sb_printf(b, "\nbounds_check %d\n", o->bounds_check ? 1 : 0);
  if ((o->nextra_sources && !o->extra_sources) || (o->nbindings && !o->bindings) || (o->nfunctions && !o->functions))
    return false;
  for (unsigned i = 0; i < o->nextra_sources; i++) {
    const kf_source *s = &o->extra_sources[i];
    if (!s->text && s->len) return false;
    sb_printf(b, "source %u file", i + 1);
    put_str(b, s->filename ? s->filename : "<input>");
    sb_printf(b, " first_line %u", s->first_line ? s->first_line : 1);
    unsigned char digest[32];
    sha256(s->text ? s->text : "", s->text ? s->len : 0, digest);
    put_sha(b, digest);
    sb_putc(b, '\n');
  }
  const char *const **order = mem_alloc(sizeof *order * (o->nbindings ? o->nbindings : 1));
  bool ok = order && sorted_names(o->bindings, sizeof *o->bindings, o->nbindings, order);
  for (unsigned i = 0; ok && i < o->nbindings; i++) {
    const kf_binding *bd = (const kf_binding *)(const void *)order[i];
    sb_puts(b, "bind");
    put_str(b, bd->name);
    ok = key_value(&bd->value, 0, b);
    sb_putc(b, '\n');
  }
  mem_free(order);
  return ok && key_specs(o, b);
}
