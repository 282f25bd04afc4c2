// SPDX-License-Identifier: GPL-2.0-or-later
// What a job asks for (Slurm's -N, --gpus-per-node, --gpus, --exclusive and the
// fabricfit --comm-pattern) and the placement it gets.
#pragma once

#include <stdexcept>
#include <vector>

#include "placement/comm_pattern.hpp"

namespace fabricfit {

struct JobRequest {
  int min_nodes = 1;
  int max_nodes = 0;       // 0: same as min_nodes (with total_gpus: as many as needed)
  int gpus_per_node = 0;   // GPUs on each node; 0 when total_gpus is given instead
  int total_gpus = 0;      // GPUs in total, on as few nodes as they fit; 0 with gpus_per_node
  bool exclusive = false;  // whole nodes: only hosts with every GPU free, and the job holds them all
  // --segment=N (topology/block's option): the nodes come in segments of N, each inside one
  // NVLink domain (block). 0: none asked; a job that fits a domain is then one segment.
  int segment_nodes = 0;
  CommPattern pattern;  // ring unless the user said otherwise
  // How long the job has been pending, in seconds: a policy may hold a job back for a
  // while to get a better placement (FabricfitSelector's locality wait).
  double waited_s = 0;
};

class RequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// One concrete size a request can be placed at: `nodes` hosts with at least
// `gpus_per_node` free GPUs each (all of them when whole_nodes).
struct JobShape {
  int nodes = 1;
  int gpus_per_node = 1;  // what a host needs free to be eligible
  int total_gpus = 0;     // what the job holds in all (whole nodes: decided per host)
  bool whole_nodes = false;
  // GPUs the job takes on its i-th host (rank order) when that host has `host_total` GPUs.
  [[nodiscard]] int gpus_on(int i, int host_total) const {
    if (whole_nodes) return host_total;
    const int base = total_gpus / nodes;
    return base + (i < total_gpus % nodes ? 1 : 0);
  }
  friend bool operator==(const JobShape&, const JobShape&) = default;
};

// The sizes a request may be placed at, in order of preference: with GPUs per node, most
// nodes first (Slurm gives a -N MIN-MAX job as many nodes as it can); with GPUs in total,
// fewest nodes first. `node_gpus` is the GPU count of the largest host, which a total-GPU
// request is spread over. Throws RequestError for a request that makes no sense.
[[nodiscard]] std::vector<JobShape> job_shapes(const JobRequest& request, int node_gpus);

// A placement: hosts in rank order (contiguous per leaf group for fabricfit) and the
// GPUs taken on each.
struct Allocation {
  std::vector<int> hosts;
  std::vector<int> gpus;
  [[nodiscard]] int total_gpus() const {
    int n = 0;
    for (int g : gpus) n += g;
    return n;
  }
  friend bool operator==(const Allocation&, const Allocation&) = default;
};

}  // namespace fabricfit
