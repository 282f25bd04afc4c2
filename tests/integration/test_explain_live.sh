#!/usr/bin/env bash
# `fabricfit explain` and `fabricfit frag --live` against a real cluster: running and
# pending jobs read through Slurm's JSON output, scored on the lab's discovered fabric;
# the node_exporter textfile unit's command writes a complete metrics file; report --html
# opens in a real (headless) browser.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_fabricfit
spank=()
if [ -n "${FABRICFIT_SPANK_SO:-}" ]; then spank=(--spank-plugin "$FABRICFIT_SPANK_SO"); fi

make_tmpdir ff-test-explain
tmp=$TEST_TMPDIR
lab=$tmp/lab
snap=$lab/fabric.snapshot
port=$(pick_ports 20)
if ! lab_up "$lab" --nodes 16 --leaves 2 --topology tree "${spank[@]}" \
  --ctld-port "$port" --slurmd-port $((port + 1)); then
  fail "lab up"
  done_testing
fi
conf=$lab/fabricfit.conf

# A: 4 nodes in leaf group 1. B: forced over both leaf groups. C: the whole cluster (pending).
a=$(sbatch --parsable -N 4 -w 'gpu[001-004]' --gpus-per-node=8 -o /dev/null --wrap 'sleep 120')
b=$(sbatch --parsable -N 2 -w 'gpu[008-009]' --gpus-per-node=8 -o /dev/null --wrap 'sleep 120')
wait_for 30 bash -c "[ \"\$(squeue -h -j $a,$b -t R | wc -l)\" = 2 ]"
c=$(sbatch --parsable -N 16 --gpus-per-node=8 -o /dev/null --wrap true)
wait_for 20 bash -c "[ -n \"\$(squeue -h -j $c -o %r)\" ] && [ \"\$(squeue -h -j $c -o %r)\" != None ]"

"$FABRICFIT" explain "$b" --conf "$conf" > "$tmp/b.txt" 2>&1
check "explain of a running job prints where it is and the alternatives" \
  bash -c 'grep -q "^job '"$b"': RUNNING" "$1" && grep -q "^placed on" "$1" && grep -q "leaf groups  2" "$1" &&
           grep -q "^fabricfit.s choice on the same free GPUs" "$1" && grep -q "^topology/tree best fit" "$1" &&
           grep -q "GB per GB of message" "$1" && grep -q "GPUs the workload mix can no longer use" "$1"' _ "$tmp/b.txt"
diag "$(cat "$tmp/b.txt")"
check "explain of the running job labels its unusable GPUs as of now, on today's free GPUs" \
  grep -q "^  unusable     [-+][0-9.]* GPUs the workload mix can no longer use: now, on today.s free GPUs" "$tmp/b.txt"
"$FABRICFIT" explain "$b" --conf "$conf" --json > "$tmp/b.json"
"$FABRICFIT" score "$snap" --nodes 'gpu[008-009]' --pattern ring --gpus-per-node 8 --json > "$tmp/score.json"
check "explain --json: 2 leaf groups placed, fabricfit's choice on 1, its cross-spine traffic that of fabricfit score" \
  python3 -c '
import json, sys
e = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
p = e["placement"]
assert p["nodes"] == "gpu[008-009]", p
assert len(p["leaf_groups"]) == 2, p
assert abs(p["cross_spine_gb_per_gb"] - s["spine_bytes"]) < 1e-9, (p, s)
assert len(e["fabricfit_choice"]["leaf_groups"]) == 1, e["fabricfit_choice"]
assert e["fabricfit_choice"]["cross_spine_gb_per_gb"] == 0
assert "tree_choice" in e and e["state"] == "RUNNING"
' "$tmp/b.json" "$tmp/score.json"

"$FABRICFIT" explain "$c" --conf "$conf" > "$tmp/c.txt" 2>&1
"$FABRICFIT" explain "$c" --conf "$conf" --json > "$tmp/c.json" 2>&1
check "explain of a pending job says what it waits for and that nothing fits now" \
  bash -c 'grep -q "^job '"$c"': PENDING" "$1" && grep -q "^waits for: " "$1" && grep -q "none fits (no-fit)" "$1"' _ "$tmp/c.txt"
diag "$(cat "$tmp/c.txt")"
check "explain --json of the pending job has waits_for and no choice" \
  python3 -c 'import json, sys; e = json.load(open(sys.argv[1])); assert e["state"] == "PENDING" and e["waits_for"] and "fabricfit_choice" not in e, e' "$tmp/c.json"
if [ ! -e /var/lib/fabricfit/fabric.snapshot ]; then
  check "explain with no fabricfit.conf says none was found, what it tried, and the default snapshot path" \
    bash -c '! "$1" explain "$2" --conf "$3" 2> "$4" &&
             grep -qF "no fabricfit.conf found (tried $3, named by --conf); using the default snapshot path: /var/lib/fabricfit/fabric.snapshot: cannot open" "$4"' \
    _ "$FABRICFIT" "$b" "$tmp/no-such.conf" "$tmp/noconf.err"
  diag "$(cat "$tmp/noconf.err")"
fi
check "explain of a job Slurm does not know fails, naming it" \
  bash -c '! "$1" explain 999999 --conf "$2" 2> "$3" && grep -q "999999" "$3"' _ "$FABRICFIT" "$conf" "$tmp/none.err"
diag "$(cat "$tmp/none.err")"

# frag --live: 6 of 16 nodes busy, one of the two running jobs split over leaf groups.
"$FABRICFIT" frag "$snap" --live --json > "$tmp/frag.json"
check "frag --live --json: 80 of 128 GPUs free, 2 running GPU jobs, 1 split, 1 pending" \
  python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
assert f["free_gpus"] == 80 and f["total_gpus"] == 128, f
r = f["running_jobs"]
assert r["running_gpu_jobs"] == 2 and r["split_over_leaf_groups"] == 1, r
assert sum(r["pending_by_reason"].values()) == 1, r
assert 0 < r["cross_spine_share"] <= 1, r
assert [g["free_gpus"] for g in f["leaf_groups"]] == [24, 56], f["leaf_groups"]
' "$tmp/frag.json"
"$FABRICFIT" frag "$snap" --live > "$tmp/frag.txt"
check "frag --live text reports the running jobs" grep -q "^running GPU jobs: 2 (2 on several nodes, 1 over several leaf groups)" "$tmp/frag.txt"

# The textfile unit's command, with this tree's fabricfit.
mkdir -p "$tmp/textfile"
cmd=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" "$TOP_SRCDIR/contrib/systemd/fabricfit-textfile.service")
cmd=${cmd//\/usr\/local\/bin\/fabricfit/$FABRICFIT}
SNAPSHOT=$snap TEXTFILE_DIR=$tmp/textfile sh -c "$cmd"
prom=$tmp/textfile/fabricfit.prom
check "the textfile unit writes per leaf group free and unusable GPUs, the cross-spine share, pending jobs" \
  bash -c 'grep -qE "^fabricfit_leaf_group_free_gpus\{leaf_group=\"[^\"]+\"\} 24$" "$1" &&
           grep -qE "^fabricfit_leaf_group_unusable_gpus\{leaf_group=" "$1" &&
           grep -qE "^fabricfit_cross_spine_share 0\.[0-9]+" "$1" && grep -qE "^fabricfit_pending_jobs\{reason=" "$1" &&
           [ -z "$(ls "$2" | grep -v "^fabricfit.prom$")" ]' _ "$prom" "$tmp/textfile"

# report --html: one self-contained page, rendered by a real browser (headless Chromium in a
# network namespace of its own: it reaches nothing), screenshot taken, elements checked.
"$FABRICFIT" report "$snap" --html --live -o "$tmp/report.html"
check "report --html is self-contained (no scripts, no external references)" \
  bash -c '! grep -qiE "<script|src=|href=|@import|url\(" "$1"' _ "$tmp/report.html"
check "report --html is titled by the cluster's name from Slurm (the lab's ClusterName=fabricfit)" \
  grep -q "<h1>Cluster fabricfit</h1>" "$tmp/report.html"
check "and its fragmentation history has a time axis in UTC and a labelled value axis" \
  bash -c 'grep -q "<text class=\"x-tick\"" "$1" && grep -q ">time (UTC; " "$1" && grep -q ">fragmentation (unusable / free GPUs)<" "$1"' _ "$tmp/report.html"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
  chrome=(unshare --net "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions
          --disable-background-networking --disable-component-update --disable-sync --disable-default-apps
          --user-data-dir="$tmp/chromium")
  "${chrome[@]}" --window-size=1200,600 --screenshot="$tmp/report.png" "file://$tmp/report.html" > "$tmp/chromium.log" 2>&1
  check "headless Chromium rendered a screenshot of the page" \
    bash -c '[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -c | tr -d " ")" = "211PNG\r\n032\n" ]' _ "$tmp/report.png"
  "${chrome[@]}" --dump-dom "file://$tmp/report.html" > "$tmp/report.dom" 2>> "$tmp/chromium.log"
  check "the rendered page has the fabric: 2 leaf groups, 16 hosts, 6 busy, 10 free" \
    python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
assert "<div id=\"fabric\"" in dom, "no fabric"
assert len(re.findall(r"<div class=\"leaf-group[\" ]", dom)) == 2
hosts = re.findall(r"<div class=\"host (\w+)\" data-host=\"(gpu\d+)\"", dom)
assert len(hosts) == 16, hosts
busy = sorted(h for c, h in hosts if c == "busy")
assert busy == ["gpu001", "gpu002", "gpu003", "gpu004", "gpu008", "gpu009"], busy
assert sum(1 for c, _ in hosts if c == "free") == 10
' "$tmp/report.dom"
  check "and the last jobs' placements: both running jobs, one over 2 leaf groups" \
    python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
# job, state, placement, pattern, nodes, leaf groups, cross-spine
rows = re.findall(r"<tr class=\"job\"[^>]*><td class=\"id\">(\d+)</td><td>\w+</td><td[^>]*>[^<]*</td>"
                  r"<td[^>]*>[^<]*</td><td[^>]*>[^<]+</td><td>(\d+)</td>", dom)
ids = dict(rows)
assert ids[sys.argv[2]] == "1" and ids[sys.argv[3]] == "2", rows
' "$tmp/report.dom" "$a" "$b"
  check "and fragmentation over time from the job records, ending at the 80 GPUs free now" \
    python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
assert "<svg id=\"frag-history\"" in dom, "no history"
points = re.findall(r"<circle class=\"frag-point\" data-time=\"(\d+)\" data-free=\"(\d+)\"", dom)
assert points and all(0 <= int(f) <= 128 for _, f in points), points
assert int(max(points, key=lambda p: int(p[0]))[1]) == 80, points  # jobs starting in one second share a point
' "$tmp/report.dom"
  diag "screenshot: $tmp/report.png"
else
  fail "needs chromium, which is missing: package chromium; contrib/setup-slurm.sh installs it"
fi

scancel "$a" "$b" "$c"
lab_down "$lab" > /dev/null 2>&1
done_testing
