#!/usr/bin/env python3
"""python_vs_numba.py — kfront's Python module against numba-cuda (and CuPy where it has the same thing), on
the same GPU in the same run. Each row is kfront, Numba, CuPy and the ratio Numba/kfront (>1: kfront faster).

usage: PYTHONPATH=<build>/python bench/python_vs_numba.py [--reps N] [--json FILE]

Rows (per-call times are medians over REPS batches; "per launch" rows time a loop of LAUNCHES launches of an
already-specialised kernel with no synchronisation inside the loop, then one synchronize, divided by LAUNCHES):
  launch_device   kernel(a, b, x) on 2 device arrays of 1024 float32 and a float, 1 block of 128: kfront
                  DeviceNDArray, Numba device arrays, CuPy RawKernel (same PTX body written in CUDA C), raw
                  cuLaunchKernel through CuPy's driver API binding is not used (the C benchmark bench_dispatch has it)
  launch_cupy     the same kernel with CuPy arrays as arguments (__cuda_array_interface__)
  import          `import kfront.cuda` vs `import numba.cuda` in a fresh process (wall time of the import)
  first_call      a fresh process: import, define seed 001's `double`, call it on 2^20 float64 host arrays,
                  synchronize (process wall time, disk caches emptied)
  reduce_30M      @cuda.reduce sum of 30M float32 on the device, result on the host, per call
  vectorize_30M   @vectorize doubled_ufunc on 30M float32 device arrays into a device output, per call
                  (synchronized)
  host_double_30M seed 001's `double` on 30M float64 host arrays (copy in, launch, copy back), per call
Without a GPU: prints "no GPU: skipped" and exits 0.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2 (before numba.cuda is first used)

HERE = os.path.dirname(os.path.abspath(__file__))

KERNEL_SRC = '''
def saxpy_like(a, b, x):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] * x + b[i]
'''

CUPY_SRC = r'''
extern "C" __global__ void saxpy_like(const float *a, float *b, float x, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * x + b[i];
}
'''


def median_time(fn, reps, inner=1):
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


def exec_source(text, name, **glb):
    """Runs source text as a module whose lines Python's linecache knows (kfront reads a kernel's source)."""
    import linecache
    filename = "<bench-%s>" % name
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), glb)
    return glb


def define(cuda_mod):
    return cuda_mod.jit(exec_source(KERNEL_SRC, "saxpy", cuda=cuda_mod)["saxpy_like"])


def fresh_process(code, env_extra=None):
    """Runs code as a script file in a new process (kfront reads kernels' source lines: not `python -c`)."""
    env = dict(os.environ, **(env_extra or {}))
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, f.name], env=env, capture_output=True, text=True)
    os.unlink(f.name)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    return wall, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--launches", type=int, default=2000)
    ap.add_argument("--json")
    args = ap.parse_args()

    from kfront import cuda as kc
    if not kc.is_available():
        print("python_vs_numba: no GPU: skipped (%s)" % kc._runtime.runtime().describe())
        return 0
    import cupy as cp
    from numba import cuda as nc
    results = {}
    L = args.launches

    def row(name, kf, nb, cupy=None, unit="us"):
        scale = 1e6 if unit == "us" else 1e3
        results[name] = {"kfront": kf * scale, "numba": nb * scale, "cupy": None if cupy is None else cupy * scale,
                         "unit": unit, "numba_over_kfront": nb / kf}
        print("%-16s kfront %9.2f %s   numba %9.2f %s   %s  numba/kfront %.2fx" % (
            name, kf * scale, unit, nb * scale, unit,
            ("cupy %9.2f %s" % (cupy * scale, unit)) if cupy is not None else "cupy       -   ", nb / kf))

    # -- launch overhead ---------------------------------------------------------------------------------
    n = 1024
    host_a = np.arange(n, dtype=np.float32)
    kk, nk = define(kc), define(nc)
    ka, kb = kc.to_device(host_a), kc.to_device(np.zeros(n, np.float32))
    na, nb_ = nc.to_device(host_a), nc.to_device(np.zeros(n, np.float32))
    ca, cb = cp.asarray(host_a), cp.zeros(n, dtype=cp.float32)
    raw = cp.RawKernel(CUPY_SRC, "saxpy_like")
    x = np.float32(1.0)
    kk[8, 128](ka, kb, 1.0)
    nk[8, 128](na, nb_, 1.0)
    raw((8,), (128,), (ca, cb, x, np.int64(n)))
    kc.synchronize(), nc.synchronize(), cp.cuda.Device().synchronize()

    def kf_loop():
        launch = kk[8, 128]
        for _ in range(L):
            launch(ka, kb, 1.0)
        kc.synchronize()

    def nb_loop():
        launch = nk[8, 128]
        for _ in range(L):
            launch(na, nb_, 1.0)
        nc.synchronize()

    def cp_loop():
        for _ in range(L):
            raw((8,), (128,), (ca, cb, x, np.int64(n)))
        cp.cuda.Device().synchronize()

    row("launch_device", median_time(kf_loop, args.reps, L), median_time(nb_loop, args.reps, L),
        median_time(cp_loop, args.reps, L))

    def kf_cupy_loop():
        launch = kk[8, 128]
        for _ in range(L):
            launch(ca, cb, 1.0)
        kc.synchronize()

    def nb_cupy_loop():
        launch = nk[8, 128]
        for _ in range(L):
            launch(ca, cb, 1.0)
        nc.synchronize()

    kf_cupy_loop()
    nb_cupy_loop()
    row("launch_cupy", median_time(kf_cupy_loop, args.reps, L), median_time(nb_cupy_loop, args.reps, L))

    # -- import and first call in a fresh process ------------------------------------------------------
    pre = "import numpy as np; np.row_stack = np.vstack\n"
    imp = "import time; t=time.perf_counter(); %s; print(time.perf_counter()-t)"
    kf_imp = statistics.median(float(fresh_process(pre + imp % "import kfront.cuda")[1]) for _ in range(args.reps))
    nb_imp = statistics.median(float(fresh_process(pre + imp % "import numba.cuda")[1]) for _ in range(args.reps))
    row("import", kf_imp, nb_imp, unit="ms")

    first = pre + '''
from {mod} import cuda
@cuda.jit
def double(input_array, output_array):
    i = cuda.grid(1)
    output_array[i] = input_array[i] * 2
a = np.random.random(1 << 20); out = np.zeros_like(a)
double[(1 << 20) // 128, 128](a, out)
cuda.synchronize()
assert (out == 2 * a).all()
'''
    walls = {"kfront": [], "numba": []}
    for _ in range(min(args.reps, 3)):
        with tempfile.TemporaryDirectory() as cache:
            walls["kfront"].append(fresh_process(first.format(mod="kfront"), {"KFRONT_CACHE_DIR": cache})[0])
            walls["numba"].append(fresh_process(first.format(mod="numba"), {"NUMBA_CACHE_DIR": cache})[0])
    row("first_call", statistics.median(walls["kfront"]), statistics.median(walls["numba"]), unit="ms")

    # -- reduce, vectorize, host auto-transfer ----------------------------------------------------------
    big = np.random.random(30_000_000).astype(np.float32)
    kd, nd = kc.to_device(big), nc.to_device(big)

    def make_reduce(mod):
        return mod.reduce(exec_source("def add(a, b):\n    return a + b\n", "add-" + mod.__name__)["add"])

    kr, nr = make_reduce(kc), make_reduce(nc)
    assert abs(kr(kd) - big.sum(dtype=np.float64)) < 1e-3 * big.size
    nr(nd)
    row("reduce_30M", median_time(lambda: kr(kd), args.reps), median_time(lambda: nr(nd), args.reps), unit="ms")

    import kfront
    import numba

    def make_ufunc(vectorize, f32):
        @vectorize([f32(f32)], target="cuda")
        def doubled_ufunc(v):
            return v * 2
        return doubled_ufunc  # defined in this file: its source is readable

    ku, nu = make_ufunc(kfront.vectorize, kfront.float32), make_ufunc(numba.vectorize, numba.float32)
    kout, nout = kc.device_array_like(kd), nc.device_array_like(nd)

    def kf_uf():
        ku(kd, out=kout)
        kc.synchronize()

    def nb_uf():
        nu(nd, out=nout)
        nc.synchronize()

    kf_uf(), nb_uf()
    assert (kout.copy_to_host() == big * 2).all()
    row("vectorize_30M", median_time(kf_uf, args.reps), median_time(nb_uf, args.reps), unit="ms")

    double_src = '''
def double(input_array, output_array):
    i = cuda.grid(1)
    output_array[i] = input_array[i] * 2
'''
    kdouble = kc.jit(exec_source(double_src, "double-kf", cuda=kc)["double"])
    ndouble = nc.jit(exec_source(double_src, "double-nb", cuda=nc)["double"])
    h = np.random.random(30_000_000)
    ho = np.zeros_like(h)
    blocks = (h.size + 127) // 128

    def host_kf():
        kdouble[blocks, 128](h, ho)

    def host_nb():
        ndouble[blocks, 128](h, ho)

    host_kf()
    assert (ho == 2 * h).all()
    host_nb()
    row("host_double_30M", median_time(host_kf, args.reps), median_time(host_nb, args.reps), unit="ms")

    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
