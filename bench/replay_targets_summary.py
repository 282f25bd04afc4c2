#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Tables for bench/replay_targets.sh: fabricfit and tree-switches (at its best T) against
# tree, per trace and judging fabric, with issue 11's targets. Markdown on stdout.
#   replay_targets_summary.py OUT ELAPSED_S SEEDS WAIT_CAP "SWITCH_WAITS" DEMAND ROUTING RULE OVERESTIMATE TRACE...
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_stats import f, interval, load, mean, ratio, seeds_of, verdict  # noqa: E402

out, elapsed, seeds, wait_cap, switch_waits, demand, routing, rule, overestimate, estimate = sys.argv[1:11]
traces = sys.argv[11:]
switch_waits = switch_waits.split()
FABRICS = ["a", "b2", "b3", "c", "d0", "d", "e"]
LABEL = {"a": "(a) 1:1", "b2": "(b) 2:1", "b3": "(b) 3:1", "c": "(c) 1 group in 10: half its uplinks at half rate",
         "d0": "(d0) 8 rails, healthy", "d": "(d) 8 rails, rail 3 uplinks at half rate", "e": "(e) three-tier, 2:1 at the core"}
TITLE = {"cluster04": "ElasticFlow cluster04", "cluster06": "ElasticFlow cluster06", "kalos": "Kalos excerpt",
         "openb": "Alibaba openb"}


def cls(r, c, k):
    return mean(r["classes"][c][k])


# The figures compared with tree, by their JSON names ("class.figure" or a cluster-wide one).
FIGURE = {"jct_all": "all.jct_mean_s", "jct_one": "one_host.jct_mean_s", "jct_within": "within_group.jct_mean_s",
          "jct_wider": "wider.jct_mean_s", "gpu_h": "all.gpu_hours", "wait_p95": "all.wait_p95_s",
          "idle_fit": "idle_while_fit_gpu_hours"}
KEYS = list(FIGURE) + ["jct_multi"]


def means_of(r):
    """A policy's figures by JSON name: its mean over the seeds."""
    def get(name):
        c, _, k = name.partition(".")
        return mean(r["classes"][c][k]) if k else mean(r[name])
    return get


def value(get, key):
    if key != "jct_multi":
        return get(FIGURE[key])
    # Multi-host: the job-weighted mean of the two multi-host classes.
    a, b = get("within_group.jobs"), get("wider.jobs")
    return (a * get("within_group.jct_mean_s") + b * get("wider.jct_mean_s")) / (a + b) if a + b else 0.0


def multi_jct(r):
    return value(means_of(r), "jct_multi")


def seed_ratios(r, tree, key):
    """The ratio seed by seed (every policy replays the same seeds): mean and 95 % interval."""
    a, b = seeds_of(r), seeds_of(tree)
    v = [ratio(value(a[s].__getitem__, key), value(b[s].__getitem__, key)) for s in sorted(a) if s in b]
    v = [x for x in v if x == x]
    return interval(v) if len(v) >= 2 else None


def pm(point, iv):
    return f(point) if iv is None else f"{f(point)} ±{(iv[2] - iv[1]) / 2:.3f}"


def bounds(iv):
    return "" if iv is None else f" [{iv[1]:.3f}-{iv[2]:.3f}]"


def compare(r, tree):
    """Fabricfit (or tree-switches) over tree, per figure: the point and its interval. With
    several seeds the point is the mean of the ratios seed by seed, the centre of its interval;
    with one, the ratio of the figures (and no interval)."""
    ra, rb = means_of(r), means_of(tree)
    x, ivs = {}, {}
    for k in KEYS:
        ivs[k] = seed_ratios(r, tree, k)
        x[k] = ivs[k][0] if ivs[k] is not None else ratio(value(ra, k), value(rb, k))
    return x, ivs


def best_switches(name, fab):
    best = None
    for t in switch_waits:
        got = load(f"{out}/{name}-{fab}-sw{t}.json")
        if not got:
            continue
        r = got[1]["tree-switches"]
        if best is None or multi_jct(r) < multi_jct(best[1]):
            best = (t, r)
    return best


command = os.environ.get("REPLAY_COMMAND", "bench/replay_targets.sh")
heading = os.environ.get("REPLAY_HEADING", "### ")
print(f"Produced by `{command}` in {int(elapsed)} s on the shared 2-core machine: {seeds} seeds "
      f"per figure (ratios taken seed by seed and their mean; ± and [lo-hi]: the 95 % interval of the ratios seed by seed, every policy "
      f"replaying the same seeds; for the GPU-hours lost to a degradation, of each policy's loss; an interval of "
      f"zero width means the seeds change nothing, e.g. when the trace gives every job's communication share), demand {demand}, routing {routing}, pattern rule `{rule}`, "
      f"fabricfit's wait cap {int(wait_cap)} s with time limits = duration x {overestimate}, "
      f"{'the run time it weighs predicted from the last two finished jobs' if estimate == 'history' else 'the run time it weighs = the time limit'}, "
      f"tree-switches' T from {{{', '.join(switch_waits)}}} s (best by multi-host mean completion time). "
      "A trace job's duration is its run time in one leaf group with no contention.\n")
for name in traces:
    main = {fab: load(f"{out}/{name}-{fab}-main.json") for fab in FABRICS}
    if not any(main.values()):
        continue
    meta = next(m for m in main.values() if m)[0]
    print(f"{heading}{TITLE.get(name, name)}\n")
    print(f"{meta['trace_jobs']} jobs, {meta['fabric'].split(' in ')[0]}, offered load {meta['offered_load']:.2f}; "
          f"{meta['pattern_rule_text']}.\n")
    print("| fabric | policy | jct all | one host | within group | wider | multi-host | GPU-hours | p95 wait | "
          "idle-while-fit | tree: multi-host jct (h), GPU-h, jobs slowed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for fab in FABRICS:
        if not main[fab]:
            continue
        pol = main[fab][1]
        tree = pol["tree"]
        rows = [("fabricfit", pol["fabricfit"])]
        sw = best_switches(name, fab)
        if sw:
            rows.append((f"tree-switches T={int(sw[0]) // 3600}h" if int(sw[0]) >= 3600 else f"tree-switches T={sw[0]}s",
                         sw[1]))
        for i, (label, r) in enumerate(rows):
            x, iv = compare(r, tree)
            tail = ""
            if i == 0:
                tail = (f"{multi_jct(tree) / 3600:.2f}, {cls(tree, 'all', 'gpu_hours'):.0f}, "
                        f"{mean(tree['diagnostics']['slowed_jobs_share']) * 100:.1f} %")
            print(f"| {LABEL[fab] if i == 0 else ''} | {label} | {f(x['jct_all'])} | {f(x['jct_one'])} | "
                  f"{f(x['jct_within'])} | {f(x['jct_wider'])} | {pm(x['jct_multi'], iv['jct_multi'])} | "
                  f"{pm(x['gpu_h'], iv['gpu_h'])} | "
                  f"{f(x['wait_p95'])} | {f(x['idle_fit'])} | {tail} |")
    print()
    # Targets.
    verdicts = []

    def pol(fab, p):
        return main[fab][1][p] if main.get(fab) else None

    if main["a"]:
        x, iv = compare(pol("a", "fabricfit"), pol("a", "tree"))
        worst = max(v for k, v in x.items() if k.startswith("jct_") and k != "jct_multi" and v == v)
        ok = worst <= 1.0 + 1e-9 and x["gpu_h"] <= 1.0 + 1e-9
        ivs = [iv[k] for k in ("jct_all", "jct_one", "jct_within", "jct_wider", "gpu_h") if iv[k] is not None]
        verdicts.append(f"(a) no class's mean completion above 1.00x, GPU-hours <= 1.00x: worst class {worst:.3f}x, "
                        f"GPU-hours {x['gpu_h']:.3f}x{bounds(iv['gpu_h'])}: "
                        f"{verdict(ok, all(iv[2] <= 1.0 + 1e-9 for iv in ivs), any(iv[1] > 1.0 + 1e-9 for iv in ivs))}")
    for fab in ("b2", "b3", "e"):
        if not main[fab]:
            continue
        x, iv = compare(pol(fab, "fabricfit"), pol(fab, "tree"))
        ok = x["jct_multi"] <= 0.85 and x["gpu_h"] <= 0.95 and x["wait_p95"] <= 1.0 + 1e-9
        limits = (("jct_multi", 0.85), ("gpu_h", 0.95), ("wait_p95", 1.0))
        everywhere = all(iv[k] is None or iv[k][2] <= lim + 1e-9 for k, lim in limits)
        missed = any(iv[k] is not None and iv[k][1] > lim + 1e-9 for k, lim in limits)
        verdicts.append(f"{LABEL[fab].split(' ')[0]} {LABEL[fab].split(' ', 1)[1]}: multi-host completion "
                        f"{f(x['jct_multi'])}x{bounds(iv['jct_multi'])} (<= 0.85), GPU-hours "
                        f"{f(x['gpu_h'])}x{bounds(iv['gpu_h'])} (<= 0.95), p95 wait "
                        f"{f(x['wait_p95'])}x{bounds(iv['wait_p95'])} (<= 1.00): {verdict(ok, everywhere, missed)}")
    for fab, healthy in (("c", "a"), ("d", "d0")):
        if not (main[fab] and main[healthy]):
            continue
        lost = {p: cls(pol(fab, p), "all", "gpu_hours") - cls(pol(healthy, p), "all", "gpu_hours")
                for p in ("fabricfit", "tree")}
        # Each policy's loss seed by seed (degraded minus healthy on the same seed): its interval.
        # A ratio of two small, noisy differences has no useful interval of its own; whether the
        # target holds is the sign of fabricfit's loss - 0.3 x tree's, seed by seed.
        spans, losses = {}, {}
        for p in ("fabricfit", "tree"):
            degraded, whole = seeds_of(pol(fab, p)), seeds_of(pol(healthy, p))
            losses[p] = {sd: degraded[sd]["all.gpu_hours"] - whole[sd]["all.gpu_hours"] for sd in degraded
                         if sd in whole}
            iv = interval(list(losses[p].values())) if len(losses[p]) >= 2 else None
            spans[p] = "" if iv is None else f" [{iv[1]:.1f}-{iv[2]:.1f}]"
        if lost["tree"] <= 0:
            said = "tree loses nothing to it, so there is nothing to cut"
        else:
            q = lost["fabricfit"] / lost["tree"]
            excess = [losses["fabricfit"][sd] - 0.3 * losses["tree"][sd] for sd in losses["tree"]
                      if sd in losses["fabricfit"]]
            iv = interval(excess) if len(excess) >= 2 else None
            said = f"{q:.2f}x of tree's: {verdict(q <= 0.3, iv is None or iv[2] <= 0, iv is None or iv[1] > 0)}"
        verdicts.append(f"{LABEL[fab].split(' ')[0]} GPU-hours lost to the degradation: fabricfit "
                        f"{lost['fabricfit']:.1f}{spans['fabricfit']}, tree {lost['tree']:.1f}{spans['tree']}: {said}")
    print("Targets (fabricfit vs tree):\n")
    for v in verdicts:
        print(f"- {v}")
    print()
