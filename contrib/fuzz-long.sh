#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One long libFuzzer run of one parser, for the executions table in docs/testing.md:
#   contrib/fuzz-long.sh NAME [RUNS] [SECONDS]      e.g. contrib/fuzz-long.sh snapshot
# Runs fuzz_NAME (built in the sanitizer build, FABRICFIT_ASAN_BUILD, default build-asan;
# contrib/run-sanitizers.sh configures it) for RUNS executions (10,000,000) or SECONDS
# (14400), at nice 19 with one worker, from the fixture seeds plus what earlier long runs
# grew, in OUT/NAME (FUZZ_LONG_DIR, default fuzz-long/ in the build). Prints one summary
# line: executions, exec/s, CPU seconds, corpus, crashes; exits 1 if libFuzzer found one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: fuzz-long.sh NAME [RUNS] [SECONDS]}
runs=${2:-10000000}
secs=${3:-14400}
build=${FABRICFIT_ASAN_BUILD:-$top/build-asan}
out=${FUZZ_LONG_DIR:-$build/fuzz-long}/$name
[ -f "$build/Makefile" ] || { echo "fuzz-long: no sanitizer build in $build (contrib/run-sanitizers.sh --unit-only makes one)" >&2; exit 2; }
case $name in comm_pattern) len=256 ;; snapshot|ibnd_cache) len=8192 ;; *) len=4096 ;; esac

make -s -C "$build" "fuzz_$name" "fuzz-seed-$name" > /dev/null
# The target's own options (FUZZ_OPTS_NAME in Makefile.am, e.g. ibnd_cache's -detect_leaks=0).
read -r -a opts <<< "$(make -s -C "$build" "print-fuzz-opts-$name")"
[ -f "$top/tests/fuzz/$name.dict" ] && opts+=(-dict="$top/tests/fuzz/$name.dict")
mkdir -p "$out/corpus" "$out/artifacts"
cp -n "$build/fuzz-corpus-$name"/* "$out/corpus/"
cp "$build/fuzz_$name" "$out/fuzz_$name"   # a frozen copy: a rebuild does not touch the run
cd "$out"
date -u +%FT%TZ > start
rc=0
/usr/bin/time -o cputime -f "%U %S %e" nice -n 19 "./fuzz_$name" -runs="$runs" -max_total_time="$secs" \
  -max_len="$len" -print_final_stats=1 -artifact_prefix=artifacts/ "${opts[@]}" corpus > log 2>&1 || rc=$?
date -u +%FT%TZ > end
execs=$(grep -o 'number_of_executed_units: *[0-9]*' log | grep -o '[0-9]*$' || echo 0)
rate=$(grep -o 'average_exec_per_sec: *[0-9]*' log | grep -o '[0-9]*$' || echo 0)
# time(1) writes "Command exited with non-zero status N" first when the run fails.
read -r user sys wall < <(tail -n 1 cputime) || true
corpus=$(grep -oE 'corp: [0-9]+/[0-9]+(b|Kb|Mb)' log | tail -n 1 | cut -d' ' -f2)
crashes=$(find artifacts -type f ! -name 'slow-unit-*' | wc -l)
echo "fuzz_$name: $execs executions, $rate exec/s, CPU ${user:-?}+${sys:-?} s, wall ${wall:-?} s, corpus $corpus, crashes $crashes, rc $rc ($(cat start)..$(cat end))"
[ "$crashes" -eq 0 ] && [ "$rc" -eq 0 ]
