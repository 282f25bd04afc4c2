// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/subnet_merge.hpp"

#include <fmt/format.h>

namespace fabricfit {

RawFabric merge_subnets(std::vector<RawFabric> subnets) {
  if (subnets.size() == 1) return std::move(subnets.front());
  RawFabric out;
  for (std::size_t p = 0; p < subnets.size(); ++p) {
    RawFabric& s = subnets[p];
    const int offset = static_cast<int>(out.nodes.size());
    for (RawNode& n : s.nodes) {
      for (RawPort& port : n.ports) {
        if (port.peer >= 0) port.peer += offset;
      }
      out.nodes.push_back(std::move(n));
      out.planes.push_back(static_cast<int>(p));
    }
    out.partial = out.partial || s.partial;
    for (const auto& u : s.unreachable) out.unreachable.push_back(fmt::format("plane {}: {}", p, u));
    out.origin += fmt::format("{}plane {}: {}", p == 0 ? "" : "; ", p, s.origin);
  }
  return out;
}

}  // namespace fabricfit
