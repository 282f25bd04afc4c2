#!/usr/bin/env bash
# One subnet per rail plane: `fabricfit generate --planes` writes one net file per rail
# (LIDs inside each subnet's unicast range), one ibsim runs per plane (each its own
# IBSIM_SOCKNAME), each plane is discovered through the simulator, and `fabricfit
# discover --from` merges the planes into one model: hosts matched by name across
# subnets, each plane a rail, leaf groups of one leaf per plane, as written by hand below.
# Needs: ibsim-utils, libumad2sim0, infiniband-diags (ibnetdiscover), jq, a built tree.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
sim_prepare ff-planes-ibsim
FABRICFIT=${FABRICFIT_BIN:-$build/fabricfit}

if [ ! -x "$FABRICFIT" ] || [ -z "$UMAD2SIM" ] || ! command -v ibsim > /dev/null ||
   ! command -v ibnetdiscover > /dev/null || ! command -v jq > /dev/null; then
  fail "prerequisites: fabricfit ($FABRICFIT), libumad2sim ($UMAD2SIM), ibsim, ibnetdiscover, jq"
  done_testing
fi

# One simulator per plane; lib.sh stops one, so the others are stopped here too.
plane_pids=() plane_socks=()
stop_planes() { local p; for p in "${plane_pids[@]}"; do stop_pid "$p"; done; plane_pids=(); }
on_exit() { local rc=$?; stop_planes; (exit "$rc"); _lib_on_exit; }
trap on_exit EXIT

planes=2
if ! "$FABRICFIT" generate --leaves 2 --hosts-per-leaf 4 --spines 2 --rails $planes --planes \
     -o "$work/fabric.net" > "$work/gen.out" 2>&1; then
  fail "generate --planes" "$(cat "$work/gen.out")"
  done_testing
fi
for ((p = 0; p < planes; p++)); do
  f=$work/fabric.plane$p.net
  if [ -s "$f" ]; then ok "generate wrote plane $p ($(grep -c '^Ca' "$f") CAs)"; else fail "no $f"; continue; fi
  max_lid=$(grep -o 'lid [0-9]*' "$f" | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
  if [ "$max_lid" -ge 1 ] && [ "$max_lid" -le 49151 ]; then ok "plane $p: LIDs 1..$max_lid, inside 0xBFFF"
  else fail "plane $p: LID $max_lid outside the unicast range"; fi
  if grep -q 'mlx5_'"$p"'"' "$f" && ! grep -q 'mlx5_'"$((1 - p))"'"' "$f"; then ok "plane $p holds only HCA mlx5_$p"
  else fail "plane $p: HCAs of other rails"; fi
done

# Each plane in its own simulator, discovered through it (ibnd cache, and live by fabricfit).
for ((p = 0; p < planes; p++)); do
  d=$work/plane$p
  mkdir -p "$d" && cp "$work/fabric.plane$p.net" "$d/fabric.net"
  if ! sim_start "$d" fabric.net; then fail "plane $p: ibsim did not start: $(tail -3 "$d/ibsim.log")"; continue; fi
  plane_pids+=("$sim_pid") plane_socks+=("$sim_sock")
  sim_pid=""  # ours to stop, not lib.sh's
done
[ ${#plane_pids[@]} -eq $planes ] && ok "$planes simulators up at once (distinct IBSIM_SOCKNAME)"
for ((p = 0; p < planes; p++)); do
  d=$work/plane$p
  (cd "$d" && IBSIM_SOCKNAME=${plane_socks[$p]} LD_PRELOAD=$UMAD2SIM timeout 60 \
     ibnetdiscover --cache "$d/plane.cache" > "$d/plane.txt" 2> "$d/ibnetdiscover.err")
  check "plane $p discovered through its simulator (ibnd cache)" test -s "$d/plane.cache"
  (cd "$d" && IBSIM_SOCKNAME=${plane_socks[$p]} LD_PRELOAD=$UMAD2SIM timeout 60 \
     "$FABRICFIT" discover -q -o "$d/live.snap" > "$d/live.err" 2>&1)
  check "plane $p: fabricfit discover (live, every local port) wrote a snapshot" test -s "$d/live.snap"
  rails=$("$FABRICFIT" show --json "$d/live.snap" | jq -r .rails)
  if [ "$rails" = 1 ]; then ok "plane $p alone is one rail"; else fail "plane $p alone: rails=$rails"; fi
done
stop_planes

# Merged: the caches discovered under ibsim, the text dumps, and the generated files agree.
caches=() texts=() nets=()
for ((p = 0; p < planes; p++)); do
  caches+=(--from "$work/plane$p/plane.cache"); texts+=(--from "$work/plane$p/plane.txt")
  nets+=(--from "$work/fabric.plane$p.net")
done
check "discover merges the planes' caches" "$FABRICFIT" discover -q "${caches[@]}" -o "$work/merged.snap"
check "discover merges the planes' text dumps" "$FABRICFIT" discover -q "${texts[@]}" -o "$work/text.snap"
check "discover merges the generated plane files" "$FABRICFIT" discover -q "${nets[@]}" -o "$work/net.snap"
"$FABRICFIT" show --json "$work/merged.snap" > "$work/merged.json"

# By hand: 8 hosts, 2 rails (one per plane), 2 leaf groups of one leaf per plane, two
# tiers, each plane's two spines, no warnings.
expect() {  # WHAT JQ EXPECTED
  local got; got=$(jq -c "$2" "$work/merged.json")
  if [ "$got" = "$3" ]; then ok "$1: $got"; else fail "$1" "expected $3" "got      $got"; fi
}
expect "hosts" .hosts 8
expect "rails" .rails 2
expect "tiers" .tiers 2
expect "switches" '.switches' '{"core":0,"leaf":4,"spine":4,"untiered":0}'
expect "leaf groups" '[.leaf_groups[] | {leaves, hosts}]' \
  '[{"leaves":["ib-leaf-001-r0","ib-leaf-001-r1"],"hosts":["gpu001","gpu002","gpu003","gpu004"]},{"leaves":["ib-leaf-002-r0","ib-leaf-002-r1"],"hosts":["gpu005","gpu006","gpu007","gpu008"]}]'
expect "warnings" '.warnings' '[]'
for other in text net; do
  if diff <(jq 'del(.origin, .created, .producer, .options)' "$work/merged.json") \
          <("$FABRICFIT" show --json "$work/$other.snap" | jq 'del(.origin, .created, .producer, .options)') > "$work/$other.diff"; then
    ok "merged from ${other} files = merged from the simulators' caches"
  else
    fail "merged from ${other} files differs" "$(head -20 "$work/$other.diff")"
  fi
done

done_testing
