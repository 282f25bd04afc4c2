#!/usr/bin/env bash
# topology/fabricfit placing real jobs: the lab discovers its simulated fabric into a
# snapshot, slurmctld loads it, and eval_nodes narrows Slurm's candidates to the
# engine's choice. A bad snapshot never replaces a good one and never stops jobs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-placement 32
lab_start --nodes 32 --leaves 4
pids=$(lab_recorded_procs "$lab")

check "slurmctld loaded the snapshot discovered from the simulated fabric" \
  grep -q "fabricfit: snapshot $lab/fabric.snapshot loaded: hosts=32 leaf_groups=4" "$ctld_log"
check "scontrol show topology reports fabric-aware placement" \
  bash -c 'scontrol show topology | grep -q "^Placement=fabricfit "'

# Four nodes busy on leaf 1 leave 4 free there; an 8-node job then fits one whole leaf,
# where a topology-blind first fit (gpu005-012) would span two.
a=$(sbatch --parsable -N 4 --gpus-per-node=8 -o /dev/null --wrap 'sleep 30')
wait_for 20 bash -c "[ \"\$(squeue -h -j $a -o %T)\" = RUNNING ]"
b=$(sbatch --parsable -N 8 --gpus-per-node=8 --comm-pattern=alltoall -o "$lab/b.out" \
      --wrap 'srun printenv FABRICFIT_PATTERN')
state=$(wait_job "$b" 60)
check "the 8-node alltoall job completed ($state)" test "$state" = COMPLETED
check "it ran inside one leaf group ($(job_field "$b" NodeList))" test "$(job_leaf_groups "$b" 8)" = 1
line=$(grep "fabricfit: eval_nodes JobId=$b " "$ctld_log" | tail -1)
check "its decision was made by fabricfit with no cross-spine traffic: ${line#*] }" \
  bash -c '[[ "$1" == *"placement=fabricfit leaf_groups=1 "*"cross_spine_gb=0 "*"uplink_ms=0 "* ]]' _ "$line"

# Ring jobs wider than a leaf group: contiguous leaf groups, the fewest possible.
c=$(sbatch --parsable -N 12 --gpus-per-node=8 -o /dev/null --wrap 'true')
state=$(wait_job "$c" 60)
check "a 12-node job spans the fewest leaf groups it can (2): $(job_field "$c" NodeList)" \
  bash -c '[ "$1" = COMPLETED ] && [ "$2" = 2 ]' _ "$state" "$(job_leaf_groups "$c" 8)"
scancel "$a"

# CPU-only jobs are left to Slurm.
d=$(sbatch --parsable -N 1 -o /dev/null --wrap true)
wait_job "$d" 30 > /dev/null
check "a job without GPUs is left to Slurm's selection" \
  grep -q "fabricfit: eval_nodes JobId=$d .*placement=slurm reason=no-gpus" "$ctld_log"

# A corrupt snapshot: logged once, the loaded one stays, jobs go on.
head -c 100 "$lab/fabric.snapshot" > "$lab/fabric.snapshot.tmp" && mv "$lab/fabric.snapshot.tmp" "$lab/fabric.snapshot"
# The watcher looks once a second: the job must come after it has looked.
wait_for 10 grep -q "fabricfit: $lab/fabric.snapshot: .*; keeping the snapshot already loaded" "$ctld_log"
e=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap true)
state=$(wait_job "$e" 60)
check "after a truncated snapshot a job still completes ($state)" test "$state" = COMPLETED
check "and is still placed by the snapshot loaded before" \
  grep -q "fabricfit: eval_nodes JobId=$e .*placement=fabricfit leaf_groups=1 " "$ctld_log"
check "the bad snapshot is reported with its file name" \
  grep -q "fabricfit: $lab/fabric.snapshot: .*; keeping the snapshot already loaded" "$ctld_log"
check "scontrol show topology says so" \
  bash -c 'scontrol show topology | grep -q "bad snapshot: .*(keeping the one already loaded)"'

# A good snapshot again is picked up without a restart.
need_fabricfit
loads_before=$(grep -c "fabricfit: snapshot $lab/fabric.snapshot loaded" "$ctld_log")
"$FABRICFIT" discover --from "$lab/fabric.net" -q -o "$lab/fabric.snapshot"
wait_for 10 bash -c "[ \$(grep -c 'fabricfit: snapshot $lab/fabric.snapshot loaded' '$ctld_log') -gt $loads_before ]"
f=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap true)
wait_job "$f" 60 > /dev/null
check "a new snapshot is loaded without restarting slurmctld" \
  bash -c "[ \$(grep -c 'fabricfit: snapshot $lab/fabric.snapshot loaded' '$ctld_log') -ge 2 ]"
# A fabric that lacks half of Slurm's nodes: both sides named once, and jobs offered
# nodes the fabric does not know go to Slurm's selection.
"$FABRICFIT" generate --leaves 2 --hosts-per-leaf 8 -o "$lab/half.net"
loads_before=$(grep -c "fabricfit: snapshot $lab/fabric.snapshot loaded" "$ctld_log")
"$FABRICFIT" discover --from "$lab/half.net" -q -o "$lab/fabric.snapshot"
# slurmctld notices a new snapshot within a second (a watcher thread, off its locks).
wait_for 10 bash -c "[ \$(grep -c 'fabricfit: snapshot $lab/fabric.snapshot loaded' '$ctld_log') -gt $loads_before ]"
g=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap true)
state=$(wait_job "$g" 60)
check "with half the nodes missing from the fabric a job still completes ($state)" test "$state" = COMPLETED
check "slurmctld names the Slurm nodes the fabric lacks" \
  grep -q "fabricfit: 16 Slurm node(s) are not in the fabric: gpu\[017-032\]" "$ctld_log"
check "and the job offered them is left to Slurm, saying why" \
  grep -q "fabricfit: eval_nodes JobId=$g .*placement=slurm reason=node_gpu0[1-3][0-9]_is_not_in_the_fabric" "$ctld_log"
check "scontrol show topology lists them" \
  bash -c 'scontrol show topology | grep -q "^NotInFabric=gpu\[017-032\] NotInSlurm=(none)"'
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"

lab_down "$lab" > /dev/null 2>&1
alive=""
for p in $pids; do pid_running "$p" && alive="$alive $p"; done
check "lab down left none of the recorded processes alive${alive:+ (alive:$alive)}" test -z "$alive"
done_testing
