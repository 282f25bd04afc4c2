# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/restart_slurmctld.sh: `lab.sh restart-slurmctld`: slurmctld stopped (or killed)
# and started again from its saved state (no -c). It starts slurmctld the way up does, so it
# sources up_daemons.sh for that rather than keeping a second copy.

# shellcheck source=up_daemons.sh
. "$LAB_LIB/up_daemons.sh"

# Stops slurmctld with SIGTERM (it saves jobs and nodes in StateSaveLocation) and starts
# it again without -c, so it recovers that state: what a site's controller restart does.
# It returns once the nodes that answered before answer the new controller: until a node
# registers, slurmctld keeps it out of the nodes a job may get (NO_RESPOND, read_config.c),
# so a job submitted at once would be placed among the rest only.
cmd_restart_slurmctld() {
  [ -e "$MARKER" ] && load_lab_env || die "no lab in $LAB_DIR"
  case $SIGNAL in TERM|KILL) ;; *) die "--signal must be TERM or KILL" ;; esac
  lock_lab
  local pid
  pid=$(lab_pids | awk '$1 == "slurmctld" { print $2; exit }')
  local silent_before=""
  [ -n "$pid" ] && silent_before=$(not_responding)
  if [ -n "$pid" ]; then
    signal_and_wait "$SIGNAL" 30 "$pid" || die "slurmctld (pid $pid) did not exit after SIG$SIGNAL"
  else
    log "slurmctld was not running (crashed?): starting it"
  fi
  # Its pid files outlive a SIGKILL (and spawn's outlives any stop): a stale one must not
  # stand for the new process, or the wait for it reads the old PID and reports it dead.
  rm -f "$RUN/slurmctld.pid" "$RUN/spawn/slurmctld.pid"
  uts_prefix
  start_slurmctld
  if ! wait_until "$TIMEOUT" no_new_silent "$silent_before"; then
    log "nodes not answering $TIMEOUT s after the restart: $(comm -13 <(printf '%s\n' "$silent_before") <(not_responding) | paste -sd, -)"
  fi
}

# Nodes slurmctld has not heard from (sinfo's '*' suffix), one per line, sorted.
not_responding() {
  slurm sinfo -h -N -o '%N %t' 2> /dev/null | awk '$2 ~ /\*$/ { print $1 }' | sort -u
}

# True when every node not answering now did not answer before the restart either.
no_new_silent() {
  [ -z "$(comm -13 <(printf '%s\n' "$1") <(not_responding))" ]
}
