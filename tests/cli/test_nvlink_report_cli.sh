#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# NVLink domains from the nodes' own reports (issue 30 item 1a): `discover --nvlink-report`
# reads pdsh output or a directory of one `nvidia-smi -q` per node, puts the domains their
# GPUs report in the snapshot (`show --json` lists them), warns about each node it leaves
# out (FILE:LINE: host: reason) and each node the fabric lacks, and refuses a report that
# does not read whole, or none of whose nodes the fabric has, with FILE:LINE: reason and no
# snapshot written. Then the node-side
# collector contrib/nvlink-report.sh, run with a fake nvidia-smi that prints a fixture:
# what it writes, that it writes nothing on failure, and that discover reads its directory.
# Fixtures: tests/fixtures/nvlink-report (README.md); the fabric is generated: 2 leaf groups
# x 4 hosts, gpu001..gpu008. Part of `make check`; needs the fabricfit CLI and jq.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/../integration/lib.sh"

cli_test_start ff-nvreport-cli
fx=$TOP_SRCDIR/tests/fixtures/nvlink-report
collector=$TOP_SRCDIR/contrib/nvlink-report.sh
rack_a='{"hosts":["gpu001","gpu002","gpu003","gpu004"],"leaf_groups":["ib-leaf-001"],"name":"nvl-9c6f5af3-4026"}'

if ! "$ff" generate --leaves 2 --hosts-per-leaf 4 --spines 2 -o "$d/f.net" > /dev/null 2> "$d/generate.err"; then
  fail "generate" "$(cat "$d/generate.err")"; done_testing
fi

# discover_report NAME REPORT [OPTIONS...]: discover --nvlink-report REPORT into NAME.snap,
# standard output in NAME.out and error in NAME.err; its exit status.
discover_report() {
  local name=$1 report=$2; shift 2
  "$ff" discover --from "$d/f.net" --nvlink-report "$report" -o "$d/$name.snap" "$@" > "$d/$name.out" 2> "$d/$name.err"
}

# ---- pdsh output: 8 nodes in 2 racks ----------------------------------------------------------
if discover_report pdsh "$fx/pdsh-two-racks.txt"; then
  check "discover says how many domains the nodes reported ($(cat "$d/pdsh.out"))" grep -q ", 2 NVLink domain(s)$" "$d/pdsh.out"
  check "and warns of nothing" test ! -s "$d/pdsh.err"
  "$ff" show --json "$d/pdsh.snap" > "$d/pdsh.json"
  check "show --json: one domain per rack, named from its cluster UUID and clique id, by UUID" \
    test "$(jq -c '.nvlink_domains' "$d/pdsh.json")" = \
    '[{"hosts":["gpu005","gpu006","gpu007","gpu008"],"leaf_groups":["ib-leaf-002"],"name":"nvl-5e0d2c41-32766"},'"$rack_a]"
  check "the snapshot records the report it read" \
    test "$(jq -r '.options.nvlink_report' "$d/pdsh.json")" = "$fx/pdsh-two-racks.txt"
else
  fail "discover --nvlink-report pdsh-two-racks.txt" "$(cat "$d/pdsh.err")"
fi

# ---- a directory of one report per node, two of them not in a domain ---------------------------
if discover_report dir "$fx/by-host" -q; then
  check "a directory: gpu005 and gpu006 make the second domain" \
    test "$("$ff" show --json "$d/dir.snap" | jq -c '[.nvlink_domains[] | [.name, .hosts]]')" = \
    '[["nvl-5e0d2c41-32766",["gpu005","gpu006"]],["nvl-9c6f5af3-4026",["gpu001","gpu002","gpu003","gpu004"]]]'
  printf '%s\n' \
    "fabricfit: warning: $fx/by-host/gpu007:30: host gpu007: GPU 00000008:01:00.0 has not registered with the NVLink fabric (Fabric State In Progress); in no NVLink domain" \
    "fabricfit: warning: $fx/by-host/gpu008.txt:30: host gpu008: GPU 00000008:01:00.0 failed to register with the NVLink fabric (Fabric Status Insufficient Resources); in no NVLink domain" \
    > "$d/dir.expected"
  check "each node left out is a warning naming its file and line, even with --quiet" diff -u "$d/dir.expected" "$d/dir.err"
  check "--quiet prints nothing else" test ! -s "$d/dir.out"
  discover_report dir-loud "$fx/by-host"
  check "without --quiet the summary names the hosts in no domain ($(cat "$d/dir-loud.out"))" \
    grep -q ", 2 NVLink domain(s), 2 host(s) in none: gpu\[007-008\]$" "$d/dir-loud.out"
else
  fail "discover --nvlink-report by-host" "$(cat "$d/dir.err")"
fi

if discover_report problems "$fx/problems.txt"; then
  check "problems.txt: only gpu001 is in a domain" \
    test "$("$ff" show --json "$d/problems.snap" | jq -c '[.nvlink_domains[] | [.name, .hosts]]')" = '[["nvl-9c6f5af3-4026",["gpu001"]]]'
  check "and the other 7 nodes are warned about, each once, in order" \
    test "$(sed -n 's/^fabricfit: warning: .*problems.txt:[0-9]*: host \(gpu00[0-9]\): .*; in no NVLink domain$/\1/p' "$d/problems.err" | tr '\n' ' ')" = \
    "gpu002 gpu003 gpu004 gpu005 gpu006 gpu007 gpu008 "
else
  fail "discover --nvlink-report problems.txt" "$(cat "$d/problems.err")"
fi

out=$("$ff" discover --from "$d/f.net" --blocks "$TOP_SRCDIR/tests/fixtures/slurm-blocks/two-blocks.conf" \
  --nvlink-report "$fx/pdsh-two-racks.txt" -o "$d/both.snap" 2>&1)
rc=$?
check "--blocks and --nvlink-report exclude each other (exit $rc): ${out%%$'\n'*}" \
  bash -c '[ "$1" -ne 0 ] && [[ $2 == *"excludes"* ]] && [ ! -e "$3" ]' _ "$rc" "$out" "$d/both.snap"

# ---- refusals: FILE:LINE: reason, no snapshot -------------------------------------------------
"$ff" discover --from "$d/f.net" -o "$d/old.snap" -q
# refused NAME EXPECTED: the fixture NAME is refused with the one line "fabricfit: FIXTURE:EXPECTED",
# an existing snapshot is left as it was, and none is written where there was none.
refused() {
  local name=$1 expected=$2 err rc
  cp "$d/old.snap" "$d/$name.snap"
  err=$("$ff" discover --from "$d/f.net" --nvlink-report "$fx/$name" -o "$d/$name.snap" 2>&1)
  rc=$?
  check "$name: refused (exit $rc) with: $expected" \
    bash -c '[ "$1" -ne 0 ] && [ "$2" = "fabricfit: $3" ]' _ "$rc" "$err" "$fx/$name:$expected"
  check "$name: the snapshot there is untouched" cmp -s "$d/old.snap" "$d/$name.snap"
  "$ff" discover --from "$d/f.net" --nvlink-report "$fx/$name" -o "$d/$name.new.snap" > /dev/null 2>&1
  check "$name: and no new snapshot (nor a temporary file) is written" \
    bash -c '[ -z "$(find "$1" -name "$2.new.snap*" -print -quit)" ]' _ "$d" "$name"
}

# A stray report (a retired node's, a login node's): warned about and left out.
if discover_report stray "$fx/unknown-host.txt" -q; then
  check "unknown-host.txt: gpu009, not in the fabric, is warned about and left out" \
    test "$(cat "$d/stray.err")" = "fabricfit: warning: $fx/unknown-host.txt:10: node gpu009 is not a host of the fabric (a retired node's or a login node's report?); left out"
  check "and gpu001 makes its domain alone" \
    test "$("$ff" show --json "$d/stray.snap" | jq -c '[.nvlink_domains[] | [.name, .hosts]]')" = '[["nvl-9c6f5af3-4026",["gpu001"]]]'
else
  fail "discover --nvlink-report unknown-host.txt" "$(cat "$d/stray.err")"
fi
# No node of the report in the fabric: the names differ in kind, refused.
sed 's/^gpu00\([19]\):/gpu00\1.cluster:/' "$fx/unknown-host.txt" > "$d/qualified.txt"
cp "$d/old.snap" "$d/qualified.snap"
err=$("$ff" discover --from "$d/f.net" --nvlink-report "$d/qualified.txt" -o "$d/qualified.snap" 2>&1)
check "a report none of whose nodes the fabric has is refused: $err" \
  bash -c '[[ $1 == "fabricfit: $2:1: node gpu001.cluster is not a host of the fabric, nor is any of the report'"'"'s 2 node(s) (the fabric'"'"'s hosts are named like gpu001)" ]] && cmp -s "$3" "$4"' \
  _ "$err" "$d/qualified.txt" "$d/old.snap" "$d/qualified.snap"
refused pdsh-message.txt "41: pdsh's or clush's own message, not a node's output (send their standard error elsewhere)"
refused garbled-uuid.txt "140: GPU 00000009:01:00.0: ClusterUUID '9c6f5af3-53bf-49b5-a436-' is not a UUID"
refused unprefixed.txt "2: not 'HOST: TEXT' as pdsh and clush print their nodes' output (one node's nvidia-smi -q goes in a directory, in a file named after the node)"

# ---- the collector, with a fake nvidia-smi ------------------------------------------------------
mkdir -p "$d/bin" "$d/reports"
# Prints the file FAKE_SMI_OUT and exits FAKE_SMI_RC, as nvidia-smi -q would.
printf '%s\n' '#!/bin/sh' '[ "$1" = -q ] || { echo "fake nvidia-smi: only -q" >&2; exit 64; }' \
  'cat "$FAKE_SMI_OUT"' 'exit "${FAKE_SMI_RC:-0}"' > "$d/bin/nvidia-smi"
chmod +x "$d/bin/nvidia-smi"
collect() { PATH="$d/bin:$PATH" "$collector" "$@"; }
for f in "$fx"/by-host/gpu*; do
  h=$(basename "$f" .txt)
  FAKE_SMI_OUT=$f collect "$d/reports" "$h" 2> "$d/collect.err" || fail "collector on $h" "$(cat "$d/collect.err")"
done
check "the collector writes nvidia-smi -q to DIR/HOST, as printed" \
  bash -c 'for f in "$1"/by-host/gpu*; do cmp -s "$f" "$2/$(basename "$f" .txt)" || exit 1; done' _ "$fx" "$d/reports"
check "readable by all (discover may run as another user), nothing else left in DIR" \
  bash -c '[ "$(cd "$1" && stat -c "%a %n" .[!.]* * 2> /dev/null | sort | tr "\n" " ")" = \
    "644 gpu001 644 gpu002 644 gpu003 644 gpu004 644 gpu005 644 gpu006 644 gpu007 644 gpu008 " ]' _ "$d/reports"
if discover_report collected "$d/reports" -q; then
  check "discover reads the collector's directory: the same domains as the fixture's" \
    test "$("$ff" show --json "$d/collected.snap" | jq -c '.nvlink_domains')" = \
    "$("$ff" show --json "$d/dir.snap" | jq -c '.nvlink_domains')"
else
  fail "discover --nvlink-report on the collector's directory" "$(cat "$d/collected.err")"
fi

cp "$d/reports/gpu001" "$d/gpu001.before"
err=$(FAKE_SMI_OUT=$fx/problems.txt FAKE_SMI_RC=9 collect "$d/reports" gpu001 2>&1)
rc=$?
check "a failing nvidia-smi: exit 1 with the reason ($err)" \
  bash -c '[ "$1" = 1 ] && [[ $2 == *"nvidia-smi -q failed (exit 9)"* ]]' _ "$rc" "$err"
check "and the last good report stays, with no temporary file left" \
  bash -c 'cmp -s "$1/gpu001.before" "$1/reports/gpu001" && [ -z "$(find "$1/reports" -name ".*" -type f)" ]' _ "$d"

FAKE_SMI_OUT=$fx/by-host/gpu002 collect "$d/reports" 2> "$d/collect.err"
check "without HOST the file is named hostname -s" cmp -s "$fx/by-host/gpu002" "$d/reports/$(hostname -s)"

# A PATH with what the collector needs but nvidia-smi.
mkdir -p "$d/nosmi"
for t in bash hostname mktemp chmod mv rm; do ln -s "$(command -v "$t")" "$d/nosmi/$t"; done
err=$(PATH="$d/nosmi" "$collector" "$d/reports" gpu001 2>&1)
rc=$?
check "no nvidia-smi on PATH: exit 2 saying so ($err)" \
  bash -c '[ "$1" = 2 ] && [[ $2 == *"nvidia-smi not found on PATH"* ]]' _ "$rc" "$err"
err=$(FAKE_SMI_OUT=$fx/by-host/gpu002 collect "$d/no-such-dir" gpu001 2>&1)
rc=$?
check "DIR not a directory: exit 1 saying so ($err)" \
  bash -c '[ "$1" = 1 ] && [[ $2 == *"is not a directory"* ]] && [ ! -e "$3" ]' _ "$rc" "$err" "$d/no-such-dir"
done_testing
