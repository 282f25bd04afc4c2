#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The comparison of bench/lab_stream.sh FAULTS=1: the same stream under each policy through
the same faults (a flapping uplink, a sub-healthy host link), from Slurm's own records (the
job completion log: every run of every job, a requeued job's included), the emulators' lines
(which runs a drop failed and the work they lost) and the fault injector's events.

  lab_stream_faults_summary.py OUT COMPRESSION CAP_H LOAD JOBS SWEEP_S FAULT_AT FLAP_S
                               FAULT_GROUP FAULT_HOST SLOW_KEEPS CKPT RUN...

Prints Markdown (what docs/placement.md shows) and writes OUT/per_job.csv (every job under
every run: runs, runs failed, completion time). Times in the table are trace time (wall
time x COMPRESSION), as the replay's."""
import csv
import gzip
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_stream_summary import emulator_runs, expand_hostlist, read_float, ts  # noqa: E402


def read_lines(path):
    return open(path).read().split("\n") if os.path.exists(path) else []


def jobcomp_runs(path):
    """Every record of the job completion log, per job id, in order: one per run that ended
    (a requeued job has one for its failed run and one for its last)."""
    runs = {}
    for line in read_lines(path):
        f = dict(re.findall(r"(\w+)=(\S*)", line))
        if "JobId" in f and f.get("StartTime") not in (None, "", "Unknown") and f.get("EndTime") not in (None, "", "Unknown"):
            runs.setdefault(f["JobId"], []).append(f)
    return runs


def health_words(path):
    words = {"kept_off": 0, "took_degraded": 0, "waits": 0}
    if not os.path.exists(path):
        return words
    with gzip.open(path, "rt", errors="replace") as fh:
        for line in fh:
            if "placement=fabricfit" in line:
                for w in ("kept_off", "took_degraded"):
                    if f"health={w}" in line:
                        words[w] += 1
            elif "(health=waits)" in line:
                words["waits"] += 1
    return words


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def fmt(x, digits=0):
    return "-" if x != x else f"{x:,.{digits}f}"


def main():
    out, compression, cap_h, load, njobs = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    sweep_s, fault_at, flap_s, group, host, keeps, ckpt = sys.argv[6:13]
    labels = sys.argv[13:]
    hour = compression / 3600  # trace hours per wall second
    res = {}
    for p in labels:
        d = os.path.join(out, p)
        t0 = read_float(os.path.join(d, "t0"))
        arrivals = {}
        for line in read_lines(os.path.join(d, "arrivals")):
            if line.strip():
                jid, at, nodes, gpn, f, base = line.split()[:6]
                arrivals[jid] = {"at": float(at), "nodes": int(nodes), "gpus": int(nodes) * int(gpn), "f": float(f)}
        comp = jobcomp_runs(os.path.join(d, "jobcomp.log"))
        emu = emulator_runs(os.path.join(d, "jobs"))
        drops = [float(line.split()[0]) for line in read_lines(os.path.join(d, "faults", "drops")) if line.strip()]
        where = read_lines(os.path.join(d, "faults", "where"))
        group_hosts = set(where[0].split()[2].split(",")) if where and where[0] else set()
        fault_start = t0 + float(fault_at)
        per, failed_runs, lost_gpu_h, used_gpu_h = {}, 0, 0.0, 0.0
        crossing_runs, sub_runs = 0, 0
        for jid, a in arrivals.items():
            records = comp.get(jid, [])
            done = [r for r in records if r.get("JobState") == "COMPLETED"]
            # A run is its start: a requeue writes the failed run again, as PENDING, ended
            # when it was requeued (a second later); the first record of a start is the run.
            seen = set()
            for r in records:
                key = r["StartTime"]
                if key in seen:
                    continue
                seen.add(key)
                start, end = ts(r["StartTime"]), ts(r["EndTime"])
                used_gpu_h += (end - start) * a["gpus"] * hour
                hosts = set(expand_hostlist(r.get("NodeList", "")))
                split_over = a["nodes"] > 1 and hosts & group_hosts and hosts - group_hosts
                if split_over and end > fault_start:
                    crossing_runs += 1
                if a["nodes"] > 1 and host in hosts and end > fault_start:
                    sub_runs += 1
            lines = emu.get(jid, [])
            fails = [e for e in lines if e.get("failed") == "1"]
            failed_runs += len(fails)
            lost_gpu_h += sum(float(e.get("lost", 0)) * a["gpus"] * hour for e in fails)
            per[jid] = {
                "arrival": a["at"], "nodes": a["nodes"], "gpus": a["gpus"],
                "runs": len(seen), "failed": len(fails),
                "jct": (ts(done[-1]["EndTime"]) - a["at"]) * compression if done else None,
                "after_fault": a["at"] >= fault_start,
                "hosts": done[-1]["NodeList"] if done else "",
            }
        res[p] = {"per": per, "failed_runs": failed_runs, "jobs_failed": sum(1 for j in per.values() if j["failed"]),
                  "lost_gpu_h": lost_gpu_h, "used_gpu_h": used_gpu_h, "crossing_runs": crossing_runs,
                  "sub_runs": sub_runs, "drops": len(drops), "words": health_words(os.path.join(d, "slurmctld.log.gz")),
                  "unfinished": sum(1 for j in per.values() if j["jct"] is None),
                  "wall": read_float(os.path.join(d, "t1")) - t0}

    def jcts(p, pick):
        return [j["jct"] for j in res[p]["per"].values() if j["jct"] is not None and pick(j)]

    base = "tree" if "tree" in res else labels[0]
    print(f"Produced by `FAULTS=1 bench/lab_stream.sh OUT --update-docs`: {njobs} of ElasticFlow cluster04 "
          f"(durations capped at {cap_h} h, offered load {load}), trace time / {compression:.1f}, on the 64-host lab. "
          f"From {fault_at} s after the first arrival, {host}'s HCA link turns sub-healthy (symbol errors; "
          f"jobs on it keep {keeps} of its rate) and an uplink of leaf group {group} drops every {flap_s} s; "
          f"`fabricfit health --sweep` every {sweep_s} s; a failed job is requeued and resumes from its last "
          f"checkpoint (every {ckpt} s of trace work). Times and GPU-hours are trace time.")
    print()
    print("| policy | uplink drops | runs failed by a drop (jobs) | GPU-hours redone | split runs over the flapping group | "
          "multi-host runs on the sub-healthy host | multi-host completion, mean h | ... of jobs after the fault | "
          "all jobs, mean h | GPU-hours used | health words (kept_off / took_degraded / waits) | unfinished |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in labels:
        r = res[p]
        multi = jcts(p, lambda j: j["nodes"] > 1)
        late = jcts(p, lambda j: j["nodes"] > 1 and j["after_fault"])
        alljobs = jcts(p, lambda j: True)
        w = r["words"]
        words = f"{w['kept_off']} / {w['took_degraded']} / {w['waits']}" if p.split(".")[0] == "fabricfit" else "-"
        print(f"| {p} | {r['drops']} | {r['failed_runs']} ({r['jobs_failed']}) | {fmt(r['lost_gpu_h'], 1)} | "
              f"{r['crossing_runs']} | {r['sub_runs']} | {fmt(mean(multi) / 3600, 2)} | {fmt(mean(late) / 3600, 2)} | "
              f"{fmt(mean(alljobs) / 3600, 2)} | {fmt(r['used_gpu_h'])} | {words} | {r['unfinished']} |")
    print()
    for p in labels:
        if p == base:
            continue
        b, r = res[base], res[p]

        def ratio(x, y):
            return f"{x / y:.3f}" if y else "-"
        print(f"- {p} / {base}: runs failed by a drop {ratio(r['failed_runs'], b['failed_runs'])}, "
              f"GPU-hours redone {ratio(r['lost_gpu_h'], b['lost_gpu_h'])}, "
              f"multi-host completion {ratio(mean(jcts(p, lambda j: j['nodes'] > 1)), mean(jcts(base, lambda j: j['nodes'] > 1)))}, "
              f"... of jobs arriving after the fault {ratio(mean(jcts(p, lambda j: j['nodes'] > 1 and j['after_fault'])), mean(jcts(base, lambda j: j['nodes'] > 1 and j['after_fault'])))}, "
              f"all jobs {ratio(mean(jcts(p, lambda j: True)), mean(jcts(base, lambda j: True)))}, "
              f"GPU-hours used {ratio(r['used_gpu_h'], b['used_gpu_h'])}")

    with open(os.path.join(out, "per_job.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["policy", "jobid", "nodes", "gpus", "arrival_s", "runs", "runs_failed", "completion_s", "hosts"])
        for p in labels:
            t0 = read_float(os.path.join(out, p, "t0"))
            for jid, j in res[p]["per"].items():
                w.writerow([p, jid, j["nodes"], j["gpus"], f"{(j['arrival'] - t0) * compression:.0f}", j["runs"], j["failed"],
                            "" if j["jct"] is None else f"{j['jct']:.0f}", j["hosts"]])


if __name__ == "__main__":
    main()
