// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 4: ClassifiedFabric + Tiers -> Rails: hosts, their compute HCAs and rails.
// Rails come from HCA names: within one naming family ("mlx5_", "HCA-") the distinct
// indices in ascending order are rails 0, 1, ... (HCA-1,2,5,6 and mlx5_0,1,4,5 are both
// rails 0-3). Each leaf takes the rail most of its HCAs have; an HCA on a leaf of
// another rail is miscabled and reported.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/hostlist.hpp"
#include "topology/fabric_warnings.hpp"
#include "topology/passes/pass_text.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit::passes {
namespace {

using Nameless = std::map<CaRole, std::map<int, std::vector<int>>>;  // role -> switch -> ports

// One line per kind: where the nameless CAs are, by switch and port.
void report_nameless(const ClassifiedFabric& f, const Nameless& nameless,
                     const std::vector<std::string>& elsewhere, std::vector<std::string>& warnings) {
  for (const auto& [role, per_switch] : nameless) {
    std::vector<std::pair<std::string, std::vector<int>>> places;
    std::size_t total = 0;
    for (const auto& [sw, ports] : per_switch) {
      std::vector<int> numbers = ports;
      std::sort(numbers.begin(), numbers.end());
      places.emplace_back(f.nodes[sw].name, std::move(numbers));
      total += ports.size();
    }
    std::sort(places.begin(), places.end());
    std::vector<std::string> where;
    for (const auto& [name, ports] : places) {
      where.push_back(fmt::format("{} port{} {}", name, ports.size() > 1 ? "s" : "", fmt::join(ports, ",")));
    }
    const std::string list = join(where, "; ");
    switch (role) {
      case CaRole::Unnamed:
        warnings.push_back(format_warning(
            WarningKind::UnnamedHca,
            fmt::format("{} HCA(s) have the firmware default description, so no host name is known (set "
                        "their node description or name them in a node-name-map): {}",
                        total, list)));
        break;
      case CaRole::DefaultHostName:
        warnings.push_back(format_warning(
            WarningKind::DefaultHostName,
            fmt::format("{} HCA(s) of host(s) calling themselves by a default name such as \"localhost\" "
                        "are not placed: {}",
                        total, list)));
        break;
      default:
        warnings.push_back(format_warning(
            WarningKind::UnmatchedName,
            fmt::format("{} CA(s) whose description does not match the host-name pattern are not placed: {}",
                        total, list)));
        break;
    }
  }
  if (!elsewhere.empty()) {
    warnings.push_back(format_warning(WarningKind::UnnamedHca,
                                      fmt::format("{} CA(s) without a host name and not on a switch: {}",
                                                  elsewhere.size(), join_some(elsewhere))));
  }
}

}  // namespace

Rails assign_rails(const ClassifiedFabric& f, const Tiers& tiers) {
  Rails out;
  const int count = f.count();
  out.rail.assign(count, kNone);
  out.host.assign(count, kNone);
  out.leaf.assign(count, kNone);
  const auto warn = [&](WarningKind k, const std::string& m) {
    out.warnings.push_back(format_warning(k, m));
  };

  std::map<std::string, std::vector<int>> hosts;  // name -> compute HCAs
  std::map<std::string, int> non_compute;
  Nameless nameless;
  std::vector<std::string> nameless_elsewhere;
  std::set<std::string> excluded;
  for (int i = 0; i < count; ++i) {
    const ClassifiedNode& n = f.nodes[i];
    if (n.type != NodeType::Ca) continue;
    const int first_peer = n.cables.empty() ? kNone : f.cables[n.cables.front()].other_end(i);
    if (first_peer != kNone && f.is_switch(first_peer) && tiers.of[first_peer] == SwitchTier::Leaf)
      out.leaf[i] = first_peer;
    switch (n.role) {
      case CaRole::Compute: hosts[n.host_name].push_back(i); break;
      case CaRole::NonCompute: ++non_compute[n.hca_name]; break;
      case CaRole::Unnamed:
      case CaRole::DefaultHostName:
      case CaRole::Unmatched:
        if (first_peer != kNone && f.is_switch(first_peer)) {
          nameless[n.role][first_peer].push_back(f.cables[n.cables.front()].port_at(first_peer));
        } else {
          nameless_elsewhere.push_back(fmt::format("{} ({:#x})", n.name, n.guid));
        }
        break;
      case CaRole::Excluded: excluded.insert(n.host_name); break;
      case CaRole::Sharp: break;
    }
  }
  report_nameless(f, nameless, nameless_elsewhere, out.warnings);
  if (!non_compute.empty()) {
    std::vector<std::string> parts;
    int total = 0;
    for (const auto& [hca, k] : non_compute) {
      parts.push_back(fmt::format("{} x{}", hca.empty() ? "(no HCA name)" : hca, k));
      total += k;
    }
    warn(WarningKind::NonComputeHca,
         fmt::format(
             "{} HCA(s) do not match the compute-HCA pattern and are kept out of the compute graph: {}",
             total, join_some(parts)));
  }
  if (f.sharp_nodes > 0) {
    warn(
        WarningKind::SharpNodes,
        fmt::format("{} SHARP aggregation node(s) (\"Aggregation Node\" CAs inside the switches): not hosts; "
                    "the fabric can run SHARP in-network reductions (NCCL CollNet)",
                    f.sharp_nodes));
  }
  if (!excluded.empty()) {
    warn(WarningKind::ExcludedHost,
         fmt::format("{} host(s) are not compute hosts ({}) and are kept out of the compute graph: {}",
                     excluded.size(), f.compute_rule, compress_hostlist({excluded.begin(), excluded.end()})));
  }
  if (!f.slurm_nodes_missing.empty()) {
    warn(WarningKind::SlurmNodeNotInFabric,
         fmt::format("{} Slurm node(s) have no HCA in the fabric: {}", f.slurm_nodes_missing.size(),
                     compress_hostlist(f.slurm_nodes_missing)));
  }
  if (hosts.empty()) warn(WarningKind::NoHosts, "no CA names a compute host: there is nothing to place on");

  // Rank of each HCA name within its family.
  std::map<std::string, std::set<long>> families;
  for (const auto& [host, hcas] : hosts) {
    for (int h : hcas) {
      if (f.nodes[h].hca_name.empty()) continue;
      const HcaOrdinal o = hca_ordinal(f.nodes[h].hca_name);
      families[o.prefix].insert(o.number);
    }
  }
  const auto name_rank = [&](int h) -> int {
    if (f.nodes[h].hca_name.empty()) return kNone;
    const HcaOrdinal o = hca_ordinal(f.nodes[h].hca_name);
    const auto& numbers = families.at(o.prefix);
    return static_cast<int>(std::distance(numbers.begin(), numbers.find(o.number)));
  };
  std::vector<int> rank(count, kNone);
  std::map<int, std::map<int, int>> votes;  // leaf -> rank -> HCAs
  for (const auto& [host, hcas] : hosts) {
    for (int h : hcas) {
      rank[h] = name_rank(h);
      if (rank[h] != kNone && out.leaf[h] != kNone) ++votes[out.leaf[h]][rank[h]];
    }
  }
  std::map<int, int> leaf_rank;
  std::set<int> ranks_used;
  for (const auto& [leaf, counts] : votes) {
    int best = kNone, n = 0;
    for (const auto& [r, k] : counts) {
      if (k > n) best = r, n = k;  // ties: the lower rank (seen first)
    }
    leaf_rank[leaf] = best;
    ranks_used.insert(best);
  }
  std::map<int, int> rail_of_rank;
  for (int r : ranks_used) rail_of_rank.emplace(r, static_cast<int>(rail_of_rank.size()));
  out.rails = static_cast<int>(rail_of_rank.size());
  for (int i = 0; i < count; ++i) {
    if (!f.is_switch(i) || tiers.of[i] != SwitchTier::Leaf) continue;
    const auto lr = leaf_rank.find(i);
    if (lr != leaf_rank.end())
      out.rail[i] = rail_of_rank.at(lr->second);
    else if (out.rails == 1 && !f.nodes[i].cables.empty())
      out.rail[i] = 0;
  }

  std::vector<std::string> mismatches, two_leaves, duplicates;
  for (auto& [host_name, hcas] : hosts) {
    std::sort(hcas.begin(), hcas.end(), [&](int x, int y) {
      return std::tuple(hca_ordinal(f.nodes[x].hca_name), f.nodes[x].name, f.nodes[x].guid) <
             std::tuple(hca_ordinal(f.nodes[y].hca_name), f.nodes[y].name, f.nodes[y].guid);
    });
    const int host = static_cast<int>(out.hosts.size());
    HostRecord hi;
    hi.name = host_name;
    hi.hcas.assign(static_cast<std::size_t>(out.rails), kNone);
    std::set<std::string> seen;
    for (int h : hcas) {
      const ClassifiedNode& n = f.nodes[h];
      const int leaf = out.leaf[h];
      out.host[h] = host;
      hi.all_hcas.push_back(h);
      if (!seen.insert(n.hca_name).second) duplicates.push_back(fmt::format("{} ({:#x})", n.name, n.guid));
      const int leaf_rail = leaf != kNone ? out.rail[leaf] : kNone;
      const auto by_name = rail_of_rank.find(rank[h]);
      int rail = by_name != rail_of_rank.end() ? by_name->second : leaf_rail;
      if (rail != kNone && leaf_rail != kNone && rail != leaf_rail) {
        mismatches.push_back(fmt::format("{} (rail {} by name) is cabled to {}, a rail-{} leaf", n.name, rail,
                                         f.nodes[leaf].name, leaf_rail));
        hi.clean = false;
      }
      if (leaf == kNone) hi.clean = false;
      if (rail != kNone && hi.hcas[rail] != kNone) {
        const int first = hi.hcas[rail];
        const int first_leaf = out.leaf[first];
        if (first_leaf != leaf && first_leaf != kNone && leaf != kNone) {
          two_leaves.push_back(fmt::format("{} on {} and {} on {} (both rail {})", f.nodes[first].name,
                                           f.nodes[first_leaf].name, n.name, f.nodes[leaf].name, rail));
        } else {
          mismatches.push_back(fmt::format("{} has no rail of its own: {} already uses rail {}", n.name,
                                           f.nodes[first].name, rail));
        }
        hi.clean = false;
        rail = kNone;
      }
      out.rail[h] = rail;
      if (rail != kNone) hi.hcas[rail] = h;
    }
    out.hosts.push_back(std::move(hi));
  }
  // Non-compute HCAs of known hosts point at their host.
  for (int i = 0; i < count; ++i) {
    const ClassifiedNode& n = f.nodes[i];
    if (n.role != CaRole::NonCompute) continue;
    const auto it = hosts.find(n.host_name);
    if (it != hosts.end()) out.host[i] = static_cast<int>(std::distance(hosts.begin(), it));
  }
  if (!mismatches.empty()) {
    warn(WarningKind::RailMismatch, fmt::format("{} HCA(s) are not on the leaf of their rail: {}",
                                                mismatches.size(), join_some(mismatches, 12)));
  }
  if (!two_leaves.empty()) {
    warn(WarningKind::TwoLeavesOneRail, fmt::format("{} host(s) are on two leaves of one rail: {}",
                                                    two_leaves.size(), join_some(two_leaves, 12)));
  }
  if (!duplicates.empty()) {
    warn(WarningKind::DuplicateHca,
         fmt::format("HCA names reported twice for one host (two machines with one host name?): {}",
                     join_some(duplicates, 12)));
  }
  return out;
}

}  // namespace fabricfit::passes
