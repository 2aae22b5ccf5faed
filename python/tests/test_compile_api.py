"""numba-cuda's ahead-of-time compile API under kfront (kfront.cuda.compiler; numba.cuda.compile, compile_all,
compile_for_current_device, compile_ptx, compile_ptx_for_current_device and numba.cuda.compiler): the C ABI of
device functions (the value returned in func_retval0, the Python name or abi_info's abi_name), libNVVM's LTO-IR,
forced inlining, and numba-cuda's errors for what it refuses. Compiles only (libNVVM, no device)."""
import re
import sys

import pytest

from kfront import cuda, errors, types
from kfront._alias import install_numba_alias, uninstall_numba_alias
from kfront.types import float32, int32, int64, uint32

LTOIR_MAGIC = 0x7F4E43ED  # the first word of libNVVM's LTO-IR (numba-cuda's test_compiler checks it)


def add(x, y):
    return x + y


def _c_abi_function(ptx, name, bits):
    return re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b%d\s+func_retval0\)\s+%s\(" % (bits, re.escape(name)), ptx)


def test_c_abi_device_function_returns_its_value_under_its_name():
    ptx, resty = cuda.compile(add, int32(int32, int32))
    assert _c_abi_function(ptx, "add", 32) and resty == int32 and ".entry" not in ptx
    ptx, resty = cuda.compile(add, int64(int64, int64))
    assert _c_abi_function(ptx, "add", 64) and resty == int64
    ptx, resty = cuda.compile(add, (float32, float32))  # the return type inferred
    assert resty == float32 and ("add.rn.f32" in ptx or "add.f32" in ptx)


def test_abi_name_names_the_function():
    ptx, _ = cuda.compile(add, int32(int32, int32), abi="c", abi_info={"abi_name": "_Z4funcii"})
    assert _c_abi_function(ptx, "_Z4funcii", 32) and not re.search(r"\badd\(", ptx)
    ptx, _ = cuda.compile_ptx(lambda x: x, int32(int32), device=True, abi="c", abi_info={"abi_name": "blah"})
    assert _c_abi_function(ptx, "blah", 32)
    with pytest.raises(errors.KfrontError, match="not a function name"):
        cuda.compile(add, int32(int32, int32), abi_info={"abi_name": "2nd"})


def test_ltoir_output():
    code, resty = cuda.compile(add, int32(int32, int32), output="ltoir")
    assert isinstance(code, bytes) and int.from_bytes(code[:4], "little") == LTOIR_MAGIC and resty == int32
    codes, resty = cuda.compile_all(add, int32(int32, int32))  # compile_all: LTO-IR by default, in a list
    assert len(codes) == 1 and int.from_bytes(codes[0][:4], "little") == LTOIR_MAGIC and resty == int32

    def set_zero(a):
        a[0] = 0

    plain, resty = cuda.compile(set_zero, (float32[::1],), output="ltoir")
    forced, _ = cuda.compile(set_zero, (float32[::1],), output="ltoir", forceinline=True)
    assert resty == types.none and plain != forced  # forceinline marks the function alwaysinline


def test_kernels_and_ptx_for_the_current_device():
    def kern(r, x):
        r[0] = x

    ptx, resty = cuda.compile_ptx(kern, (float32[::1], float32))
    assert ".visible .entry" in ptx and ".visible .func" not in ptx and resty == types.none
    codes, resty = cuda.compile_all(kern, (float32[::1], float32), device=False, abi="numba", output="ptx")
    assert ".visible .entry" in codes[0] and resty == types.none
    cc = cuda.dispatcher.get_current_cc()
    for fn in (cuda.compile_for_current_device, cuda.compile_ptx_for_current_device):
        ptx, resty = fn(add, (float32, float32), device=True)
        assert ".target sm_%d%d" % cc in ptx and resty == float32


def test_numba_cudas_errors():
    def kern(x, y):
        return x[0] + y[0]

    with pytest.raises(TypeError, match="must have void return type"):
        cuda.compile_ptx(kern, (uint32[::1], uint32[::1]))
    with pytest.raises(TypeError, match="must have void return type"):
        cuda.compile_ptx(kern, uint32(uint32[::1], uint32[::1]))
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        cuda.compile_ptx(add, (int32, int32), abi="c")
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fastcall"):
        cuda.compile(add, (int32, int32), abi="fastcall")
    with pytest.raises(NotImplementedError, match="Unsupported output type: illegal"):
        cuda.compile(add, (int32, int32), output="illegal")
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile(add, (int32, int32), forceinline=True)
    with pytest.raises(ValueError, match="Got 4 launch bounds"):
        cuda.compile_ptx(lambda: None, "void()", launch_bounds=(128, 1, 1, 1))
    with pytest.raises(errors.UnsupportedError, match="architecture-specific targets begin at sm_90a"):
        cuda.compile_ptx(lambda: None, (), cc=(8, 6, "a"))
    with pytest.raises(errors.UnsupportedError, match="family-specific targets begin at sm_100f"):
        cuda.compile_ptx(lambda: None, (), cc=(9, 0, "f"))
    with pytest.raises(errors.UnsupportedError, match="give \\(major, minor\\)"):
        cuda.compile_ptx(lambda: None, (), cc=(9, 0, "b"))


def test_compile_ptx_arch_and_family_specific_targets():
    # as numba-cuda's compile_ptx: cc=(9, 0, "a") is sm_90a, cc=(10, 0, "f") sm_100f (libNVVM's -arch=compute_90a)
    ptx, _ = cuda.compile_ptx(lambda: None, (), cc=(9, 0, "a"))
    assert ".target sm_90a" in ptx
    ptx, _ = cuda.compile_ptx(lambda: None, (), cc=(10, 0, "f"))
    assert ".target sm_100f" in ptx
    ptx, _ = cuda.compile_ptx(lambda: None, (), cc=(9, 0))
    assert ".target sm_90\n" in ptx


def test_numba_cuda_compiler_module():
    saved = {k: v for k, v in sys.modules.items() if k == "numba" or k.startswith(("numba.", "numba_cuda"))}
    install_numba_alias(scope="numba")
    try:
        from numba.cuda.compiler import compile_ptx, compile_ptx_for_current_device  # noqa: F401
        from numba.cuda import compile, compile_all, compile_for_current_device  # noqa: F401
        import kfront.cuda.compiler as kc
        assert compile is kc.compile and compile_ptx is kc.compile_ptx and compile_all is kc.compile_all
    finally:
        uninstall_numba_alias()
        sys.modules.update(saved)


def test_compile_takes_launch_bounds():
    def kern(x):
        x[0] = 1

    ptx, _ = cuda.compile(kern, (int32[::1],), device=False, abi="numba", launch_bounds=(128, 2))
    assert ".maxntid 128, 1, 1" in ptx and ".minnctapersm 2" in ptx


def test_lambdas_whose_instructions_have_no_columns(monkeypatch):
    # CPython 3.12 compiles `lambda: None` to one RETURN_CONST without column positions, so a lambda's body cannot
    # be found by its instructions' span (kfront._capture._body_span is None there): the lambda of its line whose
    # text compiled alone gives its instructions is taken. Forced here for this Python too.
    from kfront import _capture
    monkeypatch.setattr(_capture, "_body_span", lambda code: None)
    none, one = (lambda: None), (lambda: 1)  # two on one line: told apart by their instructions
    assert ".target sm_90a" in cuda.compile_ptx(none, (), cc=(9, 0, "a"))[0]
    ptx, resty = cuda.compile_ptx(one, (), device=True)
    assert str(resty) == "int64" and "mov.u64" in ptx and "1;" in ptx


def test_debug_gives_dwarf_debug_information():
    # numba-cuda's test_compiler.test_kernel_with_debug / test_device_function_with_debug: a .debug_info section and
    # the .file of the source, from compile_ptx and compile_all, kernels and device functions; lineinfo alone none
    import re

    from kfront.cuda.compiler import compile_all, compile_ptx

    def f(x, y):
        return x + y

    def k(a):
        a[0] = a[1] * 2

    for fn, sig, device in ((f, (types.float64, types.float64), True), (k, (types.float64[:],), False)):
        ptx, _ = compile_ptx(fn, sig, device=device, debug=True, opt=False)
        assert re.search(r"\.section\s+\.debug_info", ptx) and re.search(r'\.file.*test_compile_api.py"', ptx)
        (ptx,), _ = compile_all(fn, sig, device=device, debug=True, opt=False, output="ptx",
                                abi="c" if device else "numba")
        assert re.search(r"\.section\s+\.debug_info", ptx)
        ptx, _ = compile_ptx(fn, sig, device=device, lineinfo=True)
        assert ".loc" in ptx and not re.search(r"\.section\s+\.debug_info", ptx)
