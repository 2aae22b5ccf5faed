/* lower_raise.c — raise and assert, as numba-cuda has them: with debug=True the thread records the exception
 * (check.raise: class and message, from constant arguments) and the host raises it after the launch; without, a
 * raise ends the thread. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

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
      lw_lerr(L, e->loc, "raising the exception in a variable ('%s') is not supported: raise a class or an instance "
                      "made in the raise statement", e->name);
      return NULL;
    }
    FeVal *g = L->fn->scope ? strmap_get(L->fn->scope, e->name) : fe_lookup(L->fe, L->fn->src, e->name);
    if (!g) {
      if (fe_builtin_exception(e->name)) return e->name;
      lw_lerr(L, e->loc, "name '%s' is not defined", e->name);
      return NULL;
    }
    const char *n = fe_exception_name(g);
    if (!n) lw_lerr(L, e->loc, "'%s' is %s, not an exception class kfront can raise", e->name, lw_vname(L, g));
    return n;
  }
  FeVal v = lower_expr(L, e);
  if (v.kind == FV_POISON) return NULL;
  const char *n = fe_exception_name(&v);
  if (!n) lw_lerr(L, e->loc, "%s is not an exception class kfront can raise", lw_vname(L, &v));
  return n;
}

/* check.raise of text, when cond (i1; NULL: always). */
void lw_emit_raise(Lower *L, Value *cond, const char *text, SrcLoc loc) {
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
const char *lw_exception_text(Lower *L, const char *cls, const PyExpr *e, SrcLoc loc) {
  unsigned n = e ? e->call.args.n : 0;
  if (e && e->call.nkeywords) {
    lw_lerr(L, e->call.keywords[0]->loc, "keyword arguments of a raised exception are not supported");
    return NULL;
  }
  FeVal *args = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    const PyExpr *a = e->call.args.items[i];
    if (a->kind == EX_STARRED) {
      lw_lerr(L, a->loc, "*args in a raised exception are not supported");
      return NULL;
    }
    args[i] = lower_expr(L, a);
    if (args[i].kind == FV_POISON) return NULL;
    if (!constant_exc_arg(&args[i])) {
      lw_lerr(L, a->loc, "the arguments of a raised exception must be compile-time constants: this one is %s, known only "
                      "at run time (numba-cuda cannot raise exceptions with dynamic arguments on CUDA)",
              lw_vname(L, &args[i]));
      return NULL;
    }
  }
  const char *text, *why;
  if (!fe_exception_text(L->fe, cls, args, n, &text, &why)) {
    lw_lerr(L, n ? e->call.args.items[0]->loc : loc, "%s (not supported by kfront)", why);
    return NULL;
  }
  return text;
}

/* raise Cls, raise Cls(args), raise e (a variable holding an instance made with constant arguments, or a class, as
 * Numba infers the constant it was assigned). */
void lower_raise(Lower *L, const PyStmt *s) {
  const PyExpr *e = s->raise.exc;
  if (!e) {
    lw_emit_raise(L, NULL, "RuntimeError: No active exception to reraise", s->loc);
    L->env[L->v_ret] = cbool(L, true);
    return;
  }
  if (s->raise.cause) {
    lw_lerr(L, s->raise.cause->loc, "raise ... from ...: multiple argument raise is not supported (Numba refuses it; "
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
      if (!(text = lw_exception_text(L, v.str.s, NULL, e->loc))) return;
    } else {
      lw_lerr(L, e->loc, "'%s' is %s, not an exception kfront can raise", e->name, lw_vname(L, &v));
      return;
    }
  } else {
    const char *cls = exception_class(L, e->kind == EX_CALL ? e->call.func : e);
    if (!cls || !(text = lw_exception_text(L, cls, e->kind == EX_CALL ? e : NULL, e->loc))) return;
  }
  lw_emit_raise(L, NULL, text, s->loc);
  L->env[L->v_ret] = cbool(L, true); /* the thread leaves the function here */
}

void lower_assert(Lower *L, const PyStmt *s) {
  if (!debug_mode(L->fe)) return; /* numba-cuda compiles assertions only with debug=True */
  const char *text = "AssertionError", *why;
  if (s->assert_.msg) {
    FeVal m = lower_expr(L, s->assert_.msg);
    if (m.kind == FV_POISON) return;
    if (!fe_exception_text(L->fe, "AssertionError", &m, 1, &text, &why)) {
      lw_lerr(L, s->assert_.msg->loc, "the message of an assert must be a constant (not supported by kfront)");
      return;
    }
  }
  FeVal c = lower_cond(L, s->assert_.test);
  if (c.kind == FV_POISON || is_true(&c)) return;
  at(L, s->loc);
  if (c.is_const) {
    lw_emit_raise(L, NULL, text, s->loc);
    L->env[L->v_ret] = cbool(L, true);
    return;
  }
  lw_emit_raise(L, ib_binary(&L->b, OP_XORI, c.v, ib_const_bool(&L->b, true)), text, s->loc);
}
