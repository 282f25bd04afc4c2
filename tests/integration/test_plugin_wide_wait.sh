#!/usr/bin/env bash
# The adaptive locality wait for a job wider than every leaf group, in a real slurmctld
# (docs/placement.md, "Adaptive locality wait in Slurm"): it waits for the fewest groups
# that can hold it, as a narrower job waits for one. 18 nodes in 3 leaf groups of 6, each
# group with ONE uplink (6:1), 2 GPUs per node. Long jobs on gpu[010-012] and
# gpu[015-018], a "blocker" with a 2-minute limit on gpu[004-006]: an 8-node alltoall job
# can then only be spread 3|3|2 (gpu001-003, gpu007-009, gpu013-014), where a group of 3
# sends 15 of 7 units of a host's line rate up one uplink: rho 7/15, and with
# LocalityWaitCommShare=0.5, s = 0.5 + 0.5 x 15/7 = 11/7. Once the blocker ends, groups 1
# and 2 hold it 6|2: 12 units each way, s = 19/14. The gain is the time limit x 3/14:
#  (a) a 20-minute job gains 257 s > ~120 s: it waits, pending with the reason "Waiting
#      for 2 leaf groups (...)", and starts on 2 groups when the blocker ends;
#  (b) a 5-minute job gains 64 s < ~120 s: it starts at once, on 3 groups.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-wide-wait 18
# The scheduler's time scale of test_plugin_locality_wait.sh (backfill every 2 s, the main
# pass every 5 s; CompleteWait against a pass that sees the blocker half ended).
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,bf_resolution=1,sched_interval=5\nCompleteWait=4\n' \
  > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 18 --leaves 3 --spines 1 --uplinks 1 --gpus 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"

base_conf=$(cat "$lab/fabricfit.conf")
printf '%s\n%s\n' "$base_conf" $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitMax=600' \
  > "$lab/fabricfit.conf"
scontrol reconfigure > /dev/null
check "LocalityWaitMax=600 and LocalityWaitCommShare=0.5 are read (scontrol show topology)" \
  wait_for 30 bash -c 'scontrol show topology 2>/dev/null | grep -q "LocalityWaitMax=600"'
check "all 18 nodes idle" wait_for 30 bash -c '[ "$(sinfo -h -t idle -o %D)" = 18 ]'
check "the fabric has 3 leaf groups of 6 hosts, each 6:1 oversubscribed" \
  bash -c '[ "$(${FABRICFIT_BIN:-fabricfit} show "$1" | grep -cE "^ +[^ ]+ +6 +1 .* 6.00:1")" = 3 ]' _ "$lab/fabric.snapshot"

submit() { sbatch --parsable -o /dev/null --gpus-per-node=2 "$@"; }
running() { [ "$(job_state "$1")" = RUNNING ]; }
# fill SLEEP: long jobs on gpu010-012 and gpu015-018, the blocker (2-minute limit, SLEEP s)
# on gpu004-006: one job, so its hosts free together.
fill() {
  local j ids=()
  ids+=("$(submit -t 30 -N 3 -w 'gpu[010-012]' --wrap 'sleep 600')")
  ids+=("$(submit -t 30 -N 4 -w 'gpu[015-018]' --wrap 'sleep 600')")
  ids+=("$(submit -t 2 -N 3 -w 'gpu[004-006]' --wrap "sleep $1")")
  for j in "${ids[@]}"; do wait_for 20 running "$j" || { fail "filler $j did not start"; return 1; }; done
  echo "${ids[*]}"
}
clear_jobs() {
  scancel -u root 2> /dev/null
  wait_for 30 bash -c '[ -z "$(squeue -h)" ] && [ "$(sinfo -h -t idle -o %D)" = 18 ]'
}

# --- (a) a wait that pays.
fill 25 > /dev/null || { done_testing; }
t0=$(date +%s)
w=$(submit -N 8 -t 20 --wrap 'sleep 300')
check "(a) the 20-minute 8-node job $w stays pending" bash -c 'sleep 3; [ "$(squeue -h -j '"$w"' -o %T)" = PENDING ]'
if wait_for 15 bash -c '[[ "$(squeue -h -j '"$w"' -o %R)" == "(Waiting for 2 leaf groups (gpu[001-008]) expected "*", at most until "* ]]'; then
  ok "(a) squeue names the 2 groups' hosts it waits for: $(job_reason "$w")"
else
  fail "(a) squeue shows the wait for 2 leaf groups" "reason: $(job_reason "$w")" "$(grep "JobId=$w" "$ctld_log" | tail -5)"
fi
check "(a) slurmctld logged the decision (slowdown 11/7 now, gain 257 s > expected wait)" \
  wait_for 5 grep -q "fabricfit: JobId=$w waits: .*slowdown now 1.571, gain 257s > expected wait 1[01][0-9]s" "$ctld_log"
if wait_for 60 running "$w"; then
  started=$(job_epoch "$w" StartTime)
  ok "(a) $w started $((started - t0)) s after submission, when the blocker ended (its limit: 120 s)"
  check "(a) on 2 leaf groups: $(job_field "$w" NodeList)" test "$(job_leaf_groups "$w" 6)" = 2
  check "(a) well before the cap and before the blocker's limit" test $((started - t0)) -lt 60
else
  fail "(a) $w started when the blocker ended" "state $(job_state "$w"), reason $(job_reason "$w")"
fi
clear_jobs

# --- (b) a wait that does not pay: a 5-minute job gains 64 s < ~120 s.
fill 60 > /dev/null || { done_testing; }
w=$(submit -N 8 -t 5 --wrap 'sleep 300')
if wait_for 10 running "$w"; then
  ok "(b) the 5-minute job $w started at once"
  check "(b) spread over 3 leaf groups: $(job_field "$w" NodeList)" test "$(job_leaf_groups "$w" 6)" = 3
  check "(b) slurmctld logged why not: wait exceeds gain" \
    wait_for 5 grep -q "eval_nodes JobId=$w .*locality-wait=wait-exceeds-gain gain=64s" "$ctld_log"
else
  fail "(b) $w started at once" "state $(job_state "$w"), reason $(job_reason "$w")"
fi
clear_jobs

done_testing
