"""numba.cuda.random: the xoroshiro128+ generator of numba-cuda (its random.py), drawing the same numbers.

Host side (here): create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0) and
init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0) make the states of n generators as
numba-cuda does (SplitMix64 of the seed, the generators 2**64 steps apart; computed on the CPU in C, then copied).
Kernel side: xoroshiro128p_uniform_float32/64, xoroshiro128p_normal_float32/64, xoroshiro128p_next,
xoroshiro128p_jump, init_xoroshiro128p_state, ... compiled by kfront from its own Python source
(frontend/random.c); here they are names a kernel resolves by path, as cuda.grid is.

The state array is numba-cuda's: a 1-D array of xoroshiro128p_dtype records (s0, s1: uint64, aligned; Numba type
xoroshiro128p_type), so states made here and states made by numba-cuda's host functions are interchangeable (same
dtype, same bytes for the same seed).
"""
import numpy as np

from kfront import _kfront
from kfront.cuda.intrinsics import KernelOnly
from kfront.types import from_dtype

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
xoroshiro128p_type = from_dtype(xoroshiro128p_dtype)

# the device functions: kernels name them by their numba paths
DEVICE_FUNCTIONS = (
    "init_xoroshiro128p_state", "rotl", "xoroshiro128p_next", "xoroshiro128p_jump", "uint64_to_unit_float64",
    "uint64_to_unit_float32", "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
)
globals().update({name: KernelOnly("numba.cuda.random." + name) for name in DEVICE_FUNCTIONS})


def _host_states(n, seed, subsequence_start):
    """The states of n generators in host memory: a 1-D array of xoroshiro128p_dtype records."""
    states = np.empty(n, dtype=xoroshiro128p_dtype)
    _kfront.xoroshiro128p_init(states.ctypes.data, n, int(seed), int(subsequence_start))
    return states


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initialises a device array of n xoroshiro128p_dtype records for n generators, each 2**64 steps of the
    sequence apart (subsequence_start jumps first), as numba-cuda does."""
    if states.dtype != xoroshiro128p_dtype or states.ndim != 1:
        raise TypeError("kfront: xoroshiro128p states are a 1-D array of xoroshiro128p_dtype records, not %s %s"
                        % (states.dtype, states.shape))
    states.copy_to_device(_host_states(states.shape[0], seed, subsequence_start), stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of the states of n generators (xoroshiro128p_dtype records), initialised for the seed."""
    from kfront import cuda
    states = cuda.device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


def __getattr__(name):
    raise AttributeError("kfront: numba.cuda.random.%s is not supported by kfront" % name)
