#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `fabricfit slowdown` (the lab's job emulator asks it, bench/lab_job.sh) against
# hand-computed cases (docs/placement.md, "Run-time model"): 2 leaf groups of 4 hosts x 8
# GPUs at 4xHDR (200 Gb/s), 2 uplinks each (2:1, 400 Gb/s a direction). A 2-host ring over
# both groups wants one host's line rate, 200 Gb/s, on each group's bundle at peak.
# No lab: needs only the fabricfit CLI (FABRICFIT_BIN, or build/fabricfit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

ff=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
[ -x "$ff" ] || ff=$(command -v fabricfit) || need_tool "${ff:-fabricfit}" "the build's command: install it or set FABRICFIT_BIN"
make_tmpdir ff-slowdown || { fail "mktemp"; done_testing; }
d=$TEST_TMPDIR

if ! "$ff" generate --leaves 2 --hosts-per-leaf 4 --spines 2 --uplinks 2 -o "$d/ok.net" > /dev/null ||
   ! "$ff" discover --from "$d/ok.net" -o "$d/ok.snap" -q; then
  fail "generate and discover the 2:1 fabric"; done_testing
fi
if ! "$ff" generate --leaves 2 --hosts-per-leaf 4 --spines 2 --uplinks 2 --degrade groups=1,fraction=0.5,rate=4xEDR \
     -o "$d/deg.net" > /dev/null || ! "$ff" discover --from "$d/deg.net" -o "$d/deg.snap" -q; then
  fail "generate and discover the degraded fabric"; done_testing
fi

# is NAME GOT WANT: GOT equals WANT to 4 decimals.
is() {
  if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; exit !(d < 0.0001 && d > -0.0001) }'; then ok "$1 ($2)"
  else fail "$1" "got '$2', want $3"; fi
}
job() { printf '{"job": "%s", "nodes": "%s", "pattern": "ring", "comm_share": 0.5}' "$1" "$2"; }
sd() { "$ff" slowdown "$@" --pattern ring --comm-share 0.5 -q 2>&1; }

is "a split ring alone on 2:1 at peak: 200 of 400 Gb/s, no slowdown" \
  "$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --demand peak)" 1
mkdir -p "$d/reg"
job 11 'gpu[002,006]' > "$d/reg/11.json"
job 12 'gpu[003,007]' > "$d/reg/12.json"
is "three split rings at peak: 600 of 400 Gb/s, rho 2/3, s = 0.5 + 0.5 x 1.5" \
  "$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --demand peak --running "$d/reg")" 1.25
is "the same time-averaged: 3 x 100 of 400 Gb/s, no slowdown" \
  "$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --running "$d/reg")" 1
is "a one-host job is never slowed" "$(sd "$d/ok.snap" --nodes gpu001 --demand peak --running "$d/reg")" 1
is "a ring inside one leaf group uses no uplink" \
  "$(sd "$d/ok.snap" --nodes 'gpu[001-002]' --demand peak --running "$d/reg")" 1
rm "$d/reg/12.json"
job 10 'gpu[001,005]' > "$d/reg/10.json"
is "--job-id leaves the job's own registry entry out: 2 rings, 400 of 400" \
  "$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --demand peak --running "$d/reg" --job-id 10)" 1
is "without --job-id its entry counts as another job: 600 of 400" \
  "$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --demand peak --running "$d/reg")" 1.25
rm "$d/reg/10.json"
is "two split rings on the degraded group (2 x 100 Gb/s ECMP): 400 of 200, rho 0.5, s = 1.5" \
  "$(sd "$d/deg.snap" --nodes 'gpu[001,005]' --demand peak --running "$d/reg")" 1.5
job 13 'gpu[003,007]' > "$d/reg/13.json"
# Time-averaged, the job's bytes move at rho of its average rate over the whole run:
# s = 1/rho, so the bundle delivers 3 x 100 / 1.5 = 200 Gb/s, its capacity (docs/placement.md,
# "Time-averaged demand conserves bytes"); 0.5 + 0.5 x 1.5 = 1.25 would deliver 240.
is "three split rings time-averaged on the degraded group: 300 of 200, rho 2/3, s = 1/rho" \
  "$(sd "$d/deg.snap" --nodes 'gpu[001,005]' --running "$d/reg")" 1.5
rm "$d/reg/13.json"
printf '[%s, %s]\n' "$(job 11 'gpu[002,006]')" "$(job 12 'gpu[003,007]')" > "$d/running.json"
is "--running takes a JSON array file too" \
  "$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --demand peak --running "$d/running.json")" 1.25
json=$("$ff" slowdown "$d/deg.snap" --nodes 'gpu[001,005]' --pattern ring --comm-share 0.5 --demand peak \
  --running "$d/reg" --json 2>&1)
check "--json names the slowdown, the job alone and the tightest bundle" \
  python3 -c 'import json, sys; j = json.loads(sys.argv[1]); assert abs(j["slowdown"] - 1.5) < 1e-9 and j["slowdown_alone"] == 1 and j["leaf_groups"] == 2 and j["jobs_sharing_bundles"] == 1 and j["tightest_bundle"], j' "$json"
echo '{"job": 13, "nodes": "gpu[004,008]", "comm_share": 2}' > "$d/reg/13.json"
out=$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --running "$d/reg")
rc=$?
# shellcheck disable=SC2016 # for the inner shell
check "a bad registry entry fails naming its file and the reason" \
  bash -c '[ "$1" -ne 0 ] && grep -q "13.json: comm_share must be 0 to 1" <<<"$2"' _ "$rc" "$out"
rm "$d/reg/13.json"
echo '{"job": 14, "nodes": "gpu[004,099]"}' > "$d/reg/14.json"
out=$(sd "$d/ok.snap" --nodes 'gpu[001,005]' --running "$d/reg")
check "a registry job on hosts the fabric lacks is named" grep -q "not in the fabric: gpu099" <<<"$out"
done_testing
