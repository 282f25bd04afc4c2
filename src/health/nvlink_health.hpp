// SPDX-License-Identifier: GPL-2.0-or-later
// The NVLink health of each node, from its own report (topology/readers/nvlink_report.hpp:
// the collector's `nvidia-smi -q`, NVML's nvmlGpuFabricInfoV_t): what `fabricfit health
// --sweep` keeps in the health file beside the InfiniBand links, and what placement reads
// (placement/selection/health_view.hpp). docs/placement.md, "NVLink faults".
#pragma once

#include <cstdint>
#include <vector>

#include "health/health_model.hpp"
#include "topology/readers/nvlink_report.hpp"

namespace fabricfit {

// The hosts of `report` whose NVLink fabric is not healthy, by name; a host is as bad as
// its worst GPU:
// - Down (failing): a GPU not registered with the fabric (Fabric State not Completed, or
//   Status not Success), or its Health says Route Unhealthy, Route Recovery in progress or
//   Access Timeout Recovery True, an Incorrect Configuration other than None, or Summary
//   Unhealthy: traffic between its GPUs and the domain's can stall or fail;
// - SubHealthy (degraded): Bandwidth Degraded or Summary Limited Capacity (an NVLink or
//   NVSwitch tray lost): it runs, slower.
// A GPU without a Fabric State (N/A: no NVSwitch fabric, or a driver too old to say) is
// not judged, nor is a host whose report lists no GPU. `since_unix` is kept from
// `previous` for a host still in the same state, else `now_unix`.
[[nodiscard]] std::vector<NvlinkHostStatus> judge_nvlink(const NvlinkReport& report,
                                                         const std::vector<NvlinkHostStatus>& previous,
                                                         std::int64_t now_unix);

}  // namespace fabricfit
