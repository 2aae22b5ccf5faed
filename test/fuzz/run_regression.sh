#!/usr/bin/env bash
# run_regression.sh — one fuzz harness over its seeds and a fixed number of inputs in all (ctest's fuzz/*):
#   run_regression.sh HARNESS DICT RUNS WORK_DIR SEED_DIR...
# The seed folders that exist are read (the corpus from the tests, the findings kept as regressions);
# deterministic (-seed=1); new inputs go to WORK_DIR/corpus, never into the seeds; a crash, leak, timeout or
# sanitizer report is written to WORK_DIR/artifacts and fails the test (libFuzzer's exit status).
set -euo pipefail
harness=$1 dict=$2 runs=$3 work=$4
shift 4
seeds=()
for d in "$@"; do [ -d "$d" ] && seeds+=("$d"); done
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
exec "$harness" -seed=1 -runs="$runs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
  -dict="$dict" -artifact_prefix="$work/artifacts/" "$work/corpus" "${seeds[@]}"
