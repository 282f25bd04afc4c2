// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/live_jobs.hpp"

#include <fmt/format.h>

#include "common/hostlist_expand.hpp"
#include "placement/placement_score.hpp"

namespace fabricfit::cli {
namespace {

CommPattern pattern_of(const SlurmJob& job) {
  return recorded_pattern(job).value_or(CommPattern{PatternKind::Ring});
}

}  // namespace

LiveJobs live_jobs(const LocalityIndex& index, const std::vector<SlurmJob>& jobs) {
  LiveJobs live;
  for (const auto& job : jobs) {
    if (job.state == "PENDING") {
      ++live.pending[job.reason.empty() ? "None" : job.reason];
      continue;
    }
    if (job.state != "RUNNING" || job.nodes.empty()) continue;
    const auto names = expand_hostlist(job.nodes);
    std::vector<int> hosts, gpus;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto h = index.find_host(names[i]);
      if (!h || index.leaf_group_of(*h) < 0) break;
      hosts.push_back(*h);
      gpus.push_back(i < job.gpus_on_node.size() ? job.gpus_on_node[i] : job.gpus_per_node);
    }
    if (std::ranges::all_of(gpus, [](int g) { return g == 0; })) continue;  // not a GPU job
    ++live.running;
    if (hosts.size() != names.size() || names.size() < 2) continue;
    ++live.multi_node;
    const PlacementScore s = score_hosts(index, hosts, gpus, pattern_of(job));
    if (s.leaf_groups > 1) ++live.split;
    live.inter_node_gb += s.inter_node_bytes;
    live.cross_spine_gb += s.spine_bytes;
  }
  return live;
}

nlohmann::json LiveJobs::to_json() const {
  return {{"running_gpu_jobs", running},
          {"multi_node", multi_node},
          {"split_over_leaf_groups", split},
          {"inter_node_gb_per_gb", inter_node_gb},
          {"cross_spine_gb_per_gb", cross_spine_gb},
          {"cross_spine_share", cross_spine_share()},
          {"pending_by_reason", pending}};
}

std::string LiveJobs::to_prometheus() const {
  std::string out = fmt::format(
      "# HELP fabricfit_running_gpu_jobs Running jobs that hold GPUs.\n"
      "# TYPE fabricfit_running_gpu_jobs gauge\nfabricfit_running_gpu_jobs {}\n"
      "# HELP fabricfit_running_jobs_split Running multi-node GPU jobs spread over more than one leaf "
      "group.\n"
      "# TYPE fabricfit_running_jobs_split gauge\nfabricfit_running_jobs_split {}\n"
      "# HELP fabricfit_cross_spine_share Share of the running jobs' inter-node traffic that crosses a "
      "spine.\n"
      "# TYPE fabricfit_cross_spine_share gauge\nfabricfit_cross_spine_share {}\n"
      "# HELP fabricfit_pending_jobs Pending jobs, by Slurm's reason.\n# TYPE fabricfit_pending_jobs gauge\n",
      running, split, cross_spine_share());
  for (const auto& [reason, n] : pending)
    out += fmt::format("fabricfit_pending_jobs{{reason=\"{}\"}} {}\n", reason, n);
  return out;
}

std::string LiveJobs::to_text() const {
  std::string out = fmt::format(
      "running GPU jobs: {} ({} on several nodes, {} over several leaf groups); {:.0f}% of their inter-node "
      "traffic crosses a spine\n",
      running, multi_node, split, 100 * cross_spine_share());
  for (const auto& [reason, n] : pending) out += fmt::format("pending ({}): {}\n", reason, n);
  return out;
}

}  // namespace fabricfit::cli
