#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tabulates bench/eval_burst.sh's probe output: per policy and calling thread, the
evaluations and each step's calls, mean µs and µs per evaluation (docs/performance.md).

    eval_burst_summary.py OUT POLICY...
"""
import re
import sys

# bpftrace prints a stats() map as: @ns[sched_agent, 0]: count 12, average 3456, total 41472
LINE = re.compile(r"^@ns\[(.+?), (\d+)\]: count (\d+), average (\d+), total (\d+)")
THREADS = {"sched_agent": "main scheduler", "bckfl": "backfill", "worker": "RPC workers"}


# ... and an lhist() map as "@us[sched_agent, 0]:" then lines "[17, 18)   5 |@@@ |".
HIST = re.compile(r"^@us\[(.+?), (\d+)\]:")
BUCKET = re.compile(r"^\[(\d+), (?:\d+|\.\.\.)\)\s+(\d+)")


def thread(comm):
    """slurmctld's RPC threads are worker[N]: one row for them all."""
    return re.sub(r"^worker\[\d+\]$", "worker", comm)


def read(path, steps):
    """{thread: {step: [calls, total ns, {µs bucket: count}]}}"""
    rows = {}
    hist = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            m = LINE.match(line)
            if m:
                row = rows.setdefault(thread(m.group(1)), {}).setdefault(steps[int(m.group(2))], [0, 0, {}])
                row[0] += int(m.group(3))
                row[1] += int(m.group(5))
                continue
            m = HIST.match(line)
            if m:
                row = rows.setdefault(thread(m.group(1)), {}).setdefault(steps[int(m.group(2))], [0, 0, {}])
                hist = row[2]
                continue
            m = BUCKET.match(line)
            if m and hist is not None:
                us = int(m.group(1))
                hist[us] = hist.get(us, 0) + int(m.group(2))
            elif not line:
                hist = None
    return rows


def median(hist):
    n = sum(hist.values())
    seen = 0
    for us in sorted(hist):
        seen += hist[us]
        if 2 * seen >= n:
            return us
    return float("nan")


def main():
    out, policies = sys.argv[1], sys.argv[2:]
    # The step numbers of the probe, named by eval_burst.sh.
    with open(f"{out}/steps.txt", encoding="utf-8") as f:
        steps = f.read().split()
    print("| policy | thread | step | calls | mean (µs) | median (µs) | mean per evaluation (µs) |")
    print("|---|---|---|---|---|---|---|")
    for policy in policies:
        rows = read(f"{out}/{policy}/probe.txt", steps)
        for comm in sorted(rows, key=lambda c: -rows[c].get("evaluation", [0])[0]):
            by_step = rows[comm]
            evals = by_step.get("evaluation", [0])[0]
            if not evals:
                continue
            name = THREADS.get(comm, comm)
            for step in sorted(by_step, key=steps.index):
                calls, total, hist = by_step[step]
                if not calls:
                    continue
                print(f"| {policy} | {name} | {step} | {calls} | {total / calls / 1000:.1f} | "
                      f"{median(hist)} | {total / evals / 1000:.1f} |")


if __name__ == "__main__":
    main()
