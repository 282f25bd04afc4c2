# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/up_daemons.sh: the Slurm daemons: how they bind (a UTS namespace when the host
# name is not 127.0.0.1), starting slurmctld and the slurmds, and waiting until every node is
# idle. restart-slurmctld sources it too, to start slurmctld exactly as up does.

# With NoInAddrAny/NoCtldInAddrAny every daemon binds to the address its host name resolves
# to (and to INADDR_ANY without them), while every client and daemon reaches slurmctld at
# 127.0.0.1 (SlurmctldHost=localhost(127.0.0.1)). So unless this host's name resolves to
# 127.0.0.1 itself, the daemons run in a UTS namespace of their own whose host name is
# "localhost", and bind to 127.0.0.1 only: a name on another address (a real interface), on
# 127.0.1.1 (what the Debian and Ubuntu installers write in /etc/hosts: slurmctld would
# listen where no client looks) or on none at all (FABRICFIT_LAB_UTS=1 forces it).
comm_params() {
  echo "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny"
}

choose_uts() {
  local addr name
  name=$(hostname)
  # A name that does not resolve makes getent exit 2: under errexit and pipefail that must
  # lead to the namespace, not end the script.
  addr=$(getent ahostsv4 "$name" 2>/dev/null | awk 'NR == 1 { print $1 }') || addr=
  LAB_UTS=no
  [ "$addr" = 127.0.0.1 ] || LAB_UTS=yes
  [ "${FABRICFIT_LAB_UTS:-0}" = 1 ] && LAB_UTS=yes
  if [ "$LAB_UTS" = yes ]; then
    command -v unshare >/dev/null || die "$name resolves to '${addr:-nothing}', not 127.0.0.1, and unshare (util-linux) is missing"
    local lo
    lo=$(getent ahostsv4 localhost 2>/dev/null | awk 'NR == 1 { print $1 }') || lo=
    [ "$lo" = 127.0.0.1 ] || die "localhost resolves to '${lo:-nothing}', not 127.0.0.1 (see /etc/hosts)"
    log "$name resolves to ${addr:-nothing}: daemons run with host name 'localhost' in a UTS namespace, bound to 127.0.0.1 only"
  fi
}

# The command prefix that puts a daemon in that namespace (empty: none). Same PID (exec).
uts_prefix() {
  UTS_PREFIX=()
  # shellcheck disable=SC2016 # for the inner shell
  if [ "${LAB_UTS:-no}" = yes ]; then UTS_PREFIX=(unshare --uts -- sh -c 'hostname localhost && exec "$@"' sh); fi
}

start_slurmctld() {
  local -a envs=(SLURM_CONF="$CONF")
  local sim_note=
  if [ "$UMAD2SIM" = yes ]; then
    [ -r "$UMAD2SIM_SO" ] || die "$UMAD2SIM_SO not found (package libumad2sim0), or use --no-umad2sim"
    # Lets the topology plugin discover the simulated fabric with libibnetdisc in slurmctld.
    envs+=(LD_PRELOAD="$UMAD2SIM_SO" IBSIM_SOCKNAME="$IBSIM_SOCKNAME")
    sim_note=", umad2sim preloaded"
  fi
  # -D: foreground (see spawn); it logs to SlurmctldLogFile and, duplicated, to stderr.
  # The working directory must be writable for umad2sim (./sys-<pid>/).
  # A crash leaves a core there too (core_pattern permitting): the tests print its backtrace.
  (cd "$LAB_DIR/ctld" && { ulimit -c unlimited 2>/dev/null || true; } && spawn slurmctld slurmctld "${UTS_PREFIX[@]}" env "${envs[@]}" \
     "$SLURM_PREFIX/sbin/slurmctld" -D -f "$CONF" < /dev/null > "$LOGS/slurmctld.stderr" 2>&1)
  local pid
  if ! pid=$(spawned_pid slurmctld) || ! wait_until "$TIMEOUT" slurmctld_ready "$pid"; then
    show_tail "$LOGS/slurmctld.log"
    die "slurmctld did not come up"
  fi
  log "slurmctld up (pid $pid, port $CTLD_PORT, Slurm ${SLURM_VERSION:-$SLURM_PREFIX}, TopologyPlugin=topology/$TOPOLOGY$sim_note)"
}

slurmctld_ready() {
  # Fail at once, not at the timeout, when it has died (a fatal configuration error, say).
  if ! pid_alive "$1"; then
    show_tail "$LOGS/slurmctld.log"; die "slurmctld exited"
  fi
  slurm scontrol ping 2>/dev/null | grep -q 'is UP'
}

start_slurmds() {
  local node
  # -D: foreground (see spawn). They log to their SlurmdLogFile and, all duplicated into
  # one file, to stderr (which also catches errors from before the log file is open).
  while read -r node; do
    mkdir -p "$LAB_DIR/spool/slurmd.$node"   # else slurmd logs an error before creating it
    (cd "$LAB_DIR/spool" && spawn "slurmd.$node" slurmd "${UTS_PREFIX[@]}" "$SLURM_PREFIX/sbin/slurmd" -D -f "$CONF" -N "$node" \
       < /dev/null >> "$LOGS/slurmd.stderr" 2>&1)
  done < "$LAB_DIR/nodes"
  wait_until 10 all_slurmds_spawned || die "could not start all slurmds"
  log "$NODES slurmds started (ports $SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 )))"
}

all_slurmds_spawned() {
  [ "$(find "$RUN/spawn" -name 'slurmd.*.pid' -size +0 | wc -l)" -eq "$NODES" ]
}

# Die at once (with the log) if a slurmd has died or says it cannot start.
check_slurmds() {
  local f dead
  f=$(grep -lE 'fatal:|Waiting for gres.conf file' "$LOGS"/slurmd.*.log 2>/dev/null | first 1 || true)
  dead=$(dead_slurmds | first 5)
  if [ -n "$f" ] || [ -n "$dead" ]; then
    [ -n "$f" ] || f=$LOGS/slurmd.$(head -n 1 <<<"$dead").log
    show_tail "$f" 10
    [ -n "$dead" ] && log "slurmd not running for: $(tr '\n' ' ' <<<"$dead")"
    die "a slurmd failed to start (see $f)"
  fi
}

# Wait until every node is idle. Nodes that turn INVAL/DRAIN/DOWN will not recover by
# themselves: report them (with the reason) at once.
wait_nodes_idle() {
  local t0 deadline states idle bad
  t0=$(now_ms); deadline=$(( t0 + TIMEOUT * 1000 ))
  while :; do
    check_slurmds
    states=$(slurm sinfo -h -N -o '%N %t' 2>/dev/null || true)
    idle=$(awk '$2 == "idle" { n++ } END { print n + 0 }' <<<"$states")
    [ "$idle" -eq "$NODES" ] && return 0
    bad=$(awk '$2 ~ /^(inval|drain|drng|down|fail)/ { print $1 " " $2 }' <<<"$states" | first 5)
    if [ -n "$bad" ] || [ "$(now_ms)" -ge "$deadline" ]; then
      log "nodes not idle ($idle of $NODES idle after $(( ($(now_ms) - t0) / 1000 ))s):"
      slurm sinfo -R 2>&1 | first 10 | sed 's/^/    /' >&2 || true
      awk '$2 != "idle"' <<<"$states" | first 10 | sed 's/^/    /' >&2
      local first; first=$(awk '$2 != "idle" { print $1; exit }' <<<"$states")
      show_tail "$LOGS/slurmctld.log" 15
      [ -n "$first" ] && show_tail "$LOGS/slurmd.$first.log" 15
      die "not all nodes came up idle"
    fi
    sleep 0.2
  done
}
