// SPDX-License-Identifier: GPL-2.0-or-later
// How a job wider than one leaf group is split by its pattern: for tp=T,pp=P,dp=D
// (Megatron layout, pipeline stage outermost) a pipeline stage is T x D consecutive ranks,
// so stage boundaries fall on leaf-group edges when every group holds whole stages and
// the groups that do come first in rank order. docs/placement.md ("Split by pattern").
#pragma once

#include <utility>

#include "placement/job_request.hpp"
#include "placement/locality_index.hpp"
#include "placement/selection/selector_plan.hpp"
#include "placement/traffic_matrix.hpp"

namespace fabricfit::selection {

// Hosts per pipeline stage of a tp/pp/dp job when a stage spans whole hosts (T x D a
// multiple of the GPUs per host, the job a whole number of such stages); 1 otherwise
// (every other pattern, or stages no larger than a host: any host edge is then a stage edge).
[[nodiscard]] int stage_hosts(const CommPattern& pattern, const JobShape& shape);

// Puts a plan in rank order: leaf groups by pod; inside a pod, groups holding whole
// stages (take a multiple of `unit`) first, then the others; then by index. With unit 1
// this is the order by pod then index (ring, tree, alltoall: contiguous per group).
void order_for_split(Plan& plan, const LocalityIndex& index, int unit);

// Stages (runs of `unit` consecutive hosts of a plan in rank order) whose hosts are in
// more than one leaf group.
[[nodiscard]] int stages_split(const Plan& ordered, int unit);

// The share of the job's inter-node bytes that crosses leaf groups (first) and pods
// (second) when the plan, in rank order, carries `traffic` (built over its node slots).
[[nodiscard]] std::pair<double, double> cross_shares(const TrafficMatrix& traffic, const Plan& ordered,
                                                     const LocalityIndex& index);

}  // namespace fabricfit::selection
