/* lower_cuda.c — numba.cuda's builtins in kernels: thread and grid indices, shared/local/constant arrays, atomics,
 * warp intrinsics, barriers, cooperative groups, bit operations, loads and stores with a cache hint, arrays over
 * pointers (carray, farray) and pointers to arrays' data (cffi's ffi.from_buffer), and CUDA vector types'
 * constructors (vectors.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

/* ---- calls: CUDA vector types (vectors.c) ------------------------------------------------------------------------ */

/* cuda.float32x4(...): its fields from the arguments in order (a scalar converted to the base type, a vector's
 * fields as they are), by numba-cuda's overloads. */
FeVal lower_vector_ctor(Lower *L, int k, const PyExpr *e) {
  Type *vt = vec_type(L->ctx, k);
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s", vec_name(k));
  FeVal a[4];
  if (e->call.args.n == 0 || e->call.args.n > vt->n) {
    return lw_lerr(L, e->loc, "%s() takes %u field%s (scalars and vectors of %s), not %u arguments", fname, vt->n,
                   vt->n == 1 ? "" : "s", tname(L, vt->elems[0]), e->call.args.n);
  }
  if (!lw_positional(L, e, fname, 1, vt->n, a)) return poison();
  Type *types[4];
  for (unsigned i = 0; i < e->call.args.n; i++)
    types[i] = a[i].kind == FV_VECTOR || is_scalar(&a[i]) ? a[i].type : NULL;
  const char *why;
  if (!vec_ctor_accepts(vt, types, e->call.args.n, &why)) {
    StrBuf b;
    sb_init(&b);
    for (unsigned i = 0; i < e->call.args.n; i++) sb_printf(&b, "%s%s", i ? ", " : "", lw_vname(L, &a[i]));
    FeVal r = lw_lerr(L, e->loc, "no overload of %s() for (%s): %s", fname, sb_cstr(&b), why);
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
      FeVal f = lw_conv(L, a[i], vt->elems[0]);
      f.literal = false;
      f.enumc = NULL;
      fields[n++] = f;
    }
  }
  return lw_make_vector(vt, fields);
}

/* ---- calls: cuda.* ------------------------------------------------------------------------------------------- */

FeVal lower_grid(Lower *L, int bi, const PyExpr *e, FeVal *args) {
  bool size = bi == BI_GRIDSIZE;
  const char *fname = lw_builtin(bi)->call;
  FeVal a = args[0];
  if (!is_const_int(&a)) {
    /* numba-cuda's grid/gridsize intrinsics refuse an argument of no IntegerLiteral type with RequireLiteralValue(type),
     * which its TypingError quotes ("RequireLiteralValue: int32") */
    if (a.kind == FV_POISON) return poison(); /* already reported */
    Type *t = lw_fv_type(L, &a);
    if (!t) return lw_lerr(L, arg_loc(e, 0), "%s() takes a literal 1, 2 or 3 (the number of dimensions) (RequireLiteralValue)",
                           fname);
    return lw_lerr(L, arg_loc(e, 0), "%s() takes a literal 1, 2 or 3 (the number of dimensions), not a value of type %s "
                   "(RequireLiteralValue: %s)", fname, tname(L, t), tname(L, t));
  }
  if (a.c.i < 1 || a.c.i > 3)
    return lw_lerr(L, arg_loc(e, 0), "%s() takes a constant 1, 2 or 3 (the number of dimensions)", fname);
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
  return lw_make_tuple(L, (unsigned)a.c.i, out);
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

/* Whether NumPy takes s as a dtype where kfront's Numba names do not: a type code ('f4', '<i8', 'd', 'U10') or one
 * of NumPy's own names of a type. A string that is neither is not a dtype at all (numba-cuda: "Invalid NumPy dtype
 * specified"). */
static bool numpy_dtype_spelling(const char *s) {
  static const char *const names[] = {"float", "int", "uint", "complex", "bool", "double", "single", "half", "longlong",
                                      "ulonglong", "long", "ulong", "short", "ushort", "byte", "ubyte", "intc", "uintc",
                                      "intp", "uintp", "longdouble", "clongdouble", "csingle", "cdouble", "object",
                                      "str", "bytes", "void", "bool_", "str_", "bytes_", "object_", "float_", "int_"};
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(s, names[i]) == 0) return true;
  if (strncmp(s, "datetime64", 10) == 0 || strncmp(s, "timedelta64", 11) == 0) return true;
  if (*s && strchr("<>=|", *s)) s++;
  if (!*s || !strchr("?bBhHiIlLqQpPefdgFDGSUVOmMa", *s)) return false;
  for (s++; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

/* The scalar type NumPy's dtype string s stands for where kfront's Numba names (nb_named_type) do not spell it, as
 * numba-cuda takes a string dtype (np.dtype(s), then its Numba type): one of NumPy's own names ('float', 'int',
 * 'complex', 'long') or a type code, with the byte order of the GPU's little-endian numbers or none ('<f8', '=i4',
 * '|b1', 'd', 'i'). NULL for any other string: one NumPy takes for a dtype kernels have no type for ('O', 'U10',
 * '>f8', 'longdouble'), or not a dtype at all (numpy_dtype_spelling tells which). */
static Type *numpy_dtype_named(IrContext *ctx, const char *s) {
  static const struct {
    const char *name;
    int kind;
  } numpy_names[] = {{"float", NB_F64}, {"int", NB_I64}, {"complex", NB_C128}, {"long", NB_I64}, {"float_", NB_F64},
                     {"ubyte", NB_U8}, {"?", NB_BOOL}, {"b", NB_I8}, {"B", NB_U8}, {"h", NB_I16}, {"H", NB_U16},
                     {"i", NB_I32}, {"I", NB_U32}, {"l", NB_I64}, {"L", NB_U64}, {"q", NB_I64}, {"Q", NB_U64},
                     {"p", NB_I64}, {"P", NB_U64}, {"e", NB_F16}, {"f", NB_F32}, {"d", NB_F64}, {"F", NB_C64},
                     {"D", NB_C128}};
  const char *code = s;
  bool big_endian = false;
  if (*code && strchr("<>=|", *code)) big_endian = *code++ == '>';
  Type *t = code == s ? NULL : nb_named_type(ctx, code, NULL); /* '<f8': the code's Numba name (f8) */
  for (unsigned i = 0; !t && i < sizeof numpy_names / sizeof *numpy_names; i++)
    if (strcmp(code, numpy_names[i].name) == 0 && (code == s || strlen(code) == 1))
      t = nb_type(ctx, numpy_names[i].kind);
  if (t && big_endian && ty_size(t) > 1) return NULL; /* '>f8': not the GPU's byte order */
  return t;
}

Type *lw_dtype_of(Lower *L, const FeVal *d, SrcLoc loc) {
  if (d->kind == FV_NTYPE && ty_is_element(d->type)) return d->type;
  if (d->kind == FV_STR) {
    Type *t = nb_named_type(L->ctx, d->str.s, NULL);
    if (!t) t = numpy_dtype_named(L->ctx, d->str.s);
    if (t) return t;
    if (d->str.len >= 7 && memcmp(d->str.s, "Record(", 7) == 0) { /* a record dtype, as the embedder spells it */
      const char *why;
      size_t pos = 0;
      t = fe_record_parse(L->ctx, d->str.s, d->str.len, &pos, &why);
      if (t && pos == d->str.len) return t;
      return lw_lerr(L, loc, "invalid record dtype: %s", t ? "text after the record" : why), NULL;
    }
  }
  if (d->kind == FV_STR && !numpy_dtype_spelling(d->str.s)) /* numba-cuda's words for a string NumPy does not parse */
    lw_lerr(L, loc, "Invalid NumPy dtype specified: '%s' (dtype must be a Numba or NumPy scalar type such as float32)",
            d->str.s);
  else if (d->kind == FV_STR)
    lw_lerr(L, loc, "dtype '%s' is a NumPy dtype kernels have no type for: a dtype is a Numba or NumPy scalar type "
            "such as float32 (in the GPU's little-endian byte order)", d->str.s);
  else if (d->kind != FV_POISON)
    lw_lerr(L, loc, "dtype must be a Numba or NumPy scalar type such as float32, not %s", lw_vname(L, d));
  return NULL;
}

/* np.dtype(x) in a kernel, as numba-cuda types it: a string or a Numba / NumPy scalar type gives that dtype (a
 * compile-time value, as a global np.dtype object is: a dtype for cuda.local.array, np.empty, ...). One kernels
 * have no type for, np.dtype('O'), leaves the variable it is assigned to untyped: numba-cuda's "Cannot infer the
 * type of variable". */
FeVal lower_numpy_dtype(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  if (a[0].kind == FV_POISON) return a[0];
  SrcLoc loc = arg_loc(e, 0);
  Type *t = NULL;
  if (a[0].kind == FV_NTYPE && ty_is_element(a[0].type)) t = a[0].type;
  else if (a[0].kind == FV_STR) {
    t = nb_named_type(L->ctx, a[0].str.s, NULL);
    if (!t) t = numpy_dtype_named(L->ctx, a[0].str.s);
    if (!t && numpy_dtype_spelling(a[0].str.s)) {
      const char *what = arena_printf(&L->fe->arena, "np.dtype('%s') is a NumPy dtype kernels have no type for "
                                      "(a dtype is a Numba or NumPy scalar type such as float32)", a[0].str.s);
      if (L->assign_hint) return lw_lerr(L, loc, "Cannot infer the type of variable '%s': %s", L->assign_hint, what);
      return lw_lerr(L, loc, "%s", what);
    }
  }
  if (!t) return lw_dtype_of(L, &a[0], loc), poison(); /* its words: not a dtype NumPy parses, or not a dtype */
  return (FeVal){.kind = FV_NTYPE, .type = t};
}

Value *lw_local_array(Lower *L, const PyExpr *site, Type *t, const int64_t *dims) {
  Op *memo = memo_get(L, site);
  if (!memo) { /* hoisted to the function's entry: one array per call site, as Numba allocates it */
    Attr shape[8];
    for (unsigned i = 0; i < t->rank; i++) shape[i] = attr_int(ty_i64(L->ctx), dims[i]);
    memo = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &t, 0);
    ir_op_set_attr(L->m, memo, "shape", attr_array(L->m, t->rank, shape));
    ir_block_prepend(ir_func_entry(L->func_op), memo);
    memo_put(L, site, memo);
  }
  return op_result(memo, 0);
}

/* An argument's type as numba-cuda's typing shows it in a call's signature: constants as literals (Literal[int](1),
 * Literal[str](int33)), a tuple as UniTuple(T x n) when its items' types are one, else Tuple(...), a list display
 * (x, the argument's expression, when known) as list(T)<iv=[...]>, its items' values when all are constants. */
static void numba_arg_type(Lower *L, const PyExpr *x, const FeVal *v, StrBuf *b) {
  if (v->kind == FV_VAL && v->is_const && !v->enumc && v->type->kind == TY_BOOL) {
    sb_printf(b, "Literal[bool](%s)", v->c.i ? "True" : "False");
  } else if (v->kind == FV_VAL && v->is_const && !v->enumc && v->type->kind == TY_INT) {
    sb_printf(b, "Literal[int](%lld)", (long long)v->c.i);
  } else if (v->kind == FV_STR) {
    sb_printf(b, "Literal[str](%s)", v->str.s);
  } else if (v->kind == FV_TUPLE && x && x->kind == EX_LIST) {
    bool all_const = true;
    for (unsigned i = 0; i < v->tup.n; i++) all_const &= is_const_int(&v->tup.elems[i]);
    sb_printf(b, "list(%s)<iv=", v->tup.n ? lw_vname(L, &v->tup.elems[0]) : "undefined");
    if (all_const && v->tup.n) {
      for (unsigned i = 0; i < v->tup.n; i++) sb_printf(b, "%s%lld", i ? ", " : "[", (long long)v->tup.elems[i].c.i);
      sb_puts(b, "]>");
    } else {
      sb_puts(b, "None>");
    }
  } else if (v->kind == FV_TUPLE) {
    bool display = x && x->kind == EX_TUPLE && x->elts.n == v->tup.n;
    const char **items = ARENA_ARRAY(&L->fe->arena, const char *, v->tup.n ? v->tup.n : 1);
    bool uniform = v->tup.n > 0;
    for (unsigned i = 0; i < v->tup.n; i++) {
      StrBuf item;
      sb_init(&item);
      numba_arg_type(L, display ? x->elts.items[i] : NULL, &v->tup.elems[i], &item);
      items[i] = arena_strdup(&L->fe->arena, sb_cstr(&item));
      sb_free(&item);
      uniform &= strcmp(items[i], items[0]) == 0;
    }
    if (uniform) {
      sb_printf(b, "UniTuple(%s x %u)", items[0], v->tup.n);
    } else {
      sb_puts(b, "Tuple(");
      for (unsigned i = 0; i < v->tup.n; i++) sb_printf(b, "%s%s", i ? ", " : "", items[i]);
      sb_putc(b, ')');
    }
  } else {
    sb_puts(b, lw_vname(L, v));
  }
}

/* A refused cuda.shared.array / cuda.local.array call: kfront's reason, then numba-cuda's words for it, the call's
 * signature as numba-cuda's typing saw it (positional arguments, then the keywords in the order written). a holds
 * the bound arguments in the order of names. */
static FeVal array_decl_refused(Lower *L, const PyExpr *e, bool shared, const char *const *names, unsigned nnames,
                                const FeVal *a, SrcLoc loc, const char *why) {
  StrBuf sig;
  sb_init(&sig);
  for (unsigned i = 0; i < e->call.args.n && i < nnames; i++) {
    if (i) sb_puts(&sig, ", ");
    numba_arg_type(L, e->call.args.items[i], &a[i], &sig);
  }
  bool first = e->call.args.n == 0;
  for (unsigned k = 0; k < e->call.nkeywords; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    for (unsigned j = 0; kw->arg && j < nnames; j++) {
      if (strcmp(kw->arg, names[j]) != 0) continue;
      sb_printf(&sig, "%s%s=", first ? "" : ", ", kw->arg);
      numba_arg_type(L, kw->value, &a[j], &sig);
      first = false;
    }
  }
  FeVal r = lw_lerr(L, loc, "%s: No implementation of function Function(<function %s.array>) found for signature:\n \n >>> "
                    "array(%s)", why, shared ? "shared" : "local", sb_cstr(&sig));
  sb_free(&sig);
  return r;
}

FeVal lower_array_decl(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  bool shared = bi == BI_SHARED_ARRAY;
  const char *fname = lw_builtin(bi)->call;
  const char *hint = L->assign_hint;
  const PyExpr *shape_expr = NULL;
  for (unsigned k = 0; k < e->call.nkeywords; k++)
    if (e->call.keywords[k]->arg && strcmp(e->call.keywords[k]->arg, "shape") == 0) shape_expr = e->call.keywords[k]->value;
  if (e->call.args.n > 0) shape_expr = e->call.args.items[0];
  SrcLoc shape_loc = shape_expr ? shape_expr->loc : e->loc;
  SrcLoc dtype_loc = e->call.args.n > 1 ? e->call.args.items[1]->loc : e->loc;
  for (unsigned k = 0; k < e->call.nkeywords; k++)
    if (e->call.keywords[k]->arg && strcmp(e->call.keywords[k]->arg, "dtype") == 0) dtype_loc = e->call.keywords[k]->value->loc;
  Type *dt = lw_dtype_of(L, &a[1], dtype_loc);
  if (!dt) return poison();
  /* alignment=: numba-cuda's typing takes a literal integer or None (RequireLiteralValue, which its TypingError
   * quotes), its lowering a positive power of 2 that is a multiple of a pointer's size */
  if (a[2].kind != FV_UNDEF && a[2].kind != FV_NONE && !(is_const_int(&a[2]) && a[2].type->kind == TY_INT))
    return lw_lerr(L, e->loc, "RequireLiteralValue: alignment must be a constant integer");
  int64_t align = a[2].kind == FV_VAL ? a[2].c.i : 0;
  if (a[2].kind == FV_VAL) {
    const char *why = align <= 0 ? "Alignment must be positive"
                      : (align & (align - 1)) ? "Alignment must be a power of 2"
                      : align % 8 ? "Alignment must be a multiple of 8" : NULL;
    if (why) { /* numba-cuda's lowering: a ValueError */
      DiagKind prev = diag_set_kind(DIAG_KIND_VALUE);
      lw_lerr(L, e->loc, "%s", why);
      diag_set_kind(prev);
      return poison();
    }
  }
  const char *shape_rule = arena_printf(&L->fe->arena, "the shape of %s must be a constant integer or a tuple of constant "
                                        "integers", fname);
  if (shape_expr && shape_expr->kind == EX_LIST) /* numba-cuda's typing takes no list (its simulator does) */
    return array_decl_refused(L, e, shared, lw_builtin(bi)->keywords, 3, a, shape_loc, arena_printf(&L->fe->arena, "%s, not a list",
                                                                                   shape_rule));
  int64_t dims[8];
  unsigned rank = 0;
  if (is_const_int(&a[0]) && a[0].type->kind == TY_INT) {
    dims[rank++] = a[0].c.i;
  } else if (a[0].kind == FV_TUPLE && a[0].tup.n > 8) {
    return lw_lerr(L, shape_loc, "%s supports at most 8 dimensions in kfront, not %u", fname, a[0].tup.n);
  } else if (a[0].kind == FV_TUPLE && a[0].tup.n >= 1) {
    for (unsigned i = 0; i < a[0].tup.n; i++) {
      if (!is_const_int(&a[0].tup.elems[i]) || a[0].tup.elems[i].type->kind != TY_INT)
        return array_decl_refused(L, e, shared, lw_builtin(bi)->keywords, 3, a, shape_loc, shape_rule);
      dims[rank++] = a[0].tup.elems[i].c.i;
    }
  } else {
    return array_decl_refused(L, e, shared, lw_builtin(bi)->keywords, 3, a, shape_loc,
                              arena_printf(&L->fe->arena, "%s, not %s", shape_rule, lw_vname(L, &a[0])));
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
      return lw_lerr(L, shape_loc, "%s extents must be positive%s", fname, shared ? " (a shape of 0 means dynamic shared memory)" : "");
    if (__builtin_mul_overflow(total, dims[i], &total) || total > ((int64_t)1 << 40))
      return lw_lerr(L, shape_loc, "%s is too large", fname);
  }
  Type *t = ty_array(L->ctx, dt, rank, LAYOUT_C);
  if (!shared) {
    Value *arr = lw_local_array(L, e, t, dims);
    if (align) ir_op_set_attr(L->m, arr->def, "align", attr_int(ty_i64(L->ctx), align));
    return val(t, arr);
  }
  Op *memo = memo_get(L, e);
  Attr shape_elems[8];
  for (unsigned i = 0; i < rank; i++) shape_elems[i] = attr_int(ty_i64(L->ctx), dims[i]);
  Attr shape = attr_array(L->m, rank, shape_elems);
  if (!memo) {
    const char *base = arena_printf(&L->fe->arena, "%s__%s", L->sym, hint ? hint : "shared");
    const char *sym = base;
    for (unsigned k = 1; ir_module_lookup(L->m, sym); k++) sym = arena_printf(&L->fe->arena, "%s_%u", base, k);
    memo = ir_op_create(L->m, OP_GLOBAL, L->b.loc, 0, NULL, 0, NULL, 0);
    ir_op_set_attr(L->m, memo, "sym_name", attr_sym(L->m, sym));
    ir_op_set_attr(L->m, memo, "type", attr_type(t));
    ir_op_set_attr(L->m, memo, "shape", shape);
    ir_op_set_attr(L->m, memo, "space", attr_str(L->m, "shared"));
    if (align) ir_op_set_attr(L->m, memo, "align", attr_int(ty_i64(L->ctx), align));
    ir_op_insert_before(L->fe->cur_top, memo);
    ir_module_add_symbol(L->m, memo);
    memo_put(L, e, memo);
  }
  Op *ref = ib_op(&L->b, OP_GLOBAL_REF, 0, NULL, 1, &t, 0);
  ir_op_set_attr(L->m, ref, "name", attr_sym(L->m, ir_op_attr_str(memo, "sym_name")));
  return val(t, op_result(ref, 0));
}

/* cuda.const.array_like(ARR) of a module-level np.array of constants: a "const" mem.global with its values. */
/* A 0-d array bound as a global (FeConstArr.zero_d: held as its array of one, arr): the view arr[0], a 0-d array
 * parameter's form; arr itself for any other. */
static FeVal zero_d_view(Lower *L, const FeConstArr *ca, FeVal arr) {
  if (!ca->zero_d) return arr;
  Type *i64 = ty_i64(L->ctx);
  FeVal v = {.kind = FV_VIEW, .type = ty_array(L->ctx, arr.type->elem, 0, LAYOUT_C), .is_const = arr.is_const};
  v.tup.n = 2;
  v.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 2);
  v.tup.elems[0] = arr;
  v.tup.elems[1] = val(i64, ib_const_int(&L->b, i64, 0));
  return v;
}

/* A captured device array (FeConstArr.captured): a "captured" mem.global at its address, with its shape and strides;
 * the kernel reads and writes that memory in place, as numba-cuda's kernels do the pointer they captured. */
static FeVal captured_array_ref(Lower *L, const FeConstArr *ca, const char *hint) {
  Type *t = ca->type, *i64 = ty_i64(L->ctx);
  const PyExpr *key = (const PyExpr *)(const void *)ca;
  Op *memo = memo_get(L, key);
  if (!memo) {
    const char *base = arena_printf(&L->fe->arena, "%s__%s", L->sym, hint ? hint : "captured");
    const char *sym = base;
    for (unsigned k = 1; ir_module_lookup(L->m, sym); k++) sym = arena_printf(&L->fe->arena, "%s_%u", base, k);
    Attr dims[8], strides[8];
    for (unsigned i = 0; i < t->rank; i++) {
      dims[i] = attr_int(i64, ca->dims[i]);
      strides[i] = attr_int(i64, ca->strides[i]);
    }
    memo = ir_op_create(L->m, OP_GLOBAL, L->b.loc, 0, NULL, 0, NULL, 0);
    ir_op_set_attr(L->m, memo, "sym_name", attr_sym(L->m, sym));
    ir_op_set_attr(L->m, memo, "type", attr_type(t));
    ir_op_set_attr(L->m, memo, "shape", attr_array(L->m, t->rank, dims));
    ir_op_set_attr(L->m, memo, "strides", attr_array(L->m, t->rank, strides));
    ir_op_set_attr(L->m, memo, "space", attr_str(L->m, "captured"));
    ir_op_set_attr(L->m, memo, "address", attr_int(ty_int(L->ctx, 64, false), (int64_t)ca->address));
    ir_op_insert_before(L->fe->cur_top, memo);
    ir_module_add_symbol(L->m, memo);
    memo_put(L, key, memo);
  }
  Op *ref = ib_op(&L->b, OP_GLOBAL_REF, 0, NULL, 1, &t, 0);
  ir_op_set_attr(L->m, ref, "name", attr_sym(L->m, ir_op_attr_str(memo, "sym_name")));
  return zero_d_view(L, ca, val(t, op_result(ref, 0)));
}

FeVal lw_const_array_ref(Lower *L, const FeConstArr *ca, const char *hint) {
  if (ca->captured) return captured_array_ref(L, ca, hint);
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
  return zero_d_view(L, ca, r);
}

FeVal lower_const_array(Lower *L, int bi, const PyExpr *e, FeVal *args) {
  (void)bi;
  FeVal a = args[0];
  if (is_array(&a) && a.is_const) return a;
  return lw_lerr(L, arg_loc(e, 0), "cuda.const.array_like() needs a module-level NumPy array of constants "
                                "(np.array([...])), not %s", lw_vname(L, &a));
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

static IrAtomicKind atomic_kind(int bi) {
  switch (bi) {
  case BI_ATOMIC_ADD: return IR_ATOMIC_ADD;
  case BI_ATOMIC_SUB: return IR_ATOMIC_SUB;
  case BI_ATOMIC_AND: return IR_ATOMIC_AND;
  case BI_ATOMIC_OR: return IR_ATOMIC_OR;
  case BI_ATOMIC_XOR: return IR_ATOMIC_XOR;
  case BI_ATOMIC_MAX: return IR_ATOMIC_MAX;
  case BI_ATOMIC_MIN: return IR_ATOMIC_MIN;
  case BI_ATOMIC_EXCH: return IR_ATOMIC_EXCH;
  case BI_ATOMIC_INC: return IR_ATOMIC_INC;
  case BI_ATOMIC_DEC: return IR_ATOMIC_DEC;
  case BI_ATOMIC_NANMAX: return IR_ATOMIC_NANMAX;
  case BI_ATOMIC_NANMIN: return IR_ATOMIC_NANMIN;
  default: return IR_ATOMIC_INVALID;
  }
}

FeVal lower_atomic(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const char *fname = lw_builtin(bi)->call;
  bool cas = bi == BI_ATOMIC_CAS, cas_short = bi == BI_ATOMIC_COMPARE_AND_SWAP;
  unsigned n = cas ? 4 : 3;
  if (!is_array(&a[0]) && a[0].kind != FV_VIEW) return lw_lerr(L, arg_loc(e, 0), "%s() needs an array, not %s", fname, lw_vname(L, &a[0]));
  Type *arrt = a[0].type, *dt = arrt->elem;
  bool ok = sema_atomic_element_ok(bi, nb_kind(dt));
  if (!ok && dt->kind == TY_FLOAT && dt->bits == 16) /* numba-cuda's atomics take neither: say so */
    return lw_lerr(L, arg_loc(e, 0), "%s() does not support arrays of %s: numba-cuda's cuda.atomic functions take "
                   "int32, uint32, int64, uint64%s arrays only", fname, tname(L, dt),
                   sema_atomic_takes_floats(bi) ? ", float32, float64" : "");
  if (!ok) return lw_lerr(L, arg_loc(e, 0), "%s() does not support arrays of %s", fname, tname(L, dt));
  FeVal ix[32];
  unsigned nix = 0;
  if (cas_short) {
    if (arrt->rank != 1 || a[0].kind == FV_VIEW) return lw_lerr(L, arg_loc(e, 0), "%s() needs a 1-d array", fname);
    ix[nix++] = cint(ty_i64(L->ctx), 0);
  } else if (a[1].kind == FV_TUPLE) {
    for (unsigned i = 0; i < a[1].tup.n && nix < 32; i++) ix[nix++] = a[1].tup.elems[i];
  } else {
    ix[nix++] = a[1];
  }
  for (unsigned i = 0; i < nix; i++)
    if (!lw_want_int(L, &ix[i], "an atomic index", arg_loc(e, 1))) return poison();
  if (nix != arrt->rank)
    return lw_lerr(L, arg_loc(e, 1), "the index of a %u-d array in %s() must have %u integer%s, got %u", arrt->rank, fname,
                   arrt->rank, arrt->rank == 1 ? "" : "s", nix);
  unsigned vi = cas_short ? 1 : 2;
  for (unsigned i = vi; i < n; i++)
    if (!is_scalar(&a[i])) return lw_lerr(L, arg_loc(e, i), "%s() needs a scalar value, not %s", fname, lw_vname(L, &a[i]));
  Value *base, *idx[32];
  FeVal r = lw_index_array(L, &a[0], ix, nix, e->loc, true, &base, idx);
  if (r.kind != FV_VAL) return r;
  if (elem_align(base) < ty_align(dt)) /* an atomic on a misaligned address faults on the GPU */
    return lw_lerr(L, e->loc, "%s() on a field of packed records whose elements may be misaligned (%s in records of "
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
  ir_op_set_atomic_kind(L->m, op, atomic_kind(bi));
  return val(dt, op_result(op, 0));
}

FeVal lower_warp(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const char *fname = lw_builtin(bi)->call;
  Type *u32 = ty_u32(L->ctx), *i32 = ty_i32(L->ctx), *i1 = ty_bool(L->ctx);
  switch (bi) {
  case BI_SHFL_SYNC:
  case BI_SHFL_UP_SYNC:
  case BI_SHFL_DOWN_SYNC:
  case BI_SHFL_XOR_SYNC: {
    if (!lw_want_int(L, &a[0], "the mask", arg_loc(e, 0)) || !lw_want_int(L, &a[2], "the lane", arg_loc(e, 2))) return poison();
    int k = a[1].kind == FV_VAL ? nb_kind(a[1].type) : -1;
    if (k != NB_I32 && k != NB_I64 && k != NB_F32 && k != NB_F64)
      return lw_lerr(L, arg_loc(e, 1), "%s() only supports 32- and 64-bit ints and floats, not %s", fname, lw_vname(L, &a[1]));
    at(L, e->loc);
    Value *ops[4] = {conv_v(L, a[0], u32), lw_mat(L, &a[1]), conv_v(L, a[2], i32), ib_const_int(&L->b, i32, 32)};
    Type *t = a[1].type;
    Op *op = ib_op(&L->b, OP_SHFL, 4, ops, 1, &t, 0);
    IrShuffleMode mode = bi == BI_SHFL_SYNC        ? IR_SHUFFLE_IDX
                         : bi == BI_SHFL_UP_SYNC   ? IR_SHUFFLE_UP
                         : bi == BI_SHFL_DOWN_SYNC ? IR_SHUFFLE_DOWN
                                                   : IR_SHUFFLE_XOR;
    ir_op_set_shuffle_mode(L->m, op, mode);
    return val(t, op_result(op, 0));
  }
  case BI_ALL_SYNC:
  case BI_ANY_SYNC:
  case BI_EQ_SYNC:
  case BI_BALLOT_SYNC: {
    /* numba-cuda's typing of the vote functions: its words, then what was given */
    if (a[0].kind != FV_VAL || !is_int_type(a[0].type))
      return lw_lerr(L, arg_loc(e, 0), "Mask type must be an integer: the mask of %s() is %s", fname, lw_vname(L, &a[0]));
    if (a[1].kind == FV_VAL && !is_int_type(a[1].type) && !ty_is_bool(a[1].type))
      return lw_lerr(L, arg_loc(e, 1), "Predicate must be an integer or boolean: the predicate of %s() is %s", fname,
                     lw_vname(L, &a[1]));
    FeVal p = lw_truth(L, a[1], arg_loc(e, 1));
    if (p.kind == FV_POISON) return p;
    at(L, e->loc);
    Value *ops[2] = {conv_v(L, a[0], u32), lw_mat(L, &p)};
    Type *t = bi == BI_BALLOT_SYNC ? i32 : i1;
    Op *op = ib_op(&L->b, OP_VOTE, 2, ops, 1, &t, 0);
    IrVoteMode mode = bi == BI_ALL_SYNC ? IR_VOTE_ALL : bi == BI_ANY_SYNC ? IR_VOTE_ANY : bi == BI_EQ_SYNC ? IR_VOTE_UNI : IR_VOTE_BALLOT;
    ir_op_set_vote_mode(L->m, op, mode);
    return val(t, op_result(op, 0));
  }
  case BI_ACTIVEMASK:
  case BI_LANEMASK_LT:
    at(L, e->loc);
    return val(u32, op_result(ib_op(&L->b, bi == BI_ACTIVEMASK ? OP_ACTIVEMASK : OP_LANEMASK_LT, 0, NULL, 1, &u32, 0), 0));
  case BI_MATCH_ANY_SYNC:
  case BI_MATCH_ALL_SYNC: {
    /* typed by its row's cases (numba-cuda's cudadecl); match_any_sync gives int32, match_all_sync the tuple
     * (int32 mask, bool pred) */
    int kinds[2] = {a[0].kind == FV_VAL ? nb_kind(a[0].type) : -1, a[1].kind == FV_VAL ? nb_kind(a[1].type) : -1};
    const NbCase *c = kinds[0] < 0 || kinds[1] < 0 ? NULL : sema_builtin_case(bi, kinds, 2);
    if (!c)
      return lw_lerr(L, e->loc, "No implementation of %s() for (%s, %s): it takes an int32 mask and an int32, int64, "
                                "float32 or float64 value", fname, lw_vname(L, &a[0]), lw_vname(L, &a[1]));
    at(L, e->loc);
    Type *vt = nb_type(L->ctx, c->args[1]);
    Value *ops[2] = {conv_v(L, a[0], u32), conv_v(L, a[1], vt)};
    bool all = bi == BI_MATCH_ALL_SYNC;
    Type *rts[2] = {i32, i1};
    Op *op = ib_op(&L->b, OP_MATCH, 2, ops, all ? 2 : 1, rts, 0);
    ir_op_set_match_mode(L->m, op, all ? IR_MATCH_ALL : IR_MATCH_ANY);
    if (!all) return val(i32, op_result(op, 0));
    FeVal parts[2] = {val(i32, op_result(op, 0)), val(i1, op_result(op, 1))};
    return lw_make_tuple(L, 2, parts);
  }
  case BI_SYNCWARP: {
    at(L, e->loc);
    Value *m;
    if (a[0].kind == FV_UNDEF) m = ib_const_int(&L->b, u32, (int64_t)0xffffffffu);
    else if (!lw_want_int(L, &a[0], "the mask", arg_loc(e, 0))) return poison();
    else m = conv_v(L, a[0], u32);
    ib_op(&L->b, OP_SYNCWARP, 1, &m, 0, NULL, 0);
    return (FeVal){.kind = FV_NONE};
  }
  default: return poison();
  }
}

FeVal lower_sync(Lower *L, int bi, const PyExpr *e, FeVal *args) {
  const char *fname = lw_builtin(bi)->call;
  FeVal a = args[0];
  if (bi == BI_SYNCTHREADS || bi == BI_THREADFENCE || bi == BI_THREADFENCE_BLOCK || bi == BI_THREADFENCE_SYSTEM) {
    at(L, e->loc);
    if (bi == BI_SYNCTHREADS) {
      ib_op(&L->b, OP_BARRIER, 0, NULL, 0, NULL, 0);
    } else {
      Op *op = ib_op(&L->b, OP_FENCE, 0, NULL, 0, NULL, 0);
      IrFenceScope scope = bi == BI_THREADFENCE ? IR_FENCE_DEVICE : bi == BI_THREADFENCE_BLOCK ? IR_FENCE_BLOCK : IR_FENCE_SYSTEM;
      ir_op_set_fence_scope(L->m, op, scope);
    }
    return (FeVal){.kind = FV_NONE};
  }
  if (a.kind != FV_VAL || a.type->kind != TY_INT)
    return lw_lerr(L, arg_loc(e, 0), "%s() takes an integer predicate, not %s", fname, lw_vname(L, &a));
  at(L, e->loc);
  FeVal p = lw_truth(L, a, e->loc);
  Type *i32 = ty_i32(L->ctx);
  Value *pv = lw_mat(L, &p);
  Op *op = ib_op(&L->b, OP_BARRIER_RED, 1, &pv, 1, &i32, 0);
  IrBarrierReduceKind kind = bi == BI_SYNCTHREADS_COUNT ? IR_BARRIER_REDUCE_COUNT
                             : bi == BI_SYNCTHREADS_AND ? IR_BARRIER_REDUCE_AND
                                                        : IR_BARRIER_REDUCE_OR;
  ir_op_set_barrier_reduce_kind(L->m, op, kind);
  return val(i32, op_result(op, 0));
}

/* cuda.nanosleep(ns): numba-cuda's one case, void(uint32), which takes any bool, integer or float (converted to
 * uint32 as Numba converts: a float toward zero). */
FeVal lower_nanosleep(Lower *L, int bi, const PyExpr *e, FeVal *args) {
  (void)bi;
  FeVal a = args[0];
  if (a.kind != FV_VAL || !(a.type->kind == TY_BOOL || a.type->kind == TY_INT || a.type->kind == TY_FLOAT) ||
      ty_is_time(a.type))
    return lw_lerr(L, arg_loc(e, 0), "No implementation of cuda.nanosleep(%s): it takes the nanoseconds as a uint32",
                   lw_vname(L, &a));
  at(L, e->loc);
  Value *ns = conv_v(L, a, ty_u32(L->ctx));
  ib_op(&L->b, OP_NANOSLEEP, 1, &ns, 0, NULL, 0);
  return (FeVal){.kind = FV_NONE};
}

/* cuda.cg.this_grid() (a compile-time object: the grid group has no run-time data) and its sync(). */
FeVal lower_cg(Lower *L, int bi, const PyExpr *e, FeVal *args) {
  (void)args;
  at(L, e->loc);
  mark_cooperative(L);
  if (bi == BI_CG_THIS_GRID) return (FeVal){.kind = FV_BUILTIN, .builtin = BI_GRID_GROUP};
  ib_op(&L->b, OP_GRID_SYNC, 0, NULL, 0, NULL, 0);
  return cint(ty_i32(L->ctx), 0); /* numba-cuda's sync() returns cudaCGSynchronize's status: 0 */
}

FeVal lower_bits(Lower *L, int bi, const PyExpr *e, FeVal *args) {
  const char *fname = lw_builtin(bi)->call;
  FeVal a = args[0];
  const NbCase *c = lw_resolve_fn(L, bi, &a, 1, fname, e->loc);
  if (!c) return poison();
  at(L, e->loc);
  Type *ta = nb_type(L->ctx, c->args[0]), *rt = nb_type(L->ctx, c->ret);
  OpKind k = bi == BI_POPC ? OP_POPC : bi == BI_CLZ ? OP_CLZ : bi == BI_FFS ? OP_FFS : OP_BREV;
  Value *r = ib_unary(&L->b, k, conv_v(L, a, ta), NULL);
  return lw_conv(L, val(ta, r), rt);
}

/* ---- calls: loads and stores with a cache hint ------------------------------------------------------------------ */

/* cuda.ldca/ldcg/ldcs/ldlu/ldcv(a, i) and cuda.stcg/stcs/stwb/stwt(a, i, value): the element a[i] (i an integer for a
 * 1-d array, else a tuple of one integer type per axis, as numba-cuda's cache_hints checks them, with its messages)
 * read or written as a[i] is — the same wraparound and bounds check — by a mem.load / mem.store whose `cache`
 * attribute names the PTX cache operator: ld.global.<op> / st.global.<op> on the GPU (backend), a plain access on the
 * simulator. The array's dtype must be an integer or a float of 8 to 64 bits; a stored value converts to it. A
 * pointer instead of the array: pointer_cache_hint. */
/* The element type of a cache-hinted access (an integer or a float, bfloat16 and datetimes not), or NULL after
 * numba-cuda's error. */
static Type *cache_hint_element(Lower *L, const char *name, Type *et, SrcLoc loc) {
  if ((et->kind == TY_INT && !ty_is_time(et)) || (et->kind == TY_FLOAT && !ty_is_bf16(et))) return et;
  lw_lerr(L, loc, "%s requires array of integer or float type, got %s", name, tname(L, et));
  return NULL;
}

/* cuda.ldca(p, i) ... of a pointer p (a CPointer): p[i] (one integer of any type, no wraparound, no bounds) by a
 * mem.ptr_load / mem.ptr_store with the `cache` attribute, as numba-cuda's cache_hints reads a pointer. */
static FeVal pointer_cache_hint(Lower *L, const char *name, bool store, const FeVal *p, const FeVal *a, const PyExpr *e) {
  if (a[1].kind == FV_TUPLE)
    return lw_lerr(L, arg_loc(e, 1), "Pointers only support scalar indexing, got tuple of %u", a[1].tup.n);
  if (a[1].kind != FV_VAL || !is_int_type(a[1].type) || is_enum_only(&a[1]))
    return lw_lerr(L, arg_loc(e, 1), "%s is not a valid index", lw_vname(L, &a[1]));
  Type *et = cache_hint_element(L, name, p->type->elem, arg_loc(e, 0));
  if (!et) return poison();
  if (store && (!is_scalar(&a[2]) || lw_implicit_conv_error(L, &a[2], et, arg_loc(e, 2), " to store it into an element")))
    return is_scalar(&a[2]) ? poison()
                            : lw_lerr(L, arg_loc(e, 2), "cannot store %s into an element of %s", lw_vname(L, &a[2]),
                                      tname(L, p->type));
  at(L, e->loc);
  Value *ops[3];
  unsigned k = 0;
  if (store) ops[k++] = conv_v(L, a[2], et);
  ops[k++] = p->v;
  ops[k++] = conv_v(L, a[1], ty_i64(L->ctx));
  Op *op = ib_op(&L->b, store ? OP_PTR_STORE : OP_PTR_LOAD, k, ops, store ? 0 : 1, store ? NULL : &et, 0);
  ir_op_set_attr(L->m, op, "cache", attr_str(L->m, name + 2)); /* "ca", "cg", ..., "wt" */
  return store ? (FeVal){.kind = FV_NONE} : val(et, op_result(op, 0));
}

FeVal lower_cache_hint(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const char *name = sema_builtin_name(bi);
  bool store = bi == BI_STCG || bi == BI_STCS || bi == BI_STWB || bi == BI_STWT;
  FeVal arr = a[0].kind == FV_VIEW ? lw_view_value(L, &a[0]) : a[0];
  if (arr.kind == FV_POISON || a[1].kind == FV_POISON || (store && a[2].kind == FV_POISON)) return poison();
  if (is_pointer(&arr)) return pointer_cache_hint(L, name, store, &arr, a, e);
  if (!is_array(&arr) || ty_is_record(arr.type->elem))
    return lw_lerr(L, arg_loc(e, 0), "%s operates on arrays or pointers. Got type %s", name, lw_vname(L, &a[0]));
  unsigned rank = arr.type->rank;
  FeVal ix[32];
  unsigned n = 0;
  if (a[1].kind == FV_VAL && is_int_type(a[1].type) && !is_enum_only(&a[1])) {
    if (rank != 1) return lw_lerr(L, arg_loc(e, 1), "Expected %u indices, got a scalar", rank);
    ix[n++] = a[1];
  } else if (a[1].kind == FV_TUPLE && a[1].tup.n) {
    bool uniform = true, ints = true;
    for (unsigned k = 0; k < a[1].tup.n; k++) {
      const FeVal *t = &a[1].tup.elems[k];
      uniform &= t->kind == FV_VAL && a[1].tup.elems[0].kind == FV_VAL && t->type == a[1].tup.elems[0].type;
      ints &= t->kind == FV_VAL && is_int_type(t->type) && !is_enum_only(t);
    }
    if (uniform && a[1].tup.n != rank)
      return lw_lerr(L, arg_loc(e, 1), "Expected %u indices, got %u", rank, a[1].tup.n);
    if (!uniform || !ints || a[1].tup.n > 32)
      return lw_lerr(L, arg_loc(e, 1), "%s is not a valid index", lw_vname(L, &a[1]));
    for (unsigned k = 0; k < a[1].tup.n; k++) ix[n++] = a[1].tup.elems[k];
  } else {
    return lw_lerr(L, arg_loc(e, 1), "%s is not a valid index", lw_vname(L, &a[1]));
  }
  Type *et = cache_hint_element(L, name, arr.type->elem, arg_loc(e, 0));
  if (!et) return poison();
  if (store && (!is_scalar(&a[2]) || lw_implicit_conv_error(L, &a[2], et, arg_loc(e, 2), " to store it into an element")))
    return is_scalar(&a[2]) ? poison()
                            : lw_lerr(L, arg_loc(e, 2), "cannot store %s into an element of %s", lw_vname(L, &a[2]),
                                      tname(L, arr.type));
  Value *base, *idx[32];
  if (lw_index_array(L, &arr, ix, n, e->loc, store, &base, idx).kind == FV_POISON) return poison();
  at(L, e->loc);
  Value *ops[34];
  unsigned k = 0;
  if (store) ops[k++] = conv_v(L, a[2], et);
  ops[k++] = base;
  for (unsigned d = 0; d < rank; d++) ops[k++] = idx[d];
  Op *op = ib_op(&L->b, store ? OP_STORE : OP_LOAD, k, ops, store ? 0 : 1, store ? NULL : &et, 0);
  ir_op_set_attr(L->m, op, "cache", attr_str(L->m, name + 2)); /* "ca", "cg", ..., "wt" */
  return store ? (FeVal){.kind = FV_NONE} : val(et, op_result(op, 0));
}

/* ---- calls: arrays over pointers ------------------------------------------------------------------------------- */

/* carray(ptr, shape, dtype=None) / farray(...) (numba's numpy_support, numba-cuda's np_cfarray): the array of that
 * shape (an integer, or a tuple of them, known at compile time or not) over the memory the pointer points to, C- or
 * F-contiguous, its dtype the pointer's (a dtype given must be it), by a mem.ptr_array. */
FeVal lower_cfarray(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  if (a[0].kind == FV_POISON || a[1].kind == FV_POISON || a[2].kind == FV_POISON) return poison();
  if (!is_pointer(&a[0])) return lw_lerr(L, arg_loc(e, 0), "pointer argument expected, got '%s'", lw_vname(L, &a[0]));
  Type *elem = a[0].type->elem;
  if (a[2].kind != FV_UNDEF && a[2].kind != FV_NONE) {
    SrcLoc dloc = e->call.args.n > 2 ? arg_loc(e, 2) : e->loc;
    Type *dt = lw_dtype_of(L, &a[2], dloc);
    if (!dt) return poison();
    if (dt != elem)
      return lw_lerr(L, dloc, "mismatching dtype '%s' for pointer type '%s'", tname(L, dt), tname(L, a[0].type));
  }
  const FeVal *dims = &a[1];
  unsigned rank = 1;
  if (a[1].kind == FV_TUPLE) {
    dims = a[1].tup.elems;
    rank = a[1].tup.n;
  }
  bool ok = rank >= 1 && rank <= 8;
  for (unsigned d = 0; d < rank && ok; d++) ok = is_scalar(&dims[d]) && is_int_type(dims[d].type) && !is_enum_only(&dims[d]);
  if (!ok)
    return lw_lerr(L, e->call.args.n > 1 ? arg_loc(e, 1) : e->loc, "invalid shape '%s'%s", lw_vname(L, &a[1]),
                   rank > 8 ? " (kfront's arrays have at most 8 dimensions)" : "");
  at(L, e->loc);
  Type *i64 = ty_i64(L->ctx);
  Value *ops[17];
  ops[0] = a[0].v;
  for (unsigned d = 0; d < rank; d++) ops[1 + d] = conv_v(L, dims[d], i64);
  Value *stride = ib_const_int(&L->b, i64, (int64_t)ty_size(elem));
  for (unsigned k = 0; k < rank; k++) { /* C: the last axis moves by one element; F: the first */
    unsigned d = bi == BI_CARRAY ? rank - 1 - k : k;
    ops[1 + rank + d] = stride;
    if (k + 1 < rank) stride = ib_binary(&L->b, OP_MULI, stride, ops[1 + d]);
  }
  Type *t = ty_array(L->ctx, elem, rank, bi == BI_CARRAY ? LAYOUT_C : LAYOUT_F);
  return val(t, op_result(ib_op(&L->b, OP_PTR_ARRAY, 1 + 2 * rank, ops, 1, &t, 0), 0));
}

/* ffi.from_buffer(a) of a cffi.FFI object (numba-cuda's typing/cffi_utils.py): a pointer to the first element of a
 * contiguous array (C, or F of one dimension), typed CPointer of its dtype, by a mem.data; numba-cuda's messages for
 * anything else. */
FeVal lower_ffi_from_buffer(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  FeVal arr = a[0].kind == FV_VIEW ? lw_view_value(L, &a[0]) : a[0];
  if (arr.kind == FV_POISON) return arr;
  SrcLoc loc = arg_loc(e, 0);
  if (!is_array(&arr)) return lw_lerr(L, loc, "from_buffer() expected a buffer object, got %s", lw_vname(L, &a[0]));
  Type *t = arr.type;
  if (t->layout != LAYOUT_C && t->layout != LAYOUT_F)
    return lw_lerr(L, loc, "from_buffer() unsupported on non-contiguous buffers (got %s)", tname(L, t));
  if (t->layout != LAYOUT_C && t->rank > 1)
    return lw_lerr(L, loc, "from_buffer() only supports multidimensional arrays with C layout (got %s)", tname(L, t));
  if (!ty_is_scalar(t->elem) || ty_is_time(t->elem) || t->elem->storage)
    return lw_lerr(L, loc, "pointer types (%s*) are not supported by kfront: ffi.from_buffer takes arrays of numbers",
                   tname(L, t->elem));
  at(L, e->loc);
  Type *pt = ty_ptr(L->ctx, t->elem, 0);
  return val(pt, op_result(ib_op(&L->b, OP_DATA, 1, &arr.v, 1, &pt, 0), 0));
}
