"""GPU-only: datetime64 and timedelta64 in kfront against numba-cuda on the same kernels and inputs (run by
test/gpu/run_python_gpu.sh on the GPU machine, where both are installed): copies, arithmetic and comparisons across
units (years and months meeting days through the calendar), NaT, timedeltas with numbers, timedelta / timedelta,
-, abs, np.isnat, max/min, int(), scalar arguments; and bytes and str items (NumPy's S and U: assignment of
constants and items, len, comparisons, truth, a bytes item's codes); every output compared bit for bit. The same
kernels run against NumPy on the simulator in python/tests/test_datetime_bytes.py and test_bytes_str.py."""
import linecache
import os

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np

from kfront import cuda as kcuda

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

ARITH = """
def arith(d, s, m, y, td, ts, o_td, o_ts, o_dd, o_ds, of, ob, oi):
    i = cuda.grid(1)
    if i < d.shape[0]:
        o_td[i, 0] = d[i] - d[(i + 1) % d.shape[0]]
        o_ts[i, 0] = d[i] - s[i]
        o_ds[i, 0] = d[i] + ts[i]
        o_ds[i, 1] = ts[i] + d[i]
        o_dd[i, 0] = d[i] - td[i]
        o_ts[i, 1] = td[i] + ts[i]
        o_ts[i, 2] = ts[i] - td[i]
        o_td[i, 1] = td[i] * 3
        o_td[i, 2] = 2 * td[i]
        o_td[i, 3] = td[i] * 1.5
        o_td[i, 4] = td[i] / 2
        o_td[i, 5] = td[i] // 2
        o_td[i, 6] = td[i] / 0.5
        o_td[i, 7] = -td[i]
        o_td[i, 8] = abs(td[i])
        o_td[i, 9] = m[i] - d[i]
        o_td[i, 10] = y[i] - d[i]
        o_td[i, 11] = max(td[i], td[(i + 1) % d.shape[0]])
        o_td[i, 12] = min(td[i], td[(i + 2) % d.shape[0]])
        o_td[i, 13] = td[i] / 0
        of[i, 0] = td[i] / ts[i]
        of[i, 1] = ts[i] / td[i]
        ob[i, 0] = d[i] < s[i]
        ob[i, 1] = d[i] == s[i]
        ob[i, 2] = d[i] != s[i]
        ob[i, 3] = td[i] >= ts[i]
        ob[i, 4] = m[i] <= d[i]
        ob[i, 5] = y[i] > d[i]
        ob[i, 6] = np.isnat(d[i])
        ob[i, 7] = np.isnat(td[i])
        oi[i] = int(td[i])
"""

SCALAR = """
def scalar(d, o, t):
    i = cuda.grid(1)
    if i < d.shape[0]:
        o[i] = d[i] + t
"""


def _compile(jit, src, name):
    path = "<datetime-gpu-%s>" % name
    linecache.cache[path] = (len(src), None, src.splitlines(True), path)
    ns = {"cuda": kcuda if jit is kcuda.jit else ncuda, "np": np}
    exec(compile(src, path, "exec"), ns)
    return jit(ns[name])


def _inputs():
    rng = np.random.default_rng(7)
    n = 64
    nat = np.iinfo(np.int64).min
    d = rng.integers(-200000, 200000, n).astype(np.int64)
    d[::9] = nat
    s = d * 86400 + rng.integers(-100000, 100000, n)
    s[::9] = nat
    s[5::11] = nat
    m = rng.integers(-6000, 6000, n)
    y = rng.integers(-500, 500, n)
    td = rng.integers(-1000, 1000, n)
    td[3::7] = nat
    td[::13] = 0
    ts = rng.integers(-10 ** 7, 10 ** 7, n)
    ts[2::10] = nat
    return (d.view("M8[D]"), s.view("M8[s]"), m.view("M8[M]"), y.view("M8[Y]"), td.view("m8[D]"), ts.view("m8[s]"))


def _outputs(n):
    return (np.zeros((n, 14), "m8[D]"), np.zeros((n, 3), "m8[s]"), np.zeros((n, 1), "M8[D]"), np.zeros((n, 2), "M8[s]"),
            np.zeros((n, 2)), np.zeros((n, 8), np.bool_), np.zeros(n, np.int64))


def test_datetime_kernels_match_numba_cuda():
    ins = _inputs()
    results = []
    for jit in (kcuda.jit, ncuda.jit):
        k = _compile(jit, ARITH, "arith")
        outs = _outputs(ins[0].shape[0])
        with np.errstate(all="ignore"):
            k[2, 32](*ins, *outs)
        results.append(outs)
    for a, b in zip(*results):
        assert a.dtype == b.dtype
        assert a.tobytes() == b.tobytes() or (a.dtype.kind == "f" and np.array_equal(a, b, equal_nan=True))


def test_datetime_scalar_argument_matches_numba_cuda():
    d = _inputs()[0]
    outs = []
    for jit in (kcuda.jit, ncuda.jit):
        o = np.zeros(d.shape, "M8[h]")
        _compile(jit, SCALAR, "scalar")[2, 32](d, o, np.timedelta64(-7, "h"))
        outs.append(o)
    assert outs[0].tobytes() == outs[1].tobytes()


CHARS = """
def chars(a, b, s, out, codes):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = len(a[i])
        out[i, 1] = a[i] == b[i]
        out[i, 2] = a[i] < b[i]
        out[i, 3] = a[i] >= b[i]
        out[i, 4] = a[i] != "ab"
        out[i, 5] = 1 if a[i] else 0
        codes[i] = s[i][0] if len(s[i]) > 0 else 0
        x = b[i]
        if i % 2 == 0:
            a[i] = "XYZ"
        b[i] = "Q"
        out[i, 6] = len(s[i]) + (s[i] > b"ab") + 10 * len(x)
        s[i] = b"0123456789"
"""


def test_bytes_and_str_items_match_numba_cuda():
    words = ["ab", "hello", "", "xyz", "a\x00b", "b", "abc", "\u00e9t\u00e9"] * 8
    results = []
    for jit in (kcuda.jit, ncuda.jit):
        a, b = np.array(words, "U6"), np.array(words[::-1], "U3")
        s = np.array([w.encode("utf-8")[:5] for w in words], "S5")
        out, codes = np.zeros((len(words), 7), np.int64), np.zeros(len(words), np.uint32)
        _compile(jit, CHARS, "chars")[2, 32](a, b, s, out, codes)
        results.append((a, b, s, out, codes))
    for x, y in zip(*results):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()
