// SPDX-License-Identifier: GPL-2.0-or-later
// One order for the nodes of a RawFabric, whatever order a reader met them in, so that
// two readers of the same subnet give equal node vectors (live discovery walks the
// subnet breadth-first from wherever it starts; a text file lists switches first).
#pragma once

#include "topology/raw_fabric.hpp"

namespace fabricfit {

// Switches, then CAs, then routers; within a type by node GUID, then description, then
// the reader's order. Ports ascending by number. Peer indices follow their nodes.
void put_in_canonical_order(RawFabric& fabric);

// Cables: connected port pairs, each counted once.
[[nodiscard]] std::size_t count_links(const RawFabric& fabric);

// Nodes of one type.
[[nodiscard]] std::size_t count_nodes(const RawFabric& fabric, NodeType type);

[[nodiscard]] const char* node_type_name(NodeType type);

}  // namespace fabricfit
