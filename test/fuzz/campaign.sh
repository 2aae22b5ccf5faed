#!/usr/bin/env bash
# campaign.sh — a fuzzing campaign: every harness of test/fuzz at once, each with libFuzzer's -jobs/-workers,
# for a given number of seconds, then a summary (CPU time, executions, corpus growth, findings per harness).
#
#   test/fuzz/campaign.sh [-b BUILD] [-j JOBS] [-o OUT] [-h HARNESS]... SECONDS
#     -b BUILD    the build with the harnesses (default build-fuzz; made if missing: clang-14, KFRONT_SANITIZE,
#                 KFRONT_FUZZ), or a folder with only bin/fuzz_* copied from one
#     -j JOBS     fuzzing processes per harness (default: the CPUs divided among the harnesses, at least 1)
#     -o OUT      where corpora, logs and findings go (default fuzz-campaign/ at the top of the tree); a later
#                 campaign with the same OUT goes on from the corpora it left
#     -h HARNESS  only this harness (frontend, kir, npy, sim; repeatable; default all four)
#
# On a many-core machine: test/fuzz/campaign.sh 3600 (one hour, the CPUs shared among the four harnesses).
# Findings are OUT/HARNESS/artifacts/{crash,leak,timeout,oom}-*; reproduce one with
# `BUILD/bin/fuzz_HARNESS FILE`. New corpus inputs worth keeping can be merged into test/fuzz/corpus with
# `BUILD/bin/fuzz_HARNESS -merge=1 test/fuzz/corpus/DIR OUT/HARNESS/corpus`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-fuzz out=$root/fuzz-campaign jobs=0 harnesses=()
while getopts "b:j:o:h:" opt; do
  case $opt in
  b) build=$(realpath -m "$OPTARG") ;;
  j) jobs=$OPTARG ;;
  o) out=$(realpath -m "$OPTARG") ;;
  h) harnesses+=("$OPTARG") ;;
  *) sed -n '2,16p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -ne 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then sed -n '2,16p' "$0"; exit 2; fi
seconds=$1
[ ${#harnesses[@]} -gt 0 ] || harnesses=(frontend kir npy sim)
if [ "$jobs" -le 0 ]; then
  jobs=$(($(nproc) / ${#harnesses[@]}))
  [ "$jobs" -ge 1 ] || jobs=1
fi

corpus_of() { case $1 in frontend | sim) echo python ;; *) echo "$1" ;; esac; }

# a build tree is configured if need be and brought up to date; a folder holding only bin/fuzz_* (binaries
# copied to another machine) is used as it is
if [ ! -x "$build/bin/fuzz_npy" ] || [ -f "$build/CMakeCache.txt" ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
      -DCMAKE_CXX_COMPILER=clang++-14 -DKFRONT_SANITIZE=ON -DKFRONT_FUZZ=ON >/dev/null || exit 1
  fi
  cmake --build "$build" -j "$(nproc)" --target fuzz_frontend fuzz_kir fuzz_npy fuzz_sim >/dev/null || { echo "build failed"; exit 1; }
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "campaign: ${harnesses[*]}, $jobs job(s) each, ${seconds}s, in $out ($(date -u '+%Y-%m-%d %H:%M UTC'))"
for h in "${harnesses[@]}"; do
  dir=$out/$h
  mkdir -p "$dir/corpus" "$dir/artifacts"
  rm -f "$dir"/fuzz-*.log
  c=$(corpus_of "$h")
  ls "$dir/corpus" | wc -l >"$dir/corpus.before"
  seeds=("$here/corpus/$c")
  [ -d "$here/findings/$c" ] && seeds+=("$here/findings/$c")
  [ -d "$here/campaign/$h" ] && seeds+=("$here/campaign/$h")
  (
    cd "$dir" || exit 1
    TIMEFORMAT='%R %U %S'
    { time "$build/bin/fuzz_$h" -jobs="$jobs" -workers="$jobs" -max_total_time="$seconds" -timeout=30 \
        -rss_limit_mb=4096 -print_final_stats=1 -dict="$here/$c.dict" -artifact_prefix="$dir/artifacts/" \
        "$dir/corpus" "${seeds[@]}" >"$dir/main.log" 2>&1; } 2>"$dir/time"
  ) &
done
wait

printf '\n%-9s %5s %8s %10s %13s %9s %9s  %s\n' harness jobs wall_s cpu_s executions exec/s corpus findings
total_cpu=0 total_exec=0 total_find=0
for h in "${harnesses[@]}"; do
  dir=$out/$h
  read -r wall user sys <"$dir/time" || { wall=0 user=0 sys=0; }
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')
  execs=$(cat "$dir"/fuzz-*.log 2>/dev/null | awk '/stat::number_of_executed_units/ { n += $NF } END { print n + 0 }')
  before=$(cat "$dir/corpus.before")
  after=$(ls "$dir/corpus" | wc -l)
  finds=$(ls "$dir/artifacts" | grep -cE '^(crash|leak|timeout|oom)-')
  rate=$(awk -v e="$execs" -v c="$cpu" 'BEGIN { printf "%.0f", (c > 0 ? e / c : 0) }')
  printf '%-9s %5s %8.0f %10s %13s %9s %9s  %s\n' "$h" "$jobs" "$wall" "$cpu" "$execs" "$rate" \
    "$before->$after" "$finds"
  total_cpu=$((total_cpu + cpu)) total_exec=$((total_exec + execs)) total_find=$((total_find + finds))
  ls "$dir/artifacts" | grep -E '^(crash|leak|timeout|oom)-' | sed "s|^|          $dir/artifacts/|"
done
echo "total: ${total_cpu} CPU-seconds, ${total_exec} executions, ${total_find} finding(s)"
[ "$total_find" -eq 0 ]
