// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/fabric_warnings.hpp"

#include <algorithm>

namespace fabricfit {

std::string_view warning_tag(WarningKind kind) {
  switch (kind) {
    case WarningKind::PartialDiscovery: return "partial-discovery";
    case WarningKind::UnnamedHca: return "unnamed-hca";
    case WarningKind::DefaultHostName: return "default-host-name";
    case WarningKind::UnmatchedName: return "unmatched-name";
    case WarningKind::NonComputeHca: return "non-compute-hca";
    case WarningKind::SharpNodes: return "sharp";
    case WarningKind::Router: return "router";
    case WarningKind::DuplicateGuid: return "duplicate-guid";
    case WarningKind::DuplicateHca: return "duplicate-hca";
    case WarningKind::InconsistentLink: return "inconsistent-link";
    case WarningKind::UnknownRate: return "unknown-rate";
    case WarningKind::HostOnSpine: return "host-on-spine";
    case WarningKind::TooManyTiers: return "too-many-tiers";
    case WarningKind::LeafWithoutUplink: return "leaf-without-uplink";
    case WarningKind::UnevenUplinks: return "uneven-uplinks";
    case WarningKind::Island: return "island";
    case WarningKind::SwitchLoop: return "switch-loop";
    case WarningKind::RailMismatch: return "rail-mismatch";
    case WarningKind::TwoLeavesOneRail: return "two-leaves-one-rail";
    case WarningKind::HostSpansLeafGroups: return "host-spans-leaf-groups";
    case WarningKind::MissingRail: return "missing-rail";
    case WarningKind::NoHosts: return "no-hosts";
    case WarningKind::ServiceLeaf: return "service-leaf";
    case WarningKind::CrossTierCable: return "cross-tier-cable";
    case WarningKind::ExcludedHost: return "excluded-host";
    case WarningKind::SlurmNodeNotInFabric: return "slurm-node-not-in-fabric";
  }
  return "warning";
}

std::string format_warning(WarningKind kind, std::string_view message) {
  std::string out(warning_tag(kind));
  out += ": ";
  out += message;
  return out;
}

int count_warnings(const Fabric& fabric, WarningKind kind) {
  const std::string prefix = std::string(warning_tag(kind)) + ": ";
  return static_cast<int>(std::count_if(fabric.warnings.begin(), fabric.warnings.end(),
                                        [&](const std::string& w) { return w.starts_with(prefix); }));
}

}  // namespace fabricfit
