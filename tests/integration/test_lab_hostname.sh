#!/usr/bin/env bash
# The lab on hosts whose name does not resolve to 127.0.0.1 (issue 28): the name on
# 127.0.1.1, as the Debian and Ubuntu installers write /etc/hosts, and a name that does not
# resolve at all. Either way lab.sh must start the daemons bound to 127.0.0.1 (where every
# client looks for slurmctld), and jobs must run.
#
# The test runs itself in a UTS and mount namespace of its own (unshare), with its own host
# name and a private /etc/hosts bind-mounted over the machine's: nothing outside changes.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${FF_TEST_HOSTNAME_NS:-}" != 1 ]; then
  . "$here/lib.sh"
  [ "$(id -u)" -eq 0 ] || skip_all "needs root (slurmd, unshare, mount)"
  need_tool unshare util-linux
  need_tool ss iproute2
  # A chroot or some containers cannot make a private mount namespace: the /etc/hosts of
  # this test would then reach the machine's. Say so plainly instead of failing.
  if ! err=$(unshare --uts --mount --propagation private true 2>&1); then
    skip_all "cannot make a private UTS and mount namespace here (unshare: $err)"
  fi
  _tap_done=1   # the inner run reports (and its EXIT handler takes its labs down)
  FF_TEST_HOSTNAME_NS=1 exec unshare --uts --mount --propagation private -- bash "$0" "$@"
fi

. "$here/lib.sh"
make_tmpdir ff-test-hostname

# with_hosts NAME HOSTS-LINE...: this namespace's host name NAME and an /etc/hosts of the
# lines given (after the localhost lines a Debian installer writes).
with_hosts() {
  local name=$1 hosts=$TEST_TMPDIR/hosts.$1
  shift
  {
    printf '127.0.0.1\tlocalhost\n'
    printf '%s\n' "$@"
    printf '::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n'
  } > "$hosts"
  mount --bind "$hosts" /etc/hosts && hostname "$name"
}

# check_lab CASE: a lab up on this namespace's /etc/hosts, slurmctld on 127.0.0.1, a job with
# a step that completes, every listener of the lab on loopback.
check_lab() {
  local mode=$1 lab=$TEST_TMPDIR/lab-$1 port id state ours p listeners
  port=$(pick_ports 3)
  if ! lab_up "$lab" --nodes 2 --leaves 1 --ctld-port "$port" --slurmd-port $((port + 1)) --topology tree; then
    fail "$mode: lab up with host name $(hostname) ($(getent ahostsv4 "$(hostname)" | awk 'NR == 1 { print $1 }' || true))"
    return
  fi
  ok "$mode: lab up with host name $(hostname)"
  check "$mode: lab.sh ran the daemons in a UTS namespace of host name localhost" \
    grep -q "UTS namespace, bound to 127.0.0.1 only" "$lab.up.log"
  check "$mode: scontrol (host name $(hostname)) reaches slurmctld" bash -c "scontrol ping | grep -q 'is UP'"
  listeners=$(ss -Hltnp 2> /dev/null | awk '{ print $4, $6 }')
  ours=""
  for p in $(lab_recorded_pids "$lab"); do ours+=$(grep "pid=$p," <<< "$listeners")$'\n'; done
  check "$mode: slurmctld listens on 127.0.0.1:$port" grep -q "^127\.0\.0\.1:$port " <<< "$ours"
  check "$mode: no lab daemon listens off loopback" \
    bash -c '! awk "\$1 !~ /^127\\./ && \$1 !~ /^\\[::1\\]:/" <<< "$1" | grep -q .' _ "$ours"
  id=$(sbatch --parsable -N 2 -o /dev/null --wrap 'srun true' 2>&1)
  state=$(wait_job "$id" 60)
  check "$mode: a 2-node job with an srun step completes (job $id: $state)" test "$state" = COMPLETED
  lab_down "$lab" > /dev/null 2>&1
  # The machine's /etc/hosts again (in this namespace), and the file free to be removed.
  umount /etc/hosts
}

# Debian's installer: the host name on 127.0.1.1. Before issue 28, slurmctld bound
# 127.0.1.1 while every client talked to 127.0.0.1: "slurmctld did not come up".
with_hosts ffdebian $'127.0.1.1\tffdebian.example.org ffdebian' || fail "mount a private /etc/hosts"
check_lab debian-127.0.1.1

# A name nothing resolves (.invalid never does, RFC 6761): lab.sh used to die in getent.
with_hosts ffnowhere.invalid || fail "mount a private /etc/hosts"
check_lab unresolvable

done_testing
