#!/usr/bin/env bash
# The placement record in Slurm's job history: a lab with slurmdbd on MariaDB (lab.sh up
# --accounting slurmdbd), real jobs, and sacct after they end. The record slurmctld holds in
# AdminComment reaches accounting with the job's end record; once slurmctld has purged the
# job (MinJobAge), `fabricfit explain` reads it from sacct, where (no
# AccountingStorageTRES=gres/gpu in the lab) the job's GPUs are not: its figures are then its
# record's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_fabricfit
need_tool "$(command -v mariadbd || echo /usr/sbin/mariadbd)" "package mariadb-server-core; contrib/setup-slurm.sh installs it"
need_tool ss "package iproute2; contrib/setup-slurm.sh installs it"

make_tmpdir ff-test-accounting
tmp=$TEST_TMPDIR
lab=$tmp/lab
port=$(pick_ports 24)
# MinJobAge: slurmctld forgets a finished job after a few seconds (at its next purge pass),
# so only accounting still knows it.
printf 'SchedulerParameters=batch_sched_delay=0\nMinJobAge=2\n' > "$tmp/extra.conf"
if ! lab_up "$lab" --nodes 16 --leaves 2 --accounting slurmdbd --slurm-conf-extra "$tmp/extra.conf" \
  --ctld-port "$port" --slurmd-port $((port + 1)) --dbd-port $((port + 20)); then
  fail "lab up with slurmdbd"
  done_testing
fi
conf=$lab/fabricfit.conf
dbd_port=$((port + 20))
db_port=$((port + 21))

# Loopback only: slurmdbd and MariaDB listen on 127.0.0.1 and nowhere else.
listeners=$(ss -Hltn 2>/dev/null | awk -v a="$dbd_port" -v b="$db_port" '{ n = split($4, p, ":"); if (p[n] == a || p[n] == b) print $4 }' | sort -u | tr '\n' ' ')
check "slurmdbd and MariaDB listen on 127.0.0.1 only ($listeners)" \
  bash -c '[ -n "$1" ] && [ "$(tr " " "\n" <<<"$1" | grep -c .)" = 2 ] && ! tr " " "\n" <<<"$1" | grep . | grep -vq "^127\.0\.0\.1:"' _ "$listeners"
check "slurmctld registered with slurmdbd" \
  bash -c 'sacctmgr -n -P show cluster format=cluster,controlport | grep -q "^fabricfit|$1$"' _ "$port"

admin_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p'; }
# sacct's AdminComment of the job's allocation (-X), "" until slurmdbd has its end record.
sacct_record() { sacct -n -X -P -j "$1" -o AdminComment 2>/dev/null | head -n 1; }
sacct_has_end() { [[ "$(sacct -n -X -P -j "$1" -o State,AdminComment 2>/dev/null)" == COMPLETED\|*"fabricfit placement="* ]]; }
export -f admin_comment sacct_record sacct_has_end

a=$(sbatch --parsable -N 2 --gpus-per-node=8 -t 5 -o /dev/null --wrap 'sleep 2')
b=$(sbatch --parsable -N 1 -t 5 -o /dev/null --wrap true)
# C: 9 nodes, more than a leaf group of 8 holds: fabricfit places it over both.
c=$(sbatch --parsable -N 9 --gpus-per-node=8 -t 5 -o /dev/null --wrap 'sleep 2')
wait_for 10 bash -c '[[ "$(admin_comment "$1")" == *"fabricfit placement="* ]]' _ "$a"
squeue_a=$(squeue -h -t all -j "$a" -O admin_comment:300 2>&1 | sed 's/ *$//')
state_a=$(wait_job "$a" 60)
state_b=$(wait_job "$b" 60)
wait_for 10 bash -c '[[ "$(admin_comment "$1")" == *"fabricfit placement="* ]]' _ "$a"
ctld_a=$(admin_comment "$a")
ctld_b=$(admin_comment "$b")
state_c=$(wait_job "$c" 60)
wait_for 10 bash -c '[[ "$(admin_comment "$1")" == *"fabricfit placement="* ]]' _ "$c"
ctld_c=$(admin_comment "$c")
check "squeue -O admin_comment (docs/admin-guide.md, section 6) shows the record slurmctld holds: $squeue_a" \
  bash -c '[[ "$1" == "fabricfit placement="* ]] && [ "$1" = "$2" ]' _ "$squeue_a" "$ctld_a"
wait_for 30 sacct_has_end "$a"
wait_for 30 sacct_has_end "$b"
wait_for 30 sacct_has_end "$c"
rec_a=$(sacct_record "$a")
rec_b=$(sacct_record "$b")
rec_c=$(sacct_record "$c")
check "sacct shows the GPU job's ($state_a) placement record: $rec_a" \
  bash -c '[[ "$1" == "fabricfit placement=fabricfit leaf_groups=1 groups="*" cross_spine_gb=0 uplink_ms=0 unusable_gpus="*" pattern=ring" ]]' _ "$rec_a"
check "the same record slurmctld held" test "$rec_a" = "$ctld_a"
check "and a fallback's reason for a CPU job ($state_b): $rec_b" \
  bash -c '[ "$1" = "fabricfit placement=slurm reason=no-gpus" ] && [ "$1" = "$2" ]' _ "$rec_b" "$ctld_b"
nodes_a=$(sacct -n -X -P -j "$a" -o NodeList | head -n 1)
check "accounting has the nodes the record describes ($nodes_a, one leaf group)" \
  bash -c 'n=$(scontrol show hostnames "$1" | wc -l); [ "$n" = 2 ]' _ "$nodes_a"

# Once slurmctld has purged it, explain reads the job from accounting.
wait_for 150 bash -c '! scontrol show job "$1" > /dev/null 2>&1' _ "$a"
check "slurmctld no longer holds the finished job (MinJobAge)" \
  bash -c '! scontrol show job "$1" > /dev/null 2>&1' _ "$a"
"$FABRICFIT" explain "$a" --conf "$conf" > "$tmp/a.txt" 2>&1
diag "$(cat "$tmp/a.txt")"
check "explain of the purged job says it read accounting and prints the record" \
  bash -c 'grep -q "^job '"$a"': COMPLETED" "$1" && grep -q "^from Slurm.s accounting (sacct)" "$1" &&
           grep -qF "placement record: $2" "$1" && grep -q "^placed on" "$1"' _ "$tmp/a.txt" "$rec_a"
"$FABRICFIT" explain "$a" --conf "$conf" --json > "$tmp/a.json" 2> "$tmp/a.err"
check "explain --json of it: read from accounting, the record's words and its nodes" \
  python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
assert e["read_from"] == "accounting", e
r = e["record"]
assert r["placement"] == "fabricfit" and r["leaf_groups"] == "1" and r["pattern"] == "ring", r
assert len(e["placement"]["leaf_groups"]) == 1 and e["placement"]["nodes"], e["placement"]
' "$tmp/a.json"

# The lab's slurm.conf has no AccountingStorageTRES=gres/gpu: sacct keeps no GPU counts.
check "the lab's accounting has no gres/gpu for the GPU job (no AccountingStorageTRES=gres/gpu)" \
  bash -c '! sacct -n -X -P -j "$1" -o AllocTRES | grep -q "gres/gpu"' _ "$a"
check "explain of it says accounting has no GPU counts, names the setting, and never prints (0 GPUs)" \
  bash -c 'grep -q "^accounting has no GPU counts: .*AccountingStorageTRES=gres/gpu" "$1" &&
           grep -q "(GPUs unknown: accounting has no GPU counts)" "$1" && ! grep -q "(0 GPUs)" "$1"' _ "$tmp/a.txt"

# C, split over both leaf groups by fabricfit, purged: its figures are its record's.
check "the 9-node job ($state_c) was placed by fabricfit over 2 leaf groups: $rec_c" \
  bash -c '[[ "$1" == "fabricfit placement=fabricfit leaf_groups=2 "*" cross_spine_gb="* ]] && [ "$1" = "$2" ]' _ "$rec_c" "$ctld_c"
wait_for 150 bash -c '! scontrol show job "$1" > /dev/null 2>&1' _ "$c"
"$FABRICFIT" explain "$c" --conf "$conf" > "$tmp/c.txt" 2>&1
diag "$(cat "$tmp/c.txt")"
spine_c=$(sed -n 's/.* cross_spine_gb=\([^ ]*\).*/\1/p' <<<"$rec_c")
check "explain of the purged split job: 2 leaf groups, the record's cross-spine ($spine_c), no (0 GPUs), no 'no traffic leaves'" \
  bash -c 'grep -q "^from Slurm.s accounting (sacct)" "$1" && grep -q "^accounting has no GPU counts: " "$1" &&
           grep -q "leaf groups  2 " "$1" && grep -qF "cross-spine  $2 GB per GB of message (placement record)" "$1" &&
           grep -q "uplinks      .* ms per GB of message on the busiest (placement record)" "$1" &&
           ! grep -q "(0 GPUs)" "$1" && ! grep -q "no traffic leaves a leaf group" "$1"' _ "$tmp/c.txt" "$spine_c"
"$FABRICFIT" explain "$c" --conf "$conf" --json > "$tmp/c.json" 2> "$tmp/c.err"
check "explain --json of it: gpus unknown (null), the record's figures, the accounting note" \
  python3 -c '
import json, sys
e = json.load(open(sys.argv[1])); rec = sys.argv[2]
words = dict(w.split("=", 1) for w in rec.split()[1:])
p = e["placement"]
assert e["read_from"] == "accounting" and "AccountingStorageTRES=gres/gpu" in e["accounting_note"], e
assert p["gpus"] is None and p["figures_from"] == "placement record", p
assert len(p["leaf_groups"]) == 2, p
assert p["cross_spine_gb_per_gb"] == float(words["cross_spine_gb"]) > 0, (p, words)
assert p["uplink_ms_per_gb"] == float(words["uplink_ms"]) > 0, (p, words)
assert p["gpus_made_unusable"] == float(words["unusable_gpus"]) and p["unusable_when"] == "placement", (p, words)
' "$tmp/c.json" "$rec_c"

# D: a running job fabricfit placed. Its unusable GPUs now, on today's free GPUs, and at
# placement, as its record says, labelled. (test_explain_live.sh's lab runs topology/tree:
# no records there.)
d=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap 'sleep 120')
wait_for 30 bash -c '[ "$(squeue -h -j "$1" -o %T)" = RUNNING ] &&
                     scontrol show job "$1" | grep -q "AdminComment=fabricfit placement=fabricfit .*unusable_gpus="' _ "$d"
"$FABRICFIT" explain "$d" --conf "$conf" > "$tmp/d.txt" 2>&1
diag "$(cat "$tmp/d.txt")"
rec_unusable=$(sed -n 's/^placement record: .* unusable_gpus=\([^ ]*\).*/\1/p' "$tmp/d.txt")
check "explain of a running job fabricfit placed: unusable now, and at placement as its record says ($rec_unusable)" \
  bash -c '[ -n "$2" ] &&
           grep -q "^  unusable     [-+][0-9.]* GPUs the workload mix can no longer use: now, on today.s free GPUs" "$1" &&
           grep -qF -- "               $2 at placement (its placement record)" "$1"' _ "$tmp/d.txt" "$rec_unusable"
"$FABRICFIT" explain "$d" --conf "$conf" --json > "$tmp/d.json" 2>&1
check "explain --json of it: gpus_made_unusable now, gpus_made_unusable_at_placement the record's" \
  python3 -c '
import json, sys
e = json.load(open(sys.argv[1])); p = e["placement"]
assert p["unusable_when"] == "now" and isinstance(p["gpus_made_unusable"], float), p
assert p["gpus_made_unusable_at_placement"] == float(e["record"]["unusable_gpus"]), (p, e["record"])
' "$tmp/d.json"

scancel "$d"

check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
check "slurmdbd is still running" pid_running "$(cat "$lab/run/slurmdbd.pid")"
# PID:START of each: a PID given to another process since is not a survivor.
procs=$(lab_recorded_procs "$lab")
lab_down "$lab" > "$tmp/down.log" 2>&1
# shellcheck disable=SC2086 # one argument per process
alive=$(procs_alive $procs)
check "down stopped MariaDB and slurmdbd with the rest${alive:+ (alive: $alive)}" test -z "$alive"
[ -z "$alive" ] || sed 's/^/# /' "$tmp/down.log"
done_testing
