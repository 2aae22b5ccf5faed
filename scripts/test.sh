#!/usr/bin/env bash
# test.sh — builds kfront and runs every test: the C unit tests and the lit/FileCheck suites (ctest),
# then the same suite built by clang with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan), with the
# libFuzzer harnesses of test/fuzz each run for a fixed number of inputs and a bounded part of the Python module's
# pytest suite run against its instrumented extension (python/pytest-sanitizers; docs/safety.md).
# Ends with one summary line: "N passed, N failed".
#   KFRONT_SKIP_SANITIZERS=1  skips the sanitizer build (quicker local runs)
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }
# the project's virtual environment first on PATH (scripts/python_env.sh): CMake, ctest and every test's python3 use it
py=$(./scripts/python_env.sh | tail -n1) || { echo "setup failed: no build/venv"; echo "0 passed, 1 failed"; exit 1; }
. "$(dirname "$py")/activate"

jobs=$(nproc 2>/dev/null || echo 2)
passed=0 failed=0

run_suite() {  # $1 build dir, $2.. extra cmake args
  local dir=$1; shift
  if ! cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE="$py" -DPYTHON3="$py" \
         "$@" >/dev/null ||
     ! cmake --build "$dir" -j "$jobs"; then
    echo "build failed in $dir"
    failed=$((failed + 1))
    return
  fi
  local log
  log=$(mktemp)
  ctest --test-dir "$dir" -j "$jobs" --output-on-failure 2>&1 | tee "$log"
  local total fails
  total=$(sed -n 's/.*tests passed, [0-9]* tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -n1)
  fails=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -n1)
  if [ -z "$total" ]; then
    failed=$((failed + 1))
  else
    passed=$((passed + total - fails))
    failed=$((failed + fails))
  fi
  rm -f "$log"
}

run_suite build
if [ "${KFRONT_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang) =="
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS=suppressions=$PWD/test/lsan.supp:print_suppressions=0  # NVIDIA libraries' own leaks
  # clang's UBSan flags more than gcc's; a build-asan configured with another compiler is made again
  # (CMake cannot switch a configured tree's compiler)
  if [ -f build-asan/CMakeCache.txt ] && ! grep -q '^CMAKE_C_COMPILER:[A-Z]*=.*clang' build-asan/CMakeCache.txt; then
    rm -rf build-asan
  fi
  # with the fuzzing harnesses, each run over its seed corpus and findings for a fixed number of inputs
  run_suite build-asan -DKFRONT_SANITIZE=ON -DKFRONT_FUZZ=ON -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
