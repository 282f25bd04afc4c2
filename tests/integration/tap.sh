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
