#!/usr/bin/env bash
# Replays the public traces through fabricfit and the baselines on generated 2-tier
# fabrics sized for about 80 % offered load (issue 4, target 7), and sweeps the locality
# wait to show the frontier. Results (text, JSON, SVG) go to OUT (default ./replay-results).
#   bench/replay_targets.sh [FABRICFIT_BINARY] [OUT]
# Needs: the fabricfit command (generate, discover, replay) and python3 for the summary.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ff=${1:-${FABRICFIT:-$top/build/fabricfit}}
out=${2:-replay-results}
traces=${TRACES:-/work/shared/traces}
mkdir -p "$out"
[ -x "$ff" ] || { echo "replay_targets: no fabricfit at $ff (give the binary as the first argument)" >&2; exit 1; }

ef=$traces/elasticflow-itp-2021/cluster04.csv
kalos=$traces/acme-kalos-2023-excerpt/converted_kalos_trace.csv
wait_8h=28800

# fabric NAME LEAVES HOSTS_PER_LEAF: generate an ibnetdiscover file, discover it into a snapshot.
fabric() {
  "$ff" generate --leaves "$2" --hosts-per-leaf "$3" --spines 4 -o "$out/$1.net"
  "$ff" discover --from "$out/$1.net" -o "$out/$1.snap" -q
}
# ElasticFlow cluster04 offers ~494 GPUs of load on average: 80 hosts of 8 GPUs is 77 %.
fabric ef80x8 10 8
fabric ef80x16 5 16
# The Kalos excerpt needs 128 hosts for its largest jobs but offers only ~211 GPUs of load:
# 160 hosts, arrivals compressed to 80 % load (--target-load).
fabric kalos160x8 20 8
fabric kalos160x16 10 16

run() {  # NAME SNAPSHOT TRACE FORMAT [extra replay args...]
  local name=$1 snap=$2 trace=$3 format=$4
  shift 4
  "$ff" replay "$out/$snap.snap" --trace "$trace" --format "$format" \
    --policies fabricfit,tree,tree-switches,firstfit "$@" --svg "$out/$name.svg" > "$out/$name.txt"
  "$ff" replay "$out/$snap.snap" --trace "$trace" --format "$format" \
    --policies fabricfit,tree,tree-switches,firstfit "$@" --json > "$out/$name.json"
  echo "== $name"; sed -n '/^policy/,$p' "$out/$name.txt"
}

for snap in ef80x8 ef80x16; do
  run "$snap-nowait" "$snap" "$ef" elasticflow
  run "$snap-wait8h" "$snap" "$ef" elasticflow --locality-wait "$wait_8h"
done
for snap in kalos160x8 kalos160x16; do
  run "$snap-nowait" "$snap" "$kalos" kalos --target-load 0.8
  run "$snap-wait8h" "$snap" "$kalos" kalos --target-load 0.8 --locality-wait "$wait_8h"
  run "$snap-moe-wait8h" "$snap" "$kalos" kalos --target-load 0.8 --locality-wait "$wait_8h" \
    --pattern-rule multi=ring,alltoall=0.25,alltoall_min_nodes=4
done

# The frontier: what the locality wait buys (split, cross-spine) and costs (waits of the
# multi-host jobs), for fabricfit and for tree with Slurm's --switches, against plain tree.
for snap in ef80x8 ef80x16; do
  for w in 0 3600 14400 28800 86400; do
    "$ff" replay "$out/$snap.snap" --trace "$ef" --format elasticflow --policies fabricfit,tree,tree-switches \
      --locality-wait "$w" --json > "$out/frontier-$snap-$w.json"
  done
done
python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
print("\nfrontier (ratios to tree; wait = locality wait in s)")
print(f"{'fabric':10} {'policy':14} {'wait':>6} {'spine':>6} {'split':>6} {'frag':>6} {'wait_mean':>9} {'wait_multi':>10}")
def key(p):
    b = os.path.basename(p)[:-5].split('-')
    return (b[1], int(b[2]))
for path in sorted(glob.glob(f"{out}/frontier-*.json"), key=key):
    d = json.load(open(path))
    r = {x['policy']: x for x in d['results']}
    t = r['tree']
    q = lambda a, b: a / b if b else float('nan')
    for p in ('fabricfit', 'tree-switches'):
        x = r[p]
        print(f"{key(path)[0]:10} {p:14} {int(d['locality_wait_s']):>6} {q(x['cross_spine_bytes'], t['cross_spine_bytes']):6.2f} "
              f"{q(x['split_share'], t['split_share']):6.2f} {q(x['frag_mean'], t['frag_mean']):6.3f} "
              f"{q(x['wait_mean_s'], t['wait_mean_s']):9.3f} {q(x['wait_mean_multi_s'], t['wait_mean_multi_s']):10.2f}")
PY
