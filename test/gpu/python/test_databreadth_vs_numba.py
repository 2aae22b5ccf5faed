"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): slicing and views (rows, columns, steps, transposes, reshape, view(dtype),
an IndexError through a view), tuples as kernel arguments, zip() and enumerate(), and print() (each program run in
a subprocess, its output compared line for line, sorted where the GPU orders threads freely)."""
import linecache
import os
import subprocess
import sys

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


# The kernels, compiled by each from the same text (registered with linecache: kfront reads source lines)
VIEWS = """
def views(a, out, shape):
    i = cuda.grid(1)
    if i < a.shape[0]:
        row = a[i, 1::2]
        s = 0.0
        for v in row:
            s += v
        col = a[::-1, i % a.shape[1]]
        t = a.T
        r = a.reshape(shape)  # (not a.ravel(): numba-cuda's needs its NRT, off on CUDA)
        out[i, 0] = s
        out[i, 1] = col[0] + col[len(col) - 1]
        out[i, 2] = t[i % a.shape[1], i]
        out[i, 3] = r[i % r.shape[0], 0]
        w = a[i].view(np.int64)
        out[i, 4] = w[1] % 1000
"""

TUPLES = """
def tuples(t, arrays, out):
    a, (b, c) = t
    x, y = arrays
    i = cuda.grid(1)
    if i < x.size:
        y[i] = x[i] * a + b * c
    if i == 0:
        out[0] = a + b + c
"""

ITERATORS = """
def iterators(x, y, out):
    n = 0
    for i, (xv, yv) in enumerate(zip(x, y), 3):
        out[n] = i * 100 + xv * yv
        n += 1
    for r, xv in zip(range(50, 0, -7), x[::-1]):
        out[n] = r + xv
        n += 1
"""


def compile_both(src, name):
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<vs-numba %s %s>" % (name, module.__name__)
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        scope = {"cuda": module, "np": np}
        exec(compile(src, fname, "exec"), scope)
        kernels.append(module.jit(scope[name]))
    return kernels


def test_views_match_numba():
    a = np.random.default_rng(7).random((6, 8))
    outs = []
    for k in compile_both(VIEWS, "views"):
        out = np.zeros((6, 5))
        k[1, 8](a, out, (12, 4))
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_tuples_match_numba():
    x = np.arange(40.0)
    outs = []
    for k in compile_both(TUPLES, "tuples"):
        y = np.zeros_like(x)
        out = np.zeros(1)
        k[1, 64]((2.0, (3, 0.5)), (x, y), out)
        outs.append((y, out))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


def test_iterators_match_numba():
    x = np.arange(9, dtype=np.int64)
    y = np.arange(5, dtype=np.int64) * 3
    outs = []
    for k in compile_both(ITERATORS, "iterators"):
        out = np.zeros(20, dtype=np.int64)
        k[1, 1](x, y, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_index_error_through_a_view():
    @kcuda.jit
    def oob(a):
        i = kcuda.grid(1)
        row = a[i, 2:]
        row[a.shape[1] - 2] = 1.0

    with pytest.raises(IndexError) as e:
        oob[1, 2](np.zeros((2, 5)))
    assert "index 3 is out of bounds for axis 0 with size 3" in str(e.value)
    assert e.value.line == oob.py_func.__code__.co_firstlineno + 4


PRINT_PROGRAM = """
import numpy as np
from {module} import cuda

@cuda.jit
def printer(t, a):
    i = cuda.grid(1)
    print(i, "of", cuda.blockIdx.x, a[i] > 1.5, a[i], t)
    print(cuda.threadIdx)
    if i == 0:
        print()

printer[2, 3]((1, (2.5, True)), np.arange(6) * 0.75)
cuda.synchronize()
"""


def run(module, tmp_path):
    path = tmp_path / ("print_%s.py" % module)  # a file: kfront reads the kernel's source lines
    path.write_text(PRINT_PROGRAM.format(module=module))
    cp = subprocess.run([sys.executable, str(path)], capture_output=True, timeout=120, check=True)
    return sorted(line.strip() for line in cp.stdout.decode().splitlines())


def test_print_matches_numba(tmp_path):
    assert run("kfront", tmp_path) == run("numba", tmp_path)
