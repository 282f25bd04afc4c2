#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin's decisions on a fixed job stream in the real controller, in a form two builds
# can be compared by (issue 27: a refactor keeps the same nodes for the same jobs in the same
# order). The lab stream (lab_stream.sh) runs in compressed real time, so which jobs meet
# in the queue depends on the machine's speed; here every event waits for the controller to
# settle before the next: JOBS jobs (a fixed mix of shapes and patterns drawn from SEED) are
# submitted one at a time, each sleeping until cancelled, then cancelled one at a time in a
# fixed order. No backfill (sched/builtin) and no locality wait (LocalityWaitMax=0): both
# act on timers. The fabric is 4 leaf groups of 8 hosts at 2:1 with half of group 2's
# uplinks at half rate, where the steering and the splits have choices to make.
#
#   bench/lab_decisions.sh OUT
# Writes OUT/decisions.txt: per line, the event (submit or cancel of a job) and every job
# that started after it with its nodes, in start order; OUT/stream.txt, the jobs. Compare
# two builds with `diff A/decisions.txt B/decisions.txt`.
#
# Environment: JOBS (40), SEED (1), PLUGIN_DIR (a build's .libs with topology_fabricfit.so,
# tried before the installed one: lab.sh --plugin-dir), SLURM_ENV (current.env), LAB_DIR
# (/var/tmp/labrun-decisions), SETTLE (seconds the queue must stay unchanged, 3). Lab
# daemons listen on 127.0.0.1 only; the lab is taken down at the end. About 10 minutes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/lab_decisions.sh OUT}
jobs=${JOBS:-40}
seed=${SEED:-1}
settle=${SETTLE:-3}
dir=${LAB_DIR:-/var/tmp/labrun-decisions}
me=lab_decisions
mkdir -p "$out"
out=$(realpath "$out")
# shellcheck source=bench/lab_bench.sh
. "$top/bench/lab_bench.sh"
[ -z "${PLUGIN_DIR:-}" ] || export FABRICFIT_PLUGIN_DIR=$PLUGIN_DIR

# The stream: "NAME NODES GPUS_PER_NODE PATTERN", drawn once from SEED (awk's srand is
# deterministic for a seed), so both builds see the same jobs.
awk -v n="$jobs" -v seed="$seed" 'BEGIN {
  srand(seed)
  split("1 2 4 8 8 8 8 8", gpus); split("1 1 1 2 2 3 4 6", nodes)
  split("ring alltoall tree tp=8,dp=2 ring ring", pats)
  for (i = 1; i <= n; i++) {
    k = int(rand() * 8) + 1; g = gpus[k]; m = (g < 8) ? 1 : nodes[int(rand() * 8) + 1]
    p = (m > 1) ? pats[int(rand() * 6) + 1] : "none"
    printf "d%03d %d %d %s\n", i, m, g, p
  } }' > "$out/stream.txt"

cat > "$out/extra.conf" <<'EOC'
# A GPU site's sharing: 1-GPU jobs without --mem share nodes
# (the lab's own DefMemPerGPU is 500, memory / GPUs; 400 is what the recorded runs used)
DefMemPerGPU=400
DefCpuPerGPU=4
# Decisions only on submissions and ends, never on a timer
SchedulerType=sched/builtin
EOC
printf '%s\n' "SnapshotFile=$dir/fabric.snapshot" "LocalityWaitMax=0" > "$out/fabricfit.conf"
port=$(pick_ports 33)
log "lab up in $dir (ports $port-$((port + 33)))${PLUGIN_DIR:+, plugins from $PLUGIN_DIR}"
lab_up "$dir" --nodes 32 --leaves 4 --spines 2 --uplinks 4 --degrade groups=2,fraction=0.5,rate=4xEDR \
  --ctld-port "$port" --slurmd-port $((port + 1)) --slurm-conf-extra "$out/extra.conf" \
  --fabricfit-conf "$out/fabricfit.conf" --timeout 120 || exit 1

# The queue as "NAME STATE NODES" lines, sorted by name.
queue() { squeue -h -o '%j %T %N' | sort; }
# Waits until the queue has not changed for SETTLE seconds (at most 60).
settled() {
  local before now t=0
  before=$(queue)
  while [ "$t" -lt 60 ]; do
    sleep "$settle"; t=$((t + settle))
    now=$(queue)
    [ "$now" != "$before" ] || return 0
    before=$now
  done
  log "the queue did not settle in 60 s"
}
declare -A started=()
# After an event: every job that runs now and did not before, in name order (submission
# order: one event starts jobs in one scheduling pass, whose order is the queue's).
record() {
  local event=$1 name state nodes line="$1:"
  while read -r name state nodes; do
    [ "$state" = RUNNING ] && [ -z "${started[$name]:-}" ] || continue
    started[$name]=$nodes
    line+=" $name=$nodes"
  done < <(queue)
  echo "$line" >> "$out/decisions.txt"
  log "$line"
}
: > "$out/decisions.txt"
while read -r name n g p; do
  sbatch -Q -o /dev/null -J "$name" -N "$n" --gpus-per-node="$g" --comm-pattern="$p" --wrap 'sleep 100000' > /dev/null
  settled
  record "submit $name"
done < "$out/stream.txt"
# Cancelled in a fixed order that is not the submission order (every third job first), so
# that the holes they leave are scattered.
for pass in 0 1 2; do
  while read -r name _; do
    k=$((10#${name#d}))
    [ $((k % 3)) -eq "$pass" ] || continue
    scancel -n "$name"
    settled
    record "cancel $name"
  done < "$out/stream.txt"
done
log "$(grep -o '=' "$out/decisions.txt" | wc -l) starts written to $out/decisions.txt"
