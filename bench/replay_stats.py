#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# What the replay benches' summaries share: reading `fabricfit replay --json`, figures seed
# by seed, 95 % intervals and verdicts.
import json
import math
import os

# Two-sided 95 % Student-t quantiles for 1..30 degrees of freedom; beyond, t95() takes
# the Cornish-Fisher expansion (within 1e-4 of the exact quantile from 30 on).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    """Two-sided 95 % Student-t quantile for df >= 1 degrees of freedom."""
    if df <= len(T95):
        return T95[df - 1]
    z = 1.959964
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def mean(x):
    return x["mean"] if isinstance(x, dict) else x


def load(path):
    if not os.path.exists(path):
        return None
    d = json.load(open(path))
    return d, {r["policy"]: r for r in d["results"]}


def interval(values):
    """Mean and two-sided 95 % Student-t interval."""
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, m, m
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    half = t95(n - 1) * sd / math.sqrt(n)
    return m, m - half, m + half


def seeds_of(r):
    return {s["seed"]: s["figures"] for s in r.get("per_seed", [])}


def verdict(ok, established_ok, established_miss):
    """ok: the mean meets the target; established_*: the whole 95 % interval is on that side."""
    if ok:
        return "**met**" if established_ok else "**met by the mean, not established: the 95 % interval crosses it**"
    return "**not met**" if established_miss else "**not met by the mean; the 95 % interval crosses it**"


def ratio(a, b):
    if b == 0:
        return float("nan") if a != 0 else 1.0
    return a / b


def f(x, digits=3):
    return "n/a" if x != x else f"{x:.{digits}f}"


def judge(iv, limit, lower_is_better=True):
    """A ratio's interval against a target: ("<= 0.90", verdict) or (">= 1.00", verdict)."""
    eps = 1e-9
    if lower_is_better:
        return f"<= {limit:.2f}", verdict(iv[0] <= limit + eps, iv[2] <= limit + eps, iv[1] > limit + eps)
    return f">= {limit:.2f}", verdict(iv[0] >= limit - eps, iv[1] >= limit - eps, iv[2] < limit - eps)


def pick(result, paths):
    """{name: the mean at that key path of one policy's result} for each (name, path) of
    `paths` the result has."""
    got = {}
    for name, path in paths.items():
        x = result
        for key in path:
            x = x.get(key) if isinstance(x, dict) else None
            if x is None:
                break
        if x is not None:
            got[name] = mean(x)
    return got


def read_streams(out, file, seeds, paths):
    """{policy: {seed: pick(result, paths)}} over OUT/FILE-s<SEED>.json, a replay per stream,
    for the seeds whose file exists."""
    by = {}
    for s in range(1, seeds + 1):
        got = load(f"{out}/{file}-s{s}.json")
        if got is None:
            continue
        for p, r in got[1].items():
            by.setdefault(p, {})[s] = pick(r, paths)
    return by
