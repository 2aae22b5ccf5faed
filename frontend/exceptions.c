/* exceptions.c — the exceptions a kernel may raise: Python's builtin exception classes by name, classes of a
 * source that derive from them (`class MyError(ValueError): pass`), and classes the embedder binds
 * (KF_VALUE_EXCEPTION); and the text a raised exception is recorded as in the kernel's error record
 * ("ValueError" or "ValueError: message", abi.h), from constant arguments as str() would write them. How a
 * raise or an assert lowers (check.raise, debug=True) is lower_raise.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"

/* Python's builtin exception classes (those of the builtins module that derive from BaseException). */
static const char *const builtin_exceptions[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BufferError", "EOFError",
    "Exception", "FloatingPointError", "ImportError", "IndexError", "KeyError", "LookupError", "MemoryError",
    "NameError", "NotImplementedError", "OSError", "OverflowError", "RecursionError", "ReferenceError",
    "RuntimeError", "StopIteration", "SystemError", "TypeError", "UnboundLocalError", "UnicodeError",
    "ValueError", "ZeroDivisionError", "KeyboardInterrupt", "SystemExit",
    "ModuleNotFoundError", "TimeoutError", "PermissionError", "FileNotFoundError", "IOError", "EnvironmentError"};

bool fe_builtin_exception(const char *name) {
  for (unsigned i = 0; i < sizeof builtin_exceptions / sizeof *builtin_exceptions; i++)
    if (strcmp(name, builtin_exceptions[i]) == 0) return true;
  return false;
}

const char *fe_exception_name(const FeVal *v) {
  if (v->kind == FV_EXCEPTION) return v->str.s;
  if (v->kind == FV_PATH && strncmp(v->str.s, "builtins.", 9) == 0 && fe_builtin_exception(v->str.s + 9))
    return v->str.s + 9;
  return NULL;
}

FeVal fe_exception_class(FeCtx *fe, const PyStmt *cls) {
  for (unsigned i = 0; i < cls->classdef.bases.n; i++) {
    const PyExpr *b = cls->classdef.bases.items[i];
    FeVal v = fe_eval_const(fe, b);
    bool is_exc = fe_exception_name(&v) != NULL;
    if (!is_exc && b->kind == EX_NAME && !fe_lookup(fe, fe->cur, b->name)) is_exc = fe_builtin_exception(b->name);
    if (is_exc) {
      FeVal e = {.kind = FV_EXCEPTION};
      e.str.s = cls->classdef.name;
      e.str.len = strlen(e.str.s);
      return e;
    }
  }
  return (FeVal){.kind = FV_HOST};
}

/* repr() of a float as Python writes it: the shortest digits that read back as the same double, positional
 * when the exponent is in [-4, 16), else d.ddde+XX. */
static void float_repr(double f, StrBuf *out) {
  if (isnan(f)) {
    sb_puts(out, "nan");
    return;
  }
  if (isinf(f)) {
    sb_puts(out, f < 0 ? "-inf" : "inf");
    return;
  }
  char buf[48];
  int prec = 1;
  for (; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, f);
    if (strtod(buf, NULL) == f) break;
  }
  char digits[24];
  unsigned nd = 0;
  const char *p = buf;
  if (*p == '-') {
    sb_putc(out, '-');
    p++;
  }
  for (; *p && *p != 'e'; p++)
    if (*p != '.' && nd < sizeof digits - 1) digits[nd++] = *p;
  int exp = *p == 'e' ? atoi(p + 1) : 0;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  if (f == 0) exp = 0;
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      sb_puts(out, "0.");
      for (int i = -1; i > exp; i--) sb_putc(out, '0');
      sb_putn(out, digits, nd);
    } else {
      for (int i = 0; i <= exp; i++) sb_putc(out, (unsigned)i < nd ? digits[i] : '0');
      sb_putc(out, '.');
      if ((unsigned)exp + 1 < nd) sb_putn(out, digits + exp + 1, nd - (unsigned)exp - 1);
      else sb_putc(out, '0');
    }
  } else {
    sb_putc(out, digits[0]);
    if (nd > 1) {
      sb_putc(out, '.');
      sb_putn(out, digits + 1, nd - 1);
    }
    sb_printf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  }
}

/* str() (repr when in a tuple) of a constant; false if it is not one kfront records. */
static bool put_arg(const FeVal *a, bool in_tuple, StrBuf *out) {
  if (a->kind == FV_STR) {
    if (!in_tuple) {
      sb_putn(out, a->str.s, a->str.len);
      return true;
    }
    bool dq = memchr(a->str.s, '\'', a->str.len) && !memchr(a->str.s, '"', a->str.len);
    sb_putc(out, dq ? '"' : '\'');
    for (size_t i = 0; i < a->str.len; i++) {
      char c = a->str.s[i];
      if (c == '\\' || (!dq && c == '\'')) sb_putc(out, '\\');
      if (c == '\n') sb_puts(out, "\\n");
      else sb_putc(out, c);
    }
    sb_putc(out, dq ? '"' : '\'');
    return true;
  }
  if (a->kind == FV_NONE) {
    sb_puts(out, "None");
    return true;
  }
  if (a->kind != FV_VAL || !a->is_const || a->enumc) return false;
  if (a->type->kind == TY_BOOL) sb_puts(out, a->c.i ? "True" : "False");
  else if (a->type->kind == TY_FLOAT) float_repr(a->c.f, out);
  else if (a->type->is_unsigned) sb_printf(out, "%llu", (unsigned long long)(uint64_t)a->c.i);
  else sb_printf(out, "%lld", (long long)a->c.i);
  return true;
}

bool fe_exception_text(FeCtx *fe, const char *cls, const FeVal *args, unsigned nargs, const char **out,
                       const char **why) {
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, cls);
  bool ok = true;
  if (nargs) {
    sb_puts(&b, ": ");
    if (nargs > 1) sb_putc(&b, '(');
    for (unsigned i = 0; i < nargs && ok; i++) {
      if (i) sb_puts(&b, ", ");
      ok = put_arg(&args[i], nargs > 1, &b);
    }
    if (nargs > 1) sb_putc(&b, ')');
  }
  if (ok && memchr(b.data, 0, b.len)) ok = false; /* the record's table holds NUL-terminated texts */
  if (ok) *out = arena_strdup(&fe->arena, sb_cstr(&b));
  else *why = "the arguments of a raised exception must be constants (strings, numbers, booleans or None)";
  sb_free(&b);
  return ok;
}
