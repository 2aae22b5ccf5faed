/* verify.c — the kir verifier: structure, SSA dominance and the per-op rules of ops.def.
 *
 * Every op gets, in order:
 *   1. generic checks from its ops.def row: operand, result, region and successor counts (VAR = any),
 *      no null operand or untyped value, successors in the op's own region (never its entry block) and
 *      successor operands matching each successor block's arguments in number and type;
 *   2. SSA dominance of each operand at the op (dom_value_dominates: same block = defined earlier,
 *      other blocks of one region = dominator tree, enclosing regions visible except across func.func,
 *      uses in unreachable blocks accepted);
 *   3. its own rule, `verify_<verifier>` for the verifier named in its ops.def row, dispatched through a
 *      table generated from ops.def (an op whose verifier is missing here does not compile);
 * then its regions (nested at most IR_MAX_NESTING deep): each has blocks, ops other than func.func have exactly one, every block ends in
 * exactly one terminator and holds none elsewhere. Terminators check where they stand (scf.yield in an
 * scf.if, scf.for or the after-region of scf.while; scf.condition in the before-region of scf.while;
 * func.return, cf.br and cf.cond_br directly in a func.func) and the types they pass on.
 *
 * Each violation is one diag_error at the offending op's location, "'dialect.op' op <message>"; the
 * walk goes on to find the rest. Per-op rules stop at an op's first broken rule, and are skipped when the
 * generic checks already found its shape broken (they index operands by position). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir.h"
#include "ir/libdevice.h"
#include "utils/stack.h"

typedef struct VerifyCtx {
  Module *m;          /* the module the ops live in, for symbols; NULL for a detached op */
  Diag *diag;
  DomCache *dom;
  Op *root;           /* ir_verify_op's op (NULL for a whole module) */
  unsigned nerrors;
  unsigned depth;     /* regions entered */
  StrBuf tys[8];      /* ring of rendered types for messages */
  unsigned tynext;
} VerifyCtx;

static bool op_error(VerifyCtx *c, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool op_error(VerifyCtx *c, const Op *op, const char *fmt, ...) {
  StrBuf msg;
  sb_init(&msg);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&msg, fmt, ap);
  va_end(ap);
  diag_error(c->diag, op->loc, "'%s' op %s", op_name(op), sb_cstr(&msg));
  sb_free(&msg);
  c->nerrors++;
  return false;
}

/* A type as text, valid for the next few calls (a ring of buffers). */
static const char *T(VerifyCtx *c, const Type *t) {
  StrBuf *b = &c->tys[c->tynext++ % 8];
  sb_reset(b);
  if (t) ty_print(t, b);
  else sb_puts(b, "<none>");
  return sb_cstr(b);
}

/* "in 'scf.if'" for an op's parent p, "at module level" for none (text valid as T's). */
static const char *where(VerifyCtx *c, const Op *p) {
  StrBuf *b = &c->tys[c->tynext++ % 8];
  sb_reset(b);
  if (p) sb_printf(b, "in '%s'", op_name(p));
  else sb_puts(b, "at module level");
  return sb_cstr(b);
}

static const char *plural(unsigned n) { return n == 1 ? "" : "s"; }

static Type *OT(const Op *op, unsigned i) { return op->operands[i].value->type; }
static Type *RT(const Op *op, unsigned i) { return op->results[i].type; }
static Op *parent_op(const Op *op) { return op->block ? ir_block_parent_op(op->block) : NULL; }

static bool is_i64(const Type *t) { return t->kind == TY_INT && t->bits == 64 && !t->is_unsigned; }
static bool is_int32(const Type *t) { return t->kind == TY_INT && t->bits == 32; }
static bool at_module_level(const Op *op) { return op->block && op->block->region && !op->block->region->parent; }

/* Index of region r among op's regions. */
static unsigned region_index(const Op *op, const Region *r) { return (unsigned)(r - op->regions); }

/* ---- type lists: operands, results, block arguments or a plain array, compared element-wise ----- */

typedef enum { TL_OPERANDS, TL_RESULTS, TL_ARGS, TL_ARRAY } TypeListKind;
typedef struct {
  TypeListKind kind;
  const Op *op;
  const Block *block;
  Type *const *arr;
  unsigned start, n;  /* elements start .. start+n-1 of the source (start is shown in messages) */
} TypeList;

static TypeList tl_operands(const Op *op, unsigned start, unsigned n) { return (TypeList){TL_OPERANDS, op, NULL, NULL, start, n}; }
static TypeList tl_results(const Op *op) { return (TypeList){TL_RESULTS, op, NULL, NULL, 0, op->nresults}; }
static TypeList tl_args(const Block *b, unsigned start) {
  return (TypeList){TL_ARGS, NULL, b, NULL, start, b->nargs > start ? b->nargs - start : 0};
}
static TypeList tl_array(Type *const *arr, unsigned n) { return (TypeList){TL_ARRAY, NULL, NULL, arr, 0, n}; }

static Type *tl_at(TypeList l, unsigned i) {
  switch (l.kind) {
  case TL_OPERANDS: return OT(l.op, l.start + i);
  case TL_RESULTS: return RT(l.op, l.start + i);
  case TL_ARGS: return l.block->args[l.start + i]->type;
  case TL_ARRAY: return l.arr[l.start + i];
  }
  return NULL;
}

/* got must equal want element-wise. Messages: "expects 2 <got>s to match the <want>s <owner>, got 1" and
 * "type of <got> #i must match <want> #j <owner>: tgot vs twant". */
static bool match_types(VerifyCtx *c, const Op *op, TypeList got, const char *got_noun, TypeList want,
                        const char *want_noun, const char *owner) {
  if (got.n != want.n)
    return op_error(c, op, "expects %u %s%s to match the %ss %s, got %u", want.n, got_noun, plural(want.n), want_noun,
                    owner, got.n);
  bool ok = true;
  for (unsigned i = 0; i < got.n; i++) {
    Type *g = tl_at(got, i), *w = tl_at(want, i);
    if (g != w)
      ok = op_error(c, op, "type of %s #%u must match %s #%u %s: %s vs %s", got_noun, got.start + i, want_noun,
                    want.start + i, owner, T(c, g), T(c, w));
  }
  return ok;
}

/* ---- attributes ------------------------------------------------------------------------------- */

static const char *const attr_kind_names[] = {
    [ATTR_UNIT] = "a unit attribute", [ATTR_BOOL] = "a boolean", [ATTR_INT] = "an integer",
    [ATTR_FLOAT] = "a float",         [ATTR_STR] = "a string",   [ATTR_SYM] = "a symbol (@name)",
    [ATTR_TYPE] = "a type",           [ATTR_ARRAY] = "an array",
};

static Attr *need_attr(VerifyCtx *c, const Op *op, const char *name, AttrKind kind) {
  Attr *a = ir_op_attr(op, name);
  if (!a) {
    op_error(c, op, "requires attribute '%s'", name);
    return NULL;
  }
  if (a->kind != kind) {
    op_error(c, op, "attribute '%s' must be %s", name, attr_kind_names[kind]);
    return NULL;
  }
  return a;
}

/* Reports that attribute `name`'s value `got` is none of those of list (its spellings, ", "-separated); -1. */
static int bad_choice(VerifyCtx *c, const Op *op, const char *name, StrBuf *list, const char *got) {
  op_error(c, op, "attribute '%s' must be one of %s; got \"%s\"", name, sb_cstr(list), got);
  sb_free(list);
  return -1;
}

/* The string attribute `name`, which must be one of choices (NULL-terminated); its index or -1. */
static int need_choice(VerifyCtx *c, const Op *op, const char *name, const char *const *choices) {
  Attr *a = need_attr(c, op, name, ATTR_STR);
  if (!a) return -1;
  for (int i = 0; choices[i]; i++)
    if (strcmp(a->s, choices[i]) == 0) return i;
  StrBuf list;
  sb_init(&list);
  for (int i = 0; choices[i]; i++) sb_printf(&list, "%s%s", i ? ", " : "", choices[i]);
  return bad_choice(c, op, name, &list, a->s);
}

/* The attribute of enumeration e (ir/attr_enums.def), which must spell one of e's values; the value or -1. */
static int need_enum(VerifyCtx *c, const Op *op, IrAttrEnum e) {
  const char *name = ir_enum_attr_name(e);
  Attr *a = need_attr(c, op, name, ATTR_STR);
  if (!a) return -1;
  int v = ir_enum_parse(e, a->s);
  if (v >= 0) return v;
  StrBuf list;
  sb_init(&list);
  ir_enum_list(e, false, &list);
  return bad_choice(c, op, name, &list, a->s);
}

/* Attribute `shape`: an array of rank positive integers (or, with empty_ok, non-negative: a constant array may be
 * empty, as NumPy's); *count gets their product (saturated). */
static bool check_shape(VerifyCtx *c, const Op *op, unsigned rank, bool empty_ok, int64_t *count) {
  Attr *a = need_attr(c, op, "shape", ATTR_ARRAY);
  if (!a) return false;
  if (a->arr.n != rank)
    return op_error(c, op, "attribute 'shape' has %u extent%s but the array type has rank %u", a->arr.n,
                    plural(a->arr.n), rank);
  int64_t prod = 1;
  for (unsigned i = 0; i < a->arr.n; i++) {
    const Attr *e = &a->arr.elems[i];
    if (e->kind != ATTR_INT || e->i < 0 || (e->i == 0 && !empty_ok))
      return op_error(c, op, "attribute 'shape' extent #%u must be a positive integer", i);
    prod = e->i == 0 ? 0 : prod > INT64_MAX / e->i ? INT64_MAX : prod * e->i;
  }
  *count = prod;
  return true;
}

/* The module-level op named by symbol attribute `attr` (must exist); NULL, reported, if it does not.
 * Without a module (a detached op) *unknown is set and nothing is reported. */
static Op *need_symbol(VerifyCtx *c, const Op *op, const char *attr, bool *unknown) {
  *unknown = false;
  Attr *a = need_attr(c, op, attr, ATTR_SYM);
  if (!a) return NULL;
  if (!c->m) {
    *unknown = true;
    return NULL;
  }
  Op *t = ir_module_lookup(c->m, a->s);
  if (!t || t->block != ir_module_body(c->m)) {
    op_error(c, op, "'%s' refers to an undefined symbol @%s", attr, a->s);
    return NULL;
  }
  return t;
}

/* ---- per-op rules (one per verifier name in ops.def) --------------------------------------------- */

static bool verify_none(VerifyCtx *c, Op *op) {
  (void)c, (void)op;
  return true;
}

static bool verify_func(VerifyCtx *c, Op *op) {
  if (!at_module_level(op)) return op_error(c, op, "must be at module level");
  bool ok = need_attr(c, op, "sym_name", ATTR_SYM) != NULL;
  Attr *ft = need_attr(c, op, "function_type", ATTR_TYPE);
  if (!ft) return false;
  Type *t = ft->type;
  if (!t || t->kind != TY_FUNC) return op_error(c, op, "attribute 'function_type' must be a function type, got %s", T(c, t));
  if (ir_op_attr(op, "kernel") && t->nresults)
    ok = op_error(c, op, "is a kernel and must return no values, but its type is %s", T(c, t));
  Block *entry = op->regions[0].first;
  if (!entry) return ok;
  return match_types(c, op, tl_args(entry, 0), "entry block argument", tl_array(t->elems, t->n), "parameter",
                     "of the function type") && ok;
}

static bool verify_return(VerifyCtx *c, Op *op) {
  Op *f = parent_op(op);
  if (!f || f->kind != OP_FUNC_FUNC)
    return op_error(c, op, "must be directly in a 'func.func' region, not %s", where(c, f));
  Type *t = ir_func_type(f);
  if (!t || t->kind != TY_FUNC) return true; /* reported at the func.func */
  return match_types(c, op, tl_operands(op, 0, op->noperands), "operand", tl_array(t->results, t->nresults), "result",
                     "of the function type");
}

static bool verify_call(VerifyCtx *c, Op *op) {
  bool unknown;
  Op *f = need_symbol(c, op, "callee", &unknown);
  if (!f) return unknown;
  const char *name = ir_op_attr_str(op, "callee");
  if (f->kind != OP_FUNC_FUNC) return op_error(c, op, "callee @%s is a '%s', not a 'func.func'", name, op_name(f));
  Type *t = ir_func_type(f);
  if (!t || t->kind != TY_FUNC) return true; /* reported at the callee */
  char owner[256];
  snprintf(owner, sizeof owner, "of @%s", name);
  bool ok = match_types(c, op, tl_operands(op, 0, op->noperands), "operand", tl_array(t->elems, t->n), "parameter", owner);
  return match_types(c, op, tl_results(op), "result", tl_array(t->results, t->nresults), "result", owner) && ok;
}

static bool int_fits(const Type *t, int64_t v) {
  if (t->kind == TY_BOOL) return v == 0 || v == 1;
  if (t->bits >= 64) return true;
  if (t->is_unsigned) return v >= 0 && v < ((int64_t)1 << t->bits);
  int64_t lim = (int64_t)1 << (t->bits - 1);
  return v >= -lim && v < lim;
}

static bool verify_constant(VerifyCtx *c, Op *op) {
  Type *r = RT(op, 0);
  Attr *a = ir_op_attr(op, "value");
  if (!a) return op_error(c, op, "requires attribute 'value'");
  if (ty_is_int_or_bool(r)) {
    if (a->kind != ATTR_INT) return op_error(c, op, "attribute 'value' must be an integer for result type %s", T(c, r));
  } else if (ty_is_float(r)) {
    if (a->kind != ATTR_FLOAT) return op_error(c, op, "attribute 'value' must be a float for result type %s", T(c, r));
  } else {
    return op_error(c, op, "result must be an integer, i1 or float, got %s", T(c, r));
  }
  if (a->type != r)
    return op_error(c, op, "attribute 'value' type must match the result type: %s vs %s", T(c, a->type), T(c, r));
  if (a->kind == ATTR_INT && !int_fits(r, a->i)) {
    if (r->kind == TY_INT && r->is_unsigned) return op_error(c, op, "value %llu does not fit in %s", (unsigned long long)a->i, T(c, r));
    return op_error(c, op, "value %lld does not fit in %s", (long long)a->i, T(c, r));
  }
  return true;
}

typedef bool (*TypePred)(const Type *t);
static bool pred_int(const Type *t) { return t->kind == TY_INT; }
static bool pred_int_or_bool(const Type *t) { return ty_is_int_or_bool(t); }
static bool pred_float(const Type *t) { return t->kind == TY_FLOAT; }

static bool check_binary(VerifyCtx *c, Op *op, TypePred pred, const char *what) {
  Type *a = OT(op, 0), *b = OT(op, 1), *r = RT(op, 0);
  if (a != b) return op_error(c, op, "operand types must match: %s vs %s", T(c, a), T(c, b));
  if (!pred(a)) return op_error(c, op, "operands must be %s, got %s", what, T(c, a));
  if (r != a) return op_error(c, op, "result type must match the operands: %s vs %s", T(c, r), T(c, a));
  return true;
}

static bool check_unary(VerifyCtx *c, Op *op, TypePred pred, const char *what) {
  Type *a = OT(op, 0), *r = RT(op, 0);
  if (!pred(a)) return op_error(c, op, "operand must be %s, got %s", what, T(c, a));
  if (r != a) return op_error(c, op, "result type must match the operand: %s vs %s", T(c, r), T(c, a));
  return true;
}

static bool verify_int_binary(VerifyCtx *c, Op *op) { return check_binary(c, op, pred_int, "integers"); }
static bool verify_bool_or_int_binary(VerifyCtx *c, Op *op) { return check_binary(c, op, pred_int_or_bool, "integers or i1"); }
static bool verify_float_binary(VerifyCtx *c, Op *op) { return check_binary(c, op, pred_float, "floats"); }
static bool verify_int_unary(VerifyCtx *c, Op *op) { return check_unary(c, op, pred_int, "an integer"); }
static bool verify_float_unary(VerifyCtx *c, Op *op) { return check_unary(c, op, pred_float, "a float"); }
static bool pred_float_wide(const Type *t) { return ty_is_float(t) && t->bits >= 32; }
static bool verify_float_binary_wide(VerifyCtx *c, Op *op) { return check_binary(c, op, pred_float_wide, "f32 or f64"); }

static bool verify_float_ternary(VerifyCtx *c, Op *op) {
  Type *r = RT(op, 0);
  if (!ty_is_float(r)) return op_error(c, op, "result must be a float, got %s", T(c, r));
  for (unsigned i = 0; i < 3; i++)
    if (OT(op, i) != r) return op_error(c, op, "operand #%u must be the result type %s, got %s", i, T(c, r), T(c, OT(op, i)));
  return true;
}

/* ---- complex ---- */
static bool verify_complex_create(VerifyCtx *c, Op *op) {
  Type *r = RT(op, 0);
  if (!ty_is_complex(r)) return op_error(c, op, "result must be a complex type, got %s", T(c, r));
  for (unsigned i = 0; i < 2; i++)
    if (OT(op, i) != r->elem) return op_error(c, op, "operand #%u must be %s, got %s", i, T(c, r->elem), T(c, OT(op, i)));
  return true;
}
static bool verify_complex_part(VerifyCtx *c, Op *op) {
  Type *a = OT(op, 0);
  if (!ty_is_complex(a)) return op_error(c, op, "operand must be a complex type, got %s", T(c, a));
  if (RT(op, 0) != a->elem) return op_error(c, op, "result must be %s, got %s", T(c, a->elem), T(c, RT(op, 0)));
  return true;
}
static bool pred_complex(const Type *t) { return ty_is_complex(t); }
static bool verify_complex_binary(VerifyCtx *c, Op *op) { return check_binary(c, op, pred_complex, "complex"); }
static bool verify_complex_unary(VerifyCtx *c, Op *op) { return check_unary(c, op, pred_complex, "complex"); }
static bool verify_complex_cmp(VerifyCtx *c, Op *op) {
  if (OT(op, 0) != OT(op, 1)) return op_error(c, op, "operand types must match: %s vs %s", T(c, OT(op, 0)), T(c, OT(op, 1)));
  if (!ty_is_complex(OT(op, 0))) return op_error(c, op, "operands must be complex, got %s", T(c, OT(op, 0)));
  if (!ty_is_bool(RT(op, 0))) return op_error(c, op, "result must be i1, got %s", T(c, RT(op, 0)));
  return true;
}

static bool verify_ldexp(VerifyCtx *c, Op *op) {
  Type *a = OT(op, 0), *n = OT(op, 1), *r = RT(op, 0);
  if (!ty_is_float(a)) return op_error(c, op, "operand #0 must be a float, got %s", T(c, a));
  if (!ty_is_int(n) || n->bits != 32 || n->is_unsigned) return op_error(c, op, "exponent (operand #1) must be i32, got %s", T(c, n));
  if (r != a) return op_error(c, op, "result type must match operand #0: %s vs %s", T(c, r), T(c, a));
  return true;
}

static bool verify_frexp_exp(VerifyCtx *c, Op *op) {
  Type *a = OT(op, 0), *r = RT(op, 0);
  if (!ty_is_float(a)) return op_error(c, op, "operand must be a float, got %s", T(c, a));
  if (!ty_is_int(r) || r->bits != 32 || r->is_unsigned) return op_error(c, op, "result must be i32, got %s", T(c, r));
  return true;
}

static bool check_compare(VerifyCtx *c, Op *op, int *pred_index) {
  *pred_index = need_enum(c, op, ir_cmp_pred_enum(op->kind));
  if (*pred_index < 0) return false;
  Type *a = OT(op, 0), *b = OT(op, 1), *r = RT(op, 0);
  if (a != b) return op_error(c, op, "operand types must match: %s vs %s", T(c, a), T(c, b));
  if (!ty_is_bool(r)) return op_error(c, op, "result must be i1, got %s", T(c, r));
  return true;
}

static bool verify_cmpi(VerifyCtx *c, Op *op) {
  int p;
  if (!check_compare(c, op, &p)) return false;
  Type *a = OT(op, 0);
  if (ty_is_bool(a) && p != IR_CMPI_EQ && p != IR_CMPI_NE)
    return op_error(c, op, "predicate \"%s\" does not apply to i1 (only eq and ne do)", ir_cmpi_pred_name((IrCmpIPred)p));
  if (!ty_is_int_or_bool(a)) return op_error(c, op, "operands must be integers (or i1 for eq and ne), got %s", T(c, a));
  return true;
}

static bool verify_cmpf(VerifyCtx *c, Op *op) {
  int p;
  if (!check_compare(c, op, &p)) return false;
  if (!ty_is_float(OT(op, 0))) return op_error(c, op, "operands must be floats, got %s", T(c, OT(op, 0)));
  return true;
}

static bool verify_select(VerifyCtx *c, Op *op) {
  Type *cond = OT(op, 0), *a = OT(op, 1), *b = OT(op, 2), *r = RT(op, 0);
  if (!ty_is_bool(cond)) return op_error(c, op, "condition (operand #0) must be i1, got %s", T(c, cond));
  if (a != b) return op_error(c, op, "operand types must match: %s vs %s", T(c, a), T(c, b));
  if (r != a) return op_error(c, op, "result type must match the operands: %s vs %s", T(c, r), T(c, a));
  return true;
}

/* A cast from a type satisfying `from` to one satisfying `to`; cmp < 0: result strictly narrower,
 * > 0: strictly wider, 0: no width rule. */
static bool check_cast(VerifyCtx *c, Op *op, TypePred from, const char *from_what, TypePred to, const char *to_what,
                       int cmp) {
  Type *a = OT(op, 0), *r = RT(op, 0);
  if (!from(a)) return op_error(c, op, "operand must be %s, got %s", from_what, T(c, a));
  if (!to(r)) return op_error(c, op, "result must be %s, got %s", to_what, T(c, r));
  if (cmp > 0 && r->bits <= a->bits)
    return op_error(c, op, "result type must be wider than the operand type: %s -> %s", T(c, a), T(c, r));
  if (cmp < 0 && r->bits >= a->bits)
    return op_error(c, op, "result type must be narrower than the operand type: %s -> %s", T(c, a), T(c, r));
  return true;
}

static bool verify_int_widen(VerifyCtx *c, Op *op) {
  if (op->kind == OP_EXTUI) return check_cast(c, op, pred_int_or_bool, "an integer or i1", pred_int, "an integer", 1);
  return check_cast(c, op, pred_int, "an integer", pred_int, "an integer", 1);
}
static bool verify_int_narrow(VerifyCtx *c, Op *op) {
  return check_cast(c, op, pred_int, "an integer", pred_int_or_bool, "an integer or i1", -1);
}
/* The optional attr round of a conversion to a float (arith.truncf, sitofp, uitofp): "rn" (the default, to nearest
 * even), "rz", "rd" or "ru" (toward zero, -inf, +inf) */
static bool round_attr_ok(VerifyCtx *c, Op *op) {
  Attr *a = ir_op_attr(op, "round");
  if (a && (a->kind != ATTR_STR || ir_round_mode_parse(a->s) < 0))
    return op_error(c, op, "attr round must be \"rn\", \"rz\", \"rd\" or \"ru\"");
  /* to f64 only integers of 64 bits round; ir/op_semantics defines rounding to f32, f16 and bf16 */
  if (a && RT(op, 0)->bits == 64) return op_error(c, op, "attr round needs a result narrower than f64");
  return true;
}
static bool verify_int_to_float(VerifyCtx *c, Op *op) {
  if (op->kind == OP_UITOFP)
    return check_cast(c, op, pred_int_or_bool, "an integer or i1", pred_float, "a float", 0) && round_attr_ok(c, op);
  return check_cast(c, op, pred_int, "an integer", pred_float, "a float", 0) && round_attr_ok(c, op);
}
static bool verify_float_to_int(VerifyCtx *c, Op *op) { return check_cast(c, op, pred_float, "a float", pred_int, "an integer", 0); }
/* extf: to a float holding every value of the operand's type (f16 and bf16 hold each other's only in part: truncf
 * converts between them, rounding) */
static bool verify_float_widen(VerifyCtx *c, Op *op) {
  if (!check_cast(c, op, pred_float, "a float", pred_float, "a float", 0)) return false;
  Type *a = OT(op, 0), *r = RT(op, 0);
  if (a == r || !ty_float_holds(r, a))
    return op_error(c, op, "result type must be wider than the operand type: %s -> %s", T(c, a), T(c, r));
  return true;
}
static bool verify_float_narrow(VerifyCtx *c, Op *op) {
  if (!check_cast(c, op, pred_float, "a float", pred_float, "a float", 0)) return false;
  Type *a = OT(op, 0), *r = RT(op, 0);
  if (a == r || ty_float_holds(r, a))
    return op_error(c, op, "result type must be narrower than the operand type: %s -> %s", T(c, a), T(c, r));
  return round_attr_ok(c, op);
}

static bool pred_int_or_float(const Type *t) { return t->kind == TY_INT || t->kind == TY_FLOAT; }
static bool verify_bitcast(VerifyCtx *c, Op *op) {
  if (!check_cast(c, op, pred_int_or_float, "an integer or float", pred_int_or_float, "an integer or float", 0)) return false;
  Type *a = OT(op, 0), *r = RT(op, 0);
  if (a->bits != r->bits) return op_error(c, op, "operand and result must have the same width: %s -> %s", T(c, a), T(c, r));
  return true;
}

/* arith.to_fp8 / from_fp8: a float and an 8-bit unsigned integer (u8 or an FP8 storage type, of attr format), attr
 * format one of e4m3, e5m2, e8m0; to_fp8's unit attr satfinite, and its attr round (rz or ru) for e8m0 only */
static bool pred_byte(const Type *t) { return t->kind == TY_INT && t->bits == 8 && t->is_unsigned; }
static bool fp8_format_ok(VerifyCtx *c, Op *op, const Type *bits) {
  const char *f = ir_op_attr_str(op, "format");
  TyStorage fmt = f ? ty_fp8_format_parse(f, strlen(f)) : TS_NONE;
  if (fmt == TS_NONE) return op_error(c, op, "attr format must be \"e4m3\", \"e5m2\" or \"e8m0\"");
  if (bits->storage && bits->storage != fmt)
    return op_error(c, op, "attr format %s does not match the type %s", f, T(c, bits));
  return true;
}
static bool verify_to_fp8(VerifyCtx *c, Op *op) {
  if (!check_cast(c, op, pred_float, "a float", pred_byte, "an 8-bit unsigned integer", 0) || !fp8_format_ok(c, op, RT(op, 0)))
    return false;
  IrRoundMode round = ir_op_round_mode(op);
  bool e8m0 = strcmp(ir_op_attr_str(op, "format"), "e8m0") == 0;
  if (e8m0 ? round != IR_ROUND_RZ && round != IR_ROUND_RU : ir_op_attr(op, "round") != NULL)
    return op_error(c, op, "attr round must be \"rz\" or \"ru\" for e8m0, and absent for the other formats");
  return true;
}
static bool verify_from_fp8(VerifyCtx *c, Op *op) {
  return check_cast(c, op, pred_byte, "an 8-bit unsigned integer", pred_float, "a float", 0) && fp8_format_ok(c, op, OT(op, 0));
}

/* math.libdevice: a function of ir/libdevice.def, its arguments' types, the type of its result number part */
static bool verify_libdevice(VerifyCtx *c, Op *op) {
  const char *name = ir_op_attr_str(op, "name");
  const LibdeviceFn *f = name && strncmp(name, "__nv_", 5) == 0 ? ir_libdevice_lookup(name + 5) : NULL;
  if (!f) return op_error(c, op, "attr name must name a libdevice function of cuda.libdevice (\"__nv_sin\", ...)");
  LdShape sh;
  ir_libdevice_shape(f, &sh);
  int64_t part = ir_op_attr_int(op, "part", 0);
  if (op->noperands != sh.nargs) return op_error(c, op, "%s takes %u arguments, got %u", name, sh.nargs, op->noperands);
  for (unsigned i = 0; i < sh.nargs; i++)
    if (!ir_libdevice_type_is(OT(op, i), sh.args[i]))
      return op_error(c, op, "argument #%u of %s must be %s, got %s", i, name, ir_libdevice_type_name(sh.args[i]), T(c, OT(op, i)));
  if (part < 0 || part >= (int64_t)sh.nresults) return op_error(c, op, "attr part must be below %u", sh.nresults);
  if (!ir_libdevice_type_is(RT(op, 0), sh.results[part]))
    return op_error(c, op, "result #%d of %s is %s, not %s", (int)part, name, ir_libdevice_type_name(sh.results[part]), T(c, RT(op, 0)));
  return true;
}

static bool verify_powi(VerifyCtx *c, Op *op) {
  Type *a = OT(op, 0), *n = OT(op, 1), *r = RT(op, 0);
  if (!ty_is_float(a)) return op_error(c, op, "base (operand #0) must be a float, got %s", T(c, a));
  if (!ty_is_int(n)) return op_error(c, op, "exponent (operand #1) must be an integer, got %s", T(c, n));
  if (r != a) return op_error(c, op, "result type must match the base: %s vs %s", T(c, r), T(c, a));
  return true;
}

static bool verify_float_pred(VerifyCtx *c, Op *op) {
  if (!ty_is_float(OT(op, 0))) return op_error(c, op, "operand must be a float, got %s", T(c, OT(op, 0)));
  if (!ty_is_bool(RT(op, 0))) return op_error(c, op, "result must be i1, got %s", T(c, RT(op, 0)));
  return true;
}

/* ---- mem ---- */

static bool need_array_operand(VerifyCtx *c, const Op *op, unsigned i) {
  if (!ty_is_array(OT(op, i))) return op_error(c, op, "operand #%u must be an array, got %s", i, T(c, OT(op, i)));
  return true;
}

static bool need_i64_result(VerifyCtx *c, const Op *op) {
  if (!is_i64(RT(op, 0))) return op_error(c, op, "result must be i64, got %s", T(c, RT(op, 0)));
  return true;
}

static bool verify_array_axis(VerifyCtx *c, Op *op) {
  if (!need_array_operand(c, op, 0)) return false;
  Attr *a = need_attr(c, op, "axis", ATTR_INT);
  if (!a) return false;
  unsigned rank = OT(op, 0)->rank;
  if (a->i < 0 || a->i >= (int64_t)rank)
    return op_error(c, op, "attribute 'axis' (%lld) must be in [0, %u) for %s", (long long)a->i, rank, T(c, OT(op, 0)));
  return need_i64_result(c, op);
}

static bool verify_array_size(VerifyCtx *c, Op *op) { return need_array_operand(c, op, 0) && need_i64_result(c, op); }

static bool verify_array_data(VerifyCtx *c, Op *op) {
  if (!need_array_operand(c, op, 0)) return false;
  Type *r = RT(op, 0), *elem = OT(op, 0)->elem;
  if (r->kind != TY_PTR || r->elem != elem)
    return op_error(c, op, "result must be a pointer to the element type %s, got %s", T(c, elem), T(c, r));
  return true;
}

static bool verify_array_addr(VerifyCtx *c, Op *op) {
  if (!need_array_operand(c, op, 0)) return false;
  Type *r = RT(op, 0);
  if (r->kind != TY_INT || r->bits != 64 || !r->is_unsigned) return op_error(c, op, "result must be u64, got %s", T(c, r));
  return true;
}

/* Operands first .. first+rank-1 must be i64 indices into the array at operand `arr`; `extra` operands
 * follow them (the count is checked here). */
static bool check_indices(VerifyCtx *c, const Op *op, unsigned arr, unsigned first, unsigned extra) {
  Type *t = OT(op, arr);
  if (op->noperands != first + t->rank + extra)
    return op_error(c, op, "expects %u index operand%s for %s, got %d", t->rank, plural(t->rank), T(c, t),
                    (int)op->noperands - (int)first - (int)extra);
  bool ok = true;
  for (unsigned i = 0; i < t->rank; i++)
    if (!is_i64(OT(op, first + i)))
      ok = op_error(c, op, "index (operand #%u) must be i64, got %s", first + i, T(c, OT(op, first + i)));
  return ok;
}

static bool verify_load(VerifyCtx *c, Op *op) {
  if (op->noperands < 1) return op_error(c, op, "expects an array operand");
  if (!need_array_operand(c, op, 0) || !check_indices(c, op, 0, 1, 0)) return false;
  Type *elem = OT(op, 0)->elem;
  if (RT(op, 0) != elem)
    return op_error(c, op, "result type must be the element type of the array: %s vs %s", T(c, RT(op, 0)), T(c, elem));
  return true;
}

static bool verify_store(VerifyCtx *c, Op *op) {
  if (op->noperands < 2) return op_error(c, op, "expects a value and an array operand, got %u operand%s", op->noperands, plural(op->noperands));
  if (!need_array_operand(c, op, 1) || !check_indices(c, op, 1, 2, 0)) return false;
  Type *elem = OT(op, 1)->elem;
  if (OT(op, 0) != elem)
    return op_error(c, op, "stored value type must be the element type of the array: %s vs %s", T(c, OT(op, 0)), T(c, elem));
  return true;
}

/* Operand `p` must be a pointer to a scalar and operand `p` + 1 its i64 index. */
static bool check_pointer_index(VerifyCtx *c, const Op *op, unsigned p) {
  Type *t = OT(op, p);
  if (t->kind != TY_PTR || !t->elem || !ty_is_scalar(t->elem))
    return op_error(c, op, "operand #%u must be a pointer to a scalar, got %s", p, T(c, t));
  if (!is_i64(OT(op, p + 1))) return op_error(c, op, "index (operand #%u) must be i64, got %s", p + 1, T(c, OT(op, p + 1)));
  return true;
}

static bool verify_ptr_load(VerifyCtx *c, Op *op) {
  if (!check_pointer_index(c, op, 0)) return false;
  if (RT(op, 0) != OT(op, 0)->elem)
    return op_error(c, op, "result type must be the pointer's element type: %s vs %s", T(c, RT(op, 0)), T(c, OT(op, 0)->elem));
  return true;
}

static bool verify_ptr_store(VerifyCtx *c, Op *op) {
  if (!check_pointer_index(c, op, 1)) return false;
  if (OT(op, 0) != OT(op, 1)->elem)
    return op_error(c, op, "stored value type must be the pointer's element type: %s vs %s", T(c, OT(op, 0)),
                    T(c, OT(op, 1)->elem));
  return true;
}

static bool verify_ptr_array(VerifyCtx *c, Op *op) {
  if (op->noperands < 1) return op_error(c, op, "expects a pointer operand");
  Type *p = OT(op, 0), *r = RT(op, 0);
  if (p->kind != TY_PTR || !p->elem || !ty_is_scalar(p->elem))
    return op_error(c, op, "operand #0 must be a pointer to a scalar, got %s", T(c, p));
  if (!ty_is_array(r) || r->elem != p->elem)
    return op_error(c, op, "result must be an array of the pointer's element type %s, got %s", T(c, p->elem), T(c, r));
  if (op->noperands != 1 + 2 * r->rank)
    return op_error(c, op, "expects %u operands for a result of rank %u (the pointer, an extent and a stride per axis), "
                           "got %u", 1 + 2 * r->rank, r->rank, op->noperands);
  for (unsigned i = 1; i < op->noperands; i++)
    if (!is_i64(OT(op, i))) return op_error(c, op, "operand #%u must be i64, got %s", i, T(c, OT(op, i)));
  return true;
}

static bool verify_alloca(VerifyCtx *c, Op *op) {
  Type *r = RT(op, 0);
  if (!ty_is_array(r)) return op_error(c, op, "result must be an array, got %s", T(c, r));
  int64_t n;
  return check_shape(c, op, r->rank, false, &n);
}

static bool verify_global(VerifyCtx *c, Op *op) {
  if (!at_module_level(op)) return op_error(c, op, "must be at module level");
  if (!need_attr(c, op, "sym_name", ATTR_SYM)) return false;
  Attr *ta = need_attr(c, op, "type", ATTR_TYPE);
  if (!ta) return false;
  Type *t = ta->type;
  if (!t || !ty_is_array(t)) return op_error(c, op, "attribute 'type' must be an array type, got %s", T(c, t));
  static const char *const spaces[] = {"shared", "const", "captured", NULL};
  int space = need_choice(c, op, "space", spaces);
  if (space < 0) return false;
  int64_t count;
  if (!check_shape(c, op, t->rank, space != 0, &count)) return false;
  if (space == 2) { /* device memory the module did not allocate: its address and its strides in bytes */
    if (!need_attr(c, op, "address", ATTR_INT)) return false;
    Attr *st = need_attr(c, op, "strides", ATTR_ARRAY);
    if (!st) return false;
    if (st->arr.n != t->rank) return op_error(c, op, "attribute 'strides' needs %u entries, got %u", t->rank, st->arr.n);
    for (unsigned i = 0; i < st->arr.n; i++)
      if (st->arr.elems[i].kind != ATTR_INT) return op_error(c, op, "attribute 'strides' entry #%u must be an integer", i);
    if (ir_op_attr(op, "value")) return op_error(c, op, "a \"captured\" global has no attribute 'value'");
    return true;
  }
  Attr *v = ir_op_attr(op, "value");
  if (!v) return true;
  if (space != 1) return op_error(c, op, "only a \"const\" global may have attribute 'value'");
  if (v->kind != ATTR_ARRAY) return op_error(c, op, "attribute 'value' must be an array");
  bool cplx = t->elem->kind == TY_COMPLEX;
  if (!ty_is_scalar(t->elem) && !cplx)
    return op_error(c, op, "attribute 'value' needs scalar or complex elements, got %s", T(c, t));
  if ((int64_t)v->arr.n != count)
    return op_error(c, op, "attribute 'value' has %u element%s but the shape holds %lld", v->arr.n, plural(v->arr.n),
                    (long long)count);
  for (unsigned i = 0; i < v->arr.n; i++) {
    const Attr *e = &v->arr.elems[i];
    if (cplx) { /* a complex element: [re, im] */
      if (e->kind != ATTR_ARRAY || e->arr.n != 2 || !attr_is_number(&e->arr.elems[0]) || !attr_is_number(&e->arr.elems[1]))
        return op_error(c, op, "attribute 'value' element #%u must be [real, imaginary] of a complex element", i);
    } else if (!attr_is_number(e)) {
      return op_error(c, op, "attribute 'value' element #%u must be a number", i);
    }
  }
  return true;
}

static bool verify_global_ref(VerifyCtx *c, Op *op) {
  bool unknown;
  Op *g = need_symbol(c, op, "name", &unknown);
  if (!g) return unknown;
  const char *name = ir_op_attr_str(op, "name");
  if (g->kind != OP_GLOBAL) return op_error(c, op, "@%s is a '%s', not a 'mem.global'", name, op_name(g));
  Type *t = ir_op_attr_type(g, "type");
  if (t && t != RT(op, 0))
    return op_error(c, op, "result type must match the type of @%s: %s vs %s", name, T(c, RT(op, 0)), T(c, t));
  return true;
}

static bool verify_dyn_shared(VerifyCtx *c, Op *op) {
  Type *r = RT(op, 0);
  if (!ty_is_array(r) || r->rank != 1) return op_error(c, op, "result must be an array of rank 1, got %s", T(c, r));
  return true;
}

/* mem.reinterpret: the array, then an extent and a stride per result axis (i64). */
static bool verify_reinterpret(VerifyCtx *c, Op *op) {
  if (op->noperands < 1) return op_error(c, op, "expects an array operand");
  if (!need_array_operand(c, op, 0)) return false;
  Type *r = RT(op, 0);
  if (!ty_is_array(r)) return op_error(c, op, "result must be an array, got %s", T(c, r));
  if (op->noperands != 1 + 2 * r->rank)
    return op_error(c, op, "expects %u operands for a result of rank %u (the array, an extent and a stride per axis), "
                           "got %u", 1 + 2 * r->rank, r->rank, op->noperands);
  for (unsigned i = 1; i < op->noperands; i++)
    if (!is_i64(OT(op, i))) return op_error(c, op, "operand #%u must be i64, got %s", i, T(c, OT(op, i)));
  return true;
}

/* mem.field: an array of records; attr name one of its fields; the result an array (layout A) of the field's
 * element type whose rank is the array's plus the field's nested dimensions. */
static bool verify_field(VerifyCtx *c, Op *op) {
  if (!need_array_operand(c, op, 0)) return false;
  Type *base = OT(op, 0), *r = RT(op, 0);
  if (!ty_is_record(base->elem)) return op_error(c, op, "operand must be an array of records, got %s", T(c, base));
  const Attr *name = ir_op_attr(op, "name");
  if (!name || name->kind != ATTR_STR) return op_error(c, op, "expects a string attribute 'name'");
  int k = ty_record_field(base->elem, name->s, strlen(name->s));
  if (k < 0) return op_error(c, op, "the record has no field '%s'", name->s);
  const RecordField *f = &base->elem->fields[k];
  if (!ty_is_array(r) || r->elem != base->elem->elems[k] || r->rank != base->rank + f->ndims || r->layout != LAYOUT_A)
    return op_error(c, op, "result must be array<%s, %u, A>, got %s", T(c, base->elem->elems[k]),
                    base->rank + f->ndims, T(c, r));
  return true;
}

/* mem.record_array: a record value to array<record, 1, C> of the same record. */
static bool verify_record_array(VerifyCtx *c, Op *op) {
  Type *r = OT(op, 0), *t = RT(op, 0);
  if (!ty_is_record(r)) return op_error(c, op, "operand must be a record, got %s", T(c, r));
  if (!ty_is_array(t) || t->elem != r || t->rank != 1 || t->layout != LAYOUT_C)
    return op_error(c, op, "result must be a 1-d C array of the record, got %s", T(c, t));
  return true;
}

/* Whether v is the constant 1 (an arith.constant). */
static bool is_const_one(const Value *v) {
  const Op *d = v->def;
  const Attr *a = d && d->kind == OP_CONSTANT ? ir_op_attr(d, "value") : NULL;
  return a && a->kind == ATTR_INT && a->i == 1;
}

/* mem.subview: operands array, one origin per axis of the array, then (extent, step) per result axis; attr dims
 * names the array axis of each result axis (-1 for a new one), each at most once. A C or F result walks, from
 * its innermost axis outwards, the innermost axes of a C or F array with unit steps (slices that keep an array
 * contiguous, transposes: m.T of a C array is F). That its outer extents are whole is the producer's word. */
static bool verify_subview(VerifyCtx *c, Op *op) {
  if (op->noperands < 1) return op_error(c, op, "expects an array operand");
  if (!need_array_operand(c, op, 0)) return false;
  Type *base = OT(op, 0), *r = RT(op, 0);
  if (!ty_is_array(r) || r->elem != base->elem)
    return op_error(c, op, "result must be an array of the element type %s, got %s", T(c, base->elem), T(c, r));
  if (op->noperands != 1 + base->rank + 2 * r->rank)
    return op_error(c, op, "expects %u operands for a view of rank %u of %s (the array, %u origin indices, an extent and "
                           "a step per result axis), got %u",
                    1 + base->rank + 2 * r->rank, r->rank, T(c, base), base->rank, op->noperands);
  for (unsigned i = 1; i < op->noperands; i++)
    if (!is_i64(OT(op, i))) return op_error(c, op, "operand #%u must be i64, got %s", i, T(c, OT(op, i)));
  Attr *dims = need_attr(c, op, "dims", ATTR_ARRAY);
  if (!dims) return false;
  if (dims->arr.n != r->rank)
    return op_error(c, op, "attribute 'dims' has %u entr%s but the result has rank %u", dims->arr.n,
                    dims->arr.n == 1 ? "y" : "ies", r->rank);
  uint64_t used = 0;
  for (unsigned d = 0; d < r->rank; d++) {
    const Attr *e = &dims->arr.elems[d];
    if (e->kind != ATTR_INT || e->i < -1 || e->i >= (int64_t)base->rank)
      return op_error(c, op, "attribute 'dims' entry #%u must be an axis of %s or -1", d, T(c, base));
    if (e->i < 0) continue;
    if (e->i < 64 && (used >> e->i & 1)) return op_error(c, op, "attribute 'dims' names axis %lld twice", (long long)e->i);
    if (e->i < 64) used |= 1ull << e->i;
  }
  if (r->layout == LAYOUT_A) return true;
  if (base->layout == LAYOUT_A)
    return op_error(c, op, "a view of layout %c needs an array of layout C or F, got %s", r->layout, T(c, base));
  /* from the innermost axis outwards, the view's axes walk the array's innermost axes, with unit steps */
  for (unsigned k = 0; k < r->rank; k++) {
    unsigned d = r->layout == LAYOUT_C ? r->rank - 1 - k : k;
    int64_t want = base->layout == LAYOUT_C ? (int64_t)(base->rank - 1 - k) : (int64_t)k;
    if (dims->arr.elems[d].i != want || !is_const_one(op_operand(op, 1 + base->rank + 2 * d + 1)))
      return op_error(c, op, "a view of layout %c of %s must walk its innermost axes, innermost first, with steps of "
                             "constant 1", r->layout, T(c, base));
  }
  return true;
}

/* ---- gpu ---- */

static bool verify_gpu_dim(VerifyCtx *c, Op *op) {
  Attr *a = need_attr(c, op, "dim", ATTR_INT);
  if (!a) return false;
  if (a->i < 0 || a->i > 2) return op_error(c, op, "attribute 'dim' must be 0, 1 or 2, got %lld", (long long)a->i);
  if (!ty_is_int(RT(op, 0))) return op_error(c, op, "result must be an integer, got %s", T(c, RT(op, 0)));
  return true;
}

static bool verify_gpu_scalar(VerifyCtx *c, Op *op) {
  if (!ty_is_int(RT(op, 0))) return op_error(c, op, "result must be an integer, got %s", T(c, RT(op, 0)));
  return true;
}

static bool verify_barrier_reduce(VerifyCtx *c, Op *op) {
  if (need_enum(c, op, IR_ENUM_BARRIER_REDUCE) < 0) return false;
  if (!ty_is_bool(OT(op, 0))) return op_error(c, op, "predicate (operand #0) must be i1, got %s", T(c, OT(op, 0)));
  if (!is_int32(RT(op, 0))) return op_error(c, op, "result must be a 32-bit integer, got %s", T(c, RT(op, 0)));
  return true;
}

static bool need_mask(VerifyCtx *c, const Op *op) {
  if (!is_int32(OT(op, 0))) return op_error(c, op, "mask (operand #0) must be a 32-bit integer, got %s", T(c, OT(op, 0)));
  return true;
}

static bool verify_syncwarp(VerifyCtx *c, Op *op) { return need_mask(c, op); }

/* Grid barriers need the cooperative launch: the function they are in says so (the runtime reads the kernel's). */
static bool verify_grid_sync(VerifyCtx *c, Op *op) {
  Op *f = ir_op_parent_func(op);
  if (f && !ir_op_attr(f, "cooperative"))
    return op_error(c, op, "is in a function without the 'cooperative' attribute (a grid barrier needs a cooperative launch)");
  return true;
}

static bool verify_nanosleep(VerifyCtx *c, Op *op) {
  const Type *t = OT(op, 0);
  if (t->kind != TY_INT || t->bits != 32 || !t->is_unsigned)
    return op_error(c, op, "duration (operand #0) must be u32 nanoseconds, got %s", T(c, t));
  return true;
}

static bool verify_fence(VerifyCtx *c, Op *op) {
  return need_enum(c, op, IR_ENUM_FENCE) >= 0;
}

static bool verify_atomic_rmw(VerifyCtx *c, Op *op) {
  int k = need_enum(c, op, IR_ENUM_ATOMIC);
  if (k < 0) return false;
  if (op->noperands < 2) return op_error(c, op, "expects an array, its indices and a value, got %u operand%s", op->noperands, plural(op->noperands));
  if (!need_array_operand(c, op, 0) || !check_indices(c, op, 0, 1, 1)) return false;
  Type *elem = OT(op, 0)->elem, *v = OT(op, op->noperands - 1);
  if (!ty_is_scalar(elem)) return op_error(c, op, "needs an array of scalars, got %s", T(c, OT(op, 0)));
  if (v != elem) return op_error(c, op, "value type must be the element type of the array: %s vs %s", T(c, v), T(c, elem));
  if (RT(op, 0) != elem) return op_error(c, op, "result type must be the element type of the array: %s vs %s", T(c, RT(op, 0)), T(c, elem));
  bool int_only = k == IR_ATOMIC_AND || k == IR_ATOMIC_OR || k == IR_ATOMIC_XOR || k == IR_ATOMIC_INC || k == IR_ATOMIC_DEC;
  if (int_only && !ty_is_int(elem))
    return op_error(c, op, "kind \"%s\" needs an integer array, got %s", ir_atomic_kind_name((IrAtomicKind)k), T(c, OT(op, 0)));
  return true;
}

static bool verify_atomic_cas(VerifyCtx *c, Op *op) {
  if (op->noperands < 3) return op_error(c, op, "expects an array, its indices, an expected and a new value, got %u operand%s", op->noperands, plural(op->noperands));
  if (!need_array_operand(c, op, 0) || !check_indices(c, op, 0, 1, 2)) return false;
  Type *elem = OT(op, 0)->elem;
  if (!ty_is_scalar(elem)) return op_error(c, op, "needs an array of scalars, got %s", T(c, OT(op, 0)));
  for (unsigned i = op->noperands - 2; i < op->noperands; i++)
    if (OT(op, i) != elem)
      return op_error(c, op, "operand #%u type must be the element type of the array: %s vs %s", i, T(c, OT(op, i)), T(c, elem));
  if (RT(op, 0) != elem) return op_error(c, op, "result type must be the element type of the array: %s vs %s", T(c, RT(op, 0)), T(c, elem));
  return true;
}

static bool verify_shfl(VerifyCtx *c, Op *op) {
  if (need_enum(c, op, IR_ENUM_SHUFFLE) < 0 || !need_mask(c, op)) return false;
  Type *v = OT(op, 1);
  if (!ty_is_scalar(v)) return op_error(c, op, "value (operand #1) must be a scalar, got %s", T(c, v));
  if (!is_int32(OT(op, 2))) return op_error(c, op, "lane (operand #2) must be a 32-bit integer, got %s", T(c, OT(op, 2)));
  if (!is_int32(OT(op, 3))) return op_error(c, op, "width (operand #3) must be a 32-bit integer, got %s", T(c, OT(op, 3)));
  if (RT(op, 0) != v) return op_error(c, op, "result type must match the value: %s vs %s", T(c, RT(op, 0)), T(c, v));
  return true;
}

static bool verify_vote(VerifyCtx *c, Op *op) {
  int mode = need_enum(c, op, IR_ENUM_VOTE);
  if (mode < 0 || !need_mask(c, op)) return false;
  if (!ty_is_bool(OT(op, 1))) return op_error(c, op, "predicate (operand #1) must be i1, got %s", T(c, OT(op, 1)));
  Type *r = RT(op, 0);
  bool ballot = mode == IR_VOTE_BALLOT;
  if (ballot && !is_int32(r)) return op_error(c, op, "result of a ballot must be a 32-bit integer, got %s", T(c, r));
  if (!ballot && !ty_is_bool(r))
    return op_error(c, op, "result of vote \"%s\" must be i1, got %s", ir_vote_mode_name((IrVoteMode)mode), T(c, r));
  return true;
}

static bool verify_match(VerifyCtx *c, Op *op) {
  int mode = need_enum(c, op, IR_ENUM_MATCH);
  if (mode < 0 || !need_mask(c, op)) return false;
  Type *v = OT(op, 1);
  if (!(ty_is_int(v) || (v->kind == TY_FLOAT && !v->bfloat)) || (v->bits != 32 && v->bits != 64))
    return op_error(c, op, "value (operand #1) must be a 32- or 64-bit integer or float, got %s", T(c, v));
  unsigned want = mode == IR_MATCH_ANY ? 1 : 2;
  if (op->nresults != want)
    return op_error(c, op, "match \"%s\" has %u result%s, got %u", ir_match_mode_name((IrMatchMode)mode), want, plural(want),
                    op->nresults);
  if (!is_int32(RT(op, 0))) return op_error(c, op, "result #0 must be a 32-bit integer, got %s", T(c, RT(op, 0)));
  if (mode == IR_MATCH_ALL && !ty_is_bool(RT(op, 1))) return op_error(c, op, "result #1 must be i1, got %s", T(c, RT(op, 1)));
  return true;
}

/* gpu.print: attr format, whose directives (%lld, %llu, %f, %s; %% is none) match the operands' types in order. */
static bool verify_print(VerifyCtx *c, Op *op) {
  Attr *f = need_attr(c, op, "format", ATTR_STR);
  if (!f) return false;
  unsigned k = 0;
  for (const char *p = f->s; *p; p++) {
    if (*p != '%') continue;
    p++;
    if (*p == '%') continue;
    const char *d, *want;
    bool fits;
    Type *t = k < op->noperands ? OT(op, k) : NULL;
    if (!strncmp(p, "lld", 3)) {
      d = "lld", want = "i64", p += 2;
      fits = t && is_i64(t);
    } else if (!strncmp(p, "llu", 3)) {
      d = "llu", want = "u64", p += 2;
      fits = t && t->kind == TY_INT && t->bits == 64 && t->is_unsigned;
    } else if (*p == 'f') {
      d = "f", want = "f64";
      fits = t && t->kind == TY_FLOAT && t->bits == 64;
    } else if (*p == 's') {
      d = "s", want = "i1";
      fits = t && ty_is_bool(t);
    } else {
      return op_error(c, op, "attribute 'format' has a directive other than %%lld, %%llu, %%f, %%s and %%%%");
    }
    if (!t) return op_error(c, op, "attribute 'format' has more directives than the %u operands", op->noperands);
    if (!fits) return op_error(c, op, "operand #%u for %%%s must be %s, got %s", k, d, want, T(c, t));
    k++;
  }
  if (k != op->noperands) return op_error(c, op, "attribute 'format' has %u directives for %u operands", k, op->noperands);
  return true;
}

/* ---- scf ---- */

static bool verify_if(VerifyCtx *c, Op *op) {
  if (!ty_is_bool(OT(op, 0))) return op_error(c, op, "condition must be i1, got %s", T(c, OT(op, 0)));
  bool ok = true;
  for (unsigned r = 0; r < 2; r++)
    if (op->regions[r].first && op->regions[r].first->nargs)
      ok = op_error(c, op, "region #%u must have no block arguments", r);
  return ok;
}

static bool verify_for(VerifyCtx *c, Op *op) {
  if (op->noperands < 3) return op_error(c, op, "expects at least 3 operands (lb, ub, step), got %u", op->noperands);
  static const char *const names[] = {"lower bound", "upper bound", "step"};
  bool ok = true;
  for (unsigned i = 0; i < 3; i++)
    if (!is_i64(OT(op, i))) ok = op_error(c, op, "%s (operand #%u) must be i64, got %s", names[i], i, T(c, OT(op, i)));
  if (!ok) return false;
  if (!match_types(c, op, tl_results(op), "result", tl_operands(op, 3, op->noperands - 3), "operand", "(the initial loop-carried values)"))
    return false;
  Block *body = op->regions[0].first;
  if (!body) return true;
  if (body->nargs < 1 || !is_i64(body->args[0]->type))
    return op_error(c, op, "body block must start with the i64 induction variable, got %s",
                    body->nargs ? T(c, body->args[0]->type) : "no arguments");
  return match_types(c, op, tl_args(body, 1), "body argument", tl_operands(op, 3, op->noperands - 3), "operand",
                     "(the initial loop-carried values)");
}

static bool verify_while(VerifyCtx *c, Op *op) {
  bool ok = true;
  Block *before = op->regions[0].first, *after = op->regions[1].first;
  if (before)
    ok = match_types(c, op, tl_args(before, 0), "before-region argument", tl_operands(op, 0, op->noperands), "operand",
                     "(the initial values)");
  if (after)
    ok = match_types(c, op, tl_args(after, 0), "after-region argument", tl_results(op), "result", "of the 'scf.while'") && ok;
  return ok;
}

static bool verify_yield(VerifyCtx *c, Op *op) {
  Op *p = parent_op(op);
  TypeList got = tl_operands(op, 0, op->noperands);
  if (p && (p->kind == OP_IF || p->kind == OP_FOR)) {
    char owner[64];
    snprintf(owner, sizeof owner, "of the parent '%s'", op_name(p));
    return match_types(c, op, got, "operand", tl_results(p), "result", owner);
  }
  if (p && p->kind == OP_WHILE && region_index(p, op->block->region) == 1)
    return match_types(c, op, got, "operand", tl_operands(p, 0, p->noperands), "operand", "of the parent 'scf.while'");
  if (p && p->kind == OP_WHILE)
    return op_error(c, op, "cannot end the before-region of 'scf.while' (it ends in 'scf.condition')");
  return op_error(c, op, "must end a region of 'scf.if', 'scf.for' or the after-region of 'scf.while', not %s",
                  where(c, p));
}

static bool verify_condition(VerifyCtx *c, Op *op) {
  Op *p = parent_op(op);
  if (!p || p->kind != OP_WHILE || region_index(p, op->block->region) != 0)
    return op_error(c, op, "must end the before-region of 'scf.while'");
  if (op->noperands < 1 || !ty_is_bool(OT(op, 0)))
    return op_error(c, op, "operand #0 must be the i1 condition, got %s", op->noperands ? T(c, OT(op, 0)) : "none");
  return match_types(c, op, tl_operands(op, 1, op->noperands - 1), "operand", tl_results(p), "result",
                     "of the parent 'scf.while'");
}

/* ---- cf ---- */

static bool need_in_func(VerifyCtx *c, const Op *op) {
  Op *p = parent_op(op);
  if (!p || p->kind != OP_FUNC_FUNC)
    return op_error(c, op, "must be directly in a 'func.func' region, not %s", where(c, p));
  return true;
}

static bool verify_br(VerifyCtx *c, Op *op) {
  if (!need_in_func(c, op)) return false;
  unsigned n = op_num_main_operands(op);
  if (n) return op_error(c, op, "takes no operands besides its successor's, got %u", n);
  return true;
}

static bool verify_cond_br(VerifyCtx *c, Op *op) {
  if (!need_in_func(c, op)) return false;
  unsigned n = op_num_main_operands(op);
  if (n != 1) return op_error(c, op, "expects 1 condition operand besides its successors', got %u", n);
  if (!ty_is_bool(OT(op, 0))) return op_error(c, op, "condition must be i1, got %s", T(c, OT(op, 0)));
  return true;
}

static bool verify_bounds(VerifyCtx *c, Op *op) {
  for (unsigned i = 0; i < 2; i++)
    if (!is_i64(OT(op, i)))
      return op_error(c, op, "%s (operand #%u) must be i64, got %s", i ? "extent" : "index", i, T(c, OT(op, i)));
  Attr *a = need_attr(c, op, "axis", ATTR_INT);
  if (!a) return false;
  if (a->i < 0) return op_error(c, op, "attribute 'axis' must not be negative, got %lld", (long long)a->i);
  return true;
}

/* check.raise: at most one i1 operand (the condition); attr exception "Class" or "Class: message", the class
 * a Python identifier; attr silent, when given, a unit attribute. */
static bool verify_raise(VerifyCtx *c, Op *op) {
  if (op->noperands > 1) return op_error(c, op, "expects at most one operand (the condition), got %u", op->noperands);
  if (op->noperands == 1 && !ty_is_bool(OT(op, 0)))
    return op_error(c, op, "condition (operand #0) must be i1, got %s", T(c, OT(op, 0)));
  Attr *e = need_attr(c, op, "exception", ATTR_STR);
  if (!e) return false;
  size_t n = 0;
  while (e->s[n] && e->s[n] != ':') n++;
  bool ident = n > 0 && !(e->s[0] >= '0' && e->s[0] <= '9');
  for (size_t i = 0; i < n && ident; i++)
    ident = e->s[i] == '_' || (e->s[i] >= 'a' && e->s[i] <= 'z') || (e->s[i] >= 'A' && e->s[i] <= 'Z') ||
            (e->s[i] >= '0' && e->s[i] <= '9') || e->s[i] == '.';
  if (!ident)
    return op_error(c, op, "attribute 'exception' must start with a class name (\"ValueError\" or \"ValueError: "
                           "message\"), got \"%s\"", e->s);
  Attr *q = ir_op_attr(op, "silent");
  if (q && q->kind != ATTR_UNIT) return op_error(c, op, "attribute 'silent' must be a unit attribute");
  return true;
}

/* The dispatch table: one entry per ops.def row, naming verify_<verifier>. */
typedef bool (*VerifyFn)(VerifyCtx *c, Op *op);
static const VerifyFn op_verifiers[OP__COUNT] = {
#define OP(Id, name, nopnds, nres, nregions, nsuccs, traits, verifier, summary, example) [OP_##Id] = verify_##verifier,
#include "ops.def"
#undef OP
};

/* ---- generic checks ---------------------------------------------------------------------------- */

static bool check_count(VerifyCtx *c, const Op *op, const char *what, int want, unsigned got) {
  if (want < 0 || (unsigned)want == got) return true;
  return op_error(c, op, "expects %d %s%s, got %u", want, what, plural((unsigned)want), got);
}

/* Counts, null operands and types, successor structure. False when the op's shape is too broken for the
 * per-op rule to index it. */
static bool verify_generic(VerifyCtx *c, Op *op) {
  const OpInfo *info = &ir_op_info[op->kind];
  bool ok = check_count(c, op, "operand", info->noperands, op->noperands);
  ok = check_count(c, op, "result", info->nresults, op->nresults) && ok;
  ok = check_count(c, op, "region", info->nregions, op->nregions) && ok;
  ok = check_count(c, op, "successor", info->nsuccessors, op->nsuccessors) && ok;
  for (unsigned i = 0; i < op->noperands; i++) {
    const Use *u = &op->operands[i];
    if (u->user != op || u->index != i) ok = op_error(c, op, "operand #%u has a corrupt use record", i);
    else if (!u->value) ok = op_error(c, op, "operand #%u is null", i);
    else if (!u->value->type) ok = op_error(c, op, "operand #%u has no type", i);
  }
  for (unsigned i = 0; i < op->nresults; i++) {
    const Value *r = &op->results[i];
    if (!r->type) ok = op_error(c, op, "result #%u has no type", i);
    else if (r->def != op || r->index != i) ok = op_error(c, op, "result #%u has a corrupt definition record", i);
  }
  if (!ok) return false;
  if (op->nsuccessors) {
    unsigned total = 0;
    for (unsigned s = 0; s < op->nsuccessors; s++) total += op->succ_operand_count[s];
    if (total > op->noperands)
      return op_error(c, op, "successors take %u operands but the op has only %u", total, op->noperands);
    Region *home = op->block ? op->block->region : NULL;
    for (unsigned s = 0; s < op->nsuccessors; s++) {
      Block *b = op->successors[s];
      if (!b) {
        ok = op_error(c, op, "successor #%u is null", s);
        continue;
      }
      if (home && b->region != home) {
        ok = op_error(c, op, "successor #%u is not a block of the op's own region", s);
        continue;
      }
      if (home && b == home->first) {
        ok = op_error(c, op, "successor #%u is the entry block of its region, which may have no predecessors", s);
        continue;
      }
      unsigned start = op_succ_operand_start(op, s), n = op->succ_operand_count[s];
      if (n != b->nargs) {
        ok = op_error(c, op, "passes %u operand%s to successor #%u, whose block has %u argument%s", n, plural(n), s,
                      b->nargs, plural(b->nargs));
        continue;
      }
      for (unsigned i = 0; i < n; i++)
        if (OT(op, start + i) != b->args[i]->type)
          ok = op_error(c, op, "type of operand #%u must match argument #%u of successor #%u: %s vs %s", start + i, i, s,
                        T(c, OT(op, start + i)), T(c, b->args[i]->type));
    }
  }
  return ok;
}

/* The block holding a value's definition, or NULL if the value is not (or no longer) in the IR. */
static Block *def_block(const Value *v) { return v->def ? v->def->block : v->block; }

static void report_not_dominating(VerifyCtx *c, Op *op, unsigned i, Value *v) {
  Block *db = def_block(v);
  if (!db || !db->region) {
    op_error(c, op, "operand #%u is %s that is not in the IR (erased?)", i,
             v->def ? "the result of an op" : "an argument of a block");
    return;
  }
  /* a detached root op (ir_verify_op): uses of values from outside it cannot be judged */
  Op *dop = v->def ? v->def : ir_block_parent_op(db);
  if (c->root && !c->root->block && !(dop && ir_op_is_ancestor(c->root, dop))) return;
  /* climb from the use: does it reach the definition's region, and through a func.func? */
  Op *norec = NULL;
  bool found = false;
  for (const Op *o = op; o && o->block && o->block->region; o = o->block->region->parent) {
    if (o->block->region == db->region) {
      found = true;
      break;
    }
    Op *p = o->block->region->parent;
    if (p && !norec && op_has(p, OPT_NOREC)) norec = p;
  }
  if (norec && (found || !dop || ir_op_parent_func(dop) != norec)) {
    op_error(c, op, "operand #%u is defined outside the enclosing '%s' (which sees no values from outside)", i,
             op_name(norec));
    return;
  }
  if (!found) {
    op_error(c, op, "operand #%u is defined in a region that does not enclose this use", i);
    return;
  }
  op_error(c, op, "operand #%u does not dominate this use", i);
  if (v->def && v->def->loc.file) diag_note(c->diag, v->def->loc, "operand #%u defined here", i);
}

static void verify_uses(VerifyCtx *c, Op *op) {
  if (!op->block) return; /* a detached op: nothing to compare with */
  for (unsigned i = 0; i < op->noperands; i++) {
    Value *v = op_operand(op, i);
    if (!dom_value_dominates(c->dom, v, op)) report_not_dominating(c, op, i, v);
  }
}

static void verify_op_tree(VerifyCtx *c, Op *op);

static void verify_region(VerifyCtx *c, Op *op, unsigned ri) {
  Region *r = &op->regions[ri];
  if (r->parent != op) {
    op_error(c, op, "region #%u has a corrupt parent link", ri);
    return;
  }
  /* a func.func marked foreign declares a function linked in from elsewhere (cuda.declare_device): no body */
  if (!r->first && op->kind == OP_FUNC_FUNC && ir_op_attr(op, "foreign")) return;
  if (!r->first) {
    op_error(c, op, "region #%u is empty; it must hold a block", ri);
    return;
  }
  if (op->kind != OP_FUNC_FUNC && r->first != r->last) {
    unsigned n = 0;
    for (Block *b = r->first; b; b = b->next) n++;
    op_error(c, op, "region #%u must have exactly one block, has %u", ri, n);
  }
  unsigned bi = 0;
  for (Block *b = r->first; b; b = b->next, bi++) {
    if (b->region != r) {
      op_error(c, op, "region #%u block #%u has a corrupt region link", ri, bi);
      continue;
    }
    for (unsigned i = 0; i < b->nargs; i++) {
      Value *a = b->args[i];
      if (!a->type || a->block != b || a->index != i)
        op_error(c, op, "region #%u block #%u argument #%u is corrupt (no type or wrong block link)", ri, bi, i);
    }
    if (!b->first) {
      op_error(c, op, "region #%u block #%u is empty; a block must end in a terminator", ri, bi);
      continue;
    }
    for (Op *o = b->first; o; o = o->next) {
      if (o->block != b) {
        op_error(c, o, "has a corrupt block link");
        continue;
      }
      if (o != b->last && op_has(o, OPT_TERM)) op_error(c, o, "is a terminator but is not the last op of its block");
      verify_op_tree(c, o);
    }
    if (!op_has(b->last, OPT_TERM))
      op_error(c, b->last, "is not a terminator, but ends block #%u of region #%u of '%s' (a block must end in a terminator)",
               bi, ri, op_name(op));
  }
}

static void verify_op_tree(VerifyCtx *c, Op *op) {
  if (verify_generic(c, op)) {
    verify_uses(c, op);
    op_verifiers[op->kind](c, op);
  }
  if (!op->nregions) return;
  if (c->depth == IR_MAX_NESTING || stack_exhausted()) {
    op_error(c, op, "has regions nested more than %d deep%s", c->depth,
             c->depth == IR_MAX_NESTING ? "" : " (for the thread's stack)");
    return;
  }
  c->depth++;
  for (unsigned r = 0; r < op->nregions; r++) verify_region(c, op, r);
  c->depth--;
}

/* ---- entry points ------------------------------------------------------------------------------- */

static void ctx_init(VerifyCtx *c, Module *m, Diag *diag) {
  memset(c, 0, sizeof *c);
  c->m = m;
  c->diag = diag;
  c->dom = dom_cache_new();
  for (unsigned i = 0; i < 8; i++) sb_init(&c->tys[i]);
}

static void ctx_free(VerifyCtx *c) {
  dom_cache_free(c->dom);
  for (unsigned i = 0; i < 8; i++) sb_free(&c->tys[i]);
}

bool ir_verify_module(Module *m, Diag *diag) {
  VerifyCtx c;
  ctx_init(&c, m, diag);
  StrMap seen;
  strmap_init(&seen);
  for (Op *op = ir_module_body(m)->first; op; op = op->next) {
    if (op->kind != OP_FUNC_FUNC && op->kind != OP_GLOBAL) {
      op_error(&c, op, "cannot be at module level (only 'func.func' and 'mem.global' can)");
    } else if (op->block == ir_module_body(m)) {
      const char *name = ir_op_attr_str(op, "sym_name");
      if (name && strmap_get(&seen, name)) {
        op_error(&c, op, "redefines symbol @%s", name);
      } else if (name) {
        strmap_put(&seen, name, op);
        Op *t = ir_module_lookup(m, name); /* another op of that name: a redefinition, reported there */
        const char *tn = t && t->block == ir_module_body(m) ? ir_op_attr_str(t, "sym_name") : NULL;
        if (!tn || strcmp(tn, name) != 0)
          op_error(&c, op, "symbol @%s is missing from the module's symbol table (ir_module_add_symbol)", name);
      }
    }
    verify_op_tree(&c, op);
  }
  strmap_free(&seen);
  ctx_free(&c);
  return c.nerrors == 0;
}

/* The module whose body holds op's outermost ancestor (Module embeds its body Region), or NULL. */
static Module *op_module(Op *op) {
  for (Op *o = op; o && o->block && o->block->region; o = o->block->region->parent)
    if (!o->block->region->parent) return (Module *)((char *)o->block->region - offsetof(Module, body));
  return NULL;
}

bool ir_verify_op(Op *op, Diag *diag) {
  VerifyCtx c;
  ctx_init(&c, op_module(op), diag);
  c.root = op;
  verify_op_tree(&c, op);
  ctx_free(&c);
  return c.nerrors == 0;
}
