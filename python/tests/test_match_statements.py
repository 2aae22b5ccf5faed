"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
match statements (PEP 634) in kernels, as numba-cuda 0.30.4 compiles them (issue 22, item 5). numba-cuda compiles
bytecode without MATCH_SEQUENCE, MATCH_MAPPING or MATCH_CLASS: literal, value (dotted name), capture, wildcard,
or- and as-patterns and guards compile (checked with numba-cuda's compile_ptx on this machine), sequence, mapping
and class patterns are its UnsupportedBytecodeError "Use of unsupported opcode (MATCH_...) found". Expected values
are Python's: each kernel's py_func runs per input on the host."""
import enum
import math

import numpy as np
import pytest

from kfront import cuda, errors


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


class Shape(enum.Enum):
    SQUARE = 1
    CIRCLE = 2


@cuda.jit
def classify(values, out):
    i = cuda.grid(1)
    if i < values.size:
        x = values[i]
        match x:
            case 1 | 2:
                r = 1
            case -3:
                r = 2
            case 4.0:
                r = 3
            case Color.GREEN:  # 2: already taken by the first case
                r = 4
            case 5 as y:
                r = y + 10
            case y if y > 100:
                r = y - 100
            case 7 | 8 | 9 if x % 2 == 1:
                r = 20
            case _:
                r = 0
        out[i] = r


def classify_py(x):
    match x:
        case 1 | 2:
            return 1
        case -3:
            return 2
        case 4.0:
            return 3
        case Color.GREEN:
            return 4
        case 5 as y:
            return y + 10
        case y if y > 100:
            return y - 100
        case 7 | 8 | 9 if x % 2 == 1:
            return 20
        case _:
            return 0


def test_literal_value_capture_or_as_guard():
    values = np.array([1, 2, -3, 4, 5, 6, 7, 8, 9, 101, 250, 0, -1], dtype=np.int64)
    out = np.zeros(len(values), dtype=np.int64)
    classify[1, len(values)](values, out)
    np.testing.assert_array_equal(out, [classify_py(int(v)) for v in values])


@cuda.jit
def float_subject(values, out):
    i = cuda.grid(1)
    match values[i]:
        case 1:
            out[i] = 1
        case 2.5:
            out[i] = 2
        case math.inf:
            out[i] = 3
        case _:
            out[i] = 0


def test_float_subject_and_module_constant():
    values = np.array([1.0, 2.5, np.inf, np.nan, -0.0, 3.0])
    out = np.zeros(len(values), dtype=np.int64)
    float_subject[1, len(values)](values, out)
    np.testing.assert_array_equal(out, [1, 2, 3, 0, 0, 0])


@cuda.jit
def enum_subject(out, s):
    match s:
        case Shape.SQUARE:
            out[0] = 1
        case Shape.CIRCLE:
            out[0] = 2


def test_enum_member_subject():
    out = np.zeros(1, dtype=np.int64)
    enum_subject[1, 1](out, Shape.CIRCLE)
    assert out[0] == 2
    enum_subject[1, 1](out, Shape.SQUARE)
    assert out[0] == 1


@cuda.jit
def singletons(flags, out):
    i = cuda.grid(1)
    match flags[i]:
        case True:
            out[i] = 1
        case False:
            out[i] = 2


def test_bool_singletons():
    flags = np.array([True, False, True])
    out = np.zeros(3, dtype=np.int64)
    singletons[1, 3](flags, out)
    np.testing.assert_array_equal(out, [1, 2, 1])


@cuda.jit
def true_on_an_integer(out, x):
    match x:
        case True:  # `x is True`: an int64 is never the bool True (numba-cuda's generic_is, CPython alike)
            out[0] = 1
        case _:
            out[0] = 2


def test_bool_singleton_on_an_integer():
    out = np.zeros(1, dtype=np.int64)
    true_on_an_integer[1, 1](out, 1)
    assert out[0] == 2


@cuda.jit
def no_case_matches(out, x):
    r = 9
    match x:
        case 1:
            r = 1
    out[0] = r


def test_no_case_matches_keeps_values():
    out = np.zeros(1, dtype=np.int64)
    no_case_matches[1, 1](out, 3)
    assert out[0] == 9
    no_case_matches[1, 1](out, 1)
    assert out[0] == 1


@cuda.jit
def failed_guard_keeps_capture(out, x):
    y = -1
    match x:
        case 4 | 5 as y if y > 4:
            out[1] = 1
        case _:
            out[1] = 2
    out[0] = y  # CPython binds y before the guard: 4 when the guard failed, -1 when the pattern did


def test_capture_bound_before_the_guard():
    for x in (4, 5, 6):
        out = np.zeros(2, dtype=np.int64)
        failed_guard_keeps_capture[1, 1](out, x)
        want = np.zeros(2, dtype=np.int64)
        failed_guard_keeps_capture.py_func(want, x)
        np.testing.assert_array_equal(out, want)


@cuda.jit
def in_a_loop(out, n):
    s = 0
    for i in range(n):
        match i % 4:
            case 0:
                continue
            case 1:
                s += 1
            case 2 if i > 8:
                break
            case _:
                s += 10
    out[0] = s


@cuda.jit
def returns_in_cases(out, x):
    match x:
        case 1:
            out[0] = 10
            return
        case 2:
            pass
        case _:
            out[0] = 30
            return
    out[0] = 20


def test_break_continue_return_in_cases():
    for n in (0, 3, 7, 12, 20):
        out = np.zeros(1, dtype=np.int64)
        in_a_loop[1, 1](out, n)
        want = np.zeros(1, dtype=np.int64)
        in_a_loop.py_func(want, n)
        assert out[0] == want[0], n
    for x in (1, 2, 3):
        out = np.zeros(1, dtype=np.int64)
        returns_in_cases[1, 1](out, x)
        assert out[0] == {1: 10, 2: 20, 3: 30}[x]


@cuda.jit(device=True)
def device_match(x):
    match x:
        case 0:
            return 1.5
        case n if n < 0:
            return -1.0
        case _:
            return float(x) * 2


@cuda.jit
def calls_device_match(values, out):
    i = cuda.grid(1)
    out[i] = device_match(values[i])


def test_match_in_device_function():
    values = np.array([0, -4, 3, 8], dtype=np.int32)
    out = np.zeros(4)
    calls_device_match[1, 4](values, out)
    np.testing.assert_array_equal(out, [1.5, -1.0, 6.0, 16.0])


@cuda.jit
def nested_match(out, a, b):
    match a:
        case 0:
            match b:
                case 0:
                    out[0] = 1
                case _:
                    out[0] = 2
        case _:
            out[0] = 3


def test_nested_match():
    for a, b, want in ((0, 0, 1), (0, 5, 2), (1, 0, 3)):
        out = np.zeros(1, dtype=np.int64)
        nested_match[1, 1](out, a, b)
        assert out[0] == want


# ---- what numba-cuda refuses ------------------------------------------------------------------------------


@cuda.jit
def sequence_pattern(out, t):
    match t:
        case (1, y):
            out[0] = y
        case _:
            out[0] = 0


@cuda.jit
def class_pattern(out, x):
    match x:
        case 1:
            out[0] = 1
        case int():
            out[0] = 2


@cuda.jit
def mapping_pattern(out, x):
    match x:
        case {1: y}:
            out[0] = y


@pytest.mark.parametrize("kernel, args, opcode", [
    (sequence_pattern, ((1, 2),), "MATCH_SEQUENCE"),
    (class_pattern, (1,), "MATCH_CLASS"),
    (mapping_pattern, (1,), "MATCH_MAPPING"),
])
def test_refused_patterns(kernel, args, opcode):
    with pytest.raises(errors.UnsupportedError, match=r"Use of unsupported opcode \(%s\) found" % opcode) as e:
        kernel[1, 1](np.zeros(1, dtype=np.int64), *args)
    assert e.value.file.endswith("test_match_statements.py")
    source_line = open(__file__).read().splitlines()[e.value.line - 1]
    assert "case" in source_line
