#!/usr/bin/env bash
# The placement record in Slurm's job history: a lab with slurmdbd on MariaDB (lab.sh up
# --accounting slurmdbd), real jobs, and sacct after they end. The record slurmctld holds in
# AdminComment reaches accounting with the job's end record; once slurmctld has purged the
# job (MinJobAge), `fabricfit explain` reads it from sacct.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

FABRICFIT=${FABRICFIT_BIN:-$(command -v fabricfit)}
need_tool "${FABRICFIT:-fabricfit}" "the build's command: install it or set FABRICFIT_BIN"
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
state_a=$(wait_job "$a" 60)
state_b=$(wait_job "$b" 60)
wait_for 10 bash -c '[[ "$(admin_comment "$1")" == *"fabricfit placement="* ]]' _ "$a"
ctld_a=$(admin_comment "$a")
ctld_b=$(admin_comment "$b")
wait_for 30 sacct_has_end "$a"
wait_for 30 sacct_has_end "$b"
rec_a=$(sacct_record "$a")
rec_b=$(sacct_record "$b")
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
