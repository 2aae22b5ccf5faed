#!/usr/bin/env bash
# run_gpu.sh — minilang's examples on a GPU when there is one: run_minilang_test.sh with minilang_run in
# --mode auto (kfront's runtime takes the GPU when a CUDA driver and a device are found, else the simulator) or,
# given `gpu`, --mode gpu (fails where there is no GPU). Every result is checked exactly, as on the simulator;
# the first line of minilang_run says what ran the kernels ("GPU 0: NVIDIA H200 (sm_90, 132 SMs)" or
# "simulator (no CUDA driver found ...)").
#
#   examples/minilang/run_gpu.sh BUILD_DIR [auto|gpu]     (env: CMAKE, CC as for run_minilang_test.sh)
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 BUILD_DIR [auto|gpu]" >&2; exit 2; }
case ${2:-auto} in auto|gpu) ;; *) echo "$0: the mode is auto or gpu, not '$2'" >&2; exit 2 ;; esac
MINILANG_MODE=${2:-auto} exec bash "$(dirname "$0")/run_minilang_test.sh" "$1"
