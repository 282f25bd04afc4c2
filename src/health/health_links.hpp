// SPDX-License-Identifier: GPL-2.0-or-later
// The snapshot's cables as the health sweep sees them (both ends' ports, named as
// `fabricfit show` names them), and each cable's state from its two ends' ports.
#pragma once

#include <string>
#include <vector>

#include "health/health_model.hpp"
#include "topology/fabric.hpp"

namespace fabricfit {

struct Cable {
  PortId a;
  std::string a_name;
  PortId b;
  std::string b_name;
  std::string host;  // the compute host of an HCA end; empty for switch-to-switch cables
  double gbps = 0;
};

// Every cable of `fabric` (host membership edges are not cables), in graph order.
[[nodiscard]] std::vector<Cable> cables_of(const Fabric& fabric);

// The cables that are not healthy, worst first (then by name): each the worse of its ends,
// with both ends' evidence (`at` naming the end). `ports` sorted by id.
[[nodiscard]] std::vector<LinkStatus> link_statuses(const std::vector<Cable>& cables,
                                                    const std::vector<PortHealth>& ports);

// The PortHealth of `id` in `ports` (sorted by id); null when there is none.
[[nodiscard]] const PortHealth* find_port(const std::vector<PortHealth>& ports, PortId id);

}  // namespace fabricfit
