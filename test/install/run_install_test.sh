#!/usr/bin/env bash
# run_install_test.sh — ctest's install/client: installs a kfront build into a fresh prefix and uses it as an
# outside project would.
#
#   test/install/run_install_test.sh BUILD_DIR
#   (env: CMAKE, CC, CMAKE_GENERATOR: the build's cmake, C compiler and generator; ctest sets them)
#
# 1. `cmake --install BUILD_DIR` into a staging prefix, then moved elsewhere (the install is relocatable);
#    the installed files are exactly the expected ones, the text files name neither the build nor the source
#    tree nor the staging prefix, and each public header compiles on its own (C99 and C++).
# 2. bin/kfront (--help, --version, check) and bin/kfront-opt run from the prefix.
# 3. test/install/client.c built and run four ways: (a) CMake, find_package(kfront) + kfront::kfront;
#    (b) cc with `pkg-config --cflags --libs kfront`; (c) CMake with kfront::kfront_static; (d) cc with
#    `pkg-config --static --libs kfront` against libkfront.a alone; (e) as (d), beside the client's own definitions
#    of names kfront and LLVM use inside (only kf_* is global in libkfront.a), and the package names no LLVM.
#    Each must say "client: ok".
# Any failure fails the test (never a skip). The temporary folder is removed on exit.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfront-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
staging=$tmp/staging
prefix=$tmp/prefix

step() { echo "== $*"; }
fail() { echo "install/client: FAIL: $*" >&2; exit 1; }
quiet() {  # LOG CMD...: runs CMD with its output in LOG, shown only if it fails
  local log=$1; shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "$*"; }
}
run_client() {  # EXE: runs an out-of-tree client, which must print "client: ok"
  local rc=0
  "$1" >"$1.out" 2>&1 || rc=$?
  [ $rc -eq 0 ] || { cat "$1.out" >&2; fail "$1 exited with status $rc"; }
  cat "$1.out"
  grep -qx 'client: ok' "$1.out" || fail "$1 did not say 'client: ok'"
}
needs_libkfront_so() {  # EXE YES|NO: whether EXE's dynamic section names libkfront.so.*
  readelf -d "$1" >"$1.dyn"
  if grep -q 'NEEDED.*\[libkfront\.so' "$1.dyn"; then
    [ "$2" = YES ] || fail "$1 is linked against libkfront.so, expected libkfront.a"
  else
    [ "$2" = NO ] || fail "$1 is not linked against libkfront.so"
  fi
}

for tool in "$cmake" "$cc" pkg-config readelf; do
  command -v "$tool" >/dev/null || fail "$tool not found (scripts/setup.sh installs what the tests need)"
done

step "install $build into a staging prefix, moved to $prefix"
quiet "$tmp/install.log" "$cmake" --install "$build" --prefix "$staging"
mv "$staging" "$prefix"

step "the installed files"
for f in bin/kfront bin/kfront-opt include/kfront/kfront.h include/kfront/abi.h lib/libkfront.a lib/libkfront.so \
         lib/cmake/kfront/kfrontConfig.cmake lib/cmake/kfront/kfrontConfigVersion.cmake \
         lib/cmake/kfront/kfrontTargets.cmake lib/pkgconfig/kfront.pc; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done
for h in "$src"/include/kfront/*.h; do
  [ -f "$prefix/include/kfront/${h##*/}" ] || fail "the public header include/kfront/${h##*/} was not installed"
done
(cd "$prefix" && find . ! -type d | sed 's|^\./||' | sort) >"$tmp/installed"
while read -r f; do
  case $f in
    bin/kfront | bin/kfront-opt | lib/libkfront.a | lib/libkfront.so | lib/libkfront.so.* | \
      lib/cmake/kfront/kfront*.cmake | lib/pkgconfig/kfront.pc) ;;
    include/kfront/*.h) [ -f "$src/$f" ] || fail "$f is not a public header of $src" ;;
    *) fail "unexpected installed file $f" ;;
  esac
done <"$tmp/installed"
readelf -d "$prefix/lib/libkfront.so" | grep -q 'SONAME.*\[libkfront\.so\.[0-9]' || fail "libkfront.so has no versioned SONAME"
if grep -rIlF -e "$build" -e "$src" -e "$staging" "$prefix" >"$tmp/leaks"; then
  cat "$tmp/leaks" >&2
  fail "installed text files name the build tree, the source tree or the install prefix"
fi
for h in "$prefix"/include/kfront/*.h; do
  echo "#include <kfront/${h##*/}>" >"$tmp/header.c"
  quiet "$tmp/header.log" "$cc" -std=c99 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$tmp/header.c"
  if command -v c++ >/dev/null; then
    quiet "$tmp/header.log" c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" -x c++ "$tmp/header.c"
  fi
done

step "the tools from the prefix"
quiet "$tmp/tool.log" "$prefix/bin/kfront" --help
grep -q 'kfront' "$tmp/tool.log" || fail "kfront --help printed no usage"
quiet "$tmp/tool.log" "$prefix/bin/kfront-opt" --list-passes
grep -q '^ *canonicalize' "$tmp/tool.log" || fail "kfront-opt --list-passes did not list canonicalize"
cat >"$tmp/double.py" <<'PY'
from numba import cuda

@cuda.jit("void(float32[:], float32[:])")
def double(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = 2 * a[i]
PY
quiet "$tmp/tool.log" "$prefix/bin/kfront" check "$tmp/double.py"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
kfront_version=$(pkg-config --modversion kfront)
quiet "$tmp/tool.log" "$prefix/bin/kfront" --version
grep -qx "kfront $kfront_version" "$tmp/tool.log" || fail "kfront --version: $(cat "$tmp/tool.log"), kfront.pc: $kfront_version"

step "(a) CMake: find_package(kfront) + kfront::kfront"
quiet "$tmp/a.log" "$cmake" -S "$here" -B "$tmp/a" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix"
grep -qx "kfront_DIR:PATH=$prefix/lib/cmake/kfront" "$tmp/a/CMakeCache.txt" || fail "find_package found another kfront"
quiet "$tmp/a.log" "$cmake" --build "$tmp/a"
needs_libkfront_so "$tmp/a/client" YES
run_client "$tmp/a/client"

step "(b) cc \$(pkg-config --cflags --libs kfront)"
pc_cflags=$(pkg-config --cflags kfront)
pc_libs=$(pkg-config --libs kfront)
pc_libdir=$(pkg-config --variable=libdir kfront)
# shellcheck disable=SC2086  # the flags are words
quiet "$tmp/b.log" "$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/client-pc" "$here/client.c" $pc_cflags $pc_libs \
  -Wl,-rpath,"$pc_libdir"
needs_libkfront_so "$tmp/client-pc" YES
run_client "$tmp/client-pc"

step "(c) CMake: kfront::kfront_static"
quiet "$tmp/c.log" "$cmake" -S "$here" -B "$tmp/c" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" \
  -DKFRONT_CLIENT_STATIC=ON
quiet "$tmp/c.log" "$cmake" --build "$tmp/c"
needs_libkfront_so "$tmp/c/client" NO
run_client "$tmp/c/client"

step "(d) cc \$(pkg-config --static --libs kfront), libkfront.a alone in libdir"
mkdir "$tmp/static-only"
ln -s "$prefix/lib/libkfront.a" "$tmp/static-only/libkfront.a"
pc_static_libs=$(pkg-config --static --define-variable=libdir="$tmp/static-only" --libs kfront)
# shellcheck disable=SC2086
quiet "$tmp/d.log" "$cc" -std=c11 -o "$tmp/client-pc-static" "$here/client.c" $pc_cflags $pc_static_libs
needs_libkfront_so "$tmp/client-pc-static" NO
run_client "$tmp/client-pc-static"

step "(e) libkfront.a beside an embedder's own symbols of kfront's and LLVM's internal names"
# libkfront.a exports kf_* alone (cmake/public_archive.sh): a program defining sha256_init, diag_error or LLVM's
# LLVMContextCreate itself links with it (no "multiple definition") and keeps its own
cat >"$tmp/clash.c" <<'C'
int sha256_init(void) { return 11; }
int diag_error(void) { return 22; }
int LLVMContextCreate(void) { return 33; }
C
sed 's/^int main(void) {/int client_main(void);\nint main(void) { return client_main(); }\nint client_main(void) {/' \
  "$here/client.c" >"$tmp/client-clash.c"
cat >>"$tmp/client-clash.c" <<'C'
int sha256_init(void);
int diag_error(void);
int LLVMContextCreate(void);
__attribute__((constructor)) static void own_symbols_kept(void) {
  if (sha256_init() != 11 || diag_error() != 22 || LLVMContextCreate() != 33) __builtin_trap();
}
C
# shellcheck disable=SC2086
quiet "$tmp/e.log" "$cc" -std=gnu11 -o "$tmp/client-clash" "$tmp/client-clash.c" "$tmp/clash.c" $pc_cflags \
  $pc_static_libs
run_client "$tmp/client-clash"
if grep -rIl -e 'libLLVM' -e '/llvm' "$prefix/lib/cmake" "$prefix/lib/pkgconfig" >"$tmp/llvm-named"; then
  cat "$tmp/llvm-named" >&2
  fail "the installed package names LLVM (libkfront.a holds the LLVM it uses)"
fi

echo "install/client: ok (${SECONDS}s)"
