#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lab's job emulator (bench/lab_stream.sh submits it with sbatch): a training job that
# runs as long as the run-time model says it would on the nodes Slurm really gave it.
#   lab_job.sh BASE_S COMM_SHARE PATTERN GPUS_PER_NODE SNAPSHOT REGISTRY FABRICFIT TICK_S [SLOWDOWN_OPTION...]
# BASE_S is its run time inside one leaf group with no contention (wall seconds, already
# time-compressed). A one-host job (or f = 0) sleeps BASE_S. A multi-host job registers
# itself in REGISTRY (one JSON file per running job, written by rename, removed at its end)
# and then, every TICK_S (default 2), asks `fabricfit slowdown` for its slowdown on its
# nodes given the other registered jobs (the replay's max-min sharing of the uplink
# bundles) and progresses at 1/slowdown: the lab's version of the replay's progress-based
# engine, re-evaluated every tick instead of at every change. SLOWDOWN_OPTIONs (e.g.
# --demand peak) go to every `fabricfit slowdown` call. Prints one summary line.
set -euo pipefail
base=$1 f=$2 pattern=$3 gpn=$4 snap=$5 reg=$6 ff=$7 tick=$8
shift 8
id=${SLURM_JOB_ID:?not in a Slurm job}
nodes=${SLURM_JOB_NODELIST:?}
nnodes=${SLURM_JOB_NUM_NODES:-1}
t0=$(date +%s.%N)

calc() { awk "BEGIN { printf \"%.6f\", $* }"; }
gt() { awk "BEGIN { exit !($1 > $2) }"; }

if [ "$nnodes" -lt 2 ] || ! gt "$f" 0; then
  sleep "$base"
  echo "lab_job $id nodes=$nodes base=$base f=0 slowdown_mean=1 slowdown_first=1 slowdown_alone=1 wall=$(calc "$(date +%s.%N) - $t0")"
  exit 0
fi

mkdir -p "$reg"
printf '{"job": "%s", "nodes": "%s", "gpus_per_node": %s, "pattern": "%s", "comm_share": %s}\n' \
  "$id" "$nodes" "$gpn" "$pattern" "$f" > "$reg/.$id.tmp"
mv "$reg/.$id.tmp" "$reg/$id.json"
trap 'rm -f "$reg/$id.json" "$reg/.$id.tmp"' EXIT

common=(slowdown "$snap" --nodes "$nodes" --pattern "$pattern" --gpus-per-node "$gpn" --comm-share "$f" "$@")
alone=$("$ff" "${common[@]}" -q)
# Progress is charged by the clock (the slowdown call's own time included), so the job's
# wall time is its modelled time whatever the overhead of a tick.
remaining=$base first='' ticks=0 last=$(date +%s.%N)
while gt "$remaining" 0.001; do
  s=$("$ff" "${common[@]}" --running "$reg" --job-id "$id" -q) || s=$alone
  first=${first:-$s}
  step=$(calc "$remaining * $s - ($(date +%s.%N) - $last)")
  step=$(calc "($step < $tick) ? ($step > 0 ? $step : 0) : $tick")
  sleep "$step"
  now=$(date +%s.%N)
  remaining=$(calc "$remaining - ($now - $last) / $s")
  last=$now
  ticks=$((ticks + 1))
done
wall=$(calc "$(date +%s.%N) - $t0")
echo "lab_job $id nodes=$nodes base=$base f=$f slowdown_mean=$(calc "$wall / $base") slowdown_first=$first slowdown_alone=$alone wall=$wall ticks=$ticks"
