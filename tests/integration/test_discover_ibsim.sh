#!/usr/bin/env bash
# `fabricfit discover` against ibsim: the model built from a live discovery must be the
# fabric the generator meant, host by host (leaf groups, their leaves, pods, counts, no
# warnings); faults injected through ibsim's console must show in `show` and `diff`: an
# unlinked spine uplink as capacity lost by its leaf group, an unlinked host as missing,
# and a switch whose MADs fail as a partial discovery that `discover` refuses unless
# --allow-partial (and then marks).
# Needs: ibsim-utils, libumad2sim0, jq, and a built tree (FABRICFIT_BUILD_DIR, default
# ./build; or FABRICFIT_BIN).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
sim_prepare ff-discover-ibsim
FABRICFIT=${FABRICFIT_BIN:-$build/fabricfit}
attach=""

if [ ! -x "$FABRICFIT" ] || [ -z "$UMAD2SIM" ] || ! command -v ibsim > /dev/null || ! command -v jq > /dev/null; then
  fail "prerequisites: fabricfit ($FABRICFIT), libumad2sim ($UMAD2SIM), ibsim, jq"
  done_testing
fi

# ff ARGS...: fabricfit as a client of the simulator (for discover and `live`).
ff() { (cd "$sim_dir" && IBSIM_SOCKNAME=$sim_sock SIM_HOST=$attach LD_PRELOAD=$UMAD2SIM "$FABRICFIT" "$@"); }
id_of_desc() { awk -v d="\"$2\"" '/^(Switch|Ca)/ && index($0, "# " d) { match($0, /"[^"]+"/); print substr($0, RSTART + 1, RLENGTH - 2); exit }' "$1"; }
# same WHAT EXPECTED ACTUAL
same() {
  if diff -u "$2" "$3" > "$sim_dir/diff"; then ok "$1"; else fail "$1" "$(head -30 "$sim_dir/diff")"; fi
}
jqc() { jq -r "$1" "$2"; }  # one value of a JSON file

# ---- what the generator meant ----
# intent NAME GROUPS HOSTS_PER_LEAF RAILS LEAVES_PER_POD: "leaves|hosts" per leaf group.
intent() {
  local groups=$2 hpl=$3 rails=$4 g h r leaves hosts
  for ((g = 1; g <= groups; g++)); do
    leaves="" hosts=""
    for ((r = 0; r < rails; r++)); do
      if [ "$rails" -gt 1 ]; then leaves+="${leaves:+,}$(printf 'ib-leaf-%03d-r%d' "$g" "$r")"
      else leaves=$(printf 'ib-leaf-%03d' "$g"); fi
    done
    for ((h = (g - 1) * hpl + 1; h <= g * hpl; h++)); do hosts+="${hosts:+,}$(printf 'gpu%03d' "$h")"; done
    echo "$leaves|$hosts"
  done
}
seen_groups() { jq -r '.leaf_groups[] | (.leaves | join(",")) + "|" + (.hosts | join(","))' "$1"; }

# name | generate options | leaf groups | hosts per leaf | rails | leaves | spines | cores
shapes=(
  "two-tier|--leaves 4 --hosts-per-leaf 8 --spines 2|4|8|1|4|2|0"
  "three-tier|--pods 2 --leaves 2 --hosts-per-leaf 4 --spines 2 --cores 2|4|4|1|4|4|2"
  "two-rail|--leaves 2 --hosts-per-leaf 4 --spines 2 --rails 2|2|4|2|4|2|0"
)

for entry in "${shapes[@]}"; do
  IFS='|' read -r name opts groups hpl rails leaves spines cores <<< "$entry"
  dir=$work/$name
  # shellcheck disable=SC2086
  sim_generate "$name" "$dir" "$FABRICFIT" $opts || continue
  attach=$(id_of_desc "$dir/fabric.net" "gpu001 mlx5_0")
  sim_load "$name" "$dir" || continue

  # -- live discovery builds the generator's fabric --
  if ! ff discover -o "$dir/healthy.snap" > "$dir/discover.out" 2> "$dir/discover.err"; then
    fail "$name: fabricfit discover (live) failed" "$(cat "$dir/discover.err")"
    sim_stop
    continue
  fi
  ok "$name: live discovery wrote a snapshot: $(cat "$dir/discover.out")"
  "$FABRICFIT" show --json "$dir/healthy.snap" > "$dir/healthy.json"
  hosts=$((groups * hpl))
  check "$name: $hosts hosts" [ "$(jqc .hosts "$dir/healthy.json")" = "$hosts" ]
  check "$name: $rails rail(s)" [ "$(jqc .rails "$dir/healthy.json")" = "$rails" ]
  check "$name: $leaves leaves, $spines spines, $cores cores" \
    [ "$(jqc '"\(.switches.leaf) \(.switches.spine) \(.switches.core)"' "$dir/healthy.json")" = "$leaves $spines $cores" ]
  intent "$name" "$groups" "$hpl" "$rails" | sort > "$dir/intent"
  seen_groups "$dir/healthy.json" | sort > "$dir/seen"
  same "$name: every host in the leaf group the generator put it in, with the right leaves per rail" \
    "$dir/intent" "$dir/seen"
  check "$name: a clean Clos: no warnings, no degraded links, not partial" \
    [ "$(jqc '"\(.warnings | length) \(.degraded_links | length) \(.partial)"' "$dir/healthy.json")" = "0 0 false" ]
  check "$name: oversubscription 1:1 everywhere" \
    [ "$(jqc '[.leaf_groups[].oversubscription] | unique | join(",")' "$dir/healthy.json")" = 1 ]
  if [ "$cores" -gt 0 ]; then
    check "$name: two pods, each with its two leaf groups and spines" \
      [ "$(jqc '[.pods[] | "\(.name):\(.leaf_groups | join(",")):\(.spines | join(","))"] | join(" ")' "$dir/healthy.json")" \
        = "pod-01:ib-leaf-001,ib-leaf-002:ib-p01-spine-01,ib-p01-spine-02 pod-02:ib-leaf-003,ib-leaf-004:ib-p02-spine-01,ib-p02-spine-02" ]
  fi
  # The ibnetdiscover text of the same subnet builds the same model.
  (cd "$dir" && IBSIM_SOCKNAME=$sim_sock SIM_HOST=$attach LD_PRELOAD=$UMAD2SIM timeout 60 ibnetdiscover > "$dir/healthy.net" 2> /dev/null)
  "$FABRICFIT" show --json "$dir/healthy.net" | jq 'del(.origin, .created, .producer)' > "$dir/text.json"
  jq 'del(.origin, .created, .producer)' "$dir/healthy.json" > "$dir/live.json"
  same "$name: show of ibnetdiscover's text = show of the live snapshot" "$dir/live.json" "$dir/text.json"
  ff diff --json "$dir/healthy.snap" live > "$dir/same.json" 2> "$dir/same.err"
  check "$name: diff SNAPSHOT live finds nothing on an unchanged subnet" [ "$(jqc .identical "$dir/same.json")" = true ]

  if [ "$name" = two-tier ]; then
    # -- a spine uplink unlinked: capacity lost by that leaf group --
    leaf3=$(id_of_desc "$dir/fabric.net" ib-leaf-003)
    sim_cmd "Unlink \"$leaf3\"[9]"
    ff discover -o "$dir/uplink.snap" > /dev/null 2> "$dir/uplink.err" || fail "$name: discover after Unlink" "$(cat "$dir/uplink.err")"
    "$FABRICFIT" diff --json "$dir/healthy.snap" "$dir/uplink.snap" > "$dir/uplink-diff.json"
    check "$name: diff: the cable ib-leaf-003[9] is gone, nothing else" \
      [ "$(jqc '"\(.links_gone | length) \(.links_gone[0].a.node)[\(.links_gone[0].a.port)] \(.links_added | length) \(.hosts_missing | length)"' "$dir/uplink-diff.json")" = "1 ib-leaf-003[9] 0 0" ]
    check "$name: diff: leaf group ib-leaf-003 lost 200 Gb/s of uplink (1600 -> 1400)" \
      [ "$(jqc '.leaf_groups_changed[] | select(.name == "ib-leaf-003") | "\(.up_gbps_before) \(.up_gbps_after) \(.lost_up_gbps)"' "$dir/uplink-diff.json")" = "1600 1400 200" ]
    "$FABRICFIT" show --json "$dir/uplink.snap" > "$dir/uplink.json"
    check "$name: show: ib-leaf-003 has 7 uplinks, 1400 of 1600 Gb/s, 200 lost" \
      [ "$(jqc '.leaf_groups[] | select(.name == "ib-leaf-003") | "\(.uplinks) \(.up_gbps) \(.expected_up_gbps) \(.lost_up_gbps)"' "$dir/uplink.json")" = "7 1400 1600 200" ]
    check "$name: show warns that ib-leaf-003 is missing an uplink" \
      grep -q 'uneven-uplinks: .*ib-leaf-003 has 7 uplink(s) where most leaves have 8' "$dir/uplink.json"
    "$FABRICFIT" show "$dir/uplink.snap" > "$dir/uplink.txt"
    check "$name: show (text) lists the lost capacity in the leaf group's row" \
      grep -Eq '^  ib-leaf-003 +8 +1 +1600 +1400 +7 +200 +1.14:1 +200$' "$dir/uplink.txt"
    ff diff --json "$dir/healthy.snap" live > "$dir/uplink-live.json" 2> /dev/null
    check "$name: diff SNAPSHOT live sees the same lost cable" \
      [ "$(jqc '"\(.links_gone | length) \(.links_gone[0].a.node)"' "$dir/uplink-live.json")" = "1 ib-leaf-003" ]

    # -- a host unlinked: missing --
    host=$(id_of_desc "$dir/fabric.net" "gpu032 mlx5_0")
    sim_cmd "Unlink \"$host\""
    ff discover -o "$dir/host.snap" > /dev/null 2> "$dir/host.err" || fail "$name: discover after Unlink host" "$(cat "$dir/host.err")"
    "$FABRICFIT" diff --json "$dir/uplink.snap" "$dir/host.snap" > "$dir/host-diff.json"
    check "$name: diff reports gpu032 missing" [ "$(jqc '.hosts_missing | join(",")' "$dir/host-diff.json")" = gpu032 ]
    check "$name: and its leaf group one host smaller" \
      [ "$(jqc '.leaf_groups_changed[] | select(.name == "ib-leaf-004") | "\(.hosts_before) \(.hosts_after)"' "$dir/host-diff.json")" = "8 7" ]
    "$FABRICFIT" diff "$dir/healthy.snap" "$dir/host.snap" > "$dir/host-diff.txt"
    check "$name: diff (text) lists it under Hosts missing" grep -A1 -q '^Hosts missing (1):' "$dir/host-diff.txt"
  fi

  if [ "$name" != two-rail ]; then
    # -- every MAD to a spine fails: a partial discovery --
    sim_stop
    sim_start "$dir" fabric.net || { fail "$name: ibsim restart failed"; continue; }
    spine=$(id_of_desc "$dir/fabric.net" "$([ "$name" = two-tier ] && echo ib-spine-01 || echo ib-p01-spine-01)")
    sim_cmd "Error \"$spine\" 100"
    ff discover --timeout 100 --retries 1 -o "$dir/partial.snap" > "$dir/partial.out" 2> "$dir/partial.err"
    rc=$?
    check "$name: discover refuses a partial discovery (exit $rc, 3 expected)" [ "$rc" = 3 ]
    check "$name: and writes no snapshot" [ ! -e "$dir/partial.snap" ]
    check "$name: saying why" grep -q 'was partial' "$dir/partial.err"
    ff discover --allow-partial --timeout 100 --retries 1 -o "$dir/partial.snap" > /dev/null 2> "$dir/partial2.err"
    rc=$?
    check "$name: --allow-partial writes it (exit $rc)" [ "$rc" = 0 ]
    "$FABRICFIT" show --json "$dir/partial.snap" > "$dir/partial.json" 2> /dev/null
    check "$name: marked partial, with a partial-discovery warning" \
      [ "$(jqc '"\(.partial) \([.warnings[] | select(startswith("partial-discovery: "))] | length)"' "$dir/partial.json")" = "true 1" ]
    check "$name: show (text) says so on its first line" bash -c "'$FABRICFIT' show '$dir/partial.snap' | head -1 | grep -q 'PARTIAL DISCOVERY'"
  fi
  sim_stop
done

done_testing
