// SPDX-License-Identifier: GPL-2.0-or-later
// A replay's results as a text table, JSON, and an SVG plot (the metrics side by side,
// one bar per policy): what an admin puts on a slide.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "replay/replay.hpp"

namespace fabricfit {

struct ReplayReport {
  std::string trace;    // file
  std::string format;   // elasticflow, kalos, openb
  std::string mapping;  // how GPU counts became hosts
  int trace_jobs = 0;
  std::string fabric;  // e.g. "80 hosts x 8 GPUs in 10 leaf groups, 2 tiers"
  long cluster_gpus = 0;
  double offered_load = 0;         // after compression
  double compression = 1;          // arrival times divided by this
  std::string rule;                // PatternRule::describe()
  std::string rule_spec;           // PatternRule::to_string()
  std::string mix;                 // WorkloadMix::to_string()
  double locality_wait_s = 0;      // tree-switches' fixed wait for one leaf group
  double adaptive_wait_cap_s = 0;  // fabricfit's adaptive wait: cap (0: off)
  double overestimate = 1;         // time limit = trace duration x this
  bool round_limits = false;       // ... rounded up to a typed value
  std::string estimate = "limit";  // the wait's run time: limit or history
  std::string weights;             // fabricfit's ScoreWeights
  std::string model;               // RuntimeModelOptions::describe()
  std::string demand;              // time-averaged or peak
  std::string routing;             // ecmp or static
  std::string faults;              // FaultRates::to_string(); empty: none
  std::string backfill = "skip";   // skip, or reserve (the first blocked job's hosts)
  int segment_nodes = 0;           // --segment=N asked by the jobs wider than a domain it divides
  int segment_jobs = 0;            // how many jobs ask it
  std::vector<std::uint64_t> seeds;
  std::vector<std::vector<ReplayResult>> results;  // [policy][seed]
};

// Every reported figure of one run (one policy, one seed), by its JSON name
// ("all.jct_mean_s", "idle_while_fit_gpu_hours", ...; "multi_domain.*" when jobs wider than
// a domain ran, "in_domain.*" when multi-host jobs a domain holds ran, "diagnostics.domain_*").
[[nodiscard]] std::vector<std::pair<std::string, double>> report_figures(const ReplayResult& r);

[[nodiscard]] std::string report_text(const ReplayReport& report);
[[nodiscard]] nlohmann::json report_json(const ReplayReport& report);
[[nodiscard]] std::string report_svg(const ReplayReport& report);

}  // namespace fabricfit
