#!/usr/bin/env bash
# A fabric fault end to end: six of leaf-001's eight spine uplinks are pulled in the
# simulator (ibsim Unlink), the fabric is rediscovered as the discovery timer's service does
# (`fabricfit discover` through libibnetdisc), slurmctld picks up the new snapshot, and the
# next job that needs two leaf groups avoids the degraded one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"

make_tmpdir ff-fault
lab=$TEST_TMPDIR/lab
port=$(pick_ports 24)
if ! lab_up "$lab" --nodes 24 --leaves 3 --ctld-port "$port" --slurmd-port $((port + 1)); then
  fail "lab up"
  done_testing
fi
ctld_log=$lab/log/slurmctld.log
need_fabricfit
leaf_of() { echo $(( (10#${1#gpu} - 1) / 8 + 1 )); }
leaves_of_job() {
  local n
  for n in $(scontrol show hostnames "$(job_field "$1" NodeList)"); do leaf_of "$n"; done | sort -u | paste -sd, -
}
leaf1=$(awk '/^Switch/ && /"ib-leaf-001"/ { gsub(/"/, "", $3); print $3; exit }' "$lab/fabric.net")
check "leaf-001 found in the net file ($leaf1)" test -n "$leaf1"

for p in 11 12 13 14 15 16; do printf 'Unlink "%s"[%d]\n' "$leaf1" "$p" > "$lab/ibsim/console"; done
sleep 1
loads=$(grep -c 'fabricfit: snapshot .* loaded' "$ctld_log")
(cd "$lab/ibsim" && LD_PRELOAD=$FABRICFIT_UMAD2SIM timeout 120 "$FABRICFIT" discover -q -o "$lab/fabric.snapshot") \
  > "$TEST_TMPDIR/discover.log" 2>&1
check "the fabric was rediscovered with the pulled cables" test -s "$lab/fabric.snapshot"
wait_for 15 bash -c "[ \$(grep -c 'fabricfit: snapshot .* loaded' '$ctld_log') -gt $loads ]"
line=$(grep 'fabricfit: snapshot .* loaded' "$ctld_log" | tail -1)
check "slurmctld loaded the new snapshot: ${line#*loaded: }" test "$(grep -c 'fabricfit: snapshot .* loaded' "$ctld_log")" -gt "$loads"
id=$(sbatch --parsable -N 12 --gpus-per-node=8 -o /dev/null --wrap true)
state=$(wait_job "$id" 60)
check "a 12-node job ($state) avoids the degraded leaf group: leaf groups $(leaves_of_job "$id")" \
  bash -c '[ "$1" = COMPLETED ] && [ "$2" = 2,3 ]' _ "$state" "$(leaves_of_job "$id")"
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
