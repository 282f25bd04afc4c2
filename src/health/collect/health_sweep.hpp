// SPDX-License-Identifier: GPL-2.0-or-later
// One health sweep: a discovery (which ports are up, and their LIDs), then one counter
// read per port of every cable of the snapshot, within a time bound; each port's health
// updated from the last sweep's (health_judge.hpp). A cable the snapshot has and a
// complete discovery does not is down; a port a partial discovery did not reach, whose
// query timed out or that the time bound left unread is missed, and keeps its state.
#pragma once

#include <string>

#include "health/health_links.hpp"
#include "health/health_model.hpp"
#include "health/health_thresholds.hpp"
#include "topology/readers/ibnd_reader.hpp"

namespace fabricfit {

struct SweepOptions {
  DiscoveryOptions discovery;  // also names the local CA and port the queries go out of
  HealthThresholds thresholds;
  bool clear = false;  // clear each port's counters after reading them (never by default)
};

struct SweepStats {
  int read = 0;
  int down = 0;
  int missed = 0;
  double seconds = 0;
};

// `previous`: the last sweep's file (empty for the first). Throws DiscoveryError or
// PmaError when no query can be made at all.
[[nodiscard]] HealthFile sweep_health(const std::vector<Cable>& cables, const HealthFile& previous,
                                      const SweepOptions& options, SweepStats* stats = nullptr);

}  // namespace fabricfit
