// SPDX-License-Identifier: GPL-2.0-or-later
// The health file laid over a fabric: which hosts' HCA links and which leaf groups' uplinks
// are not healthy (match_health_links, shared by the commands that print it and by
// placement), and the view placement reads (health_avoidance.hpp): a flapping or down link
// is failing, a sub-healthy or congested one degraded. docs/placement.md, "Faults".
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "health/health_model.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "topology/fabric.hpp"

namespace fabricfit {

class HealthViewError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file's links that are not healthy, by what they are in the fabric: indices into
// health.links. Links are matched by their ends' GUIDs (names can be remapped between the
// sweep and the snapshot, GUIDs cannot); a host's HCA link by the host's name.
struct HealthLinkMatch {
  std::vector<std::vector<std::size_t>> hosts;    // by host index: its HCA links
  std::vector<std::vector<std::size_t>> uplinks;  // by leaf group: its leaves' uplinks
  std::size_t known_ports = 0;                    // ports of the file whose GUID the fabric has
  std::size_t known_links = 0;                    // links of the file placed on a host or a leaf group
};
[[nodiscard]] HealthLinkMatch match_health_links(const Fabric& fabric, const HealthFile& health);

// Flapping and Down: Failing; SubHealthy and Congested: Degraded.
[[nodiscard]] PartHealth part_health(HealthState state);

// The view of `health` over `fabric` (host and leaf group indices as the fabric's, which
// LocalityIndex keeps). Throws HealthViewError for a file of another fabric: it names
// swept ports or unhealthy links and the fabric has none of them.
[[nodiscard]] FabricHealthView build_health_view(const Fabric& fabric, const HealthFile& health);

// The file's last sweep is older than `max_age_s` at `now_unix` (0: never stale).
[[nodiscard]] bool health_stale(const HealthFile& health, std::int64_t now_unix, std::int64_t max_age_s);

}  // namespace fabricfit
