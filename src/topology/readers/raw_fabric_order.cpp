// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/raw_fabric_order.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

namespace fabricfit {
namespace {

int type_rank(NodeType type) {
  switch (type) {
    case NodeType::Switch: return 0;
    case NodeType::Ca: return 1;
    case NodeType::Router: return 2;
  }
  return 3;
}

}  // namespace

const char* node_type_name(NodeType type) {
  switch (type) {
    case NodeType::Switch: return "Switch";
    case NodeType::Ca: return "Ca";
    case NodeType::Router: return "Router";
  }
  return "?";
}

void put_in_canonical_order(RawFabric& fabric) {
  auto& nodes = fabric.nodes;
  std::vector<int> order(nodes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const RawNode& x = nodes[a];
    const RawNode& y = nodes[b];
    return std::forward_as_tuple(type_rank(x.type), x.guid, x.description) <
           std::forward_as_tuple(type_rank(y.type), y.guid, y.description);
  });

  std::vector<int> new_index(nodes.size());
  for (std::size_t pos = 0; pos < order.size(); ++pos) new_index[order[pos]] = static_cast<int>(pos);

  std::vector<RawNode> sorted;
  sorted.reserve(nodes.size());
  for (int old : order) sorted.push_back(std::move(nodes[old]));
  for (RawNode& node : sorted) {
    for (RawPort& port : node.ports) {
      if (port.peer >= 0) port.peer = new_index[port.peer];
    }
    std::sort(node.ports.begin(), node.ports.end(),
              [](const RawPort& a, const RawPort& b) { return a.number < b.number; });
  }
  nodes = std::move(sorted);
}

std::size_t count_links(const RawFabric& fabric) {
  std::size_t ends = 0;
  for (const RawNode& node : fabric.nodes) {
    for (const RawPort& port : node.ports) ends += port.peer >= 0 ? 1 : 0;
  }
  return ends / 2;
}

std::size_t count_nodes(const RawFabric& fabric, NodeType type) {
  return static_cast<std::size_t>(std::count_if(fabric.nodes.begin(), fabric.nodes.end(),
                                                [type](const RawNode& n) { return n.type == type; }));
}

}  // namespace fabricfit
