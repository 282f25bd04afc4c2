# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/status.sh: `lab.sh status`: per-daemon liveness and an sinfo summary; the exit
# status says whether everything is up (contrib/lab.sh turns it into 0 or 1).

cmd_status() {
  if [ ! -e "$MARKER" ] || ! load_lab_env; then
    echo "no lab in $LAB_DIR"
    return 1
  fi
  local all ok=1 pid name
  all=$(lab_pids)
  echo "lab $LAB_DIR: $NODES nodes, topology/$TOPOLOGY, slurmctld port $CTLD_PORT, ibsim $IBSIM_SOCKNAME"
  local names=(ibsim munged slurmctld)
  if [ "${ACCOUNTING:-none}" = slurmdbd ]; then names+=(mariadbd slurmdbd); fi
  for name in "${names[@]}"; do
    pid=$(awk -v n="$name" '$1 == n { print $2; exit }' <<<"$all")
    if [ -n "$pid" ]; then
      printf '  %-10s running (pid %s)\n' "$name" "$pid"
    else
      printf '  %-10s NOT running\n' "$name"; ok=0
    fi
  done
  local n_up
  n_up=$(grep -c '^slurmd ' <<<"$all" || true)
  if [ "$n_up" -eq "$NODES" ]; then
    printf '  %-10s %d/%d running\n' slurmd "$n_up" "$NODES"
  else
    local dead
    dead=$(dead_slurmds | paste -sd, -)
    dead=$(slurm scontrol show hostlist "$dead" 2>/dev/null || echo "$dead")
    printf '  %-10s %d/%d running; not running: %s\n' slurmd "$n_up" "$NODES" "$dead"
    ok=0
  fi
  if grep -q '^slurmctld ' <<<"$all"; then
    timeout 10 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/sinfo" -o '%10P %.5a %.6D %.8t %N' 2>&1 | sed 's/^/  /' || ok=0
  fi
  [ "$ok" = 1 ]
}
