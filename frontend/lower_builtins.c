/* lower_builtins.c — calls of builtins: lower_builtin_call binds a call's arguments as its frontend/builtins.def row
 * says and calls the row's lowering function (the families of their own tables after); Python's builtins; print();
 * the operator module; literal_unroll. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend/lower.h"

/* ---- calls: Python builtins ---------------------------------------------------------------------------------- */

/* ---- print ------------------------------------------------------------------------------------------------------ */

/* One item of print(): its format text (numba-cuda's printimpl: %lld for signed integers, %llu for unsigned, %f
 * for floats, True/False for booleans, strings as they are, tuples "(a, b)" and "(a,)", cuda.threadIdx and its kin
 * "(x, y, z)") into fmt, its values into ops. False after a located error (complex numbers among them: numba-cuda
 * has no print of them). */
static bool print_item(Lower *L, const FeVal *v, SrcLoc loc, StrBuf *fmt, Value **ops, unsigned *n, unsigned depth) {
  Type *i64 = ty_i64(L->ctx);
  if (*n >= MAX_FLAT || depth > FE_MAX_NESTING) {
    lw_lerr(L, loc, "print() of more than %d values is not supported", MAX_FLAT);
    return false;
  }
  if (is_complex(v) || is_time(v)) { /* numba-cuda's print_item has no complex or datetime implementation */
    lw_lerr(L, loc, "printing a %s is not supported in kernels (numba-cuda: \"printing unimplemented for values of type "
                 "%s\"%s)", tname(L, v->type), tname(L, v->type), is_time(v) ? "; print int(x)" : "; print its .real and .imag");
    return false;
  }
  if (is_scalar(v)) {
    Type *t = v->type;
    if (t->kind == TY_BOOL) {
      sb_puts(fmt, "%s");
      ops[(*n)++] = lw_mat(L, v);
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
  lw_lerr(L, loc, "printing %s is not supported in kernels (print() takes numbers, booleans, strings, tuples of them and "
               "cuda.threadIdx and its kin, as Numba's CUDA target does)", lw_vname(L, v));
  return false;
}

/* print(*items): one gpu.print of the items' formats joined by spaces and a newline (vprintf on the GPU). More
 * than 32 items, as in Numba: the format itself is printed, with a warning. */
static FeVal lower_print(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)bi, (void)unbound;
  if (e->call.nkeywords)
    return lw_lerr(L, e->call.keywords[0]->loc, "print() keyword arguments are not supported in kernels");
  unsigned nargs = e->call.args.n;
  StrBuf fmt;
  sb_init(&fmt);
  Value **ops = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT + 3);
  unsigned n = 0;
  bool ok = true;
  for (unsigned i = 0; i < nargs && ok; i++) {
    const PyExpr *a = e->call.args.items[i];
    if (a->kind == EX_STARRED) {
      lw_lerr(L, a->loc, "*args in calls are not supported in kernels");
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
    return ok ? lw_lerr(L, e->loc, "out of memory") : poison();
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
void lw_report_raw_prints(Lower *L) {
  for (unsigned i = 0; i < L->nraw_prints; i++) {
    bool seen = false;
    for (unsigned j = 0; j < i && !seen; j++) seen = L->raw_prints[j] == L->raw_prints[i];
    if (!seen)
      diag_warning(L->fe->diag, user_loc(L, L->raw_prints[i]->loc), "CUDA print() cannot print more than 32 items. The "
                   "raw format string will be emitted by the kernel instead.");
  }
}

/* ---- calls: the operator module (sema.c's table) ------------------------------------------------------------- */

/* operator.add(a, b) and the rest: the syntax's own typing and lowering (binop, compare2, unop, a subscript and its
 * assignment), so that each operator has one definition. Numba types a + b as operator.add(a, b); CPython folds
 * no call, so the arguments are not literals here. */
static FeVal lower_operator(Lower *L, int k, const PyExpr *e) {
  const FeOperatorFn *f = sema_operator_fn(k);
  if (f->kind == OPF_UNTYPED)
    return lw_lerr(L, e->loc, "%s() is not supported in kernels (numba-cuda does not type it)", f->name);
  if (f->kind == OPF_GETITEM || f->kind == OPF_SETITEM) { /* a[i] and a[i] = v, from the argument expressions */
    bool plain = e->call.args.n == f->nargs && e->call.nkeywords == 0;
    for (unsigned i = 0; plain && i < e->call.args.n; i++) plain = e->call.args.items[i]->kind != EX_STARRED;
    if (!plain) return lw_lerr(L, e->loc, "%s() takes %u positional arguments", f->name, f->nargs);
    PyExpr *sub = ARENA_NEW(&L->fe->arena, PyExpr);
    sub->kind = EX_SUBSCRIPT;
    sub->loc = e->loc;
    sub->subscript.value = e->call.args.items[0];
    sub->subscript.index = e->call.args.items[1];
    if (f->kind == OPF_GETITEM) return lower_expr(L, sub);
    const PyExpr *v = e->call.args.items[2];
    lw_assign(L, sub, lower_expr(L, v), v->loc);
    return (FeVal){.kind = FV_NONE};
  }
  FeVal a[2];
  if (!lw_positional(L, e, f->name, f->nargs, f->nargs, a)) return poison();
  a[0].literal = a[1].literal = false;
  switch ((FeOperatorKind)f->kind) {
  case OPF_BINOP: return lw_binop(L, (PyBinOp)f->op, a[0], a[1], e->loc);
  case OPF_CMP: return lw_compare2(L, (PyCmpOp)f->op, a[0], a[1], e->loc);
  case OPF_CONTAINS: return lw_compare2(L, CMP_IN, a[1], a[0], e->loc);
  case OPF_UNARY: return lw_unop(L, (PyUnaryOp)f->op, a[0], e->loc);
  case OPF_TRUTH:
    if (a[0].kind == FV_VAL && a[0].type->kind == TY_BOOL) return a[0];
    return lw_lerr(L, arg_loc(e, 0), "operator.truth() of %s is not supported (numba-cuda types it for booleans only)",
                   lw_vname(L, &a[0]));
  case OPF_ABS:
    if (a[0].kind == FV_VAL && nb_kind(a[0].type) == NB_F16) return lw_abs_of(L, a[0], f->name, e->loc);
    return lw_lerr(L, arg_loc(e, 0), "operator.abs() of %s is not supported (numba-cuda types it for float16 only; "
                                  "use abs())", lw_vname(L, &a[0]));
  default: return poison();
  }
}

/* numba-cuda's literal_unroll(t): t itself, a tuple (a list of constants becomes the tuple of them, as numba-cuda's
 * TransformLiteralUnrollConstListToTuple makes it); a for loop over it is unrolled per item, as any loop over a
 * tuple is here (numba-cuda's MixedContainerUnroller versions the body per item type). Anything else is refused
 * with numba-cuda's reason. */
static FeVal lower_literal_unroll(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)bi, (void)unbound;
  if (e->call.nkeywords || e->call.args.n != 1 || e->call.args.items[0]->kind == EX_STARRED)
    return lw_lerr(L, e->loc, "literal_unroll takes one argument, found %u", e->call.args.n + e->call.nkeywords);
  const PyExpr *arg = e->call.args.items[0];
  if (arg->kind == EX_LIST) {
    unsigned n = arg->elts.n;
    FeVal *items = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
    for (unsigned i = 0; i < n; i++) {
      items[i] = lower_expr(L, arg->elts.items[i]);
      if (items[i].kind == FV_POISON) return poison();
      if (!(items[i].kind == FV_VAL && items[i].is_const) && items[i].kind != FV_STR)
        return lw_lerr(L, arg->elts.items[i]->loc, "Found non-constant value at position %u in a list argument to "
                                                "literal_unroll", i);
    }
    return lw_make_tuple(L, n, items);
  }
  FeVal v = lower_expr(L, arg);
  if (v.kind == FV_POISON || v.kind == FV_TUPLE) return v;
  return lw_lerr(L, arg->loc, "Invalid use of literal_unroll, argument should be a tuple or a list of constant values, "
                           "not %s", lw_vname(L, &v));
}

/* The digits of Python's float() grammar from *p: digit (["_"] digit)*, copied to out without the underscores;
 * false if there is none. */
static bool digit_part(const char **p, const char *end, char *out, size_t *n) {
  const char *q = *p;
  if (q == end || *q < '0' || *q > '9') return false;
  while (q < end && ((*q >= '0' && *q <= '9') || (*q == '_' && q + 1 < end && q[1] >= '0' && q[1] <= '9'))) {
    if (*q != '_') out[(*n)++] = *q;
    q++;
  }
  *p = q;
  return true;
}

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* float(s) of a string constant: numba-cuda's float_literal_impl, the float64 constant Python's float(s) gives
 * (ASCII whitespace stripped, a sign, inf / infinity / nan in any case, or decimal digits with a point, an exponent
 * and underscores between digits), rounded as strtod rounds (correctly); other text is Python's ValueError,
 * located here as numba-cuda raises it when it compiles the kernel. */
static FeVal float_of_text(Lower *L, const FeVal *s, SrcLoc loc) {
  const char *p = s->str.s, *end = s->str.s + s->str.len;
  while (p < end && is_space(*p)) p++;
  while (end > p && is_space(end[-1])) end--;
  char *clean = arena_alloc(&L->fe->arena, (size_t)(end - p) + 2);
  size_t n = 0;
  const char *q = p;
  bool negative = q < end && *q == '-';
  if (q < end && (*q == '+' || *q == '-')) clean[n++] = *q++;
  size_t rest = (size_t)(end - q);
  if ((rest == 3 && strncasecmp(q, "inf", 3) == 0) || (rest == 8 && strncasecmp(q, "infinity", 8) == 0))
    return cfloat(ty_f64(L->ctx), negative ? -INFINITY : INFINITY);
  if (rest == 3 && strncasecmp(q, "nan", 3) == 0) return cfloat(ty_f64(L->ctx), negative ? -NAN : NAN);
  bool whole = digit_part(&q, end, clean, &n), frac = false;
  if (q < end && *q == '.') {
    clean[n++] = *q++;
    frac = digit_part(&q, end, clean, &n);
  }
  bool ok = whole || frac;
  if (ok && q < end && (*q == 'e' || *q == 'E')) {
    clean[n++] = *q++;
    if (q < end && (*q == '+' || *q == '-')) clean[n++] = *q++;
    ok = digit_part(&q, end, clean, &n);
  }
  if (!ok || q != end)
    return lw_lerr(L, loc, "could not convert string to float: '%.*s' (ValueError; kfront reads Python's float() "
                           "text in ASCII)", (int)s->str.len, s->str.s);
  clean[n] = 0;
  return cfloat(ty_f64(L->ctx), strtod(clean, NULL));
}

/* Whether x is an instance of cls by numba's isinstance (numba-cuda's ol_isinstance, decided from x's type at
 * compile time): a class is the one Numba type it stands for, matched exactly: int is int64, float float64,
 * complex complex128, bool boolean (so an int32 is no int, as in numba), a Numba type (float32, nv_bfloat16)
 * itself; tuple is any tuple. -1: cls is not such a class. */
static int isinstance_of(Lower *L, const FeVal *x, const FeVal *cls) {
  if (cls->kind == FV_BUILTIN && cls->builtin == BI_TUPLE) return x->kind == FV_TUPLE;
  const Type *want = cls->kind == FV_NTYPE ? cls->type : NULL;
  if (cls->kind == FV_BUILTIN)
    want = cls->builtin == BI_INT       ? ty_i64(L->ctx)
           : cls->builtin == BI_FLOAT   ? ty_f64(L->ctx)
           : cls->builtin == BI_COMPLEX ? ty_complex(L->ctx, ty_f64(L->ctx))
           : cls->builtin == BI_BOOL    ? ty_bool(L->ctx)
                                        : NULL;
  if (!want) return -1;
  return x->kind == FV_VAL && x->type == want;
}

/* ---- builtins.def's lowering functions of the builtins above ----------------------------------------------------- */

static FeVal lower_loop_only(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)unbound;
  return lw_lerr(L, e->loc, "%s() can only be used as the iterable of a for loop in kfront", sema_builtin_name(bi));
}

static FeVal lower_np_isnat(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  return lw_time_isnat(L, a[0], arg_loc(e, 0));
}

/* np.real(x), np.imag(x): numba-cuda's overloads, x.real and x.imag (numbers and arrays), the attribute itself */
static FeVal lower_np_real_imag(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)unbound;
  if (e->call.args.n != 1 || e->call.nkeywords || e->call.args.items[0]->kind == EX_STARRED)
    return lw_lerr(L, e->loc, "%s() takes exactly one positional argument", sema_builtin_name(bi));
  PyExpr *attr = ARENA_NEW(&L->fe->arena, PyExpr);
  attr->kind = EX_ATTRIBUTE;
  attr->loc = attr->attribute.attr_loc = e->loc;
  attr->attribute.value = e->call.args.items[0];
  attr->attribute.attr = bi == BI_NP_REAL ? "real" : "imag";
  return lower_expr(L, attr);
}

/* np.sum(a, ...) and the other reductions: the array, then the reduction's own keywords (lower_reductions.c) */
static FeVal lower_np_reduction(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)unbound;
  const char *fname = sema_builtin_name(bi);
  if (e->call.args.n < 1 || e->call.args.items[0]->kind == EX_STARRED)
    return lw_lerr(L, e->loc, "%s() takes an array as its first positional argument", fname);
  FeVal arr = lower_expr(L, e->call.args.items[0]);
  if (arr.kind == FV_POISON) return arr;
  return lower_reduction(L, fname + strlen("np."), fname, arr, e, 1);
}

/* tuple(): numba-cuda's TupleConstructor: tuple() is the empty tuple, tuple(t) of a tuple is t itself */
static FeVal lower_tuple(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  if (a[0].kind == FV_UNDEF) return lw_make_tuple(L, 0, NULL);
  if (a[0].kind == FV_TUPLE) return (a[0].literal = false, a[0]);
  return lw_lerr(L, arg_loc(e, 0), "no implementation of tuple() for %s (numba-cuda's tuple() takes a tuple, or nothing "
                                   "for the empty tuple)", lw_vname(L, &a[0]));
}

/* complex(re[, im]): numba-cuda's typing, complex64 from a float32 (or two), else complex128 */
static FeVal lower_complex(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  unsigned n = a[1].kind == FV_UNDEF ? 1 : 2;
  for (unsigned i = 0; i < n; i++)
    if (!is_scalar(&a[i]) || a[i].type->kind == TY_BOOL || (n == 2 && is_complex(&a[i])))
      return lw_lerr(L, arg_loc(e, i), "complex() takes %s, not %s", n == 1 ? "a number" : "two real numbers", lw_vname(L, &a[i]));
  bool single = a[0].type == ty_f32(L->ctx) && (n == 1 || a[1].type == a[0].type);
  Type *t = ty_complex(L->ctx, single ? ty_f32(L->ctx) : ty_f64(L->ctx));
  at(L, e->loc);
  if (n == 1) return lw_conv(L, a[0], t);
  Value *re = conv_v(L, a[0], t->elem), *im = conv_v(L, a[1], t->elem);
  return val(t, complex_make(L, re, im, t));
}

/* isinstance(x, cls): numba's, a constant, so that `if isinstance(x, T):` keeps one branch */
static FeVal lower_isinstance(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  if (a[0].kind == FV_POISON || a[1].kind == FV_POISON) return poison();
  if (a[0].kind != FV_VAL && a[0].kind != FV_TUPLE && a[0].kind != FV_NONE && a[0].kind != FV_STR)
    return lw_lerr(L, arg_loc(e, 0), "isinstance() does not support variables of type %s", lw_vname(L, &a[0]));
  bool many = a[1].kind == FV_TUPLE;
  unsigned n = many ? a[1].tup.n : 1;
  bool yes = false;
  for (unsigned i = 0; i < n; i++) {
    const FeVal *cls = many ? &a[1].tup.elems[i] : &a[1];
    int m = isinstance_of(L, &a[0], cls);
    if (m < 0)
      return lw_lerr(L, arg_loc(e, 1), "isinstance() takes a class or a tuple of classes (int, float, complex, "
                     "bool, tuple, or a Numba type such as float32), not %s", lw_vname(L, cls));
    yes = yes || m;
  }
  return cint(ty_bool(L->ctx), yes);
}

static FeVal lower_len(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  if (a[0].kind == FV_TUPLE) return cint(ty_i64(L->ctx), a[0].tup.n);
  if (is_run_time_string(&a[0])) return lw_run_time_string_len(L, &a[0], e->loc);
  if (lw_is_charseq(&a[0])) return lw_charseq_len(L, &a[0], e->loc);
  if (a[0].kind == FV_BYTES) return cint(ty_i64(L->ctx), (int64_t)a[0].str.len);
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
  return lw_lerr(L, arg_loc(e, 0), "len() of %s is not supported", lw_vname(L, &a[0]));
}

static FeVal lower_abs(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  return lw_abs_of(L, a[0], lw_builtin(bi)->call, e->loc);
}

static FeVal lower_int(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  if (!is_scalar(&a[0]) || is_complex(&a[0])) return lw_lerr(L, arg_loc(e, 0), "int() of %s is not supported", lw_vname(L, &a[0]));
  if (is_time(&a[0])) return lw_time_int(L, a[0], e->loc);
  at(L, e->loc);
  if (a[0].type->kind == TY_INT) return (a[0].literal = false, a[0].enumc = NULL, a[0]);
  return lw_conv(L, a[0], ty_i64(L->ctx));
}

static FeVal lower_float(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  if (a[0].kind == FV_STR) return float_of_text(L, &a[0], arg_loc(e, 0));
  if (!is_scalar(&a[0]) || a[0].type->kind == TY_BOOL || is_complex(&a[0]) || is_time(&a[0]))
    return lw_lerr(L, arg_loc(e, 0), "float() only supports real numbers, not %s", lw_vname(L, &a[0]));
  at(L, e->loc);
  if (a[0].type->kind == TY_FLOAT) return (a[0].literal = false, a[0]);
  return lw_conv(L, a[0], ty_f64(L->ctx));
}

static FeVal lower_bool(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  at(L, e->loc);
  return lw_truth(L, a[0], arg_loc(e, 0));
}

static FeVal lower_round(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  if (a[1].kind != FV_UNDEF) return lw_round_ndigits(L, a, e);
  const NbCase *c = lw_resolve_fn(L, bi, a, 1, lw_builtin(bi)->call, e->loc);
  if (!c) return poison();
  at(L, e->loc);
  Type *t = nb_type(L->ctx, c->args[0]);
  Value *r = ib_unary(&L->b, OP_ROUND, conv_v(L, a[0], t), NULL);
  return lw_conv(L, val(t, r), nb_type(L->ctx, c->ret));
}

static FeVal lower_pow(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  if (a[2].kind != FV_UNDEF) return lw_lerr(L, e->loc, "pow() with a modulus is not supported by kfront");
  return lw_binop(L, BIN_POW, a[0], a[1], e->loc);
}

static FeVal lower_divmod(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const NbCase *c = lw_resolve_fn(L, bi, a, 2, lw_builtin(bi)->call, e->loc);
  if (!c) return poison();
  Type *t = nb_type(L->ctx, c->args[0]);
  FeVal x = lw_conv(L, a[0], t), y = lw_conv(L, a[1], t);
  FeVal qr[2] = {lw_binop(L, BIN_FLOORDIV, x, y, e->loc), lw_binop(L, BIN_MOD, x, y, e->loc)};
  return lw_make_tuple(L, 2, qr);
}

static FeVal lower_grid_group_call(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)bi, (void)unbound;
  return lw_lerr(L, e->loc, "a GridGroup is not callable");
}

static FeVal lower_decorator_call(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)unbound;
  return lw_lerr(L, e->loc, "'%s' cannot be used inside a kernel", sema_builtin_name(bi));
}

static FeVal lower_index_object_call(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)unbound;
  return lw_lerr(L, e->loc, "%s is not callable", lw_builtin(bi)->call);
}

static FeVal lower_not_callable(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)unbound;
  return lw_lerr(L, e->loc, "'%s' is not callable", sema_builtin_name(bi));
}

/* ---- the registry: builtins.def's CALL, PARAMS, LOWER and OP columns ---------------------------------------------- */

#define NO_OP (-1)
#define ARGS(nmin, nmax) nmin, nmax, NULL, false
#define KEYWORDS(nmin, nmax, ...) nmin, nmax, (const char *const[]){__VA_ARGS__}, false
#define SYNTAX 0, 0, NULL, true
static const LwBuiltin builtins[BI__COUNT] = {
#define BUILTIN(id, name, call, params, typing, lower, op, ...) [BI_##id] = {call, params, lower, op},
#include "frontend/builtins.def"
#undef BUILTIN
};
#undef NO_OP
#undef ARGS
#undef KEYWORDS
#undef SYNTAX

const LwBuiltin *lw_builtin(int bi) { return bi >= 0 && bi < BI__COUNT ? &builtins[bi] : NULL; }

/* A call of builtin bi: its row's arguments bound (positional or by keyword, lowered in order; the absent ones
 * FV_UNDEF), then its lowering; the families of their own tables after. */
FeVal lower_builtin_call(Lower *L, int bi, const PyExpr *e) {
  const LwBuiltin *b = lw_builtin(bi);
  if (b) {
    if (b->syntax) return b->lower(L, bi, e, NULL);
    FeVal a[LW_MAX_BUILTIN_ARGS];
    for (unsigned i = 0; i < LW_MAX_BUILTIN_ARGS; i++) a[i] = (FeVal){.kind = FV_UNDEF};
    bool bound = b->keywords ? bind_args(L, e, b->call, b->keywords, b->nmin, b->nmax, a)
                             : lw_positional(L, e, b->call, b->nmin, b->nmax, a);
    return bound ? b->lower(L, bi, e, a) : poison();
  }
  if (bi >= FE_LIBDEVICE_BASE) return lower_libdevice(L, bi - FE_LIBDEVICE_BASE, e);
  if (bi >= FE_BF16_BASE) return lower_lowp(L, true, bi - FE_BF16_BASE, e);
  if (bi >= FE_OPERATOR_BASE) return lower_operator(L, bi - FE_OPERATOR_BASE, e);
  if (bi >= FE_VECTOR_BASE) return lower_vector_ctor(L, bi - FE_VECTOR_BASE, e);
  if (bi >= FE_FP16_BASE) return lower_lowp(L, false, bi - FE_FP16_BASE, e);
  if (bi >= FE_UFUNC_BASE) return lower_ufunc(L, bi - FE_UFUNC_BASE, e);
  return lw_lerr(L, e->loc, "'%s' is not callable", sema_builtin_name(bi));
}
