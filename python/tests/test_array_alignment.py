"""arr.ctypes.data in kernels and the alignment= of cuda.local.array / cuda.shared.array, as numba-cuda has them
(its cudapy/test_array_alignment.py): .ctypes is numba's ArrayCTypes, whose only attribute is .data, the address of
the array's first element as a uintp (for a local or shared array its generic address); alignment= is None or a
literal positive power of 2 that is a multiple of 8, the array's address then a multiple of it on the GPU and on the
simulator, and the LLVM global's or alloca's `align` that number; arr.ctypes passed to a foreign function's pointer
to its dtype is the data pointer."""
import itertools
import re

import numpy as np
import pytest

from kfront import cuda, errors

RECORD = np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=False)
DTYPES = [np.uint8, np.uint64, RECORD]


def _kernel(which, shape, dtype, alignment):
    @cuda.jit
    def f(loc, shrd, which):
        i = cuda.grid(1)
        if which == 0:
            local_array = cuda.local.array(shape=shape, dtype=dtype, alignment=alignment)
            if i == 0:
                loc[0] = local_array.ctypes.data
        else:
            shared_array = cuda.shared.array(shape=shape, dtype=dtype, alignment=alignment)
            if i == 0:
                shrd[0] = shared_array.ctypes.data
    return f


@pytest.mark.parametrize("which,shape,dtype,alignment",
                         list(itertools.product((0, 1), (1, 50, (2, 3), (1, 4, 5)), DTYPES, (16, 64, 256))))
def test_address_is_a_multiple_of_the_alignment(which, shape, dtype, alignment):
    f = _kernel(which, shape, dtype, alignment)
    loc = np.zeros(1, dtype=np.uint64)
    shrd = np.zeros(1, dtype=np.uint64)
    f[1, 1](loc, shrd, which)
    address = int(loc[0] if which == 0 else shrd[0])
    assert address != 0 and address % alignment == 0
    llvm = f.inspect_llvm(f.signatures[0])
    pattern = r"alloca \[.*\], align (\d+)" if which == 0 else r"addrspace\(3\) global \[.*\] undef, align (\d+)"
    assert re.findall(pattern, llvm) == [str(alignment)]


def test_shared_address_without_alignment_is_natural():
    f = _kernel(1, 7, np.float64, None)
    shrd = np.zeros(1, dtype=np.uint64)
    f[1, 1](np.zeros(1, dtype=np.uint64), shrd, 1)
    assert shrd[0] % 8 == 0
    (align,) = re.findall(r"addrspace\(3\) global \[7 x double\] undef, align (\d+)", f.inspect_llvm(f.signatures[0]))
    assert int(align) & (int(align) - 1) == 0 and int(align) >= 8


def test_ptx_carries_the_alignment():
    @cuda.jit("void(uint64[:])")
    def k(out):
        la = cuda.local.array((2, 3), dtype=np.uint8, alignment=256)
        sa = cuda.shared.array(5, dtype=np.uint8, alignment=128)
        la[0, 0] = 1
        sa[0] = 2
        out[0] = la.ctypes.data + sa.ctypes.data + la[0, 0] + sa[0]
    ptx = k.inspect_asm(k.signatures[0])
    assert re.search(r"\.local \.align 256 ", ptx) and re.search(r"\.shared \.align 128 \.b8 \S+\[5\]", ptx)


def test_ctypes_data_of_arguments_and_views():
    @cuda.jit
    def k(a, out):
        out[0] = a.ctypes.data
        out[1] = a[1].ctypes.data  # a view (a[1] of a 2-d array) is an array too
        c = a.ctypes  # an ArrayCTypes value bound to a name
        out[2] = c.data
    a = cuda.to_device(np.zeros((3, 4), dtype=np.float32))
    out = cuda.to_device(np.zeros(3, dtype=np.uint64))
    k[1, 1](a, out)
    base = a.__cuda_array_interface__["data"][0]
    assert out.copy_to_host().tolist() == [base, base + 16, base]


def test_ctypes_data_is_uintp():
    @cuda.jit
    def k(a, out):
        out[0] = a.ctypes.data
    kir = k.inspect_kir("void(float32[:], uint64[:])")
    assert re.search(r"mem\.addr\(%\w+\) : \(array<f32, 1, [AC]>\) -> \(u64\)", kir), kir


def test_ctypes_has_only_data():
    @cuda.jit
    def k(a, out):
        out[0] = a.ctypes.shape
    with pytest.raises(errors.TypingError, match=r"unknown attribute 'shape' of ArrayCTypes\(dtype=float32, ndim=1\) "
                                                 r"\(numba-cuda's has only \.data\)"):
        k[1, 1](np.zeros(1, np.float32), np.zeros(1, np.uint64))


@pytest.mark.parametrize("which", (0, 1))
@pytest.mark.parametrize("alignment,message", [(-1, "Alignment must be positive"), (0, "Alignment must be positive"),
                                               (3, "Alignment must be a power of 2"),
                                               (17, "Alignment must be a power of 2"),
                                               (4, "Alignment must be a multiple of 8"),
                                               ("1", "RequireLiteralValue: alignment must be a constant integer"),
                                               (1.5, "RequireLiteralValue: alignment must be a constant integer")])
def test_invalid_alignments(which, alignment, message):
    # numba-cuda: an integer its lowering refuses is a ValueError, another constant its typing's TypingError
    f = _kernel(which, 50, np.uint64, alignment)
    cls = ValueError if isinstance(alignment, int) else errors.TypingError
    with pytest.raises(cls, match=re.escape(message)) as e:
        f[1, 1](np.zeros(1, np.uint64), np.zeros(1, np.uint64), which)
    assert isinstance(e.value, errors.CompilerError)
    if cls is ValueError:
        assert isinstance(e.value, errors.CompileValueError) and e.value.kind == errors.KIND_VALUE
        assert e.value.line > 0  # located, as every compile error


def test_ctypes_passed_for_a_pointer_of_its_dtype():
    # numba-cuda's cast of an ArrayCTypes to CPointer(dtype): the data pointer (generic for a shared array)
    from kfront import float32, int32
    reduce = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)")

    def k(out, n):
        s = cuda.shared.array(16, dtype=np.float32)
        out[0] = reduce(out.ctypes, n) + reduce(s.ctypes, n)

    ptx, _ = cuda.compile_ptx(k, (float32[::1], int32))
    assert ptx.count("call.uni") == 2 and "cvta.shared.u64" in ptx

    def wrong_dtype(out, n):
        a = cuda.local.array(4, dtype=np.float64)
        out[0] = reduce(a.ctypes, n)

    with pytest.raises(errors.TypingError, match=r"must be float32\*, not ArrayCTypes\(dtype=float64, ndim=1\)"):
        cuda.compile_ptx(wrong_dtype, (float32[::1], int32))
