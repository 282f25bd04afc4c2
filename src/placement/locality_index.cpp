// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/locality_index.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fabricfit {
namespace {

double stretch_of(double down_gbps, int uplinks, double min_uplink_gbps) {
  const double usable_up = uplinks * min_uplink_gbps;
  if (usable_up <= 0) return LocalityIndex::kNoUplinks;
  return down_gbps / usable_up;
}

}  // namespace

LocalityIndex::LocalityIndex(const Fabric& fabric)
    : rails_(std::max(1, fabric.rails)), tiers_(fabric.tiers > 0 ? fabric.tiers : 2) {
  const int hosts = static_cast<int>(fabric.hosts.size());
  host_names_.reserve(hosts);
  host_leaf_.assign(hosts, -1);
  for (int h = 0; h < hosts; ++h) host_names_.push_back(fabric.hosts[h].name);

  by_name_.resize(hosts);
  std::iota(by_name_.begin(), by_name_.end(), 0);
  std::stable_sort(by_name_.begin(), by_name_.end(),
                   [&](int a, int b) { return host_names_[a] < host_names_[b]; });

  const int groups = static_cast<int>(fabric.leaf_groups.size());
  leaf_first_.reserve(groups + 1);
  leaf_first_.push_back(0);
  for (int g = 0; g < groups; ++g) {
    const LeafGroup& lg = fabric.leaf_groups[g];
    std::vector<int> members;
    for (int h : lg.hosts) {
      // A host listed twice, or out of range, would corrupt every count below.
      if (h >= 0 && h < hosts && host_leaf_[h] == -1) {
        host_leaf_[h] = g;
        members.push_back(h);
      }
    }
    std::sort(members.begin(), members.end());
    leaf_hosts_.insert(leaf_hosts_.end(), members.begin(), members.end());
    leaf_first_.push_back(static_cast<int>(leaf_hosts_.size()));
    largest_leaf_group_ = std::max(largest_leaf_group_, static_cast<int>(members.size()));

    LeafGroupInfo info;
    info.name = lg.name;
    info.pod = lg.pod >= 0 && lg.pod < static_cast<int>(fabric.pods.size()) ? lg.pod : -1;
    info.uplinks = lg.uplinks;
    info.down_gbps = lg.down_gbps;
    info.up_gbps = lg.up_gbps;
    info.min_uplink_gbps = lg.min_uplink_gbps;
    info.stretch = stretch_of(lg.down_gbps, lg.uplinks, lg.min_uplink_gbps);
    leaf_groups_.push_back(std::move(info));
  }

  std::vector<double> pod_down(fabric.pods.size(), 0.0);
  for (const auto& lg : leaf_groups_) {
    if (lg.pod >= 0) pod_down[lg.pod] += lg.up_gbps;
  }
  for (std::size_t p = 0; p < fabric.pods.size(); ++p) {
    const Pod& pod = fabric.pods[p];
    pods_.push_back(PodInfo{.name = pod.name,
                            .uplinks = pod.uplinks,
                            .up_gbps = pod.up_gbps,
                            .min_uplink_gbps = pod.min_uplink_gbps,
                            .stretch = stretch_of(pod_down[p], pod.uplinks, pod.min_uplink_gbps)});
  }
  index_domains(fabric);
}

void LocalityIndex::index_domains(const Fabric& fabric) {
  const int hosts = host_count();
  host_domain_.assign(hosts, -1);
  domain_first_.assign(1, 0);
  for (const NvlinkDomain& d : fabric.nvlink_domains) {
    const int index = static_cast<int>(domain_names_.size());
    std::vector<int> members;
    for (int h : d.hosts) {
      // As for leaf groups: a host listed twice or out of range would corrupt the spans.
      if (h >= 0 && h < hosts && host_domain_[h] == -1) {
        host_domain_[h] = index;
        members.push_back(h);
      }
    }
    std::sort(members.begin(), members.end());
    domain_hosts_.insert(domain_hosts_.end(), members.begin(), members.end());
    domain_first_.push_back(static_cast<int>(domain_hosts_.size()));
    domain_names_.push_back(d.name);
    largest_domain_ = std::max(largest_domain_, static_cast<int>(members.size()));
  }
}

std::optional<int> LocalityIndex::find_host(std::string_view name) const {
  const auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                   [&](int h, std::string_view n) { return host_names_[h] < n; });
  if (it == by_name_.end() || host_names_[*it] != name) return std::nullopt;
  return *it;
}

namespace {

template <typename NameOf>
std::vector<std::string> distinct_names(std::span<const int> hosts, NameOf name_of) {
  std::vector<std::string> names;
  for (int h : hosts) {
    std::string name = name_of(h);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

int leaf_groups_spanned(const LocalityIndex& index, std::span<const int> hosts) {
  std::vector<int> groups;
  for (int h : hosts) groups.push_back(index.leaf_group_of(h));
  std::ranges::sort(groups);
  return static_cast<int>(std::unique(groups.begin(), groups.end()) - groups.begin());
}

std::vector<std::string> leaf_group_names_of(const LocalityIndex& index, std::span<const int> hosts) {
  return distinct_names(hosts, [&](int h) {
    const int g = index.leaf_group_of(h);
    return g >= 0 ? index.leaf_group(g).name : std::string(kInNoneName);
  });
}

std::vector<std::string> domain_names_of(const LocalityIndex& index, std::span<const int> hosts) {
  return distinct_names(hosts, [&](int h) {
    const auto d = index.domain_of(h);
    return d ? index.domain_name(*d) : std::string(kInNoneName);
  });
}

int mark_whole_domains(const LocalityIndex& index, std::span<unsigned char> hosts) {
  if (std::cmp_not_equal(hosts.size(), index.host_count())) {
    throw std::invalid_argument("mark_whole_domains: " + std::to_string(hosts.size()) + " entries for " +
                                std::to_string(index.host_count()) + " hosts");
  }
  std::vector<bool> held(index.domain_count(), false);
  for (int h = 0; h < index.host_count(); ++h) {
    if (hosts[h] == 0) continue;
    if (const auto d = index.domain_of(h)) held[*d] = true;
  }
  int marked = 0;
  for (int d = 0; d < index.domain_count(); ++d) {
    if (!held[d]) continue;
    for (const int h : index.hosts_of_domain(d)) {
      if (hosts[h] != 0) continue;
      hosts[h] = 1;
      ++marked;
    }
  }
  return marked;
}

std::vector<std::vector<int>> domain_segments(const LocalityIndex& index, std::span<const int> hosts,
                                              int segment_nodes) {
  if (segment_nodes <= 0 || hosts.empty()) return {};
  std::vector<int> order;  // domains as they first appear
  std::vector<std::vector<int>> of_domain(index.domain_count());
  for (const int h : hosts) {
    const auto d = (h >= 0 && h < index.host_count()) ? index.domain_of(h) : std::nullopt;
    if (!d) return {};
    if (of_domain[*d].empty()) order.push_back(*d);
    of_domain[*d].push_back(h);
  }
  std::vector<std::vector<int>> segments;
  for (const int d : order) {
    const auto& held = of_domain[d];
    if (held.size() % static_cast<std::size_t>(segment_nodes) != 0) return {};
    for (std::size_t i = 0; i < held.size(); i += static_cast<std::size_t>(segment_nodes))
      segments.emplace_back(held.begin() + static_cast<std::ptrdiff_t>(i),
                            held.begin() + static_cast<std::ptrdiff_t>(i + segment_nodes));
  }
  return segments;
}

}  // namespace fabricfit
