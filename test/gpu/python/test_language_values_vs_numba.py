"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): namedtuple arguments (collections.namedtuple and typing.NamedTuple, a tuple of
them, one holding arrays; fields by name, index, unpacking, iteration; built in a device function and in the
kernel) and 0-d arrays (host and device ones, read and written through x[()], passed to a device function, a
NumPy scalar beside them)."""
import linecache
import os
import typing
from collections import namedtuple

import numpy as np
np.row_stack = np.vstack  # numba-cuda 0.30.4 still names np.row_stack, which NumPy 2.4 removed
import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)

from kfront import cuda as kcuda

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

Point = namedtuple("Point", ["x", "y"])
Points = namedtuple("Points", ["xs", "ys"])


class Mixed(typing.NamedTuple):
    i: int
    f: float


SRC = """
@cuda.jit(device=True)
def make_point(a):
    return Point(a, y=a * 2)


@cuda.jit(device=True)
def doubled(a):
    return a[()] * 2


@cuda.jit
def named(out, p, m, pts, t):
    i = cuda.grid(1)
    if i < pts.xs.size:
        pts.ys[i] = pts.xs[i] * p.x + m.f
    if i == 0:
        a, b = p
        s = 0
        for v in p:
            s += v
        q = make_point(m.i)
        out[0] = a * 10 + b + s + len(p)
        out[1] = q.x + q.y + Point(x=1.5, y=2).y
        out[2] = t[0].x + t[1].f


@cuda.jit
def zero_d(r, x, s, out):
    r[()] = x[()] + doubled(x) + s
    x[()] = 7.0
    out[0] = r.ndim + r.size * 10 + len(x.shape) * 100
"""


def compile_both():
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<langvalues-vs-numba %s>" % module.__name__
        linecache.cache[fname] = (len(SRC), None, SRC.splitlines(True), fname)
        scope = {"cuda": module, "np": np, "Point": Point}
        exec(compile(SRC, fname, "exec"), scope)
        kernels.append(scope)
    return kernels


def test_namedtuples_vs_numba():
    results = []
    for scope in compile_both():
        out, xs, ys = np.zeros(3), np.arange(64.0), np.zeros(64)
        scope["named"][2, 32](out, Point(2, 5), Mixed(4, 0.5), Points(xs, ys), (Point(1, 2), Mixed(3, 4.5)))
        results.append((out.tolist(), ys.tolist()))
    assert results[0] == results[1]


def test_zero_d_arrays_vs_numba():
    results = []
    for scope, module in zip(compile_both(), (ncuda, kcuda)):
        out = np.zeros(1)
        r, x = np.zeros(()), np.array(1.5)
        scope["zero_d"][1, 1](r, x, np.float64(0.25), out)
        dr, dx = module.to_device(np.zeros(())), module.to_device(np.array(2.0))
        scope["zero_d"][1, 1](dr, dx, 1.0, out)
        results.append((r[()], x[()], dr.copy_to_host()[()], dx.copy_to_host()[()], out.tolist()))
    assert results[0] == results[1]
