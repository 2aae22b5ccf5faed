"""seedmods.py — the seed programs (test/acceptance/seeds) as Numba sees them, for the benchmarks.

import_numba() imports numba.cuda (with NumPy 2's missing np.row_stack put back first) and, when no GPU is
usable, lets Numba's device-function compiles target sm_90 (they ask the current device for its compute
capability; compile_ptx itself needs no GPU).

import_seed(path) imports a seed file as a module. Its `if __name__ == "__main__"` block does not run.
@vectorize / @guvectorize decorators are replaced while importing by a recorder (Numba compiles those
eagerly at decoration, which needs a GPU): the module attribute is then a Captured with the Python function,
the signatures and (guvectorize) the layout. numba_kernel_ptx() compiles any seed function the way Numba
builds it, with compile_ptx:
  - @cuda.jit kernels: compile_ptx(py_func, signature)
  - @cuda.reduce: numba.cuda.kernels.reduction._gpu_reduce_factory (the kernel Numba's Reduce launches),
    specialised for the C-contiguous 1-D arrays and scalars Reduce.__call__ passes
  - @vectorize: the stager numba.cuda.vectorizers.CUDAVectorize generates, around the core as an inline device
    function, for C-contiguous 1-D arrays (what CUDAUFuncMechanism passes)
  - @guvectorize: the stager CUDAGUFuncVectorize generates, for the outer types it compiles eagerly.
Every call builds fresh dispatchers, so nothing compiled before is reused.
"""
import importlib.util
import os
import sys
import types as pytypes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def seeds_dir():
    """$KFRONT_SEEDS, else the repository's test/acceptance/seeds."""
    d = os.environ.get("KFRONT_SEEDS") or os.path.join(ROOT, "test", "acceptance", "seeds")
    if not os.path.exists(os.path.join(d, "manifest.tsv")):
        raise SystemExit("seed programs not found: no manifest.tsv in %s (KFRONT_SEEDS names the folder)" % d)
    return os.path.abspath(d)


def manifest_path(seeds):
    return os.path.join(seeds, "manifest.tsv")


def manifest_rows(seeds):
    """(file, function, signature) of every `ptx` row of the manifest whose file is in seeds."""
    path = manifest_path(seeds)
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 4 and parts[3] == "ptx" and os.path.exists(os.path.join(seeds, parts[0])):
                rows.append((parts[0], parts[1], parts[2]))
    return rows


_numba = None


def import_numba():
    global _numba
    if _numba is not None:
        return _numba
    import numpy as np
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still uses it; NumPy 2 removed it
    from numba import cuda
    import numba.cuda.dispatcher as disp
    gpu = False
    try:
        gpu = cuda.is_available()
    except Exception:
        gpu = False
    if not gpu:
        class _Dev:
            compute_capability = (9, 0)
        disp.get_current_device = lambda: _Dev()
    _numba = pytypes.SimpleNamespace(cuda=cuda, gpu=gpu)
    return _numba


class Captured:
    def __init__(self, kind, func, sigs, layout=None, kw=None):
        self.kind, self.py_func, self.sigs, self.layout, self.kw = kind, func, sigs, layout, kw or {}
        self.__name__ = func.__name__


def import_seed(path):
    import_numba()
    import numba
    name = os.path.splitext(os.path.basename(path))[0]
    if name in sys.modules:
        return sys.modules[name]
    saved = numba.vectorize, numba.guvectorize

    def vectorize(sigs=None, **kw):
        return lambda f: Captured("vectorize", f, sigs, None, kw)

    def guvectorize(sigs, layout, **kw):
        return lambda f: Captured("guvectorize", f, sigs, layout, kw)

    numba.vectorize, numba.guvectorize = vectorize, guvectorize
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    finally:
        numba.vectorize, numba.guvectorize = saved
    return mod


def numba_kernel_ptx(obj, signature, cc=(9, 0)):
    """PTX text of what Numba compiles for seed object `obj` (a module attribute) and the manifest signature."""
    nb = import_numba()
    cuda = nb.cuda
    from numba.cuda import compile_ptx
    from numba.core import sigutils
    from numba.core.typing import signature as make_sig
    from numba.cuda.dispatcher import CUDADispatcher
    if isinstance(obj, CUDADispatcher):
        return compile_ptx(obj.py_func, signature, cc=cc)[0]
    from numba.cuda.kernels.reduction import Reduce, _gpu_reduce_factory
    if isinstance(obj, Reduce):
        args, _ = sigutils.normalize_signature(signature)
        t = args[0]
        k = _gpu_reduce_factory(obj._functor, t)
        return compile_ptx(k.py_func, "void(%s[::1], %s[::1], %s, boolean)" % (t, t, t), cc=cc)[0]
    if isinstance(obj, Captured) and obj.kind == "vectorize":
        from numba.cuda.vectorizers import CUDAVectorize
        v = CUDAVectorize(obj.py_func, targetoptions={})
        args, ret = sigutils.normalize_signature(signature)
        devsig = make_sig(ret, *args)
        name = obj.py_func.__name__
        src = v._get_kernel_source(v._kernel_template, devsig, name)
        core = cuda.jit(device=True, inline="always")(obj.py_func)
        g = v._get_globals(core)
        exec(src, g)
        stager = g["__vectorized_%s" % name]
        ksig = "void(%s)" % ", ".join("%s[::1]" % t for t in list(args) + [ret])
        return compile_ptx(stager, ksig, cc=cc)[0]
    if isinstance(obj, Captured) and obj.kind == "guvectorize":
        from numba.cuda import deviceufunc
        from numba.cuda.vectorizers import CUDAGUFuncVectorize
        gv = CUDAGUFuncVectorize(obj.py_func, obj.layout, targetoptions={})
        args, _ = sigutils.normalize_signature(signature)
        indims = [len(x) for x in gv.inputsig]
        outdims = [len(x) for x in gv.outputsig]
        name = obj.py_func.__name__
        src = deviceufunc.expand_gufunc_template(gv._kernel_template, indims, outdims, name, args)
        g = obj.py_func.__globals__.copy()
        g.update({"__cuda__": cuda, "__core__": cuda.jit(device=True)(obj.py_func)})
        exec(src, g)
        fn = g["__gufunc_%s" % name]
        outer = tuple(deviceufunc._determine_gufunc_outer_types(args, indims + outdims))
        return compile_ptx(fn, outer, cc=cc)[0]
    raise TypeError("don't know how Numba compiles %r" % (obj,))
