// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selection/health_view.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_map>

namespace fabricfit {

HealthLinkMatch match_health_links(const Fabric& f, const HealthFile& health) {
  HealthLinkMatch m;
  m.hosts.resize(f.hosts.size());
  m.uplinks.resize(f.leaf_groups.size());
  std::unordered_map<std::uint64_t, Vertex> by_guid;
  for (Vertex v = 0; v < boost::num_vertices(f.graph); ++v)
    if (f.graph[v].guid != 0) by_guid.emplace(f.graph[v].guid, v);
  const auto vertex = [&](std::uint64_t guid) -> const VertexProps* {
    const auto it = by_guid.find(guid);
    return it == by_guid.end() ? nullptr : &f.graph[it->second];
  };
  for (const PortHealth& p : health.ports) m.known_ports += by_guid.contains(p.id.guid) ? 1 : 0;
  const auto leaf_group_of_uplink = [](const VertexProps* leaf, const VertexProps* other) {
    if (leaf == nullptr || other == nullptr || leaf->kind != VertexKind::Switch ||
        other->kind != VertexKind::Switch || leaf->tier != SwitchTier::Leaf ||
        other->tier == SwitchTier::Leaf)
      return -1;
    return leaf->leaf_group;
  };
  for (std::size_t i = 0; i < health.links.size(); ++i) {
    const LinkStatus& l = health.links[i];
    if (l.state == HealthState::Healthy) continue;
    if (!l.host.empty()) {
      if (const auto h = f.host_index(l.host)) {
        m.hosts[static_cast<std::size_t>(*h)].push_back(i);
        ++m.known_links;
      }
      continue;
    }
    const VertexProps* a = vertex(l.a_guid);
    const VertexProps* b = vertex(l.b_guid);
    const int g = std::max(leaf_group_of_uplink(a, b), leaf_group_of_uplink(b, a));
    if (g >= 0 && static_cast<std::size_t>(g) < m.uplinks.size()) {
      m.uplinks[static_cast<std::size_t>(g)].push_back(i);
      ++m.known_links;
    } else if (a != nullptr || b != nullptr) {
      ++m.known_links;  // a cable of this fabric between spines: placement does not steer by it
    }
  }
  return m;
}

PartHealth part_health(HealthState s) {
  switch (s) {
    case HealthState::Flapping:
    case HealthState::Down: return PartHealth::Failing;
    case HealthState::SubHealthy:
    case HealthState::Congested: return PartHealth::Degraded;
    default: return PartHealth::Healthy;
  }
}

FabricHealthView build_health_view(const Fabric& f, const HealthFile& health) {
  const HealthLinkMatch m = match_health_links(f, health);
  if (!health.ports.empty() && m.known_ports == 0) {
    throw HealthViewError(fmt::format(
        "none of its {} swept ports is in this fabric (a health file of another fabric, swept against {}?)",
        health.ports.size(), health.snapshot.empty() ? std::string("another snapshot") : health.snapshot));
  }
  const std::size_t unhealthy = static_cast<std::size_t>(std::ranges::count_if(
      health.links, [](const LinkStatus& l) { return l.state != HealthState::Healthy; }));
  if (unhealthy > 0 && m.known_links == 0) {
    throw HealthViewError(fmt::format(
        "none of its {} unhealthy links is in this fabric (a health file of another fabric?)", unhealthy));
  }
  FabricHealthView v;
  const auto worst = [&](const std::vector<std::size_t>& links) {
    PartHealth p = PartHealth::Healthy;
    for (const std::size_t i : links) p = std::max(p, part_health(health.links[i].state));
    return p;
  };
  v.host_link.reserve(m.hosts.size());
  for (const auto& links : m.hosts) v.host_link.push_back(worst(links));
  v.uplinks.reserve(m.uplinks.size());
  for (const auto& links : m.uplinks) v.uplinks.push_back(worst(links));
  if (!health.nvlink.empty()) {
    v.nvlink.assign(f.hosts.size(), PartHealth::Healthy);
    for (const NvlinkHostStatus& n : health.nvlink) {
      if (const auto h = f.host_index(n.host)) v.nvlink[static_cast<std::size_t>(*h)] = part_health(n.state);
    }
  }
  return v;
}

bool health_stale(const HealthFile& health, std::int64_t now_unix, std::int64_t max_age_s) {
  return max_age_s > 0 && now_unix - health.sweep_unix > max_age_s;
}

}  // namespace fabricfit
