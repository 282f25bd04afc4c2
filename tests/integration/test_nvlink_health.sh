#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# NVLink health in placement (docs/placement.md, "NVLink faults"; docs/admin-guide.md): each
# node's own `nvidia-smi -q`, as contrib/nvlink-report.sh leaves it in the directory that
# fabricfit.conf's NvlinkReport names, is judged by `fabricfit health --sweep` (run against
# the lab's ibsim, as a site's timer runs it) into the health file, and the lab's real
# slurmctld places by it. The lab has no GPUs: the reports are the fixtures in
# tests/fixtures/nvlink-report (a GB300 tray's output; health/: a tray with a route
# unhealthy, one with bandwidth degraded), one per lab node. 8 nodes in 2 leaf groups
# (gpu001-004, gpu005-008), 8 GPUs each.
#  (a) gpu002's NVLink fails, gpu006's is degraded: the sweep lists both; slurmctld counts
#      them; a 2-node job that would take gpu002+gpu003 is placed off gpu002
#      (health=kept_off); a 1-GPU job still lands on gpu002, a 2-GPU one-host job that only
#      fits there waits (its GPUs would talk over the failing NVLink);
#  (b) a 2-node job that would take gpu006+gpu007 is kept off gpu006 while another
#      placement fits;
#  (c) a garbled report: the sweep exits 1 naming the file and line, the NVLink states
#      stand; a report that is gone keeps its host's state;
#  (d) HealthDrain=yes drains gpu002 (Reason names the GPU and the fault), not gpu006; its
#      NVLink heals while its HCA link flaps: still drained, the Reason rewritten to the HCA
#      link's; resumed once the flap leaves its window;
#  (e) HealthMaxAge: after a reconfigure to 15 s and no sweep, slurmctld logs the file stale
#      and the 2-GPU job it held off the failing tray runs there.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

need_lab_sweep

lab_prepare ff-test-nvhealth 8
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,bf_resolution=1,sched_interval=5\n' \
  > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 8 --leaves 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"
health=$lab/fabric.health
conf=$lab/fabricfit.conf
fx=$TOP_SRCDIR/tests/fixtures/nvlink-report
reports=$TEST_TMPDIR/nvlink
mkdir -p "$reports"
# report NODE FIXTURE: NODE's report is FIXTURE, written as the collector writes it (a
# temporary file renamed over the last one).
report() { cp "$2" "$reports/.$1.tmp" && mv -f "$reports/.$1.tmp" "$reports/$1"; }
for n in gpu001 gpu002 gpu003 gpu004 gpu005 gpu006 gpu007 gpu008; do report "$n" "$fx/by-host/gpu001.txt"; done
printf '%s\nHealthMaxAge=3600\nNvlinkReport=%s\n' "$(cat "$conf")" "$reports" > "$conf.new"
mv "$conf.new" "$conf"
scontrol reconfigure > /dev/null
wait_for 30 bash -c "scontrol ping | grep -q 'is UP'"

# sweep: one sweep as the site's timer runs it; its output in $out, its exit status in $rc.
sweeps=0
sweep() {
  sweeps=$((sweeps + 1))
  out=$simdir/sweep$sweeps.out
  lab_sim "$FABRICFIT" health --sweep --quiet --conf "$conf" --snapshot "$lab/fabric.snapshot" > "$out" 2>&1
  rc=$?
}
submit() { sbatch --parsable -o /dev/null -t 30 "$@"; }
ring2() { submit -N 2 --gpus-per-node=8 --wrap 'sleep 300'; }
nvlink_lines() { "$FABRICFIT" health --conf "$conf" --snapshot "$lab/fabric.snapshot" | sed -n '/^Hosts whose NVLink/,$p'; }

check "the lab's ibsim console is there" test -p "$lab/ibsim/console"
lab_sim_attach

# --- baseline: every report healthy.
sweep
check "a sweep with every node's report healthy exits 0 ($rc)" test "$rc" = 0
check "fabricfit health says every host's NVLink is healthy" \
  bash -c "'$FABRICFIT' health --conf '$conf' --snapshot '$lab/fabric.snapshot' | grep -qx 'NVLink: every host healthy (reports in $reports).'"
check "slurmctld places with it (all healthy)" \
  wait_for 10 grep -q "fabricfit: placing with health file $health: every link healthy" "$ctld_log"

# --- (a) gpu002's NVLink fails (a route unhealthy), gpu006's bandwidth is degraded.
report gpu002 "$fx/health/gpu003"
report gpu006 "$fx/health/gpu002"
sweep
check "(a) the sweep exits 0 ($rc)" test "$rc" = 0
nv=$(nvlink_lines)
check "(a) fabricfit health lists gpu002 failing with the GPU, the fault and its file:line" \
  grep -qxF "    GPU 00000018:01:00.0: Route Unhealthy True ($reports/gpu002:103)" <<< "$nv"
check "(a) ... and gpu006 degraded" bash -c '[[ $1 == *"  gpu002  failing  since "*"  gpu006  degraded  since "* ]]' _ "$nv"
check "(a) --json lists the two hosts" \
  test "$("$FABRICFIT" health --json --conf "$conf" --snapshot "$lab/fabric.snapshot" | jq -c '[.nvlink[] | [.host, .state]]')" = '[["gpu002","failing"],["gpu006","degraded"]]'
check "(a) slurmctld took it: one NVLink failing, one degraded" \
  wait_for 10 grep -q "fabricfit: placing with health file $health: hosts_failing=0 hosts_degraded=0 leaf_groups_failing=0 leaf_groups_degraded=0 nvlink_failing=1 nvlink_degraded=1" "$ctld_log"
lab_fill_all_but gpu002 gpu003 gpu005 || done_testing
a=$(ring2)
check "(a) the 2-node job $a runs" wait_for 20 job_running "$a"
check "(a) it is placed off gpu002 (gpu003+gpu005, not gpu002+gpu003 in one group): $(job_nodes "$a")" \
  test "$(job_nodes "$a")" = gpu003,gpu005
check "(a) its decision says health=kept_off" wait_for 5 placed_with "$a" "placement=fabricfit .*health=kept_off"
b=$(submit -N 1 --gpus-per-node=1 --wrap 'sleep 300')
check "(a) a 1-GPU job $b runs" wait_for 20 job_running "$b"
check "(a) ... on gpu002 (a 1-GPU job crosses no link, nor the host's NVLink)" \
  wait_for 5 bash -c '[ "$(squeue -h -j "$1" -o %N)" = gpu002 ]' _ "$b"
"$FABRICFIT" explain "$b" --conf "$conf" > "$TEST_TMPDIR/explain-b.txt" 2>&1
check "(a) fabricfit explain says the 1-GPU job crosses nothing unhealthy (not gpu002's NVLink)" \
  grep -q "^  health       crosses no link that is not healthy" "$TEST_TMPDIR/explain-b.txt"
c=$(submit -N 1 --gpus-per-node=2 --wrap 'sleep 300')
check "(a) a 2-GPU job that only fits on gpu002 waits: its GPUs would talk over the failing NVLink" \
  wait_for 20 grep -q "fabricfit: JobId=$c waits: only placements across a failing link fit now (health=waits)" "$ctld_log"
check "(a) ... and is still pending ($(job_state "$c"))" test "$(job_state "$c")" = PENDING
lab_clear_jobs 8

# --- (b) degraded: kept off while another placement fits.
lab_fill_all_but gpu006 gpu007 gpu001 || done_testing
c=$(ring2)
check "(b) the 2-node job $c runs" wait_for 20 job_running "$c"
check "(b) it is kept off gpu006 (gpu001+gpu007): $(job_nodes "$c")" test "$(job_nodes "$c")" = gpu001,gpu007
check "(b) its decision says health=kept_off" wait_for 5 placed_with "$c" "placement=fabricfit .*health=kept_off"
lab_clear_jobs 8

# --- (c) a garbled report: the sweep fails naming it, the last NVLink states stand.
sed 's/^\(        ClusterUUID *: \).*/\19c6f5af3-53bf/' "$fx/by-host/gpu001.txt" > "$TEST_TMPDIR/garbled"
report gpu004 "$TEST_TMPDIR/garbled"
sweep
check "(c) a garbled report: the sweep exits 1 ($rc)" test "$rc" = 1
check "(c) ... naming the file, the line and why" \
  grep -qF "fabricfit: NVLink report not read, the last NVLink states kept: $reports/gpu004:34: GPU 00000008:01:00.0: ClusterUUID '9c6f5af3-53bf' is not a UUID" "$out"
check "(c) ... and the health file still has gpu002 failing and gpu006 degraded" \
  test "$("$FABRICFIT" health --json --conf "$conf" --snapshot "$lab/fabric.snapshot" | jq -c '[.nvlink[] | [.host, .state]]')" = '[["gpu002","failing"],["gpu006","degraded"]]'
report gpu004 "$fx/by-host/gpu001.txt"
# A report that is gone (the node is down, its collector stopped) is no news: gpu006 stays
# degraded, and the sweep says so.
mv "$reports/gpu006" "$TEST_TMPDIR/gpu006.report"
sweep
check "(c) gpu006's report gone: the sweep exits 0 ($rc) and names it" \
  bash -c '[ "$1" = 0 ] && grep -qF "fabricfit: NVLink: 1 host(s) not healthy before with no current report, kept so: gpu006" "$2"' _ "$rc" "$out"
check "(c) ... and gpu006 is still degraded" \
  test "$("$FABRICFIT" health --json --conf "$conf" --snapshot "$lab/fabric.snapshot" | jq -c '[.nvlink[] | [.host, .state]]')" = '[["gpu002","failing"],["gpu006","degraded"]]'
mv "$TEST_TMPDIR/gpu006.report" "$reports/gpu006"

# --- (d) HealthDrain=yes: a failing NVLink drains, a degraded one does not; healed, resumed.
printf 'HealthDrain=yes\nHealthDrainMax=2\n' >> "$conf"
sweep
check "(d) HealthDrain=yes: the sweep exits 0 ($rc)" test "$rc" = 0
check "(d) it drained gpu002 and says why" \
  grep -qF "fabricfit: drained gpu002: fabricfit: NVLink failing (GPU 00000018:01:00.0: Route Unhealthy True)" "$out"
check "(d) Slurm has only gpu002 drained, with that Reason ($(drained_nodes): $(node_reason gpu002))" \
  bash -c "[ '$(drained_nodes)' = gpu002 ] && [ \"\$(sinfo -h -n gpu002 -o '%E')\" = 'fabricfit: NVLink failing (GPU 00000018:01:00.0: Route Unhealthy True)' ]"
# Its NVLink heals while its HCA link flaps (a LinkDownedCounter step on the ibsim port):
# still drained, and the Reason follows the cause that holds it now.
printf 'HealthFlapWindow=30\nHealthLeaveSweeps=1\n' >> "$conf"
lab_sim_cmd "PerformanceSet \"$(lab_guid gpu002)\"[1] PortCounters.LinkDownedCounter=2"
report gpu002 "$fx/by-host/gpu001.txt"
sweep
t_flap=$SECONDS
check "(d) NVLink healed, HCA link flapping: gpu002 stays drained, and the sweep says its cause now" \
  grep -qF "fabricfit: gpu002 stays drained, its cause now: fabricfit: HCA link flapping (LinkDownedCounter " "$out"
check "(d) ... Slurm's Reason is the HCA link's ($(drained_nodes): $(node_reason gpu002))" \
  bash -c '[ "$1" = gpu002 ] && [[ "$2" == "fabricfit: HCA link flapping (LinkDownedCounter "* ]]' _ \
  "$(drained_nodes)" "$(node_reason gpu002)"
sweep
check "(d) the next sweep leaves that Reason alone" bash -c '! grep -q "gpu002 stays drained" "$1"' _ "$out"
left=$((t_flap + 32 - SECONDS))
[ "$left" -gt 0 ] && sleep "$left"
sweep
check "(d) the flap out of its window: gpu002 is resumed" grep -qF "fabricfit: resumed gpu002: its HCA link no longer flaps" "$out"
check "(d) nothing is drained now ($(drained_nodes))" test -z "$(drained_nodes)"
check "(d) fabricfit health lists only gpu006" \
  test "$("$FABRICFIT" health --json --conf "$conf" --snapshot "$lab/fabric.snapshot" | jq -c '[.nvlink[].host]')" = '["gpu006"]'

# --- (e) HealthMaxAge: a file no sweep has refreshed for longer is ignored (the sweeps
# stopped: its states are no longer news), and what it held back runs.
report gpu002 "$fx/health/gpu003"
lab_sim "$FABRICFIT" health --sweep --quiet --no-drain --conf "$conf" --snapshot "$lab/fabric.snapshot" \
  > "$simdir/sweep-e.out" 2>&1
check "(e) gpu002 failing again (swept without draining)" \
  test "$("$FABRICFIT" health --json --conf "$conf" --snapshot "$lab/fabric.snapshot" | jq -c '[.nvlink[] | [.host, .state]]')" = '[["gpu002","failing"],["gpu006","degraded"]]'
lab_fill_all_but gpu002 || done_testing
e=$(submit -N 1 --gpus-per-node=2 --wrap 'sleep 300')
check "(e) a 2-GPU job that only fits on gpu002 waits" \
  wait_for 20 grep -q "fabricfit: JobId=$e waits: only placements across a failing link fit now (health=waits)" "$ctld_log"
# Another pending job (its node is busy): each evaluation of it shows the held job's reason
# again, which Slurm resets to Resources whenever it cannot start the job.
g=$(submit -w gpu001 --gpus-per-node=8 --wrap 'sleep 300')
check "(e) the held job's reason says why ($(squeue -h -j "$e" -o %R))" \
  wait_for 20 bash -c '[ "$(squeue -h -j "$1" -o %R)" = "(Waiting for hosts off failing links or NVLink (fabricfit health=waits))" ]' _ "$e"
scancel "$g"
sed -i 's/^HealthMaxAge=.*/HealthMaxAge=15/' "$conf"
starts=$(grep -c "Running as primary controller" "$ctld_log")
scontrol reconfigure > /dev/null
wait_for 30 bash -c '[ "$(grep -c "Running as primary controller" "$1")" -gt "$2" ] && scontrol ping > /dev/null' \
  _ "$ctld_log" "$starts"
check "(e) HealthMaxAge=15 after reconfigure: the file is logged stale once no sweep refreshed it" \
  wait_for 40 grep -q "fabricfit: health file $health is stale (last sweep [0-9]*s ago, HealthMaxAge=15): ignored" "$ctld_log"
check "(e) ... and the job it held back runs" wait_for 30 job_running "$e"
check "(e) ... on gpu002 ($(job_nodes "$e"))" test "$(job_nodes "$e")" = gpu002
check "slurmctld is still running" bash -c "scontrol ping | grep -q 'is UP'"
lab_clear_jobs 8
done_testing
