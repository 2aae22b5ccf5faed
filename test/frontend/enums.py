# Enums as Numba types them (EnumMember, IntEnumMember): module-level classes of integer members (Enum,
# IntEnum, IntFlag, auto()), members as constants (Color.RED, Color["RED"], .value), == / != / is between
# members of one class by value, `is` between different types False, IntEnum members as integers (arithmetic,
# ordering, ==, conversions), members through if-joins, loops and device functions (whose instances are
# specialised on the enum), and enum arguments, spelt EnumMember("Class", int64) / IntEnumMember(...) in a
# signature (what a runtime writes for an enum argument). What Numba refuses is a located error.
# RUN: kfront compile %s -k constants --sig 'void(int64[:])' --emit=kir | FileCheck %s --check-prefix=CONST
# RUN: kfront compile %s -k member_args --sig 'void(EnumMember("Color", int64), IntEnumMember("Shape", int64), int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ARGS
# RUN: kfront compile %s -k through_device --sig 'void(int64[:], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=DEV
# RUN: kfront compile %s -k member_args --sig 'void(EnumMember("Color", int64), IntEnumMember("Shape", int64), int64[:])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
# RUN: not kfront compile %s -k enum_arithmetic --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=ARITH
# RUN: not kfront compile %s -k enum_vs_int --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=EQINT
# RUN: not kfront compile %s -k enum_order --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=ORDER
# RUN: not kfront compile %s -k enum_name --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=NAME
# RUN: not kfront compile %s -k enum_unify --sig 'void(int64[:], int64)' 2>&1 | FileCheck %s --check-prefix=UNIFY
# RUN: kfront compile %s -k tuple_valued --sig 'void(float64[:], int64)' --emit=kir | FileCheck %s --check-prefix=TUPLE
# RUN: kfront compile %s -k tuple_valued --sig 'void(float64[:], int64)' --emit=ptx --arch=sm_90 -o %t.tuple.ptx
# RUN: %ptxas -arch=sm_90 %t.tuple.ptx -o /dev/null
# RUN: kfront compile %s -k str_valued --sig 'void(int64[:], int64)' --emit=kir | FileCheck %s --check-prefix=STR
# RUN: kfront compile %s -k str_at_run_time --sig 'void(int64[:], int64)' --emit=kir | FileCheck %s --check-prefix=STRRT
# RUN: kfront compile %s -k str_at_run_time --sig 'void(int64[:], int64)' --emit=ptx --arch=sm_90 -o %t.strrt.ptx
# RUN: %ptxas -arch=sm_90 %t.strrt.ptx -o /dev/null
# RUN: not kfront compile %s -k str_ordered --sig 'void(int64[:], int64)' 2>&1 | FileCheck %s --check-prefix=STRORD
# RUN: not kfront compile %s -k tuple_name --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=TUPLENAME
# RUN: not kfront compile %s -k tuple_arg --sig 'void(float64[:], EnumMember("Planet", UniTuple(float64, 2)))' 2>&1 | FileCheck %s --check-prefix=TUPLEARG
# RUN: kfront compile %s -k tuple_arg --sig 'void(float64[:], EnumMember("Planet", UniTuple(float64, 2), ((5.976e24, 6.37814e6), (6.421e23, 3.3972e6), (5.976e24, 6.37814e6))))' --emit=kir | FileCheck %s --check-prefix=TUPLEIDX
# RUN: kfront compile %s -k tuple_arg --sig 'void(float64[:], EnumMember("Planet", UniTuple(float64, 2), ((5.976e24, 6.37814e6), (6.421e23, 3.3972e6), (5.976e24, 6.37814e6))))' --emit=ptx --arch=sm_90 -o %t.tupleidx.ptx
# RUN: %ptxas -arch=sm_90 %t.tupleidx.ptx -o /dev/null
# RUN: not kfront compile %s -k tuple_arg --sig 'void(float64[:], EnumMember("Planet", UniTuple(float64, 2), ((1.0, 2.0), (3.0, 4.0))))' 2>&1 | FileCheck %s --check-prefix=TUPLEVALS
# RUN: not kfront compile %s -k tuple_arg --sig 'void(float64[:], EnumMember("Planet", UniTuple(float64, 2), ((1.0, 2.0), (3, 4))))' 2>&1 | FileCheck %s --check-prefix=TUPLEMIXED
# RUN: not kfront compile %s -k member_args --sig 'void(EnumMember("Color", int64), IntEnumMember("Shape", float64), int64[:])' 2>&1 | FileCheck %s --check-prefix=SPELL
# RUN: kfront compile %s -k float_members --sig 'void(float64[:], EnumMember("Scale", float64))' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=FLOAT
# RUN: kfront compile %s -k float_members --sig 'void(float64[:], EnumMember("Scale", float64))' --emit=ptx --arch=sm_90 -o %t.float.ptx
# RUN: %ptxas -arch=sm_90 %t.float.ptx -o /dev/null
# RUN: not kfront compile %s -k heterogeneous --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=HETERO
# RUN: kfront compile %s -k in_tuples --sig 'void(int64[:])' --emit=kir | FileCheck %s --check-prefix=INTUPLE
# RUN: kfront compile %s -k classes_passed --sig 'void(int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=CLASSARG
# RUN: kfront compile %s -k classes_passed --sig 'void(int64[:])' --emit=ptx --arch=sm_90 -o %t.classarg.ptx
# RUN: %ptxas -arch=sm_90 %t.classarg.ptx -o /dev/null
import enum
from enum import Enum, IntEnum, auto

from numba import cuda


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Shape(IntEnum):
    CIRCLE = 2
    SQUARE = 500


class Perm(enum.IntFlag):
    R = auto()
    W = auto()
    X = auto()


class Planet(Enum):
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)
    TERRA = (5.976e24, 6.37814e6)  # an alias of EARTH (an equal value)


class Letter(Enum):
    A = "a"
    BEE = "bee"


# Numba types an enum by its members' values: floats float64, bools boolean; mixed kinds it cannot type
class Scale(Enum):
    SMALL = 0.5
    LARGE = 2.5


class Mixed(Enum):
    ONE = 1
    HALF = 0.5


@cuda.jit
def constants(a):
    # members fold to their values; comparisons of constants fold too
    # CONST: arith.constant() {value = 501} : () -> (i64)
    a[0] = Shape.SQUARE + 1
    # CONST: arith.constant() {value = 3} : () -> (i64)
    a[1] = Color["BLUE"].value
    a[2] = Color.RED == Color.GREEN
    a[3] = Color.RED is Color.RED
    # IntEnum members of different classes compare as integers; `is` between different types is False
    a[4] = Shape.CIRCLE == 2
    a[5] = Color.GREEN is Shape.CIRCLE
    # auto() of an IntFlag: powers of two
    # CONST: arith.constant() {value = 7} : () -> (i64)
    a[6] = Perm.R | Perm.W | Perm.X
    # CONST: func.return


@cuda.jit
def member_args(c, s, a):
    # an Enum member argument compares with its class's members by value
    # ARGS: ^bb0(%0: i64, %1: i64, %2: array<i64, 1, A>):
    # ARGS: arith.cmpi(%0, %{{.*}}) {pred = "eq"}
    a[0] = c == Color.GREEN
    # ARGS: arith.cmpi(%0, %{{.*}}) {pred = "ne"}
    a[1] = c is not Color.RED
    # an IntEnum member is an integer: arithmetic and ordering with ints
    # ARGS: arith.addi(%1, %{{.*}})
    a[2] = s + 1
    # ARGS: arith.cmpi(%1, %{{.*}}) {pred = "sgt"}
    if s > Shape.CIRCLE:
        a[3] = c.value


@cuda.jit(device=True)
def pick(p):
    return Color.RED if p else Color.GREEN


@cuda.jit(device=True)
def is_green(c):
    return c == Color.GREEN


@cuda.jit
def through_device(a, n):
    # a member chosen on a path, returned from a device function and passed to another: still a Color
    # DEV: func.call({{.*}}) {callee = @pick} : (i1) -> (i64)
    # DEV: func.call({{.*}}) {callee = @is_green} : (i64) -> (i1)
    a[0] = is_green(pick(n > 2))
    c = Color.RED
    for i in range(n):
        if i == 3:
            c = Color.BLUE
    a[1] = c.value


@cuda.jit
def enum_arithmetic(a):
    # ARITH: enums.py:[[@LINE+1]]:22: error: unsupported operand types for '+': Enum<int64>(Color) and int64{{$}}
    a[0] = Color.RED + 1


@cuda.jit
def enum_vs_int(a):
    # EQINT: enums.py:[[@LINE+1]]:22: error: no implementation of '==' for Enum<int64>(Color) and int64
    a[0] = Color.RED == 1


@cuda.jit
def enum_order(a):
    # ORDER: enums.py:[[@LINE+1]]:22: error: unsupported operand types for '<': Enum<int64>(Color) and Enum<int64>(Color)
    a[0] = Color.RED < Color.BLUE


@cuda.jit
def enum_name(a):
    # NAME: enums.py:[[@LINE+1]]:22: error: unknown attribute 'name' of Enum<int64>(Color) (Numba's enum members have .value only: its CUDA target has no strings to give .name as)
    a[0] = Color.RED.name


@cuda.jit
def enum_unify(a, n):
    c = Color.RED
    # UNIFY: enums.py:[[@LINE+1]]:5: error: cannot unify int64 and Enum<int64>(Color) for 'c'
    if n > 0:
        c = 3
    a[0] = c


@cuda.jit
def tuple_valued(a, n):
    a[0] = Planet.EARTH.value[1]
    p = Planet.EARTH
    if n > 0:
        p = Planet.MARS
    a[1] = p.value[0]
    a[2] = Planet.TERRA is Planet.EARTH
    a[3] = p == Planet.MARS


# Tuple and str values (Numba's EnumMember of a UniTuple or unicode_type): a member is the index of its value; a
# constant member's .value is the value, a run-time one's is chosen by arith.select over the members; aliases are
# the member they repeat.
# TUPLE: arith.constant() {value = 6.37814e+06}
# TUPLE: %[[IDX:[0-9]+]] = scf.if
# TUPLE: %[[ISM:[0-9]+]] = arith.cmpi(%[[IDX]], %{{[0-9]+}}) {pred = "eq"}
# TUPLE: arith.select(%[[ISM]], %{{[0-9]+}}, %{{[0-9]+}})


# STR: arith.constant() {value = 3}
@cuda.jit
def str_valued(a, n):
    a[0] = len(Letter.BEE.value)
    s = Letter.A
    if n > 0:
        s = Letter.BEE
    a[1] = s == Letter.BEE


# A member's string chosen at run time is its index: len() and == choose among the members' strings.
# STRRT: %[[IDX:[0-9]+]] = scf.if
# STRRT: %[[IS1:[0-9]+]] = arith.cmpi(%[[IDX]], %{{[0-9]+}}) {pred = "eq"}
# STRRT: arith.select(%[[IS1]], %{{[0-9]+}}, %{{[0-9]+}})
# STRRT: %[[IS2:[0-9]+]] = arith.cmpi(%[[IDX]], %{{[0-9]+}}) {pred = "eq"}
# STRRT: arith.extui(%[[IS2]])
@cuda.jit
def str_at_run_time(a, n):
    s = Letter.A
    if n > 0:
        s = Letter.BEE
    a[0] = len(s.value)
    a[1] = s.value == "bee"


@cuda.jit
def str_ordered(a, n):
    s = Letter.A
    if n > 0:
        s = Letter.BEE
    # STRORD: enums.py:[[@LINE+1]]:20: error: '<' between strings chosen at run time is not supported
    a[0] = s.value < "b"


@cuda.jit
def tuple_name(a):
    # TUPLENAME: enums.py:[[@LINE+1]]:22: error: unknown attribute 'name' of Enum<UniTuple(float64, 2)>(Planet)
    x = Planet.EARTH.name


# TUPLEARG: error: kfront supports enums whose members are numbers or booleans, not UniTuple(float64 x 2) (an enum of tuples is spelt with its members' values
# A member of an enum of tuples as a kernel argument is the index of its value (Numba passes the value; the index
# names the member), checked on entry: one that names no member raises ValueError.
# TUPLEIDX: ^bb0(%0: array<f64, 1, A>, %1: i64):
# TUPLEIDX-NEXT: %2 = arith.constant() {value = 3} : () -> (i64)
# TUPLEIDX-NEXT: %3 = arith.cmpi(%1, %2) {pred = "uge"}
# TUPLEIDX-NEXT: check.raise(%3) {exception = "ValueError: an argument of Enum<UniTuple(float64, 2)>(Planet) that is not the index of one of its 3 members"}
# TUPLEIDX: arith.select
# TUPLEVALS: <signature>:1:61: error: the values spelt for Planet are not those of its members (3 of them, in the class's order)
# TUPLEMIXED: <signature>:1:61: error: the values of an enum of UniTuple(float64 x 2) must all be of that type
@cuda.jit
def tuple_arg(a, p):
    a[0] = p.value[0]

# SPELL: error: kfront supports enums whose members are integers (IntEnumMember), not float64


# FLOAT: func.func()
# FLOAT-NEXT: ^bb0(%0: array<f64, 1, A>, %1: f64):
# FLOAT: arith.constant() {value = 2.5} : () -> (f64)
# FLOAT: arith.cmpf(%1, %{{.*}}) {pred = "oeq"}
@cuda.jit
def float_members(a, s):
    a[0] = Scale.LARGE.value
    if s == Scale.SMALL:
        a[1] = s.value * 2


@cuda.jit
def heterogeneous(a):
    # HETERO: enums.py:[[@LINE+1]]:12: error: Untyped global name 'Mixed': Cannot type heterogeneous enum 'Mixed': got value types float64, int64
    a[0] = Mixed.ONE.value


# members in tuples: indexed, iterated (unrolled), passed to device functions and returned from them
# INTUPLE: ^bb0(%0: i64, %1: i64):
# INTUPLE: sym_name = @tuple_first, function_type = (i64, i64) -> (i64)
# INTUPLE: func.call(%1, %2) {callee = @tuple_first}
# INTUPLE: arith.constant() {value = 1001} : () -> (i64)
@cuda.jit(device=True)
def tuple_first(t):
    return t[0]


@cuda.jit
def in_tuples(a):
    t = (Color.RED, Shape.SQUARE)
    total = 0
    for m in t:
        total += m.value
    a[0] = total + (1 if tuple_first(t) is Color.RED else 0) + t[1] - 500 + 4


# An enum class passed to a device function (numba-cuda's EnumClass, an opaque argument): a compile-time value,
# one specialisation per class, no parameter for it.
# CLASSARG: arith.constant() {value = 3} : () -> (i64)
# CLASSARG: {sym_name = @blue_value__K[[A:[0-9]+]], function_type = () -> (i64)
# CLASSARG: arith.constant() {value = 7} : () -> (i64)
# CLASSARG: {sym_name = @blue_value__K[[B:[0-9]+]], function_type = () -> (i64)
# CLASSARG: func.call() {callee = @blue_value__K[[A]]}
# CLASSARG: func.call() {callee = @blue_value__K[[B]]}
class Hue(Enum):
    BLUE = 7


@cuda.jit(device=True)
def blue_value(cls):
    return cls.BLUE.value


@cuda.jit
def classes_passed(a):
    a[0] = blue_value(Color)
    a[1] = blue_value(Hue)
