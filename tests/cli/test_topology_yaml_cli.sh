#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `discover --blocks` with Slurm's topology.yaml (issue 30 item 1b): the fixtures of
# tests/fixtures/slurm-blocks read into the snapshot as the topology.conf of the same site
# does, `show --json` lists the domains and the topology taken, --blocks-topology picks one,
# and a file that does not read whole is refused with FILE:LINE: reason and writes no
# snapshot. The fabric: 2 leaf groups x 4 hosts (gpu001..gpu008). Part of `make check`; no
# lab: needs only the fabricfit CLI (FABRICFIT_BIN, set by `make check`, or build/fabricfit)
# and jq.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/../integration/lib.sh"

ff=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
[ -x "$ff" ] || need_tool "$ff" "the build's command: build it or set FABRICFIT_BIN"
need_tool jq "package jq; contrib/setup-slurm.sh installs it"
make_tmpdir ff-topo-yaml || { fail "mktemp"; done_testing; }
d=$TEST_TMPDIR
fx=$TOP_SRCDIR/tests/fixtures/slurm-blocks

if ! "$ff" generate --leaves 2 --hosts-per-leaf 4 --spines 2 -o "$d/f.net" > /dev/null 2> "$d/generate.err"; then
  fail "generate" "$(cat "$d/generate.err")"; done_testing
fi

# ---- the cluster_default topology's blocks, beside a tree and a flat one ----------------------
if ! "$ff" discover --from "$d/f.net" --blocks "$fx/two-topologies.yaml" -o "$d/yaml.snap" > "$d/discover.out" 2> "$d/discover.err"; then
  fail "discover --blocks two-topologies.yaml" "$(cat "$d/discover.err")"; done_testing
fi
check "discover says how many domains it read ($(cat "$d/discover.out"))" grep -q ", 2 NVLink domain(s)" "$d/discover.out"
"$ff" show --json "$d/yaml.snap" > "$d/yaml.json" 2> "$d/show.err" || fail "show --json" "$(cat "$d/show.err")"
check "show --json lists the blocks of topology nvl as domains, with their hosts" \
  test "$(jq -c '[.nvlink_domains[] | [.name, .hosts]]' "$d/yaml.json")" = \
  '[["nvl0",["gpu001","gpu002","gpu003","gpu004"]],["nvl1",["gpu005","gpu007","gpu008"]]]'
check "the snapshot records the file and the topology taken" \
  test "$(jq -c '[.options.nvlink_blocks, .options.nvlink_blocks_topology]' "$d/yaml.json")" = "[\"$fx/two-topologies.yaml\",\"nvl\"]"

"$ff" discover --from "$d/f.net" --blocks "$fx/two-blocks.conf" -o "$d/conf.snap" -q 2> "$d/conf.err" ||
  fail "discover --blocks two-blocks.conf" "$(cat "$d/conf.err")"
check "the topology.conf of the same site gives the same domains" \
  test "$("$ff" show --json "$d/conf.snap" | jq -c '.nvlink_domains')" = "$(jq -c '.nvlink_domains' "$d/yaml.json")"
check "and records no topology" test "$("$ff" show --json "$d/conf.snap" | jq -c '.options.nvlink_blocks_topology')" = null
check "diff: the same definitions from either file give no NVLink differences" \
  bash -c '! "$1" diff "$2" "$3" | grep -q "NVLink"' _ "$ff" "$d/conf.snap" "$d/yaml.snap"

# Read by content too: the same file under a name without .yaml.
cp "$fx/two-topologies.yaml" "$d/topology.cfg"
check "a topology.yaml is read as one whatever its name (it starts with ---)" \
  bash -c '"$1" discover --from "$2/f.net" --blocks "$2/topology.cfg" -o "$2/cfg.snap" -q &&
           [ "$("$1" show --json "$2/cfg.snap" | jq -c "[.nvlink_domains[].name]")" = "[\"nvl0\",\"nvl1\"]" ]' _ "$ff" "$d"

# ---- --blocks-topology ----------------------------------------------------------------------
printf '%s\n' "- topology: rackwise" "  block:" "    blocks:" "      - block: r0" "        nodes: gpu[001-004]" \
  "- topology: pairs" "  block:" "    blocks:" "      - block: p0" "        nodes: gpu[001-002]" \
  "      - block: p1" "        nodes: gpu[003-004]" > "$d/two.yaml"
out=$("$ff" discover --from "$d/f.net" --blocks "$d/two.yaml" -o "$d/two.snap" 2>&1)
rc=$?
check "two block topologies and no cluster_default: refused (exit $rc), naming them: $out" \
  bash -c '[ "$1" -ne 0 ] && [ "$2" = "fabricfit: $3: topologies rackwise, pairs have block sections and none is the cluster default: name one (--blocks-topology)" ]' \
  _ "$rc" "$out" "$d/two.yaml"
check "and no snapshot is written" test ! -e "$d/two.snap"
if "$ff" discover --from "$d/f.net" --blocks "$d/two.yaml" --blocks-topology pairs -o "$d/two.snap" -q 2> "$d/two.err"; then
  check "--blocks-topology pairs takes that one" \
    test "$("$ff" show --json "$d/two.snap" | jq -c '[[.nvlink_domains[].name], .options.nvlink_blocks_topology]')" = '[["p0","p1"],"pairs"]'
else
  fail "discover --blocks-topology pairs" "$(cat "$d/two.err")"
fi
out=$("$ff" discover --from "$d/f.net" --blocks-topology pairs -o "$d/nob.snap" 2>&1)
check "--blocks-topology without --blocks is refused: $out" \
  bash -c '[[ $1 == *"--blocks-topology requires --blocks"* ]] && [ ! -e "$2" ]' _ "$out" "$d/nob.snap"

# ---- refusals: FILE:LINE: reason, no snapshot, an old one untouched --------------------------------
"$ff" discover --from "$d/f.net" -o "$d/old.snap" -q || fail "discover without --blocks"
# refused FILE EXPECTED [ARGS...]: discover --blocks FILE is refused with the one line
# "fabricfit: FILE" then EXPECTED, and writes no snapshot, over an old one or anew.
refused() {
  local file=$1 expected=$2 name; shift 2
  name=$(basename "$file")
  cp "$d/old.snap" "$d/$name.snap"
  local err rc
  err=$("$ff" discover --from "$d/f.net" --blocks "$file" "$@" -o "$d/$name.snap" 2>&1)
  rc=$?
  check "$name: refused (exit $rc) with: $expected" \
    bash -c '[ "$1" -ne 0 ] && [ "$(wc -l <<< "$2")" = 1 ] && [ "$2" = "fabricfit: $3" ]' _ "$rc" "$err" "$file$expected"
  check "$name: the snapshot there is untouched" cmp -s "$d/old.snap" "$d/$name.snap"
  "$ff" discover --from "$d/f.net" --blocks "$file" "$@" -o "$d/$name.new.snap" > /dev/null 2>&1
  check "$name: and no new snapshot is written" test ! -e "$d/$name.new.snap"
}
refused "$fx/syntax-error.yaml" ":6: end of sequence flow not found"
refused "$fx/node-in-two-blocks.yaml" ":7: node gpu002 of block b is already in block a (line 4)"
refused "$fx/misspelt-nodes.yaml" ":8: unknown key 'node' in block b (it takes block and nodes)"
refused "$fx/tree-only.yaml" ": no topology with a block section (the file has ib (tree))"
refused "$fx/two-topologies.yaml" ":5: topology ib has no block section (it is tree)" --blocks-topology ib
refused "$fx/two-blocks.conf" ": a topology.conf has no named topologies (topology nvl is one of a topology.yaml)" \
  --blocks-topology nvl
printf '%s\n' "- topology: nvl" "  block:" "    blocks:" "      - block: a" "        nodes: gpu[008-009]" > "$d/unknown-node.yaml"
refused "$d/unknown-node.yaml" ":4: node gpu009 of block a is not a host of the fabric"
done_testing
