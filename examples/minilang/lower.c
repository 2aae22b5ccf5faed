/* lower.c — minilang's type checker and lowering to kir, through kfront/kir.h only (no kir text).
 *
 * Each function becomes a func.func (kernel or device); parameters and lets are builder variables
 * (kf_var_*), so the builder makes the SSA form: scf.if results, scf.for and scf.while carried values. Control
 * flow is all structured: if/else is scf.if, for is scf.for, while is scf.while (kf_build_while_begin/do/end:
 * the condition's ops in its before-region), && and || are scf.if on a variable (short-circuit). A shared
 * array is kf_build_shared_array, sync() a gpu.barrier and atomic_add/max/min a gpu.atomic_rmw, ops made by
 * name (kf_build_op). Array accesses are bounds-checked (check.bounds: an IndexError at the access's line when
 * it fails).
 *
 * Every op is made with the builder's location set to its source position, so kfront's diagnostics (the
 * builder's, the verifier's, an IndexError at run time) are located in the .ml file; minilang's own type
 * errors go to the same stream through kf_context_report. The first error ends the compilation (longjmp). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minilang.h"

typedef struct Symbol {
  const char *name;
  MlType type;
  kf_var *var;          /* a variable (parameters and lets) ... */
  kf_ir_value *value;   /* ... or a value: an array parameter or shared array, a for loop's variable */
} Symbol;

typedef struct {
  kf_context *ctx;
  const char *file;
  const MlProgram *prog;
  kf_builder *b;
  kf_op *func;          /* the function being built */
  const MlFunc *mlfunc;
  Symbol syms[256];
  unsigned nsyms;
  MlScalar bind[26];    /* the type variables A..Z (ML_TVAR + 0..25) of the generic kernel being lowered (ML_VOID: unbound) */
  jmp_buf fail;
} Lower;

typedef struct {
  kf_ir_value *v;
  MlType t;
} Val;

static const char *const scalar_names[] = {"void", "bool", "i32", "i64", "f32", "f64"};

static const char *type_name(MlType t) {
  static char buf[4][16];
  static int slot;
  char *s = buf[slot++ & 3];
  if (t.scalar >= ML_TVAR) snprintf(s, 16, "%c%s", 'A' + t.scalar - ML_TVAR, t.array ? "[]" : "");
  else snprintf(s, 16, "%s%s", scalar_names[t.scalar], t.array ? "[]" : "");
  return s;
}

static _Noreturn void type_error(Lower *L, MlLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static _Noreturn void type_error(Lower *L, MlLoc loc, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  kf_context_report(L->ctx, 0, KF_ERRKIND_TYPING, (kf_location){L->file, loc.line, loc.col}, msg);
  longjmp(L->fail, 1);
}

/* A builder call: its diagnostic (if any) is already reported, at the builder's location. */
static void check(Lower *L, kf_status st) {
  if (st != KF_OK) longjmp(L->fail, 1);
}

static void at(Lower *L, MlLoc loc) { check(L, kf_builder_set_location(L->b, (kf_location){L->file, loc.line, loc.col})); }

static bool is_int(MlType t) { return !t.array && (t.scalar == ML_I32 || t.scalar == ML_I64); }
static bool is_float(MlType t) { return !t.array && (t.scalar == ML_F32 || t.scalar == ML_F64); }
static bool same(MlType a, MlType b) { return a.scalar == b.scalar && a.array == b.array; }

static kf_type *kir_type(Lower *L, MlType t) {
  static const kf_dtype dtypes[] = {KF_BOOL, KF_BOOL, KF_INT32, KF_INT64, KF_FLOAT32, KF_FLOAT64};
  kf_type *s = NULL, *a = NULL;
  check(L, kf_type_scalar(L->ctx, dtypes[t.scalar], &s));
  if (!t.array) return s;
  check(L, kf_type_array(L->ctx, s, 1, 'A', &a));
  return a;
}

/* A written type with its type variable bound (by the arguments of the generic kernel being lowered). */
static MlType resolve(Lower *L, MlType t, MlLoc loc) {
  if (t.scalar < ML_TVAR) return t;
  if (!L->bind[t.scalar - ML_TVAR])
    type_error(L, loc, "type variable %s is bound by no parameter of this kernel (only kernels are generic)",
               type_name((MlType){t.scalar, false}));
  return (MlType){L->bind[t.scalar - ML_TVAR], t.array};
}

static bool is_generic(const MlFunc *f) {
  for (unsigned i = 0; i < f->nparams; i++)
    if (f->params[i].type.scalar >= ML_TVAR) return true;
  return false;
}

/* Binds f's type variables from the parameter types a launch's arguments give (f's kernel is then lowered for them);
 * a type it cannot take is a type error at the parameter. */
static void bind_types(Lower *L, const MlFunc *f, kf_type *const *types) {
  for (unsigned i = 0; i < f->nparams; i++) {
    const MlParam *p = &f->params[i];
    if (p->type.scalar < ML_TVAR) continue; /* the kernel's own type: an argument that does not fit is kfront's to refuse */
    char *printed = NULL, text[64];
    check(L, kf_type_print(L->ctx, types[i], &printed));
    snprintf(text, sizeof text, "%s", printed);
    kf_free(printed);
    bool arr = strncmp(text, "array<", 6) == 0;
    const char *e = arr ? text + 6 : text;
    MlScalar s = ML_VOID, *b = &L->bind[p->type.scalar - ML_TVAR];
    for (MlScalar k = ML_I32; k <= ML_F64; k++)
      if (strncmp(e, scalar_names[k], 3) == 0 && (e[3] == ',' || e[3] == 0)) s = k;
    char why[32] = "";
    if (s && *b && *b != s) snprintf(why, sizeof why, ": %c is %s", 'A' + p->type.scalar - ML_TVAR, scalar_names[*b]);
    if (s == ML_VOID || arr != p->type.array || *why)
      type_error(L, p->loc, "'%s' (%s) cannot take a %s%s", p->name, type_name(p->type), text, why);
    *b = s;
  }
}

static Symbol *lookup(Lower *L, const char *name) {
  for (unsigned i = L->nsyms; i-- > 0;)
    if (strcmp(L->syms[i].name, name) == 0) return &L->syms[i];
  return NULL;
}

static Symbol *bind(Lower *L, MlLoc loc, const char *name, MlType t) {
  if (L->nsyms == sizeof L->syms / sizeof *L->syms) type_error(L, loc, "too many variables in one function");
  Symbol *s = &L->syms[L->nsyms++];
  *s = (Symbol){name, t, NULL, NULL};
  return s;
}

static const MlFunc *find_func(Lower *L, const char *name) {
  for (unsigned i = 0; i < L->prog->nfuncs; i++)
    if (strcmp(L->prog->funcs[i]->name, name) == 0) return L->prog->funcs[i];
  return NULL;
}

/* ---- expressions ------------------------------------------------------------------------------ */

static Val lower_expr(Lower *L, const MlExpr *e, const MlType *hint);

static Val constant(Lower *L, MlType t, int64_t i, double f) {
  Val r = {NULL, t};
  if (is_float(t)) check(L, kf_build_constant_float(L->b, kir_type(L, t), f, &r.v));
  else check(L, kf_build_constant_int(L->b, kir_type(L, t), i, &r.v));
  return r;
}

static Val cast(Lower *L, Val v, MlScalar to) {
  Val r = {NULL, {to, false}};
  check(L, kf_build_cast(L->b, v.v, kir_type(L, r.t), &r.v));
  return r;
}

static bool is_literal(const MlExpr *e) {
  return e->kind == E_INT || e->kind == E_FLOAT || (e->kind == E_UNARY && e->name[0] == '-' && is_literal(e->lhs));
}

/* An array element's index: an integer, as i64, checked against the extent. */
static kf_ir_value *index_of(Lower *L, const MlExpr *ix, Val array, MlLoc loc) {
  MlType i64 = {ML_I64, false};
  Val i = lower_expr(L, ix, &i64);
  if (!is_int(i.t)) type_error(L, ix->loc, "an array index must be an integer, not %s", type_name(i.t));
  if (i.t.scalar != ML_I64) i = cast(L, i, ML_I64);
  at(L, loc);
  kf_ir_value *extent = NULL;
  check(L, kf_build_dim(L->b, array.v, 0, &extent));
  kf_attr *axis = NULL;
  check(L, kf_attr_int(L->b, kir_type(L, i64), 0, &axis));
  kf_named_attr attr = {"axis", axis};
  kf_ir_value *operands[2] = {i.v, extent};
  kf_op_state st = {.name = "check.bounds", .noperands = 2, .operands = operands, .nattrs = 1, .attrs = &attr};
  check(L, kf_build_op(L->b, &st, NULL));
  return i.v;
}

static Val array_operand(Lower *L, const MlExpr *e) {
  Val a = lower_expr(L, e, NULL);
  if (!a.t.array) type_error(L, e->loc, "%s is not an array", type_name(a.t));
  return a;
}

/* a && b, a || b: a variable set to a, then to b under scf.if when a does not decide. */
static Val short_circuit(Lower *L, const MlExpr *e) {
  MlType boolean = {ML_BOOL, false};
  Val a = lower_expr(L, e->lhs, NULL);
  if (!same(a.t, boolean)) type_error(L, e->lhs->loc, "the operands of '%s' must be bool, not %s", e->name, type_name(a.t));
  at(L, e->loc);
  kf_var *var = NULL;
  check(L, kf_var_declare(L->b, e->name, kir_type(L, boolean), &var));
  check(L, kf_var_set(L->b, var, a.v));
  kf_ir_value *cond = a.v;
  if (e->name[0] == '|') {
    Val t = constant(L, boolean, 1, 0);
    check(L, kf_build_simple(L->b, "arith.xori", 2, (kf_ir_value *[]){a.v, t.v}, NULL, &cond));
  }
  check(L, kf_build_if_begin(L->b, cond));
  Val b = lower_expr(L, e->rhs, NULL);
  if (!same(b.t, boolean)) type_error(L, e->rhs->loc, "the operands of '%s' must be bool, not %s", e->name, type_name(b.t));
  check(L, kf_var_set(L->b, var, b.v));
  at(L, e->loc);
  check(L, kf_build_if_end(L->b, NULL));
  Val r = {NULL, boolean};
  check(L, kf_var_get(L->b, var, &r.v));
  return r;
}

static Val binary(Lower *L, const MlExpr *e) {
  const char *op = e->name;
  if (strcmp(op, "&&") == 0 || strcmp(op, "||") == 0) return short_circuit(L, e);
  /* a literal takes the other operand's type: lower the other first */
  Val a, b;
  if (is_literal(e->lhs) && !is_literal(e->rhs)) {
    b = lower_expr(L, e->rhs, NULL);
    a = lower_expr(L, e->lhs, &b.t);
  } else {
    a = lower_expr(L, e->lhs, NULL);
    b = lower_expr(L, e->rhs, &a.t);
  }
  if (!same(a.t, b.t))
    type_error(L, e->loc, "the operands of '%s' have different types, %s and %s (convert one: %s(x))", op,
               type_name(a.t), type_name(b.t), scalar_names[a.t.scalar]);
  at(L, e->loc);
  bool flt = is_float(a.t), cmp = strchr("<>=!", op[0]) != NULL;
  Val r = {NULL, cmp ? (MlType){ML_BOOL, false} : a.t};
  if (cmp) {
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};
    static const char *const ipred[] = {"slt", "sle", "sgt", "sge", "eq", "ne"};
    static const char *const fpred[] = {"olt", "ole", "ogt", "oge", "oeq", "une"};
    unsigned k = 0;
    while (strcmp(ops[k], op) != 0) k++;
    if (a.t.array || (a.t.scalar == ML_BOOL && k < 4))
      type_error(L, e->loc, "'%s' cannot compare %s values", op, type_name(a.t));
    check(L, kf_build_compare(L->b, flt ? fpred[k] : ipred[k], a.v, b.v, &r.v));
    return r;
  }
  if (!flt && !is_int(a.t)) type_error(L, e->loc, "'%s' needs numbers, not %s", op, type_name(a.t));
  const char *name = op[0] == '+' ? (flt ? "arith.addf" : "arith.addi")
                     : op[0] == '-' ? (flt ? "arith.subf" : "arith.subi")
                     : op[0] == '*' ? (flt ? "arith.mulf" : "arith.muli")
                     : op[0] == '/' ? (flt ? "arith.divf" : "arith.divsi")
                                    : (flt ? "arith.remf" : "arith.remsi");
  check(L, kf_build_simple(L->b, name, 2, (kf_ir_value *[]){a.v, b.v}, NULL, &r.v));
  return r;
}

static Val call(Lower *L, const MlExpr *e, const MlType *hint) {
  static const char *const gpu[] = {"thread_idx", "block_idx", "block_dim", "grid_dim"};
  static const char *const gpu_ops[] = {"gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim"};
  static const struct { const char *name; MlScalar s; } casts[] = {
      {"i32", ML_I32}, {"i64", ML_I64}, {"f32", ML_F32}, {"f64", ML_F64}, {"bool", ML_BOOL}};
  (void)hint;
  for (unsigned k = 0; k < 4; k++) {
    if (strcmp(e->name, gpu[k]) != 0) continue;
    if (e->nargs) type_error(L, e->loc, "%s() takes no arguments", e->name);
    at(L, e->loc);
    Val r = {NULL, {ML_I32, false}};
    check(L, kf_build_gpu_index(L->b, gpu_ops[k], 0, &r.v));
    return cast(L, r, ML_I64);
  }
  for (unsigned k = 0; k < sizeof casts / sizeof *casts; k++) {
    if (strcmp(e->name, casts[k].name) != 0) continue;
    if (e->nargs != 1) type_error(L, e->loc, "%s(x) takes one argument", e->name);
    Val v = lower_expr(L, e->args[0], NULL);
    if (v.t.array) type_error(L, e->args[0]->loc, "cannot convert %s to %s", type_name(v.t), e->name);
    at(L, e->loc);
    return cast(L, v, casts[k].s);
  }
  if (strcmp(e->name, "sync") == 0) {
    if (e->nargs) type_error(L, e->loc, "sync() takes no arguments");
    at(L, e->loc);
    kf_op_state barrier = {.name = "gpu.barrier"};
    check(L, kf_build_op(L->b, &barrier, NULL));
    return (Val){NULL, {ML_VOID, false}};
  }
  for (unsigned k = 0; k < 3; k++) {
    static const char *const atomics[] = {"atomic_add", "atomic_max", "atomic_min"};
    static const char *const kinds[] = {"add", "max", "min"};
    if (strcmp(e->name, atomics[k]) != 0) continue;
    if (e->nargs != 3) type_error(L, e->loc, "%s(a, i, v) takes 3 arguments, not %u", e->name, e->nargs);
    Val a = array_operand(L, e->args[0]);
    MlType elem = {a.t.scalar, false};
    if (!is_int(elem) && !is_float(elem))
      type_error(L, e->args[0]->loc, "%s needs an array of numbers, not %s", e->name, type_name(a.t));
    kf_ir_value *i = index_of(L, e->args[1], a, e->loc);
    Val v = lower_expr(L, e->args[2], &elem);
    if (!same(v.t, elem))
      type_error(L, e->args[2]->loc, "the value of %s must be %s, as the array's elements, not %s", e->name,
                 type_name(elem), type_name(v.t));
    at(L, e->loc);
    kf_attr *kind = NULL;
    check(L, kf_attr_string(L->b, kinds[k], &kind));
    kf_named_attr attr = {"kind", kind};
    kf_ir_value *operands[3] = {a.v, i, v.v};
    kf_type *rt = kir_type(L, elem);
    kf_op_state st = {.name = "gpu.atomic_rmw", .noperands = 3, .operands = operands, .nresults = 1,
                      .result_types = &rt, .nattrs = 1, .attrs = &attr};
    kf_op *op = NULL;
    check(L, kf_build_op(L->b, &st, &op));
    return (Val){kf_op_result(op, 0), elem}; /* the old value */
  }
  if (strcmp(e->name, "len") == 0) {
    if (e->nargs != 1) type_error(L, e->loc, "len(a) takes one argument");
    Val a = array_operand(L, e->args[0]);
    at(L, e->loc);
    Val r = {NULL, {ML_I64, false}};
    check(L, kf_build_dim(L->b, a.v, 0, &r.v));
    return r;
  }
  const MlFunc *f = find_func(L, e->name);
  if (!f) type_error(L, e->loc, "undefined function '%s'", e->name);
  if (f->kernel) type_error(L, e->loc, "'%s' is a kernel: it is launched from the host, not called", e->name);
  if (e->nargs != f->nparams)
    type_error(L, e->loc, "'%s' takes %u argument%s, not %u", e->name, f->nparams, f->nparams == 1 ? "" : "s", e->nargs);
  kf_ir_value *args[32];
  for (unsigned i = 0; i < e->nargs; i++) {
    Val v = lower_expr(L, e->args[i], &f->params[i].type);
    if (!same(v.t, f->params[i].type))
      type_error(L, e->args[i]->loc, "argument %u of '%s' (%s) must be %s, not %s", i + 1, e->name, f->params[i].name,
                 type_name(f->params[i].type), type_name(v.t));
    args[i] = v.v;
  }
  at(L, e->loc);
  kf_type *rt = f->result.scalar == ML_VOID ? NULL : kir_type(L, f->result);
  kf_op *op = NULL;
  check(L, kf_build_call(L->b, f->name, e->nargs, args, rt ? 1 : 0, rt ? &rt : NULL, &op));
  return (Val){rt ? kf_op_result(op, 0) : NULL, f->result};
}

static Val lower_expr(Lower *L, const MlExpr *e, const MlType *hint) {
  switch (e->kind) {
  case E_INT: {
    MlType t = hint && (is_int(*hint) || is_float(*hint)) ? *hint : (MlType){ML_I64, false};
    at(L, e->loc);
    return constant(L, t, e->ival, (double)e->ival);
  }
  case E_FLOAT: {
    MlType t = hint && is_float(*hint) ? *hint : (MlType){ML_F64, false};
    at(L, e->loc);
    return constant(L, t, 0, e->fval);
  }
  case E_BOOL:
    at(L, e->loc);
    return constant(L, (MlType){ML_BOOL, false}, e->ival, 0);
  case E_NAME: {
    Symbol *s = lookup(L, e->name);
    if (!s) type_error(L, e->loc, "undefined name '%s'", e->name);
    if (s->value) return (Val){s->value, s->type};
    at(L, e->loc);
    Val r = {NULL, s->type};
    check(L, kf_var_get(L->b, s->var, &r.v));
    return r;
  }
  case E_BINARY: return binary(L, e);
  case E_UNARY: {
    Val v = lower_expr(L, e->lhs, hint);
    at(L, e->loc);
    Val r = {NULL, v.t};
    if (e->name[0] == '!') {
      if (!same(v.t, (MlType){ML_BOOL, false})) type_error(L, e->loc, "'!' needs a bool, not %s", type_name(v.t));
      Val t = constant(L, v.t, 1, 0);
      check(L, kf_build_simple(L->b, "arith.xori", 2, (kf_ir_value *[]){v.v, t.v}, NULL, &r.v));
    } else if (is_float(v.t)) {
      check(L, kf_build_simple(L->b, "arith.negf", 1, &v.v, NULL, &r.v));
    } else if (is_int(v.t)) {
      Val z = constant(L, v.t, 0, 0);
      check(L, kf_build_simple(L->b, "arith.subi", 2, (kf_ir_value *[]){z.v, v.v}, NULL, &r.v));
    } else {
      type_error(L, e->loc, "'-' needs a number, not %s", type_name(v.t));
    }
    return r;
  }
  case E_INDEX: {
    Val a = array_operand(L, e->lhs);
    kf_ir_value *i = index_of(L, e->rhs, a, e->loc);
    Val r = {NULL, {a.t.scalar, false}};
    check(L, kf_build_load(L->b, a.v, 1, &i, &r.v));
    return r;
  }
  case E_CALL: {
    Val r = call(L, e, hint);
    if (r.t.scalar == ML_VOID) type_error(L, e->loc, "'%s' returns no value", e->name);
    return r;
  }
  }
  type_error(L, e->loc, "unknown expression");
}

/* ---- statements ------------------------------------------------------------------------------- */

static void lower_stmt(Lower *L, const MlStmt *s);

static void lower_block(Lower *L, const MlStmt *s) {
  unsigned mark = L->nsyms;
  if (s->kind != S_BLOCK) lower_stmt(L, s);
  for (unsigned i = 0; s->kind == S_BLOCK && i < s->nstmts; i++) {
    if (s->stmts[i]->kind == S_RETURN && (L->mlfunc->body != s || i + 1 != s->nstmts))
      type_error(L, s->stmts[i]->loc, "return must be the last statement of a function");
    lower_stmt(L, s->stmts[i]);
  }
  L->nsyms = mark;
}

static kf_ir_value *condition(Lower *L, const MlExpr *e, const char *what) {
  Val c = lower_expr(L, e, NULL);
  if (!same(c.t, (MlType){ML_BOOL, false})) type_error(L, e->loc, "the condition of %s must be bool, not %s", what, type_name(c.t));
  return c.v;
}

static void lower_if(Lower *L, const MlStmt *s) {
  kf_ir_value *c = condition(L, s->value, "if");
  at(L, s->loc);
  check(L, kf_build_if_begin(L->b, c));
  lower_block(L, s->body);
  if (s->orelse) {
    check(L, kf_build_if_else(L->b));
    lower_block(L, s->orelse);
  }
  at(L, s->loc);
  check(L, kf_build_if_end(L->b, NULL));
}

/* while (c) { body }: the condition's ops in the scf.while's before-region, the body in its after-region. */
static void lower_while(Lower *L, const MlStmt *s) {
  at(L, s->loc);
  check(L, kf_build_while_begin(L->b));
  kf_ir_value *c = condition(L, s->value, "while");
  at(L, s->loc);
  check(L, kf_build_while_do(L->b, c));
  lower_block(L, s->body);
  at(L, s->loc);
  check(L, kf_build_while_end(L->b, NULL));
}

/* for i in lo..hi: i from lo up to hi - 1 (integers, as i64); i cannot be assigned. */
static void lower_for(Lower *L, const MlStmt *s) {
  MlType i64 = {ML_I64, false};
  Val lo = lower_expr(L, s->value, &i64), hi = lower_expr(L, s->index, &i64);
  if (!is_int(lo.t) || !is_int(hi.t))
    type_error(L, !is_int(lo.t) ? s->value->loc : s->index->loc, "the bounds of a for loop must be integers, not %s",
               type_name(!is_int(lo.t) ? lo.t : hi.t));
  at(L, s->loc);
  if (lo.t.scalar != ML_I64) lo = cast(L, lo, ML_I64);
  if (hi.t.scalar != ML_I64) hi = cast(L, hi, ML_I64);
  Val one = constant(L, i64, 1, 0);
  unsigned mark = L->nsyms;
  kf_ir_value *iv = NULL;
  check(L, kf_build_for_begin(L->b, lo.v, hi.v, one.v, &iv));
  bind(L, s->loc, s->name, i64)->value = iv;
  lower_block(L, s->body);
  at(L, s->loc);
  check(L, kf_build_for_end(L->b, NULL));
  L->nsyms = mark;
}

static void lower_stmt(Lower *L, const MlStmt *s) {
  switch (s->kind) {
  case S_BLOCK: lower_block(L, s); return;
  case S_IF: lower_if(L, s); return;
  case S_WHILE: lower_while(L, s); return;
  case S_FOR: lower_for(L, s); return;
  case S_LET: {
    MlType type = resolve(L, s->type, s->loc);
    Val v = {NULL, type};
    if (s->value) {
      v = lower_expr(L, s->value, s->has_type ? &type : NULL);
      if (v.t.array) type_error(L, s->value->loc, "a variable cannot hold an array");
      if (s->has_type && !same(v.t, type))
        type_error(L, s->value->loc, "'%s' is declared %s but its value is %s", s->name, type_name(type), type_name(v.t));
    } else if (type.array) {
      type_error(L, s->loc, "a variable cannot hold an array");
    }
    at(L, s->loc);
    Symbol *sym = bind(L, s->loc, s->name, v.t);
    check(L, kf_var_declare(L->b, s->name, kir_type(L, v.t), &sym->var));
    if (v.v) check(L, kf_var_set(L->b, sym->var, v.v));
    return;
  }
  case S_SHARED: { /* one module-level array per declaration: its symbol is function.name */
    char sym[256];
    snprintf(sym, sizeof sym, "%s.%s", L->mlfunc->name, s->name);
    at(L, s->loc);
    Symbol *sh = bind(L, s->loc, s->name, resolve(L, s->type, s->loc));
    check(L, kf_build_shared_array(L->b, sym, kir_type(L, (MlType){sh->type.scalar, false}), 1, &s->extent, &sh->value));
    return;
  }
  case S_ASSIGN: {
    Symbol *sym = lookup(L, s->name);
    if (!sym) type_error(L, s->loc, "undefined name '%s'", s->name);
    if (!sym->var)
      type_error(L, s->loc, "'%s' cannot be assigned (%s)", s->name, sym->type.array ? "an array" : "a loop variable");
    Val v = lower_expr(L, s->value, &sym->type);
    if (!same(v.t, sym->type))
      type_error(L, s->value->loc, "cannot assign %s to '%s', which is %s", type_name(v.t), s->name, type_name(sym->type));
    at(L, s->loc);
    check(L, kf_var_set(L->b, sym->var, v.v));
    return;
  }
  case S_STORE: {
    Symbol *sym = lookup(L, s->name);
    if (!sym) type_error(L, s->loc, "undefined name '%s'", s->name);
    if (!sym->type.array) type_error(L, s->loc, "'%s' is %s, not an array", s->name, type_name(sym->type));
    Val a = {sym->value, sym->type};
    MlType elem = {sym->type.scalar, false};
    kf_ir_value *i = index_of(L, s->index, a, s->loc);
    Val v = lower_expr(L, s->value, &elem);
    if (!same(v.t, elem))
      type_error(L, s->value->loc, "cannot store %s in '%s', an array of %s", type_name(v.t), s->name, type_name(elem));
    at(L, s->loc);
    check(L, kf_build_store(L->b, v.v, a.v, 1, &i));
    return;
  }
  case S_EXPR:
    if (s->value->kind != E_CALL) type_error(L, s->loc, "an expression statement must be a call");
    call(L, s->value, NULL);
    return;
  case S_RETURN: {
    MlType want = L->mlfunc->result;
    if (want.scalar == ML_VOID && s->value) type_error(L, s->value->loc, "'%s' returns no value", L->mlfunc->name);
    if (want.scalar != ML_VOID && !s->value) type_error(L, s->loc, "'%s' must return %s", L->mlfunc->name, type_name(want));
    Val v = {NULL, want};
    if (s->value) {
      v = lower_expr(L, s->value, &want);
      if (!same(v.t, want))
        type_error(L, s->value->loc, "'%s' returns %s, not %s", L->mlfunc->name, type_name(want), type_name(v.t));
    }
    at(L, s->loc);
    check(L, kf_build_return(L->b, v.v ? 1 : 0, v.v ? &v.v : NULL));
    return;
  }
  }
}

/* Lowers f; types: the parameter types its type variables are bound from (a generic kernel's), else NULL. */
static void lower_func(Lower *L, const MlFunc *f, kf_type *const *types) {
  for (unsigned i = 0; i < L->prog->nfuncs && L->prog->funcs[i] != f; i++)
    if (strcmp(L->prog->funcs[i]->name, f->name) == 0) type_error(L, f->loc, "'%s' is defined twice", f->name);
  memset(L->bind, 0, sizeof L->bind);
  if (types) bind_types(L, f, types);
  MlType ptypes[32];
  kf_type *params[32], *result = f->result.scalar == ML_VOID ? NULL : kir_type(L, resolve(L, f->result, f->loc));
  kf_type *fn_type = NULL;
  for (unsigned i = 0; i < f->nparams; i++)
    params[i] = kir_type(L, ptypes[i] = resolve(L, f->params[i].type, f->params[i].loc));
  check(L, kf_type_function(L->ctx, f->nparams, params, result ? 1 : 0, result ? &result : NULL, &fn_type));
  at(L, f->loc);
  check(L, kf_build_function(L->b, f->name, fn_type, f->kernel ? KF_FUNCTION_FLAG_KERNEL : KF_FUNCTION_FLAG_DEVICE,
                             &L->func));
  L->mlfunc = f;
  L->nsyms = 0;
  kf_block *entry = kf_function_entry(L->func);
  for (unsigned i = 0; i < f->nparams; i++) {
    const MlParam *p = &f->params[i];
    if (lookup(L, p->name)) type_error(L, p->loc, "parameter '%s' is declared twice", p->name);
    Symbol *s = bind(L, p->loc, p->name, ptypes[i]);
    if (p->type.array) {
      s->value = kf_block_arg(entry, i);
    } else {
      at(L, p->loc);
      check(L, kf_var_declare(L->b, p->name, params[i], &s->var));
      check(L, kf_var_set(L->b, s->var, kf_block_arg(entry, i)));
    }
  }
  lower_block(L, f->body);
  const MlStmt *last = f->body->nstmts ? f->body->stmts[f->body->nstmts - 1] : NULL;
  if (!last || last->kind != S_RETURN) {
    if (f->result.scalar != ML_VOID) type_error(L, f->loc, "'%s' must end with a return of %s", f->name, type_name(f->result));
    at(L, f->loc);
    check(L, kf_build_return(L->b, 0, NULL));
  }
}

/* A verified module of prog's functions: every function but the generic kernels (kernel NULL), or the device
 * functions and kernel `kernel`, its type variables bound from types. */
static kf_status lower_program(kf_context *ctx, const char *file, const MlProgram *prog, const char *kernel,
                               kf_type *const *types, kf_module **out) {
  *out = NULL;
  Lower *L = calloc(1, sizeof *L);
  kf_module *m = NULL;
  kf_status st = L ? kf_module_create(ctx, file, &m) : KF_ERROR_OUT_OF_MEMORY;
  if (st == KF_OK) st = kf_builder_create(m, &L->b);
  if (st == KF_OK) {
    L->ctx = ctx;
    L->file = file;
    L->prog = prog;
    if (setjmp(L->fail)) {
      st = KF_ERROR_INVALID_INPUT;
    } else {
      for (unsigned i = 0; i < prog->nfuncs; i++) {
        const MlFunc *f = prog->funcs[i];
        bool chosen = kernel ? !f->kernel || strcmp(f->name, kernel) == 0 : !f->kernel || !is_generic(f);
        if (chosen) lower_func(L, f, kernel && f->kernel ? types : NULL);
      }
      st = kf_builder_finish(L->b);
    }
  }
  if (L) kf_builder_destroy(L->b);
  if (st == KF_OK) st = kf_module_verify(m);
  free(L);
  if (st != KF_OK) {
    kf_module_destroy(m);
    return st;
  }
  *out = m;
  return KF_OK;
}

kf_status ml_compile(kf_context *ctx, const char *file, const char *text, size_t len, kf_module **out) {
  *out = NULL;
  kf_status st = kf_context_add_source(ctx, file, text, len);
  if (st != KF_OK) return st;
  MlArena *arena = NULL;
  MlProgram prog;
  st = ml_parse(ctx, file, text, len, &arena, &prog) ? lower_program(ctx, file, &prog, NULL, NULL, out)
                                                     : KF_ERROR_INVALID_INPUT;
  ml_arena_free(&arena);
  return st;
}

/* ---- generic programs: each kernel lowered by kf_program_create_generic's callback ------------------ */

struct MlUnit {
  char file[1024];
  MlArena *arena;
  MlProgram prog;
};

static kf_status specialize(void *user, kf_context *ctx, const char *kernel, kf_type *const *types, unsigned n,
                            kf_module **out) {
  (void)n; /* the program's kernels declare their parameter counts: the runtime has checked it */
  MlUnit *u = user;
  return lower_program(ctx, u->file, &u->prog, kernel, types, out);
}

kf_status ml_program(kf_runtime *rt, kf_context *ctx, const char *file, const char *text, size_t len, MlUnit **unit,
                     kf_program **out) {
  *out = NULL;
  MlUnit *u = *unit = calloc(1, sizeof *u);
  kf_generic_kernel kernels[64];
  kf_generic_options o;
  kf_generic_options_init(&o);
  o.kernels = kernels;
  o.specialize = specialize;
  o.user_data = u;
  kf_status st = u ? kf_context_add_source(ctx, file, text, len) : KF_ERROR_OUT_OF_MEMORY;
  if (st != KF_OK) return st;
  snprintf(u->file, sizeof u->file, "%s", file);
  if (!ml_parse(ctx, file, text, len, &u->arena, &u->prog)) return KF_ERROR_INVALID_INPUT;
  for (unsigned i = 0; i < u->prog.nfuncs && o.nkernels < 64; i++)
    if (u->prog.funcs[i]->kernel)
      kernels[o.nkernels++] = (kf_generic_kernel){u->prog.funcs[i]->name, (int)u->prog.funcs[i]->nparams};
  return kf_program_create_generic(rt, &o, out);
}

void ml_unit_free(MlUnit *unit) {
  if (unit) ml_arena_free(&unit->arena);
  free(unit);
}
