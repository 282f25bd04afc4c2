// SPDX-License-Identifier: GPL-2.0-or-later
// RawFabric -> Fabric: names hosts, tells compute HCAs from the rest, derives switch
// tiers, rails, leaf groups, pods, capacities and degraded links, and reports in
// Fabric::warnings whatever is not a clean Clos. docs/fabric-model.md says how.
#pragma once

#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "topology/fabric.hpp"
#include "topology/node_name_map.hpp"
#include "topology/raw_fabric.hpp"

namespace fabricfit {

struct ModelOptions {
  // Searched in an HCA's NodeDescription: group 1 is the host name, group 2 (if the
  // pattern has one) the HCA name; without group 2 the HCA name is what follows the
  // match. "gpu-node-001 mlx5_0" -> gpu-node-001, mlx5_0.
  std::string host_pattern = R"(^(\S+)\s+(\S+))";
  // Matched against the whole HCA name: HCAs that do not match (storage, management)
  // are kept as VertexKind::Other, out of the compute graph and out of NCCL_IB_HCA.
  std::string compute_hca_pattern = ".*";
  // Searched in a switch's NodeDescription: group 1 is its name ("MF0;A09-P1-IBLEAF-04-04:
  // MQM9701/U1" -> A09-P1-IBLEAF-04-04, the managed-switch convention). No match: the
  // whole description.
  std::string switch_pattern = R"(^MF0;([^:]+):)";
  // GUID -> name, replacing the NodeDescription of that node before the patterns apply.
  NodeNameMap node_names;
  std::string node_name_map_file;  // where node_names came from (recorded, not read here)
  // Hosts that are not compute hosts although their HCAs are named like one (storage
  // servers, UFM): searched in the host name. Empty: none.
  std::string exclude_host_pattern;
  // Slurm's nodes: when given, exactly these hosts are compute hosts; the others are
  // kept as service hosts, and nodes the fabric does not have are reported.
  std::optional<std::set<std::string>> compute_hosts;
  std::string compute_hosts_source;  // the file or hostlist they came from (recorded)
};

// An option that cannot be used (a pattern that is not a valid regular expression).
class ModelError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Deterministic: the same subnet gives the same Fabric whatever order the reader met
// its nodes in. Throws ModelError for bad options; never for a bad subnet, which is
// reported in the warnings instead.
[[nodiscard]] Fabric build_fabric(const RawFabric& raw, const ModelOptions& options);

}  // namespace fabricfit
