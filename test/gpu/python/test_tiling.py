"""GPU tests of the tiling passes (run by test/gpu/run_python_gpu.sh on the GPU machine): the kernels tile-shared
tiles (its variant, launched by the runtime with the block it was built for) and pad-shared pads give on the GPU
the untiled kernels' results bit for bit. The untiled reference is the same source compiled through a pipeline
without those passes (kfront._kfront.Program). Shapes are not multiples of the tiles (up to 3000^2, C and F
order: tiling at any size); the naive matmul in both
guard styles with float32, float64 and integer accumulators; launches with other blocks (32x32: more threads
than the variant's registers would allow) and with overlapping arrays run the kernel itself; the
stencils at the arrays' edges, tiled when the cost model is told to take them. The simulator runs the same
comparisons in CI (test/unit/passes_tile_shared.c)."""
import cupy as cp  # the GPU machine has it: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import _kfront, cuda, float32
from kfront.cuda import _runtime

UNTILED = "canonicalize,cse,bce,dce,grid-stride"


@cuda.jit
def mm_f64acc(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc


@cuda.jit
def mm_f32acc(A, B, C):
    i, j = cuda.grid(2)
    if i >= C.shape[0] or j >= C.shape[1]:
        return
    acc = float32(0)
    for k in range(A.shape[1]):
        acc += A[i, k] * B[k, j]
    C[i, j] = acc


@cuda.jit
def mm_int(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = 0
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc


@cuda.jit
def stencil3(a, b):
    i = cuda.grid(1)
    if i >= 1 and i < a.shape[0] - 1:
        b[i] = float32(0.25) * a[i - 1] + float32(0.5) * a[i] + float32(0.25) * a[i + 1]


@cuda.jit
def jacobi5(u, v):
    i, j = cuda.grid(2)
    if i >= 1 and i < u.shape[0] - 1 and j >= 1 and j < u.shape[1] - 1:
        v[i, j] = float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


TPB = 16


@cuda.jit
def fast_matmul(A, B, C):
    # the seed's hand-tiled kernel (s002): sA and sB are read down a column (pad-shared pads them)
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if x >= C.shape[0] and y >= C.shape[1]:
        return
    tmp = 0.
    for i in range(int(A.shape[1] / TPB)):
        sA[tx, ty] = A[x, ty + i * TPB]
        sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    C[x, y] = tmp


def compiled(kernel, pipeline, grid, block):
    """The kernel's source compiled through `pipeline`, configured for (grid, block)."""
    inputs = kernel._frozen()
    name = kernel.py_func.__name__
    return _kfront.Program(_runtime.runtime(), inputs.sources, inputs.binding_list(), inputs.specs,
                           pipeline=pipeline).function(name).configure(grid, block)


def grid_for(shape, block):
    return tuple((n + b - 1) // b for n, b in zip(shape, block))


def rand(shape, dtype, rng):
    if np.dtype(dtype).kind == "i":
        return cp.asarray(rng.integers(-1000, 1000, size=shape, dtype=dtype))
    return cp.asarray(rng.random(shape).astype(dtype) * 12 - 6)


def run_matmul(launch, A, B, out_dtype, M, N):
    C = cp.full((M, N), -7, dtype=out_dtype)
    launch(A, B, C)
    cp.cuda.Device().synchronize()
    return C


MATMULS = [(mm_f64acc, np.float32, np.float32), (mm_f32acc, np.float32, np.float32),
           (mm_f32acc, np.float64, np.float64), (mm_int, np.int32, np.int64)]


@pytest.mark.parametrize("kernel,in_dtype,out_dtype", MATMULS,
                         ids=["f64acc", "f32acc", "f32acc-f64", "int"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (130, 70, 90), (64, 64, 64), (17, 257, 33), (300, 129, 515)])
def test_matmul_tiled_is_bit_identical(kernel, in_dtype, out_dtype, shape):
    M, N, K = shape
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    A, B = rand((M, K), in_dtype, rng), rand((K, N), in_dtype, rng)
    b16 = (16, 16)
    want = run_matmul(compiled(kernel, UNTILED, grid_for((M, N), b16), b16), A, B, out_dtype, M, N)
    # the default compile: the variant (16x16), the kernel itself for other blocks
    for block in ((16, 16), (32, 32), (32, 8)):
        got = run_matmul(kernel[grid_for((M, N), block), block], A, B, out_dtype, M, N)
        assert cp.array_equal(got, want), "block %s" % (block,)
    # other tilings of the same loop
    for opts in ("rx=8,ry=4", "rx=1,ry=1", "prefetch=0,uniform=0,wide=0", "rx=2,ry=4,min-blocks=0"):
        pipe = "canonicalize,cse,bce,tile-shared{%s},cse,hoist-checks,unroll,dce" % opts
        got = run_matmul(compiled(kernel, pipe, grid_for((M, N), b16), b16), A, B, out_dtype, M, N)
        assert cp.array_equal(got, want), opts


@pytest.mark.parametrize("shape", [(1000, 1000, 1000), (1023, 1023, 1023), (1025, 1025, 1025), (3000, 3000, 3000),
                                   (1000, 1025, 17), (17, 1000, 1023), (2048, 64, 3000), (100, 100, 7)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_matmul_any_size_is_bit_identical(shape, order):
    # tiling at any size (issue 24): the edge blocks (partial 64x64 tiles of outputs) and a K that is not a multiple
    # of the depth, on the speculated whole-tile path (the default) and the old guarded one (speculate=0); inputs
    # and output in C or F order
    M, N, K = shape
    rng = np.random.default_rng(M + 3 * N + 7 * K)
    A, B = rand((M, K), np.float32, rng), rand((K, N), np.float32, rng)
    if order == "F":
        A, B = cp.asfortranarray(A), cp.asfortranarray(B)
    block = (16, 16)
    grid = grid_for((M, N), block)

    def run(launch):
        C = cp.full((M, N), -7, dtype=np.float32, order=order)
        launch(A, B, C)
        cp.cuda.Device().synchronize()
        return C

    want = run(compiled(mm_f32acc, UNTILED, grid, block))
    assert cp.array_equal(run(mm_f32acc[grid, block]), want)
    old = "canonicalize,cse,bce,tile-shared{speculate=0},cse,hoist-checks,unroll,dce"
    assert cp.array_equal(run(compiled(mm_f32acc, old, grid, block)), want)


def test_matmul_grid_covering_part_of_c():
    # a grid that is not a multiple of the register blocking and covers a part of C: the rest stays as it was
    rng = np.random.default_rng(5)
    M, N, K = 150, 90, 40
    A, B = rand((M, K), np.float32, rng), rand((K, N), np.float32, rng)
    grid, block = (5, 3), (16, 16)
    want = run_matmul(compiled(mm_f32acc, UNTILED, grid, block), A, B, np.float32, M, N)
    got = run_matmul(mm_f32acc[grid, block], A, B, np.float32, M, N)
    assert cp.array_equal(got, want)


def test_matmul_overlapping_arrays():
    # A and C views of one buffer (A its first K columns, C the others): their spans overlap, so the runtime
    # runs the kernel itself (no element is both read and written: the answer is the untiled one)
    rng = np.random.default_rng(6)
    M, N, K = 97, 60, 45
    B = rand((K, N), np.float32, rng)
    block = (16, 16)
    outs = []
    for launch in (compiled(mm_f32acc, UNTILED, grid_for((M, N), block), block), mm_f32acc[grid_for((M, N), block), block]):
        big = rand((M, K + N), np.float32, np.random.default_rng(7))
        launch(big[:, :K], B, big[:, K:])
        outs.append(big)
    cp.cuda.Device().synchronize()
    assert cp.array_equal(outs[0], outs[1])


@pytest.mark.parametrize("n", [1, 2, 3, 255, 256, 257, 258, 1000, 100003])
def test_stencil3_tiled_is_bit_identical(n):
    rng = np.random.default_rng(n)
    a = rand((n,), np.float32, rng)
    block = (256,)
    outs = []
    for pipe in (UNTILED, "canonicalize,cse,bce,tile-shared{halo-min-reuse=0},cse,hoist-checks,unroll,dce"):
        b = cp.full(n, -3, dtype=cp.float32)
        compiled(stencil3, pipe, grid_for((n,), block), block)(a, b)
        outs.append(b)
    b = cp.full(n, -3, dtype=cp.float32)
    stencil3[grid_for((n,), block), block](a, b)  # the default: declined by the cost model
    cp.cuda.Device().synchronize()
    assert cp.array_equal(outs[0], outs[1]) and cp.array_equal(outs[0], b)


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (16, 16), (17, 15), (18, 18), (33, 40), (1000, 517)])
def test_jacobi5_tiled_is_bit_identical(shape):
    rng = np.random.default_rng(shape[0] * 1000 + shape[1])
    u = rand(shape, np.float32, rng)
    block = (16, 16)
    outs = []
    for pipe in (UNTILED, "canonicalize,cse,bce,tile-shared{halo-min-reuse=0},cse,hoist-checks,unroll,dce"):
        v = cp.full(shape, -3, dtype=cp.float32)
        compiled(jacobi5, pipe, grid_for(shape, block), block)(u, v)
        outs.append(v)
    cp.cuda.Device().synchronize()
    assert cp.array_equal(outs[0], outs[1])


def test_fast_matmul_padded_is_bit_identical():
    rng = np.random.default_rng(9)
    n = 256
    A, B = rand((n, n), np.float32, rng), rand((n, n), np.float32, rng)
    block = (16, 16)
    grid = grid_for((n, n), block)
    want = run_matmul(compiled(fast_matmul, UNTILED, grid, block), A, B, np.float32, n, n)
    got = run_matmul(fast_matmul[grid, block], A, B, np.float32, n, n)
    assert cp.array_equal(got, want)
