#!/usr/bin/env bash
# The slow lab tests that do not fit the CI budget, run nightly (or before a release):
# the 2,000-job burst, the fabric fault (cable pull and rediscovery), and the sdiag cycle
# time of topology/fabricfit against topology/tree. Writes each one's TAP output and a
# summary to DIR (default /var/tmp/fabricfit-nightly-<date>); docs/performance.md records
# the last run's figures.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/var/tmp/fabricfit-nightly-$(date +%Y%m%d-%H%M)}
mkdir -p "$out"
rc=0
for t in test_burst_2000.sh test_fabric_fault.sh measure_sdiag.sh; do
  start=$(date +%s)
  if bash "$here/$t" > "$out/${t%.sh}.tap" 2>&1; then res=pass; else res=FAIL; rc=1; fi
  printf '%-22s %s %4ss\n' "$t" "$res" "$(( $(date +%s) - start ))" | tee -a "$out/summary"
done
exit "$rc"
