// SPDX-License-Identifier: GPL-2.0-or-later
#include "fabric_fixture.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace fabricfit::testing {

Fabric make_fabric(const FixtureSpec& spec) {
  Fabric f;
  f.rails = spec.rails;
  f.tiers = spec.pods > 0 ? 3 : 2;
  f.origin = "test fixture";
  const int pods = std::max(1, spec.pods);
  const int groups = pods * spec.leaf_groups;
  const int uplinks = spec.uplinks > 0 ? spec.uplinks : spec.hosts_per_leaf * spec.rails;
  int host = 0;
  for (int g = 0; g < groups; ++g) {
    LeafGroup lg;
    lg.name = fmt::format("leaf-{:02d}", g + 1);
    lg.pod = spec.pods > 0 ? g / spec.leaf_groups : -1;
    lg.down_gbps = spec.gbps * spec.hosts_per_leaf * spec.rails;
    lg.uplinks = uplinks;
    lg.up_gbps = spec.gbps * uplinks;
    lg.min_uplink_gbps = spec.gbps;
    for (int i = 0; i < spec.hosts_per_leaf; ++i, ++host) {
      f.hosts.push_back(Host{fmt::format("{}{:03d}", spec.prefix, host + 1), {}, g});
      lg.hosts.push_back(host);
    }
    f.leaf_groups.push_back(std::move(lg));
  }
  if (spec.pods > 0) {
    for (int p = 0; p < spec.pods; ++p) {
      Pod pod;
      pod.name = fmt::format("pod-{:02d}", p + 1);
      for (int g = 0; g < spec.leaf_groups; ++g) pod.leaf_groups.push_back(p * spec.leaf_groups + g);
      pod.uplinks = spec.pod_uplinks > 0 ? spec.pod_uplinks : uplinks * spec.leaf_groups;
      pod.up_gbps = spec.gbps * pod.uplinks;
      pod.min_uplink_gbps = spec.gbps;
      f.pods.push_back(std::move(pod));
    }
  }
  return f;
}

void degrade_uplink(Fabric& fabric, int leaf_group, double gbps) {
  LeafGroup& lg = fabric.leaf_groups[leaf_group];
  lg.up_gbps -= lg.min_uplink_gbps - gbps;
  lg.min_uplink_gbps = gbps;
}

}  // namespace fabricfit::testing

namespace fabricfit::testing {

std::vector<int> leaf_groups_of(const LocalityIndex& index, const Allocation& a) {
  std::vector<int> out;
  for (int h : a.hosts) out.push_back(index.leaf_group_of(h));
  return out;
}

int leaf_group_count(const LocalityIndex& index, const Allocation& a) {
  auto groups = leaf_groups_of(index, a);
  std::sort(groups.begin(), groups.end());
  return static_cast<int>(std::unique(groups.begin(), groups.end()) - groups.begin());
}

}  // namespace fabricfit::testing
