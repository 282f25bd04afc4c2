#!/usr/bin/env bash
# The adaptive locality wait in a real slurmctld (docs/placement.md, "Adaptive locality
# wait in Slurm"): 8 nodes in 2 leaf groups of 4, each group with ONE uplink (4:1), 2 GPUs
# per node. gpu[007-008] run long jobs; gpu[003-004] run "blockers" with a 2-minute time
# limit. A 4-node alltoall job can then only be split 2+2 now (gpu001-002 + gpu005-006):
# its traffic is 4/3 of the uplink, rho 0.75, and with LocalityWaitCommShare=0.5 it runs
# at s = 0.5 + 0.5/0.75 = 7/6. Group 1 is expected whole when the blockers reach their
# limits (~120 s):
#  (a) a 20-minute job gains 1200/6 = 200 s > 120 s: it waits, pending with the reason,
#      and starts in group 1 when the blockers end (early, after a few seconds);
#  (d) while it waits, a 1-minute job may use a host it expects (it ends in time), a
#      10-minute one may not;
#  (b) a 5-minute job gains 50 s < 120 s: it starts at once, split;
#  (c) with LocalityWaitMax=15 the 20-minute job waits, through a slurmctld reconfigure
#      (a re-exec: the wait is decided again from the job's eligible time), and starts
#      split at the cap;
#  (e) a split job running now counts (a job that fits alone waits beside it), (g) still
#      counts after slurmctld re-executes, (h) counts when Slurm placed it (-w), and (l)
#      counts for the next job of the same scheduling pass;
#  (i) with LocalityWaitEstimate=history, the job of (a) is predicted from root's last
#      finished jobs to run far less than its limit: it gains little and starts at once;
#  (k) what it learnt is saved in StateSaveLocation and read back by a re-executed slurmctld;
#  (j) with no periodic pass for 300 s, a wait that reaches its cap is decided again at
#      once: the plugin asks slurmctld to schedule.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-wait 8
# Backfill every 2 s at a 1 s resolution and the main scheduler every 5 s: the test's
# time scale (the defaults are 30 s, 60 s and 60 s). CompleteWait: no scheduling while a
# job that ended in the last 4 s still completes, as sites set it against fragmentation;
# without it a pass may see one blocker host free and the other still in its epilog, where a 3 + 1 split loads the uplink within its capacity: nothing to gain, so the
# waiting job would rightly start split a moment before its group frees.
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,bf_resolution=1,sched_interval=5\nCompleteWait=4\n' \
  > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 8 --leaves 2 --spines 1 --uplinks 1 --gpus 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"

# settings LINES: the lab's fabricfit.conf plus LINES, taken by a reconfigure.
base_conf=$(cat "$lab/fabricfit.conf")
settings() {
  printf '%s\n%s\n' "$base_conf" "$1" > "$lab/fabricfit.conf"
  scontrol reconfigure > /dev/null
  wait_for 30 bash -c 'scontrol show topology 2>/dev/null | grep -q "$1"' _ "${1##*$'\n'}"
}
check "LocalityWaitMax and LocalityWaitCommShare are read (scontrol show topology)" \
  settings $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitMax=600'
check "all 8 nodes idle" wait_for 30 bash -c '[ "$(sinfo -h -t idle -o %D)" = 8 ]'
check "the fabric has 2 leaf groups of 4 hosts, each 4:1 oversubscribed" \
  bash -c '[ "$(${FABRICFIT_BIN:-fabricfit} show "$1" | grep -cE "^ +[^ ]+ +4 +1 +800 +200 +1 +200 +4.00:1")" = 2 ]' _ "$lab/fabric.snapshot"

submit() { sbatch --parsable -o /dev/null --gpus-per-node=2 "$@"; }
running() { [ "$(job_state "$1")" = RUNNING ]; }
# fill SLEEP: long jobs on gpu007-008, a blocker (2-minute limit, SLEEP s) on gpu003-004:
# one job, so both hosts free together.
fill() {
  local j ids=()
  for n in 7 8; do ids+=("$(submit -t 30 -w gpu00$n --wrap 'sleep 600')"); done
  ids+=("$(submit -t 2 -N 2 -w gpu00[3-4] --wrap "sleep $1")")
  for j in "${ids[@]}"; do wait_for 20 running "$j" || { fail "filler $j did not start"; return 1; }; done
  echo "${ids[*]}"
}
clear_jobs() {
  scancel -u root 2> /dev/null
  wait_for 30 bash -c '[ -z "$(squeue -h)" ] && [ "$(sinfo -h -t idle -o %D)" = 8 ]'
}

# --- (a) a wait that pays, and (d) backfill around it.
fillers=$(fill 25) || { done_testing; }
t0=$(date +%s)
w=$(submit -N 4 -t 20 --wrap 'sleep 300')
check "(a) the 20-minute 4-node job $w stays pending" bash -c 'sleep 3; [ "$(squeue -h -j '"$w"' -o %T)" = PENDING ]'
# The reason is written at backfill's trials (every 2 s here); a main-scheduler pass resets
# it to Resources until the next one (docs/placement.md).
if wait_for 15 bash -c '[[ "$(squeue -h -j '"$w"' -o %R)" == "(Waiting for one leaf group (gpu[001-004]) expected "*", at most until "* ]]'; then
  ok "(a) squeue shows why and until when: $(job_reason "$w")"
else
  fail "(a) squeue shows the locality wait" "reason: $(job_reason "$w")" "$(grep "JobId=$w" "$ctld_log" | tail -5)"
fi
if wait_for 15 bash -c '[[ "$(scontrol show job -o '"$w"')" == *" Reason=Waiting_for_one_leaf_group_(gpu[001-004])_expected_"* ]]'; then
  ok "(a) scontrol show job too: $(job_field "$w" Reason)"
else
  fail "(a) scontrol show job shows the locality wait" "Reason=$(job_field "$w" Reason)"
fi
check "(a) slurmctld logged the decision (gain 200 s > expected wait)" \
  wait_for 5 grep -q "fabricfit: JobId=$w waits: .*gain 200s > expected wait 1[01][0-9]s" "$ctld_log"

# (d) a 1-minute job may use a free host the waiting job expects; a 10-minute one may not.
short=$(submit -t 1 -w gpu001 --wrap 'sleep 4')
long=$(submit -t 10 -w gpu002 --wrap 'sleep 4')
if wait_for 15 running "$short"; then ok "(d) the 1-minute job $short ran on reserved gpu001 (ends in time)"
else fail "(d) the 1-minute job ran on gpu001" "state $(job_state "$short"), reason $(job_reason "$short")"; fi
sleep 4
check "(d) the 10-minute job $long may not take reserved gpu002: $(job_state "$long") ($(job_reason "$long"))" \
  test "$(job_state "$long")" = PENDING

if wait_for 60 running "$w"; then
  started=$(job_epoch "$w" StartTime)
  ok "(a) $w started $((started - t0)) s after submission, when the blockers ended (their limits: 120 s)"
  check "(a) in one leaf group: $(job_field "$w" NodeList)" test "$(job_leaf_groups "$w" 4)" = 1
  check "(a) well before the cap and before the blockers' limits" test $((started - t0)) -lt 60
  check "(d) the 10-minute job did not start before it" \
    bash -c '[ "$(squeue -h -j '"$long"' -o %T)" = PENDING ] || [ "$(date -d "$(scontrol show job -o '"$long"' | sed -n "s/.* StartTime=\([^ ]*\).*/\1/p")" +%s)" -ge '"$started"' ]'
else
  fail "(a) $w started when the blockers ended" "state $(job_state "$w"), reason $(job_reason "$w")"
fi
clear_jobs

# --- (b) a wait that does not pay: a 5-minute job gains 50 s < ~120 s.
fillers=$(fill 60) || { done_testing; }
w=$(submit -N 4 -t 5 --wrap 'sleep 300')
if wait_for 10 running "$w"; then
  ok "(b) the 5-minute job $w started at once"
  check "(b) split over 2 leaf groups: $(job_field "$w" NodeList)" test "$(job_leaf_groups "$w" 4)" = 2
  check "(b) slurmctld logged why not: wait exceeds gain" \
    wait_for 5 grep -q "eval_nodes JobId=$w .*locality-wait=wait-exceeds-gain gain=50s" "$ctld_log"
else
  fail "(b) $w started at once" "state $(job_state "$w"), reason $(job_reason "$w")"
fi
clear_jobs

# --- (c) the cap: LocalityWaitMax=15, through a reconfigure.
check "(c) LocalityWaitMax=15 taken" \
  settings $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitMax=15'
fillers=$(fill 90) || { done_testing; }
w=$(submit -N 4 -t 20 --wrap 'sleep 300')
t0=$(job_epoch "$w" SubmitTime)
if wait_for 10 bash -c '[[ "$(squeue -h -j '"$w"' -o %R)" == "(Waiting for one leaf group"* ]]'; then
  ok "(c) $w waits: $(job_reason "$w")"
else
  fail "(c) $w waits" "state $(job_state "$w"), reason $(job_reason "$w")"
fi
starts=$(grep -c "Running as primary controller" "$ctld_log")
scontrol reconfigure > /dev/null
check "(c) slurmctld re-executed on reconfigure while the job waits" \
  wait_for 20 bash -c '[ "$(grep -c "Running as primary controller" "$1")" -gt "$2" ] && scontrol ping > /dev/null' _ "$ctld_log" "$starts"
# The restarted controller decided again from the job's eligible time: the same cap.
wait_for 10 bash -c 'sed -n "/Running as primary controller/h; //!H; \${x;p}" "$1" | grep -q "fabricfit: JobId=$2 waits: "' _ "$ctld_log" "$w"
untils=$(grep "fabricfit: JobId=$w waits: " "$ctld_log" | sed -n 's/.*at most until \([^ ]*\) .*/\1/p' | sort -u)
check "(c) after the re-exec it waits again, until the same time: $untils" \
  bash -c 'sed -n "/Running as primary controller/h; //!H; \${x;p}" "$1" | grep -q "fabricfit: JobId=$2 waits: " && [ "$(echo "$3" | wc -l)" = 1 ]' _ "$ctld_log" "$w" "$untils"
if wait_for 40 running "$w"; then
  started=$(job_epoch "$w" StartTime)
  ok "(c) $w started $((started - t0)) s after submission, split: $(job_field "$w" NodeList)"
  check "(c) not before the cap (15 s)" test $((started - t0)) -ge 14
  check "(c) nor long after it (bf_interval 2 s, sched_interval 5 s)" test $((started - t0)) -le 25
  check "(c) split: the cap, not the blockers (sleeping 90 s), ended the wait" test "$(job_leaf_groups "$w" 4)" = 2
else
  fail "(c) $w started at the cap" "state $(job_state "$w"), reason $(job_reason "$w")"
fi
clear_jobs

# --- (e) the split jobs running now count. Long jobs on gpu006-008, blockers (2-minute
# limit) on gpu002-004: gpu001 and gpu005 are free, 2 GPUs each. A 2-node job of 1 GPU per
# node can only be split 1+1; alone, its host's line rate fits the one uplink (200 Gb/s):
# rho 1, nothing to gain, it starts at once. Beside a running split job on the same
# uplinks (the two share gpu001 and gpu005: --mem=100 leaves room for both, whatever DefMemPerGPU), each gets 100 Gb/s: rho 0.5, s = 0.5 + 0.5/0.5 = 1.5, and a 10-minute job gains
# 600 x 0.5 = 300 s > ~120 s: it waits for group 1.
check "(e) LocalityWaitMax=600 taken" \
  settings $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitMax=600'
fill_e() {
  local j ids=()
  for n in 6 7 8; do ids+=("$(submit -t 30 -w gpu00$n --wrap 'sleep 600')"); done
  for n in 2 3 4; do ids+=("$(submit -t 2 -w gpu00$n --wrap 'sleep 100')"); done
  for j in "${ids[@]}"; do wait_for 20 running "$j" || { fail "filler $j did not start"; return 1; }; done
}
# waits_beside CASE WHAT: the 10-minute 2-node job that fits alone waits beside the split
# job running now (WHAT says which), and slurmctld logs its gain (300 s).
waits_beside() {
  local w
  w=$(sbatch --parsable -o /dev/null -N 2 --gpus-per-node=1 --mem=100 -t 10 --wrap 'sleep 300')
  if wait_for 15 bash -c '[[ "$(squeue -h -j '"$w"' -o %R)" == "(Waiting for one leaf group"* ]]'; then
    ok "($1) beside $2, the same job $w waits: $(job_reason "$w")"
  else
    fail "($1) beside $2, $w waits" "state $(job_state "$w"), reason $(job_reason "$w")" \
      "$(grep "JobId=$w\|counted" "$ctld_log" | tail -3)"
  fi
  check "($1) slurmctld logged the gain beside the running job (300 s)" \
    grep -q "fabricfit: JobId=$w waits: .*gain 300s > expected wait" "$ctld_log"
}
fill_e || { done_testing; }
alone=$(sbatch --parsable -o /dev/null -N 2 --gpus-per-node=1 --mem=100 -t 10 --wrap 'sleep 300')
if wait_for 10 running "$alone"; then
  ok "(e) alone, the split 10-minute job $alone starts at once: $(job_field "$alone" NodeList)"
  check "(e) slurmctld logged nothing to gain alone" \
    wait_for 5 grep -q "eval_nodes JobId=$alone .*locality-wait=no-gain gain=0s" "$ctld_log"
else
  fail "(e) the job alone started at once" "state $(job_state "$alone"), reason $(job_reason "$alone")"
fi
sleep 2
waits_beside e "the split job $alone"
scancel "$alone"
clear_jobs

# --- (f) LocalityWaitRouting reaches slurmctld (the model's static routes: unit tests,
# EngineApiWait; with one uplink per group here, static and ECMP price alike).
check "(f) LocalityWaitRouting=static taken" \
  settings $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitRouting=static'

# --- (g) the running split jobs count after a restart too: slurmctld re-executes (a
# reconfigure) while the split job of (e) runs; the new controller's engine counts nothing
# until the plugin takes the running jobs from Slurm's job list (at once for a new engine),
# so the same job as in (e) waits beside it again instead of starting split at once.
check "(g) LocalityWaitMax=600 taken" \
  settings $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitMax=600'
fill_e || { done_testing; }
alone=$(sbatch --parsable -o /dev/null -N 2 --gpus-per-node=1 --mem=100 -t 10 --wrap 'sleep 300')
check "(g) the split job $alone runs" wait_for 10 running "$alone"
starts=$(grep -c "Running as primary controller" "$ctld_log")
scontrol reconfigure > /dev/null
check "(g) slurmctld re-executed while $alone runs" \
  wait_for 20 bash -c '[ "$(grep -c "Running as primary controller" "$1")" -gt "$2" ] && scontrol ping > /dev/null' _ "$ctld_log" "$starts"
sleep 3
waits_beside g "the split job $alone, after the restart"
scancel "$alone"
clear_jobs

# --- (h) a split job Slurm placed itself counts too: -w makes fabricfit leave the job to
# Slurm (required-nodes), so no placement of fabricfit's registers it; the scan of the job
# list (every 10 s) does, and the same job as in (e) waits beside it.
fill_e || { done_testing; }
alone=$(sbatch --parsable -o /dev/null -N 2 -w gpu001,gpu005 --gpus-per-node=1 --mem=100 -t 10 --wrap 'sleep 300')
check "(h) the -w split job $alone runs" wait_for 10 running "$alone"
check "(h) Slurm placed it (fabricfit left it: required-nodes)" \
  wait_for 5 grep -q "eval_nodes JobId=$alone .*placement=slurm reason=required-nodes" "$ctld_log"
sleep 12
waits_beside h "the split job $alone Slurm placed"
scancel "$alone"
clear_jobs

# --- (l) two split jobs made eligible together (held, released by one scontrol command,
# one update each): the pass that starts the first split evaluates the second right after
# it (or the next pass, within the writer's quarter second), before the first's placement
# record is written. The first counts at once (ffg_record_count_started): the second waits
# beside it, as in (e), instead of starting split beside it unseen.
fill_e || { done_testing; }
pair=()
for k in 1 2; do
  pair+=("$(sbatch --parsable -H -o /dev/null -N 2 --gpus-per-node=1 --mem=100 -t 10 --wrap 'sleep 300')")
done
# one_runs_one_waits: prints "RUNNING WAITING" job ids once one runs split and the other waits
# (its reason is Resources between a main pass and the next backfill trial: polled).
one_runs_one_waits() {
  local a=${pair[0]} b=${pair[1]}
  running "$b" && ! running "$a" && { a=${pair[1]}; b=${pair[0]}; }
  running "$a" && [[ "$(job_reason "$b")" == "(Waiting for one leaf group"* ]] || return 1
  echo "$a $b"
}
scontrol release "${pair[0]},${pair[1]}"
if ids=$(wait_for 15 one_runs_one_waits); then
  read -r first second <<< "$ids"
  ok "(l) released together, $first runs split ($(job_field "$first" NodeList)) and $second waits beside it: $(job_reason "$second")"
  check "(l) slurmctld logged the gain beside the job of the same pass (300 s)" \
    grep -q "fabricfit: JobId=$second waits: .*gain 300s > expected wait" "$ctld_log"
else
  fail "(l) one of ${pair[*]} runs and the other waits" \
    "${pair[0]}: $(job_state "${pair[0]}") $(job_field "${pair[0]}" NodeList) $(job_reason "${pair[0]}")" \
    "${pair[1]}: $(job_state "${pair[1]}") $(job_field "${pair[1]}" NodeList) $(job_reason "${pair[1]}")" \
    "$(grep "JobId=${pair[0]}\|JobId=${pair[1]}" "$ctld_log" | tail -4)"
fi
scancel "${pair[@]}"
clear_jobs

# --- (i) LocalityWaitEstimate=history: the run time the wait weighs is predicted from the
# user's last two finished jobs. Two jobs that ran about 5 s of their 10-minute limits
# (about 1 %) teach slurmctld that root's jobs end early (it learns them at its next scan
# of the job list, within 10 s). The 20-minute job that waited in (a) by its limit (gain
# 200 s > ~120 s) is now predicted to run about 12 s: it gains about 2 s and starts at
# once, split. (The running jobs are predicted to end early too: the blockers, past their
# predicted second at once, at their limits; the 30-minute jobs on gpu007-008 after about
# 16 s. The gain decides here; the replay's unit tests take the ends' side.)
check "(i) LocalityWaitEstimate=history taken" \
  settings $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitMax=600\nLocalityWaitEstimate=history'
completed() { [ "$(job_state "$1")" = COMPLETED ]; }
taught=()
for n in 1 2; do
  j=$(submit -t 10 -w gpu00$n --wrap 'sleep 5')
  check "(i) the 10-minute job $j on gpu00$n completed after about 5 s" wait_for 30 completed "$j"
  taught+=("$j")
done
sleep 12
fillers=$(fill 60) || { done_testing; }
# The blockers are predicted to run about 1 s of their 2 minutes: evaluated within that
# second, the group would rightly be expected free at once. Past it, at their limits.
sleep 3
w=$(submit -N 4 -t 20 --wrap 'sleep 300')
if wait_for 10 running "$w"; then
  ok "(i) the 20-minute job $w started at once: $(job_field "$w" NodeList)"
  check "(i) split over 2 leaf groups" test "$(job_leaf_groups "$w" 4)" = 2
  # The record thread writes the line within a second of the start.
  wait_for 5 grep -q "eval_nodes JobId=$w .*locality-wait=.* run=" "$ctld_log"
  weighed=$(grep "eval_nodes JobId=$w .*locality-wait=" "$ctld_log" | sed -n 's/.* run=\([0-9]*\)s.*/\1/p' | tail -1)
  check "(i) slurmctld weighed a predicted run of ${weighed:-?} s, not its 1200 s limit" \
    test "${weighed:-1200}" -lt 60
else
  fail "(i) $w started at once" "state $(job_state "$w"), reason $(job_reason "$w")" \
    "$(grep "JobId=$w" "$ctld_log" | tail -3)"
fi
clear_jobs

# --- (k) what the predictor learnt survives slurmctld's re-exec: the record thread saves
# it in StateSaveLocation within 10 s of learning (Slurm runs no plugin fini at a re-exec),
# and the new slurmctld reads it back when it loads the plugin.
history=$lab/state/fabricfit.runtime-history
check "(k) $history holds root's two jobs of (i), ${taught[*]}" \
  wait_for 15 bash -c 'grep -q "^0 $2 " "$1" && grep -q "^0 $3 " "$1"' _ "$history" "${taught[0]}" "${taught[1]}"
reads=$(grep -c "fabricfit: run-time history: .* read from" "$ctld_log")
scontrol reconfigure > /dev/null
if wait_for 20 bash -c '[ "$(grep -c "fabricfit: run-time history: .* read from" "$1")" -gt "$2" ]' _ "$ctld_log" "$reads"; then
  ok "(k) the re-executed slurmctld read it: $(grep "fabricfit: run-time history: " "$ctld_log" | tail -1 | sed 's/.*fabricfit: //')"
  check "(k) both jobs" bash -c 'grep "fabricfit: run-time history: " "$1" | tail -1 | grep -q "history: 2 finished jobs read from $2"' _ "$ctld_log" "$history"
else
  fail "(k) the re-executed slurmctld read the run-time history" "$(grep "fabricfit: .*history" "$ctld_log" | tail -3)"
fi
wait_for 20 scontrol ping > /dev/null

# --- (j) a wait that ends is decided again at once: with backfill and the main
# scheduler's periodic pass 300 s apart, nothing else would look at the job until then.
# The plugin asks slurmctld to schedule when the wait's time is up (LocalityWaitMax=15);
# the job then starts split at the cap.
sed -i 's/^SchedulerParameters=batch_sched_delay=0,.*/SchedulerParameters=batch_sched_delay=0,bf_interval=300,sched_interval=300/' "$lab/slurm.conf"
check "(j) LocalityWaitMax=15 taken, with backfill and the periodic pass 300 s apart" \
  settings $'DefaultPattern=alltoall\nLocalityWaitCommShare=0.5\nLocalityWaitMax=15'
check "(j) slurmctld runs with bf_interval=300,sched_interval=300" \
  wait_for 20 bash -c 'scontrol show config | grep -q "^SchedulerParameters *= .*bf_interval=300,sched_interval=300"'
fillers=$(fill 90) || { done_testing; }
w=$(submit -N 4 -t 20 --wrap 'sleep 300')
t0=$(job_epoch "$w" SubmitTime)
check "(j) $w waits (slurmctld logged it)" wait_for 10 grep -q "fabricfit: JobId=$w waits: " "$ctld_log"
if wait_for 30 running "$w"; then
  started=$(job_epoch "$w" StartTime)
  ok "(j) $w started $((started - t0)) s after submission: $(job_field "$w" NodeList)"
  check "(j) at the cap (15 s), not at the next periodic pass" test $((started - t0)) -ge 14 -a $((started - t0)) -le 20
  check "(j) split: the cap ended the wait" test "$(job_leaf_groups "$w" 4)" = 2
else
  fail "(j) $w started at the cap" "state $(job_state "$w"), reason $(job_reason "$w")" \
    "$(grep "JobId=$w" "$ctld_log" | tail -3)"
fi
clear_jobs

done_testing
