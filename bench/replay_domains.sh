#!/usr/bin/env bash
# Issue 30 item 5, a first measurement: fabricfit against Slurm's topology/block (the
# `block` policy, 26.05 rules) and topology/tree on a fabric of NVLink domains, on the
# shared traces. The fabric: 10 leaf groups of 18 hosts of 8 GPUs (1:1, 4 spines), two
# NVLink domains of 9 hosts (72 GPUs, NVL72-sized) under each leaf group. The run-time
# model charges the NVLink cliff (docs/placement.md, "Run-time model": a job one domain
# holds, spread over several, communicates 36x slower). Beside completion time, block's own
# objective: the domains wholly free and the half-domain jobs the free hosts held, over time.
#   bench/replay_domains.sh [FABRICFIT_BINARY] [OUT] [--update-docs]
# Writes OUT/*.json and OUT/domains.md; --update-docs replaces the block between the
# replay-domains markers in docs/placement.md. Environment: TRACES (/work/shared/traces),
# SEEDS (5), LOAD (target load, 0.8).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ff=${1:-${FABRICFIT:-$top/build/fabricfit}}
out=${2:-replay-domains}
update_docs=${3:-}
traces=${TRACES:-/work/shared/traces}
seeds=${SEEDS:-5}
load=${LOAD:-0.8}
[ -x "$ff" ] || { echo "replay_domains: no fabricfit at $ff (give the binary as the first argument)" >&2; exit 1; }
mkdir -p "$out"
started=$(date +%s)

"$ff" generate --leaves 10 --hosts-per-leaf 18 --spines 4 --switch-ports 128 --nvl-domain-size 9 \
  --blocks-output "$out/blocks.conf" -o "$out/nvl.net" > /dev/null
"$ff" discover --from "$out/nvl.net" --blocks "$out/blocks.conf" -o "$out/nvl.snap" -q

run() {  # NAME TRACE FORMAT
  "$ff" replay "$out/nvl.snap" --trace "$2" --format "$3" --policies fabricfit,block,tree \
    --seeds "$seeds" --target-load "$load" --json > "$out/$1.json"
}
run cluster04 "$traces/elasticflow-itp-2021/cluster04.csv" elasticflow
run cluster06 "$traces/elasticflow-itp-2021/cluster06.csv" elasticflow
run kalos "$traces/acme-kalos-2023-excerpt/converted_kalos_trace.csv" kalos
run openb "$traces/alibaba-openb-2023/openb_pod_list_default.csv" openb

python3 - "$out" "$(($(date +%s) - started))" "$seeds" "$load" > "$out/domains.md" <<'EOF'
import json, sys
out, elapsed, seeds, load = sys.argv[1:5]
def mean(x):
    return x["mean"] if isinstance(x, dict) else x
print(f"`bench/replay_domains.sh` ({seeds} seeds, target load {load}, {elapsed} s): 10 leaf groups "
      "of 18 hosts of 8 GPUs, 1:1, two NVLink domains of 9 hosts (72 GPUs) under each.\n")
print("| trace | policy | mean JCT (s) | x block | x tree | GPU-hours x block | p95 wait (s) "
      "| jobs a domain holds, spread | idle while a job fits (GPU-h) | whole free domains | half-domain jobs held |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name in ["cluster04", "cluster06", "kalos", "openb"]:
    d = json.load(open(f"{out}/{name}.json"))
    by = {r["policy"]: r for r in d["results"]}
    jct = {p: mean(r["classes"]["all"]["jct_mean_s"]) for p, r in by.items()}
    gh = {p: mean(r["classes"]["all"]["gpu_hours"]) for p, r in by.items()}
    for p, r in by.items():
        print(f"| {name} | {p} | {jct[p]:.0f} | {jct[p] / jct['block']:.3f} | {jct[p] / jct['tree']:.3f} "
              f"| {gh[p] / gh['block']:.3f} | {mean(r['classes']['all']['wait_p95_s']):.0f} "
              f"| {100 * mean(r['domain_split_share']):.1f} % | {mean(r['idle_while_fit_gpu_hours']):.0f} "
              f"| {mean(r['diagnostics']['domain_whole_free_mean']):.2f} "
              f"| {mean(r['diagnostics']['domain_half_jobs_mean']):.2f} |")
EOF
cat "$out/domains.md"
if [ "$update_docs" = "--update-docs" ]; then
  python3 "$top/bench/doc_block.py" "$top/docs/placement.md" "$out/domains.md" replay-domains
fi
