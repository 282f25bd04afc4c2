#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What each policy's run of bench/lab_stream.sh left free, from Slurm's job completion
log: does one policy's packing of one-host jobs leave fewer whole leaf groups free for the
multi-host jobs than the other's? (docs/placement.md, "Where the frontier is".)

  lab_stream_history.py OUT RUN...

Replays each run's starts and ends (ends first within a second) over the hosts' GPUs and
prints per run: the time-weighted mean of the whole free hosts, of the free hosts of the
freest leaf group and of the entirely free leaf groups; for the one-host whole-host jobs,
how often the job went to the group with the fewest whole free hosts (best fit by leaf)
and how often it broke an entirely free group; for the multi-host jobs, the leaf groups
they used against the fewest the free hosts at their start allowed."""
import collections
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_stream_summary import expand_hostlist, read_jobcomp, ts  # noqa: E402


def history(out, run, stream):
    d = os.path.join(out, run)
    fabric = json.load(open(os.path.join(d, "fabric.json")))
    group_of, size = {}, collections.Counter()
    for g in fabric["leaf_groups"]:
        for h in g["hosts"]:
            group_of[h] = g["name"]
            size[g["name"]] += 1
    hosts = sorted(group_of)
    events = []
    for name, c in read_jobcomp(os.path.join(d, "jobcomp.log")).items():
        if c.get("JobState") != "COMPLETED" or name not in stream:
            continue
        nodes, gpn = stream[name]
        on = expand_hostlist(c["NodeList"])
        events.append((ts(c["StartTime"]), 1, name, on, gpn, nodes))
        events.append((ts(c["EndTime"]), 0, name, on, gpn, nodes))
    events.sort(key=lambda e: (e[0], e[1]))
    used = collections.Counter()
    full = max(g for _, g in stream.values())

    def free_by_group():
        return collections.Counter(group_of[h] for h in hosts if used[h] == 0)

    acc, span, last = collections.Counter(), 0.0, None
    one = collections.Counter()
    multi = collections.Counter()
    for t, start, name, on, gpn, nodes in events:
        if last is not None and t > last:
            free = free_by_group()
            dt = t - last
            span += dt
            acc["whole_free_hosts"] += sum(free.values()) * dt
            acc["freest_group"] += max(free.values(), default=0) * dt
            acc["free_groups"] += sum(1 for g, n in free.items() if n == size[g]) * dt
        last = t
        if start:
            free = free_by_group()
            if nodes == 1 and gpn == full:
                chosen = free[group_of[on[0]]]
                one["jobs"] += 1
                one["best_fit"] += chosen == min(n for n in free.values() if n > 0)
                one["broke_free_group"] += chosen == size[group_of[on[0]]]
            elif nodes > 1:
                need, covered, fewest = nodes, 0, 0
                for n in sorted(free.values(), reverse=True):
                    covered += n
                    fewest += 1
                    if covered >= need:
                        break
                multi["jobs"] += 1
                multi["groups"] += len({group_of[h] for h in on})
                multi["fewest_possible"] += fewest
        for h in on:
            used[h] += gpn if start else -gpn
    means = {k: v / span for k, v in acc.items()} if span > 0 else {}
    return means, one, multi


def main():
    out, runs = sys.argv[1], sys.argv[2:]
    stream = {f"s{i}": (int(r["nodes"]), int(r["gpus_per_node"]))
              for i, r in enumerate(csv.DictReader(open(os.path.join(out, "jobs.csv"))), 1)}
    print("| run | whole free hosts (time mean) | freest group's free hosts | entirely free groups "
          "| one-host jobs to the best-fit group | broke an entirely free group "
          "| multi-host: groups used / fewest possible at start |")
    print("|---|---|---|---|---|---|---|")
    for run in runs:
        means, one, multi = history(out, run, stream)
        print(f"| {run} | {means.get('whole_free_hosts', 0):.1f} | {means.get('freest_group', 0):.2f} "
              f"| {means.get('free_groups', 0):.2f} | {one['best_fit']} of {one['jobs']} "
              f"| {one['broke_free_group']} | {multi['groups']} / {multi['fewest_possible']} "
              f"({multi['jobs']} jobs) |")


if __name__ == "__main__":
    main()
