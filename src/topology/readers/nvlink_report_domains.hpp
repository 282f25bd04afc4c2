// SPDX-License-Identifier: GPL-2.0-or-later
// The NVLink domains that the nodes' own reports (nvlink_report.hpp) make: hosts whose
// GPUs all registered with the same fabric (ClusterUUID) and clique (CliqueId) are one
// domain. docs/fabric-model.md, "NVLink domains".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/fabric.hpp"
#include "topology/readers/nvlink_report.hpp"

namespace fabricfit {

struct NvlinkReportDomain {
  std::string name;  // "nvl-<first 8 hex digits of the cluster UUID>-<clique id>"
  std::string cluster_uuid;
  std::uint32_t clique_id = 0;
  std::vector<std::size_t> hosts;  // indices into NvlinkReport::hosts, ascending
  friend bool operator==(const NvlinkReportDomain&, const NvlinkReportDomain&) = default;
};

struct NvlinkReportDomains {
  std::vector<NvlinkReportDomain> domains;  // by cluster UUID, then clique id
  // One per host left out of every domain: "FILE:LINE: host H: reason; in no NVLink domain".
  std::vector<std::string> warnings;
};

// A host is in the domain "<ClusterUUID>/<CliqueId>" when each of its GPUs reports Fabric
// State Completed, Status Success, a CliqueId and a ClusterUUID that is not all zeros (a
// failed registration prints zeros: taken as a domain they would join every failed node
// into one), and all agree. Any other host (no GPU, a GPU with no Fabric section or not
// registered, a failed Status, GPUs in different cliques) is left out with a warning, so
// that one bad tray does not block the rest. Names are stable across runs: they come from
// what the nodes report, never from the order they were read; two cluster UUIDs whose first
// 8 digits agree are named with all 32.
[[nodiscard]] NvlinkReportDomains group_nvlink_report(const NvlinkReport& report);

// `domains` as NVLink domains of `fabric`: report host names are host names (the names the
// fabric's hosts got from their HCAs or the node-name-map), compared exactly (pdsh prints
// a node's name as it was given: short, or fully qualified). A report node that is not a
// host of the fabric (a retired node's file left in the collector's directory, a login
// node's) is left out with a warning "FILE:LINE: node H is not a host of the fabric ...;
// left out" added to `warnings`, and a domain left with no host is dropped. Throws
// NvlinkReportError "FILE:LINE: ..." when no node of the report is a host of the fabric:
// the names do not match (short against fully qualified), which no warning should hide.
[[nodiscard]] std::vector<NvlinkDomain> domains_of_nvlink_report(const NvlinkReport& report,
                                                                 const NvlinkReportDomains& domains,
                                                                 const Fabric& fabric,
                                                                 std::vector<std::string>& warnings);

}  // namespace fabricfit
