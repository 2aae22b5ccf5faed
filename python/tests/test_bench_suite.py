"""test_bench_suite.py — bench/suite_vs_numba.py's workloads (kernels written as Numba users write them: 2-D
grids, stencils, a thread per row, shared-memory reductions, atomics, Black-Scholes, n-body) on the simulator,
each result checked against NumPy by the script itself, so the benchmark's kernels stay correct between GPU runs."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_suite_kernels_agree_with_numpy_on_the_simulator():
    env = dict(os.environ, KFRONT_SIM="1")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "suite_vs_numba.py")], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    checked = [line.split()[0] for line in p.stdout.splitlines() if "simulator: checked" in line]
    assert len(checked) >= 12, p.stdout
    assert "no GPU: timing skipped" in p.stdout
