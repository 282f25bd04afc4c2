// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/placement_score.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace fabricfit {
namespace {

constexpr double kBitsPerByte = 8.0;

// Seconds per GB of message volume on the most loaded uplink of a group carrying `load`
// GB (the larger of its two directions) over `uplinks` cables, the slowest at `min_gbps`.
double uplink_seconds(double load, int uplinks, double min_gbps) {
  if (load <= 0) return 0;
  if (uplinks <= 0 || min_gbps <= 0) return LocalityIndex::kNoUplinks;
  return load / uplinks * kBitsPerByte / min_gbps;
}

}  // namespace

TrafficRouter::TrafficRouter(const LocalityIndex& index)
    : index_(index),
      leaf_out_(index.leaf_group_count(), 0.0),
      leaf_in_(index.leaf_group_count(), 0.0),
      leaf_gpus_(index.leaf_group_count(), 0.0),
      pod_out_(index.pod_count(), 0.0),
      pod_in_(index.pod_count(), 0.0),
      pod_gpus_(index.pod_count(), 0.0) {}

PlacementScore TrafficRouter::route(const TrafficMatrix& traffic, std::span<const int> slot_leaf) {
  PlacementScore s;
  s.nodes = traffic.slots();
  s.gpus = traffic.ranks();
  s.rails = index_.rails();
  s.inter_node_bytes = traffic.inter_node_bytes();
  const auto pod_of = [&](int leaf) { return leaf >= 0 ? index_.pod_of_leaf_group(leaf) : -1; };

  touched_leaves_.clear();
  touched_pods_.clear();
  for (int i = 0; i < s.nodes; ++i) {
    const int leaf = slot_leaf[i];
    if (leaf < 0) continue;
    if (leaf_gpus_[leaf] == 0) touched_leaves_.push_back(leaf);
    leaf_gpus_[leaf] += traffic.gpus()[i];
    const int pod = pod_of(leaf);
    if (pod >= 0) {
      if (pod_gpus_[pod] == 0) touched_pods_.push_back(pod);
      pod_gpus_[pod] += traffic.gpus()[i];
    }
  }
  s.leaf_groups = static_cast<int>(touched_leaves_.size());
  s.pods = static_cast<int>(touched_pods_.size());

  if (traffic.all_to_all()) {
    // Each rank sends 1/R to every rank: a group holding G of the R ranks sends G(R-G)/R
    // out and receives as much.
    const double R = traffic.ranks();
    for (int leaf : touched_leaves_)
      leaf_out_[leaf] = leaf_in_[leaf] = leaf_gpus_[leaf] * (R - leaf_gpus_[leaf]) / R;
    for (int pod : touched_pods_) pod_out_[pod] = pod_in_[pod] = pod_gpus_[pod] * (R - pod_gpus_[pod]) / R;
  } else {
    for (const Flow& f : traffic.flows()) {
      const int a = slot_leaf[f.src], b = slot_leaf[f.dst];
      if (a == b || a < 0 || b < 0) continue;
      leaf_out_[a] += f.bytes;
      leaf_in_[b] += f.bytes;
      const int pa = pod_of(a), pb = pod_of(b);
      if (pa != pb && pa >= 0 && pb >= 0) {
        pod_out_[pa] += f.bytes;
        pod_in_[pb] += f.bytes;
      }
    }
  }

  // A leaf group's uplinks to the spines and a pod's uplinks to the cores are charged alike:
  // even ECMP spread, so the slowest uplink of the busier direction sets the time.
  const auto charge_uplinks = [&s](double out, double in, int uplinks, double min_gbps, double stretch,
                                   const std::string& name) {
    const double load = std::max(out, in);
    const double seconds = uplink_seconds(load, uplinks, min_gbps);
    if (seconds > s.max_uplink_load) {
      s.max_uplink_load = seconds;
      s.bottleneck = name;
    }
    if (load > 0) s.uplink_stretch = std::max(s.uplink_stretch, stretch);
  };
  for (int leaf : touched_leaves_) {
    s.spine_bytes += leaf_out_[leaf];
    const LeafGroupInfo& info = index_.leaf_group(leaf);
    charge_uplinks(leaf_out_[leaf], leaf_in_[leaf], info.uplinks, info.min_uplink_gbps, info.stretch,
                   info.name);
    leaf_out_[leaf] = leaf_in_[leaf] = leaf_gpus_[leaf] = 0;
  }
  for (int pod : touched_pods_) {
    s.core_bytes += pod_out_[pod];
    const PodInfo& info = index_.pod(pod);
    charge_uplinks(pod_out_[pod], pod_in_[pod], info.uplinks, info.min_uplink_gbps, info.stretch, info.name);
    pod_out_[pod] = pod_in_[pod] = pod_gpus_[pod] = 0;
  }
  s.spine_bytes_per_rail = s.spine_bytes / s.rails;
  return s;
}

PlacementScore TrafficRouter::route_hosts(const TrafficMatrix& traffic, std::span<const int> hosts) {
  scratch_.resize(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i) scratch_[i] = index_.leaf_group_of(hosts[i]);
  PlacementScore s = route(traffic, scratch_);
  s.nvlink_domains = domains_spanned(index_, hosts);
  return s;
}

int domains_spanned(const LocalityIndex& index, std::span<const int> hosts) {
  if (index.domain_count() == 0) return 0;
  std::vector<int> seen;
  for (int h : hosts) {
    const auto d = index.domain_of(h);
    if (d && std::find(seen.begin(), seen.end(), *d) == seen.end()) seen.push_back(*d);
  }
  return static_cast<int>(seen.size());
}

PlacementScore score_hosts(const LocalityIndex& index, std::span<const int> hosts, std::span<const int> gpus,
                           const CommPattern& pattern) {
  TrafficRouter router(index);
  return router.route_hosts(TrafficMatrix::build(pattern, gpus), hosts);
}

std::string ScoreWeights::to_string() const {
  return fmt::format("spine={:g},core={:g},uplink={:g},frag={:g}", spine, core, uplink, frag);
}

ScoreWeights parse_score_weights(std::string_view text) {
  ScoreWeights w;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto eq = item.find('=');
    const auto key = item.substr(0, eq);
    const auto value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    double v = -1;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc{} || ptr != value.data() + value.size() || v < 0) {
      throw std::invalid_argument(
          fmt::format("score weight '{}' is not KEY=NUMBER with a number of 0 or more", item));
    }
    if (key == "spine") {
      w.spine = v;
    } else if (key == "core") {
      w.core = v;
    } else if (key == "uplink") {
      w.uplink = v;
    } else if (key == "frag") {
      w.frag = v;
    } else {
      throw std::invalid_argument(fmt::format("unknown score weight '{}' (spine, core, uplink, frag)", key));
    }
  }
  return w;
}

}  // namespace fabricfit
