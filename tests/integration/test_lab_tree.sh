#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The lab (contrib/lab.sh) with Slurm's own topology/tree: 8 nodes x 8 GPUs on 2 leaves come
# up idle, a 4-node GPU job runs on 4 distinct nodes under one leaf, and `down` leaves none of
# the lab's processes alive. Needs root, Slurm from contrib/setup-slurm.sh and the fabricfit
# CLI (FABRICFIT_BIN or on PATH).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root (slurmd)"

NODES=8
base=$(pick_ports "$NODES") || { fail "no free TCP port range for the lab"; done_testing; }
make_tmpdir ff-lab-tree || { fail "mktemp"; done_testing; }
dir=$TEST_TMPDIR/lab

t0=$(date +%s%N)
if ! lab_up "$dir" --topology tree --nodes "$NODES" --leaves 2 \
       --ctld-port "$base" --slurmd-port $((base + 1)); then
  fail "lab up (tree, $NODES nodes, 2 leaves)"
  done_testing
fi
ok "lab up (tree, $NODES nodes, 2 leaves, ports $base-$((base + NODES))) in $(( ($(date +%s%N) - t0) / 1000000 )) ms"

check "lab.sh status reports every daemon up" "$LAB_SH" status --dir "$dir"

idle=$(sinfo -h -N -t idle -o %N | sort -u | wc -l)
if [ "$idle" -eq "$NODES" ]; then ok "sinfo: $NODES nodes idle"; else fail "sinfo: $idle of $NODES nodes idle" "$(sinfo -N)"; fi

# A second `up` on a running lab must refuse and leave the lab alone.
if out=$("$LAB_SH" up --dir "$dir" --topology tree --nodes "$NODES" --leaves 2 \
           --ctld-port "$base" --slurmd-port $((base + 1)) 2>&1); then
  fail "second up on a running lab fails" "$out"
elif grep -q 'already running' <<<"$out" && "$LAB_SH" status --dir "$dir" > /dev/null; then
  ok "second up on a running lab fails and the lab keeps running"
else
  fail "second up on a running lab fails with 'already running' and leaves it up" "$out"
fi

# Jobs on one host all print "localhost": ask each task for the node it runs as instead.
job=$(sbatch --parsable -N 4 --gpus-per-node=8 -o "$dir/job-%j.out" \
        --wrap 'srun printenv SLURMD_NODENAME' 2>&1)
if [[ $job =~ ^[0-9]+$ ]]; then ok "sbatch -N 4 --gpus-per-node=8 (job $job)"; else fail "sbatch" "$job"; done_testing; fi

state=$(wait_job "$job" 60)
if [ "$state" = COMPLETED ]; then
  ok "job $job completed"
else
  fail "job $job completed (state $state)" "$(scontrol show job "$job")" "$(cat "$dir/job-$job.out" 2>/dev/null)"
fi

exit_code=$(job_field "$job" ExitCode)
if [ "$exit_code" = "0:0" ]; then ok "job exit code 0:0"; else fail "job exit code 0:0 (got $exit_code)"; fi

nodelist=$(job_field "$job" NodeList)
alloc=$(scontrol show hostnames "$nodelist" | sort)
ran=$(sort -u "$dir/job-$job.out" 2>/dev/null)
if [ "$(wc -l <<<"$alloc")" -eq 4 ] && [ "$(job_field "$job" NumNodes)" = 4 ]; then
  ok "job allocated 4 nodes ($nodelist)"
else
  fail "job allocated 4 nodes" "NodeList=$nodelist NumNodes=$(job_field "$job" NumNodes)"
fi
if [ "$ran" = "$alloc" ]; then
  ok "srun ran one task on each of the 4 allocated nodes"
else
  fail "srun ran one task on each of the 4 allocated nodes" "allocated: $(tr '\n' ' ' <<<"$alloc")" "ran on: $(tr '\n' ' ' <<<"$ran")"
fi

# With topology/tree and an idle cluster, 4 nodes fit under one leaf switch (4 hosts each).
leaf=$(awk '
  /^SwitchName=/ && /Nodes=/ { for (i = 1; i <= NF; i++) if ($i ~ /^Nodes=/) { sub(/^Nodes=/, "", $i); print $i } }' \
  "$dir/topology.conf" | while read -r nodes; do
    if [ "$(scontrol show hostnames "$nodes" | sort | comm -23 <(echo "$alloc") - | wc -l)" -eq 0 ]; then
      echo "$nodes"
    fi
  done)
if [ -n "$leaf" ]; then ok "the job sits under one leaf switch ($leaf)"; else fail "the job sits under one leaf switch" "$(cat "$dir/topology.conf")"; fi

# down: every process the lab recorded must be gone (PID:start time: the kernel may give a
# PID to another process after down, which is not a survivor).
pids=$(lab_recorded_procs "$dir")
n_pids=$(wc -w <<<"$pids")
if [ "$n_pids" -ge $((NODES + 3)) ]; then
  ok "lab recorded $n_pids PIDs (ibsim, munged, slurmctld, $NODES slurmds)"
else
  fail "lab recorded at least $((NODES + 3)) PIDs (got $n_pids)"
fi
t0=$(date +%s%N)
if out=$(lab_down "$dir" 2>&1); then
  ok "lab down in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
else
  fail "lab down" "$out"
fi
# shellcheck disable=SC2086 # one PID:START per word
alive=$(procs_alive $pids)
if [ -z "$alive" ]; then
  ok "no recorded PID is alive after down"
else
  fail "no recorded PID is alive after down" "alive: $alive"
fi

if out=$(lab_down "$dir" 2>&1); then ok "down on a lab that is not up is a no-op"; else fail "second down" "$out"; fi
if "$LAB_SH" status --dir "$dir" > /dev/null 2>&1; then fail "status exits non-zero after down"; else ok "status exits non-zero after down"; fi

done_testing
