#!/usr/bin/env bash
# The lab listens on loopback only: slurmctld, every slurmd and the job steps they start
# bind to 127.0.0.1, never to every address, and submissions do not make munge's host
# lookup fail on 0.0.0.0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_tool ss "package iproute2; contrib/setup-slurm.sh installs it"
make_tmpdir ff-test-loopback

# check_lab MODE: bring a lab up (MODE "uts": forced into a UTS namespace whose host name
# is localhost, as lab.sh does where this host's name does not resolve to 127.x) and check
# what its processes listen on.
check_lab() {
  local mode=$1 lab=$TEST_TMPDIR/lab-$1 port id pids listeners ours elsewhere n p
  port=$(pick_ports 4)
  if ! FABRICFIT_LAB_UTS=$([ "$mode" = uts ] && echo 1 || echo 0) \
       lab_up "$lab" --nodes 4 --leaves 2 --ctld-port "$port" --slurmd-port $((port + 1)) --topology tree; then
    fail "$mode: lab up"
    return
  fi
  check "$mode: slurm.conf binds the daemons to the host's own address" \
    grep -q '^CommunicationParameters=NoInAddrAny,NoCtldInAddrAny' "$lab/slurm.conf"
  # A job with a step keeps srun and slurmstepd running while we look.
  id=$(sbatch --parsable -N 2 -o /dev/null --wrap 'srun sleep 20')
  wait_for 30 bash -c "[ \"\$(squeue -h -j $id -o %T)\" = RUNNING ]"
  sleep 2
  # Every TCP listener of a process of this lab (daemons, and slurmstepds and their
  # children found by their open lab files) with its local address.
  pids=$(lab_recorded_pids "$lab")
  for p in /proc/[0-9]*; do
    case $(cat "$p/comm" 2> /dev/null) in slurmstepd|srun) ;; *) continue ;; esac
    ls -l "$p/fd" 2> /dev/null | grep -q "$lab" && pids="$pids ${p#/proc/}"
  done
  listeners=$(ss -Hltnp 2> /dev/null | awk '{ print $4, $6 }')
  ours=""
  for p in $pids; do ours+=$(grep "pid=$p," <<< "$listeners")$'\n'; done
  ours=$(grep . <<< "$ours" | sort -u)
  n=$(grep -c . <<< "$ours")
  check "$mode: the lab's processes listen on $n socket(s), slurmctld's port among them" \
    grep -q "127.0.0.1:$port " <<< "$ours"
  elsewhere=$(awk '$1 !~ /^127\.0\.0\.1:/ && $1 !~ /^\[::1\]:/' <<< "$ours")
  check "$mode: none of them listens on anything but loopback" test -z "$elsewhere"
  [ -z "$elsewhere" ] || diag "$elsewhere"
  scancel "$id"
  check "$mode: no submission made munge's host lookup fail on 0.0.0.0" \
    bash -c "! grep -q 'Lookup failed for 0.0.0.0' '$lab'/log/*.log"
  lab_down "$lab" > /dev/null 2>&1
}

check_lab default
check_lab uts
done_testing
