#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/replay_nvl72.sh's summary: each seed replays its own stream (one `fabricfit replay`
# per stream and fabric), so a figure's interval is over the streams, and a ratio against
# block is taken stream by stream (both policies replay the same one).
#   replay_nvl72_summary.py OUT ELAPSED_S SEEDS JOBS LOAD
import csv
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_stats import f, interval, judge, load, mean, ratio, read_streams  # noqa: E402

RUNS = [("1:1", "nvl72", "skip"), ("2:1", "nvl72-2to1", "skip"), ("degraded", "nvl72-degraded", "skip"),
        ("1:1, seg18", "nvl72-seg18", "skip"), ("2:1, seg18", "nvl72-2to1-seg18", "skip"),
        ("degraded, seg18", "nvl72-degraded-seg18", "skip"),
        ("2:1", "nvl72-2to1-reserve", "reserve"), ("degraded", "nvl72-degraded-reserve", "reserve")]
FIGURES = {
    "jct": ("classes", "all", "jct_mean_s"),
    "gpu_hours": ("classes", "all", "gpu_hours"),
    "p95_wait": ("classes", "all", "wait_p95_s"),
    "md_jobs": ("multi_domain", "jobs"),
    "md_jct": ("multi_domain", "jct_mean_s"),
    "md_gpu_hours": ("multi_domain", "gpu_hours"),
    "in_domain_jct": ("in_domain", "jct_mean_s"),
    "whole_free": ("diagnostics", "domain_whole_free_mean"),
    "half_jobs": ("diagnostics", "domain_half_jobs_mean"),
    "whole_share": ("diagnostics", "domain_whole_free_share"),
    "split": ("domain_split_share",),
    "idle_fit": ("idle_while_fit_gpu_hours",),
    "util": ("diagnostics", "gpu_utilisation"),
}
# (figure, label, target against block: 0.9 / 1.0 by fabric for multi-domain jobs, else 1.0;
# lower is better?)
TARGETS = [("md_jct", "multi-domain completion", True), ("md_gpu_hours", "multi-domain GPU-hours", True),
           ("p95_wait", "p95 wait", True), ("whole_free", "whole free domains", False),
           ("half_jobs", "half-domain jobs held", False),
           ("whole_share", "free hosts in whole domains (share)", False)]


def read(out, file, seeds):
    return read_streams(out, file, seeds, FIGURES)


def paired(by, key):
    """fabricfit / block, seed by seed, over the seeds both have the figure for."""
    ff, b = by["fabricfit"], by["block"]
    return [ratio(ff[s][key], b[s][key]) for s in sorted(ff) if s in b and key in ff[s] and key in b[s]]


def uncontended_wide_gpu_hours(out, seed):
    """GPUs x trace duration of the stream's multi-domain jobs: what they burn with no slowdown."""
    with open(f"{out}/stream-s{seed}.csv") as f_:
        return sum(int(r["num_gpu"]) * float(r["duration"]) for r in csv.DictReader(f_)
                   if int(r["num_gpu"]) > 72) / 3600


@functools.lru_cache(maxsize=None)
def wide_block_rows(out, file, seed):
    """block's multi-domain jobs (wider than a rack) of one stream, from --per-job; None if absent."""
    path = f"{out}/{file}-s{seed}.jobs.csv"
    if not os.path.exists(path):
        return None
    with open(path) as f_:
        return [r for r in csv.DictReader(f_) if r["policy"] == "block" and int(r["nodes"]) > 18]


def at_block_free_capacity(ff, blk):
    """fabricfit's and block's shape at block's free capacity: with the time each spent at each
    number of wholly free hosts (buckets of a domain's hosts; diagnostics.domain_share_by_free_hosts),
    the share of the free hosts in whole free domains, the whole free domains and the half-domain
    jobs the free hosts held, each policy's per bucket, weighted by block's time (share: by
    block's free host-seconds) over the buckets both reached. Returns the three ratios
    fabricfit / block (the third None when a run predates it), or None."""
    a, b = ff["diagnostics"].get("domain_share_by_free_hosts"), blk["diagnostics"].get("domain_share_by_free_hosts")
    if not a or not b:
        return None
    size = b["bucket_hosts"]
    both = [i for i in range(min(len(a["seconds"]), len(b["seconds"])))
            if a["seconds"][i] > 0 and b["seconds"][i] > 0 and a["free_host_seconds"][i] > 0
            and b["free_host_seconds"][i] > 0]
    if not both:
        return None

    def share(x, i):
        return x["domain_host_seconds"][i] / x["free_host_seconds"][i]

    def domains(x, i):
        return x["domain_host_seconds"][i] / x["seconds"][i] / size
    w_share = sum(b["free_host_seconds"][i] for i in both)
    w_time = sum(b["seconds"][i] for i in both)
    s_ff = sum(b["free_host_seconds"][i] * share(a, i) for i in both) / w_share
    s_b = sum(b["free_host_seconds"][i] * share(b, i) for i in both) / w_share
    d_ff = sum(b["seconds"][i] * domains(a, i) for i in both) / w_time
    d_b = sum(b["seconds"][i] * domains(b, i) for i in both) / w_time
    half = None
    if "half_domain_job_seconds" in a and "half_domain_job_seconds" in b:
        def halves(x, i):
            return x["half_domain_job_seconds"][i] / x["seconds"][i]
        h_ff = sum(b["seconds"][i] * halves(a, i) for i in both) / w_time
        h_b = sum(b["seconds"][i] * halves(b, i) for i in both) / w_time
        half = ratio(h_ff, h_b)
    return ratio(s_ff, s_b), ratio(d_ff, d_b), half


def pm(values, digits=0):
    m, lo, hi = interval(values)
    return f"{m:.{digits}f} ± {(hi - lo) / 2:.{digits}f}"


def bound(fabric, key):
    return 1.00 if fabric.startswith("1:1") or not key.startswith("md_") else 0.90


def main():
    out, elapsed, seeds, jobs, load_ = sys.argv[1:6]
    seeds = int(seeds)
    runs = [(fabric, queue, read(out, file, seeds)) for fabric, file, queue in RUNS]
    n = len(runs[0][2].get("block", {}))
    print(f"`bench/replay_nvl72.sh` ({n} seeds, each its own stream of {jobs} jobs drawn from the NVL72 mix "
          f"(`bench/nvl72_stream.py`), target load {load_}, {elapsed} s): 32 NVL72 racks (domains of 18 trays "
          "of 4 GPUs, 2,304 GPUs), two under each of 16 leaf groups; fabric 1:1, 2:1, or 1:1 with half the "
          "uplinks of leaf groups 1-8 at half rate (degraded); a quarter of the jobs of 4 trays or more "
          "all-to-all at peak demand, the rest ring all-reduce. Multi-domain jobs: 2 to 16 whole domains. "
          "Means over the streams ± the half width of their 95 % interval; queue skip: a job that cannot "
          "start lets later jobs pass, reserve: Slurm's backfill reservations; seg18: every job of whole domains "
          "asks --segment=18, a segment a rack.\n")
    print("| fabric | queue | policy | mean JCT (s) | multi-domain jobs | their JCT (s) | their GPU-hours "
          "| in-domain jobs' JCT (s) | p95 wait (s) | jobs a domain holds, spread | whole free domains "
          "| half-domain jobs held | free hosts in whole domains | idle while a job fits (GPU-h) "
          "| GPU utilisation |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for fabric, queue, by in runs:
        for p, rows in by.items():
            col = {k: [r[k] for r in rows.values() if k in r] for k in FIGURES}
            print(f"| {fabric} | {queue} | {p} | {pm(col['jct'])} | {mean(interval(col['md_jobs'])[0]):.0f} "
                  f"| {pm(col['md_jct'])} | {pm(col['md_gpu_hours'])} | {pm(col['in_domain_jct'])} "
                  f"| {pm(col['p95_wait'])} | {100 * interval(col['split'])[0]:.1f} % | {pm(col['whole_free'], 2)} "
                  f"| {pm(col['half_jobs'], 2)} | {pm(col['whole_share'], 3)} | {pm(col['idle_fit'])} "
                  f"| {pm(col['util'], 3)} |")
    print()
    print("fabricfit against block, stream by stream (mean [95 % interval] of the streams' ratios):\n")
    print("| fabric | queue | mean JCT x block | all jobs' GPU-hours x block | in-domain jobs' JCT x block | "
          + " | ".join(f"{label} x block" for _, label, _ in TARGETS) + " |")
    print("|---|---|---:|---:|---:|" + "---:|" * len(TARGETS))
    judged = []
    for fabric, queue, by in runs:
        def iv(key):
            values = paired(by, key)
            return interval(values) if values else None
        ivs = {key: iv(key) for key, _, _ in TARGETS}
        cells = [f"{f(i[0])} [{f(i[1])}-{f(i[2])}]" if i else "-"
                 for i in [iv("jct"), iv("gpu_hours"), iv("in_domain_jct")] + list(ivs.values())]
        print(f"| {fabric} | {queue} | " + " | ".join(cells) + " |")
        both = list(by["fabricfit"].values()) + list(by["block"].values())
        judged.append((fabric, queue, ivs, sum(1 for x in both if x.get("split", 0) > 0), len(both)))
    print()
    print("Targets (issue 30 item 5):\n")
    split = sum(j[3] for j in judged)
    streams = sum(j[4] for j in judged)
    print(f"- jobs a domain holds never split: fabricfit or block split one in {split} of {streams} runs: "
          f"{'**met**' if split == 0 else '**not met**'}")
    for key, label, lower in TARGETS:
        print(f"- {label} x block:")
        for fabric, queue, ivs, _, _ in judged:
            i = ivs[key]
            if i is None:
                continue
            want, said = judge(i, bound(fabric, key), lower)
            print(f"  - {fabric}, {queue}: {f(i[0])} [{f(i[1])}-{f(i[2])}] ({want}): {said}")
    # The completion a placement could reach with block's own waits: every multi-domain job
    # started when block started it and ran with no slowdown, or as it runs alone on the
    # fabric (--per-job's alone_s: on fabricfit's hosts on an empty cluster, its own traffic
    # only: the uplinks of the leaf groups its racks hang under still carry it).
    print()
    print("Where placement alone stops, for the completion target: the multi-domain jobs started when "
          "block started them and run with no slowdown at all, or as each runs alone on the fabric "
          "(no other job's traffic; its own still crosses the uplinks of the leaf groups its racks "
          "hang under), against block's completion, stream by stream (not a bound: a policy gets "
          "below it by starting them sooner):\n")
    for (fabric, file, queue), (_, _, by) in zip(RUNS, runs):
        none, alone = [], []
        for s in sorted(by["block"]):
            wide = wide_block_rows(out, file, s)
            if wide is None:
                continue
            jct = sum(float(r["end_s"]) - float(r["submit_s"]) for r in wide)
            none.append(ratio(sum(float(r["wait_s"]) + float(r["duration_s"]) for r in wide), jct))
            alone.append(ratio(sum(float(r["wait_s"]) + float(r["alone_s"]) for r in wide), jct))
        if none:
            i, j = interval(none), interval(alone)
            print(f"- {fabric}, {queue}: no slowdown {f(i[0])} [{f(i[1])}-{f(i[2])}], "
                  f"alone {f(j[0])} [{f(j[1])}-{f(j[2])}] x block's")
    # Fragmentation at equal free capacity: the counts above are lower for the policy that runs
    # more, since fewer hosts are free; this compares the shapes where both had as many free.
    print()
    print("Fragmentation at block's free capacity: at each number of wholly free hosts (to a rack), "
          "fabricfit's and block's share of them in whole free domains, their whole free domains and "
          "the half-domain jobs they held, weighted by the time block spent there (over the numbers "
          "both reached), fabricfit x block stream by stream:\n")
    for (fabric, file, queue), _ in zip(RUNS, runs):
        shares, counts, halves = [], [], []
        for s_ in range(1, seeds + 1):
            got = load(f"{out}/{file}-s{s_}.json")
            if got is None or "fabricfit" not in got[1] or "block" not in got[1]:
                continue
            r = at_block_free_capacity(got[1]["fabricfit"], got[1]["block"])
            if r and r[0] == r[0] and r[1] == r[1]:  # not NaN (block's share 0, fabricfit's not)
                shares.append(r[0])
                counts.append(r[1])
                if r[2] is not None and r[2] == r[2]:
                    halves.append(r[2])
        if shares:
            i, j = interval(shares), interval(counts)
            line = (f"- {fabric}, {queue}: share {f(i[0])} [{f(i[1])}-{f(i[2])}], "
                    f"whole free domains {f(j[0])} [{f(j[1])}-{f(j[2])}]")
            if halves:
                k = interval(halves)
                line += f", half-domain jobs held {f(k[0])} [{f(k[1])}-{f(k[2])}]"
            print(line)
    # The floor under any placement: the multi-domain jobs run with no slowdown at all, or
    # each alone on the fabric (fabricfit's hosts on an empty cluster, no other traffic: a reference).
    print()
    print("The frontier of the GPU-hours target: the stream's multi-domain jobs with no slowdown at all "
          "(GPUs x trace duration), or each alone on the fabric (GPUs x alone_s), against block's "
          "GPU-hours for them, stream by stream:\n")
    for (fabric, file, queue), (_, _, by) in zip(RUNS, runs):
        none, alone = [], []
        for s, b in sorted(by["block"].items()):
            if "md_gpu_hours" not in b:
                continue
            none.append(ratio(uncontended_wide_gpu_hours(out, s), b["md_gpu_hours"]))
            wide = wide_block_rows(out, file, s)
            if wide is not None:
                gpus = sum(int(r["nodes"]) * int(r["gpus_per_node"]) * float(r["alone_s"]) for r in wide)
                alone.append(ratio(gpus / 3600, b["md_gpu_hours"]))
        if none:
            i = interval(none)
            line = f"- {fabric}, {queue}: no slowdown {f(i[0])} [{f(i[1])}-{f(i[2])}]"
            if alone:
                j = interval(alone)
                line += f", alone {f(j[0])} [{f(j[1])}-{f(j[2])}]"
            print(line + " x block's")

if __name__ == "__main__":
    main()
