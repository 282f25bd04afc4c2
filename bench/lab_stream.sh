#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 11 item 7: the replay's comparison in the real controller. A stream of mixed jobs
# from a shared trace (ElasticFlow cluster04, JOBS jobs after the first START), time-compressed, on a
# 64-node lab (8 leaf groups of 8 hosts x 8 GPUs, 2 spines, 2:1 uplinks, leaf group 3
# with half its uplinks at half rate), run once under topology/tree (topology.conf from
# the same snapshot) and once under topology/fabricfit. Every job is bench/lab_job.sh:
# it runs its modelled run time on the nodes Slurm gave it (`fabricfit slowdown`, shared
# with the other running jobs). Per job: leaf groups, wait and completion time from
# Slurm's job completion log (jobcomp/filetxt); per run: sdiag's cycle times. Not in CI:
# about 2 x (WALL_MIN + 3) minutes.
#
#   bench/lab_stream.sh [OUT] [--update-docs]
# Writes OUT/lab.md (the tables), OUT/per_job.csv (every job under both policies), the
# replay's prediction of the same stream (OUT/replay.json, and job by job
# OUT/replay_per_job.csv) and each run's records in OUT/POLICY/; --update-docs puts lab.md between the lab-stream markers of
# docs/placement.md and per_job.csv in docs/lab_stream_jobs.csv.
#
# Environment: JOBS (320), START (trace jobs skipped first, 0), MARK (lab-stream: the
# section of docs/placement.md, and docs/<MARK with _>_jobs.csv, that --update-docs writes), WALL_MIN (minutes the arrivals and the longest job span
# together, 12), CAP_H (trace durations capped at this many hours, 8), LOAD (offered load,
# fabricfit replay --target-load, 0.8), POLICIES ("tree fabricfit"), REPEAT (1: with N, the
# policies run alternately N times, tree fabricfit tree fabricfit ..., the K-th run's records
# in OUT/POLICY.K, and the summary adds every pair and the median of their ratios), TRACE (cluster04's
# CSV under /work/shared/traces), FABRICFIT (the CLI, default build/fabricfit), LAB_DIR
# (prefix of the lab directories, /var/tmp/labrun-stream), WAIT_CAP (the replay's
# adaptive wait cap for its prediction, 28800 s), TICK (emulator tick, 2 s), SLURM_ENV
# (current.env). The run-time model: DEMAND (peak), ROUTING (static), RULE (the replay's
# --pattern-rule, multi=ring,alltoall=0.5): the replay's stress case, because under its
# default (time-averaged demand, ECMP, rings) no job on these fabrics is ever slowed
# (docs/placement.md, "What the numbers say"). ESTIMATE (limit): the run time the locality
# wait weighs, LocalityWaitEstimate in fabricfit.conf and the replay's --estimate (limit, or
# history: predicted from the user's last two finished jobs). PERF=1 samples slurmctld through each run
# (`perf record -F 499 -g`, package linux-perf) into OUT/RUN/perf.txt: its samples, the kernel's
# share, the topology plugin's own code (its .so, self) and the inclusive shares of the
# topology evaluation and the two schedulers, which the
# summary tabulates (docs/performance.md). PROBE=1 traces each main scheduling cycle
# (bench/cycle_probe.bt, package bpftrace) into OUT/RUN/cycles.txt: its wall time split into
# on-CPU, run-queue and blocked time, and its time in select_nodes and the topology
# evaluation; bench/cycle_probe_summary.py compares the runs. Lab daemons listen on 127.0.0.1 only; each lab is taken down at the end
# (and on interruption).
#
# NVL=N (issue 30 item 5; docs/placement.md, "Lab stream on NVLink domains"): the lab's hosts
# in NVLink domains of N consecutive hosts (BlockName lines, read by discovery), and the
# comparison is against Slurm's topology/block on the same domains (POLICIES "block
# fabricfit"). With it: NODES (72), LEAVES (4), UPLINKS (9: 2:1), DEGRADE (none), MARK
# lab-stream-nvl, and the stream TRACE_FORMAT kalos, MAX_HOSTS 36, JOBS 80, LOAD 0.6,
# WALL_MIN 8 (NVL=18: the recorded run, about 2 x 10 minutes). The lab's geometry is also set by these for any run: NODES (64), LEAVES (8),
# UPLINKS (4), DEGRADE (groups=3,fraction=0.5,rate=4xEDR; "none": a healthy fabric).
# TRACE_FORMAT (elasticflow): kalos reads Acme's Kalos excerpt (no duration cap), with
# MAX_HOSTS leaving out jobs wider than that many 8-GPU hosts (0: none). GPUS (8): GPUs per
# lab node (lab.sh up --gpus), and the replay's --gpus-per-node.
#
# STREAM=nvl72 (with NVL=18; docs/placement.md, "Lab stream on the NVL72 mix"): instead of
# a trace, JOBS (80) jobs drawn from the NVL72 mix (bench/nvl72_stream.py, seed STREAM_SEED
# (1), jobs across at most MAX_DOMAINS (2) domains) on trays of GPUS (4) GPUs; durations
# capped at CAP_H; MARK lab-stream-nvl72.
#
# FAULTS=1 (issue 29 item 7; docs/placement.md, "Lab stream with faults"): the same stream
# through a fabric that fails mid-stream, the same events at the same times in both runs.
# `fabricfit health --sweep` sweeps the lab's ibsim every SWEEP_S (20) seconds from the
# start (each policy's run; only topology/fabricfit reads the file). FAULT_AT seconds after
# the first arrival (a quarter of WALL_MIN) FAULT_HOST's HCA link (gpu004) turns sub-healthy
# (its SymbolErrorCounter climbs before every sweep; the emulated jobs on it keep
# SLOW_KEEPS (0.5) of its rate) and an uplink of leaf group FAULT_GROUP (2) starts to flap:
# it drops then and every FLAP_S (60) seconds (LinkDownedCounter, one more per drop). Each
# drop fails every job whose traffic crosses it (bench/lab_job.sh), which Slurm requeues
# (scontrol requeue, its start held back by nothing) and which runs again from its last
# checkpoint, taken every CKPT (3600) trace seconds of its work. MARK defaults to
# lab-stream-faults; the summary is bench/lab_stream_faults_summary.py.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-lab-stream-results}
update_docs=${2:-}
start=${START:-0}
faults=${FAULTS:-0}
nvl=${NVL:-0}
stream=${STREAM:-trace}
case "$stream" in trace | nvl72) ;; *) echo "lab_stream: STREAM must be trace or nvl72" >&2; exit 1 ;; esac
[ "$stream" = trace ] || [ "$nvl" -gt 0 ] || { echo "lab_stream: STREAM=nvl72 needs NVL (18)" >&2; exit 1; }
if [ "$faults" = 1 ]; then mark=${MARK:-lab-stream-faults}; elif [ "$stream" = nvl72 ]; then mark=${MARK:-lab-stream-nvl72}; elif [ "$nvl" -gt 0 ]; then mark=${MARK:-lab-stream-nvl}; else mark=${MARK:-lab-stream}; fi # --update-docs: the docs/placement.md section between MARK:begin/end
cap_h=${CAP_H:-8}
if [ "$nvl" -gt 0 ]; then
  # The recorded NVLink run: Kalos jobs of up to two domains, so some span domains.
  policies=${POLICIES:-"block fabricfit"}
  nodes=${NODES:-72} leaves=${LEAVES:-4} uplinks=${UPLINKS:-9} degrade=${DEGRADE:-none}
  jobs=${JOBS:-80} load=${LOAD:-0.6} wall_min=${WALL_MIN:-8}
  trace_format=${TRACE_FORMAT:-kalos} max_hosts=${MAX_HOSTS:-36}
  trace=${TRACE:-/work/shared/traces/acme-kalos-2023-excerpt/converted_kalos_trace.csv}
  gpus=${GPUS:-8}
  if [ "$stream" = nvl72 ]; then
    trace_format=elasticflow gpus=${GPUS:-4}
    trace="the NVL72 mix (bench/nvl72_stream.py, seed ${STREAM_SEED:-1}, at most ${MAX_DOMAINS:-2} domains a job)"
  fi
else
  policies=${POLICIES:-"tree fabricfit"}
  nodes=${NODES:-64} leaves=${LEAVES:-8} uplinks=${UPLINKS:-4} degrade=${DEGRADE:-groups=3,fraction=0.5,rate=4xEDR}
  jobs=${JOBS:-320} load=${LOAD:-0.8} wall_min=${WALL_MIN:-12}
  trace_format=${TRACE_FORMAT:-elasticflow} max_hosts=${MAX_HOSTS:-0}
  trace=${TRACE:-/work/shared/traces/elasticflow-itp-2021/cluster04.csv}
  gpus=${GPUS:-8}
fi
# The policy the summary compares fabricfit with: block on domains, else tree.
case " $policies " in *" block "*) baseline=block ;; *) baseline=tree ;; esac
repeat=${REPEAT:-1}
ff=$(realpath "${FABRICFIT:-$top/build/fabricfit}")
lab_prefix=${LAB_DIR:-/var/tmp/labrun-stream}
wait_cap=${WAIT_CAP:-28800}
tick=${TICK:-2}
demand=${DEMAND:-peak}
routing=${ROUTING:-static}
rule=${RULE:-multi=ring,alltoall=0.5}
estimate=${ESTIMATE:-limit}
sweep_s=${SWEEP_S:-20}
fault_at=${FAULT_AT:-$((wall_min * 15))}
flap_s=${FLAP_S:-60}
fault_group=${FAULT_GROUP:-2}
fault_host=${FAULT_HOST:-gpu004}
slow_keeps=${SLOW_KEEPS:-0.5}
ckpt_trace_s=${CKPT:-3600}
[ -x "$ff" ] || { echo "lab_stream: no fabricfit at $ff (FABRICFIT=...)" >&2; exit 1; }
[ "${PERF:-0}" != 1 ] || command -v perf > /dev/null || { echo "lab_stream: PERF=1 needs perf (apt-get install linux-perf)" >&2; exit 1; }
[ "$faults" != 1 ] || command -v opensm > /dev/null || { echo "lab_stream: FAULTS=1 needs opensm (contrib/setup-slurm.sh)" >&2; exit 1; }
[ "${PROBE:-0}" != 1 ] || command -v bpftrace > /dev/null || { echo "lab_stream: PROBE=1 needs bpftrace (apt-get install bpftrace)" >&2; exit 1; }
mkdir -p "$out"
out=$(realpath "$out")
me=lab_stream
# shellcheck source=bench/lab_bench.sh
. "$top/bench/lab_bench.sh"
export FABRICFIT_BIN=$ff

# 1. The stream: JOBS jobs of the trace after its first START, durations capped at CAP_H (the trace's
# longest jobs run for days; a lab run cannot), as an ElasticFlow CSV; the replay then
# compresses the arrivals to LOAD on this fabric, gives each job its communication share
# and pattern (--jobs-csv) and predicts both policies on exactly this stream.
if [ "$stream" = nvl72 ]; then
  python3 "$top/bench/nvl72_stream.py" "${STREAM_SEED:-1}" "$jobs" "${MAX_DOMAINS:-2}" |
    awk -F, -v cap="$((cap_h * 3600))" 'NR == 1 { print; next } { d = $3 + 0; if (d > cap) d = cap; print $1 "," $2 "," d "," $4 }' \
    > "$out/stream.csv"
elif [ "$trace_format" = kalos ]; then
  # Kalos: GPUs = gpu_workers x gpu_per_worker; durations come from its iterations.
  awk -F, -v s="$start" -v n="$jobs" -v m="$max_hosts" 'NR == 1 { print; next }
    NR > s + 1 && (m == 0 || $6 * $8 <= 8 * m) { if (++k <= n) print }' "$trace" > "$out/stream.csv"
else
  awk -F, -v s="$start" -v n="$jobs" -v cap="$((cap_h * 3600))" 'NR == 1 { print; next }
    NR > s + 1 && NR <= s + n + 1 { d = $3 + 0; if (d > cap) d = cap; print $1 "," $2 "," d "," $4 }' "$trace" > "$out/stream.csv"
fi
lab_geometry=(--nodes "$nodes" --leaves "$leaves" --spines 2 --uplinks "$uplinks" --gpus "$gpus")
[ "$degrade" = none ] || lab_geometry+=(--degrade "$degrade")
gen=(--leaves "$leaves" --hosts-per-leaf $((nodes / leaves)) --spines 2 --uplinks "$uplinks")
[ "$degrade" = none ] || gen+=(--degrade "$degrade")
if [ "$nvl" -gt 0 ]; then
  gen+=(--nvl-domain-size "$nvl" --blocks-output "$out/blocks.conf")
  lab_geometry+=(--nvl-domain-size "$nvl")
fi
"$ff" generate "${gen[@]}" -o "$out/fabric.net" > /dev/null
if [ "$nvl" -gt 0 ]; then
  "$ff" discover --from "$out/fabric.net" --blocks "$out/blocks.conf" -o "$out/fabric.snap" -q
else
  "$ff" discover --from "$out/fabric.net" -o "$out/fabric.snap" -q
fi
"$ff" replay "$out/fabric.snap" --trace "$out/stream.csv" --format "$trace_format" --gpus-per-node "$gpus" --target-load "$load" \
  --policies "fabricfit,$baseline" --wait-cap "$wait_cap" --overestimate 1.5 --estimate "$estimate" --demand "$demand" --routing "$routing" --pattern-rule "$rule" --jobs-csv "$out/jobs.csv" --per-job "$out/replay_per_job.csv" --json \
  > "$out/replay.json"
# Time compression: from the first arrival, the last arrival plus the longest job take
# WALL_MIN minutes (a later window of the trace starts late in trace time).
first_submit=$(awk -F, 'NR > 1 { s = $2 + 0; if (NR == 2 || s < first) first = s } END { printf "%.3f", first }' "$out/jobs.csv")
compression=$(awk -F, -v w="$wall_min" -v f="$first_submit" 'NR > 1 { s = $2 - f; if (s > last) last = s; d = $3 + 0; if (d > dmax) dmax = d }
  END { printf "%.3f", (last + dmax) / (w * 60) }' "$out/jobs.csv")
log "$(($(wc -l < "$out/jobs.csv") - 1)) jobs, trace time / $compression$([ "$trace_format" = kalos ] || echo " (durations capped at ${cap_h} h)")"
ckpt_s=$(awk -v c="$ckpt_trace_s" -v k="$compression" 'BEGIN { printf "%.3f", c / k }')

# 2. One lab run per policy.
cat > "$out/extra.conf.in" <<EOC
# GPU-site node sharing: a job without --mem gets memory and CPUs per GPU, so 1-GPU jobs share nodes
# (the lab's own DefMemPerGPU is 500, memory / GPUs; 400 is what the recorded runs used)
DefMemPerGPU=400
DefCpuPerGPU=4
# Per-job records from Slurm itself
JobCompType=jobcomp/filetxt
JobCompLoc=@JOBCOMP@
# The emulated jobs run their modelled time, which may pass the time limit they declared
OverTimeLimit=UNLIMITED
SchedulerParameters=batch_sched_delay=0,bf_interval=5,sched_interval=10
EOC

# slurmctld's CPU seconds so far (user + system, all its threads), from /proc: what the
# whole controller cost, beside sdiag's per-cycle means.
ctld_cpu() {
  local pid
  pid=$(cat "$1/run/slurmctld.pid" 2>/dev/null) || return 0
  sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($12 + $13) / hz }'
}

# PERF=1: what slurmctld spent its samples on, as "name value" lines for the summary.
perf_summary() {
  local data=$1
  perf report -i "$data" --stdio --no-children -n --sort dso -g none 2> /dev/null |
    awk '$1 ~ /%$/ { n += $2; if ($3 ~ /kernel/) k += $2; if ($3 ~ /^topology_/) t += $2 }
      END { if (n) printf "samples %d\nkernel %.1f%%\nplugin_code %.2f%%\n", n, 100 * k / n, 100 * t / n }'
  perf report -i "$data" --stdio --children --sort symbol -g none 2> /dev/null |
    awk '$1 ~ /%$/ { for (i = 3; i < NF; i++) if ($i == "[.]") { s = $(i + 1)
      if (s == "ffg_eval_nodes" || s == "eval_nodes_tree" || s == "select_nodes" || s == "_attempt_backfill") print s, $1
      break } }'
}

# FAULTS=1: the lab's ibsim, swept and broken as the header says. sim runs a command
# against it as a site's host would (umad2sim, attached at gpu001's HCA).
sim() {
  (cd "$simdir" && SIM_HOST=$sim_attach OSM_TMP_DIR=$simdir OSM_CACHE_DIR=$simdir LD_PRELOAD=$umad2sim timeout 120 "$@")
}
sweep() {
  sim "$ff" health --sweep --quiet --conf "$res/fabricfit.conf" --snapshot "$dir/fabric.snapshot" \
    >> "$res/faults/sweeps.log" 2>&1 || log "$1: a health sweep failed ($(tail -1 "$res/faults/sweeps.log"))"
}
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
# fault_loop RUN T0 (lab, dir, res: the run's): sweeps every SWEEP_S; from T0 + FAULT_AT the
# host link's errors and the uplink's drops, each event written for the emulated jobs
# (RES/faults).
fault_loop() {
  local run=$1 t_start now next_sweep=0 next_drop started=0 drops=0 symbols=0
  t_start=$(awk -v t="$2" -v a="$fault_at" 'BEGIN { printf "%.3f", t + a }')
  next_drop=$t_start
  while :; do
    now=$(date +%s.%N)
    if [ "$started" = 0 ] && ! gt "$t_start" "$now"; then
      started=1
      echo "$now host $fault_host $slow_keeps" >> "$res/faults/slow"
      log "$run: $fault_host's link sub-healthy, leaf group $fault_group's uplink flapping every $flap_s s"
    fi
    if [ "$started" = 1 ] && ! gt "$next_drop" "$now"; then
      drops=$((drops + 1))
      lab_sim_cmd "PerformanceSet \"$fault_leaf_guid\"[$fault_uplink_port] PortCounters.LinkDownedCounter=$drops" ||
        log "$run: ibsim did not answer the drop"
      echo "$(date +%s.%N) uplink $fault_group_hosts" >> "$res/faults/drops"
      next_drop=$(awk -v t="$next_drop" -v d="$flap_s" 'BEGIN { printf "%.3f", t + d }')
    fi
    if ! gt "$next_sweep" "$now"; then
      if [ "$started" = 1 ]; then
        # Symbol errors far above the specification's 1e-12 (HealthSymbolBer) for a sweep
        # interval; 16 bits hold 300 sweeps of them.
        symbols=$((symbols + 200))
        lab_sim_cmd "PerformanceSet \"$fault_host_guid\"[1] PortCounters.SymbolErrorCounter=$symbols" ||
          log "$run: ibsim did not answer the symbol errors"
      fi
      sweep "$run"
      next_sweep=$(awk -v t="$now" -v d="$sweep_s" 'BEGIN { printf "%.3f", t + d }')
    fi
    sleep 0.5
  done
}
# requeue_loop RES: a job its emulator failed goes back to the queue at once (Slurm holds a
# requeued job for its credential's lifetime, 121 s, minutes of trace time here: cleared).
requeue_loop() {
  local f id
  while :; do
    for f in "$1/registry/failed"/*; do
      [ -e "$f" ] || continue
      id=${f##*/}
      wait_for 30 bash -c '[ "$(squeue -h -j "$1" -o %T 2>/dev/null)" != RUNNING ]' _ "$id" || true
      if scontrol requeue "$id" 2>> "$1/requeue.err" && scontrol update jobid="$id" StartTime=now 2>> "$1/requeue.err"; then
        echo "$(date +%s.%N) $id" >> "$1/requeued"
      else
        echo "$(date +%s.%N) $id requeue failed" >> "$1/requeue.err"
      fi
      rm -f "$f"
    done
    sleep 0.5
  done
}

run_policy() {
  local policy=${1%%.*} dir=$lab_prefix-${1%%.*} res=$out/$1 port t0 now i perf_pid='' probe_pid=''
  rm -rf "$res"; mkdir -p "$res/jobs" "$res/registry"
  chmod 0755 "$res" "$res/jobs"
  sed "s|@JOBCOMP@|$res/jobcomp.log|" "$out/extra.conf.in" > "$res/extra.conf"
  # The plugin's locality wait prices splits with the routing the emulator runs
  # (LocalityWaitRouting): under ECMP nothing collides and no job would wait.
  printf '%s\n' "SnapshotFile=$dir/fabric.snapshot" "LocalityWaitRouting=$routing" \
    "LocalityWaitEstimate=$estimate" > "$res/fabricfit.conf"
  port=$(pick_ports "$nodes")
  log "$1: lab up in $dir (ports $port-$((port + nodes)))"
  lab_up "$dir" "${lab_geometry[@]}" --topology "$policy" \
    --ctld-port "$port" --slurmd-port $((port + 1)) --slurm-conf-extra "$res/extra.conf" \
    --fabricfit-conf "$res/fabricfit.conf" --timeout 120 || return 1
  cp "$dir/fabric.snapshot" "$res/fabric.snapshot"
  local fault_pid='' requeue_pid='' lab=$dir leaf
  local -a fault_env=()
  if [ "$faults" = 1 ]; then
    mkdir -p "$res/faults" "$res/registry/failed" "$res/registry/ckpt"
    : > "$res/faults/drops"
    : > "$res/faults/slow"
    simdir=$res/sim
    mkdir -p "$simdir"
    umad2sim=$(umad2sim_lib)
    [ -n "$umad2sim" ] || { log "FAULTS=1 needs libumad2sim.so (package libumad2sim0)"; return 1; }
    sim_attach=$(lab_guid gpu001)
    fault_host_guid=$(lab_guid "$fault_host")
    leaf=$(printf 'ib-leaf-%03d' "$fault_group")
    fault_leaf_guid=$(lab_guid "$leaf")
    # The leaf's first uplink port and its hosts, from the net ibsim runs: one pass over its block.
    read -r fault_uplink_port fault_group_hosts < <(awk -v leaf="\"$leaf\"" '
      /^Switch/ { in_leaf = index($0, leaf) > 0; next } /^$/ { in_leaf = 0 }
      in_leaf && /"S-/ && port == "" { port = $1; gsub(/[][]/, "", port) }
      in_leaf && /"H-/ && match($0, /# "[^ "]+/) { hosts = hosts (hosts == "" ? "" : ",") substr($0, RSTART + 3, RLENGTH - 3) }
      END { print port, hosts }' "$dir/fabric.net") || true
    [ -n "$sim_attach" ] && [ -n "$fault_host_guid" ] && [ -n "$fault_leaf_guid" ] && [ -n "$fault_group_hosts" ] && [ -n "$fault_uplink_port" ] ||
      { log "$1: no $fault_host or $leaf in $dir/fabric.net"; return 1; }
    sim opensm --once -f "$simdir/osm.log" -s 0 > "$simdir/osm.out" 2>&1 || { log "$1: opensm could not program the routes"; return 1; }
    printf '%s %s %s\n' "$fault_group" "$fault_uplink_port" "$fault_group_hosts" > "$res/faults/where"
    fault_env=(LAB_FAULTS="$res/faults" LAB_CKPT_S="$ckpt_s")
  fi
  "$ff" show --json "$res/fabric.snapshot" > "$res/fabric.json"
  [ ! -f "$dir/topology.conf" ] || cp "$dir/topology.conf" "$res/topology.conf"
  # The topology plugin this run loads (Slurm's own for tree and block), and the CLI.
  for so in "$SLURM_PREFIX/lib/slurm/topology_$policy.so" "$ff"; do
    if [ -e "$so" ]; then printf '%s  %s\n' "$(sha256sum < "$so" | cut -c1-16)" "$so"; else printf 'not found  %s\n' "$so"; fi
  done > "$res/binaries.txt"
  sdiag -r > /dev/null
  ctld_cpu "$dir" > "$res/ctld_cpu0"
  if [ "${PERF:-0}" = 1 ]; then
    perf record -q -F 499 -g -p "$(cat "$dir/run/slurmctld.pid")" -o "$res/perf.data" > "$res/perf.log" 2>&1 &
    perf_pid=$!
  fi
  if [ "${PROBE:-0}" = 1 ]; then
    mount_tracefs
    sed -e "s|@SLURMCTLD@|$SLURM_PREFIX/sbin/slurmctld|g" -e "s|@LIBSLURM@|$SLURM_PREFIX/lib/slurm/libslurmfull.so|g" \
      "$top/bench/cycle_probe.bt" > "$res/cycle_probe.bt"
    bpftrace "$res/cycle_probe.bt" "$(cat "$dir/run/slurmctld.pid")" > "$res/cycles.txt" 2> "$res/cycle_probe.log" &
    probe_pid=$!
    sleep 5 # attaching the uprobes takes a moment; the stream must not start before
  fi
  t0=$(date +%s.%N)
  echo "$t0" > "$res/t0"
  if [ "$faults" = 1 ]; then
    fault_loop "$1" "$t0" &
    fault_pid=$!
    requeue_loop "$res" &
    requeue_pid=$!
  fi
  # Submit every job at its compressed arrival time.
  i=0
  local job_nodes
  while IFS=, read -r _ submit dur job_nodes gpn f pattern; do
    i=$((i + 1))
    pattern=${pattern//\"/}
    local at base tlim
    at=$(awk -v s="$submit" -v f="$first_submit" -v c="$compression" -v t="$t0" 'BEGIN { printf "%.3f", t + (s - f) / c }')
    base=$(awk -v d="$dur" -v c="$compression" 'BEGIN { b = d / c; if (b < 1) b = 1; printf "%.3f", b }')
    tlim=$(awk -v b="$base" 'BEGIN { m = int((b * 1.5 + 59) / 60); if (m < 1) m = 1; print m }')
    now=$(date +%s.%N)
    sleep "$(awk -v a="$at" -v n="$now" 'BEGIN { d = a - n; printf "%.3f", (d > 0 ? d : 0) }')"
    # The pattern reaches topology/fabricfit through the SPANK option (tree ignores it).
    local -a pat=()
    [ "$job_nodes" -lt 2 ] || [ ! -e "$SLURM_PREFIX/lib/slurm/fabricfit.so" ] || pat=(--comm-pattern="$pattern")
    # Appended: a requeued job's runs write to one file.
    local jid
    if jid=$(env "${fault_env[@]}" sbatch --parsable --requeue --open-mode=append -J "s$i" -N "$job_nodes" --gpus-per-node="$gpn" --time="$tlim" \
      -o "$res/jobs/%j.out" "${pat[@]}" \
      "$top/bench/lab_job.sh" "$base" "$f" "$pattern" "$gpn" "$res/fabric.snapshot" "$res/registry" "$ff" "$tick" \
      --demand "$demand" --routing "$routing" 2>> "$res/sbatch.err"); then
      echo "$jid" >> "$res/submitted"
      echo "$jid $at $job_nodes $gpn $f $base" >> "$res/arrivals"
    else
      echo "sbatch failed for s$i" >> "$res/sbatch.err"
    fi
  done < <(tail -n +2 "$out/jobs.csv")
  log "$1: $i jobs submitted in $(awk -v t="$t0" -v n="$(date +%s.%N)" 'BEGIN { printf "%.0f", n - t }') s; waiting for them to end"
  # shellcheck disable=SC2016 # for the inner shell
  # Only an answer from slurmctld counts: a squeue that fails (a busy controller) prints
  # nothing, which must not end the run while jobs still run.
  # A failed job not yet requeued is not done either.
  wait_for $((wall_min * 60 * 4)) bash -c 'q=$(squeue -h -o %A) && [ -z "$q" ] && ! ls "$1"/registry/failed/* > /dev/null 2>&1' _ "$res" ||
    log "$1: jobs still queued at the deadline"
  [ -z "$fault_pid" ] || { kill "$fault_pid" "$requeue_pid" 2> /dev/null; wait "$fault_pid" "$requeue_pid" 2> /dev/null || true; }
  date +%s.%N > "$res/t1"
  sdiag > "$res/sdiag.txt"
  ctld_cpu "$dir" > "$res/ctld_cpu1"
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid" 2> /dev/null || true
    wait "$perf_pid" 2> /dev/null || true
    perf_summary "$res/perf.data" > "$res/perf.txt" || log "$1: no perf summary (perf report failed)"
  fi
  if [ -n "$probe_pid" ]; then
    kill -INT "$probe_pid" 2> /dev/null || true
    wait "$probe_pid" 2> /dev/null || true
  fi
  squeue -h -o '%A %T %R' > "$res/left.txt" || true
  grep -c 'placement=fabricfit' "$dir/log/slurmctld.log" > "$res/placed_by_fabricfit" || true
  grep -c 'placement=slurm' "$dir/log/slurmctld.log" > "$res/placed_by_slurm" || true
  cp "$dir/slurm.conf" "$res/slurm.conf"
  gzip -c "$dir/log/slurmctld.log" > "$res/slurmctld.log.gz" || true
  lab_down "$dir" > "$res/down.log" 2>&1
  log "$1: done, lab down"
}

runs=()
for ((k = 1; k <= repeat; k++)); do
  for p in $policies; do
    if [ "$k" -eq 1 ]; then runs+=("$p"); else runs+=("$p.$k"); fi
    run_policy "${runs[-1]}"
  done
done

# 3. The comparison.
if [ "$faults" = 1 ]; then
  python3 "$top/bench/lab_stream_faults_summary.py" "$out" "$compression" "$cap_h" "$load" "$(if [ "$start" -eq 0 ]; then echo "the first $jobs jobs"; else echo "jobs $((start + 1))-$((start + jobs))"; fi)" \
    "$sweep_s" "$fault_at" "$flap_s" "$fault_group" "$fault_host" "$slow_keeps" "$ckpt_trace_s" "${runs[@]}" > "$out/lab.md"
else
LAB_STREAM_BASELINE=$baseline LAB_STREAM_GEOMETRY="${lab_geometry[*]}" LAB_STREAM_TRACE="$trace" \
  python3 "$top/bench/lab_stream_summary.py" "$out" "$compression" "$cap_h" "$load" "$(if [ "$start" -eq 0 ]; then echo "the first $jobs jobs"; else echo "jobs $((start + 1))-$((start + jobs))"; fi)" "$demand" "$routing" "$rule" "$estimate" "${runs[@]}" > "$out/lab.md"
fi
cat "$out/lab.md"
if [ "$update_docs" = "--update-docs" ]; then
  cp "$out/per_job.csv" "$top/docs/${mark//-/_}_jobs.csv"
  python3 "$top/bench/doc_block.py" "$top/docs/placement.md" "$out/lab.md" "$mark"
fi
