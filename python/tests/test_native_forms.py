"""The operations kfront compiles to numba-cuda's own PTX forms (native_forms.py says which and what they compute),
against their reference values: float16 arithmetic and comparisons rounded once in half, numba-cuda's casts between
float16 and the integers (a float16 rounds to the nearest integer), max / min of two floats as PTX's max.f32 (NaN
ignored, -0 below +0). This suite runs on the simulator and, in the GPU
run of python/tests, on the GPU: both must give the references bit for bit (test/gpu/python/
test_native_forms_vs_numba.py compares numba-cuda's results with them there)."""
import numpy as np

import native_forms as nf
from kfront import cuda


def launch(kernel, n, *args):
    kernel[(n + 127) // 128, 128](*args)


def test_fp16_arithmetic_and_comparisons():
    a, b = nf.half_operands()
    n = nf.int8_operands(a.size)
    out, flags = np.zeros((a.size, 7), np.float16), np.zeros((a.size, 7), np.bool_)
    launch(nf.compile_source(cuda, nf.FP16_ARITH, "fp16_arith"), a.size, out, flags, a, b, n)
    want, want_flags = nf.fp16_arith_reference(a, b, n)
    for col in range(out.shape[1]):
        ok = nf.same_bits(out[:, col], want[:, col])
        assert ok.all(), (col, a[~ok][:4], b[~ok][:4], out[~ok, col][:4], want[~ok, col][:4])
    np.testing.assert_array_equal(flags, want_flags)


def test_fp16_sum_and_product_alone():
    """The forms without a rounding modifier compute what the .rn ones do."""
    a, b = nf.half_operands(seed=8)
    sums, prods = np.zeros((a.size, 2), np.float16), np.zeros(a.size, np.float16)
    launch(nf.compile_source(cuda, nf.FP16_SUM_ALONE, "fp16_sum_alone"), a.size, sums, a, b)
    launch(nf.compile_source(cuda, nf.FP16_PRODUCT_ALONE, "fp16_product_alone"), a.size, prods, a, b)
    with np.errstate(all="ignore"):
        assert nf.same_bits(sums[:, 0], a + b).all()
        assert nf.same_bits(sums[:, 1], a - b).all()
        assert nf.same_bits(prods, a * b).all()


def cast_operands():
    h = np.array([0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.7, -2.7, 12.3, -12.3, 127.5, 128.0, -128.5, -129.0,
                  255.5, 256.0, 300.0, -300.0, 32767.0, 40000.0, 65504.0, -65504.0, np.inf, -np.inf, np.nan, 6e-8,
                  -6e-8, 1023.5, 1024.5], np.float16)
    rng = np.random.default_rng(3)
    h = np.concatenate([h, (rng.standard_normal(200) * 2.0 ** rng.integers(-3, 16, 200)).astype(np.float16)])
    n = h.size
    i8, u8 = rng.integers(-128, 128, n).astype(np.int8), rng.integers(0, 256, n).astype(np.uint8)
    i16 = rng.integers(-2 ** 15, 2 ** 15, n).astype(np.int16)
    u32 = rng.integers(0, 2 ** 32, n).astype(np.uint32)
    i64 = np.concatenate([[2049, 2051, -2051, 65519, 65520, -65520, 2 ** 62, -2 ** 63],
                          rng.integers(-70000, 70000, n - 8)]).astype(np.int64)
    u64 = np.concatenate([np.array([2049, 4097, 65519, 65520, 2 ** 64 - 1], np.uint64),
                          rng.integers(0, 70000, n - 5).astype(np.uint64)])
    return h, i8, u8, i16, u32, i64, u64


def test_fp16_casts_round_to_nearest():
    """np.int8(h) ... int(h) of a float16 round to nearest even and saturate (numba-cuda's cvt.rni.s8.f16 ...);
    the integers to float16 round once."""
    args = cast_operands()
    h = args[0]
    ints, halves = np.zeros((h.size, 9), np.int64), np.zeros((h.size, 6), np.float16)
    launch(nf.compile_source(cuda, nf.FP16_CASTS, "fp16_casts"), h.size, ints, halves, *args)
    want_ints, want_halves = nf.fp16_casts_reference(*args)
    for col, t in enumerate(nf.FP16_CAST_TYPES):
        got = ints[:, col].astype(t)  # the kernel stored the typed value sign- or zero-extended
        want = np.array(list(want_ints[:, col]), t)
        ok = got == want
        assert ok.all(), (t.__name__, h[~ok][:5], got[~ok][:5], want[~ok][:5])
    assert (ints[h == np.float16(2.5), 0] == 2).all() and (ints[h == np.float16(2.7), 8] == 3).all()
    for col in range(halves.shape[1]):
        ok = nf.same_bits(halves[:, col], want_halves[:, col])
        assert ok.all(), (col, halves[~ok, col][:5], want_halves[~ok, col][:5])


def test_fp16_rz_intrinsic_still_truncates():
    """cuda.fp16.__half2int_rz is toward zero; floor and ceil of a float16 convert as the integral float16 they are."""
    @cuda.jit
    def k(out, h):
        i = cuda.grid(1)
        if i < h.size:
            out[i, 0] = cuda.fp16.__half2int_rz(h[i])
            out[i, 1] = np.int64(cuda.fp16.hfloor(h[i]))
            out[i, 2] = np.int64(cuda.fp16.hceil(h[i]))

    h = np.array([2.7, -2.7, 2.5, -0.5, 1000.5], np.float16)
    out = np.zeros((h.size, 3), np.int64)
    k[1, 32](out, h)
    np.testing.assert_array_equal(out, [[2, 2, 3], [-2, -3, -2], [2, 2, 3], [0, -1, 0], [1000, 1000, 1001]])


def test_minmax_of_two_floats_is_ieee():
    a, b, h, g = nf.minmax_operands()
    out = np.zeros((a.size, 8), np.float64)
    launch(nf.compile_source(cuda, nf.MINMAX, "minmax"), a.size, out, a, b)
    want = nf.minmax_reference(a, b)
    for col in range(out.shape[1]):
        ok = nf.same_bits(out[:, col], want[:, col])
        assert ok.all(), (col, a[~ok][:4], b[~ok][:4], out[~ok, col][:4], want[~ok, col][:4])
    nan_one = np.isnan(a) & ~np.isnan(b)
    assert (out[nan_one, 0] == b[nan_one]).all()  # max(nan, y) is y (Python's: nan)
    assert np.isnan(out[nan_one, 5]).all()  # max(nan, y, y): Python's algorithm
    halves = np.zeros((h.size, 2), np.float16)
    launch(nf.compile_source(cuda, nf.MINMAX_HALF, "minmax_half"), h.size, halves, h, g)
    assert nf.same_bits(halves, nf.minmax_half_reference(h, g)).all()
