#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# NVLink faults on the NVL72 stream (docs/placement.md, "NVLink faults"): trays whose NVLink
# fails (a route unhealthy: every job whose GPUs talk over it fails, again every
# flap-every until repaired), fabricfit, which keeps the jobs that cross a tray's NVLink off
# it once a health sweep has read the tray's report, against Slurm's topology/block, blind
# to it; and both again with every failing tray drained once seen, with no cap (a site's
# health check; fabricfit's HealthDrain=yes caps at HealthDrainMax), block's best case. The 2:1 fabric of
# bench/replay_nvl72.sh, a stream per seed (bench/nvl72_stream.py), ratios seed by seed.
#   bench/replay_nvlink_faults.sh [FABRICFIT_BINARY] [OUT] [--update-docs]
# Writes OUT/<run>-s<SEED>.json and OUT/nvlink-faults.md; --update-docs replaces the block
# between the replay-nvlink-faults markers in docs/placement.md. Environment: SEEDS (20),
# JOBS (1500 per stream), LOAD (0.8), RATES ("0.001 0.01": NVLink faults per tray and day),
# SLOW_RATES ("0.01 0.1": degraded NVLinks per tray and day, half their bandwidth kept for
# the 6 h episode; `--faults none,nvlink-slow=R`: placement keeps off, nothing drains).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ff=${1:-${FABRICFIT:-$top/build/fabricfit}}
out=${2:-replay-nvlink-faults}
update_docs=${3:-}
seeds=${SEEDS:-20}
jobs=${JOBS:-1500}
load=${LOAD:-0.8}
rates=${RATES:-"0.001 0.01"}
slow_rates=${SLOW_RATES:-"0.01 0.1"}
[ -x "$ff" ] || { echo "replay_nvlink_faults: no fabricfit at $ff (give the binary as the first argument)" >&2; exit 1; }
mkdir -p "$out"
started=$(date +%s)

# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
domain_fabric "$ff" "$out" nvl72-2to1 --leaves 16 --hosts-per-leaf 36 --spines 8 --switch-ports 128 \
  --nvl-domain-size 18 --oversubscription 2
rule=(--pattern-rule multi=ring,alltoall=0.25,alltoall_min_nodes=4 --demand peak)
for ((s = 1; s <= seeds; ++s)); do
  python3 "$top/bench/nvl72_stream.py" "$s" "$jobs" > "$out/stream-s$s.csv"
  for r in $rates; do
    for drain in blind drain; do
      extra=()
      [ "$drain" = drain ] && extra=(--drain-failing)
      "$ff" replay "$out/nvl72-2to1.snap" --trace "$out/stream-s$s.csv" --format elasticflow --gpus-per-node 4 \
        --policies fabricfit,block --seed "$s" --target-load "$load" "${rule[@]}" \
        --faults "none,nvlink-flap=$r" "${extra[@]}" --json > "$out/r$r-$drain-s$s.json"
    done
  done
  for r in $slow_rates; do
    "$ff" replay "$out/nvl72-2to1.snap" --trace "$out/stream-s$s.csv" --format elasticflow --gpus-per-node 4 \
      --policies fabricfit,block --seed "$s" --target-load "$load" "${rule[@]}" \
      --faults "none,nvlink-slow=$r" --json > "$out/slow$r-s$s.json"
  done
done

python3 "$top/bench/replay_nvlink_faults_summary.py" "$out" "$(($(date +%s) - started))" "$seeds" "$jobs" \
  "$load" "$rates" "$slow_rates" > "$out/nvlink-faults.md"
cat "$out/nvlink-faults.md"
if [ "$update_docs" = "--update-docs" ]; then
  python3 "$top/bench/doc_block.py" "$top/docs/placement.md" "$out/nvlink-faults.md" replay-nvlink-faults
fi
