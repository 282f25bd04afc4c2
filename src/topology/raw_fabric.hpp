// SPDX-License-Identifier: GPL-2.0-or-later
// What a reader saw of a subnet, before any interpretation: nodes, their connected
// ports and who is on the other end. Every reader (live libibnetdisc discovery,
// ibnetdiscover text, ibnd cache file) produces one of these; build_fabric() turns it
// into the Fabric model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/link_rate.hpp"

namespace fabricfit {

enum class NodeType { Switch, Ca, Router };

struct RawPort {
  int number = 0;
  std::uint64_t guid = 0;  // port GUID; 0 when the source does not give it
  int lid = 0;
  int peer = -1;  // index into RawFabric::nodes
  int peer_port = 0;
  LinkRate rate;  // what the link runs at, as the port reports it
  friend bool operator==(const RawPort&, const RawPort&) = default;
};

struct RawNode {
  NodeType type = NodeType::Ca;
  std::uint64_t guid = 0;         // node GUID
  std::uint64_t system_guid = 0;  // system image GUID (shared by the HCAs of one host)
  std::string description;        // NodeDescription, e.g. "gpu001 mlx5_0"
  int nports = 0;
  std::vector<RawPort> ports;  // connected ports only, ascending by number
  friend bool operator==(const RawNode&, const RawNode&) = default;
};

struct RawFabric {
  std::vector<RawNode> nodes;
  // A discovery that hit errors or timeouts: what it could not reach. A partial
  // RawFabric is never silently taken for the whole subnet.
  bool partial = false;
  std::vector<std::string> unreachable;
  std::string origin;  // e.g. "live: ibsim0 port 1", or the file it was read from
  // By node: the subnet (rail plane) it was found in, when several were merged
  // (subnet_merge.hpp); empty for one subnet.
  std::vector<int> planes;
};

}  // namespace fabricfit
