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
#
# With faults (bench/lab_stream.sh FAULTS=1), LAB_FAULTS names a directory where the stream
# writes what its fault injector did, one line per event, and the job lives through it as
# the replay's fault model says (docs/placement.md, "Faults"):
#   drops: "EPOCH host NAME" (the host's HCA link dropped) or "EPOCH uplink NAME,NAME,..."
#          (an uplink of the leaf group of those hosts dropped). A multi-host job on that host,
#          or with hosts both inside and outside that group, fails at the drop: it records the
#          work of its last checkpoint (every LAB_CKPT_S seconds of work; 0: none) in
#          REGISTRY/ckpt/JOBID, leaves REGISTRY/failed/JOBID for the stream to requeue it, and
#          exits 1. Its next run starts from that checkpoint.
#   slow:  "EPOCH host NAME KEEPS" (from EPOCH the host's link keeps KEEPS of its rate). A
#          multi-host job on that host runs its collectives at no more than that share
#          (a ring is as fast as its slowest link): slowdown >= (1 - f) + f / KEEPS.
set -euo pipefail
base=$1 f=$2 pattern=$3 gpn=$4 snap=$5 reg=$6 ff=$7 tick=$8
shift 8
id=${SLURM_JOB_ID:?not in a Slurm job}
nodes=${SLURM_JOB_NODELIST:?}
nnodes=${SLURM_JOB_NUM_NODES:-1}
t0=$(date +%s.%N)

calc() { awk "BEGIN { printf \"%.6f\", $* }"; }
gt() { awk "BEGIN { exit !($1 > $2) }"; }

faults=${LAB_FAULTS:-}
ckpt=${LAB_CKPT_S:-0}
run=${SLURM_RESTART_COUNT:-0}
done0=0
[ ! -s "$reg/ckpt/$id" ] || done0=$(cat "$reg/ckpt/$id")

if [ "$nnodes" -lt 2 ] || ! gt "$f" 0; then
  sleep "$(calc "$base - $done0")"
  echo "lab_job $id nodes=$nodes base=$base f=0 slowdown_mean=1 slowdown_first=1 slowdown_alone=1 wall=$(calc "$(date +%s.%N) - $t0") run=$run"
  exit 0
fi

# Slurm's hostlist syntax through scontrol; a plain list (tests/cli/test_lab_job.sh) as it is.
if [[ $nodes == *[* ]]; then
  hosts=" $(scontrol show hostnames "$nodes" | paste -sd' ') "
else
  hosts=" ${nodes//,/ } "
fi
# crosses KIND TARGET: this job's traffic uses that link (the replay's rule: a host's own
# link for any multi-host job on it; a group's uplinks for a job split over that group).
crosses() {
  local h inside=0 outside=0
  case $1 in
    host) [[ $hosts == *" $2 "* ]] ;;
    uplink)
      for h in $hosts; do
        if [[ ",$2," == *",$h,"* ]]; then inside=1; else outside=1; fi
      done
      [ "$inside" = 1 ] && [ "$outside" = 1 ] ;;
    *) return 1 ;;
  esac
}
# dropped_since T: the first drop after T (up to now) that this job crosses, as "EPOCH KIND".
dropped_since() {
  local at kind target
  [ -n "$faults" ] && [ -s "$faults/drops" ] || return 1
  while read -r at kind target; do
    if gt "$at" "$1" && crosses "$kind" "$target"; then
      echo "$at $kind"
      return 0
    fi
  done < "$faults/drops"
  return 1
}
# slow_floor: the least slowdown a sub-healthy link under this job allows now (1 if none).
slow_floor() {
  local at kind target keeps floor=1 now
  now=$(date +%s.%N)
  if [ -n "$faults" ] && [ -s "$faults/slow" ]; then
    while read -r at kind target keeps; do
      if ! gt "$at" "$now" && crosses "$kind" "$target"; then
        floor=$(calc "((1 - $f) + $f / $keeps > $floor) ? (1 - $f) + $f / $keeps : $floor")
      fi
    done < "$faults/slow"
  fi
  echo "$floor"
}

mkdir -p "$reg"
printf '{"job": "%s", "nodes": "%s", "gpus_per_node": %s, "pattern": "%s", "comm_share": %s}\n' \
  "$id" "$nodes" "$gpn" "$pattern" "$f" > "$reg/.$id.tmp"
mv "$reg/.$id.tmp" "$reg/$id.json"
trap 'rm -f "$reg/$id.json" "$reg/.$id.tmp"' EXIT

common=(slowdown "$snap" --nodes "$nodes" --pattern "$pattern" --gpus-per-node "$gpn" --comm-share "$f" "$@")
alone=$("$ff" "${common[@]}" -q)
# Progress is charged by the clock (the slowdown call's own time included), so the job's
# wall time is its modelled time whatever the overhead of a tick.
remaining=$(calc "$base - $done0") first='' ticks=0 last=$(date +%s.%N) checked=$t0 sub=0
while gt "$remaining" 0.001; do
  s=$("$ff" "${common[@]}" --running "$reg" --job-id "$id" -q) || s=$alone
  floor=$(slow_floor)
  if gt "$floor" "$s"; then s=$floor sub=1; fi
  first=${first:-$s}
  step=$(calc "$remaining * $s - ($(date +%s.%N) - $last)")
  step=$(calc "($step < $tick) ? ($step > 0 ? $step : 0) : $tick")
  sleep "$step"
  now=$(date +%s.%N)
  remaining=$(calc "$remaining - ($now - $last) / $s")
  last=$now
  ticks=$((ticks + 1))
  if drop=$(dropped_since "$checked"); then
    # The run dies at the drop; what it did since its last checkpoint is lost.
    work=$(calc "$base - $remaining")
    kept=$done0
    if gt "$ckpt" 0; then kept=$(calc "int($work / $ckpt) * $ckpt"); gt "$kept" "$done0" || kept=$done0; fi
    mkdir -p "$reg/ckpt" "$reg/failed"
    echo "$kept" > "$reg/ckpt/.$id.tmp" && mv "$reg/ckpt/.$id.tmp" "$reg/ckpt/$id"
    echo "lab_job $id nodes=$nodes base=$base f=$f failed=1 drop=${drop#* } at=${drop%% *} work=$work kept=$kept lost=$(calc "$work - $kept") gpus=$((nnodes * gpn)) sub_healthy=$sub wall=$(calc "$now - $t0") run=$run"
    echo "${drop%% *}" > "$reg/failed/$id"
    exit 1
  fi
  checked=$now
done
wall=$(calc "$(date +%s.%N) - $t0")
echo "lab_job $id nodes=$nodes base=$base f=$f slowdown_mean=$(calc "$wall / ($base - $done0)") slowdown_first=$first slowdown_alone=$alone wall=$wall ticks=$ticks run=$run resumed_at=$done0 sub_healthy=$sub"
