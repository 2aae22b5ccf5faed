#!/usr/bin/env bash
# stage_gpu.sh — build and stage what bench/run_gpu_bench.sh needs on the GPU machine into one small folder
# (the device tool carries at most 64 MiB of ignored paths; a RelWithDebInfo build has 37 MB per binary):
#
#   bench/stage_gpu.sh [BUILD_DIR [DEST]]      (defaults: build-bench, BUILD_DIR/gpu)
#
# DEST/bin/kfront           the driver (tools/kfront*.c) linked against DEST/lib/libkfront.so, which holds LLVM
#                           statically: one copy of LLVM in the folder instead of two
# DEST/bin/unit_runtime_context  test/unit/runtime_context.c likewise (test/gpu/run_gpu_tests.sh runs it), and
#                           unit_runtime_host_funcs (test/unit/runtime_host_funcs.c) and unit_runtime_devices
#                           (test/unit/runtime_devices.c: test/gpu/run_multigpu.sh runs it) too
# DEST/bin/intrinsic_gpu    test/gpu/intrinsic_gpu.c likewise: embedder intrinsics on the GPU against the simulator
# DEST/bin/backend_gpu      test/gpu/backend_gpu.c, linked with libkfront_internal.a: it uses internals too (device_run.sh runs it)
# DEST/lib/libkfront.so     the library, stripped, unused LLVM sections dropped (the Python benchmarks load it
#                           with ctypes)
# DEST/bin/bench_dispatch   bench/dispatch.c linked against DEST/lib/libkfront.so (rpath $ORIGIN/../lib):
#                           the same code as BUILD_DIR/bin/bench_dispatch, without a third 31 MB copy of LLVM
# DEST/python/kfront       the Python module: its files and the extension linked against DEST/lib/libkfront.so
#                           (rpath $ORIGIN/../../lib; the pip-installed one has LLVM inside instead)
# Then: carry DEST and run `bench/run_gpu_bench.sh DEST` there (and, on a machine with 2 GPUs,
# `test/gpu/run_multigpu.sh DEST`).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build-bench}
dest=${2:-$build/gpu}
case $build in /*) ;; *) build=$root/$build ;; esac
[ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target kfront kfront_internal kfront_shared dispatch >/dev/null
mkdir -p "$dest/bin" "$dest/lib"
# the library relinked from libkfront_internal.a (its objects) with --gc-sections (LLVM parts kfront never calls
# dropped: -6 MB);
# a plain stripped copy of the built one if that fails
llvm_config=$(command -v llvm-config-14 || command -v llvm-config)
objs=$(mktemp -d)
trap 'rm -rf "$objs"' EXIT
(cd "$objs" && ar x "$build/lib/libkfront_internal.a")
# (members with the same name would overwrite each other when extracted: then the plain copy)
if [ -n "$(ar t "$build/lib/libkfront_internal.a" | sort | uniq -d)" ] || ! ${CC:-cc} -shared -o "$dest/lib/libkfront.so" "$objs"/*.o \
     -L"$($llvm_config --libdir)" $($llvm_config --link-static --libs core analysis bitwriter nvptxcodegen nvptxdesc \
     nvptxinfo) -lz -ltinfo -ldl -lpthread -lm -lstdc++ -Wl,--exclude-libs,ALL -Wl,--gc-sections -s; then
  echo "stage_gpu: relinking failed; copying $build/lib/libkfront.so"
  strip -o "$dest/lib/libkfront.so" "$build/lib/libkfront.so"
fi
link_tool() {  # OUTPUT SOURCES...: a program of the public API, against the staged library
  local out=$1; shift
  ${CC:-cc} -std=gnu11 -O2 -I. -Iinclude -Itest/unit "$@" -o "$dest/bin/$out" \
    -L"$dest/lib" -lkfront -Wl,-rpath,'$ORIGIN/../lib' -ldl -lm
  strip "$dest/bin/$out"
}
link_tool bench_dispatch bench/dispatch.c -lpthread
link_tool kfront tools/kfront.c tools/kfront_*.c tools/tool_*.c
link_tool unit_runtime_context test/unit/runtime_context.c
link_tool unit_runtime_host_funcs test/unit/runtime_host_funcs.c
link_tool unit_runtime_devices test/unit/runtime_devices.c -lpthread
link_tool intrinsic_gpu test/gpu/intrinsic_gpu.c
# backend_gpu.c also uses the library's internals (the op-semantics definitions its differential checks the GPU
# against), which libkfront.so does not export: it is linked against libkfront_internal.a instead, LLVM's unused parts
# dropped (about 25 MB stripped)
${CC:-cc} -std=gnu11 -O2 -I. -Iinclude -Itest/unit test/gpu/backend_gpu.c -o "$dest/bin/backend_gpu" \
  "$build/lib/libkfront_internal.a" -L"$($llvm_config --libdir)" $($llvm_config --link-static --libs core analysis bitwriter \
  nvptxcodegen nvptxdesc nvptxinfo) -lz -ltinfo -ldl -lpthread -lm -lstdc++ -Wl,--gc-sections -s
# the Python module over the staged library (stable ABI: the machine's Python 3.12 loads it)
py_include=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
rm -rf "$dest/python" && mkdir -p "$dest/python"
cp -r python/kfront "$dest/python/kfront"
find "$dest/python" -name __pycache__ -prune -exec rm -rf {} +
${CC:-cc} -std=gnu11 -O2 -shared -fPIC -fvisibility=hidden -DPy_LIMITED_API=0x030A0000 -Iinclude -I"$py_include" \
  python/ext/*.c -o "$dest/python/kfront/_kfront.abi3.so" -L"$dest/lib" -lkfront -Wl,-rpath,'$ORIGIN/../../lib'
strip "$dest/python/kfront/_kfront.abi3.so"
du -b "$dest"/bin/* "$dest"/lib/* "$dest"/python/kfront/_kfront.abi3.so | awk '{ t += $1; printf "  %8.1f MB  %s\n", $1 / 1e6, $2 } END { printf "  %8.1f MB  total (limit 67.1 MB = 64 MiB)\n", t / 1e6 }'
