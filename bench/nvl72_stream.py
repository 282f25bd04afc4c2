#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# An NVL72-shaped job stream (issue 30 item 5), drawn from the mix below, as an ElasticFlow
# CSV (`job_id,submission_time,duration,num_gpu`) that `fabricfit replay --format elasticflow
# --gpus-per-node 4` reads: a job of more than 4 GPUs takes num_gpu / 4 whole trays.
#   nvl72_stream.py SEED [JOBS [MAX_DOMAINS]] > stream.csv
# MAX_DOMAINS (16) caps the jobs across domains, for a smaller cluster (the lab's 4 domains).
# No public NVL72 trace exists; the mix is stated here and in docs/placement.md ("An NVL72
# stream"), and each seed draws its own stream from it (Python's Mersenne Twister, seeded
# with SEED: the same SEED gives the same stream). Arrivals are a Poisson process at one job
# per 600 s; `replay --target-load` rescales them to the load asked.
import math
import random
import sys

TRAY_GPUS = 4
DOMAIN_TRAYS = 18

# (class, share of jobs, size sampler, duration median s, duration sigma, duration cap s).
# Sizes: under one tray, 1, 2 or 4 GPUs alike (debugging, evaluation, fine-tuning); in one
# domain, 2 to 18 trays, log-uniform (most such jobs small, as in every published trace);
# across domains, 2 to 16 whole domains, log-uniform (pre-training, which takes racks
# whole). Durations log-normal, longer for wider jobs, as in the Kalos and ElasticFlow traces.
MIX = [
    ("one tray", 0.30, lambda r: r.choice([1, 2, 4]), 1800, 1.5, 86400),
    ("in one domain", 0.55, lambda r: TRAY_GPUS * log_uniform_int(r, 2, DOMAIN_TRAYS), 7200, 1.2, 2 * 86400),
    ("across domains", 0.15, lambda r: TRAY_GPUS * DOMAIN_TRAYS * log_uniform_int(r, 2, MAX_DOMAINS), 28800, 1.0,
     3 * 86400),
]
MEAN_INTERARRIVAL_S = 600
MAX_DOMAINS = 16


def log_uniform_int(r, lo, hi):
    """An integer in [lo, hi], its logarithm uniform."""
    return min(hi, int(math.exp(r.uniform(math.log(lo), math.log(hi + 1)))))


def main():
    seed = int(sys.argv[1])
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    global MAX_DOMAINS
    MAX_DOMAINS = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    if MAX_DOMAINS < 2:
        sys.exit("nvl72_stream.py: MAX_DOMAINS must be at least 2")
    r = random.Random(seed)
    t = 0.0
    print("job_id,submission_time,duration,num_gpu")
    for i in range(jobs):
        t += r.expovariate(1 / MEAN_INTERARRIVAL_S)
        u = r.random()
        for name, share, size, median, sigma, cap in MIX:
            if u < share or name == MIX[-1][0]:
                break
            u -= share
        gpus = size(r)
        duration = min(cap, max(60.0, r.lognormvariate(math.log(median), sigma)))
        print(f"nvl72-{seed}-{i:05d},{t:.0f},{duration:.0f},{gpus}")


if __name__ == "__main__":
    main()
