#!/usr/bin/env bash
# topology/fabricfit when nodes are added and removed at run time (dynamic nodes:
# `scontrol create/delete nodename`), on the release FABRICFIT_SLURM_VERSION names. On
# 25.05+ removal arrives through topology_p_add_rm_node; on every release the plugin maps
# Slurm's nodes onto the fabric again before its next decision, so what it reports and
# places follows the node table.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

make_tmpdir ff-test-nodes
lab=$TEST_TMPDIR/lab
echo "MaxNodeCount=32" > "$TEST_TMPDIR/extra.conf"
port=$(pick_ports 16)
lab_start --nodes 16 --leaves 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"
release=$(slurm_release)
diag "Slurm $release"
FABRICFIT=$(command -v fabricfit)

# A fabric of 3 leaf groups (gpu001-024) where Slurm has 16 nodes: 8 hosts are not nodes.
"$FABRICFIT" generate --leaves 3 --hosts-per-leaf 8 -o "$lab/big.net" > /dev/null
"$FABRICFIT" discover --from "$lab/big.net" -q -o "$lab/fabric.snapshot"
# The plugin's watcher notices a new snapshot within a second and the next evaluation swaps
# it in: give it that second, then the next job is decided on the new fabric.
sleep 2
run_gpu_job() {
  local j; j=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap true)
  wait_job "$j" 60 > /dev/null
  echo "$j"
}
j=$(run_gpu_job)
check "with the bigger fabric, scontrol show topology names the 8 hosts Slurm lacks" \
  wait_for 10 bash -c 'scontrol show topology | grep -q "^NotInFabric=(none) NotInSlurm=gpu\[017-024\]"'
check "and job $j is still placed by fabricfit" \
  grep -q "fabricfit: eval_nodes JobId=$j .*placement=fabricfit " "$ctld_log"

# Add gpu017 as a dynamic node (FUTURE: it never runs a slurmd here).
out=$(scontrol create NodeName=gpu017 CPUs=32 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 \
        ThreadsPerCore=1 RealMemory=4096 State=FUTURE 2>&1); rc=$?
check "scontrol create NodeName=gpu017 (rc=$rc${out:+: $out})" test "$rc" = 0
j=$(run_gpu_job)
check "after it is added, the plugin maps it: NotInSlurm=gpu[018-024]" \
  wait_for 10 bash -c 'scontrol show topology | grep -q "^NotInFabric=(none) NotInSlurm=gpu\[018-024\]"'
check "and job $j is placed by fabricfit" \
  grep -q "fabricfit: eval_nodes JobId=$j .*placement=fabricfit " "$ctld_log"

out=$(scontrol delete NodeName=gpu017 2>&1); rc=$?
check "scontrol delete NodeName=gpu017 (rc=$rc${out:+: $out})" test "$rc" = 0
j=$(run_gpu_job)
case $release in
  24.11.*) ;;  # no add_rm_node before 25.05: the plugin sees the node table change itself
  *) check "slurmctld told the plugin through add_rm_node" \
       grep -q "fabricfit: node gpu017 added or removed: mapping Slurm's nodes onto the fabric again" "$ctld_log" ;;
esac
check "after it is removed, gpu017 is a fabric host without a node again" \
  wait_for 10 bash -c 'scontrol show topology | grep -q "^NotInFabric=(none) NotInSlurm=gpu\[017-024\]"'
check "and job $j is placed by fabricfit" \
  grep -q "fabricfit: eval_nodes JobId=$j .*placement=fabricfit " "$ctld_log"
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
