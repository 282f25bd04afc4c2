#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `fabricfit replay` with default options plays the plugin a site installs (issue 28): the
# adaptive locality wait with the plugin's LocalityWaitMax default (3600 s), not a fabricfit
# that never waits. A case small enough to follow by hand: 2 leaf groups of 3 hosts x 8 GPUs,
# one uplink each at 4xEDR (100 Gb/s). Jobs a and b (2 hosts each) hold two hosts of each
# group until t=100; job c (2 hosts, 1000 s, communication share 0.5) arrives at t=1. Split
# now, its ring wants 200 Gb/s at peak on each 100 Gb/s bundle (rho 0.5, slowdown 1.5: 500 s
# lost); a whole group frees at t=100 (99 s of waiting): it waits.
# No lab: needs only the fabricfit CLI (FABRICFIT_BIN, or build/fabricfit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

ff=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
[ -x "$ff" ] || ff=$(command -v fabricfit) || need_tool "${ff:-fabricfit}" "the build's command: install it or set FABRICFIT_BIN"
need_tool jq "package jq; contrib/setup-slurm.sh installs it"
make_tmpdir ff-replay-cli || { fail "mktemp"; done_testing; }
d=$TEST_TMPDIR

if ! "$ff" generate --leaves 2 --hosts-per-leaf 3 --spines 1 --uplinks 1 \
     --degrade groups=1-2,fraction=1,rate=4xEDR -o "$d/f.net" > /dev/null 2> "$d/generate.err" ||
   ! "$ff" discover --from "$d/f.net" -o "$d/f.snap" -q 2>> "$d/generate.err"; then
  fail "generate and discover the fabric" "$(cat "$d/generate.err")"; done_testing
fi
printf '%s\n' job_id,submission_time,duration,num_gpu a,0,100,16 b,0,100,16 c,1,1000,16 > "$d/trace.csv"

# replay OPTIONS...: fabricfit's JSON for the trace, peak demand, every share 0.5.
replay() {
  "$ff" replay "$d/f.snap" --trace "$d/trace.csv" --format elasticflow --policies fabricfit \
    --demand peak --comm-shares 0.5 --json "$@"
}
if ! replay > "$d/default.json" 2> "$d/default.err"; then
  fail "fabricfit replay with default options" "$(cat "$d/default.err")"; done_testing
fi
cap=$(jq -r '.adaptive_wait_cap_s' "$d/default.json")
check "by default the wait cap is the plugin's LocalityWaitMax default, 3600 s (got $cap)" test "$cap" = 3600
waits=$(jq -r '[.. | objects | select(has("locality_waits")) | .locality_waits] | first' "$d/default.json")
check "and fabricfit waits for a leaf group, as the plugin would (locality_waits $waits)" test "$waits" = 1
check "--help says so" bash -c '"$1" replay --help | grep -A3 -- "--wait-cap" | grep -q "3600"' _ "$ff"

replay --wait-cap 0 > "$d/never.json" 2> "$d/never.err" || fail "fabricfit replay --wait-cap 0" "$(cat "$d/never.err")"
cap0=$(jq -r '.adaptive_wait_cap_s' "$d/never.json")
waits0=$(jq -r '[.. | objects | select(has("locality_waits")) | .locality_waits] | first' "$d/never.json")
check "--wait-cap 0 still turns the wait off (cap $cap0, locality_waits $waits0)" \
  test "$cap0" = 0 -a "$waits0" = 0

# --faults (docs/placement.md, "Faults"): host links flap about every 86 s each (1,000 a day,
# 600 s episodes, a drop every 50 s), so jobs fail under tree, which is blind to it, and
# fabricfit's wait for a healthy fabric; the report says so per policy, beside the rates it
# read, and every job still ends.
"$ff" replay "$d/f.snap" --trace "$d/trace.csv" --format elasticflow --policies fabricfit,tree \
  --faults host-flap=1000,episode=600,flap-every=50,detect=0 --json > "$d/faults.json" 2> "$d/faults.err" ||
  fail "fabricfit replay --faults" "$(cat "$d/faults.err")"
spec=$(jq -r '.faults' "$d/faults.json")
check "the report gives the fault rates as read ($spec)" \
  bash -c '[[ $1 == host-flap=1000,uplink-flap=0,* ]]' _ "$spec"
tree_failed=$(jq -r '.results[] | select(.policy == "tree") | .faults.jobs_failed' "$d/faults.json")
check "tree's jobs fail on the flapping links ($tree_failed)" test "${tree_failed:-0}" -gt 0
lost=$(jq -r '.results[] | select(.policy == "tree") | .faults.gpu_hours_lost' "$d/faults.json")
check "and lose GPU-hours against the healthy fabric ($lost)" awk -v x="$lost" 'BEGIN { exit !(x > 0) }'
ff_failed=$(jq -r '.results[] | select(.policy == "fabricfit") | .faults.jobs_failed' "$d/faults.json")
check "fabricfit's fail less often: it waits off the links sweeps saw flap ($ff_failed < $tree_failed)" \
  test "${ff_failed:-0}" -lt "${tree_failed:-0}"
ended=$(jq -r '[.results[] | .classes.all.jobs] | join(" ")' "$d/faults.json")
check "and every job ends under both, none left in the queue ($ended)" test "$ended" = "3 3"
"$ff" replay "$d/f.snap" --trace "$d/trace.csv" --format elasticflow --faults stress,often=1 > /dev/null 2> "$d/bad.err"
check "a bad --faults item is refused by name" grep -q "often: unknown key" "$d/bad.err"

# NVLink domains (issue 30): 2 leaf groups of 4 hosts, domains of 2. x (one host) runs long;
# y (2 hosts, 100 s, share 0.5) fits a domain: fabricfit and block keep it in one, tree's
# best fit by leaf takes the first free hosts of its tightest group, over a domain edge,
# and pays the cliff: 100 x (1 + 0.5 x 35) = 1850 s.
if ! "$ff" generate --leaves 2 --hosts-per-leaf 4 --spines 1 --nvl-domain-size 2 --blocks-output "$d/b.conf" \
     -o "$d/n.net" > /dev/null 2> "$d/n.err" ||
   ! "$ff" discover --from "$d/n.net" --blocks "$d/b.conf" -o "$d/n.snap" -q 2>> "$d/n.err"; then
  fail "generate and discover a fabric with domains" "$(cat "$d/n.err")"; done_testing
fi
printf '%s\n' job_id,submission_time,duration,num_gpu x,0,5000,8 y,1,100,16 > "$d/n.csv"
"$ff" replay "$d/n.snap" --trace "$d/n.csv" --format elasticflow --policies fabricfit,block,tree \
  --comm-shares 0.5 --json > "$d/n.json" 2> "$d/n.err" || fail "replay on domains" "$(cat "$d/n.err")"
split=$(jq -r '[.results[] | "\(.policy)=\(.domain_split_share)"] | join(" ")' "$d/n.json")
check "tree spreads y over two domains, fabricfit and block do not ($split)" \
  test "$split" = "fabricfit=0 block=0 tree=1"
jct=$(jq -r '[.results[] | .classes.within_group.jct_mean_s] | join(" ")' "$d/n.json")
check "and y runs 100 s under fabricfit and block, 1850 s under tree ($jct)" test "$jct" = "100 100 1850"
"$ff" replay "$d/n.snap" --trace "$d/n.csv" --format elasticflow --policies fabricfit,tree --comm-shares 0.5 \
  > "$d/n.txt" 2>&1
check "the text report counts them per policy" \
  bash -c 'grep -qE "^policy +domain_jobs +domain_split +whole_free +half_free +whole_share +wide_jobs +wide_jct_s +wide_gpu_h$" "$1" && grep -qE "^tree +1 +1.000 " "$1"' _ "$d/n.txt"
# Block's objective, time-weighted over the 5000 s: x breaks one domain all along; y takes a
# second whole domain for 100 s under fabricfit, but breaks two for 1850 s under tree.
whole=$(jq -r '[.results[] | "\(.policy)=\(.diagnostics.domain_whole_free_mean)"] | join(" ")' "$d/n.json")
check "whole free domains over time: fabricfit and block keep about 3 of 4, tree fewer ($whole)" \
  python3 -c 'import sys; w = dict(x.split("=") for x in sys.argv[1].split()); f, b, t = (float(w[k]) for k in ("fabricfit", "block", "tree"))
assert 2.9 < f < 3 and abs(f - b) < 1e-9 and t < f - 0.2, w' "$whole"
# --segment (block's option): 2 leaf groups of 4 hosts, one domain of 4 under each. a (2
# hosts) runs 5000 s; b (6 hosts, 100 s) is wider than a domain. Without segments it starts
# at once over 2 + 4 hosts; with --segment 3 every 3 of its hosts lie in one domain, which
# the domain a half fills cannot give: under fabricfit and block it waits for a to end
# (completion 5000 - 1 + 100 s); tree ignores segments.
if ! "$ff" generate --leaves 2 --hosts-per-leaf 4 --spines 1 --nvl-domain-size 4 --blocks-output "$d/s.conf" \
     -o "$d/s.net" > /dev/null 2> "$d/s.err" ||
   ! "$ff" discover --from "$d/s.net" --blocks "$d/s.conf" -o "$d/s.snap" -q 2>> "$d/s.err"; then
  fail "generate and discover a fabric with domains of 4" "$(cat "$d/s.err")"; done_testing
fi
printf '%s\n' job_id,submission_time,duration,num_gpu a,0,5000,16 b,1,100,48 > "$d/s.csv"
for seg in 0 3; do
  "$ff" replay "$d/s.snap" --trace "$d/s.csv" --format elasticflow --policies fabricfit,block,tree \
    --segment "$seg" --json > "$d/s$seg.json" 2> "$d/s.err" || fail "replay --segment $seg" "$(cat "$d/s.err")"
done
jct=$(jq -r '[.results[] | .classes.wider.jct_mean_s] | join(" ")' "$d/s0.json")
check "without --segment b starts at once under every policy ($jct)" test "$jct" = "100 100 100"
jct=$(jq -r '[.results[] | .classes.wider.jct_mean_s] | join(" ")' "$d/s3.json")
check "with --segment 3 fabricfit and block wait for whole segments, tree does not ($jct)" \
  test "$jct" = "5099 5099 100"
check "the JSON says which segment and how many jobs ask it" \
  test "$(jq -c '[.segment_nodes, .segment_jobs]' "$d/s3.json")" = "[3,1]"
"$ff" replay "$d/s.snap" --trace "$d/s.csv" --format elasticflow --policies block --segment 3 > "$d/s3.txt" 2>&1
check "and so does the text report" grep -q "^segment:  --segment=3, asked by the jobs wider than an NVLink domain whose node count it divides (1)$" "$d/s3.txt"
# --per-job: every job's run under each policy, where and how long.
"$ff" replay "$d/s.snap" --trace "$d/s.csv" --format elasticflow --policies fabricfit,block,tree --segment 3 \
  --per-job "$d/pj.csv" > /dev/null 2> "$d/pj.err" || fail "replay --per-job" "$(cat "$d/pj.err")"
check "--per-job writes a header and one row per job and policy ($(wc -l < "$d/pj.csv") lines)" \
  bash -c 'head -1 "$1" | grep -q "^policy,seed,id,nodes,.*,start_s,end_s,wait_s,run_s,duration_s,run_x,leaf_groups,domains,alone_s$" && [ "$(wc -l < "$1")" = 7 ]' _ "$d/pj.csv"
row=$(awk -F, '$1 == "block" && $3 == "b" { print $11 "|" $15 "|" $16 }' "$d/pj.csv")
check "block's b waited 4999 s for two segments of 3, one per domain ($row)" test "$row" = '4999.000|2|"nvl0:3 nvl1:3"'
row=$(awk -F, '$1 == "tree" && $3 == "b" { print $11 "|" $16 }' "$d/pj.csv")
check "tree's b started at once, 2 and 4 hosts of the two domains ($row)" test "$row" = '0.000|"nvl0:2 nvl1:4"'
alone=$(awk -F, '$3 == "b" { print $17 }' "$d/pj.csv" | sort -u)
dur=$(awk -F, '$1 == "tree" && $3 == "b" { print $13 }' "$d/pj.csv")
check "b's alone_s is one figure for every policy, not below its duration ($alone, $dur)" \
  bash -c '[ "$(wc -l <<< "$1")" = 1 ] && awk -v a="$1" -v d="$2" "BEGIN { exit !(a + 0 >= d + 0 && d + 0 > 0) }"' _ "$alone" "$dur"
# --backfill reserve (Slurm's backfill): one leaf group of 4 hosts. a (2 hosts) runs 1000 s;
# b (4 hosts) cannot start until it ends; c (2 hosts, 5000 s) and d (2 hosts, 500 s) come
# after b. Skipping, c takes the 2 free hosts at once and b waits for c (starts at 5002);
# reserving, b holds every host from 1000 on: c, which would still run then, waits, while
# d, done by 1000 (by its limit), starts at once on the hosts c did not take.
if ! "$ff" generate --leaves 1 --hosts-per-leaf 4 --spines 1 -o "$d/q.net" > /dev/null 2> "$d/q.err" ||
   ! "$ff" discover --from "$d/q.net" -o "$d/q.snap" -q 2>> "$d/q.err"; then
  fail "generate and discover one leaf group" "$(cat "$d/q.err")"; done_testing
fi
printf '%s\n' job_id,submission_time,duration,num_gpu a,0,1000,16 b,1,100,32 c,2,5000,16 d,3,500,16 > "$d/q.csv"
for bf in skip reserve; do
  "$ff" replay "$d/q.snap" --trace "$d/q.csv" --format elasticflow --policies fabricfit,tree --backfill "$bf" \
    --per-job "$d/q-$bf.csv" > /dev/null 2> "$d/q.err" || fail "replay --backfill $bf" "$(cat "$d/q.err")"
done
starts() { awk -F, -v p="$2" '$1 == p { printf "%s%s=%d", (n++ ? " " : ""), $3, $9 }' "$1"; }
check "skipping, c and d pass b, which starts when c ends ($(starts "$d/q-skip.csv" tree))" \
  test "$(starts "$d/q-skip.csv" tree)" = "a=0 b=5002 c=2 d=1000"
check "reserving, b starts when a ends; d, which ends in time, goes first ($(starts "$d/q-reserve.csv" tree))" \
  test "$(starts "$d/q-reserve.csv" tree)" = "a=0 b=1000 c=1100 d=3"
check "and fabricfit's queue behaves alike ($(starts "$d/q-reserve.csv" fabricfit))" \
  test "$(starts "$d/q-reserve.csv" fabricfit)" = "a=0 b=1000 c=1100 d=3"
# The reservation's time comes from the running jobs' ends: r1..r4 (one host each) end at
# 100, 200, 300 and 5000; w (5 hosts) never fits the 4 and reserves nothing, so b (2 hosts)
# is the first blocked job to reserve: the hosts of r1 and r2, from 200. c (150 s), which
# would still run then, waits for b to end (250); d (90 s) fits before it, on r1's host at 100.
# Skipping, c takes r1's host at 100, d r2's at 200, and b waits until both end (290).
printf '%s\n' job_id,submission_time,duration,num_gpu r1,0,100,8 r2,0,200,8 r3,0,300,8 r4,0,5000,8 \
  w,1,10,40 b,2,50,16 c,3,150,8 d,4,90,8 > "$d/k.csv"
for bf in skip reserve; do
  "$ff" replay "$d/q.snap" --trace "$d/k.csv" --format elasticflow --policies tree --backfill "$bf" \
    --per-job "$d/k-$bf.csv" > /dev/null 2> "$d/k.err" || fail "replay --backfill $bf (k)" "$(cat "$d/k.err")"
done
bcd() { starts "$1" tree | tr ' ' '\n' | grep -E '^(b|c|d)=' | tr '\n' ' ' | sed 's/ $//'; }
check "skipping: c at 100, d at 200, b at 290 ($(bcd "$d/k-skip.csv"))" test "$(bcd "$d/k-skip.csv")" = "b=290 c=100 d=200"
check "reserving: b when r2 ends (200), d before it, c when b ends ($(bcd "$d/k-reserve.csv"))" \
  test "$(bcd "$d/k-reserve.csv")" = "b=200 c=250 d=100"
"$ff" replay "$d/q.snap" --trace "$d/q.csv" --format elasticflow --backfill never > /dev/null 2> "$d/qb.err"
check "an unknown --backfill is refused: $(cat "$d/qb.err")" grep -q "backfill" "$d/qb.err"
"$ff" replay "$d/s.snap" --trace "$d/s.csv" --format elasticflow --policies block --segment 5 > /dev/null 2> "$d/s5.err"
check "a segment larger than the largest domain is refused: $(cat "$d/s5.err")" \
  grep -q "5 is more nodes than the largest NVLink domain has (4)" "$d/s5.err"
"$ff" replay "$d/f.snap" --trace "$d/trace.csv" --format elasticflow --segment 2 > /dev/null 2> "$d/sf.err"
check "and --segment on a fabric without domains: $(cat "$d/sf.err")" grep -q "needs NVLink domains" "$d/sf.err"
"$ff" replay "$d/f.snap" --trace "$d/trace.csv" --format elasticflow --policies block > /dev/null 2> "$d/nb.err"
check "block on a fabric without domains is refused: $(cat "$d/nb.err")" grep -qi "domain" "$d/nb.err"
done_testing
