"""A complex element is addressed as numba-cuda's IR addresses it (the element, then its part), so libNVVM loads both
parts of a complex in a constant array as one vector, as numba-cuda 0.30.4's PTX does (its cudapy/test_constmem.py
test_const_array_3d: ld.const.v2.f32), and those in kfront's shared and local arrays; an array whose alignment is
not known (a kernel argument: NumPy aligns complex64 to 4 bytes only) keeps two scalar accesses."""
import re

import numpy as np

from kfront import cuda, types

CONST3D = (np.arange(5 * 5 * 5, dtype=np.complex64).reshape(5, 5, 5) + 1j) / 2j
CONST1D128 = np.arange(8, dtype=np.complex128) * (1 - 2j)


def cuconst3d(A):
    C = cuda.const.array_like(CONST3D)
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z
    A[i, j, k] = C[i, j, k]


def cuconst1d128(A):
    C = cuda.const.array_like(CONST1D128)
    i = cuda.threadIdx.x
    A[i] = C[i]


def test_const_complex64_loads_as_a_vector_and_runs():
    sig = (types.complex64[:, :, :],)
    k = cuda.jit(sig)(cuconst3d)
    A = np.zeros_like(CONST3D, order="F")
    k[1, (5, 5, 5)](A)
    assert np.all(A == CONST3D)
    ptx = k.inspect_asm(sig)
    assert re.search(r"ld\.const\.v2\.[bf]32", ptx)
    # the argument array's alignment is unknown: two scalar stores, never a vector one
    assert not re.search(r"st\.global\.v2", ptx) and re.search(r"st\.global\.f32", ptx)


def test_const_complex128_loads_as_a_vector_and_runs():
    sig = (types.complex128[::1],)
    k = cuda.jit(sig)(cuconst1d128)
    A = np.zeros(8, dtype=np.complex128)
    k[1, 8](A)
    assert np.all(A == CONST1D128)
    assert re.search(r"ld\.const\.v2\.f64", k.inspect_asm(sig))


def test_argument_complex_array_keeps_scalar_accesses():
    def copy(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = a[i] * 2

    sig = (types.complex64[::1], types.complex64[::1])
    ptx = cuda.jit(sig)(copy).inspect_asm(sig)
    assert not re.search(r"\.v2\.", ptx)
    llvm = cuda.jit(sig)(copy).inspect_llvm(sig)
    assert not re.search(r"(load|store) float.*align 8", llvm)  # the real part is not claimed 8-aligned


def test_shared_complex_array_round_trip():
    def kern(a, out):
        s = cuda.shared.array(32, dtype=types.complex64)
        i = cuda.threadIdx.x
        s[i] = a[i]
        cuda.syncthreads()
        out[i] = s[31 - i]

    a = (np.arange(32) + 1j * np.arange(32)[::-1]).astype(np.complex64)
    out = np.zeros_like(a)
    cuda.jit(kern)[1, 32](a, out)
    assert np.all(out == a[::-1])
    # kfront's own shared array is 16-aligned: each complex moves as one vector there, both parts in order
    ptx, _ = cuda.compile_ptx(kern, (types.complex64[::1], types.complex64[::1]))
    assert re.search(r"st\.shared\.v2\.f32", ptx) and re.search(r"ld\.shared\.v2\.f32", ptx)
