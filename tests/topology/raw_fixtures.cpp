// SPDX-License-Identifier: GPL-2.0-or-later
#include "raw_fixtures.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace fabricfit::testing {
namespace {

// RawBuilder's ports carry their node's GUID; link()'s cables, added to a fabric already
// built, leave the port GUID 0 ("not given").
enum class PortGuids { OfTheNode, None };

// Both ends of the cable a[port_a] - b[port_b], each inserted in its node's port order.
void cable(RawFabric& raw, int a, int port_a, int b, int port_b, const LinkRate& rate, PortGuids guids) {
  const auto add = [&](int node, int port, int peer, int peer_port) {
    RawPort p;
    p.number = port;
    if (guids == PortGuids::OfTheNode) p.guid = raw.nodes[node].guid;
    p.peer = peer;
    p.peer_port = peer_port;
    p.rate = rate;
    auto& ports = raw.nodes[node].ports;
    ports.insert(std::upper_bound(ports.begin(), ports.end(), port,
                                  [](int n, const RawPort& x) { return n < x.number; }),
                 p);
  };
  add(a, port_a, b, port_b);
  add(b, port_b, a, port_a);
}

}  // namespace

int RawBuilder::add_node(NodeType type, const std::string& description, int nports) {
  RawNode n;
  n.type = type;
  n.guid = next_guid_++;
  n.system_guid = n.guid;
  n.description = description;
  n.nports = nports;
  raw_.nodes.push_back(std::move(n));
  return static_cast<int>(raw_.nodes.size()) - 1;
}

int RawBuilder::add_switch(const std::string& description, int nports) {
  return add_node(NodeType::Switch, description, nports);
}

int RawBuilder::add_ca(const std::string& description, int nports) {
  return add_node(NodeType::Ca, description, nports);
}

void RawBuilder::connect(int a, int port_a, int b, int port_b, LinkRate rate) {
  cable(raw_, a, port_a, b, port_b, rate, PortGuids::OfTheNode);
}

int RawBuilder::free_port(int node) const {
  int port = 1;
  for (const RawPort& p : raw_.nodes[node].ports) {
    if (p.number == port) ++port;
  }
  return port;
}

RawFabric make_clos(const ClosSpec& spec) {
  validate(spec);
  RawBuilder b;
  const int groups = spec.leaf_groups();
  const int pods = spec.pods > 0 ? spec.pods : 1;
  const int cores = spec.cores > 0 ? spec.cores : spec.spines;
  std::vector<int> leaves, spines, core;
  for (int g = 0; g < groups; ++g) {
    for (int r = 0; r < spec.rails; ++r) {
      std::string name = fmt::format("ib-leaf-{:03d}", g + 1);
      if (spec.rails > 1) name += fmt::format("-r{}", r);
      leaves.push_back(b.add_switch(name, spec.switch_ports));
    }
  }
  for (int p = 0; p < pods; ++p) {
    for (int s = 0; s < spec.spines; ++s) {
      spines.push_back(b.add_switch(spec.pods > 0 ? fmt::format("ib-p{:02d}-spine-{:02d}", p + 1, s + 1)
                                                  : fmt::format("ib-spine-{:02d}", s + 1),
                                    spec.switch_ports));
    }
  }
  if (spec.pods > 0) {
    for (int c = 0; c < cores; ++c) core.push_back(b.add_switch(fmt::format("ib-core-{:02d}", c + 1)));
  }
  for (int h = 0; h < spec.host_count(); ++h) {
    const int g = h / spec.hosts_per_leaf;
    for (int r = 0; r < spec.rails; ++r) {
      const int hca = b.add_ca(fmt::format("{} mlx5_{}", spec.host_name(h), r));
      b.connect(hca, 1, leaves[g * spec.rails + r], h % spec.hosts_per_leaf + 1, spec.rate);
    }
  }
  for (int g = 0; g < groups; ++g) {
    const int pod = g / spec.leaves;
    for (int r = 0; r < spec.rails; ++r) {
      const int leaf = leaves[g * spec.rails + r];
      for (int u = 0; u < spec.leaf_uplinks(); ++u) {
        const int spine = spines[pod * spec.spines + u % spec.spines];
        b.connect(leaf, spec.hosts_per_leaf + 1 + u, spine, b.free_port(spine), spec.rate);
      }
    }
  }
  if (spec.pods > 0) {
    for (int s : spines) {
      const int down = static_cast<int>(b.raw().nodes[s].ports.size());
      const int up = spec.core_uplinks > 0 ? spec.core_uplinks : down;
      for (int k = 0; k < up; ++k) {
        const int c = core[k % cores];
        b.connect(s, b.free_port(s), c, b.free_port(c), spec.rate);
      }
    }
  }
  RawFabric raw = b.take();
  raw.origin = "test: make_clos";
  return raw;
}

int find_node(const RawFabric& raw, const std::string& description) {
  for (std::size_t i = 0; i < raw.nodes.size(); ++i) {
    if (raw.nodes[i].description == description) return static_cast<int>(i);
  }
  throw std::invalid_argument("no node " + description);
}

void set_rate(RawFabric& raw, const std::string& node_description, int port, LinkRate rate) {
  const int n = find_node(raw, node_description);
  for (RawPort& p : raw.nodes[n].ports) {
    if (p.number != port) continue;
    p.rate = rate;
    for (RawPort& q : raw.nodes[p.peer].ports) {
      if (q.number == p.peer_port) q.rate = rate;
    }
    return;
  }
  throw std::invalid_argument(fmt::format("{}[{}] is not cabled", node_description, port));
}

void unlink(RawFabric& raw, const std::string& node_description, int port) {
  const int n = find_node(raw, node_description);
  auto& ports = raw.nodes[n].ports;
  const auto it =
      std::find_if(ports.begin(), ports.end(), [&](const RawPort& p) { return p.number == port; });
  if (it == ports.end())
    throw std::invalid_argument(fmt::format("{}[{}] is not cabled", node_description, port));
  auto& far = raw.nodes[it->peer].ports;
  const int far_port = it->peer_port;
  far.erase(std::remove_if(far.begin(), far.end(), [&](const RawPort& p) { return p.number == far_port; }),
            far.end());
  ports.erase(it);
}

void link(RawFabric& raw, const std::string& a, int port_a, const std::string& b, int port_b, LinkRate rate) {
  cable(raw, find_node(raw, a), port_a, find_node(raw, b), port_b, rate, PortGuids::None);
}

int add_ca_on(RawFabric& raw, const std::string& description, const std::string& switch_description,
              int port) {
  RawNode n;
  n.type = NodeType::Ca;
  n.guid = 0x0002c903f0000000ULL + raw.nodes.size();
  n.system_guid = n.guid;
  n.description = description;
  n.nports = 1;
  raw.nodes.push_back(n);
  link(raw, description, 1, switch_description, port);
  return static_cast<int>(raw.nodes.size()) - 1;
}

}  // namespace fabricfit::testing
