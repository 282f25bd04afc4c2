#!/usr/bin/env bash
# `fabricfit report --html --live` for diagnosis, read the way an admin reads it: rendered by
# headless Chromium from a real cluster's jobs (a ring, an all-to-all, an array, a job the
# plugin declines), and checked on the rendered page: the cluster's name as title, host names
# as text, the jobs table's placement and pattern columns, array tasks as Slurm names them
# (24_0), a caption true to the pattern, and a layout that fills the page (no blank half:
# element boxes measured in the page, and the ink in each quadrant of a screenshot).
# FABRICFIT_REPORT_PNG=FILE keeps the screenshot (docs/report.png is one).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_fabricfit
# Never a silent pass without a browser: the page's rendering is what this test is about.
need_tool chromium "package chromium; contrib/setup-slurm.sh installs it"
need_tool python3 "package python3"

lab_prepare ff-test-report 20
tmp=$TEST_TMPDIR
lab_start --nodes 16 --leaves 2 --spank-plugin "$(spank_so)"
snap=$lab/fabric.snapshot
admin_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p'; }
has_record() { [[ "$(admin_comment "$1")" == *"fabricfit placement="* ]]; }

# A short job over both leaf groups first (the history gets its start and end), then a job
# that names its nodes across the leaf groups, which fabricfit leaves to Slurm's own selection
# (reason required-nodes), ring and all-to-all over 2 nodes each, an array of two one-node tasks.
short=$(sbatch --parsable -N 10 --gpus-per-node=8 -o /dev/null --wrap 'sleep 2')
state=$(wait_job "$short" 60)
check "a short job over both leaf groups ran ($state)" test "$state" = COMPLETED
named=$(sbatch --parsable -N 2 -w 'gpu[008-009]' --gpus-per-node=8 -o /dev/null --wrap 'sleep 300')
ring=$(sbatch --parsable -N 2 --gpus-per-node=8 --comm-pattern=ring -o /dev/null --wrap 'sleep 300')
a2a=$(sbatch --parsable -N 2 --gpus-per-node=8 --comm-pattern=alltoall -o /dev/null --wrap 'sleep 300')
arr=$(sbatch --parsable --array=0-1 -N 1 --gpus-per-node=8 -o /dev/null --wrap 'sleep 300')
check "the jobs run: 5 (2 array tasks)" \
  wait_for 60 bash -c "[ \"\$(squeue -h -t R -j $ring,$a2a,$arr,$named | wc -l)\" = 5 ]"
export -f admin_comment has_record
check "each has its placement record" \
  wait_for 30 bash -c "has_record $ring && has_record $a2a && has_record ${arr}_0 && has_record ${arr}_1 && has_record $named"
diag "records: ring: $(admin_comment "$ring") | alltoall: $(admin_comment "$a2a") | named: $(admin_comment "$named")"

"$FABRICFIT" report "$snap" --html --live -o "$tmp/report.html"
check "report --html --live writes the page" test -s "$tmp/report.html"

browser=$(command -v chromium)
# In a network namespace of its own: a self-contained page needs nothing from outside.
chrome=(unshare --net "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions
        --disable-background-networking --disable-component-update --disable-sync --disable-default-apps
        --hide-scrollbars --user-data-dir="$tmp/chromium")
"${chrome[@]}" --dump-dom "file://$tmp/report.html" > "$tmp/report.dom" 2> "$tmp/chromium.log"
check "Chromium renders it" grep -q '<table id="jobs">' "$tmp/report.dom"

# The rendered DOM as a reader sees it: text outside tags, tooltips and styles.
cat > "$tmp/read.py" <<'PY'
import html.parser, json, sys

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.skip, self.title, self.h1 = [], 0, "", ""
        self.cell, self.row, self.rows, self.heads, self.caption, self.where = None, None, [], [], "", []
    def handle_starttag(self, tag, attrs):
        if tag in ("meta", "br", "hr", "img", "input", "link", "wbr"): return  # no end tag
        self.where.append(tag)
        if tag in ("style", "script"): self.skip += 1
        if tag == "tr": self.row = []
        if tag in ("td", "th"): self.cell = ""
    def handle_endtag(self, tag):
        if tag in self.where:
            while self.where.pop() != tag: pass
        if tag in ("style", "script"): self.skip -= 1
        if tag in ("td", "th") and self.row is not None:
            (self.heads if tag == "th" else self.row).append(self.cell.strip()); self.cell = None
        if tag == "tr" and self.row: self.rows.append(self.row); self.row = None
    def handle_data(self, data):
        if not self.where: return
        tag = self.where[-1]
        if tag == "title" and "svg" not in self.where: self.title += data
        if tag == "title": return  # a tooltip (the page's own title is in <head>)
        if tag == "h1": self.h1 += data
        if tag == "caption": self.caption += data
        if self.cell is not None: self.cell += data
        if not self.skip and "head" not in self.where: self.text.append(data)

p = Page()
p.feed(open(sys.argv[1]).read())
json.dump({"title": p.title, "h1": p.h1, "text": " ".join(" ".join(p.text).split()),
           "heads": p.heads, "rows": p.rows, "caption": " ".join(p.caption.split())}, sys.stdout)
PY
python3 "$tmp/read.py" "$tmp/report.dom" > "$tmp/page.json"
diag "jobs table: $(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["heads"]); [print(r) for r in p["rows"]]' "$tmp/page.json")"
check "titled by the cluster's name (the lab's ClusterName=fabricfit)" \
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["h1"] == "Cluster fabricfit" and p["title"].startswith("Cluster fabricfit:"), (p["h1"], p["title"])' "$tmp/page.json"
check "every host's name is text on the page, not only a tooltip" \
  python3 -c '
import json, sys
text = " " + json.load(open(sys.argv[1]))["text"] + " "
missing = [f"gpu{i:03}" for i in range(1, 17) if f" gpu{i:03} " not in text]
assert not missing, missing' "$tmp/page.json"
check "the jobs table has placement and pattern columns" \
  python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["heads"]; assert h[:4] == ["job", "state", "placement", "pattern"] and "nodes" in h and "cross-spine" in h, h' "$tmp/page.json"
check "ring and all-to-all jobs: placed by fabricfit, with their patterns" \
  python3 -c '
import json, sys
rows = {r[0]: r for r in json.load(open(sys.argv[1]))["rows"]}
ring, a2a = rows[sys.argv[2]], rows[sys.argv[3]]
assert ring[2] == "fabricfit" and ring[3] == "ring", ring
assert a2a[2] == "fabricfit" and a2a[3] == "alltoall", a2a' "$tmp/page.json" "$ring" "$a2a"
check "the job that named its nodes: Slurm's selection, with the reason, over 2 leaf groups" \
  python3 -c '
import json, sys
r = {r[0]: r for r in json.load(open(sys.argv[1]))["rows"]}[sys.argv[2]]
assert r[2] == "Slurm (required-nodes)" and r[4] == "gpu[008-009]" and r[5] == "2", r' "$tmp/page.json" "$named"
check "array tasks named as Slurm names them (${arr}_0, ${arr}_1)" \
  python3 -c '
import json, sys
ids = [r[0] for r in json.load(open(sys.argv[1]))["rows"]]
assert sys.argv[2] + "_0" in ids and sys.argv[2] + "_1" in ids, ids' "$tmp/page.json" "$arr"
check "with several patterns the caption says each job's pattern, not a ring's" \
  python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["caption"]
assert "each job" in c and "ring" not in c, c' "$tmp/page.json"

# The same page for the all-to-all job alone (Slurm's own JSON, that job's record kept).
scontrol show jobs --json > "$tmp/jobs.json"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); j["jobs"] = [x for x in j["jobs"] if str(x["job_id"]) == sys.argv[2]]
json.dump(j, open(sys.argv[3], "w"))' "$tmp/jobs.json" "$a2a" "$tmp/a2a.json"
"$FABRICFIT" report "$snap" --html --live --jobs-json "$tmp/a2a.json" -o "$tmp/a2a.html"
"${chrome[@]}" --dump-dom "file://$tmp/a2a.html" > "$tmp/a2a.dom" 2>> "$tmp/chromium.log"
python3 "$tmp/read.py" "$tmp/a2a.dom" > "$tmp/a2a-page.json"
check "an all-to-all's caption says all-to-all, not ring" \
  python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["caption"]
assert "all-to-all" in c and "ring" not in c, c' "$tmp/a2a-page.json"

# Layout, measured by the browser: a copy of the page with a probe that writes the boxes of
# its parts into the DOM (the report itself has no scripts).
sed 's|</body>|<script>addEventListener("load", () => { const box = s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }; const p = document.createElement("pre"); p.id = "probe"; p.textContent = JSON.stringify({width: innerWidth, height: document.documentElement.scrollHeight, fabric: box("#fabric-section"), frag: box("#frag-section"), jobs: box("#jobs-section"), hosts: [...document.querySelectorAll(".host")].map(h => [h.textContent, h.getBoundingClientRect().width])}); document.body.appendChild(p); });</script></body>|' \
  "$tmp/report.html" > "$tmp/probe.html"
"${chrome[@]}" --window-size=1400,900 --virtual-time-budget=2000 --dump-dom "file://$tmp/probe.html" > "$tmp/probe.dom" 2>> "$tmp/chromium.log"
sed -n 's|.*<pre id="probe">\([^<]*\)</pre>.*|\1|p' "$tmp/probe.dom" | sed 's/&quot;/"/g' > "$tmp/probe.json"
diag "layout at 1400 px: $(cat "$tmp/probe.json")"
check "at 1400 px the fragmentation sits beside the fabric, and the jobs table spans the page" \
  python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
f, g, j = p["fabric"], p["frag"], p["jobs"]
assert g[0] >= f[2] and g[1] < f[3], ("frag not beside the fabric", f, g)
assert j[2] - j[0] >= 0.85 * p["width"], ("jobs table narrow", j, p["width"])
hosts = p["hosts"]
assert len(hosts) == 16 and all(w > 0 and name.startswith("gpu0") for name, w in hosts), hosts' "$tmp/probe.json"
height=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["height"]))' "$tmp/probe.json" 2>/dev/null || echo 1200)
# The whole page in one picture (half scale: fewer pixels for the check to read).
"${chrome[@]}" --window-size=1400,"$height" --force-device-scale-factor=0.5 --screenshot="$tmp/half.png" \
  "file://$tmp/report.html" >> "$tmp/chromium.log" 2>&1
ink=$(python3 "$here/png_ink.py" "$tmp/half.png" 2>&1)
check "no quadrant of the page is blank (ink top-left top-right bottom-left bottom-right: $ink)" \
  python3 -c 'import sys; v = [float(x) for x in sys.argv[1:]]; assert len(v) == 4 and min(v) >= 0.01, v' $ink
if [ -n "${FABRICFIT_REPORT_PNG:-}" ]; then
  "${chrome[@]}" --window-size=1400,"$height" --screenshot="$FABRICFIT_REPORT_PNG" "file://$tmp/report.html" >> "$tmp/chromium.log" 2>&1
  diag "screenshot: $FABRICFIT_REPORT_PNG"
fi

scancel "$ring" "$a2a" "$arr" "$named"
lab_down "$lab" > /dev/null 2>&1
done_testing
