# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/up.sh: `lab.sh up`: the order in which a lab comes up, the clean-up when it
# fails half way, and lab.env, the settings the other commands read back. Each step lives
# with its concern in an up_*.sh file: up_checks (arguments, Slurm install, lab directory,
# ports), up_fabric (ibsim and discovery), up_munge, up_configs (slurm.conf and friends),
# up_accounting (MariaDB and slurmdbd), up_daemons (slurmctld, slurmds, UTS namespace).

# shellcheck source=down.sh
. "$LAB_LIB/down.sh"
# shellcheck source=up_checks.sh
. "$LAB_LIB/up_checks.sh"
# shellcheck source=up_fabric.sh
. "$LAB_LIB/up_fabric.sh"
# shellcheck source=up_munge.sh
. "$LAB_LIB/up_munge.sh"
# shellcheck source=up_configs.sh
. "$LAB_LIB/up_configs.sh"
# shellcheck source=up_accounting.sh
. "$LAB_LIB/up_accounting.sh"
# shellcheck source=up_daemons.sh
. "$LAB_LIB/up_daemons.sh"

write_lab_env() {
  {
    printf '# Settings of the lab in this directory (written by lab.sh up)\n'
    local v
    for v in SLURM_PREFIX NODES LEAVES GPUS RAILS SPINES UPLINKS TOPOLOGY CTLD_PORT SLURMD_PORT \
             NODELIST NVL_DOMAIN_SIZE IBSIM_SOCKNAME UMAD2SIM_SO PLUGIN_DIR LAB_UTS ACCOUNTING DBD_PORT MYSQL_PORT; do
      printf '%s=%q\n' "$v" "${!v}"
    done
  } > "$LAB_ENV"
}

UP_DONE=0
on_up_exit() {
  local rc=$?
  if [ "$UP_DONE" = 0 ] && [ -s "$STARTED" ]; then
    log "up failed: stopping what it started (logs stay in $LOGS)"
    sleep 0.3   # let a spawn that was under way record its PID
    do_down >/dev/null 2>&1 || log "warning: down after the failed up did not finish cleanly"
  fi
  exit "$rc"
}

cmd_up() {
  local t0; t0=$(now_ms)
  validate_up_args
  load_slurm_env
  find_fabricfit
  if [ "$TOPOLOGY" = fabricfit ] && [ ! -e "${PLUGIN_DIR:-$SLURM_PREFIX/lib/slurm}/topology_fabricfit.so" ]; then
    die "${PLUGIN_DIR:-$SLURM_PREFIX/lib/slurm}/topology_fabricfit.so is not installed (make install, or --plugin-dir), or use --topology tree"
  fi
  # Each lab gets its own simulator socket name, derived from its directory.
  IBSIM_SOCKNAME=fabricfit-lab-$(printf '%s' "$LAB_DIR" | cksum | cut -d' ' -f1)
  prepare_dir
  trap on_up_exit EXIT
  trap 'exit 130' INT TERM HUP   # so that on_up_exit cleans up after an interrupted up
  check_ports
  choose_uts
  uts_prefix
  generate_fabric
  write_lab_env
  start_ibsim
  discover_fabric
  start_munge
  make_gpu_devices
  write_configs
  expand_nodes
  if [ "$ACCOUNTING" = slurmdbd ]; then
    start_mariadb
    start_slurmdbd
  fi
  start_slurmctld
  start_slurmds
  wait_nodes_idle
  UP_DONE=1
  local secs=$(( $(now_ms) - t0 ))
  cat <<EOF
lab up in $(( secs / 1000 )).$(printf '%03d' $(( secs % 1000 )))s: $NODES nodes ($NODELIST) x $GPUS GPUs, $LEAVES leaves x $HOSTS_PER_LEAF hosts, $SPINES spines, $RAILS rail(s)
  dir       $LAB_DIR   (slurm.conf, fabric.net, log/, run/)
  topology  topology/$TOPOLOGY
  slurmctld 127.0.0.1:$CTLD_PORT, slurmd ports $SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 ))
  ibsim     IBSIM_SOCKNAME=$IBSIM_SOCKNAME$(if [ "$ACCOUNTING" = slurmdbd ]; then printf '\n  slurmdbd  127.0.0.1:%s, MariaDB 127.0.0.1:%s (sacct works)' "$DBD_PORT" "$MYSQL_PORT"; fi)
  use it:   eval "\$($0 env --dir $LAB_DIR)"; sbatch -N 2 --gpus-per-node=8 --wrap 'srun hostname'
  stop it:  $0 down --dir $LAB_DIR
EOF
}
