#!/usr/bin/env bash
# Issue 11's targets: fabricfit (with its adaptive locality wait) against Slurm's
# topology/tree best fit, with tree-switches (Slurm's --switches=1@T on every multi-host
# job one leaf group could hold) at its best T beside it, on the judging fabrics
#   a: healthy 1:1        b2/b3: 2:1 and 3:1 at the leaves     c: 1 leaf group in 10 with
#   half its uplinks at half rate    d: 8 rails, rail 3's uplinks at half rate on every
#   group (d0: the same fabric healthy)    e: three-tier, 2:1 at the core
# over the shared traces (ElasticFlow cluster04 and cluster06, Kalos, Alibaba openb), each
# with 5 seeds. Run times come from the run-time model (docs/placement.md): a trace job's
# duration is its run time in one leaf group with no contention.
#   bench/replay_targets.sh [FABRICFIT_BINARY] [OUT] [--update-docs]
# Writes OUT/*.json (every replay), OUT/targets.md (the tables) and, with --update-docs,
# replaces the block between the replay-targets markers in docs/placement.md.
#   CASE=stress bench/replay_targets.sh [FABRICFIT_BINARY] [OUT] [--update-docs]
# is the stress case (phases aligned, static routes, half the multi-host jobs all-to-all, on
# cluster04 and Kalos) and its block, between the replay-targets-stress markers.
# Environment: TRACES (default /work/shared/traces), SEEDS (5), WAIT_CAP (fabricfit's cap,
# 28800 s), SWITCH_WAITS (tree-switches' T values, "1800 3600 7200 14400 28800"), DEMAND (time-averaged),
# ROUTING (ecmp), RULE (--pattern-rule, default multi=ring), OVERESTIMATE (time limit =
# duration x this, 1.5), LIMITS (exact or typed: --limits), ESTIMATE (the wait's run time:
# limit or history, --estimate), FABRICS (default "a b2 b3 c d0 d e"), ONLY (space-separated trace
# names to run, default all).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
case ${CASE:-default} in
  default) mark=replay-targets heading="### " command="bench/replay_targets.sh" default_out=replay-results ;;
  stress)
    mark=replay-targets-stress heading="#### Stress case: " command="CASE=stress bench/replay_targets.sh"
    default_out=replay-results-stress
    : "${ONLY:=cluster04 kalos}" "${DEMAND:=peak}" "${ROUTING:=static}" "${RULE:=multi=ring,alltoall=0.5}"
    ;;
  *) echo "replay_targets: CASE is default or stress, not '$CASE'" >&2; exit 2 ;;
esac
ff=${1:-${FABRICFIT:-$top/build/fabricfit}}
out=${2:-$default_out}
update_docs=${3:-}
traces=${TRACES:-/work/shared/traces}
seeds=${SEEDS:-5}
wait_cap=${WAIT_CAP:-28800}
switch_waits=${SWITCH_WAITS:-"1800 3600 7200 14400 28800"}
demand=${DEMAND:-time-averaged}
routing=${ROUTING:-ecmp}
rule=${RULE:-multi=ring}
overestimate=${OVERESTIMATE:-1.5}
limits=${LIMITS:-exact}
estimate=${ESTIMATE:-limit}
fabric_set=${FABRICS:-"a b2 b3 c d0 d e"}
only=${ONLY:-"cluster04 cluster06 kalos openb"}
mkdir -p "$out"
[ -x "$ff" ] || { echo "replay_targets: no fabricfit at $ff (give the binary as the first argument)" >&2; exit 1; }
started=$(date +%s)

# fabric NAME LEAVES HOSTS_PER_LEAF [generate options...]: a net file and its snapshot.
fabric() {
  local name=$1 leaves=$2 hosts=$3
  shift 3
  [ -s "$out/$name.snap" ] && return 0
  "$ff" generate --leaves "$leaves" --hosts-per-leaf "$hosts" "$@" -o "$out/$name.net"
  "$ff" discover --from "$out/$name.net" -o "$out/$name.snap" -q
}
# fabrics PREFIX LEAVES HOSTS RAIL_SPINES: the judging set for one cluster size (two-tier: 2
# spines, so that 3:1 is possible with 8-host leaves: 8/3 rounds to 3 uplinks, 2.67:1; the
# 8-rail fabrics need RAIL_SPINES spines of 128 ports).
fabrics() {
  local p=$1 l=$2 h=$3 rs=$4
  fabric "$p-a" "$l" "$h" --spines 2 --switch-ports 128
  fabric "$p-b2" "$l" "$h" --spines 2 --switch-ports 128 --oversubscription 2
  fabric "$p-b3" "$l" "$h" --spines 2 --switch-ports 128 --oversubscription 3
  fabric "$p-c" "$l" "$h" --spines 2 --switch-ports 128 --degrade groups=3,fraction=0.5,rate=4xEDR
  fabric "$p-d0" "$l" "$h" --spines "$rs" --rails 8 --switch-ports 128
  fabric "$p-d" "$l" "$h" --spines "$rs" --rails 8 --switch-ports 128 --degrade rail=3,rate=4xEDR
  fabric "$p-e" "$((l / 2))" "$h" --pods 2 --spines 4 --switch-ports 128 --core-oversubscription 2
}
fabrics c80 10 8 8     # 80 hosts of 8 GPUs: ElasticFlow, openb
fabrics k160 10 16 16  # 160 hosts: Kalos needs 128 hosts for its largest jobs

# replay NAME SNAPSHOT TRACE FORMAT [replay options...]
replay() {
  local name=$1 snap=$2 trace=$3 format=$4
  shift 4
  "$ff" replay "$out/$snap.snap" --trace "$trace" --format "$format" --seeds "$seeds" \
    --demand "$demand" --routing "$routing" --pattern-rule "$rule" --overestimate "$overestimate" \
    --limits "$limits" --estimate "$estimate" "$@" \
    --json > "$out/$name.json"
}

run_trace() {  # NAME PREFIX TRACE FORMAT [replay options...]
  local name=$1 prefix=$2 trace=$3 format=$4
  shift 4
  for f in $fabric_set; do
    replay "$name-$f-main" "$prefix-$f" "$trace" "$format" --policies fabricfit,tree --wait-cap "$wait_cap" "$@" &
    for t in $switch_waits; do
      replay "$name-$f-sw$t" "$prefix-$f" "$trace" "$format" --policies tree-switches --locality-wait "$t" "$@"
    done
    wait
  done
}

for t in $only; do
  case $t in
    cluster04) run_trace cluster04 c80 "$traces/elasticflow-itp-2021/cluster04.csv" elasticflow ;;
    cluster06) run_trace cluster06 c80 "$traces/elasticflow-itp-2021/cluster06.csv" elasticflow --target-load 0.8 ;;
    kalos) run_trace kalos k160 "$traces/acme-kalos-2023-excerpt/converted_kalos_trace.csv" kalos --target-load 0.8 ;;
    openb) run_trace openb c80 "$traces/alibaba-openb-2023/openb_pod_list_default.csv" openb --target-load 0.8 ;;
  esac
done
elapsed=$(($(date +%s) - started))
limit_text=$overestimate
[ "$limits" != typed ] || limit_text="$overestimate rounded up to a typed value"

REPLAY_HEADING=$heading REPLAY_COMMAND=$command python3 "$top/bench/replay_targets_summary.py" "$out" "$elapsed" "$seeds" "$wait_cap" "$switch_waits" "$demand" "$routing" "$rule" "$limit_text" "$estimate" $only > "$out/targets.md"
cat "$out/targets.md"
if [ "$update_docs" = "--update-docs" ]; then
  python3 "$top/bench/doc_block.py" "$top/docs/placement.md" "$out/targets.md" "$mark"
fi
