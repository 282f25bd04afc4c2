# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the lab benchmarks (lab_stream.sh, eval_burst.sh) with `me` (their name) and
# `top` (the source tree) set: Slurm's environment, the integration tests' lab helpers,
# every lab they brought up taken down at exit, and log().
# shellcheck shell=bash disable=SC2154 # me, top: set by the script that sources this

# shellcheck disable=SC1090
. "${SLURM_ENV:-/opt/fabricfit/slurm/current.env}"
# shellcheck source=tests/integration/lib.sh disable=SC1091
. "$top/tests/integration/lib.sh"
# lib.sh's EXIT trap reports TAP; a benchmark only needs its labs taken down.
cleanup() {
  local d
  # shellcheck disable=SC2154 # _labs: lib.sh's list of the labs lab_up started
  for d in "${_labs[@]}"; do "$LAB_SH" down --dir "$d" > "$d.down.log" 2>&1 || echo "$me: down $d failed" >&2; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { printf '%s: %s\n' "$me" "$*" >&2; }
# bpftrace's tracepoints and uprobes need tracefs, which a container may not have mounted.
mount_tracefs() { [ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing || true; }
