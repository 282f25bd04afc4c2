// SPDX-License-Identifier: GPL-2.0-or-later
// The running jobs' traffic on the fabric (frag --live): how much of their inter-node
// traffic crosses the spines, and how many jobs wait and why.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/slurm_cluster.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit::cli {

struct LiveJobs {
  int running = 0;                     // running jobs with GPUs
  int multi_node = 0;                  // ... on more than one node
  int split = 0;                       // ... over more than one leaf group
  double inter_node_gb = 0;            // their inter-node traffic per GB of message each
  double cross_spine_gb = 0;           // the part of it that crosses a spine
  std::map<std::string, int> pending;  // pending jobs by Slurm's reason

  [[nodiscard]] double cross_spine_share() const {
    return inter_node_gb > 0 ? cross_spine_gb / inter_node_gb : 0;
  }
  [[nodiscard]] nlohmann::json to_json() const;
  [[nodiscard]] std::string to_prometheus() const;
  [[nodiscard]] std::string to_text() const;
};

// Jobs on hosts the fabric lacks are counted as running but not scored. A job's pattern
// comes from its placement record (AdminComment "pattern=..."), else ring.
[[nodiscard]] LiveJobs live_jobs(const LocalityIndex& index, const std::vector<SlurmJob>& jobs);

}  // namespace fabricfit::cli
