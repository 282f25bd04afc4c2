// SPDX-License-Identifier: GPL-2.0-or-later
// build_fabric(): runs the passes of src/topology/passes/ in order (passes.hpp draws the
// pipeline) and gathers their findings into Fabric::warnings in that order.
// docs/fabric-model.md explains the rules.
#include "topology/fabric_builder.hpp"

#include "topology/node_naming.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit {
namespace {

void append(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

Fabric build_fabric(const RawFabric& raw, const ModelOptions& options) {
  using namespace passes;
  const NodeNamer namer(options);
  Fabric fabric;  // built in place and returned by NRVO: no copy
  const ClassifiedFabric nodes = classify_nodes(raw, namer);
  const Tiers tiers = derive_tiers(nodes);
  const std::vector<std::string> islands = find_islands(nodes);
  const Rails rails = assign_rails(nodes, tiers);
  const LeafGroups groups = group_leaves(nodes, rails);
  const Pods pods = derive_pods(nodes, tiers, groups);
  for (const auto* w : {&nodes.warnings, &tiers.warnings, &islands, &rails.warnings, &groups.warnings}) {
    append(fabric.warnings, *w);
  }
  const Assembled assembled = assemble_graph(nodes, tiers, rails, groups, pods, fabric);
  append(fabric.warnings, fill_capacities(fabric, assembled));
  return fabric;
}

}  // namespace fabricfit
