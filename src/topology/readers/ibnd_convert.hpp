// SPDX-License-Identifier: GPL-2.0-or-later
// libibnetdisc's fabric (from a live discovery or a cache file) as a RawFabric, with
// every sign that the discovery missed something recorded in RawFabric::unreachable.
// Internal to the readers: only this file and ibnd_reader.cpp see libibnetdisc.
#pragma once

#include <infiniband/ibnetdisc.h>

#include <string>

#include "topology/raw_fabric.hpp"

namespace fabricfit {

// Converts `fabric`, which stays owned by the caller. `origin` goes to RawFabric::origin.
// Marks the result partial (and says why in `unreachable`) when:
//  - a switch port is physically up (PhysState LinkUp) but its peer was never reached:
//    the NodeInfo query through it failed or timed out, so a node or a link is missing;
//  - a switch's PortInfo was not read for some ports (their state is unknown);
//  - a connected port's PortInfo was never read (its rate is unknown);
//  - a node's NodeDescription is empty (the query failed; no real HCA or switch has an
//    empty one, and a host without its name cannot be placed);
//  - a port runs at a width or speed this reader does not know.
// Throws DiscoveryError if the structure is inconsistent (a port whose peer does not
// point back), which libibnetdisc never produces.
[[nodiscard]] RawFabric convert_ibnd_fabric(ibnd_fabric_t* fabric, std::string origin);

}  // namespace fabricfit
