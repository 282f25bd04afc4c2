#!/usr/bin/env bash
# Scheduler cost of topology/fabricfit against topology/tree on the same lab: a queue of
# JOBS pending GPU jobs of mixed shapes (default 2,000) on 32 nodes, then sdiag's main and
# backfill cycle times. Prints a Markdown table row per plugin and the ratio; used for
# docs/performance.md. Slow (minutes): run by tests/nightly/run-nightly.sh, not by CI.
#
#   tests/nightly/measure_sdiag.sh [JOBS] [SETTLE_SECS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"

jobs=${1:-2000}
settle=${2:-90}
make_tmpdir ff-sdiag
printf 'DefMemPerGPU=400\nSchedulerParameters=batch_sched_delay=0,bf_interval=5,sched_interval=10\n' \
  > "$TEST_TMPDIR/extra.conf"

# sdiag_field LABEL SECTION: the value after LABEL in SECTION ("Main schedule statistics"
# or "Backfilling stats").
sdiag_field() {
  sdiag | awk -v sec="$2" -v lab="$1" '
    index($0, sec) { in_sec = 1; next }
    in_sec && /^[A-Z][a-z].*:$/ && !index($0, sec) { in_sec = 0 }
    in_sec && index($0, lab) { sub(/.*: */, ""); print $1; exit }'
}

measure() {
  local topo=$1 lab=$TEST_TMPDIR/$1 port i
  port=$(pick_ports 32)
  lab_up "$lab" --nodes 32 --leaves 4 --topology "$topo" --ctld-port "$port" \
    --slurmd-port $((port + 1)) --slurm-conf-extra "$TEST_TMPDIR/extra.conf" || return 1
  # Fill the cluster with long jobs, then queue the rest behind them (mixed shapes).
  for i in $(seq 1 "$jobs"); do
    case $((i % 4)) in
      0) echo "-N 2 --gpus-per-node=8" ;;
      1) echo "-N 1 --gpus-per-node=4" ;;
      2) echo "--gpus=16" ;;
      3) echo "-N 4 --gpus-per-node=8" ;;
    esac
  done | xargs -P 4 -I{} sh -c 'sbatch --parsable -t 30 -o /dev/null {} --wrap "sleep 600" > /dev/null 2>&1'
  local queued
  queued=$(squeue -h | wc -l)
  sdiag -r > /dev/null
  sleep "$settle"
  printf '| %s | %s | %s | %s | %s | %s |\n' "topology/$topo" "$queued" \
    "$(sdiag_field 'Mean cycle:' 'Main schedule statistics')" \
    "$(sdiag_field 'Max cycle:' 'Main schedule statistics')" \
    "$(sdiag_field 'Mean cycle:' 'Backfilling stats')" \
    "$(sdiag_field 'Max cycle:' 'Backfilling stats')" | tee -a "$TEST_TMPDIR/rows"
  lab_down "$lab" > /dev/null 2>&1
}

echo "| plugin | jobs queued | main mean (us) | main max (us) | backfill mean (us) | backfill max (us) |"
echo "|---|---|---|---|---|---|"
measure tree || fail "tree lab"
measure fabricfit || fail "fabricfit lab"
awk -F'|' 'NR == 1 { m = $4; b = $6 } NR == 2 { printf "ratio fabricfit/tree: main %.2f backfill %.2f\n", ($4 + 0) / (m ? m : 1), ($6 + 0) / (b ? b : 1) }' "$TEST_TMPDIR/rows"
ok "measured"
done_testing
