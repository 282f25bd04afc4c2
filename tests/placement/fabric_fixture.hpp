// SPDX-License-Identifier: GPL-2.0-or-later
// Fabrics for placement tests and benchmarks, with the Fabric fields that placement reads
// (hosts, leaf groups, pods, capacities) filled in directly: no graph, no builder.
#pragma once

#include <string>

#include "topology/fabric.hpp"

namespace fabricfit::testing {

struct FixtureSpec {
  int pods = 0;         // 0: two-tier
  int leaf_groups = 4;  // per pod when three-tier
  int hosts_per_leaf = 4;
  int rails = 1;
  double gbps = 200;    // every link
  int uplinks = 0;      // per leaf group, all rails; 0: hosts_per_leaf x rails (1:1)
  int pod_uplinks = 0;  // per pod; 0: 1:1 with its leaf groups' uplinks
  std::string prefix = "gpu";
};

[[nodiscard]] Fabric make_fabric(const FixtureSpec& spec);

// One uplink of the leaf group now runs at `gbps` (a degraded link).
void degrade_uplink(Fabric& fabric, int leaf_group, double gbps);

}  // namespace fabricfit::testing

#include "placement/fragmentation.hpp"
#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"
#include "placement/selection/placement_policy.hpp"

namespace fabricfit::testing {

// A fabric with its index, every host's GPUs (all free) and a fragmentation model.
struct World {
  explicit World(const FixtureSpec& spec, const WorkloadMix& mix = WorkloadMix::standard(),
                 int gpus_per_host = 8)
      : fabric(make_fabric(spec)),
        index(fabric),
        gpus(GpuState::uniform(index.host_count(), gpus_per_host)),
        frag(mix, gpus_per_host, index.largest_leaf_group()) {}
  explicit World(Fabric f, const WorkloadMix& mix = WorkloadMix::standard(), int gpus_per_host = 8)
      : fabric(std::move(f)),
        index(fabric),
        gpus(GpuState::uniform(index.host_count(), gpus_per_host)),
        frag(mix, gpus_per_host, index.largest_leaf_group()) {}
  [[nodiscard]] PlacementContext ctx() const { return PlacementContext{index, gpus, frag}; }
  void busy(int host, int gpus_used) { gpus.free[host] = gpus.total[host] - gpus_used; }
  void apply(const Allocation& a) {
    for (std::size_t i = 0; i < a.hosts.size(); ++i) gpus.free[a.hosts[i]] -= a.gpus[i];
  }

  Fabric fabric;
  LocalityIndex index;
  GpuState gpus;
  FragModel frag;
};

// Leaf group of each host of an allocation, in rank order.
[[nodiscard]] std::vector<int> leaf_groups_of(const LocalityIndex& index, const Allocation& a);
// Distinct leaf groups an allocation uses.
[[nodiscard]] int leaf_group_count(const LocalityIndex& index, const Allocation& a);

}  // namespace fabricfit::testing
