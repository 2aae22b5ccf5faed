#!/usr/bin/env bash
# check_portable.sh — what the manylinux_2_28 policy asks of kfront's binaries, checked in a second with objdump
# (ctest's packaging/portable on the build's binaries; scripts/build_wheel.sh and run_wheel_test.sh on a wheel):
#
#   test/install/check_portable.sh FILE...     (an ELF file, or a wheel: every ELF file in it)
#
# For each ELF file:
#   1. the symbol versions it needs are GLIBC_2.28 or older: no newer glibc, no GLIBCXX, CXXABI or GCC (libstdc++
#      and libgcc are linked in: packaging/portable.cmake), nor any other library's;
#   2. the libraries it needs are glibc's own (libc, libm, libpthread, libdl, librt, the dynamic loader);
#   3. it exports none of libstdc++'s symbols (std::, __cxa_*, __gxx_*), which would clash with another copy in the
#      process.
# Ends "portable: ok (N files)"; any failure names the file and what it needs, and exits 1.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 FILE..." >&2; exit 2; }
max_minor=28
allowed_libs=" libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 ld-linux-x86-64.so.2 "
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfront-portable.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
fail() { echo "portable: FAIL: $*" >&2; bad=1; }
is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

check_elf() {  # FILE NAME
  local f=$1 name=$2 v lib minor
  n=$((n + 1))
  objdump -p "$f" >"$tmp/p" || { fail "$name: objdump -p failed"; return; }
  # 1. "Version References:" then "  required from LIB:" and "    0x... 0x00 NN VERSION" lines
  while read -r v; do
    case $v in
      GLIBC_2.*)
        minor=${v#GLIBC_2.}; minor=${minor%%.*}
        [ "$minor" -le "$max_minor" ] || fail "$name needs $v (newer than GLIBC_2.$max_minor)" ;;
      GLIBC_PRIVATE) fail "$name needs GLIBC_PRIVATE" ;;
      *) fail "$name needs $v (libstdc++, libgcc and other libraries must be linked in)" ;;
    esac
  done < <(sed -n '/^Version References:/,/^$/p' "$tmp/p" | awk '$1 ~ /^0x/ {print $4}' | sort -u)
  # 2. DT_NEEDED
  while read -r lib; do
    case $allowed_libs in *" $lib "*) ;; *) fail "$name needs $lib (not a library of glibc)" ;; esac
  done < <(awk '$1 == "NEEDED" {print $2}' "$tmp/p")
  # 3. defined dynamic symbols of libstdc++
  if objdump -T "$f" | awk '$0 !~ /\*UND\*/ {print $NF}' | grep -E '^(_ZN?St|_ZNKSt|_ZTISt|_ZTVSt|__cxa_|__gxx_)' \
       >"$tmp/exported"; then
    fail "$name exports libstdc++'s symbols: $(head -n3 "$tmp/exported" | tr '\n' ' ')"
  fi
}

for arg in "$@"; do
  case $arg in
    *.whl)
      rm -rf "$tmp/w" && mkdir "$tmp/w"
      (cd "$tmp/w" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall()' "$arg") ||
        { fail "cannot unpack $arg"; continue; }
      found=0
      while IFS= read -r -d '' f; do
        if is_elf "$f"; then check_elf "$f" "$(basename "$arg"):${f#"$tmp/w/"}"; found=1; fi
      done < <(find "$tmp/w" -type f -print0)
      [ $found = 1 ] || fail "$arg holds no ELF file" ;;
    *)
      [ -f "$arg" ] || { fail "$arg: no such file"; continue; }
      is_elf "$arg" || { fail "$arg is not an ELF file"; continue; }
      check_elf "$arg" "$arg" ;;
  esac
done
[ $bad = 0 ] || exit 1
echo "portable: ok ($n files)"
