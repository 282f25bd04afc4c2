// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 7: everything derived so far -> the Fabric's graph, hosts, leaf groups, pods and
// degraded links. Vertex order: switches (leaves, spines, cores, untiered; by name),
// then each host followed by its compute HCAs by rail, then everything else by name.
// Edges by their first end in vertex order. The same subnet gives the same graph.
#include <fmt/format.h>
#include <algorithm>
#include <tuple>

#include "topology/link_health.hpp"
#include "topology/passes/pass_text.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit::passes {
namespace {

struct Placed {
  Vertex a;
  int pa;
  Vertex b;
  int pb;
  int cable;
};

// The lower end first: the CA, else the lower tier.
DegradedLink degraded_link(const FabricGraph& g, const Placed& p, const LinkProps& lp,
                           const LinkRate& expected) {
  const auto rank = [&](Vertex v) { return g[v].kind == VertexKind::Switch ? tier_level(g[v].tier) : 0; };
  DegradedLink d;
  const bool swap = rank(p.b) < rank(p.a);
  d.a = g[swap ? p.b : p.a].name;
  d.port_a = swap ? p.pb : p.pa;
  d.b = g[swap ? p.a : p.b].name;
  d.port_b = swap ? p.pa : p.pb;
  d.gbps = lp.gbps;
  d.expected_gbps = lp.expected_gbps;
  d.rate = lp.rate;
  d.expected_rate = expected;
  return d;
}

}  // namespace

Assembled assemble_graph(const ClassifiedFabric& f, const Tiers& tiers, const Rails& r, const LeafGroups& lg,
                         const Pods& pods, Fabric& out) {
  std::vector<int> switches, others;
  for (int i = 0; i < f.count(); ++i) {
    if (f.is_switch(i))
      switches.push_back(i);
    else if (f.nodes[i].kind != VertexKind::Hca)
      others.push_back(i);
  }
  std::sort(switches.begin(), switches.end(), [&](int x, int y) {
    return std::tuple(tier_level(tiers.of[x]), f.nodes[x].name, f.nodes[x].guid) <
           std::tuple(tier_level(tiers.of[y]), f.nodes[y].name, f.nodes[y].guid);
  });
  std::sort(others.begin(), others.end(), [&](int x, int y) {
    return std::tuple(f.nodes[x].name, f.nodes[x].guid) < std::tuple(f.nodes[y].name, f.nodes[y].guid);
  });
  FabricGraph& g = out.graph;
  std::vector<Vertex> vertex(f.count(), FabricGraph::null_vertex());
  const auto add_node = [&](int i, int leaf_group) {
    const ClassifiedNode& n = f.nodes[i];
    VertexProps p;
    p.kind = n.kind;
    p.name = n.name;
    p.guid = n.guid;
    p.tier = tiers.of[i];
    p.rail = r.rail[i];
    p.host = r.host[i];
    p.leaf_group = leaf_group;
    p.pod = pods.of[i];
    vertex[i] = boost::add_vertex(p, g);
  };
  for (int s : switches) add_node(s, lg.group_of_node[s]);
  std::vector<Vertex> host_vertex;
  for (std::size_t h = 0; h < r.hosts.size(); ++h) {
    const HostRecord& hi = r.hosts[h];
    VertexProps p;
    p.kind = VertexKind::Host;
    p.name = hi.name;
    p.leaf_group = lg.group_of_host[h];
    host_vertex.push_back(boost::add_vertex(p, g));
    std::vector<int> hcas;
    for (int x : hi.hcas) {
      if (x != kNone) hcas.push_back(x);
    }
    for (int x : hi.all_hcas) {
      if (std::find(hcas.begin(), hcas.end(), x) == hcas.end()) hcas.push_back(x);
    }
    for (int x : hcas) add_node(x, lg.group_of_host[h]);
  }
  for (int o : others) add_node(o, lg.group_of_node[o]);

  Assembled result;
  std::vector<char> internal(boost::num_vertices(g), 0);
  result.down_ca.assign(boost::num_vertices(g), 0);
  for (int i = 0; i < f.count(); ++i) {
    if (f.nodes[i].type != NodeType::Ca) continue;
    (f.nodes[i].role == CaRole::Sharp ? internal : result.down_ca)[vertex[i]] = 1;
  }

  std::vector<Placed> placed;
  for (std::size_t c = 0; c < f.cables.size(); ++c) {
    const Cable& k = f.cables[c];
    Placed p{vertex[k.a], k.port_a, vertex[k.b], k.port_b, static_cast<int>(c)};
    if (std::tie(p.b, p.pb) < std::tie(p.a, p.pa)) {
      std::swap(p.a, p.b);
      std::swap(p.pa, p.pb);
    }
    placed.push_back(p);
  }
  std::sort(placed.begin(), placed.end(),
            [](const Placed& x, const Placed& y) { return std::tie(x.a, x.pa) < std::tie(y.a, y.pa); });
  std::vector<CableEnds> ends;
  ends.reserve(placed.size());
  for (const auto& p : placed) ends.push_back({p.a, p.pa, p.b, p.pb, f.cables[p.cable].rate});

  const LinkHealth health = assess_links(g, ends, internal);
  result.usual_uplink_gbps = health.usual_uplink_gbps;
  for (std::size_t k = 0; k < placed.size(); ++k) {
    const Placed& p = placed[k];
    LinkProps lp;
    lp.port_a = p.pa;
    lp.port_b = p.pb;
    lp.rate = f.cables[p.cable].rate;
    lp.gbps = lp.rate.gbps();
    lp.expected_gbps = health.expected[k].gbps();
    boost::add_edge(p.a, p.b, lp, g);
    if (lp.degraded()) out.degraded_links.push_back(degraded_link(g, p, lp, health.expected[k]));
  }
  for (const std::string& w : health.warnings) out.warnings.push_back(w);
  std::sort(out.degraded_links.begin(), out.degraded_links.end(),
            [](const DegradedLink& x, const DegradedLink& y) {
              return std::tie(x.a, x.port_a, x.b, x.port_b) < std::tie(y.a, y.port_a, y.b, y.port_b);
            });

  // Leaf groups and pods, then hosts and their membership edges.
  for (const std::string& name : lg.names) {
    LeafGroup group;
    group.name = name;
    out.leaf_groups.push_back(std::move(group));
  }
  for (int p = 0; p < pods.count; ++p) {
    Pod pod;
    pod.name = fmt::format("pod-{:02d}", p + 1);
    out.pods.push_back(std::move(pod));
  }
  for (std::size_t h = 0; h < r.hosts.size(); ++h) {
    Host host;
    host.name = r.hosts[h].name;
    host.leaf_group = lg.group_of_host[h];
    for (int x : r.hosts[h].hcas) host.hcas.push_back(x == kNone ? FabricGraph::null_vertex() : vertex[x]);
    for (int x : r.hosts[h].all_hcas) {
      LinkProps member;
      member.host_edge = true;
      member.rate = LinkRate{0, ""};
      boost::add_edge(host_vertex[h], vertex[x], member, g);
    }
    if (host.leaf_group != kNone) out.leaf_groups[host.leaf_group].hosts.push_back(static_cast<int>(h));
    out.hosts.push_back(std::move(host));
  }
  for (std::size_t k = 0; k < lg.leaves.size(); ++k) {
    for (int l : lg.leaves[k]) {
      out.leaf_groups[k].leaves.push_back(l == kNone ? FabricGraph::null_vertex() : vertex[l]);
    }
  }
  out.rails = r.rails;
  out.tiers = tiers.levels;
  out.sharp_nodes = f.sharp_nodes;
  out.partial = f.partial;
  out.origin = f.origin;
  return result;
}

}  // namespace fabricfit::passes
