"""NumPy's datetime64 and timedelta64 in kernels, as numba-cuda types and computes them (its npdatetime typing and
lowering): element copies, arithmetic and comparisons across units (the finer unit wins; years and months meet days
through the calendar), NaT (arithmetic with it gives NaT, comparisons with it are false except !=), timedeltas times
and over numbers, timedelta / timedelta, -, abs, np.isnat, max/min, int(); scalar arguments; and numba-cuda's
TypingErrors. Expected values from NumPy on the host, which computes these exactly as numba-cuda does.
test/gpu/python/test_datetime_bytes_vs_numba.py runs the same kernels against numba-cuda on the GPU."""
import numpy as np
import pytest

from kfront import cuda, errors, types

NAT_D = np.datetime64("NaT", "D")


def dates(unit, *texts):
    return np.array(texts, dtype="M8[%s]" % unit)


def test_copies_keep_values_and_nat():
    @cuda.jit
    def copy(src, dst):
        i = cuda.grid(1)
        if i < src.shape[0]:
            dst[i] = src[i]

    for dt in ("M8[D]", "M8[s]", "m8[ns]", "m8[Y]", "M8[M]", "m8"):
        src = np.array([0, 5, -7, np.iinfo(np.int64).min, 123456789], dtype=np.int64).view(dt)
        dst = np.zeros_like(src)
        copy[1, 8](src, dst)
        assert dst.dtype == src.dtype and dst.view(np.int64).tolist() == src.view(np.int64).tolist()

    @cuda.jit
    def copy2(src, dst):
        i, j = cuda.grid(2)
        if i < src.shape[0] and j < src.shape[1]:
            dst[j, i] = src[i, j]

    src = np.arange(12, dtype=np.int64).reshape(3, 4).view("m8[h]")
    dst = np.zeros((4, 3), dtype="m8[h]")
    copy2[1, (4, 4)](src, dst)
    assert (dst == src.T).all()


def test_arithmetic_across_units():
    @cuda.jit
    def arith(d, s, td, ts, o_td, o_ts, o_dd, o_ds):
        o_td[0] = d[0] - d[1]          # datetime - datetime: timedelta[D]
        o_ts[0] = d[0] - s[0]          # D with s: s
        o_ds[0] = d[0] + ts[0]         # datetime + timedelta: the finer unit
        o_ds[1] = ts[1] + d[1]
        o_dd[0] = d[0] - td[0]
        o_ts[1] = td[0] + ts[0]        # timedeltas: the finer unit
        o_ts[2] = ts[1] - td[1]
        o_td[1] = td[0] * 3
        o_td[2] = 2 * td[1]
        o_td[3] = td[0] * 1.5
        o_td[4] = td[1] / 2            # toward zero, as NumPy
        o_td[5] = td[1] // 2
        o_td[6] = td[0] / 0.5
        o_td[7] = -td[1]
        o_td[8] = abs(td[1])
        o_td[9] = +td[0]

    d = dates("D", "2020-02-28", "1969-07-20")
    s = dates("s", "2020-02-27T23:59:30")
    td = np.array([5, -3], dtype="m8[D]")
    ts = np.array([90, -86401], dtype="m8[s]")
    o_td = np.zeros(10, dtype="m8[D]")
    o_ts = np.zeros(3, dtype="m8[s]")
    o_dd = np.zeros(1, dtype="M8[D]")
    o_ds = np.zeros(2, dtype="M8[s]")
    arith[1, 1](d, s, td, ts, o_td, o_ts, o_dd, o_ds)
    want_td = [d[0] - d[1], td[0] * 3, 2 * td[1], td[0] * 1.5, td[1] / 2, td[1] // 2, td[0] / 0.5, -td[1],
               abs(td[1]), +td[0]]
    assert o_td.tolist() == np.array(want_td, dtype="m8[D]").tolist()
    assert o_ts.tolist() == np.array([d[0] - s[0], td[0] + ts[0], ts[1] - td[1]], dtype="m8[s]").tolist()
    assert o_dd[0] == d[0] - td[0]
    assert o_ds.tolist() == np.array([d[0] + ts[0], ts[1] + d[1]], dtype="M8[s]").tolist()


def test_years_and_months_meet_days_through_the_calendar():
    @cuda.jit
    def cal(m, y, d, o, ob):
        i = cuda.grid(1)
        if i < m.shape[0]:
            o[i] = m[i] - d[i]
            o[m.shape[0] + i] = y[i] - d[i]
            ob[i] = m[i] < d[i]
            ob[m.shape[0] + i] = y[i] == d[i]

    months = ["1969-01", "1969-03", "2000-02", "2000-03", "1900-03", "1600-03", "2024-12", "1970-01", "1583-11",
              "2100-03"]
    years = ["1969", "1968", "2000", "1900", "1600", "1601", "2024", "1970", "1583", "2400"]
    days = ["1969-01-01", "1969-01-31", "2000-02-29", "1999-12-31", "1900-01-01", "1600-03-01", "2024-12-31",
            "1970-01-01", "1583-11-30", "2100-02-28"]
    m, y, d = dates("M", *months), dates("Y", *years), dates("D", *days)
    n = len(months)
    o = np.zeros(2 * n, dtype="m8[D]")
    ob = np.zeros(2 * n, dtype=np.bool_)
    cal[1, 16](m, y, d, o, ob)
    assert o.tolist() == np.concatenate([m - d, y - d]).tolist()
    assert ob.tolist() == np.concatenate([m < d, y == d]).tolist()


def test_nat_propagates_and_compares_false():
    @cuda.jit
    def nat(a, b, ta, tb, o_td, o_dt, ob, of):
        o_td[0] = a[0] - b[0]
        o_td[1] = ta[0] + tb[0]
        o_td[2] = ta[0] * 2
        o_td[3] = tb[0] / 0            # a timedelta over 0 is NaT
        o_td[4] = tb[0] * np.nan
        o_dt[0] = a[0] + tb[0]
        of[0] = ta[0] / tb[0]          # NaN
        k = 0
        for x in (a[0] == b[0], a[0] != b[0], a[0] < b[0], a[0] <= b[0], a[0] > b[0], a[0] >= b[0],
                  ta[0] == tb[0], ta[0] != tb[0], ta[0] < tb[0], np.isnat(a[0]), np.isnat(b[0]), np.isnat(ta[0])):
            ob[k] = x
            k += 1

    a = np.array([NAT_D])
    b = dates("D", "2020-01-01")
    ta = np.array(["NaT"], dtype="m8[D]")
    tb = np.array([4], dtype="m8[D]")
    o_td = np.zeros(5, dtype="m8[D]")
    o_dt = np.zeros(1, dtype="M8[D]")
    ob = np.zeros(12, dtype=np.bool_)
    of = np.zeros(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        nat[1, 1](a, b, ta, tb, o_td, o_dt, ob, of)
        want_td = [a[0] - b[0], ta[0] + tb[0], ta[0] * 2, tb[0] / 0, tb[0] * np.nan]
    assert np.isnat(o_td).all() and len(want_td) == 5 and np.isnat(np.array(want_td)).all()
    assert np.isnat(o_dt[0]) and np.isnan(of[0])
    want = [a[0] == b[0], a[0] != b[0], a[0] < b[0], a[0] <= b[0], a[0] > b[0], a[0] >= b[0], ta[0] == tb[0],
            ta[0] != tb[0], ta[0] < tb[0], True, False, True]
    assert ob.tolist() == [bool(x) for x in want]


def test_comparisons_div_minmax_int_and_scalar_arguments():
    @cuda.jit
    def cmp(d, s, td, ts, t, ob, of, o, oi, od):
        ob[0] = d[0] < s[0]
        ob[1] = d[0] == s[1]
        ob[2] = td[0] > ts[0]
        ob[3] = td[0] == ts[1]
        ob[4] = td[0] <= t
        ob[5] = d[1] >= d[0]
        of[0] = td[0] / ts[0]
        of[1] = ts[0] / td[1]
        o[0] = max(td[0], td[1])
        o[1] = min(td[0], td[1], td[2])
        o[2] = max(td[2], td[0])
        oi[0] = int(td[1])
        oi[1] = int(d[0])
        od[0] = max(d[0], d[1])

    d = dates("D", "2021-05-01", "2021-04-30")
    s = dates("s", "2021-05-01T00:00:01", "2021-05-01T00:00:00")
    td = np.array([2, -5, "NaT"], dtype="m8[D]")
    ts = np.array([172799, 172800], dtype="m8[s]")
    t = np.timedelta64(2, "D")
    ob = np.zeros(6, dtype=np.bool_)
    of = np.zeros(2)
    o = np.zeros(3, dtype="m8[D]")
    oi = np.zeros(2, dtype=np.int64)
    od = np.zeros(1, dtype="M8[D]")
    cmp[1, 1](d, s, td, ts, t, ob, of, o, oi, od)
    assert ob.tolist() == [d[0] < s[0], d[0] == s[1], td[0] > ts[0], td[0] == ts[1], td[0] <= t, d[1] >= d[0]]
    assert of.tolist() == [td[0] / ts[0], ts[0] / td[1]]
    # Python's max/min as numba-cuda folds them: the later argument replaces the result only where it compares
    # greater (less), so a NaT first stays and a NaT later is passed over
    assert o.view(np.int64).tolist() == [2, -5, np.iinfo(np.int64).min]
    assert oi.tolist() == [-5, int(d[0].astype(np.int64))]
    assert od[0] == d[0]


def test_types_and_signatures():
    assert types.from_dtype(np.dtype("M8[D]")) is types.NPDatetime("D")
    assert types.from_dtype(np.dtype("m8")) is types.NPTimedelta("")
    assert types.as_dtype(types.NPTimedelta("ms")) == np.dtype("m8[ms]")
    assert str(types.typeof(np.zeros(3, dtype="M8[s]"))) == "datetime64[s][::1]"
    assert types.typeof(np.timedelta64(3, "h")) is types.NPTimedelta("h")
    assert types.normalize_signature("void(datetime64[D][:], NPTimedelta(''))") == "void(datetime64[D][:], NPTimedelta(''))"
    with pytest.raises(errors.UnsupportedError):
        types.from_dtype(np.dtype("m8[2D]"))

    @cuda.jit("void(datetime64[D][::1], timedelta64[h][::1], timedelta64[h])")
    def shift(d, o, t):
        o[0] = d[1] - d[0] + t

    o = np.zeros(1, dtype="m8[h]")
    shift[1, 1](dates("D", "2000-01-01", "2000-01-03"), o, np.timedelta64(5, "h"))
    assert o[0] == np.timedelta64(53, "h")


# numba-cuda's TypingErrors (each checked against numba-cuda's compile_ptx, which needs no GPU)
REFUSED = {
    "dt + dt": ("def f(a, b, o):\n    o[0] = a[0] + b[0]\n", ("M8[D]", "M8[D]", "M8[D]")),
    "dt == td": ("def f(a, b, o):\n    o[0] = a[0] == b[0]\n", ("M8[D]", "m8[D]", "?")),
    "td < int": ("def f(a, b, o):\n    o[0] = a[0] < b[0]\n", ("m8[D]", "i8", "?")),
    "td % td": ("def f(a, b, o):\n    o[0] = a[0] % b[0]\n", ("m8[D]", "m8[D]", "m8[D]")),
    "td // td": ("def f(a, b, o):\n    o[0] = a[0] // b[0]\n", ("m8[D]", "m8[D]", "i8")),
    "M - D timedeltas": ("def f(a, b, o):\n    o[0] = a[0] - b[0]\n", ("m8[M]", "m8[D]", "m8[D]")),
    "D + M": ("def f(a, b, o):\n    o[0] = a[0] + b[0]\n", ("M8[D]", "m8[M]", "M8[D]")),
    "copy to another unit": ("def f(a, b, o):\n    o[0] = a[0]\n", ("M8[D]", "M8[D]", "M8[s]")),
    "int into timedelta": ("def f(a, b, o):\n    o[0] = b[0]\n", ("m8[D]", "i8", "m8[D]")),
    "timedelta into float": ("def f(a, b, o):\n    o[0] = a[0]\n", ("m8[D]", "i8", "f8")),
    "float()": ("def f(a, b, o):\n    o[0] = float(a[0])\n", ("m8[D]", "i8", "f8")),
    "bool()": ("def f(a, b, o):\n    o[0] = bool(a[0])\n", ("m8[D]", "i8", "?")),
    "if td": ("def f(a, b, o):\n    if a[0]:\n        o[0] = 1\n", ("m8[D]", "i8", "i8")),
    "-dt": ("def f(a, b, o):\n    o[0] = -a[0]\n", ("M8[D]", "i8", "M8[D]")),
    "td * bool": ("def f(a, b, o):\n    o[0] = a[0] * b[0]\n", ("m8[D]", "?", "m8[D]")),
    "max of two units": ("def f(a, b, o):\n    o[0] = max(a[0], b[0])\n", ("m8[D]", "m8[s]", "m8[s]")),
    "index by timedelta": ("def f(a, b, o):\n    o[0] = b[a[0]]\n", ("m8[D]", "i8", "i8")),
    "bitwise and": ("def f(a, b, o):\n    o[0] = a[0] & a[0]\n", ("m8[D]", "i8", "m8[D]")),
    "range": ("def f(a, b, o):\n    for i in range(a[0]):\n        o[0] = i\n", ("m8[D]", "i8", "i8")),
    "atomic add": ("def f(a, b, o):\n    cuda.atomic.add(a, 0, a[1])\n", ("m8[D]", "i8", "i8")),
    # numba-cuda crashes on these (KeyError in its ufunc table): a TypingError here
    "np.add": ("def f(a, b, o):\n    a[0] = np.add(a[0], a[1])\n", ("m8[D]", "i8", "i8")),
    "np.sign": ("def f(a, b, o):\n    a[0] = np.sign(a[0])\n", ("m8[D]", "i8", "i8")),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_numba_cuda_typing_errors(name, tmp_path):
    source, dts = REFUSED[name]
    path = tmp_path / "k.py"
    path.write_text(source)
    ns = {"cuda": cuda, "np": np}
    exec(compile(source, str(path), "exec"), ns)
    import linecache
    linecache.cache[str(path)] = (len(source), None, source.splitlines(True), str(path))
    k = cuda.jit(ns["f"])
    args = [np.zeros(2, dtype=dt) for dt in dts]
    with pytest.raises(errors.TypingError):
        k[1, 1](*args)


def test_print_is_refused_as_numba_cuda_does():
    @cuda.jit
    def show(a):
        print(a[0])

    with pytest.raises(errors.UnsupportedError, match="printing unimplemented"):  # numba-cuda: NotImplementedError
        show[1, 1](np.zeros(1, dtype="m8[D]"))


def test_record_fields_of_datetime64_and_timedelta64():
    # numba-cuda's Record fields of NPDatetime / NPTimedelta: read, computed with, assigned (same unit: numba-cuda
    # casts no other unit, a lowering error there, kfront's TypingError here)
    dt = np.dtype([("t", "M8[D]"), ("d", "m8[D]"), ("x", np.int32), ("g", "m8")], align=True)

    @cuda.jit
    def fields(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i].d = a[i].t - a[0].t
            a[i]["g"] = a[i].g * 2
            out[i] = a[i].t > a[0].t

    a = np.zeros(4, dt)
    a["t"] = np.array(["2020-01-01", "2020-01-05", "2019-12-31", "NaT"], "M8[D]")
    a["g"] = np.array([1, -2, 3, 4], "m8")
    out = np.zeros(4, np.bool_)
    fields[1, 4](a, out)
    assert a["d"].tolist() == (a["t"] - a["t"][0]).tolist() and np.isnat(a["d"][3])
    assert a["g"].view(np.int64).tolist() == [2, -4, 6, 8]
    assert out.tolist() == [False, True, False, False]

    @cuda.jit
    def other_unit(a, b):
        a[0].d = b[0]

    with pytest.raises(errors.TypingError, match=r"cannot convert timedelta64\[s\] to timedelta64\[D\]"):
        other_unit[1, 1](a, np.zeros(1, "m8[s]"))


def test_device_function_signatures_of_datetime_scalars():
    """A device function declared for datetime64 / timedelta64 scalars takes them (their exact types)."""
    datetime_t = types.from_dtype(np.dtype("datetime64[D]"))
    timedelta_t = types.from_dtype(np.dtype("timedelta64[D]"))

    @cuda.jit([(datetime_t, datetime_t, timedelta_t[:])], device=True)
    def diff_into(start, end, out):
        out[0] = end - start

    @cuda.jit
    def kernel(a, b, out):
        diff_into(a[1], b[1], out)

    a = dates("D", "2005-02-01", "2005-02-10")
    out = np.zeros(1, "m8[D]")
    kernel[1, 1](a, a + np.array([0, 40], "m8[D]"), out)
    assert out[0] == np.timedelta64(40, "D")
