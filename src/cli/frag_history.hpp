// SPDX-License-Identifier: GPL-2.0-or-later
// Fragmentation over time from Slurm's job records (`fabricfit report --html`): the free
// GPUs after every job start and end the records know, and how many of them the workload
// mix could not use then.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/slurm_cluster.hpp"
#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit::cli {

struct FragPoint {
  std::int64_t time = 0;  // unix seconds
  int free_gpus = 0;
  double unusable = 0;  // free GPUs the workload mix cannot use
  double frag = 0;      // unusable / free (0..1)
};

// One point per moment a job started or ended (at most the last `max_points`), with the
// GPUs of the jobs running then (start <= t < end) taken from `total`'s; jobs still
// running hold theirs to the end. Jobs on hosts the fabric lacks are left out.
[[nodiscard]] std::vector<FragPoint> frag_history(const LocalityIndex& index, const std::vector<int>& total,
                                                  const std::vector<SlurmJob>& jobs,
                                                  std::size_t max_points = 200);

// Clock times for the time axis of [t0, t1] (unix seconds): whole multiples of the smallest
// step of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, 1, 2 days, 1, 2
// weeks, 30, 90, 365 days that gives at most 6 of them.
[[nodiscard]] std::vector<std::int64_t> time_ticks(std::int64_t t0, std::int64_t t1);

// An inline SVG line chart of the points (id "frag-history") with labelled axes: the
// fragmentation (0 to 1) against UTC clock time, or a note when there are no points.
[[nodiscard]] std::string frag_history_svg(const std::vector<FragPoint>& points);

}  // namespace fabricfit::cli
