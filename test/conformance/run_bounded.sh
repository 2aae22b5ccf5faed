#!/usr/bin/env bash
# run_bounded.sh — the conformance gauge's bounded part (ctest conformance/bounded): the modules of
# test/conformance/bounded.txt, run under kfront on the simulator, must pass every test that
# expected/bounded-kfront-sim.txt lists (a regression fails the test, naming it); tests that pass and are not
# listed are reported (add them). numba-cuda 0.30.4's tests come from PyPI (conformance.py prepare) and run
# under the oracle's interpreter (scripts/oracle_env.sh: numba for numba.core, kfront for numba.cuda).
#   test/conformance/run_bounded.sh BUILD_DIR        (BUILD_DIR/python holds the kfront package)
set -uo pipefail
build=$(cd "${1:?usage: run_bounded.sh BUILD_DIR}" && pwd)
cd "$(dirname "$0")/../.."
here=test/conformance
py=$(scripts/oracle_env.sh | tail -n 1) && [ -x "$py" ] ||
  { echo "conformance/bounded: no oracle interpreter (scripts/oracle_env.sh could not install numba-cuda 0.30.4)"; exit 1; }
prepared=$build/conformance/prepared
if [ ! -f "$prepared/PREPARED.txt" ]; then
  python3 $here/conformance.py prepare --python "$py" --dest "$prepared" ||
    { echo "conformance/bounded: could not fetch numba-cuda 0.30.4's tests from PyPI"; exit 1; }
fi
modules=()
while read -r m; do
  case $m in ''|'#'*) ;; *) modules+=(--module "$m") ;; esac
done < $here/bounded.txt
python3 $here/conformance.py run --target kfront --python "$py" --kfront "$build/python" \
  --tests "$prepared/tests" --label bounded-kfront-sim --results "$build/conformance/results" "${modules[@]}" ||
  { echo "conformance/bounded: the run failed"; exit 1; }
python3 $here/conformance.py check --label bounded-kfront-sim --results "$build/conformance/results" \
  --expect $here/expected/bounded-kfront-sim.txt "${modules[@]}"
