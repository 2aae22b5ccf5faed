"""kgen — a seeded random generator of Numba-CUDA kernels for differential testing (test/difftest/README.md).

A program is a small tree (the classes below): device functions and one kernel `kernel`, its launch shape and
its arguments. `generate(seed)` builds one, deterministically per seed; `Program.source()` renders it as Python.

Every program is valid and defined on both sides it runs on: kfront (numba-cuda's typing, compiled) and the
oracle (numba-cuda's simulator, which runs the kernel as Python over NumPy scalars, or plain CPython). Their
typing rules differ (numba-cuda computes `int8 + int8` in int64, NumPy in int8; NumPy keeps a Python int or
float "weak"), so the generator tracks, for every expression, its NumPy type, its numba type and a sound
interval of its value (`Ty`), and emits an operation only where the exact mathematical result fits both types:
then both sides compute the same value whatever the type. Every variable has a declared type and interval that
every assignment to it is fitted into (a cast, a floor modulus or a clamp), so intervals stay sound without a
fixpoint over loops, and stay sound when the minimiser deletes statements. Wrap-around is exercised only where
both sides define it alike: explicit casts of NumPy integers (`np.int8(np.int64(300))` is 44 on both).
"""
import math
import random

import numpy as np

INT_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_TYPES = ("float32", "float64")
WEAK_INT = "pyint"      # a Python int in the oracle (NumPy's weak scalar), int64 in numba
WEAK_FLOAT = "pyfloat"  # a Python float in the oracle, float64 in numba
BOOL = "bool"


def int_range(t):
    if t == WEAK_INT:
        return (-(1 << 63), (1 << 63) - 1)
    info = np.iinfo(t)
    return (int(info.min), int(info.max))


def is_int(t):
    return t in INT_TYPES or t == WEAK_INT


def is_float(t):
    return t in FLOAT_TYPES or t == WEAK_FLOAT


def is_unsigned(t):
    return t.startswith("uint")


class Invalid(Exception):
    """An operation whose result is not defined alike on both sides (the generator tries something else)."""


class Ty:
    """What the generator knows of an expression: NumPy type (np), numba type (nb), value interval [lo, hi]."""
    __slots__ = ("np", "nb", "lo", "hi")

    def __init__(self, np_t, nb_t, lo, hi):
        self.np, self.nb, self.lo, self.hi = np_t, nb_t, lo, hi

    def __repr__(self):
        return "Ty(%s,%s,[%r,%r])" % (self.np, self.nb, self.lo, self.hi)


def fits(lo, hi, t):
    rlo, rhi = int_range(t)
    return rlo <= lo and hi <= rhi


FLOAT_LIMIT = 1e15      # no float value beyond this magnitude: no overflow to inf, hence no NaN either


def float_ty(t, lo, hi):
    """Ty of a float result; the interval widened by a relative margin for rounding."""
    pad = 1e-6 * max(abs(lo), abs(hi)) + 1e-30
    lo, hi = lo - pad, hi + pad
    if max(abs(lo), abs(hi)) > FLOAT_LIMIT:
        raise Invalid("float magnitude")
    nb = "float64" if t == WEAK_FLOAT else t
    return Ty(t, nb, lo, hi)


# ---- expressions ------------------------------------------------------------------------------------------


class Expr:
    ty = None

    def children(self):
        return ()


class Lit(Expr):
    def __init__(self, value, t):
        self.value, self.t = value, t
        if is_int(t):
            nb = "int64" if t == WEAK_INT else t
            if not fits(value, value, nb):
                raise Invalid("literal out of range")
            self.ty = Ty(t, nb, value, value)
        elif t == BOOL:
            self.ty = Ty(BOOL, BOOL, int(value), int(value))
        else:
            self.ty = float_ty(t, value, value)

    def render(self):
        if self.t == BOOL:
            return repr(bool(self.value))
        if self.t == WEAK_INT:
            return "(%d)" % self.value if self.value < 0 else "%d" % self.value
        if self.t == WEAK_FLOAT:
            return "(%r)" % self.value if self.value < 0 else repr(self.value)
        return "np.%s(%r)" % (self.t, self.value)


class Name(Expr):
    """A variable, argument or loop index: its Ty is the declared one."""

    def __init__(self, name, ty):
        self.name, self.ty = name, ty

    def render(self):
        return self.name


class Raw(Expr):
    """A fixed piece of source with a known Ty: cuda.grid(1), cuda.threadIdx.x, len(a)."""

    def __init__(self, text, ty):
        self.text, self.ty = text, ty

    def render(self):
        return self.text


class Load(Expr):
    def __init__(self, arr, index, ty):
        self.arr, self.index, self.ty = arr, index, ty

    def children(self):
        return (self.index,)

    def render(self):
        return "%s[%s]" % (self.arr, self.index.render())


def weak_ok(weak, other_t):
    """NumPy (NEP 50) converts a Python int operand to the other's type, raising if it does not fit."""
    return fits(weak.lo, weak.hi, other_t)


def mixes_uint64(a, b):
    """numba computes uint64 with a signed integer through float64 (their unification), numba-cuda's simulator with
    Python's exact integers: the two agree only on operands exact in float64"""
    return (a.nb == "uint64") != (b.nb == "uint64") and not (is_unsigned(a.nb) and is_unsigned(b.nb))


def int_result_types(a, b):
    if mixes_uint64(a, b):
        # numba unifies the two to float64: the result is a float (no `|`, no index), which this model does not
        # follow (seed 9003199 of 4f03091: `min(i, tid) | x` with i a uint64 loop variable, refused by numba
        # and kfront alike, run by numba-cuda's simulator with Python's ints)
        raise Invalid("uint64 with a signed integer is float64 in numba")
    if a.np == WEAK_INT and b.np == WEAK_INT:
        np_t = WEAK_INT
    elif a.np == WEAK_INT:
        if not weak_ok(a, b.np):
            raise Invalid("weak int out of range")
        np_t = b.np
    elif b.np == WEAK_INT:
        if not weak_ok(b, a.np):
            raise Invalid("weak int out of range")
        np_t = a.np
    else:
        np_t = np.result_type(a.np, b.np).name
        if np_t not in INT_TYPES:
            raise Invalid("mixed signedness goes to float in NumPy")
    signed = not (is_unsigned(a.nb) and is_unsigned(b.nb))
    if not signed and np_t == WEAK_INT:
        raise Invalid("weak")
    nb_t = "int64" if signed else "uint64"
    return np_t, nb_t


def checked_int(np_t, nb_t, lo, hi):
    if not (fits(lo, hi, np_t) and fits(lo, hi, nb_t)):
        raise Invalid("int result out of range")
    return Ty(np_t, nb_t, lo, hi)


def bit_cover(lo, hi):
    """the least k with [lo, hi] inside [-2^k, 2^k - 1]"""
    k = 0
    while not (-(1 << k) <= lo and hi <= (1 << k) - 1):
        k += 1
    return k


def float_result_type(a, b):
    ta, tb = a.np, b.np
    if ta == tb:
        return ta
    if {ta, tb} == {WEAK_FLOAT, "float64"}:
        return "float64"
    raise Invalid("float types differ (NumPy and numba round differently)")


class Bin(Expr):
    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b
        self.ty = self.infer()

    def children(self):
        return (self.a, self.b)

    def infer(self):
        a, b, op = self.a.ty, self.b.ty, self.op
        if is_int(a.np) and is_int(b.np):
            np_t, nb_t = int_result_types(a, b)
            if op == "+":
                return checked_int(np_t, nb_t, a.lo + b.lo, a.hi + b.hi)
            if op == "-":
                return checked_int(np_t, nb_t, a.lo - b.hi, a.hi - b.lo)
            if op == "*":
                ps = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
                return checked_int(np_t, nb_t, min(ps), max(ps))
            if op in ("//", "%"):
                if b.lo <= 0 <= b.hi:
                    raise Invalid("divisor may be zero")
                if op == "//":
                    qs = [a.lo // b.lo, a.lo // b.hi, a.hi // b.lo, a.hi // b.hi]
                    # the quotient is monotone in a for fixed b and in b for fixed sign: extremes are at corners
                    return checked_int(np_t, nb_t, min(qs), max(qs))
                if b.lo > 0:
                    lo, hi = 0, b.hi - 1
                    if a.lo >= 0:
                        hi = min(hi, a.hi)
                else:
                    lo, hi = b.lo + 1, 0
                return checked_int(np_t, nb_t, lo, hi)
            if op == "/":
                if b.lo <= 0 <= b.hi:
                    raise Invalid("divisor may be zero")
                lim = 1 << 53
                if max(abs(a.lo), abs(a.hi), abs(b.lo), abs(b.hi)) > lim:
                    raise Invalid("int to float not exact")
                qs = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
                return float_ty(WEAK_FLOAT if np_t == WEAK_INT else "float64", min(qs), max(qs))
            if op in ("<<", ">>"):
                if b.lo < 0 or b.hi > 7:
                    raise Invalid("shift count")
                # numba types a shift by its left operand alone: uint64 if that is unsigned, else int64
                nb_t = "uint64" if is_unsigned(a.nb) else "int64"
                if op == "<<":
                    return checked_int(np_t, nb_t, min(a.lo, a.lo << b.hi), max(a.hi, a.hi << b.hi))
                return checked_int(np_t, nb_t, min(a.lo, a.lo >> b.hi), max(a.hi, a.hi >> b.hi))
            if op in ("&", "|", "^"):
                if a.lo >= 0 and b.lo >= 0:
                    top = (1 << max(a.hi, b.hi).bit_length()) - 1
                    if op == "&":
                        return checked_int(np_t, nb_t, 0, min(a.hi, b.hi))
                    return checked_int(np_t, nb_t, 0, top)
                k = max(bit_cover(a.lo, a.hi), bit_cover(b.lo, b.hi))
                return checked_int(np_t, nb_t, -(1 << k), (1 << k) - 1)
            raise Invalid(op)
        if is_float(a.np) and is_float(b.np):
            t = float_result_type(a, b)
            if op == "+":
                return float_ty(t, a.lo + b.lo, a.hi + b.hi)
            if op == "-":
                return float_ty(t, a.lo - b.hi, a.hi - b.lo)
            if op == "*":
                ps = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
                return float_ty(t, min(ps), max(ps))
            if op == "/":
                if b.lo < 1.0 and b.hi > -1.0:
                    raise Invalid("float divisor near zero")
                qs = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
                return float_ty(t, min(qs), max(qs))
        raise Invalid("operand kinds")

    def render(self):
        return "(%s %s %s)" % (self.a.render(), self.op, self.b.render())


class Pow(Expr):
    """a ** k for a small literal k >= 0, integers only (float pow is not correctly rounded)"""

    def __init__(self, a, k):
        self.a, self.k = a, k
        t = a.ty
        if not is_int(t.np):
            raise Invalid("float pow")
        ps = [t.lo ** k, t.hi ** k] + ([0] if t.lo <= 0 <= t.hi else [])
        np_t, nb_t = int_result_types(t, Lit(k, WEAK_INT).ty)
        self.ty = checked_int(np_t, nb_t, min(ps), max(ps))

    def children(self):
        return (self.a,)

    def render(self):
        return "(%s ** %d)" % (self.a.render(), self.k)


class Unary(Expr):
    def __init__(self, op, a):
        self.op, self.a = op, a
        t = a.ty
        if op == "not":
            if t.np != BOOL:
                raise Invalid("not of non-bool")
            self.ty = Ty(BOOL, BOOL, 0, 1)
        elif is_int(t.np):
            if is_unsigned(t.np) or is_unsigned(t.nb):
                raise Invalid("negation of unsigned differs (NumPy wraps, numba widens)")
            nb = "int64"
            if op == "-":
                self.ty = checked_int(t.np, nb, -t.hi, -t.lo)
            elif op == "~":
                self.ty = checked_int(t.np, nb, -t.hi - 1, -t.lo - 1)
            else:
                raise Invalid(op)
        elif is_float(t.np) and op == "-":
            self.ty = float_ty(t.np, -t.hi, -t.lo)
        else:
            raise Invalid(op)

    def children(self):
        return (self.a,)

    def render(self):
        if self.op == "not":
            return "(not %s)" % self.a.render()
        return "(%s%s)" % (self.op, self.a.render())


class Call(Expr):
    """abs/min/max and the exact math functions"""

    def __init__(self, fn, args):
        self.fn, self.args = fn, list(args)
        self.ty = self.infer()

    def children(self):
        return tuple(self.args)

    def infer(self):
        ts = [a.ty for a in self.args]
        fn = self.fn
        if fn == "abs":
            t = ts[0]
            if is_int(t.np):
                if is_unsigned(t.np):
                    return Ty(t.np, t.nb, t.lo, t.hi)
                lo = 0 if t.lo <= 0 <= t.hi else min(abs(t.lo), abs(t.hi))
                # numba's abs keeps an unsigned type (a shift of an unsigned value is uint64 in numba)
                nb = "uint64" if is_unsigned(t.nb) else "int64"
                return checked_int(t.np, nb, lo, max(abs(t.lo), abs(t.hi)))
            if is_float(t.np):
                lo = 0.0 if t.lo <= 0 <= t.hi else min(abs(t.lo), abs(t.hi))
                return float_ty(t.np, lo, max(abs(t.lo), abs(t.hi)))
            raise Invalid("abs")
        if fn in ("min", "max"):
            a, b = ts
            # Python's min/max return one of the objects unchanged: the NumPy type must not depend on which
            if a.np != b.np:
                raise Invalid("min/max of different types")
            check_unifiable(a, b)
            pick = min if fn == "min" else max
            lo, hi = pick(a.lo, b.lo), pick(a.hi, b.hi)
            if is_int(a.np):
                _, nb_t = int_result_types(a, b)
                return checked_int(a.np, nb_t, lo, hi)
            if is_float(a.np):
                return float_ty(a.np, lo, hi)
            raise Invalid("min/max")
        if fn in ("math.floor", "math.ceil", "math.trunc"):
            t = ts[0]
            if not is_float(t.np) or max(abs(t.lo), abs(t.hi)) > 2.0 ** 52:
                raise Invalid("floor")
            if fn == "math.trunc" and t.np == "float32":
                raise Invalid("NumPy's float32 has no __trunc__")
            # numba-cuda types these float -> float (typing/cudamath.py), Python float -> int: render them
            # cast to int64, where both sides agree
            return Ty("int64", "int64", math.floor(t.lo), math.ceil(t.hi))
        if fn == "math.sqrt":
            t = ts[0]
            if not is_float(t.np) or t.lo < 0:
                raise Invalid("sqrt")
            return float_ty(WEAK_FLOAT if t.np != "float32" else "float32", math.sqrt(t.lo), math.sqrt(t.hi))
        if fn == "math.fabs":
            t = ts[0]
            if not is_float(t.np):
                raise Invalid("fabs")
            lo = 0.0 if t.lo <= 0 <= t.hi else min(abs(t.lo), abs(t.hi))
            return float_ty(WEAK_FLOAT if t.np != "float32" else "float32", lo, max(abs(t.lo), abs(t.hi)))
        raise Invalid(fn)

    def render(self):
        text = "%s(%s)" % (self.fn, ", ".join(a.render() for a in self.args))
        if self.fn in ("math.floor", "math.ceil", "math.trunc"):
            return "np.int64(%s)" % text
        if self.fn in ("math.sqrt", "math.fabs") and self.ty.np == "float32":
            # the oracle's math returns a Python float: round it back to float32 where numba computes float32
            return "np.float32(%s)" % text
        return text


class Cast(Expr):
    """np.T(e): for integers in range a no-op on both sides; a NumPy integer out of range wraps on both sides
    (a Python int out of range raises in NumPy, so it is never cast unless it fits)"""

    def __init__(self, t, a):
        self.t, self.a = t, a
        s = a.ty
        if t in INT_TYPES:
            if is_int(s.np):
                if fits(s.lo, s.hi, t):
                    self.ty = Ty(t, t, s.lo, s.hi)
                elif s.np == WEAK_INT:
                    raise Invalid("cast of an out-of-range Python int raises in NumPy")
                else:
                    lo, hi = int_range(t)
                    self.ty = Ty(t, t, lo, hi)
            elif is_float(s.np):
                lo, hi = int_range(t)
                if not (lo < s.lo - 1 and s.hi + 1 < hi) or max(abs(s.lo), abs(s.hi)) > 2.0 ** 52:
                    raise Invalid("float to int out of range")
                self.ty = Ty(t, t, math.trunc(s.lo), math.trunc(s.hi))
            elif s.np == BOOL:
                self.ty = Ty(t, t, 0, 1)
            else:
                raise Invalid("cast")
        elif t in FLOAT_TYPES:
            if is_int(s.np):
                if max(abs(s.lo), abs(s.hi)) > (1 << 53):
                    raise Invalid("int to float not exact")
                self.ty = float_ty(t, float(s.lo), float(s.hi))
            elif is_float(s.np):
                self.ty = float_ty(t, s.lo, s.hi)
            else:
                raise Invalid("cast")
        else:
            raise Invalid("cast")

    def children(self):
        return (self.a,)

    def render(self):
        return "np.%s(%s)" % (self.t, self.a.render())


class Cmp(Expr):
    def __init__(self, ops, operands):
        self.ops, self.operands = list(ops), list(operands)
        for a, b in zip(self.operands, self.operands[1:]):
            check_comparable(a.ty, b.ty)
        self.ty = Ty(BOOL, BOOL, 0, 1)

    def children(self):
        return tuple(self.operands)

    def render(self):
        parts = [self.operands[0].render()]
        for op, e in zip(self.ops, self.operands[1:]):
            parts += [op, e.render()]
        return "(%s)" % " ".join(parts)


def check_unifiable(a, b):
    """numba unifies the types of min/max arguments, if-expression arms and a variable's assignments; uint64 with
    a signed integer unifies to float64"""
    if is_int(a.np) and (a.nb == "uint64") != (b.nb == "uint64") and \
            not (is_unsigned(a.nb) and is_unsigned(b.nb)):
        raise Invalid("uint64 and a signed type unify to float64 in numba")


def check_comparable(a, b):
    if is_int(a.np) and is_int(b.np):
        if mixes_uint64(a, b) and max(abs(a.lo), abs(a.hi), abs(b.lo), abs(b.hi)) > (1 << 53):
            raise Invalid("uint64 compared with a signed integer past 2**53")
        if "uint64" in (a.np, b.np, a.nb, b.nb) and a.np != b.np:
            # NumPy compares uint64 with a signed integer through float64; numba through int64
            if min(a.lo, b.lo) < 0 or max(a.hi, b.hi) > (1 << 53):
                raise Invalid("uint64 comparison")
        return
    if is_float(a.np) and is_float(b.np):
        float_result_type(a, b)
        return
    if a.np == BOOL and b.np == BOOL:
        return
    raise Invalid("comparison kinds")


class BoolOp(Expr):
    def __init__(self, op, a, b):
        if a.ty.np != BOOL or b.ty.np != BOOL:
            raise Invalid("and/or of non-bools returns an operand: typed differently")
        self.op, self.a, self.b = op, a, b
        self.ty = Ty(BOOL, BOOL, 0, 1)

    def children(self):
        return (self.a, self.b)

    def render(self):
        return "(%s %s %s)" % (self.a.render(), self.op, self.b.render())


class IfExp(Expr):
    def __init__(self, cond, a, b):
        if cond.ty.np != BOOL or a.ty.np != b.ty.np:
            raise Invalid("ifexp")
        self.cond, self.a, self.b = cond, a, b
        check_unifiable(a.ty, b.ty)
        t = a.ty
        if is_int(t.np):
            _, nb_t = int_result_types(a.ty, b.ty) if a.ty.nb != b.ty.nb else (None, a.ty.nb)
            self.ty = checked_int(t.np, nb_t, min(a.ty.lo, b.ty.lo), max(a.ty.hi, b.ty.hi))
        elif is_float(t.np):
            self.ty = float_ty(t.np, min(a.ty.lo, b.ty.lo), max(a.ty.hi, b.ty.hi))
        else:
            self.ty = Ty(BOOL, BOOL, 0, 1)

    def children(self):
        return (self.cond, self.a, self.b)

    def render(self):
        return "(%s if %s else %s)" % (self.a.render(), self.cond.render(), self.b.render())


class TupleItem(Expr):
    """t[k] of a tuple variable (k a literal, or a checked expression for a tuple of one type)"""

    def __init__(self, name, index, ty):
        self.name, self.index, self.ty = name, index, ty

    def children(self):
        return (self.index,) if isinstance(self.index, Expr) else ()

    def render(self):
        k = self.index.render() if isinstance(self.index, Expr) else "%d" % self.index
        return "%s[%s]" % (self.name, k)


class DevCall(Expr):
    def __init__(self, fn, args, ty):
        self.fn, self.args, self.ty = fn, list(args), ty

    def children(self):
        return tuple(self.args)

    def render(self):
        return "%s(%s)" % (self.fn, ", ".join(a.render() for a in self.args))


# ---- statements ---------------------------------------------------------------------------------------------


class Stmt:
    keep = False       # the minimiser leaves it: a shared array's fill and barriers, a local array's fill

    def blocks(self):
        """the statement lists nested in this statement (for the minimiser)"""
        return ()

    def exprs(self):
        return ()


class Assign(Stmt):
    def __init__(self, targets, value):
        self.targets, self.value = targets, value   # targets: a name or a list of names (unpacking)

    def exprs(self):
        return (self.value,) if isinstance(self.value, Expr) else tuple(self.value)

    def render(self, ind, out):
        lhs = self.targets if isinstance(self.targets, str) else ", ".join(self.targets)
        if isinstance(self.value, Expr):
            rhs = self.value.render()
        elif len(self.value) == 1:
            rhs = "(%s,)" % self.value[0].render()
        else:
            rhs = "(%s)" % ", ".join(e.render() for e in self.value)
        out.append(ind + "%s = %s" % (lhs, rhs))


class AugAssign(Stmt):
    def __init__(self, target, op, value):
        self.target, self.op, self.value = target, op, value

    def exprs(self):
        return (self.value,)

    def render(self, ind, out):
        out.append(ind + "%s %s= %s" % (self.target, self.op, self.value.render()))


class Store(Stmt):
    def __init__(self, arr, index, value):
        self.arr, self.index, self.value = arr, index, value   # index: a rendered text or an Expr

    def exprs(self):
        return (self.value,) + ((self.index,) if isinstance(self.index, Expr) else ())

    def render(self, ind, out):
        idx = self.index.render() if isinstance(self.index, Expr) else self.index
        out.append(ind + "%s[%s] = %s" % (self.arr, idx, self.value.render()))


class Line(Stmt):
    """a fixed line: cuda.syncthreads(), break, continue, return, a local or shared array's declaration"""

    def __init__(self, text, kind):
        self.text, self.kind = text, kind

    def render(self, ind, out):
        out.append(ind + self.text)


class Return(Stmt):
    def __init__(self, value):
        self.value = value     # None, an Expr, or a list of Exprs (a tuple)

    def exprs(self):
        if self.value is None:
            return ()
        return (self.value,) if isinstance(self.value, Expr) else tuple(self.value)

    def render(self, ind, out):
        if self.value is None:
            out.append(ind + "return")
        elif isinstance(self.value, Expr):
            out.append(ind + "return " + self.value.render())
        else:
            out.append(ind + "return (%s)" % ", ".join(e.render() for e in self.value))


class Atomic(Stmt):
    def __init__(self, fn, arr, index, value):
        self.fn, self.arr, self.index, self.value = fn, arr, index, value

    def exprs(self):
        return (self.value,)

    def render(self, ind, out):
        out.append(ind + "cuda.atomic.%s(%s, %s, %s)" % (self.fn, self.arr, self.index, self.value.render()))


class If(Stmt):
    def __init__(self, arms, orelse):
        self.arms, self.orelse = arms, orelse    # arms: [(cond, body)], elif chain after the first

    def blocks(self):
        return [b for _, b in self.arms] + ([self.orelse] if self.orelse is not None else [])

    def exprs(self):
        return tuple(c for c, _ in self.arms)

    def render(self, ind, out):
        for k, (cond, body) in enumerate(self.arms):
            out.append(ind + ("if " if k == 0 else "elif ") + cond.render() + ":")
            render_block(body, ind + "    ", out)
        if self.orelse is not None:
            out.append(ind + "else:")
            render_block(self.orelse, ind + "    ", out)


class For(Stmt):
    def __init__(self, var, bounds, body, orelse):
        self.var, self.bounds, self.body, self.orelse = var, bounds, body, orelse  # bounds: Exprs of range()

    def blocks(self):
        return [self.body] + ([self.orelse] if self.orelse is not None else [])

    def exprs(self):
        return tuple(self.bounds)

    def render(self, ind, out):
        out.append(ind + "for %s in range(%s):" % (self.var, ", ".join(b.render() for b in self.bounds)))
        render_block(self.body, ind + "    ", out)
        if self.orelse is not None:
            out.append(ind + "else:")
            render_block(self.orelse, ind + "    ", out)


class While(Stmt):
    """while counter < limit [and cond]: counter += 1 first, so every iteration (continue too) counts"""

    def __init__(self, counter, limit, cond, body, orelse):
        self.counter, self.limit, self.cond, self.body, self.orelse = counter, limit, cond, body, orelse

    def blocks(self):
        return [self.body] + ([self.orelse] if self.orelse is not None else [])

    def exprs(self):
        return (self.cond,) if self.cond is not None else ()

    def render(self, ind, out):
        cond = "%s < %d" % (self.counter, self.limit)
        if self.cond is not None:
            cond += " and " + self.cond.render()
        out.append(ind + "%s = 0" % self.counter)
        out.append(ind + "while %s:" % cond)
        out.append(ind + "    %s += 1" % self.counter)
        render_block(self.body, ind + "    ", out)
        if self.orelse is not None:
            out.append(ind + "else:")
            render_block(self.orelse, ind + "    ", out)


def render_block(stmts, ind, out):
    if not stmts:
        out.append(ind + "pass")
    for s in stmts:
        s.render(ind, out)


class Function:
    def __init__(self, name, params, body, device):
        self.name, self.params, self.body, self.device = name, params, body, device

    def render(self, out):
        out.append("@cuda.jit(device=True)" if self.device else "@cuda.jit")
        out.append("def %s(%s):" % (self.name, ", ".join(self.params)))
        render_block(self.body, "    ", out)
        out.append("")


class Arg:
    """a kernel argument: an array (dtype, shape, data) or a scalar (type, value)"""

    def __init__(self, name, kind, dtype, value):
        self.name, self.kind, self.dtype, self.value = name, kind, dtype, value

    def to_json(self):
        if self.kind == "array":
            arr = self.value
            return {"kind": "array", "dtype": arr.dtype.name, "shape": list(arr.shape), "hex": arr.tobytes().hex()}
        if self.dtype in FLOAT_TYPES or self.dtype == WEAK_FLOAT:
            return {"kind": "scalar", "type": self.dtype, "value": float(self.value).hex()}
        return {"kind": "scalar", "type": self.dtype, "value": int(self.value)}


class Program:
    def __init__(self, seed, functions, args, grid, block, pure):
        self.seed, self.functions, self.args, self.grid, self.block = seed, functions, args, grid, block
        self.pure = pure   # one thread, no cuda.* call in the kernel: plain CPython can run it too

    def source(self):
        out = ["# difftest program, seed %s: kernel[%d, %d]" % (self.seed, self.grid, self.block)]
        for f in self.functions:
            f.render(out)
        return "\n".join(out) + "\n"

    def to_json(self):
        return {"seed": self.seed, "source": self.source(), "grid": self.grid, "block": self.block,
                "pure": self.pure, "args": [a.to_json() for a in self.args]}


# ---- the generator ------------------------------------------------------------------------------------------


class Var:
    def __init__(self, name, t, lo, hi, mutable=True, items=None):
        self.name, self.t, self.lo, self.hi, self.mutable = name, t, lo, hi, mutable
        self.items = items      # a tuple variable: [(t, lo, hi)] per element

    def ty(self):
        nb = {WEAK_INT: "int64", WEAK_FLOAT: "float64"}.get(self.t, self.t)
        return Ty(self.t, nb, self.lo, self.hi)


class ArrayInfo:
    def __init__(self, name, dtype, length, lo, hi, readable=True, writable=True, negidx=True):
        self.name, self.dtype, self.length, self.lo, self.hi = name, dtype, length, lo, hi
        self.readable, self.writable, self.negidx = readable, writable, negidx


class Scope:
    def __init__(self):
        self.frames = [[]]

    def push(self):
        self.frames.append([])

    def pop(self):
        self.frames.pop()

    def add(self, v):
        self.frames[-1].append(v)

    def all(self):
        return [v for f in self.frames for v in f]


class FnCtx:
    """what one function's generation knows: its variables, arrays, loop nesting, what it returns"""

    def __init__(self, kernel, ret=None):
        self.kernel = kernel
        self.scope = Scope()
        self.arrays = []
        self.loops = 0
        self.ret = ret             # device function: [(t, lo, hi)] (one element: a scalar)
        self.budget = 0
        self.depth = 0


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.counter = 0
        self.devfns = []           # (name, [(t, lo, hi)] params, ret [(t, lo, hi)])

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    # -- types, intervals, literals --

    def pick_type(self, floats=True):
        r = self.r
        if floats and r.random() < 0.22:
            return r.choice(FLOAT_TYPES)
        return r.choice(INT_TYPES + ("int32", "int64", "int64"))

    def pick_interval(self, t):
        r = self.r
        if t in FLOAT_TYPES:
            b = r.choice([4.0, 100.0, 1e4, 1e6])
            return (-b, b) if r.random() < 0.7 else (0.0, b)
        lo, hi = int_range(t)
        bits = hi.bit_length()
        choice = r.random()
        if choice < 0.35:
            span = r.choice([3, 10, 50, 100])
        elif choice < 0.7:
            span = 1 << r.randint(2, max(2, bits - 2))
        else:
            span = 1 << max(1, bits - r.randint(1, 3))
        span = min(span, hi)
        if lo < 0 and r.random() < 0.6:
            return (max(lo, -span), min(hi, span))
        return (0, span)

    def literal(self, t, lo, hi):
        r = self.r
        if t in FLOAT_TYPES or t == WEAK_FLOAT:
            v = r.choice([0.5, 1.0, 1.5, 2.0, 0.25, 3.0, 10.0, 0.1, 7.75, 100.0])
            v = min(max(v if r.random() < 0.7 else -v, lo), hi)
            if t == "float32":
                v = float(np.float32(v))
            return Lit(v, t)
        if r.random() < 0.5:
            v = r.choice([0, 1, 2, 3, 5, 7, 8, 15, 16, 31, 100, 127, 255, -1, -2, -3, -8, -100])
            v = min(max(v, lo), hi)
        elif r.random() < 0.8 or hi - lo < 4:
            v = r.randint(lo, hi)
        else:
            v = r.choice([lo, hi, lo + 1, hi - 1])
        return Lit(v, t)

    # -- fitting a value into a declared type and interval --

    def fit(self, e, t, lo, hi):
        """an expression of NumPy type t whose value is e's when that lies in [lo, hi], else e folded into it"""
        s = e.ty
        if is_float(t):
            if not is_float(s.np):
                if is_int(s.np) and max(abs(s.lo), abs(s.hi)) <= (1 << 53):
                    e = Cast(t, e)
                    s = e.ty
                else:
                    return self.literal(t, lo, hi)
            if s.np != t:
                e = Cast(t, e)
                s = e.ty
            if lo <= s.lo and s.hi <= hi:
                return e
            return zero_signless(Call("min", [Call("max", [e, Lit(float(np.dtype(t).type(lo)), t)]),
                                              Lit(float(np.dtype(t).type(hi)), t)]))
        if s.np == BOOL:
            return IfExp(e, Lit(min(max(1, lo), hi), t), Lit(max(min(0, hi), lo), t))
        if is_float(s.np):
            if max(abs(s.lo), abs(s.hi)) < 2.0 ** 52:
                e = Call(self.r.choice(["math.floor", "math.ceil"]), [e])
                s = e.ty
            else:
                return self.literal(t, lo, hi)
        if lo <= s.lo and s.hi <= hi:
            return e if s.np == t else Cast(t, e)
        if s.np == WEAK_INT or is_unsigned(s.np) and lo < 0 or not fits(lo, hi, s.np):
            e = Cast("int64", e)
            s = e.ty
        if self.r.random() < 0.6 and hi - lo < int_range(s.np)[1] and fits(lo, hi, s.np):
            m = hi - lo + 1
            try:
                folded = Bin("%", e, Lit(m, s.np))
                if lo != 0:
                    folded = Bin("+", folded, Lit(lo, s.np))
                return folded if folded.ty.np == t else Cast(t, folded)
            except Invalid:
                pass        # the modulo is not exact in numba's typing (uint64 past 2**53): clamp instead
        rlo, rhi = int_range(s.np)
        e = exact(e, s.np)
        clamped = Call("min", [Call("max", [e, Lit(max(lo, rlo), s.np)]), Lit(min(hi, rhi), s.np)])
        return clamped if s.np == t else Cast(t, clamped)

    def fit_index(self, e, length, negidx):
        s = e.ty
        if 0 <= s.lo and s.hi < length:
            return e
        if negidx and -length <= s.lo and s.hi < 0:
            return e
        return self.fit(e, "int64", 0, length - 1) if s.np != WEAK_INT or self.r.random() < 0.5 else \
            Bin("%", e, Lit(length, WEAK_INT))

    # -- expressions --

    def leaf(self, ctx, want):
        """a variable, array element or literal of kind want ('int', 'float', 'bool')"""
        r = self.r
        cands = [v for v in ctx.scope.all() if v.items is None and kind_of(v.t) == want]
        tuples = [v for v in ctx.scope.all() if v.items is not None
                  and any(kind_of(it[0]) == want for it in v.items)]
        arrays = [a for a in ctx.arrays if a.readable and kind_of(a.dtype) == want]
        x = r.random()
        if tuples and x < 0.12:
            v = r.choice(tuples)
            ks = [k for k, it in enumerate(v.items) if kind_of(it[0]) == want]
            k = r.choice(ks)
            t, lo, hi = v.items[k]
            nb = {WEAK_INT: "int64", WEAK_FLOAT: "float64"}.get(t, t)
            uniform = len(set(it[0] for it in v.items)) == 1
            if uniform and r.random() < 0.3 and ctx.depth < 6:
                idx = self.fit_index(self.expr(ctx, "int", 1), len(v.items), True)
                los = [it[1] for it in v.items]
                his = [it[2] for it in v.items]
                return TupleItem(v.name, idx, Ty(t, nb, min(los), max(his)))
            return TupleItem(v.name, k, Ty(t, nb, lo, hi))
        if arrays and x < 0.32:
            a = r.choice(arrays)
            nb = a.dtype
            ctx.depth += 1
            idx = self.fit_index(self.expr(ctx, "int", 1), a.length, a.negidx)
            ctx.depth -= 1
            return Load(a.name, idx, Ty(a.dtype, nb, a.lo, a.hi))
        if cands and x < 0.85:
            v = r.choice(cands)
            return Name(v.name, v.ty())
        if want == "bool":
            if r.random() < 0.15 or ctx.depth > 6:
                return Lit(r.random() < 0.5, BOOL)
            # a comparison of two leaves: a condition that varies with the data
            ctx.depth += 1
            try:
                a, b = self.leaf(ctx, "int"), self.leaf(ctx, "int")
                return Cmp([r.choice(["<", "<=", ">", ">=", "==", "!="])], [a, b])
            except Invalid:
                return Lit(r.random() < 0.5, BOOL)
            finally:
                ctx.depth -= 1
        if want == "float":
            t = r.choice(FLOAT_TYPES + (WEAK_FLOAT,))
            return self.literal(t, -100.0, 100.0)
        t = r.choice(INT_TYPES + (WEAK_INT, WEAK_INT))
        lo, hi = int_range(t)
        return self.literal(t, max(lo, -200), min(hi, 300))

    def expr(self, ctx, want, depth):
        """an expression of kind want; depth bounds its size"""
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(ctx, want)
        for _ in range(8):
            try:
                return self.compound(ctx, want, depth)
            except Invalid:
                continue
        return self.leaf(ctx, want)

    def shrink(self, e):
        """a smaller-ranged form of an integer expression, for an operation that would overflow"""
        r = self.r
        s = e.ty
        if not is_int(s.np):
            return e
        k = r.choice([4, 8, 16, 100])
        if s.np != WEAK_INT and k > int_range(s.np)[1]:
            k = 4
        if r.random() < 0.5:
            return Bin("%", e, Lit(k, s.np if s.np != WEAK_INT else WEAK_INT))
        if s.lo >= 0:
            return Bin(">>", e, Lit(r.randint(1, 7), WEAK_INT)) if s.hi > 256 else Bin("&", e, Lit(15, WEAK_INT))
        return Bin("%", e, Lit(k, s.np if s.np != WEAK_INT else WEAK_INT))

    def compound(self, ctx, want, depth):
        r = self.r
        d = depth - 1
        if want == "bool":
            x = r.random()
            if x < 0.55:
                kind = "int" if r.random() < 0.8 else "float"
                a, b = self.expr(ctx, kind, d), self.expr(ctx, kind, d)
                ops = ["<", "<=", ">", ">=", "==", "!="]
                if r.random() < 0.1:
                    c = self.expr(ctx, kind, d)
                    return Cmp([r.choice(ops), r.choice(ops)], [a, b, c])
                return Cmp([r.choice(ops)], [a, b])
            if x < 0.8:
                return BoolOp(r.choice(["and", "or"]), self.expr(ctx, "bool", d), self.expr(ctx, "bool", d))
            return Unary("not", self.expr(ctx, "bool", d))
        if want == "float":
            x = r.random()
            if x < 0.55:
                a = self.expr(ctx, "float", d)
                b = self.expr(ctx, "float", d)
                op = r.choice(["+", "-", "*", "/", "+", "*"])
                if a.ty.np != b.ty.np and not {a.ty.np, b.ty.np} <= {WEAK_FLOAT, "float64"}:
                    b = Cast(a.ty.np if a.ty.np != WEAK_FLOAT else "float64", b)
                if op == "*":
                    # kfront contracts x * y + z into one fused multiply-add, as numba-cuda does on the GPU
                    # (docs/numeric.md) and its simulator does not: products are by powers of two, exact, so
                    # that fused or not they round alike
                    b = Lit(r.choice([2.0, 0.5, 0.25, 4.0, -2.0, -0.5]), b.ty.np)
                if op == "/":
                    one = Lit(1.0, b.ty.np)
                    b = Bin("+", Call("abs", [b]), one)
                try:
                    return Bin(op, a, b)
                except Invalid:
                    return Bin(op, self.fit(a, a.ty.np if a.ty.np != WEAK_FLOAT else "float64", -100.0, 100.0),
                               self.fit(b, b.ty.np if b.ty.np != WEAK_FLOAT else "float64", -100.0, 100.0))
            if x < 0.65:
                return Cast(r.choice(FLOAT_TYPES), self.expr(ctx, "int", d))
            if x < 0.75:
                a = self.expr(ctx, "float", d)
                return Call("math.sqrt", [Call("abs", [a])])
            if x < 0.8:
                return Call("math.fabs", [self.expr(ctx, "float", d)])
            if x < 0.87:
                a, b = self.expr(ctx, "float", d), self.expr(ctx, "float", d)
                if a.ty.np != b.ty.np:
                    b = Cast(a.ty.np if a.ty.np != WEAK_FLOAT else "float64", b)
                    if a.ty.np == WEAK_FLOAT:
                        a = Cast("float64", a)
                return zero_signless(Call(r.choice(["min", "max"]), [a, b]))
            if x < 0.93:
                return Unary("-", self.expr(ctx, "float", d))
            if x < 0.96:
                return self.ternary(ctx, "float", d)
            if x < 0.98 and self.devfns and ctx.depth < 3:
                return self.devcall(ctx, scalar=True, want="float")
            return Cast(r.choice(FLOAT_TYPES), self.expr(ctx, "float", d))
        # int
        x = r.random()
        if x < 0.5:
            op = r.choice(["+", "-", "*", "+", "-", "//", "%", "<<", ">>", "&", "|", "^"])
            a = self.expr(ctx, "int", d)
            b = self.expr(ctx, "int", d)
            if op in ("<<", ">>"):
                b = Bin("&", b, Lit(7, WEAK_INT)) if r.random() < 0.5 else Lit(r.randint(0, 7), WEAK_INT)
            if op in ("//", "%"):
                if b.ty.lo <= 0 <= b.ty.hi:
                    b = Bin("|", b, Lit(1, WEAK_INT)) if r.random() < 0.6 else \
                        Bin("+", Call("abs", [b]), Lit(1, WEAK_INT))
            for attempt in range(3):
                try:
                    return Bin(op, a, b)
                except Invalid as why:
                    if "out of range" not in str(why):
                        raise
                    a = self.shrink(a)
                    if op not in ("<<", ">>", "//", "%"):
                        b = self.shrink(b)
            raise Invalid("no fit")
        if x < 0.58:
            return Unary(r.choice(["-", "~"]), self.expr(ctx, "int", d))
        if x < 0.66:
            return Call("abs", [self.expr(ctx, "int", d)])
        if x < 0.74:
            a, b = self.expr(ctx, "int", d), self.expr(ctx, "int", d)
            if a.ty.np != b.ty.np:
                b = self.fit(b, a.ty.np, *self.ranged(a.ty)) if a.ty.np != WEAK_INT else Cast("int64", b)
                if a.ty.np == WEAK_INT:
                    a = Cast("int64", a)
            return Call(r.choice(["min", "max"]), [a, b])
        if x < 0.8:
            t = r.choice(INT_TYPES)
            return Cast(t, self.expr(ctx, "int", d))
        if x < 0.85:
            a = self.expr(ctx, "float", d)
            return Call(r.choice(["math.floor", "math.ceil"] + (["math.trunc"] if a.ty.np != "float32" else [])),
                        [a])
        if x < 0.9:
            return self.ternary(ctx, "int", d)
        if x < 0.93:
            return Pow(self.shrink(self.expr(ctx, "int", d)), r.randint(0, 3))
        if x < 0.97 and self.devfns and ctx.depth < 3:
            return self.devcall(ctx, scalar=True, want="int")
        return Cast(r.choice(INT_TYPES), self.expr(ctx, "int", d))

    def ranged(self, ty):
        """a declared interval for a fit into ty's NumPy type"""
        t = ty.np
        if t == WEAK_INT:
            t = "int64"
        if t == WEAK_FLOAT:
            t = "float64"
        if is_float(t):
            return (-100.0, 100.0)
        lo, hi = int_range(t)
        return (max(lo, -100), min(hi, 100))

    def ternary(self, ctx, want, d):
        c = self.expr(ctx, "bool", d)
        a = self.expr(ctx, want, d)
        b = self.expr(ctx, want, d)
        if a.ty.np != b.ty.np:
            t = a.ty.np if a.ty.np not in (WEAK_INT, WEAK_FLOAT) else ("int64" if want == "int" else "float64")
            a = self.fit(a, t, *self.ranged(Ty(t, t, 0, 0)))
            b = self.fit(b, t, *self.ranged(Ty(t, t, 0, 0)))
        return IfExp(c, a, b)

    def devcall(self, ctx, scalar, want=None):
        r = self.r
        cands = [f for f in self.devfns if (len(f[2]) == 1) == scalar
                 and (want is None or kind_of(f[2][0][0]) == want)]
        if not cands:
            raise Invalid("no device function")
        name, params, ret = r.choice(cands)
        args = []
        ctx.depth += 1
        for (t, lo, hi) in params:
            args.append(exact(self.fit(self.expr(ctx, kind_of(t), 2), t, lo, hi), t))
        ctx.depth -= 1
        if scalar:
            t, lo, hi = ret[0]
            return DevCall(name, args, Ty(t, t, lo, hi))
        return DevCall(name, args, None)

    # -- statements --

    def block(self, ctx, n):
        stmts = []
        for _ in range(n):
            if ctx.budget <= 0:
                break
            saved = (len(ctx.scope.frames), len(ctx.scope.frames[-1]), ctx.depth, ctx.loops)
            try:
                s = self.stmt(ctx)
            except Invalid:
                # nothing half-made stays behind: the variables it declared go with it
                del ctx.scope.frames[saved[0]:]
                del ctx.scope.frames[-1][saved[1]:]
                ctx.depth, ctx.loops = saved[2], saved[3]
                continue
            if s is not None:
                stmts.extend(s if isinstance(s, list) else [s])
        return stmts

    def mutable_vars(self, ctx):
        return [v for v in ctx.scope.all() if v.mutable and v.items is None]

    def assign_to(self, ctx, v):
        e = self.expr(ctx, kind_of(v.t), self.r.randint(1, 4))
        return Assign(v.name, exact(self.fit(e, v.t, v.lo, v.hi), v.t))

    def stmt(self, ctx):
        r = self.r
        ctx.budget -= 1
        x = r.random()
        nest = ctx.depth < 3
        if x < 0.28:
            vs = self.mutable_vars(ctx)
            if vs:
                v = r.choice(vs)
                if r.random() < 0.25 and is_int(v.t):
                    op = r.choice(["+", "-", "*", "|", "^", "&"])
                    try:
                        e = self.fit(self.expr(ctx, "int", 1), v.t, -3 if not is_unsigned(v.t) else 0, 3)
                        probe = Bin(op, Name(v.name, v.ty()), e)
                        unifies = not is_unsigned(v.t) or v.t == "uint64" and probe.ty.nb == "uint64"
                        if probe.ty.np == v.t and v.lo <= probe.ty.lo and probe.ty.hi <= v.hi and unifies:
                            return AugAssign(v.name, op, e)
                    except Invalid:
                        pass
                return self.assign_to(ctx, v)
        if x < 0.36:
            return self.new_var(ctx)
        if x < 0.5 and nest:
            return self.if_stmt(ctx)
        if x < 0.6 and nest:
            return self.for_stmt(ctx)
        if x < 0.66 and nest:
            return self.while_stmt(ctx)
        if x < 0.72 and ctx.loops > 0:
            return Line(r.choice(["break", "continue"]), "jump")
        if x < 0.75:
            return self.ret_stmt(ctx)
        if x < 0.83:
            return self.store_stmt(ctx)
        if x < 0.88:
            return self.tuple_stmt(ctx)
        if x < 0.92 and self.devfns:
            return self.devcall_stmt(ctx)
        if x < 0.96 and ctx.kernel and ctx.atomics:
            return self.atomic_stmt(ctx)
        return self.new_var(ctx)

    def new_var(self, ctx):
        t = self.pick_type()
        lo, hi = self.pick_interval(t)
        v = Var(self.fresh("v"), t, lo, hi)
        e = exact(self.fit(self.expr(ctx, kind_of(t), 3), t, lo, hi), t)
        ctx.scope.add(v)
        return Assign(v.name, e)

    def cond(self, ctx):
        return self.expr(ctx, "bool", self.r.randint(1, 3))

    def sub_block(self, ctx, n):
        ctx.depth += 1
        ctx.scope.push()
        body = self.block(ctx, n)
        ctx.scope.pop()
        ctx.depth -= 1
        return body

    def if_stmt(self, ctx):
        r = self.r
        arms = [(self.cond(ctx), self.sub_block(ctx, r.randint(1, 4)))]
        while r.random() < 0.3:
            arms.append((self.cond(ctx), self.sub_block(ctx, r.randint(1, 3))))
        orelse = self.sub_block(ctx, r.randint(1, 3)) if r.random() < 0.5 else None
        return If(arms, orelse)

    def loop_else(self, ctx):
        if self.r.random() < 0.2:
            ctx.loops -= 1
            body = self.sub_block(ctx, self.r.randint(1, 2))
            ctx.loops += 1
            return body
        return None

    def for_stmt(self, ctx):
        r = self.r
        var = self.fresh("i")
        x = r.random()
        if x < 0.5:
            n = r.randint(0, 5)
            bounds = [Lit(n, WEAK_INT)]
            lo, hi = 0, max(n - 1, 0)
        elif x < 0.75:
            a, b = r.randint(-3, 3), r.randint(-3, 6)
            bounds = [Lit(a, WEAK_INT), Lit(b, WEAK_INT)]
            lo, hi = a, max(a, b - 1)
        elif x < 0.9:
            a, b, s = r.randint(-2, 8), r.randint(-4, 8), r.choice([-3, -2, -1, 2, 3])
            bounds = [Lit(a, WEAK_INT), Lit(b, WEAK_INT), Lit(s, WEAK_INT)]
            lo, hi = min(a, b), max(a, b)
        else:
            # a trip count read from a variable, folded into [0, 4]
            e = self.fit(self.expr(ctx, "int", 2), "int64", 0, 4)
            bounds = [e]
            lo, hi = 0, 3
        ctx.loops += 1
        ctx.depth += 1
        ctx.scope.push()
        ctx.scope.add(Var(var, WEAK_INT, lo, hi, mutable=False))
        body = self.block(ctx, r.randint(1, 4))
        ctx.scope.pop()
        ctx.depth -= 1
        orelse = self.loop_else(ctx)
        ctx.loops -= 1
        return For(var, bounds, body, orelse)

    def while_stmt(self, ctx):
        r = self.r
        counter = self.fresh("w")
        limit = r.randint(1, 5)
        cond = self.cond(ctx) if r.random() < 0.4 else None
        ctx.loops += 1
        ctx.depth += 1
        ctx.scope.push()
        ctx.scope.add(Var(counter, WEAK_INT, 1, limit, mutable=False))
        body = self.block(ctx, r.randint(1, 4))
        ctx.scope.pop()
        ctx.depth -= 1
        orelse = self.loop_else(ctx)
        ctx.loops -= 1
        return While(counter, limit, cond, body, orelse)

    def ret_stmt(self, ctx):
        if ctx.kernel:
            if ctx.depth == 0 or self.r.random() < 0.5:
                return None
            return Return(None)
        return self.dev_return(ctx)

    def dev_return(self, ctx):
        vals = [self.fit(self.expr(ctx, kind_of(t), 3), t, lo, hi) for (t, lo, hi) in ctx.ret]
        vals = [exact(v, t) for v, (t, _, _) in zip(vals, ctx.ret)]
        return Return(vals[0] if len(vals) == 1 else vals)

    def store_stmt(self, ctx):
        r = self.r
        arrs = [a for a in ctx.arrays if a.writable]
        if not arrs:
            return None
        a = r.choice(arrs)
        e = self.expr(ctx, kind_of(a.dtype), r.randint(1, 4))
        if a.name.startswith("out_") and is_int(a.dtype) and is_int(e.ty.np) and r.random() < 0.5:
            # an output element takes any value of its type: a NumPy integer out of range wraps on both sides
            if e.ty.np == WEAK_INT:
                e = Cast("int64", e)
            value = e if e.ty.np == a.dtype else Cast(a.dtype, e)
        else:
            value = self.fit(e, a.dtype, a.lo, a.hi)
        if a.name.startswith("out_"):
            index = "%s, %d" % (ctx.tid, r.randrange(a.length))
        else:
            index = self.fit_index(self.expr(ctx, "int", 2), a.length, a.negidx)
        return Store(a.name, index, value)

    def tuple_stmt(self, ctx):
        r = self.r
        vs = self.mutable_vars(ctx)
        x = r.random()
        if x < 0.35 and len(vs) >= 2:
            # a, b = b, a (of one type), or a, b = e1, e2
            a, b = r.sample(vs, 2)
            if a.t == b.t and a.lo == b.lo and a.hi == b.hi and r.random() < 0.6:
                return Assign([a.name, b.name], [Name(b.name, b.ty()), Name(a.name, a.ty())])
            return Assign([a.name, b.name], [exact(self.fit(self.expr(ctx, kind_of(a.t), 2), a.t, a.lo, a.hi), a.t),
                                             exact(self.fit(self.expr(ctx, kind_of(b.t), 2), b.t, b.lo, b.hi), b.t)])
        tuples = [v for v in ctx.scope.all() if v.items is not None and v.mutable]
        if x < 0.55 and tuples:
            t = r.choice(tuples)
            if r.random() < 0.5:
                # reassign the tuple (its items keep their types and intervals)
                return Assign(t.name, [exact(self.fit(self.expr(ctx, kind_of(it[0]), 2), *it), it[0])
                                       for it in t.items])
            # unpack into fresh variables
            names = []
            for (it_t, lo, hi) in t.items:
                v = Var(self.fresh("u"), it_t, lo, hi)
                names.append(v.name)
                ctx.scope.add(v)
            return Assign(names, Name(t.name, None))
        # a fresh tuple
        n = r.randint(2, 4)
        if r.random() < 0.4:
            t0 = self.pick_type()
            lo, hi = self.pick_interval(t0)
            items = [(t0, lo, hi)] * n
        else:
            items = []
            for _ in range(n):
                t0 = self.pick_type()
                items.append((t0,) + self.pick_interval(t0))
        vals = [self.fit(self.expr(ctx, kind_of(it[0]), 2), *it) for it in items]
        vals = [exact(v, it[0]) for v, it in zip(vals, items)]
        v = Var(self.fresh("t"), "tuple", 0, 0, items=items)
        ctx.scope.add(v)
        return Assign(v.name, vals)

    def devcall_stmt(self, ctx):
        r = self.r
        tuple_fns = [f for f in self.devfns if len(f[2]) > 1]
        if tuple_fns and r.random() < 0.6:
            name, params, ret = r.choice(tuple_fns)
            args = [exact(self.fit(self.expr(ctx, kind_of(t), 2), t, lo, hi), t) for (t, lo, hi) in params]
            call = DevCall(name, args, None)
            if r.random() < 0.5:
                names = []
                for (t, lo, hi) in ret:
                    v = Var(self.fresh("r"), t, lo, hi)
                    names.append(v.name)
                    ctx.scope.add(v)
                return Assign(names, call)
            v = Var(self.fresh("t"), "tuple", 0, 0, items=list(ret))
            ctx.scope.add(v)
            return Assign(v.name, call)
        try:
            call = self.devcall(ctx, scalar=True)
        except Invalid:
            return None
        t, lo, hi = call.ty.np, call.ty.lo, call.ty.hi
        v = Var(self.fresh("r"), t, lo, hi)
        ctx.scope.add(v)
        return Assign(v.name, call)

    def atomic_stmt(self, ctx):
        r = self.r
        fn = r.choice(["add", "add", "max", "min"])
        arr = ctx.atomics[fn]
        lo, hi = (0, 1000) if is_unsigned(arr.dtype) else (-1000, 1000)
        e = exact(self.fit(self.expr(ctx, "int", 2), arr.dtype, lo, hi), arr.dtype)
        return Atomic(fn, arr.name, r.randrange(arr.length), e)

    # -- functions --

    def device_function(self):
        r = self.r
        name = self.fresh("dev")
        nparams = r.randint(1, 3)
        params = []
        ctx = FnCtx(kernel=False)
        ctx.atomics = None
        pnames = []
        for _ in range(nparams):
            t = self.pick_type()
            lo, hi = self.pick_interval(t)
            p = self.fresh("p")
            pnames.append(p)
            params.append((t, lo, hi))
            ctx.scope.add(Var(p, t, lo, hi))
        nret = 1 if r.random() < 0.6 else r.randint(2, 3)
        ret = []
        for _ in range(nret):
            t = self.pick_type()
            ret.append((t,) + self.pick_interval(t))
        ctx.ret = ret
        ctx.budget = r.randint(2, 10)
        body = self.block(ctx, ctx.budget)
        body.append(self.dev_return(ctx))
        self.devfns.append((name, params, ret))
        return Function(name, pnames, body, device=True)

    def kernel(self):
        r = self.r
        pure = r.random() < 0.3
        if pure:
            grid, block = 1, 1
        else:
            grid, block = r.choice([(1, 1), (1, 2), (1, 4), (2, 3), (1, 8), (2, 4), (3, 2), (4, 1)])
        nthreads = grid * block
        ctx = FnCtx(kernel=True)
        ctx.tid = "tid"
        params, args, prologue = [], [], []
        # outputs: one per chosen dtype, a row of slots per thread, preset to a pattern host-side
        out_types = ["int64", "float64"] + r.sample(["int8", "int16", "int32", "uint8", "uint16", "uint32",
                                                     "uint64", "float32"], r.randint(1, 3))
        outs = []
        for t in out_types:
            slots = r.randint(3, 6)
            name = "out_%s" % t
            data = np.full((nthreads, slots), 0x5A if is_int(t) else -7.25, dtype=t)
            args.append(Arg(name, "array", t, data))
            params.append(name)
            lo, hi = self.pick_interval(t)
            a = ArrayInfo(name, t, slots, lo, hi, readable=False)
            outs.append(a)
            ctx.arrays.append(a)
        # inputs
        for _ in range(r.randint(1, 3)):
            t = self.pick_type()
            n = r.choice([1, 3, 4, 8, 16])
            lo, hi = self.pick_interval(t)
            if t in FLOAT_TYPES:
                data = np.array([r.choice([r.uniform(lo, hi), float(r.randint(int(lo), int(hi)))])
                                 for _ in range(n)], dtype=t)
                lo, hi = float(data.min()), float(data.max())
            else:
                data = np.array([r.randint(lo, hi) for _ in range(n)], dtype=t)
            name = self.fresh("in")
            args.append(Arg(name, "array", t, data))
            params.append(name)
            # written only by a lone thread: threads that share an array must not race on it
            ctx.arrays.append(ArrayInfo(name, t, n, lo, hi, writable=nthreads == 1 and r.random() < 0.5))
        # scalars: NumPy-typed or Python ints and floats (numba types these as int64/float64)
        for _ in range(r.randint(0, 3)):
            t = r.choice(INT_TYPES + FLOAT_TYPES + (WEAK_INT, WEAK_FLOAT))
            if t in FLOAT_TYPES or t == WEAK_FLOAT:
                value = float(np.float32(r.choice([0.5, -2.25, 3.0, 1e3, 0.1])))
                lo = hi = value
            else:
                lo, hi = self.pick_interval(t if t != WEAK_INT else "int64")
                value = r.randint(lo, min(hi, lo + 1000))
                lo = hi = value
            name = self.fresh("s")
            args.append(Arg(name, "scalar", t, value))
            params.append(name)
            ctx.scope.add(Var(name, t, lo, hi, mutable=False))
        # the thread index
        if pure:
            prologue.append(Assign("tid", Lit(0, WEAK_INT)))
        else:
            prologue.append(Assign("tid", Raw(r.choice(["cuda.grid(1)", "cuda.threadIdx.x + cuda.blockIdx.x * "
                                                                        "cuda.blockDim.x"]),
                                              Ty(WEAK_INT, "int64", 0, nthreads - 1))))
        ctx.scope.add(Var("tid", WEAK_INT, 0, nthreads - 1, mutable=False))
        ctx.atomics = None
        if not pure:
            ctx.scope.add(Var("cuda.threadIdx.x", WEAK_INT, 0, block - 1, mutable=False))
            ctx.scope.add(Var("cuda.blockIdx.x", WEAK_INT, 0, grid - 1, mutable=False))
            if r.random() < 0.5:
                ctx.atomics = {}
                for fn in ("add", "max", "min"):
                    t = r.choice(["int32", "int64", "uint32", "uint64"])
                    n = r.randint(1, 3)
                    name = "acc_%s" % fn
                    data = np.array([r.randint(0, 50) for _ in range(n)], dtype=t)
                    args.append(Arg(name, "array", t, data))
                    params.append(name)
                    ctx.atomics[fn] = ArrayInfo(name, t, n, 0, 0, readable=False, writable=False)
            if r.random() < 0.5:
                prologue += self.shared_phase(ctx, block)
            if r.random() < 0.3:
                prologue += self.local_array(ctx)
        elif r.random() < 0.3:
            ctx.budget = 0
        # the declared variables
        ctx.budget = 100
        for _ in range(r.randint(2, 5)):
            prologue.append(self.new_var(ctx))
        ctx.budget = r.randint(6, 28)
        body = self.block(ctx, ctx.budget + 4)
        # the observations: every top-level variable into an output slot, row tid
        epilogue = []
        k = {a.name: 0 for a in outs}
        for v in ctx.scope.frames[0]:
            if not v.mutable:
                continue
            items = [(Name(v.name, v.ty()), v.t)] if v.items is None else \
                [(TupleItem(v.name, j, Ty(it[0], it[0], it[1], it[2])), it[0]) for j, it in enumerate(v.items)]
            for e, t in items:
                kind = kind_of(t)
                choices = [a for a in outs if kind_of(a.dtype) == kind]
                a = r.choice(choices) if kind != "bool" else outs[0]
                if is_float(t) and a.dtype == "float32" and t != "float32":
                    a = [o for o in outs if o.dtype == "float64"][0]
                if kind == "bool":
                    e = IfExp(e, Lit(1, "int64"), Lit(0, "int64"))
                if is_int(e.ty.np):
                    if e.ty.np == WEAK_INT:
                        e = Cast("int64", e)
                    value = e if e.ty.np == a.dtype else Cast(a.dtype, e)
                else:
                    value = e if e.ty.np == a.dtype else Cast(a.dtype, e)
                epilogue.append(Store(a.name, "%s, %d" % (ctx.tid, k[a.name] % a.length), value))
                k[a.name] += 1
        fn = Function("kernel", params, prologue + body + epilogue, device=False)
        return fn, args, grid, block, pure

    def shared_phase(self, ctx, block):
        """each thread fills its slot of a shared array, and adds to a shared sum; barriers, reached by all
        threads, separate the writes from the reads"""
        r = self.r
        t = r.choice(["int32", "int64", "int16", "float64", "uint32"])
        lo, hi = self.pick_interval(t)
        if is_int(t):
            lo, hi = max(lo, -1000), min(hi, 1000)
        else:
            lo, hi = max(lo, -1000.0), min(hi, 1000.0)
        stmts = [Line("sh = cuda.shared.array(%d, np.%s)" % (block, t), "decl"),
                 Line("ssum = cuda.shared.array(1, np.int64)", "decl"),
                 Line("if cuda.threadIdx.x == 0:", "decl"),
                 Line("    ssum[0] = 0", "decl"),
                 Line("cuda.syncthreads()", "sync")]
        ctx.budget = 10
        e = self.fit(self.expr(ctx, kind_of(t), 3), t, lo, hi)
        stmts.append(Store("sh", "cuda.threadIdx.x", e))
        c = self.fit(self.expr(ctx, "int", 2), "int64", -100, 100)
        stmts.append(Atomic("add", "ssum", "0", c))
        stmts.append(Line("cuda.syncthreads()", "sync"))
        for st in stmts:
            st.keep = True
        ctx.arrays.append(ArrayInfo("sh", t, block, lo, hi, writable=False, negidx=False))
        ctx.arrays.append(ArrayInfo("ssum", "int64", 1, -100 * block, 100 * block, writable=False, negidx=False))
        return stmts

    def local_array(self, ctx):
        r = self.r
        t = self.pick_type()
        lo, hi = self.pick_interval(t)
        n = r.randint(1, 6)
        name = self.fresh("la")
        ctx.budget = 10
        init = self.fit(self.expr(ctx, kind_of(t), 2), t, lo, hi)
        k = self.fresh("k")
        stmts = [Line("%s = cuda.local.array(%d, np.%s)" % (name, n, t), "decl"),
                 For(k, [Lit(n, WEAK_INT)], [Store(name, k, init)], None)]
        for st in stmts + stmts[1].body:
            st.keep = True
        ctx.arrays.append(ArrayInfo(name, t, n, lo, hi))
        return stmts


def zero_signless(e):
    """e + 0.0 for a min() / max() of two floats: numba-cuda's GPU (and kfront) compute it as PTX's max.f32 ...,
    which orders -0 below +0, its simulator (the oracle) as Python's max, which returns the first of two equal
    zeros; with +0.0 added a zero result is +0 in both, and every other value unchanged (no NaN is generated, where
    they differ too: docs/numeric.md)."""
    return Bin("+", e, Lit(0.0, e.ty.np))


def exact(e, t):
    """e with numba type t too (tuples and returns: numba types a tuple of int64 and int32 items as
    heterogeneous where NumPy sees one type)"""
    return e if e.ty.np == t and e.ty.nb == t else Cast(t, e)


def kind_of(t):
    if is_int(t):
        return "int"
    if is_float(t):
        return "float"
    if t == BOOL:
        return "bool"
    return "other"


def generate(seed):
    g = Gen(seed)
    functions = [g.device_function() for _ in range(g.r.choice([0, 0, 1, 1, 2, 3]))]
    fn, args, grid, block, pure = g.kernel()
    return Program(seed, functions + [fn], args, grid, block, pure)


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0).source())
