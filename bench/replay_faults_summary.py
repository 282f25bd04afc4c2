#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The tables of bench/replay_faults.sh: per trace and fabric, what the faults cost each
# policy (jobs failed, GPU-hours lost against the same policy on the healthy fabric), the
# ratios to tree seed by seed with their 95 % intervals, and the healthy fabric's completion
# times by class.
#   replay_faults_summary.py OUT ELAPSED_S SEEDS FAULTS "FABRICS" "SWITCH_WAITS"
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_stats import f, interval, load, ratio, seeds_of, verdict  # noqa: E402

out, elapsed, seeds, faults, fabrics, waits = sys.argv[1:7]
NAMES = {"a": "(a) healthy 1:1", "b2": "(b) 2:1 at the leaves"}
CLASSES = ["all", "one_host", "within_group", "wider"]


def per_seed(r, key):
    return {s: fig[key] for s, fig in seeds_of(r).items()}


def multi(fig):
    a, b = fig["within_group.jobs"], fig["wider.jobs"]
    return (a * fig["within_group.jct_mean_s"] + b * fig["wider.jct_mean_s"]) / (a + b) if a + b else 0.0


def ratios(r, tree, get):
    a, b = seeds_of(r), seeds_of(tree)
    v = [ratio(get(a[s]), get(b[s])) for s in sorted(a) if s in b]
    v = [x for x in v if x == x]
    return interval(v) if v else None


def iv_text(iv):
    return "n/a" if iv is None else f"{f(iv[0])} [{f(iv[1])}-{f(iv[2])}]"


def mean_text(r, key, digits=0):
    v = list(per_seed(r, key).values())
    m, lo, hi = interval(v)
    return f"{m:,.{digits}f} [{lo:,.{digits}f}-{hi:,.{digits}f}]"


def target(iv, limit):
    if iv is None:
        return "n/a"
    return verdict(iv[0] <= limit, iv[2] <= limit, iv[1] > limit)


print(f"Produced by `bench/replay_faults.sh` in {elapsed} s on the shared 2-core machine: {seeds} seeds, "
      f"`--faults {faults}` (the same episodes for every policy of a seed), demand time-averaged, routing ecmp, "
      f"rings, fabricfit's wait cap 28800 s, time limits = duration x 1.5; tree-switches at its best T of "
      f"{{{', '.join(waits.split())}}} s by multi-host completion. GPU-hours lost: a run's GPU-hours less those of "
      f"the same policy and seed on the healthy fabric. Ratios are fabricfit / tree seed by seed: mean "
      f"[95 % interval].\n")
for trace in ["cluster04", "cluster06"]:
    for fab in fabrics.split():
        got = load(f"{out}/{trace}-{fab}-faults.json")
        healthy = load(f"{out}/{trace}-{fab}-healthy.json")
        if got is None or healthy is None:
            continue
        res, hres = got[1], healthy[1]
        ff, tree = res["fabricfit"], res["tree"]
        best = None
        for t in waits.split():
            sw = load(f"{out}/{trace}-{fab}-sw{t}.json")
            if sw is None:
                continue
            r = sw[1]["tree-switches"]
            m = sum(multi(x) for x in seeds_of(r).values())
            if best is None or m < best[0]:
                best = (m, t, r)
        print(f"#### {trace}, {NAMES.get(fab, fab)}\n")
        print("| policy | jobs failed | GPU-hours lost | GPU-hours redone | kept off / waited for healthy | "
              "multi-host completion vs tree |")
        print("|---|---|---|---|---|---|")
        rows = [("fabricfit", ff), ("tree", tree)] + ([(f"tree-switches (T = {best[1]} s)", best[2])] if best else [])
        for name, r in rows:
            kept = f"{mean_text(r, 'faults.kept_off')} / {mean_text(r, 'faults.waited_for_healthy')}"
            print(f"| {name} | {mean_text(r, 'faults.jobs_failed', 1)} | {mean_text(r, 'faults.gpu_hours_lost')} | "
                  f"{mean_text(r, 'faults.gpu_hours_redone')} | {kept if name == 'fabricfit' else '-'} | "
                  f"{'1' if name == 'tree' else iv_text(ratios(r, tree, multi))} |")
        lost = ratios(ff, tree, lambda x: x["faults.gpu_hours_lost"])
        failed = ratios(ff, tree, lambda x: x["faults.jobs_failed"])
        print()
        print(f"- GPU-hours lost to faults <= 0.3x tree's: {iv_text(lost)}: {target(lost, 0.3)}")
        print(f"- jobs failed by link drops <= 0.3x tree's: {iv_text(failed)}: {target(failed, 0.3)}")
        hff, htree = hres["fabricfit"], hres["tree"]
        worst = []
        for c in CLASSES:
            iv = ratios(hff, htree, lambda x, c=c: x[f"{c}.jct_mean_s"])
            if iv is not None and seeds_of(hff) and next(iter(seeds_of(hff).values()))[f"{c}.jobs"] > 0:
                worst.append((c, iv))
        text = ", ".join(f"{c} {iv_text(iv)}" for c, iv in worst)
        ok = all(iv[0] <= 1.0 for _, iv in worst)
        print(f"- healthy fabric, completion vs tree by class: {text}: "
              f"{'**met** by the mean' if ok else '**not met**'} (no class above 1.00x)\n")
