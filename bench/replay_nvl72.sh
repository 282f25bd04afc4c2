#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 30 item 5 on the stream it asks for: an NVL72-shaped stream (trays of 4 GPUs, 18 to
# a domain; jobs of 1 to 18 trays and of 2 to 16 whole domains) drawn from a documented mix
# (bench/nvl72_stream.py), a new stream for every seed, fabricfit against Slurm's
# topology/block (the `block` policy) and topology/tree on the same stream, ratios taken
# seed by seed with 95 % intervals.
#   bench/replay_nvl72.sh [FABRICFIT_BINARY] [OUT] [--update-docs]
# Writes OUT/<run>-s<SEED>.json, each run's jobs OUT/<run>-s<SEED>.jobs.csv (--per-job), and OUT/nvl72.md; --update-docs replaces the
# block between the replay-nvl72 markers in docs/placement.md. Environment: SEEDS (100),
# JOBS (1500 per stream), LOAD (target load, 0.8).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ff=${1:-${FABRICFIT:-$top/build/fabricfit}}
out=${2:-replay-nvl72}
update_docs=${3:-}
seeds=${SEEDS:-100}
jobs=${JOBS:-1500}
load=${LOAD:-0.8}
[ -x "$ff" ] || { echo "replay_nvl72: no fabricfit at $ff (give the binary as the first argument)" >&2; exit 1; }
mkdir -p "$out"
started=$(date +%s)

# 32 NVL72 racks: 16 leaf groups of 36 trays (a scalable unit's rail leaves), two NVLink
# domains of 18 trays under each, 8 spines; 1:1, 2:1 (18 uplinks per leaf), and 1:1 with
# half the uplinks of leaf groups 1-8 at half rate (degraded).
gen=(--leaves 16 --hosts-per-leaf 36 --spines 8 --switch-ports 128 --nvl-domain-size 18)
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
fabric() { domain_fabric "$ff" "$out" "$1" "${gen[@]}" "${@:2}"; }  # NAME EXTRA-GENERATE-ARGS...
fabric nvl72
fabric nvl72-2to1 --oversubscription 2
fabric nvl72-degraded --degrade groups=1-8,fraction=0.5,rate=4xEDR

# A quarter of the jobs of 4 trays or more all-to-all (expert parallel), at peak demand;
# the rest ring all-reduce. The seed also draws each job's communication share.
rule=(--pattern-rule multi=ring,alltoall=0.25,alltoall_min_nodes=4 --demand peak)
for ((s = 1; s <= seeds; ++s)); do
  python3 "$top/bench/nvl72_stream.py" "$s" "$jobs" > "$out/stream-s$s.csv"
  for fab in nvl72 nvl72-2to1 nvl72-degraded; do
    "$ff" replay "$out/$fab.snap" --trace "$out/stream-s$s.csv" --format elasticflow --gpus-per-node 4 \
      --policies fabricfit,block,tree --seed "$s" --target-load "$load" "${rule[@]}" \
      --per-job "$out/$fab-s$s.jobs.csv" --json > "$out/$fab-s$s.json"
  done
  # As a site on block tells its users to ask: every job of whole domains asks
  # --segment=18 (a segment a rack), which both fabricfit and block honour.
  for fab in nvl72 nvl72-2to1 nvl72-degraded; do
    "$ff" replay "$out/$fab.snap" --trace "$out/stream-s$s.csv" --format elasticflow --gpus-per-node 4 \
      --policies fabricfit,block --seed "$s" --target-load "$load" "${rule[@]}" --segment 18 \
      --per-job "$out/$fab-seg18-s$s.jobs.csv" --json > "$out/$fab-seg18-s$s.json"
  done
  # With Slurm's backfill reservations (the first job that cannot start holds the hosts it
  # will get), fabricfit and block, where the targets are 0.9x.
  for fab in nvl72-2to1 nvl72-degraded; do
    "$ff" replay "$out/$fab.snap" --trace "$out/stream-s$s.csv" --format elasticflow --gpus-per-node 4 \
      --policies fabricfit,block --seed "$s" --target-load "$load" "${rule[@]}" --backfill reserve \
      --per-job "$out/$fab-reserve-s$s.jobs.csv" --json > "$out/$fab-reserve-s$s.json"
  done
done

python3 "$top/bench/replay_nvl72_summary.py" "$out" "$(($(date +%s) - started))" "$seeds" "$jobs" "$load" \
  > "$out/nvl72.md"
cat "$out/nvl72.md"
if [ "$update_docs" = "--update-docs" ]; then
  python3 "$top/bench/doc_block.py" "$top/docs/placement.md" "$out/nvl72.md" replay-nvl72
fi
