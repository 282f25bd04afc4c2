// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selection/pattern_split.hpp"

#include <algorithm>
#include <vector>

namespace fabricfit::selection {

int stage_hosts(const CommPattern& pattern, const JobShape& shape) {
  if (pattern.kind != PatternKind::Parallel || shape.nodes < 2 || shape.whole_nodes) return 1;
  if (shape.total_gpus % shape.nodes != 0) return 1;  // uneven hosts: no stage-to-host map
  const long per_host = shape.total_gpus / shape.nodes;
  const long stage_ranks = static_cast<long>(pattern.tp) * pattern.dp;
  if (per_host <= 0 || stage_ranks % per_host != 0) return 1;
  const long hosts = stage_ranks / per_host;
  if (hosts <= 1 || shape.nodes % hosts != 0) return 1;
  return static_cast<int>(hosts);
}

void order_for_split(Plan& plan, const LocalityIndex& index, int unit) {
  std::sort(plan.begin(), plan.end(), [&](const LeafTake& a, const LeafTake& b) {
    const int pa = index.pod_of_leaf_group(a.leaf), pb = index.pod_of_leaf_group(b.leaf);
    if (pa != pb) return pa < pb;
    const bool wa = a.take % unit == 0, wb = b.take % unit == 0;
    if (wa != wb) return wa;
    return a.leaf < b.leaf;
  });
}

int stages_split(const Plan& ordered, int unit) {
  if (unit <= 1) return 0;
  std::vector<int> leaf_of_slot;
  for (const LeafTake& t : ordered) leaf_of_slot.insert(leaf_of_slot.end(), t.take, t.leaf);
  int split = 0;
  for (std::size_t first = 0; first + unit <= leaf_of_slot.size(); first += unit) {
    const auto begin = leaf_of_slot.begin() + static_cast<long>(first);
    if (std::any_of(begin, begin + unit, [&](int l) { return l != *begin; })) ++split;
  }
  return split;
}

std::pair<double, double> cross_shares(const TrafficMatrix& traffic, const Plan& ordered,
                                       const LocalityIndex& index) {
  if (traffic.inter_node_bytes() <= 0) return {0.0, 0.0};
  std::vector<int> leaf_of_slot;
  for (const LeafTake& t : ordered) leaf_of_slot.insert(leaf_of_slot.end(), t.take, t.leaf);
  double spine = 0, core = 0;
  for (const Flow& f : traffic.flows()) {
    const int a = leaf_of_slot[f.src], b = leaf_of_slot[f.dst];
    if (a == b) continue;
    spine += f.bytes;
    const int pa = index.pod_of_leaf_group(a), pb = index.pod_of_leaf_group(b);
    if (pa >= 0 && pb >= 0 && pa != pb) core += f.bytes;
  }
  return {spine / traffic.inter_node_bytes(), core / traffic.inter_node_bytes()};
}

}  // namespace fabricfit::selection
