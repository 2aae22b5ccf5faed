#!/usr/bin/env bash
# run_wheel_gpu.sh — issue 27's acceptance on the GPU machine: the wheel installed as a user with only a GPU driver
# would install it, `pip install kfront_cuda-*.whl[cu13]` into a fresh virtual environment, NVIDIA's CUDA wheels
# (libNVVM with libdevice, NVRTC, nvJitLink) and NumPy pulled from WHEELDIR alone (no index), then, with the
# system's CUDA toolkit hidden (an empty folder mounted over it in a mount namespace of its own, else moved aside
# and put back on exit) and no CUDA_HOME / CUDA_PATH / LD_LIBRARY_PATH:
#   1. `kfront -s` finds every CUDA library in the venv's nvidia/cu13 and the GPU;
#   2. each acceptance program marked `any` (the seeds, p004_nvjitlink.py) runs unchanged through
#      `python -m kfront` on the GPU;
#   3. a kernel calling CUDA C++ (cuda.declare_device with a CUSource: NVRTC and nvJitLink from the wheels) gives
#      NumPy's answer.
# Ends "wheel on the GPU: ok"; any failure exits non-zero.
#
#   test/install/run_wheel_gpu.sh WHEELDIR
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 WHEELDIR" >&2; exit 2; }
wheels=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${KFRONT_WHEEL_HIDDEN:-}" != 1 ]; then
  wheel=$(ls "$wheels"/kfront_cuda-*.whl | head -n1)
  [ -f "$wheel" ] || { echo "no kfront_cuda wheel in $wheels" >&2; exit 2; }
  venv=$(mktemp -d /tmp/kfront-wheel-venv.XXXXXX)
  empty=$(mktemp -d)
  toolkit=$(readlink -f /usr/local/cuda)
  hidden=""
  # the venv and the empty folder go when the run ends; a toolkit moved aside comes back
  trap 'rm -rf "$venv" "$empty"; [ -z "$hidden" ] || mv "$hidden" "$toolkit"' EXIT
  python3 -m venv "$venv" || exit 1
  echo "== pip install $(basename "$wheel")[cu13] (no index: $wheels)"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$wheels" \
    "$wheel[cu13]" || { echo "wheel on the GPU: FAIL: pip install" >&2; exit 1; }
  "$venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -iE "kfront|nvidia|cuda|numpy"
  export KFRONT_WHEEL_VENV=$venv KFRONT_WHEEL_HIDDEN=1 KFRONT_WHEEL_TOOLKIT=$toolkit
  unset CUDA_HOME CUDA_PATH CONDA_PREFIX LD_LIBRARY_PATH KFRONT_LIBNVVM KFRONT_LIBDEVICE KFRONT_LIBNVRTC \
    KFRONT_LIBNVJITLINK KFRONT_SIM NUMBA_ENABLE_CUDASIM PYTHONPATH
  if unshare --mount --propagation private true 2>/dev/null; then
    echo "== the system toolkit ($toolkit) hidden by an empty mount in a namespace of its own"
    unshare --mount --propagation private bash -c 'mount --bind "$1" "$2" && exec bash "$3" "$4"' _ \
      "$empty" "$toolkit" "$0" "$wheels"
    exit $?
  fi
  echo "== the system toolkit ($toolkit) moved aside for the run"
  mv "$toolkit" "$toolkit.kfront-hidden" || { echo "cannot hide $toolkit" >&2; exit 1; }
  hidden=$toolkit.kfront-hidden
  bash "$0" "$wheels"
  exit $?
fi

venv=$KFRONT_WHEEL_VENV
py=$venv/bin/python
fail() { echo "wheel on the GPU: FAIL: $*" >&2; exit 1; }
[ ! -e "$KFRONT_WHEEL_TOOLKIT/lib64/libnvvm.so" ] && [ ! -e "$KFRONT_WHEEL_TOOLKIT/nvvm" ] || fail "the toolkit is not hidden"
mkdir -p "$venv/work" && cd "$venv/work"  # (goes with the venv)

echo "== 1. kfront -s"
sys=$("$venv/bin/kfront" -s) || { echo "$sys"; fail "kfront -s exited $?"; }
echo "$sys"
echo "$sys" | grep -E "^Kernels run on +: the GPU" >/dev/null || fail "kfront -s finds no GPU"
for lib in libNVVM libdevice NVRTC nvJitLink; do
  echo "$sys" | grep -E "^$lib .*$venv/.*nvidia/cu13/" >/dev/null || fail "$lib not found in the venv's NVIDIA wheels"
done

echo "== 2. the acceptance programs through python -m kfront, on the GPU"
programs=$src/test/acceptance/programs
n=0
while IFS=$'\t' read -r program needs what; do
  case $program in '#'*|'') continue ;; esac
  [ "$needs" = any ] || continue
  (cd "$programs/$(dirname "$program")" && timeout 300 "$py" -m kfront "$(basename "$program")" >/tmp/wheel-prog.log 2>&1) ||
    { tail -n 20 /tmp/wheel-prog.log; fail "$program"; }
  echo "  ok: $program"
  n=$((n + 1))
done <"$programs/manifest.tsv"
[ "$n" -ge 5 ] || fail "only $n programs ran"

echo "== 3. CUDA C++ linked into a kernel (NVRTC and nvJitLink from the wheels)"
cat >linked.py <<'EOF'
import numpy as np
from kfront import cuda
times3 = cuda.declare_device("times3", "int32(int32)",
                             link=cuda.CUSource('extern "C" __device__ int times3(int *r, int a) { *r = 3 * a; return 0; }'))
@cuda.jit
def k(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = times3(x[i])
x = np.arange(1000, dtype=np.int32)
r = np.zeros_like(x)
k[4, 256](r, x)
assert (r == 3 * x).all()
print("  ok: declare_device with a CUSource, on", cuda.get_current_device().name)
EOF
"$py" linked.py || fail "the linked kernel"
echo "wheel on the GPU: ok"
