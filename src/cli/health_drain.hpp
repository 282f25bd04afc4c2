// SPDX-License-Identifier: GPL-2.0-or-later
// HealthDrain=yes (fabricfit.conf): after a sweep, `fabricfit health --sweep` drains in Slurm
// each node whose HCA link flaps or whose NVLink fails (its own report: not registered with
// the fabric, a route unhealthy; health/nvlink_health.hpp), and resumes the nodes it drained
// once their link neither flaps nor is down and their NVLink no longer fails; a drained
// node's Reason follows its cause when one ends and another holds it. A failing
// NVLink kills multi-GPU jobs on the host itself, one-host ones included. A flapping HCA link kills every
// multi-host job across it; placement already keeps new multi-host jobs off the host, draining also keeps
// one-host jobs and the admins' eyes on it (sinfo -R). Ownership is the Reason: fabricfit drains only nodes
// without one and resumes only nodes whose Reason it wrote, so an admin's drain is never undone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/slurm_cluster.hpp"
#include "health/health_model.hpp"
#include "topology/fabric.hpp"

namespace fabricfit::cli {

// Every Reason fabricfit writes starts with this; a drained node whose Reason does not is
// someone else's.
inline constexpr std::string_view kDrainReasonPrefix = "fabricfit: ";

struct NodeAction {
  std::string node;
  std::string why;  // the Reason to set (drain), or why (resume, held)
};

struct DrainPlan {
  std::vector<NodeAction> drain;   // scontrol update NodeName=N State=DRAIN Reason=why
  std::vector<NodeAction> resume;  // scontrol update NodeName=N State=RESUME
  // Drained by fabricfit for a cause that has ended while another keeps it drained (its HCA
  // link healed but its NVLink fails, a flapping link went down for good): the Reason is
  // rewritten to the cause now (State=DRAIN Reason=why). Only on a change of cause, not of
  // evidence, so the Reason's time stays when the drain began for it.
  std::vector<NodeAction> reason;
  std::vector<NodeAction> held;  // flapping, left as they are: why not drained
};

// What to do after a sweep: `nodes` as Slurm reports them now, at most `max_drained` nodes
// drained by fabricfit at once (those it drained before count). Fabric hosts are Slurm
// nodes by name; hosts are taken in the fabric's order.
[[nodiscard]] DrainPlan plan_drains(const Fabric& fabric, const HealthFile& health,
                                    const std::vector<SlurmNode>& nodes, int max_drained);

// True for a node fabricfit drained: DRAIN among its state flags, its Reason fabricfit's.
[[nodiscard]] bool drained_by_fabricfit(const SlurmNode& node);

}  // namespace fabricfit::cli
