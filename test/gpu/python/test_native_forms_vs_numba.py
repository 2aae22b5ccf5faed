"""GPU-only: the operations kfront compiles to numba-cuda's own PTX forms, against numba-cuda on the same kernels and
inputs and against their reference values (python/tests/native_forms.py; python/tests/test_native_forms.py checks
kfront alone, on the simulator and on the GPU): float16 +, -, *, negation, abs and comparisons in half, numba-cuda's
casts between float16 and the integers (to nearest even: cvt.rni.s8.f16 ...), max / min of two floats (libdevice's
fmax: NaN ignored, -0 below +0) and of more values (Python's algorithm). kfront must give the references bit
for bit and numba-cuda's results (a NaN: any NaN; the sign and payload of -NaN and abs(NaN) printed where they
differ, PTX leaving them open). Run by test/gpu/run_python_gpu.sh."""
import os
import sys

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np

from kfront import cuda as kcuda

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python", "tests"))
import native_forms as nf  # noqa: E402
import test_native_forms as tnf  # noqa: E402

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2


def run_both(src, name, n, make_args):
    """The kernel compiled by numba-cuda and by kfront, each run on fresh arguments: their arguments after."""
    outs = []
    for module in (ncuda, kcuda):
        args = make_args()
        nf.compile_source(module, src, name)[(n + 127) // 128, 128](*args)
        outs.append(args)
    return outs


def nan_bits_note(what, numba_col, kf_col):
    nan = np.isnan(numba_col) & np.isnan(kf_col)
    diff = nan & (numba_col.view(np.uint16) != kf_col.view(np.uint16))
    if diff.any():
        print("native-forms-vs-numba: %s: NaN bits differ in %d of %d NaNs (numba-cuda %s, kfront %s)"
              % (what, diff.sum(), nan.sum(), hex(int(numba_col.view(np.uint16)[diff][0])),
                 hex(int(kf_col.view(np.uint16)[diff][0]))))


def test_fp16_arithmetic_matches_numba():
    a, b = nf.half_operands()
    n = nf.int8_operands(a.size)
    nb, kf = run_both(nf.FP16_ARITH, "fp16_arith", a.size,
                      lambda: [np.zeros((a.size, 7), np.float16), np.zeros((a.size, 7), np.bool_), a, b, n])
    want, want_flags = nf.fp16_arith_reference(a, b, n)
    names = ["x + y", "x - y", "x * y", "-x", "abs(x)", "float16(int8)", "x * y + z"]
    for col, what in enumerate(names):
        ok = nf.same_bits(kf[0][:, col], want[:, col])
        assert ok.all(), (what, a[~ok][:4], b[~ok][:4], kf[0][~ok, col][:4], want[~ok, col][:4])
        same = nf.same_bits(nb[0][:, col], kf[0][:, col])
        if col == 6 and not same.all():  # numba-cuda's product has another use: libNVVM and ptxas may not fuse
            with np.errstate(all="ignore"):
                unfused = nf.same_bits(nb[0][:, col], a * b + b[::-1])
            assert (same | unfused).all(), (what, a[~(same | unfused)][:4])
            print("native-forms-vs-numba: x * y + z: numba-cuda rounds the product first in %d of %d values"
                  % ((~same).sum(), a.size))
            continue
        assert same.all(), (what, a[~same][:4], b[~same][:4], nb[0][~same, col][:4], kf[0][~same, col][:4])
        nan_bits_note(what, nb[0][:, col], kf[0][:, col])
    np.testing.assert_array_equal(kf[1], want_flags)
    np.testing.assert_array_equal(kf[1], nb[1])


def test_fp16_sum_and_product_alone_match_numba():
    a, b = nf.half_operands(seed=8)
    for src, name, shape in ((nf.FP16_SUM_ALONE, "fp16_sum_alone", (a.size, 2)),
                             (nf.FP16_PRODUCT_ALONE, "fp16_product_alone", (a.size,))):
        nb, kf = run_both(src, name, a.size, lambda: [np.zeros(shape, np.float16), a, b])
        ok = nf.same_bits(nb[0], kf[0])
        assert ok.all(), (name, np.argwhere(~ok)[:4])


def test_fp16_casts_match_numba():
    args = tnf.cast_operands()
    h = args[0]
    nb, kf = run_both(nf.FP16_CASTS, "fp16_casts", h.size,
                      lambda: [np.zeros((h.size, 9), np.int64), np.zeros((h.size, 6), np.float16)] + list(args))
    for col, t in enumerate(nf.FP16_CAST_TYPES):
        g, w = kf[0][:, col].astype(t), nb[0][:, col].astype(t)
        ok = g == w
        assert ok.all(), ("float16 -> %s" % t.__name__, h[~ok][:5], g[~ok][:5], w[~ok][:5])
    ok = nf.same_bits(kf[1], nb[1])
    assert ok.all(), ("int -> float16", np.argwhere(~ok)[:5])


def test_minmax_matches_numba():
    a, b, h, g = nf.minmax_operands()
    nb, kf = run_both(nf.MINMAX, "minmax", a.size, lambda: [np.zeros((a.size, 8), np.float64), a, b])
    want = nf.minmax_reference(a, b)
    for col in range(want.shape[1]):
        ok = nf.same_bits(kf[0][:, col], want[:, col])
        assert ok.all(), (col, a[~ok][:4], b[~ok][:4], kf[0][~ok, col][:4], want[~ok, col][:4])
        ok = nf.same_bits(nb[0][:, col], kf[0][:, col])
        assert ok.all(), (col, a[~ok][:4], b[~ok][:4], nb[0][~ok, col][:4], kf[0][~ok, col][:4])


def test_minmax_float16_matches_numba():
    a, b, h, g = nf.minmax_operands()
    nb, kf = run_both(nf.MINMAX_HALF, "minmax_half", h.size, lambda: [np.zeros((h.size, 2), np.float16), h, g])
    ok = nf.same_bits(nb[0], kf[0])
    assert ok.all(), (h[~ok.all(axis=1)][:4], g[~ok.all(axis=1)][:4])
