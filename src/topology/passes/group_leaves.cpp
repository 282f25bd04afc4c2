// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 5: Rails -> LeafGroups. Leaves that the hosts cabled cleanly to every rail tie
// together: two leaves of different rails are in one group when each is the other's
// most common partner among clean hosts, so one miscabled host cannot merge two groups.
#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "topology/fabric_warnings.hpp"
#include "topology/passes/pass_text.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit::passes {
namespace {

int first_leaf(const std::vector<int>& group) {
  for (int l : group) {
    if (l != kNone) return l;
  }
  return kNone;
}

bool is_separator(char c) {
  return c == '-' || c == '_' || c == '.' || c == '/' || c == ':';
}

// A group's name: what its leaves' names share, in whole tokens ("ib-leaf-001-r0" and
// "ib-leaf-001-r1" -> "ib-leaf-001"), so it reads as one word in hostlists, environment
// variables and metric labels; the lowest-rail leaf's name when they share no token.
std::string shared_leaf_name(const std::vector<std::string>& names) {
  if (names.size() == 1) return names.front();
  std::size_t len = names.front().size();
  for (const auto& n : names) {
    std::size_t i = 0;
    while (i < len && i < n.size() && n[i] == names.front()[i]) ++i;
    len = i;
  }
  const auto ends_token = [&](std::size_t at) {
    return std::all_of(names.begin(), names.end(),
                       [&](const std::string& n) { return at == n.size() || is_separator(n[at]); });
  };
  while (len > 0 && !ends_token(len)) --len;
  while (len > 0 && is_separator(names.front()[len - 1])) --len;
  return len == 0 ? names.front() : names.front().substr(0, len);
}

// Groups, or hosts in them, without a leaf or an HCA on some rail.
void report_missing_rails(const Rails& r, const LeafGroups& g, std::vector<std::string>& warnings) {
  if (r.rails <= 1) return;
  for (std::size_t k = 0; k < g.leaves.size(); ++k) {
    std::vector<std::string> missing;
    for (int rail = 0; rail < r.rails; ++rail) {
      if (g.leaves[k][rail] == kNone) missing.push_back(std::to_string(rail));
    }
    int members = 0;
    for (int h : g.group_of_host) members += h == static_cast<int>(k) ? 1 : 0;
    if (!missing.empty()) {
      warnings.push_back(format_warning(WarningKind::MissingRail,
                                        fmt::format("leaf group {} ({} hosts) has no leaf on rail {} of {}",
                                                    g.names[k], members, join(missing), r.rails)));
    }
    std::vector<std::string> short_hosts;
    for (std::size_t h = 0; h < r.hosts.size(); ++h) {
      if (g.group_of_host[h] != static_cast<int>(k)) continue;
      std::vector<std::string> lacks;
      for (int rail = 0; rail < r.rails; ++rail) {
        if (g.leaves[k][rail] != kNone && r.hosts[h].hcas[rail] == kNone)
          lacks.push_back(std::to_string(rail));
      }
      if (!lacks.empty()) short_hosts.push_back(fmt::format("{} (rail {})", r.hosts[h].name, join(lacks)));
    }
    if (!short_hosts.empty()) {
      warnings.push_back(
          format_warning(WarningKind::MissingRail,
                         fmt::format("{} host(s) of leaf group {} have no HCA on a rail the group has: {}",
                                     short_hosts.size(), g.names[k], join_some(short_hosts))));
    }
  }
}

}  // namespace

LeafGroups group_leaves(const ClassifiedFabric& f, const Rails& r) {
  LeafGroups out;
  out.group_of_node.assign(f.count(), kNone);
  std::map<int, std::map<int, int>> partners;  // leaf -> other leaf -> clean hosts joining them
  std::map<int, int> hosts_on_leaf;
  for (const HostRecord& h : r.hosts) {
    std::set<int> leaves;
    for (int hca : h.all_hcas) {
      if (r.leaf[hca] != kNone) leaves.insert(r.leaf[hca]);
    }
    for (int l : leaves) ++hosts_on_leaf[l];
    if (!h.clean) continue;
    for (int a : leaves) {
      for (int b : leaves) {
        if (a != b) ++partners[a][b];
      }
    }
  }
  const auto best_partner = [&](int leaf, int rail) {
    int best = kNone, n = 0;
    const auto it = partners.find(leaf);
    if (it == partners.end()) return best;
    for (const auto& [other, k] : it->second) {
      if (r.rail[other] == rail && k > n) best = other, n = k;
    }
    return best;
  };
  std::map<int, int> parent;
  for (const auto& [leaf, k] : hosts_on_leaf) parent[leaf] = leaf;
  const auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [a, others] : partners) {
    for (const auto& [b, k] : others) {
      if (best_partner(a, r.rail[b]) == b && best_partner(b, r.rail[a]) == a) {
        const int ra = find(a), rb = find(b);
        if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
      }
    }
  }
  std::map<int, std::vector<int>> components;
  for (const auto& [leaf, k] : hosts_on_leaf) components[find(leaf)].push_back(leaf);

  // One leaf per rail in a group: should mutual partners chain two leaves of one rail
  // together, the one with fewer hosts becomes a group of its own.
  std::vector<std::vector<int>> groups;
  const int rails = std::max(r.rails, 1);
  std::vector<std::string> split;
  for (auto& [root, leaves] : components) {
    std::sort(leaves.begin(), leaves.end(), [&](int x, int y) {
      return std::tuple(-hosts_on_leaf[x], f.nodes[x].name) < std::tuple(-hosts_on_leaf[y], f.nodes[y].name);
    });
    std::vector<int> by_rail(static_cast<std::size_t>(rails), kNone);
    for (int l : leaves) {
      const int rail = std::max(r.rail[l], 0);
      if (by_rail[rail] == kNone) {
        by_rail[rail] = l;
      } else {
        split.push_back(fmt::format("{} and {}", f.nodes[by_rail[rail]].name, f.nodes[l].name));
        std::vector<int> alone(static_cast<std::size_t>(rails), kNone);
        alone[rail] = l;
        groups.push_back(std::move(alone));
      }
    }
    groups.push_back(std::move(by_rail));
  }
  if (!split.empty()) {
    out.warnings.push_back(format_warning(
        WarningKind::TwoLeavesOneRail,
        fmt::format("hosts tie two leaves of one rail into one group; kept apart: {}", join_some(split))));
  }
  std::sort(groups.begin(), groups.end(), [&](const auto& x, const auto& y) {
    return f.nodes[first_leaf(x)].name < f.nodes[first_leaf(y)].name;
  });
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string> leaf_names;
    for (int l : groups[g]) {
      if (l == kNone) continue;
      out.group_of_node[l] = static_cast<int>(g);
      leaf_names.push_back(f.nodes[l].name);
    }
    out.names.push_back(shared_leaf_name(leaf_names));
  }
  // A shared prefix that two groups have in common names neither: each keeps its
  // lowest-rail leaf's name, which is unique.
  std::map<std::string, int> uses;
  for (const auto& n : out.names) ++uses[n];
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (uses[out.names[g]] > 1) out.names[g] = f.nodes[first_leaf(groups[g])].name;
  }
  out.leaves = std::move(groups);

  // Each host joins the group most of its HCAs land in.
  std::vector<std::string> spanning;
  out.group_of_host.assign(r.hosts.size(), kNone);
  for (std::size_t h = 0; h < r.hosts.size(); ++h) {
    std::map<int, int> count_by_group;
    int lowest_rail_group = kNone;
    for (int hca : r.hosts[h].all_hcas) {
      const int leaf = r.leaf[hca];
      if (leaf == kNone || out.group_of_node[leaf] == kNone) continue;
      ++count_by_group[out.group_of_node[leaf]];
      if (lowest_rail_group == kNone) lowest_rail_group = out.group_of_node[leaf];
    }
    int group = lowest_rail_group, n = count_by_group.empty() ? 0 : count_by_group[group];
    for (const auto& [g, k] : count_by_group) {
      if (k > n) group = g, n = k;
    }
    out.group_of_host[h] = group;
    if (count_by_group.size() > 1) {
      std::vector<std::string> names;
      for (const auto& [g, k] : count_by_group) names.push_back(out.names[g]);
      spanning.push_back(fmt::format("{} ({})", r.hosts[h].name, join(names, " and ")));
    }
  }
  if (!spanning.empty()) {
    out.warnings.push_back(format_warning(
        WarningKind::HostSpansLeafGroups,
        fmt::format("{} host(s) have HCAs in more than one leaf group; each is counted in the group most "
                    "of its HCAs reach: {}",
                    spanning.size(), join_some(spanning))));
  }
  report_missing_rails(r, out, out.warnings);
  return out;
}

}  // namespace fabricfit::passes
