#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR source-path=SCRIPTDIR/lab
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab.sh: a throw-away Slurm 24.11 cluster on this one host, on a simulated
# InfiniBand fabric (ibsim), for trying and testing fabricfit.
#
#   lab.sh up     [options]   generate a fabric, start ibsim, munged, slurmctld, N slurmds
#                             (with --accounting slurmdbd also MariaDB and slurmdbd, so sacct works)
#   lab.sh down   [--dir DIR] stop exactly the processes `up` started (no-op if not up)
#   lab.sh status [--dir DIR] per-daemon liveness and an sinfo summary; exit 1 unless all up
#   lab.sh env    [--dir DIR] print `export ...` lines for using sbatch/srun/scontrol on the lab
#   lab.sh restart-slurmctld [--dir DIR] [--signal TERM|KILL] [--timeout SECS]
#                             stop slurmctld (SIGTERM, or SIGKILL as a crash) and start it again
#                             from its saved state, as a site restarts its controller
#
# Everything lives in one directory (default /var/tmp/fabricfit-lab): generated configs, the
# fabric, state, spool, logs and pid files. Processes are only ever signalled by the PIDs this
# script recorded (and checked against the expected executable first), never by name, so
# several labs (with different --dir and ports) can run side by side.
#
# This file only dispatches: the settings, --help and the option parser are in lab/options.sh,
# what every command needs in lab/common.sh, and each command in its own lab/<command>.sh
# (up, the big one, over lab/up_*.sh by concern), so a change to one command is read and
# reviewed on its own. lab/ is found next to this file's real path: a symlink to it works.
PROG=${0##*/}
set -Eeuo pipefail
# Name the command that failed when `set -e` ends the script, instead of dying silently
# (only in the main shell: failures inside $(...) surface there as the enclosing command).
# The file is named too: the line alone would not say which of lab/*.sh it is in.
trap '[ "$BASH_SUBSHELL" -ne 0 ] ||
  printf "%s: error: command failed (line %s of %s): %s\n" "$PROG" "$LINENO" "${BASH_SOURCE[0]##*/}" "$BASH_COMMAND" >&2' ERR

LAB_LIB=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lab
if [ ! -r "$LAB_LIB/common.sh" ]; then
  printf '%s: error: %s/common.sh not found: lab.sh needs the lab/ folder that comes with it\n' "$PROG" "$LAB_LIB" >&2
  exit 1
fi
# shellcheck source=lab/common.sh
. "$LAB_LIB/common.sh"
# shellcheck source=lab/options.sh
. "$LAB_LIB/options.sh"

parse_args "$@"
set_paths
# Sourced here at the top level, not in a function, so the files' settings stay global.
case $LAB_CMD in
  up)
    # shellcheck source=lab/up.sh
    . "$LAB_LIB/up.sh"
    cmd_up ;;
  down)
    # shellcheck source=lab/down.sh
    . "$LAB_LIB/down.sh"
    cmd_down ;;
  status)
    # shellcheck source=lab/status.sh
    . "$LAB_LIB/status.sh"
    if cmd_status; then exit 0; else exit 1; fi ;;
  env)
    # shellcheck source=lab/env.sh
    . "$LAB_LIB/env.sh"
    cmd_env ;;
  restart-slurmctld)
    # shellcheck source=lab/restart_slurmctld.sh
    . "$LAB_LIB/restart_slurmctld.sh"
    cmd_restart_slurmctld ;;
esac
