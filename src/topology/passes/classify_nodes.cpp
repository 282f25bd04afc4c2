// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 1: RawFabric -> ClassifiedFabric. One order for the nodes whatever order the
// reader met them in; names and CA roles (node_naming.hpp); each cable once, both ends
// checked.
#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "topology/fabric_warnings.hpp"
#include "topology/passes/pass_text.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit::passes {
namespace {

// Canonical position -> raw index: switches, CAs, routers; by GUID, then description.
std::vector<int> canonical_order(const RawFabric& raw) {
  std::vector<int> order(raw.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  const auto type_rank = [](NodeType t) { return t == NodeType::Switch ? 0 : t == NodeType::Ca ? 1 : 2; };
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    const RawNode& a = raw.nodes[x];
    const RawNode& b = raw.nodes[y];
    return std::forward_as_tuple(type_rank(a.type), a.guid, a.description) <
           std::forward_as_tuple(type_rank(b.type), b.guid, b.description);
  });
  return order;
}

void name_nodes(const RawFabric& raw, const std::vector<int>& order, const NodeNamer& namer,
                ClassifiedFabric& out) {
  const auto warn = [&](WarningKind k, const std::string& m) {
    out.warnings.push_back(format_warning(k, m));
  };
  if (raw.partial) {
    warn(WarningKind::PartialDiscovery,
         fmt::format("the discovery ({}) did not reach the whole subnet{}{}", raw.origin,
                     raw.unreachable.empty() ? "" : ": ", join_some(raw.unreachable, 20)));
  }
  std::map<std::uint64_t, std::vector<std::string>> by_guid;
  std::vector<std::string> routers;
  out.nodes.resize(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const RawNode& n = raw.nodes[order[i]];
    ClassifiedNode& info = out.nodes[i];
    info.type = n.type;
    info.guid = n.guid;
    info.plane = raw.planes.empty() ? 0 : raw.planes[order[i]];
    const std::string desc = namer.description(n.guid, n.description);
    by_guid[n.guid].push_back(desc);
    switch (n.type) {
      case NodeType::Switch:
        info.kind = VertexKind::Switch;
        info.name = namer.switch_name(desc);
        break;
      case NodeType::Router:
        info.kind = VertexKind::Other;
        info.name = desc;
        routers.push_back(fmt::format("{} ({:#x})", desc, n.guid));
        break;
      case NodeType::Ca: {
        CaName ca = namer.ca_name(desc);
        info.kind = ca.role == CaRole::Compute ? VertexKind::Hca : VertexKind::Other;
        info.name = desc;
        info.role = ca.role;
        info.host_name = std::move(ca.host);
        info.hca_name = std::move(ca.hca);
        if (ca.role == CaRole::Sharp) ++out.sharp_nodes;
        break;
      }
    }
  }
  for (const auto& [guid, names] : by_guid) {
    if (names.size() > 1) {
      warn(WarningKind::DuplicateGuid,
           fmt::format("{} nodes report node GUID {:#018x}: {}", names.size(), guid, join(names)));
    }
  }
  if (!routers.empty()) {
    warn(WarningKind::Router, fmt::format("{} IB router(s) kept out of the compute graph: {}", routers.size(),
                                          join_some(routers)));
  }
}

void collect_cables(const RawFabric& raw, const std::vector<int>& order, ClassifiedFabric& out) {
  const int count = out.count();
  std::vector<int> index_of(raw.nodes.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) index_of[order[i]] = static_cast<int>(i);
  // (node, port) -> the raw port record, to check the far end.
  std::map<std::pair<int, int>, const RawPort*> ports;
  for (int i = 0; i < count; ++i) {
    for (const RawPort& p : raw.nodes[order[i]].ports) ports[{i, p.number}] = &p;
  }
  std::set<std::pair<int, int>> used;
  std::vector<std::string> problems;
  const auto end_name = [&](int node, int port) { return fmt::format("{}[{}]", out.nodes[node].name, port); };
  for (const auto& [end, port] : ports) {
    const auto [i, pnum] = end;
    if (port->peer < 0) continue;
    if (port->peer >= count) {
      problems.push_back(fmt::format("{} names a node the reader did not list", end_name(i, pnum)));
      continue;
    }
    const int j = index_of[port->peer];
    const int q = port->peer_port;
    if (j == i && q == pnum) {
      problems.push_back(fmt::format("{} is cabled to itself", end_name(i, pnum)));
      continue;
    }
    const auto far = ports.find({j, q});
    const bool confirmed = far != ports.end() && far->second->peer >= 0 && far->second->peer < count &&
                           index_of[far->second->peer] == i && far->second->peer_port == pnum;
    if (confirmed && std::pair{j, q} < end) continue;  // taken from the other end
    if (!confirmed) {
      problems.push_back(
          fmt::format("{} leads to {} but that end does not lead back", end_name(i, pnum), end_name(j, q)));
      if (used.contains({j, q})) continue;
    }
    if (used.contains({i, pnum})) continue;
    used.insert({i, pnum});
    used.insert({j, q});
    Cable c{i, pnum, j, q, port->rate};
    if (confirmed && far->second->rate.gbps() < c.rate.gbps()) c.rate = far->second->rate;
    out.cables.push_back(c);
    out.nodes[i].cables.push_back(static_cast<int>(out.cables.size()) - 1);
    out.nodes[j].cables.push_back(static_cast<int>(out.cables.size()) - 1);
  }
  if (!problems.empty()) {
    out.warnings.push_back(format_warning(
        WarningKind::InconsistentLink,
        fmt::format("{} port(s) disagree with the far end: {}", problems.size(), join_some(problems, 20))));
  }
}

}  // namespace

ClassifiedFabric classify_nodes(const RawFabric& raw, const NodeNamer& namer) {
  ClassifiedFabric out;
  out.partial = raw.partial;
  out.origin = raw.origin;
  const std::vector<int> order = canonical_order(raw);
  name_nodes(raw, order, namer, out);
  collect_cables(raw, order, out);
  const ModelOptions& o = namer.options();
  std::vector<std::string> rule;
  if (!o.exclude_host_pattern.empty())
    rule.push_back(fmt::format("--exclude-host '{}'", o.exclude_host_pattern));
  if (o.compute_hosts) {
    rule.push_back(fmt::format("not in the Slurm node list{}",
                               o.compute_hosts_source.empty() ? "" : " " + o.compute_hosts_source));
    std::set<std::string> seen;
    for (const ClassifiedNode& n : out.nodes) {
      if (!n.host_name.empty()) seen.insert(n.host_name);
    }
    for (const auto& name : *o.compute_hosts) {
      if (!seen.contains(name)) out.slurm_nodes_missing.push_back(name);
    }
  }
  out.compute_rule = join(rule, " or ");
  return out;
}

}  // namespace fabricfit::passes
