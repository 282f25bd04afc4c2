// SPDX-License-Identifier: GPL-2.0-or-later
// The policies fabricfit is measured against, written from Slurm's documented behaviour
// (and a reading of its topology/tree source, not a copy of it):
//  - tree: Slurm topology/tree's best fit. Leaf groups are compared by how many eligible
//    hosts they have: a group that holds the rest of the job beats one that does not,
//    the tightest of those that hold it wins, and when none does the largest goes first
//    (on a three-tier fabric: compared through their pods, and groups nearer the ones
//    already chosen first). Inside a group, hosts are taken in node order. It sees node
//    and GPU counts only: not link health, not how full a shared node is.
//  - tree-switches: the same with Slurm's --switches=1@WAIT on every multi-node job that
//    one leaf group could hold: it waits up to WAIT for a placement in one leaf group.
//    A reference, to tell what waiting alone buys from what fabricfit's choices buy.
//  - firstfit: topology-blind, the first eligible hosts in node order.
//  - random: eligible hosts drawn at random (seeded, so a replay is repeatable).
#pragma once

#include <cstdint>
#include <random>

#include "placement/selection/placement_policy.hpp"

namespace fabricfit {

class TreePolicy final : public PlacementPolicy {
 public:
  TreePolicy() = default;
  // With switch_wait_s > 0: tree-switches.
  explicit TreePolicy(double switch_wait_s) : switches_(true), switch_wait_s_(switch_wait_s) {}
  [[nodiscard]] std::string name() const override { return switches_ ? "tree-switches" : "tree"; }
  [[nodiscard]] std::optional<Allocation> place(const PlacementContext& ctx,
                                                const JobRequest& request) override;

 private:
  bool switches_ = false;
  double switch_wait_s_ = 0;
};

class FirstFitPolicy final : public PlacementPolicy {
 public:
  [[nodiscard]] std::string name() const override { return "firstfit"; }
  [[nodiscard]] std::optional<Allocation> place(const PlacementContext& ctx,
                                                const JobRequest& request) override;
};

class RandomPolicy final : public PlacementPolicy {
 public:
  explicit RandomPolicy(std::uint64_t seed) : rng_(seed) {}
  [[nodiscard]] std::string name() const override { return "random"; }
  [[nodiscard]] std::optional<Allocation> place(const PlacementContext& ctx,
                                                const JobRequest& request) override;

 private:
  std::mt19937_64 rng_;
};

// Whether host h can hold one node of `shape` (free GPUs, whole node, allowed).
[[nodiscard]] bool host_fits(const PlacementContext& ctx, int host, const JobShape& shape);

// The allocation of `hosts` for `shape` with ranks in node order, as Slurm's node bitmap
// gives them.
[[nodiscard]] Allocation in_node_order(const PlacementContext& ctx, const JobShape& shape,
                                       std::vector<int> hosts);

}  // namespace fabricfit
