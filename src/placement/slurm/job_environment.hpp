// SPDX-License-Identifier: GPL-2.0-or-later
// What a job's task learns of its placement: the NCCL variables that match this node's
// HCAs and the fabric, and FABRICFIT_* variables describing where the job landed
// (docs/plugins.md). The SPANK plugin sets them; the rules live here.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "placement/comm_pattern.hpp"
#include "placement/locality_index.hpp"
#include "site/site_config.hpp"
#include "topology/fabric.hpp"

namespace fabricfit {

// A host's compute HCA ports in NCCL_IB_HCA's exact-match syntax, in rail order:
// "=mlx5_0:1,mlx5_1:1". Empty when the fabric has no compute HCA for the host.
[[nodiscard]] std::string nccl_ib_hca(const Fabric& fabric, int host);

// The HCA device name of an HCA vertex: its description without the host name
// ("gpu001 mlx5_0" -> "mlx5_0").
[[nodiscard]] std::string hca_device_name(const Fabric& fabric, Vertex hca);

struct JobPlacementFacts {
  std::vector<int> hosts;                // the job's hosts in rank order (known to the fabric)
  std::vector<std::string> unknown;      // node names the fabric lacks
  std::vector<std::string> leaf_groups;  // names, in order of first use
  std::vector<int> pods;                 // pod indices, in order of first use (three-tier)
};

// The job's hosts on the fabric, their leaf groups and pods.
[[nodiscard]] JobPlacementFacts placement_facts(const LocalityIndex& index,
                                                const std::vector<std::string>& nodes);

struct JobEnvironment {
  std::vector<std::pair<std::string, std::string>> vars;  // NAME, VALUE in the order to set them
  std::vector<std::string> unset;                         // inherited from an earlier step, wrong here
  std::vector<std::string> notes;                         // for the daemon log, one line each
};

struct JobEnvironmentInput {
  std::string node;                // this node (SLURMD_NODENAME)
  std::vector<std::string> nodes;  // the job's nodes in rank order (SLURM_JOB_NODELIST expanded)
  CommPattern pattern;             // the job's effective pattern
  int gpus_on_node = 0;            // SLURM_GPUS_ON_NODE (0: unknown, no FABRICFIT_SCORE)
};

// The variables for a task on `in.node`. NCCL ones only when the site allows them and
// the pattern is not none; none at all for a node whose HCAs the fabric does not know
// (a note says so). FABRICFIT_SCORE uses the same words and numbers as
// `fabricfit score --json` for the same nodes, pattern and GPUs per node.
[[nodiscard]] JobEnvironment job_environment(const Fabric& fabric, const LocalityIndex& index,
                                             const SiteConfig& site, const JobEnvironmentInput& in);

// The record of the NCCL variables fabricfit set, kept in the job's environment so that a
// later step (an srun inside a batch script, on other nodes) tells them from the user's.
inline constexpr const char* kNcclSetRecord = "FABRICFIT_NCCL_SET";

// Drops from `env` every NCCL variable the user set (the job's environment has it, and not
// with the value an earlier step recorded in FABRICFIT_NCCL_SET), appends the new record,
// and lists in `unset` what an earlier step set that this node must not have (a node the
// snapshot lacks, inside a batch job whose batch node had settings). FABRICFIT_* variables
// are fabricfit's own and always set.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
[[nodiscard]] JobEnvironment keep_users_own(JobEnvironment env, const EnvLookup& lookup);

// "leaf_groups=2 pods=0 inter_node_bytes=... spine_bytes=... core_bytes=...
// max_uplink_load_s_per_gb=..." for hosts in rank order with `gpus` GPUs each.
[[nodiscard]] std::string score_words(const LocalityIndex& index, const std::vector<int>& hosts, int gpus,
                                      const CommPattern& pattern);

}  // namespace fabricfit
