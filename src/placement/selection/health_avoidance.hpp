// SPDX-License-Identifier: GPL-2.0-or-later
// Keeping multi-host jobs off unhealthy parts of the fabric: hosts whose own HCA link or
// NVLink fabric is unhealthy, and the uplinks of leaf groups with an unhealthy cable. A job whose traffic
// crosses a link when it drops fails (NCCL aborts) and loses the work since its last
// checkpoint: GPUs x that work is the expected loss. The rule, per part:
// - failing (flapping, down): it drops again within its flap window, sooner than jobs
//   checkpoint, so a job placed across it loses all it does there: a multi-host job is
//   never placed across it; it waits for a placement without it;
// - degraded (sub-healthy, congested): it costs run time only: kept off while another
//   placement fits now, else taken (waiting would cost more than the slowdown); a
//   degraded NVLink only for the jobs it paces (crossed_parts);
// - one-host jobs cross no link: placed as if all were healthy (no stranded capacity),
//   except that a one-host job with more than one GPU crosses the host's NVLink.
// docs/placement.md, "Faults".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "placement/selection/placement_policy.hpp"

namespace fabricfit {

enum class PartHealth : std::uint8_t { Healthy = 0, Degraded = 1, Failing = 2 };

// What placement knows of the fabric's health now (the health file; in the replay, the
// fault episodes once a sweep has seen them). Empty vectors: all healthy.
struct FabricHealthView {
  std::vector<PartHealth> host_link;  // per host: its HCA link
  std::vector<PartHealth> uplinks;    // per leaf group: its worst uplink cable
  // Per host: its GPUs' NVLink fabric (the nodes' own reports). A multi-host job crosses
  // it as it crosses the host's HCA link: on an NVL72 tray even the GPUs of one host
  // talk through the rack's NVSwitch trays, and inside a domain the hosts do too.
  std::vector<PartHealth> nvlink;
  [[nodiscard]] bool all_healthy() const;
  // The worse of host h's HCA link and its NVLink.
  [[nodiscard]] PartHealth host(int h) const;
};

struct HealthAvoidance {
  bool kept_off = false;           // placed off an unhealthy part it would otherwise have used
  bool took_degraded = false;      // nothing fitted without a degraded part: taken
  bool waits_for_healthy = false;  // only placements across a failing part fitted: none made
};

// The policy's placement under the rule above; `what` (optional) says what it did.
[[nodiscard]] std::optional<Allocation> place_keeping_off_unhealthy(PlacementPolicy& policy,
                                                                    const PlacementContext& ctx,
                                                                    const JobRequest& request,
                                                                    const FabricHealthView& health,
                                                                    HealthAvoidance* what = nullptr);

// Which kinds of part an allocation's traffic crosses: its hosts' HCA links and NVLink when
// it has several hosts, the uplinks of its groups when it spans several, and its one host's
// NVLink when it has one host and more than one GPU there. A failing NVLink drops every
// job whose GPUs talk over it; a degraded one only slows the jobs NVLink paces: a job
// inside one domain, and one across domains whose `pattern` has tensor parallel groups
// (tp > 1) talking inside them. Across domains, ring, tree and all-to-all traffic is paced
// by the InfiniBand between them: keeping such a job off a degraded tray would cost it
// leaf-group locality for nothing. One rule for placement and for what explain says.
struct CrossedParts {
  bool host_links = false;
  bool nvlink = false;
  bool nvlink_paced = false;  // a degraded NVLink slows it
  bool uplinks = false;
};
[[nodiscard]] CrossedParts crossed_parts(const LocalityIndex& index, const Allocation& a,
                                         const CommPattern& pattern);

// The worst part the allocation's traffic crosses (crossed_parts), for a job of `pattern`.
[[nodiscard]] PartHealth worst_crossed(const LocalityIndex& index, const Allocation& a,
                                       const FabricHealthView& health, const CommPattern& pattern);

}  // namespace fabricfit
