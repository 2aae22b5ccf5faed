"""Errors in numba-cuda's words (issue 22): the texts numba-cuda's own tests match, each in kfront's located form
(file:line:col, the source line and a caret) with kfront's explanation kept after numba-cuda's words."""
import re

import numpy as np
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
        k[1, 1](np.zeros(1))


# NumPy's dtype strings and np.dtype(...) as the dtype of cuda.shared.array / cuda.local.array, as numba-cuda takes
# them (np.dtype(s), then its Numba type): (dtype expression, the element type it gives)
DTYPES = [("'float32'", np.float32), ("'int64'", np.int64), ("'<f4'", np.float32), ("'=i2'", np.int16),
          ("'|u1'", np.uint8), ("'d'", np.float64), ("'i'", np.int32), ("'float'", np.float64), ("'int'", np.int64),
          ("'c8'", np.complex64), ("'<c16'", np.complex128), ("np.dtype('int16')", np.int16),
          ("np.dtype('<f8')", np.float64), ("np.dtype(np.uint32)", np.uint32), ("np.dtype(float32)", np.float32)]


@pytest.mark.parametrize("memory", ["shared", "local"])
@pytest.mark.parametrize("spelling,dtype", DTYPES)
def test_numpy_dtype_spellings_are_array_dtypes(memory, spelling, dtype):
    src = ("def k(out, x):\n"
           "    s = cuda.%s.array(4, dtype=%s)\n"
           "    s[1] = x\n"
           "    out[0] = s[1]\n"
           "    out[1] = s[1] * 2\n" % (memory, spelling))
    g = {"cuda": cuda, "np": np, "float32": cuda.float32}
    exec(compile(src, "<dtype %s>" % spelling, "exec"), g)
    k = cuda.jit(g["k"])
    out = np.zeros(2, dtype=dtype)
    x = dtype(3)
    k[1, 1](out, x)
    assert out.tolist() == [3, 6]
    # the element type is the dtype's: one past its largest value, stored, wraps to its smallest
    if np.issubdtype(dtype, np.integer) and dtype != np.int64:
        out = np.zeros(2, dtype=np.int64)
        k[1, 1](out, np.int64(np.iinfo(dtype).max) + 1)
        assert out[0] == np.iinfo(dtype).min


def _compile_error(body, name):
    src = "def k(x):\n%s\n" % "\n".join("    " + line for line in body)
    g = {"cuda": cuda, "np": np}
    exec(compile(src, "<%s>" % name, "exec"), g)
    with pytest.raises(errors.TypingError) as info:
        cuda.jit("void(int32[::1])")(g["k"])
    return str(info.value)


def test_np_dtype_of_a_dtype_kernels_have_no_type_for_leaves_the_variable_untyped():
    # numba-cuda's test_sm test_invalid_array_type: "Cannot infer the type of variable 'arr'"
    text = _compile_error(["arr = cuda.shared.array(10, dtype=np.dtype('O'))"], "objdtype")
    assert text.startswith("<objdtype>:2:48: error: Cannot infer the type of variable 'arr': np.dtype('O') is a "
                           "NumPy dtype kernels have no type for"), text
    assert text.endswith("\n    arr = cuda.shared.array(10, dtype=np.dtype('O'))\n" + " " * 47 + "^"), text


@pytest.mark.parametrize("spelling", ["'int33'", "np.dtype('int33')"])
def test_a_string_numpy_does_not_parse_is_an_invalid_numpy_dtype(spelling):
    # numba-cuda's test_sm_creation / test_localmem / test_sm test_invalid_string_dtype
    for memory in ("shared", "local"):
        text = _compile_error(["s = cuda.%s.array(10, dtype=%s)" % (memory, spelling), "s[0] = x[0]"], "bad")
        assert re.match(r"<bad>:2:\d+: error: Invalid NumPy dtype specified: 'int33'", text), text


@pytest.mark.parametrize("spelling", ["'>f8'", "'U10'", "'O'"])
def test_a_numpy_dtype_string_kernels_have_no_type_for_is_refused(spelling):
    text = _compile_error(["s = cuda.local.array(10, dtype=%s)" % spelling, "s[0] = x[0]"], "nodtype")
    assert "error: dtype %s is a NumPy dtype kernels have no type for" % spelling in text, text


def _add_kernel(r, x, y):
    r[0] = x + y


def test_a_tie_between_declared_signatures_is_numbas_ambiguous_overloading_text():
    # numba-cuda's test_dispatcher test_explicit_signatures_ambiguous_resolution: the arguments and the two tied
    # signatures as numba's types print, the third signature (a worse fit) not named
    f = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                  "(float64[::1], int64, int64)"])(_add_kernel)
    with pytest.raises(TypeError) as info:
        f[1, 1](np.zeros(1), 1.0, 2.0)
    assert isinstance(info.value, errors.KernelArgumentError)
    line = _add_kernel.__code__.co_firstlineno
    text = str(info.value)
    assert re.search(
        r"Ambiguous overloading for <function _add_kernel at [^>]*test_numba_cuda_error_texts\.py:%d> "
        r"\(Array\(float64, 1, 'C', False, aligned=True\), float64, float64\):\n"
        r"\(Array\(float64, 1, 'C', False, aligned=True\), float32, float64\) -> none\n"
        r"\(Array\(float64, 1, 'C', False, aligned=True\), float64, float32\) -> none\n"
        r"2 of kernel _add_kernel's signatures fit the arguments equally well" % line, text), text
    assert "int64" not in text
    # a readonly array and a 1-tuple spell as numba's repr does
    g = cuda.jit(["(Array(float64, 1, 'C', readonly=True), float32)",
                  "(Array(float64, 1, 'C', readonly=True), int16)"])(lambda a, x: None)
    a = np.zeros(1)
    a.flags.writeable = False
    with pytest.raises(errors.KernelArgumentError) as info:
        g[1, 1](a, 7)
    assert "(Array(float64, 1, 'C', True, aligned=True), int64):\n" in str(info.value), str(info.value)
    assert "\n(Array(float64, 1, 'C', True, aligned=True), int16) -> none" in str(info.value), str(info.value)


def test_a_device_function_whose_callee_failed_fails_with_it_without_a_cascade():
    @cuda.jit(device=True)
    def inner(x):
        return x + undefined_thing  # noqa: F821

    @cuda.jit(device=True)
    def outer(x):
        return inner(x) * 2

    @cuda.jit
    def k(a):
        a[0] = outer(3)

    with pytest.raises(errors.TypingError) as info:
        k[1, 1](np.zeros(1))
    text = str(info.value)
    assert text.count("error: ") == 1 and "error: NameError: name 'undefined_thing' is not defined" in text, text
    assert "note: During: resolving callee type: type(CUDADispatcher(<function inner>)): typing device function " \
           "'inner' for (int64) failed" in text, text
    assert "note: During: resolving callee type: type(CUDADispatcher(<function outer>)): typing device function " \
           "'outer' for (int64) failed" in text, text
    assert "cannot store none" not in text  # what outer's failure would have led to
