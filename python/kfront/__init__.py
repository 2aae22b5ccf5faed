"""kfront — a compiler and runtime for Numba-CUDA kernels.

    from kfront import cuda              # numba.cuda's API (kfront.cuda)
    from kfront import vectorize, guvectorize, float32, void   # numba's names kernels use
    kfront.install_numba_alias()          # `from numba import cuda` now gives kfront's (kfront._alias)

`python -m kfront prog.py [args]` runs a program written for numba-cuda unchanged.
"""
from kfront import types
from kfront.types import *  # noqa: F401,F403  (numba's scalar and array types: float32, int64, void, ...)
from kfront.cuda.dispatcher import host_jit as jit
from kfront.cuda.dispatcher import host_jit as njit
from kfront.cuda.ufuncs import guvectorize, vectorize

__version__ = "0.1.0"


def install_numba_alias(scope="auto"):
    """Makes `from numba import cuda`, `import numba.cuda` ... give kfront's objects for the rest of the process:
    numba.cuda only where numba is installed (scope "cuda"), the whole of numba where it is not (scope "numba");
    see kfront._alias."""
    from kfront._alias import install_numba_alias as install
    return install(scope=scope)
