// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/job_request.hpp"

#include <fmt/format.h>

namespace fabricfit {

std::vector<JobShape> job_shapes(const JobRequest& r, int node_gpus) {
  int max_nodes = r.max_nodes > 0 ? r.max_nodes : r.min_nodes;
  if (r.min_nodes < 1) throw RequestError(fmt::format("nodes must be at least 1, not {}", r.min_nodes));
  if (max_nodes < r.min_nodes && !(r.total_gpus > 0 && r.max_nodes == 0)) {
    throw RequestError(fmt::format("node range {}-{} is empty", r.min_nodes, max_nodes));
  }
  if ((r.gpus_per_node > 0) == (r.total_gpus > 0)) {
    throw RequestError("give GPUs per node or GPUs in total, exactly one of them");
  }
  if (node_gpus < 1) throw RequestError("no host has GPUs");
  std::vector<JobShape> shapes;
  if (r.gpus_per_node > 0) {
    if (r.gpus_per_node > node_gpus) {
      throw RequestError(
          fmt::format("{} GPUs per node, but the largest node has {}", r.gpus_per_node, node_gpus));
    }
    for (int n = max_nodes; n >= r.min_nodes; --n) {
      shapes.push_back(JobShape{.nodes = n,
                                .gpus_per_node = r.gpus_per_node,
                                .total_gpus = n * r.gpus_per_node,
                                .whole_nodes = r.exclusive});
    }
    return shapes;
  }
  // GPUs in total: as few nodes as hold them, at least min_nodes, spread evenly. Without
  // a node range the count is free, as for Slurm's --gpus without -N.
  if (r.max_nodes == 0) max_nodes = r.total_gpus;
  const int fewest = std::max(r.min_nodes, (r.total_gpus + node_gpus - 1) / node_gpus);
  for (int n = fewest; n <= std::min(max_nodes, r.total_gpus); ++n) {
    shapes.push_back(JobShape{.nodes = n,
                              .gpus_per_node = (r.total_gpus + n - 1) / n,
                              .total_gpus = r.total_gpus,
                              .whole_nodes = r.exclusive});
  }
  if (shapes.empty()) {
    throw RequestError(fmt::format("{} GPUs in total do not fit on {}-{} nodes of {} GPUs", r.total_gpus,
                                   r.min_nodes, max_nodes, node_gpus));
  }
  return shapes;
}

}  // namespace fabricfit
