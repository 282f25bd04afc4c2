#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is missing
# (packages, Slurm 24.11), builds and installs fabricfit, runs the unit tests
# (GoogleTest, `make check`) and the integration tests (ibsim, a real local Slurm
# cluster), and ends with one line "N passed, N failed".
#   contrib/run-tests.sh [--unit-only] [TEST-SCRIPT...]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FABRICFIT_BUILD_DIR:-$top/build}
unit_only=no
selected=()
for arg in "$@"; do
  case "$arg" in
    --unit-only) unit_only=yes ;;
    *) selected+=("$arg") ;;
  esac
done

"$top/contrib/build.sh" || { echo "0 passed, 1 failed"; exit 1; }

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
[ "$u_status" = fail ] && [ "$u_fail" -eq 0 ] && u_fail=1
echo "unit: $u_pass passed, $u_fail failed (${#u_logs[@]} test programs)"
[ "$u_fail" -gt 0 ] && { cat "${u_logs[@]}" 2>/dev/null | grep -E 'Failure|FAILED' | head -30; tail -20 "$log_dir/unit.log"; }
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
fi

if [ "$unit_only" = no ]; then
  export PATH="$(dirname "$(command -v fabricfit || echo /usr/local/bin/fabricfit)"):$PATH"
  if [ ${#selected[@]} -eq 0 ]; then
    mapfile -t selected < <(ls "$top"/tests/integration/test_*.sh | sort)
  fi
  for t in "${selected[@]}"; do
    name=$(basename "$t" .sh)
    echo "== $name"
    start=$SECONDS
    bash "$t" > "$log_dir/$name.log" 2>&1
    rc=$?
    cat "$log_dir/$name.log" | grep -E '^(ok|not ok|#)' || true
    t_pass=$(grep -c '^ok ' "$log_dir/$name.log" || true)
    t_fail=$(grep -c '^not ok ' "$log_dir/$name.log" || true)
    if [ $rc -ne 0 ] && [ "$t_fail" -eq 0 ]; then
      t_fail=1
      echo "not ok - $name exited $rc without reporting a failure"; tail -20 "$log_dir/$name.log"
    fi
    echo "$name: $t_pass passed, $t_fail failed ($((SECONDS - start)) s)"
    passed=$((passed + t_pass)); failed=$((failed + t_fail))
  done
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
