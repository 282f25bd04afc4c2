// SPDX-License-Identifier: GPL-2.0-or-later
// What the controller tells admins: a one-line placement record per job (for the job's
// AdminComment, so sacct keeps it) and the fabric as `scontrol show topology` prints it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "placement/comm_pattern.hpp"
#include "placement/fragmentation.hpp"
#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "topology/fabric.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit {

// "fabricfit placement=fabricfit leaf_groups=2 groups=ib-leaf-001,ib-leaf-002
// cross_spine_gb=0.5 uplink_ms=1.25 unusable_gpus=+0.0 pattern=ring" for hosts in rank
// order with `gpus` GPUs each: GB crossing the spines per GB of message, milliseconds per GB
// of message on the busiest uplinks, and the GPUs the workload mix can no longer use that
// the job makes (from `free` before it). With a non-empty `fallback_reason`:
// "fabricfit placement=slurm reason=no-fit pattern=ring".
// Spaces in a reason become '_' so the record stays one word per key.
[[nodiscard]] std::string placement_record(const LocalityIndex& index, const FragModel* frag,
                                           const GpuState* free, std::span<const int> hosts,
                                           std::span<const int> gpus, const CommPattern& pattern,
                                           std::string_view fallback_reason);

// The record of a job fabricfit left to Slurm: "fabricfit placement=slurm reason=R pattern=P",
// without pattern= when `pattern` is "" or "-" (not known: no snapshot, no GPUs).
[[nodiscard]] std::string fallback_record(std::string_view pattern, std::string_view reason);

// The fabric in Slurm's Key=Value style, one line per item: a summary (origin, snapshot
// age), every leaf group (hosts as a Slurm hostlist, free GPUs, uplinks, capacity,
// oversubscription, pod), every pod and every degraded link. With `only` (node names),
// just the leaf groups of those nodes, their pods and their degraded links. With `health`
// (the health file's view placement uses), each NVLink domain's line counts its hosts
// whose NVLink is failing or degraded (NvlinkFailing=, NvlinkDegraded=, when not 0).
[[nodiscard]] std::string topology_text(const Fabric& fabric, const SnapshotInfo& info, const GpuState& gpus,
                                        const std::vector<std::string>& only, std::int64_t now_unix,
                                        const FabricHealthView* health = nullptr);

// The lines of a topology_text() that concern `nodes` (what topology_text(..., nodes, ...)
// gives), for a client that has the text but not the fabric: `scontrol show topology NODES`
// prints what slurmctld packed. An empty `nodes` returns the text as it is.
[[nodiscard]] std::string filter_topology_text(std::string_view text, const std::vector<std::string>& nodes);

}  // namespace fabricfit
