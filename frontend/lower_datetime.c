/* lower_datetime.c — NumPy's datetime64 and timedelta64 values in kernels, typed and computed as numba-cuda's
 * npdatetime typing and lowering define them (numba/cuda/typing/npdatetime.py, np/npdatetime.py).
 *
 * A value is an i64 whose kir type carries its unit (ty_time); NaT is INT64_MIN. Every operation bitcasts its
 * operands to i64, computes, and bitcasts the result to its type: arithmetic with a NaT gives NaT, comparisons with
 * a NaT are false except != (true). Units combine as Numba's npdatetime_helpers say: timedeltas convert to the finer
 * of two compatible units by a constant factor (years and months convert only to each other); datetimes of years or
 * months meet finer units through the calendar (the day of the first of that year or month), as NumPy's
 * get_datetimestruct_days. What Numba types and kfront refuses with its TypingError: a datetime with a datetime
 * (+), a datetime with a timedelta (==), timedeltas of incompatible units, % of timedeltas, a truth value, float(),
 * conversions other than int(); // of two timedeltas fails inside numba-cuda's lowering and is refused here too. */
#include "frontend/lower.h"

#include <stdio.h>

static const int64_t NAT = INT64_MIN;

static Type *i64_of(Lower *L) { return ty_i64(L->ctx); }
static Value *kconst(Lower *L, int64_t k) { return ib_const_int(&L->b, i64_of(L), k); }
static Value *as_i64(Lower *L, const FeVal *x) { return ib_cast(&L->b, lw_mat(L, x), i64_of(L)); }
static FeVal as_time(Lower *L, Value *v, Type *t) { return val(t, ib_cast(&L->b, v, t)); }
static Value *not_nat(Lower *L, Value *v) { return ib_cmpi(&L->b, IR_CMPI_NE, v, kconst(L, NAT)); }
static Value *both_not_nat(Lower *L, Value *x, Value *y) { return ib_binary(&L->b, OP_ANDI, not_nat(L, x), not_nat(L, y)); }
/* v where ok, else NaT */
static Value *nat_unless(Lower *L, Value *ok, Value *v) { return ib_select(&L->b, ok, v, kconst(L, NAT)); }
static Value *mul_k(Lower *L, Value *v, int64_t k) { return k == 1 ? v : ib_binary(&L->b, OP_MULI, v, kconst(L, k)); }

/* ---- units (npdatetime_helpers) ----------------------------------------------------------------------------- */

/* NumPy's casting: whether timedeltas of unit src convert safely to unit dst (can_cast_timedelta_units). */
static bool can_cast_units(unsigned src, unsigned dst) {
  if (src == dst || src == TU_GENERIC) return true;
  if (src > dst || dst == TU_GENERIC) return false;
  return !(src <= TU_M && dst > TU_M);
}

/* The integer factor from unit big to unit small, or 0 when there is none (get_timedelta_conversion_factor). */
static int64_t unit_factor(unsigned big, unsigned small) {
  static const struct { unsigned next; int64_t mult; } steps[TU_COUNT] = {
      [TU_Y] = {TU_M, 12},     [TU_W] = {TU_D, 7},       [TU_D] = {TU_h, 24},      [TU_h] = {TU_m, 60},
      [TU_m] = {TU_s, 60},     [TU_s] = {TU_ms, 1000},   [TU_ms] = {TU_us, 1000},  [TU_us] = {TU_ns, 1000},
      [TU_ns] = {TU_ps, 1000}, [TU_ps] = {TU_fs, 1000}, [TU_fs] = {TU_as, 1000}};
  if (big == TU_GENERIC) return 1;
  int64_t f = 1;
  unsigned c = big;
  while (c < small) {
    if (!steps[c].mult) return 0;
    f *= steps[c].mult;
    c = steps[c].next;
  }
  return c == small ? f : 0;
}

/* The finer of two units, generic giving way (get_best_unit). */
static unsigned best_unit(unsigned a, unsigned b) {
  if (a == TU_GENERIC) return b;
  if (b == TU_GENERIC) return a;
  return b > a ? b : a;
}

/* The unit of a datetime of unit dt combined with a timedelta of unit td, or -1 (combine_datetime_timedelta_units). */
static int combined_unit(unsigned dt, unsigned td) {
  if (dt == TU_GENERIC) return (int)td;
  if (td == TU_GENERIC) return (int)dt;
  if (td < TU_W && dt >= TU_W) return -1;
  return (int)(dt > td ? dt : td);
}

/* ---- the calendar: datetimes of years and months as days (reduce_datetime_for_unit) ------------------------- */

/* Days from 1970-01-01 to January 1st of year y (years since 1970), as NumPy's get_datetimestruct_days. */
static Value *year_to_days(Lower *L, Value *y) {
  IrBuilder *b = &L->b;
  Value *days = mul_k(L, y, 365);
  /* at or after 1970: leap days since 1968, less the centuries since 1900, plus the 400 years since 1600 */
  Value *p1 = ib_binary(b, OP_ADDI, y, kconst(L, 1));
  Value *pos = ib_binary(b, OP_ADDI, days, ib_binary(b, OP_DIVSI, p1, kconst(L, 4)));
  pos = ib_binary(b, OP_SUBI, pos, ib_binary(b, OP_DIVSI, ib_binary(b, OP_ADDI, p1, kconst(L, 68)), kconst(L, 100)));
  pos = ib_binary(b, OP_ADDI, pos, ib_binary(b, OP_DIVSI, ib_binary(b, OP_ADDI, p1, kconst(L, 368)), kconst(L, 400)));
  /* before 1970: counted from 1972 and 2000 (negative quotients round toward zero, as numba's sdiv) */
  Value *m2 = ib_binary(b, OP_SUBI, y, kconst(L, 2)), *m30 = ib_binary(b, OP_SUBI, y, kconst(L, 30));
  Value *neg = ib_binary(b, OP_ADDI, days, ib_binary(b, OP_DIVSI, m2, kconst(L, 4)));
  neg = ib_binary(b, OP_SUBI, neg, ib_binary(b, OP_DIVSI, m30, kconst(L, 100)));
  neg = ib_binary(b, OP_ADDI, neg, ib_binary(b, OP_DIVSI, m30, kconst(L, 400)));
  return ib_select(b, ib_cmpi(b, IR_CMPI_SLT, y, kconst(L, 0)), neg, pos);
}

/* Days from 1970-01-01 to the first day of month mo (months since 1970-01). */
static Value *month_to_days(Lower *L, Value *mo) {
  static const int64_t before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  IrBuilder *b = &L->b;
  Value *year = ib_binary(b, OP_FLOORDIVSI, mo, kconst(L, 12)), *month = ib_binary(b, OP_FLOORMODSI, mo, kconst(L, 12));
  Value *acc = kconst(L, 0);
  for (int k = 1; k < 12; k++) acc = ib_select(b, ib_cmpi(b, IR_CMPI_SGE, month, kconst(L, k)), kconst(L, before[k]), acc);
  /* one more day from March on in a leap year */
  Value *actual = ib_binary(b, OP_ADDI, year, kconst(L, 1970));
  Value *by4 = ib_cmpi(b, IR_CMPI_EQ, ib_binary(b, OP_ANDI, actual, kconst(L, 3)), kconst(L, 0));
  Value *not100 = ib_cmpi(b, IR_CMPI_NE, ib_binary(b, OP_REMSI, actual, kconst(L, 100)), kconst(L, 0));
  Value *by400 = ib_cmpi(b, IR_CMPI_EQ, ib_binary(b, OP_REMSI, actual, kconst(L, 400)), kconst(L, 0));
  Value *leap = ib_binary(b, OP_ANDI, by4, ib_binary(b, OP_ORI, not100, by400));
  Value *after_feb = ib_binary(b, OP_ANDI, leap, ib_cmpi(b, IR_CMPI_SGE, month, kconst(L, 2)));
  acc = ib_binary(b, OP_ADDI, acc, ib_unary(b, OP_EXTUI, after_feb, i64_of(L)));
  return ib_binary(b, OP_ADDI, year_to_days(L, year), acc);
}

/* A datetime v of unit src in unit dst (convert_datetime_for_arith): through days (or weeks) from years and months,
 * then by the constant factor. False when there is no factor (typing keeps that from happening). */
static bool convert_datetime(Lower *L, Value **v, unsigned src, unsigned dst) {
  if (dst >= TU_W && dst != TU_GENERIC && src <= TU_M) {
    *v = src == TU_Y ? year_to_days(L, *v) : month_to_days(L, *v);
    src = TU_D;
    if (dst == TU_W) {
      *v = ib_binary(&L->b, OP_FLOORDIVSI, *v, kconst(L, 7));
      src = TU_W;
    }
  }
  int64_t f = unit_factor(src, dst);
  if (!f) return false;
  *v = mul_k(L, *v, f);
  return true;
}

/* ---- operators ---------------------------------------------------------------------------------------------- */

static const char *tn(Lower *L, const FeVal *v) { return v->kind == FV_VAL ? tname(L, v->type) : lw_vname(L, v); }

static FeVal no_impl(Lower *L, const char *what, const FeVal *a, const FeVal *b, SrcLoc loc) {
  if (b) return lw_lerr(L, loc, "no implementation of %s for %s and %s (as in numba-cuda)", what, tn(L, a), tn(L, b));
  return lw_lerr(L, loc, "no implementation of %s for %s (as in numba-cuda)", what, tn(L, a));
}

/* Numba's NPTimedelta/NPDatetime with a number: Integer (not bool) or Float. */
static bool is_int_or_float(const FeVal *v) {
  return v->kind == FV_VAL && !is_time(v) && (v->type->kind == TY_INT || v->type->kind == TY_FLOAT) && !is_enum_only(v);
}

/* The timedelta t's value divided (div) or multiplied by the number n (int64 or a float), NaT where t is NaT and, for a
 * division, where n is 0 or NaN (timedelta_times_number, timedelta_over_number). */
static FeVal td_by_number(Lower *L, FeVal t, FeVal n, bool div, SrcLoc loc) {
  IrBuilder *b = &L->b;
  Value *tv = as_i64(L, &t), *ok = not_nat(L, tv), *r;
  at(L, loc);
  if (n.type->kind == TY_FLOAT) {
    Type *ft = n.type;
    Value *nv = lw_mat(L, &n);
    if (div) ok = ib_binary(b, OP_ANDI, ok, ib_cmpf(b, IR_CMPF_UNE, nv, ib_const_float(b, ft, 0))); /* une: NaN too */
    Value *f = ib_binary(b, div ? OP_DIVF : OP_MULF, ib_unary(b, OP_SITOFP, tv, ft), nv);
    /* a NaN result is NaT (_cast_to_timedelta), the rest truncated */
    ok = ib_binary(b, OP_ANDI, ok, ib_cmpf(b, IR_CMPF_ORD, f, f));
    r = ib_unary(b, OP_FPTOSI, f, i64_of(L));
  } else {
    Value *nv = conv_v(L, n, i64_of(L));
    if (div) {
      ok = ib_binary(b, OP_ANDI, ok, ib_cmpi(b, IR_CMPI_NE, nv, kconst(L, 0)));
      nv = ib_select(b, ok, nv, kconst(L, 1)); /* no division by 0 where the result is NaT anyway */
    }
    r = ib_binary(b, div ? OP_DIVSI : OP_MULI, tv, nv);
  }
  return as_time(L, nat_unless(L, ok, r), t.type);
}

/* Two timedeltas as i64s in their common unit (normalize_timedeltas): false when neither unit converts to the other. */
static bool normalize(Lower *L, const FeVal *a, const FeVal *b, Value **x, Value **y) {
  unsigned ua = ty_time_unit(a->type), ub = ty_time_unit(b->type);
  int64_t f;
  *x = as_i64(L, a);
  *y = as_i64(L, b);
  if (can_cast_units(ua, ub) && (f = unit_factor(ua, ub))) {
    *x = mul_k(L, *x, f);
  } else if (can_cast_units(ub, ua) && (f = unit_factor(ub, ua))) {
    *y = mul_k(L, *y, f);
  } else {
    return false;
  }
  return true;
}

static bool units_compatible(const FeVal *a, const FeVal *b) {
  unsigned ua = ty_time_unit(a->type), ub = ty_time_unit(b->type);
  return can_cast_units(ua, ub) || can_cast_units(ub, ua);
}

FeVal lw_time_binop(Lower *L, PyBinOp op, FeVal a, FeVal b, SrcLoc loc) {
  static const char *const names[] = {"'+'", "'-'", "'*'", "'@'", "'/'", "'//'", "'%'", "'**'",
                                      "'<<'", "'>>'", "'|'", "'^'", "'&'"};
  const char *what = names[op];
  bool ta = is_time(&a), tb = is_time(&b);
  bool da = ta && a.type->datetime, db = tb && b.type->datetime;
  IrBuilder *bld = &L->b;
  if (ta && tb && !da && !db) { /* timedelta with timedelta */
    if (op == BIN_FLOORDIV)
      return lw_lerr(L, loc, "no implementation of '//' for %s and %s (numba-cuda types it, then fails to compile it)",
                     tn(L, &a), tn(L, &b));
    if ((op != BIN_ADD && op != BIN_SUB && op != BIN_DIV) || !units_compatible(&a, &b)) return no_impl(L, what, &a, &b, loc);
    at(L, loc);
    Value *x, *y;
    if (!normalize(L, &a, &b, &x, &y)) return no_impl(L, what, &a, &b, loc);
    Value *ok = both_not_nat(L, as_i64(L, &a), as_i64(L, &b));
    if (op == BIN_DIV) { /* float64, NaN with a NaT */
      Type *f64 = ty_f64(L->ctx);
      Value *q = ib_binary(bld, OP_DIVF, ib_unary(bld, OP_SITOFP, x, f64), ib_unary(bld, OP_SITOFP, y, f64));
      return val(f64, ib_select(bld, ok, q, ib_const_float(bld, f64, __builtin_nan(""))));
    }
    Value *r = ib_binary(bld, op == BIN_ADD ? OP_ADDI : OP_SUBI, x, y);
    /* the result's type: the right operand's when the left converts to it (TimedeltaBinOp), else the left's */
    Type *rt = can_cast_units(ty_time_unit(a.type), ty_time_unit(b.type)) ? b.type : a.type;
    return as_time(L, nat_unless(L, ok, r), rt);
  }
  if ((op == BIN_ADD && ((da && tb && !db) || (db && ta && !da))) || (op == BIN_SUB && da && tb && !db)) {
    const FeVal *dt = da ? &a : &b, *td = da ? &b : &a; /* datetime -+ timedelta, timedelta + datetime */
    int unit = combined_unit(ty_time_unit(dt->type), ty_time_unit(td->type));
    if (unit < 0) return no_impl(L, what, &a, &b, loc);
    at(L, loc);
    Value *dv = as_i64(L, dt), *tv = as_i64(L, td), *ok = both_not_nat(L, dv, tv);
    int64_t f = unit_factor(ty_time_unit(td->type), (unsigned)unit);
    if (!f || !convert_datetime(L, &dv, ty_time_unit(dt->type), (unsigned)unit)) return no_impl(L, what, &a, &b, loc);
    Value *r = ib_binary(bld, op == BIN_ADD ? OP_ADDI : OP_SUBI, dv, mul_k(L, tv, f));
    return as_time(L, nat_unless(L, ok, r), ty_time(L->ctx, true, (TimeUnit)unit));
  }
  if (op == BIN_SUB && da && db) { /* a timedelta in the finer unit */
    unsigned unit = best_unit(ty_time_unit(a.type), ty_time_unit(b.type));
    at(L, loc);
    Value *x = as_i64(L, &a), *y = as_i64(L, &b), *ok = both_not_nat(L, x, y);
    if (!convert_datetime(L, &x, ty_time_unit(a.type), unit) || !convert_datetime(L, &y, ty_time_unit(b.type), unit))
      return no_impl(L, what, &a, &b, loc);
    return as_time(L, nat_unless(L, ok, ib_binary(bld, OP_SUBI, x, y)), ty_time(L->ctx, false, (TimeUnit)unit));
  }
  /* a timedelta with a number: td * n, n * td, td / n, td // n (the integers as int64, TimedeltaMixOp/DivOp) */
  if (op == BIN_MUL && ta && !da && is_int_or_float(&b)) return td_by_number(L, a, b, false, loc);
  if (op == BIN_MUL && tb && !db && is_int_or_float(&a)) return td_by_number(L, b, a, false, loc);
  if ((op == BIN_DIV || op == BIN_FLOORDIV) && ta && !da && is_int_or_float(&b)) return td_by_number(L, a, b, true, loc);
  return no_impl(L, what, &a, &b, loc);
}

FeVal lw_time_unop(Lower *L, PyUnaryOp op, FeVal a, SrcLoc loc) {
  static const char *const names[] = {"unary '-'", "unary '+'", "'~'", "'not'"};
  if (op == UN_NOT) return lw_truth(L, a, loc); /* its error */
  if (a.type->datetime || op == UN_INVERT) return no_impl(L, names[op], &a, NULL, loc);
  if (op == UN_POS) return (a.literal = false, a);
  at(L, loc);
  return as_time(L, ib_binary(&L->b, OP_SUBI, kconst(L, 0), as_i64(L, &a)), a.type); /* -NaT is NaT */
}

FeVal lw_time_abs(Lower *L, FeVal a, SrcLoc loc) {
  if (a.type->datetime) return no_impl(L, "abs()", &a, NULL, loc);
  at(L, loc);
  return as_time(L, ib_unary(&L->b, OP_ABSI, as_i64(L, &a), NULL), a.type); /* abs(NaT) is NaT (wraps) */
}

FeVal lw_time_compare(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc) {
  static const char *const names[] = {"'=='", "'!='", "'<'", "'<='", "'>'", "'>='"};
  static const IrCmpIPred preds[] = {IR_CMPI_EQ, IR_CMPI_NE, IR_CMPI_SLT, IR_CMPI_SLE, IR_CMPI_SGT, IR_CMPI_SGE};
  if (op > CMP_GE) return lw_lerr(L, loc, "unsupported comparison of %s and %s", tn(L, &a), tn(L, &b));
  if (!is_time(&a) || !is_time(&b) || a.type->datetime != b.type->datetime) return no_impl(L, names[op], &a, &b, loc);
  at(L, loc);
  Value *x, *y, *ok = both_not_nat(L, as_i64(L, &a), as_i64(L, &b));
  if (a.type->datetime) { /* any units: both in the finer */
    unsigned unit = best_unit(ty_time_unit(a.type), ty_time_unit(b.type));
    x = as_i64(L, &a);
    y = as_i64(L, &b);
    if (!convert_datetime(L, &x, ty_time_unit(a.type), unit) || !convert_datetime(L, &y, ty_time_unit(b.type), unit))
      return no_impl(L, names[op], &a, &b, loc);
  } else {
    if (!units_compatible(&a, &b) || !normalize(L, &a, &b, &x, &y)) return no_impl(L, names[op], &a, &b, loc);
  }
  Value *c = ib_cmpi(&L->b, preds[op], x, y);
  /* with a NaT: false, != true */
  if (op == CMP_NE) return val(ty_bool(L->ctx), ib_binary(&L->b, OP_ORI, c, ib_binary(&L->b, OP_XORI, ok, ib_const_bool(&L->b, true))));
  return val(ty_bool(L->ctx), ib_binary(&L->b, OP_ANDI, c, ok));
}

FeVal lw_time_minmax(Lower *L, bool is_max, const FeVal *items, unsigned n, SrcLoc loc) {
  const char *fname = is_max ? "max()" : "min()";
  for (unsigned i = 1; i < n; i++)
    if (items[i].kind != FV_VAL || items[i].type != items[0].type) return no_impl(L, fname, &items[0], &items[i], loc);
  /* Python's fold as numba's do_minmax: v replaces the accumulator when v > acc (v < acc), NaT-aware comparisons */
  FeVal acc = items[0];
  for (unsigned i = 1; i < n; i++) {
    FeVal c = lw_time_compare(L, is_max ? CMP_GT : CMP_LT, items[i], acc, loc);
    acc = val(acc.type, ib_select(&L->b, lw_mat(L, &c), lw_mat(L, &items[i]), lw_mat(L, &acc)));
  }
  return acc;
}

FeVal lw_time_isnat(Lower *L, FeVal a, SrcLoc loc) {
  if (!is_time(&a)) return lw_lerr(L, loc, "numpy.isnat() takes a datetime64 or timedelta64, not %s", tn(L, &a));
  at(L, loc);
  return val(ty_bool(L->ctx), ib_cmpi(&L->b, IR_CMPI_EQ, as_i64(L, &a), kconst(L, NAT)));
}

FeVal lw_time_int(Lower *L, FeVal a, SrcLoc loc) {
  at(L, loc);
  return val(i64_of(L), as_i64(L, &a));
}

bool lw_time_conversion_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what) {
  if (v->kind != FV_VAL || v->type == t || (!ty_is_time(v->type) && !ty_is_time(t))) return false;
  if (ty_is_time(v->type) && !ty_is_time(t) && t->kind == TY_BOOL)
    lw_lerr(L, loc, "cannot convert %s to bool%s (a datetime64 or timedelta64 has no truth value in numba-cuda)",
            tname(L, v->type), what);
  else
    lw_lerr(L, loc, "cannot convert %s to %s%s (numba-cuda converts datetime64 and timedelta64 values to no other "
                    "type: use int(x) for the integer, and the same unit on both sides)", tname(L, v->type),
            tname(L, t), what);
  return true;
}
