#!/usr/bin/env bash
# topology/fabricfit under faults: snapshots truncated mid-write, corrupt, or of another
# fabric (each refused, logged once, the last good one kept, also across a restart and a
# reconfigure: StateSaveLocation keeps a copy), and slurmctld SIGKILLed in the middle of a
# stream of submissions (every job still there after the restart, placement resumes).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-faults 16
lab_start --nodes 16 --leaves 2
snap=$lab/fabric.snapshot
need_fabricfit
cp "$snap" "$TEST_TMPDIR/good.snapshot"

placed_by() {
  grep "fabricfit: eval_nodes JobId=$1 " "$ctld_log" | tail -1 | sed -n 's/.* placement=\([a-z]*\).*/\1/p'
}
# job_placed DESC: a 2-node GPU job completes and fabricfit placed it.
job_placed() {
  local id state
  id=$(sbatch --parsable -N 2 --gpus-per-node=8 -o /dev/null --wrap true)
  state=$(wait_job "$id" 60)
  check "$1: a GPU job completes ($state) placed by fabricfit ($(placed_by "$id"))" \
    bash -c '[ "$1" = COMPLETED ] && [ "$2" = fabricfit ]' _ "$state" "$(placed_by "$id")"
}
# refused_once DESC PATTERN: the refusal is logged exactly once although jobs ran on.
refused_once() {
  local n
  n=$(grep -c -- "$2" "$ctld_log")
  check "$1: refused and logged once (found $n)" test "$n" = 1
}

job_placed "with the discovered snapshot"
check "every snapshot that loads is kept in StateSaveLocation" \
  test -s "$lab/state/fabricfit.snapshot.last-good"

# 1. Truncated mid-write: a writer that does not write atomically dies halfway.
head -c "$(( $(stat -c %s "$snap") / 2 ))" "$TEST_TMPDIR/good.snapshot" > "$snap"
sleep 2
job_placed "after a snapshot truncated mid-write"
job_placed "and again"
refused_once "the truncated snapshot" "fabricfit: $snap: .*truncated.*; keeping the snapshot already loaded"

# 2. Corrupt: bytes changed in the middle (the checksum no longer matches).
cp "$TEST_TMPDIR/good.snapshot" "$snap.tmp"
printf 'XXXXXXXX' | dd of="$snap.tmp" bs=1 seek=$(( $(stat -c %s "$snap.tmp") / 2 )) conv=notrunc 2> /dev/null
mv "$snap.tmp" "$snap"
sleep 2
job_placed "after a corrupt snapshot"
job_placed "and again"
n=$(grep -c "fabricfit: $snap: .*; keeping the snapshot already loaded" "$ctld_log")
check "the corrupt snapshot was refused and logged once (2 refusals in all: $n)" test "$n" = 2

# 3. Another fabric: a good snapshot, but none of its hosts are Slurm nodes.
"$FABRICFIT" generate --leaves 2 --hosts-per-leaf 8 --host-prefix other -o "$TEST_TMPDIR/other.net"
"$FABRICFIT" discover --from "$TEST_TMPDIR/other.net" -q -o "$snap"
sleep 2
job_placed "after a snapshot of another fabric"
job_placed "and again"
refused_once "the snapshot of another fabric" "fabricfit: $snap: none of the cluster's 16 Slurm nodes is a host of this fabric"
check "the last good copy is still the good snapshot" \
  bash -c "'$FABRICFIT' show --json '$lab/state/fabricfit.snapshot.last-good' | grep -q '\"gpu001\"'"

# 4. A restart and a reconfigure with a bad snapshot in place: the last good copy.
head -c 200 "$TEST_TMPDIR/good.snapshot" > "$snap"
"$LAB_SH" restart-slurmctld --dir "$lab" > "$lab.restart.log" 2>&1
job_placed "after a restart with a bad snapshot in place (last good copy)"
check "the restart logged that it uses the last good copy" \
  grep -q "fabricfit: $snap: .*; using the last good snapshot $lab/state/fabricfit.snapshot.last-good" "$ctld_log"
check "scontrol show topology says so" \
  bash -c 'scontrol show topology | grep -q "^Placement=fabricfit Snapshot=\"bad snapshot: .*using the last good copy"'
scontrol reconfigure
wait_for 30 bash -c "scontrol ping | grep -q 'is UP'"
sleep 1
job_placed "after scontrol reconfigure with the bad snapshot still in place"

# 5. SIGKILL in the middle of a stream of submissions. slurmctld acknowledges a job before
# its state save thread writes it (at most a few seconds later), so what a crash may lose
# is the jobs of those last seconds: every job accepted earlier must still be there, and
# the controller must place jobs again.
cp "$TEST_TMPDIR/good.snapshot" "$snap.tmp" && mv "$snap.tmp" "$snap"
: > "$TEST_TMPDIR/ids"
(
  for i in $(seq 1 60); do
    id=$(sbatch --parsable -N 1 --gpus-per-node=2 -t 5 -o /dev/null --wrap 'sleep 1' 2> /dev/null) &&
      echo "$(date +%s) $id" >> "$TEST_TMPDIR/ids"
    sleep 0.2
  done
) &
streamer=$!
sleep 12
killed_at=$(date +%s)
"$LAB_SH" restart-slurmctld --dir "$lab" --signal KILL > "$lab.kill.log" 2>&1
check "slurmctld came back after SIGKILL mid-stream" bash -c "scontrol ping | grep -q 'is UP'"
wait "$streamer"
old=$(awk -v t=$((killed_at - 6)) '$1 <= t { print $2 }' "$TEST_TMPDIR/ids")
recent=$(awk -v t=$((killed_at - 6)) -v k="$killed_at" '$1 > t && $1 <= k { print $2 }' "$TEST_TMPDIR/ids" | wc -l)
lost=""
for id in $old; do
  [ -n "$(job_field "$id" JobState)" ] || lost="$lost $id"
done
check "all $(wc -w <<< "$old") jobs accepted 6 s or more before the SIGKILL are there${lost:+ (lost:$lost)}" test -z "$lost"
diag "jobs accepted in the last 6 s before the SIGKILL: $recent (Slurm may lose those)"
last=$(tail -1 "$TEST_TMPDIR/ids" | cut -d' ' -f2)
wait_job "$last" 90 > /dev/null
job_placed "after the SIGKILL restart, placement resumes"
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
