"""Dispatchers where numba-cuda 0.30.4's test_dispatcher found kfront apart: the words of its errors for arguments
no declared signature takes (a kernel's "No matching definition for argument type(s) ...", a device function's
"Invalid use of type(...) with parameters (...)"), specialize() given types instead of values, and
cuda.jit(shared_memory_carveout=...), checked at decoration with numba-cuda's messages (the percent reaches the
driver on a GPU: test/gpu; the simulator has no L1 to split); a device function's compile_device(argtypes,
return_type=None) and its refusal of inspect_sass (numba-cuda's test_device_func)."""
import numpy as np
import pytest

from kfront import cuda, errors
from kfront.types import float32, int32, int64, float64


def add_kernel(r, x, y):
    r[0] = x + y


def test_no_matching_definition_names_the_argument_types_and_the_signatures():
    f = cuda.jit(["(int64[::1], int64, int64)", "(float64[::1], float64, float64)"])(add_kernel)
    with pytest.raises(TypeError) as e:
        f[1, 1](np.zeros(1, dtype=np.complex128), 1j, 1j)
    text = str(e.value)
    assert "No matching definition for argument type(s) complex128[::1], complex128, complex128" in text
    assert "void(int64[::1], int64, int64)" in text and "void(float64[::1], float64, float64)" in text
    assert len(f.overloads) == 2


def test_a_device_function_without_a_fitting_signature_is_an_invalid_use_of_its_type():
    add = cuda.jit(["(int64, int64)", "(float64, float64)"], device=True)(lambda x, y: x + y)

    @cuda.jit
    def k(r, x, y):
        r[0] = add(x, y)

    with pytest.raises(errors.TypingError) as e:
        k[1, 1](np.zeros(1, dtype=np.complex128), 1j, 1j)
    assert "Invalid use of type" in str(e.value)
    assert "with parameters (complex128, complex128)" in str(e.value)


def test_specialize_takes_types():
    @cuda.jit
    def f(x, y):
        pass

    c = f.specialize(float32[::1], int32[:, ::1])
    assert f.specialize(float32[::1], int32[:, ::1]) is c
    a = f.specialize(float32[:], int32[:, ::1])
    assert a is not c and len(f.specializations) == 2
    assert c.signatures == [(float32[::1], int32[:, ::1])]
    assert a.signatures == [(float32[:], int32[:, ::1])]
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        c.specialize(float32[::1], int32[:, ::1])


@pytest.mark.parametrize("value, cls, words", [
    (150, ValueError, "must be between -1 and 100"),
    (-2, ValueError, "must be between -1 and 100"),
    ("InvalidOption", ValueError, "Invalid carveout value: InvalidOption"),
    (1.5, TypeError, "shared_memory_carveout must be str or int, got float"),
])
def test_bad_carveouts_are_refused_at_decoration(value, cls, words):
    with pytest.raises(cls, match=words):
        cuda.jit(shared_memory_carveout=value)(add_kernel)
    with pytest.raises(cls, match=words):
        cuda.jit("void(int64[::1], int64, int64)", shared_memory_carveout=value)(add_kernel)


@pytest.mark.parametrize("value, percent", [("MaxL1", 0), ("MaxShared", 100), ("default", -1), (0, 0), (50, 50),
                                            (100, 100), (-1, -1)])
def test_kernels_with_a_carveout_launch(value, percent):
    k = cuda.jit(shared_memory_carveout=value)(add_kernel)
    assert k.targetoptions["shared_memory_carveout"] == percent
    r = np.zeros(1, dtype=np.int64)
    k[1, 1](r, 2, 3)
    assert r[0] == 5
    ks = cuda.jit("void(float64[::1], float64, float64)", shared_memory_carveout=value)(add_kernel)
    rf = np.zeros(1)
    ks[1, 1](rf, 1.5, 2.0)
    assert rf[0] == 3.5


def test_a_device_function_cannot_be_launched():
    f = cuda.jit(device=True)(lambda: None)
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        f[1, 1]()


def _store_big(ary):
    i = cuda.grid(1)
    if i < ary.size:
        ary[i] = i + 4000000000


def test_one_declared_signature_launches_an_array_of_the_elements_size_as_its_dtype():
    # numba-cuda's specialized dispatcher (one signature, not a list) launches its kernel without typing the
    # arguments: its test_warp_ops test_vote_sync_const_mode_val passes an int32 array to a uint32[:] kernel
    k = cuda.jit("void(uint32[:])")(_store_big)
    a = np.zeros(4, dtype=np.int32)
    k[1, 4](a)
    assert a.view(np.uint32).tolist() == [4000000000, 4000000001, 4000000002, 4000000003]
    s = np.zeros(8, dtype=np.int32)
    k[1, 4](s[::2])  # layout A takes a strided one
    assert s.view(np.uint32)[::2].tolist() == [4000000000, 4000000001, 4000000002, 4000000003]
    assert s[1::2].tolist() == [0, 0, 0, 0]
    # another width, a float array of the width, another rank or a layout the parameter does not take is still no
    # matching definition (numba-cuda would read a float array's bytes as integers: garbage)
    for bad in (np.zeros(4, np.int64), np.zeros(4, np.float32), np.zeros((2, 2), np.int32)):
        with pytest.raises(errors.KernelArgumentError, match="No matching definition for argument type"):
            k[1, 4](bad)
    c = cuda.jit("void(uint32[::1])")(_store_big)
    with pytest.raises(errors.KernelArgumentError, match=r"No matching definition for argument type\(s\) int32\[:\]"):
        c[1, 4](s[::2])
    # a list of one signature is typed at each launch (numba-cuda: not specialized)
    listed = cuda.jit(["void(uint32[:])"])(_store_big)
    with pytest.raises(errors.KernelArgumentError, match=r"No matching definition for argument type\(s\) int32\[::1\]"):
        listed[1, 4](a)


def _device_foo():
    @cuda.jit(device=True)
    def foo(x, y):
        return x + y
    return foo


def test_compile_device_gives_the_symbol_of_the_llvm_and_the_ptx():
    # numba-cuda's test_inspect_llvm and test_inspect_asm
    foo = _device_foo()
    args = (int32, int32)
    cres = foo.compile_device(args)
    fname = cres.fndesc.mangled_name
    assert "foo" in fname and fname == cres.fndesc.llvm_func_name
    assert fname in foo.inspect_llvm(args)
    assert fname in foo.inspect_asm(args)
    assert cres.signature.return_type == int64 and cres.signature.args == args  # numba's typing: int32 + int32
    assert foo.compile_device(args) is cres and foo.overloads[args] is cres and foo.overloads["(int32, int32)"] is cres


def test_compile_device_with_a_return_type():
    foo = _device_foo()
    cres = foo.compile_device((float64, float64), return_type=float32)
    assert str(cres.signature) == "float32(float64, float64)"
    assert list(foo.overloads) == [(float64, float64)]


def test_compile_device_raises_the_typing_error():
    @cuda.jit(device=True)
    def bad(x):
        return x.nope
    with pytest.raises(errors.TypingError, match="unknown attribute 'nope'"):
        bad.compile_device((int32,))
    assert not bad.overloads


def test_compile_device_of_a_kernel_is_refused():
    k = cuda.jit(add_kernel)
    with pytest.raises(TypeError, match="compile_device compiles device functions"):
        k.compile_device((int64[::1], int64, int64))


def test_inspect_sass_of_a_device_function_is_refused():
    # numba-cuda's test_inspect_sass_disallowed
    foo = _device_foo()
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        foo.inspect_sass((int32, int32))
    with pytest.raises(RuntimeError, match="Cannot get the CFG of a device function"):
        foo.inspect_sass_cfg((int32, int32))


def test_inspect_sass_of_a_kernel_says_kfront_has_no_disassembler():
    k = cuda.jit("void(int64[::1], int64, int64)")(add_kernel)
    with pytest.raises(errors.UnsupportedError, match="kfront does not disassemble cubins"):
        k.inspect_sass()


def test_overloads_hold_numba_cudas_kernel_objects_with_their_inspect_methods():
    @cuda.jit
    def scale(a, x):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= x

    scale[1, 4](np.ones(4, np.float32), np.float32(2))
    scale[1, 4](np.ones(4), 2.0)
    assert len(scale.overloads) == 2
    for args, k in scale.overloads.items():
        assert k is scale.overloads[args]  # the same object each time
        assert "define" in k.inspect_llvm() and ".entry" in k.inspect_asm()
        assert k.inspect_llvm() == scale.inspect_llvm(args)
        assert ".target sm_80" in k.inspect_asm((8, 0))
        assert not k.cooperative and k.signature == scale.overloads[args].signature
    unoptimised = cuda.jit(scale.py_func, lto=False)  # (the default is on where nvJitLink is found)
    unoptimised[1, 4](np.ones(4), 2.0)
    with pytest.raises(RuntimeError, match="LTO is not enabled"):
        next(iter(unoptimised.overloads.values())).inspect_lto_ptx()
