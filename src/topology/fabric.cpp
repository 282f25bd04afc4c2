// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/fabric.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <set>

namespace fabricfit {
namespace {

bool same_graph(const FabricGraph& a, const FabricGraph& b) {
  if (boost::num_vertices(a) != boost::num_vertices(b) || boost::num_edges(a) != boost::num_edges(b)) {
    return false;
  }
  for (std::size_t v = 0; v < boost::num_vertices(a); ++v) {
    if (!(a[v] == b[v])) return false;
  }
  // Undirected adjacency_list iterates its edges in insertion order: equal sequences
  // mean the same cables built the same way, parallel cables included.
  auto [ea, ea_end] = boost::edges(a);
  auto [eb, eb_end] = boost::edges(b);
  for (; ea != ea_end && eb != eb_end; ++ea, ++eb) {
    if (boost::source(*ea, a) != boost::source(*eb, b) || boost::target(*ea, a) != boost::target(*eb, b) ||
        !(a[*ea] == b[*eb])) {
      return false;
    }
  }
  return ea == ea_end && eb == eb_end;
}

}  // namespace

bool operator==(const Fabric& a, const Fabric& b) {
  return a.hosts == b.hosts && a.leaf_groups == b.leaf_groups && a.pods == b.pods &&
         a.degraded_links == b.degraded_links && a.warnings == b.warnings && a.rails == b.rails &&
         a.tiers == b.tiers && a.partial == b.partial && a.origin == b.origin &&
         a.sharp_nodes == b.sharp_nodes && a.nvlink_domains == b.nvlink_domains &&
         same_graph(a.graph, b.graph);
}

std::optional<int> Fabric::host_index(std::string_view name) const {
  // hosts are sorted by name
  const auto it = std::lower_bound(hosts.begin(), hosts.end(), name,
                                   [](const Host& h, std::string_view n) { return h.name < n; });
  if (it == hosts.end() || it->name != name) return std::nullopt;
  return static_cast<int>(it - hosts.begin());
}

std::size_t Fabric::switch_count(SwitchTier tier) const {
  std::size_t n = 0;
  for (std::size_t v = 0; v < boost::num_vertices(graph); ++v) {
    n += graph[v].kind == VertexKind::Switch && graph[v].tier == tier ? 1 : 0;
  }
  return n;
}

void set_nvlink_domains(Fabric& fabric, std::vector<NvlinkDomain> domains) {
  const int hosts = static_cast<int>(fabric.hosts.size());
  std::vector<int> owner(hosts, -1);
  std::set<std::string, std::less<>> names;
  for (std::size_t d = 0; d < domains.size(); ++d) {
    NvlinkDomain& domain = domains[d];
    if (domain.name.empty()) throw NvlinkDomainError(fmt::format("NVLink domain {} has no name", d + 1));
    if (!names.insert(domain.name).second) {
      throw NvlinkDomainError(fmt::format("NVLink domain {} is named twice", domain.name));
    }
    if (domain.hosts.empty())
      throw NvlinkDomainError(fmt::format("NVLink domain {} has no hosts", domain.name));
    for (int h : domain.hosts) {
      if (h < 0 || h >= hosts) {
        throw NvlinkDomainError(
            fmt::format("NVLink domain {}: host index {} out of range ({} hosts)", domain.name, h, hosts));
      }
      if (owner[h] == static_cast<int>(d)) {
        throw NvlinkDomainError(
            fmt::format("host {} is listed twice in NVLink domain {}", fabric.hosts[h].name, domain.name));
      }
      if (owner[h] >= 0) {
        throw NvlinkDomainError(fmt::format("host {} is in NVLink domain {} and in {}", fabric.hosts[h].name,
                                            domains[owner[h]].name, domain.name));
      }
      owner[h] = static_cast<int>(d);
    }
    std::sort(domain.hosts.begin(), domain.hosts.end());
  }
  fabric.nvlink_domains = std::move(domains);
}

std::vector<int> leaf_groups_of(const Fabric& fabric, const NvlinkDomain& domain) {
  std::vector<int> groups;
  for (int h : domain.hosts) {
    if (h < 0 || h >= static_cast<int>(fabric.hosts.size())) continue;
    if (const int g = fabric.hosts[h].leaf_group; g >= 0) groups.push_back(g);
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

}  // namespace fabricfit
