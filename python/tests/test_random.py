"""numba.cuda.random on kfront: the states create_xoroshiro128p_states makes and the numbers the device functions
draw, against a reimplementation of numba-cuda's algorithm (random.py: SplitMix64 seeding, xoroshiro128+, the
2**64-step jump, the float conversions, Box-Muller) in plain Python integers and NumPy below — bit for bit for
the states and the uniforms, to an ulp for the normals (math.log/cos: the C library here, libdevice on a GPU) —
and numba-cuda's own test_random checks (its kernels)."""
import math

import numpy as np
import pytest

from kfront import cuda
from kfront import errors, from_dtype
from kfront.cuda.random import (create_xoroshiro128p_states, init_xoroshiro128p_states, xoroshiro128p_dtype,
                                xoroshiro128p_jump, xoroshiro128p_next, xoroshiro128p_normal_float32,
                                xoroshiro128p_normal_float64, xoroshiro128p_type, xoroshiro128p_uniform_float32,
                                xoroshiro128p_uniform_float64)

M64 = (1 << 64) - 1


# ---- the reference ----------------------------------------------------------------------------------------------

def ref_splitmix(seed):
    z = (seed + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def ref_rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def ref_next(s):
    s0, s1 = s
    result = (s0 + s1) & M64
    s1 ^= s0
    s[0] = ref_rotl(s0, 55) ^ s1 ^ ((s1 << 14) & M64)
    s[1] = ref_rotl(s1, 36)
    return result


def ref_jump(s):
    j0 = j1 = 0
    for poly in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for b in range(64):
            if poly >> b & 1:
                j0 ^= s[0]
                j1 ^= s[1]
            ref_next(s)
    s[0], s[1] = j0, j1


def ref_states(n, seed, subsequence_start=0):
    z = ref_splitmix(seed & M64)
    s = [z, z]
    for _ in range(subsequence_start):
        ref_jump(s)
    out = []
    for i in range(n):
        if i:
            ref_jump(s)
        out.append(list(s))
    return out


def ref_uniform64(x):
    return (x >> 11) * (1.0 / (1 << 53))


def ref_uniform32(x):
    return np.float32(ref_uniform64(x))


def ref_normal32(s):
    u1, u2 = ref_uniform32(ref_next(s)), ref_uniform32(ref_next(s))
    return np.sqrt(np.float32(-2.0) * np.log(u1)) * np.cos(np.float32(2 * math.pi) * u2)


def ref_normal64(s):  # numba-cuda draws float32 uniforms here too
    u1, u2 = ref_uniform32(ref_next(s)), ref_uniform32(ref_next(s))
    return math.sqrt(-2.0 * float(np.log(u1))) * math.cos(np.float64(2 * math.pi) * float(u2))


# ---- states -----------------------------------------------------------------------------------------------------

def rows(states):
    """A state array (xoroshiro128p_dtype records) as a list of [s0, s1] rows."""
    return [[int(r["s0"]), int(r["s1"])] for r in states]


def test_state_dtype_is_numbas():
    # numba-cuda's xoroshiro128p_dtype: two uint64 fields s0, s1, aligned, 16 bytes; its Numba type spelled so
    assert xoroshiro128p_dtype == np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
    assert xoroshiro128p_dtype.isalignedstruct and xoroshiro128p_dtype.itemsize == 16
    assert str(xoroshiro128p_type) == "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)"
    assert xoroshiro128p_type == from_dtype(xoroshiro128p_dtype)


def test_states_known_values():
    # SplitMix64's first output from state 0 and 1 (its published sequence), the seed state of generator 0
    s = create_xoroshiro128p_states(3, seed=0).copy_to_host()
    assert s.dtype == xoroshiro128p_dtype and s.shape == (3,)
    assert int(s[0]["s0"]) == int(s[0]["s1"]) == 0xE220A8397B1DCDAF
    assert int(create_xoroshiro128p_states(1, seed=1).copy_to_host()[0]["s0"]) == 0x910A2DEC89025CC1


@pytest.mark.parametrize("seed,sub", [(1, 0), (12345, 0), (2 ** 64 - 1, 2), (-1, 0)])
def test_states_match_reference(seed, sub):
    got = create_xoroshiro128p_states(7, seed=seed, subsequence_start=sub).copy_to_host()
    assert rows(got) == ref_states(7, seed, sub)


def test_create_like_numba():
    s = create_xoroshiro128p_states(10, seed=1).copy_to_host()
    assert len(np.unique(s, axis=0)) == 10  # numba-cuda counts its unique records
    s2 = create_xoroshiro128p_states(10, seed=1, subsequence_start=3).copy_to_host()
    np.testing.assert_array_equal(s[3:], s2[:-3])
    stream = cuda.stream()
    s3 = create_xoroshiro128p_states(10, seed=1, stream=stream).copy_to_host()
    np.testing.assert_array_equal(s, s3)


def test_init_into_existing_array():
    d = cuda.device_array(5, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(d, 99)
    assert rows(d.copy_to_host()) == ref_states(5, 99)
    with pytest.raises(TypeError, match="1-D array of xoroshiro128p_dtype records"):
        init_xoroshiro128p_states(cuda.device_array((5, 2), dtype=np.uint64), 1)


def test_states_from_host_records():
    # any array of xoroshiro128p_dtype records is a state array (a host array here, copied in and back)
    h = np.zeros(3, xoroshiro128p_dtype)
    for i, (s0, s1) in enumerate(ref_states(3, 5)):
        h[i] = (s0, s1)
    out = np.zeros(3, np.uint64)
    jump_and_draw[1, 3](h, out)
    ref = ref_states(4, 5)
    assert [int(v) for v in out] == [ref_next(list(ref[t + 1])) for t in range(3)]
    assert rows(h) == [ref_after_next(ref[t + 1]) for t in range(3)]


def ref_after_next(s):
    s = list(s)
    ref_next(s)
    return s


class ForeignStates:
    """What numba-cuda's DeviceNDArray of records shows: a void typestr without descr, and its dtype attribute."""

    def __init__(self, d):
        self._d, self.dtype, self.shape = d, d.dtype, d.shape

    @property
    def __cuda_array_interface__(self):
        cai = dict(self._d.__cuda_array_interface__)
        cai.pop("descr", None)
        cai["typestr"] = self.dtype.str
        return cai


def test_states_of_another_library():
    # a device array of xoroshiro128p_dtype records made elsewhere (typestr |V16): typed by its dtype, used in place
    from kfront import typeof
    d = create_xoroshiro128p_states(4, seed=3)
    f = ForeignStates(d)
    assert f.__cuda_array_interface__["typestr"] == "|V16"
    assert typeof(f).dtype == xoroshiro128p_type
    out = np.zeros(4, np.uint64)
    jump_and_draw[1, 4](f, out)
    ref = ref_states(5, 3)
    assert [int(v) for v in out] == [ref_next(list(ref[t + 1])) for t in range(4)]
    assert rows(d.copy_to_host()) == [ref_after_next(ref[t + 1]) for t in range(4)]


def test_states_of_another_dtype_refused():
    # numba-cuda's device functions index records: a uint64 (n, 2) array is a typing error, located at the call
    with pytest.raises(errors.TypingError, match="test_random.py"):
        jump_and_draw[1, 1](np.zeros((2, 2), np.uint64), np.zeros(2, np.uint64))


# ---- streams drawn in kernels -------------------------------------------------------------------------------------

@cuda.jit
def draw(states, count, u32, u64, n32, n64, raw):
    t = cuda.grid(1)
    if t < states.shape[0]:
        for k in range(count):
            j = t * count + k
            u32[j] = xoroshiro128p_uniform_float32(states, t)
            u64[j] = xoroshiro128p_uniform_float64(states, t)
            n32[j] = xoroshiro128p_normal_float32(states, t)
            n64[j] = xoroshiro128p_normal_float64(states, t)
            raw[j] = xoroshiro128p_next(states, t)


def test_streams_match_reference():
    n, count = 40, 5
    states = create_xoroshiro128p_states(n, seed=2024)
    u32 = np.zeros(n * count, np.float32)
    u64 = np.zeros(n * count)
    n32 = np.zeros(n * count, np.float32)
    n64 = np.zeros(n * count)
    raw = np.zeros(n * count, np.uint64)
    draw[2, 32](states, count, u32, u64, n32, n64, raw)
    ref = ref_states(n, 2024)
    for t in range(n):
        s = ref[t]
        for k in range(count):
            j = t * count + k
            assert u32[j] == ref_uniform32(ref_next(s))
            assert u64[j] == ref_uniform64(ref_next(s))
            assert n32[j] == pytest.approx(ref_normal32(s), rel=2e-6, abs=1e-6)
            assert n64[j] == pytest.approx(ref_normal64(s), rel=1e-6, abs=1e-7)
            assert int(raw[j]) == ref_next(s)
    # the states advanced in place, as the reference did
    assert rows(states.copy_to_host()) == ref


@cuda.jit
def jump_and_draw(states, out):
    t = cuda.grid(1)
    if t < states.shape[0]:
        xoroshiro128p_jump(states, t)
        out[t] = cuda.random.xoroshiro128p_next(states, t)


def test_device_jump():
    states = create_xoroshiro128p_states(4, seed=7)
    out = np.zeros(4, np.uint64)
    jump_and_draw[1, 4](states, out)
    ref = ref_states(5, 7)  # a jump of generator t is generator t + 1
    assert [int(v) for v in out] == [ref_next(list(ref[t + 1])) for t in range(4)]


# ---- numba-cuda's test_random ---------------------------------------------------------------------------------------

UNIFORM = 1
NORMAL = 2


@cuda.jit
def rng_kernel_float32(states, out, count, distribution):
    thread_id = cuda.grid(1)
    for i in range(count):
        idx = thread_id * count + i
        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float32(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float32(states, thread_id)


@cuda.jit
def rng_kernel_float64(states, out, count, distribution):
    thread_id = cuda.grid(1)
    for i in range(count):
        idx = thread_id * count + i
        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float64(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float64(states, thread_id)


@pytest.mark.parametrize("kernel", [rng_kernel_float32, rng_kernel_float64])
def test_uniform_like_numba(kernel):
    states = create_xoroshiro128p_states(32 * 2, seed=1)
    out = np.zeros(2 * 32 * 32, dtype=np.float32)
    kernel[2, 32](states, out, 32, UNIFORM)
    assert out.min() == pytest.approx(0.0, abs=1e-3)
    assert out.max() == pytest.approx(1.0, abs=1e-3)
    assert out.mean() == pytest.approx(0.5, abs=1.5e-2)
    assert out.std() == pytest.approx(1.0 / (2 * math.sqrt(3)), abs=6e-3)


@pytest.mark.parametrize("kernel,dtype", [(rng_kernel_float32, np.float32), (rng_kernel_float64, np.float64)])
def test_normal_like_numba(kernel, dtype):
    states = create_xoroshiro128p_states(32 * 2, seed=1)
    out = np.zeros(2 * 32 * 32, dtype=dtype)
    kernel[2, 32](states, out, 32, NORMAL)
    assert out.mean() == pytest.approx(0.0, abs=4e-3)
    assert out.std() == pytest.approx(1.0, abs=2e-3)
