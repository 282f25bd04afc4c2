#!/usr/bin/env bash
# Issue 30 item 5: fabricfit against Slurm's topology/block (the `block` policy, 26.05
# rules) and topology/tree on a fabric of NVLink domains, on the shared traces. The fabric:
# 10 leaf groups of 18 hosts of 8 GPUs (4 spines), two NVLink domains of 9 hosts (72 GPUs,
# NVL72-sized) under each leaf group; 1:1, 2:1 and degraded. The run-time
# model charges the NVLink cliff (docs/placement.md, "Run-time model": a job one domain
# holds, spread over several, communicates 36x slower). Beside completion time, block's own
# objective: the domains wholly free and the half-domain jobs the free hosts held, over time.
#   bench/replay_domains.sh [FABRICFIT_BINARY] [OUT] [--update-docs]
# Writes OUT/*.json and OUT/domains.md; --update-docs replaces the block between the
# replay-domains markers in docs/placement.md. Environment: TRACES (/work/shared/traces),
# SEEDS (20), LOAD (target load, 0.8).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ff=${1:-${FABRICFIT:-$top/build/fabricfit}}
out=${2:-replay-domains}
update_docs=${3:-}
traces=${TRACES:-/work/shared/traces}
seeds=${SEEDS:-20}
load=${LOAD:-0.8}
[ -x "$ff" ] || { echo "replay_domains: no fabricfit at $ff (give the binary as the first argument)" >&2; exit 1; }
mkdir -p "$out"
started=$(date +%s)

# The same racks under three fabrics: 1:1; 2:1 (9 uplinks per leaf of 18 hosts); and 1:1
# with half the uplinks of leaf groups 1-5 at half rate (4xEDR against 4xHDR), a degraded
# fabric. The second and third are where the issue's target (multi-domain jobs <= 0.9x
# block's) is set.
gen=(--leaves 10 --hosts-per-leaf 18 --spines 4 --switch-ports 128 --nvl-domain-size 9)
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
fabric() { domain_fabric "$ff" "$out" "$1" "${gen[@]}" "${@:2}"; }  # NAME EXTRA-GENERATE-ARGS...
fabric nvl
fabric nvl-2to1 --oversubscription 2
fabric nvl-degraded --degrade groups=1-5,fraction=0.5,rate=4xEDR

run() {  # NAME FABRIC TRACE FORMAT [REPLAY-ARGS...]
  local name=$1 fab=$2 trace=$3 format=$4; shift 4
  "$ff" replay "$out/$fab.snap" --trace "$trace" --format "$format" --policies fabricfit,block,tree \
    --seeds "$seeds" --target-load "$load" "$@" --json > "$out/$name.json"
}
kalos=$traces/acme-kalos-2023-excerpt/converted_kalos_trace.csv
# Ring all-reduce (the replay's default rule) on the 1:1 fabric, every trace.
run cluster04 nvl "$traces/elasticflow-itp-2021/cluster04.csv" elasticflow
run cluster06 nvl "$traces/elasticflow-itp-2021/cluster06.csv" elasticflow
run kalos nvl "$kalos" kalos
run openb nvl "$traces/alibaba-openb-2023/openb_pod_list_default.csv" openb
# A ring crosses each leaf-group boundary with one flow, which no uplink bundle of 9 or 18
# cables notices: on 2:1 and degraded fabrics ring jobs replay exactly as on 1:1. Uplinks
# bind for all-to-all (expert parallel) traffic: a quarter of the jobs of 4 hosts or more,
# at peak demand. Kalos only: the ElasticFlow traces' multi-host jobs all fit one domain,
# whose traffic never reaches the InfiniBand fabric, and openb's are all one host.
a2a=(--pattern-rule multi=ring,alltoall=0.25,alltoall_min_nodes=4 --demand peak)
run kalos-a2a nvl "$kalos" kalos "${a2a[@]}"
run kalos-a2a-2to1 nvl-2to1 "$kalos" kalos "${a2a[@]}"
run kalos-a2a-degraded nvl-degraded "$kalos" kalos "${a2a[@]}"
# The same with segments, as a site on block tells its users to ask for jobs that span
# domains: every job wider than a domain whose node count 8 divides (167 of Kalos's 183)
# asks --segment=8, every 8 of its nodes inside one domain (fabricfit and block honour it,
# tree ignores it).
run kalos-a2a-seg8 nvl "$kalos" kalos "${a2a[@]}" --segment 8
run kalos-a2a-2to1-seg8 nvl-2to1 "$kalos" kalos "${a2a[@]}" --segment 8
run kalos-a2a-degraded-seg8 nvl-degraded "$kalos" kalos "${a2a[@]}" --segment 8
# Link faults on the 2:1 domain fabric (`--faults stress`: 1,000x Llama 3's cable and switch
# failure rate, the same episodes for every policy of a seed; docs/placement.md, "Faults"):
# fabricfit keeps off what its sweeps saw, block and tree are blind to it.
run kalos-a2a-2to1-faults nvl-2to1 "$kalos" kalos "${a2a[@]}" --faults stress

# The same against block with Slurm's backfill reservations in the queue (the first job that
# cannot start holds the hosts it will get; the runs above skip it and let later jobs pass):
# whether the comparison stands when the queue works as Slurm's does. fabricfit and block only.
reserve() {  # NAME FABRIC TRACE FORMAT [REPLAY-ARGS...]
  local name=$1 fab=$2 trace=$3 format=$4; shift 4
  "$ff" replay "$out/$fab.snap" --trace "$trace" --format "$format" --policies fabricfit,block \
    --seeds "$seeds" --target-load "$load" --backfill reserve "$@" --json > "$out/$name-reserve.json"
}
reserve cluster04 nvl "$traces/elasticflow-itp-2021/cluster04.csv" elasticflow
reserve cluster06 nvl "$traces/elasticflow-itp-2021/cluster06.csv" elasticflow
reserve kalos-a2a-2to1 nvl-2to1 "$kalos" kalos "${a2a[@]}"
reserve kalos-a2a-degraded nvl-degraded "$kalos" kalos "${a2a[@]}"
reserve kalos-a2a-2to1-seg8 nvl-2to1 "$kalos" kalos "${a2a[@]}" --segment 8
reserve kalos-a2a-degraded-seg8 nvl-degraded "$kalos" kalos "${a2a[@]}" --segment 8

python3 "$top/bench/replay_domains_summary.py" "$out" "$(($(date +%s) - started))" "$seeds" "$load" > "$out/domains.md"
cat "$out/domains.md"
if [ "$update_docs" = "--update-docs" ]; then
  python3 "$top/bench/doc_block.py" "$top/docs/placement.md" "$out/domains.md" replay-domains
fi
