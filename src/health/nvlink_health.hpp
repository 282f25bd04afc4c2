// SPDX-License-Identifier: GPL-2.0-or-later
// The NVLink health of each node, from its own report (topology/readers/nvlink_report.hpp:
// the collector's `nvidia-smi -q`, NVML's nvmlGpuFabricInfoV_t): what `fabricfit health
// --sweep` keeps in the health file beside the InfiniBand links, and what placement reads
// (placement/selection/health_view.hpp). docs/placement.md, "NVLink faults".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "health/health_model.hpp"
#include "topology/readers/nvlink_report.hpp"

namespace fabricfit {

// What a sweep makes of the reports: the hosts that are not healthy, and the hosts whose
// last state was kept because no current report says otherwise.
struct NvlinkJudgement {
  std::vector<NvlinkHostStatus> hosts;  // not healthy, by name
  std::vector<std::string> stale;       // a report older than the bound: its last state kept
  std::vector<std::string> unreported;  // in `previous`, with no report now (or one listing no GPU): kept
};

// The hosts of `report` whose NVLink fabric is not healthy; a host is as bad as its worst
// GPU:
// - Down (failing): a GPU not registered with the fabric (Fabric State not Completed, or
//   Status not Success), or its Health says Route Unhealthy, Route Recovery in progress or
//   Access Timeout Recovery True, an Incorrect Configuration other than None, or Summary
//   Unhealthy: traffic between its GPUs and the domain's can stall or fail;
// - SubHealthy (degraded): Bandwidth Degraded or Summary Limited Capacity (an NVLink or
//   NVSwitch tray lost): it runs, slower.
// A GPU whose Fabric State is N/A or Not Supported (no NVSwitch fabric, a driver too old to
// say) is not judged, nor is a row that prints Not Supported. `since_unix` is kept from
// `previous` for a host still in the same state, else `now_unix`. A host of `previous` that
// has no report now, or one listing no GPU (nvidia-smi could not reach the driver) or none
// that says anything of the fabric (State N/A or Not Supported), or a
// report older than `max_age_s` (> 0; by its file's time) keeps its previous state: no
// news is not a heal.
[[nodiscard]] NvlinkJudgement judge_nvlink(const NvlinkReport& report,
                                           const std::vector<NvlinkHostStatus>& previous,
                                           std::int64_t now_unix, std::int64_t max_age_s = 0);

}  // namespace fabricfit
