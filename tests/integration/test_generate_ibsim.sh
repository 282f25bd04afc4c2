#!/usr/bin/env bash
# `fabricfit generate` writes fabrics that ibsim loads, and ibnetdiscover (through
# libumad2sim, against the simulator) finds every node and link the file declares.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

FABRICFIT=${FABRICFIT_BIN:-fabricfit}
UMAD2SIM=$(umad2sim_lib)
make_tmpdir ff-gen-ibsim
work=$TEST_TMPDIR

# name | generate options
shapes=(
  "two-tier|--leaves 4 --hosts-per-leaf 8 --spines 2"
  "two-tier-oversubscribed|--leaves 3 --hosts-per-leaf 6 --spines 3 --uplinks 3 --rate 4xEDR"
  "three-tier|--pods 2 --leaves 2 --hosts-per-leaf 4 --spines 2 --cores 2"
  "two-rail|--leaves 2 --hosts-per-leaf 4 --spines 2 --rails 2"
  "eight-rail|--leaves 2 --hosts-per-leaf 2 --spines 2 --rails 8 --uplinks 2"
)

for entry in "${shapes[@]}"; do
  name=${entry%%|*}
  opts=${entry#*|}
  dir=$work/$name
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  if ! "$FABRICFIT" generate $opts -o "$dir/fabric.net" 2> "$dir/gen.err"; then
    fail "$name: generate failed: $(cat "$dir/gen.err")"
    continue
  fi
  if ! sim_start "$dir" fabric.net; then
    fail "$name: ibsim did not load the file: $(tail -3 "$dir/ibsim.log")"
    sim_stop
    continue
  fi
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

done_testing
