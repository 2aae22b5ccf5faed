#!/usr/bin/env bash
# campaign.sh — a difftest campaign: N generated programs from seed START, JOBS processes at low priority, every
# non-agreeing program's record appended to build/difftest/campaign-START-N.jsonl; the summary line at the end
# goes into test/difftest/CAMPAIGNS.md by hand (date, seeds, programs, findings).
#   test/difftest/campaign.sh N [JOBS] [START]       (JOBS defaults to 2, START to 1000000)
# kfront comes from $PYTHONPATH (build/python by default), the oracle from scripts/oracle_env.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:?usage: campaign.sh N [JOBS] [START]}
jobs=${2:-2}
start=${3:-1000000}
export PYTHONPATH=${PYTHONPATH:-$PWD/build/python}
mkdir -p build/difftest
out=build/difftest/campaign-$start-$n.jsonl
echo "difftest campaign: seeds [$start, $((start + n))), $jobs jobs, records in $out"
exec nice -n 15 python3 test/difftest/difftest.py --seed-start "$start" --count "$n" --jobs "$jobs" \
  --out "$out" --progress 5000
