"""GPU-only: FP8 (numba.cuda._internal.cuda_fp8) under kfront against numba-cuda on the same kernels and inputs (run
by test/gpu/run_python_gpu.sh on the GPU machine, where both are installed), bit for bit, NaN payloads included:
every conversion intrinsic in every saturation / interpretation / rounding mode on float32 and float64 edge cases
(the formats' values, the midpoints between them and their neighbours, overflow, subnormals, specials, random bit
patterns), every FP8 code a kernel can hold decoded to float16, bfloat16, float32, float64, each integer type and
boolean, and the constructors from every numeric type. kfront runs through libNVVM (PTX's cvt ...e4m3x2 on sm_89+)
and, in a second process, through LLVM's NVPTX target (the header's integer algorithm); and kfront's simulator
is compared with kfront's GPU results (float16 NaNs by NaN-ness: the simulator keeps no binary16 NaN payload).

    python3 -m pytest -q test/gpu/python/test_fp8_vs_numba.py     (PYTHONPATH: kfront's build/python)"""
import linecache
import math
import os
import subprocess
import sys

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

KERNELS = '''
@cuda.jit
def cvt32(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[0, i] = cvt_float_to_fp8(x[i], NOSAT, E4M3)
        out[1, i] = cvt_float_to_fp8(x[i], SATFINITE, E4M3)
        out[2, i] = cvt_float_to_fp8(x[i], NOSAT, E5M2)
        out[3, i] = cvt_float_to_fp8(x[i], SATFINITE, E5M2)
        out[4, i] = cvt_float_to_e8m0(x[i], NOSAT, RZ)
        out[5, i] = cvt_float_to_e8m0(x[i], SATFINITE, RZ)
        out[6, i] = cvt_float_to_e8m0(x[i], NOSAT, RU)
        out[7, i] = cvt_float_to_e8m0(x[i], SATFINITE, RU)
        a, b, c = fp8_e4m3(x[i]), fp8_e5m2(x[i]), fp8_e8m0(x[i])
        out[8, i] = cvt_float_to_fp8(float32(a), NOSAT, E4M3)
        out[9, i] = cvt_float_to_fp8(float32(b), NOSAT, E5M2)
        out[10, i] = cvt_float_to_e8m0(float32(c), NOSAT, RZ)
        h = float16(x[i])
        out[11, i] = cvt_float_to_fp8(float32(fp8_e4m3(h)), NOSAT, E4M3)
        out[12, i] = cvt_float_to_fp8(float32(fp8_e5m2(h)), NOSAT, E5M2)
        out[13, i] = cvt_float_to_e8m0(float32(fp8_e8m0(h)), NOSAT, RZ)
        g = bfloat16(x[i])
        out[14, i] = cvt_float_to_fp8(float32(fp8_e4m3(g)), NOSAT, E4M3)
        out[15, i] = cvt_float_to_fp8(float32(fp8_e5m2(g)), NOSAT, E5M2)
        out[16, i] = cvt_float_to_e8m0(float32(fp8_e8m0(g)), NOSAT, RZ)

@cuda.jit
def cvt64(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[0, i] = cvt_double_to_fp8(x[i], NOSAT, E4M3)
        out[1, i] = cvt_double_to_fp8(x[i], SATFINITE, E4M3)
        out[2, i] = cvt_double_to_fp8(x[i], NOSAT, E5M2)
        out[3, i] = cvt_double_to_fp8(x[i], SATFINITE, E5M2)
        out[4, i] = cvt_double_to_e8m0(x[i], NOSAT, RZ)
        out[5, i] = cvt_double_to_e8m0(x[i], SATFINITE, RZ)
        out[6, i] = cvt_double_to_e8m0(x[i], NOSAT, RU)
        out[7, i] = cvt_double_to_e8m0(x[i], SATFINITE, RU)

@cuda.jit
def raw(e, out):
    i = cuda.grid(1)
    if i < e.shape[0]:
        r = cvt_e8m0_to_bf16raw(e[i])
        out[0, i] = r.x
        out[1, i] = cvt_bfloat16raw_to_fp8(r, NOSAT, E4M3)
        out[2, i] = cvt_bfloat16raw_to_fp8(r, SATFINITE, E5M2)
        out[3, i] = cvt_bfloat16raw_to_e8m0(r, SATFINITE, RU)
        out[4, i] = cvt_bfloat16raw_to_e8m0(r, NOSAT, RZ)

@cuda.jit
def decode(v, f16, f32, f64, bf, ints):
    i = cuda.grid(1)
    if i < v.shape[1]:
        a = fp8_e4m3(v[0, i])
        f16[0, i] = float16(a)
        f32[0, i] = float32(a)
        f64[0, i] = float64(a)
        bf[0, i] = float32(bfloat16(a))
        ints[0, 0, i] = int64(int8(a))
        ints[0, 1, i] = int64(uint8(a))
        ints[0, 2, i] = int64(int16(a))
        ints[0, 3, i] = int64(uint16(a))
        ints[0, 4, i] = int64(int32(a))
        ints[0, 5, i] = int64(uint32(a))
        ints[0, 6, i] = int64(a)
        ints[0, 7, i] = int64(uint64(a))
        ints[0, 8, i] = int64(boolean(a))
        a = fp8_e5m2(v[1, i])
        f16[1, i] = float16(a)
        f32[1, i] = float32(a)
        f64[1, i] = float64(a)
        bf[1, i] = float32(bfloat16(a))
        ints[1, 0, i] = int64(int8(a))
        ints[1, 1, i] = int64(uint8(a))
        ints[1, 2, i] = int64(int16(a))
        ints[1, 3, i] = int64(uint16(a))
        ints[1, 4, i] = int64(int32(a))
        ints[1, 5, i] = int64(uint32(a))
        ints[1, 6, i] = int64(a)
        ints[1, 7, i] = int64(uint64(a))
        ints[1, 8, i] = int64(boolean(a))
        a = fp8_e8m0(v[2, i])
        f16[2, i] = float16(a)
        f32[2, i] = float32(a)
        f64[2, i] = float64(a)
        bf[2, i] = float32(bfloat16(a))
        ints[2, 0, i] = int64(int8(a))
        ints[2, 1, i] = int64(uint8(a))
        ints[2, 2, i] = int64(int16(a))
        ints[2, 3, i] = int64(uint16(a))
        ints[2, 4, i] = int64(int32(a))
        ints[2, 5, i] = int64(uint32(a))
        ints[2, 6, i] = int64(a)
        ints[2, 7, i] = int64(uint64(a))
        ints[2, 8, i] = int64(boolean(a))

@cuda.jit
def from_ints(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        out[0, i] = float32(fp8_e4m3(int16(v)))
        out[1, i] = float32(fp8_e4m3(uint32(v)))
        out[2, i] = float32(fp8_e5m2(int64(v)))
        out[3, i] = float32(fp8_e5m2(uint64(v)))
        out[4, i] = float32(fp8_e8m0(int16(v)))
        out[5, i] = float32(fp8_e8m0(uint16(v)))
        out[6, i] = float32(fp8_e8m0(int32(v)))
        out[7, i] = float32(fp8_e8m0(uint32(v)))
        out[8, i] = float32(fp8_e8m0(int64(v)))
        out[9, i] = float32(fp8_e8m0(uint64(v)))
        out[10, i] = float32(fp8_e4m3(int8(v)))
'''


def scope_of(module):
    """The names the kernels use, from numba-cuda or from kfront (cudaRoundMode: cuda.bindings' for both)."""
    from cuda.bindings.runtime import cudaRoundMode
    if module == "numba":
        from numba.cuda._internal import cuda_fp8 as fp8
        from numba.cuda import types as t
        cuda = ncuda
    else:
        from kfront import cuda
        from kfront.cuda import fp8
        from kfront import types as t
    s = {name: getattr(fp8, name) for name in fp8.__all__}
    s.update({name: getattr(t, name) for name in ("float16", "float32", "float64", "bfloat16", "int8", "uint8", "int16",
                                                  "uint16", "int32", "uint32", "int64", "uint64", "boolean")})
    s.update(cuda=cuda, NOSAT=fp8.saturation_t.NOSAT, SATFINITE=fp8.saturation_t.SATFINITE,
             E4M3=fp8.fp8_interpretation_t.E4M3, E5M2=fp8.fp8_interpretation_t.E5M2, RZ=cudaRoundMode.cudaRoundZero,
             RU=cudaRoundMode.cudaRoundPosInf)
    fname = "<fp8 vs numba %s>" % module
    linecache.cache[fname] = (len(KERNELS), None, KERNELS.splitlines(True), fname)
    exec(compile(KERNELS, fname, "exec"), s)
    return s


def fp8_values():
    """Every E4M3 / E5M2 / E8M0 value (float64), as a list per format."""
    def dec(fmt, b):
        if fmt == "e8m0":
            return math.nan if b == 0xFF else math.ldexp(1.0, b - 127)
        ebits, mbits, bias = (4, 3, 7) if fmt == "e4m3" else (5, 2, 15)
        s = -1.0 if b & 0x80 else 1.0
        e, m = (b >> mbits) & ((1 << ebits) - 1), b & ((1 << mbits) - 1)
        if (fmt == "e4m3" and e == 15 and m == 7) or (fmt == "e5m2" and e == 31):
            return math.nan if m or fmt == "e4m3" else s * math.inf
        return s * (math.ldexp(m, 1 - bias - mbits) if e == 0 else math.ldexp((1 << mbits) + m, e - bias - mbits))
    return {f: [dec(f, b) for b in range(256)] for f in ("e4m3", "e5m2", "e8m0")}


def inputs():
    vals = set()
    for fmt, vs in fp8_values().items():
        fin = sorted(v for v in vs if math.isfinite(v) and v >= 0)
        for a, b in zip(fin, fin[1:]):
            vals.update([a, (a + b) / 2])
        vals.update([fin[-1] * 1.0625, fin[-1] * 1.125, fin[-1] * 1.2])
    vals.update([math.ldexp(1.0, k) for k in range(-149, 128)] + [math.ldexp(1.5, k) for k in range(-149, 127)])
    base = np.array(sorted(vals), np.float64).astype(np.float32)
    near = np.concatenate([base, np.nextafter(base, np.float32(np.inf)), np.nextafter(base, np.float32(-np.inf))])
    rand = np.random.default_rng(22).integers(0, 1 << 32, 30000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    nan32 = np.array([0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FFFFFFF], np.uint32).view(np.float32)
    x32 = np.concatenate([near, -near, rand, nan32, np.array([np.inf, -np.inf], np.float32)])
    d = x32.astype(np.float64)
    dn = np.concatenate([d, np.nextafter(d, np.inf), d * (1 + 2.0 ** -40), [1e300, -1e300, 5e-324]])
    nan64 = np.array([0x7FF8000000000000, 0x7FF4000000000000, 0xFFFC000000000001, 0x7FF0000000000001], np.uint64)
    x64 = np.concatenate([dn[~np.isnan(dn)], nan64.view(np.float64)])
    ints = np.array(sorted({0, 1, -1, 2, 3, 5, 7, 100, 127, -128, 255, 448, 449, 480, 1000, -1000, 32767, -32768,
                            57344, 61440, 65535, 1 << 24, (1 << 24) + 1, (1 << 31) - 1, -(1 << 31), (1 << 40) + 12345,
                            (1 << 63) - 1, -(1 << 63), (1 << 62) + (1 << 54), -(1 << 62) - 1}), np.int64)
    return x32, x64, ints


def compute(module):
    """Every kernel's outputs (a dict of arrays) under numba-cuda or kfront."""
    s = scope_of(module)
    x32, x64, ints = inputs()
    r = {}
    launch = lambda k, n, *a: s[k][(n + 127) // 128, 128](*a)
    out = np.zeros((17, x32.size), np.uint8)
    launch("cvt32", x32.size, x32, out)
    r["cvt32"] = out
    out = np.zeros((8, x64.size), np.uint8)
    launch("cvt64", x64.size, x64, out)
    r["cvt64"] = out
    e = np.arange(256, dtype=np.uint8)
    out = np.zeros((5, 256), np.uint16)
    launch("raw", 256, e, out)
    r["raw"] = out
    vals = fp8_values()
    v = np.array([vals[f] for f in ("e4m3", "e5m2", "e8m0")], np.float32)
    f16, f32 = np.zeros((3, 256), np.float16), np.zeros((3, 256), np.float32)
    f64, bf = np.zeros((3, 256), np.float64), np.zeros((3, 256), np.float32)
    iv = np.zeros((3, 9, 256), np.int64)
    launch("decode", 256, v, f16, f32, f64, bf, iv)
    r.update(f16=f16.view(np.uint16), f32=f32.view(np.uint32), f64=f64.view(np.uint64), bf=bf.view(np.uint32), ints=iv)
    out = np.zeros((11, ints.size), np.float32)
    launch("from_ints", ints.size, ints, out)
    r["from_ints"] = out.view(np.uint32)
    return r


def differences(a, b, loose_f16_nan=False):
    bad = []
    for key in a:
        x, y = a[key], b[key]
        if loose_f16_nan and key == "f16":
            nx, ny = (x & 0x7C00) == 0x7C00, (y & 0x7C00) == 0x7C00
            nan = nx & ny & ((x & 0x3FF) != 0) & ((y & 0x3FF) != 0)
            x, y = np.where(nan, 0, x), np.where(nan, 0, y)
        where = np.argwhere(x != y)
        if where.size:
            bad.append("%s: %d differ, first at %s: %s vs %s" % (key, len(where), where[0].tolist(),
                                                                  hex(int(x[tuple(where[0])])), hex(int(y[tuple(where[0])]))))
    return bad


@pytest.fixture(scope="module")
def results():
    return compute("numba"), compute("kfront")


def test_kfront_gpu_is_numba_cudas_bit_for_bit(results):
    want, got = results
    bad = differences(want, got)
    assert not bad, "\n".join(bad)


def test_kfront_simulator_is_the_gpu(results, tmp_path):
    """kfront's simulator (ir/op_semantics.c) computes what the GPU computes."""
    dump = tmp_path / "sim.npz"
    env = dict(os.environ, KFRONT_SIM="1")
    r = subprocess.run([sys.executable, __file__, "--dump", str(dump)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    sim = dict(np.load(dump))
    bad = differences(results[1], sim, loose_f16_nan=True)
    assert not bad, "\n".join(bad)


@pytest.mark.skipif(os.environ.get("KFRONT_BACKEND") == "llvm", reason="this process is the LLVM backend's run")
def test_llvm_backend_too():
    """The same comparisons with kfront through LLVM's NVPTX target (the header's integer algorithm throughout)."""
    env = dict(os.environ, KFRONT_BACKEND="llvm")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k",
                        "bit_for_bit"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]


if __name__ == "__main__" and sys.argv[1:2] == ["--dump"]:
    np.savez(sys.argv[2], **compute("kfront"))
