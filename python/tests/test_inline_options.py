"""cuda.jit's inlining options as numba-cuda 0.30.4 gives them (its cudapy/test_inline.py checks the LLVM IR):
inline="always" / True / a cost model saying True inlines each call before the IR goes to libNVVM (the call is gone
from inspect_llvm, and no alwaysinline is anywhere); inline="never" / False / the default / a cost model saying False
leaves the call (libNVVM's optimiser inlines it as it likes, as numba-cuda's); forceinline=True marks the device
function alwaysinline on its define line and keeps the call. Closures and kfront's builtins written in Python
(cmath) are inlined as numba inlines them. The default still gives PTX with small device functions inlined."""
import re

import numpy as np
import pytest

from kfront import cuda, types

SIG = (types.int32[::1],)
CALL = re.compile(r"call [a-zA-Z0-9]* @")


def _caller_of(set_zero):
    @cuda.jit(SIG)
    def call_set_zero(a):
        set_zero(a)
    return call_set_zero


def _set_zero(**options):
    @cuda.jit(**options)
    def set_zero(a):
        a[0] = 0
    return set_zero


def _run(kernel):
    a = np.ones(2, dtype=np.int32)
    kernel[1, 2](a)
    assert list(a) == [0, 1]
    return kernel.inspect_llvm(SIG)


@pytest.mark.parametrize("inline, inlined", [
    ("always", True), ("never", False), (True, True), (False, False),
    (lambda expr, caller_info, callee_info: True, True), (lambda expr, caller_info, callee_info: False, False),
])
def test_inline_option_inlines_in_kfront_or_leaves_the_call(inline, inlined):
    llvm = _run(_caller_of(_set_zero(inline=inline)))
    assert (CALL.search(llvm) is None) == inlined, llvm
    assert "alwaysinline" not in llvm
    assert ("define internal void @set_zero(" in llvm) != inlined  # an inlined function is gone


def test_default_is_a_call_without_alwaysinline():
    llvm = _run(_caller_of(_set_zero()))
    assert CALL.search(llvm) and "alwaysinline" not in llvm


@pytest.mark.parametrize("forceinline", [True, False])
def test_forceinline_marks_the_define_line_and_keeps_the_call(forceinline):
    llvm = _run(_caller_of(_set_zero(forceinline=forceinline)))
    assert CALL.search(llvm)
    define = re.search(r"define.*[^_]set_zero.*", llvm).group()
    assert ("alwaysinline" in define) == forceinline
    assert "alwaysinline" not in re.search(r"define.*call_set_zero.*", llvm).group()


def test_a_bad_inline_value_is_numba_cudas_value_error():
    with pytest.raises(ValueError, match="kwarg 'inline' must be one of the strings 'always' or 'never'"):
        _set_zero(inline="sometimes")


def test_a_cost_model_is_asked_once_and_a_failing_one_is_a_clear_error():
    asked = []

    def model(expr, caller_info, callee_info):
        asked.append((expr, caller_info, callee_info))
        return True

    f = _set_zero(inline=model)
    _run(_caller_of(f))
    _run(_caller_of(f))
    assert asked == [(None, None, None)]
    assert f.targetoptions["inline"] is model

    def reads_ir(expr, caller_info, callee_info):
        return len(callee_info.blocks) < 3

    with pytest.raises(TypeError, match="raised AttributeError.*no numba IR"):
        _caller_of(_set_zero(inline=reads_ir)).inspect_llvm(SIG)


def test_closures_are_inlined():
    @cuda.jit(SIG)
    def k(a):
        def put(i, v):
            a[i] = v
        put(0, 0)

    llvm = _run(k)
    assert CALL.search(llvm) is None and "alwaysinline" not in llvm


def test_libnvvm_still_inlines_small_device_functions_by_default():
    @cuda.jit(device=True)
    def scale(a, i, x):
        return a[i] * x + 1.0

    @cuda.jit(device=True)
    def total(a, n):
        s = 0.0
        for j in range(n):
            s += a[j] * a[j] - j
        return s

    def kern(a, b, x):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = scale(a, i, x) + total(a, 16)

    sig = (types.float32[::1], types.float32[::1], types.float32)
    ptx, _ = cuda.compile_ptx(kern, sig)
    assert ".func" not in ptx and not re.search(r"\bcall", ptx)
    assert re.search(r"call \S+ @scale\(", cuda.jit(sig)(kern).inspect_llvm(sig))  # called in the IR given to it
