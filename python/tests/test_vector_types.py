"""CUDA vector types (numba-cuda's numba.cuda.vector_types) on the simulator in CI: every <base>x<N> type and its
aliases, constructed from scalars and from every combination of smaller vectors numba-cuda's overloads allow (the
cases of numba-cuda's test_vector_type.py, values checked by hand), fields read, vectors passed to and returned from
device functions, carried around loops, merged after an if and kept in tuples; the errors numba-cuda gives (fields
immutable, no overload, vectors not kernel arguments)."""
import numpy as np
import pytest

from kfront import cuda, errors
from kfront import types as kftypes
from kfront.cuda import intrinsics

BASES = intrinsics.VECTOR_BASES


def vector(base, n):
    return getattr(cuda, "%sx%d" % (base, n))


def test_names_and_aliases():
    assert len(intrinsics.VECTOR_TYPES) == 40
    for base in BASES:
        for n in (1, 2, 3, 4):
            assert vector(base, n) is not None
    # C-style aliases are the same objects (long and ulong are 64-bit, as on Linux)
    assert cuda.float4 is cuda.float32x4 and cuda.double3 is cuda.float64x3 and cuda.short2 is cuda.int16x2
    assert cuda.uchar1 is cuda.uint8x1 and cuda.long4 is cuda.int64x4 and cuda.ulonglong2 is cuda.uint64x2
    assert cuda.int2 is cuda.int32x2 and cuda.uint3 is cuda.uint32x3 and cuda.char4 is cuda.int8x4
    with pytest.raises(TypeError):
        cuda.float32x2(1.0, 2.0)  # only inside kernels, as in numba-cuda


def make_readout(vobj, base_type, n):
    if n == 1:
        def kernel(res):
            v = vobj(base_type(0))
            res[0] = v.x
    elif n == 2:
        def kernel(res):
            v = vobj(base_type(0), base_type(1))
            res[0] = v.x
            res[1] = v.y
    elif n == 3:
        def kernel(res):
            v = vobj(base_type(0), base_type(1), base_type(2))
            res[0] = v.x
            res[1] = v.y
            res[2] = v.z
    else:
        def kernel(res):
            v = vobj(base_type(0), base_type(1), base_type(2), base_type(3))
            res[0] = v.x
            res[1] = v.y
            res[2] = v.z
            res[3] = v.w
    return cuda.jit(kernel)


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_creation_readout(base, n):
    k = make_readout(vector(base, n), getattr(kftypes, base), n)
    res = np.zeros(n)
    k[1, 1](res)
    np.testing.assert_array_equal(res, np.arange(n))


def make_combinations(base):
    base_type = getattr(kftypes, base)
    v1, v2, v3, v4 = (vector(base, n) for n in (1, 2, 3, 4))

    def kernel(res):
        one = base_type(1.0)
        two = base_type(2.0)
        three = base_type(3.0)
        four = base_type(4.0)
        f1 = v1(one)
        f2 = v2(two, three)
        f3 = v3(f2, one)
        f4 = v4(one, two, three, four)
        j = 0
        for v in (v1(one), v1(f1)):
            res[j] = v.x
            j += 1
        for v in (f2, v2(f1, three), v2(two, f1), v2(f1, f1), v2(f2)):
            res[j] = v.x
            res[j + 1] = v.y
            j += 2
        for v in (f3, v3(f2, f1), v3(one, f2), v3(f1, f2), v3(one, two, three), v3(f1, two, three),
                  v3(one, f1, three), v3(one, two, f1), v3(f1, f1, three), v3(one, f1, f1), v3(f1, two, f1),
                  v3(f1, f1, f1), v3(f3)):
            res[j] = v.x
            res[j + 1] = v.y
            res[j + 2] = v.z
            j += 3
        for v in (f4, v4(f1, two, three, four), v4(one, f1, three, four), v4(one, two, f1, four),
                  v4(one, two, three, f1), v4(f1, f1, three, four), v4(f1, two, f1, four), v4(f1, two, three, f1),
                  v4(one, f1, f1, four), v4(one, f1, three, f1), v4(one, two, f1, f1), v4(f1, f1, f1, four),
                  v4(f1, f1, three, f1), v4(f1, two, f1, f1), v4(one, f1, f1, f1), v4(f1, f1, f1, f1),
                  v4(f2, two, three), v4(f2, f1, three), v4(f2, two, f1), v4(f2, f1, f1), v4(one, f2, three),
                  v4(f1, f2, three), v4(one, f2, f1), v4(f1, f2, f1), v4(one, four, f2), v4(f1, four, f2),
                  v4(one, f1, f2), v4(f1, f1, f2), v4(f2, f2), v4(f3, four), v4(f3, f1), v4(four, f3), v4(f1, f3),
                  v4(f4)):
            res[j] = v.x
            res[j + 1] = v.y
            res[j + 2] = v.z
            res[j + 3] = v.w
            j += 4

    return cuda.jit(kernel)


# what make_combinations' kernel writes, by hand: one, two, three, four = 1, 2, 3, 4; f2 = (2, 3); f3 = (2, 3, 1)
COMBINATIONS = [
    1, 1,
    2, 3, 1, 3, 2, 1, 1, 1, 2, 3,
    2, 3, 1, 2, 3, 1, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 1, 3, 1, 2, 1, 1, 1, 3, 1, 1, 1, 1, 2, 1, 1, 1, 1,
    2, 3, 1,
    1, 2, 3, 4, 1, 2, 3, 4, 1, 1, 3, 4, 1, 2, 1, 4, 1, 2, 3, 1, 1, 1, 3, 4, 1, 2, 1, 4, 1, 2, 3, 1, 1, 1, 1, 4,
    1, 1, 3, 1, 1, 2, 1, 1, 1, 1, 1, 4, 1, 1, 3, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    2, 3, 2, 3, 2, 3, 1, 3, 2, 3, 2, 1, 2, 3, 1, 1, 1, 2, 3, 3, 1, 2, 3, 3, 1, 2, 3, 1, 1, 2, 3, 1, 1, 4, 2, 3,
    1, 4, 2, 3, 1, 1, 2, 3, 1, 1, 2, 3, 2, 3, 2, 3, 2, 3, 1, 4, 2, 3, 1, 1, 4, 2, 3, 1, 1, 2, 3, 1, 1, 2, 3, 4,
]


@pytest.mark.parametrize("base", BASES)
def test_combinations(base):
    k = make_combinations(base)
    res = np.zeros(len(COMBINATIONS))
    k[1, 1](res)
    np.testing.assert_array_equal(res, COMBINATIONS)


@cuda.jit(device=True)
def rotate(v, c, s):
    return cuda.float2(c * v.x - s * v.y, s * v.x + c * v.y)


@cuda.jit(device=True)
def split(v):
    return cuda.float32x2(v.x, v.y), v.z


@cuda.jit
def device_calls(points, out, c, s):
    i = cuda.grid(1)
    if i < points.shape[0]:
        p = cuda.float32x3(points[i, 0], points[i, 1], points[i, 2])
        xy, z = split(p)
        acc = xy
        for _ in range(3):
            acc = rotate(acc, c, s)
        if z > 0:
            best = acc
        else:
            best = xy
        out[i, 0] = best.x
        out[i, 1] = best.y
        out[i, 2] = cuda.uint8x2(i, 7).x + (xy if z > 0 else cuda.float2(100, 0)).x


def test_device_functions_loops_ifs():
    pts = np.array([[1, 2, 1], [3, -1, -1], [0.5, 0.25, 2], [-2, 4, 0]], dtype=np.float32)
    out = np.zeros((4, 3), dtype=np.float32)
    th = 0.3
    c, s = np.float32(np.cos(th)), np.float32(np.sin(th))
    device_calls[1, 4](pts, out, c, s)
    want = np.zeros_like(out)
    for i, (x, y, z) in enumerate(pts):
        ax, ay = np.float32(x), np.float32(y)
        for _ in range(3):
            ax, ay = np.float32(c * ax - s * ay), np.float32(s * ax + c * ay)
        want[i, :2] = (ax, ay) if z > 0 else (x, y)
        want[i, 2] = i + (x if z > 0 else 100)
    np.testing.assert_allclose(out, want, rtol=1e-6)


@cuda.jit
def conversions(out):
    u = cuda.uint8x4(300, -1, 2.75, True)  # as Numba casts to uint8: wraps, truncates
    out[0] = u.x
    out[1] = u.y
    out[2] = u.z
    out[3] = u.w
    f = cuda.float32x1(1.0 / 3.0)
    out[4] = f.x * 3 - 1  # the field is a float32: with an int64, Numba computes in float64


def test_conversions():
    out = np.zeros(5)
    conversions[1, 1](out)
    assert list(out[:4]) == [44, 255, 2, 1]
    assert out[4] == np.float64(np.float32(1.0 / 3.0)) * 3 - 1 != 0


def test_errors():
    def assigns(out):
        v = cuda.float32x2(1, 2)
        v.x = 3.0
        out[0] = v.x

    with pytest.raises(errors.TypingError, match="immutable"):
        cuda.jit(assigns)[1, 1](np.zeros(1, np.float32))

    def bad(out):
        v = cuda.float32x4(cuda.int32x2(1, 2), 1.0, 2.0)
        out[0] = v.x

    with pytest.raises(errors.TypingError, match=r"no overload of cuda.float32x4\(\) for \(int32x2, float64, float64\)"):
        cuda.jit(bad)[1, 1](np.zeros(1, np.float32))

    def ops(out):
        v = cuda.float32x2(1, 2)
        w = v * 2
        out[0] = w.x

    with pytest.raises(errors.CompilerError, match="unsupported operand types for '\\*': float32x2 and int64"):
        cuda.jit(ops)[1, 1](np.zeros(1, np.float32))

    def argument(v, out):
        out[0] = v.x

    with pytest.raises(TypeError, match="cannot pass"):  # no host value has a vector type (nor in numba-cuda)
        cuda.jit(argument)[1, 1](cuda.float32x2, np.zeros(1, np.float32))


def test_the_vector_types_table_of_numba_cuda_vector_types():
    from kfront.cuda.vector_types import VectorType, vector_types
    assert sorted(vector_types) == sorted(intrinsics.VECTOR_TYPES)
    vt = vector_types["float64x3"]
    assert isinstance(vt, VectorType) and vt.name == "float64x3" and str(vt) == "float64x3"
    assert vt.base_type is kftypes.float64 and vt.num_elements == 3 and vt.attr_names == ("x", "y", "z")
    assert vt.user_facing_object is cuda.float64x3 and cuda.float64x3.aliases == ["double3"]
    assert cuda.int64x2.aliases == ["long2", "longlong2"] and cuda.int8x1.aliases == ["char1"]
    for v in vector_types.values():
        assert all(getattr(cuda, alias) is v.user_facing_object for alias in v.user_facing_object.aliases)

    obj, base = vector_types["uint16x4"].user_facing_object, vector_types["uint16x4"].base_type

    @cuda.jit
    def build(out):  # the table's objects work in kernels, as numba-cuda's test_vector_type makes its kernels
        v = obj(base(1), base(2), base(3), base(4))
        out[0] = v.x + v.w

    out = np.zeros(1, np.int64)
    build[1, 1](out)
    assert out[0] == 5


def test_vector_types_under_the_alias():
    from kfront._alias import install_numba_alias, uninstall_numba_alias
    import kfront.cuda.vector_types
    install_numba_alias(scope="numba")
    try:
        from numba.cuda.vector_types import vector_types
        from numba.cuda.simulator.vector_types import vector_types as sim_vector_types
        assert vector_types is sim_vector_types is kfront.cuda.vector_types.vector_types
        with pytest.raises(ImportError, match="kfront has its own simulator"):
            exec("from numba.cuda.simulator import kernel", {})
    finally:
        uninstall_numba_alias()
