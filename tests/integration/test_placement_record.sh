#!/usr/bin/env bash
# The placement record per job (AdminComment) and the fabric in `scontrol show topology`,
# on a real slurmctld with real jobs: the record lands for the evaluation that allocated
# the job (one controller line per allocation, none for tests and backfill trials), an
# admin's own AdminComment survives, a fallback records its reason, `fabricfit explain`
# prints the record of a finished job; scontrol show topology shows leaf groups with
# their hosts and free GPUs, only those of the nodes named.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_fabricfit

make_tmpdir ff-test-record
tmp=$TEST_TMPDIR
lab=$tmp/lab
port=$(pick_ports 20)
# Time limits give backfill something to plan, so its trial evaluations run too.
printf 'SchedulerParameters=batch_sched_delay=0,bf_interval=1\n' > "$tmp/extra.conf"
lab_start --nodes 16 --leaves 2 --slurm-conf-extra "$tmp/extra.conf"
conf=$lab/fabricfit.conf
# scontrol ends the line with a space.
admin_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p'; }
has_record() { [[ "$(admin_comment "$1")" == *"fabricfit placement="* ]]; }

# A: an admin's own AdminComment (only an admin can set it: scontrol, on the held job), then
# fabricfit's record after it.
a=$(sbatch --parsable -H -N 2 --gpus-per-node=8 -t 5 -o /dev/null --wrap 'sleep 1')
scontrol update jobid="$a" AdminComment="ops ticket 42"
scontrol release "$a"
state=$(wait_job "$a" 60)
wait_for 10 has_record "$a"
rec_a=$(admin_comment "$a")
check "a finished GPU job ($state) keeps the admin's text and carries the record: $rec_a" \
  bash -c '[[ "$1" == "ops ticket 42; fabricfit placement=fabricfit leaf_groups=1 groups="*" cross_spine_gb=0 uplink_ms=0 unusable_gpus="*" pattern=ring" ]]' _ "$rec_a"
check "scontrol's JSON (what REST clients read) shows it too" \
  bash -c '[[ "$(scontrol show job "$1" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"jobs\"][0][\"admin_comment\"])")" == *"fabricfit placement=fabricfit "* ]]' _ "$a"
nodes_a=$(job_field "$a" NodeList)
check "the controller logged exactly one decision for it, naming the nodes it got ($nodes_a)" \
  bash -c '[ "$(grep -c "fabricfit: eval_nodes JobId=$1 " "$2")" = 1 ] &&
           grep "fabricfit: eval_nodes JobId=$1 candidates=" "$2" | grep -qF " chosen=$3 rc=0 placement=fabricfit "' \
  _ "$a" "$ctld_log" "$nodes_a"

# B fills 12 of 16 nodes; C (8 nodes) must wait: the main scheduler and backfill evaluate it
# again and again (tests, will-run trials) but only its allocation is recorded and logged.
b=$(sbatch --parsable -N 12 --gpus-per-node=8 -t 1 -o /dev/null --wrap 'sleep 8')
wait_for 30 bash -c "[ \"\$(squeue -h -j $b -o %T)\" = RUNNING ]"
wait_for 10 has_record "$b"
c=$(sbatch --parsable -N 8 --gpus-per-node=8 -t 2 --comm-pattern=alltoall -o /dev/null --wrap 'sleep 1')
sleep 3
export -f job_state job_field admin_comment
check "a waiting job has no record and no decision line yet (state $(job_state "$c"))" \
  bash -c '[ "$(job_state "$1")" = PENDING ] && [ -z "$(admin_comment "$1")" ] && ! grep -q "fabricfit: eval_nodes JobId=$1 " "$2"' \
  _ "$c" "$ctld_log"
state=$(wait_job "$c" 90)
wait_for 10 has_record "$c"
check "once it ran ($state), one decision line and its record with its pattern" \
  bash -c '[ "$(grep -c "fabricfit: eval_nodes JobId=$1 " "$2")" = 1 ] && [[ "$3" == "fabricfit placement="*" pattern=alltoall" ]]' \
  _ "$c" "$ctld_log" "$(admin_comment "$c")"

# Fallbacks record their reason.
d=$(sbatch --parsable -N 1 -t 1 -o /dev/null --wrap true)
e=$(sbatch --parsable -N 2 -w 'gpu[001,016]' --gpus-per-node=8 -t 1 -o /dev/null --wrap true)
wait_job "$d" 60 > /dev/null
wait_job "$e" 60 > /dev/null
wait_for 10 has_record "$d"
wait_for 10 has_record "$e"
check "a CPU job records fabricfit's reason: $(admin_comment "$d")" \
  test "$(admin_comment "$d")" = "fabricfit placement=slurm reason=no-gpus"
check "a job that names its nodes records its reason: $(admin_comment "$e")" \
  bash -c '[[ "$1" == "fabricfit placement=slurm reason=required-nodes"* ]]' _ "$(admin_comment "$e")"

# explain of a finished job prints the record.
"$FABRICFIT" explain "$a" --conf "$conf" > "$tmp/a.txt" 2>&1
check "explain of the finished job prints its placement record" \
  bash -c 'grep -q "^job '"$a"': COMPLETED" "$1" && grep -q "^placement record: fabricfit placement=fabricfit leaf_groups=1 " "$1" &&
           grep -q "^placed on" "$1" && ! grep -q "^fabricfit.s choice" "$1"' _ "$tmp/a.txt"
diag "$(cat "$tmp/a.txt")"
"$FABRICFIT" explain "$a" --conf "$conf" --json > "$tmp/a.json"
check "explain --json of it has the record's words" \
  python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
r = e["record"]
assert r["placement"] == "fabricfit" and r["leaf_groups"] == "1" and r["pattern"] == "ring", r
assert e["pattern_from"] == "placement record", e
assert "fabricfit_choice" not in e and "waits_for" not in e, e
' "$tmp/a.json"

# DebugFlags=Placement: every evaluation at debug level, in the record's units (GB crossing
# a spine per GB of message, ms per GB on the busiest uplink), with no internal cost.
cp "$conf" "$tmp/fabricfit.conf.orig"
echo "DebugFlags=Placement" >> "$conf"
scontrol reconfigure > /dev/null
wait_for 30 bash -c 'scontrol ping | grep -q "is UP"'
scontrol setdebug debug
g=$(sbatch --parsable -N 2 --gpus-per-node=8 -t 1 -o /dev/null --wrap true)
wait_job "$g" 60 > /dev/null
wait_for 10 grep -q "fabricfit: Placement: eval_nodes JobId=$g .*rc=0 placement=fabricfit " "$ctld_log"
dbg=$(grep "fabricfit: Placement: eval_nodes JobId=$g .*rc=0 placement=fabricfit " "$ctld_log" | tail -n 1)
check "the debug line of an evaluation reads in admin units: ${dbg#*placement=}" \
  bash -c '[[ "$1" == *" placement=fabricfit leaf_groups=1 cross_spine_gb=0 uplink_ms=0"* ]] &&
           [[ "$1" != *"cost="* && "$1" != *"frag_delta="* && "$1" != *"spine_bytes="* ]]' _ "$dbg"
scontrol setdebug info
cp "$tmp/fabricfit.conf.orig" "$conf"
scontrol reconfigure > /dev/null
wait_for 30 bash -c 'scontrol ping | grep -q "is UP"'

# scontrol show topology: the fabric as the controller sees it, while F holds 3 nodes of leaf 1.
f=$(sbatch --parsable -N 3 -w 'gpu[001-003]' --gpus-per-node=8 -t 1 -o /dev/null --wrap 'sleep 30')
wait_for 30 bash -c "[ \"\$(squeue -h -j $f -o %T)\" = RUNNING ]"
scontrol show topology > "$tmp/topo.txt" 2>&1
check "scontrol show topology: the fabric with its origin and snapshot age" \
  grep -qE '^Fabric=[^ ]+ SnapshotAge=[0-9]+s .*Hosts=16 LeafGroups=2 ' "$tmp/topo.txt"
check "each leaf group with its hosts as a hostlist, free GPUs, uplinks and oversubscription" \
  bash -c 'grep -qE "^LeafGroup=[^ ]+ Hosts=gpu\[001-008\] FreeGpus=40/64 Uplinks=[0-9]+ UplinkGbps=[0-9]+ Oversubscription=[0-9.]+" "$1" &&
           grep -qE "^LeafGroup=[^ ]+ Hosts=gpu\[009-016\] FreeGpus=64/64 " "$1"' _ "$tmp/topo.txt"
diag "$(cat "$tmp/topo.txt")"
# A node list: positional in 24.11; from 25.05 the first word names a topology, nodes go as node=.
case $(slurm_release) in
  24.*) scontrol show topology gpu012 > "$tmp/topo-one.txt" 2>&1 ;;
  *) scontrol show topology node=gpu012 > "$tmp/topo-one.txt" 2>&1 ;;
esac
check "with a node list, only that node's leaf group" \
  bash -c '[ "$(grep -c "^LeafGroup=" "$1")" = 1 ] && grep -q "^LeafGroup=[^ ]* Hosts=gpu\[009-016\] " "$1" && grep -q "^Fabric=" "$1" &&
           grep -q "^Placement=fabricfit " "$1"' _ "$tmp/topo-one.txt"
scancel "$f"

# report --html: fragmentation over time from the job records slurmctld still holds.
"$FABRICFIT" report "$lab/fabric.snapshot" --html --live -o "$tmp/report.html"
check "report --html draws fragmentation over time, one point per job start and end" \
  python3 -c '
import re, sys
page = open(sys.argv[1]).read()
assert "<svg id=\"frag-history\"" in page, "no history"
points = re.findall(r"<circle class=\"frag-point\" data-time=\"(\d+)\" data-free=\"(\d+)\"", page)
assert len(points) >= 6, points
assert all(0 <= int(f) <= 128 for _, f in points), points
assert min(int(f) for _, f in points) <= 32, points  # B running: 12 of 16 nodes busy
' "$tmp/report.html"

check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
lab_down "$lab" > /dev/null 2>&1
done_testing
