/* lower.c — types and lowers one Python function to kir, in one walk over its body.
 *
 * Values. Every expression lowers to an FeVal: a runtime scalar or array (a kir Value, or a constant made
 * on use), a tuple of FeVals (tuples never exist in kir: they are scalarised), a view a[i] of an array, or
 * a compile-time object (a module path, a builtin, a type, a function). Variables map to FeVals in `env`
 * (one slot per local, plus pseudo-variables for "has returned", the return value, "has broken" and
 * "has continued"); an assignment just rebinds the slot, so the IR is SSA from the start.
 *
 * Control flow is structured. An if statement lowers both branches into the regions of an scf.if and
 * merges the environments: a variable that differs (and may be read later: see "liveness") becomes a
 * result, its type unified as Numba unifies (int64 and float64 give float64; undefined on one path gives
 * the other path's type with a zero value). Loops are scf.for
 * (range loops without break or return) or scf.while; the values carried around a loop are the
 * variables assigned in it that are read before being assigned in the body or read after the loop.
 * Their types are found by lowering the body speculatively (diagnostics held back) until the types at
 * the loop head are stable, as Numba's type inference iterates, then once more if an error was held back.
 * return / break / continue set their pseudo-variable; the statements after one that may have exited are
 * lowered in the else region of an scf.if on the flag, and `if c: return` followed by more statements
 * puts those statements directly in the else region (no flag), so kernels keep their guard conditions.
 *
 * Arrays. Each element access is `mem.dim` + (for a signed index not known to be >= 0) a wrap of
 * negative indices + `check.bounds` (when bounds checks are on) + mem.load/mem.store with i64 indices.
 * a[i] of an array of higher rank is a view (the array and its fixed leading indices) that can be indexed,
 * measured and passed to device functions (as the array plus the indices).
 *
 * Sections: diagnostics and values; liveness; environments and the structured if; names and attributes;
 * array elements; operators; calls (builtins, cuda.*, math.*, device functions); expressions; assignment;
 * loops; statements; functions. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "ir/libdevice.h"
#include "utils/stack.h"

enum { MAX_HIDDEN_IV = 16, MAX_FLAT = 256 };

typedef struct LoopCtx {
  struct LoopCtx *outer;
} LoopCtx;

typedef struct Memo {
  const PyExpr *key;
  Op *op;
} Memo;

typedef struct Note {
  unsigned var;
  const char *type;
} Note;

/* A statement list being lowered: k is the statement at hand. loop_ue: for a loop body, the locals the
 * loop (test, target, body, else clause) reads before assigning. */
typedef struct Frame {
  struct Frame *outer;
  PyStmt *const *s;
  unsigned n, k;
  const bool *loop_ue;
} Frame;

struct Suffix;

typedef struct Lower {
  FeCtx *fe;
  IrContext *ctx;
  Module *m;
  FeFunc *fn;
  FeInst *inst;
  IrBuilder b;
  Op *func_op;
  const char *sym;
  bool kernel;
  unsigned nvars;            /* locals + pseudo-variables */
  unsigned v_ret, v_rv, v_brk, v_cont, v_iv0;
  unsigned v_bound0;         /* v_bound0 + i: whether local i is bound (i1), see "unbound locals" */
  unsigned niv;              /* hidden induction variables in use */
  FeVal *env;
  LoopCtx *loop;
  int quiet;
  unsigned suppressed, errors;
  unsigned pending_fn, pending_loop;
  bool has_value_return, has_bare_return;
  SrcLoc first_value_return;
  Memo *memo;
  unsigned nmemo, memo_cap;
  const char *assign_hint;
  Type *declared_ret;
  bool has_declared_ret;
  Note *notes;
  unsigned nnotes, notes_cap;
  Frame *frame;
  const bool *next_loop_ue; /* set by lower_loop for the body frame lower_stmts pushes next */
  struct Suffix *suffixes;
  unsigned nsuffixes, suffixes_cap;
  bool out_of_stack;        /* "nested too deeply for the thread's stack" was said */
  const PyExpr **raw_prints; /* print() calls of more than 32 items (a warning each when the function is done) */
  unsigned nraw_prints, raw_prints_cap;
} Lower;

static FeVal lower_expr(Lower *L, const PyExpr *e);
static FeVal view_value(Lower *L, const FeVal *v);
static bool holds_view(const FeVal *v);
static FeVal views_as_arrays(Lower *L, const FeVal *v);
static bool is_slice_obj(const FeVal *v);
static bool positional(Lower *L, const PyExpr *e, const char *fname, unsigned nmin, unsigned nmax, FeVal *out);
static SrcLoc arg_loc(const PyExpr *e, unsigned i);
static FeVal slice_attr(Lower *L, const FeVal *s, const char *a, SrcLoc aloc);
static FeVal slice_indices(Lower *L, const FeVal *s, const PyExpr *e);

/* Whether the kernel being compiled (or the function compiled on its own) has debug=True. */
static bool debug_mode(FeCtx *fe) { return fe->cur_top && ir_op_attr(fe->cur_top, "debug"); }
static FeVal lower_cond(Lower *L, const PyExpr *e);
static void lower_stmts(Lower *L, PyStmt *const *s, unsigned n);

/* The methods of arrays kfront knows (FV_METHOD's builtin): those Numba's CUDA target compiles without
 * allocating, and those it names only to say they allocate. */
#define ARRAY_METHODS(X)                                                                          \
  X(TRANSPOSE, "transpose") X(RESHAPE, "reshape") X(RAVEL, "ravel") X(VIEW, "view")              \
  X(COPY, "copy") X(FLATTEN, "flatten") X(ASTYPE, "astype") X(ITEM, "item")                     \
  X(CONJUGATE, "conjugate") X(SUM, "sum") X(PROD, "prod") X(MIN, "min") X(MAX, "max")          \
  X(ALL, "all") X(ANY, "any") X(MEAN, "mean") X(VAR, "var") X(STD, "std")
enum {
#define X(id, name) M_##id,
  ARRAY_METHODS(X)
#undef X
  M__COUNT,
  M_INT_BIT_COUNT = M__COUNT, /* the methods of integers (FV_METHOD of an integer value) */
  M_SLICE_INDICES,            /* slice.indices (FV_METHOD of a slice object: recv the slice) */
};
static const char *const method_names[] = {
#define X(id, name) name,
    ARRAY_METHODS(X)
#undef X
    "bit_count", "indices",
};

/* ---- diagnostics and locations ------------------------------------------------------------------------ */

static FeVal poison(void) { return (FeVal){.kind = FV_POISON}; }

static SrcLoc user_loc(Lower *L, SrcLoc loc) { return L->fn->user ? L->fn->user->loc : loc; }

static FeVal lerr(Lower *L, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static FeVal lerr(Lower *L, SrcLoc loc, const char *fmt, ...) {
  if (L->quiet) {
    L->suppressed++;
    return poison();
  }
  va_list ap;
  va_start(ap, fmt);
  diag_report(L->fe->diag, DIAG_ERROR, user_loc(L, loc), fmt, ap);
  va_end(ap);
  L->errors++;
  return poison();
}

/* The thread's stack is nearly exhausted (stack.h) at `what` (nested blocks, brackets or calls): a located error,
 * once per function — every statement after it would say the same. */
static FeVal out_of_stack(Lower *L, SrcLoc loc, const char *what) {
  if (L->out_of_stack) return poison();
  if (!L->quiet) L->out_of_stack = true; /* a quiet attempt is made again aloud */
  return lerr(L, loc, "%s nested too deeply for the thread's stack", what);
}

static void at(Lower *L, SrcLoc loc) {
  loc = user_loc(L, loc);
  L->b.loc = (SrcLoc){L->fn->src->mfile, loc.line, loc.col};
}

static const char *tname(Lower *L, const Type *t) { return nb_type_str(&L->fe->arena, t); }

/* A value's description for diagnostics: its Numba type, or what kind of object it is. */
static const char *vname(Lower *L, const FeVal *v) {
  switch (v->kind) {
  case FV_VAL: return v->enumc ? fe_enum_type_name(L->fe, v->enumc) : tname(L, v->type);
  case FV_TUPLE: {
    if (v->type) return tname(L, v->type);
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "tuple(");
    for (unsigned i = 0; i < v->tup.n; i++) {
      if (i) sb_puts(&b, ", ");
      sb_puts(&b, vname(L, &v->tup.elems[i]));
    }
    sb_putc(&b, ')');
    const char *s = arena_strdup(&L->fe->arena, sb_cstr(&b));
    sb_free(&b);
    return s;
  }
  case FV_VIEW:
  case FV_RECORD:
  case FV_VECTOR: return tname(L, v->type);
  case FV_PATH: return arena_printf(&L->fe->arena, "module '%s'", v->str.s);
  case FV_BUILTIN:
    if (v->builtin == BI_GRID_GROUP) return "GridGroup";
    return arena_printf(&L->fe->arena, "function '%s'", sema_builtin_name(v->builtin));
  case FV_NTYPE: return arena_printf(&L->fe->arena, "class(%s)", tname(L, v->type));
  case FV_FUNC: case FV_PYFUNC: return arena_printf(&L->fe->arena, "function '%s'", v->func->name);
  case FV_CLOSURE: return arena_printf(&L->fe->arena, "function '%s'", v->clo->fn->name);
  case FV_EXCINST: return "an exception instance";
  case FV_EXCEPTION: return arena_printf(&L->fe->arena, "exception class '%s'", v->str.s);
  case FV_NONE: return "none";
  case FV_STR: return "unicode_type";
  case FV_HOST: return "a host object";
  case FV_CONSTARR: return arena_printf(&L->fe->arena, "a constant %s", tname(L, v->carr->type));
  case FV_NAMESPACE: return arena_printf(&L->fe->arena, "namespace '%s'", v->ns->name);
  case FV_METHOD: return arena_printf(&L->fe->arena, "method '%s' of %s", method_names[v->builtin], tname(L, v->type));
  case FV_UNDEF: return "undefined";
  default: return "?";
  }
}

/* Records a local's type for the on_type hook (tests compare it with Numba's typemap); the records of a
 * loop body lowered speculatively are dropped with it, the rest are reported when the function is done. */
static void note_type(Lower *L, unsigned i, const FeVal *v) {
  const FeOptions *o = L->fe->opts;
  if (!o || !o->on_type || i >= L->fn->nlocals || L->fn->kind == FN_TEMPLATE) return;
  if (v->kind != FV_VAL && v->kind != FV_TUPLE && v->kind != FV_VIEW && v->kind != FV_RECORD && v->kind != FV_VECTOR)
    return;
  if (L->nnotes == L->notes_cap) {
    L->notes_cap = L->notes_cap ? 2 * L->notes_cap : 32;
    Note *n = ARENA_ARRAY(&L->fe->arena, Note, L->notes_cap);
    if (L->nnotes) memcpy(n, L->notes, sizeof *n * L->nnotes);
    L->notes = n;
  }
  L->notes[L->nnotes++] = (Note){i, vname(L, v)};
}

static void report_notes(Lower *L) {
  const FeOptions *o = L->fe->opts;
  if (!o || !o->on_type) return;
  for (unsigned k = 0; k < L->nnotes; k++)
    o->on_type(o->on_type_user, L->fn->py_name ? L->fn->py_name : L->fn->name, L->fn->locals[L->notes[k].var].name,
               L->notes[k].type);
}

/* ---- values ------------------------------------------------------------------------------------------------ */

static FeVal val(Type *t, Value *v) { return (FeVal){.kind = FV_VAL, .type = t, .v = v}; }

static FeVal cint(Type *t, int64_t i) {
  return (FeVal){.kind = FV_VAL, .is_const = true, .type = t, .c.i = i, .nonneg = t->kind == TY_BOOL || i >= 0};
}

static FeVal cfloat(Type *t, double f) { return (FeVal){.kind = FV_VAL, .is_const = true, .type = t, .c.f = f}; }

static FeVal cbool(Lower *L, bool b) { return cint(ty_bool(L->ctx), b); }

/* An Enum member (not an IntEnum one) is a value but not a number (enums.c, "enums" below). */
static bool is_enum_only(const FeVal *v) { return v->kind == FV_VAL && v->enumc && !v->enumc->is_int; }
/* a number: a scalar or a complex value */
static bool is_scalar(const FeVal *v) { return v->kind == FV_VAL && ty_is_number(v->type) && !is_enum_only(v); }
static bool is_complex(const FeVal *v) { return v->kind == FV_VAL && v->type->kind == TY_COMPLEX; }
static bool is_array(const FeVal *v) { return v->kind == FV_VAL && v->type->kind == TY_ARRAY; }
static bool is_const_int(const FeVal *v) {
  return v->kind == FV_VAL && !is_enum_only(v) && v->is_const && (v->type->kind == TY_INT || v->type->kind == TY_BOOL);
}
static bool is_true(const FeVal *v) { return v->kind == FV_VAL && v->is_const && v->c.i != 0; }
/* Compile-time values passed to device functions: functions (device functions, closures, intrinsics), Numba types
 * and None. The callee is specialised on each (one instance per distinct value, as Numba's dispatcher types and
 * function literals make one per value): the value is part of the instance's key and has no kir parameter. */
/* cuda.cg.this_grid()'s group: a compile-time value (no run-time data), passed to and returned from device
 * functions as such. */
static bool is_grid_group(const FeVal *v) { return v->kind == FV_BUILTIN && v->builtin == BI_GRID_GROUP; }
/* Values made of others (tup): tuples, views and records a[i] (the array and the indices), CUDA vectors (the fields). */
static bool has_fields(const FeVal *v) {
  return v->kind == FV_TUPLE || v->kind == FV_VIEW || v->kind == FV_RECORD || v->kind == FV_VECTOR;
}

static bool is_static(const FeVal *v) {
  return v->kind == FV_FUNC || v->kind == FV_BUILTIN || v->kind == FV_NTYPE || v->kind == FV_NONE ||
         v->kind == FV_CLOSURE;
}


/* The constant as a kir value (made at the insertion point each time it is used). */
static Value *complex_make(Lower *L, Value *re, Value *im, Type *t);
static Value *complex_part(Lower *L, Value *z, bool imag);

static Value *mat(Lower *L, const FeVal *x) {
  if (x->v) return x->v;
  Type *t = x->type;
  if (t->kind == TY_COMPLEX) { /* a zero (zero_of): complex values are otherwise never constants in kernels */
    Value *re = ib_const_float(&L->b, t->elem, x->c.f), *im = ib_const_float(&L->b, t->elem, x->im);
    return complex_make(L, re, im, t);
  }
  if (t->kind == TY_FLOAT) {
    if (t->bits == 16) return ib_unary(&L->b, OP_TRUNCF, ib_const_float(&L->b, ty_f32(L->ctx), x->c.f), t);
    return ib_const_float(&L->b, t, x->c.f);
  }
  return ib_const_int(&L->b, t, x->c.i);
}

/* Numba's cast of a scalar to another scalar type (constants folded). */
static FeVal conv_complex(Lower *L, FeVal x, Type *t);

static FeVal conv(Lower *L, FeVal x, Type *t) {
  if (x.kind != FV_VAL || x.type == t) return x;
  if (t->kind == TY_COMPLEX || x.type->kind == TY_COMPLEX) return conv_complex(L, x, t);
  if (x.is_const && !(t->kind == TY_FLOAT && t->bits == 16)) {
    bool from_float = x.type->kind == TY_FLOAT;
    double f = from_float ? x.c.f : x.type->is_unsigned ? (double)(uint64_t)x.c.i : (double)x.c.i;
    if (t->kind == TY_FLOAT) return cfloat(t, t->bits == 32 ? (double)(float)f : f);
    if (t->kind == TY_BOOL) return cint(t, from_float ? f != 0 : x.c.i != 0);
    if (!from_float || (f > -9.2e18 && f < 9.2e18)) {
      int64_t i = from_float ? (int64_t)f : x.c.i;
      if (t->bits < 64) {
        uint64_t mask = (1ull << t->bits) - 1, u = (uint64_t)i & mask;
        i = t->is_unsigned || !(u >> (t->bits - 1)) ? (int64_t)u : (int64_t)(u | ~mask);
      }
      FeVal r = cint(t, i);
      if (t->is_unsigned) r.nonneg = true;
      return r;
    }
  }
  FeVal r = val(t, ib_cast(&L->b, mat(L, &x), t));
  r.nonneg = x.nonneg && t->kind == TY_INT && x.type->kind != TY_FLOAT &&
             (t->bits > x.type->bits || (t->bits == x.type->bits && t->is_unsigned == x.type->is_unsigned));
  return r;
}

static Value *conv_v(Lower *L, FeVal x, Type *t) {
  FeVal r = conv(L, x, t);
  return mat(L, &r);
}

static FeVal zero_of(Type *t) { return t->kind == TY_FLOAT || t->kind == TY_COMPLEX ? cfloat(t, 0) : cint(t, 0); }

/* Python truth of a value as i1 (FeVal, possibly constant). */
static FeVal truth(Lower *L, FeVal x, SrcLoc loc) {
  switch (x.kind) {
  case FV_POISON: return x;
  case FV_NONE: return cbool(L, false);
  case FV_TUPLE: return cbool(L, x.tup.n != 0);
  case FV_VAL:
    if (is_enum_only(&x)) return lerr(L, loc, "the truth value of %s is not supported", vname(L, &x));
    if (ty_is_number(x.type)) return conv(L, x, ty_bool(L->ctx));
    return lerr(L, loc, "the truth value of an array (%s) is ambiguous", tname(L, x.type));
  default: return lerr(L, loc, "%s has no truth value in a kernel", vname(L, &x));
  }
}

/* The runtime type of a value (tuples as tuple types), or NULL. */
static Type *fv_type(Lower *L, const FeVal *v) {
  if (v->kind == FV_VAL || v->kind == FV_VECTOR) return v->type;
  if (v->kind == FV_RECORD) return v->type; /* a reference to a record: carried as its array of one (flat_types) */
  if (v->kind == FV_TUPLE) {
    if (v->type) return v->type;
    if (v->tup.n > MAX_FLAT) return NULL;
    Type **elems = ARENA_ARRAY(&L->fe->arena, Type *, v->tup.n ? v->tup.n : 1);
    for (unsigned i = 0; i < v->tup.n; i++)
      if (!(elems[i] = fv_type(L, &v->tup.elems[i]))) return NULL;
    return ty_tuple(L->ctx, v->tup.n, elems);
  }
  return NULL;
}

static FeVal make_tuple(Lower *L, unsigned n, const FeVal *elems) {
  FeVal t = {.kind = FV_TUPLE};
  t.tup.n = n;
  t.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  if (n) memcpy(t.tup.elems, elems, sizeof(FeVal) * n);
  t.type = fv_type(L, &t);
  return t;
}

/* A vector value of type t from its fields (FV_VAL scalars of its base type; the array is kept). */
static FeVal make_vector(Type *t, FeVal *fields) {
  FeVal v = {.kind = FV_VECTOR, .type = t};
  v.tup.n = t->n;
  v.tup.elems = fields;
  return v;
}

/* A tuple the kernel builds (a literal, a concatenation): at most MAX_FLAT values, nested ones counted, and
 * FE_MAX_NESTING levels, else a located error. Other tuples are made from these or from their types. */
static FeVal user_tuple(Lower *L, unsigned n, const FeVal *elems, SrcLoc loc) {
  for (unsigned i = 0; i < n; i++)
    if (elems[i].kind == FV_POISON) return poison();
  FeVal t = {.kind = FV_TUPLE, .tup = {.n = n, .elems = (FeVal *)elems}};
  if (!fe_tuple_fits(&t, MAX_FLAT))
    return lerr(L, loc, "tuples of more than %d values (nested ones included) or nested more than %d deep are not "
                        "supported", MAX_FLAT, FE_MAX_NESTING);
  return make_tuple(L, n, elems);
}

/* " (defined at line N)" for an inner def or lambda, to tell apart functions of one name; else "". */
static const char *def_line(Lower *L, const FeVal *v) {
  if (v->kind != FV_CLOSURE) return "";
  return arena_printf(&L->fe->arena, " (defined at line %u)", v->clo->fn->loc.line);
}

static bool fv_same(const FeVal *a, const FeVal *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case FV_VAL:
    if (a->type != b->type || a->enumc != b->enumc) return false;
    if (a->v || b->v) return a->v == b->v;
    return a->is_const && b->is_const && a->c.i == b->c.i;
  case FV_TUPLE:
  case FV_VIEW:
  case FV_RECORD:
  case FV_VECTOR:
    if (a->tup.n != b->tup.n || (a->kind == FV_VECTOR && a->type != b->type)) return false;
    for (unsigned i = 0; i < a->tup.n; i++)
      if (!fv_same(&a->tup.elems[i], &b->tup.elems[i])) return false;
    return true;
  case FV_PATH:
  case FV_STR: return a->str.len == b->str.len && memcmp(a->str.s, b->str.s, a->str.len) == 0;
  case FV_BUILTIN: return a->builtin == b->builtin;
  case FV_NTYPE: return a->type == b->type;
  case FV_FUNC:
  case FV_PYFUNC: return a->func == b->func;
  case FV_NAMESPACE: return a->ns == b->ns;
  case FV_METHOD: return a->builtin == b->builtin && a->v == b->v;
  case FV_CLOSURE: {
    const FeClosure *x = a->clo, *y = b->clo;
    if (x == y) return true;
    if (x->fn != y->fn || !x->captured != !y->captured) return false;
    const PyParams *ps = &x->fn->def->funcdef.params;
    for (unsigned i = 0; i < ps->n; i++)
      if (!fv_same(&x->defaults[i], &y->defaults[i])) return false;
    for (unsigned i = 0; x->captured && i < x->fn->ncaptures; i++)
      if (!fv_same(&x->captured[i], &y->captured[i])) return false;
    return true;
  }
  default: return true;
  }
}

static unsigned type_slots(const Type *t) {
  if (t->kind != TY_TUPLE) return 1;
  unsigned n = 0;
  for (unsigned i = 0; i < t->n; i++) n += type_slots(t->elems[i]);
  return n;
}

/* A record (a reference to one, Numba's Record value) where values meet (branches, loops, device function results)
 * is carried as the array of that one record: a view of one element of the array it is in. */
static Type *record_ref_type(IrContext *ctx, Type *rec) { return ty_array(ctx, rec, 1, LAYOUT_A); }

static void flat_types(IrContext *ctx, const Type *t, Type **out, unsigned *n) {
  if (t->kind != TY_TUPLE) {
    if (*n < MAX_FLAT) out[*n] = t->kind == TY_RECORD ? record_ref_type(ctx, (Type *)t) : (Type *)t;
    (*n)++;
    return;
  }
  for (unsigned i = 0; i < t->n; i++) flat_types(ctx, t->elems[i], out, n);
}

/* The value an array variable has on a path where it is unbound (its bound flag says so: a read there raises
 * UnboundLocalError, "unbound locals" below): an empty array of type t, a view of no elements of a local array of
 * one (made at the function's entry), so that even an unchecked read is reported by the simulator. */
static Value *empty_array(Lower *L, Type *t) {
  Type *base = ty_array(L->ctx, t->elem, 1, LAYOUT_C);
  Op *alloca = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &base, 0);
  Attr one = attr_int(ty_i64(L->ctx), 1);
  ir_op_set_attr(L->m, alloca, "shape", attr_array(L->m, 1, &one));
  ir_block_prepend(ir_func_entry(L->func_op), alloca);
  Value *ops[1 + 16];
  ops[0] = op_result(alloca, 0);
  Value *z = ib_const_int(&L->b, ty_i64(L->ctx), 0);
  for (unsigned d = 0; d < 2 * t->rank; d++) ops[1 + d] = z;
  return op_result(ib_op(&L->b, OP_REINTERPRET, 1 + 2 * t->rank, ops, 1, &t, 0), 0);
}

static FeVal record_ref(Lower *L, Value *arr, Value *const *idx);

/* The record r as the array of it alone (record_ref_type): a view of its one element. */
static Value *record_as_array(Lower *L, const FeVal *r) {
  Value *arr = r->tup.elems[0].v;
  ViewItem items[9];
  unsigned n = 0;
  for (unsigned k = 1; k < r->tup.n && n < 8; k++)
    items[n++] = (ViewItem){.kind = VI_INT, .index = mat(L, &r->tup.elems[k]), .axis = (int)k - 1};
  items[n++] = (ViewItem){.kind = VI_NEWAXIS, .axis = -1};
  return view_build(&L->b, arr, items, n, record_ref_type(L->ctx, r->type));
}

/* The record an array of one record (record_as_array's) stands for. */
static FeVal record_of_array(Lower *L, Value *arr) {
  Value *zero = ib_const_int(&L->b, ty_i64(L->ctx), 0);
  return record_ref(L, arr, &zero);
}

/* Values of x converted to type t, appended to out. A missing value (undefined on this path, or an error)
 * takes the fallback values when given, else zeros. False (after a diagnostic) if x cannot be t. */
static bool complex_to_real_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what);

static bool flatten_to(Lower *L, const FeVal *x, Type *t, Value **out, unsigned *n, Value *const *fallback,
                       SrcLoc loc, const char *var) {
  if (x->kind == FV_POISON || x->kind == FV_UNDEF) {
    unsigned k = type_slots(t);
    Type **ft = ARENA_ARRAY(&L->fe->arena, Type *, k > MAX_FLAT ? k : MAX_FLAT);
    unsigned nt = 0;
    flat_types(L->ctx, t, ft, &nt);
    for (unsigned i = 0; i < k; i++) {
      Value *v = fallback ? fallback[i] : NULL;
      if (!v) {
        if (ft[i]->kind == TY_ARRAY) {
          if (x->kind != FV_UNDEF) return false;
          v = empty_array(L, ft[i]);
        } else {
          FeVal z = zero_of(ft[i]);
          v = mat(L, &z);
        }
      }
      out[(*n)++] = v;
    }
    return true;
  }
  if (t->kind == TY_TUPLE) {
    if (ty_is_struct_tuple(t) ? x->kind != FV_VECTOR || x->type != t : x->kind != FV_TUPLE || x->tup.n != t->n) {
      lerr(L, loc, "cannot unify %s and %s for '%s'", vname(L, x), tname(L, t), var);
      return false;
    }
    for (unsigned i = 0; i < t->n; i++) {
      unsigned before = *n;
      if (!flatten_to(L, &x->tup.elems[i], t->elems[i], out, n, fallback ? fallback + before : NULL, loc, var))
        return false;
    }
    return true;
  }
  if (t->kind == TY_RECORD || x->kind == FV_RECORD) {
    if (x->kind != FV_RECORD || x->type != t) {
      lerr(L, loc, "cannot unify %s and %s for '%s'", vname(L, x), tname(L, t), var);
      return false;
    }
    out[(*n)++] = record_as_array(L, x);
    return true;
  }
  if (x->kind != FV_VAL) {
    lerr(L, loc, "cannot unify %s and %s for '%s'", vname(L, x), tname(L, t), var);
    return false;
  }
  if (t->kind == TY_ARRAY || x->type->kind == TY_ARRAY) {
    if (x->type != t && t->kind == TY_ARRAY && x->type->kind == TY_ARRAY && t->layout == LAYOUT_A &&
        x->type->elem == t->elem && x->type->rank == t->rank) {
      out[(*n)++] = view_build(&L->b, x->v, NULL, 0, t); /* a C or F array where layouts meet: as A (Numba's unify) */
      return true;
    }
    if (x->type != t) {
      lerr(L, loc, "cannot unify %s and %s for '%s'", tname(L, x->type), tname(L, t), var);
      return false;
    }
    out[(*n)++] = x->v;
    return true;
  }
  const char *what = strcmp(var, "<return value>") == 0 ? " to return it" : arena_printf(&L->fe->arena, " for '%s'", var);
  if (complex_to_real_error(L, x, t, loc, what)) return false;
  out[(*n)++] = conv_v(L, *x, t);
  return true;
}

static FeVal unflatten(Lower *L, Type *t, Value *const *vals, unsigned *pos) {
  if (t->kind == TY_RECORD) return record_of_array(L, vals[(*pos)++]);
  if (t->kind != TY_TUPLE) return val(t, vals[(*pos)++]);
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, t->n ? t->n : 1);
  for (unsigned i = 0; i < t->n; i++) elems[i] = unflatten(L, t->elems[i], vals, pos);
  return ty_is_struct_tuple(t) ? make_vector(t, elems) : make_tuple(L, t->n, elems);
}

/* The type a variable gets where two paths meet, or NULL (error already reported unless quiet). */
static Type *merge_type(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, bool *fail) {
  *fail = false;
  if (a->kind == FV_POISON || b->kind == FV_POISON) {
    *fail = true;
    return NULL;
  }
  Type *ta = a->kind == FV_UNDEF ? NULL : fv_type(L, a), *tb = b->kind == FV_UNDEF ? NULL : fv_type(L, b);
  if ((a->kind != FV_UNDEF && !ta) || (b->kind != FV_UNDEF && !tb)) {
    *fail = true;
    if (a->kind == FV_VIEW || b->kind == FV_VIEW)
      lerr(L, loc, "'%s' holds an array view (a[i] of an array of higher rank) that differs between paths; "
               "index the array directly", var);
    else if (a->kind == FV_STR || b->kind == FV_STR)
      lerr(L, loc, "'%s' holds a different string on each path: a string chosen at run time is not supported, but "
                   "for the value of a member of one enum of strings chosen at run time (choose the member)", var);
    else
      lerr(L, loc, "cannot unify %s and %s for '%s'", vname(L, a), vname(L, b), var);
    return NULL;
  }
  if (!ta) return tb;
  if (!tb) return ta;
  Type *u = nb_unify(L->ctx, ta, tb);
  if (!u) {
    *fail = true;
    lerr(L, loc, "cannot unify %s and %s for '%s'", tname(L, ta), tname(L, tb), var);
  }
  return u;
}

/* A compile-time value (a function, a closure, a Numba type, None: is_static) where two paths meet: the value
 * bound on both, or on the one path that binds it (its bound flag, merged like any variable, says where: "unbound
 * locals"). Two different functions would make a first-class function value, which numba-cuda cannot lower on
 * CUDA (a function pointer: "Cannot cast type(CUDADispatcher) to FunctionType"): an error, as is a static value
 * meeting a run-time one. 0 when neither is static; 1 with *out set, or -1 after a located error. */
static int merge_static(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, FeVal *out) {
  if (!is_static(a) && !is_static(b)) return 0;
  if (a->kind == FV_POISON || b->kind == FV_POISON) return -1;
  if (a->kind == FV_UNDEF || b->kind == FV_UNDEF || fv_same(a, b)) {
    *out = a->kind == FV_UNDEF ? *b : *a;
    return 1;
  }
  if (a->kind == FV_CLOSURE && b->kind == FV_CLOSURE && a->clo->fn == b->clo->fn)
    lerr(L, loc, "'%s' holds %s with default values (or captured constants) that differ between paths: not "
                 "supported (kfront keeps one value of each, evaluated where the function is defined)", var,
         vname(L, a));
  else if (is_static(a) && is_static(b) && a->kind != FV_NONE && b->kind != FV_NONE)
    lerr(L, loc, "'%s' holds %s%s on one path and %s%s on another: a function chosen at run time is a first-class "
                 "function value, which is not supported on CUDA (numba-cuda: Cannot cast type(CUDADispatcher) to "
                 "FunctionType); call each function on its own path", var, vname(L, a), def_line(L, a), vname(L, b),
         def_line(L, b));
  else
    lerr(L, loc, "cannot unify %s and %s for '%s'", vname(L, a), vname(L, b), var);
  return -1;
}

/* The enum member type a variable keeps where two paths meet: the one class on both (or on the one path that
 * binds it); an IntEnum member meeting an integer or another IntEnum becomes that integer, as Numba unifies
 * them; an Enum member meeting anything else is an error (false, reported). */
static bool merge_enum(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, const FeEnum **out) {
  *out = NULL;
  bool ua = a->kind == FV_UNDEF, ub = b->kind == FV_UNDEF;
  const FeEnum *ea = a->kind == FV_VAL ? a->enumc : NULL, *eb = b->kind == FV_VAL ? b->enumc : NULL;
  if (ua || ub || ea == eb) {
    *out = ua ? eb : ea;
    return true;
  }
  if ((ea && !ea->is_int) || (eb && !eb->is_int)) {
    lerr(L, loc, "cannot unify %s and %s for '%s'", vname(L, a), vname(L, b), var);
    return false;
  }
  return true;
}

static const char *var_name(Lower *L, unsigned i) {
  if (i < L->fn->nlocals) return L->fn->locals[i].name;
  if (i == L->v_ret) return "<returned>";
  if (i == L->v_rv) return "<return value>";
  if (i == L->v_brk) return "<break>";
  if (i == L->v_cont) return "<continue>";
  if (i >= L->v_bound0) return arena_printf(&L->fe->arena, "<%s is bound>", L->fn->locals[i - L->v_bound0].name);
  return "<loop counter>";
}

/* ---- liveness ----------------------------------------------------------------------------------------------
 * A variable that differs between the branches of an if, or is assigned in a loop, only becomes a result
 * (or a loop-carried value) if it may be read afterwards. The statements being lowered form a stack of
 * frames (statement lists and the index in each); a variable is live after statement k of a frame if the
 * rest of that list reads it before assigning it on some path, else (when the rest does not assign it on
 * every path) if the frame is a loop body and the loop reads it before assigning it (next iteration), or
 * if it is live after the statement that holds the frame in the enclosing frame. A break or continue on the
 * way skips the rest of every list up to the loop's body: where the rest of a list (or the statement at hand,
 * whose results are merged after any break in it has set its flag) may leave the iteration, the variable is
 * also live if it is live at the end of the innermost loop body (its next iteration, or what follows the
 * loop), whatever the lists in between assign. The read-before-assigned and assigned-on-every-path sets of
 * every suffix of a list, and whether it may leave the iteration, are computed once per list, backwards. */

static void ue_stmts(Lower *L, const PyStmtList *l, bool *def, bool *ue);

typedef struct Suffix {
  PyStmt *const *list;
  unsigned n;
  bool *ue, *def; /* (n + 1) rows of nlocals: read-before-assigned / assigned-on-every-path, from index k on */
  bool *leaves;   /* n + 1: whether the statements from index k on may break or continue the loop around them */
} Suffix;

static const Suffix *suffix_of(Lower *L, PyStmt *const *list, unsigned n) {
  for (unsigned i = 0; i < L->nsuffixes; i++)
    if (L->suffixes[i].list == list && L->suffixes[i].n == n) return &L->suffixes[i];
  if (L->nsuffixes == L->suffixes_cap) {
    L->suffixes_cap = L->suffixes_cap ? 2 * L->suffixes_cap : 16;
    Suffix *ns = ARENA_ARRAY(&L->fe->arena, Suffix, L->suffixes_cap);
    if (L->nsuffixes) memcpy(ns, L->suffixes, sizeof *ns * L->nsuffixes);
    L->suffixes = ns;
  }
  unsigned nl = L->fn->nlocals ? L->fn->nlocals : 1;
  Suffix *sx = &L->suffixes[L->nsuffixes++];
  sx->list = list;
  sx->n = n;
  sx->ue = ARENA_ARRAY(&L->fe->arena, bool, (size_t)(n + 1) * nl);
  sx->def = ARENA_ARRAY(&L->fe->arena, bool, (size_t)(n + 1) * nl);
  sx->leaves = ARENA_ARRAY(&L->fe->arena, bool, (size_t)n + 1);
  bool *u1 = ARENA_ARRAY(&L->fe->arena, bool, nl), *d1 = ARENA_ARRAY(&L->fe->arena, bool, nl);
  for (unsigned k = n; k-- > 0;) {
    memset(u1, 0, nl);
    memset(d1, 0, nl);
    PyStmtList one = {(PyStmt **)&list[k], 1};
    ue_stmts(L, &one, d1, u1);
    sx->leaves[k] = sx->leaves[k + 1] || sema_leaves_iteration(&list[k], 1);
    bool *ue = sx->ue + (size_t)k * nl, *def = sx->def + (size_t)k * nl;
    const bool *ue_next = ue + nl, *def_next = def + nl;
    for (unsigned v = 0; v < nl; v++) {
      ue[v] = u1[v] || (ue_next[v] && !d1[v]);
      def[v] = d1[v] || def_next[v];
    }
  }
  return sx;
}

/* Whether local v may be read after position `from` of the innermost frame. Two paths are followed outwards at
 * once: falling through (live while no list assigns v first), and leaving the iteration by a break or continue
 * (pending from the first list whose rest may, it rejoins the first at the end of the loop's body). */
static bool live_from(Lower *L, unsigned v, unsigned from) {
  unsigned nl = L->fn->nlocals;
  bool through = true, leaving = false;
  if (!L->frame) return false;
  unsigned leaves_from = from < L->frame->k ? from : L->frame->k; /* the statement at hand may break, too */
  for (Frame *f = L->frame; f; f = f->outer) {
    const Suffix *sx = suffix_of(L, f->s, f->n);
    if (through) {
      if (leaves_from < f->n && sx->leaves[leaves_from]) leaving = true;
      if (from < f->n) {
        if (sx->ue[(size_t)from * nl + v]) return true;
        if (sx->def[(size_t)from * nl + v]) through = false;
      }
    }
    if (f->loop_ue) { /* the end of a loop body: the next iteration and, through the loop, what follows it */
      through = through || leaving;
      leaving = false;
      if (through && f->loop_ue[v]) return true;
    }
    if (!through && !leaving) return false;
    if (!f->outer) return false;
    from = leaves_from = f->outer->k + 1;
  }
  return false;
}

/* Whether variable i may be read after position `after` of the innermost frame. */
static bool var_live(Lower *L, unsigned i, unsigned after) {
  if (i == L->v_rv) return true;
  if (i == L->v_ret) return L->pending_fn > 0 || L->loop != NULL;
  if (i == L->v_brk) return L->loop != NULL;
  if (i == L->v_cont) return L->pending_loop > 0;
  if (i >= L->v_bound0) i -= L->v_bound0;
  else if (i >= L->fn->nlocals) return true;
  if (L->fn->captured[i]) return true; /* read by an inner def or lambda, wherever it is called */
  return live_from(L, i, after);
}

/* ---- environments -------------------------------------------------------------------------------------- */

static FeVal *env_copy(Lower *L) {
  FeVal *e = ARENA_ARRAY(&L->fe->arena, FeVal, L->nvars);
  memcpy(e, L->env, sizeof(FeVal) * L->nvars);
  return e;
}

static void env_set(Lower *L, const FeVal *e) { memcpy(L->env, e, sizeof(FeVal) * L->nvars); }

/* ---- structured if with environment merge ------------------------------------------------------------- */

typedef void (*BranchFn)(Lower *L, void *arg);

/* refine: bit set of pseudo-variables known true in the then-branch (when one bit) and false in the else. */
static void emit_if(Lower *L, Value *cond, unsigned refine_mask, unsigned after, SrcLoc loc, BranchFn fthen, void *athen,
                    BranchFn felse, void *aelse) {
  unsigned nv = L->nvars;
  FeVal *e0 = env_copy(L);
  at(L, loc);
  Op *tmp = ib_op(&L->b, OP_IF, 1, &cond, 0, NULL, 2);
  Block *bt = ir_block_new(L->m), *be = ir_block_new(L->m);
  ir_region_append_block(&tmp->regions[0], bt);
  ir_region_append_block(&tmp->regions[1], be);
  IrBuilder saved = L->b;
  unsigned nbits = (unsigned)__builtin_popcount(refine_mask);

  ib_set_end(&L->b, bt);
  if (nbits == 1)
    for (unsigned i = L->fn->nlocals; i < L->v_iv0; i++)
      if ((refine_mask >> (i - L->fn->nlocals)) & 1) L->env[i] = cbool(L, true);
  if (fthen) fthen(L, athen);
  FeVal *e1 = env_copy(L);

  env_set(L, e0);
  ib_set_end(&L->b, be);
  for (unsigned i = L->fn->nlocals; i < L->v_iv0; i++)
    if ((refine_mask >> (i - L->fn->nlocals)) & 1) L->env[i] = cbool(L, false);
  if (felse) felse(L, aelse);
  FeVal *e2 = env_copy(L);

  /* merge */
  FeVal *merged = L->env;
  Type **types = ARENA_ARRAY(&L->fe->arena, Type *, nv);
  unsigned nres = 0;
  for (unsigned i = 0; i < nv; i++) {
    types[i] = NULL;
    if (fv_same(&e1[i], &e2[i])) {
      merged[i] = e1[i];
      continue;
    }
    if (!var_live(L, i, after)) {
      merged[i] = (FeVal){.kind = FV_UNDEF};
      continue;
    }
    int st = merge_static(L, &e1[i], &e2[i], loc, var_name(L, i), &merged[i]);
    if (st) {
      if (st < 0) merged[i] = poison();
      continue;
    }
    /* a view a[i] that differs between the branches (or is bound on one only): the array it stands for, made in
     * its branch */
    if (holds_view(&e1[i]) || holds_view(&e2[i])) {
      ib_set_end(&L->b, bt);
      e1[i] = views_as_arrays(L, &e1[i]);
      ib_set_end(&L->b, be);
      e2[i] = views_as_arrays(L, &e2[i]);
      L->b = saved;
    }
    bool fail;
    Type *t = merge_type(L, &e1[i], &e2[i], loc, var_name(L, i), &fail);
    if (!t) {
      merged[i] = fail ? poison() : (FeVal){.kind = FV_UNDEF};
      continue;
    }
    const FeEnum *en;
    if (!merge_enum(L, &e1[i], &e2[i], loc, var_name(L, i), &en)) {
      merged[i] = poison();
      continue;
    }
    types[i] = t;
    nres += type_slots(t);
  }
  Value **v1 = ARENA_ARRAY(&L->fe->arena, Value *, nres ? nres : 1);
  Value **v2 = ARENA_ARRAY(&L->fe->arena, Value *, nres ? nres : 1);
  Type **rt = ARENA_ARRAY(&L->fe->arena, Type *, nres ? nres : 1);
  unsigned n1 = 0, n2 = 0, nt = 0;
  bool ok = true;
  for (unsigned i = 0; i < nv; i++) {
    if (!types[i]) continue;
    flat_types(L->ctx, types[i], rt, &nt);
    ib_set_end(&L->b, bt);
    ok = flatten_to(L, &e1[i], types[i], v1, &n1, NULL, loc, var_name(L, i)) && ok;
    ib_set_end(&L->b, be);
    ok = flatten_to(L, &e2[i], types[i], v2, &n2, NULL, loc, var_name(L, i)) && ok;
    if (!ok) break;
  }
  if (!ok) {
    for (unsigned i = 0; i < nv; i++)
      if (types[i]) merged[i] = poison();
    nres = 0;
  }
  ib_set_end(&L->b, bt);
  ib_op(&L->b, OP_YIELD, nres, v1, 0, NULL, 0);
  ib_set_end(&L->b, be);
  ib_op(&L->b, OP_YIELD, nres, v2, 0, NULL, 0);
  L->b = saved;
  at(L, loc);
  Op *op = ir_op_create(L->m, OP_IF, L->b.loc, 1, &cond, nres, rt, 2);
  ir_op_insert_before(tmp, op);
  ir_block_unlink(bt);
  ir_block_unlink(be);
  ir_region_append_block(&op->regions[0], bt);
  ir_region_append_block(&op->regions[1], be);
  ir_op_erase(tmp);
  unsigned pos = 0;
  Value **results = ARENA_ARRAY(&L->fe->arena, Value *, nres ? nres : 1);
  for (unsigned i = 0; i < nres; i++) results[i] = op_result(op, i);
  for (unsigned i = 0; i < nv && nres; i++) {
    if (!types[i]) continue;
    FeVal m = unflatten(L, types[i], results, &pos);
    if (m.kind == FV_VAL && m.type->kind == TY_INT)
      m.nonneg = (e1[i].kind == FV_UNDEF || e1[i].nonneg) && (e2[i].kind == FV_UNDEF || e2[i].nonneg);
    if (m.kind == FV_VAL) merge_enum(L, &e1[i], &e2[i], loc, var_name(L, i), &m.enumc);
    merged[i] = m;
    note_type(L, i, &m);
  }
}

/* An expression evaluated only when a condition holds: lowered into a detached block first; if every op
 * in it is pure it is spliced in place (and the caller may use arith.andi/select), else the block becomes
 * a region of an scf.if. */
static Block *scratch_begin(Lower *L, IrBuilder *saved) {
  Block *blk = ir_block_new(L->m);
  *saved = L->b;
  ib_set_end(&L->b, blk);
  return blk;
}

static bool block_pure(const Block *blk) {
  for (Op *op = blk->first; op; op = op->next)
    if (!op_has(op, OPT_PURE) || op->nregions) return false;
  return true;
}

static void splice_block(Lower *L, Block *blk) {
  for (Op *op = blk->first, *next; op; op = next) {
    next = op->next;
    ir_op_unlink(op);
    ib_insert(&L->b, op);
  }
}

/* scf.if(cond) { then-block ...; yield tv } else { else-block ...; yield ev } -> one result of type t. Either
 * block may be NULL (then a fresh one). */
static Value *if_value(Lower *L, Value *cond, Block *bt, Value *tv, Block *be, Value *ev, Type *t) {
  IrBuilder saved = L->b;
  if (!bt) bt = ir_block_new(L->m);
  if (!be) be = ir_block_new(L->m);
  ib_set_end(&L->b, bt);
  ib_op(&L->b, OP_YIELD, 1, &tv, 0, NULL, 0);
  ib_set_end(&L->b, be);
  ib_op(&L->b, OP_YIELD, 1, &ev, 0, NULL, 0);
  L->b = saved;
  Op *op = ib_op(&L->b, OP_IF, 1, &cond, 1, &t, 2);
  ir_region_append_block(&op->regions[0], bt);
  ir_region_append_block(&op->regions[1], be);
  return op_result(op, 0);
}

/* ---- names ---------------------------------------------------------------------------------------------- */

static bool near_name(const char *want, const char *cand) {
  size_t n = strlen(want), m = strlen(cand);
  if (strcmp(want, cand) == 0 || m == 0) return false;
  unsigned limit = (unsigned)(n / 3 > 1 ? n / 3 : 1);
  if (n >= 3 && sema_edit_distance(want, cand) <= limit) return true;
  /* x -> x_array, array -> an_array */
  if (m > n + 1 && strncmp(cand, want, n) == 0 && cand[n] == '_') return true;
  if (m > n + 1 && strcmp(cand + m - n, want) == 0 && cand[m - n - 1] == '_') return true;
  return false;
}

static void consider(const char *want, const char *cand, const char **best, unsigned *bestd) {
  if (!cand || cand[0] == '_' || !near_name(want, cand)) return;
  unsigned d = sema_edit_distance(want, cand);
  if (d < *bestd) {
    *bestd = d;
    *best = cand;
  }
}

static const char *suggest(Lower *L, const char *name) {
  const char *best = NULL;
  unsigned bestd = UINT32_MAX;
  for (unsigned i = 0; i < L->fn->nlocals; i++) consider(name, L->fn->locals[i].name, &best, &bestd);
  const StrMap *maps[2] = {&L->fn->src->globals, &L->fe->bindings};
  for (unsigned k = 0; k < 2; k++)
    for (size_t i = 0; i < maps[k]->cap; i++) {
      const StrMapEntry *e = &maps[k]->slots[i];
      if (e->key && ((FeVal *)e->value)->kind != FV_HOST) consider(name, e->key, &best, &bestd);
    }
  static const char *const builtins[] = {"range", "len", "min", "max", "abs", "int", "float", "bool", "round"};
  for (unsigned i = 0; i < sizeof builtins / sizeof *builtins; i++) consider(name, builtins[i], &best, &bestd);
  return best;
}

static FeVal const_array_ref(Lower *L, const FeConstArr *ca, const char *hint);

/* Whether constant tuple v holds a constant array (at any depth). */
static bool holds_const_array(const FeVal *v, unsigned depth) {
  if (v->kind == FV_CONSTARR) return true;
  if (v->kind != FV_TUPLE || depth > FE_MAX_NESTING) return false;
  for (unsigned k = 0; k < v->tup.n; k++)
    if (holds_const_array(&v->tup.elems[k], depth + 1)) return true;
  return false;
}

/* A global tuple as a kernel reads it: its constant arrays referenced as a global array is (their symbols named
 * after the tuple and the item, hint_0_1), the rest as it is. */
static FeVal global_tuple(Lower *L, const FeVal *g, const char *hint, unsigned depth) {
  if (g->kind == FV_CONSTARR) return const_array_ref(L, g->carr, hint);
  if (g->kind != FV_TUPLE || !holds_const_array(g, depth)) return *g;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, g->tup.n);
  for (unsigned k = 0; k < g->tup.n; k++)
    elems[k] = global_tuple(L, &g->tup.elems[k], arena_printf(&L->fe->arena, "%s_%u", hint, k), depth + 1);
  return make_tuple(L, g->tup.n, elems);
}

static bool has_complex_constant(const FeVal *v) {
  if (v->kind == FV_VAL) return v->is_const && v->type->kind == TY_COMPLEX;
  if (v->kind != FV_TUPLE) return false;
  for (unsigned i = 0; i < v->tup.n; i++)
    if (has_complex_constant(&v->tup.elems[i])) return true;
  return false;
}

/* A global's complex constants (itself, or items of a tuple) as the kernel's values, made where it is read: in
 * kernels complex values are never constants (numba-cuda freezes them as constants of their type). */
static FeVal complex_constants(Lower *L, FeVal v, SrcLoc loc) {
  if (v.kind == FV_VAL && v.is_const && v.type->kind == TY_COMPLEX) {
    at(L, loc);
    Type *t = v.type;
    Value *re = ib_const_float(&L->b, t->elem, v.c.f), *im = ib_const_float(&L->b, t->elem, v.im);
    return val(t, complex_make(L, re, im, t));
  }
  if (v.kind != FV_TUPLE || !has_complex_constant(&v)) return v;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, v.tup.n);
  for (unsigned i = 0; i < v.tup.n; i++) elems[i] = complex_constants(L, v.tup.elems[i], loc);
  return make_tuple(L, v.tup.n, elems);
}

/* The value of a global (a module-level name, a binding, a namespace member) as a kernel reads it; name
 * says which in diagnostics, hint names the symbol of a constant array. */
static FeVal global_value(Lower *L, const FeVal *g, const char *name, const char *hint, SrcLoc loc) {
  if (g->kind == FV_HOST)
    return lerr(L, loc, "global name '%s' is not a compile-time constant: a kernel can read module constants "
                        "(numbers, tuples of them), modules, types and functions",
                name);
  if (g->kind == FV_INVALID)
    return lerr(L, loc, "'%s'%s: %s", name, strmap_get(&L->fe->bindings, name) ? " (bound by the embedder)" : "",
                g->str.s);
  if (g->kind == FV_CONSTARR) { /* a global NumPy array is a constant, as in Numba */
    at(L, loc);
    return const_array_ref(L, g->carr, hint);
  }
  if (g->kind == FV_TUPLE && holds_const_array(g, 0)) { /* (a, b): the arrays as the globals they would be */
    at(L, loc);
    return complex_constants(L, global_tuple(L, g, hint, 0), loc);
  }
  FeVal v = *g;
  v.literal = false;
  return complex_constants(L, v, loc);
}

/* A name that is not a local: the template's own scope (generated kernels see only it and the builtins),
 * else the embedder's bindings and the function's source (fe_lookup), else Python's builtins. */
static FeVal lookup_global(Lower *L, const char *name, SrcLoc loc) {
  FeVal *g = L->fn->scope ? strmap_get(L->fn->scope, name) : fe_lookup(L->fe, L->fn->src, name);
  if (g) return global_value(L, g, name, name, loc);
  char buf[80];
  if (strlen(name) < 60) {
    snprintf(buf, sizeof buf, "builtins.%s", name);
    int bi = sema_lookup_path(L->fe, buf);
    if (bi >= 0) return (FeVal){.kind = FV_BUILTIN, .builtin = bi};
  }
  if (fe_builtin_exception(name)) { /* ValueError(...): an instance to raise */
    FeVal x = {.kind = FV_EXCEPTION};
    x.str.s = name;
    x.str.len = strlen(name);
    return x;
  }
  const char *s = suggest(L, name);
  if (s) return lerr(L, loc, "name '%s' is not defined (did you mean '%s'?)", name, s);
  return lerr(L, loc, "name '%s' is not defined", name);
}

/* ---- unbound locals ------------------------------------------------------------------------------------------
 * A local bound on some paths only (assigned in one branch of an if, in a loop that may not run) may be read
 * where it is bound on every path that reaches the read, as in Numba. Each local has a pseudo-variable
 * (v_bound0 + i) saying whether it is bound: a constant where that is known, else an i1 merged at if and
 * loop joins like any variable (liveness keeps it only where the local may be read). A read where the local
 * is unbound on every path is a compile-time error; one where it may be unbound is checked at run time: the
 * thread raises UnboundLocalError, located, through the kernel's error record (check.raise). With run-time
 * checks off (--bounds-check=off, boundscheck=False) every local counts as bound and such a read gives zero,
 * as Numba's does. */

static unsigned bound_slot(Lower *L, unsigned local) { return L->v_bound0 + local; }

/* The read of local i (bound on some path): checked when it may be unbound here; bound after the check. */
static void check_bound(Lower *L, unsigned i, SrcLoc loc) {
  FeVal *b = &L->env[bound_slot(L, i)];
  if (b->kind != FV_VAL || (b->is_const && b->c.i)) return;
  at(L, loc);
  Value *unbound = b->is_const ? ib_const_bool(&L->b, true) : ib_binary(&L->b, OP_XORI, b->v, ib_const_bool(&L->b, true));
  Op *c = ib_op(&L->b, OP_RAISE, 1, &unbound, 0, NULL, 0);
  const char *text = arena_printf(&L->fe->arena, "UnboundLocalError: cannot access local variable '%s' where it is "
                                  "not associated with a value", L->fn->locals[i].name);
  ir_op_set_attr(L->m, c, "exception", attr_str(L->m, text));
  *b = cbool(L, true);
}

static FeVal lower_name(Lower *L, const PyExpr *e) {
  int i = sema_local_index(L->fn, e->name);
  if (i < 0) return lookup_global(L, e->name, e->loc);
  FeVal v = L->env[i];
  if (v.kind == FV_UNDEF) {
    if (L->quiet) return lerr(L, e->loc, "undefined");
    return lerr(L, e->loc, "local variable '%s' is referenced before assignment", e->name);
  }
  check_bound(L, (unsigned)i, e->loc);
  v.literal = false;
  return v;
}

/* ---- attributes -------------------------------------------------------------------------------------------- */

static FeVal builtin_value(Lower *L, int bi) {
  Type *f64 = ty_f64(L->ctx);
  switch (bi) {
  case BI_MATH_PI: return cfloat(f64, M_PI);
  case BI_MATH_E: return cfloat(f64, M_E);
  case BI_MATH_TAU: return cfloat(f64, 2 * M_PI);
  case BI_MATH_INF: return cfloat(f64, INFINITY);
  case BI_MATH_NAN: return cfloat(f64, NAN);
  case BI_LANEID:
  case BI_WARPSIZE: {
    Type *i32 = ty_i32(L->ctx);
    FeVal r = val(i32, op_result(ib_op(&L->b, bi == BI_LANEID ? OP_LANE_ID : OP_WARP_SIZE, 0, NULL, 1, &i32, 0), 0));
    r.nonneg = true;
    return r;
  }
  default: return (FeVal){.kind = FV_BUILTIN, .builtin = bi};
  }
}

static FeVal path_attr(Lower *L, const FeVal *v, const char *attr, SrcLoc loc) {
  char *p = arena_printf(&L->fe->arena, "%s.%s", v->str.s, attr);
  FeVal r;
  if (fe_random_path(L->fe, p, &r)) return r.kind == FV_INVALID ? lerr(L, loc, "'%s': %s", p, r.str.s) : r;
  Type *t = sema_path_type(L->fe, p);
  if (t) return (FeVal){.kind = FV_NTYPE, .type = t};
  int bi = sema_lookup_path(L->fe, p);
  if (bi >= 0) return builtin_value(L, bi);
  if (sema_is_prefix(L->fe, p)) {
    FeVal r = {.kind = FV_PATH};
    r.str.s = p;
    r.str.len = strlen(p);
    return r;
  }
  if (strstr(p, "bf16.") && (strstr(attr, "bfloat162") || (strlen(attr) > 2 && attr[strlen(attr) - 1] == '2' &&
                                                             strchr("hH_", attr[attr[0] == '_' ? 2 : 0]))))
    return lerr(L, loc, "'%s' is not supported: numba-cuda's numba.cuda.bf16 has no vector type (its internal "
                "cuda_bf16 bindings' __nv_bfloat162 and the h...2 intrinsics on it are not part of kfront)", p);
  return lerr(L, loc, "module '%s' has no attribute '%s' that kfront knows", v->str.s, attr);
}

static FeVal dims_tuple(Lower *L, Value *arr, unsigned first, unsigned rank) {
  FeVal elems[32];
  for (unsigned k = first; k < rank && k - first < 32; k++) {
    elems[k - first] = val(ty_i64(L->ctx), ib_dim(&L->b, arr, k));
    elems[k - first].nonneg = true;
  }
  return make_tuple(L, rank - first, elems);
}

static FeVal array_attribute(Lower *L, const FeVal *v, const char *a, SrcLoc aloc);
static FeVal load_element(Lower *L, Value *base, Value **idx);
static FeVal record_field(Lower *L, const FeVal *r, const char *name, size_t len, SrcLoc loc, Value **base,
                          Value **idx);

/* A string chosen at run time: one of the string values of a valued enum (what .value of a member chosen at run
 * time gives), its index in the enum's values; no string is made at run time in a kernel (numba-cuda's unicode
 * operations that would need one need its NRT), so len() and comparisons are chosen among the candidates'. */
static bool is_run_time_string(const FeVal *v) { return v->kind == FV_VAL && v->enumc && v->enumc->strings_of; }

static bool same_string(const FeVal *a, const char *s, size_t n) {
  return a->kind == FV_STR && a->str.len == n && memcmp(a->str.s, s, n) == 0;
}

/* len() of a run-time string: its candidates' lengths in code points, chosen by its index. */
static FeVal run_time_string_len(Lower *L, const FeVal *v, SrcLoc loc) {
  const FeEnum *en = v->enumc;
  at(L, loc);
  Type *i64 = ty_i64(L->ctx);
  Value *idx = mat(L, v), *r = NULL;
  for (unsigned k = en->nvalues; k-- > 0;) {
    int64_t n = 0;
    for (size_t i = 0; i < en->values[k].str.len; i++) n += ((unsigned char)en->values[k].str.s[i] & 0xC0) != 0x80;
    Value *c = ib_const_int(&L->b, i64, n);
    r = r ? ib_select(&L->b, ib_cmpi(&L->b, "eq", idx, ib_const_int(&L->b, i64, k)), c, r) : c;
  }
  FeVal out = val(i64, r);
  out.nonneg = true;
  return out;
}

/* a == b or a != b where one is a run-time string and the other a string (constant or of the same enum): true
 * with *out set; false when neither is a run-time string. */
static bool run_time_string_compare(Lower *L, PyCmpOp op, const FeVal *a, const FeVal *b, SrcLoc loc, FeVal *out) {
  if (!is_run_time_string(a) && !is_run_time_string(b)) return false;
  const FeVal *x = is_run_time_string(a) ? a : b, *y = x == a ? b : a;
  if (op != CMP_EQ && op != CMP_NE) {
    *out = lerr(L, loc, "'%s' between strings chosen at run time is not supported (kfront compares them with == and "
                        "!=)", ast_cmpop_str(op));
    return true;
  }
  at(L, loc);
  Value *idx = mat(L, x), *eq;
  Type *i64 = ty_i64(L->ctx);
  if (is_run_time_string(y) && y->enumc == x->enumc) {
    eq = ib_cmpi(&L->b, "eq", idx, mat(L, y)); /* distinct members have distinct strings (equal ones are aliases) */
  } else if (y->kind == FV_STR) {
    eq = ib_const_bool(&L->b, false);
    const FeEnum *en = x->enumc;
    for (unsigned k = 0; k < en->nvalues; k++)
      if (same_string(&en->values[k], y->str.s, y->str.len))
        eq = ib_binary(&L->b, OP_ORI, eq, ib_cmpi(&L->b, "eq", idx, ib_const_int(&L->b, i64, k)));
  } else {
    *out = lerr(L, loc, "no implementation of '%s' for %s and %s", ast_cmpop_str(op), vname(L, a), vname(L, b));
    return true;
  }
  if (op == CMP_NE) eq = ib_binary(&L->b, OP_XORI, eq, ib_const_bool(&L->b, true));
  *out = val(ty_bool(L->ctx), eq);
  return true;
}

/* The value of a member of a valued enum (tuples or strings as values: the member is their index): a constant
 * member's value itself; a run-time member's tuple chosen element by element (arith.select over the members), its
 * string a run-time string (above). */
static FeVal member_tuple(Lower *L, const FeEnum *en, Value *idx, const FeVal *const *vals, unsigned depth) {
  const FeVal *first = vals[0];
  if (first->kind == FV_TUPLE) {
    FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, first->tup.n);
    const FeVal **sub = ARENA_ARRAY(&L->fe->arena, const FeVal *, en->nvalues);
    for (unsigned i = 0; i < first->tup.n; i++) {
      for (unsigned k = 0; k < en->nvalues; k++) sub[k] = &vals[k]->tup.elems[i];
      elems[i] = member_tuple(L, en, idx, sub, depth + 1);
    }
    return make_tuple(L, first->tup.n, elems);
  }
  Value *r = mat(L, vals[en->nvalues - 1]);
  for (unsigned k = en->nvalues - 1; k-- > 0;) {
    Value *is_k = ib_cmpi(&L->b, "eq", idx, ib_const_int(&L->b, ty_i64(L->ctx), k));
    r = ib_select(&L->b, is_k, mat(L, vals[k]), r);
  }
  return val(first->type, r);
}

static FeVal valued_member_value(Lower *L, const FeVal *m, SrcLoc loc) {
  const FeEnum *en = m->enumc;
  if (m->is_const && m->c.i >= 0 && (uint64_t)m->c.i < en->nvalues) {
    FeVal r = en->values[m->c.i];
    r.literal = false;
    return r;
  }
  if (en->values[0].kind == FV_STR) { /* its string: the member's index, tagged as the strings of the enum */
    FeVal r = *m;
    r.enumc = fe_enum_strings(L->fe, en);
    r.literal = false;
    return r;
  }
  const FeVal **vals = ARENA_ARRAY(&L->fe->arena, const FeVal *, en->nvalues);
  for (unsigned k = 0; k < en->nvalues; k++) vals[k] = &en->values[k];
  at(L, loc);
  return member_tuple(L, en, mat(L, m), vals, 0);
}

/* e.attr, given the value v of e (lowered by lower_expr's loop over the chain). */
static FeVal attribute_of(Lower *L, const PyExpr *e, FeVal v) {
  const char *a = e->attribute.attr;
  SrcLoc aloc = e->attribute.attr_loc;
  at(L, e->loc);
  switch (v.kind) {
  case FV_POISON: return v;
  case FV_PATH: return path_attr(L, &v, a, aloc);
  case FV_NAMESPACE:
    for (unsigned i = 0; i < v.ns->n; i++)
      if (strcmp(v.ns->names[i], a) == 0)
        return global_value(L, &v.ns->vals[i], arena_printf(&L->fe->arena, "%s.%s", v.ns->name, a),
                            arena_printf(&L->fe->arena, "%s__%s", v.ns->name, a), aloc);
    return lerr(L, aloc, "namespace '%s' has no attribute '%s'", v.ns->name, a);
  case FV_BUILTIN:
    if (v.builtin == BI_THREADIDX || v.builtin == BI_BLOCKIDX || v.builtin == BI_BLOCKDIM || v.builtin == BI_GRIDDIM) {
      if ((a[0] == 'x' || a[0] == 'y' || a[0] == 'z') && !a[1]) {
        static const OpKind ops[] = {OP_THREAD_ID, OP_BLOCK_ID, OP_BLOCK_DIM, OP_GRID_DIM};
        FeVal r = val(ty_i32(L->ctx), ib_gpu_id(&L->b, ops[v.builtin - BI_THREADIDX], (unsigned)(a[0] - 'x')));
        r.nonneg = true;
        return r;
      }
      return lerr(L, aloc, "'%s' has no attribute '%s' (use .x, .y or .z)", sema_builtin_name(v.builtin), a);
    }
    if (v.builtin == BI_GRID_GROUP) {
      if (strcmp(a, "sync") == 0) return (FeVal){.kind = FV_BUILTIN, .builtin = BI_GRID_SYNC};
      return lerr(L, aloc, "unknown attribute '%s' of GridGroup (numba-cuda's grid group has only sync())", a);
    }
    return lerr(L, aloc, "unknown attribute '%s' of %s", a, vname(L, &v));
  case FV_VECTOR: {
    if (is_slice_obj(&v)) return slice_attr(L, &v, a, aloc);
    int k = vec_field(v.type, a);
    if (k < 0)
      return lerr(L, aloc, "%s has no attribute '%s' (its fields are %s)", vname(L, &v), a,
                  (const char *const[]){".x", ".x and .y", ".x, .y and .z", ".x, .y, .z and .w"}[v.tup.n - 1]);
    FeVal r = v.tup.elems[k];
    r.literal = false;
    return r;
  }
  case FV_VAL:
  case FV_VIEW: {
    if (is_run_time_string(&v))
      return lerr(L, aloc, "attribute '%s' of a string chosen at run time is not supported (kfront takes len(), == and "
                           "!= of such strings)", a);
    if (v.kind == FV_VAL && v.enumc) { /* an enum member: .value is its value */
      if (strcmp(a, "value") == 0 && v.enumc->values) return valued_member_value(L, &v, aloc);
      if (strcmp(a, "value") == 0) {
        v.enumc = NULL;
        return v;
      }
      return lerr(L, aloc, "unknown attribute '%s' of %s (Numba's enum members have .value only%s)", a, vname(L, &v),
                  strcmp(a, "name") == 0 ? ": its CUDA target has no strings to give .name as" : "");
    }
    /* int.bit_count() (numba-cuda: cuda.popc of the integer) */
    if (v.kind == FV_VAL && v.type->kind == TY_INT && strcmp(a, "bit_count") == 0)
      return (FeVal){.kind = FV_METHOD, .type = v.type, .v = mat(L, &v), .builtin = M_INT_BIT_COUNT};
    if (v.kind == FV_VAL && v.type->kind != TY_ARRAY) {
      /* .real, .imag and .conjugate() of numbers (numba-cuda: of complex, float and integer values) */
      bool num = ty_is_number(v.type) && v.type->kind != TY_BOOL;
      if (num && (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0)) {
        bool im = a[0] == 'i';
        if (v.type->kind == TY_COMPLEX) return val(v.type->elem, complex_part(L, mat(L, &v), im));
        if (!im) return (v.literal = false, v);
        return zero_of(v.type);
      }
      if (num && strcmp(a, "conjugate") == 0) return (FeVal){.kind = FV_METHOD, .type = v.type, .v = mat(L, &v), .builtin = M_CONJUGATE};
      return lerr(L, aloc, "unknown attribute '%s' of %s", a, tname(L, v.type));
    }
    Value *arr = v.kind == FV_VIEW ? v.tup.elems[0].v : v.v;
    unsigned first = v.kind == FV_VIEW ? v.tup.n - 1 : 0;
    unsigned rank = arr->type->rank;
    if (strcmp(a, "shape") == 0) return dims_tuple(L, arr, first, rank);
    if (strcmp(a, "ndim") == 0) return cint(ty_i64(L->ctx), rank - first);
    if (strcmp(a, "dtype") == 0) return (FeVal){.kind = FV_NTYPE, .type = arr->type->elem};
    if (strcmp(a, "size") == 0) {
      Type *i64 = ty_i64(L->ctx);
      FeVal r;
      if (first == 0) {
        r = val(i64, op_result(ib_op(&L->b, OP_SIZE, 1, &arr, 1, &i64, 0), 0));
      } else {
        Value *n = ib_dim(&L->b, arr, first);
        for (unsigned k = first + 1; k < rank; k++) n = ib_binary(&L->b, OP_MULI, n, ib_dim(&L->b, arr, k));
        r = val(i64, n);
      }
      r.nonneg = true;
      return r;
    }
    return array_attribute(L, &v, a, aloc);
  }
  case FV_RECORD: {
    Value *base, *idx[32];
    FeVal r = record_field(L, &v, a, strlen(a), aloc, &base, idx);
    if (r.kind != FV_VAL || r.v) return r;
    return load_element(L, base, idx);
  }
  default: return lerr(L, aloc, "unknown attribute '%s' of %s", a, vname(L, &v));
  }
}

/* ---- array elements ---------------------------------------------------------------------------------------- */

/* One index of axis `axis` as i64: negative indices wrap as in Numba (unless the index is unsigned or known
 * to be >= 0), then check.bounds. */
static Value *index_i64(Lower *L, Value *arr, unsigned axis, FeVal idx) {
  Type *i64 = ty_i64(L->ctx);
  bool is_unsigned = idx.type->kind == TY_INT && idx.type->is_unsigned;
  FeVal i = conv(L, idx, i64);
  Value *n = NULL, *iv;
  bool wrap = !is_unsigned && !idx.nonneg;
  if (i.is_const) {
    if (i.c.i < 0 && !is_unsigned) {
      n = ib_dim(&L->b, arr, axis);
      iv = ib_binary(&L->b, OP_ADDI, n, mat(L, &i));
    } else {
      iv = mat(L, &i);
    }
    wrap = false;
  } else {
    iv = i.v;
  }
  if (wrap) {
    n = ib_dim(&L->b, arr, axis);
    Value *neg = ib_cmpi(&L->b, "slt", iv, ib_const_int(&L->b, i64, 0));
    Value *w = ib_binary(&L->b, OP_ADDI, iv, n);
    iv = ib_select(&L->b, neg, w, iv);
  }
  if (L->fe->opts && L->fe->opts->bounds_check) {
    if (!n) n = ib_dim(&L->b, arr, axis);
    Value *ops[2] = {iv, n};
    Op *c = ib_op(&L->b, OP_BOUNDS, 2, ops, 0, NULL, 0);
    ir_op_set_attr(L->m, c, "axis", attr_int(i64, axis));
  }
  return iv;
}

/* The index values of a subscript ie whose parts are lowered to vals[0..count) (a tuple value as one part
 * spreads): integers, and slice objects or None, which make the index a view (*views). False after a located
 * error when one is neither. */
static bool index_values(Lower *L, const PyExpr *ie, const FeVal *vals, unsigned count, FeVal *out, unsigned *n,
                         bool *views) {
  *n = 0;
  *views = false;
  for (unsigned k = 0; k < count; k++) {
    FeVal v = vals[k];
    if (v.kind == FV_POISON) return false;
    if (v.kind == FV_TUPLE && count == 1) {
      for (unsigned j = 0; j < v.tup.n && *n < 32; j++) out[(*n)++] = v.tup.elems[j];
    } else if (*n < 32) {
      out[(*n)++] = v;
    }
  }
  for (unsigned k = 0; k < *n; k++) {
    if (is_slice_obj(&out[k]) || out[k].kind == FV_NONE) {
      *views = true;
      continue;
    }
    if (out[k].kind != FV_VAL || out[k].type->kind != TY_INT || is_enum_only(&out[k])) {
      lerr(L, ie->loc, "array index must be an integer, not %s", vname(L, &out[k]));
      return false;
    }
  }
  return true;
}

/* The index values of a subscript: a[i], a[i, j], a[t] with t a tuple (index_values). */
static bool gather_indices(Lower *L, const PyExpr *ie, FeVal *out, unsigned *n, bool *views) {
  const PyExpr *const *items = &ie;
  unsigned count = 1;
  if (ie->kind == EX_TUPLE) {
    items = (const PyExpr *const *)ie->elts.items;
    count = ie->elts.n;
  }
  FeVal vals[32];
  for (unsigned k = 0; k < count && k < 32; k++)
    if ((vals[k] = lower_expr(L, items[k])).kind == FV_POISON) return false;
  return index_values(L, ie, vals, count < 32 ? count : 32, out, n, views);
}

/* a[ix...] of an array or a view. Full indexing fills base/idx and returns a FV_VAL placeholder of the
 * element type; partial indexing returns a view (not for stores). */
static FeVal index_array(Lower *L, const FeVal *a, const FeVal *ix, unsigned n, SrcLoc loc, bool store,
                         Value **base, Value **idx) {
  const FeVal *b = a->kind == FV_VIEW ? &a->tup.elems[0] : a;
  unsigned fixed = a->kind == FV_VIEW ? a->tup.n - 1 : 0;
  Type *arrt = b->type;
  unsigned total = fixed + n;
  if (total > arrt->rank)
    return lerr(L, loc, "too many indices for %s: %u given", tname(L, a->type), n);
  *base = b->v;
  for (unsigned k = 0; k < fixed; k++) idx[k] = a->tup.elems[1 + k].v;
  at(L, loc);
  for (unsigned k = 0; k < n; k++) idx[fixed + k] = index_i64(L, b->v, fixed + k, ix[k]);
  if (total == arrt->rank) return val(arrt->elem, NULL);
  if (store)
    return lerr(L, loc, "cannot assign to a sub-array: %s needs %u indices, %u given", tname(L, a->type),
                arrt->rank - fixed, n);
  FeVal v = {.kind = FV_VIEW};
  v.type = ty_array(L->ctx, arrt->elem, arrt->rank - total, arrt->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
  v.tup.n = 1 + total;
  v.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 1 + total);
  v.tup.elems[0] = *b;
  for (unsigned k = 0; k < total; k++) v.tup.elems[1 + k] = val(ty_i64(L->ctx), idx[k]);
  return v;
}

static FeVal record_ref(Lower *L, Value *arr, Value *const *idx);

/* base[idx...]: its value (a scalar), or a reference to it (a record). */
static FeVal load_element(Lower *L, Value *base, Value **idx) {
  if (ty_is_record(base->type->elem)) return record_ref(L, base, idx);
  unsigned rank = base->type->rank;
  Value *ops[33];
  ops[0] = base;
  for (unsigned k = 0; k < rank; k++) ops[1 + k] = idx[k];
  Type *et = base->type->elem;
  return val(et, op_result(ib_op(&L->b, OP_LOAD, 1 + rank, ops, 1, &et, 0), 0));
}

/* Whether arr is (a view of) a constant array: cuda.const.array_like's, in read-only constant memory. */
static bool in_const_memory(Lower *L, const Value *arr) {
  while (arr->def && (arr->def->kind == OP_SUBVIEW || arr->def->kind == OP_REINTERPRET || arr->def->kind == OP_FIELD))
    arr = op_operand(arr->def, 0);
  if (!arr->def || arr->def->kind != OP_GLOBAL_REF) return false;
  const char *name = ir_op_attr_str(arr->def, "name");
  Op *g = name ? ir_module_lookup(L->m, name) : NULL;
  const char *space = g ? ir_op_attr_str(g, "space") : NULL;
  return space && strcmp(space, "const") == 0;
}

static void store_element(Lower *L, Value *base, Value **idx, Value *v) {
  if (in_const_memory(L, base)) {
    lerr(L, L->b.loc, "cannot assign to an element of a constant array (cuda.const.array_like): constant memory is "
                      "read-only in kernels");
    return;
  }
  unsigned rank = base->type->rank;
  Value *ops[34];
  ops[0] = v;
  ops[1] = base;
  for (unsigned k = 0; k < rank; k++) ops[2 + k] = idx[k];
  ib_op(&L->b, OP_STORE, 2 + rank, ops, 0, NULL, 0);
}

/* ---- records (NumPy structured dtypes) -----------------------------------------------------------------------
 * A record is reached as FV_RECORD: the array of records it is in and its (checked) index per axis. A field is
 * the mem.field view of that array at the same indices: a scalar field is loaded or stored there, a nested record
 * is an FV_RECORD of the field view, a nested array the FV_VIEW of the field view with the record's indices fixed
 * (r.v[j] is then checked against the nested extent as any view access). Assigning a whole record, or a whole
 * nested array, copies it value by value. */

enum { MAX_RECORD_COPY = 4096 };
static void emit_raise(Lower *L, Value *cond, const char *text, SrcLoc loc); /* values one record or nested-array assignment may copy (unrolled) */

static FeVal record_ref(Lower *L, Value *arr, Value *const *idx) {
  unsigned rank = arr->type->rank;
  FeVal r = {.kind = FV_RECORD, .type = arr->type->elem};
  r.tup.n = 1 + rank;
  r.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 1 + rank);
  r.tup.elems[0] = val(arr->type, arr);
  for (unsigned k = 0; k < rank; k++) r.tup.elems[1 + k] = val(ty_i64(L->ctx), idx[k]);
  return r;
}

/* The array of the field k of every record of arr (mem.field). */
static Value *field_array(Lower *L, Value *arr, unsigned k) {
  Type *rec = arr->type->elem;
  const RecordField *f = &rec->fields[k];
  Type *t = ty_array(L->ctx, rec->elems[k], arr->type->rank + f->ndims, LAYOUT_A);
  Op *op = ib_op(&L->b, OP_FIELD, 1, &arr, 1, &t, 0);
  ir_op_set_attr(L->m, op, "name", attr_str(L->m, f->name));
  return op_result(op, 0);
}

static const char *record_fields_list(Lower *L, const Type *rec) {
  StrBuf b;
  sb_init(&b);
  for (unsigned i = 0; i < rec->n; i++) sb_printf(&b, "%s%s", i ? ", " : "", rec->fields[i].name);
  const char *s = arena_strdup(&L->fe->arena, sb_cstr(&b));
  sb_free(&b);
  return s;
}

/* Field k of the record r: a scalar field as val(type, NULL) with *base and idx (the record's indices) where it
 * is; a nested record as FV_RECORD; a nested array as FV_VIEW. */
static FeVal record_field_at(Lower *L, const FeVal *r, unsigned k, SrcLoc loc, Value **base, Value **idx) {
  Value *arr = r->tup.elems[0].v;
  unsigned rank = r->tup.n - 1;
  /* as Numba's CUDA target (strict alignment): a field must sit at a multiple of its type's alignment in its
   * record (a packed record's fields are then read a byte at a time when its itemsize does not keep them aligned) */
  const RecordField *rf = &r->type->fields[k];
  if (rf->offset % ty_align(r->type->elems[k]))
    return lerr(L, loc, "%s.%s of type %s is not aligned", tname(L, r->type), rf->name, tname(L, r->type->elems[k]));
  at(L, loc);
  Value *fa = field_array(L, arr, k);
  const RecordField *f = &r->type->fields[k];
  Value *ridx[32];
  for (unsigned i = 0; i < rank; i++) ridx[i] = idx[i] = r->tup.elems[1 + i].v;
  if (f->ndims) {
    FeVal v = {.kind = FV_VIEW};
    v.type = ty_array(L->ctx, fa->type->elem, f->ndims, LAYOUT_C);
    v.tup.n = 1 + rank;
    v.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 1 + rank);
    v.tup.elems[0] = val(fa->type, fa);
    for (unsigned i = 0; i < rank; i++) v.tup.elems[1 + i] = val(ty_i64(L->ctx), ridx[i]);
    return v;
  }
  if (ty_is_record(fa->type->elem)) return record_ref(L, fa, ridx);
  *base = fa;
  return val(fa->type->elem, NULL);
}

/* r.name or r['name']. */
static FeVal record_field(Lower *L, const FeVal *r, const char *name, size_t len, SrcLoc loc, Value **base,
                          Value **idx) {
  int k = ty_record_field(r->type, name, len);
  if (k < 0)
    return lerr(L, loc, "record has no field '%.*s' (its fields: %s)", (int)len, name, record_fields_list(L, r->type));
  return record_field_at(L, r, (unsigned)k, loc, base, idx);
}

/* r[index]: a field by name (a constant string) or by position (a constant integer), as Numba allows. */
static FeVal record_item(Lower *L, const FeVal *r, const PyExpr *ie, Value **base, Value **idx) {
  FeVal i = lower_expr(L, ie);
  if (i.kind == FV_POISON) return i;
  if (i.kind == FV_STR) return record_field(L, r, i.str.s, i.str.len, ie->loc, base, idx);
  if (is_const_int(&i) && i.type->kind == TY_INT) {
    int64_t k = i.c.i < 0 ? i.c.i + (int64_t)r->type->n : i.c.i;
    if (k < 0 || k >= (int64_t)r->type->n)
      return lerr(L, ie->loc, "record field index %lld is out of range for a record of %u fields", (long long)i.c.i,
                  r->type->n);
    return record_field_at(L, r, (unsigned)k, ie->loc, base, idx);
  }
  return lerr(L, ie->loc, "a record is indexed by a field name or a constant integer, not %s", vname(L, &i));
}

/* The nested shape of the field array that an FV_VIEW of a nested-array field walks (its trailing axes). */
static unsigned nested_dims(const FeVal *v, unsigned *dims) {
  Value *fa = v->tup.elems[0].v;
  const Op *d = fa->def;
  if (!d || d->kind != OP_FIELD) return 0;
  Type *rec = op_operand(d, 0)->type->elem;
  const char *name = ir_op_attr_str(d, "name");
  int k = name ? ty_record_field(rec, name, strlen(name)) : -1;
  if (k < 0) return 0;
  for (unsigned i = 0; i < rec->fields[k].ndims; i++) dims[i] = rec->fields[k].dims[i];
  return rec->fields[k].ndims;
}

static bool is_nested_view(const FeVal *v) {
  unsigned dims[TY_MAX_FIELD_DIMS];
  return v->kind == FV_VIEW && nested_dims(v, dims) && v->tup.n - 1 + nested_dims(v, dims) == v->tup.elems[0].v->type->rank;
}

static void store_element(Lower *L, Value *base, Value **idx, Value *v);

/* Copies element by element: every value of the record (elem a record) or scalar at src[sidx] to dst[didx]. */
static bool copy_values(Lower *L, Value *dst, Value **didx, Value *src, Value **sidx, unsigned *budget, SrcLoc loc) {
  Type *et = dst->type->elem;
  if (!ty_is_record(et)) {
    if ((*budget)-- == 0) {
      lerr(L, loc, "kfront copies records and nested arrays value by value, at most %d values in one assignment",
           MAX_RECORD_COPY);
      return false;
    }
    FeVal x = load_element(L, src, sidx);
    store_element(L, dst, didx, x.v);
    return true;
  }
  unsigned rank = dst->type->rank, srank = src->type->rank;
  for (unsigned k = 0; k < et->n; k++) {
    const RecordField *f = &et->fields[k];
    Value *fd = field_array(L, dst, k), *fs = field_array(L, src, k);
    Value *di[40], *si[40];
    for (unsigned i = 0; i < rank; i++) di[i] = didx[i];
    for (unsigned i = 0; i < srank; i++) si[i] = sidx[i];
    unsigned count = ty_field_count(f);
    for (unsigned e = 0; e < count; e++) {
      unsigned rest = e;
      for (unsigned d = f->ndims; d-- > 0;) {
        Value *c = ib_const_int(&L->b, ty_i64(L->ctx), rest % f->dims[d]);
        di[rank + d] = si[srank + d] = c;
        rest /= f->dims[d];
      }
      if (!copy_values(L, fd, di, fs, si, budget, loc)) return false;
    }
  }
  return true;
}

/* target = v where target is a whole record (FV_RECORD) or nested array (an FV_VIEW of a nested-array field). */
static void assign_composite(Lower *L, const FeVal *target, FeVal v, SrcLoc tloc, SrcLoc vloc) {
  if (v.kind == FV_POISON) return;
  unsigned budget = MAX_RECORD_COPY;
  at(L, tloc);
  if (target->kind == FV_RECORD) {
    if (v.kind != FV_RECORD || v.type != target->type) {
      lerr(L, vloc, "cannot assign %s to a record of type %s", vname(L, &v), tname(L, target->type));
      return;
    }
    Value *di[32], *si[32];
    for (unsigned i = 0; i + 1 < target->tup.n; i++) di[i] = target->tup.elems[1 + i].v;
    for (unsigned i = 0; i + 1 < v.tup.n; i++) si[i] = v.tup.elems[1 + i].v;
    copy_values(L, target->tup.elems[0].v, di, v.tup.elems[0].v, si, &budget, vloc);
    return;
  }
  /* a nested array, from a nested array of the same shape or from an array of its shape (checked at run time:
   * ValueError otherwise) */
  unsigned dims[TY_MAX_FIELD_DIMS], nd = nested_dims(target, dims);
  Value *dst = target->tup.elems[0].v;
  unsigned fixed = target->tup.n - 1;
  Value *src;
  unsigned sfixed = 0;
  Value *si[40], *di[40];
  for (unsigned i = 0; i < fixed; i++) di[i] = target->tup.elems[1 + i].v;
  if (is_nested_view(&v)) {
    unsigned sd[TY_MAX_FIELD_DIMS], snd = nested_dims(&v, sd);
    bool same = snd == nd && v.tup.elems[0].v->type->elem == dst->type->elem;
    for (unsigned i = 0; same && i < nd; i++) same = sd[i] == dims[i];
    if (!same) {
      lerr(L, vloc, "cannot assign %s to a nested array of type %s", vname(L, &v), tname(L, target->type));
      return;
    }
    src = v.tup.elems[0].v;
    sfixed = v.tup.n - 1;
    for (unsigned i = 0; i < sfixed; i++) si[i] = v.tup.elems[1 + i].v;
  } else if (is_array(&v) && v.type->rank == nd && !ty_is_record(v.type->elem) && !ty_is_record(dst->type->elem)) {
    src = v.v;
    Value *ok = ib_const_bool(&L->b, true);
    for (unsigned d = 0; d < nd; d++) {
      Value *eq = ib_cmpi(&L->b, "eq", ib_dim(&L->b, src, d), ib_const_int(&L->b, ty_i64(L->ctx), dims[d]));
      ok = ib_binary(&L->b, OP_ANDI, ok, eq);
    }
    Value *bad = ib_binary(&L->b, OP_XORI, ok, ib_const_bool(&L->b, true));
    emit_raise(L, bad, "ValueError: cannot assign an array of another shape to a nested array", tloc);
  } else {
    lerr(L, vloc, "cannot assign %s to a nested array of type %s (kfront assigns a nested array of the same shape or "
                  "an array of that shape)", vname(L, &v), tname(L, target->type));
    return;
  }
  unsigned count = 1;
  for (unsigned d = 0; d < nd; d++) count *= dims[d];
  for (unsigned e = 0; e < count; e++) {
    unsigned rest = e;
    for (unsigned d = nd; d-- > 0;) {
      Value *c = ib_const_int(&L->b, ty_i64(L->ctx), rest % dims[d]);
      di[fixed + d] = si[sfixed + d] = c;
      rest /= dims[d];
    }
    Value *sv = src;
    if (sv->type->elem != dst->type->elem && !ty_is_record(dst->type->elem)) { /* an array of another dtype */
      FeVal x = load_element(L, src, si);
      store_element(L, dst, di, conv_v(L, x, dst->type->elem));
      continue;
    }
    if (!copy_values(L, dst, di, sv, si, &budget, vloc)) return;
  }
}

/* ---- views: slices, new axes, transposes (views.c builds them) ---------------------------------------------- */

/* Whether a subscript's index holds a slice, None or an ellipsis: a view (or a[i, ...]). */
static bool is_view_index(const PyExpr *ie) {
  if (ie->kind == EX_SLICE || ie->kind == EX_NONE || ie->kind == EX_ELLIPSIS) return true;
  if (ie->kind != EX_TUPLE) return false;
  for (unsigned k = 0; k < ie->elts.n; k++) {
    PyExprKind x = ie->elts.items[k]->kind;
    if (x == EX_SLICE || x == EX_NONE || x == EX_ELLIPSIS) return true;
  }
  return false;
}

/* An array value for v: an FV_VIEW (a[i] of an array of higher rank, kept as the array and its leading indices so
 * that a[i][j] is the access a[i, j]) becomes the mem.subview it stands for; other values are themselves. */
static FeVal view_value(Lower *L, const FeVal *v) {
  if (v->kind != FV_VIEW) return *v;
  const FeVal *b = &v->tup.elems[0];
  unsigned n = v->tup.n - 1;
  ViewItem items[32];
  for (unsigned k = 0; k < n && k < 32; k++) items[k] = (ViewItem){.kind = VI_INT, .index = v->tup.elems[1 + k].v};
  const char *why = NULL;
  Type *t = view_type(L->ctx, b->type, items, n, &why); /* (a[i] of rank > 1 always fits) */
  return val(t, view_build(&L->b, b->v, items, n, t));
}

/* Whether v is or holds (in a tuple) an FV_VIEW. */
static bool holds_view(const FeVal *v) {
  if (v->kind == FV_VIEW) return true;
  if (v->kind != FV_TUPLE) return false;
  for (unsigned i = 0; i < v->tup.n; i++)
    if (holds_view(&v->tup.elems[i])) return true;
  return false;
}

/* v with each FV_VIEW in it (itself or its tuples' elements) made the array it stands for (view_value). */
static FeVal views_as_arrays(Lower *L, const FeVal *v) {
  if (v->kind == FV_VIEW) return view_value(L, v);
  if (!holds_view(v)) return *v;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, v->tup.n);
  for (unsigned i = 0; i < v->tup.n; i++) elems[i] = views_as_arrays(L, &v->tup.elems[i]);
  return make_tuple(L, v->tup.n, elems);
}

/* ---- slice objects (Numba's slice2_type and slice3_type) ------------------------------------------------------
 * slice(stop), slice(start, stop[, step]) of integers or None: an FV_VECTOR of a ty_slice (slice3 when three
 * arguments are given, as Numba types it) holding start, stop and step as int64, the omitted ones filled in as
 * Numba's constructor fills them (step 1; start 0 and stop INT64_MAX for a positive step, start INT64_MAX and stop
 * INT64_MIN for a negative one), so that .start, .stop and .step read what numba-cuda reads. A slice object passes
 * to and returns from device functions, sits in tuples and is carried around loops as its three fields. An array
 * indexed with one (a[s], a[s, i], a[t] with t = (s, i)) is the view a[start:stop:step] (view_item_of; a slice3 is
 * strided whatever its step, as Numba lays it out); a tuple indexed with one of constants is sliced at compile
 * time. s.indices(n) is Python's (ValueError for n < 0 or a step of 0, at run time as in Numba). */

static bool is_slice_obj(const FeVal *v) { return v->kind == FV_VECTOR && v->type->slice; }

/* A slice object's step: a slice2's is the constant 1 (as numba-cuda's .step of one), wherever it came from. */
static FeVal slice_step(Lower *L, const FeVal *s) {
  return s->type->slice == 2 ? cint(ty_i64(L->ctx), 1) : s->tup.elems[2];
}

static FeVal lower_slice_ctor(Lower *L, const PyExpr *e) {
  FeVal a[3];
  if (!positional(L, e, "slice", 1, 3, a)) return poison();
  unsigned n = e->call.args.n;
  Type *i64 = ty_i64(L->ctx);
  FeVal f[3] = {{.kind = FV_NONE}, {.kind = FV_NONE}, {.kind = FV_NONE}}; /* start, stop, step */
  for (unsigned k = 0; k < n; k++) {
    if (a[k].kind == FV_NONE) continue;
    if (!is_scalar(&a[k]) || a[k].type->kind != TY_INT)
      return lerr(L, arg_loc(e, k), "slice() takes integers or None, not %s", vname(L, &a[k]));
    at(L, e->loc);
    FeVal x = conv(L, a[k], i64);
    x.literal = false;
    x.enumc = NULL;
    f[n == 1 ? 1 : k] = x;
  }
  at(L, e->loc);
  if (f[2].kind == FV_NONE) f[2] = cint(i64, 1);
  if (f[2].is_const) {
    bool neg = f[2].c.i < 0;
    if (f[0].kind == FV_NONE) f[0] = cint(i64, neg ? INT64_MAX : 0);
    if (f[1].kind == FV_NONE) f[1] = cint(i64, neg ? INT64_MIN : INT64_MAX);
  } else {
    Value *neg = ib_cmpi(&L->b, "slt", f[2].v, ib_const_int(&L->b, i64, 0));
    if (f[0].kind == FV_NONE)
      f[0] = val(i64, ib_select(&L->b, neg, ib_const_int(&L->b, i64, INT64_MAX), ib_const_int(&L->b, i64, 0)));
    if (f[1].kind == FV_NONE)
      f[1] = val(i64, ib_select(&L->b, neg, ib_const_int(&L->b, i64, INT64_MIN), ib_const_int(&L->b, i64, INT64_MAX)));
  }
  FeVal *fields = ARENA_ARRAY(&L->fe->arena, FeVal, 3);
  memcpy(fields, f, sizeof f);
  return make_vector(ty_slice(L->ctx, n == 3), fields);
}

/* s.start, s.stop, s.step (int64) and s.indices of a slice object s. */
static FeVal slice_attr(Lower *L, const FeVal *s, const char *a, SrcLoc aloc) {
  static const char *const names[] = {"start", "stop", "step"};
  for (unsigned k = 0; k < 3; k++)
    if (strcmp(a, names[k]) == 0) return k == 2 ? slice_step(L, s) : s->tup.elems[k];
  if (strcmp(a, "indices") == 0) {
    FeVal *recv = ARENA_NEW(&L->fe->arena, FeVal);
    *recv = *s;
    return (FeVal){.kind = FV_METHOD, .type = s->type, .recv = recv, .builtin = M_SLICE_INDICES};
  }
  return lerr(L, aloc, "unknown attribute '%s' of %s (a slice has start, stop, step and indices())", a, vname(L, s));
}

/* s.indices(n): (start, stop, step) of s applied to a sequence of length n, as Python's slice.indices and
 * numba-cuda's (its fix_slice: a bound < 0 has n added, then is clamped to [0, n], or [-1, n - 1] for a negative
 * step); n < 0 or a step of 0 raise ValueError. */
static FeVal slice_indices(Lower *L, const FeVal *s, const PyExpr *e) {
  FeVal n;
  if (!positional(L, e, "indices", 1, 1, &n)) return poison();
  if (!is_scalar(&n) || n.type->kind != TY_INT)
    return lerr(L, arg_loc(e, 0), "'%s' object cannot be interpreted as an integer", vname(L, &n));
  at(L, e->loc);
  Type *i64 = ty_i64(L->ctx);
  Value *len = conv_v(L, n, i64), *zero = ib_const_int(&L->b, i64, 0), *m1 = ib_const_int(&L->b, i64, -1);
  view_value_check(&L->b, ib_cmpi(&L->b, "sge", len, zero), "length should not be negative");
  FeVal st = slice_step(L, s);
  Value *step = mat(L, &st);
  view_value_check(&L->b, ib_cmpi(&L->b, "ne", step, zero), "slice step cannot be zero");
  Value *neg = ib_cmpi(&L->b, "slt", step, zero);
  Value *lo = ib_select(&L->b, neg, m1, zero), *hi = ib_select(&L->b, neg, ib_binary(&L->b, OP_ADDI, len, m1), len);
  FeVal *out = ARENA_ARRAY(&L->fe->arena, FeVal, 3);
  for (unsigned k = 0; k < 2; k++) {
    Value *b = mat(L, &s->tup.elems[k]);
    Value *w = ib_select(&L->b, ib_cmpi(&L->b, "slt", b, zero), ib_binary(&L->b, OP_ADDI, b, len), b);
    Value *clamped = ib_select(&L->b, ib_cmpi(&L->b, "slt", w, zero), lo, ib_select(&L->b, ib_cmpi(&L->b, "sge", w, len), hi, w));
    out[k] = val(i64, clamped);
  }
  out[2] = val(i64, step);
  return make_tuple(L, 3, out);
}

/* A bound of a slice: an integer as i64, or NULL for None. False (reported) for anything else. */
static bool slice_bound(Lower *L, const PyExpr *x, Value **out) {
  *out = NULL;
  if (!x) return true;
  FeVal v = lower_expr(L, x);
  if (v.kind == FV_POISON) return false;
  if (v.kind == FV_NONE) return true;
  if (!is_scalar(&v) || v.type->kind != TY_INT) {
    lerr(L, x->loc, "slice indices must be integers or None, not %s", vname(L, &v));
    return false;
  }
  at(L, x->loc);
  *out = conv_v(L, v, ty_i64(L->ctx));
  return true;
}

/* One item of an index given as a value: an integer (VI_INT, wrapped against its axis later), a slice object
 * (VI_SLICE of its start, stop and step; a step of 0, constant or not, raises ValueError at run time as Numba's
 * does) or None (a new axis). False when it is none of those. */
static bool view_item_of(Lower *L, const FeVal *v, ViewItem *it, SrcLoc loc) {
  *it = (ViewItem){.kind = VI_INT, .step = 1};
  if (v->kind == FV_NONE) {
    it->kind = VI_NEWAXIS;
    return true;
  }
  if (is_slice_obj(v)) {
    at(L, loc);
    it->kind = VI_SLICE;
    it->has_step = v->type->slice == 3;
    it->start = mat(L, &v->tup.elems[0]);
    it->stop = mat(L, &v->tup.elems[1]);
    FeVal st = slice_step(L, v);
    if (st.is_const && st.c.i != 0) it->step = st.c.i;
    else it->step_v = mat(L, &st);
    return true;
  }
  return is_scalar(v) && v->type->kind == TY_INT;
}

/* a[items] of an array or FV_VIEW a, the items' kinds known and their slices lowered, ints[k] the value of each
 * VI_INT item: the view (an FV_VAL array), or, when no axis is left (a[i, j, ...]), an FV_VAL placeholder of the
 * element type with the element's array and indices in *base and idx. Integer indices are wrapped and checked
 * against their axis as everywhere; slices are clamped as Python clamps them, so a view never reaches outside its
 * array. */
static FeVal view_of_items(Lower *L, FeVal a, ViewItem *items, const FeVal *ints, unsigned n, SrcLoc iloc,
                           SrcLoc loc, Value **base, Value **idx) {
  a = view_value(L, &a);
  const char *why = NULL;
  Type *t = view_type(L->ctx, a.type, items, n, &why);
  if (!t) return lerr(L, iloc, "cannot index %s with this index: %s", tname(L, a.type), why);
  at(L, loc);
  for (unsigned k = 0; k < n; k++)
    if (items[k].kind == VI_INT) items[k].index = index_i64(L, a.v, (unsigned)items[k].axis, ints[k]);
  if (t->kind != TY_ARRAY) { /* no axis left: the element */
    *base = a.v;
    for (unsigned k = 0; k < n; k++)
      if (items[k].kind == VI_INT) idx[items[k].axis] = items[k].index;
    return val(t, NULL);
  }
  return val(t, view_build(&L->b, a.v, items, n, t));
}

/* a[index] where the index holds slices, None or an ellipsis (is_view_index): its items lowered left to right
 * (slices written in it, and values: integers, slice objects, None), then view_of_items. */
static FeVal index_view(Lower *L, FeVal a, const PyExpr *ie, SrcLoc loc, Value **base, Value **idx) {
  const PyExpr *const *x = &ie;
  unsigned n = 1;
  if (ie->kind == EX_TUPLE) {
    x = (const PyExpr *const *)ie->elts.items;
    n = ie->elts.n;
  }
  if (n > 32) return lerr(L, ie->loc, "an index of more than 32 items is not supported");
  ViewItem items[32];
  FeVal ints[32];
  for (unsigned k = 0; k < n; k++) {
    ViewItem *it = &items[k];
    *it = (ViewItem){.kind = VI_INT, .step = 1};
    if (x[k]->kind == EX_SLICE) {
      const PyExpr *sl = x[k];
      it->kind = VI_SLICE;
      it->has_step = sl->slice.step != NULL;
      if (!slice_bound(L, sl->slice.lower, &it->start) || !slice_bound(L, sl->slice.upper, &it->stop)) return poison();
      if (sl->slice.step) {
        FeVal st = lower_expr(L, sl->slice.step);
        if (st.kind == FV_POISON) return st;
        if (st.kind != FV_NONE && is_scalar(&st) && st.type->kind == TY_INT && !st.is_const) {
          at(L, loc);
          it->step_v = conv_v(L, st, ty_i64(L->ctx)); /* (view_build checks it is not 0) */
        } else if (st.kind != FV_NONE) {
          if (!is_const_int(&st) || st.type->kind == TY_BOOL)
            return lerr(L, sl->slice.step->loc, "slice indices must be integers or None, not %s", vname(L, &st));
          if (st.c.i == 0) return lerr(L, sl->slice.step->loc, "slice step cannot be zero");
          if (st.type->is_unsigned && st.c.i < 0)
            return lerr(L, sl->slice.step->loc, "slice step %llu is too large", (unsigned long long)st.c.i);
          it->step = st.c.i;
        }
      }
    } else if (x[k]->kind == EX_NONE) {
      it->kind = VI_NEWAXIS;
    } else if (x[k]->kind == EX_ELLIPSIS) {
      it->kind = VI_ELLIPSIS;
    } else {
      FeVal v = lower_expr(L, x[k]);
      if (v.kind == FV_POISON) return v;
      if (!view_item_of(L, &v, it, loc)) {
        if (x[k]->kind == EX_STARRED || v.kind == FV_TUPLE)
          return lerr(L, x[k]->loc, "an index holding slices takes integers, slices, None and '...', not %s",
                      vname(L, &v));
        return lerr(L, x[k]->loc, "array index must be an integer, not %s", vname(L, &v));
      }
      ints[k] = v;
    }
  }
  return view_of_items(L, a, items, ints, n, ie->loc, loc, base, idx);
}

/* a[ix] where the values gathered (gather_indices) hold slice objects or None: view_of_items. */
static FeVal index_view_values(Lower *L, FeVal a, const FeVal *ix, unsigned n, const PyExpr *ie, SrcLoc loc,
                               Value **base, Value **idx) {
  ViewItem items[32];
  for (unsigned k = 0; k < n; k++) view_item_of(L, &ix[k], &items[k], loc); /* (gather_indices checked them) */
  return view_of_items(L, a, items, ix, n, ie->loc, loc, base, idx);
}

/* Nested loops over every element of the array value arr (scf.for per axis, outermost first); at the innermost,
 * body(L, arg, indices). */
typedef void (*ElementFn)(Lower *L, void *arg, Value **idx);
static void each_element(Lower *L, Value *arr, ElementFn body, void *arg) {
  Type *i64 = ty_i64(L->ctx);
  Value *idx[8];
  IrBuilder saved = L->b;
  unsigned r = arr->type->rank;
  for (unsigned d = 0; d < r; d++) {
    Value *ops[3] = {ib_const_int(&L->b, i64, 0), ib_dim(&L->b, arr, d), ib_const_int(&L->b, i64, 1)};
    Op *loop = ib_op(&L->b, OP_FOR, 3, ops, 0, NULL, 1);
    Block *blk = ir_block_new(L->m);
    ir_region_append_block(&loop->regions[0], blk);
    idx[d] = ir_block_add_arg(L->m, blk, i64);
    ib_set_end(&L->b, blk);
    ib_op(&L->b, OP_YIELD, 0, NULL, 0, NULL, 0);
    ib_set_before(&L->b, blk->last);
  }
  body(L, arg, idx);
  SrcLoc loc = L->b.loc;
  L->b = saved;
  L->b.loc = loc;
}

static void store_scalar_fn(Lower *L, void *arg, Value **idx) {
  Value **pair = arg; /* the value, the array */
  store_element(L, pair[1], idx, pair[0]);
}

/* ---- assigning to a view: dst[...] = scalar, array or tuple (Numba's setitem_array / fancy_setslice) ---------- */

/* The bytes [*lo, *hi) an array value's elements span, from its address (i64; for a non-empty array). */
static void memory_extent(Lower *L, Value *arr, Value **lo, Value **hi) {
  Type *i64 = ty_i64(L->ctx), *u64 = ty_int(L->ctx, 64, true);
  Value *zero = ib_const_int(&L->b, i64, 0), *one = ib_const_int(&L->b, i64, 1);
  Value *addr = ib_cast(&L->b, op_result(ib_op(&L->b, OP_ADDR, 1, &arr, 1, &u64, 0), 0), i64);
  Value *down = zero, *up = ib_const_int(&L->b, i64, ty_size(arr->type->elem));
  for (unsigned d = 0; d < arr->type->rank; d++) {
    Value *stride = op_result(ib_op(&L->b, OP_STRIDE, 1, &arr, 1, &i64, 0), 0);
    ir_op_set_attr(L->m, stride->def, "axis", attr_int(i64, d));
    Value *span = ib_binary(&L->b, OP_MULI, ib_binary(&L->b, OP_SUBI, ib_dim(&L->b, arr, d), one), stride);
    down = ib_binary(&L->b, OP_ADDI, down, ib_binary(&L->b, OP_MINSI, span, zero));
    up = ib_binary(&L->b, OP_ADDI, up, ib_binary(&L->b, OP_MAXSI, span, zero));
  }
  *lo = ib_binary(&L->b, OP_ADDI, addr, down);
  *hi = ib_binary(&L->b, OP_ADDI, addr, up);
}

typedef struct CopyArg {
  Value *dst, *src;
  unsigned skip;      /* the source's leading axes of extent 1 beyond the destination's rank */
  int shift;          /* source axis of destination axis d: d - shift (< 0: a new axis of the source, index 0) */
  Value *bcast[8];    /* per destination axis: the source's extent there is 1 (broadcast: index 0) */
  Value *reverse[8];  /* per destination axis: walk it from its last index (an overlapping copy, see copy_into) */
} CopyArg;

static void copy_element_fn(Lower *L, void *arg, Value **idx) {
  CopyArg *c = arg;
  Type *i64 = ty_i64(L->ctx);
  Value *zero = ib_const_int(&L->b, i64, 0), *one = ib_const_int(&L->b, i64, 1), *di[8], *si[8];
  unsigned r = c->dst->type->rank;
  for (unsigned d = 0; d < r; d++) {
    Value *last = ib_binary(&L->b, OP_SUBI, ib_dim(&L->b, c->dst, d), one);
    di[d] = ib_select(&L->b, c->reverse[d], ib_binary(&L->b, OP_SUBI, last, idx[d]), idx[d]);
  }
  for (unsigned k = 0; k < c->skip; k++) si[k] = zero;
  for (unsigned d = 0; d < r; d++)
    if ((int)d - c->shift >= 0) si[c->skip + d - (unsigned)c->shift] = ib_select(&L->b, c->bcast[d], zero, di[d]);
  FeVal x = load_element(L, c->src, si);
  store_element(L, c->dst, di, conv_v(L, x, c->dst->type->elem));
}

static Value *stride_of(Lower *L, Value *arr, unsigned axis) {
  Type *i64 = ty_i64(L->ctx);
  Value *s = op_result(ib_op(&L->b, OP_STRIDE, 1, &arr, 1, &i64, 0), 0);
  ir_op_set_attr(L->m, s->def, "axis", attr_int(i64, axis));
  return s;
}

/* dst = src, src an array broadcast onto dst as Numba broadcasts it (extra leading source axes of extent 1 dropped,
 * missing ones added, axes of extent 1 repeated; else ValueError at run time, Numba's messages).
 * Overlap: Numba copies a source whose memory overlaps dst's into a new array first (its NRT). kfront has no
 * allocator; it copies in place when the two walk their elements alike (the same element size and strides: a
 * shifted view, a[1:] = a[:-1], m[1:, :] = m[:-1, :]) with strides nested as in a C or F array (each axis's
 * stride longer than the span of the axes inside it), visiting the elements in decreasing address order when the
 * destination lies above the source and in increasing order otherwise (as memmove does), so each source element
 * is read before it is overwritten; any other overlap raises NotImplementedError at the statement's line. */
static void copy_into(Lower *L, Value *dst, Value *src) {
  Type *i64 = ty_i64(L->ctx);
  IrBuilder *b = &L->b;
  unsigned r = dst->type->rank, rs = src->type->rank;
  Value *one = ib_const_int(b, i64, 1), *zero = ib_const_int(b, i64, 0), *yes = ib_const_bool(b, true);
  CopyArg c = {.dst = dst, .src = src, .skip = rs > r ? rs - r : 0, .shift = rs < r ? (int)(r - rs) : 0};
  if (c.skip) {
    Value *ok = yes;
    for (unsigned k = 0; k < c.skip; k++) ok = ib_binary(b, OP_ANDI, ok, ib_cmpi(b, "eq", ib_dim(b, src, k), one));
    view_value_check(b, ok, "cannot broadcast source array for assignment");
  }
  Value *fits = yes;
  for (unsigned d = 0; d < r; d++) {
    if ((int)d < c.shift) {
      c.bcast[d] = yes;
      continue;
    }
    Value *se = ib_dim(b, src, c.skip + d - (unsigned)c.shift), *de = ib_dim(b, dst, d);
    c.bcast[d] = ib_cmpi(b, "eq", se, one);
    fits = ib_binary(b, OP_ANDI, fits, ib_binary(b, OP_ORI, c.bcast[d], ib_cmpi(b, "eq", se, de)));
  }
  view_value_check(b, fits, "cannot assign slice from input of different size");
  /* overlap: both non-empty and their bytes intersect */
  Value *dlo, *dhi, *slo, *shi;
  memory_extent(L, dst, &dlo, &dhi);
  memory_extent(L, src, &slo, &shi);
  Value *dsize = op_result(ib_op(b, OP_SIZE, 1, &dst, 1, &i64, 0), 0);
  Value *ssize = op_result(ib_op(b, OP_SIZE, 1, &src, 1, &i64, 0), 0);
  Value *overlap = ib_binary(b, OP_ANDI, ib_cmpi(b, "slt", slo, dhi), ib_cmpi(b, "slt", dlo, shi));
  overlap = ib_binary(b, OP_ANDI, overlap, ib_binary(b, OP_ANDI, ib_cmpi(b, "sgt", dsize, zero),
                                                     ib_cmpi(b, "sgt", ssize, zero)));
  /* whether an in-place copy in address order is safe: same element size, same strides (on axes of extent > 1),
   * all multiples of the element size as is the distance between the two, nested strides */
  int64_t esize = ty_size(dst->type->elem);
  Value *ev = ib_const_int(b, i64, esize);
  Value *safe = ib_const_bool(b, esize == (int64_t)ty_size(src->type->elem));
  Value *apart = ib_binary(b, OP_SUBI, dlo, slo);
  safe = ib_binary(b, OP_ANDI, safe, ib_cmpi(b, "eq", ib_binary(b, OP_REMSI, apart, ev), zero));
  Value *backwards = ib_cmpi(b, "sgt", dlo, slo), *inner = zero, *dstr[8];
  for (unsigned k = r; k-- > 0;) {
    dstr[k] = stride_of(L, dst, k);
    Value *ext = ib_dim(b, dst, k), *sstr = zero;
    if ((int)k >= c.shift) sstr = ib_select(b, c.bcast[k], zero, stride_of(L, src, c.skip + k - (unsigned)c.shift));
    Value *trivial = ib_cmpi(b, "sle", ext, one);
    Value *mag = ib_select(b, ib_cmpi(b, "slt", dstr[k], zero), ib_binary(b, OP_SUBI, zero, dstr[k]), dstr[k]);
    Value *ok = ib_binary(b, OP_ANDI, ib_cmpi(b, "eq", dstr[k], sstr), ib_cmpi(b, "sgt", mag, inner));
    ok = ib_binary(b, OP_ANDI, ok, ib_cmpi(b, "eq", ib_binary(b, OP_REMSI, dstr[k], ev), zero));
    safe = ib_binary(b, OP_ANDI, safe, ib_binary(b, OP_ORI, trivial, ok));
    Value *span = ib_binary(b, OP_MULI, mag, ib_binary(b, OP_SUBI, ext, one));
    inner = ib_select(b, trivial, inner, ib_binary(b, OP_ADDI, inner, span));
    /* decreasing addresses along a positive stride: from the last index */
    c.reverse[k] = ib_binary(b, OP_ANDI, overlap, ib_binary(b, OP_XORI, backwards, ib_cmpi(b, "slt", dstr[k], zero)));
  }
  Value *bad = ib_binary(b, OP_ANDI, overlap, ib_binary(b, OP_XORI, safe, yes));
  Op *raise = ib_op(b, OP_RAISE, 1, &bad, 0, NULL, 0);
  ir_op_set_attr(L->m, raise, "exception",
                 attr_str(L->m, "NotImplementedError: kfront: the source of this slice assignment overlaps its "
                                "destination in a way only a copy into a new array handles (Numba makes one with its "
                                "NRT; kfront has no allocator in kernels)"));
  each_element(L, dst, copy_element_fn, &c);
}

/* dst = v for an array value dst (a view): a scalar stored into each element, an array broadcast onto it
 * (copy_into), a homogeneous tuple into a 1-d dst of its length (Numba's sequence case; no NRT needed). */
static void store_into(Lower *L, Value *dst, FeVal v, SrcLoc vloc) {
  if (is_scalar(&v)) {
    if (complex_to_real_error(L, &v, dst->type->elem, vloc, " to store it into the elements of a slice")) return;
    Value *pair[2] = {conv_v(L, v, dst->type->elem), dst};
    each_element(L, dst, store_scalar_fn, pair);
    return;
  }
  if (is_array(&v) || v.kind == FV_VIEW) {
    FeVal src = view_value(L, &v);
    Type *se = src.type->elem;
    if (se->kind == TY_TUPLE || (!ty_is_scalar(se) && se->kind != TY_COMPLEX)) {
      lerr(L, vloc, "cannot assign %s to a slice of %s", vname(L, &v), tname(L, dst->type));
      return;
    }
    if (se->kind == TY_COMPLEX && dst->type->elem->kind != TY_COMPLEX) { /* as element stores: never to a real */
      lerr(L, vloc, "cannot assign %s to a slice of %s (Numba converts a complex number to no real type; take .real, "
                    ".imag or abs())", vname(L, &v), tname(L, dst->type));
      return;
    }
    copy_into(L, dst, src.v);
    return;
  }
  if (v.kind == FV_TUPLE) {
    bool uni = v.type && v.type->kind == TY_TUPLE && !ty_is_struct_tuple(v.type) && v.tup.n > 0;
    for (unsigned i = 0; uni && i < v.tup.n; i++)
      uni = is_scalar(&v.tup.elems[i]) && v.type->elems[i] == v.type->elems[0];
    if (!uni || dst->type->rank != 1) {
      lerr(L, vloc, "a tuple is assigned to a 1-d slice only, and only a homogeneous one (Numba's UniTuple), not %s "
                    "to %s", vname(L, &v), tname(L, dst->type));
      return;
    }
    Type *i64 = ty_i64(L->ctx);
    view_value_check(&L->b, ib_cmpi(&L->b, "eq", ib_dim(&L->b, dst, 0), ib_const_int(&L->b, i64, v.tup.n)),
                     "cannot assign slice from input of different size");
    if (complex_to_real_error(L, &v.tup.elems[0], dst->type->elem, vloc, " to store it into the elements of a slice"))
      return;
    for (unsigned i = 0; i < v.tup.n; i++) {
      Value *k = ib_const_int(&L->b, i64, i);
      store_element(L, dst, &k, conv_v(L, v.tup.elems[i], dst->type->elem));
    }
    return;
  }
  lerr(L, vloc, "cannot assign %s to a slice of %s", vname(L, &v), tname(L, dst->type));
}

/* a[index] = v where the index makes a view (or, with only integers, a sub-array: a[i] of a 2-d a): store_into. */
static void assign_view(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc) {
  FeVal a = lower_expr(L, t->subscript.value);
  if (a.kind == FV_POISON || v.kind == FV_POISON) return;
  if (!is_array(&a) && a.kind != FV_VIEW) {
    lerr(L, t->loc, "%s does not support item assignment", vname(L, &a));
    return;
  }
  Value *base, *idx[32];
  FeVal r = index_view(L, a, t->subscript.index, t->loc, &base, idx);
  if (r.kind != FV_VAL) return;
  at(L, t->loc);
  if (!r.v) {
    if (!is_scalar(&v)) {
      lerr(L, vloc, "cannot store %s into an element of %s", vname(L, &v), tname(L, base->type));
      return;
    }
    if (complex_to_real_error(L, &v, base->type->elem, vloc, " to store it into an element")) return;
    store_element(L, base, idx, conv_v(L, v, base->type->elem));
    return;
  }
  store_into(L, r.v, v, vloc);
}

/* a.x or a['x'] of an array (or view) of records: field x of every record, an array of layout A of the array's rank
 * plus the field's nested dimensions, as Numba's (which, unlike a record's field, it does not refuse when the field
 * is misaligned: the elements are then accessed as packed). */
static FeVal records_field_array(Lower *L, const FeVal *v, const char *name, size_t len, SrcLoc loc) {
  const Type *rec = (v->kind == FV_VIEW ? v->tup.elems[0].type : v->type)->elem;
  int k = ty_record_field(rec, name, len);
  if (k < 0)
    return lerr(L, loc, "record has no field '%.*s' (its fields: %s)", (int)len, name, record_fields_list(L, rec));
  FeVal arr = view_value(L, v);
  at(L, loc);
  Value *fa = field_array(L, arr.v, (unsigned)k);
  return val(fa->type, fa);
}

/* a.T, a.strides, a.itemsize, a.nbytes, a method (a.transpose), of an array or FV_VIEW v. */
static FeVal array_attribute(Lower *L, const FeVal *v, const char *a, SrcLoc aloc) {
  Type *at_ = v->type; /* (an FV_VIEW's own array type) */
  for (unsigned m = 0; m < M__COUNT; m++)
    if (strcmp(a, method_names[m]) == 0) {
      FeVal arr = view_value(L, v);
      return (FeVal){.kind = FV_METHOD, .type = arr.type, .v = arr.v, .builtin = (int)m};
    }
  Type *i64 = ty_i64(L->ctx);
  int64_t esize = ty_size(at_->elem);
  if (strcmp(a, "itemsize") == 0) return cint(i64, esize);
  if (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0) {
    /* numba-cuda's array_complex_attr: a complex array's parts as a float view (A); a real array's .real is itself,
     * its .imag a new read-only array of zeros (its NRT) */
    bool im = a[0] == 'i';
    FeVal arr = view_value(L, v);
    if (arr.type->elem->kind == TY_COMPLEX) {
      if (arr.type->rank >= 8)
        return lerr(L, aloc, ".%s of %s: kfront makes it as an array of one more axis, and arrays of more than 8 "
                             "dimensions are not supported", a, tname(L, arr.type));
      Type *t = ty_array(L->ctx, arr.type->elem->elem, arr.type->rank, LAYOUT_A);
      return val(t, view_complex_part(&L->b, arr.v, im, t));
    }
    bool number = ty_is_number(arr.type->elem) && arr.type->elem->kind != TY_BOOL; /* numba's number_domain */
    if (number && !im) return arr;
    if (number)
      return lerr(L, aloc, ".imag of %s makes a new array of zeros, which a kernel cannot allocate (Numba's CUDA "
                           "target allows it only with its NRT enabled; kfront does not)", tname(L, arr.type));
    return lerr(L, aloc, "cannot access .%s of array of %s", a, tname(L, arr.type->elem));
  }
  if (strcmp(a, "T") == 0) {
    FeVal arr = view_value(L, v);
    Type *t = view_transpose_type(L->ctx, arr.type, false);
    return arr.type->rank <= 1 ? arr : val(t, view_transpose(&L->b, arr.v, NULL, t));
  }
  if (strcmp(a, "strides") == 0) {
    FeVal arr = view_value(L, v);
    FeVal elems[8];
    for (unsigned k = 0; k < arr.type->rank && k < 8; k++)
      elems[k] = val(i64, op_result(ib_op(&L->b, OP_STRIDE, 1, &arr.v, 1, &i64, 0), 0));
    for (unsigned k = 0; k < arr.type->rank && k < 8; k++) ir_op_set_attr(L->m, elems[k].v->def, "axis", attr_int(i64, k));
    return make_tuple(L, arr.type->rank, elems);
  }
  if (strcmp(a, "nbytes") == 0) {
    FeVal arr = view_value(L, v);
    Value *n = op_result(ib_op(&L->b, OP_SIZE, 1, &arr.v, 1, &i64, 0), 0);
    FeVal r = val(i64, ib_binary(&L->b, OP_MULI, n, ib_const_int(&L->b, i64, esize)));
    r.nonneg = true;
    return r;
  }
  if (ty_is_record(at_->elem)) return records_field_array(L, v, a, strlen(a), aloc); /* a.x: a field, or no such */
  return lerr(L, aloc, "unknown attribute '%s' of %s (kfront supports shape, size, ndim, dtype, strides, itemsize, "
                       "nbytes, T, real, imag and the methods transpose, reshape, ravel, view and item)", a, tname(L, at_));
}

static SrcLoc arg_loc(const PyExpr *e, unsigned i);
static Type *dtype_of(Lower *L, const FeVal *d, SrcLoc loc);
static bool positional(Lower *L, const PyExpr *e, const char *fname, unsigned nmin, unsigned nmax, FeVal *out);

/* a.transpose(), a.transpose(axes) and a.transpose(*axes) with constant axes. */
static FeVal lower_transpose(Lower *L, const FeVal *m, const PyExpr *e) {
  unsigned r = m->type->rank;
  FeVal args[8], ax[8];
  unsigned nax = 0;
  if (!positional(L, e, "transpose", 0, 8, args)) return poison();
  for (unsigned i = 0; i < 8 && args[i].kind != FV_UNDEF; i++) {
    FeVal x = args[i];
    if (i == 0 && e->call.args.n == 1 && x.kind == FV_NONE) break;
    if (i == 0 && e->call.args.n == 1 && x.kind == FV_TUPLE) {
      if (x.tup.n > 8) return lerr(L, arg_loc(e, 0), "axes don't match array");
      for (unsigned k = 0; k < x.tup.n; k++) ax[nax++] = x.tup.elems[k];
    } else {
      ax[nax++] = x;
    }
  }
  if (nax == 0) {
    Type *t = view_transpose_type(L->ctx, m->type, false);
    return r <= 1 ? val(m->type, m->v) : val(t, view_transpose(&L->b, m->v, NULL, t));
  }
  if (nax != r) return lerr(L, e->loc, "axes don't match array: %u given for %s", nax, tname(L, m->type));
  unsigned perm[8];
  bool seen[8] = {false};
  for (unsigned k = 0; k < nax; k++) {
    if (!is_const_int(&ax[k]) || ax[k].type->kind == TY_BOOL)
      return lerr(L, e->loc, "transpose() axes must be constant integers in kfront, not %s", vname(L, &ax[k]));
    int64_t i = ax[k].c.i < 0 && !ax[k].type->is_unsigned ? ax[k].c.i + (int64_t)r : ax[k].c.i;
    if (i < 0 || i >= (int64_t)r) return lerr(L, e->loc, "axis %lld is out of bounds for array of dimension %u", (long long)ax[k].c.i, r);
    if (seen[i]) return lerr(L, e->loc, "repeated axis in transpose");
    seen[i] = true;
    perm[k] = (unsigned)i;
  }
  if (r == 1) return val(m->type, m->v);
  Type *t = view_transpose_type(L->ctx, m->type, true);
  return val(t, view_transpose(&L->b, m->v, perm, t));
}

/* a.reshape(shape) and a.reshape(d0, d1, ...) of a contiguous array, with integer extents (a negative one inferred);
 * extents that do not keep the size raise ValueError in the kernel, as in Numba. */
static FeVal lower_reshape(Lower *L, const FeVal *m, const PyExpr *e) {
  FeVal args[8], dims[8];
  unsigned n = 0;
  if (!positional(L, e, "reshape", 1, 8, args)) return poison();
  if (m->type->layout != LAYOUT_C && m->type->layout != LAYOUT_F)
    return lerr(L, e->loc, "reshape() supports contiguous array only, not %s", tname(L, m->type));
  if (e->call.args.n == 1 && args[0].kind == FV_TUPLE) {
    if (args[0].tup.n > 8) return lerr(L, arg_loc(e, 0), "arrays of more than 8 dimensions are not supported by kfront");
    for (unsigned k = 0; k < args[0].tup.n; k++) dims[n++] = args[0].tup.elems[k];
  } else {
    for (unsigned k = 0; k < 8 && args[k].kind != FV_UNDEF; k++) dims[n++] = args[k];
  }
  if (n == 0) return lerr(L, e->loc, "reshape() to a 0-d array is not supported by kfront");
  Value *ext[8];
  for (unsigned k = 0; k < n; k++) {
    if (!is_scalar(&dims[k]) || dims[k].type->kind != TY_INT)
      return lerr(L, e->call.args.n == 1 ? arg_loc(e, 0) : arg_loc(e, k), "reshape() arg cannot be %s", vname(L, &dims[k]));
    at(L, e->loc);
    ext[k] = conv_v(L, dims[k], ty_i64(L->ctx));
  }
  at(L, e->loc);
  Type *t = ty_array(L->ctx, m->type->elem, n, m->type->layout);
  return val(t, view_reshape(&L->b, m->v, ext, n, t));
}

static FeVal instantiate_and_call(Lower *L, FeFunc *f, const PyExpr *e, FeVal *args, unsigned np);

/* ---- NumPy's whole-array reductions (numba-cuda's np/arraymath.py; the loops are reductions.c's source) ----------
 * np.sum, np.prod (of integers and booleans: int64, of unsigned integers: uint64, as NumPy's default accumulator),
 * np.min/amin and np.max/amax (ValueError on an empty array; a NaN is the answer), np.all, np.any, np.mean (the
 * sum in float64 for integers and booleans, else in the dtype, divided in float64: a float32 array's mean is
 * float64, as numba-cuda's overload returns it), np.var and np.std (float64), np.count_nonzero (int64), np.nansum
 * and np.nanprod (int64 for integers), np.nanmin/np.nanmax (ValueError on an empty array), np.nanmean, np.nanvar,
 * np.nanstd (float64, complex128 for nanmean of complex; NaN when no element counts), and the array methods sum,
 * prod, min, max, all, any, mean, var, std. Whole arrays only: an axis (or any other argument) is refused, as are
 * min/max/nanmin/nanmax of complex. `nargs` is how many of the call's positional arguments are the array (1 for
 * np.NAME(a), 0 for a.NAME()). */
static FeVal reduction_call(Lower *L, const char *name, FeVal *args, unsigned n, const PyExpr *e) {
  FeFunc *f = fe_reduce_function(L->fe, name, args[0].type->rank);
  if (!f) return lerr(L, e->loc, "internal error: no reduction source for %s", name);
  FeVal r = instantiate_and_call(L, f, e, args, n);
  if (r.kind != FV_POISON) at(L, e->loc);
  return r;
}

static FeVal lower_reduction(Lower *L, const char *name, const char *fname, FeVal arr, const PyExpr *e, unsigned nargs) {
  for (unsigned k = 0; k < e->call.nkeywords; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    if (kw->arg && strcmp(kw->arg, "axis") == 0)
      return lerr(L, kw->loc, "%s(): the axis argument is not supported by kfront (whole-array reductions only)", fname);
    return lerr(L, kw->loc, "%s() takes no keyword arguments in kfront", fname);
  }
  if (e->call.args.n > nargs)
    return lerr(L, arg_loc(e, nargs), "%s(): the axis argument is not supported by kfront (whole-array reductions only)",
                fname);
  if (arr.kind != FV_VAL || arr.type->kind != TY_ARRAY)
    return lerr(L, nargs ? arg_loc(e, 0) : e->loc, "%s() of %s is not supported by kfront (an array only)", fname,
                vname(L, &arr));
  Type *et = arr.type->elem, *i64 = ty_i64(L->ctx), *f64 = ty_f64(L->ctx);
  bool nan = strncmp(name, "nan", 3) == 0;
  const char *base = nan ? name + 3 : name; /* nanmin -> min */
  bool minmax = strcmp(base, "min") == 0 || strcmp(base, "max") == 0;
  bool number = et->kind == TY_INT || et->kind == TY_BOOL || (et->kind == TY_FLOAT && et->bits >= 32) ||
                (et->kind == TY_COMPLEX && !minmax);
  if (!number)
    return lerr(L, nargs ? arg_loc(e, 0) : e->loc, "%s() of an array of %s is not supported by kfront", fname,
                tname(L, et));
  bool exact = et->kind == TY_INT || et->kind == TY_BOOL;
  at(L, e->loc);
  FeVal a[3] = {arr};
  if (minmax) { /* the first element starts it */
    Value *size = op_result(ib_op(&L->b, OP_SIZE, 1, (Value *const *)&arr.v, 1, &i64, 0), 0);
    view_value_check(&L->b, ib_cmpi(&L->b, "ne", size, ib_const_int(&L->b, i64, 0)),
                     nan ? "zero-size array to reduction operation not possible"
                     : base[1] == 'i' ? "zero-size array to reduction operation minimum which has no identity"
                                      : "zero-size array to reduction operation maximum which has no identity");
    Value *idx[8];
    for (unsigned d = 0; d < arr.type->rank; d++) idx[d] = ib_const_int(&L->b, i64, 0);
    a[1] = load_element(L, arr.v, idx);
    FeVal r = reduction_call(L, name, a, 2, e);
    return r.kind == FV_POISON ? r : conv(L, r, et);
  }
  if (strcmp(name, "all") == 0 || strcmp(name, "any") == 0) {
    FeVal r = reduction_call(L, name, a, 1, e);
    return r.kind == FV_POISON ? r : conv(L, r, ty_bool(L->ctx));
  }
  if (strcmp(name, "sum") == 0 || strcmp(name, "prod") == 0 || strcmp(name, "count_nonzero") == 0) {
    Type *t = et; /* numba's result type, the accumulator's */
    if (exact) t = et->kind == TY_INT && et->is_unsigned ? ty_int(L->ctx, 64, true) : i64;
    if (name[0] == 'c') t = i64;
    a[1] = conv(L, cint(i64, name[0] == 'p'), t);
    FeVal r = reduction_call(L, name, a, 2, e);
    return r.kind == FV_POISON ? r : conv(L, r, t);
  }
  if (strcmp(name, "nansum") == 0 || strcmp(name, "nanprod") == 0) {
    /* integers and booleans: numba's intp result. Of uint64 elements numba-cuda 0.30.4 computes on the H200 the
     * 64-bit wrapping sum (product) and returns its bits as int64 (test_reductions_vs_numba.py): accumulated in
     * uint64 here, then converted */
    Type *t = et->kind == TY_INT && et->is_unsigned && et->bits == 64 ? et : exact ? i64 : et;
    a[1] = conv(L, cint(i64, name[3] == 'p'), t);
    FeVal r = reduction_call(L, name, a, 2, e);
    return r.kind == FV_POISON || !exact ? r : conv(L, r, i64);
  }
  /* mean, nanmean and the variances: the mean accumulates in float64 for integers (numba's nanmean always starts
   * from 0.0, so complex in complex128) */
  Type *acc = exact ? f64 : et;
  if (nan) acc = et->kind == TY_COMPLEX ? ty_complex(L->ctx, f64) : f64;
  a[1] = conv(L, cint(i64, 0), acc);
  FeVal m = reduction_call(L, nan ? "nanmean" : "mean", a, 2, e);
  if (m.kind == FV_POISON || strcmp(base, "mean") == 0) return m;
  a[1] = m;
  a[2] = cfloat(f64, 0.0);
  return reduction_call(L, name, a, 3, e);
}

/* A call of an array method (or of an integer's: bit_count). */
static FeVal lower_method(Lower *L, const FeVal *m, const PyExpr *e) {
  at(L, e->loc);
  switch (m->builtin) {
  case M_TRANSPOSE: return lower_transpose(L, m, e);
  case M_CONJUGATE: {
    FeVal none[1];
    if (!positional(L, e, "conjugate", 0, 0, none)) return poison();
    if (m->type->kind == TY_ARRAY)
      return lerr(L, e->loc, "conjugate() of an array makes a new array, which a kernel cannot allocate; conjugate its "
                             "elements");
    if (m->type->kind != TY_COMPLEX) return val(m->type, m->v);
    return val(m->type, op_result(ib_op(&L->b, OP_COMPLEX_CONJ, 1, (Value *const *)&m->v, 1, (Type *const *)&m->type, 0), 0));
  }
  case M_RESHAPE: return lower_reshape(L, m, e);
  case M_RAVEL: {
    FeVal none[1];
    if (!positional(L, e, "ravel", 0, 0, none)) return poison();
    if (m->type->layout != LAYOUT_C)
      return lerr(L, e->loc, "ravel() of %s copies it into a new array, which a kernel cannot allocate (Numba's CUDA "
                             "target allows it only with its NRT enabled; kfront does not)", tname(L, m->type));
    Type *t = ty_array(L->ctx, m->type->elem, 1, LAYOUT_C);
    return m->type->rank == 1 ? val(m->type, m->v) : val(t, view_ravel(&L->b, m->v, t));
  }
  case M_VIEW: {
    FeVal d;
    if (!positional(L, e, "view", 1, 1, &d)) return poison();
    Type *dt = dtype_of(L, &d, arg_loc(e, 0));
    if (!dt) return poison();
    Type *t = ty_array(L->ctx, dt, m->type->rank, m->type->layout);
    return val(t, view_dtype(&L->b, m->v, t));
  }
  case M_ITEM: {
    /* the only element of an array of size 1 (else ValueError, as Numba raises it) */
    FeVal none[1];
    if (!positional(L, e, "item", 0, 0, none)) return poison();
    Type *i64 = ty_i64(L->ctx);
    Value *size = op_result(ib_op(&L->b, OP_SIZE, 1, (Value *const *)&m->v, 1, &i64, 0), 0);
    Value *ok = ib_cmpi(&L->b, "eq", size, ib_const_int(&L->b, i64, 1));
    view_value_check(&L->b, ok, "item(): can only convert an array of size 1 to a Python scalar");
    Value *idx[8];
    for (unsigned d = 0; d < m->type->rank; d++) idx[d] = ib_const_int(&L->b, i64, 0);
    return load_element(L, m->v, idx);
  }
  case M_SUM:
  case M_PROD:
  case M_MIN:
  case M_MAX:
  case M_ALL:
  case M_ANY:
  case M_MEAN:
  case M_VAR:
  case M_STD: {
    const char *name = method_names[m->builtin];
    return lower_reduction(L, name, name, val(m->type, m->v), e, 0);
  }
  case M_SLICE_INDICES: return slice_indices(L, m->recv, e);
  case M_INT_BIT_COUNT: {
    /* numba-cuda's overload: cuda.popc(i), the integer's type */
    FeVal none[1];
    if (!positional(L, e, "bit_count", 0, 0, none)) return poison();
    return val(m->type, ib_unary(&L->b, OP_POPC, m->v, NULL));
  }
  case M_COPY:
  case M_FLATTEN:
  case M_ASTYPE:
    return lerr(L, e->loc, "%s() makes a new array, which a kernel cannot allocate (Numba's CUDA target allows it only "
                           "with its NRT enabled; kfront does not)", method_names[m->builtin]);
  default: return lerr(L, e->loc, "internal error: an unknown array method");
  }
}

/* t[start:stop:step] of a tuple, with constant bounds (Numba slices tuples at compile time). */
static FeVal slice_tuple_by(Lower *L, const FeVal *t, const bool *given, const int64_t *c, SrcLoc step_loc);

/* t[lower:upper:step] of a tuple t, written with constant bounds. */
static FeVal slice_tuple(Lower *L, const FeVal *t, const PyExpr *sl) {
  const PyExpr *part[3] = {sl->slice.lower, sl->slice.upper, sl->slice.step};
  int64_t c[3];
  bool given[3];
  for (unsigned k = 0; k < 3; k++) {
    given[k] = false;
    if (!part[k]) continue;
    FeVal x = lower_expr(L, part[k]);
    if (x.kind == FV_POISON) return x;
    if (x.kind == FV_NONE) continue;
    if (!is_const_int(&x) || x.type->is_unsigned)
      return lerr(L, part[k]->loc, "a tuple is sliced with constant integers (or None), not %s", vname(L, &x));
    c[k] = x.c.i;
    given[k] = true;
  }
  return slice_tuple_by(L, t, given, c, part[2] ? part[2]->loc : sl->loc);
}

/* t[start:stop:step] of a tuple t, each bound a constant when given[k]: a tuple (Python's clamping). */
static FeVal slice_tuple_by(Lower *L, const FeVal *t, const bool *given, const int64_t *c, SrcLoc step_loc) {
  int64_t n = t->tup.n, step = given[2] ? c[2] : 1;
  if (step == 0) return lerr(L, step_loc, "slice step cannot be zero");
  int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1, b[2];
  for (unsigned k = 0; k < 2; k++) {
    if (!given[k]) {
      b[k] = (k == 0) == (step > 0) ? lo : hi;
      continue;
    }
    int64_t x = c[k] < 0 ? c[k] + n : c[k];
    b[k] = x < lo ? lo : x > hi ? hi : x;
  }
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, t->tup.n ? t->tup.n : 1);
  unsigned m = 0;
  for (int64_t i = b[0]; step > 0 ? i < b[1] : i > b[1];) {
    elems[m++] = t->tup.elems[i];
    /* the next index, unless it passes the stop (a step near INT64_MAX must not overflow i) */
    uint64_t left = step > 0 ? (uint64_t)b[1] - (uint64_t)i : (uint64_t)i - (uint64_t)b[1];
    if (left <= (step > 0 ? (uint64_t)step : 0 - (uint64_t)step)) break;
    i += step;
  }
  return make_tuple(L, m, elems);
}

/* t[i] with i an integer known only at run time, for a tuple whose elements are scalars of one type (Numba's
 * getitem of a UniTuple, cpython/tupleobj.py getitem_unituple): a negative i counts from the end, an i out of range
 * raises IndexError("tuple index out of range") at the user's line; the element is chosen by a select chain. Other
 * tuples (heterogeneous, of arrays, tuples or records, or empty) are refused as Numba refuses them. */
static FeVal tuple_item_at_run_time(Lower *L, const FeVal *t, FeVal i, SrcLoc loc) {
  if (i.kind != FV_VAL || is_enum_only(&i) || i.type->kind != TY_INT)
    return lerr(L, loc, "a tuple index must be an integer, not %s", vname(L, &i));
  const FeVal *el = t->tup.elems;
  bool uniform = t->tup.n > 0;
  for (unsigned k = 0; k < t->tup.n && uniform; k++)
    uniform = is_scalar(&el[k]) && !el[k].enumc && el[k].type == el[0].type;
  if (!uniform)
    return lerr(L, loc, "a tuple indexed with an integer known only at run time must have elements of one scalar type "
                        "(Numba's UniTuple); %s is not (index it with a constant)", vname(L, t));
  at(L, loc);
  Type *i64 = ty_i64(L->ctx);
  int64_t n = (int64_t)t->tup.n;
  FeVal wide = conv(L, i, i64);
  Value *raw = mat(L, &wide);
  Value *neg = ib_cmpi(&L->b, "slt", raw, ib_const_int(&L->b, i64, 0));
  Value *k = ib_select(&L->b, neg, ib_binary(&L->b, OP_ADDI, raw, ib_const_int(&L->b, i64, n)), raw);
  emit_raise(L, ib_cmpi(&L->b, "uge", k, ib_const_int(&L->b, i64, n)), "IndexError: tuple index out of range", loc);
  Value *r = mat(L, &el[n - 1]);
  for (int64_t j = n - 1; j-- > 0;)
    r = ib_select(&L->b, ib_cmpi(&L->b, "eq", k, ib_const_int(&L->b, i64, j)), mat(L, &el[j]), r);
  return val(el[0].type, r);
}

/* e[index], given the value v of e (lowered by lower_expr's loop over the chain). */
static FeVal subscript_of(Lower *L, const PyExpr *e, FeVal v) {
  if (v.kind == FV_POISON) return v;
  if (v.kind == FV_TUPLE) {
    if (e->subscript.index->kind == EX_SLICE) return slice_tuple(L, &v, e->subscript.index);
    FeVal i = lower_expr(L, e->subscript.index);
    if (i.kind == FV_POISON) return i;
    if (is_slice_obj(&i)) { /* a slice object of constants, as Numba folds `t[s]` to a static getitem */
      bool given[3] = {true, true, true};
      int64_t c[3];
      for (unsigned k = 0; k < 3; k++) {
        if (!is_const_int(&i.tup.elems[k]))
          return lerr(L, e->subscript.index->loc, "a tuple is sliced with a slice of constants, not one whose %s is "
                      "known only at run time", (const char *const[]){"start", "stop", "step"}[k]);
        c[k] = i.tup.elems[k].c.i;
      }
      return slice_tuple_by(L, &v, given, c, e->subscript.index->loc);
    }
    if (!is_const_int(&i)) return tuple_item_at_run_time(L, &v, i, e->subscript.index->loc);
    int64_t k = i.c.i < 0 ? i.c.i + (int64_t)v.tup.n : i.c.i;
    if (k < 0 || k >= (int64_t)v.tup.n)
      return lerr(L, e->subscript.index->loc, "tuple index %lld is out of range for a tuple of %u", (long long)i.c.i,
                  v.tup.n);
    FeVal r = v.tup.elems[k];
    r.literal = false;
    return r;
  }
  if (is_array(&v) || v.kind == FV_VIEW) {
    Value *base, *idx[32];
    if (is_view_index(e->subscript.index)) {
      FeVal r = index_view(L, v, e->subscript.index, e->loc, &base, idx);
      if (r.kind != FV_VAL || r.v) return r;
      if (ty_is_record(base->type->elem)) return record_ref(L, base, idx);
      return load_element(L, base, idx);
    }
    const PyExpr *ie = e->subscript.index;
    FeVal ix[32];
    unsigned n;
    bool views;
    if (ie->kind != EX_TUPLE && ty_is_record((v.kind == FV_VIEW ? v.tup.elems[0].type : v.type)->elem)) {
      FeVal i = lower_expr(L, ie); /* a['x'] of an array of records is a.x */
      if (i.kind == FV_STR) return records_field_array(L, &v, i.str.s, i.str.len, ie->loc);
      if (!index_values(L, ie, &i, 1, ix, &n, &views)) return poison();
    } else if (!gather_indices(L, ie, ix, &n, &views)) {
      return poison();
    }
    FeVal r = views ? index_view_values(L, v, ix, n, ie, e->loc, &base, idx)
                    : index_array(L, &v, ix, n, e->loc, false, &base, idx);
    if (r.kind != FV_VAL || (views && r.v)) return r;
    if (r.kind != FV_VAL) return r;
    if (ty_is_record(base->type->elem)) return record_ref(L, base, idx);
    return load_element(L, base, idx);
  }
  if (v.kind == FV_RECORD) {
    Value *base, *idx[32];
    FeVal r = record_item(L, &v, e->subscript.index, &base, idx);
    if (r.kind != FV_VAL || r.v) return r;
    return load_element(L, base, idx);
  }
  if (v.kind == FV_NAMESPACE && v.ns->enumc) { /* Color["RED"]: the member of that name */
    FeVal i = lower_expr(L, e->subscript.index);
    if (i.kind == FV_POISON) return i;
    if (i.kind != FV_STR) return lerr(L, e->subscript.index->loc, "an enum class is indexed by a member's name, not %s", vname(L, &i));
    for (unsigned k = 0; k < v.ns->n; k++)
      if (strlen(v.ns->names[k]) == i.str.len && memcmp(v.ns->names[k], i.str.s, i.str.len) == 0) return v.ns->vals[k];
    return lerr(L, e->subscript.index->loc, "enum class '%s' has no member '%.*s'", v.ns->name, (int)i.str.len, i.str.s);
  }
  if (v.kind == FV_NTYPE) return lerr(L, e->loc, "array types such as %s[:] are not values in a kernel", tname(L, v.type));
  return lerr(L, e->loc, "%s is not subscriptable (only arrays and tuples are)", vname(L, &v));
}

/* ---- operators ------------------------------------------------------------------------------------------------ */

static bool want_scalars(Lower *L, const FeVal *a, const FeVal *b, const char *op, SrcLoc loc) {
  if (is_scalar(a) && (!b || is_scalar(b))) return true;
  const FeVal *bad = !is_scalar(a) ? a : b;
  if (bad->kind == FV_VIEW || (bad->kind == FV_VAL && bad->type->kind == TY_ARRAY))
    lerr(L, loc, "unsupported operand type%s for %s: %s%s%s (array expressions are not supported in kernels; "
                 "operate on elements)",
         b ? "s" : "", op, vname(L, a), b ? " and " : "", b ? vname(L, b) : "");
  else
    lerr(L, loc, "unsupported operand type%s for %s: %s%s%s", b ? "s" : "", op, vname(L, a), b ? " and " : "",
         b ? vname(L, b) : "");
  return false;
}

/* ---- complex numbers: values of the complex dialect (lower-complex defines what its ops compute) ---------------
 * As numba-cuda: 1j is complex128; arithmetic and ==, != promote as Numba's templates (float32 with complex64 is
 * complex64, an int64 with complex64 complex128 by unification, ...); a complex converts to no real type (only to
 * bool, by its truth value); `/` by 0 + 0j raises ZeroDivisionError (a thread without debug=True just ends, as
 * numba-cuda's kernels return); `**` is numba-cuda's _Py_c_pow translation (complex.pow). */

static void emit_raise(Lower *L, Value *cond, const char *text, SrcLoc loc);

static Value *complex_make(Lower *L, Value *re, Value *im, Type *t) {
  Value *ops[2] = {re, im};
  return op_result(ib_op(&L->b, OP_COMPLEX_CREATE, 2, ops, 1, &t, 0), 0);
}

static Value *complex_part(Lower *L, Value *z, bool imag) {
  Type *ft = z->type->elem;
  return op_result(ib_op(&L->b, imag ? OP_COMPLEX_IM : OP_COMPLEX_RE, 1, &z, 1, &ft, 0), 0);
}

/* Numba's casts to and from complex: a real to its complex (imaginary part 0), complex to complex part by part,
 * complex to bool its truth (a part != 0, unordered). Any other target is not a conversion Numba has: the callers
 * refuse it first (complex_to_real_error); the real part converted here is never reached by a typed program. */
static FeVal conv_complex(Lower *L, FeVal x, Type *t) {
  if (x.type->kind == TY_COMPLEX) {
    Value *z = mat(L, &x);
    if (t->kind == TY_COMPLEX) {
      Value *re = ib_cast(&L->b, complex_part(L, z, false), t->elem), *im = ib_cast(&L->b, complex_part(L, z, true), t->elem);
      return val(t, complex_make(L, re, im, t));
    }
    Value *re = complex_part(L, z, false), *im = complex_part(L, z, true);
    if (t->kind == TY_BOOL) {
      Value *zero = ib_const_float(&L->b, re->type, 0);
      Value *a = ib_cmpf(&L->b, "une", re, zero), *b = ib_cmpf(&L->b, "une", im, zero);
      return val(t, ib_binary(&L->b, OP_ORI, a, b));
    }
    return val(t, ib_cast(&L->b, re, t));
  }
  FeVal re = conv(L, x, t->elem);
  Value *rv = mat(L, &re);
  return val(t, complex_make(L, rv, ib_const_float(&L->b, t->elem, 0), t));
}

/* Whether a value of type from may become a t where Numba converts implicitly (a complex to a real: never). */
static bool complex_to_real_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what) {
  if (!is_complex(v) || t->kind == TY_COMPLEX) return false;
  lerr(L, loc, "cannot convert %s to %s%s (Numba converts a complex number to no real type; take .real, .imag or "
               "abs())", tname(L, v->type), tname(L, t), what);
  return true;
}

static FeVal complex_binop(Lower *L, PyBinOp op, FeVal x, FeVal y, Type *rt, SrcLoc loc) {
  Value *xv = conv_v(L, x, rt), *yv = conv_v(L, y, rt), *ops[2] = {xv, yv};
  OpKind k;
  switch (op) {
  case BIN_ADD: k = OP_COMPLEX_ADD; break;
  case BIN_SUB: k = OP_COMPLEX_SUB; break;
  case BIN_MUL: k = OP_COMPLEX_MUL; break;
  case BIN_POW: k = OP_COMPLEX_POW; break;
  case BIN_DIV: {
    k = OP_COMPLEX_DIV;
    Value *zero = ib_const_float(&L->b, rt->elem, 0);
    Value *re0 = ib_cmpf(&L->b, "oeq", complex_part(L, yv, false), zero);
    Value *im0 = ib_cmpf(&L->b, "oeq", complex_part(L, yv, true), zero);
    emit_raise(L, ib_binary(&L->b, OP_ANDI, re0, im0), "ZeroDivisionError: complex division by zero", loc);
    at(L, loc);
    break;
  }
  default: return lerr(L, loc, "unsupported operand types for '%s': %s and %s", ast_binop_str(op), tname(L, x.type), tname(L, y.type));
  }
  return val(rt, op_result(ib_op(&L->b, k, 2, ops, 1, &rt, 0), 0));
}

/* Folds an integer operation at the width of t (wrapping), for constants that are not literals. */
static bool fold_int(PyBinOp op, Type *t, int64_t x, int64_t y, int64_t *out) {
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y, r;
  bool u = t->is_unsigned;
  switch (op) {
  case BIN_ADD: r = ux + uy; break;
  case BIN_SUB: r = ux - uy; break;
  case BIN_MUL: r = ux * uy; break;
  case BIN_BITAND: r = ux & uy; break;
  case BIN_BITOR: r = ux | uy; break;
  case BIN_BITXOR: r = ux ^ uy; break;
  case BIN_FLOORDIV:
  case BIN_MOD:
    if (y == 0) {
      r = 0;
    } else if (u) {
      r = op == BIN_FLOORDIV ? ux / uy : ux % uy;
    } else {
      if (x == INT64_MIN && y == -1) r = op == BIN_FLOORDIV ? (uint64_t)INT64_MIN : 0;
      else {
        int64_t d = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
          d -= 1;
          m += y;
        }
        r = (uint64_t)(op == BIN_FLOORDIV ? d : m);
      }
    }
    break;
  default: return false;
  }
  if (t->bits < 64) {
    uint64_t mask = (1ull << t->bits) - 1;
    r &= mask;
    if (!u && (r >> (t->bits - 1))) r |= ~mask;
  }
  *out = (int64_t)r;
  return true;
}

/* Under debug=True, Numba's Python error model: a division or modulo by zero raises ZeroDivisionError (with
 * Numba's messages) instead of giving inf, nan or 0. y is the divisor, already of the operation's type. */
static void zero_division_check(Lower *L, PyBinOp op, FeVal y, SrcLoc loc) {
  bool is_int = y.type->kind != TY_FLOAT;
  if (y.is_const && (is_int ? y.c.i != 0 : y.c.f != 0)) return;
  const char *msg = op == BIN_DIV ? "division by zero" : op == BIN_MOD ? (is_int ? "integer modulo by zero" : "modulo by zero")
                    : is_int ? "integer division by zero" : "division by zero";
  at(L, loc);
  Value *yv = mat(L, &y);
  Value *zero = is_int ? ib_const_int(&L->b, y.type, 0) : ib_const_float(&L->b, y.type, 0);
  Value *is_zero = is_int ? ib_cmpi(&L->b, "eq", yv, zero) : ib_cmpf(&L->b, "oeq", yv, zero);
  Op *c = ib_op(&L->b, OP_RAISE, 1, &is_zero, 0, NULL, 0);
  ir_op_set_attr(L->m, c, "exception", attr_str(L->m, arena_printf(&L->fe->arena, "ZeroDivisionError: %s", msg)));
}

static FeVal binop(Lower *L, PyBinOp op, FeVal a, FeVal b, SrcLoc loc) {
  if (a.kind == FV_POISON || b.kind == FV_POISON) return poison();
  if (a.literal && b.literal) {
    FeVal r;
    if (sema_py_binop(L->ctx, op, &a, &b, &r)) return r;
  }
  if (op == BIN_ADD && a.kind == FV_TUPLE && b.kind == FV_TUPLE) {
    FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, a.tup.n + b.tup.n + 1);
    unsigned n = 0;
    for (unsigned i = 0; i < a.tup.n; i++) elems[n++] = a.tup.elems[i];
    for (unsigned i = 0; i < b.tup.n; i++) elems[n++] = b.tup.elems[i];
    return user_tuple(L, n, elems, loc);
  }
  char opname[8];
  snprintf(opname, sizeof opname, "'%s'", ast_binop_str(op));
  if (op == BIN_MATMUL) return lerr(L, loc, "the '@' operator is not supported in kernels");
  if (!want_scalars(L, &a, &b, opname, loc)) return poison();
  int kinds[2] = {nb_kind(a.type), nb_kind(b.type)};
  const NbCase *c = sema_op_case(NBF_BINOP, op, kinds, 2);
  if (!c) return lerr(L, loc, "unsupported operand types for %s: %s and %s", opname, tname(L, a.type), tname(L, b.type));
  Type *ta = nb_type(L->ctx, c->args[0]), *tb = nb_type(L->ctx, c->args[1]), *rt = nb_type(L->ctx, c->ret);
  at(L, loc);
  FeVal x = conv(L, a, ta), y = conv(L, b, tb);
  if (rt->kind == TY_COMPLEX) return complex_binop(L, op, x, y, rt, loc);
  bool nonneg_in = x.nonneg && y.nonneg;
  /* constants that are not literals (module constants): fold integer arithmetic */
  if (x.is_const && y.is_const && rt->kind == TY_INT && (op != BIN_POW && op != BIN_LSHIFT && op != BIN_RSHIFT)) {
    FeVal xr = conv(L, x, rt), yr = conv(L, y, rt);
    int64_t r;
    if (fold_int(op, rt, xr.c.i, yr.c.i, &r)) return cint(rt, r);
  }
  FeVal res;
  Value *xv, *yv;
  if ((op == BIN_DIV || op == BIN_FLOORDIV || op == BIN_MOD) && debug_mode(L->fe)) zero_division_check(L, op, y, loc);
  switch (op) {
  case BIN_ADD:
  case BIN_SUB:
  case BIN_MUL: {
    bool f = rt->kind == TY_FLOAT;
    OpKind k = op == BIN_ADD ? (f ? OP_ADDF : OP_ADDI) : op == BIN_SUB ? (f ? OP_SUBF : OP_SUBI) : (f ? OP_MULF : OP_MULI);
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    res = val(rt, ib_binary(&L->b, k, xv, yv));
    res.nonneg = !f && op != BIN_SUB && nonneg_in;
    return res;
  }
  case BIN_DIV:
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    return val(rt, ib_binary(&L->b, OP_DIVF, xv, yv));
  case BIN_FLOORDIV:
  case BIN_MOD: {
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    OpKind k;
    if (rt->kind == TY_FLOAT) k = op == BIN_FLOORDIV ? OP_FLOORDIVF : OP_FLOORMODF;
    else if (rt->is_unsigned) k = op == BIN_FLOORDIV ? OP_DIVUI : OP_REMUI;
    else k = op == BIN_FLOORDIV ? OP_FLOORDIVSI : OP_FLOORMODSI;
    res = val(rt, ib_binary(&L->b, k, xv, yv));
    bool pos_divisor = y.is_const && rt->kind == TY_INT && y.c.i > 0;
    res.nonneg = rt->kind == TY_INT && ((op == BIN_MOD && pos_divisor) || (op == BIN_FLOORDIV && x.nonneg && pos_divisor));
    return res;
  }
  case BIN_POW:
    if (rt->kind == TY_INT) {
      xv = conv_v(L, x, rt);
      yv = conv_v(L, y, rt);
      return val(rt, ib_binary(&L->b, OP_IPOW, xv, yv));
    }
    xv = conv_v(L, x, rt);
    if (tb->kind == TY_INT) {
      yv = mat(L, &y);
      Value *ops[2] = {xv, yv};
      return val(rt, op_result(ib_op(&L->b, OP_POWI, 2, ops, 1, &rt, 0), 0));
    }
    yv = conv_v(L, y, rt);
    return val(rt, ib_binary(&L->b, OP_POW, xv, yv));
  case BIN_LSHIFT:
  case BIN_RSHIFT:
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    res = val(rt, ib_binary(&L->b, op == BIN_LSHIFT ? OP_SHLI : rt->is_unsigned ? OP_SHRUI : OP_SHRSI, xv, yv));
    res.nonneg = op == BIN_RSHIFT && x.nonneg;
    return res;
  case BIN_BITAND:
  case BIN_BITOR:
  case BIN_BITXOR: {
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    OpKind k = op == BIN_BITAND ? OP_ANDI : op == BIN_BITOR ? OP_ORI : OP_XORI;
    res = val(rt, ib_binary(&L->b, k, xv, yv));
    res.nonneg = rt->kind == TY_BOOL || (op == BIN_BITAND ? (x.nonneg || y.nonneg) : nonneg_in);
    return res;
  }
  default: return lerr(L, loc, "unsupported operator %s", opname);
  }
}

static FeVal unop(Lower *L, PyUnaryOp op, FeVal a, SrcLoc loc) {
  if (a.kind == FV_POISON) return a;
  if (a.literal) {
    FeVal r;
    if (sema_py_unary(L->ctx, op, &a, &r)) return r;
  }
  at(L, loc);
  if (op == UN_NOT) {
    FeVal t = truth(L, a, loc);
    if (t.kind == FV_POISON) return t;
    if (t.is_const) return cbool(L, !t.c.i);
    return val(t.type, ib_binary(&L->b, OP_XORI, t.v, ib_const_bool(&L->b, true)));
  }
  char opname[8];
  snprintf(opname, sizeof opname, "'%s'", ast_unaryop_str(op));
  if (!want_scalars(L, &a, NULL, opname, loc)) return poison();
  int kind = nb_kind(a.type);
  const NbCase *c = sema_op_case(NBF_UNARY, op, &kind, 1);
  if (!c) return lerr(L, loc, "unsupported operand type for unary %s: %s", opname, tname(L, a.type));
  Type *ta = nb_type(L->ctx, c->args[0]), *rt = nb_type(L->ctx, c->ret);
  FeVal x = conv(L, a, ta);
  if (op == UN_POS) return conv(L, x, rt);
  if (op == UN_NEG && rt->kind == TY_COMPLEX)
    return val(rt, op_result(ib_op(&L->b, OP_COMPLEX_NEG, 1, (Value *[]){mat(L, &x)}, 1, &rt, 0), 0));
  if (op == UN_NEG) {
    FeVal xr = conv(L, x, rt);
    if (xr.is_const && rt->kind == TY_INT) return cint(rt, (int64_t)(0 - (uint64_t)xr.c.i));
    if (xr.is_const && rt->kind == TY_FLOAT && rt->bits > 16) return cfloat(rt, -xr.c.f);
    if (rt->kind == TY_FLOAT) return val(rt, ib_unary(&L->b, OP_NEGF, mat(L, &xr), NULL));
    return val(rt, ib_binary(&L->b, OP_SUBI, ib_const_int(&L->b, rt, 0), mat(L, &xr)));
  }
  /* invert: at the operand's own width, then widened (~uint8(0) is 255) */
  if (ta->kind == TY_BOOL) {
    if (x.is_const) return cbool(L, !x.c.i);
    return val(ta, ib_binary(&L->b, OP_XORI, mat(L, &x), ib_const_bool(&L->b, true)));
  }
  if (x.is_const) return conv(L, cint(ta, ~x.c.i), rt);
  Value *inv = ib_binary(&L->b, OP_XORI, mat(L, &x), ib_const_int(&L->b, ta, -1));
  return conv(L, val(ta, inv), rt);
}

static const char *cmp_pred(PyCmpOp op, Type *t) {
  if (t->kind == TY_FLOAT) {
    static const char *const f[] = {"oeq", "une", "olt", "ole", "ogt", "oge"};
    return f[op];
  }
  static const char *const s[] = {"eq", "ne", "slt", "sle", "sgt", "sge"};
  static const char *const u[] = {"eq", "ne", "ult", "ule", "ugt", "uge"};
  return t->is_unsigned ? u[op] : s[op];
}

/* One comparison a <op> b -> bool. */
/* ---- enums (types of enums.c): as Numba types EnumMember and IntEnumMember. Two members of one class compare
 * (==, !=, is, is not) by value; `is` between values of different types is False; an IntEnum member is an
 * integer wherever a number is wanted (arithmetic, ordering, ==, indexing, conversions); an Enum member is not a
 * number (is_scalar is false for it), and == between it and anything but its own class is a typing error; .value
 * is the member's value. */

static FeVal compare2(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc);

/* A comparison with an enum member: *out the result when it is decided here (true); false to go on as a
 * comparison of numbers (*a and *b then IntEnum members turned into their integers). */
static bool enum_compare(Lower *L, PyCmpOp op, FeVal *a, FeVal *b, SrcLoc loc, FeVal *out) {
  const FeEnum *ea = a->kind == FV_VAL ? a->enumc : NULL, *eb = b->kind == FV_VAL ? b->enumc : NULL;
  bool same = ea && ea == eb;
  if (op == CMP_IS || op == CMP_ISNOT) {
    if (!same) {
      *out = cbool(L, op == CMP_ISNOT);
      return true;
    }
    op = op == CMP_IS ? CMP_EQ : CMP_NE;
  } else if (op == CMP_EQ || op == CMP_NE) {
    if (!same && (is_enum_only(a) || is_enum_only(b))) {
      *out = lerr(L, loc, "no implementation of '%s' for %s and %s", ast_cmpop_str(op), vname(L, a), vname(L, b));
      return true;
    }
  } else if (is_enum_only(a) || is_enum_only(b)) {
    return false; /* ordering an Enum member: want_scalars says what is wrong */
  }
  a->enumc = b->enumc = NULL;
  if (same && (op == CMP_EQ || op == CMP_NE)) {
    *out = compare2(L, op, *a, *b, loc);
    return true;
  }
  return false;
}

/* c ? x : y of booleans, folded when c is a constant. */
static FeVal bool_select(Lower *L, FeVal c, FeVal x, FeVal y) {
  if (c.is_const) return c.c.i ? x : y;
  return val(ty_bool(L->ctx), ib_select(&L->b, c.v, mat(L, &x), mat(L, &y)));
}

/* x and y of booleans (constants folded). */
static FeVal bool_and(Lower *L, FeVal x, FeVal y) {
  if (x.is_const) return x.c.i ? y : x;
  if (y.is_const) return y.c.i ? x : y;
  return val(ty_bool(L->ctx), ib_binary(&L->b, OP_ANDI, x.v, y.v));
}

/* x or y of booleans (constants folded). */
static FeVal bool_or(Lower *L, FeVal x, FeVal y) {
  if (x.is_const) return x.c.i ? x : y;
  if (y.is_const) return y.c.i ? y : x;
  return val(ty_bool(L->ctx), ib_binary(&L->b, OP_ORI, x.v, y.v));
}

/* x in t / x not in t of a tuple t, as Numba's in_seq for its homogeneous tuples (a UniTuple is a Sequence: some
 * element == x) and its empty tuple (False); a tuple of elements of several types has no `in` in Numba. */
static FeVal tuple_contains(Lower *L, PyCmpOp op, FeVal x, FeVal t, SrcLoc loc) {
  Type *tt = fv_type(L, &t);
  for (unsigned i = 1; tt && i < tt->n; i++)
    if (tt->elems[i] != tt->elems[0])
      return lerr(L, loc, "'%s' of %s: Numba has it for tuples of one element type only", ast_cmpop_str(op),
                  vname(L, &t));
  FeVal r = cbool(L, false);
  for (unsigned i = 0; i < t.tup.n; i++) {
    FeVal e = compare2(L, CMP_EQ, t.tup.elems[i], x, loc);
    if (e.kind == FV_POISON) return e;
    r = bool_or(L, r, e);
  }
  if (op == CMP_IN || r.is_const) return op == CMP_IN ? r : cbool(L, !r.c.i);
  at(L, loc);
  return val(ty_bool(L->ctx), ib_binary(&L->b, OP_XORI, r.v, ib_const_bool(&L->b, true)));
}

/* a OP b where a or b is a tuple, as Numba's tuple comparisons (cpython/tupleobj.py): both must be tuples; == is
 * the elements' == and-ed (False for tuples of different lengths), != its negation; an ordering is decided by the
 * first pair of elements that are != (their ordering), else by the lengths (Python's rule) -- a select chain over
 * the pairs, all compared (pure). Each pair goes through compare2 (Numba's promotions, nested tuples recursively),
 * so a pair Numba cannot compare is compare2's located error, as Numba types each pair of the shorter length. */
static FeVal compare_tuples(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc) {
  if (a.kind != FV_TUPLE || b.kind != FV_TUPLE)
    return lerr(L, loc, "no implementation of '%s' for %s and %s (Numba compares a tuple only with a tuple)",
                ast_cmpop_str(op), vname(L, &a), vname(L, &b));
  unsigned n = a.tup.n < b.tup.n ? a.tup.n : b.tup.n;
  if (op == CMP_EQ || op == CMP_NE) {
    FeVal r = cbool(L, true);
    for (unsigned i = 0; i < n; i++) {
      FeVal e = compare2(L, CMP_EQ, a.tup.elems[i], b.tup.elems[i], loc);
      if (e.kind == FV_POISON) return e;
      r = bool_and(L, r, e);
    }
    if (a.tup.n != b.tup.n) r = cbool(L, false);
    if (op == CMP_EQ || r.is_const) return op == CMP_EQ ? r : cbool(L, !r.c.i);
    at(L, loc);
    return val(ty_bool(L->ctx), ib_binary(&L->b, OP_XORI, r.v, ib_const_bool(&L->b, true)));
  }
  bool by_length;
  switch (op) {
  case CMP_LT: by_length = a.tup.n < b.tup.n; break;
  case CMP_LE: by_length = a.tup.n <= b.tup.n; break;
  case CMP_GT: by_length = a.tup.n > b.tup.n; break;
  default: by_length = a.tup.n >= b.tup.n; break;
  }
  FeVal *ordered = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1), *differ = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    ordered[i] = compare2(L, op, a.tup.elems[i], b.tup.elems[i], loc);
    if (ordered[i].kind == FV_POISON) return ordered[i];
    differ[i] = compare2(L, CMP_NE, a.tup.elems[i], b.tup.elems[i], loc);
    if (differ[i].kind == FV_POISON) return differ[i];
  }
  at(L, loc);
  FeVal r = cbool(L, by_length);
  for (unsigned i = n; i-- > 0;) r = bool_select(L, differ[i], ordered[i], r);
  return r;
}

static FeVal compare2(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc) {
  if (a.kind == FV_POISON || b.kind == FV_POISON) return poison();
  {
    FeVal r;
    if (run_time_string_compare(L, op, &a, &b, loc, &r)) return r;
    if (a.kind == FV_STR && b.kind == FV_STR && (op == CMP_EQ || op == CMP_NE)) /* constants: folded, as Numba's */
      return cbool(L, (a.str.len == b.str.len && memcmp(a.str.s, b.str.s, a.str.len) == 0) == (op == CMP_EQ));
  }
  if ((a.kind == FV_VAL && a.enumc) || (b.kind == FV_VAL && b.enumc)) {
    FeVal r;
    if (enum_compare(L, op, &a, &b, loc, &r)) return r;
  }
  if (op == CMP_IS || op == CMP_ISNOT) {
    /* None, functions and types are compile-time values: `is` compares them (a runtime value is none of them) */
    if (is_static(&a) || is_static(&b)) {
      bool same = fv_same(&a, &b);
      return cbool(L, op == CMP_IS ? same : !same);
    }
    if (a.kind == FV_RECORD || b.kind == FV_RECORD) { /* as Numba: values of two types are never the same; records
                                                           * are mutable, with no default `is` between two of one type */
      if (a.kind == FV_RECORD && b.kind == FV_RECORD && a.type == b.type)
        return lerr(L, loc, "no default '%s' implementation for records (%s and %s)", ast_cmpop_str(op),
                    vname(L, &a), vname(L, &b));
      return cbool(L, op == CMP_ISNOT);
    }
    return lerr(L, loc, "'%s' is only supported with None in kernels", ast_cmpop_str(op));
  }
  if (a.kind == FV_RECORD || b.kind == FV_RECORD) /* Numba types no comparison of records: compare their fields */
    return lerr(L, loc, "no implementation of '%s' for %s and %s (Numba does not compare records; compare their "
                        "fields)", ast_cmpop_str(op), vname(L, &a), vname(L, &b));
  if ((op == CMP_IN || op == CMP_NOTIN) && b.kind == FV_TUPLE) return tuple_contains(L, op, a, b, loc);
  if (op == CMP_IN || op == CMP_NOTIN)
    return lerr(L, loc, "'%s' is supported in kernels for tuples only", ast_cmpop_str(op));
  if (a.literal && b.literal) {
    FeVal r;
    if (sema_py_compare(L->ctx, op, &a, &b, &r)) return r;
  }
  char opname[8];
  snprintf(opname, sizeof opname, "'%s'", ast_cmpop_str(op));
  if (a.kind == FV_TUPLE || b.kind == FV_TUPLE) return compare_tuples(L, op, a, b, loc);
  if (!want_scalars(L, &a, &b, opname, loc)) return poison();
  int kinds[2] = {nb_kind(a.type), nb_kind(b.type)};
  const NbCase *c = sema_op_case(NBF_CMP, op, kinds, 2);
  if (!c) return lerr(L, loc, "unsupported operand types for %s: %s and %s", opname, tname(L, a.type), tname(L, b.type));
  Type *t = nb_type(L->ctx, c->args[0]);
  at(L, loc);
  FeVal x = conv(L, a, t), y = conv(L, b, t);
  if (x.is_const && y.is_const && t->kind != TY_FLOAT) {
    bool r;
    uint64_t ux = (uint64_t)x.c.i, uy = (uint64_t)y.c.i;
    bool lt = t->is_unsigned ? ux < uy : x.c.i < y.c.i;
    switch (op) {
    case CMP_EQ: r = x.c.i == y.c.i; break;
    case CMP_NE: r = x.c.i != y.c.i; break;
    case CMP_LT: r = lt; break;
    case CMP_LE: r = lt || x.c.i == y.c.i; break;
    case CMP_GT: r = !lt && x.c.i != y.c.i; break;
    default: r = !lt; break;
    }
    return cbool(L, r);
  }
  if (t->kind == TY_BOOL && op != CMP_EQ && op != CMP_NE) {
    t = ty_int(L->ctx, 8, true);
    x = conv(L, x, t);
    y = conv(L, y, t);
  }
  Value *xv = mat(L, &x), *yv = mat(L, &y);
  if (t->kind == TY_COMPLEX) {
    Type *b1 = ty_bool(L->ctx);
    Value *ops[2] = {xv, yv};
    return val(b1, op_result(ib_op(&L->b, op == CMP_EQ ? OP_COMPLEX_EQ : OP_COMPLEX_NE, 2, ops, 1, &b1, 0), 0));
  }
  Value *r = t->kind == TY_FLOAT ? ib_cmpf(&L->b, cmp_pred(op, t), xv, yv) : ib_cmpi(&L->b, cmp_pred(op, t), xv, yv);
  return val(ty_bool(L->ctx), r);
}

/* c && <lazy> where <lazy> is produced by fn into the current insertion point: pure -> andi, else scf.if. */
typedef FeVal (*LazyFn)(Lower *L, void *arg);

static FeVal lazy_and(Lower *L, FeVal c, LazyFn fn, void *arg, bool is_or, SrcLoc loc) {
  if (c.kind == FV_POISON) return c;
  if (c.is_const) {
    if (is_or ? c.c.i : !c.c.i) return c;
    return fn(L, arg);
  }
  IrBuilder saved;
  Block *blk = scratch_begin(L, &saved);
  FeVal r = fn(L, arg);
  Value *rv = r.kind == FV_VAL ? mat(L, &r) : NULL;
  L->b = saved;
  if (!rv) return r.kind == FV_POISON ? r : lerr(L, loc, "expected a condition");
  at(L, loc);
  if (block_pure(blk)) {
    splice_block(L, blk);
    return val(ty_bool(L->ctx), ib_binary(&L->b, is_or ? OP_ORI : OP_ANDI, c.v, rv));
  }
  Value *k = ib_const_bool(&L->b, is_or);
  Type *i1 = ty_bool(L->ctx);
  if (is_or) return val(i1, if_value(L, c.v, NULL, k, blk, rv, i1));
  return val(i1, if_value(L, c.v, blk, rv, NULL, k, i1));
}

typedef struct ChainArg {
  const PyExpr *e;
  unsigned k;     /* next comparison */
  FeVal left;     /* its left operand (already evaluated) */
} ChainArg;

static FeVal chain_rest(Lower *L, void *arg);

static FeVal chain_step(Lower *L, ChainArg *ca) {
  const PyExpr *e = ca->e;
  FeVal right = lower_expr(L, e->compare.comparators.items[ca->k]);
  FeVal r = compare2(L, e->compare.ops[ca->k], ca->left, right, e->compare.op_locs[ca->k]);
  r = truth(L, r, e->loc);
  if (ca->k + 1 < e->compare.comparators.n && r.kind != FV_POISON) {
    ChainArg next = {e, ca->k + 1, right};
    return lazy_and(L, r, chain_rest, &next, false, e->loc);
  }
  return r;
}

static FeVal chain_rest(Lower *L, void *arg) { return chain_step(L, arg); }

static FeVal lower_compare(Lower *L, const PyExpr *e) {
  FeVal left = lower_expr(L, e->compare.left);
  ChainArg ca = {e, 0, left};
  if (e->compare.comparators.n == 1) {
    FeVal right = lower_expr(L, e->compare.comparators.items[0]);
    return compare2(L, e->compare.ops[0], left, right, e->compare.op_locs[0]);
  }
  return chain_step(L, &ca);
}

static FeVal cond_of(Lower *L, void *arg) { return lower_cond(L, arg); }

static FeVal lower_cond(Lower *L, const PyExpr *e) {
  if (e->kind == EX_BOOLOP) {
    bool is_or = e->boolop.op == BOOL_OR;
    FeVal c = lower_cond(L, e->boolop.values.items[0]);
    for (unsigned i = 1; i < e->boolop.values.n && c.kind != FV_POISON; i++)
      c = lazy_and(L, c, cond_of, (void *)e->boolop.values.items[i], is_or, e->loc);
    return c;
  }
  if (e->kind == EX_UNARY && e->unary.op == UN_NOT) {
    FeVal c = lower_cond(L, e->unary.operand);
    if (c.kind == FV_POISON || c.is_const) return c.kind == FV_POISON ? c : cbool(L, !c.c.i);
    at(L, e->loc);
    return val(c.type, ib_binary(&L->b, OP_XORI, c.v, ib_const_bool(&L->b, true)));
  }
  FeVal v = lower_expr(L, e);
  at(L, e->loc);
  return truth(L, v, e->loc);
}

/* select_value of values of aggregate type u (Numba's unification of the two sides' types: tuples element by
 * element, arrays of one dtype and rank as layout A): each side's values converted to u's flat values in its own
 * block, then chosen one by one (a select where both blocks are pure and no array is among them, else one scf.if
 * yielding them all), and made into a value of u again. */
static FeVal select_flat(Lower *L, FeVal c, Block *bt, FeVal tv, Block *be, FeVal ev, Type *u, SrcLoc loc) {
  unsigned k = type_slots(u);
  if (k > MAX_FLAT) return lerr(L, loc, "a conditional value of more than %d scalars and arrays is not supported", MAX_FLAT);
  Type **ft = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
  Value **tvals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT), **evals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  unsigned nft = 0, nt = 0, ne = 0;
  flat_types(L->ctx, u, ft, &nft);
  IrBuilder saved = L->b;
  ib_set_end(&L->b, bt);
  bool ok = flatten_to(L, &tv, u, tvals, &nt, NULL, loc, "the conditional value");
  ib_set_end(&L->b, be);
  ok = ok && flatten_to(L, &ev, u, evals, &ne, NULL, loc, "the conditional value");
  L->b = saved;
  if (!ok) return poison();
  at(L, loc);
  Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  bool arrays = false;
  for (unsigned i = 0; i < k; i++) arrays |= ft[i]->kind == TY_ARRAY;
  if (c.is_const) {
    splice_block(L, c.c.i ? bt : be);
    memcpy(vals, c.c.i ? tvals : evals, sizeof *vals * k);
  } else if (!arrays && block_pure(bt) && block_pure(be)) {
    splice_block(L, bt);
    splice_block(L, be);
    for (unsigned i = 0; i < k; i++) vals[i] = ib_select(&L->b, c.v, tvals[i], evals[i]);
  } else {
    IrBuilder at_if = L->b;
    ib_set_end(&L->b, bt);
    ib_op(&L->b, OP_YIELD, k, tvals, 0, NULL, 0);
    ib_set_end(&L->b, be);
    ib_op(&L->b, OP_YIELD, k, evals, 0, NULL, 0);
    L->b = at_if;
    Op *op = ib_op(&L->b, OP_IF, 1, &c.v, k, ft, 2);
    ir_region_append_block(&op->regions[0], bt);
    ir_region_append_block(&op->regions[1], be);
    for (unsigned i = 0; i < k; i++) vals[i] = op_result(op, i);
  }
  unsigned pos = 0;
  return unflatten(L, u, vals, &pos);
}

/* x if c else y, and the values of `a and b` / `a or b` (Python gives back an operand, not a bool). */
static FeVal select_value(Lower *L, FeVal c, Block *bt, FeVal tv, Block *be, FeVal ev, SrcLoc loc) {
  if (tv.kind == FV_POISON || ev.kind == FV_POISON) return poison();
  if ((holds_view(&tv) || holds_view(&ev)) && !(fv_same(&tv, &ev) && block_pure(bt) && block_pure(be))) {
    /* rows a[i] of arrays of higher rank (also in tuples): as arrays, each made in its own branch */
    IrBuilder saved = L->b;
    ib_set_end(&L->b, bt);
    tv = views_as_arrays(L, &tv);
    ib_set_end(&L->b, be);
    ev = views_as_arrays(L, &ev);
    L->b = saved;
  }
  Type *ta = fv_type(L, &tv), *tb = fv_type(L, &ev);
  if (fv_same(&tv, &ev) && block_pure(bt) && block_pure(be)) return tv;
  if (is_enum_only(&tv) || is_enum_only(&ev)) { /* only with its own class: a select of the values */
    const FeEnum *en;
    if (!merge_enum(L, &tv, &ev, loc, "the conditional value", &en)) return poison();
  }
  if (tv.kind == FV_VECTOR && ta == tb && (c.is_const || (block_pure(bt) && block_pure(be)))) {
    /* two vectors of one type (Numba unifies them): a select per field */
    at(L, loc);
    if (c.is_const) {
      splice_block(L, c.c.i ? bt : be);
      return c.c.i ? tv : ev;
    }
    splice_block(L, bt);
    splice_block(L, be);
    FeVal *fields = ARENA_ARRAY(&L->fe->arena, FeVal, ta->n);
    for (unsigned i = 0; i < ta->n; i++)
      fields[i] = val(ta->elems[0], ib_select(&L->b, c.v, mat(L, &tv.tup.elems[i]), mat(L, &ev.tup.elems[i])));
    return make_vector(ta, fields);
  }
  if (tv.kind == FV_RECORD || ev.kind == FV_RECORD) { /* two records of one type: the one chosen, by reference */
    if (ta != tb) return lerr(L, loc, "cannot unify %s and %s", vname(L, &tv), vname(L, &ev));
    IrBuilder saved = L->b;
    ib_set_end(&L->b, bt);
    Value *tvv = record_as_array(L, &tv);
    ib_set_end(&L->b, be);
    Value *evv = record_as_array(L, &ev);
    L->b = saved;
    at(L, loc);
    if (c.is_const) {
      splice_block(L, c.c.i ? bt : be);
      return record_of_array(L, c.c.i ? tvv : evv);
    }
    return record_of_array(L, if_value(L, c.v, bt, tvv, be, evv, tvv->type));
  }
  if (!ta || !tb || ty_is_struct_tuple(ta) || ty_is_struct_tuple(tb)) {
    return lerr(L, loc, "a conditional value must be a scalar, an array or a tuple of them, not %s / %s",
                vname(L, &tv), vname(L, &ev));
  }
  Type *u = nb_unify(L->ctx, ta, tb);
  if (!u) return lerr(L, loc, "cannot unify %s and %s", tname(L, ta), tname(L, tb));
  if (u->kind == TY_TUPLE || (u->kind == TY_ARRAY && (ta != u || tb != u)))
    return select_flat(L, c, bt, tv, be, ev, u, loc);
  IrBuilder saved = L->b;
  ib_set_end(&L->b, bt);
  Value *tvv = u->kind == TY_ARRAY ? tv.v : conv_v(L, tv, u);
  ib_set_end(&L->b, be);
  Value *evv = u->kind == TY_ARRAY ? ev.v : conv_v(L, ev, u);
  L->b = saved;
  at(L, loc);
  FeVal r;
  if (c.is_const) {
    splice_block(L, c.c.i ? bt : be);
    r = val(u, c.c.i ? tvv : evv);
  } else if (u->kind != TY_ARRAY && block_pure(bt) && block_pure(be)) {
    splice_block(L, bt);
    splice_block(L, be);
    r = val(u, ib_select(&L->b, c.v, tvv, evv));
  } else {
    r = val(u, if_value(L, c.v, bt, tvv, be, evv, u));
  }
  r.nonneg = tv.nonneg && ev.nonneg && u->kind == TY_INT;
  if (!merge_enum(L, &tv, &ev, loc, "the conditional value", &r.enumc)) return poison();
  return r;
}

static FeVal lower_ifexp(Lower *L, const PyExpr *e) {
  FeVal c = lower_cond(L, e->ifexp.test);
  if (c.kind == FV_POISON) return c;
  if (c.is_const) {
    FeVal r = lower_expr(L, c.c.i ? e->ifexp.body : e->ifexp.orelse);
    r.literal = false;
    return r;
  }
  IrBuilder saved;
  Block *bt = scratch_begin(L, &saved);
  FeVal tv = lower_expr(L, e->ifexp.body);
  L->b = saved;
  Block *be = scratch_begin(L, &saved);
  FeVal ev = lower_expr(L, e->ifexp.orelse);
  L->b = saved;
  return select_value(L, c, bt, tv, be, ev, e->loc);
}

static FeVal lower_boolop(Lower *L, const PyExpr *e) {
  bool is_or = e->boolop.op == BOOL_OR;
  FeVal res = lower_expr(L, e->boolop.values.items[0]);
  for (unsigned i = 1; i < e->boolop.values.n; i++) {
    if (res.kind == FV_POISON) return res;
    FeVal t = truth(L, res, e->loc);
    if (t.kind == FV_POISON) return t;
    if (t.is_const) {
      if (is_or ? t.c.i : !t.c.i) return res;
      res = lower_expr(L, e->boolop.values.items[i]);
      continue;
    }
    IrBuilder saved;
    Block *bn = scratch_begin(L, &saved);
    FeVal next = lower_expr(L, e->boolop.values.items[i]);
    L->b = saved;
    if (res.kind == FV_VAL && next.kind == FV_VAL && res.type->kind == TY_BOOL && next.type->kind == TY_BOOL &&
        block_pure(bn)) {
      /* two bools: the value is the logic operation itself */
      splice_block(L, bn);
      at(L, e->loc);
      res = val(res.type, ib_binary(&L->b, is_or ? OP_ORI : OP_ANDI, t.v, mat(L, &next)));
      continue;
    }
    Block *bo = ir_block_new(L->m);
    /* and: truth(res) ? next : res;  or: truth(res) ? res : next */
    res = is_or ? select_value(L, t, bo, res, bn, next, e->loc) : select_value(L, t, bn, next, bo, res, e->loc);
  }
  return res;
}

/* ---- calls: arguments ---------------------------------------------------------------------------------------- */

/* Binds a call's arguments to parameter names (positional first, then keywords) and lowers them; a
 * missing optional parameter stays FV_UNDEF. `*t` of a tuple passes its elements. rest (a device function's
 * *args parameter): where positional arguments beyond nmax go, as a tuple; NULL: they are an error. The first
 * nposonly parameters are positional-only (before '/'): a keyword naming one is an error, as in Python. */
static bool bind_args_rest(Lower *L, const PyExpr *e, const char *fname, const char *const *names, unsigned nmin,
                           unsigned nmax, unsigned nposonly, FeVal *out, FeVal *rest) {
  const PyExprList *args = &e->call.args;
  for (unsigned i = 0; i < nmax; i++) out[i] = (FeVal){.kind = FV_UNDEF};
  FeVal *pos = ARENA_ARRAY(&L->fe->arena, FeVal, MAX_FLAT);
  SrcLoc *pos_loc = ARENA_ARRAY(&L->fe->arena, SrcLoc, MAX_FLAT);
  unsigned npos = 0;
  bool ok = true;
  for (unsigned i = 0; i < args->n; i++) {
    const PyExpr *a = args->items[i];
    FeVal v = lower_expr(L, a->kind == EX_STARRED ? a->value : a);
    if (v.kind == FV_POISON) {
      ok = false;
      continue;
    }
    unsigned n = a->kind == EX_STARRED ? v.tup.n : 1;
    if (a->kind == EX_STARRED && v.kind != FV_TUPLE) {
      lerr(L, a->loc, "*%s in a call: kernels unpack tuples only", vname(L, &v));
      return false;
    }
    if (npos + n > MAX_FLAT) {
      lerr(L, a->loc, "more than %d arguments in a call", MAX_FLAT);
      return false;
    }
    for (unsigned k = 0; k < n; k++) {
      pos_loc[npos] = a->loc;
      pos[npos] = a->kind == EX_STARRED ? v.tup.elems[k] : v;
      pos[npos++].literal = a->kind == EX_STARRED ? false : v.literal;
    }
  }
  if (!ok) return false;
  if (npos > nmax && !rest) {
    lerr(L, pos_loc[nmax], "%s() takes %s%u argument%s but %u were given", fname, nmin == nmax ? "" : "at most ",
         nmax, nmax == 1 ? "" : "s", npos);
    return false;
  }
  for (unsigned i = 0; i < npos && i < nmax; i++) out[i] = pos[i];
  if (rest) *rest = make_tuple(L, npos > nmax ? npos - nmax : 0, pos + nmax);
  for (unsigned k = 0; k < e->call.nkeywords; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    if (!kw->arg) {
      lerr(L, kw->loc, "**mapping in a call is not supported: kernels have no dicts (Numba: CALL_FUNCTION_EX with "
                       "**kwargs not supported)");
      return false;
    }
    unsigned i = 0;
    while (i < nmax && strcmp(names[i], kw->arg) != 0) i++;
    if (i == nmax) {
      lerr(L, kw->loc, "%s() got an unexpected keyword argument '%s'", fname, kw->arg);
      return false;
    }
    if (i < nposonly) {
      lerr(L, kw->loc, "%s() got some positional-only arguments passed as keyword arguments: '%s'", fname, kw->arg);
      return false;
    }
    if (out[i].kind != FV_UNDEF) {
      lerr(L, kw->loc, "%s() got multiple values for argument '%s'", fname, kw->arg);
      return false;
    }
    out[i] = lower_expr(L, kw->value);
    if (out[i].kind == FV_POISON) ok = false;
  }
  for (unsigned i = 0; i < nmin && ok; i++) {
    if (out[i].kind == FV_UNDEF) {
      lerr(L, e->loc, "%s() missing required argument '%s'", fname, names[i]);
      return false;
    }
  }
  return ok;
}

static bool bind_args(Lower *L, const PyExpr *e, const char *fname, const char *const *names, unsigned nmin,
                      unsigned nmax, FeVal *out) {
  return bind_args_rest(L, e, fname, names, nmin, nmax, 0, out, NULL);
}

static bool positional(Lower *L, const PyExpr *e, const char *fname, unsigned nmin, unsigned nmax, FeVal *out) {
  static const char *const names[] = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"};
  if (e->call.nkeywords) {
    lerr(L, e->call.keywords[0]->loc, "%s() takes no keyword arguments", fname);
    return false;
  }
  if (e->call.args.n < nmin) {
    lerr(L, e->loc, "%s() takes %s%u argument%s but %u were given", fname, nmin == nmax ? "" : "at least ", nmin,
         nmin == 1 ? "" : "s", e->call.args.n);
    return false;
  }
  return bind_args(L, e, fname, names, nmin, nmax, out);
}

static bool want_int(Lower *L, const FeVal *v, const char *what, SrcLoc loc) {
  if (v->kind == FV_VAL && v->type->kind == TY_INT) return true;
  lerr(L, loc, "%s must be an integer, not %s", what, vname(L, v));
  return false;
}

static SrcLoc arg_loc(const PyExpr *e, unsigned i) { return i < e->call.args.n ? e->call.args.items[i]->loc : e->loc; }

/* ---- calls: Numba-typed builtins (case lists) ---------------------------------------------------------------- */

static const NbCase *resolve_fn(Lower *L, int bi, const FeVal *args, unsigned n, const char *fname, SrcLoc loc) {
  int kinds[4];
  for (unsigned i = 0; i < n; i++) {
    if (!is_scalar(&args[i])) {
      lerr(L, loc, "%s() does not accept %s", fname, vname(L, &args[i]));
      return NULL;
    }
    kinds[i] = nb_kind(args[i].type);
  }
  unsigned ncases;
  bool unsafe_ok, fp16;
  const NbCase *cases = sema_fn_cases(bi, &ncases, &unsafe_ok, &fp16);
  static const NbCase f16 = {NB_F16, 1, {NB_F16}}, bf16 = {NB_BF16, 1, {NB_BF16}};
  if (fp16 && n == 1 && kinds[0] == NB_F16) return &f16;
  if (n == 1 && kinds[0] == NB_BF16 && sema_bf16_math(bi)) return &bf16;
  const NbCase *c = nb_resolve(cases, ncases, kinds, n, unsafe_ok);
  if (!c) {
    StrBuf b;
    sb_init(&b);
    for (unsigned i = 0; i < n; i++) {
      if (i) sb_puts(&b, ", ");
      nb_type_name(args[i].type, &b);
    }
    lerr(L, loc, "no implementation of %s() for argument types (%s)", fname, sb_cstr(&b));
    sb_free(&b);
  }
  return c;
}

static const char *math_name(Lower *L, int bi) {
  const char *n = sema_builtin_name(bi);
  return strncmp(n, "math.", 5) == 0 ? n : arena_printf(&L->fe->arena, "math.%s", n);
}

static FeVal lower_math(Lower *L, int bi, const PyExpr *e) {
  const char *fname = math_name(L, bi);
  unsigned n = bi == BI_MATH_POW || bi == BI_MATH_ATAN2 || bi == BI_MATH_HYPOT || bi == BI_MATH_COPYSIGN ||
                       bi == BI_MATH_FMOD || bi == BI_MATH_REMAINDER || bi == BI_MATH_NEXTAFTER
                   ? 2
                   : 1;
  FeVal a[2];
  if (!positional(L, e, fname, n, n, a)) return poison();
  const NbCase *c = resolve_fn(L, bi, a, n, fname, e->loc);
  if (!c) return poison();
  at(L, e->loc);
  Type *rt = nb_type(L->ctx, c->ret);
  Type *t0 = nb_type(L->ctx, c->args[0]);
  if (bi == BI_MATH_ISNAN || bi == BI_MATH_ISINF || bi == BI_MATH_ISFINITE) {
    if (t0->kind == TY_INT) return cbool(L, bi == BI_MATH_ISFINITE);
    Value *x = conv_v(L, a[0], t0);
    return val(rt, ib_unary(&L->b, (OpKind)sema_math_op(bi), x, rt));
  }
  Value *x = conv_v(L, conv(L, a[0], t0), rt);
  if (bi == BI_MATH_DEGREES || bi == BI_MATH_RADIANS) {
    double k = bi == BI_MATH_DEGREES ? 180.0 / M_PI : M_PI / 180.0;
    return val(rt, ib_binary(&L->b, OP_MULF, x, ib_const_float(&L->b, rt, k)));
  }
  if (n == 1) return val(rt, ib_unary(&L->b, (OpKind)sema_math_op(bi), x, NULL));
  Type *t1 = nb_type(L->ctx, c->args[1]);
  if (bi == BI_MATH_POW && t1->kind == TY_INT) {
    Value *ops[2] = {x, conv_v(L, a[1], t1)};
    return val(rt, op_result(ib_op(&L->b, OP_POWI, 2, ops, 1, &rt, 0), 0));
  }
  Value *y = conv_v(L, conv(L, a[1], t1), rt);
  return val(rt, ib_binary(&L->b, (OpKind)sema_math_op(bi), x, y));
}

/* ---- calls: math.frexp / ldexp / modf, cuda.fma / cbrt / selp (numba-cuda's cudamath.py and cudadecl.py) ---- */

/* math.modf(x) as (x - trunc(x) with x's sign, trunc(x)); an infinite x gives (+-0.0, x), NaN (NaN, NaN). */
static FeVal modf_of(Lower *L, Value *x, Type *t) {
  IrBuilder *b = &L->b;
  Value *ip = ib_unary(b, OP_TRUNC, x, NULL);
  Value *frac = ib_binary(b, OP_SUBF, x, ip);
  Value *zero = ib_const_float(b, t, 0.0);
  if (t->bits == 16) zero = ib_unary(b, OP_TRUNCF, ib_const_float(b, ty_f32(L->ctx), 0.0), t);
  frac = ib_select(b, ib_unary(b, OP_ISINF, x, ty_bool(L->ctx)), zero, frac);
  frac = ib_binary(b, OP_COPYSIGN, frac, x);
  FeVal parts[2] = {val(t, frac), val(t, ip)};
  return make_tuple(L, 2, parts);
}

static FeVal lower_numeric_fn(Lower *L, int bi, const PyExpr *e) {
  bool cuda = bi == BI_FMA || bi == BI_CBRT || bi == BI_SELP;
  const char *fname = cuda ? arena_printf(&L->fe->arena, "cuda.%s", sema_builtin_name(bi)) : math_name(L, bi);
  unsigned n = bi == BI_FMA || bi == BI_SELP ? 3 : bi == BI_MATH_LDEXP ? 2 : 1;
  FeVal a[3];
  if (!positional(L, e, fname, n, n, a)) return poison();
  if (bi == BI_SELP) {
    /* numba-cuda's Cuda_selp: the two values of one type among f64, f32, (u)int16, (u)int32, (u)int64 */
    if (!is_scalar(&a[1]) || !is_scalar(&a[2]) || a[1].type != a[2].type || a[1].type->kind == TY_BOOL ||
        (a[1].type->kind == TY_INT && a[1].type->bits < 16) || (a[1].type->kind == TY_FLOAT && a[1].type->bits < 32))
      return lerr(L, e->loc, "no implementation of cuda.selp() for %s and %s (two values of one type: float64, "
                  "float32 or a 16-, 32- or 64-bit integer)", vname(L, &a[1]), vname(L, &a[2]));
    at(L, e->loc);
    FeVal c = truth(L, a[0], arg_loc(e, 0));
    if (c.kind == FV_POISON) return c;
    Type *t = a[1].type;
    return val(t, ib_select(&L->b, mat(L, &c), mat(L, &a[1]), mat(L, &a[2])));
  }
  const NbCase *c = resolve_fn(L, bi, a, n, fname, e->loc);
  if (!c) return poison();
  at(L, e->loc);
  Type *t = nb_type(L->ctx, c->ret);
  Value *x = conv_v(L, a[0], t);
  switch (bi) {
  case BI_MATH_FREXP: {
    FeVal parts[2] = {val(t, ib_unary(&L->b, OP_FREXP_MANT, x, NULL)),
                      val(ty_i32(L->ctx), ib_unary(&L->b, OP_FREXP_EXP, x, ty_i32(L->ctx)))};
    return make_tuple(L, 2, parts);
  }
  case BI_MATH_MODF: return modf_of(L, x, t);
  case BI_MATH_LDEXP: {
    Value *ops[2] = {x, conv_v(L, a[1], ty_i32(L->ctx))};
    return val(t, op_result(ib_op(&L->b, OP_LDEXP, 2, ops, 1, &t, 0), 0));
  }
  case BI_CBRT: return val(t, ib_unary(&L->b, OP_CBRT, x, NULL));
  default: { /* BI_FMA */
    Value *ops[3] = {x, conv_v(L, a[1], t), conv_v(L, a[2], t)};
    return val(t, op_result(ib_op(&L->b, OP_FMA, 3, ops, 1, &t, 0), 0));
  }
  }
}

/* round(x, ndigits) of a float (numba-cuda's cudaimpl round_to_impl: CPython's fallback double_round, in
 * float64): x scaled by 10**ndigits (as two factors beyond 22 digits, x itself when that overflows), rounded half
 * to even, scaled back; infinities and NaN are themselves. Built from selects: every branch is computed. It can
 * differ from CPython's correctly rounded round() in the last digit (round(2.675, 2) is 2.68) and in the sign of
 * a zero (numba-cuda rounds through an int64). */
static FeVal round_ndigits(Lower *L, const FeVal *a, const PyExpr *e) {
  const NbCase *c = resolve_fn(L, BI_ROUND, a, 2, "round", e->loc);
  if (!c) return poison();
  at(L, e->loc);
  IrBuilder *b = &L->b;
  Type *f64 = ty_f64(L->ctx), *i64 = ty_i64(L->ctx), *i1 = ty_bool(L->ctx);
  Value *x = conv_v(L, a[0], f64), *n = conv_v(L, a[1], i64);
  Value *ten = ib_const_float(b, f64, 10.0), *one = ib_const_float(b, f64, 1.0), *k22 = ib_const_int(b, i64, 22);
  Value *nonneg = ib_cmpi(b, "sge", n, ib_const_int(b, i64, 0)), *big = ib_cmpi(b, "sgt", n, k22);
  Value *ops[2] = {ten, ib_select(b, big, ib_binary(b, OP_SUBI, n, k22), n)};
  Value *pow_pos = op_result(ib_op(b, OP_POWI, 2, ops, 1, &f64, 0), 0);
  ops[1] = ib_binary(b, OP_SUBI, ib_const_int(b, i64, 0), n);
  Value *pow_neg = op_result(ib_op(b, OP_POWI, 2, ops, 1, &f64, 0), 0);
  Value *pow1 = ib_select(b, nonneg, pow_pos, pow_neg);
  Value *pow2 = ib_select(b, big, ib_const_float(b, f64, 1e22), one);
  Value *y = ib_select(b, nonneg, ib_binary(b, OP_MULF, ib_binary(b, OP_MULF, x, pow1), pow2), ib_binary(b, OP_DIVF, x, pow1));
  /* numba-cuda rounds to an int64 (a zero loses its sign): + 0.0 does that to the float */
  Value *z = ib_binary(b, OP_ADDF, ib_unary(b, OP_ROUND, y, NULL), ib_const_float(b, f64, 0.0));
  z = ib_select(b, nonneg, ib_binary(b, OP_DIVF, ib_binary(b, OP_DIVF, z, pow2), pow1), ib_binary(b, OP_MULF, z, pow1));
  Value *keep = ib_binary(b, OP_ORI, ib_unary(b, OP_ISINF, x, i1), ib_unary(b, OP_ISNAN, x, i1));
  keep = ib_binary(b, OP_ORI, keep, ib_binary(b, OP_ANDI, nonneg, ib_unary(b, OP_ISINF, y, i1)));
  Type *rt = nb_type(L->ctx, c->ret);
  return conv(L, val(f64, ib_select(b, keep, x, z)), rt);
}

/* ---- calls: NumPy's ufuncs (numeric.c) ------------------------------------------------------------------------- */

/* An array argument of a ufunc call (an array or a view of one): its rank and element type. */
static bool ufunc_array(const FeVal *v, unsigned *rank, Type **elem) {
  if (is_array(v)) {
    *rank = v->type->rank;
    *elem = v->type->elem;
    return true;
  }
  if (v->kind == FV_VIEW) {
    *rank = v->type->rank;
    *elem = v->type->elem;
    return true;
  }
  return false;
}

static FeVal cmath_call(Lower *L, const char *name, FeVal z, const PyExpr *e);

/* A complex loop's call of a cmath.c function (NumCmath): at the ufunc call's expression. */
typedef struct UfuncCmath {
  Lower *L;
  const PyExpr *e;
} UfuncCmath;

static Value *ufunc_cmath_call(void *ctx, const char *name, Value *z) {
  UfuncCmath *c = ctx;
  FeVal r = cmath_call(c->L, name, val(z->type, z), c->e);
  return r.kind == FV_VAL ? mat(c->L, &r) : NULL;
}

/* One application of a ufunc's loop (num_ufunc_emit's; a complex loop may call kfront's cmath functions). */
static bool ufunc_emit(Lower *L, int u, const NumLoop *loop, Value *const *in, Value **out, const PyExpr *e) {
  UfuncCmath c = {L, e};
  NumCmath cm = {ufunc_cmath_call, &c};
  unsigned errors = diag_errors(L->fe->diag);
  if (num_ufunc_emit(&L->b, u, loop, in, out, &cm)) return true;
  if (diag_errors(L->fe->diag) == errors)
    lerr(L, e->loc, "internal error: numpy.%s has no implementation of its loop for these types", num_ufunc_name(u));
  return false;
}

/* A ufunc over arrays with its outputs given (np.add(a, b, out)): a loop nest over the first output's shape;
 * each input broadcast against it as NumPy broadcasts (axes aligned on the right; an axis of extent 1 repeats),
 * an extent that neither matches nor is 1 an IndexError (with bounds checks on); each result converted to its
 * output's type and stored. Returns the output (a tuple of them for divmod). */
static FeVal ufunc_loops(Lower *L, int u, const char *fname, const NumLoop *loop, FeVal *a, const PyExpr *e) {
  unsigned nin = loop->nin, nout = loop->nout, rank = 0, r = 0;
  Type *et = NULL;
  for (unsigned i = 0; i < nin + nout; i++)
    if (ufunc_array(&a[i], &r, &et) && r > rank) rank = r;
  for (unsigned i = nin; i < nin + nout; i++) {
    ufunc_array(&a[i], &r, &et);
    if (r != rank)
      return lerr(L, arg_loc(e, i), "%s(): the output has %u dimension%s, the broadcast inputs %u", fname, r,
                  r == 1 ? "" : "s", rank);
    if (!num_can_cast_same_kind(loop->out[i - nin], nb_kind(et)))
      return lerr(L, arg_loc(e, i), "%s(): the loop's %s result cannot be stored to an array of %s (casting "
                  "'same_kind')", fname, tname(L, nb_type(L->ctx, loop->out[i - nin])), tname(L, et));
  }
  if (rank > 8) return lerr(L, e->loc, "%s() over more than 8 dimensions is not supported", fname);
  at(L, e->loc);
  IrBuilder *b = &L->b;
  Type *i64 = ty_i64(L->ctx);
  /* scalar inputs are converted once, outside the loops */
  Value *scalar_in[2] = {NULL, NULL};
  for (unsigned i = 0; i < nin; i++)
    if (is_scalar(&a[i])) scalar_in[i] = conv_v(L, a[i], nb_type(L->ctx, loop->in[i]));
  /* the loop nest over the first output's extents */
  const FeVal *out0 = &a[nin];
  Value *out0_arr = out0->kind == FV_VIEW ? out0->tup.elems[0].v : out0->v;
  unsigned out0_fixed = out0->kind == FV_VIEW ? out0->tup.n - 1 : 0;
  Value *zero = ib_const_int(b, i64, 0), *one = ib_const_int(b, i64, 1), *ext[8], *iv[8];
  for (unsigned k = 0; k < rank; k++) ext[k] = ib_dim(b, out0_arr, out0_fixed + k);
  IrBuilder outer = *b;
  for (unsigned k = 0; k < rank; k++) {
    Value *ops[3] = {zero, ext[k], one};
    Op *f = ib_op(b, OP_FOR, 3, ops, 0, NULL, 1);
    Block *body = ir_block_new(L->m);
    ir_region_append_block(&f->regions[0], body);
    iv[k] = ir_block_add_arg(L->m, body, i64);
    ib_set_end(b, body);
    ib_set_before(b, ib_op(b, OP_YIELD, 0, NULL, 0, NULL, 0));
  }
  bool checks = L->fe->opts && L->fe->opts->bounds_check;
  Value *in[2], *res[2];
  for (unsigned i = 0; i < nin; i++) {
    if (scalar_in[i]) {
      in[i] = scalar_in[i];
      continue;
    }
    ufunc_array(&a[i], &r, &et);
    Value *arr = a[i].kind == FV_VIEW ? a[i].tup.elems[0].v : a[i].v;
    unsigned fixed = a[i].kind == FV_VIEW ? a[i].tup.n - 1 : 0;
    FeVal ix[8];
    for (unsigned j = 0; j < r; j++) {
      unsigned k = rank - r + j;
      Value *d = ib_dim(b, arr, fixed + j);
      Value *unit = ib_cmpi(b, "eq", d, one);
      if (checks) {
        /* an extent that is neither the output's nor 1 does not broadcast: d - 1 < the output's extent fails */
        Value *ops[2] = {ib_select(b, unit, zero, ib_binary(b, OP_SUBI, d, one)), ext[k]};
        Op *c = ib_op(b, OP_BOUNDS, 2, ops, 0, NULL, 0);
        ir_op_set_attr(L->m, c, "axis", attr_int(i64, fixed + j));
      }
      ix[j] = val(i64, ib_select(b, unit, zero, iv[k]));
      ix[j].nonneg = true;
    }
    Value *base, *idx[33];
    FeVal el = index_array(L, &a[i], ix, r, e->loc, false, &base, idx);
    if (el.kind != FV_VAL) return el;
    FeVal x = load_element(L, base, idx);
    in[i] = conv_v(L, x, nb_type(L->ctx, loop->in[i]));
  }
  if (!ufunc_emit(L, u, loop, in, res, e)) {
    *b = outer;
    return poison();
  }
  for (unsigned o = 0; o < nout; o++) {
    FeVal ix[8];
    for (unsigned k = 0; k < rank; k++) {
      ix[k] = val(i64, iv[k]);
      ix[k].nonneg = true;
    }
    Value *base, *idx[33];
    FeVal el = index_array(L, &a[nin + o], ix, rank, e->loc, true, &base, idx);
    if (el.kind != FV_VAL) return el;
    store_element(L, base, idx, conv_v(L, val(nb_type(L->ctx, loop->out[o]), res[o]), base->type->elem));
  }
  *b = outer;
  if (nout == 1) return a[nin];
  return make_tuple(L, nout, &a[nin]);
}

/* cuda.fp16.hadd(a, b), cuda.bf16.float2bfloat16_rz(x), ...: the arguments converted to the intrinsic's types
 * (numba-cuda's bindings are ConcreteTemplates of __half / __nv_bfloat16 and C's integer and float types). */
static FeVal lower_lowp(Lower *L, bool bf16, int k, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s.%s", bf16 ? "bf16" : "fp16", num_lowp_name(k));
  unsigned n = num_lowp_nargs(k);
  FeVal a[3];
  if (!positional(L, e, fname, n, n, a)) return poison();
  Type *h = bf16 ? ty_bf16(L->ctx) : ty_float(L->ctx, 16), *t = num_lowp_arg_type(L->ctx, k, h);
  for (unsigned i = 0; i < n; i++) {
    if (a[i].kind == FV_POISON) return a[i];
    if (!is_scalar(&a[i]) || a[i].type->kind == TY_BOOL)
      return lerr(L, arg_loc(e, i), "%s() needs %s arguments, not %s", fname, tname(L, t), vname(L, &a[i]));
  }
  at(L, e->loc);
  Value *in[3];
  for (unsigned i = 0; i < n; i++) in[i] = conv_v(L, a[i], t);
  Value *r = num_lowp_emit(&L->b, k, h, in);
  return val(r->type, r);
}

/* cuda.libdevice.NAME(args): numba-cuda's ConcreteTemplate of the function (the arguments that are no pointers,
 * converted to its types); the return value followed by what it stores through its pointers, a tuple when more
 * than one. Each result is a math.libdevice op (a call of __nv_NAME on the GPU). */
static FeVal lower_libdevice(Lower *L, int k, const PyExpr *e) {
  const LibdeviceFn *f = ir_libdevice_at(k);
  const char *fname = arena_printf(&L->fe->arena, "cuda.libdevice.%s", f->name);
  if (ir_libdevice_kind(f) == LD_UNSUPPORTED)
    return lerr(L, e->loc, "%s() is not supported: %s", fname, ir_libdevice_why(f));
  LdShape sh;
  ir_libdevice_shape(f, &sh);
  FeVal a[LD_MAX_ARGS];
  if (!positional(L, e, fname, sh.nargs, sh.nargs, a)) return poison();
  for (unsigned i = 0; i < sh.nargs; i++) {
    if (a[i].kind == FV_POISON) return a[i];
    if (!is_scalar(&a[i]) || ty_is_bf16(a[i].type))
      return lerr(L, arg_loc(e, i), "%s() needs %s arguments, not %s", fname, ir_libdevice_type_name(sh.args[i]),
                  vname(L, &a[i]));
  }
  at(L, e->loc);
  Value *in[LD_MAX_ARGS];
  for (unsigned i = 0; i < sh.nargs; i++) in[i] = conv_v(L, a[i], ir_libdevice_type(L->ctx, sh.args[i]));
  FeVal parts[LD_MAX_RESULTS];
  const char *cname = arena_printf(&L->fe->arena, "__nv_%s", f->name);
  for (unsigned p = 0; p < sh.nresults; p++) {
    Type *rt = ir_libdevice_type(L->ctx, sh.results[p]);
    Op *op = ib_op(&L->b, OP_LIBDEVICE, sh.nargs, in, 1, &rt, 0);
    ir_op_set_attr(L->m, op, "name", attr_str(L->m, cname));
    if (p) ir_op_set_attr(L->m, op, "part", attr_int(ty_i64(L->ctx), p));
    parts[p] = val(rt, op_result(op, 0));
  }
  return sh.nresults == 1 ? parts[0] : make_tuple(L, sh.nresults, parts);
}

static FeVal lower_ufunc(Lower *L, int u, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "numpy.%s", num_ufunc_name(u));
  unsigned nin = num_ufunc_nin(u), nout = num_ufunc_nout(u);
  if (!num_ufunc_supported(u)) return lerr(L, e->loc, "%s() is not supported in kernels", fname);
  FeVal a[4];
  if (!positional(L, e, fname, nin, nin + nout, a)) return poison();
  bool arrays = false, outs = a[nin].kind != FV_UNDEF;
  unsigned r = 0;
  Type *et = NULL;
  for (unsigned i = nin; i < nin + nout; i++) {
    if (outs && a[i].kind == FV_POISON) return a[i];
    if (outs && !ufunc_array(&a[i], &r, &et))
      return lerr(L, arg_loc(e, i), "%s(): the output must be an array (%u output%s), not %s", fname, nout,
                  nout == 1 ? "" : "s", a[i].kind == FV_UNDEF ? "missing" : vname(L, &a[i]));
  }
  int kinds[2];
  for (unsigned i = 0; i < nin; i++) {
    if (a[i].kind == FV_POISON) return a[i];
    if (ufunc_array(&a[i], &r, &et)) {
      arrays = true;
      kinds[i] = nb_kind(et);
    } else if (is_scalar(&a[i])) {
      kinds[i] = nb_kind(a[i].type);
    } else {
      return lerr(L, arg_loc(e, i), "%s() does not accept %s", fname, vname(L, &a[i]));
    }
  }
  if (arrays && !outs)
    return lerr(L, e->loc, "%s() of arrays needs its output array (%s(x, out)): kernels cannot allocate arrays", fname,
                fname);
  NumLoop loop;
  if (!num_ufunc_loop(u, kinds, nin, &loop)) {
    StrBuf b;
    sb_init(&b);
    for (unsigned i = 0; i < nin; i++) {
      if (i) sb_puts(&b, ", ");
      nb_type_name(a[i].type, &b);
    }
    FeVal r = lerr(L, e->loc, "no implementation of %s() for argument types (%s)", fname, sb_cstr(&b));
    sb_free(&b);
    return r;
  }
  if (outs) return ufunc_loops(L, u, fname, &loop, a, e);
  at(L, e->loc);
  Value *in[2], *out[2];
  for (unsigned i = 0; i < nin; i++) in[i] = conv_v(L, a[i], nb_type(L->ctx, loop.in[i]));
  if (!ufunc_emit(L, u, &loop, in, out, e)) return poison();
  if (nout == 1) return val(nb_type(L->ctx, loop.out[0]), out[0]);
  FeVal parts[2];
  for (unsigned i = 0; i < nout; i++) parts[i] = val(nb_type(L->ctx, loop.out[i]), out[i]);
  return make_tuple(L, nout, parts);
}

static FeVal minmax(Lower *L, bool is_max, const PyExpr *e) {
  FeVal args[16];
  const char *fname = is_max ? "max" : "min";
  unsigned n = e->call.args.n;
  if (n > 16) return lerr(L, e->loc, "%s() with more than 16 arguments is not supported", fname);
  if (!positional(L, e, fname, 1, n ? n : 1, args)) return poison();
  FeVal *items = args;
  if (n == 1) {
    if (args[0].kind != FV_TUPLE) return lerr(L, e->loc, "%s() of a single %s is not supported", fname, vname(L, &args[0]));
    items = args[0].tup.elems;
    n = args[0].tup.n;
    if (n == 0) return lerr(L, e->loc, "%s() argument is an empty tuple", fname);
  }
  Type *u = NULL;
  for (unsigned i = 0; i < n; i++) {
    if (!is_scalar(&items[i])) return lerr(L, e->loc, "%s() does not accept %s", fname, vname(L, &items[i]));
    u = u ? nb_unify(L->ctx, u, items[i].type) : items[i].type;
  }
  at(L, e->loc);
  FeVal r = conv(L, items[0], u);
  for (unsigned i = 1; i < n; i++) {
    FeVal x = conv(L, items[i], u);
    bool nonneg = is_max ? (r.nonneg || x.nonneg) : (r.nonneg && x.nonneg);
    if (r.is_const && x.is_const && u->kind == TY_INT) {
      bool lt = u->is_unsigned ? (uint64_t)x.c.i < (uint64_t)r.c.i : x.c.i < r.c.i;
      if (is_max ? (!lt && x.c.i != r.c.i) : lt) r = x;
      continue;
    }
    OpKind k;
    if (u->kind == TY_FLOAT) k = is_max ? OP_MAXF : OP_MINF;
    else if (u->kind == TY_BOOL) k = is_max ? OP_ORI : OP_ANDI;
    else if (u->is_unsigned) k = is_max ? OP_MAXUI : OP_MINUI;
    else k = is_max ? OP_MAXSI : OP_MINSI;
    r = val(u, ib_binary(&L->b, k, mat(L, &r), mat(L, &x)));
    r.nonneg = nonneg && u->kind == TY_INT;
  }
  return r;
}

/* ---- calls: CUDA vector types (vectors.c) ------------------------------------------------------------------------ */

/* cuda.float32x4(...): its fields from the arguments in order (a scalar converted to the base type, a vector's
 * fields as they are), by numba-cuda's overloads. */
static FeVal lower_vector_ctor(Lower *L, int k, const PyExpr *e) {
  Type *vt = vec_type(L->ctx, k);
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s", vec_name(k));
  FeVal a[4];
  if (e->call.args.n == 0 || e->call.args.n > vt->n) {
    return lerr(L, e->loc, "%s() takes %u field%s (scalars and vectors of %s), not %u arguments", fname, vt->n,
                vt->n == 1 ? "" : "s", tname(L, vt->elems[0]), e->call.args.n);
  }
  if (!positional(L, e, fname, 1, vt->n, a)) return poison();
  Type *types[4];
  for (unsigned i = 0; i < e->call.args.n; i++)
    types[i] = a[i].kind == FV_VECTOR || is_scalar(&a[i]) ? a[i].type : NULL;
  const char *why;
  if (!vec_ctor_accepts(vt, types, e->call.args.n, &why)) {
    StrBuf b;
    sb_init(&b);
    for (unsigned i = 0; i < e->call.args.n; i++) sb_printf(&b, "%s%s", i ? ", " : "", vname(L, &a[i]));
    FeVal r = lerr(L, e->loc, "no overload of %s() for (%s): %s", fname, sb_cstr(&b), why);
    sb_free(&b);
    return r;
  }
  at(L, e->loc);
  FeVal *fields = ARENA_ARRAY(&L->fe->arena, FeVal, 4);
  unsigned n = 0;
  for (unsigned i = 0; i < e->call.args.n; i++) {
    if (a[i].kind == FV_VECTOR) {
      for (unsigned j = 0; j < a[i].tup.n; j++) fields[n++] = a[i].tup.elems[j];
    } else {
      FeVal f = conv(L, a[i], vt->elems[0]);
      f.literal = false;
      f.enumc = NULL;
      fields[n++] = f;
    }
  }
  return make_vector(vt, fields);
}

/* ---- calls: cuda.* ------------------------------------------------------------------------------------------- */

static FeVal grid_values(Lower *L, bool size, const PyExpr *e) {
  const char *fname = size ? "cuda.gridsize" : "cuda.grid";
  FeVal a;
  if (!positional(L, e, fname, 1, 1, &a)) return poison();
  if (!is_const_int(&a) || a.c.i < 1 || a.c.i > 3)
    return lerr(L, arg_loc(e, 0), "%s() takes a constant 1, 2 or 3 (the number of dimensions)", fname);
  at(L, e->loc);
  FeVal out[3];
  Type *i64 = ty_i64(L->ctx);
  for (unsigned d = 0; d < (unsigned)a.c.i; d++) {
    Value *ntid = ib_cast(&L->b, ib_gpu_id(&L->b, OP_BLOCK_DIM, d), i64);
    Value *r;
    if (size) {
      Value *nctaid = ib_cast(&L->b, ib_gpu_id(&L->b, OP_GRID_DIM, d), i64);
      r = ib_binary(&L->b, OP_MULI, ntid, nctaid);
    } else {
      Value *tid = ib_cast(&L->b, ib_gpu_id(&L->b, OP_THREAD_ID, d), i64);
      Value *ctaid = ib_cast(&L->b, ib_gpu_id(&L->b, OP_BLOCK_ID, d), i64);
      r = ib_binary(&L->b, OP_ADDI, ib_binary(&L->b, OP_MULI, ntid, ctaid), tid);
    }
    out[d] = val(i64, r);
    out[d].nonneg = true;
  }
  if (a.c.i == 1) return out[0];
  return make_tuple(L, (unsigned)a.c.i, out);
}

static Op *memo_get(Lower *L, const PyExpr *key) {
  for (unsigned i = 0; i < L->nmemo; i++)
    if (L->memo[i].key == key) return L->memo[i].op;
  return NULL;
}

static void memo_put(Lower *L, const PyExpr *key, Op *op) {
  if (L->nmemo == L->memo_cap) {
    L->memo_cap = L->memo_cap ? 2 * L->memo_cap : 8;
    Memo *n = ARENA_ARRAY(&L->fe->arena, Memo, L->memo_cap);
    if (L->nmemo) memcpy(n, L->memo, sizeof *n * L->nmemo);
    L->memo = n;
  }
  L->memo[L->nmemo++] = (Memo){key, op};
}

static Type *dtype_of(Lower *L, const FeVal *d, SrcLoc loc) {
  if (d->kind == FV_NTYPE && ty_is_element(d->type)) return d->type;
  if (d->kind == FV_STR) {
    Type *t = nb_named_type(L->ctx, d->str.s, NULL);
    if (t) return t;
    if (d->str.len >= 7 && memcmp(d->str.s, "Record(", 7) == 0) { /* a record dtype, as the embedder spells it */
      const char *why;
      size_t pos = 0;
      t = fe_record_parse(L->ctx, d->str.s, d->str.len, &pos, &why);
      if (t && pos == d->str.len) return t;
      return lerr(L, loc, "invalid record dtype: %s", t ? "text after the record" : why), NULL;
    }
  }
  if (d->kind != FV_POISON) lerr(L, loc, "dtype must be a Numba or NumPy scalar type such as float32, not %s", vname(L, d));
  return NULL;
}

static FeVal lower_array_decl(Lower *L, int bi, const PyExpr *e) {
  bool shared = bi == BI_SHARED_ARRAY;
  const char *fname = shared ? "cuda.shared.array" : "cuda.local.array";
  static const char *const names[] = {"shape", "dtype", "alignment"};
  const char *hint = L->assign_hint;
  FeVal a[3];
  if (!bind_args(L, e, fname, names, 2, 3, a)) return poison();
  SrcLoc shape_loc = e->loc;
  for (unsigned k = 0; k < e->call.nkeywords; k++)
    if (e->call.keywords[k]->arg && strcmp(e->call.keywords[k]->arg, "shape") == 0) shape_loc = e->call.keywords[k]->value->loc;
  if (e->call.args.n > 0) shape_loc = e->call.args.items[0]->loc;
  SrcLoc dtype_loc = e->call.args.n > 1 ? e->call.args.items[1]->loc : e->loc;
  for (unsigned k = 0; k < e->call.nkeywords; k++)
    if (e->call.keywords[k]->arg && strcmp(e->call.keywords[k]->arg, "dtype") == 0) dtype_loc = e->call.keywords[k]->value->loc;
  Type *dt = dtype_of(L, &a[1], dtype_loc);
  if (!dt) return poison();
  if (a[2].kind != FV_UNDEF && a[2].kind != FV_NONE && !is_const_int(&a[2]))
    return lerr(L, e->loc, "alignment must be a constant integer");
  int64_t dims[8];
  unsigned rank = 0;
  if (is_const_int(&a[0]) && a[0].type->kind == TY_INT) {
    dims[rank++] = a[0].c.i;
  } else if (a[0].kind == FV_TUPLE && a[0].tup.n > 8) {
    return lerr(L, shape_loc, "%s supports at most 8 dimensions in kfront, not %u", fname, a[0].tup.n);
  } else if (a[0].kind == FV_TUPLE && a[0].tup.n >= 1) {
    for (unsigned i = 0; i < a[0].tup.n; i++) {
      if (!is_const_int(&a[0].tup.elems[i]) || a[0].tup.elems[i].type->kind != TY_INT)
        return lerr(L, shape_loc, "the shape of %s must be a constant integer or a tuple of constant integers", fname);
      dims[rank++] = a[0].tup.elems[i].c.i;
    }
  } else {
    return lerr(L, shape_loc, "the shape of %s must be a constant integer or a tuple of constant integers, not %s",
                fname, vname(L, &a[0]));
  }
  at(L, e->loc);
  if (shared && rank == 1 && dims[0] == 0 && a[0].kind == FV_VAL) {
    Type *t = ty_array(L->ctx, dt, 1, LAYOUT_C);
    if (ty_is_record(dt)) { /* records: the dynamic shared bytes seen as as many records as fit, as Numba does */
      Type *bt = ty_array(L->ctx, ty_int(L->ctx, 8, true), 1, LAYOUT_C);
      Value *bytes = op_result(ib_op(&L->b, OP_DYN_SHARED, 0, NULL, 1, &bt, 0), 0);
      Value *size = ib_const_int(&L->b, ty_i64(L->ctx), dt->size);
      Value *ops[3] = {bytes, ib_binary(&L->b, OP_DIVUI, ib_dim(&L->b, bytes, 0), size), size};
      return val(t, op_result(ib_op(&L->b, OP_REINTERPRET, 3, ops, 1, &t, 0), 0));
    }
    return val(t, op_result(ib_op(&L->b, OP_DYN_SHARED, 0, NULL, 1, &t, 0), 0));
  }
  int64_t total = 1;
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] <= 0)
      return lerr(L, shape_loc, "%s extents must be positive%s", fname, shared ? " (a shape of 0 means dynamic shared memory)" : "");
    if (__builtin_mul_overflow(total, dims[i], &total) || total > ((int64_t)1 << 40))
      return lerr(L, shape_loc, "%s is too large", fname);
  }
  Type *t = ty_array(L->ctx, dt, rank, LAYOUT_C);
  Attr shape_elems[8];
  for (unsigned i = 0; i < rank; i++) shape_elems[i] = attr_int(ty_i64(L->ctx), dims[i]);
  Attr shape = attr_array(L->m, rank, shape_elems);
  Op *memo = memo_get(L, e);
  if (!shared) {
    if (!memo) {
      /* hoisted to the function's entry: one array per call site, as Numba allocates it */
      memo = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &t, 0);
      ir_op_set_attr(L->m, memo, "shape", shape);
      ir_block_prepend(ir_func_entry(L->func_op), memo);
      memo_put(L, e, memo);
    }
    return val(t, op_result(memo, 0));
  }
  if (!memo) {
    const char *base = arena_printf(&L->fe->arena, "%s__%s", L->sym, hint ? hint : "shared");
    const char *sym = base;
    for (unsigned k = 1; ir_module_lookup(L->m, sym); k++) sym = arena_printf(&L->fe->arena, "%s_%u", base, k);
    memo = ir_op_create(L->m, OP_GLOBAL, L->b.loc, 0, NULL, 0, NULL, 0);
    ir_op_set_attr(L->m, memo, "sym_name", attr_sym(L->m, sym));
    ir_op_set_attr(L->m, memo, "type", attr_type(t));
    ir_op_set_attr(L->m, memo, "shape", shape);
    ir_op_set_attr(L->m, memo, "space", attr_str(L->m, "shared"));
    ir_op_insert_before(L->fe->cur_top, memo);
    ir_module_add_symbol(L->m, memo);
    memo_put(L, e, memo);
  }
  Op *ref = ib_op(&L->b, OP_GLOBAL_REF, 0, NULL, 1, &t, 0);
  ir_op_set_attr(L->m, ref, "name", attr_sym(L->m, ir_op_attr_str(memo, "sym_name")));
  return val(t, op_result(ref, 0));
}

/* cuda.const.array_like(ARR) of a module-level np.array of constants: a "const" mem.global with its values. */
static FeVal const_array_ref(Lower *L, const FeConstArr *ca, const char *hint) {
  Type *t = ca->type;
  bool records = ty_is_record(t->elem); /* its bytes in a u8 global (aligned 16), seen as the records */
  Type *gt = records ? ty_array(L->ctx, ty_int(L->ctx, 8, true), 1, LAYOUT_C) : t;
  const PyExpr *key = (const PyExpr *)(const void *)ca;
  Op *memo = memo_get(L, key);
  if (!memo) {
    const char *base = arena_printf(&L->fe->arena, "%s__%s", L->sym, hint ? hint : "const");
    const char *sym = base;
    for (unsigned k = 1; ir_module_lookup(L->m, sym); k++) sym = arena_printf(&L->fe->arena, "%s_%u", base, k);
    Attr dims[8];
    for (unsigned i = 0; i < t->rank; i++) dims[i] = attr_int(ty_i64(L->ctx), ca->dims[i]);
    if (records) dims[0] = attr_int(ty_i64(L->ctx), ca->n);
    memo = ir_op_create(L->m, OP_GLOBAL, L->b.loc, 0, NULL, 0, NULL, 0);
    ir_op_set_attr(L->m, memo, "sym_name", attr_sym(L->m, sym));
    ir_op_set_attr(L->m, memo, "type", attr_type(gt));
    ir_op_set_attr(L->m, memo, "shape", attr_array(L->m, gt->rank, dims));
    ir_op_set_attr(L->m, memo, "space", attr_str(L->m, "const"));
    ir_op_set_attr(L->m, memo, "value", attr_array(L->m, ca->n, ca->values));
    ir_op_insert_before(L->fe->cur_top, memo);
    ir_module_add_symbol(L->m, memo);
    memo_put(L, key, memo);
  }
  Op *ref = ib_op(&L->b, OP_GLOBAL_REF, 0, NULL, 1, &gt, 0);
  ir_op_set_attr(L->m, ref, "name", attr_sym(L->m, ir_op_attr_str(memo, "sym_name")));
  FeVal r = val(gt, op_result(ref, 0));
  if (records) { /* the records over the bytes: the shape, C-contiguous strides */
    Value *ops[1 + 16];
    ops[0] = r.v;
    int64_t stride = t->elem->size;
    for (unsigned d = t->rank; d-- > 0;) {
      ops[1 + d] = ib_const_int(&L->b, ty_i64(L->ctx), ca->dims[d]);
      ops[1 + t->rank + d] = ib_const_int(&L->b, ty_i64(L->ctx), stride);
      stride *= ca->dims[d];
    }
    r = val(t, op_result(ib_op(&L->b, OP_REINTERPRET, 1 + 2 * t->rank, ops, 1, &t, 0), 0));
  }
  r.is_const = true; /* a constant array (what cuda.const.array_like accepts) */
  return r;
}

static FeVal lower_const_array(Lower *L, const PyExpr *e) {
  FeVal a;
  if (!positional(L, e, "cuda.const.array_like", 1, 1, &a)) return poison();
  if (is_array(&a) && a.is_const) return a;
  return lerr(L, arg_loc(e, 0), "cuda.const.array_like() needs a module-level NumPy array of constants "
                                "(np.array([...])), not %s", vname(L, &a));
}

/* The record type whose field array (mem.field) arr is or views, or NULL. */
static Type *field_record(const Value *arr) {
  while (arr->def && (arr->def->kind == OP_SUBVIEW || arr->def->kind == OP_REINTERPRET))
    arr = op_operand(arr->def, 0);
  return arr->def && arr->def->kind == OP_FIELD ? op_operand(arr->def, 0)->type->elem : NULL;
}

/* The alignment arr's elements are known to have (the backend's: natural, unless they are fields of packed records,
 * ty_field_align), in bytes. */
static unsigned elem_align(const Value *arr) {
  unsigned natural = ty_align(arr->type->elem);
  while (arr->def && (arr->def->kind == OP_SUBVIEW || arr->def->kind == OP_REINTERPRET))
    arr = op_operand(arr->def, 0);
  if (!arr->def || arr->def->kind != OP_FIELD) return natural;
  const Value *recs = op_operand(arr->def, 0);
  const char *name = ir_op_attr_str(arr->def, "name");
  int k = name ? ty_record_field(recs->type->elem, name, strlen(name)) : -1;
  if (k < 0) return natural;
  unsigned a = ty_field_align(recs->type->elem, (unsigned)k, elem_align(recs));
  return a < natural ? a : natural;
}

static const char *atomic_kind(int bi) {
  switch (bi) {
  case BI_ATOMIC_ADD: return "add";
  case BI_ATOMIC_SUB: return "sub";
  case BI_ATOMIC_AND: return "and";
  case BI_ATOMIC_OR: return "or";
  case BI_ATOMIC_XOR: return "xor";
  case BI_ATOMIC_MAX: return "max";
  case BI_ATOMIC_MIN: return "min";
  case BI_ATOMIC_EXCH: return "exch";
  case BI_ATOMIC_INC: return "inc";
  case BI_ATOMIC_DEC: return "dec";
  case BI_ATOMIC_NANMAX: return "nanmax";
  case BI_ATOMIC_NANMIN: return "nanmin";
  default: return NULL;
  }
}

static FeVal lower_atomic(Lower *L, int bi, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s", sema_builtin_name(bi));
  bool cas = bi == BI_ATOMIC_CAS, cas_short = bi == BI_ATOMIC_COMPARE_AND_SWAP;
  unsigned n = cas ? 4 : 3;
  FeVal a[4];
  if (!positional(L, e, fname, n, n, a)) return poison();
  if (!is_array(&a[0]) && a[0].kind != FV_VIEW) return lerr(L, arg_loc(e, 0), "%s() needs an array, not %s", fname, vname(L, &a[0]));
  Type *arrt = a[0].type, *dt = arrt->elem;
  int k = nb_kind(dt);
  bool ints = k == NB_I32 || k == NB_U32 || k == NB_I64 || k == NB_U64;
  bool ok = ints;
  if (bi == BI_ATOMIC_ADD || bi == BI_ATOMIC_SUB || bi == BI_ATOMIC_MAX || bi == BI_ATOMIC_MIN || bi == BI_ATOMIC_NANMAX ||
      bi == BI_ATOMIC_NANMIN)
    ok = ints || k == NB_F32 || k == NB_F64;
  if (bi == BI_ATOMIC_INC || bi == BI_ATOMIC_DEC) ok = k == NB_U32 || k == NB_U64;
  if (!ok && dt->kind == TY_FLOAT && dt->bits == 16) /* numba-cuda's atomics take neither: say so */
    return lerr(L, arg_loc(e, 0), "%s() does not support arrays of %s: numba-cuda's cuda.atomic functions take "
                "int32, uint32, int64, uint64%s arrays only", fname, tname(L, dt), ints || bi == BI_ATOMIC_INC ||
                bi == BI_ATOMIC_DEC || bi == BI_ATOMIC_AND || bi == BI_ATOMIC_OR || bi == BI_ATOMIC_XOR ||
                bi == BI_ATOMIC_EXCH || cas || cas_short ? "" : ", float32, float64");
  if (!ok) return lerr(L, arg_loc(e, 0), "%s() does not support arrays of %s", fname, tname(L, dt));
  FeVal ix[32];
  unsigned nix = 0;
  if (cas_short) {
    if (arrt->rank != 1 || a[0].kind == FV_VIEW) return lerr(L, arg_loc(e, 0), "%s() needs a 1-d array", fname);
    ix[nix++] = cint(ty_i64(L->ctx), 0);
  } else if (a[1].kind == FV_TUPLE) {
    for (unsigned i = 0; i < a[1].tup.n && nix < 32; i++) ix[nix++] = a[1].tup.elems[i];
  } else {
    ix[nix++] = a[1];
  }
  for (unsigned i = 0; i < nix; i++)
    if (!want_int(L, &ix[i], "an atomic index", arg_loc(e, 1))) return poison();
  if (nix != arrt->rank)
    return lerr(L, arg_loc(e, 1), "the index of a %u-d array in %s() must have %u integer%s, got %u", arrt->rank, fname,
                arrt->rank, arrt->rank == 1 ? "" : "s", nix);
  unsigned vi = cas_short ? 1 : 2;
  for (unsigned i = vi; i < n; i++)
    if (!is_scalar(&a[i])) return lerr(L, arg_loc(e, i), "%s() needs a scalar value, not %s", fname, vname(L, &a[i]));
  Value *base, *idx[32];
  FeVal r = index_array(L, &a[0], ix, nix, e->loc, true, &base, idx);
  if (r.kind != FV_VAL) return r;
  if (elem_align(base) < ty_align(dt)) /* an atomic on a misaligned address faults on the GPU */
    return lerr(L, e->loc, "%s() on a field of packed records whose elements may be misaligned (%s in records of "
                           "%s): kfront needs each element at a multiple of its size", fname, tname(L, dt),
                tname(L, field_record(base)));
  at(L, e->loc);
  unsigned rank = base->type->rank;
  Value *ops[36];
  ops[0] = base;
  for (unsigned i = 0; i < rank; i++) ops[1 + i] = idx[i];
  unsigned no = 1 + rank;
  for (unsigned i = vi; i < n; i++) ops[no++] = conv_v(L, a[i], dt);
  if (cas || cas_short) return val(dt, op_result(ib_op(&L->b, OP_ATOMIC_CAS, no, ops, 1, &dt, 0), 0));
  Op *op = ib_op(&L->b, OP_ATOMIC_RMW, no, ops, 1, &dt, 0);
  ir_op_set_attr(L->m, op, "kind", attr_str(L->m, atomic_kind(bi)));
  return val(dt, op_result(op, 0));
}

static FeVal lower_warp(Lower *L, int bi, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s", sema_builtin_name(bi));
  Type *u32 = ty_u32(L->ctx), *i32 = ty_i32(L->ctx), *i1 = ty_bool(L->ctx);
  FeVal a[3];
  switch (bi) {
  case BI_SHFL_SYNC:
  case BI_SHFL_UP_SYNC:
  case BI_SHFL_DOWN_SYNC:
  case BI_SHFL_XOR_SYNC: {
    if (!positional(L, e, fname, 3, 3, a)) return poison();
    if (!want_int(L, &a[0], "the mask", arg_loc(e, 0)) || !want_int(L, &a[2], "the lane", arg_loc(e, 2))) return poison();
    int k = a[1].kind == FV_VAL ? nb_kind(a[1].type) : -1;
    if (k != NB_I32 && k != NB_I64 && k != NB_F32 && k != NB_F64)
      return lerr(L, arg_loc(e, 1), "%s() only supports 32- and 64-bit ints and floats, not %s", fname, vname(L, &a[1]));
    at(L, e->loc);
    Value *ops[4] = {conv_v(L, a[0], u32), mat(L, &a[1]), conv_v(L, a[2], i32), ib_const_int(&L->b, i32, 32)};
    Type *t = a[1].type;
    Op *op = ib_op(&L->b, OP_SHFL, 4, ops, 1, &t, 0);
    const char *mode = bi == BI_SHFL_SYNC ? "idx" : bi == BI_SHFL_UP_SYNC ? "up" : bi == BI_SHFL_DOWN_SYNC ? "down" : "xor";
    ir_op_set_attr(L->m, op, "mode", attr_str(L->m, mode));
    return val(t, op_result(op, 0));
  }
  case BI_ALL_SYNC:
  case BI_ANY_SYNC:
  case BI_EQ_SYNC:
  case BI_BALLOT_SYNC: {
    if (!positional(L, e, fname, 2, 2, a)) return poison();
    if (!want_int(L, &a[0], "the mask", arg_loc(e, 0))) return poison();
    FeVal p = truth(L, a[1], arg_loc(e, 1));
    if (p.kind == FV_POISON) return p;
    at(L, e->loc);
    Value *ops[2] = {conv_v(L, a[0], u32), mat(L, &p)};
    Type *t = bi == BI_BALLOT_SYNC ? i32 : i1;
    Op *op = ib_op(&L->b, OP_VOTE, 2, ops, 1, &t, 0);
    const char *mode = bi == BI_ALL_SYNC ? "all" : bi == BI_ANY_SYNC ? "any" : bi == BI_EQ_SYNC ? "uni" : "ballot";
    ir_op_set_attr(L->m, op, "mode", attr_str(L->m, mode));
    return val(t, op_result(op, 0));
  }
  case BI_ACTIVEMASK:
    if (!positional(L, e, fname, 0, 0, a)) return poison();
    at(L, e->loc);
    return val(u32, op_result(ib_op(&L->b, OP_ACTIVEMASK, 0, NULL, 1, &u32, 0), 0));
  case BI_SYNCWARP: {
    if (!positional(L, e, fname, 0, 1, a)) return poison();
    at(L, e->loc);
    Value *m;
    if (a[0].kind == FV_UNDEF) m = ib_const_int(&L->b, u32, (int64_t)0xffffffffu);
    else if (!want_int(L, &a[0], "the mask", arg_loc(e, 0))) return poison();
    else m = conv_v(L, a[0], u32);
    ib_op(&L->b, OP_SYNCWARP, 1, &m, 0, NULL, 0);
    return (FeVal){.kind = FV_NONE};
  }
  default: return poison();
  }
}

static FeVal lower_sync(Lower *L, int bi, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s", sema_builtin_name(bi));
  FeVal a;
  if (bi == BI_SYNCTHREADS || bi == BI_THREADFENCE || bi == BI_THREADFENCE_BLOCK || bi == BI_THREADFENCE_SYSTEM) {
    if (!positional(L, e, fname, 0, 0, &a)) return poison();
    at(L, e->loc);
    if (bi == BI_SYNCTHREADS) {
      ib_op(&L->b, OP_BARRIER, 0, NULL, 0, NULL, 0);
    } else {
      Op *op = ib_op(&L->b, OP_FENCE, 0, NULL, 0, NULL, 0);
      const char *scope = bi == BI_THREADFENCE ? "device" : bi == BI_THREADFENCE_BLOCK ? "block" : "system";
      ir_op_set_attr(L->m, op, "scope", attr_str(L->m, scope));
    }
    return (FeVal){.kind = FV_NONE};
  }
  if (!positional(L, e, fname, 1, 1, &a)) return poison();
  if (a.kind != FV_VAL || a.type->kind != TY_INT)
    return lerr(L, arg_loc(e, 0), "%s() takes an integer predicate, not %s", fname, vname(L, &a));
  at(L, e->loc);
  FeVal p = truth(L, a, e->loc);
  Type *i32 = ty_i32(L->ctx);
  Value *pv = mat(L, &p);
  Op *op = ib_op(&L->b, OP_BARRIER_RED, 1, &pv, 1, &i32, 0);
  const char *kind = bi == BI_SYNCTHREADS_COUNT ? "count" : bi == BI_SYNCTHREADS_AND ? "and" : "or";
  ir_op_set_attr(L->m, op, "kind", attr_str(L->m, kind));
  return val(i32, op_result(op, 0));
}

/* The function being lowered needs a cooperative launch (numba-cuda: this_grid() or a grid sync in it, or a call
 * of such a function); the runtime reads the kernel's attribute (runtime/plan.c). */
static void mark_cooperative(Lower *L) {
  if (L->func_op && !ir_op_attr(L->func_op, "cooperative")) ir_op_set_attr(L->m, L->func_op, "cooperative", attr_unit());
}

/* cuda.cg.this_grid() (a compile-time object: the grid group has no run-time data) and its sync(). */
static FeVal lower_cg(Lower *L, int bi, const PyExpr *e) {
  FeVal a;
  if (!positional(L, e, bi == BI_CG_THIS_GRID ? "cuda.cg.this_grid" : "GridGroup.sync", 0, 0, &a)) return poison();
  at(L, e->loc);
  mark_cooperative(L);
  if (bi == BI_CG_THIS_GRID) return (FeVal){.kind = FV_BUILTIN, .builtin = BI_GRID_GROUP};
  ib_op(&L->b, OP_GRID_SYNC, 0, NULL, 0, NULL, 0);
  return cint(ty_i32(L->ctx), 0); /* numba-cuda's sync() returns cudaCGSynchronize's status: 0 */
}

static FeVal lower_bits(Lower *L, int bi, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s", sema_builtin_name(bi));
  FeVal a;
  if (!positional(L, e, fname, 1, 1, &a)) return poison();
  const NbCase *c = resolve_fn(L, bi, &a, 1, fname, e->loc);
  if (!c) return poison();
  at(L, e->loc);
  Type *ta = nb_type(L->ctx, c->args[0]), *rt = nb_type(L->ctx, c->ret);
  OpKind k = bi == BI_POPC ? OP_POPC : bi == BI_CLZ ? OP_CLZ : bi == BI_FFS ? OP_FFS : OP_BREV;
  Value *r = ib_unary(&L->b, k, conv_v(L, a, ta), NULL);
  return conv(L, val(ta, r), rt);
}

/* ---- calls: Python builtins ---------------------------------------------------------------------------------- */

/* ---- print ------------------------------------------------------------------------------------------------------ */

/* One item of print(): its format text (numba-cuda's printimpl: %lld for signed integers, %llu for unsigned, %f
 * for floats, True/False for booleans, strings as they are, tuples "(a, b)" and "(a,)", cuda.threadIdx and its kin
 * "(x, y, z)") into fmt, its values into ops. False after a located error (complex numbers among them: numba-cuda
 * has no print of them). */
static bool print_item(Lower *L, const FeVal *v, SrcLoc loc, StrBuf *fmt, Value **ops, unsigned *n, unsigned depth) {
  Type *i64 = ty_i64(L->ctx);
  if (*n >= MAX_FLAT || depth > FE_MAX_NESTING) {
    lerr(L, loc, "print() of more than %d values is not supported", MAX_FLAT);
    return false;
  }
  if (is_complex(v)) { /* numba-cuda's print_item has no complex implementation: its lowering fails */
    lerr(L, loc, "printing a %s is not supported in kernels (numba-cuda: \"printing unimplemented for values of type "
                 "%s\"; print its .real and .imag)", tname(L, v->type), tname(L, v->type));
    return false;
  }
  if (is_scalar(v)) {
    Type *t = v->type;
    if (t->kind == TY_BOOL) {
      sb_puts(fmt, "%s");
      ops[(*n)++] = mat(L, v);
    } else if (t->kind == TY_FLOAT) {
      sb_puts(fmt, "%f");
      ops[(*n)++] = conv_v(L, *v, ty_f64(L->ctx));
    } else {
      sb_puts(fmt, t->is_unsigned ? "%llu" : "%lld");
      ops[(*n)++] = conv_v(L, *v, t->is_unsigned ? ty_int(L->ctx, 64, true) : i64);
    }
    return true;
  }
  if (v->kind == FV_STR) {
    for (size_t i = 0; i < v->str.len; i++) {
      if (v->str.s[i] == '%') sb_putc(fmt, '%');
      sb_putc(fmt, v->str.s[i]);
    }
    return true;
  }
  if (v->kind == FV_TUPLE) {
    sb_putc(fmt, '(');
    for (unsigned i = 0; i < v->tup.n; i++) {
      if (i) sb_puts(fmt, ", ");
      if (!print_item(L, &v->tup.elems[i], loc, fmt, ops, n, depth + 1)) return false;
    }
    sb_puts(fmt, v->tup.n == 1 ? ",)" : ")");
    return true;
  }
  if (v->kind == FV_BUILTIN && v->builtin >= BI_THREADIDX && v->builtin <= BI_GRIDDIM) {
    static const OpKind ids[] = {OP_THREAD_ID, OP_BLOCK_ID, OP_BLOCK_DIM, OP_GRID_DIM};
    sb_puts(fmt, "(%lld, %lld, %lld)");
    for (unsigned d = 0; d < 3; d++) ops[(*n)++] = ib_cast(&L->b, ib_gpu_id(&L->b, ids[v->builtin - BI_THREADIDX], d), i64);
    return true;
  }
  if (v->kind == FV_POISON) return false;
  lerr(L, loc, "printing %s is not supported in kernels (print() takes numbers, booleans, strings, tuples of them and "
               "cuda.threadIdx and its kin, as Numba's CUDA target does)", vname(L, v));
  return false;
}

/* print(*items): one gpu.print of the items' formats joined by spaces and a newline (vprintf on the GPU). More
 * than 32 items, as in Numba: the format itself is printed, with a warning. */
static FeVal lower_print(Lower *L, const PyExpr *e) {
  if (e->call.nkeywords)
    return lerr(L, e->call.keywords[0]->loc, "print() keyword arguments are not supported in kernels");
  unsigned nargs = e->call.args.n;
  StrBuf fmt;
  sb_init(&fmt);
  Value **ops = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT + 3);
  unsigned n = 0;
  bool ok = true;
  for (unsigned i = 0; i < nargs && ok; i++) {
    const PyExpr *a = e->call.args.items[i];
    if (a->kind == EX_STARRED) {
      lerr(L, a->loc, "*args in calls are not supported in kernels");
      ok = false;
      break;
    }
    FeVal v = lower_expr(L, a);
    at(L, e->loc);
    if (i) sb_putc(&fmt, ' ');
    ok = print_item(L, &v, a->loc, &fmt, ops, &n, 0);
  }
  sb_putc(&fmt, '\n');
  if (!ok || sb_failed(&fmt)) {
    sb_free(&fmt);
    return ok ? lerr(L, e->loc, "out of memory") : poison();
  }
  const char *text = arena_strdup(&L->fe->arena, sb_cstr(&fmt));
  sb_free(&fmt);
  if (nargs > 32) {
    /* the format printed as it is (%% for each %), as CUDA C's printf cannot take more than 32 values */
    StrBuf raw;
    sb_init(&raw);
    for (const char *p = text; *p; p++) {
      if (*p == '%') sb_putc(&raw, '%');
      sb_putc(&raw, *p);
    }
    text = arena_strdup(&L->fe->arena, sb_cstr(&raw));
    sb_free(&raw);
    n = 0;
    if (L->nraw_prints == L->raw_prints_cap) {
      L->raw_prints_cap = L->raw_prints_cap ? 2 * L->raw_prints_cap : 4;
      const PyExpr **r = ARENA_ARRAY(&L->fe->arena, const PyExpr *, L->raw_prints_cap);
      if (L->nraw_prints) memcpy(r, L->raw_prints, sizeof *r * L->nraw_prints);
      L->raw_prints = r;
    }
    L->raw_prints[L->nraw_prints++] = e;
  }
  at(L, e->loc);
  Op *p = ib_op(&L->b, OP_PRINT, n, ops, 0, NULL, 0);
  ir_op_set_attr(L->m, p, "format", attr_str(L->m, text));
  return (FeVal){.kind = FV_NONE};
}

/* The warnings of print() calls of more than 32 items (each once: a loop body is lowered more than once). */
static void report_raw_prints(Lower *L) {
  for (unsigned i = 0; i < L->nraw_prints; i++) {
    bool seen = false;
    for (unsigned j = 0; j < i && !seen; j++) seen = L->raw_prints[j] == L->raw_prints[i];
    if (!seen)
      diag_warning(L->fe->diag, user_loc(L, L->raw_prints[i]->loc), "CUDA print() cannot print more than 32 items. The "
                   "raw format string will be emitted by the kernel instead.");
  }
}

/* ---- calls: cmath (numba-cuda's cmathdecl.py and cmathimpl.py) ----------------------------------------------
 * acos, asin, asinh, atan, atanh, cos, exp, sin, sqrt, tan, log (one or two arguments), isnan, isinf, isfinite are
 * typed on complex64 / complex128 (a real argument converts); acosh, cosh, sinh, tanh, log10, phase and polar are
 * numba-cuda overloads that take a complex argument only, rect two floats. The predicates, phase and polar are
 * built here; the rest are the Python of cmath.c, compiled as device functions, their result converted to the
 * argument's type as numba-cuda returns it. */
static FeVal instantiate_and_call(Lower *L, FeFunc *f, const PyExpr *e, FeVal *args, unsigned np);

static FeVal lower_cmath(Lower *L, int bi, const PyExpr *e) {
  const char *fname = sema_builtin_name(bi), *name = fname + strlen("cmath.");
  FeVal a[3];
  if (bi == BI_CMATH_RECT) {
    if (!positional(L, e, fname, 2, 2, a)) return poison();
    for (unsigned i = 0; i < 2; i++)
      if (!is_scalar(&a[i]) || a[i].type->kind != TY_FLOAT)
        return lerr(L, arg_loc(e, i), "%s() takes two floats, not %s", fname, vname(L, &a[i]));
    at(L, e->loc);
    return instantiate_and_call(L, fe_cmath_function(L->fe, "rect"), e, a, 2);
  }
  bool overload = bi == BI_CMATH_ACOSH || bi == BI_CMATH_COSH || bi == BI_CMATH_SINH || bi == BI_CMATH_TANH ||
                  bi == BI_CMATH_LOG10 || bi == BI_CMATH_PHASE || bi == BI_CMATH_POLAR;
  if (!positional(L, e, fname, 1, bi == BI_CMATH_LOG ? 2 : 1, a)) return poison();
  unsigned n = bi == BI_CMATH_LOG && a[1].kind != FV_UNDEF ? 2 : 1;
  for (unsigned i = 0; i < n; i++)
    if (!is_scalar(&a[i]) || (overload && !is_complex(&a[i])))
      return lerr(L, arg_loc(e, i), "%s() takes %s, not %s", fname, overload ? "a complex number" : "a number",
                  vname(L, &a[i]));
  Type *t = a[0].type;
  if (!overload) {
    static const NbCase cases1[] = {{NB_C64, 1, {NB_C64}}, {NB_C128, 1, {NB_C128}}};
    static const NbCase cases2[] = {{NB_C64, 2, {NB_C64, NB_C64}}, {NB_C128, 2, {NB_C128, NB_C128}}};
    int kinds[2] = {nb_kind(a[0].type), n == 2 ? nb_kind(a[1].type) : -1};
    const NbCase *c = nb_resolve(n == 2 ? cases2 : cases1, 2, kinds, n, true);
    if (!c) return lerr(L, e->loc, "%s() does not take %s", fname, vname(L, &a[0]));
    t = nb_type(L->ctx, c->ret);
  }
  at(L, e->loc);
  for (unsigned i = 0; i < n; i++) a[i] = conv(L, a[i], t);
  Value *z = mat(L, &a[0]), *re = complex_part(L, z, false), *im = complex_part(L, z, true);
  Type *b1 = ty_bool(L->ctx);
  switch (bi) {
  case BI_CMATH_ISNAN: return val(b1, ib_cmpf(&L->b, "uno", re, im));
  case BI_CMATH_ISINF:
  case BI_CMATH_ISFINITE: {
    OpKind k = bi == BI_CMATH_ISINF ? OP_ISINF : OP_ISFINITE;
    Value *x = ib_unary(&L->b, k, re, b1), *y = ib_unary(&L->b, k, im, b1);
    return val(b1, ib_binary(&L->b, bi == BI_CMATH_ISINF ? OP_ORI : OP_ANDI, x, y));
  }
  case BI_CMATH_PHASE: return val(t->elem, ib_binary(&L->b, OP_ATAN2, im, re));
  case BI_CMATH_POLAR: {
    FeVal parts[2] = {val(t->elem, ib_binary(&L->b, OP_HYPOT, re, im)), val(t->elem, ib_binary(&L->b, OP_ATAN2, im, re))};
    return make_tuple(L, 2, parts);
  }
  default: break;
  }
  if (n == 2) {
    FeVal r = instantiate_and_call(L, fe_cmath_function(L->fe, "log_base"), e, a, 2);
    if (r.kind == FV_POISON) return r;
    at(L, e->loc);
    return conv(L, r, t);
  }
  return cmath_call(L, name, a[0], e);
}

/* cmath.<name>(z) of a complex z, from kfront's cmath source, its result converted to z's type (as numba-cuda's
 * compile_internal returns it). */
static FeVal cmath_call(Lower *L, const char *name, FeVal z, const PyExpr *e) {
  Type *t = z.type;
  FeVal a[2] = {z};
  unsigned np = 1;
  if (strcmp(name, "sqrt") == 0) /* its overflow threshold, numba-cuda's FLT_MAX or DBL_MAX / (1 + sqrt(2)) */
    a[np++] = cfloat(t->elem, t->elem->bits == 32 ? (double)(float)1.4094955303793193e+38 : 7.446288774449766e+307);
  FeFunc *f = fe_cmath_function(L->fe, name);
  if (!f) return lerr(L, e->loc, "internal error: no cmath source for cmath.%s", name);
  FeVal r = instantiate_and_call(L, f, e, a, np);
  if (r.kind == FV_POISON) return r;
  at(L, e->loc);
  return conv(L, r, t);
}

/* abs(x) (and cuda_fp16's operator.abs), by Numba's case list of abs. */
static FeVal abs_of(Lower *L, FeVal a, const char *fname, SrcLoc loc) {
  const NbCase *c = resolve_fn(L, BI_ABS, &a, 1, fname, loc);
  if (!c) return poison();
  at(L, loc);
  Type *t = nb_type(L->ctx, c->args[0]);
  FeVal x = conv(L, a, t);
  if (t->kind == TY_COMPLEX)
    return val(t->elem, op_result(ib_op(&L->b, OP_COMPLEX_ABS, 1, (Value *[]){mat(L, &x)}, 1, &t->elem, 0), 0));
  if (t->kind == TY_INT && t->is_unsigned) return x;
  if (x.is_const && t->kind == TY_INT) return cint(t, x.c.i < 0 ? (int64_t)(0 - (uint64_t)x.c.i) : x.c.i);
  if (x.is_const && t->kind == TY_FLOAT && t->bits > 16) return cfloat(t, fabs(x.c.f));
  FeVal r = val(t, ib_unary(&L->b, t->kind == TY_FLOAT ? OP_FABS : OP_ABSI, mat(L, &x), NULL));
  r.nonneg = t->kind == TY_INT;
  return r;
}

static void assign(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc);

/* ---- calls: the operator module (sema.c's table) ------------------------------------------------------------- */

/* operator.add(a, b) and the rest: the syntax's own typing and lowering (binop, compare2, unop, a subscript and its
 * assignment), so that each operator has one definition. Numba types a + b as operator.add(a, b); CPython folds
 * no call, so the arguments are not literals here. */
static FeVal lower_operator(Lower *L, int k, const PyExpr *e) {
  const FeOperatorFn *f = sema_operator_fn(k);
  if (f->kind == OPF_UNTYPED)
    return lerr(L, e->loc, "%s() is not supported in kernels (numba-cuda does not type it)", f->name);
  if (f->kind == OPF_GETITEM || f->kind == OPF_SETITEM) { /* a[i] and a[i] = v, from the argument expressions */
    bool plain = e->call.args.n == f->nargs && e->call.nkeywords == 0;
    for (unsigned i = 0; plain && i < e->call.args.n; i++) plain = e->call.args.items[i]->kind != EX_STARRED;
    if (!plain) return lerr(L, e->loc, "%s() takes %u positional arguments", f->name, f->nargs);
    PyExpr *sub = ARENA_NEW(&L->fe->arena, PyExpr);
    sub->kind = EX_SUBSCRIPT;
    sub->loc = e->loc;
    sub->subscript.value = e->call.args.items[0];
    sub->subscript.index = e->call.args.items[1];
    if (f->kind == OPF_GETITEM) return lower_expr(L, sub);
    const PyExpr *v = e->call.args.items[2];
    assign(L, sub, lower_expr(L, v), v->loc);
    return (FeVal){.kind = FV_NONE};
  }
  FeVal a[2];
  if (!positional(L, e, f->name, f->nargs, f->nargs, a)) return poison();
  a[0].literal = a[1].literal = false;
  switch ((FeOperatorKind)f->kind) {
  case OPF_BINOP: return binop(L, (PyBinOp)f->op, a[0], a[1], e->loc);
  case OPF_CMP: return compare2(L, (PyCmpOp)f->op, a[0], a[1], e->loc);
  case OPF_CONTAINS: return compare2(L, CMP_IN, a[1], a[0], e->loc);
  case OPF_UNARY: return unop(L, (PyUnaryOp)f->op, a[0], e->loc);
  case OPF_TRUTH:
    if (a[0].kind == FV_VAL && a[0].type->kind == TY_BOOL) return a[0];
    return lerr(L, arg_loc(e, 0), "operator.truth() of %s is not supported (numba-cuda types it for booleans only)",
                vname(L, &a[0]));
  case OPF_ABS:
    if (a[0].kind == FV_VAL && nb_kind(a[0].type) == NB_F16) return abs_of(L, a[0], f->name, e->loc);
    return lerr(L, arg_loc(e, 0), "operator.abs() of %s is not supported (numba-cuda types it for float16 only; "
                                  "use abs())", vname(L, &a[0]));
  default: return poison();
  }
}

/* numba-cuda's literal_unroll(t): t itself, a tuple (a list of constants becomes the tuple of them, as numba-cuda's
 * TransformLiteralUnrollConstListToTuple makes it); a for loop over it is unrolled per item, as any loop over a
 * tuple is here (numba-cuda's MixedContainerUnroller versions the body per item type). Anything else is refused
 * with numba-cuda's reason. */
static FeVal lower_literal_unroll(Lower *L, const PyExpr *e) {
  if (e->call.nkeywords || e->call.args.n != 1 || e->call.args.items[0]->kind == EX_STARRED)
    return lerr(L, e->loc, "literal_unroll takes one argument, found %u", e->call.args.n + e->call.nkeywords);
  const PyExpr *arg = e->call.args.items[0];
  if (arg->kind == EX_LIST) {
    unsigned n = arg->elts.n;
    FeVal *items = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
    for (unsigned i = 0; i < n; i++) {
      items[i] = lower_expr(L, arg->elts.items[i]);
      if (items[i].kind == FV_POISON) return poison();
      if (!(items[i].kind == FV_VAL && items[i].is_const) && items[i].kind != FV_STR)
        return lerr(L, arg->elts.items[i]->loc, "Found non-constant value at position %u in a list argument to "
                                                "literal_unroll", i);
    }
    return make_tuple(L, n, items);
  }
  FeVal v = lower_expr(L, arg);
  if (v.kind == FV_POISON || v.kind == FV_TUPLE) return v;
  return lerr(L, arg->loc, "Invalid use of literal_unroll, argument should be a tuple or a list of constant values, "
                           "not %s", vname(L, &v));
}

static FeVal lower_builtin_call(Lower *L, int bi, const PyExpr *e) {
  const char *fname = sema_builtin_name(bi);
  FeVal a[3];
  if (bi >= BI_CMATH_EXP && bi <= BI_CMATH_RECT) return lower_cmath(L, bi, e);
  switch (bi) {
  case BI_RANGE:
  case BI_ZIP:
  case BI_ENUMERATE: return lerr(L, e->loc, "%s() can only be used as the iterable of a for loop in kfront", fname);
  case BI_LITERAL_UNROLL: return lower_literal_unroll(L, e);
  case BI_PRINT: return lower_print(L, e);
  case BI_NP_REAL:
  case BI_NP_IMAG: { /* numba-cuda's overloads: val.real, val.imag (numbers and arrays), the attribute itself */
    if (e->call.args.n != 1 || e->call.nkeywords || e->call.args.items[0]->kind == EX_STARRED)
      return lerr(L, e->loc, "%s() takes exactly one positional argument", fname);
    PyExpr *attr = ARENA_NEW(&L->fe->arena, PyExpr);
    attr->kind = EX_ATTRIBUTE;
    attr->loc = attr->attribute.attr_loc = e->loc;
    attr->attribute.value = e->call.args.items[0];
    attr->attribute.attr = bi == BI_NP_REAL ? "real" : "imag";
    return lower_expr(L, attr);
  }
  case BI_NP_SUM:
  case BI_NP_PROD:
  case BI_NP_MIN:
  case BI_NP_MAX:
  case BI_NP_ALL:
  case BI_NP_ANY:
  case BI_NP_MEAN:
  case BI_NP_VAR:
  case BI_NP_STD:
  case BI_NP_COUNT_NONZERO:
  case BI_NP_NANSUM:
  case BI_NP_NANPROD:
  case BI_NP_NANMIN:
  case BI_NP_NANMAX:
  case BI_NP_NANMEAN:
  case BI_NP_NANVAR:
  case BI_NP_NANSTD: {
    if (e->call.args.n < 1 || e->call.args.items[0]->kind == EX_STARRED)
      return lerr(L, e->loc, "%s() takes an array as its first positional argument", fname);
    FeVal arr = lower_expr(L, e->call.args.items[0]);
    if (arr.kind == FV_POISON) return arr;
    if (arr.kind == FV_VIEW) arr = view_value(L, &arr);
    return lower_reduction(L, fname + strlen("np."), fname, arr, e, 1);
  }
  case BI_SLICE: return lower_slice_ctor(L, e);
  case BI_COMPLEX: { /* numba-cuda's typing: complex64 from a float32 (or two), else complex128 */
    if (!positional(L, e, fname, 1, 2, a)) return poison();
    unsigned n = a[1].kind == FV_UNDEF ? 1 : 2;
    for (unsigned i = 0; i < n; i++)
      if (!is_scalar(&a[i]) || a[i].type->kind == TY_BOOL || (n == 2 && is_complex(&a[i])))
        return lerr(L, arg_loc(e, i), "complex() takes %s, not %s", n == 1 ? "a number" : "two real numbers", vname(L, &a[i]));
    bool single = a[0].type == ty_f32(L->ctx) && (n == 1 || a[1].type == a[0].type);
    Type *t = ty_complex(L->ctx, single ? ty_f32(L->ctx) : ty_f64(L->ctx));
    at(L, e->loc);
    if (n == 1) return conv(L, a[0], t);
    Value *re = conv_v(L, a[0], t->elem), *im = conv_v(L, a[1], t->elem);
    return val(t, complex_make(L, re, im, t));
  }
  case BI_LEN:
    if (!positional(L, e, fname, 1, 1, a)) return poison();
    if (a[0].kind == FV_TUPLE) return cint(ty_i64(L->ctx), a[0].tup.n);
    if (is_run_time_string(&a[0])) return run_time_string_len(L, &a[0], e->loc);
    if (a[0].kind == FV_STR) { /* a constant string (a str enum member's value): its code points, as Numba folds it */
      int64_t n = 0;
      for (size_t i = 0; i < a[0].str.len; i++) n += ((unsigned char)a[0].str.s[i] & 0xC0) != 0x80;
      FeVal r = cint(ty_i64(L->ctx), n);
      r.nonneg = true;
      return r;
    }
    if (is_array(&a[0]) || a[0].kind == FV_VIEW) {
      at(L, e->loc);
      Value *arr = a[0].kind == FV_VIEW ? a[0].tup.elems[0].v : a[0].v;
      FeVal r = val(ty_i64(L->ctx), ib_dim(&L->b, arr, a[0].kind == FV_VIEW ? a[0].tup.n - 1 : 0));
      r.nonneg = true;
      return r;
    }
    return lerr(L, arg_loc(e, 0), "len() of %s is not supported", vname(L, &a[0]));
  case BI_MIN:
  case BI_MAX: return minmax(L, bi == BI_MAX, e);
  case BI_ABS:
    if (!positional(L, e, fname, 1, 1, a)) return poison();
    return abs_of(L, a[0], fname, e->loc);
  case BI_INT:
    if (!positional(L, e, fname, 1, 1, a)) return poison();
    if (!is_scalar(&a[0]) || is_complex(&a[0])) return lerr(L, arg_loc(e, 0), "int() of %s is not supported", vname(L, &a[0]));
    at(L, e->loc);
    if (a[0].type->kind == TY_INT) return (a[0].literal = false, a[0].enumc = NULL, a[0]);
    return conv(L, a[0], ty_i64(L->ctx));
  case BI_FLOAT:
    if (!positional(L, e, fname, 1, 1, a)) return poison();
    if (!is_scalar(&a[0]) || a[0].type->kind == TY_BOOL || is_complex(&a[0]))
      return lerr(L, arg_loc(e, 0), "float() only supports real numbers, not %s", vname(L, &a[0]));
    at(L, e->loc);
    if (a[0].type->kind == TY_FLOAT) return (a[0].literal = false, a[0]);
    return conv(L, a[0], ty_f64(L->ctx));
  case BI_BOOL:
    if (!positional(L, e, fname, 1, 1, a)) return poison();
    at(L, e->loc);
    return truth(L, a[0], arg_loc(e, 0));
  case BI_ROUND: {
    if (!positional(L, e, fname, 1, 2, a)) return poison();
    if (a[1].kind != FV_UNDEF) return round_ndigits(L, a, e);
    const NbCase *c = resolve_fn(L, bi, a, 1, fname, e->loc);
    if (!c) return poison();
    at(L, e->loc);
    Type *t = nb_type(L->ctx, c->args[0]);
    Value *r = ib_unary(&L->b, OP_ROUND, conv_v(L, a[0], t), NULL);
    return conv(L, val(t, r), nb_type(L->ctx, c->ret));
  }
  case BI_POW:
    if (!positional(L, e, fname, 2, 3, a)) return poison();
    if (a[2].kind != FV_UNDEF) return lerr(L, e->loc, "pow() with a modulus is not supported by kfront");
    return binop(L, BIN_POW, a[0], a[1], e->loc);
  case BI_DIVMOD: {
    if (!positional(L, e, fname, 2, 2, a)) return poison();
    const NbCase *c = resolve_fn(L, bi, a, 2, fname, e->loc);
    if (!c) return poison();
    Type *t = nb_type(L->ctx, c->args[0]);
    FeVal x = conv(L, a[0], t), y = conv(L, a[1], t);
    FeVal qr[2] = {binop(L, BIN_FLOORDIV, x, y, e->loc), binop(L, BIN_MOD, x, y, e->loc)};
    return make_tuple(L, 2, qr);
  }
  case BI_GRID:
  case BI_GRIDSIZE: return grid_values(L, bi == BI_GRIDSIZE, e);
  case BI_SYNCTHREADS:
  case BI_SYNCTHREADS_COUNT:
  case BI_SYNCTHREADS_AND:
  case BI_SYNCTHREADS_OR:
  case BI_THREADFENCE:
  case BI_THREADFENCE_BLOCK:
  case BI_THREADFENCE_SYSTEM: return lower_sync(L, bi, e);
  case BI_CG_THIS_GRID:
  case BI_GRID_SYNC: return lower_cg(L, bi, e);
  case BI_GRID_GROUP: return lerr(L, e->loc, "a GridGroup is not callable");
  case BI_SYNCWARP:
  case BI_SHFL_SYNC:
  case BI_SHFL_UP_SYNC:
  case BI_SHFL_DOWN_SYNC:
  case BI_SHFL_XOR_SYNC:
  case BI_ALL_SYNC:
  case BI_ANY_SYNC:
  case BI_EQ_SYNC:
  case BI_BALLOT_SYNC:
  case BI_ACTIVEMASK: return lower_warp(L, bi, e);
  case BI_POPC:
  case BI_BREV:
  case BI_CLZ:
  case BI_FFS: return lower_bits(L, bi, e);
  case BI_FMA:
  case BI_CBRT:
  case BI_SELP:
  case BI_MATH_FREXP:
  case BI_MATH_LDEXP:
  case BI_MATH_MODF: return lower_numeric_fn(L, bi, e);
  case BI_SHARED_ARRAY:
  case BI_LOCAL_ARRAY: return lower_array_decl(L, bi, e);
  case BI_CONST_ARRAY_LIKE: return lower_const_array(L, e);
  case BI_ATOMIC_ADD:
  case BI_ATOMIC_SUB:
  case BI_ATOMIC_AND:
  case BI_ATOMIC_OR:
  case BI_ATOMIC_XOR:
  case BI_ATOMIC_MAX:
  case BI_ATOMIC_MIN:
  case BI_ATOMIC_EXCH:
  case BI_ATOMIC_INC:
  case BI_ATOMIC_DEC:
  case BI_ATOMIC_CAS:
  case BI_ATOMIC_COMPARE_AND_SWAP:
  case BI_ATOMIC_NANMAX:
  case BI_ATOMIC_NANMIN: return lower_atomic(L, bi, e);
  case BI_CUDA_JIT:
  case BI_CUDA_REDUCE:
  case BI_VECTORIZE:
  case BI_GUVECTORIZE:
  case BI_NUMBA_JIT:
  case BI_NJIT: return lerr(L, e->loc, "'%s' cannot be used inside a kernel", fname);
  case BI_THREADIDX:
  case BI_BLOCKIDX:
  case BI_BLOCKDIM:
  case BI_GRIDDIM: return lerr(L, e->loc, "cuda.%s is not callable", fname);
  default:
    if (bi >= FE_LIBDEVICE_BASE) return lower_libdevice(L, bi - FE_LIBDEVICE_BASE, e);
    if (bi >= FE_BF16_BASE) return lower_lowp(L, true, bi - FE_BF16_BASE, e);
    if (bi >= FE_OPERATOR_BASE) return lower_operator(L, bi - FE_OPERATOR_BASE, e);
    if (bi >= FE_VECTOR_BASE) return lower_vector_ctor(L, bi - FE_VECTOR_BASE, e);
    if (bi >= FE_FP16_BASE) return lower_lowp(L, false, bi - FE_FP16_BASE, e);
    if (bi >= FE_UFUNC_BASE) return lower_ufunc(L, bi - FE_UFUNC_BASE, e);
    if (sema_math_op(bi) >= 0 || bi == BI_MATH_DEGREES || bi == BI_MATH_RADIANS) return lower_math(L, bi, e);
    return lerr(L, e->loc, "'%s' is not callable", fname);
  }
}

/* ---- calls: device functions --------------------------------------------------------------------------------- */

static bool closure_snapshot(Lower *L, const FeVal *v, FeVal *out, SrcLoc loc);

/* The key of a constant scalar (a closure's captured value or default): type and bits, symbol characters only. */
static void const_key(const FeVal *v, StrBuf *out) {
  nb_mangle(v->type, out);
  uint64_t bits;
  if (v->type->kind == TY_FLOAT) memcpy(&bits, &v->c.f, sizeof bits);
  else bits = (uint64_t)v->c.i;
  sb_printf(out, "x%llx", (unsigned long long)bits);
}

static void shape_key(const FeVal *s, StrBuf *out);

static void static_key(const FeVal *s, StrBuf *out) {
  switch (s->kind) {
  case FV_FUNC: sb_printf(out, "F%s", s->func->sym); break;
  case FV_BUILTIN:
    sb_putc(out, 'B');
    for (const char *c = sema_builtin_name(s->builtin); *c; c++) sb_putc(out, *c == '.' ? '_' : *c);
    break;
  case FV_NTYPE: sb_putc(out, 'N'); nb_mangle(s->type, out); break;
  case FV_NAMESPACE: sb_printf(out, "K%u", s->ns->enumc->id); break; /* an enum class (arg_shape) */
  case FV_NONE: sb_puts(out, "None"); break;
  case FV_CLOSURE: {
    const FeClosure *c = s->clo;
    sb_printf(out, "C%s", c->fn->sym);
    const PyParams *ps = &c->fn->def->funcdef.params;
    for (unsigned i = 0; i < ps->n; i++)
      if (c->defaults[i].kind != FV_UNDEF) {
        sb_puts(out, "_d");
        shape_key(&c->defaults[i], out);
      }
    for (unsigned i = 0; i < c->fn->ncaptures; i++) {
      sb_puts(out, "_c");
      shape_key(&c->captured[i], out);
    }
    break;
  }
  default: break;
  }
}

/* The shape of an argument passed to a device function (types only: constants are not specialised on, except
 * compile-time values, which are the shape themselves). */
static bool arg_shape(Lower *L, const FeVal *v, FeVal *out, SrcLoc loc) {
  switch (v->kind) {
  case FV_FUNC:
    if (v->func->kind != FN_DEVICE && v->func->kind != FN_KERNEL) break;
    *out = *v;
    return true;
  case FV_BUILTIN: /* intrinsics, and a GridGroup: g.sync() in the callee makes it (and its callers) cooperative */
    *out = *v;
    return true;
  case FV_NTYPE:
  case FV_NONE: *out = *v; return true;
  case FV_NAMESPACE: /* an enum class: numba-cuda's EnumClass, a compile-time value as a type is */
    if (!v->ns->enumc || v->ns->enumc->strings_of) break;
    *out = *v;
    return true;
  case FV_CLOSURE: return closure_snapshot(L, v, out, loc);
  case FV_VAL:
    *out = val(v->type, NULL);
    out->enumc = v->enumc;
    return true;
  case FV_TUPLE:
  case FV_VECTOR: {
    FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, v->tup.n ? v->tup.n : 1);
    for (unsigned i = 0; i < v->tup.n; i++)
      if (!arg_shape(L, &v->tup.elems[i], &elems[i], loc)) return false;
    *out = v->kind == FV_VECTOR ? make_vector(v->type, elems) : make_tuple(L, v->tup.n, elems);
    return true;
  }
  case FV_VIEW:
  case FV_RECORD: {
    *out = *v;
    out->tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, v->tup.n);
    out->tup.elems[0] = val(v->tup.elems[0].type, NULL);
    for (unsigned i = 1; i < v->tup.n; i++) out->tup.elems[i] = val(ty_i64(L->ctx), NULL);
    return true;
  }
  case FV_POISON: return false;
  default: break;
  }
  lerr(L, loc, "cannot pass %s to a device function", vname(L, v));
  return false;
}

static void shape_key(const FeVal *s, StrBuf *out) {
  if (s->kind == FV_VAL || s->kind == FV_VECTOR) {
    if (s->kind == FV_VAL && s->is_const) const_key(s, out); /* a closure's captured constant (arguments' shapes have none) */
    else nb_mangle(s->type, out);
    if (s->enumc) sb_printf(out, "E%u", s->enumc->id);
  } else if (s->kind == FV_VIEW || s->kind == FV_RECORD) {
    sb_printf(out, "%c%u_", s->kind == FV_VIEW ? 'V' : 'Q', s->tup.n - 1);
    nb_mangle(s->tup.elems[0].type, out);
  } else if (s->kind == FV_TUPLE) {
    sb_printf(out, "T%u", s->tup.n);
    for (unsigned i = 0; i < s->tup.n; i++) {
      sb_putc(out, '_');
      shape_key(&s->tup.elems[i], out);
    }
    sb_puts(out, "_E");
  } else {
    static_key(s, out);
  }
}

static void flatten_shape_types(const FeVal *s, Type **out, unsigned *n) {
  if (s->kind == FV_VAL && s->is_const) return; /* a literal argument */
  if (s->kind == FV_VAL) {
    if (*n < MAX_FLAT) out[*n] = s->type;
    (*n)++;
  } else if (has_fields(s)) {
    for (unsigned i = 0; i < s->tup.n; i++) flatten_shape_types(&s->tup.elems[i], out, n);
  }
}

void lower_flatten_types(FeCtx *fe, const FeVal *v, Type **out, unsigned *n, unsigned cap) {
  (void)fe;
  (void)cap;
  flatten_shape_types(v, out, n);
}

static FeVal shape_of_type(Lower *L, Type *t) {
  if (t->kind == TY_RECORD) { /* a returned record: its array of one (from_shape makes the record of it) */
    FeVal r = {.kind = FV_RECORD, .type = t};
    r.tup.n = 1;
    r.tup.elems = ARENA_NEW(&L->fe->arena, FeVal);
    r.tup.elems[0] = val(record_ref_type(L->ctx, t), NULL);
    return r;
  }
  if (t->kind != TY_TUPLE) return val(t, NULL);
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, t->n ? t->n : 1);
  for (unsigned i = 0; i < t->n; i++) elems[i] = shape_of_type(L, t->elems[i]);
  return ty_is_struct_tuple(t) ? make_vector(t, elems) : make_tuple(L, t->n, elems);
}

/* The enum member types of v's members, onto the shape of its type (a returned tuple's members stay enum members). */
static void copy_enums(FeVal *shape, const FeVal *v) {
  if (shape->kind == FV_VAL && v->kind == FV_VAL) shape->enumc = v->enumc;
  if (shape->kind == FV_TUPLE && v->kind == FV_TUPLE && shape->tup.n == v->tup.n)
    for (unsigned i = 0; i < v->tup.n; i++) copy_enums(&shape->tup.elems[i], &v->tup.elems[i]);
}

FeVal lower_param_shape(FeCtx *fe, Type *t) {
  if (t->kind != TY_TUPLE) return (FeVal){.kind = FV_VAL, .type = t};
  FeVal v = {.kind = ty_is_struct_tuple(t) ? FV_VECTOR : FV_TUPLE, .type = t};
  v.tup.n = t->n;
  v.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, t->n ? t->n : 1);
  for (unsigned i = 0; i < t->n; i++) v.tup.elems[i] = lower_param_shape(fe, t->elems[i]);
  return v;
}

/* Values of an argument, flattened like its shape. */
static void flatten_arg(Lower *L, const FeVal *v, Value **out, unsigned *n) {
  if (v->kind == FV_VAL) {
    if (*n < MAX_FLAT) out[*n] = mat(L, v);
    (*n)++;
  } else if (has_fields(v)) {
    for (unsigned i = 0; i < v->tup.n; i++) flatten_arg(L, &v->tup.elems[i], out, n);
  }
}

/* Rebuilds a value of the given shape from flattened values (parameters, call results). */
static FeVal from_shape(Lower *L, const FeVal *s, Value *const *vals, unsigned *pos) {
  if (s->kind == FV_VAL && s->is_const) return *s; /* a literal argument */
  if (s->kind == FV_VAL) {
    FeVal v = val(s->type, vals[(*pos)++]);
    v.enumc = s->enumc;
    return v;
  }
  if (!has_fields(s)) return *s; /* a compile-time value */
  if (s->kind == FV_RECORD && s->tup.n == 1) return record_of_array(L, vals[(*pos)++]); /* shape_of_type's */
  FeVal r = *s;
  r.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, s->tup.n ? s->tup.n : 1);
  for (unsigned i = 0; i < s->tup.n; i++) r.tup.elems[i] = from_shape(L, &s->tup.elems[i], vals, pos);
  return r;
}

/* A default argument value of a device function of source src (a literal or a module-level constant). */
static FeVal const_default(Lower *L, const FeSource *src, const PyExpr *d) {
  if (d->kind == EX_INT || d->kind == EX_FLOAT || d->kind == EX_BOOL || d->kind == EX_NONE ||
      (d->kind == EX_UNARY && (d->unary.operand->kind == EX_INT || d->unary.operand->kind == EX_FLOAT)))
    return lower_expr(L, d);
  if (d->kind == EX_NAME) {
    FeVal *g = fe_lookup(L->fe, src, d->name);
    if (g && g->kind == FV_VAL && g->is_const) return *g;
  }
  return lerr(L, d->loc, "default argument values of device functions must be constants");
}

static const char *sym_for(Lower *L, FeFunc *f, const char *key) {
  bool taken = false;
  Op *o = ir_module_lookup(L->m, f->sym);
  taken = o && o->block;
  if (!taken) return f->sym;
  const char *base = arena_printf(&L->fe->arena, "%s__%s", f->sym, key);
  const char *s = base;
  for (unsigned k = 1; (o = ir_module_lookup(L->m, s)) && o->block; k++) s = arena_printf(&L->fe->arena, "%s_%u", base, k);
  return s;
}

/* ---- recursion ----------------------------------------------------------------------------------------------
 * A device function may call itself, directly or through others (self and mutual recursion), as numba-cuda
 * types it: the call of an instance still being lowered (same function, same argument types) returns the
 * instance's declared type (a signature), else the type of the value returns lowered before the call (fib's
 * `if n < 2: return n`); with neither, the call cannot be typed (runaway recursion, a located error). The
 * instance's final return type must be the one the call took. A call with other argument types makes another
 * instance (bounded: argument types that keep changing are an error). */

enum { MAX_RECURSIVE_INSTANCES = 8 };

/* A value return of the function being lowered: what a recursive call of it returns so far. */
static void note_return_type(Lower *L, const FeVal *v) {
  FeInst *in = L->inst;
  if (in->has_decl_ret) return;
  Type *t = fv_type(L, v);
  if (!t) return;
  Type *u = in->ret_so_far ? nb_unify(L->ctx, in->ret_so_far, t) : t;
  if (u) in->ret_so_far = u;
  in->ret_enum = v->kind == FV_VAL && (!in->ret_so_far || in->ret_enum == v->enumc || t == u) ? v->enumc : NULL;
}

/* Whether the statements return a value somewhere (not None). */
static bool returns_value(const PyStmtList *l) {
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_RETURN:
      if (s->value && s->value->kind != EX_NONE) return true;
      break;
    case ST_IF:
      if (returns_value(&s->if_.body) || returns_value(&s->if_.orelse)) return true;
      break;
    case ST_FOR:
      if (returns_value(&s->for_.body) || returns_value(&s->for_.orelse)) return true;
      break;
    case ST_WHILE:
      if (returns_value(&s->while_.body) || returns_value(&s->while_.orelse)) return true;
      break;
    default: break;
    }
  }
  return false;
}

/* The call of `active`, an instance of f being lowered, from inside itself (or a function it calls). */
static FeVal recursive_call(Lower *L, FeFunc *f, FeInst *active, const PyExpr *e, FeVal *args, unsigned np) {
  Type *rt = NULL;
  const FeEnum *ren = NULL;
  if (active->has_decl_ret) {
    rt = active->decl_ret;
  } else if (active->ret_so_far) {
    rt = active->ret_so_far;
    ren = active->ret_enum;
  } else if (returns_value(&f->def->funcdef.body)) {
    /* no type yet: the instance is lowered again once its returns have given one (lower_function); the
     * functions between it and this call are typed on this poison, so they go with its first attempt */
    if (!active->rec_unknown) active->rec_loc = e->loc;
    active->rec_unknown = true;
    if (L->inst != active) L->inst->tainted = true;
    return poison();
  }
  if (!active->rec_called) {
    active->rec_called = true;
    active->rec_type = rt;
    active->rec_loc = e->loc;
  }
  at(L, e->loc);
  Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  unsigned nv = 0;
  for (unsigned i = 0; i < np; i++) flatten_arg(L, &args[i], vals, &nv);
  Type **rts = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
  unsigned nr = 0;
  if (rt) flat_types(L->ctx, rt, rts, &nr);
  if (nr > MAX_FLAT || nv > MAX_FLAT) return lerr(L, e->loc, "too many values in a recursive call");
  Op *call = ib_op(&L->b, OP_FUNC_CALL, nv, vals, nr, rts, 0);
  ir_op_set_attr(L->m, call, "callee", attr_sym(L->m, ir_func_name(active->op)));
  if (!rt) return (FeVal){.kind = FV_NONE};
  Value **res = ARENA_ARRAY(&L->fe->arena, Value *, nr ? nr : 1);
  for (unsigned i = 0; i < nr; i++) res[i] = op_result(call, i);
  unsigned pos = 0;
  FeVal r = unflatten(L, rt, res, &pos);
  if (r.kind == FV_VAL) r.enumc = ren;
  return r;
}

/* At the end of an instance that was called recursively: the call must have returned what the function does. */
static void check_recursive_return(Lower *L, Type *final) {
  FeInst *in = L->inst;
  if (!in->rec_called || in->rec_type == final) return;
  lerr(L, in->rec_loc, "the recursive call of '%s' was typed as returning %s, but '%s' returns %s: declare its "
                       "signature (e.g. @cuda.jit(\"int64(int64)\", device=True))", L->fn->name,
       in->rec_type ? tname(L, in->rec_type) : "none", L->fn->name, final ? tname(L, final) : "none");
}

static FeVal instantiate_and_call(Lower *L, FeFunc *f, const PyExpr *e, FeVal *args, unsigned np);
static void assign(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc);
static const char *exception_text(Lower *L, const char *cls, const PyExpr *e, SrcLoc loc);

/* Whether a device function's or closure's parameters are of kinds numba-cuda binds: positional ones (with
 * defaults, positional-only ones too) and a final *args. Keyword-only parameters are not: numba-cuda's dispatcher
 * folds them as trailing positional arguments (fold_arguments), which no call binds as Python does, and an inner def
 * with keyword-only defaults stops its interpreter (op_MAKE_FUNCTION with kwdefaults); nor is **kwargs (Numba:
 * "Explicit **kwargs are not supported"). False after a located error. */
static bool params_supported(Lower *L, const PyParams *ps) {
  for (unsigned i = 0; i < ps->n; i++) {
    const PyParam *p = ps->items[i];
    if (p->kind == PARAM_VARKW) {
      lerr(L, p->loc, "**%s: **kwargs parameters are not supported in device functions, as Numba supports no "
                      "explicit **kwargs; name the parameters (keyword arguments and defaults are supported)",
           p->name);
      return false;
    }
    if (p->kind == PARAM_KWONLY) {
      lerr(L, p->loc, "'%s' is a keyword-only parameter: they are not supported in device functions, as numba-cuda's "
                      "dispatcher cannot bind them; make it a positional parameter (keyword arguments and defaults are "
                      "supported)", p->name);
      return false;
    }
  }
  return true;
}

/* The parameters of a device function or closure: their names, the index of a final *args parameter (np when
 * there is none) and how many are positional-only; false after a located error (params_supported). */
static bool param_names_of(Lower *L, const PyParams *ps, const char **names, unsigned *varargs, unsigned *nposonly) {
  if (!params_supported(L, ps)) return false;
  *varargs = ps->n;
  *nposonly = 0;
  for (unsigned i = 0; i < ps->n; i++) {
    names[i] = ps->items[i]->name;
    if (ps->items[i]->kind == PARAM_VARARGS) *varargs = i;
    if (ps->items[i]->kind == PARAM_POSONLY) *nposonly = i + 1;
  }
  return true;
}

static FeVal call_device(Lower *L, FeFunc *f, const PyExpr *e) {
  const PyParams *ps = &f->def->funcdef.params;
  unsigned np = ps->n, va, npo;
  if (np > 64) return lerr(L, e->loc, "device functions with more than 64 parameters are not supported");
  const char **names = ARENA_ARRAY(&L->fe->arena, const char *, 64);
  if (!param_names_of(L, ps, names, &va, &npo)) return poison();
  if (va < np && f->nsigs) return lerr(L, e->loc, "'%s' takes *args: it cannot have declared signatures", f->name);
  FeVal *args = ARENA_ARRAY(&L->fe->arena, FeVal, 64);
  unsigned nreq = 0;
  for (unsigned i = 0; i < va; i++)
    if (!ps->items[i]->defval) nreq = i + 1;
  if (!bind_args_rest(L, e, f->name, names, 0, va, npo, args, va < np ? &args[va] : NULL)) return poison();
  for (unsigned i = 0; i < np; i++) {
    if (args[i].kind != FV_UNDEF) continue;
    if (i < nreq || !ps->items[i]->defval) return lerr(L, e->loc, "%s() missing required argument '%s'", f->name, names[i]);
    args[i] = const_default(L, f->src, ps->items[i]->defval);
    if (args[i].kind == FV_POISON) return poison();
  }
  /* numba.cuda.random's device functions index numba-cuda's state array: another argument is refused at the call */
  if (f->src->prelude && np && strcmp(names[0], "states") == 0) {
    const Type *t = args[0].kind == FV_VAL || args[0].kind == FV_VIEW ? args[0].type : NULL;
    if (!t || t->kind != TY_ARRAY || t->rank != 1 || !ty_is_record(t->elem) ||
        ty_record_field(t->elem, "s0", 2) < 0 || ty_record_field(t->elem, "s1", 2) < 0)
      return lerr(L, arg_loc(e, 0),
                  "%s() takes numba.cuda.random's state array, a 1-D array of xoroshiro128p_dtype records (as "
                  "create_xoroshiro128p_states makes it), not %s", f->name, vname(L, &args[0]));
  }
  /* a device function declared with signatures: the best one for the arguments (as numba's overloads) */
  const FeSig *sig = NULL;
  if (f->nsigs) {
    unsigned best_rate[3] = {UINT32_MAX, 0, 0};
    for (unsigned s = 0; s < f->nsigs; s++) {
      const FeSig *cand = &f->sigs[s];
      if (cand->nargs != np) continue;
      unsigned rate[3] = {0, 0, 0};
      bool ok = true;
      for (unsigned i = 0; i < np && ok; i++) {
        Type *want = cand->args[i];
        if (is_scalar(&args[i]) && ty_is_number(want)) {
          int c = nb_can_convert(nb_kind(args[i].type), nb_kind(want));
          if (c == CONV_NONE) ok = false; /* a complex argument for a real parameter: no conversion, as Numba */
          else if (c == CONV_UNSAFE) rate[0]++;
          else if (c == CONV_SAFE) rate[1]++;
          else if (c == CONV_PROMOTE) rate[2]++;
        } else {
          Type *t = args[i].kind == FV_VIEW ? args[i].type : fv_type(L, &args[i]);
          ok = t && (t == want || (t->kind == TY_ARRAY && want->kind == TY_ARRAY && want->layout == LAYOUT_A &&
                                   t->elem == want->elem && t->rank == want->rank));
        }
      }
      if (!ok) continue;
      bool better = best_rate[0] == UINT32_MAX;
      for (unsigned i = 0; i < 3 && !better; i++) {
        if (rate[i] < best_rate[i]) better = true;
        if (rate[i] != best_rate[i]) break;
      }
      if (better) {
        sig = cand;
        memcpy(best_rate, rate, sizeof rate);
      }
    }
    if (!sig) return lerr(L, e->loc, "no signature of '%s' matches the argument types of this call", f->name);
    for (unsigned i = 0; i < np; i++)
      if (is_scalar(&args[i])) args[i] = conv(L, args[i], sig->args[i]);
  }
  /* the callee's lowering starts here: it needs room of its own beyond the reserve */
  if (stack_left() < 2 * STACK_RESERVE) return out_of_stack(L, e->loc, "device function calls");
  return instantiate_and_call(L, f, e, args, np);
}

/* The call of f with its bound arguments: the instance for their shapes (lowered now if new), and the
 * func.call. Apart from call_device's frame, which stays on the stack while arguments are lowered. */
/* The instance key of argument shapes (as lower_function keys it). */
static const char *shapes_key(Lower *L, const FeVal *shapes, unsigned np) {
  StrBuf key;
  sb_init(&key);
  for (unsigned i = 0; i < np; i++) {
    if (i) sb_puts(&key, "__");
    shape_key(&shapes[i], &key);
  }
  if (debug_mode(L->fe)) sb_puts(&key, "__dbg");
  const char *k = arena_strdup(&L->fe->arena, sb_cstr(&key));
  sb_free(&key);
  return k;
}

/* The literal shape of an argument: a constant number (or a tuple holding one) is kept as its value, as Numba
 * types a constant argument Literal[int](32) when the callee cannot be typed without (cuda.shared.array(n, ...)
 * with n a parameter). True when some constant was kept. */
static bool literal_shape(Lower *L, const FeVal *arg, FeVal *shape) {
  if (arg->kind == FV_VAL && arg->is_const && !arg->enumc) {
    *shape = *arg;
    shape->v = NULL;
    shape->literal = false;
    return true;
  }
  if (arg->kind != FV_TUPLE || shape->kind != FV_TUPLE) return false;
  bool any = false;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, arg->tup.n ? arg->tup.n : 1);
  for (unsigned i = 0; i < arg->tup.n; i++) {
    elems[i] = shape->tup.elems[i];
    any |= literal_shape(L, &arg->tup.elems[i], &elems[i]);
  }
  if (any) {
    *shape = make_tuple(L, arg->tup.n, elems);
    shape->type = NULL;
  }
  return any;
}

/* Values of an argument, flattened as the callee's parameter shape takes them (literals and compile-time values
 * take no parameter). */
static void flatten_arg_as(Lower *L, const FeVal *v, const FeVal *shape, Value **out, unsigned *n) {
  if (shape->kind == FV_VAL) {
    if (shape->is_const) return;
    if (*n < MAX_FLAT) out[*n] = mat(L, v);
    (*n)++;
  } else if (has_fields(shape)) {
    for (unsigned i = 0; i < v->tup.n; i++) flatten_arg_as(L, &v->tup.elems[i], &shape->tup.elems[i], out, n);
  }
}

/* The lowered instance of f for these shapes and key, if any. */
static FeInst *find_inst(FeFunc *f, const char *k) {
  for (FeInst *in = f->insts; in; in = in->next)
    if (!in->failed && !in->in_progress && in->op && !ir_op_attr(in->op, "kernel") && strcmp(in->key, k) == 0)
      return in;
  return NULL;
}

static __attribute__((noinline)) FeVal instantiate_and_call(Lower *L, FeFunc *f, const PyExpr *e, FeVal *args,
                                                            unsigned np) {
  FeVal shapes[64] = {{0}}, lits[64];
  bool any_literal = false;
  for (unsigned i = 0; i < np; i++) {
    if (!arg_shape(L, &args[i], &shapes[i], arg_loc(e, i))) return poison();
    lits[i] = shapes[i];
    any_literal |= literal_shape(L, &args[i], &lits[i]);
  }
  const char *k = shapes_key(L, shapes, np);
  FeInst *inst = NULL, *active = NULL;
  unsigned in_progress = 0;
  for (FeInst *in = f->insts; in; in = in->next) {
    bool device = in->op && !ir_op_attr(in->op, "kernel");
    if (in->in_progress && device) {
      in_progress++;
      if (strcmp(in->key, k) == 0) active = in;
    }
    if (!in->failed && device && strcmp(in->key, k) == 0) inst = in;
  }
  if (active) return recursive_call(L, f, active, e, args, np);
  if (in_progress >= MAX_RECURSIVE_INSTANCES)
    return lerr(L, e->loc, "'%s' calls itself with argument types that keep changing (%u instances deep): declare its "
                           "signature", f->name, in_progress);
  /* constant arguments: the instance for their types, else (when that cannot be typed) one for their values */
  const char *lk = any_literal && !in_progress ? shapes_key(L, lits, np) : NULL; /* not within recursion */
  if (!inst && lk && (inst = find_inst(f, lk))) memcpy(shapes, lits, sizeof(FeVal) * np);
  if (!inst && lk) {
    inst = lower_function(L->fe, f, shapes, np, sym_for(L, f, k), false, true, NULL);
    if (inst->failed && !inst->tainted) {
      inst = lower_function(L->fe, f, lits, np, sym_for(L, f, lk), false, true, NULL);
      if (!inst->failed) memcpy(shapes, lits, sizeof(FeVal) * np);
      else if (!inst->tainted) inst = NULL; /* reported below as the types' instance */
    }
  }
  if (!inst) {
    inst = lower_function(L->fe, f, shapes, np, sym_for(L, f, k), false, L->quiet > 0, NULL);
    if (L->quiet && inst->failed) L->suppressed++;
  }
  if (inst->tainted) { /* typed on a recursive call of an enclosing instance's first attempt: so is this one */
    L->inst->tainted = true;
    return poison();
  }
  if (!inst->op) return poison();
  at(L, e->loc);
  Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  unsigned nv = 0;
  for (unsigned i = 0; i < np; i++) {
    if (args[i].kind == FV_VAL && shapes[i].kind == FV_VAL && args[i].type != shapes[i].type) {
      /* a C array passed where the signature says A: same data, the callee reads the layout it was given */
      if (args[i].type->kind == TY_ARRAY) return lerr(L, arg_loc(e, i), "array layouts differ: %s given, %s expected",
                                                      tname(L, args[i].type), tname(L, shapes[i].type));
    }
    flatten_arg_as(L, &args[i], &shapes[i], vals, &nv);
  }
  Type **rts = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
  unsigned nr = 0;
  if (inst->ret.kind != FV_NONE) flatten_shape_types(&inst->ret, rts, &nr);
  Op *call = ib_op(&L->b, OP_FUNC_CALL, nv, vals, nr, rts, 0);
  ir_op_set_attr(L->m, call, "callee", attr_sym(L->m, ir_func_name(inst->op)));
  if (ir_op_attr(inst->op, "cooperative")) mark_cooperative(L);
  if (inst->ret.kind == FV_NONE) return (FeVal){.kind = FV_NONE};
  Value **res = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  for (unsigned i = 0; i < nr; i++) res[i] = op_result(call, i);
  unsigned pos = 0;
  return from_shape(L, &inst->ret, res, &pos);
}

/* A kernel argument that is a member of an enum of tuples or strings is its index (kf_arg): one that names no
 * member raises ValueError, as Python's Color(value) would, through the kernel's error record. */
static void check_member_index(Lower *L, const FeVal *v) {
  if (v->kind == FV_TUPLE) {
    for (unsigned i = 0; i < v->tup.n; i++) check_member_index(L, &v->tup.elems[i]);
    return;
  }
  if (v->kind != FV_VAL || !v->enumc || !v->enumc->values || v->is_const) return;
  Value *bad = ib_cmpi(&L->b, "uge", v->v, ib_const_int(&L->b, ty_i64(L->ctx), v->enumc->nvalues));
  Op *c = ib_op(&L->b, OP_RAISE, 1, &bad, 0, NULL, 0);
  ir_op_set_attr(L->m, c, "exception", attr_str(L->m, arena_printf(&L->fe->arena, "ValueError: an argument of %s that is "
                                                                   "not the index of one of its %u members",
                                                                   vname(L, v), v->enumc->nvalues)));
}

/* ---- closures ----------------------------------------------------------------------------------------------
 * An inner def or a lambda is a device function of its own (FN_DEVICE, `outer` the function it is defined in),
 * specialised per call like any other, whose captured variables (its free names that are locals of the enclosing
 * function) are extra parameters after its own. Called where it is defined, it gets their values at the call,
 * as Python reads cells (Numba inlines such calls, reading the variables there). Passed to another function it
 * escapes: as Numba's MakeFunctionToJitFunction, each captured variable must then have one definition, a
 * constant, which goes with it (part of the callee's specialisation). Its default values are evaluated where it
 * is defined. Numba refuses `nonlocal` (the statement stays unsupported) and functions as results. */

/* The function an inner def (or a lambda's synthetic def) of L's function defines, made once per definition. */
static FeFunc *inner_func(Lower *L, const void *key, const PyStmt *def, const char *name) {
  FeFunc *f = ptrmap_get(&L->fe->inner_funcs, key);
  if (f) return f;
  f = ARENA_NEW(&L->fe->arena, FeFunc);
  const FeFunc *o = L->fn;
  f->def = def;
  f->name = name;
  f->py_name = name;
  f->sym = arena_printf(&L->fe->arena, "%s__%s", o->sym, def->kind == ST_FUNCDEF && key == def ? name : "lambda");
  f->src = o->src;
  f->kind = FN_DEVICE;
  f->loc = f->deco_loc = def->loc;
  f->lazy = true;
  f->fastmath = o->fastmath;
  f->debug = o->debug;
  f->lineinfo = o->lineinfo;
  f->opt = o->opt;
  f->cache = -1;
  f->outer = L->fn;
  const char **free;
  unsigned nfree = sema_free_names(L->fe, def, &free);
  f->captures = ARENA_ARRAY(&L->fe->arena, const char *, nfree ? nfree : 1);
  for (unsigned i = 0; i < nfree; i++)
    if (sema_local_index(L->fn, free[i]) >= 0) f->captures[f->ncaptures++] = free[i];
  ptrmap_put(&L->fe->inner_funcs, key, f);
  return f;
}

/* The closure value of an inner def or lambda, its defaults evaluated here. */
static FeVal make_closure(Lower *L, FeFunc *f) {
  const PyParams *ps = &f->def->funcdef.params;
  FeClosure *c = ARENA_NEW(&L->fe->arena, FeClosure);
  c->fn = f;
  FeVal *defaults = ARENA_ARRAY(&L->fe->arena, FeVal, ps->n ? ps->n : 1);
  if (!params_supported(L, ps)) return poison();
  for (unsigned i = 0; i < ps->n; i++) {
    const PyParam *p = ps->items[i];
    defaults[i] = (FeVal){.kind = FV_UNDEF};
    if (!p->defval) continue;
    defaults[i] = lower_expr(L, p->defval);
    if (defaults[i].kind == FV_POISON) return poison();
    defaults[i].literal = false;
  }
  c->defaults = defaults;
  return (FeVal){.kind = FV_CLOSURE, .clo = c};
}

/* Numba makes a closure's cells where it is defined, from the variables stored so far (in the order Python compiles
 * the body): one that reads a variable assigned only later, itself included (a self-recursive inner def), is
 * refused as numba-cuda's interpreter refuses it. False after a located error. */
static bool cells_bound(Lower *L, const FeFunc *f, const void *site, SrcLoc loc) {
  for (unsigned k = 0; k < f->ncaptures; k++) {
    const char *name = f->captures[k];
    if (sema_bound_before(L->fn, name, site)) continue;
    if (site == f->def && strcmp(name, f->name) == 0)
      lerr(L, loc, "a self-recursive inner function is not supported: '%s' reads its own name, which is not yet bound "
                   "where it is defined (numba-cuda: Unsupported use of cell variable encountered); define it at "
                   "module level with @cuda.jit(device=True)", f->name);
    else
      lerr(L, loc, "'%s' reads '%s', which is assigned only after it is defined here: not supported (numba-cuda: "
                   "Unsupported use of cell variable encountered); assign '%s' before defining '%s'", f->name, name,
           name, f->name);
    return false;
  }
  return true;
}

static void lower_funcdef(Lower *L, const PyStmt *s) {
  if (s->funcdef.decorators.n) {
    lerr(L, s->funcdef.decorators.items[0]->loc, "a decorated function cannot be defined inside a kernel or device "
                                                 "function: define it at module level (an undecorated inner def is "
                                                 "compiled with the function that defines it)");
    PyExpr target = {.kind = EX_NAME, .loc = s->funcdef.name_loc, .name = s->funcdef.name};
    assign(L, &target, poison(), s->loc);
    return;
  }
  if (s->funcdef.is_async) {
    lerr(L, s->loc, "async functions are not supported in kernels");
    return;
  }
  FeFunc *f = inner_func(L, s, s, s->funcdef.name);
  FeVal v = cells_bound(L, f, s, s->funcdef.name_loc) ? make_closure(L, f) : poison();
  PyExpr target = {.kind = EX_NAME, .loc = s->funcdef.name_loc, .name = s->funcdef.name};
  assign(L, &target, v, s->loc);
}

/* A lambda: the closure of a def made of it (`def <lambda>(params): return body`), made once per lambda. */
static FeVal lower_lambda(Lower *L, const PyExpr *e) {
  FeFunc *f = ptrmap_get(&L->fe->inner_funcs, e);
  if (!f) {
    PyStmt *ret = ARENA_NEW(&L->fe->arena, PyStmt);
    ret->kind = ST_RETURN;
    ret->loc = e->lambda.body->loc;
    ret->end_line = ret->loc.line;
    ret->value = e->lambda.body;
    PyStmt *def = ARENA_NEW(&L->fe->arena, PyStmt);
    def->kind = ST_FUNCDEF;
    def->loc = e->loc;
    def->end_line = e->loc.line;
    def->funcdef.name = "<lambda>";
    def->funcdef.name_loc = e->loc;
    def->funcdef.params = e->lambda.params;
    def->funcdef.body.items = ARENA_ARRAY(&L->fe->arena, PyStmt *, 1);
    def->funcdef.body.items[0] = ret;
    def->funcdef.body.n = 1;
    f = inner_func(L, e, def, "<lambda>");
  }
  if (!cells_bound(L, f, e, e->loc)) return poison();
  return make_closure(L, f);
}

/* The values of a closure's captured variables at a call in the function that defines it (their current values:
 * Python's cells); false after a located error. */
static bool captured_here(Lower *L, const FeClosure *c, const PyExpr *e, FeVal *out) {
  for (unsigned k = 0; k < c->fn->ncaptures; k++) {
    const char *name = c->fn->captures[k];
    int i = sema_local_index(L->fn, name);
    if (i < 0 || L->env[i].kind == FV_UNDEF) {
      lerr(L, e->loc, "free variable '%s' referenced before assignment in enclosing scope (it is read by '%s')", name,
           c->fn->name);
      return false;
    }
    if (L->env[i].kind == FV_POISON) return false;
    check_bound(L, (unsigned)i, e->loc);
    out[k] = L->env[i];
    out[k].literal = false;
  }
  return true;
}

/* A closure passed to another function: its captured variables' values go with it, constants with one definition
 * each (Numba's conditions for a function that may escape), as do its defaults. */
static bool closure_snapshot(Lower *L, const FeVal *v, FeVal *out, SrcLoc loc) {
  const FeClosure *c = v->clo;
  FeFunc *f = c->fn;
  const PyParams *ps = &f->def->funcdef.params;
  for (unsigned i = 0; i < ps->n; i++) {
    const FeVal *d = &c->defaults[i];
    if (d->kind != FV_UNDEF && !is_static(d) && !(d->kind == FV_VAL && d->is_const)) {
      lerr(L, ps->items[i]->defval->loc, "the default value of '%s' of '%s' must be a constant: '%s' is passed to "
                                         "another function (it may escape)", ps->items[i]->name, f->name, f->name);
      return false;
    }
  }
  if (c->captured) {
    *out = *v;
    return true;
  }
  if (L->fn != f->outer) {
    lerr(L, loc, "cannot pass %s here", vname(L, v));
    return false;
  }
  FeVal *cap = ARENA_ARRAY(&L->fe->arena, FeVal, f->ncaptures ? f->ncaptures : 1);
  for (unsigned k = 0; k < f->ncaptures; k++) {
    const char *name = f->captures[k];
    int i = sema_local_index(L->fn, name);
    if (sema_definitions(L->fn, name) > 1) {
      lerr(L, loc, "Cannot capture a constant value for variable '%s' as there are multiple definitions present "
                   "('%s' is passed to another function: it may escape)", name, f->name);
      return false;
    }
    const FeVal *x = &L->env[i];
    if (x->kind == FV_POISON) return false;
    bool param = (unsigned)i < L->fn->def->funcdef.params.n || (unsigned)i < L->inst->nparams;
    if (param || !(x->kind == FV_VAL && x->is_const)) {
      lerr(L, loc, "Cannot capture the non-constant value associated with variable '%s' in a function that may "
                   "escape ('%s' is passed to another function)", name, f->name);
      return false;
    }
    cap[k] = *x;
    cap[k].literal = false;
  }
  FeClosure *snap = ARENA_NEW(&L->fe->arena, FeClosure);
  *snap = *c;
  snap->captured = cap;
  *out = (FeVal){.kind = FV_CLOSURE, .clo = snap};
  return true;
}

/* A call of a closure: its parameters bound as a device function's, then its captured variables' values. */
static FeVal call_closure(Lower *L, const FeClosure *c, const PyExpr *e) {
  FeFunc *f = c->fn;
  const PyParams *ps = &f->def->funcdef.params;
  unsigned np = ps->n, nc = f->ncaptures, va, npo;
  if (np + nc > 64) return lerr(L, e->loc, "device functions with more than 64 parameters are not supported");
  const char **names = ARENA_ARRAY(&L->fe->arena, const char *, 64);
  if (!param_names_of(L, ps, names, &va, &npo)) return poison();
  FeVal *args = ARENA_ARRAY(&L->fe->arena, FeVal, 64);
  const char *fname = f->name;
  if (!bind_args_rest(L, e, fname, names, 0, va, npo, args, va < np ? &args[va] : NULL)) return poison();
  for (unsigned i = 0; i < va; i++) {
    if (args[i].kind != FV_UNDEF) continue;
    if (c->defaults[i].kind == FV_UNDEF) return lerr(L, e->loc, "%s() missing required argument '%s'", fname, names[i]);
    args[i] = c->defaults[i];
  }
  if (c->captured) {
    for (unsigned k = 0; k < nc; k++) args[np + k] = c->captured[k];
  } else if (L->fn == f->outer) {
    if (!captured_here(L, c, e, args + np)) return poison();
  } else {
    return lerr(L, e->loc, "'%s' cannot be called here", fname);
  }
  if (stack_left() < 2 * STACK_RESERVE) return out_of_stack(L, e->loc, "device function calls");
  return instantiate_and_call(L, f, e, args, np + nc);
}

/* A call, given the value f of its callee (lowered by lower_expr's loop over the chain, or by lower_for). */
static FeVal call_of(Lower *L, const PyExpr *e, FeVal f) {
  switch (f.kind) {
  case FV_POISON: return f;
  case FV_BUILTIN: return lower_builtin_call(L, f.builtin, e);
  case FV_NTYPE: {
    FeVal a;
    const char *fname = tname(L, f.type);
    if (!positional(L, e, fname, 1, 1, &a)) return poison();
    if (!is_scalar(&a)) return lerr(L, arg_loc(e, 0), "cannot convert %s to %s", vname(L, &a), fname);
    if (complex_to_real_error(L, &a, f.type, arg_loc(e, 0), "")) return poison();
    at(L, e->loc);
    a.enumc = NULL; /* int32(an IntEnum member): its value */
    FeVal r = conv(L, a, f.type);
    r.literal = false;
    return r;
  }
  case FV_FUNC:
    if (f.func->kind == FN_KERNEL || f.func->kind == FN_DEVICE) return call_device(L, f.func, e);
    return lerr(L, e->loc, "'%s' (a @%s function) cannot be called from a kernel", f.func->name,
                f.func->kind == FN_REDUCE ? "cuda.reduce" : f.func->kind == FN_VECTORIZE ? "vectorize" : "guvectorize");
  case FV_PYFUNC:
    return lerr(L, e->loc, "'%s' is not a device function: decorate it with @cuda.jit(device=True)", f.func->name);
  case FV_METHOD: return lower_method(L, &f, e);
  case FV_CLOSURE: return call_closure(L, f.clo, e);
  case FV_EXCEPTION: { /* an exception instance, to raise (its arguments constants, as Numba infers them) */
    const char *text = exception_text(L, f.str.s, e, e->loc);
    if (!text) return poison();
    FeVal x = {.kind = FV_EXCINST};
    x.str.s = text;
    x.str.len = strlen(text);
    return x;
  }
  default: return lerr(L, e->loc, "%s is not callable", vname(L, &f));
  }
}

/* ---- expressions ----------------------------------------------------------------------------------------------- */

/* (a, b, ...) and [a, b, ...]: a tuple of values (the elements' array in the arena, off the recursion's frames). */
static FeVal lower_tuple(Lower *L, const PyExpr *e) {
  if (e->elts.n > MAX_FLAT) return lerr(L, e->loc, "tuples of more than %d elements are not supported", MAX_FLAT);
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, e->elts.n ? e->elts.n : 1);
  for (unsigned i = 0; i < e->elts.n; i++) {
    if (e->elts.items[i]->kind == EX_STARRED) return lerr(L, e->elts.items[i]->loc, "starred expressions are not supported in kernels");
    elems[i] = lower_expr(L, e->elts.items[i]);
    if (elems[i].kind == FV_POISON) return poison();
    elems[i].literal = false;
  }
  return user_tuple(L, e->elts.n, elems, e->loc);
}

/* One link of a chain (ast_chain_next), given the value of its first operand. */
static FeVal chain_link(Lower *L, const PyExpr *e, FeVal first) {
  at(L, e->loc);
  switch (e->kind) {
  case EX_BINARY: {
    FeVal b = lower_expr(L, e->binary.rhs);
    return binop(L, e->binary.op, first, b, e->binary.op_loc);
  }
  case EX_ATTRIBUTE: return attribute_of(L, e, first);
  case EX_SUBSCRIPT: return subscript_of(L, e, first);
  default: return call_of(L, e, first);
  }
}

static FeVal lower_leaf(Lower *L, const PyExpr *e);

/* An expression. Chains (ast_chain_next) are walked by a loop, so `1 + 1 + ... + 1` of any length takes no
 * stack; the remaining recursion (right operands, arguments, brackets) is bounded by the parser's depth limit,
 * and by the thread's stack (stack.h): near its end, a located error. */
static FeVal lower_expr(Lower *L, const PyExpr *e) {
  if (stack_exhausted()) return out_of_stack(L, e->loc, "expression");
  if (!ast_chain_next(e)) return lower_leaf(L, e);
  size_t n;
  const PyExpr **chain = ast_chain(&L->fe->arena, e, &n);
  if (!chain) return lerr(L, e->loc, "out of memory");
  FeVal v = lower_leaf(L, ast_chain_next(chain[n - 1]));
  while (n) v = chain_link(L, chain[--n], v);
  return v;
}

/* An expression that continues no chain. */
static FeVal lower_leaf(Lower *L, const PyExpr *e) {
  at(L, e->loc);
  switch (e->kind) {
  case EX_NAME: return lower_name(L, e);
  case EX_INT: {
    if (e->intlit.big == 2) return lerr(L, e->loc, "integer literal %.*s is too large for 64 bits", (int)e->intlit.len, e->intlit.text);
    FeVal v = cint(e->intlit.big ? ty_int(L->ctx, 64, true) : ty_i64(L->ctx), e->intlit.value);
    v.nonneg = e->intlit.big || e->intlit.value >= 0;
    v.literal = true;
    return v;
  }
  case EX_FLOAT: {
    FeVal v = cfloat(ty_f64(L->ctx), e->fval);
    v.literal = true;
    return v;
  }
  case EX_BOOL: {
    FeVal v = cbool(L, e->bval);
    v.literal = true;
    return v;
  }
  case EX_NONE: return (FeVal){.kind = FV_NONE};
  case EX_STR: {
    FeVal v = {.kind = FV_STR};
    v.str.s = e->str.s;
    v.str.len = e->str.len;
    return v;
  }
  case EX_COMPLEX: { /* an imaginary literal: complex128, real part +0.0 */
    at(L, e->loc);
    Type *t = ty_complex(L->ctx, ty_f64(L->ctx));
    return val(t, complex_make(L, ib_const_float(&L->b, t->elem, 0), ib_const_float(&L->b, t->elem, e->fval), t));
  }
  case EX_UNARY: {
    FeVal a = lower_expr(L, e->unary.operand);
    return unop(L, e->unary.op, a, e->loc);
  }
  case EX_BOOLOP: return lower_boolop(L, e);
  case EX_COMPARE: return lower_compare(L, e);
  case EX_IFEXP: return lower_ifexp(L, e);
  case EX_TUPLE:
  case EX_LIST: return lower_tuple(L, e);
  case EX_SLICE: return lerr(L, e->loc, "a slice can only index an array");
  case EX_FSTRING: return lerr(L, e->loc, "f-strings are not supported in kernels");
  case EX_LAMBDA: return lower_lambda(L, e);
  default:
    return lerr(L, e->loc, "%s is not supported in kernels", ast_expr_kind_name(e->kind));
  }
}

/* ---- assignment ------------------------------------------------------------------------------------------------- */

/* The element a subscript target `a[i, ...]` names (assignment and augmented assignment): its array and i64
 * indices, wrapped and bounds-checked by index_array; *array is the subscripted value. With sub, fewer indices than
 * the rank give the sub-array (*sub an FV_VIEW; else FV_NONE); without, they are an error. False after a located
 * error. */
static bool item_target(Lower *L, const PyExpr *t, FeVal *array, Value **base, Value **idx, FeVal *sub,
                        bool partial_ok) {
  sub->kind = FV_NONE;
  FeVal a = *array = lower_expr(L, t->subscript.value);
  if (a.kind == FV_POISON) return false;
  if (a.kind == FV_TUPLE) {
    lerr(L, t->loc, "tuples are immutable: cannot assign to an element");
    return false;
  }
  if (a.kind == FV_RECORD) { /* r['x'] (or r[0]): a scalar field, else a whole nested record or array */
    FeVal f = record_item(L, &a, t->subscript.index, base, idx);
    if (f.kind == FV_POISON) return false;
    if (f.kind != FV_VAL) *sub = f;
    return true;
  }
  if (!is_array(&a) && a.kind != FV_VIEW) {
    lerr(L, t->loc, "%s does not support item assignment", vname(L, &a));
    return false;
  }
  FeVal ix[32];
  unsigned n;
  bool views;
  if (!gather_indices(L, t->subscript.index, ix, &n, &views)) return false;
  if (views) { /* a[s] of a slice object s: the element, or the view (to store into, not augmented) */
    FeVal r = index_view_values(L, a, ix, n, t->subscript.index, t->loc, base, idx);
    if (r.kind != FV_VAL) return false;
    if (r.v && !partial_ok) {
      lerr(L, t->loc, "augmented assignment to a slice of an array is not supported in kernels (it is an array "
                      "expression)");
      return false;
    }
    if (r.v) *sub = r;
    else if (ty_is_record((*base)->type->elem)) *sub = record_ref(L, *base, idx);
    return true;
  }
  FeVal r = index_array(L, &a, ix, n, t->loc, !partial_ok, base, idx);
  if (r.kind == FV_VIEW) { /* a[i] of a 2-d a: the sub-array */
    *sub = r;
    return true;
  }
  if (r.kind != FV_VAL) return false;
  if (ty_is_record((*base)->type->elem)) *sub = record_ref(L, *base, idx); /* a[i] = record */
  return true;
}

/* The field a target `r.name` names (assignment and augmented assignment), as item_target does. */
static bool field_target(Lower *L, const PyExpr *t, Value **base, Value **idx, FeVal *composite) {
  composite->kind = FV_NONE;
  FeVal r = lower_expr(L, t->attribute.value);
  if (r.kind == FV_POISON) return false;
  if (r.kind == FV_VECTOR) {
    lerr(L, t->attribute.attr_loc, "the fields of %s are immutable: cannot assign to '.%s' (numba-cuda's vector "
                                   "types are read-only after construction)", vname(L, &r), t->attribute.attr);
    return false;
  }
  if (r.kind != FV_RECORD) {
    lerr(L, t->attribute.attr_loc, "cannot assign to attribute '%s' of %s in a kernel", t->attribute.attr, vname(L, &r));
    return false;
  }
  FeVal f = record_field(L, &r, t->attribute.attr, strlen(t->attribute.attr), t->attribute.attr_loc, base, idx);
  if (f.kind == FV_POISON) return false;
  if (f.kind != FV_VAL) *composite = f;
  return true;
}

static void assign(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc) {
  switch (t->kind) {
  case EX_NAME: {
    int i = sema_local_index(L->fn, t->name);
    v.literal = false;
    if (i >= 0) {
      L->env[i] = v;
      L->env[bound_slot(L, (unsigned)i)] = cbool(L, true);
      note_type(L, (unsigned)i, &v);
    }
    return;
  }
  case EX_TUPLE:
  case EX_LIST: {
    if (v.kind == FV_POISON) {
      for (unsigned k = 0; k < t->elts.n; k++) assign(L, t->elts.items[k], v, vloc);
      return;
    }
    for (unsigned k = 0; k < t->elts.n; k++)
      if (t->elts.items[k]->kind == EX_STARRED) {
        lerr(L, t->elts.items[k]->loc, "starred assignment targets are not supported in kernels");
        return;
      }
    if (v.kind != FV_TUPLE) {
      lerr(L, t->loc, "cannot unpack %s into %u values", vname(L, &v), t->elts.n);
      for (unsigned k = 0; k < t->elts.n; k++) assign(L, t->elts.items[k], poison(), vloc);
      return;
    }
    if (v.tup.n != t->elts.n) {
      if (v.tup.n > t->elts.n) lerr(L, t->loc, "too many values to unpack (expected %u, got %u)", t->elts.n, v.tup.n);
      else lerr(L, t->loc, "not enough values to unpack (expected %u, got %u)", t->elts.n, v.tup.n);
      for (unsigned k = 0; k < t->elts.n; k++) assign(L, t->elts.items[k], poison(), vloc);
      return;
    }
    for (unsigned k = 0; k < t->elts.n; k++) assign(L, t->elts.items[k], v.tup.elems[k], vloc);
    return;
  }
  case EX_SUBSCRIPT: {
    if (is_view_index(t->subscript.index)) {
      assign_view(L, t, v, vloc);
      return;
    }
    FeVal a, sub;
    Value *base, *idx[32];
    if (!item_target(L, t, &a, &base, idx, &sub, true) || v.kind == FV_POISON) return;
    if (sub.kind == FV_RECORD || is_nested_view(&sub)) { /* a whole record, or a record's nested array */
      assign_composite(L, &sub, v, t->loc, vloc);
      return;
    }
    if (sub.kind == FV_VIEW || is_array(&sub)) { /* a[i] = row of a 2-d a, a[s] = x: the sub-array as a view */
      at(L, t->loc);
      FeVal dst = view_value(L, &sub);
      store_into(L, dst.v, v, vloc);
      return;
    }
    if (!is_scalar(&v)) {
      lerr(L, vloc, "cannot store %s into an element of %s", vname(L, &v), tname(L, a.type));
      return;
    }
    if (complex_to_real_error(L, &v, base->type->elem, vloc, " to store it into an element")) return;
    at(L, t->loc);
    store_element(L, base, idx, conv_v(L, v, base->type->elem));
    return;
  }
  case EX_ATTRIBUTE: { /* a field of a record (a CUDA vector's are read-only) */
    FeVal whole;
    Value *base, *idx[32];
    if (!field_target(L, t, &base, idx, &whole) || v.kind == FV_POISON) return;
    if (whole.kind != FV_NONE) {
      assign_composite(L, &whole, v, t->loc, vloc);
      return;
    }
    if (!is_scalar(&v)) {
      lerr(L, vloc, "cannot store %s into a field of type %s", vname(L, &v), tname(L, base->type->elem));
      return;
    }
    if (complex_to_real_error(L, &v, base->type->elem, vloc, " to store it into a field")) return;
    at(L, t->loc);
    store_element(L, base, idx, conv_v(L, v, base->type->elem));
    return;
  }
  case EX_STARRED: lerr(L, t->loc, "starred assignment targets are not supported in kernels"); return;
  default: lerr(L, t->loc, "cannot assign to %s", ast_expr_kind_name(t->kind)); return;
  }
}

static void lower_augassign(Lower *L, const PyStmt *s) {
  const PyExpr *t = s->augassign.target;
  if (t->kind == EX_NAME) {
    FeVal cur = lower_name(L, t);
    FeVal rhs = lower_expr(L, s->augassign.value);
    FeVal r = binop(L, s->augassign.op, cur, rhs, s->augassign.op_loc);
    assign(L, t, r, s->augassign.value->loc);
    return;
  }
  if (t->kind == EX_SUBSCRIPT || t->kind == EX_ATTRIBUTE) {
    FeVal a = poison(), whole = {.kind = FV_NONE};
    Value *base, *idx[32];
    if (t->kind == EX_ATTRIBUTE) {
      if (!field_target(L, t, &base, idx, &whole)) return;
      a = val(base->type, base);
    } else if (is_view_index(t->subscript.index)) {
      a = lower_expr(L, t->subscript.value);
      if (a.kind == FV_POISON) return;
      if (!is_array(&a) && a.kind != FV_VIEW) {
        lerr(L, t->loc, "%s does not support item assignment", vname(L, &a));
        return;
      }
      FeVal r = index_view(L, a, t->subscript.index, t->loc, &base, idx);
      if (r.kind != FV_VAL) return;
      if (r.v) {
        lerr(L, s->augassign.op_loc, "augmented assignment to a slice of an array is not supported in kernels (it is an "
                                     "array expression)");
        return;
      }
    } else if (!item_target(L, t, &a, &base, idx, &whole, false)) {
      return;
    }
    if (whole.kind != FV_NONE) {
      lerr(L, s->augassign.op_loc, "invalid augmented assignment: %s is a record or nested array, not a number",
           vname(L, &whole));
      return;
    }
    FeVal old = load_element(L, base, idx);
    FeVal rhs = lower_expr(L, s->augassign.value);
    FeVal nv = binop(L, s->augassign.op, old, rhs, s->augassign.op_loc);
    if (nv.kind == FV_POISON) return;
    if (!is_scalar(&nv)) {
      lerr(L, s->augassign.value->loc, "cannot store %s into an element of %s", vname(L, &nv), tname(L, a.type));
      return;
    }
    if (complex_to_real_error(L, &nv, base->type->elem, s->augassign.op_loc, " to store it into an element")) return;
    at(L, t->loc);
    store_element(L, base, idx, conv_v(L, nv, base->type->elem));
    return;
  }
  lerr(L, t->loc, "cannot assign to %s", ast_expr_kind_name(t->kind));
}

/* ---- statement sequences --------------------------------------------------------------------------------- */

typedef struct StmtSeq {
  PyStmt *const *s;
  unsigned n;
} StmtSeq;

static void seq_fn(Lower *L, void *arg) {
  StmtSeq *q = arg;
  lower_stmts(L, q->s, q->n);
}

/* ---- loop analysis ------------------------------------------------------------------------------------------ */

static void ue_operands(Lower *L, const PyExpr *e, const bool *def, bool *ue);

/* Marks in ue the locals e reads that def does not hold. The order of the reads does not matter (def is not
 * changed), so chains (ast_chain_next) are followed by the loop, not by recursion. */
static void ue_expr(Lower *L, const PyExpr *e, const bool *def, bool *ue) {
  if (e && stack_exhausted()) {
    out_of_stack(L, e->loc, "expression");
    return;
  }
  for (; e; e = ast_chain_next(e)) ue_operands(L, e, def, ue);
}

/* What ue_expr marks for e's operands but the one continuing its chain. */
typedef struct UeWalk {
  Lower *L;
  const bool *def;
  bool *ue;
} UeWalk;

static void ue_operand(const PyExpr *e, void *arg) {
  const UeWalk *w = arg;
  ue_expr(w->L, e, w->def, w->ue);
}

static void ue_operands(Lower *L, const PyExpr *e, const bool *def, bool *ue) {
  if (e->kind == EX_NAME) {
    int i = sema_local_index(L->fn, e->name);
    if (i >= 0 && !def[i]) ue[i] = true;
    return;
  }
  UeWalk w = {L, def, ue};
  ast_expr_operands(e, ue_operand, &w);
}

static void ue_target(Lower *L, const PyExpr *t, bool *def, bool *ue) {
  switch (t->kind) {
  case EX_NAME: {
    int i = sema_local_index(L->fn, t->name);
    if (i >= 0) def[i] = true;
    break;
  }
  case EX_TUPLE:
  case EX_LIST:
    for (unsigned i = 0; i < t->elts.n; i++) ue_target(L, t->elts.items[i], def, ue);
    break;
  case EX_STARRED: ue_target(L, t->value, def, ue); break;
  default: ue_expr(L, t, def, ue); break;
  }
}

static bool *bools(Lower *L, const bool *src) {
  unsigned n = L->fn->nlocals ? L->fn->nlocals : 1;
  bool *b = ARENA_ARRAY(&L->fe->arena, bool, n);
  if (src) memcpy(b, src, n);
  return b;
}

/* Marks in ue the locals read in l before any assignment on the path to the read. */
static void ue_stmts(Lower *L, const PyStmtList *l, bool *def, bool *ue) {
  unsigned n = L->fn->nlocals;
  for (unsigned k = 0; k < l->n; k++) {
    const PyStmt *s = l->items[k];
    switch (s->kind) {
    case ST_EXPR: ue_expr(L, s->expr, def, ue); break;
    case ST_ASSIGN:
      ue_expr(L, s->assign.value, def, ue);
      for (unsigned t = 0; t < s->assign.targets.n; t++) ue_target(L, s->assign.targets.items[t], def, ue);
      break;
    case ST_AUGASSIGN:
      ue_expr(L, s->augassign.value, def, ue);
      ue_expr(L, s->augassign.target, def, ue);
      ue_target(L, s->augassign.target, def, ue);
      break;
    case ST_ANNASSIGN:
      if (s->annassign.value) {
        ue_expr(L, s->annassign.value, def, ue);
        ue_target(L, s->annassign.target, def, ue);
      }
      break;
    case ST_RETURN: ue_expr(L, s->value, def, ue); break;
    case ST_IF: {
      ue_expr(L, s->if_.test, def, ue);
      bool *d1 = bools(L, def), *d2 = bools(L, def);
      ue_stmts(L, &s->if_.body, d1, ue);
      ue_stmts(L, &s->if_.orelse, d2, ue);
      for (unsigned i = 0; i < n; i++) def[i] = d1[i] && d2[i];
      break;
    }
    case ST_FOR: {
      ue_expr(L, s->for_.iter, def, ue);
      bool *d = bools(L, def);
      ue_target(L, s->for_.target, d, ue);
      ue_stmts(L, &s->for_.body, d, ue);
      ue_stmts(L, &s->for_.orelse, bools(L, def), ue);
      break;
    }
    case ST_WHILE: {
      ue_expr(L, s->while_.test, def, ue);
      ue_stmts(L, &s->while_.body, bools(L, def), ue);
      ue_stmts(L, &s->while_.orelse, bools(L, def), ue);
      break;
    }
    default: break;
    }
  }
}

static void assigned_target(Lower *L, const PyExpr *t, bool *a) {
  if (t->kind == EX_NAME) {
    int i = sema_local_index(L->fn, t->name);
    if (i >= 0) a[i] = true;
  } else if (t->kind == EX_TUPLE || t->kind == EX_LIST) {
    for (unsigned i = 0; i < t->elts.n; i++) assigned_target(L, t->elts.items[i], a);
  } else if (t->kind == EX_STARRED) {
    assigned_target(L, t->value, a);
  }
}

static void assigned_in(Lower *L, const PyStmtList *l, bool *a) {
  for (unsigned k = 0; k < l->n; k++) {
    const PyStmt *s = l->items[k];
    switch (s->kind) {
    case ST_ASSIGN:
      for (unsigned t = 0; t < s->assign.targets.n; t++) assigned_target(L, s->assign.targets.items[t], a);
      break;
    case ST_AUGASSIGN: assigned_target(L, s->augassign.target, a); break;
    case ST_ANNASSIGN:
      if (s->annassign.value) assigned_target(L, s->annassign.target, a);
      break;
    case ST_IF: assigned_in(L, &s->if_.body, a); assigned_in(L, &s->if_.orelse, a); break;
    case ST_FOR:
      assigned_target(L, s->for_.target, a);
      assigned_in(L, &s->for_.body, a);
      assigned_in(L, &s->for_.orelse, a);
      break;
    case ST_WHILE: assigned_in(L, &s->while_.body, a); assigned_in(L, &s->while_.orelse, a); break;
    default: break;
    }
  }
}

/* ---- loops -------------------------------------------------------------------------------------------------------- */

typedef enum { LOOP_FOR, LOOP_WHILE_RANGE, LOOP_WHILE } LoopKind;

typedef struct LoopSpec {
  const PyStmt *s;
  LoopKind kind;
  const PyExpr *target;
  const PyStmtList *body, *orelse;
  const PyExpr *test;
  Type *ivt;
  Value *lb, *ub, *step;  /* the i64 loop kfront runs (range_loop_bounds: an unsigned range's is biased) */
  FeVal stepv;
  bool iv_nonneg;
  Value *ubias;           /* uint64 range, constant step < 2**63: the item is iv ^ ubias (MIN), else NULL */
  Value *ustart, *ustep;  /* uint64 range, other steps: the item is ustart + (iv ^ MIN) * ustep, else NULL */
  IbRange range;          /* LOOP_WHILE_RANGE: its tests (ir/builder.c) */
  FeVal iter_array; /* for x in arr: the array (kind FV_VAL/FV_VIEW), else FV_POISON */
  const struct Iter *iter; /* for x in zip(...) / enumerate(...): the item of iteration iv */
  bool has_break, has_ret;
} LoopSpec;

/* ---- iterables: range(), arrays, tuples, zip(), enumerate() ------------------------------------------------------- */

/* What a for loop iterates over, when zip() or enumerate() is involved: runtime iterables are walked by one counter
 * k from 0 to len (zip ends with its shortest iterable), each item computed from k; tuples only (IT_TUPLE and zips
 * and enumerates of them) make a tuple of the items at compile time, and the loop is unrolled. */
typedef enum { IT_RANGE, IT_ARRAY, IT_TUPLE, IT_ENUMERATE, IT_ZIP } IterKind;
typedef struct Iter {
  IterKind kind;
  Value *len;              /* runtime iterables: the number of items (i64) */
  Type *ivt;               /* IT_RANGE: the items' type (Numba's range typing) */
  FeVal start, step;       /* IT_RANGE: in ivt; IT_ENUMERATE: start (int64) */
  FeVal value;             /* IT_ARRAY: the array or FV_VIEW; IT_TUPLE: the tuple */
  struct Iter *kids;       /* IT_ENUMERATE: 1; IT_ZIP: nkids */
  unsigned nkids;
} Iter;

static bool range_bounds(Lower *L, const PyExpr *call, Type **ivt, FeVal *start, FeVal *stop, FeVal *step);

/* Python's number of items of range(start, stop, step) in ivt (Numba's range type), exactly, as an unsigned
 * 64-bit count in an i64 (up to 2**64 - 1: range(MIN, MAX) has that many); a step of 0 (a run-time one: range()
 * refuses a constant 0 at compile time) raises ValueError, as in Python. */
static Value *range_count(Lower *L, Type *ivt, FeVal start, FeVal stop, FeVal step) {
  Type *i64 = ty_i64(L->ctx);
  Value *a = conv_v(L, start, i64), *b = conv_v(L, stop, i64), *st = conv_v(L, step, i64);
  Value *zero = ib_const_int(&L->b, i64, 0), *one = ib_const_int(&L->b, i64, 1);
  if (!step.is_const) view_value_check(&L->b, ib_cmpi(&L->b, "ne", st, zero), "range() arg 3 must not be zero");
  Value *span, *mag, *nonempty;
  if (ivt->is_unsigned) { /* a uint64 step is positive, however large */
    span = ib_binary(&L->b, OP_SUBI, b, a);
    mag = st;
    nonempty = ib_cmpi(&L->b, "ult", a, b);
  } else {
    Value *pos = ib_cmpi(&L->b, "sgt", st, zero);
    span = ib_select(&L->b, pos, ib_binary(&L->b, OP_SUBI, b, a), ib_binary(&L->b, OP_SUBI, a, b));
    mag = ib_select(&L->b, pos, st, ib_binary(&L->b, OP_SUBI, zero, st)); /* |MIN| is 2**63, unsigned */
    nonempty = ib_select(&L->b, pos, ib_cmpi(&L->b, "slt", a, b), ib_cmpi(&L->b, "sgt", a, b));
  }
  /* (span - 1) / |step| + 1 items, in unsigned arithmetic (span < 2**64 when the range is not empty) */
  Value *safe = ib_select(&L->b, ib_cmpi(&L->b, "eq", mag, zero), one, mag);
  Value *n = ib_binary(&L->b, OP_ADDI, ib_binary(&L->b, OP_DIVUI, ib_binary(&L->b, OP_SUBI, span, one), safe), one);
  return ib_select(&L->b, nonempty, n, zero);
}

static bool iter_static(const Iter *it) {
  if (it->kind == IT_TUPLE) return true;
  if (it->kind != IT_ENUMERATE && it->kind != IT_ZIP) return false;
  for (unsigned i = 0; i < it->nkids; i++)
    if (!iter_static(&it->kids[i])) return false;
  return it->nkids > 0;
}

/* The iterable e: a call of range(), zip() or enumerate() (their arguments iterables in turn), or a value (an array,
 * a view, a tuple). False after a located error. */
static bool build_iter(Lower *L, const PyExpr *e, Iter *out, unsigned depth) {
  memset(out, 0, sizeof *out);
  if (depth > 32) {
    lerr(L, e->loc, "iterables nested too deeply");
    return false;
  }
  Type *i64 = ty_i64(L->ctx);
  FeVal callee = e->kind == EX_CALL ? lower_expr(L, e->call.func) : poison();
  if (e->kind == EX_CALL && callee.kind == FV_BUILTIN &&
      (callee.builtin == BI_RANGE || callee.builtin == BI_ZIP || callee.builtin == BI_ENUMERATE)) {
    const char *fname = sema_builtin_name(callee.builtin);
    if (callee.builtin == BI_RANGE) {
      FeVal stop;
      out->kind = IT_RANGE;
      if (!range_bounds(L, e, &out->ivt, &out->start, &stop, &out->step)) return false;
      at(L, e->loc);
      /* the number of items, at most INT64_MAX (more could never be walked) */
      out->len = ib_binary(&L->b, OP_MINUI, range_count(L, out->ivt, out->start, stop, out->step),
                           ib_const_int(&L->b, i64, INT64_MAX));
      return true;
    }
    if (e->call.nkeywords) {
      lerr(L, e->call.keywords[0]->loc, "%s() takes no keyword arguments", fname);
      return false;
    }
    unsigned n = e->call.args.n;
    for (unsigned i = 0; i < n; i++)
      if (e->call.args.items[i]->kind == EX_STARRED) {
        lerr(L, e->call.args.items[i]->loc, "*args in calls are not supported in kernels");
        return false;
      }
    if (callee.builtin == BI_ENUMERATE) {
      if (n < 1 || n > 2) {
        lerr(L, e->loc, "enumerate() takes 1 or 2 arguments but %u were given", n);
        return false;
      }
      out->kind = IT_ENUMERATE;
      out->kids = ARENA_NEW(&L->fe->arena, Iter);
      out->nkids = 1;
      if (!build_iter(L, e->call.args.items[0], out->kids, depth + 1)) return false;
      out->start = cint(i64, 0);
      if (n == 2) {
        FeVal st = lower_expr(L, e->call.args.items[1]);
        if (st.kind == FV_POISON) return false;
        if (!is_scalar(&st) || st.type->kind != TY_INT) {
          lerr(L, e->call.args.items[1]->loc, "Only integers supported as start value in enumerate, not %s", vname(L, &st));
          return false;
        }
        at(L, e->loc);
        out->start = conv(L, st, i64);
      }
      out->len = out->kids->len;
      return true;
    }
    out->kind = IT_ZIP;
    out->kids = ARENA_ARRAY(&L->fe->arena, Iter, n ? n : 1);
    out->nkids = n;
    for (unsigned i = 0; i < n; i++)
      if (!build_iter(L, e->call.args.items[i], &out->kids[i], depth + 1)) return false;
    bool any_static = false, all_static = n > 0;
    for (unsigned i = 0; i < n; i++) {
      any_static |= iter_static(&out->kids[i]);
      all_static &= iter_static(&out->kids[i]);
    }
    if (any_static && !all_static) {
      lerr(L, e->loc, "zip() of tuples and of arrays or ranges together is not supported by kfront");
      return false;
    }
    if (all_static) return true;
    at(L, e->loc);
    out->len = n ? out->kids[0].len : ib_const_int(&L->b, i64, 0);
    for (unsigned i = 1; i < n; i++) out->len = ib_binary(&L->b, OP_MINSI, out->len, out->kids[i].len);
    return true;
  }
  FeVal v = e->kind == EX_CALL ? call_of(L, e, callee) : lower_expr(L, e);
  if (v.kind == FV_POISON) return false;
  if (v.kind == FV_TUPLE) {
    out->kind = IT_TUPLE;
    out->value = v;
    return true;
  }
  if (!is_array(&v) && v.kind != FV_VIEW) {
    lerr(L, e->loc, "kfront can iterate over range(), arrays, tuples, zip() and enumerate(), not %s", vname(L, &v));
    return false;
  }
  at(L, e->loc);
  out->kind = IT_ARRAY;
  out->value = v;
  Value *arr = v.kind == FV_VIEW ? v.tup.elems[0].v : v.v;
  out->len = ib_dim(&L->b, arr, v.kind == FV_VIEW ? v.tup.n - 1 : 0);
  return true;
}

/* The items of a static iterable (iter_static), as a tuple. */
static FeVal static_items(Lower *L, const Iter *it) {
  if (it->kind == IT_TUPLE) return it->value;
  if (it->kind == IT_ENUMERATE) {
    FeVal kid = static_items(L, it->kids);
    FeVal *items = ARENA_ARRAY(&L->fe->arena, FeVal, kid.tup.n ? kid.tup.n : 1);
    for (unsigned i = 0; i < kid.tup.n; i++) {
      FeVal pair[2] = {cint(ty_i64(L->ctx), it->start.c.i + (int64_t)i), kid.tup.elems[i]};
      if (!it->start.is_const) pair[0] = val(ty_i64(L->ctx), ib_binary(&L->b, OP_ADDI, mat(L, &it->start),
                                                                        ib_const_int(&L->b, ty_i64(L->ctx), i)));
      items[i] = make_tuple(L, 2, pair);
    }
    return make_tuple(L, kid.tup.n, items);
  }
  FeVal *kids = ARENA_ARRAY(&L->fe->arena, FeVal, it->nkids);
  unsigned n = UINT32_MAX;
  for (unsigned k = 0; k < it->nkids; k++) {
    kids[k] = static_items(L, &it->kids[k]);
    if (kids[k].tup.n < n) n = kids[k].tup.n;
  }
  FeVal *items = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    FeVal *t = ARENA_ARRAY(&L->fe->arena, FeVal, it->nkids);
    for (unsigned k = 0; k < it->nkids; k++) t[k] = kids[k].tup.elems[i];
    items[i] = make_tuple(L, it->nkids, t);
  }
  return make_tuple(L, n, items);
}

/* The item of iteration k (i64, 0 <= k < it->len) of a runtime iterable. */
static FeVal iter_item(Lower *L, const Iter *it, Value *k, SrcLoc loc) {
  Type *i64 = ty_i64(L->ctx);
  switch (it->kind) {
  case IT_RANGE: {
    Value *x = ib_binary(&L->b, OP_ADDI, conv_v(L, it->start, i64), ib_binary(&L->b, OP_MULI, k, conv_v(L, it->step, i64)));
    FeVal r = conv(L, val(i64, x), it->ivt);
    r.nonneg = it->ivt->is_unsigned || (it->start.nonneg && (it->step.nonneg || (it->step.is_const && it->step.c.i > 0)));
    return r;
  }
  case IT_ARRAY: {
    FeVal ix = val(i64, k);
    ix.nonneg = true;
    Value *base, *idx[32];
    FeVal v = index_array(L, &it->value, &ix, 1, loc, false, &base, idx);
    return v.kind == FV_VAL ? load_element(L, base, idx) : v;
  }
  case IT_ENUMERATE: {
    FeVal pair[2] = {val(i64, ib_binary(&L->b, OP_ADDI, conv_v(L, it->start, i64), k)), iter_item(L, it->kids, k, loc)};
    pair[0].nonneg = it->start.nonneg;
    return make_tuple(L, 2, pair);
  }
  case IT_ZIP: {
    FeVal *items = ARENA_ARRAY(&L->fe->arena, FeVal, it->nkids ? it->nkids : 1);
    for (unsigned i = 0; i < it->nkids; i++) items[i] = iter_item(L, &it->kids[i], k, loc);
    return make_tuple(L, it->nkids, items);
  }
  default: return poison(); /* (IT_TUPLE: static, unrolled) */
  }
}

/* The loop variable's value for iteration index iv (i64). */
static void assign_target_iv(Lower *L, const LoopSpec *ls, Value *iv) {
  FeVal v;
  if (ls->iter) {
    at(L, ls->s->for_.iter->loc);
    v = iter_item(L, ls->iter, iv, ls->s->for_.iter->loc);
  } else if (ls->iter_array.kind == FV_VAL || ls->iter_array.kind == FV_VIEW) {
    FeVal ix = val(ty_i64(L->ctx), iv);
    ix.nonneg = true;
    Value *base, *idx[32];
    at(L, ls->s->for_.iter->loc);
    v = index_array(L, &ls->iter_array, &ix, 1, ls->s->for_.iter->loc, false, &base, idx);
    if (v.kind == FV_VAL) v = load_element(L, base, idx);
  } else {
    at(L, ls->s->loc);
    Type *i64 = ty_i64(L->ctx);
    if (ls->ubias) iv = ib_binary(&L->b, OP_XORI, iv, ls->ubias);
    if (ls->ustart)
      iv = ib_binary(&L->b, OP_ADDI, ls->ustart,
                     ib_binary(&L->b, OP_MULI, ib_binary(&L->b, OP_XORI, iv, ib_const_int(&L->b, i64, INT64_MIN)), ls->ustep));
    v = conv(L, val(i64, iv), ls->ivt);
    v.nonneg = ls->iv_nonneg;
  }
  assign(L, ls->target, v, ls->s->loc);
}

typedef struct NotFlagsArg {
  const PyExpr *test;
} NotFlagsArg;

static FeVal while_test(Lower *L, void *arg) { return lower_cond(L, ((NotFlagsArg *)arg)->test); }

static void lower_loop(Lower *L, LoopSpec *ls) {
  const PyStmt *s = ls->s;
  unsigned nv = L->nvars, nl = L->fn->nlocals;
  bool wform = ls->kind != LOOP_FOR;
  Type *i64 = ty_i64(L->ctx), *i1 = ty_bool(L->ctx);
  FeVal *env0 = env_copy(L);
  FeVal outer_brk = env0[L->v_brk], outer_cont = env0[L->v_cont];
  unsigned ivvar = 0;
  if (ls->kind == LOOP_WHILE_RANGE) {
    if (L->niv == MAX_HIDDEN_IV) {
      lerr(L, s->loc, "loops with break nested more than %d deep are not supported", MAX_HIDDEN_IV);
      return;
    }
    ivvar = L->v_iv0 + L->niv++;
    env0[ivvar] = val(i64, ls->lb);
    /* the hidden iv holds the next item, or ub once there is none (its test then fails) */
    ls->range = ib_range_init(&L->b, ls->ub, ls->step, ls->stepv.nonneg ? 1 : 0);
  }
  if (wform) env0[L->v_brk] = cbool(L, false);
  /* which variables go around the loop */
  bool *assigned = bools(L, NULL), *ue = bools(L, NULL), *def = bools(L, NULL);
  if (ls->target) assigned_target(L, ls->target, assigned);
  assigned_in(L, ls->body, assigned);
  if (ls->test) ue_expr(L, ls->test, def, ue);
  if (ls->target) ue_target(L, ls->target, def, ue);
  ue_stmts(L, ls->body, def, ue);
  unsigned here = L->frame->k;
  bool *carry = ARENA_ARRAY(&L->fe->arena, bool, nv);
  for (unsigned i = 0; i < nl; i++) {
    carry[i] = assigned[i] && (ue[i] || var_live(L, i, here + 1));
    carry[bound_slot(L, i)] = carry[i] && !is_true(&env0[bound_slot(L, i)]);
  }
  /* what the body frame sees after its end: the next iteration, and the else clause */
  bool *loop_ue = bools(L, ue);
  if (ls->orelse) ue_stmts(L, ls->orelse, bools(L, NULL), loop_ue);
  if (wform) {
    carry[L->v_brk] = ls->has_break;
    carry[L->v_ret] = ls->has_ret;
    carry[L->v_rv] = ls->has_ret && !L->kernel;
    if (ls->kind == LOOP_WHILE_RANGE) carry[ivvar] = true;
  }
  Type **T = ARENA_ARRAY(&L->fe->arena, Type *, nv);
  bool *NN = ARENA_ARRAY(&L->fe->arena, bool, nv); /* integers assumed >= 0 at the loop head (verified) */
  const FeEnum **E = ARENA_ARRAY(&L->fe->arena, const FeEnum *, nv); /* enum members at the head (as T) */
  for (unsigned i = 0; i < nv; i++) {
    T[i] = carry[i] && env0[i].kind != FV_UNDEF ? fv_type(L, &env0[i]) : NULL;
    NN[i] = carry[i] && env0[i].kind == FV_VAL && env0[i].nonneg && T[i] && T[i]->kind == TY_INT;
    E[i] = env0[i].kind == FV_VAL ? env0[i].enumc : NULL;
  }
  if (wform && ls->has_break) T[L->v_brk] = i1;
  if (wform && ls->has_ret) T[L->v_ret] = i1;
  /* compile-time values (functions, closures...) around the loop: one value on every iteration, none carried */
  FeVal *S = ARENA_ARRAY(&L->fe->arena, FeVal, nv);
  for (unsigned i = 0; i < nv; i++)
    S[i] = carry[i] && is_static(&env0[i]) ? env0[i] : (FeVal){.kind = FV_UNDEF};

  LoopCtx lc = {L->loop};
  int base_quiet = L->quiet;
  bool loud = false;
  IrBuilder saved = L->b;
  unsigned saved_pending = L->pending_loop;
  Op *op = NULL;
  FeVal *env_end = NULL;
  Block *yblock = NULL;
  Value **fallback = NULL;
  unsigned notes0 = L->nnotes;
  for (unsigned attempt = 0;; attempt++) {
    L->quiet = base_quiet + (loud ? 0 : 1);
    unsigned sup0 = L->suppressed;
    L->nnotes = notes0;
    L->b = saved;
    at(L, s->loc);
    /* initial values */
    Value **inits = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
    Type **rt = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
    unsigned ninit = 0, nrt = 0;
    env_set(L, env0);
    for (unsigned i = 0; i < nv; i++) {
      if (!carry[i] || !T[i]) continue;
      unsigned before = ninit;
      if (!flatten_to(L, &env0[i], T[i], inits, &ninit, NULL, s->loc, var_name(L, i))) {
        L->quiet = base_quiet;
        L->b = saved;
        if (ls->kind == LOOP_WHILE_RANGE) L->niv--;
        return;
      }
      (void)before;
      flat_types(L->ctx, T[i], rt, &nrt);
    }
    Block *body = ir_block_new(L->m);
    Block *before = NULL;
    if (!wform) {
      Value **ops = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT + 3);
      ops[0] = ls->lb;
      ops[1] = ls->ub;
      ops[2] = ls->step;
      memcpy(ops + 3, inits, sizeof(Value *) * ninit);
      op = ib_op(&L->b, OP_FOR, 3 + ninit, ops, nrt, rt, 1);
      ir_region_append_block(&op->regions[0], body);
      ir_block_add_arg(L->m, body, i64);
    } else {
      op = ib_op(&L->b, OP_WHILE, ninit, inits, nrt, rt, 2);
      before = ir_block_new(L->m);
      ir_region_append_block(&op->regions[0], before);
      ir_region_append_block(&op->regions[1], body);
      for (unsigned i = 0; i < nrt; i++) ir_block_add_arg(L->m, before, rt[i]);
    }
    for (unsigned i = 0; i < nrt; i++) ir_block_add_arg(L->m, body, rt[i]);
    unsigned first_arg = wform ? 0 : 1;
    /* the before-region of a while: the condition */
    if (wform) {
      ib_set_end(&L->b, before);
      unsigned pos = 0;
      for (unsigned i = 0; i < nv; i++)
        if (carry[i] && T[i]) {
          L->env[i] = unflatten(L, T[i], before->args, &pos);
          L->env[i].nonneg = NN[i];
          if (L->env[i].kind == FV_VAL) L->env[i].enumc = E[i];
        } else if (carry[i] && S[i].kind != FV_UNDEF) {
          L->env[i] = S[i];
        }
      L->loop = &lc;
      at(L, s->loc);
      FeVal go = cbool(L, true);
      if (ls->has_break || ls->has_ret) {
        Value *f = NULL;
        if (ls->has_break) f = L->env[L->v_brk].v;
        if (ls->has_ret && L->env[L->v_ret].v) f = f ? ib_binary(&L->b, OP_ORI, f, L->env[L->v_ret].v) : L->env[L->v_ret].v;
        if (f) go = val(i1, ib_binary(&L->b, OP_XORI, f, ib_const_bool(&L->b, true)));
      }
      FeVal user;
      if (ls->kind == LOOP_WHILE_RANGE) {
        user = val(i1, ib_range_in(&L->b, &ls->range, L->env[ivvar].v));
        go = go.is_const ? user : val(i1, ib_binary(&L->b, OP_ANDI, go.v, user.v));
      } else {
        NotFlagsArg a = {ls->test};
        go = lazy_and(L, go, while_test, &a, false, ls->test->loc);
      }
      at(L, s->loc);
      Value **cops = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT + 1);
      cops[0] = go.kind == FV_VAL ? mat(L, &go) : ib_const_bool(&L->b, false);
      for (unsigned i = 0; i < nrt; i++) cops[1 + i] = before->args[i];
      ib_op(&L->b, OP_CONDITION, 1 + nrt, cops, 0, NULL, 0);
    }
    /* the body */
    ib_set_end(&L->b, body);
    env_set(L, env0);
    unsigned pos = 0;
    for (unsigned i = 0; i < nv; i++)
      if (carry[i] && T[i]) {
        L->env[i] = unflatten(L, T[i], body->args + first_arg, &pos);
        L->env[i].nonneg = NN[i];
        if (L->env[i].kind == FV_VAL) L->env[i].enumc = E[i];
      } else if (carry[i] && S[i].kind != FV_UNDEF) {
        L->env[i] = S[i];
      }
    if (wform) {
      L->env[L->v_brk] = cbool(L, false);
      if (ls->has_ret) L->env[L->v_ret] = cbool(L, false);
    }
    L->env[L->v_cont] = cbool(L, false);
    L->loop = &lc;
    L->pending_loop = 0;
    L->next_loop_ue = loop_ue;
    if (ls->kind == LOOP_FOR) {
      assign_target_iv(L, ls, body->args[0]);
    } else if (ls->kind == LOOP_WHILE_RANGE) {
      Value *iv = L->env[ivvar].v;
      at(L, s->loc);
      Value *next, *more = ib_range_step(&L->b, &ls->range, iv, &next);
      L->env[ivvar] = val(i64, ib_select(&L->b, more, next, ls->ub));
      assign_target_iv(L, ls, iv);
    }
    lower_stmts(L, ls->body->items, ls->body->n);
    L->loop = lc.outer;
    L->pending_loop = saved_pending;
    env_end = env_copy(L);
    yblock = body;
    fallback = body->nargs > first_arg ? body->args + first_arg : NULL; /* a loop may carry nothing */
    /* stable? */
    bool changed = false;
    Type **Tn = ARENA_ARRAY(&L->fe->arena, Type *, nv);
    for (unsigned i = 0; i < nv; i++) {
      Tn[i] = T[i];
      if (!carry[i]) continue;
      FeVal *x = &env_end[i];
      if (x->kind == FV_UNDEF || x->kind == FV_POISON) continue;
      if (NN[i] && !x->nonneg) {
        NN[i] = false;
        changed = true;
      }
      if (is_static(x) || S[i].kind != FV_UNDEF) {
        FeVal head = T[i] ? (FeVal){.kind = FV_VAL, .type = T[i]} : S[i], m;
        if (merge_static(L, &head, x, s->loc, var_name(L, i), &m) < 0) {
          if (!L->quiet) S[i] = poison(); /* reported (a quiet attempt is made again aloud) */
        } else if (S[i].kind == FV_UNDEF) {
          S[i] = m;
          changed = true;
        }
        continue;
      }
      Type *xt = fv_type(L, x);
      if (!xt) {
        lerr(L, s->loc, "'%s' cannot be carried around a loop: it holds %s", var_name(L, i), vname(L, x));
        carry[i] = false;
        continue;
      }
      const FeEnum *xe = x->kind == FV_VAL ? x->enumc : NULL;
      if (xe != E[i]) { /* enum members around the loop: one class, or (IntEnum) integers */
        FeVal head = T[i] ? (FeVal){.kind = FV_VAL, .type = T[i], .enumc = E[i]} : (FeVal){.kind = FV_UNDEF};
        const FeEnum *m;
        if (!merge_enum(L, &head, x, s->loc, var_name(L, i), &m)) continue;
        if (m != E[i]) {
          E[i] = m;
          changed = true;
        }
      }
      Type *nt = T[i] ? nb_unify(L->ctx, T[i], xt) : xt;
      if (!nt) {
        lerr(L, s->loc, "cannot unify %s and %s for '%s' around this loop", tname(L, T[i]), tname(L, xt), var_name(L, i));
        continue;
      }
      if (nt != T[i]) {
        Tn[i] = nt;
        changed = true;
      }
    }
    bool held_back = L->suppressed > sup0;
    if ((changed && attempt < 32) || (held_back && base_quiet == 0 && !loud)) {
      ir_op_drop_uses(op);
      ir_op_unlink(op);
      if (changed) T = Tn;
      else loud = true;
      L->suppressed = sup0;
      continue;
    }
    break;
  }
  L->quiet = base_quiet;
  /* the yield and the results */
  ib_set_end(&L->b, yblock);
  Value **yv = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  unsigned ny = 0;
  for (unsigned i = 0; i < nv; i++) {
    if (!carry[i] || !T[i]) continue;
    unsigned before = ny;
    if (!flatten_to(L, &env_end[i], T[i], yv, &ny, fallback + before, s->loc, var_name(L, i))) {
      ny = before;
      Type **ft = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
      unsigned nt = 0;
      flat_types(L->ctx, T[i], ft, &nt);
      for (unsigned k = 0; k < nt; k++) yv[ny++] = fallback[before + k];
    }
  }
  at(L, s->loc);
  ib_op(&L->b, OP_YIELD, ny, yv, 0, NULL, 0);
  L->b = saved;
  ib_set_after(&L->b, op);
  env_set(L, env0);
  Value **res = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  for (unsigned i = 0; i < op->nresults && i < MAX_FLAT; i++) res[i] = op_result(op, i);
  unsigned pos = 0;
  for (unsigned i = 0; i < nv; i++) {
    if (carry[i] && T[i]) {
      L->env[i] = unflatten(L, T[i], res, &pos);
      L->env[i].nonneg = NN[i];
      if (L->env[i].kind == FV_VAL) L->env[i].enumc = E[i];
      note_type(L, i, &L->env[i]);
    } else if (carry[i] && S[i].kind != FV_UNDEF) {
      L->env[i] = S[i];
    } else if (i < nl && assigned[i]) {
      L->env[i] = (FeVal){.kind = FV_UNDEF};
    }
  }
  if (ls->kind == LOOP_WHILE_RANGE) {
    L->env[ivvar] = (FeVal){.kind = FV_UNDEF};
    L->niv--;
  }
  /* for/while ... else: runs unless the loop was left by break (or return) */
  if (ls->orelse && ls->orelse->n) {
    FeVal skip = cbool(L, false);
    if (wform && ls->has_break) skip = L->env[L->v_brk];
    if (wform && ls->has_ret && L->env[L->v_ret].v)
      skip = skip.v ? val(i1, ib_binary(&L->b, OP_ORI, skip.v, L->env[L->v_ret].v)) : L->env[L->v_ret];
    /* the else clause belongs to the enclosing loop: a break or continue in it is that loop's */
    L->env[L->v_brk] = outer_brk;
    L->env[L->v_cont] = outer_cont;
    if (skip.is_const) {
      if (!skip.c.i) lower_stmts(L, ls->orelse->items, ls->orelse->n);
    } else {
      StmtSeq q = {ls->orelse->items, ls->orelse->n};
      emit_if(L, skip.v, 0, here + 1, s->loc, NULL, NULL, seq_fn, &q);
    }
    return;
  }
  L->env[L->v_brk] = outer_brk;
  L->env[L->v_cont] = outer_cont;
}

/* range(...)'s type (Numba's) and bounds, converted to it. False after a located error. */
static bool range_bounds(Lower *L, const PyExpr *call, Type **ivt, FeVal *start, FeVal *stop, FeVal *step) {
  FeVal a[3];
  if (!positional(L, call, "range", 1, 3, a)) return false;
  unsigned n = call->call.args.n;
  for (unsigned i = 0; i < n; i++)
    if (!is_scalar(&a[i]) || a[i].type->kind == TY_FLOAT) {
      lerr(L, arg_loc(call, i), "range() arguments must be integers, not %s", vname(L, &a[i]));
      return false;
    }
  const NbCase *c = resolve_fn(L, BI_RANGE, a, n, "range", call->loc);
  if (!c) return false;
  *ivt = nb_type(L->ctx, c->ret);
  at(L, call->loc);
  *start = n == 1 ? cint(*ivt, 0) : conv(L, a[0], *ivt);
  *stop = conv(L, a[n == 1 ? 0 : 1], *ivt);
  *step = n == 3 ? conv(L, a[2], *ivt) : cint(*ivt, 1);
  if (step->is_const && step->c.i == 0) {
    lerr(L, arg_loc(call, 2), "range() arg 3 must not be zero");
    return false;
  }
  return true;
}

/* A loop over a tuple's items: unrolled. */
static void unroll_tuple(Lower *L, const PyStmt *s, const LoopSpec *ls, FeVal seq) {
  if (ls->has_break || ls->has_ret || sema_exits((const PyStmt *const *)s->for_.body.items, s->for_.body.n) != EXIT_NEVER) {
    lerr(L, s->loc, "break, continue and return in a loop over a tuple are not supported by kfront");
    return;
  }
  for (unsigned i = 0; i < seq.tup.n; i++) {
    assign(L, s->for_.target, seq.tup.elems[i], s->loc);
    lower_stmts(L, s->for_.body.items, s->for_.body.n);
  }
  lower_stmts(L, s->for_.orelse.items, s->for_.orelse.n);
}

static void lower_for(Lower *L, const PyStmt *s) {
  const PyExpr *it = s->for_.iter;
  LoopSpec ls = {.s = s, .target = s->for_.target, .body = &s->for_.body, .orelse = &s->for_.orelse};
  ls.iter_array = poison();
  ls.has_break = sema_contains_break(&s->for_.body);
  ls.has_ret = sema_contains_return(&s->for_.body);
  ls.kind = ls.has_break || ls.has_ret ? LOOP_WHILE_RANGE : LOOP_FOR;
  if (s->for_.is_async) {
    lerr(L, s->loc, "async for is not supported in kernels");
    return;
  }
  Type *i64 = ty_i64(L->ctx);
  FeVal start, stop, step;
  FeVal callee = it->kind == EX_CALL ? lower_expr(L, it->call.func) : poison();
  if (it->kind == EX_CALL && callee.kind == FV_BUILTIN && callee.builtin == BI_RANGE) {
    if (!range_bounds(L, it, &ls.ivt, &start, &stop, &step)) return;
    /* a step known to be >= 0 is > 0: range() rejects 0 */
    ls.iv_nonneg = ls.ivt->is_unsigned || (((step.is_const && step.c.i > 0) || step.nonneg) && start.nonneg) ||
                   (step.is_const && step.c.i < 0 && stop.is_const && stop.c.i >= -1);
  } else if (it->kind == EX_CALL && callee.kind == FV_BUILTIN && (callee.builtin == BI_ZIP || callee.builtin == BI_ENUMERATE)) {
    /* zip() and enumerate(): one counter over the items (of tuples only: unrolled) */
    Iter *iter = ARENA_NEW(&L->fe->arena, Iter);
    if (!build_iter(L, it, iter, 0)) return;
    if (iter_static(iter)) {
      unroll_tuple(L, s, &ls, static_items(L, iter));
      return;
    }
    ls.iter = iter;
    ls.ivt = i64;
    start = cint(i64, 0);
    stop = val(i64, iter->len);
    step = cint(i64, 1);
    ls.iv_nonneg = true;
  } else {
    FeVal seq = it->kind == EX_CALL ? call_of(L, it, callee) : lower_expr(L, it);
    if (seq.kind == FV_POISON) return;
    if (seq.kind == FV_TUPLE) {
      unroll_tuple(L, s, &ls, seq);
      return;
    }
    if (!is_array(&seq) && seq.kind != FV_VIEW) {
      lerr(L, it->loc, "kfront can iterate over range(), arrays, tuples, zip() and enumerate(), not %s", vname(L, &seq));
      return;
    }
    ls.iter_array = seq;
    ls.ivt = i64;
    at(L, it->loc);
    Value *arr = seq.kind == FV_VIEW ? seq.tup.elems[0].v : seq.v;
    start = cint(i64, 0);
    stop = val(i64, ib_dim(&L->b, arr, seq.kind == FV_VIEW ? seq.tup.n - 1 : 0));
    step = cint(i64, 1);
    ls.iv_nonneg = true;
  }
  at(L, it->loc);
  if (ls.ivt->is_unsigned && !(step.is_const && step.c.i > 0)) {
    /* a uint64 range with a run-time step, or one of 2**63 or more: the loop counts the items, from MIN */
    Value *n = range_count(L, ls.ivt, start, stop, step);
    ls.ustart = conv_v(L, start, i64);
    ls.ustep = conv_v(L, step, i64);
    start = cint(i64, INT64_MIN);
    stop = val(i64, ib_binary(&L->b, OP_XORI, n, ib_const_int(&L->b, i64, INT64_MIN)));
    step = cint(i64, 1);
  } else if (ls.ivt->is_unsigned) {
    /* a uint64 range with a constant step below 2**63: the same loop over the values ^ MIN, whose signed
     * order is the unsigned one */
    ls.ubias = ib_const_int(&L->b, i64, INT64_MIN);
    start = val(i64, ib_binary(&L->b, OP_XORI, conv_v(L, start, i64), ls.ubias));
    stop = val(i64, ib_binary(&L->b, OP_XORI, conv_v(L, stop, i64), ls.ubias));
  } else if (!step.is_const) {
    /* range() raises for a step of 0, as Python does (a constant 0 is refused when compiling) */
    view_value_check(&L->b, ib_cmpi(&L->b, "ne", conv_v(L, step, i64), ib_const_int(&L->b, i64, 0)),
                     "range() arg 3 must not be zero");
  }
  ls.lb = conv_v(L, start, i64);
  ls.ub = conv_v(L, stop, i64);
  ls.stepv = conv(L, step, i64);
  ls.step = mat(L, &ls.stepv);
  lower_loop(L, &ls);
}

static void lower_while(Lower *L, const PyStmt *s) {
  LoopSpec ls = {.s = s, .kind = LOOP_WHILE, .body = &s->while_.body, .orelse = &s->while_.orelse, .test = s->while_.test};
  ls.iter_array = poison();
  ls.has_break = sema_contains_break(&s->while_.body);
  ls.has_ret = sema_contains_return(&s->while_.body);
  lower_loop(L, &ls);
}

/* ---- statements --------------------------------------------------------------------------------------------------- */

static StmtSeq concat(Lower *L, const PyStmtList *a, PyStmt *const *b, unsigned nb) {
  if (!nb) return (StmtSeq){a->items, a->n};
  PyStmt **s = ARENA_ARRAY(&L->fe->arena, PyStmt *, a->n + nb);
  if (a->n) memcpy(s, a->items, sizeof *s * a->n);
  memcpy(s + a->n, b, sizeof *s * nb);
  return (StmtSeq){s, a->n + nb};
}

/* rest_in: 0 none; 1 the statements after the if go into its then-branch; 2 into its else-branch. */
static void lower_if(Lower *L, const PyStmt *s, PyStmt *const *rest, unsigned nrest, int rest_in) {
  FeVal c = lower_cond(L, s->if_.test);
  if (c.kind == FV_POISON) return;
  StmtSeq bt = concat(L, &s->if_.body, rest, rest_in == 1 ? nrest : 0);
  StmtSeq be = concat(L, &s->if_.orelse, rest, rest_in == 2 ? nrest : 0);
  if (c.is_const) {
    StmtSeq *q = c.c.i ? &bt : &be;
    lower_stmts(L, q->s, q->n);
    return;
  }
  emit_if(L, c.v, 0, nrest ? L->frame->n : L->frame->k + 1, s->loc, seq_fn, &bt, seq_fn, &be);
}

static void lower_return(Lower *L, const PyStmt *s) {
  if (s->value && s->value->kind != EX_NONE) {
    FeVal v = lower_expr(L, s->value);
    if (L->kernel) {
      lerr(L, s->value->loc, "a kernel cannot return a value: '%s' is a kernel (use @cuda.jit(device=True) for a "
                             "device function)",
           L->fn->user ? L->fn->user->name : L->fn->name);
    } else if (v.kind != FV_POISON) {
      v.literal = false;
      if (!fv_type(L, &v) && !is_grid_group(&v)) {
        lerr(L, s->value->loc, "a device function can return scalars, arrays, records, grid groups and tuples of them, "
                               "not %s", vname(L, &v));
        v = poison();
      }
      if (!L->has_value_return) L->first_value_return = s->loc;
      L->has_value_return = true;
      L->env[L->v_rv] = v;
      note_return_type(L, &v);
    }
  } else {
    L->has_bare_return = true;
  }
  L->env[L->v_ret] = cbool(L, true);
}

/* ---- raise and assert ------------------------------------------------------------------------------------------
 * As numba-cuda: `raise Cls`, `raise Cls(constant args...)` and `assert cond[, constant message]` take effect
 * when the kernel is compiled with debug=True: the thread raises (check.raise: the kernel's error record, so the
 * host raises that class with its message, located, after the launch). Without debug=True a raise ends the
 * thread silently (numba-cuda's kernels return) and an assert is not compiled. A raise leaves the function as a
 * return does. Device functions raise too; their instances are compiled apart under a debug kernel. Cls is a
 * builtin exception class, one of the source (deriving from one) or one the embedder binds. */


/* The exception class an expression names (NULL after a located error). */
static const char *exception_class(Lower *L, const PyExpr *e) {
  if (e->kind == EX_NAME) {
    if (sema_local_index(L->fn, e->name) >= 0) {
      lerr(L, e->loc, "raising the exception in a variable ('%s') is not supported: raise a class or an instance "
                      "made in the raise statement", e->name);
      return NULL;
    }
    FeVal *g = L->fn->scope ? strmap_get(L->fn->scope, e->name) : fe_lookup(L->fe, L->fn->src, e->name);
    if (!g) {
      if (fe_builtin_exception(e->name)) return e->name;
      lerr(L, e->loc, "name '%s' is not defined", e->name);
      return NULL;
    }
    const char *n = fe_exception_name(g);
    if (!n) lerr(L, e->loc, "'%s' is %s, not an exception class kfront can raise", e->name, vname(L, g));
    return n;
  }
  FeVal v = lower_expr(L, e);
  if (v.kind == FV_POISON) return NULL;
  const char *n = fe_exception_name(&v);
  if (!n) lerr(L, e->loc, "%s is not an exception class kfront can raise", vname(L, &v));
  return n;
}

/* check.raise of text, when cond (i1; NULL: always). */
static void emit_raise(Lower *L, Value *cond, const char *text, SrcLoc loc) {
  at(L, loc);
  Op *op = ib_op(&L->b, OP_RAISE, cond ? 1 : 0, cond ? &cond : NULL, 0, NULL, 0);
  ir_op_set_attr(L->m, op, "exception", attr_str(L->m, text));
  if (!debug_mode(L->fe)) ir_op_set_attr(L->m, op, "silent", attr_unit());
}

/* Whether a raised exception's argument is a compile-time constant (what numba-cuda can raise: its CUDA calling
 * convention has no dynamic exceptions, so a run-time value fails its lowering). */
static bool constant_exc_arg(const FeVal *v) {
  switch (v->kind) {
  case FV_VAL: return v->is_const;
  case FV_STR:
  case FV_NONE: return true;
  case FV_TUPLE:
    for (unsigned i = 0; i < v->tup.n; i++)
      if (!constant_exc_arg(&v->tup.elems[i])) return false;
    return true;
  default: return false;
  }
}

/* raise Cls, raise Cls(args): as above. A bare raise, with no active exception in a kernel (try statements are
 * not part of the language), raises RuntimeError as Python does (numba-cuda compiles it, and its host then fails
 * raising None). `raise X from Y` is refused as Numba refuses it. */
/* The text an exception of class cls made by the call e (NULL: the class alone) is recorded as; NULL after a
 * located error. Its arguments must be constants. */
static const char *exception_text(Lower *L, const char *cls, const PyExpr *e, SrcLoc loc) {
  unsigned n = e ? e->call.args.n : 0;
  if (e && e->call.nkeywords) {
    lerr(L, e->call.keywords[0]->loc, "keyword arguments of a raised exception are not supported");
    return NULL;
  }
  FeVal *args = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    const PyExpr *a = e->call.args.items[i];
    if (a->kind == EX_STARRED) {
      lerr(L, a->loc, "*args in a raised exception are not supported");
      return NULL;
    }
    args[i] = lower_expr(L, a);
    if (args[i].kind == FV_POISON) return NULL;
    if (!constant_exc_arg(&args[i])) {
      lerr(L, a->loc, "the arguments of a raised exception must be compile-time constants: this one is %s, known only "
                      "at run time (numba-cuda cannot raise exceptions with dynamic arguments on CUDA)",
           vname(L, &args[i]));
      return NULL;
    }
  }
  const char *text, *why;
  if (!fe_exception_text(L->fe, cls, args, n, &text, &why)) {
    lerr(L, n ? e->call.args.items[0]->loc : loc, "%s (not supported by kfront)", why);
    return NULL;
  }
  return text;
}

/* raise Cls, raise Cls(args), raise e (a variable holding an instance made with constant arguments, or a class, as
 * Numba infers the constant it was assigned). */
static void lower_raise(Lower *L, const PyStmt *s) {
  const PyExpr *e = s->raise.exc;
  if (!e) {
    emit_raise(L, NULL, "RuntimeError: No active exception to reraise", s->loc);
    L->env[L->v_ret] = cbool(L, true);
    return;
  }
  if (s->raise.cause) {
    lerr(L, s->raise.cause->loc, "raise ... from ...: multiple argument raise is not supported (Numba refuses it; "
                                 "raise the exception alone)");
    return;
  }
  const char *text;
  if (e->kind == EX_NAME && sema_local_index(L->fn, e->name) >= 0) {
    FeVal v = lower_expr(L, e);
    if (v.kind == FV_POISON) return;
    if (v.kind == FV_EXCINST) {
      text = v.str.s;
    } else if (v.kind == FV_EXCEPTION) {
      if (!(text = exception_text(L, v.str.s, NULL, e->loc))) return;
    } else {
      lerr(L, e->loc, "'%s' is %s, not an exception kfront can raise", e->name, vname(L, &v));
      return;
    }
  } else {
    const char *cls = exception_class(L, e->kind == EX_CALL ? e->call.func : e);
    if (!cls || !(text = exception_text(L, cls, e->kind == EX_CALL ? e : NULL, e->loc))) return;
  }
  emit_raise(L, NULL, text, s->loc);
  L->env[L->v_ret] = cbool(L, true); /* the thread leaves the function here */
}

static void lower_assert(Lower *L, const PyStmt *s) {
  if (!debug_mode(L->fe)) return; /* numba-cuda compiles assertions only with debug=True */
  const char *text = "AssertionError", *why;
  if (s->assert_.msg) {
    FeVal m = lower_expr(L, s->assert_.msg);
    if (m.kind == FV_POISON) return;
    if (!fe_exception_text(L->fe, "AssertionError", &m, 1, &text, &why)) {
      lerr(L, s->assert_.msg->loc, "the message of an assert must be a constant (not supported by kfront)");
      return;
    }
  }
  FeVal c = lower_cond(L, s->assert_.test);
  if (c.kind == FV_POISON || is_true(&c)) return;
  at(L, s->loc);
  if (c.is_const) {
    emit_raise(L, NULL, text, s->loc);
    L->env[L->v_ret] = cbool(L, true);
    return;
  }
  emit_raise(L, ib_binary(&L->b, OP_XORI, c.v, ib_const_bool(&L->b, true)), text, s->loc);
}

static void unsupported_stmt(Lower *L, const PyStmt *s) {
  lerr(L, s->loc, "%s is not supported in kernels", ast_stmt_kind_name(s->kind));
}

static void lower_stmt(Lower *L, const PyStmt *s) {
  if (stack_exhausted()) {
    out_of_stack(L, s->loc, "statement");
    return;
  }
  at(L, s->loc);
  switch (s->kind) {
  case ST_EXPR:
    if (s->expr->kind == EX_STR) return; /* docstring */
    lower_expr(L, s->expr);
    return;
  case ST_ASSIGN: {
    const PyExprList *t = &s->assign.targets;
    L->assign_hint = t->n == 1 && t->items[0]->kind == EX_NAME ? t->items[0]->name : NULL;
    FeVal v = lower_expr(L, s->assign.value);
    L->assign_hint = NULL;
    for (unsigned i = 0; i < t->n; i++) assign(L, t->items[i], v, s->assign.value->loc);
    return;
  }
  case ST_ANNASSIGN:
    if (s->annassign.value) {
      L->assign_hint = s->annassign.target->kind == EX_NAME ? s->annassign.target->name : NULL;
      FeVal v = lower_expr(L, s->annassign.value);
      L->assign_hint = NULL;
      assign(L, s->annassign.target, v, s->annassign.value->loc);
    }
    return;
  case ST_AUGASSIGN: lower_augassign(L, s); return;
  case ST_IF: lower_if(L, s, NULL, 0, 0); return;
  case ST_FOR: lower_for(L, s); return;
  case ST_WHILE: lower_while(L, s); return;
  case ST_BREAK:
  case ST_CONTINUE:
    if (!L->loop) {
      lerr(L, s->loc, "'%s' outside a loop", s->kind == ST_BREAK ? "break" : "continue");
      return;
    }
    L->env[s->kind == ST_BREAK ? L->v_brk : L->v_cont] = cbool(L, true);
    return;
  case ST_RETURN: lower_return(L, s); return;
  case ST_PASS: return;
  case ST_ASSERT: lower_assert(L, s); return;
  case ST_RAISE: lower_raise(L, s); return;
  case ST_IMPORT:
  case ST_IMPORTFROM: lerr(L, s->loc, "import inside a kernel is not supported (import at module level)"); return;
  case ST_FUNCDEF: lower_funcdef(L, s); return;
  default: unsupported_stmt(L, s); return;
  }
}

static unsigned flag_bit(Lower *L, unsigned var) { return 1u << (var - L->fn->nlocals); }

/* The condition "some statement before has returned / broken / continued": NULL when none may have;
 * *dead when one certainly has. */
static Value *exit_cond(Lower *L, bool *dead, unsigned *mask) {
  unsigned flags[3] = {L->v_ret, L->v_brk, L->v_cont};
  Value *c = NULL;
  *dead = false;
  *mask = 0;
  for (unsigned k = 0; k < 3; k++) {
    FeVal *f = &L->env[flags[k]];
    if (f->kind != FV_VAL) continue;
    if (f->is_const) {
      if (f->c.i) *dead = true;
      continue;
    }
    *mask |= flag_bit(L, flags[k]);
    c = c ? ib_binary(&L->b, OP_ORI, c, f->v) : f->v;
  }
  return c;
}

static void lower_stmts_in(Lower *L, PyStmt *const *s, unsigned n);

static void lower_stmts(Lower *L, PyStmt *const *s, unsigned n) {
  Frame f = {L->frame, s, n, 0, L->next_loop_ue};
  L->next_loop_ue = NULL;
  L->frame = &f;
  lower_stmts_in(L, s, n);
  L->frame = f.outer;
}

static void lower_stmts_in(Lower *L, PyStmt *const *s, unsigned n) {
  for (unsigned k = 0; k < n; k++) {
    L->frame->k = k;
    const PyStmt *st = s[k];
    bool more = k + 1 < n;
    if (more && st->kind == ST_IF) {
      ExitKind eb = sema_exits((const PyStmt *const *)st->if_.body.items, st->if_.body.n);
      ExitKind eo = sema_exits((const PyStmt *const *)st->if_.orelse.items, st->if_.orelse.n);
      if ((eb == EXIT_ALWAYS && eo == EXIT_NEVER) || (eo == EXIT_ALWAYS && eb == EXIT_NEVER)) {
        at(L, st->loc);
        lower_if(L, st, s + k + 1, n - k - 1, eb == EXIT_ALWAYS ? 2 : 1);
        return;
      }
    }
    if (more) {
      L->pending_fn++;
      L->pending_loop++;
    }
    lower_stmt(L, st);
    if (more) {
      L->pending_fn--;
      L->pending_loop--;
    }
    if (!more) return;
    bool dead;
    unsigned mask;
    at(L, st->loc);
    Value *c = exit_cond(L, &dead, &mask);
    if (dead) return;
    if (c) {
      StmtSeq rest = {s + k + 1, n - k - 1};
      emit_if(L, c, mask, n, s[k + 1]->loc, NULL, NULL, seq_fn, &rest);
      return;
    }
  }
}

/* ---- functions ----------------------------------------------------------------------------------------------------- */

static void param_names(Lower *L, const char *name, const FeVal *shape, Attr *out, unsigned *n) {
  if (shape->kind == FV_VAL && shape->is_const) return; /* a literal argument: no parameter */
  if (shape->kind == FV_VAL) {
    out[(*n)++] = attr_str(L->m, name);
    return;
  }
  if (!has_fields(shape)) return; /* a compile-time value: no parameter */
  for (unsigned i = 0; i < shape->tup.n; i++) {
    const char *sub = shape->kind == FV_VIEW || shape->kind == FV_RECORD
                          ? (i == 0 ? name : arena_printf(&L->fe->arena, "%s.i%u", name, i - 1))
                      : is_slice_obj(shape) ? arena_printf(&L->fe->arena, "%s.%s", name,
                                                           (const char *const[]){"start", "stop", "step"}[i])
                      : shape->kind == FV_VECTOR ? arena_printf(&L->fe->arena, "%s.%c", name, "xyzw"[i])
                                                 : arena_printf(&L->fe->arena, "%s.%u", name, i);
    param_names(L, sub, &shape->tup.elems[i], out, n);
  }
}

/* lower_function with, for a second attempt, the return type its recursive calls take (ret_hint: learnt from a
 * first attempt in which a recursive call came before any value return). */
static FeInst *lower_function_hint(FeCtx *fe, FeFunc *fn, const FeVal *params, unsigned nparams, const char *sym,
                                   bool kernel, bool quiet, const FeSig *declared, Type *ret_hint,
                                   const FeEnum *enum_hint);

FeInst *lower_function(FeCtx *fe, FeFunc *fn, const FeVal *params, unsigned nparams, const char *sym, bool kernel,
                       bool quiet, const FeSig *declared) {
  FeInst *inst = lower_function_hint(fe, fn, params, nparams, sym, kernel, quiet, declared, NULL, NULL);
  if (!inst->rec_unknown) return inst;
  /* a recursive call came before any value return (raise_self: `if x == 1: raise ...; elif x > 0: return
   * raise_self(x - 1); else: return 1`): lowered again, the call taking the type the returns gave */
  Type *hint = inst->ret_so_far;
  const FeEnum *ehint = inst->ret_enum;
  bool top = inst->op && !fe->cur_top;
  for (FeInst **p = &fn->insts; *p; p = &(*p)->next)
    if (*p == inst) {
      *p = inst->next;
      break;
    }
  if (inst->op) {
    ir_op_drop_uses(inst->op);
    ir_op_unlink(inst->op);
  }
  (void)top;
  return lower_function_hint(fe, fn, params, nparams, sym, kernel, quiet, declared, hint, ehint);
}

static FeInst *lower_function_hint(FeCtx *fe, FeFunc *fn, const FeVal *params, unsigned nparams, const char *sym,
                                   bool kernel, bool quiet, const FeSig *declared, Type *ret_hint,
                                   const FeEnum *enum_hint) {
  sema_analyse_function(fe, fn);
  FeInst *inst = ARENA_NEW(&fe->arena, FeInst);
  inst->ret_so_far = ret_hint;
  inst->ret_enum = enum_hint;
  inst->retry = ret_hint != NULL;
  inst->fn = fn;
  inst->nparams = nparams;
  inst->params = ARENA_ARRAY(&fe->arena, FeVal, nparams ? nparams : 1);
  if (nparams) memcpy(inst->params, params, sizeof(FeVal) * nparams);
  StrBuf key;
  sb_init(&key);
  for (unsigned i = 0; i < nparams; i++) {
    if (i) sb_puts(&key, "__");
    shape_key(&params[i], &key);
  }
  if (!kernel && fe->cur_top && debug_mode(fe)) sb_puts(&key, "__dbg"); /* raises differ under a debug kernel */
  inst->key = arena_strdup(&fe->arena, sb_cstr(&key));
  sb_free(&key);
  FeInst **tail = &fn->insts;
  while (*tail) tail = &(*tail)->next;
  *tail = inst;
  inst->in_progress = true;

  Lower L;
  memset(&L, 0, sizeof L);
  L.fe = fe;
  L.ctx = fe->ctx;
  L.m = fe->m;
  L.fn = fn;
  L.inst = inst;
  L.sym = sym;
  L.kernel = kernel;
  L.quiet = quiet ? 1 : 0;
  unsigned nl = fn->nlocals;
  L.v_ret = nl;
  L.v_rv = nl + 1;
  L.v_brk = nl + 2;
  L.v_cont = nl + 3;
  L.v_iv0 = nl + 4;
  L.v_bound0 = nl + 4 + MAX_HIDDEN_IV;
  L.nvars = L.v_bound0 + nl;
  L.env = ARENA_ARRAY(&fe->arena, FeVal, L.nvars);
  for (unsigned i = 0; i < L.nvars; i++) L.env[i] = (FeVal){.kind = FV_UNDEF};
  L.env[L.v_ret] = L.env[L.v_brk] = L.env[L.v_cont] = cbool(&L, false);
  bool checked = fe->opts && fe->opts->bounds_check;
  for (unsigned i = 0; i < nl; i++) L.env[L.v_bound0 + i] = cbool(&L, i < nparams || !checked);
  ib_init(&L.b, fe->m);

  Type **pt = ARENA_ARRAY(&fe->arena, Type *, MAX_FLAT);
  unsigned np = 0;
  for (unsigned i = 0; i < nparams; i++) flatten_shape_types(&params[i], pt, &np);
  if (np > MAX_FLAT) {
    lerr(&L, fn->loc, "too many parameters");
    inst->failed = true;
    inst->in_progress = false;
    return inst;
  }
  SrcLoc floc = user_loc(&L, fn->loc);
  floc.file = fn->src->mfile;
  Op *f = ir_func_create(fe->m, sym, ty_func(fe->ctx, np, pt, 0, NULL), floc);
  bool top = fe->cur_top == NULL;
  if (!top) {
    ir_op_unlink(f);
    ir_op_insert_before(fe->cur_top, f);
  } else {
    fe->cur_top = f;
  }
  inst->op = f;
  L.func_op = f;
  Module *m = fe->m;
  ir_op_set_attr(m, f, kernel ? "kernel" : "device", attr_unit());
  const char *pyname = fn->user ? fn->user->name : fn->py_name ? fn->py_name : fn->name;
  ir_op_set_attr(m, f, "py_name", attr_str(m, pyname));
  if (fn->user) {
    const char *gen = fn->user->kind == FN_REDUCE ? "reduce" : fn->user->kind == FN_VECTORIZE ? "vectorize" : "guvectorize";
    ir_op_set_attr(m, f, "generated", attr_str(m, gen));
    if (fn->user->kind == FN_GUVECTORIZE && fn->user->gu_layout)
      ir_op_set_attr(m, f, "gu_layout", attr_str(m, fn->user->gu_layout));
  }
  Attr *names = ARENA_ARRAY(&fe->arena, Attr, MAX_FLAT);
  unsigned nn = 0;
  for (unsigned i = 0; i < nparams; i++) param_names(&L, fn->locals[i].name, &params[i], names, &nn);
  ir_op_set_attr(m, f, "arg_names", attr_array(m, nn, names));
  /* a kernel taking tuples (their elements are its parameters, flattened): the arguments' own types */
  bool tuples = false;
  for (unsigned i = 0; i < nparams; i++) tuples |= params[i].kind == FV_TUPLE;
  if (kernel && tuples) {
    Attr *ats = ARENA_ARRAY(&fe->arena, Attr, nparams);
    for (unsigned i = 0; i < nparams; i++) ats[i] = attr_type(fv_type(&L, &params[i]));
    ir_op_set_attr(m, f, "arg_types", attr_array(m, nparams, ats));
  }
  const FeFunc *opts = fn->user ? fn->user : fn;
  if (opts->fastmath == 1) ir_op_set_attr(m, f, "fastmath", attr_unit());
  if (opts->debug == 1) ir_op_set_attr(m, f, "debug", attr_unit());
  if (opts->lineinfo == 1) ir_op_set_attr(m, f, "lineinfo", attr_unit());
  if (opts->opt >= 0) ir_op_set_attr(m, f, "opt", attr_int(ty_i64(fe->ctx), opts->opt));
  if (opts->inline_opt) ir_op_set_attr(m, f, "inline", attr_str(m, opts->inline_opt));

  /* a device function declared with signatures returns the declared type */
  if (!kernel && declared && declared->has_ret) {
    L.has_declared_ret = true;
    L.declared_ret = declared->ret;
  } else if (!kernel) {
    for (unsigned s = 0; s < fn->nsigs; s++) {
      const FeSig *sig = &fn->sigs[s];
      bool match = sig->nargs == nparams && sig->has_ret;
      for (unsigned i = 0; i < nparams && match; i++)
        match = (params[i].kind == FV_VAL || params[i].kind == FV_TUPLE) && fv_type(&L, &params[i]) == sig->args[i];
      if (match) {
        L.has_declared_ret = true;
        L.declared_ret = sig->ret;
        break;
      }
    }
  }

  inst->has_decl_ret = L.has_declared_ret;
  inst->decl_ret = L.declared_ret;
  Block *entry = ir_func_entry(f);
  unsigned pos = 0;
  for (unsigned i = 0; i < nparams; i++) {
    L.env[i] = from_shape(&L, &params[i], entry->args, &pos);
    note_type(&L, i, &L.env[i]);
  }
  ib_set_end(&L.b, entry);
  at(&L, fn->loc);
  for (unsigned i = 0; i < nparams; i++) {
    if (L.env[i].kind != FV_VAL || !ty_is_record(L.env[i].type)) continue;
    /* a record parameter: the record it refers to, element 0 of its array of one */
    Type *t = ty_array(fe->ctx, L.env[i].type, 1, LAYOUT_C);
    Value *rv = L.env[i].v, *zero[1];
    Value *arr = op_result(ib_op(&L.b, OP_RECORD_ARRAY, 1, &rv, 1, &t, 0), 0);
    zero[0] = ib_const_int(&L.b, ty_i64(fe->ctx), 0);
    L.env[i] = record_ref(&L, arr, zero);
  }
  if (kernel)
    for (unsigned i = 0; i < nparams; i++) check_member_index(&L, &L.env[i]);
  const PyStmtList *body = &fn->def->funcdef.body;
  if (fn->def->funcdef.is_async) lerr(&L, fn->loc, "async functions cannot be kernels");
  lower_stmts(&L, body->items, body->n);

  ib_set_end(&L.b, entry);
  at(&L, fn->loc);
  Type **rts = ARENA_ARRAY(&fe->arena, Type *, MAX_FLAT);
  unsigned nr = 0;
  Value **rvals = ARENA_ARRAY(&fe->arena, Value *, MAX_FLAT);
  unsigned nrv = 0;
  inst->ret = (FeVal){.kind = FV_NONE};
  if (!kernel && L.has_value_return && L.has_declared_ret && !L.declared_ret) {
    lerr(&L, L.first_value_return, "'%s' is declared to return void but returns a value", fn->name);
  } else if (!kernel && (L.has_value_return || (L.has_declared_ret && L.declared_ret))) {
    FeVal rv = L.env[L.v_rv];
    Type *rt = L.has_declared_ret && L.declared_ret ? L.declared_ret : fv_type(&L, &rv);
    if (!L.has_value_return) {
      lerr(&L, fn->loc, "'%s' is declared to return %s but has no return statement", fn->name, tname(&L, L.declared_ret));
    } else if (L.has_bare_return || !is_true(&L.env[L.v_ret])) {
      lerr(&L, L.first_value_return,
           "'%s' returns a value on some paths but not on all of them (kfront does not support Optional results)",
           fn->name);
    } else if (is_grid_group(&rv) && !(L.has_declared_ret && L.declared_ret)) {
      inst->ret = rv; /* a compile-time value: no results (the callee's this_grid() made it cooperative) */
    } else if (rt && rv.kind != FV_POISON) {
      flat_types(L.ctx, rt, rts, &nr);
      if (flatten_to(&L, &rv, rt, rvals, &nrv, NULL, L.first_value_return, "<return value>")) {
        inst->ret = shape_of_type(&L, rt);
        if (!(L.has_declared_ret && L.declared_ret)) copy_enums(&inst->ret, &rv);
      } else
        nr = nrv = 0;
    }
  }
  ib_op(&L.b, OP_FUNC_RETURN, nrv, rvals, 0, NULL, 0);
  if (inst->rec_unknown && (L.errors || inst->retry || !inst->ret_so_far)) {
    /* a recursive call no return statement typed, and none to learn from: runaway recursion */
    inst->rec_unknown = false;
    lerr(&L, inst->rec_loc, "cannot type infer runaway recursion: '%s' calls itself and no return statement gives its "
                            "result type; declare its signature (e.g. @cuda.jit(\"int64(int64)\", device=True))",
         fn->name);
  }
  if (!L.errors && !inst->rec_unknown) check_recursive_return(&L, inst->ret.kind == FV_NONE ? NULL : fv_type(&L, &inst->ret));
  if (nr) {
    ir_op_set_attr(m, f, "function_type", attr_type(ty_func(fe->ctx, np, pt, nr, rts)));
    inst->nresults = nr;
  }
  inst->in_progress = false;
  if (top) fe->cur_top = NULL;
  if (inst->tainted && !inst->rec_unknown) { /* lowered again with the instance it depends on: dropped quietly */
    inst->failed = true;
    ir_op_drop_uses(f);
    ir_op_unlink(f);
    inst->op = NULL;
    return inst;
  }
  if (!L.errors && !(quiet && L.suppressed) && !inst->rec_unknown) {
    report_notes(&L);
    report_raw_prints(&L);
  }
  if (L.errors || (quiet && L.suppressed)) {
    inst->failed = true;
    if (quiet || !top) {
      ir_op_drop_uses(f);
      ir_op_unlink(f);
      inst->op = NULL;
    }
  }
  return inst;
}
