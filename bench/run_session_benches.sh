#!/usr/bin/env bash
# run_session_benches.sh DEST — issue 24's benchmarks of a session in one device call, each in its own process under a
# time limit, into $OUT: the workload suite with block-pair off and on (suite_vs_numba.py --block-pair both), the
# matmul tile variants (matmul_variants.py), the launch's host cost from Python (launch_args.py) beside raw
# cuLaunchKernel from C (bench_dispatch) in the same run, Black-Scholes. DEST: the folder bench/stage_gpu.sh made.
set -u
dest=$(cd "${1:?usage: run_session_benches.sh DEST}" && pwd)
cd "$(dirname "$0")/.."
out=${OUT:?writes into OUT}
export PYTHONPATH="$dest/python" CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
run() { local name=$1 secs=$2; shift 2; echo "=== $name ($(date -u +%H:%M:%S))"; timeout "$secs" "$@" >"$out/$name.txt" 2>&1
        echo "rc=$?" >>"$out/$name.txt"; tail -n 40 "$out/$name.txt"; }
run suite 200 python3 bench/suite_vs_numba.py --block-pair both --json "$out/suite.json"
run matmul_variants 150 python3 bench/matmul_variants.py --reps 5 --json "$out/matmul_variants.json"
run dispatch 60 "$dest/bin/bench_dispatch" 10000 9
run launch_args 60 python3 bench/launch_args.py --reps 10000
run black_scholes 40 python3 bench/black_scholes_vs_numba.py
