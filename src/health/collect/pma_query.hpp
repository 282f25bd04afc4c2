// SPDX-License-Identifier: GPL-2.0-or-later
// Performance Management queries of one port through libibmad, as perfquery makes them:
// ClassPortInfo once per node (does it answer PortCountersExtended?), then PortCounters
// and, where supported, PortCountersExtended for the 64-bit data counter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "health/port_counters.hpp"

struct ibmad_port;

namespace fabricfit {

class PmaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A MAD port opened for the Performance Management class; closed on destruction.
class PmaPort {
 public:
  // `ca` empty: the first CA; `ca_port` 0: its first active port. Throws PmaError.
  PmaPort(const std::string& ca, int ca_port, unsigned timeout_ms);
  ~PmaPort();
  PmaPort(const PmaPort&) = delete;
  PmaPort& operator=(const PmaPort&) = delete;

  // ClassPortInfo's capability mask: does the node answer PortCountersExtended? nullopt
  // when the query timed out.
  [[nodiscard]] std::optional<bool> extended_supported(int lid, int port);
  // The port's counters; nullopt when a query timed out or failed.
  [[nodiscard]] std::optional<PortSample> read(int lid, int port, bool extended);
  // Clears the port's counters (PortCounters, and PortCountersExtended when `extended`).
  bool clear(int lid, int port, bool extended);

 private:
  ibmad_port* port_ = nullptr;
  unsigned timeout_ms_;
};

}  // namespace fabricfit
