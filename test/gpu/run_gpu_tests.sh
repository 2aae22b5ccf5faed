#!/usr/bin/env bash
# run_gpu_tests.sh — the seed programs' launches through `kfront run`, checked against NumPy; the IndexError
# path (foo_grid with 32 threads over 10 elements) and a working launch after it; NumPy ufuncs, math functions
# and CUDA intrinsics (numeric_kernels.py against NumPy, and on a GPU against the simulator); the on-disk kernel
# cache (miss, hit, --no-cache, a corrupted entry recompiled). Prints PASS/FAIL/SKIP per case, then
# "N passed, N failed". Builds nothing: give it a built tree.
#
#   test/gpu/run_gpu_tests.sh [BUILD_DIR]          (default: build)
#   KFRONT=/path/to/kfront                          the binary (default: BUILD_DIR/bin/kfront)
#   KFRONT_SIM=1                                    run everything on the simulator (what CI does); the cache
#                                                   cases are skipped there (the simulator runs kir, not PTX)
#   KFRONT_SEEDS=DIR                                the seed programs (default: test/acceptance/seeds)
#   --full                                          the seeds' own sizes on the simulator too (slow)
#   --record FILE                                   append "date | device | N passed, N failed" to FILE
# On the simulator the largest launch (30M doubles) uses 1M unless --full.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
record=""
full=0
while [ $# -gt 0 ]; do
  case $1 in
    --record) record=$2; shift 2 ;;
    --full) full=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) build=$1; shift ;;
  esac
done
[ -d "$build" ] && build=$(cd "$build" && pwd)
kfront=${KFRONT:-$build/bin/kfront}
case $kfront in
  */*) [ -e "$kfront" ] && kfront=$(cd "$(dirname "$kfront")" && pwd)/$(basename "$kfront") ;;
  *) kfront=$(command -v "$kfront" || echo "$kfront") ;;
esac
if [ ! -x "$kfront" ]; then
  echo "run_gpu_tests: no kfront binary at $kfront (build first, or set KFRONT)"
  echo "0 passed, 1 failed"
  exit 1
fi
seeds=${KFRONT_SEEDS:-$root/test/acceptance/seeds}
if [ ! -f "$seeds/s000_kernels.py" ] || ! python3 -c 'import numpy' 2>/dev/null; then
  echo "run_gpu_tests: need the seed programs (s000_kernels.py ... in $seeds; KFRONT_SEEDS names another folder)"
  echo "  and python3 with numpy (. build/venv/bin/activate: scripts/python_env.sh)"
  echo "0 passed, 1 failed"
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfront-gpu-tests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export KFRONT_CACHE_DIR=$tmp/cache
unset KFRONT_NO_CACHE KFRONT_VERBOSE
timeout_cmd=""
command -v timeout >/dev/null && timeout_cmd="timeout ${KFRONT_TEST_TIMEOUT:-120}"
passed=0 failed=0 skipped=0

# What runs the kernels: the first line of a verbose run.
sim=0
case ${KFRONT_SIM:-0} in ""|0) ;; *) sim=1 ;; esac
python3 - "$tmp/probe" <<'EOF'
import numpy as np, os, sys
os.makedirs(sys.argv[1], exist_ok=True)
np.save(os.path.join(sys.argv[1], "a.npy"), np.arange(1))
np.save(os.path.join(sys.argv[1], "b.npy"), np.zeros(1))
EOF
device=$(cd "$seeds" && $timeout_cmd "$kfront" run s000_kernels.py -k foo_grid --grid 1 --block 1 -v --no-cache \
           "$tmp/probe/a.npy" "$tmp/probe/b.npy" 2>&1 >/dev/null | sed -n 's/^kfront run: \(GPU.*\|simulator.*\)$/\1/p' | head -n1)
[ -z "$device" ] && device="unknown (the probe launch failed)"
case $device in simulator*) sim=1 ;; esac
echo "run_gpu_tests: $kfront on $device"
echo "run_gpu_tests: seeds from $seeds"

big=1
[ "$sim" = 1 ] && [ "$full" = 0 ] && big=0

# ---- inputs --------------------------------------------------------------------------------------
python3 - "$tmp/in" "$big" <<'EOF'
import math, os, sys
import numpy as np
d, big = sys.argv[1], sys.argv[2] == "1"
rng = np.random.default_rng(2026)
def save(case, **arrays):
    os.makedirs(os.path.join(d, case), exist_ok=True)
    for name, a in arrays.items():
        np.save(os.path.join(d, case, name + ".npy"), a)
inp = np.asarray(range(10))
save("foo_manual_index", input=inp, output=np.zeros(len(inp)))
save("foo_grid", input=inp, output=np.zeros(len(inp)))
save("foo_grid_oob", input=inp, output=np.zeros(len(inp)))
save("foo_grid_after", input=inp, output=np.zeros(len(inp)))
a = np.arange(10)
save("add", a=a, b=a * 2, out=np.zeros_like(a))
save("foo_index", data=inp, output=np.zeros(len(inp)))
n = 30_000_000 if big else 8192 * 128  # the seed's kernel has no guard: n must be a multiple of the block (128)
save("double", random_array=rng.random(n), output=np.zeros(n))
save("increment_by_one_manual", an_array=np.ones(10000, dtype=np.float32))
m = 1000
save("increment_a_2D_array", a2=rng.random((m, m)).astype(np.float32))
TPB = 16
save("fast_matmul", A=np.full((TPB * 2, TPB * 3), 3, dtype=np.float32),
     B=np.full((TPB * 3, TPB * 1), 4, dtype=np.float32), C=np.zeros((TPB * 2, TPB * 1)))
for case in ("doubled", "doubled_auto_grid"):
    save(case, arr=rng.standard_normal((3, 3)).astype(np.float32))
arr = rng.standard_normal((3, 3)).astype(np.float32)
save("doubled_man_copy", arr=arr, out=np.zeros_like(arr))
save("cache", a=a, b=a * 3, out=np.zeros_like(a))
EOF
[ -d "$tmp/in/add" ] || { echo "run_gpu_tests: could not write the inputs"; echo "0 passed, 1 failed"; exit 1; }
in=$tmp/in
n_double=$(python3 -c "import numpy as np; print(np.load('$in/double/output.npy', mmap_mode='r').shape[0])")
m_2d=$(python3 -c "import numpy as np; print(np.load('$in/increment_a_2D_array/a2.npy', mmap_mode='r').shape[0])")

# ---- helpers -------------------------------------------------------------------------------------
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() {
  echo "FAIL $1${2:+: $2}"
  failed=$((failed + 1))
  [ -f "$tmp/$1.log" ] && sed 's/^/    | /' "$tmp/$1.log" | head -n 20
}
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }

# check CASE PYTHON-EXPRESSION: i[name] = the case's inputs, o[name] = its outputs (-o DIR), np = numpy
check() {
  python3 - "$in/$1" "$tmp/out/$1" "$2" <<'EOF'
import glob, os, sys
import numpy as np
def load(d):
    return {os.path.basename(p)[:-4]: np.load(p) for p in glob.glob(os.path.join(d, "*.npy"))}
i, o = load(sys.argv[1]), load(sys.argv[2])
ok = bool(eval(sys.argv[3]))
if not ok:
    for k in sorted(o):
        print("    | output %s: %s" % (k, np.array2string(o[k].ravel()[:12])))
sys.exit(0 if ok else 1)
EOF
}

# launch CASE SEED KERNEL GRID BLOCK ARG... : kfront run in the seeds' folder, outputs to $tmp/out/CASE
launch() {
  local case=$1 seed=$2 kernel=$3 grid=$4 block=$5
  shift 5
  mkdir -p "$tmp/out/$case"
  (cd "$seeds" && $timeout_cmd "$kfront" run "$seed" -k "$kernel" --grid "$grid" --block "$block" \
     -o "$tmp/out/$case" "$@") >"$tmp/$case.log" 2>&1
}

# run_case CASE CHECK SEED KERNEL GRID BLOCK ARG...
run_case() {
  local case=$1 expr=$2
  shift 2
  launch "$case" "$@"
  local rc=$?
  if [ $rc -ne 0 ]; then
    fail "$case" "kfront run failed (exit $rc)"
  elif ! check "$case" "$expr"; then
    fail "$case" "the outputs differ from NumPy's"
  else
    pass "$case"
  fi
}

# ---- s000 ---------------------------------------------------------------------------------------
run_case foo_manual_index "(o['output'] == i['input']).all()" \
  s000_kernels.py foo_manual_index 1 32 "$in/foo_manual_index/input.npy" "$in/foo_manual_index/output.npy"
run_case foo_grid "(o['output'] == i['input']).all()" \
  s000_kernels.py foo_grid 1 10 "$in/foo_grid/input.npy" "$in/foo_grid/output.npy"
run_case add "(o['out'] == i['a'] + i['b']).all() and (o['out'] == [0, 3, 6, 9, 12, 15, 18, 21, 24, 27]).all()" \
  s000_kernels.py add 1 32 "$in/add/a.npy" "$in/add/b.npy" "$in/add/out.npy"

# the out-of-bounds launch: 32 threads over 10 elements. Thread 10 fails first on the read of
# input_array[i] (Python evaluates the right-hand side before the store), which starts at column 23.
expected="IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:23)"
launch foo_grid_oob s000_kernels.py foo_grid 1 32 "$in/foo_grid_oob/input.npy" "$in/foo_grid_oob/output.npy"
rc=$?
if [ $rc -eq 0 ]; then
  fail foo_grid_oob "exit status 0, expected an IndexError"
elif [ $rc -ge 124 ]; then
  fail foo_grid_oob "exit status $rc (crash or timeout)"
elif ! grep -qF "$expected" "$tmp/foo_grid_oob.log"; then
  fail foo_grid_oob "no '$expected'"
else
  pass foo_grid_oob
fi
# the next launch works (on the GPU: a fresh process; runtime_context below checks the same process)
run_case foo_grid_after "(o['output'] == i['input']).all()" \
  s000_kernels.py foo_grid 1 10 "$in/foo_grid_after/input.npy" "$in/foo_grid_after/output.npy"
# the IndexError and a launch after it in one process (C API), if the unit test binary was built
ctxtest=$build/bin/unit_runtime_context
if [ -x "$ctxtest" ]; then
  if (cd "$root/test" && KFRONT_SEEDS=$seeds $timeout_cmd "$ctxtest") >"$tmp/context_survives.log" 2>&1; then
    pass context_survives
  else
    fail context_survives "unit_runtime_context failed"
  fi
else
  skip context_survives "no $ctxtest"
fi

# ---- s001 ---------------------------------------------------------------------------------------
run_case foo_index "(o['output'] == np.arange(10)).all()" \
  s001_kernels.py foo_index 1 10 "$in/foo_index/data.npy" "$in/foo_index/output.npy"
run_case double "(o['output'] == i['random_array'] * 2).all()" \
  s001_kernels.py double $(((n_double + 127) / 128)) 128 "$in/double/random_array.npy" "$in/double/output.npy"

# ---- s002 ---------------------------------------------------------------------------------------
blocks=$(((10000 + 511) / 512))
if launch increment_by_one_manual s002_kernels.py increment_by_one_manual $blocks 512 \
     "$in/increment_by_one_manual/an_array.npy" && check increment_by_one_manual "(o['an_array'] == 2).all()"; then
  pass increment_by_one_manual
  # the seed then runs increment_by_one on the same array: 3 everywhere
  mkdir -p "$in/increment_by_one"
  cp "$tmp/out/increment_by_one_manual/an_array.npy" "$in/increment_by_one/an_array.npy"
  run_case increment_by_one "(o['an_array'] == 3).all()" \
    s002_kernels.py increment_by_one $blocks 512 "$in/increment_by_one/an_array.npy"
else
  fail increment_by_one_manual
  skip increment_by_one "it runs on increment_by_one_manual's output"
fi
g2=$(((m_2d + 15) / 16))
run_case increment_a_2D_array "(o['a2'] == i['a2'] + np.float32(1)).all()" \
  s002_kernels.py increment_a_2D_array "$g2,$g2" 16,16 "$in/increment_a_2D_array/a2.npy"
run_case fast_matmul "(o['C'] == np.matmul(i['A'], i['B'])).all() and (o['C'] == 576).all()" \
  s002_kernels.py fast_matmul 2,1 16,16 "$in/fast_matmul/A.npy" "$in/fast_matmul/B.npy" "$in/fast_matmul/C.npy"

# ---- s003 ---------------------------------------------------------------------------------------
run_case doubled "(o['arr'] == i['arr'] * 2).all()" \
  s003_kernels.py doubled 1 3,3 "$in/doubled/arr.npy"
run_case doubled_auto_grid "(o['arr'] == i['arr'] * 2).all()" \
  s003_kernels.py doubled_auto_grid 1 3,3 "$in/doubled_auto_grid/arr.npy"
run_case doubled_man_copy "(o['out'] == i['arr'] * 2).all()" \
  s003_kernels.py doubled_man_copy 1 3,3 "$in/doubled_man_copy/arr.npy" "$in/doubled_man_copy/out.npy"
# reduce_gpu (@cuda.reduce), doubled_ufunc (@vectorize) and doubled_gufunc (@guvectorize) are called, not
# launched with [grid, block]: kfront run does not express them. The C API does (kf_reduce, kf_ufunc_call,
# kf_gufunc_call): test/unit/runtime_host_funcs.c calls these three as the seed does, and the host side of
# reductions, ufuncs and gufuncs at large, here on what the runtime picks (--auto: the GPU when there is one).
hftest=$build/bin/unit_runtime_host_funcs
if [ -x "$hftest" ]; then
  if (cd "$root/test" && KFRONT_SEEDS=$seeds $timeout_cmd "$hftest" --auto) >"$tmp/host_funcs.log" 2>&1; then
    pass host_funcs
  else
    fail host_funcs "unit_runtime_host_funcs --auto failed"
  fi
else
  skip host_funcs "no $hftest"
fi

# ---- numbers: NumPy ufuncs, math functions, CUDA intrinsics (numeric_kernels.py, check_numeric.py) --------
# against NumPy (libm functions within a few ulps); on a GPU also the GPU's results against the simulator's
# (the op semantics the simulator runs, from Python source)
numeric_run() {  # numeric_run DEST [kfront run options]
  local dest=$1 t
  shift
  for t in f64 f32; do
    mkdir -p "$dest/$t"
    (cd "$here" && $timeout_cmd "$kfront" run numeric_kernels.py -k numeric --grid 8 --block 32 "$@" -o "$dest/$t" \
       "$in/numeric/$t/x.npy" "$in/numeric/$t/y.npy" "$in/numeric/$t/out.npy" "$in/numeric/$t/ints.npy") \
      >>"$tmp/numeric.log" 2>&1 || return 1
  done
}
if ! python3 "$here/check_numeric.py" make "$in/numeric" >"$tmp/numeric.log" 2>&1; then
  fail numeric "could not write the inputs"
elif ! numeric_run "$tmp/out/numeric"; then
  fail numeric "kfront run failed"
elif ! python3 "$here/check_numeric.py" numpy "$in/numeric" "$tmp/out/numeric" >>"$tmp/numeric.log" 2>&1; then
  fail numeric "the outputs differ from NumPy's"
else
  pass numeric
fi
if [ "$sim" = 1 ]; then
  skip numeric_gpu_vs_simulator "no GPU: both runs would be the simulator's"
elif numeric_run "$tmp/out/numeric_sim" --sim &&
     python3 "$here/check_numeric.py" same "$in/numeric" "$tmp/out/numeric" "$tmp/out/numeric_sim" >"$tmp/numeric_gpu_vs_simulator.log" 2>&1; then
  pass numeric_gpu_vs_simulator
else
  fail numeric_gpu_vs_simulator "the GPU's results differ from the simulator's"
fi

# ---- usage errors ---------------------------------------------------------------------------------
"$kfront" run >"$tmp/usage.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "usage\|no input file" "$tmp/usage.log"; then pass usage_error; else fail usage_error "exit $rc"; fi

# ---- the disk cache (GPU only) -------------------------------------------------------------------------
cache_run() {  # cache_run CASE [kfront options]: the add kernel with -v; prints the cache line
  local case=$1
  shift
  launch "$case" s000_kernels.py add 1 32 -v "$@" "$in/cache/a.npy" "$in/cache/b.npy" "$in/cache/out.npy" &&
    check "$case" "(o['out'] == i['a'] + i['b']).all()" >/dev/null 2>&1 || { echo "launch failed"; return; }
  grep -m1 '^cache: ' "$tmp/$case.log" || echo "no cache line"
}
# the per-case inputs of cache_run are those of "cache"
for c in cache_miss cache_hit cache_off cache_corrupt cache_rewritten; do ln -s "$in/cache" "$in/$c"; done
if [ "$sim" = 1 ]; then
  for c in cache_miss cache_hit cache_off cache_corrupt; do skip "$c" "the simulator does not use the disk cache"; done
else
  rm -rf "$KFRONT_CACHE_DIR"
  line=$(cache_run cache_miss)
  [ "$line" = "cache: miss" ] && pass cache_miss || fail cache_miss "$line"
  line=$(cache_run cache_hit)
  [ "$line" = "cache: hit (disk)" ] && pass cache_hit || fail cache_hit "$line"
  line=$(cache_run cache_off --no-cache)
  [ "$line" = "cache: miss" ] && pass cache_off || fail cache_off "$line"
  # corrupt every entry (flip a byte in the middle): refused, recompiled, rewritten
  entries=$(find "$KFRONT_CACHE_DIR" -name '*.kfc' | wc -l)
  find "$KFRONT_CACHE_DIR" -name '*.kfc' | while read -r f; do
    python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0xFF; open(p,'wb').write(b)" "$f"
  done
  line=$(cache_run cache_corrupt)
  line2=$(cache_run cache_rewritten)
  if [ "$entries" -ge 1 ] && [ "$line" = "cache: miss" ] && [ "$line2" = "cache: hit (disk)" ]; then
    pass cache_corrupt
  else
    fail cache_corrupt "$entries entries; after corruption: '$line', then: '$line2'"
  fi
fi

[ $skipped -gt 0 ] && echo "($skipped skipped)"
summary="$passed passed, $failed failed"
if [ -n "$record" ]; then
  echo "$(date -u '+%Y-%m-%d %H:%M UTC') | $device | $summary" >>"$record"
fi
echo "$summary"
[ $failed -eq 0 ]
