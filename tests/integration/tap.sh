# shellcheck shell=bash
# TAP output and small process helpers for the integration tests (sourced).
_tap_n=0
_tap_failed=0

ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $*"; }
# check DESCRIPTION COMMAND...: ok if the command succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# Prints the plan and exits non-zero when anything failed.
finish() {
  echo "1..$_tap_n"
  [ "$_tap_n" -gt 0 ] && [ "$_tap_failed" -eq 0 ]
  exit $?
}

# wait_for SECONDS COMMAND...: polls until the command succeeds or time runs out.
wait_for() {
  local limit=$1; shift
  local deadline=$((SECONDS + limit))
  while [ $SECONDS -lt $deadline ]; do
    "$@" 2>/dev/null && return 0
    sleep 0.2
  done
  "$@" 2>/dev/null
}

# stop_pid PID: TERM, then KILL after 10 s; only ever a PID this test started.
stop_pid() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  wait_for 10 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}

umad2sim_lib() {
  dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim.so$' | head -n1
}

# The lab used by a test: its own directory and ports, so tests never meet a demo lab.
# lab_up DIR CTLD_PORT SLURMD_PORT [lab.sh up options...]; lab_down DIR.
LAB_SH=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../contrib" && pwd)/lab.sh
lab_up() {
  local dir=$1 ctld=$2 slurmd=$3; shift 3
  "$LAB_SH" up --dir "$dir" --ctld-port "$ctld" --slurmd-port "$slurmd" "$@" || return 1
  eval "$("$LAB_SH" env --dir "$dir")"
}
# Every PID the lab recorded, for checking that `down` left none alive.
lab_pids() { awk '{ print $2 }' "$1/run/started" 2>/dev/null; }
lab_down() { "$LAB_SH" down --dir "$1"; }

# job_state JOBID: COMPLETED, RUNNING, ... ; wait_job JOBID SECONDS: until it has ended.
job_state() { scontrol show job "$1" -o 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_ended() { case "$(job_state "$1")" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) return 0 ;; *) return 1 ;; esac; }
wait_job() { wait_for "$2" job_ended "$1"; }

# pid_alive PID: running (a zombie awaiting its reaper does not count).
pid_alive() {
  local stat
  stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $stat != Z* ]]
}
