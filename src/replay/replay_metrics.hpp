// SPDX-License-Identifier: GPL-2.0-or-later
// What users feel, from a replay's start and end times: completion time, GPU-hours,
// waits and bounded slowdown per job class; and several seeds as mean and 95 % interval.
#pragma once

#include <vector>

#include "replay/replay.hpp"

namespace fabricfit {

// Bounded slowdown's floor on the run time, in seconds (the usual 10 s).
inline constexpr double kBoundedSlowdownFloor = 10.0;

// Fills result.jobs, wait_mean_s, wait_p95_s, wait_mean_multi_s, classes and (when
// largest_domain > 0) multi_domain and in_domain from the jobs that ran (start >= 0).
void fill_job_metrics(const std::vector<TraceJob>& jobs, const std::vector<double>& start,
                      const std::vector<double>& end, int largest_leaf_group, ReplayResult& result,
                      int largest_domain = 0);

// The smallest value v with at least 95 % of the values <= v (nearest rank); 0 when empty.
[[nodiscard]] double p95(std::vector<double> values);

// Mean and two-sided 95 % Student-t interval over seeds (lo == hi == mean for one value).
struct Interval {
  double mean = 0;
  double lo = 0;
  double hi = 0;
};
[[nodiscard]] Interval interval_of(const std::vector<double>& values);

}  // namespace fabricfit
