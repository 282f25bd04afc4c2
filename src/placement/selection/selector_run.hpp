// SPDX-License-Identifier: GPL-2.0-or-later
// One decision of FabricfitSelector: the per-leaf-group counts of a scan over the hosts,
// the searches over them (selector_run.cpp: one host, one leaf group; leaf_group_search.cpp:
// several leaf groups), and the realised allocation with its score.
#pragma once

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "placement/selection/selector.hpp"
#include "placement/selection/selector_plan.hpp"
#include "placement/traffic_matrix.hpp"

namespace fabricfit::selection {

class Run {
 public:
  Run(const PlacementContext& ctx, const ScoreWeights& w, FabricfitSelector::Scratch& s)
      : ctx_(ctx), w_(w), s_(s), L_(ctx.index.leaf_group_count()), G_(ctx.frag.max_gpus()), stride_(G_ + 1) {}

  // Free GPUs of every host, by leaf group: what fragmentation is measured on.
  void scan_free();

  [[nodiscard]] bool eligible(int h, const JobShape& shape) const {
    if (!ctx_.may_use(h)) return false;
    const int f = ctx_.gpus.free[h];
    if (shape.whole_nodes) return ctx_.gpus.whole_free(h) && f >= shape.gpus_per_node;
    return f >= shape.gpus_per_node;
  }

  // Eligible hosts by leaf group and free GPUs. Returns how many there are.
  long scan_eligible(const JobShape& shape);

  // The fewest leaf groups that hold n eligible hosts (what a best fit by leaf achieves
  // at best); 0 when they do not exist.
  [[nodiscard]] int min_leaf_groups(int n) const;

  // Best plans for a shape, best first (at least one when it fits).
  std::vector<Candidate> choose(const JobShape& shape, const CommPattern& pattern, int keep);

  // Hosts for a plan, in rank order (order_for_split: leaf groups by pod, for tp/pp/dp
  // groups holding whole pipeline stages first, then index), hosts ascending in a group.
  [[nodiscard]] Allocation realise(const JobShape& shape, Plan plan);

  // selector_cables.cpp: under static routing, beside running jobs, swaps a split
  // allocation's hosts for interchangeable ones (same leaf group, free and total GPUs)
  // whose uplink cables leave the job the larger fair share. Fragmentation and the traffic
  // between groups stay as they were; so does the rank order (hosts ascending in a group).
  // Returns the job's share (rho) of its uplinks on the hosts it leaves beside the running
  // jobs: 1 without running traffic or when no traffic leaves a leaf group.
  double avoid_busy_cables(const JobShape& shape, const CommPattern& pattern, Allocation& a) const;

  // The score of a realised plan: exact traffic, and (with_frag) fragmentation from the scan.
  PlacementScore score(const Allocation& a, const CommPattern& pattern, double cost, bool with_frag);

 private:
  [[nodiscard]] const int* hist(int l) const { return &s_.all_hist[static_cast<std::size_t>(l) * stride_]; }
  [[nodiscard]] const int* elig(int l) const { return &s_.elig_hist[static_cast<std::size_t>(l) * stride_]; }

  // Unusable GPUs of leaf group l now (computed once per decision).
  double before(int l);

  [[nodiscard]] bool whole_leaf(int l) const {
    return ctx_.index.leaf_group_size(l) > 0 && s_.whole_free[l] == ctx_.index.leaf_group_size(l);
  }

  [[nodiscard]] static int gpus_taken(const JobShape& shape, int free) {
    return shape.whole_nodes ? free : shape.gpus_per_node;
  }

  // Change in unusable GPUs of leaf group l when its m tightest-fitting eligible hosts are taken.
  double take_delta(int l, int m, const JobShape& shape);

  [[nodiscard]] double frag_cost(double delta, const JobShape& shape) const {
    return w_.frag * delta / std::max(1, shape.total_gpus);
  }

  // Single-node jobs: every (leaf group, free-GPU count) that has an eligible host.
  void choose_one_host(const JobShape& shape, RunnersUp& best);

  // Multi-node jobs that fit in one leaf group: every leaf group that can hold them.
  void choose_one_leaf_group(const JobShape& shape, RunnersUp& best);

  // leaf_group_search.cpp: the traffic part of the cost of a plan over several leaf groups.
  [[nodiscard]] double traffic_cost(const Plan& plan, const JobShape& shape,
                                    const CommPattern& pattern) const;

  // leaf_group_search.cpp: the pattern's unit (hosts per pipeline stage) and exact slot
  // traffic for a job over several groups (tp/pp/dp only).
  void prepare_split(const JobShape& shape, const CommPattern& pattern);
  // The plan's candidate for the set, with its key (cost, stages split, tie-breaks).
  Candidate make_candidate(Plan plan, double delta, const JobShape& shape, const CommPattern& pattern) const;

  // leaf_group_search.cpp: jobs that need k >= 2 leaf groups.
  void search_leaf_groups(const JobShape& shape, const CommPattern& pattern, int k, RunnersUp& best);
  Candidate evaluate_set(const std::vector<int>& set, const JobShape& shape, const CommPattern& pattern,
                         RunnersUp& best);
  double partial_delta(int l, int take, const JobShape& shape);

  const PlacementContext& ctx_;
  const ScoreWeights& w_;
  FabricfitSelector::Scratch& s_;
  int L_;
  int G_;
  int stride_;
  std::unordered_map<long, double> partial_;
  int unit_ = 1;                                   // hosts per pipeline stage (1: any host edge)
  std::optional<TrafficMatrix> slot_traffic_;      // tp/pp/dp over the job's node slots
  mutable std::vector<std::pair<int, int>> pods_;  // (pod, hosts) of the plan being costed
};

}  // namespace fabricfit::selection
