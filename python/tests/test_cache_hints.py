"""cuda.ldca, ldcg, ldcs, ldlu, ldcv (loads) and cuda.stcg, stcs, stwb, stwt (stores) as numba-cuda 0.30 has them: the
element a[i] read or written with a PTX cache operator (ld.global.<op>.b<N>, st.global.<op>.b<N>), a plain access on
the simulator, with numba-cuda's index and dtype checks (TypingError, its messages)."""
import re

import numpy as np
import pytest

from kfront import cuda, errors, types

LOADS = [(cuda.ldca, "ca"), (cuda.ldcg, "cg"), (cuda.ldcs, "cs"), (cuda.ldlu, "lu"), (cuda.ldcv, "cv")]
STORES = [(cuda.stcg, "cg"), (cuda.stcs, "cs"), (cuda.stwb, "wb"), (cuda.stwt, "wt")]
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16, np.float32,
          np.float64]


def _load_kernels(op):
    @cuda.jit
    def load1(r, x):
        for i in range(len(r)):
            r[i] = op(x, i)

    @cuda.jit
    def load2(r, x):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                r[i, j] = op(x, (i, j))

    return load1, load2


def _store_kernels(op):
    @cuda.jit
    def store1(r, x):
        for i in range(len(r)):
            op(r, i, x[i])

    @cuda.jit
    def store2(r, x):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                op(r, (i, j), x[i, j])

    return store1, store2


@pytest.mark.parametrize("op,modifier", LOADS)
def test_loads(op, modifier):
    load1, load2 = _load_kernels(op)
    for dt in DTYPES:
        bits = np.dtype(dt).itemsize * 8
        x = np.arange(5).astype(dt)
        r = np.zeros_like(x)
        load1[1, 1](r, x)
        np.testing.assert_equal(r, x)
        assert "ld.global.%s.b%d" % (modifier, bits) in load1.inspect_asm(load1.signatures[-1])
        x2 = np.arange(12).reshape(3, 4).astype(dt)
        r2 = np.zeros_like(x2)
        load2[1, 1](r2, x2)
        np.testing.assert_equal(r2, x2)
        assert "ld.global.%s.b%d" % (modifier, bits) in load2.inspect_asm(load2.signatures[-1])


@pytest.mark.parametrize("op,modifier", STORES)
def test_stores(op, modifier):
    store1, store2 = _store_kernels(op)
    for dt in DTYPES:
        bits = np.dtype(dt).itemsize * 8
        x = np.arange(5).astype(dt)
        r = np.zeros_like(x)
        store1[1, 1](r, x)
        np.testing.assert_equal(r, x)
        assert "st.global.%s.b%d" % (modifier, bits) in store1.inspect_asm(store1.signatures[-1])
        x2 = np.arange(12).reshape(3, 4).astype(dt)
        r2 = np.zeros_like(x2)
        store2[1, 1](r2, x2)
        np.testing.assert_equal(r2, x2)
        assert "st.global.%s.b%d" % (modifier, bits) in store2.inspect_asm(store2.signatures[-1])


def test_hinted_accesses_index_as_subscripts_do():
    """Negative indices wrap, views and strided arrays work, an index out of range is the IndexError a[i] raises,
    and a stored value converts to the dtype."""
    @cuda.jit
    def k(r, x):
        cuda.stwb(r, -1, cuda.ldcs(x, -2))
        cuda.stcg(r, 0, 2.75)
        cuda.stcs(r[1:3], 0, cuda.ldca(x[::2], 1))

    x = np.arange(6, dtype=np.int32)
    r = np.zeros(4, np.int32)
    k[1, 1](r, x)
    assert list(r) == [2, 2, 0, 4]

    @cuda.jit
    def oob(x):
        cuda.ldcg(x, 7)

    with pytest.raises(IndexError):
        oob[1, 1](np.zeros(4, np.float32))


def _compile_error(fn, sig):
    with pytest.raises(errors.TypingError) as e:
        cuda.compile_ptx(fn, sig)
    return e.value.message


def test_bad_indices_and_dtypes_are_numba_cudas_typing_errors():
    def float_index(x):
        cuda.ldcs(x, 1.0)

    def too_long(x):
        cuda.ldcs(x, (1, 2))

    def scalar_for_2d(x):
        cuda.ldcs(x, 1)

    def short_tuple(x):
        cuda.ldcs(x, (1,))

    def mixed_tuple(x):
        cuda.stwt(x, (1, np.int32(0)), 1.0)

    def complex_load(r, x):
        r[0] = cuda.ldcs(x, 0)

    def bool_store(x):
        cuda.stcg(x, 0, True)

    def not_an_array(x):
        cuda.ldca(x, 0)

    assert _compile_error(float_index, (types.float32[::1],)) == "float64 is not a valid index"
    assert _compile_error(too_long, (types.float32[::1],)) == "Expected 1 indices, got 2"
    assert _compile_error(scalar_for_2d, (types.float32[:, ::1],)) == "Expected 2 indices, got a scalar"
    assert _compile_error(short_tuple, (types.float32[:, ::1],)) == "Expected 2 indices, got 1"
    assert re.fullmatch(r"Tuple\(int64, int32\) is not a valid index", _compile_error(mixed_tuple, (types.float32[:, ::1],)))
    c64 = types.complex64[::1]
    assert _compile_error(complex_load, (c64, c64)) == "ldcs requires array of integer or float type, got complex64"
    assert _compile_error(bool_store, (types.boolean[::1],)) == "stcg requires array of integer or float type, got bool"
    assert _compile_error(not_an_array, (types.float32,)) == "ldca operates on arrays or pointers. Got type float32"


def test_the_hint_survives_the_optimiser_and_stays_off_non_global_memory():
    """An unrolled loop keeps every access hinted; tile-shared stages no hinted load in shared memory; a hint on a
    shared array is a plain shared access (PTX has no cache operator there)."""
    @cuda.jit
    def unrolled(r, x):
        for i in range(4):
            cuda.stwt(r, i, cuda.ldcv(x, i) + 1)

    ptx = unrolled.inspect_asm("void(float32[::1], float32[::1])")
    assert ptx.count("ld.global.cv.b32") == 4 and ptx.count("st.global.wt.b32") == 4

    @cuda.jit
    def matmul(a, b, c):
        i, j = cuda.grid(2)
        if i < c.shape[0] and j < c.shape[1]:
            acc = 0.0
            for k in range(a.shape[1]):
                acc += cuda.ldcg(a, (i, k)) * cuda.ldcg(b, (k, j))
            c[i, j] = acc

    sig = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"
    assert "__tiled" not in matmul.inspect_kir(sig) and "ld.global.cg.b32" in matmul.inspect_asm(sig)

    @cuda.jit
    def shared(r):
        s = cuda.shared.array(32, np.float32)
        cuda.stcs(s, cuda.threadIdx.x, 1.5)
        cuda.syncthreads()
        r[cuda.threadIdx.x] = cuda.ldcs(s, 31 - cuda.threadIdx.x)

    r = np.zeros(32, np.float32)
    shared[1, 32](r)
    assert (r == 1.5).all()
    ptx = shared.inspect_asm(shared.signatures[0])
    assert ".cs." not in ptx and "st.shared" in ptx and "ld.shared" in ptx
