// SPDX-License-Identifier: GPL-2.0-or-later
// What a placement costs the fabric: the job's traffic routed over leaf groups, spines
// and (three-tier) cores, with ECMP spreading each leaf group's and pod's cross traffic
// evenly over its uplinks. docs/placement.md has the formulas and worked examples.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "placement/locality_index.hpp"
#include "placement/traffic_matrix.hpp"

namespace fabricfit {

struct PlacementScore {
  int nodes = 0;
  int gpus = 0;
  int leaf_groups = 0;     // leaf groups the job's hosts are in
  int pods = 0;            // pods the job's hosts are in (0 on a two-tier fabric)
  int nvlink_domains = 0;  // NVLink domains the job's hosts are in (0 where the site has none)
  int rails = 1;
  // All per unit of message volume (the pattern's message: 1 GB in, so many GB out).
  double inter_node_bytes = 0;      // between different nodes
  double spine_bytes = 0;           // leaving a leaf group, so over a leaf-spine link (all rails)
  double spine_bytes_per_rail = 0;  // NCCL keeps each rail's share on its own rail: spine_bytes / rails
  double core_bytes = 0;            // leaving a pod, so over a spine-core link
  // The most loaded uplink relative to its capacity: the seconds it needs to carry its
  // share of the job's traffic per GB of message volume. Even ECMP puts (load / uplinks)
  // on every uplink of a leaf group (or pod), and the slowest of them takes longest.
  double max_uplink_load = 0;
  double uplink_stretch = 0;  // worst LeafGroupInfo/PodInfo::stretch among those carrying traffic
  std::string bottleneck;     // the leaf group or pod with the most loaded uplink ("" if none)
  // Cluster-wide fragmentation (fragmentation.hpp) before and after the job, and the change.
  double frag_before = 0;
  double frag_after = 0;
  double frag_delta = 0;
  double cost = 0;  // what the fabricfit selector minimised (ScoreWeights); 0 for other policies
};

// How the fabricfit selector weighs the parts of a score into one cost (docs/placement.md).
struct ScoreWeights {
  double spine = 1.0;   // x share of the inter-node bytes that cross a spine
  double core = 4.0;    // x share that crosses a core switch
  double uplink = 2.0;  // x uplink_stretch (1 on a healthy 1:1 leaf group, 0 if no cross traffic)
  double frag = 1.0;    // x unusable GPUs the job adds, per GPU it takes
  [[nodiscard]] std::string to_string() const;
};

// "spine=1,core=4,uplink=2,frag=1" (keys optional, any order; numbers of 0 or more).
// Throws std::invalid_argument naming the fault.
[[nodiscard]] ScoreWeights parse_score_weights(std::string_view text);

// Routes `traffic` with slot i on leaf group slot_leaf_group[i]. Fills the traffic part of
// the score (not frag_*, not cost). Reuses its buffers: one per thread.
class TrafficRouter {
 public:
  explicit TrafficRouter(const LocalityIndex& index);
  // Whether this router's buffers serve `index` (a reused router: the same index object,
  // and as many leaf groups and pods as the buffers were made for).
  [[nodiscard]] bool serves(const LocalityIndex& index) const {
    return &index == &index_ && leaf_out_.size() == static_cast<std::size_t>(index.leaf_group_count()) &&
           pod_out_.size() == static_cast<std::size_t>(index.pod_count());
  }
  [[nodiscard]] PlacementScore route(const TrafficMatrix& traffic, std::span<const int> slot_leaf_group);
  // Convenience: slots on hosts.
  [[nodiscard]] PlacementScore route_hosts(const TrafficMatrix& traffic, std::span<const int> hosts);

 private:
  const LocalityIndex& index_;
  std::vector<double> leaf_out_, leaf_in_, leaf_gpus_, pod_out_, pod_in_, pod_gpus_;
  std::vector<int> touched_leaves_, touched_pods_, scratch_;
};

// How many NVLink domains `hosts` touch (hosts in no domain do not count).
[[nodiscard]] int domains_spanned(const LocalityIndex& index, std::span<const int> hosts);

// Scores hosts in rank order for a pattern (GPUs per host given), traffic part only.
[[nodiscard]] PlacementScore score_hosts(const LocalityIndex& index, std::span<const int> hosts,
                                         std::span<const int> gpus, const CommPattern& pattern);

}  // namespace fabricfit
