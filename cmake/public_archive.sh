#!/bin/sh
# public_archive.sh OUT.o NM OBJCOPY LD -- OBJECTS... -- ARCHIVES...
# libkfront.a's one member: the library's objects and the LLVM archive members they need, linked into one
# relocatable object (ld -r), in which every global symbol but the public API (kf_*) is made local (objcopy
# --keep-global-symbols): an embedder linking libkfront.a sees only kf_* names, neither kfront's internal ones
# (sha256_init, ...) nor LLVM's, and needs no LLVM of its own. What it still needs from the system stays an
# undefined reference: libc, libm, libpthread, libdl, zlib, tinfo, libstdc++ (the package's link interface).
set -eu
out=$1 nm=$2 objcopy=$3 ld=$4
shift 4
[ "$1" = "--" ] && shift
objs=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do objs="$objs $1"; shift; done
[ $# -gt 0 ] && shift
tmp=$out.partial.o
keep=$out.keep
# shellcheck disable=SC2086
"$ld" -r -o "$tmp" $objs --start-group "$@" --end-group
"$nm" -g --defined-only "$tmp" | awk '$3 ~ /^kf_/ { print $3 }' | sort -u > "$keep"
[ -s "$keep" ] || { echo "public_archive.sh: no kf_ symbol in $tmp" >&2; exit 1; }
"$objcopy" --keep-global-symbols="$keep" "$tmp" "$out"
rm -f "$tmp"
