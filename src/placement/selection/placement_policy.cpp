// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selection/placement_policy.hpp"

#include <fmt/format.h>

#include "placement/selection/baselines.hpp"
#include "placement/selection/block_policy.hpp"
#include "placement/selection/selector.hpp"

namespace fabricfit {

std::unique_ptr<PlacementPolicy> make_policy(const std::string& name, const PolicyOptions& options) {
  if (name == "fabricfit") return std::make_unique<FabricfitSelector>(options.weights);
  if (name == "tree") return std::make_unique<TreePolicy>();
  if (name == "tree-switches") return std::make_unique<TreePolicy>(options.locality_wait_s);
  if (name == "block") return std::make_unique<BlockPolicy>(SlurmRelease::v26_05, options.block_sizes);
  if (name == "block-24.11") return std::make_unique<BlockPolicy>(SlurmRelease::v24_11, options.block_sizes);
  if (name == "firstfit") return std::make_unique<FirstFitPolicy>();
  if (name == "random") return std::make_unique<RandomPolicy>(options.seed);
  throw PolicyError(
      fmt::format("unknown policy '{}' (the policies are fabricfit, tree, tree-switches, block, block-24.11, "
                  "firstfit and "
                  "random)",
                  name));
}

PlacementScore evaluate_allocation(const PlacementContext& ctx, const Allocation& allocation,
                                   const CommPattern& pattern) {
  PlacementScore s =
      TrafficRouter(ctx.index).route_hosts(TrafficMatrix::build(pattern, allocation.gpus), allocation.hosts);
  const FragmentationReport before = measure_fragmentation(ctx.index, ctx.gpus, ctx.frag);
  GpuState after = ctx.gpus;
  for (std::size_t i = 0; i < allocation.hosts.size(); ++i)
    after.free[allocation.hosts[i]] -= allocation.gpus[i];
  const FragmentationReport later = measure_fragmentation(ctx.index, after, ctx.frag);
  s.frag_before = before.frag;
  s.frag_after = later.frag;
  s.frag_delta = later.frag - before.frag;
  return s;
}

}  // namespace fabricfit
