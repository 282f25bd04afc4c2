#!/usr/bin/env bash
# The lab listens on loopback only: slurmctld, every slurmd and the job steps they start
# bind to 127.0.0.1, never to every address, and submissions do not make munge's host
# lookup fail on 0.0.0.0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

command -v ss > /dev/null || skip_all "ss (iproute2) is not installed"
make_tmpdir ff-test-loopback
lab=$TEST_TMPDIR/lab
port=$(pick_ports 4)
if ! lab_up "$lab" --nodes 4 --leaves 2 --ctld-port "$port" --slurmd-port $((port + 1)) --topology tree; then
  fail "lab up"
  done_testing
fi

check "slurm.conf binds the daemons to the host's own (loopback) address" \
  grep -q '^CommunicationParameters=NoInAddrAny,NoCtldInAddrAny' "$lab/slurm.conf"

# A job with a step keeps srun and slurmstepd listening while we look.
id=$(sbatch --parsable -N 2 -o /dev/null --wrap 'srun sleep 20')
wait_for 30 bash -c "[ \"\$(squeue -h -j $id -o %T)\" = RUNNING ]"
sleep 2

# Every TCP listener of a process of this lab (daemons, and slurmstepds found by their
# open lab files) with its local address.
pids=$(lab_recorded_pids "$lab")
for p in /proc/[0-9]*; do
  [ "$(cat "$p/comm" 2> /dev/null)" = slurmstepd ] || continue
  ls -l "$p/fd" 2> /dev/null | grep -q "$lab" && pids="$pids ${p#/proc/}"
done
listeners=$(ss -Hltnp 2> /dev/null | awk '{ print $4, $6 }')
ours=""
for p in $pids; do
  ours+=$(grep "pid=$p," <<< "$listeners")$'\n'
done
ours=$(grep . <<< "$ours" | sort -u)
n=$(grep -c . <<< "$ours")
check "the lab's processes listen on $n socket(s), slurmctld's port among them" \
  grep -q "127.0.0.1:$port " <<< "$ours"
elsewhere=$(awk '$1 !~ /^127\.0\.0\.1:/ && $1 !~ /^\[::1\]:/' <<< "$ours")
check "none of them listens on anything but loopback" test -z "$elsewhere"
[ -z "$elsewhere" ] || diag "$elsewhere"
scancel "$id"
check "no submission made munge's host lookup fail on 0.0.0.0" \
  bash -c "! grep -q 'Lookup failed for 0.0.0.0' '$lab'/log/*.log"
done_testing
