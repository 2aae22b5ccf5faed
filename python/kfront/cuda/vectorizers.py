"""numba.cuda.vectorize / guvectorize, and the builders numba's own vectorize(target="cuda") asks numba.cuda for.

`cuda.vectorize` and `cuda.guvectorize` are numba-cuda 0.30's (numba.cuda.np.ufunc): numba.vectorize and
numba.guvectorize with target="cuda" by default. `CUDAVectorize` and `CUDAGUFuncVectorize` are what a real numba
looks up in `numba.cuda.vectorizers` when a program calls `numba.vectorize([...], target="cuda")` (numba's
Vectorize.target_registry loads them on demand): under kfront's cuda-only alias (kfront._alias) that module is
this one, so numba's decorators build kfront's CUDA ufuncs. numba drives a builder as
`b = Builder(func, identity=, cache=, targetoptions=)`, `b.add(sig)` per signature, `b.disable_compile()`,
`b.build_ufunc()`; the options are checked as numba-cuda's builders check them.
"""
import warnings

from kfront import errors, types
from kfront.cuda import ufuncs


def vectorize(ftylist_or_function=(), target="cuda", **kws):
    """numba.cuda.vectorize: numba.vectorize with target="cuda" by default."""
    return ufuncs.vectorize(ftylist_or_function, target=target, **kws)


def guvectorize(*args, target="cuda", **kws):
    """numba.cuda.guvectorize: numba.guvectorize(signatures, layout) with target="cuda" by default."""
    return ufuncs.guvectorize(*args, target=target, **kws)


class _Builder:
    """What both builders share: the function, its signatures so far, the option checks."""

    def __init__(self, func, identity, cache):
        if cache:
            raise TypeError("caching is not supported")
        self.py_func = func
        self.identity = identity
        self._sigs = []

    @property
    def pyfunc(self):
        return self.py_func

    def add(self, sig=None):
        if sig is None:
            raise errors.UnsupportedError("kfront: a CUDA vectorize/guvectorize needs its signatures (lazy ufuncs "
                                          "are not supported)")
        self._sigs.append(sig)

    def disable_compile(self):
        pass


class CUDAVectorize(_Builder):
    """numba.vectorize(signatures, target="cuda"): builds a kfront CUDAUFunc."""

    def __init__(self, func, identity=None, cache=False, targetoptions=None):
        super().__init__(func, identity, cache)
        for opt in targetoptions or {}:
            if opt != "nopython":
                raise KeyError("Unrecognized options. cuda vectorize target does not support option: '%s'" % opt)
            warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning)

    def build_ufunc(self):
        return ufuncs.CUDAUFunc(self.py_func, ufuncs._sig_list(self._sigs or None))


class CUDAGUFuncVectorize(_Builder):
    """numba.guvectorize(signatures, layout, target="cuda"): builds a kfront CUDAGUFunc."""

    def __init__(self, func, sig, identity=None, cache=False, targetoptions=None, writable_args=()):
        super().__init__(func, identity, cache)
        if writable_args:
            raise TypeError("writable_args are not supported")
        options = dict(targetoptions or {})
        if not options.pop("nopython", True):
            raise TypeError("nopython flag must be True")
        if options:
            raise TypeError("The following target options are not supported: %s" % ", ".join(map(repr, options)))
        self.signature = sig

    def add(self, sig=None):
        if sig is not None:
            _, restype = types.parse_signature(types.normalize_signature(sig))
            if restype not in (None, types.none):  # numba-cuda's, as its GUFuncVectorize adds a signature
                raise TypeError("guvectorized functions cannot return values: signature %s specifies %s return "
                                "type" % (sig, restype))
        super().add(sig)

    def build_ufunc(self):
        return ufuncs.CUDAGUFunc(self.py_func, ufuncs._sig_list(self._sigs or None), self.signature)
