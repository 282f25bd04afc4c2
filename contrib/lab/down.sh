# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/down.sh: `lab.sh down`: stop exactly the processes `up` started, by the PIDs it
# recorded, jobs first. up sources it too: do_down is how a failed up cleans up after itself
# and how up --force takes down the lab it replaces.

DAEMONS_ORDER=(slurmd slurmctld slurmdbd mariadbd munged ibsim) # order in which `down` stops things

# slurmstepd processes of this lab: slurmd's children outlive it, so find them as slurmstepd
# processes that hold one of this lab's files open (they log to the slurmd log in $LOGS).
lab_stepds() {
  local p fd
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null || true)" = slurmstepd ] || continue
    for fd in "$p"/fd/*; do
      case $(readlink "$fd" 2>/dev/null || true) in
        "$LAB_DIR"/*) echo "${p#/proc/}"; break ;;
      esac
    done
  done
}

# All descendants of PID, one per line (from the ppid links in ps).
descendants() {
  local root=$1
  ps -e -o pid=,ppid= 2>/dev/null | awk -v root="$root" '
    { parent[$1] = $2; pids[NR] = $1 }
    END {
      want[root] = 1; changed = 1
      while (changed) {
        changed = 0
        for (i in pids) { p = pids[i]; if (!(p in want) && (parent[p] in want)) { want[p] = 1; changed = 1 } }
      }
      for (p in want) if (p != root) print p
    }'
}

# Stop NAME's processes (from lab_pids output in $1): SIGTERM, bounded wait, SIGKILL.
stop_group() {
  local name=$1 all=$2 secs=$3
  local -a pids
  mapfile -t pids < <(awk -v n="$name" '$1 == n { print $2 }' <<<"$all")
  [ ${#pids[@]} -gt 0 ] || return 0
  if ! signal_and_wait TERM "$secs" "${pids[@]}"; then
    log "$name did not exit within ${secs}s after SIGTERM; sending SIGKILL"
    signal_and_wait KILL 5 "${pids[@]}" || log "warning: some $name processes survive SIGKILL"
  fi
}

# Cancel the lab's jobs while slurmctld still answers, so that no slurmstepd or job process
# outlives the daemons (slurmstepd is not a child of slurmd: stopping slurmd leaves it be).
drain_jobs() {
  local ids
  ids=$(timeout 10 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/squeue" -h -o %A 2>/dev/null || true)
  if [ -n "$ids" ]; then
    # shellcheck disable=SC2086 # one argument per job id
    timeout 10 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/scancel" $ids 2>/dev/null || true
    wait_until 15 no_active_jobs || log "jobs still active after scancel; continuing"
  fi
}

no_active_jobs() {
  [ -z "$(timeout 5 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/squeue" -h -t R,CG,CF,S -o %A 2>/dev/null)" ]
}

# Last resort for steps that survived scancel: SIGKILL this lab's slurmstepds and whatever
# runs under them.
kill_stray_stepds() {
  local -a stepds victims
  mapfile -t stepds < <(lab_stepds)
  [ ${#stepds[@]} -gt 0 ] || return 0
  local s
  victims=("${stepds[@]}")
  for s in "${stepds[@]}"; do
    mapfile -t -O "${#victims[@]}" victims < <(descendants "$s")
  done
  log "killing ${#stepds[@]} leftover slurmstepd process(es) and their children: ${victims[*]}"
  signal_and_wait KILL 5 "${victims[@]}" || true
}

cmd_down() {
  if [ ! -d "$LAB_DIR" ] || [ ! -e "$MARKER" ]; then
    log "no lab in $LAB_DIR: nothing to do"
    return 0
  fi
  lock_lab
  do_down
}

do_down() {
  local t0 all
  t0=$(now_ms)
  load_lab_env || true
  all=$(lab_pids)
  if [ -z "$all" ] && [ -z "$(lab_stepds)" ]; then
    log "lab in $LAB_DIR is not running"
    rm -f "$STARTED"
    return 0
  fi
  if [ -n "${SLURM_PREFIX:-}" ] && grep -q '^slurmctld ' <<<"$all"; then drain_jobs; fi
  # slurmds first (they would otherwise complain about the missing controller), then the
  # controller, then munge (both Slurm sides need it until the end) and the simulator.
  local name
  for name in "${DAEMONS_ORDER[@]}"; do
    [ "$name" = munged ] && kill_stray_stepds
    stop_group "$name" "$all" 20
  done
  kill_stray_stepds
  all=$(lab_pids)
  if [ -n "$all" ]; then
    log "error: still running after down: $(tr '\n' ' ' <<<"$all")"
    return 1
  fi
  rm -f "$STARTED"
  log "lab in $LAB_DIR is down ($(( $(now_ms) - t0 ))ms)"
}
