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
me=eval_burst
# shellcheck source=bench/lab_bench.sh
. "$top/bench/lab_bench.sh"
mkdir -p "$out"
mount_tracefs

# The steps timed, numbered as eval_probe.bt keys them: 0 and 1 are its own, the others are
# topology/fabricfit's functions, each given a probe pair below.
steps=(evaluation common_topo_choose_nodes ffg_refresh_engine ffg_wait_begin ff_job_request
  ff_effective_pattern ff_engine_place ffg_eval_state_save ffg_wait_end ffg_record_note ffg_map_nodes
  ffg_eval_state_restore)
printf '%s\n' "${steps[@]}" > "$out/steps.txt"

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
    for ((k = 2; k < ${#steps[@]}; k++)); do
      f=${steps[k]}
      printf '\nuprobe:%s:%s /@in[tid]/ { @t_%s[tid] = nsecs; }\n' "$plugin" "$f" "$f"
      # shellcheck disable=SC2016 # $d is bpftrace's variable
      printf 'uretprobe:%s:%s /@in[tid] && @t_%s[tid]/ { $d = nsecs - @t_%s[tid]; @ns[comm, %d] = stats($d); @us[comm, %d] = lhist($d / 1000, 0, 1000, 1); delete(@t_%s[tid]); }\n' \
        "$plugin" "$f" "$f" "$f" "$k" "$k" "$f"
    done >> "$res/eval_probe.bt"
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
