"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
kernel-language features real numba-cuda code uses (issue 22, item 5), each with numba-cuda 0.30.4's typing —
the warp intrinsics lanemask_lt, match_any_sync and match_all_sync (cudadecl.py's cases; numba-cuda's own
simulator has none of them, so the expected values are PTX's definitions and numba-cuda's test_warp_ops);
cuda.nanosleep (numba-cuda's void(uint32), its test_compiler's PTX check); lambdas as cuda.reduce's function (numba-cuda's documented example) and as device functions."""
import numpy as np
import pytest

from kfront import cuda, errors


# ---- cuda.nanosleep ---------------------------------------------------------------------------------------

def test_nanosleep_runs_and_emits_ptx_nanosleep():
    from kfront import types
    from kfront.cuda.compiler import compile_ptx

    def use_nanosleep(x):
        cuda.nanosleep(32)  # a constant time
        cuda.nanosleep(x)   # a variable one

    ptx, _ = compile_ptx(use_nanosleep, (types.uint32,))  # numba-cuda's test_compiler.test_nanosleep
    assert sum("nanosleep.u32" in line for line in ptx.splitlines()) == 2
    # numba-cuda's one case, void(uint32), takes bools, integers and floats (a float converted toward zero)
    ptx, _ = compile_ptx(use_nanosleep, (types.float64,))
    assert "cvt.rzi.u32.f64" in ptx

    @cuda.jit
    def sleep_then_write(out, ns):
        cuda.nanosleep(ns)
        out[cuda.grid(1)] = 1

    out = np.zeros(8, dtype=np.int32)
    sleep_then_write[2, 4](out, 1000)
    np.testing.assert_array_equal(out, np.ones(8, dtype=np.int32))

    @cuda.jit
    def bad(out):
        cuda.nanosleep(1j)

    with pytest.raises(errors.TypingError, match=r"No implementation of cuda.nanosleep\(complex128\)"):
        bad[1, 1](out)


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


# ---- lambdas: cuda.reduce(lambda a, b: a + b), device functions ----------------------------------------------


def test_reduce_lambda_numba_cuda_doc_example():
    # numba-cuda's docs/source/user/reduction.rst
    sum_reduce = cuda.reduce(lambda a, b: a + b)
    A = (np.arange(1234, dtype=np.float64)) + 1
    expect = A.sum()
    got = sum_reduce(A)
    assert expect == got


def test_reduce_lambda_options():
    max_reduce = cuda.reduce(lambda a, b: max(a, b))
    values = np.array([3, -9, 27, 4, 11], dtype=np.int32)
    assert max_reduce(values) == 27
    assert max_reduce(values, size=2) == 3  # the first two elements
    assert max_reduce(values, init=100) == 100
    sum_reduce = cuda.reduce(lambda a, b: a + b)
    d = cuda.to_device(np.arange(100, dtype=np.int64))
    res = cuda.device_array(3, dtype=np.int64)
    stream = cuda.stream()
    assert sum_reduce(d, res=res, init=5, stream=stream) is None
    stream.synchronize()
    assert res.copy_to_host()[0] == 4950 + 5
    assert sum_reduce(np.zeros(0, dtype=np.float32), init=2.5) == 2.5  # an empty array gives init


def test_two_lambdas_on_one_line_each_their_own():
    add, mul = cuda.reduce(lambda a, b: a + b), cuda.reduce(lambda a, b: a * b)
    values = np.arange(1, 7, dtype=np.int64)
    assert add(values) == 21
    assert mul(values, init=1) == 720


def test_lambda_device_function():
    twice = cuda.jit(device=True)(lambda x: 2 * x +
                                  1)  # a body over two lines

    @cuda.jit
    def apply(a):
        i = cuda.grid(1)
        a[i] = twice(a[i])

    a = np.arange(8, dtype=np.float32)
    apply[1, 8](a)
    np.testing.assert_array_equal(a, 2 * np.arange(8, dtype=np.float32) + 1)


def test_lambda_from_exec_on_its_first_line():
    namespace = {"cuda": cuda}
    exec("r = cuda.reduce(lambda a, b: a if a > b else b)", namespace)
    assert namespace["r"](np.array([4.0, 8.5, -1.0])) == 8.5


def test_lambda_typing_error_located_in_the_lambda():
    bad = cuda.reduce(lambda a, b: a + b.nope)
    with pytest.raises(errors.TypingError) as e:
        bad(np.arange(4.0))
    assert e.value.file == __file__
    line = open(__file__).read().splitlines()[e.value.line - 1]
    assert "b.nope" in line
    assert line[e.value.col - 1:].startswith(("b.nope", "nope"))  # the column in the file, exactly


# ---- cuda.types in kernels --------------------------------------------------------------------------------

def test_cuda_types_names_types_in_kernels():
    # numba-cuda's test_warning.test_float16_warn_if_lto_missing: x = cuda.types.float16(1.0) in a kernel
    import math

    @cuda.jit
    def kernel(out):
        x = cuda.types.float16(1.0)
        out[0] = math.sin(x)
        out[1] = cuda.types.int8(300)
        out[2] = cuda.types.float32(1) / cuda.types.float32(3)

    out = np.zeros(3)
    kernel[1, 1](out)
    assert out[0] == float(np.sin(np.float16(1.0))) and out[1] == 44
    assert out[2] == float(np.float32(1) / np.float32(3))
