#!/usr/bin/env bash
# run_minilang_test.sh — ctest's examples/minilang: minilang built as an embedder builds it, and run.
#
#   examples/minilang/run_minilang_test.sh BUILD_DIR
#   (env: CMAKE, CC: the build's cmake and C compiler; ctest sets them)
#
# 1. `cmake --install BUILD_DIR` into a temporary prefix; examples/minilang configured against it out of tree
#    (find_package(kfront), kfront::kfront) and built.
# 2. minilang_run: saxpy, the reductions (a grid-strided one; a block's in shared memory with barriers and an
#    atomic add), a histogram with shared and global atomics and Collatz counts (while loops, a device function)
#    on the simulator (MINILANG_MODE=auto or gpu: see run_gpu.sh), results checked exactly, generic.ml's kernels
#    launched with f32 and f64 arrays (a generic program) and refused for i32 where generic.ml says why, an
#    IndexError located in its .ml.
# 3. minilang --ptx on each example: PTX with each kernel's .entry (where libNVVM is not found,
#    minilang says so and exits 3: reported here as "PTX: not checked", never as a pass).
# 4. each tests/*.ml with an `// expect: FILE:LINE:COL: error: MESSAGE` line fails to compile with exactly that
#    diagnostic first, followed by its source line and a caret; `minilang --diagnostics` lists one as facts
#    (severity, kind, location with its span, message) read through kf_context_diagnostic_at.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/minilang.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "examples/minilang: FAIL: $*" >&2; exit 1; }
quiet() {
  local log=$1; shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "$*"; }
}

echo "== install kfront, build minilang against it"
quiet "$tmp/install.log" "$cmake" --install "$build" --prefix "$tmp/prefix"
quiet "$tmp/configure.log" "$cmake" -S "$here" -B "$tmp/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$tmp/prefix"
grep -qx "kfront_DIR:PATH=$tmp/prefix/lib/cmake/kfront" "$tmp/build/CMakeCache.txt" || fail "find_package found another kfront"
quiet "$tmp/build.log" "$cmake" --build "$tmp/build"
minilang=$tmp/build/minilang

mode=${MINILANG_MODE:-sim}
echo "== minilang_run (--mode $mode)"
"$tmp/build/minilang_run" --mode "$mode" "$here" || fail "minilang_run --mode $mode"

echo "== minilang --ptx"
ptx_checked=yes
for f in saxpy:saxpy reduce:partial_sums,total block_sum:block_sum histogram:histogram \
         collatz:collatz_steps,first_at_least; do
  src=$here/${f%%:*}.ml
  rc=0
  "$minilang" --ptx "$src" >"$tmp/out.ptx" 2>"$tmp/ptx.err" || rc=$?
  if [ $rc -eq 3 ]; then
    cat "$tmp/ptx.err"
    ptx_checked=no
    continue
  fi
  [ $rc -eq 0 ] || { cat "$tmp/ptx.err" >&2; fail "minilang --ptx $src exited with status $rc"; }
  IFS=, read -ra kernels <<<"${f#*:}"
  for k in "${kernels[@]}"; do
    grep -q "^\.visible \.entry $k(" "$tmp/out.ptx" || fail "the PTX of $src has no .entry $k"
  done
  echo "$src: PTX with .entry ${f#*:} ($(wc -l <"$tmp/out.ptx") lines)"
done
[ $ptx_checked = yes ] || echo "PTX: not checked (no libNVVM)"

echo "== diagnostics located in the .ml files"
n=0
for src in "$here"/tests/*.ml; do
  expect=$(sed -n 's|^// expect: ||p' "$src")
  [ -n "$expect" ] || continue
  rc=0
  (cd "$here/tests" && "$minilang" "${src##*/}") >"$tmp/diag.out" 2>&1 || rc=$?
  [ $rc -eq 1 ] || { cat "$tmp/diag.out" >&2; fail "minilang ${src##*/} exited with status $rc, expected 1"; }
  line=${expect#*.ml:}; line=${line%%:*}
  [ "$(head -1 "$tmp/diag.out")" = "$expect" ] || { cat "$tmp/diag.out" >&2; fail "${src##*/}: expected '$expect'"; }
  [ "$(sed -n 2p "$tmp/diag.out")" = "$(sed -n "${line}p" "$src")" ] || { cat "$tmp/diag.out" >&2; fail "${src##*/}: the source line is not quoted"; }
  sed -n 3p "$tmp/diag.out" | grep -qx ' *\^' || { cat "$tmp/diag.out" >&2; fail "${src##*/}: no caret"; }
  echo "${src##*/}: $expect"
  n=$((n + 1))
done
[ $n -ge 5 ] || fail "only $n diagnostic tests found"

echo "== the same diagnostics as facts (kf_context_diagnostic_at)"
rc=0
(cd "$here/tests" && "$minilang" --diagnostics syntax_error.ml) >"$tmp/facts.out" 2>"$tmp/facts.err" || rc=$?
[ $rc -eq 1 ] || { cat "$tmp/facts.out" "$tmp/facts.err" >&2; fail "minilang --diagnostics syntax_error.ml exited with $rc"; }
want="error syntax syntax_error.ml:3:17-20: expected ';', found 'out'"
[ "$(cat "$tmp/facts.out")" = "$want" ] || { cat "$tmp/facts.out" >&2; fail "expected '$want'"; }
echo "syntax_error.ml: $want"
echo "examples/minilang: ok (${SECONDS}s)"
