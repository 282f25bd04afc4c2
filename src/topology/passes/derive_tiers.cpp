// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 2: ClassifiedFabric -> Tiers. Leaves are the switches with compute HCAs; spines
// and cores are found by distance above them. Switches that serve only storage,
// management or service CAs are leaves of no leaf group and change no other switch's
// tier; a cable that skips a tier (a leaf cabled straight to a core) does not make the
// core a spine. docs/fabric-model.md, "Tiers".
#include <fmt/format.h>
#include <algorithm>
#include <deque>
#include <limits>
#include <set>

#include "topology/fabric_warnings.hpp"
#include "topology/passes/pass_text.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit::passes {
namespace {

constexpr int kFar = std::numeric_limits<int>::max();

// Breadth-first from `seeds` over switch-to-switch cables, not crossing `skip` cables.
std::vector<int> distances(const ClassifiedFabric& f, const std::vector<char>& seeds,
                           const std::vector<char>& skip) {
  std::vector<int> dist(f.count(), kFar);
  std::deque<int> queue;
  for (int i = 0; i < f.count(); ++i) {
    if (seeds[i]) {
      dist[i] = 0;
      queue.push_back(i);
    }
  }
  while (!queue.empty()) {
    const int s = queue.front();
    queue.pop_front();
    for (int c : f.nodes[s].cables) {
      const int peer = f.cables[c].other_end(s);
      if (!skip[c] && f.is_switch(peer) && dist[peer] == kFar) {
        dist[peer] = dist[s] + 1;
        queue.push_back(peer);
      }
    }
  }
  return dist;
}

// A switch next to a leaf with more cables to switches next to leaves than to leaves is
// above the spines: its cables to leaves skip a tier. Returns those cables.
std::vector<char> tier_skipping_cables(const ClassifiedFabric& f, const std::vector<int>& dist) {
  std::vector<char> skip(f.cables.size(), 0);
  for (int i = 0; i < f.count(); ++i) {
    if (!f.is_switch(i) || dist[i] != 1) continue;
    int down = 0, level = 0;
    for (int c : f.nodes[i].cables) {
      const int peer = f.cables[c].other_end(i);
      if (!f.is_switch(peer)) continue;
      down += dist[peer] == 0 ? 1 : 0;
      level += dist[peer] == 1 ? 1 : 0;
    }
    if (level <= down) continue;
    for (int c : f.nodes[i].cables) {
      if (dist[f.cables[c].other_end(i)] == 0) skip[c] = 1;
    }
  }
  return skip;
}

}  // namespace

Tiers derive_tiers(const ClassifiedFabric& f) {
  Tiers out;
  const int count = f.count();
  out.of.assign(count, SwitchTier::None);
  const auto warn = [&](WarningKind k, const std::string& m) {
    out.warnings.push_back(format_warning(k, m));
  };
  const auto peer_of = [&](int node, int c) { return f.cables[c].other_end(node); };

  // Compute HCAs make a leaf; every other CA but a SHARP node (storage, management,
  // service, unnamed) makes a switch a service leaf unless it is a spine or core.
  std::vector<char> candidate(count, 0), has_other_ca(count, 0);
  for (int i = 0; i < count; ++i) {
    if (!f.is_switch(i)) continue;
    for (int c : f.nodes[i].cables) {
      const int peer = peer_of(i, c);
      if (f.nodes[peer].type != NodeType::Ca) continue;
      const CaRole role = f.nodes[peer].role;
      if (role == CaRole::Compute) {
        candidate[i] = 1;
      } else if (role != CaRole::Sharp) {
        has_other_ca[i] = 1;
      }
    }
  }
  // No compute host at all (every CA unnamed, say): the switches with CAs that could be
  // hosts are the leaves, so that the fabric still shows its tiers.
  if (std::find(candidate.begin(), candidate.end(), 1) == candidate.end()) {
    for (int i = 0; i < count; ++i) {
      if (!f.is_switch(i)) continue;
      for (int c : f.nodes[i].cables) {
        const CaRole role = f.nodes[peer_of(i, c)].role;
        if (f.nodes[peer_of(i, c)].type == NodeType::Ca &&
            (role == CaRole::Unnamed || role == CaRole::DefaultHostName || role == CaRole::Unmatched)) {
          candidate[i] = 1;
        }
      }
    }
  }
  // Hosts cabled straight into a spine make it look like a leaf: a "leaf" cabled to two
  // or more leaves, and to no more other switches than leaves, is a spine with hosts on it.
  std::vector<std::string> on_spine;
  std::vector<char> leaf = candidate;
  for (int i = 0; i < count; ++i) {
    if (!candidate[i]) continue;
    std::set<int> leaf_peers, other_peers;
    for (int c : f.nodes[i].cables) {
      const int peer = peer_of(i, c);
      if (f.is_switch(peer)) (candidate[peer] ? leaf_peers : other_peers).insert(peer);
    }
    if (leaf_peers.size() >= 2 && leaf_peers.size() >= other_peers.size()) {
      leaf[i] = 0;
      on_spine.push_back(f.nodes[i].name);
    }
  }
  if (!on_spine.empty()) {
    warn(WarningKind::HostOnSpine, fmt::format("CAs are cabled straight to spine switch(es) {}: they are "
                                               "not placed as hosts of a leaf",
                                               join_some(on_spine)));
  }
  out.compute_leaf = leaf;

  std::vector<int> dist = distances(f, leaf, std::vector<char>(f.cables.size(), 0));
  const std::vector<char> skip = tier_skipping_cables(f, dist);
  if (std::find(skip.begin(), skip.end(), 1) != skip.end()) dist = distances(f, leaf, skip);

  // A switch with storage, management or service CAs that is neither a spine nor a core
  // is a leaf of its own (in no leaf group). It is a core when the fabric has cores (two
  // hops above the leaves, without CAs) and it has fewer CAs than cables to switches: a
  // UFM server on a core does not make the core a leaf.
  std::vector<int> cas(count, 0), trunks(count, 0);
  bool cores_exist = false;
  for (int i = 0; i < count; ++i) {
    if (!f.is_switch(i)) continue;
    for (int c : f.nodes[i].cables) {
      const int peer = peer_of(i, c);
      (f.is_switch(peer) ? trunks[i] : cas[i]) += f.nodes[peer].role == CaRole::Sharp ? 0 : 1;
    }
    cores_exist = cores_exist || (dist[i] == 2 && !has_other_ca[i] && !candidate[i]);
  }
  const auto service_leaf = [&](int i) {
    return has_other_ca[i] && dist[i] != 1 && !(dist[i] == 2 && cores_exist && cas[i] < trunks[i]);
  };

  std::vector<std::string> too_far, service;
  int top = 0;
  for (int i = 0; i < count; ++i) {
    if (!f.is_switch(i)) continue;
    SwitchTier& tier = out.of[i];
    if (dist[i] == 0 || service_leaf(i)) {
      tier = SwitchTier::Leaf;
      if (dist[i] != 0) service.push_back(f.nodes[i].name);
    } else if (dist[i] == 1) {
      tier = SwitchTier::Spine;
    } else if (dist[i] == 2) {
      tier = SwitchTier::Core;
    } else if (dist[i] != kFar) {
      too_far.push_back(fmt::format("{} ({} hops)", f.nodes[i].name, dist[i]));
    }
    if (tier != SwitchTier::None) top = std::max(top, tier_level(tier));
  }
  out.levels = top;
  if (!too_far.empty()) {
    warn(
        WarningKind::TooManyTiers,
        fmt::format("switch(es) more than two hops above the nearest leaf, not a two- or three-tier Clos: {}",
                    join_some(too_far)));
  }
  if (!service.empty()) {
    warn(WarningKind::ServiceLeaf,
         fmt::format("{} switch(es) serve only storage, management or service CAs: leaves of no leaf group, "
                     "outside the compute tiers and pods: {}",
                     service.size(), join_some(service)));
  }

  int switches = 0;
  std::vector<std::string> lonely, loops, skipping;
  for (int i = 0; i < count; ++i) switches += f.is_switch(i) ? 1 : 0;
  for (int i = 0; i < count; ++i) {
    if (!f.is_switch(i) || out.of[i] != SwitchTier::Leaf || !leaf[i]) continue;
    const auto& cables = f.nodes[i].cables;
    const bool up =
        std::any_of(cables.begin(), cables.end(), [&](int c) { return f.is_switch(peer_of(i, c)); });
    if (!up && switches > 1) lonely.push_back(f.nodes[i].name);
  }
  for (const Cable& c : f.cables) {
    if (!f.is_switch(c.a) || !f.is_switch(c.b)) continue;
    const SwitchTier ta = out.of[c.a], tb = out.of[c.b];
    const auto end = [&](int n, int p) {
      return fmt::format("{} {}[{}]", tier_name(out.of[n]), f.nodes[n].name, p);
    };
    if (ta == tb && ta != SwitchTier::None) {
      loops.push_back(fmt::format("{}[{}] - {}[{}] ({})", f.nodes[c.a].name, c.port_a, f.nodes[c.b].name,
                                  c.port_b, tier_name(ta)));
    } else if ((leaf[c.a] && tb == SwitchTier::Core) || (leaf[c.b] && ta == SwitchTier::Core)) {
      skipping.push_back(fmt::format("{} - {}", end(c.a, c.port_a), end(c.b, c.port_b)));
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
  if (!skipping.empty()) {
    warn(WarningKind::CrossTierCable,
         fmt::format("{} cable(s) skip a tier (a leaf cabled straight to a core); the tiers and pods follow "
                     "the other cables: {}",
                     skipping.size(), join_some(skipping)));
  }
  return out;
}

}  // namespace fabricfit::passes
