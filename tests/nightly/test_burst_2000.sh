#!/usr/bin/env bash
# Load: a burst of JOBS (default 2,000) GPU jobs of mixed shapes submitted at once to a
# 32-node lab under topology/fabricfit. slurmctld must not crash, and every job sbatch
# accepted must be accounted for: it completed, or is still known to the controller.
# Slow (minutes): tests/nightly/run-nightly.sh runs it, not CI.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"

jobs=${1:-2000}
make_tmpdir ff-burst
lab=$TEST_TMPDIR/lab
port=$(pick_ports 32)
printf 'DefMemPerGPU=400\nMinJobAge=3600\nMaxJobCount=20000\n' > "$TEST_TMPDIR/extra.conf"
if ! lab_up "$lab" --nodes 32 --leaves 4 --ctld-port "$port" --slurmd-port $((port + 1)) \
     --slurm-conf-extra "$TEST_TMPDIR/extra.conf"; then
  fail "lab up"
  done_testing
fi
ctld=$(cat "$lab/run/slurmctld.pid")
t0=$(date +%s)
for i in $(seq 1 "$jobs"); do
  case $((i % 5)) in
    0) echo "-N 2 --gpus-per-node=8" ;;
    1) echo "-N 1 --gpus-per-node=2" ;;
    2) echo "--gpus=16" ;;
    3) echo "-N 4 --gpus-per-node=8 --exclusive" ;;
    4) echo "-n 4 --gpus-per-task=1" ;;
  esac
done | xargs -P 4 -I{} sh -c 'sbatch --parsable -t 1 -o /dev/null {} --wrap true 2>&1' > "$TEST_TMPDIR/ids"
accepted=$(grep -c '^[0-9][0-9]*$' "$TEST_TMPDIR/ids")
refused=$(grep -vc '^[0-9][0-9]*$' "$TEST_TMPDIR/ids")
diag "submitted $jobs in $(( $(date +%s) - t0 ))s: $accepted accepted, $refused refused"
check "sbatch accepted every job of the burst ($accepted of $jobs)" test "$accepted" = "$jobs"
wait_for 1200 bash -c '[ -z "$(squeue -h -t PD,R,CG -o %A | head -1)" ]'
elapsed=$(( $(date +%s) - t0 ))
check "slurmctld did not crash (same pid $ctld)" pid_running "$ctld"
states=$(squeue -h -t all -o '%A %T' | sort -u)
missing=0 completed=0
for id in $(grep '^[0-9][0-9]*$' "$TEST_TMPDIR/ids"); do
  s=$(awk -v id="$id" '$1 == id { print $2; exit }' <<< "$states")
  case $s in COMPLETED) completed=$((completed + 1)) ;; "") missing=$((missing + 1)) ;; esac
done
diag "all done in ${elapsed}s: $completed completed, $missing unknown"
check "every accepted job is accounted for ($missing unknown)" test "$missing" = 0
check "every accepted job completed ($completed of $accepted)" test "$completed" = "$accepted"
placed=$(grep -c 'fabricfit: eval_nodes JobId=[0-9]* .*placement=fabricfit' "$lab/log/slurmctld.log")
diag "placed by fabricfit: $placed; by Slurm: $(grep -c 'fabricfit: eval_nodes JobId=[0-9]* .*placement=slurm' "$lab/log/slurmctld.log")"
check "fabricfit placed jobs throughout ($placed)" test "$placed" -gt $((jobs / 2))
done_testing
