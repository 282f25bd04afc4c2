#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/replay_nvlink_faults.sh's summary: per NVLink fault rate, what the faults cost
# fabricfit and block (jobs failed, GPU-hours lost against the same policy and stream with
# no faults), blind and with failing trays drained, and the ratios to block stream by
# stream with 95 % intervals.
#   replay_nvlink_faults_summary.py OUT ELAPSED_S SEEDS JOBS LOAD "RATES" ["SLOW_RATES"]
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_stats import f, interval, ratio, read_streams  # noqa: E402

out, elapsed, seeds, jobs, load_, rates = sys.argv[1:7]
slow_rates = sys.argv[7] if len(sys.argv) > 7 else ""
seeds = int(seeds)
FIGURES = {
    "failed": ("faults", "jobs_failed"),
    "lost": ("faults", "gpu_hours_lost"),
    "episodes": ("faults", "episodes"),
    "kept_off": ("faults", "kept_off"),
    "md_jct": ("multi_domain", "jct_mean_s"),
    "in_jct": ("in_domain", "jct_mean_s"),
    "jct": ("classes", "all", "jct_mean_s"),
}


def read(name):
    return read_streams(out, name, seeds, FIGURES)


def iv_text(values, digits=3):
    if not values:
        return "n/a"
    m, lo, hi = interval(values)
    if digits == 0:
        return f"{m:,.0f} [{lo:,.0f}-{hi:,.0f}]"
    return f"{f(m, digits)} [{f(lo, digits)}-{f(hi, digits)}]"


def ratios(a, b, key):
    v = [ratio(a[s][key], b[s][key]) for s in sorted(a) if s in b and key in a[s] and key in b[s]]
    return [x for x in v if x == x]


def row(name, runs, ffr, blk, counts, kept_off, against):
    """One table row: `runs`' mean [interval] of each figure in `counts`, fabricfit's kept-off
    decisions when `kept_off`, and for fabricfit its ratios to block of the `against` figures
    (block's row: 1)."""
    mine = runs is ffr
    cells = [iv_text([x[k] for x in runs.values() if k in x], 0) for k in counts]
    cells.append(iv_text([x["kept_off"] for x in runs.values() if "kept_off" in x], 0) if mine and kept_off else "-")
    cells += [iv_text(ratios(ffr, blk, k)) if mine else "1" for k in against]
    return f"| {name} | " + " | ".join(cells) + " |"


print(f"Produced by `bench/replay_nvlink_faults.sh` in {elapsed} s on the shared 2-core machine: {seeds} streams "
      f"of {jobs} jobs of the NVL72 mix (bench/nvl72_stream.py, a stream per seed) at load {load_} on the 2:1 "
      "fabric of the NVL72 replay (32 racks), `--faults none,nvlink-flap=R`: each tray's NVLink fails at R per "
      "day for 6 h (repaired), dropping every job whose GPUs talk over it (multi-host jobs, and one-host jobs of "
      "more than one GPU) at once and every 1,800 s after; a sweep reads it 300 s after it begins and ends; a "
      "failed job restarts from its last hourly checkpoint. *not drained*: block never knows; fabricfit keeps "
      "jobs off what the sweeps saw. *drained*: every failing tray a sweep saw is drained for both, with no cap "
      "(a site's health check; fabricfit's HealthDrain=yes drains at most HealthDrainMax, 2 by default). "
      "Episodes are counted up to each run's end (the same plan for both: a longer run sees more); kept off "
      "counts decisions, not jobs. GPU-hours lost: a run's GPU-hours less the same policy's on the same stream "
      "with no faults. Ratios are fabricfit / block stream by stream: mean [95 % interval].\n")
for r in rates.split():
    blind, drained = read(f"r{r}-blind"), read(f"r{r}-drain")
    if "fabricfit" not in blind or "block" not in blind:
        continue
    print(f"#### {r} NVLink faults per tray and day\n")
    print("| run | episodes | jobs failed | GPU-hours lost | fabricfit kept off | failed vs block | "
          "GPU-hours lost vs block | multi-domain completion vs block | in-domain completion vs block |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, runs in [("not drained", blind), ("drained", drained)]:
        ffr, blk = runs.get("fabricfit", {}), runs.get("block", {})
        for p, got in [("fabricfit", ffr), ("block", blk)]:
            print(row(f"{p}, {label}", got, ffr, blk, ["episodes", "failed", "lost"], runs is blind,
                      ["failed", "lost", "md_jct", "in_jct"]))
    block_blind, block_drained = blind.get("block", {}), drained.get("block", {})
    print()
    print(f"- fabricfit not drained against block drained: jobs failed "
          f"{iv_text(ratios(blind['fabricfit'], block_drained, 'failed'))}, "
          f"GPU-hours lost {iv_text(ratios(blind['fabricfit'], block_drained, 'lost'))}")
    print(f"- draining alone, block drained against block not drained: jobs failed "
          f"{iv_text(ratios(block_drained, block_blind, 'failed'))}, GPU-hours lost "
          f"{iv_text(ratios(block_drained, block_blind, 'lost'))}\n")

# Degraded NVLinks: they slow, they do not fail; placement keeps multi-GPU jobs off them
# while another placement fits, and nothing drains.
for r in slow_rates.split():
    got = read(f"slow{r}")
    if "fabricfit" not in got or "block" not in got:
        continue
    ffr, blk = got["fabricfit"], got["block"]
    print(f"#### {r} degraded NVLinks per tray and day (half their bandwidth, 6 h)\n")
    print("| run | episodes | GPU-hours lost | fabricfit kept off | GPU-hours lost vs block | "
          "in-domain completion vs block | mean completion vs block |")
    print("|---|---|---|---|---|---|---|")
    for p, runs in [("fabricfit", ffr), ("block", blk)]:
        print(row(p, runs, ffr, blk, ["episodes", "lost"], True, ["lost", "in_jct", "jct"]))
    print()
