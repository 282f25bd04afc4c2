#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Going back from topology/fabricfit to Slurm's topology/block, and forward again, on a
# running cluster, as docs/admin-guide.md ("From topology/block to fabricfit, and back")
# tells a site: 8 nodes in 2 leaf groups, 2 GPUs each, NVLink domains of 2 hosts (nvl0 =
# gpu[001-002] ... nvl3), switch/nvidia_imex.
#  (a) under fabricfit a 2-node job runs inside one domain; on 25.11+ also a --segment=2
#      job asking a channel per segment, whose segment list fabricfit keeps with the job;
#  (b) back to block: topology.conf from `fabricfit show --slurm-block-conf`,
#      TopologyPlugin=topology/block, slurmctld restarted on its saved state: the jobs run
#      on, every saved job reads back (block skips fabricfit's segment lists), `scontrol show
#      topology` is block's, and a new 2-node job is placed by block inside one domain;
#  (c) forward to fabricfit again: restarted, the jobs run on and a new 2-node job is
#      placed by fabricfit inside one domain.
# Only slurmctld restarts (a site restarts every slurmd too): eval_nodes and the job state
# are the controller's. On every release CI runs (the job data is 25.11's and later).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

need_fabricfit

lab_prepare ff-test-switch 8
printf '%s\n' 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,sched_interval=5' \
  'SwitchType=switch/nvidia_imex' > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 8 --leaves 2 --gpus 2 --nvl-domain-size 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"

submit() { sbatch --parsable -o /dev/null --gpus-per-node=2 "$@"; }
# in_one_domain JOBID: its nodes are one domain's two.
in_one_domain() { [[ "$(job_field "$1" NodeList)" =~ ^gpu\[00(1-002|3-004|5-006|7-008)\]$ ]]; }
# switch_to PLUGIN: slurm.conf names it, and slurmctld restarts on its saved state.
switch_to() {
  sed -i "s|^TopologyPlugin=.*|TopologyPlugin=topology/$1|" "$lab/slurm.conf"
  "$LAB_SH" restart-slurmctld --dir "$lab" > "$TEST_TMPDIR/restart-$1.log" 2>&1 &&
    wait_for 30 bash -c "scontrol ping | grep -q 'is UP'"
}
# no_bad_state: slurmctld read every saved job back.
no_bad_state() {
  ! grep -E "segment list does not read|unpacked .* more than expected|missing .* bytes|Incomplete job|Unable to recover job" "$ctld_log"
}
# after_switch TAG PLUGIN PATTERN: slurmctld restarted with topology/PLUGIN, `scontrol show
# topology` matching PATTERN (a grep regular expression), the running jobs on, and every
# saved job read back (the other plugin's job data skipped, not misread).
after_switch() {
  if switch_to "$2"; then
    ok "($1) slurmctld restarted with TopologyPlugin=topology/$2"
  else
    fail "($1) slurmctld restart with topology/$2" "$(tail -5 "$TEST_TMPDIR/restart-$2.log")"; done_testing
  fi
  check "($1) scontrol show topology is $2's" wait_for 10 bash -c 'scontrol show topology | grep -q "$1"' _ "$3"
  check "($1) job $a runs on, on its nodes" wait_for 10 job_running "$a"
  [ -z "$seg" ] || check "($1) the --segment job $seg runs on" job_running "$seg"
  check "($1) every saved job read back" no_bad_state
}
release=$(slurm_release)

# --- (a) under fabricfit.
check "all 8 nodes idle" wait_for 30 bash -c '[ "$(sinfo -h -t idle -o %D)" = 8 ]'
a=$(submit -N 2 -t 30 --wrap 'sleep 600')
check "(a) a 2-node job $a runs" wait_for 30 job_running "$a"
check "(a) in one domain: $(job_field "$a" NodeList)" in_one_domain "$a"
seg=
if [[ $release != 24.11.* ]]; then
  seg=$(submit -N 2 --segment=2 --network=unique-channel-per-segment -t 30 --wrap 'sleep 600')
  check "(a) a --segment=2 job $seg asking a channel per segment runs" wait_for 30 job_running "$seg"
  check "(a) fabricfit kept its segment list with the job" \
    wait_for 10 grep -q "fabricfit: JobId=$seg segments=" "$ctld_log"
fi

# --- (b) back to topology/block.
"$FABRICFIT" show --slurm-block-conf "$lab/fabric.snapshot" > "$lab/topology.conf"
check "show --slurm-block-conf wrote the 4 domains: $(grep -c '^BlockName=' "$lab/topology.conf") BlockName lines" \
  test "$(grep -c '^BlockName=nvl[0-3] Nodes=gpu\[00[1-8]-00[1-8]\]$' "$lab/topology.conf")" = 4
after_switch b block "^BlockName=nvl0 "
# One domain left wholly free, the last, and a lone free host in each other one (its second
# host filled), so that any two of those lone hosts, Slurm's first pick without blocks,
# could hold the job across domains.
fill=()
kept=
for pair in gpu007,gpu008 gpu005,gpu006 gpu003,gpu004 gpu001,gpu002; do
  one=${pair%,*} two=${pair#*,}
  if [ -z "$(squeue -h -w "$one,$two" -o %i)" ]; then
    if [ -z "$kept" ]; then kept=gpu[${one#gpu}-${two#gpu}]; else fill+=("$(submit -N 1 -t 30 -w "$two" --wrap 'sleep 600')"); fi
  fi
done
for j in "${fill[@]}"; do wait_for 20 job_running "$j" || fail "(b) filler $j did not start"; done
b=$(submit -N 2 -t 30 --wrap 'sleep 600')
if wait_for 30 job_running "$b"; then
  check "(b) a new 2-node job $b, placed by block, is in the one whole free domain $kept: $(job_field "$b" NodeList)" \
    test "$(job_field "$b" NodeList)" = "$kept"
  check "(b) and fabricfit did not place it" \
    bash -c '! grep -q "fabricfit: eval_nodes JobId=$1 " "$2"' _ "$b" "$ctld_log"
else
  fail "(b) a new 2-node job $b ran under block" "state $(job_state "$b"), reason $(squeue -h -j "$b" -o %R)"
fi
scancel "$b" "${fill[@]}" 2> /dev/null
wait_for 30 bash -c '[ -z "$(squeue -h -t CG)" ]'

# --- (c) forward to fabricfit again.
after_switch c fabricfit "^Placement=fabricfit "
c=$(submit -N 2 -t 30 --wrap 'sleep 600')
if wait_for 30 job_running "$c"; then
  check "(c) a new 2-node job $c is inside one domain: $(job_field "$c" NodeList)" in_one_domain "$c"
  check "(c) placed by fabricfit" wait_for 5 grep -q "fabricfit: eval_nodes JobId=$c .*placement=fabricfit" "$ctld_log"
else
  fail "(c) a new 2-node job $c ran under fabricfit" "state $(job_state "$c"), reason $(squeue -h -j "$c" -o %R)"
fi

done_testing
