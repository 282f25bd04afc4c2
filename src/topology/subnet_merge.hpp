// SPDX-License-Identifier: GPL-2.0-or-later
// Several subnets, one rail plane each (large rail-optimised fabrics run one IB subnet
// per rail: 16k hosts x 8 rails is more ports than one subnet's unicast LIDs), merged
// into one RawFabric before the model is built. Nothing is cabled across subnets; the
// host names in the HCA descriptions tie a host's HCAs in every plane together, as the
// rails of one subnet are tied. Each node remembers its plane (RawFabric::planes).
#pragma once

#include <vector>

#include "topology/raw_fabric.hpp"

namespace fabricfit {

// One RawFabric of all nodes, planes in the order given; origin lists each subnet's,
// partial if any is, unreachable nodes prefixed by their plane. One subnet comes back
// as it is.
[[nodiscard]] RawFabric merge_subnets(std::vector<RawFabric> subnets);

}  // namespace fabricfit
