#!/usr/bin/env bash
# Issue 29's replay targets with fabric faults (docs/placement.md, "Faults"): fabricfit,
# which keeps multi-host jobs off the links health sweeps have seen flapping or sub-healthy,
# against Slurm's topology/tree, blind to them, on the same fault episodes (drawn from the
# seed), with tree-switches (--switches=1@T at its best T) beside; and the same replays on
# the healthy fabric (no class's completion above 1.00x tree's).
#   bench/replay_faults.sh [FABRICFIT_BINARY] [OUT] [--update-docs]
# Writes OUT/*.json and OUT/faults.md; --update-docs replaces the block between the
# replay-faults markers in docs/placement.md.
# Environment: TRACES (/work/shared/traces), SEEDS (20), FAULTS (stress), WAIT_CAP (28800),
# SWITCH_WAITS ("3600 28800"), FABRICS ("a b2"), OVERESTIMATE (1.5).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ff=${1:-${FABRICFIT:-$top/build/fabricfit}}
out=${2:-replay-faults}
update_docs=${3:-}
traces=${TRACES:-/work/shared/traces}
seeds=${SEEDS:-20}
faults=${FAULTS:-stress}
wait_cap=${WAIT_CAP:-28800}
switch_waits=${SWITCH_WAITS:-"3600 28800"}
fabric_set=${FABRICS:-"a b2"}
overestimate=${OVERESTIMATE:-1.5}
[ -x "$ff" ] || { echo "replay_faults: no fabricfit at $ff (give the binary as the first argument)" >&2; exit 1; }
mkdir -p "$out"
started=$(date +%s)

# The judging fabrics of bench/replay_targets.sh: 80 hosts of 8 GPUs in 10 leaf groups,
# 2 spines; a: 1:1, b2: 2:1 at the leaves.
fabric() {
  local name=$1
  shift
  [ -s "$out/$name.snap" ] && return 0
  "$ff" generate --leaves 10 --hosts-per-leaf 8 --spines 2 --switch-ports 128 "$@" -o "$out/$name.net"
  "$ff" discover --from "$out/$name.net" -o "$out/$name.snap" -q
}
fabric a
fabric b2 --oversubscription 2

replay() {  # NAME FABRIC TRACE FORMAT [options...]
  local name=$1 fab=$2 trace=$3 format=$4
  shift 4
  "$ff" replay "$out/$fab.snap" --trace "$trace" --format "$format" --seeds "$seeds" \
    --overestimate "$overestimate" "$@" --json > "$out/$name.json"
}
run_trace() {  # NAME TRACE FORMAT [options...]
  local name=$1 trace=$2 format=$3
  shift 3
  for fab in $fabric_set; do
    replay "$name-$fab-faults" "$fab" "$trace" "$format" --policies fabricfit,tree --wait-cap "$wait_cap" \
      --faults "$faults" "$@" &
    replay "$name-$fab-healthy" "$fab" "$trace" "$format" --policies fabricfit,tree --wait-cap "$wait_cap" "$@" &
    wait
    for t in $switch_waits; do
      replay "$name-$fab-sw$t" "$fab" "$trace" "$format" --policies tree-switches --locality-wait "$t" \
        --faults "$faults" "$@"
    done
  done
}
run_trace cluster04 "$traces/elasticflow-itp-2021/cluster04.csv" elasticflow
run_trace cluster06 "$traces/elasticflow-itp-2021/cluster06.csv" elasticflow --target-load 0.8
elapsed=$(($(date +%s) - started))
python3 "$top/bench/replay_faults_summary.py" "$out" "$elapsed" "$seeds" "$faults" "$fabric_set" \
  "$switch_waits" > "$out/faults.md"
cat "$out/faults.md"
if [ "$update_docs" = "--update-docs" ]; then
  python3 "$top/bench/doc_block.py" "$top/docs/placement.md" "$out/faults.md" replay-faults
fi
