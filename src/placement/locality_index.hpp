// SPDX-License-Identifier: GPL-2.0-or-later
// A compact, read-only view of a Fabric for placement: host -> NVLink domain (where the
// site has them) and host -> leaf group -> pod, and
// the uplink capacities that decide what cross-leaf traffic costs. Built once per
// Fabric (snapshot load), so that a placement decision, which runs under slurmctld's
// locks, only touches flat arrays and never walks the Boost graph.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/fabric.hpp"

namespace fabricfit {

// What placement needs of a Fabric::LeafGroup.
struct LeafGroupInfo {
  std::string name;
  int pod = -1;  // -1 on a two-tier fabric
  int uplinks = 0;
  double down_gbps = 0;
  double up_gbps = 0;
  double min_uplink_gbps = 0;
  // ECMP spreads a leaf group's cross traffic evenly over its uplinks, so the slowest
  // uplink saturates first and the usable up capacity is uplinks x slowest. stretch is
  // down capacity over that: 1 on a healthy 1:1 leaf, 2 on a 2:1 leaf or on a 1:1 leaf
  // with one uplink at half speed. A leaf group without uplinks has kNoUplinks.
  double stretch = 0;
};

// What placement needs of a Fabric::Pod (three-tier): the spine-to-core uplinks.
struct PodInfo {
  std::string name;
  int uplinks = 0;
  double up_gbps = 0;
  double min_uplink_gbps = 0;
  double stretch = 0;  // the leaf groups' up capacity over uplinks x slowest (as above)
};

class LocalityIndex {
 public:
  static constexpr double kNoUplinks = 1e6;

  explicit LocalityIndex(const Fabric& fabric);

  [[nodiscard]] int host_count() const { return static_cast<int>(host_leaf_.size()); }
  [[nodiscard]] int leaf_group_count() const { return static_cast<int>(leaf_groups_.size()); }
  [[nodiscard]] int pod_count() const { return static_cast<int>(pods_.size()); }
  [[nodiscard]] int rails() const { return rails_; }
  [[nodiscard]] int tiers() const { return tiers_; }

  // -1 for a host in no leaf group (the fabric builder warned about it): never placed on.
  [[nodiscard]] int leaf_group_of(int host) const { return host_leaf_[host]; }
  [[nodiscard]] int pod_of_leaf_group(int leaf_group) const { return leaf_groups_[leaf_group].pod; }
  // Hosts of a leaf group, ascending (Fabric::hosts is in name order).
  [[nodiscard]] std::span<const int> hosts_of(int leaf_group) const {
    return {leaf_hosts_.data() + leaf_first_[leaf_group],
            static_cast<std::size_t>(leaf_first_[leaf_group + 1] - leaf_first_[leaf_group])};
  }
  [[nodiscard]] int leaf_group_size(int leaf_group) const {
    return leaf_first_[leaf_group + 1] - leaf_first_[leaf_group];
  }
  [[nodiscard]] int largest_leaf_group() const { return largest_leaf_group_; }
  [[nodiscard]] const LeafGroupInfo& leaf_group(int i) const { return leaf_groups_[i]; }
  [[nodiscard]] const PodInfo& pod(int i) const { return pods_[i]; }
  [[nodiscard]] const std::string& host_name(int host) const { return host_names_[host]; }
  [[nodiscard]] std::optional<int> find_host(std::string_view name) const;

  // NVLink domains (Fabric::nvlink_domains, in its order). A host is in one at most.
  [[nodiscard]] int domain_count() const { return static_cast<int>(domain_names_.size()); }
  // std::nullopt for a host in no domain.
  [[nodiscard]] std::optional<int> domain_of(int host) const {
    const int d = host_domain_[host];
    return d >= 0 ? std::optional<int>(d) : std::nullopt;
  }
  // Hosts of a domain, ascending.
  [[nodiscard]] std::span<const int> hosts_of_domain(int domain) const {
    return {domain_hosts_.data() + domain_first_[domain],
            static_cast<std::size_t>(domain_first_[domain + 1] - domain_first_[domain])};
  }
  [[nodiscard]] const std::string& domain_name(int domain) const { return domain_names_[domain]; }
  // Hosts of the largest domain; 0 without domains.
  [[nodiscard]] int largest_domain() const { return largest_domain_; }

 private:
  void index_domains(const Fabric& fabric);

  std::vector<std::string> host_names_;
  std::vector<int> by_name_;  // host indices sorted by name, for find_host
  std::vector<int> host_leaf_;
  std::vector<int> leaf_first_;  // leaf group i owns leaf_hosts_[leaf_first_[i], leaf_first_[i+1])
  std::vector<int> leaf_hosts_;
  std::vector<LeafGroupInfo> leaf_groups_;
  std::vector<PodInfo> pods_;
  std::vector<int> host_domain_;   // -1: in no domain
  std::vector<int> domain_first_;  // domain d owns domain_hosts_[domain_first_[d], domain_first_[d+1])
  std::vector<int> domain_hosts_;
  std::vector<std::string> domain_names_;
  int rails_ = 1;
  int tiers_ = 2;
  int largest_leaf_group_ = 0;
  int largest_domain_ = 0;
};

// The name those lists give hosts in no leaf group (no NVLink domain).
inline constexpr std::string_view kInNoneName = "(none)";

// How many leaf groups `hosts` lie in.
[[nodiscard]] int leaf_groups_spanned(const LocalityIndex& index, std::span<const int> hosts);

// The leaf groups (NVLink domains) that `hosts` lie in, each named once, in the hosts'
// (rank) order; kInNoneName for hosts in none. What a placement record and explain print.
[[nodiscard]] std::vector<std::string> leaf_group_names_of(const LocalityIndex& index,
                                                           std::span<const int> hosts);
[[nodiscard]] std::vector<std::string> domain_names_of(const LocalityIndex& index,
                                                       std::span<const int> hosts);

// Marks every host of each NVLink domain that holds a marked host (hosts[h] != 0), as Slurm
// asks of a topology with --exclusive=topo: the unit a job holds whole is the domain. Hosts
// in no domain stay their own unit. Returns how many hosts it marked; `hosts` must have one
// entry per host of the index (std::invalid_argument otherwise).
int mark_whole_domains(const LocalityIndex& index, std::span<unsigned char> hosts);

// --segment=N as allocated: `hosts` cut into segments of N, each inside one NVLink domain
// (a domain's hosts in the order given, N at a time), in the order their domains first
// appear; what Slurm's switch/nvidia_imex gives a channel each (26.05's
// --network=unique-channel-per-segment). Empty when the hosts cannot be so cut: a host in no
// domain, or a domain holding a number of them that N does not divide.
[[nodiscard]] std::vector<std::vector<int>> domain_segments(const LocalityIndex& index,
                                                            std::span<const int> hosts, int segment_nodes);

}  // namespace fabricfit
