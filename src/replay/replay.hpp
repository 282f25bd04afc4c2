// SPDX-License-Identifier: GPL-2.0-or-later
// An event-driven replay of a job trace through a placement policy: arrivals join a FIFO
// queue; at every event the queue is scanned in order and each job that fits now starts
// (a job that does not fit is skipped, not waited for: backfill-like skipping without
// reservations); departures free their GPUs. Every policy sees the same arrival stream.
#pragma once

#include <string>
#include <vector>

#include "placement/fragmentation.hpp"
#include "placement/locality_index.hpp"
#include "placement/placement_policy.hpp"
#include "replay/pattern_rule.hpp"
#include "replay/trace_reader.hpp"

namespace fabricfit {

struct ReplayOptions {
  int node_gpus = 8;  // every host of the fabric
  PatternRule rule;
  // A policy that holds jobs back for a while (fabricfit's locality wait) is asked again
  // when this much time has passed since a job's arrival, even if nothing else happens.
  double retry_after_s = 0;
};

struct ReplayResult {
  std::string policy;
  int jobs = 0;               // placed (and so completed)
  int unplaceable = 0;        // wider than the fabric: never placed
  double cross_spine_gb = 0;  // sum over jobs of spine bytes per unit x the rule's volume
  double cross_core_gb = 0;
  int one_group_jobs = 0;  // multi-host jobs small enough for one leaf group...
  int split_jobs = 0;      // ...of which placed over more than one
  double split_share = 0;
  double frag_mean = 0;  // time-weighted over the replay
  double wait_mean_s = 0;
  double wait_p95_s = 0;
  double wait_mean_multi_s = 0;  // multi-host jobs only: what a locality wait costs them
  double makespan_s = 0;         // first arrival to last departure
  double gpu_utilisation = 0;    // busy GPU-seconds / (GPUs x makespan)
  long decisions = 0;            // place() calls
  double decision_us_mean = 0;
};

[[nodiscard]] ReplayResult replay_trace(const LocalityIndex& index, const std::vector<TraceJob>& jobs,
                                        PlacementPolicy& policy, const FragModel& frag,
                                        const ReplayOptions& options);

// Runs each policy on its own copy of the cluster (two at a time), results in the order given.
[[nodiscard]] std::vector<ReplayResult> replay_policies(const LocalityIndex& index,
                                                        const std::vector<TraceJob>& jobs,
                                                        const std::vector<std::string>& policies,
                                                        const FragModel& frag, const ReplayOptions& options,
                                                        const PolicyOptions& policy_options = {});

// The workload's job sizes, weighted by GPU demand (jobs x GPUs): what fragmentation is
// measured against.
[[nodiscard]] WorkloadMix workload_mix_of(const std::vector<TraceJob>& jobs);

// Sum of GPUs x duration over (arrival span x cluster GPUs).
[[nodiscard]] double offered_load(const std::vector<TraceJob>& jobs, long cluster_gpus);

// Arrival times divided by `factor` (durations kept): a factor of 2 doubles the offered load.
[[nodiscard]] std::vector<TraceJob> compress_arrivals(std::vector<TraceJob> jobs, double factor);

}  // namespace fabricfit
