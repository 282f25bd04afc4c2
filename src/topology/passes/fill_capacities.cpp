// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 8: capacities. Each leaf group's down (to its CAs) and up (to spines) capacity,
// uplink count and slowest uplink, and what its uplinks would carry if every leaf were
// cabled like most leaves; each pod's spine-to-core capacity. Switches with fewer
// uplinks than most of their tier are reported.
#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "topology/fabric_warnings.hpp"
#include "topology/passes/pass_text.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit::passes {
namespace {

struct LinkSum {
  double total = 0;
  int links = 0;
  double slowest = 0;
  double expected = 0;  // at what the peers run at
};

template <typename Keep>
void sum_links(const FabricGraph& g, Vertex v, Keep&& keep, LinkSum& s) {
  for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
    const Vertex u = boost::target(*e, g);
    const LinkProps& lp = g[*e];
    if (lp.host_edge || !keep(u)) continue;
    s.total += lp.gbps;
    s.expected += std::max(lp.gbps, lp.expected_gbps);
    ++s.links;
    s.slowest = s.links == 1 ? lp.gbps : std::min(s.slowest, lp.gbps);
  }
}

bool is_above(const FabricGraph& g, Vertex from, Vertex u) {
  return g[u].kind == VertexKind::Switch && g[u].tier != SwitchTier::None &&
         tier_level(g[u].tier) > tier_level(g[from].tier);
}

// Uplinks per leaf (spines per pod): the count most switches of the tier have is what a
// switch missing cables is measured against.
std::map<SwitchTier, int> usual_uplinks(const Fabric& fabric, std::vector<std::string>& warnings) {
  const FabricGraph& g = fabric.graph;
  std::map<Vertex, int> up;
  std::map<SwitchTier, std::map<int, int>> uplink_counts;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].kind != VertexKind::Switch) continue;
    int n = 0;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
      n += is_above(g, v, boost::target(*e, g)) ? 1 : 0;
    up[v] = n;
    if (g[v].tier == SwitchTier::Leaf && g[v].leaf_group != kNone) ++uplink_counts[SwitchTier::Leaf][n];
    if (g[v].tier == SwitchTier::Spine && fabric.tiers >= 3) ++uplink_counts[SwitchTier::Spine][n];
  }
  std::map<SwitchTier, int> usual;
  for (const auto& [tier, counts] : uplink_counts) usual[tier] = mode_of(counts);
  std::vector<std::string> short_of;
  for (const auto& [v, n] : up) {
    const auto it = usual.find(g[v].tier);
    if (it == usual.end() || n >= it->second) continue;
    if (g[v].tier == SwitchTier::Leaf && g[v].leaf_group == kNone) continue;
    short_of.push_back(fmt::format("{} has {} uplink(s) where most {} have {}", g[v].name, n,
                                   g[v].tier == SwitchTier::Leaf ? "leaves" : "spines", it->second));
  }
  if (!short_of.empty()) {
    warnings.push_back(
        format_warning(WarningKind::UnevenUplinks,
                       fmt::format("{} switch(es) are missing uplinks (cables down or not cabled): {}",
                                   short_of.size(), join_some(short_of, 20))));
  }
  return usual;
}

}  // namespace

std::vector<std::string> fill_capacities(Fabric& fabric, const Assembled& assembled) {
  std::vector<std::string> warnings;
  const FabricGraph& g = fabric.graph;
  const std::map<SwitchTier, int> usual = usual_uplinks(fabric, warnings);
  const auto is_ca = [&](Vertex u) { return assembled.down_ca[u] != 0; };

  for (std::size_t k = 0; k < fabric.leaf_groups.size(); ++k) {
    LeafGroup& group = fabric.leaf_groups[k];
    double slowest = 0, expected_up = 0;
    for (Vertex leaf : group.leaves) {
      if (leaf == FabricGraph::null_vertex()) continue;
      if (group.pod == kNone) group.pod = g[leaf].pod;
      LinkSum up;
      sum_links(
          g, leaf, [&](Vertex u) { return is_above(g, leaf, u); }, up);
      expected_up += up.expected;
      if (up.links > 0) slowest = group.uplinks == 0 ? up.slowest : std::min(slowest, up.slowest);
      group.up_gbps += up.total;
      group.uplinks += up.links;
      const auto it = usual.find(SwitchTier::Leaf);
      if (it != usual.end() && up.links < it->second) {
        expected_up += (it->second - up.links) * assembled.usual_uplink_gbps;
      }
      LinkSum down;
      sum_links(g, leaf, is_ca, down);
      group.down_gbps += down.total;
    }
    group.min_uplink_gbps = slowest;
    group.expected_up_gbps = expected_up;
    if (group.pod != kNone) fabric.pods[group.pod].leaf_groups.push_back(static_cast<int>(k));
  }
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].kind != VertexKind::Switch || g[v].tier != SwitchTier::Spine || g[v].pod == kNone) continue;
    Pod& pod = fabric.pods[g[v].pod];
    pod.spines.push_back(v);
    LinkSum up;
    sum_links(
        g, v, [&](Vertex u) { return is_above(g, v, u); }, up);
    if (up.links > 0)
      pod.min_uplink_gbps = pod.uplinks == 0 ? up.slowest : std::min(pod.min_uplink_gbps, up.slowest);
    pod.up_gbps += up.total;
    pod.uplinks += up.links;
  }
  return warnings;
}

}  // namespace fabricfit::passes
