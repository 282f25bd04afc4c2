#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The comparison table of bench/lab_stream.sh, from Slurm's own records: the job
completion log (jobcomp/filetxt) for every job's nodes, wait and completion time, sdiag
for the scheduler's cycle times, and the emulators' lines for the modelled slowdown.

  lab_stream_summary.py OUT COMPRESSION CAP_H LOAD JOBS DEMAND ROUTING RULE ESTIMATE RUN...

A RUN is a policy's records in OUT/RUN: POLICY for the first run of a policy, POLICY.K for
its K-th when the runs were repeated (lab_stream.sh's REPEAT). Prints Markdown (what
docs/placement.md shows): the first run of each policy in full, then, with repeats, every
alternated pair and the median of their ratios. Writes OUT/per_job.csv (every job under
the first run of every policy: leaf groups, wait, run, completion time)."""
import csv
import gzip
import json
import math
import os
import re
import sys
from datetime import datetime

# The policy fabricfit is compared with (lab_stream.sh: block on NVLink domains, else tree),
# the lab's geometry (lab.sh up's options) and the trace, when the run says them.
BASE = os.environ.get("LAB_STREAM_BASELINE", "tree")
GEOMETRY = os.environ.get("LAB_STREAM_GEOMETRY", "")
TRACE = os.environ.get("LAB_STREAM_TRACE", "")


def expand_hostlist(text):
    """gpu[001-003,007],gpu010 -> names (Slurm's hostlist syntax, one bracket level)."""
    out = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", text):
        m = re.match(r"^(.*)\[([^\]]*)\](.*)$", part)
        if not m:
            out.append(part)
            continue
        pre, body, post = m.groups()
        for r in body.split(","):
            if "-" in r:
                a, b = r.split("-")
                for i in range(int(a), int(b) + 1):
                    out.append(f"{pre}{i:0{len(a)}d}{post}")
            else:
                out.append(pre + r + post)
    return out


def read_jobcomp(path):
    jobs = {}
    if not os.path.exists(path):
        return jobs
    for line in open(path):
        f = dict(re.findall(r"(\w+)=(\S*)", line))
        if "JobId" not in f:
            continue
        jobs[f.get("Name", f["JobId"])] = f
    return jobs


def ts(text):
    return datetime.fromisoformat(text).timestamp()


def sdiag_fields(path):
    """Main scheduler and backfill cycle statistics (microseconds, counts)."""
    res, section = {}, None
    if not os.path.exists(path):
        return res
    for line in open(path):
        if line.startswith("Main schedule statistics"):
            section = "main"
        elif line.startswith("Backfilling stats"):
            section = "bf"
        elif re.match(r"^[A-Z][^:]*:\s*$", line) or line.startswith("Latency") or line.startswith("Remote"):
            section = None
        m = re.match(r"^\s+(Total cycles|Mean cycle|Max cycle|Last cycle|Mean depth cycle):\s+(\d+)", line)
        if section and m:
            res[f"{section} {m.group(1).lower()}"] = int(m.group(2))
    return res


def emulator_runs(directory):
    """Every lab_job line per job id, in order (a requeued job's runs append to one file)."""
    out = {}
    if not os.path.isdir(directory):
        return out
    for name in os.listdir(directory):
        for line in open(os.path.join(directory, name), errors="replace"):
            if line.startswith("lab_job "):
                parts = line.split()
                out.setdefault(parts[1], []).append(dict(p.split("=", 1) for p in parts[2:] if "=" in p))
    return out


def emulator_lines(directory):
    """The last lab_job line per job id: its last run."""
    return {job: lines[-1] for job, lines in emulator_runs(directory).items()}


def plugin_decisions(path):
    """Per job id, from slurmctld's log: the hosts it could have had at its allocation, the
    locality wait's verdict then (with its gain and expected wait), whether it waited first."""
    got = {}
    if not os.path.exists(path):
        return got
    with gzip.open(path, "rt", errors="replace") as fh:
        for line in fh:
            m = re.search(r"eval_nodes JobId=(\d+) candidates=(\S+) chosen=(\S+) rc=0 ", line)
            if m:
                d = got.setdefault(m.group(1), {"waited": False})
                d["candidates"] = len(expand_hostlist(m.group(2)))
                d["chosen"] = frozenset(expand_hostlist(m.group(3)))
                # Every verdict the plugin writes, "error" and "kept" included; gain and wait when given.
                v = re.search(r"locality-wait=(\S+)(?: gain=(\d+)s expected_wait=(\d+)s)?", line)
                d["verdict"] = (v.group(1), v.group(2), v.group(3)) if v else None
                continue
            m = re.search(r"fabricfit: JobId=(\d+) waits: ", line)
            if m:
                got.setdefault(m.group(1), {"waited": False})["waited"] = True
    return got


def decision_for(decided, job):
    """The plugin's last allocating decision for a job, if it chose the nodes the job ran on (a
    requeued job is evaluated again; a job Slurm placed itself has no line of the plugin)."""
    d = decided.get(job["jobid"])
    return d if d and d.get("chosen") == frozenset(expand_hostlist(job["hosts"])) else None


def decision_text(d):
    if not d:
        return "no decision of the plugin in slurmctld's log for the nodes it ran on"
    if d.get("verdict"):
        v, gain, wait = d["verdict"]
        said = f"locality wait {v}" + (f" (gain {gain} s, expected wait {wait} s)" if gain is not None else "")
    else:
        said = "no locality-wait verdict"
    waited = ", after waiting for one group" if d["waited"] else ""
    return f"the plugin: {said}{waited}, {d.get('candidates', '?')} hosts to choose from"


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def p95(xs):
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[math.ceil(0.95 * len(s)) - 1]


def main():
    out, compression, cap_h, load, njobs = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    demand, routing, rule, estimate = sys.argv[6], sys.argv[7], sys.argv[8], sys.argv[9]
    labels = sys.argv[10:]
    policies = [l for l in labels if "." not in l]
    stream = list(csv.DictReader(open(os.path.join(out, "jobs.csv"))))
    runs = {}
    for p in labels:
        d = os.path.join(out, p)
        fabric = json.load(open(os.path.join(d, "fabric.json")))
        group_of, degraded = {}, set()
        for g in fabric["leaf_groups"]:
            for h in g["hosts"]:
                group_of[h] = g["name"]
            if g.get("lost_up_gbps", 0) > 0:  # uplink capacity lost to missing or degraded cables
                degraded.add(g["name"])
        comp = read_jobcomp(os.path.join(d, "jobcomp.log"))
        emu = emulator_lines(os.path.join(d, "jobs"))
        sd = sdiag_fields(os.path.join(d, "sdiag.txt"))
        per = {}
        for i, row in enumerate(stream, 1):
            name = f"s{i}"
            c = comp.get(name)
            if not c or c.get("JobState") != "COMPLETED":
                per[name] = None
                continue
            hosts = expand_hostlist(c["NodeList"])
            groups = sorted({group_of.get(h, "?") for h in hosts})
            submit, start, end = ts(c["SubmitTime"]), ts(c["StartTime"]), ts(c["EndTime"])
            e = emu.get(c["JobId"], {})
            per[name] = {
                "jobid": c["JobId"], "nodes": int(row["nodes"]), "gpus": int(row["nodes"]) * int(row["gpus_per_node"]),
                "f": float(row["comm_share"]), "hosts": c["NodeList"], "groups": groups,
                "degraded": bool(degraded & set(groups)),
                "wait": start - submit, "run": end - start, "jct": end - submit,
                "base": float(row["duration_s"]) / compression,
                "slowdown": float(e.get("slowdown_mean", "nan")),
                "alone": float(e.get("slowdown_alone", "nan")),
            }
        runs[p] = {"jobs": per, "sdiag": sd, "degraded": degraded,
                   "decisions": plugin_decisions(os.path.join(d, "slurmctld.log.gz")),
                   "placed_ff": read_int(os.path.join(d, "placed_by_fabricfit")),
                   "placed_slurm": read_int(os.path.join(d, "placed_by_slurm")),
                   "binaries": read_text(os.path.join(d, "binaries.txt")),
                   "perf": read_text(os.path.join(d, "perf.txt")),
                   "ctld_cpu": read_float(os.path.join(d, "ctld_cpu1")) - read_float(os.path.join(d, "ctld_cpu0")),
                   "wall": read_float(os.path.join(d, "t1")) - read_float(os.path.join(d, "t0"))}

    # Per job, every policy side by side.
    with open(os.path.join(out, "per_job.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        head = ["job", "trace_id", "nodes", "gpus", "comm_share", "base_s"]
        for p in policies:
            head += [f"{p}_{k}" for k in ("jobid", "hosts", "leaf_groups", "wait_s", "run_s", "jct_s", "slowdown")]
        w.writerow(head)
        for i, row in enumerate(stream, 1):
            name = f"s{i}"
            line = [name, row["id"], row["nodes"], int(row["nodes"]) * int(row["gpus_per_node"]), row["comm_share"],
                    f"{float(row['duration_s']) / compression:.1f}"]
            for p in policies:
                j = runs[p]["jobs"][name]
                line += ([j["jobid"], j["hosts"], " ".join(j["groups"]), f"{j['wait']:.0f}", f"{j['run']:.0f}",
                          f"{j['jct']:.0f}", f"{j['slowdown']:.3f}"] if j else ["", "", "", "", "", "", ""])
            w.writerow(line)

    if TRACE and not TRACE.startswith("/"):  # a drawn stream, described by lab_stream.sh
        source = f"{TRACE} (durations capped at {cap_h} h)"
    else:
        source = (f"{os.path.basename(TRACE)}" if TRACE and "cluster04" not in TRACE
                  else f"ElasticFlow cluster04 (trace durations capped at {cap_h} h)")
    lab = (f"`lab.sh up {GEOMETRY}`" if GEOMETRY and "--nodes 64 --leaves 8 " not in GEOMETRY + " "
           else "64 hosts x 8 GPUs in 8 leaf groups of 8, 2 spines, 2:1 uplinks "
           "(4 per leaf), leaf group 3 with half its uplinks at half rate (4xEDR)")
    print(f"Stream: {njobs} of {source}, "
          f"arrivals compressed to an offered load of {load} (`fabricfit replay --target-load`), then trace time / "
          f"{compression:.0f} in the lab. Lab: {lab}; DefMemPerGPU=400, "
          f"DefCpuPerGPU=4 (1-GPU jobs share nodes); bf_interval=5, sched_interval=10. Each job is "
          f"`bench/lab_job.sh`: its base time is its trace duration / {compression:.0f} (its run time in one leaf "
          f"group with no contention); a multi-host job's pattern comes from the replay's rule `{rule}` (passed "
          f"as `--comm-pattern`) and its communication share from the replay's draw ({{0.1, 0.3, 0.5}}, seed 1); it runs at 1/slowdown, the slowdown from `fabricfit slowdown` on its "
          f"real nodes shared with the other running multi-host jobs (re-asked every tick; demand {demand}, routing "
          f"{routing}). fabricfit's locality wait weighs "
          f"{'run times predicted from the last two finished jobs (LocalityWaitEstimate=history)' if estimate == 'history' else 'time limits (LocalityWaitEstimate=limit)'}. Times below are lab "
          f"seconds from Slurm's job completion log (1 s resolution).\n")
    classes = [("all", lambda j: True), ("one host", lambda j: j["nodes"] == 1),
               ("multi-host", lambda j: j["nodes"] >= 2)]
    print("| policy | class | jobs done | mean JCT (s) | p95 JCT (s) | mean wait (s) | mean run (s) "
          "| mean slowdown | GPU-hours (trace) | on >1 leaf group | on the degraded group (split over it) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    stats = {}
    for p in policies:
        jobs = runs[p]["jobs"]
        for cname, pred in classes:
            js = [j for j in jobs.values() if j and pred(j)]
            missing = sum(1 for n, j in jobs.items() if j is None and pred_row(stream, n, cname))
            jct = [j["jct"] for j in js]
            st = {"n": len(js), "jct": mean(jct), "p95": p95(jct), "wait": mean([j["wait"] for j in js]),
                  "run": mean([j["run"] for j in js]), "sd": mean([j["slowdown"] for j in js if not math.isnan(j["slowdown"])]),
                  "gh": sum(j["gpus"] * j["run"] for j in js) * compression / 3600,
                  "split": sum(1 for j in js if len(j["groups"]) > 1),
                  "deg": sum(1 for j in js if j["degraded"] and j["nodes"] >= 2),
                  "deg_split": sum(1 for j in js if j["degraded"] and len(j["groups"]) > 1)}
            stats[(p, cname)] = st
            deg = "-" if cname == "one host" else f"{st['deg']} ({st['deg_split']})"
            print(f"| {p} | {cname} | {st['n']}{f' ({missing} not done)' if missing else ''} | {st['jct']:.1f} | "
                  f"{st['p95']:.0f} | {st['wait']:.1f} | {st['run']:.1f} | {st['sd']:.3f} | {st['gh']:.0f} | "
                  f"{st['split']} | {deg} |")
    print()
    print("| policy | main cycles | main mean (us) | main max (us) | main mean depth (jobs) | backfill cycles "
          "| backfill mean (us) | backfill max (us) | placed by fabricfit / by Slurm | slurmctld CPU (s) | lab wall (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in policies:
        s = runs[p]["sdiag"]
        print(f"| {p} | {s.get('main total cycles', '?')} | {s.get('main mean cycle', '?')} | "
              f"{s.get('main max cycle', '?')} | {s.get('main mean depth cycle', '?')} | "
              f"{s.get('bf total cycles', '?')} | {s.get('bf mean cycle', '?')} | "
              f"{s.get('bf max cycle', '?')} | "
              f"{runs[p]['placed_ff'] if p == 'fabricfit' else '-'} / {runs[p]['placed_slurm'] if p == 'fabricfit' else '-'} | "
              f"{runs[p]['ctld_cpu']:.1f} | {runs[p]['wall']:.0f} |")
    print()
    profiles(runs, labels)
    if BASE in policies and "fabricfit" in policies:
        targets(runs, stats)
        replay_prediction(os.path.join(out, "replay.json"), compression)
        if len(labels) > len(policies):
            repeats(runs, labels)
    print()
    print("Topology plugin and CLI used (sha256 prefix):")
    print()
    for p in policies:
        for line in runs[p]["binaries"].splitlines():
            print(f"- {p}: `{line.strip()}`")
    print()


def pred_row(stream, name, cname):
    row = stream[int(name[1:]) - 1]
    n = int(row["nodes"])
    return cname == "all" or (cname == "one host" and n == 1) or (cname == "multi-host" and n >= 2)


def targets(runs, stats):
    ff, tr = stats[("fabricfit", "multi-host")], stats[(BASE, "multi-host")]
    r = ff["jct"] / tr["jct"] if tr["jct"] else float("nan")
    print(f"**Targets** (fabricfit against {BASE} on the same stream):\n")
    print(f"- multi-host mean completion time: {ff['jct']:.1f} s vs {tr['jct']:.1f} s = **{r:.2f}x** "
          f"(target <= 0.90x): {'met' if r <= 0.9 else 'not met'}")
    base = mean([j["base"] for j in runs[BASE]["jobs"].values() if j and j["nodes"] >= 2])
    print(f"  - the floor: the multi-host jobs' mean uncontended run time (no wait, no slowdown) is {base:.1f} s, "
          f"so no placement can do better than **{base / tr['jct']:.2f}x** {BASE} on this stream; {BASE}'s own "
          f"excess over it is {tr['jct'] - base:.1f} s (waits {tr['wait']:.1f} s, slowdown and launch the rest)")
    wider, paid = [], 0
    fj, tj = runs["fabricfit"]["jobs"], runs[BASE]["jobs"]
    for n, j in fj.items():
        t = tj.get(n)
        if j and t and j["nodes"] >= 2 and len(j["groups"]) > len(t["groups"]):
            wider.append((n, j, t))
            paid += 1 if j["jct"] <= t["jct"] else 0
    print(f"- jobs on more leaf groups than under {BASE}: {len(wider)}; of them {paid} completed no later than "
          f"under {BASE} (they did not lose by starting wide instead of waiting)"
          f"{'; the others:' if paid < len(wider) else ''}")
    decided = runs["fabricfit"].get("decisions", {})
    for n, j, t in wider:
        if j["jct"] > t["jct"]:
            print(f"  - {n} ({j['nodes']} hosts, f={j['f']:g}): fabricfit {j['hosts']} in {len(j['groups'])} groups, "
                  f"wait {j['wait']:.0f} s + run {j['run']:.0f} s; {BASE} {t['hosts']} in {len(t['groups'])}, "
                  f"wait {t['wait']:.0f} s + run {t['run']:.0f} s; {decision_text(decision_for(decided, j))}")
    if wider and decided:
        tally = {}
        for n, j, t in wider:
            d = decision_for(decided, j) or {}
            key = (d["verdict"][0] if d.get("verdict") else "no verdict") + (" after a wait" if d.get("waited") else "")
            tally[key] = tally.get(key, 0) + 1
        print("  - the plugin's locality-wait verdicts when it placed them: "
              + ", ".join(f"{k} {v}" for k, v in sorted(tally.items()))
              + " (no-gain: the model saw no run time to win by waiting; wait-exceeds-gain: the expected wait "
              "was longer than the gain)")
    sf, st = runs["fabricfit"]["sdiag"], runs[BASE]["sdiag"]
    for key, label in (("main mean cycle", "main"), ("bf mean cycle", "backfill")):
        a, b = sf.get(key), st.get(key)
        if a is not None and b:
            print(f"- {label} scheduling cycle (sdiag mean): {a} us vs {b} us = **{a / b:.2f}x** (target <= 1.10x): "
                  f"{'met' if a / b <= 1.1 else 'not met'}")
    # A main cycle walks the pending queue: the locality wait keeps jobs pending on purpose, so
    # the cost per job the cycle looked at (sdiag's mean depth) tells the plugin's share apart.
    da, db = sf.get("main mean depth cycle"), st.get("main mean depth cycle")
    a, b = sf.get("main mean cycle"), st.get("main mean cycle")
    if da and db and a is not None and b:
        print(f"- main cycle per job looked at (mean / mean depth): {a / da:.0f} us vs {b / db:.0f} us = "
              f"**{(a / da) / (b / db):.2f}x** (mean depth {da} vs {db} jobs)")


def profiles(runs, labels):
    """With PERF=1: slurmctld's samples, the share of the topology plugin's own code (its .so,
    self: the engine is linked into it), the inclusive share of its evaluation (ffg_eval_nodes
    for fabricfit, eval_nodes_tree for tree, with Slurm's evaluator they call) and of the main
    and backfill schedulers' paths (select_nodes, _attempt_backfill), and the kernel's."""
    rows = []
    for l in labels:
        kv = dict(line.split(None, 1) for line in runs[l]["perf"].splitlines() if len(line.split()) == 2)
        if "samples" not in kv:
            continue
        ev = kv.get("ffg_eval_nodes") or kv.get("eval_nodes_tree") or "0%"
        rows.append(f"| {l} | {kv['samples']} | {kv.get('plugin_code', '-')} | {ev} | "
                    f"{kv.get('select_nodes', '0%')} | {kv.get('_attempt_backfill', '0%')} | "
                    f"{kv.get('kernel', '-')} |")
    if rows:
        print("slurmctld profiled through each run (`perf record -F 499 -g`; shares inclusive of what "
              "they call):\n")
        print("| run | samples | topology plugin's own code (self) | its evaluation (inclusive) "
              "| main scheduler (select_nodes) | backfill (_attempt_backfill) | kernel |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(rows))
        print()


def median(xs):
    s = sorted(xs)
    n = len(s)
    return float("nan") if not n else (s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2)


def multi_host(run):
    js = [j for j in run["jobs"].values() if j and j["nodes"] >= 2]
    return mean([j["jct"] for j in js]), sum(j["gpus"] * j["run"] for j in js)


def repeats(runs, labels):
    """Every alternated tree/fabricfit pair of a repeated run, and the median of the ratios:
    one run of each is one sample of a noisy 2-core machine, so a verdict needs several."""
    pairs, k = [], 1
    while (BASE if k == 1 else f"{BASE}.{k}") in runs and ("fabricfit" if k == 1 else f"fabricfit.{k}") in runs:
        t, f = runs[BASE if k == 1 else f"{BASE}.{k}"], runs["fabricfit" if k == 1 else f"fabricfit.{k}"]
        (tj, tg), (fj, fg) = multi_host(t), multi_host(f)
        row = {"k": k, "jct": (tj, fj), "gh": (tg, fg)}
        for key in ("main mean cycle", "bf mean cycle"):
            row[key] = (t["sdiag"].get(key), f["sdiag"].get(key))
        row["cpu"] = (t["ctld_cpu"], f["ctld_cpu"])
        pairs.append(row)
        k += 1
    if len(pairs) < 2:
        return
    ratio = lambda ab: ab[1] / ab[0] if ab[0] and ab[1] is not None else float("nan")
    print(f"\n**Repeated runs**: {len(pairs)} pairs, each {BASE} then fabricfit on the same stream "
          f"(the order of `labels`: {' '.join(labels)}); the first pair is the one above.\n")
    print(f"| pair | multi-host mean JCT {BASE} / fabricfit (s) | ratio | multi-host GPU-hours ratio "
          f"| main mean {BASE} / fabricfit (us) | ratio | backfill mean {BASE} / fabricfit (us) | ratio "
          f"| slurmctld CPU {BASE} / fabricfit (s) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in pairs:
        m, b = r["main mean cycle"], r["bf mean cycle"]
        print(f"| {r['k']} | {r['jct'][0]:.1f} / {r['jct'][1]:.1f} | {ratio(r['jct']):.2f}x | {ratio(r['gh']):.2f}x "
              f"| {m[0]} / {m[1]} | {ratio(m):.2f}x | {b[0]} / {b[1]} | {ratio(b):.2f}x "
              f"| {r['cpu'][0]:.1f} / {r['cpu'][1]:.1f} | {ratio(r['cpu']):.2f}x |")
    print()
    for key, label, target, cmp in (("jct", "multi-host mean completion time", 0.90, "<="),
                                    ("gh", "multi-host GPU-hours", None, None),
                                    ("main mean cycle", "main scheduling cycle (sdiag mean)", 1.10, "<="),
                                    ("bf mean cycle", "backfill scheduling cycle (sdiag mean)", 1.10, "<="),
                                    ("cpu", "slurmctld CPU time over the stream", None, None)):
        rs = [ratio(r[key]) for r in pairs]
        med = median(rs)
        verdict = f" (target {cmp} {target:.2f}x): {'met' if med <= target else 'not met'}" if target else ""
        print(f"- {label}, median of {len(rs)} pairs: **{med:.3f}x** (range {min(rs):.3f}x-{max(rs):.3f}x){verdict}")
    # Tree's own mean moves more between runs than fabricfit's: the runs pooled, as a second view.
    tm, fm = mean([r["jct"][0] for r in pairs]), mean([r["jct"][1] for r in pairs])
    print(f"- multi-host mean completion time, the runs of each policy pooled: {fm:.1f} s vs {tm:.1f} s = "
          f"**{fm / tm:.3f}x** ({BASE} {min(r['jct'][0] for r in pairs):.1f}-{max(r['jct'][0] for r in pairs):.1f} s, "
          f"fabricfit {min(r['jct'][1] for r in pairs):.1f}-{max(r['jct'][1] for r in pairs):.1f} s)")
    print()


def replay_prediction(path, compression):
    """What `fabricfit replay` predicts for the same stream (its tree is the engine's best-fit
    model of topology/tree; its fabricfit has the adaptive locality wait)."""
    try:
        rep = json.load(open(path))
    except (OSError, ValueError):
        return
    multi = {}
    for r in rep["results"]:
        c = r["classes"]
        n = c["within_group"]["jobs"] + c["wider"]["jobs"]
        jct = (c["within_group"]["jct_mean_s"] * c["within_group"]["jobs"] + c["wider"]["jct_mean_s"] * c["wider"]["jobs"])
        multi[r["policy"]] = (n, jct / n if n else float("nan"), c["all"]["gpu_hours"])
    if "fabricfit" in multi and BASE in multi and multi[BASE][1]:
        f, t = multi["fabricfit"], multi[BASE]
        print(f"- the replay on the same stream predicts multi-host mean completion {f[1] / compression:.1f} s vs "
              f"{t[1] / compression:.1f} s (lab seconds) = {f[1] / t[1]:.2f}x, GPU-hours {f[2]:.0f} vs {t[2]:.0f}")


def read_int(path):
    try:
        return int(open(path).read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def read_float(path):
    try:
        return float(open(path).read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0


def read_text(path):
    try:
        return open(path).read()
    except OSError:
        return ""


if __name__ == "__main__":
    main()
