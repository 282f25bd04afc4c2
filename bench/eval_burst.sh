#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a topology evaluation costs in slurmctld, step by step (docs/performance.md): the
# lab stream's 64-host lab (bench/lab_stream.sh) under one topology plugin, a burst of JOBS
# jobs submitted at once (a fifth of them 2-4 whole hosts, the rest 1-8 GPUs on one host,
# each sleeping 5-30 s; the same jobs for a given SEED), and bench/eval_probe.bt attached
# to slurmctld until the queue is empty. Prints, per calling thread (sched_agent: the main
# scheduler; bckfl: backfill; others: RPCs such as submission tests), the evaluations and
# each step's count and mean µs. Needs bpftrace. Not in CI: about 3 minutes per policy.
#
#   bench/eval_burst.sh [POLICY...]        (default: tree fabricfit)
#
# Environment: JOBS (200), SEED (1), OUT (eval-burst-results), LAB_DIR
# (/var/tmp/labrun-burst), SLURM_ENV (current.env).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
policies=("$@")
[ ${#policies[@]} -gt 0 ] || policies=(tree fabricfit)
jobs=${JOBS:-200}
seed=${SEED:-1}
out=$(realpath -m "${OUT:-eval-burst-results}")
lab_prefix=${LAB_DIR:-/var/tmp/labrun-burst}
command -v bpftrace > /dev/null || { echo "eval_burst: needs bpftrace (apt-get install bpftrace)" >&2; exit 1; }
# shellcheck disable=SC1090
. "${SLURM_ENV:-/opt/fabricfit/slurm/current.env}"
# shellcheck source=tests/integration/lib.sh disable=SC1091
. "$top/tests/integration/lib.sh"
cleanup() {
  local d
  # shellcheck disable=SC2154 # _labs: lib.sh's list of the labs lab_up started
  for d in "${_labs[@]}"; do "$LAB_SH" down --dir "$d" > "$d.down.log" 2>&1 || echo "eval_burst: down $d failed" >&2; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { printf 'eval_burst: %s\n' "$*" >&2; }
mkdir -p "$out"
[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing || true

# The burst: the same jobs for every policy.
awk -v n="$jobs" -v seed="$seed" 'BEGIN { srand(seed)
  for (i = 1; i <= n; i++) {
    if (rand() < 0.2) { nodes = 2 + int(rand() * 3); gpn = 8 } else { nodes = 1; g = int(rand() * 4); gpn = 2 ^ g }
    printf "%d %d %d\n", nodes, gpn, 5 + int(rand() * 26) } }' > "$out/burst.txt"

for policy in "${policies[@]}"; do
  dir=$lab_prefix-$policy res=$out/$policy
  rm -rf "$res"; mkdir -p "$res"
  printf '%s\n' DefMemPerGPU=400 DefCpuPerGPU=4 'SchedulerParameters=batch_sched_delay=0,bf_interval=5,sched_interval=10' > "$res/extra.conf"
  port=$(pick_ports 64)
  log "$policy: lab up in $dir"
  lab_up "$dir" --nodes 64 --leaves 8 --spines 2 --uplinks 4 --topology "$policy" \
    --ctld-port "$port" --slurmd-port $((port + 1)) --slurm-conf-extra "$res/extra.conf" --timeout 120
  plugin=$SLURM_PREFIX/lib/slurm/topology_$policy.so
  sed -e "s|@LIBSLURM@|$SLURM_PREFIX/lib/slurm/libslurmfull.so|g" -e "s|@PLUGIN@|$plugin|g" \
    "$top/bench/eval_probe.bt" > "$res/eval_probe.bt"
  if [ "$policy" = fabricfit ]; then
    sed "s|@PLUGIN@|$plugin|g" "$top/bench/eval_probe_fabricfit.bt" >> "$res/eval_probe.bt"
  fi
  bpftrace "$res/eval_probe.bt" "$(cat "$dir/run/slurmctld.pid")" > "$res/probe.txt" 2> "$res/probe.log" &
  probe_pid=$!
  wait_for 30 grep -q Attaching "$res/probe.txt" || { log "$policy: bpftrace did not attach"; cat "$res/probe.log" >&2; exit 1; }
  sleep 2
  kill -0 "$probe_pid" 2> /dev/null || { log "$policy: bpftrace failed to load its probes"; cat "$res/probe.log" >&2; exit 1; }
  sdiag -r > /dev/null
  while read -r nodes gpn secs; do
    sbatch -Q -N "$nodes" --gpus-per-node="$gpn" --time=2 -o /dev/null --wrap "sleep $secs" > /dev/null
  done < "$out/burst.txt"
  log "$policy: $jobs jobs submitted; waiting for the queue to empty"
  # shellcheck disable=SC2016 # for the inner shell
  wait_for 900 bash -c 'q=$(squeue -h -o %A) && [ -z "$q" ]' || log "$policy: jobs still queued at the deadline"
  sdiag > "$res/sdiag.txt"
  kill -INT "$probe_pid" 2> /dev/null || true
  wait "$probe_pid" 2> /dev/null || true
  lab_down "$dir" > "$res/down.log" 2>&1
  log "$policy: done"
done
python3 "$top/bench/eval_burst_summary.py" "$out" "${policies[@]}" | tee "$out/summary.md"
