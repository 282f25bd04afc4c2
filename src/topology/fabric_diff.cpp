// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/fabric_diff.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>

namespace fabricfit {
namespace {

using EndKey = std::pair<std::uint64_t, int>;  // (node GUID, port)
using CableKey = std::pair<EndKey, EndKey>;    // ordered

struct CableInfo {
  LinkEnd a, b;
  LinkRate rate;
  double gbps = 0;
};

int lowness(const VertexProps& p) {
  if (p.kind != VertexKind::Switch) return 0;
  return p.tier == SwitchTier::None ? 4 : static_cast<int>(p.tier);
}

std::map<CableKey, CableInfo> cables(const Fabric& f) {
  const FabricGraph& g = f.graph;
  std::map<CableKey, CableInfo> out;
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const LinkProps& l = g[*e];
    if (l.host_edge) continue;
    const VertexProps& s = g[boost::source(*e, g)];
    const VertexProps& t = g[boost::target(*e, g)];
    LinkEnd a{s.name, s.guid, l.port_a}, b{t.name, t.guid, l.port_b};
    if (lowness(t) < lowness(s) ||
        (lowness(t) == lowness(s) && std::tie(b.guid, b.port) < std::tie(a.guid, a.port))) {
      std::swap(a, b);
    }
    EndKey ka{a.guid, a.port}, kb{b.guid, b.port};
    CableKey key = ka < kb ? CableKey{ka, kb} : CableKey{kb, ka};
    out.emplace(key, CableInfo{std::move(a), std::move(b), l.rate, l.gbps});
  }
  return out;
}

// host -> leaf (by GUID and name) of each rail's HCA.
std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> host_leaves(const Fabric& f) {
  const FabricGraph& g = f.graph;
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> out;
  for (const Host& h : f.hosts) {
    auto& leaves = out[h.name];
    for (Vertex hca : h.hcas) {
      std::pair<std::uint64_t, std::string> leaf{0, ""};
      if (hca != FabricGraph::null_vertex()) {
        for (auto [e, end] = boost::out_edges(hca, g); e != end; ++e) {
          const Vertex peer = boost::target(*e, g);
          if (!g[*e].host_edge && g[peer].kind == VertexKind::Switch) {
            leaf = {g[peer].guid, g[peer].name};
            break;
          }
        }
      }
      leaves.push_back(leaf);
    }
  }
  return out;
}

std::map<std::uint64_t, std::string> switches(const Fabric& f) {
  std::map<std::uint64_t, std::string> out;
  for (std::size_t v = 0; v < boost::num_vertices(f.graph); ++v) {
    if (f.graph[v].kind == VertexKind::Switch) out.emplace(f.graph[v].guid, f.graph[v].name);
  }
  return out;
}

std::map<std::uint64_t, std::string> node_names(const Fabric& f) {
  std::map<std::uint64_t, std::string> out;
  for (std::size_t v = 0; v < boost::num_vertices(f.graph); ++v) {
    if (f.graph[v].kind != VertexKind::Host) out.emplace(f.graph[v].guid, f.graph[v].name);
  }
  return out;
}

// Each NVLink domain's host names, sorted, by domain name.
std::map<std::string, std::vector<std::string>> domain_hosts(const Fabric& f) {
  std::map<std::string, std::vector<std::string>> out;
  for (const NvlinkDomain& dom : f.nvlink_domains) {
    auto& names = out[dom.name];
    for (int h : dom.hosts) names.push_back(f.hosts[h].name);
    std::ranges::sort(names);
  }
  return out;
}

}  // namespace

bool FabricDiff::empty() const {
  return links_gone.empty() && links_added.empty() && rate_changes.empty() && hosts_missing.empty() &&
         hosts_added.empty() && hosts_moved.empty() && switches_gone.empty() && switches_added.empty() &&
         renamed.empty() && groups_changed.empty() && groups_gone.empty() && groups_added.empty() &&
         domains_changed.empty() && domains_gone.empty() && domains_added.empty();
}

FabricDiff diff_fabrics(const Fabric& before, const Fabric& after) {
  FabricDiff d;
  const auto cb = cables(before), ca = cables(after);
  for (const auto& [key, c] : cb) {
    const auto it = ca.find(key);
    if (it == ca.end()) {
      d.links_gone.push_back({c.a, c.b, c.rate, {}, c.gbps, 0});
    } else if (!(it->second.rate == c.rate)) {
      d.rate_changes.push_back({c.a, c.b, c.rate, it->second.rate, c.gbps, it->second.gbps});
    }
  }
  for (const auto& [key, c] : ca) {
    if (!cb.contains(key)) d.links_added.push_back({c.a, c.b, {}, c.rate, 0, c.gbps});
  }

  const auto hb = host_leaves(before), ha = host_leaves(after);
  for (const auto& [host, leaves] : hb) {
    const auto it = ha.find(host);
    if (it == ha.end()) {
      d.hosts_missing.push_back(host);
      continue;
    }
    const std::size_t rails = std::max(leaves.size(), it->second.size());
    for (std::size_t r = 0; r < rails; ++r) {
      const auto lb = r < leaves.size() ? leaves[r] : std::pair<std::uint64_t, std::string>{0, ""};
      const auto la = r < it->second.size() ? it->second[r] : std::pair<std::uint64_t, std::string>{0, ""};
      if (lb.first != la.first) d.hosts_moved.push_back({host, static_cast<int>(r), lb.second, la.second});
    }
  }
  for (const auto& [host, leaves] : ha) {
    if (!hb.contains(host)) d.hosts_added.push_back(host);
  }

  const auto sb = switches(before), sa = switches(after);
  for (const auto& [guid, name] : sb) {
    if (!sa.contains(guid)) d.switches_gone.push_back(name);
  }
  for (const auto& [guid, name] : sa) {
    if (!sb.contains(guid)) d.switches_added.push_back(name);
  }
  const auto nb = node_names(before), na = node_names(after);
  for (const auto& [guid, name] : nb) {
    const auto it = na.find(guid);
    if (it != na.end() && it->second != name) d.renamed.push_back({guid, name, it->second});
  }

  std::map<std::string, const LeafGroup*> gb, ga;
  for (const LeafGroup& g : before.leaf_groups) gb.emplace(g.name, &g);
  for (const LeafGroup& g : after.leaf_groups) ga.emplace(g.name, &g);
  for (const auto& [name, g] : gb) {
    const auto it = ga.find(name);
    if (it == ga.end()) {
      d.groups_gone.push_back(name);
      continue;
    }
    const LeafGroup& n = *it->second;
    if (g->hosts.size() != n.hosts.size() || g->down_gbps != n.down_gbps || g->up_gbps != n.up_gbps ||
        g->uplinks != n.uplinks) {
      d.groups_changed.push_back({name, static_cast<int>(g->hosts.size()), static_cast<int>(n.hosts.size()),
                                  g->down_gbps, n.down_gbps, g->up_gbps, n.up_gbps, g->uplinks, n.uplinks});
    }
  }
  for (const auto& [name, g] : ga) {
    if (!gb.contains(name)) d.groups_added.push_back(name);
  }

  const auto db = domain_hosts(before), da = domain_hosts(after);
  for (const auto& [name, hosts] : db) {
    const auto it = da.find(name);
    if (it == da.end()) {
      d.domains_gone.push_back(name);
      continue;
    }
    DomainChange c{name, {}, {}};
    std::ranges::set_difference(hosts, it->second, std::back_inserter(c.hosts_gone));
    std::ranges::set_difference(it->second, hosts, std::back_inserter(c.hosts_added));
    if (!c.hosts_gone.empty() || !c.hosts_added.empty()) d.domains_changed.push_back(std::move(c));
  }
  for (const auto& [name, hosts] : da) {
    if (!db.contains(name)) d.domains_added.push_back(name);
  }
  return d;
}

}  // namespace fabricfit
