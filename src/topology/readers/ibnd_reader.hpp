// SPDX-License-Identifier: GPL-2.0-or-later
// Live discovery of the subnet through libibnetdisc (directed-route SMPs from one local
// CA port, as ibnetdiscover does), and loading the cache files `ibnetdiscover --cache`
// writes. Both give a RawFabric; a discovery that missed anything says so (partial).
#pragma once

#include <string>

#include "topology/raw_fabric.hpp"
#include "topology/readers/reader_error.hpp"

namespace fabricfit {

struct DiscoveryOptions {
  std::string ca;           // local CA to start from, e.g. "mlx5_0" ("ibsim0" under ibsim); empty: the first
  int ca_port = 0;          // its port; 0: the first active one
  unsigned timeout_ms = 0;  // per SMP; 0: libibnetdisc's default
  unsigned retries = 0;     // per SMP; 0: libibnetdisc's default
  unsigned max_smps = 0;    // SMPs in flight at once; 0: libibnetdisc's default (2). More is faster.
};

// Discovers the subnet. Throws DiscoveryError when discovery cannot start or the first
// node does not answer. A discovery that lost SMPs on the way returns normally with
// partial set and what it missed in `unreachable` (see ibnd_convert.hpp).
[[nodiscard]] RawFabric discover_fabric(const DiscoveryOptions& options);

// Loads an ibnd cache file (`ibnetdiscover --cache FILE`). A cache of a partial
// discovery comes back partial. Throws DiscoveryError if the file cannot be loaded.
[[nodiscard]] RawFabric load_ibnd_cache(const std::string& path);

// "live discovery from mlx5_0 port 1" (with defaults spelled out): RawFabric::origin.
[[nodiscard]] std::string describe(const DiscoveryOptions& options);

}  // namespace fabricfit
