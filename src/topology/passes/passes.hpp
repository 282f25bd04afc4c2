// SPDX-License-Identifier: GPL-2.0-or-later
// build_fabric() as a pipeline of passes, in the order they run. Each pass reads the
// outputs of the passes before it and returns its own; each lives in its own file here.
//
//   RawFabric --classify_nodes--> ClassifiedFabric   (names, CA roles, cables)
//             --derive_tiers----> Tiers              (leaf / spine / core from compute leaves)
//             --find_islands----> warnings           (parts not connected to the rest)
//             --assign_rails----> Rails              (hosts, their HCAs, rails)
//             --group_leaves----> LeafGroups         (leaves tied together by clean hosts)
//             --derive_pods-----> Pods               (three-tier: leaf-spine blocks)
//             --assemble_graph--> Fabric             (graph, hosts, groups, degraded links)
//             --fill_capacities-> Fabric             (uplinks, oversubscription, uneven uplinks)
//
// Every pass collects its findings in its own `warnings`; build_fabric() appends them to
// Fabric::warnings in pipeline order. Node indices are positions in
// ClassifiedFabric::nodes (one canonical order, whatever order the reader met them in).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/fabric.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/node_naming.hpp"
#include "topology/raw_fabric.hpp"

namespace fabricfit::passes {

inline constexpr int kNone = -1;

// One cable, between two ends of the canonically ordered nodes.
struct Cable {
  int a = 0, port_a = 0, b = 0, port_b = 0;
  LinkRate rate;
  [[nodiscard]] int other_end(int node) const { return a == node ? b : a; }
  [[nodiscard]] int port_at(int node) const { return a == node ? port_a : port_b; }
};

struct ClassifiedNode {
  NodeType type = NodeType::Ca;
  std::uint64_t guid = 0;
  VertexKind kind = VertexKind::Other;
  std::string name;
  CaRole role = CaRole::Unnamed;  // CAs
  std::string host_name;          // CAs of a named host
  std::string hca_name;
  std::vector<int> cables;  // indices into ClassifiedFabric::cables
  int plane = 0;            // the subnet it was found in (RawFabric::planes)
};

// Pass 1: every node named and classified, every cable once.
struct ClassifiedFabric {
  std::vector<ClassifiedNode> nodes;
  std::vector<Cable> cables;
  int sharp_nodes = 0;
  std::string compute_rule;                      // "--exclude-host '^stor'", for warnings
  std::vector<std::string> slurm_nodes_missing;  // compute hosts given that no CA names
  bool partial = false;
  std::string origin;
  std::vector<std::string> warnings;
  [[nodiscard]] int count() const { return static_cast<int>(nodes.size()); }
  [[nodiscard]] bool is_switch(int i) const { return nodes[i].kind == VertexKind::Switch; }
};
[[nodiscard]] ClassifiedFabric classify_nodes(const RawFabric& raw, const NodeNamer& namer);

// Pass 2: switch tiers, derived from the leaves of compute hosts.
struct Tiers {
  std::vector<SwitchTier> of;      // by node; None for CAs
  std::vector<char> compute_leaf;  // by node: a leaf with compute HCAs
  int levels = 0;                  // Fabric::tiers
  std::vector<std::string> warnings;
};
[[nodiscard]] Tiers derive_tiers(const ClassifiedFabric& nodes);

// Pass 3: parts of the subnet not connected to the rest (warnings only).
[[nodiscard]] std::vector<std::string> find_islands(const ClassifiedFabric& nodes);

struct HostRecord {
  std::string name;
  std::vector<int> hcas;      // by rail, kNone where missing
  std::vector<int> all_hcas;  // every compute HCA, in name order
  bool clean = true;          // every HCA on the leaf of its own rail
};

// Pass 4: hosts, their compute HCAs and the rails.
struct Rails {
  int rails = 0;
  std::vector<int> rail;          // by node: HCAs and leaves; kNone elsewhere
  std::vector<int> host;          // by node: the host of a compute or non-compute HCA
  std::vector<int> leaf;          // by node: a CA's leaf (the switch its first cable reaches, when a leaf)
  std::vector<HostRecord> hosts;  // by name
  std::vector<std::string> warnings;
};
[[nodiscard]] Rails assign_rails(const ClassifiedFabric& nodes, const Tiers& tiers);

// Pass 5: leaf groups.
struct LeafGroups {
  std::vector<std::vector<int>> leaves;  // by group: leaves by rail, kNone where missing
  std::vector<std::string> names;        // by group
  std::vector<int> group_of_node;        // by node: leaves; kNone elsewhere
  std::vector<int> group_of_host;        // by host
  std::vector<std::string> warnings;
};
[[nodiscard]] LeafGroups group_leaves(const ClassifiedFabric& nodes, const Rails& rails);

// Pass 6: pods of a three-tier fabric.
struct Pods {
  int count = 0;
  std::vector<int> of;  // by node: leaves and spines; kNone elsewhere
};
[[nodiscard]] Pods derive_pods(const ClassifiedFabric& nodes, const Tiers& tiers, const LeafGroups& groups);

// Pass 7: the graph in a fixed vertex and edge order, hosts, groups, pods, degraded
// links; link-health findings go to out.warnings. Writes into `out` (Boost 1.74's
// adjacency_list has no move constructor).
struct Assembled {
  double usual_uplink_gbps = 0;  // what most leaf-to-spine cables run at
  // By vertex: CAs on leaf ports whose traffic shares the leaf's uplinks (compute,
  // unnamed and non-compute HCAs alike; not SHARP nodes), counted in down_gbps.
  std::vector<char> down_ca;
};
Assembled assemble_graph(const ClassifiedFabric& nodes, const Tiers& tiers, const Rails& rails,
                         const LeafGroups& groups, const Pods& pods, Fabric& out);

// Pass 8: capacities of leaf groups and pods; returns its warnings.
[[nodiscard]] std::vector<std::string> fill_capacities(Fabric& fabric, const Assembled& assembled);

}  // namespace fabricfit::passes
