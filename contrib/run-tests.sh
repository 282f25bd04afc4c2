#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is missing
# (packages, Slurm 24.11), builds and installs fabricfit, runs the unit tests
# (GoogleTest and the plugin symbol test, `make check`) and the integration tests (ibsim,
# a real local Slurm cluster) on the default release; then, for each further Slurm release
# (FABRICFIT_CI_RELEASES, default "25.11.7 26.05.3"; tarballs and their SHA-256 from
# ../shared/slurm unless built already; built beside the default release's lab tests),
# builds only the plugins against it, runs the symbol test and the lab tests of the plugins
# on it. Ends with one line "N passed, N failed".
# The unit tests also run under ASan+UBSan and every fuzz target for a bounded time
# (contrib/run-sanitizers.sh; --no-sanitizers skips that).
# The ibsim tests (tests/integration/test_*_ibsim.sh, among them test_health_ibsim.sh for
# fabric health) run once, on the default release: they use no Slurm.
#   contrib/run-tests.sh [--unit-only] [--no-releases] [--no-sanitizers] [TEST-SCRIPT...]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FABRICFIT_BUILD_DIR:-$top/build}
unit_only=no sanitizers=yes releases=${FABRICFIT_CI_RELEASES-25.11.7 26.05.3}
selected=()
for arg in "$@"; do
  case "$arg" in
    --unit-only) unit_only=yes ;;
    --no-releases) releases= ;;
    --no-sanitizers) sanitizers=no ;;
    *) selected+=("$arg") ;;
  esac
done

t_build=$SECONDS
"$top/contrib/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
echo "== build (Slurm $(. "${FABRICFIT_SLURM_ENV:-/opt/fabricfit/slurm/current.env}" && echo "$SLURM_VERSION")): $((SECONDS - t_build)) s"

passed=0 failed=0
log_dir=$build/test-logs
mkdir -p "$log_dir"

echo "== unit tests (make check)"
if make -C "$build" -j"$(nproc)" check > "$log_dir/unit.log" 2>&1; then
  u_status=ok
else
  u_status=fail
fi
# GoogleTest prints one line per test in each test binary's log: count them.
u_logs=()
for t in $(make -s -C "$build" print-tests 2>/dev/null); do u_logs+=("$build/$t.log"); done
u_pass=$(cat "${u_logs[@]}" 2>/dev/null | grep -c '^\[       OK \]' || true); u_pass=${u_pass:-0}
u_fail=$(cat "${u_logs[@]}" 2>/dev/null | grep -c '^\[  FAILED  \] .*(' || true); u_fail=${u_fail:-0}
# Script tests (the plugin symbol test) speak TAP.
u_pass=$((u_pass + $(cat "${u_logs[@]}" 2>/dev/null | grep -c '^ok ' || true)))
u_fail=$((u_fail + $(cat "${u_logs[@]}" 2>/dev/null | grep -c '^not ok ' || true)))
[ "$u_status" = fail ] && [ "$u_fail" -eq 0 ] && u_fail=1
echo "unit: $u_pass passed, $u_fail failed (${#u_logs[@]} test programs)"
[ "$u_fail" -gt 0 ] && { cat "${u_logs[@]}" 2>/dev/null | grep -E 'Failure|FAILED|^not ok' | head -30; tail -20 "$log_dir/unit.log"; }
passed=$((passed + u_pass)); failed=$((failed + u_fail))

echo "== style (clang-format, the repo's .clang-format)"
if command -v clang-format > /dev/null && git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
  mapfile -t sources < <(git -C "$top" ls-files '*.cpp' '*.hpp' '*.c' '*.h')
  if (cd "$top" && clang-format --dry-run --Werror "${sources[@]}") > "$log_dir/style.log" 2>&1; then
    echo "ok - ${#sources[@]} source files are clang-format clean"; passed=$((passed + 1))
  else
    echo "not ok - clang-format would change: $(grep -o '^[^:]*:' "$log_dir/style.log" | sort -u | tr -d : | tr '\n' ' ')"
    failed=$((failed + 1))
  fi
elif ! command -v clang-format > /dev/null; then
  # contrib/setup-slurm.sh installs it: its absence is a machine not set up, not a skip.
  echo "not ok - clang-format is missing (package clang-format; contrib/setup-slurm.sh installs it)"
  failed=$((failed + 1))
else
  # A tree without its git history (a `git archive` copy, as contrib/fresh-check.sh makes):
  # no file list to check. Said, never counted as passed.
  echo "ok # SKIP style: $top is not a git work tree"
fi

# Sanitizers and fuzzing (docs/testing.md): the unit tests again under ASan+UBSan (build-asan/,
# from scratch in CI), then every fuzz target for FUZZ_SECONDS (15) on its fixture seeds.
# Its "N passed, N failed" line adds to ours; a sanitizer report or fuzzer crash fails.
# With the lab tests it runs beside them, at nice 19: it is compiling nearly all the time
# and the lab tests nearly all waiting on Slurm, so the two overlap instead of adding up
# (about 15 minutes of a 2-core CI run). Its output is shown where it ends (below).
sanitizers_log=$log_dir/sanitizers.log
run_sanitizers() {
  FUZZ_SKIP=${FUZZ_SKIP-} FUZZ_SECONDS=${FUZZ_SECONDS:-15} "$top/contrib/run-sanitizers.sh" > "$sanitizers_log" 2>&1
}
# count_sanitizers RC: adds the sanitizer run's counts to ours.
count_sanitizers() {
  local s_rc=$1
  if [[ $(tail -n 1 "$sanitizers_log") =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    [ "$s_rc" -ne 0 ] && [ "${BASH_REMATCH[2]}" -eq 0 ] && failed=$((failed + 1))
  else
    echo "not ok - contrib/run-sanitizers.sh exited $s_rc without a count"; failed=$((failed + 1))
  fi
}
# Interrupted (Ctrl-C, a CI timeout): the background work goes too, make and compilers with
# it, rather than building on beside the next run, and so does the test running then (its own
# exit trap takes its lab down). A tree is listed first and killed parents first, so that no
# make starts a compiler between the two.
tree_of() {
  local child
  echo "$1"
  for child in $(pgrep -P "$1" 2> /dev/null); do tree_of "$child"; done
}
stop_background() {
  local pid
  for pid in ${test_pid:-} ${sanitizers_pid:-} ${prebuild_pid:-}; do
    # shellcheck disable=SC2046 # one pid per word
    kill $(tree_of "$pid") 2> /dev/null || true
  done
}
interrupted() {
  echo "run-tests: interrupted ($1): stopping the background builds and the running test" >&2
  stop_background
  exit "$2"
}
trap 'interrupted SIGINT 130' INT
trap 'interrupted SIGTERM 143' TERM
test_pid=
sanitizers_pid=
if [ "$sanitizers" = yes ] && [ "$unit_only" = no ]; then
  echo "== sanitizers: started beside the lab tests (nice 19; log $sanitizers_log)"
  t_san=$SECONDS
  rm -f "$sanitizers_log.rc"
  (renice -n 19 -p "$BASHPID" > /dev/null; run_sanitizers; echo $? > "$sanitizers_log.rc") &
  sanitizers_pid=$!
elif [ "$sanitizers" = yes ]; then
  run_sanitizers
  s_rc=$?
  cat "$sanitizers_log"
  count_sanitizers "$s_rc"
fi

# The further releases' Slurm builds (about 8 minutes each on a fresh 2-core machine) start
# now, beside the default release's lab tests and at nice 19 like the sanitizers: those
# tests mostly wait on Slurm, so the builds overlap them instead of adding to the run.
# Sequential, each into its own prefix; current.env (the default release) is not touched.
# The loop further down waits for them and reads each one's exit status.
# The default release is never rebuilt here: its Slurm runs the lab tests meanwhile.
prebuild_pid=
default_release=$(. "${FABRICFIT_SLURM_ENV:-/opt/fabricfit/slurm/current.env}" 2> /dev/null && echo "${SLURM_VERSION:-}")
if [ -n "$releases" ] && [ "$unit_only" = no ]; then
  echo "== Slurm $releases: builds started beside the lab tests (nice 19, idle I/O; logs $log_dir/setup-*.log)"
  for r in $releases; do rm -f "$log_dir/setup-$r.rc" "$log_dir/build-$r.log"; done
  (
    renice -n 19 -p "$BASHPID" > /dev/null
    ionice -c 3 -p "$BASHPID" 2> /dev/null || true
    for r in $releases; do
      if [ "$r" = "$default_release" ]; then echo 0 > "$log_dir/setup-$r.rc"; continue; fi
      "$top/contrib/setup-slurm.sh" --release "$r" > "$log_dir/setup-$r.log" 2>&1
      echo $? > "$log_dir/setup-$r.rc"
    done
  ) &
  prebuild_pid=$!
fi

# run_test FILE [LABEL]: one integration test script, its TAP lines shown and counted.
run_test() {
  local t=$1 label=${2:-}
  local name; name=$(basename "$t" .sh)
  echo "== $name${label:+ ($label)}"
  local start=$SECONDS log=$log_dir/$name${label:+.$label}.log
  # In the background and waited for: a signal to this script is handled at once (bash runs
  # a trap only after a foreground command ends).
  bash "$t" > "$log" 2>&1 &
  test_pid=$!
  wait "$test_pid"
  local rc=$?
  test_pid=
  grep -E '^(ok|not ok|#|1\.\.0 # SKIP)' "$log" || true
  local t_pass t_fail t_skip
  # A skip (a whole test, or one "ok N # SKIP" line) is shown and counted apart: never as
  # passed. Tests fail, not skip, for a missing tool (need_tool in tests/integration/lib.sh).
  t_skip=$(grep -cE '^(ok [0-9]+ # SKIP|1\.\.0 # SKIP)' "$log" || true)
  t_pass=$(grep '^ok ' "$log" | grep -vc '^ok [0-9]* # SKIP' || true)
  t_fail=$(grep -c '^not ok ' "$log" || true)
  if [ $rc -ne 0 ] && [ "$t_fail" -eq 0 ]; then
    t_fail=1
    echo "not ok - $name exited $rc without reporting a failure"; tail -20 "$log"
  fi
  echo "$name${label:+ ($label)}: $t_pass passed, $t_fail failed$([ "$t_skip" -eq 0 ] || echo ", $t_skip skipped") ($((SECONDS - start)) s)"
  passed=$((passed + t_pass)); failed=$((failed + t_fail))
}

if [ "$unit_only" = no ]; then
  export PATH="$(dirname "$(command -v fabricfit || echo /usr/local/bin/fabricfit)"):$PATH"
  explicit=${#selected[@]}
  if [ ${#selected[@]} -eq 0 ]; then
    # test_debs runs last (below): it needs another release built for its refusal check.
    mapfile -t selected < <(ls "$top"/tests/integration/test_*.sh | grep -v '/test_debs\.sh$' | sort)
  fi
  for t in "${selected[@]}"; do run_test "$t"; done

  # Further releases: the plugins only (the core is release-independent), the symbol test,
  # and the lab tests of the plugins (placement and fallback, restart/reconfigure, the SPANK
  # side and NCCL settings when present), or the tests named on the command line.
  if [ -n "$prebuild_pid" ]; then
    t_wait=$SECONDS
    wait "$prebuild_pid"
    echo "== Slurm $releases: builds waited for $((SECONDS - t_wait)) s after the lab tests"
  fi
  for r in $releases; do
    echo "== Slurm $r: setup, plugins, symbol test"
    start=$SECONDS
    if [ "$(cat "$log_dir/setup-$r.rc" 2> /dev/null)" = 0 ] &&
       "$top/contrib/build.sh" --no-setup --slurm "$r" --plugins-only > "$log_dir/build-$r.log" 2>&1; then
      grep -E '^(ok|not ok)' "$log_dir/build-$r.log" || true
      passed=$((passed + $(grep -c '^ok ' "$log_dir/build-$r.log" || true)))
      failed=$((failed + $(grep -c '^not ok ' "$log_dir/build-$r.log" || true)))
    else
      echo "not ok - Slurm $r: setup or plugin build failed"
      # The build log is missing when the setup failed; tail's -20 form takes one file only.
      for f in "$log_dir/setup-$r.log" "$log_dir/build-$r.log"; do
        [ -f "$f" ] && tail -n 20 "$f"
      done
      grep -E '^not ok' "$log_dir/build-$r.log" 2> /dev/null || true
      failed=$((failed + 1))
      continue
    fi
    echo "Slurm $r: setup and plugins $((SECONDS - start)) s"
    if [ "$explicit" -gt 0 ]; then
      rel_tests=("${selected[@]}")
    else
      # Placement, fallback, restart/reconfigure and NCCL settings (issue 10): the lab tests
      # whose code paths differ per release; the rest runs once, on the default release.
      rel_tests=()
      # test_doc_commands: the guide's commands, whose field names and arguments differ per
      # release (issue 31). test_report_html: the report reads each release's JSON output
      # (array ids, records). test_plugin_domains: the plugin reads --segment from each
      # release's job details (issue 30); test_topology_switch: block reads back the job
      # data fabricfit saved (25.11+).
      for t in test_placement_lab test_health_placement test_plugin_slice test_plugin_restart test_nccl_env test_placement_record test_accounting test_plugin_shapes test_plugin_domains test_topology_switch test_doc_commands test_report_html; do
        [ -f "$top/tests/integration/$t.sh" ] && rel_tests+=("$top/tests/integration/$t.sh")
      done
      # get_rank exists from 26.05 on: the task order of fabricfit's decision.
      case "$r" in 26.05.*) rel_tests+=("$top/tests/integration/test_get_rank.sh") ;; esac
    fi
    for t in "${rel_tests[@]}"; do FABRICFIT_SLURM_VERSION=$r run_test "$t" "slurm-$r"; done
    echo "Slurm $r: $((SECONDS - start)) s in all"
  done

  # The Debian packages for the default release (docs/packages.md): built, installed on a
  # fresh root and here, the placement test on them; the plugins' refusal of another
  # release's prefix uses one built above. Leaves the build's installed plugins in place.
  if [ "$explicit" -eq 0 ] && [ -f "$top/tests/integration/test_debs.sh" ]; then
    run_test "$top/tests/integration/test_debs.sh"
  fi
fi

if [ -n "$sanitizers_pid" ]; then
  echo "== sanitizers (ran beside the lab tests)"
  wait "$sanitizers_pid"
  cat "$sanitizers_log"
  count_sanitizers "$(cat "$sanitizers_log.rc" 2> /dev/null || echo 1)"
  echo "sanitizers: finished $((SECONDS - t_san)) s after they started"
fi

echo "total time: $SECONDS s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
