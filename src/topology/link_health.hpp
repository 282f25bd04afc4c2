// SPDX-License-Identifier: GPL-2.0-or-later
// Degraded links: a cable running below the width or speed of its peers. Peers are the
// cables of the same kind: the other CA cables on the same switch, or the other cables
// between the same two switch tiers (all leaf-spine uplinks, all spine-core uplinks).
// What most peers run at is what the cable is expected to run at (ties: the faster).
#pragma once

#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace fabricfit {

struct CableEnds {
  Vertex a;
  int port_a;
  Vertex b;
  int port_b;
  LinkRate rate;
};

struct LinkHealth {
  std::vector<LinkRate> expected;     // per cable, in the order given
  double usual_uplink_gbps = 0;       // what most leaf-to-spine cables run at
  std::vector<std::string> warnings;  // cables whose rate is unknown
};

// `graph` holds the vertices (kinds and tiers set); `internal[v]` marks CAs inside a
// switch (SHARP aggregation nodes), whose cables have no peers.
[[nodiscard]] LinkHealth assess_links(const FabricGraph& graph, const std::vector<CableEnds>& cables,
                                      const std::vector<char>& internal);

}  // namespace fabricfit
