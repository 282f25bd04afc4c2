// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/raw_fabric_dump.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <vector>

#include "topology/readers/raw_fabric_order.hpp"
#include "topology/readers/raw_link_rate.hpp"

namespace fabricfit {

std::string node_key(const RawNode& node) {
  if (node.guid != 0) return fmt::format("{:#018x}", node.guid);
  return fmt::format("\"{}\"", node.description);
}

std::string dump_raw_fabric(const RawFabric& input) {
  RawFabric fabric = input;  // a copy: the caller's node order stays as it was
  put_in_canonical_order(fabric);

  std::string out = fmt::format("# origin {}\n", fabric.origin);
  out += fmt::format("# {} switches, {} CAs, {} routers, {} links\n", count_nodes(fabric, NodeType::Switch),
                     count_nodes(fabric, NodeType::Ca), count_nodes(fabric, NodeType::Router),
                     count_links(fabric));
  for (const RawNode& node : fabric.nodes) {
    const std::string key = node_key(node);
    out += fmt::format("NODE {} {} nports={} sysimg={:#x} desc=\"{}\"\n", node_type_name(node.type), key,
                       node.nports, node.system_guid, node.description);
    for (const RawPort& port : node.ports) {
      const std::string peer =
          port.peer >= 0 ? fmt::format("{}[{}]", node_key(fabric.nodes[port.peer]), port.peer_port) : "-";
      out += fmt::format("  PORT {}[{}] -> {} rate={} lid={} guid={:#x}\n", key, port.number, peer,
                         is_unknown(port.rate) ? "?" : port.rate.to_string(), port.lid, port.guid);
    }
  }
  if (fabric.partial) out += "PARTIAL\n";
  std::vector<std::string> unreachable = fabric.unreachable;
  std::sort(unreachable.begin(), unreachable.end());
  for (const auto& what : unreachable) out += fmt::format("UNREACHABLE {}\n", what);
  return out;
}

}  // namespace fabricfit
