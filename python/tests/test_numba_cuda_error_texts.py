"""Errors in numba-cuda's words (issue 22): the texts numba-cuda's own tests match, each in kfront's located form
(file:line:col, the source line and a caret) with kfront's explanation kept after numba-cuda's words."""
import re

import pytest

from kfront import cuda, errors


def test_undefined_name_in_a_device_function_is_a_name_error_noted_at_the_call():
    # numba-cuda's test_errors test_typing_error: "resolving callee type: type(CUDADispatcher" and
    # "NameError: name 'floor' is not defined"
    @cuda.jit(device=True)
    def dev_func(x):
        return floor(x)  # noqa: F821

    @cuda.jit
    def kernel_func():
        dev_func(1.5)

    with pytest.raises(errors.TypingError) as info:
        kernel_func[1, 1]()
    text = str(info.value)
    line = dev_func.py_func.__code__.co_firstlineno  # the decorator
    assert re.search(r"test_numba_cuda_error_texts\.py:%d:16: error: NameError: name 'floor' is not defined\n"
                     r"        return floor\(x\)" % (line + 2), text), text
    call = kernel_func.py_func.__code__.co_firstlineno + 2  # the decorator is the first line
    assert re.search(r"test_numba_cuda_error_texts\.py:%d:9: note: During: resolving callee type: "
                     r"type\(CUDADispatcher\(<function dev_func>\)\): typing device function 'dev_func' for "
                     r"\(float64\) failed" % call, text), text


def test_undefined_name_in_a_kernel_is_a_name_error():
    @cuda.jit
    def k(a):
        a[0] = undefined_here  # noqa: F821

    with pytest.raises(errors.TypingError, match="error: NameError: name 'undefined_here' is not defined"):
        k[1, 1](__import__("numpy").zeros(1))
