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
# RUN: not kfront compile %s -k tuple_valued --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=TUPLE
# RUN: not kfront compile %s -k member_args --sig 'void(EnumMember("Color", float64), int64, int64[:])' 2>&1 | FileCheck %s --check-prefix=SPELL
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
    # NAME: enums.py:[[@LINE+1]]:22: error: unknown attribute 'name' of Enum<int64>(Color) (kfront supports .value; .name is not supported)
    a[0] = Color.RED.name


@cuda.jit
def enum_unify(a, n):
    c = Color.RED
    # UNIFY: enums.py:[[@LINE+1]]:5: error: cannot unify int64 and Enum<int64>(Color) for 'c'
    if n > 0:
        c = 3
    a[0] = c


@cuda.jit
def tuple_valued(a):
    # TUPLE: enums.py:[[@LINE+1]]:12: error: 'Planet': 'Planet.EARTH' is not an integer constant: kfront supports enums whose members are integers
    a[0] = Planet.EARTH.value

# SPELL: error: kfront supports enums whose members are integers, not float64
