// SPDX-License-Identifier: GPL-2.0-or-later
// Fabric faults for the replay (`fabricfit replay --faults SPEC`): links that flap (drop,
// failing the jobs whose traffic crosses them, again and again until repaired) and links
// that turn sub-healthy (errors and retransmissions: they keep a share of their bandwidth).
// The same episodes, drawn from the seed, hit every policy. docs/placement.md, "Faults".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fabricfit {

class LocalityIndex;

struct FaultRates {
  // Episodes per link and day.
  double host_flap = 0;     // a host's HCA link flaps
  double uplink_flap = 0;   // a leaf group's uplink cable flaps
  double uplink_slow = 0;   // a leaf group's uplink cable turns sub-healthy
  double nvlink_flap = 0;   // per host in an NVLink domain and day: its NVLink fails (a route unhealthy)
  double nvlink_slow = 0;   // per host in an NVLink domain and day: its NVLink bandwidth is degraded
  double slow_keeps = 0.5;  // share of its bandwidth a sub-healthy cable (or degraded NVLink) keeps
  double episode_s = 6 * 3600.0;  // until the link is repaired (or leaves service)
  double flap_every_s = 1800;     // a flapping link drops this often in its episode
  double detect_s = 300;          // a state is known (health sweeps) this long after it begins or ends
  double checkpoint_s = 3600;     // a failed job restarts from its last checkpoint
  [[nodiscard]] bool any() const {
    return host_flap > 0 || uplink_flap > 0 || uplink_slow > 0 || nvlink_flap > 0 || nvlink_slow > 0;
  }
  // Key=value list, keys as parse_fault_spec takes them.
  [[nodiscard]] std::string to_string() const;
};

class FaultSpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "stress", "llama3" or "none", then optional overrides, comma-separated:
// host-flap=R, uplink-flap=R, uplink-slow=R (per link-day), nvlink-flap=R, nvlink-slow=R
// (per host-day, hosts in an NVLink domain; in no preset), slow-keeps=F (0..1),
// episode=S, flap-every=S, detect=S, checkpoint=S (seconds), e.g.
// "stress,checkpoint=1800" or "host-flap=0.01,uplink-flap=0.01". Throws FaultSpecError
// naming the bad item and why.
[[nodiscard]] FaultRates parse_fault_spec(const std::string& spec);

// Nvlink: a host's NVLink (its tray's route to the rack's NVSwitch trays): it carries the
// traffic of its multi-host jobs and of its one-host jobs of more than one GPU. Slow on
// an NVLink: its bandwidth degraded (NVML's Bandwidth Degraded: links of its GPUs down).
enum class FaultTarget { HostLink, Uplink, Nvlink };
enum class FaultKind { Flap, Slow };

struct FaultEpisode {
  FaultKind kind = FaultKind::Flap;
  FaultTarget target = FaultTarget::HostLink;
  int where = 0;  // host index (HostLink, Nvlink) or leaf group (Uplink)
  double start_s = 0;
  double end_s = 0;
};

// Episodes over [t0, t1), Poisson per link at the given rates, in start order; a hash of
// the seed (the same for every policy).
[[nodiscard]] std::vector<FaultEpisode> plan_faults(const LocalityIndex& index, const FaultRates& rates,
                                                    double t0, double t1, std::uint64_t seed);

}  // namespace fabricfit
