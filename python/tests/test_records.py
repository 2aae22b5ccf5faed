"""Records (NumPy structured dtypes) in kernels, on the simulator in CI (the GPU suite runs the same kernels against
numba-cuda: test/gpu/python/test_records_vs_numba.py), checked against NumPy: arrays of records (1-D and 2-D) and
single records (np.void / np.record, passed by reference and copied back) as arguments; field reads and writes by
attribute, by name and by position, augmented assignment; fields of every kind (bool, signed and unsigned
integers, float16/32/64); packed and aligned layouts exactly as NumPy lays them out; nested arrays (checked: an
index out of their extent raises IndexError at the kernel's line) and nested records; whole-record and nested-array
assignment; records passed to device functions; records in shared and local arrays; explicit signatures with
numba.from_dtype types; device arrays of records; the types and spellings of the Python module; located errors."""
import numpy as np
import pytest

from kfront import cuda, errors, from_dtype, int64, void
from kfront import types as T

KINDS = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
         np.float32, np.float64]


def mixed_dtype(align):
    if align:  # NumPy pads: every field at a multiple of its alignment, the itemsize a multiple of 8
        return np.dtype([("flag", np.bool_), ("i8", np.int8), ("f64", np.float64), ("u16", np.uint16),
                         ("f16", np.float16), ("i32", np.int32), ("u64", np.uint64), ("f32", np.float32),
                         ("i16", np.int16), ("u8", np.uint8), ("i64", np.int64), ("u32", np.uint32)], align=True)
    # packed: the fields at aligned offsets (as Numba's CUDA target requires) in an itemsize of 45, so that
    # record i's fields are misaligned for odd i (read and written a byte at a time on the GPU)
    return np.dtype([("f64", np.float64), ("u64", np.uint64), ("i64", np.int64), ("f32", np.float32),
                     ("i32", np.int32), ("u32", np.uint32), ("u16", np.uint16), ("f16", np.float16),
                     ("i16", np.int16), ("flag", np.bool_), ("i8", np.int8), ("u8", np.uint8)])


def sample(dt, n, seed=0):
    rng = np.random.default_rng(seed)
    a = np.zeros(n, dt)
    for name in dt.names:
        ft = dt.fields[name][0]
        base = ft.base
        shape = (n,) + ft.shape
        if base.kind == "b":
            a[name] = rng.integers(0, 2, shape).astype(bool)
        elif base.kind in "iu":
            info = np.iinfo(base)
            a[name] = rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(base)
        elif base.kind == "f":
            a[name] = (rng.standard_normal(shape) * 10).astype(base)
    return a


@cuda.jit
def copy_fields(src, dst):
    i = cuda.grid(1)
    if i < src.shape[0]:
        s = src[i]
        d = dst[i]
        d.flag = not s.flag
        d.i8 = s.i8 + 1
        d.f64 = s.f64 * 2.0
        d.u16 = s.u16 + 3
        d.f16 = s.f16
        d.i32 = s['i32'] - 5
        d['u64'] = s.u64 * 2
        d.f32 = s.f32 + 0.5
        d.i16 = -s.i16
        d.u8 = s['u8'] + 1
        d.i64 = s.i64 * 3
        d.u32 = s.u32 ^ 7


@pytest.mark.parametrize("align", [False, True])
def test_every_field_kind(align):
    dt = mixed_dtype(align)
    assert dt.isalignedstruct == align
    src = sample(dt, 37, seed=1)
    dst = np.zeros(37, dt)
    copy_fields[2, 32](src, dst)
    want = np.zeros(37, dt)
    want["flag"] = ~src["flag"]
    want["i8"] = src["i8"] + 1
    want["f64"] = src["f64"] * 2
    want["u16"] = src["u16"] + 3
    want["f16"] = src["f16"]
    want["i32"] = src["i32"] - 5
    want["u64"] = src["u64"] * 2
    want["f32"] = src["f32"] + np.float32(0.5)
    want["i16"] = -src["i16"]
    want["u8"] = src["u8"] + 1
    want["i64"] = src["i64"] * 3
    want["u32"] = src["u32"] ^ 7
    for name in dt.names:
        np.testing.assert_array_equal(dst[name], want[name], err_msg=name)
    # the padding bytes of the aligned layout are left alone: only the fields were written
    assert dst.tobytes() == want.tobytes()


@cuda.jit
def aug(a, k):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i].x += k
        a[i]['n'] *= 2
        r = a[i]
        r.v[1] -= r.v[0]
        r['v'][2] += 1.0


@pytest.mark.parametrize("align", [False, True])
def test_augmented_assignment(align):
    dt = np.dtype([("x", np.float64), ("v", np.float32, (3,)), ("n", np.int16)], align=align)
    a = sample(dt, 10, seed=2)
    want = a.copy()
    aug[1, 16](a, 1.5)
    want["x"] += 1.5
    want["n"] *= 2
    want["v"][:, 1] -= want["v"][:, 0]
    want["v"][:, 2] += 1
    np.testing.assert_array_equal(a, want)


@cuda.jit
def complex_fields(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        out[i] = r.z * r.c + r.f
        r.c = r.c.conjugate() * 2
        r['z'] += 1j
        r.h[1] = r.h[0] - r.c
        out[i] += abs(r.h[1])


@pytest.mark.parametrize("align", [False, True])
def test_complex_fields(align):
    # complex64 and complex128 fields and a nested array of complex64 (numba-cuda's test_record_dtype sets and reads
    # a complex64 field); packed, record i's complex parts sit at odd addresses
    # (fields at multiples of their alignment, as Numba's CUDA target requires; packed, the itemsize is 45)
    dt = np.dtype([("z", np.complex128), ("c", np.complex64), ("h", np.complex64, (2,)), ("f", np.float32),
                   ("t", np.int8)], align=align)
    assert from_dtype(dt).size == dt.itemsize
    rng = np.random.default_rng(5)
    n = 11
    a = np.zeros(n, dt)
    a["f"] = rng.standard_normal(n)
    a["c"] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    a["z"] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    a["h"] = rng.standard_normal((n, 2)) + 1j * rng.standard_normal((n, 2))
    a["t"] = np.arange(n)
    want = a.copy()
    out = np.zeros(n, np.complex128)
    complex_fields[1, 16](a, out)
    w_out = want["z"] * want["c"].astype(np.complex128) + want["f"]
    want["c"] = np.conj(want["c"]) * np.complex64(2)
    want["z"] += 1j
    want["h"][:, 1] = want["h"][:, 0] - want["c"]
    w_out += np.abs(want["h"][:, 1].astype(np.complex128))
    np.testing.assert_allclose(out, w_out, rtol=1e-6)
    for name in ("f", "c", "z", "h", "t"):
        np.testing.assert_allclose(a[name], want[name], rtol=1e-6, err_msg=name)
    assert "complex64" in str(from_dtype(dt)) and "complex128" in str(from_dtype(dt))


def test_layout_matches_numpy():
    for align in (False, True):
        dt = np.dtype([("a", np.int8), ("v", np.float32, (3,)), ("r", [("p", np.int16), ("q", np.float64)]),
                       ("b", np.bool_)], align=align)
        r = from_dtype(dt)
        assert isinstance(r, T.Record) and r.size == dt.itemsize and r.aligned == align
        assert [r.offset(n) for n in dt.names] == [dt.fields[n][1] for n in dt.names]
        assert T.as_dtype(r) == dt
        assert str(r) == T.record_spelling(dt)
    r = from_dtype(np.dtype([("x", np.float32), ("y", np.int64)], align=True))
    assert str(r) == "Record(x[type=float32;offset=0],y[type=int64;offset=8];16;True)"
    assert str(r[::1]) == str(r) + "[::1]"


@cuda.jit
def read_single(r, out):
    out[0] = r.a
    out[1] = r.b
    out[2] = r.h[0] + r.h[1]


@cuda.jit
def write_single(r, v):
    r.a = v
    r.b = 7
    r.h[0] = 3.0
    r.h[1] = 4.0


def test_single_record_by_reference():
    dt = np.dtype([("a", np.float64), ("b", np.int32), ("h", np.float32, 2)], align=True)
    arr = np.zeros(3, dt)
    arr[1] = (2.5, 9, (1.0, 2.0))
    out = np.zeros(3)
    read_single[1, 1](arr[1], out)
    np.testing.assert_array_equal(out, [2.5, 9, 3.0])
    write_single[1, 1](arr[2], 1.25)  # the record is copied in and back: arr[2] changes, nothing else
    want = np.zeros(3, dt)
    want[1] = (2.5, 9, (1.0, 2.0))
    want[2] = (1.25, 7, (3.0, 4.0))
    np.testing.assert_array_equal(arr, want)
    rec = np.recarray(1, dtype=dt)[0]  # np.record works as np.void does
    rec.a, rec.b, rec.h = 0.0, 0, (0.0, 0.0)
    write_single[1, 1](rec, 2.0)
    assert rec.a == 2.0 and rec.b == 7 and tuple(rec.h) == (3.0, 4.0)


@cuda.jit
def nested(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        s = 0.0
        for j in range(r.m.shape[0]):
            for k in range(r.m.shape[1]):
                s += r.m[j, k] * (j + 1)
        out[i, 0] = s
        out[i, 1] = r.inner.q + r.inner.p
        out[i, 2] = r['inner']['w'][1]
        out[i, 3] = len(r.m)
        r.inner.p = i
        r.inner.w[0] = r.m[2, 1]


@pytest.mark.parametrize("align", [False, True])
def test_nested_arrays_and_records(align):
    inner = np.dtype([("q", np.float64), ("w", np.float32, (2,)), ("p", np.int16)], align=align)
    dt = np.dtype([("m", np.float32, (3, 2)), ("inner", inner), ("tag", np.uint8)], align=align)
    a = sample(dt, 9, seed=3)
    a["inner"]["q"] = np.arange(9) * 0.25
    a["inner"]["w"] = np.arange(18).reshape(9, 2)
    want_a = a.copy()
    out = np.zeros((9, 4))
    nested[1, 16](a, out)
    m = want_a["m"].astype(np.float64)
    np.testing.assert_allclose(out[:, 0], (m * np.array([1, 2, 3])[None, :, None]).sum(axis=(1, 2)), rtol=1e-6)
    np.testing.assert_array_equal(out[:, 1], want_a["inner"]["q"] + want_a["inner"]["p"])
    np.testing.assert_array_equal(out[:, 2], want_a["inner"]["w"][:, 1])
    np.testing.assert_array_equal(out[:, 3], 3)
    want_a["inner"]["p"] = np.arange(9)
    want_a["inner"]["w"][:, 0] = want_a["m"][:, 2, 1]
    np.testing.assert_array_equal(a, want_a)


@cuda.jit
def nested_oob(a, j):
    a[0].v[j] = 1.0


def test_nested_array_bounds_checked():
    a = np.zeros(2, np.dtype([("x", np.int32), ("v", np.float32, (3,))]))
    nested_oob[1, 1](a, 2)
    assert a["v"][0, 2] == 1.0
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 1 with size 3.*test_records.py"):
        nested_oob[1, 1](a, 3)


@cuda.jit
def oob_record(a, i):
    a[i].x = 1


def test_record_index_bounds_checked():
    a = np.zeros(4, np.dtype([("x", np.int32), ("y", np.float32)]))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        oob_record[1, 1](a, 4)
    oob_record[1, 1](a, -1)  # negative indices wrap as in Numba
    assert a["x"][3] == 1


@cuda.jit
def set_record(a, i, j):
    a[i] = a[j]


@cuda.jit
def set_from_single(a, rec):
    a[0] = rec


@cuda.jit
def assign_nested(dest, src, index):
    dest["user1"] = src[index]["user"]
    dest["array1"] = src[index]["array"]


@cuda.jit
def assign_array_to_nested(dest, src):
    dest["array2"] = src


def test_whole_record_assignment():
    dt = np.dtype([("a", np.float64), ("b", np.int32), ("d", np.uint8, 5), ("r", [("p", np.int16), ("q", np.bool_)])],
                  align=True)
    a = sample(dt, 4, seed=4)
    want = a.copy()
    set_record[1, 1](a, 0, 2)
    want[0] = want[2]
    np.testing.assert_array_equal(a, want)
    rec = sample(dt, 1, seed=5)
    set_from_single[1, 1](a, rec[0])
    want[0] = rec[0]
    np.testing.assert_array_equal(a, want)
    # numba-cuda's issue 7693: fields of one record type copied into another's
    src_dtype = np.dtype([("user", np.float64), ("array", np.int16, (3,))], align=True)
    dest_dtype = np.dtype([("user1", np.float64), ("array1", np.int16, (3,))], align=True)
    source = np.zeros(2, src_dtype)
    source[0] = (1.2, [1, 2, 3])
    got = np.zeros(2, dest_dtype)
    assign_nested[1, 1](got[0], source, 0)
    expected = np.zeros(2, dest_dtype)
    expected[0] = (1.2, [1, 2, 3])
    np.testing.assert_array_equal(got, expected)
    # an array assigned to a nested array of its shape (numba-cuda's test_assign_array_to_nested_2d)
    nd = np.dtype([("array2", np.int16, (3, 2))], align=True)
    got = np.zeros(2, nd)
    src = (np.arange(6) + 1).astype(np.int16).reshape(3, 2)
    assign_array_to_nested[1, 1](got[0], src)
    assert (got[0]["array2"] == src).all() and (got[1]["array2"] == 0).all()


def test_nested_assignment_of_another_shape_raises():
    nd = np.dtype([("array2", np.int16, (3, 2))], align=True)
    got = np.zeros(1, nd)
    k = cuda.jit(debug=True, opt=False)(assign_array_to_nested.py_func)
    with pytest.raises(ValueError, match="another shape"):
        k[1, 1](got[0], np.ones((2, 3), np.int16))


@cuda.jit(device=True)
def norm2(r):
    return r.x * r.x + r.y * r.y


@cuda.jit(device=True)
def scale(r, k):
    r.x *= k
    r.y *= k


@cuda.jit
def with_device_functions(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = norm2(a[i])
        scale(a[i], 2.0)


def test_records_to_device_functions():
    dt = np.dtype([("x", np.float64), ("y", np.float64)])
    a = sample(dt, 6, seed=6)
    want = a.copy()
    out = np.zeros(6)
    with_device_functions[1, 8](a, out)
    np.testing.assert_allclose(out, want["x"] ** 2 + want["y"] ** 2)
    np.testing.assert_array_equal(a["x"], want["x"] * 2)
    np.testing.assert_array_equal(a["y"], want["y"] * 2)


PT = np.dtype([("x", np.float32), ("y", np.float32), ("n", np.int32)], align=True)


@cuda.jit
def shared_records(a, out):
    tile = cuda.shared.array(32, dtype=PT)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < a.shape[0]:
        tile[t] = a[i]
        tile[t].n += t
    cuda.syncthreads()
    if i < a.shape[0]:
        src = tile[31 - t]
        out[i].x = src.y
        out[i].y = src.x
        out[i].n = src.n


@cuda.jit
def local_records(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        tmp = cuda.local.array(3, dtype=PT)
        for k in range(3):
            tmp[k].x = a[i].x * k
            tmp[k].y = a[i].y + k
            tmp[k].n = k
        s = PT_zero = 0.0
        for k in range(3):
            s += tmp[k].x + tmp[k].y + tmp[k].n
        out[i] = s + PT_zero


def test_shared_and_local_arrays_of_records():
    a = sample(PT, 32, seed=7)
    out = np.zeros(32, PT)
    shared_records[1, 32](a, out)
    rev = a[::-1].copy()
    rev["n"] += np.arange(32)[::-1]
    np.testing.assert_array_equal(out["x"], rev["y"])
    np.testing.assert_array_equal(out["y"], rev["x"])
    np.testing.assert_array_equal(out["n"], rev["n"])
    o = np.zeros(32)
    local_records[1, 32](a, o)
    x, y = a["x"].astype(np.float64), a["y"].astype(np.float64)
    want = sum(np.float32(x * k).astype(np.float64) + np.float32(a["y"] + np.float32(k)).astype(np.float64) + k
               for k in range(3))
    np.testing.assert_allclose(o, want, rtol=1e-6)


@cuda.jit
def grid2d(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j].x * 10 + a[i][j].y


def test_two_dimensional_arrays_of_records():
    dt = np.dtype([("x", np.int32), ("y", np.int16)])
    a = sample(dt, 12, seed=8).reshape(3, 4)
    out = np.zeros((3, 4), np.int64)
    grid2d[(1, 1), (4, 4)](a, out)
    np.testing.assert_array_equal(out, a["x"].astype(np.int64) * 10 + a["y"])
    f = np.asfortranarray(a)
    grid2d[(1, 1), (4, 4)](f, out)
    np.testing.assert_array_equal(out, a["x"].astype(np.int64) * 10 + a["y"])


REC = np.dtype([("x", np.float32), ("y", np.int64)], align=True)


@cuda.jit(void(from_dtype(REC)[::1], int64))
def eager(a, k):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i].y += k


def test_explicit_signature_with_from_dtype():
    a = np.zeros(5, REC)
    eager[1, 8](a, 3)
    np.testing.assert_array_equal(a["y"], 3)
    assert str(from_dtype(REC)) in str(eager.signatures[0]) if hasattr(eager, "signatures") else True
    with pytest.raises(Exception):  # another record layout does not fit the declared signature
        eager[1, 8](np.zeros(5, np.dtype([("x", np.float32), ("y", np.int64)])), 3)


def test_device_arrays_of_records():
    a = sample(REC, 8, seed=9)
    d = cuda.to_device(a)
    assert d.dtype == REC and d.shape == (8,)
    eager[1, 8](d, 2)
    got = d.copy_to_host()
    want = a.copy()
    want["y"] += 2
    np.testing.assert_array_equal(got, want)
    assert T.typeof(d) == from_dtype(REC)[::1] and T.typeof(a) == from_dtype(REC)[::1]
    e = cuda.device_array(4, dtype=REC)
    eager[1, 8](e, 0)
    assert e.copy_to_host().dtype == REC


@cuda.jit
def bad_field(a):
    a[0].z = 1


@cuda.jit
def bad_store(a, b):
    a[0] = b[0]


@cuda.jit
def bad_aug(a):
    a[0] += 1


def test_errors_are_located():
    dt = np.dtype([("x", np.int32), ("y", np.float32)])
    with pytest.raises(errors.TypingError, match=r"record has no field 'z' \(its fields: x, y\)"):
        bad_field[1, 1](np.zeros(2, dt))
    with pytest.raises(errors.TypingError, match="cannot assign"):
        bad_store[1, 1](np.zeros(2, dt), np.zeros(2, np.dtype([("x", np.int32)])))
    with pytest.raises(errors.TypingError, match="invalid augmented assignment"):
        bad_aug[1, 1](np.zeros(2, dt))


@cuda.jit
def by_position(a, out):
    out[0] = a[1][0]
    out[1] = a[1][-1]
    a[0][1] = 5


@cuda.jit
def misaligned(a):
    i = cuda.grid(1)
    a[i].a = a[i].b


def test_fields_by_position_and_alignment_as_numba():
    dt = np.dtype([("x", np.float64), ("y", np.int32)])
    a = np.array([(1.5, 2), (3.5, 4)], dt)
    out = np.zeros(2)
    by_position[1, 1](a, out)
    np.testing.assert_array_equal(out, [3.5, 4])
    assert a["y"][0] == 5
    # numba-cuda's test_alignment: a packed record whose float64 sits at offset 4 is refused, the aligned one works
    rec = np.dtype([("a", "int32"), ("b", "float64")], align=True)
    ra = np.zeros(3, rec)
    ra["b"] = [123, 246, 369]
    misaligned[1, 3](ra)
    assert (ra["a"] == ra["b"]).all()
    with pytest.raises(errors.TypingError, match=r"\.b of type float64 is not aligned"):
        misaligned[1, 3](np.zeros(3, np.dtype([("a", "int32"), ("b", "float64")])))


CONST_RECS = np.array([(1.0, 2), (3.0, 4)], dtype=[("x", float), ("y", int)])


@cuda.jit(device=True)
def largest(a):
    best = a[0]
    for i in range(1, a.shape[0]):
        if a[i].x > best.x:
            best = a[i]
    return best


@cuda.jit
def returns_record(a, out):
    r = largest(a)
    out[0] = r.x
    r.n += 100
    a[0] = largest(a)


@cuda.jit
def record_on_paths(a, c, out):
    if c:
        r = a[0]
    else:
        r = a[1]
    out[0] = r.x
    r.n = 7
    s = a[2] if out[0] > 2 else a[3]
    out[1] = s.y
    for k in range(a.shape[0]):
        if a[k].y < s.y:
            s = a[k]
    out[2] = s.y


def test_records_where_values_meet_and_returned():
    # numba-cuda's Record is a reference: a variable holding one record or another (branches, loops, conditional
    # expressions) and a device function returning one (numba-cuda's test_getitem_idx) refer to the array's record
    a = sample(PT, 6, seed=10)
    a["x"] = [1, 5, 3, 9, 2, 4]
    want = a.copy()
    out = np.zeros(3)
    returns_record[1, 1](a, out)
    assert out[0] == 9 and a["n"][3] == want["n"][3] + 100
    np.testing.assert_array_equal(a[0], a[3])  # a[0] = largest(a): the whole record copied
    for c in (True, False):
        b = want.copy()
        record_on_paths[1, 1](b, c, out)
        k = 0 if c else 1
        assert out[0] == want["x"][k] and b["n"][k] == 7 and (np.delete(b["n"], k) == np.delete(want["n"], k)).all()
        s = 2 if want["x"][k] > 2 else 3
        assert out[1] == want["y"][s]
        assert out[2] == min(want["y"][s], want["y"].min())


@cuda.jit(from_dtype(PT)(from_dtype(PT)[::1], int64), device=True)
def pick(a, i):
    return a[i]


@cuda.jit
def picked(a, out):
    r = pick(a, 1)
    out[0] = r.x
    a[0] = pick(a, 2)
    t = (pick(a, 1), 5)  # a tuple holding a record
    out[1] = t[0].n + t[1]


def test_record_result_with_an_explicit_signature():
    a = sample(PT, 3, seed=13)
    want = a.copy()
    out = np.zeros(2)
    picked[1, 1](a, out)
    assert out[0] == np.float64(want["x"][1]) and out[1] == want["n"][1] + 5
    np.testing.assert_array_equal(a[0], want[2])


@cuda.jit
def field_arrays(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        g = a.g
        h = a["h"]
        out[i, j] = g[i, j] + h[i, j, 1] * 10 + h.ndim * 1000 + len(a[i]["g"]) * 10000
        a.g[i, j] = j - i
        a[i]["h"][j, 0] = i + j


@cuda.jit
def packed_field_array(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a.b[i]
        a["b"][i] += 0.5


def test_field_arrays_of_arrays_of_records():
    # a.x / a['x'] of an array of records: the field of every record (numba-cuda's array_record_getattr), nested
    # dimensions after the array's, layout A; a misaligned field of a packed record as Numba does (accessed packed)
    dt = np.dtype([("g", np.int32), ("h", np.float32, (2,))], align=True)
    a = sample(dt, 12, seed=11).reshape(3, 4)
    want = a.copy()
    out = np.zeros((3, 4))
    field_arrays[(1, 1), (4, 4)](a, out)
    np.testing.assert_array_equal(out, want["g"] + want["h"][:, :, 1].astype(np.float64) * 10 + 3000 + 40000)
    np.testing.assert_array_equal(a["g"], np.arange(4)[None, :] - np.arange(3)[:, None])
    np.testing.assert_array_equal(a["h"][:, :, 0], np.arange(4)[None, :] + np.arange(3)[:, None])
    np.testing.assert_array_equal(a["h"][:, :, 1], want["h"][:, :, 1])
    pk = np.dtype([("a", "int32"), ("b", "float64")])
    p = np.zeros(5, pk)
    p["b"] = np.arange(5) * 1.25
    o = np.zeros(5)
    packed_field_array[1, 8](p, o)
    np.testing.assert_array_equal(o, np.arange(5) * 1.25)
    np.testing.assert_array_equal(p["b"], np.arange(5) * 1.25 + 0.5)


@cuda.jit
def dynamic_records(a, out):
    s = cuda.shared.array(0, dtype=PT)
    t = cuda.threadIdx.x
    if t < len(s):
        s[t] = a[t]
        s[t].n += t
    cuda.syncthreads()
    if t < len(s):
        out[t] = s[len(s) - 1 - t]
    if t == 0:
        out[len(s)].n = len(s)


def test_dynamic_shared_arrays_of_records():
    # as numba-cuda: the dynamic shared bytes seen as as many records as fit (itemsize 12 here)
    a = sample(PT, 8, seed=12)
    out = np.zeros(9, PT)
    dynamic_records[1, 8, 0, 6 * PT.itemsize + 5](a, out)
    want = a[:6].copy()
    want["n"] += np.arange(6)
    np.testing.assert_array_equal(out[:6], want[::-1])
    assert out["n"][6] == 6


@cuda.jit
def record_atomics(a, r):
    i = cuda.grid(1)
    if i < a.shape[0]:
        cuda.atomic.add(a[i].h, 1, 2.0)
        cuda.atomic.add(r.h, 0, 1.0)
        cuda.atomic.max(a.g, i, i)
        cuda.atomic.add(a.h, (0, 0), 1.0)


@cuda.jit
def packed_atomic(a):
    cuda.atomic.add(a.b, 0, 1.0)


def test_atomics_on_record_fields():
    # numba-cuda's atomics take any array: a record's nested array, a field array of an array of records
    dt = np.dtype([("g", np.int32), ("h", np.float32, (2,))], align=True)
    a = np.zeros(40, dt)
    r = np.zeros(1, dt)[0]
    record_atomics[2, 32](a, r)
    np.testing.assert_array_equal(a["h"][:, 1], 2.0)
    np.testing.assert_array_equal(a["g"], np.arange(40))
    assert a["h"][0, 0] == 40 and r["h"][0] == 40 and r["h"][1] == 0
    # an atomic on a misaligned address faults on the GPU: kfront refuses it where it cannot know the alignment
    with pytest.raises(errors.TypingError, match=r"on a field of packed records whose elements may be misaligned"):
        packed_atomic[1, 1](np.zeros(3, np.dtype([("a", "int32"), ("b", "float64")])))


@cuda.jit
def same_record(a, out):
    out[0] = a[0] is a[1]


@cuda.jit
def other_record(a, b, out):
    out[0] = a[0] is b[0]
    out[1] = a[0] is not None


@cuda.jit
def compared_records(a, out):
    out[0] = a[0] == a[1]


def test_is_and_comparisons_of_records_as_numba():
    a = np.zeros(2, PT)
    out = np.zeros(2)
    # numba-cuda: records are mutable, so `is` between two of one type has no implementation; of two types it is False
    with pytest.raises(errors.TypingError, match=r"no default 'is' implementation for records"):
        same_record[1, 1](a, out)
    other_record[1, 1](a, np.zeros(2, REC), out)
    np.testing.assert_array_equal(out, [0, 1])
    with pytest.raises(errors.TypingError, match=r"no implementation of '==' for .* compare their fields"):
        compared_records[1, 1](a, out)


CONST_RECORD_ALIGN = np.array([(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
                              dtype=np.dtype([("a", np.uint8), ("b", np.uint8), ("x", np.uint8), ("y", np.uint32),
                                              ("z", np.uint8)], align=True))
CONST_NESTED = np.zeros((2, 3), np.dtype([("v", np.int16, (2,)), ("r", [("p", np.float64), ("q", np.int8)])]))
CONST_NESTED["v"] = np.arange(12).reshape(2, 3, 2)
CONST_NESTED["r"]["p"] = np.arange(6).reshape(2, 3) * 0.5


@cuda.jit
def const_records(a, b):
    c = cuda.const.array_like(CONST_RECS)
    i = cuda.grid(1)
    a[i] = c[i]["x"]
    b[i] = c[i].y


@cuda.jit
def const_records_align(a, b, c, d, e):
    z = cuda.const.array_like(CONST_RECORD_ALIGN)
    i = cuda.grid(1)
    a[i] = z[i]["a"]
    b[i] = z[i]["b"]
    c[i] = z[i]["x"]
    d[i] = z.y[i]
    e[i] = z[i]["z"]


@cuda.jit
def const_nested(out):
    c = cuda.const.array_like(CONST_NESTED)
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        out[i, j] = c[i, j].v[1] + c[i, j].r.p + len(c) * 100


CONST_EMPTY = np.array([])
CONST_RECORD_EMPTY = np.array([], dtype=[("x", float), ("y", int)])


@cuda.jit
def const_empty(out, k):
    c = cuda.const.array_like(CONST_EMPTY)
    r = cuda.const.array_like(CONST_RECORD_EMPTY)
    out[0] = len(c)
    out[1] = len(r)
    if k >= 0:
        out[2] = r[k].x


@cuda.jit
def const_records_written(out):
    c = cuda.const.array_like(CONST_RECS)
    c[0].x = 1.0


def test_constant_arrays_of_records():
    # numba-cuda's test_constmem (test_const_record, test_const_record_align): a global structured array is a
    # constant array of its bytes, NumPy's layout
    a, b = np.zeros(2), np.zeros(2, np.int64)
    const_records[2, 1](a, b)
    np.testing.assert_array_equal(a, CONST_RECS["x"])
    np.testing.assert_array_equal(b, CONST_RECS["y"])
    outs = [np.zeros(2) for _ in range(5)]
    const_records_align[2, 1](*outs)
    for out, name in zip(outs, "abxyz"):
        np.testing.assert_array_equal(out, CONST_RECORD_ALIGN[name])
    o = np.zeros((2, 3))
    const_nested[(1, 1), (2, 4)](o)
    np.testing.assert_array_equal(o, CONST_NESTED["v"][:, :, 1] + CONST_NESTED["r"]["p"] + 200)
    with pytest.raises(errors.TypingError, match=r"cannot assign to an element of a constant array"):
        const_records_written[1, 1](np.zeros(1))
    # numba-cuda's test_const_record_empty / test_const_array empty: an empty constant array has length 0, and an
    # index into it is out of bounds
    out = np.full(3, -1.0)
    const_empty[1, 1](out, -1)
    np.testing.assert_array_equal(out, [0, 0, -1])
    with pytest.raises(IndexError):
        const_empty[1, 1](out, 0)


TITLED = np.dtype([(("t", "n"), np.int32), ("b", np.float64), (("w", "v"), np.float32, (2,))], align=True)


@cuda.jit
def titled_fields(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].n + a[i].t * 10 + a[i]["t"] * 100 + a[i].w[1] + a.v[i, 0]
        a[i].t = i
        a[i].w[0] = 2 * i
        a[i]["b"] = a[i][1]  # by position, the title's entry counts (numba-cuda's Record lists it)


def test_fields_with_titles():
    # NumPy's titles: numba-cuda's from_struct_dtype makes an entry by the name and one by the title (both
    # ';title=t'), so a kernel reaches the field by either
    t = from_dtype(TITLED)
    assert str(t) == ("Record(n[type=int32;offset=0;title=t],t[type=int32;offset=0;title=t],b[type=float64;offset=8],"
                      "v[type=nestedarray(float32, (2,));offset=16;title=w],w[type=nestedarray(float32, (2,));offset=16;"
                      "title=w];24;True)")
    assert T.as_dtype(t) == TITLED
    a = np.zeros(3, TITLED)
    a["n"] = [1, 2, 3]
    a["v"] = [[1, 2], [3, 4], [5, 6]]
    want = a.copy()
    out = np.zeros(3)
    titled_fields[1, 4](a, out)
    np.testing.assert_array_equal(out, want["n"] * 111 + want["v"][:, 1] + want["v"][:, 0])
    np.testing.assert_array_equal(a["n"], [0, 1, 2])
    np.testing.assert_array_equal(a["b"], [0, 1, 2])
    np.testing.assert_array_equal(a["v"][:, 0], [0, 2, 4])
    d = cuda.to_device(want)
    titled_fields[1, 4](d, out)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    with pytest.raises(errors.UnsupportedError, match="must be identifiers"):
        from_dtype(np.dtype([(("my title", "n"), np.int32)]))


# ---- r[()] of a 0-d array of records (numba-cuda's test_caching record_return) -----------------------------------
@pytest.mark.parametrize("align", (False, True))
def test_zero_dimensional_record_array_indexed_by_empty_tuple(align):
    dt = np.dtype([("a", np.int8), ("b", np.float64)], align=align)

    @cuda.jit
    def record_return(r, ary, i):
        r[()] = ary[i]

    @cuda.jit
    def read_fields(out, r):
        rec = r[()]
        out[0] = rec.a + r[()].b
        r[()].a = 9

    arr = np.empty(2, dtype=dt)
    arr["a"], arr["b"] = [1, 2], [42.5, 43.5]
    r = np.zeros((), dtype=dt)
    record_return[1, 1](r, arr, 1)
    assert r.shape == () and r["a"] == 2 and r["b"] == 43.5
    if align:  # (a packed record's float64 at offset 1 is misaligned: numba-cuda refuses reading it)
        out = np.zeros(1)
        read_fields[1, 1](out, r)
        assert out[0] == 45.5 and r["a"] == 9


def test_record_of_an_array_is_not_indexed_by_empty_tuple():
    dt = np.dtype([("a", np.int8), ("b", np.float64)])

    @cuda.jit
    def bad(out, ary):
        out[0] = ary[0][()].b

    with pytest.raises(errors.TypingError, match=r"a record is indexed by a field name or a constant integer, not "
                                                 r"Tuple\(\)"):
        bad[1, 1](np.zeros(1), np.zeros(2, dtype=dt))
