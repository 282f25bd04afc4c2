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
# It returns once the nodes that answered before answer the new controller: a plain
# restart leaves a node configured State=UNKNOWN in that state until its slurmd registers
# again (load_all_node_state), and slurmctld gives a job none of such nodes, so a job
# submitted at once would be placed among the nodes that happened to register first.
cmd_restart_slurmctld() {
  [ -e "$MARKER" ] && load_lab_env || die "no lab in $LAB_DIR"
  case $SIGNAL in TERM|KILL) ;; *) die "--signal must be TERM or KILL" ;; esac
  lock_lab
  local pid
  pid=$(lab_pids | awk '$1 == "slurmctld" { print $2; exit }')
  local silent_before=""
  if [ -n "$pid" ]; then
    silent_before=$(silent_nodes) || silent_before=""
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
    local now
    now=$(silent_nodes) || now="(sinfo failed)"
    log "nodes not answering $TIMEOUT s after the restart: $(new_lines "$silent_before" "$now" | paste -sd, -)"
  fi
}

# Nodes the controller cannot give a job until they register (again), one per line,
# sorted: not responding (sinfo -d) or in state UNKNOWN. Fails when sinfo does.
silent_nodes() {
  local dead states
  dead=$(slurm sinfo -h -N -d -o %N 2> /dev/null) || return 1
  states=$(slurm sinfo -h -N -o '%N %t' 2> /dev/null) || return 1
  { printf '%s\n' "$dead"; awk '$2 ~ /^unk/ { print $1 }' <<< "$states"; } | sed '/^$/d' | sort -u
}

# new_lines BEFORE NOW: the lines of NOW not in BEFORE (both sorted, one name a line).
new_lines() {
  comm -13 <(printf '%s\n' "$1" | sed '/^$/d') <(printf '%s\n' "$2" | sed '/^$/d')
}

# True when sinfo answers and every node silent now was silent before the restart too.
no_new_silent() {
  local now
  now=$(silent_nodes) || return 1
  [ -z "$(new_lines "$1" "$now")" ]
}
