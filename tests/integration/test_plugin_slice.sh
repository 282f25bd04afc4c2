#!/usr/bin/env bash
# topology/fabricfit and the SPANK plugin inside a real slurmctld with real slurmds:
# jobs submitted with sbatch/srun, the plugin's log line per decision, --comm-pattern
# validated at submission and FABRICFIT_PATTERN in every task; the lab leaves nothing behind.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-slice 32
if ! lab_up "$lab" --ctld-port "$port" --slurmd-port $((port + 1)); then
  fail "lab up"
  done_testing
fi
ok "lab up: $(sinfo -h -o '%D nodes %t' | head -1)"
pids=$(lab_recorded_procs "$lab")
ctld_log=$lab/log/slurmctld.log

check "sinfo shows 32 idle nodes" test "$(sinfo -h -t idle -o '%D')" = 32

# --- a 4-node alltoall job: FABRICFIT_PATTERN in every task, and the decision logged.
jid=$(sbatch --parsable -N 4 --gpus-per-node=8 --comm-pattern=alltoall -o "$lab/job-%j.out" \
        --wrap 'srun printenv FABRICFIT_PATTERN')
if [ -n "$jid" ] && wait_job "$jid" 60 > /dev/null; then
  check "job $jid completed" test "$(job_state "$jid")" = COMPLETED
  check "every one of the 4 tasks sees FABRICFIT_PATTERN=alltoall" \
    test "$(grep -c '^alltoall$' "$lab/job-$jid.out")" = 4
  check "the job got 4 nodes" test "$(scontrol show job "$jid" -o | sed -n 's/.* NumNodes=\([0-9]*\) .*/\1/p')" = 4
  line=$(grep "fabricfit: eval_nodes JobId=$jid " "$ctld_log" | tail -1)
  check "slurmctld log names the job, its pattern and its nodes: ${line#*] }" \
    bash -c '[[ "$1" == *"candidates=gpu["*"chosen=gpu"*" pattern=alltoall"* ]]' _ "$line"
else
  fail "job did not finish (id '${jid:-none}', state $(job_state "$jid"))"
fi

# --- malformed values are refused at submission, with the reason, and no job is made.
before=$(squeue -h -a | wc -l)
out=$(sbatch -N 2 --comm-pattern=tp=0,dp=4 --wrap true 2>&1); rc=$?
check "sbatch refuses --comm-pattern=tp=0,dp=4 (rc=$rc): ${out%%$'\n'*}" \
  bash -c '[ "$1" -ne 0 ] && [[ "$2" == *"invalid --comm-pattern=tp=0,dp=4"*"group size"* ]]' _ "$rc" "$out"
out=$(srun -N 1 --comm-pattern=allreduce true 2>&1); rc=$?
check "srun refuses --comm-pattern=allreduce (rc=$rc)" \
  bash -c '[ "$1" -ne 0 ] && [[ "$2" == *"unknown pattern '"'"'allreduce'"'"'"* ]]' _ "$rc" "$out"
check "no job was created by the refused submissions" test "$(squeue -h -a | wc -l)" = "$before"

# --- without --comm-pattern: site default for multi-node steps, none for one node.
check "multi-node step without --comm-pattern gets the default (ring)" \
  test "$(srun -N 2 printenv FABRICFIT_PATTERN | sort -u)" = ring
check "single-node step gets none" test "$(srun -N 1 printenv FABRICFIT_PATTERN)" = none
one=$(srun -N 1 --gpus-per-node=1 bash -c 'echo $SLURM_JOB_ID')
check "and slurmctld places a one-node GPU job as pattern=none" \
  wait_for 10 grep -q "fabricfit: eval_nodes JobId=$one .* pattern=none$" "$ctld_log"
check "tp/pp/dp is passed on in canonical form" \
  test "$(srun -N 2 --comm-pattern=dp=2,tp=8 printenv FABRICFIT_PATTERN | sort -u)" = "tp=8,pp=1,dp=2"

# --- fabricfit.conf is read by the SPANK plugin for each step; a bad line names file and line.
echo "DefaultPattern=tree" > "$lab/fabricfit.conf"
check "DefaultPattern=tree in fabricfit.conf becomes the default" \
  test "$(srun -N 2 printenv FABRICFIT_PATTERN | sort -u)" = tree
printf 'DefaultPattern=alltoall\nDefaultPatern=tree\n' > "$lab/fabricfit.conf"
out=$(srun -N 2 printenv FABRICFIT_PATTERN 2>&1)
# The admin's error goes to the slurmd log, never to the user; the step keeps the last good
# settings (DefaultPattern=tree), as slurmctld does (issue 7 item 5).
check "a bad fabricfit.conf line is not shown to the user, and the last good settings are kept" \
  bash -c '[[ "$1" != *DefaultPatern* ]] && [[ "$(sort -u <<<"$1")" == tree ]]' _ "$out"
check "and the slurmd log names the file and line" \
  bash -c 'cat "$1"/log/slurmd*.log | grep -qF "$2:2: unknown key '"'"'DefaultPatern'"'"'"' _ "$lab" "$lab/fabricfit.conf"
: > "$lab/fabricfit.conf"

# --- slurmctld: a good fabricfit.conf is taken on reconfigure; a bad one never replaces it.
echo "DefaultPattern=alltoall" > "$lab/fabricfit.conf"
scontrol reconfigure
check "reconfigure takes a good fabricfit.conf (DefaultPattern=alltoall)" \
  wait_for 20 bash -c 'scontrol show topology | grep -q "DefaultPattern=alltoall"'
printf 'DefaultPattern=tree\nSnapshotFil=/x\n' > "$lab/fabricfit.conf"
scontrol reconfigure
check "a bad fabricfit.conf on reconfigure is reported with file and line" \
  wait_for 20 bash -c 'scontrol show topology | grep -q "fabricfit.conf:2: unknown key"'
check "and the last good settings stay in force" bash -c 'scontrol show topology | grep -q "DefaultPattern=alltoall"'
check "slurmctld logged the bad line" grep -q "fabricfit: $lab/fabricfit.conf:2: unknown key 'SnapshotFil'; using the last good copy of the file" "$ctld_log"
: > "$lab/fabricfit.conf"

# --- scontrol show topology answers through the plugin's pack/unpack/print.
out=$(scontrol show topology 2>&1); rc=$?
check "scontrol show topology answers (rc=$rc)" \
  bash -c '[ "$1" -eq 0 ] && [[ "$2" == *"Plugin=topology/fabricfit"* ]]' _ "$rc" "$out"
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"

# --- down stops every daemon up started.
lab_down "$lab" > /dev/null 2>&1
alive=""
for p in $pids; do pid_running "$p" && alive="$alive $p"; done
check "lab down left none of the $(echo $pids | wc -w) recorded processes alive${alive:+ (alive:$alive)}" test -z "$alive"
done_testing
