"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): CUDA vector types (constructors from scalars and smaller vectors, fields, device
functions), operator.* passed in as closure variables (numba-cuda's test_operator.py does so), slices with steps
known at run time, and arrays assigned to slices (numba-cuda compiles those only with its NRT, turned on for them
here; both are also checked against NumPy); the run-time errors of each (a zero step, a shape mismatch) on the GPU."""
import linecache
import operator
import os

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


VECTORS = """
@cuda.jit(device=True)
def rotate(v, c, s):
    return cuda.float32x2(c * v.x - s * v.y, s * v.x + c * v.y)


def vectors(pts, out, c, s):
    i = cuda.grid(1)
    if i < pts.shape[0]:
        p = cuda.float32x3(pts[i, 0], pts[i, 1], pts[i, 2])
        xy = cuda.float2(p.x, p.y)
        for _ in range(3):
            xy = rotate(xy, c, s)
        q = cuda.float32x4(xy, cuda.float32x1(p.z), np.float32(i))
        u = cuda.uint8x4(i * 100, 2, cuda.uint8x2(250, 7))
        d = cuda.double3(1, cuda.float64x2(p.x, 0.5))
        out[i, 0] = q.x
        out[i, 1] = q.y
        out[i, 2] = q.z
        out[i, 3] = q.w
        out[i, 4] = u.x
        out[i, 5] = u.w
        out[i, 6] = d.y * d.z
        out[i, 7] = cuda.short2(-3, i).x + cuda.long1(i).x
"""

OPERATORS = """
def operators(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = op(a[i], b[i])
"""

STEPS = """
def steps(a, m, out, s0, s1, start):
    v = a[start::s0]
    for k in range(len(v)):
        out[0, k] = v[k]
    out[0, out.shape[1] - 1] = len(v)
    w = m[::s0, 1::s1]
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            out[1 + i, j] = w[i, j]
"""

ASSIGN = """
def assign(a, b, m, r):
    a[1:5] = b
    m[1, :] = r
    m[2] = r[::-1]
    m[3:, :] = r
    m[0, 1:] = (1.0, 2.0, 3.0)
    a[1:] = a[:-1]
"""

ZERO_STEP = """
def zero_step(a, n):
    v = a[::n]
    a[0] = v[0]
"""


def compile_both(src, name, **scope):
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<vecslice-vs-numba %s %s>" % (name, module.__name__)
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        glb = {"cuda": module, "np": np, **scope}
        exec(compile(src, fname, "exec"), glb)
        kernels.append(module.jit(glb[name]))
    return kernels


def test_vector_types_match_numba():
    rng = np.random.default_rng(3)
    pts = rng.standard_normal((64, 3)).astype(np.float32)
    c, s = np.float32(np.cos(0.4)), np.float32(np.sin(0.4))
    outs = []
    for k in compile_both(VECTORS, "vectors"):
        out = np.zeros((64, 8), dtype=np.float64)
        k[2, 32](pts, out, c, s)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1][:, 4], (np.arange(64) * 100) % 256)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                                operator.mod, operator.pow, operator.iadd, operator.itruediv, operator.lt,
                                operator.ne, operator.and_, operator.lshift, operator.xor],
                         ids=lambda op: op.__name__)
def test_operator_functions_match_numba(op):
    ints = op in (operator.and_, operator.lshift, operator.xor)
    rng = np.random.default_rng(5)
    if ints:
        a = rng.integers(-1000, 1000, 256).astype(np.int64)
        b = rng.integers(0, 20, 256).astype(np.int64)
    else:
        a = rng.standard_normal(256) * 10
        b = rng.standard_normal(256) + 3
    outs = []
    for k in compile_both(OPERATORS, "operators", op=op):
        out = np.zeros(256, dtype=a.dtype)
        k[2, 128](a, b, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_runtime_steps_match_numba():
    a = np.arange(40, dtype=np.float64) * 0.5
    m = np.arange(63, dtype=np.float64).reshape(7, 9)
    for s0, s1, start in [(3, 2, 1), (-1, -3, -5), (-4, 5, 39), (7, -1, 0)]:
        outs = []
        for k in compile_both(STEPS, "steps"):
            out = np.full((9, 41), -1.0)
            k[1, 1](a, m, out, s0, s1, start)
            outs.append(out)
        np.testing.assert_array_equal(outs[0], outs[1])
        v = a[start::s0]
        assert outs[1][0, -1] == len(v)
        w = m[::s0, 1::s1]
        np.testing.assert_array_equal(outs[1][1:1 + w.shape[0], :w.shape[1]], w)


def test_slice_assignment_matches_numba_with_its_nrt():
    b = np.arange(4.0) + 0.25
    r = np.arange(4, dtype=np.int64) * 3
    want_a, want_m = np.zeros(9, np.float32), np.zeros((5, 4), np.float32)
    exec(ASSIGN.split("\n", 2)[2].replace("    ", ""), {"a": want_a, "b": b, "m": want_m, "r": r})
    results = []
    old = ncuda.config.CUDA_ENABLE_NRT
    ncuda.config.CUDA_ENABLE_NRT = True  # numba-cuda needs its NRT for an array assigned to a slice
    try:
        for k in compile_both(ASSIGN, "assign"):
            a, m = np.zeros(9, np.float32), np.zeros((5, 4), np.float32)
            k[1, 1](a, b, m, r)
            results.append((a, m))
    finally:
        ncuda.config.CUDA_ENABLE_NRT = old
    for a, m in results:
        np.testing.assert_array_equal(a, want_a)
        np.testing.assert_array_equal(m, want_m)


def test_zero_step_raises_on_the_gpu():
    (_, k) = compile_both(ZERO_STEP, "zero_step")
    kd = kcuda.jit(debug=True)(k.py_func)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        kd[1, 1](np.zeros(4), 0)
    a = np.arange(5.0)
    kd[1, 1](a, -2)
    assert a[0] == 4.0
