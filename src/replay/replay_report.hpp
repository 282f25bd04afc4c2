// SPDX-License-Identifier: GPL-2.0-or-later
// A replay's results as a text table, JSON, and an SVG plot (the metrics side by side,
// one bar per policy): what an admin puts on a slide.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
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
  double offered_load = 0;     // after compression
  double compression = 1;      // arrival times divided by this
  std::string rule;            // PatternRule::describe()
  std::string rule_spec;       // PatternRule::to_string()
  std::string mix;             // WorkloadMix::to_string()
  double locality_wait_s = 0;  // fabricfit's and tree-switches' wait for one leaf group
  std::string weights;         // fabricfit's ScoreWeights
  std::vector<ReplayResult> results;
};

[[nodiscard]] std::string report_text(const ReplayReport& report);
[[nodiscard]] nlohmann::json report_json(const ReplayReport& report);
[[nodiscard]] std::string report_svg(const ReplayReport& report);

}  // namespace fabricfit
