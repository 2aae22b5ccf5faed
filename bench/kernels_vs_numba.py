#!/usr/bin/env python3
"""kernels_vs_numba.py — GPU kernel time of the seed workloads: kfront's PTX against Numba's kernels, same GPU,
same run, plus the device's copy bandwidth. Needs a GPU, CuPy and numba-cuda; without a GPU it prints
"no GPU: skipped" and exits 0.

usage: bench/kernels_vs_numba.py [--reps N] [--json FILE] [--only NAME[,NAME...]]

Workloads (the seeds' kernels, unchanged; launch configurations of the seeds or of issue 5):
  double     s001 double, 30M float64, 128 threads/block, one thread per element
  inc2d      s002 increment_a_2D_array, 1000x1000 float32 in place, 16x16 blocks (32 arrays rotated: 128 MB,
             more than L2, so each launch reads DRAM)
  matmul     s002 fast_matmul, 4096x4096 float32 A, B and C, TPB=16 (the seed's loop runs A.shape[1]/TPB tiles)
  add        s000 add (grid-stride), 32M float64, SMs*32 blocks of 256
Each kernel is compiled for the signature both runtimes pick for C-contiguous device arrays
(float64[::1], float32[:, ::1], ...) with kfront's defaults (bounds checks on, default pipeline, -O3) and
Numba's (no bounds checks).

Three launch paths of the same workload:
  kfront/cupy  kfront's PTX (kf_compile_source + kf_module_emit_ptx through libkfront, for the device's arch)
               loaded with cupy.RawModule and launched by CuPy with the kernel ABI's parameters (include/kfront/
               abi.h: data pointer, shape[R] int64, strides[R] int64 bytes per array)
  kfront/rt    kfront's own runtime: kf_program_create over the seed file, kf_program_get_kernel for the device
               arrays, kf_launch (ctypes), i.e. the PTX the runtime compiles itself
  numba        the seed module's @cuda.jit kernel, launched with Numba device arrays over the same memory
Timing: CUDA events on the legacy default stream, around a batch of launches that starts behind a ~host-cost-
covering spin kernel (so the host's launch overhead, large for Numba, stays out of the GPU time); time per
launch = batch time / batch size; median over REPS batches after a warm-up batch. Outputs are poisoned (NaN)
and every path's result is checked against a CuPy reference before timing (exact for the elementwise kernels;
matmul: float64 reference, relative error < 1e-5, and kfront's C compared with Numba's).
Bandwidth: the fewest bytes each kernel must move (each input read once, each output written once) over its
time, as a fraction of a device-to-device copy of 1 GiB (bytes read + written over time, median of 20).
"""
import argparse
import json
import math
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kfront_ctypes  # noqa: E402
import seedmods  # noqa: E402

SPIN_PTX = r"""
.version 7.0
.target sm_80
.address_size 64

.visible .entry kf_bench_spin(.param .u64 kf_bench_spin_ns)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [kf_bench_spin_ns];
	mov.u64 %rd2, %globaltimer;
$L_spin:
	mov.u64 %rd3, %globaltimer;
	sub.s64 %rd4, %rd3, %rd2;
	setp.lt.s64 %p1, %rd4, %rd1;
	@%p1 bra $L_spin;
	ret;
}
"""


def no_gpu(reason):
    print("kernels_vs_numba: no GPU: skipped (%s)" % reason)
    sys.exit(0)


class Bench:
    def __init__(self, args):
        try:
            import cupy as cp
        except Exception as e:  # noqa: BLE001
            no_gpu("cannot import cupy: %s" % e)
        try:
            ndev = cp.cuda.runtime.getDeviceCount()
        except Exception as e:  # noqa: BLE001
            no_gpu(str(e).splitlines()[0])
        if ndev < 1:
            no_gpu("no device")
        self.cp = cp
        self.args = args
        props = cp.cuda.runtime.getDeviceProperties(0)
        self.name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        self.sms = props["multiProcessorCount"]
        self.cc = (props["major"], props["minor"])
        self.tmp = tempfile.mkdtemp(prefix="kf-bench-")
        self.spin_fn = self.load_ptx(SPIN_PTX, "spin.ptx").get_function("kf_bench_spin")
        self.start, self.end = cp.cuda.Event(), cp.cuda.Event()
        self.nb = seedmods.import_numba()
        self.seeds = seedmods.seeds_dir()
        lib = kfront_ctypes.load()
        self.kfc = kfront_ctypes.Compiler(lib, arch=self.cc[0] * 10 + self.cc[1])
        # KFRONT_BENCH_SIM=1: kfront's runtime on the simulator (only for testing this script without a GPU)
        mode = kfront_ctypes.KF_RUNTIME_SIM if os.environ.get("KFRONT_BENCH_SIM") == "1" else kfront_ctypes.KF_RUNTIME_GPU
        self.rt = kfront_ctypes.Runtime(lib, mode, disk_cache=False)
        self.programs = {}
        print("kernels_vs_numba: %s (sm_%d%d, %d SMs); kfront runtime: %s" % (
            self.name, self.cc[0], self.cc[1], self.sms, self.rt.describe()))

    def load_ptx(self, ptx, fname):
        path = os.path.join(self.tmp, fname)
        with open(path, "w") as f:
            f.write(ptx)
        return self.cp.RawModule(path=path)

    def spin(self, us):
        self.spin_fn((1,), (1,), (self.cp.uint64(int(us * 1000)),))

    def time_batches(self, launch, batch, reps, host_us_per_launch):
        """Median GPU time (ms) per launch: launch(i) issues launch number i."""
        cp = self.cp
        for i in range(batch):
            launch(i)
        cp.cuda.runtime.deviceSynchronize()
        spin_us = max(2000.0, batch * host_us_per_launch * 3)
        times = []
        n = batch
        for _ in range(reps):
            self.spin(spin_us)
            self.start.record()
            for i in range(batch):
                launch(n + i)
            self.end.record()
            self.end.synchronize()
            n += batch
            times.append(cp.cuda.get_elapsed_time(self.start, self.end) / batch)
        cp.cuda.runtime.deviceSynchronize()
        return statistics.median(times), min(times), max(times)

    def copy_bandwidth(self):
        cp = self.cp
        nbytes = (1 << 30) // self.args.small
        src = cp.random.random(nbytes // 8)
        dst = cp.empty_like(src)
        for _ in range(3):
            dst.data.copy_from_device(src.data, nbytes)
        times = []
        for _ in range(20):
            self.start.record()
            dst.data.copy_from_device(src.data, nbytes)
            self.end.record()
            self.end.synchronize()
            times.append(cp.cuda.get_elapsed_time(self.start, self.end))
        assert bool((dst == src).all())
        t = statistics.median(times)
        del src, dst
        cp.get_default_memory_pool().free_all_blocks()
        self.copy_bytes = nbytes
        return 2 * nbytes / (t * 1e-3) / 1e9, t

    # ---- kfront ------------------------------------------------------------------------------------------
    def seed_source(self, fname):
        path = os.path.join(self.seeds, fname)
        with open(path, "rb") as f:
            return path, f.read()

    def kfront_cupy(self, fname, kernel, sig):
        path, text = self.seed_source(fname)
        ptx = self.kfc.ptx_for(path, text, kernel, sig)
        entries = kfront_ctypes.ptx_entries(ptx)
        if len(entries) != 1:
            raise RuntimeError("expected one .entry in kfront's PTX for %s, found %s" % (kernel, entries))
        fn = self.load_ptx(ptx, "%s.ptx" % kernel).get_function(entries[0])
        cp = self.cp

        def abi_args(arrays):
            out = []
            for a in arrays:
                out.append(a)
                out += [cp.int64(n) for n in a.shape]
                out += [cp.int64(s) for s in a.strides]
            return tuple(out)
        return fn, abi_args

    def kfront_rt_launcher(self, fname, kernel, grid, block, arrays):
        path, text = self.seed_source(fname)
        prog = self.programs.get(fname)
        if prog is None:
            prog = self.programs[fname] = self.rt.program(path, text)
        args = [kfront_ctypes.device_array_arg(a.data.ptr, a.dtype.name, a.shape, a.strides) for a in arrays]
        k = self.rt.kernel(prog, kernel, args)
        return self.rt.launcher(k, grid, block, args), self.rt.signature(k)


def workloads(b):
    cp = b.cp
    out = []
    sm = b.args.small

    # double: 30M float64
    n = 30_000_000 // sm // 128 * 128
    x = cp.random.random(n)
    y = cp.empty_like(x)
    out.append(dict(
        name="double", file="s001_kernels.py", kernel="double", sig="void(float64[::1], float64[::1])",
        grid=(math.ceil(n / 128),), block=(128,), sets=[(x, y)], outputs=[1],
        check=lambda s: bool((s[1] == s[0] * 2).all()), bytes=16 * n, flops=n, batch=10,
        desc="%.3gM float64, 128/block" % (n / 1e6)))

    # inc2d: 1000x1000 float32 in place, 32 arrays rotated
    m = 1000 // sm
    arrs = [cp.random.random((m, m), dtype=cp.float32) for _ in range(32)]
    g = math.ceil(m / 16)
    out.append(dict(
        name="inc2d", file="s002_kernels.py", kernel="increment_a_2D_array", sig="void(float32[:, ::1])",
        grid=(g, g), block=(16, 16), sets=[(a,) for a in arrs], outputs=[], inplace=True,
        check=None, bytes=8 * m * m, flops=m * m, batch=32, desc="%dx%d float32, 16x16 blocks, 32 arrays" % (m, m)))

    # matmul: 4096^2 float32
    N, tpb = 4096 // sm // 16 * 16, 16
    A = cp.random.random((N, N), dtype=cp.float32)
    B = cp.random.random((N, N), dtype=cp.float32)
    C = cp.empty((N, N), dtype=cp.float32)
    ref = {}

    def check_mm(s):
        if "C" not in ref:
            ref["C"] = cp.matmul(A.astype(cp.float64), B.astype(cp.float64))
        r = ref["C"]
        err = float(cp.linalg.norm(s[2].astype(cp.float64) - r) / cp.linalg.norm(r))
        return bool(cp.isfinite(s[2]).all()) and err < 1e-5
    out.append(dict(
        name="matmul", file="s002_kernels.py", kernel="fast_matmul",
        sig="void(float32[:, ::1], float32[:, ::1], float32[:, ::1])", grid=(N // tpb, N // tpb), block=(tpb, tpb),
        sets=[(A, B, C)], outputs=[2], check=check_mm, bytes=3 * 4 * N * N, flops=2 * N ** 3, batch=2,
        desc="%d^2 float32, TPB=16" % N, cmp_exact=True))

    # add: grid-stride, 32M float64
    n2 = 32 * 1024 * 1024 // sm
    xa = cp.random.random(n2)
    ya = cp.random.random(n2)
    oa = cp.empty_like(xa)
    out.append(dict(
        name="add", file="s000_kernels.py", kernel="add", sig="void(float64[::1], float64[::1], float64[::1])",
        grid=(b.sms * 32,), block=(256,), sets=[(xa, ya, oa)], outputs=[2],
        check=lambda s: bool((s[2] == s[0] + s[1]).all()), bytes=24 * n2, flops=n2, batch=10,
        desc="%.3gM float64 grid-stride, %d x 256" % (n2 / 2**20, b.sms * 32)))
    return out


def run_workload(b, w, reps):
    cp = b.cp
    nb = b.nb
    res = {"name": w["name"], "desc": w["desc"], "bytes": w["bytes"], "flops": w["flops"]}
    grid, block = w["grid"], w["block"]
    sets = w["sets"]
    poison = lambda: [s[i].fill(cp.nan) for s in sets for i in w["outputs"]]  # noqa: E731
    inplace_orig = [s[0].copy() for s in sets] if w.get("inplace") else None

    def check(tag, launch_one):
        poison()
        if inplace_orig is not None:
            for s, o in zip(sets, inplace_orig):
                s[0][...] = o
        launch_one()
        cp.cuda.runtime.deviceSynchronize()
        if inplace_orig is not None:
            ok = all(bool((s[0] == o + cp.float32(1)).all()) for s, o in zip(sets, inplace_orig))
        else:
            ok = all(w["check"](s) for s in sets)
        if not ok:
            raise RuntimeError("%s: %s gives a wrong result" % (w["name"], tag))

    paths = {}
    # kfront's PTX through CuPy
    try:
        fn, abi_args = b.kfront_cupy(w["file"], w["kernel"], w["sig"])
        packed = [abi_args(s) for s in sets]
        launch = lambda i: fn(grid, block, packed[i % len(packed)])  # noqa: E731
        check("kfront/cupy", lambda: [launch(i) for i in range(len(sets))])
        paths["kfront_cupy"] = (launch, 15.0)
        if w.get("cmp_exact"):
            res["_kfront_out"] = [s[i].copy() for s in sets for i in w["outputs"]]
    except Exception as e:  # noqa: BLE001
        res["kfront_cupy_error"] = str(e)
    # kfront's runtime
    try:
        launchers = []
        for s in sets:
            go, sig = b.kfront_rt_launcher(w["file"], w["kernel"], grid, block, s)
            launchers.append(go)
        res["kfront_rt_signature"] = sig
        launch_rt = lambda i: launchers[i % len(launchers)]()  # noqa: E731
        check("kfront/rt", lambda: [launch_rt(i) for i in range(len(sets))])
        b.rt.synchronize()
        paths["kfront_rt"] = (launch_rt, 20.0)
    except Exception as e:  # noqa: BLE001
        res["kfront_rt_error"] = str(e)
    # Numba
    try:
        mod = seedmods.import_seed(os.path.join(b.seeds, w["file"]))
        kern = getattr(mod, w["kernel"])
        nb_sets = [tuple(nb.cuda.as_cuda_array(a) for a in s) for s in sets]
        cfg = kern[grid, block]
        launch_nb = lambda i: cfg(*nb_sets[i % len(nb_sets)])  # noqa: E731
        check("numba", lambda: [launch_nb(i) for i in range(len(sets))])
        paths["numba"] = (launch_nb, 60.0)
        if w.get("cmp_exact") and "_kfront_out" in res:
            mine = [s[i] for s in sets for i in w["outputs"]]
            same = all(bool((p == q).all()) for p, q in zip(res["_kfront_out"], mine))
            diff = max(float(cp.abs(p - q).max()) for p, q in zip(res["_kfront_out"], mine))
            res["kfront_equals_numba"] = same
            res["max_abs_diff_kfront_numba"] = diff
    except Exception as e:  # noqa: BLE001
        res["numba_error"] = "%s: %s" % (type(e).__name__, e)
    res.pop("_kfront_out", None)

    for tag, (launch, host_us) in paths.items():
        try:
            med, lo, hi = b.time_batches(launch, w["batch"], reps, host_us)
            if tag == "kfront_rt":
                b.rt.synchronize()
            res[tag + "_ms"] = med
            res[tag + "_range_ms"] = [lo, hi]
            res[tag + "_gbs"] = w["bytes"] / (med * 1e-3) / 1e9
        except Exception as e:  # noqa: BLE001
            res[tag + "_error"] = str(e)
    if "kfront_cupy_ms" in res and "numba_ms" in res:
        res["ratio"] = res["numba_ms"] / res["kfront_cupy_ms"]
    if "kfront_rt_ms" in res and "numba_ms" in res:
        res["ratio_rt"] = res["numba_ms"] / res["kfront_rt_ms"]
    return res


def fmt(v, spec):
    return spec % v if isinstance(v, (int, float)) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--only")
    ap.add_argument("--small", type=int, default=1, help="divide every size by this (quick runs, script tests)")
    args = ap.parse_args()
    b = Bench(args)
    bw, bw_ms = b.copy_bandwidth()
    print("kernels_vs_numba: device-to-device copy of %d MiB: %.3f ms, %.0f GB/s (read + write)" % (
        b.copy_bytes >> 20, bw_ms, bw))
    only = set(args.only.split(",")) if args.only else None
    results = []
    for w in workloads(b):
        if only and w["name"] not in only:
            continue
        r = run_workload(b, w, args.reps if w["name"] != "matmul" else max(3, args.reps // 4))
        for tag in ("kfront_cupy", "kfront_rt", "numba"):
            if tag + "_gbs" in r:
                r[tag + "_frac"] = r[tag + "_gbs"] / bw
        results.append(r)
        for k in [k for k in r if k.endswith("_error")]:
            print("  %s %s: %s" % (w["name"], k[:-6], r[k]))
        sys.stdout.flush()

    print()
    print("kernel time per launch (ms, median of batches, CUDA events); ratio = numba / kfront; GB/s = fewest bytes"
          " / time; frac = of the %.0f GB/s copy" % bw)
    hdr = "%-8s %-36s %9s %9s %9s %7s %8s %6s %8s %6s" % (
        "workload", "", "kfront", "kf rt", "numba", "ratio", "kf GB/s", "frac", "nb GB/s", "frac")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        print("%-8s %-36s %9s %9s %9s %7s %8s %6s %8s %6s" % (
            r["name"], r["desc"][:36], fmt(r.get("kfront_cupy_ms"), "%.4f"), fmt(r.get("kfront_rt_ms"), "%.4f"),
            fmt(r.get("numba_ms"), "%.4f"), fmt(r.get("ratio"), "%.2fx"), fmt(r.get("kfront_cupy_gbs"), "%.0f"),
            fmt(r.get("kfront_cupy_frac"), "%.2f"), fmt(r.get("numba_gbs"), "%.0f"), fmt(r.get("numba_frac"), "%.2f")))
        if r["name"] == "matmul":
            for tag in ("kfront_cupy", "numba"):
                if tag + "_ms" in r:
                    print("         %s: %.2f TFLOP/s" % (tag, r["flops"] / (r[tag + "_ms"] * 1e-3) / 1e12))
            if "kfront_equals_numba" in r:
                print("         kfront's C == numba's C: %s (max abs diff %g)" % (
                    r["kfront_equals_numba"], r["max_abs_diff_kfront_numba"]))
    lines = []
    ok = [r for r in results if "ratio" in r]
    slower = [r["name"] for r in ok if r["ratio"] < 1.0]
    lines.append("kernels: copy %.0f GB/s; " % bw + ", ".join(
        "%s %.2fx" % (r["name"], r["ratio"]) for r in ok) + " (numba/kfront, aim >= 1.0 each)" +
        ("; slower than numba: " + ", ".join(slower) if slower else ""))
    failed = [r["name"] for r in results if "ratio" not in r]
    if failed:
        lines.append("kernels: not compared (an error above): " + ", ".join(failed))
    print()
    for line in lines:
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": b.name, "copy_gbs": bw, "rows": results, "lines": lines}, f, indent=1)
    b.rt.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
