#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A split job placed beside running traffic, in a real slurmctld (docs/placement.md,
# Selection, "Beside running traffic"): 12 nodes in 3 leaf groups of 4, 2 uplink cables
# per group (2:1), 2 GPUs per node, LocalityWaitRouting=static (a flow takes the cable of
# its destination host). Only gpu001, gpu005 and gpu010 are free, one per group, so a
# 2-node ring must split, over one of three pairs.
#  (a) with the hosts gpu003 and gpu008 busy with one-host jobs, nothing loads an uplink:
#      the job takes the cheapest pair, as it would blind;
#  (b) with a 2-node ring running on gpu003 + gpu008 instead (the same hosts busy), the
#      same job takes another pair, one that `fabricfit slowdown` prices faster beside the
#      running ring, and slurmctld logs the share of its uplinks it keeps (uplink_share=);
#  (c) after slurmctld re-executes (a reconfigure) with the ring still running, the same
#      job is steered the same way.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

ff=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
[ -x "$ff" ] || ff=$(command -v fabricfit) || skip_all "no fabricfit CLI (set FABRICFIT_BIN)"
make_tmpdir ff-test-steer || { fail "mktemp"; done_testing; }
lab=$TEST_TMPDIR/lab
port=$(pick_ports 8)
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,bf_resolution=1,sched_interval=5\n' \
  > "$TEST_TMPDIR/extra.conf"
if ! lab_up "$lab" --nodes 12 --leaves 3 --spines 2 --uplinks 2 --gpus 2 --ctld-port "$port" \
     --slurmd-port $((port + 1)) --slurm-conf-extra "$TEST_TMPDIR/extra.conf"; then
  fail "lab up"
  done_testing
fi
ctld_log=$lab/log/slurmctld.log

base_conf=$(cat "$lab/fabricfit.conf")
printf '%s\n%s\n' "$base_conf" $'DefaultPattern=ring\nLocalityWaitRouting=static\nLocalityWaitMax=0' \
  > "$lab/fabricfit.conf"
scontrol reconfigure > /dev/null
check "LocalityWaitRouting=static and DefaultPattern=ring taken (scontrol show topology)" \
  wait_for 30 bash -c 'scontrol show topology 2>/dev/null | grep -q "LocalityWaitRouting=static" &&
                       scontrol show topology 2>/dev/null | grep -q "DefaultPattern=ring"'
check "all 12 nodes idle" wait_for 30 bash -c '[ "$(sinfo -h -t idle -o %D)" = 12 ]'

submit() { sbatch --parsable -o /dev/null --gpus-per-node=2 "$@"; }
running() { [ "$(job_state "$1")" = RUNNING ]; }
nodes_of() { scontrol show hostnames "$(job_field "$1" NodeList)" | paste -sd, -; }
clear_jobs() {
  scancel -u root 2> /dev/null
  wait_for 30 bash -c '[ -z "$(squeue -h)" ] && [ "$(sinfo -h -t idle -o %D)" = 12 ]'
}
# busy NODE...: a long one-host job on each.
busy() {
  local n j
  for n in "$@"; do
    j=$(submit -t 30 -w "$n" --wrap 'sleep 600')
    wait_for 20 running "$j" || { fail "filler on $n did not start"; return 1; }
  done
}
# The 2-node ring whose hosts the test looks at: it starts at once (no locality wait).
place_ring() {
  local j
  j=$(submit -N 2 -t 10 --wrap 'sleep 300')
  wait_for 15 running "$j" || { fail "the 2-node ring $j started" "state $(job_state "$j")"; return 1; }
  echo "$j"
}
# slowdown NODES: the model's slowdown of a ring on NODES beside the ring on gpu003+gpu008.
mkdir -p "$TEST_TMPDIR/running"
printf '{"job": "1", "nodes": "gpu[003,008]", "pattern": "ring", "comm_share": 0.5}' \
  > "$TEST_TMPDIR/running/1.json"
slowdown() {
  "$ff" slowdown "$lab/fabric.snapshot" --nodes "$1" --pattern ring --gpus-per-node 2 --comm-share 0.5 \
    --running "$TEST_TMPDIR/running" --routing static --demand peak -q
}
fewer() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b - 1e-9) }'; }

# --- (a) the same hosts busy, nothing split running: the blind choice.
others=(gpu002 gpu004 gpu006 gpu007 gpu009 gpu011 gpu012)
busy "${others[@]}" gpu003 gpu008 || done_testing
blind_job=$(place_ring) || done_testing
blind=$(nodes_of "$blind_job")
check "(a) the ring $blind_job split over two of the free hosts: $blind" \
  bash -c '[[ "$1" =~ ^gpu0(01|05|10),gpu0(01|05|10)$ ]]' _ "$blind"
check "(a) no running traffic: no uplink_share in the placement note" \
  wait_for 5 bash -c 'grep "eval_nodes JobId=$1 " "$2" | grep -q "placement=fabricfit" &&
           ! grep "eval_nodes JobId=$1 " "$2" | grep -q uplink_share' _ "$blind_job" "$ctld_log"
clear_jobs

# --- (b) a ring running on gpu003 + gpu008: the same job is steered off its cables.
busy "${others[@]}" || done_testing
ring=$(submit -N 2 -t 30 -w gpu003,gpu008 --wrap 'sleep 600')
check "the running ring $ring is on gpu003 + gpu008" wait_for 15 running "$ring"
# A -w job is Slurm's placement: the plugin counts it at its next scan of the job list
# (every 10 s).
sleep 12
steered_job=$(place_ring) || done_testing
steered=$(nodes_of "$steered_job")
s_blind=$(slowdown "$blind")
s_steered=$(slowdown "$steered")
check "(b) the ring $steered_job took $steered, not the blind choice $blind" test "$steered" != "$blind"
check "(b) the model prices it faster beside the running ring: $s_steered < $s_blind" fewer "$s_steered" "$s_blind"
check "(b) slurmctld logged the share it keeps: uplink_share=1" \
  wait_for 5 grep -q "eval_nodes JobId=$steered_job .*placement=fabricfit .*uplink_share=1\b" "$ctld_log"
scancel "$steered_job"
wait_for 20 bash -c '[ -z "$(squeue -h -j '"$steered_job"' 2>/dev/null)" ]'

# --- (c) the same after slurmctld re-executes with the ring still running.
starts=$(grep -c "Running as primary controller" "$ctld_log")
scontrol reconfigure > /dev/null
check "(c) slurmctld re-executed while $ring runs" \
  wait_for 30 bash -c '[ "$(grep -c "Running as primary controller" "$1")" -gt "$2" ] && scontrol ping > /dev/null' \
  _ "$ctld_log" "$starts"
check "(c) the new controller counts the running ring from Slurm's job list" \
  wait_for 30 grep -q "locality wait: 1 of the 1 jobs running on several nodes counted" "$ctld_log"
check "(c) gpu001, gpu005 and gpu010 free again" \
  wait_for 30 bash -c '[ "$(sinfo -h -t idle -o %N)" = "gpu[001,005,010]" ]'
sleep 3
again=$(place_ring) || done_testing
check "(c) the ring $again is steered as before: $(nodes_of "$again")" test "$(nodes_of "$again")" = "$steered"
clear_jobs

done_testing
