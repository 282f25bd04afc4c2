// SPDX-License-Identifier: GPL-2.0-or-later
// One sweep's update of one port: rates from the counters against the last read, the
// state they point to, and the hysteresis that keeps a port from flipping every sweep.
#pragma once

#include <cstdint>

#include "health/health_model.hpp"
#include "health/health_thresholds.hpp"

namespace fabricfit {

// What one sweep learnt of a port.
struct PortReading {
  enum class Kind { Read, Down, Missed } kind = Kind::Missed;
  PortSample sample;     // Read: the counters
  double link_gbps = 0;  // the link's data rate, for the bit error rate (0: unknown)
  std::int64_t now_unix = 0;
};

// Updates `port` with `reading`. Missed: only `missed` changes. Down: the port is down at
// once. Read: rates against `port.last` (none: the first read is the baseline).
void update_port_health(PortHealth& port, const PortReading& reading, const HealthThresholds& t);

}  // namespace fabricfit
