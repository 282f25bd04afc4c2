#!/usr/bin/env bash
# A bad or missing snapshot on the shared path (issue 31): every node keeps its last good
# copy of the snapshot (from slurmd's start on, and at each step), as slurmctld does, so
# tasks keep their NCCL settings;
# the copy is never replaced by a bad file; the per-step line is at debug level only, and
# the admin learns of it once, from slurmctld (its log, scontrol show topology,
# fabricfit frag --live --prom's fabricfit_snapshot_ok).
#
# FABRICFIT_SPANK_SO: the fabricfit.so to load (spank_so in lib.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

so=$(spank_so)
[ -r "$so" ] || { fail "needs the SPANK plugin $so, which is missing: the build's fabricfit.so, installed or named by FABRICFIT_SPANK_SO"; done_testing; }

lab_prepare ff-test-spank-last-good 8
need_fabricfit
lab_start --nodes 8 --leaves 2 --rails 2 --spank-plugin "$so"
tmp=$TEST_TMPDIR
snap=$lab/fabric.snapshot
# The plugstack line names last_good= only: the snapshot's copy goes beside it.
copy=$lab/spool/fabricfit.snapshot.last-good
check "the lab's fabricfit.conf names $snap" grep -q "^SnapshotFile=$snap\$" "$lab/fabricfit.conf"
# shellcheck disable=SC2016 # expanded by the task, not here
echo 'echo "$SLURMD_NODENAME|${NCCL_IB_HCA-}|${FABRICFIT_LEAF_GROUPS-}"' > "$tmp/show.sh"
# has_settings FILE...: both tasks (gpu001, gpu005) of every file got NCCL_IB_HCA and leaf groups.
has_settings() {
  local f
  for f in "$@"; do
    for n in gpu001 gpu005; do grep -q "^$n|=mlx5_0:1,mlx5_1:1|ib-leaf" "$f" || return 1; done
  done
}
step() { srun -N 2 -w 'gpu[001,005]' --gpus-per-node=8 "$@" bash "$tmp/show.sh"; }

# slurmd's start keeps it already: a node that has run no step has a copy too.
check "slurmd's start keeps the node's last good copy before any step ($copy)" cmp -s "$snap" "$copy"
step > "$tmp/a.out" 2>&1
check "a step on the good snapshot has NCCL settings" has_settings "$tmp/a.out"
check "and keeps the node's last good copy of it ($copy)" cmp -s "$snap" "$copy"
cp "$snap" "$tmp/good.snapshot"
before=$(stat -c %i "$copy")
step > "$tmp/b.out" 2>&1
check "an unchanged snapshot is not copied again" bash -c '[ -n "$1" ] && [ "$(stat -c %i "$2")" = "$1" ]' _ "$before" "$copy"
# snapshot_ok FILE WANT: fabricfit frag --live --prom's fabricfit_snapshot_ok is WANT.
snapshot_ok() { "$FABRICFIT" frag "$tmp/good.snapshot" --live --prom > "$1" 2>&1 && grep -qx "fabricfit_snapshot_ok $2" "$1"; }
check "fabricfit frag --live --prom: fabricfit_snapshot_ok 1 while the snapshot is good" snapshot_ok "$tmp/prom1" 1

# Garbled: a half-written file on the shared path.
head -c 200 "$tmp/good.snapshot" > "$snap.tmp" && mv "$snap.tmp" "$snap"
for i in 1 2 3; do
  step --slurmd-debug=debug > "$tmp/c$i.out" 2> "$tmp/c$i.err"
  sleep 1
done
check "with a garbled snapshot, every step keeps NCCL_IB_HCA and FABRICFIT_LEAF_GROUPS" \
  has_settings "$tmp"/c[123].out
check "the node's last good copy is untouched by the garbled file" cmp -s "$tmp/good.snapshot" "$copy"
check "slurmstepd's debug line names the bad file, its error and the copy used" \
  grep -q "fabricfit: $snap: truncated.*; using the last good snapshot $copy\$" "$tmp/c1.err"
check "no per-step line in slurmd's log at SlurmdDebug=info" \
  bash -c '! grep -q "using the last good snapshot\|no NCCL settings for this step" "$1"/log/slurmd.gpu00[15].log' _ "$lab"
wait_for 10 grep -q "fabricfit: $snap: truncated" "$ctld_log"
check "slurmctld logs the bad snapshot once, not once per poll or step" \
  bash -c '[ "$(grep -c "fabricfit: $1: truncated.*; keeping the snapshot already loaded" "$2")" = 1 ]' _ "$snap" "$ctld_log"
scontrol show topology > "$tmp/topology.out" 2>&1
check "scontrol show topology says the snapshot is bad" \
  grep -q "Snapshot=\"bad snapshot: $snap: truncated" "$tmp/topology.out"
check "fabricfit frag --live --prom: fabricfit_snapshot_ok 0" snapshot_ok "$tmp/prom2" 0

# Removed: the same, and slurmctld says so once.
rm -f "$snap"
for i in 1 2 3; do
  step > "$tmp/d$i.out" 2>&1
  sleep 1
done
check "without a snapshot, every step keeps its NCCL settings" has_settings "$tmp"/d[123].out
wait_for 10 grep -q "fabricfit: no snapshot at $snap" "$ctld_log"
check "slurmctld logs the missing snapshot once" \
  bash -c '[ "$(grep -c "fabricfit: no snapshot at $1; keeping the snapshot already loaded" "$2")" = 1 ]' _ "$snap" "$ctld_log"
scontrol show topology > "$tmp/topology2.out" 2>&1
check "scontrol show topology says it is missing" grep -q "Snapshot=\"no snapshot at $snap (keeping" "$tmp/topology2.out"

# Back: loaded again, and the nodes use it.
cp "$tmp/good.snapshot" "$snap"
wait_for 10 bash -c '[ "$(grep -c "fabricfit: snapshot $1 loaded" "$2")" -ge 2 ]' _ "$snap" "$ctld_log"
check "slurmctld loads the snapshot when it is back" \
  bash -c '[ "$(grep -c "fabricfit: snapshot $1 loaded" "$2")" -ge 2 ]' _ "$snap" "$ctld_log"
step --slurmd-debug=debug > "$tmp/e.out" 2> "$tmp/e.err"
check "fabricfit frag --live --prom: fabricfit_snapshot_ok 1 again" snapshot_ok "$tmp/prom3" 1
check "steps read it again, with no last good line" \
  bash -c 'grep -q "^gpu001|=mlx5_0:1,mlx5_1:1|" "$1" && ! grep -q "last good snapshot" "$2"' _ "$tmp/e.out" "$tmp/e.err"

lab_down "$lab" > /dev/null 2>&1
done_testing
