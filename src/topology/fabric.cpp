// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/fabric.hpp"

#include <algorithm>

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
         a.sharp_nodes == b.sharp_nodes && same_graph(a.graph, b.graph);
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

}  // namespace fabricfit
