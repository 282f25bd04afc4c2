#!/usr/bin/env bash
# The live health sweep on a 2,048-port fabric in ibsim (issue 29): `fabricfit health
# --sweep` (a discovery, then ClassPortInfo per node and PortCounters, plus
# PortCountersExtended where supported, per port, through umad2sim) against ibqueryerrors,
# which does the same walk with one PortCounters query per port. Prints the median wall
# time of repeated runs of each and their ratio.
#   bench/bench_health_sweep.sh [--runs N]
# Needs ibsim-utils, libumad2sim0, opensm, infiniband-diags and a built tree
# (FABRICFIT_BUILD_DIR, default ./build; or FABRICFIT_BIN).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FABRICFIT_BUILD_DIR:-$top/build}
FABRICFIT=${FABRICFIT_BIN:-$build/fabricfit}
UMAD2SIM=$(dpkg -L libumad2sim0 | grep '/libumad2sim.so$' | head -n1)
runs=5
[ "${1:-}" = --runs ] && runs=$2
[ -x "$FABRICFIT" ] || { echo "missing $FABRICFIT: build first" >&2; exit 1; }

work=$(mktemp -d /tmp/ff-bench-health.XXXXXX)
sim_pid=""
trap '[ -n "$sim_pid" ] && kill "$sim_pid" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"' EXIT
sock=ff-bench-health-$$
# 32 leaves of 16 hosts, 8 spines, 1:1: 512 host cables + 512 uplinks = 2,048 ports.
"$FABRICFIT" generate --leaves 32 --hosts-per-leaf 16 --spines 8 -o "$work/fabric.net"
mkfifo "$work/console"
(cd "$work" && IBSIM_SOCKNAME=$sock exec ibsim -s fabric.net 0<>console > ibsim.log 2>&1) &
sim_pid=$!
for _ in $(seq 100); do grep -q 'sim>' "$work/ibsim.log" 2> /dev/null && break; sleep 0.2; done
attach=$(awk '/^Ca/ && /gpu0001 mlx5_0|gpu001 mlx5_0/ { match($0, /"[^"]+"/); print substr($0, RSTART + 1, RLENGTH - 2); exit }' "$work/fabric.net")
sim() { (cd "$work" && IBSIM_SOCKNAME=$sock SIM_HOST=$attach OSM_TMP_DIR=$work OSM_CACHE_DIR=$work LD_PRELOAD=$UMAD2SIM "$@"); }
sim opensm --once -f "$work/osm.log" -s 0 > /dev/null 2>&1
sim "$FABRICFIT" discover -o "$work/fabric.snapshot" > /dev/null
: > "$work/fabricfit.conf"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ours=() theirs=()
for ((i = 0; i < runs; i++)); do
  ours+=("$(seconds sim "$FABRICFIT" health --sweep --quiet --conf "$work/fabricfit.conf" --snapshot "$work/fabric.snapshot")")
  theirs+=("$(seconds sim ibqueryerrors)")
done
sim "$FABRICFIT" health --conf "$work/fabricfit.conf" --snapshot "$work/fabric.snapshot" --json > "$work/last.json"
ports=$(jq .port_count "$work/last.json")
missed=$(jq '.missed | length' "$work/last.json")
o=$(printf '%s\n' "${ours[@]}" | median)
t=$(printf '%s\n' "${theirs[@]}" | median)
printf '%-6s %-7s %16s %18s %7s\n' ports missed "health --sweep (s)" "ibqueryerrors (s)" ratio
printf '%-6s %-7s %16s %18s %7s\n' "$ports" "$missed" "$o" "$t" "$(echo "scale=2; $o / $t" | bc)"
