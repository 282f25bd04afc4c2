// SPDX-License-Identifier: GPL-2.0-or-later
// A placement policy picks hosts for a job from the free GPUs. fabricfit's selector and
// the baselines (tree, block, firstfit, random) share this interface so that the replay runs
// them on the same arrival stream and scores them the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "placement/fragmentation.hpp"
#include "placement/gpu_state.hpp"
#include "placement/job_request.hpp"
#include "placement/locality_index.hpp"
#include "placement/placement_score.hpp"
#include "placement/runtime/runtime_model.hpp"

namespace fabricfit {

struct PlacementContext {
  const LocalityIndex& index;
  const GpuState& gpus;
  const FragModel& frag;
  // Per host: 1 when this job may use it (partition, features, Slurm's own filters).
  // Empty: every host. Hosts outside it still count for fragmentation.
  std::span<const std::uint8_t> allowed = {};
  // The running jobs' traffic; nullptr: placement sees the job's own traffic only.
  const RunningTraffic* running = nullptr;
  [[nodiscard]] bool may_use(int host) const { return allowed.empty() || allowed[host] != 0; }
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // Hosts in rank order and the GPUs taken on each; nullopt when the job does not fit
  // now. Throws RequestError for a request that can never make sense.
  [[nodiscard]] virtual std::optional<Allocation> place(const PlacementContext& ctx,
                                                        const JobRequest& request) = 0;
};

struct PolicyOptions {
  ScoreWeights weights;  // fabricfit
  // tree-switches: a job small enough for one leaf group that can only be placed over
  // several now waits up to this long for one (Slurm's --switches=1@TIME). fabricfit has
  // no fixed wait: see locality_wait.hpp.
  double locality_wait_s = 0;
  std::uint64_t seed = 1;  // random
  // block, block-24.11: Slurm's BlockSizes in nodes (the first is the base block); empty:
  // the first NVLink domain's size and levels of 1, 2, 4, 8 base blocks.
  std::vector<int> block_sizes;
};

class PolicyError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "fabricfit", "tree", "tree-switches", "block", "block-24.11", "firstfit" or "random".
// Throws PolicyError otherwise, and for BlockSizes Slurm would refuse.
[[nodiscard]] std::unique_ptr<PlacementPolicy> make_policy(const std::string& name,
                                                           const PolicyOptions& options = {});

// The full score of an allocation, whatever chose it: routed traffic, and fragmentation
// before and after (the allocation not yet applied to ctx.gpus).
[[nodiscard]] PlacementScore evaluate_allocation(const PlacementContext& ctx, const Allocation& allocation,
                                                 const CommPattern& pattern);

}  // namespace fabricfit
