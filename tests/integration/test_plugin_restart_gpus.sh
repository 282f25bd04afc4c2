#!/usr/bin/env bash
# topology/fabricfit across controller restarts: slurmctld stopped and started again from
# its saved state (no -c), then `scontrol reconfigure`. Right after such a start the GRES
# state's GPU counts are a NO_VAL sentinel until Slurm reconciles them with slurm.conf;
# every GPU job must still be placed by fabricfit, and every host's GPUs must be counted
# (what get_fragmentation and placement see, shown by scontrol show topology).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-restart 16
lab_start --nodes 16 --leaves 2

# placed_by JOBID: what the allocation line says ("fabricfit" or "slurm"), empty if none.
placed_by() {
  grep "fabricfit: eval_nodes JobId=$1 " "$ctld_log" | tail -1 | sed -n 's/.* placement=\([a-z]*\).*/\1/p'
}
# run_gpu_job: a 2-node, 8-GPU-per-node job run to the end; prints its id.
run_gpu_job() {
  local id
  id=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap true) || return 1
  wait_job "$id" 60 > /dev/null
  echo "$id"
}

a=$(run_gpu_job)
check "before any restart a GPU job is placed by fabricfit" test "$(placed_by "$a")" = fabricfit

# A long job across the restart: its nodes' GPUs stay allocated in the saved state.
long=$(sbatch --parsable -N 1 --gpus-per-node=8 -o /dev/null --wrap 'sleep 300')
wait_for 20 bash -c "[ \"\$(squeue -h -j $long -o %T)\" = RUNNING ]"

for how in TERM KILL; do
  "$LAB_SH" restart-slurmctld --dir "$lab" --signal "$how" > "$lab.restart-$how.log" 2>&1
  check "slurmctld started again from its saved state after SIG$how" \
    bash -c "scontrol ping | grep -q 'is UP'"
  check "the running job survived the SIG$how restart" \
    bash -c "[ \"\$(squeue -h -j $long -o %T)\" = RUNNING ]"
  b=$(run_gpu_job)
  check "after the SIG$how restart a GPU job is placed by fabricfit ($(placed_by "$b"))" \
    test "$(placed_by "$b")" = fabricfit
  check "and every host's GPUs are counted" \
    bash -c 'scontrol show topology | grep -q "^HostsWithGpus=16/16 Gpus=128$"'
done

scontrol reconfigure
wait_for 30 bash -c "scontrol ping | grep -q 'is UP'"
sleep 1
c=$(run_gpu_job)
check "after scontrol reconfigure a GPU job is placed by fabricfit ($(placed_by "$c"))" \
  test "$(placed_by "$c")" = fabricfit
check "and every host's GPUs are counted after reconfigure" \
  bash -c 'scontrol show topology | grep -q "^HostsWithGpus=16/16 Gpus=128$"'
# get_fragmentation runs in backfill; it must not see GPU-less hosts (which would make a
# fully idle cluster look unfragmented whatever the placement).
check "no job was left to Slurm for want of GPU counts" \
  bash -c "! grep -q 'no host has GPUs' '$ctld_log'"
scancel "$long"
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
