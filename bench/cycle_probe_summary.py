#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the main scheduling cycles that bench/cycle_probe.bt traced (lab_stream.sh PROBE=1).

    cycle_probe_summary.py OUT RUN [RUN ...]

Reads OUT/RUN/cycles.txt and prints, per run, the cycles sdiag counted and the mean split of
their wall time (on-CPU, run queue, blocked), the time in select_nodes and in the topology
evaluation per cycle, and the kernel stacks the scheduler thread blocked in longest.
"""
import re
import statistics
import sys

FIELDS = ["end_ns", "wall", "lock", "oncpu", "runq", "blocked", "blk_n",
          "sel_n", "sel_us", "eval_n", "eval_us", "tail"]


def read(path):
    cycles, stacks, stack, text = [], [], None, open(path).read()
    for line in text.splitlines():
        if line.startswith("cycle "):
            values = list(map(int, line.split()[1:]))
            # Traces from before the probe timed the tail after the unlock have no tail.
            cycles.append(dict(zip(FIELDS, values + [0] * (len(FIELDS) - len(values)))))
    # @blocked_by[\n  frame\n  frame\n]: ns
    for m in re.finditer(r"@blocked_by\[(.*?)\]: (\d+)", text, re.S):
        frames = [f.strip() for f in m.group(1).strip().splitlines() if f.strip()]
        # The scheduler's own frames (__schedule, schedule, ...) say nothing: skip to the caller.
        while frames and re.match(r"(__schedule|schedule|schedule_\w+)\+", frames[0]):
            frames.pop(0)
        stacks.append((int(m.group(2)), " < ".join(frames[:4]) or "(no stack)"))
    stacks.sort(reverse=True)
    return cycles, stacks


def sdiag_main(path):
    """sdiag's main-scheduler cycle count and mean (the first section of its output)."""
    try:
        text = open(path).read()
    except OSError:
        return None, None
    count = re.search(r"Total cycles:\s+(\d+)", text)
    mean = re.search(r"Mean cycle:\s+(\d+)", text)
    return (int(count.group(1)) if count else None), (int(mean.group(1)) if mean else None)


def main():
    out, runs = sys.argv[1], sys.argv[2:]
    print("| run | sdiag cycles, mean (us) | cycles | wall (us) | on CPU | run queue | blocked (times) | "
          "select_nodes calls | select_nodes (us) | evaluations | evaluation (us) | "
          "lock wait before the timer (us) | unlock to sdiag's END_TIMER2 (us) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    blocked, split = {}, []
    for run in runs:
        try:
            cycles, stacks = read(f"{out}/{run}/cycles.txt")
        except OSError:
            continue
        if not cycles:  # the probe prints only the cycles sdiag counts
            continue
        mean = {k: statistics.mean(c[k] for c in cycles) for k in FIELDS[1:]}
        sd_count, sd_mean = sdiag_main(f"{out}/{run}/sdiag.txt")
        print(f"| {run} | {sd_count}, {sd_mean} | {len(cycles)} | {mean['wall']:.0f} | {mean['oncpu']:.0f} | "
              f"{mean['runq']:.0f} | {mean['blocked']:.0f} ({mean['blk_n']:.2f}) | {mean['sel_n']:.1f} | {mean['sel_us']:.0f} | "
              f"{mean['eval_n']:.1f} | {mean['eval_us']:.0f} | {mean['lock']:.0f} | {mean['tail']:.0f} |")
        blocked[run] = (stacks, len(cycles))
        for name, part in (("no job looked at", [c for c in cycles if not c["sel_n"]]),
                           ("jobs looked at", [c for c in cycles if c["sel_n"]])):
            if part:
                split.append((run, name, len(part), statistics.mean(c["wall"] for c in part),
                              statistics.median(c["wall"] for c in part),
                              statistics.mean(c["oncpu"] for c in part),
                              sum(c["sel_n"] for c in part) / len(part),
                              sum(c["eval_us"] for c in part) / max(1, sum(c["eval_n"] for c in part))))
    print("\n| run | cycles | count | wall mean (us) | wall median (us) | on CPU mean (us) | "
          "select_nodes per cycle | us per evaluation |")
    print("|---|---|---|---|---|---|---|---|")
    for run, name, n, wall, med, cpu, sel, per_eval in split:
        print(f"| {run} | {name} | {n} | {wall:.0f} | {med:.0f} | {cpu:.0f} | {sel:.1f} | {per_eval:.0f} |")
    for run, (stacks, n) in blocked.items():
        total = sum(ns for ns, _ in stacks)
        print(f"\n{run}: blocked {total / 1000 / max(n, 1):.0f} us per counted cycle, longest stacks:")
        for ns, frames in stacks[:5]:
            print(f"- {ns / 1000:.0f} us: {frames}")


if __name__ == "__main__":
    main()
