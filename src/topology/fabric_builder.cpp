// SPDX-License-Identifier: GPL-2.0-or-later
// build_fabric(): the steps run in the order of Builder::build(); each reads what the
// ones before it derived. docs/fabric-model.md explains the rules.
#include "topology/fabric_builder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "topology/fabric_warnings.hpp"
#include "topology/link_health.hpp"
#include "topology/node_naming.hpp"

namespace fabricfit {
namespace {

constexpr int kNone = -1;
constexpr int kFar = std::numeric_limits<int>::max();

// One cable, between two ends of the (canonically ordered) raw nodes.
struct Cable {
  int a = 0, port_a = 0, b = 0, port_b = 0;
  LinkRate rate;
};

struct NodeInfo {
  VertexKind kind = VertexKind::Other;
  std::string name;
  CaRole role = CaRole::Unnamed;  // CAs
  std::string host_name;          // CAs of a known host
  std::string hca_name;
  SwitchTier tier = SwitchTier::None;
  int rail = kNone;
  int host = kNone;
  int leaf_group = kNone;
  int pod = kNone;
  int leaf = kNone;  // CAs: the switch its first cable reaches, when that is a leaf
  std::vector<int> cables;
};

std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// At most `limit` items, then "and N more".
std::string join_some(const std::vector<std::string>& items, std::size_t limit = 8) {
  if (items.size() <= limit) return join(items);
  std::vector<std::string> head(items.begin(), items.begin() + static_cast<long>(limit));
  return fmt::format("{} and {} more", join(head), items.size() - limit);
}

int tier_level(SwitchTier t) {
  switch (t) {
    case SwitchTier::Leaf: return 1;
    case SwitchTier::Spine: return 2;
    case SwitchTier::Core: return 3;
    case SwitchTier::None: return 4;
  }
  return 4;
}

const char* tier_name(SwitchTier t) {
  switch (t) {
    case SwitchTier::Leaf: return "leaf";
    case SwitchTier::Spine: return "spine";
    case SwitchTier::Core: return "core";
    case SwitchTier::None: return "untiered";
  }
  return "?";
}

// The most common value; ties go to the larger one.
template <typename T>
T mode_of(const std::map<T, int>& counts) {
  T best{};
  int n = -1;
  for (const auto& [value, count] : counts) {
    if (count >= n) {
      best = value;
      n = count;
    }
  }
  return best;
}

class Builder {
 public:
  // Builds into `out`: Boost 1.74's adjacency_list has no move constructor, so a Fabric
  // moved is a Fabric copied; build_fabric() returns the one it made in place.
  Builder(const RawFabric& raw, const ModelOptions& options, Fabric& out)
      : namer_(options), raw_(raw), fabric_(out) {}

  void build() {
    order_nodes();
    name_nodes();
    collect_cables();
    derive_tiers();
    find_islands();
    derive_hosts_and_rails();
    derive_leaf_groups();
    derive_pods();
    emit();
  }

 private:
  // ---- 1. one order for the nodes, whatever order the reader met them in ----
  void order_nodes() {
    order_.resize(raw_.nodes.size());
    std::iota(order_.begin(), order_.end(), 0);
    const auto type_rank = [](NodeType t) { return t == NodeType::Switch ? 0 : t == NodeType::Ca ? 1 : 2; };
    std::stable_sort(order_.begin(), order_.end(), [&](int x, int y) {
      const RawNode& a = raw_.nodes[x];
      const RawNode& b = raw_.nodes[y];
      return std::forward_as_tuple(type_rank(a.type), a.guid, a.description) <
             std::forward_as_tuple(type_rank(b.type), b.guid, b.description);
    });
    index_of_.assign(raw_.nodes.size(), 0);
    for (std::size_t i = 0; i < order_.size(); ++i) index_of_[order_[i]] = static_cast<int>(i);
    info_.resize(order_.size());
  }
  const RawNode& raw(int i) const { return raw_.nodes[order_[i]]; }
  int count() const { return static_cast<int>(order_.size()); }
  bool is_switch(int i) const { return info_[i].kind == VertexKind::Switch; }

  // ---- 2. names, and what each CA is ----
  void name_nodes() {
    if (raw_.partial) {
      warn(WarningKind::PartialDiscovery,
           fmt::format("the discovery ({}) did not reach the whole subnet{}{}", raw_.origin,
                       raw_.unreachable.empty() ? "" : ": ", join_some(raw_.unreachable, 20)));
    }
    std::map<std::uint64_t, std::vector<std::string>> by_guid;
    std::vector<std::string> routers;
    for (int i = 0; i < count(); ++i) {
      const RawNode& n = raw(i);
      NodeInfo& info = info_[i];
      const std::string desc = namer_.description(n.guid, n.description);
      by_guid[n.guid].push_back(desc);
      switch (n.type) {
        case NodeType::Switch:
          info.kind = VertexKind::Switch;
          info.name = namer_.switch_name(desc);
          break;
        case NodeType::Router:
          info.kind = VertexKind::Other;
          info.name = desc;
          routers.push_back(fmt::format("{} ({:#x})", desc, n.guid));
          break;
        case NodeType::Ca: {
          CaName ca = namer_.ca_name(desc);
          info.kind = ca.role == CaRole::Compute ? VertexKind::Hca : VertexKind::Other;
          info.name = desc;
          info.role = ca.role;
          info.host_name = std::move(ca.host);
          info.hca_name = std::move(ca.hca);
          if (ca.role == CaRole::Sharp) ++fabric_.sharp_nodes;
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
      warn(WarningKind::Router, fmt::format("{} IB router(s) kept out of the compute graph: {}",
                                            routers.size(), join_some(routers)));
    }
  }

  // ---- 3. cables: each once, both ends checked ----
  void collect_cables() {
    // (node, port) -> the raw port record, to check the far end.
    std::map<std::pair<int, int>, const RawPort*> ports;
    for (int i = 0; i < count(); ++i) {
      for (const RawPort& p : raw(i).ports) ports[{i, p.number}] = &p;
    }
    std::set<std::pair<int, int>> used;
    std::vector<std::string> problems;
    const auto end_name = [&](int node, int port) { return fmt::format("{}[{}]", info_[node].name, port); };
    for (const auto& [end, port] : ports) {
      const auto [i, pnum] = end;
      if (port->peer < 0) continue;
      if (port->peer >= count()) {
        problems.push_back(fmt::format("{} names a node the reader did not list", end_name(i, pnum)));
        continue;
      }
      const int j = index_of_[port->peer];
      const int q = port->peer_port;
      if (j == i && q == pnum) {
        problems.push_back(fmt::format("{} is cabled to itself", end_name(i, pnum)));
        continue;
      }
      const auto far = ports.find({j, q});
      const bool confirmed = far != ports.end() && far->second->peer >= 0 && far->second->peer < count() &&
                             index_of_[far->second->peer] == i && far->second->peer_port == pnum;
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
      cables_.push_back(c);
      info_[i].cables.push_back(static_cast<int>(cables_.size()) - 1);
      info_[j].cables.push_back(static_cast<int>(cables_.size()) - 1);
    }
    if (!problems.empty()) {
      warn(WarningKind::InconsistentLink,
           fmt::format("{} port(s) disagree with the far end: {}", problems.size(), join_some(problems, 20)));
    }
  }
  int other_end(const Cable& c, int node) const { return c.a == node ? c.b : c.a; }
  int port_at(const Cable& c, int node) const { return c.a == node ? c.port_a : c.port_b; }

  // ---- 4. tiers: leaves have compute HCAs; spines and cores by distance above them ----
  void derive_tiers() {
    std::vector<char> candidate(count(), 0), has_other_ca(count(), 0);
    for (int i = 0; i < count(); ++i) {
      if (!is_switch(i)) continue;
      for (int c : info_[i].cables) {
        const int peer = other_end(cables_[c], i);
        if (raw(peer).type != NodeType::Ca) continue;
        const CaRole role = info_[peer].role;
        if (role == CaRole::Compute || role == CaRole::Unnamed || role == CaRole::DefaultHostName ||
            role == CaRole::Unmatched) {
          candidate[i] = 1;
        } else if (role == CaRole::NonCompute) {
          has_other_ca[i] = 1;
        }
      }
    }
    // Hosts cabled straight into a spine make it look like a leaf: a "leaf" whose switch
    // neighbours are all leaves (two or more) is a spine with hosts on it.
    std::vector<std::string> on_spine;
    std::vector<char> leaf = candidate;
    for (int i = 0; i < count(); ++i) {
      if (!candidate[i]) continue;
      std::set<int> leaf_peers;
      bool other_peer = false;
      for (int c : info_[i].cables) {
        const int peer = other_end(cables_[c], i);
        if (!is_switch(peer)) continue;
        if (candidate[peer])
          leaf_peers.insert(peer);
        else
          other_peer = true;
      }
      if (leaf_peers.size() >= 2 && !other_peer) {
        leaf[i] = 0;
        on_spine.push_back(info_[i].name);
      }
    }
    if (!on_spine.empty()) {
      warn(WarningKind::HostOnSpine, fmt::format("CAs are cabled straight to spine switch(es) {}: they are "
                                                 "not placed as hosts of a leaf",
                                                 join_some(on_spine)));
    }

    // Breadth-first from every leaf over switch-to-switch cables.
    std::vector<int> dist(count(), kFar);
    std::deque<int> queue;
    for (int i = 0; i < count(); ++i) {
      if (leaf[i]) {
        dist[i] = 0;
        queue.push_back(i);
      }
    }
    while (!queue.empty()) {
      const int s = queue.front();
      queue.pop_front();
      for (int c : info_[s].cables) {
        const int peer = other_end(cables_[c], s);
        if (is_switch(peer) && dist[peer] == kFar) {
          dist[peer] = dist[s] + 1;
          queue.push_back(peer);
        }
      }
    }
    std::vector<std::string> too_far;
    int top = 0;
    for (int i = 0; i < count(); ++i) {
      if (!is_switch(i)) continue;
      SwitchTier& tier = info_[i].tier;
      // A switch with only storage or management HCAs, not next to a leaf, is a leaf of
      // its own (in no leaf group).
      if (dist[i] == 0 || (dist[i] != 1 && has_other_ca[i])) {
        tier = SwitchTier::Leaf;
      } else if (dist[i] == 1) {
        tier = SwitchTier::Spine;
      } else if (dist[i] == 2) {
        tier = SwitchTier::Core;
      } else if (dist[i] != kFar) {
        too_far.push_back(fmt::format("{} ({} hops)", info_[i].name, dist[i]));
      }
      if (tier != SwitchTier::None) top = std::max(top, tier_level(tier));
    }
    fabric_.tiers = top;
    if (!too_far.empty()) {
      warn(WarningKind::TooManyTiers,
           fmt::format(
               "switch(es) more than two hops above the nearest leaf, not a two- or three-tier Clos: {}",
               join_some(too_far)));
    }

    int switches = 0;
    std::vector<std::string> lonely, loops;
    for (int i = 0; i < count(); ++i) switches += is_switch(i) ? 1 : 0;
    for (int i = 0; i < count(); ++i) {
      if (!is_switch(i) || info_[i].tier != SwitchTier::Leaf || !leaf[i]) continue;
      const bool up = std::any_of(info_[i].cables.begin(), info_[i].cables.end(),
                                  [&](int c) { return is_switch(other_end(cables_[c], i)); });
      if (!up && switches > 1) lonely.push_back(info_[i].name);
    }
    for (const Cable& c : cables_) {
      if (is_switch(c.a) && is_switch(c.b) && info_[c.a].tier == info_[c.b].tier &&
          info_[c.a].tier != SwitchTier::None) {
        loops.push_back(fmt::format("{}[{}] - {}[{}] ({})", info_[c.a].name, c.port_a, info_[c.b].name,
                                    c.port_b, tier_name(info_[c.a].tier)));
      }
    }
    if (!lonely.empty()) {
      warn(WarningKind::LeafWithoutUplink,
           fmt::format("{} leaf switch(es) reach no spine: {}", lonely.size(), join_some(lonely)));
    }
    if (!loops.empty()) {
      warn(WarningKind::SwitchLoop,
           fmt::format("{} cable(s) join switches of the same tier: {}", loops.size(), join_some(loops)));
    }
  }

  // ---- 5. parts of the subnet not connected to the rest ----
  void find_islands() {
    std::vector<int> component(count(), kNone);
    std::vector<std::vector<int>> members;
    for (int start = 0; start < count(); ++start) {
      if (component[start] != kNone) continue;
      const int id = static_cast<int>(members.size());
      members.emplace_back();
      std::deque<int> queue{start};
      component[start] = id;
      while (!queue.empty()) {
        const int n = queue.front();
        queue.pop_front();
        members[id].push_back(n);
        for (int c : info_[n].cables) {
          const int peer = other_end(cables_[c], n);
          if (component[peer] == kNone) {
            component[peer] = id;
            queue.push_back(peer);
          }
        }
      }
    }
    if (members.size() < 2) return;
    std::size_t main = 0;
    for (std::size_t k = 1; k < members.size(); ++k) {
      if (members[k].size() > members[main].size()) main = k;
    }
    for (std::size_t k = 0; k < members.size(); ++k) {
      if (k == main) continue;
      int switches = 0;
      std::vector<std::string> names;
      for (int n : members[k]) {
        switches += is_switch(n) ? 1 : 0;
        names.push_back(info_[n].name);
      }
      std::sort(names.begin(), names.end());
      warn(WarningKind::Island,
           fmt::format("{} switch(es) and {} other node(s) are not connected to the rest of the fabric: {}",
                       switches, members[k].size() - static_cast<std::size_t>(switches), join_some(names)));
    }
  }

  // ---- 6. hosts, their HCAs and rails ----
  // Rails come from HCA names: within one naming family ("mlx5_", "HCA-") the distinct
  // indices in ascending order are rails 0, 1, ... (HCA-1,2,5,6 and mlx5_0,1,4,5 are
  // both rails 0-3). Each leaf takes the rail most of its HCAs have; an HCA on a leaf of
  // another rail is miscabled and reported.
  void derive_hosts_and_rails() {
    std::map<std::string, std::vector<int>> hosts;  // name -> compute HCAs
    std::map<std::string, int> non_compute;
    std::map<CaRole, std::map<int, std::vector<std::string>>> nameless;  // role -> switch -> "port"
    std::vector<std::string> nameless_elsewhere;
    for (int i = 0; i < count(); ++i) {
      NodeInfo& n = info_[i];
      if (raw(i).type != NodeType::Ca) continue;
      if (!n.cables.empty()) {
        const Cable& c = cables_[n.cables.front()];
        const int peer = other_end(c, i);
        if (is_switch(peer) && info_[peer].tier == SwitchTier::Leaf) n.leaf = peer;
      }
      switch (n.role) {
        case CaRole::Compute: hosts[n.host_name].push_back(i); break;
        case CaRole::NonCompute: ++non_compute[n.hca_name]; break;
        case CaRole::Unnamed:
        case CaRole::DefaultHostName:
        case CaRole::Unmatched: {
          if (!n.cables.empty() && is_switch(other_end(cables_[n.cables.front()], i))) {
            const Cable& c = cables_[n.cables.front()];
            const int sw = other_end(c, i);
            nameless[n.role][sw].push_back(std::to_string(port_at(c, sw)));
          } else {
            nameless_elsewhere.push_back(fmt::format("{} ({:#x})", n.name, raw(i).guid));
          }
          break;
        }
        case CaRole::Sharp: break;
      }
    }
    report_nameless(nameless, nameless_elsewhere);
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
    if (fabric_.sharp_nodes > 0) {
      warn(WarningKind::SharpNodes,
           fmt::format(
               "{} SHARP aggregation node(s) (\"Aggregation Node\" CAs inside the switches): not hosts; "
               "the fabric can run SHARP in-network reductions (NCCL CollNet)",
               fabric_.sharp_nodes));
    }
    if (hosts.empty()) warn(WarningKind::NoHosts, "no CA names a compute host: there is nothing to place on");

    // Rank of each HCA name within its family.
    std::map<std::string, std::set<long>> families;
    for (const auto& [host, hcas] : hosts) {
      for (int h : hcas) {
        if (info_[h].hca_name.empty()) continue;
        const HcaOrdinal o = hca_ordinal(info_[h].hca_name);
        families[o.prefix].insert(o.number);
      }
    }
    const auto name_rank = [&](int h) -> int {
      if (info_[h].hca_name.empty()) return kNone;
      const HcaOrdinal o = hca_ordinal(info_[h].hca_name);
      const auto& numbers = families.at(o.prefix);
      return static_cast<int>(std::distance(numbers.begin(), numbers.find(o.number)));
    };
    std::vector<int> rank(count(), kNone);
    std::map<int, std::map<int, int>> votes;  // leaf -> rank -> HCAs
    for (const auto& [host, hcas] : hosts) {
      for (int h : hcas) {
        rank[h] = name_rank(h);
        if (rank[h] != kNone && info_[h].leaf != kNone) ++votes[info_[h].leaf][rank[h]];
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
    fabric_.rails = static_cast<int>(rail_of_rank.size());
    for (int i = 0; i < count(); ++i) {
      if (!is_switch(i) || info_[i].tier != SwitchTier::Leaf) continue;
      const auto lr = leaf_rank.find(i);
      if (lr != leaf_rank.end())
        info_[i].rail = rail_of_rank.at(lr->second);
      else if (fabric_.rails == 1 && !info_[i].cables.empty())
        info_[i].rail = 0;
    }

    std::vector<std::string> mismatches, two_leaves, duplicates;
    for (auto& [host_name, hcas] : hosts) {
      std::sort(hcas.begin(), hcas.end(), [&](int x, int y) {
        return std::tuple(hca_ordinal(info_[x].hca_name), info_[x].name, raw(x).guid) <
               std::tuple(hca_ordinal(info_[y].hca_name), info_[y].name, raw(y).guid);
      });
      const int host = static_cast<int>(hosts_.size());
      HostInfo hi;
      hi.name = host_name;
      hi.hcas.assign(static_cast<std::size_t>(fabric_.rails), kNone);
      std::set<std::string> seen;
      for (int h : hcas) {
        NodeInfo& n = info_[h];
        n.host = host;
        hi.all_hcas.push_back(h);
        if (!seen.insert(n.hca_name).second) {
          duplicates.push_back(fmt::format("{} ({:#x})", n.name, raw(h).guid));
        }
        const int leaf_rail = n.leaf != kNone ? info_[n.leaf].rail : kNone;
        const auto by_name = rail_of_rank.find(rank[h]);
        int rail = by_name != rail_of_rank.end() ? by_name->second : leaf_rail;
        if (rail != kNone && leaf_rail != kNone && rail != leaf_rail) {
          mismatches.push_back(fmt::format("{} (rail {} by name) is cabled to {}, a rail-{} leaf", n.name,
                                           rail, info_[n.leaf].name, leaf_rail));
          hi.clean = false;
        }
        if (n.leaf == kNone) hi.clean = false;
        if (rail != kNone && hi.hcas[rail] != kNone) {
          const NodeInfo& first = info_[hi.hcas[rail]];
          if (first.leaf != n.leaf && first.leaf != kNone && n.leaf != kNone) {
            two_leaves.push_back(fmt::format("{} on {} and {} on {} (both rail {})", first.name,
                                             info_[first.leaf].name, n.name, info_[n.leaf].name, rail));
          } else {
            mismatches.push_back(
                fmt::format("{} has no rail of its own: {} already uses rail {}", n.name, first.name, rail));
          }
          hi.clean = false;
          rail = kNone;
        }
        n.rail = rail;
        if (rail != kNone) hi.hcas[rail] = h;
      }
      hosts_.push_back(std::move(hi));
    }
    // Non-compute HCAs of known hosts point at their host.
    for (int i = 0; i < count(); ++i) {
      NodeInfo& n = info_[i];
      if (n.role != CaRole::NonCompute) continue;
      const auto it = hosts.find(n.host_name);
      if (it != hosts.end()) n.host = static_cast<int>(std::distance(hosts.begin(), it));
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
  }

  // One line per kind: where the nameless CAs are, by switch and port.
  void report_nameless(const std::map<CaRole, std::map<int, std::vector<std::string>>>& nameless,
                       const std::vector<std::string>& elsewhere) {
    for (const auto& [role, per_switch] : nameless) {
      std::vector<std::pair<std::string, std::vector<int>>> places;
      std::size_t total = 0;
      for (const auto& [sw, ports] : per_switch) {
        std::vector<int> numbers;
        for (const auto& p : ports) numbers.push_back(std::stoi(p));
        std::sort(numbers.begin(), numbers.end());
        places.emplace_back(info_[sw].name, std::move(numbers));
        total += ports.size();
      }
      std::sort(places.begin(), places.end());
      std::vector<std::string> where;
      for (const auto& [name, ports] : places) {
        where.push_back(
            fmt::format("{} port{} {}", name, ports.size() > 1 ? "s" : "", fmt::join(ports, ",")));
      }
      const std::string list = join(where, "; ");
      switch (role) {
        case CaRole::Unnamed:
          warn(WarningKind::UnnamedHca,
               fmt::format("{} HCA(s) have the firmware default description, so no host name is known (set "
                           "their node description or name them in a node-name-map): {}",
                           total, list));
          break;
        case CaRole::DefaultHostName:
          warn(WarningKind::DefaultHostName,
               fmt::format("{} HCA(s) of host(s) calling themselves by a default name such as \"localhost\" "
                           "are not placed: {}",
                           total, list));
          break;
        default:
          warn(WarningKind::UnmatchedName,
               fmt::format(
                   "{} CA(s) whose description does not match the host-name pattern are not placed: {}",
                   total, list));
          break;
      }
    }
    if (!elsewhere.empty()) {
      warn(WarningKind::UnnamedHca, fmt::format("{} CA(s) without a host name and not on a switch: {}",
                                                elsewhere.size(), join_some(elsewhere)));
    }
  }

  // ---- 7. leaf groups: leaves that the hosts cabled cleanly to every rail tie together ----
  // Two leaves of different rails are in one group when each is the other's most common
  // partner among clean hosts; one miscabled host cannot merge two groups.
  void derive_leaf_groups() {
    std::map<int, std::map<int, int>> partners;  // leaf -> other leaf -> clean hosts joining them
    std::map<int, int> hosts_on_leaf;
    for (const HostInfo& h : hosts_) {
      std::set<int> leaves;
      for (int hca : h.all_hcas) {
        if (info_[hca].leaf != kNone) leaves.insert(info_[hca].leaf);
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
        if (info_[other].rail == rail && k > n) best = other, n = k;
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
        if (best_partner(a, info_[b].rail) == b && best_partner(b, info_[a].rail) == a) {
          const int ra = find(a), rb = find(b);
          if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
        }
      }
    }
    std::map<int, std::vector<int>> components;
    for (const auto& [leaf, k] : hosts_on_leaf) components[find(leaf)].push_back(leaf);

    // One leaf per rail in a group: should mutual partners chain two leaves of one rail
    // together, the one with fewer hosts becomes a group of its own.
    std::vector<std::vector<int>> groups;  // leaves by rail, kNone where missing
    const int rails = std::max(fabric_.rails, 1);
    std::vector<std::string> split;
    for (auto& [root, leaves] : components) {
      std::sort(leaves.begin(), leaves.end(), [&](int x, int y) {
        return std::tuple(-hosts_on_leaf[x], info_[x].name) < std::tuple(-hosts_on_leaf[y], info_[y].name);
      });
      std::vector<int> by_rail(static_cast<std::size_t>(rails), kNone);
      for (int l : leaves) {
        const int r = std::max(info_[l].rail, 0);
        if (by_rail[r] == kNone) {
          by_rail[r] = l;
        } else {
          split.push_back(fmt::format("{} and {}", info_[by_rail[r]].name, info_[l].name));
          std::vector<int> alone(static_cast<std::size_t>(rails), kNone);
          alone[r] = l;
          groups.push_back(std::move(alone));
        }
      }
      groups.push_back(std::move(by_rail));
    }
    if (!split.empty()) {
      warn(WarningKind::TwoLeavesOneRail,
           fmt::format("hosts tie two leaves of one rail into one group; kept apart: {}", join_some(split)));
    }
    const auto first_leaf = [](const std::vector<int>& g) {
      for (int l : g) {
        if (l != kNone) return l;
      }
      return kNone;
    };
    std::sort(groups.begin(), groups.end(), [&](const auto& x, const auto& y) {
      return info_[first_leaf(x)].name < info_[first_leaf(y)].name;
    });

    for (std::size_t g = 0; g < groups.size(); ++g) {
      LeafGroup lg;
      int present = 0;
      for (int l : groups[g]) {
        if (l != kNone) {
          info_[l].leaf_group = static_cast<int>(g);
          ++present;
        }
      }
      lg.name = info_[first_leaf(groups[g])].name;
      if (fabric_.rails > 1 && present > 1) lg.name += fmt::format(" +{} rails", present - 1);
      fabric_.leaf_groups.push_back(std::move(lg));
    }
    group_leaves_ = std::move(groups);

    // Each host joins the group most of its HCAs land in.
    std::vector<std::string> spanning;
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
      std::map<int, int> count_by_group;
      int lowest_rail_group = kNone;
      for (int hca : hosts_[h].all_hcas) {
        const int leaf = info_[hca].leaf;
        if (leaf == kNone || info_[leaf].leaf_group == kNone) continue;
        ++count_by_group[info_[leaf].leaf_group];
        if (lowest_rail_group == kNone) lowest_rail_group = info_[leaf].leaf_group;
      }
      int group = lowest_rail_group, n = count_by_group.empty() ? 0 : count_by_group[group];
      for (const auto& [g, k] : count_by_group) {
        if (k > n) group = g, n = k;
      }
      hosts_[h].leaf_group = group;
      if (count_by_group.size() > 1) {
        std::vector<std::string> names;
        for (const auto& [g, k] : count_by_group) names.push_back(fabric_.leaf_groups[g].name);
        spanning.push_back(fmt::format("{} ({})", hosts_[h].name, join(names, " and ")));
      }
    }
    if (!spanning.empty()) {
      warn(WarningKind::HostSpansLeafGroups,
           fmt::format("{} host(s) have HCAs in more than one leaf group; each is counted in the group most "
                       "of its HCAs reach: {}",
                       spanning.size(), join_some(spanning)));
    }

    // Rails a group, or a host in it, lacks.
    if (fabric_.rails > 1) {
      for (std::size_t g = 0; g < group_leaves_.size(); ++g) {
        std::vector<std::string> missing;
        for (int r = 0; r < fabric_.rails; ++r) {
          if (group_leaves_[g][r] == kNone) missing.push_back(std::to_string(r));
        }
        int members = 0;
        for (const HostInfo& h : hosts_) members += h.leaf_group == static_cast<int>(g) ? 1 : 0;
        if (!missing.empty()) {
          warn(WarningKind::MissingRail,
               fmt::format("leaf group {} ({} hosts) has no leaf on rail {} of {}",
                           fabric_.leaf_groups[g].name, members, join(missing), fabric_.rails));
        }
        std::vector<std::string> short_hosts;
        for (const HostInfo& h : hosts_) {
          if (h.leaf_group != static_cast<int>(g)) continue;
          std::vector<std::string> lacks;
          for (int r = 0; r < fabric_.rails; ++r) {
            if (group_leaves_[g][r] != kNone && h.hcas[r] == kNone) lacks.push_back(std::to_string(r));
          }
          if (!lacks.empty()) short_hosts.push_back(fmt::format("{} (rail {})", h.name, join(lacks)));
        }
        if (!short_hosts.empty()) {
          warn(WarningKind::MissingRail,
               fmt::format("{} host(s) of leaf group {} have no HCA on a rail the group has: {}",
                           short_hosts.size(), fabric_.leaf_groups[g].name, join_some(short_hosts)));
        }
      }
    }
  }

  // ---- 8. pods: three-tier fabrics, leaf-spine blocks under the cores ----
  void derive_pods() {
    if (fabric_.tiers < 3) return;
    std::map<int, int> parent;
    const auto find = [&](int x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (int i = 0; i < count(); ++i) {
      if (is_switch(i) && (info_[i].tier == SwitchTier::Leaf || info_[i].tier == SwitchTier::Spine))
        parent[i] = i;
    }
    for (const Cable& c : cables_) {
      if (parent.contains(c.a) && parent.contains(c.b)) {
        const int ra = find(c.a), rb = find(c.b);
        if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
      }
    }
    std::map<int, std::vector<int>> spines_by_root;
    for (const auto& [s, p] : parent) {
      if (info_[s].tier == SwitchTier::Spine) spines_by_root[find(s)].push_back(s);
    }
    std::vector<std::pair<std::string, int>> roots;  // first spine name -> root
    for (auto& [root, spines] : spines_by_root) {
      std::sort(spines.begin(), spines.end(), [&](int x, int y) { return info_[x].name < info_[y].name; });
      roots.emplace_back(info_[spines.front()].name, root);
    }
    std::sort(roots.begin(), roots.end());
    std::map<int, int> pod_of_root;
    for (const auto& [name, root] : roots) {
      pod_of_root[root] = static_cast<int>(fabric_.pods.size());
      Pod pod;
      pod.name = fmt::format("pod-{:02d}", fabric_.pods.size() + 1);
      fabric_.pods.push_back(std::move(pod));
    }
    for (const auto& [s, p] : parent) {
      const auto it = pod_of_root.find(find(s));
      if (it != pod_of_root.end()) info_[s].pod = it->second;
    }
  }

  // ---- 9. the graph, in a fixed vertex and edge order, and the views over it ----
  void emit() {
    // Vertex order: switches (leaves, spines, cores, untiered; by name), then each host
    // followed by its compute HCAs by rail, then everything else by name.
    std::vector<int> switches, others;
    for (int i = 0; i < count(); ++i) {
      if (is_switch(i))
        switches.push_back(i);
      else if (info_[i].kind != VertexKind::Hca)
        others.push_back(i);
    }
    std::sort(switches.begin(), switches.end(), [&](int x, int y) {
      return std::tuple(tier_level(info_[x].tier), info_[x].name, raw(x).guid) <
             std::tuple(tier_level(info_[y].tier), info_[y].name, raw(y).guid);
    });
    std::sort(others.begin(), others.end(), [&](int x, int y) {
      return std::tuple(info_[x].name, raw(x).guid) < std::tuple(info_[y].name, raw(y).guid);
    });
    FabricGraph& g = fabric_.graph;
    vertex_.assign(count(), FabricGraph::null_vertex());
    const auto add_node = [&](int i) {
      const NodeInfo& n = info_[i];
      VertexProps p;
      p.kind = n.kind;
      p.name = n.name;
      p.guid = raw(i).guid;
      p.tier = n.tier;
      p.rail = n.rail;
      p.host = n.host;
      p.leaf_group = n.leaf_group;
      p.pod = n.pod;
      vertex_[i] = boost::add_vertex(p, g);
    };
    for (int s : switches) add_node(s);
    std::vector<Vertex> host_vertex;
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
      const HostInfo& hi = hosts_[h];
      VertexProps p;
      p.kind = VertexKind::Host;
      p.name = hi.name;
      p.leaf_group = hi.leaf_group;
      host_vertex.push_back(boost::add_vertex(p, g));
      std::vector<int> hcas;
      for (int r : hi.hcas) {
        if (r != kNone) hcas.push_back(r);
      }
      for (int x : hi.all_hcas) {
        if (std::find(hcas.begin(), hcas.end(), x) == hcas.end()) hcas.push_back(x);
      }
      for (int x : hcas) {
        info_[x].leaf_group = hi.leaf_group;
        add_node(x);
      }
    }
    for (int o : others) add_node(o);
    internal_.assign(boost::num_vertices(g), 0);
    down_ca_.assign(boost::num_vertices(g), 0);
    for (int i = 0; i < count(); ++i) {
      if (raw(i).type != NodeType::Ca) continue;
      (info_[i].role == CaRole::Sharp ? internal_ : down_ca_)[vertex_[i]] = 1;
    }

    // Cables by their first end in vertex order.
    struct Placed {
      Vertex a;
      int pa;
      Vertex b;
      int pb;
      int cable;
    };
    std::vector<Placed> placed;
    for (std::size_t c = 0; c < cables_.size(); ++c) {
      const Cable& k = cables_[c];
      Placed p{vertex_[k.a], k.port_a, vertex_[k.b], k.port_b, static_cast<int>(c)};
      if (std::tie(p.b, p.pb) < std::tie(p.a, p.pa)) {
        std::swap(p.a, p.b);
        std::swap(p.pa, p.pb);
      }
      placed.push_back(p);
    }
    std::sort(placed.begin(), placed.end(),
              [](const Placed& x, const Placed& y) { return std::tie(x.a, x.pa) < std::tie(y.a, y.pa); });

    const LinkHealth health = assess_links(g, cable_ends(placed), internal_);
    for (std::size_t k = 0; k < placed.size(); ++k) {
      const Placed& p = placed[k];
      LinkProps lp;
      lp.port_a = p.pa;
      lp.port_b = p.pb;
      lp.rate = cables_[p.cable].rate;
      lp.gbps = lp.rate.gbps();
      lp.expected_gbps = health.expected[k].gbps();
      boost::add_edge(p.a, p.b, lp, g);
      if (lp.degraded()) fabric_.degraded_links.push_back(degraded_link(p, lp, health.expected[k]));
    }
    for (const std::string& w : health.warnings) fabric_.warnings.push_back(w);
    std::sort(fabric_.degraded_links.begin(), fabric_.degraded_links.end(),
              [](const DegradedLink& x, const DegradedLink& y) {
                return std::tie(x.a, x.port_a, x.b, x.port_b) < std::tie(y.a, y.port_a, y.b, y.port_b);
              });

    // Hosts and their membership edges.
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
      Host host;
      host.name = hosts_[h].name;
      host.leaf_group = hosts_[h].leaf_group;
      for (int x : hosts_[h].hcas) host.hcas.push_back(x == kNone ? FabricGraph::null_vertex() : vertex_[x]);
      for (int x : hosts_[h].all_hcas) {
        LinkProps member;
        member.host_edge = true;
        member.rate = LinkRate{0, ""};
        boost::add_edge(host_vertex[h], vertex_[x], member, g);
      }
      if (host.leaf_group != kNone) fabric_.leaf_groups[host.leaf_group].hosts.push_back(static_cast<int>(h));
      fabric_.hosts.push_back(std::move(host));
    }
    for (std::size_t lg = 0; lg < group_leaves_.size(); ++lg) {
      for (int l : group_leaves_[lg]) {
        fabric_.leaf_groups[lg].leaves.push_back(l == kNone ? FabricGraph::null_vertex() : vertex_[l]);
      }
    }
    fill_capacities(health);
    fabric_.partial = raw_.partial;
    fabric_.origin = raw_.origin;
    fabric_.warnings.insert(fabric_.warnings.end(), pending_.begin(), pending_.end());
  }

  std::vector<CableEnds> cable_ends(const auto& placed) const {
    std::vector<CableEnds> ends;
    ends.reserve(placed.size());
    for (const auto& p : placed) ends.push_back({p.a, p.pa, p.b, p.pb, cables_[p.cable].rate});
    return ends;
  }

  DegradedLink degraded_link(const auto& p, const LinkProps& lp, const LinkRate& expected) const {
    const FabricGraph& g = fabric_.graph;
    // The lower end first: the CA, else the lower tier.
    const auto rank = [&](Vertex v) { return g[v].kind == VertexKind::Switch ? tier_level(g[v].tier) : 0; };
    DegradedLink d;
    const bool swap = rank(p.b) < rank(p.a);
    d.a = g[swap ? p.b : p.a].name;
    d.port_a = swap ? p.pb : p.pa;
    d.b = g[swap ? p.a : p.b].name;
    d.port_b = swap ? p.pa : p.pb;
    d.gbps = lp.gbps;
    d.expected_gbps = lp.expected_gbps;
    d.rate = lp.rate;
    d.expected_rate = expected;
    return d;
  }

  void fill_capacities(const LinkHealth& health) {
    const FabricGraph& g = fabric_.graph;
    // Uplinks per leaf (spines per pod): the count most switches of the tier have is
    // what a switch missing cables is measured against.
    std::map<Vertex, std::pair<int, double>> up;  // switch -> (uplinks, expected gbps)
    std::map<SwitchTier, std::map<int, int>> uplink_counts;
    for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
      if (g[v].kind != VertexKind::Switch) continue;
      int n = 0;
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        const Vertex u = boost::target(*e, g);
        if (g[u].kind == VertexKind::Switch && tier_level(g[u].tier) > tier_level(g[v].tier) &&
            g[u].tier != SwitchTier::None) {
          ++n;
        }
      }
      up[v] = {n, 0.0};
      if (g[v].tier == SwitchTier::Leaf && g[v].leaf_group != kNone) ++uplink_counts[SwitchTier::Leaf][n];
      if (g[v].tier == SwitchTier::Spine && fabric_.tiers >= 3) ++uplink_counts[SwitchTier::Spine][n];
    }
    std::map<SwitchTier, int> usual;
    for (const auto& [tier, counts] : uplink_counts) usual[tier] = mode_of(counts);
    std::vector<std::string> short_of;
    for (const auto& [v, info] : up) {
      const auto it = usual.find(g[v].tier);
      if (it == usual.end() || info.first >= it->second) continue;
      if (g[v].tier == SwitchTier::Leaf && g[v].leaf_group == kNone) continue;
      short_of.push_back(fmt::format("{} has {} uplink(s) where most {} have {}", g[v].name, info.first,
                                     g[v].tier == SwitchTier::Leaf ? "leaves" : "spines", it->second));
    }
    if (!short_of.empty()) {
      warn_now(WarningKind::UnevenUplinks,
               fmt::format("{} switch(es) are missing uplinks (cables down or not cabled): {}",
                           short_of.size(), join_some(short_of, 20)));
    }

    const auto sum_links = [&](Vertex v, auto&& keep, double& total, int& links, double& slowest,
                               double& expected) {
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        const Vertex u = boost::target(*e, g);
        const LinkProps& lp = g[*e];
        if (lp.host_edge || !keep(u)) continue;
        total += lp.gbps;
        expected += std::max(lp.gbps, lp.expected_gbps);
        ++links;
        slowest = links == 1 ? lp.gbps : std::min(slowest, lp.gbps);
      }
    };
    const auto is_up = [&](Vertex from) {
      return [&g, from](Vertex u) {
        return g[u].kind == VertexKind::Switch && g[u].tier != SwitchTier::None &&
               tier_level(g[u].tier) > tier_level(g[from].tier);
      };
    };
    const auto is_ca = [&](Vertex u) { return down_ca_[u] != 0; };

    for (std::size_t lg = 0; lg < fabric_.leaf_groups.size(); ++lg) {
      LeafGroup& group = fabric_.leaf_groups[lg];
      double slowest = 0, expected_up = 0, ignored = 0;
      int ignored_links = 0;
      for (Vertex leaf : group.leaves) {
        if (leaf == FabricGraph::null_vertex()) continue;
        if (group.pod == kNone) group.pod = g[leaf].pod;
        double leaf_slowest = 0, leaf_up = 0;
        int leaf_links = 0;
        sum_links(leaf, is_up(leaf), leaf_up, leaf_links, leaf_slowest, expected_up);
        if (leaf_links > 0) {
          slowest = group.uplinks == 0 ? leaf_slowest : std::min(slowest, leaf_slowest);
        }
        group.up_gbps += leaf_up;
        group.uplinks += leaf_links;
        const auto it = usual.find(SwitchTier::Leaf);
        if (it != usual.end() && leaf_links < it->second) {
          expected_up += (it->second - leaf_links) * health.usual_uplink_gbps;
        }
        sum_links(leaf, is_ca, group.down_gbps, ignored_links, ignored, ignored);
      }
      group.min_uplink_gbps = slowest;
      group.expected_up_gbps = expected_up;
      if (group.pod != kNone) fabric_.pods[group.pod].leaf_groups.push_back(static_cast<int>(lg));
    }
    for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
      if (g[v].kind != VertexKind::Switch || g[v].tier != SwitchTier::Spine || g[v].pod == kNone) continue;
      Pod& pod = fabric_.pods[g[v].pod];
      pod.spines.push_back(v);
      double slowest = 0, ignored = 0;
      int links = 0;
      double total = 0;
      sum_links(v, is_up(v), total, links, slowest, ignored);
      if (links > 0)
        pod.min_uplink_gbps = pod.uplinks == 0 ? slowest : std::min(pod.min_uplink_gbps, slowest);
      pod.up_gbps += total;
      pod.uplinks += links;
    }
  }

  void warn(WarningKind kind, const std::string& message) {
    fabric_.warnings.push_back(format_warning(kind, message));
  }
  // Findings of the last step go after the link-health ones.
  void warn_now(WarningKind kind, const std::string& message) {
    pending_.push_back(format_warning(kind, message));
  }

  struct HostInfo {
    std::string name;
    std::vector<int> hcas;      // by rail
    std::vector<int> all_hcas;  // every compute HCA, in name order
    bool clean = true;          // every HCA on the leaf of its own rail
    int leaf_group = kNone;
  };

  NodeNamer namer_;
  const RawFabric& raw_;
  std::vector<int> order_;     // canonical position -> raw index
  std::vector<int> index_of_;  // raw index -> canonical position
  std::vector<NodeInfo> info_;
  std::vector<Cable> cables_;
  std::vector<HostInfo> hosts_;
  std::vector<std::vector<int>> group_leaves_;
  std::vector<Vertex> vertex_;
  std::vector<char> internal_;  // by vertex: SHARP aggregation nodes, inside their switch
  // By vertex: CAs on leaf ports whose traffic shares the leaf's uplinks (compute,
  // unnamed and non-compute HCAs alike), counted in a leaf group's down_gbps.
  std::vector<char> down_ca_;
  std::vector<std::string> pending_;
  Fabric& fabric_;
};

}  // namespace

Fabric build_fabric(const RawFabric& raw, const ModelOptions& options) {
  Fabric fabric;
  Builder(raw, options, fabric).build();
  return fabric;  // NRVO: no copy
}

}  // namespace fabricfit
