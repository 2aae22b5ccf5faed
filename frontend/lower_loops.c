/* lower_loops.c — for and while loops: iterables (range, arrays, tuples, zip, enumerate), the values carried
 * around a loop (their types found by lowering the body speculatively until stable, lower.h), scf.for and
 * scf.while, break/continue flags, the else clause, and tuples unrolled. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

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
  if (!step.is_const) view_value_check(&L->b, ib_cmpi(&L->b, IR_CMPI_NE, st, zero), "range() arg 3 must not be zero");
  Value *span, *mag, *nonempty;
  if (ivt->is_unsigned) { /* a uint64 step is positive, however large */
    span = ib_binary(&L->b, OP_SUBI, b, a);
    mag = st;
    nonempty = ib_cmpi(&L->b, IR_CMPI_ULT, a, b);
  } else {
    Value *pos = ib_cmpi(&L->b, IR_CMPI_SGT, st, zero);
    span = ib_select(&L->b, pos, ib_binary(&L->b, OP_SUBI, b, a), ib_binary(&L->b, OP_SUBI, a, b));
    mag = ib_select(&L->b, pos, st, ib_binary(&L->b, OP_SUBI, zero, st)); /* |MIN| is 2**63, unsigned */
    nonempty = ib_select(&L->b, pos, ib_cmpi(&L->b, IR_CMPI_SLT, a, b), ib_cmpi(&L->b, IR_CMPI_SGT, a, b));
  }
  /* (span - 1) / |step| + 1 items, in unsigned arithmetic (span < 2**64 when the range is not empty) */
  Value *safe = ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_EQ, mag, zero), one, mag);
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
    lw_lerr(L, e->loc, "iterables nested too deeply");
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
      lw_lerr(L, e->call.keywords[0]->loc, "%s() takes no keyword arguments", fname);
      return false;
    }
    unsigned n = e->call.args.n;
    for (unsigned i = 0; i < n; i++)
      if (e->call.args.items[i]->kind == EX_STARRED) {
        lw_lerr(L, e->call.args.items[i]->loc, "*args in calls are not supported in kernels");
        return false;
      }
    if (callee.builtin == BI_ENUMERATE) {
      if (n < 1 || n > 2) {
        lw_lerr(L, e->loc, "enumerate() takes 1 or 2 arguments but %u were given", n);
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
        if (!is_scalar(&st) || !is_int_type(st.type)) {
          lw_lerr(L, e->call.args.items[1]->loc, "Only integers supported as start value in enumerate, not %s", lw_vname(L, &st));
          return false;
        }
        at(L, e->loc);
        out->start = lw_conv(L, st, i64);
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
      lw_lerr(L, e->loc, "zip() of tuples and of arrays or ranges together is not supported by kfront");
      return false;
    }
    if (all_static) return true;
    at(L, e->loc);
    out->len = n ? out->kids[0].len : ib_const_int(&L->b, i64, 0);
    for (unsigned i = 1; i < n; i++) out->len = ib_binary(&L->b, OP_MINSI, out->len, out->kids[i].len);
    return true;
  }
  FeVal v = e->kind == EX_CALL ? lw_unwrap(L, lw_call_of(L, e, callee), e->loc) : lower_expr(L, e);
  if (v.kind == FV_POISON) return false;
  if (v.kind == FV_TUPLE) {
    out->kind = IT_TUPLE;
    out->value = v;
    return true;
  }
  if (!is_array(&v) && v.kind != FV_VIEW) {
    lw_lerr(L, e->loc, "kfront can iterate over range(), arrays, tuples, zip() and enumerate(), not %s", lw_vname(L, &v));
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
      if (!it->start.is_const) pair[0] = val(ty_i64(L->ctx), ib_binary(&L->b, OP_ADDI, lw_mat(L, &it->start),
                                                                        ib_const_int(&L->b, ty_i64(L->ctx), i)));
      items[i] = lw_make_tuple(L, 2, pair);
    }
    return lw_make_tuple(L, kid.tup.n, items);
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
    items[i] = lw_make_tuple(L, it->nkids, t);
  }
  return lw_make_tuple(L, n, items);
}

/* The item of iteration k (i64, 0 <= k < it->len) of a runtime iterable. */
static FeVal iter_item(Lower *L, const Iter *it, Value *k, SrcLoc loc) {
  Type *i64 = ty_i64(L->ctx);
  switch (it->kind) {
  case IT_RANGE: {
    Value *x = ib_binary(&L->b, OP_ADDI, conv_v(L, it->start, i64), ib_binary(&L->b, OP_MULI, k, conv_v(L, it->step, i64)));
    FeVal r = lw_conv(L, val(i64, x), it->ivt);
    r.nonneg = it->ivt->is_unsigned || (it->start.nonneg && (it->step.nonneg || (it->step.is_const && it->step.c.i > 0)));
    return r;
  }
  case IT_ARRAY: {
    FeVal ix = val(i64, k);
    ix.nonneg = true;
    Value *base, *idx[32];
    FeVal v = lw_index_array(L, &it->value, &ix, 1, loc, false, &base, idx);
    return v.kind == FV_VAL ? lw_load_element(L, base, idx) : v;
  }
  case IT_ENUMERATE: {
    FeVal pair[2] = {val(i64, ib_binary(&L->b, OP_ADDI, conv_v(L, it->start, i64), k)), iter_item(L, it->kids, k, loc)};
    pair[0].nonneg = it->start.nonneg;
    return lw_make_tuple(L, 2, pair);
  }
  case IT_ZIP: {
    FeVal *items = ARENA_ARRAY(&L->fe->arena, FeVal, it->nkids ? it->nkids : 1);
    for (unsigned i = 0; i < it->nkids; i++) items[i] = iter_item(L, &it->kids[i], k, loc);
    return lw_make_tuple(L, it->nkids, items);
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
    v = lw_index_array(L, &ls->iter_array, &ix, 1, ls->s->for_.iter->loc, false, &base, idx);
    if (v.kind == FV_VAL) v = lw_load_element(L, base, idx);
  } else {
    at(L, ls->s->loc);
    Type *i64 = ty_i64(L->ctx);
    if (ls->ubias) iv = ib_binary(&L->b, OP_XORI, iv, ls->ubias);
    if (ls->ustart)
      iv = ib_binary(&L->b, OP_ADDI, ls->ustart,
                     ib_binary(&L->b, OP_MULI, ib_binary(&L->b, OP_XORI, iv, ib_const_int(&L->b, i64, INT64_MIN)), ls->ustep));
    v = lw_conv(L, val(i64, iv), ls->ivt);
    v.nonneg = ls->iv_nonneg;
  }
  lw_assign(L, ls->target, v, ls->s->loc);
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
  FeVal *env0 = lw_env_copy(L);
  FeVal outer_brk = env0[L->v_brk], outer_cont = env0[L->v_cont];
  unsigned ivvar = 0;
  if (ls->kind == LOOP_WHILE_RANGE) {
    if (L->niv == MAX_HIDDEN_IV) {
      lw_lerr(L, s->loc, "loops with break nested more than %d deep are not supported", MAX_HIDDEN_IV);
      return;
    }
    ivvar = L->v_iv0 + L->niv++;
    env0[ivvar] = val(i64, ls->lb);
    /* the hidden iv holds the next item, or ub once there is none (its test then fails) */
    ls->range = ib_range_init(&L->b, ls->ub, ls->step, ls->stepv.nonneg ? 1 : 0);
  }
  if (wform) env0[L->v_brk] = cbool(L, false);
  /* which variables go around the loop */
  bool *assigned = lw_bools(L, NULL), *ue = lw_bools(L, NULL), *def = lw_bools(L, NULL);
  if (ls->target) lw_assigned_target(L, ls->target, assigned);
  lw_assigned_in(L, ls->body, assigned);
  if (ls->test) lw_ue_expr(L, ls->test, def, ue);
  if (ls->target) lw_ue_target(L, ls->target, def, ue);
  lw_ue_stmts(L, ls->body, def, ue);
  unsigned here = L->frame->k;
  /* what the body frame sees after its end: the next iteration, and the else clause */
  bool *loop_ue = lw_bools(L, ue);
  if (ls->orelse) lw_ue_stmts(L, ls->orelse, lw_bools(L, NULL), loop_ue);
  /* a variable goes around the loop when the next iteration, the else clause or what follows the loop reads it */
  bool *carry = ARENA_ARRAY(&L->fe->arena, bool, nv);
  for (unsigned i = 0; i < nl; i++) {
    carry[i] = assigned[i] && (loop_ue[i] || lw_var_live(L, i, here + 1));
    carry[bound_slot(L, i)] = carry[i] && !is_true(&env0[bound_slot(L, i)]);
  }
  if (wform) {
    carry[L->v_brk] = ls->has_break;
    carry[L->v_ret] = ls->has_ret;
    carry[L->v_rv] = ls->has_ret && !L->kernel;
    if (ls->kind == LOOP_WHILE_RANGE) carry[ivvar] = true;
  }
  Type **T = ARENA_ARRAY(&L->fe->arena, Type *, nv);
  bool *NN = ARENA_ARRAY(&L->fe->arena, bool, nv); /* integers assumed >= 0 at the loop head (verified) */
  const FeEnum **E = ARENA_ARRAY(&L->fe->arena, const FeEnum *, nv); /* enum members at the head (as T) */
  bool *RO = ARENA_ARRAY(&L->fe->arena, bool, nv); /* readonly arrays at the head: before the loop or after its body */
  for (unsigned i = 0; i < nv; i++) {
    T[i] = carry[i] && env0[i].kind != FV_UNDEF ? lw_fv_type(L, &env0[i]) : NULL;
    NN[i] = carry[i] && env0[i].kind == FV_VAL && env0[i].nonneg && T[i] && T[i]->kind == TY_INT;
    E[i] = env0[i].kind == FV_VAL ? env0[i].enumc : NULL;
    RO[i] = carry[i] && lw_fv_readonly(L, &env0[i]);
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
      if (!lw_flatten_to(L, &env0[i], T[i], inits, &ninit, NULL, s->loc, lw_var_name(L, i))) {
        L->quiet = base_quiet;
        L->b = saved;
        if (ls->kind == LOOP_WHILE_RANGE) L->niv--;
        return;
      }
      (void)before;
      lw_flat_types(L->ctx, T[i], rt, &nrt);
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
          L->env[i] = lw_unflatten(L, T[i], before->args, &pos);
          L->env[i].nonneg = NN[i];
          if (L->env[i].kind == FV_VAL) L->env[i].enumc = E[i];
          if (RO[i] && L->env[i].kind == FV_VAL) lw_add_readonly_array(L, L->env[i].v);
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
        go = lw_lazy_and(L, go, while_test, &a, false, ls->test->loc);
      }
      at(L, s->loc);
      Value **cops = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT + 1);
      cops[0] = go.kind == FV_VAL ? lw_mat(L, &go) : ib_const_bool(&L->b, false);
      for (unsigned i = 0; i < nrt; i++) cops[1 + i] = before->args[i];
      ib_op(&L->b, OP_CONDITION, 1 + nrt, cops, 0, NULL, 0);
    }
    /* the body */
    ib_set_end(&L->b, body);
    env_set(L, env0);
    unsigned pos = 0;
    for (unsigned i = 0; i < nv; i++)
      if (carry[i] && T[i]) {
        L->env[i] = lw_unflatten(L, T[i], body->args + first_arg, &pos);
        L->env[i].nonneg = NN[i];
        if (L->env[i].kind == FV_VAL) L->env[i].enumc = E[i];
        if (RO[i] && L->env[i].kind == FV_VAL) lw_add_readonly_array(L, L->env[i].v);
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
    env_end = lw_env_copy(L);
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
      if (!RO[i] && lw_fv_readonly(L, x)) { /* a readonly array at the end of the body: readonly at the head too */
        RO[i] = true;
        changed = true;
      }
      {
        /* None at the head and a value at the end of the body, or the other way round: Optional around the loop */
        FeVal head = T[i] ? (FeVal){.kind = ty_is_optional(T[i]) ? FV_OPTIONAL : FV_VAL, .type = T[i]} : S[i];
        Type *ot;
        if ((head.kind == FV_NONE || head.kind == FV_OPTIONAL || x->kind == FV_NONE || x->kind == FV_OPTIONAL) &&
            lw_optional_merge(L, &head, x, s->loc, lw_var_name(L, i), &ot)) {
          if (!ot) {
            if (!L->quiet) S[i] = poison();
            continue;
          }
          if (ot != T[i]) {
            Tn[i] = ot;
            S[i] = (FeVal){.kind = FV_UNDEF};
            changed = true;
          }
          continue;
        }
      }
      if (is_static(x) || S[i].kind != FV_UNDEF) {
        FeVal head = T[i] ? (FeVal){.kind = FV_VAL, .type = T[i]} : S[i], m;
        if (lw_merge_static(L, &head, x, s->loc, lw_var_name(L, i), &m) < 0) {
          if (!L->quiet) S[i] = poison(); /* reported (a quiet attempt is made again aloud) */
        } else if (S[i].kind == FV_UNDEF) {
          S[i] = m;
          changed = true;
        }
        continue;
      }
      Type *xt = lw_fv_type(L, x);
      if (!xt) {
        lw_lerr(L, s->loc, "'%s' cannot be carried around a loop: it holds %s", lw_var_name(L, i), lw_vname(L, x));
        carry[i] = false;
        continue;
      }
      const FeEnum *xe = x->kind == FV_VAL ? x->enumc : NULL;
      if (xe != E[i]) { /* enum members around the loop: one class, or (IntEnum) integers */
        FeVal head = T[i] ? (FeVal){.kind = FV_VAL, .type = T[i], .enumc = E[i]} : (FeVal){.kind = FV_UNDEF};
        const FeEnum *m;
        if (!lw_merge_enum(L, &head, x, s->loc, lw_var_name(L, i), &m)) continue;
        if (m != E[i]) {
          E[i] = m;
          changed = true;
        }
      }
      Type *nt = T[i] ? nb_unify(L->ctx, T[i], xt) : xt;
      if (!nt) {
        lw_lerr(L, s->loc, "cannot unify %s and %s for '%s' around this loop", tname(L, T[i]), tname(L, xt), lw_var_name(L, i));
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
    if (!lw_flatten_to(L, &env_end[i], T[i], yv, &ny, fallback + before, s->loc, lw_var_name(L, i))) {
      ny = before;
      Type **ft = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
      unsigned nt = 0;
      lw_flat_types(L->ctx, T[i], ft, &nt);
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
      L->env[i] = lw_unflatten(L, T[i], res, &pos);
      L->env[i].nonneg = NN[i];
      if (L->env[i].kind == FV_VAL) L->env[i].enumc = E[i];
      if (RO[i] && L->env[i].kind == FV_VAL) lw_add_readonly_array(L, L->env[i].v);
      lw_note_type(L, i, &L->env[i]);
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
  /* `while True:` (or 1) with no break is left only by a return: what follows it never runs on a path that did not
   * return (a device function returning from it returns its values, not an Optional: no implicit None) */
  if (ls->kind == LOOP_WHILE && ls->has_ret && !ls->has_break &&
      ((ls->test->kind == EX_BOOL && ls->test->bval) || (ls->test->kind == EX_INT && ls->test->intlit.value != 0)))
    L->env[L->v_ret] = cbool(L, true);
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
      lw_emit_if(L, skip.v, 0, here + 1, s->loc, NULL, NULL, seq_fn, &q);
    }
    return;
  }
  L->env[L->v_brk] = outer_brk;
  L->env[L->v_cont] = outer_cont;
}

/* range(...)'s type (Numba's) and bounds, converted to it. False after a located error. */
static bool range_bounds(Lower *L, const PyExpr *call, Type **ivt, FeVal *start, FeVal *stop, FeVal *step) {
  FeVal a[3];
  if (!lw_positional(L, call, "range", 1, 3, a)) return false;
  unsigned n = call->call.args.n;
  for (unsigned i = 0; i < n; i++)
    if (!is_scalar(&a[i]) || a[i].type->kind == TY_FLOAT) {
      lw_lerr(L, arg_loc(call, i), "range() arguments must be integers, not %s", lw_vname(L, &a[i]));
      return false;
    }
  const NbCase *c = lw_resolve_fn(L, BI_RANGE, a, n, "range", call->loc);
  if (!c) return false;
  *ivt = nb_type(L->ctx, c->ret);
  at(L, call->loc);
  *start = n == 1 ? cint(*ivt, 0) : lw_conv(L, a[0], *ivt);
  *stop = lw_conv(L, a[n == 1 ? 0 : 1], *ivt);
  *step = n == 3 ? lw_conv(L, a[2], *ivt) : cint(*ivt, 1);
  if (step->is_const && step->c.i == 0) {
    lw_lerr(L, arg_loc(call, 2), "range() arg 3 must not be zero");
    return false;
  }
  return true;
}

/* A loop over a tuple's items: unrolled. */
static void unroll_tuple(Lower *L, const PyStmt *s, const LoopSpec *ls, FeVal seq) {
  if (ls->has_break || ls->has_ret || sema_exits((const PyStmt *const *)s->for_.body.items, s->for_.body.n) != EXIT_NEVER) {
    lw_lerr(L, s->loc, "break, continue and return in a loop over a tuple are not supported by kfront");
    return;
  }
  for (unsigned i = 0; i < seq.tup.n; i++) {
    lw_assign(L, s->for_.target, seq.tup.elems[i], s->loc);
    lower_stmts(L, s->for_.body.items, s->for_.body.n);
  }
  lower_stmts(L, s->for_.orelse.items, s->for_.orelse.n);
}

void lower_for(Lower *L, const PyStmt *s) {
  const PyExpr *it = s->for_.iter;
  LoopSpec ls = {.s = s, .target = s->for_.target, .body = &s->for_.body, .orelse = &s->for_.orelse};
  ls.iter_array = poison();
  ls.has_break = sema_contains_break(&s->for_.body);
  ls.has_ret = sema_contains_return(&s->for_.body);
  ls.kind = ls.has_break || ls.has_ret ? LOOP_WHILE_RANGE : LOOP_FOR;
  if (s->for_.is_async) {
    lw_lerr(L, s->loc, "async for is not supported in kernels");
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
    FeVal seq = it->kind == EX_CALL ? lw_unwrap(L, lw_call_of(L, it, callee), it->loc) : lower_expr(L, it);
    if (seq.kind == FV_POISON) return;
    if (seq.kind == FV_TUPLE) {
      unroll_tuple(L, s, &ls, seq);
      return;
    }
    if (!is_array(&seq) && seq.kind != FV_VIEW) {
      lw_lerr(L, it->loc, "kfront can iterate over range(), arrays, tuples, zip() and enumerate(), not %s", lw_vname(L, &seq));
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
    view_value_check(&L->b, ib_cmpi(&L->b, IR_CMPI_NE, conv_v(L, step, i64), ib_const_int(&L->b, i64, 0)),
                     "range() arg 3 must not be zero");
  }
  ls.lb = conv_v(L, start, i64);
  ls.ub = conv_v(L, stop, i64);
  ls.stepv = lw_conv(L, step, i64);
  ls.step = lw_mat(L, &ls.stepv);
  lower_loop(L, &ls);
}

void lower_while(Lower *L, const PyStmt *s) {
  LoopSpec ls = {.s = s, .kind = LOOP_WHILE, .body = &s->while_.body, .orelse = &s->while_.orelse, .test = s->while_.test};
  ls.iter_array = poison();
  ls.has_break = sema_contains_break(&s->while_.body);
  ls.has_ret = sema_contains_return(&s->while_.body);
  lower_loop(L, &ls);
}
