#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A degraded NVLink counts only for the jobs it paces (docs/placement.md, "NVLink faults";
# crossed_parts in health_avoidance.hpp), in the lab's real slurmctld with NVLink domains:
# 8 nodes in 2 leaf groups (gpu001-004, gpu005-008), 8 GPUs each, domains of 2 consecutive
# hosts (nvl0 = gpu[001-002], nvl1 = gpu[003-004], nvl2, nvl3). gpu003's NVLink report says
# its bandwidth is degraded (the fixture tests/fixtures/nvlink-report/health/gpu002), swept
# into the health file as a site's timer does. gpu001, gpu005-007 are busy: free are
# gpu002-004 (two domains under leaf group 1) and gpu008.
#  (a) a 3-node ring job across domains is paced by the InfiniBand between them, not by
#      gpu003's NVLink: it takes gpu[002-004], one leaf group, with no health note, and
#      fabricfit explain lists nothing unhealthy crossed;
#  (b) the same job with tensor parallel groups (--comm-pattern=tp=8,dp=3: each tray's
#      GPUs talk through NVLink) is kept off gpu003: gpu[002,004,008] (health=kept_off),
#      and explain names gpu003's NVLink as avoided;
#  (c) a 2-node ring job one domain holds is paced by that domain's NVLink: the one domain
#      wholly free is nvl1, so it takes gpu[003-004] and says so (health=took_degraded),
#      where the wider ring job of (a) had no note.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

need_lab_sweep

lab_prepare ff-test-nvpace 8
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,bf_resolution=1,sched_interval=5\n' \
  > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 8 --leaves 2 --nvl-domain-size 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"
health=$lab/fabric.health
conf=$lab/fabricfit.conf
fx=$TOP_SRCDIR/tests/fixtures/nvlink-report
reports=$TEST_TMPDIR/nvlink
mkdir -p "$reports"
for n in gpu001 gpu002 gpu003 gpu004 gpu005 gpu006 gpu007 gpu008; do cp "$fx/by-host/gpu001.txt" "$reports/$n"; done
cp "$fx/health/gpu002" "$reports/gpu003"
printf '%s\nHealthMaxAge=3600\nNvlinkReport=%s\n' "$(cat "$conf")" "$reports" > "$conf.new"
mv "$conf.new" "$conf"
scontrol reconfigure > /dev/null
wait_for 30 bash -c "scontrol ping | grep -q 'is UP'"

check "the lab's ibsim console is there" test -p "$lab/ibsim/console"
lab_sim_attach
lab_sim "$FABRICFIT" health --sweep --quiet --conf "$conf" --snapshot "$lab/fabric.snapshot" > "$simdir/sweep.out" 2>&1
rc=$?
check "the sweep exits 0 ($rc$(tail -2 "$simdir/sweep.out" | sed 's/^/: /'))" test "$rc" = 0
check "the health file has gpu003's NVLink degraded, nothing else" \
  test "$("$FABRICFIT" health --json --conf "$conf" --snapshot "$lab/fabric.snapshot" | jq -c '[.nvlink[] | [.host, .state]]')" = '[["gpu003","degraded"]]'
check "slurmctld took it: one NVLink degraded" \
  wait_for 10 grep -q "fabricfit: placing with health file $health: hosts_failing=0 hosts_degraded=0 leaf_groups_failing=0 leaf_groups_degraded=0 nvlink_failing=0 nvlink_degraded=1" "$ctld_log"

submit() { sbatch --parsable -o /dev/null -t 30 --gpus-per-node=8 "$@"; }
explain() { "$FABRICFIT" explain "$1" --conf "$conf" 2>&1; }
lab_fill gpu001 gpu005 gpu006 gpu007 || done_testing

# --- (a) ring across domains: placed as if gpu003 were healthy.
a=$(submit -N 3 --comm-pattern=ring --wrap 'sleep 300')
check "(a) the 3-node ring job $a runs" wait_for 20 job_running "$a"
check "(a) on gpu002-004, one leaf group, over gpu003's degraded NVLink: $(job_nodes "$a")" \
  test "$(job_nodes "$a")" = gpu002,gpu003,gpu004
wait_for 5 placed_with "$a" "placement=fabricfit"
check "(a) its decision has no health note (nothing it crosses paces it and is unhealthy)" \
  bash -c '! grep "fabricfit: eval_nodes JobId=$1 " "$2" | grep -q "health="' _ "$a" "$ctld_log"
explain "$a" > "$TEST_TMPDIR/explain-a.txt"
check "(a) fabricfit explain: it crosses nothing unhealthy" \
  grep -q "^  health       crosses no link that is not healthy" "$TEST_TMPDIR/explain-a.txt"
scancel "$a"
wait_for 20 bash -c '[ "$(sinfo -h -t idle -o %D)" = 4 ]'

# --- (b) tensor parallel inside each tray: kept off gpu003.
b=$(submit -N 3 --comm-pattern=tp=8,dp=3 --wrap 'sleep 300')
check "(b) the 3-node tp=8 job $b runs" wait_for 20 job_running "$b"
check "(b) kept off gpu003: $(job_nodes "$b")" test "$(job_nodes "$b")" = gpu002,gpu004,gpu008
check "(b) its decision says health=kept_off" wait_for 5 placed_with "$b" "placement=fabricfit .*health=kept_off"
explain "$b" > "$TEST_TMPDIR/explain-b.txt"
check "(b) fabricfit explain names gpu003's degraded NVLink as avoided" \
  bash -c 'grep -A1 "^  avoided      1 link" "$1" | grep -q "^ *gpu003 NVLink  degraded: "' _ "$TEST_TMPDIR/explain-b.txt"
scancel "$b"
wait_for 20 bash -c '[ "$(sinfo -h -t idle -o %D)" = 4 ]'

# --- (c) inside one domain NVLink paces a ring job too.
c=$(submit -N 2 --comm-pattern=ring --wrap 'sleep 300')
check "(c) the 2-node ring job $c runs" wait_for 20 job_running "$c"
check "(c) in nvl1, the one domain wholly free: $(job_nodes "$c")" test "$(job_nodes "$c")" = gpu003,gpu004
check "(c) its decision says health=took_degraded" wait_for 5 placed_with "$c" "placement=fabricfit .*health=took_degraded"

done_testing
