// SPDX-License-Identifier: GPL-2.0-or-later
// Live discovery of every subnet this host is on: one discovery per local CA port
// (active, InfiniBand), skipping a port whose CA an earlier discovery already found
// (it is on a subnet already walked), so a host with eight HCAs on one subnet walks it
// once, and a host on eight rail planes walks each plane once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/readers/ibnd_reader.hpp"

namespace fabricfit {

struct LocalPort {
  std::string ca;  // "mlx5_0", "ibsim0"
  int port = 0;
  std::uint64_t node_guid = 0;
};

// InfiniBand ports with a link of the local CAs, by CA name and port (libibumad).
[[nodiscard]] std::vector<LocalPort> local_ca_ports();

// One RawFabric per subnet. `cas` empty: every local active port; else those CAs (each
// at options.ca_port, 0: its first active port). Throws DiscoveryError when there is no
// port to start from or a discovery fails.
[[nodiscard]] std::vector<RawFabric> discover_subnets(const DiscoveryOptions& options,
                                                      const std::vector<std::string>& cas);

}  // namespace fabricfit
