#!/usr/bin/env bash
# setup.sh — installs what kfront's build and tests need on a fresh Debian 12 machine.
# Idempotent: installs only what is missing. Needs root (or sudo) for apt-get.
#   build: cmake (>= 3.20), ninja, a C compiler, LLVM 14 (C API, static libraries)
#   tests: FileCheck and lit from LLVM 14, python3 with its headers and venv, pkg-config (install/client), clang 14
#          with its sanitizer and libFuzzer runtimes (the sanitizer build and the fuzzing harnesses)
#   Python packages (numpy, pytest, scikit-build-core: the Python module; IPython, ipykernel, nbclient, nbformat:
#          the notebook tests): into the project's virtual environment build/venv (scripts/python_env.sh), never
#          the system's Python (PEP 668)
#   CUDA: the toolkit (libNVVM, libdevice, ptxas) is expected in $CUDA_HOME or /usr/local/cuda;
#         it is not installed here (the machine image provides it); tests that need it say so.
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v cc >/dev/null || need+=(gcc)
command -v python3 >/dev/null || need+=(python3)
command -v pkg-config >/dev/null || need+=(pkg-config)
python3 -c "import ensurepip" 2>/dev/null || need+=(python3-venv)   # scripts/python_env.sh, scripts/oracle_env.sh
# Python.h: the C extension (python/CMakeLists.txt builds no Python module without it)
python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  2>/dev/null || need+=(python3-dev)
[ -x /usr/bin/llvm-config-14 ] || need+=(llvm-14-dev)
[ -f /usr/lib/llvm-14/lib/libLLVMCore.a ] || need+=(llvm-14-dev)
[ -x /usr/lib/llvm-14/bin/FileCheck ] || need+=(llvm-14-tools)
[ -f /usr/lib/llvm-14/build/utils/lit/lit.py ] || need+=(llvm-14-tools)
command -v clang-14 >/dev/null || need+=(clang-14)
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
dpkg -s zlib1g-dev >/dev/null 2>&1 || need+=(zlib1g-dev)
dpkg -s libtinfo-dev >/dev/null 2>&1 || need+=(libtinfo-dev)

if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}"
fi

# the Python packages the build and the tests need (numpy, pytest, scikit-build-core, ...), in the project's
# virtual environment build/venv (scripts/python_env.sh: PEP 668 refuses them outside one)
bash "$(dirname "$0")/python_env.sh" >/dev/null
# the test oracle: numba-cuda 0.30.4 from PyPI in build/oracle-venv (the differential fuzzer, test/difftest)
bash "$(dirname "$0")/oracle_env.sh" >/dev/null
echo "setup: ok"
