#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The NVL72 stream of issue 30 item 5 (bench/nvl72_stream.py): a seed draws the same stream
# every time and another seed another one; its jobs follow the documented mix (one tray of
# 1, 2 or 4 GPUs; 2 to 18 whole trays; 2 to 16 whole domains of 18 trays) in its shares;
# and the replay reads it on 4-GPU trays of 32 NVL72 domains and places every job, none that
# a domain holds spread over two under fabricfit or block. Part of `make check`; needs the
# fabricfit CLI (FABRICFIT_BIN, set by `make check`, or build/fabricfit), jq and python3.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/../integration/lib.sh"

cli_test_start ff-nvl72-stream
need_tool python3 "package python3; contrib/setup-slurm.sh installs it"
gen=$TOP_SRCDIR/bench/nvl72_stream.py

python3 "$gen" 3 1500 > "$d/a.csv" && python3 "$gen" 3 1500 > "$d/b.csv" && python3 "$gen" 4 1500 > "$d/c.csv" ||
  { fail "nvl72_stream.py"; done_testing; }
check "a seed draws the same stream twice" cmp -s "$d/a.csv" "$d/b.csv"
check "another seed draws another stream" bash -c '! cmp -s "$1" "$2"' _ "$d/a.csv" "$d/c.csv"

# Every line a job of the mix, arrivals in order; the classes' shares within about 4
# standard errors of 30 %, 55 % and 15 % (1,500 jobs: about 1.2, 1.3 and 0.9 points).
shape=$(python3 - "$d/a.csv" << 'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r["job_id"] for r in rows if not (
    int(r["num_gpu"]) in (1, 2, 4)
    or (8 <= int(r["num_gpu"]) <= 72 and int(r["num_gpu"]) % 4 == 0)
    or (144 <= int(r["num_gpu"]) <= 16 * 72 and int(r["num_gpu"]) % 72 == 0))]
times = [float(r["submission_time"]) for r in rows]
ordered = all(a <= b for a, b in zip(times, times[1:]))
durations = all(60 <= float(r["duration"]) <= 3 * 86400 for r in rows)
n = len(rows)
tray = sum(1 for r in rows if int(r["num_gpu"]) <= 4) / n
domain = sum(1 for r in rows if 4 < int(r["num_gpu"]) <= 72) / n
wide = sum(1 for r in rows if int(r["num_gpu"]) > 72) / n
print(n, len(bad), int(ordered), int(durations), f"{tray:.3f}", f"{domain:.3f}", f"{wide:.3f}")
EOF
)
read -r n bad ordered durations tray domain wide <<< "$shape"
check "1500 jobs, every one of the mix, arrivals in order, durations 60 s to 3 days ($shape)" \
  test "$n $bad $ordered $durations" = "1500 0 1 1"
check "one-tray jobs about 30 % ($tray)" awk -v x="$tray" 'BEGIN { exit !(x > 0.25 && x < 0.35) }'
check "jobs in one domain about 55 % ($domain)" awk -v x="$domain" 'BEGIN { exit !(x > 0.50 && x < 0.60) }'
check "jobs of several domains about 15 % ($wide)" awk -v x="$wide" 'BEGIN { exit !(x > 0.115 && x < 0.185) }'

# The replay on 32 NVL72 racks of 4-GPU trays (bench/replay_nvl72.sh's fabric at 2:1).
python3 "$gen" 3 300 > "$d/s.csv"
if ! { "$ff" generate --leaves 16 --hosts-per-leaf 36 --spines 8 --switch-ports 128 --nvl-domain-size 18 \
         --oversubscription 2 --blocks-output "$d/b.conf" -o "$d/f.net" > /dev/null &&
       "$ff" discover --from "$d/f.net" --blocks "$d/b.conf" -o "$d/f.snap" -q; } 2> "$d/gen.err"; then
  fail "generate/discover the NVL72 fabric" "$(cat "$d/gen.err")"; done_testing
fi
"$ff" replay "$d/f.snap" --trace "$d/s.csv" --format elasticflow --gpus-per-node 4 \
  --policies fabricfit,block --target-load 0.8 --json > "$d/r.json" 2> "$d/r.err" ||
  fail "replay of the stream" "$(cat "$d/r.err")"
placed=$(jq -r '[.results[] | "\(.policy) \(.classes.all.jobs) \(.diagnostics.unplaceable) \(.domain_split_share)"] | join(", ")' "$d/r.json")
check "both place all 300 jobs and spread none a domain holds ($placed)" \
  test "$placed" = "fabricfit 300 0 0, block 300 0 0"
wide_jobs=$(jq -r '[.results[] | .multi_domain.jobs] | join(" ")' "$d/r.json")
expected=$(awk -F, 'NR > 1 && $4 > 72 { n++ } END { print n + 0 }' "$d/s.csv")
check "its jobs of several domains are the replay's multi-domain jobs ($wide_jobs; $expected in the stream)" \
  test "$wide_jobs" = "$expected $expected"
done_testing
