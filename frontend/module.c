/* module.c — fe_compile: reads Python sources and compiles the requested kernels to kir.
 *
 * Each source (the main one, then the embedder's extra sources: a whole module or one function's lines) is
 * parsed and read on its own into its module-level names (FeSource.globals). Before that, embed.c turns the
 * embedder's bindings into FeVals; they shadow module-level names wherever names are looked up (fe_lookup),
 * and a function spec replaces the decorators of the def it names.
 *
 * Module reading never executes anything and never rejects host code. It walks the top-level statements
 * (and the bodies of top-level if/try/with blocks, so that `if __name__ == "__main__":` and guarded imports
 * count) in order:
 *   - imports bind names to dotted paths: `import numpy as np` binds np to "numpy", `from numba import
 *     cuda, float32` binds cuda to "numba.cuda" and float32 to "numba.float32";
 *   - assignments bind names to constants computed with Python's semantics (ints, floats, bools, strings,
 *     None, tuples of them, numpy scalars such as np.float32(0.5), math.pi, aliases of modules, functions
 *     and types); anything else makes the name a host value (an error only if a kernel reads it);
 *   - decorated functions become FeFuncs: @cuda.jit (lazy, eager with a signature or a list of them, or
 *     device=True), @cuda.reduce, @vectorize/@guvectorize with target="cuda"; functions under other
 *     decorators (numba.jit, CPU ufuncs...) and undecorated ones are host code.
 * Then each requested (function, signature) is compiled (lower.c, generated.c), device functions are
 * compiled on demand from their call sites, and at the end unused device function instances are dropped
 * and a function compiled for several argument types gets mangled symbol names. Requested names are looked
 * up in the main source first, then in the others in order; a function named as one of an earlier source
 * has symbols based on name__s<source> (FeFunc.sym). */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "frontend/parser.h"
#include "frontend/type_tree.h"
#include "utils/stack.h"

void fe_error(FeCtx *fe, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(fe->diag, DIAG_ERROR, loc, fmt, ap);
  va_end(ap);
}

static void fe_warning(FeCtx *fe, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fe_warning(FeCtx *fe, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(fe->diag, DIAG_WARNING, loc, fmt, ap);
  va_end(ap);
}

static bool fe_failed(FeCtx *fe) { return fe->diag->nerrors > fe->errors0; }

const char *fe_intern(FeCtx *fe, const char *s) { return arena_strdup(&fe->arena, s); }

FeVal *fe_lookup(FeCtx *fe, const FeSource *src, const char *name) {
  FeVal *v = src->bindings ? strmap_get(src->bindings, name) : fe->nbinds && !src->prelude ? strmap_get(&fe->bindings, name) : NULL;
  return v ? v : strmap_get(&src->globals, name);
}

/* Binds a module-level name of the source being read. */
static void bind(FeCtx *fe, const char *name, FeVal v) {
  FeVal *p = ARENA_NEW(&fe->arena, FeVal);
  *p = v;
  strmap_put(&fe->cur->globals, name, p);
}

FeFunc *fe_find_func(FeCtx *fe, const FeSource *src, const char *name) {
  for (unsigned i = 0; i < fe->nfuncs; i++) {
    FeFunc *fn = fe->funcs[i];
    if (fn->kind != FN_TEMPLATE && (!src || fn->src == src) && strcmp(fn->name, name) == 0) return fn;
  }
  return NULL;
}

const char *fe_func_symbol(FeCtx *fe, const FeFunc *fn) {
  if (fn->src->prelude) return arena_printf(&fe->arena, "kfront_random__%s", fn->name);
  for (unsigned i = 0; i < fe->nfuncs && fn->kind != FN_TEMPLATE; i++) {
    const FeFunc *o = fe->funcs[i];
    if (o != fn && o->kind != FN_TEMPLATE && !o->src->prelude && o->src != fn->src && strcmp(o->name, fn->name) == 0)
      return arena_printf(&fe->arena, "%s__s%u", fn->name, fn->src->index);
  }
  return fn->name;
}

void fe_add_func(FeCtx *fe, FeFunc *fn) {
  if (!fn->src) fn->src = fe->cur;
  /* symbols: a function named as one of an earlier source gets its source's suffix; a prelude's functions
   * (random.c) have symbols of their own, kfront_random__NAME, whatever the user's are named */
  fn->sym = fe_func_symbol(fe, fn);
  if (fe->nfuncs == fe->funcs_cap) {
    fe->funcs_cap = fe->funcs_cap ? 2 * fe->funcs_cap : 16;
    FeFunc **n = ARENA_ARRAY(&fe->arena, FeFunc *, fe->funcs_cap);
    if (fe->nfuncs) memcpy(n, fe->funcs, sizeof *n * fe->nfuncs);
    fe->funcs = n;
  }
  fe->funcs[fe->nfuncs++] = fn;
}

static FeVal host(void) { return (FeVal){.kind = FV_HOST}; }

static FeVal path_val(FeCtx *fe, const char *path) {
  FeVal v = {.kind = FV_PATH};
  v.str.s = fe_intern(fe, path);
  v.str.len = strlen(path);
  return v;
}

FeVal fe_module_value(FeCtx *fe, const char *path) { return path_val(fe, path); }

/* What a dotted path stands for: a type, a known builtin, a module (prefix), or nothing. */
static FeVal resolve_path(FeCtx *fe, const char *path) {
  FeVal r;
  if (fe_random_path(fe, path, &r)) return r;
  Type *t = sema_path_type(fe, path);
  if (t) return (FeVal){.kind = FV_NTYPE, .type = t};
  int bi = sema_lookup_path(fe, path);
  if (bi >= 0) return (FeVal){.kind = FV_BUILTIN, .builtin = bi};
  return path_val(fe, path);
}

/* ---- constants --------------------------------------------------------------------------------------- */

FeVal fe_const_int(FeCtx *fe, Type *t, int64_t i) {
  (void)fe;
  return (FeVal){.kind = FV_VAL, .is_const = true, .type = t, .c.i = i, .nonneg = t->is_unsigned || i >= 0};
}
FeVal fe_const_float(Type *t, double f) { return (FeVal){.kind = FV_VAL, .is_const = true, .type = t, .c.f = f}; }
FeVal fe_const_complex(Type *t, double re, double im) {
  FeVal v = fe_const_float(t, re);
  v.im = im;
  return v;
}

FeVal fe_const_slice(FeCtx *fe, const int64_t *start, const int64_t *stop, const int64_t *step) {
  Type *i64 = ty_i64(fe->ctx);
  int64_t st = step ? *step : 1;
  FeVal *fields = ARENA_ARRAY(&fe->arena, FeVal, 3);
  fields[0] = fe_const_int(fe, i64, start ? *start : st < 0 ? INT64_MAX : 0);
  fields[1] = fe_const_int(fe, i64, stop ? *stop : st < 0 ? INT64_MIN : INT64_MAX);
  fields[2] = fe_const_int(fe, i64, st);
  FeVal v = {.kind = FV_VECTOR, .type = ty_slice(fe->ctx, st != 1)};
  v.tup.n = 3;
  v.tup.elems = fields;
  return v;
}

static bool is_const_scalar(const FeVal *v) { return v->kind == FV_VAL && v->is_const; }

/* Cast of a constant to a numpy/numba scalar type (np.float32(x)), as the value would be stored. */
static bool const_cast_to(FeCtx *fe, const FeVal *v, Type *t, FeVal *out) {
  if (!is_const_scalar(v)) return false;
  bool from_complex = v->type->kind == TY_COMPLEX;
  if (from_complex && t->kind != TY_COMPLEX) return false; /* Python: TypeError; NumPy drops the imaginary part */
  bool from_float = v->type->kind == TY_FLOAT || from_complex;
  double f = from_float ? v->c.f : v->type->is_unsigned ? (double)(uint64_t)v->c.i : (double)v->c.i;
  if (t->kind == TY_COMPLEX) { /* np.complex64(x): each part rounded to the part's precision */
    double im = from_complex ? v->im : 0;
    *out = t->elem->bits == 32 ? fe_const_complex(t, (float)f, (float)im) : fe_const_complex(t, f, im);
    return true;
  }
  if (t->kind == TY_FLOAT) {
    if (t->bits == 32) f = (float)f;
    *out = fe_const_float(t, f);
    return true;
  }
  if (t->kind == TY_BOOL) {
    *out = fe_const_int(fe, t, from_float ? f != 0 : v->c.i != 0);
    return true;
  }
  int64_t i;
  if (from_float) {
    if (!(f > -9.2e18 && f < 9.2e18)) return false;
    i = (int64_t)f;
  } else {
    i = v->c.i;
  }
  if (t->bits < 64) {
    uint64_t mask = (1ull << t->bits) - 1, u = (uint64_t)i & mask;
    i = t->is_unsigned || !(u >> (t->bits - 1)) ? (int64_t)u : (int64_t)(u | ~mask);
  }
  *out = fe_const_int(fe, t, i);
  return true;
}

static FeVal eval_const(FeCtx *fe, const PyExpr *e);
FeVal fe_eval_const(FeCtx *fe, const PyExpr *e) { return eval_const(fe, e); }

/* Shape and elements of nested tuples/lists of numbers; false if ragged or not numbers. */
static bool nested_numbers(const FeVal *v, unsigned depth, int64_t *dims, unsigned *rank, FeVal *out, unsigned *n,
                           unsigned cap) {
  if (v->kind == FV_VAL && v->is_const) {
    if (*rank == 0) *rank = depth;
    if (depth != *rank || *n == cap) return false;
    out[(*n)++] = *v;
    return true;
  }
  if (v->kind != FV_TUPLE || depth >= 8 || v->tup.n == 0) return false;
  if (dims[depth] == 0) dims[depth] = v->tup.n;
  else if (dims[depth] != (int64_t)v->tup.n) return false;
  for (unsigned i = 0; i < v->tup.n; i++)
    if (!nested_numbers(&v->tup.elems[i], depth + 1, dims, rank, out, n, cap)) return false;
  return true;
}

static bool const_cast_to(FeCtx *fe, const FeVal *v, Type *t, FeVal *out);

/* The data of np.array(...): nested lists or tuples of constants, as tuples (module-level lists are host
 * values otherwise: Numba does not freeze them). */
static FeVal eval_nested(FeCtx *fe, const PyExpr *e) {
  if (e->kind != EX_LIST && e->kind != EX_TUPLE) return eval_const(fe, e);
  FeVal t = {.kind = FV_TUPLE};
  t.tup.n = e->elts.n;
  t.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, e->elts.n ? e->elts.n : 1);
  for (unsigned i = 0; i < e->elts.n; i++) {
    t.tup.elems[i] = eval_nested(fe, e->elts.items[i]);
    if (t.tup.elems[i].kind == FV_HOST) return host();
  }
  return fe_tuple_fits(&t, FE_MAX_CONST_ITEMS) ? t : host();
}

/* np.array([[1, 2], [3, 4]], dtype=np.float32): a constant array (for cuda.const.array_like). */
static FeVal eval_np_array(FeCtx *fe, const PyExpr *e) {
  if (e->call.args.n != 1) return host();
  FeVal data = eval_nested(fe, e->call.args.items[0]);
  Type *dtype = NULL;
  for (unsigned k = 0; k < e->call.nkeywords; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    if (!kw->arg || strcmp(kw->arg, "dtype") != 0) return host();
    FeVal d = eval_const(fe, kw->value);
    if (d.kind == FV_NTYPE && (ty_is_scalar(d.type) || d.type->kind == TY_COMPLEX)) dtype = d.type;
    else if (d.kind == FV_STR) dtype = nb_named_type(fe->ctx, d.str.s, NULL);
    if (!dtype) return host();
  }
  enum { CAP = 1 << 16 };
  FeVal *elems = ARENA_ARRAY(&fe->arena, FeVal, CAP);
  int64_t dims[8] = {0};
  unsigned rank = 0, n = 0;
  if (!nested_numbers(&data, 0, dims, &rank, elems, &n, CAP) || rank == 0) return host();
  if (!dtype) {
    bool any_float = false, any_complex = false, all_bool = true;
    for (unsigned i = 0; i < n; i++) {
      any_float = any_float || elems[i].type->kind == TY_FLOAT;
      any_complex = any_complex || elems[i].type->kind == TY_COMPLEX;
      all_bool = all_bool && elems[i].type->kind == TY_BOOL;
    }
    dtype = any_complex ? ty_complex(fe->ctx, ty_f64(fe->ctx)) : any_float ? ty_f64(fe->ctx)
            : all_bool  ? ty_bool(fe->ctx) : ty_i64(fe->ctx);
  }
  return fe_const_array(fe, dtype, rank, dims, elems, n);
}

FeVal fe_const_array(FeCtx *fe, Type *dtype, unsigned rank, const int64_t *dims, const FeVal *elems, unsigned n) {
  if (rank > 8) return host();
  bool zero_d = rank == 0;
  int64_t one = 1;
  if (zero_d) { /* a 0-d constant (np.array(0)): its array of one, read as the view x[0] as a captured one is */
    rank = 1;
    dims = &one;
  }
  FeConstArr *ca = ARENA_NEW(&fe->arena, FeConstArr);
  ca->zero_d = zero_d;
  ca->type = ty_array(fe->ctx, dtype, rank, LAYOUT_C);
  memcpy(ca->dims, dims, sizeof *dims * rank);
  ca->n = n;
  ca->values = ARENA_ARRAY(&fe->arena, Attr, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    FeVal c;
    if (!const_cast_to(fe, &elems[i], dtype, &c)) return host();
    if (dtype->kind == TY_COMPLEX) /* an element of a complex array: its two parts */
      ca->values[i] = attr_array(fe->m, 2, (Attr[]){attr_float(dtype->elem, c.c.f), attr_float(dtype->elem, c.im)});
    else
      ca->values[i] = dtype->kind == TY_FLOAT ? attr_float(dtype, c.c.f) : attr_int(dtype, c.c.i);
  }
  return (FeVal){.kind = FV_CONSTARR, .carr = ca};
}

FeVal fe_captured_array(FeCtx *fe, Type *dtype, unsigned rank, const int64_t *dims, const int64_t *strides,
                        uint64_t address) {
  if (rank > 8) return host();
  bool zero_d = rank == 0;
  int64_t one = 1, esize = ty_size(dtype);
  if (zero_d) { /* its array of one */
    rank = 1;
    dims = &one;
    strides = &esize;
  }
  FeConstArr *ca = ARENA_NEW(&fe->arena, FeConstArr);
  ca->zero_d = zero_d;
  bool c = true, f = true; /* contiguous: typed C or F, as numba-cuda's typeof types a device array */
  int64_t cs = ty_size(dtype), fs = cs;
  for (unsigned k = 0; k < rank; k++) {
    unsigned kc = rank - 1 - k;
    if (dims[kc] != 1 && strides[kc] != cs) c = false;
    if (dims[k] != 1 && strides[k] != fs) f = false;
    cs *= dims[kc];
    fs *= dims[k];
  }
  ca->type = ty_array(fe->ctx, dtype, rank, c ? LAYOUT_C : f ? LAYOUT_F : LAYOUT_A);
  memcpy(ca->dims, dims, sizeof *dims * rank);
  memcpy(ca->strides, strides, sizeof *strides * rank);
  ca->captured = true;
  ca->address = address;
  return (FeVal){.kind = FV_CONSTARR, .carr = ca};
}

FeVal fe_const_record_array(FeCtx *fe, Type *rec, unsigned rank, const int64_t *dims, const unsigned char *bytes,
                            size_t n) {
  if (rank == 0 || rank > 8 || n > UINT32_MAX) return host();
  FeConstArr *ca = ARENA_NEW(&fe->arena, FeConstArr);
  ca->type = ty_array(fe->ctx, rec, rank, LAYOUT_C);
  memcpy(ca->dims, dims, sizeof *dims * rank);
  ca->n = (unsigned)n;
  ca->values = ARENA_ARRAY(&fe->arena, Attr, n ? n : 1);
  for (size_t i = 0; i < n; i++) ca->values[i] = attr_int(ty_int(fe->ctx, 8, true), bytes[i]);
  return (FeVal){.kind = FV_CONSTARR, .carr = ca};
}

/* The record type of a structured dtype's field list [(name, type[, shape]), ...] as NumPy lays it out: fields one
 * after another, packed, or (align) each at a multiple of its alignment and the itemsize a multiple of the
 * largest; a field's type a scalar type, a record dtype, or (nested) another field list. NULL when it is not one. */
static Type *eval_dtype_fields(FeCtx *fe, const PyExpr *list, bool align, unsigned depth) {
  if ((list->kind != EX_LIST && list->kind != EX_TUPLE) || list->elts.n == 0 || list->elts.n > 64 || depth > 8)
    return NULL;
  unsigned n = list->elts.n, offset = 0, max_align = 1;
  RecordField *fields = ARENA_ARRAY(&fe->arena, RecordField, n);
  Type **types = ARENA_ARRAY(&fe->arena, Type *, n);
  for (unsigned i = 0; i < n; i++) {
    const PyExpr *item = list->elts.items[i];
    if (item->kind != EX_TUPLE || item->elts.n < 2 || item->elts.n > 3 || item->elts.items[0]->kind != EX_STR)
      return NULL;
    RecordField *f = &fields[i];
    memset(f, 0, sizeof *f);
    f->name = arena_strndup(&fe->arena, item->elts.items[0]->str.s, item->elts.items[0]->str.len);
    const PyExpr *te = item->elts.items[1];
    if (te->kind == EX_LIST) {
      types[i] = eval_dtype_fields(fe, te, align, depth + 1);
    } else {
      FeVal t = eval_const(fe, te);
      types[i] = t.kind == FV_NTYPE && ty_is_element(t.type) ? t.type
                 : t.kind == FV_STR ? nb_named_type(fe->ctx, t.str.s, NULL) : NULL;
    }
    if (!types[i]) return NULL;
    if (item->elts.n == 3) {
      FeVal sh = eval_const(fe, item->elts.items[2]);
      unsigned nd = sh.kind == FV_TUPLE ? sh.tup.n : 1;
      if (nd == 0 || nd > TY_MAX_FIELD_DIMS) return NULL;
      for (unsigned d = 0; d < nd; d++) {
        const FeVal *x = sh.kind == FV_TUPLE ? &sh.tup.elems[d] : &sh;
        if (x->kind != FV_VAL || !x->is_const || x->type->kind != TY_INT || x->c.i < 1 || x->c.i > (1 << 20)) return NULL;
        f->dims[d] = (unsigned)x->c.i;
      }
      f->ndims = nd;
    }
    unsigned a = align ? ty_align(types[i]) : 1;
    if (a > max_align) max_align = a;
    offset = (offset + a - 1) / a * a;
    f->offset = offset;
    offset += ty_size(types[i]) * ty_field_count(f);
  }
  unsigned size = align ? (offset + max_align - 1) / max_align * max_align : offset;
  return ty_record(fe->ctx, n, fields, types, size, align ? max_align : 1, align);
}

/* np.dtype([(name, type[, shape]), ...], align=...): a record dtype. */
static FeVal eval_np_dtype(FeCtx *fe, const PyExpr *e) {
  if (e->call.args.n != 1) return host();
  bool align = false;
  for (unsigned k = 0; k < e->call.nkeywords; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    FeVal v = kw->arg && strcmp(kw->arg, "align") == 0 ? eval_const(fe, kw->value) : host();
    if (v.kind != FV_VAL || !v.is_const) return host();
    align = v.c.i != 0;
  }
  Type *t = eval_dtype_fields(fe, e->call.args.items[0], align, 0);
  return t ? (FeVal){.kind = FV_NTYPE, .type = t} : host();
}

static bool is_declare_device(const FeVal *f) {
  return f->kind == FV_PATH &&
         (strcmp(f->str.s, "numba.cuda.declare_device") == 0 || strcmp(f->str.s, "kfront.cuda.declare_device") == 0);
}

/* cuda.declare_device(name, sig[, link=..., use_cooperative=..., abi=...]) at module level, as the Python module
 * gives it (KF_VALUE_FOREIGN): a foreign device function of that symbol and signature (a string). Its link items
 * are not read from the source: the embedder gives them (kf_compile_options' links; kfront compile --link), so a
 * link= is a warning. Anything else is no constant (FV_HOST). */
static FeVal eval_declare_device(FeCtx *fe, const PyExpr *e) {
  if (e->call.args.n != 2) return host();
  FeVal name = eval_const(fe, e->call.args.items[0]), sig = eval_const(fe, e->call.args.items[1]);
  if (name.kind != FV_STR || sig.kind != FV_STR || !name.str.len) return host();
  FeVal f = {.kind = FV_FOREIGN};
  f.foreign.symbol = fe_intern(fe, name.str.s);
  f.foreign.signature = fe_intern(fe, sig.str.s);
  for (unsigned k = 0; k < e->call.nkeywords; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    FeVal v = kw->arg ? eval_const(fe, kw->value) : host();
    if (kw->arg && strcmp(kw->arg, "link") == 0) {
      fe_warning(fe, kw->loc, "the link items of cuda.declare_device are not read from the source: give the files "
                 "to the compiler (kfront compile --link FILE, kf_compile_options' links)");
    } else if (kw->arg && strcmp(kw->arg, "use_cooperative") == 0 && is_const_scalar(&v)) {
      f.foreign.cooperative = v.c.i != 0;
    } else if (kw->arg && strcmp(kw->arg, "abi") == 0 && v.kind == FV_STR &&
               (strcmp(v.str.s, "numba") == 0 || strcmp(v.str.s, "c") == 0)) {
      f.foreign.c_abi = strcmp(v.str.s, "c") == 0;
    } else {
      return host();
    }
  }
  return f;
}

static FeVal eval_call_const(FeCtx *fe, const PyExpr *e) {
  FeVal f = eval_const(fe, e->call.func);
  if (is_declare_device(&f)) return eval_declare_device(fe, e);
  if (f.kind == FV_PATH && (strcmp(f.str.s, "numpy.array") == 0 || strcmp(f.str.s, "numpy.asarray") == 0))
    return eval_np_array(fe, e);
  if (f.kind == FV_BUILTIN && f.builtin == BI_NP_DTYPE) return eval_np_dtype(fe, e);
  if (e->call.nkeywords) return host();
  unsigned n = e->call.args.n;
  FeVal a[4];
  if (n > 4) return host();
  if (f.kind == FV_BUILTIN && f.builtin == BI_SLICE && n >= 1 && n <= 3) { /* a slice of constant integers or None */
    int64_t c[3];
    bool given[3] = {false, false, false};
    for (unsigned i = 0; i < n; i++) {
      FeVal x = eval_const(fe, e->call.args.items[i]);
      unsigned k = n == 1 ? 1 : i;
      if (x.kind == FV_NONE) continue;
      if (x.kind != FV_VAL || !x.is_const || x.type->kind != TY_INT || (x.type->is_unsigned && x.c.i < 0)) return host();
      c[k] = x.c.i;
      given[k] = true;
    }
    return fe_const_slice(fe, given[0] ? &c[0] : NULL, given[1] ? &c[1] : NULL, given[2] ? &c[2] : NULL);
  }
  for (unsigned i = 0; i < n; i++) {
    a[i] = eval_const(fe, e->call.args.items[i]);
    if (a[i].kind != FV_VAL || !a[i].is_const) {
      if (!(f.kind == FV_BUILTIN && (f.builtin == BI_LEN || f.builtin == BI_MIN || f.builtin == BI_MAX || f.builtin == BI_TUPLE) &&
            a[i].kind == FV_TUPLE))
        return host();
    }
  }
  FeVal out;
  IrContext *ctx = fe->ctx;
  if (f.kind == FV_NTYPE && n == 1) return const_cast_to(fe, &a[0], f.type, &out) ? out : host();
  if (f.kind != FV_BUILTIN) return host();
  switch (f.builtin) {
  case BI_INT:
    if (n == 1 && a[0].type->kind == TY_COMPLEX) return host(); /* Python: TypeError */
    if (n == 1 && a[0].type->kind == TY_FLOAT) return const_cast_to(fe, &a[0], ty_i64(ctx), &out) ? out : host();
    if (n == 1 && a[0].type->kind == TY_BOOL) return fe_const_int(fe, ty_i64(ctx), a[0].c.i);
    return n == 1 ? a[0] : host();
  case BI_FLOAT:
    return n == 1 && const_cast_to(fe, &a[0], ty_f64(ctx), &out) ? out : host();
  case BI_COMPLEX: { /* complex(re[, im]) of real constants (or one complex) */
    Type *c128 = ty_complex(ctx, ty_f64(ctx));
    if (n == 1) return const_cast_to(fe, &a[0], c128, &out) ? out : host();
    FeVal re, im;
    if (n != 2 || a[0].type->kind == TY_COMPLEX || a[1].type->kind == TY_COMPLEX ||
        !const_cast_to(fe, &a[0], ty_f64(ctx), &re) || !const_cast_to(fe, &a[1], ty_f64(ctx), &im))
      return host();
    return fe_const_complex(c128, re.c.f, im.c.f);
  }
  case BI_ABS:
    if (n != 1) return host();
    if (a[0].type->kind == TY_COMPLEX) {
      double r = hypot(a[0].c.f, a[0].im);
      return fe_const_float(a[0].type->elem, a[0].type->elem->bits == 32 ? (double)(float)r : r);
    }
    if (a[0].type->kind == TY_FLOAT) return fe_const_float(a[0].type, fabs(a[0].c.f));
    if (a[0].type->kind == TY_INT && !a[0].type->is_unsigned && a[0].c.i != INT64_MIN)
      return fe_const_int(fe, a[0].type, a[0].c.i < 0 ? -a[0].c.i : a[0].c.i);
    return host();
  case BI_LEN: return n == 1 && a[0].kind == FV_TUPLE ? fe_const_int(fe, ty_i64(ctx), a[0].tup.n) : host();
  case BI_TUPLE: { /* tuple() and tuple(t) of a tuple, as in kernels */
    if (n == 1) return a[0].kind == FV_TUPLE ? a[0] : host();
    FeVal empty = {.kind = FV_TUPLE};
    empty.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, 1);
    return n == 0 ? empty : host();
  }
  case BI_MIN:
  case BI_MAX: {
    FeVal *items = a;
    unsigned m = n;
    if (n == 1 && a[0].kind == FV_TUPLE) {
      items = a[0].tup.elems;
      m = a[0].tup.n;
    }
    if (m == 0) return host();
    FeVal best = items[0];
    for (unsigned i = 1; i < m; i++) {
      FeVal lt;
      if (!sema_py_compare(ctx, CMP_LT, &items[i], &best, &lt)) return host();
      bool take = f.builtin == BI_MIN ? lt.c.i : false;
      if (f.builtin == BI_MAX) {
        FeVal gt;
        if (!sema_py_compare(ctx, CMP_GT, &items[i], &best, &gt)) return host();
        take = gt.c.i;
      }
      if (take) best = items[i];
    }
    return best;
  }
  case BI_MATH_FLOOR:
  case BI_MATH_CEIL:
  case BI_MATH_SQRT: {
    if (n != 1 || !const_cast_to(fe, &a[0], ty_f64(ctx), &out)) return host();
    double x = out.c.f;
    if (f.builtin == BI_MATH_SQRT) return x >= 0 ? fe_const_float(ty_f64(ctx), sqrt(x)) : host();
    x = f.builtin == BI_MATH_FLOOR ? floor(x) : ceil(x);
    if (!(x > -9.2e18 && x < 9.2e18)) return host();
    return fe_const_int(fe, ty_i64(ctx), (int64_t)x);
  }
  default: return host();
  }
}

static bool tuple_fits(const FeVal *v, unsigned depth, unsigned *items, unsigned max_items) {
  if (depth > FE_MAX_NESTING) return false;
  for (unsigned i = 0; i < v->tup.n; i++) {
    const FeVal *x = &v->tup.elems[i];
    if (x->kind == FV_TUPLE ? !tuple_fits(x, depth + 1, items, max_items)
                            : (*items += x->kind == FV_VECTOR ? x->tup.n : 1) > max_items) /* a vector: its fields */
      return false;
  }
  return true;
}

bool fe_tuple_fits(const FeVal *v, unsigned max_items) {
  unsigned items = 0;
  return tuple_fits(v, 1, &items, max_items);
}

/* a op b of two module-level values. */
static FeVal const_binop(FeCtx *fe, PyBinOp op, FeVal a, FeVal b) {
  if (op == BIN_ADD && a.kind == FV_TUPLE && b.kind == FV_TUPLE) {
    FeVal t = {.kind = FV_TUPLE};
    t.tup.n = a.tup.n + b.tup.n;
    t.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, t.tup.n ? t.tup.n : 1);
    if (a.tup.n) memcpy(t.tup.elems, a.tup.elems, sizeof(FeVal) * a.tup.n);
    if (b.tup.n) memcpy(t.tup.elems + a.tup.n, b.tup.elems, sizeof(FeVal) * b.tup.n);
    return fe_tuple_fits(&t, FE_MAX_CONST_ITEMS) ? t : host();
  }
  FeVal out;
  return sema_py_binop(fe->ctx, op, &a, &b, &out) ? (out.literal = false, out) : host();
}

/* A module-level expression, with Python's semantics; FV_HOST when it is not a compile-time constant (or
 * nested too deeply for the thread's stack: a kernel that uses it then says it is not a constant). */
static FeVal eval_const(FeCtx *fe, const PyExpr *e) {
  IrContext *ctx = fe->ctx;
  FeVal out;
  if (stack_exhausted()) return host();
  switch (e->kind) {
  case EX_INT:
    if (e->intlit.big == 0) return fe_const_int(fe, ty_i64(ctx), e->intlit.value);
    if (e->intlit.big == 1) return fe_const_int(fe, ty_int(ctx, 64, true), e->intlit.value);
    return host();
  case EX_FLOAT: return fe_const_float(ty_f64(ctx), e->fval);
  case EX_COMPLEX: return fe_const_complex(ty_complex(ctx, ty_f64(ctx)), 0, e->fval);
  case EX_BOOL: return fe_const_int(fe, ty_bool(ctx), e->bval);
  case EX_NONE: return (FeVal){.kind = FV_NONE};
  case EX_STR: {
    FeVal v = {.kind = e->str.bytes ? FV_BYTES : FV_STR};
    v.str.s = e->str.s;
    v.str.len = e->str.len;
    return v;
  }
  case EX_NAME: {
    FeVal *g = fe_lookup(fe, fe->cur, e->name);
    if (g) return g->kind == FV_INVALID ? host() : *g;
    int bi = -1;
    char buf[64];
    if (strlen(e->name) < 40) {
      snprintf(buf, sizeof buf, "builtins.%s", e->name);
      bi = sema_lookup_path(fe, buf);
    }
    return bi >= 0 ? (FeVal){.kind = FV_BUILTIN, .builtin = bi} : host();
  }
  case EX_ATTRIBUTE: {
    FeVal v = eval_const(fe, e->attribute.value);
    if (v.kind == FV_NAMESPACE) {
      for (unsigned i = 0; i < v.ns->n; i++)
        if (strcmp(v.ns->names[i], e->attribute.attr) == 0)
          return v.ns->vals[i].kind == FV_INVALID ? host() : v.ns->vals[i];
      return host();
    }
    if (v.kind != FV_PATH) return host();
    return fe_import_value(fe, arena_printf(&fe->arena, "%s.%s", v.str.s, e->attribute.attr));
  }
  case EX_UNARY: {
    FeVal a = eval_const(fe, e->unary.operand);
    return sema_py_unary(ctx, e->unary.op, &a, &out) ? (out.literal = false, out) : host();
  }
  case EX_BINARY: {
    /* a + b + ... + z: the chain of left operands by a loop (it is as long as the source) */
    size_t n = 0;
    for (const PyExpr *x = e; x->kind == EX_BINARY; x = x->binary.lhs) n++;
    const PyExpr **links = ARENA_ARRAY(&fe->arena, const PyExpr *, n);
    if (!links) return host();
    n = 0;
    for (const PyExpr *x = e; x->kind == EX_BINARY; x = x->binary.lhs) links[n++] = x;
    FeVal a = eval_const(fe, links[n - 1]->binary.lhs);
    while (n--) a = const_binop(fe, links[n]->binary.op, a, eval_const(fe, links[n]->binary.rhs));
    return a;
  }
  case EX_COMPARE: {
    FeVal left = eval_const(fe, e->compare.left);
    for (unsigned i = 0; i < e->compare.comparators.n; i++) {
      FeVal right = eval_const(fe, e->compare.comparators.items[i]);
      if (!sema_py_compare(ctx, e->compare.ops[i], &left, &right, &out)) return host();
      if (!out.c.i) return out.literal = false, out;
      left = right;
    }
    return out.literal = false, out;
  }
  case EX_BOOLOP: {
    FeVal v = host();
    for (unsigned i = 0; i < e->boolop.values.n; i++) {
      v = eval_const(fe, e->boolop.values.items[i]);
      if (!is_const_scalar(&v)) return host();
      bool truth = v.type->kind == TY_FLOAT ? v.c.f != 0 : v.c.i != 0;
      if (e->boolop.op == BOOL_AND ? !truth : truth) return v;
    }
    return v;
  }
  case EX_IFEXP: {
    FeVal t = eval_const(fe, e->ifexp.test);
    if (!is_const_scalar(&t)) return host();
    bool truth = t.type->kind == TY_FLOAT ? t.c.f != 0 : t.c.i != 0;
    return eval_const(fe, truth ? e->ifexp.body : e->ifexp.orelse);
  }
  case EX_TUPLE: {
    FeVal t = {.kind = FV_TUPLE};
    t.tup.n = e->elts.n;
    t.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, e->elts.n ? e->elts.n : 1);
    for (unsigned i = 0; i < e->elts.n; i++) {
      t.tup.elems[i] = eval_const(fe, e->elts.items[i]);
      if (t.tup.elems[i].kind == FV_HOST) return host();
    }
    return fe_tuple_fits(&t, FE_MAX_CONST_ITEMS) ? t : host();
  }
  case EX_SUBSCRIPT: {
    FeVal v = eval_const(fe, e->subscript.value), i = eval_const(fe, e->subscript.index);
    if (v.kind != FV_TUPLE || !is_const_scalar(&i) || i.type->kind != TY_INT) return host();
    int64_t k = i.c.i < 0 ? i.c.i + (int64_t)v.tup.n : i.c.i;
    return k >= 0 && k < (int64_t)v.tup.n ? v.tup.elems[k] : host();
  }
  case EX_CALL: return eval_call_const(fe, e);
  default: return host();
  }
}

/* ---- decorators ------------------------------------------------------------------------------------- */

static unsigned *line_starts(FeCtx *fe, FeSource *src, unsigned *nlines) {
  if (!src->line_starts) {
    unsigned n = 1;
    for (size_t i = 0; i < src->len; i++) n += src->text[i] == '\n';
    unsigned *ls = ARENA_ARRAY(&fe->arena, unsigned, n + 1);
    unsigned k = 1;
    for (size_t i = 0; i < src->len; i++)
      if (src->text[i] == '\n') ls[k++] = (unsigned)(i + 1);
    src->line_starts = ls;
    src->nlines = n;
  }
  *nlines = src->nlines;
  return src->line_starts;
}

/* Where the characters of a string literal of the source being read start (past its prefix and opening
 * quotes). */
static void string_start(FeCtx *fe, const PyExpr *s, unsigned *line, unsigned *col) {
  FeSource *src = fe->cur;
  const char *text = src->text;
  size_t len = src->len;
  *line = s->loc.line;
  *col = s->loc.col;
  unsigned nlines;
  unsigned *ls = line_starts(fe, src, &nlines);
  if (s->loc.line < src->first_line || s->loc.line - src->first_line >= nlines) return;
  size_t off = ls[s->loc.line - src->first_line];
  for (unsigned c = 1; c < s->loc.col && off < len; c++) {
    unsigned char ch = (unsigned char)text[off++];
    if (ch >= 0x80)
      while (off < len && ((unsigned char)text[off] & 0xC0) == 0x80) off++;
  }
  unsigned skip = 0;
  while (off + skip < len && strchr("rRbBuUfF", text[off + skip]) && text[off + skip]) skip++;
  if (off + skip < len) {
    char q = text[off + skip];
    if (q == '\'' || q == '"') {
      bool triple = off + skip + 2 < len && text[off + skip + 1] == q && text[off + skip + 2] == q;
      skip += triple ? 3 : 1;
    }
  }
  *col += skip;
}

/* A signature given as a string or written as an expression. */
static bool read_signature(FeCtx *fe, const PyExpr *e, FeSig *out) {
  if (e->kind == EX_STR) {
    unsigned line, col;
    string_start(fe, e, &line, &col);
    bool ok = nb_parse_signature_text(fe, e->str.s, e->str.len, fe->cur->filename, line, col, out);
    out->loc = e->loc;
    return ok;
  }
  return nb_parse_signature(fe, e, out);
}

/* A list of signatures, a single one, or (for @cuda.jit) a tuple of argument types. */
static bool read_signatures(FeCtx *fe, FeFunc *fn, const PyExpr *e) {
  if (e->kind == EX_LIST || (e->kind == EX_TUPLE && e->elts.n && e->elts.items[0]->kind == EX_STR)) {
    fn->nsigs = e->elts.n;
    fn->sigs = ARENA_ARRAY(&fe->arena, FeSig, e->elts.n ? e->elts.n : 1);
    for (unsigned i = 0; i < e->elts.n; i++)
      if (!read_signature(fe, e->elts.items[i], &fn->sigs[i])) return false;
    return true;
  }
  fn->nsigs = 1;
  fn->sigs = ARENA_NEW(&fe->arena, FeSig);
  return read_signature(fe, e, &fn->sigs[0]);
}

static int const_bool_opt(FeCtx *fe, const PyKeyword *k) {
  FeVal v = eval_const(fe, k->value);
  if (is_const_scalar(&v) && v.type->kind != TY_FLOAT) return v.c.i != 0;
  fe_error(fe, k->value->loc, "option '%s' must be a constant True or False", k->arg);
  return -1;
}

/* cuda.jit(launch_bounds=...): an integer (the most threads per block) or a tuple or list of one to three
 * (then the fewest blocks per multiprocessor, the most blocks per cluster), numba-cuda's forms; None or () is none.
 * Checked as kfront_launch_bounds (python/kfront/cuda/dispatcher.py) checks the option. */
static void read_launch_bounds(FeCtx *fe, FeFunc *fn, const PyExpr *e) {
  const PyExpr *one = e;
  const PyExprList *items = e->kind == EX_TUPLE || e->kind == EX_LIST ? &e->elts : NULL;
  unsigned n = items ? items->n : 1;
  if (!items && eval_const(fe, e).kind == FV_NONE) return;
  if (n > 3) {
    fe_error(fe, e->loc, "Got %u launch bounds. A maximum of three are supported: (max_threads_per_block, "
             "min_blocks_per_sm, max_blocks_per_cluster)", n);
    return;
  }
  for (unsigned i = 0; i < n; i++) {
    if (items) one = items->items[i];
    FeVal v = eval_const(fe, one);
    if (!is_const_scalar(&v) || v.type->kind != TY_INT) {
      fe_error(fe, one->loc, "launch_bounds must be an integer or a tuple of up to three integers");
      return;
    }
    int64_t lo = i == 0 ? 1 : 0;
    if (v.c.i < lo || v.c.i > INT32_MAX) {
      fe_error(fe, one->loc, "launch bound %u (%s) is %" PRId64 ": it must be from %" PRId64 " to 2**31-1", i + 1,
               i == 0 ? "max_threads_per_block" : i == 1 ? "min_blocks_per_sm" : "max_blocks_per_cluster", v.c.i, lo);
      return;
    }
    fn->launch_bounds[i] = (unsigned)v.c.i;
  }
}

/* fastmath=: True or False, or a set or dict display of LLVM fast-math flags, which numba-cuda 0.30.4 takes as
 * True when it is not empty, whatever the flags ({'nnan': False} too: lower_math.c). */
static int fastmath_opt(FeCtx *fe, const PyKeyword *k) {
  const PyExpr *v = k->value;
  if (v->kind == EX_SET) return v->elts.n != 0;
  if (v->kind == EX_DICT) return v->dict.keys.n != 0;
  return const_bool_opt(fe, k);
}

/* Reads the decorators of a def; returns the FeFunc, or NULL when the function is host code. */
static FeFunc *read_decorated(FeCtx *fe, const PyStmt *def) {
  const PyExprList *decos = &def->funcdef.decorators;
  for (unsigned d = decos->n; d-- > 0;) {
    const PyExpr *deco = decos->items[d];
    const PyExpr *callee = deco->kind == EX_CALL ? deco->call.func : deco;
    FeVal f = eval_const(fe, callee);
    if (f.kind != FV_BUILTIN) continue;
    int bi = f.builtin;
    if (bi == BI_NUMBA_JIT || bi == BI_NJIT) return NULL;
    if (bi != BI_CUDA_JIT && bi != BI_CUDA_REDUCE && bi != BI_VECTORIZE && bi != BI_GUVECTORIZE) continue;
    FeFunc *fn = ARENA_NEW(&fe->arena, FeFunc);
    fn->def = def;
    fn->name = def->funcdef.name;
    fn->loc = def->loc;
    fn->deco_loc = deco->loc;
    fn->fastmath = fn->debug = fn->lineinfo = fn->opt = fn->cache = -1;
    const PyExprList *args = deco->kind == EX_CALL ? &deco->call.args : NULL;
    PyKeyword **kws = deco->kind == EX_CALL ? deco->call.keywords : NULL;
    unsigned nkws = deco->kind == EX_CALL ? deco->call.nkeywords : 0;
    if (bi == BI_CUDA_REDUCE) {
      fn->kind = FN_REDUCE;
      fn->lazy = true;
      if (deco->kind == EX_CALL) fe_error(fe, deco->loc, "@cuda.reduce takes no arguments");
      return fn;
    }
    if (bi == BI_VECTORIZE || bi == BI_GUVECTORIZE) {
      fn->kind = bi == BI_VECTORIZE ? FN_VECTORIZE : FN_GUVECTORIZE;
      const char *target = NULL;
      for (unsigned i = 0; i < nkws; i++) {
        if (!kws[i]->arg) continue;
        if (strcmp(kws[i]->arg, "target") == 0) {
          FeVal t = eval_const(fe, kws[i]->value);
          target = t.kind == FV_STR ? t.str.s : "?";
        } else if (strcmp(kws[i]->arg, "fastmath") == 0) {
          fn->fastmath = fastmath_opt(fe, kws[i]);
        }
      }
      if (!target || (strcmp(target, "cuda") != 0 && strcmp(target, "gpu") != 0)) return NULL; /* a CPU ufunc */
      if (!args || args->n == 0) {
        fe_error(fe, deco->loc, "@%s with target=\"cuda\" needs a list of signatures", sema_builtin_name(bi));
        return fn;
      }
      read_signatures(fe, fn, args->items[0]);
      if (fn->kind == FN_GUVECTORIZE) {
        if (args->n < 2 || args->items[1]->kind != EX_STR) {
          fe_error(fe, deco->loc, "@guvectorize needs a layout string such as \"(m,n)->(m,n)\"");
        } else {
          fn->gu_layout = args->items[1]->str.s;
          fn->gu_layout_loc = args->items[1]->loc;
        }
      }
      return fn;
    }
    /* cuda.jit */
    fn->kind = FN_KERNEL;
    fn->lazy = true;
    if (args && args->n > 1) fe_error(fe, args->items[1]->loc, "cuda.jit takes one positional argument (the signature)");
    if (args && args->n >= 1) {
      fn->lazy = false;
      read_signatures(fe, fn, args->items[0]);
    }
    for (unsigned i = 0; i < nkws; i++) {
      const PyKeyword *k = kws[i];
      if (!k->arg) {
        fe_error(fe, k->loc, "**kwargs in a decorator are not supported");
        continue;
      }
      if (strcmp(k->arg, "device") == 0) {
        if (const_bool_opt(fe, k) == 1) fn->kind = FN_DEVICE;
      } else if (strcmp(k->arg, "fastmath") == 0) {
        fn->fastmath = fastmath_opt(fe, k);
      } else if (strcmp(k->arg, "debug") == 0) {
        fn->debug = const_bool_opt(fe, k);
      } else if (strcmp(k->arg, "lineinfo") == 0) {
        fn->lineinfo = const_bool_opt(fe, k);
      } else if (strcmp(k->arg, "cache") == 0) {
        fn->cache = const_bool_opt(fe, k);
      } else if (strcmp(k->arg, "opt") == 0) {
        FeVal v = eval_const(fe, k->value);
        if (is_const_scalar(&v) && v.type->kind != TY_FLOAT) fn->opt = (int)v.c.i;
        else fe_error(fe, k->value->loc, "option 'opt' must be a constant");
      } else if (strcmp(k->arg, "inline") == 0) {
        FeVal v = eval_const(fe, k->value);
        if (v.kind == FV_STR && (strcmp(v.str.s, "always") == 0 || strcmp(v.str.s, "never") == 0))
          fn->inline_opt = v.str.s;
        else if (is_const_scalar(&v) && v.type->kind == TY_BOOL)
          fn->inline_opt = v.c.i ? "always" : "never";
        else
          fe_error(fe, k->value->loc, "option 'inline' must be \"always\", \"never\", True or False");
      } else if (strcmp(k->arg, "forceinline") == 0) {
        fn->forceinline = const_bool_opt(fe, k) == 1;
      } else if (strcmp(k->arg, "launch_bounds") == 0) {
        read_launch_bounds(fe, fn, k->value);
      } else if (strcmp(k->arg, "sig") == 0 || strcmp(k->arg, "signature") == 0 || strcmp(k->arg, "func_or_sig") == 0) {
        fn->lazy = false;
        read_signatures(fe, fn, k->value);
      } else if (strcmp(k->arg, "max_registers") == 0 || strcmp(k->arg, "link") == 0 ||
                 strcmp(k->arg, "lto") == 0 || strcmp(k->arg, "boundscheck") == 0) {
        fe_warning(fe, k->loc, "cuda.jit option '%s' is ignored by kfront", k->arg);
      } else {
        fe_error(fe, k->loc, "unknown cuda.jit option '%s'", k->arg);
      }
    }
    if (fn->kind == FN_DEVICE && fn->nsigs == 0) fn->lazy = false;
    return fn;
  }
  return NULL;
}

/* ---- module walk ------------------------------------------------------------------------------------- */

static void assign_target(FeCtx *fe, const PyExpr *t, FeVal v) {
  if (t->kind == EX_NAME) {
    bind(fe, t->name, v);
  } else if (t->kind == EX_TUPLE || t->kind == EX_LIST) {
    bool split = v.kind == FV_TUPLE && v.tup.n == t->elts.n;
    for (unsigned i = 0; i < t->elts.n; i++) assign_target(fe, t->elts.items[i], split ? v.tup.elems[i] : host());
  } else if (t->kind == EX_STARRED) {
    assign_target(fe, t->value, host());
  }
}

static void mark_host_targets(FeCtx *fe, const PyStmtList *l);

static void read_import(FeCtx *fe, const PyStmt *s) {
  for (unsigned i = 0; i < s->import.n; i++) {
    const PyAlias *a = s->import.names[i];
    if (s->kind == ST_IMPORT) {
      if (a->asname) {
        bind(fe, a->asname, path_val(fe, a->name));
      } else {
        const char *dot = strchr(a->name, '.');
        bind(fe, dot ? arena_strndup(&fe->arena, a->name, (size_t)(dot - a->name)) : a->name,
             path_val(fe, dot ? arena_strndup(&fe->arena, a->name, (size_t)(dot - a->name)) : a->name));
      }
      continue;
    }
    if (s->import.level || !s->import.module) continue; /* relative imports: host code */
    const char *mod = s->import.module;
    if (strcmp(a->name, "*") == 0) {
      static const char *const numba_star[] = {"cuda", "vectorize", "guvectorize", "jit", "njit"};
      if (strcmp(mod, "numba") == 0) {
        for (unsigned k = 0; k < sizeof numba_star / sizeof *numba_star; k++)
          bind(fe, numba_star[k], resolve_path(fe, arena_printf(&fe->arena, "numba.%s", numba_star[k])));
        static const char *const tn[] = {"int8",   "int16",  "int32",   "int64",   "uint8",   "uint16", "uint32",
                                         "uint64", "float32", "float64", "boolean", "bool_",  "intp",   "void",
                                         "float16", "uintp",  "b1",      "i1",      "i2",     "i4",     "i8",
                                         "u1",     "u2",     "u4",      "u8",      "f4",      "f8"};
        for (unsigned k = 0; k < sizeof tn / sizeof *tn; k++)
          bind(fe, tn[k], resolve_path(fe, arena_printf(&fe->arena, "numba.%s", tn[k])));
      } else if (strcmp(mod, "math") == 0) {
        /* every name of math the frontend knows */
        for (unsigned k = 0; fe_builtin_path(k); k++) {
          const char *p = fe_builtin_path(k);
          if (strncmp(p, "math.", 5) == 0 && !strchr(p + 5, '.')) bind(fe, p + 5, fe_import_value(fe, p));
        }
      }
      continue;
    }
    const char *name = a->asname ? a->asname : a->name;
    bind(fe, name, fe_import_value(fe, arena_printf(&fe->arena, "%s.%s", mod, a->name)));
  }
}

FeVal fe_import_value(FeCtx *fe, const char *path) {
  FeVal v = resolve_path(fe, path);
  if (v.kind == FV_BUILTIN && (v.builtin == BI_MATH_PI || v.builtin == BI_MATH_E || v.builtin == BI_MATH_TAU ||
                               v.builtin == BI_MATH_INF || v.builtin == BI_MATH_NAN)) {
    double c = v.builtin == BI_MATH_PI ? M_PI : v.builtin == BI_MATH_E ? M_E : v.builtin == BI_MATH_TAU ? 2 * M_PI
               : v.builtin == BI_MATH_INF ? INFINITY : NAN;
    v = fe_const_float(ty_f64(fe->ctx), c);
  }
  return v;
}

static void read_stmts(FeCtx *fe, const PyStmtList *l) {
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_IMPORT:
    case ST_IMPORTFROM: read_import(fe, s); break;
    case ST_ASSIGN: {
      FeVal v = eval_const(fe, s->assign.value);
      for (unsigned t = 0; t < s->assign.targets.n; t++) assign_target(fe, s->assign.targets.items[t], v);
      break;
    }
    case ST_ANNASSIGN:
      if (s->annassign.value) assign_target(fe, s->annassign.target, eval_const(fe, s->annassign.value));
      break;
    case ST_AUGASSIGN:
      if (s->augassign.target->kind == EX_NAME) {
        FeVal *old = strmap_get(&fe->cur->globals, s->augassign.target->name);
        FeVal rhs = eval_const(fe, s->augassign.value), out;
        if (old && sema_py_binop(fe->ctx, s->augassign.op, old, &rhs, &out)) {
          out.literal = false;
          bind(fe, s->augassign.target->name, out);
        } else {
          bind(fe, s->augassign.target->name, host());
        }
      }
      break;
    case ST_FUNCDEF: {
      FeFunc *fn = embed_spec_func(fe, s);
      if (!fn) fn = read_decorated(fe, s);
      if (fn) {
        fe_add_func(fe, fn);
        bind(fe, fn->name, (FeVal){.kind = FV_FUNC, .func = fn});
      } else {
        FeFunc *py = ARENA_NEW(&fe->arena, FeFunc);
        py->def = s;
        py->name = s->funcdef.name;
        py->loc = s->loc;
        bind(fe, s->funcdef.name, (FeVal){.kind = FV_PYFUNC, .func = py});
      }
      break;
    }
    case ST_CLASSDEF: {
      FeVal v = fe_enum_class(fe, s);
      bind(fe, s->classdef.name, v.kind == FV_HOST ? fe_exception_class(fe, s) : v);
      break;
    }
    case ST_IF:
      read_stmts(fe, &s->if_.body);
      read_stmts(fe, &s->if_.orelse);
      break;
    case ST_TRY:
      read_stmts(fe, &s->try_.body);
      for (unsigned h = 0; h < s->try_.nhandlers; h++) mark_host_targets(fe, &s->try_.handlers[h]->body);
      read_stmts(fe, &s->try_.orelse);
      read_stmts(fe, &s->try_.finalbody);
      break;
    case ST_WITH: read_stmts(fe, &s->with.body); break;
    case ST_FOR:
      if (s->for_.target) assign_target(fe, s->for_.target, host());
      mark_host_targets(fe, &s->for_.body);
      mark_host_targets(fe, &s->for_.orelse);
      break;
    case ST_WHILE:
      mark_host_targets(fe, &s->while_.body);
      mark_host_targets(fe, &s->while_.orelse);
      break;
    case ST_DEL:
      for (unsigned t = 0; t < s->targets.n; t++)
        if (s->targets.items[t]->kind == EX_NAME) bind(fe, s->targets.items[t]->name, host());
      break;
    default: break;
    }
  }
}

/* Names assigned in loops or exception handlers at module level hold host values. */
static void mark_host_targets(FeCtx *fe, const PyStmtList *l) {
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_ASSIGN:
      for (unsigned t = 0; t < s->assign.targets.n; t++) assign_target(fe, s->assign.targets.items[t], host());
      break;
    case ST_AUGASSIGN: assign_target(fe, s->augassign.target, host()); break;
    case ST_ANNASSIGN: assign_target(fe, s->annassign.target, host()); break;
    case ST_FOR:
      assign_target(fe, s->for_.target, host());
      mark_host_targets(fe, &s->for_.body);
      break;
    case ST_IF:
      mark_host_targets(fe, &s->if_.body);
      mark_host_targets(fe, &s->if_.orelse);
      break;
    case ST_WHILE: mark_host_targets(fe, &s->while_.body); break;
    case ST_IMPORT: case ST_IMPORTFROM: read_import(fe, s); break;
    default: break;
    }
  }
}

/* ---- compiling requests ------------------------------------------------------------------------------- */

/* The enum member types and readonly arrays inside a tuple argument's shape, in order (symbols of tuples holding
 * them). */
static void shape_ids(const FeVal *s, StrBuf *b) {
  if (s->kind == FV_VAL && s->enumc) sb_printf(b, "E%u", s->enumc->id);
  if (s->kind == FV_VAL && s->readonly) sb_putc(b, 'R');
  if (s->kind == FV_TUPLE)
    for (unsigned i = 0; i < s->tup.n; i++) shape_ids(&s->tup.elems[i], b);
}

static const char *mangled_name(FeCtx *fe, const char *name, const FeSig *sig) {
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, name);
  for (unsigned i = 0; i < sig->nargs; i++) {
    sb_puts(&b, "__");
    nb_mangle(sig->args[i], &b);
    if (sig->enums && sig->enums[i]) sb_printf(&b, "E%u", sig->enums[i]->id);
    if (sig->readonly && sig->readonly[i]) sb_putc(&b, 'R');
    if (sig->shapes && sig->shapes[i].kind == FV_TUPLE) shape_ids(&sig->shapes[i], &b);
  }
  const char *s = fe_intern(fe, sb_cstr(&b));
  sb_free(&b);
  return s;
}

static void compile_one(FeCtx *fe, FeFunc *fn, const FeSig *sig, const char *sym) {
  unsigned nparams = fn->def->funcdef.params.n;
  for (unsigned i = 0; i < nparams; i++) {
    const PyParam *p = fn->def->funcdef.params.items[i];
    if (p->kind == PARAM_VARARGS || p->kind == PARAM_VARKW) {
      fe_error(fe, p->loc, "*args and **kwargs parameters are not supported in kernels");
      return;
    }
  }
  switch (fn->kind) {
  case FN_KERNEL:
  case FN_DEVICE: {
    if (sig->nargs != nparams) {
      fe_error(fe, sig->loc, "signature has %u argument%s but '%s' takes %u", sig->nargs, sig->nargs == 1 ? "" : "s",
               fn->name, nparams);
      return;
    }
    if (fn->kind == FN_KERNEL && sig->has_ret && sig->ret) {
      fe_error(fe, sig->loc, "kernel '%s' must return void, but its signature returns %s", fn->name,
               nb_type_str(&fe->arena, sig->ret));
      return;
    }
    FeVal *params = ARENA_ARRAY(&fe->arena, FeVal, nparams ? nparams : 1);
    for (unsigned i = 0; i < nparams; i++) {
      params[i] = sig->shapes && sig->shapes[i].kind == FV_TUPLE ? sig->shapes[i] : lower_param_shape(fe, sig->args[i]);
      if (sig->enums) params[i].enumc = sig->enums[i];
      if (sig->readonly && sig->readonly[i]) lower_shape_set_readonly(&params[i]);
    }
    FeInst *inst = lower_function(fe, fn, params, nparams, sym, fn->kind == FN_KERNEL, false, sig);
    if (inst && inst->op) {
      inst->requested = true;
      if (fn->kind == FN_DEVICE) ir_op_set_attr(fe->m, inst->op, "requested", attr_unit());
    }
    return;
  }
  case FN_REDUCE:
  case FN_VECTORIZE:
  case FN_GUVECTORIZE: gen_kernel(fe, fn, sig, sym); return;
  case FN_TEMPLATE: return;
  }
}

/* Symbol names: a function compiled for several signatures gets name__mangled. */
static void compile_function(FeCtx *fe, FeFunc *fn, const FeSig *sigs, unsigned nsigs) {
  for (unsigned i = 0; i < nsigs; i++) {
    const char *sym = nsigs > 1 ? mangled_name(fe, fn->sym, &sigs[i]) : fn->sym;
    if (ir_module_lookup(fe->m, sym)) continue; /* the same signature twice */
    compile_one(fe, fn, &sigs[i], sym);
  }
}

static void suggest_function(FeCtx *fe, const char *name, StrBuf *out) {
  const char *best = NULL;
  unsigned bestd = 3;
  for (unsigned i = 0; i < fe->nfuncs; i++) {
    unsigned d = sema_edit_distance(name, fe->funcs[i]->name);
    if (d < bestd) {
      bestd = d;
      best = fe->funcs[i]->name;
    }
  }
  if (best) sb_printf(out, " (did you mean '%s'?)", best);
}

static void compile_requests(FeCtx *fe) {
  const kf_compile_options *o = fe->opts->compile;
  /* --sig strings, parsed once */
  FeSig *given = ARENA_ARRAY(&fe->arena, FeSig, o->nsignatures ? o->nsignatures : 1);
  unsigned ngiven = 0;
  for (unsigned i = 0; i < o->nsignatures; i++) {
    const char *s = o->signatures[i];
    diag_add_source(fe->diag, "<signature>", s, strlen(s));
    bool ok = nb_parse_signature_text(fe, s, strlen(s), "<signature>", 1, 1, &given[ngiven]);
    if (ok) given[ngiven++].loc = srcloc("<signature>", 1, 1);
  }
  if (fe_failed(fe)) goto done;
  if (o->nkernels == 0) {
    for (unsigned i = 0; i < fe->nfuncs; i++) {
      FeFunc *fn = fe->funcs[i];
      if (fn->nsigs) compile_function(fe, fn, fn->sigs, fn->nsigs);
    }
    goto done;
  }
  for (unsigned k = 0; k < o->nkernels; k++) {
    const char *name = o->kernels[k];
    FeFunc *fn = fe_find_func(fe, NULL, name); /* source 0 first, then the others in order */
    if (!fn) {
      FeVal *g = NULL;
      for (unsigned s = 0; s < fe->nsrcs && !g; s++) {
        g = strmap_get(&fe->srcs[s].globals, name);
        if (g && g->kind != FV_PYFUNC) g = NULL;
      }
      StrBuf b;
      sb_init(&b);
      if (g)
        fe_error(fe, g->func->loc, "'%s' is not a kernel: it has no @cuda.jit (or @vectorize/@guvectorize/"
                 "@cuda.reduce) decorator", name);
      else {
        suggest_function(fe, name, &b);
        DiagKind prev = diag_set_kind(DIAG_KIND_NOT_FOUND);
        fe_error(fe, srcloc(fe->srcs[0].filename, 0, 0), "no kernel or device function named '%s'%s", name,
                 sb_cstr(&b));
        diag_set_kind(prev);
      }
      sb_free(&b);
      continue;
    }
    /* the --sig signatures whose argument count fits this function (all of them when one -k is given) */
    FeSig *mine = ARENA_ARRAY(&fe->arena, FeSig, ngiven ? ngiven : 1);
    unsigned nmine = 0;
    unsigned nparams = fn->def->funcdef.params.n;
    for (unsigned i = 0; i < ngiven; i++) {
      unsigned want = fn->kind == FN_REDUCE ? 2 : nparams;
      bool kernel_args = fn->kind == FN_VECTORIZE && given[i].nargs == nparams + 1; /* the kernel's own arrays */
      if (o->nkernels == 1 || given[i].nargs == want || kernel_args) mine[nmine++] = given[i];
    }
    if (nmine) {
      compile_function(fe, fn, mine, nmine);
    } else if (fn->nsigs) {
      compile_function(fe, fn, fn->sigs, fn->nsigs);
    } else if (fn->kind == FN_DEVICE) {
      fe_error(fe, fn->loc, "device function '%s' has no signature: give one with --sig", name);
    } else if (fn->kind == FN_REDUCE) {
      fe_error(fe, fn->loc, "reduction '%s' is lazy (@cuda.reduce): give its signature with --sig, "
               "e.g. 'float32(float32, float32)'", name);
    } else {
      fe_error(fe, fn->loc, "kernel '%s' is lazy (@cuda.jit without a signature): give one with --sig", name);
    }
  }
done:
  for (unsigned i = 0; i < o->nsignatures; i++) diag_remove_source(fe->diag, o->signatures[i]);
}

/* ---- tidying the module --------------------------------------------------------------------------------- */

typedef struct RefWalk {
  StrMap *refs;
} RefWalk;

static bool collect_refs(Op *op, void *user) {
  RefWalk *w = user;
  if (op->kind == OP_FUNC_CALL || op->kind == OP_GLOBAL_REF) {
    const char *s = ir_op_attr_str(op, op->kind == OP_FUNC_CALL ? "callee" : "name");
    if (s) strmap_put(w->refs, s, (void *)1);
  }
  return true;
}

typedef struct RenameWalk {
  StrMap *renames;
  Module *m;
} RenameWalk;

static bool rename_calls(Op *op, void *user) {
  RenameWalk *w = user;
  if (op->kind == OP_FUNC_CALL) {
    const char *s = ir_op_attr_str(op, "callee");
    const char *to = s ? strmap_get(w->renames, s) : NULL;
    if (to) ir_op_set_attr(w->m, op, "callee", attr_sym(w->m, to));
  }
  return true;
}

static bool collect_callee_refs(Op *callee, Op *call, void *user) {
  (void)call;
  if (callee) ir_walk_pre(callee, collect_refs, user);
  return true;
}

/* Drops device-function instances and shared globals no kernel or requested function reaches (speculative
 * typing of loops may have made some; a recursive one refers to itself), then gives the instances of a
 * function compiled for several argument types mangled names. */
static void tidy_module(FeCtx *fe) {
  Module *m = fe->m;
  StrMap refs;
  strmap_init(&refs);
  RefWalk w = {&refs};
  for (Op *op = ir_module_body(m)->first; op; op = op->next) {
    if (op->kind != OP_FUNC_FUNC || (!ir_op_attr(op, "kernel") && !ir_op_attr(op, "requested"))) continue;
    ir_walk_pre(op, collect_refs, &w);
    ir_walk_callees(m, op, collect_callee_refs, &w); /* each reached function once: cycles end */
  }
  for (Op *op = ir_module_body(m)->first, *next; op; op = next) {
    next = op->next;
    bool device = op->kind == OP_FUNC_FUNC && !ir_op_attr(op, "kernel") && !ir_op_attr(op, "requested");
    bool global = op->kind == OP_GLOBAL;
    const char *sym = ir_op_attr_str(op, "sym_name");
    if ((device || global) && sym && !strmap_get(&refs, sym)) {
      ir_op_drop_uses(op);
      ir_op_unlink(op);
    }
  }
  strmap_free(&refs);
  for (Op *op = ir_module_body(m)->first; op; op = op->next) ir_op_remove_attr(op, "requested");
  ir_module_rebuild_symbols(m);
  StrMap renames;
  strmap_init(&renames);
  bool any = false;
  for (unsigned i = 0; i < fe->nfuncs; i++) {
    FeFunc *fn = fe->funcs[i];
    unsigned live = 0;
    for (FeInst *in = fn->insts; in; in = in->next)
      if (in->op && in->op->block && !ir_op_attr(in->op, "kernel")) live++;
    for (FeInst *in = fn->insts; in; in = in->next) {
      if (!in->op || !in->op->block || ir_op_attr(in->op, "kernel")) continue;
      const char *old = ir_func_name(in->op);
      const char *want = live > 1 ? arena_printf(&fe->arena, "%s__%s", fn->sym, in->key) : fn->sym;
      if (strcmp(old, want) != 0 && !ir_module_lookup(m, want)) {
        strmap_put(&renames, old, (void *)arena_strdup(&m->arena, want));
        ir_op_set_attr(m, in->op, "sym_name", attr_sym(m, want));
        any = true;
      }
    }
  }
  if (any) {
    RenameWalk w = {&renames, m};
    ir_walk_module(m, rename_calls, &w);
    ir_module_rebuild_symbols(m);
  }
  strmap_free(&renames);
}

/* ---- entry points ------------------------------------------------------------------------------------------ */

/* Parses and reads one source (fe->cur). */
void fe_read_source_stmts(FeCtx *fe, FeSource *src) { read_stmts(fe, &src->py->body); }

void fe_read_source(FeCtx *fe, FeSource *src, unsigned index, const kf_source *ks) {
  src->index = index;
  src->filename = ks->filename ? ks->filename : "<input>";
  src->mfile = arena_strdup(&fe->m->arena, src->filename);
  src->text = ks->text ? ks->text : "";
  src->len = ks->text ? ks->len : 0;
  src->first_line = ks->first_line ? ks->first_line : 1;
  strmap_init(&src->globals);
  src->py = parse_fragment(&fe->arena, fe->diag, src->filename, src->text, src->len, src->first_line, true);
  fe->cur = src;
  if (src->py) read_stmts(fe, &src->py->body);
  fe->cur = NULL;
}

/* opts with its compile options present (NULL, or a NULL compile: none), for the FeCtx's whole life. */
static FeOptions given_options(const FeOptions *opts) {
  static const kf_compile_options none;  /* nothing named, bounds checks off, nothing embedded */
  FeOptions o = opts ? *opts : (FeOptions){0};
  if (!o.compile) o.compile = &none;
  return o;
}

/* Reads every source's top level (imports, constants, decorated functions) and applies the embedder's bindings
 * and function facts. fe->m is the module the functions will be lowered into; opts (given_options') outlives fe. */
static bool read_sources(FeCtx *fe, IrContext *ctx, Diag *diag, const kf_source *main, const FeOptions *opts) {
  memset(fe, 0, sizeof *fe);
  fe->ctx = ctx;
  fe->diag = diag;
  fe->opts = opts;
  fe->errors0 = diag->nerrors;
  arena_init(&fe->arena);
  strmap_init(&fe->bindings);
  fe->nsrcs = 1 + (opts->compile->extra_sources ? opts->compile->nextra_sources : 0); /* none: embed_begin says so */
  fe->srcs = ARENA_ARRAY(&fe->arena, FeSource, fe->nsrcs);
  fe->m = ir_module_new(ctx, main->filename ? main->filename : "<input>");
  sema_init_known(fe);
  embed_begin(fe);
  for (unsigned i = 0; i < fe->nsrcs; i++)
    fe_read_source(fe, &fe->srcs[i], i, i ? &opts->compile->extra_sources[i - 1] : main);
  if (!fe_failed(fe)) embed_after_read(fe);
  return !fe_failed(fe);
}

/* Frees what read_sources and the compilation built, all but fe->m. */
static void free_reading(FeCtx *fe) {
  strmap_free(&fe->known);
  strmap_free(&fe->enums);
  strmap_free(&fe->prefixes);
  fe_cmath_free(fe);
  fe_reduce_free(fe);
  fe_overloads_free(fe);
  for (unsigned i = 0; i < fe->nfuncs; i++)
    if (fe->funcs[i]->analysed) strmap_free(&fe->funcs[i]->local_index);
  for (size_t i = 0; i < fe->inner_funcs.cap; i++) {
    FeFunc *f = fe->inner_funcs.keys && fe->inner_funcs.keys[i] ? fe->inner_funcs.vals[i] : NULL;
    if (f && f->analysed) strmap_free(&f->local_index);
  }
  ptrmap_free(&fe->inner_funcs);
  for (unsigned i = 0; i < fe->nsrcs; i++) strmap_free(&fe->srcs[i].globals);
  if (fe->random_src) strmap_free(&fe->random_src->globals);
  embed_free(fe);
  arena_free(&fe->arena);
}

Module *fe_compile(IrContext *ctx, Diag *diag, const kf_source *main, const FeOptions *opts) {
  FeCtx fe;
  FeOptions o = given_options(opts);
  if (read_sources(&fe, ctx, diag, main, &o)) {
    compile_requests(&fe);
    if (!fe_failed(&fe)) tidy_module(&fe);
    if (!fe_failed(&fe)) embed_end(&fe);
  }
  Module *m = fe.m;
  if (fe_failed(&fe)) {
    ir_module_free(m);
    m = NULL;
  }
  free_reading(&fe);
  return m;
}

bool fe_function_kind(IrContext *ctx, Diag *diag, const kf_source *main, const FeOptions *opts, const char *name,
                      FeFunctionKind *out) {
  FeCtx fe;
  *out = FE_FUNCTION_NONE;
  FeOptions o = given_options(opts);
  bool ok = read_sources(&fe, ctx, diag, main, &o);
  if (ok) {
    FeFunc *fn = fe_find_func(&fe, &fe.srcs[0], name);
    FeVal *g = fe_lookup(&fe, &fe.srcs[0], name);
    if (fn) {
      static const FeFunctionKind kinds[] = {[FN_KERNEL] = FE_FUNCTION_KERNEL, [FN_DEVICE] = FE_FUNCTION_DEVICE,
                                             [FN_REDUCE] = FE_FUNCTION_REDUCE, [FN_VECTORIZE] = FE_FUNCTION_VECTORIZE,
                                             [FN_GUVECTORIZE] = FE_FUNCTION_GUVECTORIZE};
      *out = kinds[fn->kind];
    } else if (g && g->kind == FV_PYFUNC) {
      *out = FE_FUNCTION_PYTHON;
    }
  }
  ir_module_free(fe.m);
  free_reading(&fe);
  return ok;
}

bool fe_signature_tree(IrContext *ctx, Diag *diag, const char *file, const char *text, size_t len, kf_value **out) {
  /* the frontend's state as a compile of an empty source has it (the known names, enums, records) */
  static const kf_source empty = {"<signature>", "", 0, 1};
  FeCtx fe;
  FeOptions o = given_options(NULL);
  *out = NULL;
  bool ok = read_sources(&fe, ctx, diag, &empty, &o);
  FeSig sig;
  ok = ok && nb_parse_signature_text(&fe, text, len, file ? file : "<signature>", 1, 1, &sig) && !fe_failed(&fe);
  ok = ok && fe_sig_tree(&fe, &sig, out);
  ir_module_free(fe.m);
  free_reading(&fe);
  return ok;
}
