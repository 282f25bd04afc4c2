#!/usr/bin/env bash
# `fabricfit generate` writes fabrics that ibsim loads, and ibnetdiscover (through
# libumad2sim, against the simulator) finds every node and link the file declares.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

sim_prepare ff-gen-ibsim
FABRICFIT=${FABRICFIT_BIN:-fabricfit}

# name | generate options: lib.sh's and two more
shapes=(
  "${sim_shapes[@]}"
  "two-tier-oversubscribed|--leaves 3 --hosts-per-leaf 6 --spines 3 --uplinks 3 --rate 4xEDR"
  "eight-rail|--leaves 2 --hosts-per-leaf 2 --spines 2 --rails 8 --uplinks 2"
)

for entry in "${shapes[@]}"; do
  name=${entry%%|*}
  opts=${entry#*|}
  dir=$work/$name
  # shellcheck disable=SC2086
  sim_generate "$name" "$dir" "$FABRICFIT" $opts || continue
  sim_load "$name" "$dir" || continue
  (cd "$dir" && IBSIM_SOCKNAME=$sim_sock LD_PRELOAD="$UMAD2SIM" \
     timeout 60 ibnetdiscover > discovered.net 2> discover.err)
  rc=$?
  sim_stop
  if [ $rc -ne 0 ]; then
    fail "$name: ibnetdiscover failed ($rc): $(tail -3 "$dir/discover.err")"
    continue
  fi
  awk -f "$here/net_summary.awk" "$dir/fabric.net" | sort > "$dir/declared"
  awk -f "$here/net_summary.awk" "$dir/discovered.net" | sort > "$dir/seen"
  nodes=$(grep -c '^NODE' "$dir/declared")
  links=$(grep -c '^LINK' "$dir/declared")
  if [ "$nodes" -gt 0 ] && [ "$links" -gt 0 ] && diff -u "$dir/declared" "$dir/seen" > "$dir/diff"; then
    ok "$name: ibnetdiscover sees all $nodes nodes and $links port links"
  else
    fail "$name: discovery differs from the file ($nodes nodes, $links links declared)"
    diag "$(head -20 "$dir/diff")"
  fi
done

# ---- site shapes: storage rails, management hosts, cross-tier cables ----
# Each is loaded into ibsim, discovered live by fabricfit through the simulator, and its
# tiers, switches and pods compared with what is written here by hand: the storage,
# management and cross-tier parts never change the compute hosts' tiers or pods.
# name | generate options | model options | tiers | switches | pods | hosts | warning expected
three="--pods 2 --leaves 2 --hosts-per-leaf 4 --spines 2 --cores 2 --rails 2"
two_pods='[{"name":"pod-01","spines":["ib-p01-spine-01","ib-p01-spine-02"],"leaf_groups":["ib-leaf-001","ib-leaf-002"]},{"name":"pod-02","spines":["ib-p02-spine-01","ib-p02-spine-02"],"leaf_groups":["ib-leaf-003","ib-leaf-004"]}]'
site_shapes=(
  "storage-leaf-on-a-core|$three --storage-servers 4 --storage-hcas --storage-uplink core|--compute-hca mlx5_[01] --exclude-host ^stor|3|{\"core\":2,\"leaf\":9,\"spine\":4,\"untiered\":0}|$two_pods|16|service-leaf"
  "storage-leaf-on-a-spine|--leaves 4 --hosts-per-leaf 8 --spines 2 --storage-servers 3 --storage-hcas|--compute-hca mlx5_0 --exclude-host ^stor|2|{\"core\":0,\"leaf\":5,\"spine\":2,\"untiered\":0}|[]|32|service-leaf"
  "management-on-a-spine|$three --management-hosts 3 --management-switch spine|--exclude-host ^ufm|3|{\"core\":2,\"leaf\":8,\"spine\":4,\"untiered\":0}|$two_pods|16|default-host-name"
  "cross-tier-cables|$three --cross-tier-cables 2||3|{\"core\":2,\"leaf\":8,\"spine\":4,\"untiered\":0}|$two_pods|16|cross-tier-cable"
)
FF_BIN=${FABRICFIT_BIN:-$FABRICFIT}
for entry in "${site_shapes[@]}"; do
  IFS='|' read -r name opts model tiers switches pods hosts warning <<< "$entry"
  dir=$work/$name
  # shellcheck disable=SC2086
  sim_generate "$name" "$dir" "$FF_BIN" $opts || continue
  sim_load "$name" "$dir" || continue
  # shellcheck disable=SC2086
  (cd "$dir" && IBSIM_SOCKNAME=$sim_sock LD_PRELOAD="$UMAD2SIM" timeout 60 \
     "$FF_BIN" discover -q $model -o "$dir/fabric.snap" > "$dir/discover.err" 2>&1)
  rc=$?
  sim_stop
  if [ $rc -ne 0 ]; then fail "$name: discover failed ($rc): $(tail -3 "$dir/discover.err")"; continue; fi
  "$FF_BIN" show --json "$dir/fabric.snap" > "$dir/show.json"
  got="$(jq -c .tiers "$dir/show.json")|$(jq -c .switches "$dir/show.json")|$(jq -c '[.pods[] | {name, spines, leaf_groups}]' "$dir/show.json")|$(jq -c .hosts "$dir/show.json")"
  want="$tiers|$switches|$pods|$hosts"
  if [ "$got" = "$want" ]; then ok "$name: tiers, switches, pods and hosts as written by hand"
  else fail "$name: model differs" "want $want" "got  $got"; fi
  if jq -e --arg w "$warning: " '[.warnings[] | select(startswith($w))] | length == 1' "$dir/show.json" > /dev/null; then
    ok "$name: reported once as $warning"
  else
    fail "$name: no $warning warning" "$(jq -r '.warnings[]' "$dir/show.json" | head -5)"
  fi
done

done_testing
