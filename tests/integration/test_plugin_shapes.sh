#!/usr/bin/env bash
# Every request shape sbatch accepts, against topology/fabricfit in the lab: each job is
# placed by fabricfit (within one leaf group when it fits one) or handed to Slurm with the
# reason logged, and each one that can run runs. Also: when Slurm's evaluator refuses
# fabricfit's choice, Slurm's own pass starts from the state the first pass had.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-shapes 16
# The lab gives each GPU its memory (DefMemPerGPU), as GPU sites do, so GPU jobs share nodes.
lab_start --nodes 16 --leaves 2

decision() { grep "fabricfit: eval_nodes JobId=$1[ _]" "$ctld_log" | tail -1; }

# shape DESC EXPECT SBATCH-ARGS...: submit, wait, and check the job completed and that its
# allocation line says EXPECT: "fabricfit" (and one leaf group) or "slurm reason=WORD".
shape() {
  local desc=$1 expect=$2 id state line; shift 2
  id=$(sbatch --parsable -o /dev/null "$@" --wrap true 2>&1) || { fail "$desc: sbatch $* refused" "$id"; return; }
  state=$(wait_job "$id" 60)
  line=$(decision "$id")
  case $expect in
    fabricfit)
      if [ "$state" = COMPLETED ] && [[ $line == *"placement=fabricfit leaf_groups=1 "* ]]; then
        ok "$desc: placed by fabricfit in one leaf group on $(job_field "$id" NodeList)"
      else
        fail "$desc: expected COMPLETED and placement=fabricfit leaf_groups=1" "state $state" "${line#*] }"
      fi ;;
    *)
      if [ "$state" = COMPLETED ] && [[ $line == *"placement=$expect"* ]]; then
        ok "$desc: left to Slurm (${expect#slurm })"
      else
        fail "$desc: expected COMPLETED and placement=$expect" "state $state" "${line#*] }"
      fi ;;
  esac
}

shape "--gpus=16 without -N" fabricfit --gpus=16
shape "--gpus=16 with -N 2" fabricfit -N 2 --gpus=16
shape "--gpus-per-node=4 -N 2 (shared nodes)" fabricfit -N 2 --gpus-per-node=4
shape "--gpus-per-task=2 -n 4" fabricfit -n 4 --gpus-per-task=2
shape "--gpus-per-task=2 --ntasks-per-node=4 -N 2" fabricfit -N 2 --ntasks-per-node=4 --gpus-per-task=2
shape "-N 2-4 --gpus-per-node=8 --exclusive" fabricfit -N 2-4 --gpus-per-node=8 --exclusive
shape "-x the first leaf group" fabricfit -N 2 --gpus-per-node=8 -x 'gpu[001-008]'
shape "--contiguous" "slurm reason=contiguous" -N 2 --gpus-per-node=8 --contiguous
shape "--spread-job without GPUs" "slurm reason=no-gpus" -N 2-4 --spread-job
release=$(slurm_release)
if [[ $release == 24.11.* ]]; then
  # Slurm 24.11's own evaluator dies of SIGSEGV on --spread-job with GRES: refused instead.
  out=$(sbatch --parsable -o /dev/null -N 2-4 --gpus=8 --spread-job --wrap true 2>&1)
  check "--spread-job with GPUs is refused at submission, not a controller crash: $out" \
    bash -c '[[ $1 == *"Requested node configuration is not available"* ]] && scontrol ping | grep -q "is UP"' _ "$out"
  check "and the reason is logged" grep -q "reason=\"--spread-job with GRES: Slurm $release.s evaluator would crash" "$ctld_log"
else
  # Fixed in later releases: such a job runs, placed by Slurm's own evaluator.
  shape "--spread-job with GPUs ($release)" "slurm reason=spread-job" -N 2-4 --gpus=8 --spread-job
  check "slurmctld is up after it" bash -c 'scontrol ping | grep -q "is UP"'
fi
shape "-w" "slurm reason=required-nodes" -N 2 --gpus-per-node=8 -w gpu003,gpu012
shape "--gpus-per-socket" "slurm reason=gpus-per-socket" -N 1 --sockets-per-node=2 --gpus-per-socket=1
shape "no GPUs" "slurm reason=no-gpus" -N 1
# A fabric without NVLink domains: each host is its own unit, so --exclusive=topo holds the
# job's nodes (test_plugin_domains checks whole domains).
shape "--exclusive=topo without NVLink domains" fabricfit -N 2 --gpus-per-node=4 --exclusive=topo

# Job arrays: every task is a job of its own, each placed by fabricfit.
arr=$(sbatch --parsable -o /dev/null --array=1-3 -N 2 --gpus-per-node=8 --wrap true)
wait_for 60 bash -c "[ -z \"\$(squeue -h -j $arr)\" ]"
n=$(log_count_reaches "$ctld_log" "fabricfit: eval_nodes JobId=${arr}_[1-3]([0-9]*) .*placement=fabricfit leaf_groups=1 " 3 10)
[ "$n" = 3 ] || grep "JobId=${arr}" "$ctld_log" | sed 's/^/# /' | tail -20
check "each of the 3 array tasks was placed by fabricfit (found $n)" test "$n" = 3

# Heterogeneous job: each component is placed on its own.
cat > "$TEST_TMPDIR/het.sh" <<'EOS'
#!/bin/sh
#SBATCH -N 1 --gpus-per-node=8
#SBATCH hetjob
#SBATCH -N 2 --gpus-per-node=4
true
EOS
het=$(sbatch --parsable -o /dev/null "$TEST_TMPDIR/het.sh")
het=${het%%+*}
wait_for 60 bash -c "[ -z \"\$(squeue -h -j $het)\" ]"
n=$(log_count_reaches "$ctld_log" "fabricfit: eval_nodes JobId=$het+[01]([0-9]*) .*placement=fabricfit leaf_groups=1 " 2 10)
[ "$n" = 2 ] || grep "JobId=${het}" "$ctld_log" | sed 's/^/# /' | tail -20
check "both components of a heterogeneous job were placed by fabricfit (found $n)" test "$n" = 2

# --switches=N@T: honoured. Twelve nodes need both leaf groups: with --switches=1 the job
# waits (up to its time); four nodes fit one and run at once.
sw=$(sbatch --parsable -o /dev/null -N 4 --gpus-per-node=8 --switches=1@5:00 --wrap true)
state=$(wait_job "$sw" 60)
check "--switches=1 with 4 nodes runs at once in one leaf group ($state, $(job_leaf_groups "$sw" 8) leaf group)" \
  bash -c '[ "$1" = COMPLETED ] && [ "$2" = 1 ]' _ "$state" "$(job_leaf_groups "$sw" 8)"
big=$(sbatch --parsable -o /dev/null -N 12 --gpus-per-node=8 --switches=1@5:00 --wrap true)
sleep 8
check "--switches=1 with 12 nodes waits for a single leaf group ($(job_state "$big"))" \
  test "$(job_state "$big")" = PENDING
check "and is not allocated meanwhile" test -z "$(decision "$big")"
scancel "$big"

# Fallback: 5 tasks of 3 GPUs. fabricfit counts 15 GPUs and offers two 8-GPU nodes; Slurm's
# evaluator fits only 2 tasks per node there and refuses. Its own pass over every node
# must then start from the state the first pass had (cores, per-node CPU and GPU counts).
fb=$(sbatch --parsable -o /dev/null -n 5 --gpus-per-task=3 --wrap true)
state=$(wait_job "$fb" 60)
check "a job whose fabricfit choice Slurm refuses still runs ($state on $(job_field "$fb" NodeList))" \
  test "$state" = COMPLETED
check "its allocation says Slurm's pass placed it after the refusal" \
  bash -c '[[ $1 == *"placement=slurm reason=Slurm'"'"'s_evaluator_refused_the_fabricfit_choice"* ]]' _ "$(decision "$fb")"

check "one allocation line per job: none logged twice" \
  bash -c "! grep -o 'fabricfit: eval_nodes JobId=[0-9_+()]* ' '$ctld_log' | sort | uniq -d | grep -q ."
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
