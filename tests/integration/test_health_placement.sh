#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/fabricfit places with the fabric health file (issue 29 item 3; docs/placement.md,
# "Faults"). The file is made as a site makes it: `fabricfit health --sweep` against the
# lab's ibsim, faults injected through ibsim's console (LinkDownedCounter on a port: the
# link flaps). 12 nodes in 3 leaf groups of 4 (gpu001-004, gpu005-008, gpu009-012).
#  (d) no health file yet: all healthy, logged once;
#  (a) gpu002's HCA link flaps: a 2-node job that would have taken gpu002+gpu003 (one leaf
#      group) is placed off it (health=kept_off), a 1-GPU job still lands on gpu002, and a
#      2-node job that only fits across gpu002 stays pending (health=waits);
#  (b) an uplink of the leaf a split job took flaps: the same job is placed off that leaf
#      group;
#  (c) a garbled health file keeps the last good one (one log line naming it);
#  (e) after `scontrol reconfigure` and a slurmctld restart the view is still applied;
#  (d) the file removed: all healthy again, logged once, the pending job starts.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

need_lab_sweep

lab_prepare ff-test-health 12
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,bf_resolution=1,sched_interval=5\n' \
  > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 12 --leaves 3 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"
health=$lab/fabric.health
net=$lab/fabric.net
# The sweeps below are minutes apart at most; HealthMaxAge is tested by the unit tests.
printf '%s\nHealthMaxAge=3600\n' "$(cat "$lab/fabricfit.conf")" > "$lab/fabricfit.conf.new"
mv "$lab/fabricfit.conf.new" "$lab/fabricfit.conf"
scontrol reconfigure > /dev/null
wait_for 30 bash -c "scontrol ping | grep -q 'is UP'"

sweeps=0
sweep() {
  sweeps=$((sweeps + 1))
  lab_sim "$FABRICFIT" health --sweep --quiet --conf "$lab/fabricfit.conf" --snapshot "$lab/fabric.snapshot" \
    > "$simdir/sweep$sweeps.out" 2>&1 || fail "sweep $sweeps" "$(tail -3 "$simdir/sweep$sweeps.out")"
}
submit() { sbatch --parsable -o /dev/null -t 30 "$@"; }
leaf_of() { echo $(( (10#${1#gpu} - 1) / 4 + 1 )); }
# ring2: a 2-node job (8 GPUs each) that stays running; its id.
ring2() { submit -N 2 --gpus-per-node=8 --wrap 'sleep 300'; }

lab_sim_attach
check "the lab's ibsim console and net are there" bash -c "[ -p '$lab/ibsim/console' ] && [ -n '$attach' ]"

# --- (d) no health file: all healthy, said once.
sleep 3
# This slurmctld's lines only (the lab starts it once before the test's own start).
n=$(awk -v m="fabricfit: no health file at $health: placing as if every link is healthy" \
  '/topology\/fabricfit loaded/ { n = 0 } index($0, m) { n++ } END { print n + 0 }' "$ctld_log")
check "(d) no health file: logged once in 3 s of polling (found $n)" test "$n" = 1

# --- baseline sweep: every link healthy.
sweep
check "the sweep wrote the health file beside the snapshot" test -s "$health"
check "slurmctld places with it (every link healthy)" \
  wait_for 10 grep -q "fabricfit: placing with health file $health: every link healthy" "$ctld_log"

# --- (a) gpu002's HCA link flaps.
lab_sim_cmd "PerformanceSet \"$(lab_guid gpu002)\"[1] PortCounters.LinkDownedCounter=2"
sweep
check "(a) the sweep sees gpu002 flapping" \
  bash -c "'$FABRICFIT' health --conf '$lab/fabricfit.conf' --snapshot '$lab/fabric.snapshot' | grep -q '^  gpu002  flapping'"
check "(a) slurmctld took it: one host failing" \
  wait_for 10 grep -q "fabricfit: placing with health file $health: hosts_failing=1 hosts_degraded=0 leaf_groups_failing=0" "$ctld_log"
lab_fill_all_but gpu002 gpu003 gpu005 || done_testing
a=$(ring2)
check "(a) the 2-node job $a runs" wait_for 20 job_running "$a"
check "(a) it is placed off gpu002 (gpu003+gpu005, not gpu002+gpu003 in one group): $(job_nodes "$a")" \
  test "$(job_nodes "$a")" = gpu003,gpu005
check "(a) its decision says health=kept_off" wait_for 5 placed_with "$a" "placement=fabricfit .*health=kept_off"
b=$(submit -N 1 --gpus-per-node=1 --wrap 'sleep 300')
check "(a) the 1-GPU job $b runs" wait_for 20 job_running "$b"
# The allocation line is written by the housekeeper once the allocation is settled, just
# after the job starts: wait for it.
check "(a) ... on gpu002, placed by fabricfit" \
  wait_for 5 bash -c '[ "$(squeue -h -j "$1" -o %N)" = gpu002 ] && grep "eval_nodes JobId=$1 " "$2" | grep -q "placement=fabricfit"' _ "$b" "$ctld_log"
scancel "$a" "$b"
wait_for 30 bash -c "[ -z \"\$(squeue -h -j $a,$b 2>/dev/null)\" ]"
lab_fill gpu003 || done_testing
c=$(ring2)
check "(a) a 2-node job that only fits across gpu002 (gpu002+gpu005) waits: logged health=waits" \
  wait_for 20 grep -q "fabricfit: JobId=$c waits: only placements across a failing link fit now (health=waits)" "$ctld_log"
sleep 5
check "(a) ... and is still pending ($(job_state "$c"), $(job_field "$c" Reason))" test "$(job_state "$c")" = PENDING
scancel "$c"
lab_clear_jobs 12

# --- (b) an uplink of the leaf a split job took flaps.
lab_fill_all_but gpu001 gpu005 gpu009 || done_testing
d=$(ring2)
wait_for 20 job_running "$d" || fail "the blind split job $d did not start"
blind=$(job_nodes "$d")
bad_leaf=$(leaf_of "${blind%%,*}")
diag "the split job took $blind: the uplinks of leaf group $bad_leaf go bad"
scancel "$d"
wait_for 30 bash -c "[ -z \"\$(squeue -h -j $d 2>/dev/null)\" ]"
leaf=$(printf 'ib-leaf-%03d' "$bad_leaf")
lab_sim_cmd "PerformanceSet \"$(lab_guid "$leaf")\"[5] PortCounters.LinkDownedCounter=2"
sweep
check "(b) slurmctld took it: one leaf group failing" \
  wait_for 10 grep -q "fabricfit: placing with health file $health: hosts_failing=1 hosts_degraded=0 leaf_groups_failing=1" "$ctld_log"
# avoids NODES GROUP: none of NODES (a,b,...) is in leaf group GROUP.
avoids() {
  local n
  for n in ${1//,/ }; do [ "$(leaf_of "$n")" != "$2" ] || return 1; done
}
# steered_off DESC: the same split job now avoids leaf group $bad_leaf.
steered_off() {
  local j got
  j=$(ring2)
  wait_for 20 job_running "$j" || { fail "$1: the split job $j did not start ($(job_state "$j"))"; return; }
  got=$(job_nodes "$j")
  check "$1: the split job $j avoids leaf group $bad_leaf: $got (blind: $blind)" avoids "$got" "$bad_leaf"
  check "$1: health=kept_off" wait_for 5 placed_with "$j" "placement=fabricfit .*health=kept_off"
  scancel "$j"
  wait_for 30 bash -c "[ -z \"\$(squeue -h -j $j 2>/dev/null)\" ]"
}
steered_off "(b)"

# --- (c) a garbled health file keeps the last good one.
cp "$health" "$TEST_TMPDIR/good.health"
cp "$health" "$TEST_TMPDIR/garbled.health"
printf 'XX' | dd of="$TEST_TMPDIR/garbled.health" bs=1 seek=40 conv=notrunc 2> /dev/null
mv "$TEST_TMPDIR/garbled.health" "$health"
check "(c) a garbled health file: one log line naming it and why" \
  wait_for 10 grep -q "fabricfit: health file $health not read: $health: corrupt body.*; keeping the last good one" "$ctld_log"
steered_off "(c) with the garbled file in place"
n=$(grep -c "fabricfit: health file $health not read" "$ctld_log")
check "(c) logged once (found $n)" test "$n" = 1
cp "$TEST_TMPDIR/good.health" "$health.tmp" && mv "$health.tmp" "$health"

# --- (e) reconfigure and restart: the view is applied by the new controller.
starts=$(grep -c "Running as primary controller" "$ctld_log")
scontrol reconfigure > /dev/null
check "(e) slurmctld re-executed" \
  wait_for 30 bash -c '[ "$(grep -c "Running as primary controller" "$1")" -gt "$2" ] && scontrol ping > /dev/null' \
  _ "$ctld_log" "$starts"
steered_off "(e) after scontrol reconfigure"
"$LAB_SH" restart-slurmctld --dir "$lab" > "$lab.restart.log" 2>&1
check "(e) slurmctld restarted" bash -c "scontrol ping | grep -q 'is UP'"
steered_off "(e) after a slurmctld restart"

# --- (d) the file removed: every link healthy again, said once.
before=$(grep -c "fabricfit: no health file at $health" "$ctld_log")
rm -f "$health"
check "(d) the file removed: logged" \
  wait_for 10 bash -c '[ "$(grep -c "fabricfit: no health file at $1: placing as if every link is healthy" "$2")" -gt "$3" ]' _ "$health" "$ctld_log" "$before"
j=$(ring2)
wait_for 20 job_running "$j" || fail "the split job $j did not start ($(job_state "$j"))"
check "(d) the split job is placed as if all were healthy (no health= word)" \
  wait_for 5 bash -c 'grep "eval_nodes JobId=$1 " "$2" | grep "placement=fabricfit" | grep -qv "health="' _ "$j" "$ctld_log"
sleep 3
n=$(( $(grep -c "fabricfit: no health file at $health" "$ctld_log") - before ))
check "(d) logged once for the removal (found $n)" test "$n" = 1
lab_clear_jobs 12
done_testing
