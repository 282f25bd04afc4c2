#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# NVLink domains through the command (issue 30 item 1): `generate --nvl-domain-size N
# --blocks-output FILE` writes Slurm BlockName lines, `discover --blocks FILE` puts them in
# the snapshot, `show` lists them (text and JSON) and writes them back as BlockName lines
# (`--slurm-block-conf`); a blocks file that does not read whole
# (unknown node, node in two blocks, bad hostlist, bad key) is refused with FILE:LINE: reason
# and writes no snapshot, not even over an old one. `show` gives each domain's leaf groups;
# `diff` the domains changed, gone and added; `frag` each domain's free capacity. A fabric of 2 leaf groups x 4 hosts
# (gpu001..gpu008), domains of 2 hosts. Part of `make check`; no lab: needs only the
# fabricfit CLI (FABRICFIT_BIN, set by `make check`, or build/fabricfit) and jq.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/../integration/lib.sh"

cli_test_start ff-nvl-cli
fabric=(--leaves 2 --hosts-per-leaf 4 --spines 2)

# ---- generate ---------------------------------------------------------------------------------
if ! "$ff" generate "${fabric[@]}" --nvl-domain-size 2 --blocks-output "$d/blocks.conf" -o "$d/f.net" \
     > "$d/generate.out" 2> "$d/generate.err"; then
  fail "generate --nvl-domain-size 2 --blocks-output" "$(cat "$d/generate.err")"; done_testing
fi
printf '%s\n' "# NVLink domains of gpu[001-008] (topology/block), by fabricfit" \
  "BlockName=nvl0 Nodes=gpu[001-002]" "BlockName=nvl1 Nodes=gpu[003-004]" \
  "BlockName=nvl2 Nodes=gpu[005-006]" "BlockName=nvl3 Nodes=gpu[007-008]" > "$d/blocks.expected"
check "generate writes one BlockName line per domain of 2 consecutive hosts of a leaf" \
  diff -u "$d/blocks.expected" "$d/blocks.conf"
check "every line is a comment or Slurm's BlockName=NAME Nodes=HOSTLIST" \
  bash -c '! grep -vE "^(#.*|BlockName=[A-Za-z0-9_.-]+ Nodes=[A-Za-z0-9_.,\\[-]+\\]?)$" "$1"' _ "$d/blocks.conf"
check "and the net file is written as without the option (domains are not in it)" \
  bash -c '"$1" generate "${@:3}" -o "$2/plain.net" && cmp -s "$2/plain.net" "$2/f.net"' _ "$ff" "$d" "${fabric[@]}"

out=$("$ff" generate "${fabric[@]}" --nvl-domain-size 3 --blocks-output "$d/b3.conf" -o "$d/f3.net" 2>&1)
rc=$?
check "a size that does not divide --hosts-per-leaf is refused (exit $rc): $out" \
  bash -c '[ "$1" -ne 0 ] && [[ $2 == *"--nvl-domain-size 3 does not divide --hosts-per-leaf 4"* ]]' _ "$rc" "$out"
check "and writes neither file" test ! -e "$d/b3.conf" -a ! -e "$d/f3.net"
out=$("$ff" generate "${fabric[@]}" --nvl-domain-size 2 -o "$d/nob.net" 2>&1)
rc=$?
check "--nvl-domain-size without --blocks-output is refused (exit $rc): $out" \
  bash -c '[ "$1" -ne 0 ] && [[ $2 == *"needs --blocks-output"* ]]' _ "$rc" "$out"

# ---- discover --blocks ------------------------------------------------------------------------
if ! "$ff" discover --from "$d/f.net" --blocks "$d/blocks.conf" -o "$d/f.snap" > "$d/discover.out" 2> "$d/discover.err"; then
  fail "discover --blocks" "$(cat "$d/discover.err")"; done_testing
fi
check "discover says how many domains it read ($(cat "$d/discover.out"))" grep -q ", 4 NVLink domain(s)" "$d/discover.out"

# ---- show ---------------------------------------------------------------------------------------
"$ff" show "$d/f.snap" > "$d/show.txt" 2> "$d/show.err" || fail "show" "$(cat "$d/show.err")"
check "show lists the domains" grep -q "^NVLink domains (4):" "$d/show.txt"
check "with name, host count, leaf groups and hostlist" grep -qE "^  nvl0 +2  ib-leaf-001 +gpu\[001-002\]$" "$d/show.txt"
check "every one of them" test "$(grep -cE "^  nvl[0-3] +2  ib-leaf-00[12] +gpu\[[0-9]{3}-[0-9]{3}\]$" "$d/show.txt")" = 4
"$ff" show --json "$d/f.snap" > "$d/show.json" 2> "$d/show.err" || fail "show --json" "$(cat "$d/show.err")"
check "JSON: nvlink_domains has the 4 domains in file order" \
  test "$(jq -c '[.nvlink_domains[].name]' "$d/show.json")" = '["nvl0","nvl1","nvl2","nvl3"]'
check "JSON: each with its hosts and leaf groups" \
  test "$(jq -c '.nvlink_domains[3]' "$d/show.json")" = '{"hosts":["gpu007","gpu008"],"leaf_groups":["ib-leaf-002"],"name":"nvl3"}'
check "JSON: the snapshot records the blocks file it read" \
  test "$(jq -r '.options.nvlink_blocks' "$d/show.json")" = "$d/blocks.conf"

"$ff" discover --from "$d/f.net" -o "$d/plain.snap" -q 2> "$d/plain.err" || fail "discover without --blocks" "$(cat "$d/plain.err")"
check "without --blocks: no domains, nvlink_domains is []" \
  test "$("$ff" show --json "$d/plain.snap" | jq -c '.nvlink_domains')" = '[]'
check "and the text has no domain section" bash -c '! "$1" show "$2" | grep -q "NVLink domains"' _ "$ff" "$d/plain.snap"
check "a version 1 snapshot (tests/fixtures) still shows, without domains" \
  test "$("$ff" show --json "$TOP_SRCDIR/tests/fixtures/snapshots/two-tier.snap" | jq -c '.nvlink_domains')" = '[]'

# show --slurm-block-conf: the domains as topology/block's BlockName lines (a site going
# back to block), which discover reads back to the same domains.
"$ff" show --slurm-block-conf "$d/f.snap" > "$d/back.conf" 2> "$d/back.err" || fail "show --slurm-block-conf" "$(cat "$d/back.err")"
check "show --slurm-block-conf writes the blocks discover read" \
  diff -u <(grep -v '^#' "$d/blocks.conf") <(grep -v '^#' "$d/back.conf")
"$ff" discover --from "$d/f.net" --blocks "$d/back.conf" -o "$d/back.snap" -q 2> "$d/back.err" ||
  fail "discover --blocks with show's lines" "$(cat "$d/back.err")"
check "read back, they make the same domains" \
  test "$("$ff" show --json "$d/back.snap" | jq -c '.nvlink_domains')" = "$(jq -c '.nvlink_domains' "$d/show.json")"
out=$("$ff" show --slurm-block-conf "$d/plain.snap" 2>&1)
rc=$?
check "a snapshot without domains has no BlockName lines to give (exit $rc): $out" \
  bash -c '[ "$1" -ne 0 ] && [[ $2 == *"has no NVLink domains"* ]]' _ "$rc" "$out"
out=$("$ff" show --slurm-block-conf --json "$d/f.snap" 2>&1)
rc=$?
check "--slurm-block-conf and --json exclude each other (exit $rc)" \
  bash -c '[ "$1" -ne 0 ] && [[ $2 == *"excludes"* ]]' _ "$rc" "$out"

# A site's own file, as Slurm reads it: keys in any case, comments, a continued line, BlockSizes.
printf '%s\n' "# racks" "blockname=rackA nodes=gpu[001-004]  # first rack" 'BlockName=rackB \' \
  "  Nodes=gpu[005,007]" "BlockSizes=2,4" > "$d/site.conf"
if "$ff" discover --from "$d/f.net" --blocks "$d/site.conf" -o "$d/site.snap" -q 2> "$d/site.err"; then
  check "a site's file reads: rackA of 4 hosts, rackB of 2, gpu006 and gpu008 in none" \
    test "$("$ff" show --json "$d/site.snap" | jq -c '[.nvlink_domains[] | [.name, (.hosts | length)]]')" = \
    '[["rackA",4],["rackB",2]]'
else
  fail "discover --blocks with a site's file" "$(cat "$d/site.err")"
fi

# ---- diff: the site moves gpu004 from rackA to rackB, drops rackB's gpu007 and adds rackC ----
printf '%s\n' "BlockName=rackA Nodes=gpu[001-003]" "BlockName=rackB Nodes=gpu[004-005]" \
  "BlockName=rackC Nodes=gpu008" > "$d/site2.conf"
if "$ff" discover --from "$d/f.net" --blocks "$d/site2.conf" -o "$d/site2.snap" -q 2> "$d/site2.err"; then
  check "a domain over two leaf groups lists both (rackB: gpu004 and gpu005)" \
    test "$("$ff" show --json "$d/site2.snap" | jq -c '[.nvlink_domains[] | [.name, .leaf_groups]]')" = \
    '[["rackA",["ib-leaf-001"]],["rackB",["ib-leaf-001","ib-leaf-002"]],["rackC",["ib-leaf-002"]]]'
  "$ff" diff "$d/site.snap" "$d/site2.snap" > "$d/diff.txt" 2>&1 || fail "diff" "$(cat "$d/diff.txt")"
  check "diff: the domains that changed, with hosts gone and added" \
    bash -c 'grep -qx "NVLink domains changed (2):" "$1" && grep -qx "  ~ rackA: - gpu004" "$1" &&
             grep -qx "  ~ rackB: - gpu007 + gpu004" "$1"' _ "$d/diff.txt"
  check "diff: and the domain added" bash -c 'grep -qx "NVLink domains added (1):" "$1" && grep -qx "  + rackC" "$1"' _ "$d/diff.txt"
  check "diff --json: the same" \
    test "$("$ff" diff --json "$d/site.snap" "$d/site2.snap" | jq -c '[.nvlink_domains_changed, .nvlink_domains_gone, .nvlink_domains_added]')" = \
    '[[{"hosts_added":[],"hosts_gone":["gpu004"],"name":"rackA"},{"hosts_added":["gpu004"],"hosts_gone":["gpu007"],"name":"rackB"}],[],["rackC"]]'
  check "diff: the same definitions give no differences" \
    bash -c '"$1" diff "$2" "$2" | grep -qx "no differences"' _ "$ff" "$d/site2.snap"
else
  fail "discover --blocks site2.conf" "$(cat "$d/site2.err")"
fi

# ---- refusals: FILE:LINE: reason, no snapshot ---------------------------------------------------
cp "$d/plain.snap" "$d/old.snap"
# refused NAME EXPECTED LINES...: a blocks file of LINES is refused with one line of error,
# "fabricfit: FILE:" then EXPECTED (the start of it when EXPECTED ends in '*'), and neither a
# new snapshot nor a change to an existing one is written.
refused() {
  local name=$1 expected=$2; shift 2
  printf '%s\n' "$@" > "$d/$name.conf"
  cp "$d/old.snap" "$d/$name.snap"
  local err rc
  err=$("$ff" discover --from "$d/f.net" --blocks "$d/$name.conf" -o "$d/$name.snap" 2>&1)
  rc=$?
  check "$name: refused (exit $rc) with: $expected" \
    bash -c '[ "$1" -ne 0 ] && [ "$(wc -l <<< "$2")" = 1 ] &&
             if [[ $3 == *"*" ]]; then [[ $2 == "fabricfit: ${3%"*"}"* ]]; else [ "$2" = "fabricfit: $3" ]; fi' \
      _ "$rc" "$err" "$d/$name.conf:$expected"
  check "$name: the snapshot there is untouched" cmp -s "$d/old.snap" "$d/$name.snap"
  err=$("$ff" discover --from "$d/f.net" --blocks "$d/$name.conf" -o "$d/$name.new.snap" 2>&1)
  check "$name: and no new snapshot is written" test ! -e "$d/$name.new.snap"
  check "$name: and no temporary file is left" \
    bash -c '[ -z "$(find "$1" -name "$2.new.snap*" -print -quit)" ]' _ "$d" "$name"
}
refused unknown-node "3: node gpu009 of block b is not a host of the fabric" \
  "BlockName=a Nodes=gpu[001-002]" "# gpu009 is not cabled" "BlockName=b Nodes=gpu[008-009]"
refused two-blocks "2: node gpu002 of block b is already in block a (line 1)" \
  "BlockName=a Nodes=gpu[001-002]" "BlockName=b Nodes=gpu[002-003]"
refused bad-hostlist "1: block a: bad hostlist Nodes=gpu[001-: *" "BlockName=a Nodes=gpu[001-"
refused bad-key "2: unknown key 'Switches' on a BlockName line (it takes Nodes= only)" \
  "BlockName=a Nodes=gpu[001-002]" "BlockName=b Nodes=gpu[003-004] Switches=s1"
refused tree-line "1: SwitchName lines are topology/tree's; --blocks reads topology/block's BlockName lines" \
  "SwitchName=s1 Nodes=gpu[001-004]"

# ---- frag: free capacity in domain terms ------------------------------------------------------
# gpu001 and gpu003 busy, gpu004 half busy (8 GPUs a host): nvl0 and nvl1 broken, nvl1 holds no
# half-domain job (no wholly free host), nvl2 and nvl3 whole; half-domain jobs: nvl0 1 + nvl2 2 + nvl3 2.
printf '%s\n' "gpu[001,003]" "gpu004 4" > "$d/busy.txt"
"$ff" frag "$d/f.snap" --busy "$d/busy.txt" --json > "$d/frag.json" 2> "$d/frag.err" || fail "frag --json" "$(cat "$d/frag.err")"
check "frag --json gives each domain's free GPUs and wholly free hosts ($(jq -c '[.nvlink_domains[] | [.name, .free_gpus, .whole_free_hosts]]' "$d/frag.json"))" \
  test "$(jq -c '[.nvlink_domains[] | [.name, .hosts, .whole_free_hosts, .free_gpus, .total_gpus]]' "$d/frag.json")" = \
  '[["nvl0",2,1,8,16],["nvl1",2,0,4,16],["nvl2",2,2,16,16],["nvl3",2,2,16,16]]'
check "and the domain- and half-domain jobs they hold" \
  test "$(jq -c '[.whole_free_domains, .half_domain_jobs]' "$d/frag.json")" = '[2,5]'
"$ff" frag "$d/f.snap" --busy "$d/busy.txt" --prom > "$d/frag.prom"
check "frag --prom: per-domain gauges and the two counts" \
  bash -c 'grep -qx "fabricfit_nvlink_domain_free_gpus{domain=\"nvl1\"} 4" "$1" &&
           grep -qx "fabricfit_nvlink_whole_free_domains 2" "$1" && grep -qx "fabricfit_nvlink_half_domain_jobs 5" "$1"' _ "$d/frag.prom"
"$ff" frag "$d/f.snap" --busy "$d/busy.txt" > "$d/frag.txt"
check "frag's text names the domains and sums them up" \
  bash -c 'grep -qE "^nvl1 +2 +0 +4/16" "$1" && grep -q "^domains: 2 of 4 wholly free; 5 half-domain job(s) of whole hosts still fit$" "$1"' _ "$d/frag.txt"
done_testing
