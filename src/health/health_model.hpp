// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric's health as the sweeps saw it: per port, its state with hysteresis and the
// last counters (so that the next sweep can take rates); per link of the snapshot that is
// not healthy, its state and evidence, named as `fabricfit show` names its ends. What the
// health file holds (health_file.hpp) and what placement reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "health/port_counters.hpp"

namespace fabricfit {

// Ordered from best to worst: a link's state is the worse of its two ends'.
enum class HealthState : std::uint8_t { Healthy, Congested, SubHealthy, Flapping, Down };
[[nodiscard]] std::string_view state_name(HealthState s);  // "healthy", "sub-healthy", ...
[[nodiscard]] std::optional<HealthState> parse_state(std::string_view name);

// Why a port is in its state: a counter, its rate, and since when it has been over.
struct Evidence {
  std::string counter;  // perfquery's name, or "PortState" for a link that is down
  double rate = 0;      // in `unit`
  std::string unit;     // "per_hour", "ber", "share", "in_window", "down"
  double threshold = 0;
  std::int64_t since_unix = 0;
  std::string at;  // which end, "leaf01[3]": set on a link's evidence
  friend bool operator==(const Evidence&, const Evidence&) = default;
};

struct PortHealth {
  PortId id;
  HealthState state = HealthState::Healthy;
  std::int64_t since_unix = 0;  // when it entered `state`
  // Hysteresis: the state the rates point to and for how many sweeps in a row; the sweeps
  // in a row with every rate clear.
  HealthState pending = HealthState::Healthy;
  std::uint16_t pending_sweeps = 0;
  std::uint16_t clear_sweeps = 0;
  bool missed = false;                    // not read in the last sweep: state kept
  std::uint16_t saturated = 0;            // bit per Counter at its ceiling
  std::optional<PortSample> last;         // the counters of the last read
  std::vector<std::int64_t> downed_unix;  // LinkDowned increments in the flap window
  std::vector<Evidence> evidence;         // what put it in `state` (empty when healthy)
  friend bool operator==(const PortHealth&, const PortHealth&) = default;
};

// A cable of the snapshot that is not healthy (healthy ones are not listed).
struct LinkStatus {
  std::uint64_t a_guid = 0;
  int a_port = 0;
  std::string a;  // vertex names as `fabricfit show` gives them
  std::uint64_t b_guid = 0;
  int b_port = 0;
  std::string b;
  std::string host;  // a compute host's HCA link: the host's name; empty otherwise
  HealthState state = HealthState::Healthy;
  std::int64_t since_unix = 0;
  std::vector<Evidence> evidence;
  friend bool operator==(const LinkStatus&, const LinkStatus&) = default;
};

// A host whose NVLink fabric is not healthy, as its own `nvidia-smi -q` says (each GPU's
// Fabric section and its Health subsection; health/nvlink_health.hpp judges them).
// SubHealthy: bandwidth degraded (it runs, slower); Down: not registered with the fabric,
// or a route unhealthy or being recovered, or misconfigured (multi-GPU traffic fails).
struct NvlinkHostStatus {
  std::string host;  // as the report names it: a Slurm node name
  HealthState state = HealthState::Healthy;
  std::int64_t since_unix = 0;  // when it entered `state`
  std::string reason;           // "GPU 00000009:01:00.0: Route Unhealthy True"
  std::string at;               // "FILE:LINE" of that GPU's Health (or Fabric) heading, for the admin
  friend bool operator==(const NvlinkHostStatus&, const NvlinkHostStatus&) = default;
};

struct HealthFile {
  std::int64_t sweep_unix = 0;    // when the last sweep ended
  std::uint32_t sweeps = 0;       // sweeps so far
  std::string snapshot;           // the snapshot whose cables were swept
  std::vector<PortId> missed;     // ports the last sweep did not read (their state kept)
  std::vector<PortHealth> ports;  // sorted by id
  std::vector<LinkStatus> links;  // not healthy, worst first
  // The nodes' NVLink reports the last sweep read (empty: none read, or a version-1 file),
  // and the hosts among them that are not healthy, by name.
  std::string nvlink_report;
  std::vector<NvlinkHostStatus> nvlink;
  friend bool operator==(const HealthFile&, const HealthFile&) = default;
};

}  // namespace fabricfit
