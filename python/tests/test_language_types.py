"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
kernel-language features real numba-cuda code uses (issue 22, item 5), each with numba-cuda 0.30.4's typing —
the warp intrinsics lanemask_lt, match_any_sync and match_all_sync (cudadecl.py's cases; numba-cuda's own
simulator has none of them, so the expected values are PTX's definitions and numba-cuda's test_warp_ops)."""
import numpy as np
import pytest

from kfront import cuda, errors


# ---- warp intrinsics: lanemask_lt, match_any_sync, match_all_sync -----------------------------------------


def test_lanemask_lt():
    @cuda.jit
    def use_lanemask_lt(x):
        i = cuda.grid(1)
        x[i] = cuda.lanemask_lt()

    out = np.zeros(64, dtype=np.uint32)
    use_lanemask_lt[1, 64](out)
    lanes = np.arange(64) % 32
    np.testing.assert_array_equal(out, ((1 << lanes) - 1).astype(np.uint32))


def test_lanemask_lt_is_uint32():
    @cuda.jit
    def kind(x):
        x[0] = cuda.lanemask_lt() - 1  # uint32 arithmetic: lane 0's 0 - 1 is int64 -1 (uint32 - int64)

    out = np.zeros(1, dtype=np.int64)
    kind[1, 1](out)
    assert out[0] == -1


def test_match_any_sync_numba_cuda_case():
    # numba-cuda's test_warp_ops.test_match_any_sync: 10 threads, values alternate 0, 1
    @cuda.jit("void(int32[:], int32[:])")
    def use_match_any_sync(ary_in, ary_out):
        i = cuda.grid(1)
        ballot = cuda.match_any_sync(0xFFFFFFFF, ary_in[i])
        ary_out[i] = ballot

    ary_in = np.arange(10, dtype=np.int32) % 2
    ary_out = np.empty(10, dtype=np.int32)
    use_match_any_sync[1, 10](ary_in, ary_out)
    np.testing.assert_array_equal(ary_out, np.tile((0b0101010101, 0b1010101010), 5))


def expected_match_any(values, mask=0xFFFFFFFF):
    """For each lane of a warp: the bits of the lanes in mask whose value's bits equal its own."""
    bits = values.view(np.dtype("u%d" % values.itemsize))
    out = np.zeros(len(values), dtype=np.int64)
    for lane in range(len(values)):
        for other in range(len(values)):
            if mask >> other & 1 and bits[other] == bits[lane]:
                out[lane] |= 1 << other
    return out.astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_match_any_sync_compares_bits(dtype):
    @cuda.jit
    def match_any(values, out):
        i = cuda.grid(1)
        out[i] = cuda.match_any_sync(0xFFFFFFFF, values[i])

    rng = np.random.default_rng(7)
    values = rng.integers(0, 4, 32).astype(dtype)
    if dtype == np.int64:
        values[::3] += 1 << 40  # differs only in the upper word: a 64-bit compare sees it
    if dtype in (np.float32, np.float64):
        values[5], values[6] = 0.0, -0.0  # equal as numbers, different bits: not matched
        values[7] = values[8] = np.nan
    out = np.zeros(32, dtype=np.int32)
    match_any[1, 32](values, out)
    np.testing.assert_array_equal(out, expected_match_any(values))


def test_match_any_sync_in_divergent_branch():
    @cuda.jit
    def even_odd(values, out):
        i = cuda.threadIdx.x
        if i % 2 == 0:
            out[i] = cuda.match_any_sync(0x55555555, values[i])
        else:
            out[i] = cuda.match_any_sync(0xAAAAAAAA, values[i])

    values = (np.arange(32) // 4).astype(np.int32)  # lanes 4k..4k+3 share a value
    out = np.zeros(32, dtype=np.int32)
    even_odd[1, 32](values, out)
    want = [expected_match_any(values, 0x55555555)[i] if i % 2 == 0 else expected_match_any(values, 0xAAAAAAAA)[i]
            for i in range(32)]
    np.testing.assert_array_equal(out, np.array(want, dtype=np.int32))


def test_match_all_sync_numba_cuda_case():
    # numba-cuda's test_warp_ops.test_match_all_sync
    @cuda.jit("void(int32[:], int32[:])")
    def use_match_all_sync(ary_in, ary_out):
        i = cuda.grid(1)
        ballot, pred = cuda.match_all_sync(0xFFFFFFFF, ary_in[i])
        ary_out[i] = ballot if pred else 0

    ary_in = np.zeros(10, dtype=np.int32)
    ary_out = np.empty(10, dtype=np.int32)
    use_match_all_sync[1, 10](ary_in, ary_out)
    np.testing.assert_array_equal(ary_out, np.full(10, 0b1111111111))
    ary_in[1] = 4
    use_match_all_sync[1, 10](ary_in, ary_out)
    np.testing.assert_array_equal(ary_out, np.zeros(10))


def test_match_all_sync_tuple_and_types():
    @cuda.jit
    def match_all(values, masks, preds):
        i = cuda.grid(1)
        r = cuda.match_all_sync(0xFFFFFFFF, values[i])
        masks[i] = r[0]
        preds[i] = r[1]

    for values in (np.full(32, 2.5), np.full(32, 3, dtype=np.int64), np.arange(32, dtype=np.float32)):
        masks = np.zeros(32, dtype=np.int64)
        preds = np.zeros(32, dtype=np.bool_)
        match_all[1, 32](values, masks, preds)
        same = bool(np.all(values == values[0]))
        np.testing.assert_array_equal(masks, np.full(32, -1 if same else 0))  # int32 0xFFFFFFFF is -1
        np.testing.assert_array_equal(preds, np.full(32, same))


def test_match_sync_value_types_refused():
    @cuda.jit
    def complex_value(out, z):
        out[0] = cuda.match_any_sync(0xFFFFFFFF, z)

    with pytest.raises(errors.TypingError, match=r"match_any_sync\(\) for \(int64, complex128\)") as e:
        complex_value[1, 1](np.zeros(1, np.int32), 1j)
    assert "test_language_types.py" in str(e.value)
