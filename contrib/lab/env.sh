# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/env.sh: `lab.sh env`: the `export ...` lines that point sbatch, srun, scontrol
# and the IB tools at a running lab.

cmd_env() {
  if [ ! -e "$MARKER" ] || ! load_lab_env; then
    die "no lab in $LAB_DIR (run '$PROG up --dir $LAB_DIR' first)"
  fi
  printf 'export SLURM_CONF=%q\n' "$CONF"
  # shellcheck disable=SC2016 # $PATH is expanded by the shell that evals this
  printf 'export PATH=%q:%q:"$PATH"\n' "$SLURM_PREFIX/bin" "$SLURM_PREFIX/sbin"
  printf 'export FABRICFIT_LAB_DIR=%q\n' "$LAB_DIR"
  # For IB tools against the simulated fabric:  LD_PRELOAD=$FABRICFIT_UMAD2SIM ibnetdiscover
  # (run them in a writable directory: umad2sim creates ./sys-<pid>/ there).
  printf 'export IBSIM_SOCKNAME=%q\n' "$IBSIM_SOCKNAME"
  printf 'export FABRICFIT_UMAD2SIM=%q\n' "$UMAD2SIM_SO"
}
