#!/usr/bin/env bash
# topology/fabricfit across what admins do to a running controller, on the Slurm release
# the lab runs (FABRICFIT_SLURM_VERSION, as lab.sh --slurm; default current.env's): a
# slurmctld restart on its saved state and `scontrol reconfigure`, each followed by GPU
# jobs still placed by fabricfit; a one-node GPU job placed by fabricfit too (on 26.05 the
# one-node fast path is off for it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-restart 16
lab_start --nodes 16 --leaves 2
release=$(slurm_release)
diag "Slurm $release"
check "slurmctld loaded topology/fabricfit built for this release ($release)" \
  grep -q "fabricfit: topology/fabricfit loaded (fabricfit [^ ]* for Slurm $release," "$ctld_log"
loads() { grep -c "fabricfit: snapshot $lab/fabric.snapshot loaded" "$ctld_log"; }
# placed_by_fabricfit JOBID: the job completed and its decision was fabricfit's.
placed_by_fabricfit() {
  local state
  state=$(wait_job "$1" 60)
  [ "$state" = COMPLETED ] && grep -q "fabricfit: eval_nodes JobId=$1 .*placement=fabricfit " "$ctld_log"
}

# A one-node GPU job: fabricfit's, not Slurm's one-node path.
one=$(sbatch --parsable -N 1 --gpus-per-node=8 -o /dev/null --wrap true)
check "a one-node GPU job is placed by fabricfit" placed_by_fabricfit "$one"

# A job that runs across the restart, on one leaf group.
long=$(sbatch --parsable -N 4 --gpus-per-node=8 -o /dev/null --wrap 'sleep 300')
wait_for 30 bash -c "[ \"\$(squeue -h -j $long -o %T)\" = RUNNING ]"
nodes_before=$(job_field "$long" NodeList)
check "job $long runs on $nodes_before" test "$(job_state "$long")" = RUNNING

# --- restart on saved state
before=$(loads)
pid_before=$(cat "$lab/run/slurmctld.pid")
if "$LAB_SH" restart-slurmctld --dir "$lab" > "$lab/restart.log" 2>&1; then
  ok "slurmctld restarted (pid $pid_before -> $(cat "$lab/run/slurmctld.pid"))"
else
  fail "slurmctld restart" "$(tail -5 "$lab/restart.log")"
fi
check "job $long survived the restart on the same nodes (saved state)" \
  bash -c '[ "$1" = RUNNING ] && [ "$2" = "$3" ]' _ "$(job_state "$long")" "$(job_field "$long" NodeList)" "$nodes_before"
check "the restarted slurmctld loaded the snapshot again" test "$(loads)" -gt "$before"
nodes_up() { [ "$(sinfo -h -N -o %t | grep -cvE '^(idle|mix|alloc)$')" = 0 ]; }
# restart-slurmctld returns once every node has registered again (a plain restart leaves
# them UNKNOWN until then, and a job would get only the nodes that registered first).
check "restart-slurmctld returned with every node registered ($(sinfo -h -N -o '%N %t' | grep -vE ' (idle|mix|alloc)$' | head -5 | paste -sd' ' -))" \
  nodes_up
a=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap true)
check "after the restart a GPU job is placed by fabricfit" placed_by_fabricfit "$a"

# --- scontrol reconfigure
before=$(loads)
check "scontrol reconfigure succeeds" scontrol reconfigure
wait_for 60 bash -c 'scontrol ping 2>/dev/null | grep -q "is UP"'
wait_for 30 bash -c "[ \$(grep -c 'fabricfit: snapshot $lab/fabric.snapshot loaded' '$ctld_log') -gt $before ]"
check "after reconfigure the snapshot is loaded again" test "$(loads)" -gt "$before"
check "job $long still runs after reconfigure" test "$(job_state "$long")" = RUNNING
b=$(sbatch --parsable -N 4 --gpus-per-node=8 -o /dev/null --wrap true)
check "after reconfigure a GPU job is placed by fabricfit" placed_by_fabricfit "$b"
line=$(grep "fabricfit: eval_nodes JobId=$b " "$ctld_log" | tail -1)
check "and kept in one leaf group: ${line##*placement=}" \
  bash -c '[[ "$1" == *"placement=fabricfit leaf_groups=1 "* ]]' _ "$line"
check "scontrol show topology still reports fabric-aware placement" \
  bash -c 'scontrol show topology | grep -q "^Placement=fabricfit "'
scancel "$long"
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
