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
#  `fabricfit explain` of each counts the same running jobs and chooses as slurmctld did;
#  (c) after slurmctld re-executes (a reconfigure) with the ring still running, the same
#      job is steered the same way.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

ff=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
[ -x "$ff" ] || ff=$(command -v fabricfit) || need_tool "${ff:-fabricfit}" "the build's command: install it or set FABRICFIT_BIN"
make_tmpdir ff-test-steer || { fail "mktemp"; done_testing; }
lab=$TEST_TMPDIR/lab
port=$(pick_ports 16)  # slurmctld, and one slurmd port per node
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,bf_resolution=1,sched_interval=5\n' \
  > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 12 --leaves 3 --spines 2 --uplinks 2 --gpus 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"

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
  scancel -u "$(id -un)" 2> /dev/null
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
printf '{"job": "1", "nodes": "gpu[003,008]", "gpus_per_node": 2, "pattern": "ring", "comm_share": 0.5}' \
  > "$TEST_TMPDIR/running/1.json"
slowdown() {
  "$ff" slowdown "$lab/fabric.snapshot" --nodes "$1" --pattern ring --gpus-per-node 2 --comm-share 0.5 \
    --running "$TEST_TMPDIR/running" --routing static --demand peak -q
}
fewer() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b - 1e-9) }'; }
# explain_is JOB WHAT: `fabricfit explain JOB --json` asserts WHAT (Python on e, the JSON).
explain_is() {
  "$ff" explain "$1" --conf "$lab/fabricfit.conf" --json > "$TEST_TMPDIR/explain.json" 2>&1 &&
    python3 -c 'import json, sys; e = json.load(open(sys.argv[1])); assert '"$2"', e' "$TEST_TMPDIR/explain.json"
}

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
check "(a) fabricfit explain: no split job running, its choice what slurmctld chose" \
  explain_is "$blind_job" 'e["running_split_jobs"] == 0 and e["fabricfit_choice"]["nodes"] == "gpu[001,005]" and "uplink_share" not in e["fabricfit_choice"]'
clear_jobs

# --- (b) a ring running on gpu003 + gpu008: the same job is steered off its cables. The
# ring is placed by fabricfit (the only free hosts), so its placement record counts it;
# then gpu001, gpu005 and gpu010 free up.
busy "${others[@]}" || done_testing
holders=()
for n in gpu001 gpu005 gpu010; do holders+=("$(submit -t 30 -w "$n" --wrap 'sleep 600')"); done
for j in "${holders[@]}"; do wait_for 20 running "$j" || { fail "holder $j did not start"; done_testing; }; done
ring=$(submit -N 2 -t 30 --wrap 'sleep 600')
wait_for 15 running "$ring" || { fail "the running ring $ring started" "state $(job_state "$ring")"; done_testing; }
check "the running ring $ring is on gpu003 + gpu008" test "$(nodes_of "$ring")" = gpu003,gpu008
check "fabricfit placed it (its record counts it among the split jobs)" \
  wait_for 5 grep -q "eval_nodes JobId=$ring .*placement=fabricfit" "$ctld_log"
scancel "${holders[@]}"
# Gone from squeue too: a node whose job still completes is idle to sinfo, not to Slurm's
# selection.
check "gpu001, gpu005 and gpu010 free" \
  wait_for 30 bash -c '[ -z "$(squeue -h -j "$1")" ] && [ "$(sinfo -h -t idle -o %N)" = "gpu[001,005,010]" ]' \
  _ "$(IFS=,; echo "${holders[*]}")"

steered_job=$(place_ring) || done_testing
steered=$(nodes_of "$steered_job")
s_blind=$(slowdown "$blind")
s_steered=$(slowdown "$steered")
check "(b) the ring $steered_job took $steered, not the blind choice $blind" test "$steered" != "$blind"
check "(b) the model prices it faster beside the running ring: $s_steered < $s_blind" fewer "$s_steered" "$s_blind"
check "(b) slurmctld logged the share it keeps: uplink_share=1" \
  wait_for 5 grep -q "eval_nodes JobId=$steered_job .*placement=fabricfit .*uplink_share=1\b" "$ctld_log"
check "(b) fabricfit explain counts the running ring and chooses what slurmctld did, keeping all it asks" \
  explain_is "$steered_job" 'e["running_split_jobs"] == 1 and e["fabricfit_choice"]["nodes"] == "gpu[005,010]" and e["fabricfit_choice"]["uplink_share"] == 1 and e["placement"]["uplink_share"] == 1'
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
again=$(place_ring) || done_testing
check "(c) the ring $again is steered as before: $(nodes_of "$again")" test "$(nodes_of "$again")" = "$steered"
clear_jobs

done_testing
