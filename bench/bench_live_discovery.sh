#!/usr/bin/env bash
# Live discovery: our reader (libibnetdisc, through fabricfit-raw) against ibnetdiscover,
# on the same ibsim subnet, at a few sizes and SMP windows. Prints the median wall time of
# repeated runs of each and their ratio (ours / ibnetdiscover).
#   bench/bench_live_discovery.sh [--runs N] [--hosts "1024 4096 16384"] [--max-smps "0 8 32"]
# --max-smps 0 means libibnetdisc's default (2 SMPs in flight); ibnetdiscover gets the same
# window through -o. Needs ibsim-utils, libumad2sim0, infiniband-diags and a built tree
# (FABRICFIT_BUILD_DIR, default ./build).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FABRICFIT_BUILD_DIR:-$top/build}
RAW=${FABRICFIT_RAW_BIN:-$build/fabricfit-raw}
FABRICFIT=${FABRICFIT_BIN:-$build/fabricfit}
UMAD2SIM=$(dpkg -L libumad2sim0 | grep '/libumad2sim.so$' | head -n1)
runs=5
sizes="1024 4096"
windows="0 8 32"
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --hosts) sizes=$2; shift 2 ;;
    --max-smps) windows=$2; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--hosts \"1024 4096 16384\"] [--max-smps \"0 8 32\"]" >&2; exit 2 ;;
  esac
done
for tool in "$RAW" "$FABRICFIT"; do [ -x "$tool" ] || { echo "missing $tool: build first" >&2; exit 1; }; done

work=$(mktemp -d /tmp/ff-bench-live.XXXXXX)
sim_pid=""
stop_sim() {
  if [ -n "$sim_pid" ] && kill -0 "$sim_pid" 2> /dev/null; then
    kill "$sim_pid"
    wait "$sim_pid" 2> /dev/null || true
  fi
  sim_pid=""
}
trap 'stop_sim; rm -rf "$work"' EXIT

# The same shapes as bench/bench_readers.cpp.
shape() {
  case $1 in
    1024) echo "--leaves 32 --hosts-per-leaf 32 --spines 16 --uplinks 16 --switch-ports 128 --host-digits 5" ;;
    4096) echo "--leaves 128 --hosts-per-leaf 32 --spines 16 --uplinks 16 --switch-ports 128 --host-digits 5" ;;
    16384) echo "--pods 8 --leaves 32 --hosts-per-leaf 64 --spines 16 --uplinks 16 --cores 16 --core-uplinks 16 --switch-ports 128 --host-digits 5" ;;
    *) echo "no shape for $1 hosts" >&2; return 1 ;;
  esac
}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

printf '%-7s %-7s %-8s %12s %16s %7s\n' hosts nodes max_smps "ours (s)" "ibnetdiscover (s)" ratio
for hosts in $sizes; do
  dir=$work/$hosts
  mkdir -p "$dir"
  # shellcheck disable=SC2046
  "$FABRICFIT" generate $(shape "$hosts") -o "$dir/fabric.net"
  nodes=$(grep -cE '^(Switch|Ca)' "$dir/fabric.net")
  switches=$(grep -c '^Switch' "$dir/fabric.net")
  attach=$(awk '/^Ca/ { match($0, /"[^"]+"/); print substr($0, RSTART + 1, RLENGTH - 2); exit }' "$dir/fabric.net")
  sock="ff-bench-$$-$hosts"
  mkfifo "$dir/console"
  (cd "$dir" && IBSIM_SOCKNAME=$sock exec ibsim -N $((nodes + 64)) -S $((switches + 16)) -P $((switches * 130 + nodes * 2 + 1024)) \
     -s fabric.net 0<>console > ibsim.log 2>&1) &
  sim_pid=$!
  for _ in $(seq 600); do grep -q "sim>" "$dir/ibsim.log" 2> /dev/null && break; sleep 0.1; done
  grep -q 'sim>' "$dir/ibsim.log" || { echo "ibsim did not load $hosts hosts: $(tail -3 "$dir/ibsim.log")" >&2; exit 1; }
  in_sim() { (cd "$dir" && IBSIM_SOCKNAME=$sock SIM_HOST=$attach LD_PRELOAD=$UMAD2SIM "$@"); }

  # Both must see the whole subnet before their times mean anything.
  in_sim "$RAW" live > "$dir/live.dump"
  in_sim ibnetdiscover > "$dir/ibnetdiscover.net"
  "$RAW" text "$dir/ibnetdiscover.net" > "$dir/text.dump"
  diff <(grep -v '^#' "$dir/live.dump") <(grep -v '^#' "$dir/text.dump") > /dev/null ||
    { echo "$hosts hosts: live discovery and ibnetdiscover disagree" >&2; exit 1; }

  for window in $windows; do
    ours=() theirs=()
    our_opts=() their_opts=()
    if [ "$window" != 0 ]; then our_opts=(--max-smps "$window"); their_opts=(-o "$window"); fi
    for _ in $(seq "$runs"); do
      ours+=("$(in_sim seconds "$RAW" --summary live "${our_opts[@]}")")
      theirs+=("$(in_sim seconds ibnetdiscover "${their_opts[@]}")")
    done
    o=$(printf '%s\n' "${ours[@]}" | median)
    t=$(printf '%s\n' "${theirs[@]}" | median)
    printf '%-7s %-7s %-8s %12s %16s %7s\n' "$hosts" "$nodes" "$([ "$window" = 0 ] && echo "2 (def)" || echo "$window")" \
      "$o" "$t" "$(echo "scale=2; $o / $t" | bc)"
  done
  stop_sim
done
